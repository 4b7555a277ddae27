/*
 * tests/unit/test_net.c - the generic network (tlm/noc/noc.h, noc_net_create): one-way delivery
 * between any endpoints, unloaded latency against (hops + 1)(R + L) + F - 1 on crossbar, mesh
 * and link, virtual networks that do not block each other (a sink refusing vnet 0 leaves vnet 2
 * flowing through the same ports; with one vnet the same traffic is stuck), the link's rate
 * (one flit per cycle, and the credit loop's bound when the buffer is smaller than the round
 * trip), and conservation under random traffic (every message delivered once, per vnet, in
 * order per source, destination and vnet).
 *
 * The endpoints are written for the test: each has an initiator socket bound to its injection
 * port and a target socket bound from its delivery port. The NoC clock is 1 GHz so every edge is
 * a whole ns and latencies compare exactly.
 */
#include <check.h>
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

#define NS	((sim_time_t)SIM_NS)
#define MAX_EP	32
#define N_TYPES 4u
#define FOREVER UINT64_MAX

/* How an endpoint takes a delivery on a vnet. */
enum take {
	TAKE_UPDATED = 0, /* TLM_UPDATED / END_REQ */
	TAKE_COMPLETED,	  /* TLM_COMPLETED */
	TAKE_LATE,	  /* TLM_ACCEPTED, END_REQ hold ns later */
	TAKE_REFUSE,	  /* TLM_ACCEPTED, END_REQ at release() */
	TAKE_RANDOM,	  /* one of the first three at random */
};

struct rec {
	unsigned src, dst, vnet, bytes;
	sim_time_t sent, deliv;
	unsigned n_deliv;
	bool taken; /* END_REQ received by the sender (or at once) */
};

struct tb;

struct t_ep {
	struct tlm_initiator_socket is;
	struct tlm_target_socket ts;
	struct tb *tb;
	unsigned id;
	unsigned take[NOC_VNET_MAX];
	struct tlm_payload *held[NOC_VNET_MAX];
	sim_time_t hold;
	/* last record delivered per (source, vnet): order check */
	int last[MAX_EP][NOC_VNET_MAX];
	char name[32];
};

struct tb {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct cs_stats *stats;
	struct noc *noc;
	struct noc_cfg cfg;
	unsigned n_ep, n_vnets;
	struct t_ep ep[MAX_EP];
	struct rec *rec;
	unsigned n_rec, cap_rec;
	uint64_t rng;
	bool order_ok, route_ok;
	unsigned late_ends; /* END_REQs owed by late takes still pending */
};

static uint64_t splitmix(uint64_t *s)
{
	return cs_splitmix64(s);
}

/* ---- endpoints ------------------------------------------------------------------------------- */

static enum tlm_sync_enum ep_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph, sim_time_t *d)
{
	struct t_ep *e = obj;
	struct mem_msg *m = mem_msg_of(p);

	(void)d;
	ck_assert_int_eq(*ph, TLM_END_REQ);
	ck_assert(!e->tb->rec[m->txn].taken);
	e->tb->rec[m->txn].taken = true;
	return TLM_ACCEPTED;
}

static const struct tlm_bw_ops ep_bw_ops = {.nb_transport_bw = ep_bw};

static void ev_end_late(struct sim_kernel *k, void *obj, void *arg)
{
	struct t_ep *e = obj;
	struct tlm_payload *p = arg;
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t d = 0;

	(void)k;
	tlm_nb_transport_bw(&e->ts, p, &ph, &d);
	e->tb->late_ends--;
	tlm_payload_release(p);
}

static enum tlm_sync_enum ep_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph, sim_time_t *d)
{
	struct t_ep *e = obj;
	struct tb *tb = e->tb;
	struct mem_msg *m = mem_msg_of(p);
	struct rec *r = &tb->rec[m->txn];
	unsigned take = e->take[m->vnet];

