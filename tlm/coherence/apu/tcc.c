/*
 * tlm/coherence/apu/tcc.c - VIPER's TCC, the GPU L2 (docs/apu.md §3.3, §5), write-through
 * (tcc.write = through; WB_L2 is not built yet and refused at create).
 *
 * Lines are V or I (the cache holds V lines); the transients are MSHR entries: IV (a RdBlk to
 * the directory outstanding: TcpRd of the line merge into it and are all answered by the one
 * SysResp; docs/apu.md §3.3 [inferred]) and A (SLC atomics outstanding at the directory).
 * Every other request to a line with an entry is parked in it and replayed in order when the
 * entry is freed; when no MSHR is free the request stays in the network's REQ input (§8.2).
 *
 * Reads hit V or send RdBlk; a granted E is treated as V. Stores write the V copy (SLC drops
 * it) and always go on as WT; the TCP's TccWBAck is the directory's WBAck forwarded. GLC
 * atomics are performed here (a miss first fetches the line with RdBlk) and their result is
 * written through; SLC atomics, and GLC ones with tcc.glc_atomic_at = dir, go to the directory.
 * A probe (PrbInv) drops a V line and is acked at once with hit = false and no data, in every
 * state (§8.1 rule 1). A system-scope acquire or a kernel launch drops every V line
 * (tcc.inv_on_sys_acquire; docs/apu.md §5.2); a read in flight then serves its waiters and is
 * not kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/coherence/gpu_base.h"
#include "tlm/mem/cache.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/mshr.h"
#include "tlm/mem/store.h"

/* cache_line.state; meta[1]: the dirty bytes (M, W) */
#define TCC_V 1 /* valid, clean */
#define TCC_M 2 /* WB_L2: valid, some bytes dirty */
#define TCC_W 3 /* WB_L2: only the dirty bytes valid (written without a fetch, or probed in M) */

struct tcc_waiter {
	void (*cb)(void *arg);
	void *arg;
};

enum { E_IV = 1, E_A };			 /* mshr_user[0] */
enum { F_DROP = 1, F_BYPASS = 2 };	 /* mshr_user[2] */
enum { W_READ = 0, W_PARKED, W_ATOMIC }; /* what a target is */

struct tcc_wait {
	struct mem_msg *m; /* the TCP's request, kept until answered */
	uint8_t what;
	uint8_t lanes_done; /* W_ATOMIC at the directory: lanes answered so far */
};

struct tcc_stats {
	uint64_t *reads, *hits, *misses, *merged, *bypass_reads, *wts, *atomics_tcc, *atomics_dir;
	uint64_t *parked, *held, *probes, *probe_invalidations, *acquire_invalidations;
	uint64_t *unblocks, *writebacks, *flushes;
	struct cs_stat_avg *miss_latency;
};

struct apu_tcc {
	const struct gpu_ctx *ctx;
	const struct apu_gpu_cfg *cfg;
	unsigned slice;
	uint16_t node;
	struct apu_port *port;
	struct cache *cache;
	struct mshr_table *mshr;
	bool wb;		    /* WB_L2 */
	unsigned flush_owed;	    /* Flush sent, WBAck not back */
	struct tcc_waiter *waiters; /* releases waiting for flush_owed to reach 0 */
	unsigned n_waiters, cap_waiters;
	char name[32];
	struct tcc_stats st;
	sim_time_t *ready; /* per frame: when its line's data came (ready_wait; not its state) */
};

static bool tcc_req(struct apu_tcc *c, struct mem_msg *m);

static struct apu_ext *ext(const struct apu_tcc *c, const struct mem_msg *m)
{
	return apu_ext_of(c->cfg->msgs, m);
}

static struct mem_msg *tcc_msg(struct apu_tcc *c, enum apu_msg_type type, uint64_t line,
			       uint16_t dst, uint16_t requester)
{
	struct mem_msg *m = apu_msg_new(c->cfg->msgs, type, line, c->node, dst, requester);

	if (!m)
		sim_fail(c->ctx->k, -CS_ENOMEM, "%s: out of memory for messages", c->name);
	return m;
}

/* To the directory (REQ); sent by send_dir after tcc.dir_issue_cycles. */
static struct mem_msg *dir_req(struct apu_tcc *c, enum apu_msg_type type, uint64_t line)
{
	return tcc_msg(c, type, line, c->cfg->dir_node, c->node);
}

