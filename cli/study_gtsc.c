/*
 * cli/study_gtsc.c - `cohscope study gtsc`: the evaluation of the G-TSC thesis chapter (seed
 * 001, thesis ch. 3, §3.7-3.8; docs/study.md).
 *
 * Four sweep files of configs/studies/ (set 1 and set 2 under the papers' configurations,
 * G-TSC-RC's lease sweep, TC's lease sweep) run through the shared runner (cli/study.c).
 * cmd_plot draws the figures into DIR/figs, and the claims table, Table 3.2 and the cycles of
 * every point are computed from the sweeps' results.json into DIR/summary.md, which holds
 * simulated figures only (no time, no path outside DIR): the same results give the same
 * bytes. The paper's numbers are in the static tables below.
 */
#include "cli/cli.h"
#include "cli/study_impl.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define xasprintf study_asprintf

/* ---- the G-TSC study: benchmarks, sweeps, figures, the paper's numbers ---------------------- */

/* The suite in `cohscope suite` order: set 1 (needs coherence), then set 2. */
#define NBENCH 12
#define NSET1  6
static const char *const bench[NBENCH] = {"bh", "cc", "dlb", "vpr", "stn", "bfs",
					  "ge", "hs", "km",  "bp",  "sgm", "ccp"};

/* TC-SC is the thesis' (TC-Strong under SC); TC-W-SC (TC-Weak under SC) the other SC baseline */
#define NCONFIG 7
static const char *const configs[NCONFIG] = {"BL",	"W/L1",	    "TC-RC",   "TC-SC",
					     "TC-W-SC", "G-TSC-RC", "G-TSC-SC"};

enum { SW_SET1, SW_SET2, SW_LEASE, SW_TCLEASE, NSWEEP };

static const struct study_sweep sweeps[NSWEEP] = {
    {"set1", "gtsc-set1.sweep", "x BL, TC-RC, TC-SC, TC-W-SC, G-TSC-RC, G-TSC-SC"},
    {"set2", "gtsc-set2.sweep", "x BL, W/L1, TC-RC, TC-SC, TC-W-SC, G-TSC-RC, G-TSC-SC"},
    {"lease", "gtsc-lease.sweep",
     "x G-TSC-RC with gtsc.lease = 1, 2, 5, 8, 10, 12, 16, 20, 100, 1000"},
    {"tclease", "gtsc-tclease.sweep",
     "x TC-RC, TC-SC, TC-W-SC, TC-RC-P with tc.lease = 200, 400, 800, 1600, 3200"},
};

enum metric { M_CYCLES, M_STALLS, M_TRAFFIC, M_ENERGY, M_L1E, M_L2E, M_NOCE, M_EXPIRY };

static const struct figure {
	const char *name;
	bool lease; /* the lease sweep (groups: gtsc.lease, baseline 10), else set 1 + set 2 */
	const char *metric, *title;
	enum metric m; /* what decides whether a group has a bar */
} figures[] = {
    {"fig12-performance", false, "performance", "Performance (Fig. 3.12)", M_CYCLES},
    {"fig13-memory-stalls", false, "memory_stall_cycles", "Memory stall cycles (Fig. 3.13)",
     M_STALLS},
    {"fig14-lease-performance", true, "performance", "G-TSC-RC performance vs lease (Fig. 3.14)",
     M_CYCLES},
    {"fig15-noc-traffic", false, "traffic", "NoC traffic (Fig. 3.15)", M_TRAFFIC},
    {"fig16-lease-traffic", true, "traffic", "G-TSC-RC NoC traffic vs lease (Fig. 3.16)",
     M_TRAFFIC},
    {"fig17-energy", false, "energy", "Energy (Fig. 3.17)", M_ENERGY},
    {"fig19-lease-energy", true, "energy", "G-TSC-RC energy vs lease (Fig. 3.19)", M_ENERGY},
};

enum kind {
	K_SPEEDUP, /* gmean of cycles(b) / cycles(a) */
	K_RATIO,   /* gmean of metric(a) / metric(b) */
	K_LEASE,   /* max / min of the lease sweep's gmeans (normalized to lease 10), - 1 */
};
enum bset { B_SET1, B_SET2, B_ALL, B_LIST };

/*
 * The claims of the thesis' §3.8 (seed 001; /work/shared/reference/seed-001-thesis.md §3.8 and
 * its validation targets C3-2..C3-15), each with what we compute for it: "ours" is
 * gmean_benchmarks(ratio) - 1 for a versus b.
 */
