/*
 * tests/unit/test_graph.c - the graph inputs (workloads/graph, docs/graphs.md): CSR building
 * and statistics on hand-made graphs; every generator's node and entry counts (exact), degree
 * shape, locality and connectivity at small sizes, and determinism per seed; Matrix Market and
 * DIMACS .gr files: round trips, the variants read, every kind of bad file with its line, and
 * damaged files that must never crash the reader.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "workloads/graph/graph.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static struct graph *build(uint32_t n, const uint32_t (*e)[3], size_t ne, bool weighted,
			   struct graph_build_info *info)
{
	struct graph_edges edges = {0};
	struct graph *g = NULL;
	struct cs_err err = {0};

	for (size_t i = 0; i < ne; i++)
		ck_assert_int_eq(graph_edges_add(&edges, e[i][0], e[i][1], e[i][2]), 0);
	ck_assert_msg(graph_build(n, &edges, weighted, &g, info, &err) == 0, "%s", err.msg);
	graph_edges_free(&edges);
	return g;
}

/* m random edges on n nodes (repeats and loops included), seeded weights 1..50. */
static struct graph *random_graph(uint32_t n, uint32_t m, uint64_t seed)
{
	struct graph_edges edges = {0};
	struct graph *g = NULL;
	struct cs_err err = {0};

	for (uint32_t i = 0; i < m; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		ck_assert_int_eq(graph_edges_add(&edges, (uint32_t)(seed >> 40) % n,
						 (uint32_t)(seed >> 20) % n,
						 1 + (uint32_t)(seed >> 10) % 50),
				 0);
	}
	ck_assert_msg(graph_build(n, &edges, true, &g, NULL, &err) == 0, "%s", err.msg);
	graph_edges_free(&edges);
	return g;
}

static struct graph *generate(enum graph_shape s, uint32_t n, uint64_t seed)
{
	struct graph *g = NULL;
	struct cs_err err = {0};

	ck_assert_msg(graph_generate(s, n, seed, &g, &err) == 0, "%s", err.msg);
	return g;
}

static struct graph_stats stats_of(const struct graph *g)
{
	struct graph_stats s;

	ck_assert_int_eq(graph_stats(g, &s), 0);
	return s;
}

/* Rows sorted and strictly increasing (no repeats), no self loop, every u -> v matched by
 * v -> u with the same weight. (Check's assertions cost a write each: the loop only tests.) */
static void assert_well_formed(const struct graph *g)
{
	const uint32_t *row = graph_row(g), *col = graph_col(g), *w = graph_weight(g);

	ck_assert_uint_eq(row[0], 0);
	ck_assert_uint_eq(row[graph_nodes(g)], graph_entries(g));
	for (uint32_t u = 0; u < graph_nodes(g); u++)
		for (uint32_t k = row[u]; k < row[u + 1]; k++) {
			uint32_t v = col[k], lo = row[v], hi = row[v + 1];

			if (v == u || v >= graph_nodes(g) || (k > row[u] && col[k - 1] >= v))
				ck_abort_msg("row %u: column %u out of order, a loop or a repeat",
					     u, v);
			while (lo < hi) { /* u in row v, by bisection */
				uint32_t mid = lo + (hi - lo) / 2;

				if (col[mid] < u)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == row[v + 1] || col[lo] != u)
				ck_abort_msg("%u -> %u has no reverse", u, v);
			if (w && (w[lo] != w[k] || w[k] < 1))
				ck_abort_msg("%u - %u: weights %u and %u", u, v, w[k], w[lo]);
		}
}

/* ---- the CSR graph -------------------------------------------------------------------------- */

START_TEST(test_build_symmetrizes)
{
	/* 1 - 0 given three times (smallest weight kept), a self loop, 3 - 1 in both directions */
	static const uint32_t e[][3] = {{0, 1, 5}, {1, 0, 3}, {2, 2, 9}, {1, 3, 7},
					{3, 1, 2}, {0, 1, 4}, {4, 0, 1}};
	struct graph_build_info info;
	struct graph *g = build(6, e, 7, true, &info);
	const uint32_t *row = graph_row(g), *col = graph_col(g), *w = graph_weight(g);
	static const uint32_t want_row[] = {0, 2, 4, 4, 5, 6, 6};
	static const uint32_t want_col[] = {1, 4, 0, 3, 1, 0}, want_w[] = {3, 1, 3, 2, 2, 1};

	ck_assert_uint_eq(graph_nodes(g), 6);
	ck_assert_uint_eq(graph_entries(g), 6);
	ck_assert_mem_eq(row, want_row, sizeof(want_row));
	ck_assert_mem_eq(col, want_col, sizeof(want_col));
	ck_assert_mem_eq(w, want_w, sizeof(want_w));
	ck_assert_uint_eq(info.self_loops, 1);
	ck_assert_uint_eq(info.repeats, 3);
	ck_assert_uint_eq(graph_degree(g, 1), 2);
	ck_assert_uint_eq(graph_degree(g, 2), 0);
	assert_well_formed(g);
	graph_free(g);
	/* without weights */
	g = build(6, e, 7, false, NULL);
	ck_assert_ptr_null(graph_weight(g));
	ck_assert_mem_eq(graph_col(g), want_col, sizeof(want_col));
	graph_free(g);
}
END_TEST

