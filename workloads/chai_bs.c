/*
 * workloads/chai_bs.c - chai_bs, CHAI's BS (Bezier surface) on system apu (chai.h).
 *
 * The output is an out x out grid of XYZ points (three doubles, 24 B each) of the Bezier surface
 * of a 4 x 4 net of control points; it is cut into 16 x 16 tiles. CHAI's dynamic partitioning
 * (CUDA-U/BS, alpha outside [0, 1]): one tile counter in shared memory, taken by every CPU thread
 * with a locked add and by every GPU work-group's leader with a system-scope atomic add, until
 * the tiles run out. A CPU thread computes its tile point by point; a work-group (one CTA of 8
 * warps, a lane per point of the tile) first copies the control points into its scratchpad. The
 * two devices share nothing but the counter and write disjoint tiles of the same output array.
 *
 * Each point is computed in C by the thread or warp that owns it, from the control points it
 * read through the modelled memory, by the very function the host's reference uses, so the check
 * compares bit for bit.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/chai.h"

#define BS_LINE	      64
#define BS_TILE	      16		    /* CHAI's n_gpu_threads: a tile is 16 x 16 points */
#define BS_NET	      4			    /* control points per dimension (CHAI -m 3) */
#define BS_CP_DOUBLES (3 * BS_NET * BS_NET) /* 48 */
#define BS_CTAS	      32		    /* CHAI's n_gpu_blocks */
#define BS_WARPS      (BS_TILE * BS_TILE / WARP_LANES) /* 8: two tile rows per warp */
#define BS_SLOT	      (8 * BS_CP_DOUBLES) /* scratchpad: control points, then the tile */
#define BS_SMEM	      (BS_SLOT + 8)
/* Work per point: 20 blending functions (a binomial, powers) and 16 weighted sums, about 700
 * operations: CPU cycles at about 2 per cycle, and a warp's issue slots (a lane per point). */
#define BS_CPU_CYCLES 350
#define BS_GPU_SLOTS  700
#define BS_TAG	      0x6368616962730000ull

struct bs_args {
	uint64_t cp, out, worklist, taken; /* taken: uint32 per CPU thread, then per CTA */
	uint64_t seed;
	unsigned out_n, tiles_per_row, tiles, threads;
	struct gpu_kernel kernel;
};

/* The Bernstein polynomial B(k, n) at mu (Paul Bourke's BezierBlend, without pow). */
static double bs_blend(unsigned k, double mu, unsigned n)
{
	double b = 1;

	for (unsigned i = 1; i <= k; i++)
		b = b * (double)(n - k + i) / (double)i;
	for (unsigned i = 0; i < k; i++)
		b *= mu;
	for (unsigned i = 0; i < n - k; i++)
		b *= 1 - mu;
	return b;
}

/* Point (row, col) of the surface from the control points cp[3 * (ki * BS_NET + kj) + xyz]. */
static void bs_point(unsigned out_n, const double *cp, unsigned row, unsigned col, double p[3])
{
	double mui = row / (double)(out_n - 1), muj = col / (double)(out_n - 1);

	p[0] = p[1] = p[2] = 0;
	for (unsigned ki = 0; ki < BS_NET; ki++) {
		double bi = bs_blend(ki, mui, BS_NET - 1);

		for (unsigned kj = 0; kj < BS_NET; kj++) {
			double bj = bs_blend(kj, muj, BS_NET - 1);
			const double *c = cp + 3 * (ki * BS_NET + kj);

			for (unsigned x = 0; x < 3; x++)
				p[x] += c[x] * bi * bj;
		}
	}
}

static double bs_cp_value(uint64_t seed, unsigned i)
{
	return 10 * wl_unit(seed ^ BS_TAG, 0, i) - 5;
}

static uint64_t bs_addr(const struct bs_args *a, unsigned row, unsigned col, unsigned x)
{
	return a->out + 24 * ((uint64_t)row * a->out_n + col) + 8 * x;
}

static void bs_gpu(struct gpu_warp *w)
{
	const struct bs_args *a = gw_args(w);
	double *cp = gw_smem(w);
	uint64_t addr[WARP_LANES], v[3][WARP_LANES];
	unsigned taken = 0;

	/* the leader warp copies the control points into the scratchpad (CHAI's l_in); the
	 * barrier of the first take orders it before every warp's use */
	if (gw_warp(w) == 0) {
		for (unsigned first = 0; first < BS_CP_DOUBLES; first += WARP_LANES) {
			uint32_t mask = wl_lane_addrs(addr, a->cp, first, BS_CP_DOUBLES, 8);

			gw_ld64v(w, addr, mask, v[0]);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					memcpy(&cp[first + l], &v[0][l], 8);
		}
		gw_smem_access(w);
	}
	for (;;) {
		unsigned t = chai_gpu_take(w, a->worklist, BS_SLOT);
		unsigned row0 = t / a->tiles_per_row * BS_TILE,
			 col0 = t % a->tiles_per_row * BS_TILE;
		uint32_t mask = 0;

		if (t >= a->tiles)
			break;
		for (unsigned l = 0; l < WARP_LANES; l++) {
			unsigned row = row0 + 2 * gw_warp(w) + l / BS_TILE,
				 col = col0 + l % BS_TILE;
			double p[3];

			if (row >= a->out_n || col >= a->out_n)
				continue;
			mask |= 1u << l;
			bs_point(a->out_n, cp, row, col, p);
			for (unsigned x = 0; x < 3; x++)
				memcpy(&v[x][l], &p[x], 8);
		}
		for (unsigned i = 0; i < BS_NET * BS_NET; i++)
			gw_smem_access(w); /* one broadcast read of each control point */
		gw_compute(w, BS_GPU_SLOTS);
		for (unsigned x = 0; x < 3; x++) {
			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] = bs_addr(a, row0 + 2 * gw_warp(w) + l / BS_TILE,
						  col0 + l % BS_TILE, x);
			gw_st64v(w, addr, mask, v[x]);
		}
		taken++;
	}
	if (gw_warp(w) == 0)
		gw_st32(w, a->taken + 4 * (a->threads + gw_cta(w)), taken);
}

