/* tlm/system/apu_mem.c - the APU memory side of a CPU cluster (see apu_mem.h). */
#include "tlm/system/apu_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_corepair.h"
#include "tlm/coherence/apu/apu_dir.h"
#include "tlm/coherence/apu/apu_dma.h"
#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "analytic/ltmodel.h"
#include "tlm/dram/dram.h"
#include "tlm/mem/addrmap.h"
#include "tlm/noc/noc.h"

static const struct cs_param apu_mem_rows[] = {
    {"channels", CS_P_UINT, offsetof(struct apu_mem_cfg, channels), "2", "",
     "DRAM channels behind the directory (the 2200G's two 64-bit DDR4 channels; docs/apu.md "
     "6.6)",
     1, 64, NULL},
    {"interleave_bytes", CS_P_UINT, offsetof(struct apu_mem_cfg, interleave_bytes), "64", "B",
     "bytes per DRAM channel before the next, a power of two (gem5 RoRaBaCoCh: the line)", 64,
     1u << 20, NULL},
    {"tccs", CS_P_UINT, offsetof(struct apu_mem_cfg, tccs), "1", "",
     "TCC slices of system apu; a line's home slice is (addr / 64) mod tccs (Table III leaves "
     "it blank: gem5's --num-tccs default 1; docs/apu.md 6.1)",
     1, 64, NULL},
    {"launch_cycles", CS_P_UINT, offsetof(struct apu_mem_cfg, launch_cycles), "1100", "GPU cycles",
     "system apu: from a CPU thread's ct_launch to the kernel's first CTA (inferred: about 1 us "
     "of user-mode queue dispatch; the seed gives none)",
     0, 100000000, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table apu_mem_params = {
    .section = "apu",
    .help = "the APU of seed 002: DRAM channels behind the system directory",
    .params = apu_mem_rows,
    .size = sizeof(struct apu_mem_cfg),
};

struct apu_mem {
	struct cs_system *s;
	struct apu_mem_cfg cfg;
	struct apu_cp_cfg cp_cfg;
	struct apu_dir_cfg dir_cfg;
	struct apu_llc_cfg llc_cfg;
	struct noc_cfg noc_cfg;
	struct dram_cfg dram_cfg;
	struct mem_store *store;
	struct addr_map map;
	struct apu_msgs *msgs;
	struct noc *net;
	struct apu_dir *dir;
	unsigned ncp, nch;
	struct apu_cp **cp;
	struct dram_ctrl **dram;
	unsigned *cp_ep;
	/* the GPU side (system apu) */
	unsigned ncu, ntcc;
	struct apu_gpu_cfg gcfg;
	uint16_t *tcp_node, *tcc_node;
	unsigned *tcc_ep;
	struct apu_tcc **tcc;
	struct apu_dma_cfg dma_cfg;
	struct apu_dma *dma;
	const uint64_t *net_bytes; /* the network's byte counter (the sampler's traffic) */
	struct apu_lt *lt;	   /* the LT face's runs, shared by every port */
	struct lt_params noc_ltp;
};

static int bind_port(struct apu_mem *m, unsigned ep, struct apu_port *p, struct cs_err *err)
{
	if (tlm_bind(apu_port_initiator(p), noc_inject_port(m->net, ep)) ||
	    tlm_bind(noc_deliver_port(m->net, ep), apu_port_target(p)))
		return cs_err_set(err, -CS_EINVAL, "apu: cannot bind endpoint %u", ep);
	return 0;
}

static int load_sections(struct apu_mem *m, bool gpu, struct cs_err *err)
{
	struct cs_config *c = m->s->cfg;
	char where[CS_WHERE_MAX];
	int rc;

	if (gpu && ((rc = cs_config_section(c, &apu_tcp_params, &m->gcfg.tcp, err)) ||
		    (rc = cs_config_section(c, &apu_tcc_params, &m->gcfg.tcc, err)) ||
		    (rc = cs_config_section(c, &apu_dma_params, &m->dma_cfg, err))))
		return rc;
	if ((rc = cs_config_section(c, &apu_mem_params, &m->cfg, err)) ||
	    (rc = cs_config_section(c, &apu_cp_params, &m->cp_cfg, err)) ||
	    (rc = cs_config_section(c, &apu_dir_params, &m->dir_cfg, err)) ||
	    (rc = cs_config_section(c, &apu_llc_params, &m->llc_cfg, err)) ||
	    (rc = cs_config_section(c, &noc_params, &m->noc_cfg, err)) ||
	    (rc = cs_config_section(c, &dram_params, &m->dram_cfg, err)))
		return rc;
	if (m->cfg.interleave_bytes & (m->cfg.interleave_bytes - 1)) {
		cs_config_origin(c, "apu", "interleave_bytes", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must be a power of two", where);
	}
	if (m->noc_cfg.topology == NOC_LINK) {
		cs_config_origin(c, "noc", "topology", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: the APU's network joins more than two endpoints", where);
	}
	return noc_cfg_check(&m->noc_cfg, err);
}

/* The GPU side's TCC slices and DMA engine on their endpoints (the TCPs bind later). */
static int gpu_side_create(struct apu_mem *m, struct gpu_ctx *ctx, unsigned tcp0,
			   struct cs_stat_group *root, struct cs_err *err)
{
	unsigned tcc0 = tcp0 + m->ncu, dma_ep = tcc0 + m->ntcc, dir_ep = dma_ep + 1;
	char name[32];
	int rc;

	m->tcp_node = calloc(m->ncu, sizeof(*m->tcp_node));
	m->tcc_node = calloc(m->ntcc, sizeof(*m->tcc_node));
	m->tcc_ep = calloc(m->ntcc, sizeof(*m->tcc_ep));
	m->tcc = calloc(m->ntcc, sizeof(*m->tcc));
	if (!m->tcp_node || !m->tcc_node || !m->tcc_ep || !m->tcc)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (unsigned i = 0; i < m->ncu; i++)
		m->tcp_node[i] = (uint16_t)(tcp0 + i);
	for (unsigned j = 0; j < m->ntcc; j++)
		m->tcc_ep[j] = m->tcc_node[j] = (uint16_t)(tcc0 + j);
	m->gcfg.msgs = m->msgs;
	m->gcfg.tcp_node = m->tcp_node;
	m->gcfg.tcc_node = m->tcc_node;
	m->gcfg.tccs = m->ntcc;
	m->gcfg.dir_node = (uint16_t)dir_ep;
	m->gcfg.tcc_obj = m->tcc;
	/* CPU writers too: the directory reports the writes it serializes */
	m->gcfg.tcc_reports_writes = false;
	m->gcfg.lt = m->lt; /* the TCPs and TCCs join the LT runs as they are made */
	ctx->pool = m->s->pool;
	ctx->proto_cfg = &m->gcfg;
	for (unsigned j = 0; j < m->ntcc; j++) {
		snprintf(name, sizeof(name), "tcc%u", j);
		rc = apu_tcc_create(ctx, j, cs_stat_group(root, name), &m->tcc[j], err);
		if (rc)
			return rc;
		if (tlm_bind(apu_tcc_inject_port(m->tcc[j]), noc_inject_port(m->net, tcc0 + j)) ||
		    tlm_bind(noc_deliver_port(m->net, tcc0 + j), apu_tcc_deliver_port(m->tcc[j])))
			return cs_err_set(err, -CS_EINVAL, "apu: cannot bind TCC slice %u", j);
	}
	rc = apu_dma_create(m->s->k, &m->dma_cfg, m->msgs, dma_ep, dir_ep,
			    cs_stat_group(root, "dma"), &m->dma, err);
	if (rc)
		return rc;
	apu_port_set_lt(apu_dma_port(m->dma), m->lt);
	return bind_port(m, dma_ep, apu_dma_port(m->dma), err);
}

int apu_mem_create(struct cs_system *s, unsigned cores, const struct apu_mem_gpu *gpu,
		   struct mem_store *store, struct cs_stat_group *root, struct apu_mem **out,
		   struct cs_err *err)
{
	struct apu_mem *m = calloc(1, sizeof(*m));
	struct tlm_pool *pool;
	struct apu_dir_nodes nodes;
	char name[32];
	unsigned dir_ep, eps;
	int rc;

	*out = NULL;
	if (!m)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	m->s = s;
	m->store = store;
	rc = load_sections(m, gpu != NULL, err);
	if (rc)
		goto fail;
	m->ncp = (cores + 1) / 2;
	m->nch = (unsigned)m->cfg.channels;
	m->ncu = gpu ? gpu->cus : 0;
	m->ntcc = gpu ? (unsigned)m->cfg.tccs : 0;
	/* endpoints: CorePairs 0..P-1, then TCPs, TCC slices and the DMA engine (a GPU only),
	 * then the directory */
	dir_ep = m->ncp + (gpu ? m->ncu + m->ntcc + 1 : 0);
	eps = dir_ep + 1;
	/* the protocol's messages carry a header and the APU extension: a pool of mem_msg
	 * replaces the system's */
	rc = tlm_pool_create_sized(sizeof(struct mem_msg), &pool);
	if (rc) {
		rc = cs_err_set(err, rc, "out of memory");
		goto fail;
	}
	tlm_pool_destroy(s->pool);
	s->pool = pool;
	m->cp = calloc(m->ncp, sizeof(*m->cp));
	m->cp_ep = calloc(m->ncp, sizeof(*m->cp_ep));
	m->dram = calloc(m->nch, sizeof(*m->dram));
	if (!m->cp || !m->cp_ep || !m->dram || apu_msgs_create(pool, &m->msgs)) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto fail;
	}
	m->map = (struct addr_map){.banks = m->nch,
				   .banks_per_channel = 1,
				   .interleave_shift =
				       (unsigned)__builtin_ctzll(m->cfg.interleave_bytes)};
	if (apu_lt_create(s->k, &m->lt)) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto fail;
	}
	rc = noc_net_create(s->k, &m->noc_cfg, eps, APU_VNETS, NULL, apu_vnet_names, apu_msg_names,
			    APU_MSG_TYPES, cs_stat_group(root, "net"), &m->net, err);
	if (rc)
		goto fail;
	{
		char full[160];

		snprintf(full, sizeof(full), "%s.net.bytes", cs_stat_group_path(root));
		m->net_bytes = cs_stats_counter_find(s->stats, full);
	}
	for (unsigned i = 0; i < m->ncp; i++)
		m->cp_ep[i] = i;
	if (gpu) {
		rc = gpu_side_create(m, gpu->ctx, m->ncp, root, err);
		if (rc)
			goto fail;
	}
	nodes = (struct apu_dir_nodes){
	    .ep = dir_ep, .n_cp = m->ncp, .cp = m->cp_ep, .n_tcc = m->ntcc, .tcc = m->tcc_ep};
	rc = apu_dir_create(s->k, &m->dir_cfg, &m->llc_cfg, &nodes, m->msgs, &m->map, m->nch,
			    cs_stat_group(root, "dir"), &m->dir, err);
	if (rc || (rc = bind_port(m, dir_ep, apu_dir_port(m->dir), err)))
		goto fail;
	apu_port_set_lt(apu_dir_port(m->dir), m->lt);
	for (unsigned c = 0; c < m->nch; c++) {
		snprintf(name, sizeof(name), "dram%u", c);
		rc = dram_ctrl_create(s->k, &m->dram_cfg, c, &m->map, store, 1,
				      cs_stat_group(root, name), &m->dram[c], err);
		if (rc)
			goto fail;
		if (tlm_bind(apu_dir_dram_port(m->dir, c), dram_ctrl_port(m->dram[c], 0))) {
			rc = cs_err_set(err, -CS_EINVAL, "apu: cannot bind DRAM channel %u", c);
			goto fail;
		}
	}
	for (unsigned i = 0; i < m->ncp; i++) {
		snprintf(name, sizeof(name), "corepair%u", i);
		rc = apu_cp_create(s->k, &m->cp_cfg, m->msgs, i, dir_ep, cs_stat_group(root, name),
				   &m->cp[i], err);
		if (rc || (rc = bind_port(m, i, apu_cp_port(m->cp[i]), err)))
			goto fail;
		apu_port_set_lt(apu_cp_port(m->cp[i]), m->lt);
	}
	*out = m;
	return 0;
fail:
	apu_mem_destroy(m);
	return rc;
}

int apu_mem_bind_tcp(struct apu_mem *m, unsigned i, const struct gpu_l1_ops *ops,
		     struct gpu_l1 *tcp, struct cs_err *err)
{
	unsigned ep = m->tcp_node[i];

	if (tlm_bind(ops->noc_port(tcp), noc_inject_port(m->net, ep)) ||
	    tlm_bind(noc_deliver_port(m->net, ep), ops->deliver_port(tcp)))
		return cs_err_set(err, -CS_EINVAL, "apu: cannot bind the TCP of CU %u", i);
	return 0;
}

sim_time_t apu_mem_dma_lt_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len,
			       sim_time_t t)
{
	return m->dma ? apu_dma_lt_read(m->dma, addr, buf, len, t) : SIM_TIME_MAX;
}

sim_time_t apu_mem_dma_lt_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len,
				sim_time_t t)
{
	return m->dma ? apu_dma_lt_write(m->dma, addr, buf, len, t) : SIM_TIME_MAX;
}