static const struct claim {
	const char *id, *text, *paper, *source;
	enum kind kind;
	enum metric metric;
	const char *a, *b;
	enum bset set;
	const char *list; /* B_LIST: the benchmarks, space separated */
} claims[] = {
    {"C3-4", "G-TSC-RC vs TC-RC (TC-Weak): performance", "+38%", "Fig. 3.12", K_SPEEDUP, M_CYCLES,
     "G-TSC-RC", "TC-RC", B_SET1, NULL},
    {"C3-4", "G-TSC-SC vs TC-SC (TC-Strong, the thesis' TC-SC): performance", "+84%", "Fig. 3.12",
     K_SPEEDUP, M_CYCLES, "G-TSC-SC", "TC-SC", B_SET1, NULL},
    {"C3-4", "G-TSC-SC vs TC-W-SC (TC-Weak; the other SC baseline): performance", "(+84% vs TC-SC)",
     "Fig. 3.12", K_SPEEDUP, M_CYCLES, "G-TSC-SC", "TC-W-SC", B_SET1, NULL},
    {"C3-5", "G-TSC-SC vs TC-RC (TC-Weak): performance", "+26%", "Fig. 3.12", K_SPEEDUP, M_CYCLES,
     "G-TSC-SC", "TC-RC", B_SET1, NULL},
    {"C3-2", "G-TSC-RC vs G-TSC-SC: performance", "+12%", "Fig. 3.12", K_SPEEDUP, M_CYCLES,
     "G-TSC-RC", "G-TSC-SC", B_SET1, NULL},
    {"C3-2", "G-TSC-RC vs G-TSC-SC: performance", "+9%", "Fig. 3.12", K_SPEEDUP, M_CYCLES,
     "G-TSC-RC", "G-TSC-SC", B_ALL, NULL},
    {"C3-3", "CC: G-TSC-SC vs G-TSC-RC: performance", "> 0 (SC beats RC on CC)", "§3.8", K_SPEEDUP,
     M_CYCLES, "G-TSC-SC", "G-TSC-RC", B_LIST, "cc"},
    {"C3-6", "TC-RC (TC-Weak) vs G-TSC-RC: memory stall cycles", "+45%", "Fig. 3.13", K_RATIO,
     M_STALLS, "TC-RC", "G-TSC-RC", B_SET1, NULL},
    {"C3-6", "TC-RC (TC-Weak) vs G-TSC-RC: memory stall cycles", "> +40% (>1.4x)", "Fig. 3.13",
     K_RATIO, M_STALLS, "TC-RC", "G-TSC-RC", B_SET2, NULL},
    {"C3-7", "G-TSC-RC vs W/L1: execution time (overhead)", "+11%", "Fig. 3.12", K_RATIO, M_CYCLES,
     "G-TSC-RC", "W/L1", B_SET2, NULL},
    {"C3-7", "G-TSC-RC vs W/L1: execution time (overhead)", "~0", "Fig. 3.12", K_RATIO, M_CYCLES,
     "G-TSC-RC", "W/L1", B_LIST, "ge hs sgm ccp"},
    {"C3-9", "G-TSC-RC vs TC-RC (TC-Weak): NoC traffic", "-20%", "Fig. 3.15", K_RATIO, M_TRAFFIC,
     "G-TSC-RC", "TC-RC", B_SET1, NULL},
    {"C3-9", "G-TSC-SC vs TC-SC (TC-Strong, the thesis' TC-SC): NoC traffic", "-15.7%", "Fig. 3.15",
     K_RATIO, M_TRAFFIC, "G-TSC-SC", "TC-SC", B_SET1, NULL},
    {"C3-9", "G-TSC-SC vs TC-W-SC (TC-Weak; the other SC baseline): NoC traffic",
     "(-15.7% vs TC-SC)", "Fig. 3.15", K_RATIO, M_TRAFFIC, "G-TSC-SC", "TC-W-SC", B_SET1, NULL},
    {"C3-11", "G-TSC-RC vs TC-RC (TC-Weak): energy", "-11% (also \"9% over TC\")", "Fig. 3.17",
     K_RATIO, M_ENERGY, "G-TSC-RC", "TC-RC", B_SET1, NULL},
    {"C3-12", "G-TSC-RC vs TC-RC (TC-Weak): L2 energy", "-1%", "§3.8", K_RATIO, M_L2E, "G-TSC-RC",
     "TC-RC", B_SET1, NULL},
    {"C3-12", "G-TSC-RC vs TC-RC (TC-Weak): NoC energy", "-3%", "§3.8", K_RATIO, M_NOCE, "G-TSC-RC",
     "TC-RC", B_SET1, NULL},
    {"C3-13", "G-TSC-RC vs TC-RC (TC-Weak): L1 energy", "> 0 (TC slightly lower)", "Fig. 3.18",
     K_RATIO, M_L1E, "G-TSC-RC", "TC-RC", B_SET1, NULL},
    {"C3-8", "G-TSC-RC, lease 8-20: spread of performance", "~0 (flat)", "Fig. 3.14", K_LEASE,
     M_CYCLES, NULL, NULL, B_ALL, NULL},
    {"C3-10", "G-TSC-RC, lease 8-20: spread of NoC traffic", "~0 (flat)", "Fig. 3.16", K_LEASE,
     M_TRAFFIC, NULL, NULL, B_ALL, NULL},
    {"C3-14", "G-TSC-RC, lease 8-20: spread of energy", "~0 (negligible)", "Fig. 3.19", K_LEASE,
     M_ENERGY, NULL, NULL, B_ALL, NULL},
    {"C3-15", "G-TSC-RC vs TC-RC (TC-Weak): lease-expiry misses", "-48%", "§3.8", K_RATIO, M_EXPIRY,
     "G-TSC-RC", "TC-RC", B_SET1, NULL},
    {"C3-15", "G-TSC-RC vs TC-RC (TC-Weak): lease-expiry misses", "-48%", "§3.8", K_RATIO, M_EXPIRY,
     "G-TSC-RC", "TC-RC", B_ALL, NULL},
};

/* Table 3.2 of the thesis: absolute execution cycles in millions, in its order ("DLP" there). */
static const struct table32 {
	const char *bench;
	double bl_gtsc, tc_gtsc; /* on the G-TSC simulator (GPGPU-Sim 3.2.2) */
	double bl_tc, tc_tc;	 /* on the TC simulator (GPGPU-Sim + Ruby/GEMS) */
} table32[NBENCH] = {
    {"bh", 0.55, 0.84, 1.26, 1.03},	 {"cc", 1.47, 1.77, 2.99, 1.75},
    {"dlb", 1.63, 1.63, 5.53, 1.44},	 {"vpr", 0.85, 0.90, 1.98, 0.77},
    {"stn", 2.00, 1.74, 4.66, 1.62},	 {"bfs", 0.79, 2.32, 1.95, 1.87},
    {"ccp", 13.50, 13.50, 13.59, 13.47}, {"ge", 2.22, 2.49, 4.89, 3.51},
    {"hs", 0.22, 0.23, 0.22, 0.23},	 {"km", 28.74, 30.78, 30.89, 34.17},
    {"bp", 0.84, 0.69, 1.61, 0.58},	 {"sgm", 6.08, 6.14, 5.74, 5.91},
};

#define BASE_LEASE     10 /* the default gtsc.lease: the lease figures' baseline */
/* The thesis' lease range (Figs. 3.14, 3.16, 3.19: flat for 8-20): the lease claims' span. */
#define CLAIM_LEASE_LO 8
#define CLAIM_LEASE_HI 20
#define MAX_LEASES     16

/* ---- the results ---------------------------------------------------------------------------- */

struct spt {
	struct study_pt c;	 /* config: set 1, set 2, the TC lease sweep */
	long long lease;	 /* gtsc.lease (the lease sweep), tc.lease (the TC lease sweep) */
	double renewals, resets; /* the lease sweep: the L2 banks' counters; -1 when unknown */
};

struct data {
	struct study_results r;
	struct spt *p;
	size_t n;
	long long leases[MAX_LEASES], tcleases[MAX_LEASES];
	int nleases, ntcleases, base_lease; /* base_lease: index into leases */
	const char *dir;		    /* while loading */
	bool counters;			    /* read the lease sweep's counters */
};

static void data_free(void *data)
{
	struct data *d = data;

	study_results_free(&d->r);
	free(d->p);
}

static void add_distinct(long long *v, int *n, long long x)
{
	for (int l = 0; l < *n; l++)
		if (v[l] == x)
			return;
	if (*n < MAX_LEASES)
		v[(*n)++] = x;
}

