/*
 * workloads/bench/bh.c - Barnes-Hut n-body (Burtscher & Pingali, "An efficient CUDA
 * implementation of the tree-based Barnes Hut n-body algorithm", GPU Computing Gems Emerald
 * Edition, 2011; the LonestarGPU BH code).
 *
 * Nodes share one index space: bodies 0 .. nbodies - 1, cells from the top (the root is
 * nnodes, new cells are taken downwards by an atomic decrement of `bottom`); child[8 * node +
 * octant] holds -1 (empty), -2 (locked), a body or a cell. Each time step runs the kernels of
 * the original:
 *  1. bounding box: per-CTA min/max, published with a release and an atomic count; the last
 *     CTA reads every CTA's result with plain loads, makes the root and resets the tree;
 *  2. tree build: every thread inserts its bodies from the root, reading child slots with plain
 *     loads (other CTAs' cells); an empty slot is taken with a CAS, a slot holding a body is
 *     locked with a CAS to -2, the body is pushed down into new cells until the two bodies
 *     part, then the slot is published after a release fence; a thread that reads -2 retries;
 *  3. summarization: cells bottom-up, each waiting (plain loads of the children's masses,
 *     spin-guarded) until its children are ready, then mass, centre of mass and count, with
 *     the mass stored last after a release fence (the ready flag);
 *  4. sort: cells top-down, each waiting until its parent has stored its start index, then
 *     handing the start indices to its child cells and placing its bodies (tree order);
 *  5. force: a warp takes 32 bodies in tree order and walks the tree once for all of them,
 *     using a cell's centre of mass when every lane finds it far enough (the original's
 *     __all vote, opening criterion theta), else opening it;
 *  6. integration (symplectic Euler).
 * The host runs the same algorithm with the same float operations (same functions), builds
 * its own octree (unique for the point set: one body per leaf), and compares the device tree,
 * the tree order, and the final positions and velocities.
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define BH_TAG	    0x6268000000000000ull
#define BH_WARPS    8
#define BH_MAXDEPTH 48
#define BH_EMPTY    UINT32_MAX	     /* -1 */
#define BH_LOCKED   (UINT32_MAX - 1) /* -2 */
#define BH_ITOLSQ   4.0f	     /* 1 / theta^2, theta = 0.5 */
#define BH_EPSSQ    (0.05f * 0.05f)
#define BH_DT	    0.025f
#define BH_NOTREADY 0xbf800000u /* -1.0f: mass of a cell not summarized yet */

struct bh_args {
	uint64_t posx, posy, posz, mass;	     /* float per node (bodies, then cells) */
	uint64_t velx, vely, velz, accx, accy, accz; /* float per body */
	uint64_t child;				     /* uint32 x 8 per node */
	uint64_t count, start;			     /* uint32 per node */
	uint64_t sorted;			     /* uint32 per body: tree order */
	uint64_t blk;				     /* 6 x ctas floats: per-CTA bbox */
	uint64_t blkcnt, bottom, radius;	     /* own lines */
	uint32_t nbodies, nnodes;
};

/* ---- the arithmetic shared by the kernels and the host reference ------------------------- */

static unsigned octant(float x, float y, float z, float cx, float cy, float cz)
{
	return (unsigned)(x >= cx) | (unsigned)(y >= cy) << 1 | (unsigned)(z >= cz) << 2;
}

static float child_centre(float c, float r, unsigned upper)
{
	return upper ? c + r * 0.5f : c - r * 0.5f;
}

/* dq[d]: squared distance under which a cell at stack level d must be opened (+ eps^2). */
static void make_dq(float radius, float dq[BH_MAXDEPTH])
{
	dq[0] = radius * radius * BH_ITOLSQ;
	for (unsigned i = 1; i < BH_MAXDEPTH; i++)
		dq[i] = dq[i - 1] * 0.25f;
	for (unsigned i = 0; i < BH_MAXDEPTH; i++)
		dq[i] += BH_EPSSQ;
}

static float dist2(float px, float py, float pz, float qx, float qy, float qz)
{
	float dx = qx - px, dy = qy - py, dz = qz - pz;

	return dx * dx + (dy * dy + (dz * dz + BH_EPSSQ));
}

static void interact(float px, float py, float pz, float qx, float qy, float qz, float qm,
		     float acc[3])
{
	float t = dist2(px, py, pz, qx, qy, qz);

	t = 1.0f / sqrtf(t);
	t = qm * t * t * t;
	acc[0] += (qx - px) * t;
	acc[1] += (qy - py) * t;
	acc[2] += (qz - pz) * t;
}

/* Centre of mass of up to 8 children (empty ones have m = 0 and are skipped). */
static void com(const float m[8], const float x[8], const float y[8], const float z[8],
		const bool present[8], float out[4])
{
	float cm = 0, px = 0, py = 0, pz = 0, inv;

	for (unsigned k = 0; k < 8; k++) {
		if (!present[k])
			continue;
		cm += m[k];
		px += m[k] * x[k];
		py += m[k] * y[k];
		pz += m[k] * z[k];
	}
	inv = 1.0f / cm;
	out[0] = px * inv;
	out[1] = py * inv;
	out[2] = pz * inv;
	out[3] = cm;
}

static void integrate(float p[3], float v[3], const float acc[3])
{
	for (unsigned k = 0; k < 3; k++) {
		v[k] += acc[k] * BH_DT;
		p[k] += v[k] * BH_DT;
	}
}

/* ---- warp helpers ----------------------------------------------------------------------- */

static uint64_t at(uint64_t base, uint64_t i)
{
	return base + 4 * i;
}

/* addr[l] = &base[idx[l]] for the lanes of mask (the others stay 0). */
static void idx_addrs(uint64_t base, const uint32_t idx[WARP_LANES], uint32_t mask,
		      uint64_t addr[WARP_LANES])
{
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = mask >> l & 1 ? at(base, idx[l]) : 0;
}

