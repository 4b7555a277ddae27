/*
 * tests/unit/test_registration.c - registration on the scoped kit (tlm/coherence/scoped/
 * README.md §6) under protocol hlrc, at 4 SMs: one directed test per row group of seed 004's
 * Table 3 hLRC column (an atomic load, store or RMW whose line is registered in the local L1,
 * in no L1, or in another L1), each asserting the row's actions by their counts (GetRs, L1
 * hits, recalls, the flush where registration leaves, the invalidation where it comes in) and
 * the values; then the corner cases of §III.C: data on a registered line read at the L2, the
 * L2's and the L1's evictions of a registered line (with and without Rprio), and atomicity
 * of RMWs from every SM on one line.
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
#define NSTORES 48 /* SM 1's stores before it lets go of x (the store buffer holds 64) */
#define ADDS	50 /* each SM's RMWs in the atomicity test */

static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 4; check = true; };\n"
    "coherence = { protocol = \"hlrc\"; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 20000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 2; banks_per_channel = 1; clock_mhz = 1000; latency = 50; interleave = 128; "
    "};\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

enum reg_op { OP_LD, OP_ST, OP_RMW };
enum reg_case {
	C_LOCAL,
	C_L2,
	C_REMOTE,
	C_BYPASS,
	C_FORWARD,
	C_L2_EVICT,
	C_L1_EVICT,
	C_REGAIN,
	C_RELAXED,
	C_ATOMICITY,
	C_SCOPED
};

/* L2 conflict stride with l2.size_kib=1, l2.assoc=1 or 2 (8 or 4 sets per bank, 2 banks): a
 * line this far on maps to x's bank and set; the L1's with l1.size_kib=1, l1.assoc=1. */
#define L2_STRIDE (LINE * BANKS * 8)
#define L1_STRIDE (LINE * 8)

struct reg_args {
	enum reg_case c;
	enum reg_op op;
	uint64_t x, d, go, go2, lines;
	uint32_t got[NSTORES];
	uint32_t r0, r1, d_seen, x_after;
	unsigned wait; /* C_REGAIN: SM 1's cycles between seeing go and its RMW */
};

static uint32_t wg_add(struct gpu_warp *w, uint64_t x)
{
	return (uint32_t)gw_atom(w, MEM_ATOM_ADD, x, 4, 3, 0, MEM_SCOPE_WG, MEM_ORDER_ACQ_REL);
}

static uint32_t do_op(struct gpu_warp *w, enum reg_op op, uint64_t x)
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

/* Line i of bank 0 (addresses interleave over the banks line by line). */
static uint64_t bank0_line(const struct reg_args *a, unsigned i)
{
	return a->lines + (uint64_t)i * BANKS * LINE;
}

