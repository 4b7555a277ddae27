/*
 * workloads/rodinia/pathfinder.c - PathFinder (Rodinia `pathfinder`, Che et al., IISWC 2009).
 *
 * Dynamic programming over a grid of rows x cols small integer weights: the cheapest path from
 * the top row to each cell of the bottom row, moving down one row per step to the same column
 * or one of its two neighbours, dst[x] = wall[t][x] + min(src[x - 1], src[x], src[x + 1]).
 * Rodinia's pathfinder.cu runs it as a 1-D "pyramid": dynproc_kernel's CTA of BLOCK_SIZE = 256
 * threads loads 256 consecutive cells of the previous result row into shared prev[], then
 * computes pyramid_height rows in shared memory (shared result[], the valid range shrinking by
 * HALO = 1 column on each side per row, __syncthreads between rows and the copy result -> prev)
 * and writes the inner 256 - 2 pyramid_height columns, so neighbouring CTAs overlap by
 * pyramid_height columns on each side. The host launches ceil((rows - 1) / pyramid_height)
 * kernels, ping-ponging between two result rows (gpuResult[2]); a launch's wall rows are read
 * straight from global memory, each by exactly one thread per row.
 *
 * No coherence needed: a launch reads only the source row (written by the previous launch) and
 * the wall, and each column of the destination row is written by exactly one thread.
 *
 * Input: weights rand() % 10 as Rodinia's init(), here 0..9 from the seed. Check: every column
 * of the final row against a host reference that steps the grid row by row (edge neighbours
 * clamped to the cell itself, what the kernel's W/E clamping computes): integers, bit-exact.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_PF	      0x7061746866000000ull
#define PF_BLOCK_SIZE 256 /* Rodinia's BLOCK_SIZE: threads per CTA, columns per tile */
#define PF_HALO	      1	  /* halo width per side and row */
#define PF_WARPS      (PF_BLOCK_SIZE / WARP_LANES)

/*
 * Issue slots per warp (SASS-like count of dynproc_kernel):
 * prologue: 2 S2R, small_block_cols (IMAD), blkX (IMAD + IADD), blkXmax, xidx (2 IADD),
 *   validXmin (ISETP + SEL), validXmax (2 IADD + ISETP + SEL), W and E (2 x IADD + ISETP +
 *   SEL), isValid (2 ISETP + PSETP), the load's range test (2 ISETP + PSETP + BRA), the
 *   source address (ISCADD), the shared addresses of prev[tx], prev[W], prev[E] (3): 30;
 * per row: loop increment, compare and branch (3), IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2)
 *   && isValid (2 IADD + 2 ISETP + PSETP + BRA), i == iteration - 1 (IADD + ISETP + BRA): 12;
 * per computed cell: two IMNMX, index = cols * (startStep + i) + xidx (IADD + IMAD), the
 *   wall address (ISCADD), shortest + wall (IADD): 6;
 * the final store: computed test and branch, address: 3.
 */
#define PF_PROLOGUE 30
#define PF_ROW	    12
#define PF_CELL	    6
#define PF_STORE    3

struct pf_args {
	uint64_t wall;	      /* int [rows - 1][cols]: rows 1.. of the grid */
	uint64_t src, dst;    /* int [cols]: gpuResult[src], gpuResult[dst] */
	int iteration;	      /* rows this launch computes: MIN(pyramid_height, rows - t - 1) */
	int cols, start_step; /* startStep = t: the launch's first wall row */
	int border;	      /* borderCols = pyramid_height * HALO */
};

struct pf_smem {
	int prev[PF_BLOCK_SIZE];
	int result[PF_BLOCK_SIZE];
};

static bool in_range(int x, int lo, int hi)
{
	return x >= lo && x <= hi;
}

/* The cell update, shared by the kernel and the host reference. */
static int pf_cell(int left, int up, int right, int wall)
{
	int shortest = left <= up ? left : up;

	shortest = shortest <= right ? shortest : right;
	return shortest + wall;
}

/* ---- kernel --------------------------------------------------------------------------------- */

