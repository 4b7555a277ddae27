/*
 * tlm/coherence/gpu_l2_base.c - an L2 bank: write-back, write-allocate, atomics at the bank.
 *
 * One bank per address slice (tlm/mem/addrmap.h), in its own clock domain. Requests from the
 * NoC wait in a bounded input queue (END_REQ is withheld when it is full, which backs the NoC
 * up), enter a pipeline one per L2 cycle and reach the tag result `l2.latency` cycles later,
 * in order. A hit answers at once (an atomic `l2.atomic_latency` cycles later); a miss takes an
 * MSHR (later misses to the line merge into it), allocates its line at miss time (GPGPU-Sim's
 * allocate-on-miss: the victim is written back if dirty and the line is reserved until the
 * fill) and asks DRAM; the fill answers the merged requests one per cycle. A write that covers
 * whole sectors allocates without fetching; a partial one fetches first. When an MSHR, a
 * victim or room for the answer is missing, the pipeline stalls until one frees.
 */
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/gpu_l2_base.h"
#include "analytic/ltmodel.h"
#include "tlm/mem/msgq.h"
#include "tlm/mem/mshr.h"

#define L2_VALID    1
#define L2_RESERVED 1 /* cache_line.flags: waiting for its fill (or a held write) */
#define L2_HELD	    1 /* mshr_user(e)[1]: the entry waits for ready_at, not for DRAM */

struct l2_stats {
	uint64_t *accesses, *reads, *writes, *atomics;
	uint64_t *read_hits, *read_misses, *write_hits, *write_misses, *atomic_hits, *atomic_misses;
	uint64_t *mshr_merges, *evictions, *writebacks, *fills, *write_allocs, *wt_drops;
	uint64_t *stall_mshr, *stall_victim, *stall_resp, *stall_dram, *stall_merge;
	uint64_t *dram_reads;
	uint64_t *stall_leased, *held, *held_cycles;
	struct cs_stat_avg *miss_latency;
	/* functional warming (gpu_l2_warm): the FF face's accesses, counted apart */
	uint64_t *warm_hits, *warm_misses, *warm_writebacks, *warm_unplaced;
};

struct gpu_l2 {
	const struct gpu_ctx *ctx;
	unsigned bank;
	unsigned line_bytes, sector_bytes;
	uint8_t all_sectors;
	struct cache *cache;
	struct mshr_table *mshr;
	struct tlm_target_socket noc;
	struct tlm_initiator_socket dram;

	struct msgq in;		 /* accepted, waiting to enter the pipeline */
	struct msgq pipe;	 /* in the pipeline, ready = tag result time */
	struct msgq resp;	 /* answers waiting for the NoC */
	struct msgq dq;		 /* requests waiting for DRAM */
	struct mem_msg *refused; /* BEGIN_REQ taken while the input queue was full */
	sim_time_t next_enter;	 /* the first cycle the next request may enter the pipeline */
	bool resp_open, dram_open;
	bool tick_pending;
	sim_time_t tick_at;
	unsigned dram_out; /* DRAM requests not yet answered */

	struct lt_res lt;	     /* load meter of the bank's pipeline (both faces) */
	const struct l2_policy *pol; /* NULL: no coherence state */
	void *ps;
	const struct mem_msg *blocked; /* the request whose line waits for a lease to end */

	struct l2_stats st;
};

/* ---- scheduling ------------------------------------------------------------------------------ */

static void l2_tick(struct sim_kernel *k, void *obj, void *arg);

static sim_time_t l2_cycles(const struct gpu_l2 *b, sim_time_t t, uint64_t n)
{
	return t + sim_clock_delay(&b->ctx->l2_clk, t, n);
}

/* The base type (gpu_base.h) the bank performs m as: a protocol's own request types map onto
 * them (l2_policy.base_type). */
static unsigned l2_type(const struct gpu_l2 *b, const struct mem_msg *m)
{
	if (m->type < GPU_MSG_BASE_COUNT || !b->pol || !b->pol->base_type)
		return m->type;
	return b->pol->base_type(m->type);
}

/* Run the bank's tick at the first L2 edge at or after t (at most one pending, earliest). */
static void l2_wake_at(struct gpu_l2 *b, sim_time_t t)
{
	sim_time_t now = sim_now(b->ctx->k);
	sim_time_t at = sim_clock_next_edge(&b->ctx->l2_clk, t < now ? now : t);

	if (b->tick_pending && b->tick_at <= at)
		return;
	b->tick_pending = true;
	b->tick_at = at;
	sim_schedule_at(b->ctx->k, at, SIM_PRIO_DEFAULT, l2_tick, b, (void *)(uintptr_t)at);
}

static void l2_wake(struct gpu_l2 *b)
{
	l2_wake_at(b, sim_now(b->ctx->k));
}

/* ---- DRAM side ------------------------------------------------------------------------------- */

