/*
 * tests/unit/test_gpu.c - the GPU memory system end to end (tlm/system/gpu.c and below).
 *
 * Unloaded latency of each path equals the sum of the configured parts exactly; a DRAM-bound
 * stream saturates at the channel's peak and no higher; tiny queues everywhere back-pressure
 * without losing a message; the coherence checker stays silent under `none`; two runs give the
 * same statistics.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/system/system.h"
#include "util/config.h"
#include "workloads/gpu_api.h"
#include "workloads/workload.h"

/* All clocks 1 GHz (whole-ps edges) unless a test says otherwise. */
static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 1; check = true; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 5000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 1; clock_mhz = 1000; latency = 50; };\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

struct run {
	struct cs_config *cfg;
	struct cs_system *sys;
};

static void run_start(struct run *r, const char *text, const char *const *sets,
		      const struct cs_workload *wl)
{
	struct cs_err err = {0};

	memset(r, 0, sizeof(*r));
	if (cs_config_open_string(text, "test", &r->cfg, &err))
		ck_abort_msg("config: %s", err.msg);
	for (unsigned i = 0; sets && sets[i]; i++)
		if (cs_config_set(r->cfg, sets[i], &err))
			ck_abort_msg("--set %s: %s", sets[i], err.msg);
	if (cs_system_create(r->cfg, NULL, &r->sys, &err))
		ck_abort_msg("build: %s", err.msg);
	if (wl)
		r->sys->workload = wl;
}

static int run_go(struct run *r, char *msg, size_t len)
{
	struct cs_err err = {0};
	int rc = cs_system_run(r->sys, &err);

	if (msg)
		snprintf(msg, len, "%s", err.msg);
	return rc;
}

static void run_end(struct run *r)
{
	cs_system_destroy(r->sys);
	cs_config_close(r->cfg);
}

static double stat(struct run *r, const char *name)
{
	double v = -1;

	ck_assert_msg(cs_stats_value(r->sys->stats, name, &v) == 0, "no stat %s", name);
	return v;
}

/* ---- path latencies -------------------------------------------------------------------------- */

#define PROBES 8

struct probe_args {
	uint64_t addr[PROBES];
	unsigned n;
	uint64_t took[PROBES]; /* cycles from issue to the value */
	uint32_t val[PROBES];
};

static struct probe_args probe;

static void probe_kernel(struct gpu_warp *w)
{
	struct probe_args *a = (struct probe_args *)gw_args(w);

	for (unsigned i = 0; i < a->n; i++) {
		uint64_t t0 = gw_cycle(w);

		a->val[i] = gw_ld32(w, a->addr[i]);
		a->took[i] = gw_cycle(w) - t0;
	}
}

static int probe_host(struct gpu_host *h)
{
	struct gpu_kernel k = {
	    .name = "probe", .ctas = 1, .warps_per_cta = 1, .fn = probe_kernel, .args = &probe};

	for (unsigned i = 0; i < probe.n; i++)
		gh_write32(h, probe.addr[i], 1000 + i);
	return gh_launch(h, &k);
}

static const struct cs_workload probe_wl = {.name = "probe", .system = "gpu", .gpu = probe_host};

/* Channel-local = global with one bank; DRAM row index r = addr / row_bytes, bank = r % banks. */
static uint64_t dram_addr(unsigned bank, unsigned row, unsigned col)
{
	return ((uint64_t)row * 16 + bank) * 4096 + col;
}

/* The parts, from the configuration above and the defaults (noc: header 8 B, 32 B flits,
 * router 2 + link 1 cycles; DRAM GDDR5: tCL = tRCD = tRP = 12, tCCD 2, 8-beat bursts at 4
 * beats per clock on 8 B: a 128 B line is 2 bursts of 2 cycles). */
enum {
	NOC_REQ = 1 * (2 + 1) + 1 - 1,	/* crossbar: 1 router stage; 8 B header = 1 flit */
	NOC_RESP = 1 * (2 + 1) + 5 - 1, /* 8 + 128 B = 5 flits */
	L2_TAG = 50,
	L1_HIT = 20,
	DRAM_HIT = 12 + (2 - 1) * 2 + 2,  /* tCL + (bursts - 1) * max(tCCD, burst) + burst */
	DRAM_CLOSED = 12 + DRAM_HIT,	  /* + tRCD */
	DRAM_CONFLICT = 12 + DRAM_CLOSED, /* + tRP */
	FILL = 1,			  /* the L2 answers the cycle after its fill */
};

