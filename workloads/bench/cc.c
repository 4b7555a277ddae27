/*
 * workloads/bench/cc.c - CUDA Cuts: push-relabel max-flow / min-cut on a 2D grid graph
 * (Vineet & Narayanan, "CUDA cuts: fast graph cuts on the GPU", CVPR workshops 2008).
 *
 * The graph is an image-segmentation graph: a W x H grid, 4-connected, with integer
 * neighbour capacities from the intensity contrast and terminal capacities (source, sink)
 * from the intensity, all generated from the run seed; the part of each node's terminal
 * capacities that goes straight from s to t (min(cs, ct)) is cancelled on the host as the
 * graph-cut codes do. One persistent kernel: each CTA owns tiles of 32 x warps nodes (a warp
 * a row of 32); push and relabel phases alternate, separated by grid barriers:
 *  - push: every active node (excess > 0, height < N) pushes to the sink when its height is 1
 *    and to each neighbour one lower, in the order up, down, left, right; it lowers its own
 *    residual capacity, raises the neighbour's reverse residual with a plain read-modify-write
 *    (no other thread touches that edge in this phase: the reverse push would need the
 *    neighbour to be higher) and adds the flow to the neighbour's incoming excess with an
 *    atomic (neighbours in other tiles are other CTAs);
 *  - relabel: every node takes its incoming excess (atomic exchange), and an active node with
 *    no admissible edge takes 1 + the lowest height among its residual neighbours (0 for the
 *    sink); heights are double-buffered, so the phase reads the previous heights only;
 *  - a global relabel (BFS distances to the sink in the residual graph, by waves of grid
 *    barriers) at the start and every CC_GR iterations; nodes that cannot reach the sink get
 *    height N and stop;
 *  - the run ends when no node is active (a count per iteration, added with atomics).
 * Sharing: the neighbours' heights and residual capacities written by other CTAs in the
 * previous phase are read with plain loads after the barrier's acquire (needs coherence).
 * The algorithm is synchronous, so its result does not depend on timing.
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define CC_TAG	  0x6363000000000000ull
#define CC_WARPS  8	/* warps per CTA: a tile of 32 x 8 nodes */
#define CC_GR	  16	/* iterations between global relabels */
#define CC_ROUNDS 65536 /* grid barrier rounds at most (then: no convergence) */
#define CC_BLOBS  6

enum { D_UP, D_DOWN, D_LEFT, D_RIGHT };

struct cc_args {
	uint64_t res[4]; /* uint32 per node: residual capacity towards each neighbour */
	uint64_t rt;	 /* uint32: residual capacity to the sink */
	uint64_t e;	 /* uint32: excess (owned by the node's thread) */
	uint64_t inflow; /* uint32: excess pushed in during the phase (atomics) */
	uint64_t h[2];	 /* uint32 heights, double-buffered */
	uint64_t counts; /* uint32 per grid round: active nodes, or changes of a BFS wave */
	uint64_t iters;	 /* uint32: push-relabel iterations (written by CTA 0) */
	uint64_t grs;	 /* uint32: global relabels */
	struct wl_grid_barrier bar;
	uint32_t w, h_, n; /* grid width, height, nodes (= the height of "cannot reach t") */
	uint32_t tiles_x, tiles;
};

static int opp(int d)
{
	return d ^ 1;
}

/* Neighbour of node u in direction d, or -1 at the border. */
static int64_t nbr(const struct cc_args *a, uint32_t u, int d)
{
	uint32_t x = u % a->w, y = u / a->w;

	switch (d) {
	case D_UP:
		return y > 0 ? (int64_t)u - a->w : -1;
	case D_DOWN:
		return y + 1 < a->h_ ? (int64_t)u + a->w : -1;
	case D_LEFT:
		return x > 0 ? (int64_t)u - 1 : -1;
	default:
		return x + 1 < a->w ? (int64_t)u + 1 : -1;
	}
}

/* ---- warp side ------------------------------------------------------------------------------ */

