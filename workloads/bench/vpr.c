/*
 * workloads/bench/vpr.c - VPR: simulated-annealing placement in the style of VPR (Betz & Rose,
 * "VPR: a new packing, placement and routing tool for FPGA research", FPL 1997), as the
 * Temporal Coherence suite (Singh et al., HPCA 2013) runs it: every warp of the grid proposes
 * swaps concurrently.
 *
 * Input (from the seed): a GX x GY grid of slots holding B blocks (the rest are empty) and one
 * net per block: block d drives net d, whose 1-7 sinks are blocks with ids near d (a netlist with
 * locality), placed at random at first. Cost: the sum over nets of the half-perimeter of the
 * bounding box of the net's blocks (HPWL), integer slot coordinates.
 *
 * A move (one warp): pick slot s1 at random and s2 within rlim of it (VPR's range limiter); try
 * to lock both slots, then every net of the one or two blocks in them (per-lane CAS 0 -> 1 on
 * lock words, acquire; a lock held by another warp aborts the move, so no ordering is needed to
 * avoid deadlock); acquire fence; read with plain loads the slot of every block on those nets
 * (written by whichever warp last moved it, on any SM); compute the change of HPWL; accept by the
 * Metropolis rule (delta <= 0, or a gw_rand draw below exp(-delta / T)); if accepted, store the
 * new slots of the two blocks and the new contents of the two slots and add delta to the total
 * cost with an atomic at the L2; release fence; unlock. Locking the nets as well as the slots is
 * what makes the deltas exact: any move that changes a net's bounding box holds that net's lock,
 * so the positions a warp reads cannot change under it, and the sum of the accepted deltas is
 * exactly the HPWL of the final placement.
 *
 * One kernel launch per temperature: every warp makes `moves` attempts; the host then lowers T
 * and rlim from the acceptance rate as VPR does (T0 = 20 x the standard deviation of the cost
 * change of random swaps; factor 0.5 / 0.9 / 0.95 / 0.8 by rate; rlim *= 1 - 0.44 + rate).
 *
 * Checks (host): grid and positions are a permutation of each other, every lock is free, and the
 * accumulated cost equals the host's HPWL of the final placement. In the kernel: the block a
 * locked slot holds must have that slot as its position. A stale position (an L1 without
 * coherence) gives a wrong delta or a broken permutation.
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/wl_util.h"

#define VPR_TAG	      0x7670720000000000ull
#define VPR_EMPTY     0xffffffffu
#define VPR_MAX_BNETS 16 /* nets per block: a move locks at most 2 x 16 = WARP_LANES nets */
#define VPR_MAX_PINS  8	 /* blocks per net */
#define VPR_WINDOW    24 /* sinks are blocks within +-VPR_WINDOW ids of the driver */
#define VPR_WARPS     4	 /* warps per CTA */

enum { VPR_ST_ATTEMPT, VPR_ST_ACCEPT, VPR_ST_ABORT, VPR_STATS };

struct vpr_args {
	uint64_t block_slot; /* nblocks uint32: the slot of each block */
	uint64_t slot_block; /* gx * gy uint32: the block in each slot or VPR_EMPTY */
	uint64_t slot_lock;  /* gx * gy uint32 */
	uint64_t net_lock;   /* nnets uint32 */
	uint64_t bn_start;   /* nblocks + 1 uint32: CSR block -> nets */
	uint64_t bn_list;
	uint64_t np_start; /* nnets + 1 uint32: CSR net -> blocks */
	uint64_t np_list;
	uint64_t cost;	/* uint32 (int32): running total HPWL */
	uint64_t stats; /* VPR_STATS uint32 counters, one line each */
	uint64_t salt;	/* per launch: decorrelates the warps' gw_rand streams (vpr_rand) */
	unsigned gx, gy, nblocks, nnets, moves, rlim;
	double temp;
};

struct vpr_netlist {
	uint32_t *bn_start, *bn_list, *np_start, *np_list;
	unsigned nblocks, nnets;
};

/* ---- shared by host and kernel -------------------------------------------------------------- */

struct vpr_box {
	unsigned x0, x1, y0, y1;
};

static void vpr_box_init(struct vpr_box *b)
{
	*b = (struct vpr_box){.x0 = ~0u, .x1 = 0, .y0 = ~0u, .y1 = 0};
}

