/*
 * workloads/bench/stn.c - STN: stencil wave propagation (the Temporal Coherence suite, Singh et
 * al., HPCA 2013), one persistent kernel whose time steps are separated by grid barriers.
 *
 * The 2D wave equation on an NX x NY grid of int32 (fixed point), zero outside the grid, with the
 * explicit leapfrog scheme of two time levels:
 *
 *   u[t+1] = 2 u[t] - u[t-1] + (3 * lap(u[t])) / 16,   lap = N + S + E + W - 4 C
 *
 * (c^2 dt^2 / dx^2 = 3/16, below the 2D stability bound 1/2; C integer division truncates toward
 * zero). Integer arithmetic in int64 makes the host reference bit-exact.
 *
 * Sharing: the grid is cut into tiles of 32 columns x STN_TILE_ROWS rows; CTA c owns tiles c,
 * c + ctas, ... for the whole run (warp w of the CTA the rows w, w + warps, ... of a tile, one
 * row of 32 cells per warp instruction). Two arrays: step t reads u[t] from buffer t % 2 (the
 * cell, its four neighbours: the halo rows and columns at a tile's edge were written by the
 * neighbouring CTAs in step t - 1) and u[t-1] from buffer (t + 1) % 2 (own cell), and writes
 * u[t+1] over u[t-1]. Every load is a plain gw_ld32v. A step ends with a release fence and
 * wl_grid_sync, which also orders the next step's overwrite of buffer (t + 1) % 2 after every
 * neighbour's read of it. Without coherence the barrier's plain spin (or a halo row) reads a
 * stale L1 copy: livelock report, or a wrong grid reported by the host check.
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/wl_util.h"

#define STN_TAG	      0x73746e0000000000ull
#define STN_TILE_ROWS 8 /* rows of a tile (a tile is 32 columns wide) */
#define STN_WARPS     4 /* warps per CTA */

struct stn_args {
	uint64_t buf[2]; /* nx * ny uint32 (int32 cells), row-major */
	struct wl_grid_barrier bar;
	unsigned nx, ny; /* nx a multiple of 32, ny of STN_TILE_ROWS */
	unsigned steps;
};

/* One cell's update; n, s, e, w are 0 outside the grid. Used by the kernel and the host. */
static int32_t stn_update(int32_t c, int32_t prev, int32_t n, int32_t s, int32_t e, int32_t w)
{
	int64_t lap = (int64_t)n + s + e + w - 4 * (int64_t)c;

	return (int32_t)(uint32_t)(2 * (int64_t)c - prev + (3 * lap) / 16);
}

static uint32_t stn_initial(uint64_t seed, unsigned nx, unsigned ny, unsigned x, unsigned y)
{
	/* Smooth-ish pulses: a random value per 4x4 block plus per-cell noise (Q16 amplitude). */
	int32_t block = (int32_t)(wl_value32(seed, 1, (y / 4) * ((nx + 3) / 4) + x / 4, 0) >> 12);
	int32_t noise = (int32_t)(wl_value32(seed, 2, (uint64_t)y * nx + x, 0) >> 22);

	(void)ny;
	return (uint32_t)(block - (1 << 19) + noise - (1 << 9));
}

/* One row segment of 32 cells at (x0, y): reads u[t] and u[t-1], writes u[t+1]. */
static void stn_row(struct gpu_warp *w, const struct stn_args *a, unsigned t, unsigned x0,
		    unsigned y)
{
	uint64_t cur = a->buf[t % 2], old = a->buf[(t + 1) % 2];
	uint64_t row = (uint64_t)y * a->nx + x0;
	uint64_t addr[WARP_LANES];
	uint32_t c[WARP_LANES], p[WARP_LANES], n[WARP_LANES] = {0}, s[WARP_LANES] = {0};
	uint32_t e[WARP_LANES] = {0}, wv[WARP_LANES] = {0}, out[WARP_LANES];
	uint32_t mask;

	wl_lane_addrs(addr, cur, row, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, c);
	if (y > 0) {
		wl_lane_addrs(addr, cur, row - a->nx, UINT64_MAX, 4);
		gw_ld32v(w, addr, LANES_ALL, n);
	}
	if (y + 1 < a->ny) {
		wl_lane_addrs(addr, cur, row + a->nx, UINT64_MAX, 4);
		gw_ld32v(w, addr, LANES_ALL, s);
	}
	/* West neighbours (x - 1): lane 0 off the grid at x0 = 0. */
	mask = x0 > 0 ? LANES_ALL : LANES_ALL & ~1u;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = cur + (row + l - 1) * 4;
	gw_ld32v(w, addr, mask, wv);
	if (x0 == 0)
		wv[0] = 0;
	/* East neighbours (x + 1): lane 31 off the grid at the last segment. */
	mask = x0 + WARP_LANES < a->nx ? LANES_ALL : LANES_ALL >> 1;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = cur + (row + l + 1) * 4;
	gw_ld32v(w, addr, mask, e);
	if (x0 + WARP_LANES >= a->nx)
		e[WARP_LANES - 1] = 0;
	wl_lane_addrs(addr, old, row, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, p);
	for (unsigned l = 0; l < WARP_LANES; l++)
		out[l] = (uint32_t)stn_update((int32_t)c[l], (int32_t)p[l], (int32_t)n[l],
					      (int32_t)s[l], (int32_t)e[l], (int32_t)wv[l]);
	/* ~22 instructions: row/column index and 7 addresses (~8), boundary tests (4), the
	 * 4 adds + shift of the Laplacian, 2u - prev (2), multiply and the divide by 16 with
	 * rounding toward zero (3). */
	gw_compute(w, 22);
	gw_st32v(w, addr, LANES_ALL, out);
}

