/*
 * tests/unit/test_wsq.c - the work-stealing deques of workloads/wsq.[ch] on the simulated GPU:
 * owners that push and pop in a seeded random pattern while thieves steal from random victims
 * never lose or duplicate a task, and every record arrives whole; under protocols with and
 * without L1s, with atomic and with plain indices. Also the host-side checks, the scenarios and
 * workload.graph's choices (workloads/pannotia.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/graph/graph.h"
#include "workloads/pannotia.h"
#include "workloads/wsq.h"

static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 4; check = true; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { spin_limit = 20000; };\n";

#define QN     4   /* queues: one per CTA */
#define PRE    40  /* tasks the host puts in each queue */
#define PUSHES 60  /* tasks each owner pushes while running */
#define WORDS  4   /* record: id, ~id, id * 3, the queue that made it */
#define CAP    256 /* slots per queue */
#define TOTAL  (QN * (PRE + PUSHES))

struct wq_args {
	struct wsq q;
	struct wsq_sync sync;
	unsigned lanes;
	/* host-side bookkeeping (no simulated traffic) */
	unsigned next_id[QN]; /* the next id owner q pushes */
	unsigned taken[TOTAL];
	unsigned ntaken, pops, steals, lost, empty, bad;
	unsigned pushed_full;
};

static void make_rec(uint32_t *r, uint32_t id, uint32_t q)
{
	r[0] = id;
	r[1] = ~id;
	r[2] = id * 3;
	r[3] = q;
}

static void take(struct wq_args *a, const uint32_t *r)
{
	if (r[0] >= TOTAL || r[1] != ~r[0] || r[2] != r[0] * 3 || r[3] >= QN) {
		a->bad++;
		return;
	}
	a->taken[r[0]]++;
	a->ntaken++;
}

/* Warp 0 of CTA c owns queue c: a random mix of pushes (1-3 tasks) and pops until it has
 * pushed all its tasks and its queue is empty. Warp 1 steals from random victims until every
 * task is taken. */
static void wq_kernel(struct gpu_warp *w)
{
	struct wq_args *a = (struct wq_args *)gw_args(w);
	unsigned me = gw_cta(w);
	uint32_t rec[WORDS];
	uint64_t spins = 0;

	if (gw_warp(w) == 0) {
		struct wsq_owner o;

		wsq_owner_load(w, &a->q, me, &a->sync, &o);
		for (;;) {
			unsigned left = (me + 1) * (PRE + PUSHES) - a->next_id[me];

			if (left && gw_rand(w) % 3 == 0) {
				uint32_t recs[3][WORDS];
				unsigned n = 1 + (unsigned)(gw_rand(w) % 3);

				n = n < left ? n : left;
				for (unsigned i = 0; i < n; i++)
					make_rec(recs[i], a->next_id[me] + i, me);
				if (wsq_push(w, &a->q, me, &o, &a->sync, &recs[0][0], n) != 0) {
					a->pushed_full++;
					return;
				}
				a->next_id[me] += n;
				continue;
			}
			if (wsq_pop(w, &a->q, me, &o, &a->sync, rec, NULL)) {
				a->pops++;
				take(a, rec);
			} else if (!left) {
				return;
			}
			if (gw_spin_guard(w, &spins)) {
				gw_fail(w, "owner %u spins", me);
				return;
			}
		}
	}
	while (a->ntaken < TOTAL) {
		unsigned v = (me + 1 + (unsigned)(gw_rand(w) % (QN - 1))) % QN;
		enum wsq_steal_result r = wsq_steal(w, &a->q, v, &a->sync, rec, NULL);

		if (r == WSQ_STOLEN) {
			a->steals++;
			take(a, rec);
		} else {
			a->lost += r == WSQ_LOST;
			a->empty += r == WSQ_EMPTY;
			gw_compute(w, 20);
		}
		if (gw_spin_guard(w, &spins)) {
			gw_fail(w, "thief %u spins with %u of %u taken", me, a->ntaken, TOTAL);
			return;
		}
	}
}

static int wq_host(struct gpu_host *h)
{
	struct wq_args *a = gh_arg(h);
	struct gpu_kernel k = {.name = "wsq",
			       .ctas = QN,
			       .warps_per_cta = 2,
			       .fn = wq_kernel,
			       .args = a,
			       .lanes = a->lanes};
	uint16_t sm[QN];
	int rc = wsq_alloc(h, &a->q, QN, CAP, WORDS);

	if (rc)
		return rc;
	for (unsigned q = 0; q < QN; q++) {
		uint32_t recs[PRE][WORDS];

		for (unsigned i = 0; i < PRE; i++)
			make_rec(recs[i], q * (PRE + PUSHES) + i, q);
		wsq_fill(h, &a->q, q, &recs[0][0], PRE);
		a->next_id[q] = q * (PRE + PUSHES) + PRE;
		sm[q] = (uint16_t)q;
	}
	k.cta_sm = sm;
	return gh_launch(h, &k);
}

static const struct cs_workload wq_wl = {.name = "wsq", .system = "gpu", .gpu = wq_host};

