/*
 * workloads/rodinia/srad.c - Speckle Reducing Anisotropic Diffusion (Rodinia `srad_v1`, Che et
 * al., IISWC 2009; Yu and Acton, IEEE TIP 2002).
 *
 * Despeckles an ultrasound image of Nr x Nc pixels (column-major, as Rodinia reads it) with
 * Rodinia's CUDA srad_v1 (main.cu and its *_kernel.cu): every kernel is a 1-D grid of
 * ceil(Ne / 512) CTAs of 512 threads, thread ei owning pixel ei. extract maps each pixel v to
 * exp(v / 255); then per iteration: prepare copies the image to sums and its square to sums2;
 * reduce sums both arrays with a shared-memory tree per CTA, launched level after level
 * (stride mul = 1, 512, ...) until one CTA is left; the host reads the two totals back and
 * computes q0sqr (the ROI is the whole image); srad computes each pixel's four directional
 * derivatives (neighbours through the iN/iS/jW/jE index arrays, edges clamped) and its
 * diffusion coefficient; srad2 updates each pixel from its own, its south and its east
 * coefficients. compress maps each pixel back with log(v) * 255.
 *
 * No coherence needed: within a launch a thread reads only what earlier launches wrote (srad2
 * reads the coefficients srad wrote) besides its own pixel, and every output word has one
 * writer; reduce's CTAs read and write disjoint words.
 *
 * Input: an image of integer grey levels 0..255 from the seed shaped like Rodinia's ultrasound
 * image (a bright elliptic ring on a graded background, multiplied by exponential speckle);
 * lambda 0.5 as Rodinia's run script. Check: each iteration's two totals (the device's, which
 * the host reads as Rodinia's does) and every pixel of the final image, bit for bit, against a
 * host reference that runs the same reduction tree and the same per-pixel functions (noinline,
 * shared with the kernels) in the same order.
 *
 * Kept from Rodinia: when the last CTA of a reduce launch is partial, its last thread adds the
 * leftover elements as d_sums[i] without the stride mul, so from the second level on it adds
 * raw pixels instead of the partial sums (502 x 458: the total counts the sums of CTAs 0..255
 * and pixels 256..449), and q0sqr comes out larger than the image's; it changes values, not
 * the shape of the work.
 *
 * Sizes (Nr x Nc, iterations): tiny 62 x 50, 2; small 138 x 130, 4; default 502 x 458 (Rodinia's
 * image), 6; full 502 x 458, 100 (Rodinia's run script). Ne mod 512 is 28 at tiny and default
 * (as Rodinia's), 20 at small, so the partial-CTA path runs at every size.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_SRAD	0x7372616400000000ull
#define SRAD_THREADS	512 /* Rodinia's NUMBER_THREADS: threads per CTA */
#define SRAD_WARPS	(SRAD_THREADS / WARP_LANES)
#define SRAD_LAMBDA	0.5f
#define SRAD_DP		8  /* issue slots of a double-precision instruction (GTX 480: 1/8 rate) */
#define SRAD_SFU	4  /* issue slots of an SFU instruction (MUFU: 1/8 rate, two schedulers) */
#define SRAD_FDIV	10 /* an IEEE single-precision division (nvcc's subroutine) */
#define SRAD_DDIV	(9 * SRAD_DP) /* a double-precision division (MUFU.RCP64H + ~8 DFMA) */
#define SRAD_INT_DIVMOD 20	      /* a 32-bit integer division or remainder by a variable */

