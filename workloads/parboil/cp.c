/*
 * workloads/parboil/cp.c - Coulombic potential (Parboil `cp`, Stratton et al. 2012; from the
 * `cionize` tool of VMD, Stone et al., J. Comp. Chem. 2007), the `cenergy` kernel of
 * cuenergy_pre8_coalesce.cu.
 *
 * The electrostatic potential sum_i q_i / r_i of a set of point charges on every point of one
 * z slice of a lattice (spacing 0.1 A). Parboil's host copies the atoms into __constant__
 * memory MAXATOMS = 4000 at a time, with dz^2 to the slice precomputed in place of z
 * (copyatomstoconstbuf), and launches one kernel per chunk; each launch adds its partial sums
 * to the energy grid (energygrid[i] += ...), which starts zeroed. A CTA is BLOCKSIZEX x
 * BLOCKSIZEY = 16 x 8 threads (4 warps); a thread computes UNROLLX = 8 lattice points of one
 * row spaced 16 points apart (coalesced: lanes tx = 0..15 are 16 consecutive points), so the
 * grid is volsize.x / 128 x volsize.y / 8 CTAs. Per atom every thread reads the atom's float4
 * from constant memory (all lanes the same address: one broadcast access per warp), computes
 * dy, dy^2 + dz^2 and the eight dx, and accumulates q / sqrt(r^2) in eight registers. At the end
 * each thread reads and writes its eight grid points (per warp: 8 loads and 8 stores, each two
 * 64 B runs of 16 floats in two rows).
 *
 * No sharing between CTAs (one writer per lattice point, atoms read-only): no coherence
 * needed; launches are ordered by the kernel boundary.
 *
 * Input: as Parboil's initatoms, atoms uniform in the box and charges uniform in [-1, 1), from
 * the seed; the box is dim3 (unsigned) gridspacing * volsize, so z is 0 for the one-slice
 * volume as in Parboil. Check: every lattice point bit for bit against a host reference that
 * sums the same chunks in the same order through the same function (1 / sqrtf on both sides).
 */
#include "workloads/parboil/parboil.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/port_util.h"
#include "workloads/wl_util.h"

#define TAG_CP	       0x6370000000000000ull
#define CP_BLOCKSIZEX  16 /* cuenergy.h */
#define CP_BLOCKSIZEY  8
#define CP_UNROLLX     8
#define CP_MAXATOMS    4000 /* atoms per launch: the __constant__ buffer atominfo[MAXATOMS] */
#define CP_WARPS       (CP_BLOCKSIZEX * CP_BLOCKSIZEY / WARP_LANES)
#define CP_GRIDSPACING 0.1f

/*
 * Issue slots per warp (SASS-like count of cenergy; nvcc of Parboil's era turns
 * 1.0f / sqrtf into one reciprocal square root on the SFU, ~4 slots at 1/8 rate with two
 * schedulers, as ccp counts it):
 * prologue: 4 S2R, 3 IMUL24/IMAD (xindex, yindex, outaddr), 2 I2F + 2 FMUL (coorx, coory),
 *   gridspacing_u, 8 zeroed accumulators, loop setup: 20;
 * per atom: dy (FADD), dyz2 (FFMA), dx1 (FADD), dx2..dx8 (7 FADD); per point FFMA r^2, RSQ (4),
 *   FFMA energy (8 x 6 = 48); loop (IADD, ISETP, BRA): 3; total 61 (the float4 comes from the
 *   constant cache: one access, the memory op below);
 * epilogue: 8 output addresses and 8 FADD: 16.
 */
#define CP_INST_PROLOGUE 20
#define CP_INST_ATOM	 61
#define CP_INST_STORE	 16

struct cp_args {
	uint64_t atominfo;   /* __constant__ float4 atominfo[MAXATOMS]: x, y, dz^2, q */
	uint64_t energygrid; /* float [volsize.y][volsize.x] */
	int numatoms;	     /* atoms in this launch */
	float gridspacing;
};

/* One atom's contribution to a thread's eight points, the kernel's float operations in order.
 * Shared by the kernel and the host reference (noinline: one copy of the machine code). */