START_TEST(test_build_errors)
{
	struct graph_edges e = {0};
	struct graph *g = (struct graph *)&e;
	struct cs_err err = {0};

	ck_assert_int_eq(graph_edges_add(&e, 0, 1, 1), 0);
	ck_assert_int_eq(graph_edges_add(&e, 2, 5, 1), 0);
	ck_assert_int_eq(graph_build(5, &e, true, &g, NULL, &err), -CS_EINVAL);
	ck_assert_ptr_null(g);
	ck_assert_msg(strstr(err.msg, "edge 1 joins 2 and 5, beyond the 5 nodes"), "%s", err.msg);
	ck_assert_int_eq(graph_build(0, &e, true, &g, NULL, &err), -CS_EINVAL);
	graph_edges_free(&e);
}
END_TEST

START_TEST(test_stats_hand_made)
{
	/* a path 0-1-2-3-4, a star 5 - 6..10, node 11 alone */
	static const uint32_t e[][3] = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {5, 6, 1},
					{5, 7, 1}, {5, 8, 1}, {5, 9, 1}, {5, 10, 1}};
	struct graph *g = build(12, e, 9, false, NULL);
	struct graph_stats s = stats_of(g);
	uint64_t hist[4];
	char line[512];

	ck_assert_uint_eq(s.nodes, 12);
	ck_assert_uint_eq(s.entries, 18);
	ck_assert_uint_eq(s.min_degree, 0);
	ck_assert_uint_eq(s.max_degree, 5);
	ck_assert_uint_eq(s.isolated, 1);
	ck_assert_double_eq_tol(s.mean_degree, 1.5, 1e-12);
	ck_assert_uint_eq(s.components, 3);
	ck_assert_uint_eq(s.largest_component, 6);
	/* spans: path 1 x 8; star 1, 2, 3, 4, 5 twice */
	ck_assert_double_eq_tol(s.mean_span, (8 + 2 * 15) / 18.0, 1e-12);
	ck_assert_uint_eq(s.max_span, 5);
	ck_assert_double_eq_tol(s.near_fraction, 1.0, 1e-12);
	/* top 1% of 12 nodes = the star's centre: 5 of 18 entries */
	ck_assert_double_eq_tol(s.top1_share, 5 / 18.0, 1e-12);
	/* buckets: degree 0 | 1 | 2-3 | 4-7 */
	ck_assert_uint_eq(s.degree_buckets[0], 1);
	ck_assert_uint_eq(s.degree_buckets[1], 7);
	ck_assert_uint_eq(s.degree_buckets[2], 3);
	ck_assert_uint_eq(s.degree_buckets[3], 1);
	graph_degree_hist(g, hist, 4);
	ck_assert_uint_eq(hist[0], 1);
	ck_assert_uint_eq(hist[1], 7);
	ck_assert_uint_eq(hist[2], 3);
	ck_assert_uint_eq(hist[3], 1); /* degree >= 3 */
	ck_assert_ptr_nonnull(strstr(graph_stats_line(&s, line, sizeof(line)), "components 3"));
	graph_free(g);
}
END_TEST

START_TEST(test_set_weights)
{
	static const uint32_t e[][3] = {{0, 1, 0}, {1, 2, 0}, {2, 0, 0}, {3, 1, 0}};
	struct graph *g = build(4, e, 4, false, NULL), *h = build(4, e, 4, false, NULL);

	ck_assert_int_eq(graph_set_weights(g, 42, 5, 9), 0);
	ck_assert_int_eq(graph_set_weights(h, 42, 5, 9), 0);
	assert_well_formed(g); /* both directions equal */
	for (uint32_t k = 0; k < graph_entries(g); k++)
		if (graph_weight(g)[k] < 5 || graph_weight(g)[k] > 9)
			ck_abort_msg("weight %u", graph_weight(g)[k]);
	ck_assert(graph_equal(g, h));
	ck_assert_uint_eq(graph_digest(g), graph_digest(h));
	ck_assert_int_eq(graph_set_weights(h, 43, 1, 1000000), 0);
	ck_assert(!graph_equal(g, h));
	ck_assert_uint_ne(graph_digest(g), graph_digest(h));
	graph_free(g);
	graph_free(h);
}
END_TEST

