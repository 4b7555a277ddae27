/*
 * tlm/core/sm.c - the SM: warps as coroutines, schedulers, LD/ST unit, consistency rules.
 * The op API functions (gw_*) live here because they post ops to the warp that calls them.
 */
#include "tlm/core/sm.h"
#include "tlm/core/sm_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "util/config.h"
#include "util/mix.h"

/* ---- parameters ------------------------------------------------------------------------------ */

static const char *const sched_names[] = {"lrr", "gto", "oldest", NULL};
static const char *const cons_names[] = {"sc", "rc", NULL};
static const char *const coal_names[] = {"line", "sector", NULL};

#define CF(f) offsetof(struct gpu_core_cfg, f)
static const struct cs_param core_rows[] = {
    {"clock_mhz", CS_P_UINT, CF(clock_mhz), "700", "MHz",
     "SM issue clock: Fermi's 1.4 GHz shader clock (Table 3.3) over the two cycles a 32-thread "
     "warp instruction takes on 16-lane units, as GPGPU-Sim's GTX480 config (700 MHz)",
     1, 100000, NULL},
    {"warps", CS_P_UINT, CF(warps), "48", "", "warp slots per SM (Table 3.3: 48)", 1, 1024, NULL},
    {"ctas", CS_P_UINT, CF(ctas), "8", "", "CTA slots per SM (GPGPU-Sim GTX480: 8)", 1, 256, NULL},
    {"regs", CS_P_UINT, CF(regs), "32768", "", "registers per SM (Table 2.1: 32768)", 1, 1 << 24,
     NULL},
    {"smem_kib", CS_P_UINT, CF(smem_kib), "48", "KiB", "scratchpad per SM (Table 3.3: 48 KB)", 0,
     1 << 20, NULL},
    {"schedulers", CS_P_UINT, CF(schedulers), "2", "",
     "warp schedulers per SM, each issuing one instruction per cycle (GTX480: 2)", 1, 64, NULL},
    {"scheduler", CS_P_ENUM, CF(scheduler), "lrr", "",
     "warp scheduling: lrr (loose round robin), gto (greedy then oldest) or oldest (the ready "
     "warp launched first, gem5's OLDEST_FIRST)",
     0, 0, sched_names},
    {"consistency", CS_P_ENUM, CF(consistency), "rc", "",
     "memory model: sc (one outstanding memory op per warp) or rc (fences wait)", 0, 0, cons_names},
    {"coalesce", CS_P_ENUM, CF(coalesce), "line", "",
     "coalescing granularity: line (128 B requests, Fermi) or sector (32 B sectors)", 0, 0,
     coal_names},
    {"ldst_queue", CS_P_UINT, CF(ldst_queue), "64", "requests",
     "requests the LD/ST unit holds for the L1 (at least one warp's worth: 32)", 32, 65536, NULL},
    {"smem_latency", CS_P_UINT, CF(smem_latency), "26", "cycles",
     "scratchpad access latency (GPGPU-Sim GTX480 -gpgpu_smem_latency 26)", 1, 10000, NULL},
    {"compute_chunk", CS_P_UINT, CF(compute_chunk), "16", "cycles",
     "a compute op issues in chunks of at most this many cycles, so warps interleave", 1, 1 << 20,
     NULL},
    {"spin_limit", CS_P_UINT, CF(spin_limit), "100000", "iterations",
     "spin iterations after which a flag wait is reported as a livelock", 1, UINT32_MAX, NULL},
    {"stack_kib", CS_P_UINT, CF(stack_kib), "64", "KiB", "stack of each warp's coroutine", 16,
     65536, NULL},
    {"lanes", CS_P_UINT, CF(lanes), "32", "lanes",
     "wavefront width: 32 (an NVIDIA warp) or 64 (an AMD GCN wavefront); kernels written for "
     "either width launch this wide, kernels of 32 lanes run on both",
     32, 64, NULL},
    {NULL},
};

const struct cs_param_table gpu_core_params = {
    .section = "core",
    .help = "the SMs: warps, schedulers, LD/ST unit, memory model",
    .params = core_rows,
    .size = sizeof(struct gpu_core_cfg),
};

int gpu_core_cfg_check(const struct gpu_core_cfg *core, const struct cs_config *cfg,
		       struct cs_err *err)
{
	char where[256];

	if (core->lanes != 32 && core->lanes != 64) {
		cs_config_origin(cfg, "core", "lanes", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must be 32 or 64", where);
	}
	if (core->ldst_queue < core->lanes) {
		cs_config_origin(cfg, "core", "ldst_queue", where, sizeof(where));
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "%s: must hold a wavefront's requests: at least core.lanes (%" PRIu64 ")",
		    where, core->lanes);
	}
	return 0;
}

/* ---- latency statistics (both faces) ---------------------------------------------------------- */

void sm_lat_add(struct gpu_sm *sm, enum sm_lat c, sim_time_t since, sim_time_t now)
{
	const struct sim_clock *clk = &sm->ctx->core_clk;

	(*sm->st.lat[c])++;
	if (now > since)
		*sm->st.lat_cycles[c] += sim_clock_cycle(clk, now) - sim_clock_cycle(clk, since);
}

static enum sm_lat req_lat_class(const struct sm_req *r)
{
	if (r->acc.kind == GPU_ACC_LD)
		return SM_LAT_LOAD;
	if (r->acc.kind == GPU_ACC_ST)
		return SM_LAT_STORE;
	return r->atom.op == MEM_ATOM_LOAD    ? SM_LAT_ATOMIC_LOAD
	       : r->atom.op == MEM_ATOM_STORE ? SM_LAT_ATOMIC_STORE
					      : SM_LAT_ATOMIC_RMW;
}

/* A fence or release atomic begins waiting (the first time only). */
static void sync_begin(struct warp *w)
{
	if (w->sync_on)
		return;
	w->sync_on = true;
	w->sync_t0 = sim_now(w->sm->ctx->k);
}

/* ... and is over: its wait counts in class c. */
static void sync_end(struct warp *w, enum sm_lat c)
{
	if (!w->sync_on)
		return;
	w->sync_on = false;
	sm_lat_add(w->sm, c, w->sync_t0, sim_now(w->sm->ctx->k));
}

/* ---- records --------------------------------------------------------------------------------- */

static struct sm_req *req_alloc(struct gpu_sm *sm, uint32_t *id)
{
	struct sm_req *r;

	if (sm->req_free == REQ_NONE) {
		unsigned n = sm->nreqs ? sm->nreqs * 2 : 64;
		struct sm_req **nr = realloc(sm->reqs, n * sizeof(*nr));

		if (!nr)
			return NULL;
		sm->reqs = nr;
		for (unsigned i = sm->nreqs; i < n; i++) {
			sm->reqs[i] = malloc(sizeof(struct sm_req));
			if (!sm->reqs[i]) {
				sm->nreqs = i;
				return NULL;
			}
			sm->reqs[i]->next_free = i + 1 < n ? i + 1 : REQ_NONE;
		}
		sm->req_free = sm->nreqs;
		sm->nreqs = n;
	}
	*id = sm->req_free;
	r = sm->reqs[*id];
	sm->req_free = r->next_free;
	return r;
}

void req_free(struct gpu_sm *sm, uint32_t id)
{
	if (sm->reqs[id]->lt) {
		sm->reqs[id]->lt = false;
		sm->lt_left--;
	}
	sm->reqs[id]->next_free = sm->req_free;
	sm->req_free = id;
}

/* ---- CTA resources --------------------------------------------------------------------------- */

/* Registers a CTA of k holds (regs_per_thread 0 means 16). */
static uint64_t cta_regs(const struct gpu_kernel *k)
{
	return (uint64_t)(k->regs_per_thread ? k->regs_per_thread : 16) * k->warps_per_cta *
	       gpu_kernel_lanes(k);
}

/* ---- scheduling ------------------------------------------------------------------------------ */

static void sm_tick(struct sim_kernel *k, void *obj, void *arg);
static void ldst_kick(struct gpu_sm *sm);

