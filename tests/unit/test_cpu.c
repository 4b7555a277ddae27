/*
 * tests/unit/test_cpu.c - the CPU core model (tlm/core/cpu.c) on system cpu (ideal coherent
 * memory ports), through the CPU op API (workloads/cpu_api.h).
 *
 * x86-TSO as its papers state it (Owens, Sarkar and Sewell, "A better x86 memory model:
 * x86-TSO"): a load reads its own thread's youngest buffered store (forwarding); after MFENCE
 * nothing of the thread is buffered; stores become visible to other cores in program order; SB
 * shows its relaxed outcome and SB+mfences and MP never show theirs; locked atomics are
 * indivisible. Structure: a full store buffer stalls the thread (each store beyond the buffer
 * waits, as draining one takes a port round trip); the load window bounds the loads in flight;
 * n compute cycles take n periods of the core clock, exactly.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "tlm/system/system.h"
#include "util/config.h"
#include "workloads/cpu_api.h"
#include "workloads/litmus/litmus.h"
#include "workloads/litmus/run.h"
#include "workloads/workload.h"

static const char *base_cfg = "system = { type = \"cpu\"; mode = \"detailed\"; };\n"
			      "cpus = { cores = 4; };\n"
			      "cpu = { clock_mhz = 1000; spin_limit = 100000; };\n"
			      "idealmem = { latency = 20; };\n";

/* What a test's host program and threads share. */
struct tst {
	uint64_t a, b;	    /* two locations, one line each */
	uint64_t v[64];	    /* values threads report */
	uint64_t n;	    /* a count the test chooses */
	uint64_t seen;	    /* non-vacuity counters */
	uint64_t cycles[2]; /* ct_cycle readings */
	unsigned threads;
	void (*fn)(struct cpu_thread *t);
	int rounds;
};

static int host_generic(struct cpu_host *h)
{
	struct tst *x = ch_arg(h);
	struct cpu_program p = {.name = "test", .threads = x->threads, .fn = x->fn, .args = x};
	int rc = 0;

	x->a = ch_alloc(h, 64, 64);
	x->b = ch_alloc(h, 64, 64);
	for (int r = 0; !rc && r < (x->rounds ? x->rounds : 1); r++) {
		ch_write32(h, x->a, 0);
		ch_write32(h, x->b, 0);
		rc = ch_run(h, &p);
	}
	return rc;
}

static const struct cs_workload wl_generic = {
    .name = "test", .system = "cpu", .help = "test", .cpu = host_generic};

/* Builds system cpu from base_cfg plus overrides and runs x's program; keeps the system for
 * its statistics. */
static void run(struct sysrun *r, struct tst *x, const char *const *sets)
{
	sysrun_start(r, base_cfg, &wl_generic, x, -1, sets);
}

/* ---- store-to-load forwarding ------------------------------------------------------------------ */

static void fwd_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	ct_st(t, x->a, 4, 0x11223344);
	x->v[0] = ct_ld(t, x->a, 4);	 /* the whole store */
	x->v[1] = ct_ld(t, x->a + 2, 1); /* one byte of it */
	ct_st(t, x->a, 4, 0x55667788);	 /* the youngest store wins */
	x->v[2] = ct_ld(t, x->a, 2);
	ct_st(t, x->b, 2, 0xbeef);
	x->v[3] = ct_ld(t, x->b, 8); /* covers more than the store: waits for it to drain */
}

START_TEST(test_forwarding)
{
	struct tst x = {.threads = 1, .fn = fwd_thread};
	struct sysrun r;

	run(&r, &x, NULL);
	ck_assert_uint_eq(x.v[0], 0x11223344);
	ck_assert_uint_eq(x.v[1], 0x22);
	ck_assert_uint_eq(x.v[2], 0x7788);
	ck_assert_uint_eq(x.v[3], 0xbeef);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.forwards"), 3);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.partial_waits"), 1);
	/* only the partial load went to memory */
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.loads"), 1);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.stores"), 3);
	sysrun_end(&r);
}
END_TEST

