/*
 * tlm/coherence/apu/tcp.c - VIPER's TCP, the per-CU L1 (docs/apu.md §3.2, §5), as a
 * struct gpu_l1_ops on the generic network.
 *
 * Lines are V or I (the cache holds V lines only); the transients are MSHR entries: IV (a
 * TcpRd outstanding; later loads of the line merge into it) and A (a TcpAtomic outstanding).
 * Every other access to a line with an entry is parked in the entry and replayed, in order,
 * when the entry is freed: a store that overtook a read in flight would be missing from the
 * fill (the TCC answers the read with the line as it was before the store).
 *
 * Write-through (default): a store sends TcpWT and drops the TCP's copy (write-evict; a store
 * miss allocates nothing); it is performed at its TccWBAck, so the SM's release, which waits
 * for every earlier access of the warp to be performed, waits for every write-through ack.
 * WB_L1 (tcp.write = back): a store writes its bytes into the line (allocating without a
 * fetch) and is done after the hit latency; a load whose bytes are not all valid misses and
 * the fill is merged under the dirty mask; dirty lines are flushed (TcpFlush) when replaced, at
 * a release (the fence waits for their TccWBAcks) and at the kernel's end.
 *
 * Timing (GPU cycles): an access enters the TCP's state machine at once but its messages leave
 * req_pipe + issue cycles later, a hit is answered req_pipe + latency + resp_pipe cycles later
 * and an answer from the TCC resp_pipe cycles after it arrives (the CU <-> TCP pipeline of
 * gem5's apu_se, docs/apu.md §6.4).
 */
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/coherence/gpu_base.h"
#include "tlm/mem/cache.h"
#include "tlm/mem/mshr.h"

#define TCP_V 1

enum { E_IV = 1, E_A };			 /* mshr_user[0] */
enum { T_LOAD = 0, T_PARKED, T_ATOMIC }; /* what a target is */

#define TXN_BYPASS 0x80000000u /* TcpRd answered straight to the SM: txn = id | TXN_BYPASS */
#define TXN_FLUSH  0x40000000u /* TcpFlush: its ack counts for the flush in progress */

struct tcp_target {
	uint8_t what;
	struct gpu_access a;
	uint8_t data[MEM_LINE_MAX]; /* a parked store's bytes */
};

struct tcp_ans {
	sim_time_t due;
	uint64_t seq;
	uint32_t id;
	bool load;
	uint8_t data[64];
};

struct tcp_stats {
	uint64_t *accesses, *loads, *stores, *atomics, *load_hits, *load_misses, *merges;
	uint64_t *bypass_loads, *parked, *store_evicts, *acquire_invalidations, *flushes;
	uint64_t *refused;
	struct cs_stat_avg *miss_latency;
};

struct gpu_l1 {
	const struct gpu_ctx *ctx;
	const struct apu_gpu_cfg *cfg;
	unsigned cu;
	uint16_t node;
	bool wb;
	struct apu_port *port;
	struct cache *cache;
	struct mshr_table *mshr;
	char name[32];

	struct tcp_ans *ans; /* heap by (due, seq) */
	unsigned ans_n, ans_cap;
	uint64_t ans_seq;
	bool ans_timer;
	sim_time_t ans_at;

	unsigned acks_owed;  /* TcpWT and TcpFlush without their TccWBAck */
	unsigned flush_owed; /* TcpFlush of the flush in progress */
	void (*flush_cb)(void *arg);
	void *flush_arg;
	struct gpu_l1_client cl;
	bool want_retry;
	unsigned *fence_waiters; /* warps whose release waits for the TCP's flush */
	bool *fence_sys;	 /* ... and then for the TCC's (WB_L2, system scope) */
	unsigned n_fence_waiters;
	/* WB_L2: releases waiting for the TCC slices' Flush acks, one per warp slot and one for
	 * the kernel's end (slot ctx->warps) */
	struct tcp_rel {
		struct gpu_l1 *t;
		unsigned slot, left;
	} * rel;
	bool kend_tcc; /* the kernel's end waits for the TCC */
	bool replaying;
	bool lt; /* the LT face (set_lt) */

	struct tcp_stats st;
};

static bool tcp_access(struct gpu_l1 *t, const struct gpu_access *a);

static sim_time_t cyc(const struct gpu_l1 *t, uint64_t n)
{
	sim_time_t now = apu_port_now(t->port);

	return now + sim_clock_delay(&t->ctx->core_clk, now, n);
}

/* ---- answers to the SM, after their latency ------------------------------------------------- */

