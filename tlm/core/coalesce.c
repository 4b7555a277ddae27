/*
 * tlm/core/coalesce.c - warp memory coalescer (see coalesce.h).
 *
 * One pass over the active lanes in lane order. The request of the previous lane is checked
 * first (consecutive lanes usually share a line); otherwise a 128-slot open-addressing table
 * (at most 64 keys) maps the line to its request. O(lanes) expected, no O(64^2) scan.
 */
#include "tlm/core/coalesce.h"

#include <string.h>

#include "util/error.h"

#define SLOTS	   128
#define SLOT_SHIFT 57 /* 64 - log2(SLOTS) */

static int pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

int coalesce(const uint64_t addr[WARP_LANES_MAX], uint64_t active, unsigned access_bytes,
	     unsigned line_bytes, unsigned sector_bytes, struct coalesce_req out[WARP_LANES_MAX],
	     unsigned *bad_lane)
{
	uint8_t slot[SLOTS]; /* request index + 1, 0 = empty */
	struct coalesce_req *last = NULL;
	uint64_t line_mask, acc_bits;
	unsigned n = 0, line_shift, sector_shift, sec_bits, sec_eff;
	uint64_t m = active;

	if (bad_lane)
		*bad_lane = WARP_LANES_MAX;
	if (access_bytes > 16 || !pow2(access_bytes) || !pow2(line_bytes) ||
	    line_bytes > COALESCE_LINE_MAX || line_bytes < access_bytes)
		return -CS_EINVAL;
	if (sector_bytes &&
	    (!pow2(sector_bytes) || sector_bytes > line_bytes || line_bytes / sector_bytes > 8))
		return -CS_EINVAL;
	line_shift = (unsigned)__builtin_ctz(line_bytes);
	line_mask = line_bytes - 1;
	acc_bits = (1ull << access_bytes) - 1;
	/* Line mode: one "sector" as large as the line (its mask starts all ones anyway). An access
	 * larger than a sector starts on a sector boundary (both are powers of two and the access
	 * is aligned), so its sectors are sec_bits shifted to its first sector. */
	sec_eff = sector_bytes ? sector_bytes : line_bytes;
	sector_shift = (unsigned)__builtin_ctz(sec_eff);
	sec_bits = access_bytes > sec_eff ? (1u << (access_bytes / sec_eff)) - 1 : 1;
	memset(slot, 0, sizeof(slot));

	while (m) {
		unsigned lane = (unsigned)__builtin_ctzll(m);
		uint64_t a = addr[lane], la = a & ~line_mask;
		unsigned off = (unsigned)(a & line_mask);
		struct coalesce_req *r;

		m &= m - 1;
		if (a & (access_bytes - 1)) {
			if (bad_lane)
				*bad_lane = lane;
			return -CS_EINVAL;
		}
		if (last && last->line_addr == la) {
			r = last;
		} else {
			unsigned h =
			    (unsigned)(((la >> line_shift) * 0x9e3779b97f4a7c15ull) >> SLOT_SHIFT);

			while (slot[h] && out[slot[h] - 1].line_addr != la)
				h = (h + 1) & (SLOTS - 1);
			if (slot[h]) {
				r = &out[slot[h] - 1];
			} else {
				r = &out[n++];
				slot[h] = (uint8_t)n;
				r->line_addr = la;
				r->lane_mask = 0;
				r->sector_mask = sector_bytes ? 0 : COALESCE_ALL_SECTORS;
				r->byte_mask[0] = 0;
				r->byte_mask[1] = 0;
			}
			last = r;
		}
		r->lane_mask |= 1ull << lane;
		/* naturally aligned and <= 16 B: the access stays inside one 64-bit half */
		r->byte_mask[off >> 6] |= acc_bits << (off & 63);
		r->sector_mask |= (uint8_t)(sec_bits << (off >> sector_shift));
	}
	return (int)n;
}

unsigned coalesce_req_bytes(const struct coalesce_req *r, unsigned line_bytes,
			    unsigned sector_bytes)
{
	if (!sector_bytes)
		return line_bytes;
	return (unsigned)__builtin_popcount(r->sector_mask) * sector_bytes;
}
