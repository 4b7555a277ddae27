/*
 * tests/unit/test_cacti.c - the interpolation over CACTI 7's table (analytic/cacti.c).
 *
 * At the table's points the functions give the table's values; between two sizes the rule is
 * a power law (the geometric midpoint gets the geometric mean); doubling a cache's size gives
 * the table's larger array; beyond the table the end segment's law holds and nothing goes
 * below 0; and the interpolation's error, each point of the size sweep left out in turn and
 * predicted from the rest, stays within what docs/energy.md states.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/cacti.h"

static const struct cacti_row *find(unsigned node, unsigned kind, uint32_t size, unsigned assoc,
				    unsigned line)
{
	for (size_t i = 0; i < cacti_table.n; i++) {
		const struct cacti_row *r = &cacti_table.rows[i];

		if (r->node_nm == node && r->kind == kind && r->size == size && r->assoc == assoc &&
		    r->line == line && !r->sequential)
			return r;
	}
	return NULL;
}

/* Relative difference. */
static double rel(double a, double b)
{
	return fabs(a - b) / fabs(b);
}

/* The committed nodes: the energy model's three, and CACTI's own around them. */
START_TEST(test_nodes_present)
{
	static const unsigned nodes[] = {22, 28, 32, 40, 45};
	struct cacti_array tag, data, cam, ram;

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		ck_assert_msg(cacti_cache(nodes[i], 16384, 4, 128, &tag, &data) == 0,
			      "no 16 KB cache at %u nm", nodes[i]);
		ck_assert_msg(cacti_cam(nodes[i], 32, &cam) == 0, "no CAM at %u nm", nodes[i]);
		ck_assert_msg(cacti_ram(nodes[i], 192, 4, &ram) == 0, "no RAM at %u nm", nodes[i]);
		ck_assert(tag.read_pj > 0 && data.read_pj > tag.read_pj && data.leak_w > 0);
		ck_assert(cam.search_pj > 0 && ram.read_pj > 0);
	}
	ck_assert_int_eq(cacti_cache(7, 16384, 4, 128, &tag, &data), -1);
}
END_TEST

/* The GPU L1 (16 KB, 4 ways, 128 B lines) and L2 bank (128 KB, 8 ways) are table points. */
START_TEST(test_table_points)
{
	static const struct {
		uint32_t size;
		unsigned assoc;
	} g[] = {{16384, 4}, {131072, 8}};

	for (size_t k = 0; k < 2; k++) {
		const struct cacti_row *t = find(40, CACTI_TAG, g[k].size, g[k].assoc, 128);
		const struct cacti_row *d = find(40, CACTI_DATA, g[k].size, g[k].assoc, 128);
		struct cacti_array tag, data;

		ck_assert_ptr_nonnull(t);
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(cacti_cache(40, g[k].size, g[k].assoc, 128, &tag, &data), 0);
		ck_assert_double_eq_tol(tag.read_pj, t->read_pj, 1e-12 * t->read_pj);
		ck_assert_double_eq_tol(tag.write_pj, t->write_pj, 1e-12 * t->write_pj);
		ck_assert_double_eq_tol(data.read_pj, d->read_pj, 1e-12 * d->read_pj);
		ck_assert_double_eq_tol(data.write_pj, d->write_pj, 1e-12 * d->write_pj);
		ck_assert_double_eq_tol(data.leak_w, d->leak_mw * 1e-3, 1e-12 * d->leak_mw);
		ck_assert_double_eq(tag.tag_bits, t->tag_bits);
	}
}
END_TEST

/*
 * Doubling the L1 gives the table's 32 KB array: more energy per access and more leakage; in
 * between, the power law through both (the geometric mean at the geometric midpoint); a line
 * of 256 B (beyond the table) reads twice a 128 B line's data bits.
 */
