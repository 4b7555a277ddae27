/*
 * tlm/coherence/scoped/denovo.c - protocols `denovo-b` and `denovo-rprio`: seed 004's DeNovo-B
 * (§II.D, Table 3's DeNovo column b0-b26; README.md §7) on the registration of `hlrc`. Data
 * stores are written into the L1 (write-allocate, the written bytes remembered) and registered
 * at release (StReg: a GetR per written line, whose answer goes under the written bytes); a
 * registered line holds the only up-to-date copy and is read and written in the L1; atomics
 * register as under hLRC; every acquire invalidates the L1's lines that are not registered
 * (no read-only regions); registration leaves an L1 with no flush; the L2 is inclusive for
 * registered lines and write-back. Block granularity. `denovo-b` replaces by LRU (the seed's
 * main DeNovo-B), `denovo-rprio` registered lines last (Fig. 9).
 */
#include "tlm/coherence/scoped.h"
#include "tlm/coherence/scoped/sc_fabric.h"
#include "tlm/coherence/scoped/sc_home.h"
#include "tlm/coherence/scoped/sc_msg.h"

const struct sc_reg_variant sc_reg_denovo_b = {.store_reg = true, .inv_on_acquire = true};
const struct sc_reg_variant sc_reg_denovo_rprio = {
    .rprio = true, .store_reg = true, .inv_on_acquire = true};

/* the SM asks the L1 for a release atomic's release (the StRegs) before the atomic */
#define DENOVO_COMMON                                                                     \
	.msg_names = sc_msg_names, .msg_traffic = sc_msg_traffic, .n_msgs = SC_MSG_COUNT, \
	.has_l1 = true, .coherent = false, .acquire_in_l1 = true, .release_in_l1 = false, \
	.params = &scoped_params, .fab = &sc_fab_proto, .fab_std = sc_fab_std,            \
	.fab_n_std = &sc_fab_n_std

const struct gpu_protocol gpu_protocol_denovo_b = {
    DENOVO_COMMON,
    .name = "denovo-b",
    .help = "seed 004's DeNovo-B, not coherent for unsynchronized accesses: stores written in "
	    "the L1 and registered at release (StReg), atomics registered, invalidation at every "
	    "acquire, write-back L2 for registered data; block granularity, LRU",
    .label = "DeNovo-B",
    .l1 = &gpu_l1_denovo_b_ops,
    .l2 = &sc_home_denovo_b_l2_ops,
};

const struct gpu_protocol gpu_protocol_denovo_rprio = {
    DENOVO_COMMON,
    .name = "denovo-rprio",
    .help = "seed 004's DeNovo-B with Rprio replacement in L1 and L2 (Fig. 9), not coherent for "
	    "unsynchronized accesses",
    .label = "DeNovo-Rprio",
    .l1 = &gpu_l1_denovo_rprio_ops,
    .l2 = &sc_home_denovo_rprio_l2_ops,
};
