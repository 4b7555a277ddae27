/*
 * tlm/core/sm.h - a GPU streaming multiprocessor: warps, warp schedulers, coalescer, LD/ST
 * unit and the memory-consistency rules, in front of the protocol's L1.
 *
 * Warps run workload code (workloads/gpu_api.h) as coroutines: each op the code calls is
 * posted to its warp and the coroutine yields until the SM has issued it (and, for what the
 * warp must wait for, until it is performed). Each of `core.schedulers` warp schedulers issues
 * at most one instruction per core cycle, choosing among its warps (slot % schedulers) by
 * loose round robin (LRR), greedy-then-oldest (GTO) or oldest first (the ready warp launched
 * first, gem5's OLDEST_FIRST). Memory instructions are coalesced into
 * line (or sector) requests that wait in the LD/ST unit's bounded queue; the unit hands the L1
 * one request per cycle. SC: a warp has at most one memory instruction outstanding and waits
 * until it is performed (stores included). RC: stores and reductions do not stall the warp;
 * fences, barriers, release atomics and exit wait until every earlier access is performed.
 */
#ifndef COHSCOPE_TLM_CORE_SM_H
#define COHSCOPE_TLM_CORE_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/coherence/gpu_proto.h"
#include "workloads/gpu_api.h"

enum gpu_sched_policy { GPU_SCHED_LRR = 0, GPU_SCHED_GTO, GPU_SCHED_OLDEST };
enum gpu_coalesce_mode { GPU_COALESCE_LINE = 0, GPU_COALESCE_SECTOR };

struct gpu_core_cfg {
	uint64_t clock_mhz;
	uint64_t warps;	   /* warp slots per SM */
	uint64_t ctas;	   /* CTA slots per SM */
	uint64_t regs;	   /* registers per SM */
	uint64_t smem_kib; /* scratchpad per SM */
	uint64_t schedulers;
	unsigned scheduler;   /* enum gpu_sched_policy */
	unsigned consistency; /* enum gpu_consistency */
	unsigned coalesce;    /* enum gpu_coalesce_mode */
	uint64_t ldst_queue;  /* requests */
	uint64_t smem_latency;
	uint64_t compute_chunk;
	uint64_t spin_limit;
	uint64_t stack_kib;
	uint64_t lanes; /* wavefront width: 32 or 64 */
};

extern const struct cs_param_table gpu_core_params; /* section "core" */

struct cs_config;
/* What the parameter table's ranges cannot say: core.lanes is 32 or 64, and the LD/ST queue
 * holds a whole wavefront's requests. An error names the file, line and key. */
int gpu_core_cfg_check(const struct gpu_core_cfg *core, const struct cs_config *cfg,
		       struct cs_err *err);

/* A CTA resident on an SM. Owned by the GPU (tlm/system/gpu.c). */
struct gpu_cta {
	const struct gpu_kernel *kernel;
	unsigned id;	  /* linear CTA id */
	unsigned live;	  /* warps not yet exited */
	unsigned arrived; /* warps waiting at the barrier */
	unsigned slot;	  /* CTA slot in the SM */
	uint8_t *smem;
	struct gpu_cta *prev, *next; /* the GPU's list of resident CTAs */
};

/* An op as a warp posts it, for recording (`cohscope run --record`): pointers into the warp's
 * arguments, valid during the call. kind: the numbering of enum trace_op_kind
 * (workloads/trace/trace.h): 1 load, 2 store, 3 atomic, 4 fence, 5 barrier, 6 compute,
 * 7 scratchpad. A memory op with no active lane is recorded as one cycle of compute, which is
 * what it costs. */
struct sm_op_view {
	uint8_t kind;
	uint8_t bytes, atom_op, scope, order;
	bool want_old;
	bool vals32;	 /* stores: val is uint32_t per lane, else uint64_t */
	uint8_t cop;	 /* loads and stores: enum mem_cache_op */
	bool spin_first; /* kind 0 (OP_NONE): a spin loop's guard, its first when set */
	uint64_t mask;
	uint64_t cycles;
	const uint64_t *addr;
	const void *val;
	const uint64_t *a, *b;
};

