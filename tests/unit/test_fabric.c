/*
 * tests/unit/test_fabric.c - the system builder (tlm/system/fabric.h) with a protocol family of
 * its own: endpoints numbered per network in list order (a request/response network's
 * initiators first), memory sockets bound by the N >= M / N < M rule, external nodes bound when
 * handed over, natural counts, address ranges, and one clear configuration error for each kind
 * of bad layout.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/system/fabric.h"

#define T_MEM_MAX 8

struct t_node {
	struct tlm_initiator_socket send, mem[T_MEM_MAX];
	struct tlm_target_socket recv;
	unsigned order; /* when it was made */
};

struct t_ctx {
	unsigned made;
	unsigned natural; /* every role's natural count */
};

static enum tlm_sync_enum t_bw(void *o, struct tlm_payload *p, enum tlm_phase *ph, sim_time_t *d)
{
	(void)o, (void)p, (void)ph, (void)d;
	return TLM_ACCEPTED;
}

static enum tlm_sync_enum t_fw(void *o, struct tlm_payload *p, enum tlm_phase *ph, sim_time_t *d)
{
	(void)o, (void)p, (void)ph, (void)d;
	return TLM_ACCEPTED;
}

static const struct tlm_bw_ops t_bw_ops = {.nb_transport_bw = t_bw};
static const struct tlm_fw_ops t_fw_ops = {.nb_transport_fw = t_fw};

static int t_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		    struct cs_err *err)
{
	struct t_ctx *c = ctx;
	struct t_node *t = calloc(1, sizeof(*t));

	(void)f;
	if (!t)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	tlm_initiator_init(&t->send, "send", &t_bw_ops, t);
	tlm_target_init(&t->recv, "recv", &t_fw_ops, t);
	for (unsigned j = 0; j < T_MEM_MAX; j++)
		tlm_initiator_init(&t->mem[j], "mem", &t_bw_ops, t);
	ck_assert_uint_le(n->n_mem, T_MEM_MAX);
	t->order = c->made++;
	*out = t;
	return 0;
}

static void t_destroy(void *ctx, void *obj)
{
	(void)ctx;
	free(obj);
}

static struct tlm_initiator_socket *t_send(void *ctx, void *obj)
{
	(void)ctx;
	return &((struct t_node *)obj)->send;
}

static struct tlm_target_socket *t_recv(void *ctx, void *obj)
{
	(void)ctx;
	return &((struct t_node *)obj)->recv;
}

static struct tlm_initiator_socket *t_mem(void *ctx, void *obj, unsigned j)
{
	(void)ctx;
	return &((struct t_node *)obj)->mem[j];
}

/* every test node declares 1 + its creation order directory TBE events and one directory
 * instance; an external node (never made here) declares the same through its object */
static void t_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	energy_add(c, EN_DIR_TBE, 1 + ((const struct t_node *)obj)->order);
	c->inst[EN_DIR] += 1;
}

static const struct fab_role_ops node_role = {.name = "node",
					      .face = FAB_MSG,
					      .stat_fmt = "node%u",
					      .create = t_create,
					      .destroy = t_destroy,
					      .send = t_send,
					      .recv = t_recv,
					      .energy = t_energy};
/* a dirx node declares its events: 10 + its creation order served, 250 ps each */
static uint64_t t_served(void *ctx, const void *obj)
{
	(void)ctx;
	return 10 + ((const struct t_node *)obj)->order;
}

static double t_served_ps(void *ctx, const void *obj)
{
	(void)ctx, (void)obj;
	return 250;
}

static const struct fab_role_ops dirx_role = {.name = "dirx",
					      .face = FAB_MSG,
					      .home = true,
					      .max_count = 2,
					      .stat_fmt = "dirx%u",
					      .create = t_create,
					      .destroy = t_destroy,
					      .send = t_send,
					      .recv = t_recv,
					      .mem_port = t_mem,
					      .served = t_served,
					      .served_ps = t_served_ps,
					      .energy = t_energy};
static const struct fab_role_ops ext_role = {.name = "ext",
					     .face = FAB_MSG,
					     .external = true,
					     .send = t_send,
					     .recv = t_recv,
					     .energy = t_energy};
static const struct fab_role_ops ini_role = {
    .name = "ini", .face = FAB_REQ, .external = true, .send = t_send, .energy = t_energy};
static const struct fab_role_ops tgt_role = {.name = "tgt",
					     .face = FAB_RESP,
					     .max_mem = 1,
					     .stat_fmt = "tgt%u",
					     .create = t_create,
					     .destroy = t_destroy,
					     .recv = t_recv,
					     .mem_port = t_mem,
					     .energy = t_energy};