static void vpr_box_add(struct vpr_box *b, unsigned gx, uint32_t slot)
{
	unsigned x = slot % gx, y = slot / gx;

	b->x0 = x < b->x0 ? x : b->x0;
	b->x1 = x > b->x1 ? x : b->x1;
	b->y0 = y < b->y0 ? y : b->y0;
	b->y1 = y > b->y1 ? y : b->y1;
}

static int64_t vpr_box_hpwl(const struct vpr_box *b)
{
	return (int64_t)(b->x1 - b->x0) + (b->y1 - b->y0);
}

/* ---- the netlist ---------------------------------------------------------------------------- */

static int vpr_make_netlist(uint64_t seed, unsigned nblocks, struct vpr_netlist *nl)
{
	uint64_t st = seed;
	uint32_t *count = calloc(nblocks, sizeof(*count)), *fill = NULL;
	int err = -CS_ENOMEM;

	*nl = (struct vpr_netlist){.nblocks = nblocks, .nnets = nblocks};
	nl->np_start = calloc((size_t)nblocks + 1, sizeof(*nl->np_start));
	nl->np_list = malloc((size_t)nblocks * VPR_MAX_PINS * sizeof(*nl->np_list));
	nl->bn_start = calloc((size_t)nblocks + 1, sizeof(*nl->bn_start));
	if (!count || !nl->np_start || !nl->np_list || !nl->bn_start)
		goto out;
	/* Net d: driver d and 1-7 sinks (half of the nets have 1, a quarter 2, ...). */
	for (unsigned d = 0, p = 0; d < nblocks; d++) {
		unsigned pins = 2, first = p;

		while (pins < VPR_MAX_PINS && wl_below(&st, 2))
			pins++;
		nl->np_list[p++] = d;
		count[d]++;
		for (unsigned tries = 0; p - first < pins && tries < 4 * VPR_MAX_PINS; tries++) {
			uint32_t s = (uint32_t)((d + nblocks - VPR_WINDOW +
						 wl_below(&st, 2 * VPR_WINDOW + 1)) %
						nblocks);
			bool dup = false;

			for (unsigned k = first; k < p; k++)
				dup |= nl->np_list[k] == s;
			if (dup || count[s] >= VPR_MAX_BNETS)
				continue;
			nl->np_list[p++] = s;
			count[s]++;
		}
		nl->np_start[d + 1] = p;
	}
	for (unsigned b = 0; b < nblocks; b++)
		nl->bn_start[b + 1] = nl->bn_start[b] + count[b];
	nl->bn_list = malloc((size_t)nl->bn_start[nblocks] * sizeof(*nl->bn_list));
	fill = malloc((size_t)nblocks * sizeof(*fill));
	if (!nl->bn_list || !fill)
		goto out;
	for (unsigned b = 0; b < nblocks; b++)
		fill[b] = nl->bn_start[b];
	for (unsigned n = 0; n < nl->nnets; n++)
		for (uint32_t k = nl->np_start[n]; k < nl->np_start[n + 1]; k++)
			nl->bn_list[fill[nl->np_list[k]]++] = n;
	err = 0;
out:
	free(count);
	free(fill);
	return err;
}

static void vpr_free_netlist(struct vpr_netlist *nl)
{
	free(nl->bn_start);
	free(nl->bn_list);
	free(nl->np_start);
	free(nl->np_list);
}

static int64_t vpr_net_hpwl(const struct vpr_netlist *nl, const uint32_t *block_slot, unsigned gx,
			    unsigned n)
{
	struct vpr_box b;

	vpr_box_init(&b);
	for (uint32_t k = nl->np_start[n]; k < nl->np_start[n + 1]; k++)
		vpr_box_add(&b, gx, block_slot[nl->np_list[k]]);
	return vpr_box_hpwl(&b);
}

static int64_t vpr_total_hpwl(const struct vpr_netlist *nl, const uint32_t *block_slot, unsigned gx)
{
	int64_t sum = 0;

	for (unsigned n = 0; n < nl->nnets; n++)
		sum += vpr_net_hpwl(nl, block_slot, gx, n);
	return sum;
}

/* VPR's starting temperature: 20 x the standard deviation of the cost change of random swaps
 * of two blocks (evaluated, not applied). */
