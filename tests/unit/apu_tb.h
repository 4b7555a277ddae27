/*
 * tests/unit/apu_tb.h - a small APU system for the unit tests of tlm/coherence/apu: a crossbar
 * network, P scripted CorePair agents (or real CorePairs, added by the test), a scripted TCC
 * agent, the DMA engine, the directory and one DDR4 channel behind it.
 *
 * Endpoints: agents 0..P-1 (CorePairs), P (TCC), P + 1 (DMA), P + 2 (directory).
 *
 * A scripted agent records every message it receives (type, time, fields, data) and answers
 * as a cache would, from its script: probes get a PrbAck with the agent's `hit` / `dirty`
 * (with its `data` when dirty) after `ack_cycles`; a SysResp gets an Unblock (a CorePair
 * always, the TCC after a read grant); a WBAck for the agent's victim gets VicData or, with
 * `stale`, StaleNotif.
 */
#ifndef COHSCOPE_TESTS_APU_TB_H
#define COHSCOPE_TESTS_APU_TB_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_dir.h"
#include "tlm/coherence/apu/apu_dma.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/dram/dram.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/store.h"
#include "tlm/noc/noc.h"
#include "util/params.h"
#include "util/stats.h"

#define TB_MAXA 9
#define TB_REC	256

struct tb_rec {
	uint8_t type;
	uint16_t src;
	uint64_t addr;
	sim_time_t t;
	struct apu_ext e;
	uint8_t data[APU_LINE];
};

struct tb;

struct tb_agent {
	struct tb *tb;
	struct apu_port *port;
	unsigned ep;
	bool tcc;
	/* script */
	bool hit, dirty, stale;
	uint64_t ack_cycles;
	uint8_t data[APU_LINE];
	uint64_t vic_line;
	bool vic_dirty;
	/* record */
	struct tb_rec rec[TB_REC];
	unsigned n;
	sim_time_t last_ack_sent;
};

struct tb {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct apu_msgs *msgs;
	struct cs_stats *stats;
	struct mem_store *store;
	struct noc *net;
	struct dram_ctrl *dram;
	struct addr_map map;
	struct apu_dir *dir;
	struct apu_dma *dma;
	unsigned P, ep_tcc, ep_dma, ep_dir;
	struct tb_agent ag[TB_MAXA];
	struct apu_dir_cfg dcfg;
	struct apu_llc_cfg lcfg;
	struct apu_dma_cfg mcfg;
};

static inline enum apu_recv tb_agent_recv(void *owner, struct mem_msg *m)
{
	struct tb_agent *a = owner;
	struct tb *tb = a->tb;
	struct apu_ext *e = apu_ext_of(tb->msgs, m);
	struct mem_msg *r = NULL;
	uint64_t delay = 1;

	if (a->n < TB_REC) {
		struct tb_rec *x = &a->rec[a->n++];

		x->type = m->type;
		x->src = m->src;
		x->addr = m->p.addr;
		x->t = sim_now(tb->k);
		x->e = *e;
		memcpy(x->data, m->p.data, APU_LINE);
	}
	switch (m->type) {
	case APU_PRBDOWNGRADE:
	case APU_PRBINV:
		r = apu_msg_new(tb->msgs, APU_PRBACK, m->p.addr, a->ep, m->src, m->requester);
		apu_ext_of(tb->msgs, r)->hit = a->tcc ? false : a->hit;
		if (a->dirty && !a->tcc) {
			apu_ext_of(tb->msgs, r)->dirty = true;
			r->req_bytes = APU_LINE;
			memcpy(r->p.data, a->data, APU_LINE);
		}
		delay = a->ack_cycles;
		a->last_ack_sent = sim_now(tb->k) + apu_port_delay(a->port, delay);
		break;
	case APU_SYSRESP:
		if (!a->tcc || e->grant == APU_GRANT_S || e->grant == APU_GRANT_E)
			r = apu_msg_new(tb->msgs, APU_UNBLOCK, m->p.addr, a->ep, m->src, a->ep);
		break;
	case APU_WBACK:
		if (a->vic_line && a->vic_line == m->p.addr) {
			r = apu_msg_new(tb->msgs, a->stale ? APU_STALENOTIF : APU_VICDATA,
					m->p.addr, a->ep, m->src, a->ep);
			if (!a->stale) {
				apu_ext_of(tb->msgs, r)->dirty = a->vic_dirty;
				memcpy(r->p.data, a->data, APU_LINE);
			}
			a->vic_line = 0;
		}
		break;
	default:
		break;
	}
	if (r)
		apu_port_send(a->port, r, delay);
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops tb_agent_ops = {.recv = tb_agent_recv};

/* The agent sends a request of type t for addr to the directory now. */
static inline struct apu_ext *tb_req(struct tb *tb, unsigned agent, enum apu_msg_type t,
				     uint64_t addr, struct mem_msg **out)
{
	struct tb_agent *a = &tb->ag[agent];
	struct mem_msg *m = apu_msg_new(tb->msgs, t, addr, a->ep, tb->ep_dir, a->ep);

	if (t == APU_VICDIRTY || t == APU_VICCLEAN) {
		a->vic_line = apu_line_of(addr);
		a->vic_dirty = t == APU_VICDIRTY;
	}
	if (out)
		*out = m;
	return apu_ext_of(tb->msgs, m);
}

static inline void tb_send(struct tb *tb, unsigned agent, struct mem_msg *m)
{
	apu_port_send(tb->ag[agent].port, m, 0);
}

static inline uint64_t tb_stat(struct tb *tb, const char *name)
{
	double v = -1;

	ck_assert_msg(cs_stats_value(tb->stats, name, &v) == 0, "no stat %s", name);
	return (uint64_t)v;
}

/* Messages of type t agent a received. */
static inline unsigned tb_count(const struct tb *tb, unsigned a, enum apu_msg_type t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tb->ag[a].n; i++)
		n += tb->ag[a].rec[i].type == t;
	return n;
}