static void reg_kernel(struct gpu_warp *w)
{
	struct reg_args *a = (struct reg_args *)gw_args(w);
	unsigned cta = gw_cta(w);

	if (gw_warp(w) != 0)
		return;
	switch (a->c) {
	case C_LOCAL: /* the first registers from the L2; the second is c0, c8 or c16 */
		if (cta == 0) {
			a->r0 = do_op(w, a->op, a->x);
			a->r1 = do_op(w, a->op, a->x);
		}
		break;
	case C_L2: /* c1-c3, c9-c11, c17-c19: SM 0's copy of d goes when registration comes */
		if (cta == 0) {
			(void)gw_ld32(w, a->d);
			a->r0 = do_op(w, a->op, a->x);
			/* a store does not hold the warp: wait for it before looking at d */
			gw_fence(w, MEM_ORDER_ACQ_REL, MEM_SCOPE_WG);
			a->d_seen = gw_ld32(w, a->d);
		}
		break;
	case C_REMOTE:
		/* c4-c7, c12-c15, c20-c23: SM 1 registers x behind NSTORES stores that drain
		 * slowly; SM 0's atomic recalls x, and SM 1 lets go only once they have drained,
		 * so SM 0 then reads every one (the flush of the remote L1) */
		if (cta == 1) {
			for (unsigned i = 0; i < NSTORES; i++)
				gw_st32(w, bank0_line(a, i), 100 + i);
			/* acquire only: it registers x without waiting for the stores */
			(void)gw_atom(w, MEM_ATOM_EXCH, a->x, 4, 5, 0, MEM_SCOPE_DEVICE,
				      MEM_ORDER_ACQUIRE);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
		} else if (cta == 0) {
			sysrun_spin_cg(w, a->go, 1);
			a->r0 = do_op(w, a->op, a->x);
			for (unsigned i = 0; i < NSTORES; i++)
				a->got[i] = gw_ld32(w, bank0_line(a, i));
		}
		break;
	case C_BYPASS:
		/* corner case 2: SM 0 holds x's line registered; SM 2 writes d, a data word of
		 * that line (forwarded into SM 0's copy), and releases; SM 0's load of d is read
		 * at the L2 */
		if (cta == 0) {
			gw_atom_store(w, a->x, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
			sysrun_spin_cg(w, a->go2, 1);
			a->d_seen = gw_ld32(w, a->d);
		} else if (cta == 2) {
			sysrun_spin_cg(w, a->go, 1);
			gw_st32(w, a->d, 77);
			gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
			gw_st_co(w, a->go2, 4, 1, MEM_CO_CG);
		}
		break;
	case C_FORWARD:
		/* SM 1 reads x with a plain load after a handover (go, with release and acquire)
		 * while SM 0 holds x registered: the home forwards the read for SM 0's bytes,
		 * and SM 0 keeps the line; SM 1 then overwrites x with a plain store, whose bytes
		 * go into SM 0's copy, and SM 0's next add starts from them */
		if (cta == 0) {
			(void)do_op(w, OP_RMW, a->x);
			gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
			sysrun_spin_cg(w, a->go2, 1);
			gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
			a->r0 = do_op(w, OP_RMW, a->x);
		} else if (cta == 1) {
			sysrun_spin_cg(w, a->go, 1);
			gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
			a->r1 = gw_ld32(w, a->x);
			gw_st32(w, a->x, 40);
			gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
			gw_st_co(w, a->go2, 4, 1, MEM_CO_CG);
		}
		break;
	case C_L2_EVICT:
		/* corner case 5: SM 1's loads of lines in x's L2 set evict x's line (registered
		 * at SM 0) unless Rprio spares it; SM 0's next RMW finds the value it left */
		if (cta == 0) {
			a->r0 = do_op(w, OP_RMW, a->x);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
			sysrun_spin_cg(w, a->go2, 1);
			a->r1 = do_op(w, OP_RMW, a->x);
		} else if (cta == 1) {
			sysrun_spin_cg(w, a->go, 1);
			for (unsigned k = 1; k <= 2; k++)
				(void)gw_ld32(w, a->x + k * L2_STRIDE);
			gw_st_co(w, a->go2, 4, 1, MEM_CO_CG);
		}
		break;
	case C_L1_EVICT:
		/* SM 0 evicts its registered x from its L1 (Synch Evict): registration goes
		 * back to the L2 with x's value, where SM 1 finds it */
		if (cta == 0) {
			a->r0 = do_op(w, OP_RMW, a->x);
			(void)gw_ld32(w, a->x + L1_STRIDE);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
		} else if (cta == 1) {
			sysrun_spin_cg(w, a->go, 1);
			a->r1 = do_op(w, OP_RMW, a->x);
		}
		break;
	case C_REGAIN:
		/* SM 0 evicts its registered x behind NSTORES stores (its UnReg waits for
		 * them) and asks for x again at once; SM 1's RMW of x, `wait` cycles after
		 * SM 0's go (the last of those stores) is seen, may recall SM 0's given-back
		 * registration while SM 0's new GetR waits behind it at the home */
		if (cta == 0) {
			a->r0 = do_op(w, OP_RMW, a->x);
			for (unsigned i = 0; i < NSTORES; i++) {
				gw_st32(w, bank0_line(a, i), 100 + i);
			}
			(void)gw_ld32(w, a->x + L1_STRIDE);
			a->r1 = do_op(w, OP_RMW, a->x);
		} else if (cta == 1) {
			gw_compute(w, a->wait);
			(void)do_op(w, OP_RMW, a->x);
		}
		break;
	case C_RELAXED:
		/* relaxed atomics do not register (seed 004 §II): SM 0's on its registered x is
		 * performed in its L1; SM 1's recall x to the L2 and are performed there */
		if (cta == 0) {
			a->r0 = do_op(w, OP_RMW, a->x);
			(void)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 1, 0, MEM_SCOPE_DEVICE,
				      MEM_ORDER_RELAXED);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
		} else if (cta == 1) {
			sysrun_spin_cg(w, a->go, 1);
			a->r1 = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0, MEM_SCOPE_DEVICE,
						  MEM_ORDER_RELAXED);
			a->d_seen = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0,
						      MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
		}
		break;
	case C_SCOPED:
		/* hlrc-scoped (§2.6): SM 0's work-group-scope adds register x in its L1; SM 1's
		 * agent-scope add is performed at the L2, x recalled there from SM 0; SM 0's
		 * next add registers x again from the L2, and its agent-scope add recalls x from
		 * itself */
		if (cta == 0) {
			a->r0 = wg_add(w, a->x);
			gw_st_co(w, a->go, 4, 1, MEM_CO_CG);
			sysrun_spin_cg(w, a->go2, 1);
			a->r1 = wg_add(w, a->x);
			a->d_seen = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0,
						      MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL);
		} else if (cta == 1) {
			sysrun_spin_cg(w, a->go, 1);
			a->got[0] = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0,
						      MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL);
			gw_st_co(w, a->go2, 4, 1, MEM_CO_CG);
		}
		break;
	case C_ATOMICITY: /* registration is the RMWs' exclusive token: no add is lost */
		for (unsigned i = 0; i < ADDS; i++)
			gw_atom(w, MEM_ATOM_ADD, a->x + 4 * (cta & 1), 4, 1, 0, MEM_SCOPE_DEVICE,
				MEM_ORDER_ACQ_REL);
		break;
	}
}