const struct apu_mem_cfg *apu_mem_cfg(const struct apu_mem *m)
{
	return &m->cfg;
}

int apu_mem_dma_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len,
		     void (*done)(void *ctx), void *ctx)
{
	return m->dma ? apu_dma_read(m->dma, addr, buf, len, done, ctx) : -CS_EUNSUP;
}

int apu_mem_dma_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len,
		      void (*done)(void *ctx), void *ctx)
{
	return m->dma ? apu_dma_write(m->dma, addr, buf, len, done, ctx) : -CS_EUNSUP;
}

void apu_mem_destroy(struct apu_mem *m)
{
	if (!m)
		return;
	for (unsigned i = 0; m->cp && i < m->ncp; i++)
		apu_cp_destroy(m->cp[i]);
	for (unsigned j = 0; m->tcc && j < m->ntcc; j++)
		apu_tcc_destroy(m->tcc[j]);
	apu_dma_destroy(m->dma);
	apu_dir_destroy(m->dir);
	for (unsigned c = 0; m->dram && c < m->nch; c++)
		dram_ctrl_destroy(m->dram[c]);
	noc_destroy(m->net);
	apu_lt_destroy(m->lt);
	apu_msgs_destroy(m->msgs);
	free(m->cp);
	free(m->cp_ep);
	free(m->dram);
	free(m->tcp_node);
	free(m->tcc_node);
	free(m->tcc_ep);
	free(m->tcc);
	free(m);
}