static void bs_cpu(struct cpu_thread *t)
{
	const struct bs_args *a = ct_args(t);
	uint64_t addr[BS_CP_DOUBLES], bits[BS_CP_DOUBLES];
	double cp[BS_CP_DOUBLES];
	unsigned taken = 0;

	if (ct_id(t) == 0)
		ct_launch(t, &a->kernel);
	for (unsigned i = 0; i < BS_CP_DOUBLES; i++)
		addr[i] = a->cp + 8 * i;
	ct_ldv(t, addr, BS_CP_DOUBLES, 8, bits);
	memcpy(cp, bits, sizeof(cp));
	for (unsigned tile; (tile = chai_cpu_take(t, a->worklist)) < a->tiles; taken++) {
		unsigned row0 = tile / a->tiles_per_row * BS_TILE;
		unsigned col0 = tile % a->tiles_per_row * BS_TILE;

		for (unsigned row = row0; row < row0 + BS_TILE && row < a->out_n; row++) {
			unsigned cols = a->out_n - col0 < BS_TILE ? a->out_n - col0 : BS_TILE;

			ct_compute(t, (uint64_t)cols * BS_CPU_CYCLES);
			for (unsigned col = col0; col < col0 + cols; col++) {
				double p[3];

				bs_point(a->out_n, cp, row, col, p);
				for (unsigned x = 0; x < 3; x++) {
					uint64_t u;

					memcpy(&u, &p[x], 8);
					ct_st64(t, bs_addr(a, row, col, x), u);
				}
			}
		}
	}
	ct_st32(t, a->taken + 4 * ct_id(t), taken);
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int chai_bs_main(struct cpu_host *h)
{
	struct bs_args a = {.seed = ch_seed(h),
			    .out_n = (unsigned)wl_size_pick(ch_size(h), 64, 160, 512),
			    .threads = ch_cores(h)};
	struct cpu_program p = {.name = "bs", .threads = a.threads, .fn = bs_cpu, .args = &a};
	double cp[BS_CP_DOUBLES];
	uint64_t cpu_tiles, gpu_tiles, n, checked = 0;
	struct wl_sample s;
	int rc;

	a.tiles_per_row = (a.out_n + BS_TILE - 1) / BS_TILE;
	a.tiles = a.tiles_per_row * a.tiles_per_row;
	n = (uint64_t)a.out_n * a.out_n;
	a.cp = ch_alloc(h, sizeof(cp), BS_LINE);
	a.out = ch_alloc(h, 24 * n, BS_LINE);
	a.worklist = ch_alloc(h, BS_LINE, BS_LINE);
	a.taken = ch_alloc(h, 4 * (uint64_t)(a.threads + BS_CTAS), BS_LINE);
	for (unsigned i = 0; i < BS_CP_DOUBLES; i++)
		cp[i] = bs_cp_value(a.seed, i);
	ch_write(h, a.cp, cp, sizeof(cp));
	a.kernel = (struct gpu_kernel){.name = "bezier",
				       .ctas = BS_CTAS,
				       .warps_per_cta = BS_WARPS,
				       .smem_bytes = BS_SMEM,
				       .fn = bs_gpu,
				       .args = &a};
	rc = chai_run(h, &p, a.taken, BS_CTAS, &cpu_tiles, &gpu_tiles);
	if (rc)
		return rc;
	if (cpu_tiles + gpu_tiles != a.tiles)
		return ch_fail(h,
			       "chai_bs: the CPU threads took %" PRIu64
			       " tiles and the GPU %" PRIu64
			       ", of %u (the tile counter lost or repeated a tile)",
			       cpu_tiles, gpu_tiles, a.tiles);

	chai_sample_init(h, &s, n, BS_TAG);
	for (uint64_t i = 0; i < n; i++) {
		unsigned row = (unsigned)(i / a.out_n), col = (unsigned)(i % a.out_n);
		double want[3], got[3];

		if (!wl_sample_take(&s))
			continue;
		bs_point(a.out_n, cp, row, col, want);
		ch_read(h, bs_addr(&a, row, col, 0), got, sizeof(got));
		for (unsigned x = 0; x < 3; x++)
			if (memcmp(&got[x], &want[x], 8) != 0)
				return ch_fail(h,
					       "chai_bs: point (%u, %u) %c (tile %u): read %.17g, "
					       "expected %.17g",
					       row, col, "xyz"[x],
					       row / BS_TILE * a.tiles_per_row + col / BS_TILE,
					       got[x], want[x]);
		checked++;
	}
	ch_note(h,
		"chai_bs (%s): %ux%u XYZ points (%" PRIu64 " B) in %u tiles of %ux%u; %" PRIu64
		" points verified",
		wl_size_str(ch_size(h)), a.out_n, a.out_n, 24 * n, a.tiles, BS_TILE, BS_TILE,
		checked);
	chai_note_split(h, "chai_bs", "tiles", cpu_tiles, gpu_tiles);
	return 0;
}
