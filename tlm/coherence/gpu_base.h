/*
 * tlm/coherence/gpu_base.h - the GPU's non-coherent L1 and write-back L2, shared by the
 * protocols `none` (L1 bypassed: the papers' BL) and `noncoherent` (L1 on: W/L1).
 *
 * Message types of these protocols (mem_msg.type / resp_type): reads, writes and atomics
 * from an L1, write-backs from a write-back L1, and the L2's data, ack and atomic answers.
 * Protocols with their own state (TC, G-TSC) provide their own controllers; the helpers here
 * that have no protocol in them (queues, the DRAM side of a bank) are meant to be reused.
 */
#ifndef COHSCOPE_TLM_COHERENCE_GPU_BASE_H
#define COHSCOPE_TLM_COHERENCE_GPU_BASE_H

#include "tlm/coherence/gpu_proto.h"
#include "tlm/noc/noc.h"

enum gpu_base_msg {
	GPU_MSG_READ = 0,
	GPU_MSG_WRITE,
	GPU_MSG_ATOMIC,
	GPU_MSG_WRITEBACK,
	GPU_MSG_DATA,
	GPU_MSG_WRITE_ACK,
	GPU_MSG_ATOMIC_ACK,
	GPU_MSG_BASE_COUNT
};

extern const char *const gpu_base_msg_names[];
/* Their kinds of traffic (enum noc_traffic_kind): a write-through carries data, an atomic asks,
 * its answer carries the old value. */
extern const unsigned char gpu_base_msg_traffic[];
#define GPU_BASE_MSG_TRAFFIC                                                       \
	[GPU_MSG_READ] = NOC_TR_REQUEST, [GPU_MSG_WRITE] = NOC_TR_DATA,            \
	[GPU_MSG_ATOMIC] = NOC_TR_REQUEST, [GPU_MSG_WRITEBACK] = NOC_TR_WRITEBACK, \
	[GPU_MSG_DATA] = NOC_TR_DATA, [GPU_MSG_WRITE_ACK] = NOC_TR_COHERENCE,      \
	[GPU_MSG_ATOMIC_ACK] = NOC_TR_DATA
/* Their names, for a protocol's own table that extends the base types (scoped/sc_msg.c). */
#define GPU_BASE_MSG_NAMES                                                               \
	[GPU_MSG_READ] = "read", [GPU_MSG_WRITE] = "write", [GPU_MSG_ATOMIC] = "atomic", \
	[GPU_MSG_WRITEBACK] = "writeback", [GPU_MSG_DATA] = "data",                      \
	[GPU_MSG_WRITE_ACK] = "write_ack", [GPU_MSG_ATOMIC_ACK] = "atomic_ack"

/* mem_msg.txn of a write-back (L1 to L2, L2 to DRAM): it answers no record of the sender's
 * requester, only the sender counts it. */
#define GPU_TXN_WRITEBACK 0x80000000u
/* the write-through of a write an L1 performed itself (a work-group-scope atomic of the scoped
 * protocols): no requester waits for it, and the L1 reported it to the coherence checker */
#define GPU_TXN_SB	  0x20000000u
/* an L1's read that does not fill it (a .cg or .cv load): txn is the SM's request id */
#define GPU_TXN_UNCACHED  0x40000000u

extern const struct gpu_l1_ops gpu_l1_bypass_ops; /* no L1: every access goes to the L2 */
extern const struct gpu_l1_ops gpu_l1_nc_ops;	  /* L1 without coherence */
extern const struct gpu_l2_ops gpu_l2_base_ops;	  /* write-back, write-allocate L2 banks */

/* Bytes a byte mask covers (a write's payload on the wire). */
static inline unsigned gpu_mask_bytes(const uint64_t m[2])
{
	return (unsigned)(__builtin_popcountll(m[0]) + __builtin_popcountll(m[1]));
}

static inline bool gpu_mask_byte(const uint64_t m[2], unsigned i)
{
	return (m[i >> 6] >> (i & 63)) & 1;
}

/* Sets bytes [off, off + len) of a line's mask (off + len <= 128): a word at a time, since a
 * bit at a time was a quarter of FF's time (each OR waits for the one before). */
static inline void gpu_mask_set_range(uint64_t m[2], unsigned off, unsigned len)
{
	while (len) {
		unsigned b = off & 63, k = 64 - b < len ? 64 - b : len;

		m[off >> 6] |= (k == 64 ? UINT64_MAX : ((UINT64_C(1) << k) - 1)) << b;
		off += k;
		len -= k;
	}
}

/* Copies the bytes of src selected by the mask into dst (both line-sized). */
static inline void gpu_mask_copy(uint8_t *dst, const uint8_t *src, const uint64_t m[2],
				 unsigned line_bytes)
{
	for (unsigned w = 0; w < 2 && w * 64 < line_bytes; w++) {
		uint64_t bits = m[w];

		if (bits == UINT64_MAX) {
			for (unsigned i = 0; i < 64; i++)
				dst[w * 64 + i] = src[w * 64 + i];
			continue;
		}
		while (bits) {
			unsigned i = (unsigned)__builtin_ctzll(bits);

			dst[w * 64 + i] = src[w * 64 + i];
			bits &= bits - 1;
		}
	}
}

/* Sectors (of sector_bytes; line_bytes when 0) the mask touches fully. */
uint8_t gpu_mask_full_sectors(const uint64_t m[2], unsigned line_bytes, unsigned sector_bytes);
/* Sector mask of every sector of a line. */
uint8_t gpu_all_sectors(unsigned line_bytes, unsigned sector_bytes);
struct cohcheck;
/* The coherence checker sees every 4-byte word of line (at addr) the mask selects, as written
 * with data (where the write is performed: the L2 bank; DeNovo's L1 for its own stores). */
void gpu_check_written(struct cohcheck *chk, uint64_t addr, const uint8_t *data,
		       const uint64_t m[2], unsigned line_bytes);

#endif
