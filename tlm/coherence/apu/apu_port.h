/*
 * tlm/coherence/apu/apu_port.h - the controller kit every APU controller is built on.
 *
 * One struct apu_port is one endpoint of the generic network (tlm/noc/noc.h) plus the plumbing
 * of a gem5-style controller (docs/apu.md §1.3, §8.1):
 *
 *   sockets   apu_port_initiator() binds to noc_inject_port(net, ep);
 *             noc_deliver_port(net, ep) binds to apu_port_target().
 *   clock     the controller's clock; every delay below is in its cycles, and the port acts
 *             on its edges.
 *   send      apu_port_send(p, m, cycles): m leaves `cycles` edges from now. Each vnet has one
 *             output queue ordered by leave time (equal times keep send order, so a controller
 *             that uses one delay per vnet keeps FIFO order per (source, destination)). The head
 *             is offered to the network once due; END_REQ backpressure (TLM_ACCEPTED, END_REQ
 *             later on nb_transport_bw) holds that vnet only. Output queues grow; rule 3 of
 *             §8.1 is the controller's business: apu_port_out_queued() tells how full they are.
 *   receive   deliveries go into one input queue per vnet (`in_depth` messages; a full queue
 *             withholds END_REQ, which back-pressures that vnet in the network). On each edge
 *             the port hands the controller up to `per_cycle` messages, in priority order: the
 *             woken (un-parked) messages and the inputs UNB, RSP, PRB, woken, REQ, each through
 *             ops->recv(owner, m). recv returns APU_TAKE (the controller now owns m: it releases
 *             it, keeps it, forwards it, or parks it) or APU_STALL (m stays at the head of its
 *             input; that vnet is not served again until apu_port_kick(); other vnets go on).
 *   triggers  apu_port_trigger(p, cycles, fn, arg): an internal event (gem5's trigger queues:
 *             AcksDone, LlcData, SelfUnblock, FillDone) run `cycles` edges from now, before any
 *             input handled on that edge. 0 cycles = the next edge.
 *   park      apu_port_park(p, m): m waits in the per-line wait list (stall-and-wait).
 *             apu_port_wake(p, line): the oldest parked message of that line goes back to the
 *             front of the inputs (served before REQ on the next edge); one at a time, so a
 *             line's requests restart in arrival order. apu_port_parked() counts them.
 *
 * The port never releases a message the controller took; apu_port_destroy releases those
 * still queued or parked. No string look-ups and no allocation per message once the queues
 * have grown.
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_PORT_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/msg.h"
#include "util/error.h"

enum apu_recv { APU_TAKE = 0, APU_STALL };

struct apu_port_ops {
	/* A message for the controller (see above), in both faces. Required. */
	enum apu_recv (*recv)(void *owner, struct mem_msg *m);
	/* A message by b_transport when no LT run is on: a family whose LT face is nested
	 * b_transport calls (the GPU's, tlm/coherence/scoped/README.md §5) performs it here and
	 * adds its time to *delay; the sender keeps m. NULL: such a message fails the run. */
	void (*b_transport)(void *owner, struct mem_msg *m, sim_time_t *delay);
};

struct apu_port_cfg {
	const char *name;   /* for messages and socket names (copied) */
	unsigned ep;	    /* this endpoint's id on the network (becomes m->src of sends) */
	uint64_t clock_mhz; /* controller clock */
	unsigned in_depth;  /* messages per input queue (>= 1) */
	unsigned
	    per_cycle; /* messages handed to recv per edge (>= 1; gem5 transitions_per_cycle) */
	/* names of the message types for error messages (NULL: the APU's, apu_msg_names) */
	const char *const *msg_names;
	unsigned n_msgs;
};

typedef void (*apu_trigger_fn)(void *owner, void *arg);

struct apu_port;

/* 0, -CS_EINVAL (bad cfg), -CS_ENOMEM. */
int apu_port_create(struct sim_kernel *k, const struct apu_port_cfg *cfg,
		    const struct apu_port_ops *ops, void *owner, struct apu_port **out);
void apu_port_destroy(struct apu_port *p);

struct tlm_initiator_socket *apu_port_initiator(struct apu_port *p);
struct tlm_target_socket *apu_port_target(struct apu_port *p);
unsigned apu_port_ep(const struct apu_port *p);
const char *apu_port_name(const struct apu_port *p);
const struct sim_clock *apu_port_clock(const struct apu_port *p);
struct sim_kernel *apu_port_kernel(const struct apu_port *p);

/* Delay from now to the edge `cycles` edges after the next one (sim_clock_delay). */
sim_time_t apu_port_delay(const struct apu_port *p, uint64_t cycles);
/* Cycles of its controller's clock from now (apu_port_now) until t; 0 if t is not later. */
uint64_t apu_port_cycles_until(const struct apu_port *p, sim_time_t t);

/* Sends m (its src is set to this endpoint; dst, vnet, type set by the caller, as apu_msg_new
 * does). Fails the kernel (-CS_ENOMEM) only when memory is exhausted. */
