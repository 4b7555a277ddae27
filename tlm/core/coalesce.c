/*
 * tlm/core/coalesce.c - warp memory coalescer (see coalesce.h).
 *
 * One pass over the active lanes in lane order. The request of the previous lane is checked
 * first (consecutive lanes usually share a line); otherwise a 64-slot open-addressing table
 * (at most 32 keys) maps the line to its request. O(lanes) expected, no O(32^2) scan.
 */
#include "tlm/core/coalesce.h"

#include <string.h>

#include "util/error.h"

#define SLOTS	   64
#define SLOT_SHIFT 58 /* 64 - log2(SLOTS) */

static int pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

/* The current request's lanes and bytes are accumulated in registers and written back when
 * the line changes: an update through out[] per lane would chain stores and loads. */
static inline void flush(struct coalesce_req *r, uint32_t lanes, uint8_t sec, uint64_t b0,
			 uint64_t b1)
{
	r->lane_mask |= lanes;
	r->sector_mask |= sec;
	r->byte_mask[0] |= b0;
	r->byte_mask[1] |= b1;
}

int coalesce(const uint64_t addr[WARP_LANES], uint32_t active, unsigned access_bytes,
	     unsigned line_bytes, unsigned sector_bytes, struct coalesce_req out[WARP_LANES],
	     unsigned *bad_lane)
{
	uint8_t slot[SLOTS]; /* request index + 1, 0 = empty */
	struct coalesce_req *cur = NULL;
	uint64_t line_mask, acc_bits, cur_la = 0, b0 = 0, b1 = 0;
	unsigned n = 0, line_shift, sector_shift, sec_bits, sec_eff;
	uint32_t m = active, lanes = 0;
	uint8_t sec = 0;

	if (bad_lane)
		*bad_lane = WARP_LANES;
	if (access_bytes > 16 || !pow2(access_bytes) || !pow2(line_bytes) ||
	    line_bytes > COALESCE_LINE_MAX || line_bytes < access_bytes)
		return -CS_EINVAL;
	if (sector_bytes &&
	    (!pow2(sector_bytes) || sector_bytes > line_bytes || line_bytes / sector_bytes > 8))
		return -CS_EINVAL;
	line_shift = (unsigned)__builtin_ctz(line_bytes);
	/* line mode: one "sector" as large as the line (the mask is COALESCE_ALL_SECTORS anyway).
	 * An access larger than a sector starts on a sector boundary (both are powers of two and
	 * the access is aligned), so its sectors are sec_bits shifted by its first sector. */
	sec_eff = sector_bytes ? sector_bytes : line_bytes;
	sector_shift = (unsigned)__builtin_ctz(sec_eff);
	sec_bits = access_bytes > sec_eff ? (1u << (access_bytes / sec_eff)) - 1 : 1;
	line_mask = line_bytes - 1;
	acc_bits = (1ull << access_bytes) - 1;
	memset(slot, 0, sizeof(slot));

	while (m) {
		unsigned lane = (unsigned)__builtin_ctz(m);
		uint64_t a = addr[lane], la = a & ~line_mask, bits, hi;
		unsigned off = (unsigned)(a & line_mask);

		m &= m - 1;
		if (a & (access_bytes - 1)) {
			if (bad_lane)
				*bad_lane = lane;
			return -CS_EINVAL;
		}
		if (!cur || la != cur_la) {
			unsigned h;

			if (cur)
				flush(cur, lanes, sec, b0, b1);
			h = (unsigned)(((la >> line_shift) * 0x9e3779b97f4a7c15ull) >> SLOT_SHIFT);
			while (slot[h] && out[slot[h] - 1].line_addr != la)
				h = (h + 1) & (SLOTS - 1);
			if (slot[h]) {
				cur = &out[slot[h] - 1];
			} else {
				cur = &out[n++];
				slot[h] = (uint8_t)n;
				cur->line_addr = la;
				cur->lane_mask = 0;
				cur->sector_mask = sector_bytes ? 0 : COALESCE_ALL_SECTORS;
				cur->byte_mask[0] = 0;
				cur->byte_mask[1] = 0;
			}
			cur_la = la;
			lanes = 0;
			sec = 0;
			b0 = b1 = 0;
		}
		lanes |= 1u << lane;
		/* naturally aligned and <= 16 B: the access stays inside one 64-bit half */
		bits = acc_bits << (off & 63);
		hi = -(uint64_t)((off >> 6) & 1);
		b0 |= bits & ~hi;
		b1 |= bits & hi;
		sec |= (uint8_t)(sec_bits << (off >> sector_shift));
	}
	if (cur)
		flush(cur, lanes, sec, b0, b1);
	return (int)n;
}

unsigned coalesce_req_bytes(const struct coalesce_req *r, unsigned line_bytes,
			    unsigned sector_bytes)
{
	if (!sector_bytes)
		return line_bytes;
	return (unsigned)__builtin_popcount(r->sector_mask) * sector_bytes;
}