/* out[l] = base[idx[l]] for the lanes of mask. */
static void gather(struct gpu_warp *w, uint64_t base, const uint32_t idx[WARP_LANES], uint32_t mask,
		   uint32_t out[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	if (!mask)
		return;
	idx_addrs(base, idx, mask, addr);
	gw_ld32v(w, addr, mask, out);
}

/* out[l] = base[idx[l]] as a float for the lanes of mask, 0 for the others. */
static void gather_f(struct gpu_warp *w, uint64_t base, const uint32_t idx[WARP_LANES],
		     uint32_t mask, float out[WARP_LANES])
{
	uint32_t t[WARP_LANES] = {0};

	gather(w, base, idx, mask, t);
	for (unsigned l = 0; l < WARP_LANES; l++)
		out[l] = wl_u2f(t[l]);
}

static void scatter(struct gpu_warp *w, uint64_t base, const uint32_t idx[WARP_LANES],
		    uint32_t mask, const uint32_t v[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	if (!mask)
		return;
	idx_addrs(base, idx, mask, addr);
	gw_st32v(w, addr, mask, v);
}

/* Loads the positions of bodies i .. i + 31 (those below nbodies) into x, y, z; returns the
 * lanes loaded. */
static uint32_t ld_pos(struct gpu_warp *w, const struct bh_args *a, uint64_t i,
		       uint64_t addr[WARP_LANES], uint32_t x[WARP_LANES], uint32_t y[WARP_LANES],
		       uint32_t z[WARP_LANES])
{
	uint32_t mask = wl_lane_addrs(addr, a->posx, i, a->nbodies, 4);

	gw_ld32v(w, addr, mask, x);
	wl_lane_addrs(addr, a->posy, i, a->nbodies, 4);
	gw_ld32v(w, addr, mask, y);
	wl_lane_addrs(addr, a->posz, i, a->nbodies, 4);
	gw_ld32v(w, addr, mask, z);
	return mask;
}

/* Spins with plain loads on one word while it holds `busy` (a warp waiting for several
 * lanes' flags waits on the first missing one: a burst of hits to one line, which a
 * timestamp L1 renews). 0, or 1 when the spin guard expired (the caller reports). */
static int wait_word(struct gpu_warp *w, uint64_t addr, uint32_t busy, uint64_t *spins)
{
	while (gw_ld32(w, addr) == busy)
		if (gw_spin_guard(w, spins))
			return 1;
	return 0;
}

static uint64_t threads(const struct gpu_warp *w)
{
	return wl_grid_warps(w) * WARP_LANES;
}

/* ==== 1. bounding box ===================================================================== */

static void bbox_kernel(struct gpu_warp *w)
{
	const struct bh_args *a = gw_args(w);
	float *sm = gw_smem(w);
	float v[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
	uint64_t addr[WARP_LANES];
	uint32_t x[WARP_LANES], y[WARP_LANES], z[WARP_LANES];
	unsigned ctas = gw_ctas(w), nw = gw_warps_per_cta(w);

	for (uint64_t i = gw_gwid(w) * WARP_LANES; i < a->nbodies; i += threads(w)) {
		uint32_t mask = ld_pos(w, a, i, addr, x, y, z);

		for (unsigned l = 0; l < WARP_LANES; l++) {
			float p[3] = {wl_u2f(x[l]), wl_u2f(y[l]), wl_u2f(z[l])};

			if (!(mask >> l & 1))
				continue;
			for (unsigned k = 0; k < 3; k++) {
				v[k] = fminf(v[k], p[k]);
				v[3 + k] = fmaxf(v[3 + k], p[k]);
			}
		}
		gw_compute(w, 8); /* 6 min/max, addressing */
	}
	gw_compute(w, 6 * 5 * 2); /* warp shuffle reductions of 6 values */
	memcpy(sm + 6 * gw_warp(w), v, sizeof(v));
	gw_smem_access(w);
	gw_barrier(w);
	if (gw_warp(w) != 0)
		return;
	gw_smem_access(w);
	for (unsigned i = 1; i < nw; i++)
		for (unsigned k = 0; k < 3; k++) {
			v[k] = fminf(v[k], sm[6 * i + k]);
			v[3 + k] = fmaxf(v[3 + k], sm[6 * i + 3 + k]);
		}
	gw_compute(w, 6 * nw);
	for (unsigned k = 0; k < 6; k++)
		gw_st32(w, at(a->blk, (uint64_t)k * ctas + gw_cta(w)), wl_f2u(v[k]));
	gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
	if (gw_atom(w, MEM_ATOM_ADD, a->blkcnt, 4, 1, 0, MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL) !=
	    ctas - 1)
		return;
	/* The last CTA: every CTA's result (plain loads after the acquire), then the root. */
	gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
	for (unsigned k = 0; k < 6; k++)
		for (unsigned c = 0; c < ctas; c += WARP_LANES) {
			uint32_t mask = wl_lane_addrs(addr, a->blk + 4ull * k * ctas, c, ctas, 4);

			gw_ld32v(w, addr, mask, x);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					v[k] = k < 3 ? fminf(v[k], wl_u2f(x[l]))
						     : fmaxf(v[k], wl_u2f(x[l]));
			gw_compute(w, 2 + 5);
		}
	{
		uint32_t root = a->nnodes, kids[WARP_LANES];
		float r = fmaxf(fmaxf(v[3] - v[0], v[4] - v[1]), v[5] - v[2]) * 0.5f;

		gw_compute(w, 12);
		gw_st32(w, a->radius, wl_f2u(r));
		gw_st32(w, at(a->posx, root), wl_f2u((v[0] + v[3]) * 0.5f));
		gw_st32(w, at(a->posy, root), wl_f2u((v[1] + v[4]) * 0.5f));
		gw_st32(w, at(a->posz, root), wl_f2u((v[2] + v[5]) * 0.5f));
		gw_st32(w, at(a->mass, root), BH_NOTREADY);
		gw_st32(w, at(a->start, root), 0);
		for (unsigned l = 0; l < WARP_LANES; l++)
			kids[l] = BH_EMPTY;
		wl_lane_addrs(addr, a->child, 8ull * root, 8ull * root + 8, 4);
		gw_st32v(w, addr, 0xff, kids);
		gw_st32(w, a->bottom, root);
		gw_atom(w, MEM_ATOM_EXCH, a->blkcnt, 4, 0, 0, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
	}
}

/* ==== 2. tree build ======================================================================== */

struct tb_lane {
	uint32_t body, n, ch, patch, pn, lock;
	unsigned j, depth;
	float x, y, z, cx, cy, cz, r;
	float ox, oy, oz; /* the body found in the slot (split) */
};

/* Pushes the bodies of the lanes of sm down into new cells until each pair parts, then
 * publishes the new subtree in the locked slot. 0 or -1 (reported). */
static int tb_split(struct gpu_warp *w, const struct bh_args *a, struct tb_lane *L, uint32_t sm)
{
	uint32_t idx[WARP_LANES] = {0}, v[WARP_LANES] = {0}, ox[WARP_LANES] = {0};
	uint32_t oy[WARP_LANES] = {0}, oz[WARP_LANES] = {0};
	uint64_t addr[WARP_LANES] = {0}, minus1[WARP_LANES], old[WARP_LANES] = {0};

	for (unsigned l = 0; l < WARP_LANES; l++) {
		idx[l] = L[l].ch;
		minus1[l] = UINT32_MAX;
		L[l].patch = UINT32_MAX;
		L[l].pn = L[l].n;
	}
	gather(w, a->posx, idx, sm, ox);
	gather(w, a->posy, idx, sm, oy);
	gather(w, a->posz, idx, sm, oz);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		L[l].ox = wl_u2f(ox[l]);
		L[l].oy = wl_u2f(oy[l]);
		L[l].oz = wl_u2f(oz[l]);
	}
	while (sm) {
		uint32_t fin = 0, patchm = 0, cell[WARP_LANES] = {0}, kids[8][WARP_LANES];

		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->bottom;
		gw_atomv(w, MEM_ATOM_ADD, addr, sm, 4, minus1, NULL, old, MEM_SCOPE_DEVICE,
			 MEM_ORDER_RELAXED);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			struct tb_lane *p = &L[l];
			unsigned jo, jn;

			if (!(sm >> l & 1))
				continue;
			cell[l] = (uint32_t)old[l] - 1;
			if (cell[l] <= a->nbodies || ++p->depth >= BH_MAXDEPTH) {
				gw_fail(w,
					"bh: tree build: out of cells or too deep (cell %" PRIu32
					", depth %u) inserting body %" PRIu32,
					cell[l], p->depth, p->body);
				return -1;
			}
			if (p->patch != UINT32_MAX) {
				patchm |= 1u << l;
				idx[l] = 8 * p->pn + p->j;
			}
			if (p->patch == UINT32_MAX || cell[l] > p->patch)
				p->patch = cell[l];
			p->cx = child_centre(p->cx, p->r, p->j & 1);
			p->cy = child_centre(p->cy, p->r, p->j >> 1 & 1);
			p->cz = child_centre(p->cz, p->r, p->j >> 2 & 1);
			p->r *= 0.5f;
			jo = octant(p->ox, p->oy, p->oz, p->cx, p->cy, p->cz);
			jn = octant(p->x, p->y, p->z, p->cx, p->cy, p->cz);
			for (unsigned k = 0; k < 8; k++)
				kids[k][l] = BH_EMPTY;
			kids[jo][l] = p->ch;
			if (jn != jo) {
				kids[jn][l] = p->body;
				fin |= 1u << l;
			}
			p->pn = cell[l];
			p->j = jn;
		}
		gw_compute(w, 40); /* centres, two octants, bookkeeping */
		scatter(w, a->child, idx, patchm, cell);
		for (unsigned k = 0; k < 8; k++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				idx[l] = 8 * cell[l] + k;
			scatter(w, a->child, idx, sm, kids[k]);
		}
		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] = BH_NOTREADY;
		scatter(w, a->mass, cell, sm, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] = UINT32_MAX;
		scatter(w, a->start, cell, sm, v);
		if (fin) {
			gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				idx[l] = L[l].lock;
				v[l] = L[l].patch;
			}
			scatter(w, a->child, idx, fin, v);
			sm &= ~fin;
		}
	}
	return 0;
}

