/*
 * tests/unit/test_estimator.c - the sampling controller's estimators (sampling/estimator.c):
 * hand-computed examples with table t values, the coverage of the 95% interval over many
 * fixed-seed samples of a known population, regression against ratio on data with an
 * intercept, the a-priori sample size, and argument errors.
 */
#include <check.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "sampling/controller.h"
#include "sampling/estimator.h"
#include "util/error.h"

static int close_rel(double a, double b, double tol)
{
	double scale = fabs(b) > 1e-300 ? fabs(b) : 1.0;

	return fabs(a - b) <= tol * scale;
}

#define ck_assert_rel(a, b, tol)                                                                 \
	ck_assert_msg(close_rel((a), (b), (tol)), "%s = %.12g, expected %.12g (rel tol %g)", #a, \
		      (double)(a), (double)(b), (double)(tol))

/* Student-t and normal quantiles from printed tables (two-sided 95%, 90%, 99%). */
#define T975_3 3.182446
#define T975_4 2.776445
#define T975_7 2.364624
#define T95_4  2.131847
#define T995_9 3.249836
#define Z975   1.959964
#define Z995   2.575829

START_TEST(test_t_quantile)
{
	ck_assert_rel(est_t_quantile(0.95, 4), T975_4, 1e-6);
	ck_assert_rel(est_t_quantile(0.95, 3), T975_3, 1e-6);
	ck_assert_rel(est_t_quantile(0.95, 7), T975_7, 1e-6);
	ck_assert_rel(est_t_quantile(0.90, 4), T95_4, 1e-6);
	ck_assert_rel(est_t_quantile(0.99, 9), T995_9, 1e-6);
	/* many degrees: the normal quantile */
	ck_assert_rel(est_t_quantile(0.95, 1000000), Z975, 1e-5);
	ck_assert(est_t_quantile(0.95, 0) == HUGE_VAL);
	ck_assert(isnan(est_t_quantile(1.0, 4)));
	ck_assert(isnan(est_t_quantile(0.0, 4)));
}
END_TEST

START_TEST(test_ratio_exact)
{
	const double p[] = {1, 2, 3}, m[] = {2, 4, 6};
	struct est_result r;

	ck_assert_int_eq(est_ratio(p, m, 3, 100.0, 0.0, 0.95, &r), 0);
	ck_assert_rel(r.ratio, 2.0, 1e-15);
	ck_assert_rel(r.slope, 2.0, 1e-15);
	ck_assert_rel(r.estimate, 200.0, 1e-15);
	ck_assert(r.half == 0.0 && r.rel_half == 0.0);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_rel(r.t, 4.302653, 1e-6); /* t_{0.975, 2} */
}
END_TEST

START_TEST(test_ratio_known)
{
	const double p[] = {10, 12, 9, 15, 11}, m[] = {21, 25, 17, 31, 24};
	const double total = 500.0;
	struct est_result r;
	/* by hand: sum p = 57, sum m = 118 */
	double R = 118.0 / 57.0, s2 = 0.0, half, pbar = 57.0 / 5.0;

	for (int i = 0; i < 5; i++)
		s2 += (m[i] - R * p[i]) * (m[i] - R * p[i]);
	s2 /= 4.0;
	half = T975_4 * sqrt(s2 / (5.0 * pbar * pbar)) * total;

	ck_assert_int_eq(est_ratio(p, m, 5, total, 0.0, 0.95, &r), 0);
	ck_assert_rel(r.ratio, R, 1e-15);
	ck_assert_rel(r.estimate, R * total, 1e-14);
	ck_assert_rel(r.half, half, 1e-6);
	ck_assert_rel(r.rel_half, half / (R * total), 1e-6);
	ck_assert_rel(r.t, T975_4, 1e-6);

	/* finite population of 20 units: (1 - 5/20) on the variance */
	ck_assert_int_eq(est_ratio(p, m, 5, total, 20.0, 0.95, &r), 0);
	ck_assert_rel(r.half, half * sqrt(0.75), 1e-6);
	/* the whole population measured: no uncertainty left */
	ck_assert_int_eq(est_ratio(p, m, 5, 57.0, 5.0, 0.95, &r), 0);
	ck_assert_rel(r.estimate, 118.0, 1e-14);
	ck_assert(r.half == 0.0);
	/* 90%: narrower by the t ratio */
	ck_assert_int_eq(est_ratio(p, m, 5, total, 0.0, 0.90, &r), 0);
	ck_assert_rel(r.half, half * T95_4 / T975_4, 1e-6);
}
END_TEST

