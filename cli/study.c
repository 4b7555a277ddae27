/*
 * cli/study.c - `cohscope study NAME`: a paper's evaluation as one command (docs/study.md),
 * the runner every study shares (cli/study_impl.h).
 *
 * A study names sweep files of configs/studies/ and runs them through cmd_sweep (in process).
 * Each is first rewritten (libconfig) with its base made absolute and its workloads cut to
 * -w's, checked with a dry run before anything is written, then stored as DIR/NAME.sweep and
 * run into DIR/NAME. The study's report (cli/study_gtsc.c, cli/study_hsc.c, cli/study_hlrc.c) then draws the
 * figures into DIR/figs and writes DIR/summary.md from the sweeps' results.
 */
#include "cli/cli.h"
#include "cli/study.h"
#include "cli/study_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/plot.h"
#include "cli/sweep.h"
#include "util/hostperf.h"

#ifndef COHSCOPE_CONFIG_DIR
#define COHSCOPE_CONFIG_DIR "configs"
#endif

#define xasprintf study_asprintf

/* The studies, in the order of the seeds they come from (an explicit registry). */
static const struct study_def *const study_defs[] = {&study_gtsc, &study_hsc, &study_hlrc, NULL};

const char study_help[] =
    "usage: cohscope study gtsc|hsc|hlrc [-o DIR] [--jobs N] [--size tiny|small|default|full]\n"
    "                      [--mode detailed|hybrid|analytic] [--resume] [-w BENCH,...]\n"
    "                      [--against DIR2] [--set SECTION.KEY=VALUE]... [-q]\n"
    "\n"
    "gtsc: the G-TSC study (seed 001, thesis ch. 3): the 12 benchmarks under BL (no L1), W/L1\n"
    "(non-coherent, set 2 only), TC-RC, TC-SC (TC-Strong), TC-W-SC (TC-Weak under SC), G-TSC-RC\n"
    "and G-TSC-SC; G-TSC-RC with leases 1-1000; set 1 under the TC configurations with tc.lease\n"
    "200-3200 (configs/studies/gtsc-*.sweep); Figs. 12-17 and 19; summary.md: the paper's\n"
    "claims beside ours with 95% intervals, Table 3.2, the lease tables, every point's cycles.\n"
    "\n"
    "hsc: enhanced heterogeneous system coherence (seed 002) on the APU (configs/apu-2200g.cfg):\n"
    "the ten CHAI workloads under the baseline, A, B, B.1, useL3OnWT, C, A+B+C, owner,\n"
    "owner+sharers and all; owner+sharers with 4096-262144 directory entries, 1-8 CorePairs;\n"
    "the baseline and C with a 1-16 MB LLC (configs/studies/hsc*.sweep); Figs. 4-7;\n"
    "summary.md: the paper's claims beside ours, the tables per workload, the sensitivity.\n"
    "\n"
    "hlrc: lazy release consistency for GPUs (seed 004) on the 128-CU GPU\n"
    "(configs/hlrc-128cu.cfg): SSSP, color and PageRank on the three inputs each of its Table 5\n"
    "under baseline, scope-only, steal-only, RSP, DeNovo-B, hLRC, hLRC-noprio, DeNovo-Rprio and\n"
    "hLRC-scoped; the baseline and RSP with 8-64 CUs (configs/studies/hlrc-*.sweep); Figs. 1,\n"
    "4-10; summary.md: the claims V1-V23 beside ours, the actions by cause, the latency sums,\n"
    "Table 6.\n"
    "\n"
    "All three run through `cohscope sweep` and draw with `cohscope plot`. docs/study.md.\n"
    "\n"
    "  -o, --output DIR  the study's directory (default: study-NAME): a directory per sweep,\n"
    "                    DIR/figs, DIR/summary.md\n"
    "  -j, --jobs N      points run at once (default: the number of CPUs)\n"
    "      --size SIZE   workload.size of every point (default: default)\n"
    "      --mode MODE   system.mode of every point (default: the configuration's)\n"
    "      --resume      continue a study in DIR (finished points are kept)\n"
    "  -w BENCH,...      only these benchmarks (default: all of the study's)\n"
    "      --against DIR2  another study (e.g. the hybrid run beside a detailed one): the\n"
    "                    summary sets each point's cycles beside DIR2's, with the error\n"
    "      --set K=V     an override for every point (as in cohscope run)\n"
    "  -q, --quiet       print no progress and no summary\n"
    "\n"
    "exit status: 0 every point ran; 1 a point failed (the rest is written); 2 usage;\n"
    "3 bad input; 4 an output not written; 5 out of memory; 128+N stopped by signal N\n";

/* ---- helpers every study uses ---------------------------------------------------------------- */

char *study_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

bool study_exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool e = p && access(p, F_OK) == 0;

	free(p);
	return e;
}

