/*
 * workloads/rodinia/heartwall.c - heart wall tracking (Rodinia `heartwall`, Che et al., IISWC
 * 2009; Szafaryn et al., "Experiences accelerating MATLAB systems biology applications", 2009).
 *
 * Tracks the sample points of a mouse heart's inner (endocardium, 20 points) and outer
 * (epicardium, 31 points) walls through the frames of an ultrasound video. Rodinia's kernel.cu:
 * one launch per frame of ALL_POINTS CTAs (one per point) of NUMBER_THREADS = 256 threads; every
 * phase is a strided loop "ei = tx; while (ei < n) { ...; ei += 256; }" over a column-major
 * matrix followed by __syncthreads. Frame 0 cuts each point's template (in_rows^2, in_rows =
 * 2 tSize + 1) out of the frame and records the initial position. Every later frame, for each
 * point (its CTA), it:
 *  - cuts the search area in2 (2 sSize + 1)^2 around the point's reference position;
 *  - rotates the template into shared memory (d_in_mod_temp) and computes the full 2-D
 *    convolution of the two (conv_rows^2 outputs; each thread loops over the overlap: a shared
 *    read and a global read of in2 per term);
 *  - the local sums of in2 and in2^2 over template-sized windows, MATLAB-style: pad by the
 *    template size, vertical cumulative sums (one thread per column, a sequential load/store
 *    per row), two selections and a subtraction, horizontal cumulative sums (one thread per
 *    row), two selections and a subtraction;
 *  - the normalised cross-correlation: the template's mean and deviation (column and row sums by
 *    threads, final sums by threads 0 and 1 in shared memory), numerator and denominator;
 *  - a 0/1 template mask at the previous frame's location convolved with a maxMove^2 box (the
 *    allowed movement), times the correlation; the largest |value| (per-column maxima by threads
 *    < conv_rows, then thread 0) gives the new location, stored to tRowLoc/tColLoc.
 *  Every 10th frame the reference position moves to the tracked one and the template is blended
 *  with the new frame (alpha 0.87).
 * The point parameters (d_unique: per-point buffer pointers and indices) live in __constant__
 * memory: one LDC per pointer per phase (gw_ld_constv); the common sizes are constant-bank
 * operands (no load). The working matrices are per-CTA buffers in global memory (cudaMalloc'd
 * per point, as the original).
 *
 * No coherence needed: every CTA works on its own buffers and its own point, and reads what other
 * launches wrote (templates, positions) only after the launch boundary.
 *
 * Input: synthetic frames from the seed instead of test.avi: 609 x 590 pixels (uchar values as
 * floats, column-major, as get_frame returns them), a dark blood pool inside the endocardium, a
 * bright myocardium between it and the epicardium, medium tissue outside, with speckle noise;
 * the walls pass through the original's hard-coded sample points in frame 0 and then contract,
 * expand and drift from frame to frame. Check: every point's tracked row and column in every
 * frame, the templates after the last frame and the last frame's masked correlation matrices,
 * bit for bit against a host reference running the same float operations in the same order.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_HW	       0x6865617274000000ull
#define HW_THREADS     256 /* NUMBER_THREADS */
#define HW_WARPS       (HW_THREADS / WARP_LANES)
#define HW_ENDO_POINTS 20
#define HW_EPI_POINTS  31
#define HW_MAX_MOVE    10 /* maxMove */
#define HW_ALPHA       0.87f
#define HW_FRAME_ROWS  609
#define HW_FRAME_COLS  590
#define HW_UPDATE      10 /* the template is updated every 10th frame */

/* The original's shared arrays (sized for tSize 25, sSize 40: the occupancy). */
#define HW_SM_IN   51
#define HW_SM_CONV 131
#define HW_SM_TMPL 2601

/*
 * Issue slots per warp (SASS-like counts; loads, stores and shared accesses are separate ops):
 * strided-loop iteration (ei += 256, compare, branch): 3; MATLAB row/column of ei ((ei + 1) %
 *   rows and / rows: one integer division by a runtime value ~20, the == 0 fix-up 4): 24;
 * copy or select (source row/column, address IMADs): 4; element-wise arithmetic: 2 per
 *   FADD/FMUL, ~8 per IEEE division or square root;
 * convolution per output: ranges j, jp1, ja1, ja2, i, ip1, ia1, ia2 (8 IADD + 4 compare/select
 *   pairs): 16; per ja: jb, loop: 4; per term: ib, two addresses (2 IMAD), FFMA, loop: 7;
 * cumulative sums per row: address, FADD, loop: 5;
 * mask convolution per term: address, FADD, loop: 5;
 * maximum per element: address, |x|, FSETP, two SEL, loop: 7.
 */
#define HW_ITER	     3
#define HW_RC	     24
#define HW_COPY	     4
#define HW_DIV	     8
#define HW_CONV_OUT  16
#define HW_CONV_JA   4
#define HW_CONV_TERM 7
#define HW_CUM_STEP  5
#define HW_MASK_TERM 5
#define HW_MAX_STEP  7
#define HW_PROLOGUE  10

/* The original's hard-coded sample points (main.cu, from MATLAB), 1-based rows and columns. */
static const int hw_endo_row[HW_ENDO_POINTS] = {369, 400, 429, 452, 476, 486, 479, 458, 433, 404,
						374, 346, 318, 294, 277, 269, 275, 287, 311, 339};
static const int hw_endo_col[HW_ENDO_POINTS] = {408, 406, 397, 383, 354, 322, 294, 270, 250, 237,
						235, 241, 254, 273, 300, 328, 356, 383, 401, 411};
static const int hw_epi_row[HW_EPI_POINTS] = {390, 419, 448, 474, 501, 519, 535, 542, 543, 538, 528,
					      511, 491, 466, 438, 406, 376, 347, 318, 291, 275, 259,
					      256, 252, 252, 257, 266, 283, 305, 331, 360};
static const int hw_epi_col[HW_EPI_POINTS] = {457, 454, 446, 431, 411, 388, 361, 331, 301, 273, 243,
					      218, 196, 178, 166, 157, 155, 165, 177, 197, 218, 248,
					      276, 304, 333, 361, 391, 415, 434, 448, 455};

/* params_common: the sizes, computed on the host as main.cu does. */
struct hw_common {
	int s_size, t_size, max_move;
	float alpha;
	int no_frames, frame_rows, frame_cols;
	int in_rows, in_elem;	  /* template */
	int in2_rows, in2_elem;	  /* search area */
	int conv_rows, conv_elem; /* convolution, and every conv-sized matrix */
	int ioffset, joffset;
	int pad_add;		/* in2_pad_add_rows = _cols */
	int pad_rows, pad_elem; /* in2_pad_cumv (square) */
	int sel_rows, sel_cols; /* in2_pad_cumv_sel */
	int sel_rowlow, sel_collow;
	int sel2_rowlow, sel2_collow; /* in2_pad_cumv_sel2 */
	int cumh_rows, cumh_cols;     /* in2_sub_cumh */
	int cumh_sel_rows, cumh_sel_cols, cumh_sel_rowlow, cumh_sel_collow;
	int cumh_sel2_rowlow, cumh_sel2_collow;
	int sub2_rows, sub2_cols, sub2_elem; /* in2_sub2, in2_sqr_sub2 */
	int tmask_rows, tmask_elem;
	int mask_rows, mask_conv_rows, mask_conv_elem, mask_conv_ioffset, mask_conv_joffset;
};

/* params_unique: per point (CTA), in __constant__ memory as 64-bit words. */
enum hw_field {
	U_ROW,	    /* int *d_Row: the reference rows of the point's set (endo or epi) */
	U_COL,	    /* int *d_Col */
	U_TROWLOC,  /* int *d_tRowLoc: tracked rows [points][no_frames] */
	U_TCOLLOC,  /* int *d_tColLoc */
	U_T,	    /* float *d_T: the set's templates */
	U_POINT_NO, /* the point's index in its set */
	U_IN_POINTER,
	U_IN2,
	U_CONV,
	U_PAD_CUMV,
	U_PAD_CUMV_SEL,
	U_SUB_CUMH,
	U_SUB_CUMH_SEL,
	U_SUB2,
	U_SQR,
	U_SQR_SUB2,
	U_IN_SQR,
	U_TMASK,
	U_MASK_CONV,
	U_FIELDS
};

