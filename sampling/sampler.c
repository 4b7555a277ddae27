/*
 * sampling/sampler.c - the phase machine of the sampling layer (see the header).
 */
#include "sampling/sampler.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "tlm/system/system.h"
#include "util/error.h"
#include "util/hostperf.h"

/* Where a kernel is: its phases, and the face each runs the initiators on. */
/* PH_RETIME: after an FF fill, LT cycles that give the warps back the spread over the
 * kernel's phases FF took from them (and fill the L1s), before a unit's warm-up. */
enum samp_phase {
	PH_NONE = 0,
	PH_LT,
	PH_WARM,
	PH_UNIT,
	PH_DRAIN,
	PH_FF,
	PH_AT,
	PH_HEAD,
	PH_RETIME
};

struct samp_ini {
	const struct samp_initiator_ops *ops;
	void *obj;
};

struct sampler {
	struct sim_kernel *k;
	gsl_rng *rng;	 /* the units' offsets (sampling.jitter), seeded by sim.seed */
	double unit_off; /* the last unit's offset, a fraction of the period */
	const struct sim_clock *clk;
	struct samp_cfg cfg;
	unsigned mode; /* enum cs_mode */
	struct samp *ctl;
	const struct samp_system_ops *sys_ops;
	void *sys;
	struct samp_ini *ini;
	unsigned n, cap;

	bool in_kernel;
	unsigned phase;	    /* enum samp_phase */
	uint64_t phase_gen; /* stale ticks are ignored */
	sim_time_t phase_start;
	double phase_work;		  /* work at phase_start */
	double phase_bytes;		  /* NoC bytes at phase_start */
	double k_at, k_lt, k_ff, k_drain; /* this kernel's ps per face */
	double k_work0, k_traffic0;
	double lt_rate; /* work per cycle of the LT interval before a unit */
	bool headed;	/* the drain ends the kernel's head, not a unit */
	double tot_at_ps, tot_ps;
	struct samp_host_faces host;
	/* same-event pairs: the counts at the phase's start, the kernel's LT intervals' bound */
	struct samp_events ev;
	double *ev0, *ev1;
	double k_lt_bound;
	double k_lt_work;	 /* work done in the kernel's LT phases */
	double unit_work, units; /* the run's units: their work, their number */
	double wall_mark;	 /* wall seconds at the last phase change */
	unsigned peak_occ;	 /* the kernel's most resident warps so far */
	/* the fill between units: LT, or FF (sampling.fill), whose length is work, not time;
	 * the run's choice (enum samp_fill) and the running kernel's face */
	unsigned fill_mode;
	unsigned fill_face;
	double fill_end;	    /* FF fill: work at which the fill ends (0: its tail's watch) */
	double at_work, at_cyc;	    /* the run's detailed phases: work and cycles */
	double at_bytes;	    /* and NoC bytes */
	double k_at_work, k_at_cyc; /* the kernel's */
	double k_at_bytes;
	double seg_work;  /* FF fill: work of the fill (and retiming) since the last unit */
	double k_rt_work; /* the kernel's retiming work (LT: its messages are counted) */
	double unit_rate; /* work per cycle of the kernel's last unit (0: none yet) */
};

/* enum samp_face of a phase: what the simulation ran on during it */
static int phase_face(const struct sampler *s, unsigned phase)
{
	switch (phase) {
	case PH_LT:
		return (int)s->fill_face;
	case PH_RETIME:
		return SAMP_FACE_LT;
	case PH_FF:
		return SAMP_FACE_FF;
	case PH_NONE:
		return -1;
	default:
		return SAMP_FACE_AT; /* drains included: the detailed face runs them */
	}
}

