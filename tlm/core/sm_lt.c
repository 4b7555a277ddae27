/*
 * tlm/core/sm_lt.c - the SM's loosely-timed (LT) and fast-forward (FF) faces.
 *
 * LT: the same warps, coroutines and ops as the detailed face, but no per-cycle scheduling.
 * Each warp keeps its own time and runs temporally decoupled, at most `lt_quantum` ahead of
 * the kernel's time: one run per quantum takes the posted op of the warp with the smallest
 * time, performs it at once and times it with a per-warp interval model:
 *   - an instruction takes an issue slot of its scheduler (slot % schedulers) no earlier than
 *     the warp's time; compute holds the scheduler for its cycles;
 *   - each coalesced request takes the LD/ST unit's next cycle and is performed by the L1's
 *     LT face (gpu_l1_ops.lt_access: b_transport down the hierarchy, every state change made,
 *     every message counted), which returns when it is performed: unloaded latency of the
 *     path it took plus the contention the load meters predict (analytic/ltmodel.h);
 *   - loads, atomics whose old values are wanted, and under SC every access, wait for their
 *     last request; under RC other stores and reductions let the warp go on and only raise
 *     the time its fences must wait for (lt_out);
 *   - fences, barriers, release atomics and exit wait for lt_out and for the protocol's fence
 *     time (TC-Weak's GWCT); a CTA barrier releases its warps at the latest arrival.
 * FF: values only, straight through the L2 banks' functional access (the backing store and
 * any copy a bank holds), no cache or protocol state, one cycle per op, for kernels whose time
 * the sampling controller predicts.
 */
#include <string.h>

#include "tlm/coherence/gpu_base.h"
#include "tlm/core/sm_impl.h"

static sim_time_t max_t(sim_time_t a, sim_time_t b)
{
	return a > b ? a : b;
}

/* ---- the interval model ---------------------------------------------------------------------- */

/* An issue slot of w's scheduler at or after the warp's time, held for n cycles; returns the
 * slot's time, and in *end (if not NULL) the time n cycles after it: one edge conversion for
 * both (this is the LT face's hottest path). */
static sim_time_t ivm_issue_end(struct gpu_sm *sm, struct warp *w, uint64_t n, sim_time_t *end)
{
	unsigned s = w->slot % sm->nsched;
	sim_time_t t;
	uint64_t e;

	if (w->lt_held) {
		w->lt_held = false;
		t = w->lt_t; /* reserved when the op was posted */
		if (end)
			*end = sm_cycles(sm, t, n);
		return t;
	}
	e = sim_clock_next_edge_n(&sm->ctx->core_clk, max_t(w->lt_t, sm->lt_sched[s]), &t);
	sm->lt_sched[s] = sim_clock_edge(&sm->ctx->core_clk, e + n);
	if (end)
		*end = sm->lt_sched[s];
	return t;
}

static sim_time_t ivm_issue(struct gpu_sm *sm, struct warp *w, uint64_t n)
{
	return ivm_issue_end(sm, w, n, NULL);
}

/* The L1 handles the answers back by t (the fills and acks the warps' accesses are waiting
 * for); returns when the next is back. */
static sim_time_t lt_sync(struct gpu_sm *sm, sim_time_t t)
{
	return sm->proto->l1->lt_advance(sm->l1, t);
}

/* The protocol's part of a fence at time t (TC-Weak: GWCT). */
static sim_time_t ivm_fence(struct gpu_sm *sm, struct warp *w, sim_time_t t, uint8_t order,
			    uint8_t scope)
{
	struct gpu_lt_clock *c = sm->ctx->lt_clock;
	sim_time_t until, ct = c->t;
	bool on = c->on;

	if (!sm->proto->l1->fence)
		return t;
	c->on = true;
	c->t = t;
	w->lt_fence_pending = true;
	w->lt_fence_t = t;
	until = sm->proto->l1->fence(sm->l1, w->slot, order, scope);
	if (until == GPU_FENCE_PENDING) {
		/* the L1 finishes it when its answers come back (a release waiting for the
		 * write-throughs' acks): handle them in time order until fence_done */
		sim_time_t next = t;

		/* a model error stops the answers' handling: stop waiting for them */
		while (w->lt_fence_pending && next != SIM_TIME_MAX && !sim_failure(sm->ctx->k))
			next = sm->proto->l1->lt_advance(sm->l1, next);
		if (w->lt_fence_pending && !sim_failure(sm->ctx->k)) {
			w->lt_fence_pending = false;
			sim_fail(sm->ctx->k, -CS_ESTATE,
				 "sm%u: a fence of warp slot %u waits for answers the L1 has not "
				 "sent (LT face)",
				 sm->id, w->slot);
		}
		until = w->lt_fence_t;
	}
	w->lt_fence_pending = false;
	c->on = on; /* an answer handled by the L1 may end an op under SC: a fence inside */
	c->t = ct;
	if (until > t) {
		(*sm->st.fence_waits)++;
		*sm->st.fence_wait_cycles += sim_clock_cycle(&sm->ctx->core_clk, until) -
					     sim_clock_cycle(&sm->ctx->core_clk, t);
		return until;
	}
	return t;
}

/* ---- LT: one op ------------------------------------------------------------------------------ */