bool study_axis_int(json_t *v, long long *out)
{
	char *end;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (!json_is_string(v))
		return false;
	*out = strtoll(json_string_value(v), &end, 10);
	return end != json_string_value(v) && !*end;
}

void study_distinct(FILE *f, json_t *const *roots, unsigned n, const char *key)
{
	const char *seen[8];
	int ns = 0;

	for (unsigned k = 0; k < n; k++) {
		json_t *pts = json_object_get(roots[k], "points"), *e;
		size_t i;

		json_array_foreach(pts, i, e)
		{
			const char *v =
			    json_string_value(json_object_get(json_object_get(e, "result"), key));
			int j;

			if (!v)
				continue;
			for (j = 0; j < ns; j++)
				if (strcmp(seen[j], v) == 0)
					break;
			if (j == ns && ns < 8)
				seen[ns++] = v;
		}
	}
	for (int j = 0; j < ns; j++)
		fprintf(f, "%s%s", j ? ", " : "", seen[j]);
	if (!ns)
		fputs("-", f);
}

int study_read(const struct study_def *def, const char *dir, const bool *ran,
	       struct study_results *r, void **points, size_t *n, size_t stride,
	       int (*add)(void *ctx, void *slot), void *ctx)
{
	size_t cap = *n;

	memcpy(r->ran, ran, sizeof(r->ran));
	for (unsigned k = 0; k < def->nsweeps; k++) {
		char *path;
		json_t *pts, *e;
		size_t idx;

		if (!r->ran[k])
			continue;
		path = xasprintf("%s/%s/results.json", dir, def->sweeps[k].name);
		if (!path)
			return -1;
		r->root[k] = json_load_file(path, 0, NULL);
		free(path);
		pts = json_object_get(r->root[k], "points");
		if (!json_is_array(pts))
			continue;
		r->loaded[k] = true;
		json_array_foreach(pts, idx, e)
		{
			const char *w = json_string_value(json_object_get(e, "workload"));
			struct study_pt pt = {
			    .sweep = (int)k,
			    .bench = w ? study_bench_index(def, w) : -1,
			    .axes = json_object_get(e, "axes"),
			    .name = json_string_value(json_object_get(e, "name")),
			    .id = json_string_value(json_object_get(e, "id")),
			    .status = json_string_value(json_object_get(e, "status")),
			    .error = json_string_value(json_object_get(e, "error")),
			    .res = json_object_get(e, "result"),
			};

			void *slot;
			int keep;

			pt.config = json_string_value(json_object_get(pt.axes, "config"));
			if (!pt.status)
				pt.status = "missing";
			if (pt.bench < 0 || !pt.name)
				continue;
			if (*n == cap) {
				void *q = realloc(*points, (cap ? 2 * cap : 64) * stride);

				if (!q)
					return -1;
				*points = q;
				cap = cap ? 2 * cap : 64;
			}
			slot = (char *)*points + *n * stride;
			memset(slot, 0, stride);
			memcpy(slot, &pt, sizeof(pt));
			keep = add(ctx, slot);
			if (keep < 0)
				return -1;
			*n += (size_t)keep;
		}
	}
	return 0;
}

static const struct study_pt *pt_at(const void *points, size_t stride, size_t i)
{
	return (const struct study_pt *)((const char *)points + i * stride);
}

json_t *study_point_json(const struct study_def *def, const char *dir, const struct study_pt *p)
{
	char *path = p->id
			 ? xasprintf("%s/%s/points/%s.json", dir, def->sweeps[p->sweep].name, p->id)
			 : NULL;
	json_t *root = path ? json_load_file(path, 0, NULL) : NULL;

	free(path);
	return root;
}

/* A point's cycles from its result; NAN when it did not run. */
static double pt_cycles(const struct study_pt *p)
{
	double c = json_number_value(json_object_get(p->res, "cycles"));

	return strcmp(p->status, "ok") == 0 && c > 0 ? c : NAN;
}

