/*
 * workloads/parboil/lbm.c - lattice-Boltzmann fluid dynamics (Parboil `lbm`, Stratton et al.
 * 2012; from SPEC CPU2006 470.lbm), the CUDA version's `performStreamCollide_kernel`.
 *
 * A lid-driven cavity on a D3Q19 lattice: every cell holds 19 distribution values (C, N, S, E,
 * W, T, B and the 12 diagonals) and a flags word (OBSTACLE, ACCEL). Layout as Parboil's CUDA
 * version (layout_config.h, SCATTER): structure of arrays, element e of cell (x, y, z) at
 * e * TOTAL_PADDED_CELLS + x + y * PADDED_X + z * PADDED_X * PADDED_Y, rows padded from
 * SIZE_X = 120 to PADDED_X = 128 floats (128-byte aligned), 4 padding planes per element and a
 * margin of 2 planes before the grid (REAL_MARGIN) so that the scatter may write one cell
 * beyond every edge. One launch per time step (ping-pong between two grids): a 2-D grid of
 * SIZE_Y x SIZE_Z CTAs of SIZE_X = 120 threads (blockIdx.x = y, blockIdx.y = z, threadIdx.x =
 * x: 4 warps, the last with 24 threads). Each thread loads its cell's 19 values and its flags
 * (20 coalesced loads), swaps opposite directions on an obstacle (bounce back) or otherwise
 * computes density and velocity (fixed on ACCEL cells) and relaxes towards equilibrium
 * (OMEGA = 1.95), and stores each value into the neighbour it streams to (19 stores, the
 * x-shifted ones misaligned by 4 bytes).
 *
 * No coherence needed: a step reads the source grid only and every destination word has
 * exactly one writer (the scatter is a shift per element).
 *
 * Input: the flags of Parboil's LBM_initializeSpecialCellsForLDC (walls are obstacles, the
 * planes z = 1 and SIZE_Z - 2 inside the walls accelerate) plus seeded spherical obstacles
 * standing in for the obstacle file; the distributions start at equilibrium (1/3, 1/18, 1/36)
 * perturbed by up to +-2.5% from the seed, so that every cell's values differ. Check: a host
 * reference performs the same steps cell by cell through the same noinline collide function
 * (the kernel's float expressions in their order) and writes the same scatter; every word of the
 * final grid, padding and margins included, must be bit-exact.
 */
#include "workloads/parboil/parboil.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_LBM 0x6c626d0000000000ull

/* Parboil lbm.h: the cell entries and flags. */
enum lbm_entry { C = 0, N, S, E, W, T, B, NE, NW, SE, SW, NT, NB, ST, SB, ET, EB, WT, WB, FLAGS };
#define LBM_ENTRIES  20 /* N_CELL_ENTRIES */
#define LBM_DISTR    19 /* N_DISTR_FUNCS */
#define LBM_OBSTACLE 1u
#define LBM_ACCEL    2u

#define LBM_SIZE_X    120 /* layout_config.h: SIZE_X, also the CTA's threads */
#define LBM_PADDING_X 8
#define LBM_PADDING_Z 4
#define LBM_WARPS     ((LBM_SIZE_X + WARP_LANES - 1) / WARP_LANES)

#define OMEGA 1.95f
#define DFL1  (1.0f / 3.0f)
#define DFL2  (1.0f / 18.0f)
#define DFL3  (1.0f / 36.0f)

/*
 * Issue slots per warp (SASS-like count of performStreamCollide_kernel):
 * prologue: 3 S2R, the cell index (3 IMAD), source and destination bases (4): 10; the 20
 *   loads and 19 stores use immediate offsets from them;
 * flags: LOP, ISETP, BRA: 3;
 * fluid: rho 18 FADD, ux/uy/uz 27 FADD, 3 IEEE divisions (~10 each: 30), ACCEL test and
 *   selects (3), u2 (4), temp_base/temp1/temp2 (3), C (2), 6 axis directions x 5 (FFMA, FMUL,
 *   FADD, FMUL, FFMA), 12 diagonals x 6 (one more FADD): 189;
 * obstacle: the 9 swaps (18 MOV); a warp with both kinds of cells runs both paths.
 */
#define LBM_PROLOGUE 10
#define LBM_FLAG     3
#define LBM_FLUID    189
#define LBM_BOUNCE   18

