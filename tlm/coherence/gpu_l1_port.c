/*
 * tlm/coherence/gpu_l1_port.c - the NoC port and hit path every GPU L1 shares (see the header).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/gpu_l1_port.h"
#include "tlm/coherence/gpu_base.h"
#include "tlm/noc/noc.h"

static void l1_port_pump(struct l1_port *p);

static void l1_port_pump_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct l1_port *p = obj;

	(void)k;
	(void)arg;
	p->pump_pending = false;
	l1_port_pump(p);
}

void l1_port_maybe_retry(struct l1_port *p)
{
	if (p->want_retry) {
		p->want_retry = false;
		p->cl.retry(p->cl.sm);
	}
}

/* Offers the head of q until the network holds one open: 0 when q is empty or was held open
 * already, 1 when the message just offered waits for its END_REQ, negative on a protocol
 * failure. Requests (counts) are outstanding until their answer comes. */
static int l1_port_pump_queue(struct l1_port *p, struct msgq *q, bool *open, bool counts)
{
	while (!*open && q->n) {
		struct mem_msg *m = msgq_head(q)->m;
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t d = 0;
		enum tlm_sync_enum r;

		m->sent_ps = sim_now(p->ctx->k);
		*open = true;
		(*p->msgs_sent)++;
		r = tlm_nb_transport_fw(&p->noc, &m->p, &ph, &d);
		if ((r == TLM_UPDATED && ph == TLM_END_REQ) || (p->oneway && r == TLM_COMPLETED)) {
			*open = false;
		} else if (r == TLM_COMPLETED) {
			sim_fail(p->ctx->k, -CS_EPROTO,
				 "sm%u.l1: the NoC completed a request early", p->sm);
			return -CS_EPROTO;
		} else if (*open) {
			return 1; /* END_REQ comes later */
		}
		msgq_pop(q);
		if (counts)
			p->outstanding++;
	}
	return 0;
}

/* A request just offered that waits for its END_REQ holds back the L1's retry until then, as
 * before the one-way mode; an ack waiting for its END_REQ holds back nothing. */
static void l1_port_pump(struct l1_port *p)
{
	if (p->oneway && l1_port_pump_queue(p, &p->ackq, &p->ack_open, false) < 0)
		return;
	if (l1_port_pump_queue(p, &p->q, &p->req_open, true))
		return;
	l1_port_maybe_retry(p);
}

/* The queues are pumped at the current time, after what is being handled now (once). */
static void l1_port_schedule_pump(struct l1_port *p)
{
	if (p->pump_pending)
		return;
	p->pump_pending = true;
	sim_schedule(p->ctx->k, 0, l1_port_pump_cb, p, NULL);
}

struct mem_msg *l1_port_msg(struct l1_port *p, uint8_t type, uint64_t addr, uint32_t txn)
{
	struct tlm_payload *pl = tlm_payload_alloc(p->ctx->pool);
	struct mem_msg *m;

