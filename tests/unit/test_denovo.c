/*
 * tests/unit/test_denovo.c - DeNovo-B on the scoped kit (tlm/coherence/scoped/README.md §7)
 * at 4 SMs: one directed test per row group of seed 004's Table 3 DeNovo column (an atomic
 * load, store or RMW whose line is registered in the local L1, in no L1, or in another L1),
 * each asserting the row's actions by their counts (the StReg of the written lines before a
 * release, the registration from the L2 or the remote L1, the invalidation after an acquire)
 * and the values; then what sets DeNovo-B apart from hLRC: written data registered and read
 * through its owner, no flush when registration leaves, the written bytes kept by an
 * invalidation, and the same rows in the LT face.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "util/error.h"
#include "workloads/gpu_api.h"

#define SMS	4
#define LINE	128
#define BANKS	2
#define NSTORES 48 /* lines SM 1 writes before it registers x (the remote rows) */

static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 4; check = true; };\n"
    "coherence = { protocol = \"denovo-b\"; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 20000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 2; banks_per_channel = 1; clock_mhz = 1000; latency = 50; interleave = 128; "
    "};\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

enum dn_op { OP_LD, OP_ST, OP_RMW };
enum dn_case { C_LOCAL, C_L2, C_REMOTE, C_INV_KEEPS, C_SHARED_LINE };

struct dn_args {
	enum dn_case c;
	enum dn_op op;
	uint64_t x, d, w0, w1, go, go2, lines;
	uint32_t got[NSTORES];
	uint32_t r0, r1, d_seen, x_after, w0_after, w1_after;
	unsigned launch; /* C_SHARED_LINE: the second kernel reads what the first wrote */
};

#define L1_STRIDE (LINE * 8) /* maps to the same set of a 1 KiB direct-mapped L1 */

