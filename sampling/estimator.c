/* sampling/estimator.c - ratio, regression and mean estimators with t intervals (see
 * estimator.h). */
#include "sampling/estimator.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "util/error.h"

static int conf_ok(double conf)
{
	return conf > 0.0 && conf < 1.0;
}

double est_t_quantile(double conf, unsigned dof)
{
	if (!conf_ok(conf))
		return NAN;
	if (dof == 0)
		return HUGE_VAL;
	return gsl_cdf_tdist_Pinv(0.5 * (1.0 + conf), (double)dof);
}

static void finish(struct est_result *out)
{
	if (isfinite(out->half) && out->estimate != 0.0)
		out->rel_half = out->half / fabs(out->estimate);
	else
		out->rel_half = HUGE_VAL;
}

/* Shared argument checks of the pair estimators; fills *sum_p, *sum_m. */
static int pairs_check(const double *pred, const double *meas, size_t n, double total_pred,
		       double n_pop, double conf, const struct est_result *out, double *sum_p,
		       double *sum_m)
{
	double sp = 0.0, sm = 0.0;

	if (!out || (n > 0 && (!pred || !meas)) || !conf_ok(conf) || !isfinite(total_pred) ||
	    !isfinite(n_pop) || n_pop < 0.0 || (n_pop > 0.0 && n_pop < (double)n))
		return -CS_EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(pred[i]) || !isfinite(meas[i]))
			return -CS_EINVAL;
		sp += pred[i];
		sm += meas[i];
	}
	if (n > 0 && !(sp > 0.0))
		return -CS_EINVAL;
	*sum_p = sp;
	*sum_m = sm;
	return 0;
}

/* No pairs: the prediction itself, infinitely uncertain. */
static void no_evidence(double total_pred, struct est_result *out)
{
	memset(out, 0, sizeof(*out));
	out->estimate = total_pred;
	out->ratio = out->slope = 1.0;
	out->half = out->t = HUGE_VAL;
	finish(out);
}

int est_ratio(const double *pred, const double *meas, size_t n, double total_pred, double n_pop,
	      double conf, struct est_result *out)
{
	double sp, sm, r, s2 = 0.0, pbar, fpc, var_r;
	int ret = pairs_check(pred, meas, n, total_pred, n_pop, conf, out, &sp, &sm);

	if (ret)
		return ret;
	if (n == 0) {
		no_evidence(total_pred, out);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	r = sm / sp;
	out->ratio = out->slope = r;
	out->estimate = r * total_pred;
	out->n = (unsigned)n;
	if (n < 2) {
		out->half = out->t = HUGE_VAL;
		finish(out);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		double e = meas[i] - r * pred[i];

		s2 += e * e;
	}
	s2 /= (double)(n - 1);
	pbar = sp / (double)n;
	fpc = n_pop > 0.0 ? 1.0 - (double)n / n_pop : 1.0;
	var_r = fpc * s2 / ((double)n * pbar * pbar);
	out->t = est_t_quantile(conf, (unsigned)(n - 1));
	out->half = out->t * sqrt(var_r) * fabs(total_pred);
	finish(out);
	return 0;
}

int est_regression(const double *pred, const double *meas, size_t n, double total_pred,
		   double n_pop, double conf, struct est_result *out)
{
	double sp, sm, xbar, ybar, xpop, sxx = 0.0, sxy = 0.0, b, see = 0.0, fpc, v;
	int has_slope;
	int ret = pairs_check(pred, meas, n, total_pred, n_pop, conf, out, &sp, &sm);

	if (ret)
		return ret;
	if (!(n_pop > 0.0))
		return -CS_EINVAL;
	if (n < 2) {
		if (n == 0)
			no_evidence(total_pred, out);
		else
			est_ratio(pred, meas, n, total_pred, n_pop, conf, out);
		return 0;
	}
	xbar = sp / (double)n;
	ybar = sm / (double)n;
	xpop = total_pred / n_pop;
	for (size_t i = 0; i < n; i++) {
		sxx += (pred[i] - xbar) * (pred[i] - xbar);
		sxy += (pred[i] - xbar) * (meas[i] - ybar);
	}
	/* no spread in pred (to rounding): no slope to fit */
	has_slope = sxx > 1e-24 * xbar * xbar * (double)n;
	b = has_slope ? sxy / sxx : 0.0;

	memset(out, 0, sizeof(*out));
	out->n = (unsigned)n;
	out->slope = b;
	out->estimate = n_pop * (ybar + b * (xpop - xbar));
	out->ratio = total_pred != 0.0 ? out->estimate / total_pred : 0.0;
	if (n < 3) {
		out->half = out->t = HUGE_VAL;
		finish(out);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		double e = (meas[i] - ybar) - b * (pred[i] - xbar);

		see += e * e;
	}
	fpc = 1.0 - (double)n / n_pop;
	v = fpc * see / (double)(n - 2) *
	    (1.0 / (double)n + (has_slope ? (xpop - xbar) * (xpop - xbar) / sxx : 0.0));
	out->t = est_t_quantile(conf, (unsigned)(n - 2));
	out->half = out->t * n_pop * sqrt(v);
	finish(out);
	return 0;
}

int est_mean(const double *x, size_t n, double conf, struct est_result *out)
{
	double mean, sd;

	if (!out || (n > 0 && !x) || !conf_ok(conf))
		return -CS_EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -CS_EINVAL;
	memset(out, 0, sizeof(*out));
	out->n = (unsigned)n;
	out->half = out->t = HUGE_VAL;
	if (n == 0) {
		finish(out);
		return 0;
	}
	mean = gsl_stats_mean(x, 1, n);
	out->estimate = mean;
	if (n >= 2) {
		sd = gsl_stats_sd_m(x, 1, n, mean);
		out->t = est_t_quantile(conf, (unsigned)(n - 1));
		out->half = out->t * sd / sqrt((double)n);
	}
	finish(out);
	return 0;
}

unsigned est_units_needed(double cv, double rel_target, double conf)
{
	double z, n;

	if (!isfinite(cv) || cv < 0.0 || !(rel_target > 0.0) || !conf_ok(conf))
		return 0;
	z = gsl_cdf_ugaussian_Pinv(0.5 * (1.0 + conf));
	n = ceil((z * cv / rel_target) * (z * cv / rel_target));
	if (!(n < (double)UINT_MAX))
		return UINT_MAX;
	return n < 2.0 ? 2u : (unsigned)n;
}