static double vpr_initial_temp(const struct vpr_netlist *nl, uint32_t *block_slot, unsigned gx,
			       uint64_t seed)
{
	uint64_t st = seed;
	double sum = 0, sum2 = 0;
	const unsigned samples = 256;

	for (unsigned i = 0; i < samples; i++) {
		uint32_t a = (uint32_t)wl_below(&st, nl->nblocks);
		uint32_t b = (uint32_t)wl_below(&st, nl->nblocks), t;
		int64_t before = 0, after = 0;

		for (int pass = 0; pass < 2; pass++) {
			int64_t *acc = pass ? &after : &before;

			for (uint32_t k = nl->bn_start[a]; k < nl->bn_start[a + 1]; k++)
				*acc += vpr_net_hpwl(nl, block_slot, gx, nl->bn_list[k]);
			for (uint32_t k = nl->bn_start[b]; k < nl->bn_start[b + 1]; k++)
				*acc += vpr_net_hpwl(nl, block_slot, gx, nl->bn_list[k]);
			t = block_slot[a];
			block_slot[a] = block_slot[b];
			block_slot[b] = t;
		}
		sum += (double)(after - before);
		sum2 += (double)(after - before) * (double)(after - before);
	}
	return 20.0 * sqrt(fmax(sum2 / samples - (sum / samples) * (sum / samples), 1.0));
}

/* ---- the kernel ----------------------------------------------------------------------------- */

/* gw_rand hashed with the warp id and the launch: the per-warp streams of gw_rand are seeded
 * from the warp id with a stride of the generator's own increment (warp g's draws are warp
 * g + 2's shifted by two) and restart at each launch, which would make warps propose the same
 * swaps. */
static uint64_t vpr_rand(struct gpu_warp *w, const struct vpr_args *a)
{
	return wl_mix64(gw_rand(w) ^ a->salt ^ wl_mix64(gw_gwid(w)));
}

enum vpr_outcome { VPR_SKIPPED, VPR_ABORTED, VPR_REJECTED, VPR_ACCEPTED, VPR_FAILED };

/* Per-lane atomic exchange 0 of the lock words of the lanes in mask (unlock). */
static void vpr_unlock(struct gpu_warp *w, const uint64_t addr[WARP_LANES], uint32_t mask,
		       enum mem_order order)
{
	uint64_t zero[WARP_LANES] = {0};

	if (mask)
		gw_atomv(w, MEM_ATOM_EXCH, addr, mask, 4, zero, zero, NULL, MEM_SCOPE_DEVICE,
			 order);
}

/* Per-lane CAS 0 -> 1 on the lock words of the lanes in mask; returns the lanes that got theirs. */
static uint32_t vpr_trylock(struct gpu_warp *w, const uint64_t addr[WARP_LANES], uint32_t mask)
{
	uint64_t zero[WARP_LANES] = {0}, one[WARP_LANES], old[WARP_LANES];
	uint32_t got = 0;

	for (unsigned l = 0; l < WARP_LANES; l++)
		one[l] = 1;
	gw_atomv(w, MEM_ATOM_CAS, addr, mask, 4, zero, one, old, MEM_SCOPE_DEVICE,
		 MEM_ORDER_ACQUIRE);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((mask >> l & 1) && old[l] == 0)
			got |= 1u << l;
	return got;
}

/* The nets of blocks blk[0], blk[1] (VPR_EMPTY: none), without duplicates, in nets[]. */
static unsigned vpr_block_nets(struct gpu_warp *w, const struct vpr_args *a, const uint32_t blk[2],
			       uint32_t nets[WARP_LANES])
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES], list[WARP_LANES], mask = 0;
	unsigned n = 0, total = 0;

	for (unsigned i = 0; i < 2; i++)
		if (blk[i] != VPR_EMPTY) {
			addr[2 * i] = a->bn_start + 4ull * blk[i];
			addr[2 * i + 1] = addr[2 * i] + 4;
			mask |= 3u << (2 * i);
		}
	gw_ld32v(w, addr, mask, v);
	for (unsigned i = 0; i < 2; i++)
		if (blk[i] != VPR_EMPTY)
			for (uint32_t k = v[2 * i]; k < v[2 * i + 1]; k++)
				addr[total++] = a->bn_list + 4ull * k;
	gw_ld32v(w, addr, total >= WARP_LANES ? LANES_ALL : (1u << total) - 1, list);
	for (unsigned k = 0; k < total; k++) {
		bool dup = false;

		for (unsigned j = 0; j < n; j++)
			dup |= nets[j] == list[k];
		if (!dup)
			nets[n++] = list[k];
	}
	/* ~12 + 2 per net: bounds, list addresses, the duplicate test (ballot/match). */
	gw_compute(w, 12 + 2 * total);
	return n;
}

