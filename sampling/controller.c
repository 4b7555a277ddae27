/*
 * sampling/controller.c - plans, unit pairs and estimates of the sampling controller (see the
 * header).
 */
#include "sampling/controller.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampling/estimator.h"
#include "util/error.h"

#define SC(f) offsetof(struct samp_cfg, f)
static const char *const pred_names[] = {"events", "rate", NULL};
static const char *const ff_names[] = {"never", "same_work", "always", "only", NULL};
static const char *const fill_names[] = {"lt", "ff", "auto", NULL};
static const struct cs_param samp_rows[] = {
    {"head", CS_P_UINT, SC(head), "50000", "cycles",
     "hybrid: detailed cycles a kernel without a prediction starts with; one that ends by "
     "then is measured whole (exact), a longer one drains and goes on sampled (0: none)",
     0, UINT32_MAX, NULL},
    {"first", CS_P_UINT, SC(first), "2000", "cycles",
     "hybrid: LT cycles (functional warming) before a kernel's first detailed unit", 0, UINT32_MAX,
     NULL},
    {"warmup", CS_P_UINT, SC(warmup), "1000", "cycles",
     "hybrid: detailed cycles before each unit, not measured (queues and MSHRs fill)", 0,
     UINT32_MAX, NULL},
    {"unit", CS_P_UINT, SC(unit), "3000", "cycles", "hybrid: detailed cycles measured per unit", 1,
     UINT32_MAX, NULL},
    {"period", CS_P_UINT, SC(period), "40000", "cycles", "hybrid: LT cycles between units", 1,
     UINT32_MAX, NULL},
    {"target", CS_P_DOUBLE, SC(target), "0.02", "",
     "hybrid: relative half-width of the interval at which a kernel stops taking units", 0, 1,
     NULL},
    {"confidence", CS_P_DOUBLE, SC(conf), "0.95", "", "confidence level of the intervals", 0.5,
     0.999, NULL},
    {"min_units", CS_P_UINT, SC(min_units), "3", "",
     "hybrid: units a kernel takes at least before the target may stop it", 1, 100000, NULL},
    {"quantum", CS_P_UINT, SC(quantum), "64", "cycles",
     "LT: how far warps run ahead of the kernel's time (temporal decoupling)", 1, 1000000, NULL},
    {"ff", CS_P_ENUM, SC(ff), "always", "",
     "hybrid: when later kernels of a steady group fast-forward (values only, the L2 warmed, "
     "predicted from the group's cycles per work in their stratum of work) instead of running "
     "in LT: never, same_work (its measured members did the same work within 1%: identical "
     "kernels) or always; only: every kernel in FF, no estimate (the host-time floor the "
     "bench compares against: values only, cycles 0)",
     0, 0, ff_names},
    {"warm", CS_P_BOOL, SC(warm), "true", "",
     "FF warms the L2: each line an FF op touches updates its bank's tags, replacement order "
     "and valid and dirty sectors as the access would, with no message and no time, so a "
     "kernel after FF ones meets the L2 they left (false: FF leaves the caches as it found "
     "them; the L1s start empty at every launch either way)",
     0, 0, NULL},
    {"stratum", CS_P_DOUBLE, SC(stratum), "0.1", "",
     "hybrid, sampling.ff: a group's FF members are predicted from its measured members of "
     "like work, within this fraction of the last member's work; with none there, the member "
     "is measured (launches whose work shrinks, as ge's, get a stratum every 10% of work)",
     0, 10, NULL},
    {"ff_run", CS_P_UINT, SC(ff_run), "8", "kernels",
     "hybrid, sampling.ff: after this many members of a group in FF in a row the next is "
     "measured, so that a group whose time drifts at like work (ge's Fan1: 1 651 to 1 386 "
     "cycles over 60 launches, all of 224 instructions) is followed (0: never)",
     0, 1000000, NULL},
    {"group_min", CS_P_UINT, SC(group_min), "2", "kernels",
     "hybrid: members of a group measured before later ones are predicted", 1, 1000, NULL},
    {"group_cv", CS_P_DOUBLE, SC(group_cv), "0.05", "",
     "hybrid: largest spread (coefficient of variation of cycles per instruction) of a group "
     "whose later members are predicted",
     0, 10, NULL},
    {"prior", CS_P_DOUBLE, SC(prior), "1.0", "",
     "relative half-width of an estimate with no detailed evidence behind it (a kernel with "
     "no unit in a run with none, an FF prediction from one member, the analytic mode's "
     "correction): the LT face's own error is unknown there, so the interval says so instead "
     "of +-0 (1.0: the time may be off by its own size)",
     0, 100, NULL},
    {"model_error", CS_P_DOUBLE, SC(model_error), "0.05", "",
     "hybrid: relative standard deviation of the error the corrected LT time keeps beyond "
     "sampling (the LT intervals' counts are not the detailed face's; measured by "
     "bench/hybrid), added in quadrature to the ratio's interval",
     0, 10, NULL},
    {"tail", CS_P_DOUBLE, SC(tail), "0.5", "",
     "hybrid: once a kernel has handed out all its CTAs and fewer than this fraction of the "
     "most warps it had resident remain, the rest of it (its tail) runs detailed: few warps "
     "are latency bound, which the LT intervals' bound does not see, and hold little work "
     "(0: never)",
     0, 1, NULL},
    {"mismatch", CS_P_DOUBLE, SC(mismatch), "1.5", "",
     "hybrid, predictor events: when the LT intervals' bound per work exceeds the units' by "
     "more than this factor and the units took more than this factor times their own bound, "
     "the LT face's counts are not the detailed face's (it fetches where the detailed face "
     "stalls on leases, say), and R scales the LT work instead of their bound: the units' "
     "cycles per work (0: never)",
     0, 1000, NULL},
    {"calibration", CS_P_STRING, SC(calibration), "", "",
     "calibration file (cohscope calibrate) the analytic mode corrects its time with", 0, 0, NULL},
    {"lt_exact", CS_P_BOOL, SC(lt_exact), "false", "",
     "tests: the LT face returns unloaded latencies only, no contention delay (the AT/LT "
     "equality test)",
     0, 0, NULL},
    {"fill", CS_P_ENUM, SC(fill), "lt", "",
     "hybrid: what runs between a kernel's units (and a kernel predicted from its group's "
     "units): lt (the loosely-timed face, every message sent; its time the units' ratio to "
     "its event bound) or ff (experimental: values only, the L2 warmed, the L1s emptied "
     "when it starts, sampling.retime LT cycles before each unit; its time the cycles per "
     "work of the units beside each fill, its NoC bytes theirs per work; 1.5x faster on the "
     "G-TSC RC suite at default size, but 8.1% mean error against lt's 4.4%: docs/hybrid.md). "
     "auto: ff for a kernel whose detailed phases so far issued at least sampling.ff_issue "
     "of the SMs' peak, lt for the others (memory-bound kernels and those that spin, where "
     "units after an FF fill are not in the detailed run's steady state). Protocols whose "
     "L1s hold registered copies (rsp, hlrc, denovo) and the CPU and APU systems keep lt",
     0, 0, fill_names},
    {"ff_issue", CS_P_DOUBLE, SC(ff_issue), "0.5", "",
     "hybrid, fill auto: the share of the SMs' peak issue (schedulers x SMs work per cycle) a "
     "kernel's detailed phases so far must reach for its fills to run in FF (km's "
     "kmeansPoint 0.82, ccp 1.0, sgm 0.64; km's invert_mapping 0.017, stn 0.39)",
     0, 1, NULL},
    {"retime", CS_P_UINT, SC(retime), "4000", "cycles",
     "hybrid, fill ff: LT cycles between an FF fill and a unit's warm-up. FF leaves every warp "
     "ready at once (no op of its waited for memory), so the detailed face would start with "
     "a burst of requests and a stall (stn: 2 000 cycles at a sixth of its rate); LT's timing "
     "spreads the warps again and fills the L1s (0: none)",
     0, UINT32_MAX, NULL},
    {"jitter", CS_P_DOUBLE, SC(jitter), "0", "",
     "hybrid: each unit starts at a seeded random offset (sim.seed) within this fraction of "
     "its period, the LT interval before it period x (1 - the last offset + its own): "
     "stratified sampling. Units at a fixed period alias with a program that repeats at a "
     "multiple of it: cpu_mp on the APU memory side takes three units in a row at one point "
     "of its rounds, +102% at period 40 000 (1: +11%, +52%, +16% with seeds 1-3, each in its "
     "interval). Off by default: on the GPU bench it moved kernels of few units both ways, "
     "mean |error| 3.41% -> 4.04%, max 19.8% -> 16.7% (docs/performance.md). 0: every unit "
     "a whole period after the last",
     0, 1, NULL},
    {"predictor", CS_P_ENUM, SC(predictor), "events", "",
     "hybrid: what predicts a unit and the LT time R scales: events (the bottleneck bound of "
     "each interval's own counts: per-SM issue, L2 bank, DRAM bus, NoC port; same-event pairs) "
     "or rate (the unit's work at the work rate of the LT interval before it)",
     0, 0, pred_names},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table samp_params = {
    .section = "sampling",
    .help = "hybrid and analytic modes: units, intervals, kernel groups, calibration",
    .params = samp_rows,
    .size = sizeof(struct samp_cfg),
};

const char *const samp_plan_names[] = {"sampled", "lt", "ff", "detailed", NULL};

struct darr {
	double *v;
	size_t n, cap;
};

static int darr_push(struct darr *a, double x)
{
	if (a->n == a->cap) {
		size_t c = a->cap ? a->cap * 2 : 16;
		double *v = realloc(a->v, c * sizeof(*v));

		if (!v)
			return -CS_ENOMEM;
		a->v = v;
		a->cap = c;
	}
	a->v[a->n++] = x;
	return 0;
}

struct samp_group {
	char name[64];
	unsigned ctas, warps;
	struct darr pred, meas; /* unit pairs of its members */
	struct darr uwork;	/* their units' work */
	struct darr cpi, bpi;	/* measured members: cycles and NoC bytes per instruction */
	struct darr work;	/* measured members: their work */
	double lt_cpi;		/* LT cycles per instruction of its last member run all in LT */
	double last_cycles;	/* its last member's estimated cycles */
	double last_work;	/* its last member's work (the next one's likely work) */
	unsigned ff_streak;	/* members run in FF since the last measured one */
	bool whole;  /* too short for units: its members are measured whole or predicted whole */
	int fill_ff; /* its last member's fill: 1 FF, 0 LT, -1 none yet */
};

struct samp {
	struct samp_cfg cfg;
	struct samp_group *g;
	unsigned ng, gcap;
	struct darr pred, meas; /* every unit of the run */
	struct darr uwork;	/* their work */
	/* the running kernel */
	int cur;
	unsigned plan;
	struct darr kpred, kmeas, kwork;
	struct darr kfill; /* FF fills' work, in order (samp_fill) */
	bool k_fill_ff;	   /* the running kernel fills with FF */
	unsigned units, sampled, skipped;
	double m_cycles, m_work; /* every measured member's cycles and work */
};

int samp_create(const struct samp_cfg *cfg, struct samp **out)
{
	struct samp *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -CS_ENOMEM;
	s->cfg = *cfg;
	s->cur = -1;
	*out = s;
	return 0;
}

static void darr_free(struct darr *a)
{
	free(a->v);
}

void samp_destroy(struct samp *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ng; i++) {
		darr_free(&s->g[i].pred);
		darr_free(&s->g[i].uwork);
		darr_free(&s->g[i].meas);
		darr_free(&s->g[i].cpi);
		darr_free(&s->g[i].bpi);
		darr_free(&s->g[i].work);
	}
	free(s->g);
	darr_free(&s->pred);
	darr_free(&s->meas);
	darr_free(&s->kpred);
	darr_free(&s->kmeas);
	darr_free(&s->kwork);
	darr_free(&s->kfill);
	darr_free(&s->uwork);
	free(s);
}

