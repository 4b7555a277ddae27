/*
 * workloads/bench/ccp.c - cutoff Coulombic potential (Parboil `cutcp`, Stratton et al. 2012),
 * the `cuda_cutoff_potential_lattice` kernel.
 *
 * The electrostatic potential of a box of charged atoms on a 3D lattice of spacing h = 0.5 A,
 * summing q * (1 - r^2/c^2)^2 / r over the atoms within the cutoff c = 12 A of each point.
 * As Parboil: the host hashes the atoms into bins of 4 A (at most BIN_DEPTH = 8 atoms each, a
 * float4 x, y, z, q per atom, q = 0 ends a bin; atoms beyond 8 go to Parboil's CPU "extra"
 * list) and builds the neighbour list of bin offsets (the 7^3 cube minus the corners farther
 * than c + sqrt(3) * 4 A: 335 bins). The lattice is cut into 8^3-point regions, each region into
 * 4 sub-regions of 8 x 8 x 2 points, one CTA of 128 threads (4 warps) per sub-region, one
 * kernel launch per z plane of regions (grid 4 x_regions by y_regions). A CTA walks the
 * neighbour list of its region's centre bin 32 bins at a time: each half-warp loads up to 4
 * bins (two coalesced 64 B loads per bin) into shared memory; after a barrier every thread
 * loops over the cached bins' atoms (a broadcast shared-memory read per atom), accumulating the
 * potential of its lattice point in a register; after a barrier the next 32 bins. Finally each
 * thread writes its point (one coalesced 128 B store per warp).
 *
 * Compute-bound (thesis Table 3.2: CCP 13.5 M cycles, all protocols within 1%): each atom costs
 * a warp ~13 issue slots (test, distance, compare, loop) plus 8 when a lane is within the cutoff
 * (rsqrt on the SFU, the multiply-adds), against one shared-memory access.
 *
 * No sharing between CTAs (bins read-only, every lattice point has one writer): set 2.
 * Check: every lattice point bit for bit against a host reference that sums the same terms
 * in the same order (neighbour list order, then bin order); rsqrtf is 1/sqrtf on both sides.
 */
#include "workloads/bench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define CCP_BIN_DEPTH	     8	/* max atoms per bin */
#define CCP_BIN_SIZE	     32 /* floats per bin */
#define CCP_BIN_CACHE_MAXLEN 32 /* bins cached in shared memory per round */
#define CCP_BIN_LENGTH	     4.f
#define CCP_BIN_INVLEN	     (1.f / CCP_BIN_LENGTH)
#define CCP_REGION_SIZE	     512 /* lattice points per 8^3 region */
#define CCP_SUB_REGION_SIZE  128
#define CCP_NBRLIST_DIM	     11
#define CCP_NBRLIST_MAXLEN   (CCP_NBRLIST_DIM * CCP_NBRLIST_DIM * CCP_NBRLIST_DIM)
#define CCP_WARPS	     4	  /* 8 x 8 x 2 threads */
#define CCP_H		     0.5f /* lattice spacing (Parboil main) */
#define CCP_CUTOFF	     12.f /* cutoff radius (Parboil main) */
#define CCP_DENSITY	     0.1  /* atoms per A^3 (water; Parboil's bin-fill assumption) */

#define TAG_CCP	       0x6363700000000000ull
#define TAG_CCP_SAMPLE 0x6363707300000000ull /* the sampled check's stream */

/* Instruction counts (warp issue slots) of the kernel's arithmetic. */
#define CCP_INST_PROLOGUE 30 /* tid, region address, x, y, z, 3 floorf bin indices */
#define CCP_INST_LOAD_BIN 14 /* 3 LDC NbrList, 3 IADD, 2 IMAD, shift, 2 addresses, loop */
#define CCP_INST_ROUND	  6  /* numbins, stopbin, totalbins, loop */
#define CCP_INST_BIN	  3  /* bincnt loop and cache address */
#define CCP_INST_EMPTY	  2  /* FSETP aq == 0, branch out */
/* FSETP + branch, 3 FADD, FMUL + 2 FFMA (r2), FSETP r2 < cutoff2 + branch, loop (i++, ISETP,
 * BRA): 13 */
#define CCP_INST_ATOM	  13
/* when any lane is within the cutoff: FFMA s, MUFU.RSQ (~4 slots: 1/8-rate SFU, two
 * schedulers), FMUL aq * rsq, FMUL * s, FFMA energy += * s */
#define CCP_INST_TERM	  8
#define CCP_INST_STORE	  4

struct ccp_nbr {
	int x, y, z;
};