struct row {
	uint32_t u0;   /* first node */
	uint32_t mask; /* lanes inside the grid */
	uint64_t at[WARP_LANES];
};

static void row_addrs(const struct row *r, uint64_t base, uint64_t addr[WARP_LANES])
{
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + 4ull * (r->u0 + l);
}

static void ld_row(struct gpu_warp *w, const struct row *r, uint64_t base, uint32_t mask,
		   uint32_t out[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	row_addrs(r, base, addr);
	gw_ld32v(w, addr, mask, out);
}

static void st_row(struct gpu_warp *w, const struct row *r, uint64_t base, uint32_t mask,
		   const uint32_t v[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	if (!mask)
		return;
	row_addrs(r, base, addr);
	gw_st32v(w, addr, mask, v);
}

/* Loads base[nbr(u, d)] for the lanes of mask (their neighbours exist). */
static void ld_nbr(struct gpu_warp *w, const struct cc_args *a, const struct row *r, uint64_t base,
		   int d, uint32_t mask, uint32_t out[WARP_LANES])
{
	uint64_t addr[WARP_LANES] = {0};

	if (!mask)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			addr[l] = base + 4ull * (uint64_t)nbr(a, r->u0 + l, d);
	gw_ld32v(w, addr, mask, out);
}

static bool row_of(const struct cc_args *a, unsigned tile, unsigned warp, struct row *r)
{
	uint32_t tx = tile % a->tiles_x, ty = tile / a->tiles_x;
	uint32_t y = ty * CC_WARPS + warp, x0 = tx * WARP_LANES;

	if (y >= a->h_)
		return false;
	r->u0 = y * a->w + x0;
	r->mask = 0;
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (x0 + l < a->w)
			r->mask |= 1u << l;
	return true;
}

/* Lanes of mask whose v is above min. */
static uint32_t lanes_above(uint32_t mask, const uint32_t v[WARP_LANES], uint32_t min)
{
	uint32_t out = 0;

	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((mask >> l & 1) && v[l] > min)
			out |= 1u << l;
	return out;
}

/* The residual edges towards direction d of the lanes of cand: returns false (and loads nothing)
 * when no lane of cand has a neighbour there; otherwise loads the residual capacities of those
 * that have one into res and, for the lanes with a positive one (*can), the neighbours' heights
 * into hv. */
static bool residual_nbrs(struct gpu_warp *w, const struct cc_args *a, const struct row *r,
			  unsigned cur, int d, uint32_t cand, uint32_t *can,
			  uint32_t res[WARP_LANES], uint32_t hv[WARP_LANES])
{
	uint32_t m = 0;

	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((cand >> l & 1) && nbr(a, r->u0 + l, d) >= 0)
			m |= 1u << l;
	if (!m)
		return false;
	ld_row(w, r, a->res[d], m, res);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((m >> l & 1) && res[l] == 0)
			m &= ~(1u << l);
	ld_nbr(w, a, r, a->h[cur], d, m, hv);
	*can = m;
	return true;
}

static void push_row(struct gpu_warp *w, const struct cc_args *a, const struct row *r, unsigned cur)
{
	uint32_t e[WARP_LANES] = {0}, hu[WARP_LANES] = {0}, rt[WARP_LANES] = {0};
	uint32_t res[WARP_LANES] = {0}, hv[WARP_LANES] = {0}, rv[WARP_LANES] = {0};
	uint32_t act = 0, sink = 0, changed = 0;
	uint64_t addr[WARP_LANES] = {0}, flow[WARP_LANES] = {0};

	ld_row(w, r, a->e, r->mask, e);
	ld_row(w, r, a->h[cur], r->mask, hu);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((r->mask >> l & 1) && e[l] > 0 && hu[l] < a->n)
			act |= 1u << l;
	gw_compute(w, 6); /* active test */
	if (!act)
		return;
	ld_row(w, r, a->rt, act, rt);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		if ((act >> l & 1) && hu[l] == 1 && rt[l] > 0) {
			uint32_t d = e[l] < rt[l] ? e[l] : rt[l];

			rt[l] -= d;
			e[l] -= d;
			sink |= 1u << l;
		}
	}
	gw_compute(w, 6); /* compare, min, two subtractions */
	st_row(w, r, a->rt, sink, rt);
	changed = sink;
	for (int d = 0; d < 4; d++) {
		uint32_t can = 0, adm = 0;

		if (!residual_nbrs(w, a, r, cur, d, lanes_above(act, e, 0), &can, res, hv))
			continue;
		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((can >> l & 1) && hu[l] == hv[l] + 1)
				adm |= 1u << l;
		gw_compute(w, 8); /* border test, neighbour address, compares */
		if (!adm)
			continue;
		ld_nbr(w, a, r, a->res[opp(d)], d, adm, rv);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			uint32_t f;

			if (!(adm >> l & 1))
				continue;
			f = e[l] < res[l] ? e[l] : res[l];
			res[l] -= f;
			rv[l] += f;
			e[l] -= f;
			flow[l] = f;
			addr[l] = a->inflow + 4ull * (uint64_t)nbr(a, r->u0 + l, d);
		}
		gw_compute(w, 6); /* min, three adds */
		st_row(w, r, a->res[d], adm, res);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (adm >> l & 1)
				addr[l] = a->res[opp(d)] + 4ull * (uint64_t)nbr(a, r->u0 + l, d);
		gw_st32v(w, addr, adm, rv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (adm >> l & 1)
				addr[l] = a->inflow + 4ull * (uint64_t)nbr(a, r->u0 + l, d);
		gw_atomv(w, MEM_ATOM_ADD, addr, adm, 4, flow, NULL, NULL, MEM_SCOPE_DEVICE,
			 MEM_ORDER_RELAXED);
		changed |= adm;
	}
	st_row(w, r, a->e, changed, e);
}

/* Returns the number of nodes of the row active after the relabel. */
static unsigned relabel_row(struct gpu_warp *w, const struct cc_args *a, const struct row *r,
			    unsigned cur)
{
	uint32_t e[WARP_LANES] = {0}, hu[WARP_LANES] = {0}, rt[WARP_LANES] = {0};
	uint32_t res[WARP_LANES] = {0}, hv[WARP_LANES] = {0}, hn[WARP_LANES] = {0};
	uint32_t in32[WARP_LANES] = {0}, min[WARP_LANES], act = 0, got = 0;
	uint64_t addr[WARP_LANES], zero[WARP_LANES] = {0}, in[WARP_LANES] = {0};
	unsigned active = 0;

	row_addrs(r, a->inflow, addr);
	gw_atomv(w, MEM_ATOM_EXCH, addr, r->mask, 4, zero, NULL, in, MEM_SCOPE_DEVICE,
		 MEM_ORDER_RELAXED);
	ld_row(w, r, a->e, r->mask, e);
	ld_row(w, r, a->h[cur], r->mask, hu);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		in32[l] = (uint32_t)in[l];
		if (in32[l]) {
			e[l] += in32[l];
			got |= 1u << l;
		}
		hn[l] = hu[l];
		min[l] = a->n;
		if ((r->mask >> l & 1) && e[l] > 0 && hu[l] < a->n)
			act |= 1u << l;
	}
	gw_compute(w, 8); /* add, active test */
	st_row(w, r, a->e, got, e);
	if (act) {
		ld_row(w, r, a->rt, act, rt);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((act >> l & 1) && rt[l] > 0)
				min[l] = 0;
		for (int d = 0; d < 4; d++) {
			uint32_t can = 0;

			if (!residual_nbrs(w, a, r, cur, d, act, &can, res, hv))
				continue;
			for (unsigned l = 0; l < WARP_LANES; l++)
				if ((can >> l & 1) && hv[l] < min[l])
					min[l] = hv[l];
			gw_compute(w, 8); /* border test, address, compare, min */
		}
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (!(act >> l & 1))
				continue;
			/* No admissible edge (every residual neighbour at least as high): relabel. */
			if (min[l] + 1 > hu[l])
				hn[l] = min[l] + 1 < a->n ? min[l] + 1 : a->n;
			if (hn[l] < a->n)
				active++;
		}
		gw_compute(w, 6);
	}
	st_row(w, r, a->h[1 - cur], r->mask, hn);
	return active;
}

