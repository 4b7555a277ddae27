/*
 * tests/unit/test_analytic.c - queueing formulas of the analytic model (analytic/queue.c):
 * closed forms, the saturation clamp, exact MVA against the machine-repairman model and the
 * asymptotic bounds, the load meter, the DRAM channel against the detailed model's unloaded
 * closed forms, M/D/1 and M/G/1 against a discrete-event simulation with a fixed seed, and the
 * bottleneck bound of an interval's counts (analytic/evbound.c).
 */
#include <check.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analytic/evbound.h"
#include "analytic/ltmodel.h"
#include "analytic/queue.h"
#include "tlm/dram/dram.h"
#include "util/error.h"
#include "util/params.h"

static int close_rel(double a, double b, double tol)
{
	double scale = fabs(b) > 1e-300 ? fabs(b) : 1.0;

	return fabs(a - b) <= tol * scale;
}

#define ck_assert_rel(a, b, tol)                                                                 \
	ck_assert_msg(close_rel((a), (b), (tol)), "%s = %.12g, expected %.12g (rel tol %g)", #a, \
		      (double)(a), (double)(b), (double)(tol))

/* ---- open queues ------------------------------------------------------------------------- */

START_TEST(test_md1_closed_form)
{
	/* rho = 0.5: Wq = 0.5 S / (2 * 0.5) = S / 2 */
	ck_assert_rel(aq_md1_wait(0.05, 10.0, 0.98), 5.0, 1e-12);
	ck_assert_rel(aq_md1_wait(0.5, 1.0, 0.98), 0.5, 1e-12);
	/* rho = 0.8, S = 4: 0.8 * 4 / 0.4 = 8 */
	ck_assert_rel(aq_md1_wait(0.2, 4.0, 0.98), 8.0, 1e-12);
	/* no load, no wait */
	ck_assert(aq_md1_wait(0.0, 4.0, 0.98) == 0.0);
	ck_assert(aq_md1_wait(0.1, 0.0, 0.98) == 0.0);
	ck_assert(aq_md1_wait(-1.0, 4.0, 0.98) == 0.0);
	/* M/G/1 with deterministic moments is M/D/1 */
	ck_assert_rel(aq_mg1_wait(0.2, 4.0, 16.0, 0.98), aq_md1_wait(0.2, 4.0, 0.98), 1e-15);
}
END_TEST

START_TEST(test_mg1_exponential_is_mm1)
{
	static const double rhos[] = {0.1, 0.3, 0.5, 0.7, 0.9, 0.95};
	const double s = 7.0;

	for (unsigned i = 0; i < sizeof(rhos) / sizeof(rhos[0]); i++) {
		double rho = rhos[i], lambda = rho / s;
		double mm1 = rho / (1.0 - rho) * s;

		ck_assert_rel(aq_mg1_wait(lambda, s, 2.0 * s * s, 0.98), mm1, 1e-12);
	}
}
END_TEST

START_TEST(test_clamp)
{
	const double s = 10.0;
	double at_cap = 0.9 * s / (2.0 * 0.1); /* M/D/1 at rho = 0.9 */
	double prev = 0.0;

	/* at and beyond saturation: the value at rho_max, finite */
	ck_assert_rel(aq_md1_wait(0.09, s, 0.9), at_cap, 1e-12);
	ck_assert_rel(aq_md1_wait(0.1, s, 0.9), at_cap, 1e-12);
	ck_assert_rel(aq_md1_wait(0.15, s, 0.9), at_cap, 1e-12);
	ck_assert_rel(aq_md1_wait(1e9, s, 0.9), at_cap, 1e-12);
	/* M/G/1: the saturated value depends on the moments only */
	ck_assert_rel(aq_mg1_wait(1.0, s, 3.0 * s * s, 0.9), (0.9 / s) * 3.0 * s * s / 0.2, 1e-12);
	/* a bad rho_max means the default */
	ck_assert_rel(aq_md1_wait(1.0, s, 0.0),
		      AQ_RHO_MAX_DEFAULT * s / (2 * (1 - AQ_RHO_MAX_DEFAULT)), 1e-12);
	ck_assert_rel(aq_md1_wait(1.0, s, 1.5), aq_md1_wait(1.0, s, AQ_RHO_MAX_DEFAULT), 1e-15);
	/* below the clamp it does not act */
	ck_assert_rel(aq_md1_wait(0.05, s, 0.9), 5.0, 1e-12);
	/* non-decreasing in lambda throughout */
	for (double lam = 0.0; lam < 0.2; lam += 0.001) {
		double w = aq_md1_wait(lam, s, 0.9);

		if (!(w >= prev) || !isfinite(w))
			ck_abort_msg("wait not monotone/finite at lambda %g: %g < %g", lam, w,
				     prev);
		prev = w;
	}
}
END_TEST

