/*
 * tlm/noc/noc.h - the network: N endpoints, V virtual networks, one-way messages (the generic
 * face, noc_net_create), and the GPU's request/response NoC built on it (noc_create).
 *
 * GENERIC FACE. noc_net_create builds a network of n_ep endpoints and n_vnets (<= NOC_VNET_MAX)
 * virtual networks. Every vnet has its own buffers and credits at every port (a vnet is a
 * virtual channel class of its own), so a vnet that is full never blocks another: a directory
 * protocol puts requests, forwards/probes, responses and unblocks on different vnets and cannot
 * deadlock in the network. How vnets use the wires (noc.vnet_links): `separate`, each vnet has
 * its own links (V networks side by side, today's GPU request and response networks); `shared`,
 * the vnets' output ports at one place share one physical link of one flit per cycle, which
 * picks round-robin among the vnets that have a packet ready and the credits for it (a vnet
 * whose winner lacks credits does not hold the link). Endpoint e:
 *   noc_inject_port(n, e)   target socket; e's initiator binds to it and sends a struct mem_msg
 *                           with BEGIN_REQ: m->dst (endpoint id), m->vnet, class m->type,
 *                           payload m->req_bytes. TLM_UPDATED/END_REQ when that vnet's injection
 *                           buffer takes it, else TLM_ACCEPTED and END_REQ later on
 *                           nb_transport_bw (backpressure per vnet: other vnets' offers are
 *                           taken meanwhile). No response is owed: it is one-way.
 *   noc_deliver_port(n, e)  initiator socket; bind it to e's target socket. When a message's tail
 *                           has arrived the network sends BEGIN_REQ; e returns TLM_UPDATED/END_REQ
 *                           (or TLM_COMPLETED): taken; or TLM_ACCEPTED and END_REQ later on
 *                           nb_transport_bw: until then the message waits in that vnet's ejection
 *                           buffer and backpressures that vnet only. At most one BEGIN_REQ per
 *                           vnet is open at a time at an endpoint (up to V at once: a deviation
 *                           from the base protocol's one per socket, needed so vnets stay
 *                           independent); m->vnet tells which. The network neither acquires nor
 *                           releases messages and never reads one after handing it over.
 *   b_transport on the injection socket forwards to the destination's b_transport with the
 *   unloaded latency plus the ejection meter's wait added (the LT face); transport_dbg forwards.
 * Topologies: crossbar and mesh (below), and link: a crossbar of exactly 2 endpoints whose
 * flit_bytes is the bytes per cycle, link_latency the wire latency and header_bytes the packet
 * header (e.g. a CPU-GPU link like PCIe; noc_link_params has such defaults). Mesh positions
 * (routers, row-major p = y * cols + x) are given by the caller (pos[e]; at most
 * noc.concentration endpoints on one router) or are e (concentration 1) or the spread placement
 * of all endpoints as one group (concentration > 1, noc_spread_place).
 *
 * CONCENTRATION (mesh). A router may hold up to noc.concentration endpoints. As in gem5's Garnet,
 * where every controller has an external link of its own into its router, each endpoint has its
 * own injection port (a local input buffer of the router) and its own ejection port (an output
 * and link to its ejection buffer): endpoints of one router never wait for each other to inject
 * or eject, only where their packets meet on the same router output (a mesh link, or the
 * ejection port of one destination). A router's inputs are its endpoints' injection buffers in
 * endpoint order, then the east, west, north and south inputs; round-robin runs over them in
 * that order. Two endpoints on one router are 0 hops apart.
 *
 * GPU FACE. Two vnets of the same shape: the request network carries SM i -> L2 bank j
 * (mem_msg.src -> mem_msg.dst, NoC header + req_bytes, class mem_msg.type), the response network
 * bank j -> SM i (header + resp_bytes, class mem_msg.resp_type). Keeping them apart means a
 * response can never wait behind a request (no protocol deadlock).
 *
 * Endpoints: SM i is endpoint i, bank j endpoint n_req + j. Topologies (tlm/noc/README.md has
 * the details and a picture):
 *   crossbar  one router; every source endpoint feeds one of its input ports and every
 *             destination endpoint hangs off one of its output ports. Contention at output ports
 *             (one flit per cycle each) and at input ports (one flit per cycle each, FIFO).
 *   mesh      a cols x rows grid of routers (noc_mesh_size: N = n_req + n_mem endpoints,
 *             routers = ceil(N / concentration), cols = mesh_cols or ceil(sqrt(routers)), rows =
 *             mesh_rows or ceil(routers / cols)). Grid positions are numbered row-major
 *             (p = y * cols + x). Concentration 1: memory node j sits at p = floor((2j + 1) * N /
 *             (2 n_mem)) (spread evenly over the first N positions), the SMs take the remaining
 *             positions among the first N in increasing order; positions >= N have a router but
 *             no endpoint. Concentration > 1: the spread placement (noc_spread_place) of the
 *             banks, then the SMs, over all routers. Routers are joined to their four neighbours
 *             by one link in each direction; routing is XY dimension order (first along x, then
 *             along y).
 *
 * Timing (all in NoC cycles, clock_mhz): a packet of F = max(1, ceil((header_bytes + payload) /
 * flit_bytes)) flits enters the input buffer of its source router at a clock edge; each router
 * it crosses takes router_latency (R) cycles from the head's arrival to the head leaving on the
 * output port; each link takes link_latency (L) cycles, including the last one, from the
 * destination router to the destination endpoint's interface. A port carries one flit per cycle,
 * so a packet occupies an output (and its input) for F cycles. The endpoint receives the packet
 * (TLM BEGIN_REQ / BEGIN_RESP) when its tail has arrived. On an idle network:
 *
 *     latency = (hops + 1) * (R + L) + (F - 1) cycles
 *
 * with hops = the router-to-router links of the route: the Manhattan distance on the mesh, 0 on
 * the crossbar (one router stage).
 *
 * Flow control: virtual cut-through at packet granularity. A packet leaves for the next buffer
 * only when that buffer has credits for all its flits; the credits come back L cycles after its
 * tail has left that buffer. Every input buffer (router inputs, the injection buffer at each
 * source, the ejection buffer at each destination) holds buffer_flits flits. Each output port
 * arbitrates round-robin among the inputs whose head packet is ready for it; an input that wins
 * but lacks credits holds the port (no bypass: no starvation). A full buffer stalls its upstream
 * all the way back to the injection buffer, where the NoC stops accepting: END_REQ is withheld
 * from the SM (request network), END_RESP from the bank (response network). A destination that
 * does not take a packet leaves it in the ejection buffer; nothing is ever dropped.
 *
 * TLM (AT, tlm/kernel/tlm.h base protocol; every delay argument is 0):
 *   SM i      initiator bound to noc_req_port(n, i). BEGIN_REQ -> TLM_UPDATED/END_REQ if the
 *             injection buffer has room, else TLM_ACCEPTED and END_REQ later (nb_transport_bw).
 *             The response comes as BEGIN_RESP on nb_transport_bw; the SM returns TLM_COMPLETED
 *             (or TLM_UPDATED/END_RESP), or TLM_ACCEPTED and sends END_RESP later.
 *   bank j    target bound to noc_mem_port(n, j). The NoC sends BEGIN_REQ; the bank returns
 *             TLM_UPDATED/END_REQ, TLM_ACCEPTED (END_REQ or BEGIN_RESP later on
 *             nb_transport_bw), TLM_UPDATED/BEGIN_RESP (it answered at once), or TLM_COMPLETED
 *             (it answered on the return path: resp_type / resp_bytes are set, and the NoC carries
 *             the response back with no END_RESP owed). A BEGIN_RESP on nb_transport_bw is taken
 *             into the response network with TLM_UPDATED/END_RESP if there is room, else
 *             TLM_ACCEPTED and END_RESP later on nb_transport_fw.
 *   Every request gets a response. The NoC never releases or acquires a payload, and does not
 *   touch one after handing it over for the last time (the SM may release it in its callback).
 *
 * Loosely timed face (placeholder until analytic/ supplies loaded delays): b_transport at
 * noc_req_port forwards to the bank's b_transport and adds the unloaded latencies of the request
 * and the response; it counts packets, flits and bytes exactly as the AT face does (no latency
 * samples). transport_dbg forwards.
 *
 * Statistics, in the group given to noc_create (G):
 *   G.packets G.flits G.bytes                     both networks
 *   G.latency                                     ns, offer to delivery, both networks
 *   G.{req,resp}.packets .flits .bytes .payload_bytes
 *   G.{req,resp}.latency     ns from the offer (BEGIN_REQ from the SM / BEGIN_RESP from the
 *                            bank) to the delivery (BEGIN_REQ at the bank / BEGIN_RESP at the SM)
 *   G.{req,resp}.queueing    ns, latency minus the unloaded latency from the same offer time
 *   G.{req,resp}.inject_stalls  offers the NoC did not take at once (END withheld)
 *   G.{req,resp}.<class>.packets .flits .bytes    per message type (type_names)
 *   G.{req,resp}.link.<name>  flits carried: r<k>_{e,w,n,s} router k's output towards its east,
 *                            west, north (y - 1) or south (y + 1) neighbour; sm<i>_in / bank<j>_in
 *                            the injection port, sm<i>_out / bank<j>_out the ejection link.
 *   bytes count header + payload (what the wires carry); payload_bytes the payload only.
 */