struct hw_args {
	struct hw_common c;
	uint64_t unique; /* uint64_t [points][U_FIELDS]: __constant__ d_unique */
	uint64_t frame;	 /* float [frame_cols][frame_rows] */
	int frame_no;	 /* d_common_change.frame_no */
};

struct hw_smem {
	float in_partial_sum[HW_SM_IN];
	float in_sqr_partial_sum[HW_SM_IN];
	float in_final_sum, in_sqr_final_sum, denom_t;
	float par_max_val[HW_SM_CONV];
	int par_max_coo[HW_SM_CONV];
	float in_mod_temp[HW_SM_TMPL];
};

/* ---- float operations shared by the kernel and the reference (noinline: one machine code) -- */

static __attribute__((noinline)) float hw_mac(float s, float a, float b)
{
	return s + a * b;
}

/* DENOMINATOR A: sqrt(max(0, sum(in2^2) - sum(in2)^2 / n)). */
static __attribute__((noinline)) float hw_denom_a(float sqr_sub2, float sub2, int in_elem)
{
	float temp2 = sqr_sub2 - (sub2 * sub2 / in_elem);

	if (temp2 < 0)
		temp2 = 0;
	return sqrtf(temp2);
}

/* DENOMINATOR T: sqrt(n - 1) times the template's deviation. */
static __attribute__((noinline)) float hw_denom_t(float final_sum, float sqr_final_sum, int in_elem)
{
	float mean = final_sum / in_elem;
	float mean_sqr = mean * mean;
	float variance = (sqr_final_sum / in_elem) - mean_sqr;
	float deviation = sqrtf(variance);

	return sqrtf((float)(in_elem - 1)) * deviation;
}

/* NUMERATOR: conv - sum(in2) * sum(template) / n. */
static __attribute__((noinline)) float hw_numer(float conv, float sub2, float final_sum,
						int in_elem)
{
	return conv - sub2 * final_sum / in_elem;
}

/* The template update: alpha * old + (1.00 - alpha) * new, in double as the original. */
static __attribute__((noinline)) float hw_blend(float alpha, float old, float fr)
{
	return (float)(alpha * old + (1.00 - alpha) * fr);
}

/* The MATLAB-style (0-based) row and column of element ei of a column-major matrix. */
static void hw_rc(int ei, int rows, int *row, int *col)
{
	*row = (ei + 1) % rows - 1;
	*col = (ei + 1) / rows + 1 - 1;
	if ((ei + 1) % rows == 0) {
		*row = rows - 1;
		*col = *col - 1;
	}
}

/* The overlap of a full 2-D convolution (kernel.cu's ja1..ja2, ia1..ia2 for output element ei
 * of an out_rows-row result; a_rows x a_cols the array walked by ja/ia, b_* the other). */
struct hw_range {
	int ja1, ja2, jp1, ia1, ia2, ip1;
};

static struct hw_range hw_range_of(int ei, int out_rows, int ioff, int joff, int a_rows, int a_cols,
				   int b_rows, int b_cols)
{
	struct hw_range r;
	int ic = (ei + 1) % out_rows, jc = (ei + 1) / out_rows + 1, i, j;

	if ((ei + 1) % out_rows == 0) {
		ic = out_rows;
		jc = jc - 1;
	}
	j = jc + joff;
	r.jp1 = j + 1;
	r.ja1 = b_cols < r.jp1 ? r.jp1 - b_cols : 1;
	r.ja2 = a_cols < j ? a_cols : j;
	i = ic + ioff;
	r.ip1 = i + 1;
	r.ia1 = b_rows < r.ip1 ? r.ip1 - b_rows : 1;
	r.ia2 = a_rows < i ? a_rows : i;
	return r;
}

/* ---- kernel --------------------------------------------------------------------------------- */

/* One LDC of a field of this CTA's d_unique entry (uniform: one request). */
static uint64_t hw_ldc(struct gpu_warp *w, const struct hw_args *a, enum hw_field f)
{
	uint64_t addr[WARP_LANES] = {0}, v[WARP_LANES] = {0};

	addr[0] = a->unique + ((uint64_t)gw_cta(w) * U_FIELDS + f) * 8;
	gw_ld_constv(w, addr, 1, 8, v);
	return v[0];
}

/* Lanes of the warp whose element ei = base + tx is below n; fills ei. */
static uint32_t hw_lanes(struct gpu_warp *w, int base, int n, int *ei)
{
	uint32_t mask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		ei[l] = base + (int)(gw_warp(w) * WARP_LANES + l);
		if (ei[l] < n)
			mask |= 1u << l;
	}
	return mask;
}

/*
 * One round of kernel.cu's strided loop "ei = tx; while (ei < n) { ...; ei += 256; }" from
 * base: the lanes still in the loop (0: the loop is over) and their ei. The round's loop
 * overhead is charged also for the last test, the one that leaves the loop.
 */
static uint32_t hw_round(struct gpu_warp *w, int base, int n, int *ei)
{
	uint32_t m = hw_lanes(w, base, n, ei);

	gw_compute(w, HW_ITER);
	return m;
}

static void hw_load(struct gpu_warp *w, uint64_t base, const int *idx, uint32_t mask, float *out)
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + (uint64_t)(mask >> l & 1 ? idx[l] : 0) * 4;
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			out[l] = wl_u2f(v[l]);
}

static void hw_store(struct gpu_warp *w, uint64_t base, const int *idx, uint32_t mask,
		     const float *val)
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		addr[l] = base + (uint64_t)(mask >> l & 1 ? idx[l] : 0) * 4;
		v[l] = wl_f2u(val[l]);
	}
	gw_st32v(w, addr, mask, v);
}

/* dst[ei] = src[(col + collow - 1) * src_rows + row + rowlow - 1] for the dst_rows-row matrix
 * of n elements (the SELECTION loops). */
static void hw_select(struct gpu_warp *w, uint64_t dst, uint64_t src, int n, int dst_rows,
		      int src_rows, int rowlow, int collow)
{
	int ei[WARP_LANES], idx[WARP_LANES];
	float v[WARP_LANES];
	uint32_t m;

	for (int base = 0; (m = hw_round(w, base, n, ei)); base += HW_THREADS) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			int row, col;

			hw_rc(ei[l], dst_rows, &row, &col);
			idx[l] = (col + collow - 1) * src_rows + row + rowlow - 1;
		}
		gw_compute(w, HW_RC + HW_COPY);
		hw_load(w, src, idx, m, v);
		hw_store(w, dst, ei, m, v);
	}
}

/* The element-wise loops of kernel.cu: dst[ei] = x[ei] op y[ei]. */
enum hw_op {
	HW_OP_SQUARE,  /* x * x */
	HW_OP_SUB,     /* x - y */
	HW_OP_DIV,     /* x / y */
	HW_OP_SCALE,   /* x * denomT */
	HW_OP_DENOM_A, /* hw_denom_a(y, x): x the window sums, y those of the squares */
	HW_OP_NUMER,   /* hw_numer(x, y, in_final_sum) */
};

/* Per operation: its issue slots, whether it loads y and whether it reads a shared scalar
 * (denomT, in_final_sum: one shared access a round). */
static const struct {
	unsigned cost;
	bool y, shared;
} hw_ops[] = {
    [HW_OP_SQUARE] = {HW_COPY, false, false},	     /* MULTIPLICATION */
    [HW_OP_SUB] = {HW_COPY, true, false},	     /* SUBTRACTION */
    [HW_OP_DIV] = {HW_COPY + HW_DIV, true, false},   /* CORRELATION */
    [HW_OP_SCALE] = {HW_COPY, false, true},	     /* DENOMINATOR */
    [HW_OP_DENOM_A] = {6 + 2 * HW_DIV, true, false}, /* DENOMINATOR A */
    [HW_OP_NUMER] = {HW_COPY + HW_DIV, true, true},  /* NUMERATOR */
};