START_TEST(test_ratio_small_and_errors)
{
	const double p[] = {4, 5}, m[] = {6, 7};
	struct est_result r;

	ck_assert_int_eq(est_ratio(p, m, 1, 40.0, 0.0, 0.95, &r), 0);
	ck_assert_rel(r.estimate, 60.0, 1e-15);
	ck_assert(r.half == HUGE_VAL && r.rel_half == HUGE_VAL);
	ck_assert_int_eq(est_ratio(NULL, NULL, 0, 40.0, 0.0, 0.95, &r), 0);
	ck_assert_rel(r.estimate, 40.0, 1e-15);
	ck_assert(r.ratio == 1.0 && r.half == HUGE_VAL && r.n == 0);

	ck_assert_int_eq(est_ratio(p, m, 2, 40.0, 0.0, 0.0, &r), -CS_EINVAL);
	ck_assert_int_eq(est_ratio(p, m, 2, 40.0, 0.0, 1.0, &r), -CS_EINVAL);
	ck_assert_int_eq(est_ratio(p, m, 2, 40.0, 0.0, -0.5, &r), -CS_EINVAL);
	ck_assert_int_eq(est_ratio(NULL, m, 2, 40.0, 0.0, 0.95, &r), -CS_EINVAL);
	ck_assert_int_eq(est_ratio(p, NULL, 2, 40.0, 0.0, 0.95, &r), -CS_EINVAL);
	ck_assert_int_eq(est_ratio(p, m, 2, 40.0, 0.0, 0.95, NULL), -CS_EINVAL);
	ck_assert_int_eq(est_ratio(p, m, 2, 40.0, 1.0, 0.95, &r), -CS_EINVAL); /* N < n */
	ck_assert_int_eq(est_ratio(p, m, 2, NAN, 0.0, 0.95, &r), -CS_EINVAL);
	{
		const double z[] = {0, 0}, bad[] = {1, INFINITY};

		ck_assert_int_eq(est_ratio(z, m, 2, 40.0, 0.0, 0.95, &r), -CS_EINVAL);
		ck_assert_int_eq(est_ratio(p, bad, 2, 40.0, 0.0, 0.95, &r), -CS_EINVAL);
	}
	ck_assert_int_eq(est_regression(p, m, 2, 40.0, 0.0, 0.95, &r), -CS_EINVAL); /* no N */
	ck_assert_int_eq(est_regression(p, m, 2, 40.0, 10.0, 1.5, &r), -CS_EINVAL);
}
END_TEST

