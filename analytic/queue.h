/*
 * analytic/queue.h - queueing formulas for the shared resources of the analytic model
 * (DESIGN.md §5): open single-server queues (M/D/1, M/G/1), exact mean-value analysis of a
 * closed network (the population of warps), a DRAM channel, and a windowed load meter that
 * turns the arrivals a resource sees into rate and service-time moments.
 *
 * Units: times in cycles of the resource's clock, rates in arrivals per cycle, unless a
 * comment says otherwise. Pure functions: no globals, no allocation, no printing.
 *
 * Saturation: an open queue with utilisation rho >= 1 has no steady state. Every formula
 * here clamps rho to rho_max (e.g. 0.98) so that a saturated resource yields a large but
 * finite wait (about 1 / (1 - rho_max) times the service time) instead of infinity or a
 * negative number. Above the clamp the wait no longer grows with lambda: it is non-decreasing
 * in lambda and constant once lambda * E[S] >= rho_max, so an overloaded resource is
 * underestimated (a real backlog grows without bound). rho_max outside (0, 1) is treated as
 * AQ_RHO_MAX_DEFAULT.
 */
#ifndef COHSCOPE_ANALYTIC_QUEUE_H
#define COHSCOPE_ANALYTIC_QUEUE_H

#include <stdint.h>

/* The clamp used when a caller passes rho_max outside (0, 1). */
#define AQ_RHO_MAX_DEFAULT 0.98

/*
 * M/D/1 (Poisson arrivals, one server, deterministic service): mean wait in queue, excluding
 * the service itself, Wq = rho * S / (2 (1 - rho)) with rho = lambda * S clamped to rho_max.
 * lambda in arrivals/cycle, service in cycles; result in cycles. lambda <= 0 or service <= 0
 * gives 0.
 */
double aq_md1_wait(double lambda, double service, double rho_max);

/*
 * M/G/1 (Poisson arrivals, general service), Pollaczek-Khinchine: mean wait in queue
 * Wq = lambda * E[S^2] / (2 (1 - rho)), rho = lambda * E[S] clamped to rho_max. s_mean is E[S]
 * (cycles), s_m2 the raw second moment E[S^2] (cycles^2, not the variance). M/D/1 is
 * s_m2 = s_mean^2; M/M/1 is s_m2 = 2 s_mean^2. When rho is clamped, lambda in the numerator is
 * clamped with it (lambda = rho_max / E[S]), so a saturated queue's wait depends on the service
 * moments only. Non-positive inputs give 0.
 */
double aq_mg1_wait(double lambda, double s_mean, double s_m2, double rho_max);

/* Stations of one mean-value analysis at most. */
#define AQ_MVA_MAX 16

struct aq_mva_result {
	double x;		  /* system throughput, customers per cycle */
	double r;		  /* response time through the stations, think time excluded */
	double resid[AQ_MVA_MAX]; /* residence time per station (visits * time per visit) */
	double queue[AQ_MVA_MAX]; /* mean customers at the station (waiting or in service) */
	double util[AQ_MVA_MAX];  /* utilisation x * demand (meaningful for queueing stations) */
	unsigned k;		  /* stations filled */
};

/*
 * Exact mean-value analysis (Reiser-Lavenberg) of a closed, single-class, product-form network:
 * n customers (e.g. warps with one outstanding op each) cycle through k stations and then think
 * for `think` cycles. demand[i] is the total service demand at station i per cycle of a
 * customer (visits * service time, cycles). A queueing station (is_delay[i] == 0, or is_delay
 * NULL) has one FCFS exponential server, so R_i = D_i (1 + Q_i(n - 1)); a delay station
 * (is_delay[i] != 0: pipelines, wires, fixed latencies) has R_i = D_i at any load. Iterates
 * m = 1..n: X(m) = m / (think + sum R_i(m)), Q_i(m) = X(m) R_i(m). n = 0 fills x = 0 and the
 * unloaded residences (resid = demand). Returns 0, or -CS_EINVAL for NULL pointers, k = 0,
 * k > AQ_MVA_MAX, a negative or non-finite demand or think, or an all-zero cycle (every demand
 * and think 0 with n > 0: infinite throughput).
 */
int aq_mva(const double *demand, const uint8_t *is_delay, unsigned k, double think, unsigned n,
	   struct aq_mva_result *out);

/*
 * A DRAM channel as seen by reads. Field names follow tlm/dram/dram.h (struct dram_cfg); all
 * times in command-clock cycles:
 *   t_burst   data-bus cycles of one burst (dram_cfg burst_length / data_rate; GDDR5 default 2)
 *   t_cl      tCL, RD to first data (12)
 *   t_rcd     tRCD, ACT to RD (12)
 *   t_rp      tRP, PRE to ACT (12)
 *   t_ras_min tRAS, ACT to PRE (28), or 0 to ignore it
 *   t_ctrl    dram_cfg ctrl_latency: fixed front-end cycles before scheduling (0)
 *   banks     banks per channel (16)
 *   rho_max   clamp of every queue (see the top of this file; 0 means the default)
 */
