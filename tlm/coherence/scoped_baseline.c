/*
 * tlm/coherence/scoped_baseline.c - protocol `scoped-baseline`: the HRF baseline of seed 004
 * (Alsop et al., "Lazy release consistency for GPUs", §II and Table 3's RSP column without its
 * remote rows; docs/protocols/scoped.md).
 *
 * The L1 (gpu_l1_scoped_ops in gpu_l1_base.c) is write-through with a FIFO store buffer:
 * stores go to the L2 at once and the buffer counts those not yet acknowledged. An acquire of
 * agent or system scope flash-invalidates the L1 (a fence at once; an atomic when it returns),
 * a release flushes the store buffer (the warp waits until it drains); work-group scope does
 * neither, and work-group-scope atomics are performed in the L1 (their results written through
 * the store buffer). A kernel's start invalidates, its end flushes.
 *
 * The L2 performs agent- and system-scope atomics and keeps nothing newer than memory: every
 * write is written through to DRAM and the line dropped ("invalidating L2 cache lines when
 * writing through to memory", §IV), so the CPU side would see GPU writes.
 */
#include "tlm/coherence/gpu_base.h"
#include "tlm/coherence/gpu_l2_base.h"
#include "tlm/coherence/scoped.h"

#define SF(f) offsetof(struct scoped_cfg, f)
static const struct cs_param scoped_rows[] = {
    {"store_buffer", CS_P_UINT, SF(store_buffer), "64", "entries",
     "write-throughs an L1's FIFO store buffer holds unacknowledged; a store waits when it is "
     "full ([INF] seed 004 gives no size)",
     1, 65536, NULL},
    {NULL},
};

const struct cs_param_table scoped_params = {
    .section = "scoped",
    .help = "seed 004's scoped protocols: the L1 store buffer",
    .params = scoped_rows,
    .size = sizeof(struct scoped_cfg),
};

const struct l2_policy scoped_l2_policy = {
    .write_through = true,
};

static int scoped_l2_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			    struct gpu_l2 **out, struct cs_err *err)
{
	return gpu_l2_create_policy(&scoped_l2_policy, ctx, bank, g, out, err);
}

static const struct gpu_l2_ops scoped_l2_ops = {
    GPU_L2_BASE_MEMBERS,
    .create = scoped_l2_create,
};

const struct gpu_protocol gpu_protocol_scoped_baseline = {
    .name = "scoped-baseline",
    .help = "seed 004's HRF baseline, not coherent for unsynchronized accesses: write-through "
	    "L1 with a FIFO store buffer, flash invalidation at acquire, flush at release, "
	    "work-group atomics in the L1, a write-through L2",
    .label = "baseline",
    .msg_names = gpu_base_msg_names,
    .msg_traffic = gpu_base_msg_traffic,
    .n_msgs = GPU_MSG_BASE_COUNT,
    .l1 = &gpu_l1_scoped_ops,
    .l2 = &scoped_l2_ops,
    .has_l1 = true,
    /* plain loads are not kept coherent: only what scoped synchronization orders is seen */
    .coherent = false,
    .acquire_in_l1 = true,
    .params = &scoped_params,
};