sim_time_t sm_cycles(const struct gpu_sm *sm, sim_time_t t, uint64_t n)
{
	return t + sim_clock_delay(&sm->ctx->core_clk, t, n);
}

/* The memory stall in progress (no warp ready, some waiting on memory) ends at now: its
 * cycles are counted. */
void sm_stall_close(struct gpu_sm *sm, sim_time_t now)
{
	if (sm->mem_stall_since && now > sm->mem_stall_since)
		*sm->st.mem_stall_cycles +=
		    sim_clock_cycle(&sm->ctx->core_clk, now) -
		    sim_clock_cycle(&sm->ctx->core_clk, sm->mem_stall_since);
	sm->mem_stall_since = 0;
}

void sm_wake(struct gpu_sm *sm)
{
	sim_time_t now = sim_now(sm->ctx->k);

	sim_time_t at;

	if (sm->mode != SM_AT) {
		sm_lt_kick(sm);
		return;
	}
	if (sm->tick_pending)
		return;
	sm_stall_close(sm, now);
	at = sim_clock_next_edge(&sm->ctx->core_clk, now);
	if (at <= sm->tick_done && sm->ticked)
		at = sm_cycles(sm, now, 1); /* this cycle's issue is over */
	sm->tick_pending = true;
	sim_schedule_at(sm->ctx->k, at, SIM_PRIO_DEFAULT + 1, sm_tick, sm, NULL);
}

void sm_fail(struct gpu_sm *sm, int code, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sm->env.fail(sm->env.gpu, code, msg);
}

/* Runs the warp's code until it posts its next op; the warp is then ready to issue it. */
void warp_advance(struct warp *w)
{
	w->op.kind = OP_NONE;
	sim_coro_resume(w->co);
	w->state = W_READY;
	if (w->sm->mode != SM_AT)
		sm_lt_ready(w->sm, w);
	sm_wake(w->sm);
}

static void warp_main(void *arg)
{
	struct warp *w = arg;

	for (;;) {
		w->cta->kernel->fn((struct gpu_warp *)w);
		w->op.kind = OP_EXIT;
		sim_coro_yield(w->co);
	}
}

/* Every earlier access of the warp is performed: continue what waited for that. */
static void warp_drained(struct warp *w);

static void fence_over(struct sim_kernel *k, void *obj, void *arg);

/* The protocol's part of a fence, once the warp's earlier accesses are performed: true when
 * the warp may go on now; otherwise it waits and fence_over() continues it. */
static bool warp_fence(struct warp *w, uint8_t order, uint8_t scope)
{
	struct gpu_sm *sm = w->sm;
	sim_time_t now = sim_now(sm->ctx->k), until;

	if (w->op.fenced || !sm->proto->l1->fence)
		return true;
	until = sm->proto->l1->fence(sm->l1, w->slot, order, scope);
	if (until <= now)
		return true;
	(*sm->st.fence_waits)++;
	if (until == GPU_FENCE_PENDING) {
		/* sm_l1_fence_done() continues it; its wait is not known yet */
		w->state = W_WAIT_FENCE;
		return false;
	}
	*sm->st.fence_wait_cycles +=
	    sim_clock_cycle(&sm->ctx->core_clk, until) - sim_clock_cycle(&sm->ctx->core_clk, now);
	w->state = W_WAIT_FENCE;
	sim_schedule_at(sm->ctx->k, until, SIM_PRIO_DEFAULT, fence_over, w, NULL);
	return false;
}

/* A blocking op is performed: the protocol's fence after it (op_over_fence: under SC what it
 * wrote or read is visible to all, TC-Weak's GWCT; an acquire atomic's acquire), if any. */
static bool access_over(struct warp *w)
{
	uint8_t order, scope;

	if (!op_over_fence(w->sm, &w->op, &order, &scope))
		return true;
	w->op.drained = true; /* fence_over() then continues with the next op */
	w->op.fenced = false; /* a release atomic's fence before it was another */
	return warp_fence(w, order, scope);
}

static void warp_request_done(struct warp *w, bool blocking)
{
	w->outstanding--;
	/* W_WAIT_MEM: always in AT; after a switch from LT in the middle of an op, the requests
	 * the LT face performed may all be back before the rest is issued */
	if (blocking && !--w->pending && w->state == W_WAIT_MEM) {
		if (access_over(w))
			warp_advance(w);
		return;
	}
	if (!w->outstanding && w->state == W_WAIT_DRAIN)
		warp_drained(w);
}

/* ---- the barrier and exit -------------------------------------------------------------------- */

void cta_release_barrier(struct gpu_sm *sm, struct gpu_cta *cta)
{
	unsigned n = 0;

	sim_time_t t = 0;

	cta->arrived = 0;
	for (unsigned i = 0; i < sm->nwarps; i++)
		if (sm->warps[i].cta == cta && sm->warps[i].state == W_WAIT_BAR) {
			sm->bar_slots[n++] = i;
			if (sm->warps[i].lt_t > t)
				t = sm->warps[i].lt_t;
		}
	/* LT, FF: the warps leave at the latest arrival's time */
	for (unsigned i = 0; sm->mode != SM_AT && i < n; i++)
		sm->warps[sm->bar_slots[i]].lt_t = t;
	if (sm->proto->l1->barrier)
		sm->proto->l1->barrier(sm->l1, sm->bar_slots, n);
	for (unsigned i = 0; i < n; i++)
		warp_advance(&sm->warps[sm->bar_slots[i]]);
}

void warp_exit(struct warp *w)
{
	struct gpu_sm *sm = w->sm;
	struct gpu_cta *cta = w->cta;

	w->state = W_FREE;
	w->cta = NULL;
	sm->warps_used--;
	cta->live--;
	if (cta->live && cta->arrived == cta->live) {
		cta_release_barrier(sm, cta);
		return;
	}
	if (!cta->live) {
		const struct gpu_kernel *kn = cta->kernel;

		sm->cta_slots[cta->slot] = NULL;
		sm->cta_used--;
		sm->regs_used -= (unsigned)cta_regs(kn);
		sm->smem_used -= kn->smem_bytes;
		sm->env.cta_done(sm->env.gpu, sm->id, cta);
	}
}

static void warp_drained(struct warp *w)
{
	uint8_t order = w->op.order, scope = w->op.scope;

	if (w->op.kind == OP_BAR) {
		order = MEM_ORDER_ACQ_REL;
		scope = MEM_SCOPE_WG;
	} else if (w->op.kind == OP_ATOM) {
		order = MEM_ORDER_RELEASE; /* its acquire follows it (op_over_fence) */
	}
	if (w->op.kind != OP_EXIT && !(w->op.kind == OP_ATOM && w->sm->proto->release_in_l1) &&
	    !warp_fence(w, order, scope))
		return;
	switch (w->op.kind) {
	case OP_EXIT:
		warp_exit(w);
		break;
	case OP_BAR:
		w->state = W_WAIT_BAR;
		if (++w->cta->arrived == w->cta->live)
			cta_release_barrier(w->sm, w->cta);
		break;
	case OP_FENCE:
		sync_end(w, fence_lat_class(w->op.order));
		warp_advance(w);
		break;
	default:
		/* a release atomic: it may issue now */
		w->op.drained = true;
		w->state = W_READY;
		sm_wake(w->sm);
		break;
	}
}

static void fence_over(struct sim_kernel *k, void *obj, void *arg)
{
	struct warp *w = obj;

	(void)k;
	(void)arg;
	w->op.fenced = true;
	if (w->op.kind == OP_FENCE || w->op.kind == OP_BAR || !w->op.drained)
		warp_drained(w);
	else
		warp_advance(w);
}

/* ---- issue ----------------------------------------------------------------------------------- */

/* A chunk of the compute an LT op still owed is done: the posted op (or the next chunk) may
 * issue. */
