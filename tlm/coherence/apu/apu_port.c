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

struct lt_ev;
struct lt_heap {
	struct lt_ev *ev; /* a heap by (t, key) */
	unsigned n, cap;
	uint64_t seq;
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
	const struct mem_msg
	    *rewaking; /* the woken message recv is handling (park keeps its place) */

	struct parked *park;
	unsigned n_park, cap_park;

	struct trig *trig_free;
	struct trig_chunk *trig_chunks;
	unsigned trig_live;

	bool pump_pending;
	sim_time_t pump_when;
	struct sim_handle pump_h;

	/* the LT face */
	struct apu_lt *lt;
	struct msgq lt_stall[APU_VNETS]; /* messages of a run waiting for apu_port_kick */
	uint64_t lt_run;		 /* the run lt_fifo belongs to */
	sim_time_t lt_fifo[APU_VNETS];	 /* latest arrival sent on REQ, PRB in this run */
	bool lt_hold;
	struct lt_heap lt_held; /* held answers */
	sim_time_t held_last;
	unsigned unheld; /* held answers handed to the detailed face, not yet arrived */
};

/* An LT run's event: a message to deliver, or a function (trigger, call). */
enum { LT_EV_MSG = 0, LT_EV_FN };
/* Order among events at one time: triggers, then the inputs in the detailed face's order. */
enum { LT_P_TRIGGER = 0, LT_P_UNB, LT_P_RSP, LT_P_PRB, LT_P_WOKEN, LT_P_REQ, LT_P_CALL };

struct lt_ev {
	sim_time_t t;
	uint64_t key; /* prio << 56 | seq */
	struct apu_port *p;
	struct mem_msg *m;
	apu_trigger_fn fn;
	void *arg;
	uint8_t kind;
};

struct apu_lt {
	struct sim_kernel *k;
	unsigned depth;
	sim_time_t now;
	uint64_t run, seq;
	struct lt_heap q; /* the run's events */
	unsigned stalled; /* messages waiting in the ports' lt_stall */
	/* what the b_transport of a send delivered (port_b fills it) */
	struct apu_port *st_port;
	sim_time_t st_arr;
	bool st_set;
};

static void heap_free(struct lt_heap *h);

/* The name of m's type for error messages. */
static const char *msg_name(const struct apu_port *p, const struct mem_msg *m)
{
	if (p->cfg.msg_names)
		return m->type < p->cfg.n_msgs ? p->cfg.msg_names[m->type] : "message";
	return m->type < APU_MSG_TYPES ? apu_msg_names[m->type] : "message";
}

static bool lt_active(const struct apu_port *p)
{
	return p->lt && p->lt->depth;
}

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

sim_time_t apu_port_now(const struct apu_port *p)
{
	return lt_active(p) ? p->lt->now : sim_now(p->k);
}

sim_time_t apu_port_delay(const struct apu_port *p, uint64_t cycles)
{
	return sim_clock_delay(&p->clk, apu_port_now(p), cycles);
}

uint64_t apu_port_cycles_until(const struct apu_port *p, sim_time_t t)
{
	sim_time_t now = apu_port_now(p), per = sim_clock_period_ps(&p->clk);

	return t > now ? (t - now + per - 1) / per : 0;
}

static void lt_send(struct apu_port *p, struct mem_msg *m, uint64_t cycles);
static void lt_push(struct apu_lt *lt, sim_time_t t, unsigned prio, struct apu_port *p,
		    struct mem_msg *m, apu_trigger_fn fn, void *arg);

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
	sim_time_t ready;
	unsigned v = m->vnet;

	m->src = (uint16_t)p->cfg.ep;
	if (v >= APU_VNETS) {
		sim_fail(p->k, -CS_EPROTO, "%s: send on vnet %u", p->name, v);
		return;
	}
	if (lt_active(p)) {
		lt_send(p, m, cycles);
		return;
	}
	ready = sim_now(p->k) + apu_port_delay(p, cycles);
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

