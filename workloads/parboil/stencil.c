/*
 * workloads/parboil/stencil.c - 7-point 3-D Jacobi stencil (Parboil `stencil`, Stratton et al.
 * 2012), the CUDA version's `block2D_hybrid_coarsen_x` kernel (Li-Wen Chang, I-Jui Sung).
 *
 * Anext(i, j, k) = (A0 at k+1, k-1, j+1, j-1, i+1, i-1) * c1 - A0(i, j, k) * c0 over the
 * interior of an nx x ny x nz grid (x fastest), c0 = 1/6, c1 = 1/6/6; the boundary cells keep
 * their values (Anext starts as a copy of A0). One launch per iteration, ping-ponging the two
 * buffers. Launch as Parboil's main.cu: CTAs of 32 x 4 threads (4 warps, a warp one row ty),
 * a 2-D grid of ceil(nx / 64) x ceil(ny / 4) CTAs: each thread is coarsened in x and owns the
 * columns i and i2 = i + 32 of its CTA's 64-wide tile. A CTA walks up the z axis: the current
 * xy plane of its tile lives in shared memory (2 x 32 x 4 floats), the planes below and above
 * in registers (bottom, top). Per plane each thread loads top (and top2) from global memory,
 * takes its y neighbours from shared memory except on the tile's edge rows (ty 0 and 3: a
 * global load of the row beyond) and its x neighbour across the tile edge (lane 0's i - 1,
 * lane 31's i2 + 1) from global memory, stores its two points, and after a barrier shifts the
 * planes (bottom = shared, shared = top) before another barrier.
 *
 * No coherence needed: a launch reads only A0 (written by the previous launch) and writes each
 * interior point of Anext from one thread.
 *
 * Input: A0 uniform in [0, 1) from the seed (Parboil reads a binary file of floats). Check: a
 * host reference runs the same iterations point by point through the same noinline function
 * (the kernel's sum in its order: top, bottom, up, down, east, west), so every cell of the
 * final grid must be bit-exact.
 */
#include "workloads/parboil/parboil.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_STN	 0x7374656e63696c00ull
#define STN_TX	 32 /* Parboil main.cu: tx = 32, ty = 4, tiles of 2 tx in x */
#define STN_TY	 4
#define STN_TILE (2 * STN_TX)

/*
 * Issue slots per warp (SASS-like count of block2D_hybrid_coarsen_x):
 * prologue: 4 S2R, i, i2, j, sh_id, sh_id2 (5 IMAD/IADD), w_region and w_region2 (6 ISETP +
 *   4 PSETP), 4 bound flags (4 ISETP), bounds tests of the loads (4), 4 load addresses: 32;
 * per plane and half: top address and guard (3), region branch (2), up / down / left-right
 *   selects (3 x 3: ISETP-predicated global or shared addresses), 5 FADD + FMUL + FFMA (7),
 *   store address (2): 23;
 * per plane: loop counter and test (3), the shift's shared addresses (3): 6.
 */
#define STN_PROLOGUE 32
#define STN_HALF     23
#define STN_PLANE    6

struct stn_args {
	uint64_t a0, anext; /* float [nz][ny][nx] */
	int nx, ny, nz;
	float c0, c1;
};

/* One interior point, the kernel's expression in its order (noinline: the kernel and the
 * reference run the same machine code). */
static __attribute__((noinline)) float stn_point(float top, float bottom, float up, float down,
						 float east, float west, float centre, float c0,
						 float c1)
{
	return (top + bottom + up + down + east + west) * c1 - centre * c0;
}

static uint64_t stn_addr(const struct stn_args *a, uint64_t base, int i, int j, int k)
{
	return base + 4 * ((uint64_t)i + (uint64_t)a->nx * ((uint64_t)j + (uint64_t)a->ny * k));
}

/* ---- kernel --------------------------------------------------------------------------------- */

/* One half of the coarsened thread (second = the i2 columns): the lanes in wr compute their
 * point of plane k from the registers top/bottom and the shared plane. */