/* One wave of the global relabel: d'(u) = min(d(u), 1 + d(v) over residual edges u -> v).
 * Returns the number of nodes of the row that changed. */
static unsigned wave_row(struct gpu_warp *w, const struct cc_args *a, const struct row *r,
			 unsigned cur, bool init)
{
	uint32_t rt[WARP_LANES] = {0}, dn[WARP_LANES] = {0}, res[WARP_LANES] = {0};
	uint32_t dv[WARP_LANES] = {0};
	unsigned changed = 0;

	if (init) {
		ld_row(w, r, a->rt, r->mask, rt);
		for (unsigned l = 0; l < WARP_LANES; l++)
			dn[l] = rt[l] > 0 ? 1 : a->n;
		gw_compute(w, 3);
		st_row(w, r, a->h[cur], r->mask, dn);
		return 1;
	}
	ld_row(w, r, a->h[cur], r->mask, dn);
	for (int d = 0; d < 4; d++) {
		uint32_t can = 0;

		if (!residual_nbrs(w, a, r, cur, d, lanes_above(r->mask, dn, 1), &can, res, dv))
			continue;
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if ((can >> l & 1) && dv[l] + 1 < dn[l]) {
				dn[l] = dv[l] + 1;
				changed++;
			}
		}
		gw_compute(w, 8);
	}
	st_row(w, r, a->h[1 - cur], r->mask, dn);
	return changed;
}