int sampler_create(struct sim_kernel *k, const struct sim_clock *clk, const struct samp_cfg *cfg,
		   unsigned mode, const struct samp_system_ops *sys_ops, void *sys,
		   struct sampler **out)
{
	struct sampler *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -CS_ENOMEM;
	s->k = k;
	s->clk = clk;
	s->cfg = *cfg;
	s->mode = mode;
	s->sys_ops = sys_ops;
	s->sys = sys;
	s->wall_mark = cs_wall_seconds();
	s->fill_mode = mode == CS_MODE_HYBRID ? cfg->fill : SAMP_FILL_LT;
	s->fill_face = SAMP_FACE_LT;
	if (mode == CS_MODE_HYBRID && cfg->jitter > 0) {
		s->rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!s->rng)
			goto fail;
		gsl_rng_set(s->rng, (unsigned long)(cfg->seed ^ (cfg->seed >> 32)));
	}
	if (samp_create(cfg, &s->ctl))
		goto fail;
	*out = s;
	return 0;
fail:
	if (s->rng)
		gsl_rng_free(s->rng);
	free(s);
	return -CS_ENOMEM;
}

void sampler_destroy(struct sampler *s)
{
	if (!s)
		return;
	samp_destroy(s->ctl);
	if (s->rng)
		gsl_rng_free(s->rng);
	free(s->ev0);
	free(s->ev1);
	free(s->ini);
	free(s);
}

int sampler_add_initiator(struct sampler *s, const struct samp_initiator_ops *ops, void *obj)
{
	if (s->n == s->cap) {
		unsigned c = s->cap ? s->cap * 2 : 16;
		struct samp_ini *ni = realloc(s->ini, c * sizeof(*ni));

		if (!ni)
			return -CS_ENOMEM;
		s->ini = ni;
		s->cap = c;
	}
	s->ini[s->n++] = (struct samp_ini){.ops = ops, .obj = obj};
	return 0;
}

int sampler_set_events(struct sampler *s, const struct samp_events *ev)
{
	unsigned n = evb_len(&ev->layout);

	s->ev = *ev;
	s->ev0 = calloc(n ? n : 1, sizeof(*s->ev0));
	s->ev1 = calloc(n ? n : 1, sizeof(*s->ev1));
	return s->ev0 && s->ev1 ? 0 : -CS_ENOMEM;
}

int sampler_ready(const struct sampler *s, const char *where, const char *system,
		  struct cs_err *err)
{
	if (s->mode != CS_MODE_HYBRID || s->cfg.predictor != SAMP_PRED_EVENTS || s->ev0)
		return 0;
	return cs_err_set(err, -CS_ECONFIG,
			  "%s: system %s gives no event counters for same-event pairs; set "
			  "sampling.predictor = \"rate\"",
			  where, system);
}

/* Same-event pairs are on: hybrid mode, predictor events, the system gave its counters, and
 * the fill is LT (FF counts no message: its intervals are predicted by their work). */
static bool events_on(const struct sampler *s)
{
	return s->mode == CS_MODE_HYBRID && s->cfg.predictor == SAMP_PRED_EVENTS && s->ev0 &&
	       s->fill_face == SAMP_FACE_LT;
}

static bool fill_ff(const struct sampler *s)
{
	return s->fill_face == SAMP_FACE_FF;
}

/* The bound of the interval since the phase's start, in cycles (counts read into ev1). */
static double events_bound(struct sampler *s)
{
	s->ev.counts(s->sys, s->ev1);
	return evb_cycles(&s->ev.layout, s->ev0, s->ev1);
}

/* The counts last read start the next interval. */
static void events_restart(struct sampler *s)
{
	memcpy(s->ev0, s->ev1, evb_len(&s->ev.layout) * sizeof(*s->ev0));
}

static void slice_probe(struct sim_kernel *k, void *obj, void *arg);
static void to_tail(struct sampler *s);

static unsigned occupancy_of(const struct sampler *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->n; i++)
		n += s->ini[i].ops->occupancy ? s->ini[i].ops->occupancy(s->ini[i].obj) : 0;
	return n;
}

/* The kernel is in its tail (sampling.tail): all its work handed out and its resident warps
 * fallen below the fraction of their peak. Hybrid mode only: analytic mode has no AT. */
