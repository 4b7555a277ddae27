/*
 * workloads/bench/dlb.c - dynamic load balancing: octree partitioning with work stealing
 * (Cederman & Tsigas, "On dynamic load balancing on graphics processors", Graphics Hardware
 * 2008; the work-stealing variant with lock-free deques).
 *
 * A task is an octree node with the range of its particles. The CTA that processes it splits
 * the particles into the 8 octants (a stable partition written to the other of two particle
 * arrays, at the same index range), makes every child with more than `threshold` particles a
 * new task on its own deque and records the others as leaves. Each CTA owns a lock-free deque
 * (Arora, Blumofe and Plaxton: the owner pushes and pops at the bottom, thieves take the top
 * with a CAS on a tagged age word: workloads/wsq.[ch], in its plain-index mode); an idle CTA
 * steals from random victims. The run ends when
 * the global count of outstanding tasks (atomics) reaches zero; idle CTAs watch it with plain
 * loads bounded by the spin guard.
 *
 * Sharing: the task records, the deques' bottom and age words and the particles of a stolen
 * task are written by one CTA and read by another with plain loads (release/acquire fences
 * around them): an L1 without coherence serves stale copies (a stale task record is detected
 * by its stamp, a stale outstanding count ends in a livelock report).
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"
#include "workloads/wsq.h"

#define DLB_TAG	      0x646c620000000000ull
#define DLB_WARPS     4	   /* warps per CTA: they share one task */
#define DLB_MAXDEPTH  16   /* a node this deep is a leaf whatever its count */
#define DLB_CAP	      4096 /* task slots per deque (a 16-bit top in the age word) */
#define DLB_REC	      8	   /* uint32 per task or leaf record (32 B) */
#define DLB_STAMP     0x5a000000u
#define DLB_LEAFSTAMP 0x1eaf0000u
#define DLB_CLUSTERS  12

/* Record words. */
enum { R_START, R_COUNT, R_DEPTH, R_CX, R_CY, R_CZ, R_HALF, R_STAMP };

/* Scratchpad words. */
enum { S_TASK = 0, S_STATE = DLB_REC, S_FROM, S_COUNTS = 16, S_WORDS = S_COUNTS + DLB_WARPS * 8 };
enum { ST_TASK = 1, ST_DONE = 2, ST_FAIL = 3 };

struct dlb_args {
	uint64_t x[2], y[2], z[2], id[2]; /* particle arrays: depth d reads [d % 2] */
	uint64_t deques;		  /* per CTA: age line, bottom line, DLB_CAP records */
	uint64_t outstanding;		  /* uint32: tasks pushed and not finished */
	uint64_t leafcount;		  /* uint32 */
	uint64_t leaves;		  /* leaf records */
	uint64_t steals;		  /* uint32: successful steals */
	uint64_t tasks;			  /* uint32: tasks processed */
	uint64_t sync;			  /* per CTA, own line: its warps' particle writes done */
	uint32_t n, threshold;
};

/* dlb's deques: plain indices with fences at agent scope (an L1 without coherence serves stale
 * ones), an acq_rel CAS on the age word. */
static const struct wsq_sync dlb_sync = {MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL, WSQ_PLAIN, false,
					 false};

static struct wsq dlb_wsq(const struct dlb_args *a)
{
	return (struct wsq){.base = a->deques, .queues = 0, .cap = DLB_CAP, .words = DLB_REC};
}

static uint32_t stamp(uint32_t tag, uint32_t idx)
{
	return DLB_STAMP ^ (tag << 12) ^ idx;
}

/* Octant of a point: bit 0 x, bit 1 y, bit 2 z (>= the centre: upper half). */
static unsigned octant(float x, float y, float z, float cx, float cy, float cz)
{
	return (unsigned)(x >= cx) | (unsigned)(y >= cy) << 1 | (unsigned)(z >= cz) << 2;
}

static float child_centre(float c, float half, unsigned upper)
{
	return upper ? c + half * 0.5f : c - half * 0.5f;
}

/* ---- warp side ------------------------------------------------------------------------------ */