/*
 * G-TSC's lease renewals and timestamp resets of a lease-sweep point, from the statistics its
 * points/ID.json holds (they are not in the result): gpu.l2.bankN.gtsc.renewals and .ts_resets
 * summed over the banks (each bank renews and resets its own lines).
 */
static void point_counters(const char *dir, struct spt *p)
{
	json_t *root = study_point_json(&study_gtsc, dir, &p->c);
	json_t *stats = json_object_get(root, "stats"), *v;
	const char *key;
	unsigned seen = 0;

	/* the stats are flat: "gpu.l2.bank0.gtsc.renewals" */
	p->renewals = p->resets = 0;
	json_object_foreach(stats, key, v)
	{
		const char *tail =
		    strncmp(key, "gpu.l2.bank", 11) == 0 ? strstr(key, ".gtsc.") : NULL;

		if (!tail || !json_is_number(v))
			continue;
		if (strcmp(tail, ".gtsc.renewals") == 0) {
			p->renewals += json_number_value(v);
			seen |= 1;
		} else if (strcmp(tail, ".gtsc.ts_resets") == 0) {
			p->resets += json_number_value(v);
			seen |= 2;
		}
	}
	if (seen != 3)
		p->renewals = p->resets = -1;
	json_decref(root);
}

/* A point of the study (study_read's add): set 1 and set 2 need a configuration, the lease
 * sweeps their lease; d->counters: a lease point's renewals and resets from its file too. */
static int data_add(void *ctx, void *slot)
{
	struct data *d = ctx;
	struct spt *p = slot;

	p->renewals = p->resets = -1;
	if (p->c.sweep == SW_LEASE) {
		if (!study_axis_int(json_object_get(p->c.axes, "gtsc.lease"), &p->lease))
			return 0;
		add_distinct(d->leases, &d->nleases, p->lease);
		if (d->counters && strcmp(p->c.status, "ok") == 0)
			point_counters(d->dir, p);
	} else if (p->c.sweep == SW_TCLEASE) {
		if (!p->c.config ||
		    !study_axis_int(json_object_get(p->c.axes, "tc.lease"), &p->lease))
			return 0;
		add_distinct(d->tcleases, &d->ntcleases, p->lease);
	} else if (!p->c.config) {
		return 0;
	}
	return 1;
}

/* The points of the sweeps of dir that ran names; counters: read the lease sweep's renewals
 * and resets from its point files too (the study's fill). */
static int data_load(void *data, const char *dir, const bool *ran, bool counters)
{
	struct data *d = data;
	void *points = NULL;
	int rc;

	d->base_lease = -1;
	d->dir = dir;
	d->counters = counters;
	rc = study_read(&study_gtsc, dir, ran, &d->r, &points, &d->n, sizeof(*d->p), data_add, d);
	d->p = points;
	if (rc)
		return -1;
	for (int l = 0; l < d->nleases; l++)
		if (d->leases[l] == BASE_LEASE)
			d->base_lease = l;
	if (d->base_lease < 0 && d->nleases)
		d->base_lease = 0;
	return 0;
}

/* A point of set 1 or set 2 under config. */
static const struct spt *find(const struct data *d, int b, const char *config)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->p[i].c.bench == b &&
		    (d->p[i].c.sweep == SW_SET1 || d->p[i].c.sweep == SW_SET2) &&
		    strcmp(d->p[i].c.config, config) == 0)
			return &d->p[i];
	return NULL;
}

static const struct spt *find_lease(const struct data *d, int b, long long lease)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->p[i].c.bench == b && d->p[i].c.sweep == SW_LEASE && d->p[i].lease == lease)
			return &d->p[i];
	return NULL;
}

static const struct spt *find_tc(const struct data *d, int b, const char *config, long long lease)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->p[i].c.bench == b && d->p[i].c.sweep == SW_TCLEASE &&
		    d->p[i].lease == lease && strcmp(d->p[i].c.config, config) == 0)
			return &d->p[i];
	return NULL;
}

/* The point of sweep k named name (another study's). */
static const struct spt *find_named(const struct data *d, int k, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->p[i].c.sweep == k && strcmp(d->p[i].c.name, name) == 0)
			return &d->p[i];
	return NULL;
}

static bool num_at(json_t *res, const char *a, const char *b, const char *c, double *v)
{
	json_t *j = json_object_get(res, a);

	if (b)
		j = json_object_get(j, b);
	if (c)
		j = json_object_get(j, c);
	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return true;
}

static bool component(json_t *res, const char *part, double *v)
{
	double dy, st;

	if (!num_at(res, "energy", part, "dynamic_j", &dy) ||
	    !num_at(res, "energy", part, "static_j", &st))
		return false;
	*v = dy + st;
	return true;
}

/* The metric of an ok point. */
static bool value(const struct spt *p, enum metric m, double *v)
{
	if (!p || !p->c.res || strcmp(p->c.status, "ok") != 0)
		return false;
	switch (m) {
	case M_CYCLES:
		return num_at(p->c.res, "cycles", NULL, NULL, v);
	case M_STALLS:
		return num_at(p->c.res, "memory_stall_cycles", NULL, NULL, v);
	case M_TRAFFIC:
		return num_at(p->c.res, "traffic_bytes", NULL, NULL, v) ||
		       num_at(p->c.res, "noc_bytes", NULL, NULL, v);
	case M_ENERGY:
		return num_at(p->c.res, "energy_j", NULL, NULL, v);
	case M_L1E:
		return component(p->c.res, "l1", v);
	case M_L2E:
		return component(p->c.res, "l2", v);
	case M_NOCE:
		return component(p->c.res, "noc", v);
	case M_EXPIRY:
		return num_at(p->c.res, "l1_lease_expired_misses", NULL, NULL, v);
	}
	return false;
}

/*
 * The 95% half-width of an ok point's metric (docs/hybrid.md): 0 in detailed mode (every
 * value is counted, not estimated); in hybrid and analytic mode the result's cycles_half,
 * traffic_half, energy_half_j, and NAN for a metric the result gives no half-width for.
 */
static double half_width(const struct spt *p, enum metric m)
{
	const char *mode = json_string_value(json_object_get(p->c.res, "mode"));
	double h;

	if (mode && strcmp(mode, "detailed") == 0)
		return 0;
	switch (m) {
	case M_CYCLES:
		return num_at(p->c.res, "cycles_half", NULL, NULL, &h) ? h : NAN;
	case M_TRAFFIC:
		return num_at(p->c.res, "traffic_bytes", NULL, NULL, &h) &&
			       num_at(p->c.res, "traffic_half", NULL, NULL, &h)
			   ? h
			   : NAN;
	case M_ENERGY:
		return num_at(p->c.res, "energy_half_j", NULL, NULL, &h) ? h : NAN;
	default:
		return NAN;
	}
}