static bool in_tail(struct sampler *s)
{
	unsigned occ;

	if (s->mode != CS_MODE_HYBRID || s->cfg.tail <= 0 || !s->sys_ops->all_started ||
	    samp_kernel_whole(s->ctl))
		return false;
	occ = occupancy_of(s);
	if (occ > s->peak_occ)
		s->peak_occ = occ;
	return s->sys_ops->all_started(s->sys) && (double)occ < s->cfg.tail * (double)s->peak_occ;
}

/* The next slice probe, a quarter unit of LT time on (arg: the phase's generation). */
static void slice_schedule(struct sampler *s, void *arg)
{
	sim_schedule(s->k,
		     sim_clock_delay(s->clk, sim_now(s->k), s->cfg.unit / 4 ? s->cfg.unit / 4 : 1),
		     slice_probe, s, arg);
}

static void samp_tick(struct sim_kernel *k, void *obj, void *arg);

/* An LT interval is bounded in slices of a unit's mean work, not whole: the bound (a maximum
 * over resources) of a long interval mixes its phases and falls below the sum of its parts',
 * so bounds of unit-sized units and of whole LT intervals would not compare. Slices are cut
 * by work, not by LT time, which is not the detailed time. Probed every quarter unit. */
static void slice_probe(struct sim_kernel *k, void *obj, void *arg)
{
	struct sampler *s = obj;
	double w = 0, want;

	(void)k;
	if ((uint64_t)(uintptr_t)arg != s->phase_gen || s->phase != PH_LT)
		return;
	if (in_tail(s)) {
		to_tail(s);
		return;
	}
	if (!events_on(s) || !s->units) {
		slice_schedule(s, arg);
		return;
	}
	s->ev.counts(s->sys, s->ev1);
	for (unsigned i = 0; i < s->ev.layout.n[EVB_ISSUE]; i++)
		w += s->ev1[i] - s->ev0[i];
	want = s->unit_work / s->units;
	if (w >= want) {
		s->k_lt_bound += evb_cycles(&s->ev.layout, s->ev0, s->ev1);
		events_restart(s);
	}
	slice_schedule(s, arg);
}

static double work_of(const struct sampler *s)
{
	double n = 0;

	for (unsigned i = 0; i < s->n; i++)
		n += (double)s->ini[i].ops->work(s->ini[i].obj);
	return n;
}

static void faces_set(struct sampler *s, unsigned face)
{
	for (unsigned i = 0; i < s->n; i++)
		s->ini[i].ops->set_face(s->ini[i].obj, face);
}

unsigned sampler_face(const struct sampler *s)
{
	return s->phase == PH_LT ? s->fill_face : s->phase == PH_FF ? SAMP_FACE_FF : SAMP_FACE_AT;
}

/* The current phase ends at t: its time goes to its face's account. */
static void phase_close(struct sampler *s, sim_time_t t)
{
	double d = t > s->phase_start ? (double)(t - s->phase_start) : 0;
	double wall = cs_wall_seconds(), work = work_of(s), bytes = s->sys_ops->traffic(s->sys);
	int face = phase_face(s, s->phase);

	if (face >= 0) {
		s->host.seconds[face] += wall - s->wall_mark;
		s->host.sim_ps[face] += d;
		s->host.work[face] += work - s->phase_work;
	} else {
		s->host.host_side_s += wall - s->wall_mark;
	}
	s->wall_mark = wall;
	if (events_on(s)) {
		double b = events_bound(s);

		if (s->phase == PH_LT)
			s->k_lt_bound += b;
		events_restart(s);
	}

	if (face == SAMP_FACE_AT) {
		/* the detailed face's rates: an FF fill's length, its traffic (drains: the
		 * units' messages arriving) */
		if (s->phase != PH_DRAIN) {
			s->k_at_work += work - s->phase_work;
			s->k_at_cyc += d / (double)sim_clock_period_ps(s->clk);
		}
		s->k_at_bytes += bytes - s->phase_bytes;
	}
	switch (s->phase) {
	case PH_LT:
		s->k_lt += d;
		s->k_lt_work += work - s->phase_work;
		s->seg_work += work - s->phase_work;
		break;
	case PH_RETIME:
		s->k_lt_work += work - s->phase_work; /* the fill's, at the units' rate */
		s->seg_work += work - s->phase_work;
		s->k_rt_work += work - s->phase_work;
		break;
	case PH_WARM:
	case PH_UNIT:
	case PH_AT:
	case PH_HEAD:
		s->k_at += d;
		break;
	case PH_DRAIN:
		s->k_drain += d;
		break;
	case PH_FF:
		s->k_ff += d;
		break;
	default:
		break;
	}
	s->phase_start = t;
	s->phase_work = work;
	s->phase_bytes = bytes;
}