struct ccp_args {
	uint64_t bin_zero; /* device address of bin (0, 0, 0) (bins of c padding around it) */
	uint64_t regions;  /* float[x_reg * y_reg * z_reg * 512] */
	int bin_dim_x, bin_dim_y;
	unsigned x_reg, y_reg; /* regions per axis (grid: 4 x_reg by y_reg) */
	unsigned z_index;      /* the z plane of regions of this launch */
	float h, cutoff2, inv_cutoff2;
	int nbr_len;
	const struct ccp_nbr *nbr; /* the neighbour list: __constant__ memory, read-only */
};

/* One atom's contribution to a lattice point, the kernel's float operations in order
 * (rsqrtf(r2) as 1 / sqrtf(r2)). Adds it to *energy when r2 < cutoff2; returns whether. */
static inline bool ccp_term(const float atom[4], float x, float y, float z, float cutoff2,
			    float inv_cutoff2, float *energy)
{
	float dx = atom[0] - x, dy = atom[1] - y, dz = atom[2] - z;
	float r2 = dx * dx + dy * dy + dz * dz;
	float s, t;

	if (!(r2 < cutoff2))
		return false;
	s = 1.f - r2 * inv_cutoff2;
	t = atom[3] * (1.f / sqrtf(r2));
	t = t * s;
	*energy = *energy + t * s;
	return true;
}

/* Lattice point of thread tid of CTA (bx, by) in z plane zr. */
static void ccp_point(unsigned bx, unsigned by, unsigned zr, unsigned tid, float h, float *x,
		      float *y, float *z)
{
	unsigned tx = tid & 7, ty = (tid >> 3) & 7, tz = tid >> 6;

	*x = (float)(8 * (bx >> 2) + tx) * h;
	*y = (float)(8 * by + ty) * h;
	*z = (float)(8 * zr + 2 * (bx & 3) + tz) * h;
}

static int ccp_bin_index(unsigned region, float h)
{
	return (int)floorf((float)(8 * region + 4) * h * CCP_BIN_INVLEN);
}

static void ccp_kernel(struct gpu_warp *w)
{
	const struct ccp_args *g = gw_args(w);
	float *cache = gw_smem(w); /* AtomBinCache[32 * 32] */
	unsigned gx = 4 * g->x_reg, bx = gw_cta(w) % gx, by = gw_cta(w) / gx, wi = gw_warp(w);
	int bix = ccp_bin_index(bx >> 2, g->h), biy = ccp_bin_index(by, g->h);
	int biz = ccp_bin_index(g->z_index, g->h);
	float px[WARP_LANES], py[WARP_LANES], pz[WARP_LANES], energy[WARP_LANES] = {0};
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];
	int numbins = CCP_BIN_CACHE_MAXLEN;

	for (unsigned l = 0; l < WARP_LANES; l++)
		ccp_point(bx, by, g->z_index, wi * WARP_LANES + l, g->h, &px[l], &py[l], &pz[l]);
	gw_compute(w, CCP_INST_PROLOGUE);
	for (int total = 0; total < g->nbr_len; total += numbins) {
		/* each half-warp caches up to 4 bins: nbrid = tid / 16 + 8 bincnt (+ total) */
		for (unsigned bincnt = 0; bincnt < 4; bincnt++) {
			uint32_t mask = 0;

			for (unsigned half = 0; half < 2; half++) {
				unsigned hw = wi * 2 + half;
				int nb = total + (int)(hw + 8 * bincnt);
				const struct ccp_nbr *o;
				int64_t bin;

				if (nb >= g->nbr_len)
					continue;
				o = &g->nbr[nb];
				bin = ((int64_t)(biz + o->z) * g->bin_dim_y + biy + o->y) *
					  g->bin_dim_x +
				      bix + o->x;
				for (unsigned t = 0; t < 16; t++)
					addr[half * 16 + t] = g->bin_zero +
							      (uint64_t)(bin * CCP_BIN_SIZE * 4) +
							      4 * t;
				mask |= 0xffffu << (16 * half);
			}
			if (!mask)
				break;
			gw_compute(w, CCP_INST_LOAD_BIN);
			for (unsigned part = 0; part < 2; part++) {
				/* AtomBinCache[slot * 32 + t (+ 16)] = p_global[t (+ 16)] */
				gw_ld32v(w, addr, mask, v);
				for (unsigned l = 0; l < WARP_LANES; l++) {
					unsigned slot = wi * 2 + l / 16 + 8 * bincnt;

					if (mask >> l & 1)
						cache[slot * CCP_BIN_SIZE + part * 16 + l % 16] =
						    wl_u2f(v[l]);
					addr[l] += 64;
				}
				gw_smem_access(w);
			}
		}
		gw_barrier(w);
		if (total + CCP_BIN_CACHE_MAXLEN > g->nbr_len)
			numbins = g->nbr_len - total;
		gw_compute(w, CCP_INST_ROUND);
		for (int bincnt = 0; bincnt < numbins; bincnt++) {
			gw_compute(w, CCP_INST_BIN);
			for (unsigned i = 0; i < CCP_BIN_DEPTH; i++) {
				const float *atom = &cache[bincnt * CCP_BIN_SIZE + 4 * i];
				bool any = false;

				gw_smem_access(w); /* one LDS.128: x, y, z, q, broadcast */
				if (atom[3] == 0.f) {
					gw_compute(w, CCP_INST_EMPTY);
					break; /* no more atoms in bin */
				}
				for (unsigned l = 0; l < WARP_LANES; l++)
					any |= ccp_term(atom, px[l], py[l], pz[l], g->cutoff2,
							g->inv_cutoff2, &energy[l]);
				gw_compute(w, CCP_INST_ATOM + (any ? CCP_INST_TERM : 0));
			}
		}
		gw_barrier(w);
	}
	/* mySubRegionAddr[tid] = energy */
	wl_lane_addrs(addr,
		      g->regions +
			  4 * (((uint64_t)(g->z_index * g->y_reg + by) * g->x_reg + (bx >> 2)) *
				   CCP_REGION_SIZE +
			       (bx & 3) * CCP_SUB_REGION_SIZE),
		      wi * WARP_LANES, UINT64_MAX, 4);
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = wl_f2u(energy[l]);
	gw_compute(w, CCP_INST_STORE);
	gw_st32v(w, addr, LANES_ALL, v);
}

