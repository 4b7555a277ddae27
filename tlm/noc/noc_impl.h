/*
 * tlm/noc/noc_impl.h - the network's internal state, shared by noc.c (construction, closed
 * forms, configuration), noc_flow.c (packets, routers, credits, the one-way face) and noc_gpu.c
 * (the GPU's request/response face). Not an API.
 *
 * A network has N endpoints and V virtual networks (vnets). Each vnet is a graph of input
 * buffers (struct noc_in) and output ports (struct noc_out) of the same shape: every output port
 * feeds exactly one input buffer downstream (a router input of that vnet, or the vnet's ejection
 * buffer of a destination endpoint) and holds that buffer's credits; every router input buffer
 * but the injection buffers is fed by exactly one output port upstream, to which it returns
 * credits. The output ports of the V vnets that use the same wire form one physical link
 * (struct noc_phys), which carries one flit per cycle and arbitrates among its vnets; with
 * separate links (vnet_links = separate) every output port is its own physical link, i.e. V
 * independent networks. A packet is in exactly one place: an endpoint's pending list of its vnet
 * (offered, not yet taken), an input buffer's FIFO, or an ejection buffer's FIFO (until its
 * endpoint accepts it). Time inside is counted in NoC cycles (edge numbers of the NoC clock).
 */
#ifndef COHSCOPE_TLM_NOC_NOC_IMPL_H
#define COHSCOPE_TLM_NOC_NOC_IMPL_H

#include "analytic/ltmodel.h"
#include "tlm/mem/msg.h"
#include "tlm/noc/noc.h"

#define NOC_NEVER UINT64_MAX
#define NOC_REQ	  0u /* the GPU face's vnets */
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
	uint16_t src, dst; /* endpoint ids */
	uint8_t cls;	   /* message class */
	bool need_end;	   /* pending: END_REQ / END_RESP owed to the source when taken */
};

/* An endpoint: the injection target socket (ts) and the delivery initiator socket (is). The
 * GPU face uses ts for SMs (requests in, responses out) and is for banks (requests out,
 * responses in). */
