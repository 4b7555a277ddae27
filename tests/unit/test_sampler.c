/*
 * tests/unit/test_sampler.c - the sampling layer's phase machine (sampling/sampler.c) over a
 * scripted initiator: no SM, no memory, a clock and the ops table.
 *
 * What must hold: a unit's warm-up lasts until no request the LT face issued is in flight
 * (samp_initiator_ops.lt_settled), since those answers come at the LT face's times, outside
 * the detailed queues, and a unit counting them would credit the detailed memory with
 * throughput it did not carry. The warm-up is at least `warmup` cycles either way, and an
 * initiator that does not implement the op never holds it.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sampling/sampler.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "tlm/system/system.h"
#include "util/params.h"

#define CYCLE_PS 1000 /* 1 GHz */

/* One initiator doing a work per cycle, whose LT requests are in from settle_at on. */
struct fake {
	struct sim_kernel *k;
	sim_time_t settle_at;
	unsigned face;
	sim_time_t first_at; /* when it first went to the detailed face (SIM_TIME_MAX: never) */
	sim_time_t last_at;  /* when it last did */
};

static void fake_set_face(void *obj, unsigned face)
{
	struct fake *f = obj;

	if (face == SAMP_FACE_AT && f->face != SAMP_FACE_AT) {
		if (f->first_at == SIM_TIME_MAX)
			f->first_at = sim_now(f->k);
		f->last_at = sim_now(f->k);
	}
	f->face = face;
}

static void fake_hold(void *obj, bool hold)
{
	(void)obj;
	(void)hold;
}

static bool fake_busy(const void *obj)
{
	(void)obj;
	return false;
}

static bool fake_lt_settled(const void *obj)
{
	const struct fake *f = obj;

	return sim_now(f->k) >= f->settle_at;
}

static uint64_t fake_work(const void *obj)
{
	const struct fake *f = obj;

	return sim_now(f->k) / CYCLE_PS;
}

static unsigned fake_occupancy(const void *obj)
{
	(void)obj;
	return 1;
}

static const struct samp_initiator_ops fake_ops = {
    .set_face = fake_set_face,
    .hold = fake_hold,
    .busy = fake_busy,
    .lt_settled = fake_lt_settled,
    .work = fake_work,
    .occupancy = fake_occupancy,
};

static bool sys_idle(void *sys)
{
	(void)sys;
	return true;
}

static double sys_traffic(void *sys)
{
	(void)sys;
	return 0;
}

static bool sys_all_started(void *sys)
{
	(void)sys;
	return true;
}

static const struct samp_system_ops sys_ops = {
    .idle = sys_idle, .traffic = sys_traffic, .all_started = sys_all_started};

/* The tests' sampling: no head, `first` 1 000 LT cycles, units of 100 + 1 000 cycles every
 * 2 000 LT cycles, no tail, the rate predictor (the fake has no event counters). */
static void test_cfg(struct samp_cfg *cfg)
{
	ck_assert_int_eq(cs_params_defaults(&samp_params, cfg, NULL), 0);
	cfg->head = 0;
	cfg->first = 1000;
	cfg->warmup = 100;
	cfg->unit = 1000;
	cfg->period = 2000;
	cfg->tail = 0;
	cfg->predictor = SAMP_PRED_RATE;
}

/* One kernel of `cycles` under the sampler of cfg, with one initiator (ops on obj); its AT
 * cycles and units. */
static void run_sampled(struct sim_kernel *k, const struct samp_cfg *cfg,
			const struct samp_initiator_ops *ops, void *obj, uint64_t cycles,
			double *at_cycles, unsigned *units)
{
	struct sim_clock clk;
	struct sampler *s;
	struct samp_kernel_facts f;
	unsigned sampled, skipped;

	ck_assert_int_eq(sim_clock_init(&clk, 1000000000ull), 0);
	ck_assert_int_eq(sampler_create(k, &clk, cfg, CS_MODE_HYBRID, &sys_ops, NULL, &s), 0);
	ck_assert_int_eq(sampler_add_initiator(s, ops, obj), 0);
	sampler_kernel_begin(s, "k", 1, 1);
	ck_assert_int_eq(sim_run_until(k, (sim_time_t)cycles * CYCLE_PS), 0);
	sampler_kernel_close(s, sim_now(k), &f);
	sampler_counts(s, units, &sampled, &skipped);
	*at_cycles = f.at_cycles;
	sampler_destroy(s);
}

