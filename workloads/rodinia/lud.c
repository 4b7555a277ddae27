/*
 * workloads/rodinia/lud.c - LU decomposition (Rodinia `lud`, Che et al., IISWC 2009).
 *
 * In-place LU factorisation without pivoting of an n x n float matrix (row-major), Rodinia's
 * blocked CUDA version (lud_kernel.cu, BLOCK_SIZE 16): for each 16-wide step at offset o the
 * host launches lud_diagonal (1 CTA of 16 threads: factorises the diagonal block in shared
 * memory), lud_perimeter ((n - o) / 16 - 1 CTAs of 32 threads: CTA b solves the block row
 * (o, o + 16 (b + 1)) with the diagonal block's L, threads 0..15, and the block column
 * (o + 16 (b + 1), o) with its U, threads 16..31; three 16 x 16 shared tiles) and lud_internal
 * (a 2-D grid of ((n - o) / 16 - 1)^2 CTAs of 16 x 16 threads: each subtracts the product of
 * its perimeter column tile and row tile, staged in two shared tiles, from its block); a last
 * lud_diagonal factorises the bottom-right block. The result holds U on and above the
 * diagonal and L (unit diagonal implied) below it.
 *
 * No coherence needed: each launch reads blocks that earlier launches wrote and writes blocks
 * that no other CTA of the launch reads.
 *
 * Input: A = L U from the seed, shaped as Rodinia's gen_input (L unit lower-triangular and U
 * upper-triangular with entries uniform in [0, 1)), except that U's diagonal is drawn from
 * [1, 2) so that no pivot is near zero. Check: every element of the factorised matrix, bit
 * for bit, against a host reference that runs the same blocked algorithm through the same
 * arithmetic functions in the same order.
 *
 * Sizes (n; launches): tiny 96, 16; small 256 (Rodinia's run script, `lud_cuda -s 256`), 46;
 * default and full 512 (Rodinia's 512.dat), 94.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_LUD	  0x6c75640000000000ull
#define LUD_BLOCK 16 /* Rodinia's BLOCK_SIZE */
#define LUD_HALF  0x0000ffffu
#define LUD_UPPER 0xffff0000u
#define LUD_FDIV  10 /* an IEEE single-precision division (nvcc's subroutine) */

/*
 * Issue slots per warp (SASS-like counts of lud_kernel.cu; the loops over BLOCK_SIZE are
 * unrolled by nvcc, so the shared-memory addresses are constant offsets):
 * diagonal: prologue (S2R, array_offset) 4; per row loaded or stored: address IADD 1; per
 *   elimination step i: the tx > i test and branch twice, loop: 5; per multiply-subtract: FFMA
 *   (its two LDS counted as shared accesses) 1; the division: FDIV;
 * perimeter: prologue (S2R, tx < 16 branch, array_offset, (blockIdx.x + 1) * 16) 8; per row
 *   loaded or stored: address 2; per multiply-subtract 1; per division FDIV; branch 2 per path;
 * internal: prologue (4 S2R, global_row_id, global_col_id, 3 addresses) 16; 16 FFMA; FADD
 *   and the store's address 3.
 */
#define LUD_DIAG_PRO  4
#define LUD_DIAG_ROW  1
#define LUD_DIAG_STEP 5
#define LUD_FMA	      1
#define LUD_PERI_PRO  8
#define LUD_PERI_ROW  2
#define LUD_PERI_PATH 2
#define LUD_INT_PRO   16
#define LUD_INT_DOT   LUD_BLOCK
#define LUD_INT_END   3

struct lud_args {
	uint64_t m; /* float [dim * dim] */
	int dim, offset;
};

/* ---- arithmetic shared by the kernels and the host reference -------------------------------- */

/* acc -= a * b (one statement of the kernels' inner loops). */
static __attribute__((noinline)) float lud_msub(float acc, float a, float b)
{
	return acc - a * b;
}

