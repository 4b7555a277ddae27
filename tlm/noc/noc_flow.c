/*
 * tlm/noc/noc_flow.c - packets through the NoC: injection, router arbitration, credits,
 * ejection, and the TLM faces (see noc.h for the model and the handshake).
 *
 * Event-driven: nothing ticks. Per output port one arbitration event is pending at most, at the
 * earliest cycle something may leave through it; credit returns, injection-buffer frees and
 * deliveries are one-shot callbacks at the cycle they happen. All run at the default priority
 * (the kernel orders same-time items by insertion, deterministically), and their order within a
 * cycle does not change any outcome: a packet's readiness depends on the cycle only (it is
 * registered with its output port at least one cycle ahead: router and link latencies are >= 1),
 * arbitrations of different ports touch different state, and a credit return that comes after
 * its port's arbitration in the same cycle re-runs that arbitration in a delta cycle of the same
 * cycle, which picks the same winner (nothing was granted in between).
 */
#include <stdlib.h>

#include "tlm/noc/noc_impl.h"

/* ---- packets --------------------------------------------------------------------------------- */

#define PKT_CHUNK 256

static struct noc_pkt *pkt_alloc(struct noc *n)
{
	struct noc_pkt *pk = n->free;

	if (!pk) {
		struct noc_chunk *c = malloc(sizeof(*c) + PKT_CHUNK * sizeof(struct noc_pkt));

		if (!c) {
			sim_fail(n->k, -CS_ENOMEM, "noc: out of memory");
			return NULL;
		}
		c->next = n->chunks;
		n->chunks = c;
		for (unsigned i = 0; i < PKT_CHUNK; i++) {
			c->pk[i].next = n->free;
			n->free = &c->pk[i];
		}
		pk = n->free;
	}
	n->free = pk->next;
	pk->next = NULL;
	pk->need_end = false;
	return pk;
}

static void pkt_free(struct noc *n, struct noc_pkt *pk)
{
	pk->p = NULL;
	pk->next = n->free;
	n->free = pk;
}

static void fifo_push(struct noc_in *in, struct noc_pkt *pk)
{
	pk->next = NULL;
	if (in->tail)
		in->tail->next = pk;
	else
		in->head = pk;
	in->tail = pk;
}

static struct noc_pkt *fifo_pop(struct noc_in *in)
{
	struct noc_pkt *pk = in->head;