#ifndef COHSCOPE_TLM_NOC_NOC_H
#define COHSCOPE_TLM_NOC_NOC_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "tlm/kernel/tlm.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

enum noc_topology { NOC_CROSSBAR = 0, NOC_MESH, NOC_LINK };
enum noc_vnet_links { NOC_LINKS_SEPARATE = 0, NOC_LINKS_SHARED };

#define NOC_VNET_MAX 4 /* virtual networks: request, forward/probe, response, unblock */

struct noc_cfg {
	unsigned topology;	 /* enum noc_topology */
	unsigned vnet_links;	 /* enum noc_vnet_links */
	uint64_t clock_mhz;	 /* NoC clock */
	uint64_t flit_bytes;	 /* link width: bytes per flit, one flit per link per cycle */
	uint64_t header_bytes;	 /* NoC header added to every packet */
	uint64_t router_latency; /* cycles from head arrival to head on the output link */
	uint64_t link_latency;	 /* cycles per link (also the credit return delay) */
	uint64_t buffer_flits;	 /* flits per input buffer, per port, per network */
	uint64_t mesh_cols;	 /* mesh columns, 0: ceil(sqrt(routers needed)) */
	uint64_t mesh_rows;	 /* mesh rows, 0: as many as the endpoints need */
	uint64_t concentration;	 /* mesh: endpoints per router at most (0 in a struct made in
				    code counts as 1) */
};