static void rec_addrs(uint64_t addr[WARP_LANES], uint64_t base)
{
	wl_lane_addrs(addr, base, 0, DLB_REC, 4);
}

static void rec_store(struct gpu_warp *w, uint64_t base, const uint32_t rec[DLB_REC])
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	rec_addrs(addr, base);
	memcpy(v, rec, DLB_REC * 4);
	gw_st32v(w, addr, (1u << DLB_REC) - 1, v);
}

/* Owner's pop at the bottom (ABP). 1: got a task, 0: empty. */
static int dq_pop(struct gpu_warp *w, const struct dlb_args *a, struct wsq_owner *o,
		  uint32_t rec[DLB_REC])
{
	struct wsq q = dlb_wsq(a);

	return wsq_pop(w, &q, gw_cta(w), o, &dlb_sync, rec, NULL);
}

/* Pushes n records at the bottom: records, release, bottom. 0 or -1 (overflow, reported). */
static int dq_push(struct gpu_warp *w, const struct dlb_args *a, struct wsq_owner *o,
		   uint32_t recs[][DLB_REC], unsigned n)
{
	struct wsq q = dlb_wsq(a);
	unsigned me = gw_cta(w);

	if (n == 0)
		return 0;
	if (o->bot + n > DLB_CAP) {
		gw_fail(w, "dlb: CTA %u: deque overflow (%u + %u tasks > %u slots)", me, o->bot, n,
			DLB_CAP);
		return -1;
	}
	/* Only the owner changes the tag (when it resets the empty deque): it keeps a copy. */
	for (unsigned i = 0; i < n; i++)
		recs[i][R_STAMP] = stamp(o->tag, o->bot + i);
	return wsq_push(w, &q, me, o, &dlb_sync, &recs[0][0], n);
}