/* Sums a per-CTA value into counts[round] (warp 0 after the CTA's warps stored theirs in the
 * scratchpad). */
static void cta_count(struct gpu_warp *w, const struct cc_args *a, unsigned round, unsigned mine)
{
	uint32_t *sm = gw_smem(w);
	unsigned sum = 0;

	sm[gw_warp(w)] = mine;
	gw_smem_access(w);
	gw_barrier(w);
	if (gw_warp(w) != 0)
		return;
	gw_smem_access(w);
	for (unsigned i = 0; i < gw_warps_per_cta(w); i++)
		sum += sm[i];
	gw_compute(w, 8);
	if (sum)
		gw_atom(w, MEM_ATOM_ADD, a->counts + 4ull * round, 4, sum, 0, MEM_SCOPE_DEVICE,
			MEM_ORDER_RELAXED);
}

static void cc_kernel(struct gpu_warp *w)
{
	const struct cc_args *a = gw_args(w);
	unsigned round = 0, cur = 0, wid = gw_warp(w), iter = 0, grs = 0;
	struct row r;

	for (;;) {
		/* Global relabel: waves until no distance changes. */
		if (iter % CC_GR == 0) {
			bool init = true;

			for (;;) {
				unsigned mine = 0;

				for (unsigned t = gw_cta(w); t < a->tiles; t += gw_ctas(w))
					if (row_of(a, t, wid, &r))
						mine += wave_row(w, a, &r, cur, init);
				if (!init)
					cur = 1 - cur;
				cta_count(w, a, round, mine);
				if (wl_grid_sync(w, &a->bar, round) != 0)
					return;
				if (!init && wl_atomic_read32(w, a->counts + 4ull * round) == 0)
					break;
				init = false;
				if (++round >= CC_ROUNDS - 2)
					goto no_convergence;
			}
			round++;
			grs++;
		}
		for (unsigned t = gw_cta(w); t < a->tiles; t += gw_ctas(w))
			if (row_of(a, t, wid, &r))
				push_row(w, a, &r, cur);
		if (wl_grid_sync(w, &a->bar, round++) != 0)
			return;
		{
			unsigned mine = 0;

			for (unsigned t = gw_cta(w); t < a->tiles; t += gw_ctas(w))
				if (row_of(a, t, wid, &r))
					mine += relabel_row(w, a, &r, cur);
			cur = 1 - cur;
			cta_count(w, a, round, mine);
		}
		if (wl_grid_sync(w, &a->bar, round) != 0)
			return;
		iter++;
		if (wl_atomic_read32(w, a->counts + 4ull * round) == 0)
			break;
		if (++round >= CC_ROUNDS - 2)
			goto no_convergence;
	}
	if (gw_cta(w) == 0 && wid == 0) {
		gw_st32(w, a->iters, iter);
		gw_st32(w, a->grs, grs);
	}
	return;
no_convergence:
	gw_fail(w, "cc: no convergence: nodes still active after %u iterations (%u grid rounds)",
		iter, round);
}

