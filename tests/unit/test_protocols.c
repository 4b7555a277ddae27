/*
 * tests/unit/test_protocols.c - directed tests of the coherence protocols' transitions.
 *
 * Each test runs a script: warps pinned to SMs perform loads, stores and fences at given
 * cycles and read the protocol's state of a line (gh_probe_l1, gh_probe_l2) between them. The
 * expected values follow from the rules in docs/protocols/: G-TSC's read, write and fill rules
 * (the paper's Fig. 9 example), the update-visibility hazard (Fig. 10), request combining with
 * a renewal (Fig. 11), the timestamp overflow reset; TC-Strong's write held until the lease
 * ends, TC-Weak's fence held until GWCT, and TC's delayed L2 eviction.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "tlm/system/system.h"
#include "util/config.h"
#include "workloads/gpu_api.h"
#include "workloads/workload.h"

/* All clocks 1 GHz: one cycle is 1000 ps everywhere. */
static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 2; check = true; };\n"
    "core = { clock_mhz = 1000; consistency = \"sc\"; schedulers = 4; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 1; clock_mhz = 1000; latency = 50; };\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

enum step_kind { S_END = 0, S_LD, S_ST, S_FENCE, S_PROBE_L1, S_PROBE_L2 };

struct step {
	uint64_t at; /* not before this cycle */
	uint8_t kind;
	uint8_t loc;
	uint32_t val;
};

#define MAX_WARPS 4
#define MAX_STEPS 64

struct script {
	const struct step *steps[MAX_WARPS]; /* per global warp id */
	uint16_t cta_sm[MAX_WARPS];
	unsigned ctas, warps_per_cta;
	/* results, per warp and step */
	uint64_t val[MAX_WARPS][MAX_STEPS];
	uint64_t done[MAX_WARPS][MAX_STEPS];
	uint64_t probe[MAX_WARPS][MAX_STEPS][3];
	bool present[MAX_WARPS][MAX_STEPS];
	/* set by the host */
	struct gpu_host *h;
	uint64_t base;
};

static struct script sc;

static uint64_t loc_addr(unsigned loc)
{
	return sc.base + (uint64_t)loc * 128;
}

static void script_kernel(struct gpu_warp *w)
{
	unsigned id = (unsigned)gw_gwid(w);
	const struct step *st = sc.steps[id];

	for (unsigned i = 0; st && st[i].kind != S_END; i++) {
		const struct step *s = &st[i];
		uint64_t now = gw_cycle(w);

		if (now < s->at)
			gw_compute(w, s->at - now);
		switch (s->kind) {
		case S_LD:
			sc.val[id][i] = gw_ld32(w, loc_addr(s->loc));
			break;
		case S_ST:
			gw_st32(w, loc_addr(s->loc), s->val);
			break;
		case S_FENCE:
			gw_fence(w, MEM_ORDER_ACQ_REL, MEM_SCOPE_DEVICE);
			break;
		case S_PROBE_L1:
			sc.present[id][i] = gh_probe_l1(sc.h, gw_sm(w), gw_warp(w),
							loc_addr(s->loc), sc.probe[id][i]);
			break;
		case S_PROBE_L2:
			sc.present[id][i] = gh_probe_l2(sc.h, loc_addr(s->loc), sc.probe[id][i]);
			break;
		}
		sc.done[id][i] = gw_cycle(w);
	}
}

static int script_host(struct gpu_host *h)
{
	struct gpu_kernel k = {
	    .name = "script",
	    .ctas = sc.ctas,
	    .warps_per_cta = sc.warps_per_cta,
	    .fn = script_kernel,
	    .cta_sm = sc.cta_sm,
	};

	sc.h = h;
	sc.base = gh_alloc(h, 16 * 128, 4096);
	for (unsigned i = 0; i < 16; i++)
		gh_write32(h, loc_addr(i), 0);
	return gh_launch(h, &k);
}

