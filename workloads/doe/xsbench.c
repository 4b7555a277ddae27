/*
 * workloads/doe/xsbench.c - XSBench (Tramm et al., PHYSOR 2014; ANL-CESAR/XSBench), the
 * macroscopic cross-section look-up kernel of Monte Carlo neutron transport (OpenMC), one of
 * the US DOE proxy applications of Villa et al. (SC'14) used by the selective-caching study.
 *
 * The CUDA version's baseline event-based kernel (cuda/Simulation.cu,
 * xs_lookup_kernel_baseline, unionized energy grid): one look-up per thread, CTAs of 256
 * threads, ceil(lookups / 256) CTAs. A thread fast-forwards XSBench's 63-bit LCG to its
 * look-up (2 samples per look-up), draws a neutron energy in [0, 1) and a material (pick_mat's
 * volume fractions of the Hoogenboom-Martin reactor), binary-searches the unionized energy
 * grid (the sorted energies of every nuclide's grid points) for the energy, and then for every
 * nuclide of the material reads its concentration, the index grid's entry (the nuclide's grid
 * point just below the unionized energy) and the two bracketing grid points (48-byte structs:
 * energy and five cross sections), interpolates the five micro cross sections and accumulates
 * them, weighted by the concentration, into the five macro cross sections. The index of the
 * largest macro cross section + 1 is the look-up's verification value; XSBench sums them into
 * its verification hash.
 *
 * Access pattern: the binary search is a chain of dependent 8-byte loads at data-dependent
 * addresses (the first steps are the same few lines for every look-up); the nuclide loop reads
 * one 272-byte row of the index grid per look-up and two adjacent grid points per nuclide at
 * random places of the nuclide grid: each lane of a warp touches its own lines, so a warp's
 * load is up to 32 requests. The lanes of a warp have different materials (4 to 34 nuclides):
 * the loop runs to the warp's largest, with the other lanes masked.
 *
 * No sharing: every input is written by the host before the launch and each thread writes its
 * own outputs. No coherence needed.
 *
 * Check: a host reference performs every look-up through the same functions (LCG, pick_mat,
 * search, interpolation and accumulation in XSBench's order), so every macro cross section
 * and verification value must be bit-exact, and so must the verification hash.
 */
#include "workloads/doe/doe.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/port_util.h"
#include "workloads/wl_util.h"

#define TAG_XS	    0x7873626e63680000ull
#define XS_THREADS  256 /* XSBench: nthreads = 256 */
#define XS_WARPS    (XS_THREADS / WARP_LANES)
#define XS_ISOTOPES 68 /* Hoogenboom-Martin "small": 68 nuclides */
#define XS_MATS	    12
#define XS_MAX_NUCS 34 /* the fuel's 34 nuclides (H-M small) */
#define XS_CHANNELS 5  /* total, elastic, absorption, fission, nu-fission */
#define XS_POINT    6  /* doubles of a NuclideGridPoint: energy and the 5 cross sections */
#define XS_LCG_M    (1ull << 63)
#define XS_LCG_A    2806196910506780709ull

/*
 * Issue slots per warp (SASS-like counts of xs_lookup_kernel_baseline for sm_20; a
 * double-precision instruction counts 8 slots, the GTX 480's 1/8 rate; a 64-bit integer
 * multiply ~4 IMADs):
 * prologue: 2 S2R, IMAD tid, bound test (ISETP, BRA), 2 * i, parameter loads: 12;
 * fast_forward_LCG, per bit of n: bit test and branch, a_new *= a, c_new = c_new * a + c,
 *   c *= a + 1, a *= a (4 64-bit multiplies + adds), n >>= 1, loop: 24;
 * LCG_random_double: 64-bit multiply-add and mask (6), U2D and the division by 2^63 (a DMUL):
 *   2 DP = 22;
 * pick_mat, per material tried (the running sums fold to constants): DSETP and branch, loop: 10;
 * binary search, per step: examination point (64-bit shift and add), address, DSETP (8), two
 *   64-bit selects, length, loop test: 25;
 * per nuclide, addressing: mats/concs index and addresses, idx * n_isotopes + nuc (64-bit),
 *   the compare with n_gridpoints - 1 and select, the grid point's address (nuc * n + i,
 *   * 48): 24;
 * per nuclide, arithmetic: f = 2 DADD + a DP division (~8 DP instructions: MUFU.RCP64H, Newton
 *   DFMAs, fix-up), 5 x (DADD, DFMA) interpolations, 5 DFMA accumulations: 25 DP = 200, loop 3;
 * epilogue: the arg-max over 5 channels (5 x DSETP + 2 SEL): 50, store addresses: 6.
 */
