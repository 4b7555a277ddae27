/*
 * workloads/rodinia/leukocyte.c - leukocyte detection (Rodinia `leukocyte`, Che et al., IISWC
 * 2009; Boyer et al., "Accelerating leukocyte tracking using CUDA", JPDC 2009).
 *
 * Detection of white blood cells in the first frame of an intravital video (Rodinia's
 * find_ellipse_kernel.cu) and the MGVF of the tracking of the next frame. The host crops the
 * frame to the blood vessel (rows TOP..BOTTOM: 219 rows x 640 columns in the original), takes
 * its x and y gradients (gradient_x/gradient_y of misc_math.c, in double, stored as float
 * column-major: element (row m, column n) at n * rows + m) and binds them to the textures
 * t_grad_x / t_grad_y.
 *
 * GICOV_kernel: one CTA per column i in [22, cols - 22), one thread per row j in [22, rows -
 * 22) (blockDim = rows - 44: 175 threads, 6 warps, in the original). For each of 7 sample
 * circles (radii 8, 10, ..., 20) and each of their 150 points, a thread reads the point's
 * offsets c_tX / c_tY and the angle's cos / sin from __constant__ memory (uniform across the
 * warp: one LDC each), fetches grad_x and grad_y at (i + tX, j + tY) from the textures (a warp's
 * lanes are consecutive rows: consecutive words) and accumulates p = gx cos + gy sin with
 * Welford's running mean and M2; the pixel's score is the largest mean^2 / var over the
 * circles, stored to gicov[i * rows + j] (zeroed before: the 22-pixel border stays 0).
 *
 * dilate_kernel: the GICOV matrix bound to texture t_img; one thread per pixel (176 threads per
 * CTA, pixels / 176 rounded to nearest CTAs: i = tid % rows, j = tid / rows), each the maximum of
 * the 25 x 25 neighbourhood where the disc structuring element c_strel (radius 12,
 * __constant__) is non-zero and inside the image; one LDC of the strel entry per neighbour in
 * the image, one texture fetch per non-zero entry. The result goes to dilated[i * cols + j]
 * (row-major: the warp's stores are strided by cols). Where the grid rounds down, the last
 * pixels are never written (they stay 0, as in the reference); where it rounds up, the original's
 * surplus threads would write pixel (i + 1, 0) of the next row, racing with its owner: here
 * threads past the image do nothing.
 *
 * IMGVF_kernel (track_ellipse_kernel.cu, the tracking of frame 1): one CTA of 320 threads per
 * cell, the cell's 41 x 81 sub-image of the next frame (the normalised gradient magnitude I,
 * which is also the initial IMGVF) in shared memory; each iteration every thread updates its
 * elements of the 11 "virtual blocks" of 320 (the eight neighbours' differences weighted by
 * regularised Heaviside steps of the motion direction, minus I (IMGVF - I) / lambda; I reread
 * from global memory), keeping the new value in a shared buffer until the next virtual block;
 * a tree reduction of the total change decides convergence (mean < 1e-5, at most 500
 * iterations). The original writes the previous block's values back while other warps may
 * still read them as neighbours (no barrier between): a race; here a barrier comes first, so an
 * iteration is a Jacobi sweep. (The kernel's float row index (e * (1.f / n)) misses e / n
 * for widths 41, 47, 55, 61, which the windows here never have.) The cells are the detection's
 * GICOV maxima above 1.8^2 (the strongest maximum if none), their sub-images cut as
 * ellipsetrack does; the host's snake evolution (ellipseevolve) is not ported.
 *
 * No coherence needed: read-only textures and constants, one writer per output word; each
 * kernel reads what the previous one wrote after the launch boundary, IMGVF_kernel its own
 * shared memory between barriers.
 *
 * Input: synthetic frames from the seed (uchar intensities: noisy background, leukocytes as
 * bright rings of radius 8..14 with darker interiors, moving up to 2 pixels a frame) instead of
 * the AVI. Check: every GICOV score, every dilated value and every IMGVF value bit for bit
 * against a host reference calling the same float functions in the same order (the per-point
 * and per-circle GICOV steps, the per-element IMGVF update), taking the same maxima (dilation)
 * and reducing in the kernel's tree order (IMGVF convergence).
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_LC	      0x6c65756b6f000000ull
#define LC_NPOINTS    150 /* sample points per circle */
#define LC_NCIRCLES   7	  /* sample circles: radii MIN_RAD + 2k */
#define LC_RADIUS     10  /* expected cell radius (find_ellipse.c) */
#define LC_MIN_RAD    (LC_RADIUS - 2)
#define LC_MAX_RAD    20	       /* find_ellipse_kernel.cu's MAX_RAD */
#define LC_MAXR	      (LC_MAX_RAD + 2) /* border the GICOV kernel skips */
#define LC_STREL_RAD  12
#define LC_STREL_SIZE (LC_STREL_RAD * 2 + 1)
#define LC_DILATE_TPB 176     /* dilate_CUDA's threads_per_block */
#define LC_PI	      3.14159 /* misc_math.h's PI */
#define LC_FRAME_ROWS 219     /* BOTTOM - TOP + 1 of the original crop */
#define LC_FRAME_COLS 640     /* the video's width */

/*
 * Issue slots per warp (SASS-like counts; the loads are the memory ops):
 * GICOV per point: y = j + tY, x = i + tX, addr = x * grad_m + y (3), p = gx * cos (FMUL) +
 *   gy * sin (FFMA), sum += p, delta = p - mean (2 FADD), (float)(n + 1) (IADD + I2F),
 *   IEEE division delta / (n + 1) (reciprocal, two Newton FFMAs, the range test: ~8),
 *   mean +=, p - mean, M2 FFMA (3), loop (IADD, ISETP, BRA): 23;
 * GICOV per circle: sum / 150 and M2 / 149 (two IEEE divisions, ~16), mean * mean, the
 *   quotient (~8), compare and select (2), loop (3): 30;
 * GICOV prologue: 2 S2R, i, j (2 IADD), zero max: 6; epilogue: store address (2);
 * dilate prologue: thread id IMAD, i = tid % m, j = tid / m (integer division ~20), centres:
 *   26; per strel row: y, two range tests, branch, loop: 6; per strel element: x, two range
 *   tests, branch, loop, strel index IMAD: 7; per non-zero element: FSETP of the strel value,
 *   address IMAD, FSETP + SEL of the maximum: 4; epilogue: address IMAD: 2.
 */
