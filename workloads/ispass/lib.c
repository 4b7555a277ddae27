/*
 * workloads/ispass/lib.c - LIBOR market model Monte Carlo (ISPASS-2009 `LIB`, Bakhoda et al.
 * 2009; Mike Giles' CUDA code, libor.cu).
 *
 * Each thread simulates one path of NN forward LIBOR rates over NMAT time steps (path_calc:
 * L[i] *= exp(con1 v + lam (sqrt(delta) z[n] - con1 / 2)), the drift v summed over the rates
 * above i) and values a portfolio of NOPT swaptions on it (portfolio: B and S, the discount and
 * annuity factors, then the payoffs). As libor.cu's main(), two kernels run one after the
 * other on a grid of GRID_SIZE CTAs of BLOCK_SIZE = 64 threads, one path per thread:
 * Pathcalc_Portfolio_KernelGPU2 (value only: arrays L, z and portfolio's B, S) and
 * Pathcalc_Portfolio_KernelGPU (value and its sensitivities by hand-coded reverse mode:
 * path_calc_b1 keeps every step's rates in L2[NN * (NMAT + 1)], portfolio_b computes v and
 * L_b = dv/dL in place of L (L_b aliases L, as in the original) with B, S, B_b, S_b, then
 * path_calc_b2 walks the steps backwards). The per-thread arrays are indexed by loop counters
 * that depend on N and Nmat, which are __constant__ variables, so CUDA keeps them in local
 * memory: 14 400 bytes per thread in KernelGPU at NN = 80, NMAT = 40 (L2 alone 13 120), 960 in
 * KernelGPU2. They are gpu_kernel.local_bytes here and every access is gw_ld_localv /
 * gw_st_localv (CUDA's interleaved layout: a warp reading L[i] touches 32 consecutive words).
 * N, Nmat, Nopt, delta, maturities, swaprates and lambda are __constant__ memory: uniform
 * gw_ld_const32 loads (N, Nmat, Nopt and delta once per thread, lambda once per inner
 * iteration, maturities and swaprates in the payoff loop). Results: d_v[path] (both kernels)
 * and d_Lb[path] = L_b[NN - 1] (KernelGPU), one coalesced store per warp each.
 *
 * No sharing: every thread works in its own local memory and writes its own outputs.
 *
 * Input: the original sets z[i] = 0.3 in every thread ("for real application, z should be
 * randomly generated"); here the host generates standard normals from the seed (Box-Muller on
 * wl_unit) into d_z[i * NPATH + path] and each thread copies its path's column into its local
 * z[] (one coalesced global load per i). Rates, lambda = 0.2, delta = 0.25, maturities and
 * swap rates as libor.cu. Check: the host runs both kernels' computations path by path
 * through the same noinline step functions (the kernels' float and double expressions in their
 * order, __fdividef as a float division and __expf as expf), so every path's v (both kernels)
 * and Lb must be bit-exact.
 */
#include "workloads/ispass/ispass.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_LIB	       0x6c69626f72000000ull
#define LIB_BLOCK_SIZE 64 /* libor.cu: BLOCK_SIZE */
#define LIB_NOPT       15
#define LIB_MAT_ORIG   40 /* libor.cu's NMAT, the scale of its maturities */

/* libor.cu's portfolio. */
static const int lib_maturities[LIB_NOPT] = {4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40};
static const float lib_swaprates[LIB_NOPT] = {.045f, .05f,  .055f, .045f, .05f,	 .055f, .045f, .05f,
					      .055f, .045f, .05f,  .055f, .045f, .05f,	.055f};

