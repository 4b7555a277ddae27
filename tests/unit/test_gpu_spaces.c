/*
 * tests/unit/test_gpu_spaces.c - the op API's launch shapes and memory spaces
 * (workloads/gpu_api.h): 2-D grids and CTAs (each (x, y) seen exactly once, CUDA's linear id),
 * local memory (private per thread, CTA and launch; interleaved so a warp's lanes share lines),
 * constant and texture reads, bad shapes refused, gh_corrupt, and gpu.line_stats' counts.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "workloads/gpu_api.h"

static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 2; check = true; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 5000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 1; clock_mhz = 1000; latency = 50; };\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

static const char *const modes[] = {"system.mode=detailed", "system.mode=hybrid", NULL};

/* ---- 2-D grids ------------------------------------------------------------------------------ */

#define GX 5
#define GY 3
#define BX 8 /* 2 warps of 32: an 8 x 8 CTA */

struct grid_args {
	unsigned grid_x, grid_y, ctas, block_x; /* the launch's */
	unsigned want_x, want_y, want_bx;	/* gridDim and blockDim.x the kernel must see */
	unsigned seen[GX * GY][64];		/* per CTA, per (tx + ty * BX): times seen */
	unsigned bad_id, bad_dims, bad; /* a lane saw a wrong linear id, grid or block size */
	int rc;
};

static void grid_kernel(struct gpu_warp *w)
{
	struct grid_args *a = (struct grid_args *)gw_args(w);
	unsigned x = gw_cta_x(w), y = gw_cta_y(w);

	if (gw_cta(w) != x + y * gw_grid_x(w))
		a->bad_id++;
	if (gw_grid_x(w) != a->want_x || gw_grid_y(w) != a->want_y || gw_block_x(w) != a->want_bx ||
	    gw_ctas(w) != a->want_x * a->want_y)
		a->bad_dims++;
	for (unsigned l = 0; l < gw_lanes(w); l++) {
		unsigned tx = gw_thread_x(w, l), ty = gw_thread_y(w, l);

		if (tx >= a->want_bx || tx + ty * a->want_bx >= 64 || gw_cta(w) >= GX * GY)
			a->bad++;
		else
			a->seen[gw_cta(w)][tx + ty * a->want_bx]++;
	}
	gw_compute(w, 1);
}

static int grid_host(struct gpu_host *h)
{
	struct grid_args *a = gh_arg(h);
	struct gpu_kernel k = {.name = "grid",
			       .ctas = a->ctas,
			       .grid_x = a->grid_x,
			       .grid_y = a->grid_y,
			       .block_x = a->block_x,
			       .warps_per_cta = 2,
			       .fn = grid_kernel,
			       .args = a};

	a->rc = gh_launch(h, &k);
	return a->rc;
}

static const struct cs_workload grid_wl = {.name = "grid", .system = "gpu", .gpu = grid_host};

START_TEST(test_grid_2d)
{
	for (unsigned m = 0; modes[m]; m++) {
		static struct grid_args a;
		const char *sets[] = {modes[m], NULL};
		struct sysrun r;

		memset(&a, 0, sizeof(a));
		a.grid_x = a.want_x = GX;
		a.grid_y = a.want_y = GY;
		a.block_x = a.want_bx = BX;
		sysrun_start(&r, base_cfg, &grid_wl, &a, -1, sets);
		sysrun_end(&r);
		ck_assert_int_eq(a.rc, 0);
		ck_assert_uint_eq(a.bad_id, 0);
		ck_assert_uint_eq(a.bad_dims, 0);
		ck_assert_uint_eq(a.bad, 0);
		for (unsigned c = 0; c < GX * GY; c++)
			for (unsigned t = 0; t < 64; t++)
				ck_assert_msg(a.seen[c][t] == 1,
					      "%s: CTA (%u, %u) thread (%u, %u): %u", modes[m],
					      c % GX, c / GX, t % BX, t / BX, a.seen[c][t]);
	}
}
END_TEST

