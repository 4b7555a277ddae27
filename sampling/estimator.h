/*
 * sampling/estimator.h - the statistics of the sampling controller (DESIGN.md §4).
 *
 * Each detailed (AT) unit yields a pair (predicted, measured): the analytic model's time for
 * the unit and the detailed model's time for it, in cycles. The controller knows the
 * predicted total of the whole kernel (every unit runs at least in LT) and estimates the
 * measured total from the pairs with a ratio or a linear regression estimator (Cochran,
 * Sampling Techniques, 3rd ed., ch. 6 and 7), with a Student-t confidence interval; it adds
 * units until the relative half-width meets the target. est_units_needed gives SMARTS' a-priori
 * sample size. Units must be drawn at random or systematically with a random start; the
 * intervals are large-sample (linearisation) intervals, slightly optimistic for small n with
 * skewed data.
 *
 * Pure functions over caller arrays: no globals, no allocation, no printing.
 */
#ifndef COHSCOPE_SAMPLING_ESTIMATOR_H
#define COHSCOPE_SAMPLING_ESTIMATOR_H

#include <stddef.h>

struct est_result {
	double estimate; /* the estimated total (est_mean: the mean), units of the measurements */
	double half;	 /* CI half-width, absolute, same units; HUGE_VAL when undefined */
	double rel_half; /* half / |estimate|; HUGE_VAL when estimate is 0 or half undefined */
	double ratio;	 /* measured over predicted: R (ratio), estimate / total_pred (regression),
			    0 (mean) */
	double slope; /* d measured / d predicted per unit: R (ratio), b (regression), 0 (mean) */
	unsigned n;   /* pairs (values) used */
	double t;     /* Student-t quantile used; HUGE_VAL when there are too few degrees */
};

/*
 * Two-sided Student-t quantile t_{dof, (1+conf)/2}: the multiplier of the standard error for a
 * confidence level conf in (0, 1) (0.95 -> 2.776445 at 4 degrees of freedom). HUGE_VAL for
 * dof 0, NAN for conf outside (0, 1).
 */
double est_t_quantile(double conf, unsigned dof);

/*
 * Ratio estimator of the measured total: R = sum(meas) / sum(pred), estimate = R * total_pred.
 * Variance by linearisation: s^2 = sum (m_i - R p_i)^2 / (n - 1), var(R) = (1 - f) s^2 /
 * (n pbar^2), pbar the sample mean of pred, f = n / n_pop the sampling fraction (n_pop = 0: an
 * infinite population, f = 0); half = t_{n-1} sqrt(var(R)) total_pred. Best when measured is
 * proportional to predicted (a line through the origin). total_pred is the predicted total over
 * the whole population (all units, sampled or not), in the same units as pred.
 * n = 1: the estimate with half = HUGE_VAL; n = 0: no evidence, the prediction itself (ratio 1,
 * estimate total_pred) with half = HUGE_VAL; both return 0.
 * -CS_EINVAL: NULL pointers (arrays may be NULL when n = 0), conf outside (0, 1), a non-finite
 * value, sum(pred) <= 0, n_pop neither 0 nor >= n.
 */
int est_ratio(const double *pred, const double *meas, size_t n, double total_pred, double n_pop,
	      double conf, struct est_result *out);

/*
 * Linear regression estimator of the measured total (Cochran 7.1): with b the least-squares
 * slope of meas on pred, the per-unit mean is ybar + b (Xbar - xbar), Xbar = total_pred / n_pop
 * the population mean of pred; estimate = n_pop * (ybar + b (Xbar - xbar)). Variance, with the
 * residual variance s_e^2 = sum [(m_i - ybar) - b (p_i - xbar)]^2 / (n - 2):
 *   v = (1 - f) s_e^2 (1/n + (Xbar - xbar)^2 / Sxx),  Sxx = sum (p_i - xbar)^2,
 * half = t_{n-2} n_pop sqrt(v). The first term is Cochran's large-sample variance (7.1); the
 * second, the uncertainty of the fitted slope (the variance of a regression line at Xbar), is
 * negligible for large n but brings small samples to their nominal coverage (n = 10: 93.0%
 * without it, 94.9% with it, in the coverage test).
 * Beats the ratio estimator when measured = a + b predicted with a != 0 (a fixed per-unit cost
 * the model misses). n_pop, the number of units in the population, is required here (> 0 and
 * >= n): a total needs it. All pred equal (no spread to fit a slope): b = 0, the mean-per-unit
 * estimator, with the same (n - 2)-degree interval. n = 2: the estimate with half = HUGE_VAL;
 * n = 1: the ratio estimate, n = 0: the prediction, both with half = HUGE_VAL. Errors as
 * est_ratio, plus n_pop = 0.
 */
int est_regression(const double *pred, const double *meas, size_t n, double total_pred,
		   double n_pop, double conf, struct est_result *out);

/*
 * Plain mean of x with its t interval: half = t_{n-1} s / sqrt(n), s the sample standard
 * deviation (no finite-population correction). For a group's spread, e.g. the measured/predicted
 * ratios of the kernels of one signature. n = 1: half = HUGE_VAL; n = 0: estimate 0, half
 * HUGE_VAL; both return 0. -CS_EINVAL: x NULL with n > 0, out NULL, conf outside (0, 1), a
 * non-finite value.
 */
int est_mean(const double *x, size_t n, double conf, struct est_result *out);

/*
 * SMARTS' a-priori sample size: n = ceil((z cv / rel_target)^2), z the two-sided normal quantile
 * of conf, cv the coefficient of variation (standard deviation / mean) of the per-unit quantity
 * (for the ratio estimator, of the residuals m_i - R p_i over the mean measured), rel_target
 * the wanted relative half-width (0.02 for +-2%). At least 2, at most UINT_MAX. 0 when the
 * arguments are bad (cv negative or non-finite, rel_target <= 0, conf outside (0, 1)).
 */
unsigned est_units_needed(double cv, double rel_target, double conf);

#endif
