/*
 * tlm/core/sm_impl.h - the SM's state, shared by its detailed face (sm.c: schedulers, LD/ST
 * unit, events) and its loosely-timed and fast-forward faces (sm_lt.c). Not an API.
 */
#ifndef COHSCOPE_TLM_CORE_SM_IMPL_H
#define COHSCOPE_TLM_CORE_SM_IMPL_H

#include "tlm/core/coalesce.h"
#include "tlm/core/sm.h"
#include "tlm/kernel/coro.h"

enum warp_state {
	W_FREE = 0,   /* slot unused */
	W_READY,      /* an op is posted and may issue */
	W_WAIT_MEM,   /* a memory instruction is being performed */
	W_WAIT_DRAIN, /* the posted op waits until every earlier access is performed */
	W_WAIT_BAR,   /* at the CTA barrier */
	W_WAIT_TIME,  /* compute or scratchpad latency */
	W_WAIT_FENCE, /* performed, waiting for the protocol's fence time (TC-Weak: GWCT) */
};

enum op_kind { OP_NONE = 0, OP_LD, OP_ST, OP_ATOM, OP_FENCE, OP_BAR, OP_COMPUTE, OP_SMEM, OP_EXIT };

struct warp_op {
	uint8_t kind;
	uint64_t mask; /* memory ops: the active lanes */
	bool vals32;   /* load results and store values are uint32_t per lane (else uint64_t) */
	uint8_t bytes; /* per lane */
	uint8_t atom_op, scope, order;
	uint8_t cop;   /* loads and stores: enum mem_cache_op */
	uint8_t space; /* loads and stores: enum mem_space */
	bool want_old; /* atomics: the warp needs the old values */
	bool drained;  /* the drain this op needs has happened */
	bool fenced;   /* the protocol's fence for this op is over */
	bool raw;      /* memory ops posted in FF: not coalesced (sm_op_coalesce) */
	const uint64_t *addr;
	void *out;	 /* loads: uint32_t/uint64_t per lane; atomics: uint64_t old per lane */
	const void *val; /* stores: values per lane */
	const uint64_t *a, *b;
	uint64_t cycles;
	unsigned nreq;
	struct coalesce_req req[WARP_LANES_MAX];
};

struct warp {
	struct gpu_sm *sm;
	unsigned slot;
	struct sim_coro *co;
	struct gpu_cta *cta;
	unsigned idx; /* in the CTA */
	uint8_t state;
	struct warp_op op;
	unsigned pending;     /* requests of the waiting instruction not yet performed */
	unsigned outstanding; /* requests issued and not yet performed */
	uint64_t age;	      /* launch order, for GTO */
	uint64_t rng;
	/* uniform ops: one lane's address, value and result */
	uint64_t u_addr[1];
	uint64_t u_val[1];
	uint64_t u_b[1];
	uint64_t u_out[1];
	/* LT / FF: the warp's own time, and when its unawaited accesses are performed */
	sim_time_t lt_t;
	sim_time_t lt_out;
	/* work the warp has posted (an op, plus a compute op's cycles), and where its last spin
	 * try began (gw_spin_guard) */
	uint64_t posted_work, spin_mark;
	/* LT: the cycles of the compute op in progress, counted into compute_cycles when the
	 * warp comes back at its end (as the detailed face counts them while it issues them):
	 * counted at issue, a long op made the sampler's LT work rate run ahead */
	uint64_t lt_compute;
	/* AT: compute cycles an LT compute op still owed its scheduler when the faces switched
	 * (its warp queued behind others' compute, first come first served); the detailed face
	 * issues them in chunks, round robin with the other warps, before the posted op */
	uint64_t at_compute;
	/* LT: the issue slot of its posted memory op is reserved at lt_t (it lay beyond the
	 * quantum when taken); the op is performed when the warp's time comes */
	bool lt_held;
	/* LT: the posted memory op waits for answers the L1 handles later (misses, merges):
	 * done() finishes it once the last is in (lt_done: the latest answer's time) */
	bool lt_waiting;
	sim_time_t lt_done;
	/* LT: the L1 refused request lt_req of the posted op: the warp goes on from it (its
	 * earlier requests are performed) */
	bool lt_resume;
	unsigned lt_req;
	/* LT: a fence the L1 answered GPU_FENCE_PENDING; its fence_done came at lt_fence_t */
	bool lt_fence_pending;
	sim_time_t lt_fence_t;
	uint32_t lt_gen; /* LT: its entry in the ready heap is the one with this generation */
	/* AT: a fence or a release atomic waiting since sync_t0 (its latency statistic) */
	bool sync_on;
	sim_time_t sync_t0;
};