static void stn_kernel(struct gpu_warp *w)
{
	const struct stn_args *a = gw_args(w);
	unsigned tiles_x = a->nx / WARP_LANES;
	unsigned tiles = tiles_x * (a->ny / STN_TILE_ROWS);

	for (unsigned t = 0; t < a->steps; t++) {
		for (unsigned tile = gw_cta(w); tile < tiles; tile += gw_ctas(w)) {
			unsigned x0 = (tile % tiles_x) * WARP_LANES;
			unsigned y0 = (tile / tiles_x) * STN_TILE_ROWS;

			for (unsigned r = gw_warp(w); r < STN_TILE_ROWS; r += gw_warps_per_cta(w))
				stn_row(w, a, t, x0, y0 + r);
		}
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		if (wl_grid_sync(w, &a->bar, t) != 0)
			return;
	}
}

/* The host reference: the same steps; returns the array (cur or prev) that holds u[steps]. */
static const int32_t *stn_reference(const struct stn_args *a, int32_t *cur, int32_t *prev)
{
	unsigned nx = a->nx, ny = a->ny;

	for (unsigned t = 0; t < a->steps; t++) {
		for (unsigned y = 0; y < ny; y++)
			for (unsigned x = 0; x < nx; x++) {
				size_t i = (size_t)y * nx + x;
				int32_t n = y > 0 ? cur[i - nx] : 0;
				int32_t s = y + 1 < ny ? cur[i + nx] : 0;
				int32_t wv = x > 0 ? cur[i - 1] : 0;
				int32_t e = x + 1 < nx ? cur[i + 1] : 0;

				prev[i] = stn_update(cur[i], prev[i], n, s, e, wv);
			}
		int32_t *tmp = cur;

		cur = prev;
		prev = tmp;
	}
	return cur;
}

static int stn_check(struct gpu_host *h, const struct stn_args *a, const int32_t *want)
{
	size_t cells = (size_t)a->nx * a->ny;
	int32_t *got = malloc(cells * sizeof(*got));
	uint64_t bad = 0, first = 0;

	if (!got)
		return -CS_ENOMEM;
	gh_read(h, a->buf[a->steps % 2], got, cells * sizeof(*got));
	for (size_t i = 0; i < cells; i++)
		if (got[i] != want[i] && bad++ == 0)
			first = i;
	if (bad) {
		int32_t g = got[first];

		free(got);
		return gh_fail(h,
			       "stn: after %u steps cell (%" PRIu64 ", %" PRIu64 ") = %" PRId32
			       ", want %" PRId32 "; %" PRIu64 " of %zu cells wrong (a halo read "
			       "stale data from a neighbouring tile?)",
			       a->steps, first % a->nx, first / a->nx, g, want[first], bad, cells);
	}
	free(got);
	return 0;
}

int bench_stn_main(struct gpu_host *h)
{
	struct stn_args a = {0};
	struct gpu_kernel k = {.name = "stn",
			       .warps_per_cta = STN_WARPS,
			       .regs_per_thread = 24,
			       .fn = stn_kernel,
			       .args = &a};
	uint64_t seed = gh_seed(h) ^ STN_TAG;
	unsigned tiles, resident;
	int32_t *cur = NULL, *prev = NULL;
	size_t cells;
	int err;

	a.nx = (unsigned)wl_by_size(h, 64, 256, 512);
	a.ny = (unsigned)wl_by_size(h, 32, 128, 256);
	a.steps = (unsigned)wl_by_size(h, 4, 24, 66);
	cells = (size_t)a.nx * a.ny;
	tiles = (a.nx / WARP_LANES) * (a.ny / STN_TILE_ROWS);
	resident = wl_resident_ctas(h, &k);
	if (resident == 0)
		return gh_no_fit(h, &k);
	/* One CTA per tile up to the GPU's resident CTAs (every CTA must be resident for the grid
	 * barrier); at `small` at most two per SM, which keeps the livelock report of an L1
	 * without coherence (every CTA spins core.spin_limit times) within a CI run's time. */
	k.ctas = tiles < resident ? tiles : resident;
	if (gh_size(h) == GPU_SIZE_SMALL && k.ctas > 2 * gh_sms(h))
		k.ctas = 2 * gh_sms(h);

	cur = malloc(cells * sizeof(*cur));
	prev = malloc(cells * sizeof(*prev));
	if (!cur || !prev) {
		err = -CS_ENOMEM;
		goto out;
	}
	for (unsigned y = 0; y < a.ny; y++)
		for (unsigned x = 0; x < a.nx; x++)
			cur[(size_t)y * a.nx + x] = (int32_t)stn_initial(seed, a.nx, a.ny, x, y);
	/* At rest: u[-1] = u[0]. */
	a.buf[0] = wl_upload(h, cur, cells * sizeof(*cur));
	a.buf[1] = wl_upload(h, cur, cells * sizeof(*cur));
	for (size_t i = 0; i < cells; i++)
		prev[i] = cur[i];
	err = wl_grid_barrier_init(h, &a.bar, "stn");
	if (!err)
		err = gh_launch(h, &k);
	if (err)
		goto out;
	err = stn_check(h, &a, stn_reference(&a, cur, prev));
	if (err)
		goto out;
	gh_note(h,
		"stn: %ux%u grid, %u steps on %u CTAs x %u warps (tiles of 32x%u), every cell "
		"verified against the host",
		a.nx, a.ny, a.steps, k.ctas, k.warps_per_cta, STN_TILE_ROWS);
out:
	free(cur);
	free(prev);
	return err;
}