/* The squared relative half-width of an ok point's metric v (NAN when unknown). */
static double rel2(const struct spt *p, enum metric m, double v)
{
	double h = half_width(p, m);

	return v > 0 ? (h / v) * (h / v) : NAN;
}

/* The benchmarks of a claim (selected or not), and its label. */
static void claim_set(const struct claim *c, bool *in, unsigned *total, char *label, size_t len)
{
	*total = 0;
	for (int i = 0; i < NBENCH; i++) {
		switch (c->set) {
		case B_SET1:
			in[i] = i < NSET1;
			break;
		case B_SET2:
			in[i] = i >= NSET1;
			break;
		case B_ALL:
			in[i] = true;
			break;
		case B_LIST: {
			size_t n = strlen(bench[i]);
			const char *s = c->list;

			in[i] = false;
			while ((s = strstr(s, bench[i])) != NULL) {
				if ((s == c->list || s[-1] == ' ') && (s[n] == ' ' || !s[n]))
					in[i] = true;
				s += n;
			}
			break;
		}
		}
		*total += in[i];
	}
	snprintf(label, len, "%s",
		 c->set == B_SET1   ? "set 1"
		 : c->set == B_SET2 ? "set 2"
		 : c->set == B_ALL  ? "all"
				    : c->list);
}

struct agg {
	double g;
	double hlog; /* 95% half-width of log(g): 0 exact, NAN unknown */
	unsigned n, zero;
	char covered[128];
};

static void covered_add(struct agg *r, int b)
{
	size_t l = strlen(r->covered);

	snprintf(r->covered + l, sizeof(r->covered) - l, "%s%s", l ? " " : "", bench[b]);
}

/*
 * gmean over the benchmarks of in of metric(pa) / metric(pb) (metric(pb) / metric(pa) for a
 * speedup), with pa, pb the points find_a and find_b give; benchmarks where either value is
 * missing are left out, those where one is 0 too (zero). The interval: each point's 95%
 * half-width h gives log(v) a half-width of h / v (first order); the points are independent
 * runs, so the squares add over the two points of a ratio and over the benchmarks, and the
 * mean of n logs has sqrt(sum) / n.
 */
static void gmean_of(const struct data *d, const bool *in, enum metric m, bool speedup,
		     const struct spt *(*pick)(const struct data *, int, const void *),
		     const void *a, const void *b, struct agg *r)
{
	double logs = 0, var = 0;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < NBENCH; i++) {
		const struct spt *pa, *pb;
		double va, vb;

		if (!in[i])
			continue;
		pa = pick(d, i, a);
		pb = pick(d, i, b);
		if (!value(pa, m, &va) || !value(pb, m, &vb))
			continue;
		if (va <= 0 || vb <= 0) {
			r->zero++;
			continue;
		}
		logs += speedup ? log(vb / va) : log(va / vb);
		var += rel2(pa, m, va) + rel2(pb, m, vb);
		r->n++;
		covered_add(r, i);
	}
	r->g = r->n ? exp(logs / r->n) : NAN;
	r->hlog = r->n ? sqrt(var) / r->n : NAN;
}

static const struct spt *pick_config(const struct data *d, int b, const void *config)
{
	return find(d, b, config);
}

static void pair_gmean(const struct data *d, const bool *in, const struct claim *c, struct agg *r)
{
	gmean_of(d, in, c->metric, c->kind == K_SPEEDUP, pick_config, c->a, c->b, r);
}

/* For each lease in [lo, hi], the gmean over the benchmarks of in that have the metric at
 * every such lease of its value over the base lease's (the base lease's cycles over its own
 * for M_CYCLES), and the half-width of its log (as gmean_of). */
static void lease_gmeans(const struct data *d, const bool *in, enum metric m, long long lo,
			 long long hi, double *g, double *hlog, struct agg *r)
{
	double logs[MAX_LEASES] = {0}, var[MAX_LEASES] = {0};

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < NBENCH; i++) {
		const struct spt *pt[MAX_LEASES];
		double v[MAX_LEASES], base, rb;
		bool all = d->nleases > 0 && d->base_lease >= 0;

		for (int l = 0; l < d->nleases && all; l++) {
			pt[l] = find_lease(d, i, d->leases[l]);
			if (d->leases[l] < lo || d->leases[l] > hi)
				continue;
			all = value(pt[l], m, &v[l]) && v[l] > 0;
		}
		if (!in[i] || !all || !value(pt[d->base_lease], m, &base) || base <= 0)
			continue;
		rb = rel2(pt[d->base_lease], m, base);
		for (int l = 0; l < d->nleases; l++) {
			if (d->leases[l] < lo || d->leases[l] > hi)
				continue;
			logs[l] += m == M_CYCLES ? log(base / v[l]) : log(v[l] / base);
			if (l != d->base_lease)
				var[l] += rel2(pt[l], m, v[l]) + rb;
		}
		r->n++;
		covered_add(r, i);
	}
	for (int l = 0; l < d->nleases; l++) {
		g[l] = r->n ? exp(logs[l] / r->n) : NAN;
		hlog[l] = r->n ? sqrt(var[l]) / r->n : NAN;
	}
}

struct figure;
static int fig_groups(const struct figure *fg, const struct data *d, char *where, size_t wlen,
		      char *nobar, size_t nlen);

/* ---- summary.md ----------------------------------------------------------------------------- */

static void coverage(FILE *f, const char *label, const bool *in, unsigned total,
		     const struct agg *r)
{
	fprintf(f, "%s: %u of %u", label, r->n, total);
	if (r->n && r->n < total)
		fprintf(f, " (%s)", r->covered);
	if (r->zero)
		fprintf(f, "; %u left out (a zero)", r->zero);
	(void)in;
}

/* "[lo%, hi%]"; an upper end beyond +999% (a point's half-width far above its value: the
 * first-order interval says little there) is written ">+999%". */
static void interval_ends(FILE *f, double lo, double hi, bool sign)
{
	fprintf(f, sign ? "[%+.1f%%, " : "[%.1f%%, ", lo);
	if (hi > 999)
		fputs(">+999%]", f);
	else
		fprintf(f, sign ? "%+.1f%%]" : "%.1f%%]", hi);
}