/* One kernel of `cycles` of the fake whose LT requests are in from settle_cycle; its AT
 * cycles, units and the initiator's first switch to the detailed face. */
static void run_kernel(const struct samp_initiator_ops *ops, uint64_t settle_cycle, uint64_t cycles,
		       double *at_cycles, unsigned *units, sim_time_t *first_at)
{
	struct sim_kernel_opts ko = {0};
	struct samp_cfg cfg;
	struct fake fk = {
	    .settle_at = settle_cycle * CYCLE_PS, .face = SAMP_FACE_AT, .first_at = SIM_TIME_MAX};

	ck_assert_int_eq(sim_kernel_create(&ko, &fk.k), 0);
	test_cfg(&cfg);
	cfg.target = 0.0001; /* units to the end */
	run_sampled(fk.k, &cfg, ops, &fk, cycles, at_cycles, units);
	*first_at = fk.first_at;
	sim_kernel_destroy(fk.k);
}

START_TEST(test_warmup_waits_for_lt_answers)
{
	double at_now, at_late, at_none;
	unsigned u_now, u_late, u_none;
	sim_time_t first_now, first_late, first_none;
	struct samp_initiator_ops no_settle = fake_ops;

	/* settled from the start: each warm-up is its 100 cycles; three units (min_units: their
	 * pairs agree exactly, one work per cycle in both faces), 1 100 detailed cycles each */
	run_kernel(&fake_ops, 0, 50000, &at_now, &u_now, &first_now);
	ck_assert_uint_eq(u_now, 3);
	ck_assert_double_eq_tol(at_now, 3 * 1100, 1e-6);
	ck_assert_uint_eq(first_now, 1000 * CYCLE_PS); /* after `first` LT cycles */

	/* LT answers in flight until cycle 30 000: the first warm-up, from cycle 1 000, lasts
	 * until then (the check runs every 16 cycles) */
	run_kernel(&fake_ops, 30000, 50000, &at_late, &u_late, &first_late);
	ck_assert_uint_eq(first_late, 1000 * CYCLE_PS);
	ck_assert_uint_eq(u_late, 3);
	ck_assert_double_ge(at_late, (30000 - 1000) + 3 * 1000 + 2 * 100);
	ck_assert_double_le(at_late, (30000 - 1000) + 3 * 1000 + 2 * 100 + 16);

	/* an initiator without the op never holds a warm-up */
	no_settle.lt_settled = NULL;
	run_kernel(&no_settle, 30000, 50000, &at_none, &u_none, &first_none);
	ck_assert_uint_eq(u_none, u_now);
	ck_assert_double_eq(at_none, at_now);
	ck_assert_uint_eq(first_none, first_now);
}
END_TEST

/* sampling.predictor = events in hybrid mode needs the system's counters: a system that gives
 * none is refused with one line naming where the setting came from, never left to fall back
 * to pairs of another kind; with counters, or in another mode, or with the rate predictor, it
 * is ready. */
START_TEST(test_events_need_counters)
{
	struct sim_kernel_opts ko = {0};
	struct sim_kernel *k;
	struct sim_clock clk;
	struct samp_cfg cfg;
	struct sampler *s;
	struct cs_err err = {0};
	const struct samp_events ev = {.layout = {.n = {1}, .cycles = {1}}};

	ck_assert_int_eq(sim_kernel_create(&ko, &k), 0);
	ck_assert_int_eq(sim_clock_init(&clk, 1000000000ull), 0);
	ck_assert_int_eq(cs_params_defaults(&samp_params, &cfg, NULL), 0);
	ck_assert_int_eq(cfg.predictor, SAMP_PRED_EVENTS); /* the default */
	ck_assert_int_eq(sampler_create(k, &clk, &cfg, CS_MODE_HYBRID, &sys_ops, NULL, &s), 0);
	ck_assert_int_eq(sampler_ready(s, "x.cfg:3", "test", &err), -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "x.cfg:3: system test gives no event counters for same-event "
				  "pairs; set sampling.predictor = \"rate\"");
	ck_assert_int_eq(sampler_set_events(s, &ev), 0);
	ck_assert_int_eq(sampler_ready(s, "x.cfg:3", "test", &err), 0);
	sampler_destroy(s);
	ck_assert_int_eq(sampler_create(k, &clk, &cfg, CS_MODE_ANALYTIC, &sys_ops, NULL, &s), 0);
	ck_assert_int_eq(sampler_ready(s, "x.cfg:3", "test", &err), 0);
	sampler_destroy(s);
	cfg.predictor = SAMP_PRED_RATE;
	ck_assert_int_eq(sampler_create(k, &clk, &cfg, CS_MODE_HYBRID, &sys_ops, NULL, &s), 0);
	ck_assert_int_eq(sampler_ready(s, "x.cfg:3", "test", &err), 0);
	sampler_destroy(s);
	sim_kernel_destroy(k);
}
END_TEST