/* Work per detailed cycle (drains left out): the kernel's detailed phases, else the run's; 0
 * when nothing has run detailed yet. */
static double at_rate(const struct sampler *s)
{
	if (s->unit_rate > 0)
		return s->unit_rate; /* the latest: rates drift (dlb's grows 40-fold) */
	if (s->k_at_cyc > 0 && s->k_at_work > 0)
		return s->k_at_work / s->k_at_cyc;
	if (s->at_cyc > 0 && s->at_work > 0)
		return s->at_work / s->at_cyc;
	return 0;
}

/* NoC bytes per work of the detailed face (drains in: they carry the units' answers): the
 * kernel's, else the run's. */
static double at_bytes_per_work(const struct sampler *s)
{
	if (s->k_at_work > 0)
		return s->k_at_bytes / s->k_at_work;
	return s->at_work > 0 ? s->at_bytes / s->at_work : 0;
}

/* The SMs' peak work per cycle (every scheduler issuing), from the event layout; 0: none. */
static double peak_rate(const struct sampler *s)
{
	const struct evb_layout *l = &s->ev.layout;

	return s->ev0 && l->cycles[EVB_ISSUE] > 0 ? l->n[EVB_ISSUE] / l->cycles[EVB_ISSUE] : 0;
}

/* sampling.fill auto, before a sampled kernel's first fill: FF when its detailed phases so far
 * (its head) issued at least sampling.ff_issue of the peak, else its group's last choice,
 * else LT. */
static void fill_decide(struct sampler *s)
{
	bool ff;

	if (s->fill_mode != SAMP_FILL_AUTO)
		return;
	if (s->k_at_cyc > 0 && peak_rate(s) > 0)
		ff = s->k_at_work / s->k_at_cyc >= s->cfg.ff_issue * peak_rate(s);
	else
		ff = samp_fill_hint(s->ctl) > 0;
	s->fill_face = ff ? SAMP_FACE_FF : SAMP_FACE_LT;
	samp_fill_set(s->ctl, ff);
}

/* The initiators onto the kernel's fill face (an FF fill's warps timed by their work). */
static void fill_faces_set(struct sampler *s)
{
	if (s->fill_face == SAMP_FACE_FF && s->sys_ops->ff_timing)
		s->sys_ops->ff_timing(s->sys, true);
	faces_set(s, s->fill_face);
}

static void fill_probe(struct sim_kernel *k, void *obj, void *arg);

/* The FF fill's next look at its work and the tail, a quantum of FF time on: FF's time (its
 * warps' work) says nothing of the detailed time the fill stands for. */
static void fill_schedule(struct sampler *s, void *arg)
{
	sim_schedule(s->k, sim_clock_delay(s->clk, sim_now(s->k), s->cfg.quantum), fill_probe, s,
		     arg);
}

/* What watches a fill with no set end: its tail. */
static void fill_watch(struct sampler *s)
{
	void *gen = (void *)(uintptr_t)s->phase_gen;

	if (fill_ff(s))
		fill_schedule(s, gen);
	else
		slice_schedule(s, gen);
}