/*
 * Issue slots per warp (SASS-like counts of the kernels):
 * index: 2 S2R, ei = bx * 512 + tx, ei < Ne test and branch, one address: 6;
 * extract: the division by 255 and expf (FMUL, 2 FFMA, MUFU.EX2), address: 10 + 3 + SFU + 2;
 * prepare: FMUL and two addresses: 3 (d_I[ei] is loaded twice: it may alias d_sums);
 * reduce: prologue nf, df's loop (7 compare/select pairs), the loads' ei * mul addresses: 24;
 *   per tree step: loop, (tx + 1) % i (a variable remainder) and the test, branch: 4 + DIVMOD;
 *   per active step: tx - i / 2 and the shared addresses (3), 2 FADD: 5; remainder iteration:
 *   2 addresses, 2 FADD, loop: 6;
 * srad/srad2 row and column: (ei + 1) % Nr, (ei + 1) / Nr, the fix-up: 2 DIVMOD + 6;
 * srad math: 4 FADD derivatives; G2: 4 FMUL/FFMA + FMUL + FDIV; L: 3 FADD + FDIV; num: 3 F2F,
 *   DMUL, DMUL, DADD (3 DP) + FMUL; den: F2F, DFMA (1 DP), F2F; qsqr: FMUL + FDIV; den again:
 *   FADD, FADD, FMUL + FDIV; c: 2 F2F, DADD + DDIV; saturation 4; addresses 10:
 *   4 + 5 + FDIV + 3 + FDIV + 4 + 3 DP + 2 + 1 DP + 1 + FDIV + 3 + FDIV + 2 + 1 DP + DDIV + 14;
 * srad2 math: FMUL + 3 FFMA; 4 F2F, 3 DP (0.25 * lambda, * D, + I), F2F; addresses 10;
 * compress: logf (MUFU.LG2, range handling ~6), FMUL, address: SFU + 8.
 */
#define SRAD_INDEX    6
#define SRAD_EXTRACT  (SRAD_FDIV + 5 + SRAD_SFU)
#define SRAD_PREPARE  3
#define SRAD_RED_PRO  24
#define SRAD_RED_STEP (4 + SRAD_INT_DIVMOD)
#define SRAD_RED_ADD  5
#define SRAD_RED_REM  6
#define SRAD_ROWCOL   (2 * SRAD_INT_DIVMOD + 6)
#define SRAD_MATH     (4 * SRAD_FDIV + 5 * SRAD_DP + SRAD_DDIV + 38)
#define SRAD2_MATH    (3 * SRAD_DP + 19)
#define SRAD_COMPRESS (SRAD_SFU + 8)

struct srad_args {
	/* device arrays, in main.cu's allocation order */
	uint64_t image;			/* float d_I[Ne], column-major Nr x Nc */
	uint64_t i_n, i_s, j_e, j_w;	/* int neighbour rows and columns */
	uint64_t sums, sums2;		/* float [Ne] partial sums */
	uint64_t d_n, d_s, d_w, d_e, c; /* float [Ne] derivatives, coefficient */
	int64_t ne;
	int nr, nc;
	int no, mul; /* reduce: elements to sum, their stride */
	float lambda, q0sqr;
};

struct srad_smem {
	float psum[SRAD_THREADS], psum2[SRAD_THREADS];
};

/* ---- the per-pixel arithmetic, shared by the kernels and the host reference ----------------- */

/* extract: exp(d_I[ei] / 255) (float division, the float exp). */
static __attribute__((noinline)) float srad_extract_value(float v)
{
	return expf(v / 255);
}

/* compress: log(d_I[ei]) * 255. */
static __attribute__((noinline)) float srad_compress_value(float v)
{
	return logf(v) * 255;
}

struct srad_point {
	float dn, ds, dw, de, c;
};

/* srad: derivatives and diffusion coefficient of a pixel from its value and its N, S, W, E
 * neighbours; Rodinia's expressions with their types (the double literals make num, den and
 * c double-precision). */
static __attribute__((noinline)) void srad_point(float jc, float n, float s, float w, float e,
						 float q0sqr, struct srad_point *p)
{
	float dn = n - jc, ds = s - jc, dw = w - jc, de = e - jc;
	float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
	float l = (dn + ds + dw + de) / jc;
	float num = (0.5 * g2) - ((1.0 / 16.0) * (l * l));
	float den = 1 + (0.25 * l);
	float qsqr = num / (den * den);
	float c;

	den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
	c = 1.0 / (1.0 + den);
	if (c < 0)
		c = 0;
	else if (c > 1)
		c = 1;
	p->dn = dn;
	p->ds = ds;
	p->dw = dw;
	p->de = de;
	p->c = c;
}

