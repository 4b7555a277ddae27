/*
 * tests/unit/test_fit.c - the calibration fitter (calibrate/fit.c): recovering the parameters
 * of a nonlinear model from exact and from noisy data, bounds, argument errors, and the
 * error measures of cal_evaluate against hand computation.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/fit.h"
#include "util/error.h"

/* y = a + b x / (1 - c x): a fixed cost plus a load term that blows up near saturation */
static double sat_model(const double *p, const double *f, void *ctx)
{
	(void)ctx;
	return p[0] + p[1] * f[0] / (1.0 - p[2] * f[0]);
}

#define NSAMP 30
static const double truth[3] = {10.0, 5.0, 0.3};

static void make_data(double *x, double *y, int noisy)
{
	for (int i = 0; i < NSAMP; i++) {
		x[i] = 0.1 * i; /* 0 .. 2.9: c x up to 0.87 */
		y[i] = sat_model(truth, &x[i], NULL);
		if (noisy) /* deterministic, within +-1% */
			y[i] *= 1.0 + 0.01 * (double)((i * 7) % 21 - 10) / 10.0;
	}
}

static struct cal_model sat_cal(void)
{
	struct cal_model m = {.n_params = 3, .n_features = 1, .predict = sat_model};

	return m;
}

START_TEST(test_recover_exact)
{
	double x[NSAMP], y[NSAMP];
	const double init[3] = {5.0, 2.0, 0.2};
	struct cal_model m = sat_cal();
	struct cal_fit_result r;
	struct cs_err err = {0};

	make_data(x, y, 0);
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, &err), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(fabs(r.params[i] - truth[i]) <= 1e-6 * truth[i],
			      "param %d = %.10g, truth %g (status %d, %u iterations)", i,
			      r.params[i], truth[i], r.status, r.iterations);
	ck_assert_double_lt(r.rms_rel, 1e-9);
	ck_assert_double_lt(r.max_abs_rel, 1e-9);
	ck_assert_uint_gt(r.iterations, 0);
}
END_TEST

START_TEST(test_recover_noisy)
{
	double x[NSAMP], y[NSAMP];
	const double init[3] = {5.0, 2.0, 0.2};
	struct cal_model m = sat_cal();
	struct cal_fit_result r, at_truth;

	make_data(x, y, 1);
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(fabs(r.params[i] - truth[i]) <= 0.03 * truth[i],
			      "param %d = %.6g, truth %g", i, r.params[i], truth[i]);
	/* the noise is within 1%, so is a good fit; and it fits at least as well as the truth */
	ck_assert_double_lt(r.max_abs_rel, 0.011);
	ck_assert_int_eq(cal_evaluate(&m, truth, x, y, NSAMP, &at_truth), 0);
	ck_assert_double_le(r.rms_rel, at_truth.rms_rel * (1 + 1e-9));
}
END_TEST

START_TEST(test_bounds)
{
	double x[NSAMP], y[NSAMP];
	struct cal_model m = sat_cal();
	struct cal_fit_result r;

	make_data(x, y, 0);
	/* bounds holding the truth: still recovered */
	{
		const double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {100.0, 100.0, 0.34};
		const double init[3] = {5.0, 2.0, 0.2};

		m.lower = lo;
		m.upper = hi;
		ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), 0);
		for (int i = 0; i < 3; i++)
			ck_assert_msg(fabs(r.params[i] - truth[i]) <= 1e-6 * truth[i],
				      "param %d = %.10g, truth %g", i, r.params[i], truth[i]);
	}
	/* b's truth (5) above its upper bound 4: b ends at the upper side, inside */
	{
		const double lo[3] = {0.0, 1.0, 0.0}, hi[3] = {100.0, 4.0, 0.34};
		const double init[3] = {5.0, 2.0, 0.2};

		m.lower = lo;
		m.upper = hi;
		ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), 0);
		ck_assert_msg(r.params[1] <= 4.0 && r.params[1] > 4.0 - 0.01 * 3.0,
			      "b = %.10g, bounds [1, 4]", r.params[1]);
		for (int i = 0; i < 3; i++)
			ck_assert(r.params[i] >= lo[i] && r.params[i] <= hi[i]);
		ck_assert_double_gt(r.rms_rel, 1e-4); /* the truth is out of reach */
	}
	/* one-sided: a >= 12 (truth 10), upper only on c; initial a below its bound */
	{
		const double lo[3] = {12.0, -INFINITY, -INFINITY};
		const double hi[3] = {INFINITY, INFINITY, 0.34};
		const double init[3] = {1.0, 1.0, 0.1};

		m.lower = lo;
		m.upper = hi;
		ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), 0);
		ck_assert_msg(r.params[0] >= 12.0 && r.params[0] < 12.0 + 0.01,
			      "a = %.10g, lower bound 12", r.params[0]);
		ck_assert(r.params[2] <= 0.34);
	}
	/* lower only, pointer for upper NULL: a truth inside is recovered */
	{
		const double lo[3] = {1.0, 1.0, 0.0};
		const double init[3] = {8.0, 3.0, 0.25}; /* c is free upwards: start near */

		m.lower = lo;
		m.upper = NULL;
		ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), 0);
		for (int i = 0; i < 3; i++)
			ck_assert_msg(fabs(r.params[i] - truth[i]) <= 1e-6 * truth[i],
				      "param %d = %.10g, truth %g", i, r.params[i], truth[i]);
	}
}
END_TEST

