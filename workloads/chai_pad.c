/*
 * workloads/chai_pad.c - chai_pad, CHAI's PAD (in-place padding) on system apu (chai.h).
 *
 * A rows x cols matrix of doubles, stored row after row, is padded in place to rows x (cols + 1):
 * element (r, x) moves from r * cols + x to r * (cols + 1) + x and a zero goes to the end of each
 * row. The padded matrix is cut into tasks of PAD_TASK elements counted from its end (task 0 holds
 * the last elements), since every element moves towards the end: a task reads its elements from
 * below its own range, which later tasks will overwrite. CHAI's CUDA-U/PAD with dynamic
 * partitioning: CPU threads (locked add) and GPU work-groups (leader's system-scope add) take
 * tasks from one counter; a worker reads its task's elements into registers, waits until
 * flags[task] is set (the task before has read its elements: CPU plain loads, GPU system-scope
 * atomic reads), adds 1 to flags[task + 1] (CPU locked add, GPU system-scope add), then writes
 * its elements. So nobody overwrites an element before the task that moves it has read it.
 *
 * A work-group is a CTA of 8 warps (256 lanes) and PAD_REGS elements per lane, lane t's element
 * j at position top - t - 256 j of the task (CHAI's layout); a CPU thread reads and writes its task
 * from the top down, 64 loads in flight at a time (ct_ldv).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/chai.h"

#define PAD_LINE  64
#define PAD_LANES 256 /* CHAI's n_gpu_threads */
#define PAD_WARPS (PAD_LANES / WARP_LANES)
#define PAD_REGS  4 /* CHAI's REGS is 32: tasks here are 8 KiB so tiny sizes have enough */
#define PAD_TASK  (PAD_LANES * PAD_REGS)
#define PAD_CTAS  16
#define PAD_SLOT  0
#define PAD_TAG	  0x6368616970616400ull

struct pad_args {
	uint64_t mat, flags, worklist, taken; /* taken: uint32 per CPU thread, then per CTA */
	uint64_t seed;
	uint64_t rows, cols, size, top; /* size: rows * (cols + 1); top: size rounded up to tasks */
	unsigned tasks, threads;
	struct gpu_kernel kernel;
};