/*
 * Issue slots per warp (SASS-like counts; a double-precision instruction costs 8 as on the
 * GTX 480, a double division ~80: MUFU.RCP64H and ~9 DFMA of Newton-Raphson). The expressions
 * are libor.cu's with their C types: 1.0 + delta * L and 0.5 * con1 are double, __fdividef is
 * MUFU.RCP + FMUL (~5), __expf FMUL + MUFU.EX2 (~5), sqrtf ~8.
 * path step (path_calc, path_calc_b1 inner loop): 2 FMUL, 6 F2F, FMUL, __fdividef, FADD, FMUL,
 *   __expf, FMUL, loop and addresses (5) = 27, plus 5 DADD/DMUL: 67;
 * reverse step (path_calc_b2): 2 FFMA, 2 F2F + DADD, 2 __fdividef, 5 FMUL/FADD, loop and
 *   addresses (6): 34 + 8 = 42;
 * per time step n: sqrtf(delta) * z[n], loop: 13;
 * discount/annuity (portfolio_b's first loop): FMUL, 2 F2F, DADD, __fdividef, FFMA, loop: 23;
 *   portfolio's uses a double division instead: 95;
 * payoff test: FFMA, 2 F2F, DADD, FSETP, BRA, maturity index and addresses (5): 18; payoff
 *   taken: 7;
 * reverse payoff step: FFMA, FMUL x 2, 2 x (2 F2F + DADD + __fdividef), FADD x 2, loop: 45;
 * discount factor b / (1.0 + delta * L) and -v * delta / (1.0 + delta * L): 2 F2F, DADD,
 *   double division: 95;
 * copies and scalings (L2 = L, L_b = b * L_b, the initialisation): 4.
 */
#define LIB_STEP     67
#define LIB_REVERSE  42
#define LIB_NSTEP    13
#define LIB_ANNUITY  23
#define LIB_ANNUITY2 95
#define LIB_PAYOFF   18
#define LIB_PAYOFF_T 7
#define LIB_REV_PAY  45
#define LIB_DISC     95
#define LIB_COPY     4
#define LIB_PROLOGUE 20 /* tid, threadN, 4 LDC of N, Nmat, Nopt, delta, loop set-up */

/* The __constant__ block, word offsets in libor.cu's declaration order. */
enum {
	LC_N = 0,
	LC_NMAT,
	LC_NOPT,
	LC_MAT,
	LC_DELTA = LC_MAT + LIB_NOPT,
	LC_RATES,
	LC_LAMBDA = LC_RATES + LIB_NOPT
};

struct lib_args {
	uint64_t cnst;	   /* the __constant__ block */
	uint64_t z;	   /* float [nn][npath] */
	uint64_t v, lb;	   /* float [npath] */
	unsigned nn, nmat; /* the compile-time NN and NMAT (array sizes) */
	unsigned npath;	   /* NPATH */
	bool greeks;	   /* KernelGPU (else KernelGPU2) */
};

/* Host copy of the constants (what the reference reads). */
struct lib_consts {
	int n, nmat, nopt, maturities[LIB_NOPT];
	float delta, swaprates[LIB_NOPT], *lambda;
};

/* ---- the arithmetic, shared by the kernels and the reference (noinline: one machine code) ---- */

/* sqez = sqrt(delta) * z[n] (sqrt of a float is CUDA's float overload) */
static __attribute__((noinline)) float lib_sqez(float delta, float z)
{
	return sqrtf(delta) * z;
}

/* path_calc's inner step: updates v, returns the new L[i]. */
static __attribute__((noinline)) float lib_step(float lam, float delta, float sqez, float *v,
						float l)
{
	float con1 = delta * lam, vrat;

	*v += (con1 * l) / (float)(1.0 + delta * l);
	vrat = expf((float)(con1 * *v + lam * (sqez - 0.5 * con1)));
	return l * vrat;
}

/* path_calc_b2's step: updates v1, returns the new L_b[i]. */
static __attribute__((noinline)) float lib_reverse(float lam, float delta, float l2_next,
						   float l2_cur, float *v1, float lb)
{
	float faci;

	*v1 += lam * l2_next * lb;
	faci = delta / (float)(1.0 + delta * l2_cur);
	return lb * (l2_next / l2_cur) + *v1 * lam * faci * faci;
}

/* portfolio_b's discount and annuity: b = __fdividef(b, 1.0 + delta L[n]); s += delta b */
static __attribute__((noinline)) void lib_annuity_b(float delta, float l, float *b, float *s)
{
	*b = *b / (float)(1.0 + delta * l);
	*s = *s + delta * *b;
}

/* portfolio's: b = b / (1.0 + delta L[n]) in double; s += delta b */
static __attribute__((noinline)) void lib_annuity(float delta, float l, float *b, float *s)
{
	*b = (float)(*b / (1.0 + delta * l));
	*s = *s + delta * *b;
}