/* ---- host side ------------------------------------------------------------------------------ */

struct graph {
	uint32_t w, h, n;
	uint32_t *cs, *ct, *cap[4]; /* original capacities */
};

/* Image-like capacities: blobs of intensity plus noise; data terms from the intensity, the
 * smoothness term from the contrast (exp(-(Ip - Iq)^2 / 2 sigma^2)). */
static void gen_graph(uint64_t seed, struct graph *g, double *img)
{
	double bx[CC_BLOBS], by[CC_BLOBS], br[CC_BLOBS];

	for (unsigned b = 0; b < CC_BLOBS; b++) {
		bx[b] = wl_unit(seed, 1, b) * g->w;
		by[b] = wl_unit(seed, 2, b) * g->h;
		br[b] = (0.08 + 0.2 * wl_unit(seed, 3, b)) * (g->w < g->h ? g->w : g->h);
	}
	for (uint32_t y = 0; y < g->h; y++)
		for (uint32_t x = 0; x < g->w; x++) {
			uint32_t u = y * g->w + x;
			double v = 0.25;

			for (unsigned b = 0; b < CC_BLOBS; b++) {
				double dx = x - bx[b], dy = y - by[b];

				if (dx * dx + dy * dy < br[b] * br[b])
					v = 0.75;
			}
			v += 0.35 * (wl_unit(seed, 4, u) - 0.5);
			img[u] = v < 0 ? 0 : v > 1 ? 1 : v;
		}
	for (uint32_t u = 0; u < g->n; u++) {
		g->cs[u] = (uint32_t)lround(24 * img[u] + 4 * wl_unit(seed, 5, u));
		g->ct[u] = (uint32_t)lround(24 * (1 - img[u]) + 4 * wl_unit(seed, 6, u));
	}
	for (uint32_t u = 0; u < g->n; u++)
		for (int d = 0; d < 4; d++) {
			uint32_t x = u % g->w, y = u / g->w;
			int64_t v = d == D_UP	  ? (y ? (int64_t)u - g->w : -1)
				    : d == D_DOWN ? (y + 1 < g->h ? (int64_t)u + g->w : -1)
				    : d == D_LEFT ? (x ? (int64_t)u - 1 : -1)
						  : (x + 1 < g->w ? (int64_t)u + 1 : -1);
			double diff;

			if (v < 0) {
				g->cap[d][u] = 0;
				continue;
			}
			diff = img[u] - img[v];
			g->cap[d][u] =
			    (uint32_t)lround(1 + 10 * exp(-diff * diff / (2 * 0.1 * 0.1)));
		}
}

/* Dinic's max-flow on the same graph (s = n, t = n + 1). */
struct dinic {
	uint32_t nv, ne;
	uint32_t *head, *next, *to, *it, *level, *queue;
	int64_t *cap;
};

static void dn_edge(struct dinic *d, uint32_t u, uint32_t v, int64_t c, int64_t rc)
{
	d->to[d->ne] = v;
	d->cap[d->ne] = c;
	d->next[d->ne] = d->head[u];
	d->head[u] = d->ne++;
	d->to[d->ne] = u;
	d->cap[d->ne] = rc;
	d->next[d->ne] = d->head[v];
	d->head[v] = d->ne++;
}

