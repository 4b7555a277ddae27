/*
 * tlm/core/coalesce.h - the warp memory coalescer: a warp's per-lane accesses -> memory requests.
 *
 * Pure function (no kernel, no TLM). Follows GPGPU-Sim's Fermi coalescer for compute
 * capability 2.0 as simplified for cohscope: one request per distinct line touched (128 B on
 * Fermi); in sector mode still one request per line, with the mask of the sectors it needs
 * (32 B each on Fermi L2 / Volta). Differences from GPGPU-Sim's memory_coalescing_arch() are
 * listed in tlm/core/README.md (request order, segment size for 1 and 2 byte accesses).
 */
#ifndef COHSCOPE_TLM_CORE_COALESCE_H
#define COHSCOPE_TLM_CORE_COALESCE_H

#include <stdint.h>

#include "tlm/mem/msg.h" /* MEM_LANES_MAX */

#define WARP_LANES_MAX	     MEM_LANES_MAX /* lanes of the widest wavefront (64) */
#define COALESCE_LINE_MAX    128	   /* byte_mask covers at most 128 bytes */
#define COALESCE_ALL_SECTORS 0xffu /* sector_mask of a request in line mode (sector_bytes == 0) */

struct coalesce_req {
	uint64_t line_addr;    /* aligned to line_bytes */
	uint64_t lane_mask;    /* lanes served by this request */
	uint8_t sector_mask;   /* sectors touched (bit per sector_bytes; COALESCE_ALL_SECTORS when
				  sector_bytes == 0) */
	uint64_t byte_mask[2]; /* bytes of the line touched (bit i = byte i, line <= 128 B) */
};

/* addr[i] for each lane i set in active; every access is access_bytes (1, 2, 4, 8, 16) and must
 * be naturally aligned (else -CS_EINVAL and *bad_lane = the lowest misaligned lane).
 * line_bytes: a power of two from access_bytes to 128; sector_bytes: 0 (line mode) or a power of
 * two dividing line_bytes with at most 8 sectors (else -CS_EINVAL, *bad_lane = WARP_LANES_MAX).
 * Requests are emitted in order of the lowest lane they contain. Returns the number of requests
 * (0 when no lane is active, <= 64) or a negative code. bad_lane may be NULL. */
int coalesce(const uint64_t addr[WARP_LANES_MAX], uint64_t active, unsigned access_bytes,
	     unsigned line_bytes, unsigned sector_bytes, struct coalesce_req out[WARP_LANES_MAX],
	     unsigned *bad_lane);

/* Wire bytes a request moves: line_bytes in line mode; popcount(sector_mask) * sector_bytes in
 * sector mode. */
unsigned coalesce_req_bytes(const struct coalesce_req *r, unsigned line_bytes,
			    unsigned sector_bytes);

#endif