/* The 95% interval of a factor g (g - 1 in percent) whose log has half-width hlog. */
static void interval_cell(FILE *f, double g, double hlog)
{
	if (isnan(g))
		fputs("-", f);
	else if (isnan(hlog))
		fputs("n/a", f);
	else if (hlog == 0)
		fputs("±0", f);
	else
		interval_ends(f, 100 * (g * exp(-hlog) - 1), 100 * (g * exp(hlog) - 1), true);
}

/* A factor normalized to 1 with its ± (first order: g hlog), nothing when exact or unknown. */
static void factor_pm(FILE *f, double g, double hlog)
{
	fprintf(f, " %.3f", g);
	if (!isnan(hlog) && hlog > 0)
		fprintf(f, " ± %.3f", g * hlog);
}

/* A ratio as a change in percent with its ± in percentage points (first order). */
static void pct_pm(FILE *f, double g, double hlog)
{
	fprintf(f, " %+.1f%%", 100 * (g - 1));
	if (!isnan(hlog) && hlog > 0)
		fprintf(f, " ± %.1f", 100 * g * hlog);
}

static void write_claims(FILE *f, const struct data *d, const bool *sel)
{
	fputs("## The paper's claims beside ours\n\n"
	      "| claim | what | paper | ours | 95% interval | benchmarks (of the paper's) | "
	      "source |\n"
	      "|---|---|---|---|---|---|---|\n",
	      f);
	for (size_t k = 0; k < sizeof(claims) / sizeof(claims[0]); k++) {
		const struct claim *c = &claims[k];
		bool in[NBENCH];
		unsigned total;
		char label[64];
		struct agg r;

		claim_set(c, in, &total, label, sizeof(label));
		for (int i = 0; i < NBENCH; i++)
			in[i] = in[i] && sel[i];
		fprintf(f, "| %s | %s | %s | ", c->id, c->text, c->paper);
		if (c->kind == K_LEASE) {
			double g[MAX_LEASES], hl[MAX_LEASES], lo = INFINITY, hi = -INFINITY;
			double hlo = 0, hhi = 0;

			lease_gmeans(d, in, c->metric, CLAIM_LEASE_LO, CLAIM_LEASE_HI, g, hl, &r);
			for (int l = 0; l < d->nleases; l++) {
				if (d->leases[l] < CLAIM_LEASE_LO || d->leases[l] > CLAIM_LEASE_HI)
					continue;
				if (g[l] < lo) {
					lo = g[l];
					hlo = hl[l];
				}
				if (g[l] > hi) {
					hi = g[l];
					hhi = hl[l];
				}
			}
			if (r.n) {
				double h = sqrt(hlo * hlo + hhi * hhi);

				fprintf(f, "%.1f%% (%.3f-%.3f) | ", 100 * (hi / lo - 1), lo, hi);
				/* the spread is at least 0: the interval's lower end too */
				if (!isnan(h) && h > 0)
					interval_ends(f, 100 * fmax(0, hi / lo * exp(-h) - 1),
						      100 * (hi / lo * exp(h) - 1), false);
				else
					interval_cell(f, hi / lo, h);
			} else {
				fputs("- | -", f);
			}
		} else {
			pair_gmean(d, in, c, &r);
			if (r.n)
				fprintf(f, "%+.1f%% (%.3fx) | ", 100 * (r.g - 1), r.g);
			else
				fputs("- | ", f);
			interval_cell(f, r.n ? r.g : NAN, r.hlog);
		}
		fputs(" | ", f);
		coverage(f, label, in, total, &r);
		fprintf(f, " | %s |\n", c->source);
	}
	fputs("\n**How computed.** \"A vs B: performance\" is the geometric mean over the "
	      "benchmarks of cycles(B) / cycles(A), minus 1; any other \"A vs B\" row is the "
	      "geometric mean of metric(A) / metric(B), minus 1 (the factor in parentheses). "
	      "A benchmark counts when both of its points ran (ok) and have the metric; one "
	      "where a value is 0 is left out and counted. TC-RC is TC-Weak under RC, TC-SC "
	      "TC-Strong under SC (the thesis' TC-SC), TC-W-SC TC-Weak under SC (the other SC "
	      "baseline; its rows take the paper's TC-SC figure, in parentheses, as the "
	      "nearest). The lease rows: for each lease from 8 to 20, the "
	      "geometric mean over the benchmarks of the metric normalized to lease 10 "
	      "(performance: cycles at lease 10 / cycles); the spread is the largest of these "
	      "over the smallest, minus 1 (the range in parentheses). Metrics: performance "
	      "`cycles`; memory stall cycles `memory_stall_cycles` (measured in detailed mode, "
	      "scaled from the detailed units in hybrid mode, absent in analytic mode); NoC "
	      "traffic `traffic_bytes`; energy `energy_j`; L1, L2, NoC energy "
	      "`energy.l1|l2|noc` dynamic + static; lease-expiry misses "
	      "`l1_lease_expired_misses` (loads that found the tag with its lease run out; lines "
	      "a write dropped, `l1_write_evict_drops`, are not counted). The paper's numbers are "
	      "its §3.8 text (thesis, "
	      "seed 001); it gives no per-benchmark G-TSC values.\n\n"
	      "**The 95% interval** comes from the points' half-widths (`cycles_half`, "
	      "`traffic_half`, `energy_half_j`): a point's value v ± h gives log v a half-width "
	      "h / v; the points are independent runs, so the squares add over the two points of "
	      "each ratio and over the benchmarks, and the geometric mean of n ratios has "
	      "exp(±sqrt(sum) / n); a spread combines its largest and smallest lease this way "
	      "(its lower end held at 0); an upper end beyond +999% is written >+999%. "
	      "`±0`: nothing estimated (detailed mode, or half-widths of 0); `n/a`: the metric "
	      "has no half-width in the result (memory stall cycles, the energy components, "
	      "lease-expiry misses).\n\n",
	      f);
}