static struct mem_msg *l2_dram_msg(struct gpu_l2 *b, uint64_t addr, uint32_t len, bool write,
				   uint32_t txn)
{
	struct tlm_payload *p = tlm_payload_alloc(b->ctx->pool);
	struct mem_msg *m;

	if (!p) {
		sim_fail(b->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory", b->bank);
		return NULL;
	}
	m = mem_msg_of(p);
	p->addr = addr;
	p->len = len;
	p->cmd = write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND;
	m->txn = txn;
	m->dst = (uint16_t)b->bank;
	return m;
}

/* Returns true when it sent something. */
static bool l2_dram_pump(struct gpu_l2 *b)
{
	bool sent = false;

	while (!b->dram_open && b->dq.n) {
		struct mem_msg *m = msgq_head(&b->dq)->m;
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t d = 0;
		enum tlm_sync_enum r;

		b->dram_open = true;
		r = tlm_nb_transport_fw(&b->dram, &m->p, &ph, &d);
		if (r == TLM_UPDATED && ph == TLM_END_REQ)
			b->dram_open = false;
		else if (b->dram_open)
			return sent;
		msgq_pop(&b->dq);
		b->dram_out++;
		sent = true;
	}
	return sent;
}

/* Write back a dirty victim: the whole line, or in a sectored bank each run of dirty sectors
 * (the others may never have been fetched). */
static bool l2_writeback(struct gpu_l2 *b, struct cache_line *v)
{
	unsigned sb = b->sector_bytes ? b->sector_bytes : b->line_bytes;
	unsigned ns = b->line_bytes / sb;

	if (!v->dirty_sectors)
		return true;
	for (unsigned s0 = 0; s0 < ns;) {
		unsigned s1 = s0;
		struct mem_msg *m;

		if (!((v->dirty_sectors >> s0) & 1)) {
			s0++;
			continue;
		}
		while (s1 + 1 < ns && ((v->dirty_sectors >> (s1 + 1)) & 1))
			s1++;
		m = l2_dram_msg(b, v->addr + s0 * sb, (s1 - s0 + 1) * sb, true, GPU_TXN_WRITEBACK);
		if (!m)
			return false;
		memcpy(m->p.data, v->data + s0 * sb, (s1 - s0 + 1) * sb);
		msgq_push(&b->dq, m, 0);
		s0 = s1 + 1;
	}
	(*b->st.writebacks)++;
	v->dirty_sectors = 0;
	return true;
}

/* Sectors with at least one byte of the mask. */
static uint8_t l2_touched(const struct gpu_l2 *b, const uint64_t mask[2])
{
	unsigned sb = b->sector_bytes ? b->sector_bytes : b->line_bytes;
	uint8_t t = 0;

	for (unsigned s = 0; s < b->line_bytes / sb; s++)
		for (unsigned i = s * sb; i < (s + 1) * sb; i++)
			if (gpu_mask_byte(mask, i)) {
				t |= (uint8_t)(1u << s);
				break;
			}
	return b->sector_bytes ? t : (t ? b->all_sectors : 0);
}

/* Sectors a write's byte mask covers whole (the whole line in an unsectored bank). */
static uint8_t l2_full_sectors(const struct gpu_l2 *b, const struct mem_msg *m)
{
	return gpu_mask_full_sectors(m->byte_mask, b->line_bytes,
				     b->sector_bytes ? b->sector_bytes : b->line_bytes);
}

/* A write about to be performed on l makes the sectors it covers whole valid. */
static void l2_mark_written(const struct gpu_l2 *b, struct cache_line *l, const struct mem_msg *m)
{
	if (l2_type(b, m) != GPU_MSG_READ && l2_type(b, m) != GPU_MSG_ATOMIC)
		l->valid_sectors |= l2_full_sectors(b, m);
}

/* ---- the pipeline ---------------------------------------------------------------------------- */

struct l2_victim_ctx {
	struct gpu_l2 *b;
	sim_time_t now, retry;
	bool spare; /* first pass: spare the lines pol->evict_last names */
};

static bool l2_victim_ok(void *ctx, const struct cache_line *l)
{
	struct l2_victim_ctx *v = ctx;

	if (l->flags & L2_RESERVED)
		return false;
	if (v->spare && v->b->pol->evict_last(v->b->ps, l))
		return false;
	return !v->b->pol || !v->b->pol->may_evict ||
	       v->b->pol->may_evict(v->b->ps, l, v->now, &v->retry);
}

static void l2_answer(struct gpu_l2 *b, struct mem_msg *m, sim_time_t ready)
{
	msgq_push(&b->resp, m, ready);
}

static void l2_apply_atomic(struct gpu_l2 *b, struct cache_line *l, struct mem_msg *m)
{
	struct mem_atom_lanes *al = (struct mem_atom_lanes *)m->p.data;

	for (unsigned i = 0; i < al->n; i++) {
		struct mem_atom_lane *ln = &al->lane[i];

		ln->old = mem_atomic_apply(l->data + ln->offset, al->bytes, al->op, ln->a, ln->b);
		if (mem_atomic_writes(al->op))
			l->dirty_sectors |=
			    (uint8_t)(b->sector_bytes ? 1u << (ln->offset / b->sector_bytes)
						      : b->all_sectors);
	}
	m->resp_type = GPU_MSG_ATOMIC_ACK;
	m->resp_bytes = (uint16_t)(al->n * al->bytes);
}

/* The coherence checker sees every word a write or an atomic changed, in the bank's order. */
static void l2_check_writes(struct gpu_l2 *b, const struct cache_line *l, const struct mem_msg *m)
{
	struct cohcheck *chk = b->ctx->chk;

	if (l2_type(b, m) == GPU_MSG_ATOMIC) {
		const struct mem_atom_lanes *al = (const struct mem_atom_lanes *)m->p.data;

		for (unsigned i = 0; mem_atomic_writes(al->op) && i < al->n; i++) {
			uint64_t v = 0;

			memcpy(&v, l->data + al->lane[i].offset, al->bytes);
			cohcheck_write(chk, l->addr + al->lane[i].offset, al->bytes, v);
		}
		return;
	}
	gpu_check_written(chk, l->addr, l->data, m->byte_mask, b->line_bytes);
}

/* The sectors a read asks for, in the bank's sectors: an unsectored L1 asks for the whole line
 * as 0xff, which is the bank's sectors, not eight of them (a 256-byte DRAM read of a 128-byte
 * line overran the message's data, and its answer counted 256 bytes on the wire). */
static uint8_t l2_read_sectors(const struct gpu_l2 *b, const struct mem_msg *m)
{
	return b->sector_bytes ? (uint8_t)(m->sector_mask & b->all_sectors) : b->all_sectors;
}

/* Perform m on line l (present with the sectors it needs): data, state, the answer's fields.
 * Returns when the answer is ready. Both faces. */
static sim_time_t l2_perform(struct gpu_l2 *b, struct cache_line *l, struct mem_msg *m,
			     sim_time_t now)
{
	const struct gpu_l2_cfg *cfg = b->ctx->l2;
	sim_time_t ready = now;

	switch (l2_type(b, m)) {
	case GPU_MSG_READ:
		memcpy(m->p.data, l->data, b->line_bytes);
		m->resp_type = GPU_MSG_DATA;
		m->resp_bytes =
		    (uint16_t)(b->sector_bytes
				   ? __builtin_popcount(l2_read_sectors(b, m)) * b->sector_bytes
				   : b->line_bytes);
		break;
	case GPU_MSG_WRITE:
	case GPU_MSG_WRITEBACK:
		gpu_mask_copy(l->data, m->p.data, m->byte_mask, b->line_bytes);
		l->dirty_sectors |= l2_touched(b, m->byte_mask);
		m->resp_type = GPU_MSG_WRITE_ACK;
		m->resp_bytes = 0;
		break;
	default:
		l2_apply_atomic(b, l, m);
		ready = l2_cycles(b, now, cfg->atomic_latency);
		break;
	}
	if (b->ctx->chk && l2_type(b, m) != GPU_MSG_READ && !(m->txn & GPU_TXN_SB))
		l2_check_writes(b, l, m);
	if (b->pol && b->pol->served)
		b->pol->served(b->ps, l, m, ready);
	cache_touch(b->cache, l);
	m->p.status = TLM_OK_RESPONSE;
	return ready;
}

/* A write-through bank (l2_policy.write_through): what l holds dirty goes to DRAM and the line
 * is dropped, as an eviction's write-back (a later miss reads DRAM behind the write, in the
 * bank's DRAM queue order). Not while requests wait on the line. Both faces. */
static void l2_write_through(struct gpu_l2 *b, struct cache_line *l)
{
	if (!b->pol || !b->pol->write_through || !l->dirty_sectors || (l->flags & L2_RESERVED))
		return;
	if (!l2_writeback(b, l))
		return;
	if (b->pol->keep && b->pol->keep(b->ps, l))
		return; /* written through, and kept clean (a registered line: inclusion) */
	(*b->st.wt_drops)++;
	cache_invalidate(b->cache, l);
}

/* Serve m from line l and queue its answer (AT). */
static void l2_serve(struct gpu_l2 *b, struct cache_line *l, struct mem_msg *m, sim_time_t now)
{
	l2_answer(b, m, l2_perform(b, l, m, now));
}

/* Sectors m needs present before it can be served (0: none, a full-sector write). */
static uint8_t l2_needed(const struct gpu_l2 *b, const struct mem_msg *m)
{
	uint8_t touched;

	if (l2_type(b, m) == GPU_MSG_READ)
		return l2_read_sectors(b, m);
	if (l2_type(b, m) == GPU_MSG_ATOMIC) {
		const struct mem_atom_lanes *al = (const struct mem_atom_lanes *)m->p.data;

		touched = 0;
		for (unsigned i = 0; i < al->n; i++)
			touched |=
			    (uint8_t)(b->sector_bytes ? 1u << (al->lane[i].offset / b->sector_bytes)
						      : b->all_sectors);
		return touched;
	}
	/* a write needs the sectors it touches only partly */
	{
		unsigned sb = b->sector_bytes ? b->sector_bytes : b->line_bytes;
		uint8_t full = gpu_mask_full_sectors(m->byte_mask, b->line_bytes, sb);

		if (!b->sector_bytes)
			return full ? 0 : b->all_sectors;
		return (uint8_t)(l2_touched(b, m->byte_mask) & ~full);
	}
}

static void l2_count(struct gpu_l2 *b, const struct mem_msg *m, bool hit)
{
	switch (l2_type(b, m)) {
	case GPU_MSG_READ:
		(*(hit ? b->st.read_hits : b->st.read_misses))++;
		break;
	case GPU_MSG_ATOMIC:
		(*(hit ? b->st.atomic_hits : b->st.atomic_misses))++;
		break;
	default:
		(*(hit ? b->st.write_hits : b->st.write_misses))++;
		break;
	}
}

static sim_time_t l2_ready(struct gpu_l2 *b, const struct cache_line *l, const struct mem_msg *m,
			   sim_time_t now)
{
	if (!b->pol || !b->pol->ready_at)
		return now;
	return b->pol->ready_at(b->ps, l, m, now);
}

static void l2_hold_over(struct sim_kernel *k, void *obj, void *arg);

/* A request held from `from` until `until` (both faces). */
static void l2_count_hold(struct gpu_l2 *b, sim_time_t until, sim_time_t from)
{
	(*b->st.held)++;
	*b->st.held_cycles +=
	    sim_clock_cycle(&b->ctx->l2_clk, until) - sim_clock_cycle(&b->ctx->l2_clk, from);
}

/* Entry e waits until `until` before its first target may be performed. */
static void l2_hold(struct gpu_l2 *b, struct mshr_entry *e, sim_time_t until, sim_time_t now)
{
	mshr_user(e)[1] |= L2_HELD;
	mshr_user(e)[2] = until;
	l2_count_hold(b, until, now);
	sim_schedule_at(b->ctx->k, until, SIM_PRIO_DEFAULT, l2_hold_over, b,
			(void *)(uintptr_t)mshr_index(b->mshr, e));
}

/* Serve the targets of e from l, one per L2 cycle from t, in order; a target the policy holds
 * back holds the rest behind it. */
static void l2_run_targets(struct gpu_l2 *b, struct mshr_entry *e, struct cache_line *l,
			   sim_time_t t)
{
	while (mshr_targets(e)) {
		struct mem_msg *m = *(struct mem_msg **)mshr_target(e, 0);
		uint8_t need = l2_needed(b, m);
		sim_time_t r;

		t = l2_cycles(b, t, 1);
		if ((l->valid_sectors & need) != need) {
			/* merged for sectors this fill did not bring: run it through again */
			msgq_push(&b->in, m, 0);
			mshr_remove(e, 0);
			continue;
		}
		r = l2_ready(b, l, m, t);
		if (r > t) {
			l2_hold(b, e, r, sim_now(b->ctx->k));
			return;
		}
		l2_mark_written(b, l, m);
		l2_serve(b, l, m, t);
		mshr_remove(e, 0);
	}
	l->flags &= (uint8_t)~L2_RESERVED;
	mshr_free(b->mshr, e);
	l2_write_through(b, l);
}

static void l2_hold_over(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_l2 *b = obj;
	struct mshr_entry *e = mshr_at(b->mshr, (unsigned)(uintptr_t)arg);
	struct cache_line *l;

	if (!e || !(mshr_user(e)[1] & L2_HELD) || mshr_user(e)[2] != sim_now(k))
		return;
	mshr_user(e)[1] &= ~(uint64_t)L2_HELD;
	l = cache_lookup(b->cache, mshr_line(e));
	if (!l) {
		sim_fail(k, -CS_EPROTO, "l2.bank%u: a held line %#llx is gone", b->bank,
			 (unsigned long long)mshr_line(e));
		return;
	}
	l2_run_targets(b, e, l, sim_clock_next_edge(&b->ctx->l2_clk, sim_now(k)));
	l2_wake(b);
}

/* The DRAM read of what line l lacks for a request needing `need`: the sectors needed, or the
 * whole line. Both faces. */
static struct mem_msg *l2_fetch_msg(struct gpu_l2 *b, uint64_t addr, uint8_t need,
				    const struct cache_line *l, uint32_t txn)
{
	uint8_t fetch = b->sector_bytes ? (uint8_t)(need & ~l->valid_sectors) : b->all_sectors;
	unsigned first = fetch ? (unsigned)__builtin_ctz(fetch) : 0;
	unsigned last = fetch ? 31u - (unsigned)__builtin_clz(fetch) : 0;
	unsigned sb = b->sector_bytes ? b->sector_bytes : b->line_bytes;
	struct mem_msg *d;

	if (!b->sector_bytes) {
		first = 0;
		last = 0;
	}
	d = l2_dram_msg(b, (addr & ~(uint64_t)(b->line_bytes - 1)) + first * sb,
			(last - first + 1) * sb, false, txn);
	if (!d)
		return NULL;
	d->sector_mask = fetch;
	(*b->st.dram_reads)++;
	return d;
}

/* A line for addr: a victim is evicted (and written back) and the line installed. NULL when
 * no way may go: *retry is lowered to when time alone frees one (TC's delayed eviction), or
 * stays SIM_TIME_MAX (every way reserved, or out of memory). Both faces. */
/* The way addr's line would take at `now`: lines the policy keeps longest (Rprio: registered
 * ones) go only when no other may. NULL: none may go (vc->retry says until when). */
static struct cache_line *l2_victim(struct gpu_l2 *b, uint64_t addr, struct l2_victim_ctx *vc)
{
	struct cache_line *l = NULL;

	if (b->pol && b->pol->evict_last) {
		vc->spare = true;
		l = cache_victim(b->cache, addr, l2_victim_ok, vc);
		vc->spare = false;
	}
	return l ? l : cache_victim(b->cache, addr, l2_victim_ok, vc);
}

/* Way l (its victim gone) now holds addr, no sector yet: the policy's installed hook runs.
 * Both faces and warming. */
static void l2_install(struct gpu_l2 *b, struct cache_line *l, uint64_t addr)
{
	cache_install(b->cache, l, addr, L2_VALID);
	l->valid_sectors = 0;
	l->dirty_sectors = 0;
	if (b->pol && b->pol->installed)
		b->pol->installed(b->ps, l);
}

static struct cache_line *l2_allocate(struct gpu_l2 *b, const struct mem_msg *m, sim_time_t now,
				      sim_time_t *retry)
{
	struct l2_victim_ctx vc = {.b = b, .now = now, .retry = SIM_TIME_MAX};
	struct cache_line *l = l2_victim(b, m->p.addr, &vc);

	if (!l) {
		if (vc.retry != SIM_TIME_MAX) {
			(*b->st.stall_leased)++;
			/* once per request, however often it tries again */
			if (b->pol->evict_blocked && b->blocked != m)
				b->pol->evict_blocked(b->ps);
			b->blocked = m;
		} else
			(*b->st.stall_victim)++;
		*retry = vc.retry;
		return NULL;
	}
	if (l->state) {
		(*b->st.evictions)++;
		if (b->pol && b->pol->evicted)
			b->pol->evicted(b->ps, l);
		if (!l2_writeback(b, l))
			return NULL;
	}
	if (b->blocked == m)
		b->blocked = NULL;
	l2_install(b, l, m->p.addr);
	return l;
}

/* Handle the message at the head of the pipeline. false: stalled (nothing changed). */
static bool l2_handle(struct gpu_l2 *b, struct mem_msg *m, sim_time_t now)
{
	struct cache_line *l = cache_lookup(b->cache, m->p.addr);
	uint8_t need = l2_needed(b, m);
	struct mshr_entry *e;

	if (b->resp.n >= b->ctx->l2->response_queue) {
		(*b->st.stall_resp)++;
		return false;
	}
	if (b->dq.n + 2 > b->ctx->l2->dram_queue + 1) {
		(*b->st.stall_dram)++;
		return false;
	}
	if (l && !(l->flags & L2_RESERVED) && (l->valid_sectors & need) == need &&
	    l2_ready(b, l, m, now) > now) {
		/* the line's state keeps m back (TC-Strong: unexpired leases): hold it in an MSHR
		 * entry, and later requests to the line behind it */
		if (mshr_full(b->mshr)) {
			(*b->st.stall_mshr)++;
			return false;
		}
		e = mshr_alloc(b->mshr, m->p.addr);
		mshr_merge(b->mshr, e, &m);
		l->flags |= L2_RESERVED;
		l2_count(b, m, true);
		l2_hold(b, e, l2_ready(b, l, m, now), now);
		return true;
	}
	if (l && !(l->flags & L2_RESERVED) && (l->valid_sectors & need) == need) {
		l2_mark_written(b, l, m);
		l2_count(b, m, true);
		l2_serve(b, l, m, now);
		l2_write_through(b, l);
		return true;
	}
	e = mshr_find(b->mshr, m->p.addr);
	if (e) {
		if (!mshr_merge(b->mshr, e, &m)) {
			(*b->st.stall_merge)++;
			return false;
		}
		(*b->st.mshr_merges)++;
		l2_count(b, m, false);
		return true;
	}
	if (mshr_full(b->mshr)) {
		(*b->st.stall_mshr)++;
		return false;
	}
	if (!l) {
		sim_time_t retry = SIM_TIME_MAX;

		l = l2_allocate(b, m, now, &retry);
		if (!l) {
			if (retry != SIM_TIME_MAX)
				l2_wake_at(b, retry);
			return false;
		}
		if (!need) {
			/* a write of whole sectors allocates without a fetch */
			l->valid_sectors = l2_full_sectors(b, m);
			(*b->st.write_allocs)++;
			l2_count(b, m, false);
			l2_serve(b, l, m, now);
			l2_write_through(b, l);
			return true;
		}
	}
	e = mshr_alloc(b->mshr, m->p.addr);
	mshr_merge(b->mshr, e, &m);
	mshr_user(e)[0] = now;
	l->flags |= L2_RESERVED;
	{
		struct mem_msg *d = l2_fetch_msg(b, m->p.addr, need, l, mshr_index(b->mshr, e));

		if (!d)
			return false;
		msgq_push(&b->dq, d, 0);
	}
	l2_count(b, m, false);
	return true;
}

/* The data of fill d (at offset off of the line) into l. Both faces. */
static void l2_fill_line(struct gpu_l2 *b, struct cache_line *l, const struct mem_msg *d,
			 unsigned off)
{
	(*b->st.fills)++;
	for (unsigned i = 0; i < d->p.len; i++) {
		unsigned s = b->sector_bytes ? (off + i) / b->sector_bytes : 0;

		/* bytes this bank already holds dirty (a write allocated early) are newer */
		if (!((l->dirty_sectors >> s) & 1) || !((l->valid_sectors >> s) & 1))
			l->data[off + i] = d->p.data[i];
	}
	l->valid_sectors |= b->sector_bytes ? d->sector_mask : b->all_sectors;
}

/* The fill from DRAM: install, then answer the merged requests, one per L2 cycle. */
static void l2_fill(struct gpu_l2 *b, struct mem_msg *d)
{
	struct mshr_entry *e = mshr_at(b->mshr, d->txn);
	uint64_t line = d->p.addr & ~(uint64_t)(b->line_bytes - 1);
	sim_time_t now = sim_now(b->ctx->k);
	sim_time_t t = sim_clock_next_edge(&b->ctx->l2_clk, now);
	struct cache_line *l;
	unsigned off = (unsigned)(d->p.addr - line);

	if (!e || mshr_line(e) != line || !(l = cache_lookup(b->cache, line))) {
		sim_fail(b->ctx->k, -CS_EPROTO, "l2.bank%u: a fill for %#llx matches no MSHR entry",
			 b->bank, (unsigned long long)line);
		return;
	}
	cs_stat_avg_sample(b->st.miss_latency,
			   (double)(now - mshr_user(e)[0]) / sim_clock_period_ps(&b->ctx->l2_clk));
	l2_fill_line(b, l, d, off);
	l2_run_targets(b, e, l, t);
}

static bool l2_resp_pump(struct gpu_l2 *b, sim_time_t now)
{
	bool sent = false;

	while (!b->resp_open && b->resp.n && msgq_head(&b->resp)->ready <= now) {
		struct mem_msg *m = msgq_head(&b->resp)->m;
		enum tlm_phase ph = TLM_BEGIN_RESP;
		sim_time_t d = 0;
		enum tlm_sync_enum r;

		msgq_pop(&b->resp);
		b->resp_open = true;
		r = tlm_nb_transport_bw(&b->noc, &m->p, &ph, &d);
		if (r == TLM_COMPLETED || (r == TLM_UPDATED && ph == TLM_END_RESP))
			b->resp_open = false;
		sent = true;
	}
	return sent;
}

/* What the input side counts of a request (both faces). */
static void l2_count_in(struct gpu_l2 *b, const struct mem_msg *m)
{
	switch (l2_type(b, m)) {
	case GPU_MSG_READ:
		(*b->st.reads)++;
		break;
	case GPU_MSG_ATOMIC:
		(*b->st.atomics)++;
		break;
	default:
		(*b->st.writes)++;
		break;
	}
	(*b->st.accesses)++;
}

static void l2_accept_refused(struct gpu_l2 *b)
{
	struct mem_msg *m = b->refused;
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t d = 0;

	if (!m || b->in.n >= b->ctx->l2->input_queue)
		return;
	b->refused = NULL;
	msgq_push(&b->in, m, 0);
	l2_count_in(b, m);
	tlm_nb_transport_bw(&b->noc, &m->p, &ph, &d);
}

static void l2_tick(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_l2 *b = obj;
	sim_time_t now = sim_now(k);
	sim_time_t next = SIM_TIME_MAX;
	struct msgq_slot *h;
	bool freed;

	if ((sim_time_t)(uintptr_t)arg != b->tick_at || !b->tick_pending)
		return; /* superseded by an earlier tick */
	b->tick_pending = false;

	/* the head of the pipeline, in order */
	while ((h = msgq_head(&b->pipe)) && h->ready <= now) {
		if (!l2_handle(b, h->m, now))
			break;
		msgq_pop(&b->pipe);
	}
	/* one request enters the pipeline per L2 cycle */
	if (b->in.n && b->next_enter <= now && b->pipe.n < b->ctx->l2->latency + 1) {
		struct mem_msg *m = msgq_head(&b->in)->m;

		msgq_pop(&b->in);
		b->next_enter = l2_cycles(b, now, 1);
		msgq_push(&b->pipe, m, l2_cycles(b, now, b->ctx->l2->latency));
		l2_accept_refused(b);
	}
	freed = l2_resp_pump(b, now);
	freed |= l2_dram_pump(b);

	/* when can something happen next by time alone? */
	if (b->in.n && b->pipe.n < b->ctx->l2->latency + 1)
		next = b->next_enter > now ? b->next_enter : l2_cycles(b, now, 1);
	h = msgq_head(&b->pipe);
	if (h && h->ready > now && h->ready < next)
		next = h->ready;
	/* a stalled head waits for a fill, an END_RESP or an END_REQ, which wake the bank; room
	 * the pumps just made without such a call is tried next cycle */
	if (h && h->ready <= now && freed) {
		sim_time_t c = l2_cycles(b, now, 1);

		if (c < next)
			next = c;
	}
	if (!b->resp_open && b->resp.n) {
		sim_time_t r = msgq_head(&b->resp)->ready;

		if (r > now && r < next)
			next = r;
	}
	if (next != SIM_TIME_MAX)
		l2_wake_at(b, next);
}

/* ---- sockets --------------------------------------------------------------------------------- */

static enum tlm_sync_enum l2_nb_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				   sim_time_t *d)
{
	struct gpu_l2 *b = obj;
	struct mem_msg *m = mem_msg_of(p);