static void tree_kernel(struct gpu_warp *w)
{
	const struct bh_args *a = gw_args(w);
	uint32_t root = a->nnodes;
	float rx = wl_u2f(gw_ld32(w, at(a->posx, root))),
	      ry = wl_u2f(gw_ld32(w, at(a->posy, root)));
	float rz = wl_u2f(gw_ld32(w, at(a->posz, root))), rr = wl_u2f(gw_ld32(w, a->radius));
	struct tb_lane L[WARP_LANES];
	uint64_t addr[WARP_LANES];

	for (uint64_t base = gw_gwid(w) * WARP_LANES; base < a->nbodies; base += threads(w)) {
		uint32_t x[WARP_LANES], y[WARP_LANES], z[WARP_LANES], ch[WARP_LANES] = {0};
		uint32_t pending = ld_pos(w, a, base, addr, x, y, z);
		uint64_t spins = 0;

		for (unsigned l = 0; l < WARP_LANES; l++) {
			L[l] = (struct tb_lane){.body = (uint32_t)(base + l),
						.n = root,
						.x = wl_u2f(x[l]),
						.y = wl_u2f(y[l]),
						.z = wl_u2f(z[l]),
						.cx = rx,
						.cy = ry,
						.cz = rz,
						.r = rr};
			L[l].j = octant(L[l].x, L[l].y, L[l].z, rx, ry, rz);
		}
		while (pending) {
			uint32_t casm = 0, split = 0, done = 0, blocked = 0, idx[WARP_LANES] = {0};
			uint64_t ca[WARP_LANES] = {0}, cb[WARP_LANES] = {0}, old[WARP_LANES] = {0};

			for (unsigned l = 0; l < WARP_LANES; l++)
				idx[l] = 8 * L[l].n + L[l].j;
			gather(w, a->child, idx, pending, ch);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				struct tb_lane *p = &L[l];

				if (!(pending >> l & 1))
					continue;
				p->ch = ch[l];
				p->lock = idx[l];
				if (ch[l] == BH_LOCKED) {
					blocked |= 1u << l;
				} else if (ch[l] == BH_EMPTY || ch[l] < a->nbodies) {
					casm |= 1u << l;
					ca[l] = ch[l];
					cb[l] = ch[l] == BH_EMPTY ? p->body : BH_LOCKED;
					addr[l] = at(a->child, idx[l]);
				} else if (ch[l] <= a->nnodes) { /* a cell: one level down */
					p->cx = child_centre(p->cx, p->r, p->j & 1);
					p->cy = child_centre(p->cy, p->r, p->j >> 1 & 1);
					p->cz = child_centre(p->cz, p->r, p->j >> 2 & 1);
					p->r *= 0.5f;
					p->n = ch[l];
					p->j = octant(p->x, p->y, p->z, p->cx, p->cy, p->cz);
					if (++p->depth >= BH_MAXDEPTH) {
						gw_fail(w,
							"bh: tree build: body %" PRIu32
							" deeper than %u levels",
							p->body, BH_MAXDEPTH);
						return;
					}
				} else {
					gw_fail(w,
						"bh: tree build: body %" PRIu32
						" read child slot %" PRIu32 " = %#" PRIx32
						", not a node",
						p->body, idx[l], ch[l]);
					return;
				}
			}
			gw_compute(w, 20); /* classify; octant and centre of the next level */
			if (casm) {
				gw_atomv(w, MEM_ATOM_CAS, addr, casm, 4, ca, cb, old,
					 MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
				for (unsigned l = 0; l < WARP_LANES; l++) {
					if (!(casm >> l & 1))
						continue;
					if ((uint32_t)old[l] != L[l].ch)
						blocked |= 1u << l; /* lost the race: read again */
					else if (L[l].ch == BH_EMPTY)
						done |= 1u << l;
					else
						split |= 1u << l;
				}
			}
			if (split && tb_split(w, a, L, split) != 0)
				return;
			pending &= ~(done | split);
			if (blocked && !(done | split) && gw_spin_guard(w, &spins)) {
				uint32_t l = (uint32_t)__builtin_ctz(blocked);

				gw_fail(w,
					"bh: livelock: tree build, CTA %u warp %u (SM %u): body "
					"%" PRIu32 " retried child slot %" PRIu32 " %" PRIu64
					" times (reads %#" PRIx32 ", the L2 holds %#" PRIx32 ")",
					gw_cta(w), gw_warp(w), gw_sm(w), L[l].body, L[l].lock,
					spins, L[l].ch,
					wl_atomic_read32(w, at(a->child, L[l].lock)));
				return;
			}
		}
	}
}