/* ---- generators ----------------------------------------------------------------------------- */

/* Node and entry counts: exact (the generators stop at the target); the mean degree of the
 * original kept within 0.5% (rounding to an even entry count) except ecology1, whose mesh loses
 * degree on its border at small sizes. */
START_TEST(test_gen_counts)
{
	static const uint32_t sizes[] = {GRAPH_MIN_NODES, 2048, 16384};

	for (int s = 0; s < GRAPH_SHAPES; s++)
		for (unsigned i = 0; i < 3; i++) {
			const struct graph_original *o = graph_original(s);
			uint32_t n = graph_shape_nodes(s, sizes[i]);
			struct graph *g = generate(s, sizes[i], 7);
			double mean = (double)graph_entries(g) / graph_nodes(g);

			ck_assert_uint_eq(graph_nodes(g), n);
			ck_assert_uint_eq(graph_entries(g), graph_shape_entries(s, n));
			if (s != GRAPH_ECOLOGY1 && n >= 2048)
				ck_assert_msg(fabs(mean / ((double)o->entries / o->nodes) - 1) <
						  0.005,
					      "%s at %u: mean degree %.3f", o->name, n, mean);
			ck_assert_ptr_nonnull(graph_weight(g));
			assert_well_formed(g);
			graph_free(g);
		}
}
END_TEST

START_TEST(test_gen_road)
{
	for (int s = GRAPH_USA_ROAD_BAY; s <= GRAPH_USA_ROAD_COL; s++) {
		struct graph *g = generate(s, 16384, 3);
		struct graph_stats st = stats_of(g);
		const uint32_t *w = graph_weight(g);
		uint64_t hist[10];

		ck_assert_uint_le(st.max_degree, 8); /* a planar near-grid */
		ck_assert_uint_ge(st.min_degree, 1);
		ck_assert(st.mean_degree >= 2.4 && st.mean_degree <= 2.8);
		ck_assert_uint_eq(st.components, 1);
		/* row-major on a 128-wide grid: neighbours 1 or about 128 ids apart */
		ck_assert_uint_le(st.max_span, 2 * 128 + 1);
		ck_assert(st.near_fraction > 0.4);
		graph_degree_hist(g, hist, 10);
		ck_assert_msg(hist[1] < graph_nodes(g) / 4 && hist[3] > graph_nodes(g) / 5,
			      "dead ends %lu, junctions %lu", (unsigned long)hist[1],
			      (unsigned long)hist[3]);
		/* lengths: neighbours 0.3 to 1.7 cells of 1000 apart on each axis */
		for (uint32_t k = 0; k < graph_entries(g); k++)
			if (w[k] < 300 || w[k] > 2405)
				ck_abort_msg("entry %u: length %u", k, w[k]);
		graph_free(g);
	}
}
END_TEST

/* ecology1 is the 5-point mesh exactly: every node's neighbours are its mesh neighbours. */
START_TEST(test_gen_mesh_exact)
{
	struct graph *g = generate(GRAPH_ECOLOGY1, 4096, 1);
	const uint32_t side = 64, *row = graph_row(g), *col = graph_col(g);
	struct graph_stats st = stats_of(g);
	uint64_t hist[6];

	ck_assert_uint_eq(graph_nodes(g), side * side);
	graph_degree_hist(g, hist, 6);
	ck_assert_uint_eq(hist[2], 4);
	ck_assert_uint_eq(hist[3], 4 * (side - 2));
	ck_assert_uint_eq(hist[4], (side - 2) * (side - 2));
	ck_assert_uint_eq(hist[0] + hist[1] + hist[5], 0);
	for (uint32_t v = 0; v < side * side; v++) {
		uint32_t want[4], n = 0;

		if (v >= side)
			want[n++] = v - side;
		if (v % side)
			want[n++] = v - 1;
		if (v % side + 1 < side)
			want[n++] = v + 1;
		if (v + side < side * side)
			want[n++] = v + side;
		if (row[v + 1] - row[v] != n || memcmp(col + row[v], want, n * sizeof(*want)))
			ck_abort_msg("node %u: not its mesh neighbours", v);
	}
	ck_assert_uint_eq(st.max_span, side);
	ck_assert_uint_eq(graph_shape_nodes(GRAPH_ECOLOGY1, 1000000), 1000000);
	ck_assert_uint_eq(graph_shape_entries(GRAPH_ECOLOGY1, 1000000), 3996000);
	graph_free(g);
}
END_TEST

