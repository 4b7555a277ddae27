/*
 * cli/study_hsc.c - `cohscope study hsc`: the evaluation of enhanced heterogeneous system
 * coherence (seed 002 §VI; /work/shared/reference/seed-002-hsc.md §5-6; docs/study.md).
 *
 * Four sweep files of configs/studies/ run through the shared runner (cli/study.c): the ten
 * CHAI workloads under the baseline and each enhancement as its own switch (hsc.sweep), and
 * three sensitivities the paper did not report: the directory cache's size, the number of
 * CorePairs and the LLC's size. cmd_plot draws the analogues of Figs. 4-7; summary.md sets
 * the paper's claims (V1-V11) beside ours and gives the tables per workload, the probes by
 * cause and the sensitivity, from the sweeps' results.json and each point's statistics
 * (points/ID.json). It holds simulated figures only: the same results give the same bytes.
 */
#include "cli/cli.h"
#include "cli/study_impl.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define xasprintf study_asprintf

/* ---- the study: workloads, sweeps, configurations -------------------------------------------- */

/* In seed 002's order (CHAI's). */
#define NWL 10
static const char *const wl[NWL] = {"chai_bs",	 "chai_cedd", "chai_pad",  "chai_sc",
				    "chai_tq",	 "chai_hsti", "chai_hsto", "chai_trns",
				    "chai_rscd", "chai_rsct"};
static const char *const lbl[NWL] = {"bs",   "cedd", "pad",  "sc",   "tq",
				     "hsti", "hsto", "trns", "rscd", "rsct"};

/*
 * The paper averages its tracking results over "the five benchmarks tested" without naming
 * them, and names five others as highly data-parallel with little gain (bs, pad, hsti, hsto,
 * rscd). Its five are taken as the complement: the workloads whose CPU and GPU share data at a
 * fine grain (docs/validation/hsc.md).
 */
static const bool active[NWL] = {false, true, false, true, true, false, false, true, false, true};

enum { SW_VARIANTS, SW_DIRSIZE, SW_COREPAIRS, SW_LLC, NSWEEP };

static const struct study_sweep sweeps[NSWEEP] = {
    {"variants", "hsc.sweep",
     "x baseline, A, B, B.1, useL3OnWT, C, A+B+C, owner, owner+sharers, all"},
    {"dirsize", "hsc-dirsize.sweep",
     "x baseline, owner+sharers with dir.entries = 4096, 16384, 65536, 262144"},
    {"corepairs", "hsc-corepairs.sweep",
     "x baseline, owner+sharers with 1, 2, 4, 8 CorePairs (cpus.cores = 2, 4, 8, 16)"},
    {"llc", "hsc-llc.sweep", "x baseline, C with llc.size_kib = 1024, 4096, 16384"},
};

/* hsc.sweep's configurations; C includes useL3OnWT (the directory refuses C without it). */
enum { C_BASE, C_A, C_B, C_B1, C_L3WT, C_C, C_ABC, C_OWNER, C_SHARERS, C_ALL, NCONF };
static const char *const conf[NCONF] = {"baseline", "A",     "B",     "B.1",	       "useL3OnWT",
					"C",	    "A+B+C", "owner", "owner+sharers", "all"};

/* The probes' causes: the request types that send them and the directory's own evictions. */
#define NCAUSE 9
static const char *const cause[NCAUSE] = {"RdBlk", "RdBlkS", "RdBlkM", "WT",	 "Atomic",
					  "Flush", "DMARd",  "DMAWr",  "backinv"};

/* What a point gives: from its result, its cycles, the directory's probes and DRAM accesses
 * and its LLC hits; from its statistics, the probes by cause, the states tracked requests
 * found, and the directory's own evictions. */
enum hm {
	M_CYCLES,
	M_PROBES, /* the result's apu.probes: downgrades, invalidations, back-invalidations */
	M_DRAM,	  /* apu.dram_accesses: reads and writes of every cause */
	M_LLC_HITS,
	M_ENERGY,  /* energy_j (docs/energy.md) */
	M_TRAFFIC, /* noc_bytes: every kind of message (traffic.noc) */
	M_FOUND_I,
	M_FOUND_S,
	M_FOUND_O,
	M_EVICT,
	M_CAUSE, /* M_CAUSE + c: probes for cause c */
	NM = M_CAUSE + NCAUSE,
};