/* LT, FF: a ready warp's entry in the SM's heap, ordered by (time, slot). */
struct lt_ready {
	sim_time_t t;
	uint32_t slot, gen;
};

/* The transaction record of one request the LD/ST unit sent (what the SM remembers). */
struct sm_req {
	struct warp *w;
	bool blocking;
	bool lt; /* the LT face issued it (counted in lt_left until freed) */
	uint64_t lane_mask;
	uint32_t next_free;
	sim_time_t sent; /* when it was built, LT: issued (its latency statistic) */
	struct gpu_access acc;
	union {
		uint8_t data[MEM_LINE_MAX]; /* stores: the bytes at their line offsets */
		/* loads: each lane's offset in the line, kept at build time so that the answer
		 * need not read the warp's address array again (cold by then: a third of the
		 * LT face's sm_l1_done) */
		uint8_t lane_off[WARP_LANES_MAX];
	};
	struct mem_atom_lanes atom;
};

/* Latency classes of seed 004's Figs. 7 and 8: data loads and stores, atomic loads, stores and
 * read-modify-writes (per request, from the LD/ST unit to the L1's answer), and the waits of
 * fences and release atomics for their coherence actions (acquire, release). */
enum sm_lat {
	SM_LAT_LOAD = 0,
	SM_LAT_STORE,
	SM_LAT_ATOMIC_LOAD,
	SM_LAT_ATOMIC_STORE,
	SM_LAT_ATOMIC_RMW,
	SM_LAT_ACQUIRE,
	SM_LAT_RELEASE,
	SM_LAT_N
};

struct sm_stats {
	uint64_t *lat[SM_LAT_N], *lat_cycles[SM_LAT_N];
	uint64_t *insts, *mem_insts, *fences, *barriers, *compute_cycles;
	uint64_t *space_insts[4]; /* by enum mem_space (global: NULL, the rest of mem_insts) */
	uint64_t *requests, *ctas, *warps;
	uint64_t *stall_ldst, *stall_l1;
	uint64_t *fence_waits, *fence_wait_cycles, *mem_stall_cycles;
};

enum sm_mode { SM_AT = 0, SM_LT, SM_FF };

struct gpu_sm {
	const struct gpu_ctx *ctx;
	const struct gpu_core_cfg *cfg;
	const struct gpu_protocol *proto;
	struct gpu_sm_env env;
	unsigned id;
	struct gpu_l1 *l1;
	unsigned line_bytes, sector_bytes;

	struct warp *warps;
	unsigned nwarps;
	unsigned *bar_slots; /* scratch: the slots a CTA barrier releases */
	uint64_t launches;   /* kernels begun: seeds the warps' random streams */
	unsigned nsched;
	sim_time_t *sched_busy; /* per scheduler: busy until */
	unsigned *sched_last;	/* per scheduler: last slot issued */
	bool tick_pending;
	bool ticked;
	sim_time_t tick_done;	    /* when the schedulers last issued */
	sim_time_t mem_stall_since; /* no warp ready, some waiting on memory, since (0: not) */
	uint64_t next_age;

	/* CTA slots */
	unsigned cta_used, warps_used, regs_used, smem_used;
	struct gpu_cta **cta_slots;

	/* transaction records */
	struct sm_req **reqs;
	unsigned nreqs, req_free; /* free list through next_free; UINT32_MAX = empty */
	unsigned lt_left;	  /* records the LT face issued, not yet freed */

	/* LD/ST unit queue of record ids */
	uint32_t *ldq;
	unsigned ldq_head, ldq_n, ldq_cap;
	bool ldst_blocked;
	bool ldst_pending;
	sim_time_t ldst_next; /* first cycle it may send again */

	struct sm_stats st;

