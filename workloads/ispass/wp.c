/*
 * workloads/ispass/wp.c - weather prediction (ISPASS-2009 `WP`, Bakhoda et al. 2009): the WRF
 * single-moment 5-class microphysics (WSM5) kernel `wsm5_gpu` of John Michalakes' CUDA port
 * (wsm5_gpu.cu, preprocessed by spt.pl; wsm5.cu launches it).
 *
 * One thread per column of the horizontal patch (ig, jg) = (blockIdx.x * 8 + threadIdx.x,
 * blockIdx.y * 8 + threadIdx.y): CTAs of XXX x YYY = 8 x 8 threads (2 warps, a warp four rows of
 * eight columns), a 2-D grid of ceil(nx / 8) x ceil(ny / 8) CTAs, columns beyond the patch
 * idle (the kernel's guard). The 3-D fields th, pii, q, qc, qi, qr, qs, den, p, delz are
 * "ikj" arrays in global memory (i fastest, then the level k, then j: a warp's access is four
 * 32-byte pieces), rain, rainncv, sr, snow, snowncv "ij" ones. Each thread keeps 21 per-level
 * arrays of MKX = 28 floats (spt.pl's `_def_ local k:` t, cpm, xl, qs1, qs2, rh1, rh2, xni, the
 * eight rain/snow slope arrays, denfac, n0sfac, w1, w2, w3) in local memory (2 352 bytes per
 * thread: gpu_kernel.local_bytes, gw_ld_localv / gw_st_localv); the process rates are
 * registers (`_def_ register`). The column program, as wsm5_gpu.cu: t = th * pii, negative
 * hydrometeors clamped, cpm and xl; then `loops` = delt / 120 s minor steps of: saturation
 * (qs1, qs2, rh1, rh2); slope parameters, terminal velocities and the sedimentation step count
 * mstep; mstep sedimentation passes of rain and snow from the top down (plus melting of falling
 * snow); ice fall speeds and mstep ice sedimentation passes; surface precipitation; and the
 * big per-level microphysics (freezing, the warm and cold rain processes, mass conservation,
 * condensation). Finally th = t / pii. mstep is per column, so those loops diverge.
 *
 * No sharing: each thread reads and writes only its own column (and its local memory).
 *
 * Input: the original reads WRF's jan00 snapshot (wsm5_in_010: a 71 x 58 patch of 27 levels,
 * dt 180 s); here the columns are generated from the seed: a troposphere with a 6.5 K/km
 * lapse rate over a 285 +- 7.5 K surface, hydrostatic pressure, relative humidity 50-105%,
 * cloud water, ice, rain and snow where they belong (and a few tiny negative values to
 * clamp), rain and snow totals. Check: a host reference runs the same column program through
 * the same noinline stage functions (wsm5_gpu.cu's float and double expressions and its MAX /
 * MIN overloads), so every output (the six 3-D fields and five 2-D ones) must be bit-exact.
 *
 * Deviations: fallc_k and fallc_kp1 are read uninitialised in wsm5_gpu.cu (the ice fall sum
 * accumulates into a register the kernel never clears); here they start at 0 on every minor
 * step. The original's bugs that have defined results are kept: rslopebs[2] in the melting
 * term, fallc_k summed over all levels, fall1_k / fall2_k taken from the lowest level only.
 */
#include "workloads/ispass/ispass.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_WP 0x7773000000000000ull
#define WP_BX  8  /* XXX (makefile: the setting for the 8800 / 5600 used by GPGPU-Sim) */
#define WP_BY  8  /* YYY */
#define WP_MKX 28 /* the local arrays' compile-time levels (makefile MKX) */

/* wsm5_constants.h (double literals) */
#define r_d	  287.
#define rv	  0.461600006103516E+03
#define cice	  0.210600000000000E+04
#define cliq	  0.419000000000000E+04
#define denr	  0.100000000000000E+04
#define den0	  0.127999997138977E+01
#define xlf0	  0.350000000000000E+06
#define xlv0	  0.250000000000000E+07
#define xls	  0.285000000000000E+07
#define t0c	  0.273149993896484E+03
#define qmin	  0.100000000362749E-14
#define ep2	  0.621750414371490E+00
#define psat	  0.610780029296875E+03
#define alpha	  0.120000000000000E+00
#define n0smax	  0.100000000000000E+12
#define n0s	  0.200000000000000E+07
#define n0r	  0.800000000000000E+07
#define qcrmin	  0.100000000000000E-08
#define avtr	  0.841900000000000E+03
#define bvtr	  0.800000000000000E+00
#define g3pbr	  0.469078683336385E+01
#define g4pbr	  0.178173289058329E+02
#define g5pbro2	  0.182658695197891E+01
#define avts	  0.117200000000000E+02
#define bvts	  0.410000000000000E+00
#define g3pbs	  0.301156382231086E+01
#define g4pbs	  0.102654190601850E+02
#define g5pbso2	  1.550308
#define r0	  0.800000000000000E-05
#define peaut	  0.550000000000000E+00
#define xncr	  0.300000000000000E+09
#define xmyu	  0.171800000000000E-04
#define lamdarmax 0.800000000000000E+05
#define pi	  0.314159265358979E+01
#define dicon	  0.119000000000000E+02
#define dimax	  0.500000000000000E-03
#define pfrz1	  0.100000000000000E+03
#define pfrz2	  0.660000000000000E+00
#define eacrr	  0.100000000000000E+01
#define eacrc	  0.100000000000000E+01
#define dens	  100.
#define hsub	  xls
#define hvap	  xlv0

/*
 * Issue slots per warp (SASS-like estimates for the GTX 480: a double-precision add or
 * multiply 8, a double division ~75 and square root ~50 (Newton-Raphson on the 1/8-rate DP
 * unit), CUDA's double exp ~110 and log ~130 (polynomials of ~14-16 DP instructions); single
 * precision under --use_fast_math: __logf, __expf, sqrtf, division ~2-6). wsm5_gpu.cu's
 * constants are double, so most of the column physics runs in double:
 * t, clamps, cpm/xl per level: 6, 12, 72 (CPMCAL 5 DP ops, XLCAL 3);
 * saturation (two fpvs: 2 DEXP, 2 DDIV, ~12 DP ops): 516;
 * slopes: n0sfac (DEXP + 3 DP) 134, each computed rain / snow slope (2 DDIV, 2 DSQRT, DEXP):
 *   330 / 340 (4 when the lane takes the constants), denfac, w1, w2, mstep, xni: 530;
 * sedimentation per level: 120 (a DDIV for rdelz), the top level 40;
 * melting test 12, melting (VENFAC: DLOG, DEXP, DDIVs, DSQRTs; XKA, CPMCAL): 1 250;
 * ice fall speed test 30, speed (DEXP): 170; ice sedimentation per level: 30;
 * precipitation: 300;
 * microphysics per level: freezing tests 40, heterogeneous freezing (DEXP, 2 DDIV) 330, rain
 *   freezing 330; slopes as above; processes (DIFFAC twice and VENFAC sharing VISCOS and
 *   DIFFUS: ~1 350, praut, pracw, prevp, xni, eacrs, psacw, mass conservation, fpvs, pcond):
 *   2 780, plus 890 when a lane is below freezing (psaci, pidep, psdep, pigen, psaut);
 * th = t / pii: 8; prologue (indices, guard, loops, dtcld): 30.
 */
#define WP_PROLOGUE    30
#define WP_T	       6
#define WP_CLAMP       12
#define WP_CPM	       72
#define WP_SAT	       516
#define WP_N0SFAC      134
#define WP_SLOPE_R     330
#define WP_SLOPE_S     340
#define WP_SLOPE_CONST 4
#define WP_SLOPES_REST 530
#define WP_SED	       120
#define WP_SED_TOP     40
#define WP_MELT_TEST   12
#define WP_MELT	       1250
#define WP_ICE_TEST    30
#define WP_ICE_V       170
#define WP_ICE_SED     30
#define WP_PRECIP      300
#define WP_FREEZE      40
#define WP_FREEZE_C    330
#define WP_FREEZE_R    330
#define WP_PROC	       2780
#define WP_PROC_COLD   890
#define WP_TH	       8

/* The per-thread local arrays (spt.pl `_def_ local k:`), in declaration order. */
enum wp_local {
	L_QS1,
	L_QS2,
	L_RH1,
	L_RH2,
	L_T,
	L_CPM,
	L_XL,
	L_XNI,
	L_RSLOPER,
	L_RSLOPEBR,
	L_RSLOPE2R,
	L_RSLOPE3R,
	L_RSLOPES,
	L_RSLOPEBS,
	L_RSLOPE2S,
	L_RSLOPE3S,
	L_DENFAC,
	L_N0SFAC,
	L_W1,
	L_W2,
	L_W3,
	WP_LOCALS
};

/* The global fields (kernel arguments), 3-D ("ikj") then 2-D ("ij"). */
enum wp_field {
	F_TH,
	F_PII,
	F_Q,
	F_QC,
	F_QI,
	F_QR,
	F_QS,
	F_DEN,
	F_P,
	F_DELZ,
	F_RAIN,
	F_RAINNCV,
	F_SR,
	F_SNOW,
	F_SNOWNCV,
	WP_FIELDS
};
#define WP_FIELDS3 (F_DELZ + 1)

static const char *const wp_field_name[WP_FIELDS] = {"th",   "pii",	"q",   "qc",   "qi",
						     "qr",   "qs",	"den", "p",    "delz",
						     "rain", "rainncv", "sr",  "snow", "snowncv"};

/* The kernel's constants: wsm5_constants.h's doubles (compile-time in the original) and the
 * per-run floats (dtcld, the fpvs coefficients). */
struct wp_par {
	double cpv, cpd, pvtr, pvts, xlv1;
	double rslopermax, rslopesmax, rsloperbmax, rslopesbmax;
	double rsloper2max, rslopes2max, rsloper3max, rslopes3max;
	double pidn0r, pidn0s, precs1, precs2, qc0, qck1, precr1, precr2, pacrr, pacrc, roqimax;
	float delt, dtcld, ttp, xa, xb, xai, xbi;
	int loops;
};