/* ==== 3. summarization ===================================================================== */

static void sum_kernel(struct gpu_warp *w)
{
	const struct bh_args *a = gw_args(w);
	uint32_t bottom = gw_ld32(w, a->bottom);
	uint64_t inc = threads(w), spins = 0;

	for (uint64_t k0 = (bottom & ~(uint64_t)(WARP_LANES - 1)) + gw_gwid(w) * WARP_LANES;
	     k0 <= a->nnodes; k0 += inc) {
		uint32_t kids[8][WARP_LANES] = {{0}}, cell[WARP_LANES], pending = 0;
		uint32_t ready[WARP_LANES] = {0}, m[WARP_LANES] = {0};

		for (unsigned l = 0; l < WARP_LANES; l++) {
			cell[l] = (uint32_t)(k0 + l);
			if (k0 + l >= bottom && k0 + l <= a->nnodes)
				pending |= 1u << l;
		}
		for (unsigned k = 0; k < 8; k++) {
			uint32_t idx[WARP_LANES];

			for (unsigned l = 0; l < WARP_LANES; l++)
				idx[l] = 8 * cell[l] + k;
			gather(w, a->child, idx, pending, kids[k]);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if ((pending >> l & 1) && kids[k][l] == BH_EMPTY)
					ready[l] |= 1u << k;
		}
		while (pending) {
			uint32_t fin = 0;

			for (unsigned k = 0; k < 8; k++) {
				uint32_t need = 0;

				for (unsigned l = 0; l < WARP_LANES; l++)
					if ((pending >> l & 1) && !(ready[l] >> k & 1))
						need |= 1u << l;
				if (!need)
					continue;
				gather(w, a->mass, kids[k], need, m);
				for (unsigned l = 0; l < WARP_LANES; l++)
					if ((need >> l & 1) && m[l] != BH_NOTREADY)
						ready[l] |= 1u << k;
				gw_compute(w, 4);
			}
			for (unsigned l = 0; l < WARP_LANES; l++)
				if ((pending >> l & 1) && ready[l] == 0xff)
					fin |= 1u << l;
			if (!fin) {
				unsigned l = (unsigned)__builtin_ctz(pending);
				unsigned k = (unsigned)__builtin_ctz(~ready[l] & 0xff);

				if (wait_word(w, at(a->mass, kids[k][l]), BH_NOTREADY, &spins)) {

					gw_fail(w,
						"bh: livelock: summarization, CTA %u warp %u (SM "
						"%u): cell %" PRIu32 " waited %" PRIu64
						" times for its children's masses "
						"(ready mask %#x; plain loads: an L1 without "
						"coherence keeps serving the old -1)",
						gw_cta(w), gw_warp(w), gw_sm(w), cell[l], spins,
						ready[l]);
					return;
				}
				continue;
			}
			/* Children ready: acquire, then their centres of mass and counts. */
			gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
			{
				float cm[8][WARP_LANES] = {{0}}, cx[8][WARP_LANES] = {{0}};
				float cy[8][WARP_LANES] = {{0}}, cz[8][WARP_LANES] = {{0}};
				uint32_t cnt[8][WARP_LANES] = {{0}}, v[4][WARP_LANES],
					 n[WARP_LANES];

				for (unsigned k = 0; k < 8; k++) {
					uint32_t have = 0;

					for (unsigned l = 0; l < WARP_LANES; l++)
						if ((fin >> l & 1) && kids[k][l] != BH_EMPTY)
							have |= 1u << l;
					if (!have)
						continue;
					gather_f(w, a->mass, kids[k], have, cm[k]);
					gather_f(w, a->posx, kids[k], have, cx[k]);
					gather_f(w, a->posy, kids[k], have, cy[k]);
					gather_f(w, a->posz, kids[k], have, cz[k]);
					gather(w, a->count, kids[k], have, cnt[k]);
					for (unsigned l = 0; l < WARP_LANES; l++)
						if (kids[k][l] < a->nbodies)
							cnt[k][l] = 1;
				}
				for (unsigned l = 0; l < WARP_LANES; l++) {
					float mm[8], xx[8], yy[8], zz[8], out[4] = {0};
					bool pr[8];

					if (!(fin >> l & 1))
						continue;
					n[l] = 0;
					for (unsigned k = 0; k < 8; k++) {
						pr[k] = kids[k][l] != BH_EMPTY;
						mm[k] = cm[k][l];
						xx[k] = cx[k][l];
						yy[k] = cy[k][l];
						zz[k] = cz[k][l];
						n[l] += pr[k] ? cnt[k][l] : 0;
					}
					com(mm, xx, yy, zz, pr, out);
					for (unsigned q = 0; q < 4; q++)
						v[q][l] = wl_f2u(out[q]);
				}
				gw_compute(w, 8 * 8 + 12); /* 8 x (mass add, 3 FMA, count) + div */
				scatter(w, a->posx, cell, fin, v[0]);
				scatter(w, a->posy, cell, fin, v[1]);
				scatter(w, a->posz, cell, fin, v[2]);
				scatter(w, a->count, cell, fin, n);
				gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
				scatter(w, a->mass, cell, fin, v[3]);
			}
			pending &= ~fin;
			spins = 0;
		}
	}
}

/* ==== 4. sort (tree order) ================================================================= */