/* ---- the results ----------------------------------------------------------------------------- */

struct hpt {
	struct study_pt c;
	long long axis; /* cpus.cores (corepairs), llc.size_kib (llc); else 0 */
	double v[NM];	/* NAN: unknown */
};

struct hdata {
	struct study_results r;
	struct hpt *p;
	size_t n;
	const char *dir; /* while loading */
	bool stats;	 /* read each ok point's statistics */
};

static void hdata_free(void *data)
{
	struct hdata *d = data;

	study_results_free(&d->r);
	free(d->p);
}

static double number_or_nan(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double stat_of(json_t *stats, const char *name)
{
	return number_or_nan(json_object_get(stats, name));
}

/* The statistics of an ok point, from DIR/SWEEP/points/ID.json. */
static void point_stats(const char *dir, struct hpt *p)
{
	json_t *root = study_point_json(&study_hsc, dir, &p->c);
	json_t *st = json_object_get(root, "stats");
	char name[64];

	p->v[M_FOUND_I] = stat_of(st, "apu.dir.pf.found.I");
	p->v[M_FOUND_S] = stat_of(st, "apu.dir.pf.found.S");
	p->v[M_FOUND_O] = stat_of(st, "apu.dir.pf.found.O");
	p->v[M_EVICT] = stat_of(st, "apu.dir.pf.evictions");
	for (int c = 0; c < NCAUSE; c++) {
		snprintf(name, sizeof(name), "apu.dir.probes.%s", cause[c]);
		p->v[M_CAUSE + c] = stat_of(st, name);
	}
	json_decref(root);
}

/* A point of the study (study_read's add): kept with its axis and, when it ran, its result's
 * figures and (d->stats) its statistics. */
static int hdata_add(void *ctx, void *slot)
{
	struct hdata *d = ctx;
	struct hpt *p = slot;
	double c;

	for (int m = 0; m < NM; m++)
		p->v[m] = NAN;
	if (!p->c.config)
		return 0;
	if (p->c.sweep == SW_COREPAIRS &&
	    !study_axis_int(json_object_get(p->c.axes, "cpus.cores"), &p->axis))
		return 0;
	if (p->c.sweep == SW_LLC &&
	    !study_axis_int(json_object_get(p->c.axes, "llc.size_kib"), &p->axis))
		return 0;
	if (strcmp(p->c.status, "ok") == 0) {
		json_t *apu = json_object_get(p->c.res, "apu");

		c = json_number_value(json_object_get(p->c.res, "cycles"));
		p->v[M_CYCLES] = c > 0 ? c : NAN;
		p->v[M_PROBES] = number_or_nan(json_object_get(apu, "probes"));
		p->v[M_DRAM] = number_or_nan(json_object_get(apu, "dram_accesses"));
		p->v[M_LLC_HITS] = number_or_nan(json_object_get(apu, "llc_hits"));
		p->v[M_ENERGY] = number_or_nan(json_object_get(p->c.res, "energy_j"));
		p->v[M_TRAFFIC] = number_or_nan(json_object_get(p->c.res, "noc_bytes"));
		if (d->stats && p->c.id)
			point_stats(d->dir, p);
	}
	return 1;
}

static const struct hpt *find(const struct hdata *d, int k, int w, const char *config,
			      long long axis)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->p[i].c.sweep == k && d->p[i].c.bench == w && d->p[i].axis == axis &&
		    strcmp(d->p[i].c.config, config) == 0)
			return &d->p[i];
	return NULL;
}

/* ---- the arithmetic -------------------------------------------------------------------------- */

/* The paper's measure: the cut of metric m in percent, (base - v) / base, for cycles "saved
 * simulated cycles"; NAN when either is unknown or the base is 0. */
static double cut(const struct hpt *base, const struct hpt *p, enum hm m)
{
	if (!base || !p || isnan(base->v[m]) || isnan(p->v[m]) || base->v[m] <= 0)
		return NAN;
	return 100 * (base->v[m] - p->v[m]) / base->v[m];
}