struct cpu_mem *apu_mem_port(struct apu_mem *m, unsigned c)
{
	return apu_cp_mem(m->cp[c / 2], c % 2);
}

const struct cpu_mem_ops *apu_mem_ops(const struct apu_mem *m)
{
	(void)m;
	return &apu_cp_mem_ops;
}

void apu_mem_set_lt(struct apu_mem *m, const struct lt_params *p)
{
	/* the network's meter keeps an FCFS backlog in the order arrivals are noted: an LT run
	 * notes a whole transaction's messages (up to its end, hundreds of cycles ahead) before
	 * the next run notes its first, so the backlog charged each message for the transactions
	 * of other runs (cpu_mp in analytic mode +85%); its hops are unloaded, and the contention
	 * is the directory's line serialization and DRAM's meter */
	m->noc_ltp = *p;
	m->noc_ltp.exact = true;
	noc_set_lt(m->net, &m->noc_ltp);
	for (unsigned c = 0; c < m->nch; c++)
		dram_ctrl_set_lt(m->dram[c], p);
}

bool apu_mem_idle(const struct apu_mem *m)
{
	for (unsigned i = 0; i < m->ncp; i++)
		if (!apu_cp_idle(m->cp[i]))
			return false;
	for (unsigned j = 0; j < m->ntcc; j++)
		if (!apu_tcc_idle(m->tcc[j]))
			return false;
	if (m->dma && apu_dma_in_flight(m->dma))
		return false;
	for (unsigned c = 0; c < m->nch; c++)
		if (dram_ctrl_queued(m->dram[c]))
			return false;
	return !apu_dir_busy(m->dir) && !noc_in_flight(m->net);
}