static float hw_apply(enum hw_op op, float x, float y, const struct hw_smem *sm, int in_elem)
{
	switch (op) {
	case HW_OP_SQUARE:
		return x * x;
	case HW_OP_SUB:
		return x - y;
	case HW_OP_DIV:
		return x / y;
	case HW_OP_SCALE:
		return x * sm->denom_t;
	case HW_OP_DENOM_A:
		return hw_denom_a(y, x, in_elem);
	case HW_OP_NUMER:
		return hw_numer(x, y, sm->in_final_sum, in_elem);
	}
	return 0;
}

/* dst[ei] = x[ei] op y[ei] for the n elements: load x, then y, the shared scalar, store. */
static void hw_map(struct gpu_warp *w, const struct hw_common *c, enum hw_op op, int n,
		   uint64_t dst, uint64_t x, uint64_t y)
{
	const struct hw_smem *sm = gw_smem(w);
	int ei[WARP_LANES];
	float vx[WARP_LANES] = {0}, vy[WARP_LANES] = {0};
	uint32_t m;

	for (int base = 0; (m = hw_round(w, base, n, ei)); base += HW_THREADS) {
		hw_load(w, x, ei, m, vx);
		if (hw_ops[op].y)
			hw_load(w, y, ei, m, vy);
		if (hw_ops[op].shared)
			gw_smem_access(w);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1)
				vx[l] = hw_apply(op, vx[l], vy[l], sm, c->in_elem);
		gw_compute(w, hw_ops[op].cost);
		hw_store(w, dst, ei, m, vx);
	}
}

/* In-place cumulative sums of n lines of len elements, a thread per line, sequential over
 * its elements (element k of line ei at ei * line + k * step): the VERTICAL and HORIZONTAL
 * CUMULATIVE SUM loops. */
static void hw_cumsum(struct gpu_warp *w, uint64_t buf, int n, int len, int line, int step)
{
	int ei[WARP_LANES], idx[WARP_LANES];
	float v[WARP_LANES], sum[WARP_LANES];
	uint32_t m;

	for (int base = 0; (m = hw_round(w, base, n, ei)); base += HW_THREADS) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			sum[l] = 0;
		for (int k = 0; k < len; k++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				idx[l] = ei[l] * line + k * step;
			hw_load(w, buf, idx, m, v);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				v[l] = v[l] + sum[l];
				sum[l] = v[l];
			}
			gw_compute(w, HW_CUM_STEP);
			hw_store(w, buf, idx, m, v);
		}
	}
}

/*
 * The local sums of src (in2 or in2^2, in2_rows square) over template-sized windows into
 * out (in2_sub2 or in2_sqr_sub2): pad, vertical cumulative sum, selection, selection 2 and
 * subtraction, horizontal cumulative sum, selection, selection 2 and subtraction. The buffers
 * (pad .. cumh_sel) are the CTA's, their pointers loaded from d_unique by the caller.
 */
static void hw_window_sums(struct gpu_warp *w, const struct hw_common *c, uint64_t src,
			   uint64_t out, uint64_t pad, uint64_t pad_sel, uint64_t cumh,
			   uint64_t cumh_sel)
{
	int ei[WARP_LANES], idx[WARP_LANES];
	float v[WARP_LANES];
	uint32_t m;

	/* PAD ARRAY */
	for (int base = 0; (m = hw_round(w, base, c->pad_elem, ei)); base += HW_THREADS) {
		uint32_t in = 0;

		for (unsigned l = 0; l < WARP_LANES; l++) {
			int row, col;

			hw_rc(ei[l], c->pad_rows, &row, &col);
			v[l] = 0;
			if ((m >> l & 1) && row > c->pad_add - 1 &&
			    row < c->pad_add + c->in2_rows && col > c->pad_add - 1 &&
			    col < c->pad_add + c->in2_rows) {
				in |= 1u << l;
				idx[l] = (col - c->pad_add) * c->in2_rows + row - c->pad_add;
			}
		}
		gw_compute(w, HW_RC + HW_COPY + 4);
		if (in)
			hw_load(w, src, idx, in, v);
		hw_store(w, pad, ei, m, v);
	}
	gw_barrier(w);
	/* VERTICAL CUMULATIVE SUM: a thread per column */
	hw_cumsum(w, pad, c->pad_rows, c->pad_rows, c->pad_rows, 1);
	gw_barrier(w);
	hw_select(w, pad_sel, pad, c->sel_rows * c->sel_cols, c->sel_rows, c->pad_rows,
		  c->sel_rowlow, c->sel_collow);
	gw_barrier(w);
	hw_select(w, cumh, pad, c->cumh_rows * c->cumh_cols, c->cumh_rows, c->pad_rows,
		  c->sel2_rowlow, c->sel2_collow);
	gw_barrier(w);
	hw_map(w, c, HW_OP_SUB, c->cumh_rows * c->cumh_cols, cumh, pad_sel, cumh);
	/* The original has no __syncthreads here in the second (in2^2) pass: a race between the
	 * subtraction and the horizontal sums of other threads' rows; kept in both passes. */
	gw_barrier(w);
	/* HORIZONTAL CUMULATIVE SUM: a thread per row */
	hw_cumsum(w, cumh, c->cumh_rows, c->cumh_cols, 1, c->cumh_rows);
	gw_barrier(w);
	hw_select(w, cumh_sel, cumh, c->cumh_sel_rows * c->cumh_sel_cols, c->cumh_sel_rows,
		  c->cumh_rows, c->cumh_sel_rowlow, c->cumh_sel_collow);
	gw_barrier(w);
	hw_select(w, out, cumh, c->sub2_elem, c->sub2_rows, c->cumh_rows, c->cumh_sel2_rowlow,
		  c->cumh_sel2_collow);
	gw_barrier(w);
	hw_map(w, c, HW_OP_SUB, c->sub2_elem, out, cumh_sel, out);
	gw_barrier(w);
}

/*
 * The sums of a full 2-D convolution for the lanes' outputs ei (mask m) into s: each lane
 * walks the overlap of its output (kernel.cu's ja / ia loops). ACTUAL CONVOLUTION (mask
 * false): the rotated template in shared memory times in2 (src) read flipped; MASK
 * CONVOLUTION (mask true): the template mask (src) times the all-ones box of allowed moves.
 */
static void hw_conv_sums(struct gpu_warp *w, const struct hw_common *c, bool mask, uint64_t src,
			 const int *ei, uint32_t m, float *s)
{
	const struct hw_smem *sm = gw_smem(w);
	struct hw_range r[WARP_LANES];
	int idx[WARP_LANES];
	float v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		if (mask)
			r[l] = hw_range_of(ei[l], c->mask_conv_rows, c->mask_conv_ioffset,
					   c->mask_conv_joffset, c->tmask_rows, c->tmask_rows,
					   c->mask_rows, c->mask_rows);
		else
			r[l] = hw_range_of(ei[l], c->conv_rows, c->ioffset, c->joffset, c->in_rows,
					   c->in_rows, c->in2_rows, c->in2_rows);
		s[l] = 0;
	}
	gw_compute(w, HW_RC + HW_CONV_OUT);
	for (int k = 0;; k++) {
		uint32_t mj = 0;

		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((m >> l & 1) && r[l].ja1 + k <= r[l].ja2)
				mj |= 1u << l;
		gw_compute(w, HW_CONV_JA);
		if (!mj)
			break;
		for (int q = 0;; q++) {
			uint32_t mi = 0;

			for (unsigned l = 0; l < WARP_LANES; l++) {
				int ja = r[l].ja1 + k, ia = r[l].ia1 + q;

				if (!(mj >> l & 1) || ia > r[l].ia2)
					continue;
				mi |= 1u << l;
				if (mask)
					idx[l] = c->tmask_rows * (ja - 1) + ia - 1;
				else
					idx[l] =
					    c->in2_rows * (r[l].jp1 - ja - 1) + (r[l].ip1 - ia - 1);
			}
			if (!mi)
				break;
			if (!mask)
				gw_smem_access(w); /* d_in_mod_temp[in_rows * (ja - 1) + ia - 1] */
			hw_load(w, src, idx, mi, v);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				int ja = r[l].ja1 + k, ia = r[l].ia1 + q;

				if (!(mi >> l & 1))
					continue;
				if (mask)
					s[l] = s[l] + v[l] * 1;
				else
					s[l] = hw_mac(
					    s[l], sm->in_mod_temp[c->in_rows * (ja - 1) + ia - 1],
					    v[l]);
			}
			gw_compute(w, mask ? HW_MASK_TERM : HW_CONV_TERM);
		}
	}
}

