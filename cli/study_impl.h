/*
 * cli/study_impl.h - what the studies of `cohscope study` share (cli/study.c) and what each
 * study provides (cli/study_gtsc.c, cli/study_hsc.c, cli/study_hlrc.c): a study is data (its workloads, its
 * sweep files, the keys its configurations set) and an ops table that loads the sweeps'
 * results, draws the figures and writes summary.md. The runner (options, the dry runs before
 * anything is written, --resume, --against, the sweeps through cmd_sweep) is the same for
 * every study.
 */
#ifndef COHSCOPE_CLI_STUDY_IMPL_H
#define COHSCOPE_CLI_STUDY_IMPL_H

#include <stdbool.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define STUDY_MAX_SETS	 64 /* --set on the command line */
#define STUDY_MAX_BENCH	 64 /* workloads of one study */
#define STUDY_MAX_SWEEPS 8

struct study_def;

/* One sweep file of configs/studies/, run into DIR/NAME. */
struct study_sweep {
	const char *name, *file;
	const char *what; /* the progress line's description of its points */
};

struct study_opts {
	const struct study_def *def;
	const char *output, *jobs, *size, *mode, *against;
	const char *sets[STUDY_MAX_SETS];
	int nsets;
	bool sel[STUDY_MAX_BENCH]; /* -w */
	bool resume, quiet, help;
};

struct study_def {
	const char *name;	  /* as typed: `cohscope study NAME` */
	const char *title;	  /* "the G-TSC study" */
	const char *output;	  /* the default -o */
	const char *const *bench; /* the workloads, as the sweep files name them */
	const char *const *label; /* the same, as -w and the tables name them */
	unsigned nbench;
	const struct study_sweep *sweeps;
	unsigned nsweeps;
	const char *const *varied; /* "KEY=" prefixes the configurations set: no --set on them */
	/*
	 * The results (data_size bytes, zeroed) of the sweeps of DIR that ran[k] names (a sweep
	 * none of whose workloads is selected does not run); full: also what the summary needs
	 * beyond results.json (statistics from the point files). fill returns 0, or -1 when out
	 * of memory; clear frees what fill allocated, even after a failing fill.
	 */
	size_t data_size;
	int (*fill)(void *data, const char *dir, const bool *ran, bool full);
	void (*clear)(void *data);
	size_t (*npoints)(const void *data);
	/* Figure k of nfigures into DIR/figs through study_plot: 0, or its status. */
	unsigned nfigures;
	int (*figure)(const struct study_opts *o, const void *data, unsigned k);
	/*
	 * The text of summary.md (malloc'd) from the study's results and, with --against,
	 * another run's (NULL without); *nbad counts the points that did not run. -1 when out
	 * of memory.
	 */
	int (*summary)(const struct study_opts *o, const void *data, const void *other, char **text,
		       size_t *nbad);
};

extern const struct study_def study_gtsc, study_hsc, study_hlrc;

/* What every study reads of a sweep's point in its results.json. */
struct study_pt {
	int sweep, bench;   /* bench: the index in def->bench */
	const char *config; /* the "config" axis; NULL when the sweep has none */
	const char *name, *id, *status, *error; /* status: "missing" when results.json has none */
	json_t *axes, *res;
};

/* The sweeps' results.json of a study (each study's results begin with one). */
struct study_results {
	json_t *root[STUDY_MAX_SWEEPS];
	bool ran[STUDY_MAX_SWEEPS], loaded[STUDY_MAX_SWEEPS];
};

/*
 * Reads DIR/SWEEP/results.json of each sweep ran[k] names into r (r->ran, r->root; loaded:
 * it holds a points array). Each point of one of the study's workloads gets a zeroed slot of
 * stride bytes at the end of *points (grown as needed; *n of them kept), beginning with its
 * struct study_pt, and add(ctx, slot) fills the study's part: 1 keeps it, 0 drops it, -1 is
 * out of memory. 0 or -1.
 */
int study_read(const struct study_def *def, const char *dir, const bool *ran,
	       struct study_results *r, void **points, size_t *n, size_t stride,
	       int (*add)(void *ctx, void *slot), void *ctx);
void study_results_free(struct study_results *r);

/*
 * summary.md's account of the run: the mode and size (read from the results), the base
 * configuration and the --set overrides, the benchmarks, the points of each sweep (how many,
 * how many ok; not run; no results) and, when some did not run, a section listing each with
 * its error. points: n of the study's points, stride bytes apart, each beginning with its
 * struct study_pt. Returns how many did not run (a sweep without results counts one).
 */
size_t study_write_run(FILE *f, const struct study_opts *o, const char *base,
		       const struct study_results *r, const void *points, size_t n, size_t stride);

/*
 * summary.md's "Every point": each point's sweep, name, status and cycles (± its 95%
 * half-width); with another run of the study (other_r, its other_n points, the same stride),
 * each point that ran in both beside the other's, with the error and whether the difference
 * lies within the two half-widths, and the mean and largest error.
 */
void study_write_points(FILE *f, const struct study_def *def, const void *points, size_t n,
			size_t stride, const struct study_results *other_r, const void *other,
			size_t other_n);

/* A point's own file, DIR/SWEEP/points/ID.json (its statistics beyond the result), loaded:
 * the caller json_decref()s it; NULL when the point has no id or the file cannot be read. */
json_t *study_point_json(const struct study_def *def, const char *dir, const struct study_pt *p);

/* NULL when out of memory. */
char *study_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An axis value of a sweep's point (the sweep writes it as a string) as an integer. */
bool study_axis_int(json_t *v, long long *out);

/* The distinct values of field key of the results of the points of the results.json roots
 * (n of them, NULL ones skipped) as "a, b" ("-" for none). */
void study_distinct(FILE *f, json_t *const *roots, unsigned n, const char *key);

/* DIR/NAME exists. */
bool study_exists(const char *dir, const char *name);

/* The index of a workload (as a sweep names it) in def->bench, or -1. */
int study_bench_index(const struct study_def *def, const char *name);

/*
 * One figure through `cohscope plot -q`: files (nfiles results files, at most 32), PREFIX, --metric,
 * --title, --baseline, and, when not NULL, --group-by, --where and --speedup. The status of
 * cmd_plot.
 */
struct study_plot {
	const char *const *files;
	int nfiles;
	const char *prefix, *metric, *title, *baseline, *group_by, *where;
	bool speedup;
};
int study_plot(const struct study_plot *p);

#endif
