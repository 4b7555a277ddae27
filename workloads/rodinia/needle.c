/*
 * workloads/rodinia/needle.c - Needleman-Wunsch (Rodinia `nw`, Che et al., IISWC 2009).
 *
 * Global alignment of two protein sequences of n residues: the (n + 1) x (n + 1) score matrix
 * M[i][j] = max(M[i-1][j-1] + ref[i][j], M[i][j-1] - penalty, M[i-1][j] - penalty), row 0 and
 * column 0 holding -i * penalty, ref[i][j] the BLOSUM62 score of residue i of one sequence
 * against residue j of the other. Rodinia's needle.cu cuts the matrix (without row and column
 * 0) into 16 x 16 blocks and sweeps their anti-diagonals: needle_cuda_shared_1 for the strips
 * of the top-left triangle (launch i has i CTAs), needle_cuda_shared_2 for those of the
 * bottom-right one. A CTA is 16 threads (one warp with 16 active lanes). It loads its block of
 * the reference matrix into shared ref[16][16] (16 coalesced 64-byte row loads), the corner,
 * the left column (one load of 16 scattered words) and the top row of its neighbours' scores
 * into shared temp[17][17], then sweeps the block's 31 anti-diagonals in shared memory (thread
 * tx computes the cell of column tx + 1 of each diagonal, a barrier after each) and stores its
 * 16 rows.
 *
 * No coherence needed: a launch reads only blocks that earlier launches wrote, and each block
 * is written by one CTA.
 *
 * Input: both sequences from the seed with residues in 1..10 as Rodinia's rand() % 10 + 1;
 * penalty 10 (Rodinia's run script). Check: every word of the score matrix against a host
 * reference running the plain row-by-row recurrence (integers: the result is the same whatever
 * the order).
 *
 * Sizes (sequence length n; blocks per side; launches): tiny 128, 8, 15; small 512, 32, 63;
 * default and full 4080, 255, 509. Rodinia's run script has `needle 2048 10`, but any n that is
 * a multiple of 512 (2048, 4096) aliases on the L2: the rows of a block are 4 (n + 1) bytes
 * apart, a multiple of 2 KiB (8 banks x 256 B) plus 4 B, and the blocks of a launch 64 n bytes
 * apart, so a whole launch falls into one or two of the 8 banks and a few dozen of their 1024
 * sets (docs/workloads.md, needle). 4080 (one block short of 4096) does not alias; its longest
 * launches (255 blocks, ~1.5 MB) overrun the 1 MB L2, which brings the L1 and L2 hit rates
 * near seed 003's Table 1 (docs/workloads.md; the seed does not state its input).
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_NW	   0x6e65656460000000ull
#define NW_BLOCK   16			  /* Rodinia's BLOCK_SIZE: threads per CTA, block side */
#define NW_LANES   ((1u << NW_BLOCK) - 1) /* the CTA's 16 threads: lanes 0..15 of its warp */
#define NW_PENALTY 10

/*
 * Issue slots per warp (SASS-like count of needle_cuda_shared_1/2):
 * prologue: 2 S2R, the block indices (2), index, index_n, index_w, index_nw (2 IMAD + 4 IADD),
 *   tx == 0 test and branch: 12;
 * per row of ref loaded or of temp stored: address IMAD/IADD and the shared-memory address: 2;
 * per diagonal step: loop increment, compare and branch, tx <= m compare and branch: 5;
 * per cell (the lanes with tx <= m): t_index_x, t_index_y (2), temp/ref shared addresses
 *   (3 IMAD/IADD), nw + ref, w - penalty, n - penalty (3 IADD), maximum (2 ISETP + 2 SEL): 12.
 */
#define NW_PROLOGUE 12
#define NW_ROW	    2
#define NW_STEP	    5
#define NW_CELL	    12

/* Rodinia's blosum62[24][24] (needle.cu). */
static const int8_t nw_blosum62[24][24] = {
    {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4},
    {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4},
    {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4},
    {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4},
    {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4},
    {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4},
    {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4},
    {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4},
    {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4},
    {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4},
    {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4},
    {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4},
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4},
    {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4},
    {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4},
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4},
    {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4},
    {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4},
    {-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4},
    {-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1},
};

struct nw_args {
	uint64_t reference, matrix; /* int32 [cols * cols] each, row-major */
	int cols, penalty;
	int strip;	 /* the launch's i: its anti-diagonal strip */
	int block_width; /* blocks per side */
};

struct nw_smem {
	int32_t temp[NW_BLOCK + 1][NW_BLOCK + 1];
	int32_t ref[NW_BLOCK][NW_BLOCK];
};

