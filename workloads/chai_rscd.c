/*
 * workloads/chai_rscd.c - chai_rscd, CHAI's RSCD (RANSAC, data partitioning) on system apu
 * (chai.h, chai_rsc.c; docs/workloads.md, "CHAI workloads").
 *
 * The iterations are split as CHAI's static partitioner with alpha = 0.2: the first fifth are
 * the CPU's (thread k takes k, k + T, ...), the rest the GPU's (work-group b takes cut + b,
 * cut + b + CTAs, ...). Each iteration makes a model of its two seeded vectors and stores its
 * parameters in the shared array (on the GPU the work-group's warp 0 makes it and the other
 * warps read it back after a barrier, as CHAI's thread 0 and __syncthreads), counts the outliers
 * among all n vectors (a CPU thread alone, a work-group 256 lanes at a time, summed in the
 * scratchpad) and, for a candidate, takes a slot of the shared candidate list with an atomic add
 * on its counter (CPU: a locked add; GPU: a system-scope atomic, performed at the directory) and
 * writes the iteration and its outlier count there. CPU and GPU slots interleave on the same
 * lines. The host picks the best candidate, as CHAI's post-processing.
 */
#include <inttypes.h>

#include "workloads/chai.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define RSCD_WARPS    8			/* CHAI's 256 threads a work-group */
#define RSCD_CTAS     8			/* CHAI's n_gpu_blocks: one work-group per CU */
#define RSCD_CPU_FRAC 5			/* alpha = 0.2 */
#define RSCD_BATCH    (CPU_LDV_MAX / 2) /* vectors a ct_ldv reads (two 8-byte loads each) */

struct rscd_args {
	struct chai_rsc r;
	unsigned cut; /* the first `cut` iterations are the CPU's */
};

static void rscd_gpu(struct gpu_warp *w)
{
	const struct rscd_args *a = gw_args(w);
	const struct chai_rsc *r = &a->r;
	uint32_t *count = gw_smem(w);

	for (unsigned it = a->cut + gw_cta(w); it < r->iters; it += gw_ctas(w)) {
		if (gw_warp(w) == 0) {
			uint64_t pa = r->params + 16 * (uint64_t)it;
			struct chai_flow f[2];
			float p[4];

			count[0] = 0;
			gw_smem_access(w);
			for (unsigned k = 0; k < 2; k++) {
				uint64_t at =
				    r->flows + sizeof(struct chai_flow) *
						   gw_ld32(w, r->rnd + 4 * (2 * (uint64_t)it + k));
				uint64_t lo = gw_ld64(w, at), hi = gw_ld64(w, at + 8);

				f[k] = chai_rsc_flow(lo, hi);
			}
			gw_compute(w, CHAI_RSC_MODEL_CYCLES);
			if (chai_rsc_model(&f[0], &f[1], p))
				for (unsigned k = 0; k < 4; k++)
					gw_st32(w, pa + 4 * k, wl_f2u(p[k]));
			else
				gw_st32(w, pa, wl_f2u(CHAI_RSC_DEGENERATE));
		}
		gw_barrier(w);
		chai_rsc_gpu_evaluate(w, r, it, MEM_SCOPE_SYSTEM);
	}
}

static void rscd_cpu(struct cpu_thread *t)
{
	const struct rscd_args *a = ct_args(t);
	const struct chai_rsc *r = &a->r;
	uint64_t addr[CPU_LDV_MAX], v[CPU_LDV_MAX];

	if (ct_id(t) == 0)
		ct_launch(t, &a->r.kernel);
	for (unsigned it = ct_id(t); it < a->cut; it += ct_threads(t)) {
		unsigned outliers = 0;
		float p[4];

		if (!chai_rsc_cpu_model(t, r, it, p))
			continue;
		for (unsigned i = 0; i < r->n; i += RSCD_BATCH) {
			unsigned m = r->n - i < RSCD_BATCH ? r->n - i : RSCD_BATCH;

			for (unsigned j = 0; j < 2 * m; j++)
				addr[j] = r->flows + sizeof(struct chai_flow) * (uint64_t)i + 8 * j;
			ct_ldv(t, addr, 2 * m, 8, v);
			ct_compute(t, (uint64_t)m * CHAI_RSC_EVAL_CYCLES);
			for (unsigned j = 0; j < m; j++) {
				struct chai_flow f = chai_rsc_flow(v[2 * j], v[2 * j + 1]);

				outliers += chai_rsc_outlier(&f, p);
			}
		}
		if (chai_rsc_candidate(outliers, r->n)) {
			uint32_t idx = (uint32_t)ct_atomic(t, MEM_ATOM_ADD, r->out_id, 4, 1, 0);

			ct_st32(t, r->cand_model + 4 * (uint64_t)idx, it);
			ct_st32(t, r->cand_outliers + 4 * (uint64_t)idx, outliers);
		}
	}
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int chai_rscd_main(struct cpu_host *h)
{
	struct rscd_args a;
	struct cpu_program p = {
	    .name = "chai_rscd", .threads = ch_cores(h), .fn = rscd_cpu, .args = &a};
	unsigned count, best;
	int rc;

	rc = chai_rsc_setup(h, &a.r, (unsigned)wl_size_pick(ch_size(h), 512, 2048, 5922),
			    (unsigned)wl_size_pick(ch_size(h), 80, 320, 1000));
	if (rc)
		return rc;
	a.cut = a.r.iters / RSCD_CPU_FRAC;
	rc = chai_rsc_run(h, &a.r, &p, RSCD_CTAS, rscd_gpu, &count, &best);
	if (rc)
		return rc;
	ch_note(h,
		"chai_rscd (%s): %u vectors, %u iterations (%u on %u CPU threads, %u on %u CTAs), "
		"%u candidates, best %u outliers, verified",
		wl_size_str(ch_size(h)), a.r.n, a.r.iters, a.cut, p.threads, a.r.iters - a.cut,
		RSCD_CTAS, count, best);
	return 0;
}