static void owed_compute_done(struct sim_kernel *k, void *obj, void *arg)
{
	struct warp *w = obj;

	(void)k;
	(void)arg;
	w->state = W_READY;
	sm_wake(w->sm);
}

static void compute_done(struct sim_kernel *k, void *obj, void *arg)
{
	struct warp *w = obj;

	(void)k;
	(void)arg;
	if (w->op.kind == OP_COMPUTE && w->op.cycles) {
		w->state = W_READY;
		sm_wake(w->sm);
		return;
	}
	warp_advance(w);
}

/* The request record of coalesced request c of w's op (both faces); NULL: out of memory. */
struct sm_req *sm_req_build(struct gpu_sm *sm, struct warp *w, const struct coalesce_req *c,
			    bool blocking)
{
	struct warp_op *op = &w->op;
	uint32_t id;
	struct sm_req *r = req_alloc(sm, &id);

	if (!r) {
		sm_fail(sm, -CS_ENOMEM, "sm%u: out of memory for request records", sm->id);
		return NULL;
	}
	r->w = w;
	r->blocking = blocking;
	r->lt = sm->mode != SM_AT;
	sm->lt_left += r->lt;
	r->sent = sim_now(sm->ctx->k);
	r->lane_mask = c->lane_mask;
	if (sm->env.touch)
		sm->env.touch(sm->env.gpu, c->line_addr);
	r->acc = (struct gpu_access){
	    .sector_mask = c->sector_mask,
	    .scope = op->scope,
	    .order = op->order,
	    .cop = op->kind == OP_ATOM ? MEM_CO_CA : op->cop,
	    .space = op->kind == OP_ATOM ? MEM_SPACE_GLOBAL : op->space,
	    .warp = (uint16_t)w->slot,
	    .id = id,
	    .line_addr = c->line_addr,
	    .byte_mask = {c->byte_mask[0], c->byte_mask[1]},
	};
	if (op->kind == OP_LD) {
		r->acc.kind = GPU_ACC_LD;
		for (uint64_t m = c->lane_mask; m; m &= m - 1) {
			unsigned lane = (unsigned)__builtin_ctzll(m);

			r->lane_off[lane] = (uint8_t)(op->addr[lane] - c->line_addr);
		}
	} else if (op->kind == OP_ST) {
		r->acc.kind = GPU_ACC_ST;
		r->acc.data = r->data;
		for (uint64_t m = c->lane_mask; m; m &= m - 1) {
			unsigned lane = (unsigned)__builtin_ctzll(m);
			unsigned off = (unsigned)(op->addr[lane] - c->line_addr);

			if (op->vals32) {
				memcpy(r->data + off, (const uint32_t *)op->val + lane, 4);
			} else {
				/* 1, 2, 8 bytes: the low bytes of the uint64; 16: the
				 * uint64 then zeros (little endian) */
				memcpy(r->data + off, (const uint64_t *)op->val + lane,
				       op->bytes < 8 ? op->bytes : 8);
				if (op->bytes > 8)
					memset(r->data + off + 8, 0, op->bytes - 8u);
			}
		}
	} else {
		struct mem_atom_lanes *al = &r->atom;

		r->acc.kind = GPU_ACC_ATOM;
		r->acc.data = (uint8_t *)al;
		al->n = 0;
		al->op = op->atom_op;
		al->bytes = op->bytes;
		for (uint64_t m = c->lane_mask; m; m &= m - 1) {
			unsigned lane = (unsigned)__builtin_ctzll(m);
			struct mem_atom_lane *ln = &al->lane[al->n++];

			ln->offset = (uint16_t)(op->addr[lane] - c->line_addr);
			ln->lane = (uint8_t)lane;
			ln->a = op->a[lane];
			ln->b = op->b ? op->b[lane] : 0;
			ln->old = 0;
		}
	}
	return r;
}

static bool issue_mem(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;
	bool sc = sm->cfg->consistency == GPU_SC;
	bool blocking = op_blocking(op, sc);

	if (sm->ldq_n + op->nreq > sm->ldq_cap) {
		(*sm->st.stall_ldst)++;
		return false;
	}
	for (unsigned i = 0; i < op->nreq; i++) {
		struct sm_req *r = sm_req_build(sm, w, &op->req[i], blocking);
		uint32_t id;

		if (!r)
			return false;
		id = r->acc.id;
		sm->ldq[(sm->ldq_head + sm->ldq_n) % sm->ldq_cap] = id;
		sm->ldq_n++;
	}
	(*sm->st.requests) += op->nreq;
	(*sm->st.mem_insts)++;
	w->outstanding += op->nreq;
	if (blocking) {
		w->pending += op->nreq; /* 0 before, but after a switch from LT in the middle of
					  * an op (its first requests are in flight) */
		w->state = W_WAIT_MEM;
	}
	ldst_kick(sm);
	if (!blocking)
		warp_advance(w);
	return true;
}

/* One chunk (core.compute_chunk cycles at most) of the compute *left holds: scheduler s is
 * busy for it, and the warp waits until done() at its end. */
static void issue_chunk(struct gpu_sm *sm, struct warp *w, unsigned s, sim_time_t now,
			uint64_t *left, sim_callback_fn done)
{
	uint64_t c = *left < sm->cfg->compute_chunk ? *left : sm->cfg->compute_chunk;

	*left -= c;
	sm->sched_busy[s] = sm_cycles(sm, now, c);
	(*sm->st.compute_cycles) += c;
	w->state = W_WAIT_TIME;
	sim_schedule_at(sm->ctx->k, sm->sched_busy[s], SIM_PRIO_DEFAULT, done, w, NULL);
}

/* Issues w's op; false when a structural hazard keeps it back this cycle. */
static bool issue(struct gpu_sm *sm, struct warp *w, unsigned s, sim_time_t now)
{
	struct warp_op *op = &w->op;
	bool rc = sm->cfg->consistency == GPU_RC;
	bool release_waited;

	if (w->at_compute) {
		issue_chunk(sm, w, s, now, &w->at_compute, owed_compute_done);
		return true;
	}

	switch (op->kind) {
	case OP_LD:
	case OP_ST:
	case OP_ATOM:
		if (op->kind == OP_ATOM && rc && !op->drained && mem_order_releases(op->order)) {
			sync_begin(w);
			if (w->outstanding) {
				w->state = W_WAIT_DRAIN;
				return true;
			}
			/* nothing to drain: the protocol's release may still hold it (unless the
			 * L1 performs it: hLRC) */
			if (!sm->proto->release_in_l1 &&
			    !warp_fence(w, MEM_ORDER_RELEASE, op->scope))
				return true;
			op->drained = true;
		}
		/* issue_mem may let the warp post its next op: what waited is known before */
		release_waited = op->kind == OP_ATOM && w->sync_on;
		if (!issue_mem(sm, w))
			return false;
		if (release_waited)
			sync_end(w, SM_LAT_RELEASE);
		break;
	case OP_FENCE:
	case OP_BAR:
	case OP_EXIT:
		if (op->kind == OP_FENCE) {
			(*sm->st.fences)++;
			sync_begin(w);
		} else if (op->kind == OP_BAR)
			(*sm->st.barriers)++;
		w->state = W_WAIT_DRAIN;
		/* counted before the drain: a last exit ends the kernel, whose books close then */
		(*sm->st.insts)++;
		if (!w->outstanding)
			warp_drained(w);
		return true;
	case OP_COMPUTE:
		issue_chunk(sm, w, s, now, &op->cycles, compute_done);
		if (op->cycles)
			return true; /* one instruction per op, at its last chunk (as LT counts) */
		break;
	case OP_SMEM:
		w->state = W_WAIT_TIME;
		sim_schedule_at(sm->ctx->k, sm_cycles(sm, now, sm->cfg->smem_latency),
				SIM_PRIO_DEFAULT, compute_done, w, NULL);
		break;
	default:
		sm_fail(sm, -CS_ESTATE, "sm%u: warp %u has no op to issue", sm->id, w->slot);
		return true;
	}
	(*sm->st.insts)++;
	return true;
}