static void sort_kernel(struct gpu_warp *w)
{
	const struct bh_args *a = gw_args(w);
	uint32_t bottom = gw_ld32(w, a->bottom);
	uint64_t inc = threads(w), spins = 0;

	/* Cells from the top: lane l of global thread t handles nnodes - t, nnodes - t - inc... */
	for (uint64_t off = gw_gwid(w) * WARP_LANES; off <= a->nnodes - bottom; off += inc) {
		uint32_t cell[WARP_LANES], pending = 0, st[WARP_LANES] = {0};

		for (unsigned l = 0; l < WARP_LANES; l++) {
			cell[l] = a->nnodes - (uint32_t)(off + l);
			if (off + l <= a->nnodes - bottom)
				pending |= 1u << l;
		}
		while (pending) {
			uint32_t fin = 0, s[WARP_LANES];

			gather(w, a->start, cell, pending, st);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if ((pending >> l & 1) && st[l] != UINT32_MAX)
					fin |= 1u << l;
			gw_compute(w, 3);
			if (!fin) {
				if (wait_word(w, at(a->start, cell[__builtin_ctz(pending)]),
					      UINT32_MAX, &spins)) {
					gw_fail(w,
						"bh: livelock: sort, CTA %u warp %u (SM %u): cell "
						"%" PRIu32 " waited %" PRIu64
						" times for its start index (plain "
						"loads: an L1 without coherence keeps serving -1)",
						gw_cta(w), gw_warp(w), gw_sm(w),
						cell[__builtin_ctz(pending)], spins);
					return;
				}
				continue;
			}
			gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
			memcpy(s, st, sizeof(s));
			for (unsigned k = 0; k < 8; k++) {
				uint32_t idx[WARP_LANES], ch[WARP_LANES] = {0},
							  cnt[WARP_LANES] = {0};
				uint32_t cells = 0, bodies = 0;

				for (unsigned l = 0; l < WARP_LANES; l++)
					idx[l] = 8 * cell[l] + k;
				gather(w, a->child, idx, fin, ch);
				for (unsigned l = 0; l < WARP_LANES; l++) {
					if (!(fin >> l & 1) || ch[l] == BH_EMPTY)
						continue;
					if (ch[l] >= a->nbodies)
						cells |= 1u << l;
					else
						bodies |= 1u << l;
				}
				gather(w, a->count, ch, cells, cnt);
				scatter(w, a->start, ch, cells, s);
				scatter(w, a->sorted, s, bodies, ch);
				for (unsigned l = 0; l < WARP_LANES; l++)
					s[l] += (cells >> l & 1) ? cnt[l] : (bodies >> l & 1);
				gw_compute(w, 6);
			}
			pending &= ~fin;
			spins = 0;
		}
	}
}

/* ==== 5. force ============================================================================= */

/* The warp's walk for its bodies (both the kernel and the host reference run it; `load`
 * reads a child slot and a node's centre and mass). */
struct walker {
	void *ctx;
	uint32_t (*child)(void *ctx, uint32_t slot);
	void (*node)(void *ctx, uint32_t n, float out[4]);
	void (*cost)(void *ctx, uint64_t insts);
};

static void walk(const struct walker *wk, uint32_t root, uint32_t nbodies, float radius,
		 const uint32_t body[WARP_LANES], const float px[WARP_LANES],
		 const float py[WARP_LANES], const float pz[WARP_LANES], uint32_t mask,
		 float acc[WARP_LANES][3])
{
	float dq[BH_MAXDEPTH];
	uint32_t node[BH_MAXDEPTH];
	unsigned pos[BH_MAXDEPTH];
	int depth = 0;

	make_dq(radius, dq);
	wk->cost(wk->ctx, 2 * BH_MAXDEPTH);
	node[0] = root;
	pos[0] = 0;
	while (depth >= 0) {
		while (pos[depth] < 8) {
			uint32_t n = wk->child(wk->ctx, 8 * node[depth] + pos[depth]++);
			float q[4];
			bool far = true;

			if (n == BH_EMPTY) {
				wk->cost(wk->ctx, 3);
				continue;
			}
			wk->node(wk->ctx, n, q);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if ((mask >> l & 1) &&
				    dist2(px[l], py[l], pz[l], q[0], q[1], q[2]) < dq[depth])
					far = false;
			if (n < nbodies || far) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					if ((mask >> l & 1) && body[l] != n)
						interact(px[l], py[l], pz[l], q[0], q[1], q[2],
							 q[3], acc[l]);
				/* distance (6), vote (2), rsqrt (4), 3 mul, 3 FMA, compare */
				wk->cost(wk->ctx, 20);
			} else {
				if (depth + 1 >= BH_MAXDEPTH)
					break;
				depth++;
				node[depth] = n;
				pos[depth] = 0;
				wk->cost(wk->ctx, 12); /* distance, vote, push */
			}
		}
		depth--;
	}
}

struct dev_walk {
	struct gpu_warp *w;
	const struct bh_args *a;
};

static uint32_t dev_child(void *ctx, uint32_t slot)
{
	struct dev_walk *d = ctx;

	return gw_ld32(d->w, at(d->a->child, slot));
}

/* The centre and mass of a node: four independent loads the real kernel issues back to back
 * before their first use (one warp instruction here, with 4 lanes: their latencies overlap
 * as on the hardware; the 3 further issue slots are counted as compute). */
static void dev_node(void *ctx, uint32_t n, float out[4])
{
	struct dev_walk *d = ctx;
	uint64_t addr[WARP_LANES] = {at(d->a->posx, n), at(d->a->posy, n), at(d->a->posz, n),
				     at(d->a->mass, n)};
	uint32_t v[WARP_LANES] = {0};

	gw_ld32v(d->w, addr, 0xf, v);
	gw_compute(d->w, 3);
	for (unsigned k = 0; k < 4; k++)
		out[k] = wl_u2f(v[k]);
}

static void dev_cost(void *ctx, uint64_t insts)
{
	gw_compute(((struct dev_walk *)ctx)->w, insts);
}

static void force_kernel(struct gpu_warp *w)
{
	const struct bh_args *a = gw_args(w);
	struct dev_walk d = {w, a};
	struct walker wk = {&d, dev_child, dev_node, dev_cost};
	float radius = wl_u2f(gw_ld32(w, a->radius));
	uint64_t addr[WARP_LANES];

	for (uint64_t i = gw_gwid(w) * WARP_LANES; i < a->nbodies; i += threads(w)) {
		uint32_t body[WARP_LANES] = {0}, v[WARP_LANES] = {0};
		float px[WARP_LANES], py[WARP_LANES], pz[WARP_LANES], acc[WARP_LANES][3] = {{0}};
		uint32_t mask = wl_lane_addrs(addr, a->sorted, i, a->nbodies, 4);

		gw_ld32v(w, addr, mask, body);
		gather_f(w, a->posx, body, mask, px);
		gather_f(w, a->posy, body, mask, py);
		gather_f(w, a->posz, body, mask, pz);
		walk(&wk, a->nnodes, a->nbodies, radius, body, px, py, pz, mask, acc);
		for (unsigned k = 0; k < 3; k++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				v[l] = wl_f2u(acc[l][k]);
			scatter(w, k == 0 ? a->accx : k == 1 ? a->accy : a->accz, body, mask, v);
		}
	}
}

/* ==== 6. integration ======================================================================= */