void study_write_points(FILE *f, const struct study_def *def, const void *points, size_t n,
			size_t stride, const struct study_results *other_r, const void *other,
			size_t other_n)
{
	double sum = 0, max = 0;
	unsigned nboth = 0, within = 0;

	fputs("## Every point\n\n", f);
	if (other_r) {
		fputs("Beside another run of the study (--against): mode ", f);
		study_distinct(f, other_r->root, def->nsweeps, "mode");
		fputs("; workload size: ", f);
		study_distinct(f, other_r->root, def->nsweeps, "size");
		fputs(
		    ". error = (cycles there - cycles here) / cycles here; within ±: |difference| "
		    "<= the sum of the two 95% half-widths (a detailed point's is 0).\n\n"
		    "| sweep | point | cycles here | cycles there | error | within ± |\n"
		    "|---|---|---|---|---|---|\n",
		    f);
	} else {
		fputs("| sweep | point | status | cycles |\n|---|---|---|---|\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		const struct study_pt *p = pt_at(points, stride, i), *q = NULL;
		double c = pt_cycles(p),
		       ha = json_number_value(json_object_get(p->res, "cycles_half"));
		double cq, hb, e;

		if (!other_r) {
			fprintf(f, "| %s | %s | %s | ", def->sweeps[p->sweep].name, p->name,
				p->status);
			if (isnan(c))
				fputs("- |\n", f);
			else if (ha > 0)
				fprintf(f, "%.0f ± %.0f |\n", c, ha);
			else
				fprintf(f, "%.0f |\n", c);
			continue;
		}
		for (size_t j = 0; j < other_n && !q; j++) {
			const struct study_pt *x = pt_at(other, stride, j);

			if (x->sweep == p->sweep && strcmp(x->name, p->name) == 0)
				q = x;
		}
		cq = q ? pt_cycles(q) : NAN;
		if (isnan(c) || isnan(cq))
			continue;
		hb = json_number_value(json_object_get(q->res, "cycles_half"));
		e = (cq - c) / c;
		fprintf(f, "| %s | %s | %.0f", def->sweeps[p->sweep].name, p->name, c);
		if (ha > 0)
			fprintf(f, " ± %.0f", ha);
		fprintf(f, " | %.0f", cq);
		if (hb > 0)
			fprintf(f, " ± %.0f", hb);
		fprintf(f, " | %+.1f%% | %s |\n", 100 * e, fabs(cq - c) <= ha + hb ? "yes" : "no");
		sum += fabs(e);
		max = fmax(max, fabs(e));
		within += fabs(cq - c) <= ha + hb;
		nboth++;
	}
	if (other_r && nboth)
		fprintf(f,
			"\n%u points in both: mean abs error %.1f%%, largest %.1f%%, %u within "
			"±\n",
			nboth, 100 * sum / nboth, 100 * max, within);
	fputs("\n", f);
}

size_t study_write_run(FILE *f, const struct study_opts *o, const char *base,
		       const struct study_results *r, const void *points, size_t n, size_t stride)
{
	const struct study_def *def = o->def;
	size_t total = 0, nbad = 0;
	unsigned nsel = 0;

	fputs("- mode: ", f);
	study_distinct(f, r->root, def->nsweeps, "mode");
	fputs("; workload size: ", f);
	study_distinct(f, r->root, def->nsweeps, "size");
	fprintf(f, "\n- base configuration: %s%s", base, o->nsets ? "; overrides:" : "");
	for (int i = 0; i < o->nsets; i++)
		fprintf(f, " `--set %s`", o->sets[i]);
	for (unsigned i = 0; i < def->nbench; i++)
		nsel += o->sel[i];
	fprintf(f, "\n- benchmarks: %u of %u:", nsel, def->nbench);
	for (unsigned i = 0; i < def->nbench; i++)
		if (o->sel[i])
			fprintf(f, " %s", def->label[i]);
	fputs("\n- points:", f);
	for (unsigned k = 0; k < def->nsweeps; k++) {
		size_t m = 0, ok = 0;

		for (size_t i = 0; i < n; i++)
			if (pt_at(points, stride, i)->sweep == (int)k) {
				m++;
				ok += strcmp(pt_at(points, stride, i)->status, "ok") == 0;
			}
		total += m;
		nbad += m - ok;
		if (!r->ran[k])
			fprintf(f, "%s %s not run (none of its workloads selected)", k ? ";" : "",
				def->sweeps[k].name);
		else if (!r->loaded[k])
			fprintf(f, "%s %s: no results", k ? ";" : "", def->sweeps[k].name);
		else
			fprintf(f, "%s %s %zu (%zu ok)", k ? ";" : "", def->sweeps[k].name, m, ok);
		if (r->ran[k] && !r->loaded[k])
			nbad++;
	}
	fprintf(f, "; %zu in all\n\n", total);
	if (!nbad)
		return 0;
	fputs("## Points that did not run (left out of every mean)\n\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct study_pt *p = pt_at(points, stride, i);

		if (strcmp(p->status, "ok") != 0)
			fprintf(f, "- %s: %s: %s%s%s\n", def->sweeps[p->sweep].name, p->name,
				p->status, p->error ? ": " : "", p->error ? p->error : "");
	}
	for (unsigned k = 0; k < def->nsweeps; k++)
		if (r->ran[k] && !r->loaded[k])
			fprintf(f, "- %s: no %s/results.json\n", def->sweeps[k].name,
				def->sweeps[k].name);
	fputs("\n", f);
	return nbad;
}

void study_results_free(struct study_results *r)
{
	for (unsigned k = 0; k < STUDY_MAX_SWEEPS; k++)
		json_decref(r->root[k]);
}

int study_bench_index(const struct study_def *def, const char *name)
{
	for (unsigned i = 0; i < def->nbench; i++)
		if (strcmp(def->bench[i], name) == 0)
			return (int)i;
	return -1;
}

int study_plot(const struct study_plot *p)
{
	char *argv[1 + 32 + 16]; /* "plot", at most 32 files, at most 15 options, NULL */
	int argc = 0;

	argv[argc++] = "plot";
	for (int k = 0; k < p->nfiles && k < 32; k++)
		argv[argc++] = (char *)p->files[k];
	argv[argc++] = "-o";
	argv[argc++] = (char *)p->prefix;
	argv[argc++] = "--metric";
	argv[argc++] = (char *)p->metric;
	argv[argc++] = "--title";
	argv[argc++] = (char *)p->title;
	argv[argc++] = "--baseline";
	argv[argc++] = (char *)p->baseline;
	if (p->group_by) {
		argv[argc++] = "--group-by";
		argv[argc++] = (char *)p->group_by;
	}
	if (p->where) {
		argv[argc++] = "--where";
		argv[argc++] = (char *)p->where;
	}
	if (p->speedup)
		argv[argc++] = "--speedup";
	/* the summary names the bars a figure leaves out, once, not one line per figure */
	argv[argc++] = "--no-gap-warning";
	argv[argc++] = "-q";
	argv[argc] = NULL;
	return cmd_plot(argc, argv);
}

static int make_dirs(const char *path)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return -1;
	for (char *s = p + 1; *s && !rc; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (!rc && mkdir(p, 0777) && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* ---- options ------------------------------------------------------------------------------- */

static bool one_of(const char *s, const char *const *v)
{
	for (; *v; v++)
		if (strcmp(s, *v) == 0)
			return true;
	return false;
}

/* A -w name: the study's label (bs) or the workload's name (chai_bs). */
static int label_index(const struct study_def *def, const char *name)
{
	for (unsigned i = 0; i < def->nbench; i++)
		if (strcmp(def->label[i], name) == 0)
			return (int)i;
	return study_bench_index(def, name);
}

static int parse_workloads(const struct study_def *def, const char *list, bool *sel)
{
	char *buf = strdup(list), *save = NULL, names[512] = "";
	int status = 0;

	if (!buf)
		return cli_fail(EXIT_INTERNAL, "out of memory");
	for (unsigned i = 0; i < def->nbench; i++) {
		size_t l = strlen(names);

		snprintf(names + l, sizeof(names) - l, "%s%s", i ? " " : "", def->label[i]);
	}
	memset(sel, 0, STUDY_MAX_BENCH * sizeof(*sel));
	for (char *t = strtok_r(buf, ",", &save); t && !status; t = strtok_r(NULL, ",", &save)) {
		int i = label_index(def, t);

		if (i < 0)
			status =
			    cli_fail(EXIT_USAGE, "study: -w %s: '%s' is not a benchmark of %s (%s)",
				     list, t, def->title, names);
		else if (sel[i])
			status =
			    cli_fail(EXIT_USAGE, "study: -w %s: '%s' is listed twice", list, t);
		else
			sel[i] = true;
	}
	if (!status && !memchr(sel, true, def->nbench))
		status = cli_fail(EXIT_USAGE, "study: -w '%s': no benchmark", list);
	free(buf);
	return status;
}

static int parse_study_opts(int argc, char **argv, struct study_opts *o)
{
	enum { OPT_RESUME = 256, OPT_SET, OPT_SIZE, OPT_MODE, OPT_AGAINST };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"size", required_argument, NULL, OPT_SIZE},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"resume", no_argument, NULL, OPT_RESUME},
	    {"against", required_argument, NULL, OPT_AGAINST},
	    {"workloads", required_argument, NULL, 'w'},
	    {"set", required_argument, NULL, OPT_SET},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static const char *const sizes[] = {"tiny", "small", "default", "full", NULL};
	static const char *const modes[] = {"detailed", "hybrid", "analytic", NULL};
	const char *wl = NULL;
	char *end, names[128];
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->size = "default";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:j:w:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!optarg[0] || *end || errno || v < 1 || v > 1024)
				return cli_fail(
				    EXIT_USAGE,
				    "study: --jobs %s: expected a number from 1 to 1024", optarg);
			o->jobs = optarg;
			break;
		case OPT_SIZE:
			if (!one_of(optarg, sizes))
				return cli_fail(
				    EXIT_USAGE,
				    "study: --size %s: expected tiny, small, default or full",
				    optarg);
			o->size = optarg;
			break;
		case OPT_MODE:
			if (!one_of(optarg, modes))
				return cli_fail(EXIT_USAGE,
						"study: --mode %s: expected detailed, hybrid or "
						"analytic",
						optarg);
			o->mode = optarg;
			break;
		case OPT_RESUME:
			o->resume = true;
			break;
		case OPT_AGAINST:
			if (!optarg[0])
				return cli_fail(EXIT_USAGE,
						"study: --against: an empty directory name");
			o->against = optarg;
			break;
		case 'w':
			wl = optarg;
			break;
		case OPT_SET:
			if (o->nsets == STUDY_MAX_SETS)
				return cli_fail(EXIT_USAGE, "study: more than %d --set options",
						STUDY_MAX_SETS);
			if (!strncmp(optarg, "workload.size=", 14) ||
			    !strncmp(optarg, "system.mode=", 12))
				return cli_fail(
				    EXIT_USAGE,
				    "study: --set %s: use --size or --mode for this key", optarg);
			o->sets[o->nsets++] = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
			return cli_fail(EXIT_USAGE, "study: option %s needs a value",
					argv[optind - 1]);
		default:
			return cli_fail(EXIT_USAGE,
					"study: unknown option '%s' (see cohscope study --help)",
					argv[optind - 1]);
		}
	}
	if (o->help)
		return 0;
	for (int i = 0, n = 0; study_defs[i]; i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
			      study_defs[i]->name);
	if (optind >= argc)
		return cli_fail(EXIT_USAGE, "study: no study named (%s; see cohscope study --help)",
				names);
	for (int i = 0; study_defs[i]; i++)
		if (strcmp(argv[optind], study_defs[i]->name) == 0)
			o->def = study_defs[i];
	if (!o->def)
		return cli_fail(EXIT_USAGE, "study: unknown study '%s' (there are %s)",
				argv[optind], names);
	if (optind + 1 < argc)
		return cli_fail(EXIT_USAGE, "study: unexpected argument '%s' (one study)",
				argv[optind + 1]);
	for (int i = 0; i < o->nsets; i++)
		for (const char *const *k = o->def->varied; *k; k++)
			if (!strncmp(o->sets[i], *k, strlen(*k)))
				return cli_fail(EXIT_USAGE,
						"study: --set %s: the study's configurations set "
						"this key",
						o->sets[i]);
	if (!o->output)
		o->output = o->def->output;
	if (!o->output[0])
		return cli_fail(EXIT_USAGE, "study: -o: an empty directory name");
	for (unsigned i = 0; i < o->def->nbench; i++)
		o->sel[i] = true;
	return wl ? parse_workloads(o->def, wl, o->sel) : 0;
}