	(void)d;
	ck_assert_int_eq(*ph, TLM_BEGIN_REQ);
	if (m->dst != e->id || m->vnet != r->vnet || m->src != r->src)
		tb->route_ok = false;
	r->n_deliv++;
	r->deliv = sim_now(tb->k);
	if (e->last[r->src][r->vnet] > (int)m->txn)
		tb->order_ok = false;
	e->last[r->src][r->vnet] = (int)m->txn;
	if (take == TAKE_RANDOM)
		take = (unsigned)(splitmix(&tb->rng) % 3);
	switch (take) {
	case TAKE_UPDATED:
		tlm_payload_release(p); /* the network compares the pointer, never reads it */
		*ph = TLM_END_REQ;
		return TLM_UPDATED;
	case TAKE_COMPLETED:
		tlm_payload_release(p);
		return TLM_COMPLETED;
	case TAKE_LATE: {
		sim_time_t hold = e->hold ? e->hold : (sim_time_t)(splitmix(&tb->rng) % 40) * NS;

		tb->late_ends++;
		sim_schedule_at(tb->k, sim_now(tb->k) + hold, SIM_PRIO_DEFAULT, ev_end_late, e, p);
		return TLM_ACCEPTED;
	}
	default:
		ck_assert_ptr_null(e->held[m->vnet]); /* one open delivery per vnet */
		e->held[m->vnet] = p;
		return TLM_ACCEPTED;
	}
}

/* LT face: records the delivery with the delay it came with (in deliv). */
static void ep_b(void *obj, struct tlm_payload *p, sim_time_t *d)
{
	struct t_ep *e = obj;
	struct mem_msg *m = mem_msg_of(p);
	struct rec *r = &e->tb->rec[m->txn];

	if (m->dst != e->id)
		e->tb->route_ok = false;
	r->n_deliv++;
	r->deliv = *d;
}

static const struct tlm_fw_ops ep_fw_ops = {.nb_transport_fw = ep_fw, .b_transport = ep_b};

/* Endpoint e takes its refused deliveries on vnet v from now on. */
static void release(struct tb *tb, unsigned e, unsigned v)
{
	struct t_ep *ep = &tb->ep[e];
	struct tlm_payload *p = ep->held[v];

	ep->take[v] = TAKE_UPDATED;
	if (p) {
		enum tlm_phase ph = TLM_END_REQ;
		sim_time_t d = 0;

		ep->held[v] = NULL;
		tlm_nb_transport_bw(&ep->ts, p, &ph, &d);
		tlm_payload_release(p);
	}
}

/* ---- sending --------------------------------------------------------------------------------- */

static void ev_send(struct sim_kernel *k, void *obj, void *arg)
{
	struct tb *tb = obj;
	unsigned i = (unsigned)(uintptr_t)arg;
	struct rec *r = &tb->rec[i];
	struct tlm_payload *p = tlm_payload_alloc(tb->pool);
	struct mem_msg *m = mem_msg_of(p);
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;
	enum tlm_sync_enum rc;

	m->src = (uint16_t)r->src;
	m->dst = (uint16_t)r->dst;
	m->requester = (uint16_t)r->src;
	m->vnet = (uint8_t)r->vnet;
	m->type = (uint8_t)r->vnet;
	m->req_bytes = (uint16_t)r->bytes;
	m->txn = i;
	r->sent = sim_now(k);
	rc = tlm_nb_transport_fw(&tb->ep[r->src].is, p, &ph, &d);
	if (rc == TLM_UPDATED) {
		ck_assert_int_eq(ph, TLM_END_REQ);
		r->taken = true;
	} else
		ck_assert_int_eq(rc, TLM_ACCEPTED);
}

/* The record of a message from src to dst on vnet v with this payload. */
static unsigned rec_new(struct tb *tb, unsigned src, unsigned dst, unsigned v, unsigned bytes)
{
	struct rec *r;

	if (tb->n_rec == tb->cap_rec) {
		tb->cap_rec = tb->cap_rec ? 2 * tb->cap_rec : 256;
		tb->rec = realloc(tb->rec, tb->cap_rec * sizeof(*tb->rec));
		ck_assert_ptr_nonnull(tb->rec);
	}
	r = &tb->rec[tb->n_rec];
	memset(r, 0, sizeof(*r));
	r->src = src;
	r->dst = dst;
	r->vnet = v;
	r->bytes = bytes;
	return tb->n_rec++;
}