static bool dn_bfs(struct dinic *d, uint32_t s, uint32_t t)
{
	uint32_t qh = 0, qt = 0;

	for (uint32_t i = 0; i < d->nv; i++)
		d->level[i] = UINT32_MAX;
	d->level[s] = 0;
	d->queue[qt++] = s;
	while (qh < qt) {
		uint32_t u = d->queue[qh++];

		for (uint32_t e = d->head[u]; e != UINT32_MAX; e = d->next[e])
			if (d->cap[e] > 0 && d->level[d->to[e]] == UINT32_MAX) {
				d->level[d->to[e]] = d->level[u] + 1;
				d->queue[qt++] = d->to[e];
			}
	}
	return d->level[t] != UINT32_MAX;
}

static int64_t dn_dfs(struct dinic *d, uint32_t u, uint32_t t, int64_t f)
{
	if (u == t)
		return f;
	for (; d->it[u] != UINT32_MAX; d->it[u] = d->next[d->it[u]]) {
		uint32_t e = d->it[u], v = d->to[e];

		if (d->cap[e] > 0 && d->level[v] == d->level[u] + 1) {
			int64_t got = dn_dfs(d, v, t, f < d->cap[e] ? f : d->cap[e]);

			if (got > 0) {
				d->cap[e] -= got;
				d->cap[e ^ 1] += got;
				return got;
			}
		}
	}
	return 0;
}

static int64_t host_maxflow(const struct graph *g, int *err)
{
	struct dinic d = {.nv = g->n + 2};
	uint32_t maxe = 2 * (2 * g->n + 2 * g->n);
	int64_t flow = 0;

	d.head = malloc(d.nv * sizeof(uint32_t));
	d.it = malloc(d.nv * sizeof(uint32_t));
	d.level = malloc(d.nv * sizeof(uint32_t));
	d.queue = malloc(d.nv * sizeof(uint32_t));
	d.next = malloc(maxe * sizeof(uint32_t));
	d.to = malloc(maxe * sizeof(uint32_t));
	d.cap = malloc(maxe * sizeof(int64_t));
	*err = 0;
	if (!d.head || !d.it || !d.level || !d.queue || !d.next || !d.to || !d.cap) {
		*err = -CS_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < d.nv; i++)
		d.head[i] = UINT32_MAX;
	for (uint32_t u = 0; u < g->n; u++) {
		dn_edge(&d, g->n, u, g->cs[u], 0);
		dn_edge(&d, u, g->n + 1, g->ct[u], 0);
		if (u % g->w + 1 < g->w)
			dn_edge(&d, u, u + 1, g->cap[D_RIGHT][u], g->cap[D_LEFT][u + 1]);
		if (u / g->w + 1 < g->h)
			dn_edge(&d, u, u + g->w, g->cap[D_DOWN][u], g->cap[D_UP][u + g->w]);
	}
	while (dn_bfs(&d, g->n, g->n + 1)) {
		int64_t f;

		memcpy(d.it, d.head, d.nv * sizeof(uint32_t));
		while ((f = dn_dfs(&d, g->n, g->n + 1, INT64_MAX)) > 0)
			flow += f;
	}
out:
	free(d.head);
	free(d.it);
	free(d.level);
	free(d.queue);
	free(d.next);
	free(d.to);
	free(d.cap);
	return flow;
}

struct cc_state {
	uint32_t *res[4], *rt, *e, *cs, *ct; /* device results; cs, ct after cancellation */
	uint8_t *sink_side;
	uint32_t *queue;
};

/* Capacity, conservation, flow value, cut. */
static int cc_check(struct gpu_host *h, const struct cc_args *a, const struct graph *g,
		    struct cc_state *s, int64_t base, int64_t want, unsigned ctas)
{
	int64_t flow = base, cut = 0;
	uint32_t qh = 0, qt = 0, n = g->n;