static bool ans_before(const struct tcp_ans *a, const struct tcp_ans *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void ans_timer_cb(struct sim_kernel *k, void *obj, void *arg);

static void ans_arm(struct gpu_l1 *t)
{
	if (!t->ans_n || t->lt) /* the LT face answers them itself (lt_answer) */
		return;
	if (t->ans_timer && t->ans_at <= t->ans[0].due)
		return;
	t->ans_timer = true;
	t->ans_at = t->ans[0].due;
	sim_schedule_at(t->ctx->k, t->ans_at, SIM_PRIO_DEFAULT, ans_timer_cb, t, NULL);
}

static void answer(struct gpu_l1 *t, uint32_t id, const uint8_t *line, sim_time_t due)
{
	struct tcp_ans e = {.due = due, .seq = t->ans_seq++, .id = id, .load = line != NULL};
	unsigned i;

	if (t->ans_n == t->ans_cap) {
		unsigned nc = t->ans_cap ? 2 * t->ans_cap : 64;
		struct tcp_ans *n = realloc(t->ans, nc * sizeof(*n));

		if (!n) {
			sim_fail(t->ctx->k, -CS_ENOMEM, "%s: out of memory", t->name);
			return;
		}
		t->ans = n;
		t->ans_cap = nc;
	}
	if (line)
		memcpy(e.data, line, 64);
	i = t->ans_n++;
	while (i) {
		unsigned p = (i - 1) / 2;

		if (!ans_before(&e, &t->ans[p]))
			break;
		t->ans[i] = t->ans[p];
		i = p;
	}
	t->ans[i] = e;
	ans_arm(t);
}

static void ans_pop(struct gpu_l1 *t, struct tcp_ans *out)
{
	struct tcp_ans last = t->ans[--t->ans_n];
	unsigned i = 0, n = t->ans_n;

	*out = t->ans[0];
	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ans_before(&t->ans[c + 1], &t->ans[c]))
			c++;
		if (!ans_before(&t->ans[c], &last))
			break;
		t->ans[i] = t->ans[c];
		i = c;
	}
	if (n)
		t->ans[i] = last;
}

static void ans_timer_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_l1 *t = obj;
	sim_time_t now = sim_now(k);

	(void)arg;
	t->ans_timer = false;
	while (t->ans_n && t->ans[0].due <= now) {
		struct tcp_ans a;

		ans_pop(t, &a);
		t->cl.done(t->cl.sm, a.id, a.load ? a.data : NULL);
	}
	ans_arm(t);
}

/* ---- messages --------------------------------------------------------------------------------- */

static struct mem_msg *tcp_msg(struct gpu_l1 *t, uint8_t type, uint64_t line, uint32_t txn)
{
	struct mem_msg *m = apu_msg_new(t->cfg->msgs, type, line, t->node,
					t->cfg->tcc_node[apu_tcc_home(t->cfg, line)], t->node);

	if (!m) {
		sim_fail(t->ctx->k, -CS_ENOMEM, "%s: out of memory for messages", t->name);
		return NULL;
	}
	m->txn = txn;
	apu_ext_of(t->cfg->msgs, m)->cu = (uint16_t)t->cu;
	return m;
}

static void tcp_send(struct gpu_l1 *t, struct mem_msg *m)
{
	apu_port_send(t->port, m, t->cfg->tcp.req_pipe_cycles + t->cfg->tcp.issue_cycles);
}

static bool is_slc(const struct gpu_access *a)
{
	return a->scope == MEM_SCOPE_SYSTEM;
}

static bool is_glc_load(const struct gpu_access *a)
{
	return a->kind == GPU_ACC_LD && mem_scope_base(a->scope) == MEM_SCOPE_DEVICE &&
	       mem_order_acquires(a->order);
}

static struct apu_ext *ext(const struct gpu_l1 *t, const struct mem_msg *m)
{
	return apu_ext_of(t->cfg->msgs, m);
}

static uint64_t mask64(const struct gpu_access *a)
{
	return a->byte_mask[0]; /* 64-B lines */
}

/* WB_L1: a dirty line's bytes go to the TCC; its ack counts for the flush in progress. */
static void tcp_flush_line(struct gpu_l1 *t, struct cache_line *l)
{
	struct mem_msg *m;

	if (!l->meta[1])
		return;
	m = tcp_msg(t, APU_TCPFLUSH, l->addr, TXN_FLUSH);
	if (!m)
		return;
	memcpy(m->p.data, l->data, 64);
	ext(t, m)->mask = l->meta[1];
	l->meta[1] = 0;
	t->acks_owed++;
	t->flush_owed++;
	(*t->st.flushes)++;
	tcp_send(t, m);
}

static struct cache_line *tcp_alloc(struct gpu_l1 *t, uint64_t line)
{
	struct cache_line *l = cache_victim(t->cache, line, NULL, NULL);

	if (l->state)
		tcp_flush_line(t, l);
	cache_install(t->cache, l, line, TCP_V);
	l->meta[0] = 0;
	l->meta[1] = 0;
	return l;
}

/* ---- accesses --------------------------------------------------------------------------------- */

static bool park(struct gpu_l1 *t, struct mshr_entry *e, const struct gpu_access *a, uint8_t what)
{
	struct tcp_target tg = {.what = what, .a = *a};

	if (a->kind == GPU_ACC_ST) {
		gpu_mask_copy(tg.data, a->data, a->byte_mask, 64);
		tg.a.data = NULL;
	}
	if (!mshr_merge(t->mshr, e, &tg))
		return false;
	if (what == T_PARKED)
		(*t->st.parked)++;
	return true;
}

