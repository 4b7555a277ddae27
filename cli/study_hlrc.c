/*
 * cli/study_hlrc.c - `cohscope study hlrc`: the evaluation of lazy release consistency for
 * GPUs (seed 004 §V; /work/shared/reference/seed-004-hlrc.md §5-6; docs/study.md,
 * docs/hlrc.md).
 *
 * Four sweep files of configs/studies/ run through the shared runner (cli/study.c): SSSP,
 * color and PageRank, each on its three inputs of the seed's Table 5, under the six scenarios
 * of Fig. 4, the replacement variants of Fig. 9 and hLRC-scoped (Fig. 10) on the 128-CU
 * system, and the baseline and RSP with 8 to 64 CUs (Fig. 1, claim V8). Each point's
 * statistics (points/ID.json) give the actions by cause (Figs. 5-6), the latency sums (Figs.
 * 7-8) and Table 6's synchronization classes, summed over the CUs and banks. The figures are
 * drawn by cmd_plot from two tables the study writes into DIR/figs (hlrc.csv, rsp-scale.csv);
 * summary.md sets the seed's claims V1-V23 beside ours. It holds simulated figures only: the
 * same results give the same bytes.
 */
#include "cli/cli.h"
#include "cli/study_impl.h"
#include "tlm/noc/noc.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define xasprintf study_asprintf

/* ---- the study: workloads, inputs, sweeps, configurations ------------------------------------ */

#define NWL 3
static const char *const wl[NWL] = {"sssp", "color", "pagerank"};

/* The seed's Table 5: three inputs per workload (generated shapes, docs/graphs.md); an input
 * is named as the seed names it. A point without a workload.graph axis runs its workload's
 * first input (workload.graph = auto). */
#define NIN 9
static const struct input {
	int wl;
	const char *graph, *label;
} inputs[NIN] = {
    {0, "usa-road-d.bay", "SSSP-1"}, {0, "usa-road-d.col", "SSSP-2"},
    {0, "c-68", "SSSP-3"},	     {1, "ecology1", "color-1"},
    {1, "coauthorsdblp", "color-2"}, {1, "dictionary28", "color-3"},
    {2, "usa-road-d.bay", "PR-1"},   {2, "c-68", "PR-2"},
    {2, "opf_10000", "PR-3"},
};

enum { SW_SSSP, SW_COLOR, SW_PAGERANK, SW_RSPSCALE, NSWEEP };

#define CONFS                                                                               \
	"x 3 inputs x baseline, scope-only, steal-only, RSP, DeNovo-B, hLRC, hLRC-noprio, " \
	"DeNovo-Rprio, hLRC-scoped"
static const struct study_sweep sweeps[NSWEEP] = {
    {"sssp", "hlrc-sssp.sweep", CONFS},
    {"color", "hlrc-color.sweep", CONFS},
    {"pagerank", "hlrc-pagerank.sweep", CONFS},
    {"rsp-scale", "hlrc-rsp-scale.sweep",
     "(first input) x baseline, RSP with gpu.sms = 8, 16, 32, 64"},
};

/* The configurations of the sweeps, in their order: Fig. 4's six, then Figs. 9 and 10's. */
enum {
	C_BASE,
	C_SCOPE,
	C_STEAL,
	C_RSP,
	C_DENOVO,
	C_HLRC,
	C_HLRC_NOPRIO,
	C_DENOVO_RPRIO,
	C_HLRC_SCOPED,
	NCONF
};
static const char *const conf[NCONF] = {"baseline",    "scope-only",   "steal-only",
					"RSP",	       "DeNovo-B",     "hLRC",
					"hLRC-noprio", "DeNovo-Rprio", "hLRC-scoped"};

#define FULL_CUS 128 /* configs/hlrc-128cu.cfg; gpu.sms is not --set-able in the study */
static const long long scale_cus[] = {8, 16, 32, 64, FULL_CUS};
#define NSCALE (sizeof(scale_cus) / sizeof(scale_cus[0]))

/* What a point gives: its cycles, and from its statistics (summed over the CUs' L1s and the
 * L2 banks) the seed's action causes, latency sums and synchronization classes. */
enum hm {
	M_CYCLES,
	M_INV_KSTART, /* Fig. 5: invalidations by cause */
	M_INV_ACQ,
	M_INV_REMOTE,
	M_INV_ATOMIC,
	M_FL_KEND, /* Fig. 6: flushes (and StRegs) by cause */
	M_FL_REL,
	M_FL_REMOTE,
	M_FL_ATOMIC,
	M_STREG,
	M_LAT_LOAD, /* Fig. 7: data accesses' latency sums */
	M_LAT_STORE,
	M_LAT_ACQ, /* Fig. 8: synchronization's latency sums */
	M_LAT_REL,
	M_LAT_ALD,
	M_LAT_AST,
	M_LAT_RMW,
	M_N_LOAD, /* how many data loads and stores (the seed: about equal in every scenario) */
	M_N_STORE,
	M_REG_L1HIT, /* Table 6 */
	M_REG_L2,
	M_REG_REMOTE,
	M_SYNC_EVICTS,
	M_REMOTE_OPS, /* RSP: remote-scope operations at the L2 */
	M_PEAK_LINES, /* registration: the banks' most lines registered at once, summed */
	M_BROADCASTS, /* RSP: the banks' broadcasts (a remote RMW makes two) */
	M_TR_REQUEST, /* the result's NoC bytes by kind (traffic.noc.KIND.bytes) */
	M_TR_DATA,
	M_TR_PROBE,
	M_TR_COHERENCE,
	M_TR_WRITEBACK,
	M_EN_SM, /* the result's energy by component (dynamic + static), uJ */
	M_EN_L1,
	M_EN_L2,
	M_EN_NOC,
	M_EN_DRAM,
	NM
};

/* The result's figures behind M_TR_* (the kinds the networks declare, noc.h) and M_EN_* (the
 * GPU's components of the energy report), in that order. */
static const char *const energy_comps[] = {"sm", "l1", "l2", "noc", "dram"};
#define N_ENERGY_COMPS (sizeof(energy_comps) / sizeof(energy_comps[0]))
_Static_assert(M_TR_WRITEBACK - M_TR_REQUEST + 1 == NOC_TRAFFIC_KINDS &&
		   M_EN_DRAM - M_EN_SM + 1 == N_ENERGY_COMPS,
	       "one metric per kind of traffic and per component shown");