static double darr_sum(const struct darr *a)
{
	double t = 0;

	for (size_t i = 0; i < a->n; i++)
		t += a->v[i];
	return t;
}

/* Mean and coefficient of variation. */
static void mean_cv(const struct darr *a, double *mean, double *cv)
{
	double m = a->n ? darr_sum(a) / (double)a->n : 0, v = 0;

	for (size_t i = 0; i < a->n; i++)
		v += (a->v[i] - m) * (a->v[i] - m);
	v = a->n > 1 ? v / (double)(a->n - 1) : 0;
	*mean = m;
	*cv = m > 0 ? sqrt(v) / m : HUGE_VAL;
}

/* The group's last member ended before it could take two units after its head (LT, then
 * warm-up and unit, an LT period, another; a ratio needs two): its next members are measured
 * whole, their LT time predicted from the group's LT cycles per instruction. A member too
 * short for its own units would be predicted with a ratio from other kernels' units, which
 * need not hold for it (vpr's 60k-cycle kernels under TC-Strong were estimated 2.4x too
 * long). */
static bool group_too_short(const struct samp *s, const struct samp_group *g)
{
	double units = 2;
	double need = (double)s->cfg.head + (double)s->cfg.first +
		      units * (double)(s->cfg.warmup + s->cfg.unit) +
		      (units - 1) * (double)s->cfg.period;

	return g->last_cycles > 0 && g->last_cycles < need;
}

