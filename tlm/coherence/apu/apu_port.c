/*
 * tlm/coherence/apu/apu_port.c - the APU controller kit (see apu_port.h).
 */
#include "tlm/coherence/apu/apu_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/mem/msgq.h"

/* Triggers run before the inputs of the same edge. */
#define PRIO_TRIGGER (SIM_PRIO_DEFAULT - 2u)
#define PRIO_PUMP    SIM_PRIO_DEFAULT

struct oq { /* an output queue ordered by leave time, FIFO among equal times */
	struct msgq_slot *s;
	unsigned head, n, cap; /* live entries are s[head .. head + n) */
};

struct parked {
	uint64_t line;
	struct mem_msg *m;
	sim_time_t since;
};

struct trig {
	apu_trigger_fn fn;
	void *arg;
	struct trig *next;
};

#define TRIG_CHUNK 128
struct trig_chunk {
	struct trig_chunk *next;
	struct trig t[TRIG_CHUNK];
};

struct apu_port {
	struct sim_kernel *k;
	struct apu_port_cfg cfg;
	char name[64];
	char iname[80], tname[80];
	struct sim_clock clk;
	const struct apu_port_ops *ops;
	void *owner;
	struct tlm_initiator_socket is;
	struct tlm_target_socket ts;

	struct oq out[APU_VNETS];
	struct mem_msg *out_busy[APU_VNETS]; /* offered, END_REQ owed by the network */

	struct msgq in[APU_VNETS];
	struct tlm_payload *held[APU_VNETS]; /* delivered while the input was full */
	bool stalled[APU_VNETS];
	struct msgq woken;

	struct parked *park;
	unsigned n_park, cap_park;

	struct trig *trig_free;
	struct trig_chunk *trig_chunks;
	unsigned trig_live;

	bool pump_pending;
	sim_time_t pump_when;
	struct sim_handle pump_h;
};

static void pump(struct sim_kernel *k, void *obj, void *arg);

static void schedule_pump(struct apu_port *p, sim_time_t when)
{
	sim_time_t now = sim_now(p->k);

	if (when < now)
		when = now;
	if (p->pump_pending) {
		if (p->pump_when <= when)
			return;
		sim_cancel(p->k, p->pump_h);
	}
	p->pump_pending = true;
	p->pump_when = when;
	p->pump_h = sim_schedule_at(p->k, when, PRIO_PUMP, pump, p, NULL);
}

static sim_time_t next_edge(const struct apu_port *p)
{
	return sim_clock_next_edge(&p->clk, sim_now(p->k));
}

sim_time_t apu_port_delay(const struct apu_port *p, uint64_t cycles)
{
	return sim_clock_delay(&p->clk, sim_now(p->k), cycles);
}

/* ---- output ---------------------------------------------------------------------------------- */

static bool oq_insert(struct oq *q, struct mem_msg *m, sim_time_t ready)
{
	unsigned i;

	if (q->head && q->head + q->n == q->cap) { /* compact before growing */
		memmove(q->s, q->s + q->head, q->n * sizeof(*q->s));
		q->head = 0;
	}
	if (q->head + q->n == q->cap) {
		unsigned ncap = q->cap ? q->cap * 2 : 16;
		struct msgq_slot *ns = realloc(q->s, ncap * sizeof(*ns));

		if (!ns)
			return false;
		q->s = ns;
		q->cap = ncap;
	}
	i = q->head + q->n;
	while (i > q->head && q->s[i - 1].ready > ready)
		i--;
	memmove(q->s + i + 1, q->s + i, (q->head + q->n - i) * sizeof(*q->s));
	q->s[i] = (struct msgq_slot){m, ready};
	q->n++;
	return true;
}

void apu_port_send(struct apu_port *p, struct mem_msg *m, uint64_t cycles)
{
	sim_time_t ready = sim_now(p->k) + apu_port_delay(p, cycles);
	unsigned v = m->vnet;

	m->src = (uint16_t)p->cfg.ep;
	if (v >= APU_VNETS) {
		sim_fail(p->k, -CS_EPROTO, "%s: send on vnet %u", p->name, v);
		return;
	}
	if (!oq_insert(&p->out[v], m, ready)) {
		sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
		return;
	}
	if (!p->out_busy[v])
		schedule_pump(p, p->out[v].s[p->out[v].head].ready);
}