static void write_lease_table(FILE *f, const struct data *d, const bool *sel)
{
	static const enum metric ms[] = {M_CYCLES, M_TRAFFIC, M_ENERGY, M_EXPIRY};
	double g[4][MAX_LEASES], hl[4][MAX_LEASES];
	struct agg r[4];
	unsigned ncount = 0;

	if (!d->nleases)
		return;
	for (int m = 0; m < 4; m++)
		lease_gmeans(d, sel, ms[m], LLONG_MIN, LLONG_MAX, g[m], hl[m], &r[m]);
	fprintf(
	    f,
	    "## The lease (G-TSC-RC), geometric means normalized to lease %lld\n\n"
	    "Renewals and timestamp resets: summed over the benchmarks that have them at every "
	    "lease (counted in the last row), from each point's statistics (`gtsc.renewals`: reads "
	    "the L2 answered "
	    "with a renewal; `gtsc.ts_resets`: timestamp overflow resets; both summed over the L2 "
	    "banks, as counted in the run).\n\n"
	    "| gtsc.lease | performance | NoC traffic | energy | lease-expiry misses | renewals "
	    "| timestamp resets |\n"
	    "|---|---|---|---|---|---|---|\n",
	    d->leases[d->base_lease]);
	for (int l = 0; l < d->nleases; l++) {
		double rn = 0, rs = 0;
		bool any = false;

		fprintf(f, "| %lld |", d->leases[l]);
		for (int m = 0; m < 4; m++) {
			if (r[m].n)
				factor_pm(f, g[m][l], hl[m][l]);
			else
				fputs(" -", f);
			fputs(" |", f);
		}
		ncount = 0;
		for (int b = 0; b < NBENCH; b++) {
			bool all = sel[b];

			for (int k = 0; k < d->nleases && all; k++) {
				const struct spt *p = find_lease(d, b, d->leases[k]);

				all = p && p->renewals >= 0;
			}
			if (!all)
				continue;
			rn += find_lease(d, b, d->leases[l])->renewals;
			rs += find_lease(d, b, d->leases[l])->resets;
			ncount++;
			any = true;
		}
		if (any)
			fprintf(f, " %.0f | %.0f |\n", rn, rs);
		else
			fputs(" - | - |\n", f);
	}
	fputs("| benchmarks |", f);
	for (int m = 0; m < 4; m++)
		fprintf(f, " %u |", r[m].n);
	fprintf(f, " %u | %u |\n\n", ncount, ncount);
}

/* The TC lease sweep's points, or set 1's G-TSC points: picks for gmean_of. */
struct tcpick {
	const char *config;
	long long lease;
};

static const struct spt *pick_tc(const struct data *d, int b, const void *arg)
{
	const struct tcpick *t = arg;

	return t->lease < 0 ? find(d, b, t->config) : find_tc(d, b, t->config, t->lease);
}

static void write_tclease_table(FILE *f, const struct data *d, const bool *sel)
{
	static const struct {
		const char *g, *tc;
	} pairs[] = {{"G-TSC-RC", "TC-RC"},
		     {"G-TSC-SC", "TC-SC"},
		     {"G-TSC-SC", "TC-W-SC"},
		     {"G-TSC-SC", "TC-RC"},
		     {"G-TSC-RC", "TC-RC-P"}};
	bool in[NBENCH];
	unsigned nmax = 0;

	if (!d->ntcleases)
		return;
	for (int i = 0; i < NBENCH; i++)
		in[i] = sel[i] && i < NSET1;
	fputs("## TC's lease: G-TSC's performance over TC's against tc.lease (set 1)\n\n"
	      "Each cell: the geometric mean over the set-1 benchmarks of cycles(TC at that "
	      "tc.lease) / cycles(G-TSC at its default lease, from set 1), minus 1, ± the 95% "
	      "half-width in percentage points (as the claims' intervals, to first order). "
	      "TC-RC: TC-Weak under RC; TC-SC: TC-Strong under SC (the thesis'); TC-W-SC: "
	      "TC-Weak under SC; TC-RC-P: TC-Weak under RC with the TC artifact's lifetime "
	      "predictor, tc.lease its start. The study's other tables use tc.lease = 800, the "
	      "default.\n\n"
	      "| tc.lease |",
	      f);
	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
		fprintf(f, " %s vs %s |", pairs[k].g, pairs[k].tc);
	fputs("\n|---|", f);
	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
		fputs("---|", f);
	fputs("\n", f);
	for (int l = 0; l < d->ntcleases; l++) {
		fprintf(f, "| %lld |", d->tcleases[l]);
		for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
			struct tcpick a = {pairs[k].g, -1}, b = {pairs[k].tc, d->tcleases[l]};
			struct agg r;

			gmean_of(d, in, M_CYCLES, true, pick_tc, &a, &b, &r);
			if (r.n)
				pct_pm(f, r.g, r.hlog);
			else
				fputs(" -", f);
			fputs(" |", f);
			if (r.n > nmax)
				nmax = r.n;
		}
		fputs("\n", f);
	}
	fprintf(f, "\nBenchmarks in each mean: up to %u of %u (those whose two points ran).\n\n",
		nmax, NSET1);
}

static void mcycles(FILE *f, const struct data *d, int b, const char *config)
{
	const struct spt *p = find(d, b, config);
	double v, h;

	if (value(p, M_CYCLES, &v)) {
		h = half_width(p, M_CYCLES);
		fprintf(f, " %.3f", v / 1e6);
		if (!isnan(h) && h > 0)
			fprintf(f, " ± %.3f", h / 1e6);
		fputs(" |", f);
	} else {
		fputs(" - |", f);
	}
}

/* Our TC/BL with its ± (first order, independent points), as the claims' intervals. */
static void our_ratio_cell(FILE *f, const struct data *d, int b)
{
	const struct spt *pb = find(d, b, "BL"), *pt = find(d, b, "TC-RC");
	double bl, tc;

	if (!value(pb, M_CYCLES, &bl) || !value(pt, M_CYCLES, &tc) || bl <= 0 || tc <= 0) {
		fputs(" - |", f);
		return;
	}
	factor_pm(f, tc / bl, sqrt(rel2(pb, M_CYCLES, bl) + rel2(pt, M_CYCLES, tc)));
	fputs(" |", f);
}

static void ratio_cell(FILE *f, double a, double b)
{
	if (a > 0 && b > 0)
		fprintf(f, " %.2f |", b / a);
	else
		fputs(" - |", f);
}