#define LC_GICOV_PROLOGUE 6
#define LC_GICOV_POINT	  23
#define LC_GICOV_CIRCLE	  30
#define LC_GICOV_STORE	  2
#define LC_DIL_PROLOGUE	  26
#define LC_DIL_ROW	  6
#define LC_DIL_ELEM	  7
#define LC_DIL_HIT	  4
#define LC_DIL_STORE	  2

struct lc_args {
	uint64_t grad_x, grad_y; /* float [cols][rows]: textures t_grad_x, t_grad_y */
	uint64_t gicov;		 /* float [cols][rows]: GICOV output, texture t_img */
	uint64_t dilated;	 /* float [rows][cols] */
	/* __constant__ memory */
	uint64_t c_sin, c_cos; /* float [NPOINTS] */
	uint64_t c_tx, c_ty;   /* int [NCIRCLES * NPOINTS] */
	uint64_t c_strel;      /* float [STREL_SIZE * STREL_SIZE] */
	int rows, cols;	       /* grad_m, grad_n (img_m, img_n for the dilation) */
	unsigned gicov_threads;
};

/* Welford's running statistics of one sample circle (the kernel's sum, M2, mean). */
struct lc_acc {
	float sum, m2, mean;
};

/* One sample point of a circle, the kernel's float expressions in order; shared by the kernel
 * and the host reference (noinline: one copy of the machine code). */
static __attribute__((noinline)) void lc_point(struct lc_acc *a, float gx, float gy, float c,
					       float s, int n)
{
	float p = gx * c + gy * s;
	float delta;

	a->sum += p;
	delta = p - a->mean;
	a->mean = a->mean + (delta / (float)(n + 1));
	a->m2 = a->m2 + (delta * (p - a->mean));
}

/* End of a circle: the running maximum of mean^2 / var (max_GICOV). */
static __attribute__((noinline)) float lc_circle(const struct lc_acc *a, float max_gicov)
{
	float mean = a->sum / ((float)LC_NPOINTS);
	float var = a->m2 / ((float)(LC_NPOINTS - 1));

	if (((mean * mean) / var) > max_gicov)
		max_gicov = (mean * mean) / var;
	return max_gicov;
}

/* ---- kernels -------------------------------------------------------------------------------- */

static void lc_gicov_kernel(struct gpu_warp *w)
{
	const struct lc_args *a = gw_args(w);
	int i = (int)gw_cta(w) + LC_MAXR; /* column */
	int j[WARP_LANES];		  /* row */
	float max_gicov[WARP_LANES] = {0};
	uint64_t ax[WARP_LANES], ay[WARP_LANES], gx[WARP_LANES], gy[WARP_LANES];
	uint32_t mask = 0, out[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned t = gw_thread_x(w, l);

		j[l] = (int)t + LC_MAXR;
		if (t < a->gicov_threads)
			mask |= 1u << l;
	}
	gw_compute(w, LC_GICOV_PROLOGUE);
	if (!mask)
		return;
	for (int k = 0; k < LC_NCIRCLES; k++) {
		struct lc_acc acc[WARP_LANES] = {{0}};

		for (int n = 0; n < LC_NPOINTS; n++) {
			uint64_t t = (uint64_t)(k * LC_NPOINTS + n) * 4;
			int ty = (int)gw_ld_const32(w, a->c_ty + t);
			int tx = (int)gw_ld_const32(w, a->c_tx + t);
			float c, s;

			for (unsigned l = 0; l < WARP_LANES; l++) {
				uint64_t addr = (uint64_t)((i + tx) * a->rows + j[l] + ty) * 4;

				ax[l] = a->grad_x + addr;
				ay[l] = a->grad_y + addr;
			}
			gw_ld_texv(w, ax, mask, 4, gx);
			gw_ld_texv(w, ay, mask, 4, gy);
			c = wl_u2f(gw_ld_const32(w, a->c_cos + (uint64_t)n * 4));
			s = wl_u2f(gw_ld_const32(w, a->c_sin + (uint64_t)n * 4));
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					lc_point(&acc[l], wl_u2f((uint32_t)gx[l]),
						 wl_u2f((uint32_t)gy[l]), c, s, n);
			gw_compute(w, LC_GICOV_POINT);
		}
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				max_gicov[l] = lc_circle(&acc[l], max_gicov[l]);
		gw_compute(w, LC_GICOV_CIRCLE);
	}
	for (unsigned l = 0; l < WARP_LANES; l++) {
		ax[l] = a->gicov + (uint64_t)(i * a->rows + j[l]) * 4;
		out[l] = wl_f2u(max_gicov[l]);
	}
	gw_compute(w, LC_GICOV_STORE);
	gw_st32v(w, ax, mask, out);
}

