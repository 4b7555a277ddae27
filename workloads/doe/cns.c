/*
 * workloads/doe/cns.c - CNS, the compressible Navier-Stokes proxy of the ExaCT co-design center
 * (CNS_NoSpec, advance.f90: ctoprim, diffterm, hypterm, update_rk3), in the GPU form of the
 * US DOE proxy applications of Villa et al. (SC'14) used by the selective-caching study: a
 * kernel per loop nest, a 2-D grid of CTAs over the x-y plane, each thread marching along z.
 *
 * The state: 5 conserved variables (density, x/y/z momentum, energy) on a periodic nx x ny x nz
 * box of cells with 4 ghost cells on every side (the stencils are 8th order: +-4 cells),
 * stored as Fortran does (x fastest, then y, z, one array per component). One time step is
 * CNS's third-order Runge-Kutta (advance_rk3): three evaluations of dU/dt, each
 * - fill_boundary: the ghost cells of the stage's state from the periodic images;
 * - ctoprim: the 6 primitive variables (rho, u, v, w, p, T) on the whole ghosted box;
 * - diffterm's first loops as three kernels: the 8th-order first derivatives of u, v, w along
 *   x (on the interior in x, the ghosted range in y and z), along y and along z (ux ... wz);
 * - diffterm: the viscous and conductive fluxes (loops 4-7 fused: the second derivatives of u,
 *   v, w, T along each axis, the cross derivatives of the first derivatives, the mechanical
 *   work) on the interior;
 * - hypterm: the convective fluxes, the three directions' flux differences summed in CNS's
 *   order, on the interior;
 * - update_rk3: U' = D + F and Unew = a U1 + b U2 + c U'.
 * Every kernel has CTAs of 16 x 8 threads (4 warps: two rows of 16 cells each) over its x-y
 * range; a thread loops over its z range. A warp's load of a stencil point is two 128-byte row
 * segments; the x-stencil's neighbours fall in the same lines, the y and z ones in other rows
 * and planes, which the L1 and L2 may still hold from the warp's earlier steps and its
 * neighbours.
 *
 * No sharing within a kernel: each kernel writes arrays the next one reads. No coherence
 * needed.
 *
 * Deviations: the GPU code of the SC'14 study is not published; the kernel split and the CTA
 * shape are this port's (the loop nests of advance.f90 and their ranges are CNS's). The time
 * step is fixed by the host from the initial state's Courant number (cfl 0.5), instead of the
 * first stage's max-reduction in ctoprim. The initial state is CNS's init_data_3d with the
 * origin of the sine waves shifted by a seeded number of cells.
 *
 * Check: a host reference runs the same step through the same functions (stencils, fluxes,
 * updates) in the same order, so every conserved variable of every cell after the step must be
 * bit-exact.
 */
#include "workloads/doe/doe.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/port_util.h"
#include "workloads/wl_util.h"

#define TAG_CNS	  0x636e730000000000ull
#define CNS_NG	  4  /* ghost cells */
#define CNS_BX	  16 /* CTA: 16 x 8 threads */
#define CNS_BY	  8
#define CNS_WARPS (CNS_BX * CNS_BY / WARP_LANES)
#define CNS_NC	  5 /* conserved variables */
#define CNS_NP	  6 /* primitive variables */

/* CNS's coefficients: 8th-order first and second derivatives, and the gas. */
#define CNS_ALP	    0.8
#define CNS_BET	    (-0.2)
#define CNS_GAM	    (4.0 / 105.0)
#define CNS_DEL	    (-1.0 / 280.0)
#define CNS_CENTER  (-205.0 / 72.0)
#define CNS_OFF1    (8.0 / 5.0)
#define CNS_OFF2    (-0.2)
#define CNS_OFF3    (8.0 / 315.0)
#define CNS_OFF4    (-1.0 / 560.0)
#define CNS_GAMMA   1.4
#define CNS_CV	    8.3333333333e6
#define CNS_ETA	    1.8e-4
#define CNS_ALAM    1.5e2
#define CNS_CFL	    0.5
#define CNS_THIRD   (1.0 / 3.0)
#define CNS_2THIRDS (2.0 / 3.0)
#define CNS_4THIRDS (4.0 / 3.0)

/*
 * Issue slots per warp and z step (SASS-like counts for sm_20, double precision: a DP
 * instruction counts 8 slots, the GTX 480's 1/8 rate; each kernel's per-step addressing and
 * loop ~10-40 integer slots):
 * fill_boundary: the ghost test and three periodic wraps: 20;
 * ctoprim: 1/rho (a DP division ~10), 3 DMUL, eint (6), p (2), T (1): 22 DP + 8 = 184;
 * first derivative: 4 DADD, DMUL + 3 DFMA, DMUL: 9 DP; three per kernel: 27 DP + 10 = 226;
 * diffterm: 12 second derivatives (10 DP each), 6 cross first derivatives (9 each), the three
 *   momentum fluxes (6 each), divergence, stresses and work, the energy flux (22): 214 DP + 40
 *   = 1752;
 * hypterm, per direction: mass (10 DP), the momentum of that direction with pressure (22), the
 *   two others (14 each), energy (26): 86 DP; three: 258 DP + 40 = 2104;
 * update_rk3: per variable D + F, DMUL + 2 DFMA: 20 DP + 10 = 170.
 */