void apu_mem_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len)
{
	uint8_t line[APU_LINE], *out = buf;

	mem_store_read(m->store, addr, buf, len);
	for (uint64_t a = addr; a < addr + len;) {
		uint64_t l = apu_line_of(a), n = l + APU_LINE - a;

		n = n < addr + len - a ? n : addr + len - a;
		for (unsigned i = 0; i < m->ncp; i++) {
			bool dirty = false;
			char st = apu_cp_peek(m->cp[i], l, line, &dirty);

			/* the owner (M, O) or a dirty sharer holds the newest data */
			if ((st == 'M' || st == 'O' || st == 'S') && dirty) {
				memcpy(out + (a - addr), line + (a - l), n);
				break;
			}
		}
		a += n;
	}
}

int apu_mem_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	int rc = mem_store_write(m->store, addr, buf, len);

	if (rc)
		return rc;
	for (uint64_t a = addr; a < addr + len;) {
		uint64_t l = apu_line_of(a), n = l + APU_LINE - a;

		n = n < addr + len - a ? n : addr + len - a;
		apu_dir_llc_poke(m->dir, a, in + (a - addr), n);
		for (unsigned i = 0; i < m->ncp; i++)
			apu_cp_poke(m->cp[i], a, in + (a - addr), n);
		a += n;
	}
	return 0;
}

double apu_mem_traffic(const struct apu_mem *m)
{
	return m->net_bytes ? (double)*m->net_bytes : 0;
}
