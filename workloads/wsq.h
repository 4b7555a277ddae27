/*
 * workloads/wsq.h - per-CTA lock-free work-stealing deques on simulated memory (Arora, Blumofe
 * and Plaxton, SPAA 1998, as Cederman & Tsigas use them on GPUs; the per-CU task queues of
 * Orr et al., ASPLOS 2015, that seed 004's Pannotia ports use).
 *
 * Queue i of a struct wsq occupies wsq_bytes(): its age word (the top index in the low 16 bits,
 * a tag in the high 16: the ABA guard) on its own line, its bottom index on the next line, then
 * `cap` task records of `words` uint32 each. One warp of the CTA owning a queue is its owner: it
 * pushes and pops at the bottom and keeps a copy of the bottom and the tag (struct wsq_owner);
 * any other warp may steal the top record with a compare-and-swap on the age word.
 *
 * Every synchronizing access takes its scope and order from a struct wsq_sync, so a workload
 * can run the queue at work-group scope (own pops of seed 004's scope-only and RSP scenarios),
 * agent scope (MEM_SCOPE_DEVICE) or with remote scope promotion (MEM_SCOPE_DEVICE_REMOTE
 * steals). Two ways of touching the indices:
 *   WSQ_ATOMIC: atomic loads and stores (gw_atom_load / gw_atom_store) of the bottom and age
 *               words, acquire loads and release stores, as a C11 / OpenCL 2.0 deque is
 *               written; the protocols see them as synchronization (hLRC registers atomics).
 *   WSQ_PLAIN:  plain loads and stores with fences around them (the G-TSC suite's dlb, whose
 *               point is that an L1 without coherence serves stale indices).
 * Records are always plain loads and stores, ordered by the index accesses.
 *
 * Owner pop (the bottom store before the age read needs store-load order: an acq_rel fence,
 * or a bottom exchange the warp waits for, wsq_sync.sc):
 *   b = --bot; store bottom b; fence; load record b; age = load age;
 *   b > top: got it.  Else bottom = 0; tag++; b == top and CAS(age -> tag:0): got it (the last
 *   one); else exchange age = tag:0 (a thief took it); empty.
 * Steal: age = load age; b = load bottom; b <= top: empty; load record top;
 *   CAS(age -> age + 1) fails: lost the race to another thief or the owner.
 */
#ifndef COHSCOPE_WORKLOADS_WSQ_H
#define COHSCOPE_WORKLOADS_WSQ_H

#include <stdbool.h>
#include <stdint.h>

#include "workloads/gpu_api.h"

#define WSQ_MAX_CAP   65535u /* the top is 16 bits of the age word */
#define WSQ_MAX_WORDS 32u    /* a record is at most one 32-lane vector of uint32 */

enum wsq_access { WSQ_ATOMIC, WSQ_PLAIN };

struct wsq_sync {
	enum mem_scope scope;	/* of every index access, fence and CAS */
	enum mem_order order;	/* of the CAS on the age word; index loads take its acquire half,
				   index stores its release half (WSQ_ATOMIC) */
	enum wsq_access access; /* WSQ_PLAIN: dlb's plain indices with fences */
	bool probe;		/* a steal first reads the indices with plain loads and gives up
				   on an empty queue without synchronizing (workload.steal_probe) */
	bool sc; /* WSQ_ATOMIC: the pop's bottom store is performed before its age read (an
		    exchange the warp waits for) instead of a fence between them
		    (workload.queue_order = sc) */
};

struct wsq {
	uint64_t base; /* device address of queue 0 (line aligned) */
	unsigned queues;
	unsigned cap;	/* records per queue, at most WSQ_MAX_CAP */
	unsigned words; /* uint32 per record, 1..WSQ_MAX_WORDS */
};

/* The owner's copies of its bottom index and tag. */
struct wsq_owner {
	uint32_t bot, tag;
};

enum wsq_steal_result { WSQ_EMPTY = 0, WSQ_STOLEN = 1, WSQ_LOST = 2 };

uint64_t wsq_bytes(const struct wsq *q); /* one queue */
uint64_t wsq_age_addr(const struct wsq *q, unsigned i);
uint64_t wsq_bot_addr(const struct wsq *q, unsigned i);
uint64_t wsq_slot_addr(const struct wsq *q, unsigned i, uint32_t slot);

/* ---- warp side ------------------------------------------------------------------------------ */

/* The owner's pop from queue `me`: 1 and the record in rec (q->words uint32) taken from slot
 * *slot (may be NULL), or 0 when the queue is empty. */
int wsq_pop(struct gpu_warp *w, const struct wsq *q, unsigned me, struct wsq_owner *o,
	    const struct wsq_sync *s, uint32_t *rec, uint32_t *slot);
