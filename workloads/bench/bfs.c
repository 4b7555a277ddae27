/*
 * workloads/bench/bfs.c - BFS: level-synchronous breadth-first search after Harish & Narayanan
 * ("Accelerating large graph algorithms on the GPU using CUDA", HiPC 2007), as the coherence
 * papers run it: one persistent kernel with a grid barrier between the phases of a level.
 *
 * The graph is an undirected CSR graph generated from the seed: node i > 0 hangs off a random
 * earlier node within BFS_WINDOW (a spanning tree, so every node is reachable from node 0) and
 * has 1-3 more edges (average degree 6, as the paper's random graphs), most to nodes within
 * +-BFS_WINDOW, one in BFS_FAR_ONE to any node.
 *
 * The paper's arrays, one uint32 per node: mask (frontier), updating, visited, cost. Thread i
 * handles node i (warp g of the grid the nodes 32 g .. 32 g + 31, then the grid stride):
 *
 *   phase 1: if mask[i]: mask[i] = 0; for each neighbour j: if !visited[j]:
 *            cost[j] = cost[i] + 1; updating[j] = 1
 *   grid barrier
 *   phase 2: if updating[i]: mask[i] = visited[i] = 1; updating[i] = 0; done[level] = 1
 *   grid barrier; if !done[level]: stop
 *
 * (the paper's two kernels and its host loop on the "over" flag, with one flag word per level so
 * it never needs resetting). Sharing: visited[j] and cost[i] were written by other CTAs in the
 * previous phase, done[level] by any CTA; all read with plain loads. Writers fence (release)
 * before the barrier, which ends with an acquire fence. Without coherence the barrier's plain
 * spin, a stale frontier or a stale done flag shows up as a livelock report, a warp that stops
 * early (the rest then wait at the barrier: livelock report), or wrong levels (host check).
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/wl_util.h"

#define BFS_TAG	    0x6266730000000000ull
#define BFS_WINDOW  48 /* locality of the tree and the local edges */
#define BFS_FAR_ONE 8  /* one extra edge in 8 goes anywhere */
#define BFS_WARPS   8  /* warps per CTA */
#define BFS_NONE    0xffffffffu

struct bfs_args {
	uint64_t row;	   /* n + 1 uint32: CSR offsets */
	uint64_t col;	   /* m uint32: neighbours */
	uint64_t mask;	   /* n uint32: frontier */
	uint64_t updating; /* n uint32 */
	uint64_t visited;  /* n uint32 */
	uint64_t cost;	   /* n uint32: level, BFS_NONE until reached */
	uint64_t done;	   /* max_levels uint32: 1 when level l reached a new node */
	struct wl_grid_barrier bar;
	unsigned n, max_levels;
};

struct bfs_graph {
	uint32_t *row, *col;
	unsigned n, m;
};

/* ---- the graph ------------------------------------------------------------------------------ */

static int bfs_make_graph(uint64_t seed, unsigned n, struct bfs_graph *g)
{
	uint64_t st = seed;
	uint32_t *src = NULL, *dst = NULL, *fill = NULL;
	unsigned cap = n * 4, e = 0;
	int err = -CS_ENOMEM;

	*g = (struct bfs_graph){.n = n};
	src = malloc((size_t)cap * sizeof(*src));
	dst = malloc((size_t)cap * sizeof(*dst));
	g->row = calloc((size_t)n + 1, sizeof(*g->row));
	if (!src || !dst || !g->row)
		goto out;
	for (unsigned i = 1; i < n; i++) {
		unsigned lo = i > BFS_WINDOW ? i - BFS_WINDOW : 0;
		unsigned extra = 1 + (unsigned)wl_below(&st, 3);

		src[e] = i;
		dst[e++] = lo + (unsigned)wl_below(&st, i - lo);
		for (unsigned k = 0; k < extra; k++) {
			uint32_t j;

			if (wl_below(&st, BFS_FAR_ONE) == 0)
				j = (uint32_t)wl_below(&st, n);
			else
				j = (uint32_t)((i + n - BFS_WINDOW +
						wl_below(&st, 2 * BFS_WINDOW)) %
					       n);
			if (j == i)
				continue;
			src[e] = i;
			dst[e++] = j;
		}
	}
	/* Undirected: both directions. Counting sort by source into CSR. */
	for (unsigned k = 0; k < e; k++) {
		g->row[src[k] + 1]++;
		g->row[dst[k] + 1]++;
	}
	for (unsigned i = 0; i < n; i++)
		g->row[i + 1] += g->row[i];
	g->m = g->row[n];
	g->col = malloc((size_t)g->m * sizeof(*g->col));
	fill = malloc((size_t)n * sizeof(*fill));
	if (!g->col || !fill)
		goto out;
	for (unsigned i = 0; i < n; i++)
		fill[i] = g->row[i];
	for (unsigned k = 0; k < e; k++) {
		g->col[fill[src[k]]++] = dst[k];
		g->col[fill[dst[k]]++] = src[k];
	}
	err = 0;
out:
	free(src);
	free(dst);
	free(fill);
	return err;
}