static void lc_dilate_kernel(struct gpu_warp *w)
{
	const struct lc_args *a = gw_args(w);
	int m = a->rows, n = a->cols, c = LC_STREL_SIZE / 2;
	int pi[WARP_LANES], pj[WARP_LANES];
	float max[WARP_LANES] = {0};
	uint64_t addr[WARP_LANES], v[WARP_LANES];
	uint32_t mask = 0, out[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned t = gw_thread_x(w, l);
		int64_t tid = (int64_t)gw_cta(w) * LC_DILATE_TPB + t;

		pi[l] = (int)(tid % m);
		pj[l] = (int)(tid / m);
		/* the CTA's 176 threads, and none past the image (see the header) */
		if (t < LC_DILATE_TPB && tid < (int64_t)m * n)
			mask |= 1u << l;
	}
	gw_compute(w, LC_DIL_PROLOGUE);
	if (!mask)
		return;
	for (int el_i = 0; el_i < LC_STREL_SIZE; el_i++) {
		uint32_t rows = 0;

		for (unsigned l = 0; l < WARP_LANES; l++) {
			int y = pi[l] - c + el_i;

			if ((mask >> l & 1) && y >= 0 && y < m)
				rows |= 1u << l;
		}
		gw_compute(w, LC_DIL_ROW);
		if (!rows)
			continue;
		for (int el_j = 0; el_j < LC_STREL_SIZE; el_j++) {
			uint32_t in = 0;
			float strel;

			for (unsigned l = 0; l < WARP_LANES; l++) {
				int x = pj[l] - c + el_j;

				if ((rows >> l & 1) && x >= 0 && x < n) {
					in |= 1u << l;
					addr[l] =
					    a->gicov + (uint64_t)(x * m + (pi[l] - c + el_i)) * 4;
				}
			}
			gw_compute(w, LC_DIL_ELEM);
			if (!in)
				continue;
			strel = wl_u2f(gw_ld_const32(
			    w, a->c_strel + (uint64_t)(el_i * LC_STREL_SIZE + el_j) * 4));
			if (strel == 0)
				continue;
			gw_ld_texv(w, addr, in, 4, v);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				float temp = wl_u2f((uint32_t)v[l]);

				if ((in >> l & 1) && temp > max[l])
					max[l] = temp;
			}
			gw_compute(w, LC_DIL_HIT);
		}
	}
	for (unsigned l = 0; l < WARP_LANES; l++) {
		addr[l] = a->dilated + (uint64_t)(pi[l] * n + pj[l]) * 4;
		out[l] = wl_f2u(max[l]);
	}
	gw_compute(w, LC_DIL_STORE);
	gw_st32v(w, addr, mask, out);
}

/* ---- IMGVF_kernel (track_ellipse_kernel.cu) ------------------------------------------------- */

#define LC_MGVF_TPB    320 /* threads_per_block */
#define LC_MGVF_POW2   256 /* next_lowest_power_of_two */
#define LC_MGVF_M      41  /* the shared IMGVF[41 * 81]: a cell's sub-image */
#define LC_MGVF_N      81
#define LC_MU	       0.5
#define LC_LAMBDA      (8.0 * LC_MU + 1.0)
#define LC_ONE_OVER_PI (1.0 / LC_PI)

/*
 * IMGVF issue slots per warp: per element of a virtual block, the index arithmetic (float
 * multiply, conversion, j wrap: 6), the neighbours' indices (4 compare/select pairs, 8 IMADs:
 * 16), 8 differences, 8 Heaviside values (atanf ~24, F2F to double, DMUL + DADD at 8 each, F2F:
 * 44 each), the weighted sum (8 FMUL/FFMA), the two updates in double (a DMUL, DADD, DMUL,
 * DMUL, DADD and conversions: ~48), |new - old| and the sum (2): 480; per reduction step 4;
 * per iteration (flag test, loop) 6.
 */
#define LC_MGVF_ELEM 480
#define LC_MGVF_RED  4
#define LC_MGVF_ITER 6

struct lc_mgvf_args {
	uint64_t imgvf_array, i_array; /* float *[cells] */
	uint64_t m_array, n_array;     /* int [cells] */
	float vx, vy, e, cutoff;
	int max_iterations;
};

struct lc_mgvf_smem {
	float imgvf[LC_MGVF_M * LC_MGVF_N];
	float buffer[LC_MGVF_TPB];
	int cell_converged;
};

/* heaviside(): (atan(x) / pi) + 0.5, atan of the float, the rest in double as the original. */
static float lc_heaviside(float x)
{
	return (float)((atanf(x) * LC_ONE_OVER_PI) + 0.5);
}

/* One element's update from its value, its 8 neighbours' differences (U, D, L, R, UR, DR, UL,
 * DL) and the image value, the kernel's expressions in order; shared by the kernel and the
 * reference (noinline: one machine code). */
static __attribute__((noinline)) float lc_mgvf_elem(float old_val, const float *d, float v_i,
						    float vx, float vy, float one_over_e)
{
	float u_he = lc_heaviside((d[0] * -vy) * one_over_e);
	float d_he = lc_heaviside((d[1] * vy) * one_over_e);
	float l_he = lc_heaviside((d[2] * -vx) * one_over_e);
	float r_he = lc_heaviside((d[3] * vx) * one_over_e);
	float ur_he = lc_heaviside((d[4] * (vx - vy)) * one_over_e);
	float dr_he = lc_heaviside((d[5] * (vx + vy)) * one_over_e);
	float ul_he = lc_heaviside((d[6] * (-vx - vy)) * one_over_e);
	float dl_he = lc_heaviside((d[7] * (-vx + vy)) * one_over_e);
	float new_val;

	new_val =
	    (float)(old_val + (LC_MU / LC_LAMBDA) *
				  (u_he * d[0] + d_he * d[1] + l_he * d[2] + r_he * d[3] +
				   ur_he * d[4] + dr_he * d[5] + ul_he * d[6] + dl_he * d[7]));
	new_val = (float)(new_val - ((1.0 / LC_LAMBDA) * v_i * (new_val - v_i)));
	return new_val;
}

/* The 8 differences of element (i, j) of an m x n matrix, clamped at the edges. */
static void lc_mgvf_diffs(const float *g, int m, int n, int i, int j, float *d)
{
	int row_u = (i == 0) ? 0 : i - 1, row_d = (i == m - 1) ? m - 1 : i + 1;
	int col_l = (j == 0) ? 0 : j - 1, col_r = (j == n - 1) ? n - 1 : j + 1;
	float old_val = g[(i * n) + j];

	d[0] = g[(row_u * n) + j] - old_val;
	d[1] = g[(row_d * n) + j] - old_val;
	d[2] = g[(i * n) + col_l] - old_val;
	d[3] = g[(i * n) + col_r] - old_val;
	d[4] = g[(row_u * n) + col_r] - old_val;
	d[5] = g[(row_d * n) + col_r] - old_val;
	d[6] = g[(row_u * n) + col_l] - old_val;
	d[7] = g[(row_d * n) + col_l] - old_val;
}

/* The lanes' element (i, j) of virtual block tb of the cell's m x n matrix (row-major), its
 * address in the matrix's global copy at base, and the lanes inside the matrix. */