#define XS_DP	       8
#define XS_PROLOGUE    12
#define XS_FF_BIT      24
#define XS_LCG	       (6 + 2 * XS_DP)
#define XS_PICK_TRY    10
#define XS_SEARCH_STEP 25
#define XS_NUC_ADDR    24
#define XS_NUC_MATH    (25 * XS_DP + 3)
#define XS_EPILOGUE    56

/* H-M small: nuclides per material and their ids (XSBench Materials.c). */
static const int xs_num_nucs[XS_MATS] = {34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9};
static const int xs_mat_nucs[XS_MATS][XS_MAX_NUCS] = {
    /* fuel */
    {58, 59, 60, 61, 40, 42, 43, 44, 45, 46, 1,	 2,  3,	 7,  8,	 9,  10,
     29, 57, 47, 48, 0,	 62, 15, 33, 34, 52, 53, 54, 55, 56, 18, 23, 41},
    {63, 64, 65, 66, 67}, /* cladding */
    {24, 41, 4, 5},	  /* cold borated water */
    {24, 41, 4, 5},	  /* hot borated water */
    /* reactor pressure vessel */
    {19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 27, 28, 29, 30,
     31, 32, 26, 49, 50, 51, 11, 12, 13, 14, 6,	 16, 17},
    /* lower radial reflector, top plate, bottom plate, bottom nozzle, top nozzle */
    {24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 49, 50, 51, 11, 12, 13, 14},
    {24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 49, 50, 51, 11, 12, 13, 14},
    {24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 49, 50, 51, 11, 12, 13, 14},
    {24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 49, 50, 51, 11, 12, 13, 14},
    {24, 41, 4, 5, 19, 20, 21, 22, 35, 36, 37, 38, 39, 25, 49, 50, 51, 11, 12, 13, 14},
    {24, 41, 4, 5, 63, 64, 65, 66, 67}, /* top of fuel assemblies */
    {24, 41, 4, 5, 63, 64, 65, 66, 67}, /* bottom of fuel assemblies */
};

/* pick_mat's volume fractions of the core. */
static const double xs_dist[XS_MATS] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
					0.066, 0.055, 0.008, 0.015, 0.025, 0.013};

struct xs_args {
	uint64_t num_nucs;     /* int[12] */
	uint64_t concs;	       /* double[12][max_num_nucs] */
	uint64_t mats;	       /* int[12][max_num_nucs] */
	uint64_t egrid;	       /* double[n_isotopes * n_gridpoints]: the unionized energy grid */
	uint64_t index_grid;   /* int[n_isotopes * n_gridpoints][n_isotopes] */
	uint64_t nuclide_grid; /* NuclideGridPoint[n_isotopes][n_gridpoints] */
	uint64_t verification; /* unsigned long[lookups] */
	uint64_t macro_xs;     /* double[lookups][5]: the look-ups' results, for the check */
	uint64_t lookups, n_isotopes, n_gridpoints, max_num_nucs;
	uint64_t start_seed; /* XSBench's STARTING_SEED, here from the run seed */
};

/* ---- XSBench's functions, shared by the kernel and the reference ------------------------- */

static double xs_lcg_double(uint64_t *seed)
{
	*seed = (XS_LCG_A * *seed + 1) % XS_LCG_M;
	return (double)*seed / (double)XS_LCG_M;
}