	/* the LT and FF faces (sm_lt.c) */
	uint8_t mode;	   /* enum sm_mode */
	bool hold;	   /* AT drain: issue nothing new */
	bool lt_pending;   /* the LT run is scheduled */
	bool lt_finishing; /* leaving LT: ops are performed whole, whatever their LD/ST time */
	bool lt_running;
	sim_time_t lt_quantum;	/* ps a run goes ahead of the kernel's time */
	sim_time_t lt_run_end;	/* the running LT/FF run performs warps whose time is before */
	sim_time_t ff_step;	/* FF: ps an op takes (one core cycle, rounded up; 0: not yet) */
	sim_time_t *lt_sched;	/* per scheduler: busy until */
	sim_time_t lt_ldst;	/* the LD/ST unit's next free slot */
	sim_time_t lt_launch_t; /* warps a launch starts now begin at this time */
	/* ready warps by (time, slot), lazily: an entry whose warp is no longer ready, or was
	 * pushed again since, is dropped when it reaches the top (2 * warps entries at most:
	 * a full heap is rebuilt from the ready warps) */
	struct lt_ready *lt_heap;
	unsigned lt_heap_n;
	uint64_t *lt_insts, *ff_insts, *ff_compute;
	uint64_t *spin_work; /* work of spin loops' repeated tries (gw_spin_guard) */
};

#define REQ_NONE UINT32_MAX

/* The warp waits until the op's requests are performed: loads, atomics whose old values it
 * needs, that acquire (nothing after them may be performed first) or that are seq_cst (a full
 * fence after them), and every access under SC. */
static inline bool op_blocking(const struct warp_op *op, bool sc)
{
	return op->kind == OP_LD ||
	       (op->kind == OP_ATOM && (op->want_old || mem_order_acquires(op->order))) || sc;
}

/* The protocol's fence once a blocking op is performed (false: none): under SC, what it wrote
 * or read visible to all (a release of device scope); after an atomic that acquires at device
 * or system scope, the protocol's acquire (a non-coherent L1 drops its lines, VIPER's TCP
 * invalidates), unless the L1 performs it as the answer arrives (gpu_protocol.acquire_in_l1).
 * A work-group-scope acquire needs nothing of any protocol: the work-group shares the L1. The
 * fence before a release atomic is its release only, so an acq_rel atomic's acquire follows
 * it, as C11 orders them. */
static inline bool op_over_fence(const struct gpu_sm *sm, const struct warp_op *op, uint8_t *order,
				 uint8_t *scope)
{
	bool sc = sm->cfg->consistency == GPU_SC;
	bool acq = op->kind == OP_ATOM && mem_order_acquires(op->order) &&
		   mem_scope_base(op->scope) != MEM_SCOPE_WG && !sm->proto->acquire_in_l1;

	*order = MEM_ORDER_RELEASE;
	*scope = MEM_SCOPE_DEVICE;
	if (acq) {
		*order = sc ? MEM_ORDER_ACQ_REL : MEM_ORDER_ACQUIRE;
		*scope = op->scope;
	}
	return sc || acq;
}

/* sm_lt.c: w became ready (or its time changed while ready) on the LT or FF face */
void sm_lt_ready(struct gpu_sm *sm, struct warp *w);

/* sm.c, used by both faces */
/* One latency of class c, from since to now (the face's time: sim_now in AT, the LT clock's). */
void sm_lat_add(struct gpu_sm *sm, enum sm_lat c, sim_time_t since, sim_time_t now);
/* The class a fence's wait counts in: a release if it releases, else an acquire. */
static inline enum sm_lat fence_lat_class(uint8_t order)
{
	return mem_order_releases(order) ? SM_LAT_RELEASE : SM_LAT_ACQUIRE;
}
void warp_advance(struct warp *w);
void sm_wake(struct gpu_sm *sm);
void sm_stall_close(struct gpu_sm *sm, sim_time_t now);
void warp_exit(struct warp *w);
void cta_release_barrier(struct gpu_sm *sm, struct gpu_cta *cta);
struct sm_req *sm_req_build(struct gpu_sm *sm, struct warp *w, const struct coalesce_req *c,
			    bool blocking);
void req_free(struct gpu_sm *sm, uint32_t id);
sim_time_t sm_cycles(const struct gpu_sm *sm, sim_time_t t, uint64_t n);
void sm_fail(struct gpu_sm *sm, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A memory op posted in FF gets its requests (op.raw), for the face that takes it over. */
void sm_op_coalesce(struct gpu_sm *sm, struct warp *w);

/* sm_lt.c */
void sm_lt_kick(struct gpu_sm *sm);
/* LT: a blocking memory op's requests are all answered (the L1 called done() for the last) */
void sm_lt_mem_done(struct gpu_sm *sm, struct warp *w);
void sm_ff_mem(struct gpu_sm *sm, struct warp *w);
bool sm_ff_inline(struct gpu_sm *sm, struct warp *w);

#endif