static int reg_host(struct gpu_host *h)
{
	struct reg_args *a = gh_arg(h);
	int rc;

	a->lines = gh_alloc(h, (uint64_t)NSTORES * BANKS * LINE, 4096);
	a->x = gh_alloc(h, 4 * L2_STRIDE, 4096) + LINE; /* bank 1 */
	a->d = a->c == C_BYPASS ? a->x + 8 : gh_alloc(h, LINE, 4096);
	/* bank 1: SM 1's go passes none of its stores, queued at bank 0 (C_REMOTE) */
	a->go = gh_alloc(h, 2 * LINE, 4096) + LINE;
	a->go2 = gh_alloc(h, 2 * LINE, 4096);
	gh_write32(h, a->x, 2);
	rc = sysrun_launch_pinned(h, "reg", reg_kernel, a, SMS, 1);
	if (!rc)
		a->x_after = gh_read32(h, a->x);
	return rc;
}

static const struct cs_workload reg_wl = {.name = "reg", .system = "gpu", .gpu = reg_host};

static double sm_stat(struct sysrun *r, unsigned sm, const char *name)
{
	return sysrun_l1_stat(r, sm, name);
}

static double sms_stat(struct sysrun *r, const char *name)
{
	return sysrun_l1s_stat(r, SMS, name);
}

static double bank_stat(struct sysrun *r, const char *name)
{
	return sysrun_banks_stat(r, BANKS, name);
}

static void start_case(struct sysrun *r, struct reg_args *a, enum reg_case c, enum reg_op op,
		       const char *const *sets)
{
	memset(a, 0, sizeof(*a));
	a->c = c;
	a->op = op;
	sysrun_start(r, base_cfg, &reg_wl, a, -1, sets);
	ck_assert_double_eq(sysrun_stat(r, "gpu.coherence_check.violations"), 0);
}

/* The value x holds after op on x = 2 (the first of two ops for `second`). */
static uint32_t after_op(enum reg_op op, uint32_t x)
{
	return op == OP_ST ? 9 : op == OP_RMW ? x + 3 : x;
}