/* Table 3's atomics: a load acquires, a store releases, an RMW does both. */
static uint32_t do_op(struct gpu_warp *w, enum dn_op op, uint64_t x)
{
	switch (op) {
	case OP_LD:
		return (uint32_t)gw_atom_load(w, x, 4, MEM_SCOPE_DEVICE, MEM_ORDER_ACQUIRE);
	case OP_ST:
		gw_atom_store(w, x, 4, 9, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		return 0;
	default:
		return (uint32_t)gw_atom(w, MEM_ATOM_ADD, x, 4, 3, 0, MEM_SCOPE_DEVICE,
					 MEM_ORDER_ACQ_REL);
	}
}

static bool acquires(enum dn_op op)
{
	return op != OP_ST;
}

static bool releases(enum dn_op op)
{
	return op != OP_LD;
}

static uint64_t bank0_line(const struct dn_args *a, unsigned i)
{
	return a->lines + (uint64_t)i * BANKS * LINE;
}

static void dn_kernel(struct gpu_warp *w)
{
	struct dn_args *a = (struct dn_args *)gw_args(w);
	unsigned cta = gw_cta(w);

	if (gw_warp(w) != 0)
		return;
	switch (a->c) {
	case C_LOCAL:
		/* b0-b1, b8-b9, b16-b18: the first op registers x from the L2; SM 0 writes w1
		 * between the two, so a releasing second op registers w1's line (StReg) and
		 * then performs the access in its L1 */
		if (cta == 0) {
			gw_st32(w, a->w0, 11);
			a->r0 = do_op(w, a->op, a->x);
			gw_st32(w, a->w1, 12);
			a->r1 = do_op(w, a->op, a->x);
		}
		break;
	case C_L2:
		/* b2-b4, b10-b12, b19-b22: SM 0 holds a copy of d and has written w0; the op
		 * registers x from the L2 (after w0's StReg if it releases), and an acquire
		 * drops d, read again after */
		if (cta == 0) {
			(void)gw_ld32(w, a->d);
			gw_st32(w, a->w0, 11);
			a->r0 = do_op(w, a->op, a->x);
			gw_fence(w, MEM_ORDER_ACQ_REL, MEM_SCOPE_WG); /* a store does not wait */
			a->d_seen = gw_ld32(w, a->d);
		}
		break;
	case C_REMOTE:
		/* b5-b7, b13-b15, b23-b26: SM 1 writes NSTORES lines and registers x with a
		 * release (its StRegs register them all at SM 1); SM 0's op takes x from SM 1
		 * (no flush: registered data stays where it is), and SM 0's reads of those
		 * lines are forwarded to SM 1, their owner */
		if (cta == 1) {
			for (unsigned i = 0; i < NSTORES; i++)
				gw_st32(w, bank0_line(a, i), 100 + i);
			(void)gw_atom(w, MEM_ATOM_EXCH, a->x, 4, 5, 0, MEM_SCOPE_DEVICE,
				      MEM_ORDER_ACQ_REL);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
		} else if (cta == 0) {
			sysrun_spin_cg(w, a->go, 1);
			a->r0 = do_op(w, a->op, a->x);
			for (unsigned i = 0; i < NSTORES; i++)
				a->got[i] = gw_ld32(w, bank0_line(a, i));
		}
		break;
	case C_SHARED_LINE:
		/* block granularity: SM 0 writes word 0 of line d and registers it (release);
		 * SM 1 then writes word 1 of d, and word 2 of d before a line in d's L1 set
		 * evicts it; SM 2 writes word 3 and does not release. Every written word must
		 * reach the owner's copy: SM 1's eviction forwarded into SM 0's (the L2's copy
		 * is not the up-to-date one), SM 2's registered at the kernel's end (a release).
		 * The second kernel's SM 3 reads the four words. */
		if (a->launch == 0 && cta == 0) {
			gw_st32(w, a->d, 40);
			gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
		} else if (a->launch == 0 && cta == 1) {
			sysrun_spin_cg(w, a->go, 1);
			gw_st32(w, a->d + 4, 41);
			gw_st32(w, a->d + 8, 42);
			gw_st32(w, a->d + L1_STRIDE, 1); /* evicts d's line, its two words */
			gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
			gw_st_co(w, a->go2, 4, 1, MEM_CO_CG);
		} else if (a->launch == 0 && cta == 2) {
			sysrun_spin_cg(w, a->go2, 1);
			gw_st32(w, a->d + 12, 43);
		} else if (a->launch == 1 && cta == 3) {
			for (unsigned i = 0; i < 4; i++)
				a->got[i] = gw_ld32(w, a->d + 4 * i);
		}
		break;
	case C_INV_KEEPS:
		/* an acquire invalidates what SM 0 read but keeps the bytes it wrote and has
		 * not registered: w0's word is read back from the L1 after it */
		if (cta == 0) {
			(void)gw_ld32(w, a->d);
			gw_st32(w, a->w0, 11);
			(void)do_op(w, OP_LD, a->x);
			a->r0 = gw_ld32(w, a->w0);
			a->d_seen = gw_ld32(w, a->d);
		}
		break;
	}
}

static int dn_host(struct gpu_host *h)
{
	struct dn_args *a = gh_arg(h);
	int rc;

	a->lines = gh_alloc(h, (uint64_t)NSTORES * BANKS * LINE, 4096);
	a->x = gh_alloc(h, 2 * LINE, 4096) + LINE; /* bank 1 */
	a->d = gh_alloc(h, LINE, 4096);
	a->w0 = gh_alloc(h, LINE, 4096) + 4;
	a->w1 = gh_alloc(h, LINE, 4096) + 8;
	a->go = gh_alloc(h, 2 * LINE, 4096) + LINE;
	a->go2 = gh_alloc(h, LINE, 4096);
	gh_write32(h, a->x, 2);
	gh_write32(h, a->d, 7);
	rc = sysrun_launch_pinned(h, "denovo", dn_kernel, a, SMS, 1);
	if (!rc && a->c == C_SHARED_LINE) {
		a->launch = 1;
		rc = sysrun_launch_pinned(h, "denovo", dn_kernel, a, SMS, 1);
	}
	if (!rc) {
		a->x_after = gh_read32(h, a->x);
		a->w0_after = gh_read32(h, a->w0);
		a->w1_after = gh_read32(h, a->w1);
	}
	return rc;
}

static const struct cs_workload dn_wl = {.name = "denovo", .system = "gpu", .gpu = dn_host};

static void start_case(struct sysrun *r, struct dn_args *a, enum dn_case c, enum dn_op op,
		       const char *const *sets)
{
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->op = op;
	sysrun_start(r, base_cfg, &dn_wl, a, -1, sets);
	ck_assert_double_eq(sysrun_stat(r, "gpu.coherence_check.violations"), 0);
}

static uint32_t after_op(enum dn_op op, uint32_t x)
{
	return op == OP_ST ? 9 : op == OP_RMW ? x + 3 : x;
}

/* The LT face: the rows' counts and values are the same. */
static const char *const lt_face[] = {"system.mode=analytic", NULL};

static void check_local(enum dn_op op, const char *const *sets)
{
	struct dn_args a;
	struct sysrun r;

	start_case(&r, &a, C_LOCAL, op, sets);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.getr"), 1);    /* x's, once */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.l1_hits"), 1); /* b0, b9, b17 */
	/* b8, b16: the releases register w0's line, then w1's (b8 again, or b10/b19 at the
	 * first); after loads both are registered at the kernel's end (a release) */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.stregs"), 2);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.stregs_kernel_end"), releases(op) ? 0 : 2);
	ck_assert_double_eq(sysrun_banks_stat(&r, BANKS, "reg.getr_l2"), 3);
	/* b1, b4, b18, b22: an invalidation after every acquire, none for a store */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "inv_acquire"), acquires(op) ? 2 : 0);
	ck_assert_double_eq(sysrun_banks_stat(&r, BANKS, "reg.recalls"), 0);
	ck_assert_double_eq(sysrun_l1s_stat(&r, SMS, "flush_atomic_out"), 0);
	sysrun_end(&r);
	if (op == OP_LD) {
		ck_assert_uint_eq(a.r0, 2);
		ck_assert_uint_eq(a.r1, 2);
	} else if (op == OP_RMW) {
		ck_assert_uint_eq(a.r0, 2);
		ck_assert_uint_eq(a.r1, 5);
	}
	ck_assert_uint_eq(a.x_after, after_op(op, after_op(op, 2)));
	/* the host reads written data through its owner (registered at a release or at the
	 * kernel's end) */
	ck_assert_uint_eq(a.w0_after, 11);
	ck_assert_uint_eq(a.w1_after, 12);
}

