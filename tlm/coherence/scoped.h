/*
 * tlm/coherence/scoped.h - the configuration of seed 004's scoped protocol family (section
 * `scoped`), read by its L1 (gpu_l1_base.c, gpu_l1_scoped_ops) and its L2.
 */
#ifndef COHSCOPE_TLM_COHERENCE_SCOPED_H
#define COHSCOPE_TLM_COHERENCE_SCOPED_H

#include <stdbool.h>
#include <stddef.h>
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

/* What a registration protocol does (seed 004 §2.4-2.5: hLRC, DeNovo-B and their variants;
 * scoped/README.md §6). */
struct sc_reg_variant {
	bool rprio;	    /* L1 and L2 replace registered lines last (Rprio), else LRU */
	bool flush_on_loss; /* hLRC: the store buffer drains before registration leaves an L1 */
	bool inv_on_gain;   /* hLRC: an L1 invalidates its other lines once registration comes in */
	/* DeNovo-B: data stores are written into the L1 and registered at release (StReg); a
	 * registered line holds up-to-date data (loads hit it); the L2 is write-back */
	bool store_reg;
	bool inv_on_acquire; /* DeNovo: the L1 invalidates after every acquire atomic */
	/* hLRC-scoped (§2.6): atomics of agent or system scope register at the L2: performed
	 * there (the line recalled from an L1 first), the store buffer flushed before a release
	 * and the L1 invalidated after an acquire; work-group ones register in the L1 */
	bool agent_at_l2;
};
extern const struct sc_reg_variant sc_reg_hlrc, sc_reg_hlrc_noprio, sc_reg_hlrc_scoped,
    sc_reg_denovo_b, sc_reg_denovo_rprio;
/* hLRC's L1s: every atomic registers its line in the L1 (Table 3 c0-c23) */
extern const struct gpu_l1_ops gpu_l1_hlrc_ops, gpu_l1_hlrc_noprio_ops, gpu_l1_hlrc_scoped_ops;
/* DeNovo-B's L1s (Table 3 b0-b26), with LRU and with Rprio */
extern const struct gpu_l1_ops gpu_l1_denovo_b_ops, gpu_l1_denovo_rprio_ops;
struct gpu_l1;
/* A host or fast-forward access to a line l1 holds registered: read overlays the bytes its
 * atomics wrote (the L2's copy of them is older), write updates its copy too. false when the
 * L1 does not hold the line registered. */
bool gpu_l1_reg_functional(struct gpu_l1 *l1, uint64_t addr, void *rbuf, const void *wbuf,
			   size_t len);

#endif
