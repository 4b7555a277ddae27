/*
 * tlm/coherence/scoped/sc_home.c - an L2 bank as the home of its lines on the one-way network
 * (see the header and README.md §§2-5).
 */
#include "tlm/coherence/scoped/sc_home.h"

#include <stdio.h>
#include <stdlib.h>

#include "tlm/coherence/apu/apu_port.h"
#include "tlm/coherence/scoped.h"
#include "tlm/coherence/scoped/sc_acks.h"
#include "tlm/coherence/scoped/sc_msg.h"
#include "tlm/mem/msgq.h"
#include "tlm/noc/noc.h"

/* A remote operation's transaction record: its request (kept here while probes are out and
 * handed to the bank after them) and the broadcast it waits for. */
enum sc_phase { SC_PH_BEFORE = 0, SC_PH_AT_BANK, SC_PH_AFTER };

struct sc_txn {
	struct mem_msg *req;
	uint64_t line;
	uint8_t phase;	  /* enum sc_phase */
	uint8_t after;	  /* probe type of the broadcast after the bank (0: none) */
	uint32_t acks_in; /* acks received (the answer must come after all of them) */
};

struct sc_home_stats {
	uint64_t *remote_ops, *broadcasts, *probes, *acks, *parked, *stalls, *acks_before_answer;
};

struct sc_home {
	const struct gpu_ctx *ctx;
	unsigned bank, ep;
	struct gpu_l2 *l2; /* the bank (gpu_l2_base.c) */
	struct apu_port *port;
	struct tlm_initiator_socket to_bank;
	struct mem_msg *bank_open; /* offered to the bank, END_REQ owed */
	struct msgq ready;	   /* remote operations whose probes are done, for the bank */
	struct sc_acks *acks;
	struct sc_home_stats st;
};

static struct sc_home *home_of(struct gpu_l2 *l2)
{
	return (struct sc_home *)(void *)l2;
}

static const struct sc_home *home_of_const(const struct gpu_l2 *l2)
{
	return (const struct sc_home *)(const void *)l2;
}

static bool is_remote(const struct mem_msg *m)
{
	return m->type == GPU_MSG_ATOMIC && m->scope == MEM_SCOPE_DEVICE_REMOTE;
}

/* The broadcasts of a remote operation's row (Table 3): before the bank performs it, and
 * after (0: none). An atomic load is a remote acquire (a3-a5); a store a remote release
 * (a9-a14); any other RMW a remote acq-rel (a19-a25). */
static void remote_row(const struct mem_msg *m, uint8_t *before, uint8_t *after)
{
	if (m->atomic_op == MEM_ATOM_LOAD) {
		*before = SC_MSG_FLUSH;
		*after = 0;
	} else if (m->atomic_op == MEM_ATOM_STORE) {
		*before = SC_MSG_LK_FL_INV;
		*after = SC_MSG_INV_UL;
	} else {
		*before = SC_MSG_LK_FL_INV;
		*after = SC_MSG_FL_INV_UL;
	}
}

static struct mem_msg *probe_msg(struct sc_home *h, uint8_t type, const struct mem_msg *req,
				 unsigned sm, uint32_t txn)
{
	struct tlm_payload *pl = tlm_payload_alloc(h->ctx->pool);
	struct mem_msg *m;

	if (!pl) {
		sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory for messages", h->bank);
		return NULL;
	}
	m = mem_msg_of(pl);
	pl->addr = req->p.addr;
	pl->len = (unsigned)h->ctx->l2->line_bytes;
	m->dst = (uint16_t)sm;
	m->vnet = SC_VNET_PRB;
	m->type = type;
	m->txn = txn;
	return m;
}

/* The answer the bank put in m goes to its requester on RSP (its class: the answer's type). */
static void answer(struct sc_home *h, struct mem_msg *m)
{
	m->dst = m->src;
	m->vnet = SC_VNET_RSP;
	m->type = m->resp_type;
	m->req_bytes = m->resp_bytes;
	apu_port_send(h->port, m, 0);
}

/* ---- the detailed face ------------------------------------------------------------------------ */

/* Broadcasts a probe of `type` for record i to every L1 but the requester's: N-1 unicasts on
 * PRB, which leave one after another through the home's injection port. Returns the acks
 * now owed. */
