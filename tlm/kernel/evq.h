/*
 * tlm/kernel/evq.h - the kernel's set of pending timed items (internal to tlm/kernel and its
 * tests; components use sim.h).
 *
 * Two implementations with one ordering, (when, key) with key = priority << 48 | sequence:
 *  - the timing wheel: 4096 slots of 256 ps (a 1.05 us horizon: every cache, NoC and DRAM
 *    latency of a GPU), each slot a list sorted by key (appends are O(1) in the common case
 *    of one time per slot, and so are insertions behind the last one made mid-list: a
 *    lower priority's items arriving in sequence), a two-level occupancy bitmap to find the next non-empty slot in
 *    a few instructions, and a binary heap for items beyond the horizon, moved into the
 *    wheel as time approaches them;
 *  - the binary heap alone: the oracle the wheel is tested against.
 * Cancellation is lazy: a cancelled node keeps its place and is dropped when it comes out.
 */
#ifndef COHSCOPE_TLM_KERNEL_EVQ_H
#define COHSCOPE_TLM_KERNEL_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlm/kernel/sim.h"

enum sim_node_kind {
	SIM_NODE_FREE = 0,
	SIM_NODE_CALLBACK,  /* fn(k, obj, arg) */
	SIM_NODE_EVENT,	    /* obj is a struct sim_event whose notification is due */
	SIM_NODE_WAKE,	    /* obj is a struct sim_process; gen is its wait generation */
	SIM_NODE_WAITER,    /* in an event's dynamic waiter list: obj process, gen wait gen */
	SIM_NODE_CANCELLED, /* still queued, ignored when it comes out */
	SIM_NODE_PROCESS,   /* not a node: marks a struct sim_process on the runnable list */
};

/* What the runnable list links: a node or a process (both start with this). */
struct sim_runnable {
	struct sim_runnable *next;
	uint8_t kind;	  /* enum sim_node_kind */
	uint8_t embedded; /* a node inside its event, not from the pool */
};

/* 64 bytes: one cache line when aligned. */
struct sim_node {
	struct sim_runnable link; /* queue, delta list, runnable list or free list */
	sim_time_t when;
	uint64_t key; /* prio << 48 | seq */
	uint64_t gen; /* handle generation (bumped when freed) */
	void *obj;
	sim_callback_fn fn;
	union {
		void *arg;	   /* CALLBACK */
		uint64_t wait_gen; /* WAKE/WAITER: the process wait generation it answers */
	};
};

#define SIM_KEY_SEQ_BITS 48
#define SIM_KEY(prio, seq) \
	(((uint64_t)(prio) << SIM_KEY_SEQ_BITS) | ((seq) & ((1ull << SIM_KEY_SEQ_BITS) - 1)))

static inline bool sim_node_before(const struct sim_node *a, const struct sim_node *b)
{
	return a->when < b->when || (a->when == b->when && a->key < b->key);
}

struct sim_evq;

int sim_evq_create(enum sim_queue_kind kind, struct sim_evq **out);
void sim_evq_destroy(struct sim_evq *q);
/* n->when must be >= the time last passed to sim_evq_advance. */
int sim_evq_insert(struct sim_evq *q, struct sim_node *n);
/* Earliest node (cancelled ones included), or NULL. */
struct sim_node *sim_evq_peek(struct sim_evq *q);
struct sim_node *sim_evq_pop(struct sim_evq *q);
/* Pops the earliest node only if it is due at when (the current time), else NULL. */
struct sim_node *sim_evq_pop_due(struct sim_evq *q, sim_time_t when);
/* Time has moved to now: lets the wheel move its window (never backwards). */
void sim_evq_advance(struct sim_evq *q, sim_time_t now);
size_t sim_evq_size(const struct sim_evq *q);

#endif
