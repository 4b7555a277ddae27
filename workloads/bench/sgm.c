/*
 * workloads/bench/sgm.c - SGEMM (Parboil `sgemm`, Stratton et al. 2012), register-tiled.
 *
 * C = alpha * A * B^T + beta * C with A (m x k), B (n x k) and C (m x n) column-major, as
 * Parboil's `mysgemmNT` (the "NT" call of its main: A not transposed, B transposed). The
 * kernel is Parboil's register-tiled one: CTAs of TILE_N x TILE_TB_HEIGHT = 16 x 8 threads
 * (4 warps); CTA (bx, by) computes the TILE_M x TILE_N = 128 x 16 tile of C at rows
 * bx * 128, columns by * 16; thread `mid` keeps the 16 C values of row bx * 128 + mid in
 * registers. Per step of TILE_TB_HEIGHT = 8 along k the CTA stages an 8 x 16 tile of B in
 * shared memory (one coalesced load per thread), then each thread streams 8 elements of its
 * row of A (a warp reads 32 consecutive floats: one 128 B line) and does 16 FMAs per element
 * against the B tile. Finally each thread reads, scales and writes its 16 C values (coalesced).
 *
 * No sharing between CTAs (A and B are read-only, each C element has one writer): set 2.
 * Check: every C element bit for bit against a host SGEMM that accumulates in the same order
 * (k ascending, one multiply then one add per step, rounded to float at each step).
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TILE_N	       16
#define TILE_TB_HEIGHT 8
#define TILE_M	       (TILE_N * TILE_TB_HEIGHT)
#define SGM_WARPS      (TILE_M / WARP_LANES) /* 4 warps per CTA */

#define TAG_SGM_A 0x73676d4100000000ull
#define TAG_SGM_B 0x73676d4200000000ull
#define TAG_SGM_C 0x73676d4300000000ull

/* Instruction counts (warp issue slots, SASS-like) of the kernel's arithmetic. */
#define SGM_INST_PROLOGUE 20 /* ids, m, n, 16 accumulator clears, pointers */
#define SGM_INST_J	  18 /* 16 FFMA + A address increment + unrolled-loop bookkeeping */
#define SGM_INST_STEP	  6  /* B address, k loop counter, compare, branch, smem address */
#define SGM_INST_C	  4  /* C address, FMUL beta, FFMA alpha, loop bookkeeping */

struct sgm_args {
	uint64_t a, b, c; /* float arrays, column-major: A m x k, B n x k, C m x n */
	uint32_t m, n, k;
	float alpha, beta;
};

static float sgm_input(uint64_t seed, uint64_t tag, uint64_t i)
{
	return (float)(2.0 * wl_unit(seed ^ tag, 0, i) - 1.0);
}

/* One accumulation step; the kernel and the host reference both use it (no contraction:
 * C11 mode keeps the product and the sum separately rounded). */
static inline float sgm_mad(float acc, float a, float b)
{
	float p = a * b;

	return acc + p;
}

static void sgm_kernel(struct gpu_warp *w)
{
	const struct sgm_args *g = gw_args(w);
	float(*b_s)[TILE_N] = gw_smem(w); /* b_s[TILE_TB_HEIGHT][TILE_N] */
	unsigned bx = gw_cta(w) % (g->m / TILE_M), by = gw_cta(w) / (g->m / TILE_M);
	unsigned wi = gw_warp(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];
	float c[WARP_LANES][TILE_N] = {{0}};

	gw_compute(w, SGM_INST_PROLOGUE);
	for (uint32_t i = 0; i < g->k; i += TILE_TB_HEIGHT) {
		/* b_s[ty][tx] = B[n + (i + ty) * ldb]: lanes 0-15 one row, 16-31 the next */
		for (unsigned l = 0; l < WARP_LANES; l++) {
			unsigned tid = wi * WARP_LANES + l, tx = tid % TILE_N, ty = tid / TILE_N;

			addr[l] =
			    g->b + 4 * ((uint64_t)by * TILE_N + tx + (uint64_t)(i + ty) * g->n);
		}
		gw_ld32v(w, addr, LANES_ALL, v);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			unsigned tid = wi * WARP_LANES + l;

			b_s[tid / TILE_N][tid % TILE_N] = wl_u2f(v[l]);
		}
		gw_smem_access(w);
		gw_compute(w, SGM_INST_STEP);
		gw_barrier(w);
		for (unsigned j = 0; j < TILE_TB_HEIGHT; j++) {
			/* a = A[m + (i + j) * lda]: 32 consecutive floats */
			wl_lane_addrs(addr, g->a + 4 * ((uint64_t)(i + j) * g->m),
				      (uint64_t)bx * TILE_M + wi * WARP_LANES, UINT64_MAX, 4);
			gw_ld32v(w, addr, LANES_ALL, v);
			/* b_s[j][0..15]: four LDS.128, broadcast to the warp */
			for (unsigned q = 0; q < TILE_N / 4; q++)
				gw_smem_access(w);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				float a = wl_u2f(v[l]);

				for (unsigned kk = 0; kk < TILE_N; kk++)
					c[l][kk] = sgm_mad(c[l][kk], a, b_s[j][kk]);
			}
			gw_compute(w, SGM_INST_J);
		}
		gw_barrier(w);
	}
	/* C[t + i * ldc] = C[t + i * ldc] * beta + alpha * c[i], t = ldc * by * 16 + m */
	for (unsigned i = 0; i < TILE_N; i++) {
		uint64_t col = (uint64_t)by * TILE_N + i;

		wl_lane_addrs(addr, g->c + 4 * col * g->m, (uint64_t)bx * TILE_M + wi * WARP_LANES,
			      UINT64_MAX, 4);
		gw_ld32v(w, addr, LANES_ALL, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] = wl_f2u(wl_u2f(v[l]) * g->beta + g->alpha * c[l][i]);
		gw_compute(w, SGM_INST_C);
		gw_st32v(w, addr, LANES_ALL, v);
	}
}