START_TEST(test_row_local_load)
{
	check_local(OP_LD, NULL); /* b0, b1 */
}
END_TEST

START_TEST(test_row_local_store)
{
	check_local(OP_ST, NULL); /* b8, b9 */
}
END_TEST

START_TEST(test_row_local_rmw)
{
	check_local(OP_RMW, NULL); /* b16-b18 */
}
END_TEST

static void check_l2(enum dn_op op, const char *const *sets)
{
	struct dn_args a;
	struct sysrun r;

	start_case(&r, &a, C_L2, op, sets);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.getr"), 1);
	/* b10, b19: w0's line registered before x; after a load, at the kernel's end */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.stregs"), 1);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.stregs_kernel_end"), releases(op) ? 0 : 1);
	ck_assert_double_eq(sysrun_banks_stat(&r, BANKS, "reg.getr_l2"), 2); /* b2, b11 */
	ck_assert_double_eq(sysrun_banks_stat(&r, BANKS, "reg.getr_remote"), 0);
	ck_assert_double_eq(sysrun_l1s_stat(&r, SMS, "reg.recalls"), 0);
	/* b4, b22: d dropped by the invalidation after the access, read again; a store's
	 * release keeps it (b12) */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "inv_acquire"), acquires(op) ? 1 : 0);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "load_misses"), acquires(op) ? 2 : 1);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "load_hits"), acquires(op) ? 0 : 1);
	sysrun_end(&r);
	if (op != OP_ST)
		ck_assert_uint_eq(a.r0, 2);
	ck_assert_uint_eq(a.d_seen, 7);
	ck_assert_uint_eq(a.x_after, after_op(op, 2));
	ck_assert_uint_eq(a.w0_after, 11);
}

START_TEST(test_row_l2_load)
{
	check_l2(OP_LD, NULL); /* b2-b4 */
}
END_TEST

START_TEST(test_row_l2_store)
{
	check_l2(OP_ST, NULL); /* b10-b12 */
}
END_TEST

START_TEST(test_row_l2_rmw)
{
	check_l2(OP_RMW, NULL); /* b19-b22 */
}
END_TEST