/* srad2: the divergence and the image update (in double: 0.25 * lambda * D). */
static __attribute__((noinline)) float srad_update(float img, float cn, float cs, float cw,
						   float ce, const struct srad_point *p,
						   float lambda)
{
	float d = cn * p->dn + cs * p->ds + cw * p->dw + ce * p->de;

	return img + 0.25 * lambda * d;
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* ei of every lane (bx * 512 + tx) and the mask of those below Ne. */
static uint32_t srad_lanes(struct gpu_warp *w, int64_t ne, int64_t ei[WARP_LANES])
{
	uint32_t mask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		ei[l] = (int64_t)gw_cta(w) * SRAD_THREADS + gw_warp(w) * WARP_LANES + l;
		if (ei[l] < ne)
			mask |= 1u << l;
	}
	return mask;
}

static void srad_addrs(uint64_t addr[WARP_LANES], uint64_t base, const int64_t idx[WARP_LANES])
{
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + (uint64_t)idx[l] * 4;
}

/* The prologue of extract, prepare and compress: ei of every lane, its d_I address and the
 * lanes below Ne (0: the warp has nothing to do). */
static uint32_t srad_start(struct gpu_warp *w, const struct srad_args *a, int64_t ei[WARP_LANES],
			   uint64_t addr[WARP_LANES])
{
	uint32_t mask = srad_lanes(w, a->ne, ei);

	gw_compute(w, SRAD_INDEX);
	srad_addrs(addr, a->image, ei);
	return mask;
}

/* d_I[ei] = fn(d_I[ei]) in place, cost issue slots of arithmetic (extract, compress). */
static void srad_map(struct gpu_warp *w, float (*fn)(float), unsigned cost)
{
	const struct srad_args *a = gw_args(w);
	int64_t ei[WARP_LANES];
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};
	uint32_t mask = srad_start(w, a, ei, addr);

	if (!mask)
		return;
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = wl_f2u(fn(wl_u2f(v[l])));
	gw_compute(w, cost);
	gw_st32v(w, addr, mask, v);
}

static void srad_extract_kernel(struct gpu_warp *w)
{
	srad_map(w, srad_extract_value, SRAD_EXTRACT);
}

static void srad_prepare_kernel(struct gpu_warp *w)
{
	const struct srad_args *a = gw_args(w);
	int64_t ei[WARP_LANES];
	uint64_t addr[WARP_LANES], st[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};
	uint32_t mask = srad_start(w, a, ei, addr);

	if (!mask)
		return;
	gw_ld32v(w, addr, mask, v);
	srad_addrs(st, a->sums, ei);
	gw_st32v(w, st, mask, v);
	/* d_I may alias d_sums (no __restrict__): d_I[ei] is loaded again for the square */
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = wl_f2u(wl_u2f(v[l]) * wl_u2f(v[l]));
	gw_compute(w, SRAD_PREPARE);
	srad_addrs(st, a->sums2, ei);
	gw_st32v(w, st, mask, v);
}

/* Rodinia's df: the largest power of two <= nf from 2 up (0 when nf < 2). */
static int srad_divisibility(int nf)
{
	int df = 0;

	for (int i = 2; i <= SRAD_THREADS; i *= 2)
		if (nf >= i)
			df = i;
	return df;
}

/*
 * reduce: each CTA loads its 512 elements (stride mul) into shared memory and sums them as a
 * tree (step i: thread tx with (tx + 1) % i == 0 adds element tx - i / 2), a barrier after each
 * step. A full CTA's last thread stores the sums at the CTA's first element. The last CTA, when
 * partial (nf elements), runs the tree over its first df (a power of two) elements; thread
 * df - 1 then adds the remaining elements, read as d_sums[i] with no stride (Rodinia's
 * indexing, kept), and stores.
 */
