/*
 * tlm/coherence/scoped/rsp.c - protocol `rsp`: remote scope promotion (Orr et al., as seed 004
 * §2.3 and Table 3's RSP column implement it; README.md). scoped-baseline's L1 and L2, on the
 * one-way network, plus remote scope: a remote-scope atomic goes to its line's home bank,
 * which broadcasts to every other L1 what its row asks (a remote acquire: flush, a4; a remote
 * release: lock RMWs, flush, invalidate, then after the store invalidate and unlock, a9-a14; a
 * remote RMW: lock, flush, invalidate, then flush, invalidate, unlock, a19-a25), counts the
 * acks, performs the atomic, and answers. The requester's own flush (before a release) and
 * invalidation (after an acquire, a5) are the scoped L1's, as for agent scope. Work-group and
 * agent scope behave as in scoped-baseline.
 */
#include "tlm/coherence/scoped.h"
#include "tlm/coherence/scoped/sc_fabric.h"
#include "tlm/coherence/scoped/sc_home.h"
#include "tlm/coherence/scoped/sc_msg.h"

const struct gpu_protocol gpu_protocol_rsp = {
    .name = "rsp",
    .help = "seed 004's RSP, not coherent for unsynchronized accesses: scoped-baseline plus "
	    "remote scope, whose atomics make their home L2 bank broadcast flushes, "
	    "invalidations and RMW locks to every other L1 and wait for the acks",
    .label = "RSP",
    .msg_names = sc_msg_names,
    .msg_traffic = sc_msg_traffic,
    .n_msgs = SC_MSG_COUNT,
    .l1 = &gpu_l1_rsp_ops,
    .l2 = &sc_home_l2_ops,
    .has_l1 = true,
    .coherent = false,
    .acquire_in_l1 = true,
    .params = &scoped_params,
    .fab = &sc_fab_proto,
    .fab_std = sc_fab_std,
    .fab_n_std = &sc_fab_n_std,
};