static void stn_half(struct gpu_warp *w, const struct stn_args *a, const float *sh, const int *col,
		     int j, int ty, bool second, uint32_t wr, const float *top, const float *bottom,
		     int k)
{
	uint64_t addr[WARP_LANES];
	uint32_t up[WARP_LANES], down[WARP_LANES], edge[WARP_LANES], v[WARP_LANES];
	uint32_t edge_mask = 0;
	unsigned edge_lane = second ? STN_TX - 1 : 0;

	gw_compute(w, STN_HALF);
	if (!wr)
		return;
	/* a_up: the row beyond the tile from global memory on the last row (y_h_bound), else the
	 * shared plane */
	if (ty == STN_TY - 1) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = stn_addr(a, a->a0, col[l], j + 1, k);
		gw_ld32v(w, addr, wr, up);
	} else {
		for (unsigned l = 0; l < WARP_LANES; l++)
			up[l] = wl_f2u(sh[(ty + 1) * STN_TILE + (second ? STN_TX : 0) + l]);
		gw_smem_access(w);
	}
	if (ty == 0) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = stn_addr(a, a->a0, col[l], j - 1, k);
		gw_ld32v(w, addr, wr, down);
	} else {
		for (unsigned l = 0; l < WARP_LANES; l++)
			down[l] = wl_f2u(sh[(ty - 1) * STN_TILE + (second ? STN_TX : 0) + l]);
		gw_smem_access(w);
	}
	/* a_left_right: across the tile's edge (lane 0's i - 1, lane 31's i2 + 1) from global
	 * memory, the other lanes from the shared plane; a divergent pair of loads */
	if (wr >> edge_lane & 1) {
		edge_mask = 1u << edge_lane;
		addr[edge_lane] = stn_addr(a, a->a0, col[edge_lane] + (second ? 1 : -1), j, k);
		gw_ld32v(w, addr, edge_mask, edge);
	}
	if (wr & ~edge_mask)
		gw_smem_access(w);
	gw_smem_access(w); /* the other x neighbour */
	gw_smem_access(w); /* the centre */
	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned s = ty * STN_TILE + (second ? STN_TX : 0) + l;
		float east, west;

		if (!(wr >> l & 1))
			continue;
		if (second) {
			east = l == edge_lane ? wl_u2f(edge[l]) : sh[s + 1];
			west = sh[s - 1];
		} else {
			east = sh[s + 1];
			west = l == edge_lane ? wl_u2f(edge[l]) : sh[s - 1];
		}
		v[l] = wl_f2u(stn_point(top[l], bottom[l], wl_u2f(up[l]), wl_u2f(down[l]), east,
					west, sh[s], a->c0, a->c1));
		addr[l] = stn_addr(a, a->anext, col[l], j, k);
	}
	gw_st32v(w, addr, wr, v);
}