/* That message, sent at t. Returns its record. */
static unsigned send_at(struct tb *tb, sim_time_t t, unsigned src, unsigned dst, unsigned v,
			unsigned bytes)
{
	unsigned i = rec_new(tb, src, dst, v, bytes);

	sim_schedule_at(tb->k, t, SIM_PRIO_DEFAULT, ev_send, tb, (void *)(uintptr_t)i);
	return i;
}

/* ---- bench ----------------------------------------------------------------------------------- */

static void cfg_of(struct noc_cfg *c, unsigned topology, unsigned links)
{
	struct cs_err err;

	ck_assert_int_eq(cs_params_defaults(&noc_params, c, &err), 0);
	c->topology = topology;
	c->vnet_links = links;
	c->clock_mhz = 1000;
}

static void tb_init(struct tb *tb, const struct noc_cfg *cfg, unsigned n_ep, unsigned n_vnets,
		    const unsigned *pos)
{
	static const char *const tn[N_TYPES] = {"req", "fwd", "resp", "unblock"};
	struct cs_err err;
	int rc;

	memset(tb, 0, sizeof(*tb));
	tb->cfg = *cfg;
	tb->n_ep = n_ep;
	tb->n_vnets = n_vnets;
	tb->order_ok = tb->route_ok = true;
	tb->rng = 12345;
	ck_assert_int_eq(sim_kernel_create(NULL, &tb->k), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &tb->pool), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	rc = noc_net_create(tb->k, cfg, n_ep, n_vnets, pos, tn, tn, N_TYPES,
			    cs_stat_group(cs_stats_root(tb->stats), "net"), &tb->noc, &err);
	if (rc)
		ck_abort_msg("noc_net_create: %s", err.msg);
	ck_assert_ptr_null(noc_req_port(tb->noc, 0)); /* not a GPU face */
	for (unsigned e = 0; e < n_ep; e++) {
		struct t_ep *ep = &tb->ep[e];

		ep->tb = tb;
		ep->id = e;
		for (unsigned s = 0; s < MAX_EP; s++)
			for (unsigned v = 0; v < NOC_VNET_MAX; v++)
				ep->last[s][v] = -1;
		snprintf(ep->name, sizeof(ep->name), "ep%u", e);
		tlm_initiator_init(&ep->is, ep->name, &ep_bw_ops, ep);
		tlm_target_init(&ep->ts, ep->name, &ep_fw_ops, ep);
		ck_assert_int_eq(tlm_bind(&ep->is, noc_inject_port(tb->noc, e)), 0);
		ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->noc, e), &ep->ts), 0);
	}
}

static void tb_run(struct tb *tb, sim_time_t until)
{
	int rc = until ? sim_run_until(tb->k, until) : sim_run(tb->k);

	if (rc)
		ck_abort_msg("sim_run: %d %s", rc, sim_failure(tb->k) ? sim_failure(tb->k) : "");
}

static double stat(struct tb *tb, const char *name)
{
	double v = -1;

	if (cs_stats_value(tb->stats, name, &v))
		ck_abort_msg("no stat %s", name);
	return v;
}

/* Every message delivered exactly once to its destination, every offer taken, nothing left. */
static void tb_check_all(struct tb *tb)
{
	unsigned sent[NOC_VNET_MAX] = {0};
	char name[64];

	for (unsigned i = 0; i < tb->n_rec; i++) {
		if (tb->rec[i].n_deliv != 1 || !tb->rec[i].taken)
			ck_abort_msg("message %u (%u -> %u, vnet %u): %u deliveries, taken %d", i,
				     tb->rec[i].src, tb->rec[i].dst, tb->rec[i].vnet,
				     tb->rec[i].n_deliv, tb->rec[i].taken);
		sent[tb->rec[i].vnet]++;
	}
	ck_assert(tb->route_ok);
	ck_assert(tb->order_ok);
	for (unsigned v = 0; v < tb->n_vnets; v++) {
		static const char *const tn[N_TYPES] = {"req", "fwd", "resp", "unblock"};

		snprintf(name, sizeof(name), "net.%s.packets", tn[v]);
		ck_assert_uint_eq((uint64_t)stat(tb, name), sent[v]);
	}
	ck_assert_uint_eq(noc_in_flight(tb->noc), 0);
	ck_assert_uint_eq(tb->late_ends, 0);
}

