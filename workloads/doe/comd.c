/*
 * workloads/doe/comd.c - CoMD (ExMatEx classical molecular dynamics proxy; the CUDA port of
 * CoMD 1.1 by NVIDIA, CoMD-CUDA), Lennard-Jones, cell-based "thread per atom" method: one of
 * the US DOE proxy applications of Villa et al. (SC'14) used by the selective-caching study.
 *
 * Atoms of copper (LJ: sigma 2.315 A, epsilon 0.167 eV, cutoff 2.5 sigma, mass 63.55 amu) on an
 * FCC lattice (3.615 A) in a periodic box, binned into link cells at least a cutoff wide
 * (structure of arrays, MAXATOMS = 64 slots per cell, CoMD's cell numbering with the halo cells
 * after the local ones). A time step is CoMD's velocity Verlet (timestep.c): AdvanceVelocity
 * (dt/2), AdvancePosition (dt), the halo exchange (periodic copies of the boundary cells'
 * positions into the halo cells, x faces, then y, then z), LJ_Force_thread_atom, and
 * AdvanceVelocity (dt/2); the forces are computed once before the first step.
 *
 * LJ_Force_thread_atom (gpu_lj_thread_atom.h): CTAs of 128 threads, one thread per local atom
 * (the atom list is cell-major, so a warp's lanes are the atoms of one or two cells); the
 * thread loads its position, loops over the atoms of its own cell (skipping itself, r2 > 0)
 * and then over the 26 other neighbour cells (neighbor_cells[iBox * 27 + j]), loading each
 * neighbour's x, y, z (lanes of the same cell read the same words: broadcasts) and, within the
 * cutoff, adding the pair's energy and force (1/r2, r6, no square root); it writes f and e.
 * The loop over a cell's atoms runs to the warp's largest count (lanes masked).
 * AdvanceVelocity / AdvancePosition: thread per atom, p += dt f, r += dt p / mass.
 *
 * No sharing within a kernel: the force kernel reads positions written by earlier launches and
 * each thread writes its own atom; no coherence needed.
 *
 * Deviations: atoms are not redistributed among cells after a step (CoMD's
 * redistributeAtoms): over the few steps run they move by far less than a cell and the pair
 * search covers the 27 cells either way; the halo exchange copies positions cell to cell in one
 * kernel per dimension instead of CoMD-CUDA's pack (LoadAtomsBufferPacked) and unpack kernels;
 * no energy reductions (kineticEnergyGpu) are run.
 *
 * Check: a host reference runs the same steps through the same functions (pair term, updates)
 * in the same order, so every force, energy, momentum and position of every atom must be
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

#define TAG_COMD      0x636f6d6400000000ull
#define COMD_CTA      128 /* THREAD_ATOM_CTA */
#define COMD_WARPS    (COMD_CTA / WARP_LANES)
#define COMD_MAXATOMS 64 /* atom slots per link cell (CoMD-CUDA Makefile) */
#define COMD_NBRS     27 /* N_MAX_NEIGHBORS */
#define COMD_LAT      3.615
#define COMD_SIGMA    2.315
#define COMD_EPSILON  0.167
#define COMD_MASS_AMU 63.55
#define COMD_TEMP     600.0 /* K (CoMD's default -T) */
#define COMD_DT	      1.0   /* fs */
#define COMD_DELTA    0.05  /* A: random displacement of the lattice sites (CoMD -d) */
#define COMD_KB_EV    8.6173324e-5
/* amuInKilograms * AngsInMeters^2 / (fsInSeconds^2 * eVInJoules) (CoMD constants.h) */
#define COMD_AMU_TO_MASS \
	(1.660538921e-27 * 1.0e-10 * 1.0e-10 / (1.0e-15 * 1.0e-15 * 1.602176565e-19))

/*
 * Issue slots per warp (SASS-like counts for sm_20, double precision: a DP instruction counts 8
 * slots, the GTX 480's 1/8 rate):
 * force prologue: tid, bound test, list loads' addresses, iOff, the LJ constants (s6: 5 DMUL,
 *   rCut6: 2 DMUL + a DP division ~8, eShift 2) = 17 DP + 12 = 148;
 * per neighbour cell: the neighbor_cells and nAtoms addresses, jOff, loop set-up: 8;
 * per pair: address (jOff++), dx dy dz (3 DADD), r2 (DMUL + 2 DFMA), the cutoff test (DSETP,
 *   and r2 > 0 in the own cell: 2 DSETP) and branch, loop test: 7 DP + 5 = 61;
 * within the cutoff (when any lane is): 1/r2 (~5 DP: MUFU.RCP64H and Newton), r6 (3 DMUL),
 *   eLocal (DADD + DFMA), ie (DFMA), fr (2 DMUL + DFMA), 3 DFMA forces: 17 DP = 136;
 * epilogue: 4 DMUL (f * epsilon, e * 4 * epsilon) + addresses: 36;
 * AdvanceVelocity: tid, bound test, list loads, iOff (10), 3 DFMA = 34;
 * AdvancePosition: the same (10), 1/mass (~8 DP), 3 x (DMUL + DFMA) = 14 DP = 122;
 * halo copy: cell and slot (shift, and: 4), pair loads' addresses (4), slot test, shift
 *   (sign * L), 3 DADD: 4 DP + 12 = 44.
 */