#define CNS_DP	     8
#define CNS_FILL     20
#define CNS_CTOPRIM  (22 * CNS_DP + 8)
#define CNS_DERIV    (27 * CNS_DP + 10)
#define CNS_DIFFTERM (214 * CNS_DP + 40)
#define CNS_HYPTERM  (258 * CNS_DP + 40)
#define CNS_UPDATE   (20 * CNS_DP + 10)

/* Box geometry: ghosted arrays (x fastest) of gx * gy * gz cells per component, interior ones
 * of nx * ny * nz. */
struct cns_geom {
	int nx, ny, nz, gx, gy, gz;
	uint64_t gcells, icells;
};

struct cns_args {
	struct cns_geom g;
	uint64_t ucur;	       /* the stage's state (ghosted, 5 components) */
	uint64_t q;	       /* primitives (ghosted, 6) */
	uint64_t deriv;	       /* ux vx wx uy vy wy uz vz wz (ghosted, 9) */
	uint64_t d, f;	       /* diffusive and hyperbolic terms (interior, 5 each) */
	uint64_t u1, u2, unew; /* update_rk3's operands (ghosted, 5) */
	double dxinv[3], ca, cb, cc;
	/* this launch's range: x in [xlo, xlo + xn), y in [ylo, ylo + yn), z in [klo, khi) */
	int xlo, ylo, xn, yn, klo, khi;
	int dir; /* the derivative kernels' axis */
};

static inline uint64_t cns_gidx(const struct cns_geom *g, int i, int j, int k)
{
	return ((uint64_t)(k + CNS_NG) * (uint64_t)g->gy + (uint64_t)(j + CNS_NG)) *
		   (uint64_t)g->gx +
	       (uint64_t)(i + CNS_NG);
}

static inline uint64_t cns_iidx(const struct cns_geom *g, int i, int j, int k)
{
	return ((uint64_t)k * (uint64_t)g->ny + (uint64_t)j) * (uint64_t)g->nx + (uint64_t)i;
}

/* ---- CNS's arithmetic, shared by the kernels and the reference (noinline: one copy) ------- */

/* The 8th-order first derivative from the values at +1..+4 (s[0..3]) and -1..-4 (s[4..7]). */
static __attribute__((noinline)) double cns_d1(const double s[8], double dxinv)
{
	return (CNS_ALP * (s[0] - s[4]) + CNS_BET * (s[1] - s[5]) + CNS_GAM * (s[2] - s[6]) +
		CNS_DEL * (s[3] - s[7])) *
	       dxinv;
}

/* The 8th-order second derivative (dxinv**2). */
static __attribute__((noinline)) double cns_d2(double c, const double s[8], double dxinv)
{
	return (CNS_CENTER * c + CNS_OFF1 * (s[0] + s[4]) + CNS_OFF2 * (s[1] + s[5]) +
		CNS_OFF3 * (s[2] + s[6]) + CNS_OFF4 * (s[3] + s[7])) *
	       (dxinv * dxinv);
}

static __attribute__((noinline)) void cns_prim(const double u[CNS_NC], double q[CNS_NP])
{
	double rhoinv = 1.0 / u[0], eint;

	q[0] = u[0];
	q[1] = u[1] * rhoinv;
	q[2] = u[2] * rhoinv;
	q[3] = u[3] * rhoinv;
	eint = u[4] * rhoinv - 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	q[4] = (CNS_GAMMA - 1.0) * eint * u[0];
	q[5] = eint * (1.0 / CNS_CV);
}

/* difflux of momentum m from its second derivatives along x, y, z and its two cross terms
 * (m = x: vyx, wzx; y: uxy, wzy; z: uxz, vyz). */
static __attribute__((noinline)) double cns_diff_mom(int m, const double d2[3], double xa,
						     double xb)
{
	double t0 = m == 0 ? CNS_4THIRDS * d2[0] : d2[0];
	double t1 = m == 1 ? CNS_4THIRDS * d2[1] : d2[1];
	double t2 = m == 2 ? CNS_4THIRDS * d2[2] : d2[2];

	return CNS_ETA * (t0 + t1 + t2 + CNS_THIRD * (xa + xb));
}

/* difflux of energy: conduction (T's second derivatives) and the mechanical work; g = ux vx
 * wx uy vy wy uz vz wz, qc = u v w, dm = the momentum fluxes. */
static __attribute__((noinline)) double cns_diff_ene(const double t2[3], const double g[9],
						     const double qc[3], const double dm[3])
{
	double divu = CNS_2THIRDS * (g[0] + g[4] + g[8]);
	double tauxx = 2.0 * g[0] - divu, tauyy = 2.0 * g[4] - divu, tauzz = 2.0 * g[8] - divu;
	double tauxy = g[3] + g[1], tauxz = g[6] + g[2], tauyz = g[7] + g[5];
	double mech = tauxx * g[0] + tauyy * g[4] + tauzz * g[8] + tauxy * tauxy + tauxz * tauxz +
		      tauyz * tauyz;

	mech = CNS_ETA * mech + dm[0] * qc[0] + dm[1] * qc[1] + dm[2] * qc[2];
	return CNS_ALAM * (t2[0] + t2[1] + t2[2]) + mech;
}

