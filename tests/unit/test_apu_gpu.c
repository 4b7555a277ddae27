/*
 * tests/unit/test_apu_gpu.c - the APU's GPU side (tlm/coherence/apu/: TCP, TCC; docs/apu.md
 * §3.2, §3.3, §5, §7) on the generic network, against a scripted directory.
 *
 * The testbench: n CUs' TCPs (endpoints 0..n-1), one TCC (n) and a directory agent (n+1) on a
 * crossbar with the four APU vnets. The agent answers as docs/apu.md §3.4 says the directory
 * does, from a backing store, after `dir_cycles` of its clock: RdBlk -> SysResp (grant E, or S
 * when told) and then expects an Unblock; WT -> WBAck (echoing cu and seq), the bytes written
 * at once; Atomic -> the op performed, SysResp with the old value. It can send PrbInv to the
 * TCC and records the acks. The CUs are driven by a scripted client (no SM): each access is
 * offered to the TCP's gpu_l1_ops and its done() time and data recorded. All clocks are 1 GHz
 * so every cycle is a whole ns and the latencies of docs/apu.md §3.2-3.3 compare exactly.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_dir.h"
#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/dram/dram.h"
#include "tlm/kernel/sim.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/store.h"
#include "tlm/noc/noc.h"
#include "util/error.h"
#include "util/mix.h"
#include "util/params.h"
#include "util/stats.h"

#define NS	((sim_time_t)SIM_NS)
#define MAX_CU	8
#define MAX_REQ 32768
#define DIR_CYC 30
#define MAX_LOG 4096

struct req {
	bool done;
	sim_time_t issued, at;
	uint8_t data[64];
	struct gpu_access a;
	uint8_t st[64];
	struct mem_atom_lanes lanes;
};

struct dlog {
	uint8_t type;
	uint64_t line;
	sim_time_t at;
	bool hit, dirty;
	unsigned bytes;
	uint16_t src;
};

struct tb;

/* A CorePair agent (with the real directory): acks every probe with hit = false and no data,
 * answers a SysResp with Unblock, and can send RdBlkM (a CPU store miss). */
struct cpa {
	struct tb *tb;
	unsigned ep;
	struct apu_port *port;
	unsigned dg, inv, resp;
};

#define MAX_CP 4

struct cu {
	struct tb *tb;
	unsigned id;
	struct gpu_l1 *l1;
	bool retry;
	unsigned fence_done;
};

struct tb {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct apu_msgs *msgs;
	struct cs_stats *stats;
	struct mem_store *store;
	struct cohcheck *chk;
	struct noc *noc;
	struct gpu_ctx ctx;
	struct apu_gpu_cfg cfg;
	uint16_t tcp_node[MAX_CU], tcc_node[1];
	struct apu_tcc *tcc;
	struct apu_port *dir;
	unsigned n;
	/* with the real directory (apu_dir.c): CorePair agents, DRAM */
	struct apu_dir *rdir;
	struct dram_ctrl *dram;
	struct addr_map map;
	unsigned P;
	struct cpa cp[MAX_CP];
	bool no_slc; /* the stress issues no SLC atomics (nobody reports them to the checker) */
	struct cu cu[MAX_CU];
	struct req *req; /* MAX_REQ */
	unsigned nreq;
	/* the directory agent */
	uint8_t grant;
	struct dlog log[MAX_LOG];
	unsigned nlog;
	unsigned unblocks;
	/* stress and message passing: called after a CU's access is done */
	void (*on_done)(struct tb *tb, unsigned cu, uint32_t id);
	void (*on_fence)(struct tb *tb, unsigned cu, unsigned warp);
	void *drv;
	uint8_t order; /* of the accesses offer() makes */
	uint64_t rng;
};

/* ---- the directory agent ------------------------------------------------------------------- */

static struct apu_ext *X(struct tb *tb, const struct mem_msg *m)
{
	return apu_ext_of(tb->msgs, m);
}

static void dlog(struct tb *tb, const struct mem_msg *m)
{
	struct dlog *d = &tb->log[tb->nlog < MAX_LOG ? tb->nlog++ : MAX_LOG - 1];

	d->type = m->type;
	d->line = m->p.addr;
	d->at = sim_now(tb->k);
	d->hit = X(tb, m)->hit;
	d->dirty = X(tb, m)->dirty;
	d->bytes = m->req_bytes;
	d->src = m->src;
}

static unsigned count(const struct tb *tb, uint8_t type)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tb->nlog; i++)
		n += tb->log[i].type == type;
	return n;
}

static const struct dlog *last(const struct tb *tb, uint8_t type)
{
	for (unsigned i = tb->nlog; i-- > 0;)
		if (tb->log[i].type == type)
			return &tb->log[i];
	return NULL;
}

static enum apu_recv dir_recv(void *owner, struct mem_msg *m)
{
	struct tb *tb = owner;
	struct apu_ext *x = X(tb, m);
	struct mem_msg *r = NULL;
	uint64_t cycles = DIR_CYC;

	dlog(tb, m);
	switch (m->type) {
	case APU_RDBLK:
		r = apu_msg_new(tb->msgs, APU_SYSRESP, m->p.addr, tb->n + 1, m->src, m->requester);
		mem_store_read(tb->store, m->p.addr, r->p.data, 64);
		X(tb, r)->grant = tb->grant;
		X(tb, r)->cu = x->cu;
		break;
	case APU_WT:
	case APU_FLUSH: {
		/* the bytes written; WBAck at once for a WT (docs/apu.md §4.5), at completion for a
		 * Flush (§4.6) */
		uint8_t be[64];

		for (unsigned i = 0; i < 64; i++)
			be[i] = (uint8_t)((x->mask >> i) & 1);
		ck_assert_int_eq(mem_store_write_masked(tb->store, m->p.addr, m->p.data, be, 64),
				 0);
		r = apu_msg_new(tb->msgs, APU_WBACK, m->p.addr, tb->n + 1, m->src, m->requester);
		X(tb, r)->cu = x->cu;
		X(tb, r)->seq = x->seq;
		if (m->type == APU_WT)
			cycles = 1;
		break;
	}
	case APU_ATOMIC: {
		uint8_t line[64];
		uint64_t v = 0;

		mem_store_read(tb->store, m->p.addr, line, 64);
		r = apu_msg_new(tb->msgs, APU_SYSRESP, m->p.addr, tb->n + 1, m->src, m->requester);
		X(tb, r)->old =
		    mem_atomic_apply(line + x->offset, x->width, x->op, x->operand, x->operand2);
		X(tb, r)->grant = APU_GRANT_M;
		ck_assert_int_eq(mem_store_write(tb->store, m->p.addr, line, 64), 0);
		memcpy(&v, line + x->offset, x->width);
		if (tb->chk) /* SLC atomics serialize here */
			cohcheck_write(tb->chk, m->p.addr + x->offset, x->width, v);
		break;
	}
	case APU_UNBLOCK:
		tb->unblocks++;
		break;
	case APU_PRBACK:
		break;
	default:
		ck_abort_msg("directory agent: unexpected %s", apu_msg_names[m->type]);
	}
	if (r) {
		r->txn = m->txn;
		apu_port_send(tb->dir, r, cycles);
	}
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops dir_ops = {.recv = dir_recv};

static enum apu_recv cpa_recv(void *owner, struct mem_msg *m)
{
	struct cpa *a = owner;
	struct tb *tb = a->tb;
	struct mem_msg *r = NULL;

	switch (m->type) {
	case APU_PRBDOWNGRADE:
	case APU_PRBINV:
		if (m->type == APU_PRBINV)
			a->inv++;
		else
			a->dg++;
		r = apu_msg_new(tb->msgs, APU_PRBACK, m->p.addr, a->ep, m->src, m->requester);
		break;
	case APU_SYSRESP:
		a->resp++;
		r = apu_msg_new(tb->msgs, APU_UNBLOCK, m->p.addr, a->ep, m->src, a->ep);
		break;
	default:
		ck_abort_msg("CorePair agent: unexpected %s", apu_msg_names[m->type]);
	}
	r->txn = m->txn;
	apu_port_send(a->port, r, 1);
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops cpa_ops = {.recv = cpa_recv};

static unsigned cp_probes(const struct tb *tb, bool inv)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tb->P; i++)
		n += inv ? tb->cp[i].inv : tb->cp[i].dg;
	return n;
}