/* A set of workloads: all ten, the coherence-active five, the data-parallel five. */
enum wset { WS_ALL, WS_ACTIVE, WS_PARALLEL };
static const char *const wset_name[] = {"all ten", "coherence-active five", "data-parallel five"};

static bool in_set(enum wset s, int w)
{
	return s == WS_ALL || (s == WS_ACTIVE) == active[w];
}

/*
 * The mean over the selected workloads of set s of the cut of m by config against base (in
 * sweep k at axis), as the paper averages "% saved cycles": the arithmetic mean of the
 * workloads' percentages. *n: how many had both points.
 */
static double mean_cut(const struct hdata *d, const bool *sel, enum wset s, int k, const char *base,
		       const char *config, long long axis, enum hm m, unsigned *n)
{
	double sum = 0;

	*n = 0;
	for (int w = 0; w < NWL; w++) {
		double c;

		if (!sel[w] || !in_set(s, w))
			continue;
		c = cut(find(d, k, w, base, axis), find(d, k, w, config, axis), m);
		if (isnan(c))
			continue;
		sum += c;
		(*n)++;
	}
	return *n ? sum / *n : NAN;
}

static unsigned nsel_in(const bool *sel, enum wset s)
{
	unsigned n = 0;

	for (int w = 0; w < NWL; w++)
		n += sel[w] && in_set(s, w);
	return n;
}

/* "12.3% (5 of 5)"; "-" when no workload had both points. */
static void pct_cell(FILE *f, double v, unsigned n, unsigned total)
{
	if (isnan(v))
		fputs("-", f);
	else
		fprintf(f, "%.1f%%", v);
	if (n < total)
		fprintf(f, " (%u of %u)", n, total);
}

/* ---- summary.md ------------------------------------------------------------------------------ */

/* One claim row: ours is the mean cut of m by config against the baseline over set s. */
static void claim_cut(FILE *f, const struct hdata *d, const bool *sel, const char *id,
		      const char *what, const char *paper, enum wset s, const char *config,
		      enum hm m)
{
	unsigned n;
	double v = mean_cut(d, sel, s, SW_VARIANTS, "baseline", config, 0, m, &n);

	fprintf(f, "| %s | %s | %s | ", id, what, paper);
	pct_cell(f, v, n, nsel_in(sel, s));
	fprintf(f, " | %s |\n", wset_name[s]);
}

/* Workload w's owner+sharers point when it reports the states its requests found. */
static const struct hpt *found(const struct hdata *d, const bool *sel, int w)
{
	const struct hpt *p = sel[w] ? find(d, SW_VARIANTS, w, "owner+sharers", 0) : NULL;

	return p && !isnan(p->v[M_FOUND_I]) ? p : NULL;
}

static double found_all(const struct hpt *p)
{
	return p->v[M_FOUND_I] + p->v[M_FOUND_S] + p->v[M_FOUND_O];
}