START_TEST(test_regression_known)
{
	const double p[] = {10, 12, 9, 15, 11}, m[] = {21, 25, 17, 31, 24};
	const double total = 500.0, N = 40.0;
	struct est_result r;
	double xbar = 57.0 / 5.0, ybar = 118.0 / 5.0, sxx = 0.0, sxy = 0.0, b, see = 0.0, est, half;

	for (int i = 0; i < 5; i++) {
		sxx += (p[i] - xbar) * (p[i] - xbar);
		sxy += (p[i] - xbar) * (m[i] - ybar);
	}
	b = sxy / sxx; /* 53.6 / 23.2 */
	for (int i = 0; i < 5; i++) {
		double e = m[i] - ybar - b * (p[i] - xbar);

		see += e * e;
	}
	est = N * (ybar + b * (total / N - xbar));
	half = T975_3 * N *
	       sqrt((1.0 - 5.0 / N) * (see / 3.0) *
		    (1.0 / 5.0 + (total / N - xbar) * (total / N - xbar) / sxx));

	ck_assert_int_eq(est_regression(p, m, 5, total, N, 0.95, &r), 0);
	ck_assert_rel(r.slope, b, 1e-14);
	ck_assert_rel(r.estimate, est, 1e-13);
	ck_assert_rel(r.ratio, est / total, 1e-13);
	ck_assert_rel(r.half, half, 1e-6);
	ck_assert_rel(r.t, T975_3, 1e-6);

	/* exact line with an intercept: estimate exact, no width */
	{
		const double pl[] = {1, 2, 3, 4}, ml[] = {13, 15, 17, 19}; /* 11 + 2 p */

		ck_assert_int_eq(est_regression(pl, ml, 4, 100.0, 20.0, 0.95, &r), 0);
		ck_assert_rel(r.estimate, 20.0 * 11.0 + 2.0 * 100.0, 1e-13);
		ck_assert_rel(r.slope, 2.0, 1e-13);
		ck_assert(fabs(r.half) < 1e-9);
	}
	/* no spread in pred: the mean per unit */
	{
		const double pc[] = {5, 5, 5, 5}, mc[] = {9, 11, 10, 10};

		ck_assert_int_eq(est_regression(pc, mc, 4, 100.0, 20.0, 0.95, &r), 0);
		ck_assert(r.slope == 0.0);
		ck_assert_rel(r.estimate, 200.0, 1e-14);
		ck_assert_rel(r.half, 4.302653 * 20.0 * sqrt(0.8 * 2.0 / 8.0), 1e-6);
	}
	/* too few for an interval */
	ck_assert_int_eq(est_regression(p, m, 2, total, N, 0.95, &r), 0);
	ck_assert(r.half == HUGE_VAL && isfinite(r.estimate));
	ck_assert_int_eq(est_regression(p, m, 1, total, N, 0.95, &r), 0);
	ck_assert_rel(r.estimate, 2.1 * total, 1e-14);
	ck_assert(r.half == HUGE_VAL);
}
END_TEST

START_TEST(test_mean)
{
	const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct est_result r;

	ck_assert_int_eq(est_mean(x, 8, 0.95, &r), 0);
	ck_assert_rel(r.estimate, 5.0, 1e-15);
	ck_assert_rel(r.half, T975_7 * sqrt(32.0 / 7.0) / sqrt(8.0), 1e-6);
	ck_assert_rel(r.rel_half, r.half / 5.0, 1e-15);
	ck_assert_int_eq(est_mean(x, 1, 0.95, &r), 0);
	ck_assert(r.estimate == 2.0 && r.half == HUGE_VAL);
	ck_assert_int_eq(est_mean(NULL, 0, 0.95, &r), 0);
	ck_assert(r.half == HUGE_VAL && r.n == 0);
	ck_assert_int_eq(est_mean(NULL, 3, 0.95, &r), -CS_EINVAL);
	ck_assert_int_eq(est_mean(x, 3, 2.0, &r), -CS_EINVAL);
}
END_TEST

/*
 * Coverage: a population of 1000 units with pred ~ U(50, 150) and meas = 1.3 pred + N(0, 10);
 * 2000 samples of 10 units without replacement; the fraction of 95% intervals holding the true
 * measured total must be near 95% (binomial sd 0.5%: [92%, 98%] is +-6 sd). The seed is fixed,
 * so the count is a fixed number, but it is a real coverage statistic.
 */
#define POP    1000
#define TRIALS 2000
#define NS     10