/* One ALP/BET/GAM/DEL term of hypterm: c(+s) * u(+s) - c(-s) * u(-s) [+ pressure part]. */
static inline double cns_hyp_term(const double c[8], const double vel[8], const double p[8], int s,
				  int kind)
{
	double t = c[s] * vel[s] - c[s + 4] * vel[s + 4];

	if (kind == 1)
		t = t + (p[s] - p[s + 4]);
	else if (kind == 2)
		t = t + (p[s] * vel[s] - p[s + 4] * vel[s + 4]);
	return t;
}

/*
 * hypterm's terms along `dir` from the stencil values at +1..+4, -1..-4: vel = the velocity
 * along dir, cons = momentum x, y, z and energy, p = pressure. The first direction sets
 * flux = -term, the others subtract (CNS's three loops).
 */
static __attribute__((noinline)) void cns_hyp_dir(int dir, const double vel[8],
						  const double cons[4][8], const double p[8],
						  double dxinv, double flux[CNS_NC])
{
	static const double coef[4] = {CNS_ALP, CNS_BET, CNS_GAM, CNS_DEL};
	const double *mc = cons[dir];
	double t[CNS_NC];

	t[0] = (CNS_ALP * (mc[0] - mc[4]) + CNS_BET * (mc[1] - mc[5]) + CNS_GAM * (mc[2] - mc[6]) +
		CNS_DEL * (mc[3] - mc[7])) *
	       dxinv;
	for (int m = 0; m < 4; m++) {
		int kind = m == 3 ? 2 : m == dir ? 1 : 0;
		double sum = coef[0] * cns_hyp_term(cons[m], vel, p, 0, kind);

		for (int s = 1; s < 4; s++)
			sum = sum + coef[s] * cns_hyp_term(cons[m], vel, p, s, kind);
		t[m + 1] = sum * dxinv;
	}
	for (int c = 0; c < CNS_NC; c++)
		flux[c] = dir == 0 ? -t[c] : flux[c] - t[c];
}

/* update_rk3: unew = a * u1 + b * u2 + c * (D + F). */
static __attribute__((noinline)) double cns_rk(double a, double u1, double b, double u2, double c,
					       double d, double f)
{
	double upp = d + f;

	return a * u1 + b * u2 + c * upp;
}

/* ---- kernels -------------------------------------------------------------------------------- */

struct cns_lanes {
	int i[WARP_LANES], j[WARP_LANES];
	uint32_t mask;
};

/* The lanes' (i, j) in the launch's x-y range (CUDA's blockIdx * blockDim + threadIdx). */
static void cns_lanes_of(struct gpu_warp *w, const struct cns_args *a, struct cns_lanes *ln)
{
	ln->mask = 0;
	for (unsigned l = 0; l < WARP_LANES; l++) {
		int x = (int)(gw_cta_x(w) * CNS_BX + gw_thread_x(w, l));
		int y = (int)(gw_cta_y(w) * CNS_BY + gw_thread_y(w, l));

		ln->i[l] = a->xlo + x;
		ln->j[l] = a->ylo + y;
		if (x < a->xn && y < a->yn)
			ln->mask |= 1u << l;
	}
}

/* Loads component `comp` of the ghosted array at base, at (i + di, j + dj, k + dk) per lane. */
static void cns_ld(struct gpu_warp *w, const struct cns_args *a, const struct cns_lanes *ln,
		   uint64_t base, int comp, int k, int di, int dj, int dk, double out[WARP_LANES])
{
	uint64_t addr[WARP_LANES], v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + ((uint64_t)comp * a->g.gcells +
				  cns_gidx(&a->g, ln->i[l] + di, ln->j[l] + dj, k + dk)) *
				     8;
	gw_ld64v(w, addr, ln->mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		out[l] = pu_u2d(v[l]);
}

/* The eight stencil neighbours along dir (+1..+4, then -1..-4), per lane: out[lane][8]. */
static void cns_ld8(struct gpu_warp *w, const struct cns_args *a, const struct cns_lanes *ln,
		    uint64_t base, int comp, int k, int dir, double out[WARP_LANES][8])
{
	double v[WARP_LANES];

	for (int s = 0; s < 8; s++) {
		int off = s < 4 ? s + 1 : -(s - 3), d[3] = {0, 0, 0};

		d[dir] = off;
		cns_ld(w, a, ln, base, comp, k, d[0], d[1], d[2], v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			out[l][s] = v[l];
	}
}

static void cns_st(struct gpu_warp *w, const struct cns_args *a, const struct cns_lanes *ln,
		   uint64_t base, int comp, int k, bool ghosted, const double val[WARP_LANES],
		   uint32_t mask)
{
	uint64_t addr[WARP_LANES], v[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		uint64_t idx =
		    ghosted ? (uint64_t)comp * a->g.gcells + cns_gidx(&a->g, ln->i[l], ln->j[l], k)
			    : (uint64_t)comp * a->g.icells + cns_iidx(&a->g, ln->i[l], ln->j[l], k);

		addr[l] = base + idx * 8;
		v[l] = pu_d2u(val[l]);
	}
	gw_st64v(w, addr, mask, v);
}

static int cns_wrap(int x, int n)
{
	return (x + n) % n;
}

/* The frame of the kernels but fill_boundary: the lanes' (i, j) in the launch's x-y range and,
 * unless the warp has none, the thread's march along z, step(k) for k in [klo, khi). */
static void cns_march(struct gpu_warp *w, void (*step)(struct gpu_warp *w, const struct cns_args *a,
						       const struct cns_lanes *ln, int k))
{
	const struct cns_args *a = gw_args(w);
	struct cns_lanes ln;

	cns_lanes_of(w, a, &ln);
	if (!ln.mask)
		return;
	for (int k = a->klo; k < a->khi; k++)
		step(w, a, &ln, k);
}

/* fill_boundary: every ghost cell of the state takes its periodic image's values. */
static void cns_fill_kernel(struct gpu_warp *w)
{
	const struct cns_args *a = gw_args(w);
	const struct cns_geom *g = &a->g;
	struct cns_lanes ln;

	cns_lanes_of(w, a, &ln);
	for (int k = a->klo; k < a->khi; k++) {
		uint64_t addr[WARP_LANES], v[CNS_NC][WARP_LANES];
		uint32_t act = 0;

		gw_compute(w, CNS_FILL);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			int i = ln.i[l], j = ln.j[l];

			if ((ln.mask >> l & 1) &&
			    (i < 0 || i >= g->nx || j < 0 || j >= g->ny || k < 0 || k >= g->nz))
				act |= 1u << l;
		}
		if (!act)
			continue;
		for (int c = 0; c < CNS_NC; c++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] = a->ucur +
					  ((uint64_t)c * g->gcells +
					   cns_gidx(g, cns_wrap(ln.i[l], g->nx),
						    cns_wrap(ln.j[l], g->ny), cns_wrap(k, g->nz))) *
					      8;
			gw_ld64v(w, addr, act, v[c]);
		}
		for (int c = 0; c < CNS_NC; c++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] = a->ucur + ((uint64_t)c * g->gcells +
						     cns_gidx(g, ln.i[l], ln.j[l], k)) *
							8;
			gw_st64v(w, addr, act, v[c]);
		}
	}
}

