/*
 * calibrate/fit.h - fitting the free parameters of an analytic model to detailed runs
 * (DESIGN.md §5): a thin, reusable wrapper over GSL's nonlinear least squares
 * (gsl_multifit_nlinear: trust region, Levenberg-Marquardt, finite-difference Jacobian).
 *
 * A model predicts one positive quantity (e.g. the cycles of an interval) from its parameters
 * and one sample's features (e.g. the interval's event counts and measured loads). The fit
 * minimises the sum of squared RELATIVE residuals (pred - meas) / meas, so long and short
 * intervals weigh alike and the reported errors are fractions (0.02 = 2%).
 *
 * Bounds are imposed by a smooth change of variables, so the solver itself is unconstrained:
 *   both bounds:  param = lo + (hi - lo) (1 + tanh(u)) / 2
 *   lower only:   param = lo + exp(u)
 *   upper only:   param = hi - exp(u)
 * A parameter whose optimum lies outside its bounds ends close to (not exactly at) the bound,
 * within about 1e-6 of the range: the transform's slope vanishes there and the solver stops.
 *
 * The method is local: it finds the minimum nearest the start. Start near plausible values and
 * bound every parameter whose wrong side is unphysical (a saturation coefficient that would put
 * a pole inside the data: in the test model a + b x / (1 - c x), a start far from c = 0.3
 * without an upper bound on c can jump across the pole into a poor local minimum). A parameter
 * driven onto a bound stays there (the transform's slope vanishes), so a fit that ends at a
 * bound with a large max_abs_rel deserves another start.
 *
 * GSL's default error handler aborts the process on a GSL error. cal_fit validates its inputs
 * so that no GSL error is raised on any input it accepts except out of memory inside GSL; a
 * program that wants to survive that must call gsl_set_error_handler_off() once at start-up (a
 * process-wide setting, so not done here).
 *
 * No globals, no printing; cal_fit allocates GSL's workspace and frees it before returning.
 */
#ifndef COHSCOPE_CALIBRATE_FIT_H
#define COHSCOPE_CALIBRATE_FIT_H

#include <stddef.h>

#include "util/error.h"

/* Parameters of one model at most. */
#define CAL_MAX_PARAMS 16

struct cal_model {
	unsigned n_params;   /* 1..CAL_MAX_PARAMS */
	unsigned n_features; /* features per sample (may be 0) */
	/* The model: prediction for one sample (n_features values) under params (n_params
	 * values). Must be positive where the data are; a non-finite result counts as a residual
	 * of 1e6 during the fit (the step is rejected) and fails cal_evaluate. */
	double (*predict)(const double *params, const double *features, void *ctx);
	void *ctx; /* passed to predict */
	/* Optional bounds, n_params values each; either pointer may be NULL (no bound on that
	 * side), and -INFINITY / INFINITY entries leave one parameter free on that side. */
	const double *lower, *upper;
};

struct cal_fit_result {
	double params[CAL_MAX_PARAMS]; /* fitted (or evaluated) parameters, n_params used */
	double rms_rel;		       /* sqrt(mean(((pred - meas) / meas)^2)) */
	double mean_abs_rel;	       /* mean |pred - meas| / meas */
	double max_abs_rel;	       /* max |pred - meas| / meas */
	unsigned iterations;	       /* solver iterations (0 for cal_evaluate) */
	int status; /* GSL status of the solver: GSL_SUCCESS (0) converged, GSL_EMAXITER (11)
		       iteration limit, GSL_ENOPROG (27) no further progress; 0 for cal_evaluate */
};

/*
 * Fits m's parameters to n samples: features is n x m->n_features, row-major; measured the n
 * measured values (> 0); init the n_params starting values (moved just inside their bounds if
 * on or outside them). Fills *out with the parameters and their errors on the training data.
 * Returns 0 when the solver ran (check out->status and the errors: a fit that stopped at its
 * iteration limit still returns its best point), -CS_EINVAL with a message in *err (may be
 * NULL) for bad arguments: fewer samples than parameters, a measured value <= 0 or non-finite,
 * n_params 0 or above CAL_MAX_PARAMS, lower >= upper, non-finite init, NULL pointers;
 * -CS_ERANGE if the solution is not finite; -CS_ENOMEM.
 */
int cal_fit(const struct cal_model *m, const double *features, const double *measured, size_t n,
	    const double *init, struct cal_fit_result *out, struct cs_err *err);

/*
 * The errors of given parameters on data (held-out evaluation): fills out->params (a copy),
 * rms_rel, mean_abs_rel, max_abs_rel; iterations and status 0. Bounds are not applied.
 * Returns 0, -CS_EINVAL (NULL pointers, n = 0, a measured value <= 0 or non-finite, n_params 0
 * or above CAL_MAX_PARAMS) or -CS_ERANGE (a prediction is not finite).
 */
int cal_evaluate(const struct cal_model *m, const double *params, const double *features,
		 const double *measured, size_t n, struct cal_fit_result *out);

#endif