static void tb_free(struct tb *tb)
{
	noc_destroy(tb->noc);
	sim_kernel_destroy(tb->k);
	ck_assert_uint_eq(tlm_pool_live(tb->pool), 0);
	tlm_pool_destroy(tb->pool);
	cs_stats_destroy(tb->stats);
	free(tb->rec);
}

static unsigned flits_of(const struct noc_cfg *c, unsigned bytes)
{
	unsigned f = (unsigned)((c->header_bytes + bytes + c->flit_bytes - 1) / c->flit_bytes);

	return f ? f : 1;
}

/* ---- one-way delivery and unloaded latency --------------------------------------------------- */

struct lat_case {
	unsigned topology, links, n_ep, n_vnets, cols;
	unsigned pos[MAX_EP]; /* mesh positions (row-major on cols columns) */
	unsigned conc;	      /* noc.concentration (0: 1) */
};

static const struct lat_case lat_cases[] = {
    {NOC_CROSSBAR, NOC_LINKS_SEPARATE, 6, 4, 0, {0}, 0},
    {NOC_CROSSBAR, NOC_LINKS_SHARED, 5, 3, 0, {0}, 0},
    /* 7 endpoints on a 3 x 3 mesh in a scrambled order, position 4 (the centre) empty */
    {NOC_MESH, NOC_LINKS_SHARED, 7, 4, 3, {8, 0, 5, 1, 6, 3, 2}, 0},
    {NOC_MESH, NOC_LINKS_SEPARATE, 7, 2, 3, {8, 0, 5, 1, 6, 3, 2}, 0},
    /* 7 endpoints on 2 x 2 routers, up to 3 on one (each its own local port), shared wires */
    {NOC_MESH, NOC_LINKS_SHARED, 7, 4, 2, {3, 0, 0, 1, 3, 0, 3}, 3},
    {NOC_MESH, NOC_LINKS_SEPARATE, 7, 3, 2, {3, 0, 0, 1, 3, 0, 3}, 3},
    {NOC_LINK, NOC_LINKS_SHARED, 2, 4, 0, {0}, 0},
};

START_TEST(test_oneway_latency)
{
	const struct lat_case *lc = &lat_cases[_i];
	static const unsigned sizes[] = {0, 8, 64, 128};
	struct noc_cfg cfg;
	struct tb tb;
	unsigned slot = 0;
	const uint64_t gap = 200; /* cycles between messages: the network is idle for each */

	cfg_of(&cfg, lc->topology, lc->links);
	cfg.mesh_cols = lc->cols;
	cfg.concentration = lc->conc ? lc->conc : 1;
	cfg.router_latency = 3;
	cfg.link_latency = 2;
	tb_init(&tb, &cfg, lc->n_ep, lc->n_vnets, lc->topology == NOC_MESH ? lc->pos : NULL);
	for (unsigned a = 0; a < lc->n_ep; a++)
		for (unsigned b = 0; b < lc->n_ep; b++) {
			if (lc->topology == NOC_LINK && a == b)
				continue;
			send_at(&tb, (sim_time_t)(slot * gap) * NS, a, b, (a * 3 + b) % lc->n_vnets,
				sizes[slot % 4]);
			slot++;
		}
	tb_run(&tb, 0);
	tb_check_all(&tb);
	for (unsigned i = 0; i < tb.n_rec; i++) {
		const struct rec *r = &tb.rec[i];
		unsigned hops = 0, f = flits_of(&cfg, r->bytes);
		uint64_t want;

		if (lc->topology == NOC_MESH) {
			unsigned pa = lc->pos[r->src], pb = lc->pos[r->dst];
			int dx = (int)(pa % lc->cols) - (int)(pb % lc->cols);
			int dy = (int)(pa / lc->cols) - (int)(pb / lc->cols);

			hops = (unsigned)(abs(dx) + abs(dy));
		}
		want = (uint64_t)(hops + 1) * (cfg.router_latency + cfg.link_latency) + f - 1;
		ck_assert_uint_eq(noc_ep_hops(tb.noc, r->src, r->dst), hops);
		ck_assert_uint_eq(noc_ep_unloaded_cycles(tb.noc, r->src, r->dst, r->bytes), want);
		if (r->deliv - r->sent != want * NS)
			ck_abort_msg("case %d: %u -> %u (%u B, vnet %u): %llu ps, want %llu cycles",
				     _i, r->src, r->dst, r->bytes, r->vnet,
				     (unsigned long long)(r->deliv - r->sent),
				     (unsigned long long)want);
	}
	tb_free(&tb);
}
END_TEST