static void cns_ctoprim_step(struct gpu_warp *w, const struct cns_args *a,
			     const struct cns_lanes *ln, int k)
{
	double u[CNS_NC][WARP_LANES], q[CNS_NP][WARP_LANES];

	for (int c = 0; c < CNS_NC; c++)
		cns_ld(w, a, ln, a->ucur, c, k, 0, 0, 0, u[c]);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		double ul[CNS_NC], ql[CNS_NP];

		for (int c = 0; c < CNS_NC; c++)
			ul[c] = u[c][l];
		cns_prim(ul, ql);
		for (int c = 0; c < CNS_NP; c++)
			q[c][l] = ql[c];
	}
	gw_compute(w, CNS_CTOPRIM);
	for (int c = 0; c < CNS_NP; c++)
		cns_st(w, a, ln, a->q, c, k, true, q[c], ln->mask);
}

static void cns_ctoprim_kernel(struct gpu_warp *w)
{
	cns_march(w, cns_ctoprim_step);
}

/* diffterm's loop over the first derivatives of u, v, w along a->dir. */
static void cns_deriv_step(struct gpu_warp *w, const struct cns_args *a, const struct cns_lanes *ln,
			   int k)
{
	double s[WARP_LANES][8], out[3][WARP_LANES];

	for (int m = 0; m < 3; m++) {
		cns_ld8(w, a, ln, a->q, 1 + m, k, a->dir, s);
		for (unsigned l = 0; l < WARP_LANES; l++)
			out[m][l] = cns_d1(s[l], a->dxinv[a->dir]);
	}
	gw_compute(w, CNS_DERIV);
	for (int m = 0; m < 3; m++)
		cns_st(w, a, ln, a->deriv, a->dir * 3 + m, k, true, out[m], ln->mask);
}

static void cns_deriv_kernel(struct gpu_warp *w)
{
	cns_march(w, cns_deriv_step);
}

/* The cross derivative terms of momentum m's flux: (array index in deriv, axis) x 2. */
static const int cns_cross[3][2][2] = {
    {{4, 0}, {8, 0}}, /* vyx, wzx */
    {{0, 1}, {8, 1}}, /* uxy, wzy */
    {{0, 2}, {4, 2}}, /* uxz, vyz */
};