static void bfs_free_graph(struct bfs_graph *g)
{
	free(g->row);
	free(g->col);
}

/* Host BFS from node 0: level[] (BFS_NONE if unreached); returns the number of levels. */
static int bfs_reference(const struct bfs_graph *g, uint32_t *level, unsigned *levels)
{
	uint32_t *queue = malloc((size_t)g->n * sizeof(*queue));
	unsigned head = 0, tail = 0;

	if (!queue)
		return -CS_ENOMEM;
	for (unsigned i = 0; i < g->n; i++)
		level[i] = BFS_NONE;
	level[0] = 0;
	queue[tail++] = 0;
	*levels = 1;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t k = g->row[u]; k < g->row[u + 1]; k++) {
			uint32_t v = g->col[k];

			if (level[v] != BFS_NONE)
				continue;
			level[v] = level[u] + 1;
			if (level[v] + 1 > *levels)
				*levels = level[v] + 1;
			queue[tail++] = v;
		}
	}
	free(queue);
	return 0;
}

/* ---- the kernel ----------------------------------------------------------------------------- */

/* Phase 1 (the paper's kernel 1) for the 32 nodes from first. */
static void bfs_expand(struct gpu_warp *w, const struct bfs_args *a, uint64_t first)
{
	uint64_t addr[WARP_LANES], addr2[WARP_LANES];
	uint32_t m[WARP_LANES], start[WARP_LANES], end[WARP_LANES], cost[WARP_LANES];
	uint32_t nb[WARP_LANES], vis[WARP_LANES], val[WARP_LANES];
	uint32_t live = wl_lane_addrs(addr, a->mask, first, a->n, 4), front = 0;
	uint32_t maxdeg = 0;

	gw_ld32v(w, addr, live, m);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((live >> l & 1) && m[l])
			front |= 1u << l;
	/* ~6: index, bound test, address, the mask test and the branch. */
	gw_compute(w, 6);
	if (!front)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		val[l] = 0;
	gw_st32v(w, addr, front, val);
	wl_lane_addrs(addr, a->cost, first, a->n, 4);
	gw_ld32v(w, addr, front, cost);
	wl_lane_addrs(addr, a->row, first, a->n, 4);
	gw_ld32v(w, addr, front, start);
	wl_lane_addrs(addr, a->row, first + 1, a->n + 1, 4);
	gw_ld32v(w, addr, front, end);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((front >> l & 1) && end[l] - start[l] > maxdeg)
			maxdeg = end[l] - start[l];
	for (uint32_t k = 0; k < maxdeg; k++) {
		uint32_t act = 0, upd = 0;

		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((front >> l & 1) && start[l] + k < end[l]) {
				act |= 1u << l;
				addr[l] = a->col + 4ull * (start[l] + k);
			}
		gw_ld32v(w, addr, act, nb);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (act >> l & 1)
				addr[l] = a->visited + 4ull * nb[l];
		gw_ld32v(w, addr, act, vis);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((act >> l & 1) && !vis[l]) {
				upd |= 1u << l;
				addr[l] = a->cost + 4ull * nb[l];
				addr2[l] = a->updating + 4ull * nb[l];
				val[l] = cost[l] + 1;
			}
		/* ~10: loop test, edge index and two addresses, the visited test, cost + 1. */
		gw_compute(w, 10);
		if (!upd)
			continue;
		gw_st32v(w, addr, upd, val);
		for (unsigned l = 0; l < WARP_LANES; l++)
			nb[l] = 1;
		gw_st32v(w, addr2, upd, nb);
	}
}

/* Phase 2 (the paper's kernel 2) for the 32 nodes from first; returns true if any was new. */
static bool bfs_update(struct gpu_warp *w, const struct bfs_args *a, uint64_t first)
{
	uint64_t addr[WARP_LANES];
	uint32_t u[WARP_LANES], val[WARP_LANES];
	uint32_t live = wl_lane_addrs(addr, a->updating, first, a->n, 4), upd = 0;

	gw_ld32v(w, addr, live, u);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((live >> l & 1) && u[l])
			upd |= 1u << l;
	/* ~6: index, bound test, address, the test and the branch. */
	gw_compute(w, 6);
	if (!upd)
		return false;
	for (unsigned l = 0; l < WARP_LANES; l++)
		val[l] = 0;
	gw_st32v(w, addr, upd, val);
	for (unsigned l = 0; l < WARP_LANES; l++)
		val[l] = 1;
	wl_lane_addrs(addr, a->mask, first, a->n, 4);
	gw_st32v(w, addr, upd, val);
	wl_lane_addrs(addr, a->visited, first, a->n, 4);
	gw_st32v(w, addr, upd, val);
	return true;
}

