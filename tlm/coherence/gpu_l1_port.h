/*
 * tlm/coherence/gpu_l1_port.h - what every GPU L1 controller does the same way: its NoC port
 * (a bounded queue of messages, one BEGIN_REQ open at a time, END_REQ back-pressure), the hit
 * path (an access served by the L1 answers its SM `l1.latency` core cycles later, in order),
 * and the refuse/retry handshake with the SM. The controllers (gpu_l1_base.c, lease_l1.c) keep
 * their protocol logic and call these.
 */
#ifndef COHSCOPE_TLM_COHERENCE_GPU_L1_PORT_H
#define COHSCOPE_TLM_COHERENCE_GPU_L1_PORT_H

#include "tlm/coherence/gpu_proto.h"
#include "tlm/mem/msgq.h"

struct l1_hit {
	sim_time_t due;
	uint32_t id;
	bool load;
	uint8_t data[MEM_LINE_MAX];
};

struct l1_port {
	const struct gpu_ctx *ctx;
	unsigned sm;
	unsigned line_bytes;
	struct gpu_l1_client cl;
	struct tlm_initiator_socket noc;
	/* a response arrived (the port releases the message afterwards) */
	void (*response)(void *owner, struct mem_msg *m);
	void *owner;

	/* one-way mode (l1_port_oneway): requests go to node n_sms + bank on vnet req_vnet,
	 * acks to a probe's sender on ack_vnet from a queue of their own (an ack never waits
	 * behind a request: tlm/coherence/scoped/README.md §2); answers and probes come in on
	 * the deliver socket */
	bool oneway;
	uint8_t req_vnet, ack_vnet;
	struct tlm_target_socket deliver;
	void (*probe)(void *owner, struct mem_msg *m, sim_time_t *lt_delay);
	struct msgq ackq;
	bool ack_open;

	struct msgq q; /* waiting for the NoC; accesses are refused once it holds q_limit */
	unsigned q_limit;
	bool req_open; /* a BEGIN_REQ is waiting for its END_REQ */
	bool want_retry;
	bool pump_pending;
	unsigned outstanding; /* messages sent and not answered */

	struct l1_hit *hits; /* waiting out the hit latency */
	unsigned h_head, h_n, h_cap;
	bool hit_cb_pending;

	uint64_t *msgs_sent;

	/* the LT face: messages and hits are performed by the flush, at once */
	bool lt, lt_busy;
	bool lt_deferred;  /* in ctx->lt_clock->deferred */
	sim_time_t lt_inj; /* deferred: when the next message can start its injection */
	sim_time_t lt_t;   /* time of what is being performed */
	sim_time_t lt_end; /* latest completion of this access */
	/* messages sent and back at .t, handled once the L1's time reaches it (an access of
	 * another warp before then finds the miss in flight, as in the detailed face): a heap
	 * ordered by (t, seq) */
	struct l1_lt_pend *lt_pend;
	unsigned lt_pend_n, lt_pend_cap;
	uint64_t lt_seq;
	/* the message in its b_transport: once the home has answered it (type = resp_type), a
	 * recall the home sends before returning (an eviction of the line just granted) finds
	 * the answer there */
	struct mem_msg *lt_inflight;
};

struct l1_lt_pend {
	sim_time_t t;
	uint64_t seq;
	struct mem_msg *m;
};

/* The counters every L1 keeps (registered once, incremented through the pointers). */
struct l1_common_stats {
	uint64_t *accesses, *loads, *stores, *atomics, *load_hits;
	uint64_t *refused_mshr, *refused_merge, *refused_queue;
	struct cs_stat_avg *miss_latency;
};

/* hit_rate: also the ratio load_hits / loads (an L1 that caches). */
void l1_common_stats_register(struct l1_common_stats *s, struct cs_stat_group *g, bool hit_rate);

int l1_port_init(struct l1_port *p, const struct gpu_ctx *ctx, unsigned sm,
		 const struct gpu_l1_client *cl, void (*response)(void *, struct mem_msg *),
		 void *owner, struct cs_stat_group *g);
void l1_port_fini(struct l1_port *p);
/* A message of the protocol's type to the bank of addr, NULL (and the run failed) when out of
 * memory. */
struct mem_msg *l1_port_msg(struct l1_port *p, uint8_t type, uint64_t addr, uint32_t txn);
void l1_port_send(struct l1_port *p, struct mem_msg *m);
static inline bool l1_port_room(const struct l1_port *p, unsigned n)
{
	return p->q.n + n <= p->q_limit;
}
/* Answer the SM after the hit latency (line: a load's bytes, copied now; NULL otherwise). */
void l1_port_hit(struct l1_port *p, uint32_t id, const uint8_t *line);
/* The SM may offer a refused access again (when it was refused). */
void l1_port_maybe_retry(struct l1_port *p);
bool l1_port_idle(const struct l1_port *p);
/* The LT face of an L1 (gpu_l1_ops.set_lt / lt_access) over its own access function. */
void l1_port_set_lt(struct l1_port *p, bool on);
sim_time_t l1_port_lt_access(struct l1_port *p,
			     bool (*access)(struct gpu_l1 *, const struct gpu_access *),
			     struct gpu_l1 *l1, const struct gpu_access *a, sim_time_t t,
			     bool last);
/* One-way mode (see struct l1_port). probe(owner, m, lt_delay) gets every probe: the owner
 * then owns m; lt_delay is NULL in the detailed face, and in the LT face the delay so far,
 * which the owner grows by the time until its ack is back at the sender (l1_port_ack). */
int l1_port_oneway(struct l1_port *p, uint8_t req_vnet, uint8_t ack_vnet,
		   void (*probe)(void *owner, struct mem_msg *m, sim_time_t *lt_delay));
struct tlm_target_socket *l1_port_deliver(struct l1_port *p);
/* Answers probe m with an ack of type `type` to its sender: queued (detailed face), or by
 * b_transport at once, growing *lt_delay (LT face). The probe stays the caller's. */
void l1_port_ack(struct l1_port *p, const struct mem_msg *probe, uint8_t type,
		 sim_time_t *lt_delay);
/* The same in two steps, for an ack that carries data: the message (NULL when out of memory),
 * then its sending (which takes it). */
struct mem_msg *l1_port_ack_msg(struct l1_port *p, const struct mem_msg *probe, uint8_t type);
void l1_port_ack_send(struct l1_port *p, struct mem_msg *m, sim_time_t *lt_delay);
/* The LT face: the data answer in flight to the L1's record txn (waiting for the L1's time,
 * or still in its b_transport), or NULL. */
struct mem_msg *l1_port_lt_pending(const struct l1_port *p, uint32_t txn);
/* ... and when it is back at the L1 (0: before anything the home sends after it), or
 * SIM_TIME_MAX when there is none. */
sim_time_t l1_port_lt_due(const struct l1_port *p, uint32_t txn);
/* The LT face: what this L1 sent outside an access goes now, its answers waiting for
 * l1_port_lt_advance (a fence that sends: DeNovo's StRegs). */
void l1_port_lt_send_now(struct l1_port *p);
/* The LT face: while held, what the L1 sends waits in its queue (l1_port_lt_send_now sends it);
 * returns whether it was held. */
bool l1_port_lt_hold(struct l1_port *p, bool on);
/* The LT face: the latest time an answer in flight is back (0: none). */
sim_time_t l1_port_lt_last(const struct l1_port *p);
/* gpu_l1_ops.lt_advance: handles the answers back by t; returns when the next is back. */
sim_time_t l1_port_lt_advance(struct l1_port *p, sim_time_t t);

#endif
