/*
 * workloads/bench/hs.c - HotSpot (Rodinia `hotspot`, Che et al., IISWC 2009).
 *
 * Transient thermal simulation of a chip: a grid of cells, each with a temperature and a power
 * input, stepped with an explicit 5-point stencil. Rodinia's kernel calculate_temp computes a
 * "pyramid": a CTA of 16 x 16 threads loads a 16 x 16 tile of temperatures and powers into
 * shared memory, runs pyramid_height iterations on it (the valid region shrinks by one cell on
 * each side per iteration, with __syncthreads between them) and writes the inner
 * (16 - 2 pyramid_height)^2 cells, so the tiles overlap by pyramid_height cells (halo) and
 * one launch advances pyramid_height time steps. The host launches ceil(iterations /
 * pyramid_height) kernels, ping-ponging between two temperature buffers.
 *
 * No coherence needed: a kernel reads only the source buffer (written by the previous launch)
 * and the power grid, and writes each destination cell from exactly one thread.
 *
 * Input: temperatures in [323, 343) K and powers in [0, 1e-3) W from the seed; chip constants
 * as Rodinia's (0.016 m x 0.016 m, 0.5 mm, ambient 80). Check: a host reference steps the
 * whole grid cell by cell with edge cells clamped (what the pyramid computes) through the same
 * function, so the output must be bit-exact.
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_HS	   0x686f7473706f7400ull
#define BLOCK_SIZE 16 /* Rodinia: the CTA is BLOCK_SIZE x BLOCK_SIZE threads */
#define HS_WARPS   (BLOCK_SIZE * BLOCK_SIZE / WARP_LANES)

/* Rodinia's chip constants (hotspot.cu). */
#define MAX_PD	     (3.0e6)
#define PRECISION    0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI	     100
#define FACTOR_CHIP  0.5

/*
 * Issue slots per warp (SASS-like count of calculate_temp; a double-precision instruction
 * counts 8: the GTX 480 runs double precision at 1/8 of the single-precision rate, and
 * Rodinia's expression is evaluated in double because of its 2.0 literals):
 * prologue: 4 S2R, small block, blkX/blkY/max (6 IMAD/IADD), yidx, xidx, index (3), load range
 *   test (4 ISETP + 2 PSETP + BRA), step/Cap (IEEE division ~8), 3 reciprocals (~4 each): 40;
 * after the load: validYmin/max, validXmin/max (4 x 3), N, S, W, E clamps (4 x 2): 20;
 * per iteration: loop test, i == iteration - 1 test, computed flag (3 + 2 + 1), IN_RANGE x 4
 *   (8 ISETP + 3 PSETP + BRA): 18;
 * per cell update: 6 shared-memory addresses (4), 3 FADD + FMUL in single precision, 9 F2F
 *   conversions, 10 double-precision DADD/DMUL x 8 (= 80): 97.
 */
#define HS_PROLOGUE 40
#define HS_VALID    20
#define HS_ITER	    18
#define HS_DP_COST  8
#define HS_CELL	    (17 + 10 * HS_DP_COST)

struct hs_coef {
	float step_div_cap, rx_1, ry_1, rz_1, amb;
};

struct hs_args {
	uint64_t power, src, dst; /* float [rows][cols] */
	unsigned cols, rows, border_cols, border_rows, iteration, block_cols;
	float cap, rx, ry, rz, step;
};

/* The kernel's derived constants (step_div_Cap = step/Cap; Rx_1 = 1/Rx ...). */
static struct hs_coef hs_coef_of(const struct hs_args *a)
{
	struct hs_coef k = {.step_div_cap = a->step / a->cap,
			    .rx_1 = 1 / a->rx,
			    .ry_1 = 1 / a->ry,
			    .rz_1 = 1 / a->rz,
			    .amb = 80.0f};

	return k;
}

/* One cell update, Rodinia's expression with its types (float operands, double literals);
 * shared by the kernel and the host reference (noinline: one copy of the machine code). */
static __attribute__((noinline)) float hs_cell(float c, float n, float s, float e, float w, float p,
					       const struct hs_coef *k)
{
	return c + k->step_div_cap * (p + (s + n - 2.0 * c) * k->ry_1 +
				      (e + w - 2.0 * c) * k->rx_1 + (k->amb - c) * k->rz_1);
}

static bool in_range(int x, int lo, int hi)
{
	return x >= lo && x <= hi;
}

/* ---- kernel --------------------------------------------------------------------------------- */