static void send_dir(struct apu_tcc *c, struct mem_msg *m)
{
	apu_port_send(c->port, m, c->cfg->tcc.dir_issue_cycles);
}

/* TccData / TccWBAck answering the TCP request r, `extra` cycles beyond tcc.latency. */
static void answer_tcp(struct apu_tcc *c, uint16_t tcp, uint64_t line, uint32_t txn,
		       enum apu_msg_type type, const uint8_t *data, uint64_t extra)
{
	struct mem_msg *m = tcc_msg(c, type, line, tcp, tcp);

	if (!m)
		return;
	m->txn = txn;
	if (data)
		memcpy(m->p.data, data, 64);
	apu_port_send(c->port, m, c->cfg->tcc.latency + extra);
}

static bool report(const struct apu_tcc *c)
{
	return c->cfg->tcc_reports_writes && c->ctx->chk;
}

static bool atomic_at_dir(const struct apu_tcc *c, const struct mem_msg *m)
{
	return ext(c, m)->slc || c->cfg->tcc.glc_atomic_at == APU_ATOMIC_AT_DIR;
}

/* ---- serving TCP requests ---------------------------------------------------------------------- */

static struct mshr_entry *new_entry(struct apu_tcc *c, uint64_t line, unsigned kind, unsigned flags)
{
	struct mshr_entry *e;

	if (mshr_full(c->mshr))
		return NULL;
	e = mshr_alloc(c->mshr, line);
	mshr_user(e)[0] = kind;
	mshr_user(e)[1] = apu_port_now(c->port);
	mshr_user(e)[2] = flags;
	mshr_user(e)[3] = 0;
	return e;
}

static void add(struct apu_tcc *c, struct mshr_entry *e, struct mem_msg *m, uint8_t what)
{
	struct tcc_wait w = {.m = m, .what = what, .lanes_done = 0};

	/* the caller made sure there is room */
	mshr_merge(c->mshr, e, &w);
}

static void send_rdblk(struct apu_tcc *c, struct mshr_entry *e, const struct mem_msg *r)
{
	struct mem_msg *d = dir_req(c, APU_RDBLK, mshr_line(e));

	if (!d)
		return;
	d->txn = mshr_index(c->mshr, e);
	ext(c, d)->glc = ext(c, r)->glc;
	ext(c, d)->slc = ext(c, r)->slc;
	ext(c, d)->cu = ext(c, r)->cu;
	send_dir(c, d);
}

/* One directory Atomic per lane of the TCP's atomic r (the directory performs one operand at
 * a time, docs/apu.md §2.1); the lanes go in order and are answered in order. */
static void send_atomics(struct apu_tcc *c, struct mshr_entry *e, const struct mem_msg *r)
{
	const struct mem_atom_lanes *al = (const struct mem_atom_lanes *)r->p.data;

	for (unsigned i = 0; i < al->n; i++) {
		struct mem_msg *d = dir_req(c, APU_ATOMIC, mshr_line(e));
		struct apu_ext *x;

		if (!d)
			return;
		x = ext(c, d);
		x->op = al->op;
		x->width = al->bytes;
		x->offset = al->lane[i].offset;
		x->operand = al->lane[i].a;
		x->operand2 = al->lane[i].b;
		x->ret = true;
		x->glc = ext(c, r)->glc;
		x->slc = ext(c, r)->slc;
		x->cu = ext(c, r)->cu;
		d->txn = mshr_index(c->mshr, e);
		mshr_user(e)[3]++;
		send_dir(c, d);
	}
	(*c->st.atomics_dir)++;
}

/* A write-through of m's bytes to the directory; its WBAck goes back to m's requester. */
static void send_wt(struct apu_tcc *c, uint64_t line, const uint8_t *data, uint64_t mask,
		    uint16_t cu, uint32_t seq, bool slc)
{
	struct mem_msg *d = dir_req(c, APU_WT, line);
	struct apu_ext *x;

	if (!d)
		return;
	memcpy(d->p.data, data, 64);
	x = ext(c, d);
	x->mask = mask;
	x->cu = cu;
	x->seq = seq;
	x->glc = true;
	x->slc = slc;
	(*c->st.wts)++;
	send_dir(c, d);
}