static bool tcp_load(struct gpu_l1 *t, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(t->cache, a->line_addr);
	uint64_t need = mask64(a);
	struct mshr_entry *e;
	struct mem_msg *m;

	if (is_slc(a) || is_glc_load(a)) {
		/* bypass: drop our copy (flush it first if dirty), nothing allocated */
		if (l) {
			tcp_flush_line(t, l);
			cache_invalidate(t->cache, l);
		}
		m = tcp_msg(t, APU_TCPRD, a->line_addr, a->id | TXN_BYPASS);
		if (!m)
			return false;
		ext(t, m)->slc = is_slc(a);
		ext(t, m)->glc = !is_slc(a);
		tcp_send(t, m);
		(*t->st.bypass_loads)++;
		return true;
	}
	if (l && (l->meta[0] & need) == need) {
		cache_touch(t->cache, l);
		(*t->st.load_hits)++;
		answer(t, a->id, l->data,
		       cyc(t, t->cfg->tcp.req_pipe_cycles + t->cfg->tcp.latency +
				  t->cfg->tcp.resp_pipe_cycles));
		return true;
	}
	if (mshr_full(t->mshr))
		return false;
	e = mshr_alloc(t->mshr, a->line_addr);
	mshr_user(e)[0] = E_IV;
	mshr_user(e)[1] = apu_port_now(t->port);
	mshr_user(e)[2] = 0;
	park(t, e, a, T_LOAD);
	/* WB_L1: our dirty bytes go first (FIFO to the TCC), so the fill holds them even if the
	 * line leaves meanwhile (evicted or dropped by an acquire; hetero_rtest seed 3) */
	if (l)
		tcp_flush_line(t, l);
	m = tcp_msg(t, APU_TCPRD, a->line_addr, mshr_index(t->mshr, e));
	if (!m)
		return false;
	tcp_send(t, m);
	(*t->st.load_misses)++;
	return true;
}

/* WB_L1: the CU's warps see a store once it is in the line: the coherence checker's write order
 * gets its whole words here (and again at the TCC and the directory when it is flushed). */
static void check_store(const struct gpu_l1 *t, const struct cache_line *l, uint64_t mask)
{
	for (unsigned w = 0; t->ctx->chk && w < 64; w += 4)
		if ((mask >> w & 0xfull) == 0xfull) {
			uint32_t v;

			memcpy(&v, l->data + w, 4);
			cohcheck_write(t->ctx->chk, l->addr + w, 4, v);
		}
}

static bool tcp_store(struct gpu_l1 *t, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(t->cache, a->line_addr);
	struct mem_msg *m;

	if (t->wb && !is_slc(a)) {
		if (!l)
			l = tcp_alloc(t, a->line_addr);
		gpu_mask_copy(l->data, a->data, a->byte_mask, 64);
		check_store(t, l, mask64(a));
		l->meta[0] |= mask64(a);
		l->meta[1] |= mask64(a);
		cache_touch(t->cache, l);
		answer(t, a->id, NULL,
		       cyc(t, t->cfg->tcp.req_pipe_cycles + t->cfg->tcp.latency +
				  t->cfg->tcp.resp_pipe_cycles));
		return true;
	}
	if (l) {
		/* write-evict; under WB_L1 an SLC store sends our dirty bytes first (FIFO to the
		 * TCC keeps them older than the store) */
		tcp_flush_line(t, l);
		cache_invalidate(t->cache, l);
		(*t->st.store_evicts)++;
	}
	m = tcp_msg(t, APU_TCPWT, a->line_addr, a->id);
	if (!m)
		return false;
	gpu_mask_copy(m->p.data, a->data, a->byte_mask, 64);
	ext(t, m)->mask = mask64(a);
	ext(t, m)->slc = is_slc(a);
	ext(t, m)->glc = true;
	t->acks_owed++;
	tcp_send(t, m);
	return true;
}

static bool tcp_atomic(struct gpu_l1 *t, const struct gpu_access *a)
{
	const struct mem_atom_lanes *al = (const struct mem_atom_lanes *)a->data;
	struct cache_line *l = cache_lookup(t->cache, a->line_addr);
	struct mshr_entry *e;
	struct mem_msg *m;

	if (mshr_full(t->mshr))
		return false;
	if (l) {
		tcp_flush_line(t, l);
		cache_invalidate(t->cache, l);
	}
	e = mshr_alloc(t->mshr, a->line_addr);
	mshr_user(e)[0] = E_A;
	mshr_user(e)[1] = apu_port_now(t->port);
	mshr_user(e)[2] = 0;
	park(t, e, a, T_ATOMIC);
	m = tcp_msg(t, APU_TCPATOMIC, a->line_addr, mshr_index(t->mshr, e));
	if (!m)
		return false;
	/* the SM's lane records travel by pointer (operands out, old values back): the TCC
	 * performs them, or sends one directory Atomic per lane */
	m->p.data = a->data;
	m->p.len = sizeof(struct mem_atom_lanes);
	m->atomic_op = al->op;
	m->scope = a->scope;
	m->order = a->order;
	ext(t, m)->op = al->op;
	ext(t, m)->width = al->bytes;
	ext(t, m)->slc = is_slc(a);
	ext(t, m)->glc = !is_slc(a);
	tcp_send(t, m);
	return true;
}