/* a role that declares no energy events: refused at build */
static const struct fab_role_ops mute_role = {.name = "mute",
					      .face = FAB_MSG,
					      .stat_fmt = "mute%u",
					      .create = t_create,
					      .destroy = t_destroy,
					      .send = t_send,
					      .recv = t_recv};
static const struct fab_role_ops *const mute_roles[] = {&mute_role, NULL};
static const struct fab_role_ops *const t_roles[] = {
    &node_role, &dirx_role,	   &ext_role,	     &ini_role,
    &tgt_role,	&fab_memctrl_role, &fab_bridge_role, NULL};
static const char *const t_vnets[] = {"a", "b"};
static const char *const t_msgs[] = {"m0", "m1"};
static const unsigned char t_traffic[] = {NOC_TR_REQUEST, NOC_TR_DATA};

static unsigned t_natural(void *ctx, const struct fab_role_ops *r)
{
	(void)r;
	return ((struct t_ctx *)ctx)->natural;
}

static const struct fab_proto t_proto = {.name = "t",
					 .roles = t_roles,
					 .vnets = 2,
					 .vnet_names = t_vnets,
					 .page_attrs = true,
					 .natural_count = t_natural};
/* the same without page attributes, as the gpu and apu families are today */
static const struct fab_proto t_plain = {.name = "plain",
					 .roles = t_roles,
					 .vnets = 2,
					 .vnet_names = t_vnets,
					 .natural_count = t_natural};

static const struct fab_proto t_mute = {.name = "mute",
					.roles = mute_roles,
					.vnets = 2,
					.vnet_names = t_vnets,
					.natural_count = t_natural};

struct tb {
	struct sim_kernel *k;
	struct cs_stats *stats;
	struct cs_config *cfg;
	struct mem_store *store;
	struct dram_cfg dram;
	struct addr_map map;
	struct t_ctx ctx;
	struct fabric *f;
	struct cs_err err;
};