struct lbm_dim {
	int size_x, size_y, size_z, padded_x, padded_y, padded_z;
	int64_t total_padded; /* TOTAL_PADDED_CELLS */
	int64_t margin;	      /* REAL_MARGIN, in floats */
	int64_t words;	      /* the allocation: TOTAL_PADDED_CELLS * 20 + 2 TOTAL_MARGIN */
};

struct lbm_args {
	uint64_t src, dst; /* device address of word 0 of each grid (allocation + REAL_MARGIN) */
	struct lbm_dim d;
};

/* Where each element streams to (layout_config.h, SCATTER: DST_e = NEIGHBOR_e). */
static const int lbm_dir[LBM_DISTR][3] = {
    [C] = {0, 0, 0},   [N] = {0, 1, 0},	  [S] = {0, -1, 0},   [E] = {1, 0, 0},
    [W] = {-1, 0, 0},  [T] = {0, 0, 1},	  [B] = {0, 0, -1},   [NE] = {1, 1, 0},
    [NW] = {-1, 1, 0}, [SE] = {1, -1, 0}, [SW] = {-1, -1, 0}, [NT] = {0, 1, 1},
    [NB] = {0, 1, -1}, [ST] = {0, -1, 1}, [SB] = {0, -1, -1}, [ET] = {1, 0, 1},
    [EB] = {1, 0, -1}, [WT] = {-1, 0, 1}, [WB] = {-1, 0, -1},
};

/* CALC_INDEX(x, y, z, e): a word offset from the grid pointer (may be negative). */
static int64_t lbm_index(const struct lbm_dim *d, int x, int y, int z, int e)
{
	return d->total_padded * e +
	       (x + (int64_t)y * d->padded_x + (int64_t)z * d->padded_x * d->padded_y);
}

/* The collision of one cell: in[] its 19 values, flags its flags word; out[] the values it
 * streams (the kernel's statements and float expressions in their order; noinline: the kernel
 * and the reference run the same machine code). */
static __attribute__((noinline)) void lbm_collide(const float *in, uint32_t flags, float *out)
{
	float t[LBM_DISTR], swp;

	memcpy(t, in, sizeof(t));
	if (flags & LBM_OBSTACLE) {
		swp = t[N], t[N] = t[S], t[S] = swp;
		swp = t[E], t[E] = t[W], t[W] = swp;
		swp = t[T], t[T] = t[B], t[B] = swp;
		swp = t[NE], t[NE] = t[SW], t[SW] = swp;
		swp = t[NW], t[NW] = t[SE], t[SE] = swp;
		swp = t[NT], t[NT] = t[SB], t[SB] = swp;
		swp = t[NB], t[NB] = t[ST], t[ST] = swp;
		swp = t[ET], t[ET] = t[WB], t[WB] = swp;
		swp = t[EB], t[EB] = t[WT], t[WT] = swp;
	} else {
		float ux, uy, uz, rho, u2, temp1, temp2, temp_base;

		rho = t[C] + t[N] + t[S] + t[E] + t[W] + t[T] + t[B] + t[NE] + t[NW] + t[SE] +
		      t[SW] + t[NT] + t[NB] + t[ST] + t[SB] + t[ET] + t[EB] + t[WT] + t[WB];
		ux = +t[E] - t[W] + t[NE] - t[NW] + t[SE] - t[SW] + t[ET] + t[EB] - t[WT] - t[WB];
		uy = +t[N] - t[S] + t[NE] + t[NW] - t[SE] - t[SW] + t[NT] + t[NB] - t[ST] - t[SB];
		uz = +t[T] - t[B] + t[NT] - t[NB] + t[ST] - t[SB] + t[ET] - t[EB] + t[WT] - t[WB];
		ux /= rho;
		uy /= rho;
		uz /= rho;
		if (flags & LBM_ACCEL) {
			ux = 0.005f;
			uy = 0.002f;
			uz = 0.000f;
		}
		u2 = 1.5f * (ux * ux + uy * uy + uz * uz) - 1.0f;
		temp_base = OMEGA * rho;
		temp1 = DFL1 * temp_base;
		temp2 = 1.0f - OMEGA;
		t[C] = temp2 * t[C] + temp1 * (-u2);
		temp1 = DFL2 * temp_base;
		t[N] = temp2 * t[N] + temp1 * (uy * (4.5f * uy + 3.0f) - u2);
		t[S] = temp2 * t[S] + temp1 * (uy * (4.5f * uy - 3.0f) - u2);
		t[T] = temp2 * t[T] + temp1 * (uz * (4.5f * uz + 3.0f) - u2);
		t[B] = temp2 * t[B] + temp1 * (uz * (4.5f * uz - 3.0f) - u2);
		t[E] = temp2 * t[E] + temp1 * (ux * (4.5f * ux + 3.0f) - u2);
		t[W] = temp2 * t[W] + temp1 * (ux * (4.5f * ux - 3.0f) - u2);
		temp1 = DFL3 * temp_base;
		t[NT] = temp2 * t[NT] + temp1 * ((+uy + uz) * (4.5f * (+uy + uz) + 3.0f) - u2);
		t[NB] = temp2 * t[NB] + temp1 * ((+uy - uz) * (4.5f * (+uy - uz) + 3.0f) - u2);
		t[ST] = temp2 * t[ST] + temp1 * ((-uy + uz) * (4.5f * (-uy + uz) + 3.0f) - u2);
		t[SB] = temp2 * t[SB] + temp1 * ((-uy - uz) * (4.5f * (-uy - uz) + 3.0f) - u2);
		t[NE] = temp2 * t[NE] + temp1 * ((+ux + uy) * (4.5f * (+ux + uy) + 3.0f) - u2);
		t[SE] = temp2 * t[SE] + temp1 * ((+ux - uy) * (4.5f * (+ux - uy) + 3.0f) - u2);
		t[ET] = temp2 * t[ET] + temp1 * ((+ux + uz) * (4.5f * (+ux + uz) + 3.0f) - u2);
		t[EB] = temp2 * t[EB] + temp1 * ((+ux - uz) * (4.5f * (+ux - uz) + 3.0f) - u2);
		t[NW] = temp2 * t[NW] + temp1 * ((-ux + uy) * (4.5f * (-ux + uy) + 3.0f) - u2);
		t[SW] = temp2 * t[SW] + temp1 * ((-ux - uy) * (4.5f * (-ux - uy) + 3.0f) - u2);
		t[WT] = temp2 * t[WT] + temp1 * ((-ux + uz) * (4.5f * (-ux + uz) + 3.0f) - u2);
		t[WB] = temp2 * t[WB] + temp1 * ((-ux - uz) * (4.5f * (-ux - uz) + 3.0f) - u2);
	}
	memcpy(out, t, sizeof(t));
}

