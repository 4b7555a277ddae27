/* calibrate/fit.c - nonlinear least squares on relative residuals over GSL (see fit.h). */
#include "calibrate/fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <string.h>

/* Residual standing in for a non-finite prediction during the fit. */
#define CAL_BAD_RESIDUAL 1e6
/* How far inside its bounds a starting value is moved: a fraction of the range (both bounds) or
 * of max(1, |bound|) (one bound). */
#define CAL_INSIDE	 1e-6

#define CAL_MAXITER 500
#define CAL_XTOL    1e-12
#define CAL_GTOL    1e-12
#define CAL_FTOL    1e-15

enum cal_bound { CAL_FREE = 0, CAL_BOTH, CAL_LOWER, CAL_UPPER };

struct cal_fitctx {
	const struct cal_model *m;
	const double *features;
	const double *measured;
	size_t n;
	unsigned kind[CAL_MAX_PARAMS];
	double lo[CAL_MAX_PARAMS], hi[CAL_MAX_PARAMS];
};

static void to_params(const struct cal_fitctx *c, const double *u, double *p)
{
	for (unsigned i = 0; i < c->m->n_params; i++) {
		switch (c->kind[i]) {
		case CAL_BOTH:
			p[i] = c->lo[i] + (c->hi[i] - c->lo[i]) * 0.5 * (1.0 + tanh(u[i]));
			break;
		case CAL_LOWER:
			p[i] = c->lo[i] + exp(u[i]);
			break;
		case CAL_UPPER:
			p[i] = c->hi[i] - exp(u[i]);
			break;
		default:
			p[i] = u[i];
			break;
		}
	}
}

static double to_free(const struct cal_fitctx *c, unsigned i, double p)
{
	double margin, y;

	switch (c->kind[i]) {
	case CAL_BOTH:
		y = 2.0 * (p - c->lo[i]) / (c->hi[i] - c->lo[i]) - 1.0;
		if (y > 1.0 - 2.0 * CAL_INSIDE)
			y = 1.0 - 2.0 * CAL_INSIDE;
		if (y < -1.0 + 2.0 * CAL_INSIDE)
			y = -1.0 + 2.0 * CAL_INSIDE;
		return atanh(y);
	case CAL_LOWER:
		margin = CAL_INSIDE * fmax(1.0, fabs(c->lo[i]));
		return log(fmax(p - c->lo[i], margin));
	case CAL_UPPER:
		margin = CAL_INSIDE * fmax(1.0, fabs(c->hi[i]));
		return log(fmax(c->hi[i] - p, margin));
	default:
		return p;
	}
}

static int residuals(const gsl_vector *x, void *arg, gsl_vector *f)
{
	const struct cal_fitctx *c = arg;
	double u[CAL_MAX_PARAMS], p[CAL_MAX_PARAMS];
	unsigned np = c->m->n_params, nf = c->m->n_features;

	for (unsigned i = 0; i < np; i++)
		u[i] = gsl_vector_get(x, i);
	to_params(c, u, p);
	for (size_t s = 0; s < c->n; s++) {
		double pred =
		    c->m->predict(p, c->features ? c->features + s * nf : NULL, c->m->ctx);
		double r = (pred - c->measured[s]) / c->measured[s];

		gsl_vector_set(f, s, isfinite(r) ? r : CAL_BAD_RESIDUAL);
	}
	return GSL_SUCCESS;
}

/* Checks shared by cal_fit and cal_evaluate. */
static int check_data(const struct cal_model *m, const double *features, const double *measured,
		      size_t n, struct cs_err *err)
{
	if (!m || !m->predict || !measured || (m->n_features > 0 && n > 0 && !features))
		return cs_err_set(err, -CS_EINVAL, "calibration: missing model, features or data");
	if (m->n_params == 0 || m->n_params > CAL_MAX_PARAMS)
		return cs_err_set(err, -CS_EINVAL,
				  "calibration: a model has 1 to %d parameters, not %u",
				  CAL_MAX_PARAMS, m->n_params);
	for (size_t s = 0; s < n; s++)
		if (!(measured[s] > 0.0) || !isfinite(measured[s]))
			return cs_err_set(err, -CS_EINVAL,
					  "calibration: measured value %zu is %g; every measured "
					  "value must be positive (errors are relative to it)",
					  s, measured[s]);
	return 0;
}

