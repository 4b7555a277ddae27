/* tlm/coherence/apu/apu_fabric.c - the APU protocol's roles for the system builder. */
#include "tlm/coherence/apu/apu_fabric.h"

#include <stdlib.h>
#include <string.h>

#define CTX(c) ((struct apu_fab_ctx *)(c))

static struct tlm_initiator_socket *port_send(struct apu_port *p)
{
	return apu_port_initiator(p);
}

/* ---- corepair ---- */

static int cp_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		     struct cs_err *err)
{
	struct apu_fab_ctx *c = ctx;
	int rc;

	(void)f;
	rc = apu_cp_create(c->k, c->cp, c->msgs, n->id, c->dir_ep, n->stats, (struct apu_cp **)out,
			   err);
	if (!rc)
		apu_port_set_lt(apu_cp_port(*out), c->lt);
	return rc;
}

static void cp_destroy(void *ctx, void *obj)
{
	(void)ctx;
	apu_cp_destroy(obj);
}

static struct tlm_initiator_socket *cp_send(void *ctx, void *obj)
{
	(void)ctx;
	return port_send(apu_cp_port(obj));
}

static struct tlm_target_socket *cp_recv(void *ctx, void *obj)
{
	(void)ctx;
	return apu_port_target(apu_cp_port(obj));
}

static bool cp_idle(void *ctx, const void *obj)
{
	(void)ctx;
	return apu_cp_idle(obj);
}

static void cp_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	apu_cp_energy(obj, c);
}

static const struct fab_role_ops cp_role = {
    .name = "corepair",
    .help = "two CPU cores' private L1Ds, shared L1I and inclusive L2 (MOESI; section corepair)",
    .face = FAB_MSG,
    .stat_fmt = "corepair%u",
    .create = cp_create,
    .destroy = cp_destroy,
    .send = cp_send,
    .recv = cp_recv,
    .idle = cp_idle,
    .energy = cp_energy,
};

/* ---- tcp (made by the SM) ---- */

static struct tlm_initiator_socket *tcp_send(void *ctx, void *obj)
{
	return CTX(ctx)->tcp_ops->noc_port(obj);
}

static struct tlm_target_socket *tcp_recv(void *ctx, void *obj)
{
	return CTX(ctx)->tcp_ops->deliver_port(obj);
}

static void tcp_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	CTX(ctx)->tcp_ops->energy(obj, c);
	c->inst[EN_L1] += 1;
}

static const struct fab_role_ops tcp_role = {
    .name = "tcp",
    .help = "a CU's TCP, VIPER's L1 (made by the CU; section tcp)",
    .face = FAB_MSG,
    .external = true,
    .stat_fmt = "tcp%u",
    .send = tcp_send,
    .recv = tcp_recv,
    .energy = tcp_energy,
};

/* ---- tcc ---- */

static int tcc_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		      struct cs_err *err)
{
	(void)f;
	return apu_tcc_create(CTX(ctx)->gctx, n->nth, n->stats, (struct apu_tcc **)out, err);
}

static void tcc_destroy(void *ctx, void *obj)
{
	(void)ctx;
	apu_tcc_destroy(obj);
}

static struct tlm_initiator_socket *tcc_send(void *ctx, void *obj)
{
	(void)ctx;
	return apu_tcc_inject_port(obj);
}

static struct tlm_target_socket *tcc_recv(void *ctx, void *obj)
{
	(void)ctx;
	return apu_tcc_deliver_port(obj);
}

static bool tcc_idle(void *ctx, const void *obj)
{
	(void)ctx;
	return apu_tcc_idle(obj);
}

static uint64_t tcc_served(void *ctx, const void *obj)
{
	(void)ctx;
	return apu_tcc_served(obj);
}

static double tcc_served_ps(void *ctx, const void *obj)
{
	(void)ctx;
	return (double)apu_tcc_period_ps(obj);
}

static void tcc_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	apu_tcc_energy(obj, c);
}

static const struct fab_role_ops tcc_role = {
    .name = "tcc",
    .help = "a TCC slice, VIPER's GPU L2 (section tcc)",
    .face = FAB_MSG,
    .stat_fmt = "tcc%u",
    .create = tcc_create,
    .destroy = tcc_destroy,
    .send = tcc_send,
    .recv = tcc_recv,
    .idle = tcc_idle,
    .served = tcc_served,
    .served_ps = tcc_served_ps,
    .energy = tcc_energy,
};

/* ---- dma ---- */

static int dma_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		      struct cs_err *err)
{
	struct apu_fab_ctx *c = ctx;
	int rc;

	(void)f;
	rc = apu_dma_create(c->k, c->dma, c->msgs, n->id, c->dir_ep, n->stats,
			    (struct apu_dma **)out, err);
	if (!rc)
		apu_port_set_lt(apu_dma_port(*out), c->lt);
	return rc;
}