/* ---- MVA --------------------------------------------------------------------------------- */

/* Machine repairman (finite-source M/M/1): n customers think Z (mean), queue at one server with
 * mean service S. p0 = 1 / sum_{j=0..n} n!/(n-j)! (S/Z)^j, X = (1 - p0) / S, R = n / X - Z. */
static void repairman(unsigned n, double s, double z, double *x, double *r)
{
	double sum = 0.0, term = 1.0, p0;

	for (unsigned j = 0; j <= n; j++) {
		sum += term;
		term *= (double)(n - j) * s / z;
	}
	p0 = 1.0 / sum;
	*x = (1.0 - p0) / s;
	*r = (double)n / *x - z;
}

START_TEST(test_mva_single_customer)
{
	const double d[] = {3.0, 5.5, 0.25, 10.0};
	const uint8_t delay[] = {0, 1, 0, 1};
	struct aq_mva_result res;

	ck_assert_int_eq(aq_mva(d, delay, 4, 7.0, 1, &res), 0);
	ck_assert_rel(res.r, 18.75, 1e-14);
	ck_assert_rel(res.x, 1.0 / (18.75 + 7.0), 1e-14);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_rel(res.resid[i], d[i], 1e-14);
	ck_assert_uint_eq(res.k, 4);
	/* no customers: unloaded residences, no throughput */
	ck_assert_int_eq(aq_mva(d, NULL, 4, 7.0, 0, &res), 0);
	ck_assert(res.x == 0.0);
	ck_assert_rel(res.r, 18.75, 1e-14);
}
END_TEST

START_TEST(test_mva_repairman)
{
	const double s = 10.0, z = 50.0;
	struct aq_mva_result res;

	for (unsigned n = 1; n <= 40; n++) {
		double x, r;

		repairman(n, s, z, &x, &r);
		ck_assert_int_eq(aq_mva(&s, NULL, 1, z, n, &res), 0);
		if (!close_rel(res.x, x, 1e-9) || !close_rel(res.r, r, 1e-9))
			ck_abort_msg("n=%u: MVA X=%.12g R=%.12g, repairman X=%.12g R=%.12g", n,
				     res.x, res.r, x, r);
		if (!close_rel(res.util[0], x * s, 1e-9) || !close_rel(res.queue[0], x * r, 1e-9))
			ck_abort_msg("n=%u: utilisation or queue length off", n);
	}
	/* a delay station is think time by another name */
	{
		const double d2[] = {10.0, 20.0};
		const uint8_t delay[] = {0, 1};

		for (unsigned n = 1; n <= 40; n++) {
			double x, r;

			repairman(n, s, z, &x, &r);
			ck_assert_int_eq(aq_mva(d2, delay, 2, z - 20.0, n, &res), 0);
			if (!close_rel(res.x, x, 1e-9) || !close_rel(res.resid[0], r, 1e-9) ||
			    res.resid[1] != 20.0 || !close_rel(res.r, r + 20.0, 1e-9))
				ck_abort_msg("n=%u: delay station not equivalent to think", n);
		}
	}
}
END_TEST