	(void)d;
	if (*ph == TLM_BEGIN_REQ) {
		lt_res_note(&b->lt, sim_now(b->ctx->k), 1.0);
		l2_wake(b);
		if (b->in.n >= b->ctx->l2->input_queue) {
			b->refused = m;
			return TLM_ACCEPTED;
		}
		msgq_push(&b->in, m, 0);
		l2_count_in(b, m);
		*ph = TLM_END_REQ;
		return TLM_UPDATED;
	}
	if (*ph == TLM_END_RESP) {
		b->resp_open = false;
		l2_wake(b);
		return TLM_COMPLETED;
	}
	sim_fail(b->ctx->k, -CS_EPROTO, "l2.bank%u: unexpected phase %s on the NoC side", b->bank,
		 tlm_phase_name(*ph));
	return TLM_COMPLETED;
}

static enum tlm_sync_enum l2_dram_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				     sim_time_t *d)
{
	struct gpu_l2 *b = obj;
	struct mem_msg *m = mem_msg_of(p);

	(void)d;
	if (*ph == TLM_END_REQ) {
		b->dram_open = false;
		msgq_pop(&b->dq);
		b->dram_out++;
		l2_wake(b);
		return TLM_ACCEPTED;
	}
	if (*ph == TLM_BEGIN_RESP) {
		b->dram_out--;
		if (!(m->txn & GPU_TXN_WRITEBACK))
			l2_fill(b, m);
		tlm_payload_release(p);
		l2_wake(b);
		return TLM_COMPLETED;
	}
	sim_fail(b->ctx->k, -CS_EPROTO, "l2.bank%u: unexpected phase %s from DRAM", b->bank,
		 tlm_phase_name(*ph));
	return TLM_COMPLETED;
}