/* fast_forward_LCG: the seed n steps ahead, in O(log n); *bits = the loop's iterations. */
static uint64_t xs_fast_forward(uint64_t seed, uint64_t n, unsigned *bits)
{
	uint64_t a = XS_LCG_A, c = 1, a_new = 1, c_new = 0;

	n %= XS_LCG_M;
	*bits = 0;
	while (n > 0) {
		if (n & 1) {
			a_new *= a;
			c_new = c_new * a + c;
		}
		c *= a + 1;
		a *= a;
		n >>= 1;
		(*bits)++;
	}
	return (a_new * seed + c_new) % XS_LCG_M;
}

/* pick_mat as XSBench writes it (the running sum starts at dist[i] and stops before dist[0],
 * so the fuel is what is left over); *tries = materials tested. */
static int xs_pick_mat(uint64_t *seed, unsigned *tries)
{
	double roll = xs_lcg_double(seed);

	for (int i = 0; i < XS_MATS; i++) {
		double running = 0;

		for (int j = i; j > 0; j--)
			running += xs_dist[j];
		if (roll < running) {
			*tries = (unsigned)i + 1;
			return i;
		}
	}
	*tries = XS_MATS;
	return 0;
}

/* The look-up's energy and material (the kernel's first lines). */
static void xs_sample(uint64_t start_seed, uint64_t i, double *energy, int *mat, unsigned *bits,
		      unsigned *tries)
{
	uint64_t seed = xs_fast_forward(start_seed, 2 * i, bits);

	*energy = xs_lcg_double(&seed);
	*mat = xs_pick_mat(&seed, tries);
}

/* calculate_micro_xs's interpolation between the bracketing grid points, then the
 * accumulation of calculate_macro_xs (noinline: one copy of the machine code for both). */
static __attribute__((noinline)) void xs_accumulate(double energy, const double *low,
						    const double *high, double conc,
						    double macro[XS_CHANNELS])
{
	double f = (high[0] - energy) / (high[0] - low[0]);
	double xs[XS_CHANNELS];

	for (int k = 0; k < XS_CHANNELS; k++)
		xs[k] = high[k + 1] - f * (high[k + 1] - low[k + 1]);
	for (int k = 0; k < XS_CHANNELS; k++)
		macro[k] += xs[k] * conc;
}

/* The kernel's verification value: index of the largest macro cross section, + 1. */
static uint64_t xs_verification(const double macro[XS_CHANNELS])
{
	double max = -1.0;
	int max_idx = 0;

	for (int j = 0; j < XS_CHANNELS; j++)
		if (macro[j] > max) {
			max = macro[j];
			max_idx = j;
		}
	return (uint64_t)max_idx + 1;
}

/* ---- kernel --------------------------------------------------------------------------------- */