/* ---- the sweep files ------------------------------------------------------------------------ */

/*
 * The shipped sweep file k rewritten for this study: base made absolute, workloads cut to the
 * selected benchmarks (in the file's order). *text is NULL when none of its workloads is
 * selected.
 */
static int gen_sweep(int k, const struct study_opts *o, char **text, unsigned *nwl)
{
	const struct study_def *def = o->def;
	char *path = xasprintf("%s/studies/%s", COHSCOPE_CONFIG_DIR, def->sweeps[k].file);
	char *abs = NULL, *dir = NULL, *base = NULL, *basepath = NULL;
	config_setting_t *root, *s, *arr;
	const char *names[STUDY_MAX_BENCH];
	unsigned n = 0;
	config_t lc;
	size_t len;
	FILE *f;
	int status = 0;

	*text = NULL;
	*nwl = 0;
	config_init(&lc);
	if (!path) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	abs = realpath(path, NULL);
	if (!abs) {
		status = cli_fail(EXIT_INPUT, "study: %s: %s", path, strerror(errno));
		goto out;
	}
	dir = strndup(abs, (size_t)(strrchr(abs, '/') - abs));
	if (!dir) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	config_set_include_dir(&lc, dir);
	if (!config_read_file(&lc, abs)) {
		status = cli_fail(EXIT_INPUT, "%s:%d: %s", path, config_error_line(&lc),
				  config_error_text(&lc));
		goto out;
	}
	root = config_root_setting(&lc);
	s = config_setting_get_member(root, "base");
	if (!s || config_setting_type(s) != CONFIG_TYPE_STRING) {
		status = cli_fail(EXIT_INPUT, "%s: no base", path);
		goto out;
	}
	base = config_setting_get_string(s)[0] == '/'
		   ? strdup(config_setting_get_string(s))
		   : xasprintf("%s/%s", dir, config_setting_get_string(s));
	basepath = base ? realpath(base, NULL) : NULL;
	if (!basepath) {
		status = cli_fail(EXIT_INPUT, "%s: base %s: %s", path, base ? base : "?",
				  strerror(errno));
		goto out;
	}
	config_setting_set_string(s, basepath);
	s = config_setting_get_member(root, "workloads");
	if (!s) {
		status = cli_fail(EXIT_INPUT, "%s: no workloads", path);
		goto out;
	}
	if (config_setting_type(s) == CONFIG_TYPE_STRING &&
	    strcmp(config_setting_get_string(s), "suite") == 0) {
		for (unsigned i = 0; i < def->nbench; i++)
			if (o->sel[i])
				names[n++] = def->bench[i];
	} else {
		for (int e = 0; e < config_setting_length(s); e++) {
			const char *w = config_setting_get_string_elem(s, e);
			int i = w ? study_bench_index(def, w) : -1;

			if (i < 0) {
				status = cli_fail(EXIT_INPUT, "%s: workload %s is not in the study",
						  path, w ? w : "?");
				goto out;
			}
			if (o->sel[i] && n < STUDY_MAX_BENCH)
				names[n++] = def->bench[i];
		}
	}
	*nwl = n;
	if (!n)
		goto out;
	config_setting_remove(root, "workloads");
	arr = config_setting_add(root, "workloads", CONFIG_TYPE_ARRAY);
	for (unsigned i = 0; arr && i < n; i++)
		if (!config_setting_set_string_elem(arr, -1, names[i]))
			arr = NULL;
	f = arr ? open_memstream(text, &len) : NULL;
	if (!f) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	fprintf(f, "# written by cohscope study %s from %s/studies/%s\n", def->name, "configs",
		def->sweeps[k].file);
	config_write(&lc, f);
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		status = cli_fail(EXIT_INTERNAL, "out of memory");
	}