/* c0, c8, c16: the second op finds x registered here and does nothing but the access. */
static void check_local(enum reg_op op)
{
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_LOCAL, op, NULL);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.getr"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.l1_hits"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "inv_atomic_in"), 1); /* the first op's only */
	ck_assert_double_eq(bank_stat(&r, "reg.getr_l2"), 1);
	ck_assert_double_eq(bank_stat(&r, "reg.recalls"), 0);
	ck_assert_double_eq(sms_stat(&r, "flush_atomic_out"), 0);
	/* the release's flush is deferred (c8): no store-buffer flush at the release */
	ck_assert_double_eq(sm_stat(&r, 0, "flush_release"), 0);
	sysrun_end(&r);
	if (op == OP_LD) {
		ck_assert_uint_eq(a.r0, 2);
		ck_assert_uint_eq(a.r1, 2);
	} else if (op == OP_RMW) {
		ck_assert_uint_eq(a.r0, 2);
		ck_assert_uint_eq(a.r1, 5);
	}
	/* the host reads x through its owner's registered copy */
	ck_assert_uint_eq(a.x_after, after_op(op, after_op(op, 2)));
}

START_TEST(test_row_local_load)
{
	check_local(OP_LD); /* c0 */
}
END_TEST

START_TEST(test_row_local_store)
{
	check_local(OP_ST); /* c8 */
}
END_TEST

START_TEST(test_row_local_rmw)
{
	check_local(OP_RMW); /* c16 */
}
END_TEST

/* c1-c3, c9-c11, c17-c19: registration and data from the L2, then the invalidation. */
static void check_l2(enum reg_op op)
{
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_L2, op, NULL);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.getr"), 1);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_l2"), 1);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_remote"), 0);
	ck_assert_double_eq(sms_stat(&r, "reg.recalls"), 0);
	ck_assert_double_eq(sm_stat(&r, 0, "inv_atomic_in"), 1);
	/* d was dropped by the invalidation after the access (c3, c11, c19): read again */
	ck_assert_double_eq(sm_stat(&r, 0, "load_misses"), 2);
	ck_assert_double_eq(sm_stat(&r, 0, "load_hits"), 0);
	sysrun_end(&r);
	if (op != OP_ST)
		ck_assert_uint_eq(a.r0, 2);
	ck_assert_uint_eq(a.x_after, after_op(op, 2));
}

START_TEST(test_row_l2_load)
{
	check_l2(OP_LD);
}
END_TEST

START_TEST(test_row_l2_store)
{
	check_l2(OP_ST);
}
END_TEST

START_TEST(test_row_l2_rmw)
{
	check_l2(OP_RMW);
}
END_TEST

/* c4-c7, c12-c15, c20-c23: the remote L1 flushes (its ack waits for its store buffer), the
 * line and registration pass through the L2, the requester invalidates after the access. */
static void check_remote(enum reg_op op)
{
	static const char *const slow_dram[] = {"dram.clock_mhz=100", "l2.dram_queue=2",
						"l2.input_queue=1", NULL};
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_REMOTE, op, slow_dram);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_l2"), 1);	  /* SM 1's */
	ck_assert_double_eq(bank_stat(&r, "reg.getr_remote"), 1); /* SM 0's */
	ck_assert_double_eq(sm_stat(&r, 1, "reg.recalls"), 1);
	ck_assert_double_eq(sm_stat(&r, 1, "reg.recall_waits"), 1);
	ck_assert_double_eq(sm_stat(&r, 1, "flush_atomic_out"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "inv_atomic_in"), 1);
	ck_assert_double_eq(sm_stat(&r, 2, "reg.recalls") + sm_stat(&r, 3, "reg.recalls"), 0);
	sysrun_end(&r);
	if (op != OP_ST)
		ck_assert_uint_eq(a.r0, 5); /* SM 1's value came with the line */
	ck_assert_uint_eq(a.x_after, after_op(op, 5));
	for (unsigned i = 0; i < NSTORES; i++)
		ck_assert_msg(a.got[i] == 100 + i, "line %u: %u after the recall", i, a.got[i]);
}

START_TEST(test_row_remote_load)
{
	check_remote(OP_LD);
}
END_TEST

START_TEST(test_row_remote_store)
{
	check_remote(OP_ST);
}
END_TEST

START_TEST(test_row_remote_rmw)
{
	check_remote(OP_RMW);
}
END_TEST

START_TEST(test_data_on_registered_line)
{
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_BYPASS, OP_ST, NULL);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.load_bypass"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.forwards"), 1); /* SM 2's write of d */
	ck_assert_double_eq(sm_stat(&r, 0, "reg.recalls"), 0);
	sysrun_end(&r);
	ck_assert_uint_eq(a.d_seen, 77);
	ck_assert_uint_eq(a.x_after, 1);
}
END_TEST