/* A statistic of one CU's L1 or SM ("gpu.smN.NAME") or of one L2 bank ("gpu.l2.bankN.NAME"),
 * summed into metric m. */
static const struct stat_sum {
	bool bank;
	const char *name;
	enum hm m;
} stat_sums[] = {
    {false, "l1.inv_kernel_start", M_INV_KSTART},
    {false, "l1.inv_acquire", M_INV_ACQ},
    {false, "l1.remote_inv", M_INV_REMOTE},
    {false, "l1.inv_atomic_in", M_INV_ATOMIC},
    {false, "l1.flush_kernel_end", M_FL_KEND},
    {false, "l1.flush_release", M_FL_REL},
    {false, "l1.remote_flush", M_FL_REMOTE},
    {false, "l1.flush_atomic_out", M_FL_ATOMIC},
    {false, "l1.reg.stregs", M_STREG},
    {false, "lat.load_cycles", M_LAT_LOAD},
    {false, "lat.store_cycles", M_LAT_STORE},
    {false, "lat.acquire_cycles", M_LAT_ACQ},
    {false, "lat.release_cycles", M_LAT_REL},
    {false, "lat.atomic_load_cycles", M_LAT_ALD},
    {false, "lat.atomic_store_cycles", M_LAT_AST},
    {false, "lat.atomic_rmw_cycles", M_LAT_RMW},
    {false, "lat.load", M_N_LOAD},
    {false, "lat.store", M_N_STORE},
    {false, "l1.reg.l1_hits", M_REG_L1HIT},
    {false, "l1.reg.sync_evicts", M_SYNC_EVICTS},
    {true, "reg.getr_l2", M_REG_L2},
    {true, "reg.getr_remote", M_REG_REMOTE},
    {true, "remote_ops", M_REMOTE_OPS},
    {true, "reg.peak_lines", M_PEAK_LINES},
    {true, "broadcasts", M_BROADCASTS},
};

#define LINE_BYTES 64 /* configs/hlrc-128cu.cfg's l1 and l2 line */

/* The seed's Table 6 (hLRC's synchronization accesses, %): L1, L2/memory, remote L1, evicts. */
static const double table6[NIN][4] = {
    {95.7, 0.8, 3.6, 0},  {97.8, 0.3, 1.9, 0},	{76.0, 4.6, 19.4, 0.67},
    {92.3, 0.32, 7.4, 0}, {85.3, 1.0, 13.7, 0}, {74.3, 5.6, 20.0, 0},
    {96.6, 1.0, 2.4, 0},  {80.7, 4.3, 15.0, 0}, {82.4, 6.4, 11.2, 0},
};

/* ---- the results ----------------------------------------------------------------------------- */

struct lpt {
	struct study_pt c;
	int in, conf;  /* indices in inputs[] and conf[] */
	long long cus; /* gpu.sms */
	bool stats;    /* v[] beyond M_CYCLES was read */
	double v[NM];  /* NAN: unknown */
};

struct ldata {
	struct study_results r;
	struct lpt *p;
	size_t n;
	const char *dir; /* while loading */
	bool full;	 /* read each ok point's statistics */
};

static void ldata_free(void *data)
{
	struct ldata *d = data;

	study_results_free(&d->r);
	free(d->p);
}

/* The sum's index for a statistic's name, or -1: "gpu.smN.REST" or "gpu.l2.bankN.REST". */
static int stat_index(const char *key)
{
	bool bank;
	const char *rest;

	if (strncmp(key, "gpu.sm", 6) == 0) {
		bank = false;
		rest = key + 6;
	} else if (strncmp(key, "gpu.l2.bank", 11) == 0) {
		bank = true;
		rest = key + 11;
	} else {
		return -1;
	}
	if (*rest < '0' || *rest > '9')
		return -1;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	if (*rest++ != '.')
		return -1;
	for (size_t i = 0; i < sizeof(stat_sums) / sizeof(stat_sums[0]); i++)
		if (stat_sums[i].bank == bank && strcmp(stat_sums[i].name, rest) == 0)
			return (int)i;
	return -1;
}

/* The sums of an ok point's statistics, from DIR/SWEEP/points/ID.json. A statistic no
 * component has (the protocol has no such action) sums to 0. */
static void point_stats(const char *dir, struct lpt *p)
{
	json_t *root = study_point_json(&study_hlrc, dir, &p->c);
	json_t *st = json_object_get(root, "stats"), *v;
	const char *key;

	if (json_is_object(st)) {
		for (int m = 1; m < M_TR_REQUEST; m++) /* the statistics' sums */
			p->v[m] = 0;
		json_object_foreach(st, key, v)
		{
			int i = json_is_number(v) ? stat_index(key) : -1;

			if (i >= 0)
				p->v[stat_sums[i].m] += json_number_value(v);
		}
		p->stats = true;
	}
	json_decref(root);
}

static int input_of(int w, const char *graph)
{
	for (int i = 0; i < NIN; i++)
		if (inputs[i].wl == w &&
		    (!graph || strcmp(graph, "auto") == 0 || strcmp(graph, inputs[i].graph) == 0))
			return i;
	return -1;
}

/* A point of the study (study_read's add): kept with its input, configuration and CU count
 * and, when it ran, its cycles and (d->full) its statistics' sums. */
static int ldata_add(void *ctx, void *slot)
{
	struct ldata *d = ctx;
	struct lpt *p = slot;
	json_t *g = json_object_get(p->c.axes, "workload.graph");

	for (int m = 0; m < NM; m++)
		p->v[m] = NAN;
	if (!p->c.config)
		return 0;
	p->conf = -1;
	for (int c = 0; c < NCONF; c++)
		if (strcmp(conf[c], p->c.config) == 0)
			p->conf = c;
	p->in = input_of(p->c.bench, json_string_value(g));
	if (p->conf < 0 || p->in < 0)
		return 0;
	p->cus = FULL_CUS;
	if (p->c.sweep == SW_RSPSCALE &&
	    !study_axis_int(json_object_get(p->c.axes, "gpu.sms"), &p->cus))
		return 0;
	if (strcmp(p->c.status, "ok") == 0) {
		double c = json_number_value(json_object_get(p->c.res, "cycles"));

		json_t *tr = json_object_get(json_object_get(p->c.res, "traffic"), "noc");
		json_t *en = json_object_get(p->c.res, "energy");

		p->v[M_CYCLES] = c > 0 ? c : NAN;
		for (unsigned k = 0; k < NOC_TRAFFIC_KINDS && tr; k++)
			p->v[M_TR_REQUEST + k] = json_number_value(json_object_get(
			    json_object_get(tr, noc_traffic_kind_names[k]), "bytes"));
		for (unsigned k = 0; k < N_ENERGY_COMPS && en; k++) {
			json_t *e = json_object_get(en, energy_comps[k]);

			p->v[M_EN_SM + k] =
			    1e6 * (json_number_value(json_object_get(e, "dynamic_j")) +
				   json_number_value(json_object_get(e, "static_j")));
		}
		if (d->full && p->c.id)
			point_stats(d->dir, p);
	}
	return 1;
}