out:
	config_destroy(&lc);
	free(basepath);
	free(base);
	free(dir);
	free(abs);
	free(path);
	return status;
}

/* `cohscope sweep FILE ...` in process, with the study's overrides. */
static int run_sweep(const struct study_opts *o, const char *file, const char *out, bool dry,
		     char **sizeset, char **modeset)
{
	char *argv[16 + 2 * STUDY_MAX_SETS];
	int argc = 0;

	argv[argc++] = "sweep";
	argv[argc++] = (char *)file;
	if (dry) {
		argv[argc++] = "--dry-run";
	} else {
		argv[argc++] = "-o";
		argv[argc++] = (char *)out;
		if (o->resume)
			argv[argc++] = "--resume";
		if (o->jobs) {
			argv[argc++] = "--jobs";
			argv[argc++] = (char *)o->jobs;
		}
	}
	argv[argc++] = "--set";
	argv[argc++] = *sizeset;
	if (*modeset) {
		argv[argc++] = "--set";
		argv[argc++] = *modeset;
	}
	for (int i = 0; i < o->nsets; i++) {
		argv[argc++] = "--set";
		argv[argc++] = (char *)o->sets[i];
	}
	if (o->quiet)
		argv[argc++] = "-q";
	argv[argc] = NULL;
	return cmd_sweep(argc, argv);
}