static bool tcp_access(struct gpu_l1 *t, const struct gpu_access *a)
{
	struct mshr_entry *e = mshr_find(t->mshr, a->line_addr);
	bool ok;

	if (e) {
		/* IV: loads merge; everything else waits for the line */
		bool merge = mshr_user(e)[0] == E_IV && a->kind == GPU_ACC_LD && !is_slc(a) &&
			     !is_glc_load(a);

		ok = park(t, e, a, merge ? T_LOAD : T_PARKED);
		if (ok && merge)
			(*t->st.merges)++;
	} else if (a->kind == GPU_ACC_LD) {
		ok = tcp_load(t, a);
	} else if (a->kind == GPU_ACC_ST) {
		ok = tcp_store(t, a);
	} else {
		ok = tcp_atomic(t, a);
	}
	if (!ok) {
		(*t->st.refused)++;
		t->want_retry = true;
		return false;
	}
	if (!t->replaying) {
		(*t->st.accesses)++;
		if (a->kind == GPU_ACC_LD)
			(*t->st.loads)++;
		else if (a->kind == GPU_ACC_ST)
			(*t->st.stores)++;
		else
			(*t->st.atomics)++;
	}
	return true;
}

static bool tcp_access_op(struct gpu_l1 *t, const struct gpu_access *a)
{
	return tcp_access(t, a);
}

static void maybe_retry(struct gpu_l1 *t)
{
	if (t->want_retry) {
		t->want_retry = false;
		t->cl.retry(t->cl.sm);
	}
}

/* ---- answers from the TCC --------------------------------------------------------------------- */

static bool tcc_wb(const struct gpu_l1 *t)
{
	return t->cfg->tcc.write == APU_WRITE_BACK && t->cfg->tcc_obj;
}

static void kernel_end_done(struct gpu_l1 *t)
{
	void (*cb)(void *) = t->flush_cb;

	t->flush_cb = NULL;
	t->kend_tcc = false;
	cb(t->flush_arg);
}

static void tcc_released(void *arg)
{
	struct tcp_rel *r = arg;
	struct gpu_l1 *t = r->t;

	if (--r->left)
		return;
	if (r->slot == t->ctx->warps)
		kernel_end_done(t);
	else
		t->cl.fence_done(t->cl.sm, r->slot);
}

/* WB_L2: every TCC slice flushes its dirty lines; true when none has anything in flight. */
static bool release_tcc(struct gpu_l1 *t, unsigned slot)
{
	struct tcp_rel *r = &t->rel[slot];

	r->left = 1; /* held until every slice is asked */
	for (unsigned i = 0; i < t->cfg->tccs; i++)
		if (t->cfg->tcc_obj[i] && !apu_tcc_release(t->cfg->tcc_obj[i], tcc_released, r))
			r->left++;
	return --r->left == 0;
}

static void flush_progress(struct gpu_l1 *t)
{
	if (t->flush_owed)
		return;
	for (unsigned i = 0; i < t->n_fence_waiters; i++) {
		unsigned w = t->fence_waiters[i];

		if (!t->fence_sys[i] || release_tcc(t, w))
			t->cl.fence_done(t->cl.sm, w);
	}
	t->n_fence_waiters = 0;
	if (!t->acks_owed && t->flush_cb && !t->kend_tcc) {
		if (tcc_wb(t)) {
			t->kend_tcc = true;
			if (!release_tcc(t, t->ctx->warps))
				return;
		}
		kernel_end_done(t);
	}
}

/* The entry is over: its parked accesses run again in order (they fit: they all fitted in
 * this entry, and at most one new entry, for this line, is made). */
static void entry_done(struct gpu_l1 *t, struct mshr_entry *e, unsigned first_parked)
{
	struct tcp_target keep[64];
	unsigned n = 0, nt = mshr_targets(e);

	for (unsigned i = first_parked; i < nt && n < 64; i++) {
		struct tcp_target *tg = mshr_target(e, i);

		if (tg->what == T_PARKED || (tg->what == T_LOAD && i >= first_parked))
			keep[n++] = *tg;
	}
	mshr_free(t->mshr, e);
	t->replaying = true;
	for (unsigned i = 0; i < n; i++) {
		if (keep[i].a.kind == GPU_ACC_ST)
			keep[i].a.data = keep[i].data;
		if (!tcp_access(t, &keep[i].a))
			sim_fail(t->ctx->k, -CS_EPROTO, "%s: a parked access found no room",
				 t->name);
	}
	t->replaying = false;
	maybe_retry(t);
}