static void cns_diffterm_step(struct gpu_warp *w, const struct cns_args *a,
			      const struct cns_lanes *ln, int k)
{
	double s[WARP_LANES][8], c[4][WARP_LANES], d2[4][WARP_LANES][3];
	double x1[2][WARP_LANES], grad[9][WARP_LANES], out[CNS_NC][WARP_LANES];

	/* momentum fluxes: q(u, v, w) at the centre and along each axis, then the two
	 * cross derivatives */
	for (int m = 0; m < 4; m++) {
		int comp = m < 3 ? 1 + m : 5;

		cns_ld(w, a, ln, a->q, comp, k, 0, 0, 0, c[m]);
		for (int dir = 0; dir < 3; dir++) {
			cns_ld8(w, a, ln, a->q, comp, k, dir, s);
			for (unsigned l = 0; l < WARP_LANES; l++)
				d2[m][l][dir] = cns_d2(c[m][l], s[l], a->dxinv[dir]);
		}
		if (m == 3)
			break;
		for (int x = 0; x < 2; x++) {
			cns_ld8(w, a, ln, a->deriv, cns_cross[m][x][0], k, cns_cross[m][x][1], s);
			for (unsigned l = 0; l < WARP_LANES; l++)
				x1[x][l] = cns_d1(s[l], a->dxinv[cns_cross[m][x][1]]);
		}
		for (unsigned l = 0; l < WARP_LANES; l++)
			out[1 + m][l] = cns_diff_mom(m, d2[m][l], x1[0][l], x1[1][l]);
	}
	/* energy: the nine first derivatives at the cell */
	for (int x = 0; x < 9; x++)
		cns_ld(w, a, ln, a->deriv, x, k, 0, 0, 0, grad[x]);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		double g[9], qc[3] = {c[0][l], c[1][l], c[2][l]};
		double dm[3] = {out[1][l], out[2][l], out[3][l]};

		for (int x = 0; x < 9; x++)
			g[x] = grad[x][l];
		out[4][l] = cns_diff_ene(d2[3][l], g, qc, dm);
		out[0][l] = 0.0;
	}
	gw_compute(w, CNS_DIFFTERM);
	for (int v = 0; v < CNS_NC; v++)
		cns_st(w, a, ln, a->d, v, k, false, out[v], ln->mask);
}

static void cns_diffterm_kernel(struct gpu_warp *w)
{
	cns_march(w, cns_diffterm_step);
}

static void cns_hypterm_step(struct gpu_warp *w, const struct cns_args *a,
			     const struct cns_lanes *ln, int k)
{
	double vel[WARP_LANES][8], cons[WARP_LANES][4][8], p[WARP_LANES][8];
	double flux[WARP_LANES][CNS_NC], s[WARP_LANES][8], out[CNS_NC][WARP_LANES];

	for (int dir = 0; dir < 3; dir++) {
		cns_ld8(w, a, ln, a->q, 1 + dir, k, dir, vel);
		for (int m = 0; m < 4; m++) {
			cns_ld8(w, a, ln, a->ucur, 1 + m, k, dir, s);
			for (unsigned l = 0; l < WARP_LANES; l++)
				memcpy(cons[l][m], s[l], sizeof(s[l]));
		}
		cns_ld8(w, a, ln, a->q, 4, k, dir, p);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (ln->mask >> l & 1)
				cns_hyp_dir(dir, vel[l], (const double(*)[8])cons[l], p[l],
					    a->dxinv[dir], flux[l]);
	}
	gw_compute(w, CNS_HYPTERM);
	for (int v = 0; v < CNS_NC; v++) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			out[v][l] = (ln->mask >> l & 1) ? flux[l][v] : 0.0;
		cns_st(w, a, ln, a->f, v, k, false, out[v], ln->mask);
	}
}

static void cns_hypterm_kernel(struct gpu_warp *w)
{
	cns_march(w, cns_hypterm_step);
}

static void cns_update_step(struct gpu_warp *w, const struct cns_args *a,
			    const struct cns_lanes *ln, int k)
{
	const struct cns_geom *g = &a->g;

	for (int v = 0; v < CNS_NC; v++) {
		uint64_t addr[WARP_LANES], dv[WARP_LANES], fv[WARP_LANES];
		double u1[WARP_LANES], u2[WARP_LANES], out[WARP_LANES];

		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] =
			    a->d +
			    ((uint64_t)v * g->icells + cns_iidx(g, ln->i[l], ln->j[l], k)) * 8;
		gw_ld64v(w, addr, ln->mask, dv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] += a->f - a->d;
		gw_ld64v(w, addr, ln->mask, fv);
		cns_ld(w, a, ln, a->u1, v, k, 0, 0, 0, u1);
		cns_ld(w, a, ln, a->u2, v, k, 0, 0, 0, u2);
		for (unsigned l = 0; l < WARP_LANES; l++)
			out[l] =
			    cns_rk(a->ca, u1[l], a->cb, u2[l], a->cc, pu_u2d(dv[l]), pu_u2d(fv[l]));
		gw_compute(w, CNS_UPDATE / CNS_NC);
		cns_st(w, a, ln, a->unew, v, k, true, out, ln->mask);
	}
}

static void cns_update_kernel(struct gpu_warp *w)
{
	cns_march(w, cns_update_step);
}

/* ---- host ----------------------------------------------------------------------------------- */

struct cns_host {
	struct cns_geom g;
	double dxinv[3];
	double *u, *unew, *q, *deriv, *d, *f; /* as on the device */
};

static double *cns_gp(const struct cns_host *s, double *arr, int comp, int i, int j, int k)
{
	return &arr[(uint64_t)comp * s->g.gcells + cns_gidx(&s->g, i, j, k)];
}

/* The eight stencil values along dir, as cns_ld8 orders them. */
static void cns_h8(const struct cns_host *s, double *arr, int comp, int i, int j, int k, int dir,
		   double out[8])
{
	for (int n = 0; n < 8; n++) {
		int off = n < 4 ? n + 1 : -(n - 3), d[3] = {0, 0, 0};

		d[dir] = off;
		out[n] = *cns_gp(s, arr, comp, i + d[0], j + d[1], k + d[2]);
	}
}

