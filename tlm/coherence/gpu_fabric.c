/* tlm/coherence/gpu_fabric.c - the GPU protocols' roles for the system builder. */
#include "tlm/coherence/gpu_fabric.h"

#include <inttypes.h>
#include <string.h>

struct tlm_initiator_socket *gpu_fab_l1_send(void *ctx, void *obj)
{
	return ((struct gpu_fab_ctx *)ctx)->proto->l1->noc_port(obj);
}

void gpu_fab_l1_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	const struct gpu_protocol *p = ((struct gpu_fab_ctx *)ctx)->proto;

	p->l1->energy(obj, c);
	c->inst[EN_L1] += p->has_l1;
}

void gpu_fab_l2_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	((struct gpu_fab_ctx *)ctx)->proto->l2->energy(obj, c);
	c->inst[EN_L2] += 1;
}

static const struct fab_role_ops l1_role = {
    .name = "l1",
    .help = "an SM's L1 (made by the SM; the protocol's gpu_l1_ops), an initiator of the "
	    "request/response network",
    .face = FAB_REQ,
    .external = true,
    .stat_fmt = "sm%u.l1",
    .send = gpu_fab_l1_send,
    .energy = gpu_fab_l1_energy,
};

int gpu_fab_l2_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		      struct cs_err *err)
{
	struct gpu_fab_ctx *c = ctx;

	(void)f;
	return c->proto->l2->create(c->ctx, n->nth, n->stats, (struct gpu_l2 **)out, err);
}

void gpu_fab_l2_destroy(void *ctx, void *obj)
{
	((struct gpu_fab_ctx *)ctx)->proto->l2->destroy(obj);
}

static struct tlm_target_socket *l2_recv(void *ctx, void *obj)
{
	return ((struct gpu_fab_ctx *)ctx)->proto->l2->noc_port(obj);
}

struct tlm_initiator_socket *gpu_fab_l2_mem(void *ctx, void *obj, unsigned j)
{
	(void)j;
	return ((struct gpu_fab_ctx *)ctx)->proto->l2->dram_port(obj);
}

bool gpu_fab_l2_idle(void *ctx, const void *obj)
{
	return ((struct gpu_fab_ctx *)ctx)->proto->l2->idle(obj);
}

static const struct fab_role_ops l2_role = {
    .name = "l2",
    .help = "an L2 bank (the protocol's gpu_l2_ops), a target of the request/response network",
    .face = FAB_RESP,
    .max_mem = 1,
    .stat_fmt = "l2.bank%u",
    .create = gpu_fab_l2_create,
    .destroy = gpu_fab_l2_destroy,
    .recv = l2_recv,
    .mem_port = gpu_fab_l2_mem,
    .idle = gpu_fab_l2_idle,
    .energy = gpu_fab_l2_energy,
};

static const struct fab_role_ops *const gpu_roles[] = {&l1_role, &l2_role, &fab_memctrl_role, NULL};

unsigned gpu_fab_natural_count(void *ctx, const struct fab_role_ops *r)
{
	const struct gpu_ctx *g = ((struct gpu_fab_ctx *)ctx)->ctx;

	if (!strcmp(r->name, "l1"))
		return g->sms;
	if (!strcmp(r->name, "l2"))
		return g->map.banks;
	return g->map.banks / g->map.banks_per_channel;
}

/* The address map routes by l2.banks and l2.banks_per_channel: the layout must agree. */
int gpu_fab_layout(void *ctx, struct fabric *f, struct cs_err *err)
{
	struct gpu_fab_ctx *c = ctx;
	const struct gpu_ctx *g = c->ctx;
	char where[CS_WHERE_MAX];

	if (fabric_count(f, "l1") != g->sms) {
		cs_config_origin(c->cfg, "gpu", "sms", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: the layout has %u L1s, one per SM", where,
				  fabric_count(f, "l1"));
	}
	if (fabric_count(f, "l2") != g->map.banks ||
	    fabric_count(f, "memctrl") * g->map.banks_per_channel != g->map.banks) {
		cs_config_origin(c->cfg, "l2", "banks", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: the layout has %u L2 banks and %u channels; the address "
				  "map interleaves over l2.banks with l2.banks_per_channel = %u",
				  where, fabric_count(f, "l2"), fabric_count(f, "memctrl"),
				  g->map.banks_per_channel);
	}
	if (fabric_nets(f) != 1) {
		cs_config_origin(c->cfg, "fabric", "groups", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: the GPU protocols put every L1 and L2 bank on one network "
				  "(%u given)",
				  where, fabric_nets(f));
	}
	/* bank b's DRAM requests carry addresses of channel b / banks_per_channel */
	for (unsigned b = 0; b < g->map.banks; b++) {
		const struct fab_node *n = fabric_node(f, "l2", b);

		if (n->mem_nth != b / g->map.banks_per_channel ||
		    n->mem_port != b % g->map.banks_per_channel) {
			cs_config_origin(c->cfg, "fabric", "groups", where, sizeof(where));
			return cs_err_set(err, -CS_ECONFIG,
					  "%s: L2 bank %u is behind channel %u; the address map "
					  "puts it behind channel %u (list the L2 groups in the "
					  "order of their channel groups)",
					  where, b, n->mem_nth, b / g->map.banks_per_channel);
		}
	}
	return 0;
}

const struct fab_proto gpu_fab_proto = {
    .name = "gpu",
    .roles = gpu_roles,
    .natural_count = gpu_fab_natural_count,
    .layout = gpu_fab_layout,
};

/* gpu.c made the channels, then the banks, then the SMs; the same order keeps every run's
 * results bit for bit */
const struct fab_std_group gpu_fab_std[] = {
    {"channels", {.role = "memctrl", .net = ""}},
    {"l2_banks", {.role = "l2", .net = "noc", .memory = "channels"}},
    {"sms", {.role = "l1", .net = "noc"}},
};
const unsigned gpu_fab_n_std = sizeof(gpu_fab_std) / sizeof(gpu_fab_std[0]);
