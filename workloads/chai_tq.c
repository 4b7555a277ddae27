/*
 * workloads/chai_tq.c - chai_tq, CHAI's TQ (task queue system) on system apu (chai.h;
 * docs/workloads.md, "CHAI workloads").
 *
 * A pool of tasks {id, op}, a seeded quarter of them heavy (op WORK: `iterations` rounds of
 * work on the task's 64 words) and the rest light (op NOTWORK: one round). Task queues of
 * `qsize` slots, each with three counters as CHAI: in_queue (tasks not yet taken: the GPU
 * dequeues slot in_queue - 1 with an atomic decrement), written (tasks ever put in) and consumed
 * (tasks ever taken: the "task done" signal the producer waits on before it refills a queue).
 *
 * CPU side: each of the T threads is one of CHAI's producers with its own two queues (CHAI's
 * NUM_TASK_QUEUES) and its share of the pool. It inserts a batch of qsize tasks into one of its
 * queues once that queue's consumed equals its written (plain loads, backing off between looks):
 * the tasks with plain stores, then in_queue = n with an XCHG (std::atomic store), then
 * written += n with a locked add (TSO keeps the tasks before both). When every producer is done
 * (a counter) and every queue is drained, thread 0 inserts one STOP task per work-group the same
 * way (CHAI's single producer inserts them after its last batch; with several producers the
 * queues must be empty first, so no work-group stops while another producer's tasks wait).
 *
 * GPU side: work-groups of 64 threads (2 warps, CHAI's n_gpu_threads). Warp 0 fetches as CHAI's
 * thread 0: from its last queue on, it skips a queue whose consumed equals written, or whose
 * in_queue is not above 0 (system-scope atomic reads at the directory); otherwise it decrements
 * in_queue (system-scope atomic); a slot j >= 0 is its task: a system-scope acquire fence (the
 * slot's line may be stale in the TCP or TCC from an earlier batch; CHAI leaves this implicit),
 * the task's load, consumed += 1 (system scope), and it moves on when that emptied the queue.
 * The task goes to the other warp through the scratchpad (double-buffered) and a barrier; each
 * warp then reads its 32 words, adds 64 per round and the task id, and writes them back. A STOP
 * task ends the work-group, which writes how many tasks it took.
 *
 * Checks: every word of every task (each task processed exactly once), the tasks the producers
 * put in against those the work-groups took.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/chai.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define TQ_LINE		64
#define TQ_QUEUES	2	    /* CHAI's NUM_TASK_QUEUES, per producer */
#define TQ_WARPS	2	    /* CHAI's 64 threads a work-group */
#define TQ_CTAS		32	    /* 4 work-groups per CU */
#define TQ_ITER		50	    /* CHAI's iterations of a heavy task */
#define TQ_HEAVY_IN	4	    /* a quarter of the tasks heavy (CHAI's pattern file FB25) */
#define TQ_OP_WORK	1u	    /* CHAI's SIGNAL_WORK_KERNEL */
#define TQ_OP_NOTWORK	2u	    /* SIGNAL_NOTWORK_KERNEL */
#define TQ_OP_STOP	0xfedcfedcu /* SIGNAL_STOP_KERNEL */
#define TQ_ROUND_CYCLES 2	    /* an add and the loop test per round */
#define TQ_TAG		0x6368616974710000ull

struct tq_args {
	uint64_t tasks;			      /* the queues' slots: 8-byte {id, op} */
	uint64_t in_queue, written, consumed; /* uint32 per queue, each on its own line */
	uint64_t data;			      /* pool * 64 words */
	uint64_t done;			      /* producers done (uint32) */
	uint64_t taken;			      /* uint32 per work-group */
	uint64_t seed;
	unsigned pool, qsize, queues, ctas;
	uint32_t *enqueued; /* tasks each producer put in (host side) */
	struct gpu_kernel kernel;
};

static uint32_t tq_op(const struct tq_args *a, unsigned id)
{
	return wl_value32(a->seed ^ TQ_TAG, 0, 0, id) % TQ_HEAVY_IN == 0 ? TQ_OP_WORK
									 : TQ_OP_NOTWORK;
}

static uint32_t tq_want(const struct tq_args *a, unsigned id)
{
	return (tq_op(a, id) == TQ_OP_WORK ? TQ_ITER : 1) * TQ_WARPS * WARP_LANES + id;
}

static uint64_t tq_ctr(uint64_t base, unsigned q)
{
	return base + (uint64_t)q * TQ_LINE;
}

/* ---- GPU: the consumers ----------------------------------------------------------------------- */