	in->head = pk->next;
	if (!in->head)
		in->tail = NULL;
	pk->next = NULL;
	return pk;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t now_cycle(struct noc *n)
{
	return noc_cycle_ceil(n, sim_now(n->k));
}

/* ---- statistics ------------------------------------------------------------------------------ */

void noc_count(struct noc_net *net, unsigned cls, uint32_t flits, uint32_t payload)
{
	struct noc *n = net->n;
	uint64_t bytes = (uint64_t)n->hdr + payload;

	++*net->packets;
	*net->flits += flits;
	*net->bytes += bytes;
	*net->payload_bytes += payload;
	++*net->cls[cls].packets;
	*net->cls[cls].flits += flits;
	*net->cls[cls].bytes += bytes;
	++*n->tot_packets;
	*n->tot_flits += flits;
	*n->tot_bytes += bytes;
}

/* ---- arbitration ----------------------------------------------------------------------------- */

static void ev_try(struct sim_kernel *k, void *obj, void *arg);

/* Make sure an arbitration of o happens at cycle c at the latest. */
static void out_schedule(struct noc_out *o, uint64_t c)
{
	struct noc *n = o->net->n;

	if (o->sched <= c)
		return;
	if (o->sched != NOC_NEVER)
		sim_cancel(n->k, o->h);
	o->sched = c;
	o->h = sim_schedule_at(n->k, noc_edge(n, c), SIM_PRIO_DEFAULT, ev_try, o, NULL);
}

static void ej_schedule(struct noc_in *eq, uint64_t c);

/* The head packet of in (a router input or an ejection buffer) is new. */
static void head_arrive(struct noc_in *in, uint64_t now_c)
{
	struct noc *n = in->net->n;
	struct noc_pkt *pk = in->head;
	struct noc_out *o;

	if (!in->r) { /* ejection buffer: deliver once the tail is in */
		if (!in->busy)
			ej_schedule(in, max64(pk->ha + pk->flits - 1, now_c));
		return;
	}
	pk->ready = max64(pk->ha + n->R, in->free_at);
	o = in->r->route[pk->dst];
	o->wait[in->local] = pk;
	o->n_wait++;
	if (!o->credit_wait)
		out_schedule(o, max64(pk->ready, o->free_at));
}

static void ev_credit(struct sim_kernel *k, void *obj, void *arg)
{
	struct noc_out *o = obj;

	(void)k;
	o->credits += (uint32_t)(uintptr_t)arg;
	if (o->credit_wait) {
		o->credit_wait = false;
		out_schedule(o, now_cycle(o->net->n));
	}
}

static void inj_admit(struct noc_ep *ep);

static void ev_inj_free(struct sim_kernel *k, void *obj, void *arg)
{
	struct noc_in *in = obj;

	(void)k;
	in->used -= (uint32_t)(uintptr_t)arg;
	if (in->ep->pend_head)
		inj_admit(in->ep);
}

/* Packet pk (head of input idx of o's router) leaves through o at cycle c. */
static void grant(struct noc_out *o, unsigned idx, uint64_t c)
{
	struct noc *n = o->net->n;
	struct noc_pkt *pk = o->wait[idx];
	struct noc_in *in = o->r->in[idx], *dn = o->down;
	uint32_t f = pk->flits;
	uint64_t tail_leaves = c + f - 1;

	o->wait[idx] = NULL;
	o->n_wait--;
	o->rr = idx;
	fifo_pop(in);
	in->free_at = c + f;
	if (in->up)
		sim_schedule_at(n->k, noc_edge(n, tail_leaves + n->L), SIM_PRIO_DEFAULT, ev_credit,
				in->up, (void *)(uintptr_t)f);
	else
		sim_schedule_at(n->k, noc_edge(n, tail_leaves), SIM_PRIO_DEFAULT, ev_inj_free, in,
				(void *)(uintptr_t)f);
	o->free_at = c + f;
	o->credits -= f;
	*o->flits += f;
	if (in->head)
		head_arrive(in, c);
	pk->ha = c + n->L;
	fifo_push(dn, pk);
	if (dn->head == pk)
		head_arrive(dn, c);
}

static void ev_try(struct sim_kernel *k, void *obj, void *arg)
{
	struct noc_out *o = obj;
	uint64_t c = o->sched, next = NOC_NEVER;
	unsigned n_in = o->r->n_in, idx = 0;
	struct noc_pkt *win = NULL;

	(void)k;
	(void)arg;
	o->sched = NOC_NEVER;
	if (!o->n_wait)
		return;
	if (o->free_at > c) {
		out_schedule(o, o->free_at);
		return;
	}
	for (unsigned i = 1; i <= n_in; i++) {
		struct noc_pkt *pk;

		idx = o->rr + i;
		if (idx >= n_in)
			idx -= n_in;
		pk = o->wait[idx];
		if (!pk)
			continue;
		if (pk->ready <= c) {
			win = pk;
			break;
		}
		if (pk->ready < next)
			next = pk->ready;
	}
	if (!win) {
		out_schedule(o, next);
		return;
	}
	if (o->credits < win->flits) {
		o->credit_wait = true; /* the next credit return arbitrates again */
		return;
	}
	grant(o, idx, c);
	if (o->n_wait)
		out_schedule(o, o->free_at);
}

/* ---- injection ------------------------------------------------------------------------------- */

static bool inj_room(const struct noc *n, const struct noc_in *in, const struct noc_pkt *pk)
{
	return in->used + pk->flits <= n->buf;
}

/* pk enters the injection buffer in at cycle c. */
static void inj_take(struct noc_net *net, struct noc_in *in, struct noc_pkt *pk, uint64_t c)
{
	in->used += pk->flits;
	*in->flits += pk->flits;
	pk->ha = c;
	net->n->in_flight++;
	noc_count(net, pk->cls, pk->flits, pk->payload);
	fifo_push(in, pk);
	if (in->head == pk)
		head_arrive(in, c);
}

/* Takes pending offers of ep while they fit, sending the END they are owed. */
static void inj_admit(struct noc_ep *ep)
{
	struct noc *n = ep->n;
	struct noc_net *net = &n->net[ep->mem ? NOC_RESP : NOC_REQ];
	struct noc_in *in = net->inj[ep->idx];
	struct noc_pkt *pk;

	while ((pk = ep->pend_head) && inj_room(n, in, pk)) {
		struct tlm_payload *p = pk->p;
		bool owed = pk->need_end;
		enum tlm_phase ph;
		sim_time_t d = 0;

		ep->pend_head = pk->next;
		if (!ep->pend_head)
			ep->pend_tail = NULL;
		inj_take(net, in, pk, now_cycle(n));
		if (!owed)
			continue;
		/* The peer may offer again from inside this call: our state is consistent. */
		if (ep->mem) {
			ph = TLM_END_RESP;
			tlm_nb_transport_fw(&ep->is, p, &ph, &d);
		} else {
			ph = TLM_END_REQ;
			tlm_nb_transport_bw(&ep->ts, p, &ph, &d);
		}
	}
}

/* An offer from ep: taken now (true) or queued until there is room (false). */
static bool inj_offer(struct noc_ep *ep, struct noc_pkt *pk, bool owed)
{
	struct noc *n = ep->n;
	struct noc_net *net = &n->net[ep->mem ? NOC_RESP : NOC_REQ];
	struct noc_in *in = net->inj[ep->idx];

	pk->offer = sim_now(n->k);
	if (!ep->pend_head && inj_room(n, in, pk)) {
		inj_take(net, in, pk, now_cycle(n));
		return true;
	}
	++*net->stalls;
	pk->need_end = owed;
	pk->next = NULL;
	if (ep->pend_tail)
		ep->pend_tail->next = pk;
	else
		ep->pend_head = pk;
	ep->pend_tail = pk;
	return false;
}

/* A message class the protocol defined (else the run fails). Both faces. */
static bool noc_class_ok(struct noc *n, unsigned cls)
{
	if (cls < n->n_types)
		return true;
	sim_fail(n->k, -CS_EPROTO, "noc: message class %u out of range (%u classes)", cls,
		 n->n_types);
	return false;
}

/* Unloaded latency in NoC cycles of a message on network id from src to dst. Both faces. */
static uint64_t noc_zero_cycles(const struct noc *n, unsigned id, unsigned src, unsigned dst,
				unsigned payload)
{
	return id == NOC_REQ ? noc_unloaded_cycles(n, src, dst, payload, false)
			     : noc_unloaded_cycles(n, dst, src, payload, true);
}

/* A packet for p on network id from source endpoint src to destination dst. */
static struct noc_pkt *pkt_make(struct noc *n, struct tlm_payload *p, unsigned id, unsigned src,
				unsigned dst, unsigned cls, unsigned payload)
{
	struct noc_pkt *pk;

	if (!noc_class_ok(n, cls))
		return NULL;
	if (noc_flits_of(n, payload) > n->buf) {
		sim_fail(n->k, -CS_EPROTO,
			 "noc: a %u B message needs %u flits, more than noc.buffer_flits (%u)",
			 payload, noc_flits_of(n, payload), n->buf);
		return NULL;
	}
	pk = pkt_alloc(n);
	if (!pk)
		return NULL;
	pk->p = p;
	pk->src = (uint16_t)src;
	pk->dst = (uint16_t)dst;
	pk->cls = (uint8_t)cls;
	pk->payload = payload;
	pk->flits = noc_flits_of(n, payload);
	pk->zero = noc_zero_cycles(n, id, src, dst, payload);
	lt_res_note(&n->net[id].dst[dst]->lt, sim_now(n->k), pk->flits);
	return pk;
}

/* ---- ejection -------------------------------------------------------------------------------- */

static void ev_deliver(struct sim_kernel *k, void *obj, void *arg);

static void ej_schedule(struct noc_in *eq, uint64_t c)
{
	struct noc *n = eq->net->n;

	if (eq->dsched <= c)
		return;
	if (eq->dsched != NOC_NEVER)
		sim_cancel(n->k, eq->dh);
	eq->dsched = c;
	eq->dh = sim_schedule_at(n->k, noc_edge(n, c), SIM_PRIO_DEFAULT, ev_deliver, eq, NULL);
}

/* The destination took the head packet of eq (END_REQ, BEGIN_RESP, COMPLETED, END_RESP). */
static void ej_accept(struct noc_in *eq, struct tlm_payload *p)
{
	struct noc *n = eq->net->n;
	struct noc_pkt *pk;
	uint64_t c;

	if (!eq->busy || eq->head->p != p) {
		sim_fail(n->k, -CS_EPROTO, "%s: end of a delivery the NoC did not start",
			 eq->ep->name);
		return;
	}
	eq->busy = false;
	pk = fifo_pop(eq);
	c = now_cycle(n);
	sim_schedule_at(n->k, noc_edge(n, c + n->L), SIM_PRIO_DEFAULT, ev_credit, eq->up,
			(void *)(uintptr_t)pk->flits);
	n->in_flight--;
	pkt_free(n, pk);
	if (eq->head)
		head_arrive(eq, c);
}

static bool resp_offer(struct noc_ep *bank, struct tlm_payload *p, bool owed);

static void deliver_req(struct noc_in *eq, struct tlm_payload *p)
{
	struct noc *n = eq->net->n;
	struct noc_ep *bank = eq->ep;
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;
	enum tlm_sync_enum r = tlm_nb_transport_fw(&bank->is, p, &ph, &d);

	switch (r) {
	case TLM_ACCEPTED:
		return; /* END_REQ or BEGIN_RESP on nb_transport_bw */
	case TLM_UPDATED:
		if (ph == TLM_END_REQ) {
			ej_accept(eq, p);
			return;
		}
		if (ph == TLM_BEGIN_RESP) {
			/* answered at once: END_RESP now if the response network takes it,
			 * else when it does */
			ej_accept(eq, p);
			if (resp_offer(bank, p, true)) {
				ph = TLM_END_RESP;
				d = 0;
				tlm_nb_transport_fw(&bank->is, p, &ph, &d);
			}
			return;
		}
		sim_fail(n->k, -CS_EPROTO, "%s: BEGIN_REQ answered with %s", bank->name,
			 tlm_phase_name(ph));
		return;
	case TLM_COMPLETED:
		/* answered on the return path: carry the response back, no END_RESP owed */
		ej_accept(eq, p);
		resp_offer(bank, p, false);
		return;
	}
}

static void deliver_resp(struct noc_in *eq, struct tlm_payload *p)
{
	struct noc *n = eq->net->n;
	struct noc_ep *sm = eq->ep;
	enum tlm_phase ph = TLM_BEGIN_RESP;
	sim_time_t d = 0;
	enum tlm_sync_enum r = tlm_nb_transport_bw(&sm->ts, p, &ph, &d);

	/* The SM may have released p in that call: compare it, never read it. */
	if (r == TLM_COMPLETED || (r == TLM_UPDATED && ph == TLM_END_RESP))
		ej_accept(eq, p);
	else if (r != TLM_ACCEPTED)
		sim_fail(n->k, -CS_EPROTO, "%s: BEGIN_RESP answered with %s", sm->name,
			 tlm_phase_name(ph));
}

static void ev_deliver(struct sim_kernel *k, void *obj, void *arg)
{
	struct noc_in *eq = obj;
	struct noc_net *net = eq->net;
	struct noc *n = net->n;
	struct noc_pkt *pk = eq->head;
	uint64_t c = eq->dsched, tail;
	double lat, q;

	(void)arg;
	eq->dsched = NOC_NEVER;
	if (eq->busy || !pk)
		return;
	tail = pk->ha + pk->flits - 1;
	if (tail > c) {
		ej_schedule(eq, tail);
		return;
	}
	lat = (double)(sim_now(k) - pk->offer) / (double)SIM_NS;
	q = (double)(sim_now(k) - noc_edge(n, noc_cycle_ceil(n, pk->offer) + pk->zero)) /
	    (double)SIM_NS;
	cs_stat_avg_sample(net->latency, lat);
	cs_stat_avg_sample(net->queueing, q);
	cs_stat_avg_sample(n->tot_latency, lat);
	eq->busy = true;
	if (net->id == NOC_REQ)
		deliver_req(eq, pk->p);
	else
		deliver_resp(eq, pk->p);
}

/* ---- the response network's entry ------------------------------------------------------------ */

/* Bank answered p: the response goes to SM msg->src. */
static bool resp_offer(struct noc_ep *bank, struct tlm_payload *p, bool owed)
{
	struct noc *n = bank->n;
	struct mem_msg *m = mem_msg_of(p);
	struct noc_pkt *pk;

	if (m->src >= n->n_req) {
		sim_fail(n->k, -CS_EPROTO, "%s: response for SM %u, the NoC has %u", bank->name,
			 m->src, n->n_req);
		return true;
	}
	pk = pkt_make(n, p, NOC_RESP, bank->idx, m->src, m->resp_type, m->resp_bytes);
	if (!pk)
		return true;
	return inj_offer(bank, pk, owed);
}

/* ---- TLM: SM side (target sockets) ----------------------------------------------------------- */

static enum tlm_sync_enum sm_nb_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				   sim_time_t *delay)
{
	struct noc_ep *sm = obj;
	struct noc *n = sm->n;
	struct mem_msg *m = mem_msg_of(p);
	struct noc_pkt *pk;