START_TEST(test_mva_bounds_monotone)
{
	const double d[] = {4.0, 6.0, 10.0, 5.0};
	const uint8_t delay[] = {0, 0, 0, 1};
	const double z = 20.0, dsum = 25.0, dmax = 10.0;
	double px = 0.0, pr = 0.0;
	struct aq_mva_result res;

	for (unsigned n = 1; n <= 200; n++) {
		ck_assert_int_eq(aq_mva(d, delay, 4, z, n, &res), 0);
		if (res.x > 1.0 / dmax * (1 + 1e-12) || res.x > n / (dsum + z) * (1 + 1e-12))
			ck_abort_msg("n=%u: X=%g above min(1/Dmax, n/(D+Z))", n, res.x);
		/* response time at least the unloaded sum and the bottleneck bound n*Dmax - Z */
		if (res.r < dsum * (1 - 1e-12) || res.r < (n * dmax - z) * (1 - 1e-12))
			ck_abort_msg("n=%u: R=%g below its lower bounds", n, res.r);
		if (res.x < px * (1 - 1e-12) ||
		    res.r < pr * (1 - 1e-12)) /* rounding at saturation */
			ck_abort_msg("n=%u: X or R decreased", n);
		/* Little's law over the whole cycle */
		{
			double q = 0.0;

			for (unsigned i = 0; i < 4; i++)
				q += res.queue[i];
			if (!close_rel(q + res.x * z, n, 1e-9))
				ck_abort_msg("n=%u: customers not conserved (%g)", n,
					     q + res.x * z);
		}
		px = res.x;
		pr = res.r;
	}
	/* heavy load approaches the bottleneck */
	ck_assert_double_gt(px, 0.99 / dmax);
}
END_TEST

START_TEST(test_mva_errors)
{
	double d[AQ_MVA_MAX + 1] = {1.0};
	struct aq_mva_result res;

	ck_assert_int_eq(aq_mva(d, NULL, 0, 1.0, 3, &res), -CS_EINVAL);
	ck_assert_int_eq(aq_mva(d, NULL, AQ_MVA_MAX + 1, 1.0, 3, &res), -CS_EINVAL);
	ck_assert_int_eq(aq_mva(d, NULL, AQ_MVA_MAX, 1.0, 3, &res), 0);
	ck_assert_int_eq(aq_mva(NULL, NULL, 1, 1.0, 3, &res), -CS_EINVAL);
	ck_assert_int_eq(aq_mva(d, NULL, 1, 1.0, 3, NULL), -CS_EINVAL);
	ck_assert_int_eq(aq_mva(d, NULL, 1, -1.0, 3, &res), -CS_EINVAL);
	d[0] = -1.0;
	ck_assert_int_eq(aq_mva(d, NULL, 1, 1.0, 3, &res), -CS_EINVAL);
	d[0] = NAN;
	ck_assert_int_eq(aq_mva(d, NULL, 1, 1.0, 3, &res), -CS_EINVAL);
	d[0] = 0.0;
	ck_assert_int_eq(aq_mva(d, NULL, 1, 0.0, 3, &res), -CS_EINVAL);
}
END_TEST

/* ---- meter ------------------------------------------------------------------------------- */