static bool is_mem_op(const struct warp *w)
{
	return !w->at_compute &&
	       (w->op.kind == OP_LD || w->op.kind == OP_ST || w->op.kind == OP_ATOM);
}

/* The ready warp scheduler s issues from next (skip_mem: one whose op is not a memory op). */
static struct warp *pick(struct gpu_sm *sm, unsigned s, bool skip_mem)
{
	unsigned n = sm->nwarps, ns = sm->nsched;
	unsigned m = (n - s + ns - 1) / ns; /* slots s, s + ns, ... */
	struct warp *best = NULL;

	if (sm->cfg->scheduler != GPU_SCHED_LRR) {
		struct warp *last = &sm->warps[sm->sched_last[s]];

		/* GTO: the warp that issued last while it is ready; then, as OLDEST always, the
		 * ready warp launched first (gem5's OFSchedulingPolicy: the lowest wfDynId) */
		if (sm->cfg->scheduler == GPU_SCHED_GTO && last->state == W_READY &&
		    !(skip_mem && is_mem_op(last)))
			return last;
		for (unsigned i = s; i < n; i += ns) {
			struct warp *w = &sm->warps[i];

			if (w->state == W_READY && !(skip_mem && is_mem_op(w)) &&
			    (!best || w->age < best->age))
				best = w;
		}
		return best;
	}
	{
		unsigned p = (sm->sched_last[s] - s) / ns;

		for (unsigned j = 1; j <= m; j++) {
			struct warp *w = &sm->warps[s + ((p + j) % m) * ns];

			if (w->state == W_READY && !(skip_mem && is_mem_op(w)))
				return w;
		}
	}
	return NULL;
}

static bool sm_waits_on_memory(const struct gpu_sm *sm)
{
	for (unsigned i = 0; i < sm->nwarps; i++) {
		uint8_t st = sm->warps[i].state;

		if (st == W_WAIT_MEM || st == W_WAIT_DRAIN || st == W_WAIT_FENCE)
			return true;
	}
	return false;
}

static void sm_tick(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_sm *sm = obj;
	sim_time_t now = sim_now(k);
	bool more = false;

	(void)arg;
	if (sm->hold || sm->mode != SM_AT) {
		/* a switch of faces is draining the detailed one: nothing new issues */
		sm->tick_pending = false;
		return;
	}
	/* tick_pending stays set while issuing: warps made ready now issue next cycle */
	sm->tick_done = now;
	sm->ticked = true;
	for (unsigned s = 0; s < sm->nsched; s++) {
		struct warp *w;

		if (sm->sched_busy[s] > now) {
			more = true;
			continue;
		}
		w = pick(sm, s, false);
		if (!w)
			continue;
		if (!issue(sm, w, s, now)) {
			/* the LD/ST queue is full: a warp with another kind of op may go */
			more = true;
			w = pick(sm, s, true);
			if (!w || !issue(sm, w, s, now))
				continue;
		}
		sm->sched_last[s] = w->slot;
	}
	for (unsigned i = 0; i < sm->nwarps && !more; i++)
		if (sm->warps[i].state == W_READY)
			more = true;
	sm->tick_pending = false;
	if (!more && sm_waits_on_memory(sm))
		sm->mem_stall_since = sm_cycles(sm, now, 1);
	if (more) {
		sm->tick_pending = true;
		sim_schedule_at(k, sm_cycles(sm, now, 1), SIM_PRIO_DEFAULT + 1, sm_tick, sm, NULL);
	}
}

/* ---- the LD/ST unit -------------------------------------------------------------------------- */

static void ldst_tick(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_sm *sm = obj;
	sim_time_t now = sim_now(k);

	(void)arg;
	sm->ldst_pending = false;
	if (sm->ldst_blocked || !sm->ldq_n || now < sm->ldst_next)
		goto resched;
	{
		uint32_t id = sm->ldq[sm->ldq_head];
		struct sm_req *r = sm->reqs[id];

		if (!sm->proto->l1->access(sm->l1, &r->acc)) {
			sm->ldst_blocked = true;
			(*sm->st.stall_l1)++;
			return;
		}
		sm->ldq_head = (sm->ldq_head + 1) % sm->ldq_cap;
		sm->ldq_n--;
		sm->ldst_next = sm_cycles(sm, now, 1);
		/* room in the queue may let a held-back warp issue */
		sm_wake(sm);
	}
resched:
	if (sm->ldq_n && !sm->ldst_blocked && !sm->ldst_pending) {
		sm->ldst_pending = true;
		sim_schedule_at(k, sm->ldst_next > now ? sm->ldst_next : sm_cycles(sm, now, 1),
				SIM_PRIO_DEFAULT, ldst_tick, sm, NULL);
	}
}

static void ldst_kick(struct gpu_sm *sm)
{
	sim_time_t now = sim_now(sm->ctx->k);

	if (sm->ldst_pending || sm->ldst_blocked || !sm->ldq_n)
		return;
	if (now >= sm->ldst_next) {
		ldst_tick(sm->ctx->k, sm, NULL);
		return;
	}
	sm->ldst_pending = true;
	sim_schedule_at(sm->ctx->k, sm->ldst_next, SIM_PRIO_DEFAULT, ldst_tick, sm, NULL);
}

/* A fence the L1 could not finish at once (GPU_FENCE_PENDING) is over: the warp goes on in
 * this delta, as fence_over() would at the time a fence returned. */
static void sm_l1_fence_done(void *obj, unsigned warp)
{
	struct gpu_sm *sm = obj;
	struct warp *w = &sm->warps[warp];

	if (w->lt_fence_pending) {
		/* LT (sm_lt.c ivm_fence): the fence is over at the L1's time */
		w->lt_fence_pending = false;
		if (gpu_now(sm->ctx) > w->lt_fence_t)
			w->lt_fence_t = gpu_now(sm->ctx);
		return;
	}
	sim_schedule(sm->ctx->k, 0, fence_over, w, NULL);
}

static void sm_l1_retry(void *obj)
{
	struct gpu_sm *sm = obj;

	sm->ldst_blocked = false;
	if (!sm->ldst_pending && sm->ldq_n) {
		sim_time_t now = sim_now(sm->ctx->k);
		sim_time_t at = sim_clock_next_edge(&sm->ctx->core_clk, now);

		if (at < sm->ldst_next)
			at = sm->ldst_next;
		sm->ldst_pending = true;
		sim_schedule_at(sm->ctx->k, at, SIM_PRIO_DEFAULT, ldst_tick, sm, NULL);
	}
}

static void sm_l1_done(void *obj, uint32_t id, const uint8_t *line)
{
	struct gpu_sm *sm = obj;
	struct sm_req *r = sm->reqs[id];
	struct warp *w = r->w;
	struct warp_op *op = &w->op;

	/* the LT face answers at its own time (gpu_now), which sm_lt.c stamped r->sent in */
	sm_lat_add(sm, req_lat_class(r), r->sent,
		   sm->mode == SM_AT ? sim_now(sm->ctx->k) : sm->ctx->lt_clock->t);

	if (r->acc.kind == GPU_ACC_LD) {
		for (uint64_t m = r->lane_mask; m; m &= m - 1) {
			unsigned lane = (unsigned)__builtin_ctzll(m);
			unsigned n = op->bytes < 8 ? op->bytes : 8; /* 16: the low 8 */
			uint64_t v = mem_word_get(line + r->lane_off[lane], n);

			if (op->vals32)
				((uint32_t *)op->out)[lane] = (uint32_t)v;
			else
				((uint64_t *)op->out)[lane] = v;
			if (sm->env.observe_read)
				sm->env.observe_read(sm->env.gpu, sm->id, w->slot,
						     r->acc.line_addr + r->lane_off[lane], n, v);
		}
	} else if (r->acc.kind == GPU_ACC_ATOM && r->blocking && op->want_old) {
		/* a blocking request is the instruction the warp waits on: this atomic */
		for (unsigned i = 0; i < r->atom.n; i++)
			((uint64_t *)op->out)[r->atom.lane[i].lane] = r->atom.lane[i].old;
	}
	req_free(sm, id);
	if (!w->outstanding) {
		/* a request outlived its warp: its count would wrap in the slot's next warp, whose
		 * drains would then never end */
		sm_fail(sm, -CS_ESTATE,
			"sm%u: an answer for warp slot %u, which has no request "
			"outstanding",
			sm->id, w->slot);
		return;
	}
	if (sm->mode != SM_AT) {
		/* the LT face times the op itself: it is over at the latest answer */
		w->outstanding--;
		if (r->blocking) {
			if (sm->ctx->lt_clock->t > w->lt_done)
				w->lt_done = sm->ctx->lt_clock->t;
			if (!--w->pending && w->lt_waiting)
				sm_lt_mem_done(sm, w);
		}
		return;
	}
	warp_request_done(w, r->blocking);
}

