/*
 * sampling/controller.h - the sampling controller's decisions and estimates (DESIGN.md §4).
 *
 * The sampling layer (sampling/sampler.c) runs the faces and switches them; this object
 * decides and keeps the books. Within a kernel: LT warm-up (`first` cycles), then units: `warmup` cycles
 * of AT not measured, `unit` cycles of AT measured, a drain (SMs issue nothing until nothing
 * is in flight; its time is not part of the estimate), then `period` cycles of LT, until the
 * kernel's interval meets `target` at `conf` with at least `min_units` units, or the kernel
 * ends. Each unit gives a pair: predicted = the bottleneck bound of the unit's own event counts
 * (sampling.predictor = events; or its work at the work rate of the LT interval before it:
 * rate), measured = the unit's cycles. A kernel's estimate is its AT cycles plus R times its
 * LT intervals' bound (or LT cycles, with rate), R the ratio estimator over its pairs (or, with
 * fewer than two, its group's, or the run's), with a Student-t interval.
 *
 * Across kernels: a signature (name, launch shape) names a group; once `group_min` members of
 * a group are measured and their cycles per instruction agree within `group_cv`, later
 * members run in FF (values only) when `ff` is set, else in LT, and are predicted from their
 * instruction count at the group's mean cycles per instruction, the group's spread giving the
 * interval (traffic the same way, per instruction).
 */
#ifndef COHSCOPE_SAMPLING_CONTROLLER_H
#define COHSCOPE_SAMPLING_CONTROLLER_H

#include <stdbool.h>
#include <stdint.h>

#include "util/params.h"

struct samp_cfg {
	uint64_t head;	 /* AT cycles a sampled kernel starts with (whole if it ends by then) */
	uint64_t first;	 /* LT cycles before a kernel's first unit */
	uint64_t warmup; /* AT cycles before a unit (not measured) */
	uint64_t unit;	 /* AT cycles measured per unit */
	uint64_t period; /* LT cycles between units */
	double target;	 /* relative half-width wanted */
	double conf;	 /* confidence level */
	uint64_t min_units;
	uint64_t quantum; /* LT: cycles warps run ahead of the kernel's time */
	unsigned ff;	  /* enum samp_ff: when later members of a steady group run in FF */
	uint64_t group_min;
	double group_cv;
	double prior;	    /* rel. half-width with no detailed evidence */
	double model_error; /* rel. std. dev. of the LT correction beyond sampling */
	char calibration[CS_PARAM_STR_MAX]; /* file for analytic mode (and hybrid's prior) */
	bool lt_exact;			    /* tests: the LT face adds no contention delay */
	unsigned predictor;		    /* enum samp_predictor */
	double tail;			    /* the tail runs detailed below this occupancy */
	double mismatch; /* LT's bound per work this far from the units': R scales LT work */
	bool warm;	 /* FF warms the L2 banks (gpu_l2_ops.warm) */
	double stratum;	 /* FF members: measured members within this work (relative) */
	uint64_t ff_run; /* FF members of a group in a row before one is measured */
	unsigned fill;	 /* enum samp_fill: the face between units */
	double ff_issue; /* fill auto: FF for kernels issuing at least this share of peak */
	uint64_t retime; /* LT cycles between an FF fill and a unit's warm-up */
	double jitter;	 /* each unit at a random offset within this fraction of its period */
	uint64_t seed;	 /* not a setting: the run's seed (sim.seed), set by the system */
};

/* The face a sampled kernel runs between its units (and a predicted one runs whole): LT, or FF
 * (values, the L2 warmed), its time the units' cycles per work. A system whose controllers
 * cannot leave the detailed face for FF inside a kernel sets LT. */
enum samp_fill { SAMP_FILL_LT = 0, SAMP_FILL_FF, SAMP_FILL_AUTO };

/* When a steady group's later members fast-forward: never; when its measured members did the
 * same work (identical kernels: their cycles per work is theirs); always; only: every kernel,
 * with no estimate (a host-time floor for the bench). */
