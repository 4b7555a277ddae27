/*
 * tlm/coherence/scoped/sc_acks.h - ack aggregation for an L2 bank's transaction records
 * (README.md §3): a fixed table of records, each waiting for a number of acks. A probe names
 * its record by index (mem_msg.txn); the record, not the message, holds what the transaction
 * needs (the caller's user bytes).
 */
#ifndef COHSCOPE_TLM_COHERENCE_SCOPED_SC_ACKS_H
#define COHSCOPE_TLM_COHERENCE_SCOPED_SC_ACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_acks;

/* Records of user_bytes each; the table grows (by chunks of 64, records never move) up to cap
 * records (0: no bound). 0 or -CS_ENOMEM. */
int sc_acks_create(unsigned cap, size_t user_bytes, struct sc_acks **out);
/* Records the table has now (live or not): indices below it. */
unsigned sc_acks_cap(const struct sc_acks *t);
void sc_acks_destroy(struct sc_acks *t);
/* A free record, its user bytes zeroed, waiting for no ack yet; -1 when every record is in
 * use and the table may not grow. */
int sc_acks_alloc(struct sc_acks *t);
void sc_acks_free(struct sc_acks *t, unsigned i);
void *sc_acks_user(struct sc_acks *t, unsigned i);
/* Record i now waits for n more acks. */
void sc_acks_expect(struct sc_acks *t, unsigned i, unsigned n);
/* One ack for record i: true when it was the last one owed. -1: no ack was owed (a protocol
 * error the caller reports). */
int sc_acks_one(struct sc_acks *t, unsigned i);
bool sc_acks_live(const struct sc_acks *t, unsigned i);
unsigned sc_acks_pending(const struct sc_acks *t, unsigned i);
unsigned sc_acks_used(const struct sc_acks *t);

#endif