unsigned apu_port_out_queued(const struct apu_port *p, unsigned vnet)
{
	return p->out[vnet].n + (p->out_busy[vnet] ? 1u : 0u);
}

static void inject(struct apu_port *p)
{
	sim_time_t now = sim_now(p->k);

	for (unsigned v = 0; v < APU_VNETS; v++) {
		struct oq *q = &p->out[v];

		while (!p->out_busy[v] && q->n && q->s[q->head].ready <= now) {
			struct mem_msg *m = q->s[q->head].m;
			enum tlm_phase ph = TLM_BEGIN_REQ;
			sim_time_t d = 0;
			enum tlm_sync_enum r;

			q->head++;
			q->n--;
			if (!q->n)
				q->head = 0;
			p->out_busy[v] = m; /* before the call: END_REQ may come back inside it */
			r = tlm_nb_transport_fw(&p->is, &m->p, &ph, &d);
			if (r == TLM_COMPLETED || (r == TLM_UPDATED && ph == TLM_END_REQ))
				p->out_busy[v] = NULL;
			else if (r != TLM_ACCEPTED)
				sim_fail(p->k, -CS_EPROTO,
					 "%s: the network answered %s to BEGIN_REQ", p->name,
					 tlm_phase_name(ph));
		}
	}
}

static enum tlm_sync_enum port_bw(void *obj, struct tlm_payload *pl, enum tlm_phase *ph,
				  sim_time_t *d)
{
	struct apu_port *p = obj;
	struct mem_msg *m = mem_msg_of(pl);

	(void)d;
	if (*ph != TLM_END_REQ || m->vnet >= APU_VNETS || p->out_busy[m->vnet] != m) {
		sim_fail(p->k, -CS_EPROTO, "%s: unexpected %s from the network", p->name,
			 tlm_phase_name(*ph));
		return TLM_ACCEPTED;
	}
	p->out_busy[m->vnet] = NULL;
	schedule_pump(p, sim_now(p->k));
	return TLM_ACCEPTED;
}

/* ---- input ----------------------------------------------------------------------------------- */

static enum tlm_sync_enum port_fw(void *obj, struct tlm_payload *pl, enum tlm_phase *ph,
				  sim_time_t *d)
{
	struct apu_port *p = obj;
	struct mem_msg *m = mem_msg_of(pl);
	unsigned v = m->vnet;

	(void)d;
	if (*ph != TLM_BEGIN_REQ || v >= APU_VNETS || p->held[v]) {
		sim_fail(p->k, -CS_EPROTO, "%s: unexpected %s on vnet %u from the network", p->name,
			 tlm_phase_name(*ph), v);
		return TLM_ACCEPTED;
	}
	if (p->in[v].n >= p->cfg.in_depth) {
		p->held[v] = pl; /* END_REQ when a slot frees: back-pressure on this vnet only */
		return TLM_ACCEPTED;
	}
	if (!msgq_push(&p->in[v], m, 0)) {
		sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
		return TLM_ACCEPTED;
	}
	if (!p->stalled[v])
		schedule_pump(p, next_edge(p));
	*ph = TLM_END_REQ;
	return TLM_UPDATED;
}

static void port_b(void *obj, struct tlm_payload *pl, sim_time_t *delay)
{
	struct apu_port *p = obj;

	if (!p->ops->b_transport) {
		sim_fail(p->k, -CS_EPROTO, "%s: no LT face", p->name);
		return;
	}
	p->ops->b_transport(p->owner, mem_msg_of(pl), delay);
}

static const struct tlm_fw_ops port_fw_ops = {.b_transport = port_b, .nb_transport_fw = port_fw};
static const struct tlm_bw_ops port_bw_ops = {.nb_transport_bw = port_bw};

/* Takes the held delivery of vnet v into its input, if there is one and room. */
static void unhold(struct apu_port *p, unsigned v)
{
	struct tlm_payload *pl = p->held[v];
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t d = 0;

	if (!pl || p->in[v].n >= p->cfg.in_depth)
		return;
	p->held[v] = NULL;
	if (!msgq_push(&p->in[v], mem_msg_of(pl), 0)) {
		sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
		return;
	}
	tlm_nb_transport_bw(&p->ts, pl, &ph, &d);
}