static void dir_probe(struct tb *tb, uint64_t line)
{
	struct mem_msg *m = apu_msg_new(tb->msgs, APU_PRBINV, line, tb->n + 1, tb->n, tb->n + 1);

	apu_port_send(tb->dir, m, 0);
}

/* ---- the CU client --------------------------------------------------------------------------- */

static void cu_done(void *obj, uint32_t id, const uint8_t *line)
{
	struct cu *c = obj;
	struct req *r = &c->tb->req[id];

	ck_assert(!r->done);
	r->done = true;
	r->at = sim_now(c->tb->k);
	if (line)
		memcpy(r->data, line, 64);
	if (c->tb->on_done)
		c->tb->on_done(c->tb, c->id, id);
}

static void cu_retry(void *obj)
{
	((struct cu *)obj)->retry = true;
}

static void cu_fence_done(void *obj, unsigned warp)
{
	struct cu *c = obj;

	c->fence_done++;
	if (c->tb->on_fence)
		c->tb->on_fence(c->tb, c->id, warp);
}

/* ---- setup ------------------------------------------------------------------------------------ */

/* n CUs; P > 0: the real directory (apu_dir.c) with P CorePair agents and one DDR4 channel
 * (endpoints: TCPs 0..n-1, TCC n, directory n+1, CorePairs n+2..), else the scripted one. */
static void tb_init_p(struct tb *tb, unsigned n, unsigned P, void (*tweak)(struct apu_gpu_cfg *))
{
	struct cs_err err = {0};
	struct noc_cfg nc;
	int rc;

	memset(tb, 0, sizeof(*tb));
	tb->n = n;
	tb->grant = APU_GRANT_E;
	tb->rng = 42;
	tb->req = calloc(MAX_REQ, sizeof(*tb->req));
	ck_assert_ptr_nonnull(tb->req);
	ck_assert_int_eq(sim_kernel_create(NULL, &tb->k), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &tb->pool), 0);
	ck_assert_int_eq(apu_msgs_create(tb->pool, &tb->msgs), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	ck_assert_int_eq(mem_store_create(&tb->store), 0);
	ck_assert_int_eq(cs_params_defaults(&noc_params, &nc, &err), 0);
	nc.topology = NOC_CROSSBAR;
	nc.clock_mhz = 1000;
	nc.flit_bytes = 8;
	nc.header_bytes = 8;
	nc.router_latency = 1;
	nc.link_latency = 1;
	nc.buffer_flits =
	    17; /* noc_cfg_check: a 128-B payload must fit (docs/apu.md §1.2 says 16) */
	tb->P = P;
	rc = noc_net_create(tb->k, &nc, n + 2 + P, APU_VNETS, NULL, apu_vnet_names, apu_msg_names,
			    APU_MSG_TYPES, cs_stat_group(cs_stats_root(tb->stats), "net"), &tb->noc,
			    &err);
	if (rc)
		ck_abort_msg("noc_net_create: %s", err.msg);

	ck_assert_int_eq(cs_params_defaults(&apu_tcp_params, &tb->cfg.tcp, &err), 0);
	ck_assert_int_eq(cs_params_defaults(&apu_tcc_params, &tb->cfg.tcc, &err), 0);
	for (unsigned i = 0; i < n; i++)
		tb->tcp_node[i] = (uint16_t)i;
	tb->tcc_node[0] = (uint16_t)n;
	tb->cfg.msgs = tb->msgs;
	tb->cfg.tcp_node = tb->tcp_node;
	tb->cfg.tcc_node = tb->tcc_node;
	tb->cfg.tccs = 1;
	tb->cfg.dir_node = (uint16_t)(n + 1);
	tb->cfg.tcc_obj = &tb->tcc;
	tb->cfg.tcc_reports_writes = true;
	if (tweak)
		tweak(&tb->cfg);

	tb->ctx.k = tb->k;
	tb->ctx.pool = tb->pool;
	tb->ctx.store = tb->store;
	ck_assert_int_eq(sim_clock_init(&tb->ctx.core_clk, 1000000000ull), 0);
	ck_assert_int_eq(sim_clock_init(&tb->ctx.l2_clk, 1000000000ull), 0);
	tb->ctx.sms = n;
	tb->ctx.warps = 8;
	tb->ctx.proto_cfg = &tb->cfg;

	rc = apu_tcc_create(&tb->ctx, 0, cs_stat_group(cs_stats_root(tb->stats), "tcc"), &tb->tcc,
			    &err);
	if (rc)
		ck_abort_msg("apu_tcc_create: %s", err.msg);
	ck_assert_int_eq(tlm_bind(apu_tcc_inject_port(tb->tcc), noc_inject_port(tb->noc, n)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->noc, n), apu_tcc_deliver_port(tb->tcc)), 0);
	if (P) {
		struct dram_cfg dc;
		struct apu_dir_cfg dcfg;
		struct apu_llc_cfg lcfg;
		unsigned cp[MAX_CP], tcc = n;
		struct apu_dir_nodes nodes;

		ck_assert_uint_le(P, MAX_CP);
		ck_assert_int_eq(cs_params_defaults(&dram_params, &dc, &err), 0);
		tb->map =
		    (struct addr_map){.banks = 1, .banks_per_channel = 1, .interleave_shift = 7};
		rc = dram_ctrl_create(tb->k, &dc, 0, &tb->map, tb->store, 1,
				      cs_stat_group(cs_stats_root(tb->stats), "dram0"), &tb->dram,
				      &err);
		ck_assert_msg(rc == 0, "dram: %s", err.msg);
		ck_assert_int_eq(cs_params_defaults(&apu_dir_params, &dcfg, &err), 0);
		ck_assert_int_eq(cs_params_defaults(&apu_llc_params, &lcfg, &err), 0);
		lcfg.size_kib = 4;
		for (unsigned i = 0; i < P; i++)
			cp[i] = n + 2 + i;
		nodes = (struct apu_dir_nodes){
		    .ep = n + 1, .n_cp = P, .cp = cp, .n_tcc = 1, .tcc = &tcc};
		rc =
		    apu_dir_create(tb->k, &dcfg, &lcfg, &nodes, tb->msgs, &tb->map, 1,
				   cs_stat_group(cs_stats_root(tb->stats), "dir"), &tb->rdir, &err);
		ck_assert_msg(rc == 0, "dir: %s", err.msg);
		tb->dir = apu_dir_port(tb->rdir);
		ck_assert_int_eq(
		    tlm_bind(apu_dir_dram_port(tb->rdir, 0), dram_ctrl_port(tb->dram, 0)), 0);
		for (unsigned i = 0; i < P; i++) {
			struct cpa *a = &tb->cp[i];
			struct apu_port_cfg pc = {.name = "cp",
						  .ep = n + 2 + i,
						  .clock_mhz = 2000,
						  .in_depth = 4,
						  .per_cycle = 8};

			a->tb = tb;
			a->ep = n + 2 + i;
			ck_assert_int_eq(apu_port_create(tb->k, &pc, &cpa_ops, a, &a->port), 0);
			ck_assert_int_eq(
			    tlm_bind(apu_port_initiator(a->port), noc_inject_port(tb->noc, a->ep)),
			    0);
			ck_assert_int_eq(
			    tlm_bind(noc_deliver_port(tb->noc, a->ep), apu_port_target(a->port)),
			    0);
		}
	} else {
		struct apu_port_cfg pc = {
		    .name = "dir", .ep = n + 1, .clock_mhz = 1000, .in_depth = 16, .per_cycle = 32};

		ck_assert_int_eq(apu_port_create(tb->k, &pc, &dir_ops, tb, &tb->dir), 0);
	}
	{
		ck_assert_int_eq(
		    tlm_bind(apu_port_initiator(tb->dir), noc_inject_port(tb->noc, n + 1)), 0);
		ck_assert_int_eq(
		    tlm_bind(noc_deliver_port(tb->noc, n + 1), apu_port_target(tb->dir)), 0);
	}
	for (unsigned i = 0; i < n; i++) {
		struct cu *c = &tb->cu[i];
		struct gpu_l1_client cl = {
		    .sm = c, .done = cu_done, .retry = cu_retry, .fence_done = cu_fence_done};
		char name[16];

		c->tb = tb;
		c->id = i;
		snprintf(name, sizeof(name), "cu%u", i);
		rc = apu_tcp_ops.create(
		    &tb->ctx, i, &cl, cs_stat_group(cs_stats_root(tb->stats), name), &c->l1, &err);
		if (rc)
			ck_abort_msg("tcp create: %s", err.msg);
		ck_assert_int_eq(tlm_bind(apu_tcp_ops.noc_port(c->l1), noc_inject_port(tb->noc, i)),
				 0);
		ck_assert_int_eq(
		    tlm_bind(noc_deliver_port(tb->noc, i), apu_tcp_ops.deliver_port(c->l1)), 0);
	}
}

