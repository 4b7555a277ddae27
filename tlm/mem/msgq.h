/*
 * tlm/mem/msgq.h - a FIFO of messages, each with the time it may leave.
 *
 * What controllers queue while they wait for a neighbour (an L1's miss queue, an L2 bank's input
 * queue, pipeline, answers and DRAM requests). It grows when full, so a controller decides its
 * own bound (and may exceed it on purpose, as a flush does); pushing fails only when memory is
 * exhausted.
 */
#ifndef COHSCOPE_TLM_MEM_MSGQ_H
#define COHSCOPE_TLM_MEM_MSGQ_H

#include <stdbool.h>
#include <stdlib.h>

#include "tlm/mem/msg.h"
#include "util/error.h"

struct msgq_slot {
	struct mem_msg *m;
	sim_time_t ready;
};

struct msgq {
	struct msgq_slot *s;
	unsigned head, n, cap;
};

static inline int msgq_init(struct msgq *q, unsigned cap)
{
	q->cap = cap ? cap : 1;
	q->head = q->n = 0;
	q->s = calloc(q->cap, sizeof(*q->s));
	return q->s ? 0 : -CS_ENOMEM;
}

static inline void msgq_free(struct msgq *q)
{
	free(q->s);
	q->s = NULL;
}

static inline struct msgq_slot *msgq_at(struct msgq *q, unsigned i)
{
	return &q->s[(q->head + i) % q->cap];
}

static inline bool msgq_push(struct msgq *q, struct mem_msg *m, sim_time_t ready)
{
	if (q->n == q->cap) {
		unsigned ncap = q->cap * 2;
		struct msgq_slot *ns = malloc(ncap * sizeof(*ns));

		if (!ns)
			return false;
		for (unsigned i = 0; i < q->n; i++)
			ns[i] = *msgq_at(q, i);
		free(q->s);
		q->s = ns;
		q->head = 0;
		q->cap = ncap;
	}
	*msgq_at(q, q->n) = (struct msgq_slot){m, ready};
	q->n++;
	return true;
}

static inline struct msgq_slot *msgq_head(struct msgq *q)
{
	return q->n ? &q->s[q->head] : NULL;
}

static inline void msgq_pop(struct msgq *q)
{
	q->head = (q->head + 1) % q->cap;
	q->n--;
}

/* Releases every message still queued (a controller torn down after a failed run). */
static inline void msgq_release_all(struct msgq *q)
{
	for (unsigned i = 0; i < q->n; i++)
		tlm_payload_release(&msgq_at(q, i)->m->p);
	q->n = 0;
}

#endif