/* lud_internal: m - sum over i of col[i] * row[i], sum accumulated from 0 in order. */
static __attribute__((noinline)) float lud_internal_value(float m, const float col[LUD_BLOCK],
							  const float row[LUD_BLOCK])
{
	float sum = 0;

	for (int i = 0; i < LUD_BLOCK; i++)
		sum += col[i] * row[i];
	return m - sum;
}

/* The diagonal block's elimination on shadow (lud_diagonal's loops; thread tx's statements
 * for every tx > i, no two threads touching the same element). */
static void lud_diag_column(float shadow[LUD_BLOCK][LUD_BLOCK], int i, int tx)
{
	for (int j = 0; j < i; j++)
		shadow[tx][i] = lud_msub(shadow[tx][i], shadow[tx][j], shadow[j][i]);
	shadow[tx][i] /= shadow[i][i];
}

static void lud_diag_row(float shadow[LUD_BLOCK][LUD_BLOCK], int i, int tx)
{
	for (int j = 0; j < i + 1; j++)
		shadow[i + 1][tx] = lud_msub(shadow[i + 1][tx], shadow[i + 1][j], shadow[j][tx]);
}

/* lud_perimeter: thread idx's column of the block row, and its row of the block column. */
static void lud_peri_row(float peri_row[LUD_BLOCK][LUD_BLOCK], float dia[LUD_BLOCK][LUD_BLOCK],
			 int idx)
{
	for (int i = 1; i < LUD_BLOCK; i++)
		for (int j = 0; j < i; j++)
			peri_row[i][idx] = lud_msub(peri_row[i][idx], dia[i][j], peri_row[j][idx]);
}