/* WB_L2: the dirty bytes of l go to the directory (a WT nobody waits for) and l is dropped.
 * A request of this line that follows is sent after the WT and reaches the directory after it
 * (REQ is FIFO per source and destination, docs/apu.md §8.3), so no WI state is needed. */
static void clean_drop(struct apu_tcc *c, struct cache_line *l)
{
	if ((l->state == TCC_M || l->state == TCC_W) && l->meta[1]) {
		send_wt(c, l->addr, l->data, l->meta[1], APU_CU_NONE, 0, false);
		(*c->st.writebacks)++;
	}
	cache_invalidate(c->cache, l);
}

/* A frame for line (the set's victim written back first if dirty). */
static struct cache_line *tcc_install(struct apu_tcc *c, uint64_t line, uint8_t state)
{
	struct cache_line *l = cache_victim(c->cache, line, NULL, NULL);

	if (l->state)
		clean_drop(c, l);
	cache_install(c->cache, l, line, state);
	l->meta[0] = l->meta[1] = 0;
	c->ready[cache_line_index(c->cache, l)] = apu_port_now(c->port);
	return l;
}

/* TCC cycles a read that finds l valid waits for its data: 0 in the detailed face. An LT run
 * performs a miss whole and fills the line at its data's time, and a later run may start at an
 * earlier time (its warp's): in the detailed face that read would have merged into the miss
 * and been answered with its data (chai_hsto: 458 764 merged reads detailed, 3 335 in LT). */
static uint64_t ready_wait(const struct apu_tcc *c, const struct cache_line *l)
{
	return apu_port_cycles_until(c->port, c->ready[cache_line_index(c->cache, l)]);
}

/* A GLC atomic on the V (or M) line l: performed, answered; its result written through, or
 * kept dirty (WB_L2). */
static void perform_atomic(struct apu_tcc *c, struct cache_line *l, struct mem_msg *m)
{
	struct mem_atom_lanes *al = (struct mem_atom_lanes *)m->p.data;
	uint64_t mask = 0;

	for (unsigned i = 0; i < al->n; i++) {
		struct mem_atom_lane *ln = &al->lane[i];

		ln->old = mem_atomic_apply(l->data + ln->offset, al->bytes, al->op, ln->a, ln->b);
		if (!mem_atomic_writes(al->op))
			continue;
		mask |= (al->bytes == 8 ? 0xffull : 0xfull) << ln->offset;
		if (report(c)) {
			uint64_t v = 0;

			memcpy(&v, l->data + ln->offset, al->bytes);
			cohcheck_write(c->ctx->chk, l->addr + ln->offset, al->bytes, v);
		}
	}
	cache_touch(c->cache, l);
	(*c->st.atomics_tcc)++;
	answer_tcp(c, m->src, m->p.addr, m->txn, APU_TCCDATA, NULL, c->cfg->tcc.atomic_latency);
	if (!mask) {
		/* an atomic load: nothing written */
	} else if (c->wb) {
		l->state = TCC_M;
		l->meta[1] |= mask;
	} else {
		/* a write-through TCC keeps nothing newer than the directory sees [§3.3] */
		send_wt(c, l->addr, l->data, mask, APU_CU_NONE, 0, false);
	}
	tlm_payload_release(&m->p);
}

static void report_wt(struct apu_tcc *c, const struct mem_msg *m)
{
	for (unsigned w = 0; w < 16; w++) {
		uint32_t v;

		if (!((ext(c, m)->mask >> (w * 4)) & 1))
			continue;
		memcpy(&v, m->p.data + w * 4, 4);
		cohcheck_write(c->ctx->chk, m->p.addr + w * 4, 4, v);
	}
}

/* m from a TCP: true when taken (answered, merged, parked or sent on), false when it must wait
 * in the network (no MSHR, or its line's entry is full). */
