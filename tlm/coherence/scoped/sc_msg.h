/*
 * tlm/coherence/scoped/sc_msg.h - the messages of seed 004's scoped protocols on the one-way
 * network (README.md §1): the GPU base types (requests and the bank's answers), then the
 * probes a home L2 bank sends to L1s and the L1s' ack. A probe's type says which of Table 3's
 * actions it asks for (one message per broadcast phase, so a remote release's a9-a11 travel
 * together); its txn is the home's transaction record, which the ack echoes.
 */
#ifndef COHSCOPE_TLM_COHERENCE_SCOPED_SC_MSG_H
#define COHSCOPE_TLM_COHERENCE_SCOPED_SC_MSG_H

#include <stdint.h>

#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/gpu_base.h"

enum sc_msg {
	SC_MSG_FLUSH = GPU_MSG_BASE_COUNT, /* flush the store buffer (a4) */
	SC_MSG_LK_FL_INV,		   /* lock RMWs, flush, invalidate (a9-a11, a19-a21) */
	SC_MSG_INV_UL,			   /* invalidate, unlock RMWs (a13-a14) */
	SC_MSG_FL_INV_UL,		   /* flush, invalidate, unlock RMWs (a23-a25) */
	SC_MSG_RECALL,			   /* give up a registered line with its data (b5, c4) */
	SC_MSG_ACK,			   /* an L1's answer to a probe (a recall's: the data) */
	SC_MSG_GETR,			   /* an L1 asks for a line's registration (b2, c1) */
	SC_MSG_UNREG,			   /* an L1 gives an evicted registered line back */
	SC_MSG_FWD, /* a data access elsewhere to a registered line: its data (a write's bytes ride
		       along, for the owner's copy); registration stays */
	SC_MSG_COUNT
};

/* What a probe asks an L1 to do (a bit set). A recall's flush is the L1's own (hLRC flushes
 * when registration leaves it, DeNovo does not): the probe only asks for the line. */
enum sc_action {
	SC_ACT_FLUSH = 1u << 0,
	SC_ACT_INV = 1u << 1,
	SC_ACT_LOCK = 1u << 2,
	SC_ACT_UNLOCK = 1u << 3,
	SC_ACT_RECALL = 1u << 4,
	SC_ACT_FWD = 1u << 5,
};

/* mem_msg.flags. A recall's ack: the L1 gave the line up, its data and the bytes it wrote come
 * with it (without: the L1 no longer held it, its UnReg is on the way). An UnReg the home
 * hands its bank: registration passes to mem_msg.requester, not back to the L2. */
#define SC_F_GAVE_UP 1u
#define SC_F_XFER    2u
#define SC_F_SHARED  4u /* a forward's ack: the owner's data (or it took the write's bytes) */

/* mem_msg.ts[SC_TS_GRANT]: a GetR's number in its L1 (the L1 counts its GetRs), kept by the
 * home with the owner id while the registration it granted lasts, and named by a recall. An
 * L1 that gave a line back and asked for it again can so tell a recall of the registration it
 * gave back (answer at once: its UnReg is on the way) from one of the registration it asked
 * for, granted, whose answer the recall overtook (wait for it). */
#define SC_TS_GRANT 0

extern const char *const sc_msg_names[SC_MSG_COUNT];
extern const unsigned char sc_msg_traffic[SC_MSG_COUNT]; /* enum noc_traffic_kind */

/* The actions of probe type t (0: not a probe). */
unsigned sc_msg_actions(unsigned type);
/* The base request type the L2 bank performs a scoped request as: a GetR is a read of the whole
 * line, an UnReg a write-back (gpu_l2_base.c's l2_policy.base_type). */
unsigned sc_msg_base_type(unsigned type);

/* Vnets (the APU kit's numbering, apu_msg.h): requests on REQ, probes on PRB, answers and acks
 * on RSP. */
enum { SC_VNET_REQ = APU_VNET_REQ, SC_VNET_PRB = APU_VNET_PRB, SC_VNET_RSP = APU_VNET_RSP };

#endif