static void lud_peri_col(float peri_col[LUD_BLOCK][LUD_BLOCK], float dia[LUD_BLOCK][LUD_BLOCK],
			 int idx)
{
	for (int i = 0; i < LUD_BLOCK; i++) {
		for (int j = 0; j < i; j++)
			peri_col[idx][i] = lud_msub(peri_col[idx][i], peri_col[idx][j], dia[j][i]);
		peri_col[idx][i] /= dia[i][i];
	}
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* Loads (store = false) or stores the 16-float row segment at element `first` of m for the
 * lanes in mask (lane l: element first + l % 16), to or from vals[l]. */
static void lud_row_access(struct gpu_warp *w, int64_t first, uint32_t mask, float *vals,
			   bool store)
{
	const struct lud_args *a = gw_args(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	for (unsigned l = 0; l < WARP_LANES; l++) {
		addr[l] = a->m + (uint64_t)(first + l % LUD_BLOCK) * 4;
		v[l] = wl_f2u(vals[l]);
	}
	if (store) {
		gw_st32v(w, addr, mask, v);
		return;
	}
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			vals[l] = wl_u2f(v[l]);
}

/*
 * Rows [r0, r1) of a shared tile loaded from the matrix (store false) or stored to it, row i at
 * element first + (i - r0) * dim, by one half of the warp (LUD_HALF: lanes 0..15, LUD_UPPER:
 * 16..31; a lane holds column l % 16). Per row: its issue slots (cost) and the global load, then
 * the shared store; or the shared load, then the slots and the global store.
 */
static void lud_tile_rows(struct gpu_warp *w, float tile[LUD_BLOCK][LUD_BLOCK], int r0, int r1,
			  int64_t first, uint32_t half, unsigned cost, bool store)
{
	const struct lud_args *a = gw_args(w);
	int lane0 = half == LUD_UPPER ? LUD_BLOCK : 0;
	float vals[WARP_LANES] = {0};

	for (int i = r0; i < r1; i++, first += a->dim) {
		if (store) {
			for (int idx = 0; idx < LUD_BLOCK; idx++)
				vals[lane0 + idx] = tile[i][idx];
			gw_smem_access(w);
			gw_compute(w, cost);
			lud_row_access(w, first, half, vals, true);
		} else {
			gw_compute(w, cost);
			lud_row_access(w, first, half, vals, false);
			for (int idx = 0; idx < LUD_BLOCK; idx++)
				tile[i][idx] = vals[lane0 + idx];
			gw_smem_access(w);
		}
	}
}

struct lud_diag_smem {
	float shadow[LUD_BLOCK][LUD_BLOCK];
};

static void lud_diagonal_kernel(struct gpu_warp *w)
{
	const struct lud_args *a = gw_args(w);
	struct lud_diag_smem *sm = gw_smem(w);
	int64_t dim = a->dim, off = a->offset;

	gw_compute(w, LUD_DIAG_PRO);
	lud_tile_rows(w, sm->shadow, 0, LUD_BLOCK, off * dim + off, LUD_HALF, LUD_DIAG_ROW, false);
	gw_barrier(w);
	for (int i = 0; i < LUD_BLOCK - 1; i++) {
		/* threads tx > i: column i below the diagonal */
		for (int tx = i + 1; tx < LUD_BLOCK; tx++)
			lud_diag_column(sm->shadow, i, tx);
		gw_compute(w, LUD_DIAG_STEP);
		gw_smem_access(w); /* shadow[tx][i] */
		for (int j = 0; j < i; j++) {
			gw_smem_access(w);
			gw_smem_access(w);
			gw_compute(w, LUD_FMA);
		}
		gw_smem_access(w); /* shadow[i][i] */
		gw_compute(w, LUD_FDIV);
		gw_smem_access(w);
		gw_barrier(w);
		/* threads tx > i: row i + 1 right of the diagonal */
		for (int tx = i + 1; tx < LUD_BLOCK; tx++)
			lud_diag_row(sm->shadow, i, tx);
		gw_smem_access(w); /* shadow[i + 1][tx] */
		for (int j = 0; j < i + 1; j++) {
			gw_smem_access(w);
			gw_smem_access(w);
			gw_compute(w, LUD_FMA);
		}
		gw_smem_access(w);
		gw_barrier(w);
	}
	/* row 0 is not modified: rows 1..15 go back */
	lud_tile_rows(w, sm->shadow, 1, LUD_BLOCK, (off + 1) * dim + off, LUD_HALF, LUD_DIAG_ROW,
		      true);
}

struct lud_peri_smem {
	float dia[LUD_BLOCK][LUD_BLOCK];
	float peri_row[LUD_BLOCK][LUD_BLOCK];
	float peri_col[LUD_BLOCK][LUD_BLOCK];
};

/* The shared accesses and arithmetic of one path's triangular solve (120 multiply-subtracts;
 * div: the block column's 16 divisions). */
static void lud_peri_solve_cost(struct gpu_warp *w, bool div)
{
	for (int i = 0; i < LUD_BLOCK; i++) {
		if (i > 0 || div)
			gw_smem_access(w); /* the element being solved */
		for (int j = 0; j < i; j++) {
			gw_smem_access(w);
			gw_smem_access(w);
			gw_compute(w, LUD_FMA);
		}
		if (div) {
			gw_smem_access(w); /* dia[i][i] */
			gw_compute(w, LUD_FDIV);
		}
		if (i > 0 || div)
			gw_smem_access(w);
	}
}

/*
 * lud_perimeter: a CTA of one warp whose halves take the two sides of `if (threadIdx.x <
 * BLOCK_SIZE)`, which the warp runs one after the other (lanes 0..15, then 16..31): dia rows
 * 0..7 and the block row's 16 rows, then dia rows 8..15 and the block column's 16 rows.
 */
static void lud_perimeter_kernel(struct gpu_warp *w)
{
	const struct lud_args *a = gw_args(w);
	struct lud_peri_smem *sm = gw_smem(w);
	int64_t dim = a->dim, off = a->offset, bx = gw_cta(w);
	int64_t col0 = (bx + 1) * LUD_BLOCK;

	gw_compute(w, LUD_PERI_PRO);
	/* threads 0..15 */
	gw_compute(w, LUD_PERI_PATH);
	lud_tile_rows(w, sm->dia, 0, LUD_BLOCK / 2, off * dim + off, LUD_HALF, LUD_PERI_ROW, false);
	lud_tile_rows(w, sm->peri_row, 0, LUD_BLOCK, off * dim + off + col0, LUD_HALF, LUD_PERI_ROW,
		      false);
	/* threads 16..31 */
	gw_compute(w, LUD_PERI_PATH);
	lud_tile_rows(w, sm->dia, LUD_BLOCK / 2, LUD_BLOCK, (off + LUD_BLOCK / 2) * dim + off,
		      LUD_UPPER, LUD_PERI_ROW, false);
	lud_tile_rows(w, sm->peri_col, 0, LUD_BLOCK, (off + col0) * dim + off, LUD_UPPER,
		      LUD_PERI_ROW, false);
	gw_barrier(w);

	/* the block row (threads 0..15), then the block column (threads 16..31) */
	for (int idx = 0; idx < LUD_BLOCK; idx++)
		lud_peri_row(sm->peri_row, sm->dia, idx);
	gw_compute(w, LUD_PERI_PATH);
	lud_peri_solve_cost(w, false);
	for (int idx = 0; idx < LUD_BLOCK; idx++)
		lud_peri_col(sm->peri_col, sm->dia, idx);
	gw_compute(w, LUD_PERI_PATH);
	lud_peri_solve_cost(w, true);
	gw_barrier(w);

	/* stores: the block row's rows 1..15, then the block column's 16 rows */
	gw_compute(w, LUD_PERI_PATH);
	lud_tile_rows(w, sm->peri_row, 1, LUD_BLOCK, (off + 1) * dim + off + col0, LUD_HALF,
		      LUD_PERI_ROW, true);
	gw_compute(w, LUD_PERI_PATH);
	lud_tile_rows(w, sm->peri_col, 0, LUD_BLOCK, (off + col0) * dim + off, LUD_UPPER,
		      LUD_PERI_ROW, true);
}

struct lud_int_smem {
	float peri_row[LUD_BLOCK][LUD_BLOCK];
	float peri_col[LUD_BLOCK][LUD_BLOCK];
};

/* Addresses of the lanes' elements (row + ty, col + tx) of m. */
static void lud_elem_addrs(const struct lud_args *a, int64_t row, int64_t col, const int *tx,
			   const int *ty, uint64_t addr[WARP_LANES])
{
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->m + (uint64_t)((row + ty[l]) * a->dim + col + tx[l]) * 4;
}

/* tile[ty][tx] = m[row + ty][col + tx] for the warp's threads (lud_internal's loads). */
static void lud_int_tile(struct gpu_warp *w, float tile[LUD_BLOCK][LUD_BLOCK], int64_t row,
			 int64_t col, const int *tx, const int *ty)
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	lud_elem_addrs(gw_args(w), row, col, tx, ty, addr);
	gw_ld32v(w, addr, LANES_ALL, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		tile[ty[l]][tx[l]] = wl_u2f(v[l]);
	gw_smem_access(w);
}

/* lud_internal: CTA (blockIdx.x, blockIdx.y) of 16 x 16 threads, warp w holding rows ty = 2w,
 * 2w + 1 of the tile. */
static void lud_internal_kernel(struct gpu_warp *w)
{
	const struct lud_args *a = gw_args(w);
	struct lud_int_smem *sm = gw_smem(w);
	int64_t off = a->offset;
	int64_t grow = off + (gw_cta_y(w) + 1) * LUD_BLOCK,
		gcol = off + (gw_cta_x(w) + 1) * LUD_BLOCK;
	int tx[WARP_LANES], ty[WARP_LANES];
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		tx[l] = (int)gw_thread_x(w, l);
		ty[l] = (int)gw_thread_y(w, l);
	}
	gw_compute(w, LUD_INT_PRO);
	lud_int_tile(w, sm->peri_row, off, gcol, tx, ty);
	lud_int_tile(w, sm->peri_col, grow, off, tx, ty);
	gw_barrier(w);

	for (int i = 0; i < LUD_BLOCK; i++) { /* peri_col[ty][i], peri_row[i][tx] */
		gw_smem_access(w);
		gw_smem_access(w);
	}
	gw_compute(w, LUD_INT_DOT);
	lud_elem_addrs(a, grow, gcol, tx, ty, addr);
	gw_ld32v(w, addr, LANES_ALL, v);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		float row[LUD_BLOCK];

		for (int i = 0; i < LUD_BLOCK; i++)
			row[i] = sm->peri_row[i][tx[l]];
		v[l] = wl_f2u(lud_internal_value(wl_u2f(v[l]), sm->peri_col[ty[l]], row));
	}
	gw_compute(w, LUD_INT_END);
	gw_st32v(w, addr, LANES_ALL, v);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* Copies the 16 x 16 block at (r, c) of m into t, or back (to_m). */
static void lud_tile(float *m, int64_t dim, int64_t r, int64_t c, float t[LUD_BLOCK][LUD_BLOCK],
		     bool to_m)
{
	for (int i = 0; i < LUD_BLOCK; i++)
		for (int j = 0; j < LUD_BLOCK; j++) {
			float *e = &m[(r + i) * dim + c + j];

			if (to_m)
				*e = t[i][j];
			else
				t[i][j] = *e;
		}
}

static void lud_diagonal_ref(float *m, int64_t dim, int64_t off)
{
	float shadow[LUD_BLOCK][LUD_BLOCK];

	lud_tile(m, dim, off, off, shadow, false);
	for (int i = 0; i < LUD_BLOCK - 1; i++) {
		for (int tx = i + 1; tx < LUD_BLOCK; tx++)
			lud_diag_column(shadow, i, tx);
		for (int tx = i + 1; tx < LUD_BLOCK; tx++)
			lud_diag_row(shadow, i, tx);
	}
	lud_tile(m, dim, off, off, shadow, true);
}

/* The same blocked algorithm as lud_cuda() (each launch's CTAs touch disjoint blocks, so
 * running them one after another is what the GPU computes). */
static void lud_reference(float *m, int64_t dim)
{
	float dia[LUD_BLOCK][LUD_BLOCK], row[LUD_BLOCK][LUD_BLOCK], col[LUD_BLOCK][LUD_BLOCK];
	int64_t off;

	for (off = 0; off < dim - LUD_BLOCK; off += LUD_BLOCK) {
		int64_t nb = (dim - off) / LUD_BLOCK - 1;

		lud_diagonal_ref(m, dim, off);
		lud_tile(m, dim, off, off, dia, false);
		for (int64_t b = 0; b < nb; b++) {
			int64_t c0 = off + (b + 1) * LUD_BLOCK;

			lud_tile(m, dim, off, c0, row, false);
			lud_tile(m, dim, c0, off, col, false);
			for (int idx = 0; idx < LUD_BLOCK; idx++) {
				lud_peri_row(row, dia, idx);
				lud_peri_col(col, dia, idx);
			}
			lud_tile(m, dim, off, c0, row, true);
			lud_tile(m, dim, c0, off, col, true);
		}
		for (int64_t by = 0; by < nb; by++)
			for (int64_t bx = 0; bx < nb; bx++) {
				int64_t r0 = off + (by + 1) * LUD_BLOCK,
					c0 = off + (bx + 1) * LUD_BLOCK;

				lud_tile(m, dim, off, c0, row, false);
				lud_tile(m, dim, r0, off, col, false);
				for (int ty = 0; ty < LUD_BLOCK; ty++)
					for (int tx = 0; tx < LUD_BLOCK; tx++) {
						float r[LUD_BLOCK];
						float *e = &m[(r0 + ty) * dim + c0 + tx];

						for (int i = 0; i < LUD_BLOCK; i++)
							r[i] = row[i][tx];
						*e = lud_internal_value(*e, col[ty], r);
					}
			}
	}
	lud_diagonal_ref(m, dim, off);
}

/* A = L U: L unit lower-triangular, U upper-triangular, off-diagonal entries uniform in
 * [0, 1), U's diagonal in [1, 2); the product in double, rounded once. Returns 0 or
 * -CS_ENOMEM. */
static int lud_input(float *m, int64_t dim, uint64_t seed)
{
	size_t n = (size_t)(dim * dim);
	double *l = malloc(n * sizeof(double)), *u = malloc(n * sizeof(double));

	if (!l || !u) {
		free(l);
		free(u);
		return -CS_ENOMEM;
	}
	for (int64_t i = 0; i < dim; i++)
		for (int64_t j = 0; j < dim; j++) {
			size_t e = (size_t)(i * dim + j);

			l[e] = i == j ? 1 : i > j ? wl_unit(seed, 0, e) : 0;
			u[e] = i == j ? 1 + wl_unit(seed, 1, e) : i < j ? wl_unit(seed, 1, e) : 0;
		}
	for (int64_t i = 0; i < dim; i++)
		for (int64_t j = 0; j < dim; j++) {
			int64_t kmax = i < j ? i : j;
			double sum = 0;

			for (int64_t k = 0; k <= kmax; k++)
				sum += l[i * dim + k] * u[k * dim + j];
			m[i * dim + j] = (float)sum;
		}
	free(l);
	free(u);
	return 0;
}

int rodinia_lud_main(struct gpu_host *h)
{
	int dim = (int)wl_by_size(h, 96, 256, 512); /* a multiple of 16 */
	size_t elems = (size_t)dim * dim;
	uint64_t seed = gh_seed(h) ^ TAG_LUD;
	struct lud_args a = {.dim = dim};
	struct gpu_kernel diag = {.name = "lud_diagonal",
				  .ctas = 1,
				  .warps_per_cta = 1,
				  .regs_per_thread = 16,
				  .smem_bytes = sizeof(struct lud_diag_smem),
				  .fn = lud_diagonal_kernel,
				  .args = &a};
	struct gpu_kernel peri = {.name = "lud_perimeter",
				  .warps_per_cta = 1,
				  .regs_per_thread = 24,
				  .smem_bytes = sizeof(struct lud_peri_smem),
				  .fn = lud_perimeter_kernel,
				  .args = &a};
	struct gpu_kernel inner = {.name = "lud_internal",
				   .warps_per_cta = LUD_BLOCK * LUD_BLOCK / WARP_LANES,
				   .regs_per_thread = 20,
				   .smem_bytes = sizeof(struct lud_int_smem),
				   .fn = lud_internal_kernel,
				   .args = &a,
				   .block_x = LUD_BLOCK};
	float *want = malloc(elems * sizeof(float)), *got = malloc(elems * sizeof(float));
	unsigned launches = 0;
	int err = -CS_ENOMEM, i;

	if (!want || !got)
		goto out;
	err = lud_input(want, dim, seed);
	if (err)
		goto out;
	a.m = wl_upload(h, want, elems * sizeof(float));

	for (i = 0; i < dim - LUD_BLOCK; i += LUD_BLOCK) {
		unsigned nb = (unsigned)((dim - i) / LUD_BLOCK - 1);

		a.offset = i;
		err = gh_launch(h, &diag);
		if (err)
			goto out;
		peri.ctas = nb;
		err = gh_launch(h, &peri);
		if (err)
			goto out;
		inner.grid_x = nb;
		inner.grid_y = nb;
		err = gh_launch(h, &inner);
		if (err)
			goto out;
		launches += 3;
	}
	a.offset = i;
	err = gh_launch(h, &diag);
	if (err)
		goto out;
	launches++;
	gh_corrupt(h, a.m + (elems - 1) * 4, 4);

	lud_reference(want, dim);
	gh_read(h, a.m, got, elems * sizeof(float));
	{
		size_t bad = 0, first = 0;

		for (size_t e = 0; e < elems; e++)
			if (wl_f2u(got[e]) != wl_f2u(want[e]) && bad++ == 0)
				first = e;
		if (bad) {
			size_t r = first / (size_t)dim, c = first % (size_t)dim;

			err = gh_fail(h, "lud: %c[%zu][%zu] = %.9g, want %.9g (%zu of %zu differ)",
				      r > c ? 'L' : 'U', r, c, (double)got[first],
				      (double)want[first], bad, elems);
			goto out;
		}
	}
	gh_note(h,
		"lud: %dx%d matrix, %u launches (16x16 blocks), every element of L and U "
		"bit-exact",
		dim, dim, launches);
	err = 0;
out:
	free(want);
	free(got);
	return err;
}