/* A blocking op's last answer is in (at w->lt_done): the warp goes on then. */
static void lt_mem_over(struct gpu_sm *sm, struct warp *w)
{
	uint8_t order, scope;

	w->lt_t = max_t(w->lt_done, w->lt_t);
	if (op_over_fence(sm, &w->op, &order, &scope))
		w->lt_t = ivm_fence(sm, w, w->lt_t, order, scope);
}

void sm_lt_mem_done(struct gpu_sm *sm, struct warp *w)
{
	w->lt_waiting = false;
	lt_mem_over(sm, w);
	warp_advance(w);
}

/* Performs w's memory op (or the rest of it, from request w->lt_req, when the L1 refused one
 * before); false when the op is not over: a blocking one waits for answers the L1 handles
 * later (done() then finishes it: sm_lt_mem_done), or the L1 refused a request (MSHRs full:
 * the warp, and the LD/ST unit, wait for the L1's next answer and go on from there, as the
 * detailed face's LD/ST unit retries once an answer frees an entry). */
static bool lt_mem(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;
	bool sc = sm->cfg->consistency == GPU_SC;
	bool blocking = op_blocking(op, sc);
	sim_time_t t0;

	if (w->lt_resume) {
		t0 = w->lt_t;
	} else {
		if (op->kind == OP_ATOM && !sc && mem_order_releases(op->order)) {
			sim_time_t wait0 = w->lt_t;

			w->lt_t = max_t(w->lt_t, w->lt_out);
			lt_sync(sm, w->lt_t);
			if (!sm->proto->release_in_l1)
				w->lt_t = ivm_fence(sm, w, w->lt_t, MEM_ORDER_RELEASE, op->scope);
			sm_lat_add(sm, SM_LAT_RELEASE, wait0, w->lt_t);
		}
		t0 = ivm_issue(sm, w, 1);
		w->lt_req = 0;
		if (blocking) {
			w->pending = op->nreq;
			w->lt_done = t0;
		}
	}
	w->lt_resume = false;
	for (unsigned i = w->lt_req; i < op->nreq; i++) {
		sim_time_t at = max_t(t0, sm->lt_ldst); /* the LD/ST unit's first free cycle */
		struct sm_req *r;
		sim_time_t done;

		if (at > sim_now(sm->ctx->k) + sm->lt_quantum && !sm->lt_finishing) {
			/* the LD/ST unit is busy beyond the decoupling window (MSHRs full): the
			 * rest of the op waits for its time, not performed far ahead (at a switch
			 * the detailed face issues it) */
			w->lt_req = i;
			w->lt_resume = true;
			w->lt_t = at;
			sm_lt_ready(sm, w);
			return false;
		}
		r = sm_req_build(sm, w, &op->req[i], blocking);
		if (!r)
			return true;
		r->sent = at;
		sm->lt_ldst = sm_cycles(sm, at, 1);
		w->outstanding++;
		done = sm->proto->l1->lt_access(sm->l1, &r->acc, at, i + 1 == op->nreq);
		if (done == SIM_TIME_MAX) {
			sim_time_t next = lt_sync(sm, 0);

			w->outstanding--;
			req_free(sm, r->acc.id);
			if (next == SIM_TIME_MAX)
				return true; /* the L1 failed the run */
			w->lt_req = i;
			w->lt_resume = true;
			w->lt_t = max_t(at, next);
			sm->lt_ldst = max_t(sm->lt_ldst, w->lt_t);
			sm_lt_ready(sm, w);
			return false;
		}
		if (!blocking)
			w->lt_out = max_t(w->lt_out, done);
	}
	(*sm->st.requests) += op->nreq;
	(*sm->st.mem_insts)++;
	if (blocking) {
		if (w->pending) {
			w->state = W_WAIT_MEM;
			w->lt_waiting = true;
			(*sm->st.insts)++; /* at its issue, as the detailed face counts it */
			return false;
		}
		lt_mem_over(sm, w);
	} else {
		/* the warp goes on in its issue cycle (its scheduler's next slot is the next
		 * cycle), as in the detailed face */
		w->lt_t = t0;
	}
	return true;
}