START_TEST(test_coverage)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double p[POP], m[POP];
	double idx[POP], pick[NS], sp[NS], sm[NS];
	double total_p = 0.0, total_m = 0.0;
	unsigned cover_ratio = 0, cover_reg = 0;

	gsl_rng_set(rng, 1);
	for (unsigned i = 0; i < POP; i++) {
		p[i] = gsl_ran_flat(rng, 50.0, 150.0);
		m[i] = 1.3 * p[i] + gsl_ran_gaussian(rng, 10.0);
		total_p += p[i];
		total_m += m[i];
		idx[i] = (double)i;
	}
	for (unsigned t = 0; t < TRIALS; t++) {
		struct est_result r;

		gsl_ran_choose(rng, pick, NS, idx, POP, sizeof(double));
		for (unsigned j = 0; j < NS; j++) {
			sp[j] = p[(unsigned)pick[j]];
			sm[j] = m[(unsigned)pick[j]];
		}
		if (est_ratio(sp, sm, NS, total_p, POP, 0.95, &r))
			ck_abort_msg("est_ratio failed");
		cover_ratio += fabs(r.estimate - total_m) <= r.half;
		if (est_regression(sp, sm, NS, total_p, POP, 0.95, &r))
			ck_abort_msg("est_regression failed");
		cover_reg += fabs(r.estimate - total_m) <= r.half;
	}
	gsl_rng_free(rng);
	ck_assert_msg(cover_ratio >= 0.92 * TRIALS && cover_ratio <= 0.98 * TRIALS,
		      "ratio: %u of %u intervals cover", cover_ratio, TRIALS);
	ck_assert_msg(cover_reg >= 0.92 * TRIALS && cover_reg <= 0.98 * TRIALS,
		      "regression: %u of %u intervals cover", cover_reg, TRIALS);
}
END_TEST

START_TEST(test_regression_beats_ratio)
{
	/* meas = 200 + 1.0 pred + small noise: a per-unit cost the model misses */
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double p[20], m[20], total_p = 0.0;
	struct est_result ra, rg;

	gsl_rng_set(rng, 1);
	for (unsigned i = 0; i < 20; i++) {
		p[i] = gsl_ran_flat(rng, 50.0, 150.0);
		m[i] = 200.0 + p[i] + gsl_ran_gaussian(rng, 2.0);
	}
	gsl_rng_free(rng);
	for (unsigned i = 0; i < 20; i++)
		total_p += p[i];
	total_p *= 50.0; /* a population of 1000 units like these */
	ck_assert_int_eq(est_ratio(p, m, 20, total_p, 1000.0, 0.95, &ra), 0);
	ck_assert_int_eq(est_regression(p, m, 20, total_p, 1000.0, 0.95, &rg), 0);
	ck_assert_msg(rg.half < 0.25 * ra.half, "regression half %g, ratio half %g", rg.half,
		      ra.half);
	ck_assert_rel(rg.slope, 1.0, 0.05);
}
END_TEST

START_TEST(test_units_needed)
{
	/* (1.959964 * 0.5 / 0.02)^2 = 2400.9 */
	ck_assert_uint_eq(est_units_needed(0.5, 0.02, 0.95), 2401);
	ck_assert_uint_eq(est_units_needed(0.5, 0.02, 0.95),
			  (unsigned)ceil(pow(Z975 * 0.5 / 0.02, 2)));
	ck_assert_uint_eq(est_units_needed(1.0, 0.03, 0.99),
			  (unsigned)ceil(pow(Z995 * 1.0 / 0.03, 2)));
	ck_assert_uint_eq(est_units_needed(0.2, 0.05, 0.95),
			  (unsigned)ceil(pow(Z975 * 0.2 / 0.05, 2)));
	/* at least 2 */
	ck_assert_uint_eq(est_units_needed(0.01, 0.1, 0.95), 2);
	ck_assert_uint_eq(est_units_needed(0.0, 0.1, 0.95), 2);
	/* capped */
	ck_assert_uint_eq(est_units_needed(1e6, 1e-6, 0.95), 4294967295u);
	/* bad arguments */
	ck_assert_uint_eq(est_units_needed(-1.0, 0.02, 0.95), 0);
	ck_assert_uint_eq(est_units_needed(0.5, 0.0, 0.95), 0);
	ck_assert_uint_eq(est_units_needed(0.5, 0.02, 1.0), 0);
	ck_assert_uint_eq(est_units_needed(NAN, 0.02, 0.95), 0);
}
END_TEST