/*
 * The change of HPWL over nets[0..nn) when the block in s1 (blk[0]) moves to s2 and the block
 * in s2 (blk[1]) to s1. Reads every pin's position with plain loads. Returns false after
 * gw_fail when a locked block's position is not its slot (stale data).
 */
static bool vpr_delta(struct gpu_warp *w, const struct vpr_args *a, const uint32_t nets[],
		      unsigned nn, const uint32_t blk[2], const uint32_t slot[2], int64_t *delta)
{
	uint64_t addr[WARP_LANES];
	uint32_t beg[WARP_LANES], end[WARP_LANES], pin[WARP_LANES], pos[WARP_LANES];
	uint32_t mask = nn >= WARP_LANES ? LANES_ALL : (1u << nn) - 1;
	struct vpr_box before[WARP_LANES], after[WARP_LANES];
	unsigned net = 0, k = 0;

	for (unsigned l = 0; l < nn; l++)
		addr[l] = a->np_start + 4ull * nets[l];
	gw_ld32v(w, addr, mask, beg);
	for (unsigned l = 0; l < nn; l++) {
		addr[l] += 4;
		vpr_box_init(&before[l]);
		vpr_box_init(&after[l]);
	}
	gw_ld32v(w, addr, mask, end);
	/* The (net, pin) pairs, 32 per round: one load of the pin list, one of the positions. */
	while (net < nn) {
		unsigned lanes = 0, pnet[WARP_LANES];

		for (; net < nn && lanes < WARP_LANES; lanes++) {
			pnet[lanes] = net;
			addr[lanes] = a->np_list + 4ull * (beg[net] + k);
			if (beg[net] + ++k == end[net]) {
				net++;
				k = 0;
			}
		}
		mask = lanes >= WARP_LANES ? LANES_ALL : (1u << lanes) - 1;
		gw_ld32v(w, addr, mask, pin);
		for (unsigned l = 0; l < lanes; l++)
			addr[l] = a->block_slot + 4ull * pin[l];
		gw_ld32v(w, addr, mask, pos);
		for (unsigned l = 0; l < lanes; l++) {
			uint32_t now = pos[l];

			for (unsigned i = 0; i < 2; i++) {
				if (pin[l] != blk[i])
					continue;
				if (pos[l] != slot[i]) {
					gw_fail(w,
						"vpr: CTA %u warp %u (SM %u) locked slot %" PRIu32
						" holding block %" PRIu32 " but read that block's "
						"position as slot %" PRIu32
						" (a stale copy: an L1 without coherence?)",
						gw_cta(w), gw_warp(w), gw_sm(w), slot[i], blk[i],
						pos[l]);
					return false;
				}
				now = slot[1 - i];
			}
			vpr_box_add(&before[pnet[l]], a->gx, pos[l]);
			vpr_box_add(&after[pnet[l]], a->gx, now);
		}
		/* ~14 per pair round: pair indexing and two addresses (4), x and y of the old
		 * and new slot (4, a multiply-shift division), the moved-block tests (2), the
		 * min/max of the two boxes (8, two per coordinate) over 32 lanes. */
		gw_compute(w, 18);
	}
	*delta = 0;
	for (unsigned l = 0; l < nn; l++)
		*delta += vpr_box_hpwl(&after[l]) - vpr_box_hpwl(&before[l]);
	/* ~48: segmented warp reduction of the boxes (3 shuffle steps x 8 values), the HPWL of
	 * each net and the sum over nets (5 shuffle steps). */
	gw_compute(w, 48);
	return true;
}

static enum vpr_outcome vpr_move(struct gpu_warp *w, const struct vpr_args *a)
{
	uint64_t r = vpr_rand(w, a), saddr[WARP_LANES], naddr[WARP_LANES], addr[WARP_LANES];
	unsigned n = a->gx * a->gy, span = 2 * a->rlim + 1;
	uint32_t slot[2], blk[2], nets[WARP_LANES], v[WARP_LANES], nmask, got;
	int x, y;
	int64_t delta;
	bool accept;