static const struct lpt *find(const struct ldata *d, int in, int c, long long cus)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->p[i].in == in && d->p[i].conf == c && d->p[i].cus == cus)
			return &d->p[i];
	return NULL;
}

/* ---- the arithmetic -------------------------------------------------------------------------- */

static double val(const struct lpt *p, enum hm m)
{
	return p ? p->v[m] : NAN;
}

static double sum_of(const struct lpt *p, const enum hm *ms, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += val(p, ms[i]);
	return s;
}

static const enum hm cycles_only[] = {M_CYCLES};
static const enum hm traffic_ms[] = {M_TR_REQUEST, M_TR_DATA, M_TR_PROBE, M_TR_COHERENCE,
				     M_TR_WRITEBACK};
static const enum hm energy_ms[] = {M_EN_SM, M_EN_L1, M_EN_L2, M_EN_NOC, M_EN_DRAM};
static const enum hm inv_causes[] = {M_INV_KSTART, M_INV_ACQ, M_INV_REMOTE, M_INV_ATOMIC};
static const enum hm flush_causes[] = {M_FL_KEND, M_FL_REL, M_FL_REMOTE, M_FL_ATOMIC, M_STREG};
static const enum hm lat_data[] = {M_LAT_LOAD, M_LAT_STORE};
static const enum hm lat_sync[] = {M_LAT_ACQ, M_LAT_REL, M_LAT_ALD, M_LAT_AST, M_LAT_RMW};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The speedup of configuration c over the baseline on input in with cus CUs: baseline cycles
 * over c's; NAN when either is unknown. */
static double speedup(const struct ldata *d, int in, int c, long long cus)
{
	double b = val(find(d, in, C_BASE, cus), M_CYCLES), v = val(find(d, in, c, cus), M_CYCLES);

	return isnan(b) || isnan(v) ? NAN : b / v;
}

static bool in_sel(const bool *sel, int in)
{
	return sel[inputs[in].wl];
}

static unsigned nsel_inputs(const bool *sel)
{
	unsigned n = 0;

	for (int in = 0; in < NIN; in++)
		n += in_sel(sel, in);
	return n;
}

/* The geometric mean over the selected inputs (firsts: each workload's first only) of c's
 * speedup over `over` (the baseline, or another configuration); *n: the inputs with both
 * points. */
static double gmean_over(const struct ldata *d, const bool *sel, bool firsts, int over, int c,
			 long long cus, unsigned *n)
{
	double lsum = 0;

	*n = 0;
	for (int in = 0; in < NIN; in++) {
		double a = val(find(d, in, over, cus), M_CYCLES),
		       b = val(find(d, in, c, cus), M_CYCLES);

		if (!in_sel(sel, in) || (firsts && in != input_of(inputs[in].wl, NULL)) ||
		    isnan(a) || isnan(b))
			continue;
		lsum += log(a / b);
		(*n)++;
	}
	return *n ? exp(lsum / *n) : NAN;
}

/* Over every selected input. */
static double gmean_ratio(const struct ldata *d, const bool *sel, int over, int c, long long cus,
			  unsigned *n)
{
	return gmean_over(d, sel, false, over, c, cus, n);
}

/* "+12.3%" from a ratio; "-" when unknown; " (7 of 9)" when some inputs lack a point. */
static void ratio_cell(FILE *f, double r, unsigned n, unsigned total)
{
	if (isnan(r))
		fputs("-", f);
	else
		fprintf(f, "%+.1f%%", 100 * (r - 1));
	if (n < total)
		fprintf(f, " (%u of %u)", n, total);
}

/* ---- summary.md ------------------------------------------------------------------------------ */

static void claim_speedup(FILE *f, const struct ldata *d, const bool *sel, const char *id,
			  const char *what, const char *paper, int over, int c)
{
	unsigned n;
	double r = gmean_ratio(d, sel, over, c, FULL_CUS, &n);

	fprintf(f, "| %s | %s | %s | ", id, what, paper);
	ratio_cell(f, r, n, nsel_inputs(sel));
	fputs(" |\n", f);
}

/* The inputs of a claim (by label), those selected, as "SSSP-3 +1.2%, color-2 -3.4%": the
 * ratio of metric m (sums of ms) of configuration c to `over`'s, as a change in percent. */
static void inputs_change(FILE *f, const struct ldata *d, const bool *sel, const int *ins,
			  size_t nins, int over, int c, const enum hm *ms, size_t nms)
{
	bool any = false;

	for (size_t i = 0; i < nins; i++) {
		const struct lpt *a = find(d, ins[i], over, FULL_CUS),
				 *b = find(d, ins[i], c, FULL_CUS);
		double x = sum_of(a, ms, nms), y = sum_of(b, ms, nms);

		if (!in_sel(sel, ins[i]))
			continue;
		fprintf(f, "%s%s ", any ? ", " : "", inputs[ins[i]].label);
		if (isnan(x) || isnan(y) || x <= 0)
			fputs("-", f);
		else
			fprintf(f, "%+.0f%%", 100 * (y / x - 1));
		any = true;
	}
	if (!any)
		fputs("-", f);
}

/* Table 6's classes of one hLRC point, in % of its synchronization accesses (L1 hits, GetRs
 * answered by the L2, GetRs answered by a remote L1): false when unknown. */