static const struct cs_workload script_wl = {.name = "script", .system = "gpu", .gpu = script_host};

/* Runs the script under the configuration plus the overrides (the run must succeed). */
static void run_script(struct sysrun *r, const char *const *sets)
{
	sysrun_start(r, base_cfg, &script_wl, NULL, -1, sets);
}

/* One warp per SM, warp i on SM i. */
static void script_setup(const struct step *w0, const struct step *w1)
{
	memset(&sc, 0, sizeof(sc));
	sc.steps[0] = w0;
	sc.steps[1] = w1;
	sc.cta_sm[0] = 0;
	sc.cta_sm[1] = 1;
	sc.ctas = w1 ? 2 : 1;
	sc.warps_per_cta = 1;
}

static void expect_ts(unsigned w, unsigned i, uint64_t a, uint64_t b, uint64_t c)
{
	ck_assert_msg(sc.present[w][i], "warp %u step %u: line not present", w, i);
	ck_assert_msg(sc.probe[w][i][0] == a && sc.probe[w][i][1] == b && sc.probe[w][i][2] == c,
		      "warp %u step %u: state (%" PRIu64 ", %" PRIu64 ", %" PRIu64
		      "), want (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
		      w, i, sc.probe[w][i][0], sc.probe[w][i][1], sc.probe[w][i][2], a, b, c);
}

/* ---- G-TSC ----------------------------------------------------------------------------------- */

enum { X = 0, Y = 1, Z = 2 };

/* The paper's Fig. 9, with one lease (10) for both lines: SM0 runs A1 ld X, A2 st Y, A3 ld X;
 * SM1 runs B1 ld Y, B2 st X, B3 ld Y. */
START_TEST(test_gtsc_fig9)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	      /* 0: A1 */
	    {1, S_PROBE_L1, X, 0},    /* 1: X in SM0's L1 [1, 11], warp_ts 1 */
	    {2000, S_ST, Y, 7},	      /* 2: A2 */
	    {2001, S_PROBE_L1, Y, 0}, /* 3: Y was not cached in SM0: only warp_ts = 12 */
	    {2002, S_PROBE_L2, Y, 0}, /* 4: Y at the L2 [12, 22] */
	    {6000, S_LD, X, 0},	      /* 5: A3: 12 > 11, BusRd(wts 1) -> BusFill */
	    {6001, S_PROBE_L1, X, 0}, /* 6: [12, 22], warp_ts 12 */
	    {S_END},
	};
	static const struct step b[] = {
	    {1000, S_LD, Y, 0},	      /* 0: B1 */
	    {4000, S_ST, X, 9},	      /* 1: B2 */
	    {4001, S_PROBE_L2, X, 0}, /* 2: X at the L2 [12, 22] */
	    {4002, S_PROBE_L1, X, 0}, /* 3: warp_ts 12 */
	    {8000, S_LD, Y, 0},	      /* 4: B3: 12 > 11 -> fill with A2's value */
	    {S_END},
	};
	static const char *const sets[] = {"coherence.protocol=gtsc", "gtsc.advance=0",
					   "gtsc.lease=10", NULL};
	struct sysrun r;

	script_setup(a, b);
	run_script(&r, sets);
	ck_assert_uint_eq(sc.val[0][0], 0);
	expect_ts(0, 1, 1, 11, 1);
	ck_assert(!sc.present[0][3]);
	ck_assert_uint_eq(sc.probe[0][3][2], 12);
	expect_ts(0, 4, 12, 22, 1);
	ck_assert_uint_eq(sc.val[0][5], 9); /* A3 sees B2 */
	expect_ts(0, 6, 12, 22, 12);
	expect_ts(1, 2, 12, 22, 1);
	ck_assert_uint_eq(sc.probe[1][3][2], 12);
	ck_assert_uint_eq(sc.val[1][4], 7); /* B3 sees A2 */
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.gtsc.renewals"), 0);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.gtsc.fills"), 4);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
}
END_TEST