/* ---- MFENCE empties the buffer ------------------------------------------------------------------ */

static void fence_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	ct_st(t, x->a, 4, 7);
	ct_st(t, x->b, 4, 9);
	ct_mfence(t);
	x->v[0] = ct_ld(t, x->a, 4);
	x->v[1] = ct_ld(t, x->b, 4);
}

START_TEST(test_mfence_drains)
{
	struct tst x = {.threads = 1, .fn = fence_thread};
	struct sysrun r;

	run(&r, &x, NULL);
	ck_assert_uint_eq(x.v[0], 7);
	ck_assert_uint_eq(x.v[1], 9);
	/* nothing left to forward from: both loads read memory */
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.forwards"), 0);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.loads"), 2);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.fences"), 1);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.stall.drain"), 1);
	sysrun_end(&r);
}
END_TEST

/* ---- litmus shapes under jitter ------------------------------------------------------------------ */

static const char *sb_x86 = "X86 SB\n{ }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n"
			    " MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
static const char *sbf_x86 = "X86 SB+mfences\n{ }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n"
			     " MFENCE | MFENCE ;\n"
			     " MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
static const char *mp_x86 = "X86 MP\n{ }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[y] ;\n"
			    " MOV [y],$1 | MOV EBX,[x] ;\nexists (1:EAX=1 /\\ 1:EBX=0)\n";

static void litmus(const char *text, uint64_t iterations, uint64_t seed, struct litmus_result *res)
{
	struct litmus_test *t = NULL;
	struct cs_config *cfg = NULL;
	struct cs_err err = {0};
	struct litmus_opts o;
	char set[64];

	if (litmus_parse_string(text, "t.litmus", &t, &err))
		ck_abort_msg("parse: %s", err.msg);
	litmus_opts_default(&o);
	o.iterations = iterations;
	if (cs_config_open_string(base_cfg, "test", &cfg, &err))
		ck_abort_msg("config: %s", err.msg);
	snprintf(set, sizeof(set), "sim.seed=%" PRIu64, seed);
	if (cs_config_set(cfg, set, &err))
		ck_abort_msg("set: %s", err.msg);
	if (litmus_run(t, cfg, &o, res, &err))
		ck_abort_msg("litmus: %s", err.msg);
	ck_assert_uint_eq(res->iterations, iterations);
	ck_assert_uint_eq(res->model, LIT_MODEL_TSO);
	litmus_free(t);
	cs_config_close(cfg);
}

START_TEST(test_sb_relaxed_and_fenced)
{
	struct litmus_result r;

	litmus(sb_x86, 1000, 1, &r);
	ck_assert_uint_gt(r.condition_count, 0); /* the store buffer's outcome */
	ck_assert_uint_eq(r.noutcomes, 4);	 /* and the three SC ones */
	litmus_result_free(&r);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		litmus(sbf_x86, 1000, seed, &r);
		ck_assert_uint_eq(r.condition_count, 0);
		ck_assert_uint_eq(r.noutcomes, 3);
		litmus_result_free(&r);
	}
}
END_TEST

START_TEST(test_mp_never)
{
	struct litmus_result r;

	for (uint64_t seed = 1; seed <= 3; seed++) {
		litmus(mp_x86, 1500, seed, &r);
		ck_assert_uint_eq(r.condition_count, 0);
		ck_assert_uint_eq(r.noutcomes, 3); /* every allowed outcome, so the race is real */
		litmus_result_free(&r);
	}
}
END_TEST

/* ---- stores become visible in program order -------------------------------------------------- */