struct aq_dram {
	double t_burst, t_cl, t_rcd, t_rp, t_ras_min, t_ctrl;
	unsigned banks;
	double rho_max;
};

/*
 * Mean latency of a one-burst read, from arrival to the end of its data on the bus, in
 * command cycles, at `lambda` reads per command cycle on the channel with a fraction row_hit
 * (clamped to [0, 1]) of row-buffer hits:
 *   latency = t_ctrl + bank wait + bank service + bus wait + t_burst
 * - bank service: t_cl for a hit, t_rp + t_rcd + t_cl for a miss. Open-page policy: a miss is
 *   taken to find another row open (a conflict, which pays t_rp); a miss to a precharged bank
 *   would skip t_rp, so this overestimates such misses by t_rp.
 * - bank wait: requests spread evenly over `banks` banks, each an M/G/1 queue with arrival rate
 *   lambda / banks and the two-point service distribution above (E[S], E[S^2] of the mixture).
 *   For the queue, a miss occupies its bank max(t_rp + t_rcd + t_cl, t_ras_min + t_rp): a row
 *   opened by the previous miss stays open at least t_ras_min before it can be precharged. The
 *   bank is modelled as busy for a request's whole access, so pipelined row hits (which really
 *   free the bank after tCCD) are pessimistic; FR-FCFS reordering is not modelled (row_hit is
 *   the measured hit rate after reordering).
 * - bus wait: the data bus an M/D/1 queue with service t_burst at rate lambda.
 * At lambda = 0 this is the unloaded latency, equal to dram_unloaded_read_cycles(cfg, atom,
 * DRAM_ROW_HIT or DRAM_ROW_CONFLICT) for row_hit 1 or 0. Writes can be counted in lambda
 * (they occupy banks and the bus alike). If wait_out is not NULL it receives the queueing part
 * (bank wait + bus wait). Returns 0 with d NULL, no banks, or a negative input.
 */
double aq_dram_latency(const struct aq_dram *d, double lambda, double row_hit, double *wait_out);

/*
 * A sliding-window load meter for one resource. The caller runs temporally decoupled, so the
 * arrivals it reports within a window are not in time order; the meter therefore only counts
 * per window, and at the end of each window (aq_meter_roll) folds the window's rate and service
 * moments into exponentially weighted moving averages:
 *   est = alpha * window_value + (1 - alpha) * est
 * The first window sets lambda directly, and the first window with arrivals sets E[S] and
 * E[S^2] directly (no blending with the zeros of an empty meter). A later window without
 * arrivals moves lambda towards 0 and leaves E[S], E[S^2] unchanged (it says nothing about
 * service). With alpha = 0.5 the estimates forget a window's weight by half per window: about
 * the last 2-3 windows matter.
 * Service moments are averaged per window (each window's mean, not each arrival, weighs alike).
 * Embed the struct by value; fields are public for inspection, use the functions to update.
 */
struct aq_meter {
	double window; /* nominal window length, cycles (used when roll gets elapsed <= 0) */
	double alpha;  /* EWMA weight of the newest window, in (0, 1] */
	/* current window */
	double n_cur;  /* arrivals */
	double s1_cur; /* sum of service times */
	double s2_cur; /* sum of squared service times */
	/* estimates */
	double lambda;	  /* arrivals per cycle */
	double s1;	  /* E[S], cycles */
	double s2;	  /* E[S^2], cycles^2 */
	unsigned windows; /* windows closed so far */
	int primed;	  /* service estimates hold data */
};

/* The EWMA weight used when aq_meter_init gets alpha outside (0, 1]. */
#define AQ_METER_ALPHA_DEFAULT 0.5

/* Zeroes *m; window is the nominal window length (cycles, > 0 or the roll must pass elapsed);
 * alpha the weight of the newest window, or AQ_METER_ALPHA_DEFAULT when outside (0, 1]. */
void aq_meter_init(struct aq_meter *m, double window, double alpha);
/* One arrival in the current window, with its service time (cycles). */
void aq_meter_add(struct aq_meter *m, double service);
/* Closes the current window, which lasted `elapsed` cycles (m->window if elapsed <= 0), folds
 * it into the estimates and opens an empty one. */
void aq_meter_roll(struct aq_meter *m, double elapsed);
/* Estimated arrival rate, arrivals per cycle (0 before the first roll). */
double aq_meter_lambda(const struct aq_meter *m);
/* Estimated mean service time E[S], cycles (0 before any arrival was rolled). */
double aq_meter_s1(const struct aq_meter *m);
/* Estimated second moment E[S^2], cycles^2 (0 before any arrival was rolled). */
double aq_meter_s2(const struct aq_meter *m);

#endif