/* ---- kernel --------------------------------------------------------------------------------- */

static void lbm_kernel(struct gpu_warp *w)
{
	const struct lbm_args *a = gw_args(w);
	const struct lbm_dim *d = &a->d;
	int y = (int)gw_cta_x(w), z = (int)gw_cta_y(w);
	float in[WARP_LANES][LBM_DISTR], out[WARP_LANES][LBM_DISTR];
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES], flags[WARP_LANES] = {0}, mask = 0, obstacle = 0;

	for (unsigned l = 0; l < WARP_LANES; l++)
		if (gw_thread_x(w, l) < (unsigned)d->size_x)
			mask |= 1u << l;
	gw_compute(w, LBM_PROLOGUE);
	/* tempC = SRC_C(srcGrid) ... tempWB = SRC_WB(srcGrid), then the flags */
	for (int e = 0; e <= FLAGS; e++) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] =
			    a->src + (uint64_t)(4 * lbm_index(d, (int)gw_thread_x(w, l), y, z, e));
		gw_ld32v(w, addr, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (!(mask >> l & 1))
				continue;
			if (e == FLAGS)
				flags[l] = v[l];
			else
				in[l][e] = wl_u2f(v[l]);
		}
	}
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1) {
			lbm_collide(in[l], flags[l], out[l]);
			if (flags[l] & LBM_OBSTACLE)
				obstacle |= 1u << l;
		}
	gw_compute(w,
		   LBM_FLAG + (obstacle ? LBM_BOUNCE : 0) + ((mask & ~obstacle) ? LBM_FLUID : 0));
	/* DST_C(dstGrid) = tempC ... DST_WB(dstGrid) = tempWB */
	for (int e = 0; e < LBM_DISTR; e++) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			int x = (int)gw_thread_x(w, l);

			addr[l] = a->dst +
				  (uint64_t)(4 * lbm_index(d, x + lbm_dir[e][0], y + lbm_dir[e][1],
							   z + lbm_dir[e][2], e));
			v[l] = (mask >> l & 1) ? wl_f2u(out[l][e]) : 0;
		}
		gw_st32v(w, addr, mask, v);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

