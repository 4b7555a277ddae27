/*
 * workloads/chai_partition.c - what the CHAI ports share (chai.h): CHAI's dynamic partitioner
 * (support/partitioner.h: one work counter both devices add to, the CPU with a locked add, the
 * GPU's work-group leader with atomicAdd_system), the flag waits of both sides, a scratchpad
 * broadcast inside a CTA and the CPU host's sampled check.
 */
#include "workloads/chai.h"

#include <inttypes.h>
#include <string.h>

#include "workloads/hetero_util.h"

int chai_run(struct cpu_host *h, const struct cpu_program *p, uint64_t taken, unsigned ctas,
	     uint64_t *cpu, uint64_t *gpu)
{
	int rc = ch_run(h, p);

	*cpu = *gpu = 0;
	for (unsigned i = 0; !rc && i < p->threads + ctas; i++)
		*(i < p->threads ? cpu : gpu) += ch_read32(h, taken + 4 * (uint64_t)i);
	return rc;
}

void chai_note_split(struct cpu_host *h, const char *name, const char *units, uint64_t cpu,
		     uint64_t gpu)
{
	ch_note(h, "%s (%s): work split: CPU %" PRIu64 " %s, GPU %" PRIu64 " %s", name,
		wl_size_str(ch_size(h)), cpu, units, gpu, units);
}

void chai_sample_init(const struct cpu_host *h, struct wl_sample *s, uint64_t n, uint64_t tag)
{
	wl_sample_start(s, n, ch_check_samples(h), ch_seed(h), tag);
}

uint32_t chai_cta_bcast(struct gpu_warp *w, unsigned slot, uint32_t v)
{
	uint8_t *sm = gw_smem(w);

	/* the barrier before: every warp has read what the slot held last */
	gw_barrier(w);
	if (gw_warp(w) == 0) {
		memcpy(sm + slot, &v, 4);
		gw_smem_access(w);
	}
	gw_barrier(w);
	memcpy(&v, sm + slot, 4);
	gw_smem_access(w);
	return v;
}

uint32_t chai_gpu_take(struct gpu_warp *w, uint64_t worklist, unsigned slot)
{
	uint32_t v = 0;

	if (gw_warp(w) == 0)
		v = (uint32_t)gw_atom(w, MEM_ATOM_ADD, worklist, 4, 1, 0, MEM_SCOPE_SYSTEM,
				      MEM_ORDER_RELAXED);
	return chai_cta_bcast(w, slot, v);
}

uint32_t chai_cpu_take(struct cpu_thread *t, uint64_t worklist)
{
	return (uint32_t)ct_atomic(t, MEM_ATOM_ADD, worklist, 4, 1, 0);
}

uint32_t chai_cpu_wait_nonzero(struct cpu_thread *t, uint64_t addr, const char *who,
			       const char *what)
{
	uint32_t v = 0;

	return hx_cpu_spin(t, addr, 1, 512, who, what, &v) ? v : 0;
}

uint32_t chai_gpu_wait_nonzero(struct gpu_warp *w, uint64_t addr, const char *who, const char *what)
{
	uint64_t spins = 0;
	uint32_t v;

	while ((v = hx_gpu_sys_read32(w, addr)) == 0)
		if (gw_spin_guard(w, &spins)) {
			gw_fail(w, "%s: GPU CTA %u livelocked waiting for %s at %#" PRIx64, who,
				gw_cta(w), what, addr);
			return 0;
		}
	return v;
}