/* Power laws: a few hubs hold many entries (top 1% >= 5% of them, a road or mesh has 1-2%), the
 * largest degree is far above the mean. */
START_TEST(test_gen_heavy_tails)
{
	struct graph *co = generate(GRAPH_COAUTHORS_DBLP, 16384, 5);
	struct graph *dic = generate(GRAPH_DICTIONARY28, 16384, 5);
	struct graph *road = generate(GRAPH_USA_ROAD_BAY, 16384, 5);
	struct graph_stats a = stats_of(co), b = stats_of(dic), r = stats_of(road);

	ck_assert(a.top1_share > 0.08 && a.max_degree > 20 * a.mean_degree);
	ck_assert(b.top1_share > 0.05 && b.max_degree > 10 * b.mean_degree);
	ck_assert(r.top1_share < 0.03);
	/* co-authorship: connected like the original, mostly local (communities of ids) but with
	 * a share of far links */
	ck_assert_uint_eq(a.components, 1);
	ck_assert(a.near_fraction > 0.15 && a.near_fraction < 0.6);
	ck_assert(a.mean_span > 4 * r.mean_span);
	graph_free(co);
	graph_free(dic);
	graph_free(road);
}
END_TEST

/* dictionary28's component structure, scaled: 17 903 components at full size, the largest 47%
 * of the nodes; many isolated words. */
START_TEST(test_gen_dictionary_components)
{
	static const uint32_t sizes[] = {16384, 52652};

	for (unsigned i = 0; i < 2; i++) {
		uint32_t n = sizes[i];
		struct graph *g = generate(GRAPH_DICTIONARY28, n, 11);
		struct graph_stats s = stats_of(g);
		double comps = 17903.0 * n / 52652, giant = 24831.0 * n / 52652;

		ck_assert_msg(fabs(s.components / comps - 1) < 0.01, "%u components", s.components);
		ck_assert_msg(fabs(s.largest_component / giant - 1) < 0.02, "largest %u",
			      s.largest_component);
		ck_assert(s.isolated > n / 5 && s.isolated < n / 3);
		graph_free(g);
	}
}
END_TEST

START_TEST(test_gen_c68_and_opf)
{
	struct graph *c = generate(GRAPH_C68, 16384, 9), *o = generate(GRAPH_OPF_10000, 16384, 9);
	struct graph_stats cs = stats_of(c), os = stats_of(o);
	uint32_t n = graph_nodes(c), top = 0;

	/* c-68: banded (most entries near the diagonal), connected, a few dense rows at the end */
	ck_assert_uint_eq(cs.components, 1);
	ck_assert(cs.near_fraction > 0.8);
	ck_assert(cs.max_degree > 50 * cs.mean_degree);
	for (uint32_t v = 0; v < n; v++)
		top = graph_degree(c, v) > graph_degree(c, top) ? v : top;
	ck_assert_uint_ge(top, n - 8);
	/* OPF: dense blocks of 4-5 variables (degree >= 3), local coupling, connected */
	ck_assert_uint_ge(os.min_degree, 3);
	ck_assert_uint_le(os.max_degree, 64);
	ck_assert(os.near_fraction > 0.8);
	ck_assert_uint_eq(os.components, 1);
	graph_free(c);
	graph_free(o);
}
END_TEST

START_TEST(test_gen_deterministic)
{
	for (int s = 0; s < GRAPH_SHAPES; s++) {
		struct graph *a = generate(s, 2048, 123), *b = generate(s, 2048, 123);
		struct graph *c = generate(s, 2048, 124);

		ck_assert_msg(graph_equal(a, b), "%s: same seed, different graph",
			      graph_original(s)->name);
		ck_assert_uint_eq(graph_digest(a), graph_digest(b));
		ck_assert_msg(!graph_equal(a, c), "%s: another seed, the same graph",
			      graph_original(s)->name);
		/* the structure changes too, except for the mesh (only its weights) */
		if (s != GRAPH_ECOLOGY1)
			ck_assert(memcmp(graph_col(a), graph_col(c), graph_entries(a) * 4) != 0);
		graph_free(a);
		graph_free(b);
		graph_free(c);
	}
}
END_TEST