/* ---- the LT face ----------------------------------------------------------------------------- */

/* Send what waits for DRAM at once (write-backs, then the fetch), from time t; returns the
 * time the last answer is back. */
static sim_time_t l2_lt_dram(struct gpu_l2 *b, sim_time_t t)
{
	sim_time_t now = sim_now(b->ctx->k), done = t;

	while (b->dq.n) {
		struct mem_msg *d = msgq_head(&b->dq)->m;
		sim_time_t delay = t - now;

		msgq_pop(&b->dq);
		tlm_b_transport(&b->dram, &d->p, &delay);
		if (now + delay > done)
			done = now + delay;
		if (!(d->txn & GPU_TXN_WRITEBACK)) {
			struct cache_line *l = cache_lookup(b->cache, d->p.addr);

			if (l)
				l2_fill_line(b, l, d,
					     (unsigned)(d->p.addr & (uint64_t)(b->line_bytes - 1)));
		}
		tlm_payload_release(&d->p);
	}
	return done;
}

/* The LT face of a hold: a request ready at r, at the head at t, is performed at (as
 * l2_hold_over runs it) the L2 cycle after r's edge. */
static sim_time_t l2_lt_hold(struct gpu_l2 *b, sim_time_t r, sim_time_t t)
{
	if (r <= t)
		return t;
	l2_count_hold(b, r, t);
	return l2_cycles(b, sim_clock_next_edge(&b->ctx->l2_clk, r), 1);
}

