/*
 * calibrate/calfile.h - the analytic mode's calibration: model, file, fit.
 *
 * The LT face times a kernel from unloaded path latencies plus M/G/1 waits; what it misses
 * grows with load. The calibration maps a kernel's LT features (the mean utilisation of the
 * NoC's bank ports, of the L2 banks and of the DRAM data buses over the kernel) to the ratio
 * detailed cycles / LT cycles:
 *   R = a + sum over r in {noc, l2, dram} of b_r * rho_r / (1 - c * rho_r)
 * (five parameters, fitted by GSL nonlinear least squares on relative residuals; c bends the
 * correction upward near saturation as the queueing formulas do). The file (libconfig syntax)
 * keeps the parameters, the training set and the held-out error of leave-one-workload-out.
 */
#ifndef COHSCOPE_CALIBRATE_CALFILE_H
#define COHSCOPE_CALIBRATE_CALFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

#define CALM_PARAMS   5
#define CALM_FEATURES 3

struct cal_file {
	bool loaded;
	double p[CALM_PARAMS];
	char train[512];     /* workloads trained on, comma-separated */
	char config[256];    /* configuration trained on */
	unsigned samples;    /* kernels */
	double fit_mean_err; /* on the training kernels' totals per workload */
	double heldout_mean_err, heldout_max_err;
};

/* The model: R for features x[CALM_FEATURES] (ctx unused). */
double calm_ratio(const double *p, const double *x, void *ctx);
/* Initial values and bounds of the parameters. */
extern const double calm_init[CALM_PARAMS], calm_lower[CALM_PARAMS], calm_upper[CALM_PARAMS];

int cal_file_load(const char *path, struct cal_file *out, struct cs_err *err);
/* Written to a temporary file and renamed: a failed write leaves nothing. */
int cal_file_save(const char *path, const struct cal_file *c, struct cs_err *err);

#endif