/* A renewal: the L1's version is the L2's, so the answer is BusRnw with rts only (no data). */
START_TEST(test_gtsc_renewal_carries_no_data)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	      /* X [1, 11] */
	    {1000, S_ST, Y, 3},	      /* warp_ts -> 12 */
	    {3000, S_LD, X, 0},	      /* 12 > 11: BusRd(wts 1, warp_ts 12) -> BusRnw rts 22 */
	    {3001, S_PROBE_L1, X, 0}, /* [1, 22], warp_ts 12 */
	    {S_END},
	};
	static const char *const sets[] = {"coherence.protocol=gtsc", "gtsc.advance=0",
					   "gtsc.lease=10", NULL};
	struct sysrun r;

	script_setup(a, NULL);
	run_script(&r, sets);
	ck_assert_uint_eq(sc.val[0][2], 0);
	expect_ts(0, 3, 1, 22, 12);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.gtsc.renewals"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.renewals"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.renewal_answers"), 1);
	/* 16-bit timestamps: rts alone on the wire, after the NoC's 8 B header; a fill carries
	 * the line, wts and rts */
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.noc.resp.BusRnw.bytes"), 8 + 2);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.noc.resp.BusFill.bytes"), 8 + 128 + 4);
	sysrun_end(&r);
}
END_TEST

/* Fig. 11: three warps of one SM miss on X while the first read is in flight; the lease the fill
 * brings covers the first (warp_ts 1), not the two others (warp_ts 12 and 23): with combining
 * one renewal serves both; with forwarding each sent its own BusRd. */
static void fig11(const char *combining, double want_reads, double want_renewals)
{
	static const struct step w0[] = {{500, S_LD, X, 0}, {S_END}};
	static const struct step w1[] = {{0, S_ST, Z, 1}, {502, S_LD, X, 0}, {S_END}};
	static const struct step w2[] = {{0, S_ST, Y, 1},
					 {200, S_ST, Y, 2},
					 {504, S_LD, X, 0},
					 {505, S_PROBE_L1, X, 0},
					 {S_END}};
	char comb[64];
	const char *sets[] = {"coherence.protocol=gtsc", "gtsc.advance=0", "gtsc.lease=10", comb,
			      NULL};
	struct sysrun r;

	snprintf(comb, sizeof(comb), "gtsc.combining=%s", combining);
	memset(&sc, 0, sizeof(sc));
	sc.steps[0] = w0;
	sc.steps[1] = w1;
	sc.steps[2] = w2;
	sc.ctas = 1;
	sc.warps_per_cta = 3;
	run_script(&r, sets);
	ck_assert_msg(sysrun_stat(&r, "gpu.noc.req.BusRd.packets") == want_reads,
		      "%s: %g BusRd (want %g); loads done at %" PRIu64 " %" PRIu64 " %" PRIu64,
		      combining, sysrun_stat(&r, "gpu.noc.req.BusRd.packets"), want_reads,
		      sc.done[0][0], sc.done[1][1], sc.done[2][2]);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.gtsc.renewals"), want_renewals);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
}

START_TEST(test_gtsc_fig11_combining_renews)
{
	/* one BusRd for the miss, one renewal for the two warps it did not cover */
	fig11("mshr", 2, 1);
}
END_TEST

START_TEST(test_gtsc_fig11_forward_all)
{
	fig11("forward", 3, 0);
}
END_TEST

/* Fig. 10: warp 0 stores to X, which its SM holds with lease [1, 11]; warp 1 (warp_ts 1) reads
 * X before the store's ack. block: warp 1 waits for the ack and then reads the new value at the
 * store's timestamp; keep: it reads the old copy at once, logically before the store. */
