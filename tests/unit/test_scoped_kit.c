/*
 * tests/unit/test_scoped_kit.c - the scoped kit on the one-way network (tlm/coherence/scoped/) and
 * protocol rsp on it, at 4 SMs: a remote operation's broadcast reaches exactly the N-1 other
 * L1s and each row sends the probes Table 3 lists; a flush probe's ack waits for the L1's store
 * buffer to drain (and so the requester's answer, which waits for the last ack); values through
 * remote release / work-group acquire and work-group release / remote acquire; the ack helper.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "tlm/coherence/scoped/sc_acks.h"
#include "util/error.h"
#include "workloads/gpu_api.h"

#define SMS	4
#define LINE	128
#define BANKS	2
#define NSTORES 48 /* SM 1's stores in the flush test (the store buffer holds 64) */

static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 4; check = true; };\n"
    "coherence = { protocol = \"rsp\"; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 20000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 2; banks_per_channel = 1; clock_mhz = 1000; latency = 50; interleave = 128; "
    "};\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

enum kit_case { K_ACQUIRE, K_RELEASE, K_RMW, K_FLUSH_WAIT, K_MP_REMOTE_REL, K_ATOMICITY, K_CASES };

#define WG_ADDS	    60 /* SM 1's work-group adds of 1 to x in the atomicity test */
#define REMOTE_ADDS 20 /* SM 0's remote adds of 1000 */

struct kit_args {
	enum kit_case c;
	uint64_t x, d, go, lines;
	uint32_t got[NSTORES];
	uint32_t r0, d_seen, x_after;
};

static void spin_agent(struct gpu_warp *w, uint64_t addr, uint32_t v)
{
	uint64_t n = 0;

	while (gw_atom_load(w, addr, 4, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED) != v)
		if (gw_spin_guard(w, &n)) {
			gw_fail(w, "%#llx never became %u", (unsigned long long)addr, v);
			return;
		}
}

/* Line i of bank 0 (addresses interleave over the banks line by line). */
static uint64_t bank0_line(const struct kit_args *a, unsigned i)
{
	return a->lines + (uint64_t)i * BANKS * LINE;
}

