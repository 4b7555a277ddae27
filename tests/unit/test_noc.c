/*
 * tests/unit/test_noc.c - the network-on-chip (tlm/noc/noc.[ch]): unloaded latency against the
 * closed form, XY routing, latency under load, back-pressure, traffic counts, determinism, the
 * TLM handshake variants and the LT face.
 *
 * The SMs and L2 banks here are written for the test: an SM sends the messages queued for it
 * one BEGIN_REQ at a time (request exclusion) and answers BEGIN_RESP at once or late; a bank
 * answers BEGIN_REQ in one of the base protocol's ways and sends its responses one at a time
 * (response exclusion). Every binding has the base-protocol checker on.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/msg.h"
#include "tlm/noc/noc.h"
#include "util/error.h"
#include "util/mix.h"
#include "util/params.h"
#include "util/stats.h"

/* ---- test bench ------------------------------------------------------------------------------ */

/* How a bank answers BEGIN_REQ. */
enum bank_mode {
	BANK_UPDATED = 0, /* TLM_UPDATED / END_REQ, the response follows later */
	BANK_LATE,	  /* TLM_ACCEPTED; END_REQ once refuse_until has passed (+ hold) */
	BANK_COMPLETED,	  /* TLM_COMPLETED: answered on the return path */
	BANK_RESP_NOW,	  /* TLM_UPDATED / BEGIN_RESP when its response channel is free */
};

/* How an SM answers BEGIN_RESP. */
enum sm_mode {
	SM_COMPLETED = 0, /* TLM_COMPLETED */
	SM_UPDATED,	  /* TLM_UPDATED / END_RESP */
	SM_LATE,	  /* TLM_ACCEPTED, END_RESP hold ps later */
};

static const char *const type_names[] = {"read", "write", "atomic", "data", "ack", "atomic_ack"};
#define N_TYPES 6u

struct rec {
	struct mem_msg *m;
	sim_time_t gen, req_sent, req_deliv, resp_sent, resp_deliv;
	unsigned n_req_deliv, n_resp_deliv;
	bool sent;
	uint16_t sm, bank, req_bytes, resp_bytes;
	uint8_t type, resp_type;
};

struct ring {
	unsigned *v;
	unsigned h, n, cap;
};

struct tb;

struct t_sm {
	struct tlm_initiator_socket is;
	struct tb *tb;
	unsigned idx;
	struct ring q;	 /* records to send */
	bool req_open;	 /* BEGIN_REQ sent, END_REQ not yet */
	bool pump_sched; /* a pump callback is pending */
	unsigned mode;
	sim_time_t hold;
	struct tlm_payload *resp_open; /* BEGIN_RESP taken late, END_RESP pending */
	unsigned stalls;	       /* BEGIN_REQ answered TLM_ACCEPTED */
	/* traffic generator */
	uint64_t rng;
	uint64_t next_gen; /* cycle */
	char name[32];
};

struct t_bank {
	struct tlm_target_socket ts;
	struct tb *tb;
	unsigned idx;
	unsigned mode;
	sim_time_t refuse_until, hold;
	struct tlm_payload *req_open; /* accepted late: END_REQ pending */
	struct ring rq;		      /* records waiting for their response */
	struct tlm_payload *resp_open;
	bool pump_sched;
	unsigned resp_stalls; /* BEGIN_RESP answered TLM_ACCEPTED */
	sim_time_t last_deliv;
	uint64_t last_cycle;
	unsigned deliveries;
	bool spacing_ok; /* successive deliveries at least the later packet's flits apart */
	char name[32];
};

struct tb {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct cs_stats *stats;
	struct noc *noc;
	struct noc_cfg cfg;
	unsigned n_req, n_mem;
	struct t_sm *sm;
	struct t_bank *bank;
	struct rec *rec;
	unsigned n_rec, cap_rec;
	sim_time_t resp_align; /* a bank answers at the next multiple of this (0: at once) */
	/* generator: Bernoulli per NoC cycle with probability lambda, until gen_end (cycle) */
	double lambda;
	uint64_t gen_end;
	unsigned gen_req_bytes, gen_resp_bytes;
	uint64_t gen_seed;
	bool sequential_bank_check; /* flits/cycle limit per ejection port */
};

static void ring_push(struct ring *r, unsigned v)
{
	if (r->n == r->cap) {
		unsigned ncap = r->cap ? r->cap * 2 : 16;
		unsigned *nv = malloc(ncap * sizeof(*nv));

		if (!nv)
			ck_abort_msg("out of memory");
		for (unsigned i = 0; i < r->n; i++)
			nv[i] = r->v[(r->h + i) % r->cap];
		free(r->v);
		r->v = nv;
		r->h = 0;
		r->cap = ncap;
	}
	r->v[(r->h + r->n) % r->cap] = v;
	r->n++;
}

static unsigned ring_pop(struct ring *r)
{
	unsigned v = r->v[r->h];

	r->h = (r->h + 1) % r->cap;
	r->n--;
	return v;
}

static unsigned ring_peek(const struct ring *r)
{
	return r->v[r->h];
}

static uint64_t splitmix(uint64_t *s)
{
	return cs_splitmix64(s);
}

static double unif(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) / 9007199254740992.0;
}

static const struct sim_clock *clk(struct tb *tb)
{
	return noc_clock(tb->noc);
}

static uint64_t cycle_of(struct tb *tb, sim_time_t t)
{
	return sim_clock_cycle(clk(tb), t);
}

static unsigned flits(const struct noc_cfg *c, unsigned payload)
{
	unsigned f = (unsigned)((c->header_bytes + payload + c->flit_bytes - 1) / c->flit_bytes);

	return f ? f : 1;
}

/* ---- SM -------------------------------------------------------------------------------------- */

static void sm_pump(struct t_sm *sm);

static void sm_pump_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct t_sm *sm = obj;

	(void)k;
	(void)arg;
	sm->pump_sched = false;
	sm_pump(sm);
}

static void sm_pump_later(struct t_sm *sm)
{
	if (!sm->pump_sched) {
		sm->pump_sched = true;
		sim_schedule(sm->tb->k, 0, sm_pump_cb, sm, NULL);
	}
}

static void sm_pump(struct t_sm *sm)
{
	struct tb *tb = sm->tb;

	while (!sm->req_open && sm->q.n) {
		struct rec *r = &tb->rec[ring_pop(&sm->q)];
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t d = 0;
		enum tlm_sync_enum s;

		r->req_sent = sim_now(tb->k);
		r->sent = true;
		sm->req_open = true;
		s = tlm_nb_transport_fw(&sm->is, &r->m->p, &ph, &d);
		if (s == TLM_UPDATED && ph == TLM_END_REQ) {
			sm->req_open = false;
		} else if (s == TLM_ACCEPTED) {
			sm->stalls++;
		} else {
			ck_abort_msg("%s: BEGIN_REQ answered %d/%s", sm->name, s,
				     tlm_phase_name(ph));
		}
	}
}

static void sm_end_resp_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct t_sm *sm = obj;
	struct tlm_payload *p = arg;
	enum tlm_phase ph = TLM_END_RESP;
	sim_time_t d = 0;

	(void)k;
	sm->resp_open = NULL;
	tlm_nb_transport_fw(&sm->is, p, &ph, &d);
	tlm_payload_release(p);
}

static enum tlm_sync_enum sm_nb_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				   sim_time_t *d)
{
	struct t_sm *sm = obj;
	struct tb *tb = sm->tb;
	struct mem_msg *m = mem_msg_of(p);
	struct rec *r = &tb->rec[m->txn];

	(void)d;
	if (*ph == TLM_END_REQ) {
		sm->req_open = false;
		sm_pump_later(sm);
		return TLM_ACCEPTED;
	}
	if (*ph != TLM_BEGIN_RESP)
		ck_abort_msg("%s: unexpected %s", sm->name, tlm_phase_name(*ph));
	if (m->src != sm->idx || sm->resp_open)
		ck_abort_msg("%s: response for SM %u or response exclusion broken", sm->name,
			     m->src);
	r->resp_deliv = sim_now(tb->k);
	r->n_resp_deliv++;
	switch (sm->mode) {
	case SM_COMPLETED:
		tlm_payload_release(p);
		return TLM_COMPLETED;
	case SM_UPDATED:
		tlm_payload_release(p);
		*ph = TLM_END_RESP;
		return TLM_UPDATED;
	default:
		sm->resp_open = p;
		sim_schedule(tb->k, sm->hold, sm_end_resp_cb, sm, p);
		return TLM_ACCEPTED;
	}
}

static const struct tlm_bw_ops sm_bw_ops = {.nb_transport_bw = sm_nb_bw};

/* ---- bank ------------------------------------------------------------------------------------ */

static void bank_pump(struct t_bank *b);

static void bank_pump_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct t_bank *b = obj;

	(void)k;
	(void)arg;
	b->pump_sched = false;
	bank_pump(b);
}

static sim_time_t resp_time(struct tb *tb, sim_time_t t)
{
	if (!tb->resp_align)
		return t;
	return (t / tb->resp_align + 1) * tb->resp_align;
}