static void stn_kernel(struct gpu_warp *w)
{
	const struct stn_args *a = gw_args(w);
	float *sh = gw_smem(w); /* sh_A0[2 tx * ty] */
	int ty = (int)gw_thread_y(w, 0);
	int j = (int)gw_cta_y(w) * STN_TY + ty;
	int col[2][WARP_LANES];
	uint32_t in[2] = {0, 0}, wr[2] = {0, 0};
	float bottom[2][WARP_LANES] = {{0}}, top[2][WARP_LANES] = {{0}};
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		int tx = (int)gw_thread_x(w, l);
		int i = (int)gw_cta_x(w) * STN_TILE + tx, i2 = i + STN_TX;

		col[0][l] = i;
		col[1][l] = i2;
		if (i < a->nx && j < a->ny)
			in[0] |= 1u << l;
		if (i2 < a->nx && j < a->ny)
			in[1] |= 1u << l;
		if (i > 0 && j > 0 && i < a->nx - 1 && j < a->ny - 1)
			wr[0] |= 1u << l;
		if (j > 0 && i2 < a->nx - 1 && j < a->ny - 1)
			wr[1] |= 1u << l;
		sh[ty * STN_TILE + l] = 0.f;
		sh[ty * STN_TILE + STN_TX + l] = 0.f;
	}
	gw_compute(w, STN_PROLOGUE);
	gw_smem_access(w);
	gw_smem_access(w);
	gw_barrier(w);
	/* bottom = plane 0, the shared plane = plane 1 */
	for (unsigned h = 0; h < 2; h++) {
		if (!in[h])
			continue;
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = stn_addr(a, a->a0, col[h][l], j, 0);
		gw_ld32v(w, addr, in[h], v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (in[h] >> l & 1)
				bottom[h][l] = wl_u2f(v[l]);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = stn_addr(a, a->a0, col[h][l], j, 1);
		gw_ld32v(w, addr, in[h], v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (in[h] >> l & 1)
				sh[ty * STN_TILE + h * STN_TX + l] = wl_u2f(v[l]);
		gw_smem_access(w);
	}
	gw_barrier(w);
	for (int k = 1; k < a->nz - 1; k++) {
		for (unsigned h = 0; h < 2; h++) {
			if (in[h]) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					addr[l] = stn_addr(a, a->a0, col[h][l], j, k + 1);
				gw_ld32v(w, addr, in[h], v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (in[h] >> l & 1)
						top[h][l] = wl_u2f(v[l]);
			}
			stn_half(w, a, sh, col[h], j, ty, h == 1, wr[h], top[h], bottom[h], k);
		}
		gw_compute(w, STN_PLANE);
		gw_barrier(w);
		/* bottom = sh[sh_id]; sh[sh_id] = top (both halves) */
		for (unsigned h = 0; h < 2; h++)
			for (unsigned l = 0; l < WARP_LANES; l++) {
				float *s = &sh[ty * STN_TILE + h * STN_TX + l];

				bottom[h][l] = *s;
				*s = top[h][l];
			}
		for (unsigned x = 0; x < 4; x++)
			gw_smem_access(w);
		gw_barrier(w);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

/* One iteration of the whole grid: the interior from in, the boundary copied. */
static void stn_step(const float *in, float *out, int nx, int ny, int nz, float c0, float c1)
{
	size_t plane = (size_t)nx * ny;

	memcpy(out, in, plane * nz * sizeof(float));
	for (int k = 1; k < nz - 1; k++)
		for (int j = 1; j < ny - 1; j++)
			for (int i = 1; i < nx - 1; i++) {
				size_t c = (size_t)k * plane + (size_t)j * nx + i;

				out[c] = stn_point(in[c + plane], in[c - plane], in[c + nx],
						   in[c - nx], in[c + 1], in[c - 1], in[c], c0, c1);
			}
}

int parboil_stencil_main(struct gpu_host *h)
{
	bool full = gh_size(h) == GPU_SIZE_FULL;
	struct stn_args a = {
	    .nx = full ? 512 : (int)wl_by_size(h, 64, 128, 256),
	    .ny = full ? 512 : (int)wl_by_size(h, 16, 64, 256),
	    .nz = full ? 64 : (int)wl_by_size(h, 16, 16, 32),
	    .c0 = 1.0f / 6.0f,
	    .c1 = 1.0f / 6.0f / 6.0f,
	};
	unsigned iterations = full ? 2 : (unsigned)wl_by_size(h, 2, 3, 4);
	struct gpu_kernel kern = {
	    .name = "block2D_hybrid_coarsen_x",
	    .warps_per_cta = STN_TX * STN_TY / WARP_LANES,
	    .regs_per_thread = 24,
	    .smem_bytes = STN_TILE * STN_TY * sizeof(float),
	    .fn = stn_kernel,
	    .args = &a,
	    .grid_x = (unsigned)(a.nx + STN_TILE - 1) / STN_TILE,
	    .grid_y = (unsigned)(a.ny + STN_TY - 1) / STN_TY,
	    .block_x = STN_TX,
	};
	size_t cells = (size_t)a.nx * a.ny * a.nz;
	uint64_t seed = gh_seed(h) ^ TAG_STN, buf[2];
	float *ref = malloc(cells * sizeof(float)), *tmp = malloc(cells * sizeof(float));
	float *got = malloc(cells * sizeof(float));
	int err = -CS_ENOMEM;

	if (!ref || !tmp || !got)
		goto out;
	for (size_t c = 0; c < cells; c++)
		ref[c] = (float)wl_unit(seed, 0, c);
	/* d_A0 = input, d_Anext = a copy of it (main.cu's cudaMemcpy device to device) */
	buf[0] = wl_upload(h, ref, cells * sizeof(float));
	buf[1] = wl_upload(h, ref, cells * sizeof(float));
	for (unsigned t = 0; t < iterations; t++) {
		a.a0 = buf[t & 1];
		a.anext = buf[(t + 1) & 1];
		err = gh_launch(h, &kern);
		if (err)
			goto out;
	}
	/* the result is the last launch's Anext */
	gh_corrupt(h, a.anext + 4 * (((size_t)a.nz / 2 * a.ny + a.ny / 2) * a.nx + a.nx / 2), 4);
	gh_read(h, a.anext, got, cells * sizeof(float));
	for (unsigned t = 0; t < iterations; t++) {
		float *x = ref;

		stn_step(ref, tmp, a.nx, a.ny, a.nz, a.c0, a.c1);
		ref = tmp;
		tmp = x;
	}
	{
		size_t bad = 0, first = 0;

		for (size_t c = 0; c < cells; c++)
			if (wl_f2u(got[c]) != wl_f2u(ref[c]) && bad++ == 0)
				first = c;
		if (bad) {
			size_t plane = (size_t)a.nx * a.ny;

			err =
			    gh_fail(h,
				    "stencil: cell (%zu, %zu, %zu) = %.9g, want %.9g after %u "
				    "iterations (%zu of %zu cells differ)",
				    first % a.nx, first % plane / a.nx, first / plane,
				    (double)got[first], (double)ref[first], iterations, bad, cells);
			goto out;
		}
	}
	gh_note(h,
		"stencil: %dx%dx%d grid, %u iterations of %ux%u CTAs of 32x4 threads, every cell "
		"bit-exact",
		a.nx, a.ny, a.nz, iterations, kern.grid_x, kern.grid_y);
	err = 0;
out:
	free(ref);
	free(tmp);
	free(got);
	return err;
}
