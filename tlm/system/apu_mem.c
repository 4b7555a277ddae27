/* tlm/system/apu_mem.c - the APU memory side of a CPU cluster (see apu_mem.h). */
#include "tlm/system/apu_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_corepair.h"
#include "tlm/coherence/apu/apu_dir.h"
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
	struct apu_lt *lt; /* the LT face's runs, shared by every port */
	struct lt_params noc_ltp;
};

static int bind_port(struct apu_mem *m, unsigned ep, struct apu_port *p, struct cs_err *err)
{
	if (tlm_bind(apu_port_initiator(p), noc_inject_port(m->net, ep)) ||
	    tlm_bind(noc_deliver_port(m->net, ep), apu_port_target(p)))
		return cs_err_set(err, -CS_EINVAL, "apu: cannot bind endpoint %u", ep);
	return 0;
}

static int load_sections(struct apu_mem *m, struct cs_err *err)
{
	struct cs_config *c = m->s->cfg;
	char where[CS_WHERE_MAX];
	int rc;

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

int apu_mem_create(struct cs_system *s, unsigned cores, struct mem_store *store,
		   struct cs_stat_group *root, struct apu_mem **out, struct cs_err *err)
{
	struct apu_mem *m = calloc(1, sizeof(*m));
	struct tlm_pool *pool;
	struct apu_dir_nodes nodes;
	char name[32];
	unsigned dir_ep;
	int rc;

	*out = NULL;
	if (!m)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	m->s = s;
	m->store = store;
	rc = load_sections(m, err);
	if (rc)
		goto fail;
	m->ncp = (cores + 1) / 2;
	m->nch = (unsigned)m->cfg.channels;
	dir_ep = m->ncp; /* endpoints: CorePairs 0..P-1, then the directory */
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
	rc = noc_net_create(s->k, &m->noc_cfg, m->ncp + 1, APU_VNETS, NULL, apu_vnet_names,
			    apu_msg_names, APU_MSG_TYPES, cs_stat_group(root, "net"), &m->net, err);
	if (rc)
		goto fail;
	for (unsigned i = 0; i < m->ncp; i++)
		m->cp_ep[i] = i;
	nodes = (struct apu_dir_nodes){.ep = dir_ep, .n_cp = m->ncp, .cp = m->cp_ep, .n_tcc = 0};
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

void apu_mem_destroy(struct apu_mem *m)
{
	if (!m)
		return;
	for (unsigned i = 0; m->cp && i < m->ncp; i++)
		apu_cp_destroy(m->cp[i]);
	apu_dir_destroy(m->dir);
	for (unsigned c = 0; m->dram && c < m->nch; c++)
		dram_ctrl_destroy(m->dram[c]);
	noc_destroy(m->net);
	apu_lt_destroy(m->lt);
	apu_msgs_destroy(m->msgs);
	free(m->cp);
	free(m->cp_ep);
	free(m->dram);
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
	double v = 0;

	/* the network's stats are under the group the system gave (system cpu: "cpu"); read at
	 * unit boundaries only */
	cs_stats_value(m->s->stats, "cpu.net.bytes", &v);
	return v;
}