/* The dry run of a sweep, its point list sent to /dev/null (its errors stay on stderr). */
static int check_sweep(const struct study_opts *o, const char *file, char **sizeset, char **modeset)
{
	int saved, nul, status;

	fflush(stdout);
	saved = dup(1);
	nul = open("/dev/null", O_WRONLY);
	if (saved < 0 || nul < 0) {
		if (saved >= 0)
			close(saved);
		if (nul >= 0)
			close(nul);
		return cli_fail(EXIT_INTERNAL, "study: cannot open /dev/null: %s", strerror(errno));
	}
	dup2(nul, 1);
	close(nul);
	status = run_sweep(o, file, NULL, true, sizeset, modeset);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return status;
}

/* ---- the command ---------------------------------------------------------------------------- */

/*
 * The options that choose the study's points (size, mode, benchmarks, --set), one line each:
 * DIR/study.args. A --resume with other values would run other points beside the old ones and
 * summarize those, so it is refused.
 */
static char *study_args(const struct study_opts *o)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "--size %s\n--mode %s\n-w", o->size,
		o->mode ? o->mode : "(the configuration's)");
	for (unsigned i = 0, n = 0; i < o->def->nbench; i++)
		if (o->sel[i])
			fprintf(f, "%s%s", n++ ? "," : " ", o->def->label[i]);
	fputs("\n", f);
	for (int i = 0; i < o->nsets; i++)
		fprintf(f, "--set %s\n", o->sets[i]);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* 0 when DIR/study.args is absent or says args; else a usage error naming the first line
 * that differs. */