/* A message of an LT run reached this port: the sender's lt_send takes it from here. */
static void port_b(void *obj, struct tlm_payload *pl, sim_time_t *delay)
{
	struct apu_port *p = obj;

	if (!lt_active(p)) {
		if (p->ops->b_transport) {
			p->ops->b_transport(p->owner, mem_msg_of(pl), delay);
			return;
		}
		/* the sender is in an LT run and this port is not: a mixed run */
		sim_fail(p->k, -CS_EPROTO,
			 "%s: a %s by b_transport outside an LT run (the detailed and LT faces "
			 "mixed)",
			 p->name, msg_name(p, mem_msg_of(pl)));
		return;
	}
	p->lt->st_port = p;
	p->lt->st_arr = sim_now(p->k) + *delay;
	p->lt->st_set = true;
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

		p->rewaking = q == &p->woken ? m : NULL;
		if (p->ops->recv(p->owner, m) == APU_STALL) {
			p->rewaking = NULL;
			p->stalled[v] = true;
			break;
		}
		p->rewaking = NULL;
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

static void lt_kick(struct apu_port *p);

void apu_port_kick(struct apu_port *p)
{
	bool any = false;

	if (lt_active(p)) {
		lt_kick(p);
		return;
	}

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

static void schedule_fn(struct apu_port *p, sim_time_t delay, unsigned prio, apu_trigger_fn fn,
			void *arg);

void apu_port_trigger(struct apu_port *p, uint64_t cycles, apu_trigger_fn fn, void *arg)
{
	if (lt_active(p)) {
		lt_push(p->lt, p->lt->now + apu_port_delay(p, cycles), LT_P_TRIGGER, p, NULL, fn,
			arg);
		return;
	}
	schedule_fn(p, apu_port_delay(p, cycles), PRIO_TRIGGER, fn, arg);
}

void apu_port_call(struct apu_port *p, sim_time_t delay, apu_trigger_fn fn, void *arg)
{
	if (lt_active(p)) {
		lt_push(p->lt, p->lt->now + delay, LT_P_CALL, p, NULL, fn, arg);
		return;
	}
	schedule_fn(p, delay, SIM_PRIO_DEFAULT, fn, arg);
}

static void schedule_fn(struct apu_port *p, sim_time_t delay, unsigned prio, apu_trigger_fn fn,
			void *arg)
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
	sim_schedule_prio(p->k, delay, prio, trig_fire, p, t);
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
	/* A woken message parked again (its line went busy before it was served) goes back ahead
	 * of the line's younger ones: a line's requests keep their arrival order. */
	unsigned at = p->n_park;

	if (m == p->rewaking)
		for (unsigned i = 0; i < p->n_park; i++)
			if (p->park[i].line == apu_line_of(m->p.addr)) {
				at = i;
				break;
			}
	memmove(p->park + at + 1, p->park + at, (p->n_park - at) * sizeof(*p->park));
	p->park[at] = (struct parked){apu_line_of(m->p.addr), m, apu_port_now(p)};
	p->n_park++;
}

bool apu_port_wake(struct apu_port *p, uint64_t line, sim_time_t *waited)
{
	line = apu_line_of(line);
	for (unsigned i = 0; i < p->n_park; i++) {
		if (p->park[i].line != line)
			continue;
		if (waited)
			*waited = apu_port_now(p) - p->park[i].since;
		if (lt_active(p)) {
			lt_push(p->lt, sim_clock_next_edge(&p->clk, p->lt->now), LT_P_WOKEN, p,
				p->park[i].m, NULL, NULL);
		} else if (!msgq_push(&p->woken, p->park[i].m, 0)) {
			sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
			return false;
		}
		memmove(p->park + i, p->park + i + 1, (p->n_park - i - 1) * sizeof(*p->park));
		p->n_park--;
		if (!lt_active(p) && !p->stalled[APU_VNET_REQ])
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

struct mem_msg *apu_port_unpark(struct apu_port *p, uint64_t line,
				bool (*match)(const struct mem_msg *m, void *arg), void *arg)
{
	line = apu_line_of(line);
	for (unsigned i = 0; i < p->n_park; i++) {
		struct mem_msg *m = p->park[i].m;

		if (p->park[i].line != line || !match(m, arg))
			continue;
		memmove(p->park + i, p->park + i + 1, (p->n_park - i - 1) * sizeof(*p->park));
		p->n_park--;
		return m;
	}
	return NULL;
}

bool apu_port_idle(const struct apu_port *p)
{
	if (p->n_park || p->woken.n || p->trig_live || p->lt_held.n || p->unheld)
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
		if (msgq_init(&p->in[v], cfg->in_depth) || msgq_init(&p->lt_stall[v], 4))
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
		if (p->lt_stall[v].s)
			msgq_release_all(&p->lt_stall[v]);
		msgq_free(&p->lt_stall[v]);
	}
	heap_free(&p->lt_held);
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

/* ---- the LT face ----------------------------------------------------------------------------- */

static bool ev_before(const struct lt_ev *a, const struct lt_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->key < b->key);
}

/* A heap of events by (t, key): an LT run's events, and a port's held answers. */
static bool heap_push(struct lt_heap *h, const struct lt_ev *e)
{
	unsigned i;

	if (h->n == h->cap) {
		unsigned nc = h->cap ? 2 * h->cap : 64;
		struct lt_ev *ne = realloc(h->ev, nc * sizeof(*ne));

		if (!ne)
			return false;
		h->ev = ne;
		h->cap = nc;
	}
	i = h->n++;
	while (i && ev_before(e, &h->ev[(i - 1) / 2])) {
		h->ev[i] = h->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->ev[i] = *e;
	return true;
}

static struct lt_ev heap_pop(struct lt_heap *h)
{
	struct lt_ev top = h->ev[0], last = h->ev[--h->n];
	unsigned i = 0, n = h->n;

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ev_before(&h->ev[c + 1], &h->ev[c]))
			c++;
		if (!ev_before(&h->ev[c], &last))
			break;
		h->ev[i] = h->ev[c];
		i = c;
	}
	if (n)
		h->ev[i] = last;
	return top;
}

/* Releases the messages left in h and its memory. */
static void heap_free(struct lt_heap *h)
{
	for (unsigned i = 0; i < h->n; i++)
		if (h->ev[i].m)
			tlm_payload_release(&h->ev[i].m->p);
	free(h->ev);
	*h = (struct lt_heap){0};
}

static void lt_push(struct apu_lt *lt, sim_time_t t, unsigned prio, struct apu_port *p,
		    struct mem_msg *m, apu_trigger_fn fn, void *arg)
{
	struct lt_ev e = {.t = t,
			  .key = (uint64_t)prio << 56 | lt->q.seq++,
			  .p = p,
			  .m = m,
			  .fn = fn,
			  .arg = arg,
			  .kind = m ? LT_EV_MSG : LT_EV_FN};

	if (!heap_push(&lt->q, &e)) {
		sim_fail(lt->k, -CS_ENOMEM, "apu LT run: out of memory");
		if (m)
			tlm_payload_release(&m->p);
	}
}

static const unsigned vnet_prio[APU_VNETS] = {
    [APU_VNET_REQ] = LT_P_REQ,
    [APU_VNET_PRB] = LT_P_PRB,
    [APU_VNET_RSP] = LT_P_RSP,
    [APU_VNET_UNB] = LT_P_UNB,
};

static void hold(struct apu_port *p, struct mem_msg *m, sim_time_t t)
{
	struct lt_ev e = {.t = t, .key = p->lt_held.seq++, .p = p, .m = m, .kind = LT_EV_MSG};

	if (!heap_push(&p->lt_held, &e)) {
		sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
		tlm_payload_release(&m->p);
		return;
	}
	if (t > p->held_last)
		p->held_last = t;
}

/* The send of an LT run: b_transport through the network gives the arrival (port_b notes
 * where); the message is then an event at the receiver's next edge, or held there. */
static void lt_send(struct apu_port *p, struct mem_msg *m, uint64_t cycles)
{
	struct apu_lt *lt = p->lt;
	sim_time_t ready = lt->now + apu_port_delay(p, cycles), kn = sim_now(p->k);
	sim_time_t d = ready > kn ? ready - kn : 0, arr;
	unsigned v = m->vnet;
	struct apu_port *dst;

	lt->st_set = false;
	m->sent_ps = ready;
	tlm_b_transport(&p->is, &m->p, &d);
	if (!lt->st_set) {
		if (!sim_failure(p->k))
			sim_fail(p->k, -CS_EPROTO, "%s: a %s reached no LT port", p->name,
				 msg_name(p, m));
		tlm_payload_release(&m->p);
		return;
	}
	dst = lt->st_port;
	arr = lt->st_arr;
	if (arr < ready)
		arr = ready;
	if (v == APU_VNET_REQ || v == APU_VNET_PRB) { /* FIFO per (source, destination) */
		if (p->lt_run != lt->run) {
			p->lt_run = lt->run;
			memset(p->lt_fifo, 0, sizeof(p->lt_fifo));
		}
		if (arr < p->lt_fifo[v])
			arr = p->lt_fifo[v];
		p->lt_fifo[v] = arr;
	}
	if (dst->lt_hold)
		hold(dst, m, arr);
	else
		lt_push(lt, sim_clock_next_edge(&dst->clk, arr), vnet_prio[v], dst, m, NULL, NULL);
}

static void lt_kick(struct apu_port *p)
{
	for (unsigned v = 0; v < APU_VNETS; v++)
		while (p->lt_stall[v].n) {
			struct mem_msg *m = msgq_head(&p->lt_stall[v])->m;

			msgq_pop(&p->lt_stall[v]);
			p->lt->stalled--;
			lt_push(p->lt, p->lt->now, vnet_prio[v], p, m, NULL, NULL);
		}
}

static void lt_deliver(struct apu_port *p, struct mem_msg *m, bool woken)
{
	unsigned v = m->vnet < APU_VNETS ? m->vnet : APU_VNET_REQ;

	bool stalled;

	p->rewaking = woken ? m : NULL;
	stalled = p->lt_stall[v].n || p->ops->recv(p->owner, m) == APU_STALL;
	p->rewaking = NULL;
	if (stalled) {
		if (!msgq_push(&p->lt_stall[v], m, 0)) {
			sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
			return;
		}
		p->lt->stalled++;
	}
}

void apu_port_lt_stall(struct apu_port *p, struct mem_msg *m)
{
	unsigned v = m->vnet < APU_VNETS ? m->vnet : APU_VNET_REQ;

	if (!msgq_push(&p->lt_stall[v], m, 0)) {
		sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
		return;
	}
	p->lt->stalled++;
}

int apu_lt_create(struct sim_kernel *k, struct apu_lt **out)
{
	struct apu_lt *lt = calloc(1, sizeof(*lt));

	if (!lt)
		return -CS_ENOMEM;
	lt->k = k;
	*out = lt;
	return 0;
}

void apu_lt_destroy(struct apu_lt *lt)
{
	if (!lt)
		return;
	heap_free(&lt->q);
	free(lt);
}

void apu_port_set_lt(struct apu_port *p, struct apu_lt *lt)
{
	p->lt = lt;
}

struct apu_lt *apu_port_lt(const struct apu_port *p)
{
	return p->lt;
}

bool apu_lt_on(const struct apu_lt *lt)
{
	return lt && lt->depth;
}

sim_time_t apu_lt_now(const struct apu_lt *lt)
{
	return lt->now;
}

void apu_lt_begin(struct apu_lt *lt, sim_time_t t)
{
	if (!lt->depth++) {
		lt->now = t;
		lt->run++;
	}
}

void apu_lt_run(struct apu_lt *lt)
{
	while (lt->q.n && !sim_failure(lt->k)) {
		struct lt_ev e = heap_pop(&lt->q);

		lt->now = e.t;
		if (e.kind == LT_EV_MSG)
			lt_deliver(e.p, e.m, e.key >> 56 == LT_P_WOKEN);
		else
			e.fn(e.p->owner, e.arg);
	}
}

void apu_lt_end(struct apu_lt *lt)
{
	if (--lt->depth)
		return;
	if (lt->stalled && !sim_failure(lt->k))
		sim_fail(lt->k, -CS_EPROTO,
			 "apu LT run: %u messages still wait for a resource at the end of the run",
			 lt->stalled);
	heap_free(&lt->q); /* events are left only after a failure */
}

void apu_port_lt_hold(struct apu_port *p, bool on)
{
	p->lt_hold = on;
}

bool apu_port_lt_take(struct apu_port *p, sim_time_t t, struct mem_msg **m, sim_time_t *when)
{
	struct lt_ev e;

	if (!p->lt_held.n || p->lt_held.ev[0].t > t)
		return false;
	e = heap_pop(&p->lt_held);
	*m = e.m;
	*when = e.t;
	return true;
}

sim_time_t apu_port_lt_next(const struct apu_port *p)
{
	return p->lt_held.n ? p->lt_held.ev[0].t : SIM_TIME_MAX;
}

sim_time_t apu_port_lt_last(struct apu_port *p)
{
	sim_time_t t = p->held_last;

	p->held_last = 0;
	return t;
}

static void unheld_fire(struct sim_kernel *k, void *obj, void *arg)
{
	struct apu_port *p = obj;
	struct mem_msg *m = arg;
	unsigned v = m->vnet < APU_VNETS ? m->vnet : APU_VNET_REQ;

	(void)k;
	p->unheld--;
	if (!msgq_push(&p->in[v], m, 0)) {
		sim_fail(p->k, -CS_ENOMEM, "%s: out of memory", p->name);
		return;
	}
	if (!p->stalled[v])
		schedule_pump(p, next_edge(p));
}

void apu_port_lt_unhold(struct apu_port *p)
{
	sim_time_t now = sim_now(p->k);

	while (p->lt_held.n) {
		struct lt_ev e = heap_pop(&p->lt_held);

		p->unheld++;
		sim_schedule_at(p->k, e.t > now ? e.t : now, PRIO_PUMP, unheld_fire, p, e.m);
	}
}
