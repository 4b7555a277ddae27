/*
 * tests/unit/test_scoped.c - protocol scoped-baseline, row by row of seed 004's Table 3 (the
 * non-remote rows: a0-a2, a6-a8, a15-a18) and the kernel boundaries: where each atomic is
 * performed (L1 or L2), which invalidations and flushes it causes (by cause), and what a
 * reader sees with and without an acquire; the FIFO store buffer's release wait and bound; the
 * L2's write-through that drops the line.
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
    "coherence = { protocol = \"scoped-baseline\"; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 5000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 1; clock_mhz = 1000; latency = 50; };\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

enum row { A0, A1, A6, A7, A15, A16, MP, SB, COUNT };

#define COUNT_ITERS 40

struct row_args {
	enum row row;
	uint64_t x, d, flag, lines;
	uint32_t r[8]; /* values the kernel read */
	uint32_t x_after, d_after;
};

static void wait_for(struct gpu_warp *w, uint64_t addr, uint32_t v)
{
	uint64_t n = 0;

	while (gw_atom_load(w, addr, 4, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED) != v)
		if (gw_spin_guard(w, &n)) {
			gw_fail(w, "%#llx never became %u", (unsigned long long)addr, v);
			return;
		}
}

static void row_kernel(struct gpu_warp *w)
{
	struct row_args *a = (struct row_args *)gw_args(w);
	bool sm0 = gw_cta(w) == 0 && gw_warp(w) == 0;

	switch (a->row) {
	case A0: /* atomic LD acquire, work-group scope: LD x L1 */
		if (!sm0)
			return;
		a->r[0] = gw_ld32(w, a->d);
		a->r[1] = (uint32_t)gw_atom_load(w, a->x, 4, MEM_SCOPE_WG, MEM_ORDER_ACQUIRE);
		a->r[2] = (uint32_t)gw_atom_load(w, a->x, 4, MEM_SCOPE_WG, MEM_ORDER_ACQUIRE);
		a->r[3] = gw_ld32(w, a->d);
		break;
	case A1: /* atomic LD acquire, agent scope: LD x L2, Inv local L1 */
		if (!sm0)
			return;
		a->r[0] = gw_ld32(w, a->d);
		a->r[1] = (uint32_t)gw_atom_load(w, a->x, 4, MEM_SCOPE_DEVICE, MEM_ORDER_ACQUIRE);
		a->r[2] = gw_ld32(w, a->d);
		break;
	case A6: /* atomic ST release, work-group scope: ST x L1 */
		if (!sm0)
			return;
		gw_st32(w, a->d, 1);
		gw_atom_store(w, a->x, 4, 5, MEM_SCOPE_WG, MEM_ORDER_RELEASE);
		break;
	case A7: /* atomic ST release, agent scope: Flush local L1, ST x L2 */
		if (!sm0)
			return;
		gw_st32(w, a->d, 1);
		gw_atom_store(w, a->x, 4, 5, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		break;
	case A15: /* atomic RMW acq_rel, work-group scope: RMW x L1 */
		if (!sm0)
			return;
		a->r[0] = gw_ld32(w, a->d);
		a->r[1] = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0, MEM_SCOPE_WG,
					    MEM_ORDER_ACQ_REL);
		a->r[2] = gw_ld32(w, a->d);
		break;
	case A16: /* atomic RMW acq_rel, agent scope: Flush local L1, RMW x L2, Inv local L1 */
		if (!sm0)
			return;
		a->r[0] = gw_ld32(w, a->d);
		a->r[1] = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0, MEM_SCOPE_DEVICE,
					    MEM_ORDER_ACQ_REL);
		a->r[2] = gw_ld32(w, a->d);
		break;
	case MP:
		/* message passing across CUs: CTA 1 caches d, CTA 0 writes it and releases x; a
		 * relaxed read of x does not make CTA 1 see d (its copy is stale), an acquire does */
		if (gw_cta(w) == 1) {
			a->r[0] = gw_ld32(w, a->d);
			gw_atom_store(w, a->flag, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
			wait_for(w, a->x, 1);
			a->r[1] = gw_ld32(w, a->d);
			gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
			a->r[2] = gw_ld32(w, a->d);
		} else {
			wait_for(w, a->flag, 1);
			gw_st32(w, a->d, 7);
			gw_atom_store(w, a->x, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		}
		break;
	case COUNT:
		/* every warp adds to its CTA's counter at work-group scope (performed in its CU's
		 * L1, next to plain loads and stores of the same line) and to one counter at agent
		 * scope (at the L2); both totals must be exact */
		for (unsigned i = 0; i < COUNT_ITERS; i++) {
			uint64_t mine = a->lines + 128 * gw_cta(w);

			gw_atom(w, MEM_ATOM_ADD, mine, 4, 1, 0, MEM_SCOPE_WG,
				i % 3 ? MEM_ORDER_RELAXED : MEM_ORDER_ACQ_REL);
			gw_st32(w, mine + 4 + 4 * gw_warp(w), i);
			(void)gw_ld32(w, mine + 64);
			gw_atom(w, MEM_ATOM_ADD, a->x, 4, 1, 0, MEM_SCOPE_DEVICE,
				i % 2 ? MEM_ORDER_RELAXED : MEM_ORDER_ACQ_REL);
			if (i % 8 == 7)
				gw_fence(w, MEM_ORDER_ACQ_REL, MEM_SCOPE_DEVICE);
		}
		break;
	case SB:
		/* warp 1 of CTA 0 fires 16 stores; warp 0 then releases: it waits for the CU's
		 * store buffer (warp 1's stores), not only for its own accesses */
		if (gw_cta(w) != 0)
			return;
		if (gw_warp(w) == 1) {
			for (unsigned i = 0; i < 16; i++)
				gw_st32(w, a->lines + 128 * i, 100 + i);
			return;
		}
		gw_compute(w, 4);
		gw_atom_store(w, a->x, 4, 5, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		break;
	}
}

static int row_host(struct gpu_host *h)
{
	struct row_args *a = gh_arg(h);
	int rc;

	a->x = gh_alloc(h, 128, 0);
	a->d = gh_alloc(h, 128, 0);
	a->flag = gh_alloc(h, 128, 0);
	a->lines = gh_alloc(h, 16 * 128, 0);
	gh_write32(h, a->x, 2);
	rc = sysrun_launch_pair(h, "row", row_kernel, a, 2);
	if (!rc) {
		a->x_after = gh_read32(h, a->x);
		a->d_after = gh_read32(h, a->d);
		a->r[6] = gh_read32(h, a->lines);
		a->r[7] = gh_read32(h, a->lines + 128);
	}
	return rc;
}

static const struct cs_workload row_wl = {.name = "row", .system = "gpu", .gpu = row_host};

struct counts {
	double l1_atomics, l1_atomic_misses, inv_acquire, flush_release, flush_waits;
	double inv_kernel_start, flush_kernel_end, load_hits, l2_atomics, l2_writes, wt_drops;
	double sb_full;
	double lat_atomic_load, lat_atomic_load_cycles, lat_release, lat_release_cycles;
	double lat_acquire, lat_load;
};

static void run_row(enum row row, struct row_args *a, struct counts *c, const char *const *sets)
{
	struct sysrun r;

	memset(a, 0, sizeof(*a));
	a->row = row;
	sysrun_start(&r, base_cfg, &row_wl, a, -1, sets);
	c->l1_atomics = sysrun_stat(&r, "gpu.sm0.l1.l1_atomics");
	c->l1_atomic_misses = sysrun_stat(&r, "gpu.sm0.l1.l1_atomic_misses");
	c->inv_acquire = sysrun_stat(&r, "gpu.sm0.l1.inv_acquire");
	c->flush_release = sysrun_stat(&r, "gpu.sm0.l1.flush_release");
	c->flush_waits = sysrun_stat(&r, "gpu.sm0.l1.flush_waits");
	c->inv_kernel_start = sysrun_stat(&r, "gpu.sm0.l1.inv_kernel_start") +
			      sysrun_stat(&r, "gpu.sm1.l1.inv_kernel_start");
	c->flush_kernel_end = sysrun_stat(&r, "gpu.sm0.l1.flush_kernel_end") +
			      sysrun_stat(&r, "gpu.sm1.l1.flush_kernel_end");
	c->load_hits = sysrun_stat(&r, "gpu.sm0.l1.load_hits");
	c->l2_atomics = sysrun_stat(&r, "gpu.l2.bank0.atomics");
	c->l2_writes = sysrun_stat(&r, "gpu.l2.bank0.writes");
	c->wt_drops = sysrun_stat(&r, "gpu.l2.bank0.wt_drops");
	c->sb_full = sysrun_stat(&r, "gpu.sm0.l1.sb_full");
	c->lat_atomic_load = sysrun_stat(&r, "gpu.sm0.lat.atomic_load");
	c->lat_atomic_load_cycles = sysrun_stat(&r, "gpu.sm0.lat.atomic_load_cycles");
	c->lat_release = sysrun_stat(&r, "gpu.sm0.lat.release");
	c->lat_release_cycles = sysrun_stat(&r, "gpu.sm0.lat.release_cycles");
	c->lat_acquire = sysrun_stat(&r, "gpu.sm0.lat.acquire");
	c->lat_load = sysrun_stat(&r, "gpu.sm0.lat.load");
	sysrun_end(&r);
}

/* Every row: one invalidation at the kernel's start and one flush at its end per L1. */
static void kernel_boundaries(const struct counts *c)
{
	ck_assert_double_eq(c->inv_kernel_start, 2);
	ck_assert_double_eq(c->flush_kernel_end, 2);
}

START_TEST(test_a0_load_acquire_wg)
{
	struct row_args a;
	struct counts c;

	run_row(A0, &a, &c, NULL);
	ck_assert_uint_eq(a.r[1], 2);
	ck_assert_uint_eq(a.r[2], 2);
	ck_assert_double_eq(c.l1_atomics, 2); /* both in the L1: the first fetched the line */
	ck_assert_double_eq(c.l1_atomic_misses, 1);
	ck_assert_double_eq(c.l2_atomics, 0);
	ck_assert_double_eq(c.inv_acquire, 0); /* no coherence action */
	ck_assert_double_eq(c.load_hits, 1);   /* d still cached after the acquire */
	kernel_boundaries(&c);
}
END_TEST

START_TEST(test_a1_load_acquire_agent)
{
	struct row_args a;
	struct counts c;

	run_row(A1, &a, &c, NULL);
	ck_assert_uint_eq(a.r[1], 2);
	ck_assert_double_eq(c.l2_atomics, 1); /* a1: at the L2 */
	ck_assert_double_eq(c.l1_atomics, 0);
	ck_assert_double_eq(c.inv_acquire, 1); /* a2: the L1 is invalidated after it */
	ck_assert_double_eq(c.load_hits, 0);   /* so d misses again */
	ck_assert_double_eq(c.flush_release, 0);
	/* Figs. 7/8 latencies: one atomic load, at least the L2's 50 cycles; two data loads */
	ck_assert_double_eq(c.lat_atomic_load, 1);
	ck_assert_double_ge(c.lat_atomic_load_cycles, 50);
	ck_assert_double_eq(c.lat_load, 2);
	ck_assert_double_eq(c.lat_release, 0);
	kernel_boundaries(&c);
}
END_TEST

START_TEST(test_a6_store_release_wg)
{
	struct row_args a;
	struct counts c;

	run_row(A6, &a, &c, NULL);
	ck_assert_double_eq(c.l1_atomics, 1); /* a6: in the L1 */
	ck_assert_double_eq(c.l2_atomics, 0);
	ck_assert_double_eq(c.flush_release, 0); /* no flush at work-group scope */
	ck_assert_uint_eq(a.x_after, 5);	 /* written through the store buffer */
	ck_assert_uint_eq(a.d_after, 1);
	ck_assert_double_eq(c.l2_writes, 2); /* d, then x's write-through */
	kernel_boundaries(&c);
}
END_TEST

START_TEST(test_a7_store_release_agent)
{
	struct row_args a;
	struct counts c;

	run_row(A7, &a, &c, NULL);
	ck_assert_double_eq(c.flush_release, 1); /* a7 */
	ck_assert_double_eq(c.l2_atomics, 1);	 /* a8 */
	ck_assert_double_eq(c.inv_acquire, 0);	 /* a release does not invalidate */
	ck_assert_uint_eq(a.x_after, 5);
	ck_assert_uint_eq(a.d_after, 1);
	/* the L2 keeps nothing written: d's and x's lines went to DRAM and were dropped */
	ck_assert_double_eq(c.wt_drops, 2);
	kernel_boundaries(&c);
}
END_TEST

START_TEST(test_a15_rmw_wg)
{
	struct row_args a;
	struct counts c;

	run_row(A15, &a, &c, NULL);
	ck_assert_uint_eq(a.r[1], 2);
	ck_assert_uint_eq(a.x_after, 5);
	ck_assert_double_eq(c.l1_atomics, 1); /* a15 */
	ck_assert_double_eq(c.l2_atomics, 0);
	ck_assert_double_eq(c.inv_acquire + c.flush_release, 0);
	ck_assert_double_eq(c.load_hits, 1);
	kernel_boundaries(&c);
}
END_TEST

START_TEST(test_a16_rmw_agent)
{
	struct row_args a;
	struct counts c;

	run_row(A16, &a, &c, NULL);
	ck_assert_uint_eq(a.r[1], 2);
	ck_assert_uint_eq(a.x_after, 5);
	ck_assert_double_eq(c.flush_release, 1); /* a16 */
	ck_assert_double_eq(c.l2_atomics, 1);	 /* a17 */
	ck_assert_double_eq(c.inv_acquire, 1);	 /* a18, once: not also before the RMW */
	ck_assert_double_eq(c.load_hits, 0);
	kernel_boundaries(&c);
}
END_TEST

START_TEST(test_message_passing)
{
	struct row_args a;
	struct counts c;

	run_row(MP, &a, &c, NULL);
	ck_assert_uint_eq(a.r[0], 0);
	ck_assert_uint_eq(a.r[1], 0);	       /* no acquire: the stale copy */
	ck_assert_uint_eq(a.r[2], 7);	       /* after an agent-scope acquire fence */
	ck_assert_double_eq(c.lat_acquire, 0); /* SM 0 wrote; SM 1's fence is sm1's */
}
END_TEST

START_TEST(test_store_buffer)
{
	static const char *const small[] = {"scoped.store_buffer=4", NULL};
	struct row_args a;
	struct counts c;

	run_row(SB, &a, &c, NULL);
	ck_assert_double_eq(c.flush_release, 1);
	ck_assert_double_eq(c.flush_waits, 1); /* warp 1's stores were still in the buffer */
	ck_assert_double_eq(c.sb_full, 0);
	/* the release atomic's wait for them is its release latency: at least a store's trip
	 * through the L2 (50 cycles) */
	ck_assert_double_eq(c.lat_release, 1);
	ck_assert_double_ge(c.lat_release_cycles, 50);
	run_row(SB, &a, &c, small);
	ck_assert_double_gt(c.sb_full, 0);    /* 16 stores through 4 entries */
	ck_assert_double_eq(c.l2_writes, 16); /* all of them (x is an atomic at the L2) */
	ck_assert_uint_eq(a.x_after, 5);
}
END_TEST

START_TEST(test_atomicity)
{
	static const char *const small[] = {"scoped.store_buffer=2", NULL};
	static const char *const sc[] = {"core.consistency=sc", NULL};
	const char *const *sets[] = {NULL, small, sc};

	for (unsigned s = 0; s < 3; s++) {
		struct row_args a;
		struct counts c;

		run_row(COUNT, &a, &c, sets[s]);
		ck_assert_uint_eq(a.r[6], 2 * COUNT_ITERS); /* CTA 0's 2 warps */
		ck_assert_uint_eq(a.r[7], 2 * COUNT_ITERS);
		ck_assert_uint_eq(a.x_after, 2 + 4 * COUNT_ITERS);
		ck_assert_double_eq(c.l1_atomics, 2 * COUNT_ITERS);
	}
}
END_TEST

static Suite *scoped_suite(void)
{
	Suite *s = suite_create("scoped");
	TCase *tc = tcase_create("baseline");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_a0_load_acquire_wg);
	tcase_add_test(tc, test_a1_load_acquire_agent);
	tcase_add_test(tc, test_a6_store_release_wg);
	tcase_add_test(tc, test_a7_store_release_agent);
	tcase_add_test(tc, test_a15_rmw_wg);
	tcase_add_test(tc, test_a16_rmw_agent);
	tcase_add_test(tc, test_message_passing);
	tcase_add_test(tc, test_store_buffer);
	tcase_add_test(tc, test_atomicity);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(scoped_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
