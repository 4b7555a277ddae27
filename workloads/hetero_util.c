/*
 * workloads/hetero_util.c - what the CPU + GPU workloads share (hetero_util.h).
 */
#include "workloads/hetero_util.h"

#include <inttypes.h>

uint32_t hx_gpu_sys_read32(struct gpu_warp *w, uint64_t addr)
{
	return (uint32_t)gw_atom(w, MEM_ATOM_ADD, addr, 4, 0, 0, MEM_SCOPE_SYSTEM,
				 MEM_ORDER_ACQUIRE);
}

bool hx_cpu_spin(struct cpu_thread *t, uint64_t addr, uint32_t want, uint64_t max_backoff,
		 const char *who, const char *what, uint32_t *v)
{
	uint64_t spins = 0, backoff = 16;
	uint32_t x;

	while ((x = (uint32_t)ct_ld(t, addr, 4)) < want) {
		if (ct_spin_guard(t, &spins)) {
			if (what)
				ct_fail(t,
					"%s: CPU thread %u livelocked waiting for %s at %#" PRIx64,
					who, ct_id(t), what, addr);
			else
				ct_fail(t,
					"%s: CPU thread %u livelocked waiting for %" PRIu32
					" at %#" PRIx64,
					who, ct_id(t), want, addr);
			return false;
		}
		/* a long DMA copy or kernel is waited for without spinning out the spin limit */
		ct_compute(t, backoff);
		backoff = backoff < max_backoff ? 2 * backoff : backoff;
	}
	if (v)
		*v = x;
	return true;
}

bool hx_cpu_wait_at_least(struct cpu_thread *t, uint64_t addr, uint32_t want, const char *who)
{
	return hx_cpu_spin(t, addr, want, 4096, who, NULL, NULL);
}

bool hx_cpu_group_barrier(struct cpu_thread *t, uint64_t count, unsigned n, uint32_t round,
			  const char *who)
{
	(void)ct_atomic(t, MEM_ATOM_ADD, count, 4, 1, 0);
	return hx_cpu_wait_at_least(t, count, round * n, who);
}

bool hx_cpu_barrier(struct cpu_thread *t, uint64_t count, uint32_t round, const char *who)
{
	return hx_cpu_group_barrier(t, count, ct_threads(t), round, who);
}