static void tb_init(struct tb *tb, unsigned n, void (*tweak)(struct apu_gpu_cfg *))
{
	tb_init_p(tb, n, 0, tweak);
}

static void tb_fini(struct tb *tb)
{
	for (unsigned i = 0; i < tb->n; i++)
		apu_tcp_ops.destroy(tb->cu[i].l1);
	apu_tcc_destroy(tb->tcc);
	if (tb->rdir) {
		ck_assert_uint_eq(apu_dir_busy(tb->rdir), 0);
		apu_dir_destroy(tb->rdir);
		dram_ctrl_destroy(tb->dram);
		for (unsigned i = 0; i < tb->P; i++)
			apu_port_destroy(tb->cp[i].port);
	} else {
		apu_port_destroy(tb->dir);
	}
	noc_destroy(tb->noc);
	ck_assert_uint_eq(tlm_pool_live(tb->pool), 0); /* every message released */
	apu_msgs_destroy(tb->msgs);
	tlm_pool_destroy(tb->pool);
	if (tb->chk)
		cohcheck_destroy(tb->chk);
	mem_store_destroy(tb->store);
	cs_stats_destroy(tb->stats);
	sim_kernel_destroy(tb->k);
	free(tb->req);
}

static void run(struct tb *tb)
{
	int rc = sim_run(tb->k);

	if (rc)
		ck_abort_msg("sim_run: %s", sim_failure(tb->k));
}

/* An access of 4 bytes at addr, offered now; returns its id. */
static uint32_t offer(struct tb *tb, unsigned cu, uint8_t kind, uint64_t addr, uint32_t v,
		      uint8_t scope, uint8_t op)
{
	uint32_t id = tb->nreq++;
	struct req *r = &tb->req[id];
	unsigned off = (unsigned)(addr & 63);

	ck_assert_uint_lt(id, MAX_REQ);
	memset(r, 0, sizeof(*r));
	r->issued = sim_now(tb->k);
	r->a.kind = kind;
	r->a.scope = scope;
	r->a.order = MEM_ORDER_RELAXED;
	r->a.id = id;
	r->a.line_addr = addr & ~63ull;
	r->a.byte_mask[0] = 0xfull << off;
	r->a.sector_mask = 0xff;
	if (kind == GPU_ACC_ST) {
		memcpy(r->st + off, &v, 4);
		r->a.data = r->st;
	} else if (kind == GPU_ACC_ATOM) {
		r->lanes.n = 1;
		r->lanes.op = op;
		r->lanes.bytes = 4;
		r->lanes.lane[0].offset = (uint16_t)off;
		r->lanes.lane[0].a = v;
		r->a.data = (uint8_t *)&r->lanes;
	}
	r->a.order = tb->order;
	ck_assert(apu_tcp_ops.access(tb->cu[cu].l1, &r->a));
	return id;
}

static uint32_t ld(struct tb *tb, unsigned cu, uint64_t addr)
{
	uint32_t id = offer(tb, cu, GPU_ACC_LD, addr, 0, MEM_SCOPE_DEVICE, 0);

	run(tb);
	ck_assert(tb->req[id].done);
	return id;
}

static uint32_t val(const struct tb *tb, uint32_t id, uint64_t addr)
{
	uint32_t v;

	memcpy(&v, tb->req[id].data + (addr & 63), 4);
	return v;
}

static uint64_t lat(const struct tb *tb, uint32_t id)
{
	return (tb->req[id].at - tb->req[id].issued) / NS;
}

static uint64_t net(const struct tb *tb, unsigned a, unsigned b, unsigned bytes)
{
	return noc_ep_unloaded_cycles(tb->noc, a, b, bytes);
}

static bool tcp_has(struct tb *tb, unsigned cu, uint64_t addr)
{
	uint64_t o[3];

	return apu_tcp_ops.probe(tb->cu[cu].l1, addr, 0, o);
}

static bool tcc_has(struct tb *tb, uint64_t addr)
{
	uint64_t o[3];

	return apu_tcc_probe(tb->tcc, addr, o);
}

/* ---- latencies (docs/apu.md §3.2, §3.3, §6.4) ------------------------------------------------ */

START_TEST(test_latencies)
{
	struct tb tb;
	const struct apu_tcp_cfg *p;
	const struct apu_tcc_cfg *q;
	uint64_t tcp_hit, tcc_hit, tcc_miss;
	uint32_t a, b, c;
	const uint64_t X = 0x1000;

	tb_init(&tb, 2, NULL);
	p = &tb.cfg.tcp;
	q = &tb.cfg.tcc;
	tcp_hit = p->req_pipe_cycles + p->latency + p->resp_pipe_cycles;
	tcc_hit = p->req_pipe_cycles + p->issue_cycles + net(&tb, 0, 2, 0) + q->latency +
		  net(&tb, 2, 0, 64) + p->resp_pipe_cycles;
	tcc_miss = p->req_pipe_cycles + p->issue_cycles + net(&tb, 0, 2, 0) + q->dir_issue_cycles +
		   net(&tb, 2, 3, 0) + DIR_CYC + net(&tb, 3, 2, 64) + q->latency +
		   net(&tb, 2, 0, 64) + p->resp_pipe_cycles;
	/* the doc's values: 104-cycle TCP hit (4 + the 50 + 50 CU pipeline) */
	ck_assert_uint_eq(tcp_hit, 104);
	a = ld(&tb, 0, X); /* cold: TCP and TCC miss */
	ck_assert_uint_eq(lat(&tb, a), tcc_miss);
	b = ld(&tb, 0, X); /* TCP hit */
	ck_assert_uint_eq(lat(&tb, b), tcp_hit);
	c = ld(&tb, 1, X); /* the other CU: TCP miss, TCC hit */
	ck_assert_uint_eq(lat(&tb, c), tcc_hit);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1);
	ck_assert_uint_eq(tb.unblocks, 1); /* after the SysResp to the RdBlk */
	tb_fini(&tb);
}
END_TEST

/* Two CUs miss on one line at once: one RdBlk, both served by its SysResp. */
START_TEST(test_tcc_merges_misses)
{
	struct tb tb;
	uint32_t a, b;
	const uint64_t X = 0x2000;
	uint32_t v = 0xabcd;

	tb_init(&tb, 2, NULL);
	mem_store_write(tb.store, X, &v, 4);
	a = offer(&tb, 0, GPU_ACC_LD, X, 0, MEM_SCOPE_DEVICE, 0);
	b = offer(&tb, 1, GPU_ACC_LD, X, 0, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert(tb.req[a].done && tb.req[b].done);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1);
	ck_assert_uint_eq(val(&tb, a, X), v);
	ck_assert_uint_eq(val(&tb, b, X), v);
	tb_fini(&tb);
}
END_TEST

/* A store reaching the TCC while the line's RdBlk is out waits for the fill: sent on at
 * once, it would reach the directory after the RdBlk and the fill would hide it. */