void apu_port_send(struct apu_port *p, struct mem_msg *m, uint64_t cycles);
/* Messages waiting in vnet v's output queue (sent, not yet taken by the network). */
unsigned apu_port_out_queued(const struct apu_port *p, unsigned vnet);

void apu_port_trigger(struct apu_port *p, uint64_t cycles, apu_trigger_fn fn, void *arg);

/* A stalled vnet is served again from the next edge (call when what it waited for frees). */
void apu_port_kick(struct apu_port *p);

void apu_port_park(struct apu_port *p, struct mem_msg *m);
/* Returns true if a message was woken; *waited (may be NULL) gets how long it was parked. */
bool apu_port_wake(struct apu_port *p, uint64_t line, sim_time_t *waited);
unsigned apu_port_parked(const struct apu_port *p);
/* True if some message of this line is parked. */
bool apu_port_line_parked(const struct apu_port *p, uint64_t line);
/* Takes out of the parked ones the oldest message of line that match(m, arg) accepts (the
 * caller owns it), or returns NULL: for a message the record it waited behind now waits for. */
struct mem_msg *apu_port_unpark(struct apu_port *p, uint64_t line,
				bool (*match)(const struct mem_msg *m, void *arg), void *arg);

/* True when nothing is queued, parked, stalled, held or in flight at this port (quiescence
 * checks). */
bool apu_port_idle(const struct apu_port *p);

/* A function run `delay` ps from now (0: at this time, after what runs now): the controller's
 * own timed work that is not a trigger (a core's answer after its hit latency). */
void apu_port_call(struct apu_port *p, sim_time_t delay, apu_trigger_fn fn, void *arg);
/* "Now" for the controller: the kernel's time, or in an LT run the time of what it handles. */
sim_time_t apu_port_now(const struct apu_port *p);

/*
 * The LT face (temporal decoupling, docs/hybrid.md; docs/apu.md §11). The ports of one APU
 * system share one struct apu_lt. An LT run (apu_lt_begin at the initiator's time t, then
 * apu_lt_run, apu_lt_end) performs at once what the detailed face would do from t on: the
 * controllers' transition code runs unchanged, but in the run
 *   send      goes by b_transport through the network (its unloaded hop latency plus the
 *             destination port's load meter, tlm/noc/noc.h) and is handled at its arrival
 *             (the receiver's next edge), FIFO kept per (port, vnet) on REQ and PRB;
 *   trigger, call, wake   are events of the run at their times;
 *   now       is the time of the event being handled (apu_port_now);
 * and the run handles its events in time order (ties: triggers, then UNB, RSP, PRB, woken,
 * REQ, then calls, each in the order made) until none is left, so a directory transaction
 * started in the run (probes, acks, the LLC or DRAM read, the response, the unblock) ends in
 * it. A stalled message waits in the run for apu_port_kick. Outside a run every port is in
 * the detailed face: a message delivered by b_transport then fails the run (-CS_EPROTO).
 *
 * A port whose answers its initiator handles at their own times (the TCP: answers come back
 * while other warps go on) is put in hold (apu_port_lt_hold): what reaches it in a run waits
 * in the port, with its arrival time, until the initiator takes it (apu_port_lt_take), or
 * until apu_port_lt_unhold hands it to the detailed face at that time.
 */
struct apu_lt;

int apu_lt_create(struct sim_kernel *k, struct apu_lt **out);
void apu_lt_destroy(struct apu_lt *lt);
/* The port joins lt (NULL: no LT face). */
void apu_port_set_lt(struct apu_port *p, struct apu_lt *lt);
struct apu_lt *apu_port_lt(const struct apu_port *p);
/* Starts a run at time t (>= the kernel's time); runs nest (the inner one shares the events). */
void apu_lt_begin(struct apu_lt *lt, sim_time_t t);
/* Handles the run's events until none is left (or the kernel failed). */
void apu_lt_run(struct apu_lt *lt);
/* Ends a run (after apu_lt_run): a message still stalled fails the kernel. */
void apu_lt_end(struct apu_lt *lt);
bool apu_lt_on(const struct apu_lt *lt);
sim_time_t apu_lt_now(const struct apu_lt *lt);

/* In a run: m (taken by the controller earlier) waits with the stalled messages of its vnet
 * for apu_port_kick, as if recv had answered APU_STALL. */
void apu_port_lt_stall(struct apu_port *p, struct mem_msg *m);
void apu_port_lt_hold(struct apu_port *p, bool on);
/* The oldest held message arrived by t: true, *m and *when set (the caller owns m). */
bool apu_port_lt_take(struct apu_port *p, sim_time_t t, struct mem_msg **m, sim_time_t *when);
/* When the next held message arrived (SIM_TIME_MAX: none). */
sim_time_t apu_port_lt_next(const struct apu_port *p);
/* The latest arrival of a message held since the last call (0: none), then resets it. */
sim_time_t apu_port_lt_last(struct apu_port *p);
/* To the detailed face: every held message reaches the controller's recv at its arrival time
 * (or now, if that is past). */
void apu_port_lt_unhold(struct apu_port *p);

#endif