#define COMD_DP	      8
#define COMD_PROLOGUE (17 * COMD_DP + 12)
#define COMD_CELL     8
#define COMD_PAIR     (7 * COMD_DP + 5)
#define COMD_TERM     (17 * COMD_DP)
#define COMD_EPILOGUE (4 * COMD_DP + 4)
#define COMD_VELOCITY (10 + 3 * COMD_DP)
#define COMD_POSITION (10 + 14 * COMD_DP)
#define COMD_HALO     (12 + 4 * COMD_DP)

/* The LJ constants as LJ_Force_thread_atom computes them. */
struct comd_lj {
	double s6, rcut2, eshift, epsilon;
};

struct comd_args {
	uint64_t rx, ry, rz, px, py, pz, fx, fy, fz, e; /* double[boxes * MAXATOMS] */
	uint64_t natoms;				/* int[boxes] */
	uint64_t nbr_cells;				/* int[local boxes * 27] */
	uint64_t list_atoms, list_cells;		/* int[atoms]: the local atom list */
	uint64_t species, species_mass;			/* int[boxes * MAXATOMS], double[1] */
	uint64_t halo_src, halo_dst, halo_sign;		/* int[pairs]: this launch's halo copies */
	int halo_dim; /* the dimension whose faces this launch copies (shifted by +-L) */
	unsigned atoms, pairs;
	double dt;	    /* AdvanceVelocity / AdvancePosition's time step */
	double shift;	    /* the box length of the halo launch's dimension */
	double sigma, rcut; /* LJ parameters (sim.lj_pot) */
};

/* ---- the kernels' arithmetic, shared with the reference (noinline: one copy) -------------- */

static __attribute__((noinline)) struct comd_lj comd_lj_consts(double sigma, double rcut,
							       double epsilon)
{
	struct comd_lj c;
	double rcut6;

	c.rcut2 = rcut * rcut;
	c.s6 = sigma * sigma * sigma * sigma * sigma * sigma;
	rcut6 = c.s6 / (c.rcut2 * c.rcut2 * c.rcut2);
	c.eshift = rcut6 * (rcut6 - 1.0);
	c.epsilon = epsilon;
	return c;
}

/* One pair of LJ_Force_thread_atom's loops: adds to acc[] = {ifx, ify, ifz, ie} when within
 * the cutoff (and r2 > 0 in the atom's own cell); returns whether. */
static __attribute__((noinline)) bool comd_pair(const double ri[3], double jx, double jy, double jz,
						const struct comd_lj *c, bool own_cell,
						double acc[4])
{
	double dx = ri[0] - jx, dy = ri[1] - jy, dz = ri[2] - jz;
	double r2 = dx * dx + dy * dy + dz * dz;
	double r6, elocal, fr;

	if (!(r2 <= c->rcut2) || (own_cell && !(r2 > 0.0)))
		return false;
	r2 = 1.0 / r2;
	r6 = c->s6 * (r2 * r2 * r2);
	elocal = r6 * (r6 - 1.0) - c->eshift;
	acc[3] += 0.5 * elocal;
	fr = r6 * r2 * (48.0 * r6 - 24.0);
	acc[0] += fr * dx;
	acc[1] += fr * dy;
	acc[2] += fr * dz;
	return true;
}

/* f = ifx * epsilon ..., e = ie * 4 * epsilon. */
static __attribute__((noinline)) void comd_finish(const double acc[4], double epsilon,
						  double out[4])
{
	out[0] = acc[0] * epsilon;
	out[1] = acc[1] * epsilon;
	out[2] = acc[2] * epsilon;
	out[3] = acc[3] * 4 * epsilon;
}

/* p += dt * f */
static __attribute__((noinline)) double comd_kick(double p, double dt, double f)
{
	return p + dt * f;
}

/* r += dt * p * invMass, invMass = 1.0 / mass */
static __attribute__((noinline)) double comd_drift(double r, double dt, double p, double mass)
{
	double inv_mass = 1.0 / mass;

	return r + dt * p * inv_mass;
}