/* ---- the controller: no estimate without detailed evidence is +-0 ------------------------------ */

static struct samp *new_samp_mismatch(double prior, double mismatch)
{
	struct samp_cfg c = {.target = 0.02,
			     .conf = 0.95,
			     .min_units = 3,
			     .group_min = 2,
			     .group_cv = 0.05,
			     .prior = prior,
			     .mismatch = mismatch};
	struct samp *s;

	ck_assert_int_eq(samp_create(&c, &s), 0);
	return s;
}

static struct samp *new_samp(double prior)
{
	return new_samp_mismatch(prior, 0);
}

START_TEST(test_no_evidence_gets_the_prior)
{
	struct samp_kernel_facts lt = {.lt_cycles = 1000, .insts = 100, .traffic = 64};
	struct samp_kernel_facts an = {.lt_cycles = 1000, .insts = 100, .lt_factor = 1.2};
	struct samp_estimate e;
	struct samp *s = new_samp(0.25);

	/* hybrid, a kernel ended before any unit in a run with none: the LT time, +-prior */
	samp_kernel_begin(s, "k", 4, 2, true);
	samp_kernel_end(s, &lt, &e);
	ck_assert_double_eq_tol(e.cycles, 1000, 1e-9);
	ck_assert_double_eq_tol(e.half, 250, 1e-9);
	samp_destroy(s);

	/* the same with same-event pairs after a detailed head: R has nothing to scale the LT
	 * intervals' bound (300) with, a bound is not a time, and the LT face's own time (1 000)
	 * stands (cpu_mp on system cpu: 50 506 against 52 500 detailed before) */
	s = new_samp(0.25);
	samp_kernel_begin(s, "k", 4, 2, true);
	samp_kernel_end(s,
			&(struct samp_kernel_facts){
			    .at_cycles = 5000, .lt_cycles = 300, .lt_time = 1000, .insts = 100},
			&e);
	ck_assert_double_eq_tol(e.cycles, 6000, 1e-9);
	ck_assert_double_eq_tol(e.half, 250, 1e-9);
	samp_destroy(s);

	/* analytic: the calibration's correction, +-prior of the corrected time */
	s = new_samp(1.0);
	samp_kernel_begin(s, "k", 4, 2, false);
	samp_kernel_end(s, &an, &e);
	ck_assert_double_eq_tol(e.cycles, 1200, 1e-9);
	ck_assert_double_eq_tol(e.half, 1200, 1e-9);
	samp_destroy(s);
}
END_TEST

/* With pairs, the interval comes from them (and stays within the target's reach): a kernel's
 * own exact pairs (measured = 2 x predicted) give R = 2 and a half-width of ~0. */
START_TEST(test_pairs_set_the_interval)
{
	struct samp_kernel_facts f = {.at_cycles = 300, .lt_cycles = 1000, .insts = 100};
	struct samp_estimate e;
	struct samp *s = new_samp(1.0);

	samp_kernel_begin(s, "k", 4, 2, true);
	for (int i = 0; i < 4; i++)
		samp_unit(s, 100, 100, 200);
	samp_kernel_end(s, &f, &e);
	ck_assert_double_eq_tol(e.ratio, 2, 1e-9);
	ck_assert_double_eq_tol(e.cycles, 300 + 2 * 1000, 1e-9);
	ck_assert(e.half < 1e-6);
	samp_destroy(s);
}
END_TEST

/*
 * sampling.mismatch: the units (bound 100, work 1000, 300 cycles: 0.1 bound per work, R = 3,
 * a detailed face stalled beyond its counts) and the kernel's LT intervals (10 000 work). LT
 * with 0.12 bound per work (within 1.5x of the units') or with fewer events per work (a lighter
 * phase, 0.05) is scaled by its bound, R = 3; LT with 0.25 (its counts run 2.5x the units', as
 * a face that fetches where the detailed one stalls) is scaled by its work at the units' 0.3
 * cycles per work. Units their bound explains (290 cycles for a bound of 300: R below 1.5) keep
 * the bound however far the LT intervals' counts per work lie from theirs (0.75 against 0.3):
 * a phase the units did not meet (cc under the no-L1 baseline was -34.8% scaled by work).
 */