static void integrate_kernel(struct gpu_warp *w)
{
	const struct bh_args *a = gw_args(w);
	const uint64_t arr[9] = {a->posx, a->posy, a->posz, a->velx, a->vely,
				 a->velz, a->accx, a->accy, a->accz};
	uint64_t addr[WARP_LANES];

	for (uint64_t i = gw_gwid(w) * WARP_LANES; i < a->nbodies; i += threads(w)) {
		uint32_t val[9][WARP_LANES] = {{0}}, mask = 0;

		for (unsigned k = 0; k < 9; k++) {
			mask = wl_lane_addrs(addr, arr[k], i, a->nbodies, 4);
			gw_ld32v(w, addr, mask, val[k]);
		}
		for (unsigned l = 0; l < WARP_LANES; l++) {
			float p[3], v[3], acc[3];

			for (unsigned k = 0; k < 3; k++) {
				p[k] = wl_u2f(val[k][l]);
				v[k] = wl_u2f(val[3 + k][l]);
				acc[k] = wl_u2f(val[6 + k][l]);
			}
			integrate(p, v, acc);
			for (unsigned k = 0; k < 3; k++) {
				val[k][l] = wl_f2u(p[k]);
				val[3 + k][l] = wl_f2u(v[k]);
			}
		}
		gw_compute(w, 12); /* 6 FMA, addressing */
		for (unsigned k = 0; k < 6; k++) {
			wl_lane_addrs(addr, arr[k], i, a->nbodies, 4);
			gw_st32v(w, addr, mask, val[k]);
		}
	}
}

/* ==== host reference ======================================================================= */

struct htree {
	uint32_t nb, ncells; /* cells are nb .. nb + ncells - 1, the root is nb */
	uint32_t *child;     /* 8 per node index (bodies' rows unused) */
	float *x, *y, *z, *m;
	uint32_t *count, *sorted;
	float radius;
};

static int host_insert(struct htree *t, uint32_t b, float rx, float ry, float rz, uint32_t cap)
{
	uint32_t n = t->nb;
	float cx = rx, cy = ry, cz = rz, r = t->radius;

	for (unsigned depth = 0; depth < 2 * BH_MAXDEPTH; depth++) {
		unsigned j = octant(t->x[b], t->y[b], t->z[b], cx, cy, cz);
		uint32_t ch = t->child[8 * n + j];

		if (ch == BH_EMPTY) {
			t->child[8 * n + j] = b;
			return 0;
		}
		cx = child_centre(cx, r, j & 1);
		cy = child_centre(cy, r, j >> 1 & 1);
		cz = child_centre(cz, r, j >> 2 & 1);
		r *= 0.5f;
		if (ch >= t->nb) {
			n = ch;
			continue;
		}
		if (t->ncells >= cap)
			return -1;
		{
			uint32_t c = t->nb + t->ncells++;

			for (unsigned k = 0; k < 8; k++)
				t->child[8 * c + k] = BH_EMPTY;
			t->child[8 * c + octant(t->x[ch], t->y[ch], t->z[ch], cx, cy, cz)] = ch;
			t->child[8 * n + j] = c;
			n = c;
		}
	}
	return -1;
}

/* Mass and centre of mass bottom-up (children in octant order), tree order top-down. */
static void host_summarize(struct htree *t, uint32_t c, uint32_t *s)
{
	float mm[8] = {0}, xx[8] = {0}, yy[8] = {0}, zz[8] = {0}, out[4];
	bool pr[8];
	uint32_t n = 0;

	for (unsigned k = 0; k < 8; k++) {
		uint32_t ch = t->child[8 * c + k];

		pr[k] = ch != BH_EMPTY;
		if (!pr[k])
			continue;
		if (ch >= t->nb) {
			host_summarize(t, ch, s);
			n += t->count[ch];
		} else {
			t->sorted[(*s)++] = ch;
			n++;
		}
		mm[k] = t->m[ch];
		xx[k] = t->x[ch];
		yy[k] = t->y[ch];
		zz[k] = t->z[ch];
	}
	com(mm, xx, yy, zz, pr, out);
	t->x[c] = out[0];
	t->y[c] = out[1];
	t->z[c] = out[2];
	t->m[c] = out[3];
	t->count[c] = n;
}

struct host_walk {
	const struct htree *t;
	uint64_t visits;
};

static uint32_t host_child(void *ctx, uint32_t slot)
{
	struct host_walk *h = ctx;

	h->visits++;
	return h->t->child[slot];
}

static void host_node(void *ctx, uint32_t n, float out[4])
{
	const struct htree *t = ((struct host_walk *)ctx)->t;

	out[0] = t->x[n];
	out[1] = t->y[n];
	out[2] = t->z[n];
	out[3] = t->m[n];
}

static void host_cost(void *ctx, uint64_t insts)
{
	(void)ctx;
	(void)insts;
}

/* One time step on the host. vel and the bodies' rows of t are updated. */
static int host_step(struct htree *t, float *vx, float *vy, float *vz, uint64_t *visits)
{
	float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
	float rx, ry, rz;
	uint32_t nb = t->nb, s = 0;
	struct host_walk hw = {t, 0};
	struct walker wk = {&hw, host_child, host_node, host_cost};
	float(*acc)[3] = calloc(nb, sizeof(*acc));

	if (!acc)
		return -CS_ENOMEM;
	for (uint32_t i = 0; i < nb; i++) {
		float p[3] = {t->x[i], t->y[i], t->z[i]};

		for (unsigned k = 0; k < 3; k++) {
			mn[k] = fminf(mn[k], p[k]);
			mx[k] = fmaxf(mx[k], p[k]);
		}
	}
	t->radius = fmaxf(fmaxf(mx[0] - mn[0], mx[1] - mn[1]), mx[2] - mn[2]) * 0.5f;
	rx = (mn[0] + mx[0]) * 0.5f;
	ry = (mn[1] + mx[1]) * 0.5f;
	rz = (mn[2] + mx[2]) * 0.5f;
	t->ncells = 1;
	for (unsigned k = 0; k < 8; k++)
		t->child[8 * nb + k] = BH_EMPTY;
	for (uint32_t i = 0; i < nb; i++)
		if (host_insert(t, i, rx, ry, rz, 3 * nb) != 0) {
			free(acc);
			return -CS_EINVAL;
		}
	host_summarize(t, nb, &s);
	for (uint32_t i = 0; i < nb; i += WARP_LANES) {
		uint32_t body[WARP_LANES] = {0}, mask = 0;
		float px[WARP_LANES] = {0}, py[WARP_LANES] = {0}, pz[WARP_LANES] = {0};
		float a4[WARP_LANES][3] = {{0}};

		for (unsigned l = 0; l < WARP_LANES && i + l < nb; l++) {
			body[l] = t->sorted[i + l];
			px[l] = t->x[body[l]];
			py[l] = t->y[body[l]];
			pz[l] = t->z[body[l]];
			mask |= 1u << l;
		}
		walk(&wk, nb, nb, t->radius, body, px, py, pz, mask, a4);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				memcpy(acc[body[l]], a4[l], sizeof(a4[l]));
	}
	for (uint32_t i = 0; i < nb; i++) {
		float p[3] = {t->x[i], t->y[i], t->z[i]}, v[3] = {vx[i], vy[i], vz[i]};

		integrate(p, v, acc[i]);
		t->x[i] = p[0];
		t->y[i] = p[1];
		t->z[i] = p[2];
		vx[i] = v[0];
		vy[i] = v[1];
		vz[i] = v[2];
	}
	*visits += hw.visits;
	free(acc);
	return 0;
}

