/*
 * tlm/noc/noc_impl.h - the NoC's internal state, shared by noc.c (construction, closed forms,
 * configuration) and noc_flow.c (packets, routers, credits and the TLM faces). Not an API.
 *
 * A network is a graph of input buffers (struct noc_in) and output ports (struct noc_out):
 * every output port feeds exactly one input buffer downstream (a router input, or the ejection
 * buffer of a destination endpoint) and holds that buffer's credits; every router input buffer
 * but the injection buffers is fed by exactly one output port upstream, to which it returns
 * credits. A packet is in exactly one place: an endpoint's pending list (offered, not yet
 * taken), an input buffer's FIFO, or an ejection buffer's FIFO (until its endpoint accepts it).
 * Time inside is counted in NoC cycles (edge numbers of the NoC clock).
 */
#ifndef COHSCOPE_TLM_NOC_NOC_IMPL_H
#define COHSCOPE_TLM_NOC_NOC_IMPL_H

#include "analytic/ltmodel.h"
#include "tlm/mem/msg.h"
#include "tlm/noc/noc.h"

#define NOC_NEVER UINT64_MAX
#define NOC_REQ	  0u
#define NOC_RESP  1u

struct noc;
struct noc_net;
struct noc_out;
struct noc_router;

struct noc_pkt {
	struct noc_pkt *next; /* FIFO or pending list, or the free list */
	struct tlm_payload *p;
	uint64_t ha;	  /* cycle the head arrives in the buffer the packet is in */
	uint64_t ready;	  /* cycle it may leave its router input buffer (head of line) */
	sim_time_t offer; /* when it was offered to the NoC (ps) */
	uint64_t zero;	  /* unloaded latency, cycles */
	uint32_t flits;
	uint32_t payload;  /* payload bytes */
	uint16_t src, dst; /* endpoint indices on the source and destination side */
	uint8_t cls;	   /* message class */
	bool need_end;	   /* pending: END_REQ / END_RESP owed to the source when taken */
};

/* An endpoint: SM i (target socket, injects into the request network) or bank j (initiator
 * socket, injects into the response network). */
struct noc_ep {
	struct tlm_target_socket ts;	/* SM side */
	struct tlm_initiator_socket is; /* bank side */
	struct noc *n;
	unsigned idx;
	bool mem;
	struct noc_pkt *pend_head,
	    *pend_tail;	  /* offered, waiting for room in the injection buffer */
	struct lt_res lt; /* load meter of the ejection port in front of it (both faces) */
	char name[48];
};

/* An input buffer: a router input (the injection buffer is the source router's local input)
 * or an ejection buffer in front of a destination endpoint. */
struct noc_in {
	struct noc_pkt *head, *tail;
	struct noc_net *net;
	struct noc_out *up;   /* output port feeding it and owning its credits; NULL: injection */
	struct noc_router *r; /* router it belongs to; NULL: ejection buffer */
	unsigned local;	      /* index among r's inputs */
	uint64_t free_at;     /* cycle from which its read port can start the next packet */
	struct noc_ep *ep;    /* injection: the source; ejection: the destination */
	uint32_t used;	      /* injection buffer: flits held (no credits: the NI is local) */
	bool busy;	      /* ejection: BEGIN sent, END not yet received */
	uint64_t dsched;      /* ejection: cycle of the pending delivery event, or NOC_NEVER */
	struct sim_handle dh;
	uint64_t *flits; /* injection: link stat (flits entering) */
};

struct noc_out {
	struct noc_net *net;
	struct noc_router *r;
	struct noc_in *down;
	uint32_t credits;
	bool credit_wait; /* the RR winner lacks credits: a credit return restarts arbitration */
	uint64_t free_at; /* cycle from which the link can take the next head flit */
	unsigned rr;	  /* input index that won last */
	unsigned n_wait;  /* inputs whose head packet wants this port */
	struct noc_pkt **wait; /* [r->n_in]: that head packet, or NULL */
	uint64_t sched;	       /* cycle of the pending arbitration event, or NOC_NEVER */
	struct sim_handle h;
	uint64_t *flits; /* link stat */
};

struct noc_router {
	unsigned n_in;
	struct noc_in **in;
	struct noc_out **route; /* [net->n_dst]: the output towards each destination endpoint */
};

struct noc_cls_stats {
	uint64_t *packets, *flits, *bytes;
};

struct noc_net {
	struct noc *n;
	unsigned id; /* NOC_REQ or NOC_RESP */
	unsigned n_src, n_dst;
	struct noc_ep **src, **dst; /* endpoint arrays (SMs or banks) */
	unsigned n_routers;
	struct noc_router *routers;
	unsigned n_ins, n_outs;
	struct noc_in *ins; /* every router input buffer */
	struct noc_out *outs;
	struct noc_in *ej;   /* [n_dst] ejection buffers */
	struct noc_in **inj; /* [n_src] injection buffers (in ins) */
	uint64_t *packets, *flits, *bytes, *payload_bytes, *stalls;
	struct cs_stat_avg *latency, *queueing;
	struct noc_cls_stats *cls; /* [n_types] */
};

struct noc_chunk {
	struct noc_chunk *next;
	struct noc_pkt pk[];
};

struct noc {
	struct sim_kernel *k;
	struct noc_cfg cfg;
	struct sim_clock clk;
	unsigned n_req, n_mem, n_types;
	uint32_t R, L, buf, flit, hdr;
	/* mesh geometry: grid position of every SM and bank */
	unsigned cols, rows;
	unsigned *pos_sm, *pos_mem;
	struct noc_ep *sm, *mem;
	struct noc_ep **sm_ptr, **mem_ptr;
	struct noc_net net[2];
	uint64_t in_flight;
	uint64_t *tot_packets, *tot_flits, *tot_bytes;
	struct cs_stat_avg *tot_latency;
	/* packets */
	struct noc_pkt *free;
	struct noc_chunk *chunks;
	/* clock: edge(c) = (c / clk_q) * clk_p + clk_tab[c % clk_q] when clk_tab is set */
	uint64_t clk_q, clk_p;
	sim_time_t *clk_tab;
	const struct lt_params *ltp; /* the LT face's contention model */
	struct lt_params lt_default;
	/* memo of the last time -> cycle conversion */
	sim_time_t memo_t;
	uint64_t memo_c;
};

static inline sim_time_t noc_edge(const struct noc *n, uint64_t c)
{
	if (n->clk_tab)
		return (c / n->clk_q) * n->clk_p + n->clk_tab[c % n->clk_q];
	return sim_clock_edge(&n->clk, c);
}

/* Number of the first edge at or after t. */
uint64_t noc_cycle_ceil(struct noc *n, sim_time_t t);

static inline uint32_t noc_flits_of(const struct noc *n, uint32_t payload)
{
	uint32_t f = (n->hdr + payload + n->flit - 1) / n->flit;

	return f ? f : 1; /* a header-less empty message still takes a flit */
}

unsigned noc_hops_pos(const struct noc *n, unsigned pa, unsigned pb);

/* noc_flow.c */
extern const struct tlm_fw_ops noc_sm_fw_ops;
extern const struct tlm_bw_ops noc_mem_bw_ops;
void noc_count(struct noc_net *net, unsigned cls, uint32_t flits, uint32_t payload);

#endif