/* ---- CTAs ------------------------------------------------------------------------------------ */

unsigned gpu_sm_max_ctas(const struct gpu_core_cfg *cfg, const struct gpu_kernel *k)
{
	uint64_t regs = cta_regs(k);
	uint64_t n = cfg->ctas;

	if (!k->warps_per_cta)
		return 0;
	if (cfg->warps / k->warps_per_cta < n)
		n = cfg->warps / k->warps_per_cta;
	if (regs && cfg->regs / regs < n)
		n = cfg->regs / regs;
	if (k->smem_bytes && cfg->smem_kib * 1024 / k->smem_bytes < n)
		n = cfg->smem_kib * 1024 / k->smem_bytes;
	return (unsigned)n;
}

bool gpu_sm_can_take(const struct gpu_sm *sm, const struct gpu_kernel *k)
{
	uint64_t regs = cta_regs(k);

	return sm->cta_used < sm->cfg->ctas && sm->warps_used + k->warps_per_cta <= sm->nwarps &&
	       sm->regs_used + regs <= sm->cfg->regs &&
	       sm->smem_used + k->smem_bytes <= sm->cfg->smem_kib * 1024;
}

int gpu_sm_launch(struct gpu_sm *sm, struct gpu_cta *cta)
{
	const struct gpu_kernel *k = cta->kernel;
	unsigned placed = 0;

	for (unsigned i = 0; i < sm->cfg->ctas; i++)
		if (!sm->cta_slots[i]) {
			cta->slot = i;
			sm->cta_slots[i] = cta;
			break;
		}
	sm->cta_used++;
	sm->warps_used += k->warps_per_cta;
	sm->regs_used += (unsigned)cta_regs(k);
	sm->smem_used += k->smem_bytes;
	cta->live = k->warps_per_cta;
	cta->arrived = 0;
	(*sm->st.ctas)++;
	for (unsigned i = 0; i < sm->nwarps && placed < k->warps_per_cta; i++) {
		struct warp *w = &sm->warps[i];

		if (w->state != W_FREE)
			continue;
		if (!w->co) {
			int rc = sim_coro_create(sm->cfg->stack_kib * 1024, warp_main, w, &w->co);

			if (rc)
				return rc;
		}
		w->cta = cta;
		w->idx = placed++;
		w->outstanding = 0;
		w->pending = 0;
		w->age = sm->next_age++;
		w->lt_t = sim_now(sm->ctx->k);
		if (w->lt_t < sm->lt_launch_t)
			w->lt_t = sm->lt_launch_t;
		w->lt_out = w->lt_t;
		/* independent streams per warp and per launch: hash, not offset, the seed (an
		 * offset seed made warp g's k-th draw warp g+1's (k-1)-th) */
		w->rng = cs_mix64(cs_mix64(sm->env.seed ^ 0x6a09e667f3bcc909ull) ^
				  cs_mix64(gw_gwid((struct gpu_warp *)w) + (sm->launches << 40)));
		(*sm->st.warps)++;
		warp_advance(w);
	}
	return 0;
}

void gpu_sm_kernel_begin(struct gpu_sm *sm)
{
	sm->launches++;
	sm->proto->l1->kernel_begin(sm->l1);
}

void gpu_sm_kernel_end(struct gpu_sm *sm, void (*cb)(void *), void *arg)
{
	if (sm->mode == SM_LT)
		sm->proto->l1->lt_advance(sm->l1, SIM_TIME_MAX); /* nothing is left in flight */
	sm->proto->l1->kernel_end(sm->l1, cb, arg);
}

unsigned gpu_sm_resident_warps(const struct gpu_sm *sm)
{
	return sm->warps_used;
}

bool gpu_sm_idle(const struct gpu_sm *sm)
{
	return !sm->warps_used && !sm->ldq_n && sm->proto->l1->idle(sm->l1);
}

struct gpu_l1 *gpu_sm_l1(struct gpu_sm *sm)
{
	return sm->l1;
}

/* ---- create / destroy ------------------------------------------------------------------------ */

void gpu_sm_destroy(struct gpu_sm *sm)
{
	if (!sm)
		return;
	if (sm->l1)
		sm->proto->l1->destroy(sm->l1);
	for (unsigned i = 0; sm->warps && i < sm->nwarps; i++)
		if (sm->warps[i].co)
			sim_coro_destroy(sm->warps[i].co);
	for (unsigned i = 0; i < sm->nreqs; i++)
		free(sm->reqs[i]);
	free(sm->reqs);
	free(sm->warps);
	free(sm->bar_slots);
	free(sm->sched_busy);
	free(sm->sched_last);
	free(sm->cta_slots);
	free(sm->ldq);
	free(sm->lt_sched);
	free(sm->lt_heap);
	free(sm);
}

/* Every memory instruction, compute slot, fence and barrier takes an issue slot; compute
 * slots are 32 lanes of ALU work; memory instructions go through the LD/ST unit. */
void gpu_sm_energy(const struct gpu_sm *sm, struct energy_counts *out)
{
	const struct sm_stats *s = &sm->st;
	double mem = (double)*s->mem_insts, comp = (double)*s->compute_cycles;

	energy_add(out, EN_CORE_ISSUE, mem + comp + (double)*s->fences + (double)*s->barriers);
	energy_add(out, EN_CORE_COMPUTE, comp);
	energy_add(out, EN_CORE_LDST, mem);
	out->inst[EN_SM] += 1;
}