START_TEST(test_gen_names_and_ranges)
{
	enum graph_shape s;
	struct graph *g = NULL;
	struct cs_err err = {0};

	ck_assert_int_eq(graph_shape_find("USA-road-d.COL", &s, &err), 0);
	ck_assert_int_eq(s, GRAPH_USA_ROAD_COL);
	ck_assert_int_eq(graph_shape_find("opf_10000", &s, &err), 0);
	ck_assert_int_eq(s, GRAPH_OPF_10000);
	ck_assert_int_eq(graph_shape_find("ecology2", &s, &err), -CS_ENOENT);
	ck_assert_msg(strstr(err.msg, "'ecology2'") && strstr(err.msg, "dictionary28"), "%s",
		      err.msg);
	ck_assert_int_eq(graph_generate(GRAPH_C68, GRAPH_MIN_NODES - 1, 1, &g, &err), -CS_ERANGE);
	ck_assert_ptr_null(g);
	ck_assert_int_eq(graph_generate(GRAPH_C68, 64811, 1, &g, &err), -CS_ERANGE);
	ck_assert_msg(strstr(err.msg, "c-68") && strstr(err.msg, "64810"), "%s", err.msg);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_USA_ROAD_BAY, GRAPH_TIER_TINY), 2048);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_ECOLOGY1, GRAPH_TIER_TINY), 45 * 45);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_USA_ROAD_BAY, GRAPH_TIER_DEFAULT), 65536);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_OPF_10000, GRAPH_TIER_DEFAULT), 43887);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_USA_ROAD_COL, GRAPH_TIER_FULL), 435666);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_SHAPES, GRAPH_TIER_TINY), 0);
	ck_assert_uint_eq(graph_shape_entries(GRAPH_SHAPES, 100), 0);
	ck_assert_ptr_null(graph_original(GRAPH_SHAPES));
	for (int i = 0; i < GRAPH_SHAPES; i++) /* the full-size targets are the originals' */
		ck_assert_uint_eq(graph_shape_entries(i, graph_original(i)->nodes),
				  graph_original(i)->entries);
}
END_TEST

/* ---- files ---------------------------------------------------------------------------------- */

static char tmpdir[64];