/* Where a kernel of one work a cycle takes its units: the cycle each warm-up starts (the
 * switch to the detailed face), up to 64 of them, with units to the kernel's end. */
struct unit_log {
	struct fake fk;
	sim_time_t at[64];
	unsigned n;
};

static void log_set_face(void *obj, unsigned face)
{
	struct unit_log *l = obj;

	if (face == SAMP_FACE_AT && l->fk.face != SAMP_FACE_AT && l->n < 64)
		l->at[l->n++] = sim_now(l->fk.k) / CYCLE_PS;
	l->fk.face = face;
}

static void unit_starts(double jitter, uint64_t seed, struct unit_log *l)
{
	struct sim_kernel_opts ko = {0};
	struct samp_cfg cfg;
	struct samp_initiator_ops ops = fake_ops;
	double at;
	unsigned units;

	ops.set_face = log_set_face;
	*l = (struct unit_log){.fk = {.face = SAMP_FACE_LT, .first_at = SIM_TIME_MAX}};
	ck_assert_int_eq(sim_kernel_create(&ko, &l->fk.k), 0);
	test_cfg(&cfg);
	cfg.min_units = 100000; /* units to the end */
	cfg.jitter = jitter;
	cfg.seed = seed;
	run_sampled(l->fk.k, &cfg, &ops, l, 150000, &at, &units);
	ck_assert_uint_ge(units + 1, l->n); /* every warm-up a unit but perhaps the last */
	sim_kernel_destroy(l->fk.k);
}

/* sampling.jitter: units at a fixed period alias with a program that repeats at a multiple of
 * it (cpu_mp's rounds put three units in a row at one point of a round), so each unit starts
 * at a seeded uniform point of its period. Without jitter every LT interval is the period;
 * with it each lies in (0, 2 periods) and they average the period (stratified: one unit per
 * period); the same seed gives the same units, another seed others. */
START_TEST(test_units_jittered)
{
	struct unit_log fixed, a, b, c;
	double sum = 0, lo = 1e30, hi = 0;
	unsigned n;

	unit_starts(0, 1, &fixed);
	ck_assert_uint_ge(fixed.n, 40);
	ck_assert_uint_eq(fixed.at[0], 1000); /* after `first` LT cycles */
	/* warm-up 100 + unit 1 000 (no drain: the fake is never busy) + the period */
	for (unsigned i = 1; i < fixed.n; i++)
		ck_assert_uint_eq(fixed.at[i] - fixed.at[i - 1], 100 + 1000 + 2000);

	unit_starts(1, 1, &a);
	unit_starts(1, 1, &b);
	unit_starts(1, 2, &c);
	ck_assert_uint_eq(a.at[0], 1000);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert_mem_eq(a.at, b.at, a.n * sizeof(a.at[0]));
	ck_assert(c.n != a.n || memcmp(c.at, a.at, a.n * sizeof(a.at[0])) != 0);
	n = a.n; /* at most 64: log_set_face keeps no more */
	ck_assert_uint_ge(n, 30);
	for (unsigned i = 1; i < n; i++) {
		double lt = (double)(a.at[i] - a.at[i - 1]) - 1100;

		sum += lt;
		lo = lt < lo ? lt : lo;
		hi = lt > hi ? lt : hi;
		ck_assert_double_gt(lt, 0);
		ck_assert_double_lt(lt, 2 * 2000);
	}
	/* the intervals spread (a fixed period would give lo = hi = 2 000) and telescope: their
	 * sum is the periods less the first offset plus the last, within one period of n - 1 */
	ck_assert_double_lt(lo, 1000);
	ck_assert_double_gt(hi, 3000);
	ck_assert_double_le(fabs(sum - 2000.0 * (n - 1)), 2000);
}
END_TEST

static Suite *sampler_suite(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("phases");

	tcase_add_test(tc, test_warmup_waits_for_lt_answers);
	tcase_add_test(tc, test_events_need_counters);
	tcase_add_test(tc, test_units_jittered);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sampler_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