static void fig10(const char *visibility, bool block)
{
	static const struct step w0[] = {{0, S_LD, X, 0}, {1000, S_ST, X, 5}, {S_END}};
	static const struct step w1[] = {{1003, S_LD, X, 0}, {1004, S_PROBE_L1, X, 0}, {S_END}};
	char vis[64];
	const char *sets[] = {"coherence.protocol=gtsc", "gtsc.advance=0",
			      "gtsc.lease=10",		 vis,
			      "core.consistency=rc",	 NULL};
	struct sysrun r;

	snprintf(vis, sizeof(vis), "gtsc.visibility=%s", visibility);
	memset(&sc, 0, sizeof(sc));
	sc.steps[0] = w0;
	sc.steps[1] = w1;
	sc.ctas = 1;
	sc.warps_per_cta = 2;
	run_script(&r, sets);
	if (block) {
		ck_assert_uint_eq(sc.val[1][0], 5);
		/* the load waited for the ack (a round trip to the L2), not an L1 hit (20) */
		ck_assert_uint_gt(sc.done[1][0] - 1003, 40);
		/* it read the store's data at the store's timestamp */
		expect_ts(1, 1, 12, 22, 12);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.blocked_loads"), 1);
	} else {
		ck_assert_uint_eq(sc.val[1][0], 0);
		ck_assert_uint_lt(sc.done[1][0] - 1003, 40);
		ck_assert_uint_eq(sc.probe[1][1][2], 1);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.blocked_loads"), 0);
	}
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
}

START_TEST(test_gtsc_fig10_block)
{
	fig10("block", true);
}
END_TEST

START_TEST(test_gtsc_fig10_keep)
{
	fig10("keep", false);
}
END_TEST

/* 8-bit timestamps: each store moves X's wts by lease + 1, so the 23rd overflows; every bank
 * resets (wts 1, rts lease, mem_ts 1), the L1 learns it from the answer and flushes. */
START_TEST(test_gtsc_overflow_reset)
{
	static struct step a[40];
	static const char *const sets[] = {"coherence.protocol=gtsc", "gtsc.advance=0",
					   "gtsc.lease=10", "gtsc.ts_bits=8", NULL};
	struct sysrun r;
	unsigned n = 0;

	for (unsigned i = 0; i < 30; i++)
		a[n++] = (struct step){0, S_ST, X, 100 + i};
	a[n++] = (struct step){0, S_LD, X, 0};
	a[n++] = (struct step){0, S_PROBE_L2, X, 0};
	a[n++] = (struct step){0, S_PROBE_L1, X, 0};
	a[n] = (struct step){0, S_END, 0, 0};
	script_setup(a, NULL);
	run_script(&r, sets);
	ck_assert_uint_eq(sc.val[0][30], 129);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.gtsc.ts_resets"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.ts_resets"), 1);
	/* after the reset the timestamps start again near 1 */
	ck_assert_uint_lt(sc.probe[0][31][0], 255);
	ck_assert_uint_lt(sc.probe[0][32][2], 255);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
}
END_TEST

/* Fig. 6: an L2 eviction raises mem_ts to the evicted rts; the next line from DRAM starts its
 * lease there. The L2 is not inclusive: SM0 still hits its copy of the evicted line. A 1 KiB
 * direct-mapped bank: lines 8 apart share its one way per set. */