static bool sync_classes(const struct lpt *p, double out[4])
{
	double t;

	if (!p || !p->stats)
		return false;
	t = p->v[M_REG_L1HIT] + p->v[M_REG_L2] + p->v[M_REG_REMOTE];
	if (t <= 0)
		return false;
	out[0] = 100 * p->v[M_REG_L1HIT] / t;
	out[1] = 100 * p->v[M_REG_L2] / t;
	out[2] = 100 * p->v[M_REG_REMOTE] / t;
	out[3] = 100 * p->v[M_SYNC_EVICTS] / t;
	return true;
}

/* A claim row's cell: the registered footprint of configuration c (the banks' peaks summed,
 * in 64-B lines) over the selected inputs, as "16 KB (color-1) - 2.1 MB (SSSP-2)". */
static void footprint(FILE *f, const struct ldata *d, const bool *sel, const char *row, int c)
{
	double lo = INFINITY, hi = -INFINITY;
	int ilo = -1, ihi = -1;

	fputs(row, f);
	for (int in = 0; in < NIN; in++) {
		const struct lpt *p = in_sel(sel, in) ? find(d, in, c, FULL_CUS) : NULL;
		double b;

		if (!p || !p->stats)
			continue;
		b = p->v[M_PEAK_LINES] * LINE_BYTES / 1024;
		if (b < lo) {
			lo = b;
			ilo = in;
		}
		if (b > hi) {
			hi = b;
			ihi = in;
		}
	}
	if (ilo < 0)
		fputs("- |\n", f);
	else if (lo == hi)
		fprintf(f, "%.0f KB on every input, the most lines registered at once |\n", lo);
	else
		fprintf(f, "%.0f KB (%s) to %.0f KB (%s), the most lines registered at once |\n",
			lo, inputs[ilo].label, hi, inputs[ihi].label);
}

