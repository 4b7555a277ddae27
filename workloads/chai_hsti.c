/*
 * workloads/chai_hsti.c - chai_hsti, CHAI's HSTI (histogram, input partitioning) on system apu
 * (chai.h; docs/workloads.md, "CHAI workloads").
 *
 * The image is cut into chunks of 256 pixels (CHAI's chunk: the GPU's work-group size). As
 * CHAI's static partitioner with alpha = 0.2, the first fifth of the chunks are the CPU's
 * (thread k takes chunks k, k + T, ...) and the rest the GPU's (CTA b takes chunks cut + b,
 * cut + b + CTAs, ...). Each worker counts into a private histogram (a CPU thread's on its own
 * stack lines, a load and a store per pixel; a CTA's in its scratchpad, one shared-memory atomic
 * per warp and 32 pixels) and then adds every bin into the one shared histogram: CPU threads
 * with x86 locked adds, GPU warps with system-scope atomic adds (SLC, performed at the
 * directory). Thread 0 launches the kernel first, so both devices run and merge at once.
 */
#include <inttypes.h>
#include <string.h>

#include "workloads/chai.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define HSTI_CHUNK    256 /* pixels a chunk: CHAI's n_gpu_threads */
#define HSTI_WARPS    (HSTI_CHUNK / WARP_LANES)
#define HSTI_CTAS     16 /* CHAI's n_gpu_blocks: two work-groups per CU */
#define HSTI_CPU_FRAC 5	 /* alpha = 0.2: the CPU's chunks are the first 1/5 */

struct hsti_args {
	struct chai_hst s;   /* first: the program's and the kernel's arguments */
	uint64_t tasks, cut; /* chunks; the first `cut` are the CPU's */
};

static void hsti_gpu(struct gpu_warp *w)
{
	const struct hsti_args *a = gw_args(w);
	uint32_t *lh = gw_smem(w);
	unsigned wp = gw_warp(w), nw = gw_warps_per_cta(w);
	uint64_t addr[WARP_LANES], one[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned pos = wp * WARP_LANES; pos < CHAI_HST_BINS; pos += nw * WARP_LANES) {
		memset(lh + pos, 0, 4 * WARP_LANES);
		gw_smem_access(w);
	}
	gw_barrier(w);
	for (uint64_t i = a->cut + gw_cta(w); i < a->tasks; i += gw_ctas(w)) {
		for (uint64_t p = i * HSTI_CHUNK + wp * WARP_LANES; p < (i + 1) * HSTI_CHUNK;
		     p += nw * WARP_LANES) {
			uint32_t mask = wl_lane_addrs(addr, a->s.image, p, a->s.n, 4);

			if (!mask)
				break;
			gw_ld32v(w, addr, mask, v);
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					lh[chai_hst_bin(v[l])]++;
			gw_smem_access(w); /* atomicAdd on the scratchpad */
		}
	}
	gw_barrier(w);
	for (unsigned pos = wp * WARP_LANES; pos < CHAI_HST_BINS; pos += nw * WARP_LANES) {
		wl_lane_addrs(addr, a->s.histo, pos, CHAI_HST_BINS, 4);
		gw_smem_access(w);
		for (unsigned l = 0; l < WARP_LANES; l++)
			one[l] = lh[pos + l];
		gw_atomv(w, MEM_ATOM_ADD, addr, LANES_ALL, 4, one, NULL, NULL, MEM_SCOPE_SYSTEM,
			 MEM_ORDER_RELAXED);
	}
}

static void hsti_cpu(struct cpu_thread *t)
{
	const struct hsti_args *a = ct_args(t);
	unsigned k = ct_id(t), nt = ct_threads(t);
	uint64_t hs = a->s.local + (uint64_t)k * 4 * CHAI_HST_BINS;
	uint64_t addr[CPU_LDV_MAX], v[CPU_LDV_MAX];

	if (k == 0)
		ct_launch(t, &a->s.kernel);
	for (unsigned b = 0; b < CHAI_HST_BINS; b++)
		ct_st32(t, hs + 4 * b, 0);
	for (uint64_t i = k; i < a->cut; i += nt) {
		for (uint64_t p = i * HSTI_CHUNK; p < (i + 1) * HSTI_CHUNK; p += CPU_LDV_MAX) {
			for (unsigned j = 0; j < CPU_LDV_MAX; j++)
				addr[j] = a->s.image + 4 * (p + j);
			ct_ldv(t, addr, CPU_LDV_MAX, 4, v);
			for (unsigned j = 0; j < CPU_LDV_MAX; j++) {
				uint64_t bin = hs + 4 * chai_hst_bin((uint32_t)v[j]);

				ct_st32(t, bin, ct_ld32(t, bin) + 1);
			}
		}
	}
	for (unsigned b = 0; b < CHAI_HST_BINS; b++)
		(void)ct_atomic(t, MEM_ATOM_ADD, a->s.histo + 4 * b, 4, ct_ld32(t, hs + 4 * b), 0);
	if (k == 0)
		ct_gpu_wait(t);
}

int chai_hsti_main(struct cpu_host *h)
{
	struct hsti_args a = {.s.n = wl_size_pick(ch_size(h), 16384, 262144, 3145728)};
	struct cpu_program p = {
	    .name = "chai_hsti", .threads = ch_cores(h), .fn = hsti_cpu, .args = &a};
	int rc;

	a.tasks = (a.s.n + HSTI_CHUNK - 1) / HSTI_CHUNK;
	a.cut = a.tasks / HSTI_CPU_FRAC;
	rc = chai_hst_run(h, &a.s, &p, HSTI_CTAS, HSTI_WARPS, hsti_gpu);
	if (rc)
		return rc;
	ch_note(h,
		"chai_hsti (%s): %" PRIu64 " pixels, %" PRIu64
		" chunks on %u CPU threads + %" PRIu64
		" on %u CTAs, %u bins merged with system atomics by both, verified",
		wl_size_str(ch_size(h)), a.s.n, a.cut, p.threads, a.tasks - a.cut, HSTI_CTAS,
		CHAI_HST_BINS);
	return 0;
}