static int check_resume_args(const char *dir, const char *args)
{
	char *path = xasprintf("%s/study.args", dir), *old = NULL;
	size_t cap = 0, n = 0;
	FILE *f = path ? fopen(path, "r") : NULL;
	int status = 0;

	if (f) {
		char buf[4096];
		size_t r;

		while ((r = fread(buf, 1, sizeof(buf), f)) > 0) {
			char *q = realloc(old, cap + r + 1);

			if (!q)
				break;
			old = q;
			memcpy(old + n, buf, r);
			n += r;
			cap += r;
			old[n] = 0;
		}
		fclose(f);
		if (old && strcmp(old, args) != 0) {
			const char *a = old, *b = args;
			size_t la, lb;

			/* the first differing line of each */
			while (*a && *b) {
				la = strcspn(a, "\n");
				lb = strcspn(b, "\n");
				if (la != lb || memcmp(a, b, la))
					break;
				a += la + (a[la] == '\n');
				b += lb + (b[lb] == '\n');
			}
			a = *a ? a : "no more options";
			b = *b ? b : "no more options";
			la = strcspn(a, "\n");
			lb = strcspn(b, "\n");
			status =
			    cli_fail(EXIT_USAGE,
				     "study: --resume: %s was run with '%.*s', not '%.*s' (give "
				     "the same --size, --mode, -w and --set)",
				     dir, (int)la, a, (int)lb, b);
		}
	}
	free(old);
	free(path);
	return status;
}

/* The study's results of the sweeps of dir that ran names; NULL when out of memory. */
static void *load_results(const struct study_def *def, const char *dir, const bool *ran, bool full)
{
	void *d = calloc(1, def->data_size);

	if (!d)
		return NULL;
	if (def->fill(d, dir, ran, full)) {
		def->clear(d);
		free(d);
		return NULL;
	}
	return d;
}

static void release_results(const struct study_def *def, void *d)
{
	if (d) {
		def->clear(d);
		free(d);
	}
}

/*
 * Another run of the study for --against, read before anything runs (a bad one writes
 * nothing): the sweeps it has results of, loaded into *other.
 */
static int load_against(const struct study_opts *o, void **other)
{
	const struct study_def *def = o->def;
	bool ran[STUDY_MAX_SWEEPS] = {false}, any = false;

	for (unsigned k = 0; k < def->nsweeps; k++) {
		char *r = xasprintf("%s/results.json", def->sweeps[k].name);

		ran[k] = r && study_exists(o->against, r);
		any |= ran[k];
		free(r);
	}
	if (!any)
		return cli_fail(EXIT_INPUT,
				"study: --against %s: no study's results there (no "
				"%s/results.json, %s/results.json, ...)",
				o->against, def->sweeps[0].name, def->sweeps[1].name);
	*other = load_results(def, o->against, ran, false);
	if (!*other)
		return cli_fail(EXIT_INTERNAL, "out of memory");
	if (!def->npoints(*other))
		return cli_fail(EXIT_INPUT,
				"study: --against %s: its results hold no point of the study",
				o->against);
	return 0;
}