/*
 * The LT face: m is performed at once by the same functions the pipeline uses (allocation and
 * eviction, the policy's hooks, the fetch, the fill, the serve), in the order the pipeline
 * would for a request alone, and *delay grows by the time it would take: the wait for the
 * pipeline (the load meter's M/G/1 wait), the tag latency, a hold the policy asks for, the
 * DRAM round trip, one cycle per fill target, the atomic latency. The answer's fields are in
 * m when it returns. No MSHR is kept: a lone request finds none to merge with.
 */
static void l2_b_transport(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct gpu_l2 *b = obj;
	struct mem_msg *m = mem_msg_of(p);
	const struct gpu_l2_cfg *cfg = b->ctx->l2;
	const struct sim_clock *clk = &b->ctx->l2_clk;
	sim_time_t now = sim_now(b->ctx->k);
	sim_time_t t = now + *delay;
	uint8_t need = l2_needed(b, m);
	struct cache_line *l;
	double wait;

	l2_count_in(b, m);
	lt_res_note(&b->lt, t, 1.0);
	wait = lt_res_wait(&b->lt, b->ctx->lt, LT_RES_L2);
	t = sim_clock_next_edge(clk, t);
	if (wait > 0)
		t = l2_cycles(b, t, (uint64_t)(wait + 0.5));
	t = l2_cycles(b, t, cfg->latency);
	l = cache_lookup(b->cache, m->p.addr);
	if (l && (l->valid_sectors & need) == need) {
		sim_time_t r = l2_ready(b, l, m, t);

		l2_count(b, m, true);
		t = l2_lt_hold(b, r, t);
	} else {
		bool fetched = false;

		if (!l) {
			sim_time_t retry = SIM_TIME_MAX;

			while (!(l = l2_allocate(b, m, t, &retry))) {
				if (retry == SIM_TIME_MAX) {
					sim_fail(b->ctx->k, -CS_EPROTO,
						 "l2.bank%u: no line for %#llx (LT)", b->bank,
						 (unsigned long long)m->p.addr);
					p->status = TLM_GENERIC_ERROR_RESPONSE;
					return;
				}
				t = sim_clock_next_edge(clk, retry);
				retry = SIM_TIME_MAX;
			}
			if (!need) {
				(*b->st.write_allocs)++;
				l->valid_sectors = l2_full_sectors(b, m);
			}
		}
		if ((l->valid_sectors & need) != need) {
			struct mem_msg *d = l2_fetch_msg(b, m->p.addr, need, l, 0);

			if (!d) {
				p->status = TLM_GENERIC_ERROR_RESPONSE;
				return;
			}
			msgq_push(&b->dq, d, 0);
			fetched = true;
		}
		l2_count(b, m, false);
		if (b->dq.n) {
			sim_time_t back = l2_lt_dram(b, t);

			if (fetched) {
				cs_stat_avg_sample(b->st.miss_latency,
						   (double)(back - t) / sim_clock_period_ps(clk));
				t = l2_cycles(b, sim_clock_next_edge(clk, back), 1);
			}
		}
		if (fetched)
			t = l2_lt_hold(b, l2_ready(b, l, m, t), t);
	}
	l2_mark_written(b, l, m);
	t = l2_perform(b, l, m, t);
	if (b->pol && b->pol->write_through && l->dirty_sectors) {
		/* the write-through goes to DRAM behind the answer */
		l2_write_through(b, l);
		if (b->dq.n)
			(void)l2_lt_dram(b, t);
	}
	*delay = t - now;
}