START_TEST(test_gtsc_eviction_mem_ts)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	       /* 0: X [1, 11] */
	    {1000, S_LD, 8, 0},	       /* 1: evicts X: mem_ts 11; line 8 [11, 21] */
	    {1001, S_PROBE_L2, 8, 0},  /* 2 */
	    {1002, S_LD, X, 0},	       /* 3: still a hit in the L1: [1, 11] covers warp_ts 11 */
	    {1003, S_PROBE_L1, X, 0},  /* 4 */
	    {2000, S_ST, 16, 1},       /* 5: evicts line 8: mem_ts 21; line 16 from [21, 31] */
	    {2001, S_PROBE_L2, 16, 0}, /* 6: the store: wts = max(31 + 1, 11) = 32 */
	    {S_END},
	};
	static const char *const sets[] = {"coherence.protocol=gtsc", "gtsc.advance=0",
					   "gtsc.lease=10",	      "l2.assoc=1",
					   "l2.size_kib=1",	      NULL};
	struct sysrun r;

	script_setup(a, NULL);
	run_script(&r, sets);
	expect_ts(0, 2, 11, 21, 11);
	ck_assert_uint_lt(sc.done[0][3] - sc.done[0][2], 40); /* an L1 hit */
	expect_ts(0, 4, 1, 11, 11);
	expect_ts(0, 6, 32, 42, 21);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.evictions"), 2);
	sysrun_end(&r);
}
END_TEST

/* gtsc.advance: one warp loads X K times with nothing else moving its timestamp (no stores,
 * no spin ticks). Each operation advances warp_ts by 1, so load i runs at warp_ts 1 + i. The
 * fill gives [1, 1 + L]; a renewal at warp_ts w gives rts = w + L. Loads miss at warp_ts
 * L + 2, 2L + 3, ...: every L + 1 loads, floor((K - 1) / (L + 1)) renewals. Without the
 * advance the lease covers every load whatever L (the lease has no effect). */
static double self_advance_renewals(unsigned lease, unsigned advance)
{
	enum { K = 40 };
	static struct step a[K + 1];
	char l[64], adv[64];
	const char *sets[] = {"coherence.protocol=gtsc", "gtsc.tick_hits=0", l, adv, NULL};
	struct sysrun r;
	double n;

	for (unsigned i = 0; i < K; i++)
		a[i] = (struct step){0, S_LD, X, 0};
	a[K] = (struct step){0, S_END, 0, 0};
	snprintf(l, sizeof(l), "gtsc.lease=%u", lease);
	snprintf(adv, sizeof(adv), "gtsc.advance=%u", advance);
	script_setup(a, NULL);
	run_script(&r, sets);
	n = sysrun_stat(&r, "gpu.l2.bank0.gtsc.renewals");
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.renewals"), n);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.miss.lease_expired"), n);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.self_advances"), advance ? K / advance : 0);
	sysrun_end(&r);
	return n;
}

START_TEST(test_gtsc_self_advance_renewals)
{
	static const unsigned leases[] = {1, 4, 20};

	for (unsigned i = 0; i < 3; i++) {
		unsigned L = leases[i];

		ck_assert_uint_eq(self_advance_renewals(L, 1), (40 - 1) / (L + 1));
		ck_assert_uint_eq(self_advance_renewals(L, 0), 0);
	}
	/* so lease 1 renews 19 times as often as lease 20 */
}
END_TEST

/* Timestamps overflow sooner with longer leases: 60 stores to X move its wts by L + 1 each,
 * so 8-bit timestamps (255) never overflow at L = 2 (60 x 3 = 180) and overflow more often as
 * L grows. */
static double store_resets(unsigned lease)
{
	static struct step a[61];
	char l[64];
	const char *sets[] = {"coherence.protocol=gtsc", "gtsc.ts_bits=8", l, NULL};
	struct sysrun r;
	double n;

	for (unsigned i = 0; i < 60; i++)
		a[i] = (struct step){0, S_ST, X, i};
	a[60] = (struct step){0, S_END, 0, 0};
	snprintf(l, sizeof(l), "gtsc.lease=%u", lease);
	script_setup(a, NULL);
	run_script(&r, sets);
	n = sysrun_stat(&r, "gpu.l2.bank0.gtsc.ts_resets");
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
	return n;
}