extern const struct cs_param_table noc_params;	    /* section "noc" */
extern const struct cs_param_table noc_link_params; /* section "link": a CPU-GPU link */

/* Checks what the table's ranges cannot: buffer_flits must hold the largest packet (header +
 * MEM_LINE_MAX bytes). 0 or -CS_ECONFIG with a message naming the keys. */
int noc_cfg_check(const struct noc_cfg *cfg, struct cs_err *err);

struct noc;

/*
 * Builds the NoC for n_req SMs and n_mem L2 banks (both >= 1, n_req + n_mem <= 65535).
 * type_names[0..n_types) name the message classes for the stats (mem_msg.type and resp_type
 * index them; NULL gives "t0", "t1"...); 1 <= n_types <= MEM_MSG_TYPE_MAX. A message whose class
 * is out of range fails the kernel with -CS_EPROTO. The NoC runs on kernel k and registers its
 * stats in `stats` (may not be NULL). 0, -CS_ECONFIG, -CS_EINVAL or -CS_ENOMEM.
 */
int noc_create(struct sim_kernel *k, const struct noc_cfg *cfg, unsigned n_req, unsigned n_mem,
	       const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
	       struct noc **out, struct cs_err *err);
void noc_destroy(struct noc *n);

/*
 * The generic network: n_ep endpoints (1..65535; the link topology: exactly 2), n_vnets vnets
 * (1..NOC_VNET_MAX). pos: mesh position (router) of each endpoint, at most noc.concentration
 * on one router (NULL: endpoint e at e, or with concentration > 1 the spread placement of all
 * endpoints as one group); ignored by the crossbar and the link. A router outside a mesh of
 * given mesh_rows, or one holding too many, is -CS_EINVAL naming the router, its x and y and
 * its endpoints. vnet_names name the vnets' stat groups (NULL: "v0"...).
 * type_names, n_types and stats as for noc_create. Stats as the GPU face's with the vnet names
 * for req/resp and ep<e> for sm<i>/bank<j>. 0, -CS_ECONFIG, -CS_EINVAL or -CS_ENOMEM.
 */
int noc_net_create(struct sim_kernel *k, const struct noc_cfg *cfg, unsigned n_ep, unsigned n_vnets,
		   const unsigned *pos, const char *const *vnet_names,
		   const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
		   struct noc **out, struct cs_err *err);
/* The GPU face's mesh placement for n_req SMs (endpoints 0..n_req-1) and n_mem banks (the next
 * n_mem): pos[0..n_req+n_mem) gets each one's position (bank j at floor((2j + 1) N / (2 n_mem)),
 * the SMs in the other positions in order); for callers that place endpoints as the GPU does. */
void noc_gpu_place(unsigned n_req, unsigned n_mem, unsigned *pos);
/* Mesh dimensions of a network of n_ep endpoints: routers = ceil(n_ep / concentration),
 * cols = mesh_cols or ceil(sqrt(routers)), rows = mesh_rows or ceil(routers / cols). (A
 * network whose caller places an endpoint beyond them gets the rows to hold it, unless
 * mesh_rows is given.) */