/* One swaption's payoff: whether swapval < 0 (then v grows). */
static __attribute__((noinline)) bool lib_payoff(float bm, float sm, float rate, float *v,
						 bool greeks)
{
	float swapval = (float)(bm + rate * sm - 1.0);

	if (!(swapval < 0))
		return false;
	if (greeks)
		*v += -100 * swapval;
	else
		*v = (float)(*v + -100.0 * swapval);
	return true;
}

/* S_b[m] += -100 swaprates[n]; B_b[m] += -100 */
static __attribute__((noinline)) void lib_payoff_b(float rate, float *sb, float *bb)
{
	*sb += -100 * rate;
	*bb += -100;
}

/* The reverse sweep of portfolio_b at m: B_b[m] += delta S_b[m]; returns L_b[n]. */
static __attribute__((noinline)) float lib_rev_pay(float delta, float sb, float *bb, float bm,
						   float l)
{
	*bb += delta * sb;
	return -*bb * bm * (delta / (float)(1.0 + delta * l));
}

/* ... and at m > 0: S_b[m-1] += S_b[m]; B_b[m-1] += __fdividef(B_b[m], 1. + delta L[n]) where
 * L[n] is already L_b[n] (L_b aliases L in the original). */
static __attribute__((noinline)) void lib_rev_prev(float delta, float sb, float bb, float l,
						   float *sb_prev, float *bb_prev)
{
	*sb_prev += sb;
	*bb_prev += bb / (float)(1. + delta * l);
}

/* b = b / (1.0 + delta L[n]) in double */
static __attribute__((noinline)) float lib_disc(float delta, float b, float l)
{
	return (float)(b / (1.0 + delta * l));
}

/* L_b[n] = -v delta / (1.0 + delta L[n]) */
static __attribute__((noinline)) float lib_disc_lb(float delta, float v, float l)
{
	return (float)(-v * delta / (1.0 + delta * l));
}