static void sm_stats_register(struct gpu_sm *sm, struct cs_stat_group *g)
{
	struct sm_stats *s = &sm->st;

	s->insts = cs_stat_counter(g, "insts", "", "warp instructions issued");
	s->mem_insts = cs_stat_counter(g, "mem_insts", "", "warp memory instructions issued");
	s->requests = cs_stat_counter(g, "requests", "", "coalesced requests sent to the L1");
	s->fences = cs_stat_counter(g, "fences", "", "fences issued");
	{
		static const char *const names[SM_LAT_N][3] = {
		    {"lat.load", "lat.load_cycles", "data load requests"},
		    {"lat.store", "lat.store_cycles", "data store requests"},
		    {"lat.atomic_load", "lat.atomic_load_cycles", "atomic load requests"},
		    {"lat.atomic_store", "lat.atomic_store_cycles", "atomic store requests"},
		    {"lat.atomic_rmw", "lat.atomic_rmw_cycles",
		     "atomic read-modify-write requests"},
		    {"lat.acquire", "lat.acquire_cycles", "acquire fences (their wait)"},
		    {"lat.release", "lat.release_cycles",
		     "release fences and release atomics (their wait before issue)"},
		};

		for (unsigned c = 0; c < SM_LAT_N; c++) {
			s->lat[c] = cs_stat_counter(g, names[c][0], "", names[c][2]);
			s->lat_cycles[c] =
			    cs_stat_counter(g, names[c][1], "cycles",
					    "their latencies summed (seed 004 Figs. 7, 8)");
		}
	}
	s->barriers = cs_stat_counter(g, "barriers", "", "CTA barriers issued");
	/* per space, counted where the warp posts them (every face; global ones are the rest) */
	s->space_insts[MEM_SPACE_GLOBAL] = NULL;
	s->space_insts[MEM_SPACE_LOCAL] =
	    cs_stat_counter(g, "local_insts", "", "ld.local / st.local warp instructions posted");
	s->space_insts[MEM_SPACE_CONST] =
	    cs_stat_counter(g, "const_insts", "", "ld.const warp instructions posted");
	s->space_insts[MEM_SPACE_TEX] =
	    cs_stat_counter(g, "tex_insts", "", "texture fetch warp instructions posted");
	s->compute_cycles =
	    cs_stat_counter(g, "compute_cycles", "cycles", "issue slots of compute");
	s->ctas = cs_stat_counter(g, "ctas", "", "CTAs run");
	s->warps = cs_stat_counter(g, "warps", "", "warps run");
	s->stall_ldst =
	    cs_stat_counter(g, "stall.ldst_full", "", "issue attempts refused: LD/ST queue full");
	s->stall_l1 = cs_stat_counter(g, "stall.l1_busy", "", "L1 refused a request");
	s->fence_waits = cs_stat_counter(g, "stall.fence", "",
					 "fences, barriers, release atomics and SC accesses the "
					 "protocol held after their drain");
	s->fence_wait_cycles = cs_stat_counter(g, "stall.fence_cycles", "cycles",
					       "cycles warps waited for the protocol at fences");
	s->mem_stall_cycles =
	    cs_stat_counter(g, "stall.memory_cycles", "cycles",
			    "cycles no warp could issue while some waited for memory or a fence");
	sm->lt_insts = cs_stat_counter(g, "lt_insts", "",
				       "warp instructions performed by the LT face (in insts)");
	sm->spin_work = cs_stat_counter(
	    g, "spin_work", "",
	    "work (warp instructions and compute cycles) of spin loops' repeated tries, every "
	    "face: the sampler's progress measure leaves it out, as a face's timing changes it");
	sm->ff_insts = cs_stat_counter(
	    g, "ff_insts", "", "warp instructions fast-forwarded (values only, not in insts)");
	sm->ff_compute = cs_stat_counter(
	    g, "ff_compute_cycles", "cycles",
	    "issue cycles of the compute ops fast-forwarded (work, as compute_cycles counts it in "
	    "the other faces; no time and no energy)");
}

int gpu_sm_create(const struct gpu_ctx *ctx, const struct gpu_core_cfg *cfg,
		  const struct gpu_protocol *proto, unsigned id, const struct gpu_sm_env *env,
		  struct cs_stat_group *g, struct gpu_sm **out, struct cs_err *err)
{
	struct gpu_sm *sm = calloc(1, sizeof(*sm));
	struct gpu_l1_client cl;
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!sm)
		goto fail;
	sm->ctx = ctx;
	sm->cfg = cfg;
	sm->proto = proto;
	sm->env = *env;
	sm->id = id;
	sm->line_bytes = (unsigned)ctx->l1->line_bytes;
	sm->sector_bytes = cfg->coalesce == GPU_COALESCE_SECTOR ? 32 : 0;
	sm->nwarps = (unsigned)cfg->warps;
	sm->nsched = (unsigned)(cfg->schedulers < cfg->warps ? cfg->schedulers : cfg->warps);
	sm->warps = calloc(sm->nwarps, sizeof(*sm->warps));
	sm->bar_slots = calloc(sm->nwarps, sizeof(*sm->bar_slots));
	sm->sched_busy = calloc(sm->nsched, sizeof(*sm->sched_busy));
	sm->sched_last = calloc(sm->nsched, sizeof(*sm->sched_last));
	sm->lt_sched = calloc(sm->nsched, sizeof(*sm->lt_sched));
	sm->lt_heap = calloc(2 * (size_t)sm->nwarps, sizeof(*sm->lt_heap));
	sm->lt_quantum = 100 * sim_clock_period_ps(&ctx->core_clk);
	sm->cta_slots = calloc(cfg->ctas, sizeof(*sm->cta_slots));
	sm->ldq_cap = (unsigned)cfg->ldst_queue;
	sm->ldq = calloc(sm->ldq_cap, sizeof(*sm->ldq));
	sm->req_free = REQ_NONE;
	if (!sm->warps || !sm->bar_slots || !sm->sched_busy || !sm->sched_last || !sm->cta_slots ||
	    !sm->ldq || !sm->lt_sched || !sm->lt_heap)
		goto fail;
	for (unsigned s = 0; s < sm->nsched; s++)
		sm->sched_last[s] = s;
	for (unsigned i = 0; i < sm->nwarps; i++) {
		sm->warps[i].sm = sm;
		sm->warps[i].slot = i;
	}
	cl.sm = sm;
	cl.done = sm_l1_done;
	cl.retry = sm_l1_retry;
	cl.fence_done = sm_l1_fence_done;
	rc = proto->l1->create(ctx, id, &cl, cs_stat_group(g, "l1"), &sm->l1, err);
	if (rc)
		goto fail_quiet;
	sm_stats_register(sm, g);
	*out = sm;
	return 0;
fail:
	cs_err_set(err, rc, "sm%u: %s", id, cs_strerror(rc));
fail_quiet:
	gpu_sm_destroy(sm);
	return rc;
}

/* ---- the op API: warp side ------------------------------------------------------------------- */

static inline struct warp *W(struct gpu_warp *w)
{
	return (struct warp *)w;
}

static inline const struct warp *CW(const struct gpu_warp *w)
{
	return (const struct warp *)w;
}

unsigned gw_cta(const struct gpu_warp *w)
{
	return CW(w)->cta->id;
}

unsigned gw_ctas(const struct gpu_warp *w)
{
	return CW(w)->cta->kernel->ctas;
}

/* The launch's kernel is the system's normalised copy (gpu_kernel_shape): grid_x, grid_y and
 * block_x are always set. */
unsigned gw_cta_x(const struct gpu_warp *w)
{
	return CW(w)->cta->id % CW(w)->cta->kernel->grid_x;
}

unsigned gw_cta_y(const struct gpu_warp *w)
{
	return CW(w)->cta->id / CW(w)->cta->kernel->grid_x;
}

unsigned gw_grid_x(const struct gpu_warp *w)
{
	return CW(w)->cta->kernel->grid_x;
}

unsigned gw_grid_y(const struct gpu_warp *w)
{
	return CW(w)->cta->kernel->grid_y;
}

unsigned gw_block_x(const struct gpu_warp *w)
{
	return CW(w)->cta->kernel->block_x;
}

static unsigned thread_in_cta(const struct gpu_warp *w, unsigned lane)
{
	return CW(w)->idx * gpu_kernel_lanes(CW(w)->cta->kernel) + lane;
}

unsigned gw_thread_x(const struct gpu_warp *w, unsigned lane)
{
	return thread_in_cta(w, lane) % CW(w)->cta->kernel->block_x;
}

unsigned gw_thread_y(const struct gpu_warp *w, unsigned lane)
{
	return thread_in_cta(w, lane) / CW(w)->cta->kernel->block_x;
}

unsigned gw_warp(const struct gpu_warp *w)
{
	return CW(w)->idx;
}

unsigned gw_warps_per_cta(const struct gpu_warp *w)
{
	return CW(w)->cta->kernel->warps_per_cta;
}

unsigned gw_sm(const struct gpu_warp *w)
{
	return CW(w)->sm->id;
}

uint64_t gw_gwid(const struct gpu_warp *w)
{
	return (uint64_t)CW(w)->cta->id * CW(w)->cta->kernel->warps_per_cta + CW(w)->idx;
}

uint64_t gw_tid(const struct gpu_warp *w, unsigned lane)
{
	return gw_gwid(w) * gpu_kernel_lanes(CW(w)->cta->kernel) + lane;
}

unsigned gw_lanes(const struct gpu_warp *w)
{
	return gpu_kernel_lanes(CW(w)->cta->kernel);
}