static void fill_resp(struct rec *r)
{
	r->m->resp_type = r->resp_type;
	r->m->resp_bytes = r->resp_bytes;
	r->m->p.status = TLM_OK_RESPONSE;
}

static void bank_pump(struct t_bank *b)
{
	struct tb *tb = b->tb;

	while (!b->resp_open && b->rq.n) {
		struct rec *r = &tb->rec[ring_peek(&b->rq)];
		sim_time_t due = resp_time(tb, r->req_deliv);
		enum tlm_phase ph = TLM_BEGIN_RESP;
		sim_time_t d = 0;
		enum tlm_sync_enum s;

		if (due > sim_now(tb->k)) {
			if (!b->pump_sched) {
				b->pump_sched = true;
				sim_schedule_at(tb->k, due, SIM_PRIO_DEFAULT, bank_pump_cb, b,
						NULL);
			}
			return;
		}
		ring_pop(&b->rq);
		fill_resp(r);
		r->resp_sent = sim_now(tb->k);
		b->resp_open = &r->m->p;
		s = tlm_nb_transport_bw(&b->ts, &r->m->p, &ph, &d);
		if (s == TLM_UPDATED && ph == TLM_END_RESP)
			b->resp_open = NULL;
		else if (s == TLM_ACCEPTED)
			b->resp_stalls++;
		else
			ck_abort_msg("%s: BEGIN_RESP answered %d/%s", b->name, s,
				     tlm_phase_name(ph));
	}
}

static void bank_pump_later(struct t_bank *b)
{
	if (!b->pump_sched) {
		b->pump_sched = true;
		sim_schedule(b->tb->k, 0, bank_pump_cb, b, NULL);
	}
}

static void bank_end_req_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct t_bank *b = obj;
	struct tlm_payload *p = arg;
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t d = 0;

	(void)k;
	b->req_open = NULL;
	tlm_nb_transport_bw(&b->ts, p, &ph, &d);
	ring_push(&b->rq, mem_msg_of(p)->txn);
	bank_pump_later(b);
}

static enum tlm_sync_enum bank_nb_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				     sim_time_t *d)
{
	struct t_bank *b = obj;
	struct tb *tb = b->tb;
	struct mem_msg *m = mem_msg_of(p);
	struct rec *r = &tb->rec[m->txn];
	sim_time_t now = sim_now(tb->k);
	uint64_t c = cycle_of(tb, now);

	(void)d;
	if (*ph == TLM_END_RESP) {
		if (b->resp_open != p)
			ck_abort_msg("%s: END_RESP for a response not open", b->name);
		b->resp_open = NULL;
		bank_pump_later(b);
		return TLM_COMPLETED;
	}
	if (*ph != TLM_BEGIN_REQ)
		ck_abort_msg("%s: unexpected %s", b->name, tlm_phase_name(*ph));
	if (m->dst != b->idx || b->req_open)
		ck_abort_msg("%s: request for bank %u or request exclusion broken", b->name,
			     m->dst);
	/* one flit per cycle on the ejection link: deliveries are >= F cycles apart */
	if (b->deliveries && c - b->last_cycle < flits(&tb->cfg, r->req_bytes))
		b->spacing_ok = false;
	b->deliveries++;
	b->last_cycle = c;
	b->last_deliv = now;
	r->req_deliv = now;
	r->n_req_deliv++;
	switch (b->mode) {
	case BANK_LATE:
		if (now < b->refuse_until || b->hold) {
			sim_time_t at = now < b->refuse_until ? b->refuse_until : now;

			b->req_open = p;
			sim_schedule_at(tb->k, at + b->hold, SIM_PRIO_DEFAULT, bank_end_req_cb, b,
					p);
			return TLM_ACCEPTED;
		}
		break;
	case BANK_COMPLETED:
		fill_resp(r);
		r->resp_sent = now;
		return TLM_COMPLETED;
	case BANK_RESP_NOW:
		if (!b->resp_open && !b->rq.n) {
			fill_resp(r);
			r->resp_sent = now;
			b->resp_open = p;
			*ph = TLM_BEGIN_RESP;
			return TLM_UPDATED;
		}
		break;
	default:
		break;
	}
	ring_push(&b->rq, m->txn);
	bank_pump_later(b);
	*ph = TLM_END_REQ;
	return TLM_UPDATED;
}

static void bank_b_transport(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct t_bank *b = obj;
	struct rec *r = &b->tb->rec[mem_msg_of(p)->txn];

	r->n_req_deliv++;
	fill_resp(r);
	*delay += 10 * SIM_NS;
}

static unsigned bank_dbg(void *obj, struct tlm_payload *p)
{
	(void)obj;
	return p->len;
}

static const struct tlm_fw_ops bank_fw_ops = {
    .b_transport = bank_b_transport,
    .nb_transport_fw = bank_nb_fw,
    .transport_dbg = bank_dbg,
};

/* ---- set-up ---------------------------------------------------------------------------------- */

static void default_cfg(struct noc_cfg *c)
{
	struct cs_err err;

	ck_assert_int_eq(cs_params_defaults(&noc_params, c, &err), 0);
}

static void tb_init_q(struct tb *tb, const struct noc_cfg *cfg, unsigned n_req, unsigned n_mem,
		      enum sim_queue_kind qk)
{
	struct sim_kernel_opts o = {.queue = qk};
	struct cs_err err;
	int rc;

	memset(tb, 0, sizeof(*tb));
	tb->cfg = *cfg;
	tb->n_req = n_req;
	tb->n_mem = n_mem;
	ck_assert_int_eq(sim_kernel_create(&o, &tb->k), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &tb->pool), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	rc = noc_create(tb->k, cfg, n_req, n_mem, type_names, N_TYPES,
			cs_stat_group(cs_stats_root(tb->stats), "noc"), &tb->noc, &err);
	if (rc)
		ck_abort_msg("noc_create: %s", err.msg);
	ck_assert_int_eq(cs_stats_error(tb->stats, &err), 0);
	tb->sm = calloc(n_req, sizeof(*tb->sm));
	tb->bank = calloc(n_mem, sizeof(*tb->bank));
	ck_assert_ptr_nonnull(tb->sm);
	ck_assert_ptr_nonnull(tb->bank);
	for (unsigned i = 0; i < n_req; i++) {
		struct t_sm *sm = &tb->sm[i];

		sm->tb = tb;
		sm->idx = i;
		sm->rng = 0x1234 + i;
		snprintf(sm->name, sizeof(sm->name), "sm%u", i);
		tlm_initiator_init(&sm->is, sm->name, &sm_bw_ops, sm);
		ck_assert_int_eq(tlm_bind(&sm->is, noc_req_port(tb->noc, i)), 0);
		ck_assert_int_eq(tlm_checker_attach(&sm->is, tb->k), 0);
	}
	for (unsigned j = 0; j < n_mem; j++) {
		struct t_bank *b = &tb->bank[j];

		b->tb = tb;
		b->idx = j;
		b->spacing_ok = true;
		snprintf(b->name, sizeof(b->name), "bank%u", j);
		tlm_target_init(&b->ts, b->name, &bank_fw_ops, b);
		ck_assert_int_eq(tlm_bind(noc_mem_port(tb->noc, j), &b->ts), 0);
		ck_assert_int_eq(tlm_checker_attach(noc_mem_port(tb->noc, j), tb->k), 0);
	}
}

static void tb_init(struct tb *tb, const struct noc_cfg *cfg, unsigned n_req, unsigned n_mem)
{
	tb_init_q(tb, cfg, n_req, n_mem, SIM_QUEUE_WHEEL);
}

/* Every binding: no violation, nothing left open; no payload leaked; the NoC empty. */
static void tb_check_clean(struct tb *tb)
{
	for (unsigned i = 0; i < tb->n_req; i++) {
		ck_assert_uint_eq(tlm_checker_violations(&tb->sm[i].is), 0);
		ck_assert_uint_eq(tlm_checker_in_flight(&tb->sm[i].is), 0);
	}
	for (unsigned j = 0; j < tb->n_mem; j++) {
		ck_assert_uint_eq(tlm_checker_violations(noc_mem_port(tb->noc, j)), 0);
		ck_assert_uint_eq(tlm_checker_in_flight(noc_mem_port(tb->noc, j)), 0);
	}
	ck_assert_uint_eq(noc_in_flight(tb->noc), 0);
	ck_assert_uint_eq(tlm_pool_live(tb->pool), 0);
}

static void tb_fini(struct tb *tb)
{
	for (unsigned i = 0; i < tb->n_req; i++) {
		tlm_checker_detach(&tb->sm[i].is);
		free(tb->sm[i].q.v);
	}
	for (unsigned j = 0; j < tb->n_mem; j++) {
		tlm_checker_detach(noc_mem_port(tb->noc, j));
		free(tb->bank[j].rq.v);
	}
	sim_kernel_destroy(tb->k);
	noc_destroy(tb->noc);
	tlm_pool_destroy(tb->pool);
	cs_stats_destroy(tb->stats);
	free(tb->sm);
	free(tb->bank);
	free(tb->rec);
}