/* Data accesses of other L1s to a registered line are forwarded to its owner, which keeps
 * it: a read gets the bytes the owner's atomics wrote, a write's bytes replace them in the
 * owner's copy. In both faces. */
START_TEST(test_data_forwarded)
{
	static const char *const analytic[] = {"system.mode=analytic", NULL};

	for (unsigned lt = 0; lt < 2; lt++) {
		struct reg_args a;
		struct sysrun r;

		start_case(&r, &a, C_FORWARD, OP_RMW, lt ? analytic : NULL);
		ck_assert_double_eq(bank_stat(&r, "reg.forwards"), 2);
		ck_assert_double_eq(sm_stat(&r, 0, "reg.forwards"), 2);
		ck_assert_double_eq(sm_stat(&r, 0, "reg.getr"), 1); /* registration stayed */
		ck_assert_double_eq(sm_stat(&r, 0, "reg.recalls"), 0);
		sysrun_end(&r);
		ck_assert_msg(a.r1 == 5, "%s: SM 1 read x = %u, not SM 0's 5", lt ? "LT" : "AT",
			      a.r1);
		ck_assert_msg(a.r0 == 40, "%s: SM 0's add found %u, not SM 1's 40",
			      lt ? "LT" : "AT", a.r0);
		ck_assert_uint_eq(a.x_after, 43);
	}
}
END_TEST

/* The L2 evicts x's registered line: recalled from SM 0 (its flush), its value to memory;
 * SM 0's next RMW asks for registration again and finds that value. Rprio spares it while a
 * way of the set is not registered. */
START_TEST(test_l2_eviction_recall)
{
	static const char *const noprio[] = {"coherence.protocol=hlrc-noprio", "l2.size_kib=1",
					     "l2.assoc=2", NULL};
	static const char *const rprio[] = {"l2.size_kib=1", "l2.assoc=2", NULL};
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_L2_EVICT, OP_RMW, noprio);
	ck_assert_double_eq(bank_stat(&r, "reg.evict_recalls"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.recalls"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "flush_atomic_out"), 1);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_l2"), 2);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r0, 2);
	ck_assert_uint_eq(a.r1, 5);
	ck_assert_uint_eq(a.x_after, 8);

	start_case(&r, &a, C_L2_EVICT, OP_RMW, rprio);
	ck_assert_double_eq(bank_stat(&r, "reg.evict_recalls"), 0);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.l1_hits"), 1);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r1, 5);
	ck_assert_uint_eq(a.x_after, 8);
}
END_TEST

START_TEST(test_l1_eviction_unreg)
{
	static const char *const small_l1[] = {"l1.size_kib=1", "l1.assoc=1", NULL};
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_L1_EVICT, OP_RMW, small_l1);
	ck_assert_double_eq(bank_stat(&r, "reg.unregs"), 1);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_l2") + bank_stat(&r, "reg.getr_remote"), 2);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r0, 2);
	ck_assert_uint_eq(a.r1, 5);
	ck_assert_uint_eq(a.x_after, 8);
}
END_TEST

/* One C_REGAIN run, SM 1's RMW `wait` cycles into the kernel: every one ends with all three
 * adds. Returns SM 0's second add's old value; *given_back counts recalls of SM 0's given-back
 * registration. */
static uint32_t regain_run(unsigned wait, unsigned *given_back)
{
	static const char *const sets[] = {"l1.size_kib=1", "l1.assoc=1", "dram.clock_mhz=100",
					   "l2.dram_queue=2", NULL};
	struct reg_args a;
	struct sysrun r;
	char msg[512];
	int rc;

	memset(&a, 0, sizeof(a));
	a.c = C_REGAIN;
	a.wait = wait;
	rc = sysrun_try(&r, base_cfg, &reg_wl, &a, -1, sets, msg, sizeof(msg));
	ck_assert_msg(rc == 0, "SM 1's RMW at cycle %u: %s", wait, msg);
	*given_back += sm_stat(&r, 0, "reg.recall_given_back") > 0;
	sysrun_end(&r);
	ck_assert_uint_eq(a.x_after, 2 + 3 * 3);
	ck_assert_msg(a.r0 == 2 || a.r0 == 5, "r0 %u", a.r0);
	ck_assert_msg(a.r1 == a.r0 + 3 || a.r1 == a.r0 + 6, "r0 %u r1 %u", a.r0, a.r1);
	return a.r1;
}