enum samp_ff { SAMP_FF_NEVER = 0, SAMP_FF_SAME_WORK, SAMP_FF_ALWAYS, SAMP_FF_ONLY };

/* What predicts a unit and the LT time R scales: the bottleneck bound of each interval's own
 * event counts (events: same-event pairs), or the unit's work at the work rate of the LT
 * interval before it (rate: different windows; kept for comparison). */
enum samp_predictor { SAMP_PRED_EVENTS = 0, SAMP_PRED_RATE };

extern const struct cs_param_table samp_params; /* section "sampling" */

/* SAMPLE: LT with detailed units inside; LT, FF: predicted from the group; AT: the whole
 * kernel detailed, as one unit (a group whose members are too short for a unit inside). */
enum samp_plan { SAMP_SAMPLE = 0, SAMP_LT, SAMP_FF, SAMP_AT };
extern const char *const samp_plan_names[];

/* What a kernel did, as the system measured it (cycles of the core clock). */
struct samp_kernel_facts {
	double at_cycles; /* in AT, drains excluded */
	double lt_cycles; /* in LT (events: the LT intervals' bound) */
	double lt_time;	  /* in LT, the LT face's own time (what stands with no unit at all) */
	double lt_work;	  /* work done in LT */
	double ff_cycles; /* in FF (one per op: not a time) */
	double insts;	  /* warp instructions, every face */
	double traffic;	  /* NoC bytes counted (AT and LT) */
	double lt_factor; /* analytic mode: the calibration's correction of lt_cycles */
};

struct samp_estimate {
	double cycles, half; /* estimate and 95% (conf) half-width */
	double traffic, traffic_half;
	unsigned units;
	unsigned plan; /* enum samp_plan */
	double ratio;  /* R used */
	bool by_work;  /* R scaled the LT work, not the LT bound (sampling.mismatch) */
};

struct samp;

int samp_create(const struct samp_cfg *cfg, struct samp **out);
void samp_destroy(struct samp *s);
/* A kernel starts: its plan (hybrid). Not hybrid (analytic): always SAMP_LT, no grouping
 * decision, so every kernel gets the calibration's correction. */
unsigned samp_kernel_begin(struct samp *s, const char *name, unsigned ctas, unsigned warps,
			   bool hybrid);
/* A unit's pair. */
void samp_unit(struct samp *s, double pred, double work, double meas);
/* An FF fill's work (with its retiming), in order: the fill before each unit, and the last
 * one after the kernel's last unit. Each is timed at the cycles per work of the units beside
 * it (samp_kernel_end). */
void samp_fill(struct samp *s, double work);
/* The running kernel fills with FF (its fills are timed by its units' cycles per work), or LT;
 * the group remembers it. */
void samp_fill_set(struct samp *s, bool ff);
/* The running kernel's group's last such choice: 1 FF, 0 LT, -1 none yet. */
int samp_fill_hint(const struct samp *s);
/* The running kernel's interval meets the target (no more units needed). */
bool samp_satisfied(const struct samp *s);
/* The kernel ended: its estimate. */
void samp_kernel_end(struct samp *s, const struct samp_kernel_facts *f, struct samp_estimate *e);
/* The running kernel runs in LT whole and is predicted whole: its group is too short for
 * units, so its ratio pairs whole members' detailed cycles with the group's LT cycles per
 * work, and its LT time is learned from a member run all in LT. Such a kernel has no detailed
 * tail (sampling.tail): the tail's cycles are inside the whole members' ratio already, and a
 * member with detailed cycles gives no LT rate (the short-group defect of issue 37). */
/* The running kernel's group has a measured member, and its last member took more than twice
 * sampling.head: no head (it would not end within it), units from the start. */
bool samp_kernel_long(const struct samp *s);
bool samp_kernel_whole(const struct samp *s);
/* Units taken, kernels sampled (with units), predicted (LT or FF, no units). */
void samp_counts(const struct samp *s, unsigned *units, unsigned *sampled, unsigned *skipped);

#endif
