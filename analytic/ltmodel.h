/*
 * analytic/ltmodel.h - the delay the loosely-timed (LT) face of a shared resource adds for
 * contention, and the parameters calibration fits.
 *
 * Every shared resource (a NoC port, an L2 bank, a DRAM channel) keeps a load meter fed by
 * both faces: arrivals with their service times, summed over windows of `window` cycles of
 * the resource's clock and folded into estimates of the arrival rate and the first two moments
 * of the service time. The LT face asks it for the mean waiting time an arrival meets, from
 * the M/G/1 (Pollaczek-Khinchine) formula of analytic/queue.h, scaled by the resource kind's
 * fitted coefficients: k (contention: how much of the formula's wait the detailed model
 * shows) and u (utilisation scale: burstiness the Poisson assumption misses). With `exact`
 * set there is no wait at all: the LT face then returns the unloaded latency of the path it
 * took, which is what the detailed face measures for a lone access (the AT/LT equality test).
 *
 * Windows are closed by time, not by order: the LT face runs warps temporally decoupled, so
 * arrivals within a window are not in time order; only the window's totals are used.
 *
 * Near saturation the open-queue formula, clamped at rho_max, cannot hold back a closed
 * population of warps with many requests in flight (the LT face would then run faster than
 * the resource's bandwidth allows). So each meter also keeps the backlog of a work-conserving
 * server on a calendar of LT_BINS bins of LT_BIN cycles: each arrival adds its service to the
 * bin of its time, the backlog at a bin's start is the one before it plus its demand less its
 * capacity (never below 0), and the wait is the larger of the formula and the backlog an
 * arrival's bin starts with, less what the server did by the arrival's offset in the bin,
 * plus the bin's other noted arrivals taken as spread over it. Arrivals
 * may be noted in any order within the calendar's span (an APU directory transaction notes
 * its DRAM access hundreds of cycles ahead, then the next one notes earlier times): an FCFS
 * clock advanced in noting order charged each of those the idle gap to the latest noted
 * arrival, which grew without bound (chai_bs: stores waiting 188 941 cycles at the directory
 * against 250 detailed). A note older than the span counts in its oldest bin.
 */
#ifndef COHSCOPE_ANALYTIC_LTMODEL_H
#define COHSCOPE_ANALYTIC_LTMODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/kernel/time.h"

enum lt_res_kind { LT_RES_NOC = 0, LT_RES_L2, LT_RES_DRAM, LT_RES_KINDS };

/* What calibration fits (calibrate/), and the switches of the LT face. */
struct lt_params {
	double k[LT_RES_KINDS]; /* contention coefficient per resource kind (default 1) */
	double u[LT_RES_KINDS]; /* utilisation scale per resource kind (default 1) */
	double rho_max;		/* utilisation at which waits stop growing (saturation) */
	double window;		/* cycles of a load-meter window */
	bool exact;		/* no contention delay: unloaded latencies only */
};

void lt_params_default(struct lt_params *p);

#define LT_BINS 256 /* the backlog calendar's bins (a power of 2) */
#define LT_BIN	16  /* cycles of the resource's clock per bin */

struct lt_res {
	sim_time_t period_ps; /* the resource's clock period */
	sim_time_t win_start, win_len;
	double n, s1, s2;      /* this window: arrivals, sum of service, sum of squares */
	double lambda, m1, m2; /* estimates: arrivals per cycle, E[S], E[S^2] (cycles) */
	bool primed;	       /* one window has closed */
	/* the backlog calendar: absolute bin numbers; dem[] the service noted per bin, q[] the
	 * backlog at a bin's start, known up to bin `known` (q of bin `base` is always known) */
	bool cal_on;
	uint64_t base, known;
	double dem[LT_BINS], q[LT_BINS];
	double backlog; /* cycles the last arrival found queued before it */
};

void lt_res_init(struct lt_res *r, sim_time_t period_ps, const struct lt_params *p);
/* An arrival at time t needing s cycles of the resource (both faces call it). */
void lt_res_note(struct lt_res *r, sim_time_t t, double s);
/* The mean wait in cycles an arrival at t meets (after lt_res_note for it), by the M/G/1
 * formula with the kind's coefficients; 0 when p->exact. */
double lt_res_wait(const struct lt_res *r, const struct lt_params *p, enum lt_res_kind kind);
/* Utilisation estimate (lambda * E[S]). */
double lt_res_rho(const struct lt_res *r);

#endif