static inline const struct tb_rec *tb_last(const struct tb *tb, unsigned a, enum apu_msg_type t)
{
	for (unsigned i = tb->ag[a].n; i-- > 0;)
		if (tb->ag[a].rec[i].type == t)
			return &tb->ag[a].rec[i];
	return NULL;
}

static inline void tb_clear(struct tb *tb)
{
	for (unsigned i = 0; i <= tb->P; i++)
		tb->ag[i].n = 0;
}

/* scripted: create scripted agents for endpoints 0..P (P CorePairs and the TCC); false: the
 * test creates its own controllers for endpoints 0..P-1 and binds them with tb_bind. */
static inline void tb_bind(struct tb *tb, unsigned ep, struct apu_port *p)
{
	ck_assert_int_eq(tlm_bind(apu_port_initiator(p), noc_inject_port(tb->net, ep)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->net, ep), apu_port_target(p)), 0);
}

/* n_cu > 0: no scripted TCC agent (the test makes the TCC at endpoint P) and n_cu more
 * endpoints, P + 3 .. P + 2 + n_cu, for its TCPs. */
static inline void tb_init_gpu(struct tb *tb, unsigned P, bool scripted, void (*tweak)(struct tb *),
			       unsigned n_cu)
{
	struct cs_err err = {0};
	struct noc_cfg nc;
	struct dram_cfg dc;
	unsigned cp[TB_MAXA];
	struct apu_dir_nodes nodes;
	int rc;

	memset(tb, 0, sizeof(*tb));
	tb->P = P;
	tb->ep_tcc = P;
	tb->ep_dma = P + 1;
	tb->ep_dir = P + 2;
	ck_assert_int_eq(sim_kernel_create(NULL, &tb->k), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &tb->pool), 0);
	ck_assert_int_eq(apu_msgs_create(tb->pool, &tb->msgs), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	ck_assert_int_eq(mem_store_create(&tb->store), 0);
	ck_assert_int_eq(cs_params_defaults(&noc_params, &nc, &err), 0);
	nc.clock_mhz = 2000;
	nc.flit_bytes = 8;
	nc.header_bytes = 8;
	nc.buffer_flits = 17; /* noc_cfg_check wants a 128-B payload to fit (MEM_LINE_MAX) */
	rc = noc_net_create(tb->k, &nc, P + 3 + n_cu, APU_VNETS, NULL, apu_vnet_names,
			    apu_msg_names, APU_MSG_TYPES,
			    cs_stat_group(cs_stats_root(tb->stats), "net"), &tb->net, &err);
	ck_assert_msg(rc == 0, "net: %s", err.msg);
	ck_assert_int_eq(cs_params_defaults(&dram_params, &dc, &err), 0);
	tb->map = (struct addr_map){.banks = 1, .banks_per_channel = 1, .interleave_shift = 7};
	rc = dram_ctrl_create(tb->k, &dc, 0, &tb->map, tb->store, 1,
			      cs_stat_group(cs_stats_root(tb->stats), "dram0"), &tb->dram, &err);
	ck_assert_msg(rc == 0, "dram: %s", err.msg);
	ck_assert_int_eq(cs_params_defaults(&apu_dir_params, &tb->dcfg, &err), 0);
	ck_assert_int_eq(cs_params_defaults(&apu_llc_params, &tb->lcfg, &err), 0);
	tb->lcfg.size_kib = 4; /* 64 lines, 4 sets of 16 ways: small enough to evict */
	ck_assert_int_eq(cs_params_defaults(&apu_dma_params, &tb->mcfg, &err), 0);
	if (tweak)
		tweak(tb);
	for (unsigned i = 0; i < P; i++)
		cp[i] = i;
	nodes = (struct apu_dir_nodes){
	    .ep = tb->ep_dir, .n_cp = P, .cp = cp, .n_tcc = 1, .tcc = &tb->ep_tcc};
	rc = apu_dir_create(tb->k, &tb->dcfg, &tb->lcfg, &nodes, tb->msgs, &tb->map, 1,
			    cs_stat_group(cs_stats_root(tb->stats), "dir"), &tb->dir, &err);
	ck_assert_msg(rc == 0, "dir: %s", err.msg);
	tb_bind(tb, tb->ep_dir, apu_dir_port(tb->dir));
	ck_assert_int_eq(tlm_bind(apu_dir_dram_port(tb->dir, 0), dram_ctrl_port(tb->dram, 0)), 0);
	rc = apu_dma_create(tb->k, &tb->mcfg, tb->msgs, tb->ep_dma, tb->ep_dir,
			    cs_stat_group(cs_stats_root(tb->stats), "dma"), &tb->dma, &err);
	ck_assert_msg(rc == 0, "dma: %s", err.msg);
	tb_bind(tb, tb->ep_dma, apu_dma_port(tb->dma));
	for (unsigned i = scripted ? 0 : P; i < P + (n_cu ? 0u : 1u); i++) {
		struct tb_agent *a = &tb->ag[i];
		char name[32];
		struct apu_port_cfg pc = {
		    .name = name, .ep = i, .clock_mhz = 2000, .in_depth = 4, .per_cycle = 8};

		snprintf(name, sizeof(name), i == P ? "tcc" : "cp%u", i);
		a->tb = tb;
		a->ep = i;
		a->tcc = i == P;
		a->ack_cycles = 1;
		ck_assert_int_eq(apu_port_create(tb->k, &pc, &tb_agent_ops, a, &a->port), 0);
		tb_bind(tb, i, a->port);
	}
}

static inline void tb_init(struct tb *tb, unsigned P, bool scripted, void (*tweak)(struct tb *))
{
	tb_init_gpu(tb, P, scripted, tweak, 0);
}

static inline void tb_run(struct tb *tb)
{
	int rc = sim_run(tb->k);

	ck_assert_msg(rc == 0, "run: %s", sim_failure(tb->k) ? sim_failure(tb->k) : "?");
	ck_assert_uint_eq(apu_dir_busy(tb->dir), 0);
}

static inline void tb_fini(struct tb *tb)
{
	for (unsigned i = 0; i <= tb->P; i++)
		apu_port_destroy(tb->ag[i].port);
	apu_dma_destroy(tb->dma);
	apu_dir_destroy(tb->dir);
	dram_ctrl_destroy(tb->dram);
	noc_destroy(tb->net);
	if (!sim_failure(tb->k))
		ck_assert_uint_eq(tlm_pool_live(tb->pool), 0);
	tlm_pool_destroy(tb->pool);
	apu_msgs_destroy(tb->msgs);
	mem_store_destroy(tb->store);
	cs_stats_destroy(tb->stats);
	sim_kernel_destroy(tb->k);
}

#endif
