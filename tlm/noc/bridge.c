/* tlm/noc/bridge.c - a bridge between two one-way networks (see bridge.h). */
#include "tlm/noc/bridge.h"

#include <stdio.h>
#include <stdlib.h>

#include "tlm/mem/msg.h"
#include "tlm/noc/noc.h"

static const struct cs_param bridge_rows[] = {
    {"latency", CS_P_UINT, offsetof(struct noc_bridge_cfg, latency), "1", "cycles",
     "from a message's arrival on one side to its offer on the other, in cycles of the network "
     "it enters (gem5's inter-cluster links: BasicLink latency 1)",
     0, 1000000, NULL},
    {"buffer", CS_P_UINT, offsetof(struct noc_bridge_cfg, buffer), "16", "messages",
     "messages a bridge holds per vnet per direction (inferred: one network input buffer of "
     "16 flits holds a data packet)",
     1, 4096, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table noc_bridge_params = {
    .section = "bridge",
    .help = "a bridge between two networks of the system builder (role bridge)",
    .params = bridge_rows,
    .size = sizeof(struct noc_bridge_cfg),
};

/* Messages that arrived on one side for the other, on one vnet: a ring in arrival order. */
struct bridge_q {
	struct tlm_payload **p;
	sim_time_t *ready; /* when each may be offered */
	unsigned head, len;
	bool offering;		   /* the head is offered and not yet taken (END_REQ owed) */
	bool kick_pending;	   /* a kick is scheduled */
	struct tlm_payload *stall; /* arrived to a full ring: END_REQ withheld until room */
};

struct bridge_side {
	struct noc_bridge *b;
	unsigned id;
	const struct sim_clock *clk;
	struct tlm_initiator_socket is; /* into this side's network */
	struct tlm_target_socket ts;	/* from this side's network */
	char name[16];
	/* messages that arrived here, to go out of the other side */
	struct bridge_q q[NOC_VNET_MAX];
	uint64_t *fwd;
};

struct noc_bridge {
	struct sim_kernel *k;
	struct noc_bridge_cfg cfg;
	struct bridge_side side[2];
	uint64_t *stalls, *held;
};

static void kick(struct sim_kernel *k, void *obj, void *arg);

/* Puts p at the tail of from's ring v, ready the bridge latency from now. */
static void push(struct bridge_side *from, unsigned v, struct tlm_payload *p)
{
	struct noc_bridge *b = from->b;
	struct bridge_q *q = &from->q[v];
	unsigned tail = (q->head + q->len) % (unsigned)b->cfg.buffer;
	sim_time_t now = sim_now(b->k);

	q->p[tail] = p;
	q->ready[tail] = now + sim_clock_delay(b->side[!from->id].clk, now, b->cfg.latency);
	q->len++;
}

/* The head of from's ring v went into the other network: drop it, and take the message that
 * waited for room (its END_REQ to from's network). */
static void popped(struct bridge_side *from, unsigned v)
{
	struct noc_bridge *b = from->b;
	struct bridge_q *q = &from->q[v];

	q->head = (q->head + 1) % (unsigned)b->cfg.buffer;
	q->len--;
	(*from->fwd)++;
	if (q->stall) {
		struct tlm_payload *w = q->stall;
		enum tlm_phase e = TLM_END_REQ;
		sim_time_t d = 0;

		q->stall = NULL;
		push(from, v, w);
		tlm_nb_transport_bw(&from->ts, w, &e, &d);
	}
}

/* Offer the heads of from's ring v to the other side while they are ready and taken. */
static void drain(struct bridge_side *from, unsigned v)
{
	struct noc_bridge *b = from->b;
	struct bridge_side *to = &b->side[!from->id];
	struct bridge_q *q = &from->q[v];
	sim_time_t now = sim_now(b->k);

	while (q->len && !q->offering) {
		struct tlm_payload *p = q->p[q->head];
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t d = 0;
		enum tlm_sync_enum r;

		if (q->ready[q->head] > now) {
			if (!q->kick_pending) {
				q->kick_pending = true;
				sim_schedule_at(b->k, q->ready[q->head], SIM_PRIO_DEFAULT, kick,
						from, (void *)(uintptr_t)v);
			}
			return;
		}
		r = tlm_nb_transport_fw(&to->is, p, &ph, &d);
		if (r == TLM_ACCEPTED) {
			q->offering = true; /* END_REQ comes on to->is's backward path */
			(*b->held)++;
			return;
		}
		popped(from, v); /* taken at once */
	}
}

static void kick(struct sim_kernel *k, void *obj, void *arg)
{
	struct bridge_side *from = obj;
	unsigned v = (unsigned)(uintptr_t)arg;

	(void)k;
	from->q[v].kick_pending = false;
	drain(from, v);
}

/* A message delivered by this side's network. */
static enum tlm_sync_enum side_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				  sim_time_t *delay)
{
	struct bridge_side *s = obj;
	struct noc_bridge *b = s->b;
	unsigned v = mem_msg_of(p)->vnet;
	struct bridge_q *q = &s->q[v];

	(void)delay;
	if (*ph != TLM_BEGIN_REQ || v >= NOC_VNET_MAX || q->stall) {
		sim_fail(b->k, -CS_EPROTO, "%s: unexpected %s on vnet %u", s->name,
			 tlm_phase_name(*ph), v);
		return TLM_COMPLETED;
	}
	if (q->len == b->cfg.buffer) {
		q->stall = p;
		(*b->stalls)++;
		return TLM_ACCEPTED;
	}
	push(s, v, p);
	drain(s, v);
	*ph = TLM_END_REQ;
	return TLM_UPDATED;
}

/* END_REQ from this side's network for a message the bridge offered (from the other side). */
static enum tlm_sync_enum side_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				  sim_time_t *delay)
{
	struct bridge_side *s = obj;
	struct noc_bridge *b = s->b;
	struct bridge_side *from = &b->side[!s->id];
	unsigned v = mem_msg_of(p)->vnet;
	struct bridge_q *q = &from->q[v];