static uint64_t pad_input(uint64_t seed, uint64_t i)
{
	double d = wl_unit(seed ^ PAD_TAG, 0, i); /* CHAI: rand() / RAND_MAX */
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

/* Where the element that ends at padded position pos comes from; false for a pad element (or a
 * position past the matrix). */
static bool pad_source(const struct pad_args *a, uint64_t pos, uint64_t *src)
{
	uint64_t row = pos / (a->cols + 1), x = pos % (a->cols + 1);

	*src = row * a->cols + x;
	return pos < a->size && x < a->cols;
}

/* Position of element k (0 .. PAD_TASK - 1) of task `task` (may be past the matrix: skipped). */
static uint64_t pad_pos(const struct pad_args *a, unsigned task, unsigned k, bool *in)
{
	uint64_t off = (uint64_t)task * PAD_TASK + k;

	*in = off < a->top && a->top - 1 - off < a->size;
	return a->top - 1 - off;
}

static void pad_gpu(struct gpu_warp *w)
{
	const struct pad_args *a = gw_args(w);
	uint64_t addr[PAD_REGS][WARP_LANES], v[PAD_REGS][WARP_LANES];
	uint32_t mask[PAD_REGS];
	unsigned task, taken = 0;

	while ((task = chai_gpu_take(w, a->worklist, PAD_SLOT)) < a->tasks) {
		for (unsigned j = 0; j < PAD_REGS; j++) {
			uint64_t src[WARP_LANES];
			uint32_t ld = 0;

			mask[j] = 0;
			for (unsigned l = 0; l < WARP_LANES; l++) {
				unsigned k = gw_warp(w) * WARP_LANES + l + j * PAD_LANES;
				bool in;

				addr[j][l] = a->mat + 8 * pad_pos(a, task, k, &in);
				v[j][l] = 0;
				if (!in)
					continue;
				mask[j] |= 1u << l;
				if (pad_source(a, (addr[j][l] - a->mat) / 8, &src[l])) {
					src[l] = a->mat + 8 * src[l];
					ld |= 1u << l;
				}
			}
			if (ld)
				gw_ld64v(w, src, ld, v[j]);
		}
		/* CHAI: __syncthreads; thread 0 waits for the flag and passes it on */
		gw_barrier(w);
		if (gw_warp(w) == 0) {
			if (!chai_gpu_wait_nonzero(w, a->flags + 4 * (uint64_t)task, "chai_pad",
						   "the flag of its task"))
				return;
			(void)gw_atom(w, MEM_ATOM_ADD, a->flags + 4 * (uint64_t)(task + 1), 4, 1, 0,
				      MEM_SCOPE_SYSTEM, MEM_ORDER_RELAXED);
		}
		gw_barrier(w);
		for (unsigned j = 0; j < PAD_REGS; j++)
			if (mask[j])
				gw_st64v(w, addr[j], mask[j], v[j]);
		taken++;
	}
	if (gw_warp(w) == 0)
		gw_st32(w, a->taken + 4 * (a->threads + gw_cta(w)), taken);
}

static void pad_cpu(struct cpu_thread *t)
{
	const struct pad_args *a = ct_args(t);
	uint64_t reg[PAD_TASK]; /* 8 KiB of the thread's 64-KiB stack */
	unsigned task, taken = 0;

	if (ct_id(t) == 0)
		ct_launch(t, &a->kernel);
	while ((task = chai_cpu_take(t, a->worklist)) < a->tasks) {
		uint64_t src[CPU_LDV_MAX], got[CPU_LDV_MAX];
		unsigned idx[CPU_LDV_MAX], n = 0;

		/* the task's elements from the top down, batched loads of the sources */
		for (unsigned k = 0; k < PAD_TASK; k++) {
			bool in;
			uint64_t pos = pad_pos(a, task, k, &in);

			reg[k] = 0;
			if (in && pad_source(a, pos, &src[n])) {
				src[n] = a->mat + 8 * src[n];
				idx[n++] = k;
			}
			if (n == CPU_LDV_MAX || (k == PAD_TASK - 1 && n)) {
				ct_ldv(t, src, n, 8, got);
				for (unsigned i = 0; i < n; i++)
					reg[idx[i]] = got[i];
				n = 0;
			}
		}
		if (!chai_cpu_wait_nonzero(t, a->flags + 4 * (uint64_t)task, "chai_pad",
					   "the flag of its task"))
			break;
		(void)ct_atomic(t, MEM_ATOM_ADD, a->flags + 4 * (uint64_t)(task + 1), 4, 1, 0);
		for (unsigned k = 0; k < PAD_TASK; k++) {
			bool in;
			uint64_t pos = pad_pos(a, task, k, &in);

			if (in)
				ct_st64(t, a->mat + 8 * pos, reg[k]);
		}
		taken++;
	}
	ct_st32(t, a->taken + 4 * ct_id(t), taken);
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int chai_pad_main(struct cpu_host *h)
{
	struct pad_args a = {.seed = ch_seed(h),
			     .rows = wl_size_pick(ch_size(h), 128, 384, 1000),
			     .threads = ch_cores(h)};
	struct cpu_program p = {.name = "pad", .threads = a.threads, .fn = pad_cpu, .args = &a};
	uint64_t in_n, cpu_tasks, gpu_tasks, checked = 0;
	uint32_t last_flag;
	struct wl_sample s;
	uint64_t *buf;
	int rc;

	a.cols = a.rows - 1; /* CHAI: 1000 x 999 padded by 1 */
	a.size = a.rows * (a.cols + 1);
	a.tasks = (unsigned)((a.size + PAD_TASK - 1) / PAD_TASK);
	a.top = (uint64_t)a.tasks * PAD_TASK;
	in_n = a.rows * a.cols;
	a.mat = ch_alloc(h, 8 * a.size, PAD_LINE);
	a.flags = ch_alloc(h, 4 * ((uint64_t)a.tasks + 1), PAD_LINE);
	a.worklist = ch_alloc(h, PAD_LINE, PAD_LINE);
	a.taken = ch_alloc(h, 4 * (uint64_t)(a.threads + PAD_CTAS), PAD_LINE);
	buf = malloc(8 * in_n);
	if (!buf)
		return -CS_ENOMEM;
	for (uint64_t i = 0; i < in_n; i++)
		buf[i] = pad_input(a.seed, i);
	ch_write(h, a.mat, buf, 8 * in_n); /* the padding's tail reads as zero */
	free(buf);
	ch_write32(h, a.flags, 1);
	a.kernel = (struct gpu_kernel){.name = "padding",
				       .ctas = PAD_CTAS,
				       .warps_per_cta = PAD_WARPS,
				       .smem_bytes = 8,
				       .fn = pad_gpu,
				       .args = &a};
	rc = chai_run(h, &p, a.taken, PAD_CTAS, &cpu_tasks, &gpu_tasks);
	if (rc)
		return rc;
	last_flag = ch_read32(h, a.flags + 4 * (uint64_t)a.tasks);
	if (cpu_tasks + gpu_tasks != a.tasks || last_flag != 1)
		return ch_fail(h,
			       "chai_pad: the CPU threads took %" PRIu64
			       " tasks and the GPU %" PRIu64 " of %u; the last flag is %" PRIu32
			       ", expected 1",
			       cpu_tasks, gpu_tasks, a.tasks, last_flag);

	chai_sample_init(h, &s, a.size, PAD_TAG);
	for (uint64_t pos = 0; pos < a.size; pos++) {
		uint64_t src, want = 0, got;

		if (!wl_sample_take(&s))
			continue;
		if (pad_source(&a, pos, &src))
			want = pad_input(a.seed, src);
		ch_read(h, a.mat + 8 * pos, &got, 8);
		if (got != want)
			return ch_fail(h,
				       "chai_pad: element (%" PRIu64 ", %" PRIu64 ") at %" PRIu64
				       " (task %" PRIu64 "): read %#" PRIx64 ", expected %#" PRIx64
				       " (%s)",
				       pos / (a.cols + 1), pos % (a.cols + 1), pos,
				       (a.top - 1 - pos) / PAD_TASK, got, want,
				       got == pad_input(a.seed, pos) && pos < in_n
					   ? "the input's: never written"
					   : "moved wrong");
		checked++;
	}
	ch_note(h,
		"chai_pad (%s): %" PRIu64 "x%" PRIu64 " doubles padded in place to %" PRIu64
		"x%" PRIu64 " (%" PRIu64 " B), %u tasks of %d; %" PRIu64 " elements verified",
		wl_size_str(ch_size(h)), a.rows, a.cols, a.rows, a.cols + 1, 8 * a.size, a.tasks,
		PAD_TASK, checked);
	chai_note_split(h, "chai_pad", "tasks", cpu_tasks, gpu_tasks);
	return 0;
}