void noc_mesh_size(const struct noc_cfg *cfg, unsigned n_ep, unsigned *cols, unsigned *rows);
/* The spread placement (concentration > 1): groups of endpoints (group g: endpoints first ..
 * first + count - 1), smaller groups first (ties in the order given), each spread evenly over
 * all R = cols x rows routers of noc_mesh_size(cfg, n_ep): its i-th endpoint of n at router
 * floor((2i + 1) R / (2n)), or, when that router already holds `concentration` endpoints, at
 * the next router (in row-major order, wrapping) with room. pos[first + i] gets the router.
 * 0, or -CS_ECONFIG when the groups do not fit R x concentration, -CS_ENOMEM. */
struct noc_group {
	unsigned first, count;
};
int noc_spread_place(const struct noc_cfg *cfg, unsigned n_ep, const struct noc_group *groups,
		     unsigned n_groups, unsigned *pos, struct cs_err *err);
/* Node ids (generic face): a message's dst names node dst, which is endpoint ep_of_id[dst] of
 * this network, either the node itself or the bridge towards it (tlm/noc/bridge.h). Without a
 * table (the default) dst is the endpoint. 0, -CS_EINVAL (an endpoint out of range) or
 * -CS_ENOMEM. */
int noc_set_routes(struct noc *n, const uint16_t *ep_of_id, unsigned n_ids);
/* Endpoint e's injection target socket / delivery initiator socket (generic face). NULL if out
 * of range or the network is a GPU face. */
struct tlm_target_socket *noc_inject_port(struct noc *n, unsigned e);
struct tlm_initiator_socket *noc_deliver_port(struct noc *n, unsigned e);
/* Endpoints and vnets. */
unsigned noc_endpoints(const struct noc *n);
unsigned noc_vnets(const struct noc *n);
/* Router-to-router links between endpoints a and b (0 on crossbar and link). */
unsigned noc_ep_hops(const struct noc *n, unsigned a, unsigned b);
/* Unloaded latency from endpoint a to b with this payload, in NoC cycles:
 * (hops + 1) * (router_latency + link_latency) + flits - 1. */
uint64_t noc_ep_unloaded_cycles(const struct noc *n, unsigned a, unsigned b,
				unsigned payload_bytes);

/* SM sm's L1 initiator binds here. NULL if out of range. */
struct tlm_target_socket *noc_req_port(struct noc *n, unsigned sm);
/* Bind to L2 bank bank's target socket. NULL if out of range. */
struct tlm_initiator_socket *noc_mem_port(struct noc *n, unsigned bank);

/* Flits of a packet with this many payload bytes. */
unsigned noc_flits(const struct noc *n, unsigned payload_bytes);
/* Router-to-router links between SM sm and bank bank (the same both ways): Manhattan distance
 * on the mesh, 0 on the crossbar. */
unsigned noc_hops(const struct noc *n, unsigned sm, unsigned bank);
/* Unloaded latency in NoC cycles: (hops + 1) * (router_latency + link_latency) + flits - 1. */
uint64_t noc_unloaded_cycles(const struct noc *n, unsigned sm, unsigned bank,
			     unsigned payload_bytes, bool response);
/* Time from an offer taken at a NoC clock edge to the delivery on an idle network:
 * sim_clock_edge(clock, noc_unloaded_cycles(..)). Exact for an offer at time 0 or at any edge
 * that falls on the clock's whole-ps grid (for 1400 MHz: every 7th edge, each 5 ns); from other
 * edges the true value can differ by 1 ps (edges are rounded up to whole ps). */
sim_time_t noc_unloaded_ps(const struct noc *n, unsigned sm, unsigned bank, unsigned payload_bytes,
			   bool response);
/* Bytes carried so far (header + payload, every vnet): the G.bytes counter. */
uint64_t noc_bytes(const struct noc *n);

/*
 * WHAT A NETWORK DECLARES. Consumers (results, reports, energy, the sampling layer) read a
 * network's traffic through these calls, never by a stat's name, which differs between the
 * faces (GPU face: vnets "req", "resp"; generic face: the family's vnet names) and fails
 * silently when guessed. Every vnet has a kind: the GPU face's vnet 0 is a request network
 * and vnet 1 a response network; the generic face numbers its vnets by kind (vnet v is of
 * kind v: request, forward/probe, response, unblock, as NOC_VNET_MAX's comment and the
 * families' vnet tables order them).
 */