/* A 1-D launch: grid_x is its CTA count, y is 0, blockDim.x its threads. */
START_TEST(test_grid_1d)
{
	static struct grid_args a;
	struct sysrun r;

	memset(&a, 0, sizeof(a));
	a.ctas = 7;
	a.want_x = 7;
	a.want_y = 1;
	a.want_bx = 64;
	sysrun_start(&r, base_cfg, &grid_wl, &a, -1, NULL);
	sysrun_end(&r);
	ck_assert_int_eq(a.rc, 0);
	ck_assert_uint_eq(a.bad_id, 0);
	ck_assert_uint_eq(a.bad, 0);
	ck_assert_uint_eq(a.bad_dims, 0);
	for (unsigned c = 0; c < 7; c++)
		for (unsigned t = 0; t < 64; t++)
			ck_assert_uint_eq(a.seen[c][t], 1);
}
END_TEST

/* Shapes that make no grid are refused with a message naming the kernel. */
START_TEST(test_grid_refused)
{
	static const struct {
		unsigned ctas, gx, gy, bx;
		const char *want;
	} cases[] = {
	    {7, 5, 3, 0, "2-D grid of 5 x 3"}, /* ctas is neither 0 nor the product */
	    {0, 5, 0, 0, "2-D grid of 5 x 0"},		 {0, 0, 3, 0, "2-D grid of 0 x 3"},
	    {0, 5, 3, 24, "block_x 24 does not divide"}, {0, 0, 0, 0, "at least one CTA"},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct grid_args a;
		struct sysrun r;
		char msg[512];
		int rc;

		memset(&a, 0, sizeof(a));
		a.ctas = cases[i].ctas;
		a.grid_x = cases[i].gx;
		a.grid_y = cases[i].gy;
		a.block_x = cases[i].bx;
		rc = sysrun_try(&r, base_cfg, &grid_wl, &a, -1, NULL, msg, sizeof(msg));
		sysrun_end(&r);
		ck_assert_int_ne(rc, 0);
		ck_assert_msg(strstr(msg, cases[i].want) && strstr(msg, "kernel 'grid'"),
			      "case %u: %s", i, msg);
	}
}
END_TEST

/* ---- local memory --------------------------------------------------------------------------- */

#define LOC_WORDS 6
#define LOC_CTAS  3
#define LOC_WARPS 2

struct local_args {
	unsigned launch;  /* 0, 1 */
	unsigned word;	  /* an index to use beyond the array, or 0 */
	unsigned wrong;	  /* lanes that read another value than their own */
	unsigned stale;	  /* lanes of the second launch that read a value before writing it */
	uint32_t seen[2]; /* the local_insts stat of SM 0 is read by the test */
};

static uint32_t local_value(unsigned launch, uint64_t tid, unsigned i)
{
	return (uint32_t)(0x10000000u * (launch + 1) + tid * 64 + i);
}

/* Every thread reads word 0 before writing it (the window is fresh: zero), writes its words,
 * reads them back after a CTA barrier (a neighbour's store would show if threads shared a
 * word), in reverse word order. */
static void local_kernel(struct gpu_warp *w)
{
	struct local_args *a = (struct local_args *)gw_args(w);
	unsigned lanes = gw_lanes(w);
	uint32_t word[WARP_LANES_MAX], v[WARP_LANES_MAX], got[WARP_LANES_MAX];

	for (unsigned l = 0; l < lanes; l++)
		word[l] = a->word;
	gw_ld_localv(w, word, LANES_ALL, got);
	for (unsigned l = 0; l < lanes; l++)
		a->stale += got[l] != 0;
	for (unsigned i = 0; i < LOC_WORDS; i++) {
		for (unsigned l = 0; l < lanes; l++) {
			word[l] = i;
			v[l] = local_value(a->launch, gw_tid(w, l), i);
		}
		gw_st_localv(w, word, LANES_ALL, v);
	}
	gw_barrier(w);
	for (unsigned i = LOC_WORDS; i-- > 0;) {
		for (unsigned l = 0; l < lanes; l++)
			word[l] = i;
		gw_ld_localv(w, word, LANES_ALL, got);
		for (unsigned l = 0; l < lanes; l++)
			a->wrong += got[l] != local_value(a->launch, gw_tid(w, l), i);
	}
}