/* ---- virtual networks do not block each other ------------------------------------------------ */

/* Endpoint 0 refuses vnet 0 (it never ends the first delivery) while every other endpoint sends
 * it 30 line-sized messages on vnet 0, enough to fill every buffer on the way back to the
 * injection buffers; 3000 cycles later each sends 3 messages on vnet `late` through the same
 * ports, one at a time. With 3 vnets (late = 2) and shared links each arrives at exactly its
 * unloaded latency (the stuck vnet holds buffers, not wires); with one vnet (late = 0) they are stuck behind the refused
 * ones until endpoint 0 takes vnet 0 again. */
START_TEST(test_vnet_independence)
{
	const unsigned topo = _i & 1 ? NOC_MESH : NOC_CROSSBAR, one = _i >= 2;
	const unsigned V = one ? 1 : 3, late = one ? 0 : 2, n_ep = 6;
	const sim_time_t t_late = 3000 * NS, t_check = 20000 * NS;
	struct noc_cfg cfg;
	struct tb tb;
	unsigned first_late;

	cfg_of(&cfg, topo, NOC_LINKS_SHARED);
	cfg.mesh_cols = 3;
	tb_init(&tb, &cfg, n_ep, V, NULL);
	tb.ep[0].take[0] = TAKE_REFUSE;
	for (unsigned k = 0; k < 30; k++)
		for (unsigned s = 1; s < n_ep; s++)
			send_at(&tb, (sim_time_t)k * NS, s, 0, 0, 128);
	first_late = tb.n_rec;
	for (unsigned k = 0; k < 3; k++)
		for (unsigned s = 1; s < n_ep; s++) /* one at a time, 100 cycles apart */
			send_at(&tb, t_late + (sim_time_t)(k * n_ep + s) * 100 * NS, s, 0, late,
				64);
	tb_run(&tb, t_check);
	/* vnet 0 is full back to the sources: offers are waiting */
	ck_assert_uint_gt((uint64_t)stat(&tb, "net.req.inject_stalls"), 0);
	for (unsigned i = 0, held = 0; i < first_late; i++) {
		held += tb.rec[i].n_deliv;
		if (i + 1 == first_late)
			ck_assert_uint_eq(held, 1); /* the refused one, held open */
	}
	for (unsigned i = first_late; i < tb.n_rec; i++) {
		const struct rec *r = &tb.rec[i];
		/* endpoint e at position e on 3 columns; endpoint 0 at (0, 0) */
		unsigned hops = topo == NOC_MESH ? r->src % 3 + r->src / 3 : 0;

		if (one) {
			ck_assert_uint_eq(r->n_deliv, 0);
			continue;
		}
		/* the stuck vnet 0 costs vnet 2 nothing: the unloaded latency exactly */
		ck_assert_uint_eq(r->n_deliv, 1);
		ck_assert_uint_eq(r->deliv - r->sent,
				  ((hops + 1) * (cfg.router_latency + cfg.link_latency) +
				   flits_of(&cfg, 64) - 1) *
				      NS);
	}
	release(&tb, 0, 0);
	tb_run(&tb, 0);
	tb_check_all(&tb);
	tb_free(&tb);
}
END_TEST

/* ---- the link: bandwidth and latency --------------------------------------------------------- */

static int cmp_time(const void *a, const void *b)
{
	sim_time_t x = *(const sim_time_t *)a, y = *(const sim_time_t *)b;

	return x < y ? -1 : x > y;
}