/* LBM_initializeGrid with a seeded perturbation, LBM_initializeSpecialCellsForLDC and the
 * seeded obstacles, on a host grid (g points at word 0, after the margin). */
static void lbm_init(const struct lbm_dim *d, float *g, uint64_t seed)
{
	static const float base[LBM_DISTR] = {DFL1, DFL2, DFL2, DFL2, DFL2, DFL2, DFL2,
					      DFL3, DFL3, DFL3, DFL3, DFL3, DFL3, DFL3,
					      DFL3, DFL3, DFL3, DFL3, DFL3};
	int64_t cells = (int64_t)d->size_x * d->size_y * d->size_z;
	int spheres = (int)(cells / 20000) + 1;

	for (int z = 0; z < d->size_z; z++)
		for (int y = 0; y < d->size_y; y++)
			for (int x = 0; x < d->size_x; x++) {
				int64_t cell = ((int64_t)z * d->size_y + y) * d->size_x + x;

				for (int e = 0; e < LBM_DISTR; e++) {
					double u = wl_unit(seed, (uint64_t)e, (uint64_t)cell);

					g[lbm_index(d, x, y, z, e)] =
					    base[e] * (float)(1.0 + 0.05 * (u - 0.5));
				}
				g[lbm_index(d, x, y, z, FLAGS)] = wl_u2f(0);
			}
	/* LBM_initializeSpecialCellsForLDC: note that it runs over z = -2 .. SIZE_Z + 1 */
	for (int z = -2; z < d->size_z + 2; z++)
		for (int y = 0; y < d->size_y; y++)
			for (int x = 0; x < d->size_x; x++) {
				float *f = &g[lbm_index(d, x, y, z, FLAGS)];
				uint32_t set = 0;

				if (x == 0 || x == d->size_x - 1 || y == 0 || y == d->size_y - 1 ||
				    z == 0 || z == d->size_z - 1)
					set = LBM_OBSTACLE;
				else if ((z == 1 || z == d->size_z - 2) && x > 1 &&
					 x < d->size_x - 2 && y > 1 && y < d->size_y - 2)
					set = LBM_ACCEL;
				*f = wl_u2f(wl_f2u(*f) | set);
			}
	/* the obstacle file: spheres of radius 2..6 cells inside the cavity */
	for (int s = 0; s < spheres; s++) {
		double r = 2 + 4 * wl_unit(seed, 100, (uint64_t)s);
		double cx = d->size_x * wl_unit(seed, 101, (uint64_t)s);
		double cy = d->size_y * wl_unit(seed, 102, (uint64_t)s);
		double cz = d->size_z * wl_unit(seed, 103, (uint64_t)s);

		int lo[3] = {(int)(cx - r), (int)(cy - r), (int)(cz - r)};
		int hi[3] = {(int)(cx + r) + 1, (int)(cy + r) + 1, (int)(cz + r) + 1};

		for (int z = lo[2] < 0 ? 0 : lo[2]; z < d->size_z && z <= hi[2]; z++)
			for (int y = lo[1] < 0 ? 0 : lo[1]; y < d->size_y && y <= hi[1]; y++)
				for (int x = lo[0] < 0 ? 0 : lo[0]; x < d->size_x && x <= hi[0];
				     x++) {
					float *f = &g[lbm_index(d, x, y, z, FLAGS)];

					if ((x - cx) * (x - cx) + (y - cy) * (y - cy) +
						(z - cz) * (z - cz) <=
					    r * r)
						*f = wl_u2f(wl_f2u(*f) | LBM_OBSTACLE);
				}
	}
}

/* One time step of the whole grid: the same collision and scatter, cell by cell. */
static void lbm_step(const struct lbm_dim *d, const float *src, float *dst)
{
	float in[LBM_DISTR], out[LBM_DISTR];

	for (int z = 0; z < d->size_z; z++)
		for (int y = 0; y < d->size_y; y++)
			for (int x = 0; x < d->size_x; x++) {
				for (int e = 0; e < LBM_DISTR; e++)
					in[e] = src[lbm_index(d, x, y, z, e)];
				lbm_collide(in, wl_f2u(src[lbm_index(d, x, y, z, FLAGS)]), out);
				for (int e = 0; e < LBM_DISTR; e++)
					dst[lbm_index(d, x + lbm_dir[e][0], y + lbm_dir[e][1],
						      z + lbm_dir[e][2], e)] = out[e];
			}
}