static __attribute__((noinline)) void cp_atom(const float atom[4], float coorx, float coory,
					      float gridspacing_u, float energy[CP_UNROLLX])
{
	float dy = coory - atom[1];
	float dyz2 = (dy * dy) + atom[2];
	float dx = coorx - atom[0];

	for (unsigned k = 0; k < CP_UNROLLX; k++) {
		if (k)
			dx = dx + gridspacing_u;
		energy[k] += atom[3] * (1.0f / sqrtf(dx * dx + dyz2));
	}
}

/* ---- kernel --------------------------------------------------------------------------------- */

static void cp_kernel(struct gpu_warp *w)
{
	const struct cp_args *a = gw_args(w);
	unsigned bx = gw_cta_x(w), by = gw_cta_y(w), bdx = gw_block_x(w);
	unsigned row = gw_grid_x(w) * bdx * CP_UNROLLX; /* points per lattice row */
	float gridspacing_u = a->gridspacing * CP_BLOCKSIZEX;
	float coorx[WARP_LANES], coory[WARP_LANES], energy[WARP_LANES][CP_UNROLLX] = {{0}};
	uint64_t outaddr[WARP_LANES], addr[WARP_LANES];
	uint32_t got[WARP_LANES], put[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned xindex = bx * bdx * CP_UNROLLX + gw_thread_x(w, l);
		unsigned yindex = by * (CP_WARPS * WARP_LANES / bdx) + gw_thread_y(w, l);

		outaddr[l] = a->energygrid + 4 * ((uint64_t)row * yindex + xindex);
		coory[l] = a->gridspacing * (float)yindex;
		coorx[l] = a->gridspacing * (float)xindex;
	}
	gw_compute(w, CP_INST_PROLOGUE);
	for (int atomid = 0; atomid < a->numatoms; atomid++) {
		float atom[4];

		/* atominfo[atomid]: every lane the same float4 */
		pu_ld_const_float4(w, a->atominfo + 16 * (uint64_t)atomid, atom);
		for (unsigned l = 0; l < WARP_LANES; l++)
			cp_atom(atom, coorx[l], coory[l], gridspacing_u, energy[l]);
		gw_compute(w, CP_INST_ATOM);
	}
	gw_compute(w, CP_INST_STORE);
	/* energygrid[outaddr + k * BLOCKSIZEX] += energyvalx(k + 1) */
	for (unsigned k = 0; k < CP_UNROLLX; k++) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = outaddr[l] + 4 * k * CP_BLOCKSIZEX;
		gw_ld32v(w, addr, LANES_ALL, got);
		for (unsigned l = 0; l < WARP_LANES; l++)
			put[l] = wl_f2u(wl_u2f(got[l]) + energy[l][k]);
		gw_st32v(w, addr, LANES_ALL, put);
	}
}

/* ---- host ----------------------------------------------------------------------------------- */