static void write_table32(FILE *f, const struct data *d, const bool *sel)
{
	fputs("## Table 3.2: absolute execution cycles (millions)\n\n"
	      "Ours: BL and TC-RC (TC-Weak under RC; the thesis does not say which TC its table "
	      "ran). The paper's: on the G-TSC simulator (GPGPU-Sim 3.2.2) and on the TC "
	      "simulator (GPGPU-Sim + Ruby/GEMS). The input sizes differ (the paper gives none): "
	      "compare the TC/BL columns. Ours carry the 95% half-width of a hybrid or analytic "
	      "estimate (± to first order for TC/BL).\n\n"
	      "| benchmark | BL ours | TC-RC ours | TC/BL ours | BL G-TSC sim | TC G-TSC sim | "
	      "TC/BL | BL TC sim | TC TC sim | TC/BL |\n"
	      "|---|---|---|---|---|---|---|---|---|---|\n",
	      f);
	for (int k = 0; k < NBENCH; k++) {
		const struct table32 *t = &table32[k];
		int b = study_bench_index(&study_gtsc, t->bench);

		if (!sel[b])
			continue;
		fprintf(f, "| %s |", t->bench);
		mcycles(f, d, b, "BL");
		mcycles(f, d, b, "TC-RC");
		our_ratio_cell(f, d, b);
		fprintf(f, " %.2f | %.2f |", t->bl_gtsc, t->tc_gtsc);
		ratio_cell(f, t->bl_gtsc, t->tc_gtsc);
		fprintf(f, " %.2f | %.2f |", t->bl_tc, t->tc_tc);
		ratio_cell(f, t->bl_tc, t->tc_tc);
		fputs("\n", f);
	}
	fputs("\n", f);
}

static void write_cycles(FILE *f, const struct data *d, const bool *sel)
{
	fputs("## Cycles of every point (± the hybrid or analytic mode's 95% half-width)\n\n"
	      "| benchmark | set |",
	      f);
	for (int c = 0; c < NCONFIG; c++)
		fprintf(f, " %s |", configs[c]);
	fputs("\n|---|---|", f);
	for (int c = 0; c < NCONFIG; c++)
		fputs("---|", f);
	fputs("\n", f);
	for (int b = 0; b < NBENCH; b++) {
		if (!sel[b])
			continue;
		fprintf(f, "| %s | %d |", bench[b], b < NSET1 ? 1 : 2);
		for (int c = 0; c < NCONFIG; c++) {
			const struct spt *p = find(d, b, configs[c]);
			double v, h;

			if (value(p, M_CYCLES, &v)) {
				fprintf(f, " %.0f", v);
				if (num_at(p->c.res, "cycles_half", NULL, NULL, &h) && h > 0)
					fprintf(f, " ± %.0f", h);
				fputs(" |", f);
			} else {
				fprintf(f, " %s |", p ? p->c.status : "-");
			}
		}
		fputs("\n", f);
	}
	fputs("\n", f);
}

/*
 * Every point of this study beside the same point of another (--against): cycles of both, the
 * other's relative error taking this one as the reference, and whether the two agree within
 * their 95% half-widths; then the mean and largest |error| per configuration.
 */
static void write_against(FILE *f, const struct data *d, const struct data *o)
{
	struct group {
		char name[48];
		double sum, max;
		unsigned n, within;
	} grp[NSWEEP * NCONFIG + 1];
	int ngrp = 0;

	fputs("## Beside another run of the study (--against)\n\n- the other run: mode ", f);
	study_distinct(f, o->r.root, NSWEEP, "mode");
	fputs("; workload size: ", f);
	study_distinct(f, o->r.root, NSWEEP, "size");
	fputs("\n\nerror = (cycles there - cycles here) / cycles here; within ±: |difference| <= "
	      "the sum of the two 95% half-widths (a detailed point's is 0). Points missing or "
	      "not ok in either run are left out.\n\n"
	      "| sweep | point | cycles here | cycles there | error | within ± |\n"
	      "|---|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < d->n; i++) {
		const struct spt *p = &d->p[i], *q = find_named(o, p->c.sweep, p->c.name);
		double a, b, ha, hb, e;
		bool within;
		char gname[48];
		int g;

		if (!value(p, M_CYCLES, &a) || !value(q, M_CYCLES, &b) || a <= 0)
			continue;
		ha = half_width(p, M_CYCLES);
		hb = half_width(q, M_CYCLES);
		ha = isnan(ha) ? 0 : ha;
		hb = isnan(hb) ? 0 : hb;
		e = (b - a) / a;
		within = fabs(b - a) <= ha + hb;
		fprintf(f, "| %s | %s | %.0f", sweeps[p->c.sweep].name, p->c.name, a);
		if (ha > 0)
			fprintf(f, " ± %.0f", ha);
		fprintf(f, " | %.0f", b);
		if (hb > 0)
			fprintf(f, " ± %.0f", hb);
		fprintf(f, " | %+.1f%% | %s |\n", 100 * e, within ? "yes" : "no");
		if (p->c.sweep == SW_LEASE)
			snprintf(gname, sizeof(gname), "G-TSC-RC (lease sweep)");
		else if (p->c.sweep == SW_TCLEASE)
			snprintf(gname, sizeof(gname), "%s (TC lease sweep)", p->c.config);
		else
			snprintf(gname, sizeof(gname), "%s", p->c.config);
		for (g = 0; g < ngrp; g++)
			if (strcmp(grp[g].name, gname) == 0)
				break;
		if (g == ngrp) {
			if (ngrp == (int)(sizeof(grp) / sizeof(grp[0])))
				continue;
			memset(&grp[ngrp], 0, sizeof(grp[0]));
			snprintf(grp[ngrp].name, sizeof(grp[0].name), "%s", gname);
			ngrp++;
		}
		grp[g].sum += fabs(e);
		grp[g].max = fmax(grp[g].max, fabs(e));
		grp[g].n++;
		grp[g].within += within;
	}
	fputs("\n| configuration | points | mean abs error | largest abs error | within ± |\n"
	      "|---|---|---|---|---|\n",
	      f);
	for (int g = 0; g < ngrp; g++)
		fprintf(f, "| %s | %u | %.1f%% | %.1f%% | %u of %u |\n", grp[g].name, grp[g].n,
			100 * grp[g].sum / grp[g].n, 100 * grp[g].max, grp[g].within, grp[g].n);
	if (!ngrp)
		fputs("| (no point ran in both) | 0 | - | - | - |\n", f);
	fputs("\n", f);
}