/* A new record (and message) from SM sm to bank, queued at the SM now. */
static unsigned tb_msg(struct tb *tb, unsigned sm, unsigned bank, unsigned type, unsigned req_bytes,
		       unsigned resp_type, unsigned resp_bytes)
{
	struct rec *r;
	struct mem_msg *m;

	if (tb->n_rec == tb->cap_rec) {
		tb->cap_rec = tb->cap_rec ? tb->cap_rec * 2 : 256;
		tb->rec = realloc(tb->rec, tb->cap_rec * sizeof(*tb->rec));
		if (!tb->rec)
			ck_abort_msg("out of memory");
	}
	r = &tb->rec[tb->n_rec];
	memset(r, 0, sizeof(*r));
	m = mem_msg_of(tlm_payload_alloc(tb->pool));
	m->src = (uint16_t)sm;
	m->dst = (uint16_t)bank;
	m->type = (uint8_t)type;
	m->req_bytes = (uint16_t)req_bytes;
	m->txn = tb->n_rec;
	m->p.len = req_bytes;
	r->m = m;
	r->gen = sim_now(tb->k);
	r->sm = (uint16_t)sm;
	r->bank = (uint16_t)bank;
	r->type = (uint8_t)type;
	r->req_bytes = (uint16_t)req_bytes;
	r->resp_type = (uint8_t)resp_type;
	r->resp_bytes = (uint16_t)resp_bytes;
	return tb->n_rec++;
}

static void tb_send(struct tb *tb, unsigned rec)
{
	struct t_sm *sm = &tb->sm[tb->rec[rec].sm];

	ring_push(&sm->q, rec);
	sm_pump(sm);
}

static double stat(struct tb *tb, const char *name)
{
	double v = -1;

	if (cs_stats_value(tb->stats, name, &v))
		ck_abort_msg("no stat %s", name);
	return v;
}

static void run(struct tb *tb)
{
	int rc = sim_run(tb->k);

	if (rc)
		ck_abort_msg("sim_run: %d %s", rc, sim_failure(tb->k) ? sim_failure(tb->k) : "");
}

static void every_delivered_once(struct tb *tb)
{
	for (unsigned i = 0; i < tb->n_rec; i++) {
		const struct rec *r = &tb->rec[i];

		if (r->n_req_deliv != 1 || r->n_resp_deliv != 1)
			ck_abort_msg("message %u (sm%u -> bank%u) delivered %u / %u times", i,
				     r->sm, r->bank, r->n_req_deliv, r->n_resp_deliv);
	}
}

/* ---- the placement documented in noc.h, written again here ----------------------------------- */

static void doc_place(unsigned n_req, unsigned n_mem, unsigned mesh_cols, unsigned *cols,
		      unsigned *pos_sm, unsigned *pos_mem)
{
	unsigned total = n_req + n_mem, c = mesh_cols, s = 0, j = 0;

	if (!c)
		while (c * c < total)
			c++;
	*cols = c;
	for (unsigned p = 0; p < total; p++) {
		if (j < n_mem && p == (2 * j + 1) * total / (2 * n_mem))
			pos_mem[j++] = p;
		else
			pos_sm[s++] = p;
	}
}

static unsigned manhattan(unsigned cols, unsigned a, unsigned b)
{
	int dx = (int)(a % cols) - (int)(b % cols), dy = (int)(a / cols) - (int)(b / cols);

	return (unsigned)(abs(dx) + abs(dy));
}

/* ---- unloaded latency ------------------------------------------------------------------------ */

struct lat_case {
	unsigned topology, router, link, flit, header;
};

static const struct lat_case lat_cases[] = {
    {NOC_CROSSBAR, 2, 1, 32, 8}, {NOC_MESH, 2, 1, 32, 8}, {NOC_CROSSBAR, 3, 2, 16, 4},
    {NOC_MESH, 3, 2, 16, 4},	 {NOC_MESH, 1, 3, 8, 0},
};

/* One message at a time on an idle network, one per microsecond (1400 NoC cycles exactly:
 * every offer on an exact edge; a bank answers at the next whole microsecond): SM i to bank j
 * for every pair with (i + j) % stride == 0, a 0 B request with a 128 B response and the other
 * way round. */
static void send_pairs(struct tb *tb, unsigned stride)
{
	static const unsigned payloads[] = {0, 128};
	const sim_time_t slot = SIM_US;

	tb->resp_align = slot;
	for (unsigned i = 0; i < tb->n_req; i++)
		for (unsigned j = 0; j < tb->n_mem; j++)
			for (unsigned a = 0; a < 2 && (i + j) % stride == 0; a++) {
				unsigned r = tb_msg(tb, i, j, 0, payloads[a], 3, payloads[1 - a]);

				ck_assert_int_eq(
				    sim_run_until(tb->k, (sim_time_t)(2 * r + 1) * slot), 0);
				tb_send(tb, r);
			}
}

/* Runs what send_pairs sent; each message took exactly the closed form and the hand formula
 * (hops + 1) (R + L) + F - 1, with hops the Manhattan distance between the positions given
 * (mesh) or 0, and nothing queued. */
static void check_pairs(struct tb *tb, const struct noc_cfg *cfg, unsigned cols,
			const unsigned *pos_sm, const unsigned *pos_mem)
{
	uint64_t rl = cfg->router_latency + cfg->link_latency;

	run(tb);
	every_delivered_once(tb);
	for (unsigned r = 0; r < tb->n_rec; r++) {
		const struct rec *x = &tb->rec[r];
		unsigned hops = cfg->topology == NOC_MESH
				    ? manhattan(cols, pos_sm[x->sm], pos_mem[x->bank])
				    : 0;
		uint64_t creq = (hops + 1) * rl + flits(cfg, x->req_bytes) - 1;
		uint64_t cresp = (hops + 1) * rl + flits(cfg, x->resp_bytes) - 1;
		sim_time_t req = x->req_deliv - x->req_sent, resp = x->resp_deliv - x->resp_sent;

		ck_assert_uint_eq(noc_hops(tb->noc, x->sm, x->bank), hops);
		ck_assert_uint_eq(x->resp_sent % SIM_US, 0);
		if (req != noc_unloaded_ps(tb->noc, x->sm, x->bank, x->req_bytes, false) ||
		    req != sim_clock_edge(clk(tb), creq) ||
		    resp != noc_unloaded_ps(tb->noc, x->sm, x->bank, x->resp_bytes, true) ||
		    resp != sim_clock_edge(clk(tb), cresp))
			ck_abort_msg("sm%u -> bank%u (%u hops), %u B / %u B: request %llu ps "
				     "(closed form %llu, hand %llu), response %llu ps (%llu, %llu)",
				     x->sm, x->bank, hops, x->req_bytes, x->resp_bytes,
				     (unsigned long long)req,
				     (unsigned long long)noc_unloaded_ps(tb->noc, x->sm, x->bank,
									 x->req_bytes, false),
				     (unsigned long long)sim_clock_edge(clk(tb), creq),
				     (unsigned long long)resp,
				     (unsigned long long)noc_unloaded_ps(tb->noc, x->sm, x->bank,
									 x->resp_bytes, true),
				     (unsigned long long)sim_clock_edge(clk(tb), cresp));
	}
	/* on an idle network nothing queues */
	ck_assert_double_eq(stat(tb, "noc.req.queueing"), 0);
	ck_assert_double_eq(stat(tb, "noc.resp.queueing"), 0);
	tb_check_clean(tb);
}

START_TEST(test_unloaded_latency)
{
	const struct lat_case *lc = &lat_cases[_i];
	const unsigned n_req = 15, n_mem = 6;
	unsigned cols, pos_sm[15], pos_mem[6];
	struct noc_cfg cfg;
	struct tb tb;

	default_cfg(&cfg);
	cfg.topology = lc->topology;
	cfg.router_latency = lc->router;
	cfg.link_latency = lc->link;
	cfg.flit_bytes = lc->flit;
	cfg.header_bytes = lc->header;
	cfg.buffer_flits = (lc->header + 128 + lc->flit - 1) / lc->flit;
	tb_init(&tb, &cfg, n_req, n_mem);
	doc_place(n_req, n_mem, 0, &cols, pos_sm, pos_mem);
	send_pairs(&tb, 1);
	check_pairs(&tb, &cfg, cols, pos_sm, pos_mem);
	tb_fini(&tb);
}
END_TEST

/* An offer at an edge off the whole-ps grid: delivered exactly at edge(c0 + cycles). Clocks
 * whose edges repeat every 7, 617 and 4099 cycles (the last beyond the NoC's edge table). */
static const uint64_t edge_clocks[] = {1400, 1234, 4099};

