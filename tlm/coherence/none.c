/*
 * tlm/coherence/none.c - protocol `none`: no L1 at all, every access is served by the L2.
 *
 * The papers' coherent baseline "BL" (G-TSC thesis §3.7): with the L1 disabled there is
 * nothing to keep coherent, so every value a warp sees comes from the L2 bank that owns it.
 */
#include "tlm/coherence/gpu_base.h"

const struct gpu_protocol gpu_protocol_none = {
    .name = "none",
    .help = "no L1: every access goes to the L2 (the papers' baseline BL)",
    .label = "BL",
    .msg_names = gpu_base_msg_names,
    .msg_traffic = gpu_base_msg_traffic,
    .n_msgs = GPU_MSG_BASE_COUNT,
    .l1 = &gpu_l1_bypass_ops,
    .l2 = &gpu_l2_base_ops,
    .has_l1 = false,
    .coherent = true,
};