/* 60 messages of 64 B from endpoint 0 to 1 at time 0 over a link of 16 B per cycle (8 B header:
 * F = 5 flits), alternating between 2 vnets that share the wire. The first arrives after
 * R + L + F - 1 cycles. Buffer >= the credit round trip 2L + F: the wire is never idle, so
 * deliveries are exactly F cycles apart (the link's rate, 16 B per cycle, reached and never
 * exceeded). Buffer of 8 flits (one packet) and one vnet: each packet waits for the previous
 * one's credits, F - 1 + 2L cycles apart (the bandwidth-delay product bounds the rate). With
 * separate links each vnet has its own wire: the two vnets' packets arrive in pairs at the same
 * cycle, pairs F apart (twice the bytes per cycle). */
START_TEST(test_link_rate)
{
	const bool small = _i == 1, separate = _i == 2;
	const unsigned V = small ? 1 : 2, n = 60;
	struct noc_cfg cfg;
	struct tb tb;
	sim_time_t *t;
	unsigned f;
	uint64_t gap;

	cfg_of(&cfg, NOC_LINK, separate ? NOC_LINKS_SEPARATE : NOC_LINKS_SHARED);
	cfg.flit_bytes = 16;
	cfg.header_bytes = 8;
	cfg.router_latency = 4;
	cfg.link_latency = 10;
	cfg.buffer_flits = small ? 9 : 25; /* 9 >= 8 + 128 B (the largest packet) */
	f = flits_of(&cfg, 64);
	ck_assert_uint_eq(f, 5);
	ck_assert(small || cfg.buffer_flits >= 2 * cfg.link_latency + f);
	tb_init(&tb, &cfg, 2, V, NULL);
	for (unsigned i = 0; i < n; i++)
		send_at(&tb, 0, 0, 1, i % V, 64);
	tb_run(&tb, 0);
	tb_check_all(&tb);
	t = malloc(n * sizeof(*t));
	ck_assert_ptr_nonnull(t);
	for (unsigned i = 0; i < n; i++)
		t[i] = tb.rec[i].deliv;
	qsort(t, n, sizeof(*t), cmp_time);
	ck_assert_uint_eq(t[0], (cfg.router_latency + cfg.link_latency + f - 1) * (uint64_t)NS);
	gap = small ? f - 1 + 2 * cfg.link_latency : f;
	for (unsigned i = 1; i < n; i++)
		if (t[i] - t[i - 1] != (separate ? (i % 2 ? 0 : gap) : gap) * NS)
			ck_abort_msg("deliveries %u and %u: %llu ps apart, want %llu cycles", i - 1,
				     i, (unsigned long long)(t[i] - t[i - 1]),
				     (unsigned long long)gap);
	/* bytes on the wire per cycle over the run never exceed flit_bytes per wire */
	ck_assert_uint_le((uint64_t)stat(&tb, "net.bytes") * NS,
			  (separate ? 2 : 1) * cfg.flit_bytes *
			      (t[n - 1] - t[0] + (uint64_t)f * NS));
	free(t);
	tb_free(&tb);
}
END_TEST

/* ---- conservation under random traffic ------------------------------------------------------- */

/* 3000 messages between random endpoints on random vnets, random sizes, offered faster than the
 * network can carry them; receivers take at once, complete, or end late at random. Every message
 * arrives once, at its destination, in order per (source, destination, vnet) (deterministic
 * routes and FIFO buffers), and the per-vnet packet counts equal what was sent. */
/* What the network declares (noc.h) agrees with the messages sent: per vnet and kind (vnet v
 * is of kind v on the one-way face) their packets, flits and bytes; per message class the
 * same; every flit injected once and ejected once; and the router-to-router link flits are
 * each message's flits times its hops. */
