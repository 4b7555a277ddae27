/*
 * workloads/chai_trns.c - chai_trns, CHAI's TRNS (in-place transposition) on system apu
 * (chai.h).
 *
 * A rows x cols matrix of super-elements, each TRNS_B doubles (256 B) stored together, is
 * transposed in place (CHAI's PTTWAC soa-asta stage, CUDA-U/TRNS): super-element g = r * cols + c
 * moves to c * rows + r, that is to g * rows mod (rows * cols - 1). The moves form cycles. CPU
 * threads (locked add) and GPU work-groups (leader's system-scope add) take start points g from one
 * counter (head); a worker reads super-element g, reads finished[g] (CPU plain load, GPU
 * system-scope atomic read) and, while it reads 0, follows the cycle: it reads the super-element
 * at the next place, swaps 1 into finished[next] (CPU XCHG, GPU system-scope exchange), writes
 * what it carries there if it got 0 (the place was still unclaimed) and goes on carrying what it
 * read, until a place is already finished. Workers that start on the same cycle race; the
 * exchanges let exactly one write each place, and every place is read before it is claimed.
 *
 * A work-group is one warp, a lane per double of the super-element (CHAI: 64 threads for 32
 * doubles); a CPU thread reads a super-element with one batch of 32 loads (ct_ldv) and writes it
 * with 32 stores.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/chai.h"
#include "workloads/hetero_util.h"

#define TRNS_LINE 64
#define TRNS_B	  32 /* CHAI's s: doubles per super-element */
#define TRNS_CTAS 16 /* CHAI's n_gpu_blocks */
#define TRNS_TAG  0x6368616974726e73ull

struct trns_args {
	uint64_t mat, finished, head, taken; /* taken: moves per CPU thread, then per CTA */
	uint64_t seed;
	unsigned rows, cols, threads;
	struct gpu_kernel kernel;
};