/* Pairs (predicted, measured) give R within the target, with at least min_units of them. */
static bool pairs_satisfied(const struct samp *s, const struct darr *pred, const struct darr *meas)
{
	struct est_result r;

	if (pred->n < s->cfg.min_units || pred->n < 2)
		return false;
	if (est_ratio(pred->v, meas->v, pred->n, darr_sum(pred), 0, s->cfg.conf, &r))
		return false;
	return r.rel_half <= s->cfg.target;
}

/* The group's pairs give R within the target (as samp_satisfied for a kernel's units). */
static bool group_satisfied(const struct samp *s, const struct samp_group *g)
{
	return pairs_satisfied(s, &g->pred, &g->meas);
}

/* The mean and coefficient of variation (0 for one) of `per` (cycles or bytes per work) over
 * the last group_min measured members in the stratum of work w (within sampling.stratum of it,
 * relative); false when the stratum is empty. The last ones: a group's first member, which
 * meets the caches of a program's start (ge's first Fan1 takes 2 863 cycles, the next ones
 * 1 650), does not keep its stratum from being steady. */
static bool stratum_mean(const struct samp *s, const struct samp_group *g, const struct darr *per,
			 double w, double *m, double *cv)
{
	double sum = 0, sq = 0;
	unsigned n = 0;

	for (size_t i = g->work.n; i-- > 0 && n < s->cfg.group_min;)
		if (fabs(g->work.v[i] - w) <= s->cfg.stratum * w) {
			sum += per->v[i];
			sq += per->v[i] * per->v[i];
			n++;
		}
	if (!n)
		return false;
	*m = sum / n;
	*cv = n > 1 && *m > 0 ? sqrt(fmax(0, (sq - n * *m * *m) / (n - 1))) / *m : 0;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The group's spread between members of like work, as a coefficient of variation: from the
 * relative differences d of cycles per work between measured members one after another in
 * each other's stratum (between any two after one another where no two are: ccp's launches
 * change work by 20% each, at like cycles per work), robustly (1.4826 median |d| / sqrt 2: one
 * outlier, such as a group's first member meeting the caches of a program's start, does not
 * set it). *pairs: how many d it rests on (0: group_cv, a prior). */
