/*
 * tlm/coherence/scoped/sc_fabric.h - the scoped protocols on the one-way network as a protocol
 * family of the system builder (tlm/system/fabric.h; README.md):
 *
 *   l1       FAB_MSG, external: an SM's L1 (gpu_protocol.l1: noc_port injects, deliver_port
 *            receives); natural count gpu.sms; node i is SM i
 *   l2       FAB_MSG: an L2 bank as the home of its lines (gpu_protocol.l2, sc_home.h), one
 *            memory socket; natural count l2.banks; node gpu.sms + j is bank j
 *   memctrl  a DRAM channel; natural count l2.banks / l2.banks_per_channel
 *
 * The network carries the APU kit's four vnets (requests, probes, answers and acks; the fourth
 * unused). The layout check holds a configuration to the node numbering above and to the
 * address map's banks and channels.
 */
#ifndef COHSCOPE_TLM_COHERENCE_SCOPED_SC_FABRIC_H
#define COHSCOPE_TLM_COHERENCE_SCOPED_SC_FABRIC_H

#include "tlm/coherence/gpu_fabric.h"

extern const struct fab_proto sc_fab_proto;
/* The standard layout: channels, then the SMs' L1s, then the L2 banks, on the network `noc`. */
extern const struct fab_std_group sc_fab_std[];
extern const unsigned sc_fab_n_std;

#endif
