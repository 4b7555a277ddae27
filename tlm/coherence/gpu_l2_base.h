/*
 * tlm/coherence/gpu_l2_base.h - the L2 bank of gpu_l2_base.c with a coherence policy plugged in.
 *
 * The bank (queues, pipeline, MSHRs, DRAM side, write-back) is the same for every protocol; a
 * protocol that keeps state per L2 line (TC's leases, G-TSC's timestamps) supplies a policy:
 * hooks the bank calls when a line is installed or evicted, before a request is performed
 * (a write may have to wait: TC-Strong), after it is performed (fill in the answer's
 * timestamps and message type), when choosing a victim (a leased line may not go: TC), and
 * at a kernel launch. The hooks get the policy's own state (state_size bytes, zeroed).
 */
#ifndef COHSCOPE_TLM_COHERENCE_GPU_L2_BASE_H
#define COHSCOPE_TLM_COHERENCE_GPU_L2_BASE_H

#include "tlm/coherence/gpu_base.h"
#include "tlm/mem/cache.h"

struct l2_policy {
	size_t state_size;
	/* every write (a store, a write-back, an atomic's result) is written through to DRAM and
	 * the line dropped once its requests are served: seed 004's L2, which keeps nothing newer
	 * than memory so that the CPU sees GPU writes */
	bool write_through;
	int (*init)(void *ps, const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
		    struct cs_err *err);
	/* a line was allocated (before its fill or a full write) */
	void (*installed)(void *ps, struct cache_line *l);
	/* a valid line is being replaced */
	void (*evicted)(void *ps, const struct cache_line *l);
	/* may l be replaced at `now`? When not, *retry is lowered to when it may. */
	bool (*may_evict)(void *ps, const struct cache_line *l, sim_time_t now, sim_time_t *retry);
	/* a request found no way of its set that may go yet, only for a time: called once per
	 * request, however often it tries (TC's lifetime predictor) */
	void (*evict_blocked)(void *ps);
	/* the earliest time m may be performed on l (<= now: at once) */
	sim_time_t (*ready_at)(void *ps, const struct cache_line *l, const struct mem_msg *m,
			       sim_time_t now);
	/* m was performed on l at time t: set the answer's type, size and fields */
	void (*served)(void *ps, struct cache_line *l, struct mem_msg *m, sim_time_t t);
	/* the bank's own state for gpu_l2_probe (G-TSC: mem_ts) */
	uint64_t (*bank_state)(const void *ps);
	/* a kernel launch: the bank's lines are in c */
	void (*kernel_begin)(void *ps, struct cache *c);
	/* a protocol's own request type: the base type (gpu_base.h) the bank performs it as */
	unsigned (*base_type)(unsigned type);
	/* a write-through bank writes l through but keeps it (seed 004's registered lines, which
	 * the L2 holds inclusively) */
	bool (*keep)(void *ps, const struct cache_line *l);
	/* l goes only when no other way of its set may (Rprio: registered lines last) */
	bool (*evict_last)(void *ps, const struct cache_line *l);
	/* the policy's own energy events, beside the bank's (gpu_l2_energy): its timestamps or
	 * leases, given the bank's requests and fills; it may take back data reads its answers
	 * did without data */
	void (*energy)(const void *ps, double accesses, double fills, struct energy_counts *out);
};

int gpu_l2_create_policy(const struct l2_policy *pol, const struct gpu_ctx *ctx, unsigned bank,
			 struct cs_stat_group *stats, struct gpu_l2 **out, struct cs_err *err);
void gpu_l2_destroy(struct gpu_l2 *b);
struct tlm_target_socket *gpu_l2_noc_port(struct gpu_l2 *b);
struct tlm_initiator_socket *gpu_l2_dram_port(struct gpu_l2 *b);
void gpu_l2_functional_read(struct gpu_l2 *b, uint64_t addr, void *buf, size_t len);
int gpu_l2_functional_write(struct gpu_l2 *b, uint64_t addr, const void *buf, size_t len);
/* Functional warming: gpu_l2_ops.warm (gpu_proto.h). */
void gpu_l2_warm(struct gpu_l2 *b, uint64_t line, const uint64_t mask[2], bool writes);
void gpu_l2_kernel_begin(struct gpu_l2 *b);
bool gpu_l2_idle(const struct gpu_l2 *b);
uint64_t gpu_l2_digest(const struct gpu_l2 *b);
/* gpu_l2_ops.energy: the bank's tag, data and MSHR events, and its policy's. */
void gpu_l2_energy(const struct gpu_l2 *b, struct energy_counts *out);
/* A bank's policy state and lines (a G-TSC timestamp reset reaches every bank). */
bool gpu_l2_probe(const struct gpu_l2 *b, uint64_t addr, uint64_t out[3]);
void *gpu_l2_policy_state(struct gpu_l2 *b);
struct cache *gpu_l2_cache(struct gpu_l2 *b);

/* The gpu_l2_ops members every bank built on this file shares; a table adds its create (and
 * the lease protocols kernel_begin and probe). */
#define GPU_L2_BASE_MEMBERS                                                                     \
	.destroy = gpu_l2_destroy, .noc_port = gpu_l2_noc_port, .dram_port = gpu_l2_dram_port,  \
	.functional_read = gpu_l2_functional_read, .functional_write = gpu_l2_functional_write, \
	.idle = gpu_l2_idle, .digest = gpu_l2_digest, .warm = gpu_l2_warm, .energy = gpu_l2_energy

#endif
