/*
 * workloads/chai_sc.c - chai_sc, CHAI's SC (stream compaction) on system apu (chai.h).
 *
 * An array of n int32, half of them 0 (CHAI's compaction factor 50: element i is i + 2 or 0), is
 * compacted in place: the non-zero elements move to the front in order. The array is cut into
 * tasks of SC_TASK elements. CHAI's CUDA-U/SC with dynamic partitioning: CPU threads (locked add)
 * and GPU work-groups (leader's system-scope add) take tasks from one counter; a worker reads its
 * task's elements and counts the ones it keeps, waits until flags[task] is not 0 (it then holds
 * 1 + the elements kept before the task: CPU plain loads, GPU system-scope atomic reads), adds its
 * own count to flags[task + 1] (locked add, system-scope add), and writes its kept elements from
 * position flags[task] - 1 on. Every write lands at or below the task's own range, which every
 * earlier task has read before the chain reached it.
 *
 * A work-group is a CTA of 8 warps (256 lanes), SC_REGS elements per lane (lane t's element j at
 * task * SC_TASK + 256 j + t, CHAI's layout); its count is a scratchpad reduction and its output
 * positions a scratchpad prefix sum per register (CHAI's block_binary_prefix_sums), modelled as
 * one scratchpad write and read per warp and log2(256) barrier steps. A CPU thread reads its task
 * 64 loads at a time (ct_ldv) and writes the kept elements in order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/chai.h"

#define SC_LINE	 64
#define SC_LANES 256 /* CHAI's n_gpu_threads */
#define SC_WARPS (SC_LANES / WARP_LANES)
#define SC_REGS	 4 /* CHAI's REGS is 32: tasks here are 4 KiB so tiny sizes have enough */
#define SC_TASK	 (SC_LANES * SC_REGS)
#define SC_CTAS	 16
#define SC_STEPS 8 /* log2(SC_LANES): the scratchpad tree's levels */
/* scratchpad: the kept count of each (register, warp), then the broadcast slot */
#define SC_SLOT	 (4 * SC_REGS * SC_WARPS)
#define SC_SMEM	 (SC_SLOT + 8)
#define SC_TAG	 0x6368616973630000ull

struct sc_args {
	uint64_t arr, flags, worklist, taken; /* taken: uint32 per CPU thread, then per CTA */
	uint64_t seed, n;
	unsigned tasks, threads;
	struct gpu_kernel kernel;
};

static uint32_t sc_input(uint64_t seed, uint64_t i)
{
	return wl_unit(seed ^ SC_TAG, 0, i) < 0.5 ? (uint32_t)i + 2 : 0;
}

/* A tree over the CTA's lanes in the scratchpad: a level is an access and a barrier. */
static void sc_tree(struct gpu_warp *w)
{
	for (unsigned s = 0; s < SC_STEPS; s++) {
		gw_smem_access(w);
		gw_barrier(w);
	}
}

static void sc_gpu(struct gpu_warp *w)
{
	const struct sc_args *a = gw_args(w);
	uint32_t *cnt = gw_smem(w); /* cnt[j * SC_WARPS + warp] */
	uint64_t addr[WARP_LANES];
	uint32_t v[SC_REGS][WARP_LANES], keep[SC_REGS];
	unsigned task, taken = 0, wp = gw_warp(w);

	while ((task = chai_gpu_take(w, a->worklist, SC_SLOT)) < a->tasks) {
		uint32_t total = 0, base = 0, p_count = 0;

		for (unsigned j = 0; j < SC_REGS; j++) {
			uint64_t first = (uint64_t)task * SC_TASK + j * SC_LANES + wp * WARP_LANES;
			uint32_t mask = wl_lane_addrs(addr, a->arr, first, a->n, 4);

			memset(v[j], 0, sizeof(v[j]));
			if (mask)
				gw_ld32v(w, addr, mask, v[j]);
			keep[j] = 0;
			for (unsigned l = 0; l < WARP_LANES; l++)
				keep[j] |= (uint32_t)(v[j][l] != 0) << l;
			cnt[j * SC_WARPS + wp] = (uint32_t)__builtin_popcount(keep[j]);
		}
		gw_smem_access(w);
		sc_tree(w); /* CHAI's reduce() */
		for (unsigned i = 0; i < SC_REGS * SC_WARPS; i++)
			total += cnt[i];
		if (wp == 0) {
			p_count = chai_gpu_wait_nonzero(w, a->flags + 4 * (uint64_t)task, "chai_sc",
							"the count before its task");
			if (!p_count)
				return;
			(void)gw_atom(w, MEM_ATOM_ADD, a->flags + 4 * (uint64_t)(task + 1), 4,
				      p_count + total, 0, MEM_SCOPE_SYSTEM, MEM_ORDER_RELAXED);
		}
		base = chai_cta_bcast(w, SC_SLOT, p_count - 1);
		for (unsigned j = 0; j < SC_REGS; j++) {
			uint32_t pos = base, mask = keep[j];

			sc_tree(w); /* CHAI's block_binary_prefix_sums, up and down */
			for (unsigned i = 0; i < j * SC_WARPS + wp; i++)
				pos += cnt[i];
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (mask >> l & 1)
					addr[l] = a->arr + 4 * (uint64_t)pos++;
			if (mask)
				gw_st32v(w, addr, mask, v[j]);
		}
		taken++;
	}
	if (wp == 0)
		gw_st32(w, a->taken + 4 * (a->threads + gw_cta(w)), taken);
}