static __attribute__((noinline)) float lib_mul(float a, float b)
{
	return a * b;
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* The per-thread local arrays (word offsets in the thread's local memory). */
struct lib_local {
	uint32_t l, l2, z, b, s, b_b, s_b, words;
};

static struct lib_local lib_layout(unsigned nn, unsigned nmat, bool greeks)
{
	struct lib_local o;
	unsigned nb = nn - nmat; /* B[m], S[m] for m < N - Nmat */

	o.l = 0;
	o.l2 = nn;
	o.z = o.l2 + (greeks ? nn * (nmat + 1) : 0);
	o.b = o.z + nn;
	o.s = o.b + nb;
	o.b_b = o.s + nb;
	o.s_b = o.b_b + (greeks ? nb : 0);
	o.words = o.s_b + (greeks ? nb : 0);
	return o;
}

/* A warp's view of its threads' local word `word` (the same index in every lane). */
static void lib_ldl(struct gpu_warp *w, uint32_t mask, uint32_t word, float *out)
{
	uint32_t idx[WARP_LANES], v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		idx[l] = word;
	gw_ld_localv(w, idx, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			out[l] = wl_u2f(v[l]);
}

static void lib_stl(struct gpu_warp *w, uint32_t mask, uint32_t word, const float *val)
{
	uint32_t idx[WARP_LANES], v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		idx[l] = word;
		v[l] = (mask >> l & 1) ? wl_f2u(val[l]) : 0;
	}
	gw_st_localv(w, idx, mask, v);
}

static float lib_ldc(struct gpu_warp *w, const struct lib_args *a, unsigned word)
{
	return wl_u2f(gw_ld_const32(w, a->cnst + 4 * word));
}

/* path_calc / path_calc_b1: the forward sweep (b1 also keeps every step's rates in L2). */
static void lib_forward(struct gpu_warp *w, const struct lib_args *a, const struct lib_local *o,
			uint32_t mask, int n_, int nmat, float delta)
{
	float lv[WARP_LANES], sqez[WARP_LANES], z[WARP_LANES], v[WARP_LANES];

	if (a->greeks)
		for (int i = 0; i < n_; i++) { /* L2[i] = L[i] */
			lib_ldl(w, mask, o->l + (unsigned)i, lv);
			gw_compute(w, LIB_COPY);
			lib_stl(w, mask, o->l2 + (unsigned)i, lv);
		}
	for (int n = 0; n < nmat; n++) {
		lib_ldl(w, mask, o->z + (unsigned)n, z);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (mask >> l & 1)
				sqez[l] = lib_sqez(delta, z[l]);
			v[l] = 0.0f;
		}
		gw_compute(w, LIB_NSTEP);
		for (int i = n + 1; i < n_; i++) {
			float lam = lib_ldc(w, a, LC_LAMBDA + (unsigned)(i - n - 1));

			lib_ldl(w, mask, o->l + (unsigned)i, lv);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					lv[l] = lib_step(lam, delta, sqez[l], &v[l], lv[l]);
			gw_compute(w, LIB_STEP);
			lib_stl(w, mask, o->l + (unsigned)i, lv);
			if (a->greeks)
				lib_stl(w, mask, o->l2 + (unsigned)(i + (n + 1) * n_), lv);
		}
	}
}

/* The payoffs of portfolio / portfolio_b: v, and the lanes' B_b, S_b updates (greeks). */
static void lib_payoffs(struct gpu_warp *w, const struct lib_args *a, const struct lib_local *o,
			uint32_t mask, int nopt, float *v)
{
	float bm[WARP_LANES], sm[WARP_LANES], sb[WARP_LANES], bb[WARP_LANES];

	for (int n = 0; n < nopt; n++) {
		unsigned m = gw_ld_const32(w, a->cnst + 4 * (LC_MAT + (unsigned)n)) - 1;
		float rate = lib_ldc(w, a, LC_RATES + (unsigned)n);
		uint32_t neg = 0;

		lib_ldl(w, mask, o->b + m, bm);
		lib_ldl(w, mask, o->s + m, sm);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((mask >> l & 1) && lib_payoff(bm[l], sm[l], rate, &v[l], a->greeks))
				neg |= 1u << l;
		gw_compute(w, LIB_PAYOFF);
		if (!neg || !a->greeks) {
			if (neg)
				gw_compute(w, LIB_PAYOFF_T);
			continue;
		}
		lib_ldl(w, neg, o->s_b + m, sb);
		lib_ldl(w, neg, o->b_b + m, bb);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (neg >> l & 1)
				lib_payoff_b(rate, &sb[l], &bb[l]);
		gw_compute(w, LIB_PAYOFF_T);
		lib_stl(w, neg, o->s_b + m, sb);
		lib_stl(w, neg, o->b_b + m, bb);
	}
}

/* portfolio (greeks false) or portfolio_b: returns v per lane. */
static void lib_portfolio(struct gpu_warp *w, const struct lib_args *a, const struct lib_local *o,
			  uint32_t mask, int n_, int nmat, int nopt, float delta, float *v)
{
	float lv[WARP_LANES], b[WARP_LANES], s[WARP_LANES], zero[WARP_LANES] = {0};
	float sb[WARP_LANES], bb[WARP_LANES], bm[WARP_LANES];
	float sb_prev[WARP_LANES], bb_prev[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		b[l] = 1.0f;
		s[l] = 0.0f;
		v[l] = 0.0f;
	}
	for (int m = 0; m < n_ - nmat; m++) {
		lib_ldl(w, mask, o->l + (unsigned)(m + nmat), lv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1) {
				if (a->greeks)
					lib_annuity_b(delta, lv[l], &b[l], &s[l]);
				else
					lib_annuity(delta, lv[l], &b[l], &s[l]);
			}
		gw_compute(w, a->greeks ? LIB_ANNUITY : LIB_ANNUITY2);
		lib_stl(w, mask, o->b + (unsigned)m, b);
		lib_stl(w, mask, o->s + (unsigned)m, s);
	}
	if (a->greeks)
		for (int m = 0; m < n_ - nmat; m++) { /* B_b[m] = S_b[m] = 0 */
			gw_compute(w, LIB_COPY);
			lib_stl(w, mask, o->b_b + (unsigned)m, zero);
			lib_stl(w, mask, o->s_b + (unsigned)m, zero);
		}
	lib_payoffs(w, a, o, mask, nopt, v);
	if (a->greeks)
		for (int m = n_ - nmat - 1; m >= 0; m--) {
			unsigned n = (unsigned)(m + nmat);

			lib_ldl(w, mask, o->b_b + (unsigned)m, bb);
			lib_ldl(w, mask, o->s_b + (unsigned)m, sb);
			lib_ldl(w, mask, o->b + (unsigned)m, bm);
			lib_ldl(w, mask, o->l + n, lv);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					lv[l] = lib_rev_pay(delta, sb[l], &bb[l], bm[l], lv[l]);
			gw_compute(w, LIB_REV_PAY);
			lib_stl(w, mask, o->b_b + (unsigned)m, bb);
			lib_stl(w, mask, o->l + n, lv); /* L_b[n], the same words as L[n] */
			if (m == 0)
				continue;
			lib_ldl(w, mask, o->s_b + (unsigned)m - 1, sb_prev);
			lib_ldl(w, mask, o->b_b + (unsigned)m - 1, bb_prev);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					lib_rev_prev(delta, sb[l], bb[l], lv[l], &sb_prev[l],
						     &bb_prev[l]);
			lib_stl(w, mask, o->s_b + (unsigned)m - 1, sb_prev);
			lib_stl(w, mask, o->b_b + (unsigned)m - 1, bb_prev);
		}
	/* apply discount */
	for (unsigned l = 0; l < WARP_LANES; l++)
		b[l] = 1.0f;
	for (int n = 0; n < nmat; n++) {
		lib_ldl(w, mask, o->l + (unsigned)n, lv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				b[l] = lib_disc(delta, b[l], lv[l]);
		gw_compute(w, LIB_DISC);
	}
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			v[l] = lib_mul(b[l], v[l]);
	if (!a->greeks)
		return;
	for (int n = 0; n < nmat; n++) {
		lib_ldl(w, mask, o->l + (unsigned)n, lv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				lv[l] = lib_disc_lb(delta, v[l], lv[l]);
		gw_compute(w, LIB_DISC);
		lib_stl(w, mask, o->l + (unsigned)n, lv);
	}
	for (int n = nmat; n < n_; n++) {
		lib_ldl(w, mask, o->l + (unsigned)n, lv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				lv[l] = lib_mul(b[l], lv[l]);
		gw_compute(w, LIB_COPY);
		lib_stl(w, mask, o->l + (unsigned)n, lv);
	}
}

/* path_calc_b2: the reverse sweep over the stored rates. */
static void lib_backward(struct gpu_warp *w, const struct lib_args *a, const struct lib_local *o,
			 uint32_t mask, int n_, int nmat, float delta)
{
	float v1[WARP_LANES], next[WARP_LANES], cur[WARP_LANES], lb[WARP_LANES];

	for (int n = nmat - 1; n >= 0; n--) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			v1[l] = 0.0f;
		for (int i = n_ - 1; i > n; i--) {
			float lam = lib_ldc(w, a, LC_LAMBDA + (unsigned)(i - n - 1));

			lib_ldl(w, mask, o->l2 + (unsigned)(i + (n + 1) * n_), next);
			lib_ldl(w, mask, o->l + (unsigned)i, lb);
			lib_ldl(w, mask, o->l2 + (unsigned)(i + n * n_), cur);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					lb[l] =
					    lib_reverse(lam, delta, next[l], cur[l], &v1[l], lb[l]);
			gw_compute(w, LIB_REVERSE);
			lib_stl(w, mask, o->l + (unsigned)i, lb);
		}
	}
}

/* Pathcalc_Portfolio_KernelGPU (greeks) and Pathcalc_Portfolio_KernelGPU2. */
static void lib_kernel(struct gpu_warp *w)
{
	const struct lib_args *a = gw_args(w);
	struct lib_local o = lib_layout(a->nn, a->nmat, a->greeks);
	int n_ = (int)gw_ld_const32(w, a->cnst + 4 * LC_N);
	int nmat = (int)gw_ld_const32(w, a->cnst + 4 * LC_NMAT);
	int nopt = (int)gw_ld_const32(w, a->cnst + 4 * LC_NOPT);
	float delta = lib_ldc(w, a, LC_DELTA);
	uint64_t thread_n = (uint64_t)gw_ctas(w) * gw_warps_per_cta(w) * WARP_LANES;
	uint64_t addr[WARP_LANES];
	uint32_t u[WARP_LANES];

	gw_compute(w, LIB_PROLOGUE);
	for (uint64_t base = gw_tid(w, 0); base < a->npath; base += thread_n) {
		float fv[WARP_LANES], v[WARP_LANES];
		uint32_t mask = wl_lane_addrs(addr, 0, base, a->npath, 4);

		/* z[i] = the path's normals; L[i] = 0.05 */
		for (int i = 0; i < n_; i++) {
			for (unsigned l = 0; l < WARP_LANES; l++) {
				addr[l] = a->z + 4 * ((uint64_t)i * a->npath + base + l);
				fv[l] = 0.05f;
			}
			gw_ld32v(w, addr, mask, u);
			for (unsigned l = 0; l < WARP_LANES; l++)
				v[l] = wl_u2f(u[l]);
			gw_compute(w, LIB_COPY);
			lib_stl(w, mask, o.z + (unsigned)i, v);
			lib_stl(w, mask, o.l + (unsigned)i, fv);
		}
		lib_forward(w, a, &o, mask, n_, nmat, delta);
		lib_portfolio(w, a, &o, mask, n_, nmat, nopt, delta, v);
		wl_lane_addrs(addr, a->v, base, a->npath, 4);
		for (unsigned l = 0; l < WARP_LANES; l++)
			u[l] = wl_f2u(v[l]);
		gw_st32v(w, addr, mask, u);
		if (!a->greeks)
			continue;
		lib_backward(w, a, &o, mask, n_, nmat, delta);
		/* d_Lb[path] = L_b[NN - 1] */
		lib_ldl(w, mask, o.l + a->nn - 1, fv);
		wl_lane_addrs(addr, a->lb, base, a->npath, 4);
		for (unsigned l = 0; l < WARP_LANES; l++)
			u[l] = wl_f2u(fv[l]);
		gw_st32v(w, addr, mask, u);
	}
}

/* ---- host reference ------------------------------------------------------------------------- */

/* One path of either kernel on plain arrays, the kernels' statements in order. loc: a thread's
 * local memory (lib_layout's words). */
static void lib_ref_path(const struct lib_consts *c, const struct lib_local *o, float *loc,
			 const float *zpath, unsigned nn, bool greeks, float *v_out, float *lb_out)
{
	float *L = loc + o->l, *L2 = loc + o->l2, *z = loc + o->z, *B = loc + o->b;
	float *S = loc + o->s, *B_b = loc + o->b_b, *S_b = loc + o->s_b;
	int n_ = c->n, nmat = c->nmat;
	float v = 0.0f, b = 1.0f, s = 0.0f;

	for (int i = 0; i < n_; i++) {
		z[i] = zpath[i];
		L[i] = 0.05f;
	}
	if (greeks)
		for (int i = 0; i < n_; i++)
			L2[i] = L[i];
	for (int n = 0; n < nmat; n++) {
		float sqez = lib_sqez(c->delta, z[n]), vv = 0.0f;

		for (int i = n + 1; i < n_; i++) {
			L[i] = lib_step(c->lambda[i - n - 1], c->delta, sqez, &vv, L[i]);
			if (greeks)
				L2[i + (n + 1) * n_] = L[i];
		}
	}
	for (int m = 0; m < n_ - nmat; m++) {
		if (greeks)
			lib_annuity_b(c->delta, L[m + nmat], &b, &s);
		else
			lib_annuity(c->delta, L[m + nmat], &b, &s);
		B[m] = b;
		S[m] = s;
	}
	if (greeks)
		for (int m = 0; m < n_ - nmat; m++)
			B_b[m] = S_b[m] = 0;
	for (int n = 0; n < c->nopt; n++) {
		int m = c->maturities[n] - 1;

		if (lib_payoff(B[m], S[m], c->swaprates[n], &v, greeks) && greeks)
			lib_payoff_b(c->swaprates[n], &S_b[m], &B_b[m]);
	}
	if (greeks)
		for (int m = n_ - nmat - 1; m >= 0; m--) {
			int n = m + nmat;

			L[n] = lib_rev_pay(c->delta, S_b[m], &B_b[m], B[m], L[n]);
			if (m > 0)
				lib_rev_prev(c->delta, S_b[m], B_b[m], L[n], &S_b[m - 1],
					     &B_b[m - 1]);
		}
	b = 1.0f;
	for (int n = 0; n < nmat; n++)
		b = lib_disc(c->delta, b, L[n]);
	v = lib_mul(b, v);
	*v_out = v;
	if (!greeks)
		return;
	for (int n = 0; n < nmat; n++)
		L[n] = lib_disc_lb(c->delta, v, L[n]);
	for (int n = nmat; n < n_; n++)
		L[n] = lib_mul(b, L[n]);
	for (int n = nmat - 1; n >= 0; n--) {
		float v1 = 0.0f;

		for (int i = n_ - 1; i > n; i--)
			L[i] = lib_reverse(c->lambda[i - n - 1], c->delta, L2[i + (n + 1) * n_],
					   L2[i + n * n_], &v1, L[i]);
	}
	*lb_out = L[nn - 1];
}

/* Compares the device's n floats at addr with want[]; returns the first differing index or n. */
static uint64_t lib_compare(struct gpu_host *h, uint64_t addr, const float *want, float *got,
			    uint64_t n, uint64_t *bad)
{
	uint64_t first = n;

	gh_read(h, addr, got, n * sizeof(float));
	*bad = 0;
	for (uint64_t i = 0; i < n; i++)
		if (wl_f2u(got[i]) != wl_f2u(want[i]) && (*bad)++ == 0)
			first = i;
	return first;
}

/* Launches the kernel (kern, its args a) as `name`: with the greeks (Pathcalc_Portfolio_
 * KernelGPU) or without (KernelGPU2), the per-thread arrays laid out by o in local memory. */
static int lib_launch(struct gpu_host *h, struct gpu_kernel *kern, struct lib_args *a,
		      const char *name, const struct lib_local *o, bool greeks)
{
	kern->name = name;
	kern->local_bytes = o->words * 4;
	a->greeks = greeks;
	return gh_launch(h, kern);
}

int ispass_lib_main(struct gpu_host *h)
{
	bool full = gh_size(h) == GPU_SIZE_FULL;
	unsigned nn = (unsigned)wl_by_size(h, 16, 40, 80), nmat = nn / 2;
	unsigned npath = full ? 4096 : (unsigned)wl_by_size(h, 64, 256, 2048);
	struct lib_args a = {.nn = nn, .nmat = nmat, .npath = npath};
	struct gpu_kernel kern = {
	    .warps_per_cta = LIB_BLOCK_SIZE / WARP_LANES,
	    .regs_per_thread = 32,
	    .ctas = npath / LIB_BLOCK_SIZE, /* GRID_SIZE: one path per thread */
	    .fn = lib_kernel,
	    .args = &a,
	};
	struct lib_consts c = {.n = (int)nn, .nmat = (int)nmat, .nopt = LIB_NOPT, .delta = 0.25f};
	uint64_t seed = gh_seed(h) ^ TAG_LIB;
	uint32_t *cbuf = calloc(LC_LAMBDA + nn, sizeof(uint32_t));
	float *z = malloc((size_t)nn * npath * sizeof(float)), *zpath = malloc(nn * sizeof(float));
	float *v2 = malloc(npath * sizeof(float)), *v = malloc(npath * sizeof(float));
	float *lb = malloc(npath * sizeof(float)), *got = malloc(npath * sizeof(float));
	struct lib_local og = lib_layout(nn, nmat, true), o2 = lib_layout(nn, nmat, false);
	float *loc = malloc(og.words * sizeof(float));
	float v_mean = 0, lb_mean = 0;
	int err = -CS_ENOMEM;

	c.lambda = malloc(nn * sizeof(float));
	if (!cbuf || !z || !zpath || !v2 || !v || !lb || !got || !loc || !c.lambda)
		goto out;
	/* the __constant__ block: maturities scaled from libor.cu's 40 steps to N - Nmat */
	cbuf[LC_N] = nn;
	cbuf[LC_NMAT] = nmat;
	cbuf[LC_NOPT] = LIB_NOPT;
	cbuf[LC_DELTA] = wl_f2u(c.delta);
	for (unsigned i = 0; i < LIB_NOPT; i++) {
		c.maturities[i] =
		    (lib_maturities[i] * (int)(nn - nmat) + LIB_MAT_ORIG - 1) / LIB_MAT_ORIG;
		c.swaprates[i] = lib_swaprates[i];
		cbuf[LC_MAT + i] = (uint32_t)c.maturities[i];
		cbuf[LC_RATES + i] = wl_f2u(c.swaprates[i]);
	}
	for (unsigned i = 0; i < nn; i++) {
		c.lambda[i] = 0.2f;
		cbuf[LC_LAMBDA + i] = wl_f2u(c.lambda[i]);
	}
	/* standard normals by Box-Muller, z[i][path] */
	for (uint64_t k = 0; k < (uint64_t)nn * npath; k++) {
		double u1 = wl_unit(seed, 0, k), u2 = wl_unit(seed, 1, k);

		z[k] = (float)(sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * 3.14159265358979323846 * u2));
	}
	a.cnst = wl_upload(h, cbuf, (LC_LAMBDA + nn) * sizeof(uint32_t));
	a.z = wl_upload(h, z, (size_t)nn * npath * sizeof(float));
	a.v = wl_alloc_zero(h, npath * sizeof(float));
	a.lb = wl_alloc_zero(h, npath * sizeof(float));

	/* Pathcalc_Portfolio_KernelGPU2, then read d_v back */
	err = lib_launch(h, &kern, &a, "Pathcalc_Portfolio_KernelGPU2", &o2, false);
	if (err)
		goto out;
	gh_read(h, a.v, v2, npath * sizeof(float));
	/* Pathcalc_Portfolio_KernelGPU */
	err = lib_launch(h, &kern, &a, "Pathcalc_Portfolio_KernelGPU", &og, true);
	if (err)
		goto out;
	gh_corrupt(h, a.lb + 4 * (npath / 2), 4);

	for (unsigned p = 0; p < npath; p++) {
		float want;

		for (unsigned i = 0; i < nn; i++)
			zpath[i] = z[(uint64_t)i * npath + p];
		lib_ref_path(&c, &o2, loc, zpath, nn, false, &want, &want);
		if (wl_f2u(want) != wl_f2u(v2[p])) {
			err = gh_fail(h,
				      "lib: KernelGPU2 v of path %u = %.9g, want %.9g (N %u, "
				      "Nmat %u)",
				      p, (double)v2[p], (double)want, nn, nmat);
			goto out;
		}
		lib_ref_path(&c, &og, loc, zpath, nn, true, &v[p], &lb[p]);
	}
	for (int k = 0; k < 2; k++) { /* v, then Lb */
		const float *want = k ? lb : v;
		uint64_t bad, first = lib_compare(h, k ? a.lb : a.v, want, got, npath, &bad);

		if (bad) {
			err = gh_fail(h,
				      "lib: KernelGPU %s of path %" PRIu64
				      " = %.9g, want %.9g (%" PRIu64 " of %u paths differ)",
				      k ? "Lb" : "v", first, (double)got[first],
				      (double)want[first], bad, npath);
			goto out;
		}
	}
	for (unsigned p = 0; p < npath; p++) {
		v_mean += v[p] / npath;
		lb_mean += lb[p] / npath;
	}
	gh_note(h,
		"lib: %u paths (%u CTAs of %u), N %u, Nmat %u, %u swaptions; v and Lb of every "
		"path bit-exact in both kernels (mean v %.6f, Lb %.6f); local memory %u and %u "
		"bytes per thread",
		npath, kern.ctas, LIB_BLOCK_SIZE, nn, nmat, LIB_NOPT, (double)v_mean,
		(double)lb_mean, o2.words * 4, og.words * 4);
	err = 0;
out:
	free(cbuf);
	free(z);
	free(zpath);
	free(v2);
	free(v);
	free(lb);
	free(got);
	free(loc);
	free(c.lambda);
	return err;
}