/* What an SM asks of the GPU around it. */
struct gpu_sm_env {
	void *gpu;
	void (*cta_done)(void *gpu, unsigned sm, struct gpu_cta *cta);
	/* a warp's check failed or a model error: record and stop */
	void (*fail)(void *gpu, int code, const char *msg);
	/* the coherence checker's hook: a warp read `bytes` at addr and saw v (may be NULL) */
	void (*observe_read)(void *gpu, unsigned sm, unsigned slot, uint64_t addr, unsigned bytes,
			     uint64_t v);
	/* --record: every op a warp posts, and its spin loops' guards (kind 0) (NULL when not
	 * recording) */
	void (*record)(void *gpu, uint64_t gwid, const struct sm_op_view *op);
	/* gpu.line_stats: the line of every request the SM builds (NULL when off) */
	void (*touch)(void *gpu, uint64_t line_addr);
	uint64_t seed;
};

struct gpu_sm;

int gpu_sm_create(const struct gpu_ctx *ctx, const struct gpu_core_cfg *cfg,
		  const struct gpu_protocol *proto, unsigned id, const struct gpu_sm_env *env,
		  struct cs_stat_group *stats, struct gpu_sm **out, struct cs_err *err);
void gpu_sm_destroy(struct gpu_sm *sm);
struct gpu_l1 *gpu_sm_l1(struct gpu_sm *sm);

/* CTAs of kernel k this SM can hold at once (0: the kernel does not fit). */
unsigned gpu_sm_max_ctas(const struct gpu_core_cfg *cfg, const struct gpu_kernel *k);
/* Free CTA slot able to take one more CTA of k now. */
bool gpu_sm_can_take(const struct gpu_sm *sm, const struct gpu_kernel *k);
/* Starts a CTA: warps from free slots, coroutines resumed to their first op. */
int gpu_sm_launch(struct gpu_sm *sm, struct gpu_cta *cta);
/* Kernel boundaries, forwarded to the L1. */
void gpu_sm_kernel_begin(struct gpu_sm *sm);
void gpu_sm_kernel_end(struct gpu_sm *sm, void (*cb)(void *arg), void *arg);
bool gpu_sm_idle(const struct gpu_sm *sm);

/* ---- faces (the sampling controller switches them; tlm/core/sm_lt.c) ---- */
enum gpu_sm_mode { GPU_SM_AT = 0, GPU_SM_LT, GPU_SM_FF };
/* AT: issue nothing new (a switch drains the detailed face). */
void gpu_sm_hold(struct gpu_sm *sm, bool hold);
/* Something is in flight in the SM or its L1 (an access, a compute or fence delay). */
bool gpu_sm_busy(const struct gpu_sm *sm);
/* No request the LT face issued is still in flight: after a switch to the detailed face its
 * answers come at the LT face's times, not through the detailed queues. */
bool gpu_sm_lt_settled(const struct gpu_sm *sm);
/* Switch faces: from AT only when held and not busy; FF only between kernels. */
void gpu_sm_set_mode(struct gpu_sm *sm, unsigned mode);
/* The LT face's quantum: how far warps may run ahead of the kernel's time. */
void gpu_sm_set_quantum(struct gpu_sm *sm, sim_time_t ps);
/* LT, FF: the latest time of a live warp, and when the last warp exited. */
sim_time_t gpu_sm_lt_time(const struct gpu_sm *sm);
sim_time_t gpu_sm_lt_exit_time(const struct gpu_sm *sm);
/* Work done by every face, the sampler's measure of progress: warp instructions plus the issue
 * cycles of compute ops (a long compute op is one instruction but many cycles of work; an
 * instruction count alone made a unit of a compute-bound kernel hold a handful of ops), less
 * the spin loops' repeated tries (each face spins as long as its timing makes it: FF's spin
 * at stn's grid barriers made its fills 7% heavier than the detailed run's work). */
uint64_t gpu_sm_work(const struct gpu_sm *sm);
/* The same with the spin tries in: what the SM's schedulers issued (the events bound's issue
 * count: spinning takes issue slots). */
uint64_t gpu_sm_issued(const struct gpu_sm *sm);
/* The part of it FF ran (values only: no event of it is counted). */
uint64_t gpu_sm_ff_work(const struct gpu_sm *sm);
/* The stats contract (analytic/energy.h): adds the SM's energy events (issue slots, compute,
 * LD/ST unit) to out; the FF face's work is not among them (it counts no event). */
void gpu_sm_energy(const struct gpu_sm *sm, struct energy_counts *out);
/* Warps resident on the SM now (launched and not yet exited). */
unsigned gpu_sm_resident_warps(const struct gpu_sm *sm);

#endif