START_TEST(test_unloaded_latency_any_edge)
{
	struct noc_cfg cfg;
	struct tb tb;

	default_cfg(&cfg);
	cfg.clock_mhz = edge_clocks[_i];
	tb_init(&tb, &cfg, 15, 6);
	for (unsigned i = 0; i < 40; i++) {
		uint64_t c0 = 5000 * (i + 1) + 1 + i * 37 % 4111;
		unsigned sm = (i * 7) % 15, bank = (i * 5) % 6, pay = i % 2 ? 128 : 0;
		unsigned r = tb_msg(&tb, sm, bank, 1, pay, 4, 0);
		const struct rec *x;

		ck_assert_int_eq(sim_run_until(tb.k, sim_clock_edge(clk(&tb), c0)), 0);
		tb_send(&tb, r);
		run(&tb);
		x = &tb.rec[r];
		ck_assert_uint_eq(x->req_deliv,
				  sim_clock_edge(clk(&tb), c0 + noc_unloaded_cycles(
								    tb.noc, sm, bank, pay, false)));
		/* the bank answers at once, at that edge */
		ck_assert_uint_eq(x->resp_sent, x->req_deliv);
		ck_assert_uint_eq(
		    x->resp_deliv,
		    sim_clock_edge(clk(&tb), cycle_of(&tb, x->resp_sent) +
						 noc_unloaded_cycles(tb.noc, sm, bank, 0, true)));
	}
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* Contention, exactly: a second packet behind the first at the same input port leaves F cycles
 * later (one flit per cycle per port); two packets for one output port at once leave F apart,
 * round-robin. */
START_TEST(test_contention_exact)
{
	struct noc_cfg cfg;
	struct tb tb;
	unsigned a, b, f;
	sim_time_t t0 = SIM_US;

	default_cfg(&cfg);
	cfg.topology = (unsigned)_i;
	tb_init(&tb, &cfg, 15, 6);
	f = flits(&cfg, 128);
	/* same source, two destinations, offered in the same cycle */
	a = tb_msg(&tb, 4, 0, 1, 128, 4, 0);
	b = tb_msg(&tb, 4, 5, 1, 128, 4, 0);
	ck_assert_int_eq(sim_run_until(tb.k, t0), 0);
	ring_push(&tb.sm[4].q, a);
	ring_push(&tb.sm[4].q, b);
	sm_pump(&tb.sm[4]);
	ck_assert_uint_eq(tb.rec[b].req_sent, t0); /* both taken at once (room for 3) */
	run(&tb);
	ck_assert_uint_eq(tb.rec[a].req_deliv - t0, noc_unloaded_ps(tb.noc, 4, 0, 128, false));
	ck_assert_uint_eq(
	    tb.rec[b].req_deliv,
	    sim_clock_edge(clk(&tb),
			   cycle_of(&tb, t0) + noc_unloaded_cycles(tb.noc, 4, 5, 128, false) + f));
	/* crossbar: two sources, one destination, same cycle: one waits the other's F cycles */
	if (cfg.topology == NOC_CROSSBAR) {
		sim_time_t t1 = 2 * SIM_US, la, lb;

		a = tb_msg(&tb, 1, 3, 1, 128, 4, 0);
		b = tb_msg(&tb, 2, 3, 1, 128, 4, 0);
		ck_assert_int_eq(sim_run_until(tb.k, t1), 0);
		tb_send(&tb, a);
		tb_send(&tb, b);
		run(&tb);
		la = tb.rec[a].req_deliv - t1;
		lb = tb.rec[b].req_deliv - t1;
		/* round-robin from input 0: input 1 (SM 1) first */
		ck_assert_uint_eq(la, noc_unloaded_ps(tb.noc, 1, 3, 128, false));
		ck_assert_uint_eq(
		    lb,
		    sim_clock_edge(clk(&tb), noc_unloaded_cycles(tb.noc, 2, 3, 128, false) + f));
	}
	every_delivered_once(&tb);
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* ---- XY routing ------------------------------------------------------------------------------ */

struct grid_case {
	unsigned n_req, n_mem, cols;
};

static const struct grid_case grid_cases[] = {
    {15, 6, 0}, {16, 8, 0}, {10, 3, 7}, {1, 1, 0}, {64, 16, 0}, {5, 5, 3}, {3, 9, 2}, {30, 2, 11},
};

START_TEST(test_mesh_xy_routing)
{
	const struct grid_case *gc = &grid_cases[_i];
	unsigned cols, rows, pos_sm[64], pos_mem[16];
	struct noc_cfg cfg;
	struct tb tb;
	unsigned f = 0;

	default_cfg(&cfg);
	cfg.mesh_cols = gc->cols;
	tb_init(&tb, &cfg, gc->n_req, gc->n_mem);
	doc_place(gc->n_req, gc->n_mem, gc->cols, &cols, pos_sm, pos_mem);
	noc_mesh_dims(tb.noc, &cols, &rows);
	ck_assert_uint_eq(cols, gc->cols ? gc->cols : (unsigned)ceil(sqrt(gc->n_req + gc->n_mem)));
	ck_assert_uint_eq(rows, (gc->n_req + gc->n_mem + cols - 1) / cols);
	for (unsigned i = 0; i < gc->n_req; i++) {
		unsigned x, y;

		noc_node_pos(tb.noc, false, i, &x, &y);
		ck_assert_uint_eq(y * cols + x, pos_sm[i]);
	}
	for (unsigned j = 0; j < gc->n_mem; j++) {
		unsigned x, y;

		noc_node_pos(tb.noc, true, j, &x, &y);
		ck_assert_uint_eq(y * cols + x, pos_mem[j]);
	}
	for (unsigned i = 0; i < gc->n_req; i++)
		for (unsigned j = 0; j < gc->n_mem; j++)
			if (noc_hops(tb.noc, i, j) != manhattan(cols, pos_sm[i], pos_mem[j]))
				ck_abort_msg("sm%u -> bank%u: %u hops, Manhattan %u", i, j,
					     noc_hops(tb.noc, i, j),
					     manhattan(cols, pos_sm[i], pos_mem[j]));
	/* the route itself: one packet from SM 0 to the last bank (request, x first) and back
	 * (response, x first from the bank): exactly the links of the XY path carry its flits */
	{
		unsigned sm = 0, bank = gc->n_mem - 1, a = pos_sm[sm], b = pos_mem[bank];
		unsigned r = tb_msg(&tb, sm, bank, 1, 128, 4, 0);
		double total = 0, expect_total;
		char name[96];

		tb_send(&tb, r);
		run(&tb);
		for (unsigned net = 0; net < 2; net++) {
			unsigned from = net ? b : a, to = net ? a : b, p = from;
			unsigned pay = net ? 0 : 128;

			f = flits(&cfg, pay);
			total = 0;
			/* sum of every router-to-router link of this network */
			for (unsigned q = 0; q < cols * rows; q++)
				for (unsigned d = 0; d < 4; d++) {
					static const char *const dn[] = {"e", "w", "n", "s"};
					double v;

					snprintf(name, sizeof(name), "noc.%s.link.r%u_%s",
						 net ? "resp" : "req", q, dn[d]);
					if (!cs_stats_value(tb.stats, name, &v))
						total += v;
				}
			expect_total = (double)f * manhattan(cols, from, to);
			ck_assert_double_eq(total, expect_total);
			while (p != to) {
				const char *d;
				unsigned nx;

				if (p % cols < to % cols) {
					d = "e";
					nx = p + 1;
				} else if (p % cols > to % cols) {
					d = "w";
					nx = p - 1;
				} else if (p / cols > to / cols) {
					d = "n";
					nx = p - cols;
				} else {
					d = "s";
					nx = p + cols;
				}
				snprintf(name, sizeof(name), "noc.%s.link.r%u_%s",
					 net ? "resp" : "req", p, d);
				ck_assert_double_eq(stat(&tb, name), f);
				p = nx;
			}
		}
		snprintf(name, sizeof(name), "noc.req.link.sm%u_in", sm);
		ck_assert_double_eq(stat(&tb, name), flits(&cfg, 128));
		snprintf(name, sizeof(name), "noc.req.link.bank%u_out", bank);
		ck_assert_double_eq(stat(&tb, name), flits(&cfg, 128));
		snprintf(name, sizeof(name), "noc.resp.link.bank%u_in", bank);
		ck_assert_double_eq(stat(&tb, name), flits(&cfg, 0));
		snprintf(name, sizeof(name), "noc.resp.link.sm%u_out", sm);
		ck_assert_double_eq(stat(&tb, name), flits(&cfg, 0));
	}
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

START_TEST(test_crossbar_hops)
{
	struct noc_cfg cfg;
	struct tb tb;

	default_cfg(&cfg);
	cfg.topology = NOC_CROSSBAR;
	tb_init(&tb, &cfg, 15, 6);
	for (unsigned i = 0; i < 15; i++)
		for (unsigned j = 0; j < 6; j++)
			ck_assert_uint_eq(noc_hops(tb.noc, i, j), 0);
	tb_fini(&tb);
}
END_TEST

/* ---- concentration: several endpoints per router --------------------------------------------- */

/* The spread placement documented in noc.h, written again here: the banks (the smaller group)
 * first, bank j at floor((2j + 1) R / (2 n_mem)), then SM i at floor((2i + 1) R / (2 n_req)),
 * or the next router with room when that one holds conc endpoints already. */
static void doc_spread(unsigned n_req, unsigned n_mem, unsigned routers, unsigned conc,
		       unsigned *pos_sm, unsigned *pos_mem)
{
	unsigned *cnt = calloc(routers, sizeof(*cnt));

	ck_assert_ptr_nonnull(cnt);
	for (unsigned k = 0; k < n_req + n_mem; k++) {
		bool bank = k < n_mem;
		unsigned i = bank ? k : k - n_mem, n = bank ? n_mem : n_req;
		unsigned r = (2 * i + 1) * routers / (2 * n);

		while (cnt[r] == conc)
			r = (r + 1) % routers;
		cnt[r]++;
		if (bank)
			pos_mem[i] = r;
		else
			pos_sm[i] = r;
	}
	free(cnt);
}

struct conc_case {
	unsigned n_req, n_mem, cols, rows, conc, router, link;
	unsigned stride; /* SM i talks to the banks j with (i + j) % stride == 0 */
};

static const struct conc_case conc_cases[] = {
    /* 4 x 2 routers, each a bank and two SMs */
    {16, 8, 4, 2, 3, 2, 1, 1},
    /* seed 004's 8 x 16 mesh: SM i at router i, bank j at router 4j + 2 */
    {128, 32, 16, 8, 2, 1, 1, 8},
    /* more endpoints than a router's share: SMs pushed on to the next router with room */
    {13, 5, 3, 2, 3, 3, 2, 1},
};

/* Zero-load latency of a concentrated mesh, every pair of a case, both networks: exactly
 * (hops + 1) (R + L) + F - 1 with hops from the documented placement (0 on a shared router). */
START_TEST(test_concentrated_latency)
{
	const struct conc_case *cc = &conc_cases[_i];
	unsigned pos_sm[128], pos_mem[32], cols, rows, same = 0;
	struct noc_cfg cfg;
	struct tb tb;

	default_cfg(&cfg);
	cfg.mesh_cols = cc->cols;
	cfg.mesh_rows = cc->rows;
	cfg.concentration = cc->conc;
	cfg.router_latency = cc->router;
	cfg.link_latency = cc->link;
	tb_init(&tb, &cfg, cc->n_req, cc->n_mem);
	noc_mesh_dims(tb.noc, &cols, &rows);
	ck_assert_uint_eq(cols, cc->cols);
	ck_assert_uint_eq(rows, cc->rows);
	doc_spread(cc->n_req, cc->n_mem, cols * rows, cc->conc, pos_sm, pos_mem);
	if (cc->n_req == 128)
		for (unsigned j = 0; j < 32; j++)
			ck_assert_uint_eq(pos_mem[j], 4 * j + 2);
	for (unsigned i = 0; i < cc->n_req + cc->n_mem; i++) {
		bool mem = i >= cc->n_req;
		unsigned idx = mem ? i - cc->n_req : i, x, y;

		noc_node_pos(tb.noc, mem, idx, &x, &y);
		if (y * cols + x != (mem ? pos_mem[idx] : pos_sm[idx]))
			ck_abort_msg("%s%u at router %u, documented %u", mem ? "bank" : "sm", idx,
				     y * cols + x, mem ? pos_mem[idx] : pos_sm[idx]);
		if (cc->n_req == 128 && !mem)
			ck_assert_uint_eq(y * cols + x, i);
	}
	for (unsigned i = 0; i < cc->n_req; i++)
		for (unsigned j = 0; j < cc->n_mem; j++)
			same += (i + j) % cc->stride == 0 && pos_sm[i] == pos_mem[j];
	ck_assert_uint_gt(same, 0); /* some pairs share a router: 0 hops */
	send_pairs(&tb, cc->stride);
	check_pairs(&tb, &cfg, cols, pos_sm, pos_mem);
	tb_fini(&tb);
}
END_TEST

/* Two SMs on one router (conc_cases[0]: router 0 holds bank 0, SM 0 and SM 1). Each has its own
 * injection port, so SM 0 -> bank 0 (on the same router) and SM 1 -> bank 1 (east) offered in
 * one cycle both take the unloaded latency; SM 0 and SM 1 -> bank 3 at once contend for the
 * router's east output: round-robin after its last winner (SM 1, towards bank 1) lets SM 0 go
 * first, SM 1 follows its F flits later. */
START_TEST(test_concentrated_contention)
{
	struct noc_cfg cfg;
	struct tb tb;
	unsigned a, b, f, x, y;
	sim_time_t t0 = SIM_US, t1 = 2 * SIM_US;

	default_cfg(&cfg);
	cfg.mesh_cols = 4;
	cfg.mesh_rows = 2;
	cfg.concentration = 3;
	tb_init(&tb, &cfg, 16, 8);
	f = flits(&cfg, 128);
	noc_node_pos(tb.noc, false, 0, &x, &y);
	ck_assert_uint_eq(x + y, 0);
	noc_node_pos(tb.noc, false, 1, &x, &y);
	ck_assert_uint_eq(x + y, 0);
	noc_node_pos(tb.noc, true, 0, &x, &y);
	ck_assert_uint_eq(x + y, 0);
	ck_assert_uint_eq(noc_hops(tb.noc, 0, 0), 0);
	/* own injection ports: no wait */
	a = tb_msg(&tb, 0, 0, 1, 128, 4, 0);
	b = tb_msg(&tb, 1, 1, 1, 128, 4, 0);
	ck_assert_int_eq(sim_run_until(tb.k, t0), 0);
	tb_send(&tb, a);
	tb_send(&tb, b);
	run(&tb);
	ck_assert_uint_eq(tb.rec[a].req_deliv - t0, noc_unloaded_ps(tb.noc, 0, 0, 128, false));
	ck_assert_uint_eq(tb.rec[b].req_deliv - t0, noc_unloaded_ps(tb.noc, 1, 1, 128, false));
	ck_assert_uint_eq(noc_unloaded_cycles(tb.noc, 0, 0, 128, false),
			  cfg.router_latency + cfg.link_latency + f - 1);
	/* one output port: the second waits the first's F cycles */
	a = tb_msg(&tb, 0, 3, 1, 128, 4, 0);
	b = tb_msg(&tb, 1, 3, 1, 128, 4, 0);
	ck_assert_int_eq(sim_run_until(tb.k, t1), 0);
	tb_send(&tb, a);
	tb_send(&tb, b);
	run(&tb);
	ck_assert_uint_eq(tb.rec[a].req_deliv - t1, noc_unloaded_ps(tb.noc, 0, 3, 128, false));
	ck_assert_uint_eq(
	    tb.rec[b].req_deliv - t1,
	    sim_clock_edge(clk(&tb), noc_unloaded_cycles(tb.noc, 1, 3, 128, false) + f));
	ck_assert_double_eq(stat(&tb, "noc.req.link.r0_e"), 3 * f); /* with SM 1 -> bank 1 */
	ck_assert_double_eq(stat(&tb, "noc.req.link.sm0_in"), 2 * f);
	ck_assert_double_eq(stat(&tb, "noc.req.link.bank0_out"), f);
	every_delivered_once(&tb);
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* Bad placements are refused with a message naming the router, where it is and who is on it;
 * endpoints that cannot fit the given mesh with a message naming the keys. */
START_TEST(test_concentrated_bad_placement)
{
	static const char *const tn[1] = {"m"};
	const unsigned pos[6] = {0, 5, 5, 2, 5, 1};
	struct noc_cfg cfg;
	struct cs_err err;
	struct sim_kernel *k;
	struct cs_stats *s;
	struct noc *n = NULL;

	ck_assert_int_eq(sim_kernel_create(NULL, &k), 0);
	ck_assert_int_eq(cs_stats_create(&s), 0);
	default_cfg(&cfg);
	cfg.mesh_cols = 3;
	cfg.mesh_rows = 2;
	cfg.concentration = 2;
	/* three endpoints on router 5 (x 2, y 1), two allowed */
	ck_assert_int_eq(
	    noc_net_create(k, &cfg, 6, 1, pos, NULL, tn, 1, cs_stats_root(s), &n, &err),
	    -CS_EINVAL);
	ck_assert_ptr_null(n);
	ck_assert_str_eq(err.msg, "noc: router 5 (x 2, y 1) holds 3 endpoints (ep1, ep2, ep4), "
				  "more than noc.concentration (2)");
	/* with concentration 3 it is a good placement */
	cfg.concentration = 3;
	ck_assert_int_eq(
	    noc_net_create(k, &cfg, 6, 1, pos, NULL, tn, 1, cs_stats_root(s), &n, &err), 0);
	ck_assert_uint_eq(noc_ep_hops(n, 1, 4), 0);
	ck_assert_uint_eq(noc_ep_hops(n, 0, 5), 1);
	noc_destroy(n);
	/* a router beyond the given rows */
	{
		const unsigned far[2] = {0, 6};

		ck_assert_int_eq(noc_net_create(k, &cfg, 2, 1, far, NULL, tn, 1,
						cs_stat_group(cs_stats_root(s), "b"), &n, &err),
				 -CS_EINVAL);
		ck_assert_str_eq(err.msg, "noc: ep1 at router 6 is outside the mesh of 3 x 2 "
					  "routers");
	}
	/* 16 SMs and 8 banks on 3 x 2 routers of 3: 24 > 18 */
	ck_assert_int_eq(
	    noc_create(k, &cfg, 16, 8, NULL, 1, cs_stat_group(cs_stats_root(s), "c"), &n, &err),
	    -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "noc: 24 endpoints do not fit a mesh of 3 x 2 routers holding "
				  "noc.concentration (3) each");
	/* the same with concentration 1 (the packed placement, checked when the mesh is built) */
	cfg.concentration = 1;
	ck_assert_int_eq(
	    noc_create(k, &cfg, 16, 8, NULL, 1, cs_stat_group(cs_stats_root(s), "d"), &n, &err),
	    -CS_ECONFIG);
	ck_assert_str_eq(err.msg, "noc: 24 endpoints do not fit a mesh of 3 x 2 routers holding "
				  "noc.concentration (1) each");
	cfg.concentration = 3;
	{
		const struct noc_group g = {.first = 0, .count = 19};
		unsigned out[19];

		ck_assert_int_eq(noc_spread_place(&cfg, 19, &g, 1, out, &err), -CS_ECONFIG);
		ck_assert_ptr_nonnull(strstr(err.msg, "noc.concentration (3)"));
	}
	cs_stats_destroy(s);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- uniform random traffic ------------------------------------------------------------------ */

static void gen_cb(struct sim_kernel *k, void *obj, void *arg);

static void gen_next(struct t_sm *sm)
{
	struct tb *tb = sm->tb;
	double u = unif(&sm->rng);
	uint64_t gap = 1 + (uint64_t)floor(log(1.0 - u) / log(1.0 - tb->lambda));

	sm->next_gen += gap;
	if (sm->next_gen < tb->gen_end)
		sim_schedule_at(tb->k, sim_clock_edge(clk(tb), sm->next_gen), SIM_PRIO_DEFAULT,
				gen_cb, sm, NULL);
}

static void gen_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct t_sm *sm = obj;
	struct tb *tb = sm->tb;
	unsigned bank = (unsigned)(splitmix(&sm->rng) % tb->n_mem);

	(void)k;
	(void)arg;
	tb_send(tb, tb_msg(tb, sm->idx, bank, 1, tb->gen_req_bytes, 4, tb->gen_resp_bytes));
	gen_next(sm);
}

static void gen_start(struct tb *tb)
{
	for (unsigned i = 0; i < tb->n_req; i++) {
		tb->sm[i].rng = tb->gen_seed * 1000003u + i;
		tb->sm[i].next_gen = 0;
		gen_next(&tb->sm[i]);
	}
}

struct load_result {
	double offered, delivered; /* flits per cycle per ejection port (request network) */
	double latency;		   /* cycles, generation to delivery at the bank */
	double unloaded;	   /* cycles, mean of the unloaded latencies */
};

/* The networks the load tests run on: 0 crossbar, 1 mesh, 2 mesh of concentration 2 (the 21
 * endpoints on 4 x 3 routers, spread). */
static const char *const load_nets[3] = {"crossbar", "mesh", "concentrated mesh"};

/* Requests of 128 B (5 flits), 0 B responses; offered load as a fraction of the request
 * network's ejection capacity (n_mem ports x 1 flit per cycle). Measures the packets generated
 * in [warm, warm + window). */
static struct load_result load_point(unsigned topology, double load, uint64_t seed,
				     sim_time_t **times, unsigned *n_times)
{
	const unsigned n_req = 15, n_mem = 6, warm = 2000, window = 8000;
	struct load_result res = {0};
	struct noc_cfg cfg;
	struct tb tb;
	double sum = 0, zsum = 0, cnt = 0, fl = 0;
	uint64_t first = UINT64_MAX, last = 0;
	unsigned f;

	default_cfg(&cfg);
	cfg.topology = topology ? NOC_MESH : NOC_CROSSBAR;
	cfg.concentration = topology == 2 ? 2 : 1;
	tb_init(&tb, &cfg, n_req, n_mem);
	f = flits(&cfg, 128);
	tb.gen_req_bytes = 128;
	tb.gen_resp_bytes = 0;
	tb.gen_seed = seed;
	tb.lambda = load * n_mem / ((double)n_req * f);
	tb.gen_end = warm + window;
	gen_start(&tb);
	run(&tb);
	every_delivered_once(&tb);
	for (unsigned j = 0; j < n_mem; j++)
		if (!tb.bank[j].spacing_ok)
			ck_abort_msg("bank%u: two deliveries closer than a packet's flits", j);
	for (unsigned r = 0; r < tb.n_rec; r++) {
		const struct rec *x = &tb.rec[r];
		uint64_t g = cycle_of(&tb, x->gen), d = cycle_of(&tb, x->req_deliv);

		if (g < warm || g >= warm + window)
			continue;
		sum += (double)(d - g);
		zsum += (double)noc_unloaded_cycles(tb.noc, x->sm, x->bank, 128, false);
		cnt++;
		if (d < first)
			first = d;
		if (d > last)
			last = d;
		fl += f;
	}
	res.offered = (double)tb.n_rec * f / (double)(warm + window) / n_mem;
	res.delivered = fl / (double)(last - first + f) / n_mem;
	res.latency = sum / cnt;
	res.unloaded = zsum / cnt;
	if (times) {
		*n_times = tb.n_rec * 2;
		*times = malloc(*n_times * sizeof(**times));
		for (unsigned r = 0; r < tb.n_rec; r++) {
			(*times)[2 * r] = tb.rec[r].req_deliv;
			(*times)[2 * r + 1] = tb.rec[r].resp_deliv;
		}
	}
	tb_check_clean(&tb);
	tb_fini(&tb);
	return res;
}

START_TEST(test_latency_load_curve)
{
	static const double loads[] = {0.10, 0.30, 0.50, 0.70, 0.85, 0.95};
	const unsigned n = sizeof(loads) / sizeof(loads[0]);
	struct load_result r[6];
	unsigned topology = (unsigned)_i;

	for (unsigned i = 0; i < n; i++) {
		r[i] = load_point(topology, loads[i], 11, NULL, NULL);
		/* a port never carries more than one flit per cycle */
		ck_assert_double_le(r[i].delivered, 1.0);
		if (i && r[i].latency < r[i - 1].latency * 0.97)
			ck_abort_msg("%s: latency fell from %.2f to %.2f cycles between loads %.2f "
				     "and %.2f",
				     load_nets[topology], r[i - 1].latency, r[i].latency,
				     loads[i - 1], loads[i]);
	}
	/* light load: close to the unloaded latency; offered load delivered */
	ck_assert_double_ge(r[0].latency, r[0].unloaded);
	ck_assert_double_le(r[0].latency, r[0].unloaded * 1.25);
	ck_assert_double_le(fabs(r[0].offered - loads[0]) / loads[0], 0.1);
	/* heavy load: clearly longer */
	if (r[n - 1].latency < 2 * r[0].latency)
		ck_abort_msg("%s: latency at %.0f%% load %.2f cycles, at %.0f%% only %.2f",
			     load_nets[topology], loads[n - 1] * 100, r[n - 1].latency,
			     loads[0] * 100, r[0].latency);
}
END_TEST

START_TEST(test_determinism)
{
	sim_time_t *a, *b, *c;
	unsigned na, nb, nc;
	unsigned topology = (unsigned)_i;

	load_point(topology, 0.8, 5, &a, &na);
	load_point(topology, 0.8, 5, &b, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(a, b, na * sizeof(*a)), 0);
	/* a different seed gives a different run (the comparison is not vacuous) */
	load_point(topology, 0.8, 6, &c, &nc);
	ck_assert(na != nc || memcmp(a, c, na * sizeof(*a)) != 0);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* The timing wheel and the heap oracle give the same per-packet times. */
START_TEST(test_determinism_queue_kinds)
{
	struct noc_cfg cfg;
	sim_time_t *t[2];
	unsigned n[2];

	default_cfg(&cfg);
	for (unsigned q = 0; q < 2; q++) {
		struct tb tb;

		tb_init_q(&tb, &cfg, 15, 6, q ? SIM_QUEUE_HEAP : SIM_QUEUE_WHEEL);
		tb.gen_req_bytes = 128;
		tb.gen_resp_bytes = 64;
		tb.gen_seed = 3;
		tb.lambda = 0.05;
		tb.gen_end = 3000;
		gen_start(&tb);
		run(&tb);
		every_delivered_once(&tb);
		n[q] = tb.n_rec;
		t[q] = malloc(2 * n[q] * sizeof(sim_time_t));
		for (unsigned r = 0; r < n[q]; r++) {
			t[q][2 * r] = tb.rec[r].req_deliv;
			t[q][2 * r + 1] = tb.rec[r].resp_deliv;
		}
		tb_check_clean(&tb);
		tb_fini(&tb);
	}
	ck_assert_uint_eq(n[0], n[1]);
	ck_assert_int_eq(memcmp(t[0], t[1], 2 * n[0] * sizeof(sim_time_t)), 0);
	free(t[0]);
	free(t[1]);
}
END_TEST

/* ---- back-pressure --------------------------------------------------------------------------- */

START_TEST(test_backpressure_request)
{
	const unsigned n_req = 15, n_mem = 6, per_sm = 40;
	const sim_time_t refuse = 5 * SIM_US;
	unsigned topology = (unsigned)_i;
	struct noc_cfg cfg;
	struct tb tb;
	uint64_t mid, late;
	unsigned stalled = 0;
	sim_time_t last_sent[15] = {0};

	default_cfg(&cfg);
	cfg.topology = topology;
	tb_init(&tb, &cfg, n_req, n_mem);
	tb.bank[0].mode = BANK_LATE;
	tb.bank[0].refuse_until = refuse;
	/* every SM sends everything to bank 0 at once */
	for (unsigned k = 0; k < per_sm; k++)
		for (unsigned i = 0; i < n_req; i++)
			ring_push(&tb.sm[i].q, tb_msg(&tb, i, 0, 1, 128, 4, 0));
	for (unsigned i = 0; i < n_req; i++)
		sm_pump(&tb.sm[i]);
	/* while bank 0 refuses, the network fills and freezes: nothing moves, nothing is lost */
	ck_assert_int_eq(sim_run_until(tb.k, refuse / 2), 0);
	mid = noc_in_flight(tb.noc);
	ck_assert_int_eq(sim_run_until(tb.k, refuse - SIM_NS), 0);
	late = noc_in_flight(tb.noc);
	ck_assert_uint_eq(mid, late);
	ck_assert_uint_gt(late, 0);
	ck_assert_uint_lt(late, n_req * per_sm);
	ck_assert_uint_eq(tb.bank[0].deliveries, 1); /* the one it sits on */
	for (unsigned i = 0; i < n_req; i++)
		if (tb.sm[i].req_open) /* END_REQ withheld */
			stalled++;
	ck_assert_uint_eq(stalled, n_req);
	ck_assert_double_gt(stat(&tb, "noc.req.inject_stalls"), 0);
	/* packets in the network = what the SMs handed over and bank 0 has not taken */
	{
		uint64_t handed = 0;

		for (unsigned r = 0; r < tb.n_rec; r++)
			if (tb.rec[r].sent && !tb.rec[r].n_req_deliv)
				handed++;
		/* each SM has one offer pending (not yet taken); the bank holds one */
		ck_assert_uint_eq(late + n_req, handed + 1);
	}
	run(&tb);
	every_delivered_once(&tb);
	/* per source, delivery in sending order */
	for (unsigned r = 0; r < tb.n_rec; r++) {
		const struct rec *x = &tb.rec[r];

		ck_assert_uint_ge(x->req_deliv, last_sent[x->sm]);
		last_sent[x->sm] = x->req_deliv;
	}
	ck_assert_double_eq(stat(&tb, "noc.req.packets"), n_req * per_sm);
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

static int cmp_time(const void *a, const void *b)
{
	sim_time_t x = *(const sim_time_t *)a, y = *(const sim_time_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(test_backpressure_response)
{
	const unsigned n_req = 4, n_mem = 4, per_sm = 50;
	unsigned topology = (unsigned)_i;
	struct noc_cfg cfg;
	struct tb tb;
	unsigned resp_stalls = 0;

	default_cfg(&cfg);
	cfg.topology = topology;
	tb_init(&tb, &cfg, n_req, n_mem);
	/* SM 0 holds every response 300 ns; the banks keep answering */
	tb.sm[0].mode = SM_LATE;
	tb.sm[0].hold = 300 * SIM_NS;
	for (unsigned i = 1; i < n_req; i++)
		tb.sm[i].mode = i % 2 ? SM_UPDATED : SM_COMPLETED;
	for (unsigned k = 0; k < per_sm; k++)
		for (unsigned i = 0; i < n_req; i++)
			ring_push(&tb.sm[i].q, tb_msg(&tb, i, (i + k) % n_mem, 0, 0, 3, 128));
	for (unsigned i = 0; i < n_req; i++)
		sm_pump(&tb.sm[i]);
	run(&tb);
	every_delivered_once(&tb);
	for (unsigned j = 0; j < n_mem; j++)
		resp_stalls += tb.bank[j].resp_stalls;
	/* the response network filled up to the banks: END_RESP was withheld */
	ck_assert_uint_gt(resp_stalls, 0);
	ck_assert_double_eq(stat(&tb, "noc.resp.inject_stalls"), resp_stalls);
	/* SM 0 took one response per 300 ns */
	{
		sim_time_t t[50];
		unsigned m = 0;

		for (unsigned r = 0; r < tb.n_rec; r++)
			if (tb.rec[r].sm == 0)
				t[m++] = tb.rec[r].resp_deliv;
		ck_assert_uint_eq(m, per_sm);
		qsort(t, m, sizeof(t[0]), cmp_time);
		for (unsigned i = 1; i < m; i++)
			ck_assert_uint_ge(t[i], t[i - 1] + 300 * SIM_NS);
	}
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* A bank that holds every request a while: the NoC delivers the next one only after END_REQ. */
START_TEST(test_backpressure_slow_bank)
{
	struct noc_cfg cfg;
	struct tb tb;
	sim_time_t prev = 0;

	default_cfg(&cfg);
	tb_init(&tb, &cfg, 8, 2);
	tb.bank[1].mode = BANK_LATE;
	tb.bank[1].hold = 50 * SIM_NS;
	for (unsigned k = 0; k < 10; k++)
		for (unsigned i = 0; i < 8; i++)
			ring_push(&tb.sm[i].q, tb_msg(&tb, i, 1, 1, 32, 4, 0));
	for (unsigned i = 0; i < 8; i++)
		sm_pump(&tb.sm[i]);
	run(&tb);
	every_delivered_once(&tb);
	for (unsigned r = 0; r < tb.n_rec; r++)
		if (tb.rec[r].req_deliv > prev)
			prev = tb.rec[r].req_deliv;
	/* 80 requests one per 50 ns at least */
	ck_assert_uint_ge(prev, 79 * 50 * SIM_NS);
	ck_assert_double_gt(stat(&tb, "noc.req.inject_stalls"), 0);
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* ---- counts ---------------------------------------------------------------------------------- */

START_TEST(test_counts_by_class)
{
	/* read: 0 B -> data 128 B; write: 128 B -> ack 0 B; atomic: 16 B -> atomic_ack 8 B */
	static const unsigned req_b[3] = {0, 128, 16}, resp_t[3] = {3, 4, 5},
			      resp_b[3] = {128, 0, 8};
	const unsigned n_req = 12, n_mem = 4;
	uint64_t pk[2][N_TYPES] = {{0}}, fl[2][N_TYPES] = {{0}}, by[2][N_TYPES] = {{0}};
	uint64_t tot_p = 0, tot_f = 0, tot_b = 0;
	unsigned topology = (unsigned)_i;
	struct noc_cfg cfg;
	struct tb tb;
	uint64_t rng = 99;
	char name[96];

	default_cfg(&cfg);
	cfg.topology = topology;
	cfg.header_bytes = 12;
	tb_init(&tb, &cfg, n_req, n_mem);
	for (unsigned k = 0; k < 600; k++) {
		unsigned t = (unsigned)(splitmix(&rng) % 3),
			 sm = (unsigned)(splitmix(&rng) % n_req);
		unsigned bank = (unsigned)(splitmix(&rng) % n_mem);

		ring_push(&tb.sm[sm].q, tb_msg(&tb, sm, bank, t, req_b[t], resp_t[t], resp_b[t]));
		pk[0][t]++;
		fl[0][t] += flits(&cfg, req_b[t]);
		by[0][t] += cfg.header_bytes + req_b[t];
		pk[1][resp_t[t]]++;
		fl[1][resp_t[t]] += flits(&cfg, resp_b[t]);
		by[1][resp_t[t]] += cfg.header_bytes + resp_b[t];
	}
	for (unsigned i = 0; i < n_req; i++)
		sm_pump(&tb.sm[i]);
	run(&tb);
	every_delivered_once(&tb);
	for (unsigned net = 0; net < 2; net++) {
		const char *nn = net ? "resp" : "req";
		uint64_t np = 0, nf = 0, nbytes = 0;
		double links_in = 0, links_out = 0;

		for (unsigned t = 0; t < N_TYPES; t++) {
			snprintf(name, sizeof(name), "noc.%s.%s.packets", nn, type_names[t]);
			ck_assert_double_eq(stat(&tb, name), (double)pk[net][t]);
			snprintf(name, sizeof(name), "noc.%s.%s.flits", nn, type_names[t]);
			ck_assert_double_eq(stat(&tb, name), (double)fl[net][t]);
			snprintf(name, sizeof(name), "noc.%s.%s.bytes", nn, type_names[t]);
			ck_assert_double_eq(stat(&tb, name), (double)by[net][t]);
			np += pk[net][t];
			nf += fl[net][t];
			nbytes += by[net][t];
		}
		snprintf(name, sizeof(name), "noc.%s.packets", nn);
		ck_assert_double_eq(stat(&tb, name), (double)np);
		snprintf(name, sizeof(name), "noc.%s.flits", nn);
		ck_assert_double_eq(stat(&tb, name), (double)nf);
		snprintf(name, sizeof(name), "noc.%s.bytes", nn);
		ck_assert_double_eq(stat(&tb, name), (double)nbytes);
		snprintf(name, sizeof(name), "noc.%s.payload_bytes", nn);
		ck_assert_double_eq(stat(&tb, name), (double)(nbytes - np * cfg.header_bytes));
		/* every flit entered through an injection port and left through an ejection
		 * link */
		for (unsigned i = 0; i < (net ? n_mem : n_req); i++) {
			snprintf(name, sizeof(name), "noc.%s.link.%s%u_in", nn, net ? "bank" : "sm",
				 i);
			links_in += stat(&tb, name);
		}
		for (unsigned i = 0; i < (net ? n_req : n_mem); i++) {
			snprintf(name, sizeof(name), "noc.%s.link.%s%u_out", nn,
				 net ? "sm" : "bank", i);
			links_out += stat(&tb, name);
		}
		ck_assert_double_eq(links_in, (double)nf);
		ck_assert_double_eq(links_out, (double)nf);
		tot_p += np;
		tot_f += nf;
		tot_b += nbytes;
	}
	ck_assert_double_eq(stat(&tb, "noc.packets"), (double)tot_p);
	ck_assert_double_eq(stat(&tb, "noc.flits"), (double)tot_f);
	ck_assert_double_eq(stat(&tb, "noc.bytes"), (double)tot_b);
	ck_assert_double_gt(stat(&tb, "noc.req.latency"), 0);
	ck_assert_double_ge(stat(&tb, "noc.req.queueing"), 0);
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* ---- handshake variants ---------------------------------------------------------------------- */

START_TEST(test_handshake_variants)
{
	const unsigned n_req = 6, n_mem = 4;
	struct noc_cfg cfg;
	struct tb tb;
	uint64_t rng = 5;

	default_cfg(&cfg);
	cfg.topology = (unsigned)(_i & 1);
	tb_init(&tb, &cfg, n_req, n_mem);
	for (unsigned j = 0; j < n_mem; j++)
		tb.bank[j].mode = j; /* UPDATED, LATE, COMPLETED, RESP_NOW */
	tb.bank[1].hold = 7 * SIM_NS;
	for (unsigned i = 0; i < n_req; i++) {
		tb.sm[i].mode = i % 3;
		tb.sm[i].hold = 20 * SIM_NS;
	}
	if (_i & 2) /* off-edge offers and answers */
		tb.resp_align = 3 * SIM_NS + 1;
	for (unsigned k = 0; k < 400; k++) {
		unsigned sm = (unsigned)(splitmix(&rng) % n_req);
		unsigned bank = (unsigned)(splitmix(&rng) % n_mem);

		ring_push(&tb.sm[sm].q,
			  tb_msg(&tb, sm, bank, k % 3, (k * 37) % 129, 3 + k % 3, (k * 53) % 129));
	}
	for (unsigned i = 0; i < n_req; i++)
		sm_pump(&tb.sm[i]);
	run(&tb);
	every_delivered_once(&tb);
	for (unsigned r = 0; r < tb.n_rec; r++) {
		const struct rec *x = &tb.rec[r];

		ck_assert_uint_ge(x->req_deliv - x->req_sent,
				  noc_unloaded_ps(tb.noc, x->sm, x->bank, x->req_bytes, false) - 1);
		ck_assert_uint_ge(x->resp_deliv - x->resp_sent,
				  noc_unloaded_ps(tb.noc, x->sm, x->bank, x->resp_bytes, true) - 1);
	}
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* ---- loosely timed face ---------------------------------------------------------------------- */

START_TEST(test_lt_face)
{
	struct noc_cfg cfg;
	struct tb tb;
	sim_time_t d = 0;
	unsigned r;

	default_cfg(&cfg);
	tb_init(&tb, &cfg, 15, 6);
	r = tb_msg(&tb, 3, 4, 2, 16, 5, 8);
	tlm_b_transport(&tb.sm[3].is, &tb.rec[r].m->p, &d);
	ck_assert_uint_eq(tb.rec[r].n_req_deliv, 1);
	ck_assert_uint_eq(d, noc_unloaded_ps(tb.noc, 3, 4, 16, false) + 10 * SIM_NS +
				 noc_unloaded_ps(tb.noc, 3, 4, 8, true));
	ck_assert_double_eq(stat(&tb, "noc.req.atomic.packets"), 1);
	ck_assert_double_eq(stat(&tb, "noc.req.atomic.flits"), flits(&cfg, 16));
	ck_assert_double_eq(stat(&tb, "noc.resp.atomic_ack.packets"), 1);
	ck_assert_double_eq(stat(&tb, "noc.resp.atomic_ack.bytes"), cfg.header_bytes + 8);
	ck_assert_uint_eq(tlm_transport_dbg(&tb.sm[3].is, &tb.rec[r].m->p), 16);
	tlm_payload_release(&tb.rec[r].m->p);
	tb_check_clean(&tb);
	tb_fini(&tb);
}
END_TEST

/* ---- configuration --------------------------------------------------------------------------- */

START_TEST(test_config)
{
	struct noc_cfg cfg;
	struct cs_err err;
	struct sim_kernel *k;
	struct cs_stats *s;
	struct noc *n = (struct noc *)&cfg;

	default_cfg(&cfg);
	ck_assert_uint_eq(cfg.topology, NOC_MESH);
	ck_assert_uint_eq(cfg.clock_mhz, 1400);
	ck_assert_uint_eq(cfg.flit_bytes, 32);
	ck_assert_uint_eq(cfg.header_bytes, 8);
	ck_assert_uint_eq(cfg.router_latency, 2);
	ck_assert_uint_eq(cfg.link_latency, 1);
	ck_assert_uint_eq(cfg.buffer_flits, 16);
	ck_assert_uint_eq(cfg.mesh_cols, 0);
	ck_assert_str_eq(noc_params.section, "noc");
	ck_assert_int_eq(noc_cfg_check(&cfg, &err), 0);
	/* 8 + 128 B = 5 flits of 32 B: 4 is too few */
	cfg.buffer_flits = 4;
	ck_assert_int_eq(noc_cfg_check(&cfg, &err), -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "noc.buffer_flits"));
	ck_assert_ptr_nonnull(strstr(err.msg, "noc.header_bytes"));
	ck_assert_ptr_nonnull(strstr(err.msg, "noc.flit_bytes"));
	cfg.buffer_flits = 5;
	ck_assert_int_eq(noc_cfg_check(&cfg, &err), 0);
	cfg.buffer_flits = 4;
	ck_assert_int_eq(sim_kernel_create(NULL, &k), 0);
	ck_assert_int_eq(cs_stats_create(&s), 0);
	ck_assert_int_eq(noc_create(k, &cfg, 4, 2, NULL, 1, cs_stats_root(s), &n, &err),
			 -CS_ECONFIG);
	ck_assert_ptr_null(n);
	cfg.buffer_flits = 16;
	ck_assert_int_eq(noc_create(k, &cfg, 0, 2, NULL, 1, cs_stats_root(s), &n, &err),
			 -CS_EINVAL);
	ck_assert_int_eq(noc_create(k, &cfg, 4, 2, NULL, 0, cs_stats_root(s), &n, &err),
			 -CS_EINVAL);
	/* type names default to t0, t1... */
	ck_assert_int_eq(noc_create(k, &cfg, 4, 2, NULL, 2, cs_stats_root(s), &n, &err), 0);
	{
		double v;

		ck_assert_int_eq(cs_stats_value(s, "req.t1.packets", &v), 0);
		ck_assert_int_eq(cs_stats_value(s, "resp.link.sm3_out", &v), 0);
	}
	ck_assert_uint_eq(noc_flits(n, 0), 1);
	ck_assert_uint_eq(noc_flits(n, 24), 1);
	ck_assert_uint_eq(noc_flits(n, 25), 2);
	ck_assert_uint_eq(noc_flits(n, 128), 5);
	ck_assert_ptr_null(noc_req_port(n, 4));
	ck_assert_ptr_null(noc_mem_port(n, 2));
	noc_destroy(n);
	cs_stats_destroy(s);
	sim_kernel_destroy(k);
}
END_TEST

static Suite *noc_suite(void)
{
	Suite *s = suite_create("noc");
	TCase *tc = tcase_create("latency");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_unloaded_latency, 0, sizeof(lat_cases) / sizeof(lat_cases[0]));
	tcase_add_loop_test(tc, test_unloaded_latency_any_edge, 0, 3);
	tcase_add_loop_test(tc, test_contention_exact, 0, 2);
	tcase_add_loop_test(tc, test_mesh_xy_routing, 0,
			    sizeof(grid_cases) / sizeof(grid_cases[0]));
	tcase_add_test(tc, test_crossbar_hops);
	tcase_add_loop_test(tc, test_concentrated_latency, 0,
			    sizeof(conc_cases) / sizeof(conc_cases[0]));
	tcase_add_test(tc, test_concentrated_contention);
	tcase_add_test(tc, test_concentrated_bad_placement);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_latency_load_curve, 0, 3);
	tcase_add_loop_test(tc, test_determinism, 0, 3);
	tcase_add_test(tc, test_determinism_queue_kinds);
	suite_add_tcase(s, tc);

	tc = tcase_create("flow");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_backpressure_request, 0, 2);
	tcase_add_loop_test(tc, test_backpressure_response, 0, 2);
	tcase_add_test(tc, test_backpressure_slow_bank);
	tcase_add_loop_test(tc, test_counts_by_class, 0, 2);
	tcase_add_loop_test(tc, test_handshake_variants, 0, 4);
	tcase_add_test(tc, test_lt_face);
	tcase_add_test(tc, test_config);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(noc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