/* Serves one queue; returns the budget left. */
static unsigned serve(struct apu_port *p, struct msgq *q, unsigned v, unsigned budget)
{
	while (budget && q->n && !p->stalled[v]) {
		struct mem_msg *m = msgq_head(q)->m;

		if (p->ops->recv(p->owner, m) == APU_STALL) {
			p->stalled[v] = true;
			break;
		}
		msgq_pop(q);
		budget--;
		if (q != &p->woken)
			unhold(p, v);
	}
	return budget;
}

static bool input_ready(const struct apu_port *p)
{
	for (unsigned v = 0; v < APU_VNETS; v++)
		if (p->in[v].n && !p->stalled[v])
			return true;
	return p->woken.n && !p->stalled[APU_VNET_REQ];
}

static void pump(struct sim_kernel *k, void *obj, void *arg)
{
	struct apu_port *p = obj;
	unsigned budget = p->cfg.per_cycle;
	sim_time_t when = SIM_TIME_MAX;

	(void)k;
	(void)arg;
	p->pump_pending = false;
	inject(p);
	budget = serve(p, &p->in[APU_VNET_UNB], APU_VNET_UNB, budget);
	budget = serve(p, &p->in[APU_VNET_RSP], APU_VNET_RSP, budget);
	budget = serve(p, &p->in[APU_VNET_PRB], APU_VNET_PRB, budget);
	budget = serve(p, &p->woken, APU_VNET_REQ, budget);
	serve(p, &p->in[APU_VNET_REQ], APU_VNET_REQ, budget);
	inject(p); /* what recv sent with no delay */
	if (input_ready(p))
		when = sim_clock_delay(&p->clk, sim_now(p->k), 1) + sim_now(p->k);
	for (unsigned v = 0; v < APU_VNETS; v++)
		if (!p->out_busy[v] && p->out[v].n && p->out[v].s[p->out[v].head].ready < when)
			when = p->out[v].s[p->out[v].head].ready;
	if (when != SIM_TIME_MAX)
		schedule_pump(p, when);
}

void apu_port_kick(struct apu_port *p)
{
	bool any = false;

	for (unsigned v = 0; v < APU_VNETS; v++) {
		any |= p->stalled[v];
		p->stalled[v] = false;
	}
	if (any && input_ready(p))
		schedule_pump(p, sim_now(p->k) + apu_port_delay(p, 1));
}

/* ---- triggers -------------------------------------------------------------------------------- */

static void trig_fire(struct sim_kernel *k, void *obj, void *arg)
{
	struct apu_port *p = obj;
	struct trig *t = arg;
	apu_trigger_fn fn = t->fn;
	void *targ = t->arg;

	(void)k;
	t->next = p->trig_free;
	p->trig_free = t;
	p->trig_live--;
	fn(p->owner, targ);
}

void apu_port_trigger(struct apu_port *p, uint64_t cycles, apu_trigger_fn fn, void *arg)
{
	struct trig *t;

	if (!p->trig_free) {
		struct trig_chunk *c = malloc(sizeof(*c));

		if (!c) {
			sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
			return;
		}
		c->next = p->trig_chunks;
		p->trig_chunks = c;
		for (unsigned i = 0; i < TRIG_CHUNK; i++) {
			c->t[i].next = p->trig_free;
			p->trig_free = &c->t[i];
		}
	}
	t = p->trig_free;
	p->trig_free = t->next;
	t->fn = fn;
	t->arg = arg;
	p->trig_live++;
	sim_schedule_prio(p->k, apu_port_delay(p, cycles), PRIO_TRIGGER, trig_fire, p, t);
}

/* ---- park ------------------------------------------------------------------------------------ */

void apu_port_park(struct apu_port *p, struct mem_msg *m)
{
	if (p->n_park == p->cap_park) {
		unsigned ncap = p->cap_park ? p->cap_park * 2 : 16;
		struct parked *np = realloc(p->park, ncap * sizeof(*np));

		if (!np) {
			sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
			return;
		}
		p->park = np;
		p->cap_park = ncap;
	}
	p->park[p->n_park++] = (struct parked){apu_line_of(m->p.addr), m, sim_now(p->k)};
}