START_TEST(test_latency_paths_no_l1)
{
	struct run r;
	uint64_t want[4] = {
	    NOC_REQ + L2_TAG + DRAM_CLOSED + FILL + NOC_RESP,	/* first touch of bank 0 */
	    NOC_REQ + L2_TAG + NOC_RESP,			/* L2 hit */
	    NOC_REQ + L2_TAG + DRAM_HIT + FILL + NOC_RESP,	/* next line, same row */
	    NOC_REQ + L2_TAG + DRAM_CONFLICT + FILL + NOC_RESP, /* another row, same bank */
	};
	const char *sets[] = {"coherence.protocol=none", NULL};

	memset(&probe, 0, sizeof(probe));
	probe.n = 4;
	probe.addr[0] = dram_addr(0, 16, 0);
	probe.addr[1] = dram_addr(0, 16, 0);
	probe.addr[2] = dram_addr(0, 16, 128);
	probe.addr[3] = dram_addr(0, 17, 0);
	run_start(&r, base_cfg, sets, &probe_wl);
	ck_assert_int_eq(run_go(&r, NULL, 0), 0);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_msg(probe.took[i] == want[i],
			      "path %u: %" PRIu64 " cycles, want %" PRIu64, i, probe.took[i],
			      want[i]);
		ck_assert_uint_eq(probe.val[i], i < 2 ? 1001 : 1000 + i);
	}
	ck_assert_double_eq(stat(&r, "gpu.dram0.row_hits"), 1);
	ck_assert_double_eq(stat(&r, "gpu.dram0.row_conflicts"), 1);
	run_end(&r);
}
END_TEST

START_TEST(test_latency_l1_hit)
{
	struct run r;
	const char *sets[] = {"coherence.protocol=noncoherent", NULL};

	memset(&probe, 0, sizeof(probe));
	probe.n = 3;
	probe.addr[0] = dram_addr(2, 3, 64);
	probe.addr[1] = dram_addr(2, 3, 68); /* same line: L1 hit */
	probe.addr[2] = dram_addr(2, 3, 64);
	run_start(&r, base_cfg, sets, &probe_wl);
	ck_assert_int_eq(run_go(&r, NULL, 0), 0);
	ck_assert_uint_eq(probe.took[0], NOC_REQ + L2_TAG + DRAM_CLOSED + FILL + NOC_RESP);
	ck_assert_uint_eq(probe.took[1], L1_HIT);
	ck_assert_uint_eq(probe.took[2], L1_HIT);
	ck_assert_uint_eq(probe.val[1], 1001);
	ck_assert_double_eq(stat(&r, "gpu.sm0.l1.load_hits"), 2);
	run_end(&r);
}
END_TEST

/* The L2's clock is its own: at 500 MHz its latency counts double and arrivals wait for its
 * next edge (the request arrives at an odd core cycle: 3, and enters at 4). */
START_TEST(test_latency_l2_clock_domain)
{
	struct run r;
	const char *sets[] = {"coherence.protocol=none", "l2.clock_mhz=500", NULL};

	memset(&probe, 0, sizeof(probe));
	probe.n = 2;
	probe.addr[0] = dram_addr(1, 5, 0);
	probe.addr[1] = dram_addr(1, 5, 0);
	run_start(&r, base_cfg, sets, &probe_wl);
	ck_assert_int_eq(run_go(&r, NULL, 0), 0);
	/* second probe starts at an even or odd cycle; compute its alignment from the first */
	{
		uint64_t start = probe.took[0]; /* issue of probe 1 (probe 0 issued at 0) */
		uint64_t arrive = start + NOC_REQ;
		uint64_t enter = (arrive + 1) / 2 * 2;
		uint64_t want = enter + 2 * L2_TAG + NOC_RESP - start;

		ck_assert_msg(probe.took[1] == want,
			      "L2 hit at 500 MHz: %" PRIu64 ", want %" PRIu64, probe.took[1], want);
	}
	run_end(&r);
}
END_TEST