/* Builds text's layout with family p; returns fabric_build's code (the fabric in tb->f). */
static int tb_build_with(struct tb *tb, const char *text, const struct fab_proto *p)
{
	struct cs_err err;

	memset(tb, 0, sizeof(*tb));
	tb->ctx.natural = 3;
	ck_assert_int_eq(sim_kernel_create(NULL, &tb->k), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	ck_assert_int_eq(mem_store_create(&tb->store), 0);
	ck_assert_int_eq(cs_params_defaults(&dram_params, &tb->dram, &err), 0);
	tb->map = (struct addr_map){.banks = 4, .banks_per_channel = 1, .interleave_shift = 8};
	if (cs_config_open_string(text, "t.cfg", &tb->cfg, &err))
		ck_abort_msg("config: %s", err.msg);
	return fabric_build(&(struct fab_build_args){.k = tb->k,
						     .cfg = tb->cfg,
						     .proto = p,
						     .ctx = &tb->ctx,
						     .root = cs_stats_root(tb->stats),
						     .net_stats = "net",
						     .msg_names = t_msgs,
						     .msg_traffic = t_traffic,
						     .n_msgs = 2,
						     .dram = &tb->dram,
						     .map = &tb->map,
						     .store = tb->store},
			    &tb->f, &tb->err);
}

static int tb_build(struct tb *tb, const char *text)
{
	return tb_build_with(tb, text, &t_proto);
}

static void tb_end(struct tb *tb)
{
	fabric_destroy(tb->f);
	sim_kernel_destroy(tb->k);
	cs_config_close(tb->cfg);
	cs_stats_destroy(tb->stats);
	mem_store_destroy(tb->store);
}

static struct t_node *obj(struct tb *tb, const char *role, unsigned i)
{
	return fabric_objs(tb->f, role)[i];
}

/* One-way messages: endpoints in list order over groups; a directory in front of four
 * channels has four memory sockets, each to port 0 of one channel; groups are made in order. */
START_TEST(test_msg_numbering_and_memory)
{
	struct tb tb;
	int rc = tb_build(&tb, "fabric = { groups = \"a, d, b, m\"; };\n"
			       "a = { role = \"node\"; count = 2; };\n"
			       "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\n"
			       "b = { role = \"node\"; count = 3; };\n"
			       "m = { role = \"memctrl\"; count = 4; };\n");

	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	ck_assert_uint_eq(fabric_count(tb.f, "node"), 5);
	ck_assert_uint_eq(fabric_node(tb.f, "node", 0)->ep, 0);
	ck_assert_uint_eq(fabric_node(tb.f, "node", 1)->ep, 1);
	ck_assert_uint_eq(fabric_node(tb.f, "dirx", 0)->ep, 2);
	ck_assert_uint_eq(fabric_node(tb.f, "node", 2)->ep, 3); /* b's first */
	ck_assert_uint_eq(fabric_node(tb.f, "node", 4)->ep, 5);
	ck_assert_uint_eq(noc_endpoints(fabric_net(tb.f, 0)), 6);
	ck_assert_uint_eq(noc_vnets(fabric_net(tb.f, 0)), 2);
	ck_assert_uint_eq(fabric_node(tb.f, "dirx", 0)->n_mem, 4);
	for (unsigned c = 0; c < 4; c++) {
		ck_assert_uint_eq(fabric_node(tb.f, "memctrl", c)->ports, 1);
		ck_assert_ptr_eq(obj(&tb, "dirx", 0)->mem[c].peer,
				 dram_ctrl_port(fabric_objs(tb.f, "memctrl")[c], 0));
	}
	/* every node's sockets are on the network */
	for (unsigned i = 0; i < 5; i++)
		ck_assert_ptr_eq(
		    obj(&tb, "node", i)->send.peer,
		    noc_inject_port(fabric_net(tb.f, 0), fabric_node(tb.f, "node", i)->ep));
	/* made in list order: a (0, 1), d (2), b (3..5) */
	ck_assert_uint_eq(obj(&tb, "dirx", 0)->order, 2);
	ck_assert_uint_eq(obj(&tb, "node", 2)->order, 3);
	ck_assert(fabric_idle(tb.f));
	tb_end(&tb);
}
END_TEST

/* Same-event counts as the roles declare them: the nodes with `served` on a network (dirx),
 * then the memory controllers (their data-bus cycles: none yet), then each endpoint's injected
 * and ejected flits; counts in ps over the caller's cycle. Roles without `served` (node) add
 * nothing of their own. */
START_TEST(test_event_counts)
{
	struct tb tb;
	unsigned n[EVB_CLASSES] = {7, 0, 0, 0};
	double v[2 + 2 + 2 * 6];
	int rc = tb_build(&tb, "fabric = { groups = \"a, d, b, m\"; };\n"
			       "a = { role = \"node\"; count = 2; };\n"
			       "d = { role = \"dirx\"; count = 2; memory = \"m\"; };\n"
			       "b = { role = \"node\"; count = 2; };\n"
			       "m = { role = \"memctrl\"; count = 2; };\n");

	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	fabric_event_shape(tb.f, n);
	ck_assert_uint_eq(n[EVB_ISSUE], 7); /* the system's, untouched */
	ck_assert_uint_eq(n[EVB_L2], 2);
	ck_assert_uint_eq(n[EVB_DRAM], 2);
	ck_assert_uint_eq(n[EVB_NOC], 2 * 6);
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = -1;
	fabric_event_counts(tb.f, 500, v);
	ck_assert_double_eq_tol(v[0], (10 + 2) * 250 / 500.0, 1e-12); /* made third, fourth */
	ck_assert_double_eq_tol(v[1], (10 + 3) * 250 / 500.0, 1e-12);
	for (unsigned i = 2; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_double_eq(v[i], 0); /* no traffic, no DRAM command yet */
	tb_end(&tb);
}
END_TEST

/* The stats contract: fabric_energy adds what every node's role declares (its events and
 * itself) and each network's routers, and a role that declares nothing is refused at build
 * with one line naming it. */
START_TEST(test_energy_declared)
{
	struct tb tb;
	struct energy_counts c = {{0}, {0}};
	struct noc *n;
	int rc = tb_build(&tb, "fabric = { groups = \"a, d, m\"; };\n"
			       "a = { role = \"node\"; count = 2; };\n"
			       "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\n"
			       "m = { role = \"memctrl\"; count = 1; };\n");

	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	n = fabric_net(tb.f, 0);
	fabric_energy(tb.f, &c);
	ck_assert_double_eq(c.n[EN_DIR_TBE], 1 + 2 + 3); /* made in order 0, 1, 2 */
	ck_assert_double_eq(c.inst[EN_DIR], 3);
	ck_assert_double_eq(c.inst[EN_DRAM], 1);
	ck_assert_double_eq(c.inst[EN_NOC], (double)noc_routers(n) * noc_phys_nets(n));
	ck_assert_double_eq(c.n[EN_NOC_ROUTER], 0); /* nothing sent */
	ck_assert_double_eq(c.n[EN_DRAM_RD], 0);
	tb_end(&tb);

	rc = tb_build_with(&tb,
			   "fabric = { groups = \"q\"; };\n"
			   "q = { role = \"mute\"; count = 2; };\n",
			   &t_mute);
	ck_assert_int_eq(rc, -CS_ECONFIG);
	ck_assert_ptr_null(tb.f);
	ck_assert_str_eq(tb.err.msg,
			 "t.cfg:2: q.role = \"mute\": role mute of protocol family mute "
			 "declares no energy events (fab_role_ops.energy)");
	tb_end(&tb);
}
END_TEST

/* Three networks in a tree, joined by two bridges: node ids run over every node but the
 * bridges in list order; a bridge has an endpoint on each of its networks; each network sends
 * the ids of the others' nodes to the bridge towards them (tests/unit/test_bridge.c times a
 * message's path through a bridge; tests/cli/fabric.sh runs the APU as gem5's tree). */
START_TEST(test_bridges_and_ids)
{
	struct tb tb;
	const struct fab_node *b0, *b1;
	int rc;

	rc = tb_build(&tb,
		      "fabric = { groups = \"c, b0, d, b1, g, m\"; };\n"
		      "c = { role = \"node\"; count = 2; net = \"cnet\"; };\n"
		      "b0 = { role = \"bridge\"; count = 1; net = \"cnet\"; net2 = \"noc\"; };\n"
		      "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\n"
		      "b1 = { role = \"bridge\"; count = 1; net = \"gnet\"; net2 = \"noc\"; };\n"
		      "g = { role = \"node\"; count = 3; net = \"gnet\"; };\n"
		      "m = { role = \"memctrl\"; count = 1; };\n");
	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	ck_assert_uint_eq(fabric_nets(tb.f), 3);
	/* ids: c 0, 1; d 2; g 3, 4, 5 */
	ck_assert_uint_eq(fabric_node(tb.f, "node", 1)->id, 1);
	ck_assert_uint_eq(fabric_node(tb.f, "dirx", 0)->id, 2);
	ck_assert_uint_eq(fabric_node(tb.f, "node", 2)->id, 3);
	ck_assert_uint_eq(fabric_node(tb.f, "node", 4)->id, 5);
	/* endpoints per network: cnet c0 c1 b0; noc b0 d b1; gnet b1 g0 g1 g2 */
	b0 = fabric_node(tb.f, "bridge", 0);
	b1 = fabric_node(tb.f, "bridge", 1);
	ck_assert_uint_eq(b0->ep, 2);
	ck_assert_uint_eq(b0->ep2, 0);
	ck_assert_uint_eq(fabric_node(tb.f, "dirx", 0)->ep, 1);
	ck_assert_uint_eq(b1->ep2, 2);
	ck_assert_uint_eq(b1->ep, 0);
	ck_assert_uint_eq(fabric_node(tb.f, "node", 2)->ep, 1);
	ck_assert_uint_eq(noc_endpoints(fabric_net(tb.f, 0)), 3);
	ck_assert_uint_eq(noc_endpoints(fabric_net(tb.f, 1)), 3);
	ck_assert_uint_eq(noc_endpoints(fabric_net(tb.f, 2)), 4);
	ck_assert(fabric_idle(tb.f));
	tb_end(&tb);
}
END_TEST

/* fabric.links: a network named there is read with the link table (a 24-byte header on 16-byte
 * flits: 128 B of payload in 10 flits), its own section overriding single keys; the same network
 * not named there takes the noc table's defaults (an 8-byte header on 32-byte flits: 5 flits). */
START_TEST(test_links_table)
{
	static const char *const layout =
	    "a = { role = \"node\"; count = 1; net = \"l\"; };\n"
	    "b = { role = \"bridge\"; count = 1; net = \"l\"; net2 = \"noc\"; };\n"
	    "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\n"
	    "m = { role = \"memctrl\"; count = 1; };\n";
	static const struct {
		const char *fabric, *section;
		unsigned flits;
	} cases[] = {
	    {"fabric = { groups = \"a, b, d, m\"; links = \"l\"; };\n", "", 10},
	    {"fabric = { groups = \"a, b, d, m\"; links = \"l\"; };\n",
	     "l = { flit_bytes = 32; };\n", 5}, /* ceil((128 + 24) / 32) */
	    {"fabric = { groups = \"a, b, d, m\"; };\n", "", 5},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct tb tb;
		int rc;

		snprintf(text, sizeof(text), "%s%s%s", cases[i].fabric, layout, cases[i].section);
		rc = tb_build(&tb, text);
		ck_assert_msg(rc == 0, "case %u: %s", i, tb.err.msg);
		ck_assert_uint_eq(noc_flits(fabric_net(tb.f, 0), 128), cases[i].flits);
		tb_end(&tb);
	}
}
END_TEST

/* Requests with responses: the initiators are endpoints 0.., the targets 0.. of their own side,
 * whatever the list order; eight banks share four channels two by two (bank i on channel
 * i / 2, port i mod 2). Externals are bound when handed over. */
START_TEST(test_reqresp_numbering_and_sharing)
{
	struct tb tb;
	struct t_node ext[3];
	int rc = tb_build(&tb, "fabric = { groups = \"m, t, i\"; };\n"
			       "m = { role = \"memctrl\"; count = 4; };\n"
			       "t = { role = \"tgt\"; count = 8; memory = \"m\"; };\n"
			       "i = { role = \"ini\"; count = 3; };\n");

	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(fabric_node(tb.f, "ini", i)->ep, i);
	for (unsigned j = 0; j < 8; j++) {
		ck_assert_uint_eq(fabric_node(tb.f, "tgt", j)->ep, j);
		ck_assert_ptr_eq(obj(&tb, "tgt", j)->mem[0].peer,
				 dram_ctrl_port(fabric_objs(tb.f, "memctrl")[j / 2], j % 2));
		ck_assert_ptr_eq(obj(&tb, "tgt", j)->recv.peer,
				 noc_mem_port(fabric_net(tb.f, 0), j));
	}
	ck_assert_uint_eq(fabric_node(tb.f, "memctrl", 3)->ports, 2);
	ck_assert_ptr_null(fabric_objs(tb.f, "ini")[1]);
	for (unsigned i = 0; i < 3; i++) {
		tlm_initiator_init(&ext[i].send, "ext", &t_bw_ops, &ext[i]);
		ck_assert_int_eq(fabric_attach(tb.f, "ini", i, &ext[i], &tb.err), 0);
		ck_assert_ptr_eq(ext[i].send.peer, noc_req_port(fabric_net(tb.f, 0), i));
	}
	ck_assert_ptr_eq(fabric_objs(tb.f, "ini")[2], &ext[2]);
	ck_assert_int_ne(fabric_attach(tb.f, "ini", 3, &ext[0], &tb.err), 0);
	tb_end(&tb);
}
END_TEST

/* count 0 takes the family's natural count; a standard layout fills a configuration without
 * fabric.groups, and a file can still change one of its groups. */
START_TEST(test_natural_and_standard)
{
	static const struct fab_std_group std[] = {
	    {"nodes", {.role = "node", .net = "noc"}},
	    {"dirs", {.role = "dirx", .count = 1, .net = "noc", .memory = "chans"}},
	    {"chans", {.role = "memctrl", .count = 2, .net = ""}},
	};
	struct tb tb;
	struct cs_err err;
	int rc;

	memset(&tb, 0, sizeof(tb));
	tb.ctx.natural = 3;
	ck_assert_int_eq(sim_kernel_create(NULL, &tb.k), 0);
	ck_assert_int_eq(cs_stats_create(&tb.stats), 0);
	ck_assert_int_eq(mem_store_create(&tb.store), 0);
	ck_assert_int_eq(cs_params_defaults(&dram_params, &tb.dram, &err), 0);
	tb.map = (struct addr_map){.banks = 4, .banks_per_channel = 1, .interleave_shift = 8};
	ck_assert_int_eq(cs_config_open_string("chans = { count = 4; };\n", "t.cfg", &tb.cfg, &err),
			 0);
	rc = fabric_build(&(struct fab_build_args){.k = tb.k,
						   .cfg = tb.cfg,
						   .proto = &t_proto,
						   .ctx = &tb.ctx,
						   .std = std,
						   .n_std = 3,
						   .root = cs_stats_root(tb.stats),
						   .msg_names = t_msgs,
						   .msg_traffic = t_traffic,
						   .n_msgs = 2,
						   .dram = &tb.dram,
						   .map = &tb.map,
						   .store = tb.store},
			  &tb.f, &tb.err);
	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	ck_assert_uint_eq(fabric_groups(tb.f), 3);
	ck_assert_str_eq(fabric_group_name(tb.f, 2), "chans");
	ck_assert_uint_eq(fabric_count(tb.f, "node"), 3);    /* natural */
	ck_assert_uint_eq(fabric_count(tb.f, "memctrl"), 4); /* the file's */
	ck_assert_uint_eq(fabric_node(tb.f, "dirx", 0)->n_mem, 4);
	tb_end(&tb);
}
END_TEST

/* Ranges: lookups, their home and attributes; without ranges, one over everything homed at the
 * first group that serves memory. */
START_TEST(test_ranges)
{
	struct tb tb;
	const struct fab_range *r;
	int rc = tb_build(&tb, "fabric = { groups = \"d, m\"; ranges = \"lo, rom\"; };\n"
			       "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
			       "m = { role = \"memctrl\"; count = 2; };\n"
			       "lo = { base = 0; size = 0x100000; home = \"d\"; };\n"
			       "rom = { base = 0x200000; size = 0x1000; home = \"m\"; "
			       "readonly = true; cacheable = false; };\n");

	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	ck_assert_uint_eq(fabric_ranges(tb.f), 2);
	r = fabric_range_of(tb.f, 0xFFFFF);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->home, 0);
	ck_assert(r->cacheable && !r->readonly);
	ck_assert_ptr_null(fabric_range_of(tb.f, 0x100000));
	r = fabric_range_of(tb.f, 0x200FFF);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->home, 1);
	ck_assert(!r->cacheable && r->readonly);
	ck_assert_ptr_null(fabric_range_of(tb.f, 0x201000));
	tb_end(&tb);

	rc = tb_build(&tb, "fabric = { groups = \"n, d, m\"; };\n"
			   "n = { role = \"node\"; };\n"
			   "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
			   "m = { role = \"memctrl\"; count = 1; };\n");
	ck_assert_msg(rc == 0, "%s", tb.err.msg);
	r = fabric_range_of(tb.f, UINT64_C(0xFFFFFFFFFFF0));
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->home, 1); /* d, the first home */
	tb_end(&tb);
}
END_TEST