static void srad_reduce_kernel(struct gpu_warp *w)
{
	const struct srad_args *a = gw_args(w);
	struct srad_smem *sm = gw_smem(w);
	int bx = (int)gw_cta(w), grid = (int)gw_ctas(w);
	int nf = SRAD_THREADS - (grid * SRAD_THREADS - a->no);
	bool full = nf == SRAD_THREADS || bx != grid - 1;
	int df = full ? SRAD_THREADS : srad_divisibility(nf);
	int tx0 = (int)gw_warp(w) * WARP_LANES, last;
	uint64_t addr[WARP_LANES], out = (uint64_t)bx * a->mul * SRAD_THREADS * 4;
	uint32_t v[WARP_LANES] = {0}, v2[WARP_LANES] = {0}, mask = 0;

	gw_compute(w, SRAD_RED_PRO);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		int64_t ei = (int64_t)bx * SRAD_THREADS + tx0 + l;

		addr[l] = (uint64_t)ei * a->mul * 4;
		if (ei < a->no)
			mask |= 1u << l;
	}
	if (mask) {
		uint64_t a2[WARP_LANES];

		for (unsigned l = 0; l < WARP_LANES; l++) {
			a2[l] = a->sums2 + addr[l];
			addr[l] += a->sums;
		}
		gw_ld32v(w, addr, mask, v);
		gw_ld32v(w, a2, mask, v2);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (!(mask >> l & 1))
				continue;
			sm->psum[tx0 + l] = wl_u2f(v[l]);
			sm->psum2[tx0 + l] = wl_u2f(v2[l]);
		}
		gw_smem_access(w);
		gw_smem_access(w);
	}
	gw_barrier(w);
	for (int i = 2; i <= df; i *= 2) {
		uint32_t active = 0;

		for (unsigned l = 0; l < WARP_LANES; l++) {
			int tx = tx0 + (int)l;

			if ((tx + 1) % i == 0 && tx < df)
				active |= 1u << l;
		}
		gw_compute(w, SRAD_RED_STEP);
		if (active) {
			for (unsigned l = 0; l < WARP_LANES; l++) {
				int tx = tx0 + (int)l;

				if (!(active >> l & 1))
					continue;
				sm->psum[tx] = sm->psum[tx] + sm->psum[tx - i / 2];
				sm->psum2[tx] = sm->psum2[tx] + sm->psum2[tx - i / 2];
			}
			for (unsigned k = 0; k < 6; k++) /* 4 LDS, 2 STS */
				gw_smem_access(w);
			gw_compute(w, SRAD_RED_ADD);
		}
		gw_barrier(w);
	}
	last = df - 1; /* the thread that stores: 511 for a full CTA */
	if (last < tx0 || last >= tx0 + WARP_LANES)
		return;
	gw_smem_access(w);
	gw_smem_access(w);
	if (!full) {
		int64_t first = (int64_t)bx * SRAD_THREADS;

		for (int64_t i = first + df; i < first + nf; i++) {
			float s = wl_u2f(gw_ld32(w, a->sums + (uint64_t)i * 4));
			float s2 = wl_u2f(gw_ld32(w, a->sums2 + (uint64_t)i * 4));

			sm->psum[last] = sm->psum[last] + s;
			sm->psum2[last] = sm->psum2[last] + s2;
			gw_compute(w, SRAD_RED_REM);
		}
	}
	gw_st32(w, a->sums + out, wl_f2u(sm->psum[last]));
	gw_st32(w, a->sums2 + out, wl_f2u(sm->psum2[last]));
}

/* Rodinia's row and column of pixel ei (column-major, Nr rows). */
static void srad_row_col(int64_t ei, int nr, int *row, int *col)
{
	*row = (int)((ei + 1) % nr) - 1;
	*col = (int)((ei + 1) / nr + 1 - 1);
	if ((ei + 1) % nr == 0) {
		*row = nr - 1;
		*col = *col - 1;
	}
}

/* Loads base[idx[l]] for the masked lanes into f[]. */
static void srad_gather(struct gpu_warp *w, uint64_t base, const int64_t idx[WARP_LANES],
			uint32_t mask, float f[WARP_LANES])
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	srad_addrs(addr, base, idx);
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		f[l] = wl_u2f(v[l]);
}

/* Loads the ints base[idx[l]] for the masked lanes into out[]. */
static void srad_gather_int(struct gpu_warp *w, uint64_t base, const int idx[WARP_LANES],
			    uint32_t mask, int out[WARP_LANES])
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + (uint64_t)(int64_t)idx[l] * 4;
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		out[l] = (int)v[l];
}

/* Loads base[r[l] + Nr * c[l]] (a neighbour of the pixel, or of its coefficient) for the masked
 * lanes into f[]. */