	(void)delay;
	if (*ph == TLM_END_RESP) {
		ej_accept(&n->net[NOC_RESP].ej[sm->idx], p);
		return TLM_COMPLETED;
	}
	if (*ph != TLM_BEGIN_REQ) {
		sim_fail(n->k, -CS_EPROTO, "%s: unexpected %s", sm->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (m->dst >= n->n_mem) {
		sim_fail(n->k, -CS_EPROTO, "%s: request for L2 bank %u, the NoC has %u", sm->name,
			 m->dst, n->n_mem);
		return TLM_COMPLETED;
	}
	pk = pkt_make(n, p, NOC_REQ, sm->idx, m->dst, m->type, m->req_bytes);
	if (!pk)
		return TLM_COMPLETED;
	if (inj_offer(sm, pk, true)) {
		*ph = TLM_END_REQ;
		return TLM_UPDATED;
	}
	return TLM_ACCEPTED;
}

/* The LT face of one message on network id from endpoint src to dst: its counts, as the
 * detailed face makes them (per class, per link along its route), and its delay from time t:
 * the unloaded latency from the next NoC edge, plus the wait the destination's ejection port
 * meter predicts. Returns the time its tail is delivered. */
static sim_time_t noc_lt_hop(struct noc *n, unsigned id, unsigned src, unsigned dst, unsigned cls,
			     unsigned payload, sim_time_t t)
{
	struct noc_net *net = &n->net[id];
	uint32_t f = noc_flits_of(n, payload);
	struct noc_in *in = net->inj[src];
	struct noc_ep *ep = net->dst[dst];
	uint64_t c, zero;
	double wait;

	if (!noc_class_ok(n, cls))
		return t;
	noc_count(net, cls, f, payload);
	*in->flits += f;
	for (struct noc_router *r = in->r; r;) {
		struct noc_out *o = r->route[dst];

		*o->flits += f;
		r = o->down->r;
	}
	lt_res_note(&ep->lt, t, f);
	wait = lt_res_wait(&ep->lt, n->ltp, LT_RES_NOC);
	zero = noc_zero_cycles(n, id, src, dst, payload);
	c = noc_cycle_ceil(n, t) + zero + (uint64_t)(wait + 0.5);
	return noc_edge(n, c);
}

static void sm_b_transport(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct noc_ep *sm = obj;
	struct noc *n = sm->n;
	struct mem_msg *m = mem_msg_of(p);
	unsigned bank = m->dst;
	sim_time_t now = sim_now(n->k), t;

	if (bank >= n->n_mem) {
		sim_fail(n->k, -CS_EPROTO, "%s: request for L2 bank %u, the NoC has %u", sm->name,
			 bank, n->n_mem);
		p->status = TLM_ADDRESS_ERROR_RESPONSE;
		return;
	}
	t = noc_lt_hop(n, NOC_REQ, sm->idx, bank, m->type, m->req_bytes, now + *delay);
	*delay = t - now;
	tlm_b_transport(&n->mem[bank].is, p, delay);
	t = noc_lt_hop(n, NOC_RESP, bank, sm->idx, m->resp_type, m->resp_bytes, now + *delay);
	*delay = t - now;
}

void noc_set_lt(struct noc *n, const struct lt_params *p)
{
	n->ltp = p ? p : &n->lt_default;
	for (unsigned i = 0; i < n->n_req; i++)
		lt_res_init(&n->sm[i].lt, sim_clock_period_ps(&n->clk), n->ltp);
	for (unsigned i = 0; i < n->n_mem; i++)
		lt_res_init(&n->mem[i].lt, sim_clock_period_ps(&n->clk), n->ltp);
}

static unsigned sm_transport_dbg(void *obj, struct tlm_payload *p)
{
	struct noc_ep *sm = obj;
	unsigned bank = mem_msg_of(p)->dst;

	if (bank >= sm->n->n_mem)
		return 0;
	return tlm_transport_dbg(&sm->n->mem[bank].is, p);
}

const struct tlm_fw_ops noc_sm_fw_ops = {
    .b_transport = sm_b_transport,
    .nb_transport_fw = sm_nb_fw,
    .transport_dbg = sm_transport_dbg,
};

/* ---- TLM: bank side (initiator sockets) ------------------------------------------------------ */

static enum tlm_sync_enum mem_nb_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				    sim_time_t *delay)
{
	struct noc_ep *bank = obj;
	struct noc *n = bank->n;
	struct noc_in *eq = &n->net[NOC_REQ].ej[bank->idx];

	(void)delay;
	if (*ph == TLM_END_REQ) {
		ej_accept(eq, p);
		return TLM_ACCEPTED;
	}
	if (*ph != TLM_BEGIN_RESP) {
		sim_fail(n->k, -CS_EPROTO, "%s: unexpected %s", bank->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (eq->busy && eq->head->p == p) /* BEGIN_RESP implies END_REQ */
		ej_accept(eq, p);
	if (resp_offer(bank, p, true)) {
		*ph = TLM_END_RESP;
		return TLM_UPDATED;
	}
	return TLM_ACCEPTED;
}

const struct tlm_bw_ops noc_mem_bw_ops = {
    .nb_transport_bw = mem_nb_bw,
};