static void xs_kernel(struct gpu_warp *w)
{
	const struct xs_args *a = gw_args(w);
	uint64_t addr[WARP_LANES], v[WARP_LANES], tid[WARP_LANES];
	double energy[WARP_LANES], macro[WARP_LANES][XS_CHANNELS];
	double low[WARP_LANES][XS_POINT], high[WARP_LANES][XS_POINT], conc[WARP_LANES];
	int64_t lower[WARP_LANES], upper[WARP_LANES], exam[WARP_LANES];
	int mat[WARP_LANES], nucs[WARP_LANES], nuc[WARP_LANES];
	uint64_t n = a->n_isotopes * a->n_gridpoints;
	unsigned bits_max = 0, tries_max = 0;
	uint32_t mask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned bits, tries;

		tid[l] = gw_tid(w, l);
		if (tid[l] >= a->lookups)
			continue;
		mask |= 1u << l;
		xs_sample(a->start_seed, tid[l], &energy[l], &mat[l], &bits, &tries);
		bits_max = bits > bits_max ? bits : bits_max;
		tries_max = tries > tries_max ? tries : tries_max;
		for (int k = 0; k < XS_CHANNELS; k++)
			macro[l][k] = 0;
		lower[l] = 0;
		upper[l] = (int64_t)n - 1;
	}
	if (!mask) {
		gw_compute(w, XS_PROLOGUE);
		return;
	}
	gw_compute(w, XS_PROLOGUE + bits_max * XS_FF_BIT + 2 * XS_LCG + tries_max * XS_PICK_TRY);

	/* grid_search on the unionized energy grid: the lower index of the bracket */
	for (;;) {
		uint32_t act = 0;

		for (unsigned l = 0; l < WARP_LANES; l++) {
			int64_t length = upper[l] - lower[l];

			if (!(mask >> l & 1) || length <= 1)
				continue;
			act |= 1u << l;
			exam[l] = lower[l] + length / 2;
			addr[l] = a->egrid + (uint64_t)exam[l] * 8;
		}
		if (!act)
			break;
		gw_ld64v(w, addr, act, v);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (!(act >> l & 1))
				continue;
			if (pu_u2d(v[l]) > energy[l])
				upper[l] = exam[l];
			else
				lower[l] = exam[l];
		}
		gw_compute(w, XS_SEARCH_STEP);
	}

	/* num_nucs[mat], then every nuclide of the material */
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->num_nucs + (uint64_t)mat[l] * 4;
	{
		uint32_t nv[WARP_LANES] = {0};

		gw_ld32v(w, addr, mask, nv);
		for (unsigned l = 0; l < WARP_LANES; l++)
			nucs[l] = (int)nv[l];
	}
	for (int j = 0;; j++) {
		uint32_t act = 0, iv[WARP_LANES] = {0}, nv[WARP_LANES] = {0};

		for (unsigned l = 0; l < WARP_LANES; l++)
			if ((mask >> l & 1) && j < nucs[l])
				act |= 1u << l;
		if (!act)
			break;
		gw_compute(w, XS_NUC_ADDR);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->mats + ((uint64_t)mat[l] * a->max_num_nucs + (uint64_t)j) * 4;
		gw_ld32v(w, addr, act, nv);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			nuc[l] = (int)nv[l];
			addr[l] = a->concs + ((uint64_t)mat[l] * a->max_num_nucs + (uint64_t)j) * 8;
		}
		gw_ld64v(w, addr, act, v);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			conc[l] = pu_u2d(v[l]);
			addr[l] = a->index_grid +
				  ((uint64_t)lower[l] * a->n_isotopes + (uint64_t)nuc[l]) * 4;
		}
		gw_ld32v(w, addr, act, iv);
		/* low = the grid point at the index (one below it at the grid's end), high = low + 1;
		 * their energies first (f), then each cross section of high and low */
		for (unsigned l = 0; l < WARP_LANES; l++) {
			uint64_t i = iv[l] == a->n_gridpoints - 1 ? iv[l] - 1 : iv[l];

			exam[l] = (int64_t)((uint64_t)nuc[l] * a->n_gridpoints + i);
		}
		for (unsigned f = 0; f < XS_POINT; f++)
			for (unsigned side = 0; side < 2; side++) {
				for (unsigned l = 0; l < WARP_LANES; l++)
					addr[l] = a->nuclide_grid +
						  ((uint64_t)exam[l] + 1 - side) * XS_POINT * 8 +
						  f * 8;
				gw_ld64v(w, addr, act, v);
				for (unsigned l = 0; l < WARP_LANES; l++)
					if (act >> l & 1) {
						if (side)
							low[l][f] = pu_u2d(v[l]);
						else
							high[l][f] = pu_u2d(v[l]);
					}
			}
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (act >> l & 1)
				xs_accumulate(energy[l], low[l], high[l], conc[l], macro[l]);
		gw_compute(w, XS_NUC_MATH);
	}

	/* verification[i] = arg-max + 1; the five macro cross sections for the check */
	gw_compute(w, XS_EPILOGUE);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		addr[l] = a->verification + tid[l] * 8;
		v[l] = (mask >> l & 1) ? xs_verification(macro[l]) : 0;
	}
	gw_st64v(w, addr, mask, v);
	for (unsigned k = 0; k < XS_CHANNELS; k++) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			addr[l] = a->macro_xs + (tid[l] * XS_CHANNELS + k) * 8;
			v[l] = (mask >> l & 1) ? pu_d2u(macro[l][k]) : 0;
		}
		gw_st64v(w, addr, mask, v);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