static void pf_kernel(struct gpu_warp *w)
{
	const struct pf_args *a = gw_args(w);
	struct pf_smem *sm = gw_smem(w);
	int bx = (int)gw_cta_x(w), iter = a->iteration, cols = a->cols;
	int small_block_cols = PF_BLOCK_SIZE - iter * PF_HALO * 2;
	int blk_x = small_block_cols * bx - a->border, blk_xmax = blk_x + PF_BLOCK_SIZE - 1;
	int valid_xmin = blk_x < 0 ? -blk_x : 0;
	int valid_xmax =
	    blk_xmax > cols - 1 ? PF_BLOCK_SIZE - 1 - (blk_xmax - cols + 1) : PF_BLOCK_SIZE - 1;
	int tx[WARP_LANES], xidx[WARP_LANES], wst[WARP_LANES], est[WARP_LANES];
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];
	uint32_t load = 0, valid = 0, computed = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		tx[l] = (int)gw_thread_x(w, l);
		xidx[l] = blk_x + tx[l];
		wst[l] = tx[l] - 1 < valid_xmin ? valid_xmin : tx[l] - 1;
		est[l] = tx[l] + 1 > valid_xmax ? valid_xmax : tx[l] + 1;
		if (in_range(tx[l], valid_xmin, valid_xmax))
			valid |= 1u << l;
		if (in_range(xidx[l], 0, cols - 1)) {
			load |= 1u << l;
			addr[l] = a->src + (uint64_t)xidx[l] * 4;
		}
	}
	gw_compute(w, PF_PROLOGUE);
	if (load) {
		/* prev[tx] = gpuSrc[xidx] */
		gw_ld32v(w, addr, load, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (load >> l & 1)
				sm->prev[tx[l]] = (int)v[l];
		gw_smem_access(w);
	}
	gw_barrier(w);
	for (int i = 0; i < iter; i++) {
		computed = 0;
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (in_range(tx[l], i + 1, PF_BLOCK_SIZE - i - 2) && (valid >> l & 1))
				computed |= 1u << l;
		gw_compute(w, PF_ROW);
		if (computed) {
			/* left = prev[W], up = prev[tx], right = prev[E] */
			gw_smem_access(w);
			gw_smem_access(w);
			gw_smem_access(w);
			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] =
				    a->wall + ((uint64_t)cols * (uint64_t)(a->start_step + i) +
					       (uint64_t)xidx[l]) *
						  4;
			gw_ld32v(w, addr, computed, v);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (computed >> l & 1)
					sm->result[tx[l]] =
					    pf_cell(sm->prev[wst[l]], sm->prev[tx[l]],
						    sm->prev[est[l]], (int)v[l]);
			gw_compute(w, PF_CELL);
			gw_smem_access(w); /* result[tx] store */
		}
		gw_barrier(w);
		if (i == iter - 1)
			break;
		if (computed) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (computed >> l & 1)
					sm->prev[tx[l]] = sm->result[tx[l]];
			gw_smem_access(w);
			gw_smem_access(w);
		}
		gw_barrier(w);
	}
	gw_compute(w, PF_STORE);
	if (computed) {
		/* gpuResults[xidx] = result[tx] */
		gw_smem_access(w);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			addr[l] = a->dst + (uint64_t)xidx[l] * 4;
			v[l] = (uint32_t)sm->result[tx[l]];
		}
		gw_st32v(w, addr, computed, v);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

int rodinia_pathfinder_main(struct gpu_host *h)
{
	/* Rodinia's run: pathfinder 100000 100 20 (cols, rows, pyramid height) */
	int cols = (int)wl_by_size(h, 2000, 20000, 100000);
	int rows = (int)wl_by_size(h, 21, 51, 100);
	int pyramid = (int)wl_by_size(h, 5, 10, 20);
	uint64_t seed = gh_seed(h) ^ TAG_PF;
	size_t cells = (size_t)rows * cols;
	int border = pyramid * PF_HALO;
	int small_block = PF_BLOCK_SIZE - pyramid * PF_HALO * 2;
	int block_cols = cols / small_block + (cols % small_block == 0 ? 0 : 1);
	struct pf_args a = {.cols = cols, .border = border};
	struct gpu_kernel kern = {.name = "dynproc_kernel",
				  .ctas = (unsigned)block_cols,
				  .warps_per_cta = PF_WARPS,
				  .regs_per_thread = 16,
				  .smem_bytes = sizeof(struct pf_smem),
				  .fn = pf_kernel,
				  .args = &a};
	int *data = malloc(cells * sizeof(int));
	int *want = malloc((size_t)cols * sizeof(int)), *next = malloc((size_t)cols * sizeof(int));
	int *got = malloc((size_t)cols * sizeof(int));
	uint64_t result[2], wall;
	unsigned launches = 0;
	int src = 1, dst = 0, err = -CS_ENOMEM;
	uint64_t bad = 0, first = 0;

	if (!data || !want || !next || !got)
		goto out;
	for (size_t i = 0; i < cells; i++)
		data[i] = (int)(wl_value32(seed, 0, 0, i) % 10);
	/* gpuResult[0] = row 0; gpuWall = rows 1 .. rows - 1 */
	result[0] = wl_upload(h, data, (size_t)cols * sizeof(int));
	result[1] = wl_alloc_zero(h, (size_t)cols * sizeof(int));
	wall = wl_upload(h, data + cols, (cells - (size_t)cols) * sizeof(int));
	a.wall = wall;
	/* calc_path */
	for (int t = 0; t < rows - 1; t += pyramid) {
		int x = src;

		src = dst;
		dst = x;
		a.iteration = pyramid < rows - t - 1 ? pyramid : rows - t - 1;
		a.src = result[src];
		a.dst = result[dst];
		a.start_step = t;
		err = gh_launch(h, &kern);
		if (err)
			goto out;
		launches++;
	}
	gh_corrupt(h, result[dst] + (uint64_t)(cols / 2) * 4, 4);
	gh_read(h, result[dst], got, (size_t)cols * sizeof(int));

	/* reference: row by row, neighbours beyond the edges clamped to the cell itself */
	for (int x = 0; x < cols; x++)
		want[x] = data[x];
	for (int t = 1; t < rows; t++) {
		const int *wrow = data + (size_t)t * cols;
		int *tmp;

		for (int x = 0; x < cols; x++) {
			int l = x > 0 ? x - 1 : x, r = x < cols - 1 ? x + 1 : x;

			next[x] = pf_cell(want[l], want[x], want[r], wrow[x]);
		}
		tmp = want;
		want = next;
		next = tmp;
	}
	for (int x = 0; x < cols; x++)
		if (got[x] != want[x] && bad++ == 0)
			first = (uint64_t)x;
	if (bad) {
		err = gh_fail(h,
			      "pathfinder: column %" PRIu64
			      " of the last row = %d, want %d (%" PRIu64 " of %d columns wrong)",
			      first, got[first], want[first], bad, cols);
		goto out;
	}
	gh_note(h,
		"pathfinder: %d cols x %d rows, pyramid height %d, %u launches of %d CTAs, every "
		"column of the last row exact",
		cols, rows, pyramid, launches, block_cols);
	err = 0;
out:
	free(data);
	free(want);
	free(next);
	free(got);
	return err;
}