	for (int d = 0; d < 4; d++)
		gh_read(h, a->res[d], s->res[d], n * 4ull);
	gh_read(h, a->rt, s->rt, n * 4ull);
	gh_read(h, a->e, s->e, n * 4ull);
	for (uint32_t u = 0; u < n; u++) {
		int64_t out = (int64_t)s->ct[u] - s->rt[u];

		if ((int32_t)s->rt[u] < 0 || s->rt[u] > s->ct[u])
			return gh_fail(h,
				       "cc: node %" PRIu32 ": sink residual %" PRId32
				       " outside [0, %" PRIu32 "]",
				       u, (int32_t)s->rt[u], s->ct[u]);
		for (int d = 0; d < 4; d++) {
			int64_t v = nbr(a, u, d);

			if (v < 0)
				continue;
			if ((int32_t)s->res[d][u] < 0 ||
			    (uint64_t)s->res[d][u] + s->res[opp(d)][v] !=
				(uint64_t)g->cap[d][u] + g->cap[opp(d)][v])
				return gh_fail(
				    h,
				    "cc: edge %" PRIu32 " -> %" PRId64 ": residuals %" PRId32
				    " + %" PRId32 " != capacities %" PRIu32 " + %" PRIu32,
				    u, v, (int32_t)s->res[d][u], (int32_t)s->res[opp(d)][v],
				    g->cap[d][u], g->cap[opp(d)][v]);
			out += (int64_t)g->cap[d][u] - s->res[d][u];
		}
		if ((int32_t)s->e[u] < 0 || (int64_t)s->cs[u] - out != (int64_t)s->e[u])
			return gh_fail(h,
				       "cc: node %" PRIu32 ": conservation: excess %" PRId32
				       ", in - out = %" PRId64,
				       u, (int32_t)s->e[u], (int64_t)s->cs[u] - out);
		flow += (int64_t)s->ct[u] - s->rt[u];
	}
	if (flow != want)
		return gh_fail(h, "cc: flow value %" PRId64 ", want %" PRId64 " (host Dinic)", flow,
			       want);
	/* Sink side: the nodes that reach t in the residual graph (BFS backwards from t). */
	memset(s->sink_side, 0, n);
	for (uint32_t u = 0; u < n; u++)
		if (s->rt[u] > 0) {
			s->sink_side[u] = 1;
			s->queue[qt++] = u;
		}
	while (qh < qt) {
		uint32_t v = s->queue[qh++];

		for (int d = 0; d < 4; d++) {
			int64_t u = nbr(a, v, d); /* u -> v is u's direction opp(d) */

			if (u >= 0 && !s->sink_side[u] && s->res[opp(d)][u] > 0) {
				s->sink_side[u] = 1;
				s->queue[qt++] = (uint32_t)u;
			}
		}
	}
	for (uint32_t u = 0; u < n; u++) {
		if (s->sink_side[u]) {
			if (s->e[u] > 0)
				return gh_fail(h,
					       "cc: node %" PRIu32 " keeps excess %" PRIu32
					       " but still reaches the sink: not a maximum preflow",
					       u, s->e[u]);
			cut += g->cs[u];
			continue;
		}
		cut += g->ct[u];
		for (int d = 0; d < 4; d++) {
			int64_t v = nbr(a, u, d);

			if (v >= 0 && s->sink_side[v])
				cut += g->cap[d][u];
		}
	}
	if (cut != want)
		return gh_fail(h, "cc: the cut's capacity %" PRId64 " != the flow %" PRId64, cut,
			       want);
	gh_note(h,
		"cc: %" PRIu32 " x %" PRIu32 " grid, %u CTAs: %" PRIu32 " iterations, %" PRIu32
		" global relabels; flow %" PRId64 " = host Dinic, capacity and conservation "
		"constraints, min cut (%" PRIu32 " nodes on the source side) verified",
		g->w, g->h, ctas, gh_read32(h, a->iters), gh_read32(h, a->grs), flow, n - qt);
	return 0;
}