START_TEST(test_mismatch_scales_work)
{
	static const double bound[] = {1200, 500, 2500, 7500};
	static const double unit_bound[] = {100, 100, 100, 300};
	static const double want[] = {3600, 1500, 3000, 7500 * 290.0 / 300};
	static const bool by_work[] = {false, false, true, false};

	for (unsigned i = 0; i < 4; i++) {
		struct samp_kernel_facts f = {
		    .lt_cycles = bound[i], .lt_work = 10000, .insts = 13000};
		struct samp_estimate e;
		struct samp *s = new_samp_mismatch(1.0, 1.5);

		samp_kernel_begin(s, "k", 4, 2, true);
		for (int u = 0; u < 3; u++)
			samp_unit(s, unit_bound[i], 1000, i == 3 ? 290 : 300);
		samp_kernel_end(s, &f, &e);
		ck_assert_msg(e.by_work == by_work[i], "LT bound %g: by_work %d", bound[i],
			      e.by_work);
		ck_assert_double_eq_tol(e.cycles, want[i], 1e-6);
		samp_destroy(s);
	}
}
END_TEST

/*
 * Kernel reuse by strata of work (sampling.ff = always): a group of 60 short launches whose
 * work shrinks by 2% a launch (45 000 to 13 700 warp instructions) and whose cycles are
 * 2 000 + 0.15 per instruction, so their cycles per instruction rise from 0.19 to 0.30 (ge's
 * Fan kernels shrink so). The harness gives each plan what the system would: a measured member
 * its exact cycles, an LT one 80% of them, an FF one none. Every FF member must be planned
 * with a measured member of like work (within 10% of the last launch's, which stands for its
 * own), be predicted within 5% of its cycles (what cycles per instruction change over a
 * stratum here), with no more than
 * ff_run of them in a row, and most members must be FF; so with strata alone (ff_run 0). One
 * stratum for all (stratum 10, ff_run 0) predicts the late, small launches from the early
 * ones' cycles per instruction: off by more than 10%.
 */
static double strata_run(double stratum, unsigned ff_run, double *max_err, unsigned *ff,
			 unsigned *max_streak, double *cover)
{
	struct samp_cfg c = {.head = 50000,
			     .first = 2000,
			     .warmup = 1000,
			     .unit = 3000,
			     .period = 40000,
			     .target = 0.02,
			     .conf = 0.95,
			     .min_units = 3,
			     .ff = SAMP_FF_ALWAYS,
			     .group_min = 2,
			     .group_cv = 0.05,
			     .prior = 1.0,
			     .stratum = stratum,
			     .ff_run = ff_run};
	double measured_w[64], w = 45000, last_err = 0;
	unsigned nm = 0, streak = 0, inside = 0;
	struct samp *s;

	*max_err = 0;
	*ff = *max_streak = 0;
	ck_assert_int_eq(samp_create(&c, &s), 0);
	for (unsigned k = 0; k < 60; k++, w *= 0.98) {
		double cyc = 2000 + 0.15 * w;
		unsigned plan = samp_kernel_begin(s, "fan", 64, 4, true);
		struct samp_kernel_facts f = {.insts = w};
		struct samp_estimate e;

		if (plan == SAMP_FF)
			f.ff_cycles = w;
		else if (plan == SAMP_LT)
			f.lt_cycles = 0.8 * cyc;
		else
			f.at_cycles = cyc;
		samp_kernel_end(s, &f, &e);
		if (plan != SAMP_FF) {
			streak = 0;
			if (plan != SAMP_LT)
				measured_w[nm++] = w;
			continue;
		}
		(*ff)++;
		if (++streak > *max_streak)
			*max_streak = streak;
		last_err = fabs(e.cycles - cyc) / cyc;
		if (last_err > *max_err)
			*max_err = last_err;
		inside += fabs(e.cycles - cyc) <= e.half;
		if (stratum < 1) {
			bool like = false;

			for (unsigned i = 0; i < nm; i++)
				like |= fabs(measured_w[i] - w / 0.98) <= 0.1 * w / 0.98;
			ck_assert_msg(
			    like, "launch %u (work %g) in FF with no measured member near", k, w);
		}
	}
	samp_destroy(s);
	*cover = *ff ? (double)inside / *ff : 0;
	return last_err;
}