/* Performs w's posted op; the warp then posts its next (or waits at a barrier, or exits). */
static void lt_step(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;

	(*sm->st.compute_cycles) += w->lt_compute;
	w->lt_compute = 0;
	if (w->at_compute) {
		/* compute the detailed face had not issued yet: its scheduler's, as an op's */
		w->lt_compute = w->at_compute;
		w->at_compute = 0;
		ivm_issue_end(sm, w, w->lt_compute, &w->lt_t);
		sm_lt_ready(sm, w);
		return;
	}
	if (w->lt_resume) {
		/* an op the L1 refused part of goes on */
		if (lt_mem(sm, w)) {
			(*sm->st.insts)++;
			warp_advance(w);
		}
		return;
	}
	if (!w->lt_held && (op->kind == OP_LD || op->kind == OP_ST || op->kind == OP_ATOM)) {
		/* its issue slot lies beyond the decoupling window (behind compute its scheduler
		 * has queued): reserve it and perform the op when the warp's time comes, not now
		 * stamped far ahead (at a switch to the detailed face such a warp slept that long:
		 * km's units measured sleeping SMs and its drains took up to 183k cycles) */
		unsigned s = w->slot % sm->nsched;
		sim_time_t t =
		    sim_clock_next_edge(&sm->ctx->core_clk, max_t(w->lt_t, sm->lt_sched[s]));

		if (t > sim_now(sm->ctx->k) + sm->lt_quantum) {
			sm->lt_sched[s] = sm_cycles(sm, t, 1);
			w->lt_t = t;
			w->lt_held = true;
			sm_lt_ready(sm, w);
			return;
		}
	}
	(*sm->lt_insts)++;
	switch (op->kind) {
	case OP_LD:
	case OP_ST:
	case OP_ATOM:
		if (!lt_mem(sm, w))
			return;
		break;
	case OP_COMPUTE:
		w->lt_compute = op->cycles;
		ivm_issue_end(sm, w, op->cycles, &w->lt_t);
		op->cycles = 0;
		break;
	case OP_SMEM:
		w->lt_t = sm_cycles(sm, ivm_issue(sm, w, 1), sm->cfg->smem_latency);
		break;
	case OP_FENCE: {
		sim_time_t wait0;

		(*sm->st.fences)++;
		/* the fence takes its scheduler's issue slot, as in the detailed face */
		wait0 = ivm_issue(sm, w, 1);
		w->lt_t = max_t(wait0, w->lt_out);
		lt_sync(sm, w->lt_t); /* the acks it waits for are in (TC-Weak: GWCT) */
		w->lt_t = ivm_fence(sm, w, w->lt_t, op->order, op->scope);
		sm_lat_add(sm, fence_lat_class(op->order), wait0, w->lt_t);
		break;
	}
	case OP_BAR:
		(*sm->st.barriers)++;
		w->lt_t = max_t(w->lt_t, w->lt_out);
		lt_sync(sm, w->lt_t);
		w->lt_t = ivm_fence(sm, w, w->lt_t, MEM_ORDER_ACQ_REL, MEM_SCOPE_WG);
		(*sm->st.insts)++;
		w->state = W_WAIT_BAR;
		if (++w->cta->arrived == w->cta->live)
			cta_release_barrier(sm, w->cta);
		return;
	case OP_EXIT: {
		sim_time_t next;

		(*sm->st.insts)++; /* the detailed face issues the exit as an instruction */
		w->lt_t = max_t(w->lt_t, w->lt_out);
		next = lt_sync(sm, w->lt_t); /* its acks are in before its slot is taken again */
		/* and those due later than its last blocking answer (lt_out), in time order, as
		 * the detailed face drains them before an exit: one left over would be counted
		 * off the next warp in the slot (hs under TC-Weak: two write-through acks at the
		 * exit's own time; the next warp's count wrapped and a drain never ended) */
		while (w->outstanding && next != SIM_TIME_MAX && !sim_failure(sm->ctx->k)) {
			w->lt_t = max_t(w->lt_t, next);
			next = lt_sync(sm, next);
		}
		sm->lt_launch_t = w->lt_t;
		warp_exit(w);
		return;
	}
	default:
		sm_fail(sm, -CS_ESTATE, "sm%u: warp %u has no op to perform", sm->id, w->slot);
		return;
	}
	(*sm->st.insts)++;
	warp_advance(w);
}

/* ---- FF: one op ------------------------------------------------------------------------------ */

/*
 * FF's memory, a line at a time. The lanes of a load read the L2 bank's functional view of a
 * line once (nothing writes it meanwhile, so every lane sees the bytes it would have read on
 * its own); the lanes of a store are gathered into their line's image in lane order (a later
 * lane's byte replaces an earlier one's, as its later write would) and each line is written
 * once per run of written bytes. One look-up of the L2 and of the backing store's page per
 * line instead of per lane: FF spent most of its time there (stn 90%, sgm 80%, cc 74%). A
 * lane whose bytes cross a chunk goes on its own (after the gathered writes, which it may
 * overlap). Atomics stay per lane, in lane order, as the L2 applies them.
 */
#define FF_LINES 4 /* lines an op keeps open at once; a fifth replaces one in turn */

struct ff_line {
	uint64_t base;			  /* chunk address; UINT64_MAX: unused */
	uint64_t mask[MEM_LINE_MAX / 64]; /* stores: the bytes written */
	uint8_t data[MEM_LINE_MAX];
};

struct ff_lines {
	struct ff_line l[FF_LINES];
	unsigned next; /* the entry a new line takes when all are in use */
	unsigned chunk;
};

static struct gpu_l2 *ff_bank(const struct gpu_sm *sm, uint64_t addr)
{
	return sm->ctx->l2_banks[addrmap_bank(&sm->ctx->map, addr)];
}

/* The unit FF reads and writes in: a line, or less where the banks interleave finer. */
static unsigned ff_chunk(const struct gpu_sm *sm)
{
	uint64_t c = sm->line_bytes < MEM_LINE_MAX ? sm->line_bytes : MEM_LINE_MAX;
	uint64_t il = UINT64_C(1) << sm->ctx->map.interleave_shift;

	return (unsigned)(il < c ? il : c);
}