static double stratum_spread(const struct samp *s, const struct samp_group *g, unsigned *pairs)
{
	double *d, cv;
	unsigned n = 0;

	*pairs = 0;
	if (g->work.n < 2 || !(d = malloc((g->work.n - 1) * sizeof(*d))))
		return s->cfg.group_cv;
	for (int any = 0; any < 2 && !n; any++)
		for (size_t i = 1; i < g->work.n; i++)
			if (any ||
			    fabs(g->work.v[i] - g->work.v[i - 1]) <= s->cfg.stratum * g->work.v[i])
				d[n++] = fabs(g->cpi.v[i] - g->cpi.v[i - 1]) /
					 (0.5 * (g->cpi.v[i] + g->cpi.v[i - 1]));
	qsort(d, n, sizeof(*d), cmp_double);
	cv = 1.4826 * (n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2])) / sqrt(2.0);
	free(d);
	*pairs = n;
	return cv;
}

/*
 * An FF member's cycles and NoC bytes from its group's measured members of like work: the mean
 * cycles (bytes) per work of the last group_min members in its stratum times its work. The
 * interval: the spread of like members (stratum_spread) at the confidence level (Student t over
 * its pairs), the same relative width for the bytes.
 */
static void ff_predict(const struct samp *s, const struct samp_group *g, double w,
		       struct samp_estimate *e)
{
	double ws = w, cpi = 0, bpi = 0, cv, spread;
	unsigned pairs;