int bench_cc_main(struct gpu_host *h)
{
	struct cc_args a = {0};
	struct gpu_kernel k = {.name = "cc_pushrelabel",
			       .warps_per_cta = CC_WARPS,
			       .regs_per_thread = 32,
			       .smem_bytes = 4 * CC_WARPS,
			       .fn = cc_kernel,
			       .args = &a};
	struct graph g = {0};
	struct cc_state s = {0};
	uint64_t seed = gh_seed(h) ^ CC_TAG;
	double *img = NULL;
	int64_t base = 0, want;
	uint32_t *tmp = NULL;
	int err = -CS_ENOMEM;

	g.w = (uint32_t)wl_by_size(h, 32, 64, 256);
	g.h = (uint32_t)wl_by_size(h, 16, 64, 192);
	g.n = g.w * g.h;
	a.w = g.w;
	a.h_ = g.h;
	a.n = g.n;
	a.tiles_x = (g.w + WARP_LANES - 1) / WARP_LANES;
	a.tiles = a.tiles_x * ((g.h + CC_WARPS - 1) / CC_WARPS);
	k.ctas = a.tiles < wl_resident_ctas(h, &k) ? a.tiles : wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	img = malloc(g.n * sizeof(*img));
	g.cs = malloc(g.n * 4ull);
	g.ct = malloc(g.n * 4ull);
	s.cs = malloc(g.n * 4ull);
	s.ct = malloc(g.n * 4ull);
	s.rt = malloc(g.n * 4ull);
	s.e = malloc(g.n * 4ull);
	s.sink_side = malloc(g.n);
	s.queue = malloc(g.n * 4ull);
	tmp = malloc(g.n * 4ull);
	for (int d = 0; d < 4; d++) {
		g.cap[d] = malloc(g.n * 4ull);
		s.res[d] = malloc(g.n * 4ull);
	}
	if (!img || !g.cs || !g.ct || !s.cs || !s.ct || !s.rt || !s.e || !s.sink_side || !s.queue ||
	    !tmp || !g.cap[0] || !g.cap[1] || !g.cap[2] || !g.cap[3] || !s.res[0] || !s.res[1] ||
	    !s.res[2] || !s.res[3])
		goto out;
	gen_graph(seed, &g, img);
	for (uint32_t u = 0; u < g.n; u++) {
		uint32_t m = g.cs[u] < g.ct[u] ? g.cs[u] : g.ct[u];

		base += m;
		s.cs[u] = g.cs[u] - m;
		s.ct[u] = g.ct[u] - m;
	}
	for (int d = 0; d < 4; d++)
		a.res[d] = wl_upload(h, g.cap[d], g.n * 4ull);
	a.rt = wl_upload(h, s.ct, g.n * 4ull);
	a.e = wl_upload(h, s.cs, g.n * 4ull);
	a.inflow = wl_alloc_zero(h, g.n * 4ull);
	a.h[0] = wl_alloc_zero(h, g.n * 4ull);
	a.h[1] = wl_alloc_zero(h, g.n * 4ull);
	a.counts = wl_alloc_zero(h, CC_ROUNDS * 4ull);
	a.iters = wl_alloc_zero(h, WL_LINE_BYTES);
	a.grs = wl_alloc_zero(h, WL_LINE_BYTES);
	wl_grid_barrier_init(h, &a.bar, "cc");
	want = host_maxflow(&g, &err);
	if (!err)
		err = gh_launch(h, &k);
	if (!err)
		err = cc_check(h, &a, &g, &s, base, want, k.ctas);
out:
	free(img);
	free(g.cs);
	free(g.ct);
	free(s.cs);
	free(s.ct);
	free(s.rt);
	free(s.e);
	free(s.sink_side);
	free(s.queue);
	free(tmp);
	for (int d = 0; d < 4; d++) {
		free(g.cap[d]);
		free(s.res[d]);
	}
	return err;
}
