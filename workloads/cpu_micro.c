/*
 * workloads/cpu_micro.c - CPU microbenchmarks (cpu_micro.h).
 */
#include "workloads/cpu_micro.h"

#include <inttypes.h>

#define COUNT_ADDS 200
#define MP_WORDS   64
#define MP_ROUNDS  20

struct count_args {
	uint64_t counter, slots;
};

static void count_thread(struct cpu_thread *t)
{
	const struct count_args *a = ct_args(t);
	uint64_t slot = a->slots + 64 * ct_id(t);

	for (unsigned i = 0; i < COUNT_ADDS; i++) {
		ct_st(t, slot, 8, i);
		if (ct_ld(t, slot, 8) != i) {
			ct_fail(t, "cpu_count: thread %u reloaded a stale value of its own store",
				ct_id(t));
			return;
		}
		(void)ct_atomic(t, MEM_ATOM_ADD, a->counter, 8, 1, 0);
		ct_compute(t, ct_rand(t) % 8);
	}
}

int cpu_count_main(struct cpu_host *h)
{
	unsigned n = ch_cores(h);
	struct count_args a = {.counter = ch_alloc(h, 64, 64), .slots = ch_alloc(h, 64 * n, 64)};
	struct cpu_program p = {.name = "count", .threads = n, .fn = count_thread, .args = &a};
	uint64_t total;
	int rc = ch_run(h, &p);

	if (rc)
		return rc;
	ch_read(h, a.counter, &total, sizeof(total));
	if (total != (uint64_t)n * COUNT_ADDS)
		return ch_fail(h, "cpu_count: counter %" PRIu64 ", expected %u", total,
			       n * COUNT_ADDS);
	ch_note(h, "cpu_count: %u cores x %u locked adds = %" PRIu64 " verified", n, COUNT_ADDS,
		total);
	return 0;
}

struct mp_args {
	uint64_t data, flag;
};

static void mp_thread(struct cpu_thread *t)
{
	const struct mp_args *a = ct_args(t);

	for (uint64_t r = 1; r <= MP_ROUNDS; r++) {
		/* per wait: the guard counts the work since its last call as a spin try */
		uint64_t spins = 0;

		if (ct_id(t) == 0) {
			for (unsigned i = 0; i < MP_WORDS; i++)
				ct_st(t, a->data + 8 * i, 8, r * 1000 + i);
			ct_st(t, a->flag, 8, r);
			/* wait until every reader has seen round r (a count of acks) */
			while (ct_ld(t, a->flag + 64, 8) < r * (ct_threads(t) - 1))
				if (ct_spin_guard(t, &spins)) {
					ct_fail(t, "cpu_mp: writer livelocked in round %" PRIu64,
						r);
					return;
				}
			continue;
		}
		while (ct_ld(t, a->flag, 8) < r)
			if (ct_spin_guard(t, &spins)) {
				ct_fail(t, "cpu_mp: reader %u livelocked in round %" PRIu64,
					ct_id(t), r);
				return;
			}
		for (unsigned i = 0; i < MP_WORDS; i++) {
			uint64_t v = ct_ld(t, a->data + 8 * i, 8);

			if (v != r * 1000 + i) {
				ct_fail(t,
					"cpu_mp: reader %u saw the flag of round %" PRIu64
					" but word %u = %" PRIu64 " (TSO violated)",
					ct_id(t), r, i, v);
				return;
			}
		}
		(void)ct_atomic(t, MEM_ATOM_ADD, a->flag + 64, 8, 1, 0);
	}
}

int cpu_mp_main(struct cpu_host *h)
{
	unsigned n = ch_cores(h);
	struct mp_args a = {.data = ch_alloc(h, 8 * MP_WORDS, 64), .flag = ch_alloc(h, 128, 64)};
	struct cpu_program p = {.name = "mp", .threads = n, .fn = mp_thread, .args = &a};
	int rc;

	if (n < 2)
		return ch_fail(h, "cpu_mp: needs at least 2 cores (cpus.cores)");
	rc = ch_run(h, &p);
	if (rc)
		return rc;
	ch_note(h, "cpu_mp: %u rounds of %u words to %u readers verified", MP_ROUNDS, MP_WORDS,
		n - 1);
	return 0;
}