	if (!stratum_mean(s, g, &g->cpi, w, &cpi, &cv)) {
		/* its work left the stratum it was planned in (ccp's launches do 37 M to 59 M):
		 * the nearest measured member's stratum */
		ws = g->work.v[0];
		for (size_t i = 1; i < g->work.n; i++)
			if (fabs(g->work.v[i] - w) < fabs(ws - w))
				ws = g->work.v[i];
		(void)stratum_mean(s, g, &g->cpi, ws, &cpi, &cv);
	}
	(void)stratum_mean(s, g, &g->bpi, ws, &bpi, &cv);
	spread = stratum_spread(s, g, &pairs);
	spread *= est_t_quantile(s->cfg.conf, pairs ? pairs : 1000);
	e->cycles = cpi * w;
	e->half = spread * e->cycles;
	e->traffic = bpi * w;
	e->traffic_half = spread * e->traffic;
}

/* The group's later members fast-forward (sampling.ff). */
static bool group_ff(const struct samp *s, const struct samp_group *g)
{
	double m, cv;

	if (s->cfg.ff == SAMP_FF_ALWAYS || s->cfg.ff == SAMP_FF_ONLY)
		return true;
	if (s->cfg.ff == SAMP_FF_NEVER)
		return false;
	mean_cv(&g->work, &m, &cv);
	return g->work.n >= 2 && cv <= 0.01;
}

unsigned samp_kernel_begin(struct samp *s, const char *name, unsigned ctas, unsigned warps,
			   bool hybrid)
{
	struct samp_group *g = NULL;
	double m, cv;

	for (unsigned i = 0; i < s->ng; i++)
		if (s->g[i].ctas == ctas && s->g[i].warps == warps &&
		    !strncmp(s->g[i].name, name, sizeof(s->g[i].name) - 1)) {
			g = &s->g[i];
			break;
		}
	if (!g) {
		if (s->ng == s->gcap) {
			unsigned c = s->gcap ? s->gcap * 2 : 8;
			struct samp_group *ng = realloc(s->g, c * sizeof(*ng));

			if (!ng) {
				s->cur = -1;
				s->plan = SAMP_SAMPLE;
				return s->plan;
			}
			s->g = ng;
			s->gcap = c;
		}
		g = &s->g[s->ng++];
		memset(g, 0, sizeof(*g));
		snprintf(g->name, sizeof(g->name), "%s", name);
		g->ctas = ctas;
		g->warps = warps;
		g->fill_ff = -1;
	}
	s->cur = (int)(g - s->g);
	s->kpred.n = s->kmeas.n = s->kwork.n = s->kfill.n = 0;
	s->k_fill_ff = false;
	mean_cv(&g->cpi, &m, &cv);
	if (!hybrid)
		s->plan = SAMP_LT;
	else if (s->cfg.ff == SAMP_FF_ONLY)
		s->plan = SAMP_FF; /* the bench's floor: nothing measured, nothing estimated */
	else if (g->cpi.n >= s->cfg.group_min && group_ff(s, g)) {
		/* FF members are predicted from the measured members of their stratum of work (the
		 * last member's work stands for theirs): one with no measured member near its work
		 * (ge's shrinking launches) is measured, whole when the group's are short */
		double sm, scv;

		if (stratum_mean(s, g, &g->cpi, g->last_work, &sm, &scv) &&
		    scv <= s->cfg.group_cv && (!s->cfg.ff_run || g->ff_streak < s->cfg.ff_run)) {
			s->plan = SAMP_FF;
			g->ff_streak++;
		} else {
			s->plan = group_too_short(s, g) ? SAMP_AT : SAMP_SAMPLE;
			g->ff_streak = 0;
		}
	} else if (g->cpi.n >= s->cfg.group_min && cv <= s->cfg.group_cv && g->pred.n >= 2)
		/* LT needs the group's pairs to correct its time; without them (members measured
		 * whole) the short-kernel path below makes them */
		s->plan = SAMP_LT;
	else if (group_too_short(s, g)) {
		/* whole members: one in LT for the LT time per instruction, then detailed ones
		 * until the group's ratio is within the target, then LT with that ratio */
		s->plan = g->lt_cpi > 0 && !group_satisfied(s, g) ? SAMP_AT : SAMP_LT;
		g->whole = true;
	} else
		s->plan = SAMP_SAMPLE;
	return s->plan;
}

bool samp_kernel_long(const struct samp *s)
{
	const struct samp_group *g = s->cur >= 0 ? &s->g[s->cur] : NULL;

	return g && g->cpi.n && g->last_cycles > 2.0 * (double)s->cfg.head;
}