static void srad_gather_at(struct gpu_warp *w, const struct srad_args *a, uint64_t base,
			   const int r[WARP_LANES], const int c[WARP_LANES], uint32_t mask,
			   float f[WARP_LANES])
{
	int64_t idx[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		idx[l] = r[l] + (int64_t)a->nr * c[l];
	srad_gather(w, base, idx, mask, f);
}

/* The prologue of srad and srad2: ei of every lane, its row and column, and the lanes below
 * Ne (0: the warp has nothing to do). */
static uint32_t srad_start_rowcol(struct gpu_warp *w, const struct srad_args *a,
				  int64_t ei[WARP_LANES], int row[WARP_LANES], int col[WARP_LANES])
{
	uint32_t mask = srad_lanes(w, a->ne, ei);

	for (unsigned l = 0; l < WARP_LANES; l++)
		srad_row_col(ei[l], a->nr, &row[l], &col[l]);
	gw_compute(w, SRAD_INDEX + SRAD_ROWCOL);
	return mask;
}

static void srad_scatter(struct gpu_warp *w, uint64_t base, const int64_t idx[WARP_LANES],
			 uint32_t mask, const float f[WARP_LANES])
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	srad_addrs(addr, base, idx);
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = wl_f2u(f[l]);
	gw_st32v(w, addr, mask, v);
}

static void srad_kernel(struct gpu_warp *w)
{
	const struct srad_args *a = gw_args(w);
	int64_t ei[WARP_LANES];
	int row[WARP_LANES], col[WARP_LANES], in[WARP_LANES], is[WARP_LANES];
	int jw[WARP_LANES], je[WARP_LANES];
	float jc[WARP_LANES], fn[WARP_LANES], fs[WARP_LANES], fw[WARP_LANES], fe[WARP_LANES];
	float dn[WARP_LANES], ds[WARP_LANES], dw[WARP_LANES], de[WARP_LANES], c[WARP_LANES];
	uint32_t mask = srad_start_rowcol(w, a, ei, row, col);

	if (!mask)
		return;
	srad_gather(w, a->image, ei, mask, jc);
	srad_gather_int(w, a->i_n, row, mask, in);
	srad_gather_int(w, a->i_s, row, mask, is);
	srad_gather_int(w, a->j_w, col, mask, jw);
	srad_gather_int(w, a->j_e, col, mask, je);
	srad_gather_at(w, a, a->image, in, col, mask, fn);
	srad_gather_at(w, a, a->image, is, col, mask, fs);
	srad_gather_at(w, a, a->image, row, jw, mask, fw);
	srad_gather_at(w, a, a->image, row, je, mask, fe);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		struct srad_point p = {0};

		if (mask >> l & 1)
			srad_point(jc[l], fn[l], fs[l], fw[l], fe[l], a->q0sqr, &p);
		dn[l] = p.dn;
		ds[l] = p.ds;
		dw[l] = p.dw;
		de[l] = p.de;
		c[l] = p.c;
	}
	gw_compute(w, SRAD_MATH);
	srad_scatter(w, a->d_n, ei, mask, dn);
	srad_scatter(w, a->d_s, ei, mask, ds);
	srad_scatter(w, a->d_w, ei, mask, dw);
	srad_scatter(w, a->d_e, ei, mask, de);
	srad_scatter(w, a->c, ei, mask, c);
}

static void srad2_kernel(struct gpu_warp *w)
{
	const struct srad_args *a = gw_args(w);
	const uint64_t deriv[4] = {a->d_n, a->d_s, a->d_w, a->d_e};
	int64_t ei[WARP_LANES];
	int row[WARP_LANES], col[WARP_LANES], is[WARP_LANES], je[WARP_LANES];
	float cn[WARP_LANES], cs[WARP_LANES], ce[WARP_LANES], img[WARP_LANES];
	float d[4][WARP_LANES], f[WARP_LANES];
	uint32_t mask = srad_start_rowcol(w, a, ei, row, col);

	if (!mask)
		return;
	srad_gather(w, a->c, ei, mask, cn); /* d_cN and d_cW: the same word, loaded once */
	srad_gather_int(w, a->i_s, row, mask, is);
	srad_gather_at(w, a, a->c, is, col, mask, cs);
	srad_gather_int(w, a->j_e, col, mask, je);
	srad_gather_at(w, a, a->c, row, je, mask, ce);
	for (int j = 0; j < 4; j++) /* d_dN, d_dS, d_dW, d_dE */
		srad_gather(w, deriv[j], ei, mask, d[j]);
	srad_gather(w, a->image, ei, mask, img);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		struct srad_point p = {.dn = d[0][l], .ds = d[1][l], .dw = d[2][l], .de = d[3][l]};

		f[l] = mask >> l & 1
			   ? srad_update(img[l], cn[l], cs[l], cn[l], ce[l], &p, a->lambda)
			   : 0;
	}
	gw_compute(w, SRAD2_MATH);
	srad_scatter(w, a->image, ei, mask, f);
}