/* Frame 0: record the starting position and cut the template (CREATE TEMPLATES); every 10th
 * frame: the same cut blended into the template at the tracked position. */
static void hw_template(struct gpu_warp *w, const struct hw_args *a, bool update)
{
	const struct hw_common *c = &a->c;
	uint64_t row_p = hw_ldc(w, a, U_ROW), col_p = hw_ldc(w, a, U_COL);
	uint64_t point_no = hw_ldc(w, a, U_POINT_NO);
	uint64_t d_in = hw_ldc(w, a, U_T) + hw_ldc(w, a, U_IN_POINTER) * 4;
	uint64_t row_a = row_p + point_no * 4, col_a = col_p + point_no * 4;
	uint64_t pointer = point_no * (uint64_t)c->no_frames + (uint64_t)a->frame_no;
	int ei[WARP_LANES], idx[WARP_LANES], dst[WARP_LANES];
	float v[WARP_LANES], old[WARP_LANES];
	uint32_t m;

	if (!update && gw_warp(w) == 0) { /* thread 0 */
		gw_st32(w, hw_ldc(w, a, U_TROWLOC) + pointer * 4, gw_ld32(w, row_a));
		gw_st32(w, hw_ldc(w, a, U_TCOLLOC) + pointer * 4, gw_ld32(w, col_a));
	}
	if (update) { /* update coordinate: every thread */
		gw_st32(w, row_a, gw_ld32(w, hw_ldc(w, a, U_TROWLOC) + pointer * 4));
		gw_st32(w, col_a, gw_ld32(w, hw_ldc(w, a, U_TCOLLOC) + pointer * 4));
	}
	for (int base = 0; (m = hw_round(w, base, c->in_elem, ei)); base += HW_THREADS) {
		/* d_Row / d_Col are reread every iteration: the template stores may alias them */
		int row0 = (int)gw_ld32(w, row_a), col0 = (int)gw_ld32(w, col_a);

		for (unsigned l = 0; l < WARP_LANES; l++) {
			int row, col;

			hw_rc(ei[l], c->in_rows, &row, &col);
			/* the original hard-codes its tSize (25) here */
			idx[l] = (col0 - c->t_size + col - 1) * c->frame_rows + row0 - c->t_size +
				 row - 1;
			dst[l] = update ? ei[l] : col * c->in_rows + row;
		}
		gw_compute(w, HW_RC + HW_COPY + 2);
		hw_load(w, a->frame, idx, m, v);
		if (update) {
			hw_load(w, d_in, dst, m, old);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (m >> l & 1)
					v[l] = hw_blend(c->alpha, old[l], v[l]);
			gw_compute(w, 4 * HW_DIV);
		}
		hw_store(w, d_in, dst, m, v);
	}
}