/* One evaluation of dU/dt from `cur` (its ghosts filled first), into s->d and s->f. */
static void cns_ref_dudt(struct cns_host *s, double *cur)
{
	const struct cns_geom *g = &s->g;
	double st[8];

	for (int k = -CNS_NG; k < g->nz + CNS_NG; k++)
		for (int j = -CNS_NG; j < g->ny + CNS_NG; j++)
			for (int i = -CNS_NG; i < g->nx + CNS_NG; i++) {
				if (i < 0 || i >= g->nx || j < 0 || j >= g->ny || k < 0 ||
				    k >= g->nz)
					for (int c = 0; c < CNS_NC; c++)
						*cns_gp(s, cur, c, i, j, k) =
						    *cns_gp(s, cur, c, cns_wrap(i, g->nx),
							    cns_wrap(j, g->ny), cns_wrap(k, g->nz));
			}
	for (int k = -CNS_NG; k < g->nz + CNS_NG; k++)
		for (int j = -CNS_NG; j < g->ny + CNS_NG; j++)
			for (int i = -CNS_NG; i < g->nx + CNS_NG; i++) {
				double u[CNS_NC], q[CNS_NP];

				for (int c = 0; c < CNS_NC; c++)
					u[c] = *cns_gp(s, cur, c, i, j, k);
				cns_prim(u, q);
				for (int c = 0; c < CNS_NP; c++)
					*cns_gp(s, s->q, c, i, j, k) = q[c];
			}
	for (int dir = 0; dir < 3; dir++) {
		int lo[3] = {-CNS_NG, -CNS_NG, -CNS_NG};
		int hi[3] = {g->nx + CNS_NG, g->ny + CNS_NG, g->nz + CNS_NG};

		lo[dir] = 0;
		hi[dir] = dir == 0 ? g->nx : dir == 1 ? g->ny : g->nz;
		for (int k = lo[2]; k < hi[2]; k++)
			for (int j = lo[1]; j < hi[1]; j++)
				for (int i = lo[0]; i < hi[0]; i++)
					for (int m = 0; m < 3; m++) {
						cns_h8(s, s->q, 1 + m, i, j, k, dir, st);
						*cns_gp(s, s->deriv, dir * 3 + m, i, j, k) =
						    cns_d1(st, s->dxinv[dir]);
					}
	}
	for (int k = 0; k < g->nz; k++)
		for (int j = 0; j < g->ny; j++)
			for (int i = 0; i < g->nx; i++) {
				double c[4], d2[4][3], x1[2], out[CNS_NC], gr[9], flux[CNS_NC];
				uint64_t o = cns_iidx(g, i, j, k);

				for (int m = 0; m < 4; m++) {
					int comp = m < 3 ? 1 + m : 5;

					c[m] = *cns_gp(s, s->q, comp, i, j, k);
					for (int dir = 0; dir < 3; dir++) {
						cns_h8(s, s->q, comp, i, j, k, dir, st);
						d2[m][dir] = cns_d2(c[m], st, s->dxinv[dir]);
					}
					if (m == 3)
						break;
					for (int x = 0; x < 2; x++) {
						cns_h8(s, s->deriv, cns_cross[m][x][0], i, j, k,
						       cns_cross[m][x][1], st);
						x1[x] = cns_d1(st, s->dxinv[cns_cross[m][x][1]]);
					}
					out[1 + m] = cns_diff_mom(m, d2[m], x1[0], x1[1]);
				}
				for (int x = 0; x < 9; x++)
					gr[x] = *cns_gp(s, s->deriv, x, i, j, k);
				out[4] = cns_diff_ene(d2[3], gr, c, &out[1]);
				out[0] = 0.0;
				for (int v = 0; v < CNS_NC; v++)
					s->d[(uint64_t)v * g->icells + o] = out[v];
				for (int dir = 0; dir < 3; dir++) {
					double vel[8], cons[4][8], p[8];

					cns_h8(s, s->q, 1 + dir, i, j, k, dir, vel);
					for (int m = 0; m < 4; m++)
						cns_h8(s, cur, 1 + m, i, j, k, dir, cons[m]);
					cns_h8(s, s->q, 4, i, j, k, dir, p);
					cns_hyp_dir(dir, vel, (const double(*)[8])cons, p,
						    s->dxinv[dir], flux);
				}
				for (int v = 0; v < CNS_NC; v++)
					s->f[(uint64_t)v * g->icells + o] = flux[v];
			}
}

static void cns_ref_update(struct cns_host *s, double a, const double *u1, double b,
			   const double *u2, double c, double *out)
{
	const struct cns_geom *g = &s->g;

	for (int v = 0; v < CNS_NC; v++)
		for (int k = 0; k < g->nz; k++)
			for (int j = 0; j < g->ny; j++)
				for (int i = 0; i < g->nx; i++) {
					uint64_t gi =
					    (uint64_t)v * g->gcells + cns_gidx(g, i, j, k);
					uint64_t ii =
					    (uint64_t)v * g->icells + cns_iidx(g, i, j, k);

					out[gi] =
					    cns_rk(a, u1[gi], b, u2[gi], c, s->d[ii], s->f[ii]);
				}
}