START_TEST(test_errors)
{
	double x[NSAMP], y[NSAMP];
	const double init[3] = {5.0, 2.0, 0.2};
	struct cal_model m = sat_cal();
	struct cal_fit_result r;
	struct cs_err err;

	make_data(x, y, 0);
	cs_err_clear(&err);
	ck_assert_int_eq(cal_fit(&m, x, y, 2, init, &r, &err), -CS_EINVAL);
	ck_assert_int_eq(err.code, -CS_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "2 samples cannot determine 3 parameters"));
	/* exactly as many samples as parameters is allowed */
	ck_assert_int_eq(cal_fit(&m, x, y, 3, init, &r, NULL), 0);

	y[7] = 0.0;
	cs_err_clear(&err);
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, &err), -CS_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "measured value 7 is 0"));
	y[7] = -3.0;
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, &err), -CS_EINVAL);
	ck_assert_int_eq(cal_evaluate(&m, truth, x, y, NSAMP, &r), -CS_EINVAL);
	y[7] = NAN;
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, &err), -CS_EINVAL);
	make_data(x, y, 0);

	{
		const double lo[3] = {0, 5, 0}, hi[3] = {1, 5, 1};

		m.lower = lo;
		m.upper = hi;
		cs_err_clear(&err);
		ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, &err), -CS_EINVAL);
		ck_assert_ptr_nonnull(strstr(err.msg, "parameter 1"));
		m.lower = m.upper = NULL;
	}
	m.n_params = 0;
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), -CS_EINVAL);
	m.n_params = CAL_MAX_PARAMS + 1;
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, &r, NULL), -CS_EINVAL);
	m.n_params = 3;
	ck_assert_int_eq(cal_fit(NULL, x, y, NSAMP, init, &r, NULL), -CS_EINVAL);
	ck_assert_int_eq(cal_fit(&m, NULL, y, NSAMP, init, &r, NULL), -CS_EINVAL);
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, NULL, &r, NULL), -CS_EINVAL);
	ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, init, NULL, NULL), -CS_EINVAL);
	{
		const double bad[3] = {5.0, INFINITY, 0.1};

		ck_assert_int_eq(cal_fit(&m, x, y, NSAMP, bad, &r, NULL), -CS_EINVAL);
	}
	ck_assert_int_eq(cal_evaluate(&m, truth, x, y, 0, &r), -CS_EINVAL);
}
END_TEST

static double linear(const double *p, const double *f, void *ctx)
{
	(void)ctx;
	return p[0] * f[0];
}

static double pole(const double *p, const double *f, void *ctx)
{
	(void)ctx;
	return p[0] / (1.0 - f[0]);
}

START_TEST(test_evaluate)
{
	const double x[3] = {1, 2, 3}, y[3] = {2.2, 4.0, 5.4}, k = 2.0;
	struct cal_model m = {.n_params = 1, .n_features = 1, .predict = linear};
	struct cal_fit_result r;
	/* predictions 2, 4, 6: errors -0.2/2.2, 0, 0.6/5.4 */
	double e0 = 0.2 / 2.2, e2 = 0.6 / 5.4;

	ck_assert_int_eq(cal_evaluate(&m, &k, x, y, 3, &r), 0);
	ck_assert(r.params[0] == 2.0 && r.iterations == 0 && r.status == 0);
	ck_assert_double_eq_tol(r.rms_rel, sqrt((e0 * e0 + e2 * e2) / 3.0), 1e-15);
	ck_assert_double_eq_tol(r.mean_abs_rel, (e0 + e2) / 3.0, 1e-15);
	ck_assert_double_eq_tol(r.max_abs_rel, e2, 1e-15);

	/* a one-parameter fit of the same data: least squares of relative errors, by hand
	 * sum((k x_i - y_i) / y_i)^2 is minimal at k = sum(x_i / y_i) / sum((x_i / y_i)^2) */
	{
		double s1 = 0.0, s2 = 0.0, kk;

		for (int i = 0; i < 3; i++) {
			s1 += x[i] / y[i];
			s2 += (x[i] / y[i]) * (x[i] / y[i]);
		}
		kk = s1 / s2;
		ck_assert_int_eq(cal_fit(&m, x, y, 3, &k, &r, NULL), 0);
		ck_assert_double_eq_tol(r.params[0], kk, 1e-9 * kk);
	}

	/* a non-finite prediction */
	{
		const double xp[2] = {0.5, 1.0}, yp[2] = {2.0, 3.0}, one = 1.0;

		m.predict = pole;
		ck_assert_int_eq(cal_evaluate(&m, &one, xp, yp, 2, &r), -CS_ERANGE);
	}
}
END_TEST

static Suite *fit_suite(void)
{
	Suite *s = suite_create("fit");
	TCase *tc = tcase_create("fit");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_recover_exact);
	tcase_add_test(tc, test_recover_noisy);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_evaluate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