bool apu_port_wake(struct apu_port *p, uint64_t line, sim_time_t *waited)
{
	line = apu_line_of(line);
	for (unsigned i = 0; i < p->n_park; i++) {
		if (p->park[i].line != line)
			continue;
		if (waited)
			*waited = sim_now(p->k) - p->park[i].since;
		if (!msgq_push(&p->woken, p->park[i].m, 0)) {
			sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
			return false;
		}
		memmove(p->park + i, p->park + i + 1, (p->n_park - i - 1) * sizeof(*p->park));
		p->n_park--;
		if (!p->stalled[APU_VNET_REQ])
			schedule_pump(p, next_edge(p));
		return true;
	}
	return false;
}

unsigned apu_port_parked(const struct apu_port *p)
{
	return p->n_park;
}

bool apu_port_line_parked(const struct apu_port *p, uint64_t line)
{
	line = apu_line_of(line);
	for (unsigned i = 0; i < p->n_park; i++)
		if (p->park[i].line == line)
			return true;
	return false;
}

bool apu_port_idle(const struct apu_port *p)
{
	if (p->n_park || p->woken.n || p->trig_live)
		return false;
	for (unsigned v = 0; v < APU_VNETS; v++)
		if (p->out[v].n || p->out_busy[v] || p->in[v].n || p->held[v])
			return false;
	return true;
}

/* ---- life ------------------------------------------------------------------------------------ */

int apu_port_create(struct sim_kernel *k, const struct apu_port_cfg *cfg,
		    const struct apu_port_ops *ops, void *owner, struct apu_port **out)
{
	struct apu_port *p;
	int rc = -CS_ENOMEM;

	if (!k || !cfg || !ops || !ops->recv || !cfg->in_depth || !cfg->per_cycle)
		return -CS_EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -CS_ENOMEM;
	p->k = k;
	p->cfg = *cfg;
	snprintf(p->name, sizeof(p->name), "%s", cfg->name ? cfg->name : "apu");
	p->cfg.name = p->name;
	p->ops = ops;
	p->owner = owner;
	if (sim_clock_init(&p->clk, cfg->clock_mhz * 1000000ull)) {
		rc = -CS_EINVAL;
		goto fail;
	}
	for (unsigned v = 0; v < APU_VNETS; v++)
		if (msgq_init(&p->in[v], cfg->in_depth))
			goto fail;
	if (msgq_init(&p->woken, 16))
		goto fail;
	snprintf(p->iname, sizeof(p->iname), "%s.inject", p->name);
	snprintf(p->tname, sizeof(p->tname), "%s.deliver", p->name);
	tlm_initiator_init(&p->is, p->iname, &port_bw_ops, p);
	tlm_target_init(&p->ts, p->tname, &port_fw_ops, p);
	*out = p;
	return 0;
fail:
	apu_port_destroy(p);
	return rc;
}

void apu_port_destroy(struct apu_port *p)
{
	if (!p)
		return;
	if (p->pump_pending)
		sim_cancel(p->k, p->pump_h);
	for (unsigned v = 0; v < APU_VNETS; v++) {
		for (unsigned i = 0; i < p->out[v].n; i++)
			tlm_payload_release(&p->out[v].s[p->out[v].head + i].m->p);
		free(p->out[v].s);
		if (p->in[v].s)
			msgq_release_all(&p->in[v]);
		msgq_free(&p->in[v]);
	}
	if (p->woken.s)
		msgq_release_all(&p->woken);
	msgq_free(&p->woken);
	for (unsigned i = 0; i < p->n_park; i++)
		tlm_payload_release(&p->park[i].m->p);
	free(p->park);
	while (p->trig_chunks) {
		struct trig_chunk *c = p->trig_chunks;

		p->trig_chunks = c->next;
		free(c);
	}
	free(p);
}

struct tlm_initiator_socket *apu_port_initiator(struct apu_port *p)
{
	return &p->is;
}

struct tlm_target_socket *apu_port_target(struct apu_port *p)
{
	return &p->ts;
}

unsigned apu_port_ep(const struct apu_port *p)
{
	return p->cfg.ep;
}

const char *apu_port_name(const struct apu_port *p)
{
	return p->name;
}

const struct sim_clock *apu_port_clock(const struct apu_port *p)
{
	return &p->clk;
}

struct sim_kernel *apu_port_kernel(const struct apu_port *p)
{
	return p->k;
}