static bool tcc_req(struct apu_tcc *c, struct mem_msg *m)
{
	uint64_t line = m->p.addr;
	bool slc = ext(c, m)->slc;
	struct mshr_entry *e = mshr_find(c->mshr, line);
	struct cache_line *l;

	if (e) {
		bool read = mshr_user(e)[0] == E_IV && m->type == APU_TCPRD && !slc;
		bool atom =
		    mshr_user(e)[0] == E_A && m->type == APU_TCPATOMIC && atomic_at_dir(c, m);
		unsigned nt = mshr_targets(e);

		if (nt >= mshr_max_merge(c->mshr))
			return false;
		/* once something is parked, later reads wait behind it (they must see it) */
		if (read && ((struct tcc_wait *)mshr_target(e, nt - 1))->what == W_READ) {
			add(c, e, m, W_READ);
			(*c->st.reads)++;
			(*c->st.merged)++;
			return true;
		}
		if (atom && ((struct tcc_wait *)mshr_target(e, nt - 1))->what == W_ATOMIC) {
			add(c, e, m, W_ATOMIC);
			send_atomics(c, e, m);
			return true;
		}
		add(c, e, m, W_PARKED);
		(*c->st.parked)++;
		return true;
	}
	l = cache_lookup(c->cache, line);
	/* WB_L2: a W line cannot serve anything but a store; SLC accesses find the line clean */
	if (l && l->state != TCC_V && m->type != APU_TCPWT && m->type != APU_TCPFLUSH &&
	    (l->state == TCC_W || slc || (m->type == APU_TCPATOMIC && atomic_at_dir(c, m)))) {
		clean_drop(c, l);
		l = NULL;
	}
	switch (m->type) {
	case APU_TCPRD:
		if (slc) {
			e = new_entry(c, line, E_IV, F_BYPASS);
			if (!e)
				return false;
			if (l)
				cache_invalidate(c->cache, l);
			add(c, e, m, W_READ);
			(*c->st.reads)++;
			(*c->st.bypass_reads)++;
			send_rdblk(c, e, m);
			return true;
		}
		if (l) {
			uint64_t wait = ready_wait(c, l);

			cache_touch(c->cache, l);
			(*c->st.reads)++;
			(*(wait ? c->st.merged : c->st.hits))++;
			answer_tcp(c, m->src, line, m->txn, APU_TCCDATA, l->data, wait);
			tlm_payload_release(&m->p);
			return true;
		}
		e = new_entry(c, line, E_IV, 0);
		if (!e)
			return false;
		add(c, e, m, W_READ);
		(*c->st.reads)++;
		(*c->st.misses)++;
		send_rdblk(c, e, m);
		return true;
	case APU_TCPWT:
	case APU_TCPFLUSH:
		if (c->wb && !slc) {
			/* absorbed: the TCP's store is done now */
			uint64_t bm[2] = {ext(c, m)->mask, 0};

			if (!l)
				l = tcc_install(c, line, TCC_W);
			else if (l->state == TCC_V)
				l->state = TCC_M;
			gpu_mask_copy(l->data, m->p.data, bm, 64);
			l->meta[1] |= bm[0];
			cache_touch(c->cache, l);
			if (report(c))
				report_wt(c, m);
			answer_tcp(c, m->src, line, m->txn, APU_TCCWBACK, NULL, 0);
			tlm_payload_release(&m->p);
			return true;
		}
		if (l && l->state != TCC_V) {
			/* WB_L2, SLC store: the dirty bytes go with it, the line goes */
			uint64_t bm[2] = {ext(c, m)->mask, 0};

			gpu_mask_copy(l->data, m->p.data, bm, 64);
			if (report(c))
				report_wt(c, m);
			send_wt(c, line, l->data, l->meta[1] | bm[0], ext(c, m)->cu, m->txn, true);
			cache_invalidate(c->cache, l);
			tlm_payload_release(&m->p);
			return true;
		}
		if (l) {
			if (slc) {
				cache_invalidate(c->cache, l);
			} else {
				uint64_t bm[2] = {ext(c, m)->mask, 0};

				gpu_mask_copy(l->data, m->p.data, bm, 64);
				cache_touch(c->cache, l);
			}
		}
		if (report(c))
			report_wt(c, m);
		send_wt(c, line, m->p.data, ext(c, m)->mask, ext(c, m)->cu, m->txn, slc);
		tlm_payload_release(&m->p);
		return true;
	case APU_TCPATOMIC:
		if (atomic_at_dir(c, m)) {
			e = new_entry(c, line, E_A, 0);
			if (!e)
				return false;
			if (l)
				cache_invalidate(c->cache, l);
			add(c, e, m, W_ATOMIC);
			send_atomics(c, e, m);
			return true;
		}
		if (l) {
			perform_atomic(c, l, m);
			return true;
		}
		/* a regular TCC read first [paper fn 2]; the atomic waits for the line */
		e = new_entry(c, line, E_IV, 0);
		if (!e)
			return false;
		add(c, e, m, W_PARKED);
		(*c->st.misses)++;
		send_rdblk(c, e, m);
		return true;
	default:
		sim_fail(c->ctx->k, -CS_EPROTO, "%s: unexpected request %s from node %u", c->name,
			 m->type < APU_MSG_TYPES ? apu_msg_names[m->type] : "?", m->src);
		tlm_payload_release(&m->p);
		return true;
	}
}

