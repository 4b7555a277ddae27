/*
 * tlm/noc/bridge.h - a bridge between two one-way networks (noc_net_create): an endpoint on
 * each, forwarding every message it receives on one side into the other, so that a system can
 * be a tree of networks (gem5's APU: a CPU-cluster crossbar, a GPU-cluster crossbar and a main
 * crossbar; seed 003's CPU-GPU link between a CPU and a GPU network).
 *
 * Addressing: with bridges, a message's dst is a node id; each network's route table
 * (noc_set_routes) sends a message for a node elsewhere to the bridge towards it. The bridge
 * keeps dst and re-injects the message, unchanged, into the other network.
 *
 * Timing (AT): a message taken on side A is offered to side B's network at the first edge of
 * B's clock at least `bridge.latency` B-cycles after it arrived, in arrival order per vnet.
 * Every vnet has its own buffer of `bridge.buffer` messages per direction: a full buffer
 * withholds END_REQ from A's network for that vnet only, so vnets stay independent through the
 * bridge (no protocol deadlock across networks), and B's back-pressure reaches A.
 * LT: b_transport forwards with the latency added; transport_dbg forwards.
 *
 * Stats (group given): fwd_ab, fwd_ba (messages forwarded from side 0 to 1, 1 to 0), stalls
 * (arrivals that found their buffer full), held (of B's network refusing an offer at once).
 */
#ifndef COHSCOPE_TLM_NOC_BRIDGE_H
#define COHSCOPE_TLM_NOC_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "tlm/kernel/tlm.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

struct noc_bridge_cfg {
	uint64_t latency; /* cycles of the clock of the network a message enters */
	uint64_t buffer;  /* messages per vnet per direction */
};
extern const struct cs_param_table noc_bridge_params; /* section "bridge" */

struct noc_bridge;

/* clk0, clk1: the clocks of the networks on side 0 and 1 (kept). 0 or -CS_ENOMEM. */
int noc_bridge_create(struct sim_kernel *k, const struct noc_bridge_cfg *cfg,
		      const struct sim_clock *clk0, const struct sim_clock *clk1,
		      struct cs_stat_group *stats, struct noc_bridge **out, struct cs_err *err);
void noc_bridge_destroy(struct noc_bridge *b);
/* Side s's sockets: the initiator binds to its network's noc_inject_port, its network's
 * noc_deliver_port binds to the target. */
struct tlm_initiator_socket *noc_bridge_inject(struct noc_bridge *b, unsigned side);
struct tlm_target_socket *noc_bridge_deliver(struct noc_bridge *b, unsigned side);
/* Nothing held. */
bool noc_bridge_idle(const struct noc_bridge *b);

#endif