static void write_claims(FILE *f, const struct ldata *d, const bool *sel)
{
	static const int steal_dominant[] = {2, 4, 7, 8}, pressure[] = {2, 3}, wb_reuse[] = {7, 8},
			 inval[] = {0, 1, 6}, scoped_worse[] = {0, 2, 4, 8};
	static const enum hm boundary[] = {M_INV_KSTART, M_FL_KEND}; /* V23 */
	static const enum hm rel_acq_store[] = {M_LAT_REL, M_LAT_ACQ, M_LAT_STORE},
			     rel[] = {M_LAT_REL}, load[] = {M_LAT_LOAD};
	unsigned n, n_ok = 0, n_cmp = 0, l1lo_n = 0;
	double worst = INFINITY, l1lo = INFINITY, l1hi = -INFINITY, rlo = INFINITY, rhi = -INFINITY,
	       evmax = 0, spread = 0, r;
	int worst_in = -1, evmax_in = -1;

	fputs("## The seed's claims beside ours\n\n"
	      "Speedups are baseline cycles over the configuration's, averaged over the inputs as "
	      "a geometric mean (the seed does not say which mean it takes), on the 128-CU system; "
	      "+29% is 1.29x. A count in brackets: the inputs that had both points.\n\n"
	      "| claim | what | seed | ours |\n|---|---|---|---|\n",
	      f);
	claim_speedup(f, d, sel, "V1", "hLRC over the baseline", "+29%", C_BASE, C_HLRC);
	claim_speedup(f, d, sel, "V2", "DeNovo-B over the baseline", "+21%", C_BASE, C_DENOVO);
	claim_speedup(f, d, sel, "V3", "hLRC over DeNovo-B", "+7%", C_DENOVO, C_HLRC);
	claim_speedup(f, d, sel, "V4", "steal-only over the baseline", "+16%", C_BASE, C_STEAL);
	claim_speedup(f, d, sel, "V5", "scope-only over the baseline", "+7%", C_BASE, C_SCOPE);
	claim_speedup(f, d, sel, "V6", "RSP over the baseline", "-4%", C_BASE, C_RSP);
	for (int in = 0; in < NIN; in++) {
		r = in_sel(sel, in) ? speedup(d, in, C_RSP, FULL_CUS) : NAN;
		if (!isnan(r) && r < worst) {
			worst = r;
			worst_in = in;
		}
	}
	fputs("| V7 | RSP's worst input against the baseline | -33% (abstract: up to -30%) | ", f);
	if (worst_in >= 0)
		fprintf(f, "%+.1f%% (%s)", 100 * (worst - 1), inputs[worst_in].label);
	else
		fputs("-", f);
	fputs(" |\n| V8 | RSP over the baseline by CU count (each workload's first input) | a gain "
	      "at 8 CUs, a loss at 128 | ",
	      f);
	for (size_t s = 0; s < NSCALE; s++) {
		unsigned nw = 0;

		for (int w = 0; w < NWL; w++)
			nw += sel[w];
		r = gmean_over(d, sel, true, C_BASE, C_RSP, scale_cus[s], &n);
		fprintf(f, "%s%lld CUs ", s ? ", " : "", scale_cus[s]);
		ratio_cell(f, r, n, nw);
	}
	fputs(" |\n", f);
	/* V9: the broadcasts' fan-out per remote-scope operation */
	{
		double ops = 0, fl = 0, inv = 0, bc = 0;

		for (int in = 0; in < NIN; in++) {
			const struct lpt *p = in_sel(sel, in) ? find(d, in, C_RSP, FULL_CUS) : NULL;

			if (p && p->stats) {
				ops += p->v[M_REMOTE_OPS];
				bc += p->v[M_BROADCASTS];
				fl += p->v[M_FL_REMOTE];
				inv += p->v[M_INV_REMOTE];
			}
		}
		fputs("| V9 | RSP's fan-out at 128 CUs | 127 invalidations per remote release, 127 "
		      "flushes per remote acquire (steal) | ",
		      f);
		if (ops > 0 && bc > 0)
			fprintf(f,
				"%.0f remote-scope operations in %.0f broadcasts (a steal's CAS "
				"makes two): %.1f flushes per broadcast; %.1f flushes and %.1f "
				"invalidations per operation",
				ops, bc, fl / bc, fl / ops, inv / ops);
		else
			fputs("-", f);
		fputs(" |\n", f);
	}
	claim_speedup(f, d, sel, "V10", "hLRC-noprio over the baseline", "+22%", C_BASE,
		      C_HLRC_NOPRIO);
	claim_speedup(f, d, sel, "V11", "DeNovo-Rprio over the baseline", "+3% (DeNovo-B +21%)",
		      C_BASE, C_DENOVO_RPRIO);
	claim_speedup(f, d, sel, "V12", "hLRC-scoped over the baseline", "+29% (= hLRC)", C_BASE,
		      C_HLRC_SCOPED);
	fputs(
	    "| V12 | hLRC-scoped against hLRC, cycles | slightly more on SSSP-1, SSSP-3, color-2, "
	    "PR-3 | ",
	    f);
	inputs_change(f, d, sel, scoped_worse, N_OF(scoped_worse), C_HLRC, C_HLRC_SCOPED,
		      cycles_only, 1);
	fputs(" |\n", f);
	/* V13-V15: Table 6's ranges */
	for (int in = 0; in < NIN; in++) {
		double c[4];

		if (!in_sel(sel, in) || !sync_classes(find(d, in, C_HLRC, FULL_CUS), c))
			continue;
		l1lo_n++;
		l1lo = fmin(l1lo, c[0]);
		l1hi = fmax(l1hi, c[0]);
		rlo = fmin(rlo, c[2]);
		rhi = fmax(rhi, c[2]);
		if (c[3] > evmax || evmax_in < 0) {
			evmax = c[3];
			evmax_in = in;
		}
	}
	if (l1lo_n) {
		fprintf(f,
			"| V13 | hLRC's synchronization L1 hits | 74.3%%-97.8%% | %.1f%%-%.1f%% |\n"
			"| V14 | hLRC's remote-L1 hits | 1.9%%-20.0%% | %.1f%%-%.1f%% |\n"
			"| V15 | hLRC's synchronization evictions (Rprio) | 0, but 0.67%% on "
			"SSSP-3 | at most %.2f%% (%s) |\n",
			l1lo, l1hi, rlo, rhi, evmax, inputs[evmax_in].label);
	} else {
		fputs("| V13 | hLRC's synchronization L1 hits | 74.3%-97.8% | - |\n"
		      "| V14 | hLRC's remote-L1 hits | 1.9%-20.0% | - |\n"
		      "| V15 | hLRC's synchronization evictions (Rprio) | 0, but 0.67% on SSSP-3 "
		      "| - |\n",
		      f);
	}
	footprint(f, d, sel, "| V16 | atomics' footprint: hLRC's registered lines | 24 KB | ",
		  C_HLRC);
	footprint(f, d, sel,
		  "| V17 | DeNovo-B's registered footprint in the L2 | multiple MB, growing with "
		  "the graph | ",
		  C_DENOVO);
	fputs("| V18 | hLRC against steal-only where stealing dominates, cycles | about equal "
	      "(SSSP-3, color-2, PR-2, PR-3) | ",
	      f);
	inputs_change(f, d, sel, steal_dominant, N_OF(steal_dominant), C_STEAL, C_HLRC, cycles_only,
		      1);
	fputs(" |\n| V19 | DeNovo-B's L2 pressure: release + acquire + store latency against the "
	      "baseline | higher (SSSP-3, color-1) | ",
	      f);
	inputs_change(f, d, sel, pressure, N_OF(pressure), C_BASE, C_DENOVO, rel_acq_store,
		      N_OF(rel_acq_store));
	fputs(" |\n| V20 | DeNovo-B's L2 write-back reuse: release latency, load latency against "
	      "the baseline | lower (PR-2, PR-3) | release ",
	      f);
	inputs_change(f, d, sel, wb_reuse, N_OF(wb_reuse), C_BASE, C_DENOVO, rel, 1);
	fputs("; load ", f);
	inputs_change(f, d, sel, wb_reuse, N_OF(wb_reuse), C_BASE, C_DENOVO, load, 1);
	fputs(" |\n| V21 | DeNovo-B's lost L1 reuse: data-access latency against the baseline | "
	      "higher (SSSP-1, SSSP-2, PR-1) | ",
	      f);
	inputs_change(f, d, sel, inval, N_OF(inval), C_BASE, C_DENOVO, lat_data, N_OF(lat_data));
	fputs(" |\n", f);
	/* V22: hLRC at least as fast as the better of scope-only and steal-only (1% slack) */
	for (int in = 0; in < NIN; in++) {
		double h = in_sel(sel, in) ? val(find(d, in, C_HLRC, FULL_CUS), M_CYCLES) : NAN;
		double a = val(find(d, in, C_SCOPE, FULL_CUS), M_CYCLES);
		double b = val(find(d, in, C_STEAL, FULL_CUS), M_CYCLES);

		if (isnan(h) || isnan(a) || isnan(b))
			continue;
		n_cmp++;
		n_ok += h <= 1.01 * fmin(a, b);
	}
	fprintf(f,
		"| V22 | hLRC at least as fast as the better of scope-only and steal-only | every "
		"input | %u of %u inputs (within 1%%) |\n",
		n_ok, n_cmp);
	/* V23: the kernel boundaries' actions, the same in every scenario */
	n = 0;
	for (int in = 0; in < NIN; in++) {
		bool counted = false;

		if (!in_sel(sel, in))
			continue;
		for (size_t k = 0; k < N_OF(boundary); k++) {
			double lo = INFINITY, hi = 0;

			for (int c = 0; c < NCONF; c++) {
				const struct lpt *p = find(d, in, c, FULL_CUS);

				if (!p || !p->stats)
					continue;
				lo = fmin(lo, p->v[boundary[k]]);
				hi = fmax(hi, p->v[boundary[k]]);
			}
			if (hi > 0 && lo > 0) {
				spread = fmax(spread, hi / lo - 1);
				counted = true;
			}
		}
		n += counted;
	}
	fputs("| V23 | kernel-start invalidations and kernel-end flushes in every scenario | equal "
	      "| ",
	      f);
	if (n)
		fprintf(f, "differ across the configurations by at most %.1f%% (%u inputs)",
			100 * spread, n);
	else
		fputs("-", f);
	fputs(" |\n\n", f);
}

/* Fig. 4, 9 and 10's bars: every configuration's speedup over the baseline per input, with
 * the geometric means. */