static void dma_destroy(void *ctx, void *obj)
{
	(void)ctx;
	apu_dma_destroy(obj);
}

static struct tlm_initiator_socket *dma_send(void *ctx, void *obj)
{
	(void)ctx;
	return port_send(apu_dma_port(obj));
}

static struct tlm_target_socket *dma_recv(void *ctx, void *obj)
{
	(void)ctx;
	return apu_port_target(apu_dma_port(obj));
}

static bool dma_idle(void *ctx, const void *obj)
{
	(void)ctx;
	return !apu_dma_in_flight(obj);
}

static void dma_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	apu_dma_energy(obj, c);
}

static const struct fab_role_ops dma_role = {
    .name = "dma",
    .help = "the DMA engine: DMARd and DMAWr to the directory (section dma)",
    .face = FAB_MSG,
    .max_count = 1,
    .stat_fmt = "dma",
    .create = dma_create,
    .destroy = dma_destroy,
    .send = dma_send,
    .recv = dma_recv,
    .idle = dma_idle,
    .energy = dma_energy,
};

/* ---- directory ---- */

static int dir_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		      struct cs_err *err)
{
	struct apu_fab_ctx *c = ctx;
	struct apu_dir_nodes nodes = {.ep = n->id,
				      .n_cp = fabric_count(f, "corepair"),
				      .cp = c->cp_ep,
				      .n_tcc = fabric_count(f, "tcc"),
				      .tcc = c->tcc_ep};
	int rc;

	rc = apu_dir_create(c->k, c->dir, c->llc, &nodes, c->msgs, &c->map, n->n_mem, n->stats,
			    (struct apu_dir **)out, err);
	if (!rc)
		apu_port_set_lt(apu_dir_port(*out), c->lt);
	return rc;
}

static void dir_destroy(void *ctx, void *obj)
{
	(void)ctx;
	apu_dir_destroy(obj);
}

static struct tlm_initiator_socket *dir_send(void *ctx, void *obj)
{
	(void)ctx;
	return port_send(apu_dir_port(obj));
}

static struct tlm_target_socket *dir_recv(void *ctx, void *obj)
{
	(void)ctx;
	return apu_port_target(apu_dir_port(obj));
}

static struct tlm_initiator_socket *dir_mem(void *ctx, void *obj, unsigned j)
{
	(void)ctx;
	return apu_dir_dram_port(obj, j);
}

static bool dir_idle(void *ctx, const void *obj)
{
	(void)ctx;
	return !apu_dir_busy(obj);
}

static uint64_t dir_served(void *ctx, const void *obj)
{
	(void)ctx;
	return apu_dir_served(obj);
}

static double dir_served_ps(void *ctx, const void *obj)
{
	(void)ctx;
	return apu_dir_served_ps(obj);
}

static void dir_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	apu_dir_energy(obj, c);
}

static const struct fab_role_ops dir_role = {
    .name = "directory",
    .help = "the stateless system directory with its victim LLC (sections dir, llc)",
    .face = FAB_MSG,
    .home = true,
    .max_count = 1,
    .stat_fmt = "dir",
    .create = dir_create,
    .destroy = dir_destroy,
    .send = dir_send,
    .recv = dir_recv,
    .mem_port = dir_mem,
    .idle = dir_idle,
    .served = dir_served,
    .served_ps = dir_served_ps,
    .energy = dir_energy,
};

static const struct fab_role_ops *const apu_roles[] = {
    &cp_role,  &tcp_role,	  &tcc_role,	    &dma_role,
    &dir_role, &fab_memctrl_role, &fab_bridge_role, NULL};

static unsigned natural_count(void *ctx, const struct fab_role_ops *r)
{
	struct apu_fab_ctx *c = ctx;

	if (r == &cp_role)
		return (c->cores + 1) / 2;
	if (r == &tcp_role)
		return c->gctx ? c->gctx->sms : 0;
	if (r == &tcc_role)
		return c->tccs;
	if (r == &fab_memctrl_role)
		return c->channels;
	return 1;
}

