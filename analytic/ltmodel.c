/*
 * analytic/ltmodel.c - load meters and contention delays of the LT face (see the header).
 */
#include "analytic/ltmodel.h"

#include "analytic/queue.h"

void lt_params_default(struct lt_params *p)
{
	for (unsigned i = 0; i < LT_RES_KINDS; i++) {
		p->k[i] = 1.0;
		p->u[i] = 1.0;
	}
	p->rho_max = 0.95;
	p->window = 512;
	p->exact = false;
}

void lt_res_init(struct lt_res *r, sim_time_t period_ps, const struct lt_params *p)
{
	*r = (struct lt_res){0};
	r->period_ps = period_ps ? period_ps : 1;
	r->win_len = (sim_time_t)(p->window * (double)r->period_ps);
	if (!r->win_len)
		r->win_len = r->period_ps;
}

/* Close the windows that ended before t (an idle stretch counts as empty windows). */
static void lt_res_roll(struct lt_res *r, sim_time_t t)
{
	double cycles = (double)r->win_len / (double)r->period_ps;
	sim_time_t gone;

	if (t < r->win_start + r->win_len)
		return;
	gone = (t - r->win_start) / r->win_len;
	{
		/* the closing window weighs half; every further empty one halves the estimate */
		double lam = r->n / cycles;
		double a = 0.5;

		if (r->n > 0) {
			double m1 = r->s1 / r->n, m2 = r->s2 / r->n;

			if (!r->primed || r->m1 <= 0) {
				r->m1 = m1;
				r->m2 = m2;
			} else {
				r->m1 = a * m1 + (1 - a) * r->m1;
				r->m2 = a * m2 + (1 - a) * r->m2;
			}
		}
		r->lambda = r->primed ? a * lam + (1 - a) * r->lambda : lam;
		for (sim_time_t i = 1; i < gone && i < 64 && r->lambda > 0; i++)
			r->lambda *= 1 - a;
		if (gone >= 64)
			r->lambda = 0;
		r->primed = true;
	}
	r->win_start += gone * r->win_len;
	r->n = r->s1 = r->s2 = 0;
}

/* The backlog the next bin starts with, from a bin's start backlog q and its demand. */
static double bin_next(double q, double dem)
{
	return q + dem > LT_BIN ? q + dem - LT_BIN : 0;
}

/* The calendar's oldest bin becomes `to`: the bins before it retire into the backlog their
 * successor starts with. */
static void cal_advance(struct lt_res *r, uint64_t to)
{
	uint64_t steps = to - r->base;
	double q = r->q[r->base % LT_BINS];

	for (uint64_t i = 0; i < steps && i < LT_BINS; i++) {
		unsigned j = (unsigned)((r->base + i) % LT_BINS);

		q = bin_next(q, r->dem[j]);
		r->dem[j] = 0;
	}
	if (steps > LT_BINS) /* empty bins: each serves LT_BIN cycles of the backlog */
		q = q > (double)(steps - LT_BINS) * LT_BIN ? q - (double)(steps - LT_BINS) * LT_BIN
							   : 0;
	r->base = to;
	if (r->known < to) {
		r->known = to;
		r->q[to % LT_BINS] = q;
	}
}

/* The backlog at the start of bin b (base <= b < base + LT_BINS). */
static double cal_q(struct lt_res *r, uint64_t b)
{
	for (; r->known < b; r->known++) {
		unsigned j = (unsigned)(r->known % LT_BINS);

		r->q[(j + 1) % LT_BINS] = bin_next(r->q[j], r->dem[j]);
	}
	return r->q[b % LT_BINS];
}

void lt_res_note(struct lt_res *r, sim_time_t t, double s)
{
	sim_time_t bin_ps = (sim_time_t)LT_BIN * r->period_ps;
	uint64_t b = t / bin_ps;
	double before, off;

	if (!r->win_start && !r->primed && !r->n)
		r->win_start = t - t % r->win_len;
	lt_res_roll(r, t);
	r->n += 1;
	r->s1 += s;
	r->s2 += s * s;

	if (!r->cal_on) {
		/* half the span before the first note: notes of earlier times come too */
		r->cal_on = true;
		r->base = r->known = b > LT_BINS / 2 ? b - LT_BINS / 2 : 0;
		r->q[r->base % LT_BINS] = 0;
	}
	if (b >= r->base + LT_BINS)
		cal_advance(r, b - LT_BINS + 1);
	if (b < r->base)
		b = r->base; /* older than the span: its oldest bin */
	before = r->dem[b % LT_BINS];
	r->dem[b % LT_BINS] += s;
	if (r->known > b)
		r->known = b; /* the bins after b start with more */
	/* within its bin: the backlog it started with, less what the server did by the
	 * arrival's offset, plus the bin's other arrivals taken as spread over it (the noted
	 * order within a bin is not time order) */
	off = (double)(t > (sim_time_t)b * bin_ps ? t - (sim_time_t)b * bin_ps : 0) /
	      (double)r->period_ps;
	if (off > LT_BIN)
		off = LT_BIN; /* a note older than the span */
	r->backlog = cal_q(r, b) - off + before * off / LT_BIN;
	if (r->backlog < 0)
		r->backlog = 0;
}

double lt_res_rho(const struct lt_res *r)
{
	return r->lambda * r->m1;
}

double lt_res_wait(const struct lt_res *r, const struct lt_params *p, enum lt_res_kind kind)
{
	double lam;

	double w = 0;

	if (p->exact)
		return 0;
	if (r->lambda > 0 && r->m1 > 0) {
		lam = r->lambda * p->u[kind];
		w = aq_mg1_wait(lam, r->m1, r->m2, p->rho_max);
	}
	if (r->backlog > w)
		w = r->backlog;
	return p->k[kind] * w;
}