int parboil_lbm_main(struct gpu_host *h)
{
	bool full = gh_size(h) == GPU_SIZE_FULL;
	struct lbm_dim d = {
	    .size_x = LBM_SIZE_X,
	    .size_y = full ? 120 : (int)wl_by_size(h, 4, 12, 60),
	    .size_z = full ? 150 : (int)wl_by_size(h, 4, 10, 40),
	};
	unsigned steps = full ? 2 : (unsigned)wl_by_size(h, 2, 3, 2);
	struct lbm_args a;
	struct gpu_kernel kern = {
	    .name = "performStreamCollide_kernel",
	    .warps_per_cta = LBM_WARPS,
	    .regs_per_thread = 40,
	    .fn = lbm_kernel,
	    .args = &a,
	};
	uint64_t seed = gh_seed(h) ^ TAG_LBM, dev[2];
	float *host[2] = {NULL, NULL}, *got = NULL;
	size_t bytes;
	int err = -CS_ENOMEM;

	d.padded_x = d.size_x + LBM_PADDING_X;
	d.padded_y = d.size_y;
	d.padded_z = d.size_z + LBM_PADDING_Z;
	d.total_padded = (int64_t)d.padded_x * d.padded_y * d.padded_z;
	d.margin = lbm_index(&d, 0, 0, 2, 0); /* REAL_MARGIN */
	d.words = d.total_padded * LBM_ENTRIES +
		  2 * (2 * (int64_t)d.padded_x * d.padded_y * LBM_ENTRIES); /* + 2 TOTAL_MARGIN */
	bytes = (size_t)d.words * sizeof(float);
	kern.grid_x = (unsigned)d.size_y;
	kern.grid_y = (unsigned)d.size_z;
	a.d = d;
	host[0] = calloc((size_t)d.words, sizeof(float));
	host[1] = calloc((size_t)d.words, sizeof(float));
	got = malloc(bytes);
	if (!host[0] || !host[1] || !got)
		goto out;
	/* MAIN_initialize: both grids initialised alike (LBM_initializeGrid and the LDC cells) */
	lbm_init(&d, host[0] + d.margin, seed);
	memcpy(host[1], host[0], bytes);
	dev[0] = wl_upload(h, host[0], bytes);
	dev[1] = wl_upload(h, host[1], bytes);
	for (unsigned t = 0; t < steps; t++) {
		a.src = dev[t & 1] + (uint64_t)d.margin * 4;
		a.dst = dev[(t + 1) & 1] + (uint64_t)d.margin * 4;
		err = gh_launch(h, &kern);
		if (err)
			goto out;
		/* the reference's step, same grids */
		lbm_step(&d, host[t & 1] + d.margin, host[(t + 1) & 1] + d.margin);
	}
	/* the result: the last destination (MAIN_finalize reads srcGrid after the swap) */
	gh_corrupt(
	    h, a.dst + (uint64_t)(4 * lbm_index(&d, d.size_x / 2, d.size_y / 2, d.size_z / 2, C)),
	    4);
	gh_read(h, dev[steps & 1], got, bytes);
	{
		const float *want = host[steps & 1];
		int64_t bad = 0, first = 0;

		for (int64_t i = 0; i < d.words; i++)
			if (wl_f2u(got[i]) != wl_f2u(want[i]) && bad++ == 0)
				first = i;
		if (bad) {
			int64_t o = first - d.margin, plane = (int64_t)d.padded_x * d.padded_y;
			int64_t e = o >= 0 ? o / d.total_padded : -1;
			int64_t r = o - (e >= 0 ? e : 0) * d.total_padded;

			err = gh_fail(h,
				      "lbm: grid word %" PRId64 " (element %" PRId64 ", x %" PRId64
				      " y %" PRId64 " z %" PRId64 " of the padded layout) = %.9g, "
				      "want %.9g after %u steps (%" PRId64 " of %" PRId64
				      " words differ)",
				      o, e, r % d.padded_x, r % plane / d.padded_x, r / plane,
				      (double)got[first], (double)want[first], steps, bad, d.words);
			goto out;
		}
	}
	gh_note(h,
		"lbm: %dx%dx%d cells, %u steps of %ux%u CTAs of %d threads, every word of the "
		"final grid bit-exact",
		d.size_x, d.size_y, d.size_z, steps, kern.grid_x, kern.grid_y, d.size_x);
	err = 0;
out:
	free(host[0]);
	free(host[1]);
	free(got);
	return err;
}