/* CNS's init_data_3d, the waves' origin shifted by seeded cell counts. */
static void cns_init(struct cns_host *s, const double dx[3], uint64_t seed)
{
	const struct cns_geom *g = &s->g;
	double scale = 0.02;
	int off[3];

	for (int d = 0; d < 3; d++)
		off[d] = (int)(wl_value32(seed, 1, 0, (uint64_t)d) % 64);
	for (int k = 0; k < g->nz; k++)
		for (int j = 0; j < g->ny; j++)
			for (int i = 0; i < g->nx; i++) {
				double x = (i + off[0]) * dx[0], y = (j + off[1]) * dx[1];
				double z = (k + off[2]) * dx[2];
				double uvel =
				    sin(x / scale) * sin(2.0 * y / scale) * sin(3.0 * z / scale);
				double vvel =
				    sin(2.0 * x / scale) * sin(4.0 * y / scale) * sin(z / scale);
				double wvel = sin(3.0 * x / scale) * cos(2.0 * y / scale) *
					      sin(2.0 * z / scale);
				double rho = 1.0e-3 + 1.0e-5 * sin(x / scale) *
							  cos(2.0 * y / scale) *
							  cos(3.0 * z / scale);
				double eloc = 2.5e9 + 0.001 * sin(2.0 * x / scale) *
							  cos(2.0 * y / scale) *
							  sin(2.0 * z / scale);

				*cns_gp(s, s->u, 0, i, j, k) = rho;
				*cns_gp(s, s->u, 1, i, j, k) = rho * uvel;
				*cns_gp(s, s->u, 2, i, j, k) = rho * vvel;
				*cns_gp(s, s->u, 3, i, j, k) = rho * wvel;
				*cns_gp(s, s->u, 4, i, j, k) =
				    rho * (eloc + (uvel * uvel + vvel * vvel + wvel * wvel) / 2.0);
			}
}

/* The Courant number of the initial state (ctoprim's second loop), for dt = cfl / courno. */
static double cns_courno(const struct cns_host *s)
{
	const struct cns_geom *g = &s->g;
	double courno = 1.0e-50;

	for (int k = 0; k < g->nz; k++)
		for (int j = 0; j < g->ny; j++)
			for (int i = 0; i < g->nx; i++) {
				double u[CNS_NC], q[CNS_NP], c;

				for (int v = 0; v < CNS_NC; v++)
					u[v] = *cns_gp(s, s->u, v, i, j, k);
				cns_prim(u, q);
				c = sqrt(CNS_GAMMA * q[4] / q[0]);
				for (int d = 0; d < 3; d++) {
					double cour = (c + fabs(q[1 + d])) * s->dxinv[d];

					courno = cour > courno ? cour : courno;
				}
			}
	return courno;
}

struct cns_run {
	struct gpu_host *h;
	struct gpu_kernel k;
	struct cns_args a;
	unsigned launches;
};

static int cns_launch(struct cns_run *r, const char *name, void (*fn)(struct gpu_warp *w), int xlo,
		      int xn, int ylo, int yn, int klo, int khi)
{
	r->a.xlo = xlo;
	r->a.xn = xn;
	r->a.ylo = ylo;
	r->a.yn = yn;
	r->a.klo = klo;
	r->a.khi = khi;
	r->k.name = name;
	r->k.fn = fn;
	/* the two big stencil kernels hold dozens of doubles: sm_20's 63-register limit */
	r->k.regs_per_thread = fn == cns_diffterm_kernel || fn == cns_hypterm_kernel ? 63 : 32;
	r->k.grid_x = (unsigned)(xn + CNS_BX - 1) / CNS_BX;
	r->k.grid_y = (unsigned)(yn + CNS_BY - 1) / CNS_BY;
	r->launches++;
	return gh_launch(r->h, &r->k);
}

/* dU/dt of the stage's state, then update_rk3 into unew. */
static int cns_stage(struct cns_run *r, uint64_t cur, double ca, uint64_t u1, double cb,
		     uint64_t u2, double cc, uint64_t unew)
{
	const struct cns_geom *g = &r->a.g;
	int n = CNS_NG, err;

	r->a.ucur = cur;
	err = cns_launch(r, "fill_boundary", cns_fill_kernel, -n, g->gx, -n, g->gy, -n, g->nz + n);
	if (!err)
		err = cns_launch(r, "ctoprim", cns_ctoprim_kernel, -n, g->gx, -n, g->gy, -n,
				 g->nz + n);
	for (int dir = 0; dir < 3 && !err; dir++) {
		static const char *const names[3] = {"diffterm_dx", "diffterm_dy", "diffterm_dz"};

		r->a.dir = dir;
		err = cns_launch(r, names[dir], cns_deriv_kernel, dir == 0 ? 0 : -n,
				 dir == 0 ? g->nx : g->gx, dir == 1 ? 0 : -n,
				 dir == 1 ? g->ny : g->gy, dir == 2 ? 0 : -n,
				 dir == 2 ? g->nz : g->nz + n);
	}
	if (!err)
		err = cns_launch(r, "diffterm", cns_diffterm_kernel, 0, g->nx, 0, g->ny, 0, g->nz);
	if (!err)
		err = cns_launch(r, "hypterm", cns_hypterm_kernel, 0, g->nx, 0, g->ny, 0, g->nz);
	r->a.ca = ca;
	r->a.u1 = u1;
	r->a.cb = cb;
	r->a.u2 = u2;
	r->a.cc = cc;
	r->a.unew = unew;
	if (!err)
		err = cns_launch(r, "update_rk3", cns_update_kernel, 0, g->nx, 0, g->ny, 0, g->nz);
	return err;
}

