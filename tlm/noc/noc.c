/*
 * tlm/noc/noc.c - NoC construction: parameters, topology (crossbar, mesh with XY routing),
 * statistics, closed forms. The packets' life is in noc_flow.c.
 */
#include "tlm/noc/noc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/noc/noc_impl.h"

static const char *const noc_topologies[] = {"crossbar", "mesh", NULL};

static const struct cs_param noc_param_rows[] = {
    {"topology", CS_P_ENUM, offsetof(struct noc_cfg, topology), "mesh", "",
     "crossbar: one router stage; mesh: 2D grid, XY routing", 0, 0, noc_topologies},
    {"clock_mhz", CS_P_UINT, offsetof(struct noc_cfg, clock_mhz), "1400", "MHz",
     "NoC clock (thesis Table 2.1: 1.4 GHz)", 1, 100000, NULL},
    {"flit_bytes", CS_P_UINT, offsetof(struct noc_cfg, flit_bytes), "32", "bytes",
     "flit size = link width, one flit per link per cycle (Table 2.1: 32 B channel)", 1, 4096,
     NULL},
    {"header_bytes", CS_P_UINT, offsetof(struct noc_cfg, header_bytes), "8", "bytes",
     "NoC header added to every packet", 0, 4096, NULL},
    {"router_latency", CS_P_UINT, offsetof(struct noc_cfg, router_latency), "2", "cycles",
     "router pipeline, head arrival to head on the output link (an estimate)", 1, 1000, NULL},
    {"link_latency", CS_P_UINT, offsetof(struct noc_cfg, link_latency), "1", "cycles",
     "link traversal; also the credit return delay", 1, 1000, NULL},
    {"buffer_flits", CS_P_UINT, offsetof(struct noc_cfg, buffer_flits), "16", "flits",
     "input buffer per port per network (must hold the largest packet)", 1, 65536, NULL},
    {"mesh_cols", CS_P_UINT, offsetof(struct noc_cfg, mesh_cols), "0", "",
     "mesh columns (0: ceil(sqrt(SMs + L2 banks)))", 0, 4096, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table noc_params = {
    .section = "noc",
    .help = "network-on-chip: request and response networks, crossbar or 2D mesh, "
	    "virtual cut-through with credits",
    .params = noc_param_rows,
    .size = sizeof(struct noc_cfg),
};

int noc_cfg_check(const struct noc_cfg *cfg, struct cs_err *err)
{
	uint64_t need;

	if (cfg->topology > NOC_MESH)
		return cs_err_set(err, -CS_ECONFIG, "noc.topology: unknown topology %u",
				  cfg->topology);
	if (!cfg->flit_bytes || !cfg->clock_mhz || cfg->clock_mhz >= 1000000 ||
	    !cfg->router_latency || !cfg->link_latency)
		return cs_err_set(err, -CS_ECONFIG,
				  "noc: clock_mhz, flit_bytes, router_latency and link_latency "
				  "must be positive (clock below 1 THz)");
	need = (cfg->header_bytes + MEM_LINE_MAX + cfg->flit_bytes - 1) / cfg->flit_bytes;
	if (cfg->buffer_flits < need)
		return cs_err_set(err, -CS_ECONFIG,
				  "noc.buffer_flits (%llu) must hold the largest packet: "
				  "noc.header_bytes (%llu) + %u B payload = %llu flits of "
				  "noc.flit_bytes (%llu)",
				  (unsigned long long)cfg->buffer_flits,
				  (unsigned long long)cfg->header_bytes, (unsigned)MEM_LINE_MAX,
				  (unsigned long long)need, (unsigned long long)cfg->flit_bytes);
	if (cfg->buffer_flits > UINT32_MAX / 2 || cfg->header_bytes > 65536 ||
	    cfg->flit_bytes > 65536)
		return cs_err_set(err, -CS_ECONFIG,
				  "noc: buffer_flits, header_bytes or "
				  "flit_bytes too large");
	return 0;
}

/* ---- clock ----------------------------------------------------------------------------------- */

/* Edges repeat with period q cycles = p ps exactly (the clock's reduced period p/q ps: q = f /
 * gcd(f, 10^12)); a table of one such period when q is small. */
static int clock_setup(struct noc *n)
{
	uint64_t q = n->clk.den;

	if (q > 4096)
		return 0; /* fall back to the 128-bit formula */
	n->clk_tab = malloc(q * sizeof(*n->clk_tab));
	if (!n->clk_tab)
		return -CS_ENOMEM;
	for (uint64_t i = 0; i < q; i++)
		n->clk_tab[i] = sim_clock_edge(&n->clk, i);
	n->clk_q = q;
	n->clk_p = n->clk.num;
	return 0;
}

uint64_t noc_cycle_ceil(struct noc *n, sim_time_t t)
{
	uint64_t c;

	if (t == n->memo_t)
		return n->memo_c;
	c = sim_clock_cycle(&n->clk, t);
	if (noc_edge(n, c) != t)
		c++;
	n->memo_t = t;
	n->memo_c = c;
	return c;
}

/* ---- geometry -------------------------------------------------------------------------------- */

static void place(struct noc *n)
{
	unsigned total = n->n_req + n->n_mem, s = 0, j = 0;

	if (n->cfg.topology != NOC_MESH) {
		n->cols = n->rows = 1;
		return;
	}
	n->cols = n->cfg.mesh_cols ? (unsigned)n->cfg.mesh_cols
				   : (unsigned)ceil(sqrt((double)total) - 1e-9);
	if (n->cols == 0)
		n->cols = 1;
	while ((uint64_t)n->cols * n->cols < total && !n->cfg.mesh_cols)
		n->cols++; /* guard against sqrt rounding */
	n->rows = (total + n->cols - 1) / n->cols;
	for (unsigned p = 0; p < total; p++) {
		if (j < n->n_mem &&
		    p == (unsigned)(((uint64_t)2 * j + 1) * total / ((uint64_t)2 * n->n_mem)))
			n->pos_mem[j++] = p;
		else
			n->pos_sm[s++] = p;
	}
}

unsigned noc_hops_pos(const struct noc *n, unsigned pa, unsigned pb)
{
	unsigned ax = pa % n->cols, ay = pa / n->cols, bx = pb % n->cols, by = pb / n->cols;

	if (n->cfg.topology != NOC_MESH)
		return 0;
	return (ax > bx ? ax - bx : bx - ax) + (ay > by ? ay - by : by - ay);
}

/* ---- topology -------------------------------------------------------------------------------- */

enum { D_LOCAL = 0, D_E, D_W, D_N, D_S, D_COUNT };
static const char *const dir_name[D_COUNT] = {"local", "e", "w", "n", "s"};

static int neighbour(const struct noc *n, unsigned r, unsigned d)
{
	unsigned x = r % n->cols, y = r / n->cols;

	switch (d) {
	case D_E:
		return x + 1 < n->cols ? (int)(r + 1) : -1;
	case D_W:
		return x > 0 ? (int)(r - 1) : -1;
	case D_N:
		return y > 0 ? (int)(r - n->cols) : -1;
	case D_S:
		return y + 1 < n->rows ? (int)(r + n->cols) : -1;
	default:
		return -1;
	}
}

static unsigned opposite(unsigned d)
{
	static const unsigned opp[D_COUNT] = {D_LOCAL, D_W, D_E, D_S, D_N};

	return opp[d];
}

/* at[r] = the endpoint (of the cnt placed at pos[]) at router position r, or -1. */
static int *ep_map(const unsigned *pos, unsigned cnt, unsigned nr)
{
	int *at = malloc((size_t)nr * sizeof(*at));

	if (!at)
		return NULL;
	for (unsigned r = 0; r < nr; r++)
		at[r] = -1;
	for (unsigned i = 0; i < cnt; i++)
		at[pos[i]] = (int)i;
	return at;
}

static const char *side_name(const struct noc *n, const struct noc_net *net, bool src)
{
	(void)n;
	return (net->id == NOC_REQ) == src ? "sm" : "bank";
}

static int out_init(struct noc_out *o, struct noc_net *net, struct noc_router *r,
		    struct noc_in *down, struct cs_stat_group *lg, const char *name,
		    const char *desc)
{
	o->net = net;
	o->r = r;
	o->down = down;
	o->credits = net->n->buf;
	o->sched = NOC_NEVER;
	o->wait = calloc(r->n_in ? r->n_in : 1, sizeof(*o->wait));
	if (!o->wait)
		return -CS_ENOMEM;
	o->flits = cs_stat_counter(lg, name, "flits", desc);
	if (down)
		down->up = o;
	return 0;
}

static int build_crossbar(struct noc_net *net, struct cs_stat_group *lg)
{
	struct noc *n = net->n;
	struct noc_router *r;
	char name[64], desc[128];

	net->n_routers = 1;
	net->routers = calloc(1, sizeof(*net->routers));
	net->n_ins = net->n_src;
	net->n_outs = net->n_dst;
	net->ins = calloc(net->n_ins, sizeof(*net->ins));
	net->outs = calloc(net->n_outs, sizeof(*net->outs));
	if (!net->routers || !net->ins || !net->outs)
		return -CS_ENOMEM;
	r = &net->routers[0];
	r->n_in = net->n_src;
	r->in = calloc(r->n_in, sizeof(*r->in));
	r->route = calloc(net->n_dst, sizeof(*r->route));
	if (!r->in || !r->route)
		return -CS_ENOMEM;
	for (unsigned i = 0; i < net->n_src; i++) {
		struct noc_in *in = &net->ins[i];

		in->r = r;
		in->local = i;
		r->in[i] = in;
		net->inj[i] = in;
	}
	for (unsigned d = 0; d < net->n_dst; d++) {
		int rc;

		snprintf(name, sizeof(name), "%s%u_out", side_name(n, net, false), d);
		snprintf(desc, sizeof(desc), "flits carried from the crossbar to %s%u",
			 side_name(n, net, false), d);
		rc = out_init(&net->outs[d], net, r, &net->ej[d], lg, name, desc);
		if (rc)
			return rc;
		r->route[d] = &net->outs[d];
	}
	return 0;
}

static int build_mesh(struct noc_net *net, struct cs_stat_group *lg)
{
	struct noc *n = net->n;
	unsigned nr = n->cols * n->rows, ni = 0, no = 0;
	const unsigned *spos = net->id == NOC_REQ ? n->pos_sm : n->pos_mem;
	const unsigned *dpos = net->id == NOC_REQ ? n->pos_mem : n->pos_sm;
	struct noc_in **in_at = NULL;	/* [nr][D_COUNT] */
	struct noc_out **out_at = NULL; /* [nr][D_COUNT] */
	int *src_at = ep_map(spos, net->n_src, nr), *dst_at = ep_map(dpos, net->n_dst, nr);
	char name[64], desc[128];
	int rc = -CS_ENOMEM;

	net->n_routers = nr;
	net->routers = calloc(nr, sizeof(*net->routers));
	in_at = calloc((size_t)nr * D_COUNT, sizeof(*in_at));
	out_at = calloc((size_t)nr * D_COUNT, sizeof(*out_at));
	if (!net->routers || !in_at || !out_at || !src_at || !dst_at)
		goto out;
	/* count ports */
	for (unsigned r = 0; r < nr; r++) {
		if (src_at[r] >= 0)
			ni++;
		if (dst_at[r] >= 0)
			no++;
		for (unsigned d = D_E; d < D_COUNT; d++)
			if (neighbour(n, r, d) >= 0) {
				ni++;
				no++;
			}
	}
	net->n_ins = ni;
	net->n_outs = no;
	net->ins = calloc(ni, sizeof(*net->ins));
	net->outs = calloc(no, sizeof(*net->outs));
	if (!net->ins || !net->outs)
		goto out;
	/* inputs: local (injection) first, then from each neighbour */
	ni = 0;
	for (unsigned r = 0; r < nr; r++) {
		struct noc_router *rt = &net->routers[r];
		int s = src_at[r];
		unsigned cnt = 0;

		for (unsigned d = 0; d < D_COUNT; d++)
			if ((d == D_LOCAL && s >= 0) || (d != D_LOCAL && neighbour(n, r, d) >= 0))
				cnt++;
		rt->n_in = cnt;
		rt->in = calloc(cnt ? cnt : 1, sizeof(*rt->in));
		rt->route = calloc(net->n_dst, sizeof(*rt->route));
		if (!rt->in || !rt->route)
			goto out;
		cnt = 0;
		for (unsigned d = 0; d < D_COUNT; d++) {
			struct noc_in *in;

			if (d == D_LOCAL ? s < 0 : neighbour(n, r, d) < 0)
				continue;
			in = &net->ins[ni++];
			in->r = rt;
			in->local = cnt;
			rt->in[cnt++] = in;
			in_at[r * D_COUNT + d] = in;
			if (d == D_LOCAL)
				net->inj[s] = in;
		}
	}
	/* outputs: to each neighbour's input from this side, and to the local ejection buffer */
	no = 0;
	for (unsigned r = 0; r < nr; r++) {
		struct noc_router *rt = &net->routers[r];
		int dl = dst_at[r];

		for (unsigned d = 0; d < D_COUNT; d++) {
			struct noc_in *down;
			struct noc_out *o;
			int nb = neighbour(n, r, d);

			if (d == D_LOCAL) {
				if (dl < 0)
					continue;
				down = &net->ej[dl];
				snprintf(name, sizeof(name), "%s%d_out", side_name(n, net, false),
					 dl);
				snprintf(desc, sizeof(desc), "flits carried from router %u to %s%d",
					 r, side_name(n, net, false), dl);
			} else {
				if (nb < 0)
					continue;
				down = in_at[(unsigned)nb * D_COUNT + opposite(d)];
				snprintf(name, sizeof(name), "r%u_%s", r, dir_name[d]);
				snprintf(desc, sizeof(desc),
					 "flits carried from router %u to router %d", r, nb);
			}
			o = &net->outs[no++];
			rc = out_init(o, net, rt, down, lg, name, desc);
			if (rc)
				goto out;
			out_at[r * D_COUNT + d] = o;
		}
	}
	/* XY routes */
	for (unsigned r = 0; r < nr; r++) {
		unsigned x = r % n->cols, y = r / n->cols;

		for (unsigned dst = 0; dst < net->n_dst; dst++) {
			unsigned t = dpos[dst], tx = t % n->cols, ty = t / n->cols, d;

			if (tx > x)
				d = D_E;
			else if (tx < x)
				d = D_W;
			else if (ty < y)
				d = D_N;
			else if (ty > y)
				d = D_S;
			else
				d = D_LOCAL;
			net->routers[r].route[dst] = out_at[r * D_COUNT + d];
		}
	}
	rc = 0;
out:
	free(in_at);
	free(out_at);
	free(src_at);
	free(dst_at);
	return rc;
}

/* ---- statistics ------------------------------------------------------------------------------ */

static int net_stats(struct noc_net *net, struct cs_stat_group *g, const char *const *type_names,
		     struct cs_stat_group **link_group)
{
	struct noc *n = net->n;
	const char *nm = net->id == NOC_REQ ? "req" : "resp";
	struct cs_stat_group *ng = cs_stat_group(g, nm);
	char name[64];

	net->packets = cs_stat_counter(ng, "packets", "packets", "packets sent");
	net->flits = cs_stat_counter(ng, "flits", "flits", "flits sent");
	net->bytes = cs_stat_counter(ng, "bytes", "bytes", "bytes sent (header + payload)");
	net->payload_bytes =
	    cs_stat_counter(ng, "payload_bytes", "bytes", "payload bytes sent (no header)");
	net->stalls = cs_stat_counter(ng, "inject_stalls", "offers",
				      "offers not taken at once (injection buffer full)");
	net->latency = cs_stat_average(ng, "latency", "ns", "packet latency, offer to delivery");
	net->queueing =
	    cs_stat_average(ng, "queueing", "ns", "packet latency minus the unloaded latency");
	net->cls = calloc(n->n_types, sizeof(*net->cls));
	if (!net->cls)
		return -CS_ENOMEM;
	for (unsigned t = 0; t < n->n_types; t++) {
		struct cs_stat_group *cg;

		if (type_names && type_names[t])
			cg = cs_stat_group(ng, type_names[t]);
		else {
			snprintf(name, sizeof(name), "t%u", t);
			cg = cs_stat_group(ng, name);
		}
		net->cls[t].packets = cs_stat_counter(cg, "packets", "packets", "packets sent");
		net->cls[t].flits = cs_stat_counter(cg, "flits", "flits", "flits sent");
		net->cls[t].bytes =
		    cs_stat_counter(cg, "bytes", "bytes", "bytes sent (header + payload)");
	}
	*link_group = cs_stat_group(ng, "link");
	return 0;
}

/* ---- create / destroy ------------------------------------------------------------------------ */

static void net_free(struct noc_net *net)
{
	if (net->routers)
		for (unsigned r = 0; r < net->n_routers; r++) {
			free(net->routers[r].in);
			free(net->routers[r].route);
		}
	if (net->outs)
		for (unsigned o = 0; o < net->n_outs; o++)
			free(net->outs[o].wait);
	free(net->routers);
	free(net->ins);
	free(net->outs);
	free(net->ej);
	free(net->inj);
	free(net->cls);
}

void noc_destroy(struct noc *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < 2; i++)
		net_free(&n->net[i]);
	while (n->chunks) {
		struct noc_chunk *c = n->chunks;

		n->chunks = c->next;
		free(c);
	}
	free(n->clk_tab);
	free(n->pos_sm);
	free(n->pos_mem);
	free(n->sm);
	free(n->mem);
	free(n->sm_ptr);
	free(n->mem_ptr);
	free(n);
}

static int net_build(struct noc *n, unsigned id, struct cs_stat_group *g,
		     const char *const *type_names)
{
	struct noc_net *net = &n->net[id];
	struct cs_stat_group *lg;
	char name[64], desc[128];
	int rc;

	net->n = n;
	net->id = id;
	net->n_src = id == NOC_REQ ? n->n_req : n->n_mem;
	net->n_dst = id == NOC_REQ ? n->n_mem : n->n_req;
	net->src = id == NOC_REQ ? n->sm_ptr : n->mem_ptr;
	net->dst = id == NOC_REQ ? n->mem_ptr : n->sm_ptr;
	net->ej = calloc(net->n_dst, sizeof(*net->ej));
	net->inj = calloc(net->n_src, sizeof(*net->inj));
	if (!net->ej || !net->inj)
		return -CS_ENOMEM;
	rc = net_stats(net, g, type_names, &lg);
	if (rc)
		return rc;
	for (unsigned d = 0; d < net->n_dst; d++) {
		net->ej[d].net = net;
		net->ej[d].ep = net->dst[d];
		net->ej[d].dsched = NOC_NEVER;
	}
	rc = n->cfg.topology == NOC_MESH ? build_mesh(net, lg) : build_crossbar(net, lg);
	if (rc)
		return rc;
	for (unsigned i = 0; i < net->n_ins; i++)
		net->ins[i].net = net;
	for (unsigned s = 0; s < net->n_src; s++) {
		struct noc_in *in = net->inj[s];

		in->ep = net->src[s];
		snprintf(name, sizeof(name), "%s%u_in", side_name(n, net, true), s);
		snprintf(desc, sizeof(desc), "flits injected by %s%u", side_name(n, net, true), s);
		in->flits = cs_stat_counter(lg, name, "flits", desc);
	}
	return 0;
}

int noc_create(struct sim_kernel *k, const struct noc_cfg *cfg, unsigned n_req, unsigned n_mem,
	       const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
	       struct noc **out, struct cs_err *err)
{
	struct noc *n;
	int rc;

	*out = NULL;
	if (!k || !cfg || !stats)
		return cs_err_set(err, -CS_EINVAL, "noc: no kernel, configuration or stat group");
	if (!n_req || !n_mem || n_req + (uint64_t)n_mem > 65535)
		return cs_err_set(err, -CS_EINVAL,
				  "noc: needs 1 to 65535 endpoints, got %u SMs and %u L2 banks",
				  n_req, n_mem);
	if (!n_types || n_types > MEM_MSG_TYPE_MAX)
		return cs_err_set(err, -CS_EINVAL, "noc: %u message types (1 to %u allowed)",
				  n_types, (unsigned)MEM_MSG_TYPE_MAX);
	rc = noc_cfg_check(cfg, err);
	if (rc)
		return rc;
	n = calloc(1, sizeof(*n));
	if (!n)
		goto nomem;
	n->k = k;
	n->cfg = *cfg;
	n->n_req = n_req;
	n->n_mem = n_mem;
	n->n_types = n_types;
	n->R = (uint32_t)cfg->router_latency;
	n->L = (uint32_t)cfg->link_latency;
	n->buf = (uint32_t)cfg->buffer_flits;
	n->flit = (uint32_t)cfg->flit_bytes;
	n->hdr = (uint32_t)cfg->header_bytes;
	n->memo_t = SIM_TIME_MAX;
	if (sim_clock_init(&n->clk, cfg->clock_mhz * 1000000ull)) {
		free(n);
		return cs_err_set(err, -CS_ECONFIG, "noc.clock_mhz: %llu MHz is out of range",
				  (unsigned long long)cfg->clock_mhz);
	}
	if (clock_setup(n))
		goto nomem_free;
	n->pos_sm = calloc(n_req, sizeof(*n->pos_sm));
	n->pos_mem = calloc(n_mem, sizeof(*n->pos_mem));
	n->sm = calloc(n_req, sizeof(*n->sm));
	n->mem = calloc(n_mem, sizeof(*n->mem));
	n->sm_ptr = calloc(n_req, sizeof(*n->sm_ptr));
	n->mem_ptr = calloc(n_mem, sizeof(*n->mem_ptr));
	if (!n->pos_sm || !n->pos_mem || !n->sm || !n->mem || !n->sm_ptr || !n->mem_ptr)
		goto nomem_free;
	place(n);
	for (unsigned i = 0; i < n_req; i++) {
		struct noc_ep *e = &n->sm[i];

		e->n = n;
		e->idx = i;
		snprintf(e->name, sizeof(e->name), "noc.sm%u", i);
		tlm_target_init(&e->ts, e->name, &noc_sm_fw_ops, e);
		n->sm_ptr[i] = e;
	}
	for (unsigned j = 0; j < n_mem; j++) {
		struct noc_ep *e = &n->mem[j];

		e->n = n;
		e->idx = j;
		e->mem = true;
		snprintf(e->name, sizeof(e->name), "noc.bank%u", j);
		tlm_initiator_init(&e->is, e->name, &noc_mem_bw_ops, e);
		n->mem_ptr[j] = e;
	}
	n->tot_packets = cs_stat_counter(stats, "packets", "packets", "packets, both networks");
	n->tot_flits = cs_stat_counter(stats, "flits", "flits", "flits, both networks");
	n->tot_bytes =
	    cs_stat_counter(stats, "bytes", "bytes", "bytes (header + payload), both networks");
	n->tot_latency = cs_stat_average(stats, "latency", "ns",
					 "packet latency, offer to delivery, both networks");
	for (unsigned id = 0; id < 2; id++) {
		rc = net_build(n, id, stats, type_names);
		if (rc)
			goto nomem_free;
	}
	lt_params_default(&n->lt_default);
	noc_set_lt(n, NULL);
	*out = n;
	return 0;

nomem_free:
	noc_destroy(n);
nomem:
	return cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
}

/* ---- queries --------------------------------------------------------------------------------- */

struct tlm_target_socket *noc_req_port(struct noc *n, unsigned sm)
{
	return sm < n->n_req ? &n->sm[sm].ts : NULL;
}

struct tlm_initiator_socket *noc_mem_port(struct noc *n, unsigned bank)
{
	return bank < n->n_mem ? &n->mem[bank].is : NULL;
}

unsigned noc_flits(const struct noc *n, unsigned payload_bytes)
{
	return noc_flits_of(n, payload_bytes);
}

unsigned noc_hops(const struct noc *n, unsigned sm, unsigned bank)
{
	if (sm >= n->n_req || bank >= n->n_mem)
		return 0;
	return noc_hops_pos(n, n->pos_sm[sm], n->pos_mem[bank]);
}

uint64_t noc_unloaded_cycles(const struct noc *n, unsigned sm, unsigned bank,
			     unsigned payload_bytes, bool response)
{
	(void)response; /* both directions cross the same number of routers and links */
	return (uint64_t)(noc_hops(n, sm, bank) + 1) * (n->R + n->L) +
	       noc_flits_of(n, payload_bytes) - 1;
}

sim_time_t noc_unloaded_ps(const struct noc *n, unsigned sm, unsigned bank, unsigned payload_bytes,
			   bool response)
{
	return noc_edge(n, noc_unloaded_cycles(n, sm, bank, payload_bytes, response));
}

uint64_t noc_in_flight(const struct noc *n)
{
	return n->in_flight;
}

const struct sim_clock *noc_clock(const struct noc *n)
{
	return &n->clk;
}

void noc_node_pos(const struct noc *n, bool mem, unsigned idx, unsigned *x, unsigned *y)
{
	unsigned p = 0;

	if (mem ? idx < n->n_mem : idx < n->n_req)
		p = mem ? n->pos_mem[idx] : n->pos_sm[idx];
	*x = p % n->cols;
	*y = p / n->cols;
}

void noc_mesh_dims(const struct noc *n, unsigned *cols, unsigned *rows)
{
	*cols = n->cols;
	*rows = n->rows;
}