struct hs_smem {
	float temp[BLOCK_SIZE][BLOCK_SIZE];  /* temp_on_cuda */
	float power[BLOCK_SIZE][BLOCK_SIZE]; /* power_on_cuda */
	float temp_t[BLOCK_SIZE][BLOCK_SIZE];
};

static void hs_kernel(struct gpu_warp *w)
{
	const struct hs_args *a = gw_args(w);
	struct hs_smem *sm = gw_smem(w);
	struct hs_coef k = hs_coef_of(a);
	int iter = (int)a->iteration, bs = BLOCK_SIZE;
	int bx = (int)(gw_cta(w) % a->block_cols), by = (int)(gw_cta(w) / a->block_cols);
	int rows = (int)a->rows, cols = (int)a->cols;
	int small = BLOCK_SIZE - iter * 2;
	int blk_y = small * by - (int)a->border_rows, blk_x = small * bx - (int)a->border_cols;
	int blk_ymax = blk_y + BLOCK_SIZE - 1, blk_xmax = blk_x + BLOCK_SIZE - 1;
	int valid_ymin = blk_y < 0 ? -blk_y : 0, valid_xmin = blk_x < 0 ? -blk_x : 0;
	int valid_ymax = blk_ymax > rows - 1 ? bs - 1 - (blk_ymax - rows + 1) : bs - 1;
	int valid_xmax = blk_xmax > cols - 1 ? bs - 1 - (blk_xmax - cols + 1) : bs - 1;
	int tx[WARP_LANES], ty[WARP_LANES];
	uint64_t off[WARP_LANES], addr[WARP_LANES];
	uint32_t t[WARP_LANES] = {0}, p[WARP_LANES] = {0};
	uint32_t mask = 0, computed = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		int yidx, xidx;

		tx[l] = (int)(l % BLOCK_SIZE);
		ty[l] = (int)(gw_warp(w) * 2 + l / BLOCK_SIZE);
		yidx = blk_y + ty[l];
		xidx = blk_x + tx[l];
		off[l] = 0;
		if (in_range(yidx, 0, rows - 1) && in_range(xidx, 0, cols - 1)) {
			mask |= 1u << l;
			off[l] = (uint64_t)(cols * yidx + xidx) * 4;
		}
	}
	gw_compute(w, HS_PROLOGUE);
	if (mask) {
		uint64_t pa[WARP_LANES];

		for (unsigned l = 0; l < WARP_LANES; l++) {
			pa[l] = a->power + off[l];
			addr[l] = a->src + off[l];
		}
		gw_ld32v(w, addr, mask, t);
		gw_ld32v(w, pa, mask, p);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (!(mask >> l & 1))
				continue;
			sm->temp[ty[l]][tx[l]] = wl_u2f(t[l]);
			sm->power[ty[l]][tx[l]] = wl_u2f(p[l]);
		}
		gw_smem_access(w);
		gw_smem_access(w);
	}
	gw_barrier(w);
	gw_compute(w, HS_VALID);
	for (int i = 0; i < iter; i++) {
		computed = 0;
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (in_range(tx[l], i + 1, bs - i - 2) &&
			    in_range(ty[l], i + 1, bs - i - 2) &&
			    in_range(tx[l], valid_xmin, valid_xmax) &&
			    in_range(ty[l], valid_ymin, valid_ymax))
				computed |= 1u << l;
		gw_compute(w, HS_ITER);
		if (computed) {
			for (unsigned l = 0; l < WARP_LANES; l++) {
				int x = tx[l], y = ty[l];
				int n = y - 1 < valid_ymin ? valid_ymin : y - 1;
				int s = y + 1 > valid_ymax ? valid_ymax : y + 1;
				int wst = x - 1 < valid_xmin ? valid_xmin : x - 1;
				int e = x + 1 > valid_xmax ? valid_xmax : x + 1;

				if (!(computed >> l & 1))
					continue;
				sm->temp_t[y][x] =
				    hs_cell(sm->temp[y][x], sm->temp[n][x], sm->temp[s][x],
					    sm->temp[y][e], sm->temp[y][wst], sm->power[y][x], &k);
			}
			for (unsigned j = 0; j < 6; j++) /* centre, S, N, E, W, power */
				gw_smem_access(w);
			gw_compute(w, HS_CELL);
			gw_smem_access(w); /* temp_t store */
		}
		gw_barrier(w);
		if (i == iter - 1)
			break;
		if (computed) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (computed >> l & 1)
					sm->temp[ty[l]][tx[l]] = sm->temp_t[ty[l]][tx[l]];
			gw_smem_access(w);
			gw_smem_access(w);
		}
		gw_barrier(w);
	}
	if (computed) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			t[l] = wl_f2u(sm->temp_t[ty[l]][tx[l]]);
			addr[l] = a->dst + off[l];
		}
		gw_st32v(w, addr, computed, t);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