/* An L1 that gave x back and asked for it again gets a recall: of the registration it gave
 * back (answered at once: its UnReg is on the way) or of the one it asked for (answered once
 * that came). The first kind comes when the other L1's GetR reaches the home just before the
 * UnReg and the recall reaches the L1 after its new GetR left: SM 1's RMW is put at every
 * cycle before the moment it stops preceding SM 0's second add (found by bisection). Every
 * run ends with all three adds, and some recall the given-back registration. */
START_TEST(test_recall_of_given_back)
{
	unsigned lo = 0, hi = 20000, given_back = 0;

	ck_assert_uint_eq(regain_run(lo, &given_back), 8);
	ck_assert_uint_eq(regain_run(hi, &given_back), 5);
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		*(regain_run(mid, &given_back) == 5 ? &hi : &lo) = mid;
	}
	for (unsigned wait = hi > 100 ? hi - 100 : 0; wait < hi; wait++)
		(void)regain_run(wait, &given_back);
	ck_assert_uint_gt(given_back, 0);
}
END_TEST

START_TEST(test_relaxed_atomics)
{
	static const char *const analytic[] = {"system.mode=analytic", NULL};

	for (unsigned lt = 0; lt < 2; lt++) {
		struct reg_args a;
		struct sysrun r;

		start_case(&r, &a, C_RELAXED, OP_RMW, lt ? analytic : NULL);
		ck_assert_double_eq(sm_stat(&r, 0, "reg.getr"), 1);
		ck_assert_double_eq(sm_stat(&r, 0, "reg.l1_hits"), 1); /* its relaxed add */
		ck_assert_double_eq(sm_stat(&r, 1, "reg.getr"), 0);
		ck_assert_double_eq(sm_stat(&r, 1, "reg.relaxed_l2"), 2);
		ck_assert_double_eq(bank_stat(&r, "reg.atomic_recalls"), 1); /* the first only */
		ck_assert_double_eq(sm_stat(&r, 0, "reg.recalls"), 1);
		sysrun_end(&r);
		ck_assert_uint_eq(a.r0, 2);
		ck_assert_uint_eq(a.r1, 6);
		ck_assert_uint_eq(a.d_seen, 9);
		ck_assert_uint_eq(a.x_after, 12);
	}
}
END_TEST

START_TEST(test_rmw_atomicity)
{
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_ATOMICITY, OP_RMW, NULL);
	/* two words of one line, two SMs each: registration moves between the SMs (false
	 * sharing, corner case 1) and every add stays */
	ck_assert(bank_stat(&r, "reg.getr_remote") > 0);
	ck_assert_double_eq(sms_stat(&r, "reg.l1_hits") + sms_stat(&r, "reg.getr") +
				sms_stat(&r, "reg.merged"),
			    SMS * ADDS);
	sysrun_end(&r);
	ck_assert_uint_eq(a.x_after, 2 + 2 * ADDS);
}
END_TEST

/* hlrc-scoped (seed 004 §2.6): work-group-scope atomics register in the L1 as under hlrc;
 * agent-scope ones are performed at the L2 after the home recalls the line (from another L1
 * or from the requester's own), with the store-buffer flush before the release and the
 * invalidation after the acquire of the baseline's agent-scope atomics. Both faces. */
static void check_scoped(const char *const *sets)
{
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_SCOPED, OP_RMW, sets);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.getr"), 2);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_l2"), 2);
	ck_assert_double_eq(bank_stat(&r, "reg.getr_remote"), 0);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.agent_l2"), 1);
	ck_assert_double_eq(sm_stat(&r, 1, "reg.agent_l2"), 1);
	ck_assert_double_eq(bank_stat(&r, "reg.atomic_recalls"), 2);
	ck_assert_double_eq(sm_stat(&r, 0, "reg.recalls"), 2);
	ck_assert_double_eq(sm_stat(&r, 0, "flush_atomic_out"), 2);
	/* SM 1's agent add: a flush before (its release), an invalidation after (its acquire) */
	ck_assert_double_eq(sm_stat(&r, 1, "flush_release"), 1);
	ck_assert_double_eq(sm_stat(&r, 1, "inv_acquire"), 1);
	ck_assert_double_eq(sm_stat(&r, 1, "reg.getr"), 0);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r0, 2);
	ck_assert_uint_eq(a.got[0], 5);
	ck_assert_uint_eq(a.r1, 8);
	ck_assert_uint_eq(a.d_seen, 11);
	ck_assert_uint_eq(a.x_after, 14);
}