static const struct tlm_fw_ops l2_fw = {.b_transport = l2_b_transport, .nb_transport_fw = l2_nb_fw};
static const struct tlm_bw_ops l2_bw = {.nb_transport_bw = l2_dram_bw};

/* ---- host copies ----------------------------------------------------------------------------- */

void gpu_l2_functional_read(struct gpu_l2 *b, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;

	while (len) {
		uint64_t line = addr & ~(uint64_t)(b->line_bytes - 1);
		size_t off = (size_t)(addr - line);
		size_t n = b->line_bytes - off < len ? b->line_bytes - off : len;
		struct cache_line *l = cache_lookup(b->cache, line);

		if (l && l->valid_sectors) {
			/* the bank's valid sectors, memory's bytes elsewhere: a sector at a time */
			size_t sb = b->sector_bytes ? b->sector_bytes : b->line_bytes, i = 0;

			while (i < n) {
				size_t s = (off + i) / sb, k = (s + 1) * sb - (off + i);

				if (k > n - i)
					k = n - i;
				if ((l->valid_sectors >> s) & 1)
					memcpy(out + i, l->data + off + i, k);
				else
					mem_store_read(b->ctx->store, addr + i, out + i, k);
				i += k;
			}
		} else {
			mem_store_read(b->ctx->store, addr, out, n);
		}
		out += n;
		addr += n;
		len -= n;
	}
}

int gpu_l2_functional_write(struct gpu_l2 *b, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	int rc = mem_store_write(b->ctx->store, addr, buf, len);

	while (!rc && len) {
		uint64_t line = addr & ~(uint64_t)(b->line_bytes - 1);
		size_t off = (size_t)(addr - line);
		size_t n = b->line_bytes - off < len ? b->line_bytes - off : len;
		struct cache_line *l = cache_lookup(b->cache, line);

		if (l)
			memcpy(l->data + off, in, n);
		in += n;
		addr += n;
		len -= n;
	}
	return rc;
}

