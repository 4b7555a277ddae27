/*
 * workloads/chai_hsto.c - chai_hsto, CHAI's HSTO (histogram, output partitioning) on system apu
 * (chai.h; docs/workloads.md, "CHAI workloads").
 *
 * The 256 bins are split, not the input: as CHAI with alpha = 0.25 the first 64 bins are the
 * CPU's, shared out among its threads (8 bins each with 8 threads), and the other 192 the
 * GPU's, shared out among its work-groups (12 each with 16). Every worker reads the whole image
 * and counts only the pixels that fall in its own bins (a CPU thread into a private histogram
 * on its stack lines, a CTA into its scratchpad), then adds its counts into the shared
 * histogram with a plain load and store (CHAI's `histo[b] += Hs[b]`: no other worker owns the
 * bin). Neighbouring workers' bins share lines: two CPU threads' bins share a line, and GPU
 * work-groups' bins straddle lines. Thread 0 launches the kernel first, so both read at once.
 */
#include <inttypes.h>
#include <string.h>

#include "workloads/chai.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define HSTO_WARPS    8	 /* CHAI's 256 threads a work-group */
#define HSTO_CTAS     16 /* CHAI's n_gpu_blocks */
#define HSTO_CPU_BINS 64 /* alpha = 0.25 of 256 */

/* Worker k of `workers` sharing bins [lo, hi): its first bin and its end. */
static void hsto_share(unsigned lo, unsigned hi, unsigned k, unsigned workers, unsigned *first,
		       unsigned *end)
{
	*first = lo + (hi - lo) * k / workers;
	*end = lo + (hi - lo) * (k + 1) / workers;
}

static void hsto_gpu(struct gpu_warp *w)
{
	const struct chai_hst *a = gw_args(w);
	uint32_t *lh = gw_smem(w);
	unsigned wp = gw_warp(w), nw = gw_warps_per_cta(w), first, end;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES], o[WARP_LANES];

	hsto_share(HSTO_CPU_BINS, CHAI_HST_BINS, gw_cta(w), gw_ctas(w), &first, &end);
	for (unsigned pos = wp * WARP_LANES; first + pos < end; pos += nw * WARP_LANES) {
		memset(lh + pos, 0, 4 * WARP_LANES);
		gw_smem_access(w);
	}
	gw_barrier(w);
	for (uint64_t p = wp * WARP_LANES; p < a->n; p += nw * WARP_LANES) {
		uint32_t mask = wl_lane_addrs(addr, a->image, p, a->n, 4), hit = 0;

		gw_ld32v(w, addr, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			unsigned b = chai_hst_bin(v[l]);

			if (mask >> l & 1 && b >= first && b < end) {
				lh[b - first]++;
				hit = 1;
			}
		}
		if (hit)
			gw_smem_access(w); /* atomicAdd on the scratchpad by the lanes in range */
	}
	gw_barrier(w);
	for (unsigned pos = wp * WARP_LANES; first + pos < end; pos += nw * WARP_LANES) {
		uint32_t mask = wl_lane_addrs(addr, a->histo, first + pos, end, 4);

		gw_smem_access(w);
		gw_ld32v(w, addr, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			o[l] = mask >> l & 1 ? v[l] + lh[pos + l] : 0;
		gw_st32v(w, addr, mask, o);
	}
}

static void hsto_cpu(struct cpu_thread *t)
{
	const struct chai_hst *a = ct_args(t);
	unsigned k = ct_id(t), first, end;
	uint64_t hs = a->local + (uint64_t)k * 4 * CHAI_HST_BINS;
	uint64_t addr[CPU_LDV_MAX], v[CPU_LDV_MAX];

	if (k == 0)
		ct_launch(t, &a->kernel);
	hsto_share(0, HSTO_CPU_BINS, k, ct_threads(t), &first, &end);
	for (unsigned b = first; b < end; b++)
		ct_st32(t, hs + 4 * (b - first), 0);
	for (uint64_t p = 0; p < a->n; p += CPU_LDV_MAX) {
		unsigned m = a->n - p < CPU_LDV_MAX ? (unsigned)(a->n - p) : CPU_LDV_MAX;

		for (unsigned j = 0; j < m; j++)
			addr[j] = a->image + 4 * (p + j);
		ct_ldv(t, addr, m, 4, v);
		ct_compute(t, m); /* the range test of each pixel */
		for (unsigned j = 0; j < m; j++) {
			unsigned b = chai_hst_bin((uint32_t)v[j]);

			if (b >= first && b < end) {
				uint64_t bin = hs + 4 * (b - first);

				ct_st32(t, bin, ct_ld32(t, bin) + 1);
			}
		}
	}
	for (unsigned b = first; b < end; b++) {
		uint64_t out = a->histo + 4 * b;

		ct_st32(t, out, ct_ld32(t, out) + ct_ld32(t, hs + 4 * (b - first)));
	}
	if (k == 0)
		ct_gpu_wait(t);
}

int chai_hsto_main(struct cpu_host *h)
{
	struct chai_hst a = {.n = wl_size_pick(ch_size(h), 4096, 32768, 1048576)};
	struct cpu_program p = {
	    .name = "chai_hsto", .threads = ch_cores(h), .fn = hsto_cpu, .args = &a};
	int rc;

	rc = chai_hst_run(h, &a, &p, HSTO_CTAS, HSTO_WARPS, hsto_gpu);
	if (rc)
		return rc;
	ch_note(h,
		"chai_hsto (%s): %" PRIu64
		" pixels read by each of %u CPU threads (%d bins) and %u "
		"CTAs (%d bins), verified",
		wl_size_str(ch_size(h)), a.n, p.threads, HSTO_CPU_BINS, HSTO_CTAS,
		CHAI_HST_BINS - HSTO_CPU_BINS);
	return 0;
}