static void kit_kernel(struct gpu_warp *w)
{
	struct kit_args *a = (struct kit_args *)gw_args(w);
	unsigned cta = gw_cta(w);

	if (gw_warp(w) != 0)
		return;
	switch (a->c) {
	case K_ACQUIRE: /* a3-a5 */
		if (cta == 0)
			a->r0 = (uint32_t)gw_atom_load(w, a->x, 4, MEM_SCOPE_DEVICE_REMOTE,
						       MEM_ORDER_ACQUIRE);
		break;
	case K_RELEASE: /* a9-a14 */
		if (cta == 0)
			gw_atom_store(w, a->x, 4, 9, MEM_SCOPE_DEVICE_REMOTE, MEM_ORDER_RELEASE);
		break;
	case K_RMW: /* a19-a25 */
		if (cta == 0)
			a->r0 = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->x, 4, 3, 0,
						  MEM_SCOPE_DEVICE_REMOTE, MEM_ORDER_ACQ_REL);
		break;
	case K_FLUSH_WAIT:
		/* SM 1 fills its store buffer with stores to bank 0, each written through to
		 * DRAM (a slow channel of its own, a DRAM queue of 2: the bank acknowledges them
		 * one DRAM write at a time), then says go on bank 1 by an atomic, which passes no
		 * store buffer. SM 0 sees go, and its remote acquire's flush probe reaches SM 1
		 * while most stores still wait: the ack, and so SM 0's answer, must wait for
		 * them, and SM 0 then reads every value */
		if (cta == 1) {
			for (unsigned i = 0; i < NSTORES; i++)
				gw_st32(w, bank0_line(a, i), 100 + i);
			gw_atom_store(w, a->go, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
		} else if (cta == 0) {
			spin_agent(w, a->go, 1);
			a->r0 = (uint32_t)gw_atom_load(w, a->x, 4, MEM_SCOPE_DEVICE_REMOTE,
						       MEM_ORDER_ACQUIRE);
			for (unsigned i = 0; i < NSTORES; i++)
				a->got[i] = gw_ld32(w, bank0_line(a, i));
		}
		break;
	case K_MP_REMOTE_REL:
		/* SM 0 caches d and x, then waits with work-group acquires of x, which hit its
		 * L1: only the remote release's broadcast invalidation (a11, a13) lets it see
		 * x = 1, and then d = 7 */
		if (cta == 0) {
			uint64_t n = 0;

			(void)gw_ld32(w, a->d);
			(void)gw_atom_load(w, a->x, 4, MEM_SCOPE_WG, MEM_ORDER_ACQUIRE);
			gw_atom_store(w, a->go, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
			while (gw_atom_load(w, a->x, 4, MEM_SCOPE_WG, MEM_ORDER_ACQUIRE) != 1)
				if (gw_spin_guard(w, &n)) {
					gw_fail(w, "x never became 1 in SM 0's L1");
					return;
				}
			a->d_seen = gw_ld32(w, a->d);
		} else if (cta == 1) {
			spin_agent(w, a->go, 1);
			gw_st32(w, a->d, 7);
			gw_atom_store(w, a->x, 4, 1, MEM_SCOPE_DEVICE_REMOTE, MEM_ORDER_RELEASE);
		}
		break;
	case K_ATOMICITY:
		/* SM 1 adds to x at work-group scope (in its L1, through its store buffer) while
		 * SM 0 adds at remote scope (at the L2): the lock, flush and invalidations of
		 * a19-a25 keep every add, so x ends exactly at the sum */
		if (cta == 1) {
			for (unsigned i = 0; i < WG_ADDS; i++)
				gw_atom(w, MEM_ATOM_ADD, a->x, 4, 1, 0, MEM_SCOPE_WG,
					MEM_ORDER_RELAXED);
		} else if (cta == 0) {
			for (unsigned i = 0; i < REMOTE_ADDS; i++)
				gw_atom(w, MEM_ATOM_ADD, a->x, 4, 1000, 0, MEM_SCOPE_DEVICE_REMOTE,
					MEM_ORDER_ACQ_REL);
		}
		break;
	case K_CASES:
		break;
	}
}

static int kit_host(struct gpu_host *h)
{
	struct kit_args *a = gh_arg(h);
	int rc;

	a->lines = gh_alloc(h, (uint64_t)NSTORES * BANKS * LINE, 4096);
	a->x = gh_alloc(h, 2 * LINE, 4096) + LINE; /* bank 1 */
	a->d = gh_alloc(h, LINE, 4096);
	a->go = gh_alloc(h, 2 * LINE, 4096) + LINE; /* bank 1 */
	gh_write32(h, a->x, 2);
	rc = sysrun_launch_pinned(h, "kit", kit_kernel, a, SMS, 1);
	if (!rc)
		a->x_after = gh_read32(h, a->x);
	return rc;
}

static const struct cs_workload kit_wl = {.name = "kit", .system = "gpu", .gpu = kit_host};

static double sm_stat(struct sysrun *r, unsigned sm, const char *name)
{
	return sysrun_l1_stat(r, sm, name);
}

static double bank_stat(struct sysrun *r, const char *name)
{
	return sysrun_banks_stat(r, BANKS, name);
}

static void start_case(struct sysrun *r, struct kit_args *a, enum kit_case c,
		       const char *const *sets)
{
	memset(a, 0, sizeof(*a));
	a->c = c;
	sysrun_start(r, base_cfg, &kit_wl, a, -1, sets);
}

/* What each L1 did for one remote operation of SM 0: the probes of its row reach SMs 1-3
 * only, once per broadcast. */
static void check_row(enum kit_case c, double flush, double inv, double locks, double bcasts)
{
	struct kit_args a;
	struct sysrun r;

	start_case(&r, &a, c, NULL);
	ck_assert_double_eq(bank_stat(&r, "remote_ops"), 1);
	ck_assert_double_eq(bank_stat(&r, "broadcasts"), bcasts);
	ck_assert_double_eq(bank_stat(&r, "probes"), bcasts * (SMS - 1));
	ck_assert_double_eq(bank_stat(&r, "probe_acks"), bcasts * (SMS - 1));
	/* the requester was answered after the last ack */
	ck_assert_double_eq(bank_stat(&r, "acks_before_answer"), bcasts * (SMS - 1));
	ck_assert_double_eq(sm_stat(&r, 0, "probes"), 0);
	for (unsigned sm = 1; sm < SMS; sm++) {
		ck_assert_double_eq(sm_stat(&r, sm, "probes"), bcasts);
		ck_assert_double_eq(sm_stat(&r, sm, "remote_flush"), flush);
		ck_assert_double_eq(sm_stat(&r, sm, "remote_inv"), inv);
		ck_assert_double_eq(sm_stat(&r, sm, "rmw_locks"), locks);
		ck_assert_double_eq(sm_stat(&r, sm, "rmw_unlocks"), locks);
	}
	/* the requester's own actions are the scoped L1's: invalidate after an acquire */
	ck_assert_double_eq(sm_stat(&r, 0, "inv_acquire"), c == K_RELEASE ? 0 : 1);
	sysrun_end(&r);
	if (c == K_ACQUIRE)
		ck_assert_uint_eq(a.r0, 2);
	if (c == K_RMW)
		ck_assert_uint_eq(a.r0, 2);
}

START_TEST(test_remote_acquire_row)
{
	/* a4: one flush broadcast, nothing else */
	check_row(K_ACQUIRE, 1, 0, 0, 1);
}
END_TEST

START_TEST(test_remote_release_row)
{
	/* a9-a11 (lock, flush, invalidate) then a13-a14 (invalidate, unlock) */
	check_row(K_RELEASE, 1, 2, 1, 2);
}
END_TEST

START_TEST(test_remote_rmw_row)
{
	/* a19-a21 then a23-a25 (flush, invalidate, unlock) */
	check_row(K_RMW, 2, 2, 1, 2);
}
END_TEST

START_TEST(test_flush_waits_for_store_buffer)
{
	static const char *const slow_dram[] = {"dram.clock_mhz=100", "l2.dram_queue=2",
						"l2.input_queue=1", NULL};
	struct kit_args a;
	struct sysrun r;

	start_case(&r, &a, K_FLUSH_WAIT, slow_dram);
	ck_assert_double_eq(sm_stat(&r, 1, "remote_flush"), 1);
	ck_assert_double_eq(sm_stat(&r, 1, "probe_waits"), 1);
	ck_assert_double_eq(bank_stat(&r, "acks_before_answer"), SMS - 1);
	ck_assert_double_eq(sm_stat(&r, 2, "probe_waits"), 0);
	ck_assert_double_eq(sm_stat(&r, 3, "probe_waits"), 0);
	ck_assert_double_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
	for (unsigned i = 0; i < NSTORES; i++)
		ck_assert_msg(a.got[i] == 100 + i, "line %u: %u after the remote acquire", i,
			      a.got[i]);
}
END_TEST

START_TEST(test_mp_remote_release)
{
	struct kit_args a;
	struct sysrun r;

	start_case(&r, &a, K_MP_REMOTE_REL, NULL);
	ck_assert_double_eq(sm_stat(&r, 0, "remote_inv"), 2);
	sysrun_end(&r);
	ck_assert_uint_eq(a.d_seen, 7);
}
END_TEST

/* Both faces leave the same values and counts for a remote row (README.md §5). */
START_TEST(test_rows_in_lt)
{
	static const char *const lt[] = {"system.mode=analytic", NULL};

	for (unsigned c = K_ACQUIRE; c <= K_RMW; c++) {
		struct kit_args a;
		struct sysrun r;
		double want_inv = c == K_ACQUIRE ? 0 : 2;

		start_case(&r, &a, (enum kit_case)c, lt);
		ck_assert_double_eq(bank_stat(&r, "remote_ops"), 1);
		for (unsigned sm = 1; sm < SMS; sm++)
			ck_assert_double_eq(sm_stat(&r, sm, "remote_inv"), want_inv);
		ck_assert_double_eq(sm_stat(&r, 0, "probes"), 0);
		sysrun_end(&r);
		if (c != K_RELEASE)
			ck_assert_uint_eq(a.r0, 2);
	}
}
END_TEST

START_TEST(test_rmw_atomicity)
{
	for (unsigned lt = 0; lt < 2; lt++) {
		static const char *const analytic[] = {"system.mode=analytic", NULL};
		struct kit_args a;
		struct sysrun r;

		start_case(&r, &a, K_ATOMICITY, lt ? analytic : NULL);
		ck_assert_double_eq(bank_stat(&r, "remote_ops"), REMOTE_ADDS);
		ck_assert_double_eq(sm_stat(&r, 1, "rmw_locks"), REMOTE_ADDS);
		ck_assert_double_eq(sm_stat(&r, 1, "l1_atomics"), WG_ADDS);
		sysrun_end(&r);
		ck_assert_msg(a.x_after == 2 + WG_ADDS + 1000 * REMOTE_ADDS, "%s: x = %u",
			      lt ? "LT" : "AT", a.x_after);
	}
}
END_TEST

START_TEST(test_acks_helper)
{
	struct sc_acks *t;
	int i, j;

	/* unbounded: grows past its first chunk, records stay where they were */
	ck_assert_int_eq(sc_acks_create(0, sizeof(uint64_t), &t), 0);
	for (unsigned n = 0; n < 200; n++) {
		ck_assert_int_eq(sc_acks_alloc(t), (int)n);
		*(uint64_t *)sc_acks_user(t, n) = n;
	}
	ck_assert_uint_ge(sc_acks_cap(t), 200);
	for (unsigned n = 0; n < 200; n++)
		ck_assert_uint_eq(*(uint64_t *)sc_acks_user(t, n), n);
	sc_acks_destroy(t);
	ck_assert_int_eq(sc_acks_create(2, sizeof(uint64_t), &t), 0);
	i = sc_acks_alloc(t);
	j = sc_acks_alloc(t);
	ck_assert_int_eq(i, 0);
	ck_assert_int_eq(j, 1);
	ck_assert_int_eq(sc_acks_alloc(t), -1);
	*(uint64_t *)sc_acks_user(t, 1) = 42;
	sc_acks_expect(t, 0, 3);
	ck_assert_int_eq(sc_acks_one(t, 0), 0);
	ck_assert_int_eq(sc_acks_one(t, 0), 0);
	ck_assert_uint_eq(sc_acks_pending(t, 0), 1);
	ck_assert_int_eq(sc_acks_one(t, 0), 1);
	ck_assert_int_eq(sc_acks_one(t, 0), -1); /* none owed */
	ck_assert_int_eq(sc_acks_one(t, 1), -1);
	sc_acks_free(t, 0);
	ck_assert_uint_eq(sc_acks_used(t), 1);
	ck_assert(!sc_acks_live(t, 0));
	ck_assert_uint_eq(*(uint64_t *)sc_acks_user(t, 1), 42);
	ck_assert_int_eq(sc_acks_alloc(t), 0);
	sc_acks_destroy(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("scoped_kit");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_acks_helper);
	tcase_add_test(tc, test_remote_acquire_row);
	tcase_add_test(tc, test_remote_release_row);
	tcase_add_test(tc, test_remote_rmw_row);
	tcase_add_test(tc, test_flush_waits_for_store_buffer);
	tcase_add_test(tc, test_mp_remote_release);
	tcase_add_test(tc, test_rows_in_lt);
	tcase_add_test(tc, test_rmw_atomicity);
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
