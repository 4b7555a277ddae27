/*
 * util/stats.h - the statistics registry (gem5-style stat groups, in C).
 *
 * Stats have hierarchical dotted names ("gpu.sm3.l1.miss.coherence"). A component registers
 * its stats ONCE while the system is built and keeps the returned pointers; the hot path then
 * increments through them (`++*c->hits`), with no string look-up and no global state.
 *
 * Kinds: counters (uint64_t), averages (count, sum, sum of squares, min, max), distributions
 * (an average plus a fixed-bucket histogram over [lo, hi) with underflow and overflow) and
 * formulas (a callback, e.g. a ratio of two counters, evaluated when the stats are read).
 *
 * Registration never fails loudly: on a duplicate full name, an invalid name or out of memory
 * the registry records the first error (cs_stats_error()) and hands back a private dummy sink,
 * so the caller can keep building and check once at the end.
 *
 * Storage: every registered stat lives in chunked arenas owned by the registry; nothing is ever
 * moved or reallocated, so the pointers stay valid until cs_stats_destroy(). Counters registered
 * one after the other are adjacent in memory.
 *
 * Intervals (sampling units, DRAMSim3 epochs): cs_stats_snapshot() closes an interval and records
 * the increase of every counter since the previous snapshot or reset.
 *
 * Output is deterministic: names in registration order, doubles printed with 17 significant
 * digits in JSON (jansson's default for json_real; callers may pass JSON_REAL_PRECISION(17) to
 * json_dumps to be explicit) and with the shortest round-trip form in CSV and text.
 *
 * A registry is not thread-safe; one registry per simulated system.
 */
#ifndef COHSCOPE_UTIL_STATS_H
#define COHSCOPE_UTIL_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "util/error.h"

struct cs_stats;      /* registry: owns every group, stat, string and interval */
struct cs_stat_group; /* a node of the name tree */

/*
 * Running mean. The fields are public only so that cs_stat_avg_sample() can be inline: read
 * them if you like, but change them only through cs_stat_avg_sample() and cs_stats_reset().
 * With no samples min is +inf and max is -inf; the outputs print them as null / nan.
 */
struct cs_stat_avg {
	uint64_t count;
	double sum;
	double sumsq;
	double min;
	double max;
};

struct cs_stat_dist; /* histogram + running mean, opaque */

typedef double (*cs_stat_formula_fn)(const void *ctx);

/* Returns 0 or -CS_ENOMEM. */
int cs_stats_create(struct cs_stats **out);
/* Frees the registry and everything registered in it; NULL is a no-op. */
void cs_stats_destroy(struct cs_stats *s);
/* The unnamed root group: stats registered there have no prefix. */
struct cs_stat_group *cs_stats_root(struct cs_stats *s);

/*
 * Child group of parent, created on first use (a second call returns the same group). name may
 * contain dots ("gpu.sm3") for nested groups. Name components must be non-empty and free of
 * white space and control characters. On error (invalid name, out of memory) the error is
 * recorded in the registry and a dummy group is returned whose registrations go to dummy sinks.
 * Returns NULL only if parent is NULL.
 */
struct cs_stat_group *cs_stat_group(struct cs_stat_group *parent, const char *name);
/* Full dotted path of a group ("" for the root). */
const char *cs_stat_group_path(const struct cs_stat_group *g);

/*
 * Registration. The full name is "<group path>.<name>"; name may itself contain dots. unit and
 * desc may be NULL (= ""); all strings are copied. On a duplicate full name, an invalid name or
 * out of memory the first error is recorded (cs_stats_error()) and a pointer to a private dummy
 * sink is returned, so callers never crash. Return NULL only if g is NULL.
 */
uint64_t *cs_stat_counter(struct cs_stat_group *g, const char *name, const char *unit,
			  const char *desc);
struct cs_stat_avg *cs_stat_average(struct cs_stat_group *g, const char *name, const char *unit,
				    const char *desc);
/* Buckets of width (hi - lo) / nbuckets over [lo, hi); needs lo < hi (finite) and
 * 1 <= nbuckets <= 2^20, else -CS_EINVAL is recorded. */
struct cs_stat_dist *cs_stat_distribution(struct cs_stat_group *g, const char *name,
					  const char *unit, const char *desc, double lo, double hi,
					  unsigned nbuckets);
/* Formulas are evaluated on the current totals whenever the stats are read or snapshotted. ctx is
 * not owned and must outlive the registry. */