START_TEST(test_meter)
{
	struct aq_meter m;

	aq_meter_init(&m, 100.0, 0.5);
	ck_assert(aq_meter_lambda(&m) == 0.0 && aq_meter_s1(&m) == 0.0 && aq_meter_s2(&m) == 0.0);

	/* window 1: 10 arrivals of service 4 in 100 cycles, set directly */
	for (int i = 0; i < 10; i++)
		aq_meter_add(&m, 4.0);
	aq_meter_roll(&m, 100.0);
	ck_assert_rel(aq_meter_lambda(&m), 0.1, 1e-15);
	ck_assert_rel(aq_meter_s1(&m), 4.0, 1e-15);
	ck_assert_rel(aq_meter_s2(&m), 16.0, 1e-15);

	/* window 2: 20 arrivals, services 2 and 6 (mean 4, E[S^2] 20), in any order */
	for (int i = 0; i < 10; i++)
		aq_meter_add(&m, 6.0);
	for (int i = 0; i < 10; i++)
		aq_meter_add(&m, 2.0);
	aq_meter_roll(&m, 100.0);
	ck_assert_rel(aq_meter_lambda(&m), 0.5 * 0.2 + 0.5 * 0.1, 1e-15);
	ck_assert_rel(aq_meter_s1(&m), 4.0, 1e-15);
	ck_assert_rel(aq_meter_s2(&m), 0.5 * 20.0 + 0.5 * 16.0, 1e-15);

	/* window 3: empty, nominal length: lambda halves, service estimates stay */
	aq_meter_roll(&m, 0.0);
	ck_assert_rel(aq_meter_lambda(&m), 0.075, 1e-15);
	ck_assert_rel(aq_meter_s1(&m), 4.0, 1e-15);
	ck_assert_rel(aq_meter_s2(&m), 18.0, 1e-15);

	/* window 4: 30 arrivals of 10 in 50 cycles */
	for (int i = 0; i < 30; i++)
		aq_meter_add(&m, 10.0);
	aq_meter_roll(&m, 50.0);
	ck_assert_rel(aq_meter_lambda(&m), 0.5 * 0.6 + 0.5 * 0.075, 1e-15);
	ck_assert_rel(aq_meter_s1(&m), 7.0, 1e-15);
	ck_assert_rel(aq_meter_s2(&m), 59.0, 1e-15);
	ck_assert_uint_eq(m.windows, 4);

	/* a steady stream converges to its true values whatever alpha */
	aq_meter_init(&m, 10.0, 0.25);
	ck_assert(m.alpha == 0.25);
	for (int w = 0; w < 200; w++) {
		aq_meter_add(&m, 1.0);
		aq_meter_add(&m, 3.0);
		aq_meter_roll(&m, 10.0);
	}
	ck_assert_rel(aq_meter_lambda(&m), 0.2, 1e-12);
	ck_assert_rel(aq_meter_s1(&m), 2.0, 1e-12);
	ck_assert_rel(aq_meter_s2(&m), 5.0, 1e-12);

	/* the first windows may be empty: service estimates start at the first arrivals */
	aq_meter_init(&m, 10.0, 2.0);
	ck_assert(m.alpha == AQ_METER_ALPHA_DEFAULT);
	aq_meter_roll(&m, 10.0);
	aq_meter_add(&m, 8.0);
	aq_meter_roll(&m, 10.0);
	ck_assert_rel(aq_meter_lambda(&m), 0.05, 1e-15);
	ck_assert_rel(aq_meter_s1(&m), 8.0, 1e-15);
	ck_assert_rel(aq_meter_s2(&m), 64.0, 1e-15);
}
END_TEST

/* ---- the LT face's backlog ------------------------------------------------------------------ */

/* The backlog of a work-conserving server of one unit of service per cycle: 100 arrivals of 4
 * cycles, one every 2 cycles (twice its capacity). At t = 208 (a bin's start, after all of
 * them) 400 - 208 = 192 cycles remain, whatever order the arrivals were noted in; an arrival
 * noted out of order after a later one meets no idle gap charged as backlog (the FCFS clock
 * it replaced charged the gap to the latest arrival); idle time serves the backlog. */
static double probe_backlog(struct lt_res *r, uint64_t cycle)
{
	struct lt_params p;

	lt_params_default(&p);
	lt_res_note(r, (sim_time_t)cycle * 1000, 0.0);
	ck_assert(lt_res_wait(r, &p, LT_RES_DRAM) >= r->backlog); /* the larger of the two */
	return r->backlog;
}

START_TEST(test_lt_backlog)
{
	struct lt_params p;
	struct lt_res a, b;
	unsigned order[100];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	lt_params_default(&p);
	gsl_rng_set(rng, 7);
	for (unsigned i = 0; i < 100; i++)
		order[i] = i;
	gsl_ran_shuffle(rng, order, 100, sizeof(order[0]));
	lt_res_init(&a, 1000, &p); /* 1 GHz: a cycle is 1 000 ps */
	lt_res_init(&b, 1000, &p);
	for (unsigned i = 0; i < 100; i++) {
		lt_res_note(&a, (sim_time_t)(2 * i) * 1000, 4.0);
		lt_res_note(&b, (sim_time_t)(2 * order[i]) * 1000, 4.0);
		/* in time order, within a bin's worth of the server's exact FCFS backlog */
		ck_assert_double_le(fabs(a.backlog - (2.0 * i)), 2.0 * LT_BIN);
	}
	ck_assert_double_eq_tol(probe_backlog(&a, 208), 192.0, 1e-9);
	ck_assert_double_eq_tol(probe_backlog(&b, 208), 192.0, 1e-9);
	ck_assert_double_eq_tol(probe_backlog(&a, 304), 96.0, 1e-9);
	ck_assert_double_eq_tol(probe_backlog(&a, 400), 0.0, 1e-9);

	/* light load noted out of order: no wait */
	lt_res_init(&a, 1000, &p);
	lt_res_note(&a, 1000 * 1000, 4.0);
	lt_res_note(&a, 10 * 1000, 4.0);
	ck_assert_double_eq(a.backlog, 0.0);
	ck_assert_double_eq(lt_res_wait(&a, &p, LT_RES_DRAM), 0.0);
	/* ... and a late note keeps its demand: the bins after it start with it */
	lt_res_init(&a, 1000, &p);
	lt_res_note(&a, 160 * 1000, 0.0);
	lt_res_note(&a, 0, 100.0);
	ck_assert_double_eq_tol(probe_backlog(&a, 48), 52.0, 1e-9);

	/* far beyond the calendar's span: the backlog is served and the span moves on */
	ck_assert_double_eq(probe_backlog(&a, 100 * LT_BINS * LT_BIN), 0.0);
	p.exact = true;
	lt_res_note(&a, (sim_time_t)(100 * LT_BINS * LT_BIN) * 1000, 1e6);
	ck_assert_double_eq(lt_res_wait(&a, &p, LT_RES_DRAM), 0.0); /* exact: no wait */
	gsl_rng_free(rng);
}
END_TEST