static void order_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);
	uint64_t spins = 0;

	if (ct_id(t) == 0) {
		for (uint64_t i = 1; i <= x->n; i++) {
			ct_st(t, x->a, 4, i); /* x then y */
			ct_st(t, x->b, 4, i);
			ct_compute(t, ct_rand(t) % 3);
		}
		return;
	}
	for (;;) {
		uint64_t y = ct_ld(t, x->b, 4), v = ct_ld(t, x->a, 4);

		if (v < y) {
			ct_fail(t, "saw y=%" PRIu64 " then x=%" PRIu64, y, v);
			return;
		}
		x->seen += y > 0 && y < x->n; /* a store in flight, not the end state */
		if (y == x->n || ct_spin_guard(t, &spins))
			return;
		ct_compute(t, ct_rand(t) % 5);
	}
}

START_TEST(test_store_order)
{
	struct tst x = {.threads = 4, .fn = order_thread, .n = 400, .rounds = 3};
	struct sysrun r;

	run(&r, &x, NULL);
	ck_assert_uint_gt(x.seen, 100);
	sysrun_end(&r);
}
END_TEST

/* ---- the store buffer's bound ----------------------------------------------------------------- */

static void burst_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	for (uint64_t i = 0; i < x->n; i++)
		ct_st(t, x->a + 8 * (i % 8), 8, i);
}

START_TEST(test_store_buffer_bound)
{
	static const char *const small[] = {"cpu.store_buffer=2", NULL};
	static const char *const big[] = {"cpu.store_buffer=16", NULL};
	struct tst x = {.threads = 1, .fn = burst_thread, .n = 10};
	struct sysrun r;

	/* one store per cycle in, one per port round trip (20 cycles) out: every store beyond
	 * the buffer's 2 entries finds it full */
	run(&r, &x, small);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.stalls"), 8);
	ck_assert_int_gt((int)sysrun_stat(&r, "cpu.core0.sb.stall_cycles"), 0);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.drained"), 10);
	sysrun_end(&r);
	run(&r, &x, big);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.stalls"), 0);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.stall_cycles"), 0);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.peak_inflight"),
			 1); /* one at a time */
	sysrun_end(&r);
}
END_TEST

/* ---- the load window -------------------------------------------------------------------------- */

static void ldv_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);
	uint64_t addr[32], out[32];

	for (unsigned i = 0; i < 32; i++)
		addr[i] = x->a + 8 * (i % 8);
	ct_ldv(t, addr, 32, 8, out);
	for (unsigned i = 0; i < 32; i++)
		x->v[i] = out[i];
}

START_TEST(test_mlp_window)
{
	static const char *const w4[] = {"cpu.mlp=4", NULL};
	static const char *const w16[] = {"cpu.mlp=16", NULL};
	struct tst x = {.threads = 1, .fn = ldv_thread};
	struct sysrun r;

	run(&r, &x, w4);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.peak_inflight"), 4);
	ck_assert_int_gt((int)sysrun_stat(&r, "cpu.core0.stall.mlp"), 0);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.loads"), 32);
	sysrun_end(&r);
	run(&r, &x, w16);
	/* a load issues per cycle and the port answers in 20: 16 in flight at the peak */
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.peak_inflight"), 16);
	sysrun_end(&r);
}
END_TEST

/* A port that holds one access refuses the rest; the core offers them again on retry, the
 * store buffer's head and the loads alike, and every value still comes back. */
static void refuse_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);
	uint64_t addr[8], out[8];

	for (unsigned i = 0; i < 8; i++) {
		ct_st(t, x->b + 8 * i, 8, 100 + i);
		addr[i] = x->a + 8 * i;
	}
	ct_ldv(t, addr, 8, 8, out);
	ct_mfence(t);
	for (unsigned i = 0; i < 8; i++)
		x->v[i] = ct_ld(t, x->b + 8 * i, 8) + out[i];
}

START_TEST(test_port_refusals)
{
	static const char *const q1[] = {"idealmem.queue=1", NULL};
	struct tst x = {.threads = 1, .fn = refuse_thread};
	struct sysrun r;

	run(&r, &x, q1);
	for (unsigned i = 0; i < 8; i++)
		ck_assert_uint_eq(x.v[i], 100 + i);
	ck_assert_int_gt((int)sysrun_stat(&r, "cpu.core0.mem.refused"), 0);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.refused"),
			 (int)sysrun_stat(&r, "cpu.core0.stall.refused"));
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.mem.peak_inflight"), 1);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.sb.drained"), 8);
	sysrun_end(&r);
}
END_TEST

