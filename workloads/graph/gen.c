/*
 * workloads/graph/gen.c - seeded generators shaped like seed 004's graph inputs (see graph.h;
 * docs/graphs.md has every target's source and what each generator matches and misses).
 *
 * Every generator collects undirected edges in a hash set, so it knows the exact edge count as
 * it goes and stops at the target: the entries of the result are graph_shape_entries exactly.
 * Randomness is one splitmix64 stream per graph, seeded from the run seed and the shape, and
 * consumed in a fixed order, so the same seed gives the same graph bit for bit.
 */
#include "workloads/graph/graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "workloads/graph/uf.h"
#include "workloads/wl_util.h"

#define GEN_TAG	       0x6772617068000000ull /* "graph": keeps these streams apart from others */
#define WEIGHT_MAX     1000u		     /* seeded weights of the non-road graphs: 1..1000 */
#define ROAD_CELL      1000.0		     /* grid spacing of the road nodes, in weight units */
#define ROAD_JITTER    0.35		     /* node position noise, in cells */
#define ROAD_DIAGONALS 0.12 /* share of the non-tree road edges that are diagonals */

/* Sources of these numbers: docs/graphs.md. entries = what Pannotia's CSR holds. */
static const struct graph_original originals[GRAPH_SHAPES] = {
    [GRAPH_USA_ROAD_BAY] = {"usa-road-d.bay", "USA-road-d.BAY", 321270, 800172, "road network",
			    true},
    [GRAPH_USA_ROAD_COL] = {"usa-road-d.col", "USA-road-d.COL", 435666, 1057066, "road network",
			    true},
    [GRAPH_C68] = {"c-68", "c-68", 64810, 501186, "optimization problem (KKT)", false},
    [GRAPH_ECOLOGY1] = {"ecology1", "ecology1", 1000000, 3996000, "2D 5-point mesh", false},
    [GRAPH_COAUTHORS_DBLP] = {"coauthorsdblp", "coAuthorsDBLP", 299067, 1955352,
			      "co-authorship graph", false},
    [GRAPH_DICTIONARY28] = {"dictionary28", "dictionary28", 52652, 178076, "word graph", false},
    [GRAPH_OPF_10000] = {"opf_10000", "OPF_10000", 43887, 423824, "power network (KKT)", false},
};

const struct graph_original *graph_original(enum graph_shape s)
{
	return s < GRAPH_SHAPES ? &originals[s] : NULL;
}

int graph_shape_find(const char *name, enum graph_shape *s, struct cs_err *err)
{
	char names[256] = "";

	for (int i = 0; i < GRAPH_SHAPES; i++) {
		if (strcasecmp(name, originals[i].name) == 0 ||
		    strcasecmp(name, originals[i].title) == 0) {
			*s = (enum graph_shape)i;
			return 0;
		}
		strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
		strncat(names, originals[i].name, sizeof(names) - strlen(names) - 1);
	}
	return cs_err_set(err, -CS_ENOENT, "unknown graph '%s' (graphs: %s)", name, names);
}

/* ---- sizes ---------------------------------------------------------------------------------- */

static uint32_t grid_side(uint32_t nodes)
{
	uint32_t side = (uint32_t)floor(sqrt((double)nodes) + 0.5);

	return side * side > originals[GRAPH_ECOLOGY1].nodes ? 1000 : side;
}

uint32_t graph_shape_nodes(enum graph_shape s, uint32_t nodes)
{
	if (s == GRAPH_ECOLOGY1) {
		uint32_t side = grid_side(nodes);

		return side * side;
	}
	return nodes;
}

uint32_t graph_tier_nodes(enum graph_shape s, enum graph_tier t)
{
	static const uint32_t tier[] = {2048, 16384, 65536};
	uint32_t full;

	if (s >= GRAPH_SHAPES)
		return 0;
	full = originals[s].nodes;
	if (t >= GRAPH_TIER_FULL || tier[t] > full)
		return full;
	return graph_shape_nodes(s, tier[t]);
}