/* Writes the summary into a string; counts the points that did not run. */
static int summary_text(const struct study_opts *o, const void *data, const void *other_data,
			char **text, size_t *nbad)
{
	const struct data *d = data, *other = other_data;
	size_t len;
	FILE *f = open_memstream(text, &len);
	bool sel[NBENCH];

	if (!f)
		return -1;
	for (int i = 0; i < NBENCH; i++)
		sel[i] = o->sel[i];
	fputs("# The G-TSC study: `cohscope study gtsc`\n\n"
	      "The evaluation of the G-TSC thesis chapter (seed 001, thesis §3.7-3.8): set 1 "
	      "(needs coherence: bh cc dlb vpr stn bfs) and set 2 (no coherence needed: ge hs km "
	      "bp sgm ccp) under BL (no L1), W/L1 (a non-coherent GPU with L1; set 2), TC-RC "
	      "(TC-Weak, RC), TC-SC (TC-Strong, SC: the thesis' TC-SC), TC-W-SC (TC-Weak, SC), "
	      "G-TSC-RC and G-TSC-SC; G-TSC-RC with leases 1-1000; set 1 under the three TC "
	      "configurations with tc.lease 200-3200 (configs/studies/gtsc-*.sweep, "
	      "docs/study.md).\n\n",
	      f);
	*nbad = study_write_run(f, o, "configs/default.cfg", &d->r, d->p, d->n, sizeof(*d->p));
	write_claims(f, d, sel);
	write_table32(f, d, sel);
	write_lease_table(f, d, sel);
	write_tclease_table(f, d, sel);
	write_cycles(f, d, sel);
	if (other)
		write_against(f, d, other);
	fputs("## Figures (figs/)\n\n"
	      "Each is NAME.dat (the normalized table), NAME.gp (a gnuplot script) and, with "
	      "gnuplot, NAME.svg and NAME.png (docs/plots.md). Set 1 and set 2 bars are "
	      "normalized to BL, the lease bars to lease 10.\n\n",
	      f);
	for (size_t k = 0; k < sizeof(figures) / sizeof(figures[0]); k++) {
		char groups[512], nobar[512];

		fprintf(f, "- `figs/%s`: %s", figures[k].name, figures[k].title);
		if (!fig_groups(&figures[k], d, groups, sizeof(groups), nobar, sizeof(nobar)))
			fputs(": not drawn (no baseline point has the metric above 0)", f);
		else if (nobar[0])
			fprintf(f, "; no bar for %s", nobar);
		fputs("\n", f);
	}
	return fclose(f) ? -1 : 0;
}

/* ---- the figures ---------------------------------------------------------------------------- */

/*
 * The groups of a figure that have a bar (a benchmark whose baseline value is above 0 and
 * whose value in the group is there, above 0 for performance), as the value list of --where
 * in *where, and those that have none in *nobar (", "-separated). Returns how many have a bar;
 * 0 when the baseline has none (no figure). gnuplot draws no histogram with an empty column.
 */
static int fig_groups(const struct figure *fg, const struct data *d, char *where, size_t wlen,
		      char *nobar, size_t nlen)
{
	int ngroups = fg->lease ? d->nleases : NCONFIG, nbar = 0;
	bool base_bar = false;

	where[0] = nobar[0] = 0;
	for (int g = 0; g < ngroups; g++) {
		char name[32];
		bool bar = false;

		if (fg->lease)
			snprintf(name, sizeof(name), "%lld", d->leases[g]);
		else
			snprintf(name, sizeof(name), "%s", configs[g]);
		for (int b = 0; b < NBENCH && !bar; b++) {
			const struct spt *pb = fg->lease
						   ? find_lease(d, b, d->leases[d->base_lease])
						   : find(d, b, "BL");
			const struct spt *pg =
			    fg->lease ? find_lease(d, b, d->leases[g]) : find(d, b, configs[g]);
			double vb, vg;

			bar = value(pb, fg->m, &vb) && vb > 0 && value(pg, fg->m, &vg) &&
			      (vg > 0 || (vg == 0 && fg->m != M_CYCLES));
		}
		if (g == (fg->lease ? d->base_lease : 0))
			base_bar = bar;
		if (bar) {
			size_t l = strlen(where);

			snprintf(where + l, wlen - l, "%s%s", nbar ? "," : "", name);
			nbar++;
		} else {
			size_t l = strlen(nobar);

			snprintf(nobar + l, nlen - l, "%s%s", l ? ", " : "", name);
		}
	}
	return base_bar ? nbar : 0;
}

static int plot_figure(const struct figure *fg, const char *dir, const struct data *d)
{
	char *files[NSWEEP] = {NULL}, *prefix = xasprintf("%s/figs/%s", dir, fg->name);
	char *baseline = NULL, *where = NULL, groups[512], nobar[512];
	int nf = 0, status = 0;

	if (!fig_groups(fg, d, groups, sizeof(groups), nobar, sizeof(nobar)))
		goto out; /* summary.md says why */
	for (int k = 0; k < NSWEEP; k++)
		if (d->r.loaded[k] && (fg->lease ? k == SW_LEASE : k == SW_SET1 || k == SW_SET2)) {
			files[nf] = xasprintf("%s/%s/results.csv", dir, sweeps[k].name);
			if (!files[nf])
				break;
			nf++;
		}
	baseline = fg->lease ? xasprintf("%lld", d->leases[d->base_lease]) : strdup("BL");
	where = xasprintf("%s=%s", fg->lease ? "gtsc.lease" : "config", groups);
	if (!prefix || !baseline || !where || nf < (fg->lease ? 1 : 0) || (nf && !files[nf - 1])) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	status = study_plot(&(struct study_plot){
	    .files = (const char *const *)files,
	    .nfiles = nf,
	    .prefix = prefix,
	    .metric = fg->metric,
	    .title = fg->title,
	    .baseline = baseline,
	    .group_by = fg->lease ? "gtsc.lease" : NULL,
	    .where = nobar[0] ? where : NULL,
	});
out:
	for (int k = 0; k < nf; k++)
		free(files[k]);
	free(where);
	free(baseline);
	free(prefix);
	return status;
}

/* ---- the study ------------------------------------------------------------------------------ */

static size_t gtsc_npoints(const void *d)
{
	return ((const struct data *)d)->n;
}

static int gtsc_figure(const struct study_opts *o, const void *d, unsigned k)
{
	return plot_figure(&figures[k], o->output, d);
}

static const char *const gtsc_varied[] = {"coherence.protocol=", "core.consistency=", "gtsc.lease=",
					  "tc.lease=",		 "tc.lease_policy=",  NULL};

const struct study_def study_gtsc = {
    .name = "gtsc",
    .title = "the G-TSC study",
    .output = "study-gtsc",
    .bench = bench,
    .label = bench,
    .nbench = NBENCH,
    .sweeps = sweeps,
    .nsweeps = NSWEEP,
    .varied = gtsc_varied,
    .data_size = sizeof(struct data),
    .fill = data_load,
    .clear = data_free,
    .npoints = gtsc_npoints,
    .nfigures = sizeof(figures) / sizeof(figures[0]),
    .figure = gtsc_figure,
    .summary = summary_text,
};
