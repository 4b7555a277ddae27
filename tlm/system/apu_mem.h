/*
 * tlm/system/apu_mem.h - the memory side of seed 002's APU for a cluster of CPU cores
 * (docs/apu.md): ceil(cores / 2) CorePairs (two cores each, MOESI), the stateless directory
 * with its victim LLC, `apu.channels` DRAM channels behind it, and the network between the
 * CorePairs and the directory (section `noc`, one-way messages on the four APU vnets).
 *
 * Built by a system from its configuration (sections `apu`, `corepair`, `dir`, `llc`, `noc`,
 * `dram`); the GPU side (TCPs, TCC) and DMA join it when the system builder of issue 17 puts
 * them on the same network. Host copies go around the timing: reads see the owner's dirty copy,
 * writes reach memory and every cached copy (only while nothing is in flight).
 */
#ifndef COHSCOPE_TLM_SYSTEM_APU_MEM_H
#define COHSCOPE_TLM_SYSTEM_APU_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlm/coherence/cpu_port.h"
#include "tlm/mem/store.h"
#include "tlm/system/system.h"

struct apu_mem_cfg {
	uint64_t channels;	   /* DRAM channels behind the directory */
	uint64_t interleave_bytes; /* bytes per channel before the next (a power of two) */
};

extern const struct cs_param_table apu_mem_params; /* section "apu" */

struct apu_mem;

/* The memory side of `cores` cores over the system's backing store; stats under `root`.
 * Replaces the system's payload pool with one of struct mem_msg (the pool stays the system's).
 * 0 or a negative code with err set. */
int apu_mem_create(struct cs_system *s, unsigned cores, struct mem_store *store,
		   struct cs_stat_group *root, struct apu_mem **out, struct cs_err *err);
void apu_mem_destroy(struct apu_mem *m);
/* Core c's memory side (its CorePair's handle for it), with its ops table. */
struct cpu_mem *apu_mem_port(struct apu_mem *m, unsigned c);
const struct cpu_mem_ops *apu_mem_ops(const struct apu_mem *m);
/* The LT face's contention model for the network and DRAM (p outlives m). The CorePairs'
 * cpu_mem_ops.lt_access runs each access's whole transaction in an LT run (docs/apu.md §11). */
struct lt_params;
void apu_mem_set_lt(struct apu_mem *m, const struct lt_params *p);
/* Nothing queued or in flight in the CorePairs, the network, the directory or DRAM. */
bool apu_mem_idle(const struct apu_mem *m);
/* Host copies (nothing in flight): a read takes each line from the CorePair holding it dirty,
 * else from memory (the LLC writes through); a write goes to memory, the LLC's copy and every
 * CorePair's copy. */
void apu_mem_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len);
int apu_mem_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len);
/* Network bytes counted so far (the sampler's traffic). */
double apu_mem_traffic(const struct apu_mem *m);

#endif
