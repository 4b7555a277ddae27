/*
 * tlm/coherence/apu/apu_mem.h - the memory side of seed 002's APU for a cluster of CPU cores
 * (docs/apu.md): ceil(cores / 2) CorePairs (two cores each, MOESI), the stateless directory
 * with its victim LLC, `apu.channels` DRAM channels behind it, and the network between the
 * CorePairs and the directory (section `noc`, one-way messages on the four APU vnets).
 *
 * Built by a system from its configuration (sections `apu`, `corepair`, `dir`, `llc`, `noc`,
 * `dram`, and for a GPU `tcp`, `tcc`, `dma`): system `cpu` with `cpus.memory = apu` makes the
 * CPU side only; system `apu` adds the GPU's TCPs and TCC slices and the DMA engine on the same
 * network. Host copies go around the timing: reads see the owner's dirty copy,
 * writes reach memory and every cached copy (only while nothing is in flight).
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_MEM_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analytic/energy.h"
#include "tlm/coherence/cpu_port.h"
#include "tlm/mem/store.h"
#include "tlm/system/system.h"

struct apu_mem_cfg {
	uint64_t channels;	   /* DRAM channels behind the directory */
	uint64_t interleave_bytes; /* bytes per channel before the next (a power of two) */
	uint64_t tccs;		   /* TCC slices (system apu) */
	uint64_t launch_cycles;	   /* GPU cycles from ct_launch to the kernel's start */
};

extern const struct cs_param_table apu_mem_params; /* section "apu" */

struct apu_mem;
struct gpu_ctx;
struct gpu_l1;
struct gpu_l1_ops;

/* The GPU side (system apu): `cus` CUs, whose TCPs the caller's GPU cluster makes, then binds
 * with apu_mem_bind_tcp; the TCC slices (apu.tccs) and the DMA engine are made here (sections
 * `tcp`, `tcc`, `dma`). ctx is the cluster's context, filled by the caller but for pool and
 * proto_cfg, which apu_mem_create sets (the TCPs' and TCCs' configuration and endpoints);
 * ctx->sms must be cus. */
struct apu_mem_gpu {
	unsigned cus;
	struct gpu_ctx *ctx;
};

/* The memory side of `cores` cores over the system's backing store, and of a GPU when gpu is
 * not NULL; stats under `root`. Replaces the system's payload pool with one of struct mem_msg
 * (the pool stays the system's). Endpoints of the network: CorePairs, TCPs, TCC slices, the DMA
 * engine, the directory. 0 or a negative code with err set. */
int apu_mem_create(struct cs_system *s, unsigned cores, const struct apu_mem_gpu *gpu,
		   struct mem_store *store, struct cs_stat_group *root, struct apu_mem **out,
		   struct cs_err *err);
/* Binds CU i's TCP (ops->noc_port, ops->deliver_port) to its endpoint. 0 or -CS_EINVAL. */
int apu_mem_bind_tcp(struct apu_mem *m, unsigned i, const struct gpu_l1_ops *ops,
		     struct gpu_l1 *tcp, struct cs_err *err);
/* The coherence checker (gpu.check; NULL: off): the CorePairs report every store and locked
 * atomic they perform, the directory every write-through, atomic, Flush and DMA write it
 * performs. The TCC slices and the TCPs report to the GPU context's checker (gpu_ctx.chk) the
 * GPU writes they make visible to other CUs (a write-through TCC's copy, WB_L2) or to their own
 * CU (WB_L1), before the directory has them: such a write enters the order at each place, the
 * directory's entry being where CPU agents can see it (docs/apu.md §11). */
struct cohcheck;
void apu_mem_set_check(struct apu_mem *m, struct cohcheck *c);
const struct apu_mem_cfg *apu_mem_cfg(const struct apu_mem *m);
/* DMA (system apu): one transfer at a time; done(ctx) once the last line is answered. */
int apu_mem_dma_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len,
		     void (*done)(void *ctx), void *ctx);
int apu_mem_dma_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len,
		      void (*done)(void *ctx), void *ctx);
/* The same in the LT face: performed at once from time t; returns the time the copy's last line
 * was done (SIM_TIME_MAX: refused, nothing done). */
sim_time_t apu_mem_dma_lt_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len,
			       sim_time_t t);
sim_time_t apu_mem_dma_lt_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len,
				sim_time_t t);
void apu_mem_destroy(struct apu_mem *m);
/* Core c's memory side (its CorePair's handle for it), with its ops table. */
struct cpu_mem *apu_mem_port(struct apu_mem *m, unsigned c);
const struct cpu_mem_ops *apu_mem_ops(const struct apu_mem *m);
/* The LT face's contention model for the network and DRAM (p outlives m). The CorePairs'
 * cpu_mem_ops.lt_access runs each access's whole transaction in an LT run (docs/apu.md §11). */
struct lt_params;
void apu_mem_set_lt(struct apu_mem *m, const struct lt_params *p);
/* Nothing queued or in flight in the CorePairs, the TCC slices, the DMA engine, the network,
 * the directory or DRAM (the TCPs are the GPU cluster's: gpu_cluster_busy_sm asks them). */
bool apu_mem_idle(const struct apu_mem *m);
/* Host copies (nothing in flight): a read takes each line from the CorePair holding it dirty,
 * else from memory (the LLC writes through); a write goes to memory, the LLC's copy and every
 * CorePair's copy. */
void apu_mem_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len);
int apu_mem_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len);
/* The layout the builder made (fabric_json). */
struct fabric;
const struct fabric *apu_mem_fabric(const struct apu_mem *m);
/* Network bytes counted so far (the sampler's traffic). */
double apu_mem_traffic(const struct apu_mem *m);
/* Fills the energy model's values of the memory side's arrays from CACTI (the CorePairs', the
 * directory's, the LLC's, the DMA engine's; with a GPU side the TCPs' and TCC slices' as the L1
 * and L2, with `warps` per CU). 0, or -1 when CACTI's table has no row of the model's node. */
int apu_mem_energy_arrays(const struct apu_mem *m, unsigned warps, struct energy_model *em);
/* Every node's and network's energy events and instances (fabric_energy), added to c, and the
 * model with the DRAM's values from its currents (dram_energy_model) in out. */
void apu_mem_energy(const struct apu_mem *m, const struct energy_model *in, struct energy_counts *c,
		    struct energy_model *out);

#endif
