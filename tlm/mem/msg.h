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
#define MEM_LANES_MAX	 64		 /* lanes of the widest wavefront (AMD GCN: 64) */

/* Atomic operations performed at the L2 bank (value semantics in tlm/mem/store.h). */
enum mem_atomic_op {
	MEM_ATOM_NONE = 0,
	MEM_ATOM_ADD,
	MEM_ATOM_EXCH,
	MEM_ATOM_CAS,
	MEM_ATOM_MIN,
	MEM_ATOM_MAX,
	MEM_ATOM_LOAD,	/* an atomic load: returns the word, writes nothing */
	MEM_ATOM_STORE, /* an atomic store of a: returns the old word */
};
#define MEM_ATOM_LAST MEM_ATOM_STORE

/* Scopes of HSA/OpenCL 2.0 (work-group, agent = device, system = all devices) plus the remote
 * agent scope of remote scope promotion (Orr et al., ASPLOS 2015): an agent-scope operation
 * that also synchronizes with work-group-scope operations on other CUs. A protocol that does not
 * promote scopes performs it as agent scope (mem_scope_base). */
enum mem_scope { MEM_SCOPE_WG = 0, MEM_SCOPE_DEVICE, MEM_SCOPE_SYSTEM, MEM_SCOPE_DEVICE_REMOTE };
/* C11/OpenCL orders. seq_cst acquires and releases, and the warp waits for it to be performed
 * before its next access (a full fence around it). */
enum mem_order {
	MEM_ORDER_RELAXED = 0,
	MEM_ORDER_ACQUIRE,
	MEM_ORDER_RELEASE,
	MEM_ORDER_ACQ_REL,
	MEM_ORDER_SEQ_CST,
};

/* PTX cache operators of loads and stores: .ca caches at every level (the default), .cg at the
 * L2 only (the access bypasses the L1), .cv fetches again (a volatile load: never served from
 * the L1). */
enum mem_cache_op { MEM_CO_CA = 0, MEM_CO_CG, MEM_CO_CV };

/* PTX state spaces of a GPU access: global, local (per-thread, interleaved), constant and
 * texture (read-only during a kernel). All travel through the L1 and L2; the space is carried so
 * a protocol can treat them differently. */
enum mem_space { MEM_SPACE_GLOBAL = 0, MEM_SPACE_LOCAL, MEM_SPACE_CONST, MEM_SPACE_TEX };

static inline int mem_order_acquires(unsigned order)
{
	return order == MEM_ORDER_ACQUIRE || order == MEM_ORDER_ACQ_REL ||
	       order == MEM_ORDER_SEQ_CST;
}

static inline int mem_order_releases(unsigned order)
{
	return order == MEM_ORDER_RELEASE || order == MEM_ORDER_ACQ_REL ||
	       order == MEM_ORDER_SEQ_CST;
}

/* The scope a protocol without scope promotion performs an operation at. */
static inline unsigned mem_scope_base(unsigned scope)
{
	return scope == MEM_SCOPE_DEVICE_REMOTE ? MEM_SCOPE_DEVICE : scope;
}

/* Whether an atomic changes memory (an atomic load does not: no dirty line, no write seen). */
static inline int mem_atomic_writes(unsigned op)
{
	return op != MEM_ATOM_LOAD;
}

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
	uint8_t flags;	       /* protocol flags (scoped: a recall's ack gives the line up) */
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
	} lane[MEM_LANES_MAX];
};

/* Bytes an atomic request carries: each lane's operands (CAS two, a load none) and its offset. */
static inline uint16_t mem_atom_req_bytes(const struct mem_atom_lanes *al)
{
	unsigned operands = al->op == MEM_ATOM_CAS ? 2 : al->op == MEM_ATOM_LOAD ? 0 : 1;

	return (uint16_t)(al->n * al->bytes * operands + al->n);
}

static inline struct mem_msg *mem_msg_of(struct tlm_payload *p)
{
	return (struct mem_msg *)((char *)p - offsetof(struct mem_msg, p));
}

#endif