static unsigned broadcast(struct sc_home *h, unsigned i, uint8_t type)
{
	struct sc_txn *t = sc_acks_user(h->acks, i);
	unsigned n = 0;

	for (unsigned sm = 0; sm < h->ctx->sms; sm++) {
		struct mem_msg *m;

		if (sm == t->req->src)
			continue;
		m = probe_msg(h, type, t->req, sm, i);
		if (!m)
			break;
		apu_port_send(h->port, m, 0);
		n++;
	}
	sc_acks_expect(h->acks, i, n);
	(*h->st.broadcasts)++;
	*h->st.probes += n;
	return n;
}

static void offer_ready(void *owner, void *arg);

/* Record i's phase is over (its acks are in, or none were owed). */
static void phase_done(struct sc_home *h, unsigned i)
{
	struct sc_txn *t = sc_acks_user(h->acks, i);
	struct mem_msg *m;
	uint64_t line;

	if (t->phase == SC_PH_BEFORE) {
		t->phase = SC_PH_AT_BANK;
		if (!msgq_push(&h->ready, t->req, 0)) {
			sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory", h->bank);
			return;
		}
		offer_ready(h, NULL);
		return;
	}
	if (t->phase == SC_PH_AT_BANK && t->after) {
		t->phase = SC_PH_AFTER;
		if (broadcast(h, i, t->after))
			return; /* else no L1 to ask: done */
	}
	m = t->req;
	line = t->line;
	*h->st.acks_before_answer += t->acks_in;
	sc_acks_free(h->acks, i);
	answer(h, m);
	apu_port_wake(h->port, line, NULL); /* the next remote operation on the line */
	apu_port_kick(h->port);		    /* one may have waited for a record */
}

static bool line_busy(struct sc_home *h, uint64_t line, unsigned cap)
{
	for (unsigned i = 0; i < cap; i++)
		if (sc_acks_live(h->acks, i) &&
		    ((struct sc_txn *)sc_acks_user(h->acks, i))->line == line)
			return true;
	return false;
}

static enum apu_recv remote_begin(struct sc_home *h, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	uint8_t before;
	struct sc_txn *t;
	int i;

	if (line_busy(h, line, h->ctx->sms)) {
		apu_port_park(h->port, m);
		(*h->st.parked)++;
		return APU_TAKE;
	}
	i = sc_acks_alloc(h->acks);
	if (i < 0) {
		(*h->st.stalls)++;
		return APU_STALL;
	}
	t = sc_acks_user(h->acks, (unsigned)i);
	t->req = m;
	t->line = line;
	t->phase = SC_PH_BEFORE;
	remote_row(m, &before, &t->after);
	(*h->st.remote_ops)++;
	if (!broadcast(h, (unsigned)i, before))
		phase_done(h, (unsigned)i);
	return APU_TAKE;
}

/* Offers m to the bank; when the bank holds it and owes END_REQ, bank_open says so. */
static void to_bank(struct sc_home *h, struct mem_msg *m)
{
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;
	enum tlm_sync_enum r = tlm_nb_transport_fw(&h->to_bank, &m->p, &ph, &d);

	if (r == TLM_ACCEPTED) {
		h->bank_open = m;
		return;
	}
	if (r == TLM_COMPLETED || (r == TLM_UPDATED && ph == TLM_BEGIN_RESP))
		answer(h, m); /* answered at once (not done by gpu_l2_base.c today) */
}

/* The remote operations whose probes are done go to the bank first. */
static void offer_ready(void *owner, void *arg)
{
	struct sc_home *h = owner;

	(void)arg;
	while (h->ready.n && !h->bank_open) {
		struct mem_msg *m = msgq_head(&h->ready)->m;

		msgq_pop(&h->ready);
		to_bank(h, m);
	}
	if (!h->bank_open)
		apu_port_kick(h->port);
}

static enum apu_recv home_recv(void *owner, struct mem_msg *m)
{
	struct sc_home *h = owner;

	if (m->vnet == SC_VNET_RSP) {
		int r = m->type == SC_MSG_ACK ? sc_acks_one(h->acks, m->txn) : -1;
		uint32_t i = m->txn;

		tlm_payload_release(&m->p);
		if (r < 0) {
			sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: an answer no record waits for",
				 h->bank);
			return APU_TAKE;
		}
		(*h->st.acks)++;
		((struct sc_txn *)sc_acks_user(h->acks, i))->acks_in++;
		if (r)
			phase_done(h, i);
		return APU_TAKE;
	}
	if (is_remote(m))
		return remote_begin(h, m);
	if (h->bank_open || h->ready.n)
		return APU_STALL;
	to_bank(h, m);
	return APU_TAKE;
}