/* Rodinia's maximum(); shared by the kernels and the host reference. */
static int nw_maximum(int a, int b, int c)
{
	int k = a <= b ? b : a;

	return k <= c ? c : k;
}

static uint64_t nw_addr(uint64_t base, int index)
{
	return base + (uint64_t)index * 4;
}

/* One cell of the block in shared memory (t_index_y, t_index_x). */
static void nw_cell(struct nw_smem *sm, int y, int x, int penalty)
{
	sm->temp[y][x] = nw_maximum(sm->temp[y - 1][x - 1] + sm->ref[y - 1][x - 1],
				    sm->temp[y][x - 1] - penalty, sm->temp[y - 1][x] - penalty);
}

/* One diagonal step: the lanes with tx <= m compute a cell each (4 LDS, the arithmetic, 1
 * STS), then the barrier. second_half: the loop over the block's lower-right diagonals. */
static void nw_step(struct gpu_warp *w, struct nw_smem *sm, int m, bool second_half)
{
	const struct nw_args *a = gw_args(w);

	gw_compute(w, NW_STEP);
	for (int tx = 0; tx <= m; tx++) {
		if (second_half)
			nw_cell(sm, NW_BLOCK - tx, tx + NW_BLOCK - m, a->penalty);
		else
			nw_cell(sm, m - tx + 1, tx + 1, a->penalty);
	}
	for (unsigned i = 0; i < 4; i++)
		gw_smem_access(w);
	gw_compute(w, NW_CELL);
	gw_smem_access(w);
	gw_barrier(w);
}

/* temp[0][0] = matrix_cuda[index_nw] by thread 0. */
static void nw_load_corner(struct gpu_warp *w, struct nw_smem *sm, int index_nw)
{
	const struct nw_args *a = gw_args(w);
	uint64_t addr[WARP_LANES] = {nw_addr(a->matrix, index_nw)};
	uint32_t v[WARP_LANES];

	gw_ld32v(w, addr, 1, v);
	sm->temp[0][0] = (int32_t)v[0];
	gw_smem_access(w);
}

/* The body of needle_cuda_shared_1 (second = false) and _2: they differ in the block indices
 * and in where the corner load sits. */
static void nw_body(struct gpu_warp *w, int b_index_x, int b_index_y, bool second)
{
	const struct nw_args *a = gw_args(w);
	struct nw_smem *sm = gw_smem(w);
	int cols = a->cols;
	int base = cols * NW_BLOCK * b_index_y + NW_BLOCK * b_index_x;
	int index = base + cols + 1, index_n = base + 1, index_w = base + cols, index_nw = base;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	gw_compute(w, NW_PROLOGUE);
	if (!second)
		nw_load_corner(w, sm, index_nw);
	for (int ty = 0; ty < NW_BLOCK; ty++) {
		for (int tx = 0; tx < NW_BLOCK; tx++)
			addr[tx] = nw_addr(a->reference, index + tx + cols * ty);
		gw_compute(w, NW_ROW);
		gw_ld32v(w, addr, NW_LANES, v);
		for (int tx = 0; tx < NW_BLOCK; tx++)
			sm->ref[ty][tx] = (int32_t)v[tx];
		gw_smem_access(w);
	}
	gw_barrier(w);
	if (second)
		nw_load_corner(w, sm, index_nw);
	/* the left column: one word from each of 16 rows */
	for (int tx = 0; tx < NW_BLOCK; tx++)
		addr[tx] = nw_addr(a->matrix, index_w + cols * tx);
	gw_ld32v(w, addr, NW_LANES, v);
	for (int tx = 0; tx < NW_BLOCK; tx++)
		sm->temp[tx + 1][0] = (int32_t)v[tx];
	gw_smem_access(w);
	gw_barrier(w);
	for (int tx = 0; tx < NW_BLOCK; tx++)
		addr[tx] = nw_addr(a->matrix, index_n + tx);
	gw_ld32v(w, addr, NW_LANES, v);
	for (int tx = 0; tx < NW_BLOCK; tx++)
		sm->temp[0][tx + 1] = (int32_t)v[tx];
	gw_smem_access(w);
	gw_barrier(w);

	for (int m = 0; m < NW_BLOCK; m++)
		nw_step(w, sm, m, false);
	for (int m = NW_BLOCK - 2; m >= 0; m--)
		nw_step(w, sm, m, true);

	for (int ty = 0; ty < NW_BLOCK; ty++) {
		for (int tx = 0; tx < NW_BLOCK; tx++) {
			addr[tx] = nw_addr(a->matrix, index + ty * cols + tx);
			v[tx] = (uint32_t)sm->temp[ty + 1][tx + 1];
		}
		gw_compute(w, NW_ROW);
		gw_smem_access(w);
		gw_st32v(w, addr, NW_LANES, v);
	}
}