/* ---- DRAM -------------------------------------------------------------------------------- */

static struct aq_dram gddr5(const struct dram_cfg *c)
{
	struct aq_dram d = {
	    .t_burst = (double)c->burst_length / (double)c->data_rate,
	    .t_cl = (double)c->tCL,
	    .t_rcd = (double)c->tRCD,
	    .t_rp = (double)c->tRP,
	    .t_ras_min = (double)c->tRAS,
	    .t_ctrl = (double)c->ctrl_latency,
	    .banks = (unsigned)c->banks,
	    .rho_max = 0.98,
	};

	return d;
}

/* Out of line: inlined into a caller with the struct on its stack, LTO warns about the string
 * branch of the parameter parser that dram_params never takes. */
__attribute__((noinline)) static int dram_defaults(struct dram_cfg *cfg)
{
	return cs_params_defaults(&dram_params, cfg, NULL);
}

START_TEST(test_dram_unloaded)
{
	struct dram_cfg cfg;
	struct aq_dram d;
	unsigned atom;
	double w;

	ck_assert_int_eq(dram_defaults(&cfg), 0);
	atom = (unsigned)(cfg.bus_bytes * cfg.burst_length);
	for (unsigned ctrl = 0; ctrl <= 5; ctrl += 5) {
		cfg.ctrl_latency = ctrl;
		d = gddr5(&cfg);
		ck_assert_rel(aq_dram_latency(&d, 0.0, 1.0, &w),
			      (double)dram_unloaded_read_cycles(&cfg, atom, DRAM_ROW_HIT), 1e-15);
		ck_assert(w == 0.0);
		ck_assert_rel(aq_dram_latency(&d, 0.0, 0.0, &w),
			      (double)dram_unloaded_read_cycles(&cfg, atom, DRAM_ROW_CONFLICT),
			      1e-15);
		/* a mix is the mix of the two */
		ck_assert_rel(
		    aq_dram_latency(&d, 0.0, 0.25, NULL),
		    0.25 * (double)dram_unloaded_read_cycles(&cfg, atom, DRAM_ROW_HIT) +
			0.75 * (double)dram_unloaded_read_cycles(&cfg, atom, DRAM_ROW_CONFLICT),
		    1e-12);
	}
	/* the GTX 480 numbers themselves: hit 12 + 2, conflict 12 + 12 + 12 + 2 */
	cfg.ctrl_latency = 0;
	d = gddr5(&cfg);
	ck_assert_rel(aq_dram_latency(&d, 0.0, 1.0, NULL), 14.0, 1e-15);
	ck_assert_rel(aq_dram_latency(&d, 0.0, 0.0, NULL), 38.0, 1e-15);
	/* out-of-range hit rates are clamped */
	ck_assert_rel(aq_dram_latency(&d, 0.0, 2.0, NULL), 14.0, 1e-15);
	ck_assert_rel(aq_dram_latency(&d, 0.0, -1.0, NULL), 38.0, 1e-15);
	/* bad inputs */
	ck_assert(aq_dram_latency(NULL, 0.1, 0.5, NULL) == 0.0);
	d.banks = 0;
	ck_assert(aq_dram_latency(&d, 0.1, 0.5, &w) == 0.0 && w == 0.0);
}
END_TEST

