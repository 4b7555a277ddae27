/*
 * tlm/coherence/apu/apu_msg.h - the messages of seed 002's APU baseline (docs/apu.md §2).
 *
 * A message is a struct mem_msg (tlm/mem/msg.h) on the generic network (tlm/noc/noc.h,
 * noc_net_create): header fields src, dst (endpoint ids), requester (the node whose transaction
 * it serves), type (enum apu_msg_type), vnet (enum apu_vnet, fixed by the type) and req_bytes
 * (64 when the type carries a line, else 0; the network adds its 8-B header, so 8 or 72 B on
 * the wire). p.addr is the line address (64-B aligned); a line travels in p.buf (p.len = 64).
 *
 * The protocol fields travel in one registered TLM extension, struct apu_ext, taken from a free
 * list (no malloc per message once the list has grown to the number of messages in flight) and
 * given back by the pool's free function when the payload is released. apu_msgs_create
 * registers the extension once per system pool; every controller of that system uses the same
 * struct apu_msgs. Every message made by apu_msg_new has a zeroed extension.
 *
 * Ownership (one-way messages): the sender owns a message until the network takes it; the
 * network hands it to the destination, which owns it from then on and releases it (or sends it
 * on). No response is owed at the TLM level: protocol responses are messages of their own.
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_MSG_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/kernel/tlm.h"
#include "tlm/mem/msg.h"
#include "util/error.h"

#define APU_LINE 64u /* bytes per line [paper Table II] */

/* Virtual networks (docs/apu.md §1.3); the order is also the input priority reversed: a
 * controller serves UNB, then RSP, then PRB, then REQ (§8.1 rule 5). */
enum apu_vnet { APU_VNET_REQ = 0, APU_VNET_PRB, APU_VNET_RSP, APU_VNET_UNB, APU_VNETS };

/* Every message type of docs/apu.md §2, grouped by vnet. */
enum apu_msg_type {
	/* REQ */
	APU_RDBLK = 0,
	APU_RDBLKS,
	APU_RDBLKM,
	APU_VICDIRTY,
	APU_VICCLEAN,
	APU_WT,
	APU_ATOMIC,
	APU_FLUSH,
	APU_DMARD,
	APU_DMAWR,
	APU_TCPRD,
	APU_TCPWT,
	APU_TCPATOMIC,
	APU_TCPFLUSH,
	/* PRB */
	APU_PRBDOWNGRADE,
	APU_PRBINV,
	/* RSP */
	APU_PRBACK,
	APU_SYSRESP,
	APU_WBACK,
	APU_VICDATA,
	APU_STALENOTIF,
	APU_TCCDATA,
	APU_TCCWBACK,
	APU_DMADATA,
	APU_DMAACK,
	/* UNB */
	APU_UNBLOCK,
	APU_MSG_TYPES
};

_Static_assert(APU_MSG_TYPES <= MEM_MSG_TYPE_MAX, "raise MEM_MSG_TYPE_MAX");

struct apu_msg_info {
	const char *name; /* as in docs/apu.md §2 ("RdBlk", "PrbInv"...) */
	uint8_t vnet;	  /* enum apu_vnet */
	bool data;	  /* carries the 64-B line */
};

/* Indexed by enum apu_msg_type. */
extern const struct apu_msg_info apu_msg_info[APU_MSG_TYPES];
/* The names alone, for noc_net_create's type_names. */
extern const char *const apu_msg_names[APU_MSG_TYPES];
extern const unsigned char apu_msg_traffic[APU_MSG_TYPES]; /* enum noc_traffic_kind */
/* "REQ", "PRB", "RSP", "UNB", for noc_net_create's vnet_names. */
extern const char *const apu_vnet_names[APU_VNETS];

/* SysResp grants. */
enum apu_grant { APU_GRANT_NONE = 0, APU_GRANT_S, APU_GRANT_E, APU_GRANT_M };

/* The protocol fields (docs/apu.md §2); which ones a type uses is in its row there. */
struct apu_ext {
	uint8_t grant; /* SysResp: enum apu_grant */
	bool dirty;    /* PrbAck, SysResp, VicData: the data is newer than memory */
	bool hit;      /* PrbAck: the sender keeps (or is acquiring) a copy */
	bool shared;   /* VicDirty/VicClean/VicData: the line was shared (O or S, or downgraded) */
	bool llc_hit;  /* SysResp: the data came from the LLC */
	bool glc, slc; /* GPU scope bits */
	bool ret;      /* Atomic: return the old value */
	uint16_t cu;   /* TCP id that started a GPU transaction */
	uint32_t seq;  /* GPU store sequence number (WT, WBAck) */
	uint64_t mask; /* WT, Flush, TcpWT, TcpFlush: bytes of the line written (bit i = byte i) */
	uint8_t op;    /* Atomic: enum mem_atomic_op */
	uint8_t width; /* Atomic: operand bytes (4 or 8) */
	uint16_t offset;	    /* Atomic, DMARd/DMAWr: byte offset in the line */
	uint16_t len;		    /* DMARd/DMAWr: bytes (<= 64) */
	uint64_t operand, operand2; /* Atomic: operand; CAS: compare (operand), swap (operand2) */
	uint64_t old;		    /* Atomic: the value before the op (SysResp, TccData) */
	/* private: free-list link and home */
	struct apu_ext *next_free;
	struct apu_msgs *home;
};

struct apu_msgs;

/* Registers the "apu" extension on pool (a pool of struct mem_msg, tlm_pool_create_sized) and
 * makes the free list. 0, -CS_ERANGE / -CS_EEXIST (from tlm_ext_register), -CS_ENOMEM. */
int apu_msgs_create(struct tlm_pool *pool, struct apu_msgs **out);
/* Frees the extensions (call after every message is back in the pool, before destroying it). */
void apu_msgs_destroy(struct apu_msgs *a);
struct tlm_pool *apu_msgs_pool(const struct apu_msgs *a);
int apu_msgs_ext_id(const struct apu_msgs *a);
/* Extensions ever allocated (the free list only grows: tests check it stays bounded). */
size_t apu_msgs_ext_capacity(const struct apu_msgs *a);

/* A new message of type t for the line holding addr: header set (type, vnet, req_bytes, p.addr
 * aligned, p.len 64, p.cmd WRITE for data-carrying types), a zeroed extension attached. NULL
 * only when memory is exhausted. */
struct mem_msg *apu_msg_new(struct apu_msgs *a, enum apu_msg_type t, uint64_t addr, unsigned src,
			    unsigned dst, unsigned requester);

static inline struct apu_ext *apu_ext_of(const struct apu_msgs *a, const struct mem_msg *m)
{
	return (struct apu_ext *)tlm_ext_get(&m->p, apu_msgs_ext_id(a));
}

static inline uint64_t apu_line_of(uint64_t addr)
{
	return addr & ~(uint64_t)(APU_LINE - 1);
}

#endif