static void tmp_setup(void)
{
	strcpy(tmpdir, "/tmp/cs_test_graph.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void)
{
	static const char *const names[] = {"a.mtx", "b.mtx", "c.gr", "bad", "fuzz"};
	char p[128];

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

/* Writes len bytes (strlen if len is 0) to tmpdir/name; returns the path (static). */
static const char *put(const char *name, const char *text, size_t len)
{
	static char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	len = len ? len : strlen(text);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return p;
}

START_TEST(test_mtx_round_trip)
{
	struct graph *g = random_graph(3000, 12000, 2), *h = NULL;
	static const uint32_t e[][3] = {{0, 1, 0}, {2, 1, 0}, {4, 0, 0}};
	struct graph_build_info info;
	struct cs_err err = {0};
	char path[128];

	snprintf(path, sizeof(path), "%s/a.mtx", tmpdir);
	ck_assert_msg(graph_write_mtx(g, path, &err) == 0, "%s", err.msg);
	ck_assert_msg(graph_read_mtx(path, &h, &info, &err) == 0, "%s", err.msg);
	ck_assert(graph_equal(g, h));
	ck_assert_uint_eq(info.self_loops + info.repeats, 0);
	graph_free(h);
	ck_assert_int_eq(graph_read(path, &h, NULL, &err), 0); /* by its name */
	ck_assert(graph_equal(g, h));
	graph_free(h);
	graph_free(g);
	/* a pattern graph stays one, isolated nodes included */
	g = build(6, e, 3, false, NULL);
	snprintf(path, sizeof(path), "%s/b.mtx", tmpdir);
	ck_assert_int_eq(graph_write_mtx(g, path, &err), 0);
	ck_assert_int_eq(graph_read_mtx(path, &h, NULL, &err), 0);
	ck_assert_ptr_null(graph_weight(h));
	ck_assert(graph_equal(g, h));
	graph_free(g);
	graph_free(h);
}
END_TEST

/* Every shape's graph survives a Matrix Market round trip. */
START_TEST(test_gen_files_round_trip)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/a.mtx", tmpdir);
	for (int s = 0; s < GRAPH_SHAPES; s++) {
		struct graph *g = generate(s, 2048, 2), *h = NULL;
		struct cs_err err = {0};

		ck_assert_msg(graph_write_mtx(g, path, &err) == 0, "%s", err.msg);
		ck_assert_msg(graph_read_mtx(path, &h, NULL, &err) == 0, "%s", err.msg);
		ck_assert_msg(graph_equal(g, h), "%s", graph_original(s)->name);
		graph_free(g);
		graph_free(h);
	}
}
END_TEST

/* General and symmetric, real and integer values, comments, blank lines, CRLF ends, upper and
 * lower triangle, self loops and repeats. */
START_TEST(test_mtx_variants)
{
	struct graph *g = NULL;
	struct graph_build_info info;
	struct cs_err err = {0};
	const char *p;

	p = put("a.mtx",
		"%%MatrixMarket matrix coordinate real general\r\n"
		"% a comment\r\n"
		"\r\n"
		"4 4 6\r\n"
		"1 2 2.6\r\n"
		"2 1 -7.4\r\n" /* the same edge: the smaller weight, 3, is kept */
		"3 3 1.0\r\n"  /* self loop */
		"  4   1   0.2  \r\n"
		"% comments between entries are skipped\r\n"
		"2 4 1e3\r\n"
		"1 4 5\r\n", /* a repeat of 4 1 */
		0);
	ck_assert_msg(graph_read_mtx(p, &g, &info, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(graph_nodes(g), 4);
	ck_assert_uint_eq(graph_entries(g), 6);
	ck_assert_uint_eq(info.self_loops, 1);
	ck_assert_uint_eq(info.repeats, 2);
	{
		static const uint32_t col[] = {1, 3, 0, 3, 0, 1}, w[] = {3, 1, 3, 1000, 1, 1000};

		ck_assert_mem_eq(graph_col(g), col, sizeof(col));
		ck_assert_mem_eq(graph_weight(g), w, sizeof(w));
	}
	graph_free(g);
	p = put("a.mtx",
		"%%matrixmarket MATRIX Coordinate INTEGER Symmetric\n"
		"3 3 3\n"
		"2 1 -4\n"
		"3 2 0\n" /* an explicit zero is an entry */
		"3 3 8\n",
		0);
	ck_assert_msg(graph_read_mtx(p, &g, &info, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(graph_entries(g), 4);
	ck_assert_uint_eq(graph_weight(g)[0], 4);
	ck_assert_uint_eq(graph_weight(g)[3], 1);
	graph_free(g);
}
END_TEST

struct bad_file {
	const char *text;
	int code;
	unsigned line;
	const char *says;
};

/* Every bad file: the code, "PATH:LINE:" and the problem. */
static const struct bad_file bad_mtx[] = {
    {"", -CS_EINVAL, 1, "empty file"},
    {"3 3 1\n1 2\n", -CS_EINVAL, 1, "no %%MatrixMarket header"},
    {"%%MatrixMarket matrix coordinate real\n3 3 0\n", -CS_EINVAL, 1, "expected"},
    {"%%MatrixMarket matrix coordinate real general extra\n", -CS_EINVAL, 1, "expected"},
    {"%%MatrixMarket matrix array real general\n3 3\n", -CS_EUNSUP, 1, "format 'array'"},
    {"%%MatrixMarket matrix coordinate complex general\n", -CS_EUNSUP, 1, "field 'complex'"},
    {"%%MatrixMarket matrix coordinate real hermitian\n", -CS_EUNSUP, 1, "symmetry"},
    {"%%MatrixMarket matrix coordinate real sideways\n", -CS_EINVAL, 1, "symmetry 'sideways'"},
    {"%%MatrixMarket vector coordinate real general\n", -CS_EUNSUP, 1, "object 'vector'"},
    {"%%MatrixMarket matrix coordinate real general\n% only comments\n", -CS_EINVAL, 2,
     "before the size line"},
    {"%%MatrixMarket matrix coordinate real general\n3 3\n", -CS_EINVAL, 2, "entries: missing"},
    {"%%MatrixMarket matrix coordinate real general\n3 x 3\n", -CS_EINVAL, 2,
     "columns: 'x' is not a non-negative integer"},
    {"%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1\n", -CS_EINVAL, 2, "not square"},
    {"%%MatrixMarket matrix coordinate real general\n0 0 0\n", -CS_EINVAL, 2, "0 rows"},
    {"%%MatrixMarket matrix coordinate real general\n5000000000 5000000000 0\n", -CS_ERANGE, 2,
     "rows"},
    /* issue 43, case 4: refused before anything is allocated */
    {"%%MatrixMarket matrix coordinate pattern symmetric\n2000000000 2000000000 1\n", -CS_ERANGE, 2,
     "size line: 2000000000 rows (1 to 4194304)"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 5\n", -CS_EINVAL, 2,
     "more than a 2 x 2 holds"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 9 1\n", -CS_EINVAL, 2, "unexpected '1'"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 99999999999999999999\n", -CS_EINVAL, 2,
     "too large"},
    /* wrong counts */
    {"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1\n2 3 1\n", -CS_EINVAL, 4,
     "file ends after 2 of the 3 entries"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n\n2 3 1\n", -CS_EINVAL, 5,
     "more entries than the 1 the size line declares"},
    /* indices */
    {"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n4 1 1\n", -CS_EINVAL, 4,
     "entry: row 4 out of range 1..3"},
    {"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 0\n", -CS_EINVAL, 3,
     "entry: column 0 out of range 1..3"},
    {"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n-2 1\n", -CS_EINVAL, 3,
     "entry: row: '-2' is not a non-negative integer"},
    /* truncated or damaged entries */
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1\n", -CS_EINVAL, 3,
     "entry: column: missing"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n", -CS_EINVAL, 3, "missing value"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n", -CS_EINVAL, 3,
     "'abc' is not a finite number"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n", -CS_EINVAL, 3,
     "not a finite number"},
    {"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", -CS_EINVAL, 3,
     "'1.5' is not a 64-bit integer"},
    {"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 7\n", -CS_EINVAL, 3,
     "unexpected '7'"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 3 4\n", -CS_EINVAL, 3,
     "unexpected '4' after the value"},
};

static const struct bad_file bad_gr[] = {
    {"c nothing else\n", -CS_EINVAL, 1, "no problem line"},
    {"a 1 2 3\np sp 2 1\n", -CS_EINVAL, 1, "an arc before the problem line"},
    {"p sp 3 2\na 1 2 5\nx 1 2\n", -CS_EINVAL, 3, "unknown line 'x'"},
    {"p sp 3 2\na 1 2 5\np sp 3 2\n", -CS_EINVAL, 3, "a second problem line"},
    {"p max 3 2\n", -CS_EINVAL, 1, "type 'max'"},
    {"p sp 3 2\na 1 2 5\n", -CS_EINVAL, 2, "file ends after 1 of the 2 arcs"},
    {"p sp 3 1\na 1 2 5\na 2 3 5\n", -CS_EINVAL, 3, "more arcs than the 1"},
    {"p sp 3 1\na 1 4 5\n", -CS_EINVAL, 2, "arc: head 4 out of range 1..3"},
    {"p sp 3 1\na 1 2 -5\n", -CS_EINVAL, 2, "negative length"},
    {"p sp 3 1\na 1 2 4294967296\n", -CS_EINVAL, 2, "arc: length 4294967296 is above"},
    {"p sp 3 1\na 1 2\n", -CS_EINVAL, 2, "arc: length: missing"},
    {"p sp 2000000000 1\na 1 2 1\n", -CS_EINVAL, 1,
     "problem line: nodes 2000000000 is above 4194304"},
};

static void check_bad(const struct bad_file *b, const char *name,
		      int (*read)(const char *, struct graph **, struct graph_build_info *,
				  struct cs_err *))
{
	const char *p = put(name, b->text, 0);
	struct graph *g = (struct graph *)&g;
	struct cs_err err = {0};
	char where[160];

	snprintf(where, sizeof(where), "%s:%u: ", p, b->line);
	ck_assert_msg(read(p, &g, NULL, &err) == b->code, "%s: got '%s'", b->says, err.msg);
	ck_assert_ptr_null(g);
	ck_assert_msg(strncmp(err.msg, where, strlen(where)) == 0 && strstr(err.msg, b->says),
		      "want '%s...%s', got '%s'", where, b->says, err.msg);
	ck_assert_ptr_null(strchr(err.msg, '\n')); /* one line */
}

START_TEST(test_mtx_bad_files)
{
	struct graph *g = NULL;
	struct cs_err err = {0};
	char path[128];
	/* a NUL byte in the size line */
	static const char nul[] = "%%MatrixMarket matrix coordinate real general\n3 3\0 1\n";

	for (unsigned i = 0; i < sizeof(bad_mtx) / sizeof(bad_mtx[0]); i++)
		check_bad(&bad_mtx[i], "bad", graph_read_mtx);
	graph_read_mtx(put("bad", nul, sizeof(nul) - 1), &g, NULL, &err);
	ck_assert_msg(strstr(err.msg, "bad:2: a NUL byte"), "%s", err.msg);
	/* a line without end (/dev/zero, a binary file) stops at the cap, not at the host's memory */
	ck_assert_int_eq(graph_read_mtx("/dev/zero", &g, NULL, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, "/dev/zero:1: a line over 65536 bytes"), "%s", err.msg);
	ck_assert_int_eq(graph_read_gr("/dev/zero", &g, NULL, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, "/dev/zero:1: a line over 65536 bytes"), "%s", err.msg);
	snprintf(path, sizeof(path), "%s/missing.mtx", tmpdir);
	ck_assert_int_eq(graph_read_mtx(path, &g, NULL, &err), -CS_EIO);
	ck_assert_msg(strstr(err.msg, "missing.mtx: cannot open"), "%s", err.msg);
}
END_TEST

START_TEST(test_gr_files)
{
	struct graph *g = NULL;
	struct graph_build_info info;
	struct cs_err err = {0};
	const char *p = put("c.gr",
			    "c 9th DIMACS Implementation Challenge: Shortest Paths\n"
			    "p sp 4 5\n"
			    "c arcs in both directions, as the road networks have them\n"
			    "a 1 2 803\n"
			    "a 2 1 803\n"
			    "a 3 4 158\n"
			    "a 4 3 160\n" /* the shorter one is kept */
			    "a 2 3 0\n",
			    0);

	ck_assert_msg(graph_read(p, &g, &info, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(graph_nodes(g), 4);
	ck_assert_uint_eq(graph_entries(g), 6);
	ck_assert_uint_eq(info.repeats, 2);
	{
		static const uint32_t col[] = {1, 0, 2, 1, 3, 2}, w[] = {803, 803, 0, 0, 158, 158};

		ck_assert_mem_eq(graph_col(g), col, sizeof(col));
		ck_assert_mem_eq(graph_weight(g), w, sizeof(w));
	}
	graph_free(g);
	for (unsigned i = 0; i < sizeof(bad_gr) / sizeof(bad_gr[0]); i++)
		check_bad(&bad_gr[i], "c.gr", graph_read_gr);
}
END_TEST

/* Damaged copies of a valid file (cut anywhere, bytes changed anywhere): the reader returns a
 * graph or one error line naming the file, and never crashes (run under valgrind / ASan). */
START_TEST(test_damaged_files)
{
	struct graph *g = random_graph(200, 600, 1), *h;
	char path[128], *text;
	struct cs_err err = {0};
	uint64_t st = 99;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/a.mtx", tmpdir);
	ck_assert_int_eq(graph_write_mtx(g, path, &err), 0);
	graph_free(g);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = malloc((size_t)len + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	for (int i = 0; i < 400; i++) {
		char *copy = malloc((size_t)len + 1);
		size_t n = (size_t)len;
		int rc;

		memcpy(copy, text, (size_t)len);
		st = st * 6364136223846793005ull + 1442695040888963407ull;
		if (i % 2) /* cut */
			n = (size_t)(st >> 33) % (size_t)len;
		for (int k = 0; k < 1 + i % 4; k++) { /* change bytes */
			st = st * 6364136223846793005ull + 1442695040888963407ull;
			copy[(st >> 33) % (size_t)len] = " 0123456789-.%\nxe\t"[(st >> 20) % 18];
		}
		h = NULL;
		rc = graph_read_mtx(put("fuzz", copy, n ? n : 1), &h, NULL, &err);
		if (rc == 0) {
			assert_well_formed(h);
			graph_free(h);
		} else {
			ck_assert_ptr_null(h);
			ck_assert_msg(strstr(err.msg, "/fuzz:"), "%s", err.msg);
		}
		free(copy);
	}
	free(text);
}
END_TEST

static Suite *graph_suite(void)
{
	Suite *s = suite_create("graph");
	TCase *tc = tcase_create("csr");

	tcase_add_test(tc, test_build_symmetrizes);
	tcase_add_test(tc, test_build_errors);
	tcase_add_test(tc, test_stats_hand_made);
	tcase_add_test(tc, test_set_weights);
	suite_add_tcase(s, tc);

	tc = tcase_create("generators");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_gen_counts);
	tcase_add_test(tc, test_gen_road);
	tcase_add_test(tc, test_gen_mesh_exact);
	tcase_add_test(tc, test_gen_heavy_tails);
	tcase_add_test(tc, test_gen_dictionary_components);
	tcase_add_test(tc, test_gen_c68_and_opf);
	tcase_add_test(tc, test_gen_deterministic);
	tcase_add_test(tc, test_gen_names_and_ranges);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, test_mtx_round_trip);
	tcase_add_test(tc, test_mtx_variants);
	tcase_add_test(tc, test_mtx_bad_files);
	tcase_add_test(tc, test_gr_files);
	tcase_add_test(tc, test_damaged_files);
	tcase_add_test(tc, test_gen_files_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(graph_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