static void fill_probe(struct sim_kernel *k, void *obj, void *arg)
{
	struct sampler *s = obj;

	if ((uint64_t)(uintptr_t)arg != s->phase_gen || s->phase != PH_LT)
		return;
	if (in_tail(s)) {
		to_tail(s);
		return;
	}
	if (s->fill_end > 0 && work_of(s) >= s->fill_end) {
		samp_tick(k, s, arg); /* the fill is over: a unit */
		return;
	}
	fill_schedule(s, arg);
}

/* The next phase; `cycles` of it (0: until something else ends it). An FF fill lasts the work
 * the detailed face does in `cycles`. */
static void phase_next(struct sampler *s, unsigned phase, uint64_t cycles)
{
	sim_time_t now = sim_now(s->k);

	phase_close(s, now);
	s->phase = phase;
	s->phase_gen++;
	if (phase == PH_LT && fill_ff(s)) {
		double r = at_rate(s);

		s->fill_end = cycles && r > 0 ? s->phase_work + r * (double)cycles : 0;
		if (s->fill_end > 0)
			cycles = 0;
	}
	if (cycles)
		sim_schedule_at(s->k, now + sim_clock_delay(s->clk, now, cycles),
				SIM_PRIO_DEFAULT + 2, samp_tick, s,
				(void *)(uintptr_t)s->phase_gen);
	if (phase == PH_LT && s->mode == CS_MODE_HYBRID)
		fill_watch(s);
}

/* The rest of the kernel runs detailed (its tail). */
static void to_tail(struct sampler *s)
{
	faces_set(s, SAMP_FACE_AT); /* first: work FF counted ahead goes back (its phase's) */
	phase_next(s, PH_AT, 0);
}

/* A drain is over and the kernel's tail has begun: the detailed face goes on. */
static void tail_after_drain(struct sampler *s)
{
	phase_next(s, PH_AT, 0);
	for (unsigned i = 0; i < s->n; i++)
		s->ini[i].ops->hold(s->ini[i].obj, false);
}

static bool lt_settled(const struct sampler *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->ini[i].ops->lt_settled && !s->ini[i].ops->lt_settled(s->ini[i].obj))
			return false;
	return true;
}

static bool drained(const struct sampler *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->ini[i].ops->busy(s->ini[i].obj))
			return false;
	return s->sys_ops->idle(s->sys);
}

/* LT cycles to the next unit: a period, or with sampling.jitter the rest of the last unit's
 * period and the next unit's offset within its own (stratified: each period holds one unit at
 * a uniform point of its first `jitter` part) */
static uint64_t unit_gap(struct sampler *s)
{
	double off, gap;

	if (!s->rng)
		return s->cfg.period;
	off = s->cfg.jitter * gsl_rng_uniform(s->rng);
	gap = (double)s->cfg.period * (1.0 - s->unit_off + off);
	s->unit_off = off;
	return gap >= 1 ? (uint64_t)gap : 1;
}