START_TEST(test_scaling)
{
	struct cacti_array t16, d16, t32, d32, tm, dm, t256, d256;
	const struct cacti_row *r32 = find(40, CACTI_DATA, 32768, 4, 128);

	ck_assert_ptr_nonnull(r32);
	ck_assert_int_eq(cacti_cache(40, 16384, 4, 128, &t16, &d16), 0);
	ck_assert_int_eq(cacti_cache(40, 32768, 4, 128, &t32, &d32), 0);
	ck_assert_double_eq_tol(d32.read_pj, r32->read_pj, 1e-12 * r32->read_pj);
	ck_assert(d32.read_pj > d16.read_pj && d32.leak_w > d16.leak_w);
	ck_assert_int_eq(cacti_cache(40, (uint64_t)(16384 * M_SQRT2), 4, 128, &tm, &dm), 0);
	/* the size is rounded to a byte: within 1e-4 of the exact midpoint's value */
	ck_assert_double_eq_tol(dm.read_pj, sqrt(d16.read_pj * d32.read_pj), 1e-4 * dm.read_pj);
	ck_assert_double_eq_tol(dm.leak_w, sqrt(d16.leak_w * d32.leak_w), 1e-4 * dm.leak_w);
	ck_assert(tm.read_pj > fmin(t16.read_pj, t32.read_pj) &&
		  tm.read_pj < fmax(t16.read_pj, t32.read_pj));
	ck_assert_int_eq(cacti_cache(40, 16384, 4, 256, &t256, &d256), 0);
	ck_assert_double_eq_tol(d256.read_pj, 2 * d16.read_pj, 1e-9 * d256.read_pj);
	/* no segment across CACTI's access modes: the ways beyond a size's normal-mode range do
	 * not collapse (a first version gave a 16 KB L1 of 64 ways 0.0006 pJ a read) */
	for (unsigned w = 8; w <= 64; w *= 2) {
		ck_assert_int_eq(cacti_cache(40, 16384, w, 128, &tm, &dm), 0);
		ck_assert_msg(dm.read_pj > 0.1 * d16.read_pj, "%u ways: %g pJ", w, dm.read_pj);
	}
	ck_assert_int_eq(cacti_cache(40, 4096, 8, 128, &tm, &dm), 0);
	ck_assert(dm.read_pj > 0.1 * d16.read_pj);
	/* far beyond the table: the nearer end's value */
	ck_assert_int_eq(cacti_cache(40, 512, 4, 128, &t16, &d16), 0);
	ck_assert(d16.read_pj >= 0 && isfinite(d16.read_pj) && d16.leak_w >= 0);
	ck_assert_int_eq(cacti_cache(40, (uint64_t)1 << 30, 64, 128, &t16, &d16), 0);
	ck_assert(isfinite(d16.read_pj) && isfinite(d16.leak_w) && d16.read_pj > d32.read_pj);
}
END_TEST

/*
 * Leave-one-out: each interior point of a size series (one node, kind, line and ways, normal
 * mode) predicted from the table without it, a factor of 2 from each neighbour. The bounds are
 * docs/energy.md's stated error of the interpolation, per kind: the data arrays' read energy
 * mean 5.2%, max 40%; the tag arrays' mean 19.5%, max 240% (CACTI's organisation search makes
 * a tag array's energy jump between neighbouring sizes: 40 nm, 32 B lines, 8 ways: 41.3 pJ
 * at 2 MB, 16.8 at 4 MB, 79.2 at 8 MB); leakage mean 2.7%.
 */
START_TEST(test_leave_one_out)
{
	struct cacti_row *rows = malloc(cacti_table.n * sizeof(*rows));
	double sum[2] = {0, 0}, worst[2] = {0, 0}, sum_leak = 0;
	unsigned n[2] = {0, 0};

	ck_assert_ptr_nonnull(rows);
	for (size_t i = 1; i + 1 < cacti_table.n; i++) {
		const struct cacti_row *p = &cacti_table.rows[i - 1], *r = &cacti_table.rows[i],
				       *q = &cacti_table.rows[i + 1];
		struct cacti_table t = {rows, 0};
		struct cacti_array tag, data, *got;
		unsigned k;
		double e;

		if ((r->kind != CACTI_TAG && r->kind != CACTI_DATA) || r->sequential ||
		    p->node_nm != r->node_nm || q->node_nm != r->node_nm || p->kind != r->kind ||
		    q->kind != r->kind || p->line != r->line || q->line != r->line ||
		    p->assoc != r->assoc || q->assoc != r->assoc || p->sequential ||
		    q->sequential || r->line < 32)
			continue;
		/* the table without this point's tag and data rows */
		for (size_t j = 0; j < cacti_table.n; j++) {
			const struct cacti_row *x = &cacti_table.rows[j];

			if (x->node_nm == r->node_nm && x->size == r->size &&
			    x->assoc == r->assoc && x->line == r->line &&
			    (x->kind == CACTI_TAG || x->kind == CACTI_DATA))
				continue;
			rows[t.n++] = *x;
		}
		ck_assert_int_eq(
		    cacti_cache_in(&t, r->node_nm, r->size, r->assoc, r->line, &tag, &data), 0);
		k = r->kind == CACTI_TAG ? 0 : 1;
		got = k ? &data : &tag;
		e = rel(got->read_pj, r->read_pj);
		sum[k] += e;
		sum_leak += rel(got->leak_w, r->leak_mw * 1e-3);
		worst[k] = e > worst[k] ? e : worst[k];
		n[k]++;
	}
	free(rows);
	ck_assert_uint_gt(n[0], 100);
	ck_assert_uint_gt(n[1], 100);
	if (sum[1] / n[1] > 0.055 || worst[1] > 0.41 || sum[0] / n[0] > 0.20 || worst[0] > 2.45 ||
	    sum_leak / (n[0] + n[1]) > 0.03)
		ck_abort_msg("leave-one-out: data read energy mean %.4f max %.4f over %u points, "
			     "tag mean %.4f max %.4f over %u; leakage mean %.4f",
			     sum[1] / n[1], worst[1], n[1], sum[0] / n[0], worst[0], n[0],
			     sum_leak / (n[0] + n[1]));
}
END_TEST

static Suite *cacti_suite(void)
{
	Suite *s = suite_create("cacti");
	TCase *t = tcase_create("core");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_nodes_present);
	tcase_add_test(t, test_table_points);
	tcase_add_test(t, test_scaling);
	tcase_add_test(t, test_leave_one_out);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cacti_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