/* A thief's pop at the top of victim v: 1 stolen, 0 empty or lost the race, -1 failed. */
static int dq_steal(struct gpu_warp *w, const struct dlb_args *a, unsigned v, uint32_t rec[DLB_REC])
{
	struct wsq q = dlb_wsq(a);
	uint32_t age = 0, top;

	if (wsq_steal(w, &q, v, &dlb_sync, rec, &age) != WSQ_STOLEN)
		return 0;
	top = age & 0xffff;
	if (rec[R_STAMP] != stamp(age >> 16, top) || rec[R_COUNT] == 0 ||
	    rec[R_START] + rec[R_COUNT] > a->n || rec[R_DEPTH] >= DLB_MAXDEPTH) {
		gw_fail(w,
			"dlb: CTA %u (SM %u) stole slot %u of CTA %u and read a stale task record "
			"(stamp %#" PRIx32 " want %#" PRIx32 ", start %" PRIu32 " count %" PRIu32
			"): an L1 without coherence served an old copy",
			gw_cta(w), gw_sm(w), top, v, rec[R_STAMP], stamp(age >> 16, top),
			rec[R_START], rec[R_COUNT]);
		return -1;
	}
	gw_atom(w, MEM_ATOM_ADD, a->steals, 4, 1, 0, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
	return 1;
}

/* Idle loop: one steal attempt from a random victim, then DLB_POLLS polls of the outstanding
 * count with plain loads (a polling back-off; the burst of hits to one line also lets a
 * timestamp L1 renew its copy: G-TSC's gtsc.tick_hits, 16 by default). */
#define DLB_POLLS 24

static void dlb_livelock(struct gpu_warp *w, const struct dlb_args *a, uint64_t spins,
			 uint32_t seen)
{
	uint32_t at_l2 = wl_atomic_read32(w, a->outstanding);

	gw_fail(w,
		"dlb: livelock: idle CTA %u (SM %u) polled for work %" PRIu64
		" times; it reads %" PRIu32 " outstanding tasks with plain loads while the L2 "
		"holds %" PRIu32 "%s",
		gw_cta(w), gw_sm(w), spins, seen, at_l2,
		at_l2 == 0 ? " (an L1 without coherence keeps serving its old copy)" : "");
}

/* Warp 0: the next task (own deque, else steal), or done. Returns ST_*. */
static int next_task(struct gpu_warp *w, const struct dlb_args *a, struct wsq_owner *o,
		     uint32_t rec[DLB_REC], uint32_t *from)
{
	unsigned me = gw_cta(w), ctas = gw_ctas(w);
	uint64_t spins = 0;

	*from = me;
	if (dq_pop(w, a, o, rec))
		return ST_TASK;
	for (;;) {
		if (ctas > 1) {
			unsigned v = (me + 1 + (unsigned)(gw_rand(w) % (ctas - 1))) % ctas;
			int r = dq_steal(w, a, v, rec);

			*from = v;

			if (r < 0)
				return ST_FAIL;
			if (r > 0)
				return ST_TASK;
		}
		for (unsigned p = 0; p < DLB_POLLS; p++) {
			uint32_t left = gw_ld32(w, a->outstanding);

			if (left == 0)
				return ST_DONE;
			if (gw_spin_guard(w, &spins)) {
				dlb_livelock(w, a, spins, left);
				return ST_FAIL;
			}
			gw_compute(w, 8); /* back-off */
		}
	}
}

/* Loads the coordinates of particles i .. i + 31 (those below hi) of array set src into x, y, z;
 * returns the lanes loaded. */
static uint32_t ld_xyz(struct gpu_warp *w, const struct dlb_args *a, unsigned src, uint32_t i,
		       uint32_t hi, uint32_t x[WARP_LANES], uint32_t y[WARP_LANES],
		       uint32_t z[WARP_LANES])
{
	uint64_t addr[WARP_LANES];
	uint32_t mask = wl_lane_addrs(addr, a->x[src], i, hi, 4);

	gw_ld32v(w, addr, mask, x);
	wl_lane_addrs(addr, a->y[src], i, hi, 4);
	gw_ld32v(w, addr, mask, y);
	wl_lane_addrs(addr, a->z[src], i, hi, 4);
	gw_ld32v(w, addr, mask, z);
	return mask;
}

/* base[pos[l]] = v[l] for the lanes of mask. */
static void st_at(struct gpu_warp *w, uint64_t base, const uint32_t pos[WARP_LANES], uint32_t mask,
		  const uint32_t v[WARP_LANES])
{
	uint64_t to[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		to[l] = base + 4ull * pos[l];
	gw_st32v(w, to, mask, v);
}

/* Counts the octants of this warp's share of the task's particles. */
static void count_octants(struct gpu_warp *w, const struct dlb_args *a, const uint32_t *t,
			  uint32_t lo, uint32_t hi, uint32_t cnt[8])
{
	unsigned src = t[R_DEPTH] % 2;
	float cx = wl_u2f(t[R_CX]), cy = wl_u2f(t[R_CY]), cz = wl_u2f(t[R_CZ]);
	uint32_t x[WARP_LANES], y[WARP_LANES], z[WARP_LANES];

	for (uint32_t i = lo; i < hi; i += WARP_LANES) {
		uint32_t mask = ld_xyz(w, a, src, i, hi, x, y, z);

		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				cnt[octant(wl_u2f(x[l]), wl_u2f(y[l]), wl_u2f(z[l]), cx, cy, cz)]++;
		/* 3 compares + 2 shifts/ors, the shared-memory histogram atomic, addressing */
		gw_compute(w, 10);
	}
}

/* Moves this warp's share to the other array; off[o] = where its next octant-o particle goes. */
static void scatter(struct gpu_warp *w, const struct dlb_args *a, const uint32_t *t, uint32_t lo,
		    uint32_t hi, uint32_t off[8])
{
	unsigned src = t[R_DEPTH] % 2, dst = 1 - src;
	float cx = wl_u2f(t[R_CX]), cy = wl_u2f(t[R_CY]), cz = wl_u2f(t[R_CZ]);
	uint64_t addr[WARP_LANES];
	uint32_t x[WARP_LANES], y[WARP_LANES], z[WARP_LANES], id[WARP_LANES];
	uint32_t pos[WARP_LANES] = {0};

	for (uint32_t i = lo; i < hi; i += WARP_LANES) {
		uint32_t mask = ld_xyz(w, a, src, i, hi, x, y, z);

		wl_lane_addrs(addr, a->id[src], i, hi, 4);
		gw_ld32v(w, addr, mask, id);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				pos[l] = off[octant(wl_u2f(x[l]), wl_u2f(y[l]), wl_u2f(z[l]), cx,
						    cy, cz)]++;
		/* octant, a warp-wide prefix of 8 ballots (~3 each), 4 address computations */
		gw_compute(w, 40);
		st_at(w, a->x[dst], pos, mask, x);
		st_at(w, a->y[dst], pos, mask, y);
		st_at(w, a->z[dst], pos, mask, z);
		st_at(w, a->id[dst], pos, mask, id);
	}
}

/* Warp 0 after the split: children with more than threshold particles become tasks on the
 * own deque, the others leaves; then this task is finished. 0 or -1. */
static int finish_task(struct gpu_warp *w, const struct dlb_args *a, const uint32_t *t,
		       const uint32_t tot[8], const uint32_t cstart[8], struct wsq_owner *own)
{
	uint32_t push[8][DLB_REC], leaf[8][DLB_REC];
	unsigned np = 0, nl = 0;
	float half = wl_u2f(t[R_HALF]);

	for (unsigned o = 0; o < 8; o++) {
		uint32_t *r;

		if (tot[o] == 0)
			continue;
		r = tot[o] > a->threshold && t[R_DEPTH] + 1 < DLB_MAXDEPTH ? push[np++]
									   : leaf[nl++];
		r[R_START] = cstart[o];
		r[R_COUNT] = tot[o];
		r[R_DEPTH] = t[R_DEPTH] + 1;
		r[R_CX] = wl_f2u(child_centre(wl_u2f(t[R_CX]), half, o & 1));
		r[R_CY] = wl_f2u(child_centre(wl_u2f(t[R_CY]), half, o >> 1 & 1));
		r[R_CZ] = wl_f2u(child_centre(wl_u2f(t[R_CZ]), half, o >> 2 & 1));
		r[R_HALF] = wl_f2u(half * 0.5f);
		r[R_STAMP] = DLB_LEAFSTAMP;
	}
	gw_compute(w, 8 * 12); /* child bounds and records */
	if (np)
		gw_atom(w, MEM_ATOM_ADD, a->outstanding, 4, np, 0, MEM_SCOPE_DEVICE,
			MEM_ORDER_RELAXED);
	if (dq_push(w, a, own, push, np) != 0)
		return -1;
	if (nl) {
		uint32_t base = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->leafcount, 4, nl, 0,
						  MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);

		for (unsigned i = 0; i < nl; i++)
			rec_store(w, a->leaves + (uint64_t)(base + i) * DLB_REC * 4, leaf[i]);
	}
	gw_atom(w, MEM_ATOM_ADD, a->tasks, 4, 1, 0, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
	gw_atom(w, MEM_ATOM_ADD, a->outstanding, 4, (uint32_t)-1, 0, MEM_SCOPE_DEVICE,
		MEM_ORDER_RELEASE);
	return 0;
}

static void dlb_kernel(struct gpu_warp *w)
{
	const struct dlb_args *a = gw_args(w);
	uint32_t *sm = gw_smem(w);
	unsigned wid = gw_warp(w), nw = gw_warps_per_cta(w);
	struct wsq_owner own = {0}; /* warp 0: the own deque's bottom and tag (owner's copies) */

	if (wid == 0 && gw_cta(w) == 0) {
		/* The root task, pushed by CTA 0 (record prepared by the host in slot 0). */
		own.bot = 1;
	}
	for (;;) {
		uint32_t t[DLB_REC], cnt[8] = {0}, tot[8] = {0}, cstart[8], off[8];
		uint32_t per, lo, hi, end;
		int st;

		if (wid == 0) {
			uint32_t from;

			st = next_task(w, a, &own, t, &from);
			memcpy(sm + S_TASK, t, sizeof(t));
			sm[S_STATE] = (uint32_t)st;
			sm[S_FROM] = from;
			gw_smem_access(w);
		}
		gw_barrier(w);
		gw_smem_access(w);
		st = (int)sm[S_STATE];
		memcpy(t, sm + S_TASK, sizeof(t));
		if (st != ST_TASK)
			return;
		/* The task's particles were written by every warp of the CTA that pushed it, each
		 * of which then added to its CTA's sync word: an atomic read of that word orders
		 * them before this warp's loads (for each warp, not only warp 0: a CTA barrier
		 * carries no device-scope ordering from one warp to another in every protocol,
		 * e.g. G-TSC's per-warp timestamps). */
		wl_atomic_read32(w, a->sync + (uint64_t)sm[S_FROM] * WL_LINE_BYTES);
		gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
		end = t[R_START] + t[R_COUNT];
		per = (t[R_COUNT] + nw * WARP_LANES - 1) / (nw * WARP_LANES) * WARP_LANES;
		lo = t[R_START] + wid * per;
		lo = lo < end ? lo : end;
		hi = lo + per < end ? lo + per : end;
		count_octants(w, a, t, lo, hi, cnt);
		memcpy(sm + S_COUNTS + wid * 8, cnt, sizeof(cnt));
		gw_smem_access(w);
		gw_barrier(w);
		gw_smem_access(w);
		for (unsigned v = 0; v < nw; v++)
			for (unsigned o = 0; o < 8; o++) {
				if (v == wid)
					off[o] = tot[o];
				tot[o] += sm[S_COUNTS + v * 8 + o];
			}
		for (unsigned o = 0; o < 8; o++) {
			cstart[o] = o ? cstart[o - 1] + tot[o - 1] : t[R_START];
			off[o] += cstart[o];
		}
		gw_compute(w, 2 * 8 + nw * 8); /* prefix sums over warps and octants */
		scatter(w, a, t, lo, hi, off);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		gw_atom(w, MEM_ATOM_ADD, a->sync + (uint64_t)gw_cta(w) * WL_LINE_BYTES, 4, 1, 0,
			MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		gw_barrier(w);
		if (wid == 0 && finish_task(w, a, t, tot, cstart, &own) != 0)
			sm[S_STATE] = ST_FAIL; /* the other warps stop at the next task */
	}
}

/* ---- host side ------------------------------------------------------------------------------ */

struct host_leaf {
	uint32_t start, count, depth;
	float cx, cy, cz, half;
};

struct host_tree {
	uint32_t *ids; /* partitioned ids (stable), leaves are ranges of it */
	float *x, *y, *z;
	struct host_leaf *leaves;
	uint32_t nleaves, maxdepth, tasks;
};

/* Stable partition of ids[start, start + count) into octants, recursively. */
static void host_split(struct host_tree *t, uint32_t *tmp, uint32_t thr, uint32_t start,
		       uint32_t count, uint32_t depth, float cx, float cy, float cz, float half)
{
	uint32_t tot[8] = {0}, pos[8];
	uint32_t *ids = t->ids + start;

	t->tasks++;
	for (uint32_t i = 0; i < count; i++)
		tot[octant(t->x[ids[i]], t->y[ids[i]], t->z[ids[i]], cx, cy, cz)]++;
	for (unsigned o = 0; o < 8; o++)
		pos[o] = o ? pos[o - 1] + tot[o - 1] : 0;
	for (uint32_t i = 0; i < count; i++)
		tmp[pos[octant(t->x[ids[i]], t->y[ids[i]], t->z[ids[i]], cx, cy, cz)]++] = ids[i];
	memcpy(ids, tmp, count * sizeof(*ids));
	for (unsigned o = 0, s = start; o < 8; s += tot[o], o++) {
		float ccx = child_centre(cx, half, o & 1), ccy = child_centre(cy, half, o >> 1 & 1);
		float ccz = child_centre(cz, half, o >> 2 & 1);

		if (tot[o] == 0)
			continue;
		if (tot[o] > thr && depth + 1 < DLB_MAXDEPTH) {
			host_split(t, tmp, thr, s, tot[o], depth + 1, ccx, ccy, ccz, half * 0.5f);
			continue;
		}
		t->leaves[t->nleaves++] =
		    (struct host_leaf){s, tot[o], depth + 1, ccx, ccy, ccz, half * 0.5f};
		if (depth + 1 > t->maxdepth)
			t->maxdepth = depth + 1;
	}
}

static int leaf_cmp(const void *pa, const void *pb)
{
	const struct host_leaf *p = pa, *q = pb;

	if (p->depth != q->depth)
		return p->depth < q->depth ? -1 : 1;
	if (p->cx != q->cx)
		return p->cx < q->cx ? -1 : 1;
	if (p->cy != q->cy)
		return p->cy < q->cy ? -1 : 1;
	if (p->cz != q->cz)
		return p->cz < q->cz ? -1 : 1;
	return 0;
}

/* Clustered points in [0, 1)^3: Gaussian clusters of different widths and weights. */
static void gen_points(uint64_t seed, uint32_t n, float *x, float *y, float *z)
{
	double cc[DLB_CLUSTERS][4];

	for (unsigned c = 0; c < DLB_CLUSTERS; c++) {
		for (unsigned k = 0; k < 3; k++)
			cc[c][k] = 0.15 + 0.7 * wl_unit(seed, 1, c * 4 + k);
		cc[c][3] = 0.01 + 0.08 * wl_unit(seed, 1, c * 4 + 3);
	}
	for (uint32_t i = 0; i < n; i++) {
		unsigned c = (unsigned)(wl_unit(seed, 2, i) * wl_unit(seed, 3, i) * DLB_CLUSTERS);
		float *out[3] = {x, y, z};

		for (unsigned k = 0; k < 3; k++) {
			double u1 = wl_unit(seed, 4 + k, i), u2 = wl_unit(seed, 7 + k, i);
			double g = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
			double v = cc[c][k] + cc[c][3] * g;

			v = v < 0 ? 0 : v > 0.999999 ? 0.999999 : v;
			out[k][i] = (float)v;
		}
	}
}

struct dlb_run {
	struct dlb_args a;
	struct host_tree ht;
	uint32_t *dev; /* leaf records read back */
	uint32_t *bx, *by, *bz, *bid;
	uint8_t *seen;
	struct host_leaf *dl; /* device leaves (the check's) */
};

static int dlb_check(struct gpu_host *h, struct dlb_run *r, unsigned ctas)
{
	struct dlb_args *a = &r->a;
	struct host_tree *ht = &r->ht;
	uint32_t nleaves = gh_read32(h, a->leafcount), maxdepth = 0;
	uint32_t tasks = gh_read32(h, a->tasks), steals = gh_read32(h, a->steals);
	struct host_leaf *dl;
	uint32_t n = a->n;

	if (nleaves != ht->nleaves)
		return gh_fail(h, "dlb: %" PRIu32 " leaves recorded, want %" PRIu32, nleaves,
			       ht->nleaves);
	if (tasks != ht->tasks)
		return gh_fail(h, "dlb: %" PRIu32 " tasks processed, want %" PRIu32, tasks,
			       ht->tasks);
	dl = r->dl = calloc(nleaves ? nleaves : 1, sizeof(*dl)); /* freed by the caller */
	if (!dl)
		return -CS_ENOMEM;
	gh_read(h, a->leaves, r->dev, (size_t)nleaves * DLB_REC * 4);
	for (uint32_t i = 0; i < nleaves; i++) {
		const uint32_t *rec = r->dev + (size_t)i * DLB_REC;

		dl[i] = (struct host_leaf){rec[R_START],       rec[R_COUNT],	  rec[R_DEPTH],
					   wl_u2f(rec[R_CX]),  wl_u2f(rec[R_CY]), wl_u2f(rec[R_CZ]),
					   wl_u2f(rec[R_HALF])};
		if (rec[R_STAMP] != DLB_LEAFSTAMP || dl[i].start + dl[i].count > n ||
		    dl[i].count == 0 || dl[i].depth > DLB_MAXDEPTH) {
			return gh_fail(h,
				       "dlb: leaf record %" PRIu32 " is garbage (stamp %#" PRIx32
				       ", start %" PRIu32 " count %" PRIu32 " depth %" PRIu32 ")",
				       i, rec[R_STAMP], dl[i].start, dl[i].count, dl[i].depth);
		}
		if (dl[i].depth > maxdepth)
			maxdepth = dl[i].depth;
	}
	qsort(dl, nleaves, sizeof(*dl), leaf_cmp);
	qsort(ht->leaves, nleaves, sizeof(*dl), leaf_cmp);
	for (unsigned b = 0; b < 2; b++) {
		gh_read(h, a->x[b], r->bx + (size_t)b * n, n * 4ull);
		gh_read(h, a->y[b], r->by + (size_t)b * n, n * 4ull);
		gh_read(h, a->z[b], r->bz + (size_t)b * n, n * 4ull);
		gh_read(h, a->id[b], r->bid + (size_t)b * n, n * 4ull);
	}
	memset(r->seen, 0, n);
	for (uint32_t i = 0; i < nleaves; i++) {
		const struct host_leaf *d = &dl[i], *want = &ht->leaves[i];
		size_t off = (size_t)(d->depth % 2) * n;

		if (leaf_cmp(d, want) != 0 || d->count != want->count) {
			return gh_fail(h,
				       "dlb: leaf %" PRIu32
				       " (sorted by depth and centre): depth %" PRIu32
				       " centre (%g, %g, %g) count %" PRIu32 ", want depth %" PRIu32
				       " centre (%g, %g, %g) count %" PRIu32,
				       i, d->depth, (double)d->cx, (double)d->cy, (double)d->cz,
				       d->count, want->depth, (double)want->cx, (double)want->cy,
				       (double)want->cz, want->count);
		}
		for (uint32_t j = 0; j < d->count; j++) {
			uint32_t id = r->bid[off + d->start + j];
			float px = wl_u2f(r->bx[off + d->start + j]);
			float py = wl_u2f(r->by[off + d->start + j]);
			float pz = wl_u2f(r->bz[off + d->start + j]);
			const char *bad = NULL;

			if (id >= n)
				bad = "an id out of range";
			else if (r->seen[id])
				bad = "a particle already in another leaf";
			else if (px != ht->x[id] || py != ht->y[id] || pz != ht->z[id])
				bad = "a position that is not the particle's";
			else if (fabsf(px - d->cx) > d->half || fabsf(py - d->cy) > d->half ||
				 fabsf(pz - d->cz) > d->half)
				bad = "a particle outside the leaf's bounds";
			else if (id != ht->ids[want->start + j])
				bad = "a different particle than the host's stable partition";
			if (bad) {
				return gh_fail(h,
					       "dlb: leaf at depth %" PRIu32
					       " centre (%g, %g, %g): element %" PRIu32
					       " (id %" PRIu32 ", want %" PRIu32 ") is %s",
					       d->depth, (double)d->cx, (double)d->cy,
					       (double)d->cz, j, id, ht->ids[want->start + j], bad);
			}
			r->seen[id] = 1;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (!r->seen[i])
			return gh_fail(h, "dlb: particle %" PRIu32 " is in no leaf", i);
	if (maxdepth != ht->maxdepth)
		return gh_fail(h, "dlb: depth %" PRIu32 ", want %" PRIu32, maxdepth, ht->maxdepth);
	gh_note(h,
		"dlb: %" PRIu32 " particles, threshold %" PRIu32 ", %u CTAs x %u warps: %" PRIu32
		" tasks, %" PRIu32 " steals, %" PRIu32 " leaves, depth %" PRIu32
		"; octree (leaves, bounds, counts, every particle in "
		"exactly one leaf, stable order) verified",
		n, a->threshold, ctas, DLB_WARPS, tasks, steals, nleaves, maxdepth);
	return 0;
}

int bench_dlb_main(struct gpu_host *h)
{
	struct dlb_run r = {0};
	struct dlb_args *a = &r.a;
	struct gpu_kernel k = {.name = "dlb_octree",
			       .warps_per_cta = DLB_WARPS,
			       .regs_per_thread = 32,
			       .smem_bytes = S_WORDS * 4,
			       .fn = dlb_kernel,
			       .args = a};
	uint64_t seed = gh_seed(h) ^ DLB_TAG;
	uint32_t n = (uint32_t)wl_by_size(h, 2048, 16384, 32768), *tmp = NULL;
	uint32_t root[DLB_REC];
	struct wsq q;
	int err = -CS_ENOMEM;

	k.ctas = (unsigned)wl_by_size(h, 8, 16, 32);
	if (k.ctas > wl_resident_ctas(h, &k))
		k.ctas = wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	a->n = n;
	a->threshold = 32;
	r.ht.x = malloc(n * sizeof(float));
	r.ht.y = malloc(n * sizeof(float));
	r.ht.z = malloc(n * sizeof(float));
	r.ht.ids = malloc(n * sizeof(uint32_t));
	r.ht.leaves = malloc(n * sizeof(*r.ht.leaves));
	tmp = malloc(n * sizeof(uint32_t));
	r.dev = malloc((size_t)n * DLB_REC * 4);
	r.bx = malloc(2ull * n * 4);
	r.by = malloc(2ull * n * 4);
	r.bz = malloc(2ull * n * 4);
	r.bid = malloc(2ull * n * 4);
	r.seen = malloc(n);
	if (!r.ht.x || !r.ht.y || !r.ht.z || !r.ht.ids || !r.ht.leaves || !tmp || !r.dev || !r.bx ||
	    !r.by || !r.bz || !r.bid || !r.seen)
		goto out;
	gen_points(seed, n, r.ht.x, r.ht.y, r.ht.z);
	for (uint32_t i = 0; i < n; i++)
		r.ht.ids[i] = i;
	for (unsigned b = 0; b < 2; b++) {
		a->x[b] = wl_alloc_zero(h, n * 4ull);
		a->y[b] = wl_alloc_zero(h, n * 4ull);
		a->z[b] = wl_alloc_zero(h, n * 4ull);
		a->id[b] = wl_alloc_zero(h, n * 4ull);
	}
	gh_write(h, a->x[0], r.ht.x, n * 4ull);
	gh_write(h, a->y[0], r.ht.y, n * 4ull);
	gh_write(h, a->z[0], r.ht.z, n * 4ull);
	gh_write(h, a->id[0], r.ht.ids, n * 4ull);
	if (wsq_alloc(h, &q, k.ctas, DLB_CAP, DLB_REC) != 0)
		goto out;
	a->deques = q.base;
	a->outstanding = wl_alloc_zero(h, WL_LINE_BYTES);
	a->leafcount = wl_alloc_zero(h, WL_LINE_BYTES);
	a->steals = wl_alloc_zero(h, WL_LINE_BYTES);
	a->tasks = wl_alloc_zero(h, WL_LINE_BYTES);
	a->sync = wl_alloc_zero(h, (size_t)k.ctas * WL_LINE_BYTES);
	a->leaves = wl_alloc_zero(h, (size_t)n * DLB_REC * 4);
	/* The root: all particles, the unit cube, in slot 0 of CTA 0's deque. */
	root[R_START] = 0;
	root[R_COUNT] = n;
	root[R_DEPTH] = 0;
	root[R_CX] = root[R_CY] = root[R_CZ] = root[R_HALF] = wl_f2u(0.5f);
	root[R_STAMP] = stamp(0, 0);
	gh_write(h, wsq_slot_addr(&q, 0, 0), root, sizeof(root));
	gh_write32(h, wsq_bot_addr(&q, 0), 1);
	gh_write32(h, a->outstanding, 1);

	host_split(&r.ht, tmp, a->threshold, 0, n, 0, 0.5f, 0.5f, 0.5f, 0.5f);
	err = gh_launch(h, &k);
	if (!err)
		err = dlb_check(h, &r, k.ctas);
out:
	free(r.ht.x);
	free(r.ht.y);
	free(r.ht.z);
	free(r.ht.ids);
	free(r.ht.leaves);
	free(tmp);
	free(r.dev);
	free(r.bx);
	free(r.by);
	free(r.bz);
	free(r.bid);
	free(r.seen);
	free(r.dl);
	return err;
}