bool samp_kernel_whole(const struct samp *s)
{
	return s->cur >= 0 && s->plan == SAMP_LT && s->g[s->cur].whole;
}

void samp_unit(struct samp *s, double pred, double work, double meas)
{
	if (pred <= 0 || meas <= 0)
		return;
	s->units++;
	if (darr_push(&s->kpred, pred) || darr_push(&s->kmeas, meas) || darr_push(&s->kwork, work))
		return;
	/* the run's pairs are LT fills' (an FF fill's pair is work, not an event bound): with
	 * sampling.fill auto a run has both kinds */
	if (!s->k_fill_ff &&
	    (darr_push(&s->pred, pred) || darr_push(&s->meas, meas) || darr_push(&s->uwork, work)))
		return;
	if (s->cur >= 0) {
		darr_push(&s->g[s->cur].pred, pred);
		darr_push(&s->g[s->cur].meas, meas);
		darr_push(&s->g[s->cur].uwork, work);
	}
}

void samp_fill(struct samp *s, double work)
{
	darr_push(&s->kfill, work);
}

void samp_fill_set(struct samp *s, bool ff)
{
	s->k_fill_ff = ff;
	if (s->cur >= 0)
		s->g[s->cur].fill_ff = ff;
}

int samp_fill_hint(const struct samp *s)
{
	return s->cur >= 0 ? s->g[s->cur].fill_ff : -1;
}

/*
 * The FF fills' cycles from the units beside each (SMARTS' systematic sampling: a unit stands
 * for the fills around it): fill j, before unit j, at the cycles per work of units j-1 and j
 * together (the first at units 0 and 1's, the one after the last unit at the last two's). A
 * pooled ratio weighs the units by their work and times every fill alike: dlb's rate grows
 * 40-fold over its kernel, and the pooled ratio put it at -42%. The interval: the units'
 * successive differences of cycles per work (von Neumann), an interior fill's variance halved
 * (two units beside it), an end fill's whole.
 * false: no unit or the fills do not line up with them.
 */
static bool fills_local(const struct samp *s, const struct samp_kernel_facts *f, double *cycles,
			double *half)
{
	size_t n = s->kpred.n;
	double sum = 0, var = 0, d2 = 0, sd;

	if (!n || s->kfill.n != n + 1)
		return false;
	for (size_t j = 1; j < n; j++) {
		double a = s->kmeas.v[j - 1] / s->kpred.v[j - 1], b = s->kmeas.v[j] / s->kpred.v[j];

		d2 += (b - a) * (b - a);
	}
	sd = n > 1 ? sqrt(d2 / (2.0 * (double)(n - 1))) : 0;
	*cycles = 0;
	for (size_t j = 0; j <= n; j++) {
		double w = s->kfill.v[j], r;
		bool two = j > 0 && j < n;
		/* the two units beside it (at the ends, the two nearest), as a ratio of sums: a
		 * unit that did little work (dlb's) does not set it alone */
		size_t a = j == 0 ? 0 : j == n ? (n > 1 ? n - 2 : 0) : j - 1, b = a + (n > 1);

		r = (s->kmeas.v[a] + (b != a ? s->kmeas.v[b] : 0)) /
		    (s->kpred.v[a] + (b != a ? s->kpred.v[b] : 0));
		*cycles += w * r;
		var += w * w * sd * sd * (two ? 0.5 : 1.0);
		sum += w;
	}
	if (fabs(sum - f->lt_work) > 1e-6 * (sum + f->lt_work) + 1)
		return false;
	*half = n > 1 ? est_t_quantile(s->cfg.conf, (unsigned)(n - 1)) * sqrt(var) : HUGE_VAL;
	return true;
}

bool samp_satisfied(const struct samp *s)
{
	return pairs_satisfied(s, &s->kpred, &s->kmeas);
}

/* The LT intervals' counts are not the detailed face's (sampling.mismatch): their bound per
 * work exceeds the units' (pairs p, measured m, over work w) by more than the factor, and the
 * units took more than the factor times their bound (below). km's invert_mapping
 * under TC-Weak has 0.19 in its units and 3.0 in its LT slices (L2 sets full of leases stall
 * the detailed face; the LT face fetches and evicts instead), bfs 0.095 and 0.148. Fewer
 * events per work in LT is left to the bound: later, lighter phases and kernels (ge's shrinking
 * ones, 4x) have them too, and there the work would mislead. */