int bench_sgm_main(struct gpu_host *h)
{
	struct sgm_args g = {
	    .m = (uint32_t)wl_by_size(h, 256, 512, 1024),
	    .n = (uint32_t)wl_by_size(h, 64, 256, 1056),
	    .k = (uint32_t)wl_by_size(h, 64, 256, 992),
	    .alpha = 1.0f,
	    .beta = 0.5f,
	};
	struct gpu_kernel kern = {
	    .name = "sgemm_nt",
	    .warps_per_cta = SGM_WARPS,
	    .regs_per_thread = 32,
	    .smem_bytes = TILE_TB_HEIGHT * TILE_N * 4,
	    .fn = sgm_kernel,
	    .args = &g,
	};
	uint64_t seed = gh_seed(h);
	size_t na = (size_t)g.m * g.k, nb = (size_t)g.n * g.k, nc = (size_t)g.m * g.n;
	float *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b));
	float *c = malloc(nc * sizeof(*c)), *got = malloc(nc * sizeof(*got));
	uint64_t bad = 0, first = 0, checked = 0;
	struct wl_sample sample;
	float want_first = 0.0f;
	int err = -CS_ENOMEM;

	if (!a || !b || !c || !got)
		goto out;
	for (size_t i = 0; i < na; i++)
		a[i] = sgm_input(seed, TAG_SGM_A, i);
	for (size_t i = 0; i < nb; i++)
		b[i] = sgm_input(seed, TAG_SGM_B, i);
	for (size_t i = 0; i < nc; i++)
		c[i] = sgm_input(seed, TAG_SGM_C, i);
	g.a = wl_upload(h, a, na * 4);
	g.b = wl_upload(h, b, nb * 4);
	g.c = wl_upload(h, c, nc * 4);
	kern.ctas = (g.m / TILE_M) * (g.n / TILE_N);

	err = gh_launch(h, &kern);
	if (err)
		goto out;
	gh_read(h, g.c, got, nc * 4);

	/* host reference: the same accumulation order (k ascending) per element, for a seeded
	 * sample of the elements (every one under workload.check=full) */
	wl_sample_init(h, &sample, nc, TAG_SGM_C);
	for (uint32_t col = 0; col < g.n; col++) {
		for (uint32_t row = 0; row < g.m; row++) {
			float acc = 0.0f, want;
			size_t ci = (size_t)col * g.m + row;

			if (!wl_sample_take(&sample))
				continue;
			checked++;
			for (uint32_t kk = 0; kk < g.k; kk++)
				acc = sgm_mad(acc, a[(size_t)kk * g.m + row],
					      b[(size_t)kk * g.n + col]);
			want = c[ci] * g.beta + g.alpha * acc;
			if (wl_f2u(got[ci]) != wl_f2u(want) && bad++ == 0) {
				first = ci;
				want_first = want;
			}
		}
	}
	if (bad) {
		err = gh_fail(h,
			      "sgm: C[%" PRIu64 "] (row %" PRIu64 ", col %" PRIu64
			      ") = %.9g, want %.9g; %" PRIu64 " of %" PRIu64
			      " checked elements wrong",
			      first, first % g.m, first / g.m, (double)got[first],
			      (double)want_first, bad, checked);
		goto out;
	}
	gh_note(
	    h,
	    "sgm: C(%" PRIu32 "x%" PRIu32 ") = %.1f*A(%" PRIu32 "x%" PRIu32 ")*B^T + %.1f*C, %u "
	    "CTAs of %u warps (tiles 128x16, k step 8), %" PRIu64 " of %zu elements checked, "
	    "each bit-exact",
	    g.m, g.n, (double)g.alpha, g.m, g.k, (double)g.beta, kern.ctas, SGM_WARPS, checked, nc);
	err = 0;
out:
	free(a);
	free(b);
	free(c);
	free(got);
	return err;
}
