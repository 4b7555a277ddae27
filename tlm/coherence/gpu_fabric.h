/*
 * tlm/coherence/gpu_fabric.h - the GPU protocols as a protocol family of the system builder
 * (tlm/system/fabric.h): their roles on a request/response network.
 *
 *   l1       FAB_REQ, external: the L1 an SM makes (gpu_protocol.l1); natural count gpu.sms
 *   l2       FAB_RESP: an L2 bank (gpu_protocol.l2), one memory socket; natural count l2.banks
 *   memctrl  a DRAM channel; natural count l2.banks / l2.banks_per_channel
 *
 * The address map (l2.banks, banks_per_channel, interleave) routes each access to its bank, so
 * the layout must have l2.banks banks and l2.banks / banks_per_channel channels: the family's
 * layout check says so, naming the keys, when a configuration differs.
 */
#ifndef COHSCOPE_TLM_COHERENCE_GPU_FABRIC_H
#define COHSCOPE_TLM_COHERENCE_GPU_FABRIC_H

#include "tlm/coherence/gpu_proto.h"
#include "tlm/system/fabric.h"

struct gpu_fab_ctx {
	const struct gpu_protocol *proto;
	const struct gpu_ctx *ctx;
	struct cs_config *cfg; /* for messages naming the keys */
};

extern const struct fab_proto gpu_fab_proto;
/* The family's hooks, shared with the scoped family (scoped/sc_fabric.c), whose roles have the
 * same names: natural counts (l1: gpu.sms, l2: l2.banks, memctrl: the channels), and the
 * layout check (one network; the address map's banks and channels, in channel order). */
unsigned gpu_fab_natural_count(void *ctx, const struct fab_role_ops *r);
int gpu_fab_layout(void *ctx, struct fabric *f, struct cs_err *err);
/* The roles' hooks both families share: the L1's sending socket, and an L2 bank made, destroyed,
 * its DRAM socket and idleness through the protocol's gpu_l2_ops. */
struct tlm_initiator_socket *gpu_fab_l1_send(void *ctx, void *obj);
int gpu_fab_l2_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		      struct cs_err *err);
void gpu_fab_l2_destroy(void *ctx, void *obj);
struct tlm_initiator_socket *gpu_fab_l2_mem(void *ctx, void *obj, unsigned j);
bool gpu_fab_l2_idle(void *ctx, const void *obj);
/* The L1's events (the protocol's gpu_l1_ops.energy) and itself, if the protocol has an L1; a
 * bank's (gpu_l2_ops.energy) and itself. */
void gpu_fab_l1_energy(void *ctx, const void *obj, struct energy_counts *c);
void gpu_fab_l2_energy(void *ctx, const void *obj, struct energy_counts *c);
/* The standard layout of system gpu: channels, L2 banks, SMs' L1s on the network `noc`. */
extern const struct fab_std_group gpu_fab_std[];
extern const unsigned gpu_fab_n_std;

#endif