static void write_claims(FILE *f, const struct hdata *d, const bool *sel)
{
	unsigned n, n2, little = 0, counted = 0, better = 0, worse = 0, same = 0;
	double a, b, fi = 0, ft = 0;

	fputs("## The paper's claims beside ours\n\n"
	      "Cuts are against the stateless baseline, (baseline - variant) / baseline, averaged "
	      "over the workloads as the paper averages its \"% saved simulated cycles\"; "
	      "probes are every probe the directory sent (downgrades, invalidations, "
	      "back-invalidations); DRAM accesses are the directory's reads and writes of every "
	      "cause. Positive is better.\n\n"
	      "| claim | what | paper | ours | workloads |\n"
	      "|---|---|---|---|---|\n",
	      f);
	claim_cut(f, d, sel, "V1", "owner + sharer tracking: cycles saved", "14.4% (its five)",
		  WS_ACTIVE, "owner+sharers", M_CYCLES);
	claim_cut(f, d, sel, "V1", "owner + sharer tracking: cycles saved", "-", WS_ALL,
		  "owner+sharers", M_CYCLES);
	claim_cut(f, d, sel, "V2", "owner + sharer tracking: directory probes cut",
		  "80.3% (its five; abstract 80.8%)", WS_ACTIVE, "owner+sharers", M_PROBES);
	claim_cut(f, d, sel, "V2", "owner + sharer tracking: directory probes cut", "-", WS_ALL,
		  "owner+sharers", M_PROBES);
	/* V3: what the sharer list adds over owner tracking, per workload of the five */
	for (int w = 0; w < NWL; w++) {
		const struct hpt *pb = find(d, SW_VARIANTS, w, "baseline", 0);
		double co, cs;

		if (!sel[w] || !active[w])
			continue;
		co = cut(pb, find(d, SW_VARIANTS, w, "owner", 0), M_PROBES);
		cs = cut(pb, find(d, SW_VARIANTS, w, "owner+sharers", 0), M_PROBES);
		if (isnan(co) || isnan(cs))
			continue;
		counted++;
		little += cs - co < 10;
	}
	a = mean_cut(d, sel, WS_ACTIVE, SW_VARIANTS, "baseline", "owner", 0, M_PROBES, &n);
	b = mean_cut(d, sel, WS_ACTIVE, SW_VARIANTS, "baseline", "owner+sharers", 0, M_PROBES, &n2);
	fputs("| V3 | the sharer list over owner tracking alone: probes cut | little, in 4 of 5 | "
	      "owner ",
	      f);
	pct_cell(f, a, n, nsel_in(sel, WS_ACTIVE));
	fputs(", owner+sharers ", f);
	pct_cell(f, b, n2, nsel_in(sel, WS_ACTIVE));
	fprintf(f, "; under 10 points more in %u of %u | coherence-active five |\n", little,
		counted);
	a = mean_cut(d, sel, WS_ACTIVE, SW_VARIANTS, "baseline", "owner", 0, M_CYCLES, &n);
	b = mean_cut(d, sel, WS_ACTIVE, SW_VARIANTS, "baseline", "owner+sharers", 0, M_CYCLES, &n2);
	fputs("| V3 | the sharer list over owner tracking alone: cycles saved | - | owner ", f);
	pct_cell(f, a, n, nsel_in(sel, WS_ACTIVE));
	fputs(", owner+sharers ", f);
	pct_cell(f, b, n2, nsel_in(sel, WS_ACTIVE));
	fputs(" | coherence-active five |\n", f);
	claim_cut(f, d, sel, "V4", "B (noWBcleanVic): directory -> DRAM accesses cut",
		  "50.4% (B or C)", WS_ALL, "B", M_DRAM);
	claim_cut(f, d, sel, "V4", "C (llcWB + useL3OnWT): directory -> DRAM accesses cut",
		  "50.4% (B or C)", WS_ALL, "C", M_DRAM);
	claim_cut(f, d, sel, "V5", "A+B+C without tracking: cycles saved", "1.68%", WS_ALL, "A+B+C",
		  M_CYCLES);
	claim_cut(f, d, sel, "V6", "A (early response): cycles saved", "not significant", WS_ALL,
		  "A", M_CYCLES);
	claim_cut(f, d, sel, "V7", "data-parallel workloads, owner + sharers: cycles saved",
		  "little", WS_PARALLEL, "owner+sharers", M_CYCLES);
	claim_cut(f, d, sel, "V7", "data-parallel workloads, A+B+C: cycles saved", "little",
		  WS_PARALLEL, "A+B+C", M_CYCLES);
	/* V8: C beside useL3OnWT alone (C cannot run without it here) */
	a = mean_cut(d, sel, WS_ALL, SW_VARIANTS, "useL3OnWT", "C", 0, M_DRAM, &n);
	fputs("| V8 | C (llcWB + useL3OnWT) against useL3OnWT alone: DRAM accesses cut | ~0 "
	      "(llcWB+useL3OnWT against llcWB) | ",
	      f);
	pct_cell(f, a, n, nsel_in(sel, WS_ALL));
	fputs(" | all ten |\n", f);
	/* V9: B.1 against B, per workload */
	for (int w = 0; w < NWL; w++) {
		double c;

		if (!sel[w])
			continue;
		c = cut(find(d, SW_VARIANTS, w, "B", 0), find(d, SW_VARIANTS, w, "B.1", 0),
			M_CYCLES);
		if (isnan(c))
			continue;
		better += c > 0.05;
		worse += c < -0.05;
		same += fabs(c) <= 0.05;
	}
	fprintf(f,
		"| V9 | B.1 (no clean victims in the LLC) against B: cycles | mixed sign | faster "
		"in %u, slower in %u, within 0.05%% in %u | all ten |\n",
		better, worse, same);
	/* V10: where tracked requests found their line */
	for (int w = 0; w < NWL; w++) {
		const struct hpt *p = found(d, sel, w);

		if (p) {
			fi += p->v[M_FOUND_I];
			ft += found_all(p);
		}
	}
	fputs("| V10 | the largest gain: no probes for misses in I | qualitative | ", f);
	if (ft > 0)
		fprintf(f,
			"%.1f%% of the tracked directory's requests found their line in I "
			"(owner+sharers, summed)",
			100 * fi / ft);
	else
		fputs("-", f);
	fputs(" | all ten |\n", f);
	claim_cut(f, d, sel, "V11", "C: directory -> DRAM accesses cut", "large", WS_ALL, "C",
		  M_DRAM);
	claim_cut(f, d, sel, "V11", "C: cycles saved", "minor", WS_ALL, "C", M_CYCLES);
	fputs("\n", f);
}