static void samp_tick(struct sim_kernel *k, void *obj, void *arg)
{
	struct sampler *s = obj;
	sim_time_t now = sim_now(k);
	double cyc = (double)sim_clock_period_ps(s->clk);

	if ((uint64_t)(uintptr_t)arg != s->phase_gen || !s->in_kernel)
		return;
	switch (s->phase) {
	case PH_LT: {
		/* LT interval over: its work rate predicts the unit to come */
		double work = work_of(s) - s->phase_work;
		double t = (double)(now - s->phase_start) / cyc;

		s->lt_rate = t > 0 ? work / t : 0;
		if (fill_ff(s) && s->cfg.retime) {
			faces_set(s, SAMP_FACE_LT);
			phase_next(s, PH_RETIME, s->cfg.retime);
			break;
		}
		faces_set(s, SAMP_FACE_AT); /* before: FF's compute owed back is the fill's */
		phase_next(s, PH_WARM, s->cfg.warmup ? s->cfg.warmup : 1);
		break;
	}
	case PH_RETIME:
		faces_set(s, SAMP_FACE_AT);
		phase_next(s, PH_WARM, s->cfg.warmup ? s->cfg.warmup : 1);
		break;
	case PH_WARM:
		/* the unit starts once the LT face's answers are in: they come at its times,
		 * outside the detailed queues, and would add to the unit's throughput what the
		 * detailed memory did not carry (chai_rscd's TCP misses take 17 264 cycles
		 * detailed, its units had 1 000 of warm-up) */
		if (!lt_settled(s)) {
			sim_schedule(k, 16 * (sim_time_t)cyc, samp_tick, s,
				     (void *)(uintptr_t)s->phase_gen);
			return;
		}
		phase_next(s, PH_UNIT, s->cfg.unit);
		break;
	case PH_HEAD:
		if (in_tail(s)) {
			phase_next(s, PH_AT, 0); /* already detailed: it stays so */
			break;
		}
		/* a long kernel: drain, then sampled */
		s->headed = true;
		phase_next(s, PH_DRAIN, 0);
		for (unsigned i = 0; i < s->n; i++)
			s->ini[i].ops->hold(s->ini[i].obj, true);
		goto drain;
	case PH_UNIT: {
		double work = work_of(s) - s->phase_work;
		double t = (double)(now - s->phase_start) / cyc;

		if (events_on(s)) {
			samp_unit(s->ctl, events_bound(s), work, t); /* the same bound as LT's */
			/* slices are cut by the issue counts the bound reads (spin tries in) */
			for (unsigned i = 0; i < s->ev.layout.n[EVB_ISSUE]; i++)
				s->unit_work += s->ev1[i] - s->ev0[i];
			s->units++;
		} else if (fill_ff(s)) {
			samp_fill(s->ctl, s->seg_work);
			s->seg_work = 0;
			samp_unit(s->ctl, work, work, t); /* FF fills are predicted by work */
			s->unit_rate = t > 0 ? work / t : 0;
		} else if (s->lt_rate > 0) /* a unit that did no work is one too */
			samp_unit(s->ctl, work / s->lt_rate, work, t);
		phase_next(s, PH_DRAIN, 0);
		for (unsigned i = 0; i < s->n; i++)
			s->ini[i].ops->hold(s->ini[i].obj, true);
		/* the drain may be over at once */
	}
	/* fall through */
	case PH_DRAIN:
	drain:
		if (!drained(s)) {
			sim_schedule(k, 4 * (sim_time_t)cyc, samp_tick, s,
				     (void *)(uintptr_t)s->phase_gen);
			return;
		}
		if (in_tail(s)) {
			s->headed = false;
			tail_after_drain(s);
			break;
		}
		if (s->headed)
			fill_decide(s);
		fill_faces_set(s);
		if (s->headed) {
			s->headed = false;
			phase_next(s, PH_LT, s->cfg.first ? s->cfg.first : 1);
		} else {
			phase_next(s, PH_LT, samp_satisfied(s->ctl) ? 0 : unit_gap(s));
		}
		break;
	default:
		break;
	}
}