START_TEST(test_gtsc_resets_rise_with_lease)
{
	double r2 = store_resets(2), r10 = store_resets(10), r40 = store_resets(40);

	ck_assert_uint_eq(r2, 0);
	ck_assert_uint_gt(r10, r2);
	ck_assert_uint_gt(r40, r10);
	/* each reset leaves at most 255 - L of timestamp space, used L + 1 per store */
	ck_assert_uint_ge(r40, 60 * 41 / 255 - 1);
}
END_TEST

/* ---- TC -------------------------------------------------------------------------------------- */

#define TC_LEASE 1000

/* SM1 reads X (lease until its end E); SM0 then writes X and fences (RC). TC-Strong: the write
 * waits at the L2 until E, so the fence (waiting for the ack) ends after E. TC-Weak: the ack
 * comes at once with GWCT = E, and the fence waits for GWCT. Under SC a TC-Weak store itself
 * is over only at GWCT. */
static void tc_write(const char *protocol, bool strong, const char *consistency)
{
	static const struct step a[] = {
	    {300, S_ST, X, 4},	  /* 0 */
	    {301, S_FENCE, X, 0}, /* 1 */
	    {S_END},
	};
	static const struct step b[] = {
	    {0, S_LD, X, 0},	   /* 0 */
	    {1, S_PROBE_L1, X, 0}, /* 1: the lease's end, ps */
	    {S_END},
	};
	char proto[64];
	char cons[64];
	const char *sets[] = {proto, "tc.lease=1000", cons, NULL};
	struct sysrun r;
	uint64_t end;

	snprintf(proto, sizeof(proto), "coherence.protocol=%s", protocol);
	snprintf(cons, sizeof(cons), "core.consistency=%s", consistency);
	script_setup(a, b);
	run_script(&r, sets);
	ck_assert(sc.present[1][1]);
	end = sc.probe[1][1][0] / 1000; /* cycles (1 GHz) */
	ck_assert_uint_gt(end, TC_LEASE);
	ck_assert_uint_lt(end, TC_LEASE + 300);
	if (strong) {
		/* held at the L2 until the lease ended, then the ack's way back */
		ck_assert_uint_ge(sc.done[0][1], end);
		ck_assert_uint_lt(sc.done[0][1], end + 100);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.held"), 1);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.stall.fence"), 0);
	} else if (consistency[0] == 'r') {
		ck_assert_uint_lt(sc.done[0][0], 300 + 20); /* RC: the store does not wait */
		ck_assert_uint_ge(sc.done[0][1], end);	    /* the fence waits for GWCT */
		ck_assert_uint_lt(sc.done[0][1], end + 20);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.held"), 0);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.stall.fence"), 1);
	} else {
		ck_assert_uint_ge(sc.done[0][0], end); /* SC: the store is over at GWCT */
		ck_assert_uint_lt(sc.done[0][0], end + 20);
		ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.held"), 0);
	}
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
}

START_TEST(test_tc_strong_write_waits_for_lease)
{
	tc_write("tc-strong", true, "rc");
}
END_TEST

START_TEST(test_tc_weak_fence_waits_for_gwct)
{
	tc_write("tc-weak", false, "rc");
}
END_TEST

START_TEST(test_tc_weak_sc_store_waits_for_gwct)
{
	tc_write("tc-weak", false, "sc");
}
END_TEST

/* A TC lease in the L1: hits before its end, a coherence miss after. */
START_TEST(test_tc_lease_expiry_is_a_miss)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	/* miss */
	    {400, S_LD, X, 0},	/* hit: the lease runs */
	    {2000, S_LD, X, 0}, /* the lease ended: coherence miss */
	    {S_END},
	};
	static const char *const sets[] = {"coherence.protocol=tc-strong", "tc.lease=1000", NULL};
	struct sysrun r;

	script_setup(a, NULL);
	run_script(&r, sets);
	ck_assert_uint_lt(sc.done[0][1] - 400, 40);
	ck_assert_uint_gt(sc.done[0][2] - 2000, 40); /* to the L2 and back, not 20 */
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.load_hits"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.miss.cold"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.sm0.l1.miss.coherence"), 1);
	sysrun_end(&r);
}
END_TEST