static void write_speedups(FILE *f, const struct ldata *d, const bool *sel)
{
	fputs("## Speedup over the baseline (Figs. 4, 9, 10)\n\n| input |", f);
	for (int c = 1; c < NCONF; c++)
		fprintf(f, " %s |", conf[c]);
	fputs(" baseline cycles |\n|---|", f);
	for (int c = 0; c < NCONF; c++)
		fputs("---:|", f);
	fputs("\n", f);
	for (int in = 0; in < NIN; in++) {
		if (!in_sel(sel, in))
			continue;
		fprintf(f, "| %s (%s) |", inputs[in].label, inputs[in].graph);
		for (int c = 1; c < NCONF; c++) {
			double s = speedup(d, in, c, FULL_CUS);

			if (isnan(s))
				fputs(" - |", f);
			else
				fprintf(f, " %.2f |", s);
		}
		fprintf(f, " %.0f |\n", val(find(d, in, C_BASE, FULL_CUS), M_CYCLES));
	}
	fputs("| **geometric mean** |", f);
	for (int c = 1; c < NCONF; c++) {
		unsigned n;
		double g = gmean_ratio(d, sel, C_BASE, c, FULL_CUS, &n);

		if (isnan(g))
			fputs(" - |", f);
		else
			fprintf(f, " **%.2f** |", g);
	}
	fputs(" |\n\n", f);
}

/*
 * A table per input of metrics ms by configuration (Figs. 5-8): each cell the metric's count
 * or cycles, and a last column the sum over the metrics normalized to the baseline's.
 */
static void write_by_cause(FILE *f, const struct ldata *d, const bool *sel, const char *title,
			   const char *note, const enum hm *ms, const char *const *names,
			   size_t nms)
{
	fprintf(f, "## %s\n\n%s\n\n| input | configuration |", title, note);
	for (size_t i = 0; i < nms; i++)
		fprintf(f, " %s |", names[i]);
	fputs(" total / baseline's |\n|---|---|", f);
	for (size_t i = 0; i <= nms; i++)
		fputs("---:|", f);
	fputs("\n", f);
	for (int in = 0; in < NIN; in++) {
		double base;

		if (!in_sel(sel, in))
			continue;
		base = sum_of(find(d, in, C_BASE, FULL_CUS), ms, nms);
		for (int c = 0; c < NCONF; c++) {
			const struct lpt *p = find(d, in, c, FULL_CUS);
			double t;

			if (!p || !p->stats)
				continue;
			fprintf(f, "| %s | %s |", inputs[in].label, conf[c]);
			for (size_t i = 0; i < nms; i++)
				fprintf(f, " %.0f |", p->v[ms[i]]);
			t = sum_of(p, ms, nms);
			if (isnan(base) || base <= 0)
				fputs(" - |\n", f);
			else
				fprintf(f, " %.2f |\n", t / base);
		}
	}
	fputs("\n", f);
}

static void write_table6(FILE *f, const struct ldata *d, const bool *sel)
{
	fputs(
	    "## hLRC's synchronization accesses (Table 6)\n\n"
	    "Of the atomics under hLRC (with Rprio): L1 hits (registered here: no action), "
	    "L2/memory (a GetR the L2 answered: one invalidation), remote L1 (a GetR that "
	    "recalled another L1's registration: a flush there and an invalidation here), in % of "
	    "all three; evictions of registered lines (Synch Evicts) in % of the same. Seed / "
	    "ours.\n\n"
	    "| input | L1 hits | L2/memory | remote L1 | synch evicts | accesses |\n"
	    "|---|---|---|---|---|---:|\n",
	    f);
	for (int in = 0; in < NIN; in++) {
		const struct lpt *p = find(d, in, C_HLRC, FULL_CUS);
		double c[4];

		if (!in_sel(sel, in))
			continue;
		fprintf(f, "| %s |", inputs[in].label);
		if (!sync_classes(p, c)) {
			for (int k = 0; k < 4; k++)
				fprintf(f, " %.4g%% / - |", table6[in][k]);
			fputs(" - |\n", f);
			continue;
		}
		for (int k = 0; k < 4; k++)
			fprintf(f, " %.4g%% / %.*f%% |", table6[in][k], k == 3 ? 2 : 1, c[k]);
		fprintf(f, " %.0f |\n", p->v[M_REG_L1HIT] + p->v[M_REG_L2] + p->v[M_REG_REMOTE]);
	}
	fputs("\n", f);
}

/* V16-V17 per input: the registration protocols' registered footprints. */
static void write_footprints(FILE *f, const struct ldata *d, const bool *sel)
{
	static const int regs[] = {C_DENOVO, C_HLRC, C_HLRC_NOPRIO, C_DENOVO_RPRIO, C_HLRC_SCOPED};

	fputs("## Registered footprint (V16, V17)\n\n"
	      "The most lines registered in L1s at once (`reg.peak_lines`, each bank's most, "
	      "summed over the banks), in KB of 64-B lines.\n\n| input |",
	      f);
	for (size_t k = 0; k < N_OF(regs); k++)
		fprintf(f, " %s |", conf[regs[k]]);
	fputs("\n|---|", f);
	for (size_t k = 0; k < N_OF(regs); k++)
		fputs("---:|", f);
	fputs("\n", f);
	for (int in = 0; in < NIN; in++) {
		if (!in_sel(sel, in))
			continue;
		fprintf(f, "| %s |", inputs[in].label);
		for (size_t k = 0; k < N_OF(regs); k++) {
			const struct lpt *p = find(d, in, regs[k], FULL_CUS);

			if (!p || !p->stats)
				fputs(" - |", f);
			else
				fprintf(f, " %.0f |", p->v[M_PEAK_LINES] * LINE_BYTES / 1024);
		}
		fputs("\n", f);
	}
	fputs("\n", f);
}

static void write_scaling(FILE *f, const struct ldata *d, const bool *sel)
{
	fputs(
	    "## RSP by CU count (Fig. 1, V8)\n\n"
	    "RSP's speedup over the baseline with the same CUs (the mesh, L2 and DRAM unchanged); "
	    "each workload on its first input.\n\n| CUs |",
	    f);
	for (int w = 0; w < NWL; w++)
		if (sel[w])
			fprintf(f, " %s |", inputs[input_of(w, NULL)].label);
	fputs("\n|---:|", f);
	for (int w = 0; w < NWL; w++)
		if (sel[w])
			fputs("---:|", f);
	fputs("\n", f);
	for (size_t s = 0; s < NSCALE; s++) {
		fprintf(f, "| %lld |", scale_cus[s]);
		for (int w = 0; w < NWL; w++) {
			double r;

			if (!sel[w])
				continue;
			r = speedup(d, input_of(w, NULL), C_RSP, scale_cus[s]);
			if (isnan(r))
				fputs(" - |", f);
			else
				fprintf(f, " %.2f |", r);
		}
		fputs("\n", f);
	}
	fputs("\n", f);
}