void cs_stat_formula(struct cs_stat_group *g, const char *name, const char *unit, const char *desc,
		     cs_stat_formula_fn fn, const void *ctx);
/* *num / *den (0 when *den == 0), e.g. a hit rate. In intervals, when num and den are both
 * counters of this registry, the value is computed from their interval deltas. */
void cs_stat_ratio(struct cs_stat_group *g, const char *name, const char *desc, const uint64_t *num,
		   const uint64_t *den);

/* Hot path. */
static inline void cs_stat_avg_sample(struct cs_stat_avg *a, double v)
{
	a->count++;
	a->sum += v;
	a->sumsq += v * v;
	if (v < a->min)
		a->min = v;
	if (v > a->max)
		a->max = v;
}

/* Also feeds the distribution's average. v < lo counts as underflow, v >= hi (and NaN) as
 * overflow. */
void cs_stat_dist_sample(struct cs_stat_dist *d, double v);

/*
 * 0 if every registration succeeded, else the first error's code (negative), with err (if not
 * NULL) filled with a message naming the stat, e.g. "stats: duplicate stat 'gpu.sm0.hits'",
 * followed by "(and N more registration errors)" when there were several.
 */
int cs_stats_error(const struct cs_stats *s, struct cs_err *err);

/* Zero every counter, average and distribution (formulas follow) and the interval baseline.
 * Intervals recorded so far are kept. */
void cs_stats_reset(struct cs_stats *s);

/*
 * Close an interval labelled label (copied; NULL = "") ending at time_ps. Records, for every
 * counter, the increase since the previous snapshot (or reset); for every average and
 * distribution the number of samples and their mean over the interval; for every ratio of two
 * counters of this registry the ratio of their interval increases; and for every other formula
 * its value on the current totals (a formula callback cannot be evaluated over an interval).
 * Returns 0 or -CS_ENOMEM (then nothing is recorded and the baseline is unchanged).
 */
int cs_stats_snapshot(struct cs_stats *s, const char *label, uint64_t time_ps);
/* Number of intervals recorded by cs_stats_snapshot(). */
size_t cs_stats_interval_count(const struct cs_stats *s);

/* Look-up for tests and the CLI (NOT for hot paths): value of a counter or formula, or mean
 * (0 with no samples) of an average or distribution. 0 or -CS_ENOENT. */
int cs_stats_value(const struct cs_stats *s, const char *full_name, double *out);
/* A registered counter's storage, looked up once (at build time) by a component that reads
 * another's counter on its own path; NULL when there is no counter of that name. */
const uint64_t *cs_stats_counter_find(const struct cs_stats *s, const char *full_name);
/* Number of registered stats (groups and failed registrations not included). */
size_t cs_stats_count(const struct cs_stats *s);

/*
 * Output, full dotted names in registration order.
 * JSON object: counters as integers (reals above INT64_MAX), formulas as reals (null if not
 * finite), averages as {"count","mean","stdev","min","max"} (stdev: sample standard deviation, 0 below 2 samples;
 * min/max null without samples), distributions add "lo","hi","buckets":[..],"underflow",
 * "overflow". Returns a new reference, or NULL when out of memory.
 */
json_t *cs_stats_to_json(const struct cs_stats *s);
/* [{"label":..,"time_ps":..,"stats":{name: delta | ratio | {"count","mean"}}}, ...]: per
 * interval, the stats that existed when it was recorded. NULL when out of memory. */
json_t *cs_stats_intervals_to_json(const struct cs_stats *s);
/* Header "name,value,unit,description", one row per stat (averages and distributions: mean),
 * RFC 4180 quoting. 0, -CS_EINVAL or -CS_EIO. */
int cs_stats_write_csv(const struct cs_stats *s, FILE *f);
/* Header "label,time_ps,<every counter name>", one row per interval; a counter registered after
 * an interval was recorded has an empty cell in it. 0, -CS_EINVAL or -CS_EIO. */
int cs_stats_write_intervals_csv(const struct cs_stats *s, FILE *f);
/* gem5-like "name  value  # desc (unit)", aligned; averages and distributions expand to
 * name::count, ::mean, ::stdev, ::min, ::max (+ ::underflow, ::<lo>-<hi> per bucket,
 * ::overflow). 0, -CS_EINVAL or -CS_EIO. */
int cs_stats_write_text(const struct cs_stats *s, FILE *f);

#endif