struct wp_args {
	uint64_t field[WP_FIELDS];
	int nx, ny, nk; /* the patch: ide - ids + 1, jde - jds + 1, kpe - kps + 1 */
	struct wp_par c;
};

/* ---- the column physics, shared by the kernel and the reference (noinline) ----------------- */

#define NOINLINE __attribute__((noinline))

/* CUDA's max/min overloads: float x float stays float, a double argument makes it double. */
static inline float fmaxf_(float a, float b)
{
	return fmaxf(a, b);
}

static inline float fminf_(float a, float b)
{
	return fminf(a, b);
}

static void wp_par_init(struct wp_par *c, float delt)
{
	float dtcldcr = 120.;
	double cp = 7. * r_d / 2., cv = cp - r_d;
	float dldt, dldti;
	int loops;

	c->cpv = 4. * rv;
	c->cpd = cp;
	c->pvtr = avtr * g4pbr / 6.;
	c->pvts = avts * g4pbs / 6.;
	c->xlv1 = cliq - cv;
	c->rslopermax = 1. / lamdarmax;
	c->rslopesmax = .10000000000000001e-04;
	c->rsloperbmax = 0.11954406247375457E-03;
	c->rslopesbmax = .89125093813374589e-02;
	c->rsloper2max = c->rslopermax * c->rslopermax;
	c->rslopes2max = c->rslopesmax * c->rslopesmax;
	c->rsloper3max = c->rsloper2max * c->rslopermax;
	c->rslopes3max = c->rslopes2max * c->rslopesmax;
	c->pidn0r = pi * denr * n0r;
	c->pidn0s = pi * dens * n0s;
	c->precs1 = 4. * n0s * .65;
	c->precs2 = 4. * n0s * .44 * sqrt(avts) * g5pbso2;
	c->qc0 = 4. / 3. * pi * denr * (r0 * r0 * r0) * xncr / den0;
	c->qck1 = .104 * 9.8 * peaut / pow((xncr * denr), (1. / 3.)) / xmyu * pow(den0, (4. / 3.));
	c->precr1 = 2. * pi * n0r * .78;
	c->precr2 = 2. * pi * n0r * .31 * sqrt(avtr) * g5pbro2;
	c->pacrr = pi * n0r * avtr * g3pbr * .25 * eacrr;
	c->pacrc = pi * n0s * avts * g3pbs * .25 * eacrc;
	c->roqimax = 2.08e22 * pow(dimax, 8);
	/* the minor time steps */
	c->delt = delt;
	loops = (int)(delt / dtcldcr + .5);
	loops = loops > 1 ? loops : 1;
	c->loops = loops;
	c->dtcld = delt / loops;
	if (delt <= dtcldcr)
		c->dtcld = delt;
	/* the fpvs coefficients (floats in the kernel) */
	c->ttp = t0c + 0.01;
	dldt = c->cpv - cliq;
	c->xa = -dldt / rv;
	c->xb = c->xa + hvap / (rv * c->ttp);
	dldti = c->cpv - cice;
	c->xai = -dldti / rv;
	c->xbi = c->xai + hsub / (rv * c->ttp);
}

static double wp_cpmcal(const struct wp_par *c, float x)
{
	return c->cpd * (1. - fmax(x, qmin)) + fmax(x, qmin) * c->cpv;
}

static double wp_viscos(float x, float y)
{
	return 1.496e-6 * (x * sqrtf(x)) / (x + 120.) / y;
}

static double wp_diffus(float x, float y)
{
	return 8.794e-5 * exp(logf(x) * (1.81)) / y;
}

static double wp_xka(float x, float y)
{
	return 1.414e3 * wp_viscos(x, y) * y;
}

static double wp_diffac(float a, float b, float c_, float d, float e)
{
	return d * a * a / (wp_xka(c_, d) * rv * c_ * c_) + 1. / (e * wp_diffus(c_, b));
}

static double wp_venfac(float a, float b, float c_)
{
	return exp(log((wp_viscos(b, c_) / wp_diffus(b, a))) * ((.3333333))) *
	       (1. / sqrt(wp_viscos(b, c_))) * sqrt(sqrt(den0 / c_));
}

static NOINLINE float wp_mul(float a, float b)
{
	return a * b;
}

static NOINLINE float wp_div(float a, float b)
{
	return a / b;
}

/* cpm[k] = CPMCAL(q[k]); xl[k] = XLCAL(t[k]) */
static NOINLINE void wp_cpm_xl(const struct wp_par *c, float q, float t, float *cpm, float *xl)
{
	*cpm = (float)wp_cpmcal(c, q);
	*xl = (float)(xlv0 - c->xlv1 * (t - t0c));
}

/* The saturation loop: out = qs1, rh1, qs2, rh2. */
static NOINLINE void wp_sat(const struct wp_par *c, float pp, float tt, float q, float out[4])
{
	float tr = c->ttp / tt, ltr = logf(tr), qq, qs1, qs2;

	qq = (float)(psat * exp(ltr * (c->xa) + c->xb * (1. - tr)));
	qq = (float)(ep2 * qq / (pp - qq));
	qs1 = (float)fmax(qq, qmin);
	out[0] = qs1;
	out[1] = (float)fmax(q / qs1, qmin);
	if (tt < c->ttp)
		qq = (float)(psat * exp(ltr * (c->xai) + c->xbi * (1. - tr)));
	else
		qq = (float)(psat * exp(ltr * (c->xa) + c->xb * (1. - tr)));
	qq = (float)(ep2 * qq / (pp - qq));
	qs2 = (float)fmax(qq, qmin);
	out[2] = qs2;
	out[3] = (float)fmax(q / qs2, qmin);
}

static NOINLINE float wp_n0sfac(float supcol)
{
	return (float)fmax(fmin(exp(alpha * supcol), n0smax / n0s), 1.);
}

/* rsloper, rslopebr, rslope2r, rslope3r of qr; returns whether computed (not the bounds). */
static NOINLINE bool wp_slope_r(const struct wp_par *c, float qr, float den, float out[4])
{
	if (qr <= qcrmin) {
		out[0] = (float)c->rslopermax;
		out[1] = (float)c->rsloperbmax;
		out[2] = (float)c->rsloper2max;
		out[3] = (float)c->rsloper3max;
		return false;
	}
	out[0] = (float)(1. / sqrt(sqrt(c->pidn0r / (qr * den))));
	out[1] = (float)exp(logf(out[0]) * bvtr);
	out[2] = out[0] * out[0];
	out[3] = out[2] * out[0];
	return true;
}

/* rslopes, rslopebs, rslope2s, rslope3s of qs */
static NOINLINE bool wp_slope_s(const struct wp_par *c, float qs, float den, float n0sfac,
				float out[4])
{
	if (qs <= qcrmin) {
		out[0] = (float)c->rslopesmax;
		out[1] = (float)c->rslopesbmax;
		out[2] = (float)c->rslopes2max;
		out[3] = (float)c->rslopes3max;
		return false;
	}
	out[0] = (float)(1. / sqrt(sqrt(c->pidn0s * n0sfac / (qs * den))));
	out[1] = (float)exp(logf(out[0]) * bvts);
	out[2] = out[0] * out[0];
	out[3] = out[2] * out[0];
	return true;
}

/* The rest of the slope loop: denfac, w1, w2, numdt, xni (rslopebr, rslopebs as stored). */
static NOINLINE void wp_fall_speed(const struct wp_par *c, float den, float delz, float qi,
				   float rslopebr, float rslopebs, float out[4], int *numdt)
{
	float denfac = (float)sqrt(den0 / den), w1, w2, w, temp;

	w1 = (float)(c->pvtr * rslopebr * denfac / delz);
	w2 = (float)(c->pvts * rslopebs * denfac / delz);
	w = fmaxf_(w1, w2);
	*numdt = (int)trunc(w * c->dtcld + .5 + .5);
	*numdt = *numdt > 1 ? *numdt : 1;
	temp = (float)(den * fmax(qi, qmin));
	temp = sqrtf(sqrtf(temp * temp * temp));
	out[0] = denfac;
	out[1] = w1;
	out[2] = w2;
	out[3] = (float)fmin(fmax(5.38e7 * temp, 1.e3), 1.e6);
}

/* Sedimentation of rain and snow, the top level: returns falk1, falk2 (in out[2..3]). */
static NOINLINE void wp_sed_top(const struct wp_par *c, float rmstep, float den, float qr, float w1,
				float qs, float w2, float out[4])
{
	float falk1 = den * qr * w1 * rmstep, falk2 = den * qs * w2 * rmstep;
	float dtcldden = c->dtcld / den;

	out[0] = (float)fmax(qr - falk1 * dtcldden, 0.0);
	out[1] = (float)fmax(qs - falk2 * dtcldden, 0.0);
	out[2] = falk1;
	out[3] = falk2;
}

/* ... and a level below it (kp1: falk1_kp1, falk2_kp1, delz_kp1). */
static NOINLINE void wp_sed(const struct wp_par *c, float rmstep, float den, float qr, float w1,
			    float qs, float w2, float delz, const float kp1[3], float out[4])
{
	float falk1 = den * qr * w1 * rmstep, falk2 = den * qs * w2 * rmstep;
	float dtcldden = c->dtcld / den, rdelz = (float)(1. / delz);

	out[0] = (float)fmax(qr - (falk1 - kp1[0] * kp1[2] * rdelz) * dtcldden, 0.);
	out[1] = (float)fmax(qs - (falk2 - kp1[1] * kp1[2] * rdelz) * dtcldden, 0.);
	out[2] = falk1;
	out[3] = falk2;
}

/* Melting of falling snow at a level with t > t0c and qs > 0: in = t, qs, qr, q, p, den,
 * rslope2s, rslopes, rslopebs[2], n0sfac; out = w3, qs, qr, t. */
