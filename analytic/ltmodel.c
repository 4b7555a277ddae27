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

void lt_res_note(struct lt_res *r, sim_time_t t, double s)
{
	if (!r->win_start && !r->primed && !r->n)
		r->win_start = t - t % r->win_len;
	lt_res_roll(r, t);
	r->n += 1;
	r->s1 += s;
	r->s2 += s * s;
	r->backlog = r->busy_until > t ? (double)(r->busy_until - t) / (double)r->period_ps : 0;
	r->busy_until =
	    (r->busy_until > t ? r->busy_until : t) + (sim_time_t)(s * (double)r->period_ps);
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