/* A table of the cut of m by every configuration against the baseline, per workload, with
 * the means over the three sets. */
static void write_cut_table(FILE *f, const struct hdata *d, const bool *sel, const char *title,
			    enum hm m)
{
	fprintf(f, "## %s (%%, against the baseline)\n\n| workload |", title);
	for (int c = 1; c < NCONF; c++)
		fprintf(f, " %s |", conf[c]);
	fputs("\n|---|", f);
	for (int c = 1; c < NCONF; c++)
		fputs("---|", f);
	fputs("\n", f);
	for (int w = 0; w < NWL; w++) {
		const struct hpt *pb = find(d, SW_VARIANTS, w, "baseline", 0);

		if (!sel[w])
			continue;
		fprintf(f, "| %s |", lbl[w]);
		for (int c = 1; c < NCONF; c++) {
			double v = cut(pb, find(d, SW_VARIANTS, w, conf[c], 0), m);

			if (isnan(v))
				fputs(" - |", f);
			else
				fprintf(f, " %.1f |", v);
		}
		fputs("\n", f);
	}
	for (int s = 0; s < 3; s++) {
		if (!nsel_in(sel, s))
			continue;
		fprintf(f, "| **mean, %s** |", wset_name[s]);
		for (int c = 1; c < NCONF; c++) {
			unsigned n;
			double v = mean_cut(d, sel, s, SW_VARIANTS, "baseline", conf[c], 0, m, &n);

			if (isnan(v))
				fputs(" - |", f);
			else
				fprintf(f, " **%.1f** |", v);
		}
		fputs("\n", f);
	}
	fputs("\n", f);
}

/* Fig. 7 by cause: the directory's probes summed over the selected workloads of set s. */
static void write_causes(FILE *f, const struct hdata *d, const bool *sel)
{
	static const int shown[] = {C_BASE, C_OWNER, C_SHARERS, C_ALL};

	fputs("## Probes sent by the directory, by cause (Fig. 7)\n\n"
	      "Summed over the workloads of each set; a cause is the request type the probes "
	      "were sent for, backinv the tracked directory's own evictions.\n\n"
	      "| workloads | configuration |",
	      f);
	for (int c = 0; c < NCAUSE; c++)
		fprintf(f, " %s |", cause[c]);
	fputs(" total |\n|---|---|", f);
	for (int c = 0; c <= NCAUSE; c++)
		fputs("---|", f);
	fputs("\n", f);
	for (int s = WS_ACTIVE; s <= WS_PARALLEL; s++) {
		if (!nsel_in(sel, s))
			continue;
		for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
			double sum[NCAUSE] = {0}, tot = 0;

			for (int w = 0; w < NWL; w++) {
				const struct hpt *p =
				    sel[w] && in_set(s, w)
					? find(d, SW_VARIANTS, w, conf[shown[k]], 0)
					: NULL;

				if (!p || isnan(p->v[M_PROBES]))
					continue;
				for (int c = 0; c < NCAUSE; c++)
					sum[c] += isnan(p->v[M_CAUSE + c]) ? 0 : p->v[M_CAUSE + c];
				tot += p->v[M_PROBES];
			}
			fprintf(f, "| %s | %s |", wset_name[s], conf[shown[k]]);
			for (int c = 0; c < NCAUSE; c++)
				fprintf(f, " %.0f |", sum[c]);
			fprintf(f, " %.0f |\n", tot);
		}
	}
	fputs("\n", f);
}