static void check_declared(struct tb *tb)
{
	uint64_t pk[NOC_VNET_MAX] = {0}, fl[NOC_VNET_MAX] = {0}, by[NOC_VNET_MAX] = {0};
	uint64_t links = 0, all = 0, inj = 0, ej = 0;
	struct noc_traffic t;

	for (unsigned i = 0; i < tb->n_rec; i++) {
		const struct rec *r = &tb->rec[i];
		unsigned f = flits_of(&tb->cfg, r->bytes);

		pk[r->vnet]++;
		fl[r->vnet] += f;
		by[r->vnet] += tb->cfg.header_bytes + r->bytes;
		links += (uint64_t)f * noc_ep_hops(tb->noc, r->src, r->dst);
		all += f;
	}
	for (unsigned v = 0; v < tb->n_vnets; v++) {
		ck_assert_uint_eq(noc_vnet_kind(tb->noc, v), v);
		noc_vnet_traffic(tb->noc, v, &t);
		ck_assert_uint_eq(t.packets, pk[v]);
		ck_assert_uint_eq(t.flits, fl[v]);
		ck_assert_uint_eq(t.bytes, by[v]);
		ck_assert_uint_eq(t.payload_bytes, by[v] - pk[v] * tb->cfg.header_bytes);
		noc_kind_traffic(tb->noc, v, &t);
		ck_assert_uint_eq(t.bytes, by[v]);
		/* the testbench sends class v on vnet v */
		noc_class_traffic(tb->noc, v, &t);
		ck_assert_uint_eq(t.flits, fl[v]);
	}
	ck_assert_uint_eq(noc_vnet_kind(tb->noc, tb->n_vnets), NOC_VK_KINDS);
	for (unsigned e = 0; e < tb->n_ep; e++) {
		inj += noc_ep_flits(tb->noc, e, true);
		ej += noc_ep_flits(tb->noc, e, false);
	}
	ck_assert_uint_eq(inj, all);
	ck_assert_uint_eq(ej, all);
	ck_assert_uint_eq(noc_link_flits(tb->noc), links);
	ck_assert_uint_eq(noc_bytes(tb->noc), by[0] + by[1] + by[2] + by[3]);
}

START_TEST(test_conservation_random)
{
	static const unsigned pos[13] = {15, 2, 7, 0, 11, 4, 9, 13, 1, 6, 3, 14, 8};
	const unsigned topo = _i % 3 == 0 ? NOC_CROSSBAR : NOC_MESH;
	const unsigned links = _i % 3 == 2 ? NOC_LINKS_SEPARATE : NOC_LINKS_SHARED;
	struct noc_cfg cfg;
	struct tb tb;
	uint64_t s = 99 + (uint64_t)_i;

	cfg_of(&cfg, topo, links);
	cfg.mesh_cols = 4;
	tb_init(&tb, &cfg, 13, 4, topo == NOC_MESH ? pos : NULL);
	for (unsigned e = 0; e < 13; e++)
		for (unsigned v = 0; v < 4; v++)
			tb.ep[e].take[v] = TAKE_RANDOM;
	for (unsigned i = 0; i < 3000; i++) {
		unsigned a = (unsigned)(splitmix(&s) % 13), b = (unsigned)(splitmix(&s) % 13);

		send_at(&tb, (sim_time_t)(i / 8) * NS, a, b, (unsigned)(splitmix(&s) % 4),
			(unsigned)(splitmix(&s) % 129));
	}
	tb_run(&tb, 0);
	tb_check_all(&tb);
	check_declared(&tb);
	/* the load was high enough to back up every vnet */
	ck_assert_uint_gt((uint64_t)stat(&tb, "net.req.inject_stalls"), 0);
	ck_assert_uint_gt((uint64_t)stat(&tb, "net.fwd.inject_stalls"), 0);
	ck_assert_uint_gt((uint64_t)stat(&tb, "net.resp.inject_stalls"), 0);
	ck_assert_uint_gt((uint64_t)stat(&tb, "net.unblock.inject_stalls"), 0);
	tb_free(&tb);
}
END_TEST

/* ---- the LT face ----------------------------------------------------------------------------- */

/* b_transport on an injection socket reaches the destination's b_transport with the unloaded
 * latency added on an idle network, and counts the packet on its vnet. */
