/* workloads/trace/replay.c - replays a trace through the op API (see replay.h). */
#include "workloads/trace/replay.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "workloads/trace/trace.h"

#define RELOC_ALIGN (64 * 1024) /* the importer's granule: offsets inside one are kept */

/* A warp's decoded op (1.6 KB: off the coroutine's stack). The buffers are the replay's, not
 * the warps': a run that fails abandons its warps mid-stream, and the replay frees every buffer
 * once the launch returns, whatever became of them. */
struct op_buf {
	struct op_buf *next_free, *next_all;
	struct trace_op op;
};

struct op_pool {
	struct op_buf *free, *all;
};

struct replay_kernel {
	const struct trace_kernel *k;
	uint64_t reloc; /* added to every address */
	struct op_pool *pool;
};

static struct trace_op *op_take(struct op_pool *a)
{
	struct op_buf *b = a->free;

	if (b) {
		a->free = b->next_free;
		return &b->op;
	}
	b = malloc(sizeof(*b));
	if (!b)
		return NULL;
	b->next_all = a->all;
	a->all = b;
	return &b->op;
}

static void op_give(struct op_pool *a, struct trace_op *op)
{
	struct op_buf *b = (struct op_buf *)((char *)op - offsetof(struct op_buf, op));

	b->next_free = a->free;
	a->free = b;
}

static void op_free_all(struct op_pool *a)
{
	while (a->all) {
		struct op_buf *b = a->all;

		a->all = b->next_all;
		free(b);
	}
	a->free = NULL;
}

static void replay_warp(struct gpu_warp *w)
{
	const struct replay_kernel *a = gw_args(w);
	uint64_t gwid = gw_gwid(w);
	struct trace_cursor c;
	struct trace_op *op = op_take(a->pool);
	uint64_t out[WARP_LANES_MAX];
	uint64_t spins = 0;
	int rc;

	if (!op) {
		gw_fail(w, "trace: out of memory");
		return;
	}
	trace_cursor_init(&c, &a->k->warp[gwid]);
	while ((rc = trace_next(&c, op)) > 0) {
		if (op->kind == TRACE_LD || op->kind == TRACE_ST || op->kind == TRACE_ATOM)
			for (uint64_t m = op->mask; m; m &= m - 1)
				op->addr[__builtin_ctzll(m)] += a->reloc;
		switch (op->kind) {
		case TRACE_LD:
			gw_ldv_co(w, op->addr, op->mask, op->bytes, out,
				  (enum mem_cache_op)op->cop);
			break;
		case TRACE_ST:
			gw_stv_co(w, op->addr, op->mask, op->bytes, op->val,
				  (enum mem_cache_op)op->cop);
			break;
		case TRACE_ATOM:
			gw_atomv(w, (enum mem_atomic_op)op->atom_op, op->addr, op->mask,
				 op->bytes == 8 ? 8 : 4, op->val, op->b, op->want_old ? out : NULL,
				 (enum mem_scope)op->scope, (enum mem_order)op->order);
			break;
		case TRACE_FENCE:
			gw_fence(w, (enum mem_order)op->order, (enum mem_scope)op->scope);
			break;
		case TRACE_BAR:
			gw_barrier(w);
			break;
		case TRACE_COMPUTE:
			gw_compute(w, op->cycles);
			break;
		case TRACE_SMEM:
			gw_smem_access(w);
			break;
		case TRACE_SPIN:
			/* the recorded run's loop stayed within its limit, so the replay's does */
			if (op->first)
				spins = 0;
			(void)gw_spin_guard(w, &spins);
			break;
		}
	}
	op_give(a->pool, op);
	if (rc < 0)
		gw_fail(w, "trace: kernel '%s' warp %" PRIu64 ": corrupt op stream", a->k->name,
			gwid);
}

static int replay_main(struct gpu_host *h)
{
	const struct trace *t = gh_arg(h);
	uint64_t extent = t->heap_end > t->heap_base ? t->heap_end - t->heap_base : 1;
	uint64_t base = gh_alloc(h, extent, RELOC_ALIGN);
	struct op_pool pool = {NULL, NULL};
	struct replay_kernel rk = {.reloc = base - t->heap_base, .pool = &pool};
	uint64_t kernels = 0, ops = 0;

	for (size_t i = 0; i < t->nev; i++) {
		const struct trace_event *e = &t->ev[i];
		struct gpu_kernel k;
		int rc;

		if (e->kind == TRACE_EV_COPY) {
			if (e->copy.data)
				gh_write(h, e->copy.addr + rk.reloc, e->copy.data, e->copy.len);
			continue;
		}
		rk.k = &e->kernel;
		k = (struct gpu_kernel){
		    .name = e->kernel.name,
		    .ctas = e->kernel.ctas,
		    .warps_per_cta = e->kernel.warps_per_cta,
		    .regs_per_thread = e->kernel.regs_per_thread,
		    .smem_bytes = e->kernel.smem_bytes,
		    .fn = replay_warp,
		    .args = &rk,
		    .cta_sm = e->kernel.cta_sm,
		    .lanes = e->kernel.lanes,
		};
		rc = gh_launch(h, &k);
		op_free_all(&pool);
		if (rc)
			return rc;
		kernels++;
		for (uint64_t wi = 0; wi < (uint64_t)k.ctas * k.warps_per_cta; wi++)
			ops += e->kernel.warp[wi].ops;
	}
	gh_note(h, "trace: %s trace of '%s', %" PRIu64 " kernels, %" PRIu64 " warp ops replayed%s",
		t->source, t->workload, kernels, ops, rk.reloc ? ", addresses relocated" : "");
	return 0;
}

const struct cs_workload trace_replay_workload = {
    .name = "trace",
    .system = "gpu",
    .help = "trace:PATH replays a recorded cohscope trace (run --record) or imports an "
	    "Accel-Sim trace (a kernelslist.g or its directory)",
    .gpu = replay_main,
};