int cmd_study(int argc, char **argv)
{
	struct study_opts o;
	const struct study_def *def;
	char *text[STUDY_MAX_SWEEPS] = {NULL}, *files[STUDY_MAX_SWEEPS] = {NULL};
	char *outs[STUDY_MAX_SWEEPS] = {NULL};
	char *sizeset = NULL, *modeset = NULL, *tmpdir = NULL, *figs = NULL;
	char *summary = NULL, *mdpath = NULL, *args = NULL;
	unsigned nwl[STUDY_MAX_SWEEPS];
	bool ran[STUDY_MAX_SWEEPS] = {false};
	void *data = NULL, *other = NULL;
	double t0 = cs_wall_seconds();
	size_t nbad = 0;
	int status, plot_status = 0;

	status = parse_study_opts(argc, argv, &o);
	if (status)
		return status;
	if (o.help) {
		fputs(study_help, stdout);
		return 0;
	}
	def = o.def;
	args = study_args(&o);
	if (!args) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (o.resume) {
		status = check_resume_args(o.output, args);
		if (status)
			goto out;
	}
	if (!o.resume) {
		bool held = study_exists(o.output, "summary.md");

		for (unsigned k = 0; k < def->nsweeps && !held; k++) {
			char *m = xasprintf("%s/manifest.json", def->sweeps[k].name);

			held = m && study_exists(o.output, m);
			free(m);
		}
		if (held) {
			status =
			    cli_fail(EXIT_USAGE,
				     "study: %s holds a study already: --resume continues it, or "
				     "choose another -o",
				     o.output);
			goto out;
		}
	}
	/* The other study is read before anything runs: a bad --against writes nothing. */
	if (o.against) {
		status = load_against(&o, &other);
		if (status)
			goto out;
	}
	sizeset = xasprintf("workload.size=%s", o.size);
	modeset = o.mode ? xasprintf("system.mode=%s", o.mode) : NULL;
	if (!sizeset || (o.mode && !modeset)) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	/* Every sweep is written and checked in a scratch directory before DIR is touched. */
	{
		const char *t = getenv("TMPDIR");

		tmpdir = xasprintf("%s/cohscope-study.XXXXXX", t && t[0] ? t : "/tmp");
		if (!tmpdir || !mkdtemp(tmpdir)) {
			status =
			    cli_fail(EXIT_OUTPUT, "study: cannot create a scratch directory: %s",
				     strerror(errno));
			free(tmpdir);
			tmpdir = NULL;
			goto out;
		}
	}
	for (unsigned k = 0; k < def->nsweeps && !status; k++) {
		status = gen_sweep((int)k, &o, &text[k], &nwl[k]);
		ran[k] = text[k] != NULL;
		if (status || !text[k])
			continue;
		files[k] = xasprintf("%s/%s.sweep", tmpdir, def->sweeps[k].name);
		if (!files[k] || cli_write_atomic(files[k], text[k], strlen(text[k]))) {
			status = cli_fail(EXIT_OUTPUT, "study: %s: cannot write: %s",
					  files[k] ? files[k] : tmpdir, strerror(errno));
			break;
		}
		status = check_sweep(&o, files[k], &sizeset, &modeset);
	}
	for (unsigned k = 0; k < def->nsweeps; k++)
		if (files[k]) {
			unlink(files[k]);
			free(files[k]);
			files[k] = NULL;
		}
	rmdir(tmpdir);
	if (status)
		goto out;

	/* The sweeps. */
	figs = xasprintf("%s/figs", o.output);
	if (!figs || make_dirs(figs)) {
		status = cli_fail(EXIT_OUTPUT, "study: %s: cannot create the directory: %s",
				  figs ? figs : o.output, strerror(errno));
		goto out;
	}
	{
		char *ap = xasprintf("%s/study.args", o.output);

		if (!ap || cli_write_atomic(ap, args, strlen(args))) {
			status = cli_fail(EXIT_OUTPUT, "study: %s: cannot write: %s",
					  ap ? ap : o.output, strerror(errno));
			free(ap);
			goto out;
		}
		free(ap);
	}
	for (unsigned k = 0; k < def->nsweeps; k++) {
		int rc;

		if (!text[k])
			continue;
		files[k] = xasprintf("%s/%s.sweep", o.output, def->sweeps[k].name);
		outs[k] = xasprintf("%s/%s", o.output, def->sweeps[k].name);
		if (!files[k] || !outs[k]) {
			status = cli_fail(EXIT_INTERNAL, "out of memory");
			goto out;
		}
		if (cli_write_atomic(files[k], text[k], strlen(text[k]))) {
			status = cli_fail(EXIT_OUTPUT, "study: %s: cannot write: %s", files[k],
					  strerror(errno));
			goto out;
		}
		if (!o.quiet) {
			printf("study %s: %s: %u benchmark%s %s\n", def->name, def->sweeps[k].name,
			       nwl[k], nwl[k] == 1 ? "" : "s", def->sweeps[k].what);
			fflush(stdout);
		}
		rc = run_sweep(&o, files[k], outs[k], false, &sizeset, &modeset);
		if (rc >= 128) {
			status = cli_fail(rc,
					  "study: stopped; cohscope study %s -o %s --resume "
					  "continues it",
					  def->name, o.output);
			goto out;
		}
		if (rc && rc != EXIT_SIM) {
			status = rc;
			goto out;
		}
	}

	/* The results, the figures, the summary. */
	data = load_results(def, o.output, ran, true);
	if (!data) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	for (unsigned k = 0; k < def->nfigures; k++) {
		int rc = def->figure(&o, data, k);

		if (rc && !plot_status)
			plot_status = rc;
	}
	mdpath = xasprintf("%s/summary.md", o.output);
	if (!mdpath || def->summary(&o, data, other, &summary, &nbad)) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (cli_write_atomic(mdpath, summary, strlen(summary))) {
		status =
		    cli_fail(EXIT_OUTPUT, "study: %s: cannot write: %s", mdpath, strerror(errno));
		goto out;
	}
	if (!o.quiet) {
		printf("\n%s\nstudy %s: %s/summary.md, %s/figs/ (%.1f s)\n", summary, def->name,
		       o.output, o.output, cs_wall_seconds() - t0);
		fflush(stdout);
	}
	if (nbad)
		status =
		    cli_fail(EXIT_SIM,
			     "study: %zu point%s did not run (listed in %s/summary.md; left out "
			     "of the means)",
			     nbad, nbad == 1 ? "" : "s", o.output);
	else
		status = plot_status;
out:
	release_results(def, data);
	release_results(def, other);
	for (unsigned k = 0; k < STUDY_MAX_SWEEPS; k++) {
		free(text[k]);
		free(files[k]);
		free(outs[k]);
	}
	free(sizeset);
	free(modeset);
	free(tmpdir);
	free(figs);
	free(summary);
	free(mdpath);
	free(args);
	return status;
}