/* Every bad layout: one error line naming where, the build refused, nothing leaked (ASan and
 * valgrind runs of this test). */
static const struct {
	const char *text, *want;
} bad[] = {
    {"fabric = { groups = \"a\"; };\na = { role = \"nod\"; };\n",
     "t.cfg:2: a.role = \"nod\": no role 'nod' in protocol family t (did you mean 'node'?)"},
    {"fabric = { groups = \"a, b\"; };\na = { role = \"dirx\"; count = 1; memory = \"b\"; };\n"
     "b = { role = \"node\"; };\n",
     "t.cfg:2: a.memory = \"b\": 'b' is not a group of memory controllers"},
    {"fabric = { groups = \"a, m\"; };\na = { role = \"dirx\"; count = 1; memory = \"m\"; };\n"
     "m = { role = \"memctrl\"; net = \"noc\"; };\n",
     "t.cfg:3: m.net = \"noc\": a memory controller is on no network"},
    {"fabric = { groups = \"t, m, i\"; };\nt = { role = \"tgt\"; count = 4; memory = \"m\"; };\n"
     "m = { role = \"memctrl\"; count = 3; };\ni = { role = \"ini\"; };\n",
     "t.cfg:2: t.memory = \"m\": 4 nodes of t and 3 memory controllers of m: one count must "
     "divide the other"},
    {"fabric = { groups = \"d, m\"; };\nd = { role = \"dirx\"; count = 3; memory = \"m\"; };\n"
     "m = { role = \"memctrl\"; count = 3; };\n",
     "t.cfg:2: d.count = 3: at most 2 dirx node(s) in this protocol family"},
    {"fabric = { groups = \"d\"; };\nd = { role = \"dirx\"; count = 1; };\n",
     "d.memory = \"\" (default): role dirx needs a group of memory controllers behind it"},
    {"fabric = { groups = \"n, m\"; };\nn = { role = \"node\"; };\n"
     "m = { role = \"memctrl\"; };\n",
     "no group names m as its memory"},
    {"fabric = { groups = \"n\"; };\nn = { role = \"node\"; memory = \"n\"; };\n",
     "'n' is not a group of memory controllers"},
    {"fabric = { groups = \"noc\"; };\nnoc = { role = \"node\"; };\n",
     "noc.net = \"\" (default): 'noc' is a node group, not a network"},
    {"fabric = { groups = \"a, b\"; };\na = { role = \"node\"; net = \"b\"; };\n"
     "b = { role = \"node\"; };\n",
     "t.cfg:2: a.net = \"b\": 'b' is a node group, not a network"},
    {"fabric = { groups = \"a, d, m\"; };\na = { role = \"node\"; count = 3; net = \"l\"; };\n"
     "l = { topology = \"link\"; };\nd = { role = \"dirx\"; count = 1; memory = \"m\"; };\n"
     "m = { role = \"memctrl\"; count = 1; };\n",
     "network l: 3 endpoints (a link joins exactly 2)"},
    {"fabric = { groups = \"a, a\"; };\na = { role = \"node\"; };\n",
     "t.cfg:1: fabric.groups = \"a, a\": 'a' named twice"},
    {"fabric = { groups = \"  , \"; };\n", "no node groups"},
    {"fabric = { groups = \"i, m\"; };\ni = { role = \"ini\"; };\n"
     "m = { role = \"memctrl\"; count = 1; };\n",
     "network noc: requests with responses need initiators and targets on it"},
    {"fabric = { groups = \"d, m\"; ranges = \"r\"; };\n"
     "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
     "m = { role = \"memctrl\"; count = 1; };\nr = { base = 100; size = 4096; home "
     "= \"d\"; };\n",
     "t.cfg:4: r.base = 100: not a multiple of 4 KiB"},
    {"fabric = { groups = \"n, d, m\"; ranges = \"r\"; };\nn = { role = \"node\"; };\n"
     "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
     "m = { role = \"memctrl\"; count = 1; };\nr = { size = 4096; home = \"n\"; "
     "};\n",
     "r.home = \"n\": 'n' is not a group whose role serves memory"},
    {"fabric = { groups = \"d, m\"; ranges = \"r, s\"; };\n"
     "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
     "m = { role = \"memctrl\"; count = 1; };\n"
     "r = { size = 8192; home = \"d\"; };\ns = { base = 4096; size = 4096; home = \"d\"; };\n",
     "t.cfg:5: s.base = 4096: overlaps range r"},
    {"fabric = { groups = \"l%n\"; };\n", "'l%n' is not a section name"},
    {"fabric = { groups = \"a\"; };\n", "fabric.groups = \"a\": 'a' names no section"},
    {"fabric = { groups = \"d, m\"; ranges = \"d\"; };\n"
     "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\nm = { role = \"memctrl\"; };\n",
     "fabric.ranges = \"d\": 'd' is already the section of a component or of another part"},
    {"fabric = { groups = \"t, u, m, i\"; };\nt = { role = \"tgt\"; count = 2; memory = \"m\"; "
     "};\nu = { role = \"tgt\"; count = 2; memory = \"m\"; };\n"
     "m = { role = \"memctrl\"; count = 2; };\ni = { role = \"ini\"; };\n",
     "t.cfg:3: u.memory = \"m\": memory group m is already behind group t"},
    {"fabric = { groups = \"t, m, i\"; };\nt = { role = \"tgt\"; count = 1; memory = \"m\"; "
     "};\nm = { role = \"memctrl\"; count = 2; };\ni = { role = \"ini\"; };\n",
     "a tgt node has 1 memory socket(s); 2 controllers behind 1 nodes need more"},
    {"fabric = { groups = \"t, m, i\"; };\nt = { role = \"tgt\"; count = 1; memory = \"m\"; "
     "net = \"l\"; };\nm = { role = \"memctrl\"; count = 1; };\ni = { role = \"ini\"; count = 1; "
     "net = \"l\"; };\nl = { topology = \"link\"; };\n",
     "t.cfg:2: t.net = \"l\": network l: a link carries one-way messages, not requests"},
    {"fabric = { groups = \"a, d, m\"; };\na = { role = \"node\"; net = \"x\"; };\n"
     "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\nm = { role = \"memctrl\"; };\n",
     "2 networks of messages need 1 bridges between them in a tree (0 given)"},
    {"fabric = { groups = \"a, b, d, m\"; };\na = { role = \"node\"; net = \"x\"; };\n"
     "b = { role = \"bridge\"; net = \"x\"; count = 1; };\n"
     "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\nm = { role = \"memctrl\"; };\n",
     "b.net2 = \"\" (default): a bridge joins its network to another one: name it"},
    {"fabric = { groups = \"a, d, m\"; };\na = { role = \"node\"; net2 = \"x\"; };\n"
     "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\nm = { role = \"memctrl\"; };\n",
     "t.cfg:2: a.net2 = \"x\": only a bridge is on a second network"},
    {"fabric = { groups = \"a, b, c, e, d, m\"; };\na = { role = \"node\"; net = \"x\"; };\n"
     "b = { role = \"bridge\"; net = \"x\"; net2 = \"noc\"; count = 1; };\n"
     "c = { role = \"bridge\"; net = \"x\"; net2 = \"noc\"; count = 1; };\n"
     "e = { role = \"node\"; net = \"y\"; };\n"
     "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\nm = { role = \"memctrl\"; };\n",
     "network x is not joined to every other by bridges"},
    {"fabric = { groups = \"d, m\"; ranges = \"r\"; };\n"
     "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
     "m = { role = \"memctrl\"; count = 1; };\nr = { size = 0; home = \"d\"; };\n",
     "r: not a whole number of 4 KiB pages"},
    {"fabric = { groups = \"d, m\"; links = \"pcie\"; };\n"
     "d = { role = \"dirx\"; count = 1; memory = \"m\"; };\nm = { role = \"memctrl\"; };\n",
     "t.cfg:1: fabric.links = \"pcie\": 'pcie' is not a network of any node group"},
};