/* ---- the clock -------------------------------------------------------------------------------- */

static void compute_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	x->cycles[0] = ct_cycle(t);
	ct_compute(t, x->n);
	x->cycles[1] = ct_cycle(t);
}

START_TEST(test_clock)
{
	static const char *const ghz35[] = {"cpu.clock_mhz=3500", NULL};
	static const char *const ghz1[] = {"cpu.clock_mhz=1000", NULL};
	struct tst x = {.threads = 1, .fn = compute_thread, .n = 3500};
	struct sysrun r;

	run(&r, &x, ghz35);
	ck_assert_uint_eq(x.cycles[1] - x.cycles[0], 3500);
	ck_assert_uint_eq(sim_now(r.sys->k), SIM_US); /* 3500 cycles at 3.5 GHz */
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core0.compute_cycles"), 3500);
	sysrun_end(&r);
	run(&r, &x, ghz1);
	ck_assert_uint_eq(x.cycles[1] - x.cycles[0], 3500);
	ck_assert_uint_eq(sim_now(r.sys->k), 3500 * SIM_NS);
	sysrun_end(&r);
}
END_TEST

/* ---- atomics ---------------------------------------------------------------------------------- */

static void add_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	for (uint64_t i = 0; i < x->n; i++) {
		ct_st(t, x->b + 8 * ct_id(t), 4, i); /* something to drain first */
		(void)ct_atomic(t, MEM_ATOM_ADD, x->a, 4, 1, 0);
		ct_compute(t, ct_rand(t) % 4);
	}
}

static int host_atomics(struct cpu_host *h)
{
	struct tst *x = ch_arg(h);
	struct cpu_program p = {.name = "add", .threads = 4, .fn = add_thread, .args = x};
	int rc;

	x->a = ch_alloc(h, 64, 64);
	x->b = ch_alloc(h, 64, 64);
	rc = ch_run(h, &p);
	x->v[0] = ch_read32(h, x->a);
	return rc;
}

static void ops_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	ct_st(t, x->a, 8, 10);
	x->v[0] = ct_atomic(t, MEM_ATOM_EXCH, x->a, 8, 20, 0);	      /* 10, now 20 */
	x->v[1] = ct_atomic(t, MEM_ATOM_CAS, x->a, 8, 99, 30);	      /* 20, unchanged */
	x->v[2] = ct_atomic(t, MEM_ATOM_CAS, x->a, 8, 20, 30);	      /* 20, now 30 */
	x->v[3] = ct_atomic(t, MEM_ATOM_MIN, x->a, 8, 5, 0);	      /* 30, now 5 */
	x->v[4] = ct_atomic(t, MEM_ATOM_MAX, x->a, 8, 50, 0);	      /* 5, now 50 */
	x->v[5] = ct_atomic(t, MEM_ATOM_ADD, x->a + 1, 1, 0x1ff, 0);  /* byte 1: 0, now 0xff */
	x->v[6] = ct_ld(t, x->a, 8);				      /* 0xff32 */
	x->v[7] = ct_atomic(t, MEM_ATOM_ADD, x->a + 2, 2, 0xffff, 0); /* 0, now 0xffff */
}