/* V10 per workload: the states the tracked directory's requests found. */
static void write_found(FILE *f, const struct hdata *d, const bool *sel)
{
	fputs("## What the tracked directory's requests found (V10)\n\n"
	      "owner+sharers: requests that found their line in I (no probe), S (no probe for a "
	      "read) and O (one probe to the owner for a read), in percent of all.\n\n"
	      "| workload | I | S | O | requests |\n|---|---|---|---|---|\n",
	      f);
	for (int w = 0; w < NWL; w++) {
		const struct hpt *p = found(d, sel, w);
		double t = p ? found_all(p) : 0;

		if (t <= 0)
			continue;
		fprintf(f, "| %s | %.1f | %.1f | %.1f | %.0f |\n", lbl[w],
			100 * p->v[M_FOUND_I] / t, 100 * p->v[M_FOUND_S] / t,
			100 * p->v[M_FOUND_O] / t, t);
	}
	fputs("\n", f);
}

/* The mean cut of m by config against the baseline in sweep k at axis, as "five / ten". */
static void five_ten(FILE *f, const struct hdata *d, const bool *sel, int k, const char *base,
		     const char *config, long long axis, enum hm m)
{
	unsigned n;
	double a = mean_cut(d, sel, WS_ACTIVE, k, base, config, axis, m, &n);
	double b = mean_cut(d, sel, WS_ALL, k, base, config, axis, m, &n);

	fputs(" ", f);
	if (isnan(a))
		fputs("-", f);
	else
		fprintf(f, "%.1f", a);
	fputs(" / ", f);
	if (isnan(b))
		fputs("-", f);
	else
		fprintf(f, "%.1f", b);
	fputs(" |", f);
}

static double total_of(const struct hdata *d, const bool *sel, int k, const char *config,
		       long long axis, enum hm m)
{
	double t = 0;

	for (int w = 0; w < NWL; w++) {
		const struct hpt *p = sel[w] ? find(d, k, w, config, axis) : NULL;

		if (p && !isnan(p->v[m]))
			t += p->v[m];
	}
	return t;
}