/* A 1-way L2 set holding a leased line cannot take another line until the lease ends. */
START_TEST(test_tc_delayed_eviction)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	   /* 0: X leased */
	    {1, S_PROBE_L1, X, 0}, /* 1 */
	    {300, S_LD, 8, 0},	   /* 2: same L2 set (8 lines of 128 B per way... see sets) */
	    {S_END},
	};
	static const char *const sets[] = {"coherence.protocol=tc-strong", "tc.lease=1000",
					   "l2.assoc=1", "l2.size_kib=1", NULL};
	struct sysrun r;
	uint64_t end;

	script_setup(a, NULL);
	run_script(&r, sets);
	end = sc.probe[0][1][0] / 1000;
	/* 1 KiB direct-mapped, 128 B lines: lines 8 apart share a set */
	ck_assert_uint_ge(sc.done[0][2], end);
	ck_assert_uint_ge(sysrun_stat(&r, "gpu.l2.bank0.stall.leased_set"), 1);
	sysrun_end(&r);
}
END_TEST

/* tc.lease_policy=predict (TC-Weak): the bank's lifetime grows by pred_credit on a read of a
 * line whose leases expired at the L2 or in the reader's L1. Every read below is an L2 hit
 * with the same latency, so the lease an L1 copy gets, seen from the load's end, differs by
 * exactly the lifetime's change. */
START_TEST(test_tc_predict_lengthens)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	      /* 0: cold: lifetime 1000 */
	    {1, S_PROBE_L1, X, 0},    /* 1 */
	    {3000, S_LD, X, 0},	      /* 2: expired at the L2 too: given 1000, then 1100 */
	    {3001, S_PROBE_L1, X, 0}, /* 3 */
	    {6000, S_LD, X, 0},	      /* 4: expired at the L2: given 1100, then 1200 */
	    {6001, S_PROBE_L1, X, 0}, /* 5 */
	    {7300, S_LD, X, 0},	      /* 6: SM0's copy expired, SM1's lease runs: 1300 */
	    {S_END},
	};
	static const struct step b[] = {{6800, S_LD, X, 0}, {S_END}};
	static const char *const sets[] = {"coherence.protocol=tc-weak", "tc.lease=1000",
					   "tc.lease_policy=predict", "tc.pred_credit=100", NULL};
	struct sysrun r;
	uint64_t len[3];

	script_setup(a, b);
	run_script(&r, sets);
	for (unsigned i = 0; i < 3; i++)
		len[i] = sc.probe[0][2 * i + 1][0] / 1000 - sc.done[0][2 * i];
	ck_assert_uint_eq(len[1], len[0]);	 /* the read that lengthened it got the old one */
	ck_assert_uint_eq(len[2], len[1] + 100); /* the next gets 1100 */
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.pred.expired_l2"), 2);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.pred.expired_l1"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.lifetime_now"), 1300);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);
}
END_TEST

/* Writes to a leased line shorten the lifetime by pred_write, but only while it is above
 * tc.lease; a replacement blocked by a leased set shortens it by pred_evict, to any value. */