	slot[0] = (uint32_t)(r % n);
	x = (int)(slot[0] % a->gx) + (int)((r >> 24) % span) - (int)a->rlim;
	y = (int)(slot[0] / a->gx) + (int)((r >> 44) % span) - (int)a->rlim;
	x = x < 0 ? 0 : x >= (int)a->gx ? (int)a->gx - 1 : x;
	y = y < 0 ? 0 : y >= (int)a->gy ? (int)a->gy - 1 : y;
	slot[1] = (uint32_t)y * a->gx + (uint32_t)x;
	/* ~16: random draw, division/modulo for x, y, range limit and clamp. */
	gw_compute(w, 16);
	if (slot[1] == slot[0])
		return VPR_SKIPPED;

	/* Lock both slots (lanes 0, 1), read what they hold. */
	saddr[0] = a->slot_lock + 4ull * slot[0];
	saddr[1] = a->slot_lock + 4ull * slot[1];
	got = vpr_trylock(w, saddr, 3);
	if (got != 3) {
		vpr_unlock(w, saddr, got, MEM_ORDER_RELAXED);
		return VPR_ABORTED;
	}
	gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
	addr[0] = a->slot_block + 4ull * slot[0];
	addr[1] = a->slot_block + 4ull * slot[1];
	gw_ld32v(w, addr, 3, v);
	blk[0] = v[0];
	blk[1] = v[1];
	if (blk[0] == VPR_EMPTY && blk[1] == VPR_EMPTY) {
		vpr_unlock(w, saddr, 3, MEM_ORDER_RELAXED);
		return VPR_SKIPPED;
	}

	/* Lock every net of the two blocks. */
	nmask = vpr_block_nets(w, a, blk, nets);
	for (unsigned l = 0; l < nmask; l++)
		naddr[l] = a->net_lock + 4ull * nets[l];
	nmask = nmask >= WARP_LANES ? LANES_ALL : (1u << nmask) - 1;
	got = vpr_trylock(w, naddr, nmask);
	if (got != nmask) {
		vpr_unlock(w, naddr, got, MEM_ORDER_RELAXED);
		vpr_unlock(w, saddr, 3, MEM_ORDER_RELAXED);
		return VPR_ABORTED;
	}
	gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);

	if (!vpr_delta(w, a, nets, (unsigned)__builtin_popcount(nmask), blk, slot, &delta))
		return VPR_FAILED;
	accept = delta <= 0 ||
		 (double)(vpr_rand(w, a) >> 11) * 0x1.0p-53 < exp(-(double)delta / a->temp);
	/* ~12: the test, the draw, exp (~8). */
	gw_compute(w, 12);
	if (accept) {
		uint32_t m = 0;
		uint64_t d[WARP_LANES];

		for (unsigned i = 0; i < 2; i++)
			if (blk[i] != VPR_EMPTY) {
				addr[i] = a->block_slot + 4ull * blk[i];
				v[i] = slot[1 - i];
				m |= 1u << i;
			}
		gw_st32v(w, addr, m, v);
		addr[0] = a->slot_block + 4ull * slot[0];
		addr[1] = a->slot_block + 4ull * slot[1];
		v[0] = blk[1];
		v[1] = blk[0];
		gw_st32v(w, addr, 3, v);
		addr[0] = a->cost;
		d[0] = (uint32_t)(int32_t)delta;
		gw_atomv(w, MEM_ATOM_ADD, addr, 1, 4, d, d, NULL, MEM_SCOPE_DEVICE,
			 MEM_ORDER_RELAXED);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
	}
	vpr_unlock(w, naddr, nmask, MEM_ORDER_RELEASE);
	vpr_unlock(w, saddr, 3, MEM_ORDER_RELEASE);
	return accept ? VPR_ACCEPTED : VPR_REJECTED;
}

static void vpr_kernel(struct gpu_warp *w)
{
	const struct vpr_args *a = gw_args(w);
	uint64_t addr[WARP_LANES], cnt[WARP_LANES] = {0};

	for (unsigned i = 0; i < a->moves; i++) {
		enum vpr_outcome o = vpr_move(w, a);

		if (o == VPR_FAILED)
			return;
		cnt[VPR_ST_ATTEMPT]++;
		cnt[VPR_ST_ACCEPT] += o == VPR_ACCEPTED;
		cnt[VPR_ST_ABORT] += o == VPR_ABORTED;
	}
	for (unsigned l = 0; l < VPR_STATS; l++)
		addr[l] = a->stats + (uint64_t)l * WL_LINE_BYTES;
	gw_atomv(w, MEM_ATOM_ADD, addr, (1u << VPR_STATS) - 1, 4, cnt, cnt, NULL, MEM_SCOPE_DEVICE,
		 MEM_ORDER_RELAXED);
}