START_TEST(test_ff_strata_by_work)
{
	double max_err, cover, last;
	unsigned ff, streak;

	strata_run(0.1, 8, &max_err, &ff, &streak, &cover);
	/* a stratum spans 10% of work, over which cycles per instruction change up to 5% here */
	ck_assert_msg(max_err <= 0.05, "FF member off by %.1f%%", 100 * max_err);
	ck_assert_msg(ff >= 30, "%u of 60 in FF", ff);
	ck_assert_uint_le(streak, 8);
	ck_assert_msg(cover >= 0.9, "interval covers %.0f%% of FF members", 100 * cover);

	/* strata alone (no measured member every ff_run) */
	strata_run(0.1, 0, &max_err, &ff, &streak, &cover);
	ck_assert_msg(max_err <= 0.05, "strata alone: FF member off by %.1f%%", 100 * max_err);
	ck_assert_msg(ff >= 30, "strata alone: %u of 60 in FF", ff);

	last = strata_run(10, 0, &max_err, &ff, &streak, &cover);
	ck_assert_msg(last > 0.10, "one stratum: the last launch off by only %.1f%%", 100 * last);
}
END_TEST

/* A kernel whose group's last measured member took more than twice sampling.head starts with
 * units, not with a head it could not end within; a new group, or one of short members, keeps
 * the head (a short member is measured whole in it). */
START_TEST(test_long_group_skips_head)
{
	struct samp_cfg c = {.head = 50000,
			     .target = 0.02,
			     .conf = 0.95,
			     .min_units = 3,
			     .group_min = 2,
			     .group_cv = 0.05,
			     .prior = 1.0,
			     .stratum = 0.1};
	struct samp_kernel_facts lng = {.at_cycles = 150000, .insts = 30000};
	struct samp_kernel_facts shrt = {.at_cycles = 20000, .insts = 4000};
	struct samp_estimate e;
	struct samp *s;

	ck_assert_int_eq(samp_create(&c, &s), 0);
	samp_kernel_begin(s, "long", 8, 4, true);
	ck_assert(!samp_kernel_long(s));
	samp_kernel_end(s, &lng, &e); /* ended in its head: measured whole */
	samp_kernel_begin(s, "long", 8, 4, true);
	ck_assert(samp_kernel_long(s));
	samp_kernel_end(s, &lng, &e);
	samp_kernel_begin(s, "short", 8, 4, true);
	samp_kernel_end(s, &shrt, &e);
	samp_kernel_begin(s, "short", 8, 4, true);
	ck_assert(!samp_kernel_long(s));
	samp_destroy(s);
}
END_TEST

static Suite *estimator_suite(void)
{
	Suite *s = suite_create("estimator");
	TCase *tc = tcase_create("closed");

	tcase_add_test(tc, test_t_quantile);
	tcase_add_test(tc, test_ratio_exact);
	tcase_add_test(tc, test_ratio_known);
	tcase_add_test(tc, test_ratio_small_and_errors);
	tcase_add_test(tc, test_regression_known);
	tcase_add_test(tc, test_mean);
	tcase_add_test(tc, test_units_needed);
	tcase_add_test(tc, test_no_evidence_gets_the_prior);
	tcase_add_test(tc, test_pairs_set_the_interval);
	tcase_add_test(tc, test_mismatch_scales_work);
	tcase_add_test(tc, test_ff_strata_by_work);
	tcase_add_test(tc, test_long_group_skips_head);
	suite_add_tcase(s, tc);

	tc = tcase_create("statistical");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_coverage);
	tcase_add_test(tc, test_regression_beats_ratio);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(estimator_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