/* Warp 0 takes a task; false on livelock (the run has failed). */
static bool tq_fetch(struct gpu_warp *w, const struct tq_args *a, unsigned *q, uint64_t *task)
{
	uint64_t spins = 0;

	for (;;) {
		unsigned i = *q;
		uint32_t c = hx_gpu_sys_read32(w, tq_ctr(a->consumed, i));

		*q = (i + 1) % a->queues;
		if (c != hx_gpu_sys_read32(w, tq_ctr(a->written, i)) &&
		    (int32_t)hx_gpu_sys_read32(w, tq_ctr(a->in_queue, i)) > 0) {
			int32_t j =
			    (int32_t)gw_atom(w, MEM_ATOM_ADD, tq_ctr(a->in_queue, i), 4,
					     (uint32_t)-1, 0, MEM_SCOPE_SYSTEM, MEM_ORDER_ACQ_REL) -
			    1;

			if (j >= 0) {
				uint32_t jj;

				gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_SYSTEM);
				*task = gw_ld64(w, a->tasks + 8 * ((uint64_t)i * a->qsize + j));
				jj = (uint32_t)gw_atom(w, MEM_ATOM_ADD, tq_ctr(a->consumed, i), 4,
						       1, 0, MEM_SCOPE_SYSTEM, MEM_ORDER_RELEASE) +
				     1;
				*q = jj == hx_gpu_sys_read32(w, tq_ctr(a->written, i)) ? *q : i;
				return true;
			}
		}
		if (gw_spin_guard(w, &spins)) {
			gw_fail(w, "chai_tq: work-group %u livelocked waiting for a task",
				gw_cta(w));
			return false;
		}
	}
}

static void tq_gpu(struct gpu_warp *w)
{
	const struct tq_args *a = gw_args(w);
	uint64_t *slot = gw_smem(w); /* the task, double-buffered by round */
	unsigned q = gw_cta(w) % a->queues, taken = 0;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned r = 0;; r++) {
		uint64_t task = 0;
		uint32_t id, op;

		if (gw_warp(w) == 0) {
			if (!tq_fetch(w, a, &q, &task))
				return;
			taken++;
			slot[r & 1] = task;
			gw_smem_access(w);
		}
		gw_barrier(w);
		task = slot[r & 1];
		gw_smem_access(w);
		id = (uint32_t)task;
		op = (uint32_t)(task >> 32);
		if (op == TQ_OP_STOP)
			break;
		wl_lane_addrs(addr, a->data,
			      (uint64_t)id * TQ_WARPS * WARP_LANES + gw_warp(w) * WARP_LANES,
			      (uint64_t)a->pool * TQ_WARPS * WARP_LANES, 4);
		gw_ld32v(w, addr, LANES_ALL, v);
		gw_compute(w, (op == TQ_OP_WORK ? TQ_ITER : 1) * TQ_ROUND_CYCLES);
		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] += (op == TQ_OP_WORK ? TQ_ITER : 1) * TQ_WARPS * WARP_LANES + id;
		gw_st32v(w, addr, LANES_ALL, v);
	}
	if (gw_warp(w) == 0)
		gw_st32(w, a->taken + 4 * (uint64_t)gw_cta(w), taken);
}

/* ---- CPU: the producers ----------------------------------------------------------------------- */

/* Puts tasks [first, first + n) (or n STOP tasks) into the producer's queues, a batch of at
 * most qsize into each queue the GPU has emptied; *q: the producer's next queue. */
static bool tq_insert(struct cpu_thread *t, const struct tq_args *a, unsigned *q, unsigned first,
		      unsigned n, bool stop)
{
	unsigned base = ct_id(t) * TQ_QUEUES;
	uint64_t spins = 0, backoff = 16;

	while (n) {
		unsigned i = base + *q, k = n < a->qsize ? n : a->qsize;

		*q = (*q + 1) % TQ_QUEUES;
		if (ct_ld32(t, tq_ctr(a->consumed, i)) != ct_ld32(t, tq_ctr(a->written, i))) {
			if (ct_spin_guard(t, &spins)) {
				ct_fail(t, "chai_tq: producer %u livelocked waiting for queue %u",
					ct_id(t), i);
				return false;
			}
			ct_compute(t, backoff);
			backoff = backoff < 1024 ? 2 * backoff : backoff;
			continue;
		}
		for (unsigned j = 0; j < k; j++) {
			unsigned id = first + j;
			uint64_t task = stop ? (uint64_t)TQ_OP_STOP << 32 | UINT32_MAX
					     : (uint64_t)tq_op(a, id) << 32 | id;

			ct_st64(t, a->tasks + 8 * ((uint64_t)i * a->qsize + j), task);
		}
		(void)ct_atomic(t, MEM_ATOM_EXCH, tq_ctr(a->in_queue, i), 4, k, 0);
		(void)ct_atomic(t, MEM_ATOM_ADD, tq_ctr(a->written, i), 4, k, 0);
		a->enqueued[ct_id(t)] += k;
		first += k;
		n -= k;
		backoff = 16;
		spins = 0; /* progress: the next failed look starts a new wait */
	}
	return true;
}