/* ---- host ----------------------------------------------------------------------------------- */

static int vpr_check(struct gpu_host *h, const struct vpr_args *a, const struct vpr_netlist *nl,
		     uint32_t *block_slot, int64_t *hpwl)
{
	unsigned n = a->gx * a->gy;
	uint32_t *slot_block = malloc((size_t)n * sizeof(*slot_block)), used = 0;
	int32_t cost = (int32_t)gh_read32(h, a->cost);
	int err = 0;

	if (!slot_block)
		return -CS_ENOMEM;
	gh_read(h, a->block_slot, block_slot, (size_t)a->nblocks * 4);
	gh_read(h, a->slot_block, slot_block, (size_t)n * 4);
	for (unsigned s = 0; s < n && !err; s++) {
		uint32_t b = slot_block[s];

		if (gh_read32(h, a->slot_lock + 4ull * s))
			err = gh_fail(h, "vpr: slot %u still locked after the kernel", s);
		else if (b == VPR_EMPTY)
			continue;
		else if (b >= a->nblocks || block_slot[b] != s)
			err = gh_fail(h,
				      "vpr: slot %u holds block %" PRIu32 " whose position is "
				      "slot %" PRIu32 ": grid and positions disagree (a move read "
				      "a stale slot or position?)",
				      s, b, b < a->nblocks ? block_slot[b] : VPR_EMPTY);
		else
			used++;
	}
	if (!err && used != a->nblocks)
		err =
		    gh_fail(h, "vpr: the grid holds %" PRIu32 " blocks, want %u", used, a->nblocks);
	for (unsigned k = 0; k < a->nnets && !err; k++)
		if (gh_read32(h, a->net_lock + 4ull * k))
			err = gh_fail(h, "vpr: net %u still locked after the kernel", k);
	if (!err) {
		*hpwl = vpr_total_hpwl(nl, block_slot, a->gx);
		if (*hpwl != cost)
			err = gh_fail(h,
				      "vpr: accumulated cost %" PRId32 " but the final placement's "
				      "HPWL is %" PRId64 " (off by %" PRId64
				      ": moves computed their delta from stale positions)",
				      cost, *hpwl, (int64_t)cost - *hpwl);
	}
	free(slot_block);
	return err;
}

/* VPR's schedule: the temperature factor and the new range limit from the acceptance rate. */
static void vpr_cool(struct vpr_args *a, double rate)
{
	double rlim = a->rlim * (1.0 - 0.44 + rate), max = a->gx > a->gy ? a->gx : a->gy;

	a->temp *= rate > 0.96 ? 0.5 : rate > 0.8 ? 0.9 : rate > 0.15 ? 0.95 : 0.8;
	a->rlim = (unsigned)(rlim < 1 ? 1 : rlim > max ? max : rlim);
}