/* ==== host program ========================================================================= */

struct bh_dev {
	uint32_t *child, *count, *sorted;
	float *x, *y, *z, *m;
};

/* Compares the device subtree at dc with the host's at hc. */
static int cmp_tree(struct gpu_host *h, const struct bh_args *a, const struct bh_dev *d,
		    const struct htree *t, uint32_t dc, uint32_t hc, uint8_t *seen, unsigned depth)
{
	for (unsigned k = 0; k < 8; k++) {
		uint32_t dv = d->child[8ull * dc + k], hv = t->child[8 * hc + k];

		if (hv == BH_EMPTY || hv < t->nb) {
			if (dv != hv)
				return gh_fail(h,
					       "bh: tree: cell %" PRIu32
					       " (depth %u) octant %u holds %#" PRIx32
					       ", want %#" PRIx32 " (the host's octree)",
					       dc, depth, k, dv, hv);
			if (hv != BH_EMPTY) {
				if (seen[hv])
					return gh_fail(
					    h, "bh: tree: body %" PRIu32 " in two leaves", hv);
				seen[hv] = 1;
			}
			continue;
		}
		if (dv < a->nbodies || dv > a->nnodes)
			return gh_fail(h,
				       "bh: tree: cell %" PRIu32
				       " (depth %u) octant %u holds %#" PRIx32 ", want a cell",
				       dc, depth, k, dv);
		if (d->count[dv] != t->count[hv] || fabsf(d->m[dv] - t->m[hv]) > 1e-5f * t->m[hv] ||
		    fabsf(d->x[dv] - t->x[hv]) > 1e-4f * (1 + fabsf(t->x[hv])) ||
		    fabsf(d->y[dv] - t->y[hv]) > 1e-4f * (1 + fabsf(t->y[hv])) ||
		    fabsf(d->z[dv] - t->z[hv]) > 1e-4f * (1 + fabsf(t->z[hv])))
			return gh_fail(
			    h,
			    "bh: summarization: cell %" PRIu32 " (depth %u): count %" PRIu32
			    " mass %g centre (%g, %g, %g), want %" PRIu32 " %g (%g, %g, %g)",
			    dv, depth + 1, d->count[dv], (double)d->m[dv], (double)d->x[dv],
			    (double)d->y[dv], (double)d->z[dv], t->count[hv], (double)t->m[hv],
			    (double)t->x[hv], (double)t->y[hv], (double)t->z[hv]);
		if (cmp_tree(h, a, d, t, dv, hv, seen, depth + 1) != 0)
			return -CS_ECHECK;
	}
	return 0;
}

static int bh_check(struct gpu_host *h, const struct bh_args *a, const struct htree *t,
		    const float *vx, const float *vy, const float *vz, unsigned steps,
		    unsigned ctas, uint64_t visits)
{
	uint32_t nb = a->nbodies, nn = a->nnodes + 1;
	struct bh_dev d = {0};
	uint8_t *seen = calloc(nb, 1);
	float *buf = malloc(nb * sizeof(float));
	double total = 0;
	int err = -CS_ENOMEM;

	d.child = malloc(8ull * nn * 4);
	d.count = malloc(nn * 4ull);
	d.sorted = malloc(nb * 4ull);
	d.x = malloc(nn * 4ull);
	d.y = malloc(nn * 4ull);
	d.z = malloc(nn * 4ull);
	d.m = malloc(nn * 4ull);
	if (!seen || !buf || !d.child || !d.count || !d.sorted || !d.x || !d.y || !d.z || !d.m)
		goto out;
	gh_read(h, a->child, d.child, 8ull * nn * 4);
	gh_read(h, a->count, d.count, nn * 4ull);
	gh_read(h, a->sorted, d.sorted, nb * 4ull);
	gh_read(h, a->posx, d.x, nn * 4ull);
	gh_read(h, a->posy, d.y, nn * 4ull);
	gh_read(h, a->posz, d.z, nn * 4ull);
	gh_read(h, a->mass, d.m, nn * 4ull);
	/* The tree of the last step (its cells' centres of mass are still in the arrays). */
	err = cmp_tree(h, a, &d, t, a->nnodes, nb, seen, 0);
	if (err)
		goto out;
	for (uint32_t i = 0; i < nb; i++) {
		if (!seen[i]) {
			err = gh_fail(h, "bh: tree: body %" PRIu32 " in no leaf", i);
			goto out;
		}
		total += t->m[i];
		if (d.sorted[i] != t->sorted[i]) {
			err = gh_fail(h,
				      "bh: sort: tree-order position %" PRIu32
				      " holds body %" PRIu32 ", want %" PRIu32,
				      i, d.sorted[i], t->sorted[i]);
			goto out;
		}
	}
	if (d.count[a->nnodes] != nb || fabs(d.m[a->nnodes] - total) > 1e-5 * total) {
		err = gh_fail(h, "bh: root: count %" PRIu32 " mass %g, want %" PRIu32 " and %g",
			      d.count[a->nnodes], (double)d.m[a->nnodes], nb, total);
		goto out;
	}
	{
		const struct {
			uint64_t base;
			const float *want;
			const char *name;
		} out[6] = {{a->posx, t->x, "x"}, {a->posy, t->y, "y"}, {a->posz, t->z, "z"},
			    {a->velx, vx, "vx"},  {a->vely, vy, "vy"},	{a->velz, vz, "vz"}};

		for (unsigned k = 0; k < 6; k++) {
			uint64_t first = 0;
			float got = 0;
			uint64_t bad = wl_check_float(h, out[k].base, out[k].want, nb, 1e-5, 1e-4,
						      &first, &got);

			if (bad) {
				err =
				    gh_fail(h,
					    "bh: after %u steps body %" PRIu64 " %s = %g, want %g "
					    "(host Barnes-Hut); %" PRIu64 " bodies differ",
					    steps, first, out[k].name, (double)got,
					    (double)out[k].want[first], bad);
				goto out;
			}
		}
	}
	gh_note(h,
		"bh: %" PRIu32 " bodies, %u steps, %u CTAs x %u warps; octree (%" PRIu32
		" cells, unique), masses, centres of mass, tree order, %" PRIu64
		" warp tree-walk child visits, positions and velocities verified against the host",
		nb, steps, ctas, BH_WARPS, t->ncells, visits);
	err = 0;
out:
	free(seen);
	free(buf);
	free(d.child);
	free(d.count);
	free(d.sorted);
	free(d.x);
	free(d.y);
	free(d.z);
	free(d.m);
	return err;
}