	(void)delay;
	if (*ph != TLM_END_REQ || v >= NOC_VNET_MAX || !q->offering || q->p[q->head] != p) {
		sim_fail(b->k, -CS_EPROTO, "%s: unexpected %s", s->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	q->offering = false;
	popped(from, v);
	drain(from, v);
	return TLM_ACCEPTED;
}

static void side_b_transport(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct bridge_side *s = obj;
	struct noc_bridge *b = s->b;
	struct bridge_side *to = &b->side[!s->id];
	sim_time_t t = sim_now(b->k) + *delay;

	*delay += sim_clock_delay(to->clk, t, b->cfg.latency);
	(*s->fwd)++;
	tlm_b_transport(&to->is, p, delay);
}

static unsigned side_dbg(void *obj, struct tlm_payload *p)
{
	struct bridge_side *s = obj;

	return tlm_transport_dbg(&s->b->side[!s->id].is, p);
}

static const struct tlm_fw_ops side_fw_ops = {
    .b_transport = side_b_transport,
    .nb_transport_fw = side_fw,
    .transport_dbg = side_dbg,
};
static const struct tlm_bw_ops side_bw_ops = {.nb_transport_bw = side_bw};

int noc_bridge_create(struct sim_kernel *k, const struct noc_bridge_cfg *cfg,
		      const struct sim_clock *clk0, const struct sim_clock *clk1,
		      struct cs_stat_group *stats, struct noc_bridge **out, struct cs_err *err)
{
	struct noc_bridge *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	b->k = k;
	b->cfg = *cfg;
	for (unsigned i = 0; i < 2; i++) {
		struct bridge_side *s = &b->side[i];

		s->b = b;
		s->id = i;
		s->clk = i ? clk1 : clk0;
		snprintf(s->name, sizeof(s->name), "bridge.%u", i);
		tlm_initiator_init(&s->is, s->name, &side_bw_ops, s);
		tlm_target_init(&s->ts, s->name, &side_fw_ops, s);
		for (unsigned v = 0; v < NOC_VNET_MAX; v++) {
			s->q[v].p = calloc(cfg->buffer, sizeof(*s->q[v].p));
			s->q[v].ready = calloc(cfg->buffer, sizeof(*s->q[v].ready));
			if (!s->q[v].p || !s->q[v].ready) {
				noc_bridge_destroy(b);
				return cs_err_set(err, -CS_ENOMEM, "out of memory");
			}
		}
		s->fwd = cs_stat_counter(stats, i ? "fwd_ba" : "fwd_ab", "",
					 i ? "messages from side 1 into side 0's network"
					   : "messages from side 0 into side 1's network");
	}
	b->stalls = cs_stat_counter(stats, "stalls", "", "arrivals that found their buffer full");
	b->held =
	    cs_stat_counter(stats, "held", "", "offers the entered network did not take at once");
	*out = b;
	return 0;
}

void noc_bridge_destroy(struct noc_bridge *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < 2; i++)
		for (unsigned v = 0; v < NOC_VNET_MAX; v++) {
			free(b->side[i].q[v].p);
			free(b->side[i].q[v].ready);
		}
	free(b);
}

struct tlm_initiator_socket *noc_bridge_inject(struct noc_bridge *b, unsigned side)
{
	return &b->side[side & 1].is;
}

struct tlm_target_socket *noc_bridge_deliver(struct noc_bridge *b, unsigned side)
{
	return &b->side[side & 1].ts;
}

bool noc_bridge_idle(const struct noc_bridge *b)
{
	for (unsigned i = 0; i < 2; i++)
		for (unsigned v = 0; v < NOC_VNET_MAX; v++)
			if (b->side[i].q[v].len || b->side[i].q[v].stall)
				return false;
	return true;
}