/* Runs the pattern; returns the fences the SMs executed. */
static double run_one(const char *proto, const struct wsq_sync *s, const char *seed, unsigned lanes)
{
	char p[64], stat[32];
	double fences = 0;
	const char *sets[] = {p, seed, lanes == 64 ? "core.lanes=64" : NULL, NULL};
	struct wq_args *a = calloc(1, sizeof(*a));
	struct sysrun r;

	ck_assert_ptr_nonnull(a);
	snprintf(p, sizeof(p), "coherence.protocol=%s", proto);
	a->sync = *s;
	a->lanes = lanes;
	sysrun_start(&r, base_cfg, &wq_wl, a, -1, sets);
	ck_assert_uint_eq(a->bad, 0);
	ck_assert_uint_eq(a->pushed_full, 0);
	ck_assert_uint_eq(a->ntaken, TOTAL);
	for (unsigned i = 0; i < TOTAL; i++)
		ck_assert_msg(a->taken[i] == 1, "%s %s: task %u taken %u times", proto, seed, i,
			      a->taken[i]);
	ck_assert_uint_eq(a->pops + a->steals, TOTAL);
	/* the random pattern exercises both ends */
	ck_assert_uint_gt(a->pops, 0);
	ck_assert_uint_gt(a->steals, 0);
	ck_assert_uint_gt(a->empty, 0);
	for (unsigned i = 0; i < QN; i++) {
		snprintf(stat, sizeof(stat), "gpu.sm%u.fences", i);
		fences += sysrun_stat(&r, stat);
	}
	sysrun_end(&r);
	free(a);
	return fences;
}

START_TEST(test_exactly_once)
{
	static const char *const protos[] = {"gtsc", "tc-weak", "none"};
	static const char *const seeds[] = {"sim.seed=1", "sim.seed=2", "sim.seed=3"};
	struct wsq_sync atomic = {MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL, WSQ_ATOMIC, false, false};
	struct wsq_sync plain = {MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL, WSQ_PLAIN, false, false};

	for (unsigned p = 0; p < 3; p++)
		for (unsigned s = 0; s < 3; s++) {
			run_one(protos[p], &atomic, seeds[s], 32);
			run_one(protos[p], &plain, seeds[s], 32);
		}
	/* a thief's plain look first (workload.steal_probe = plain): stale copies of a draining
	 * queue never hide work, so every task is still taken once; under registration the look
	 * reads the L2 without taking the victim's lines */
	{
		static const char *const probed_protos[] = {"gtsc", "tc-weak", "scoped-baseline",
							    "hlrc", "denovo-b"};
		struct wsq_sync probed = atomic;

		probed.probe = true;
		for (unsigned p = 0; p < 5; p++)
			run_one(probed_protos[p], &probed, "sim.seed=5", 32);
	}
	/* the pop's bottom store as an exchange the warp waits for (workload.queue_order = sc,
	 * seed 004's SC atomics): no fence is executed, and every task is still taken once */
	{
		static const char *const sc_protos[] = {"gtsc",	    "scoped-baseline", "hlrc",
							"denovo-b", "hlrc-scoped",     "rsp"};
		struct wsq_sync sc = atomic;

		sc.sc = true;
		for (unsigned p = 0; p < 6; p++) {
			ck_assert_double_eq(run_one(sc_protos[p], &sc, "sim.seed=6", 32), 0);
			ck_assert_double_gt(run_one(sc_protos[p], &atomic, "sim.seed=6", 32), 0);
		}
	}
	/* remote scope (performed as agent scope here) and a 64-lane kernel */
	atomic.scope = MEM_SCOPE_DEVICE_REMOTE;
	run_one("gtsc", &atomic, "sim.seed=4", 64);
}
END_TEST

/* A lost steal race is reported as such: with many thieves on one queue some CAS fail. */
START_TEST(test_lost_races_seen)
{
	struct wsq_sync atomic = {MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL, WSQ_ATOMIC, false, false};
	unsigned lost = 0;

	for (unsigned s = 1; s <= 3; s++) {
		char seed[32];
		const char *sets[] = {"coherence.protocol=gtsc", seed, NULL};
		struct wq_args *a = calloc(1, sizeof(*a));
		struct sysrun r;

		ck_assert_ptr_nonnull(a);
		snprintf(seed, sizeof(seed), "sim.seed=%u", s);
		a->sync = atomic;
		a->lanes = 32;
		sysrun_start(&r, base_cfg, &wq_wl, a, -1, sets);
		ck_assert_uint_eq(a->ntaken, TOTAL);
		lost += a->lost;
		sysrun_end(&r);
		free(a);
	}
	ck_assert_uint_gt(lost, 0);
}
END_TEST