START_TEST(test_bad_layouts)
{
	struct tb tb;
	int rc = tb_build(&tb, bad[_i].text);

	ck_assert_int_eq(rc, -CS_ECONFIG);
	ck_assert_ptr_null(tb.f);
	ck_assert_msg(strstr(tb.err.msg, bad[_i].want), "case %d: got '%s', want '%s'", _i,
		      tb.err.msg, bad[_i].want);
	ck_assert_ptr_null(strchr(tb.err.msg, '\n'));
	tb_end(&tb);
}
END_TEST

/* A family whose protocols do not read page attributes refuses them rather than ignore them. */
START_TEST(test_page_attrs_refused)
{
	struct tb tb;
	int rc = tb_build_with(&tb,
			       "fabric = { groups = \"d, m\"; ranges = \"r\"; };\n"
			       "d = { role = \"dirx\"; memory = \"m\"; count = 1; };\n"
			       "m = { role = \"memctrl\"; count = 1; };\n"
			       "r = { size = 4096; home = \"d\"; cacheable = false; };\n",
			       &t_plain);

	ck_assert_int_eq(rc, -CS_ECONFIG);
	ck_assert_str_eq(tb.err.msg, "t.cfg:4: r.cacheable = false: the plain protocols do not "
				     "implement uncacheable or read-only pages");
	tb_end(&tb);
}
END_TEST