static NOINLINE void wp_melt(const struct wp_par *c, float rmstep, const float in[10], float out[4])
{
	float t = in[0], qs = in[1], qr = in[2], q = in[3], p = in[4], den = in[5];
	float rslope2s = in[6], rslopes = in[7], rslopebs2 = in[8], n0sfac = in[9];
	float xlf = xlf0, w3, coeres, psmlt;

	w3 = (float)wp_venfac(p, t, den);
	coeres = rslope2s * sqrtf(rslopes * rslopebs2);
	psmlt = (float)(wp_xka(t, den) / xlf * (t0c - t) * pi / 2. * n0sfac *
			(c->precs1 * rslope2s + c->precs2 * w3 * coeres));
	psmlt = (float)fmin(fmaxf_(psmlt * c->dtcld * rmstep, -qs * rmstep), 0.);
	qs += psmlt;
	qr -= psmlt;
	t += (float)(xlf / wp_cpmcal(c, q) * psmlt);
	out[0] = w3;
	out[1] = qs;
	out[2] = qr;
	out[3] = t;
}

/* Ice fall speed (qi > 0): w1, w2; numdt of w2. */
static NOINLINE void wp_ice_speed(float den, float qi, float xni, float delz, float out[2])
{
	float xmi = den * qi / xni;
	float diameter = (float)fmax(fmin(dicon * sqrtf(xmi), dimax), 1.e-25);

	out[0] = (float)(1.49e4 * exp(logf(diameter) * (1.31)));
	out[1] = out[0] / delz;
}

static NOINLINE int wp_numdt(const struct wp_par *c, float w2)
{
	int numdt = (int)trunc(w2 * c->dtcld + .5 + .5);

	return numdt > 1 ? numdt : 1;
}

/* Ice sedimentation, the top level: st = fallc_kp1 (updated); out = qi, falkc. */
static NOINLINE void wp_ice_top(const struct wp_par *c, float rmstep, float den, float qi, float w2,
				float *fallc_kp1, float out[2])
{
	float falkc = den * qi * w2 * rmstep;

	*fallc_kp1 = *fallc_kp1 + falkc;
	out[0] = (float)fmax(qi - falkc * c->dtcld / den, 0.);
	out[1] = falkc;
}

/* ... a level below (falkc_kp1, delz_kp1): fallc_k accumulates. */
static NOINLINE void wp_ice(const struct wp_par *c, float rmstep, float den, float qi, float w2,
			    float delz, float falkc_kp1, float delz_kp1, float *fallc_k,
			    float out[2])
{
	float falkc = den * qi * w2 * rmstep;

	*fallc_k = *fallc_k + falkc;
	out[0] = (float)fmax(qi - (falkc - falkc_kp1 * delz_kp1 / delz) * c->dtcld / den, 0.);
	out[1] = falkc;
}

/* Surface precipitation: in = fall1_k, fall2_k, fallc_k, delz[1], delz[0], rain, snow;
 * out = rainncv, rain, snowncv, snow, sr. */
static NOINLINE void wp_precip(const struct wp_par *c, const float in[7], float out[5])
{
	float fallsum = in[0] + in[1] + in[2], fallsum_qsi = in[1] + in[2];
	float rainncv = 0., rain = in[5], snowncv = 0., snow = in[6], sr = 0.;

	if (fallsum > 0.) {
		rainncv = (float)(fallsum * in[3] / denr * c->dtcld * 1000.);
		rain = (float)(fallsum * in[3] / denr * c->dtcld * 1000. + rain);
	}
	if (fallsum_qsi > 0.) {
		snowncv = (float)(fallsum_qsi * in[4] / denr * c->dtcld * 1000.);
		snow = (float)(fallsum_qsi * in[4] / denr * c->dtcld * 1000. + snow);
	}
	if (fallsum > 0.)
		sr = (float)(fallsum_qsi * in[4] / denr * c->dtcld * 1000. / (rainncv + 1.e-12));
	out[0] = rainncv;
	out[1] = rain;
	out[2] = snowncv;
	out[3] = snow;
	out[4] = sr;
}

/* The microphysics loop's registers at one level. */
struct wp_cell {
	float q, t, qr, qc, qs, qi, qs1, qs2, cpm, xl;
	float supcol, xlf;
};

/* Whether the rain-freezing term will read rsloper[k] (supcol > 0 && qr_k > 0 at entry). */
static NOINLINE bool wp_needs_rsloper(float t, float qr)
{
	float supcol = (float)(t0c - t);

	return supcol > 0. && qr > 0.;
}

/* Freezing and melting of cloud water and ice, freezing of rain (pimlt, pihmf, pihtf, psfrz);
 * returns bit 0: pihtf ran, bit 1: psfrz ran. */
static NOINLINE unsigned wp_freeze(const struct wp_par *c, struct wp_cell *s, float den,
				   float rsloper_old)
{
	unsigned ran = 0;

	s->supcol = (float)(t0c - s->t);
	s->xlf = (float)(xls - s->xl);
	if (s->supcol < 0.)
		s->xlf = (float)xlf0;
	if (s->supcol < 0 && s->qi > 0.) {
		s->qc = s->qc + s->qi;
		s->t = s->t - s->xlf / s->cpm * s->qi;
		s->qi = 0.;
	}
	if (s->supcol > 40. && s->qc > 0.) {
		s->qi = s->qi + s->qc;
		s->t = s->t + s->xlf / s->cpm * s->qc;
		s->qc = 0.;
	}
	if (s->supcol > 0. && s->qc > 0.) {
		float pfrzdtc = (float)fmin(pfrz1 * (exp(pfrz2 * s->supcol) - 1.) * den / denr /
						xncr * s->qc * s->qc * c->dtcld,
					    s->qc);

		s->qi = s->qi + pfrzdtc;
		s->t = s->t + s->xlf / s->cpm * pfrzdtc;
		s->qc = s->qc - pfrzdtc;
		ran |= 1;
	}
	if (s->supcol > 0. && s->qr > 0.) {
		float temp = rsloper_old, pfrzdtr;

		temp = temp * temp * temp * temp * temp * temp * temp;
		pfrzdtr = (float)fmin(20. * (pi * pi) * pfrz1 * n0r * denr / den *
					  (exp(pfrz2 * s->supcol) - 1.) * temp * c->dtcld,
				      s->qr);
		s->qs = s->qs + pfrzdtr;
		s->t = s->t + s->xlf / s->cpm * pfrzdtr;
		s->qr = s->qr - pfrzdtr;
		ran |= 2;
	}
	return ran;
}

/* Which of denfac, rh1, rh2 the processes will read (bits 0, 1, 2), from the state after
 * freezing (the conditions of pracw / psacw / psaci, prevp / psevp, pidep / psdep). */
static NOINLINE unsigned wp_needs(const struct wp_cell *s)
{
	unsigned need = 0;

	if ((s->qr > qcrmin && s->qc > qmin) || (s->qs > qcrmin && s->qc > qmin) ||
	    (s->supcol > 0 && s->qs > qcrmin && s->qi > qmin))
		need |= 1;
	if (s->qr > 0. || (s->supcol < 0. && s->qs > 0.))
		need |= 2;
	if (s->supcol > 0 && (s->qi > 0 || s->qs > 0.))
		need |= 4;
	return need;
}

/* Mass conservation of one species: when its rates would take more than there is (value) in
 * the step (source), they are all scaled down by value / source. */
static void wp_conserve(float value, float source, float *const *rate, int n)
{
	float factor;

	if (!(source > value))
		return;
	factor = value / source;
	for (int i = 0; i < n; i++)
		*rate[i] = *rate[i] * factor;
}

/* The warm and cold rain processes, mass conservation, update and condensation at one level.
 * sl: rsloper, rslopebr, rslope2r, rslope3r, rslopes, rslopebs, rslope2s, rslope3s, n0sfac;
 * returns xni[k]. */