static uint32_t lc_mgvf_block(int tb, int m, int n, const int *tid, uint64_t base, int *i, int *j,
			      uint64_t *addr)
{
	uint32_t mask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		i[l] = (tid[l] + tb * LC_MGVF_TPB) / n;
		j[l] = (tid[l] + tb * LC_MGVF_TPB) % n;
		if (i[l] < m)
			mask |= 1u << l;
		addr[l] = base + (uint64_t)((i[l] * n) + j[l]) * 4;
	}
	return mask;
}

static void lc_mgvf_kernel(struct gpu_warp *w)
{
	const struct lc_mgvf_args *a = gw_args(w);
	struct lc_mgvf_smem *sm = gw_smem(w);
	uint64_t cell = gw_cta(w), imgvf_g, img;
	int m, n, max, tid[WARP_LANES], i[WARP_LANES] = {0}, j[WARP_LANES], old_i[WARP_LANES],
					old_j[WARP_LANES], tid_mod[WARP_LANES], tbsize_mod,
					iterations = 0;
	float one_nth, one_over_e, total_diff[WARP_LANES], new_val[WARP_LANES];
	uint64_t addr[WARP_LANES], v[WARP_LANES];
	uint32_t out[WARP_LANES];

	/* this cell's matrices and dimensions (pointer arrays in global memory) */
	imgvf_g = gw_ld64(w, a->imgvf_array + cell * 8);
	img = gw_ld64(w, a->i_array + cell * 8);
	m = (int)gw_ld32(w, a->m_array + cell * 4);
	n = (int)gw_ld32(w, a->n_array + cell * 4);
	max = (m * n + LC_MGVF_TPB - 1) / LC_MGVF_TPB;
	for (unsigned l = 0; l < WARP_LANES; l++)
		tid[l] = (int)(gw_warp(w) * WARP_LANES + l);
	gw_compute(w, LC_MGVF_ITER);
	/* load the initial IMGVF matrix into shared memory */
	for (int tb = 0; tb < max; tb++) {
		uint32_t mask = lc_mgvf_block(tb, m, n, tid, imgvf_g, i, j, addr);

		gw_compute(w, LC_MGVF_ITER);
		if (!mask)
			continue;
		gw_ldv(w, addr, mask, 4, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				sm->imgvf[(i[l] * n) + j[l]] = wl_u2f((uint32_t)v[l]);
		gw_smem_access(w);
	}
	gw_barrier(w);
	if (gw_warp(w) == 0) {
		sm->cell_converged = 0;
		gw_smem_access(w);
	}
	gw_barrier(w);
	one_nth = 1.f / (float)n;
	tbsize_mod = LC_MGVF_TPB % n;
	one_over_e = (float)(1.0 / a->e);
	for (unsigned l = 0; l < WARP_LANES; l++)
		tid_mod[l] = tid[l] % n;
	for (;;) {
		gw_smem_access(w); /* cell_converged */
		gw_compute(w, LC_MGVF_ITER);
		if (sm->cell_converged || iterations >= a->max_iterations)
			break;
		for (unsigned l = 0; l < WARP_LANES; l++) {
			total_diff[l] = 0.0f;
			j[l] = tid_mod[l] - tbsize_mod;
		}
		for (int tb = 0; tb < max; tb++) {
			uint32_t in = 0;
			float old_val[WARP_LANES] = {0};

			for (unsigned l = 0; l < WARP_LANES; l++) {
				old_i[l] = i[l];
				old_j[l] = j[l];
				i[l] = (int)((float)(tid[l] + tb * LC_MGVF_TPB) * one_nth);
				j[l] += tbsize_mod;
				if (j[l] >= n)
					j[l] -= n;
				new_val[l] = 0.0f;
				if (i[l] < m) {
					in |= 1u << l;
					addr[l] = img + (uint64_t)((i[l] * n) + j[l]) * 4;
				}
			}
			if (in) {
				float d[WARP_LANES][8];

				for (unsigned k = 0; k < 9; k++) /* old value and 8 neighbours */
					gw_smem_access(w);
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (in >> l & 1) {
						old_val[l] = sm->imgvf[(i[l] * n) + j[l]];
						lc_mgvf_diffs(sm->imgvf, m, n, i[l], j[l], d[l]);
					}
				gw_ldv(w, addr, in, 4, v); /* vI = I[(i * n) + j] */
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (in >> l & 1)
						new_val[l] = lc_mgvf_elem(old_val[l], d[l],
									  wl_u2f((uint32_t)v[l]),
									  a->vx, a->vy, one_over_e);
				gw_compute(w, LC_MGVF_ELEM);
			}
			/* the original writes the previous block's values here, racing with other
			 * warps' neighbour reads above: a barrier first (see the header) */
			gw_barrier(w);
			if (tb > 0) {
				uint32_t prev = 0;

				for (unsigned l = 0; l < WARP_LANES; l++)
					if (old_i[l] < m)
						prev |= 1u << l;
				gw_smem_access(w); /* buffer[thread_id] */
				if (prev) {
					for (unsigned l = 0; l < WARP_LANES; l++)
						if (prev >> l & 1)
							sm->imgvf[(old_i[l] * n) + old_j[l]] =
							    sm->buffer[tid[l]];
					gw_smem_access(w);
				}
			}
			if (tb < max - 1) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					sm->buffer[tid[l]] = new_val[l];
				gw_smem_access(w);
			} else if (in) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (in >> l & 1)
						sm->imgvf[(i[l] * n) + j[l]] = new_val[l];
				gw_smem_access(w);
			}
			for (unsigned l = 0; l < WARP_LANES; l++)
				total_diff[l] += fabsf(new_val[l] - old_val[l]);
			gw_barrier(w);
		}
		/* the tree reduction of the total change across the CTA */
		for (unsigned l = 0; l < WARP_LANES; l++)
			sm->buffer[tid[l]] = total_diff[l];
		gw_smem_access(w);
		gw_barrier(w);
		if (tid[0] >= LC_MGVF_POW2) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				sm->buffer[tid[l] - LC_MGVF_POW2] += sm->buffer[tid[l]];
			gw_smem_access(w);
			gw_smem_access(w);
			gw_compute(w, LC_MGVF_RED);
		}
		gw_barrier(w);
		for (int th = LC_MGVF_POW2 / 2; th > 0; th /= 2) {
			if (tid[0] < th) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (tid[l] < th)
						sm->buffer[tid[l]] += sm->buffer[tid[l] + th];
				gw_smem_access(w);
				gw_smem_access(w);
			}
			gw_compute(w, LC_MGVF_RED);
			gw_barrier(w);
		}
		if (gw_warp(w) == 0) { /* thread 0: converged? */
			float mean = sm->buffer[0] / (float)(m * n);

			gw_smem_access(w);
			if (mean < a->cutoff) {
				sm->cell_converged = 1;
				gw_smem_access(w);
			}
			gw_compute(w, LC_MGVF_RED + 8);
		}
		gw_barrier(w);
		iterations++;
	}
	/* save the final IMGVF matrix to global memory */
	for (int tb = 0; tb < max; tb++) {
		uint32_t mask = lc_mgvf_block(tb, m, n, tid, imgvf_g, i, j, addr);

		for (unsigned l = 0; l < WARP_LANES; l++)
			out[l] = mask >> l & 1 ? wl_f2u(sm->imgvf[(i[l] * n) + j[l]]) : 0;
		gw_compute(w, LC_MGVF_ITER);
		if (!mask)
			continue;
		gw_smem_access(w);
		gw_st32v(w, addr, mask, out);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

/* The synthetic frame: uchar intensities, row-major [rows][cols], as get_frame returns them
 * (cropped, not scaled). A noisy background with leukocytes: bright rings of width ~2 around a
 * darker interior, radius 8..14, centred in the part GICOV scores, about one per 40 x 40 pixels. */
static void lc_frame(uint64_t seed, int frame, int rows, int cols, double *img)
{
	int in_rows = rows - 2 * LC_MAXR, in_cols = cols - 2 * LC_MAXR;
	int ncells = in_rows * in_cols / 1600 + 1;

	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			img[(size_t)r * cols + c] =
			    90.0 +
			    30.0 * wl_unit(seed, 1 + 16 * (uint64_t)frame, (uint64_t)r * cols + c);
	for (int k = 0; k < ncells; k++) {
		double cy = LC_MAXR + wl_unit(seed, 2, (uint64_t)k * 3) * in_rows;
		double cx = LC_MAXR + wl_unit(seed, 2, (uint64_t)k * 3 + 1) * in_cols;
		double rad = 8.0 + 6.0 * wl_unit(seed, 2, (uint64_t)k * 3 + 2);
		int r0, r1, c0, c1;

		/* rolling cells: up to 2 pixels a frame */
		cy += frame * (4.0 * wl_unit(seed, 3, (uint64_t)k * 2) - 2.0);
		cx += frame * (4.0 * wl_unit(seed, 3, (uint64_t)k * 2 + 1) - 2.0);
		r0 = (int)(cy - rad - 3);
		r1 = (int)(cy + rad + 3);
		c0 = (int)(cx - rad - 3);
		c1 = (int)(cx + rad + 3);

		for (int r = r0 < 0 ? 0 : r0; r <= r1 && r < rows; r++)
			for (int c = c0 < 0 ? 0 : c0; c <= c1 && c < cols; c++) {
				double d = sqrt((r - cy) * (r - cy) + (c - cx) * (c - cx));
				double *p = &img[(size_t)r * cols + c];

				if (fabs(d - rad) < 1.5)
					*p += 110.0;
				else if (d < rad)
					*p -= 40.0;
			}
	}
	for (size_t i = 0; i < (size_t)rows * cols; i++) /* the AVI's unsigned char */
		img[i] = (double)(unsigned char)(img[i] < 0 ? 0 : img[i] > 255 ? 255 : img[i]);
}

/* misc_math.c's gradient_x (along the row) and gradient_y (along the column) at p, element
 * (r, c) of a rows x cols (sub-)image whose rows lie stride apart: central differences, one-sided
 * at the edges, in double. */
static void lc_gradient(const double *p, int stride, int r, int c, int rows, int cols, double *x,
			double *y)
{
	if (c == 0)
		*x = p[1] - p[0];
	else if (c == cols - 1)
		*x = p[0] - p[-1];
	else
		*x = (p[1] - p[-1]) / 2.0;
	if (r == 0)
		*y = p[stride] - p[0];
	else if (r == rows - 1)
		*y = p[0] - p[-stride];
	else
		*y = (p[stride] - p[-stride]) / 2.0;
}

/* The frame's gradients, stored as float column-major as GICOV() hands them to the GPU. */
static void lc_gradients(const double *img, int rows, int cols, float *gx, float *gy)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			size_t o = (size_t)c * rows + r;
			double x, y;

			lc_gradient(&img[(size_t)r * cols + c], cols, r, c, rows, cols, &x, &y);
			gx[o] = (float)x;
			gy[o] = (float)y;
		}
}