struct noc_ep {
	struct tlm_target_socket ts;
	struct tlm_initiator_socket is;
	struct noc *n;
	unsigned id;   /* endpoint id */
	unsigned idx;  /* GPU face: SM or bank index */
	unsigned pos;  /* router position */
	unsigned slot; /* mesh: its index among the endpoints of its router (endpoint order) */
	bool mem;      /* GPU face: a bank */
	uint8_t send;  /* vnets it may inject into (bit v) */
	uint8_t recv;  /* vnets it may receive from */
	struct noc_pkt *pend_head[NOC_VNET_MAX],
	    *pend_tail[NOC_VNET_MAX]; /* offered, waiting for room in the injection buffer */
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

/* A physical link: the output ports of the vnets that share one wire. */
struct noc_phys {
	unsigned n_out;
	struct noc_out *out[NOC_VNET_MAX];
	uint64_t free_at; /* cycle from which the link can take the next head flit */
	unsigned rr;	  /* index in out[] of the vnet that won last */
	uint64_t sched;	  /* cycle of the pending arbitration event, or NOC_NEVER */
	struct sim_handle h;
};

struct noc_out {
	struct noc_net *net;
	struct noc_router *r;
	struct noc_in *down;
	struct noc_phys *phys;
	uint32_t credits;
	bool credit_wait; /* the RR winner lacks credits: a credit return restarts arbitration */
	unsigned rr;	  /* input index that won last */
	unsigned n_wait;  /* inputs whose head packet wants this port */
	struct noc_pkt **wait; /* [r->n_in]: that head packet, or NULL */
	uint64_t *flits;       /* link stat */
};

struct noc_router {
	unsigned n_in;
	struct noc_in **in;
	struct noc_out **route; /* [n_ep]: the output towards each endpoint (NULL: none) */
};

struct noc_cls_stats {
	uint64_t *packets, *flits, *bytes;
};

/* One virtual network. */
struct noc_net {
	struct noc *n;
	unsigned id;   /* vnet number */
	char name[24]; /* its stat group's name */
	unsigned n_routers;
	struct noc_router *routers;
	unsigned n_ins, n_outs;
	struct noc_in *ins; /* every router input buffer */
	struct noc_out *outs;
	struct noc_in *ej;   /* [n_ep] ejection buffers (used where the endpoint receives) */
	struct noc_in **inj; /* [n_ep] injection buffers (in ins), NULL where it does not send */
	/* [n_ep] load meters of the injection ports, whose packets leave one at a time (a TCC
	 * answering eight TCPs saturates its own; both faces); one-way networks only, NULL on
	 * the GPU NoC (noc_lt_hop says why) */
	struct lt_res *inj_lt;
	/* [n_ep * n_ep] the LT face's link counters along each route, injection link first,
	 * NULL-terminated, found at a route's first use (noc_lt_hop: walking the routers was
	 * most of its time); NULL until then */
	uint64_t ***lt_path;
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
	bool gpu; /* the GPU request/response face (noc_gpu.c); else one-way messages */
	unsigned n_ep, n_vnets, n_types;
	unsigned n_req, n_mem; /* GPU face: SMs are endpoints 0..n_req-1, banks the next n_mem */
	uint32_t R, L, buf, flit, hdr;
	/* mesh geometry: cols x rows routers, endpoint e at ep[e].pos; router r holds endpoints
	 * rt_ep[rt_start[r] .. rt_start[r + 1]) in endpoint order, at most max_conc of them */
	unsigned cols, rows;
	unsigned *rt_start, *rt_ep;
	unsigned max_conc;
	struct noc_ep *ep;
	/* noc_set_routes: a message's dst is a node id, route[dst] its endpoint here (NULL: dst
	 * is the endpoint) */
	uint16_t *route;
	unsigned n_route;
	struct noc_net net[NOC_VNET_MAX];
	unsigned n_phys;
	struct noc_phys *phys;
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

/* Common construction (noc.c): the network of n_ep endpoints at pos[] (mesh positions) with
 * the given send/recv vnet masks and stat names. The caller sets the sockets' ops after. */
struct noc_build {
	unsigned n_ep, n_vnets;
	const unsigned *pos; /* NULL: endpoint e at position e */
	const uint8_t *send, *recv;
	const char *const *vnet_names;
	const char *const *ep_names; /* stat names of the endpoints */
	bool gpu;
};
int noc_build(struct sim_kernel *k, const struct noc_cfg *cfg, const struct noc_build *b,
	      const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
	      struct noc **out, struct cs_err *err);

/* noc_flow.c: the engine */
void noc_count(struct noc_net *net, unsigned cls, uint32_t flits, uint32_t payload);
bool noc_class_ok(struct noc *n, unsigned cls);
uint64_t noc_zero_cycles(const struct noc *n, unsigned src, unsigned dst, unsigned payload);
/* A packet for p on vnet v from endpoint src to dst, NULL (the kernel failed) if it cannot be. */
struct noc_pkt *noc_pkt_make(struct noc *n, struct tlm_payload *p, unsigned v, unsigned src,
			     unsigned dst, unsigned cls, unsigned payload);
/* An offer from ep on vnet v: taken now (true) or queued until there is room (false; owed: the
 * END is sent when it is taken, noc_send_end). */
bool noc_inj_offer(struct noc_ep *ep, unsigned v, struct noc_pkt *pk, bool owed);
/* The destination took the head packet of eq. */
void noc_ej_accept(struct noc_in *eq, struct tlm_payload *p);
/* The LT face of one message: counts, and the time its tail is delivered from time t. */
sim_time_t noc_lt_hop(struct noc *n, unsigned v, unsigned src, unsigned dst, unsigned cls,
		      unsigned payload, sim_time_t t);
extern const struct tlm_fw_ops noc_ep_fw_ops;
extern const struct tlm_bw_ops noc_ep_bw_ops;

/* noc_gpu.c: the GPU face */
extern const struct tlm_fw_ops noc_sm_fw_ops;
extern const struct tlm_bw_ops noc_mem_bw_ops;
/* Hand the head packet of eq (tail arrived) to its endpoint. */
void noc_gpu_deliver(struct noc_in *eq, struct tlm_payload *p);
/* Send the END an offer of ep on vnet v was owed. */
void noc_gpu_end(struct noc_ep *ep, unsigned v, struct tlm_payload *p);

#endif