static void srad_compress_kernel(struct gpu_warp *w)
{
	srad_map(w, srad_compress_value, SRAD_COMPRESS);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* One reduce launch on the host's copies of d_sums and d_sums2, CTA by CTA, as the kernel. */
static void srad_reduce_ref(float *sums, float *sums2, int no, int mul, int grid)
{
	float ps[SRAD_THREADS], ps2[SRAD_THREADS];
	int nf = SRAD_THREADS - (grid * SRAD_THREADS - no);

	for (int bx = 0; bx < grid; bx++) {
		bool full = nf == SRAD_THREADS || bx != grid - 1;
		int df = full ? SRAD_THREADS : srad_divisibility(nf);
		int64_t first = (int64_t)bx * SRAD_THREADS;

		for (int tx = 0; tx < SRAD_THREADS; tx++) {
			int64_t ei = first + tx;

			if (ei < no) {
				ps[tx] = sums[ei * mul];
				ps2[tx] = sums2[ei * mul];
			}
		}
		for (int i = 2; i <= df; i *= 2)
			for (int tx = i - 1; tx < df; tx += i) {
				ps[tx] = ps[tx] + ps[tx - i / 2];
				ps2[tx] = ps2[tx] + ps2[tx - i / 2];
			}
		if (df < 1)
			continue;
		if (!full)
			for (int64_t i = first + df; i < first + nf; i++) {
				ps[df - 1] = ps[df - 1] + sums[i];
				ps2[df - 1] = ps2[df - 1] + sums2[i];
			}
		sums[first * mul] = ps[df - 1];
		sums2[first * mul] = ps2[df - 1];
	}
}

/* srad and srad2 over the whole image (img updated in place: srad2 reads only its own pixel). */
static void srad_step_ref(float *img, struct srad_point *pt, const int *i_n, const int *i_s,
			  const int *j_w, const int *j_e, int nr, int64_t ne, float q0sqr)
{
	for (int64_t e = 0; e < ne; e++) {
		int row, col;

		srad_row_col(e, nr, &row, &col);
		srad_point(img[e], img[i_n[row] + (int64_t)nr * col],
			   img[i_s[row] + (int64_t)nr * col], img[row + (int64_t)nr * j_w[col]],
			   img[row + (int64_t)nr * j_e[col]], q0sqr, &pt[e]);
	}
	for (int64_t e = 0; e < ne; e++) {
		int row, col;
		float cs, ce;

		srad_row_col(e, nr, &row, &col);
		cs = pt[i_s[row] + (int64_t)nr * col].c;
		ce = pt[row + (int64_t)nr * j_e[col]].c;
		img[e] = srad_update(img[e], pt[e].c, cs, pt[e].c, ce, &pt[e], SRAD_LAMBDA);
	}
}

/* A grey level 0..255 of pixel (r, c): a bright elliptic ring (a heart wall) on a background
 * graded from top to bottom, times exponential speckle (mean 1). */
static float srad_pixel(uint64_t seed, int r, int c, int nr, int nc)
{
	double y = (r - 0.5 * nr) / (0.35 * nr), x = (c - 0.5 * nc) / (0.3 * nc);
	double rad = sqrt(x * x + y * y), ring = exp(-(rad - 1) * (rad - 1) / 0.02);
	double base = 40 + 40.0 * r / nr + 120 * ring;
	double speckle = -log(1 - wl_unit(seed, 0, (uint64_t)c * nr + r));
	double v = floor(base * speckle);

	return (float)(v > 255 ? 255 : v);
}

struct srad_host {
	float *image, *ref, *sums, *sums2;
	struct srad_point *pt;
	int *i_n, *i_s, *j_w, *j_e;
};

static void srad_free(struct srad_host *s)
{
	free(s->image);
	free(s->ref);
	free(s->sums);
	free(s->sums2);
	free(s->pt);
	free(s->i_n);
	free(s->i_s);
	free(s->j_w);
	free(s->j_e);
}

/* Compares the n floats at base with want[] bit for bit; returns the mismatches, the first in
 * *first and *got (buf: n floats of scratch). */
static uint64_t srad_compare(struct gpu_host *h, uint64_t base, const float *want, float *buf,
			     int64_t n, int64_t *first)
{
	uint64_t bad = 0;

	gh_read(h, base, buf, (size_t)n * 4);
	for (int64_t i = 0; i < n; i++)
		if (wl_f2u(buf[i]) != wl_f2u(want[i]) && bad++ == 0)
			*first = i;
	return bad;
}

/* Launches fn as kernel name (kern: the grid and shared memory), counting the launches. */
static int srad_launch(struct gpu_host *h, struct gpu_kernel *kern, const char *name,
		       void (*fn)(struct gpu_warp *w), unsigned *launches)
{
	int err;

	kern->name = name;
	kern->fn = fn;
	err = gh_launch(h, kern);
	if (!err)
		(*launches)++;
	return err;
}

int rodinia_srad_main(struct gpu_host *h)
{
	int nr = (int)wl_by_size(h, 62, 138, 502), nc = (int)wl_by_size(h, 50, 130, 458);
	int niter = gh_size(h) == GPU_SIZE_FULL ? 100 : (int)wl_by_size(h, 2, 4, 6);
	int64_t ne = (int64_t)nr * nc;
	int blocks = (int)((ne + SRAD_THREADS - 1) / SRAD_THREADS);
	uint64_t seed = gh_seed(h) ^ TAG_SRAD;
	size_t bytes = (size_t)ne * 4;
	struct srad_args a = {.ne = ne, .nr = nr, .nc = nc, .lambda = SRAD_LAMBDA};
	struct gpu_kernel kern = {.ctas = (unsigned)blocks,
				  .warps_per_cta = SRAD_WARPS,
				  .regs_per_thread = 20,
				  .args = &a};
	struct srad_host s = {0};
	unsigned launches = 0;
	float q0sqr = 0;
	int err = -CS_ENOMEM;

	s.image = malloc(bytes);
	s.ref = malloc(bytes);
	s.sums = malloc(bytes);
	s.sums2 = malloc(bytes);
	s.pt = malloc((size_t)ne * sizeof(*s.pt));
	s.i_n = malloc((size_t)nr * sizeof(int));
	s.i_s = malloc((size_t)nr * sizeof(int));
	s.j_w = malloc((size_t)nc * sizeof(int));
	s.j_e = malloc((size_t)nc * sizeof(int));
	if (!s.image || !s.ref || !s.sums || !s.sums2 || !s.pt || !s.i_n || !s.i_s || !s.j_w ||
	    !s.j_e)
		goto out;
	for (int c = 0; c < nc; c++)
		for (int r = 0; r < nr; r++)
			s.image[(int64_t)c * nr + r] = srad_pixel(seed, r, c, nr, nc);
	/* neighbour indices, clamped at the edges (main.cu) */
	for (int i = 0; i < nr; i++) {
		s.i_n[i] = i - 1;
		s.i_s[i] = i + 1;
	}
	for (int j = 0; j < nc; j++) {
		s.j_w[j] = j - 1;
		s.j_e[j] = j + 1;
	}
	s.i_n[0] = 0;
	s.i_s[nr - 1] = nr - 1;
	s.j_w[0] = 0;
	s.j_e[nc - 1] = nc - 1;

	a.image = wl_upload(h, s.image, bytes);
	a.i_n = wl_upload(h, s.i_n, (size_t)nr * sizeof(int));
	a.i_s = wl_upload(h, s.i_s, (size_t)nr * sizeof(int));
	a.j_e = wl_upload(h, s.j_e, (size_t)nc * sizeof(int));
	a.j_w = wl_upload(h, s.j_w, (size_t)nc * sizeof(int));
	a.sums = wl_alloc_zero(h, bytes);
	a.sums2 = wl_alloc_zero(h, bytes);
	a.d_n = wl_alloc_zero(h, bytes);
	a.d_s = wl_alloc_zero(h, bytes);
	a.d_w = wl_alloc_zero(h, bytes);
	a.d_e = wl_alloc_zero(h, bytes);
	a.c = wl_alloc_zero(h, bytes);

	err = srad_launch(h, &kern, "extract", srad_extract_kernel, &launches);
	if (err)
		goto out;
	for (int64_t e = 0; e < ne; e++)
		s.ref[e] = srad_extract_value(s.image[e]);

	for (int iter = 0; iter < niter; iter++) {
		int grid = blocks;
		float total, total2, mean, mean2, var;

		kern.ctas = (unsigned)blocks;
		kern.smem_bytes = 0;
		err = srad_launch(h, &kern, "prepare", srad_prepare_kernel, &launches);
		if (err)
			goto out;
		for (int64_t e = 0; e < ne; e++) {
			s.sums[e] = s.ref[e];
			s.sums2[e] = s.ref[e] * s.ref[e];
		}
		/* reduce, level after level, until one CTA has summed everything */
		a.no = (int)ne;
		a.mul = 1;
		kern.smem_bytes = sizeof(struct srad_smem);
		while (grid != 0) {
			kern.ctas = (unsigned)grid;
			err = srad_launch(h, &kern, "reduce", srad_reduce_kernel, &launches);
			if (err)
				goto out;
			srad_reduce_ref(s.sums, s.sums2, a.no, a.mul, grid);
			a.no = grid;
			if (grid == 1) {
				grid = 0;
			} else {
				a.mul *= SRAD_THREADS;
				grid = (grid + SRAD_THREADS - 1) / SRAD_THREADS;
			}
		}
		/* the statistics of the ROI (the whole image) from the device's totals */
		total = wl_u2f(gh_read32(h, a.sums));
		total2 = wl_u2f(gh_read32(h, a.sums2));
		if (wl_f2u(total) != wl_f2u(s.sums[0]) || wl_f2u(total2) != wl_f2u(s.sums2[0])) {
			err = gh_fail(h, "srad: iteration %d: sums = %.9g, %.9g, want %.9g, %.9g",
				      iter, (double)total, (double)total2, (double)s.sums[0],
				      (double)s.sums2[0]);
			goto out;
		}
		mean = total / (float)ne;
		mean2 = mean * mean;
		var = (total2 / (float)ne) - mean2;
		q0sqr = var / mean2;
		a.q0sqr = q0sqr;

		kern.smem_bytes = 0;
		kern.ctas = (unsigned)blocks;
		err = srad_launch(h, &kern, "srad", srad_kernel, &launches);
		if (err)
			goto out;
		err = srad_launch(h, &kern, "srad2", srad2_kernel, &launches);
		if (err)
			goto out;
		srad_step_ref(s.ref, s.pt, s.i_n, s.i_s, s.j_w, s.j_e, nr, ne, q0sqr);
	}

	err = srad_launch(h, &kern, "compress", srad_compress_kernel, &launches);
	if (err)
		goto out;
	gh_corrupt(h, a.image + (uint64_t)(ne / 2) * 4, 4);
	for (int64_t e = 0; e < ne; e++)
		s.ref[e] = srad_compress_value(s.ref[e]);
	{
		int64_t first = 0;
		uint64_t bad = srad_compare(h, a.image, s.ref, s.image, ne, &first);

		if (bad) {
			err = gh_fail(h,
				      "srad: pixel (%" PRId64 ", %" PRId64 ") = %.9g, want %.9g "
				      "after %d iterations (%" PRIu64 " of %" PRId64
				      " pixels differ)",
				      first % nr, first / nr, (double)s.image[first],
				      (double)s.ref[first], niter, bad, ne);
			goto out;
		}
	}
	gh_note(h,
		"srad: %dx%d image, %d iterations (last q0sqr %.6g), %u launches of %d CTAs x "
		"512 threads, every pixel and every iteration's sums bit-exact",
		nr, nc, niter, (double)q0sqr, launches, blocks);
	err = 0;
out:
	srad_free(&s);
	return err;
}