static void on_data(struct gpu_l1 *t, struct mem_msg *m)
{
	sim_time_t due = cyc(t, t->cfg->tcp.resp_pipe_cycles);
	struct mshr_entry *e;
	unsigned nt, i;

	if (m->txn & TXN_BYPASS) {
		answer(t, m->txn & ~TXN_BYPASS, m->p.data, due);
		return;
	}
	e = mshr_at(t->mshr, m->txn);
	if (!e || mshr_line(e) != m->p.addr) {
		sim_fail(t->ctx->k, -CS_EPROTO, "%s: TccData for %#llx matches no MSHR entry",
			 t->name, (unsigned long long)m->p.addr);
		return;
	}
	cs_stat_avg_sample(t->st.miss_latency, (double)(apu_port_now(t->port) - mshr_user(e)[1]) /
						   sim_clock_period_ps(&t->ctx->core_clk));
	nt = mshr_targets(e);
	if (mshr_user(e)[0] == E_A) {
		struct tcp_target *tg = mshr_target(e, 0);

		answer(t, tg->a.id, NULL, due);
		entry_done(t, e, 1);
		return;
	}
	/* IV: fill (unless an acquire came meanwhile), the loads merged so far are done */
	{
		const uint8_t *data = m->p.data;
		uint8_t merged[64];
		struct cache_line *l = cache_lookup(t->cache, m->p.addr);

		if (!mshr_user(e)[2]) {
			if (!l)
				l = tcp_alloc(t, m->p.addr);
			/* our own dirty bytes (WB_L1) stay ours */
			for (unsigned b = 0; b < 64; b++)
				if (!((l->meta[1] >> b) & 1))
					l->data[b] = m->p.data[b];
			l->meta[0] = ~0ull;
			cache_touch(t->cache, l);
			data = l->data;
		} else if (l) {
			memcpy(merged, m->p.data, 64);
			for (unsigned b = 0; b < 64; b++)
				if ((l->meta[1] >> b) & 1)
					merged[b] = l->data[b];
			data = merged;
		}
		for (i = 0; i < nt; i++) {
			struct tcp_target *tg = mshr_target(e, i);

			if (tg->what != T_LOAD)
				break;
			answer(t, tg->a.id, data, due);
		}
	}
	entry_done(t, e, i);
}

static enum apu_recv tcp_recv(void *owner, struct mem_msg *m)
{
	struct gpu_l1 *t = owner;

	switch (m->type) {
	case APU_TCCDATA:
		on_data(t, m);
		break;
	case APU_TCCWBACK:
		t->acks_owed--;
		if (m->txn & TXN_FLUSH) {
			t->flush_owed--;
			flush_progress(t);
		} else {
			answer(t, m->txn, NULL, cyc(t, t->cfg->tcp.resp_pipe_cycles));
			if (!t->acks_owed)
				flush_progress(t);
		}
		break;
	default:
		sim_fail(t->ctx->k, -CS_EPROTO, "%s: unexpected message %s", t->name,
			 m->type < APU_MSG_TYPES ? apu_msg_names[m->type] : "?");
		break;
	}
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops tcp_port_ops = {.recv = tcp_recv};

/* ---- acquire, release, kernel boundaries ------------------------------------------------------ */

static void drop_clean(void *ctx, struct cache_line *l)
{
	struct gpu_l1 *t = ctx;

	if (!l->meta[1]) {
		cache_invalidate(t->cache, l);
	} else {
		l->meta[0] = l->meta[1]; /* only our own bytes stay valid */
	}
}

static void flush_one(void *ctx, struct cache_line *l)
{
	tcp_flush_line(ctx, l);
}

static void tcp_invalidate(struct gpu_l1 *t)
{
	unsigned cap = mshr_capacity(t->mshr);

	(*t->st.acquire_invalidations)++;
	cache_for_each(t->cache, drop_clean, t);
	/* a read in flight may have been ordered before the release this acquire pairs with:
	 * its data serves the loads waiting for it and is not kept */
	for (unsigned i = 0; i < cap; i++) {
		struct mshr_entry *e = mshr_at(t->mshr, i);

		if (e && mshr_user(e)[0] == E_IV)
			mshr_user(e)[2] = 1;
	}
}

static void sys_acquire_tcc(struct gpu_l1 *t)
{
	if (!t->cfg->tcc.inv_on_sys_acquire || !t->cfg->tcc_obj)
		return;
	for (unsigned i = 0; i < t->cfg->tccs; i++)
		if (t->cfg->tcc_obj[i])
			apu_tcc_sys_acquire(t->cfg->tcc_obj[i]);
}

static void tcp_kernel_begin(struct gpu_l1 *t)
{
	tcp_invalidate(t);
	/* the launch is a system-scope acquire; every TCP asks, the TCC drops its V lines
	 * once per CU, which is the same as once */
	sys_acquire_tcc(t);
}

/* The kernel's end is a system-scope release: WB_L1 flushes the TCP, WB_L2 then the TCC. */
static void tcp_kernel_end(struct gpu_l1 *t, void (*cb)(void *), void *arg)
{
	if (t->wb)
		cache_for_each(t->cache, flush_one, t);
	t->flush_cb = cb;
	t->flush_arg = arg;
	flush_progress(t);
}

static sim_time_t tcp_fence(struct gpu_l1 *t, unsigned warp, uint8_t order, uint8_t scope)
{
	bool acq = mem_order_acquires(order);
	bool rel = mem_order_releases(order);

	if (scope == MEM_SCOPE_WG)
		return 0; /* one TCP per CU: a work-group sees its CU's TCP */
	if (acq) {
		tcp_invalidate(t);
		if (scope == MEM_SCOPE_SYSTEM)
			sys_acquire_tcc(t);
	}
	if (!rel)
		return 0;
	/* write-through: every earlier store of the warp is performed (acked) already */
	if (t->wb)
		cache_for_each(t->cache, flush_one, t);
	if (!t->cl.fence_done)
		return 0; /* a client that cannot wait (tests of the fence alone) */
	if (t->flush_owed) {
		t->fence_sys[t->n_fence_waiters] = scope == MEM_SCOPE_SYSTEM && tcc_wb(t);
		t->fence_waiters[t->n_fence_waiters++] = warp;
		return GPU_FENCE_PENDING;
	}
	if (scope == MEM_SCOPE_SYSTEM && tcc_wb(t) && !release_tcc(t, warp))
		return GPU_FENCE_PENDING;
	return 0;
}

/* ---- life ------------------------------------------------------------------------------------- */

/* ---- the LT face ----------------------------------------------------------------------------- */

/* The SM is told at the answer's time: the GPU's LT clock (gpu_now) says when. */
static sim_time_t lt_answer(struct gpu_l1 *t)
{
	struct gpu_lt_clock *c = t->ctx->lt_clock;
	sim_time_t last = 0;

	while (t->ans_n && !sim_failure(t->ctx->k)) {
		struct tcp_ans a;

		ans_pop(t, &a);
		if (a.due > last)
			last = a.due;
		if (c)
			c->t = a.due;
		t->cl.done(t->cl.sm, a.id, a.load ? a.data : NULL);
	}
	return last;
}

/* Runs fn in an LT run at time `at` (the APU's controllers perform what it sends at once),
 * then answers the SM. */
static void lt_do(struct gpu_l1 *t, sim_time_t at, void (*fn)(struct gpu_l1 *, void *), void *arg)
{
	struct apu_lt *lt = apu_port_lt(t->port);
	struct gpu_lt_clock *c = t->ctx->lt_clock;

	apu_lt_begin(lt, at);
	if (c)
		c->t = at;
	fn(t, arg);
	apu_lt_run(lt);
	apu_lt_end(lt);
	lt_answer(t);
}

static void lt_recv(struct gpu_l1 *t, void *arg)
{
	tcp_recv(t, arg);
}

/* The TCC's answers held in the port (they came back in earlier runs) arrived by `until`:
 * handled in time order, each at its arrival (the TCP's next edge), as the detailed face
 * would; what they send (parked accesses replayed) goes out then. */
static void lt_handle(struct gpu_l1 *t, sim_time_t until)
{
	struct mem_msg *m;
	sim_time_t when;

	while (!sim_failure(t->ctx->k) && apu_port_lt_take(t->port, until, &m, &when))
		lt_do(t, sim_clock_next_edge(apu_port_clock(t->port), when), lt_recv, m);
}

/* Clock of the GPU's LT face on while the TCP works for it. */
struct lt_save {
	bool on;
	sim_time_t t;
};

static struct lt_save lt_clock_on(struct gpu_l1 *t)
{
	struct gpu_lt_clock *c = t->ctx->lt_clock;
	struct lt_save s = {false, 0};