static void ff_lines_init(struct ff_lines *fl, unsigned chunk)
{
	for (unsigned i = 0; i < FF_LINES; i++)
		fl->l[i].base = UINT64_MAX;
	fl->next = 0;
	fl->chunk = chunk;
}

/* A store line's written runs, to its bank; the entry is free after. */
static void ff_flush(struct gpu_sm *sm, struct ff_line *e, unsigned chunk)
{
	unsigned i = 0;

	while (e->base != UINT64_MAX && i < chunk) {
		unsigned j;

		if (!gpu_mask_byte(e->mask, i)) {
			i++;
			continue;
		}
		for (j = i; j < chunk && gpu_mask_byte(e->mask, j); j++)
			;
		if (sm->proto->l2->functional_write(ff_bank(sm, e->base), e->base + i, e->data + i,
						    j - i))
			sm_fail(sm, -CS_ENOMEM, "sm%u: out of memory", sm->id);
		i = j;
	}
	e->base = UINT64_MAX;
}

static void ff_flush_all(struct gpu_sm *sm, struct ff_lines *fl)
{
	for (unsigned i = 0; i < FF_LINES; i++)
		ff_flush(sm, &fl->l[i], fl->chunk);
}

/* The entry of the chunk at base: found, or taken (a load reads the chunk into it; a store
 * first writes back what the entry held). */
static struct ff_line *ff_line_of(struct gpu_sm *sm, struct ff_lines *fl, uint64_t base, bool load)
{
	struct ff_line *e;

	for (unsigned i = 0; i < FF_LINES; i++)
		if (fl->l[i].base == base)
			return &fl->l[i];
	e = &fl->l[fl->next];
	fl->next = (fl->next + 1) % FF_LINES;
	if (load)
		sm->proto->l2->functional_read(ff_bank(sm, base), base, e->data, fl->chunk);
	else {
		ff_flush(sm, e, fl->chunk);
		memset(e->mask, 0, sizeof(e->mask));
	}
	e->base = base;
	return e;
}

/* The chunks an op touches, each with its bytes in its L2 line's coordinates: the accesses
 * functional warming makes (gpu_l2_ops.warm), one per chunk. */
struct ff_touch {
	unsigned n;
	struct {
		uint64_t base; /* chunk address */
		uint64_t mask[MEM_LINE_MAX / 64];
	} c[2 * 64];
};

static void ff_touch_add(struct ff_touch *t, uint64_t a, unsigned bytes, unsigned chunk,
			 unsigned line)
{
	while (bytes) {
		uint64_t base = a & ~(uint64_t)(chunk - 1);
		unsigned off = (unsigned)(a & (line - 1)); /* in the L2 line */
		unsigned k =
		    (unsigned)(base + chunk - a) < bytes ? (unsigned)(base + chunk - a) : bytes;
		unsigned i = t->n;

		/* coalesced lanes share the last chunk: look there first */
		if (!t->n || t->c[t->n - 1].base != base)
			for (i = 0; i < t->n && t->c[i].base != base; i++)
				;
		else
			i = t->n - 1;
		if (i == t->n) {
			if (t->n == sizeof(t->c) / sizeof(t->c[0]))
				return; /* cannot happen: 64 lanes, two chunks each at most */
			t->c[t->n].base = base;
			memset(t->c[t->n].mask, 0, sizeof(t->c[t->n].mask));
			t->n++;
		}
		gpu_mask_set_range(t->c[i].mask, off, k);
		a += k;
		bytes -= k;
	}
}

/* Functional warming of an FF op: each chunk it touches is one access of its L2 bank. */
static void ff_warm(struct gpu_sm *sm, const struct warp_op *op, unsigned chunk)
{
	unsigned line = (unsigned)sm->ctx->l2->line_bytes;
	bool writes = op->kind == OP_ST || (op->kind == OP_ATOM && mem_atomic_writes(op->atom_op));
	struct ff_touch t;

	t.n = 0;
	for (uint64_t m = op->mask; m; m &= m - 1)
		ff_touch_add(&t, op->addr[__builtin_ctzll(m)], op->bytes, chunk, line);
	for (unsigned i = 0; i < t.n; i++)
		sm->proto->l2->warm(ff_bank(sm, t.c[i].base), t.c[i].base & ~(uint64_t)(line - 1),
				    t.c[i].mask, writes);
}

/* Values only: every active lane reads, writes or updates memory through its L2 bank's
 * functional access, with the values of lane order (above). With sampling.warm the op's
 * lines first warm their banks (which changes no value). */