int cal_evaluate(const struct cal_model *m, const double *params, const double *features,
		 const double *measured, size_t n, struct cal_fit_result *out)
{
	double sum2 = 0.0, sum1 = 0.0, mx = 0.0;
	int ret;

	if (!params || !out || n == 0)
		return -CS_EINVAL;
	ret = check_data(m, features, measured, n, NULL);
	if (ret)
		return ret;
	for (size_t s = 0; s < n; s++) {
		double pred =
		    m->predict(params, features ? features + s * m->n_features : NULL, m->ctx);
		double r = (pred - measured[s]) / measured[s];

		if (!isfinite(r))
			return -CS_ERANGE;
		sum2 += r * r;
		sum1 += fabs(r);
		if (fabs(r) > mx)
			mx = fabs(r);
	}
	memset(out, 0, sizeof(*out));
	memcpy(out->params, params, m->n_params * sizeof(double));
	out->rms_rel = sqrt(sum2 / (double)n);
	out->mean_abs_rel = sum1 / (double)n;
	out->max_abs_rel = mx;
	return 0;
}

int cal_fit(const struct cal_model *m, const double *features, const double *measured, size_t n,
	    const double *init, struct cal_fit_result *out, struct cs_err *err)
{
	struct cal_fitctx c;
	gsl_multifit_nlinear_parameters fp;
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_workspace *w = NULL;
	double u0[CAL_MAX_PARAMS], u[CAL_MAX_PARAMS], p[CAL_MAX_PARAMS];
	gsl_vector_view x0;
	int ret, status, info = 0;
	unsigned np;
	size_t iters;

	if (!init || !out)
		return cs_err_set(err, -CS_EINVAL, "calibration: missing initial values or result");
	ret = check_data(m, features, measured, n, err);
	if (ret)
		return ret;
	np = m->n_params;
	if (n < np)
		return cs_err_set(err, -CS_EINVAL,
				  "calibration: %zu samples cannot determine %u parameters "
				  "(at least %u needed)",
				  n, np, np);

	memset(&c, 0, sizeof(c));
	c.m = m;
	c.features = features;
	c.measured = measured;
	c.n = n;
	for (unsigned i = 0; i < np; i++) {
		double lo = m->lower ? m->lower[i] : -INFINITY;
		double hi = m->upper ? m->upper[i] : INFINITY;
		int has_lo = isfinite(lo), has_hi = isfinite(hi);

		if (isnan(lo) || isnan(hi) || (has_lo && has_hi && !(lo < hi)) ||
		    (!has_lo && lo > 0.0) || (!has_hi && hi < 0.0))
			return cs_err_set(err, -CS_EINVAL,
					  "calibration: parameter %u has bounds [%g, %g]; the "
					  "lower must be below the upper",
					  i, lo, hi);
		if (!isfinite(init[i]))
			return cs_err_set(err, -CS_EINVAL,
					  "calibration: initial value of parameter %u is %g", i,
					  init[i]);
		c.lo[i] = lo;
		c.hi[i] = hi;
		c.kind[i] = has_lo && has_hi ? CAL_BOTH
			    : has_lo	     ? CAL_LOWER
			    : has_hi	     ? CAL_UPPER
					     : CAL_FREE;
		u0[i] = to_free(&c, i, init[i]);
	}

	fp = gsl_multifit_nlinear_default_parameters();
	fp.trs = gsl_multifit_nlinear_trs_lm;
	memset(&fdf, 0, sizeof(fdf));
	fdf.f = residuals;
	fdf.df = NULL; /* finite differences */
	fdf.fvv = NULL;
	fdf.n = n;
	fdf.p = np;
	fdf.params = &c;

	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, np);
	if (!w)
		return cs_err_set(err, -CS_ENOMEM, "calibration: out of memory (%zu samples)", n);
	x0 = gsl_vector_view_array(u0, np);
	status = gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
	if (status == GSL_SUCCESS)
		status = gsl_multifit_nlinear_driver(CAL_MAXITER, CAL_XTOL, CAL_GTOL, CAL_FTOL,
						     NULL, NULL, &info, w);
	iters = gsl_multifit_nlinear_niter(w);
	for (unsigned i = 0; i < np; i++)
		u[i] = gsl_vector_get(gsl_multifit_nlinear_position(w), i);
	gsl_multifit_nlinear_free(w);

	to_params(&c, u, p);
	for (unsigned i = 0; i < np; i++)
		if (!isfinite(p[i]))
			return cs_err_set(err, -CS_ERANGE,
					  "calibration: the fit diverged (parameter %u is %g)", i,
					  p[i]);
	ret = cal_evaluate(m, p, features, measured, n, out);
	if (ret)
		return cs_err_set(err, ret,
				  "calibration: the fitted model predicts a non-finite value");
	out->iterations = (unsigned)iters;
	out->status = status;
	return 0;
}