/* The bank's side of the request/response handshake. */
static enum tlm_sync_enum bank_bw(void *obj, struct tlm_payload *pl, enum tlm_phase *ph,
				  sim_time_t *d)
{
	struct sc_home *h = obj;
	struct mem_msg *m = mem_msg_of(pl);

	(void)d;
	if (*ph == TLM_END_REQ || (*ph == TLM_BEGIN_RESP && h->bank_open == m)) {
		h->bank_open = NULL;
		apu_port_trigger(h->port, 0, offer_ready, NULL);
	}
	if (*ph == TLM_END_REQ)
		return TLM_ACCEPTED;
	if (*ph != TLM_BEGIN_RESP) {
		sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: unexpected %s from the bank", h->bank,
			 tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (is_remote(m)) {
		for (unsigned i = 0; i < h->ctx->sms; i++) {
			struct sc_txn *t = sc_acks_user(h->acks, i);

			if (sc_acks_live(h->acks, i) && t->req == m) {
				phase_done(h, i);
				return TLM_COMPLETED;
			}
		}
		sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: a remote atomic without its record",
			 h->bank);
		return TLM_COMPLETED;
	}
	answer(h, m);
	return TLM_COMPLETED;
}

static const struct tlm_bw_ops bank_bw_ops = {.nb_transport_bw = bank_bw};

/* ---- the LT face (README.md §5) ---------------------------------------------------------------- */

/* Performs a broadcast functionally: each probe leaves after the ones before it have left the
 * injection port, its ack comes back by b_transport; *delay becomes the latest ack's. */
static void lt_broadcast(struct sc_home *h, const struct mem_msg *req, uint8_t type,
			 sim_time_t *delay)
{
	const struct noc *noc = h->ctx->lt_clock ? h->ctx->lt_clock->noc : NULL;
	sim_time_t start = *delay, latest = *delay, inj = 0;

	for (unsigned sm = 0; sm < h->ctx->sms; sm++) {
		struct mem_msg *m;
		sim_time_t d;

		if (sm == req->src)
			continue;
		m = probe_msg(h, type, req, sm, 0);
		if (!m)
			return;
		m->src = (uint16_t)h->ep;
		d = start + inj;
		m->sent_ps = sim_now(h->ctx->k) + d;
		if (noc)
			inj += sim_clock_delay(noc_clock(noc), sim_now(h->ctx->k) + d,
					       noc_flits(noc, m->req_bytes));
		tlm_b_transport(apu_port_initiator(h->port), &m->p, &d);
		tlm_payload_release(&m->p);
		(*h->st.probes)++;
		(*h->st.acks)++;
		(*h->st.acks_before_answer)++; /* the answer waits for the latest (below) */
		if (d > latest)
			latest = d;
	}
	(*h->st.broadcasts)++;
	*delay = latest;
}

static void home_b_transport(void *owner, struct mem_msg *m, sim_time_t *delay)
{
	struct sc_home *h = owner;
	uint8_t before = 0, after = 0;

	if (m->vnet == SC_VNET_RSP)
		return; /* an ack: the broadcast that sent its probe reads *delay */
	if (is_remote(m)) {
		(*h->st.remote_ops)++;
		remote_row(m, &before, &after);
		lt_broadcast(h, m, before, delay);
	}
	tlm_b_transport(&h->to_bank, &m->p, delay);
	if (after)
		lt_broadcast(h, m, after, delay);
	m->dst = m->src;
	m->vnet = SC_VNET_RSP;
	m->type = m->resp_type;
	m->req_bytes = m->resp_bytes;
	tlm_b_transport(apu_port_initiator(h->port), &m->p, delay);
}

static const struct apu_port_ops home_port_ops = {.recv = home_recv,
						  .b_transport = home_b_transport};

/* ---- gpu_l2_ops ------------------------------------------------------------------------------- */

static void home_destroy(struct gpu_l2 *l2)
{
	struct sc_home *h = home_of(l2);

	if (!h)
		return;
	apu_port_destroy(h->port);
	if (h->ready.s)
		msgq_release_all(&h->ready);
	msgq_free(&h->ready);
	for (unsigned i = 0; h->acks && i < h->ctx->sms; i++)
		if (sc_acks_live(h->acks, i))
			tlm_payload_release(&((struct sc_txn *)sc_acks_user(h->acks, i))->req->p);
	sc_acks_destroy(h->acks);
	gpu_l2_destroy(h->l2);
	free(h);
}

