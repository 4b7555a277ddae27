/*
 * tlm/system/gpu_cluster.h - a cluster of GPU SMs and its CTA scheduler, the part of a GPU that
 * does not depend on the memory side behind the L1s. System `gpu` puts it in front of the NoC and
 * the banked L2; system `apu` in front of the APU's network with VIPER TCPs as its L1s.
 *
 * CTA scheduling (G-TSC thesis §1, GPGPU-Sim): CTAs go to SMs round-robin, each SM taking as many
 * as its occupancy limits allow (warp slots, CTA slots, registers, scratchpad); when a CTA
 * finishes, its SM takes the next one. A kernel that places its CTAs (gpu_kernel.cta_sm) starts
 * each on its SM, in order, as soon as that SM has room. One kernel runs at a time.
 *
 * The owner (the system) keeps the kernel's books: it is told when every CTA is done and ends
 * the kernel itself (gpu_cluster_kernel_end), so it can wrap the L1s' end-of-kernel work.
 */
#ifndef COHSCOPE_TLM_SYSTEM_GPU_CLUSTER_H
#define COHSCOPE_TLM_SYSTEM_GPU_CLUSTER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "sampling/sampler.h"
#include "tlm/core/sm.h"

struct gpu_cluster;

/* What the cluster asks of its owner. */
struct gpu_cluster_env {
	void *owner;
	/* a warp's check failed, a model error or a CTA that cannot start: record and stop */
	void (*fail)(void *owner, int code, const char *msg);
	/* a CTA finished (the progress display; may be NULL) */
	void (*cta_done)(void *owner);
	/* the kernel's last CTA finished: the owner ends the kernel (gpu_cluster_kernel_end) */
	void (*ctas_done)(void *owner);
	/* the SMs' hooks (struct gpu_sm_env), NULL when unused */
	void (*observe_read)(void *owner, unsigned sm, unsigned slot, uint64_t addr, unsigned bytes,
			     uint64_t v);
	void (*record)(void *owner, uint64_t gwid, const struct sm_op_view *op);
	/* every request's line (gpu.line_stats; NULL: off) */
	void (*touch)(void *owner, uint64_t line_addr);
	uint64_t seed;
};

/* ctx->sms SMs named sm0.. under `stats`, each with the L1 of `proto`, each warp's time ahead
 * bounded by quantum_ps in the LT and FF faces. 0 or a negative code with err set. */
int gpu_cluster_create(const struct gpu_ctx *ctx, const struct gpu_core_cfg *core,
		       const struct gpu_protocol *proto, const struct gpu_cluster_env *env,
		       sim_time_t quantum_ps, struct cs_stat_group *stats, struct gpu_cluster **out,
		       struct cs_err *err);
/* Frees the SMs and any CTA a failed run left resident. */
void gpu_cluster_destroy(struct gpu_cluster *c);

unsigned gpu_cluster_sms(const struct gpu_cluster *c);
struct gpu_sm *gpu_cluster_sm(struct gpu_cluster *c, unsigned i);
/* Adds every SM to the sampler as an initiator. 0 or -CS_ENOMEM. */
int gpu_cluster_sample(struct gpu_cluster *c, struct sampler *s);

/* The launch's copy of kernel in: its grid and block shape filled in (grid_x and grid_y from
 * ctas for a 1-D grid, ctas from them for a 2-D one; block_x the CTA's threads for a 1-D CTA),
 * local_base 0. 0, or -CS_EINVAL with msg saying what is wrong with the shape. */
int gpu_kernel_shape(const struct gpu_kernel *in, struct gpu_kernel *out, char *msg, size_t n);
/* Kernel k fits on an SM (0), else env.fail with a message naming the limits and -CS_ECONFIG. */
int gpu_cluster_check_fit(struct gpu_cluster *c, const struct gpu_kernel *k);
/* A launch: the SMs begin the kernel (their L1s' kernel-start work) ... */
void gpu_cluster_begin(struct gpu_cluster *c, const struct gpu_kernel *k);
/* ... and, once the owner has done its own kernel-start work, the first CTAs start. */
void gpu_cluster_fill(struct gpu_cluster *c);
/* After env.ctas_done: every SM's end-of-kernel work (the L1s' write-backs), then cb(arg). */
void gpu_cluster_kernel_end(struct gpu_cluster *c, void (*cb)(void *arg), void *arg);

/* The running kernel (NULL before the first launch), its CTAs started and finished. */
const struct gpu_kernel *gpu_cluster_kernel(const struct gpu_cluster *c);
unsigned gpu_cluster_ctas_done(const struct gpu_cluster *c);
bool gpu_cluster_all_started(const struct gpu_cluster *c);
/* The latest time a warp exited in the LT or FF face (they run ahead of the kernel's time). */
sim_time_t gpu_cluster_lt_exit_time(const struct gpu_cluster *c);
/* -1 when every SM is idle, else the first busy SM. */
int gpu_cluster_busy_sm(const struct gpu_cluster *c);

/* The sampling layer's view of one SM (struct gpu_sm *). */
extern const struct samp_initiator_ops gpu_sm_initiator;

#endif