static int layout(void *ctx, struct fabric *f, struct cs_err *err)
{
	struct apu_fab_ctx *c = ctx;
	unsigned ncp = fabric_count(f, "corepair"), ntcp = fabric_count(f, "tcp"),
		 ntcc = fabric_count(f, "tcc"), nch = fabric_count(f, "memctrl");
	char where[CS_WHERE_MAX];

	cs_config_origin(c->cfg, "fabric", "groups", where, sizeof(where));
	if (fabric_count(f, "directory") != 1)
		return cs_err_set(err, -CS_ECONFIG, "%s: the APU needs its directory (one)", where);
	if (fabric_node(f, "directory", 0)->n_mem != nch)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "%s: every memory controller goes behind the directory (%u of %u)", where,
		    fabric_node(f, "directory", 0)->n_mem, nch);
	if (2 * ncp < c->cores || 2 * (ncp - 1) >= c->cores) {
		cs_config_origin(c->cfg, "cpus", "cores", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: the layout has %u CorePairs of two cores",
				  where, ncp);
	}
	if (c->gctx && (ntcp != c->gctx->sms || !ntcc || fabric_count(f, "dma") != 1)) {
		cs_config_origin(c->cfg, "gpu", "sms", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: the GPU side needs one TCP per CU (the layout has %u), at "
				  "least one TCC slice (%u) and the DMA engine",
				  where, ntcp, ntcc);
	}
	if (!c->gctx && (ntcp || ntcc || fabric_count(f, "dma")))
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: TCPs, TCCs and DMA need a GPU side (system apu)", where);
	if (ncp + ntcc > APU_DIR_MAX_PROBED) {
		/* before anything is built: blame the largest group of probed caches */
		unsigned big = 0, most = 0;

		for (unsigned i = 0; i < fabric_groups(f); i++) {
			const char *role = fabric_group_role(f, i);

			if ((!strcmp(role, "corepair") || !strcmp(role, "tcc")) &&
			    fabric_group_count(f, i) > most) {
				most = fabric_group_count(f, i);
				big = i;
			}
		}
		cs_config_origin(c->cfg, fabric_group_name(f, big), "count", where, sizeof(where));
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "%s: the directory probes at most %d CorePairs and TCC slices, the "
		    "layout has %u + %u",
		    where, APU_DIR_MAX_PROBED, ncp, ntcc);
	}
	c->cp_ep = calloc(ncp, sizeof(*c->cp_ep));
	c->tcc_ep = calloc(ntcc ? ntcc : 1, sizeof(*c->tcc_ep));
	c->tcc_node = calloc(ntcc ? ntcc : 1, sizeof(*c->tcc_node));
	c->tcp_node = calloc(ntcp ? ntcp : 1, sizeof(*c->tcp_node));
	if (!c->cp_ep || !c->tcc_ep || !c->tcc_node || !c->tcp_node)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (unsigned i = 0; i < ncp; i++)
		c->cp_ep[i] = fabric_node(f, "corepair", i)->id;
	for (unsigned j = 0; j < ntcc; j++)
		c->tcc_ep[j] = c->tcc_node[j] = (uint16_t)fabric_node(f, "tcc", j)->id;
	for (unsigned i = 0; i < ntcp; i++)
		c->tcp_node[i] = (uint16_t)fabric_node(f, "tcp", i)->id;
	c->dir_ep = fabric_node(f, "directory", 0)->id;
	c->map = (struct addr_map){
	    .banks = nch, .banks_per_channel = 1, .interleave_shift = c->interleave_shift};
	if (c->gcfg) {
		c->gcfg->msgs = c->msgs;
		c->gcfg->tcp_node = c->tcp_node;
		c->gcfg->tcc_node = c->tcc_node;
		c->gcfg->tccs = ntcc;
		c->gcfg->dir_node = (uint16_t)c->dir_ep;
		/* filled once every node is made, before any access */
		c->gcfg->tcc_obj = (struct apu_tcc *const *)fabric_objs(f, "tcc");
		c->gcfg->lt = c->lt;
		c->gctx->proto_cfg = c->gcfg;
	}
	return 0;
}

const struct fab_proto apu_fab_proto = {
    .name = "apu",
    .roles = apu_roles,
    .vnets = APU_VNETS,
    .vnet_names = apu_vnet_names,
    .natural_count = natural_count,
    .layout = layout,
};

/* Endpoints as apu_mem numbered them before the builder: CorePairs, TCPs, TCC slices, the DMA
 * engine, the directory. */
const struct fab_std_group apu_fab_std_cpu[] = {
    {"corepairs", {.role = "corepair", .net = "noc"}},
    {"directory", {.role = "directory", .net = "noc", .memory = "channels"}},
    {"channels", {.role = "memctrl", .net = ""}},
};
const unsigned apu_fab_n_std_cpu = sizeof(apu_fab_std_cpu) / sizeof(apu_fab_std_cpu[0]);

const struct fab_std_group apu_fab_std[] = {
    {"corepairs", {.role = "corepair", .net = "noc"}},
    {"cus", {.role = "tcp", .net = "noc"}},
    {"tccs", {.role = "tcc", .net = "noc"}},
    {"dmas", {.role = "dma", .net = "noc"}},
    {"directory", {.role = "directory", .net = "noc", .memory = "channels"}},
    {"channels", {.role = "memctrl", .net = ""}},
};
const unsigned apu_fab_n_std = sizeof(apu_fab_std) / sizeof(apu_fab_std[0]);

void apu_fab_ctx_free(struct apu_fab_ctx *c)
{
	free(c->cp_ep);
	free(c->tcc_ep);
	free(c->tcc_node);
	free(c->tcp_node);
}