/* ---- the figures ----------------------------------------------------------------------------- */

/* The columns of figs/hlrc.csv beyond benchmark, config, status. */
static const struct fig_col {
	const char *name;
	const enum hm *ms;
	size_t n;
} fig_cols[] = {
    {"cycles", cycles_only, 1},
    {"invalidations", inv_causes, N_OF(inv_causes)},
    {"flushes", flush_causes, N_OF(flush_causes)},
    {"data_latency", lat_data, N_OF(lat_data)},
    {"sync_latency", lat_sync, N_OF(lat_sync)},
};

static const struct lfig {
	const char *name, *metric, *title, *where;
	bool scale; /* from figs/rsp-scale.csv */
} figs[] = {
    {"fig4-performance", "performance", "Scenarios: speedup over the baseline (Fig. 4)",
     "config=baseline,scope-only,steal-only,RSP,DeNovo-B,hLRC", false},
    {"fig5-invalidations", "invalidations", "L1 invalidations (Fig. 5)",
     "config=baseline,scope-only,steal-only,RSP,DeNovo-B,hLRC", false},
    {"fig6-flushes", "flushes", "Store-buffer flushes and StRegs (Fig. 6)",
     "config=baseline,scope-only,steal-only,RSP,DeNovo-B,hLRC", false},
    {"fig7-data-latency", "data_latency", "Data load and store latency, summed (Fig. 7)",
     "config=baseline,scope-only,steal-only,RSP,DeNovo-B,hLRC", false},
    {"fig8-sync-latency", "sync_latency", "Acquire, release and atomic latency, summed (Fig. 8)",
     "config=baseline,scope-only,steal-only,RSP,DeNovo-B,hLRC", false},
    {"fig9-rprio", "performance", "Replacement priority: speedup over the baseline (Fig. 9)",
     "config=baseline,hLRC-noprio,hLRC,DeNovo-B,DeNovo-Rprio", false},
    {"fig10-scoped", "performance", "hLRC-scoped: speedup over the baseline (Fig. 10)",
     "config=baseline,hLRC,hLRC-scoped", false},
    {"fig1-rsp-scaling", "performance", "RSP by CU count: speedup over the baseline (Fig. 1)", NULL,
     true},
};

/* figs/hlrc.csv (the 128-CU points) or figs/rsp-scale.csv (the baseline and RSP at every CU
 * count): one row per point that has a result, its input as the benchmark. */
static char *fig_table(const struct ldata *d, const bool *sel, bool scale)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs("benchmark,config,status", f);
	for (size_t k = 0; k < N_OF(fig_cols); k++)
		fprintf(f, ",%s", fig_cols[k].name);
	fputs("\n", f);
	for (size_t s = 0; s < (scale ? NSCALE : 1); s++)
		for (int in = 0; in < NIN; in++)
			for (int c = 0; c < NCONF; c++) {
				const struct lpt *p =
				    find(d, in, c, scale ? scale_cus[s] : FULL_CUS);

				if (!p || !in_sel(sel, in) ||
				    (scale && ((c != C_BASE && c != C_RSP) ||
					       in != input_of(inputs[in].wl, NULL))))
					continue;
				if (scale)
					fprintf(f, "%s/%lld CUs,%s,%s", inputs[in].label,
						scale_cus[s], conf[c], p->c.status);
				else
					fprintf(f, "%s,%s,%s", inputs[in].label, conf[c],
						p->c.status);
				for (size_t k = 0; k < N_OF(fig_cols); k++) {
					double v = sum_of(p, fig_cols[k].ms, fig_cols[k].n);

					if (isnan(v))
						fputs(",", f);
					else
						fprintf(f, ",%.0f", v);
				}
				fputs("\n", f);
			}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static bool fig_has_points(const struct ldata *d, const bool *sel, bool scale)
{
	for (size_t i = 0; i < d->n; i++)
		if (in_sel(sel, d->p[i].in) && !isnan(d->p[i].v[M_CYCLES]) &&
		    (scale ? d->p[i].cus < FULL_CUS : d->p[i].cus == FULL_CUS))
			return true;
	return false;
}

/* The first figure drawn from fg's table writes it (the figures come in order k = 0, 1, ...). */
static bool first_of_table(const struct lfig *fg)
{
	for (const struct lfig *e = figs; e < fg; e++)
		if (e->scale == fg->scale)
			return false;
	return true;
}

/* figs/hlrc.csv or figs/rsp-scale.csv: 0, or the status of the failure (said). */
static int write_fig_table(const char *file, const struct ldata *d, const bool *sel, bool scale)
{
	char *text = fig_table(d, sel, scale);
	int status = 0;

	if (!text)
		status = cli_fail(EXIT_INTERNAL, "out of memory");
	else if (cli_write_atomic(file, text, strlen(text)))
		status = cli_fail(EXIT_OUTPUT, "study: %s: cannot write", file);
	free(text);
	return status;
}