const void *gw_args(const struct gpu_warp *w)
{
	return CW(w)->cta->kernel->args;
}

uint64_t gw_cycle(const struct gpu_warp *w)
{
	const struct gpu_sm *sm = CW(w)->sm;
	const struct gpu_ctx *c = sm->ctx;

	if (sm->mode != SM_AT)
		return sim_clock_cycle(&c->core_clk, CW(w)->lt_t);
	return sim_clock_cycle(&c->core_clk, sim_now(c->k));
}

uint64_t gw_rand(struct gpu_warp *gw)
{
	struct warp *w = W(gw);

	return cs_splitmix64(&w->rng);
}

static void record_op(struct warp *w)
{
	const struct warp_op *op = &w->op;
	struct sm_op_view v = {
	    .kind = op->kind, /* OP_LD..OP_SMEM number as enum trace_op_kind does */
	    .bytes = op->bytes,
	    .atom_op = op->atom_op,
	    .scope = op->scope,
	    .order = op->order,
	    .cop = op->cop,
	    .want_old = op->want_old,
	    .vals32 = op->vals32,
	    .mask = op->mask,
	    .cycles = op->cycles,
	    .addr = op->addr,
	    .val = op->val,
	    .a = op->a,
	    .b = op->b,
	};

	w->sm->env.record(w->sm->env.gpu, gw_gwid((struct gpu_warp *)w), &v);
}

/* Posts the op and waits until the SM lets the warp go on. */
static void post(struct warp *w)
{
	w->posted_work += 1 + (w->op.kind == OP_COMPUTE ? w->op.cycles : 0);
	if (w->sm->env.record)
		record_op(w);
	if (w->sm->mode == SM_FF && sm_ff_inline(w->sm, w))
		return;
	sim_coro_yield(w->co);
}

static void post_mem(struct warp *w, uint8_t kind, const uint64_t *addr, uint64_t mask,
		     unsigned bytes)
{
	struct gpu_sm *sm = w->sm;
	struct warp_op *op = &w->op;
	unsigned lanes = gpu_kernel_lanes(w->cta->kernel);

	if (lanes < 64 && (mask >> lanes)) {
		sm_fail(sm, -CS_EINVAL,
			"sm%u: warp %llu: lane mask %#llx has lanes beyond the kernel's %u", sm->id,
			(unsigned long long)gw_gwid((struct gpu_warp *)w), (unsigned long long)mask,
			lanes);
		mask = 0;
	}
	op->kind = kind;
	op->mask = mask;
	op->bytes = (uint8_t)bytes;
	op->addr = addr;
	op->drained = false;
	op->fenced = false;
	if (sm->mode == SM_FF) {
		/* values only: the lanes go to memory a line at a time (sm_lt.c) */
		op->nreq = mask != 0;
		op->raw = mask != 0;
		if (!mask) {
			op->kind = OP_COMPUTE;
			op->cycles = 1;
		}
		post(w);
		return;
	}
	op->raw = true;
	sm_op_coalesce(sm, w);
	post(w);
}

void sm_op_coalesce(struct gpu_sm *sm, struct warp *w)
{
	struct warp_op *op = &w->op;
	unsigned bad = 0;
	int n;

	if (!op->raw || (op->kind != OP_LD && op->kind != OP_ST && op->kind != OP_ATOM))
		return;
	op->raw = false;
	n = coalesce(op->addr, op->mask, op->bytes, sm->line_bytes, sm->sector_bytes, op->req,
		     &bad);
	if (n < 0) {
		sm_fail(sm, -CS_EINVAL,
			"sm%u: warp %llu lane %u: address %#llx is not aligned to %u bytes", sm->id,
			(unsigned long long)gw_gwid((struct gpu_warp *)w), bad,
			(unsigned long long)(bad < WARP_LANES_MAX ? op->addr[bad] : 0), op->bytes);
		n = 0;
	}
	op->nreq = (unsigned)n;
	if (!n) {
		op->kind = OP_COMPUTE; /* no active lane: one issue slot */
		op->cycles = 1;
	}
}

/* vals32: out is uint32_t per lane (the 32-bit forms), else uint64_t */
static void ld_space(struct gpu_warp *gw, const uint64_t *addr, uint64_t mask, void *out,
		     unsigned bytes, bool vals32, enum mem_cache_op cop, enum mem_space space)
{
	struct warp *w = W(gw);

	w->op.out = out;
	w->op.vals32 = vals32;
	w->op.cop = (uint8_t)cop;
	w->op.space = (uint8_t)space;
	post_mem(w, OP_LD, addr, mask, bytes);
}

static void ld_v(struct gpu_warp *gw, const uint64_t *addr, uint64_t mask, void *out,
		 unsigned bytes, bool vals32, enum mem_cache_op cop)
{
	ld_space(gw, addr, mask, out, bytes, vals32, cop, MEM_SPACE_GLOBAL);
}

uint32_t gw_ld32(struct gpu_warp *gw, uint64_t addr)
{
	struct warp *w = W(gw);
	uint32_t v[1];

	w->u_addr[0] = addr;
	ld_v(gw, w->u_addr, 1, v, 4, true, MEM_CO_CA);
	return v[0];
}

uint64_t gw_ld64(struct gpu_warp *gw, uint64_t addr)
{
	struct warp *w = W(gw);

	w->u_addr[0] = addr;
	ld_v(gw, w->u_addr, 1, w->u_out, 8, false, MEM_CO_CA);
	return w->u_out[0];
}

uint64_t gw_ld_co(struct gpu_warp *gw, uint64_t addr, unsigned bytes, enum mem_cache_op cop)
{
	struct warp *w = W(gw);

	w->u_addr[0] = addr;
	w->u_out[0] = 0;
	ld_v(gw, w->u_addr, 1, w->u_out, bytes, false, cop);
	return w->u_out[0];
}

void gw_ld32v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, uint32_t *out)
{
	ld_v(w, addr, mask, out, 4, true, MEM_CO_CA);
}

void gw_ld64v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, uint64_t *out)
{
	ld_v(w, addr, mask, out, 8, false, MEM_CO_CA);
}

static void st_space(struct gpu_warp *gw, const uint64_t *addr, uint64_t mask, const void *val,
		     unsigned bytes, bool vals32, enum mem_cache_op cop, enum mem_space space)
{
	struct warp *w = W(gw);

	w->op.val = val;
	w->op.vals32 = vals32;
	w->op.order = MEM_ORDER_RELAXED;
	w->op.scope = MEM_SCOPE_DEVICE;
	w->op.cop = (uint8_t)cop;
	w->op.space = (uint8_t)space;
	post_mem(w, OP_ST, addr, mask, bytes);
}

static void st_v(struct gpu_warp *gw, const uint64_t *addr, uint64_t mask, const void *val,
		 unsigned bytes, bool vals32, enum mem_cache_op cop)
{
	st_space(gw, addr, mask, val, bytes, vals32, cop, MEM_SPACE_GLOBAL);
}

void gw_st32(struct gpu_warp *gw, uint64_t addr, uint32_t v)
{
	struct warp *w = W(gw);
	uint32_t val[1] = {v};

	w->u_addr[0] = addr;
	st_v(gw, w->u_addr, 1, val, 4, true, MEM_CO_CA);
}

void gw_st64(struct gpu_warp *gw, uint64_t addr, uint64_t v)
{
	struct warp *w = W(gw);

	w->u_addr[0] = addr;
	w->u_val[0] = v;
	st_v(gw, w->u_addr, 1, w->u_val, 8, false, MEM_CO_CA);
}

void gw_st_co(struct gpu_warp *gw, uint64_t addr, unsigned bytes, uint64_t v, enum mem_cache_op cop)
{
	struct warp *w = W(gw);

	w->u_addr[0] = addr;
	w->u_val[0] = v;
	st_v(gw, w->u_addr, 1, w->u_val, bytes, false, cop);
}

void gw_ldv(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes, uint64_t *out)
{
	ld_v(w, addr, mask, out, bytes, false, MEM_CO_CA);
}

