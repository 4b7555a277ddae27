/*
 * tlm/mem/msg.h - the message that travels between GPU L1s, the NoC, L2 banks and DRAM.
 *
 * A message is a TLM payload (address, command, length, data: at most one 128 B line inline)
 * followed by the protocol header: who sent it, where it goes, its type in the protocol's
 * message table, its size on the wire, and the protocol's timestamp fields. It is what travels
 * and nothing more; what a controller remembers while it waits (MSHR entries, transaction
 * records) stays in the controller.
 *
 * Messages come from a pool created with tlm_pool_create_sized(sizeof(struct mem_msg)), so
 * tlm_payload_alloc() returns the payload of a zeroed message and mem_msg_of() gets it back.
 * The initiator of a transaction allocates the message and releases it when the response has
 * arrived (or, for a request that gets no response, the target releases it).
 *
 * On the GPU's request/response NoC, endpoints are numbered per side: SM i is requester node i;
 * L2 bank j is memory node j. On the request network the NoC routes src -> dst and counts
 * req_bytes of class `type`; on the response network dst -> src with resp_bytes of class
 * `resp_type`. The NoC adds its own header.
 *
 * On a generic network (noc_net_create) a message is one-way: src and dst are endpoint ids of
 * that network, `vnet` its virtual network, `type` its class and req_bytes its payload;
 * `requester` names the node whose transaction it serves (a forwarded request or a probe keeps
 * the original requester while src/dst change hop by hop).
 */
#ifndef COHSCOPE_TLM_MEM_MSG_H
#define COHSCOPE_TLM_MEM_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "tlm/kernel/tlm.h"

#define MEM_LINE_MAX	 TLM_INLINE_DATA /* bytes of data a message carries inline */
#define MEM_MSG_TYPE_MAX 32		 /* message types a protocol may define (the APU has 26) */
#define MEM_MSG_TS	 5		 /* protocol timestamp / lease fields */

/* Atomic operations performed at the L2 bank (value semantics in tlm/mem/store.h). */
enum mem_atomic_op {
	MEM_ATOM_NONE = 0,
	MEM_ATOM_ADD,
	MEM_ATOM_EXCH,
	MEM_ATOM_CAS,
	MEM_ATOM_MIN,
	MEM_ATOM_MAX,
};

enum mem_scope { MEM_SCOPE_WG = 0, MEM_SCOPE_DEVICE, MEM_SCOPE_SYSTEM };
enum mem_order { MEM_ORDER_RELAXED = 0, MEM_ORDER_ACQUIRE, MEM_ORDER_RELEASE, MEM_ORDER_ACQ_REL };

struct mem_msg {
	struct tlm_payload p;  /* first: container_of(p) is the message */
	uint16_t src;	       /* GPU NoC: requester node (SM index); one-way: sending endpoint */
	uint16_t dst;	       /* GPU NoC: memory node (L2 bank index); one-way: destination */
	uint8_t type;	       /* request type, an index in the protocol's message table */
	uint8_t resp_type;     /* response type, set by the target before BEGIN_RESP */
	uint16_t req_bytes;    /* payload bytes of the request on the wire (0: header only) */
	uint16_t resp_bytes;   /* payload bytes of the response on the wire */
	uint8_t atomic_op;     /* enum mem_atomic_op */
	uint8_t scope;	       /* enum mem_scope */
	uint8_t order;	       /* enum mem_order */
	uint8_t sector_mask;   /* sectors requested / carried (bit per 32 B) */
	uint16_t requester;    /* one-way: the node that started the transaction */
	uint8_t vnet;	       /* one-way: virtual network (request, forward, response, unblock) */
	uint32_t txn;	       /* the requester's record (MSHR entry or SM request) this answers */
	uint64_t byte_mask[2]; /* writes: bytes of the line written (bit i = byte i) */
	uint64_t ts[MEM_MSG_TS]; /* protocol fields (G-TSC: wts, rts, warp_ts...; TC: lease) */
	uint64_t sent_ps;	 /* when the requester sent it (latency statistics) */
};

/* The data of an atomic request: one entry per lane taking part, applied in order at the L2
 * bank (lanes hitting the same word each see the previous lane's result). p.data points here
 * (the requester owns it until the response); the bank writes each lane's old value. */
struct mem_atom_lanes {
	uint8_t n;     /* lanes */
	uint8_t op;    /* enum mem_atomic_op */
	uint8_t bytes; /* word size: 4 or 8 */
	struct mem_atom_lane {
		uint16_t offset; /* byte offset in the line */
		uint8_t lane;
		uint64_t a, b; /* operands (CAS: compare, swap) */
		uint64_t old;  /* result */
	} lane[32];
};

static inline struct mem_msg *mem_msg_of(struct tlm_payload *p)
{
	return (struct mem_msg *)((char *)p - offsetof(struct mem_msg, p));
}

#endif