static NOINLINE float wp_processes(const struct wp_par *c, struct wp_cell *s, const float sl[9],
				   float den, float p, float denfac, float rh1, float rh2)
{
	float rsloper = sl[0], rslopebr = sl[1], rslope2r = sl[2], rslope3r = sl[3];
	float rslopes = sl[4], rslopebs = sl[5], rslope2s = sl[6], rslope3s = sl[7];
	float n0sfac = sl[8], dtcld = c->dtcld, supcol = s->supcol;
	float prevp = 0., psdep = 0., praut = 0., psaut = 0., pracw = 0., psaci = 0.;
	float psacw = 0., pigen = 0., pidep = 0., pcond = 0., psevp = 0.;
	float q_k = s->q, t_k = s->t, qr_k = s->qr, qc_k = s->qc, qs_k = s->qs, qi_k = s->qi;
	float qs1_k = s->qs1, qs2_k = s->qs2, cpm_k = s->cpm, xl_k = s->xl, xlf;
	float w1_k, w2_k, w3_k, supsat, satdt, coeres, rdtcld, temp, eacrs, xni, tr;
	float xmi, diameter, vt2i, vt2s, acrfac, supice, xni0, roqi0, qimax, xlwork2;
	int ifsat;

	w1_k = (float)wp_diffac(xl_k, p, t_k, den, qs1_k);
	w2_k = (float)wp_diffac((float)xls, p, t_k, den, qs2_k);
	w3_k = (float)wp_venfac(p, t_k, den);
	/* warm rain processes */
	supsat = (float)(fmax(q_k, qmin) - qs1_k);
	satdt = supsat / dtcld;
	if (qc_k > c->qc0) {
		praut = (float)(c->qck1 * exp(logf(qc_k) * ((7. / 3.))));
		praut = fminf_(praut, qc_k / dtcld);
	}
	if (qr_k > qcrmin && qc_k > qmin)
		pracw = (float)fmin(c->pacrr * rslope3r * rslopebr * qc_k * denfac, qc_k / dtcld);
	if (qr_k > 0.) {
		coeres = rslope2r * sqrtf(rsloper * rslopebr);
		prevp =
		    (float)((rh1 - 1.) * (c->precr1 * rslope2r + c->precr2 * w3_k * coeres) / w1_k);
		if (prevp < 0.) {
			prevp = fmaxf_(prevp, -qr_k / dtcld);
			prevp = fmaxf_(prevp, satdt / 2);
		} else {
			prevp = fminf_(prevp, satdt / 2);
		}
	}
	/* cold rain processes */
	rdtcld = (float)(1. / dtcld);
	supsat = (float)(fmax(q_k, qmin) - qs2_k);
	satdt = supsat / dtcld;
	ifsat = 0;
	temp = (float)(den * fmax(qi_k, qmin));
	temp = sqrtf(sqrtf(temp * temp * temp));
	xni = (float)fmin(fmax(5.38e7 * temp, 1.e3), 1.e6);
	eacrs = (float)exp(0.07 * (-supcol));
	if (qs_k > qcrmin && qc_k > qmin)
		psacw = (float)fmin(c->pacrc * n0sfac * rslope3s * rslopebs * qc_k * denfac,
				    qc_k * rdtcld);
	if (supcol > 0) {
		if (qs_k > qcrmin && qi_k > qmin) {
			xmi = den * qi_k / xni;
			diameter = (float)fmin(dicon * sqrtf(xmi), dimax);
			vt2i = (float)(1.49e4 * powf(diameter, (float)1.31));
			vt2s = (float)(c->pvts * rslopebs * denfac);
			acrfac = (float)(2. * rslope3s + 2. * diameter * rslope2s +
					 diameter * diameter * rslopes);
			psaci = (float)(pi * qi_k * eacrs * n0s * n0sfac * fabsf(vt2s - vt2i) *
					acrfac * .25);
		}
		if (qi_k > 0 && ifsat != 1) {
			xmi = den * qi_k / xni;
			diameter = (float)(dicon * sqrtf(xmi));
			pidep = (float)(4. * diameter * xni * (rh2 - 1.) / w2_k);
			supice = satdt - prevp;
			if (pidep < 0.) {
				pidep = (float)fmax(fmax(pidep, satdt * .5), supice);
				pidep = fmaxf_(pidep, -qi_k * rdtcld);
			} else {
				pidep = (float)fmin(fmin(pidep, satdt * .5), supice);
			}
			if (fabsf(prevp + pidep) >= fabsf(satdt))
				ifsat = 1;
		}
		if (qs_k > 0. && ifsat != 1) {
			coeres = rslope2s * sqrtf(rslopes * rslopebs);
			psdep = (float)((rh2 - 1.) * n0sfac *
					(c->precs1 * rslope2s + c->precs2 * w3_k * coeres) / w2_k);
			supice = satdt - prevp - pidep;
			if (psdep < 0.) {
				psdep = fmaxf_(psdep, -qs_k * rdtcld);
				psdep = (float)fmax(fmax(psdep, satdt * .5), supice);
			} else {
				psdep = (float)fmin(fmin(psdep, satdt * .5), supice);
			}
			if (fabsf(prevp + pidep + psdep) >= fabsf(satdt))
				ifsat = 1;
		}
		if (supsat > 0 && ifsat != 1) {
			supice = satdt - prevp - pidep - psdep;
			xni0 = (float)(1.e3 * exp(0.1 * supcol));
			roqi0 = (float)(4.92e-11 * exp(logf(xni0) * (1.33)));
			pigen = (float)fmax(0., (roqi0 / den - fmax(qi_k, 0.)) * rdtcld);
			pigen = fminf_(fminf_(pigen, satdt), supice);
		}
		if (qi_k > 0.) {
			qimax = (float)(c->roqimax / den);
			psaut = (float)fmax(0., (qi_k - qimax) * rdtcld);
		}
	}
	if (supcol < 0.) {
		if (qs_k > 0. && rh1 < 1.)
			psevp = psdep * w2_k / w1_k;
		psevp = (float)fmin(fmaxf_(psevp, -qs_k * rdtcld), 0.);
	}
	/* mass conservation and update */
	if (t_k <= t0c) {
		wp_conserve((float)fmax(qmin, qc_k), (praut + pracw + psacw) * dtcld,
			    (float *const[]){&praut, &pracw, &psacw}, 3);
		wp_conserve((float)fmax(qmin, qi_k), (psaut + psaci - pigen - pidep) * dtcld,
			    (float *const[]){&psaut, &psaci, &pigen, &pidep}, 4);
		wp_conserve((float)fmax(qmin, qr_k), (-praut + pracw - prevp) * dtcld,
			    (float *const[]){&praut, &pracw, &prevp}, 3);
		wp_conserve((float)fmax(qmin, qs_k), (-psdep + psaut - psaci - psacw) * dtcld,
			    (float *const[]){&psdep, &psaut, &psaci, &psacw}, 4);
		w3_k = -(prevp + psdep + pigen + pidep);
		q_k = q_k + w3_k * dtcld;
		qc_k = (float)fmax(qc_k - (praut + pracw + psacw) * dtcld, 0.);
		qr_k = (float)fmax(qr_k + (praut + pracw + prevp) * dtcld, 0.);
		qi_k = (float)fmax(qi_k - (psaut + psaci - pigen - pidep) * dtcld, 0.);
		qs_k = (float)fmax(qs_k + (psdep + psaut + psaci + psacw) * dtcld, 0.);
		xlf = (float)(xls - xl_k);
		xlwork2 = (float)(-xls * (psdep + pidep + pigen) - xl_k * prevp - xlf * psacw);
		t_k = t_k - xlwork2 / cpm_k * dtcld;
	} else {
		wp_conserve((float)fmax(qmin, qc_k), (praut + pracw + psacw) * dtcld,
			    (float *const[]){&praut, &pracw, &psacw}, 3);
		wp_conserve((float)fmax(qmin, qr_k), (-praut - pracw - prevp - psacw) * dtcld,
			    (float *const[]){&praut, &pracw, &prevp, &psacw}, 4);
		wp_conserve((float)fmax(qcrmin, qs_k), (-psevp) * dtcld, (float *const[]){&psevp},
			    1);
		w3_k = -(prevp + psevp);
		q_k = q_k + w3_k * dtcld;
		qc_k = (float)fmax(qc_k - (praut + pracw + psacw) * dtcld, 0.);
		qr_k = (float)fmax(qr_k + (praut + pracw + prevp + psacw) * dtcld, 0.);
		qs_k = (float)fmax(qs_k + psevp * dtcld, 0.);
		xlf = (float)(xls - xl_k);
		xlwork2 = -xl_k * (prevp + psevp);
		t_k = t_k - xlwork2 / cpm_k * dtcld;
	}
	/* fpvs inline, then pcond */
	tr = c->ttp / t_k;
	qs1_k = (float)(psat * expf(logf(tr) * (c->xa)) * exp(c->xb * (1. - tr)));
	qs1_k = (float)(ep2 * qs1_k / (p - qs1_k));
	qs1_k = (float)fmax(qs1_k, qmin);
	w1_k = (float)((fmax(q_k, qmin) - (qs1_k)) /
		       (1. + (xl_k) * (xl_k) / (rv * (cpm_k)) * (qs1_k) / ((t_k) * (t_k))));
	pcond = (float)fmin(fmax(w1_k / dtcld, 0.), fmax(q_k, 0.) / dtcld);
	if (qc_k > 0. && w1_k < 0.)
		pcond = fmaxf_(w1_k, -qc_k) / dtcld;
	q_k = q_k - pcond * dtcld;
	qc_k = (float)fmax(qc_k + pcond * dtcld, 0.);
	t_k = t_k + pcond * xl_k / cpm_k * dtcld;
	if (qc_k <= qmin)
		qc_k = 0.0;
	if (qi_k <= qmin)
		qi_k = 0.0;
	s->q = q_k;
	s->t = t_k;
	s->qr = qr_k;
	s->qc = qc_k;
	s->qs = qs_k;
	s->qi = qi_k;
	s->qs1 = qs1_k;
	return xni;
}

/* ---- kernel --------------------------------------------------------------------------------- */

/* A warp's lanes: their columns and the guard. */
struct wp_warp {
	const struct wp_args *a;
	struct gpu_warp *w;
	int ig[WARP_LANES], jg[WARP_LANES];
	uint32_t mask;
};

static uint64_t wp_addr3(const struct wp_warp *x, int f, unsigned l, int k)
{
	const struct wp_args *a = x->a;

	return a->field[f] + 4 * ((uint64_t)x->ig[l] +
				  (uint64_t)a->nx * ((uint64_t)k + (uint64_t)a->nk * x->jg[l]));
}

static uint64_t wp_addr2(const struct wp_warp *x, int f, unsigned l)
{
	return x->a->field[f] + 4 * ((uint64_t)x->ig[l] + (uint64_t)x->a->nx * x->jg[l]);
}

/* Global loads and stores of field f at level k (k < 0: a 2-D field). */
static void wp_ldg(struct wp_warp *x, int f, int k, uint32_t mask, float *out)
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	if (!mask)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = (mask >> l & 1) ? (k < 0 ? wp_addr2(x, f, l) : wp_addr3(x, f, l, k)) : 0;
	gw_ld32v(x->w, addr, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			out[l] = wl_u2f(v[l]);
}

static void wp_stg(struct wp_warp *x, int f, int k, uint32_t mask, const float *val)
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	if (!mask)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++) {
		addr[l] = (mask >> l & 1) ? (k < 0 ? wp_addr2(x, f, l) : wp_addr3(x, f, l, k)) : 0;
		v[l] = (mask >> l & 1) ? wl_f2u(val[l]) : 0;
	}
	gw_st32v(x->w, addr, mask, v);
}

/* Local array arr at level k. */
static void wp_ldl(struct wp_warp *x, int arr, int k, uint32_t mask, float *out)
{
	uint32_t word[WARP_LANES], v[WARP_LANES];

	if (!mask)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		word[l] = (uint32_t)(arr * WP_MKX + k);
	gw_ld_localv(x->w, word, mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask >> l & 1)
			out[l] = wl_u2f(v[l]);
}