START_TEST(test_dram_loaded)
{
	struct aq_dram d = {.t_burst = 2,
			    .t_cl = 12,
			    .t_rcd = 12,
			    .t_rp = 12,
			    .t_ras_min = 28,
			    .t_ctrl = 0,
			    .banks = 16,
			    .rho_max = 0.98};
	double prev = 0.0, w16, w4, lat, wait;

	/* by hand at lambda 0.2, row_hit 0.5: bank occupancy hit 12, miss max(36, 28 + 12) = 40;
	 * E[S] = 26, E[S^2] = (144 + 1600) / 2 = 872; per-bank lambda 0.0125, rho 0.325:
	 * bank wait = 0.0125 * 872 / (2 * 0.675); bus rho 0.4: 0.4 * 2 / 1.2; service 24 */
	lat = aq_dram_latency(&d, 0.2, 0.5, &wait);
	{
		double bank = 0.0125 * 872.0 / (2.0 * 0.675), bus = 0.4 * 2.0 / (2.0 * 0.6);

		ck_assert_rel(wait, bank + bus, 1e-12);
		ck_assert_rel(lat, bank + 24.0 + bus + 2.0, 1e-12);
	}
	/* t_ras_min 0: a miss occupies its bank for its access only */
	d.t_ras_min = 0;
	aq_dram_latency(&d, 0.2, 0.5, &wait);
	{
		double bank = 0.0125 * ((144.0 + 1296.0) / 2.0) / (2.0 * (1.0 - 0.0125 * 24.0));

		ck_assert_rel(wait, bank + 0.4 * 2.0 / (2.0 * 0.6), 1e-12);
	}
	d.t_ras_min = 28;

	/* strictly increasing with load until the bus saturates (lambda = 0.49) */
	for (double lam = 0.0; lam < 0.48; lam += 0.005) {
		double l = aq_dram_latency(&d, lam, 0.6, NULL);

		if (lam > 0.0 && !(l > prev))
			ck_abort_msg("latency not increasing at lambda %g: %g <= %g", lam, l, prev);
		prev = l;
	}
	/* more banks, less waiting; same service */
	aq_dram_latency(&d, 0.1, 0.3, &w16);
	d.banks = 4;
	aq_dram_latency(&d, 0.1, 0.3, &w4);
	ck_assert_double_lt(w16, w4);
	d.banks = 64;
	{
		double w64;

		aq_dram_latency(&d, 0.1, 0.3, &w64);
		ck_assert_double_lt(w64, w16);
	}
	/* more row hits, less latency at the same load */
	d.banks = 16;
	ck_assert_double_lt(aq_dram_latency(&d, 0.1, 0.9, NULL),
			    aq_dram_latency(&d, 0.1, 0.1, NULL));
	/* saturated: large but finite */
	lat = aq_dram_latency(&d, 10.0, 0.0, NULL);
	ck_assert(isfinite(lat) && lat > 100.0);
}
END_TEST

/* ---- against simulation ------------------------------------------------------------------ */

/* Draws one service time. */
typedef double (*service_fn)(gsl_rng *r, const double *arg);

static double svc_det(gsl_rng *r, const double *arg)
{
	(void)r;
	return arg[0];
}

/* arg: a, b, P(a) */
static double svc_two_point(gsl_rng *r, const double *arg)
{
	return gsl_rng_uniform(r) < arg[2] ? arg[0] : arg[1];
}

/*
 * A discrete-event single FCFS server: customers arrive by a Poisson process of rate lambda,
 * start at max(arrival, server free), leave after their service. Returns the mean wait in queue
 * over `customers` customers, after a warm-up of customers / 20 (dropped: the queue starts
 * empty). Fixed seed: the outcome is a fixed number.
 */
static double simulate_wait(double lambda, service_fn svc, const double *arg, unsigned customers,
			    unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double t = 0.0, free_at = 0.0, sum = 0.0;
	unsigned warm = customers / 20;

	gsl_rng_set(r, seed);
	for (unsigned i = 0; i < warm + customers; i++) {
		double start;

		t += gsl_ran_exponential(r, 1.0 / lambda);
		start = t > free_at ? t : free_at;
		if (i >= warm)
			sum += start - t;
		free_at = start + svc(r, arg);
	}
	gsl_rng_free(r);
	return sum / customers;
}

static const double sim_rhos[] = {0.3, 0.6, 0.8};