static void tq_cpu(struct cpu_thread *t)
{
	const struct tq_args *a = ct_args(t);
	unsigned k = ct_id(t), nt = ct_threads(t), q = 0;
	unsigned first = a->pool * k / nt, end = a->pool * (k + 1) / nt;

	if (k == 0)
		ct_launch(t, &a->kernel);
	if (!tq_insert(t, a, &q, first, end - first, false))
		return;
	(void)ct_atomic(t, MEM_ATOM_ADD, a->done, 4, 1, 0);
	if (k != 0)
		return;
	if (!hx_cpu_wait_at_least(t, a->done, nt, "chai_tq"))
		return;
	for (unsigned i = 0; i < a->queues; i++)
		while (ct_ld32(t, tq_ctr(a->consumed, i)) != ct_ld32(t, tq_ctr(a->written, i)))
			if (!hx_cpu_wait_at_least(t, tq_ctr(a->consumed, i),
						  ct_ld32(t, tq_ctr(a->written, i)), "chai_tq"))
				return;
	if (!tq_insert(t, a, &q, 0, a->ctas, true))
		return;
	ct_gpu_wait(t);
}

int chai_tq_main(struct cpu_host *h)
{
	struct tq_args a = {.seed = ch_seed(h),
			    .pool = (unsigned)wl_size_pick(ch_size(h), 256, 1024, 12800),
			    .qsize = (unsigned)wl_size_pick(ch_size(h), 16, 32, 64),
			    .ctas = TQ_CTAS};
	struct cpu_program p = {.name = "tq", .threads = ch_cores(h), .fn = tq_cpu, .args = &a};
	uint64_t words, enq = 0, took = 0;
	uint32_t *got;
	int rc;

	a.queues = p.threads * TQ_QUEUES;
	words = (uint64_t)a.pool * TQ_WARPS * WARP_LANES;
	a.tasks = ch_alloc(h, 8 * (uint64_t)a.queues * a.qsize, TQ_LINE);
	a.in_queue = ch_alloc(h, (uint64_t)a.queues * TQ_LINE, TQ_LINE);
	a.written = ch_alloc(h, (uint64_t)a.queues * TQ_LINE, TQ_LINE);
	a.consumed = ch_alloc(h, (uint64_t)a.queues * TQ_LINE, TQ_LINE);
	a.done = ch_alloc(h, TQ_LINE, TQ_LINE);
	a.taken = ch_alloc(h, 4 * (uint64_t)a.ctas, TQ_LINE);
	a.data = ch_alloc(h, 4 * words, TQ_LINE);
	a.enqueued = calloc(p.threads, sizeof(*a.enqueued));
	got = malloc(4 * words);
	if (!a.enqueued || !got) {
		free(a.enqueued);
		free(got);
		return -CS_ENOMEM;
	}
	a.kernel = (struct gpu_kernel){.name = "task_queue",
				       .ctas = a.ctas,
				       .warps_per_cta = TQ_WARPS,
				       .smem_bytes = 2 * 8,
				       .fn = tq_gpu,
				       .args = &a};
	rc = ch_run(h, &p);
	if (rc)
		goto out;
	ch_read(h, a.data, got, 4 * words);
	for (uint64_t i = 0; i < words; i++) {
		unsigned id = (unsigned)(i / (TQ_WARPS * WARP_LANES));

		if (got[i] != tq_want(&a, id)) {
			rc = ch_fail(h,
				     "chai_tq: task %u (%s) word %" PRIu64 " holds %" PRIu32
				     ", expected %" PRIu32 " (%s)",
				     id, tq_op(&a, id) == TQ_OP_WORK ? "heavy" : "light",
				     i % (TQ_WARPS * WARP_LANES), got[i], tq_want(&a, id),
				     got[i] == 0 ? "never processed" : "processed twice or lost");
			goto out;
		}
	}
	for (unsigned k = 0; k < p.threads; k++)
		enq += a.enqueued[k];
	for (unsigned c = 0; c < a.ctas; c++)
		took += ch_read32(h, a.taken + 4 * (uint64_t)c);
	if (enq != (uint64_t)a.pool + a.ctas || took != enq) {
		rc = ch_fail(h,
			     "chai_tq: the CPU enqueued %" PRIu64 " tasks, the GPU took %" PRIu64
			     ", expected %u and %u STOP",
			     enq, took, a.pool, a.ctas);
		goto out;
	}
	ch_note(h,
		"chai_tq (%s): %" PRIu64 " tasks enqueued by %u CPU threads into %u queues of %u, "
		"%" PRIu64 " dequeued by %u GPU work-groups (%u STOP), verified",
		wl_size_str(ch_size(h)), enq, p.threads, a.queues, a.qsize, took, a.ctas, a.ctas);
out:
	free(a.enqueued);
	free(got);
	return rc;
}