static void hw_kernel(struct gpu_warp *w)
{
	const struct hw_args *a = gw_args(w);
	const struct hw_common *c = &a->c;
	struct hw_smem *sm = gw_smem(w);
	int ei[WARP_LANES], idx[WARP_LANES];
	float v[WARP_LANES], s[WARP_LANES];
	uint64_t in2, conv, sub2, sqr, sqr_sub2, d_in, tmask, mask_conv;
	uint64_t point_no, row_a, col_a;
	int row0, col0;
	uint32_t m;

	gw_compute(w, HW_PROLOGUE);
	if (a->frame_no == 0) {
		hw_template(w, a, false);
		return;
	}
	point_no = hw_ldc(w, a, U_POINT_NO);
	row_a = hw_ldc(w, a, U_ROW) + point_no * 4;
	col_a = hw_ldc(w, a, U_COL) + point_no * 4;

	/* SELECTION: the search area around the reference position */
	in2 = hw_ldc(w, a, U_IN2);
	row0 = (int)gw_ld32(w, row_a);
	col0 = (int)gw_ld32(w, col_a);
	hw_select(w, in2, a->frame, c->in2_elem, c->in2_rows, c->frame_rows, row0 - c->s_size,
		  col0 - c->s_size);
	gw_barrier(w);

	/* ROTATION of the template into shared memory */
	d_in = hw_ldc(w, a, U_T) + hw_ldc(w, a, U_IN_POINTER) * 4;
	for (int base = 0; (m = hw_round(w, base, c->in_elem, ei)); base += HW_THREADS) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			int row, col;

			hw_rc(ei[l], c->in_rows, &row, &col);
			idx[l] = (c->in_rows - 1 - col) * c->in_rows + (c->in_rows - 1 - row);
		}
		gw_compute(w, HW_RC + HW_COPY + 2);
		hw_load(w, d_in, idx, m, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1)
				sm->in_mod_temp[ei[l]] = v[l];
		gw_smem_access(w);
	}
	gw_barrier(w);

	/* ACTUAL CONVOLUTION: each thread walks the overlap of its output */
	conv = hw_ldc(w, a, U_CONV);
	for (int base = 0; (m = hw_round(w, base, c->conv_elem, ei)); base += HW_THREADS) {
		hw_conv_sums(w, c, false, in2, ei, m, s);
		hw_store(w, conv, ei, m, s);
	}
	gw_barrier(w);

	/* CUMULATIVE SUM of in2 over template windows */
	sub2 = hw_ldc(w, a, U_SUB2);
	hw_window_sums(w, c, in2, sub2, hw_ldc(w, a, U_PAD_CUMV), hw_ldc(w, a, U_PAD_CUMV_SEL),
		       hw_ldc(w, a, U_SUB_CUMH), hw_ldc(w, a, U_SUB_CUMH_SEL));

	/* MULTIPLICATION: in2^2 */
	sqr = hw_ldc(w, a, U_SQR);
	hw_map(w, c, HW_OP_SQUARE, c->in2_elem, sqr, in2, 0);
	gw_barrier(w);

	/* CUMULATIVE SUM 2 of in2^2 over template windows */
	sqr_sub2 = hw_ldc(w, a, U_SQR_SUB2);
	hw_window_sums(w, c, sqr, sqr_sub2, hw_ldc(w, a, U_PAD_CUMV), hw_ldc(w, a, U_PAD_CUMV_SEL),
		       hw_ldc(w, a, U_SUB_CUMH), hw_ldc(w, a, U_SUB_CUMH_SEL));

	/* DENOMINATOR A */
	hw_map(w, c, HW_OP_DENOM_A, c->sub2_elem, sqr_sub2, sub2, sqr_sub2);
	gw_barrier(w);

	/* MULTIPLICATION: template^2 */
	{
		uint64_t in_sqr = hw_ldc(w, a, U_IN_SQR);

		hw_map(w, c, HW_OP_SQUARE, c->in_elem, in_sqr, d_in, 0);
		gw_barrier(w);

		/* IN SUM: a thread per template column; IN_SQR SUM: a thread per row (one round:
		 * in_rows <= 256) */
		for (int pass = 0; pass < 2; pass++) {
			uint64_t src = pass ? in_sqr : d_in;

			if (pass)
				gw_barrier(w);
			m = hw_round(w, 0, c->in_rows, ei);
			if (!m)
				continue;
			for (unsigned l = 0; l < WARP_LANES; l++)
				s[l] = 0;
			for (int i = 0; i < c->in_rows; i++) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					idx[l] =
					    pass ? ei[l] + c->in_rows * i : ei[l] * c->in_rows + i;
				hw_load(w, src, idx, m, v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					s[l] = s[l] + v[l];
				gw_compute(w, HW_CUM_STEP);
			}
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (m >> l & 1) {
					if (pass)
						sm->in_sqr_partial_sum[ei[l]] = s[l];
					else
						sm->in_partial_sum[ei[l]] = s[l];
				}
			gw_smem_access(w);
		}
		gw_barrier(w);
	}

	/* FINAL SUMMATION (threads 0 and 1, one after the other in warp 0), DENOMINATOR T */
	if (gw_warp(w) == 0) {
		float f = 0, q = 0;

		for (int i = 0; i < c->in_rows; i++) {
			f = f + sm->in_partial_sum[i];
			gw_smem_access(w);
			gw_compute(w, HW_CUM_STEP);
		}
		for (int i = 0; i < c->in_rows; i++) {
			q = q + sm->in_sqr_partial_sum[i];
			gw_smem_access(w);
			gw_compute(w, HW_CUM_STEP);
		}
		sm->in_final_sum = f;
		sm->in_sqr_final_sum = q;
		gw_smem_access(w);
	}
	gw_barrier(w);
	if (gw_warp(w) == 0) {
		sm->denom_t = hw_denom_t(sm->in_final_sum, sm->in_sqr_final_sum, c->in_elem);
		gw_smem_access(w);
		gw_compute(w, 4 * HW_DIV + 4);
		gw_smem_access(w);
	}
	gw_barrier(w);

	/* DENOMINATOR: in2_sqr_sub2 *= denomT */
	hw_map(w, c, HW_OP_SCALE, c->sub2_elem, sqr_sub2, sqr_sub2, 0);
	gw_barrier(w);

	/* NUMERATOR into conv */
	hw_map(w, c, HW_OP_NUMER, c->conv_elem, conv, conv, sub2);
	gw_barrier(w);

	/* CORRELATION into in2_sqr_sub2 */
	hw_map(w, c, HW_OP_DIV, c->sub2_elem, sqr_sub2, conv, sqr_sub2);
	gw_barrier(w);

	/* TEMPLATE MASK CREATE: 1 at the previous frame's location */
	tmask = hw_ldc(w, a, U_TMASK);
	{
		int cent = c->s_size + c->t_size + 1;
		uint64_t pointer = (uint64_t)(a->frame_no - 1) + point_no * (uint64_t)c->no_frames;
		int prev_row = (int)gw_ld32(w, hw_ldc(w, a, U_TROWLOC) + pointer * 4);
		int prev_col = (int)gw_ld32(w, hw_ldc(w, a, U_TCOLLOC) + pointer * 4);
		int tmask_row = cent + prev_row - (int)gw_ld32(w, row_a) - 1;
		int tmask_col = cent + prev_col - (int)gw_ld32(w, col_a) - 1;
		int location = tmask_col * c->tmask_rows + tmask_row;

		for (int base = 0; (m = hw_round(w, base, c->tmask_elem, ei)); base += HW_THREADS) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				v[l] = ei[l] == location ? 1 : 0;
			gw_compute(w, HW_COPY);
			hw_store(w, tmask, ei, m, v);
		}
	}
	gw_barrier(w);

	/* MASK CONVOLUTION: the box of allowed moves, times the correlation */
	mask_conv = hw_ldc(w, a, U_MASK_CONV);
	for (int base = 0; (m = hw_round(w, base, c->mask_conv_elem, ei)); base += HW_THREADS) {
		hw_conv_sums(w, c, true, tmask, ei, m, s);
		hw_load(w, sqr_sub2, ei, m, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] = v[l] * s[l];
		gw_compute(w, HW_COPY);
		hw_store(w, mask_conv, ei, m, v);
	}
	gw_barrier(w);

	/* MAXIMUM VALUE: INITIAL SEARCH, a thread per column of mask_conv (one round) */
	m = hw_round(w, 0, c->mask_conv_rows, ei);
	if (m) {
		float largest_value[WARP_LANES] = {0};
		int largest_coordinate[WARP_LANES] = {0};

		for (int i = 0; i < c->mask_conv_rows; i++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				idx[l] = ei[l] * c->mask_conv_rows + i;
			hw_load(w, mask_conv, idx, m, v);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				float value = fabsf(v[l]);

				if ((m >> l & 1) && value > largest_value[l]) {
					largest_coordinate[l] = idx[l];
					largest_value[l] = value;
				}
			}
			gw_compute(w, HW_MAX_STEP);
		}
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1) {
				sm->par_max_coo[ei[l]] = largest_coordinate[l];
				sm->par_max_val[ei[l]] = largest_value[l];
			}
		gw_smem_access(w);
		gw_smem_access(w);
	}
	gw_barrier(w);

	/* FINAL SEARCH (thread 0): the new location */
	if (gw_warp(w) == 0) {
		float fin_max_val = 0;
		int fin_max_coo = 0, largest_row, largest_col, offset_row, offset_col;
		uint64_t pointer = (uint64_t)a->frame_no + point_no * (uint64_t)c->no_frames;

		for (int i = 0; i < c->mask_conv_rows; i++) {
			gw_smem_access(w);
			if (sm->par_max_val[i] > fin_max_val) {
				fin_max_val = sm->par_max_val[i];
				fin_max_coo = sm->par_max_coo[i];
			}
			gw_compute(w, HW_MAX_STEP);
		}
		hw_rc(fin_max_coo, c->mask_conv_rows, &largest_row, &largest_col);
		largest_row = largest_row + 1; /* MATLAB's 1-based */
		largest_col = largest_col + 1;
		offset_row = largest_row - c->in_rows - (c->s_size - c->t_size);
		offset_col = largest_col - c->in_rows - (c->s_size - c->t_size);
		gw_compute(w, HW_RC + 8);
		gw_st32(w, hw_ldc(w, a, U_TROWLOC) + pointer * 4,
			(uint32_t)((int)gw_ld32(w, row_a) + offset_row));
		gw_st32(w, hw_ldc(w, a, U_TCOLLOC) + pointer * 4,
			(uint32_t)((int)gw_ld32(w, col_a) + offset_col));
	}
	gw_barrier(w);

	/* COORDINATE AND TEMPLATE UPDATE every 10th frame */
	if (a->frame_no % HW_UPDATE == 0)
		hw_template(w, a, true);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* main.cu's sizes for template half-size t, search half-size s and the number of frames. */
static void hw_common_init(struct hw_common *c, int t, int s, int frames)
{
	*c = (struct hw_common){.s_size = s,
				.t_size = t,
				.max_move = HW_MAX_MOVE,
				.alpha = HW_ALPHA,
				.no_frames = frames,
				.frame_rows = HW_FRAME_ROWS,
				.frame_cols = HW_FRAME_COLS};
	c->in_rows = t + 1 + t;
	c->in_elem = c->in_rows * c->in_rows;
	c->in2_rows = 2 * s + 1;
	c->in2_elem = c->in2_rows * c->in2_rows;
	c->conv_rows = c->in_rows + c->in2_rows - 1;
	c->conv_elem = c->conv_rows * c->conv_rows;
	c->ioffset = c->joffset = 0;
	c->pad_add = c->in_rows;
	c->pad_rows = c->in2_rows + 2 * c->pad_add;
	c->pad_elem = c->pad_rows * c->pad_rows;
	c->sel_rowlow = 1 + c->in_rows;
	c->sel_collow = 1;
	c->sel_rows = (c->pad_rows - 1) - c->sel_rowlow + 1;
	c->sel_cols = c->pad_rows - c->sel_collow + 1;
	c->sel2_rowlow = 1;
	c->sel2_collow = 1;
	c->cumh_rows = (c->pad_rows - c->in_rows - 1) - c->sel2_rowlow + 1;
	c->cumh_cols = c->pad_rows - c->sel2_collow + 1;
	c->cumh_sel_rowlow = 1;
	c->cumh_sel_collow = 1 + c->in_rows;
	c->cumh_sel_rows = c->cumh_rows - c->cumh_sel_rowlow + 1;
	c->cumh_sel_cols = (c->cumh_cols - 1) - c->cumh_sel_collow + 1;
	c->cumh_sel2_rowlow = 1;
	c->cumh_sel2_collow = 1;
	c->sub2_rows = c->cumh_rows - c->cumh_sel2_rowlow + 1;
	c->sub2_cols = (c->cumh_cols - c->in_rows - 1) - c->cumh_sel2_collow + 1;
	c->sub2_elem = c->sub2_rows * c->sub2_cols;
	c->tmask_rows = c->in_rows + (c->s_size + 1 + c->s_size) - 1;
	c->tmask_elem = c->tmask_rows * c->tmask_rows;
	c->mask_rows = c->max_move;
	c->mask_conv_rows = c->tmask_rows;
	c->mask_conv_elem = c->mask_conv_rows * c->mask_conv_rows;
	c->mask_conv_ioffset = (c->mask_rows - 1) / 2 + ((c->mask_rows - 1) % 2 > 0.5);
	c->mask_conv_joffset = c->mask_conv_ioffset;
}