static bool lt_mismatch(const struct samp *s, const struct darr *p, const struct darr *m,
			const struct darr *w, const struct samp_kernel_facts *f)
{
	double pw = darr_sum(w), pb = darr_sum(p), rho_at, rho_lt;

	if (s->cfg.mismatch <= 0 || pw <= 0 || pb <= 0 || f->lt_work <= 0 || f->lt_cycles <= 0)
		return false;
	rho_at = pb / pw;
	rho_lt = f->lt_cycles / f->lt_work;
	/* and the units' time is not their bound: a detailed face that stalls where the LT face
	 * fetches takes far longer than its counts say (km's invert_mapping under TC-Weak: R
	 * about 33). Units that their bound explains (R near 1) saw no such stall, and the LT
	 * intervals' excess is phases they did not meet, which the bound follows: cc under the
	 * no-L1 baseline had three units at R = 1.08 and 0.092 bound per work, its LT intervals
	 * 0.147; scaled by work it was estimated -34.8%, by the bound +0.2% */
	return rho_lt > s->cfg.mismatch * rho_at && darr_sum(m) > s->cfg.mismatch * pb;
}

/* R and its relative half-width from the best evidence: the kernel's pairs, its group's,
 * the run's; *by_work: R is the units' cycles per work, to scale the LT work (the LT counts
 * do not match the units'). False when no pair stands behind R (1, or an FF fill's measured
 * rate, with the prior). */
static bool ratio_of(const struct samp *s, const struct samp_kernel_facts *f, double *R,
		     double *rel_half, bool *by_work)
{
	const struct darr *p[3], *m[3], *w[3];
	unsigned n = 0;

	*by_work = false;
	p[n] = &s->kpred;
	w[n] = &s->kwork;
	m[n++] = &s->kmeas;
	if (s->cur >= 0) {
		p[n] = &s->g[s->cur].pred;
		w[n] = &s->g[s->cur].uwork;
		m[n++] = &s->g[s->cur].meas;
	}
	if (!s->k_fill_ff) {
		p[n] = &s->pred;
		w[n] = &s->uwork;
		m[n++] = &s->meas;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct darr *x = p[i];
		struct est_result r;

		if (x->n < 2)
			continue;
		if (f && lt_mismatch(s, p[i], m[i], w[i], f)) {
			x = w[i];
			*by_work = true;
		}
		if (est_ratio(x->v, m[i]->v, x->n, darr_sum(x), 0, s->cfg.conf, &r)) {
			*by_work = false;
			continue;
		}
		*R = r.ratio;
		*rel_half = isfinite(r.rel_half) ? r.rel_half : 1.0;
		return true;
	}
	if (s->pred.n == 1 && !s->k_fill_ff) {
		*R = s->meas.v[0] / s->pred.v[0];
		*rel_half = fabs(*R - 1) > 0.02 ? fabs(*R - 1) : 0.02;
		return true;
	}
	*R = 1;
	*rel_half = s->cfg.prior; /* no unit at all: the LT model's own time, error unknown */
	if (s->k_fill_ff && s->m_work > 0)
		*R = s->m_cycles / s->m_work; /* an FF fill has no time: measured kernels' rate */
	return false;
}

/* A member measured in the detailed face (whole, or sampled with units) describes its group:
 * its cycles and bytes per work, and its work. */
static void group_add_measured(struct samp *s, struct samp_group *g,
			       const struct samp_kernel_facts *f, double cycles)
{
	if (f->insts <= 0 || cycles <= 0)
		return;
	s->m_cycles += cycles;
	s->m_work += f->insts;
	darr_push(&g->cpi, cycles / f->insts);
	darr_push(&g->bpi, f->traffic / f->insts);
	darr_push(&g->work, f->insts);
}

