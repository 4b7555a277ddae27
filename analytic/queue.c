/* analytic/queue.c - queueing formulas (see queue.h). */
#include "analytic/queue.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util/error.h"

static double rho_cap(double rho_max)
{
	return (rho_max > 0.0 && rho_max < 1.0) ? rho_max : AQ_RHO_MAX_DEFAULT;
}

double aq_mg1_wait(double lambda, double s_mean, double s_m2, double rho_max)
{
	double cap = rho_cap(rho_max), rho;

	if (!(lambda > 0.0) || !(s_mean > 0.0) || !(s_m2 > 0.0))
		return 0.0;
	rho = lambda * s_mean;
	if (rho > cap) {
		rho = cap;
		lambda = cap / s_mean;
	}
	return lambda * s_m2 / (2.0 * (1.0 - rho));
}

double aq_md1_wait(double lambda, double service, double rho_max)
{
	return aq_mg1_wait(lambda, service, service * service, rho_max);
}

int aq_mva(const double *demand, const uint8_t *is_delay, unsigned k, double think, unsigned n,
	   struct aq_mva_result *out)
{
	double total = think;

	if (!demand || !out || k == 0 || k > AQ_MVA_MAX || !(think >= 0.0) || !isfinite(think))
		return -CS_EINVAL;
	for (unsigned i = 0; i < k; i++) {
		if (!(demand[i] >= 0.0) || !isfinite(demand[i]))
			return -CS_EINVAL;
		total += demand[i];
	}
	if (n > 0 && total <= 0.0)
		return -CS_EINVAL;

	memset(out, 0, sizeof(*out));
	out->k = k;
	for (unsigned i = 0; i < k; i++)
		out->resid[i] = demand[i];
	out->r = total - think;

	/* out->queue holds Q_i(m - 1) at the top of each step */
	for (unsigned m = 1; m <= n; m++) {
		double r = 0.0;

		for (unsigned i = 0; i < k; i++) {
			int delay = is_delay && is_delay[i];

			out->resid[i] = delay ? demand[i] : demand[i] * (1.0 + out->queue[i]);
			r += out->resid[i];
		}
		out->r = r;
		out->x = (double)m / (think + r);
		for (unsigned i = 0; i < k; i++)
			out->queue[i] = out->x * out->resid[i];
	}
	for (unsigned i = 0; i < k; i++)
		out->util[i] = out->x * demand[i];
	return 0;
}

double aq_dram_latency(const struct aq_dram *d, double lambda, double row_hit, double *wait_out)
{
	double h, s_hit, s_miss, occ_miss, m1, m2, bank_wait, bus_wait, cap, svc;

	if (wait_out)
		*wait_out = 0.0;
	if (!d || d->banks == 0 || d->t_burst < 0.0 || d->t_cl < 0.0 || d->t_rcd < 0.0 ||
	    d->t_rp < 0.0 || d->t_ras_min < 0.0 || d->t_ctrl < 0.0 || lambda < 0.0)
		return 0.0;
	h = row_hit < 0.0 ? 0.0 : row_hit > 1.0 ? 1.0 : row_hit;
	if (isnan(row_hit))
		h = 0.0;
	cap = rho_cap(d->rho_max);

	s_hit = d->t_cl;
	s_miss = d->t_rp + d->t_rcd + d->t_cl;
	svc = h * s_hit + (1.0 - h) * s_miss;

	/* occupancy of a bank: a miss cannot re-activate before t_ras_min + t_rp */
	occ_miss = s_miss;
	if (d->t_ras_min + d->t_rp > occ_miss)
		occ_miss = d->t_ras_min + d->t_rp;
	m1 = h * s_hit + (1.0 - h) * occ_miss;
	m2 = h * s_hit * s_hit + (1.0 - h) * occ_miss * occ_miss;

	bank_wait = aq_mg1_wait(lambda / (double)d->banks, m1, m2, cap);
	bus_wait = aq_md1_wait(lambda, d->t_burst, cap);
	if (wait_out)
		*wait_out = bank_wait + bus_wait;
	return d->t_ctrl + bank_wait + svc + bus_wait + d->t_burst;
}

void aq_meter_init(struct aq_meter *m, double window, double alpha)
{
	memset(m, 0, sizeof(*m));
	m->window = window;
	m->alpha = (alpha > 0.0 && alpha <= 1.0) ? alpha : AQ_METER_ALPHA_DEFAULT;
}

void aq_meter_add(struct aq_meter *m, double service)
{
	m->n_cur += 1.0;
	m->s1_cur += service;
	m->s2_cur += service * service;
}

static double ewma(double alpha, double old, double now)
{
	return alpha * now + (1.0 - alpha) * old;
}

void aq_meter_roll(struct aq_meter *m, double elapsed)
{
	double len = elapsed > 0.0 ? elapsed : m->window;
	double lam = len > 0.0 ? m->n_cur / len : 0.0;

	if (m->windows == 0)
		m->lambda = lam;
	else
		m->lambda = ewma(m->alpha, m->lambda, lam);
	if (m->n_cur > 0.0) {
		double s1 = m->s1_cur / m->n_cur, s2 = m->s2_cur / m->n_cur;

		if (!m->primed) {
			m->s1 = s1;
			m->s2 = s2;
			m->primed = 1;
		} else {
			m->s1 = ewma(m->alpha, m->s1, s1);
			m->s2 = ewma(m->alpha, m->s2, s2);
		}
	}
	m->windows++;
	m->n_cur = m->s1_cur = m->s2_cur = 0.0;
}

double aq_meter_lambda(const struct aq_meter *m)
{
	return m->lambda;
}

double aq_meter_s1(const struct aq_meter *m)
{
	return m->s1;
}

double aq_meter_s2(const struct aq_meter *m)
{
	return m->s2;
}