static void bfs_kernel(struct gpu_warp *w)
{
	const struct bfs_args *a = gw_args(w);
	uint64_t stride = wl_grid_warps(w) * WARP_LANES;

	for (unsigned level = 0;; level++) {
		bool any = false;

		if (level >= a->max_levels) {
			gw_fail(w,
				"bfs: CTA %u warp %u (SM %u) still finds new nodes after %u levels "
				"(the graph has fewer: a stale frontier or flag?)",
				gw_cta(w), gw_warp(w), gw_sm(w), level);
			return;
		}
		for (uint64_t f = gw_gwid(w) * WARP_LANES; f < a->n; f += stride)
			bfs_expand(w, a, f);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		if (wl_grid_sync(w, &a->bar, 2 * level) != 0)
			return;
		for (uint64_t f = gw_gwid(w) * WARP_LANES; f < a->n; f += stride)
			any |= bfs_update(w, a, f);
		if (any)
			gw_st32(w, a->done + 4ull * level, 1);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		if (wl_grid_sync(w, &a->bar, 2 * level + 1) != 0)
			return;
		if (!gw_ld32(w, a->done + 4ull * level))
			return;
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

static int bfs_check(struct gpu_host *h, const struct bfs_args *a, const uint32_t *want)
{
	uint32_t *got = malloc((size_t)a->n * sizeof(*got));
	uint64_t bad = 0, first = 0;

	if (!got)
		return -CS_ENOMEM;
	gh_read(h, a->cost, got, (size_t)a->n * sizeof(*got));
	for (unsigned i = 0; i < a->n; i++)
		if (got[i] != want[i] && bad++ == 0)
			first = i;
	if (bad) {
		uint32_t g = got[first];

		free(got);
		return gh_fail(h,
			       "bfs: node %" PRIu64 " has cost %" PRId32 ", want level %" PRIu32
			       "; %" PRIu64 " of %u nodes wrong (a frontier flag or cost read "
			       "stale?)",
			       first, (int32_t)g, want[first], bad, a->n);
	}
	free(got);
	return 0;
}

int bench_bfs_main(struct gpu_host *h)
{
	struct bfs_args a = {0};
	struct gpu_kernel k = {.name = "bfs",
			       .warps_per_cta = BFS_WARPS,
			       .regs_per_thread = 20,
			       .fn = bfs_kernel,
			       .args = &a};
	struct bfs_graph g;
	uint32_t *level = NULL, *init = NULL;
	unsigned levels = 0, resident, chunks;
	int err;

	a.n = (unsigned)wl_by_size(h, 2048, 16384, 81920);
	err = bfs_make_graph(gh_seed(h) ^ BFS_TAG, a.n, &g);
	level = malloc((size_t)a.n * sizeof(*level));
	init = malloc((size_t)a.n * sizeof(*init));
	if (err || !level || !init) {
		err = -CS_ENOMEM;
		goto out;
	}
	err = bfs_reference(&g, level, &levels);
	if (err)
		goto out;
	a.max_levels = levels; /* level levels - 1 finds nothing new and ends the loop */
	resident = wl_resident_ctas(h, &k);
	chunks = (a.n + WARP_LANES * BFS_WARPS - 1) / (WARP_LANES * BFS_WARPS);
	if (resident == 0) {
		err = gh_no_fit(h, &k);
		goto out;
	}
	k.ctas = chunks < resident ? chunks : resident;

	a.row = wl_upload(h, g.row, ((size_t)a.n + 1) * sizeof(*g.row));
	a.col = wl_upload(h, g.col, (size_t)g.m * sizeof(*g.col));
	a.mask = wl_alloc_zero(h, (size_t)a.n * 4);
	a.updating = wl_alloc_zero(h, (size_t)a.n * 4);
	a.visited = wl_alloc_zero(h, (size_t)a.n * 4);
	a.done = wl_alloc_zero(h, (size_t)a.max_levels * 4);
	for (unsigned i = 0; i < a.n; i++)
		init[i] = i == 0 ? 0 : BFS_NONE;
	a.cost = wl_upload(h, init, (size_t)a.n * 4);
	gh_write32(h, a.mask, 1);
	gh_write32(h, a.visited, 1);
	err = wl_grid_barrier_init(h, &a.bar, "bfs");
	if (!err)
		err = gh_launch(h, &k);
	if (!err)
		err = bfs_check(h, &a, level);
	if (err)
		goto out;
	gh_note(h,
		"bfs: %u nodes, %u directed edges, %u levels, %u CTAs x %u warps, every node's "
		"level verified against the host BFS",
		a.n, g.m, levels, k.ctas, k.warps_per_cta);
out:
	bfs_free_graph(&g);
	free(level);
	free(init);
	return err;
}