static void wp_stl(struct wp_warp *x, int arr, int k, uint32_t mask, const float *val)
{
	uint32_t word[WARP_LANES], v[WARP_LANES];

	if (!mask)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++) {
		word[l] = (uint32_t)(arr * WP_MKX + k);
		v[l] = (mask >> l & 1) ? wl_f2u(val[l]) : 0;
	}
	gw_st_localv(x->w, word, mask, v);
}

/* The lanes that take part in pass n of the per-column mstep passes (the sedimentation loops
 * "for (n = 1; n <= mstep; n++)" diverge); 0 once every lane is done. */
static uint32_t wp_pass_lanes(const struct wp_warp *x, const int *mstep, int n)
{
	uint32_t act = 0;

	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((x->mask >> l & 1) && n <= mstep[l])
			act |= 1u << l;
	return act;
}

/* What the sedimentation of rain and snow reads at level k, in wsm5_gpu.cu's order. */
static void wp_sed_load(struct wp_warp *x, int k, uint32_t act, float *den, float *qr, float *w1,
			float *qs, float *w2)
{
	wp_ldg(x, F_DEN, k, act, den);
	wp_ldg(x, F_QR, k, act, qr);
	wp_ldl(x, L_W1, k, act, w1);
	wp_ldg(x, F_QS, k, act, qs);
	wp_ldl(x, L_W2, k, act, w2);
}

/* Sedimentation of rain and snow and melting: mstep passes (per lane). */
static void wp_kernel_sed(struct wp_warp *x, const int *mstep, const float *rmstep, float *fall1,
			  float *fall2)
{
	const struct wp_par *c = &x->a->c;
	int nk = x->a->nk;
	float den[WARP_LANES], qr[WARP_LANES], qs[WARP_LANES], w1[WARP_LANES], w2[WARP_LANES];
	float delz[WARP_LANES], kp1[WARP_LANES][3], o[4];
	uint32_t act;

	for (int n = 1; (act = wp_pass_lanes(x, mstep, n)); n++) {
		int k = nk - 1;

		wp_sed_load(x, k, act, den, qr, w1, qs, w2);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (act >> l & 1) {
				wp_sed_top(c, rmstep[l], den[l], qr[l], w1[l], qs[l], w2[l], o);
				qr[l] = o[0];
				qs[l] = o[1];
				kp1[l][0] = o[2];
				kp1[l][1] = o[3];
			}
		gw_compute(x->w, WP_SED_TOP);
		wp_stg(x, F_QR, k, act, qr);
		wp_stg(x, F_QS, k, act, qs);
		wp_ldg(x, F_DELZ, k, act, delz);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (act >> l & 1)
				kp1[l][2] = delz[l];
		for (k = nk - 2; k >= 0; k--) {
			wp_sed_load(x, k, act, den, qr, w1, qs, w2);
			wp_ldg(x, F_DELZ, k, act, delz);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (act >> l & 1) {
					wp_sed(c, rmstep[l], den[l], qr[l], w1[l], qs[l], w2[l],
					       delz[l], kp1[l], o);
					qr[l] = o[0];
					qs[l] = o[1];
					fall1[l] = kp1[l][0] = o[2];
					fall2[l] = kp1[l][1] = o[3];
					kp1[l][2] = delz[l];
				}
			gw_compute(x->w, WP_SED);
			wp_stg(x, F_QR, k, act, qr);
			wp_stg(x, F_QS, k, act, qs);
		}
		/* melting: if (t[k] > t0c && qs[k] > 0.) */
		for (k = nk - 1; k >= 0; k--) {
			float t[WARP_LANES], in[WARP_LANES][10], out[4], v[WARP_LANES];
			uint32_t warm = 0, melt = 0;

			wp_ldl(x, L_T, k, act, t);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (act >> l & 1)
					if (t[l] > t0c)
						warm |= 1u << l;
			wp_ldg(x, F_QS, k, warm, qs);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (warm >> l & 1)
					if (qs[l] > 0.)
						melt |= 1u << l;
			gw_compute(x->w, WP_MELT_TEST);
			if (!melt)
				continue;
			wp_ldg(x, F_P, k, melt, v);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (melt >> l & 1)
					in[l][4] = v[l];
			wp_ldg(x, F_DEN, k, melt, v);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (melt >> l & 1)
					in[l][5] = v[l];
			for (int j = 0; j < 4; j++) {
				static const int arr[4] = {L_RSLOPE2S, L_RSLOPES, L_RSLOPEBS,
							   L_N0SFAC};

				wp_ldl(x, arr[j], arr[j] == L_RSLOPEBS ? 2 : k, melt, v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (melt >> l & 1)
						in[l][6 + j] = v[l];
			}
			wp_ldg(x, F_QR, k, melt, qr);
			wp_ldg(x, F_Q, k, melt, v);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (melt >> l & 1) {
					in[l][0] = t[l];
					in[l][1] = qs[l];
					in[l][2] = qr[l];
					in[l][3] = v[l];
					wp_melt(c, rmstep[l], in[l], out);
					w1[l] = out[0]; /* w3 */
					qs[l] = out[1];
					qr[l] = out[2];
					t[l] = out[3];
				}
			gw_compute(x->w, WP_MELT);
			wp_stl(x, L_W3, k, melt, w1);
			wp_stg(x, F_QS, k, melt, qs);
			wp_stg(x, F_QR, k, melt, qr);
			wp_stl(x, L_T, k, melt, t);
		}
	}
}

/* Ice fall speeds and mstep passes of ice sedimentation; returns fallc_k per lane. */
static void wp_kernel_ice(struct wp_warp *x, float *fallc)
{
	const struct wp_par *c = &x->a->c;
	int nk = x->a->nk, mstep[WARP_LANES];
	float rmstep[WARP_LANES], qi[WARP_LANES], den[WARP_LANES], xni[WARP_LANES];
	float delz[WARP_LANES], w1[WARP_LANES], w2[WARP_LANES], o[2];
	float falkc_kp1[WARP_LANES], fallc_kp1[WARP_LANES], delz_kp1[WARP_LANES];
	uint32_t act;

	for (unsigned l = 0; l < WARP_LANES; l++)
		if (x->mask >> l & 1) {
			mstep[l] = 1;
			fallc[l] = fallc_kp1[l] = 0.f; /* uninitialised in wsm5_gpu.cu */
		}
	for (int k = nk - 1; k >= 0; k--) {
		uint32_t pos = 0;

		wp_ldg(x, F_QI, k, x->mask, qi);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((x->mask >> l & 1) && qi[l] > 0.)
				pos |= 1u << l;
			else
				w2[l] = 0.;
		gw_compute(x->w, WP_ICE_TEST);
		if (pos) {
			wp_ldg(x, F_DEN, k, pos, den);
			wp_ldl(x, L_XNI, k, pos, xni);
			wp_ldg(x, F_DELZ, k, pos, delz);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (pos >> l & 1) {
					wp_ice_speed(den[l], qi[l], xni[l], delz[l], o);
					w1[l] = o[0];
					w2[l] = o[1];
				}
			gw_compute(x->w, WP_ICE_V);
			wp_stl(x, L_W1, k, pos, w1);
		}
		wp_stl(x, L_W2, k, x->mask, w2);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x->mask >> l & 1) {
				int numdt = wp_numdt(c, w2[l]);

				mstep[l] = numdt > mstep[l] ? numdt : mstep[l];
			}
	}
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (x->mask >> l & 1)
			rmstep[l] = wp_div(1.f, (float)mstep[l]);
	for (int n = 1; (act = wp_pass_lanes(x, mstep, n)); n++) {
		int k = nk - 1;

		wp_ldg(x, F_DEN, k, act, den);
		wp_ldg(x, F_QI, k, act, qi);
		wp_ldl(x, L_W2, k, act, w2);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (act >> l & 1) {
				wp_ice_top(c, rmstep[l], den[l], qi[l], w2[l], &fallc_kp1[l], o);
				qi[l] = o[0];
				falkc_kp1[l] = o[1];
			}
		gw_compute(x->w, WP_ICE_SED);
		wp_stg(x, F_QI, k, act, qi);
		wp_ldg(x, F_DELZ, k, act, delz_kp1);
		for (k = nk - 2; k >= 0; k--) {
			wp_ldg(x, F_DEN, k, act, den);
			wp_ldg(x, F_QI, k, act, qi);
			wp_ldl(x, L_W2, k, act, w2);
			wp_ldg(x, F_DELZ, k, act, delz);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (act >> l & 1) {
					wp_ice(c, rmstep[l], den[l], qi[l], w2[l], delz[l],
					       falkc_kp1[l], delz_kp1[l], &fallc[l], o);
					qi[l] = o[0];
					falkc_kp1[l] = o[1];
					delz_kp1[l] = delz[l];
					fallc_kp1[l] = fallc[l];
				}
			gw_compute(x->w, WP_ICE_SED);
			wp_stg(x, F_QI, k, act, qi);
		}
	}
}

/* What the microphysics loop loads at a level, and stores, in wsm5_gpu.cu's order. */
struct wp_cell_io {
	bool local;
	int src;
	size_t off;
};

static const struct wp_cell_io wp_cell_in[] = {
    {false, F_Q, offsetof(struct wp_cell, q)},	  {true, L_T, offsetof(struct wp_cell, t)},
    {false, F_QR, offsetof(struct wp_cell, qr)},  {false, F_QC, offsetof(struct wp_cell, qc)},
    {false, F_QS, offsetof(struct wp_cell, qs)},  {false, F_QI, offsetof(struct wp_cell, qi)},
    {true, L_QS1, offsetof(struct wp_cell, qs1)}, {true, L_QS2, offsetof(struct wp_cell, qs2)},
    {true, L_CPM, offsetof(struct wp_cell, cpm)}, {true, L_XL, offsetof(struct wp_cell, xl)},
};

static const struct wp_cell_io wp_cell_out[] = {
    {false, F_Q, offsetof(struct wp_cell, q)},	  {true, L_T, offsetof(struct wp_cell, t)},
    {false, F_QR, offsetof(struct wp_cell, qr)},  {false, F_QC, offsetof(struct wp_cell, qc)},
    {false, F_QS, offsetof(struct wp_cell, qs)},  {false, F_QI, offsetof(struct wp_cell, qi)},
    {true, L_QS1, offsetof(struct wp_cell, qs1)},
};