/* compute_constants(): the sample circles' angles and pixel offsets, and the disc structuring
 * element of radius 12, with the original's types. */
static void lc_constants(float *sin_a, float *cos_a, int *tx, int *ty, float *strel)
{
	float theta[LC_NPOINTS];

	for (int n = 0; n < LC_NPOINTS; n++) {
		theta[n] = (float)(((double)n * 2.0 * LC_PI) / ((double)LC_NPOINTS));
		sin_a[n] = (float)sin(theta[n]);
		cos_a[n] = (float)cos(theta[n]);
	}
	for (int k = 0; k < LC_NCIRCLES; k++) {
		double rad = (double)(LC_MIN_RAD + (2 * k));

		for (int n = 0; n < LC_NPOINTS; n++) {
			tx[k * LC_NPOINTS + n] = (int)(cos(theta[n]) * rad);
			ty[k * LC_NPOINTS + n] = (int)(sin(theta[n]) * rad);
		}
	}
	for (int i = 0; i < LC_STREL_SIZE; i++)
		for (int j = 0; j < LC_STREL_SIZE; j++) {
			int d2 = (i - LC_STREL_RAD) * (i - LC_STREL_RAD) +
				 (j - LC_STREL_RAD) * (j - LC_STREL_RAD);

			strel[i * LC_STREL_SIZE + j] = sqrt((float)d2) <= LC_STREL_RAD ? 1.f : 0.f;
		}
}