/* ---- answers from the directory, probes ------------------------------------------------------- */

/* The entry is over: the requests parked in it from index `from` run again in order (they
 * fitted in this entry, so they fit in the one new entry they may make). */
static void entry_done(struct apu_tcc *c, struct mshr_entry *e, unsigned from)
{
	struct mem_msg *keep[64];
	unsigned n = 0, nt = mshr_targets(e);

	for (unsigned i = from; i < nt && n < 64; i++)
		keep[n++] = ((struct tcc_wait *)mshr_target(e, i))->m;
	mshr_free(c->mshr, e);
	for (unsigned i = 0; i < n; i++)
		if (!tcc_req(c, keep[i]))
			sim_fail(c->ctx->k, -CS_EPROTO, "%s: a parked request found no room",
				 c->name);
	apu_port_kick(c->port); /* a request stalled for want of an MSHR may go now */
}

static void on_sysresp(struct apu_tcc *c, struct mem_msg *m)
{
	struct mshr_entry *e = mshr_find(c->mshr, m->p.addr);
	unsigned nt, i;

	if (!e) {
		sim_fail(c->ctx->k, -CS_EPROTO, "%s: SysResp for %#llx matches no MSHR entry",
			 c->name, (unsigned long long)m->p.addr);
		return;
	}
	nt = mshr_targets(e);
	if (mshr_user(e)[0] == E_A) {
		/* the directory serializes a line's atomics and answers them in order; the
		 * network keeps its responses to us in order */
		for (i = 0; i < nt; i++) {
			struct tcc_wait *w = mshr_target(e, i);
			struct mem_atom_lanes *al;

			if (w->what != W_ATOMIC)
				continue;
			al = (struct mem_atom_lanes *)w->m->p.data;
			al->lane[w->lanes_done++].old = ext(c, m)->old;
			if (w->lanes_done == al->n) {
				answer_tcp(c, w->m->src, w->m->p.addr, w->m->txn, APU_TCCDATA, NULL,
					   0);
				tlm_payload_release(&w->m->p);
				mshr_remove(e, i);
			}
			break;
		}
		if (--mshr_user(e)[3] == 0)
			entry_done(c, e, 0);
		return;
	}
	cs_stat_avg_sample(c->st.miss_latency, (double)(apu_port_now(c->port) - mshr_user(e)[1]) /
						   sim_clock_period_ps(&c->ctx->l2_clk));
	{
		const uint8_t *data = m->p.data;

		if (!(mshr_user(e)[2] & (F_DROP | F_BYPASS))) {
			/* E or S: a TCC copy is V either way [paper §II-A] */
			struct cache_line *l = cache_lookup(c->cache, m->p.addr);

			if (!l)
				l = tcc_install(c, m->p.addr, TCC_V);
			c->ready[cache_line_index(c->cache, l)] = apu_port_now(c->port);
			memcpy(l->data, m->p.data, 64);
			cache_touch(c->cache, l);
			data = l->data;
		}
		for (i = 0; i < nt; i++) {
			struct tcc_wait *w = mshr_target(e, i);

			if (w->what != W_READ)
				break;
			answer_tcp(c, w->m->src, w->m->p.addr, w->m->txn, APU_TCCDATA, data, 0);
			tlm_payload_release(&w->m->p);
		}
	}
	/* the directory's transaction ends with our Unblock */
	{
		struct mem_msg *u = tcc_msg(c, APU_UNBLOCK, m->p.addr, m->src, c->node);

		if (u) {
			u->txn = m->txn;
			(*c->st.unblocks)++;
			apu_port_send(c->port, u, c->cfg->tcc.ack_cycles);
		}
	}
	entry_done(c, e, i);
}

