/*
 * tlm/coherence/scoped/hlrc.c - protocols `hlrc` and `hlrc-noprio`: heterogeneous lazy release
 * consistency (seed 004 §III and Table 3's hLRC column; README.md §6). scoped-baseline's
 * write-through L1 with its FIFO store buffer, on the one-way network, where every atomic
 * registers its line in the L1 that performs it: an atomic on a line registered here is
 * performed here with no coherence action (c0, c8, c16); else a GetR brings the line and its
 * registration from the L2 (c1, c9, c17) or, recalled, from the L1 holding it, which flushes
 * its store buffer before it lets go (c4-c5, c12-c13, c20-c21); the L1 that gains
 * registration invalidates its other lines after the access (c3, c7, ...). Data loads of a
 * registered line are read at the L2, no invalidation or flush touches a registered line, and
 * an L2 that evicts one recalls it (inclusion). `hlrc` replaces registered lines last (Rprio)
 * in L1 and L2, as the seed's main results; `hlrc-noprio` by LRU (its Fig. 9). `hlrc-scoped`
 * (§2.6, Fig. 10) registers work-group-scope atomics so, and performs agent-scope ones at the
 * L2 (the line recalled there first) with the store-buffer flush before a release and the
 * invalidation after an acquire of the baseline's agent-scope atomics.
 */
#include "tlm/coherence/scoped.h"
#include "tlm/coherence/scoped/sc_fabric.h"
#include "tlm/coherence/scoped/sc_home.h"
#include "tlm/coherence/scoped/sc_msg.h"

const struct sc_reg_variant sc_reg_hlrc = {
    .rprio = true, .flush_on_loss = true, .inv_on_gain = true};
const struct sc_reg_variant sc_reg_hlrc_noprio = {.flush_on_loss = true, .inv_on_gain = true};
const struct sc_reg_variant sc_reg_hlrc_scoped = {
    .rprio = true, .flush_on_loss = true, .inv_on_gain = true, .agent_at_l2 = true};

#define HLRC_COMMON                                                                       \
	.msg_names = sc_msg_names, .msg_traffic = sc_msg_traffic, .n_msgs = SC_MSG_COUNT, \
	.has_l1 = true, .coherent = false, .acquire_in_l1 = true, .release_in_l1 = true,  \
	.params = &scoped_params, .fab = &sc_fab_proto, .fab_std = sc_fab_std,            \
	.fab_n_std = &sc_fab_n_std

const struct gpu_protocol gpu_protocol_hlrc = {
    HLRC_COMMON,
    .name = "hlrc",
    .help = "seed 004's hLRC, not coherent for unsynchronized accesses: atomics register their "
	    "line in the L1 (moved by recall through the L2), invalidation when registration "
	    "comes in, flush when it leaves; Rprio replacement",
    .label = "hLRC",
    .l1 = &gpu_l1_hlrc_ops,
    .l2 = &sc_home_hlrc_l2_ops,
};

const struct gpu_protocol gpu_protocol_hlrc_noprio = {
    HLRC_COMMON,
    .name = "hlrc-noprio",
    .help = "seed 004's hLRC-noprio (Fig. 9), not coherent for unsynchronized accesses: hlrc "
	    "with LRU replacement in L1 and L2",
    .label = "hLRC-noprio",
    .l1 = &gpu_l1_hlrc_noprio_ops,
    .l2 = &sc_home_hlrc_noprio_l2_ops,
};

/* the SM asks the L1 for a release atomic's release: none at work-group scope (hLRC's lazy
 * release), the store-buffer flush at agent scope (l1_scoped_fence) */
const struct gpu_protocol gpu_protocol_hlrc_scoped = {
    .msg_names = sc_msg_names,
    .msg_traffic = sc_msg_traffic,
    .n_msgs = SC_MSG_COUNT,
    .has_l1 = true,
    .coherent = false,
    .acquire_in_l1 = true,
    .release_in_l1 = false,
    .params = &scoped_params,
    .fab = &sc_fab_proto,
    .fab_std = sc_fab_std,
    .fab_n_std = &sc_fab_n_std,
    .name = "hlrc-scoped",
    .help = "seed 004's hLRC-scoped (Fig. 10), not coherent for unsynchronized accesses: hlrc "
	    "for work-group-scope atomics; agent-scope atomics performed at the L2 (recalled "
	    "there from an L1), with a store-buffer flush before a release and an invalidation "
	    "after an acquire",
    .label = "hLRC-scoped",
    .l1 = &gpu_l1_hlrc_scoped_ops,
    .l2 = &sc_home_hlrc_l2_ops,
};