int doe_cns_main(struct gpu_host *h)
{
	struct cns_host s = {0};
	struct cns_run r = {
	    .h = h, .k = {.warps_per_cta = CNS_WARPS, .regs_per_thread = 32, .block_x = CNS_BX}};
	struct cns_geom *g = &s.g;
	uint64_t du, dnew;
	double dx[3], dt, *got = NULL;
	int err = -CS_ENOMEM;

	/* default 64 x 32 x 16: the interior kernels' 4 x 4 CTAs fill the 16 SMs once */
	g->nx = (int)wl_by_size(h, 16, 32, 64);
	g->ny = (int)wl_by_size(h, 8, 16, 32);
	g->nz = (int)wl_by_size(h, 4, 8, 16);
	g->gx = g->nx + 2 * CNS_NG;
	g->gy = g->ny + 2 * CNS_NG;
	g->gz = g->nz + 2 * CNS_NG;
	g->gcells = (uint64_t)g->gx * g->gy * g->gz;
	g->icells = (uint64_t)g->nx * g->ny * g->nz;
	s.u = calloc(CNS_NC * g->gcells, sizeof(double));
	s.unew = calloc(CNS_NC * g->gcells, sizeof(double));
	s.q = calloc(CNS_NP * g->gcells, sizeof(double));
	s.deriv = calloc(9 * g->gcells, sizeof(double));
	s.d = calloc(CNS_NC * g->icells, sizeof(double));
	s.f = calloc(CNS_NC * g->icells, sizeof(double));
	got = malloc(CNS_NC * g->gcells * sizeof(double));
	if (!s.u || !s.unew || !s.q || !s.deriv || !s.d || !s.f || !got)
		goto out;
	/* CNS's domain [-0.1, 0.1]^3 */
	for (int d = 0; d < 3; d++) {
		int n = d == 0 ? g->nx : d == 1 ? g->ny : g->nz;

		dx[d] = 0.2 / n;
		s.dxinv[d] = 1.0 / dx[d];
		r.a.dxinv[d] = s.dxinv[d];
	}
	cns_init(&s, dx, gh_seed(h) ^ TAG_CNS);
	dt = CNS_CFL / cns_courno(&s);

	r.a.g = *g;
	r.k.args = &r.a;
	du = wl_upload(h, s.u, CNS_NC * g->gcells * sizeof(double));
	dnew = wl_alloc_zero(h, CNS_NC * g->gcells * sizeof(double));
	r.a.q = wl_alloc_zero(h, CNS_NP * g->gcells * sizeof(double));
	r.a.deriv = wl_alloc_zero(h, 9 * g->gcells * sizeof(double));
	r.a.d = wl_alloc_zero(h, CNS_NC * g->icells * sizeof(double));
	r.a.f = wl_alloc_zero(h, CNS_NC * g->icells * sizeof(double));

	/* advance_rk3: U -> Unew (1/3), Unew -> Unew (2/3), Unew -> U (1) */
	err = cns_stage(&r, du, 1.0, du, 0.0, dnew, dt, dnew);
	if (!err)
		err = cns_stage(&r, dnew, 3.0 / 4.0, du, 1.0 / 4.0, dnew, 1.0 / 4.0 * dt, dnew);
	if (!err)
		err = cns_stage(&r, dnew, 1.0 / 3.0, du, 2.0 / 3.0, dnew, 2.0 / 3.0 * dt, du);
	if (err)
		goto out;
	gh_corrupt(h, du + cns_gidx(g, g->nx / 2, g->ny / 2, g->nz / 2) * 8, 8);

	cns_ref_dudt(&s, s.u);
	cns_ref_update(&s, 1.0, s.u, 0.0, s.unew, dt, s.unew);
	cns_ref_dudt(&s, s.unew);
	cns_ref_update(&s, 3.0 / 4.0, s.u, 1.0 / 4.0, s.unew, 1.0 / 4.0 * dt, s.unew);
	cns_ref_dudt(&s, s.unew);
	cns_ref_update(&s, 1.0 / 3.0, s.u, 2.0 / 3.0, s.unew, 2.0 / 3.0 * dt, s.u);

	gh_read(h, du, got, CNS_NC * g->gcells * sizeof(double));
	for (int v = 0; v < CNS_NC; v++)
		for (int k = 0; k < g->nz; k++)
			for (int j = 0; j < g->ny; j++)
				for (int i = 0; i < g->nx; i++) {
					uint64_t o = (uint64_t)v * g->gcells + cns_gidx(g, i, j, k);

					if (pu_d2u(got[o]) != pu_d2u(s.u[o])) {
						err = gh_fail(h,
							      "cns: U(%d, %d, %d, var %d) = %.17g, "
							      "want %.17g after one RK3 step",
							      i, j, k, v, got[o], s.u[o]);
						goto out;
					}
				}
	gh_note(
	    h,
	    "cns: %dx%dx%d box (+%d ghosts), one RK3 step (dt %.3g) in %u launches, all %" PRIu64
	    " conserved values bit-exact",
	    g->nx, g->ny, g->nz, CNS_NG, dt, r.launches, CNS_NC * g->icells);
	err = 0;
out:
	free(s.u);
	free(s.unew);
	free(s.q);
	free(s.deriv);
	free(s.d);
	free(s.f);
	free(got);
	return err;
}