/* The microphysics loop over the levels. */
static void wp_kernel_micro(struct wp_warp *x)
{
	const struct wp_par *c = &x->a->c;
	static const int slope_arr[9] = {L_RSLOPER,  L_RSLOPEBR, L_RSLOPE2R, L_RSLOPE3R, L_RSLOPES,
					 L_RSLOPEBS, L_RSLOPE2S, L_RSLOPE3S, L_N0SFAC};

	for (int k = 0; k < x->a->nk; k++) {
		struct wp_cell s[WARP_LANES];
		float v[WARP_LANES], den[WARP_LANES], p[WARP_LANES], rsl[WARP_LANES];
		float sl[WARP_LANES][9], denfac[WARP_LANES], rh1[WARP_LANES], rh2[WARP_LANES];
		uint32_t m = x->mask, need_rsl = 0, need[3] = {0, 0, 0}, cold = 0;
		unsigned ran = 0, slope_r = 0, slope_s = 0;

		for (unsigned j = 0; j < sizeof(wp_cell_in) / sizeof(wp_cell_in[0]); j++) {
			const struct wp_cell_io *io = &wp_cell_in[j];

			if (io->local)
				wp_ldl(x, io->src, k, m, v);
			else
				wp_ldg(x, io->src, k, m, v);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (m >> l & 1)
					*(float *)((char *)&s[l] + io->off) = v[l];
		}
		wp_ldg(x, F_DEN, k, m, den);
		wp_ldg(x, F_P, k, m, p);
		/* freezing: psfrz reads the old rsloper[k] */
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1)
				if (wp_needs_rsloper(s[l].t, s[l].qr))
					need_rsl |= 1u << l;
		wp_ldl(x, L_RSLOPER, k, need_rsl, rsl);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1)
				ran |=
				    wp_freeze(c, &s[l], den[l], (need_rsl >> l & 1) ? rsl[l] : 0.f);
		gw_compute(x->w,
			   WP_FREEZE + (ran & 1 ? WP_FREEZE_C : 0) + (ran & 2 ? WP_FREEZE_R : 0));
		/* the slopes of the updated rain and snow, stored */
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1) {
				sl[l][8] = wp_n0sfac(s[l].supcol);
				slope_r |= wp_slope_r(c, s[l].qr, den[l], &sl[l][0]);
				slope_s |= wp_slope_s(c, s[l].qs, den[l], sl[l][8], &sl[l][4]);
			}
		gw_compute(x->w, WP_N0SFAC + (slope_r ? WP_SLOPE_R : WP_SLOPE_CONST) +
				     (slope_s ? WP_SLOPE_S : WP_SLOPE_CONST));
		for (int j = 0; j < 9; j++) {
			static const int order[9] = {8, 0, 1, 2, 3, 4, 5, 6, 7};

			for (unsigned l = 0; l < WARP_LANES; l++)
				if (m >> l & 1)
					v[l] = sl[l][order[j]];
			wp_stl(x, slope_arr[order[j]], k, m, v);
		}
		/* the processes' conditional reads of denfac, rh1, rh2 */
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1) {
				unsigned n = wp_needs(&s[l]);

				for (int j = 0; j < 3; j++)
					if (n >> j & 1)
						need[j] |= 1u << l;
				if (s[l].supcol > 0)
					cold |= 1u << l;
			}
		wp_ldl(x, L_DENFAC, k, need[0], denfac);
		wp_ldl(x, L_RH1, k, need[1], rh1);
		wp_ldl(x, L_RH2, k, need[2], rh2);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (m >> l & 1)
				v[l] = wp_processes(c, &s[l], sl[l], den[l], p[l],
						    (need[0] >> l & 1) ? denfac[l] : 0.f,
						    (need[1] >> l & 1) ? rh1[l] : 0.f,
						    (need[2] >> l & 1) ? rh2[l] : 0.f);
		gw_compute(x->w, WP_PROC + (cold ? WP_PROC_COLD : 0));
		wp_stl(x, L_XNI, k, m, v);
		for (unsigned j = 0; j < sizeof(wp_cell_out) / sizeof(wp_cell_out[0]); j++) {
			const struct wp_cell_io *io = &wp_cell_out[j];

			for (unsigned l = 0; l < WARP_LANES; l++)
				if (m >> l & 1)
					v[l] = *(const float *)((const char *)&s[l] + io->off);
			if (io->local)
				wp_stl(x, io->src, k, m, v);
			else
				wp_stg(x, io->src, k, m, v);
		}
	}
}

static void wp_kernel(struct gpu_warp *w)
{
	struct wp_warp x = {.a = gw_args(w), .w = w};
	const struct wp_args *a = x.a;
	const struct wp_par *c = &a->c;
	int nk = a->nk;
	float f[4][WARP_LANES] = {{0}};

	for (unsigned l = 0; l < WARP_LANES; l++) {
		x.ig[l] = (int)(gw_cta_x(w) * gw_block_x(w) + gw_thread_x(w, l));
		x.jg[l] = (int)(gw_cta_y(w) * WP_BY + gw_thread_y(w, l));
		if (x.ig[l] < a->nx && x.jg[l] < a->ny)
			x.mask |= 1u << l;
	}
	gw_compute(w, WP_PROLOGUE);
	if (!x.mask)
		return;
	/* t = th * pii */
	for (int k = 0; k < nk; k++) {
		wp_ldg(&x, F_TH, k, x.mask, f[0]);
		wp_ldg(&x, F_PII, k, x.mask, f[1]);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1)
				f[2][l] = wp_mul(f[0][l], f[1][l]);
		gw_compute(w, WP_T);
		wp_stl(&x, L_T, k, x.mask, f[2]);
	}
	/* negative hydrometeors clamped to 0 */
	for (int k = 0; k < nk; k++) {
		static const int fld[4] = {F_QC, F_QI, F_QR, F_QS};
		uint32_t neg[4] = {0, 0, 0, 0};

		for (int j = 0; j < 4; j++) {
			wp_ldg(&x, fld[j], k, x.mask, f[j]);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (x.mask >> l & 1)
					if (f[j][l] < 0.) {
						neg[j] |= 1u << l;
						f[j][l] = 0.;
					}
		}
		gw_compute(w, WP_CLAMP);
		for (int j = 0; j < 4; j++)
			wp_stg(&x, fld[j], k, neg[j], f[j]);
	}
	/* cpm[k] = CPMCAL(q[k]); xl[k] = XLCAL(t[k]) */
	for (int k = 0; k < nk; k++) {
		wp_ldg(&x, F_Q, k, x.mask, f[0]);
		wp_ldl(&x, L_T, k, x.mask, f[1]);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1)
				wp_cpm_xl(c, f[0][l], f[1][l], &f[2][l], &f[3][l]);
		gw_compute(w, WP_CPM);
		wp_stl(&x, L_CPM, k, x.mask, f[2]);
		wp_stl(&x, L_XL, k, x.mask, f[3]);
	}
	for (int loop = 1; loop <= c->loops; loop++) {
		int mstep[WARP_LANES];
		float rmstep[WARP_LANES], fall1[WARP_LANES], fall2[WARP_LANES];
		float fallc[WARP_LANES], g[WARP_LANES][4];
		float in[WARP_LANES][7], out[5], delz1[WARP_LANES] = {0}, delz0[WARP_LANES] = {0};
		uint32_t rain = 0, snow = 0;

		/* saturation */
		for (int k = 0; k < nk; k++) {
			wp_ldg(&x, F_P, k, x.mask, f[0]);
			wp_ldl(&x, L_T, k, x.mask, f[1]);
			wp_ldg(&x, F_Q, k, x.mask, f[2]);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (x.mask >> l & 1)
					wp_sat(c, f[0][l], f[1][l], f[2][l], g[l]);
			gw_compute(w, WP_SAT);
			for (int j = 0; j < 4; j++) {
				static const int arr[4] = {L_QS1, L_RH1, L_QS2, L_RH2};

				for (unsigned l = 0; l < WARP_LANES; l++)
					if (x.mask >> l & 1)
						f[3][l] = g[l][j];
				wp_stl(&x, arr[j], k, x.mask, f[3]);
			}
		}
		/* xni[k] = 1.e3 */
		for (int k = 0; k < nk; k++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (x.mask >> l & 1)
					f[0][l] = 1.e3f;
			wp_stl(&x, L_XNI, k, x.mask, f[0]);
		}
		/* slopes, fall speeds, mstep, xni */
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1)
				mstep[l] = 1;
		for (int k = 0; k < nk; k++) {
			float t[WARP_LANES], qr[WARP_LANES], qs[WARP_LANES], den[WARP_LANES];
			float delz[WARP_LANES], qi[WARP_LANES], sr[WARP_LANES][4],
			    ss[WARP_LANES][4];
			float n0[WARP_LANES];
			unsigned any_r = 0, any_s = 0;

			wp_ldl(&x, L_T, k, x.mask, t);
			wp_ldg(&x, F_QR, k, x.mask, qr);
			wp_ldg(&x, F_QS, k, x.mask, qs);
			wp_ldg(&x, F_DEN, k, x.mask, den);
			wp_ldg(&x, F_DELZ, k, x.mask, delz);
			wp_ldg(&x, F_QI, k, x.mask, qi);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (x.mask >> l & 1) {
					int numdt;

					n0[l] = wp_n0sfac((float)(t0c - t[l]));
					any_r |= wp_slope_r(c, qr[l], den[l], sr[l]);
					any_s |= wp_slope_s(c, qs[l], den[l], n0[l], ss[l]);
					wp_fall_speed(c, den[l], delz[l], qi[l], sr[l][1], ss[l][1],
						      g[l], &numdt);
					if (numdt >= mstep[l])
						mstep[l] = numdt;
				}
			gw_compute(w, WP_N0SFAC + (any_r ? WP_SLOPE_R : WP_SLOPE_CONST) +
					  (any_s ? WP_SLOPE_S : WP_SLOPE_CONST) + WP_SLOPES_REST);
			wp_stl(&x, L_N0SFAC, k, x.mask, n0);
			for (int j = 0; j < 4; j++) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (x.mask >> l & 1)
						f[0][l] = sr[l][j];
				wp_stl(&x, L_RSLOPER + j, k, x.mask, f[0]);
			}
			for (int j = 0; j < 4; j++) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (x.mask >> l & 1)
						f[0][l] = ss[l][j];
				wp_stl(&x, L_RSLOPES + j, k, x.mask, f[0]);
			}
			for (int j = 0; j < 4; j++) {
				static const int arr[4] = {L_DENFAC, L_W1, L_W2, L_XNI};

				for (unsigned l = 0; l < WARP_LANES; l++)
					if (x.mask >> l & 1)
						f[0][l] = g[l][j];
				wp_stl(&x, arr[j], k, x.mask, f[0]);
			}
		}
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1)
				rmstep[l] = wp_div(1.f, (float)mstep[l]);
		wp_kernel_sed(&x, mstep, rmstep, fall1, fall2);
		wp_kernel_ice(&x, fallc);
		/* surface precipitation */
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1) {
				in[l][0] = fall1[l];
				in[l][1] = fall2[l];
				in[l][2] = fallc[l];
				if (fall1[l] + fall2[l] + fallc[l] > 0.)
					rain |= 1u << l;
				if (fall2[l] + fallc[l] > 0.)
					snow |= 1u << l;
			}
		wp_ldg(&x, F_DELZ, 1, rain, delz1);
		wp_ldg(&x, F_RAIN, -1, rain, f[0]);
		wp_ldg(&x, F_DELZ, 0, rain | snow, delz0);
		wp_ldg(&x, F_SNOW, -1, snow, f[1]);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1) {
				in[l][3] = delz1[l];
				in[l][4] = delz0[l];
				in[l][5] = f[0][l];
				in[l][6] = f[1][l];
				wp_precip(c, in[l], out);
				f[0][l] = out[0];
				f[1][l] = out[1];
				f[2][l] = out[2];
				f[3][l] = out[3];
				g[l][0] = out[4];
			}
		gw_compute(w, WP_PRECIP);
		wp_stg(&x, F_RAINNCV, -1, x.mask, f[0]);
		wp_stg(&x, F_RAIN, -1, rain, f[1]);
		wp_stg(&x, F_SNOWNCV, -1, x.mask, f[2]);
		wp_stg(&x, F_SNOW, -1, snow, f[3]);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1)
				f[0][l] = g[l][0];
		wp_stg(&x, F_SR, -1, x.mask, f[0]);
		wp_kernel_micro(&x);
	}
	/* th = t / pii */
	for (int k = 0; k < nk; k++) {
		wp_ldl(&x, L_T, k, x.mask, f[0]);
		wp_ldg(&x, F_PII, k, x.mask, f[1]);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (x.mask >> l & 1)
				f[2][l] = wp_div(f[0][l], f[1][l]);
		gw_compute(w, WP_TH);
		wp_stg(&x, F_TH, k, x.mask, f[2]);
	}
}