static __attribute__((noinline)) double comd_shifted(double r, int sign, double length)
{
	return r + (sign > 0 ? length : -length);
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* The lanes' atoms: list.atoms[tid], list.cells[tid]; returns the mask of tid < n. */
static uint32_t comd_lanes(struct gpu_warp *w, const struct comd_args *a, uint32_t ibox[],
			   uint64_t ioff[])
{
	uint64_t addr[WARP_LANES], tid[WARP_LANES];
	uint32_t iatom[WARP_LANES] = {0}, mask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		tid[l] = gw_tid(w, l);
		if (tid[l] < a->atoms)
			mask |= 1u << l;
		addr[l] = a->list_atoms + tid[l] * 4;
	}
	if (!mask)
		return 0;
	gw_ld32v(w, addr, mask, iatom);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->list_cells + tid[l] * 4;
	gw_ld32v(w, addr, mask, ibox);
	for (unsigned l = 0; l < WARP_LANES; l++)
		ioff[l] = (uint64_t)ibox[l] * COMD_MAXATOMS + iatom[l];
	return mask;
}

/* Loads the lanes' atoms' words (ioff) of the double array at base. */
static void comd_ld_atoms(struct gpu_warp *w, uint64_t base, const uint64_t ioff[WARP_LANES],
			  uint32_t mask, uint64_t v[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + ioff[l] * 8;
	gw_ld64v(w, addr, mask, v);
}

/* Stores the lanes' atoms' words (ioff) of the double array at base. */
static void comd_st_atoms(struct gpu_warp *w, uint64_t base, const uint64_t ioff[WARP_LANES],
			  uint32_t mask, const uint64_t v[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + ioff[l] * 8;
	gw_st64v(w, addr, mask, v);
}

static void comd_force_kernel(struct gpu_warp *w)
{
	const struct comd_args *a = gw_args(w);
	struct comd_lj c = comd_lj_consts(a->sigma, a->rcut, COMD_EPSILON);
	uint64_t addr[WARP_LANES], ioff[WARP_LANES], v[WARP_LANES];
	uint32_t ibox[WARP_LANES] = {0}, jbox[WARP_LANES] = {0}, cnt[WARP_LANES] = {0};
	double ri[WARP_LANES][3], acc[WARP_LANES][4] = {{0}}, jr[3][WARP_LANES];
	const uint64_t r[3] = {a->rx, a->ry, a->rz}, f[4] = {a->fx, a->fy, a->fz, a->e};
	uint32_t mask = comd_lanes(w, a, ibox, ioff);

	gw_compute(w, COMD_PROLOGUE);
	if (!mask)
		return;
	for (unsigned d = 0; d < 3; d++) {
		comd_ld_atoms(w, r[d], ioff, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			ri[l][d] = pu_u2d(v[l]);
	}
	/* j = 0: the atom's own cell (neighbor_cells[iBox * 27] is iBox), then the 26 others */
	for (unsigned j = 0; j < COMD_NBRS; j++) {
		uint32_t most = 0;

		gw_compute(w, COMD_CELL);
		if (j == 0) {
			memcpy(jbox, ibox, sizeof(jbox));
		} else {
			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] = a->nbr_cells + ((uint64_t)ibox[l] * COMD_NBRS + j) * 4;
			gw_ld32v(w, addr, mask, jbox);
		}
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->natoms + (uint64_t)jbox[l] * 4;
		gw_ld32v(w, addr, mask, cnt);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((mask >> l & 1) && cnt[l] > most)
				most = cnt[l];
		for (uint32_t jatom = 0; jatom < most; jatom++) {
			uint32_t act = 0;
			bool any = false;

			for (unsigned l = 0; l < WARP_LANES; l++)
				if ((mask >> l & 1) && jatom < cnt[l])
					act |= 1u << l;
			for (unsigned d = 0; d < 3; d++) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					addr[l] =
					    r[d] + ((uint64_t)jbox[l] * COMD_MAXATOMS + jatom) * 8;
				gw_ld64v(w, addr, act, v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					jr[d][l] = pu_u2d(v[l]);
			}
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (act >> l & 1)
					any |= comd_pair(ri[l], jr[0][l], jr[1][l], jr[2][l], &c,
							 j == 0, acc[l]);
			gw_compute(w, COMD_PAIR + (any ? COMD_TERM : 0));
		}
	}
	gw_compute(w, COMD_EPILOGUE);
	{
		double out[WARP_LANES][4];

		for (unsigned l = 0; l < WARP_LANES; l++)
			comd_finish(acc[l], c.epsilon, out[l]);
		for (unsigned k = 0; k < 4; k++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				v[l] = pu_d2u(out[l][k]);
			comd_st_atoms(w, f[k], ioff, mask, v);
		}
	}
}

static void comd_velocity_kernel(struct gpu_warp *w)
{
	const struct comd_args *a = gw_args(w);
	uint64_t ioff[WARP_LANES], p[WARP_LANES], f[WARP_LANES];
	uint32_t ibox[WARP_LANES] = {0};
	const uint64_t pv[3] = {a->px, a->py, a->pz}, fv[3] = {a->fx, a->fy, a->fz};
	uint32_t mask = comd_lanes(w, a, ibox, ioff);

	gw_compute(w, COMD_VELOCITY);
	if (!mask)
		return;
	for (unsigned d = 0; d < 3; d++) {
		comd_ld_atoms(w, pv[d], ioff, mask, p);
		comd_ld_atoms(w, fv[d], ioff, mask, f);
		for (unsigned l = 0; l < WARP_LANES; l++)
			p[l] = pu_d2u(comd_kick(pu_u2d(p[l]), a->dt, pu_u2d(f[l])));
		comd_st_atoms(w, pv[d], ioff, mask, p);
	}
}

static void comd_position_kernel(struct gpu_warp *w)
{
	const struct comd_args *a = gw_args(w);
	uint64_t addr[WARP_LANES], ioff[WARP_LANES], r[WARP_LANES], p[WARP_LANES];
	uint64_t mass[WARP_LANES];
	uint32_t ibox[WARP_LANES] = {0}, sp[WARP_LANES] = {0};
	const uint64_t rv[3] = {a->rx, a->ry, a->rz}, pv[3] = {a->px, a->py, a->pz};
	uint32_t mask = comd_lanes(w, a, ibox, ioff);

	gw_compute(w, COMD_POSITION);
	if (!mask)
		return;
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->species + ioff[l] * 4;
	gw_ld32v(w, addr, mask, sp);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->species_mass + (uint64_t)sp[l] * 8;
	gw_ld64v(w, addr, mask, mass);
	for (unsigned d = 0; d < 3; d++) {
		comd_ld_atoms(w, rv[d], ioff, mask, r);
		comd_ld_atoms(w, pv[d], ioff, mask, p);
		for (unsigned l = 0; l < WARP_LANES; l++)
			r[l] =
			    pu_d2u(comd_drift(pu_u2d(r[l]), a->dt, pu_u2d(p[l]), pu_u2d(mass[l])));
		comd_st_atoms(w, rv[d], ioff, mask, r);
	}
}

/* The lanes' pairs' words (tid / COMD_MAXATOMS) of the int array at base (the halo lists). */
static void comd_ld_pair(struct gpu_warp *w, uint64_t base, const uint64_t tid[WARP_LANES],
			 uint32_t mask, uint32_t out[WARP_LANES])
{
	uint64_t addr[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = base + tid[l] / COMD_MAXATOMS * 4;
	gw_ld32v(w, addr, mask, out);
}

/* The halo exchange of one dimension: thread (pair, slot) copies atom `slot` of the pair's
 * source cell into its halo cell, the position along the dimension shifted by +-L. */
static void comd_halo_kernel(struct gpu_warp *w)
{
	const struct comd_args *a = gw_args(w);
	uint64_t addr[WARP_LANES], tid[WARP_LANES], v[WARP_LANES];
	uint32_t src[WARP_LANES] = {0}, dst[WARP_LANES] = {0}, sign[WARP_LANES] = {0};
	uint32_t cnt[WARP_LANES] = {0}, mask = 0, act = 0;
	const uint64_t r[3] = {a->rx, a->ry, a->rz};

	gw_compute(w, COMD_HALO);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		tid[l] = gw_tid(w, l);
		if (tid[l] / COMD_MAXATOMS < a->pairs)
			mask |= 1u << l;
	}
	if (!mask)
		return;
	comd_ld_pair(w, a->halo_src, tid, mask, src);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->natoms + (uint64_t)src[l] * 4;
	gw_ld32v(w, addr, mask, cnt);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((mask >> l & 1) && tid[l] % COMD_MAXATOMS < cnt[l])
			act |= 1u << l;
	if (!act)
		return;
	comd_ld_pair(w, a->halo_dst, tid, act, dst);
	comd_ld_pair(w, a->halo_sign, tid, act, sign);
	for (unsigned d = 0; d < 3; d++) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] =
			    r[d] + ((uint64_t)src[l] * COMD_MAXATOMS + tid[l] % COMD_MAXATOMS) * 8;
		gw_ld64v(w, addr, act, v);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if ((int)d == a->halo_dim)
				v[l] =
				    pu_d2u(comd_shifted(pu_u2d(v[l]), (int32_t)sign[l], a->shift));
			addr[l] =
			    r[d] + ((uint64_t)dst[l] * COMD_MAXATOMS + tid[l] % COMD_MAXATOMS) * 8;
		}
		gw_st64v(w, addr, act, v);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

struct comd_sim {
	int grid[3];		    /* local cells per dimension */
	int nlocal, ntotal;	    /* cells */
	double len[3];		    /* box lengths */
	double *r[3], *p[3], *f[4]; /* f[3] = e */
	int32_t *natoms, *nbr, *list_atoms, *list_cells, *species;
	int32_t *halo_src[3], *halo_dst[3], *halo_sign[3];
	int halo_pairs[3];
	unsigned atoms;
	double mass;
};

/* CoMD's getBoxFromTuple: local cells x fastest, then the halo cells face by face. */
static int comd_box(const int g[3], int ix, int iy, int iz)
{
	int nlocal = g[0] * g[1] * g[2];

	if (iz == g[2])
		return nlocal + 2 * g[2] * g[1] + 2 * g[2] * (g[0] + 2) + (g[0] + 2) * (g[1] + 2) +
		       (g[0] + 2) * (iy + 1) + (ix + 1);
	if (iz == -1)
		return nlocal + 2 * g[2] * g[1] + 2 * g[2] * (g[0] + 2) + (g[0] + 2) * (iy + 1) +
		       (ix + 1);
	if (iy == g[1])
		return nlocal + 2 * g[2] * g[1] + g[2] * (g[0] + 2) + (g[0] + 2) * iz + (ix + 1);
	if (iy == -1)
		return nlocal + 2 * g[2] * g[1] + iz * (g[0] + 2) + (ix + 1);
	if (ix == g[0])
		return nlocal + g[1] * g[2] + iz * g[1] + iy;
	if (ix == -1)
		return nlocal + iz * g[1] + iy;
	return (iz * g[1] + iy) * g[0] + ix;
}

static void comd_sim_free(struct comd_sim *s)
{
	for (int d = 0; d < 3; d++) {
		free(s->r[d]);
		free(s->p[d]);
		free(s->halo_src[d]);
		free(s->halo_dst[d]);
		free(s->halo_sign[d]);
	}
	for (int d = 0; d < 4; d++)
		free(s->f[d]);
	free(s->natoms);
	free(s->nbr);
	free(s->list_atoms);
	free(s->list_cells);
	free(s->species);
}

/* The FCC crystal of n^3 unit cells, displaced and with thermal momenta from the seed, binned
 * into link cells; the neighbour lists, the atom list and the halo copy lists. */
static int comd_setup(struct comd_sim *s, int n, uint64_t seed)
{
	static const double basis[4][3] = {
	    {0.25, 0.25, 0.25}, {0.25, 0.75, 0.75}, {0.75, 0.25, 0.75}, {0.75, 0.75, 0.25}};
	double cutoff = 2.5 * COMD_SIGMA, box[3], sigma_v;
	size_t slots;
	unsigned id = 0;

	s->mass = COMD_MASS_AMU * COMD_AMU_TO_MASS;
	for (int d = 0; d < 3; d++) {
		s->len[d] = n * COMD_LAT;
		s->grid[d] = (int)(s->len[d] / cutoff);
		box[d] = s->len[d] / s->grid[d];
	}
	s->nlocal = s->grid[0] * s->grid[1] * s->grid[2];
	s->ntotal = s->nlocal + 2 * ((s->grid[0] + 2) * (s->grid[1] + s->grid[2] + 2) +
				     s->grid[1] * s->grid[2]);
	slots = (size_t)s->ntotal * COMD_MAXATOMS;
	for (int d = 0; d < 3; d++) {
		s->r[d] = calloc(slots, sizeof(double));
		s->p[d] = calloc(slots, sizeof(double));
	}
	for (int d = 0; d < 4; d++)
		s->f[d] = calloc(slots, sizeof(double));
	s->natoms = calloc((size_t)s->ntotal, sizeof(int32_t));
	s->species = calloc(slots, sizeof(int32_t));
	s->nbr = malloc((size_t)s->nlocal * COMD_NBRS * sizeof(int32_t));
	s->atoms = 4u * (unsigned)(n * n * n);
	s->list_atoms = malloc(s->atoms * sizeof(int32_t));
	s->list_cells = malloc(s->atoms * sizeof(int32_t));
	for (int d = 0; d < 3; d++)
		if (!s->r[d] || !s->p[d])
			return -CS_ENOMEM;
	if (!s->f[0] || !s->f[1] || !s->f[2] || !s->f[3] || !s->natoms || !s->species || !s->nbr ||
	    !s->list_atoms || !s->list_cells)
		return -CS_ENOMEM;

	/* createFccLattice's order; displaced sites wrapped into the box */
	sigma_v = sqrt(COMD_KB_EV * COMD_TEMP / s->mass);
	for (int ix = 0; ix < n; ix++)
		for (int iy = 0; iy < n; iy++)
			for (int iz = 0; iz < n; iz++)
				for (int ib = 0; ib < 4; ib++, id++) {
					int c[3], cell, slot;
					double rr[3];

					for (int d = 0; d < 3; d++) {
						int u = d == 0 ? ix : d == 1 ? iy : iz;

						rr[d] =
						    (u + basis[ib][d]) * COMD_LAT +
						    (2.0 * wl_unit(seed, 1, 3ull * id + d) - 1.0) *
							COMD_DELTA;
						if (rr[d] < 0)
							rr[d] += s->len[d];
						if (rr[d] >= s->len[d])
							rr[d] -= s->len[d];
						c[d] = (int)(rr[d] / box[d]);
						if (c[d] >= s->grid[d])
							c[d] = s->grid[d] - 1;
					}
					cell = comd_box(s->grid, c[0], c[1], c[2]);
					slot = s->natoms[cell]++;
					if (slot >= COMD_MAXATOMS)
						return -CS_EINVAL;
					for (int d = 0; d < 3; d++) {
						/* Box-Muller: a Maxwell-Boltzmann momentum */
						double u1 = 1.0 - wl_unit(seed, 2, 3ull * id + d);
						double u2 = wl_unit(seed, 3, 3ull * id + d);

						s->r[d][cell * COMD_MAXATOMS + slot] = rr[d];
						s->p[d][cell * COMD_MAXATOMS + slot] =
						    s->mass * sigma_v * sqrt(-2.0 * log(u1)) *
						    cos(6.283185307179586 * u2);
					}
				}
	/* the atom list, cell-major (UpdateAtomList) */
	id = 0;
	for (int b = 0; b < s->nlocal; b++)
		for (int i = 0; i < s->natoms[b]; i++, id++) {
			s->list_atoms[id] = i;
			s->list_cells[id] = b;
		}
	/* getNeighborBoxes, the cell itself swapped to the front */
	for (int b = 0; b < s->nlocal; b++) {
		int ix = b % s->grid[0], iy = b / s->grid[0] % s->grid[1];
		int iz = b / (s->grid[0] * s->grid[1]), cnt = 0, self = 0;
		int32_t *nb = &s->nbr[(size_t)b * COMD_NBRS];

		for (int i = ix - 1; i <= ix + 1; i++)
			for (int j = iy - 1; j <= iy + 1; j++)
				for (int k = iz - 1; k <= iz + 1; k++) {
					if (i == ix && j == iy && k == iz)
						self = cnt;
					nb[cnt++] = comd_box(s->grid, i, j, k);
				}
		nb[self] = nb[0];
		nb[0] = b;
	}
	/* halo copies: x faces from local cells, y faces including the x halo, z faces
	 * including both (CoMD's haloExchange order) */
	for (int d = 0; d < 3; d++) {
		int g[3] = {s->grid[0], s->grid[1], s->grid[2]}, lo[3] = {0, 0, 0}, pairs = 0;
		int u = (d + 1) % 3, v = (d + 2) % 3, nu, nv;

		/* the dimensions already exchanged include their halo cells */
		if (u < d)
			lo[u] = -1;
		if (v < d)
			lo[v] = -1;
		nu = g[u] - 2 * lo[u];
		nv = g[v] - 2 * lo[v];
		s->halo_src[d] = malloc((size_t)nu * nv * 2 * sizeof(int32_t));
		s->halo_dst[d] = malloc((size_t)nu * nv * 2 * sizeof(int32_t));
		s->halo_sign[d] = malloc((size_t)nu * nv * 2 * sizeof(int32_t));
		if (!s->halo_src[d] || !s->halo_dst[d] || !s->halo_sign[d])
			return -CS_ENOMEM;
		for (int b = 0; b < nv; b++)
			for (int a = 0; a < nu; a++)
				for (int side = 0; side < 2; side++) {
					int sc[3], dc[3];

					sc[u] = dc[u] = lo[u] + a;
					sc[v] = dc[v] = lo[v] + b;
					sc[d] = side ? g[d] - 1 : 0;
					dc[d] = side ? -1 : g[d];
					s->halo_src[d][pairs] = comd_box(g, sc[0], sc[1], sc[2]);
					s->halo_dst[d][pairs] = comd_box(g, dc[0], dc[1], dc[2]);
					s->halo_sign[d][pairs] = side ? -1 : 1;
					s->natoms[s->halo_dst[d][pairs]] =
					    s->natoms[s->halo_src[d][pairs]];
					pairs++;
				}
		s->halo_pairs[d] = pairs;
	}
	return 0;
}

/* The host's copy of the steps: the same functions in the kernels' order. */
static void comd_ref_halo(struct comd_sim *s)
{
	for (int d = 0; d < 3; d++)
		for (int i = 0; i < s->halo_pairs[d]; i++) {
			int src = s->halo_src[d][i], dst = s->halo_dst[d][i];

			for (int k = 0; k < s->natoms[src]; k++)
				for (int e = 0; e < 3; e++) {
					double x = s->r[e][src * COMD_MAXATOMS + k];

					if (e == d)
						x = comd_shifted(x, s->halo_sign[d][i], s->len[d]);
					s->r[e][dst * COMD_MAXATOMS + k] = x;
				}
		}
}

static void comd_ref_force(struct comd_sim *s, const struct comd_lj *c)
{
	for (unsigned t = 0; t < s->atoms; t++) {
		int ibox = s->list_cells[t];
		size_t ioff = (size_t)ibox * COMD_MAXATOMS + s->list_atoms[t];
		double ri[3] = {s->r[0][ioff], s->r[1][ioff], s->r[2][ioff]}, acc[4] = {0}, out[4];

		for (int j = 0; j < COMD_NBRS; j++) {
			int jbox = s->nbr[ibox * COMD_NBRS + j];

			for (int k = 0; k < s->natoms[jbox]; k++) {
				size_t joff = (size_t)jbox * COMD_MAXATOMS + k;

				comd_pair(ri, s->r[0][joff], s->r[1][joff], s->r[2][joff], c,
					  j == 0, acc);
			}
		}
		comd_finish(acc, c->epsilon, out);
		for (int k = 0; k < 4; k++)
			s->f[k][ioff] = out[k];
	}
}

static void comd_ref_velocity(struct comd_sim *s, double dt)
{
	for (unsigned t = 0; t < s->atoms; t++) {
		size_t ioff = (size_t)s->list_cells[t] * COMD_MAXATOMS + s->list_atoms[t];

		for (int d = 0; d < 3; d++)
			s->p[d][ioff] = comd_kick(s->p[d][ioff], dt, s->f[d][ioff]);
	}
}

static void comd_ref_position(struct comd_sim *s, double dt)
{
	for (unsigned t = 0; t < s->atoms; t++) {
		size_t ioff = (size_t)s->list_cells[t] * COMD_MAXATOMS + s->list_atoms[t];

		for (int d = 0; d < 3; d++)
			s->r[d][ioff] = comd_drift(s->r[d][ioff], dt, s->p[d][ioff], s->mass);
	}
}

/* Device copies of the host's arrays. */
static void comd_upload(struct gpu_host *h, struct comd_args *a, const struct comd_sim *s)
{
	size_t slots = (size_t)s->ntotal * COMD_MAXATOMS;
	uint64_t *r[3] = {&a->rx, &a->ry, &a->rz}, *p[3] = {&a->px, &a->py, &a->pz};
	uint64_t *f[4] = {&a->fx, &a->fy, &a->fz, &a->e};

	for (int d = 0; d < 3; d++) {
		*r[d] = wl_upload(h, s->r[d], slots * sizeof(double));
		*p[d] = wl_upload(h, s->p[d], slots * sizeof(double));
	}
	for (int d = 0; d < 4; d++)
		*f[d] = wl_alloc_zero(h, slots * sizeof(double));
	a->natoms = wl_upload(h, s->natoms, (size_t)s->ntotal * sizeof(int32_t));
	a->nbr_cells = wl_upload(h, s->nbr, (size_t)s->nlocal * COMD_NBRS * sizeof(int32_t));
	a->list_atoms = wl_upload(h, s->list_atoms, s->atoms * sizeof(int32_t));
	a->list_cells = wl_upload(h, s->list_cells, s->atoms * sizeof(int32_t));
	a->species = wl_upload(h, s->species, slots * sizeof(int32_t));
	a->species_mass = wl_upload(h, &s->mass, sizeof(double));
}

static int comd_launch(struct gpu_host *h, struct gpu_kernel *k, const char *name,
		       void (*fn)(struct gpu_warp *w), unsigned threads, unsigned *launches)
{
	k->name = name;
	k->fn = fn;
	k->ctas = (threads + COMD_CTA - 1) / COMD_CTA;
	(*launches)++;
	return gh_launch(h, k);
}

static int comd_halo(struct gpu_host *h, struct gpu_kernel *k, struct comd_args *a,
		     const uint64_t dev[3][3], const struct comd_sim *s, unsigned *launches)
{
	for (int d = 0; d < 3; d++) {
		int err;

		a->halo_src = dev[d][0];
		a->halo_dst = dev[d][1];
		a->halo_sign = dev[d][2];
		a->halo_dim = d;
		a->pairs = (unsigned)s->halo_pairs[d];
		a->shift = s->len[d];
		err = comd_launch(h, k, "haloExchange", comd_halo_kernel, a->pairs * COMD_MAXATOMS,
				  launches);
		if (err)
			return err;
	}
	return 0;
}

/* Compares the device's array with the host's over the local atoms. */
static int comd_compare(struct gpu_host *h, uint64_t dev, const double *want, double *got,
			const struct comd_sim *s, const char *what)
{
	gh_read(h, dev, got, (size_t)s->nlocal * COMD_MAXATOMS * sizeof(double));
	for (unsigned t = 0; t < s->atoms; t++) {
		size_t ioff = (size_t)s->list_cells[t] * COMD_MAXATOMS + s->list_atoms[t];

		if (pu_d2u(got[ioff]) != pu_d2u(want[ioff]))
			return gh_fail(
			    h, "comd: %s of atom %u (cell %d, slot %d) = %.17g, want %.17g", what,
			    t, s->list_cells[t], s->list_atoms[t], got[ioff], want[ioff]);
	}
	return 0;
}

int doe_comd_main(struct gpu_host *h)
{
	/* FCC unit cells per dimension: 256, 2 048, 6 912 atoms (CoMD's default is 20^3) */
	int n = (int)wl_by_size(h, 4, 8, 12);
	unsigned steps = (unsigned)wl_by_size(h, 1, 1, 2), launches = 0;
	uint64_t seed = gh_seed(h) ^ TAG_COMD, halo_dev[3][3];
	struct comd_sim s = {0};
	struct comd_args a = {.sigma = COMD_SIGMA, .rcut = 2.5 * COMD_SIGMA};
	struct gpu_kernel kern = {
	    .warps_per_cta = COMD_WARPS,
	    .regs_per_thread = 32,
	    .args = &a,
	};
	struct comd_lj c = comd_lj_consts(a.sigma, a.rcut, COMD_EPSILON);
	double *got = NULL;
	int err;

	err = comd_setup(&s, n, seed);
	if (err == -CS_EINVAL) {
		err = gh_error(h, err, "comd: a link cell holds more than %d atoms", COMD_MAXATOMS);
		goto out;
	}
	if (err)
		goto out;
	err = -CS_ENOMEM;
	got = malloc((size_t)s.ntotal * COMD_MAXATOMS * sizeof(double));
	if (!got)
		goto out;
	a.atoms = s.atoms;
	comd_upload(h, &a, &s);
	for (int d = 0; d < 3; d++) {
		size_t bytes = (size_t)s.halo_pairs[d] * sizeof(int32_t);

		halo_dev[d][0] = wl_upload(h, s.halo_src[d], bytes);
		halo_dev[d][1] = wl_upload(h, s.halo_dst[d], bytes);
		halo_dev[d][2] = wl_upload(h, s.halo_sign[d], bytes);
	}

	/* initial forces, then velocity Verlet steps (CoMD's timestep) */
	err = comd_halo(h, &kern, &a, halo_dev, &s, &launches);
	if (!err)
		err = comd_launch(h, &kern, "LJ_Force_thread_atom", comd_force_kernel, s.atoms,
				  &launches);
	for (unsigned t = 0; t < steps && !err; t++) {
		a.dt = 0.5 * COMD_DT;
		err = comd_launch(h, &kern, "AdvanceVelocity", comd_velocity_kernel, s.atoms,
				  &launches);
		a.dt = COMD_DT;
		if (!err)
			err = comd_launch(h, &kern, "AdvancePosition", comd_position_kernel,
					  s.atoms, &launches);
		if (!err)
			err = comd_halo(h, &kern, &a, halo_dev, &s, &launches);
		if (!err)
			err = comd_launch(h, &kern, "LJ_Force_thread_atom", comd_force_kernel,
					  s.atoms, &launches);
		a.dt = 0.5 * COMD_DT;
		if (!err)
			err = comd_launch(h, &kern, "AdvanceVelocity", comd_velocity_kernel,
					  s.atoms, &launches);
	}
	if (err)
		goto out;
	gh_corrupt(h, a.fx + ((uint64_t)s.list_cells[0] * COMD_MAXATOMS + s.list_atoms[0]) * 8, 8);

	comd_ref_halo(&s);
	comd_ref_force(&s, &c);
	for (unsigned t = 0; t < steps; t++) {
		comd_ref_velocity(&s, 0.5 * COMD_DT);
		comd_ref_position(&s, COMD_DT);
		comd_ref_halo(&s);
		comd_ref_force(&s, &c);
		comd_ref_velocity(&s, 0.5 * COMD_DT);
	}
	{
		const uint64_t dev[10] = {a.fx, a.fy, a.fz, a.e,  a.px,
					  a.py, a.pz, a.rx, a.ry, a.rz};
		const double *want[10] = {s.f[0], s.f[1], s.f[2], s.f[3], s.p[0],
					  s.p[1], s.p[2], s.r[0], s.r[1], s.r[2]};
		static const char *const what[10] = {"f.x", "f.y", "f.z", "e",	 "p.x",
						     "p.y", "p.z", "r.x", "r.y", "r.z"};
		double epot = 0;

		for (int k = 0; k < 10; k++) {
			err = comd_compare(h, dev[k], want[k], got, &s, what[k]);
			if (err)
				goto out;
		}
		for (unsigned t = 0; t < s.atoms; t++)
			epot += s.f[3][(size_t)s.list_cells[t] * COMD_MAXATOMS + s.list_atoms[t]];
		gh_note(h,
			"comd: %u atoms (%d^3 FCC cells), %dx%dx%d link cells, %u steps in %u "
			"launches, every force, energy, momentum and position bit-exact (potential "
			"energy %.6f eV/atom)",
			s.atoms, n, s.grid[0], s.grid[1], s.grid[2], steps, launches,
			epot / s.atoms);
	}
	err = 0;
out:
	free(got);
	comd_sim_free(&s);
	return err;
}