/* The owner pushes n records (n x q->words uint32) at the bottom of queue `me`: records, then
 * the bottom with release semantics. 0, or -1 when they do not fit (nothing pushed). */
int wsq_push(struct gpu_warp *w, const struct wsq *q, unsigned me, struct wsq_owner *o,
	     const struct wsq_sync *s, const uint32_t *recs, unsigned n);
/* A thief's steal from the top of queue `victim`: WSQ_STOLEN with the record in rec and the age
 * word it replaced in *age (its top is the slot; may be NULL), WSQ_EMPTY, or WSQ_LOST (the CAS
 * failed: another warp took that record; the queue may hold more). */
enum wsq_steal_result wsq_steal(struct gpu_warp *w, const struct wsq *q, unsigned victim,
				const struct wsq_sync *s, uint32_t *rec, uint32_t *age);
/* The owner's copies read from queue `me` at the start of a kernel whose queues the host filled
 * (two atomic loads at the sync's scope). */
void wsq_owner_load(struct gpu_warp *w, const struct wsq *q, unsigned me, const struct wsq_sync *s,
		    struct wsq_owner *o);

/* ---- host side ------------------------------------------------------------------------------ */

/* Allocates `queues` empty queues (zeroed memory). Returns 0, or -CS_EINVAL when cap or words
 * is out of range (nothing allocated). */
int wsq_alloc(struct gpu_host *h, struct wsq *q, unsigned queues, unsigned cap, unsigned words);
/* Functional refill of queue i between kernels: n records (n x words uint32) in slots 0..n-1,
 * bottom n, age 0 (top 0, tag 0). n <= cap. */
void wsq_fill(struct gpu_host *h, const struct wsq *q, unsigned i, const uint32_t *recs,
	      unsigned n);

/* ---- seed 004's scenarios ------------------------------------------------------------------- */

/* Sec. IV.B: baseline (no stealing, agent scope), scope-only (no stealing, work-group scope),
 * steal-only (stealing, agent scope), rsp (work-group scope for own pops, remote agent scope
 * for steals). workload.scenario's values, in this order. */
/* Seed 004's scenarios (§4), and scoped-steal: work-group scope for own pops and agent scope
 * for steals, as hLRC-scoped's evaluation (Fig. 10) synchronizes; racy under the HRF baseline
 * and RSP (a steal at agent scope does not see a victim's work-group-scope pops in its L1),
 * correct under registration (hlrc*, denovo*), where every atomic finds the one registered copy. */
enum wsq_scenario {
	WSQ_BASELINE,
	WSQ_SCOPE_ONLY,
	WSQ_STEAL_ONLY,
	WSQ_RSP,
	WSQ_SCOPED_STEAL,
	WSQ_SCENARIOS
};
extern const char *const wsq_scenario_names[]; /* NULL-terminated */

/* How a thief looks at a victim first (inferred: the seed does not say): with the steal's own
 * acquire loads of the indices, or with plain loads, synchronizing only when the queue looks
 * non-empty (test before test-and-set). Queues only drain during a launch, so a stale plain
 * copy never hides work; the steal still reads the indices with its acquire loads.
 * workload.steal_probe. */
enum wsq_probe { WSQ_PROBE_ATOMIC, WSQ_PROBE_PLAIN, WSQ_PROBES };
extern const char *const wsq_probe_names[]; /* NULL-terminated */

/* How a pop orders its bottom store before its age read (workload.queue_order): sc, as seed
 * 004's atomics are ordered (SC for HRF and SC for DRF: Table 3's release store and acquire
 * load, each performed before the warp's next; no fences in its programs), the store an
 * exchange the warp waits for; or fence, a C11 / OpenCL 2.0 deque's relaxed store and acq_rel
 * fence (a whole-L1 invalidation and flush under every protocol here). Either way index loads
 * are acquire, index stores release, the CAS acq_rel. */
enum wsq_order { WSQ_ORDER_SC, WSQ_ORDER_FENCE, WSQ_ORDERS };
extern const char *const wsq_order_names[]; /* NULL-terminated */

/* Whom an idle CTA tries first (inferred: the seed does not say): a random other queue, the
 * next queue in a ring, or the last victim it stole from (random at first). workload.victim. */
enum wsq_victim { WSQ_VICTIM_RANDOM, WSQ_VICTIM_RING, WSQ_VICTIM_STICKY, WSQ_VICTIMS };
extern const char *const wsq_victim_names[]; /* NULL-terminated */

/* The scenario's sync of own pops and of steals (acq_rel CAS, atomic indices); whether it
 * steals. */
void wsq_scenario_sync(enum wsq_scenario sc, struct wsq_sync *own, struct wsq_sync *steal,
		       bool *stealing);

#endif