static int xs_point_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The same look-up on the host's copies of the data. */
static void xs_reference(const struct xs_args *a, const double *egrid, const int32_t *index_grid,
			 const double *grid, const double *concs, uint64_t i,
			 double macro[XS_CHANNELS])
{
	uint64_t n = a->n_isotopes * a->n_gridpoints;
	int64_t lower = 0, upper = (int64_t)n - 1;
	unsigned bits, tries;
	double energy;
	int mat;

	xs_sample(a->start_seed, i, &energy, &mat, &bits, &tries);
	for (int k = 0; k < XS_CHANNELS; k++)
		macro[k] = 0;
	while (upper - lower > 1) {
		int64_t exam = lower + (upper - lower) / 2;

		if (egrid[exam] > energy)
			upper = exam;
		else
			lower = exam;
	}
	for (int j = 0; j < xs_num_nucs[mat]; j++) {
		int nuc = xs_mat_nucs[mat][j];
		uint64_t iv = (uint64_t)index_grid[(uint64_t)lower * a->n_isotopes + (uint64_t)nuc];
		uint64_t p =
		    (uint64_t)nuc * a->n_gridpoints + (iv == a->n_gridpoints - 1 ? iv - 1 : iv);

		xs_accumulate(energy, &grid[p * XS_POINT], &grid[(p + 1) * XS_POINT],
			      concs[mat * XS_MAX_NUCS + j], macro);
	}
}