/* Parboil's neighbour list for 8 h == BIN_LENGTH ("around 1 cell"). */
static int ccp_nbrlist(struct ccp_nbr *nbr, int c)
{
	float s = sqrtf(3.f);
	float r2 = (CCP_CUTOFF + s * CCP_BIN_LENGTH) * (CCP_CUTOFF + s * CCP_BIN_LENGTH);
	int cnt = 0;

	for (int k = -c; k <= c; k++)
		for (int j = -c; j <= c; j++)
			for (int i = -c; i <= c; i++) {
				if ((float)(i * i + j * j + k * k) * CCP_BIN_LENGTH *
					CCP_BIN_LENGTH >=
				    r2)
					continue;
				nbr[cnt++] = (struct ccp_nbr){i, j, k};
			}
	return cnt;
}

int bench_ccp_main(struct gpu_host *h)
{
	struct ccp_args g = {
	    .x_reg = (unsigned)wl_by_size(h, 2, 4, 11),
	    .y_reg = (unsigned)wl_by_size(h, 2, 4, 11),
	    .h = CCP_H,
	    .cutoff2 = CCP_CUTOFF * CCP_CUTOFF,
	};
	unsigned z_reg = (unsigned)wl_by_size(h, 1, 4, 11);
	struct gpu_kernel kern = {
	    .name = "cutoff_potential_lattice",
	    .ctas = 4 * g.x_reg * g.y_reg,
	    .warps_per_cta = CCP_WARPS,
	    .regs_per_thread = 20,
	    .smem_bytes = CCP_BIN_CACHE_MAXLEN * CCP_BIN_SIZE * 4 + 16,
	    .fn = ccp_kernel,
	    .args = &g,
	};
	int c = (int)ceilf(CCP_CUTOFF * CCP_BIN_INVLEN);
	uint64_t seed = gh_seed(h), npoints = (uint64_t)g.x_reg * g.y_reg * z_reg * CCP_REGION_SIZE;
	float len[3] = {8 * g.x_reg * g.h, 8 * g.y_reg * g.h, 8 * z_reg * g.h};
	uint64_t natoms = (uint64_t)(CCP_DENSITY * len[0] * len[1] * len[2]);
	int bdim[3] = {(int)g.x_reg + 2 * c, (int)g.y_reg + 2 * c, (int)z_reg + 2 * c};
	size_t nbins = (size_t)bdim[0] * bdim[1] * bdim[2];
	struct ccp_nbr *nbr = malloc(CCP_NBRLIST_MAXLEN * sizeof(*nbr));
	float *bins = calloc(nbins * CCP_BIN_SIZE, sizeof(float));
	uint8_t *fill = calloc(nbins, 1);
	float *got = malloc(npoints * sizeof(float));
	uint64_t extra = 0, bad = 0, first = 0, in_range = 0, checked = 0;
	struct wl_sample sample;
	size_t zero_off = (((size_t)c * bdim[1] + c) * bdim[0] + c);
	float want_first = 0.f;
	int err = -CS_ENOMEM;

	if (!nbr || !bins || !fill || !got)
		goto out;
	g.inv_cutoff2 = 1.f / g.cutoff2;
	g.nbr_len = ccp_nbrlist(nbr, c);
	g.nbr = nbr;
	g.bin_dim_x = bdim[0];
	g.bin_dim_y = bdim[1];
	/* atoms uniform in the box, charges of water (O -0.834, H 0.417), hashed into bins */
	for (uint64_t n = 0; n < natoms; n++) {
		float p[4];
		int bi[3];
		size_t index;

		for (unsigned d = 0; d < 3; d++) {
			p[d] = (float)(wl_unit(seed ^ TAG_CCP, n, d) * len[d]);
			bi[d] = (int)floorf(p[d] * CCP_BIN_INVLEN);
		}
		p[3] = n % 3 == 0 ? -0.834f : 0.417f;
		index = zero_off + ((size_t)bi[2] * bdim[1] + bi[1]) * bdim[0] + bi[0];
		if (fill[index] == CCP_BIN_DEPTH) {
			extra++; /* Parboil sums these on the CPU afterwards */
			continue;
		}
		memcpy(&bins[(index * CCP_BIN_DEPTH + fill[index]) * 4], p, sizeof(p));
		fill[index]++;
	}
	{
		uint64_t base = wl_upload(h, bins, nbins * CCP_BIN_SIZE * sizeof(float));

		g.bin_zero = base + zero_off * CCP_BIN_SIZE * 4;
	}
	g.regions = wl_alloc_zero(h, npoints * sizeof(float));
	for (g.z_index = 0; g.z_index < z_reg; g.z_index++) {
		err = gh_launch(h, &kern);
		if (err)
			goto out;
	}
	gh_read(h, g.regions, got, npoints * sizeof(float));

	/* reference: a point sums the neighbour list's bins in order, atoms in bin order; for a
	 * seeded sample of the points, taken in this loop's order (every one under
	 * workload.check=full) */
	wl_sample_init(h, &sample, npoints, TAG_CCP_SAMPLE);
	for (unsigned zr = 0; zr < z_reg; zr++)
		for (unsigned by = 0; by < g.y_reg; by++)
			for (unsigned bx = 0; bx < 4 * g.x_reg; bx++) {
				int bix = ccp_bin_index(bx >> 2, g.h), biy = ccp_bin_index(by, g.h);
				int biz = ccp_bin_index(zr, g.h);
				uint64_t sub =
				    ((uint64_t)(zr * g.y_reg + by) * g.x_reg + (bx >> 2)) *
					CCP_REGION_SIZE +
				    (bx & 3) * CCP_SUB_REGION_SIZE;

				for (unsigned tid = 0; tid < CCP_SUB_REGION_SIZE; tid++) {
					float x, y, z, e = 0.f;

					if (!wl_sample_take(&sample))
						continue;
					checked++;
					ccp_point(bx, by, zr, tid, g.h, &x, &y, &z);
					for (int nb = 0; nb < g.nbr_len; nb++) {
						size_t index =
						    zero_off +
						    ((size_t)(biz + nbr[nb].z) * bdim[1] + biy +
						     nbr[nb].y) *
							bdim[0] +
						    bix + nbr[nb].x;
						const float *b = &bins[index * CCP_BIN_SIZE];

						for (unsigned i = 0; i < fill[index]; i++)
							in_range +=
							    ccp_term(&b[4 * i], x, y, z, g.cutoff2,
								     g.inv_cutoff2, &e);
					}
					if (wl_f2u(got[sub + tid]) != wl_f2u(e) && bad++ == 0) {
						first = sub + tid;
						want_first = e;
					}
				}
			}
	if (bad) {
		err =
		    gh_fail(h,
			    "ccp: lattice point %" PRIu64 " (region %" PRIu64 ", offset %" PRIu64
			    ") = %.9g, want %.9g; %" PRIu64 " of %" PRIu64 " checked points wrong",
			    first, first / CCP_REGION_SIZE, first % CCP_REGION_SIZE,
			    (double)got[first], (double)want_first, bad, checked);
		goto out;
	}
	gh_note(h,
		"ccp: %" PRIu64 " atoms (%" PRIu64 " to the CPU), lattice %ux%ux%u, %d-bin list, "
		"%u launches of %u CTAs, %" PRIu64 " of %" PRIu64 " points checked bit for bit "
		"(%" PRIu64 " pairs in cutoff)",
		natoms, extra, 8 * g.x_reg, 8 * g.y_reg, 8 * z_reg, g.nbr_len, z_reg, kern.ctas,
		checked, npoints, in_range);
	err = 0;
out:
	free(nbr);
	free(bins);
	free(fill);
	free(got);
	return err;
}
