/* tlm/coherence/scoped/sc_fabric.c - the scoped family's roles for the system builder. */
#include "tlm/coherence/scoped/sc_fabric.h"

#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/scoped/sc_home.h"

static struct tlm_target_socket *l1_recv(void *ctx, void *obj)
{
	return ((struct gpu_fab_ctx *)ctx)->proto->l1->deliver_port(obj);
}

static const struct fab_role_ops l1_role = {
    .name = "l1",
    .help = "an SM's L1 (made by the SM; the protocol's gpu_l1_ops) on the one-way network: "
	    "requests out, answers and probes in",
    .face = FAB_MSG,
    .external = true,
    .stat_fmt = "sm%u.l1",
    .send = gpu_fab_l1_send,
    .recv = l1_recv,
    .energy = gpu_fab_l1_energy,
};

static struct tlm_initiator_socket *l2_send(void *ctx, void *obj)
{
	(void)ctx;
	return sc_home_inject(obj);
}

static struct tlm_target_socket *l2_recv(void *ctx, void *obj)
{
	(void)ctx;
	return sc_home_deliver(obj);
}

static const struct fab_role_ops l2_role = {
    .name = "l2",
    .help = "an L2 bank as the home of its lines (sc_home.h): requests in, answers and probes "
	    "out, acks in",
    .face = FAB_MSG,
    .max_mem = 1,
    .stat_fmt = "l2.bank%u",
    .create = gpu_fab_l2_create,
    .destroy = gpu_fab_l2_destroy,
    .send = l2_send,
    .recv = l2_recv,
    .mem_port = gpu_fab_l2_mem,
    .idle = gpu_fab_l2_idle,
    .energy = gpu_fab_l2_energy,
};

static const struct fab_role_ops *const sc_roles[] = {&l1_role, &l2_role, &fab_memctrl_role, NULL};

/* The GPU family's checks, and the node numbering the L1s and homes address each other by. */
static int layout(void *ctx, struct fabric *f, struct cs_err *err)
{
	struct gpu_fab_ctx *c = ctx;
	const struct gpu_ctx *g = c->ctx;
	char where[CS_WHERE_MAX];
	int rc = gpu_fab_layout(ctx, f, err);

	if (rc)
		return rc;
	for (unsigned i = 0; i < g->sms + g->map.banks; i++) {
		bool l1 = i < g->sms;
		const struct fab_node *n = fabric_node(f, l1 ? "l1" : "l2", l1 ? i : i - g->sms);

		if (n->id == i)
			continue;
		cs_config_origin(c->cfg, "fabric", "groups", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: the scoped protocols number SM i as node i and L2 bank j as "
				  "node gpu.sms + j (list the L1 groups before the L2 groups)",
				  where);
	}
	return 0;
}

const struct fab_proto sc_fab_proto = {
    .name = "scoped",
    .roles = sc_roles,
    .vnets = APU_VNETS,
    .vnet_names = apu_vnet_names,
    .natural_count = gpu_fab_natural_count,
    .layout = layout,
};

const struct fab_std_group sc_fab_std[] = {
    {"channels", {.role = "memctrl", .net = ""}},
    {"sms", {.role = "l1", .net = "noc"}},
    {"l2_banks", {.role = "l2", .net = "noc", .memory = "channels"}},
};
const unsigned sc_fab_n_std = sizeof(sc_fab_std) / sizeof(sc_fab_std[0]);