static void on_probe(struct apu_tcc *c, struct mem_msg *m)
{
	struct cache_line *l = cache_lookup(c->cache, m->p.addr);
	struct mem_msg *a;

	(*c->st.probes)++;
	if (l && m->type == APU_PRBINV) {
		/* M keeps its dirty bytes, no longer readable (W); they never go with the ack */
		if (l->state == TCC_M)
			l->state = TCC_W;
		else if (l->state == TCC_V)
			cache_invalidate(c->cache, l);
		(*c->st.probe_invalidations)++;
	}
	/* hit = false, never data: the TCC does not forward modified data [paper §II-C] */
	a = tcc_msg(c, APU_PRBACK, m->p.addr, m->src, m->requester);
	if (!a)
		return;
	a->txn = m->txn;
	apu_port_send(c->port, a, c->cfg->tcc.ack_cycles);
}

static enum apu_recv tcc_recv(void *owner, struct mem_msg *m)
{
	struct apu_tcc *c = owner;

	switch (m->type) {
	case APU_TCPRD:
	case APU_TCPWT:
	case APU_TCPATOMIC:
	case APU_TCPFLUSH:
		if (!tcc_req(c, m)) {
			(*c->st.held)++;
			return APU_STALL;
		}
		return APU_TAKE;
	case APU_SYSRESP:
		on_sysresp(c, m);
		break;
	case APU_WBACK: {
		/* a WT is done at the directory: the TCP's store is performed */
		const struct apu_ext *x = ext(c, m);

		if (x->cu == APU_CU_FLUSH) {
			if (!--c->flush_owed) {
				unsigned n = c->n_waiters;

				c->n_waiters = 0;
				for (unsigned i = 0; i < n; i++)
					c->waiters[i].cb(c->waiters[i].arg);
			}
		} else if (x->cu != APU_CU_NONE && x->cu < c->ctx->sms)
			answer_tcp(c, c->cfg->tcp_node[x->cu], m->p.addr, x->seq, APU_TCCWBACK,
				   NULL, 0);
		break;
	}
	case APU_PRBINV:
	case APU_PRBDOWNGRADE:
		on_probe(c, m);
		break;
	default:
		sim_fail(c->ctx->k, -CS_EPROTO, "%s: unexpected message %s from node %u", c->name,
			 m->type < APU_MSG_TYPES ? apu_msg_names[m->type] : "?", m->src);
		break;
	}
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops tcc_port_ops = {.recv = tcc_recv};

/* ---- acquire, queries, life -------------------------------------------------------------------- */

static void acquire_one(void *ctx, struct cache_line *l)
{
	struct apu_tcc *c = ctx;

	if (l->state == TCC_V)
		cache_invalidate(c->cache, l);
	else if (l->state == TCC_M)
		l->state = TCC_W; /* dirty bytes kept, the rest may be stale */
}

static void flush_one(void *ctx, struct cache_line *l)
{
	struct apu_tcc *c = ctx;
	struct mem_msg *d;

	if (l->state == TCC_V || !l->meta[1]) {
		cache_invalidate(c->cache, l);
		return;
	}
	d = dir_req(c, APU_FLUSH, l->addr);
	if (d) {
		struct apu_ext *x = ext(c, d);

		memcpy(d->p.data, l->data, 64);
		x->mask = l->meta[1];
		x->cu = APU_CU_FLUSH;
		c->flush_owed++;
		(*c->st.flushes)++;
		send_dir(c, d);
	}
	cache_invalidate(c->cache, l);
}

bool apu_tcc_release(struct apu_tcc *c, void (*cb)(void *arg), void *arg)
{
	if (c->wb)
		cache_for_each(c->cache, flush_one, c);
	if (!c->flush_owed)
		return true;
	if (c->n_waiters == c->cap_waiters) {
		unsigned nc = c->cap_waiters ? 2 * c->cap_waiters : 16;
		struct tcc_waiter *w = realloc(c->waiters, nc * sizeof(*w));

		if (!w) {
			sim_fail(c->ctx->k, -CS_ENOMEM, "%s: out of memory", c->name);
			return true;
		}
		c->waiters = w;
		c->cap_waiters = nc;
	}
	c->waiters[c->n_waiters++] = (struct tcc_waiter){.cb = cb, .arg = arg};
	return false;
}

void apu_tcc_sys_acquire(struct apu_tcc *c)
{
	unsigned cap = mshr_capacity(c->mshr);

	(*c->st.acquire_invalidations)++;
	cache_for_each(c->cache, acquire_one, c);
	for (unsigned i = 0; i < cap; i++) {
		struct mshr_entry *e = mshr_at(c->mshr, i);

		if (e && mshr_user(e)[0] == E_IV)
			mshr_user(e)[2] |= F_DROP;
	}
}

bool apu_tcc_probe(const struct apu_tcc *c, uint64_t addr, uint64_t out[3])
{
	struct cache_line *l = cache_lookup(c->cache, addr & ~63ull);

	if (!l)
		return false;
	out[0] = l->state;
	out[1] = l->meta[1];
	out[2] = 0;
	return true;
}

bool apu_tcc_peek(const struct apu_tcc *c, uint64_t addr, uint8_t *line)
{
	struct cache_line *l = cache_lookup(c->cache, addr & ~63ull);

	if (!l || l->state == TCC_W)
		return false;
	memcpy(line, l->data, 64);
	return true;
}

uint64_t apu_tcc_served(const struct apu_tcc *c)
{
	return *c->st.reads + *c->st.wts + *c->st.atomics_tcc + *c->st.atomics_dir;
}

sim_time_t apu_tcc_period_ps(const struct apu_tcc *c)
{
	return sim_clock_period_ps(&c->ctx->l2_clk);
}

bool apu_tcc_idle(const struct apu_tcc *c)
{
	return !mshr_used(c->mshr) && apu_port_idle(c->port);
}

uint64_t apu_tcc_digest(const struct apu_tcc *c)
{
	return cache_digest(c->cache);
}

struct tlm_initiator_socket *apu_tcc_inject_port(struct apu_tcc *c)
{
	return apu_port_initiator(c->port);
}

struct tlm_target_socket *apu_tcc_deliver_port(struct apu_tcc *c)
{
	return apu_port_target(c->port);
}

/* The stats contract (docs/energy.md, "APU"): reads, write-throughs, atomics here and probes
 * look the tags up, fills write them; a hit, an atomic and a write-back read the data, a
 * fill, a write-through and an atomic write it; a miss and a merge take the MSHRs. */
void apu_tcc_energy(const struct apu_tcc *c, struct energy_counts *out)
{
	const struct tcc_stats *s = &c->st;
	double fills = (double)*s->misses, at = (double)*s->atomics_tcc, wt = (double)*s->wts;

	energy_add(out, EN_L2_TAG, (double)*s->reads + wt + at + (double)*s->probes + fills);
	energy_add(out, EN_L2_DATA_READ, (double)*s->hits + at + (double)*s->writebacks);
	energy_add(out, EN_L2_DATA_WRITE, fills + wt + at);
	energy_add(out, EN_L2_MSHR, fills + (double)*s->merged);
	out->inst[EN_L2] += 1;
}

void apu_tcc_destroy(struct apu_tcc *c)
{
	if (!c)
		return;
	if (c->mshr) {
		unsigned cap = mshr_capacity(c->mshr);

		for (unsigned i = 0; i < cap; i++) {
			struct mshr_entry *e = mshr_at(c->mshr, i);

			for (unsigned j = 0; e && j < mshr_targets(e); j++)
				tlm_payload_release(&((struct tcc_wait *)mshr_target(e, j))->m->p);
		}
	}
	apu_port_destroy(c->port);
	free(c->waiters);
	cache_destroy(c->cache);
	free(c->ready);
	mshr_destroy(c->mshr);
	free(c);
}

static void tcc_stats_register(struct apu_tcc *c, struct cs_stat_group *g)
{
	struct tcc_stats *s = &c->st;

	s->reads = cs_stat_counter(g, "reads", "", "TcpRd served");
	s->hits = cs_stat_counter(g, "hits", "", "TcpRd served by a V line");
	s->misses = cs_stat_counter(g, "misses", "", "RdBlk sent (reads and GLC atomics)");
	s->merged = cs_stat_counter(g, "merged_reads", "", "TcpRd merged into an IV line");
	s->bypass_reads = cs_stat_counter(g, "bypass_reads", "", "SLC reads");
	s->wts = cs_stat_counter(g, "wts", "", "WT sent to the directory");
	s->atomics_tcc = cs_stat_counter(g, "atomics.tcc", "", "GLC atomics performed here");
	s->atomics_dir = cs_stat_counter(g, "atomics.dir", "", "atomics sent to the directory");
	s->parked = cs_stat_counter(g, "parked", "", "requests that waited for a busy line");
	s->held = cs_stat_counter(g, "held", "", "requests left in the network (MSHRs full)");
	s->probes = cs_stat_counter(g, "probes", "", "probes received");
	s->probe_invalidations =
	    cs_stat_counter(g, "probe_invalidations", "", "probes that dropped a V line");
	s->acquire_invalidations =
	    cs_stat_counter(g, "acquire_invalidations", "", "system-scope acquires and launches");
	s->unblocks = cs_stat_counter(g, "unblocks", "", "Unblock sent");
	s->writebacks =
	    cs_stat_counter(g, "writebacks", "", "WB_L2: dirty lines written back by WT");
	s->flushes = cs_stat_counter(g, "flushes", "", "WB_L2: Flush sent at releases");
	s->miss_latency =
	    cs_stat_average(g, "miss_latency", "cycles", "RdBlk to its SysResp, GPU cycles");
}

int apu_tcc_create(const struct gpu_ctx *ctx, unsigned slice, struct cs_stat_group *g,
		   struct apu_tcc **out, struct cs_err *err)
{
	const struct apu_gpu_cfg *cfg = ctx->proto_cfg;
	struct apu_tcc *c;
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!cfg || !cfg->msgs || !cfg->tcc_node || slice >= cfg->tccs) {
		cs_err_set(err, -CS_EINVAL, "tcc%u: no APU wiring (gpu_ctx.proto_cfg)", slice);
		return -CS_EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto fail;
	c->ctx = ctx;
	c->cfg = cfg;
	c->slice = slice;
	c->node = cfg->tcc_node[slice];
	c->wb = cfg->tcc.write == APU_WRITE_BACK;
	snprintf(c->name, sizeof(c->name), "tcc%u", slice);
	{
		struct apu_port_cfg pc = {
		    .name = c->name,
		    .ep = c->node,
		    .clock_mhz = ctx->l2_clk.freq_hz / 1000000,
		    .in_depth = APU_GPU_IN_DEPTH,
		    .per_cycle = APU_GPU_PER_CYCLE,
		};

		rc = apu_port_create(ctx->k, &pc, &tcc_port_ops, c, &c->port);
		if (rc)
			goto fail;
		apu_port_set_lt(c->port, cfg->lt);
	}
	{
		struct cache_geom geom = {
		    .size_bytes = cfg->tcc.size_kib * 1024,
		    .assoc = (unsigned)cfg->tcc.assoc,
		    .line_bytes = 64,
		    .repl = CACHE_REPL_PLRU,
		    /* slices interleave by line (apu_tcc_home) */
		    .index_banks = cfg->tccs,
		    .index_chunk_shift = 6,
		};

		rc = cache_create(&geom, &c->cache);
		if (!rc && !(c->ready = calloc(cache_lines(c->cache), sizeof(*c->ready))))
			rc = -CS_ENOMEM;
		if (rc) {
			cs_err_set(err, rc,
				   "tcc: a %llu KiB %llu-way cache of 64 B lines cannot be built: "
				   "sizes must give a power-of-two number of sets",
				   (unsigned long long)cfg->tcc.size_kib,
				   (unsigned long long)cfg->tcc.assoc);
			apu_tcc_destroy(c);
			return rc;
		}
	}
	rc = mshr_create((unsigned)cfg->tcc.mshrs, (unsigned)cfg->tcc.mshr_merge,
			 sizeof(struct tcc_wait), &c->mshr);
	if (rc)
		goto fail;
	tcc_stats_register(c, g);
	*out = c;
	return 0;
fail:
	cs_err_set(err, rc, "tcc%u: %s", slice, cs_strerror(rc));
	apu_tcc_destroy(c);
	return rc;
}

const struct apu_tcc_ops apu_tcc_ops_viper = {
    .create = apu_tcc_create,
    .destroy = apu_tcc_destroy,
    .inject_port = apu_tcc_inject_port,
    .deliver_port = apu_tcc_deliver_port,
    .sys_acquire = apu_tcc_sys_acquire,
    .release = apu_tcc_release,
    .probe = apu_tcc_probe,
    .idle = apu_tcc_idle,
    .digest = apu_tcc_digest,
};