static int local_host(struct gpu_host *h)
{
	struct local_args *a = gh_arg(h);
	struct gpu_kernel k = {.name = "local",
			       .ctas = LOC_CTAS,
			       .warps_per_cta = LOC_WARPS,
			       .local_bytes = 4 * LOC_WORDS,
			       .fn = local_kernel,
			       .args = a};
	int rc = 0;

	for (a->launch = 0; a->launch < 2 && !rc; a->launch++)
		rc = gh_launch(h, &k);
	return rc;
}

static const struct cs_workload local_wl = {.name = "local", .system = "gpu", .gpu = local_host};

START_TEST(test_local_private)
{
	for (unsigned m = 0; modes[m]; m++) {
		struct local_args a = {0};
		const char *sets[] = {modes[m], NULL};
		struct sysrun r;
		double insts = 0, reqs;

		sysrun_start(&r, base_cfg, &local_wl, &a, -1, sets);
		ck_assert_uint_eq(a.wrong, 0);
		ck_assert_uint_eq(a.stale, 0);
		for (unsigned s = 0; s < 2; s++) {
			char name[64];

			snprintf(name, sizeof(name), "gpu.sm%u.local_insts", s);
			insts += sysrun_stat(&r, name);
		}
		/* per warp and launch: 1 + LOC_WORDS loads and LOC_WORDS stores */
		ck_assert_double_eq(insts, 2.0 * LOC_CTAS * LOC_WARPS * (1 + 2 * LOC_WORDS));
		/* interleaved: the 32 lanes of a warp at one index are one 128-byte line, so every
		 * warp instruction is one request (in detailed mode, where each is counted) */
		if (m == 0) {
			reqs = sysrun_stat(&r, "gpu.sm0.requests") +
			       sysrun_stat(&r, "gpu.sm1.requests");
			ck_assert_double_eq(reqs, insts);
		}
		sysrun_end(&r);
	}
}
END_TEST

START_TEST(test_local_bounds)
{
	struct local_args a = {.word = LOC_WORDS};
	struct sysrun r;
	char msg[512];
	int rc = sysrun_try(&r, base_cfg, &local_wl, &a, -1, NULL, msg, sizeof(msg));

	sysrun_end(&r);
	ck_assert_int_ne(rc, 0);
	ck_assert_msg(strstr(msg, "local word 6 beyond the kernel's local_bytes 24"), "%s", msg);
}
END_TEST

/* ---- constant and texture reads, gh_corrupt -------------------------------------------------- */

struct ro_args {
	uint64_t buf, out;
	uint32_t got_const, got_tex[WARP_LANES], got_out;
};