	if (c) {
		s = (struct lt_save){c->on, c->t};
		c->on = true;
	}
	return s;
}

static void lt_clock_restore(struct gpu_l1 *t, struct lt_save s)
{
	struct gpu_lt_clock *c = t->ctx->lt_clock;

	if (c) {
		c->on = s.on;
		c->t = s.t;
	}
}

static void tcp_set_lt(struct gpu_l1 *t, bool on)
{
	if (on && !apu_port_lt(t->port)) {
		sim_fail(t->ctx->k, -CS_EPROTO, "%s: no LT face (apu_gpu_cfg.lt is NULL)", t->name);
		return;
	}
	t->lt = on;
	apu_port_lt_hold(t->port, on);
	if (!on) { /* the answers in flight arrive at their times, as the network's would */
		apu_port_lt_unhold(t->port);
		ans_arm(t);
	}
}

struct lt_acc {
	const struct gpu_access *a;
	bool ok;
};

static void lt_acc_fn(struct gpu_l1 *t, void *arg)
{
	struct lt_acc *x = arg;

	x->ok = tcp_access(t, x->a);
}

/* gpu_l1_ops.lt_access: the access runs through tcp_access in an LT run at t; what it sends
 * (TcpRd, TcpWT, TcpAtomic, TcpFlush) is performed at once down to the directory, DRAM and the
 * CorePairs' probes, and the TCC's answers wait in the port until lt_advance reaches their
 * arrival, so that later accesses find the line's MSHR entry in flight (they merge or park). */
static sim_time_t tcp_lt_access(struct gpu_l1 *t, const struct gpu_access *a, sim_time_t at,
				bool last)
{
	struct lt_save s = lt_clock_on(t);
	struct lt_acc x = {.a = a};
	sim_time_t end = at, back, hit;

	(void)last;
	lt_handle(t, at);
	apu_port_lt_last(t->port);
	{
		struct apu_lt *lt = apu_port_lt(t->port);
		struct gpu_lt_clock *c = t->ctx->lt_clock;

		apu_lt_begin(lt, at);
		if (c)
			c->t = at;
		lt_acc_fn(t, &x);
		apu_lt_run(lt);
		apu_lt_end(lt);
		hit = lt_answer(t);
	}
	back = apu_port_lt_last(t->port);
	t->want_retry = false; /* the SM tries again once the next answer is handled */
	if (!x.ok && apu_port_lt_next(t->port) == SIM_TIME_MAX && !sim_failure(t->ctx->k))
		sim_fail(t->ctx->k, -CS_EPROTO,
			 "%s: an LT access was refused with nothing in flight", t->name);
	lt_clock_restore(t, s);
	if (!x.ok)
		return SIM_TIME_MAX;
	if (back && sim_clock_next_edge(apu_port_clock(t->port), back) > end)
		end = sim_clock_next_edge(apu_port_clock(t->port), back); /* handled then */
	if (hit > end)
		end = hit;
	return end;
}

static sim_time_t tcp_lt_advance(struct gpu_l1 *t, sim_time_t until)
{
	sim_time_t next = apu_port_lt_next(t->port);

	if (next <= until) {
		struct lt_save s = lt_clock_on(t);

		lt_handle(t, until);
		lt_clock_restore(t, s);
		next = apu_port_lt_next(t->port);
	}
	return next == SIM_TIME_MAX ? next : sim_clock_next_edge(apu_port_clock(t->port), next);
}

struct lt_kend {
	void (*cb)(void *);
	void *arg;
};

static void lt_kend_fn(struct gpu_l1 *t, void *arg)
{
	struct lt_kend *x = arg;

	tcp_kernel_end(t, x->cb, x->arg);
}

/* The kernel's end in LT: its flushes (WB_L1, WB_L2) are performed and their acks handled at
 * once: no warp is left to wait for them. */
static void tcp_kernel_end_op(struct gpu_l1 *t, void (*cb)(void *), void *arg)
{
	struct lt_kend x = {cb, arg};
	struct lt_save s;

	if (!t->lt) {
		tcp_kernel_end(t, cb, arg);
		return;
	}
	s = lt_clock_on(t);
	lt_do(t, gpu_now(t->ctx), lt_kend_fn, &x);
	lt_handle(t, SIM_TIME_MAX);
	lt_clock_restore(t, s);
}

struct lt_fence {
	unsigned warp;
	uint8_t order, scope;
	sim_time_t r;
};

static void lt_fence_fn(struct gpu_l1 *t, void *arg)
{
	struct lt_fence *x = arg;

	x->r = tcp_fence(t, x->warp, x->order, x->scope);
}

/* A fence in LT: what it sends (WB_L1 flushes, WB_L2 Flush) is performed in an LT run at the
 * warp's time; a release that waits gets its fence_done when lt_advance handles the acks. */
static sim_time_t tcp_fence_op(struct gpu_l1 *t, unsigned warp, uint8_t order, uint8_t scope)
{
	struct lt_fence x = {warp, order, scope, 0};
	struct lt_save s;

	if (!t->lt)
		return tcp_fence(t, warp, order, scope);
	s = lt_clock_on(t);
	lt_do(t, gpu_now(t->ctx), lt_fence_fn, &x);
	lt_clock_restore(t, s);
	return x.r;
}

static bool tcp_idle(const struct gpu_l1 *t)
{
	return !mshr_used(t->mshr) && !t->acks_owed && !t->ans_n && apu_port_idle(t->port);
}

static uint64_t tcp_digest(const struct gpu_l1 *t)
{
	return cache_digest(t->cache);
}

static struct tlm_initiator_socket *tcp_noc_port(struct gpu_l1 *t)
{
	return apu_port_initiator(t->port);
}

static struct tlm_target_socket *tcp_deliver_port(struct gpu_l1 *t)
{
	return apu_port_target(t->port);
}

static bool tcp_probe(const struct gpu_l1 *t, uint64_t addr, unsigned warp, uint64_t out[3])
{
	struct cache_line *l = cache_lookup(t->cache, addr & ~63ull);

	(void)warp;
	if (!l)
		return false;
	out[0] = l->meta[0];
	out[1] = l->meta[1];
	out[2] = 0;
	return true;
}

static void tcp_destroy(struct gpu_l1 *t)
{
	if (!t)
		return;
	apu_port_destroy(t->port);
	cache_destroy(t->cache);
	mshr_destroy(t->mshr);
	free(t->ans);
	free(t->fence_waiters);
	free(t->fence_sys);
	free(t->rel);
	free(t);
}

static void tcp_stats_register(struct gpu_l1 *t, struct cs_stat_group *g)
{
	struct tcp_stats *s = &t->st;

	s->accesses = cs_stat_counter(g, "accesses", "", "accesses taken from the CU");
	s->loads = cs_stat_counter(g, "loads", "", "loads");
	s->stores = cs_stat_counter(g, "stores", "", "stores");
	s->atomics = cs_stat_counter(g, "atomics", "", "atomics (all sent to the TCC)");
	s->load_hits = cs_stat_counter(g, "load_hits", "", "loads served by a V line");
	s->load_misses = cs_stat_counter(g, "load_misses", "", "TcpRd sent for a line");
	s->merges = cs_stat_counter(g, "merges", "", "loads merged into an IV line");
	s->bypass_loads = cs_stat_counter(g, "bypass_loads", "", "GLC and SLC loads");
	s->parked = cs_stat_counter(g, "parked", "", "accesses that waited for an IV/A line");
	s->store_evicts = cs_stat_counter(g, "store_evicts", "", "stores that dropped a V line");
	s->acquire_invalidations =
	    cs_stat_counter(g, "acquire_invalidations", "", "acquires and launches (TCP dropped)");
	s->flushes = cs_stat_counter(g, "flushes", "", "TcpFlush of dirty lines (WB_L1)");
	s->refused = cs_stat_counter(g, "refused", "", "accesses refused (MSHRs full)");
	s->miss_latency = cs_stat_average(g, "miss_latency", "cycles",
					  "TcpRd or TcpAtomic to its TccData, GPU cycles");
}

static int tcp_create(const struct gpu_ctx *ctx, unsigned cu, const struct gpu_l1_client *cl,
		      struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	const struct apu_gpu_cfg *cfg = ctx->proto_cfg;
	struct gpu_l1 *t;
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!cfg || !cfg->msgs || !cfg->tcp_node || !cfg->tcc_node || !cfg->tccs) {
		cs_err_set(err, -CS_EINVAL, "cu%u.tcp: no APU wiring (gpu_ctx.proto_cfg)", cu);
		return -CS_EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto fail;
	t->ctx = ctx;
	t->cfg = cfg;
	t->cu = cu;
	t->node = cfg->tcp_node[cu];
	t->cl = *cl;
	t->wb = cfg->tcp.write == APU_WRITE_BACK;
	snprintf(t->name, sizeof(t->name), "cu%u.tcp", cu);
	t->fence_waiters = calloc(ctx->warps ? ctx->warps : 1, sizeof(unsigned));
	t->fence_sys = calloc(ctx->warps ? ctx->warps : 1, sizeof(bool));
	t->rel = calloc(ctx->warps + 1, sizeof(*t->rel));
	if (!t->fence_waiters || !t->fence_sys || !t->rel)
		goto fail;
	for (unsigned i = 0; i <= ctx->warps; i++)
		t->rel[i] = (struct tcp_rel){.t = t, .slot = i};
	{
		struct apu_port_cfg pc = {
		    .name = t->name,
		    .ep = t->node,
		    .clock_mhz = ctx->core_clk.freq_hz / 1000000,
		    .in_depth = APU_GPU_IN_DEPTH,
		    .per_cycle = APU_GPU_PER_CYCLE,
		};

		rc = apu_port_create(ctx->k, &pc, &tcp_port_ops, t, &t->port);
		if (rc)
			goto fail;
		apu_port_set_lt(t->port, cfg->lt);
	}
	{
		struct cache_geom geom = {
		    .size_bytes = cfg->tcp.size_kib * 1024,
		    .assoc = (unsigned)cfg->tcp.assoc,
		    .line_bytes = 64,
		    .repl = CACHE_REPL_PLRU,
		};

		rc = cache_create(&geom, &t->cache);
		if (rc) {
			cs_err_set(err, rc,
				   "tcp: a %llu KiB %llu-way cache of 64 B lines cannot be built: "
				   "sizes must give a power-of-two number of sets",
				   (unsigned long long)cfg->tcp.size_kib,
				   (unsigned long long)cfg->tcp.assoc);
			tcp_destroy(t);
			return rc;
		}
	}
	rc = mshr_create((unsigned)cfg->tcp.mshrs, (unsigned)cfg->tcp.mshr_merge,
			 sizeof(struct tcp_target), &t->mshr);
	if (rc)
		goto fail;
	tcp_stats_register(t, g);
	*out = t;
	return 0;
fail:
	cs_err_set(err, rc, "cu%u.tcp: %s", cu, cs_strerror(rc));
	tcp_destroy(t);
	return rc;
}

/* The stats contract (docs/energy.md, "APU"): every access probes the tags and a miss's fill
 * writes them; a load hit reads the data, a fill writes it (and under WB_L1 a store); a miss
 * and a merge take the MSHRs. */
static void tcp_energy(const struct gpu_l1 *t, struct energy_counts *c)
{
	const struct tcp_stats *s = &t->st;
	double fills = (double)*s->load_misses;

	energy_add(c, EN_L1_TAG, (double)*s->accesses + fills);
	energy_add(c, EN_L1_DATA_READ, (double)*s->load_hits);
	energy_add(c, EN_L1_DATA_WRITE, fills + (t->wb ? (double)*s->stores : 0));
	energy_add(c, EN_L1_MSHR, fills + (double)*s->merges);
}

const struct gpu_l1_ops apu_tcp_ops = {
    .create = tcp_create,
    .destroy = tcp_destroy,
    .noc_port = tcp_noc_port,
    .deliver_port = tcp_deliver_port,
    .access = tcp_access_op,
    .kernel_begin = tcp_kernel_begin,
    .kernel_end = tcp_kernel_end_op,
    .fence = tcp_fence_op,
    .set_lt = tcp_set_lt,
    .lt_access = tcp_lt_access,
    .lt_advance = tcp_lt_advance,
    .probe = tcp_probe,
    .idle = tcp_idle,
    .digest = tcp_digest,
    .energy = tcp_energy,
};