int bench_vpr_main(struct gpu_host *h)
{
	struct vpr_args a = {0};
	struct gpu_kernel k = {.name = "vpr",
			       .warps_per_cta = VPR_WARPS,
			       .regs_per_thread = 32,
			       .fn = vpr_kernel,
			       .args = &a};
	uint64_t seed = gh_seed(h) ^ VPR_TAG, st = seed, total[VPR_STATS] = {0};
	struct vpr_netlist nl;
	uint32_t *block_slot = NULL, *slot_block = NULL;
	unsigned side, n, launches, resident;
	int64_t hpwl0, hpwl = 0;
	double temp0;
	int err;

	side = (unsigned)wl_by_size(h, 16, 48, 96);
	launches = (unsigned)wl_by_size(h, 2, 6, 12);
	a.moves = (unsigned)wl_by_size(h, 4, 16, 18);
	a.gx = a.gy = side;
	n = side * side;
	a.nblocks = n - n / 8; /* 7/8 of the slots used, as a placement with some room */
	err = vpr_make_netlist(seed, a.nblocks, &nl);
	block_slot = malloc((size_t)a.nblocks * sizeof(*block_slot));
	slot_block = malloc((size_t)n * sizeof(*slot_block));
	if (err || !block_slot || !slot_block) {
		err = -CS_ENOMEM;
		goto out;
	}
	a.nnets = nl.nnets;
	/* Random initial placement: a Fisher-Yates shuffle of the slots. */
	for (unsigned s = 0; s < n; s++)
		slot_block[s] = s < a.nblocks ? s : VPR_EMPTY;
	for (unsigned s = n - 1; s > 0; s--) {
		unsigned j = (unsigned)wl_below(&st, s + 1);
		uint32_t t = slot_block[s];

		slot_block[s] = slot_block[j];
		slot_block[j] = t;
	}
	for (unsigned s = 0; s < n; s++)
		if (slot_block[s] != VPR_EMPTY)
			block_slot[slot_block[s]] = s;
	hpwl0 = vpr_total_hpwl(&nl, block_slot, a.gx);
	temp0 = vpr_initial_temp(&nl, block_slot, a.gx, st);
	a.temp = temp0;
	a.rlim = side;

	resident = wl_resident_ctas(h, &k);
	if (resident == 0) {
		err = gh_no_fit(h, &k);
		goto out;
	}
	/* Warps making moves at once: enough to fill the GPU's SMs, few enough that most moves
	 * find their locks free (every warp holds ~2 slots and ~6 nets while it evaluates). */
	k.ctas = (unsigned)wl_by_size(h, (gh_sms(h) + 3) / 4, (gh_sms(h) + 1) / 2, gh_sms(h));
	k.ctas = k.ctas < resident ? k.ctas : resident;
	a.block_slot = wl_upload(h, block_slot, (size_t)a.nblocks * 4);
	a.slot_block = wl_upload(h, slot_block, (size_t)n * 4);
	a.slot_lock = wl_alloc_zero(h, (size_t)n * 4);
	a.net_lock = wl_alloc_zero(h, (size_t)a.nnets * 4);
	a.bn_start = wl_upload(h, nl.bn_start, ((size_t)a.nblocks + 1) * 4);
	a.bn_list = wl_upload(h, nl.bn_list, (size_t)nl.bn_start[a.nblocks] * 4);
	a.np_start = wl_upload(h, nl.np_start, ((size_t)a.nnets + 1) * 4);
	a.np_list = wl_upload(h, nl.np_list, (size_t)nl.np_start[a.nnets] * 4);
	a.cost = wl_alloc_zero(h, 4);
	a.stats = wl_alloc_zero(h, VPR_STATS * WL_LINE_BYTES);
	gh_write32(h, a.cost, (uint32_t)(int32_t)hpwl0);

	for (unsigned t = 0; t < launches; t++) {
		uint32_t cnt[VPR_STATS];

		for (unsigned i = 0; i < VPR_STATS; i++)
			gh_write32(h, a.stats + (uint64_t)i * WL_LINE_BYTES, 0);
		a.salt = wl_mix64(seed + t);
		err = gh_launch(h, &k);
		if (err)
			goto out;
		for (unsigned i = 0; i < VPR_STATS; i++) {
			cnt[i] = gh_read32(h, a.stats + (uint64_t)i * WL_LINE_BYTES);
			total[i] += cnt[i];
		}
		vpr_cool(&a, cnt[VPR_ST_ATTEMPT] ? (double)cnt[VPR_ST_ACCEPT] / cnt[VPR_ST_ATTEMPT]
						 : 0.0);
	}
	err = vpr_check(h, &a, &nl, block_slot, &hpwl);
	if (err)
		goto out;
	gh_note(h,
		"vpr: %ux%u slots, %u blocks, %u nets; %u launches x %u warps x %u moves; "
		"placement and accumulated cost verified",
		a.gx, a.gy, a.nblocks, a.nnets, launches, k.ctas * k.warps_per_cta, a.moves);
	gh_note(h,
		"vpr: %" PRIu64 " accepted, %" PRIu64 " aborted on a held lock; HPWL %" PRId64
		" -> %" PRId64 " (T0 %.1f)",
		total[VPR_ST_ACCEPT], total[VPR_ST_ABORT], hpwl0, hpwl, temp0);
out:
	vpr_free_netlist(&nl);
	free(block_slot);
	free(slot_block);
	return err;
}
