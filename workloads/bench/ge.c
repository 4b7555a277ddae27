/*
 * workloads/bench/ge.c - Gaussian elimination (Rodinia `gaussian`, Che et al., IISWC 2009).
 *
 * Solves A x = b for a dense n x n system. For each pivot t = 0 .. n-2 the host launches
 *   Fan1: m[i][t] = a[i][t] / a[t][t] for the rows i > t (1D grid of 512-thread CTAs), and
 *   Fan2: a[i][j] -= m[i][t] * a[t][j] for i > t, j >= t, and b[i] -= m[i][t] * b[t]
 *         (2D grid of 4 x 4-thread CTAs over the whole matrix: Rodinia 3.1's BLOCK_SIZE_XY is 4),
 * then solves the upper-triangular system on the host (Rodinia's BackSub). Rodinia's Fan2 maps
 * threadIdx.x to the row and threadIdx.y to the column; a 4 x 4 block is one warp with 16 active
 * lanes (tx = lane % 4, ty = lane / 4), touching 4 rows and 4 columns: its accesses to a and m
 * are uncoalesced (4 lines per warp instruction), and an SM holds at most `core.ctas` of these
 * half-empty warps, as on the real GPU.
 *
 * No coherence needed: within a kernel every thread reads only data written by earlier kernels
 * (m by Fan1, a and b by the previous Fan2) and writes elements no other thread reads.
 *
 * Input: a diagonally dominant random matrix and a random solution x from the seed; b = A x
 * (in double, rounded to float). Check: the host repeats the elimination with the same float
 * operations in the same order (the same functions), so a, b and m must match bit for bit;
 * the back-substituted solution must match the known x within a tolerance (float rounding).
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_GE	     0x6761757373000000ull
#define FAN1_THREADS 512 /* Rodinia MAXBLOCKSIZE */
#define FAN2_BLOCK   4	 /* Rodinia 3.1 BLOCK_SIZE_XY (gaussian.cu's default) */
#define FAN2_THREADS (FAN2_BLOCK * FAN2_BLOCK)
#define FAN2_WARPS   ((FAN2_THREADS + WARP_LANES - 1) / WARP_LANES)

/*
 * Issue slots per warp (SASS-like count of the CUDA kernels):
 * Fan1 index: 2 S2R, IMAD, bound ISETP + BRA, 3 addresses (IMAD, IADD, SHL ~ 6): 11;
 * Fan1 body: IEEE float division (rcp, 2 Newton FFMAs, fix-up test and branch): 8;
 * Fan2 index: 4 S2R, 2 IMAD, 2 bound tests (ISETP, ISETP, BRA), 3 addresses (~8 IMAD/IADD/SHL): 17;
 * Fan2 body: FMUL, FADD (a -= m * p), yidx == 0 test and branch: 4;
 * Fan2 b update: 3 addresses (~5), FMUL, FADD: 7;
 * an idle warp (every thread out of range): index and bound test, exit: 7.
 */
#define FAN1_INDEX 11
#define FAN1_BODY  8
#define FAN2_INDEX 17
#define FAN2_BODY  4
#define FAN2_BVEC  7
#define IDLE_WARP  7

/* |x - known x| bound: float elimination and back-substitution of a diagonally dominant
 * system (|a_ii| > n, |a_ij| < 1) keep the error near n * 2^-24; measured below 1e-6. */
#define GE_X_TOL 1e-4

struct ge_args {
	uint64_t a, b, m; /* float a[n][n], b[n], m[n][n] */
	unsigned n, t;
};

/* The float arithmetic of both kernels, shared with the host reference (noinline: one copy of
 * the machine code, so the kernels and the reference round identically on any compiler). */
static __attribute__((noinline)) float ge_mult(float num, float piv)
{
	return num / piv;
}

static __attribute__((noinline)) float ge_update(float x, float m, float p)
{
	return x - m * p;
}

/* ---- kernels -------------------------------------------------------------------------------- */

static void fan1_kernel(struct gpu_warp *w)
{
	const struct ge_args *a = gw_args(w);
	uint64_t first = gw_gwid(w) * WARP_LANES; /* blockDim.x * blockIdx.x + threadIdx.x */
	uint64_t rows = a->n - 1 - a->t;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};
	uint32_t mask = 0;
	float piv;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		uint64_t i = first + l + a->t + 1;

		addr[l] = a->a + 4 * ((uint64_t)a->n * i + a->t);
		if (first + l < rows)
			mask |= 1u << l;
	}
	if (!mask) {
		gw_compute(w, IDLE_WARP);
		return;
	}
	gw_compute(w, FAN1_INDEX);
	piv = wl_u2f(gw_ld32(w, a->a + 4 * ((uint64_t)a->n * a->t + a->t)));
	gw_ld32v(w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		v[l] = wl_f2u(ge_mult(wl_u2f(v[l]), piv));
		addr[l] += a->m - a->a;
	}
	gw_compute(w, FAN1_BODY);
	gw_st32v(w, addr, mask, v);
}