START_TEST(test_layout_and_scenarios)
{
	struct wsq q = {.base = 1024, .queues = 3, .cap = 10, .words = 4};
	struct wsq_sync own, st;
	bool steal;

	ck_assert_uint_eq(wsq_bytes(&q), 2 * 128 + 10 * 16);
	ck_assert_uint_eq(wsq_age_addr(&q, 2), 1024 + 2 * wsq_bytes(&q));
	ck_assert_uint_eq(wsq_bot_addr(&q, 1), 1024 + wsq_bytes(&q) + 128);
	ck_assert_uint_eq(wsq_slot_addr(&q, 0, 3), 1024 + 256 + 48);
	wsq_scenario_sync(WSQ_BASELINE, &own, &st, &steal);
	ck_assert(!steal && own.scope == MEM_SCOPE_DEVICE && own.access == WSQ_ATOMIC);
	wsq_scenario_sync(WSQ_SCOPE_ONLY, &own, &st, &steal);
	ck_assert(!steal && own.scope == MEM_SCOPE_WG);
	wsq_scenario_sync(WSQ_STEAL_ONLY, &own, &st, &steal);
	ck_assert(steal && own.scope == MEM_SCOPE_DEVICE && st.scope == MEM_SCOPE_DEVICE);
	wsq_scenario_sync(WSQ_RSP, &own, &st, &steal);
	ck_assert(steal && own.scope == MEM_SCOPE_WG && st.scope == MEM_SCOPE_DEVICE_REMOTE);
	ck_assert_str_eq(wsq_scenario_names[WSQ_RSP], "rsp");
	wsq_scenario_sync(WSQ_SCOPED_STEAL, &own, &st, &steal);
	ck_assert(steal && own.scope == MEM_SCOPE_WG && st.scope == MEM_SCOPE_DEVICE);
	ck_assert_str_eq(wsq_scenario_names[WSQ_SCOPED_STEAL], "scoped-steal");
	ck_assert_ptr_null(wsq_scenario_names[WSQ_SCENARIOS]);
	ck_assert_str_eq(wsq_victim_names[WSQ_VICTIM_STICKY], "sticky");
	ck_assert_ptr_null(wsq_victim_names[WSQ_VICTIMS]);
}
END_TEST

/* workload.graph's choices are "auto" and the graph shapes in enum order. */
START_TEST(test_graph_choices)
{
	struct cs_err err = {0};
	unsigned i;

	ck_assert_str_eq(pannotia_graph_names[0], "auto");
	for (i = 1; pannotia_graph_names[i]; i++) {
		enum graph_shape s;

		ck_assert_int_eq(graph_shape_find(pannotia_graph_names[i], &s, &err), 0);
		ck_assert_int_eq(s, (int)i - 1);
	}
	ck_assert_uint_eq(i, GRAPH_SHAPES + 1);
	/* workload.size picks the tier; full is the seed's graph at its real node count */
	ck_assert_int_eq(pannotia_graph_tier(GPU_SIZE_TINY), GRAPH_TIER_TINY);
	ck_assert_int_eq(pannotia_graph_tier(GPU_SIZE_SMALL), GRAPH_TIER_SMALL);
	ck_assert_int_eq(pannotia_graph_tier(GPU_SIZE_DEFAULT), GRAPH_TIER_DEFAULT);
	ck_assert_int_eq(pannotia_graph_tier(GPU_SIZE_FULL), GRAPH_TIER_FULL);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_USA_ROAD_BAY, pannotia_graph_tier(GPU_SIZE_FULL)),
			  321270);
	ck_assert_uint_eq(graph_tier_nodes(GRAPH_ECOLOGY1, pannotia_graph_tier(GPU_SIZE_FULL)),
			  1000000);
}
END_TEST

static int bad_alloc_host(struct gpu_host *h)
{
	struct wsq q;
	int *rc = gh_arg(h);

	rc[0] = wsq_alloc(h, &q, 4, WSQ_MAX_CAP + 1, 4);
	rc[1] = wsq_alloc(h, &q, 4, 16, WSQ_MAX_WORDS + 1);
	rc[2] = wsq_alloc(h, &q, 0, 16, 4);
	rc[3] = wsq_alloc(h, &q, 4, WSQ_MAX_CAP, WSQ_MAX_WORDS);
	return 0;
}

static const struct cs_workload bad_alloc_wl = {
    .name = "wsq_alloc", .system = "gpu", .gpu = bad_alloc_host};

START_TEST(test_alloc_checks)
{
	int rc[4] = {1, 1, 1, 1};
	struct sysrun r;

	sysrun_start(&r, base_cfg, &bad_alloc_wl, rc, -1, NULL);
	ck_assert_int_eq(rc[0], -CS_EINVAL);
	ck_assert_int_eq(rc[1], -CS_EINVAL);
	ck_assert_int_eq(rc[2], -CS_EINVAL);
	ck_assert_int_eq(rc[3], 0);
	sysrun_end(&r);
}
END_TEST

static Suite *wsq_suite(void)
{
	Suite *s = suite_create("wsq");
	TCase *tc = tcase_create("wsq");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_exactly_once);
	tcase_add_test(tc, test_lost_races_seen);
	tcase_add_test(tc, test_layout_and_scenarios);
	tcase_add_test(tc, test_alloc_checks);
	tcase_add_test(tc, test_graph_choices);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(wsq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