/* ---- bandwidth ------------------------------------------------------------------------------- */

struct sweep_args {
	uint64_t base;
	uint64_t lines;
	uint64_t out;
};

static struct sweep_args sweep;

static void sweep_kernel(struct gpu_warp *w)
{
	const struct sweep_args *a = gw_args(w);
	uint64_t nw = (uint64_t)gw_ctas(w) * gw_warps_per_cta(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];
	uint32_t sum = 0;

	for (uint64_t l = gw_gwid(w); l < a->lines; l += nw) {
		for (unsigned i = 0; i < WARP_LANES; i++)
			addr[i] = a->base + l * 128 + i * 4;
		gw_ld32v(w, addr, LANES_ALL, v);
		for (unsigned i = 0; i < WARP_LANES; i++)
			sum += v[i];
	}
	gw_atom(w, MEM_ATOM_ADD, a->out, 4, sum, 0, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
}

static int sweep_host(struct gpu_host *h)
{
	struct gpu_kernel k = {
	    .name = "sweep", .ctas = 8, .warps_per_cta = 24, .fn = sweep_kernel, .args = &sweep};
	uint32_t *init = calloc(sweep.lines * 32, 4);
	uint64_t want = 0;
	int rc;

	if (!init)
		return -1;
	sweep.base = gh_alloc(h, sweep.lines * 128, 4096);
	sweep.out = gh_alloc(h, 4, 0);
	for (uint64_t i = 0; i < sweep.lines * 32; i++) {
		init[i] = (uint32_t)(i * 2654435761u);
		want += init[i];
	}
	gh_write(h, sweep.base, init, sweep.lines * 128);
	free(init);
	rc = gh_launch(h, &k);
	if (!rc && gh_read32(h, sweep.out) != (uint32_t)want)
		rc = gh_fail(h, "sweep: sum %u, want %u", gh_read32(h, sweep.out), (uint32_t)want);
	return rc;
}

static const struct cs_workload sweep_wl = {.name = "sweep", .system = "gpu", .gpu = sweep_host};

START_TEST(test_dram_bandwidth_saturates)
{
	/* one channel at 1 GHz x 4 beats x 8 B = 32 GB/s; the NoC (64 B flits) and the L2 (one
	 * request per cycle, 128 MSHRs) have headroom, so DRAM is the bottleneck */
	const char *sets[] = {"coherence.protocol=none",
			      "gpu.sms=4",
			      "gpu.check=false",
			      "noc.flit_bytes=64",
			      "l2.mshrs=128",
			      "l2.mshr_merge=4",
			      "l2.size_kib=64",
			      NULL};
	struct run r;
	double bytes, secs, peak = 32e9, bw;

	sweep.lines = 16384; /* 2 MiB, far more than the L2 */
	run_start(&r, base_cfg, sets, &sweep_wl);
	ck_assert_int_eq(run_go(&r, NULL, 0), 0);
	bytes = stat(&r, "gpu.dram0.bytes_read");
	ck_assert_double_ge(bytes, 16384 * 128);
	secs = (double)sim_now(r.sys->k) / 1e12;
	bw = bytes / secs;
	ck_assert_msg(bw <= peak * 1.0000001, "DRAM moved %.3g B/s, above its peak %.3g", bw, peak);
	ck_assert_msg(bw >= 0.95 * peak, "a DRAM-bound stream reached only %.1f%% of peak",
		      100 * bw / peak);
	run_end(&r);
}
END_TEST

/* Every queue in the path one deep (the NoC's buffers one packet): the same values come back,
 * nothing leaks (the run checks that the message pool is empty and every part idle). */
START_TEST(test_backpressure_loses_nothing)
{
	const char *sets[] = {"coherence.protocol=noncoherent",
			      "gpu.sms=4",
			      "l2.banks=2",
			      "l1.miss_queue=1",
			      "l1.mshrs=2",
			      "l1.mshr_merge=1",
			      "l2.input_queue=1",
			      "l2.response_queue=1",
			      "l2.dram_queue=1",
			      "l2.mshrs=2",
			      "l2.mshr_merge=1",
			      "dram.queue=1",
			      "noc.buffer_flits=5",
			      "core.ldst_queue=32",
			      NULL};
	struct run r;
	char msg[512];

	sweep.lines = 2048;
	run_start(&r, base_cfg, sets, &sweep_wl);
	ck_assert_msg(run_go(&r, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_double_gt(
	    stat(&r, "gpu.sm0.l1.stall.miss_queue") + stat(&r, "gpu.sm0.l1.stall.mshr_full"), 0);
	ck_assert_double_gt(stat(&r, "gpu.l2.bank0.stall.mshr_full") +
				stat(&r, "gpu.l2.bank0.stall.merge_full") +
				stat(&r, "gpu.l2.bank0.stall.response_queue") +
				stat(&r, "gpu.l2.bank0.stall.dram_queue"),
			    0);
	ck_assert_double_eq(stat(&r, "gpu.coherence_check.violations"), 0);
	run_end(&r);
}
END_TEST

/* ---- microbenchmarks under the checker ------------------------------------------------------- */

static void run_named(const char *workload, const char *protocol, int want_rc, char *msg,
		      size_t len, double *violations)
{
	char w[96], p[96];
	const char *sets[] = {w, p, "gpu.sms=4", "l2.banks=4", NULL};
	struct run r;
	int rc;

	snprintf(w, sizeof(w), "system.workload=%s", workload);
	snprintf(p, sizeof(p), "coherence.protocol=%s", protocol);
	run_start(&r, base_cfg, sets, NULL);
	rc = run_go(&r, msg, len);
	ck_assert_msg(want_rc ? rc != 0 : rc == 0, "%s under %s: %d %s", workload, protocol, rc,
		      msg);
	if (violations)
		*violations = stat(&r, "gpu.coherence_check.violations");
	run_end(&r);
}

START_TEST(test_micro_correct_without_l1)
{
	static const char *const names[] = {"stream", "streamw", "chase", "prodcons",
					    "lock",   "barrier", "histo"};
	char msg[512];
	double v;

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		run_named(names[i], "none", 0, msg, sizeof(msg), &v);
		ck_assert_msg(v == 0, "%s: %g coherence violations", names[i], v);
	}
}
END_TEST

START_TEST(test_noncoherent_reads_stale)
{
	char msg[512];

	run_named("prodcons", "noncoherent", 1, msg, sizeof(msg), NULL);
	ck_assert_msg(strstr(msg, "stale"), "message does not say stale: %s", msg);
	run_named("barrier", "noncoherent", 1, msg, sizeof(msg), NULL);
	ck_assert_msg(strstr(msg, "livelock") || strstr(msg, "stale"), "%s", msg);
	/* programs without inter-SM communication are fine with a non-coherent L1 */
	run_named("stream", "noncoherent", 0, msg, sizeof(msg), NULL);
	run_named("histo", "noncoherent", 0, msg, sizeof(msg), NULL);
}
END_TEST

START_TEST(test_same_seed_same_stats)
{
	const char *sets[] = {"coherence.protocol=noncoherent", "gpu.sms=4", "l2.banks=2",
			      "system.workload=histo", NULL};
	char *js[2];

	for (unsigned i = 0; i < 2; i++) {
		struct run r;

		run_start(&r, base_cfg, sets, NULL);
		ck_assert_int_eq(run_go(&r, NULL, 0), 0);
		{
			json_t *j = cs_stats_to_json(r.sys->stats);

			js[i] = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
			json_decref(j);
		}
		run_end(&r);
	}
	ck_assert_str_eq(js[0], js[1]);
	free(js[0]);
	free(js[1]);
}
END_TEST

/* ---- warp scheduling ------------------------------------------------------------------------- */

#define SCH_WARPS 4
#define SCH_OPS	  300

/* Warp 0 loads a line from DRAM, then every warp computes SCH_OPS single cycles; t[w][i] is the
 * cycle warp w's i-th compute ended (its issue cycle + 1). One scheduler, so one warp issues a
 * cycle and the order is the policy's. */
struct sched_args {
	uint64_t addr, load_back;
	uint64_t t[SCH_WARPS][SCH_OPS];
};

static struct sched_args sched;

static void sched_kernel(struct gpu_warp *w)
{
	struct sched_args *a = (struct sched_args *)gw_args(w);
	unsigned me = gw_warp(w);

	if (me == 0) {
		(void)gw_ld32(w, a->addr);
		a->load_back = gw_cycle(w);
	}
	for (unsigned i = 0; i < SCH_OPS; i++) {
		gw_compute(w, 1);
		a->t[me][i] = gw_cycle(w);
	}
}

static int sched_host(struct gpu_host *h)
{
	struct gpu_kernel k = {.name = "sched",
			       .ctas = 1,
			       .warps_per_cta = SCH_WARPS,
			       .fn = sched_kernel,
			       .args = &sched};

	return gh_launch(h, &k);
}

static const struct cs_workload sched_wl = {.name = "sched", .system = "gpu", .gpu = sched_host};

static bool back_to_back(unsigned w)
{
	for (unsigned i = 1; i < SCH_OPS; i++)
		if (sched.t[w][i] != sched.t[w][i - 1] + 1)
			return false;
	return true;
}

static uint64_t first(unsigned w)
{
	return sched.t[w][0];
}

static uint64_t last(unsigned w)
{
	return sched.t[w][SCH_OPS - 1];
}

/* The three policies on the same kernel. lrr: every ready warp gets its turn, so warps 1-3
 * interleave and warp 0 mixes in once its load is back. gto: warp 1 (the oldest ready while
 * warp 0 waits) keeps issuing to its end although warp 0 was ready long before; then warp 0,
 * then 2, then 3. oldest: warp 0 takes the scheduler back the cycle it is ready and runs to its
 * end, interrupting warp 1; warps finish in launch order. */
START_TEST(test_scheduler_order)
{
	static const char *const pol[3] = {"core.scheduler=lrr", "core.scheduler=gto",
					   "core.scheduler=oldest"};
	const char *sets[] = {"core.schedulers=1", "coherence.protocol=noncoherent", pol[_i], NULL};
	struct run r;

	memset(&sched, 0, sizeof(sched));
	sched.addr = 1u << 20;
	run_start(&r, base_cfg, sets, &sched_wl);
	ck_assert_int_eq(run_go(&r, NULL, 0), 0);
	run_end(&r);
	/* the load took a while: warp 1 was still computing when it came back */
	ck_assert_uint_gt(sched.load_back, first(1) + 50);
	ck_assert_uint_lt(sched.load_back, first(1) + SCH_OPS);
	switch (_i) {
	case 0: /* lrr */
		ck_assert(!back_to_back(1));
		ck_assert_uint_lt(first(2), last(1));
		ck_assert_uint_lt(first(3), last(1));
		ck_assert_uint_lt(first(0), last(1));
		ck_assert_uint_gt(last(0), last(3)); /* warp 0 started late, ends last */
		break;
	case 1: /* gto */
		ck_assert(back_to_back(1));
		ck_assert_uint_gt(first(0), last(1));
		ck_assert(back_to_back(0));
		ck_assert_uint_gt(first(2), last(0));
		ck_assert(back_to_back(2));
		ck_assert_uint_gt(first(3), last(2));
		break;
	case 2: /* oldest */
		ck_assert(back_to_back(0));
		ck_assert_uint_le(first(0), sched.load_back + 2);
		ck_assert_uint_lt(first(1), first(0));
		ck_assert_uint_gt(last(1), last(0));
		ck_assert(!back_to_back(1));
		ck_assert_uint_gt(first(2), last(1));
		ck_assert_uint_gt(first(3), last(2));
		break;
	}
}
END_TEST

static Suite *gpu_suite(void)
{
	Suite *s = suite_create("gpu");
	TCase *t = tcase_create("gpu");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_latency_paths_no_l1);
	tcase_add_test(t, test_latency_l1_hit);
	tcase_add_test(t, test_latency_l2_clock_domain);
	tcase_add_test(t, test_dram_bandwidth_saturates);
	tcase_add_test(t, test_backpressure_loses_nothing);
	tcase_add_test(t, test_micro_correct_without_l1);
	tcase_add_test(t, test_noncoherent_reads_stale);
	tcase_add_test(t, test_same_seed_same_stats);
	tcase_add_loop_test(t, test_scheduler_order, 0, 3);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gpu_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
