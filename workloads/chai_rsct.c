/*
 * workloads/chai_rsct.c - chai_rsct, CHAI's RSCT (RANSAC, task parallel) on system apu
 * (chai.h, chai_rsc.c; docs/workloads.md, "CHAI workloads").
 *
 * The CPU threads make the models (thread k: iterations k, k + T, ...): each loads its two
 * seeded vectors, stores the four parameters (or the degenerate mark) and then sets the
 * iteration's flag with a locked add (CHAI's launch_gpu[iter].fetch_add(1); the locked add
 * drains the store buffer first, so the parameters are visible before the flag). The GPU's
 * work-groups evaluate them (work-group b: iterations b, b + CTAs, ...): warp 0 spins on the
 * flag with system-scope atomic reads (CHAI's atomicAdd_system(&launch_gpu[iter], 0)) and then
 * fences (system-scope acquire: the parameters' line may be stale in the TCP or the TCC), a
 * barrier lets the work-group go, every warp reads the parameters, counts the outliers of its
 * share of the n vectors into the scratchpad, and warp 0 appends a candidate with a device-scope
 * atomic add (CHAI's plain atomicAdd: only the GPU appends). Flags share lines (16 a line), as
 * CHAI's int array.
 */
#include <inttypes.h>

#include "workloads/chai.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define RSCT_CTAS 16 /* two work-groups per CU */

struct rsct_args {
	struct chai_rsc r;
	uint64_t flags; /* uint32 per iteration */
};

static void rsct_gpu(struct gpu_warp *w)
{
	const struct rsct_args *a = gw_args(w);
	const struct chai_rsc *r = &a->r;
	uint32_t *count = gw_smem(w);

	for (unsigned it = gw_cta(w); it < r->iters; it += gw_ctas(w)) {
		if (gw_warp(w) == 0) {
			count[0] = 0;
			gw_smem_access(w);
			if (!chai_gpu_wait_nonzero(w, a->flags + 4 * (uint64_t)it, "chai_rsct",
						   "its iteration's model"))
				return;
			gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_SYSTEM);
		}
		gw_barrier(w);
		chai_rsc_gpu_evaluate(w, r, it, MEM_SCOPE_DEVICE);
	}
}

static void rsct_cpu(struct cpu_thread *t)
{
	const struct rsct_args *a = ct_args(t);
	float p[4];

	if (ct_id(t) == 0)
		ct_launch(t, &a->r.kernel);
	for (unsigned it = ct_id(t); it < a->r.iters; it += ct_threads(t)) {
		(void)chai_rsc_cpu_model(t, &a->r, it, p);
		(void)ct_atomic(t, MEM_ATOM_ADD, a->flags + 4 * (uint64_t)it, 4, 1, 0);
	}
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int chai_rsct_main(struct cpu_host *h)
{
	struct rsct_args a;
	struct cpu_program p = {
	    .name = "chai_rsct", .threads = ch_cores(h), .fn = rsct_cpu, .args = &a};
	unsigned count, best;
	int rc;

	rc = chai_rsc_setup(h, &a.r, (unsigned)wl_size_pick(ch_size(h), 512, 2048, 5922),
			    (unsigned)wl_size_pick(ch_size(h), 64, 160, 400));
	if (rc)
		return rc;
	a.flags = ch_alloc(h, 4 * (uint64_t)a.r.iters, 64);
	rc = chai_rsc_run(h, &a.r, &p, RSCT_CTAS, rsct_gpu, &count, &best);
	if (rc)
		return rc;
	ch_note(h,
		"chai_rsct (%s): %u vectors, %u models made by %u CPU threads and handed through "
		"flags to %u CTAs, %u candidates, best %u outliers, verified",
		wl_size_str(ch_size(h)), a.r.n, a.r.iters, p.threads, RSCT_CTAS, count, best);
	return 0;
}
