/*
 * tlm/coherence/scoped.h - the configuration of seed 004's scoped protocol family (section
 * `scoped`), read by its L1 (gpu_l1_base.c, gpu_l1_scoped_ops) and its L2.
 */
#ifndef COHSCOPE_TLM_COHERENCE_SCOPED_H
#define COHSCOPE_TLM_COHERENCE_SCOPED_H

#include <stdint.h>

#include "tlm/coherence/gpu_proto.h"

struct scoped_cfg {
	uint64_t store_buffer; /* entries of an L1's FIFO store buffer */
};

extern const struct cs_param_table scoped_params;
/* the family's L2 policy: write-through to DRAM, the line dropped (seed 004 §IV) */
struct l2_policy;
extern const struct l2_policy scoped_l2_policy;
extern const struct gpu_l1_ops gpu_l1_scoped_ops;
/* the scoped L1 on the one-way network, answering probes (protocol rsp, scoped/README.md) */
extern const struct gpu_l1_ops gpu_l1_rsp_ops;

#endif