void samp_kernel_end(struct samp *s, const struct samp_kernel_facts *f, struct samp_estimate *e)
{
	struct samp_group *g = s->cur >= 0 ? &s->g[s->cur] : NULL;

	memset(e, 0, sizeof(*e));
	e->plan = s->plan;
	e->units = (unsigned)s->kpred.n;
	e->traffic = f->traffic;
	if (g && f->insts > 0)
		g->last_work = f->insts;
	if (s->plan == SAMP_AT && g) {
		/* measured whole: one unit, paired with the group's LT time per instruction */
		samp_unit(s, g->lt_cpi * f->insts, f->insts, f->at_cycles);
		e->units = (unsigned)s->kpred.n;
		e->cycles = f->at_cycles;
		e->ratio = 1;
		s->sampled++;
		g->last_cycles = e->cycles;
		group_add_measured(s, g, f, e->cycles);
		return;
	}
	if (s->plan == SAMP_SAMPLE && f->at_cycles > 0 && f->lt_cycles == 0 && f->ff_cycles == 0) {
		/* ended within its detailed head: measured whole, exact */
		e->cycles = f->at_cycles;
		e->ratio = 1;
		e->plan = SAMP_AT;
		s->sampled++;
		if (g) {
			g->last_cycles = e->cycles;
			group_add_measured(s, g, f, e->cycles);
		}
		return;
	}
	/* FF, or LT in a group with no pairs to correct the LT time (its members measured whole,
	 * by the head): the group's cycles per work */
	if ((s->plan == SAMP_FF || (s->plan == SAMP_LT && g && g->pred.n < 2 && !s->kpred.n)) &&
	    g && g->cpi.n) {
		struct est_result r;
		double cpi, bpi, cv;

		if (s->plan == SAMP_LT && f->at_cycles == 0 && f->lt_cycles > 0 && f->insts > 0)
			g->lt_cpi = f->lt_cycles / f->insts;

		e->ratio = 0;
		s->skipped++;
		if (s->plan == SAMP_FF && g->cpi.n >= 2) {
			/* from the members of like work; FF counts no messages: their bytes too */
			ff_predict(s, g, f->insts, e);
			return;
		}
		/* the group's mean cycles (and bytes) per instruction, its spread the interval */
		mean_cv(&g->cpi, &cpi, &cv);
		e->cycles = cpi * f->insts;
		/* one member gives no spread: the prior, never +-0 */
		if (est_mean(g->cpi.v, g->cpi.n, s->cfg.conf, &r) || !isfinite(r.half))
			e->half = s->cfg.prior * e->cycles;
		else
			e->half = r.half * f->insts;
		if (s->plan == SAMP_FF) {
			mean_cv(&g->bpi, &bpi, &cv);
			e->traffic = bpi * f->insts;
			e->traffic_half = isfinite(cv) ? cv * e->traffic : e->traffic;
		} else {
			g->last_cycles = e->cycles;
		}
		return;
	}
	{
		double R, rel, lt, fc, fh;
		bool by_work, paired;

		paired = ratio_of(s, f, &R, &rel, &by_work);
		lt = by_work ? f->lt_work : f->lt_cycles;
		if (!paired && f->lt_time > 0 && !s->k_fill_ff)
			lt = f->lt_time; /* R 1: the LT face's own time (a bound is not a time) */
		if (s->k_fill_ff && lt > 0 && fills_local(s, f, &fc, &fh) && fc > 0) {
			/* R stands for the fills' cycles per work beside their units */
			R = fc / lt;
			rel = isfinite(fh) ? fh / fc : rel;
		}
		if (!s->kpred.n && f->at_cycles == 0 && f->lt_factor > 0) {
			R = f->lt_factor; /* analytic: the calibration's correction */
			rel = s->cfg.prior;
			by_work = false;
			lt = f->lt_cycles;
		}
		if (s->cfg.model_error > 0) {
			double z = est_t_quantile(s->cfg.conf, 1000) * s->cfg.model_error;

			rel = sqrt(rel * rel + z * z);
		}
		e->ratio = R;
		e->by_work = by_work;
		e->cycles = f->at_cycles + R * lt;
		e->half = rel * R * lt;
	}
	if (g) {
		g->last_cycles = e->cycles;
		if (f->at_cycles == 0 && f->lt_cycles > 0 && f->insts > 0)
			g->lt_cpi = f->lt_cycles / f->insts;
	}
	if (!(s->plan == SAMP_SAMPLE && s->kpred.n)) {
		s->skipped++;
		return;
	}
	s->sampled++;
	/* only measured members describe the group: a predicted one would confirm itself */
	if (g)
		group_add_measured(s, g, f, e->cycles);
}

void samp_counts(const struct samp *s, unsigned *units, unsigned *sampled, unsigned *skipped)
{
	*units = s->units;
	*sampled = s->sampled;
	*skipped = s->skipped;
}