/* ---- functional warming ---------------------------------------------------------------------- */

/* A dirty victim's sectors go to the backing store (what the write-back would carry). */
static void l2_warm_writeback(struct gpu_l2 *b, struct cache_line *v)
{
	unsigned sb = b->sector_bytes ? b->sector_bytes : b->line_bytes;

	for (unsigned s = 0; s < b->line_bytes / sb; s++)
		if ((v->dirty_sectors >> s) & 1)
			(void)mem_store_write(b->ctx->store, v->addr + s * sb, v->data + s * sb,
					      sb);
	v->dirty_sectors = 0;
	(*b->st.warm_writebacks)++;
}

/*
 * An access of the bytes `mask` of the line at `line` (`writes`: a store, or an atomic that
 * changes memory) leaves the bank's tags, replacement order and valid and dirty
 * sectors as the pipeline would for it alone, with no message and no time: a hit is touched; a
 * miss takes the victim the pipeline would choose (a dirty one's sectors go to the backing
 * store) and reads the sectors it needs from the store; a write leaves its sectors dirty, or in
 * a write-through bank writes them through and drops the line as l2_write_through does. The
 * bytes the bank holds never differ from the functional view (gpu_l2_functional_read), so the
 * values FF reads and writes are those of no warming. Leases do not hold a victim back
 * (warming waits for nothing); a set whose every way is reserved (a fill in flight) is left
 * as it is. The policy's installed and evicted hooks run (G-TSC's mem_ts follows its victims);
 * served does not: the lease and timestamp fields a kernel launch resets are not warmed.
 */
void gpu_l2_warm(struct gpu_l2 *b, uint64_t line, const uint64_t mask[2], bool writes)
{
	uint8_t touched = l2_touched(b, mask);
	unsigned sb = b->sector_bytes ? b->sector_bytes : b->line_bytes;
	struct cache_line *l = cache_lookup(b->cache, line);
	/* a read or an atomic fetches the sectors it touches; a write allocates those it covers
	 * whole and fetches those it covers in part: either way they end valid */
	uint8_t need = touched;

	if (!touched)
		return;
	if (l && (l->flags & L2_RESERVED))
		return;
	if (l && (l->valid_sectors & need) == need) {
		(*b->st.warm_hits)++;
		cache_touch(b->cache, l);
	} else {
		if (!l) {
			struct l2_victim_ctx vc = {
			    .b = b, .now = SIM_TIME_MAX / 2, .retry = SIM_TIME_MAX};

			l = l2_victim(b, line, &vc);
			if (!l) {
				(*b->st.warm_unplaced)++;
				return;
			}
			if (l->state) {
				if (b->pol && b->pol->evicted)
					b->pol->evicted(b->ps, l);
				if (l->dirty_sectors)
					l2_warm_writeback(b, l);
			}
			l2_install(b, l, line);
		} else
			cache_touch(b->cache, l);
		for (unsigned s = 0; s < b->line_bytes / sb; s++)
			if (((need & ~l->valid_sectors) >> s) & 1)
				mem_store_read(b->ctx->store, line + s * sb, l->data + s * sb, sb);
		l->valid_sectors |= need;
		(*b->st.warm_misses)++;
	}
	if (!writes)
		return;
	if (!b->pol || !b->pol->write_through) {
		l->dirty_sectors |= touched;
		return;
	}
	if (!b->pol->keep || !b->pol->keep(b->ps, l))
		cache_invalidate(b->cache, l); /* written through and dropped */
}

bool gpu_l2_idle(const struct gpu_l2 *b)
{
	return !b->in.n && !b->pipe.n && !b->resp.n && !b->dq.n && !b->resp_open && !b->dram_open &&
	       !b->dram_out && !b->refused && !mshr_used(b->mshr);
}

uint64_t gpu_l2_digest(const struct gpu_l2 *b)
{
	return cache_digest(b->cache);
}

/*
 * The bank's energy events (docs/energy.md): every request and fill probes or writes the tags;
 * reads (those answered with data), atomics and write-backs to DRAM read the data array;
 * writes, atomics and fills write it; MSHR entries are taken by read and atomic misses and
 * write misses that fetch (not those allocated whole), and freed by fills. The FF face's
 * warming accesses are not events (FF's energy is scaled from the counted faces').
 */
void gpu_l2_energy(const struct gpu_l2 *b, struct energy_counts *out)
{
	const struct l2_stats *s = &b->st;
	double acc = (double)*s->accesses, fills = (double)*s->fills;
	double atom = (double)*s->atomics;

	energy_add(out, EN_L2_TAG, acc + fills);
	energy_add(out, EN_L2_DATA_READ, (double)*s->reads + atom + (double)*s->writebacks);
	energy_add(out, EN_L2_DATA_WRITE, (double)*s->writes + atom + fills);
	energy_add(out, EN_L2_MSHR,
		   (double)*s->read_misses + (double)*s->write_misses - (double)*s->write_allocs +
		       (double)*s->atomic_misses + fills);
	if (b->pol && b->pol->energy)
		b->pol->energy(b->ps, acc, fills, out);
}

struct tlm_target_socket *gpu_l2_noc_port(struct gpu_l2 *b)
{
	return &b->noc;
}

struct tlm_initiator_socket *gpu_l2_dram_port(struct gpu_l2 *b)
{
	return &b->dram;
}

void gpu_l2_destroy(struct gpu_l2 *b)
{
	if (!b)
		return;
	/* requests belong to their L1s; DRAM requests are ours */
	msgq_release_all(&b->dq);
	cache_destroy(b->cache);
	mshr_destroy(b->mshr);
	free(b->ps);
	msgq_free(&b->in);
	msgq_free(&b->pipe);
	msgq_free(&b->resp);
	msgq_free(&b->dq);
	free(b);
}