/* The host reference of GICOV_kernel: the same points in the same order. */
static void lc_ref_gicov(const float *gx, const float *gy, int rows, int cols, const float *sin_a,
			 const float *cos_a, const int *tx, const int *ty, float *gicov)
{
	for (int i = LC_MAXR; i < cols - LC_MAXR; i++)
		for (int j = LC_MAXR; j < rows - LC_MAXR; j++) {
			float max_gicov = 0.f;

			for (int k = 0; k < LC_NCIRCLES; k++) {
				struct lc_acc acc = {0};

				for (int n = 0; n < LC_NPOINTS; n++) {
					int t = k * LC_NPOINTS + n;
					size_t addr = (size_t)(i + tx[t]) * rows + j + ty[t];

					lc_point(&acc, gx[addr], gy[addr], cos_a[n], sin_a[n], n);
				}
				max_gicov = lc_circle(&acc, max_gicov);
			}
			gicov[(size_t)i * rows + j] = max_gicov;
		}
}

/* The host reference of dilate_kernel for the pixels its threads cover. */
static void lc_ref_dilate(const float *gicov, int m, int n, const float *strel, uint64_t threads,
			  float *dilated)
{
	int c = LC_STREL_SIZE / 2;

	for (uint64_t tid = 0; tid < threads && tid < (uint64_t)m * n; tid++) {
		int i = (int)(tid % (uint64_t)m), j = (int)(tid / (uint64_t)m);
		float max = 0.f;

		for (int el_i = 0; el_i < LC_STREL_SIZE; el_i++) {
			int y = i - c + el_i;

			if (y < 0 || y >= m)
				continue;
			for (int el_j = 0; el_j < LC_STREL_SIZE; el_j++) {
				int x = j - c + el_j;

				if (x >= 0 && x < n && strel[el_i * LC_STREL_SIZE + el_j] != 0) {
					float temp = gicov[(size_t)x * m + y];

					if (temp > max)
						max = temp;
				}
			}
		}
		dilated[(size_t)i * n + j] = max;
	}
}

/* ---- tracking (frame 1): the MGVF sub-images and the IMGVF reference ------------------------ */

/* A cell's sub-image in ellipsetrack: rows yc - 2R + 1.5 .. yc + 2R + 1.5, columns xc - 4R +
 * 0.5 .. xc + 4R + 0.5 (truncated, clipped to the frame), R = 10: 41 x 81 inside the frame. */
struct lc_cell {
	int xc, yc;	  /* centre (column, row) from the detection */
	int u1, v1, m, n; /* sub-image origin and size */
	size_t off;	  /* offset of its matrices in the concatenated arrays */
	int iterations;	  /* the reference's */
};

static void lc_cell_window(struct lc_cell *c, int rows, int cols)
{
	double u1 = c->xc - 4.0 * LC_RADIUS + 0.5, u2 = c->xc + 4.0 * LC_RADIUS + 0.5;
	double v1 = c->yc - 2.0 * LC_RADIUS + 1.5, v2 = c->yc + 2.0 * LC_RADIUS + 1.5;
	int iu1 = (int)(u1 > 0 ? u1 : 0), iu2 = (int)(u2 < cols - 1 ? u2 : cols - 1);
	int iv1 = (int)(v1 > 0 ? v1 : 0), iv2 = (int)(v2 < rows - 1 ? v2 : rows - 1);

	c->u1 = iu1;
	c->v1 = iv1;
	c->m = iv2 - iv1 + 1;
	c->n = iu2 - iu1 + 1;
}

/* IE for MGVF(): the sub-image's gradient magnitude (misc_math's gradients, in double) of the
 * frame scaled to [0, 1] (get_frame's v * (1 / 255.)), normalised to [0, 1] as MGVF() does, as
 * float row-major m x n. */
static void lc_cell_image(const double *frame, int cols, const struct lc_cell *c, double *tmp,
			  float *out)
{
	int m = c->m, n = c->n;
	double imax, imin, scale;

	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double gx, gy;

			lc_gradient(&frame[(size_t)(c->v1 + i) * cols + c->u1 + j], cols, i, j, m,
				    n, &gx, &gy);
			tmp[i * n + j] = sqrt((gx * gx) + (gy * gy));
		}
	imax = imin = tmp[0];
	for (int k = 0; k < m * n; k++) {
		if (tmp[k] > imax)
			imax = tmp[k];
		else if (tmp[k] < imin)
			imin = tmp[k];
	}
	scale = 1.0 / (imax - imin + pow(2.0, -52.0));
	for (int k = 0; k < m * n; k++)
		out[k] = (float)((tmp[k] - imin) * scale);
}

/* The reference of IMGVF_kernel for one cell: a Jacobi sweep per iteration (what the kernel
 * computes with the barrier before the write-back), each thread's total change summed in its
 * elements' order and reduced in the kernel's tree order. Returns the iterations. */
static int lc_ref_mgvf(const struct lc_mgvf_args *a, const float *img, int m, int n, float *g,
		       float *next)
{
	float one_over_e = (float)(1.0 / a->e), buffer[LC_MGVF_TPB];
	int iterations = 0, converged = 0;

	memcpy(g, img, (size_t)m * n * sizeof(float));
	while (!converged && iterations < a->max_iterations) {
		for (int t = 0; t < LC_MGVF_TPB; t++)
			buffer[t] = 0.0f;
		for (int e = 0; e < m * n; e++) {
			int i = e / n, j = e % n;
			float d[8];

			lc_mgvf_diffs(g, m, n, i, j, d);
			next[e] = lc_mgvf_elem(g[e], d, img[e], a->vx, a->vy, one_over_e);
			buffer[e % LC_MGVF_TPB] += fabsf(next[e] - g[e]);
		}
		memcpy(g, next, (size_t)m * n * sizeof(float));
		for (int t = LC_MGVF_POW2; t < LC_MGVF_TPB; t++)
			buffer[t - LC_MGVF_POW2] += buffer[t];
		for (int th = LC_MGVF_POW2 / 2; th > 0; th /= 2)
			for (int t = 0; t < th; t++)
				buffer[t] += buffer[t + th];
		if (buffer[0] / (float)(m * n) < a->cutoff)
			converged = 1;
		iterations++;
	}
	return iterations;
}