enum noc_vnet_kind {
	NOC_VK_REQUEST = 0,
	NOC_VK_PROBE,
	NOC_VK_RESPONSE,
	NOC_VK_UNBLOCK,
	NOC_VK_KINDS
};
extern const char *const noc_vnet_kind_names[NOC_VK_KINDS]; /* "request", "probe", ... */

/*
 * Kinds of traffic (issue 38: "request, data, probe, coherence, write-back"), what each
 * protocol declares of every message class it sends (fab_build_args.msg_traffic):
 *   request    asks for data or permission (reads, RdBlk*, atomics, DMA reads)
 *   data       carries data that answers or writes through (data answers, write-throughs,
 *              DMA writes)
 *   probe      a home's probes, invalidations, recalls and forwards, and their answers
 *   coherence  acknowledges or unblocks (write acks, WBAck, Unblock, renewals' grants)
 *   writeback  a victim or flush: dirty or clean lines leaving a cache, and their data
 */
enum noc_traffic_kind {
	NOC_TR_REQUEST = 0,
	NOC_TR_DATA,
	NOC_TR_PROBE,
	NOC_TR_COHERENCE,
	NOC_TR_WRITEBACK,
	NOC_TRAFFIC_KINDS
};
extern const char *const noc_traffic_kind_names[NOC_TRAFFIC_KINDS]; /* "request", ... */

/* Traffic carried so far. bytes = header + payload (what the wires carry), so payload_bytes =
 * bytes - packets x header_bytes. */
struct noc_traffic {
	uint64_t packets, flits, bytes, payload_bytes;
};
static inline void noc_traffic_add(struct noc_traffic *to, const struct noc_traffic *t)
{
	to->packets += t->packets;
	to->flits += t->flits;
	to->bytes += t->bytes;
	to->payload_bytes += t->payload_bytes;
}
/* vnet v's kind (enum noc_vnet_kind) and stat name; NOC_VK_KINDS / NULL if v is out of range. */
unsigned noc_vnet_kind(const struct noc *n, unsigned v);
const char *noc_vnet_name(const struct noc *n, unsigned v);
/* What vnet v carried (zeros if out of range). */
void noc_vnet_traffic(const struct noc *n, unsigned v, struct noc_traffic *t);
/* What the vnets of this kind carried together (zeros if it has none). */
void noc_kind_traffic(const struct noc *n, unsigned kind, struct noc_traffic *t);
/* Whether some vnet of the network is of this kind. */
bool noc_has_kind(const struct noc *n, unsigned kind);
/* What messages of class cls (mem_msg.type / resp_type) carried over every vnet. */
void noc_class_traffic(const struct noc *n, unsigned cls, struct noc_traffic *t);
/* Message classes the network counts (n_types at creation). */
unsigned noc_classes(const struct noc *n);
/* Flits carried over router-to-router links, every vnet (0 on a crossbar and a link). */
uint64_t noc_link_flits(const struct noc *n);
/* Flits endpoint ep injected (inject) or had delivered to it over its ejection link, summed
 * over the vnets (0 if ep is out of range). */
uint64_t noc_ep_flits(const struct noc *n, unsigned ep, bool inject);
/* The GPU face's endpoint of SM sm / bank bank (SM i is endpoint i, bank j endpoint
 * n_req + j); the generic face's endpoints are the fabric's (fab_node.ep). */
unsigned noc_gpu_ep(const struct noc *n, bool mem, unsigned idx);
/* Routers of one vnet (cols x rows on a mesh, 1 on a crossbar or link) and the physical
 * networks side by side (vnet_links separate: one per vnet; shared: 1): a static-power
 * figure's instances are their product. */
unsigned noc_routers(const struct noc *n);
/* The stats contract (analytic/energy.h): adds the network's flits, link flits and routers x
 * physical networks (energy_add_noc). */
struct energy_counts;
void noc_energy(const struct noc *n, struct energy_counts *c);
unsigned noc_phys_nets(const struct noc *n);
/* Packets taken into the network and not yet accepted by their destination. */
uint64_t noc_in_flight(const struct noc *n);
/* The NoC clock. */
const struct sim_clock *noc_clock(const struct noc *n);
/* Grid position of an endpoint (mem: bank index, else SM index); mesh only (crossbar: 0, 0). */
void noc_node_pos(const struct noc *n, bool mem, unsigned idx, unsigned *x, unsigned *y);
/* Mesh dimensions (crossbar: 1 x 1). */
void noc_mesh_dims(const struct noc *n, unsigned *cols, unsigned *rows);

/* The LT face's contention model (NULL: defaults; the pointer is kept). */
struct lt_params;
void noc_set_lt(struct noc *n, const struct lt_params *p);

#endif