START_TEST(test_lt_oneway)
{
	static const unsigned pos[4] = {8, 0, 5, 3};
	struct noc_cfg cfg;
	struct tb tb;
	struct tlm_payload *p;
	struct mem_msg *m;
	sim_time_t d = 0;
	unsigned r;

	cfg_of(&cfg, NOC_MESH, NOC_LINKS_SHARED);
	cfg.mesh_cols = 3;
	tb_init(&tb, &cfg, 4, 3, pos);
	r = rec_new(&tb, 0, 1, 2, 64);
	p = tlm_payload_alloc(tb.pool);
	m = mem_msg_of(p);
	m->dst = 1;
	m->vnet = 2;
	m->type = 2;
	m->req_bytes = 64;
	m->txn = r;
	tlm_b_transport(&tb.ep[0].is, p, &d);
	ck_assert_uint_eq(tb.rec[r].n_deliv, 1);
	ck_assert(tb.route_ok);
	/* positions 8 = (2, 2) and 0 = (0, 0): 4 hops */
	ck_assert_uint_eq(
	    d, ((4 + 1) * (cfg.router_latency + cfg.link_latency) + flits_of(&cfg, 64) - 1) * NS);
	ck_assert_uint_eq(tb.rec[r].deliv, d);
	ck_assert_uint_eq((uint64_t)stat(&tb, "net.resp.packets"), 1);
	ck_assert_uint_eq((uint64_t)stat(&tb, "net.resp.link.ep0_in"), flits_of(&cfg, 64));
	tlm_payload_release(p);
	tb_free(&tb);
}
END_TEST

/* ---- configuration errors -------------------------------------------------------------------- */

START_TEST(test_net_config)
{
	static const unsigned dup[3] = {0, 4, 4};
	struct sim_kernel *k;
	struct cs_stats *s;
	struct noc *n = NULL;
	struct noc_cfg cfg;
	struct cs_err err;

	ck_assert_int_eq(sim_kernel_create(NULL, &k), 0);
	ck_assert_int_eq(cs_stats_create(&s), 0);
	cfg_of(&cfg, NOC_LINK, NOC_LINKS_SHARED);
	ck_assert_int_eq(
	    noc_net_create(k, &cfg, 3, 2, NULL, NULL, NULL, 1, cs_stats_root(s), &n, &err),
	    -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "2 endpoints"));
	cfg.topology = NOC_MESH;
	ck_assert_int_eq(
	    noc_net_create(k, &cfg, 3, 2, dup, NULL, NULL, 1, cs_stats_root(s), &n, &err),
	    -CS_EINVAL);
	ck_assert_int_eq(noc_net_create(k, &cfg, 3, NOC_VNET_MAX + 1, NULL, NULL, NULL, 1,
					cs_stats_root(s), &n, &err),
			 -CS_EINVAL);
	ck_assert_ptr_null(n);
	/* the GPU face is never a link */
	cfg.topology = NOC_LINK;
	ck_assert_int_eq(noc_create(k, &cfg, 1, 1, NULL, 1, cs_stats_root(s), &n, &err),
			 -CS_ECONFIG);
	/* the link's table loads */
	ck_assert_int_eq(cs_params_defaults(&noc_link_params, &cfg, &err), 0);
	ck_assert_uint_eq(cfg.topology, NOC_LINK);
	ck_assert_int_eq(noc_cfg_check(&cfg, &err), 0);
	ck_assert_int_eq(
	    noc_net_create(k, &cfg, 2, 4, NULL, NULL, NULL, 1, cs_stats_root(s), &n, &err), 0);
	ck_assert_uint_eq(noc_endpoints(n), 2);
	ck_assert_uint_eq(noc_vnets(n), 4);
	ck_assert_ptr_null(noc_inject_port(n, 2));
	noc_destroy(n);
	cs_stats_destroy(s);
	sim_kernel_destroy(k);
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("net");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_oneway_latency, 0, sizeof(lat_cases) / sizeof(lat_cases[0]));
	tcase_add_loop_test(tc, test_vnet_independence, 0, 4);
	tcase_add_loop_test(tc, test_link_rate, 0, 3);
	tcase_add_test(tc, test_lt_oneway);
	tcase_add_loop_test(tc, test_conservation_random, 0, 3);
	tcase_add_test(tc, test_net_config);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(net_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