/* ---- host reference: one column ------------------------------------------------------------ */

/* The column program on the host fields (fld[f] points at the column's level 0; stride: the
 * distance between levels), the local arrays in loc[WP_LOCALS][WP_MKX]. */
struct wp_stats {
	int mstep_max, ice_mstep_max;
	uint64_t melts, cold_levels;
};

static void wp_column(const struct wp_par *c, int nk, float *const *fld, size_t stride,
		      float loc[WP_LOCALS][WP_MKX], struct wp_stats *st)
{
#define G(f, k) fld[f][(size_t)(k)*stride]
	float g[4], o[4];
	int mstep;

	for (int k = 0; k < nk; k++)
		loc[L_T][k] = wp_mul(G(F_TH, k), G(F_PII, k));
	for (int k = 0; k < nk; k++) {
		static const int fl[4] = {F_QC, F_QI, F_QR, F_QS};

		for (int j = 0; j < 4; j++)
			if (G(fl[j], k) < 0.)
				G(fl[j], k) = 0.;
	}
	for (int k = 0; k < nk; k++)
		wp_cpm_xl(c, G(F_Q, k), loc[L_T][k], &loc[L_CPM][k], &loc[L_XL][k]);
	for (int loop = 1; loop <= c->loops; loop++) {
		float rmstep, fall1 = 0, fall2 = 0, fallc = 0, fallc_kp1 = 0, falkc_kp1 = 0;
		float delz_kp1, kp1[3], in[10], out[5];

		for (int k = 0; k < nk; k++) {
			wp_sat(c, G(F_P, k), loc[L_T][k], G(F_Q, k), g);
			loc[L_QS1][k] = g[0];
			loc[L_RH1][k] = g[1];
			loc[L_QS2][k] = g[2];
			loc[L_RH2][k] = g[3];
		}
		for (int k = 0; k < nk; k++)
			loc[L_XNI][k] = 1.e3f;
		mstep = 1;
		for (int k = 0; k < nk; k++) {
			float sr[4], ss[4];
			int numdt;

			loc[L_N0SFAC][k] = wp_n0sfac((float)(t0c - loc[L_T][k]));
			wp_slope_r(c, G(F_QR, k), G(F_DEN, k), sr);
			wp_slope_s(c, G(F_QS, k), G(F_DEN, k), loc[L_N0SFAC][k], ss);
			wp_fall_speed(c, G(F_DEN, k), G(F_DELZ, k), G(F_QI, k), sr[1], ss[1], g,
				      &numdt);
			for (int j = 0; j < 4; j++) {
				loc[L_RSLOPER + j][k] = sr[j];
				loc[L_RSLOPES + j][k] = ss[j];
			}
			loc[L_DENFAC][k] = g[0];
			loc[L_W1][k] = g[1];
			loc[L_W2][k] = g[2];
			loc[L_XNI][k] = g[3];
			if (numdt >= mstep)
				mstep = numdt;
		}
		rmstep = wp_div(1.f, (float)mstep);
		st->mstep_max = mstep > st->mstep_max ? mstep : st->mstep_max;
		for (int n = 1; n <= mstep; n++) {
			int k = nk - 1;

			wp_sed_top(c, rmstep, G(F_DEN, k), G(F_QR, k), loc[L_W1][k], G(F_QS, k),
				   loc[L_W2][k], o);
			G(F_QR, k) = o[0];
			G(F_QS, k) = o[1];
			kp1[0] = o[2];
			kp1[1] = o[3];
			kp1[2] = G(F_DELZ, k);
			for (k = nk - 2; k >= 0; k--) {
				wp_sed(c, rmstep, G(F_DEN, k), G(F_QR, k), loc[L_W1][k], G(F_QS, k),
				       loc[L_W2][k], G(F_DELZ, k), kp1, o);
				G(F_QR, k) = o[0];
				G(F_QS, k) = o[1];
				fall1 = kp1[0] = o[2];
				fall2 = kp1[1] = o[3];
				kp1[2] = G(F_DELZ, k);
			}
			for (k = nk - 1; k >= 0; k--) {
				if (!(loc[L_T][k] > t0c && G(F_QS, k) > 0.))
					continue;
				in[0] = loc[L_T][k];
				in[1] = G(F_QS, k);
				in[2] = G(F_QR, k);
				in[3] = G(F_Q, k);
				in[4] = G(F_P, k);
				in[5] = G(F_DEN, k);
				in[6] = loc[L_RSLOPE2S][k];
				in[7] = loc[L_RSLOPES][k];
				in[8] = loc[L_RSLOPEBS][2];
				in[9] = loc[L_N0SFAC][k];
				wp_melt(c, rmstep, in, o);
				st->melts++;
				loc[L_W3][k] = o[0];
				G(F_QS, k) = o[1];
				G(F_QR, k) = o[2];
				loc[L_T][k] = o[3];
			}
		}
		mstep = 1;
		for (int k = nk - 1; k >= 0; k--) {
			if (G(F_QI, k) <= 0.) {
				loc[L_W2][k] = 0.;
			} else {
				wp_ice_speed(G(F_DEN, k), G(F_QI, k), loc[L_XNI][k], G(F_DELZ, k),
					     o);
				loc[L_W1][k] = o[0];
				loc[L_W2][k] = o[1];
			}
			if (wp_numdt(c, loc[L_W2][k]) > mstep)
				mstep = wp_numdt(c, loc[L_W2][k]);
		}
		rmstep = wp_div(1.f, (float)mstep);
		st->ice_mstep_max = mstep > st->ice_mstep_max ? mstep : st->ice_mstep_max;
		for (int n = 1; n <= mstep; n++) {
			int k = nk - 1;

			wp_ice_top(c, rmstep, G(F_DEN, k), G(F_QI, k), loc[L_W2][k], &fallc_kp1, o);
			G(F_QI, k) = o[0];
			falkc_kp1 = o[1];
			delz_kp1 = G(F_DELZ, k);
			for (k = nk - 2; k >= 0; k--) {
				wp_ice(c, rmstep, G(F_DEN, k), G(F_QI, k), loc[L_W2][k],
				       G(F_DELZ, k), falkc_kp1, delz_kp1, &fallc, o);
				G(F_QI, k) = o[0];
				falkc_kp1 = o[1];
				delz_kp1 = G(F_DELZ, k);
				fallc_kp1 = fallc;
			}
		}
		in[0] = fall1;
		in[1] = fall2;
		in[2] = fallc;
		in[3] = G(F_DELZ, 1);
		in[4] = G(F_DELZ, 0);
		in[5] = fld[F_RAIN][0];
		in[6] = fld[F_SNOW][0];
		wp_precip(c, in, out);
		fld[F_RAINNCV][0] = out[0];
		fld[F_RAIN][0] = out[1];
		fld[F_SNOWNCV][0] = out[2];
		fld[F_SNOW][0] = out[3];
		fld[F_SR][0] = out[4];
		for (int k = 0; k < nk; k++) {
			struct wp_cell s = {.q = G(F_Q, k),
					    .t = loc[L_T][k],
					    .qr = G(F_QR, k),
					    .qc = G(F_QC, k),
					    .qs = G(F_QS, k),
					    .qi = G(F_QI, k),
					    .qs1 = loc[L_QS1][k],
					    .qs2 = loc[L_QS2][k],
					    .cpm = loc[L_CPM][k],
					    .xl = loc[L_XL][k]};
			float den = G(F_DEN, k), sl[9];
			unsigned need;

			wp_freeze(c, &s, den,
				  wp_needs_rsloper(s.t, s.qr) ? loc[L_RSLOPER][k] : 0.f);
			sl[8] = wp_n0sfac(s.supcol);
			wp_slope_r(c, s.qr, den, &sl[0]);
			wp_slope_s(c, s.qs, den, sl[8], &sl[4]);
			for (int j = 0; j < 4; j++) {
				loc[L_RSLOPER + j][k] = sl[j];
				loc[L_RSLOPES + j][k] = sl[4 + j];
			}
			loc[L_N0SFAC][k] = sl[8];
			need = wp_needs(&s);
			st->cold_levels += s.supcol > 0;
			loc[L_XNI][k] = wp_processes(
			    c, &s, sl, den, G(F_P, k), need & 1 ? loc[L_DENFAC][k] : 0.f,
			    need & 2 ? loc[L_RH1][k] : 0.f, need & 4 ? loc[L_RH2][k] : 0.f);
			G(F_Q, k) = s.q;
			loc[L_T][k] = s.t;
			G(F_QR, k) = s.qr;
			G(F_QC, k) = s.qc;
			G(F_QS, k) = s.qs;
			G(F_QI, k) = s.qi;
			loc[L_QS1][k] = s.qs1;
		}
	}
	for (int k = 0; k < nk; k++)
		G(F_TH, k) = wp_div(loc[L_T][k], G(F_PII, k));
#undef G
}