START_TEST(test_md1_vs_simulation)
{
	const double s = 4.0;
	double rho = sim_rhos[_i], lambda = rho / s;
	double sim = simulate_wait(lambda, svc_det, &s, 200000, 1);
	double model = aq_md1_wait(lambda, s, 0.98);

	ck_assert_msg(fabs(sim - model) <= 0.05 * model,
		      "M/D/1 rho %.1f: simulated Wq %.4f, formula %.4f (%.2f%%)", rho, sim, model,
		      100.0 * (sim - model) / model);
}
END_TEST

START_TEST(test_mg1_vs_simulation)
{
	/* service 2 w.p. 0.75, 14 w.p. 0.25: E[S] = 5, E[S^2] = 52 (SCV 1.08) */
	const double arg[3] = {2.0, 14.0, 0.75};
	const double m1 = 5.0, m2 = 52.0;
	double rho = sim_rhos[_i], lambda = rho / m1;
	double sim = simulate_wait(lambda, svc_two_point, arg, 200000, 1);
	double model = aq_mg1_wait(lambda, m1, m2, 0.98);

	ck_assert_msg(fabs(sim - model) <= 0.05 * model,
		      "M/G/1 rho %.1f: simulated Wq %.4f, formula %.4f (%.2f%%)", rho, sim, model,
		      100.0 * (sim - model) / model);
}
END_TEST

/* ---- bottleneck bound ---------------------------------------------------------------------- */

/* Two SMs with two schedulers, two banks, one channel at twice the core clock, two ports at
 * twice the core clock: the interval lasts at least as long as its busiest resource is busy. */
START_TEST(test_evbound)
{
	const struct evb_layout l = {.n = {2, 2, 1, 2}, .cycles = {0.5, 1.0, 0.5, 0.5}};
	double a[7] = {100, 100, 10, 10, 0, 0, 0};
	double issue[7] = {1100, 700, 210, 310, 400, 600, 200};
	double dram[7] = {200, 200, 20, 20, 900, 10, 10};
	double later[7] = {1200, 1500, 300, 320, 1000, 700, 900};

	ck_assert_uint_eq(evb_len(&l), 7);
	ck_assert_rel(evb_cycles(&l, a, a), 0.0, 0);
	/* SM 0: 1000 slots over 2 schedulers = 500 cycles; bank 1: 300; port 0: 300 */
	ck_assert_rel(evb_cycles(&l, a, issue), 500.0, 1e-12);
	/* the channel's 900 bus cycles at twice the core clock: 450 core cycles */
	ck_assert_rel(evb_cycles(&l, a, dram), 450.0, 1e-12);
	/* two halves with different bottlenecks (SM 0, then SM 1): the whole interval's bound
	 * (SM 1: 1400 slots, 700 cycles) is less than the sum of the halves' (500 + 400) */
	ck_assert_rel(evb_cycles(&l, issue, later), 400.0, 1e-12);
	ck_assert_rel(evb_cycles(&l, a, later), 700.0, 1e-12);
}
END_TEST

static Suite *analytic_suite(void)
{
	Suite *s = suite_create("analytic");
	TCase *tc = tcase_create("open");

	tcase_add_test(tc, test_md1_closed_form);
	tcase_add_test(tc, test_mg1_exponential_is_mm1);
	tcase_add_test(tc, test_clamp);
	suite_add_tcase(s, tc);

	tc = tcase_create("mva");
	tcase_add_test(tc, test_mva_single_customer);
	tcase_add_test(tc, test_mva_repairman);
	tcase_add_test(tc, test_mva_bounds_monotone);
	tcase_add_test(tc, test_mva_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("meter");
	tcase_add_test(tc, test_meter);
	tcase_add_test(tc, test_lt_backlog);
	suite_add_tcase(s, tc);

	tc = tcase_create("dram");
	tcase_add_test(tc, test_dram_unloaded);
	tcase_add_test(tc, test_dram_loaded);
	suite_add_tcase(s, tc);

	tc = tcase_create("evbound");
	tcase_add_test(tc, test_evbound);
	suite_add_tcase(s, tc);

	tc = tcase_create("simulation");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_md1_vs_simulation, 0, 3);
	tcase_add_loop_test(tc, test_mg1_vs_simulation, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(analytic_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