static uint64_t trns_input(uint64_t seed, uint64_t i)
{
	double d = wl_unit(seed ^ TRNS_TAG, 0, i); /* CHAI: (rand() % 100) / 100, here unique */
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

/* Where super-element g goes (CHAI's next_in_cycle; g < rows * cols - 1). */
static uint32_t trns_next(const struct trns_args *a, uint32_t g)
{
	uint32_t m = a->rows * a->cols - 1;

	return (uint32_t)((uint64_t)g * a->rows - (uint64_t)m * (g / a->cols));
}

static uint64_t trns_elem(const struct trns_args *a, uint32_t g)
{
	return a->mat + 8 * (uint64_t)TRNS_B * g;
}

static uint64_t trns_flag(const struct trns_args *a, uint32_t g)
{
	return a->finished + 4 * (uint64_t)g;
}

static void trns_gpu(struct gpu_warp *w)
{
	const struct trns_args *a = gw_args(w);
	uint32_t m = a->rows * a->cols - 1, g, moves = 0;
	uint64_t addr[WARP_LANES], data[WARP_LANES], backup[WARP_LANES];

	while ((g = chai_gpu_take(w, a->head, 0)) < m) {
		uint32_t next = trns_next(a, g);

		if (next == g)
			continue;
		wl_lane_addrs(addr, trns_elem(a, g), 0, TRNS_B, 8);
		gw_ld64v(w, addr, LANES_ALL, data);
		for (uint32_t done = hx_gpu_sys_read32(w, trns_flag(a, g)); !done;
		     next = trns_next(a, next)) {
			wl_lane_addrs(addr, trns_elem(a, next), 0, TRNS_B, 8);
			gw_ld64v(w, addr, LANES_ALL, backup);
			done = (uint32_t)gw_atom(w, MEM_ATOM_EXCH, trns_flag(a, next), 4, 1, 0,
						 MEM_SCOPE_SYSTEM, MEM_ORDER_RELAXED);
			if (!done) {
				gw_st64v(w, addr, LANES_ALL, data);
				moves++;
			}
			memcpy(data, backup, sizeof(data));
		}
	}
	gw_st32(w, a->taken + 4 * (a->threads + gw_cta(w)), moves);
}

static void trns_cpu_read(struct cpu_thread *t, const struct trns_args *a, uint32_t g,
			  uint64_t v[TRNS_B])
{
	uint64_t addr[TRNS_B];

	for (unsigned i = 0; i < TRNS_B; i++)
		addr[i] = trns_elem(a, g) + 8 * i;
	ct_ldv(t, addr, TRNS_B, 8, v);
}

static void trns_cpu(struct cpu_thread *t)
{
	const struct trns_args *a = ct_args(t);
	uint32_t m = a->rows * a->cols - 1, g, moves = 0;
	uint64_t data[TRNS_B], backup[TRNS_B];

	if (ct_id(t) == 0)
		ct_launch(t, &a->kernel);
	while ((g = chai_cpu_take(t, a->head)) < m) {
		uint32_t next = trns_next(a, g);

		if (next == g)
			continue;
		trns_cpu_read(t, a, g, data);
		for (uint32_t done = ct_ld32(t, trns_flag(a, g)); !done;
		     next = trns_next(a, next)) {
			trns_cpu_read(t, a, next, backup);
			done = (uint32_t)ct_atomic(t, MEM_ATOM_EXCH, trns_flag(a, next), 4, 1, 0);
			if (!done) {
				for (unsigned i = 0; i < TRNS_B; i++)
					ct_st64(t, trns_elem(a, next) + 8 * i, data[i]);
				moves++;
			}
			memcpy(data, backup, sizeof(data));
		}
	}
	ct_st32(t, a->taken + 4 * ct_id(t), moves);
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int chai_trns_main(struct cpu_host *h)
{
	struct trns_args a = {.seed = ch_seed(h),
			      .rows = (unsigned)wl_size_pick(ch_size(h), 8, 24, 96),
			      .cols = (unsigned)wl_size_pick(ch_size(h), 16, 40, 160),
			      .threads = ch_cores(h)};
	struct cpu_program p = {.name = "trns", .threads = a.threads, .fn = trns_cpu, .args = &a};
	uint32_t n = a.rows * a.cols, movable = 0;
	uint64_t words = (uint64_t)n * TRNS_B, cpu_moves, gpu_moves, checked = 0;
	uint64_t *buf;
	struct wl_sample s;
	int rc;

	a.mat = ch_alloc(h, 8 * words, TRNS_LINE);
	a.finished = ch_alloc(h, 4 * (uint64_t)n, TRNS_LINE);
	a.head = ch_alloc(h, TRNS_LINE, TRNS_LINE);
	a.taken = ch_alloc(h, 4 * (uint64_t)(a.threads + TRNS_CTAS), TRNS_LINE);
	buf = malloc(8 * words);
	if (!buf)
		return -CS_ENOMEM;
	for (uint64_t i = 0; i < words; i++)
		buf[i] = trns_input(a.seed, i);
	ch_write(h, a.mat, buf, 8 * words);
	a.kernel = (struct gpu_kernel){.name = "pttwac_soa_asta",
				       .ctas = TRNS_CTAS,
				       .warps_per_cta = 1,
				       .smem_bytes = 8,
				       .fn = trns_gpu,
				       .args = &a};
	rc = chai_run(h, &p, a.taken, TRNS_CTAS, &cpu_moves, &gpu_moves);
	if (rc)
		goto out;

	/* every place off the fixed points is claimed (its flag 1) and written once */
	for (uint32_t g = 0; g < n - 1; g++) {
		uint32_t flag = ch_read32(h, trns_flag(&a, g)), want = trns_next(&a, g) != g;

		movable += want;
		if (flag != want) {
			rc = ch_fail(
			    h, "chai_trns: finished[%" PRIu32 "] is %" PRIu32 ", expected %" PRIu32,
			    g, flag, want);
			goto out;
		}
	}
	if (cpu_moves + gpu_moves != movable) {
		rc = ch_fail(h,
			     "chai_trns: the CPU threads moved %" PRIu64
			     " super-elements and the GPU "
			     "%" PRIu64 ", expected %" PRIu32 " moves in all",
			     cpu_moves, gpu_moves, movable);
		goto out;
	}
	/* the reference: super-element g's values at trns_next(g) (the last one stays) */
	chai_sample_init(h, &s, words, TRNS_TAG);
	for (uint64_t i = 0; i < words; i++) {
		uint32_t q = (uint32_t)(i / TRNS_B), src = q;
		uint64_t got, want;

		if (!wl_sample_take(&s))
			continue;
		if (q < n - 1) /* the place q is filled from: r * cols + c with c * rows + r = q */
			src = q % a.rows * a.cols + q / a.rows;
		want = trns_input(a.seed, (uint64_t)src * TRNS_B + i % TRNS_B);
		ch_read(h, a.mat + 8 * i, &got, 8);
		if (got != want) {
			rc = ch_fail(
			    h,
			    "chai_trns: super-element %" PRIu32 " (row %u, column %u of the "
			    "transpose) double %u: read %#" PRIx64 ", expected %#" PRIx64
			    " (super-element %" PRIu32 "'s)",
			    q, q / a.rows, q % a.rows, (unsigned)(i % TRNS_B), got, want, src);
			goto out;
		}
		checked++;
	}
	ch_note(h,
		"chai_trns (%s): %ux%u super-elements of %d doubles (%" PRIu64
		" B) transposed in place; %" PRIu64 " doubles verified",
		wl_size_str(ch_size(h)), a.rows, a.cols, TRNS_B, 8 * words, checked);
	chai_note_split(h, "chai_trns", "moves", cpu_moves, gpu_moves);
out:
	free(buf);
	return rc;
}