START_TEST(test_hlrc_scoped)
{
	static const char *const at[] = {"coherence.protocol=hlrc-scoped", NULL};
	static const char *const lt[] = {"coherence.protocol=hlrc-scoped", "system.mode=analytic",
					 NULL};

	check_scoped(at);
	check_scoped(lt);
}
END_TEST

/* The LT face performs the same rows: the same transfers, values and invalidations. */
START_TEST(test_rows_in_lt)
{
	static const char *const lt[] = {"system.mode=analytic", NULL};

	for (unsigned op = OP_LD; op <= OP_RMW; op++) {
		struct reg_args a;
		struct sysrun r;

		start_case(&r, &a, C_LOCAL, (enum reg_op)op, lt);
		ck_assert_double_eq(sm_stat(&r, 0, "reg.l1_hits"), 1);
		ck_assert_double_eq(bank_stat(&r, "reg.getr_l2"), 1);
		sysrun_end(&r);
		ck_assert_uint_eq(a.x_after, after_op(op, after_op(op, 2)));

		start_case(&r, &a, C_REMOTE, (enum reg_op)op, lt);
		ck_assert_double_eq(bank_stat(&r, "reg.getr_remote"), 1);
		ck_assert_double_eq(sm_stat(&r, 1, "flush_atomic_out"), 1);
		ck_assert_double_eq(sm_stat(&r, 0, "inv_atomic_in"), 1);
		sysrun_end(&r);
		if (op != OP_ST)
			ck_assert_uint_eq(a.r0, 5);
		ck_assert_uint_eq(a.x_after, after_op(op, 5));
		for (unsigned i = 0; i < NSTORES; i++)
			ck_assert_uint_eq(a.got[i], 100 + i);
	}
}
END_TEST

START_TEST(test_evictions_in_lt)
{
	static const char *const l2_noprio[] = {"system.mode=analytic",
						"coherence.protocol=hlrc-noprio", "l2.size_kib=1",
						"l2.assoc=2", NULL};
	static const char *const small_l1[] = {"system.mode=analytic", "l1.size_kib=1",
					       "l1.assoc=1", NULL};
	struct reg_args a;
	struct sysrun r;

	start_case(&r, &a, C_L2_EVICT, OP_RMW, l2_noprio);
	ck_assert_double_eq(bank_stat(&r, "reg.evict_recalls"), 1);
	ck_assert_double_eq(sm_stat(&r, 0, "flush_atomic_out"), 1);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r1, 5);
	ck_assert_uint_eq(a.x_after, 8);

	start_case(&r, &a, C_L1_EVICT, OP_RMW, small_l1);
	ck_assert_double_eq(bank_stat(&r, "reg.unregs"), 1);
	sysrun_end(&r);
	ck_assert_uint_eq(a.r1, 5);
	ck_assert_uint_eq(a.x_after, 8);

	start_case(&r, &a, C_ATOMICITY, OP_RMW, small_l1);
	sysrun_end(&r);
	ck_assert_uint_eq(a.x_after, 2 + 2 * ADDS);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("registration");
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
	tcase_add_test(tc, test_data_on_registered_line);
	tcase_add_test(tc, test_data_forwarded);
	tcase_add_test(tc, test_l2_eviction_recall);
	tcase_add_test(tc, test_l1_eviction_unreg);
	tcase_add_test(tc, test_recall_of_given_back);
	tcase_add_test(tc, test_relaxed_atomics);
	tcase_add_test(tc, test_rmw_atomicity);
	tcase_add_test(tc, test_hlrc_scoped);
	tcase_add_test(tc, test_rows_in_lt);
	tcase_add_test(tc, test_evictions_in_lt);
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