static void sc_cpu(struct cpu_thread *t)
{
	const struct sc_args *a = ct_args(t);
	uint32_t reg[SC_TASK];
	unsigned task, taken = 0;

	if (ct_id(t) == 0)
		ct_launch(t, &a->kernel);
	while ((task = chai_cpu_take(t, a->worklist)) < a->tasks) {
		uint64_t first = (uint64_t)task * SC_TASK, addr[CPU_LDV_MAX], got[CPU_LDV_MAX];
		unsigned len = a->n - first < SC_TASK ? (unsigned)(a->n - first) : SC_TASK;
		uint32_t kept = 0, p_count, pos;

		for (unsigned k = 0; k < len; k += CPU_LDV_MAX) {
			unsigned b = len - k < CPU_LDV_MAX ? len - k : CPU_LDV_MAX;

			for (unsigned i = 0; i < b; i++)
				addr[i] = a->arr + 4 * (first + k + i);
			ct_ldv(t, addr, b, 4, got);
			for (unsigned i = 0; i < b; i++) {
				reg[k + i] = (uint32_t)got[i];
				kept += reg[k + i] != 0;
			}
		}
		p_count = chai_cpu_wait_nonzero(t, a->flags + 4 * (uint64_t)task, "chai_sc",
						"the count before its task");
		if (!p_count)
			return;
		(void)ct_atomic(t, MEM_ATOM_ADD, a->flags + 4 * (uint64_t)(task + 1), 4,
				p_count + kept, 0);
		pos = p_count - 1;
		for (unsigned k = 0; k < len; k++)
			if (reg[k])
				ct_st32(t, a->arr + 4 * (uint64_t)pos++, reg[k]);
		taken++;
	}
	ct_st32(t, a->taken + 4 * ct_id(t), taken);
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int chai_sc_main(struct cpu_host *h)
{
	struct sc_args a = {.seed = ch_seed(h),
			    .n = wl_size_pick(ch_size(h), 16384, 131072, 2097152),
			    .threads = ch_cores(h)};
	struct cpu_program p = {.name = "sc", .threads = a.threads, .fn = sc_cpu, .args = &a};
	uint64_t cpu_tasks, gpu_tasks, total = 0, checked = 0;
	uint32_t *want, last_flag;
	struct wl_sample s;
	int rc;

	a.tasks = (unsigned)((a.n + SC_TASK - 1) / SC_TASK);
	a.arr = ch_alloc(h, 4 * a.n, SC_LINE);
	a.flags = ch_alloc(h, 4 * ((uint64_t)a.tasks + 1), SC_LINE);
	a.worklist = ch_alloc(h, SC_LINE, SC_LINE);
	a.taken = ch_alloc(h, 4 * (uint64_t)(a.threads + SC_CTAS), SC_LINE);
	want = malloc(4 * a.n);
	if (!want)
		return -CS_ENOMEM;
	for (uint64_t i = 0; i < a.n; i++)
		want[i] = sc_input(a.seed, i);
	ch_write(h, a.arr, want, 4 * a.n);
	ch_write32(h, a.flags, 1);
	a.kernel = (struct gpu_kernel){.name = "compaction",
				       .ctas = SC_CTAS,
				       .warps_per_cta = SC_WARPS,
				       .smem_bytes = SC_SMEM,
				       .fn = sc_gpu,
				       .args = &a};
	rc = chai_run(h, &p, a.taken, SC_CTAS, &cpu_tasks, &gpu_tasks);
	if (rc)
		goto out;

	/* the reference: kept elements in order, then the input as it was */
	for (uint64_t i = 0; i < a.n; i++)
		if (want[i])
			want[total++] = want[i];
	last_flag = ch_read32(h, a.flags + 4 * (uint64_t)a.tasks);
	if (cpu_tasks + gpu_tasks != a.tasks || last_flag != total + 1) {
		rc = ch_fail(h,
			     "chai_sc: the CPU threads took %" PRIu64 " tasks and the GPU %" PRIu64
			     " of %u; the last flag is %" PRIu32 ", expected 1 + %" PRIu64 " kept",
			     cpu_tasks, gpu_tasks, a.tasks, last_flag, total);
		goto out;
	}
	chai_sample_init(h, &s, a.n, SC_TAG);
	for (uint64_t i = 0; i < a.n; i++) {
		uint32_t got, ref = i < total ? want[i] : sc_input(a.seed, i);

		if (!wl_sample_take(&s))
			continue;
		got = ch_read32(h, a.arr + 4 * i);
		if (got != ref) {
			rc = ch_fail(h,
				     "chai_sc: element %" PRIu64 " (%s, task %" PRIu64
				     "): read %" PRIu32 ", expected %" PRIu32,
				     i, i < total ? "compacted" : "past the kept ones: unchanged",
				     i / SC_TASK, got, ref);
			goto out;
		}
		checked++;
	}
	ch_note(h,
		"chai_sc (%s): %" PRIu64 " int32 (%" PRIu64 " B) compacted in place to %" PRIu64
		", %u tasks of %d; %" PRIu64 " elements verified",
		wl_size_str(ch_size(h)), a.n, 4 * a.n, total, a.tasks, SC_TASK, checked);
	chai_note_split(h, "chai_sc", "tasks", cpu_tasks, gpu_tasks);
out:
	free(want);
	return rc;
}
