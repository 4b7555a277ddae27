/*
 * tlm/coherence/apu/apu_fabric.h - seed 002's APU protocol as a protocol family of the system
 * builder (tlm/system/fabric.h): its roles on a one-way network with the four APU vnets.
 *
 *   corepair   two CPU cores' MOESI caches (natural count ceil(cpus.cores / 2))
 *   tcp        a CU's TCP (made by the CU's SM; external), natural count gpu.sms
 *   tcc        a TCC slice (natural count apu.tccs); a line's home slice is (addr / 64) mod count
 *   dma        the DMA engine (at most one)
 *   directory  the stateless system directory with its victim LLC (at most one), home of memory
 *   memctrl    a DDR channel behind the directory (natural count apu.channels)
 *   bridge     between two of its networks (the builder's)
 *
 * The layout decides the counts: the directory learns every CorePair's and TCC slice's
 * endpoint, the controllers the directory's, and DRAM channels interleave over the memctrl
 * group at apu.interleave_bytes. Nodes are named by their node ids (fab_node.id), so the
 * family's nodes may sit on several networks joined by bridges (gem5's tree of crossbars).
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_FABRIC_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_FABRIC_H

#include "tlm/coherence/apu/apu_corepair.h"
#include "tlm/coherence/apu/apu_dir.h"
#include "tlm/coherence/apu/apu_dma.h"
#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/system/fabric.h"

struct apu_fab_ctx {
	struct sim_kernel *k;
	struct cs_config *cfg;
	struct apu_msgs *msgs;
	struct apu_lt *lt;
	const struct apu_cp_cfg *cp;
	const struct apu_dir_cfg *dir;
	const struct apu_llc_cfg *llc;
	const struct apu_dma_cfg *dma;
	unsigned cores;		 /* CPU cores (cpus.cores) */
	unsigned tccs, channels; /* natural counts (apu.tccs, apu.channels) */
	unsigned interleave_shift;
	/* the GPU side (system apu), else NULL */
	struct gpu_ctx *gctx;
	struct apu_gpu_cfg *gcfg;
	const struct gpu_l1_ops *tcp_ops;
	/* filled from the layout */
	struct addr_map map; /* DRAM channels */
	unsigned dir_ep;
	unsigned *cp_ep, *tcc_ep;
	uint16_t *tcp_node, *tcc_node;
};

extern const struct fab_proto apu_fab_proto;
/* Standard layouts: the CPU side alone (system cpu, cpus.memory = apu), the whole APU. */
extern const struct fab_std_group apu_fab_std_cpu[];
extern const unsigned apu_fab_n_std_cpu;
extern const struct fab_std_group apu_fab_std[];
extern const unsigned apu_fab_n_std;
void apu_fab_ctx_free(struct apu_fab_ctx *c);

#endif