	if (!pl) {
		sim_fail(p->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory for messages", p->sm);
		return NULL;
	}
	m = mem_msg_of(pl);
	pl->addr = addr;
	pl->len = p->line_bytes;
	m->src = (uint16_t)p->sm;
	m->dst = (uint16_t)addrmap_bank(&p->ctx->map, addr);
	if (p->oneway) {
		m->dst = (uint16_t)(m->dst + p->ctx->sms);
		m->vnet = p->req_vnet;
	}
	m->type = type;
	m->txn = txn;
	return m;
}

static void l1_port_lt_flush(struct l1_port *p, unsigned max_msgs);

void l1_port_send(struct l1_port *p, struct mem_msg *m)
{
	if (p->lt) {
		if (!msgq_push(&p->q, m, p->lt_t)) {
			sim_fail(p->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory", p->sm);
			tlm_payload_release(&m->p);
			return;
		}
		if (p->lt_busy)
			return;
		/* sent outside an access: a kernel's end */
		if (p->ctx->lt_clock && p->ctx->lt_clock->defer) {
			struct gpu_lt_clock *c = p->ctx->lt_clock;

			if (!p->lt_deferred) {
				p->lt_deferred = true;
				c->deferred[c->ndeferred++] = p;
			}
			return;
		}
		l1_port_lt_flush(p, UINT_MAX);
		return;
	}
	if (!msgq_push(&p->q, m, 0)) {
		sim_fail(p->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory", p->sm);
		tlm_payload_release(&m->p);
		return;
	}
	if (!p->req_open)
		l1_port_schedule_pump(p);
}

static void l1_port_hit_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct l1_port *p = obj;
	sim_time_t now = sim_now(k);

	(void)arg;
	p->hit_cb_pending = false;
	while (p->h_n && p->hits[p->h_head].due <= now) {
		struct l1_hit *h = &p->hits[p->h_head];

		p->h_head = (p->h_head + 1) % p->h_cap;
		p->h_n--;
		p->cl.done(p->cl.sm, h->id, h->load ? h->data : NULL);
	}
	if (p->h_n) {
		p->hit_cb_pending = true;
		sim_schedule_at(k, p->hits[p->h_head].due, SIM_PRIO_DEFAULT, l1_port_hit_cb, p,
				NULL);
	}
}

void l1_port_hit(struct l1_port *p, uint32_t id, const uint8_t *line)
{
	const struct gpu_ctx *c = p->ctx;
	struct l1_hit *h;
	sim_time_t now = p->lt ? p->lt_t : sim_now(c->k);
	sim_time_t due = now + sim_clock_delay(&c->core_clk, now, c->l1->latency);

	if (p->lt && p->h_n == p->h_cap) {
		sim_fail(c->k, -CS_EPROTO, "sm%u.l1: LT hit queue full", p->sm);
		return;
	}

	h = &p->hits[(p->h_head + p->h_n) % p->h_cap];
	p->h_n++;
	h->due = due;
	h->id = id;
	h->load = line != NULL;
	if (line)
		memcpy(h->data, line, p->line_bytes);
	if (p->lt)
		return; /* answered by the flush */
	if (!p->hit_cb_pending) {
		p->hit_cb_pending = true;
		sim_schedule_at(c->k, due, SIM_PRIO_DEFAULT, l1_port_hit_cb, p, NULL);
	}
}

static enum tlm_sync_enum l1_port_nb_bw(void *obj, struct tlm_payload *pl, enum tlm_phase *ph,
					sim_time_t *d)
{
	struct l1_port *p = obj;

	(void)d;
	if (*ph == TLM_END_REQ && p->oneway && mem_msg_of(pl)->vnet == p->ack_vnet) {
		p->ack_open = false;
		msgq_pop(&p->ackq);
		l1_port_schedule_pump(p);
		return TLM_ACCEPTED;
	}
	if (*ph == TLM_END_REQ) {
		p->req_open = false;
		msgq_pop(&p->q);
		p->outstanding++;
		l1_port_schedule_pump(p);
		return TLM_ACCEPTED;
	}
	if (*ph == TLM_BEGIN_RESP) {
		p->outstanding--;
		p->response(p->owner, mem_msg_of(pl));
		tlm_payload_release(pl);
		return TLM_COMPLETED;
	}
	sim_fail(p->ctx->k, -CS_EPROTO, "sm%u.l1: unexpected phase %s", p->sm, tlm_phase_name(*ph));
	return TLM_COMPLETED;
}

/* ---- the LT face ----------------------------------------------------------------------------- */

static void lt_clock_set(struct l1_port *p, sim_time_t t)
{
	p->lt_t = t;
	if (p->ctx->lt_clock)
		p->ctx->lt_clock->t = t;
}

/* Performs what the accesses of one op left, in time order as the detailed face would: every
 * queued message makes its round trip by b_transport from the time it was sent; hits are
 * answered at their due time and responses handled at the time they are back, the earliest
 * first (a response may send more: re-reads after a renewal, a retry for sectors). */
#define LT_PEND_MAX 64

/* The queue's head makes its round trip by b_transport from the time it was queued (not
 * before now); *back: when its answer is back. */
static struct mem_msg *lt_send_head(struct l1_port *p, sim_time_t now, sim_time_t *back)
{
	struct msgq_slot *sl = msgq_head(&p->q);
	struct mem_msg *m = sl->m;
	sim_time_t start = sl->ready > now ? sl->ready : now, delay = start - now;

	msgq_pop(&p->q);
	m->sent_ps = start;
	(*p->msgs_sent)++;
	p->lt_inflight = m;
	tlm_b_transport(&p->noc, &m->p, &delay);
	p->lt_inflight = NULL;
	*back = now + delay;
	return m;
}

static void l1_port_lt_flush(struct l1_port *p, unsigned max_msgs)
{
	sim_time_t now = sim_now(p->ctx->k);
	sim_time_t base = p->lt_t;
	bool was_busy = p->lt_busy;
	struct mem_msg *pm[LT_PEND_MAX];
	sim_time_t pt[LT_PEND_MAX];
	unsigned np = 0;

	p->lt_busy = true;
	for (;;) {
		unsigned best = 0;

		while (p->q.n && np < LT_PEND_MAX && max_msgs) {
			max_msgs--;
			pm[np] = lt_send_head(p, now, &pt[np]);
			np++;
		}
		for (unsigned i = 1; i < np; i++)
			if (pt[i] < pt[best])
				best = i;
		if (p->h_n && (!np || p->hits[p->h_head].due <= pt[best])) {
			struct l1_hit *h = &p->hits[p->h_head];

			p->h_head = (p->h_head + 1) % p->h_cap;
			p->h_n--;
			if (h->due > p->lt_end)
				p->lt_end = h->due;
			lt_clock_set(p, h->due);
			p->cl.done(p->cl.sm, h->id, h->load ? h->data : NULL);
			continue;
		}
		if (!np)
			break;
		{
			struct mem_msg *m = pm[best];
			sim_time_t back = pt[best];

			np--;
			memmove(&pm[best], &pm[best + 1], (np - best) * sizeof(pm[0]));
			memmove(&pt[best], &pt[best + 1], (np - best) * sizeof(pt[0]));
			if (back > p->lt_end)
				p->lt_end = back;
			lt_clock_set(p, back);
			p->response(p->owner, m);
			tlm_payload_release(&m->p);
		}
	}
	lt_clock_set(p, base);
	p->lt_busy = was_busy;
}

static sim_time_t lt_send_queued(struct l1_port *p);

bool l1_port_lt_hold(struct l1_port *p, bool on)
{
	bool was = p->lt_busy;

	p->lt_busy = on;
	return was;
}

void l1_port_lt_send_now(struct l1_port *p)
{
	if (p->lt && p->q.n)
		(void)lt_send_queued(p); /* the answers wait in time order (l1_port_lt_advance) */
}

/* When the head message of deferred port p would reach its bank on an idle network. */
static sim_time_t lt_drain_arrival(const struct gpu_lt_clock *c, struct l1_port *p)
{
	const struct msgq_slot *sl = msgq_head(&p->q);
	const struct mem_msg *m = sl->m;
	sim_time_t start = sl->ready > p->lt_inj ? sl->ready : p->lt_inj;

	return start + noc_unloaded_ps(c->noc, p->sm, m->dst, m->req_bytes, false);
}

void l1_port_lt_drain(struct gpu_lt_clock *c)
{
	const struct sim_clock *nclk = noc_clock(c->noc);

	c->defer = false;
	for (unsigned i = 0; i < c->ndeferred; i++)
		c->deferred[i]->lt_inj = 0;
	for (;;) {
		struct l1_port *p = NULL;
		sim_time_t best = 0;
		struct msgq_slot *sl;

		for (unsigned i = 0; i < c->ndeferred; i++) {
			struct l1_port *q = c->deferred[i];
			sim_time_t t;

			if (!q->q.n)
				continue;
			t = lt_drain_arrival(c, q);
			if (!p || t < best) {
				p = q;
				best = t;
			}
		}
		if (!p)
			break;
		sl = msgq_head(&p->q);
		if (sl->ready < p->lt_inj)
			sl->ready = p->lt_inj;
		/* the next message starts once this one's flits are in */
		p->lt_inj = sl->ready +
			    sim_clock_delay(nclk, sl->ready, noc_flits(c->noc, sl->m->req_bytes));
		l1_port_lt_flush(p, 1);
	}
	for (unsigned i = 0; i < c->ndeferred; i++)
		c->deferred[i]->lt_deferred = false;
	c->ndeferred = 0;
}

/* ---- the LT face's answers in flight ---------------------------------------------------------- */

static bool lt_pend_before(const struct l1_lt_pend *a, const struct l1_lt_pend *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static bool lt_pend_push(struct l1_port *p, struct mem_msg *m, sim_time_t t)
{
	struct l1_lt_pend *h;
	unsigned i;

	if (p->lt_pend_n == p->lt_pend_cap) {
		unsigned cap = p->lt_pend_cap ? 2 * p->lt_pend_cap : 64;

		h = realloc(p->lt_pend, cap * sizeof(*h));
		if (!h)
			return false;
		p->lt_pend = h;
		p->lt_pend_cap = cap;
	}
	h = p->lt_pend;
	i = p->lt_pend_n++;
	h[i] = (struct l1_lt_pend){.t = t, .seq = p->lt_seq++, .m = m};
	while (i && lt_pend_before(&h[i], &h[(i - 1) / 2])) {
		struct l1_lt_pend x = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
	return true;
}

static struct l1_lt_pend lt_pend_pop(struct l1_port *p)
{
	struct l1_lt_pend *h = p->lt_pend, top = h[0];
	unsigned n = --p->lt_pend_n, i = 0;

	h[0] = h[n];
	for (;;) {
		unsigned l = 2 * i + 1, m = i;

		if (l < n && lt_pend_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && lt_pend_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			break;
		struct l1_lt_pend x = h[i];

		h[i] = h[m];
		h[m] = x;
		i = m;
	}
	return top;
}

/* Sends every queued message by b_transport from the time it was queued; its answer waits in
 * lt_pend until the L1's time reaches it. Returns the latest time one is back. */
static sim_time_t lt_send_queued(struct l1_port *p)
{
	sim_time_t now = sim_now(p->ctx->k), last = 0;

	while (p->q.n) {
		sim_time_t back;
		struct mem_msg *m = lt_send_head(p, now, &back);

		if (!lt_pend_push(p, m, back)) {
			sim_fail(p->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory", p->sm);
			tlm_payload_release(&m->p);
			return last;
		}
		if (back > last)
			last = back;
	}
	return last;
}

/* Answers the hits queued, each at its due time; returns the latest. */
static sim_time_t lt_answer_hits(struct l1_port *p)
{
	sim_time_t last = 0;

	while (p->h_n) {
		struct l1_hit *h = &p->hits[p->h_head];

		p->h_head = (p->h_head + 1) % p->h_cap;
		p->h_n--;
		if (h->due > last)
			last = h->due;
		lt_clock_set(p, h->due);
		p->cl.done(p->cl.sm, h->id, h->load ? h->data : NULL);
	}
	return last;
}

/* Handles the answers back by t, the earliest first, each at its time (what they send goes
 * out then). The caller has set the LT clock on and lt_busy. */
static void lt_handle_until(struct l1_port *p, sim_time_t t)
{
	while (p->lt_pend_n && p->lt_pend[0].t <= t && !sim_failure(p->ctx->k)) {
		struct l1_lt_pend e = lt_pend_pop(p);

		lt_clock_set(p, e.t);
		p->response(p->owner, e.m);
		tlm_payload_release(&e.m->p);
		lt_send_queued(p);
		lt_answer_hits(p);
	}
}

sim_time_t l1_port_lt_advance(struct l1_port *p, sim_time_t t)
{
	if (p->lt_pend_n && p->lt_pend[0].t <= t) {
		struct gpu_lt_clock *c = p->ctx->lt_clock;
		bool on = c->on, busy = p->lt_busy;
		sim_time_t ct = c->t, pt = p->lt_t;

		c->on = true;
		p->lt_busy = true;
		lt_handle_until(p, t);
		p->lt_busy = busy;
		p->lt_t = pt;
		c->t = ct;
		c->on = on;
	}
	return p->lt_pend_n ? p->lt_pend[0].t : SIM_TIME_MAX;
}

static void l1_port_answer_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct l1_port *p = obj;
	struct mem_msg *m = arg;

	(void)k;
	p->outstanding--;
	p->response(p->owner, m);
	tlm_payload_release(&m->p);
}

void l1_port_set_lt(struct l1_port *p, bool on)
{
	p->lt = on;
	/* back to the detailed face: the answers still in flight arrive at their times, as the
	 * NoC's would */
	while (!on && p->lt_pend_n) {
		struct l1_lt_pend e = lt_pend_pop(p);
		sim_time_t now = sim_now(p->ctx->k);

		p->outstanding++;
		sim_schedule_at(p->ctx->k, e.t > now ? e.t : now, SIM_PRIO_DEFAULT,
				l1_port_answer_cb, p, e.m);
	}
}

sim_time_t l1_port_lt_access(struct l1_port *p,
			     bool (*access)(struct gpu_l1 *, const struct gpu_access *),
			     struct gpu_l1 *l1, const struct gpu_access *a, sim_time_t t, bool last)
{
	struct gpu_lt_clock *c = p->ctx->lt_clock;
	bool on = c->on, ok;
	sim_time_t end = t, back;

	(void)last; /* each access is sent at once; its answers come at their times */
	c->on = true;
	p->lt_busy = true;
	/* what came back by t is in the L1 when the access looks */
	lt_handle_until(p, t);
	lt_clock_set(p, t);
	ok = access(l1, a);
	if (ok) {
		back = lt_send_queued(p);
		if (back > end)
			end = back;
		back = lt_answer_hits(p);
		if (back > end)
			end = back;
	} else if (!p->lt_pend_n) {
		/* nothing in flight could free what it needs */
		sim_fail(p->ctx->k, -CS_EPROTO, "sm%u.l1: an LT access was refused", p->sm);
	}
	p->want_retry = false; /* the SM tries again when the next answer is handled */
	p->lt_busy = false;
	lt_clock_set(p, t);
	c->on = on;
	return ok ? end : SIM_TIME_MAX;
}

static const struct tlm_bw_ops l1_port_bw = {.nb_transport_bw = l1_port_nb_bw};

bool l1_port_idle(const struct l1_port *p)
{
	return !p->q.n && !p->outstanding && !p->h_n && !p->req_open && !p->lt_pend_n &&
	       !p->ackq.n && !p->ack_open;
}

int l1_port_init(struct l1_port *p, const struct gpu_ctx *ctx, unsigned sm,
		 const struct gpu_l1_client *cl, void (*response)(void *, struct mem_msg *),
		 void *owner, struct cs_stat_group *g)
{
	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->sm = sm;
	p->cl = *cl;
	p->response = response;
	p->owner = owner;
	p->line_bytes = (unsigned)ctx->l1->line_bytes;
	p->q_limit = (unsigned)ctx->l1->miss_queue;
	/* one access per cycle: at most latency + 1 hits wait at once */
	p->h_cap = (unsigned)ctx->l1->latency + 2;
	p->hits = calloc(p->h_cap, sizeof(*p->hits));
	if (!p->hits || msgq_init(&p->q, p->q_limit))
		return -CS_ENOMEM;
	tlm_initiator_init(&p->noc, "l1.noc", &l1_port_bw, p);
	p->msgs_sent = cs_stat_counter(g, "messages", "", "messages sent to the NoC");
	return 0;
}

void l1_port_fini(struct l1_port *p)
{
	msgq_release_all(&p->q);
	msgq_free(&p->q);
	if (p->ackq.s)
		msgq_release_all(&p->ackq);
	msgq_free(&p->ackq);
	while (p->lt_pend_n)
		tlm_payload_release(&lt_pend_pop(p).m->p);
	free(p->lt_pend);
	p->lt_pend = NULL;
	free(p->hits);
	p->hits = NULL;
}

void l1_common_stats_register(struct l1_common_stats *s, struct cs_stat_group *g, bool hit_rate)
{
	s->accesses = cs_stat_counter(g, "accesses", "", "accesses taken from the LD/ST unit");
	s->loads = cs_stat_counter(g, "loads", "", "load accesses");
	s->stores = cs_stat_counter(g, "stores", "", "store accesses");
	s->atomics = cs_stat_counter(g, "atomics", "", "atomic accesses (performed at the L2)");
	s->load_hits = cs_stat_counter(g, "load_hits", "", "loads served by the L1");
	s->refused_mshr = cs_stat_counter(g, "stall.mshr_full", "", "accesses refused: MSHRs full");
	s->refused_merge = cs_stat_counter(g, "stall.merge_full", "",
					   "accesses refused: MSHR entry's merge slots full");
	s->refused_queue =
	    cs_stat_counter(g, "stall.miss_queue", "", "accesses refused: miss queue full");
	s->miss_latency = cs_stat_average(g, "miss_latency", "cycles", "L1 miss to its answer");
	if (hit_rate)
		cs_stat_ratio(g, "load_hit_rate", "loads served by the L1", s->load_hits, s->loads);
}

/* ---- one-way mode ----------------------------------------------------------------------------- */

/* The network delivers an answer (the L1 handles it) or a probe (the owner's). */
static enum tlm_sync_enum l1_port_deliver_fw(void *obj, struct tlm_payload *pl, enum tlm_phase *ph,
					     sim_time_t *d)
{
	struct l1_port *p = obj;
	struct mem_msg *m = mem_msg_of(pl);

	(void)d;
	if (*ph != TLM_BEGIN_REQ) {
		sim_fail(p->ctx->k, -CS_EPROTO, "sm%u.l1: unexpected phase %s on delivery", p->sm,
			 tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (m->vnet == p->req_vnet || m->vnet == p->ack_vnet) {
		/* an answer: it comes on the answers' vnet (the ack vnet) */
		p->outstanding--;
		p->response(p->owner, m);
		tlm_payload_release(pl);
	} else {
		p->probe(p->owner, m, NULL);
	}
	return TLM_COMPLETED;
}

/* The LT face: an answer is the sender's (its b_transport returns with it); a probe is
 * performed here. */
static void l1_port_deliver_b(void *obj, struct tlm_payload *pl, sim_time_t *delay)
{
	struct l1_port *p = obj;
	struct mem_msg *m = mem_msg_of(pl);

	if (m->vnet != p->req_vnet && m->vnet != p->ack_vnet)
		p->probe(p->owner, m, delay);
}

static const struct tlm_fw_ops l1_port_deliver_ops = {
    .b_transport = l1_port_deliver_b,
    .nb_transport_fw = l1_port_deliver_fw,
};

int l1_port_oneway(struct l1_port *p, uint8_t req_vnet, uint8_t ack_vnet,
		   void (*probe)(void *owner, struct mem_msg *m, sim_time_t *lt_delay))
{
	if (msgq_init(&p->ackq, 4))
		return -CS_ENOMEM;
	p->oneway = true;
	p->req_vnet = req_vnet;
	p->ack_vnet = ack_vnet;
	p->probe = probe;
	tlm_target_init(&p->deliver, "l1.deliver", &l1_port_deliver_ops, p);
	return 0;
}

struct tlm_target_socket *l1_port_deliver(struct l1_port *p)
{
	return &p->deliver;
}

struct mem_msg *l1_port_ack_msg(struct l1_port *p, const struct mem_msg *probe, uint8_t type)
{
	struct mem_msg *m = l1_port_msg(p, type, probe->p.addr, probe->txn);

	if (!m)
		return NULL;
	m->dst = probe->src;
	m->vnet = p->ack_vnet;
	return m;
}

void l1_port_ack_send(struct l1_port *p, struct mem_msg *m, sim_time_t *lt_delay)
{
	struct tlm_payload *pl = &m->p;

	if (lt_delay) {
		m->sent_ps = sim_now(p->ctx->k) + *lt_delay;
		(*p->msgs_sent)++;
		tlm_b_transport(&p->noc, pl, lt_delay);
		tlm_payload_release(pl);
		return;
	}
	if (!msgq_push(&p->ackq, m, 0)) {
		sim_fail(p->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory", p->sm);
		tlm_payload_release(pl);
		return;
	}
	if (!p->ack_open)
		l1_port_schedule_pump(p);
}

void l1_port_ack(struct l1_port *p, const struct mem_msg *probe, uint8_t type, sim_time_t *lt_delay)
{
	struct mem_msg *m = l1_port_ack_msg(p, probe, type);

	if (m)
		l1_port_ack_send(p, m, lt_delay);
}

/* The data answer to record txn and when it is back (*due; 0 when still in its b_transport,
 * answered: before anything the home sends after it), or NULL. */
static struct mem_msg *lt_answer_of(const struct l1_port *p, uint32_t txn, sim_time_t *due)
{
	struct mem_msg *f = p->lt_inflight;

	*due = 0;
	if (f && f->txn == txn && f->resp_type == GPU_MSG_DATA && f->type == GPU_MSG_DATA)
		return f;
	for (unsigned i = 0; i < p->lt_pend_n; i++) {
		struct mem_msg *m = p->lt_pend[i].m;

		if (m->txn == txn && m->resp_type == GPU_MSG_DATA) {
			*due = p->lt_pend[i].t;
			return m;
		}
	}
	return NULL;
}

struct mem_msg *l1_port_lt_pending(const struct l1_port *p, uint32_t txn)
{
	sim_time_t due;

	return lt_answer_of(p, txn, &due);
}

sim_time_t l1_port_lt_due(const struct l1_port *p, uint32_t txn)
{
	sim_time_t due;

	return lt_answer_of(p, txn, &due) ? due : SIM_TIME_MAX;
}

sim_time_t l1_port_lt_last(const struct l1_port *p)
{
	sim_time_t last = 0;

	for (unsigned i = 0; i < p->lt_pend_n; i++)
		if (p->lt_pend[i].t > last)
			last = p->lt_pend[i].t;
	return last;
}