int doe_xsbench_main(struct gpu_host *h)
{
	uint64_t seed = gh_seed(h) ^ TAG_XS;
	struct xs_args a = {
	    /* default: 96 CTAs, two waves at 3 CTAs per SM; XSBench's H-M small grid, 11 303
	     * points per nuclide (unionized grid 6.1 MB, nuclide grid 36.9 MB, index grid 209 MB) */
	    .lookups = wl_by_size(h, 256, 4096, 24576),
	    .n_isotopes = XS_ISOTOPES,
	    .n_gridpoints = wl_by_size(h, 32, 200, 11303),
	    .max_num_nucs = XS_MAX_NUCS,
	};
	struct gpu_kernel kern = {
	    .name = "xs_lookup_kernel_baseline",
	    .warps_per_cta = XS_WARPS,
	    .regs_per_thread = 40,
	    .fn = xs_kernel,
	    .args = &a,
	};
	uint64_t n = a.n_isotopes * a.n_gridpoints, nidx = n * a.n_isotopes;
	double *grid = malloc(n * XS_POINT * sizeof(double));
	double *egrid = malloc(n * sizeof(double));
	int32_t *index_grid = malloc(nidx * sizeof(int32_t));
	int32_t *idx_low = calloc(a.n_isotopes, sizeof(int32_t));
	double *energy_high = malloc(a.n_isotopes * sizeof(double));
	double *concs = calloc(XS_MATS * XS_MAX_NUCS, sizeof(double));
	int32_t *mats = calloc(XS_MATS * XS_MAX_NUCS, sizeof(int32_t));
	int32_t num_nucs[XS_MATS];
	double *got = malloc(a.lookups * XS_CHANNELS * sizeof(double));
	uint64_t *ver = malloc(a.lookups * sizeof(uint64_t));
	uint64_t hash = 0, want_hash = 0;
	int err = -CS_ENOMEM;

	if (!grid || !egrid || !index_grid || !idx_low || !energy_high || !concs || !mats || !got ||
	    !ver)
		goto out;
	a.start_seed = wl_mix64(seed) % XS_LCG_M;

	/* nuclide grids: random energies and cross sections, each nuclide sorted by energy */
	for (uint64_t i = 0; i < n * XS_POINT; i++)
		grid[i] = wl_unit(seed, 1, i);
	for (uint64_t i = 0; i < a.n_isotopes; i++)
		qsort(&grid[i * a.n_gridpoints * XS_POINT], a.n_gridpoints,
		      XS_POINT * sizeof(double), xs_point_cmp);
	/* the unionized grid and its index grid (XSBench's grid_init_do_not_profile) */
	for (uint64_t i = 0; i < n; i++)
		egrid[i] = grid[i * XS_POINT];
	qsort(egrid, n, sizeof(double), xs_point_cmp);
	for (uint64_t i = 0; i < a.n_isotopes; i++)
		energy_high[i] = grid[(i * a.n_gridpoints + 1) * XS_POINT];
	for (uint64_t e = 0; e < n; e++)
		for (uint64_t i = 0; i < a.n_isotopes; i++) {
			if (egrid[e] >= energy_high[i] &&
			    (uint64_t)idx_low[i] != a.n_gridpoints - 2) {
				idx_low[i]++;
				energy_high[i] =
				    grid[(i * a.n_gridpoints + (uint64_t)idx_low[i] + 1) *
					 XS_POINT];
			}
			index_grid[e * a.n_isotopes + i] = idx_low[i];
		}
	/* materials: H-M small compositions, random concentrations */
	for (int m = 0; m < XS_MATS; m++) {
		num_nucs[m] = xs_num_nucs[m];
		for (int j = 0; j < xs_num_nucs[m]; j++) {
			mats[m * XS_MAX_NUCS + j] = xs_mat_nucs[m][j];
			concs[m * XS_MAX_NUCS + j] =
			    wl_unit(seed, 2, (uint64_t)(m * XS_MAX_NUCS + j));
		}
	}
	a.num_nucs = wl_upload(h, num_nucs, sizeof(num_nucs));
	a.concs = wl_upload(h, concs, XS_MATS * XS_MAX_NUCS * sizeof(double));
	a.mats = wl_upload(h, mats, XS_MATS * XS_MAX_NUCS * sizeof(int32_t));
	a.egrid = wl_upload(h, egrid, n * sizeof(double));
	a.index_grid = wl_upload(h, index_grid, nidx * sizeof(int32_t));
	a.nuclide_grid = wl_upload(h, grid, n * XS_POINT * sizeof(double));
	a.verification = wl_alloc_zero(h, a.lookups * 8);
	a.macro_xs = wl_alloc_zero(h, a.lookups * XS_CHANNELS * 8);

	kern.ctas = (unsigned)((a.lookups + XS_THREADS - 1) / XS_THREADS);
	err = gh_launch(h, &kern);
	if (err)
		goto out;
	gh_corrupt(h, a.macro_xs, 8);
	gh_read(h, a.macro_xs, got, a.lookups * XS_CHANNELS * sizeof(double));
	gh_read(h, a.verification, ver, a.lookups * sizeof(uint64_t));

	/* every look-up, bit for bit; then the verification hash (XSBench's reduction) */
	for (uint64_t i = 0; i < a.lookups; i++) {
		double want[XS_CHANNELS];
		uint64_t wv;

		xs_reference(&a, egrid, index_grid, grid, concs, i, want);
		for (int k = 0; k < XS_CHANNELS; k++)
			if (pu_d2u(got[i * XS_CHANNELS + k]) != pu_d2u(want[k])) {
				err = gh_fail(h,
					      "xsbench: look-up %" PRIu64
					      " macro_xs[%d] = %.17g, want "
					      "%.17g",
					      i, k, got[i * XS_CHANNELS + k], want[k]);
				goto out;
			}
		wv = xs_verification(want);
		if (ver[i] != wv) {
			err = gh_fail(h,
				      "xsbench: look-up %" PRIu64 " verification = %" PRIu64
				      ", want %" PRIu64,
				      i, ver[i], wv);
			goto out;
		}
		hash += ver[i];
		want_hash += wv;
	}
	if (hash != want_hash) {
		err = gh_fail(h, "xsbench: verification hash %" PRIu64 ", want %" PRIu64, hash,
			      want_hash);
		goto out;
	}
	gh_note(h,
		"xsbench: %" PRIu64 " look-ups, %d nuclides x %" PRIu64 " grid points (unionized "
		"grid %" PRIu64 "), every macro_xs bit-exact, verification hash %" PRIu64,
		a.lookups, XS_ISOTOPES, a.n_gridpoints, n, hash);
	err = 0;
out:
	free(grid);
	free(egrid);
	free(index_grid);
	free(idx_low);
	free(energy_high);
	free(concs);
	free(mats);
	free(got);
	free(ver);
	return err;
}