START_TEST(test_tcc_write_behind_read)
{
	struct tb tb;
	const uint64_t X = 0x2400;
	uint8_t line[64];
	uint32_t v, r;

	tb_init(&tb, 2, NULL);
	offer(&tb, 0, GPU_ACC_LD, X, 0, MEM_SCOPE_DEVICE, 0);
	/* the store reaches the TCC 10 cycles after the read, while its RdBlk waits to leave */
	ck_assert_int_eq(sim_run_until(tb.k, 10 * NS), 0);
	offer(&tb, 1, GPU_ACC_ST, X + 8, 5, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert(apu_tcc_peek(tb.tcc, X, line));
	memcpy(&v, line + 8, 4);
	ck_assert_uint_eq(v, 5);
	r = ld(&tb, 1, X + 8);
	ck_assert_uint_eq(val(&tb, r, X + 8), 5);
	tb_fini(&tb);
}
END_TEST

/* ---- stores: write-through, write-evict, no allocation on a miss ----------------------------- */

START_TEST(test_store_write_through)
{
	struct tb tb;
	const uint64_t X = 0x3000, Y = 0x3040;
	uint32_t s, r;
	const struct dlog *wt;
	uint8_t line[64];
	uint32_t v;

	tb_init(&tb, 1, NULL);
	ld(&tb, 0, X);
	ck_assert(tcp_has(&tb, 0, X) && tcc_has(&tb, X));
	s = offer(&tb, 0, GPU_ACC_ST, X + 4, 77, MEM_SCOPE_DEVICE, 0);
	ck_assert(!tcp_has(&tb, 0, X)); /* write-evict at once */
	run(&tb);
	ck_assert(tb.req[s].done);
	wt = last(&tb, APU_WT);
	ck_assert_ptr_nonnull(wt);
	ck_assert_uint_eq(wt->line, X);
	/* performed only once the directory had the write (its early WBAck came back) */
	ck_assert_uint_gt(tb.req[s].at, wt->at);
	mem_store_read(tb.store, X + 4, &v, 4);
	ck_assert_uint_eq(v, 77);
	/* the TCC's V copy was updated, not dropped */
	ck_assert(apu_tcc_peek(tb.tcc, X, line));
	memcpy(&v, line + 4, 4);
	ck_assert_uint_eq(v, 77);
	/* a store miss allocates nothing in the TCP */
	s = offer(&tb, 0, GPU_ACC_ST, Y, 5, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert(tb.req[s].done && !tcp_has(&tb, 0, Y));
	ck_assert_uint_eq(count(&tb, APU_WT), 2);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1); /* no fetch for either store */
	/* the own store is read back (TCC hit) */
	r = ld(&tb, 0, X + 4);
	ck_assert_uint_eq(val(&tb, r, X + 4), 77);
	/* an SLC store drops the TCC's copy and still writes through */
	s = offer(&tb, 0, GPU_ACC_ST, X, 9, MEM_SCOPE_SYSTEM, 0);
	run(&tb);
	ck_assert(!tcc_has(&tb, X));
	ck_assert_uint_eq(count(&tb, APU_WT), 3);
	tb_fini(&tb);
}
END_TEST

/* A store to a line whose read is in flight waits for the fill, or the fill would hide it. */
START_TEST(test_store_behind_read)
{
	struct tb tb;
	const uint64_t X = 0x3800;
	uint32_t r1, s, r2;

	tb_init(&tb, 1, NULL);
	r1 = offer(&tb, 0, GPU_ACC_LD, X, 0, MEM_SCOPE_DEVICE, 0);
	s = offer(&tb, 0, GPU_ACC_ST, X, 11, MEM_SCOPE_DEVICE, 0);
	r2 = offer(&tb, 0, GPU_ACC_LD, X, 0, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert(tb.req[r1].done && tb.req[s].done && tb.req[r2].done);
	ck_assert_uint_eq(val(&tb, r1, X), 0);
	ck_assert_uint_eq(val(&tb, r2, X), 11);
	tb_fini(&tb);
}
END_TEST

/* ---- acquire and release ----------------------------------------------------------------------- */

START_TEST(test_acquire_invalidates)
{
	struct tb tb;
	const uint64_t X = 0x4000;
	uint32_t r;

	tb_init(&tb, 1, NULL);
	ld(&tb, 0, X);
	ck_assert(tcp_has(&tb, 0, X));
	/* work-group scope: one TCP per CU, nothing to do */
	ck_assert_uint_eq(apu_tcp_ops.fence(tb.cu[0].l1, 0, MEM_ORDER_ACQUIRE, MEM_SCOPE_WG), 0);
	ck_assert(tcp_has(&tb, 0, X));
	ck_assert_uint_eq(apu_tcp_ops.fence(tb.cu[0].l1, 0, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE),
			  0);
	ck_assert(!tcp_has(&tb, 0, X));
	ck_assert(tcc_has(&tb, X)); /* device scope: the TCC keeps its copy */
	r = ld(&tb, 0, X);
	ck_assert_uint_gt(lat(&tb, r), tb.cfg.tcp.req_pipe_cycles + tb.cfg.tcp.latency +
					   tb.cfg.tcp.resp_pipe_cycles);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1); /* served by the TCC */
	/* system scope: the TCC drops its V lines too (tcc.inv_on_sys_acquire) */
	apu_tcp_ops.fence(tb.cu[0].l1, 0, MEM_ORDER_ACQUIRE, MEM_SCOPE_SYSTEM);
	ck_assert(!tcp_has(&tb, 0, X) && !tcc_has(&tb, X));
	/* a kernel launch is a system-scope acquire */
	ld(&tb, 0, X);
	ck_assert(tcp_has(&tb, 0, X) && tcc_has(&tb, X));
	apu_tcp_ops.kernel_begin(tb.cu[0].l1);
	ck_assert(!tcp_has(&tb, 0, X) && !tcc_has(&tb, X));
	tb_fini(&tb);
}
END_TEST

static void no_sys_inv(struct apu_gpu_cfg *c)
{
	c->tcc.inv_on_sys_acquire = false;
}

START_TEST(test_sys_acquire_switch)
{
	struct tb tb;
	const uint64_t X = 0x4400;

	tb_init(&tb, 1, no_sys_inv);
	ld(&tb, 0, X);
	apu_tcp_ops.fence(tb.cu[0].l1, 0, MEM_ORDER_ACQUIRE, MEM_SCOPE_SYSTEM);
	ck_assert(!tcp_has(&tb, 0, X) && tcc_has(&tb, X)); /* gem5's behaviour */
	tb_fini(&tb);
}
END_TEST

/* Write-through: every store is performed (done) only at its WBAck, so a release, which waits
 * for every earlier access to be performed, waits for every write-through ack. */
START_TEST(test_release_waits_for_acks)
{
	struct tb tb;
	uint32_t s[3];
	sim_time_t last_done = 0;

	tb_init(&tb, 1, NULL);
	for (unsigned i = 0; i < 3; i++)
		s[i] = offer(&tb, 0, GPU_ACC_ST, 0x5000 + 64 * i, 100 + i, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert(tb.req[s[i]].done);
		if (tb.req[s[i]].at > last_done)
			last_done = tb.req[s[i]].at;
	}
	/* each store is done after the directory saw its WT */
	for (unsigned i = 0, k = 0; i < tb.nlog; i++)
		if (tb.log[i].type == APU_WT)
			ck_assert_uint_gt(tb.req[s[k++]].at, tb.log[i].at);
	ck_assert_uint_eq(count(&tb, APU_WT), 3);
	/* nothing is owed when the last is done: the release fence does not wait */
	ck_assert(apu_tcp_ops.idle(tb.cu[0].l1));
	ck_assert_uint_eq(apu_tcp_ops.fence(tb.cu[0].l1, 0, MEM_ORDER_RELEASE, MEM_SCOPE_SYSTEM),
			  0);
	tb_fini(&tb);
}
END_TEST

static void wb_l1(struct apu_gpu_cfg *c)
{
	c->tcp.write = APU_WRITE_BACK;
}

static void wb_l2(struct apu_gpu_cfg *c)
{
	c->tcc.write = APU_WRITE_BACK;
}

static void kend_cb(void *arg)
{
	(*(unsigned *)arg)++;
}

/* WB_L1: stores are done at the TCP; a release flushes and waits for every TccWBAck. */
START_TEST(test_wb_l1_release_flushes)
{
	struct tb tb;
	uint32_t s[3], r;
	uint32_t v;

	tb_init(&tb, 2, wb_l1);
	for (unsigned i = 0; i < 3; i++)
		s[i] = offer(&tb, 0, GPU_ACC_ST, 0x6000 + 64 * i, 200 + i, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(lat(&tb, s[i]), tb.cfg.tcp.req_pipe_cycles + tb.cfg.tcp.latency +
						      tb.cfg.tcp.resp_pipe_cycles);
	ck_assert_uint_eq(count(&tb, APU_WT), 0); /* nothing left the TCP */
	r = ld(&tb, 0, 0x6000);			  /* own dirty bytes hit */
	ck_assert_uint_eq(val(&tb, r, 0x6000), 200);
	ck_assert_uint_eq(apu_tcp_ops.fence(tb.cu[0].l1, 3, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE),
			  GPU_FENCE_PENDING);
	ck_assert_uint_eq(tb.cu[0].fence_done, 0);
	run(&tb);
	ck_assert_uint_eq(tb.cu[0].fence_done, 1);
	ck_assert_uint_eq(count(&tb, APU_WT), 3);
	for (unsigned i = 0; i < 3; i++) {
		mem_store_read(tb.store, 0x6000 + 64 * i, &v, 4);
		ck_assert_uint_eq(v, 200 + i);
	}
	/* another CU sees them after its acquire */
	apu_tcp_ops.fence(tb.cu[1].l1, 0, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
	r = ld(&tb, 1, 0x6040);
	ck_assert_uint_eq(val(&tb, r, 0x6040), 201);
	tb_fini(&tb);
}
END_TEST

/* WB_L2: stores and GLC atomics stay dirty in the TCC (W, M); a read of a W line writes it
 * back first; a PrbInv turns M into W and its ack carries nothing; a system-scope release
 * flushes every dirty line and waits for the WBAcks; so does the kernel's end. */
START_TEST(test_wb_l2)
{
	struct tb tb;
	const uint64_t X = 0xb000, Y = 0xb040, Z = 0xb080;
	uint64_t o[3];
	uint32_t s, a, r, v = 7;
	const struct dlog *ack;

	tb_init(&tb, 2, wb_l2);
	mem_store_write(tb.store, Z, &v, 4);
	s = offer(&tb, 0, GPU_ACC_ST, X + 4, 31, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	/* absorbed: done by the TCC's own ack, nothing sent to the directory */
	ck_assert(tb.req[s].done);
	ck_assert_uint_eq(count(&tb, APU_WT) + count(&tb, APU_RDBLK), 0);
	ck_assert(apu_tcc_probe(tb.tcc, X, o));
	ck_assert_uint_eq(o[0], 3); /* W */
	ck_assert_uint_eq(o[1], 0xfull << 4);
	/* a read of the W line: its dirty bytes written back first, then RdBlk */
	r = ld(&tb, 1, X + 4);
	ck_assert_uint_eq(val(&tb, r, X + 4), 31);
	ck_assert_uint_eq(count(&tb, APU_WT), 1);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1);
	/* a GLC atomic: fetched, performed, kept dirty (M), no WT */
	a = offer(&tb, 0, GPU_ACC_ATOM, Z, 1, MEM_SCOPE_DEVICE, MEM_ATOM_ADD);
	run(&tb);
	ck_assert_uint_eq(tb.req[a].lanes.lane[0].old, 7);
	ck_assert(apu_tcc_probe(tb.tcc, Z, o));
	ck_assert_uint_eq(o[0], 2); /* M */
	ck_assert_uint_eq(count(&tb, APU_WT), 1);
	/* a probe: M -> W, the ack carries no data */
	dir_probe(&tb, Z);
	run(&tb);
	ack = last(&tb, APU_PRBACK);
	ck_assert(!ack->hit && !ack->dirty && ack->bytes == 0);
	ck_assert(apu_tcc_probe(tb.tcc, Z, o));
	ck_assert_uint_eq(o[0], 3);
	/* a store to Y, then a system-scope release: Flush of Y and Z, wait for the WBAcks */
	offer(&tb, 0, GPU_ACC_ST, Y, 55, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert_uint_eq(apu_tcp_ops.fence(tb.cu[0].l1, 1, MEM_ORDER_RELEASE, MEM_SCOPE_SYSTEM),
			  GPU_FENCE_PENDING);
	run(&tb);
	ck_assert_uint_eq(tb.cu[0].fence_done, 1);
	ck_assert_uint_eq(count(&tb, APU_FLUSH), 2);
	mem_store_read(tb.store, Y, &v, 4);
	ck_assert_uint_eq(v, 55);
	mem_store_read(tb.store, Z, &v, 4);
	ck_assert_uint_eq(v, 8);
	ck_assert(!tcc_has(&tb, Y) && !tcc_has(&tb, Z));
	/* a device-scope release does not flush the TCC */
	offer(&tb, 0, GPU_ACC_ST, Y, 56, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert_uint_eq(apu_tcp_ops.fence(tb.cu[0].l1, 1, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE),
			  0);
	/* the kernel's end flushes it */
	tb.cu[0].fence_done = 0;
	{
		static unsigned ended;

		ended = 0;
		apu_tcp_ops.kernel_end(tb.cu[1].l1, kend_cb, &ended);
		ck_assert_uint_eq(ended, 0);
		run(&tb);
		ck_assert_uint_eq(ended, 1);
	}
	ck_assert_uint_eq(count(&tb, APU_FLUSH), 3);
	mem_store_read(tb.store, Y, &v, 4);
	ck_assert_uint_eq(v, 56);
	tb_fini(&tb);
}
END_TEST

/* ---- atomics ----------------------------------------------------------------------------------- */

START_TEST(test_glc_atomic_at_tcc)
{
	struct tb tb;
	const uint64_t X = 0x7000;
	uint32_t a, b, v = 5;

	tb_init(&tb, 1, NULL);
	mem_store_write(tb.store, X, &v, 4);
	a = offer(&tb, 0, GPU_ACC_ATOM, X, 3, MEM_SCOPE_DEVICE, MEM_ATOM_ADD);
	run(&tb);
	ck_assert(tb.req[a].done);
	ck_assert_uint_eq(tb.req[a].lanes.lane[0].old, 5);
	/* miss: a regular RdBlk, then the result written through; never an Atomic */
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1);
	ck_assert_uint_eq(count(&tb, APU_WT), 1);
	ck_assert_uint_eq(count(&tb, APU_ATOMIC), 0);
	mem_store_read(tb.store, X, &v, 4);
	ck_assert_uint_eq(v, 8);
	/* hit: performed at the TCC, one WT */
	b = offer(&tb, 0, GPU_ACC_ATOM, X, 10, MEM_SCOPE_DEVICE, MEM_ATOM_ADD);
	run(&tb);
	ck_assert_uint_eq(tb.req[b].lanes.lane[0].old, 8);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 1);
	ck_assert_uint_eq(count(&tb, APU_WT), 2);
	ck_assert_uint_eq(count(&tb, APU_ATOMIC), 0);
	mem_store_read(tb.store, X, &v, 4);
	ck_assert_uint_eq(v, 18);
	ck_assert(!tcp_has(&tb, 0, X));
	tb_fini(&tb);
}
END_TEST

START_TEST(test_slc_atomic_at_dir)
{
	struct tb tb;
	const uint64_t X = 0x7400;
	uint32_t a, v = 40;

	tb_init(&tb, 1, NULL);
	mem_store_write(tb.store, X, &v, 4);
	ld(&tb, 0, X); /* the TCC holds the line V */
	ck_assert(tcc_has(&tb, X));
	a = offer(&tb, 0, GPU_ACC_ATOM, X, 2, MEM_SCOPE_SYSTEM, MEM_ATOM_ADD);
	run(&tb);
	ck_assert_uint_eq(tb.req[a].lanes.lane[0].old, 40);
	ck_assert_uint_eq(count(&tb, APU_ATOMIC), 1);
	ck_assert_uint_eq(count(&tb, APU_WT), 0);
	ck_assert(!tcc_has(&tb, X)); /* bypassed and dropped */
	mem_store_read(tb.store, X, &v, 4);
	ck_assert_uint_eq(v, 42);
	tb_fini(&tb);
}
END_TEST

static void atomics_at_dir(struct apu_gpu_cfg *c)
{
	c->tcc.glc_atomic_at = APU_ATOMIC_AT_DIR;
}

START_TEST(test_glc_atomic_at_dir_switch)
{
	struct tb tb;
	uint32_t a;

	tb_init(&tb, 1, atomics_at_dir);
	a = offer(&tb, 0, GPU_ACC_ATOM, 0x7800, 1, MEM_SCOPE_DEVICE, MEM_ATOM_ADD);
	run(&tb);
	ck_assert(tb.req[a].done);
	ck_assert_uint_eq(count(&tb, APU_ATOMIC), 1);
	ck_assert_uint_eq(count(&tb, APU_RDBLK), 0);
	tb_fini(&tb);
}
END_TEST

/* ---- probes ------------------------------------------------------------------------------------ */

/* A PrbInv drops the TCC's copy and its ack has hit = false and no data, even for a line the
 * GPU wrote (the write-through TCC's copy is never newer than the directory's). */
START_TEST(test_probe_inv)
{
	struct tb tb;
	const uint64_t X = 0x8000;
	const struct dlog *ack;

	tb_init(&tb, 1, NULL);
	ld(&tb, 0, X);
	offer(&tb, 0, GPU_ACC_ST, X, 123, MEM_SCOPE_DEVICE, 0);
	run(&tb);
	ck_assert(tcc_has(&tb, X));
	dir_probe(&tb, X);
	run(&tb);
	ck_assert(!tcc_has(&tb, X));
	ack = last(&tb, APU_PRBACK);
	ck_assert_ptr_nonnull(ack);
	ck_assert(!ack->hit && !ack->dirty);
	ck_assert_uint_eq(ack->bytes, 0);
	ck_assert_uint_eq(count(&tb, APU_PRBACK), 1);
	/* a probe of a line it does not hold is acked the same way */
	dir_probe(&tb, 0x8040);
	run(&tb);
	ck_assert_uint_eq(count(&tb, APU_PRBACK), 2);
	ck_assert(!last(&tb, APU_PRBACK)->hit && last(&tb, APU_PRBACK)->bytes == 0);
	tb_fini(&tb);
}
END_TEST

/* docs/apu.md §7 from the TCC's side: what each GPU transaction sends the directory (the
 * directory's probes follow from these), and one ack without data per probe. */
START_TEST(test_tcc_transaction_counts)
{
	struct tb tb;
	unsigned rd, wt, at, ub;

	tb_init(&tb, 1, NULL);
#define SNAP()                                                                             \
	(rd = count(&tb, APU_RDBLK), wt = count(&tb, APU_WT), at = count(&tb, APU_ATOMIC), \
	 ub = tb.unblocks)
#define DELTA(r, w, a, u)                                          \
	do {                                                       \
		ck_assert_uint_eq(count(&tb, APU_RDBLK) - rd, r);  \
		ck_assert_uint_eq(count(&tb, APU_WT) - wt, w);     \
		ck_assert_uint_eq(count(&tb, APU_ATOMIC) - at, a); \
		ck_assert_uint_eq(tb.unblocks - ub, u);            \
	} while (0)
	SNAP();
	ld(&tb, 0, 0x9000); /* TCC read miss: RdBlk (P downgrades), Unblock */
	DELTA(1, 0, 0, 1);
	SNAP();
	offer(&tb, 0, GPU_ACC_LD, 0x9040, 0, MEM_SCOPE_SYSTEM, 0); /* SLC read: RdBlk */
	run(&tb);
	DELTA(1, 0, 0, 1);
	ck_assert(!tcc_has(&tb, 0x9040)); /* not allocated */
	SNAP();
	offer(&tb, 0, GPU_ACC_ST, 0x9080, 1, MEM_SCOPE_DEVICE, 0); /* WT: no unblock */
	run(&tb);
	DELTA(0, 1, 0, 0);
	SNAP();
	offer(&tb, 0, GPU_ACC_ATOM, 0x90c0, 1, MEM_SCOPE_SYSTEM, MEM_ATOM_ADD); /* SLC atomic */
	run(&tb);
	DELTA(0, 0, 1, 0);
	SNAP();
	offer(&tb, 0, GPU_ACC_ATOM, 0x9100, 1, MEM_SCOPE_DEVICE, MEM_ATOM_ADD); /* GLC, miss */
	run(&tb);
	DELTA(1, 1, 0, 1);
	SNAP();
	offer(&tb, 0, GPU_ACC_ATOM, 0x9100, 1, MEM_SCOPE_DEVICE, MEM_ATOM_ADD); /* GLC, hit */
	run(&tb);
	DELTA(0, 1, 0, 0);
	for (unsigned i = 0; i < 5; i++)
		dir_probe(&tb, 0x9000 + 64 * i);
	run(&tb);
	ck_assert_uint_eq(count(&tb, APU_PRBACK), 5);
	for (unsigned i = 0; i < tb.nlog; i++)
		if (tb.log[i].type == APU_PRBACK)
			ck_assert(!tb.log[i].hit && !tb.log[i].dirty && tb.log[i].bytes == 0);
#undef SNAP
#undef DELTA
	tb_fini(&tb);
}
END_TEST

/* ---- message passing ------------------------------------------------------------------------- */

/* CU0 writes data then, after its release (the data store performed), the flag, round after
 * round; CU1 reads the flag, acquires, reads the data: it must never see older data than the
 * flag promises. CU1's TCP holds both lines from the start, so without the acquire it would.
 * Everything runs concurrently, driven from the done() callbacks. */
#define MP_ROUNDS 20
#define MP_DATA	  0xa000
#define MP_FLAG	  0xa100

struct mp {
	unsigned round;	     /* CU0: the round being written */
	uint32_t seen;	     /* CU1: flag value read */
	unsigned bad, reads; /* data reads older than the flag */
	bool acquire;	     /* CU1 acquires between flag and data */
	bool done;
};

#define MP_START 0x7fffffffu

static void mp_step(struct sim_kernel *k, void *obj, void *arg);

static void mp_on_done(struct tb *tb, unsigned cu, uint32_t id)
{
	sim_schedule(tb->k, NS, mp_step, tb, (void *)(((uintptr_t)id << 1) | cu));
}

static void mp_step(struct sim_kernel *k, void *obj, void *arg)
{
	struct tb *tb = obj;
	struct mp *mp = tb->drv;
	unsigned cu = (unsigned)((uintptr_t)arg & 1);
	uint32_t id = (uint32_t)((uintptr_t)arg >> 1);
	bool start = id == MP_START;

	(void)k;
	if (cu == 0) {
		/* round r: data = r; once it is performed (the release), flag = r */
		if (start || tb->req[id].a.line_addr == MP_FLAG) {
			if (mp->round <= MP_ROUNDS)
				offer(tb, 0, GPU_ACC_ST, MP_DATA, mp->round, MEM_SCOPE_DEVICE, 0);
		} else {
			offer(tb, 0, GPU_ACC_ST, MP_FLAG, mp->round, MEM_SCOPE_DEVICE, 0);
			mp->round++;
		}
		return;
	}
	if (!start && tb->req[id].a.line_addr == MP_FLAG) {
		/* the flag (a load-acquire, GLC): acquire, then the data */
		mp->seen = val(tb, id, MP_FLAG);
		if (mp->acquire)
			apu_tcp_ops.fence(tb->cu[1].l1, 0, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
		offer(tb, 1, GPU_ACC_LD, MP_DATA, 0, MEM_SCOPE_DEVICE, 0);
		return;
	}
	if (!start) {
		mp->reads++;
		if (val(tb, id, MP_DATA) < mp->seen)
			mp->bad++;
		if (mp->seen >= MP_ROUNDS) {
			mp->done = true;
			return;
		}
	}
	tb->order = MEM_ORDER_ACQUIRE;
	offer(tb, 1, GPU_ACC_LD, MP_FLAG, 0, MEM_SCOPE_DEVICE, 0);
	tb->order = MEM_ORDER_RELAXED;
}

static void mp_run(bool acquire, unsigned P, unsigned *bad, unsigned *reads)
{
	struct tb tb;
	struct mp mp = {.round = 1, .acquire = acquire};

	tb_init_p(&tb, 2, P, NULL);
	/* CU1 caches the data line (0) before CU0 starts */
	ld(&tb, 1, MP_DATA);
	tb.drv = &mp;
	tb.on_done = mp_on_done;
	sim_schedule(tb.k, NS, mp_step, &tb, (void *)(((uintptr_t)MP_START << 1) | 0));
	sim_schedule(tb.k, NS, mp_step, &tb, (void *)(((uintptr_t)MP_START << 1) | 1));
	run(&tb);
	*bad = mp.bad;
	*reads = mp.reads;
	ck_assert(mp.done);
	ck_assert_uint_eq(mp.round, MP_ROUNDS + 1);
	tb_fini(&tb);
}

START_TEST(test_message_passing)
{
	unsigned bad, reads;

	unsigned P = (unsigned)_i * 2; /* the scripted directory, then the real one */

	mp_run(true, P, &bad, &reads);
	ck_assert_uint_gt(reads, 0);
	ck_assert_uint_eq(bad, 0);
	/* the control: without the acquire CU1 reads its stale copy of the data */
	mp_run(false, P, &bad, &reads);
	ck_assert_uint_gt(bad, 0);
}
END_TEST

/* ---- random stress with the coherence checker ------------------------------------------------- */

/* 4 CUs x 4 warps, each warp one access at a time: loads and stores of 6 lines, GLC and SLC
 * atomic adds on 2 counter lines (never stored to, so every value a word takes is new), and
 * acquires of device and system scope. The TCC reports the writes it serializes (stores, GLC
 * atomics), the directory agent the SLC atomics; every load's value goes to the checker as a
 * read of its warp. Small lines set so lines are shared, parked and merged all the time. */
#define ST_CU	 4
#define ST_WARPS 4
#define ST_OPS	 300

struct st_warp {
	unsigned left;
	uint32_t cnt;
};

struct st {
	struct st_warp w[ST_CU][ST_WARPS];
	uint32_t pending[ST_CU][64]; /* refused: (warp << 1) | 1 to re-offer */
	unsigned npend[ST_CU];
	uint64_t sum;
	unsigned finished;
	unsigned refused; /* accesses the TCP refused (MSHRs or merge slots full) */
};

static uint64_t rnd(struct tb *tb)
{
	return cs_splitmix64(&tb->rng);
}

static void st_issue(struct tb *tb, unsigned cu, unsigned w);

static void st_step(struct sim_kernel *k, void *obj, void *arg)
{
	struct tb *tb = obj;
	unsigned v = (unsigned)(uintptr_t)arg;

	(void)k;
	st_issue(tb, v / ST_WARPS, v % ST_WARPS);
}

/* One access of warp w, built from the random stream; refused ones wait for retry(). */
static void st_issue(struct tb *tb, unsigned cu, unsigned w)
{
	struct st *st = tb->drv;
	struct st_warp *sw = &st->w[cu][w];
	uint64_t r = rnd(tb);
	unsigned pick = (unsigned)(r % 100);
	uint64_t addr = 0x10000 + ((r >> 8) % 6) * 64 + ((r >> 16) % 16) * 4;
	uint64_t caddr = 0x20000 + ((r >> 8) % 2) * 64 + ((r >> 16) % 16) * 4;
	uint32_t id;
	struct req *q;
	unsigned off;

	if (!sw->left) {
		st->finished++;
		return;
	}
	sw->left--;
	if (pick < 11) {
		/* an acquire or a release: nothing of this warp is outstanding (one access at a
		 * time); a release may have to wait for a flush (fence_done continues it) */
		sim_time_t r2 = apu_tcp_ops.fence(
		    tb->cu[cu].l1, w, pick < 8 ? MEM_ORDER_ACQUIRE : MEM_ORDER_RELEASE,
		    pick < 4 || pick == 8 ? MEM_SCOPE_DEVICE : MEM_SCOPE_SYSTEM);

		if (r2 != GPU_FENCE_PENDING)
			sim_schedule(tb->k, NS, st_step, tb,
				     (void *)(uintptr_t)(cu * ST_WARPS + w));
		return;
	}
	id = tb->nreq++;
	ck_assert_uint_lt(id, MAX_REQ);
	q = &tb->req[id];
	memset(q, 0, sizeof(*q));
	q->issued = sim_now(tb->k);
	q->a.id = id;
	q->a.warp = (uint16_t)w;
	q->a.sector_mask = 0xff;
	q->a.scope = MEM_SCOPE_DEVICE;
	if (pick < 55) {
		q->a.kind = GPU_ACC_LD;
		if (pick < 20)
			addr = caddr;
	} else if (pick < 85) {
		uint32_t v = 0x80000000u | (cu << 20) | (w << 16) | (++sw->cnt & 0xffff);

		q->a.kind = GPU_ACC_ST;
		memcpy(q->st + (addr & 63), &v, 4);
		q->a.data = q->st;
	} else {
		q->a.kind = GPU_ACC_ATOM;
		addr = caddr;
		if (pick >= 95 && !tb->no_slc)
			q->a.scope = MEM_SCOPE_SYSTEM;
		q->lanes.n = 1;
		q->lanes.op = MEM_ATOM_ADD;
		q->lanes.bytes = 4;
		q->lanes.lane[0].offset = (uint16_t)(addr & 63);
		q->lanes.lane[0].a = 1;
		q->a.data = (uint8_t *)&q->lanes;
	}
	off = (unsigned)(addr & 63);
	q->a.line_addr = addr & ~63ull;
	q->a.byte_mask[0] = 0xfull << off;
	if (!apu_tcp_ops.access(tb->cu[cu].l1, &q->a)) {
		st->refused++;
		ck_assert_uint_lt(st->npend[cu], 64);
		st->pending[cu][st->npend[cu]++] = id;
	}
}

static void st_retry_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct tb *tb = obj;
	struct st *st = tb->drv;
	unsigned cu = (unsigned)(uintptr_t)arg, n = st->npend[cu];
	uint32_t ids[64];

	(void)k;
	memcpy(ids, st->pending[cu], n * sizeof(ids[0]));
	st->npend[cu] = 0;
	for (unsigned i = 0; i < n; i++)
		if (!apu_tcp_ops.access(tb->cu[cu].l1, &tb->req[ids[i]].a))
			st->pending[cu][st->npend[cu]++] = ids[i];
}

static void st_on_done(struct tb *tb, unsigned cu, uint32_t id)
{
	struct st *st = tb->drv;
	struct req *q = &tb->req[id];
	unsigned w = q->a.warp;

	if (q->a.kind == GPU_ACC_LD) {
		uint64_t addr = q->a.line_addr + (unsigned)__builtin_ctzll(q->a.byte_mask[0]);
		uint32_t v = val(tb, id, addr);

		cohcheck_read(tb->chk, cu * ST_WARPS + w, addr, 4, v);
		st->sum = st->sum * 31 + v;
	} else if (q->a.kind == GPU_ACC_ATOM) {
		uint64_t addr = q->a.line_addr + q->lanes.lane[0].offset;
		uint32_t old = (uint32_t)q->lanes.lane[0].old;

		/* it read old and wrote old + 1: its later reads may not go back */
		cohcheck_read(tb->chk, cu * ST_WARPS + w, addr, 4, old);
		cohcheck_read(tb->chk, cu * ST_WARPS + w, addr, 4, old + 1);
		st->sum = st->sum * 31 + old;
	} else {
		/* a performed store: the writer has seen its own value (read-own-write) */
		uint64_t addr = q->a.line_addr + (unsigned)__builtin_ctzll(q->a.byte_mask[0]);
		uint32_t v;

		memcpy(&v, q->st + (addr & 63), 4);
		cohcheck_read(tb->chk, cu * ST_WARPS + w, addr, 4, v);
	}
	if (tb->cu[cu].retry) {
		tb->cu[cu].retry = false;
		sim_schedule(tb->k, NS, st_retry_cb, tb, (void *)(uintptr_t)cu);
	}
	sim_schedule(tb->k, NS, st_step, tb, (void *)(uintptr_t)(cu * ST_WARPS + w));
}

static void st_on_fence(struct tb *tb, unsigned cu, unsigned warp)
{
	sim_schedule(tb->k, NS, st_step, tb, (void *)(uintptr_t)(cu * ST_WARPS + warp));
}

static void small_caches(struct apu_gpu_cfg *c)
{
	/* tiny MSHR tables and merge slots, so refusals and held requests happen */
	c->tcp.mshrs = 2;
	c->tcp.mshr_merge = 4;
	c->tcc.mshrs = 3;
	c->tcc.mshr_merge = 4;
}

/* One run; returns a digest of everything observable. */
static uint64_t st_run(uint64_t seed, unsigned variant, uint64_t *viol, uint64_t *reads,
		       unsigned *refused)
{
	struct tb tb;
	struct st *st = calloc(1, sizeof(*st));
	uint64_t d;

	ck_assert_ptr_nonnull(st);
	/* variants: 0 roomy, 1 tiny MSHRs, 2 WB_L2 (scripted directory); 3 and 4: 0 and 2 with
	 * the real directory and 2 CorePair agents (no SLC atomics: the directory does not
	 * report writes to the checker) */
	tb_init_p(&tb, ST_CU, variant >= 3 ? 2 : 0,
		  variant == 1			? small_caches
		  : variant % 2 == 0 && variant ? wb_l2
						: NULL);
	tb.no_slc = variant >= 3;
	ck_assert_int_eq(cohcheck_create(&tb.chk), 0);
	tb.ctx.chk = tb.chk;
	tb.rng = seed;
	tb.drv = st;
	tb.on_done = st_on_done;
	tb.on_fence = st_on_fence;
	for (unsigned c = 0; c < ST_CU; c++)
		for (unsigned w = 0; w < ST_WARPS; w++) {
			st->w[c][w].left = ST_OPS;
			sim_schedule(tb.k, (c * ST_WARPS + w) * NS, st_step, &tb,
				     (void *)(uintptr_t)(c * ST_WARPS + w));
		}
	run(&tb);
	/* it terminated with every op performed and nothing in flight */
	ck_assert_uint_eq(st->finished, ST_CU * ST_WARPS);
	for (unsigned c = 0; c < ST_CU; c++) {
		ck_assert_uint_eq(st->npend[c], 0);
		ck_assert(apu_tcp_ops.idle(tb.cu[c].l1));
	}
	ck_assert(apu_tcc_idle(tb.tcc));
	for (uint32_t i = 0; i < tb.nreq; i++)
		ck_assert(tb.req[i].done);
	*refused = st->refused;
	*viol = cohcheck_violations(tb.chk);
	*reads = cohcheck_reads(tb.chk);
	if (*viol)
		fprintf(stderr, "stress: %s\n", cohcheck_first(tb.chk));
	d = st->sum ^ (sim_now(tb.k) * 0x100000001b3ull) ^ mem_store_digest(tb.store) ^
	    (apu_tcc_digest(tb.tcc) << 1);
	for (unsigned c = 0; c < ST_CU; c++)
		d = d * 0x100000001b3ull ^ apu_tcp_ops.digest(tb.cu[c].l1);
	tb_fini(&tb);
	free(st);
	return d;
}

START_TEST(test_stress)
{
	uint64_t v1, r1, v2, r2, d1, d2, d3;
	bool small = _i == 1;
	unsigned ref;

	d1 = st_run(7, (unsigned)_i, &v1, &r1, &ref);
	if (small)
		ck_assert_uint_gt(ref, 0); /* the refuse/retry path ran */
	ck_assert_uint_gt(r1, ST_CU * ST_WARPS * ST_OPS / 4);
	ck_assert_uint_eq(v1, 0);
	d2 = st_run(7, (unsigned)_i, &v2, &r2, &ref); /* same seed: same run, bit for bit */
	ck_assert_uint_eq(d1, d2);
	ck_assert_uint_eq(r1, r2);
	d3 = st_run(8, (unsigned)_i, &v2, &r2, &ref); /* another seed: another run */
	ck_assert_uint_eq(v2, 0);
	ck_assert_uint_ne(d1, d3);
}
END_TEST

/* ---- with the real directory (apu_dir.c) ------------------------------------------------------ */

static void cp_rdblkm(struct tb *tb, unsigned i, uint64_t line)
{
	struct cpa *a = &tb->cp[i];

	apu_port_send(a->port, apu_msg_new(tb->msgs, APU_RDBLKM, line, a->ep, tb->n + 1, a->ep), 0);
}

/* docs/apu.md §7 with P = 2 CorePair agents: the probes each GPU transaction costs, the TCC
 * left out of downgrades, WTs and atomics and included in a CorePair's RdBlkM; the TCC's ack
 * never carries data. */
START_TEST(test_real_dir_probe_counts)
{
	struct tb tb;
	const unsigned P = 2;
	const uint64_t X = 0xc000, A = 0xc040, B = 0xc080;
	uint32_t v = 9, r, a;
	unsigned dg, inv;

	tb_init_p(&tb, 1, P, _i ? wb_l2 : NULL);
	mem_store_write(tb.store, X, &v, 4);
#define SNAP() (dg = cp_probes(&tb, false), inv = cp_probes(&tb, true))
#define DELTA(d, i)                                               \
	do {                                                      \
		ck_assert_uint_eq(cp_probes(&tb, false) - dg, d); \
		ck_assert_uint_eq(cp_probes(&tb, true) - inv, i); \
	} while (0)
	SNAP();
	r = ld(&tb, 0, X); /* RdBlk: P downgrades */
	ck_assert_uint_eq(val(&tb, r, X), 9);
	DELTA(P, 0);
	ck_assert(tcc_has(&tb, X));
	SNAP();
	offer(&tb, 0, GPU_ACC_ATOM, A, 5, MEM_SCOPE_SYSTEM, MEM_ATOM_ADD); /* SLC: P inv */
	run(&tb);
	DELTA(0, P);
	SNAP();
	a = offer(&tb, 0, GPU_ACC_ATOM, B, 2, MEM_SCOPE_DEVICE, MEM_ATOM_ADD);
	run(&tb);
	ck_assert_uint_eq(tb.req[a].lanes.lane[0].old, 0);
	if (!_i) {
		DELTA(P, P); /* GLC, TCC miss: RdBlk then WT */
		SNAP();
		offer(&tb, 0, GPU_ACC_ATOM, B, 2, MEM_SCOPE_DEVICE, MEM_ATOM_ADD);
		run(&tb);
		DELTA(0, P); /* GLC, TCC hit: WT */
		SNAP();
		offer(&tb, 0, GPU_ACC_ST, X + 8, 3, MEM_SCOPE_DEVICE, 0);
		run(&tb);
		DELTA(0, P); /* WT */
		mem_store_read(tb.store, X + 8, &v, 4);
		ck_assert_uint_eq(v, 3);
	} else {
		DELTA(P, 0); /* WB_L2: the result stays in the TCC (M) */
		offer(&tb, 0, GPU_ACC_ST, X + 8, 3, MEM_SCOPE_DEVICE, 0);
		run(&tb);
		SNAP();
		/* the release flushes B and X: one Flush each, P invalidations each */
		ck_assert_uint_eq(
		    apu_tcp_ops.fence(tb.cu[0].l1, 0, MEM_ORDER_RELEASE, MEM_SCOPE_SYSTEM),
		    GPU_FENCE_PENDING);
		run(&tb);
		ck_assert_uint_eq(tb.cu[0].fence_done, 1);
		DELTA(0, 2 * P);
		mem_store_read(tb.store, B, &v, 4);
		ck_assert_uint_eq(v, 2);
		mem_store_read(tb.store, X + 8, &v, 4);
		ck_assert_uint_eq(v, 3);
		ld(&tb, 0, X);
	}
	/* a CorePair's RdBlkM: the other CorePair and the TCC are invalidated */
	ck_assert(tcc_has(&tb, X));
	SNAP();
	v = tb.cp[0].inv;
	cp_rdblkm(&tb, 0, X);
	run(&tb);
	ck_assert_uint_eq(tb.cp[0].resp, 1);
	DELTA(0, P - 1);
	ck_assert_uint_eq(tb.cp[0].inv, v); /* not the requester */
	ck_assert(!tcc_has(&tb, X));
#undef SNAP
#undef DELTA
	tb_fini(&tb);
}
END_TEST

static Suite *apu_gpu_suite(void)
{
	Suite *s = suite_create("apu_gpu");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_latencies);
	tcase_add_test(tc, test_tcc_merges_misses);
	tcase_add_test(tc, test_tcc_write_behind_read);
	tcase_add_test(tc, test_store_write_through);
	tcase_add_test(tc, test_store_behind_read);
	tcase_add_test(tc, test_acquire_invalidates);
	tcase_add_test(tc, test_sys_acquire_switch);
	tcase_add_test(tc, test_release_waits_for_acks);
	tcase_add_test(tc, test_wb_l1_release_flushes);
	tcase_add_test(tc, test_wb_l2);
	tcase_add_test(tc, test_glc_atomic_at_tcc);
	tcase_add_test(tc, test_slc_atomic_at_dir);
	tcase_add_test(tc, test_glc_atomic_at_dir_switch);
	tcase_add_test(tc, test_probe_inv);
	tcase_add_test(tc, test_tcc_transaction_counts);
	tcase_add_loop_test(tc, test_message_passing, 0, 2);
	tcase_add_loop_test(tc, test_stress, 0, 5);
	tcase_add_loop_test(tc, test_real_dir_probe_counts, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(apu_gpu_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