static int home_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
		       struct gpu_l2 **out, struct cs_err *err)
{
	struct sc_home *h = calloc(1, sizeof(*h));
	char name[32];
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!h)
		return cs_err_set(err, rc, "l2.bank%u: out of memory", bank);
	h->ctx = ctx;
	h->bank = bank;
	h->ep = ctx->sms + bank;
	rc = gpu_l2_create_policy(&scoped_l2_policy, ctx, bank, g, &h->l2, err);
	if (rc)
		goto fail_quiet;
	snprintf(name, sizeof(name), "l2.bank%u", bank);
	rc = apu_port_create(ctx->k,
			     &(struct apu_port_cfg){.name = name,
						    .ep = h->ep,
						    .clock_mhz = ctx->l2->clock_mhz,
						    .in_depth = (unsigned)ctx->l2->input_queue,
						    .per_cycle = 1,
						    .msg_names = sc_msg_names,
						    .n_msgs = SC_MSG_COUNT},
			     &home_port_ops, h, &h->port);
	/* one record per L1: each SM has at most one remote atomic per warp in flight, and a
	 * record more than SMs only parks (a full table stalls the REQ input) */
	if (!rc)
		rc = sc_acks_create(ctx->sms, sizeof(struct sc_txn), &h->acks);
	if (!rc && msgq_init(&h->ready, 4))
		rc = -CS_ENOMEM;
	if (rc)
		goto fail;
	tlm_initiator_init(&h->to_bank, "l2.home", &bank_bw_ops, h);
	if (tlm_bind(&h->to_bank, gpu_l2_noc_port(h->l2))) {
		rc = -CS_EINVAL;
		goto fail;
	}
	h->st.remote_ops = cs_stat_counter(g, "remote_ops", "", "remote-scope atomics performed");
	h->st.broadcasts = cs_stat_counter(g, "broadcasts", "", "probe broadcasts sent");
	h->st.probes = cs_stat_counter(g, "probes", "", "probes sent (N-1 per broadcast)");
	h->st.acks = cs_stat_counter(g, "probe_acks", "", "probe acks counted");
	h->st.parked = cs_stat_counter(g, "remote_parked", "",
				       "remote atomics that waited for one on the same line");
	h->st.acks_before_answer =
	    cs_stat_counter(g, "acks_before_answer", "",
			    "acks a remote operation's record had counted when its requester was "
			    "answered (all it was owed)");
	h->st.stalls = cs_stat_counter(g, "remote_stalls", "",
				       "requests held back: every transaction record in use");
	*out = (struct gpu_l2 *)(void *)h;
	return 0;
fail:
	cs_err_set(err, rc, "l2.bank%u: %s", bank, cs_strerror(rc));
fail_quiet:
	home_destroy((struct gpu_l2 *)(void *)h);
	return rc;
}

struct tlm_initiator_socket *sc_home_inject(struct gpu_l2 *l2)
{
	return apu_port_initiator(home_of(l2)->port);
}

struct tlm_target_socket *sc_home_deliver(struct gpu_l2 *l2)
{
	return apu_port_target(home_of(l2)->port);
}

static struct tlm_initiator_socket *home_dram_port(struct gpu_l2 *l2)
{
	return gpu_l2_dram_port(home_of(l2)->l2);
}

static void home_functional_read(struct gpu_l2 *l2, uint64_t addr, void *buf, size_t len)
{
	gpu_l2_functional_read(home_of(l2)->l2, addr, buf, len);
}

static int home_functional_write(struct gpu_l2 *l2, uint64_t addr, const void *buf, size_t len)
{
	return gpu_l2_functional_write(home_of(l2)->l2, addr, buf, len);
}

static bool home_probe(const struct gpu_l2 *l2, uint64_t addr, uint64_t out[3])
{
	return gpu_l2_probe(home_of_const(l2)->l2, addr, out);
}

static bool home_idle(const struct gpu_l2 *l2)
{
	const struct sc_home *h = home_of_const(l2);

	return !h->bank_open && !h->ready.n && !sc_acks_used(h->acks) && apu_port_idle(h->port) &&
	       gpu_l2_idle(h->l2);
}

static uint64_t home_digest(const struct gpu_l2 *l2)
{
	return gpu_l2_digest(home_of_const(l2)->l2);
}

const struct gpu_l2_ops sc_home_l2_ops = {
    .create = home_create,
    .destroy = home_destroy,
    .dram_port = home_dram_port,
    .functional_read = home_functional_read,
    .functional_write = home_functional_write,
    .probe = home_probe,
    .idle = home_idle,
    .digest = home_digest,
};