static void check_remote(enum dn_op op, const char *const *sets)
{
	struct dn_args a;
	struct sysrun r;

	start_case(&r, &a, C_REMOTE, op, sets);
	/* SM 1's release registered every line it wrote, then x */
	ck_assert_double_eq(sysrun_l1_stat(&r, 1, "reg.stregs"), NSTORES);
	ck_assert_double_eq(sysrun_banks_stat(&r, BANKS, "reg.getr_remote"),
			    1); /* b5, b14, b24: SM 0's */
	ck_assert_double_eq(sysrun_l1_stat(&r, 1, "reg.recalls"), 1);
	/* registration leaves SM 1 with no flush: its answer waits for nothing */
	ck_assert_double_eq(sysrun_l1_stat(&r, 1, "flush_atomic_out"), 0);
	ck_assert_double_eq(sysrun_l1_stat(&r, 1, "reg.recall_waits"), 0);
	/* SM 0's reads of SM 1's registered lines are answered by SM 1, which keeps them */
	ck_assert_double_eq(sysrun_l1_stat(&r, 1, "reg.forwards"), NSTORES);
	ck_assert_double_eq(sysrun_banks_stat(&r, BANKS, "reg.forwards"), NSTORES);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "inv_acquire"),
			    acquires(op) ? 1 : 0); /* b7, b26 */
	ck_assert_double_eq(
	    sysrun_l1_stat(&r, 2, "reg.recalls") + sysrun_l1_stat(&r, 3, "reg.recalls"), 0);
	sysrun_end(&r);
	if (op != OP_ST)
		ck_assert_uint_eq(a.r0, 5); /* SM 1's value came with the line */
	ck_assert_uint_eq(a.x_after, after_op(op, 5));
	for (unsigned i = 0; i < NSTORES; i++)
		ck_assert_msg(a.got[i] == 100 + i, "line %u: %u at SM 0", i, a.got[i]);
}

START_TEST(test_row_remote_load)
{
	check_remote(OP_LD, NULL); /* b5-b7 */
}
END_TEST

START_TEST(test_row_remote_store)
{
	check_remote(OP_ST, NULL); /* b13-b15 */
}
END_TEST

START_TEST(test_row_remote_rmw)
{
	check_remote(OP_RMW, NULL); /* b23-b26 */
}
END_TEST

/* The flash invalidation at an acquire drops what SM 0 read (d, read again at the L2) and
 * keeps the word it wrote and has not registered (w0, read in its L1). */
START_TEST(test_invalidation_keeps_written)
{
	struct dn_args a;
	struct sysrun r;

	start_case(&r, &a, C_INV_KEEPS, OP_LD, NULL);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "inv_acquire"), 1);
	/* no release in the kernel: w0's line is registered at its end */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.stregs"), 1);
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.stregs_kernel_end"), 1);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r0, 11);
	ck_assert_uint_eq(a.d_seen, 7);
	ck_assert_uint_eq(a.w0_after, 11); /* the host reads it through its owner */
}
END_TEST

static void check_shared_line(const char *const *sets)
{
	struct dn_args a;
	struct sysrun r;

	start_case(&r, &a, C_SHARED_LINE, OP_LD, sets);
	/* SM 1's eviction went to SM 0's copy; SM 2's word was registered at the end */
	ck_assert_double_eq(sysrun_l1_stat(&r, 0, "reg.forwards"), 1);
	ck_assert_double_eq(sysrun_l1_stat(&r, 2, "reg.stregs_kernel_end"), 1);
	sysrun_end(&r);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_msg(a.got[i] == 40 + i, "word %u: %u", i, a.got[i]);
}

/* Block granularity: three CUs write one line; every word reaches the next kernel. */
START_TEST(test_shared_line)
{
	static const char *const at[] = {"l1.size_kib=1", "l1.assoc=1", NULL};
	static const char *const lt[] = {"l1.size_kib=1", "l1.assoc=1", "system.mode=analytic",
					 NULL};

	check_shared_line(at);
	check_shared_line(lt);
}
END_TEST

START_TEST(test_rows_in_lt)
{
	for (unsigned op = OP_LD; op <= OP_RMW; op++) {
		check_local((enum dn_op)op, lt_face);
		check_l2((enum dn_op)op, lt_face);
		check_remote((enum dn_op)op, lt_face);
	}
}
END_TEST

/* denovo-rprio: the same rows (Rprio changes only which line an eviction takes). */
START_TEST(test_rows_rprio)
{
	static const char *const rprio[] = {"coherence.protocol=denovo-rprio", NULL};

	for (unsigned op = OP_LD; op <= OP_RMW; op++) {
		check_local((enum dn_op)op, rprio);
		check_remote((enum dn_op)op, rprio);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("denovo");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_row_local_load);
	tcase_add_test(tc, test_row_local_store);
	tcase_add_test(tc, test_row_local_rmw);
	tcase_add_test(tc, test_row_l2_load);
	tcase_add_test(tc, test_row_l2_store);
	tcase_add_test(tc, test_row_l2_rmw);
	tcase_add_test(tc, test_row_remote_load);
	tcase_add_test(tc, test_row_remote_store);
	tcase_add_test(tc, test_row_remote_rmw);
	tcase_add_test(tc, test_invalidation_keeps_written);
	tcase_add_test(tc, test_shared_line);
	tcase_add_test(tc, test_rows_in_lt);
	tcase_add_test(tc, test_rows_rprio);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