static void write_sensitivity(FILE *f, const struct hdata *d, const bool *sel)
{
	static const char *const entries[] = {"4096", "16384", "65536", "262144"};
	static const long long cores[] = {2, 4, 8, 16}, llc[] = {1024, 4096, 16384};

	fputs("## Sensitivity the paper did not report\n\n"
	      "Means of the cuts against the baseline of the same sweep point (same CorePairs, "
	      "same LLC), over the coherence-active five / all ten, in %.\n\n",
	      f);
	if (d->r.loaded[SW_DIRSIZE]) {
		fputs("### Directory entries (owner+sharers; dirsize)\n\n"
		      "| entries | cycles saved | probes cut | DRAM accesses cut | directory "
		      "evictions (sum) |\n|---|---|---|---|---|\n",
		      f);
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++) {
			fprintf(f, "| %s |", entries[e]);
			five_ten(f, d, sel, SW_DIRSIZE, "baseline", entries[e], 0, M_CYCLES);
			five_ten(f, d, sel, SW_DIRSIZE, "baseline", entries[e], 0, M_PROBES);
			five_ten(f, d, sel, SW_DIRSIZE, "baseline", entries[e], 0, M_DRAM);
			fprintf(f, " %.0f |\n",
				total_of(d, sel, SW_DIRSIZE, entries[e], 0, M_EVICT));
		}
		fputs("\n", f);
	}
	if (d->r.loaded[SW_COREPAIRS]) {
		fputs("### CorePairs (owner+sharers against the baseline; corepairs)\n\n"
		      "| CorePairs (cores) | cycles saved | probes cut | baseline probes (sum) | "
		      "owner+sharers probes (sum) |\n|---|---|---|---|---|\n",
		      f);
		for (size_t c = 0; c < sizeof(cores) / sizeof(cores[0]); c++) {
			fprintf(f, "| %lld (%lld) |", cores[c] / 2, cores[c]);
			five_ten(f, d, sel, SW_COREPAIRS, "baseline", "owner+sharers", cores[c],
				 M_CYCLES);
			five_ten(f, d, sel, SW_COREPAIRS, "baseline", "owner+sharers", cores[c],
				 M_PROBES);
			fprintf(
			    f, " %.0f | %.0f |\n",
			    total_of(d, sel, SW_COREPAIRS, "baseline", cores[c], M_PROBES),
			    total_of(d, sel, SW_COREPAIRS, "owner+sharers", cores[c], M_PROBES));
		}
		fputs("\n", f);
	}
	if (d->r.loaded[SW_LLC]) {
		fputs("### LLC size (C against the baseline; llc)\n\n"
		      "| LLC | cycles saved | DRAM accesses cut | baseline LLC hits (sum) | "
		      "baseline DRAM accesses (sum) |\n|---|---|---|---|---|\n",
		      f);
		for (size_t l = 0; l < sizeof(llc) / sizeof(llc[0]); l++) {
			fprintf(f, "| %lld MB |", llc[l] / 1024);
			five_ten(f, d, sel, SW_LLC, "baseline", "C", llc[l], M_CYCLES);
			five_ten(f, d, sel, SW_LLC, "baseline", "C", llc[l], M_DRAM);
			fprintf(f, " %.0f | %.0f |\n",
				total_of(d, sel, SW_LLC, "baseline", llc[l], M_LLC_HITS),
				total_of(d, sel, SW_LLC, "baseline", llc[l], M_DRAM));
		}
		fputs("\n", f);
	}
}

/* ---- the figures ----------------------------------------------------------------------------- */

static const struct hfig {
	const char *name, *metric, *title, *where;
	int sweep;
} figs[] = {
    {"fig4-performance", "performance", "Protocol enhancements: performance (Fig. 4)",
     "config=baseline,A,B,B.1,useL3OnWT,C,A+B+C", SW_VARIANTS},
    {"fig5-dram-accesses", "apu.dram_accesses", "Directory to DRAM reads and writes (Fig. 5)",
     "config=baseline,B,B.1,useL3OnWT,C,A+B+C", SW_VARIANTS},
    {"fig6-tracking-performance", "performance", "State tracking: performance (Fig. 6)",
     "config=baseline,owner,owner+sharers,all", SW_VARIANTS},
    {"fig7-probes", "apu.probes", "Probes sent by the directory (Fig. 7)",
     "config=baseline,owner,owner+sharers,all", SW_VARIANTS},
    {"dirsize-performance", "performance", "Directory entries: performance (owner+sharers)", NULL,
     SW_DIRSIZE},
};

static int plot_fig(const struct hfig *fg, const char *dir, const struct hdata *d)
{
	char *file = xasprintf("%s/%s/results.csv", dir, sweeps[fg->sweep].name);
	char *prefix = xasprintf("%s/figs/%s", dir, fg->name);
	const char *files[1] = {file};
	int status;

	if (!d->r.loaded[fg->sweep]) {
		status = 0;
		goto out;
	}
	if (!file || !prefix) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	status = study_plot(&(struct study_plot){
	    .files = files,
	    .nfiles = 1,
	    .prefix = prefix,
	    .metric = fg->metric,
	    .title = fg->title,
	    .baseline = "baseline",
	    .group_by = "config",
	    .where = fg->where,
	});
out:
	free(prefix);
	free(file);
	return status;
}

/* ---- the report ------------------------------------------------------------------------------ */