/* count 0 with a natural count of 0: a group with no nodes is an error, not an empty group. */
START_TEST(test_empty_group)
{
	struct tb tb;
	struct cs_err err;

	memset(&tb, 0, sizeof(tb));
	ck_assert_int_eq(sim_kernel_create(NULL, &tb.k), 0);
	ck_assert_int_eq(cs_stats_create(&tb.stats), 0);
	ck_assert_int_eq(mem_store_create(&tb.store), 0);
	ck_assert_int_eq(cs_params_defaults(&dram_params, &tb.dram, &err), 0);
	ck_assert_int_eq(cs_config_open_string("fabric = { groups = \"n\"; };\n"
					       "n = { role = \"node\"; };\n",
					       "t.cfg", &tb.cfg, &err),
			 0);
	tb.ctx.natural = 0;
	ck_assert_int_eq(fabric_build(&(struct fab_build_args){.k = tb.k,
							       .cfg = tb.cfg,
							       .proto = &t_proto,
							       .ctx = &tb.ctx,
							       .root = cs_stats_root(tb.stats),
							       .msg_names = t_msgs,
							       .msg_traffic = t_traffic,
							       .n_msgs = 2,
							       .dram = &tb.dram,
							       .map = &tb.map,
							       .store = tb.store},
				      &tb.f, &tb.err),
			 -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(tb.err.msg, "the group n has no nodes"));
	tb_end(&tb);
}
END_TEST

static Suite *fabric_suite(void)
{
	Suite *s = suite_create("fabric");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_msg_numbering_and_memory);
	tcase_add_test(tc, test_event_counts);
	tcase_add_test(tc, test_energy_declared);
	tcase_add_test(tc, test_reqresp_numbering_and_sharing);
	tcase_add_test(tc, test_bridges_and_ids);
	tcase_add_test(tc, test_links_table);
	tcase_add_test(tc, test_natural_and_standard);
	tcase_add_test(tc, test_ranges);
	tcase_add_loop_test(tc, test_bad_layouts, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_empty_group);
	tcase_add_test(tc, test_page_attrs_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fabric_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