/* Plummer model (as the original's input generator), unit mass in total. */
static void gen_bodies(uint64_t seed, uint32_t nb, float *x, float *y, float *z, float *m,
		       float *vx, float *vy, float *vz)
{
	for (uint32_t i = 0; i < nb; i++) {
		double r = 1.0 / sqrt(pow(0.001 + 0.998 * wl_unit(seed, 1, i), -2.0 / 3.0) - 1);
		double u = 2 * wl_unit(seed, 2, i) - 1,
		       ph = 6.283185307179586 * wl_unit(seed, 3, i);
		double s = sqrt(1 - u * u), vs, vu, vph;

		if (r > 8)
			r = 8;
		x[i] = (float)(r * s * cos(ph));
		y[i] = (float)(r * s * sin(ph));
		z[i] = (float)(r * u);
		m[i] = 1.0f / (float)nb;
		vs = 0.4 * sqrt(2.0) * pow(1 + r * r, -0.25) * wl_unit(seed, 4, i);
		vu = 2 * wl_unit(seed, 5, i) - 1;
		vph = 6.283185307179586 * wl_unit(seed, 6, i);
		vx[i] = (float)(vs * sqrt(1 - vu * vu) * cos(vph));
		vy[i] = (float)(vs * sqrt(1 - vu * vu) * sin(vph));
		vz[i] = (float)(vs * vu);
	}
}

int bench_bh_main(struct gpu_host *h)
{
	struct bh_args a = {0};
	struct gpu_kernel k = {.warps_per_cta = BH_WARPS, .regs_per_thread = 32, .args = &a};
	static const struct {
		const char *name;
		void (*fn)(struct gpu_warp *w);
		unsigned smem;
	} kernels[6] = {{"bh_bbox", bbox_kernel, 6 * 4 * BH_WARPS},
			{"bh_tree", tree_kernel, 0},
			{"bh_summarize", sum_kernel, 0},
			{"bh_sort", sort_kernel, 0},
			{"bh_force", force_kernel, 0},
			{"bh_integrate", integrate_kernel, 0}};
	uint64_t seed = gh_seed(h) ^ BH_TAG, visits = 0;
	uint32_t nb = (uint32_t)wl_by_size(h, 128, 512, 768);
	unsigned steps = (unsigned)wl_by_size(h, 1, 2, 1);
	struct htree t = {.nb = nb};
	float *vx = malloc(nb * 4ull), *vy = malloc(nb * 4ull), *vz = malloc(nb * 4ull);
	uint32_t nn;
	int err = -CS_ENOMEM;

	k.smem_bytes = kernels[0].smem;
	k.ctas = gh_sms(h) < wl_resident_ctas(h, &k) ? gh_sms(h) : wl_resident_ctas(h, &k);
	if (k.ctas == 0) {
		err = gh_no_fit(h, &k);
		goto out;
	}
	/* Cells: at most nb - 1 for nb bodies with one body per leaf... plus chains where two
	 * bodies share octants for several levels: room for 2 nb. */
	a.nbodies = nb;
	a.nnodes = nn = 3 * nb;
	t.child = malloc(8ull * (nb + nn + 1) * 4);
	t.x = malloc((nb + nn + 1) * 4ull);
	t.y = malloc((nb + nn + 1) * 4ull);
	t.z = malloc((nb + nn + 1) * 4ull);
	t.m = malloc((nb + nn + 1) * 4ull);
	t.count = malloc((nb + nn + 1) * 4ull);
	t.sorted = malloc(nb * 4ull);
	if (!vx || !vy || !vz || !t.child || !t.x || !t.y || !t.z || !t.m || !t.count || !t.sorted)
		goto out;
	gen_bodies(seed, nb, t.x, t.y, t.z, t.m, vx, vy, vz);
	a.posx = wl_alloc_zero(h, (nn + 1) * 4ull);
	a.posy = wl_alloc_zero(h, (nn + 1) * 4ull);
	a.posz = wl_alloc_zero(h, (nn + 1) * 4ull);
	a.mass = wl_alloc_zero(h, (nn + 1) * 4ull);
	a.child = wl_alloc_zero(h, 8ull * (nn + 1) * 4);
	a.count = wl_alloc_zero(h, (nn + 1) * 4ull);
	a.start = wl_alloc_zero(h, (nn + 1) * 4ull);
	gh_write(h, a.posx, t.x, nb * 4ull);
	gh_write(h, a.posy, t.y, nb * 4ull);
	gh_write(h, a.posz, t.z, nb * 4ull);
	gh_write(h, a.mass, t.m, nb * 4ull);
	a.velx = wl_upload(h, vx, nb * 4ull);
	a.vely = wl_upload(h, vy, nb * 4ull);
	a.velz = wl_upload(h, vz, nb * 4ull);
	a.accx = wl_alloc_zero(h, nb * 4ull);
	a.accy = wl_alloc_zero(h, nb * 4ull);
	a.accz = wl_alloc_zero(h, nb * 4ull);
	a.sorted = wl_alloc_zero(h, nb * 4ull);
	a.blk = wl_alloc_zero(h, 6ull * k.ctas * 4);
	a.blkcnt = wl_alloc_zero(h, WL_LINE_BYTES);
	a.bottom = wl_alloc_zero(h, WL_LINE_BYTES);
	a.radius = wl_alloc_zero(h, WL_LINE_BYTES);
	err = 0;
	for (unsigned s = 0; s < steps && !err; s++) {
		for (unsigned q = 0; q < 6 && !err; q++) {
			k.name = kernels[q].name;
			k.fn = kernels[q].fn;
			k.smem_bytes = kernels[q].smem;
			err = gh_launch(h, &k);
		}
		/* The host's step (the bodies are the first nb rows of its arrays; its cells
		 * follow, numbered from nb). */
		if (!err && host_step(&t, vx, vy, vz, &visits) != 0)
			err = gh_fail(h,
				      "bh: host reference: tree build failed (coincident bodies?)");
	}
	if (!err)
		err = bh_check(h, &a, &t, vx, vy, vz, steps, k.ctas, visits);
out:
	free(vx);
	free(vy);
	free(vz);
	free(t.child);
	free(t.x);
	free(t.y);
	free(t.z);
	free(t.m);
	free(t.count);
	free(t.sorted);
	return err;
}
