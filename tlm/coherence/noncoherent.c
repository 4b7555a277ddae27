/*
 * tlm/coherence/noncoherent.c - protocol `noncoherent`: L1s on, nothing keeps them coherent.
 *
 * The papers' "W/L1" configuration: the Fermi baseline, correct only for programs that do not
 * communicate between SMs within a kernel (L1s are invalidated at each launch). Programs that
 * do can read stale data; the stale-data tests show it. With l1.fence_invalidate an acquire
 * fence of device or system scope invalidates the SM's L1, as GPUs that keep release
 * consistency in software-managed L1s do (stores are written through and performed at the L2
 * before a release lets the warp go on), so fence-ordered communication sees fresh data.
 */
#include "tlm/coherence/gpu_base.h"

const struct gpu_protocol gpu_protocol_noncoherent = {
    .name = "noncoherent",
    .help = "L1 without coherence, invalidated at kernel launch (the papers' W/L1)",
    .label = "W/L1",
    .msg_names = gpu_base_msg_names,
    .msg_traffic = gpu_base_msg_traffic,
    .n_msgs = GPU_MSG_BASE_COUNT,
    .l1 = &gpu_l1_nc_ops,
    .l2 = &gpu_l2_base_ops,
    .has_l1 = true,
    .coherent = false,
};