static int summary_text(const struct study_opts *o, const void *data, const void *other_data,
			char **text, size_t *nbad)
{
	const struct hdata *d = data, *other = other_data;
	size_t len;
	FILE *f = open_memstream(text, &len);
	const bool *sel = o->sel;

	if (!f)
		return -1;
	fputs("# Enhanced heterogeneous system coherence: `cohscope study hsc`\n\n"
	      "Seed 002's evaluation (§VI) on the APU of configs/apu-2200g.cfg: the ten CHAI "
	      "workloads under the stateless baseline and each enhancement as its own switch "
	      "(A early response, B no clean-victim write to memory, B.1 no clean victims in the "
	      "LLC, useL3OnWT, C the write-back LLC with useL3OnWT, A+B+C, owner tracking, "
	      "owner + sharer tracking, all together), and the directory size, CorePair count "
	      "and LLC size the paper did not vary (configs/studies/hsc*.sweep, docs/study.md, "
	      "docs/validation/hsc.md). The paper averages its tracking results over five "
	      "benchmarks it does not name; they are taken as the coherence-active five (cedd sc "
	      "tq trns rsct), the complement of the five it calls highly data-parallel (bs pad "
	      "hsti hsto rscd).\n\n",
	      f);
	*nbad = study_write_run(f, o, "configs/apu-2200g.cfg", &d->r, d->p, d->n, sizeof(*d->p));
	if (d->r.loaded[SW_VARIANTS]) {
		write_claims(f, d, sel);
		write_cut_table(f, d, sel, "Cycles saved (Figs. 4, 6)", M_CYCLES);
		write_cut_table(f, d, sel, "Directory probes cut (Fig. 7)", M_PROBES);
		write_cut_table(f, d, sel, "Directory -> DRAM reads and writes cut (Fig. 5)",
				M_DRAM);
		/* the seed takes DRAM accesses for energy; the model's energy and the networks'
		 * bytes beside them (docs/energy.md) */
		write_cut_table(f, d, sel, "Energy cut (docs/energy.md, 22 nm)", M_ENERGY);
		write_cut_table(f, d, sel, "NoC traffic cut (every kind of message)", M_TRAFFIC);
		write_causes(f, d, sel);
		write_found(f, d, sel);
	}
	write_sensitivity(f, d, sel);
	study_write_points(f, &study_hsc, d->p, d->n, sizeof(*d->p), other ? &other->r : NULL,
			   other ? other->p : NULL, other ? other->n : 0);
	fputs("## Figures (figs/)\n\n"
	      "Each is NAME.dat (the normalized table), NAME.gp (a gnuplot script) and, with "
	      "gnuplot, NAME.svg and NAME.png (docs/plots.md); bars are normalized to the "
	      "baseline.\n\n",
	      f);
	for (size_t k = 0; k < sizeof(figs) / sizeof(figs[0]); k++)
		fprintf(f, "- `figs/%s`: %s%s\n", figs[k].name, figs[k].title,
			d->r.loaded[figs[k].sweep] ? "" : ": not drawn (its sweep did not run)");
	return fclose(f) ? -1 : 0;
}

static int hsc_fill(void *data, const char *dir, const bool *ran, bool full)
{
	struct hdata *d = data;
	void *points = NULL;
	int rc;

	d->dir = dir;
	d->stats = full;
	rc = study_read(&study_hsc, dir, ran, &d->r, &points, &d->n, sizeof(*d->p), hdata_add, d);
	d->p = points;
	return rc;
}

static size_t hsc_npoints(const void *d)
{
	return ((const struct hdata *)d)->n;
}

static int hsc_figure(const struct study_opts *o, const void *d, unsigned k)
{
	return plot_fig(&figs[k], o->output, d);
}

static const char *const hsc_varied[] = {
    "dir.early_response=", "dir.clean_victims=", "dir.tracking=",
    "dir.entries=",	   "llc.write_back=",	 "llc.use_on_wt=",
    "llc.size_kib=",	   "cpus.cores=",	 NULL};

const struct study_def study_hsc = {
    .name = "hsc",
    .title = "the HSC study",
    .output = "study-hsc",
    .bench = wl,
    .label = lbl,
    .nbench = NWL,
    .sweeps = sweeps,
    .nsweeps = NSWEEP,
    .varied = hsc_varied,
    .data_size = sizeof(struct hdata),
    .fill = hsc_fill,
    .clear = hdata_free,
    .npoints = hsc_npoints,
    .nfigures = sizeof(figs) / sizeof(figs[0]),
    .figure = hsc_figure,
    .summary = summary_text,
};