void gw_stv(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
	    const uint64_t *v)
{
	st_v(w, addr, mask, v, bytes, false, MEM_CO_CA);
}

void gw_ldv_co(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
	       uint64_t *out, enum mem_cache_op cop)
{
	ld_v(w, addr, mask, out, bytes, false, cop);
}

void gw_stv_co(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
	       const uint64_t *v, enum mem_cache_op cop)
{
	st_v(w, addr, mask, v, bytes, false, cop);
}

/* Lane l's address of word[l] of its thread's local array (gw_ld_localv's layout); false after
 * failing the run for an index beyond gpu_kernel.local_bytes. */
static bool local_addrs(struct warp *w, const uint32_t *word, uint64_t mask, uint64_t *addr)
{
	const struct gpu_kernel *k = w->cta->kernel;
	uint64_t threads = (uint64_t)k->ctas * k->warps_per_cta * gpu_kernel_lanes(k);

	for (uint64_t m = mask; m; m &= m - 1) {
		unsigned lane = (unsigned)__builtin_ctzll(m);

		if ((uint64_t)word[lane] * 4 >= k->local_bytes) {
			sm_fail(w->sm, -CS_EINVAL,
				"sm%u: warp %llu lane %u: local word %u beyond the kernel's "
				"local_bytes %u",
				w->sm->id, (unsigned long long)gw_gwid((struct gpu_warp *)w), lane,
				word[lane], k->local_bytes);
			return false;
		}
		addr[lane] =
		    k->local_base + (word[lane] * threads + gw_tid((struct gpu_warp *)w, lane)) * 4;
	}
	return true;
}

void gw_ld_localv(struct gpu_warp *gw, const uint32_t *word, uint64_t mask, uint32_t *out)
{
	struct warp *w = W(gw);
	uint64_t addr[WARP_LANES_MAX];

	(*w->sm->st.space_insts[MEM_SPACE_LOCAL])++;
	if (!local_addrs(w, word, mask, addr))
		mask = 0;
	ld_space(gw, addr, mask, out, 4, true, MEM_CO_CA, MEM_SPACE_LOCAL);
}

void gw_st_localv(struct gpu_warp *gw, const uint32_t *word, uint64_t mask, const uint32_t *v)
{
	struct warp *w = W(gw);
	uint64_t addr[WARP_LANES_MAX];

	(*w->sm->st.space_insts[MEM_SPACE_LOCAL])++;
	if (!local_addrs(w, word, mask, addr))
		mask = 0;
	st_space(gw, addr, mask, v, 4, true, MEM_CO_CA, MEM_SPACE_LOCAL);
}

void gw_ld_constv(struct gpu_warp *gw, const uint64_t *addr, uint64_t mask, unsigned bytes,
		  uint64_t *out)
{
	(*W(gw)->sm->st.space_insts[MEM_SPACE_CONST])++;
	ld_space(gw, addr, mask, out, bytes, false, MEM_CO_CA, MEM_SPACE_CONST);
}

uint32_t gw_ld_const32(struct gpu_warp *gw, uint64_t addr)
{
	struct warp *w = W(gw);
	uint32_t v[1];

	(*w->sm->st.space_insts[MEM_SPACE_CONST])++;
	w->u_addr[0] = addr;
	ld_space(gw, w->u_addr, 1, v, 4, true, MEM_CO_CA, MEM_SPACE_CONST);
	return v[0];
}

void gw_ld_texv(struct gpu_warp *gw, const uint64_t *addr, uint64_t mask, unsigned bytes,
		uint64_t *out)
{
	(*W(gw)->sm->st.space_insts[MEM_SPACE_TEX])++;
	ld_space(gw, addr, mask, out, bytes, false, MEM_CO_CA, MEM_SPACE_TEX);
}

void gw_st32v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, const uint32_t *v)
{
	st_v(w, addr, mask, v, 4, true, MEM_CO_CA);
}

void gw_st64v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, const uint64_t *v)
{
	st_v(w, addr, mask, v, 8, false, MEM_CO_CA);
}

void gw_atomv(struct gpu_warp *gw, enum mem_atomic_op aop, const uint64_t *addr, uint64_t mask,
	      unsigned bytes, const uint64_t *a, const uint64_t *b, uint64_t *old,
	      enum mem_scope scope, enum mem_order order)
{
	struct warp *w = W(gw);

	w->op.atom_op = (uint8_t)aop;
	w->op.a = a;
	w->op.b = b;
	w->op.out = old;
	w->op.want_old = old != NULL;
	w->op.scope = (uint8_t)scope;
	w->op.order = (uint8_t)order;
	w->op.cop = MEM_CO_CA;
	post_mem(w, OP_ATOM, addr, mask, bytes);
}

uint64_t gw_atom(struct gpu_warp *gw, enum mem_atomic_op aop, uint64_t addr, unsigned bytes,
		 uint64_t a, uint64_t b, enum mem_scope scope, enum mem_order order)
{
	struct warp *w = W(gw);
	w->u_addr[0] = addr;
	w->u_val[0] = a;
	w->u_b[0] = b;
	gw_atomv(gw, aop, w->u_addr, 1, bytes, w->u_val, w->u_b, w->u_out, scope, order);
	return w->u_out[0];
}

uint64_t gw_atom_load(struct gpu_warp *w, uint64_t addr, unsigned bytes, enum mem_scope scope,
		      enum mem_order order)
{
	return gw_atom(w, MEM_ATOM_LOAD, addr, bytes, 0, 0, scope, order);
}

void gw_atom_store(struct gpu_warp *gw, uint64_t addr, unsigned bytes, uint64_t v,
		   enum mem_scope scope, enum mem_order order)
{
	struct warp *w = W(gw);

	w->u_addr[0] = addr;
	w->u_val[0] = v;
	gw_atomv(gw, MEM_ATOM_STORE, w->u_addr, 1, bytes, w->u_val, NULL, NULL, scope, order);
}

void gw_fence(struct gpu_warp *gw, enum mem_order order, enum mem_scope scope)
{
	struct warp *w = W(gw);

	w->op.kind = OP_FENCE;
	w->op.order = (uint8_t)order;
	w->op.scope = (uint8_t)scope;
	w->op.drained = false;
	w->op.fenced = false; /* the fence after the op before this one was another */
	post(w);
}

void gw_barrier(struct gpu_warp *gw)
{
	struct warp *w = W(gw);

	w->op.kind = OP_BAR;
	w->op.drained = false;
	w->op.fenced = false;
	post(w);
}

void gw_compute(struct gpu_warp *gw, uint64_t cycles)
{
	struct warp *w = W(gw);

	if (!cycles)
		return;
	w->op.kind = OP_COMPUTE;
	w->op.cycles = cycles;
	post(w);
}

void *gw_smem(struct gpu_warp *gw)
{
	return W(gw)->cta->smem;
}

void gw_smem_access(struct gpu_warp *gw)
{
	struct warp *w = W(gw);

	w->op.kind = OP_SMEM;
	post(w);
}

/* A spin loop calls this after each try that found nothing: the work since its last call is
 * one such try, the loop's spinning, which the sampler's progress measure leaves out
 * (gpu_sm_work). The first failed try is known only as the work before the first call, and
 * stays progress. */
bool gw_spin_guard(struct gpu_warp *gw, uint64_t *count)
{
	struct warp *w = W(gw);

	if (w->sm->env.record) {
		struct sm_op_view v = {.kind = OP_NONE, .spin_first = *count == 0};

		w->sm->env.record(w->sm->env.gpu, gw_gwid(gw), &v);
	}
	if (*count)
		*w->sm->spin_work += w->posted_work - w->spin_mark;
	w->spin_mark = w->posted_work;
	return ++*count > w->sm->cfg->spin_limit;
}

void gw_fail(struct gpu_warp *gw, const char *fmt, ...)
{
	struct warp *w = W(gw);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->sm->env.fail(w->sm->env.gpu, -CS_ECHECK, msg);
}