static void fan2_kernel(struct gpu_warp *w)
{
	const struct ge_args *a = gw_args(w);
	unsigned grid = (a->n + FAN2_BLOCK - 1) / FAN2_BLOCK;
	unsigned bx = gw_cta(w) % grid, by = gw_cta(w) / grid;
	uint64_t n = a->n, t = a->t;
	uint64_t am[WARP_LANES], ap[WARP_LANES], aa[WARP_LANES];
	uint32_t m[WARP_LANES] = {0}, p[WARP_LANES] = {0}, x[WARP_LANES] = {0};
	uint32_t mask = 0, bmask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned tid = gw_warp(w) * WARP_LANES + l; /* thread index within the block */
		uint64_t xidx = bx * FAN2_BLOCK + tid % FAN2_BLOCK;
		uint64_t yidx = by * FAN2_BLOCK + tid / FAN2_BLOCK;
		uint64_t row = xidx + 1 + t, col = yidx + t;

		am[l] = a->m + 4 * (n * row + t);
		ap[l] = a->a + 4 * (n * t + col);
		aa[l] = a->a + 4 * (n * row + col);
		if (tid < FAN2_THREADS && xidx < n - 1 - t && yidx < n - t) {
			mask |= 1u << l;
			if (yidx == 0)
				bmask |= 1u << l;
		}
	}
	if (!mask) {
		gw_compute(w, IDLE_WARP);
		return;
	}
	gw_compute(w, FAN2_INDEX);
	gw_ld32v(w, am, mask, m);
	gw_ld32v(w, ap, mask, p);
	gw_ld32v(w, aa, mask, x);
	for (unsigned l = 0; l < WARP_LANES; l++)
		x[l] = wl_f2u(ge_update(wl_u2f(x[l]), wl_u2f(m[l]), wl_u2f(p[l])));
	gw_compute(w, FAN2_BODY);
	gw_st32v(w, aa, mask, x);
	if (!bmask)
		return;
	/* b[xidx + 1 + t] -= m[n * (xidx + 1 + t) + yidx + t] * b[t]: m is read again (the store
	 * to a may alias it for the compiler). */
	for (unsigned l = 0; l < WARP_LANES; l++)
		aa[l] = a->b +
			4 * (t + 1 + bx * FAN2_BLOCK + (gw_warp(w) * WARP_LANES + l) % FAN2_BLOCK);
	gw_compute(w, FAN2_BVEC);
	gw_ld32v(w, am, bmask, m);
	p[0] = gw_ld32(w, a->b + 4 * t);
	gw_ld32v(w, aa, bmask, x);
	for (unsigned l = 0; l < WARP_LANES; l++)
		x[l] = wl_f2u(ge_update(wl_u2f(x[l]), wl_u2f(m[l]), wl_u2f(p[0])));
	gw_st32v(w, aa, bmask, x);
}

/* ---- host ----------------------------------------------------------------------------------- */

struct ge_host {
	unsigned n;
	float *a, *b, *m, *x; /* the reference: a, b, m after elimination; the known solution */
	float *ga, *gb, *gm;  /* read back from the device */
};

static void ge_free(struct ge_host *g)
{
	free(g->a);
	free(g->b);
	free(g->m);
	free(g->x);
	free(g->ga);
	free(g->gb);
	free(g->gm);
}

/* Diagonally dominant A (off-diagonal in [-1, 1), diagonal n + [1, 2)), x in [-1, 1), b = A x. */
static void ge_input(struct ge_host *g, uint64_t seed)
{
	unsigned n = g->n;

	for (unsigned i = 0; i < n; i++)
		g->x[i] = (float)(2.0 * wl_unit(seed, 1, i) - 1.0);
	for (unsigned i = 0; i < n; i++) {
		double s = 0;

		for (unsigned j = 0; j < n; j++) {
			float v = (float)(2.0 * wl_unit(seed, 0, (uint64_t)i * n + j) - 1.0);

			if (i == j)
				v = (float)(n + 1.0 + wl_unit(seed, 2, i));
			g->a[(size_t)i * n + j] = v;
			s += (double)v * g->x[j];
		}
		g->b[i] = (float)s;
	}
}

/* The elimination as the kernels do it, element by element in pivot order. */
static void ge_reference(struct ge_host *g)
{
	unsigned n = g->n;
	float *a = g->a;

	for (unsigned t = 0; t + 1 < n; t++) {
		for (unsigned i = t + 1; i < n; i++)
			g->m[(size_t)i * n + t] =
			    ge_mult(a[(size_t)i * n + t], a[(size_t)t * n + t]);
		for (unsigned i = t + 1; i < n; i++) {
			float mi = g->m[(size_t)i * n + t];

			for (unsigned j = t; j < n; j++)
				a[(size_t)i * n + j] =
				    ge_update(a[(size_t)i * n + j], mi, a[(size_t)t * n + j]);
			g->b[i] = ge_update(g->b[i], mi, g->b[t]);
		}
	}
}