/* A wall: a closed contour through sample points, as radius against angle around its centre. */
struct hw_wall {
	double cr, cc; /* centre */
	int n;
	double ang[HW_EPI_POINTS], rad[HW_EPI_POINTS]; /* sorted by angle */
};

static void hw_wall_init(struct hw_wall *wl, const int *row, const int *col, int n)
{
	wl->cr = wl->cc = 0;
	for (int i = 0; i < n; i++) {
		wl->cr += row[i] - 1;
		wl->cc += col[i] - 1;
	}
	wl->cr /= n;
	wl->cc /= n;
	wl->n = n;
	for (int i = 0; i < n; i++) {
		double a = atan2(row[i] - 1 - wl->cr, col[i] - 1 - wl->cc);
		double r = hypot(row[i] - 1 - wl->cr, col[i] - 1 - wl->cc);
		int k = i;

		while (k > 0 && wl->ang[k - 1] > a) { /* insertion sort by angle */
			wl->ang[k] = wl->ang[k - 1];
			wl->rad[k] = wl->rad[k - 1];
			k--;
		}
		wl->ang[k] = a;
		wl->rad[k] = r;
	}
}

/* The contour's radius at angle a (linear between the neighbouring points, wrapping). */
static double hw_wall_radius(const struct hw_wall *wl, double a)
{
	int k = 0;
	double a0, a1;

	while (k < wl->n && wl->ang[k] < a)
		k++;
	if (k == 0 || k == wl->n) { /* between the last and the first point */
		a0 = wl->ang[wl->n - 1] - 2 * M_PI;
		a1 = wl->ang[0];
		if (a > wl->ang[wl->n - 1])
			a -= 2 * M_PI;
		return wl->rad[wl->n - 1] +
		       (wl->rad[0] - wl->rad[wl->n - 1]) * (a - a0) / (a1 - a0);
	}
	a0 = wl->ang[k - 1];
	a1 = wl->ang[k];
	return wl->rad[k - 1] + (wl->rad[k] - wl->rad[k - 1]) * (a - a0) / (a1 - a0);
}