START_TEST(test_tc_predict_shortens)
{
	static const struct step a[] = {
	    {0, S_LD, X, 0},	/* lifetime 1000 */
	    {3000, S_LD, X, 0}, /* expired: 1300 */
	    {6000, S_LD, X, 0}, /* expired: 1600 */
	    {S_END},
	};
	static const struct step b[] = {
	    {6200, S_ST, X, 1}, /* leased: 1600 - 400 = 1200 */
	    {6300, S_ST, X, 2}, /* 1200 > 1000: 800 */
	    {6400, S_ST, X, 3}, /* 800 is not above 1000: stays */
	    {S_END},
	};
	static const char *const sets[] = {"coherence.protocol=tc-weak",
					   "tc.lease=1000",
					   "tc.lease_policy=predict",
					   "tc.pred_credit=300",
					   "tc.pred_write=400",
					   "core.consistency=rc",
					   NULL};
	static const struct step c[] = {
	    {0, S_LD, X, 0},   /* X leased for 1000 cycles */
	    {300, S_LD, 8, 0}, /* the same 1-way set: waits, and the lifetime loses 16 */
	    {S_END},
	};
	static const char *const sets2[] = {"coherence.protocol=tc-weak",
					    "tc.lease=1000",
					    "tc.lease_policy=predict",
					    "l2.assoc=1",
					    "l2.size_kib=1",
					    NULL};
	struct sysrun r;
	double n;

	script_setup(a, b);
	run_script(&r, sets);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.pred.expired_l2"), 2);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.pred.unexpired_writes"), 3);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.lifetime_now"), 800);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.coherence_check.violations"), 0);
	sysrun_end(&r);

	script_setup(c, NULL);
	run_script(&r, sets2);
	/* one request waited (perhaps trying more than once): one event */
	n = sysrun_stat(&r, "gpu.l2.bank0.tc.pred.blocked_evictions");
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_ge(sysrun_stat(&r, "gpu.l2.bank0.stall.leased_set"), 1);
	ck_assert_uint_eq(sysrun_stat(&r, "gpu.l2.bank0.tc.lifetime_now"), 1000 - 16);
	sysrun_end(&r);
}
END_TEST

/* The artifact predicts lifetimes for TC-Weak only: TC-Strong with predict is refused. */
START_TEST(test_tc_predict_needs_tc_weak)
{
	struct cs_run_opts ro = {.mode = -1, .custom = &script_wl};
	struct cs_err err = {0};
	struct cs_config *cfg;
	struct cs_system *sys = NULL;

	ck_assert_int_eq(cs_config_open_string(base_cfg, "test", &cfg, &err), 0);
	ck_assert_int_eq(cs_config_set(cfg, "coherence.protocol=tc-strong", &err), 0);
	ck_assert_int_eq(cs_config_set(cfg, "tc.lease_policy=predict", &err), 0);
	script_setup(NULL, NULL);
	ck_assert_int_ne(cs_system_create(cfg, &ro, &sys, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "tc-weak"));
	cs_system_destroy(sys);
	cs_config_close(cfg);
}
END_TEST

static Suite *protocols_suite(void)
{
	Suite *s = suite_create("protocols");
	TCase *g = tcase_create("gtsc");
	TCase *t = tcase_create("tc");

	tcase_add_test(g, test_gtsc_fig9);
	tcase_add_test(g, test_gtsc_renewal_carries_no_data);
	tcase_add_test(g, test_gtsc_fig11_combining_renews);
	tcase_add_test(g, test_gtsc_fig11_forward_all);
	tcase_add_test(g, test_gtsc_fig10_block);
	tcase_add_test(g, test_gtsc_fig10_keep);
	tcase_add_test(g, test_gtsc_overflow_reset);
	tcase_add_test(g, test_gtsc_eviction_mem_ts);
	tcase_add_test(g, test_gtsc_self_advance_renewals);
	tcase_add_test(g, test_gtsc_resets_rise_with_lease);
	tcase_add_test(t, test_tc_strong_write_waits_for_lease);
	tcase_add_test(t, test_tc_weak_fence_waits_for_gwct);
	tcase_add_test(t, test_tc_weak_sc_store_waits_for_gwct);
	tcase_add_test(t, test_tc_lease_expiry_is_a_miss);
	tcase_add_test(t, test_tc_delayed_eviction);
	tcase_add_test(t, test_tc_predict_lengthens);
	tcase_add_test(t, test_tc_predict_shortens);
	tcase_add_test(t, test_tc_predict_needs_tc_weak);
	suite_add_tcase(s, g);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(protocols_suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