uint32_t graph_shape_entries(enum graph_shape s, uint32_t nodes)
{
	const struct graph_original *o = graph_original(s);
	uint64_t half;

	if (!o)
		return 0;
	if (s == GRAPH_ECOLOGY1) {
		uint32_t side = grid_side(nodes);

		return 4 * side * (side - 1);
	}
	/* undirected edges at the original's mean degree, rounded half up */
	half = ((uint64_t)o->entries * nodes + o->nodes) / (2 * (uint64_t)o->nodes);
	return (uint32_t)(2 * half);
}

/* ---- randomness ----------------------------------------------------------------------------- */

static uint32_t below(uint64_t *st, uint32_t n)
{
	return (uint32_t)wl_below(st, n);
}

static double unit(uint64_t *st)
{
	return (double)(wl_splitmix64(st) >> 11) * 0x1.0p-53;
}

/* Fisher-Yates. */
static void shuffle_u32(uint64_t *st, uint32_t *a, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = below(st, i), t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ---- the edge set --------------------------------------------------------------------------- */

/* Undirected edges, each once, in the order added: an open-addressing set of (min, max) keys
 * beside the list graph_build takes. */
struct edge_set {
	uint64_t *slot; /* key + 1, 0 = empty */
	uint64_t mask;
	struct graph_edges list;
};

static int edge_set_init(struct edge_set *es, uint64_t edges)
{
	uint64_t cap = 64;

	while (cap < 2 * edges)
		cap *= 2;
	*es = (struct edge_set){.mask = cap - 1};
	es->slot = calloc(cap, sizeof(*es->slot));
	return es->slot ? 0 : -CS_ENOMEM;
}

static void edge_set_free(struct edge_set *es)
{
	free(es->slot);
	graph_edges_free(&es->list);
}

/* Returns 1 if u - v was added, 0 if it is a self loop or already there, -CS_ENOMEM. The set
 * never holds more than the edges it was sized for: callers stop at their target. */
static int edge_set_add(struct edge_set *es, uint32_t u, uint32_t v, uint32_t w)
{
	uint64_t key, i;

	if (u == v)
		return 0;
	key = u < v ? (uint64_t)u << 32 | v : (uint64_t)v << 32 | u;
	for (i = wl_mix64(key) & es->mask; es->slot[i]; i = (i + 1) & es->mask)
		if (es->slot[i] == key + 1)
			return 0;
	if (graph_edges_add(&es->list, u, v, w))
		return -CS_ENOMEM;
	es->slot[i] = key + 1;
	return 1;
}

static uint64_t edge_set_count(const struct edge_set *es)
{
	return es->list.n;
}

/* ---- road networks (USA-road-d.BAY, .COL) --------------------------------------------------- */

static uint32_t road_length(const float *x, const float *y, uint32_t a, uint32_t b)
{
	double d = hypot((double)x[a] - x[b], (double)y[a] - y[b]);

	return d < 1 ? 1 : (uint32_t)(d + 0.5);
}

/*
 * Nodes on a W x H grid in row-major order (the last row partial), each moved by up to
 * ROAD_JITTER cells. A random spanning tree of the grid edges (Kruskal on a shuffled list)
 * makes the network connected and maze-like; then the remaining grid edges and one diagonal per
 * cell (never crossing: the graph stays planar), ROAD_DIAGONALS of them diagonals, until the
 * edge target. Degree <= 8; weights are the rounded Euclidean lengths.
 */
static int gen_road(uint64_t *st, uint32_t n, uint64_t target, struct edge_set *es)
{
	uint32_t w = (uint32_t)ceil(sqrt((double)n)), *parent = NULL, *grid = NULL, *diag = NULL;
	uint32_t ngrid = 0, ndiag = 0, gi = 0, di = 0;
	float *x = malloc((size_t)n * sizeof(*x)), *y = malloc((size_t)n * sizeof(*y));
	int rc = -CS_ENOMEM;

	parent = malloc((size_t)n * sizeof(*parent));
	grid = malloc((size_t)2 * n * sizeof(*grid)); /* edge e: node e / 2, east or south */
	diag = malloc((size_t)n * sizeof(*diag));     /* cell c: node c's cell */
	if (!x || !y || !parent || !grid || !diag)
		goto out;
	for (uint32_t v = 0; v < n; v++) {
		x[v] = (float)((v % w + (2 * unit(st) - 1) * ROAD_JITTER) * ROAD_CELL);
		y[v] = (float)((v / w + (2 * unit(st) - 1) * ROAD_JITTER) * ROAD_CELL);
		parent[v] = v;
		if (v % w + 1 < w && v + 1 < n)
			grid[ngrid++] = 2 * v;
		if (v + w < n)
			grid[ngrid++] = 2 * v + 1;
		if (v % w + 1 < w && v + w + 1 < n)
			diag[ndiag++] = v;
	}
	shuffle_u32(st, grid, ngrid);
	shuffle_u32(st, diag, ndiag);
	/* the tree: grid edges whose ends are not yet joined; the others stay in the pool */
	for (uint32_t i = 0; i < ngrid; i++) {
		uint32_t a = grid[i] / 2, b = grid[i] & 1 ? a + w : a + 1;
		uint32_t ra = graph_uf_root(parent, a), rb = graph_uf_root(parent, b);

		if (ra == rb) {
			grid[gi++] = grid[i];
			continue;
		}
		parent[ra] = rb;
		if ((rc = edge_set_add(es, a, b, road_length(x, y, a, b))) < 0)
			goto out;
	}
	ngrid = gi;
	gi = 0;
	while (edge_set_count(es) < target && (gi < ngrid || di < ndiag)) {
		uint32_t a, b;

		if (di < ndiag && (gi == ngrid || unit(st) < ROAD_DIAGONALS)) {
			uint32_t c = diag[di++];
			bool back = below(st, 2); /* "\" or "/" */

			a = back ? c : c + 1;
			b = back ? c + w + 1 : c + w;
		} else {
			a = grid[gi] / 2;
			b = grid[gi] & 1 ? a + w : a + 1;
			gi++;
		}
		if ((rc = edge_set_add(es, a, b, road_length(x, y, a, b))) < 0)
			goto out;
	}
	rc = 0;
out:
	free(x);
	free(y);
	free(parent);
	free(grid);
	free(diag);
	return rc;
}

/* ---- ecology1: the 5-point mesh ------------------------------------------------------------- */

static int gen_mesh(uint32_t side, struct edge_set *es)
{
	for (uint32_t v = 0; v < side * side; v++) {
		int rc = 0;

		if (v % side + 1 < side)
			rc = edge_set_add(es, v, v + 1, 0);
		if (rc >= 0 && v + side < side * side)
			rc = edge_set_add(es, v, v + side, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- c-68: banded with a few dense rows ----------------------------------------------------- */

#define C68_DENSE_ROWS	8    /* at full scale; scaled with the node count, at least one */
#define C68_DENSE_SHARE 0.08 /* of the edges, in the dense rows */

/* Adds random edges i - (i + off), off in 1..band skewed towards the diagonal, inside [0, m),
 * until the set holds target edges. The band doubles when it is full. */
static int add_band(uint64_t *st, struct edge_set *es, uint32_t m, uint32_t band, uint64_t target)
{
	uint32_t misses = 0;

	while (edge_set_count(es) < target) {
		uint32_t i = below(st, m - 1), off = 1 + (uint32_t)(band * unit(st) * unit(st));
		int rc;

		if (i + off >= m)
			off = m - 1 - i;
		rc = edge_set_add(es, i, i + off, 0);
		if (rc < 0)
			return rc;
		misses = rc ? 0 : misses + 1;
		if (misses > 4096 && band < m - 1) {
			band = band * 2 < m - 1 ? band * 2 : m - 1;
			misses = 0;
		}
	}
	return 0;
}

/*
 * Inferred shape (docs/graphs.md): the KKT matrix of a nonlinear program, banded, with a few
 * dense rows and columns (constraints touching many variables) at the end. A chain i - i + 1
 * keeps it connected; band edges within +-0.8 sqrt(n) of the diagonal, concentrated near it; the
 * dense rows C68_DENSE_SHARE of the edges.
 */
static int gen_c68(uint64_t *st, uint32_t n, uint64_t target, struct edge_set *es)
{
	uint32_t dense =
	    (uint32_t)floor(C68_DENSE_ROWS * (double)n / originals[GRAPH_C68].nodes + 0.5);
	uint32_t m, band;
	uint64_t dense_edges, band_target;
	int rc;

	dense = dense ? dense : 1;
	m = n - dense;
	band = (uint32_t)(0.8 * sqrt((double)n));
	band = band < 4 ? 4 : band;
	band = band > m - 1 ? m - 1 : band;
	dense_edges = (uint64_t)(C68_DENSE_SHARE * target);
	dense_edges = dense_edges < dense ? dense : dense_edges;
	band_target = target - dense_edges;
	for (uint32_t i = 0; i + 1 < m; i++)
		if ((rc = edge_set_add(es, i, i + 1, 0)) < 0)
			return rc;
	if ((rc = add_band(st, es, m, band, band_target)) < 0)
		return rc;
	/* the dense rows: distinct random partners anywhere, as many as the share leaves */
	for (uint32_t r = 0; r < dense; r++) {
		uint64_t want = band_target + dense_edges * (r + 1) / dense;

		while (edge_set_count(es) < want)
			if ((rc = edge_set_add(es, m + r, below(st, n), 0)) < 0)
				return rc;
	}
	return 0;
}

/* ---- coAuthorsDBLP: clustered power law ----------------------------------------------------- */

#define CO_GAMMA	2.6 /* author weight exponent (Pareto) */
#define CO_WEIGHT_CAP	128 /* max weight / min weight: bounds the largest degree */
#define CO_COMM_MIN	16 /* community sizes: [16, 32), [32, 64) ... [1024, 2048), equally likely */
#define CO_COMM_OCTAVES 7
#define CO_IN_COMMUNITY 0.85 /* share of co-authors drawn from the lead author's community */

/* The node of [lo, hi) whose slice of the cumulative weights holds a uniform point. */
static uint32_t pick_weighted(uint64_t *st, const double *cum, uint32_t lo, uint32_t hi)
{
	double u = cum[lo] + unit(st) * (cum[hi] - cum[lo]);
	uint32_t a = lo, b = hi - 1;

	while (a < b) { /* the last i with cum[i] <= u */
		uint32_t mid = a + (b - a + 1) / 2;

		if (cum[mid] <= u)
			a = mid;
		else
			b = mid - 1;
	}
	return a;
}

static uint32_t paper_authors(uint64_t *st)
{
	double u = unit(st);

	if (u < 0.40)
		return 2;
	if (u < 0.70)
		return 3;
	if (u < 0.85)
		return 4;
	if (u < 0.93)
		return 5;
	return 6 + below(st, 4);
}

/*
 * Authors have Pareto weights (exponent CO_GAMMA, capped) and belong to communities of
 * consecutive ids (sizes about log-uniform). A spanning tree first (each author cites an earlier one
 * of its community by weight, a community's first author anyone earlier): the original is
 * connected. Then papers: a lead author by weight, co-authors mostly from its community, all
 * pairs joined (cliques: the clustering of co-authorship), until the edge target.
 */
static int gen_coauthors(uint64_t *st, uint32_t n, uint64_t target, struct edge_set *es)
{
	uint32_t *comm_lo = malloc((size_t)n * sizeof(*comm_lo)), *comm_hi = NULL, a[9];
	double *cum = malloc(((size_t)n + 1) * sizeof(*cum));
	int rc = -CS_ENOMEM;

	comm_hi = malloc((size_t)n * sizeof(*comm_hi));
	if (!comm_lo || !comm_hi || !cum)
		goto out;
	for (uint32_t lo = 0; lo < n;) {
		uint32_t base = CO_COMM_MIN << below(st, CO_COMM_OCTAVES),
			 size = base + below(st, base);
		uint32_t hi = n - lo < size ? n : lo + size;

		for (uint32_t v = lo; v < hi; v++) {
			comm_lo[v] = lo;
			comm_hi[v] = hi;
		}
		lo = hi;
	}
	cum[0] = 0;
	for (uint32_t v = 0; v < n; v++) {
		double w = pow(1 - unit(st), -1 / (CO_GAMMA - 1));

		cum[v + 1] = cum[v] + (w < CO_WEIGHT_CAP ? w : CO_WEIGHT_CAP);
	}
	for (uint32_t v = 1; v < n; v++) {
		uint32_t p = pick_weighted(st, cum, v == comm_lo[v] ? 0 : comm_lo[v], v);

		if ((rc = edge_set_add(es, v, p, 0)) < 0)
			goto out;
	}
	while (edge_set_count(es) < target) {
		uint32_t k = paper_authors(st);

		a[0] = pick_weighted(st, cum, 0, n);
		for (uint32_t i = 1; i < k; i++)
			a[i] = unit(st) < CO_IN_COMMUNITY
				   ? pick_weighted(st, cum, comm_lo[a[0]], comm_hi[a[0]])
				   : pick_weighted(st, cum, 0, n);
		for (uint32_t i = 0; i < k && edge_set_count(es) < target; i++)
			for (uint32_t j = i + 1; j < k && edge_set_count(es) < target; j++)
				if ((rc = edge_set_add(es, a[i], a[j], 0)) < 0)
					goto out;
	}
	rc = 0;
out:
	free(comm_lo);
	free(comm_hi);
	free(cum);
	return rc;
}

/* ---- dictionary28: many small components, a giant one, low mean degree --------------------- */

/* The original's components (Pajek's report of dic28, docs/graphs.md): the largest 24 831
 * nodes, the second 1 125, then 17 901 more of at most 27 nodes, 1.49 nodes on average: a
 * power law of exponent 2.72 on 1..27 has that mean. */
#define DIC_GIANT      24831
#define DIC_SECOND     1125
#define DIC_REST       17901
#define DIC_REST_MAX   27
#define DIC_REST_EXP   2.72
#define DIC_NEAR       8   /* a word's alphabetical neighbours: within this many ids */
#define DIC_NEAR_SHARE 0.5 /* share of tree and extra edges to alphabetical neighbours */

/* Component sizes at n nodes, in a random order; returns the count. The giant keeps its share
 * and takes what rounding leaves. */
static uint32_t dic_components(uint64_t *st, uint32_t n, uint32_t *size)
{
	double f = (double)n / originals[GRAPH_DICTIONARY28].nodes, z = 0;
	uint32_t rest = (uint32_t)(DIC_REST * f + 0.5), giant = (uint32_t)(DIC_GIANT * f + 0.5);
	uint32_t room = n - giant, c = 0, used = 0, second = (uint32_t)(DIC_SECOND * f + 0.5);

	for (uint32_t s = 1; s <= DIC_REST_MAX; s++)
		z += pow(s, -DIC_REST_EXP);
	size[c++] = 0; /* the giant, below */
	if (second >= 2 && second <= room) {
		size[c++] = second;
		used += second;
	}
	for (uint32_t s = DIC_REST_MAX; s >= 2; s--) {
		uint32_t k = (uint32_t)(rest * pow(s, -DIC_REST_EXP) / z);

		for (uint32_t i = 0; i < k && used + s <= room; i++) {
			size[c++] = s;
			used += s;
		}
	}
	while (c < rest + 2 && used < room) { /* isolated words */
		size[c++] = 1;
		used++;
	}
	/* the counts above are rounded down: the nodes they miss go to the smallest components
	 * (one more node each, the count kept) rather than to the giant */
	for (uint32_t i = c; i-- > 1 && used < room;)
		if (size[i] < DIC_REST_MAX) {
			size[i]++;
			used++;
		}
	size[0] = n - used;
	shuffle_u32(st, size, c);
	return c;
}

/* Adds `want` edges inside the component [lo, lo + s) whose endpoint list is ends[0..*ne):
 * half to a near id, half preferential; a crowded component falls back to any pair. */
static int dic_extra(uint64_t *st, struct edge_set *es, uint32_t lo, uint32_t s, uint32_t *ends,
		     uint32_t *ne, uint64_t want)
{
	uint64_t until = edge_set_count(es) + want;
	uint32_t misses = 0;

	while (edge_set_count(es) < until) {
		uint32_t u = ends[below(st, *ne)], v, off = 1 + below(st, DIC_NEAR);
		int rc;

		if (misses > 64)
			v = lo + below(st, s);
		else if (unit(st) < DIC_NEAR_SHARE)
			v = below(st, 2) ? u + off : u - off; /* out of range wraps: tested below */
		else
			v = ends[below(st, *ne)];
		if (v < lo || v >= lo + s)
			continue;
		if ((rc = edge_set_add(es, u, v, 0)) < 0)
			return rc;
		misses = rc ? 0 : misses + 1;
		if (rc) {
			ends[(*ne)++] = u;
			ends[(*ne)++] = v;
		}
	}
	return 0;
}

/*
 * Components of consecutive ids in a random order. Inside each, a preferential-attachment tree
 * (half the new words attach to an alphabetical neighbour instead): a heavy-tailed degree; then
 * extra edges, shared among the components of 3 or more nodes in proportion to their size, the
 * giant last with what is left.
 */
static int gen_dictionary(uint64_t *st, uint32_t n, uint64_t target, struct edge_set *es)
{
	uint32_t *size = malloc(((size_t)n + 2) * sizeof(*size)), *ends = NULL, c, lo = 0,
		 giant = 0;
	uint32_t giant_lo = 0;
	uint64_t extra, share = 0;
	int rc = -CS_ENOMEM;

	if (!size)
		goto out;
	c = dic_components(st, n, size);
	extra = target > (uint64_t)n - c ? target - (n - c) : 0;
	for (uint32_t i = 0; i < c; i++) {
		share += size[i] >= 3 ? size[i] : 0;
		giant = size[i] > size[giant] ? i : giant;
	}
	ends = malloc((size_t)2 * (target + n) * sizeof(*ends)); /* endpoint list, reused */
	if (!ends)
		goto out;
	for (uint32_t i = 0; i < c; lo += size[i++]) {
		uint32_t s = size[i], ne = 1;
		uint64_t cap = (uint64_t)s * (s - 1) / 2 - (s - 1), x = 0;

		if (i == giant)
			giant_lo = lo;
		ends[0] = lo;
		for (uint32_t k = 1; k < s; k++) {
			uint32_t p = unit(st) < DIC_NEAR_SHARE
					 ? lo + k - 1 - below(st, k < DIC_NEAR ? k : DIC_NEAR)
					 : ends[below(st, ne)];

			if ((rc = edge_set_add(es, lo + k, p, 0)) < 0)
				goto out;
			ends[ne++] = lo + k;
			ends[ne++] = p;
		}
		if (i == giant || s < 3 || !share)
			continue;
		x = extra * s / share;
		if ((rc = dic_extra(st, es, lo, s, ends, &ne, x > cap ? cap : x)) < 0)
			goto out;
	}
	/* the giant's extra edges: rebuild its endpoint list from its edges so far */
	if (edge_set_count(es) < target) {
		uint32_t ne = 0;

		for (size_t e = 0; e < es->list.n; e++)
			if (es->list.u[e] >= giant_lo && es->list.u[e] < giant_lo + size[giant]) {
				ends[ne++] = es->list.u[e];
				ends[ne++] = es->list.v[e];
			}
		if (!ne)
			ends[ne++] = giant_lo;
		rc = dic_extra(st, es, giant_lo, size[giant], ends, &ne,
			       target - edge_set_count(es));
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	free(size);
	free(ends);
	return rc;
}

/* ---- OPF_10000: dense blocks coupled along a power grid ------------------------------------- */

#define OPF_VARS_PER_BUS 4.3887 /* 43 887 rows / 10 000 buses */
#define OPF_LINES	 1.4	/* lines per bus: a transmission grid's mean degree 2.8 */
#define OPF_NEAR	 12	/* a line's far end: within this many buses (90%) */

/* Rehashes a set into one twice the size (the line set grows past its first estimate). */
static int opf_grow(struct edge_set *es)
{
	struct edge_set big;

	if (edge_set_init(&big, 2 * es->list.n + 64) != 0)
		return -CS_ENOMEM;
	for (size_t l = 0; l < es->list.n; l++)
		if (edge_set_add(&big, es->list.u[l], es->list.v[l], es->list.w[l]) < 0) {
			edge_set_free(&big);
			return -CS_ENOMEM;
		}
	edge_set_free(es);
	*es = big;
	return 0;
}

/*
 * Inferred shape (docs/graphs.md): buses of 4 or 5 variables, each bus a dense block (clique),
 * buses joined by lines of a power grid numbered with locality (a tree attaching each bus to one
 * of the OPF_NEAR before it, then as many lines again mostly as near); a line couples a random
 * share of its two buses' variable pairs, as many as the edge target leaves.
 */
static int gen_opf(uint64_t *st, uint32_t n, uint64_t target, struct edge_set *es)
{
	uint32_t buses = (uint32_t)(n / OPF_VARS_PER_BUS + 0.5), *first = NULL, *pairs = NULL;
	uint64_t npairs = 0, cap = 0, need, lines_want;
	struct edge_set lines = {0};
	int rc = -CS_ENOMEM;

	buses = buses < 2 ? 2 : buses;
	first = malloc(((size_t)buses + 1) * sizeof(*first));
	if (!first || edge_set_init(&lines, (uint64_t)(OPF_LINES * buses) + buses) != 0)
		goto out;
	/* buses of n / buses variables, n % buses of them one more, at random */
	for (uint32_t b = 0; b < buses; b++)
		first[b] = b < n % buses;
	shuffle_u32(st, first, buses);
	for (uint32_t b = 0, v = 0; b <= buses; b++) {
		uint32_t s = b < buses ? n / buses + first[b] : 0;

		first[b] = v;
		v += s;
	}
	for (uint32_t b = 0; b < buses; b++)
		for (uint32_t i = first[b]; i < first[b + 1]; i++)
			for (uint32_t j = i + 1; j < first[b + 1]; j++)
				if ((rc = edge_set_add(es, i, j, 0)) < 0)
					goto out;
	/* the grid: a tree, then more lines, until the pairs they offer exceed the need by 25% */
	lines_want = (uint64_t)(OPF_LINES * buses);
	for (uint32_t b = 1; b < buses; b++) {
		uint32_t near = b < OPF_NEAR ? b : OPF_NEAR;
		uint32_t far = unit(st) < 0.9 ? 1 + below(st, near) : 1 + below(st, b);

		if ((rc = edge_set_add(&lines, b, b - far, 0)) < 0)
			goto out;
		cap += (uint64_t)(first[b + 1] - first[b]) * (first[b - far + 1] - first[b - far]);
	}
	need = target > edge_set_count(es) ? target - edge_set_count(es) : 0;
	while ((lines.list.n < lines_want || 4 * cap < 5 * need) &&
	       lines.list.n < (uint64_t)buses * (buses - 1) / 2) {
		uint32_t a = below(st, buses);
		uint32_t b = unit(st) < 0.8 ? a + 1 + below(st, OPF_NEAR) : below(st, buses);

		if (b >= buses)
			continue;
		if (2 * (lines.list.n + 1) >= lines.mask + 1 && (rc = opf_grow(&lines)) < 0)
			goto out;
		if ((rc = edge_set_add(&lines, a, b, 0)) < 0)
			goto out;
		if (rc)
			cap += (uint64_t)(first[a + 1] - first[a]) * (first[b + 1] - first[b]);
	}
	/* every variable pair of every line, shuffled; the first ones until the target */
	pairs = malloc((size_t)(2 * cap + 2) * sizeof(*pairs));
	rc = -CS_ENOMEM;
	if (!pairs)
		goto out;
	for (size_t l = 0; l < lines.list.n; l++) {
		uint32_t x = lines.list.u[l], y = lines.list.v[l];

		for (uint32_t i = first[x]; i < first[x + 1]; i++)
			for (uint32_t j = first[y]; j < first[y + 1]; j++) {
				pairs[2 * npairs] = i;
				pairs[2 * npairs + 1] = j;
				npairs++;
			}
	}
	for (uint64_t i = npairs; i > 1; i--) {
		uint64_t j = wl_below(st, i);
		uint32_t t0 = pairs[2 * (i - 1)], t1 = pairs[2 * (i - 1) + 1];

		pairs[2 * (i - 1)] = pairs[2 * j];
		pairs[2 * (i - 1) + 1] = pairs[2 * j + 1];
		pairs[2 * j] = t0;
		pairs[2 * j + 1] = t1;
	}
	for (uint64_t i = 0; i < npairs && edge_set_count(es) < target; i++)
		if ((rc = edge_set_add(es, pairs[2 * i], pairs[2 * i + 1], 0)) < 0)
			goto out;
	rc = 0;
out:
	free(first);
	free(pairs);
	edge_set_free(&lines);
	return rc;
}

/* ---- the entry point ------------------------------------------------------------------------ */

int graph_generate(enum graph_shape s, uint32_t nodes, uint64_t seed, struct graph **out,
		   struct cs_err *err)
{
	const struct graph_original *o = graph_original(s);
	uint64_t st, target;
	struct edge_set es = {0};
	uint32_t n;
	int rc;

	*out = NULL;
	if (!o)
		return cs_err_set(err, -CS_EINVAL, "graph: no shape %d", (int)s);
	if (nodes < GRAPH_MIN_NODES || nodes > o->nodes)
		return cs_err_set(err, -CS_ERANGE, "graph %s: %u nodes (%u to %u)", o->name, nodes,
				  GRAPH_MIN_NODES, o->nodes);
	n = graph_shape_nodes(s, nodes);
	target = graph_shape_entries(s, n) / 2;
	st = wl_mix64(seed ^ (GEN_TAG | (uint64_t)s));
	rc = edge_set_init(&es, target);
	if (rc == 0) {
		switch (s) {
		case GRAPH_USA_ROAD_BAY:
		case GRAPH_USA_ROAD_COL:
			rc = gen_road(&st, n, target, &es);
			break;
		case GRAPH_C68:
			rc = gen_c68(&st, n, target, &es);
			break;
		case GRAPH_ECOLOGY1:
			rc = gen_mesh(grid_side(n), &es);
			break;
		case GRAPH_COAUTHORS_DBLP:
			rc = gen_coauthors(&st, n, target, &es);
			break;
		case GRAPH_DICTIONARY28:
			rc = gen_dictionary(&st, n, target, &es);
			break;
		default:
			rc = gen_opf(&st, n, target, &es);
			break;
		}
	}
	if (rc < 0) {
		edge_set_free(&es);
		return cs_err_set(err, rc, "graph %s: out of memory generating %u nodes", o->name,
				  n);
	}
	rc = graph_build(n, &es.list, o->distances, out, NULL, err);
	edge_set_free(&es);
	if (rc == 0 && !o->distances)
		rc = graph_set_weights(*out, wl_mix64(st), 1, WEIGHT_MAX);
	if (rc < 0 && *out) {
		graph_free(*out);
		*out = NULL;
		cs_err_set(err, rc, "graph %s: out of memory weighting %u nodes", o->name, n);
	}
	return rc;
}