void sm_ff_mem(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;
	const struct gpu_l2_ops *l2 = sm->proto->l2;
	unsigned n = op->bytes < 8 ? op->bytes : 8;
	struct ff_lines fl;

	ff_lines_init(&fl, ff_chunk(sm));
	if (sm->ctx->ff_warm && l2->warm)
		ff_warm(sm, op, fl.chunk);
	for (uint64_t m = op->mask; m; m &= m - 1) {
		unsigned lane = (unsigned)__builtin_ctzll(m);
		uint64_t a = op->addr[lane];
		uint64_t base = a & ~(uint64_t)(fl.chunk - 1);
		bool inside = a - base + op->bytes <= fl.chunk;
		uint8_t buf[16] = {0};
		uint64_t v = 0;

		if (op->kind == OP_LD) {
			if (inside)
				v = mem_word_get(ff_line_of(sm, &fl, base, true)->data + (a - base),
						 n);
			else
				l2->functional_read(ff_bank(sm, a), a, &v, n);
			if (op->vals32)
				((uint32_t *)op->out)[lane] = (uint32_t)v;
			else
				((uint64_t *)op->out)[lane] = v;
			continue;
		}
		if (op->kind == OP_ST) {
			if (op->vals32)
				memcpy(buf, (const uint32_t *)op->val + lane, 4);
			else
				memcpy(buf, (const uint64_t *)op->val + lane, n);
			if (inside) {
				struct ff_line *e = ff_line_of(sm, &fl, base, false);
				unsigned off = (unsigned)(a - base);

				memcpy(e->data + off, buf, op->bytes);
				gpu_mask_set_range(e->mask, off, op->bytes);
			} else {
				ff_flush_all(sm, &fl);
				if (l2->functional_write(ff_bank(sm, a), a, buf, op->bytes))
					sm_fail(sm, -CS_ENOMEM, "sm%u: out of memory", sm->id);
			}
		} else {
			struct gpu_l2 *b = ff_bank(sm, a);
			uint64_t old;

			l2->functional_read(b, a, buf, op->bytes);
			old = mem_atomic_apply(buf, op->bytes, op->atom_op, op->a[lane],
					       op->b ? op->b[lane] : 0);
			if (op->want_old)
				((uint64_t *)op->out)[lane] = old;
			if (!mem_atomic_writes(op->atom_op))
				continue;
			if (l2->functional_write(b, a, buf, op->bytes))
				sm_fail(sm, -CS_ENOMEM, "sm%u: out of memory", sm->id);
		}
		if (sm->ctx->chk) {
			memcpy(&v, buf, n);
			cohcheck_write(sm->ctx->chk, a, n, v);
		}
	}
	if (op->kind == OP_ST)
		ff_flush_all(sm, &fl);
}

/* FF: an op takes one core cycle of the warp's time, a fixed step (its edges do not matter:
 * the time only orders the warps; a conversion per op was a fifth of FF's time). */
static sim_time_t ff_step_of(struct gpu_sm *sm)
{
	if (!sm->ff_step)
		sm->ff_step = sm_cycles(sm, 0, 1);
	return sm->ff_step;
}

/* One FF op: counted, a cycle of the warp's time, and its values (memory) or its work
 * (compute); barriers and exits are the caller's. */
static void ff_perform(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;

	(*sm->ff_insts)++;
	w->lt_compute = 0;
	/* a cycle of the warp's time per op; with an FF fill its work (a compute op's issue
	 * cycles count): warps keep the spread over a kernel's phases the detailed face gives
	 * them, which a cycle per op would lose (km's kmeansPoint, 70 loads and one compute op
	 * of thousands of cycles: after an FF fill every warp stood at a load, and the unit after
	 * it ran at a tenth of the kernel's rate). Not always: a spin loop's tries then cost a
	 * few cycles each against the compute of the warp they wait for, and run out of
	 * core.spin_limit */
	w->lt_t += ff_step_of(sm) *
		   (1 + (sm->ctx->ff_work_time && op->kind == OP_COMPUTE ? op->cycles : 0));
	switch (op->kind) {
	case OP_LD:
	case OP_ST:
	case OP_ATOM:
		sm_ff_mem(sm, w);
		op->raw = false;
		break;
	case OP_COMPUTE:
		*sm->ff_compute +=
		    op->cycles;		    /* its work, so that a group's cycles per work apply */
		w->lt_compute = op->cycles; /* owed back if the detailed face takes over */
		op->cycles = 0;
		break;
	default:
		break;
	}
}

static void ff_step(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;

	/* the rest of a compute op another face owed: FF performs (and counts) it, no time */
	*sm->ff_compute += w->at_compute;
	w->at_compute = 0;
	w->lt_held = false;
	ff_perform(sm, w);
	switch (op->kind) {
	case OP_BAR:
		w->state = W_WAIT_BAR;
		if (++w->cta->arrived == w->cta->live)
			cta_release_barrier(sm, w->cta);
		return;
	case OP_EXIT:
		sm->lt_launch_t = w->lt_t;
		warp_exit(w);
		return;
	default:
		break;
	}
	warp_advance(w);
}

/* FF: the warp's posted op performed where it posts it, without a switch back to the run:
 * values only, one cycle of the warp's time each, while that time stays within the run (its
 * quantum). A switch per op, and the ready heap, cost FF about two thirds of its time; the
 * order of FF warps is only the order their values are made in (the time is predicted). */
bool sm_ff_inline(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;

	if (!sm->lt_running || w->at_compute || w->lt_held)
		return false;
	switch (op->kind) {
	case OP_LD:
	case OP_ST:
	case OP_ATOM:
	case OP_COMPUTE:
	case OP_SMEM:
	case OP_FENCE:
		break;
	default:
		return false; /* barriers and exits go through the run */
	}
	if (w->lt_t >= sm->lt_run_end)
		return false;
	ff_perform(sm, w);
	op->kind = OP_NONE;
	return true;
}