static double hw_sigmoid(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

/*
 * Frame f, column-major floats holding uchar values as get_frame returns them. Inside the box
 * [r0, r1] x [c0, c1] (all the kernel can read): blood pool 30 inside the endocardium,
 * myocardium 170 up to the epicardium, tissue 85 outside, 1.2-pixel edges, speckle +-20; the
 * walls contract (endocardium up to 6%, epicardium 3%) and drift (1.5 and 1 pixel) over the
 * frames. Elsewhere a constant 85.
 */
static void hw_frame(uint64_t seed, int f, const struct hw_wall *endo, const struct hw_wall *epi,
		     int r0, int r1, int c0, int c1, float *frame)
{
	double phase = (1 - cos(2 * M_PI * f / 12.0)) / 2;
	double ke = 1 - 0.06 * phase, kp = 1 - 0.03 * phase;
	double dr = 1.5 * sin(2 * M_PI * f / 16.0), dc = 1.0 * sin(2 * M_PI * f / 11.0);

	for (size_t i = 0; i < (size_t)HW_FRAME_ROWS * HW_FRAME_COLS; i++)
		frame[i] = 85.f;
	for (int c = c0; c <= c1; c++)
		for (int r = r0; r <= r1; r++) {
			double er = r - endo->cr - dr, ec = c - endo->cc - dc;
			double pr = r - epi->cr - dr, pc = c - epi->cc - dc;
			double de = hypot(er, ec) - ke * hw_wall_radius(endo, atan2(er, ec));
			double dp = hypot(pr, pc) - kp * hw_wall_radius(epi, atan2(pr, pc));
			double v = 30 + 140 * hw_sigmoid(de / 1.2) - 85 * hw_sigmoid(dp / 1.2);
			size_t o = (size_t)c * HW_FRAME_ROWS + r;

			v += 40 * (wl_unit(seed, 1 + (uint64_t)f, o) - 0.5);
			v = v < 0 ? 0 : v > 255 ? 255 : v;
			frame[o] = (float)(unsigned char)lround(v);
		}
}

/* The host reference of one point's state. */
struct hw_ref {
	float *tmpl; /* in_elem */
	int row, col;
	int *trow, *tcol; /* [no_frames] */
	float *mask_conv; /* the last frame's, conv_elem */
};

/* Reference buffers (one set reused for every point). */
struct hw_bufs {
	float *in2, *rot, *conv, *pad, *pad_sel, *cumh, *cumh_sel, *sub2, *sqr, *sqr_sub2, *in_sqr,
	    *tmask;
};

static void hw_ref_select(float *dst, const float *src, int n, int dst_rows, int src_rows,
			  int rowlow, int collow)
{
	for (int ei = 0; ei < n; ei++) {
		int row, col;

		hw_rc(ei, dst_rows, &row, &col);
		dst[ei] = src[(col + collow - 1) * src_rows + row + rowlow - 1];
	}
}

/* hw_cumsum on the host. */
static void hw_ref_cumsum(float *buf, int n, int len, int line, int step)
{
	for (int ei = 0; ei < n; ei++) {
		float sum = 0;

		for (int k = 0; k < len; k++) {
			float *p = &buf[ei * line + k * step];

			*p = *p + sum;
			sum = *p;
		}
	}
}

static void hw_ref_window_sums(const struct hw_common *c, const float *src, float *out,
			       struct hw_bufs *b)
{
	for (int ei = 0; ei < c->pad_elem; ei++) {
		int row, col;

		hw_rc(ei, c->pad_rows, &row, &col);
		if (row > c->pad_add - 1 && row < c->pad_add + c->in2_rows &&
		    col > c->pad_add - 1 && col < c->pad_add + c->in2_rows)
			b->pad[ei] = src[(col - c->pad_add) * c->in2_rows + row - c->pad_add];
		else
			b->pad[ei] = 0;
	}
	hw_ref_cumsum(b->pad, c->pad_rows, c->pad_rows, c->pad_rows, 1);
	hw_ref_select(b->pad_sel, b->pad, c->sel_rows * c->sel_cols, c->sel_rows, c->pad_rows,
		      c->sel_rowlow, c->sel_collow);
	hw_ref_select(b->cumh, b->pad, c->cumh_rows * c->cumh_cols, c->cumh_rows, c->pad_rows,
		      c->sel2_rowlow, c->sel2_collow);
	for (int ei = 0; ei < c->cumh_rows * c->cumh_cols; ei++)
		b->cumh[ei] = b->pad_sel[ei] - b->cumh[ei];
	hw_ref_cumsum(b->cumh, c->cumh_rows, c->cumh_cols, 1, c->cumh_rows);
	hw_ref_select(b->cumh_sel, b->cumh, c->cumh_sel_rows * c->cumh_sel_cols, c->cumh_sel_rows,
		      c->cumh_rows, c->cumh_sel_rowlow, c->cumh_sel_collow);
	hw_ref_select(out, b->cumh, c->sub2_elem, c->sub2_rows, c->cumh_rows, c->cumh_sel2_rowlow,
		      c->cumh_sel2_collow);
	for (int ei = 0; ei < c->sub2_elem; ei++)
		out[ei] = b->cumh_sel[ei] - out[ei];
}

/* Template extraction (update false) or blend (update true) at the point's reference position. */
static void hw_ref_template(const struct hw_common *c, const float *frame, struct hw_ref *p,
			    bool update)
{
	for (int ei = 0; ei < c->in_elem; ei++) {
		int row, col;
		float v;

		hw_rc(ei, c->in_rows, &row, &col);
		v = frame[(p->col - c->t_size + col - 1) * c->frame_rows + p->row - c->t_size +
			  row - 1];
		if (update)
			p->tmpl[ei] = hw_blend(c->alpha, p->tmpl[ei], v);
		else
			p->tmpl[col * c->in_rows + row] = v;
	}
}

/* One point through frame f (f >= 1): kernel.cu's PROCESS POINTS and the update. */
static void hw_ref_track(const struct hw_common *c, const float *frame, int f, struct hw_ref *p,
			 struct hw_bufs *b)
{
	int T = c->in_rows, S = c->in2_rows, C = c->conv_rows;
	float final_sum = 0, sqr_final_sum = 0, denom_t, fin_max_val = 0;
	int fin_max_coo = 0, cent, location, lr, lc;

	hw_ref_select(b->in2, frame, c->in2_elem, S, c->frame_rows, p->row - c->s_size,
		      p->col - c->s_size);
	for (int ei = 0; ei < c->in_elem; ei++) {
		int row, col;

		hw_rc(ei, T, &row, &col);
		b->rot[ei] = p->tmpl[(T - 1 - col) * T + (T - 1 - row)];
	}
	for (int ei = 0; ei < c->conv_elem; ei++) {
		struct hw_range r = hw_range_of(ei, C, c->ioffset, c->joffset, T, T, S, S);
		float s = 0;

		for (int ja = r.ja1; ja <= r.ja2; ja++)
			for (int ia = r.ia1; ia <= r.ia2; ia++)
				s = hw_mac(s, b->rot[T * (ja - 1) + ia - 1],
					   b->in2[S * (r.jp1 - ja - 1) + r.ip1 - ia - 1]);
		b->conv[ei] = s;
	}
	hw_ref_window_sums(c, b->in2, b->sub2, b);
	for (int ei = 0; ei < c->in2_elem; ei++)
		b->sqr[ei] = b->in2[ei] * b->in2[ei];
	hw_ref_window_sums(c, b->sqr, b->sqr_sub2, b);
	for (int ei = 0; ei < c->sub2_elem; ei++)
		b->sqr_sub2[ei] = hw_denom_a(b->sqr_sub2[ei], b->sub2[ei], c->in_elem);
	for (int ei = 0; ei < c->in_elem; ei++)
		b->in_sqr[ei] = p->tmpl[ei] * p->tmpl[ei];
	{
		float part[HW_SM_IN], sqr_part[HW_SM_IN];

		for (int t = 0; t < T; t++) {
			float s = 0, q = 0;

			for (int i = 0; i < T; i++) {
				s = s + p->tmpl[t * T + i];
				q = q + b->in_sqr[t + T * i];
			}
			part[t] = s;
			sqr_part[t] = q;
		}
		for (int i = 0; i < T; i++) {
			final_sum = final_sum + part[i];
			sqr_final_sum = sqr_final_sum + sqr_part[i];
		}
	}
	denom_t = hw_denom_t(final_sum, sqr_final_sum, c->in_elem);
	for (int ei = 0; ei < c->sub2_elem; ei++)
		b->sqr_sub2[ei] = b->sqr_sub2[ei] * denom_t;
	for (int ei = 0; ei < c->conv_elem; ei++)
		b->conv[ei] = hw_numer(b->conv[ei], b->sub2[ei], final_sum, c->in_elem);
	for (int ei = 0; ei < c->sub2_elem; ei++)
		b->sqr_sub2[ei] = b->conv[ei] / b->sqr_sub2[ei];
	cent = c->s_size + c->t_size + 1;
	location = (cent + p->tcol[f - 1] - p->col - 1) * c->tmask_rows +
		   (cent + p->trow[f - 1] - p->row - 1);
	for (int ei = 0; ei < c->tmask_elem; ei++)
		b->tmask[ei] = ei == location ? 1 : 0;
	for (int ei = 0; ei < c->mask_conv_elem; ei++) {
		struct hw_range r =
		    hw_range_of(ei, c->mask_conv_rows, c->mask_conv_ioffset, c->mask_conv_joffset,
				c->tmask_rows, c->tmask_rows, c->mask_rows, c->mask_rows);
		float s = 0;

		for (int ja = r.ja1; ja <= r.ja2; ja++)
			for (int ia = r.ia1; ia <= r.ia2; ia++)
				s = s + b->tmask[c->tmask_rows * (ja - 1) + ia - 1] * 1;
		p->mask_conv[ei] = b->sqr_sub2[ei] * s;
	}
	for (int col = 0; col < c->mask_conv_rows; col++) {
		float largest_value = 0;
		int largest_coordinate = 0;

		for (int i = 0; i < c->mask_conv_rows; i++) {
			int k = col * c->mask_conv_rows + i;

			if (fabsf(p->mask_conv[k]) > largest_value) {
				largest_coordinate = k;
				largest_value = fabsf(p->mask_conv[k]);
			}
		}
		if (largest_value > fin_max_val) { /* thread 0's scan of par_max_val */
			fin_max_val = largest_value;
			fin_max_coo = largest_coordinate;
		}
	}
	hw_rc(fin_max_coo, c->mask_conv_rows, &lr, &lc);
	p->trow[f] = p->row + (lr + 1) - T - (c->s_size - c->t_size);
	p->tcol[f] = p->col + (lc + 1) - T - (c->s_size - c->t_size);
	if (f % HW_UPDATE == 0) {
		p->row = p->trow[f];
		p->col = p->tcol[f];
		hw_ref_template(c, frame, p, true);
	}
}

int rodinia_heartwall_main(struct gpu_host *h)
{
	enum gpu_size size = gh_size(h);
	bool full = size == GPU_SIZE_FULL;
	/* (template half-size, search half-size, frames, endo and epi points) */
	int t = full ? 25 : (int)wl_by_size(h, 3, 6, 10);
	int s = full ? 40 : (int)wl_by_size(h, 6, 10, 16);
	int frames = full ? 20 : (int)wl_by_size(h, 3, 12, 2);
	int n_endo = full ? HW_ENDO_POINTS : (int)wl_by_size(h, 2, 2, HW_ENDO_POINTS);
	int n_epi = full ? HW_EPI_POINTS : (int)wl_by_size(h, 2, 2, HW_EPI_POINTS);
	int points = n_endo + n_epi;
	uint64_t seed = gh_seed(h) ^ TAG_HW;
	struct hw_args a = {0};
	struct hw_common *c = &a.c;
	struct gpu_kernel kern = {.name = "kernel",
				  .ctas = (unsigned)points,
				  .warps_per_cta = HW_WARPS,
				  .regs_per_thread = 32,
				  .smem_bytes = sizeof(struct hw_smem),
				  .fn = hw_kernel,
				  .args = &a};
	size_t frame_elems = (size_t)HW_FRAME_ROWS * HW_FRAME_COLS;
	float *frame = malloc(frame_elems * sizeof(float));
	uint64_t *unique = calloc((size_t)points * U_FIELDS, sizeof(uint64_t));
	struct hw_ref *ref = calloc((size_t)points, sizeof(*ref));
	struct hw_bufs b = {0};
	float *got = NULL;
	/* the reference's buffers and got: pad_elem floats each (the largest matrix) */
	float **bufs[] = {&b.in2,  &b.rot, &b.conv,	&b.pad,	   &b.pad_sel, &b.cumh, &b.cumh_sel,
			  &b.sub2, &b.sqr, &b.sqr_sub2, &b.in_sqr, &b.tmask,   &got};
	int *goti = NULL;
	uint64_t set_row[2], set_col[2], set_trow[2], set_tcol[2], set_t[2], mask_conv_dev = 0;
	struct hw_wall endo, epi;
	int r0 = HW_FRAME_ROWS, r1 = 0, c0 = HW_FRAME_COLS, c1 = 0, reach, moved = 0;
	int err = -CS_ENOMEM;

	hw_common_init(c, t, s, frames);
	hw_wall_init(&endo, hw_endo_row, hw_endo_col, HW_ENDO_POINTS);
	hw_wall_init(&epi, hw_epi_row, hw_epi_col, HW_EPI_POINTS);
	if (!frame || !unique || !ref)
		goto out;
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (!(*bufs[i] = malloc((size_t)c->pad_elem * sizeof(float))))
			goto out;
	goti = malloc((size_t)frames * sizeof(int));
	if (!goti)
		goto out;
	/* the sets' device arrays (endo: set 0, epi: set 1) */
	for (int set = 0; set < 2; set++) {
		int n = set ? n_epi : n_endo;

		set_row[set] = wl_upload(h, set ? hw_epi_row : hw_endo_row, (size_t)n * 4);
		set_col[set] = wl_upload(h, set ? hw_epi_col : hw_endo_col, (size_t)n * 4);
		set_trow[set] = wl_alloc_zero(h, (size_t)n * frames * 4);
		set_tcol[set] = wl_alloc_zero(h, (size_t)n * frames * 4);
		set_t[set] = wl_alloc_zero(h, (size_t)n * c->in_elem * 4);
	}
	/* per-point working matrices, d_unique in constant memory, the reference's state */
	for (int i = 0; i < points; i++) {
		int set = i >= n_endo, pn = set ? i - n_endo : i;
		uint64_t *u = &unique[(size_t)i * U_FIELDS];
		struct hw_ref *p = &ref[i];

		u[U_ROW] = set_row[set];
		u[U_COL] = set_col[set];
		u[U_TROWLOC] = set_trow[set];
		u[U_TCOLLOC] = set_tcol[set];
		u[U_T] = set_t[set];
		u[U_POINT_NO] = (uint64_t)pn;
		u[U_IN_POINTER] = (uint64_t)(pn * c->in_elem);
		u[U_IN2] = wl_alloc_zero(h, (size_t)c->in2_elem * 4);
		u[U_CONV] = wl_alloc_zero(h, (size_t)c->conv_elem * 4);
		u[U_PAD_CUMV] = wl_alloc_zero(h, (size_t)c->pad_elem * 4);
		u[U_PAD_CUMV_SEL] = wl_alloc_zero(h, (size_t)c->sel_rows * c->sel_cols * 4);
		u[U_SUB_CUMH] = wl_alloc_zero(h, (size_t)c->cumh_rows * c->cumh_cols * 4);
		u[U_SUB_CUMH_SEL] =
		    wl_alloc_zero(h, (size_t)c->cumh_sel_rows * c->cumh_sel_cols * 4);
		u[U_SUB2] = wl_alloc_zero(h, (size_t)c->sub2_elem * 4);
		u[U_SQR] = wl_alloc_zero(h, (size_t)c->in2_elem * 4);
		u[U_SQR_SUB2] = wl_alloc_zero(h, (size_t)c->sub2_elem * 4);
		u[U_IN_SQR] = wl_alloc_zero(h, (size_t)c->in_elem * 4);
		u[U_TMASK] = wl_alloc_zero(h, (size_t)c->tmask_elem * 4);
		u[U_MASK_CONV] = wl_alloc_zero(h, (size_t)c->mask_conv_elem * 4);
		p->row = set ? hw_epi_row[pn] : hw_endo_row[pn];
		p->col = set ? hw_epi_col[pn] : hw_endo_col[pn];
		p->tmpl = malloc((size_t)c->in_elem * sizeof(float));
		p->trow = calloc((size_t)frames, sizeof(int));
		p->tcol = calloc((size_t)frames, sizeof(int));
		p->mask_conv = calloc((size_t)c->mask_conv_elem, sizeof(float));
		if (!p->tmpl || !p->trow || !p->tcol || !p->mask_conv)
			goto out;
		/* the part of the frame the kernel can read: two windows' reach (the reference
		 * position moves by at most one window at the update) */
		reach = 2 * (s + t) + t + 2;
		r0 = p->row - reach < r0 ? p->row - reach : r0;
		r1 = p->row + reach > r1 ? p->row + reach : r1;
		c0 = p->col - reach < c0 ? p->col - reach : c0;
		c1 = p->col + reach > c1 ? p->col + reach : c1;
	}
	r0 = r0 < 0 ? 0 : r0;
	c0 = c0 < 0 ? 0 : c0;
	r1 = r1 >= HW_FRAME_ROWS ? HW_FRAME_ROWS - 1 : r1;
	c1 = c1 >= HW_FRAME_COLS ? HW_FRAME_COLS - 1 : c1;
	a.unique = wl_upload(h, unique, (size_t)points * U_FIELDS * sizeof(uint64_t));
	a.frame = gh_alloc(h, frame_elems * sizeof(float), 0);

	for (a.frame_no = 0; a.frame_no < frames; a.frame_no++) {
		hw_frame(seed, a.frame_no, &endo, &epi, r0, r1, c0, c1, frame);
		gh_write(h, a.frame, frame, frame_elems * sizeof(float));
		err = gh_launch(h, &kern);
		if (err)
			goto out;
		for (int i = 0; i < points; i++) {
			struct hw_ref *p = &ref[i];

			if (a.frame_no == 0) {
				p->trow[0] = p->row;
				p->tcol[0] = p->col;
				hw_ref_template(c, frame, p, false);
			} else {
				hw_ref_track(c, frame, a.frame_no, p, &b);
			}
		}
	}
	gh_corrupt(h, set_trow[0] + (uint64_t)(frames - 1) * 4, 4);

	/* positions of every point in every frame, then the templates and last correlations */
	for (int i = 0; i < points; i++) {
		int set = i >= n_endo, pn = set ? i - n_endo : i;
		struct hw_ref *p = &ref[i];
		const char *name = set ? "epi" : "endo";

		for (int k = 0; k < 2; k++) {
			const int *want = k ? p->tcol : p->trow;

			gh_read(h, (k ? set_tcol[set] : set_trow[set]) + (uint64_t)pn * frames * 4,
				goti, (size_t)frames * sizeof(int));
			for (int f = 0; f < frames; f++)
				if (goti[f] != want[f]) {
					err = gh_fail(
					    h,
					    "heartwall: %s point %d, frame %d: tracked %s "
					    "%d, want %d",
					    name, pn, f, k ? "column" : "row", goti[f], want[f]);
					goto out;
				}
		}
		for (int f = 1; f < frames; f++)
			moved += p->trow[f] != p->trow[f - 1] || p->tcol[f] != p->tcol[f - 1];
		gh_read(h, set_t[set] + (uint64_t)pn * c->in_elem * 4, got,
			(size_t)c->in_elem * sizeof(float));
		for (int e = 0; e < c->in_elem; e++)
			if (wl_f2u(got[e]) != wl_f2u(p->tmpl[e])) {
				err = gh_fail(h,
					      "heartwall: %s point %d: template element %d = %.9g, "
					      "want %.9g",
					      name, pn, e, (double)got[e], (double)p->tmpl[e]);
				goto out;
			}
		if (frames < 2)
			continue;
		mask_conv_dev = unique[(size_t)i * U_FIELDS + U_MASK_CONV];
		gh_read(h, mask_conv_dev, got, (size_t)c->mask_conv_elem * sizeof(float));
		for (int e = 0; e < c->mask_conv_elem; e++)
			if (wl_f2u(got[e]) != wl_f2u(p->mask_conv[e])) {
				err = gh_fail(h,
					      "heartwall: %s point %d: masked correlation element "
					      "%d of frame %d = %.9g, want %.9g",
					      name, pn, e, frames - 1, (double)got[e],
					      (double)p->mask_conv[e]);
				goto out;
			}
	}
	gh_note(h,
		"heartwall: %d points (%d endo, %d epi) x %d frames, template %dx%d, search "
		"%dx%d, every tracked position (%d moves), template and last correlation "
		"bit-exact",
		points, n_endo, n_epi, frames, c->in_rows, c->in_rows, c->in2_rows, c->in2_rows,
		moved);
	err = 0;
out:
	if (ref)
		for (int i = 0; i < points; i++) {
			free(ref[i].tmpl);
			free(ref[i].trow);
			free(ref[i].tcol);
			free(ref[i].mask_conv);
		}
	free(ref);
	free(unique);
	free(frame);
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		free(*bufs[i]);
	free(goti);
	return err;
}