START_TEST(test_atomics)
{
	static const struct cs_workload wl = {
	    .name = "test", .system = "cpu", .help = "test", .cpu = host_atomics};
	struct cs_run_opts ro = {.mode = -1, .custom = &wl};
	struct tst x = {.n = 250};
	struct cs_err err = {0};
	struct sysrun r = {0};

	ro.arg = &x;
	ck_assert_int_eq(cs_config_open_string(base_cfg, "test", &r.cfg, &err), 0);
	ck_assert_int_eq(cs_system_create(r.cfg, &ro, &r.sys, &err), 0);
	ck_assert_msg(cs_system_run(r.sys, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(x.v[0], 4 * 250);
	ck_assert_int_eq((int)sysrun_stat(&r, "cpu.core2.atomics"), 250);
	ck_assert_int_gt((int)sysrun_stat(&r, "cpu.core2.stall.drain"),
			 0); /* the store before it */
	sysrun_end(&r);

	memset(&x, 0, sizeof(x));
	x.threads = 1;
	x.fn = ops_thread;
	run(&r, &x, NULL);
	ck_assert_uint_eq(x.v[0], 10);
	ck_assert_uint_eq(x.v[1], 20);
	ck_assert_uint_eq(x.v[2], 20);
	ck_assert_uint_eq(x.v[3], 30);
	ck_assert_uint_eq(x.v[4], 5);
	ck_assert_uint_eq(x.v[5], 0);
	ck_assert_uint_eq(x.v[6], 0xff32);
	ck_assert_uint_eq(x.v[7], 0);
	sysrun_end(&r);
}
END_TEST

/* ---- errors ----------------------------------------------------------------------------------- */

static void misaligned_thread(struct cpu_thread *t)
{
	struct tst *x = (struct tst *)ct_args(t);

	(void)ct_ld(t, x->a + 2, 4);
}

START_TEST(test_errors)
{
	struct tst x = {.threads = 1, .fn = misaligned_thread};
	struct cs_run_opts ro = {.mode = -1, .custom = &wl_generic, .arg = &x};
	struct cs_err err = {0};
	struct sysrun r = {0};

	ck_assert_int_eq(cs_config_open_string(base_cfg, "test", &r.cfg, &err), 0);
	ck_assert_int_eq(cs_system_create(r.cfg, &ro, &r.sys, &err), 0);
	ck_assert_int_eq(cs_system_run(r.sys, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, "not 1, 2, 4 or 8 bytes naturally aligned"), "%s", err.msg);
	sysrun_end(&r);
	/* more threads than cores */
	x.threads = 5;
	x.fn = fence_thread;
	ck_assert_int_eq(cs_config_open_string(base_cfg, "test", &r.cfg, &err), 0);
	ck_assert_int_eq(cs_system_create(r.cfg, &ro, &r.sys, &err), 0);
	ck_assert_int_eq(cs_system_run(r.sys, &err), -CS_ECONFIG);
	ck_assert_msg(strstr(err.msg, "5 threads on 4 cores"), "%s", err.msg);
	sysrun_end(&r);
}
END_TEST

/* ---- the registered workloads verify themselves ----------------------------------------------- */

START_TEST(test_workloads)
{
	static const char *const names[] = {"cpu_count", "cpu_mp"};

	for (unsigned i = 0; i < 2; i++) {
		struct cs_run_opts ro = {.mode = -1, .workload = names[i]};
		struct cs_err err = {0};
		struct sysrun r = {0};

		ck_assert_int_eq(cs_config_open_string(base_cfg, "test", &r.cfg, &err), 0);
		ck_assert_msg(cs_system_create(r.cfg, &ro, &r.sys, &err) == 0, "%s", err.msg);
		ck_assert_msg(cs_system_run(r.sys, &err) == 0, "%s: %s", names[i], err.msg);
		sysrun_end(&r);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpu");
	TCase *tc = tcase_create("tso");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_forwarding);
	tcase_add_test(tc, test_mfence_drains);
	tcase_add_test(tc, test_sb_relaxed_and_fenced);
	tcase_add_test(tc, test_mp_never);
	tcase_add_test(tc, test_store_order);
	tcase_add_test(tc, test_store_buffer_bound);
	tcase_add_test(tc, test_mlp_window);
	tcase_add_test(tc, test_port_refusals);
	tcase_add_test(tc, test_clock);
	tcase_add_test(tc, test_atomics);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_workloads);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