static void ro_kernel(struct gpu_warp *w)
{
	struct ro_args *a = (struct ro_args *)gw_args(w);
	uint64_t addr[WARP_LANES], v[WARP_LANES];

	a->got_const = gw_ld_const32(w, a->buf + 4 * 5);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->buf + 4 * (WARP_LANES - 1 - l);
	gw_ld_texv(w, addr, LANES_ALL, 4, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		a->got_tex[l] = (uint32_t)v[l];
	gw_ld_constv(w, addr, 1, 4, v);
	gw_st32(w, a->out, (uint32_t)v[0] + 1);
}

static int ro_host(struct gpu_host *h)
{
	struct ro_args *a = gh_arg(h);
	struct gpu_kernel k = {
	    .name = "ro", .ctas = 1, .warps_per_cta = 1, .fn = ro_kernel, .args = a};
	uint32_t init[WARP_LANES];
	int rc;

	for (unsigned i = 0; i < WARP_LANES; i++)
		init[i] = 1000 + i;
	a->buf = gh_alloc(h, sizeof(init), 0);
	a->out = gh_alloc(h, 4, 0);
	gh_write(h, a->buf, init, sizeof(init));
	rc = gh_launch(h, &k);
	if (rc)
		return rc;
	gh_corrupt(h, a->out, 4);
	a->got_out = gh_read32(h, a->out);
	return 0;
}

static const struct cs_workload ro_wl = {.name = "ro", .system = "gpu", .gpu = ro_host};

START_TEST(test_const_tex)
{
	static const char *const corrupt[] = {"workload.corrupt=true", NULL};
	struct ro_args a = {0};
	struct sysrun r;

	sysrun_start(&r, base_cfg, &ro_wl, &a, -1, NULL);
	ck_assert_uint_eq(a.got_const, 1005);
	for (unsigned l = 0; l < WARP_LANES; l++)
		ck_assert_uint_eq(a.got_tex[l], 1000 + WARP_LANES - 1 - l);
	ck_assert_uint_eq(a.got_out, 1000 + WARP_LANES - 1 + 1); /* untouched without corrupt */
	ck_assert_double_eq(sysrun_stat(&r, "gpu.sm0.const_insts"), 2);
	ck_assert_double_eq(sysrun_stat(&r, "gpu.sm0.tex_insts"), 1);
	sysrun_end(&r);

	memset(&a, 0, sizeof(a));
	sysrun_start(&r, base_cfg, &ro_wl, &a, -1, corrupt);
	ck_assert_uint_eq(a.got_out, (1000 + WARP_LANES) ^ (1u << 30));
	sysrun_end(&r);
}
END_TEST

/* ---- gpu.line_stats ------------------------------------------------------------------------ */

/* One warp loads lines 0..9 of a buffer once each, then lines 0..3 again (another request each)
 * and stores to line 20: 11 lines touched, 4 of them again. */
static void touch_kernel(struct gpu_warp *w)
{
	const uint64_t *base = gw_args(w);

	for (unsigned i = 0; i < 10; i++)
		(void)gw_ld32(w, *base + 128 * i);
	for (unsigned i = 0; i < 4; i++)
		(void)gw_ld32(w, *base + 128 * i + 64);
	gw_st32(w, *base + 128 * 20, 1);
}

static int touch_host(struct gpu_host *h)
{
	uint64_t base = gh_alloc(h, 128 * 32, 128);
	struct gpu_kernel k = {
	    .name = "touch", .ctas = 1, .warps_per_cta = 1, .fn = touch_kernel, .args = &base};

	return gh_launch(h, &k);
}

static const struct cs_workload touch_wl = {.name = "touch", .system = "gpu", .gpu = touch_host};

START_TEST(test_line_stats)
{
	static const char *const on[] = {"gpu.line_stats=true", NULL};
	struct sysrun r;

	sysrun_start(&r, base_cfg, &touch_wl, NULL, -1, on);
	ck_assert_double_eq(sysrun_stat(&r, "gpu.lines_touched"), 11);
	ck_assert_double_eq(sysrun_stat(&r, "gpu.lines_retouched"), 4);
	sysrun_end(&r);
}
END_TEST

static Suite *gpu_spaces_suite(void)
{
	Suite *s = suite_create("gpu_spaces");
	TCase *tc = tcase_create("spaces");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_grid_2d);
	tcase_add_test(tc, test_grid_1d);
	tcase_add_test(tc, test_grid_refused);
	tcase_add_test(tc, test_local_private);
	tcase_add_test(tc, test_local_bounds);
	tcase_add_test(tc, test_const_tex);
	tcase_add_test(tc, test_line_stats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gpu_spaces_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