void sampler_kernel_begin(struct sampler *s, const char *name, unsigned ctas, unsigned warps)
{
	unsigned plan;

	phase_close(s, sim_now(s->k)); /* the host side since the last kernel */
	s->in_kernel = true;
	s->k_at = s->k_lt = s->k_ff = s->k_drain = 0;
	s->k_lt_bound = 0;
	s->k_lt_work = 0;
	s->k_at_work = s->k_at_cyc = s->k_at_bytes = 0;
	s->fill_end = 0;
	s->seg_work = s->unit_rate = s->k_rt_work = 0;
	s->unit_off = 0;
	s->fill_face = s->fill_mode == SAMP_FILL_FF ? SAMP_FACE_FF : SAMP_FACE_LT;
	s->peak_occ = 0;
	s->k_work0 = work_of(s);
	s->k_traffic0 = s->sys_ops->traffic(s->sys);
	s->phase_start = sim_now(s->k);
	s->phase_work = s->k_work0;
	s->phase_gen++;
	if (s->mode == CS_MODE_DETAILED) {
		s->phase = PH_AT;
		return;
	}
	if (s->mode == CS_MODE_ANALYTIC) {
		samp_kernel_begin(s->ctl, name, ctas, warps, false);
		faces_set(s, SAMP_FACE_LT);
		s->phase = PH_LT;
		return;
	}
	plan = samp_kernel_begin(s->ctl, name, ctas, warps, true);
	if (s->fill_mode == SAMP_FILL_FF)
		samp_fill_set(s->ctl, true);
	if (plan == SAMP_FF) {
		if (s->sys_ops->ff_timing)
			s->sys_ops->ff_timing(s->sys, false);
		faces_set(s, SAMP_FACE_FF);
		s->phase = PH_FF;
		return;
	}
	if (plan == SAMP_AT) {
		faces_set(s, SAMP_FACE_AT);
		s->phase = PH_AT;
		return;
	}
	if (plan == SAMP_SAMPLE && s->cfg.head && !samp_kernel_long(s->ctl)) {
		/* short kernels are measured whole: start detailed */
		faces_set(s, SAMP_FACE_AT);
		s->headed = false;
		phase_next(s, PH_HEAD, s->cfg.head);
		return;
	}
	if (plan == SAMP_SAMPLE)
		fill_decide(s); /* no head: its group's choice */
	fill_faces_set(s);
	s->phase = PH_LT;
	if (plan == SAMP_SAMPLE)
		phase_next(s, PH_LT, s->cfg.first ? s->cfg.first : 1);
	else
		fill_watch(s); /* the tail's */
}

void sampler_kernel_close(struct sampler *s, sim_time_t t, struct samp_kernel_facts *f)
{
	double cyc = (double)sim_clock_period_ps(s->clk);

	phase_close(s, t);
	s->phase = PH_NONE;
	s->phase_gen++;
	s->in_kernel = false;
	s->tot_at_ps += s->k_at;
	s->tot_ps += s->k_at + s->k_lt;
	*f = (struct samp_kernel_facts){
	    .at_cycles = s->k_at / cyc,
	    /* what R scales: the LT intervals' bound with same-event pairs, an FF fill's work
	     * (paired with the units' work), else LT's time */
	    .lt_cycles = events_on(s) ? s->k_lt_bound
			 : fill_ff(s) ? s->k_lt_work
				      : s->k_lt / cyc,
	    .lt_time = s->k_lt / cyc,
	    .lt_work = s->k_lt_work,
	    .ff_cycles = s->k_ff / cyc,
	    .insts = work_of(s) - s->k_work0,
	    .traffic = s->sys_ops->traffic(s->sys) - s->k_traffic0,
	};
	/* an FF fill sends no message: its bytes at the detailed face's bytes per work */
	if (fill_ff(s)) {
		f->traffic += (s->k_lt_work - s->k_rt_work) * at_bytes_per_work(s);
		samp_fill(s->ctl, s->seg_work); /* after the last unit */
	}
	s->at_work += s->k_at_work;
	s->at_cyc += s->k_at_cyc;
	s->at_bytes += s->k_at_bytes;
}

void sampler_kernel_ps(const struct sampler *s, double *at_ps, double *lt_ps)
{
	*at_ps = s->k_at;
	*lt_ps = s->k_lt;
}

void sampler_kernel_estimate(struct sampler *s, const struct samp_kernel_facts *f,
			     struct samp_estimate *e)
{
	samp_kernel_end(s->ctl, f, e);
}

void sampler_counts(const struct sampler *s, unsigned *units, unsigned *sampled, unsigned *skipped)
{
	samp_counts(s->ctl, units, sampled, skipped);
}

void sampler_host_faces(const struct sampler *s, struct samp_host_faces *h)
{
	*h = s->host;
	if (s->phase == PH_NONE)
		h->host_side_s += cs_wall_seconds() - s->wall_mark; /* up to now */
}

double sampler_at_ps(const struct sampler *s)
{
	return s->tot_at_ps;
}

double sampler_timed_ps(const struct sampler *s)
{
	return s->tot_ps;
}