static int plot_fig(const struct lfig *fg, const struct study_opts *o, const struct ldata *d)
{
	char *file = xasprintf("%s/figs/%s", o->output, fg->scale ? "rsp-scale.csv" : "hlrc.csv");
	char *prefix = xasprintf("%s/figs/%s", o->output, fg->name);
	const char *files[1] = {file};
	int status = 0;

	if (!fig_has_points(d, o->sel, fg->scale))
		goto out;
	if (!file || !prefix) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (first_of_table(fg) && (status = write_fig_table(file, d, o->sel, fg->scale)))
		goto out;
	status = study_plot(&(struct study_plot){
	    .files = files,
	    .nfiles = 1,
	    .prefix = prefix,
	    .metric = fg->metric,
	    .title = fg->title,
	    .baseline = "baseline",
	    .group_by = "config",
	    .where = fg->where,
	    .speedup = strcmp(fg->metric, "performance") == 0,
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
	static const char *const inv_names[] = {"kernel start", "acquire", "remote inval",
						"atomic in"};
	static const char *const flush_names[] = {"kernel end", "release", "remote flush",
						  "atomic out", "StReg"};
	static const char *const data_names[] = {"load", "store"};
	static const char *const sync_names[] = {"acquire", "release", "atomic LD", "atomic ST",
						 "atomic RMW"};
	const struct ldata *d = data, *other = other_data;
	size_t len;
	FILE *f = open_memstream(text, &len);
	const bool *sel = o->sel;
	bool have_main = d->r.loaded[SW_SSSP] || d->r.loaded[SW_COLOR] || d->r.loaded[SW_PAGERANK];

	if (!f)
		return -1;
	fputs(
	    "# Lazy release consistency for GPUs: `cohscope study hlrc`\n\n"
	    "Seed 004's evaluation (§V) on the 128-CU GPU of configs/hlrc-128cu.cfg: SSSP, color "
	    "and PageRank with per-CU task queues, each on the three inputs of the seed's Table 5 "
	    "(generated graphs of the same shape, docs/graphs.md), under the six scenarios of "
	    "Fig. 4 (baseline, scope-only, steal-only, RSP, DeNovo-B, hLRC), the replacement "
	    "variants of Fig. 9 (hLRC-noprio, DeNovo-Rprio) and hLRC-scoped (Fig. 10); and the "
	    "baseline and RSP with 8 to 64 CUs (Fig. 1). configs/studies/hlrc-*.sweep, "
	    "docs/study.md, docs/hlrc.md, docs/validation/hlrc.md.\n\n",
	    f);
	*nbad = study_write_run(f, o, "configs/hlrc-128cu.cfg", &d->r, d->p, d->n, sizeof(*d->p));
	if (have_main) {
		write_claims(f, d, sel);
		write_speedups(f, d, sel);
		write_by_cause(
		    f, d, sel, "L1 invalidations by cause (Fig. 5)",
		    "Whole-L1 invalidations: at a kernel's start, at an acquire of agent "
		    "scope, asked by a remote-scope operation (RSP), when registration "
		    "came in (hLRC's atomic in); summed over the 128 CUs.",
		    inv_causes, inv_names, N_OF(inv_causes));
		write_by_cause(
		    f, d, sel, "Flushes and StRegs by cause (Fig. 6)",
		    "Store-buffer flushes at a kernel's end, at a release of agent scope, "
		    "asked by a remote-scope operation (RSP), when registration left "
		    "(hLRC's atomic out); DeNovo's StRegs (written lines registered, a "
		    "count of lines); summed over the 128 CUs.",
		    flush_causes, flush_names, N_OF(flush_causes));
		write_by_cause(f, d, sel, "Data access latency, summed (Fig. 7)",
			       "Cycles from issue to completion of every data load and store, "
			       "summed over the CUs.",
			       lat_data, data_names, N_OF(lat_data));
		write_by_cause(f, d, sel, "Synchronization latency, summed (Fig. 8)",
			       "Cycles of acquire and release fences (their wait: kernel start and "
			       "end actions included) and of atomic loads, stores and RMWs (the "
			       "registration's actions included), summed over the CUs.",
			       lat_sync, sync_names, N_OF(lat_sync));
		write_table6(f, d, sel);
		write_footprints(f, d, sel);
		write_by_cause(
		    f, d, sel, "NoC traffic by kind (bytes)",
		    "Bytes (header and payload) over every network by kind of message "
		    "(docs/energy.md, \"Traffic\"): requests, data, a home's probes and "
		    "the L1s' acks, coherence acks, write-backs and unregistrations. The "
		    "seed reports no traffic.",
		    traffic_ms, noc_traffic_kind_names, N_OF(traffic_ms));
		write_by_cause(f, d, sel, "Energy by component (uJ)",
			       "Dynamic and static energy of the CUs, L1s, L2 banks, networks and "
			       "DRAM (docs/energy.md; 40 nm: the seed names no node). The seed "
			       "reports no energy.",
			       energy_ms, energy_comps, N_OF(energy_ms));
	}
	if (d->r.loaded[SW_RSPSCALE] || have_main)
		write_scaling(f, d, sel);
	study_write_points(f, &study_hlrc, d->p, d->n, sizeof(*d->p), other ? &other->r : NULL,
			   other ? other->p : NULL, other ? other->n : 0);
	fputs("## Figures (figs/)\n\n"
	      "Each is NAME.dat (the normalized table), NAME.gp (a gnuplot script) and, with "
	      "gnuplot, NAME.svg and NAME.png (docs/plots.md), drawn from figs/hlrc.csv and "
	      "figs/rsp-scale.csv; bars are normalized to the baseline.\n\n",
	      f);
	for (size_t k = 0; k < N_OF(figs); k++)
		fprintf(f, "- `figs/%s`: %s%s\n", figs[k].name, figs[k].title,
			fig_has_points(d, sel, figs[k].scale) ? "" : ": not drawn (no point ran)");
	return fclose(f) ? -1 : 0;
}

static int hlrc_fill(void *data, const char *dir, const bool *ran, bool full)
{
	struct ldata *d = data;
	void *points = NULL;
	int rc;

	d->dir = dir;
	d->full = full;
	rc = study_read(&study_hlrc, dir, ran, &d->r, &points, &d->n, sizeof(*d->p), ldata_add, d);
	d->p = points;
	return rc;
}

static size_t hlrc_npoints(const void *d)
{
	return ((const struct ldata *)d)->n;
}

static int hlrc_figure(const struct study_opts *o, const void *d, unsigned k)
{
	return plot_fig(&figs[k], o, d);
}

static const char *const hlrc_varied[] = {
    "coherence.protocol=", "workload.scenario=", "workload.graph=", "gpu.sms=", NULL};

const struct study_def study_hlrc = {
    .name = "hlrc",
    .title = "the hLRC study",
    .output = "study-hlrc",
    .bench = wl,
    .label = wl,
    .nbench = NWL,
    .sweeps = sweeps,
    .nsweeps = NSWEEP,
    .varied = hlrc_varied,
    .data_size = sizeof(struct ldata),
    .fill = hlrc_fill,
    .clear = ldata_free,
    .npoints = hlrc_npoints,
    .nfigures = N_OF(figs),
    .figure = hlrc_figure,
    .summary = summary_text,
};