static void l2_stats_register(struct gpu_l2 *b, struct cs_stat_group *g)
{
	struct l2_stats *s = &b->st;

	s->accesses = cs_stat_counter(g, "accesses", "", "requests taken from the NoC");
	s->reads = cs_stat_counter(g, "reads", "", "read requests");
	s->writes = cs_stat_counter(g, "writes", "", "write and write-back requests");
	s->atomics = cs_stat_counter(g, "atomics", "", "atomic requests");
	s->read_hits = cs_stat_counter(g, "read_hits", "", "");
	s->read_misses = cs_stat_counter(g, "read_misses", "", "including merged misses");
	s->write_hits = cs_stat_counter(g, "write_hits", "", "");
	s->write_misses = cs_stat_counter(g, "write_misses", "", "");
	s->atomic_hits = cs_stat_counter(g, "atomic_hits", "", "");
	s->atomic_misses = cs_stat_counter(g, "atomic_misses", "", "");
	s->mshr_merges = cs_stat_counter(g, "mshr_merges", "", "misses merged into an MSHR entry");
	s->evictions = cs_stat_counter(g, "evictions", "", "valid lines replaced");
	s->writebacks = cs_stat_counter(g, "writebacks", "", "dirty lines written to DRAM");
	s->fills = cs_stat_counter(g, "fills", "", "fills from DRAM");
	s->write_allocs =
	    cs_stat_counter(g, "write_allocs", "", "write misses allocated without a fetch");
	if (b->pol && b->pol->write_through)
		s->wt_drops =
		    cs_stat_counter(g, "wt_drops", "", "lines written through to DRAM and dropped");
	s->dram_reads = cs_stat_counter(g, "dram_reads", "", "reads sent to DRAM");
	s->stall_mshr =
	    cs_stat_counter(g, "stall.mshr_full", "", "times the pipeline head stalled");
	s->stall_merge =
	    cs_stat_counter(g, "stall.merge_full", "", "times the pipeline head stalled");
	s->stall_victim = cs_stat_counter(g, "stall.no_victim", "",
					  "times the pipeline head stalled: every way reserved");
	s->stall_resp =
	    cs_stat_counter(g, "stall.response_queue", "", "times the pipeline head stalled");
	s->stall_dram =
	    cs_stat_counter(g, "stall.dram_queue", "", "times the pipeline head stalled");
	s->stall_leased = cs_stat_counter(
	    g, "stall.leased_set", "",
	    "times the pipeline head stalled: every way of the set holds an unexpired lease");
	s->held = cs_stat_counter(g, "held", "",
				  "requests held until the line's state allowed them (TC writes)");
	s->held_cycles =
	    cs_stat_counter(g, "held_cycles", "L2 cycles", "cycles those requests were held");
	s->miss_latency = cs_stat_average(g, "miss_latency", "L2 cycles", "miss to fill");
	s->warm_hits = cs_stat_counter(
	    g, "warm.hits", "", "FF's line accesses that found the line (functional warming)");
	s->warm_misses = cs_stat_counter(g, "warm.misses", "",
					 "FF's line accesses that installed the line or sectors");
	s->warm_writebacks = cs_stat_counter(g, "warm.writebacks", "",
					     "dirty victims of warming written to the store");
	s->warm_unplaced = cs_stat_counter(g, "warm.unplaced", "",
					   "FF's line accesses to a set with every way reserved");
}

int gpu_l2_create_policy(const struct l2_policy *pol, const struct gpu_ctx *ctx, unsigned bank,
			 struct cs_stat_group *g, struct gpu_l2 **out, struct cs_err *err)
{
	const struct gpu_l2_cfg *cfg = ctx->l2;
	struct gpu_l2 *b = calloc(1, sizeof(*b));
	struct cache_geom geom;
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!b)
		goto fail;
	b->ctx = ctx;
	b->bank = bank;
	b->pol = pol;
	if (pol && pol->state_size && !(b->ps = calloc(1, pol->state_size)))
		goto fail;
	b->line_bytes = (unsigned)cfg->line_bytes;
	b->sector_bytes = (unsigned)cfg->sector_bytes;
	b->all_sectors = gpu_all_sectors(b->line_bytes, b->sector_bytes);
	geom = (struct cache_geom){
	    .size_bytes = cfg->size_kib * 1024,
	    .assoc = (unsigned)cfg->assoc,
	    .line_bytes = (unsigned)cfg->line_bytes,
	    .sector_bytes = (unsigned)cfg->sector_bytes,
	    .repl = (enum cache_repl)cfg->repl,
	    .index_banks = ctx->map.banks,
	    .index_chunk_shift = ctx->map.interleave_shift,
	};
	rc = cache_create(&geom, &b->cache);
	if (rc) {
		cs_err_set(err, rc,
			   "l2: a %llu KiB %llu-way bank of %llu B lines cannot be built: sizes "
			   "must give a power-of-two number of sets",
			   (unsigned long long)cfg->size_kib, (unsigned long long)cfg->assoc,
			   (unsigned long long)cfg->line_bytes);
		goto fail_quiet;
	}
	rc = mshr_create((unsigned)cfg->mshrs, (unsigned)cfg->mshr_merge, sizeof(struct mem_msg *),
			 &b->mshr);
	if (rc || (rc = msgq_init(&b->in, (unsigned)cfg->input_queue + 1)) ||
	    (rc = msgq_init(&b->pipe, (unsigned)cfg->latency + 2)) ||
	    (rc = msgq_init(&b->resp, (unsigned)cfg->response_queue + 1)) ||
	    (rc = msgq_init(&b->dq, (unsigned)cfg->dram_queue + 1)))
		goto fail;
	tlm_target_init(&b->noc, "l2.noc", &l2_fw, b);
	tlm_initiator_init(&b->dram, "l2.dram", &l2_bw, b);
	l2_stats_register(b, g);
	lt_res_init(&b->lt, sim_clock_period_ps(&ctx->l2_clk), ctx->lt);
	if (pol && pol->init && (rc = pol->init(b->ps, ctx, bank, g, err)))
		goto fail_quiet;
	*out = b;
	return 0;
fail:
	cs_err_set(err, rc, "l2.bank%u: %s", bank, cs_strerror(rc));
fail_quiet:
	gpu_l2_destroy(b);
	return rc;
}

static int l2_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
		     struct gpu_l2 **out, struct cs_err *err)
{
	return gpu_l2_create_policy(NULL, ctx, bank, g, out, err);
}

void gpu_l2_kernel_begin(struct gpu_l2 *b)
{
	if (b->pol && b->pol->kernel_begin)
		b->pol->kernel_begin(b->ps, b->cache);
}

bool gpu_l2_probe(const struct gpu_l2 *b, uint64_t addr, uint64_t out[3])
{
	struct cache_line *l = cache_lookup(b->cache, addr & ~(uint64_t)(b->line_bytes - 1));

	out[2] = b->pol && b->pol->bank_state ? b->pol->bank_state(b->ps) : 0;
	if (!l)
		return false;
	out[0] = l->meta[0];
	out[1] = l->meta[1];
	return true;
}

void *gpu_l2_policy_state(struct gpu_l2 *b)
{
	return b->ps;
}

struct cache *gpu_l2_cache(struct gpu_l2 *b)
{
	return b->cache;
}

const struct gpu_l2_ops gpu_l2_base_ops = {
    GPU_L2_BASE_MEMBERS,
    .create = l2_create,
};