/* ---- input ---------------------------------------------------------------------------------- */

static double wp_qsat(double t, double p)
{
	double es = 611.2 * exp(17.67 * (t - 273.15) / (t - 29.65));

	return 0.622 * es / (p - es);
}

/* Seeded columns: f[field] arrays of nx * nk * ny (ikj) or nx * ny (ij). */
static void wp_input(float *const *f, int nx, int ny, int nk, uint64_t seed)
{
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++) {
			uint64_t col = (uint64_t)j * nx + i;
			double tsfc = 276.0 + 8.0 * sin(0.21 * i) * cos(0.17 * j) +
				      3.0 * (wl_unit(seed, 1, col) - 0.5);
			double ps = 101000.0 - 3000.0 * wl_unit(seed, 2, col), z = 0;

			for (int k = 0; k < nk; k++) {
				size_t x = (size_t)i + (size_t)nx * ((size_t)k + (size_t)nk * j);
				uint64_t id = col * 64 + (uint64_t)k;
				double dz = (60.0 + 45.0 * k) * (0.9 + 0.2 * wl_unit(seed, 3, id));
				double zm = z + dz / 2, t = tsfc - 0.0065 * zm, p, pii, rh;
				double qs_sat;

				z += dz;
				if (t < 212.0)
					t = 212.0;
				p = ps * exp(-zm / 7500.0);
				pii = pow(p / 1.0e5, 287.0 / 1004.0);
				rh = 0.5 + 0.55 * wl_unit(seed, 4, id);
				qs_sat = wp_qsat(t, p);
				f[F_DELZ][x] = (float)dz;
				f[F_P][x] = (float)p;
				f[F_PII][x] = (float)pii;
				f[F_TH][x] = (float)(t / pii);
				f[F_DEN][x] = (float)(p / (287.0 * t));
				f[F_Q][x] = (float)(rh * qs_sat);
				f[F_QC][x] = (rh > 0.85 && t > 228.0 && wl_unit(seed, 5, id) < 0.7)
						 ? (float)(1e-3 * wl_unit(seed, 6, id))
						 : 0.f;
				f[F_QI][x] = (t < 268.0 && wl_unit(seed, 7, id) < 0.6)
						 ? (float)(3e-4 * wl_unit(seed, 8, id))
						 : 0.f;
				f[F_QR][x] = wl_unit(seed, 9, id) < 0.5
						 ? (float)(5e-4 * wl_unit(seed, 10, id))
						 : 0.f;
				f[F_QS][x] = (t < 278.0 && wl_unit(seed, 11, id) < 0.6)
						 ? (float)(4e-4 * wl_unit(seed, 12, id))
						 : 0.f;
				/* advection leaves tiny negative values for the kernel to clamp */
				if (wl_unit(seed, 13, id) < 0.05)
					f[F_QC + (int)(4 * wl_unit(seed, 14, id))][x] =
					    (float)(-1e-9 * wl_unit(seed, 15, id));
			}
			f[F_RAIN][col] = (float)(5.0 * wl_unit(seed, 16, col));
			f[F_SNOW][col] = (float)(2.0 * wl_unit(seed, 17, col));
			f[F_RAINNCV][col] = f[F_SR][col] = f[F_SNOWNCV][col] = 0.f;
		}
}

int ispass_wp_main(struct gpu_host *h)
{
	bool full = gh_size(h) == GPU_SIZE_FULL;
	struct wp_args a = {
	    .nx = full ? 71 : (int)wl_by_size(h, 10, 32, 71),
	    .ny = full ? 58 : (int)wl_by_size(h, 6, 24, 58),
	    .nk = full ? 27 : (int)wl_by_size(h, 8, 20, 27),
	};
	float delt = 180.f; /* jan00: 30 km, 180 s (two minor steps of 90 s) */
	struct gpu_kernel kern = {
	    .name = "wsm5_gpu",
	    .warps_per_cta = WP_BX * WP_BY / WARP_LANES,
	    .regs_per_thread = 63,
	    .fn = wp_kernel,
	    .args = &a,
	    .block_x = WP_BX,
	    .local_bytes = WP_LOCALS * WP_MKX * 4,
	};
	uint64_t seed = gh_seed(h) ^ TAG_WP;
	size_t n3 = (size_t)a.nx * a.nk * a.ny, n2 = (size_t)a.nx * a.ny;
	float *fld[WP_FIELDS] = {NULL}, *got = malloc(n3 * sizeof(float));
	float(*loc)[WP_MKX] = malloc(sizeof(float[WP_LOCALS][WP_MKX]));
	struct wp_stats st = {0, 0, 0, 0};
	int err = -CS_ENOMEM;

	kern.grid_x = (unsigned)(a.nx + WP_BX - 1) / WP_BX;
	kern.grid_y = (unsigned)(a.ny + WP_BY - 1) / WP_BY;
	wp_par_init(&a.c, delt);
	for (int f = 0; f < WP_FIELDS; f++) {
		fld[f] = malloc((f < WP_FIELDS3 ? n3 : n2) * sizeof(float));
		if (!fld[f])
			goto out;
	}
	if (!got || !loc)
		goto out;
	wp_input(fld, a.nx, a.ny, a.nk, seed);
	for (int f = 0; f < WP_FIELDS; f++)
		a.field[f] = wl_upload(h, fld[f], (f < WP_FIELDS3 ? n3 : n2) * sizeof(float));
	err = gh_launch(h, &kern);
	if (err)
		goto out;
	gh_corrupt(h,
		   a.field[F_TH] +
		       4 * ((size_t)a.nx / 2 +
			    (size_t)a.nx * ((size_t)a.nk / 2 + (size_t)a.nk * (a.ny / 2))),
		   4);
	/* the reference, column by column */
	for (int j = 0; j < a.ny; j++)
		for (int i = 0; i < a.nx; i++) {
			float *col[WP_FIELDS];

			for (int f = 0; f < WP_FIELDS; f++)
				col[f] =
				    fld[f] + (f < WP_FIELDS3 ? (size_t)i + (size_t)a.nx * a.nk * j
							     : (size_t)i + (size_t)a.nx * j);
			memset(loc, 0, sizeof(float[WP_LOCALS][WP_MKX]));
			wp_column(&a.c, a.nk, col, (size_t)a.nx, loc, &st);
		}
	for (int f = 0; f < WP_FIELDS; f++) {
		size_t n = f < WP_FIELDS3 ? n3 : n2, bad = 0, first = 0;

		gh_read(h, a.field[f], got, n * sizeof(float));
		for (size_t x = 0; x < n; x++)
			if (wl_f2u(got[x]) != wl_f2u(fld[f][x]) && bad++ == 0)
				first = x;
		if (!bad)
			continue;
		if (f < WP_FIELDS3)
			err = gh_fail(
			    h,
			    "wp: %s of column (%zu, %zu) level %zu = %.9g, want %.9g (%zu "
			    "of %zu values differ)",
			    wp_field_name[f], first % a.nx, first / ((size_t)a.nx * a.nk),
			    first / a.nx % a.nk, (double)got[first], (double)fld[f][first], bad, n);
		else
			err = gh_fail(h,
				      "wp: %s of column (%zu, %zu) = %.9g, want %.9g (%zu of %zu "
				      "values differ)",
				      wp_field_name[f], first % a.nx, first / a.nx,
				      (double)got[first], (double)fld[f][first], bad, n);
		goto out;
	}
	gh_note(h,
		"wp: %dx%d columns of %d levels, %u x %u CTAs of 8x8, dt %.0f s in %d minor steps; "
		"th, q, qc, qi, qr, qs and the five surface fields bit-exact (sedimentation steps "
		"up to %d, ice up to %d; %" PRIu64 " snow-melting and %" PRIu64
		" below-freezing level updates)",
		a.nx, a.ny, a.nk, kern.grid_x, kern.grid_y, (double)delt, a.c.loops, st.mstep_max,
		st.ice_mstep_max, st.melts, st.cold_levels);
	err = 0;
out:
	for (int f = 0; f < WP_FIELDS; f++)
		free(fld[f]);
	free(got);
	free(loc);
	return err;
}