static void nw_kernel_1(struct gpu_warp *w)
{
	const struct nw_args *a = gw_args(w);
	int bx = (int)gw_cta_x(w);

	nw_body(w, bx, a->strip - 1 - bx, false);
}

static void nw_kernel_2(struct gpu_warp *w)
{
	const struct nw_args *a = gw_args(w);
	int bx = (int)gw_cta_x(w);

	nw_body(w, bx + a->block_width - a->strip, a->block_width - bx - 1, true);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* The whole recurrence row by row over the initial matrix (row and column 0 set). */
static void nw_reference(int32_t *score, const int32_t *ref, int cols, int penalty)
{
	for (int i = 1; i < cols; i++)
		for (int j = 1; j < cols; j++) {
			size_t c = (size_t)i * cols + j;

			score[c] = nw_maximum(score[c - cols - 1] + ref[c], score[c - 1] - penalty,
					      score[c - cols] - penalty);
		}
}

int rodinia_needle_main(struct gpu_host *h)
{
	int dim = (int)wl_by_size(h, 128, 512, 4080); /* a multiple of 16, as Rodinia requires */
	int cols = dim + 1, block_width = dim / NW_BLOCK;
	size_t cells = (size_t)cols * cols;
	uint64_t seed = gh_seed(h) ^ TAG_NW;
	struct nw_args a = {.cols = cols, .penalty = NW_PENALTY, .block_width = block_width};
	struct gpu_kernel kern = {.warps_per_cta = 1,
				  .regs_per_thread = 24,
				  .smem_bytes = sizeof(struct nw_smem),
				  .args = &a,
				  .grid_y = 1};
	int32_t *ref = calloc(cells, sizeof(int32_t)), *want = calloc(cells, sizeof(int32_t));
	int32_t *got = malloc(cells * sizeof(int32_t));
	uint8_t *seq_a = malloc((size_t)cols), *seq_b = malloc((size_t)cols);
	unsigned launches = 0;
	int err = -CS_ENOMEM;

	if (!ref || !want || !got || !seq_a || !seq_b)
		goto out;
	/* input_itemsets: residues 1..10 of the two sequences (row i, column j) */
	for (int i = 1; i < cols; i++) {
		seq_a[i] = (uint8_t)(wl_value32(seed, 0, 0, (uint64_t)i) % 10 + 1);
		seq_b[i] = (uint8_t)(wl_value32(seed, 1, 0, (uint64_t)i) % 10 + 1);
	}
	for (int i = 1; i < cols; i++)
		for (int j = 1; j < cols; j++)
			ref[(size_t)i * cols + j] = nw_blosum62[seq_a[i]][seq_b[j]];
	for (int i = 1; i < cols; i++) {
		want[(size_t)i * cols] = -i * NW_PENALTY;
		want[i] = -i * NW_PENALTY;
	}
	a.reference = wl_upload(h, ref, cells * sizeof(int32_t));
	a.matrix = wl_upload(h, want, cells * sizeof(int32_t));

	/* top-left triangle (strips of 1 .. block_width blocks), then bottom-right (block_width - 1
	 * .. 1), one launch per strip */
	for (int s = 1; s < 2 * block_width; s++) {
		bool top_left = s <= block_width;

		a.strip = top_left ? s : 2 * block_width - s;
		kern.name = top_left ? "needle_cuda_shared_1" : "needle_cuda_shared_2";
		kern.fn = top_left ? nw_kernel_1 : nw_kernel_2;
		kern.grid_x = (unsigned)a.strip;
		err = gh_launch(h, &kern);
		if (err)
			goto out;
		launches++;
	}
	gh_corrupt(h, a.matrix + (cells - 1) * 4, 4);

	nw_reference(want, ref, cols, NW_PENALTY);
	gh_read(h, a.matrix, got, cells * sizeof(int32_t));
	{
		size_t bad = 0, first = 0;

		for (size_t c = 0; c < cells; c++)
			if (got[c] != want[c] && bad++ == 0)
				first = c;
		if (bad) {
			err = gh_fail(h,
				      "needle: score (%zu, %zu) = %" PRId32 ", want %" PRId32
				      " (%zu of %zu scores differ)",
				      first / (size_t)cols, first % (size_t)cols, got[first],
				      want[first], bad, cells);
			goto out;
		}
	}
	gh_note(h,
		"needle: %dx%d score matrix (%d blocks of 16x16), %u launches, penalty %d, every "
		"score exact",
		cols, cols, block_width * block_width, launches, NW_PENALTY);
	err = 0;
out:
	free(ref);
	free(want);
	free(got);
	free(seq_a);
	free(seq_b);
	return err;
}