static int ge_compare(struct gpu_host *h, const char *what, const float *got, const float *want,
		      size_t count, unsigned n)
{
	for (size_t i = 0; i < count; i++)
		if (wl_f2u(got[i]) != wl_f2u(want[i]))
			return gh_fail(h,
				       "ge: %s[%zu][%zu] = %.9g (0x%08" PRIx32
				       "), want %.9g (0x%08" PRIx32
				       ") from the host's identical elimination",
				       what, i / n, i % n, (double)got[i], wl_f2u(got[i]),
				       (double)want[i], wl_f2u(want[i]));
	return 0;
}

int bench_ge_main(struct gpu_host *h)
{
	struct ge_host g = {.n = (unsigned)wl_by_size(h, 24, 96, 160)};
	unsigned n = g.n;
	size_t nn = (size_t)n * n;
	struct ge_args a = {.n = n};
	struct gpu_kernel fan1 = {.name = "Fan1",
				  .ctas = (n + FAN1_THREADS - 1) / FAN1_THREADS,
				  .warps_per_cta = FAN1_THREADS / WARP_LANES,
				  .fn = fan1_kernel,
				  .args = &a};
	unsigned grid2 = (n + FAN2_BLOCK - 1) / FAN2_BLOCK;
	struct gpu_kernel fan2 = {.name = "Fan2",
				  .ctas = grid2 * grid2,
				  .warps_per_cta = FAN2_WARPS,
				  .fn = fan2_kernel,
				  .args = &a};
	double maxerr = 0;
	float *xs;
	int err = -CS_ENOMEM;

	g.a = malloc(nn * sizeof(float));
	g.m = calloc(nn, sizeof(float));
	g.ga = malloc(nn * sizeof(float));
	g.gm = malloc(nn * sizeof(float));
	g.b = malloc(n * sizeof(float));
	g.x = malloc(n * sizeof(float));
	g.gb = malloc(n * sizeof(float));
	if (!g.a || !g.m || !g.ga || !g.gm || !g.b || !g.x || !g.gb)
		goto out;
	ge_input(&g, gh_seed(h) ^ TAG_GE);
	a.a = wl_upload(h, g.a, nn * sizeof(float));
	a.b = wl_upload(h, g.b, n * sizeof(float));
	a.m = wl_alloc_zero(h, nn * sizeof(float));
	for (unsigned t = 0; t + 1 < n; t++) {
		a.t = t;
		err = gh_launch(h, &fan1);
		if (!err)
			err = gh_launch(h, &fan2);
		if (err)
			goto out;
	}
	gh_read(h, a.a, g.ga, nn * sizeof(float));
	gh_read(h, a.b, g.gb, n * sizeof(float));
	gh_read(h, a.m, g.gm, nn * sizeof(float));
	ge_reference(&g);
	err = ge_compare(h, "a", g.ga, g.a, nn, n);
	if (!err)
		err = ge_compare(h, "m", g.gm, g.m, nn, n);
	if (!err)
		err = ge_compare(h, "b", g.gb, g.b, n, n);
	if (err)
		goto out;
	/* Rodinia's BackSub on the device's triangular system (into g.b: the reference b is no
	 * longer needed). */
	xs = g.b;
	for (unsigned i = 0; i < n; i++) {
		unsigned r = n - i - 1;

		xs[r] = g.gb[r];
		for (unsigned j = 0; j < i; j++)
			xs[r] -= g.ga[(size_t)r * n + (n - j - 1)] * xs[n - j - 1];
		xs[r] = xs[r] / g.ga[(size_t)r * n + r];
	}
	for (unsigned i = 0; i < n; i++) {
		double e = fabs((double)xs[i] - g.x[i]);

		if (!(e <= GE_X_TOL)) {
			err = gh_fail(
			    h,
			    "ge: solution x[%u] = %.9g, want %.9g (the x b was built from): "
			    "error %.3g above %g",
			    i, (double)xs[i], (double)g.x[i], e, GE_X_TOL);
			goto out;
		}
		if (e > maxerr)
			maxerr = e;
	}
	gh_note(
	    h,
	    "ge: %ux%u, %u pivots x (Fan1 %u x %u warps, Fan2 %u x %u warps); a, m, b bit-exact, "
	    "x within %.2g",
	    n, n, n - 1, fan1.ctas, fan1.warps_per_cta, fan2.ctas, fan2.warps_per_cta, maxerr);
	err = 0;
out:
	ge_free(&g);
	return err;
}