int rodinia_leukocyte_main(struct gpu_host *h)
{
	enum gpu_size size = gh_size(h);
	bool full = size == GPU_SIZE_FULL;
	int rows = full ? LC_FRAME_ROWS
			: (int)wl_by_size(h, 2 * LC_MAXR + 32, 2 * LC_MAXR + 64, LC_FRAME_ROWS);
	int cols = full ? LC_FRAME_COLS
			: (int)wl_by_size(h, 2 * LC_MAXR + 2, 2 * LC_MAXR + 16, 2 * LC_MAXR + 52);
	/* tracking: cells (at most) and MGVF iterations (MGVF()'s 500 from default on) */
	int max_cells = full ? 64 : (int)wl_by_size(h, 1, 2, 4);
	int max_iter = full ? 500 : (int)wl_by_size(h, 10, 50, 500);
	uint64_t seed = gh_seed(h) ^ TAG_LC;
	size_t pixels = (size_t)rows * cols;
	struct lc_args a = {.rows = rows, .cols = cols};
	struct lc_mgvf_args mg = {.vx = 1.0f,
				  .vy = 1.0f,
				  .e = 0.0000000001f,
				  .cutoff = 0.00001f,
				  .max_iterations = max_iter};
	struct gpu_kernel gicov_k = {
	    .name = "GICOV_kernel", .regs_per_thread = 24, .fn = lc_gicov_kernel, .args = &a};
	struct gpu_kernel dilate_k = {.name = "dilate_kernel",
				      .warps_per_cta =
					  (LC_DILATE_TPB + WARP_LANES - 1) / WARP_LANES,
				      .regs_per_thread = 16,
				      .fn = lc_dilate_kernel,
				      .args = &a};
	struct gpu_kernel mgvf_k = {.name = "IMGVF_kernel",
				    .warps_per_cta = LC_MGVF_TPB / WARP_LANES,
				    .regs_per_thread = 32,
				    .smem_bytes = sizeof(struct lc_mgvf_smem),
				    .fn = lc_mgvf_kernel,
				    .args = &mg};
	double *img = malloc(pixels * sizeof(double));
	float *gx = malloc(pixels * sizeof(float)), *gy = malloc(pixels * sizeof(float));
	float *want_gicov = calloc(pixels, sizeof(float));
	float *want_dil = calloc(pixels, sizeof(float));
	struct lc_cell *cells = calloc((size_t)max_cells, sizeof(*cells));
	size_t cell_elems = (size_t)max_cells * LC_MGVF_M * LC_MGVF_N;
	float *i_all = malloc(cell_elems * sizeof(float)), *got_mgvf = NULL;
	float *g = malloc((size_t)LC_MGVF_M * LC_MGVF_N * sizeof(float));
	float *next = malloc((size_t)LC_MGVF_M * LC_MGVF_N * sizeof(float));
	double *tmp = malloc((size_t)LC_MGVF_M * LC_MGVF_N * sizeof(double));
	float sin_a[LC_NPOINTS], cos_a[LC_NPOINTS], strel[LC_STREL_SIZE * LC_STREL_SIZE];
	int tx[LC_NCIRCLES * LC_NPOINTS], ty[LC_NCIRCLES * LC_NPOINTS];
	uint64_t dil_threads, bad, first, above = 0, peaks = 0, imgvf_all = 0;
	int ncells = 0, best_r = -1, best_c = -1, iter_min = 0, iter_max = 0;
	size_t total = 0;
	float got_first, best = 0;
	int err = -CS_ENOMEM;

	if (!img || !gx || !gy || !want_gicov || !want_dil || !cells || !i_all || !g || !next ||
	    !tmp)
		goto out;
	lc_frame(seed, 0, rows, cols, img);
	lc_gradients(img, rows, cols, gx, gy);
	lc_constants(sin_a, cos_a, tx, ty, strel);
	a.grad_x = wl_upload(h, gx, pixels * sizeof(float));
	a.grad_y = wl_upload(h, gy, pixels * sizeof(float));
	a.gicov = wl_alloc_zero(h, pixels * sizeof(float)); /* cudaMemset(device_gicov, 0) */
	a.dilated = wl_alloc_zero(h, pixels * sizeof(float));
	a.c_sin = wl_upload(h, sin_a, sizeof(sin_a));
	a.c_cos = wl_upload(h, cos_a, sizeof(cos_a));
	a.c_tx = wl_upload(h, tx, sizeof(tx));
	a.c_ty = wl_upload(h, ty, sizeof(ty));
	a.c_strel = wl_upload(h, strel, sizeof(strel));

	/* GICOV_CUDA: grad_n - 2 MaxR blocks of grad_m - 2 MaxR threads */
	a.gicov_threads = (unsigned)(rows - 2 * LC_MAXR);
	gicov_k.ctas = (unsigned)(cols - 2 * LC_MAXR);
	gicov_k.warps_per_cta = (a.gicov_threads + WARP_LANES - 1) / WARP_LANES;
	err = gh_launch(h, &gicov_k);
	if (err)
		goto out;
	/* dilate_CUDA: (int)(pixels / 176.f + 0.5) blocks of 176 threads */
	dilate_k.ctas = (unsigned)(((float)pixels / (float)LC_DILATE_TPB) + 0.5);
	dil_threads = (uint64_t)dilate_k.ctas * LC_DILATE_TPB;
	err = gh_launch(h, &dilate_k);
	if (err)
		goto out;

	/* what detect_main does next on the host: candidate centres where the dilation keeps the
	 * GICOV score, those above the threshold 1.8^2; they are what the device computed (both
	 * are checked below), so the reference's serve to place the tracking's cells */
	lc_ref_gicov(gx, gy, rows, cols, sin_a, cos_a, tx, ty, want_gicov);
	lc_ref_dilate(want_gicov, rows, cols, strel, dil_threads, want_dil);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			float gv = want_gicov[(size_t)c * rows + r];

			if (gv == 0.f || gv != want_dil[(size_t)r * cols + c])
				continue;
			peaks++;
			if (gv > best) {
				best = gv;
				best_r = r;
				best_c = c;
			}
			if (gv > 1.8f * 1.8f) {
				above++;
				if (ncells < max_cells)
					cells[ncells++] = (struct lc_cell){.xc = c, .yc = r};
			}
		}
	if (!ncells && best_r >= 0) /* none above the threshold: track the strongest */
		cells[ncells++] = (struct lc_cell){.xc = best_c, .yc = best_r};

	/* tracking, frame 1: IMGVF_cuda on the cells' sub-images (MGVF(IE, 1, 1, Nc)) */
	if (ncells) {
		uint64_t *imgvf_p = calloc((size_t)ncells, sizeof(uint64_t));
		uint64_t *i_p = calloc((size_t)ncells, sizeof(uint64_t));
		int *m_arr = calloc((size_t)ncells, sizeof(int)), *n_arr = NULL;
		uint64_t i_dev;

		n_arr = calloc((size_t)ncells, sizeof(int));
		if (!imgvf_p || !i_p || !m_arr || !n_arr) {
			free(imgvf_p);
			free(i_p);
			free(m_arr);
			free(n_arr);
			goto out;
		}
		lc_frame(seed, 1, rows, cols, img);
		for (size_t k = 0; k < pixels; k++) /* get_frame(video, 1, 0, 1): scaled */
			img[k] = img[k] * (1.0 / 255.0);
		for (int k = 0; k < ncells; k++) {
			struct lc_cell *c = &cells[k];

			lc_cell_window(c, rows, cols);
			c->off = total;
			lc_cell_image(img, cols, c, tmp, i_all + total);
			total += (size_t)c->m * c->n;
		}
		i_dev = wl_upload(h, i_all, total * sizeof(float));
		imgvf_all = wl_upload(h, i_all, total * sizeof(float)); /* I is the initial IMGVF */
		for (int k = 0; k < ncells; k++) {
			imgvf_p[k] = imgvf_all + cells[k].off * 4;
			i_p[k] = i_dev + cells[k].off * 4;
			m_arr[k] = cells[k].m;
			n_arr[k] = cells[k].n;
		}
		mg.imgvf_array = wl_upload(h, imgvf_p, (size_t)ncells * sizeof(uint64_t));
		mg.i_array = wl_upload(h, i_p, (size_t)ncells * sizeof(uint64_t));
		mg.m_array = wl_upload(h, m_arr, (size_t)ncells * sizeof(int));
		mg.n_array = wl_upload(h, n_arr, (size_t)ncells * sizeof(int));
		free(imgvf_p);
		free(i_p);
		free(m_arr);
		free(n_arr);
		mgvf_k.ctas = (unsigned)ncells;
		err = gh_launch(h, &mgvf_k);
		if (err)
			goto out;
		gh_corrupt(h, imgvf_all + (total / 2) * 4, 4);
	} else {
		gh_corrupt(h, a.dilated + (uint64_t)((rows / 2) * cols + cols / 2) * 4, 4);
	}

	bad = wl_check_float(h, a.gicov, want_gicov, pixels, 0, 0, &first, &got_first);
	if (bad) {
		err = gh_fail(h,
			      "leukocyte: GICOV of pixel (row %" PRIu64 ", column %" PRIu64
			      ") = %.9g, want %.9g (%" PRIu64 " of %zu pixels differ)",
			      first % (uint64_t)rows, first / (uint64_t)rows, (double)got_first,
			      (double)want_gicov[first], bad, pixels);
		goto out;
	}
	bad = wl_check_float(h, a.dilated, want_dil, pixels, 0, 0, &first, &got_first);
	if (bad) {
		err = gh_fail(h,
			      "leukocyte: dilated GICOV of pixel (row %" PRIu64 ", column %" PRIu64
			      ") = %.9g, want %.9g (%" PRIu64 " of %zu pixels differ)",
			      first / (uint64_t)cols, first % (uint64_t)cols, (double)got_first,
			      (double)want_dil[first], bad, pixels);
		goto out;
	}
	if (ncells) {
		got_mgvf = malloc(total * sizeof(float));
		if (!got_mgvf) {
			err = -CS_ENOMEM;
			goto out;
		}
		gh_read(h, imgvf_all, got_mgvf, total * sizeof(float));
	}
	for (int k = 0; k < ncells; k++) {
		struct lc_cell *c = &cells[k];

		c->iterations = lc_ref_mgvf(&mg, i_all + c->off, c->m, c->n, g, next);
		iter_min = k == 0 || c->iterations < iter_min ? c->iterations : iter_min;
		iter_max = c->iterations > iter_max ? c->iterations : iter_max;
		for (int e = 0; e < c->m * c->n; e++)
			if (wl_f2u(got_mgvf[c->off + (size_t)e]) != wl_f2u(g[e])) {
				err = gh_fail(
				    h,
				    "leukocyte: IMGVF of cell %d (centre row %d, column %d) "
				    "at (%d, %d) = %.9g, want %.9g after %d iterations",
				    k, c->yc, c->xc, e / c->n, e % c->n,
				    (double)got_mgvf[c->off + (size_t)e], (double)g[e],
				    c->iterations);
				goto out;
			}
	}
	gh_note(h,
		"leukocyte: %dx%d frame, GICOV (%u CTAs x %u threads) and dilation (%u CTAs x %d "
		"threads), every GICOV and dilated value bit-exact (%" PRIu64
		" local maxima, %" PRIu64 " above threshold); IMGVF of %d cells (%d-%d "
		"iterations of at most %d), every value bit-exact",
		rows, cols, gicov_k.ctas, a.gicov_threads, dilate_k.ctas, LC_DILATE_TPB, peaks,
		above, ncells, iter_min, iter_max, max_iter);
	err = 0;
out:
	free(img);
	free(gx);
	free(gy);
	free(want_gicov);
	free(want_dil);
	free(cells);
	free(i_all);
	free(got_mgvf);
	free(g);
	free(next);
	free(tmp);
	return err;
}