int parboil_cp_main(struct gpu_host *h)
{
	bool full = gh_size(h) == GPU_SIZE_FULL;
	/* volsize.x a multiple of 128 (16 x UNROLLX), volsize.y of 8; full: Parboil's 512 x 512
	 * slice and 40000 atoms (cuenergy.h VOLSIZEX, VOLSIZEY, ATOMCOUNT) */
	unsigned volx = full ? 512 : (unsigned)wl_by_size(h, 128, 256, 512);
	unsigned voly = full ? 512 : (unsigned)wl_by_size(h, 32, 32, 256);
	int atomcount = full ? 40000 : (int)wl_by_size(h, 200, 4200, 5600);
	uint64_t seed = gh_seed(h) ^ TAG_CP;
	struct cp_args a = {.gridspacing = CP_GRIDSPACING};
	struct gpu_kernel kern = {.name = "cenergy",
				  .warps_per_cta = CP_WARPS,
				  .regs_per_thread = 20,
				  .fn = cp_kernel,
				  .args = &a,
				  .grid_x = volx / (CP_BLOCKSIZEX * CP_UNROLLX),
				  .grid_y = voly / CP_BLOCKSIZEY,
				  .block_x = CP_BLOCKSIZEX};
	size_t points = (size_t)volx * voly;
	float *atoms = malloc((size_t)atomcount * 4 * sizeof(float));
	float *pre = malloc((size_t)atomcount * 4 * sizeof(float));
	float *want = calloc(points, sizeof(float)), *got = malloc(points * sizeof(float));
	float gridspacing_u = CP_GRIDSPACING * CP_BLOCKSIZEX;
	unsigned launches = 0;
	int err = -CS_ENOMEM;

	if (!atoms || !pre || !want || !got)
		goto out;
	/* initatoms: the box in whole angstroms (dim3 is unsigned: z is 0 for one slice) */
	{
		unsigned size[3] = {(unsigned)(CP_GRIDSPACING * volx),
				    (unsigned)(CP_GRIDSPACING * voly),
				    (unsigned)(CP_GRIDSPACING * 1)};

		for (int i = 0; i < atomcount; i++) {
			for (unsigned d = 0; d < 3; d++)
				atoms[4 * i + d] =
				    (float)(wl_unit(seed, (uint64_t)i, d) * (float)size[d]);
			atoms[4 * i + 3] = (float)(wl_unit(seed, (uint64_t)i, 3) * 2.0 - 1.0);
		}
	}
	/* copyatomstoconstbuf with zplane 0: z replaced by dz^2 */
	for (int i = 0; i < atomcount; i++) {
		float dz = 0.0f - atoms[4 * i + 2];

		pre[4 * i] = atoms[4 * i];
		pre[4 * i + 1] = atoms[4 * i + 1];
		pre[4 * i + 2] = dz * dz;
		pre[4 * i + 3] = atoms[4 * i + 3];
	}
	a.atominfo = gh_alloc(h, CP_MAXATOMS * 16, 0);
	a.energygrid = wl_alloc_zero(h, points * sizeof(float));
	for (int start = 0; start < atomcount; start += CP_MAXATOMS) {
		int run = atomcount - start > CP_MAXATOMS ? CP_MAXATOMS : atomcount - start;

		/* cudaMemcpyToSymbol(atominfo, ...) */
		gh_write(h, a.atominfo, &pre[4 * start], (size_t)run * 16);
		a.numatoms = run;
		err = gh_launch(h, &kern);
		if (err)
			goto out;
		launches++;
	}
	gh_corrupt(h, a.energygrid + 4 * (points / 2), 4);
	gh_read(h, a.energygrid, got, points * sizeof(float));

	/* reference: each chunk's sums in atom order, added to the grid chunk by chunk */
	for (unsigned y = 0; y < voly; y++)
		for (unsigned x0 = 0; x0 < volx; x0++) {
			float coorx = CP_GRIDSPACING * (float)x0, coory = CP_GRIDSPACING * (float)y;
			size_t o = (size_t)y * volx + x0;

			/* the thread of the kernel whose first point is x0 does x0 + 16 k */
			if (x0 % (CP_BLOCKSIZEX * CP_UNROLLX) >= CP_BLOCKSIZEX)
				continue;
			for (int start = 0; start < atomcount; start += CP_MAXATOMS) {
				float e[CP_UNROLLX] = {0};
				int end = atomcount - start > CP_MAXATOMS ? start + CP_MAXATOMS
									  : atomcount;

				for (int i = start; i < end; i++)
					cp_atom(&pre[4 * i], coorx, coory, gridspacing_u, e);
				for (unsigned k = 0; k < CP_UNROLLX; k++)
					want[o + k * CP_BLOCKSIZEX] += e[k];
			}
		}
	{
		size_t bad = 0, first = 0;

		for (size_t i = 0; i < points; i++)
			if (wl_f2u(got[i]) != wl_f2u(want[i]) && bad++ == 0)
				first = i;
		if (bad) {
			err = gh_fail(
			    h,
			    "cp: energy at lattice point (%zu, %zu) = %.9g, want %.9g (%zu of "
			    "%zu points differ)",
			    first % volx, first / volx, (double)got[first], (double)want[first],
			    bad, points);
			goto out;
		}
	}
	gh_note(h,
		"cp: %d atoms, %ux%u lattice slice, %u launches of %ux%u CTAs (16x8 threads, "
		"8 points each), every point bit-exact",
		atomcount, volx, voly, launches, kern.grid_x, kern.grid_y);
	err = 0;
out:
	free(atoms);
	free(pre);
	free(want);
	free(got);
	return err;
}
