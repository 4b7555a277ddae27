/*
 * tlm/noc/noc_gpu.c - the GPU's request/response face of the network (noc_create): SM i
 * (endpoint i) sends requests on vnet NOC_REQ to L2 bank j (endpoint n_req + j), which answers
 * on vnet NOC_RESP; every request gets a response. The handshake is in noc.h; packets, routers
 * and credits are the generic engine's (noc_flow.c).
 */
#include "tlm/noc/noc_impl.h"

static bool resp_offer(struct noc_ep *bank, struct tlm_payload *p, bool owed);

void noc_gpu_end(struct noc_ep *ep, unsigned v, struct tlm_payload *p)
{
	enum tlm_phase ph;
	sim_time_t d = 0;

	(void)v; /* SMs only send requests, banks only responses */
	if (ep->mem) {
		ph = TLM_END_RESP;
		tlm_nb_transport_fw(&ep->is, p, &ph, &d);
	} else {
		ph = TLM_END_REQ;
		tlm_nb_transport_bw(&ep->ts, p, &ph, &d);
	}
}

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
			noc_ej_accept(eq, p);
			return;
		}
		if (ph == TLM_BEGIN_RESP) {
			/* answered at once: END_RESP now if the response network takes it,
			 * else when it does */
			noc_ej_accept(eq, p);
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
		noc_ej_accept(eq, p);
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
		noc_ej_accept(eq, p);
	else if (r != TLM_ACCEPTED)
		sim_fail(n->k, -CS_EPROTO, "%s: BEGIN_RESP answered with %s", sm->name,
			 tlm_phase_name(ph));
}

void noc_gpu_deliver(struct noc_in *eq, struct tlm_payload *p)
{
	if (eq->net->id == NOC_REQ)
		deliver_req(eq, p);
	else
		deliver_resp(eq, p);
}

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
	pk = noc_pkt_make(n, p, NOC_RESP, bank->id, m->src, m->resp_type, m->resp_bytes);
	if (!pk)
		return true;
	return noc_inj_offer(bank, NOC_RESP, pk, owed);
}

/* ---- SM side (target sockets) ---------------------------------------------------------------- */

static enum tlm_sync_enum sm_nb_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				   sim_time_t *delay)
{
	struct noc_ep *sm = obj;
	struct noc *n = sm->n;
	struct mem_msg *m = mem_msg_of(p);
	struct noc_pkt *pk;

	(void)delay;
	if (*ph == TLM_END_RESP) {
		noc_ej_accept(&n->net[NOC_RESP].ej[sm->id], p);
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
	pk = noc_pkt_make(n, p, NOC_REQ, sm->id, n->n_req + m->dst, m->type, m->req_bytes);
	if (!pk)
		return TLM_COMPLETED;
	if (noc_inj_offer(sm, NOC_REQ, pk, true)) {
		*ph = TLM_END_REQ;
		return TLM_UPDATED;
	}
	return TLM_ACCEPTED;
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
	t = noc_lt_hop(n, NOC_REQ, sm->id, n->n_req + bank, m->type, m->req_bytes, now + *delay);
	*delay = t - now;
	tlm_b_transport(&n->ep[n->n_req + bank].is, p, delay);
	t = noc_lt_hop(n, NOC_RESP, n->n_req + bank, sm->id, m->resp_type, m->resp_bytes,
		       now + *delay);
	*delay = t - now;
}

static unsigned sm_transport_dbg(void *obj, struct tlm_payload *p)
{
	struct noc_ep *sm = obj;
	unsigned bank = mem_msg_of(p)->dst;

	if (bank >= sm->n->n_mem)
		return 0;
	return tlm_transport_dbg(&sm->n->ep[sm->n->n_req + bank].is, p);
}

const struct tlm_fw_ops noc_sm_fw_ops = {
    .b_transport = sm_b_transport,
    .nb_transport_fw = sm_nb_fw,
    .transport_dbg = sm_transport_dbg,
};

/* ---- bank side (initiator sockets) ----------------------------------------------------------- */

static enum tlm_sync_enum mem_nb_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				    sim_time_t *delay)
{
	struct noc_ep *bank = obj;
	struct noc *n = bank->n;
	struct noc_in *eq = &n->net[NOC_REQ].ej[bank->id];

	(void)delay;
	if (*ph == TLM_END_REQ) {
		noc_ej_accept(eq, p);
		return TLM_ACCEPTED;
	}
	if (*ph != TLM_BEGIN_RESP) {
		sim_fail(n->k, -CS_EPROTO, "%s: unexpected %s", bank->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (eq->busy && eq->head->p == p) /* BEGIN_RESP implies END_REQ */
		noc_ej_accept(eq, p);
	if (resp_offer(bank, p, true)) {
		*ph = TLM_END_RESP;
		return TLM_UPDATED;
	}
	return TLM_ACCEPTED;
}

const struct tlm_bw_ops noc_mem_bw_ops = {
    .nb_transport_bw = mem_nb_bw,
};