/* One time step of the whole grid, edge neighbours clamped to the cell itself. */
static void hs_step(const float *in, float *out, const float *pw, int rows, int cols,
		    const struct hs_coef *k)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			int n = r > 0 ? r - 1 : r, s = r < rows - 1 ? r + 1 : r;
			int wst = c > 0 ? c - 1 : c, e = c < cols - 1 ? c + 1 : c;
			size_t i = (size_t)r * cols + c;

			out[i] =
			    hs_cell(in[i], in[(size_t)n * cols + c], in[(size_t)s * cols + c],
				    in[(size_t)r * cols + e], in[(size_t)r * cols + wst], pw[i], k);
		}
}

int bench_hs_main(struct gpu_host *h)
{
	unsigned side = (unsigned)wl_by_size(h, 40, 256, 512);
	unsigned pyramid = 2;
	unsigned total = (unsigned)wl_by_size(h, 3, 4, 3);
	uint64_t seed = gh_seed(h) ^ TAG_HS;
	struct hs_args a = {.cols = side, .rows = side};
	struct gpu_kernel kern = {.name = "calculate_temp",
				  .warps_per_cta = HS_WARPS,
				  .regs_per_thread = 32,
				  .smem_bytes = sizeof(struct hs_smem),
				  .fn = hs_kernel,
				  .args = &a};
	size_t cells = (size_t)side * side;
	float *temp = malloc(cells * sizeof(float)), *pw = malloc(cells * sizeof(float));
	float *tmp = malloc(cells * sizeof(float));
	uint64_t buf[2];
	unsigned small_block = BLOCK_SIZE - pyramid * 2, launches = 0;
	int src = 1, dst = 0, err = -CS_ENOMEM;
	struct hs_coef k;

	if (!temp || !pw || !tmp)
		goto out;
	for (size_t i = 0; i < cells; i++) {
		temp[i] = (float)(323.0 + 20.0 * wl_unit(seed, 0, i));
		pw[i] = (float)(1e-3 * wl_unit(seed, 1, i));
	}
	/* Rodinia's compute_tran_temp: the constants with their C types. */
	{
		float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f;
		float grid_height = chip_height / a.rows, grid_width = chip_width / a.cols;
		float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);

		a.cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
		a.rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
		a.ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
		a.rz = t_chip / (K_SI * grid_height * grid_width);
		a.step = PRECISION / max_slope;
	}
	a.border_cols = a.border_rows = pyramid;
	a.block_cols = (side + small_block - 1) / small_block;
	kern.ctas = a.block_cols * ((side + small_block - 1) / small_block);
	a.power = wl_upload(h, pw, cells * sizeof(float));
	buf[0] = wl_upload(h, temp, cells * sizeof(float));
	buf[1] = wl_alloc_zero(h, cells * sizeof(float));
	for (unsigned t = 0; t < total; t += pyramid) {
		int x = src;

		src = dst;
		dst = x;
		a.iteration = pyramid < total - t ? pyramid : total - t;
		a.src = buf[src];
		a.dst = buf[dst];
		err = gh_launch(h, &kern);
		if (err)
			goto out;
		launches++;
	}
	k = hs_coef_of(&a);
	for (unsigned t = 0; t < total; t++) {
		float *x = temp;

		hs_step(temp, tmp, pw, (int)side, (int)side, &k);
		temp = tmp;
		tmp = x;
	}
	{
		uint64_t first, bad;
		float got;

		bad = wl_check_float(h, buf[dst], temp, cells, 0, 0, &first, &got);
		if (bad) {
			err = gh_fail(h,
				      "hs: temperature of cell (%" PRIu64 ", %" PRIu64
				      ") = %.9g, want %.9g after %u steps (%" PRIu64
				      " of %zu cells differ)",
				      first / side, first % side, (double)got, (double)temp[first],
				      total, bad, cells);
			goto out;
		}
	}
	gh_note(
	    h,
	    "hs: %ux%u grid, %u steps in %u launches of %u CTAs (pyramid height %u), every cell "
	    "bit-exact",
	    side, side, total, launches, kern.ctas, pyramid);
	err = 0;
out:
	free(temp);
	free(pw);
	free(tmp);
	return err;
}