/* ---- the run --------------------------------------------------------------------------------- */

static void sm_lt_run(struct sim_kernel *k, void *obj, void *arg);

static void lt_schedule(struct gpu_sm *sm, sim_time_t at)
{
	sim_time_t now = sim_now(sm->ctx->k);

	if (sm->lt_pending || sm->lt_running)
		return;
	sm->lt_pending = true;
	sim_schedule_at(sm->ctx->k, at > now ? at : now, SIM_PRIO_DEFAULT + 1, sm_lt_run, sm, NULL);
}

void sm_lt_kick(struct gpu_sm *sm)
{
	lt_schedule(sm, sim_now(sm->ctx->k));
}

/* ---- the ready heap: the ready warp with the smallest time, lowest slot on ties ---------------- */

static bool lt_before(const struct lt_ready *a, const struct lt_ready *b)
{
	return a->t < b->t || (a->t == b->t && a->slot < b->slot);
}

static void lt_heap_down(struct gpu_sm *sm, unsigned i)
{
	struct lt_ready *h = sm->lt_heap;
	unsigned n = sm->lt_heap_n;

	for (;;) {
		unsigned l = 2 * i + 1, m = i;

		if (l < n && lt_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && lt_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct lt_ready x = h[i];

		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static void lt_heap_insert(struct gpu_sm *sm, struct warp *w)
{
	struct lt_ready *h = sm->lt_heap;
	unsigned i = sm->lt_heap_n++;

	h[i] = (struct lt_ready){.t = w->lt_t, .slot = w->slot, .gen = ++w->lt_gen};
	while (i && lt_before(&h[i], &h[(i - 1) / 2])) {
		struct lt_ready x = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

/* Every ready warp once (the face starts, or the heap is full of stale entries). */
static void lt_heap_rebuild(struct gpu_sm *sm)
{
	sm->lt_heap_n = 0;
	for (unsigned i = 0; i < sm->nwarps; i++)
		if (sm->warps[i].state == W_READY)
			lt_heap_insert(sm, &sm->warps[i]);
}

void sm_lt_ready(struct gpu_sm *sm, struct warp *w)
{
	if (sm->lt_heap_n == 2 * sm->nwarps)
		lt_heap_rebuild(sm); /* also inserts w, which is ready */
	else
		lt_heap_insert(sm, w);
}

/* The ready warp with the smallest time (lowest slot on ties), left in the heap. */
static struct warp *lt_pick(struct gpu_sm *sm)
{
	while (sm->lt_heap_n) {
		const struct lt_ready *e = &sm->lt_heap[0];
		struct warp *w = &sm->warps[e->slot];

		if (w->state == W_READY && w->lt_gen == e->gen && w->lt_t == e->t)
			return w;
		sm->lt_heap[0] = sm->lt_heap[--sm->lt_heap_n];
		lt_heap_down(sm, 0);
	}
	return NULL;
}

/* Takes the top entry (the warp lt_pick returned) out before its warp is performed. */
static void lt_pop(struct gpu_sm *sm)
{
	sm->lt_heap[0] = sm->lt_heap[--sm->lt_heap_n];
	lt_heap_down(sm, 0);
}

static void sm_lt_run(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_sm *sm = obj;
	/* FF's time as its warps' work: four quanta a run, fewer switches between warps (the
	 * FF-only suite took 11.8 s against 14.4 s at one quantum) */
	sim_time_t end =
	    sim_now(k) + (sm->mode == SM_FF && sm->ctx->ff_work_time ? 4 : 1) * sm->lt_quantum;
	struct warp *w;

	(void)arg;
	sm->lt_pending = false;
	if (sm->mode == SM_AT)
		return;
	sm->lt_running = true;
	sm->lt_run_end = end;
	while (sm->mode != SM_AT && !sim_failure(k)) {
		/* in time order: the next warp's op, or the L1's next answer (it may end an op
		 * some warp waits for) */
		sim_time_t tp = sm->mode == SM_LT ? lt_sync(sm, 0) : SIM_TIME_MAX;

		w = lt_pick(sm);
		if (tp < end && (!w || tp <= w->lt_t)) {
			lt_sync(sm, tp);
			continue;
		}
		if (!w || w->lt_t >= end)
			break;
		lt_pop(sm);
		w->lt_gen++; /* no entry of its own until it is ready again */
		if (sm->mode == SM_FF)
			ff_step(sm, w);
		else
			lt_step(sm, w);
	}
	sm->lt_running = false;
	if (sm->mode != SM_AT && !sim_failure(k)) {
		sim_time_t next = sm->mode == SM_LT ? lt_sync(sm, 0) : SIM_TIME_MAX;

		if ((w = lt_pick(sm)) && w->lt_t < next)
			next = w->lt_t;
		if (next != SIM_TIME_MAX)
			lt_schedule(sm, next > end ? next - sm->lt_quantum / 2 : end);
	}
}

/* ---- switching faces ------------------------------------------------------------------------- */

/* Cycles of w's last compute op its scheduler has not served by `now`: the LT face serves an
 * op first come first served, in the cycles just before the warp's time. */
static uint64_t lt_owed(const struct gpu_sm *sm, const struct warp *w, sim_time_t now)
{
	uint64_t left;

	if (w->state != W_READY || !w->lt_compute || w->lt_t <= now)
		return 0;
	left =
	    sim_clock_cycle(&sm->ctx->core_clk, w->lt_t) - sim_clock_cycle(&sm->ctx->core_clk, now);
	return left < w->lt_compute ? left : w->lt_compute;
}

static void at_resume(struct sim_kernel *k, void *obj, void *arg)
{
	struct warp *w = obj;

	(void)k;
	(void)arg;
	if (w->sm->mode == SM_AT && w->state == W_WAIT_TIME) {
		w->state = W_READY;
		sm_wake(w->sm);
	}
}

void gpu_sm_hold(struct gpu_sm *sm, bool hold)
{
	bool was = sm->hold;

	sm->hold = hold;
	if (was && !hold && sm->mode == SM_AT)
		sm_wake(sm); /* a drain ends on the detailed face: issue again */
}

bool gpu_sm_lt_settled(const struct gpu_sm *sm)
{
	return !sm->lt_left;
}

bool gpu_sm_busy(const struct gpu_sm *sm)
{
	if (sm->ldq_n || !sm->proto->l1->idle(sm->l1))
		return true;
	for (unsigned i = 0; i < sm->nwarps; i++) {
		uint8_t st = sm->warps[i].state;

		if (st == W_WAIT_MEM || st == W_WAIT_DRAIN || st == W_WAIT_FENCE ||
		    st == W_WAIT_TIME)
			return true;
	}
	return false;
}

/* Leaving LT for FF or AT: the ops the L1 refused part of are performed whole and the answers
 * in flight are handled (the warps waiting for them go on at their times), so the other face
 * starts from ops not yet begun. */
static void lt_finish(struct gpu_sm *sm)
{
	bool again = true;

	sm->lt_finishing = true;
	while (again && !sim_failure(sm->ctx->k)) {
		again = false;
		lt_sync(sm, SIM_TIME_MAX);
		for (unsigned i = 0; i < sm->nwarps; i++) {
			struct warp *w = &sm->warps[i];

			if (w->state == W_READY && w->lt_resume) {
				w->lt_gen++;
				lt_step(sm, w);
				again = true;
			}
		}
	}
	sm->lt_finishing = false;
}

/* LT to AT: what is in flight stays in flight. The answers due by now are handled; the L1
 * delivers the rest at their times (set_lt), and the warps waiting for them wait in the
 * detailed face. An op the L1 refused part of keeps the rest as its posted op, which the
 * detailed face issues (its pending count already holds the requests in flight). */
static void lt_to_at(struct gpu_sm *sm, sim_time_t now)
{
	lt_sync(sm, now);
	for (unsigned i = 0; i < sm->nwarps; i++) {
		struct warp *w = &sm->warps[i];
		struct warp_op *op = &w->op;

		w->lt_waiting = false;
		if (!w->lt_resume)
			continue;
		w->lt_resume = false;
		w->lt_t = now; /* the detailed face's LD/ST queue takes the rest now */
		if (w->pending)
			w->pending -= op->nreq - w->lt_req;
		op->nreq -= w->lt_req;
		memmove(op->req, op->req + w->lt_req, op->nreq * sizeof(op->req[0]));
		w->lt_req = 0;
	}
}

/* An L1's bytes to memory for FF (gpu_l1_ops.ff_flush), a bank's chunk at a time. */
static void ff_l1_write(void *arg, uint64_t addr, const void *buf, size_t len)
{
	struct gpu_sm *sm = arg;
	unsigned chunk = ff_chunk(sm);

	while (len) {
		size_t n = chunk - (addr & (chunk - 1));

		if (n > len)
			n = len;
		if (sm->proto->l2->functional_write(ff_bank(sm, addr), addr, buf, n))
			sm_fail(sm, -CS_ENOMEM, "sm%u: out of memory", sm->id);
		addr += n;
		buf = (const uint8_t *)buf + n;
		len -= n;
	}
}

/* Into FF: the L1's copies go (FF reads and writes at the L2; a copy left would be stale when
 * the detailed or LT face comes back). */
static void ff_enter(struct gpu_sm *sm)
{
	if (sm->proto->l1->ff_flush)
		sm->proto->l1->ff_flush(sm->l1, ff_l1_write, sm);
}

void gpu_sm_set_mode(struct gpu_sm *sm, unsigned mode)
{
	sim_time_t now = sim_now(sm->ctx->k);

	if (mode == sm->mode)
		return;
	if (sm->mode == SM_AT) {
		/* a memory stall in progress ends here: the detailed face closes it at its next
		 * wake, which would count the whole LT or FF interval as stalled (km's hybrid
		 * stall cycles were 27 times the detailed run's) */
		sm_stall_close(sm, now);
		/* drained: every warp has its op posted, waits at a barrier, or is free */
		for (unsigned i = 0; i < sm->nwarps; i++) {
			sm->warps[i].lt_t = now;
			sm->warps[i].lt_out = now;
			sm->warps[i].lt_compute = 0;
		}
		for (unsigned s = 0; s < sm->nsched; s++)
			sm->lt_sched[s] = now;
		sm->lt_ldst = now;
		sm->lt_launch_t = now;
		sm->proto->l1->set_lt(sm->l1, true);
		if (mode == SM_FF)
			ff_enter(sm);
		sm->mode = (uint8_t)mode;
		sm->hold = false;
		lt_heap_rebuild(sm);
		sm_lt_kick(sm);
		return;
	}
	if (sm->mode == SM_LT && mode == SM_FF) {
		lt_finish(sm);
		ff_enter(sm);
	}
	if (sm->mode == SM_FF)
		for (unsigned i = 0; i < sm->nwarps; i++)
			sm_op_coalesce(sm, &sm->warps[i]);
	if (sm->mode == SM_FF && mode == SM_LT) {
		/* FF's time is no time: every warp goes on now, except that one in a compute op
		 * FF performed (and counted) goes on when FF's time says its op ends, so that the
		 * warps stay spread over the kernel's phases (ended at once, every warp of km's
		 * kmeansPoint stood at its store); the LT face then gives them its timing (the
		 * hybrid's retiming before a unit) */
		for (unsigned i = 0; i < sm->nwarps; i++) {
			struct warp *w = &sm->warps[i];
			uint64_t owed = lt_owed(sm, w, now);

			/* the rest is the LT face's to count, as for an op of its own */
			*sm->ff_compute -= owed;
			w->lt_compute = owed;
			if (!owed)
				w->lt_t = now;
			w->lt_out = now;
		}
		for (unsigned s = 0; s < sm->nsched; s++)
			sm->lt_sched[s] = now;
		sm->lt_ldst = now;
		sm->mode = SM_LT;
		lt_heap_rebuild(sm);
		sm_lt_kick(sm);
		return;
	}
	if (mode != SM_AT) {
		sm->mode = (uint8_t)mode;
		sm_lt_kick(sm);
		return;
	}
	/* back to the detailed face: each warp goes on at its own time, except that compute
	 * the LT face queued first come first served and had not served by now is owed to the
	 * scheduler: the detailed face issues it round robin (else the warps would sleep behind
	 * a reservation while the scheduler idles) */
	if (sm->mode == SM_LT)
		lt_to_at(sm, now);
	for (unsigned i = 0; i < sm->nwarps; i++) {
		struct warp *w = &sm->warps[i];
		uint64_t owed = lt_owed(sm, w, now);

		/* a held op was not performed: the detailed face issues it; FF's time is no
		 * time (a warp ahead by its quantum would idle): the rest of a compute op it
		 * performed is what the warp owes */
		if (owed || (w->state == W_READY && w->lt_held) || sm->mode == SM_FF)
			w->lt_t = now;
		w->lt_held = false;
		if (sm->mode == SM_FF)
			*sm->ff_compute -= owed; /* FF counted the whole op */
		else
			(*sm->st.compute_cycles) += w->lt_compute - owed;
		w->lt_compute = 0;
		w->at_compute += owed;
	}
	sm->proto->l1->set_lt(sm->l1, false);
	sm->mode = SM_AT;
	sm->lt_heap_n = 0;
	sm->hold = false;
	for (unsigned s = 0; s < sm->nsched; s++)
		sm->sched_busy[s] = now;
	for (unsigned i = 0; i < sm->nwarps; i++) {
		struct warp *w = &sm->warps[i];

		if (w->state != W_READY)
			continue;
		if (w->lt_t > now) {
			w->state = W_WAIT_TIME;
			sim_schedule_at(sm->ctx->k, w->lt_t, SIM_PRIO_DEFAULT, at_resume, w, NULL);
		} else {
			sm_wake(w->sm);
		}
	}
}

sim_time_t gpu_sm_lt_time(const struct gpu_sm *sm)
{
	sim_time_t t = 0;

	for (unsigned i = 0; i < sm->nwarps; i++)
		if (sm->warps[i].state != W_FREE)
			t = max_t(t, sm->warps[i].lt_t);
	return t;
}

void gpu_sm_set_quantum(struct gpu_sm *sm, sim_time_t ps)
{
	sm->lt_quantum = ps ? ps : 1;
}

sim_time_t gpu_sm_lt_exit_time(const struct gpu_sm *sm)
{
	return sm->lt_launch_t;
}

uint64_t gpu_sm_work(const struct gpu_sm *sm)
{
	uint64_t w = gpu_sm_issued(sm);

	return w > *sm->spin_work ? w - *sm->spin_work : 0;
}

uint64_t gpu_sm_ff_work(const struct gpu_sm *sm)
{
	return *sm->ff_insts + *sm->ff_compute;
}

uint64_t gpu_sm_issued(const struct gpu_sm *sm)
{
	uint64_t w = *sm->st.insts + *sm->st.compute_cycles + gpu_sm_ff_work(sm);

	/* LT: the part of each compute op in progress its scheduler has served by now (counted
	 * whole only when the warp comes back), so that work grows with time as in AT */
	if (sm->mode == SM_LT) {
		sim_time_t now = sim_now(sm->ctx->k);

		for (unsigned i = 0; i < sm->nwarps; i++) {
			const struct warp *x = &sm->warps[i];

			if (x->state == W_READY && x->lt_compute)
				w += x->lt_compute - lt_owed(sm, x, now);
		}
	}
	return w;
}
