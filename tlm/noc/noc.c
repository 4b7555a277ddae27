/*
 * tlm/noc/noc.c - NoC construction: parameters, topology (crossbar, mesh with XY routing),
 * statistics, closed forms. The packets' life is in noc_flow.c.
 */
#include "tlm/noc/noc.h"

#include "analytic/energy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/noc/noc_impl.h"

static const char *const noc_topologies[] = {"crossbar", "mesh", "link", NULL};
static const char *const noc_vnet_links[] = {"separate", "shared", NULL};

static const struct cs_param noc_param_rows[] = {
    {"topology", CS_P_ENUM, offsetof(struct noc_cfg, topology), "mesh", "",
     "crossbar: one router stage; mesh: 2D grid, XY routing; link: 2 endpoints", 0, 0,
     noc_topologies},
    {"vnet_links", CS_P_ENUM, offsetof(struct noc_cfg, vnet_links), "separate", "",
     "separate: every virtual network has its own links (the GPU's request and response "
     "networks); shared: one flit per cycle per link, round-robin among the vnets",
     0, 0, noc_vnet_links},
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
     "mesh columns (0: ceil(sqrt(routers)), routers = ceil(endpoints / concentration))", 0, 4096,
     NULL},
    {"mesh_rows", CS_P_UINT, offsetof(struct noc_cfg, mesh_rows), "0", "",
     "mesh rows (0: ceil(routers / columns))", 0, 4096, NULL},
    {"concentration", CS_P_UINT, offsetof(struct noc_cfg, concentration), "1", "endpoints",
     "mesh: endpoints one router may hold, each on its own injection and ejection port (as "
     "Garnet's external links); above 1 every group of endpoints is spread over all routers",
     1, 64, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table noc_params = {
    .section = "noc",
    .help = "network-on-chip: virtual networks (the GPU's request and response), crossbar "
	    "or 2D mesh, virtual cut-through with credits",
    .params = noc_param_rows,
    .size = sizeof(struct noc_cfg),
};

/* A point-to-point CPU-GPU link (PCIe 3.0 x16 class; every value an estimate: 16 B per 1 GHz
 * cycle = 16 GB/s per direction, a TLP header with framing of 24 B, about 250 ns one way). */
static const struct cs_param link_param_rows[] = {
    {"topology", CS_P_ENUM, offsetof(struct noc_cfg, topology), "link", "",
     "link: 2 endpoints (crossbar and mesh also accepted)", 0, 0, noc_topologies},
    {"vnet_links", CS_P_ENUM, offsetof(struct noc_cfg, vnet_links), "shared", "",
     "separate: a wire per virtual network; shared: one wire, round-robin among them", 0, 0,
     noc_vnet_links},
    {"clock_mhz", CS_P_UINT, offsetof(struct noc_cfg, clock_mhz), "1000", "MHz",
     "link clock: bandwidth = flit_bytes per cycle", 1, 100000, NULL},
    {"flit_bytes", CS_P_UINT, offsetof(struct noc_cfg, flit_bytes), "16", "bytes",
     "bytes per cycle per direction (16 B at 1 GHz: PCIe 3.0 x16, estimate)", 1, 4096, NULL},
    {"header_bytes", CS_P_UINT, offsetof(struct noc_cfg, header_bytes), "24", "bytes",
     "packet header and framing (PCIe TLP header + DLLP framing, estimate)", 0, 4096, NULL},
    {"router_latency", CS_P_UINT, offsetof(struct noc_cfg, router_latency), "10", "cycles",
     "interface (controller) latency at the sending end (estimate)", 1, 100000, NULL},
    {"link_latency", CS_P_UINT, offsetof(struct noc_cfg, link_latency), "240", "cycles",
     "wire and receiver latency; also the credit return delay (estimate)", 1, 100000, NULL},
    {"buffer_flits", CS_P_UINT, offsetof(struct noc_cfg, buffer_flits), "512", "flits",
     "buffer per end per virtual network; full rate needs >= 2 link_latency + packet flits "
     "(the credit round trip)",
     1, 65536, NULL},
    {"mesh_cols", CS_P_UINT, offsetof(struct noc_cfg, mesh_cols), "0", "", "unused by a link", 0,
     4096, NULL},
    {"mesh_rows", CS_P_UINT, offsetof(struct noc_cfg, mesh_rows), "0", "", "unused by a link", 0,
     4096, NULL},
    {"concentration", CS_P_UINT, offsetof(struct noc_cfg, concentration), "1", "endpoints",
     "unused by a link", 1, 64, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table noc_link_params = {
    .section = "link",
    .help = "point-to-point link between two endpoints (e.g. CPU-GPU), virtual networks",
    .params = link_param_rows,
    .size = sizeof(struct noc_cfg),
};

int noc_cfg_check(const struct noc_cfg *cfg, struct cs_err *err)
{
	uint64_t need;

	if (cfg->topology > NOC_LINK)
		return cs_err_set(err, -CS_ECONFIG, "noc.topology: unknown topology %u",
				  cfg->topology);
	if (cfg->vnet_links > NOC_LINKS_SHARED)
		return cs_err_set(err, -CS_ECONFIG, "noc.vnet_links: unknown value %u",
				  cfg->vnet_links);
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

static unsigned conc_of(const struct noc_cfg *cfg)
{
	return cfg->concentration > 1 ? (unsigned)cfg->concentration : 1;
}

/* Mesh columns for `total` routers: mesh_cols, or ceil(sqrt(total)). */
static unsigned mesh_cols_for(const struct noc_cfg *cfg, unsigned total)
{
	unsigned cols =
	    cfg->mesh_cols ? (unsigned)cfg->mesh_cols : (unsigned)ceil(sqrt((double)total) - 1e-9);

	if (cols == 0)
		cols = 1;
	while ((uint64_t)cols * cols < total && !cfg->mesh_cols)
		cols++; /* guard against sqrt rounding */
	return cols;
}

void noc_mesh_size(const struct noc_cfg *cfg, unsigned n_ep, unsigned *cols, unsigned *rows)
{
	unsigned c = conc_of(cfg), need = (n_ep + c - 1) / c;

	*cols = mesh_cols_for(cfg, need);
	*rows = cfg->mesh_rows ? (unsigned)cfg->mesh_rows : (need + *cols - 1) / *cols;
	if (!*rows)
		*rows = 1;
}

/* The GPU face's placement: bank j at floor((2j + 1) N / (2 n_mem)), the SMs in the other
 * positions in order; pos[] in endpoint order (SMs, then banks). */
void noc_gpu_place(unsigned n_req, unsigned n_mem, unsigned *pos)
{
	unsigned total = n_req + n_mem, s = 0, j = 0;

	for (unsigned p = 0; p < total; p++) {
		if (j < n_mem &&
		    p == (unsigned)(((uint64_t)2 * j + 1) * total / ((uint64_t)2 * n_mem)))
			pos[n_req + j++] = p;
		else
			pos[s++] = p;
	}
}

int noc_spread_place(const struct noc_cfg *cfg, unsigned n_ep, const struct noc_group *groups,
		     unsigned n_groups, unsigned *pos, struct cs_err *err)
{
	unsigned cols, rows, c = conc_of(cfg), *count, *order;
	uint64_t total = 0, nr;

	noc_mesh_size(cfg, n_ep, &cols, &rows);
	nr = (uint64_t)cols * rows;
	for (unsigned g = 0; g < n_groups; g++)
		total += groups[g].count;
	if (total > nr * c)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "noc: %llu endpoints do not fit a mesh of %u x %u routers holding "
		    "noc.concentration (%u) each",
		    (unsigned long long)total, cols, rows, c);
	if (nr > 1u << 20)
		return cs_err_set(err, -CS_ECONFIG, "noc: mesh of %u x %u routers is too large",
				  cols, rows);
	count = calloc(nr, sizeof(*count));
	order = malloc((n_groups ? n_groups : 1) * sizeof(*order));
	if (!count || !order) {
		free(count);
		free(order);
		return cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
	}
	/* smaller groups first (insertion sort: stable, so ties keep the given order) */
	for (unsigned g = 0; g < n_groups; g++) {
		unsigned i = g;

		while (i > 0 && groups[order[i - 1]].count > groups[g].count) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = g;
	}
	for (unsigned k = 0; k < n_groups; k++) {
		const struct noc_group *gr = &groups[order[k]];

		for (unsigned i = 0; i < gr->count; i++) {
			uint64_t r = ((uint64_t)2 * i + 1) * nr / ((uint64_t)2 * gr->count);

			while (count[r] >= c) /* full: the next router with room */
				r = r + 1 == nr ? 0 : r + 1;
			count[r]++;
			pos[gr->first + i] = (unsigned)r;
		}
	}
	free(count);
	free(order);
	return 0;
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

/* Ports per router in the physical link table: the mesh's directions and one local port per
 * endpoint slot (slot 0 is D_LOCAL, slot s > 0 is D_COUNT + s - 1), or (one router) one
 * output per endpoint. */
static unsigned phys_ports(const struct noc *n)
{
	return n->cfg.topology == NOC_MESH ? D_COUNT - 1 + (n->max_conc ? n->max_conc : 1)
					   : n->n_ep;
}

static unsigned local_port(unsigned slot)
{
	return slot ? D_COUNT + slot - 1 : D_LOCAL;
}

static int out_init(struct noc_out *o, struct noc_net *net, struct noc_router *r, unsigned ri,
		    unsigned port, struct noc_in *down, struct cs_stat_group *lg, const char *name,
		    const char *desc)
{
	struct noc *n = net->n;
	unsigned vv = n->cfg.vnet_links == NOC_LINKS_SHARED ? 0 : net->id;
	struct noc_phys *ph = &n->phys[((size_t)vv * net->n_routers + ri) * phys_ports(n) + port];

	o->net = net;
	o->r = r;
	o->down = down;
	o->credits = n->buf;
	o->phys = ph;
	ph->out[ph->n_out++] = o;
	o->wait = calloc(r->n_in ? r->n_in : 1, sizeof(*o->wait));
	if (!o->wait)
		return -CS_ENOMEM;
	o->flits = cs_stat_counter(lg, name, "flits", desc);
	if (down)
		down->up = o;
	return 0;
}

static int build_crossbar(struct noc_net *net, struct cs_stat_group *lg,
			  const char *const *ep_names)
{
	struct noc *n = net->n;
	struct noc_router *r;
	unsigned v = net->id, ni = 0, no = 0;
	char name[64], desc[128];

	net->n_routers = 1;
	net->routers = calloc(1, sizeof(*net->routers));
	for (unsigned e = 0; e < n->n_ep; e++) {
		ni += (n->ep[e].send >> v) & 1;
		no += (n->ep[e].recv >> v) & 1;
	}
	net->n_ins = ni;
	net->n_outs = no;
	net->ins = calloc(ni ? ni : 1, sizeof(*net->ins));
	net->outs = calloc(no ? no : 1, sizeof(*net->outs));
	if (!net->routers || !net->ins || !net->outs)
		return -CS_ENOMEM;
	r = &net->routers[0];
	r->n_in = ni;
	r->in = calloc(ni ? ni : 1, sizeof(*r->in));
	r->route = calloc(n->n_ep, sizeof(*r->route));
	if (!r->in || !r->route)
		return -CS_ENOMEM;
	ni = 0;
	for (unsigned e = 0; e < n->n_ep; e++) {
		struct noc_in *in;

		if (!((n->ep[e].send >> v) & 1))
			continue;
		in = &net->ins[ni];
		in->r = r;
		in->local = ni;
		r->in[ni++] = in;
		net->inj[e] = in;
	}
	no = 0;
	for (unsigned e = 0; e < n->n_ep; e++) {
		int rc;

		if (!((n->ep[e].recv >> v) & 1))
			continue;
		snprintf(name, sizeof(name), "%s_out", ep_names[e]);
		snprintf(desc, sizeof(desc), "flits carried from the crossbar to %s", ep_names[e]);
		rc = out_init(&net->outs[no], net, r, 0, e, &net->ej[e], lg, name, desc);
		if (rc)
			return rc;
		r->route[e] = &net->outs[no++];
	}
	return 0;
}

static int build_mesh(struct noc_net *net, struct cs_stat_group *lg, const char *const *ep_names)
{
	struct noc *n = net->n;
	unsigned nr = n->cols * n->rows, v = net->id, ni = 0, no = 0;
	struct noc_in **in_at = NULL;	/* [nr][D_COUNT]: the input from each neighbour */
	struct noc_out **out_at = NULL; /* [nr][D_COUNT]: the output to each neighbour */
	char name[64], desc[128];
	int rc = -CS_ENOMEM;

	net->n_routers = nr;
	net->routers = calloc(nr, sizeof(*net->routers));
	in_at = calloc((size_t)nr * D_COUNT, sizeof(*in_at));
	out_at = calloc((size_t)nr * D_COUNT, sizeof(*out_at));
	if (!net->routers || !in_at || !out_at)
		goto out;
	/* count ports: one local input per endpoint that sends, one local output per endpoint
	 * that receives, one each way per neighbour */
	for (unsigned e = 0; e < n->n_ep; e++) {
		ni += (n->ep[e].send >> v) & 1;
		no += (n->ep[e].recv >> v) & 1;
	}
	for (unsigned r = 0; r < nr; r++)
		for (unsigned d = D_E; d < D_COUNT; d++)
			if (neighbour(n, r, d) >= 0) {
				ni++;
				no++;
			}
	net->n_ins = ni;
	net->n_outs = no;
	net->ins = calloc(ni ? ni : 1, sizeof(*net->ins));
	net->outs = calloc(no ? no : 1, sizeof(*net->outs));
	if (!net->ins || !net->outs)
		goto out;
	/* inputs: the local ones (injection, in endpoint order) first, then from each neighbour */
	ni = 0;
	for (unsigned r = 0; r < nr; r++) {
		struct noc_router *rt = &net->routers[r];
		unsigned cnt = 0;

		for (unsigned k = n->rt_start[r]; k < n->rt_start[r + 1]; k++)
			cnt += (n->ep[n->rt_ep[k]].send >> v) & 1;
		for (unsigned d = D_E; d < D_COUNT; d++)
			cnt += neighbour(n, r, d) >= 0;
		rt->n_in = cnt;
		rt->in = calloc(cnt ? cnt : 1, sizeof(*rt->in));
		rt->route = calloc(n->n_ep, sizeof(*rt->route));
		if (!rt->in || !rt->route)
			goto out;
		cnt = 0;
		for (unsigned k = n->rt_start[r]; k < n->rt_start[r + 1]; k++) {
			unsigned e = n->rt_ep[k];
			struct noc_in *in;

			if (!((n->ep[e].send >> v) & 1))
				continue;
			in = &net->ins[ni++];
			in->r = rt;
			in->local = cnt;
			rt->in[cnt++] = in;
			net->inj[e] = in;
		}
		for (unsigned d = D_E; d < D_COUNT; d++) {
			struct noc_in *in;

			if (neighbour(n, r, d) < 0)
				continue;
			in = &net->ins[ni++];
			in->r = rt;
			in->local = cnt;
			rt->in[cnt++] = in;
			in_at[r * D_COUNT + d] = in;
		}
	}
	/* outputs: to each local endpoint's ejection buffer, then to each neighbour's input from
	 * this side */
	no = 0;
	for (unsigned r = 0; r < nr; r++) {
		struct noc_router *rt = &net->routers[r];

		for (unsigned k = n->rt_start[r]; k < n->rt_start[r + 1]; k++) {
			unsigned e = n->rt_ep[k];

			if (!((n->ep[e].recv >> v) & 1))
				continue;
			snprintf(name, sizeof(name), "%s_out", ep_names[e]);
			snprintf(desc, sizeof(desc), "flits carried from router %u to %s", r,
				 ep_names[e]);
			rc = out_init(&net->outs[no++], net, rt, r, local_port(n->ep[e].slot),
				      &net->ej[e], lg, name, desc);
			if (rc)
				goto out;
		}
		for (unsigned d = D_E; d < D_COUNT; d++) {
			struct noc_out *o;
			int nb = neighbour(n, r, d);

			if (nb < 0)
				continue;
			snprintf(name, sizeof(name), "r%u_%s", r, dir_name[d]);
			snprintf(desc, sizeof(desc), "flits carried from router %u to router %d", r,
				 nb);
			o = &net->outs[no++];
			rc = out_init(o, net, rt, r, d, in_at[(unsigned)nb * D_COUNT + opposite(d)],
				      lg, name, desc);
			if (rc)
				goto out;
			out_at[r * D_COUNT + d] = o;
		}
	}
	/* XY routes */
	for (unsigned r = 0; r < nr; r++) {
		unsigned x = r % n->cols, y = r / n->cols;

		for (unsigned dst = 0; dst < n->n_ep; dst++) {
			unsigned t = n->ep[dst].pos, tx = t % n->cols, ty = t / n->cols;
			struct noc_out *o;

			if (!((n->ep[dst].recv >> v) & 1))
				continue;
			if (tx > x)
				o = out_at[r * D_COUNT + D_E];
			else if (tx < x)
				o = out_at[r * D_COUNT + D_W];
			else if (ty < y)
				o = out_at[r * D_COUNT + D_N];
			else if (ty > y)
				o = out_at[r * D_COUNT + D_S];
			else
				o = net->ej[dst].up; /* its own ejection port */
			net->routers[r].route[dst] = o;
		}
	}
	rc = 0;
out:
	free(in_at);
	free(out_at);
	return rc;
}

/* ---- statistics ------------------------------------------------------------------------------ */

static int net_stats(struct noc_net *net, struct cs_stat_group *g, const char *vname,
		     const char *const *type_names, struct cs_stat_group **link_group)
{
	struct noc *n = net->n;
	struct cs_stat_group *ng = cs_stat_group(g, vname);
	char name[64];

	snprintf(net->name, sizeof(net->name), "%s", vname);

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
	free(net->inj_lt);
	for (size_t i = 0; net->lt_path && i < (size_t)net->n->n_ep * net->n->n_ep; i++)
		free(net->lt_path[i]);
	free(net->lt_path);
	free(net->cls);
}

void noc_destroy(struct noc *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < NOC_VNET_MAX; i++)
		net_free(&n->net[i]);
	while (n->chunks) {
		struct noc_chunk *c = n->chunks;

		n->chunks = c->next;
		free(c);
	}
	free(n->clk_tab);
	free(n->rt_start);
	free(n->rt_ep);
	free(n->phys);
	free(n->ep);
	free(n->route);
	free(n);
}

uint64_t noc_bytes(const struct noc *n)
{
	return *n->tot_bytes;
}

/* ---- what the network declares (noc.h) ------------------------------------------------------- */

const char *const noc_vnet_kind_names[NOC_VK_KINDS] = {"request", "probe", "response", "unblock"};
const char *const noc_traffic_kind_names[NOC_TRAFFIC_KINDS] = {"request", "data", "probe",
							       "coherence", "writeback"};

unsigned noc_vnet_kind(const struct noc *n, unsigned v)
{
	if (v >= n->n_vnets)
		return NOC_VK_KINDS;
	if (n->gpu)
		return v == NOC_REQ ? NOC_VK_REQUEST : NOC_VK_RESPONSE;
	return v < NOC_VK_KINDS ? v : NOC_VK_KINDS;
}

const char *noc_vnet_name(const struct noc *n, unsigned v)
{
	return v < n->n_vnets ? n->net[v].name : NULL;
}

static void traffic_count(const struct noc *n, struct noc_traffic *t, uint64_t packets,
			  uint64_t flits, uint64_t bytes)
{
	t->packets += packets;
	t->flits += flits;
	t->bytes += bytes;
	t->payload_bytes += bytes - packets * n->hdr;
}

void noc_vnet_traffic(const struct noc *n, unsigned v, struct noc_traffic *t)
{
	memset(t, 0, sizeof(*t));
	if (v < n->n_vnets)
		traffic_count(n, t, *n->net[v].packets, *n->net[v].flits, *n->net[v].bytes);
}

void noc_kind_traffic(const struct noc *n, unsigned kind, struct noc_traffic *t)
{
	struct noc_traffic one;

	memset(t, 0, sizeof(*t));
	for (unsigned v = 0; v < n->n_vnets; v++)
		if (noc_vnet_kind(n, v) == kind) {
			noc_vnet_traffic(n, v, &one);
			noc_traffic_add(t, &one);
		}
}

bool noc_has_kind(const struct noc *n, unsigned kind)
{
	for (unsigned v = 0; v < n->n_vnets; v++)
		if (noc_vnet_kind(n, v) == kind)
			return true;
	return false;
}

void noc_class_traffic(const struct noc *n, unsigned cls, struct noc_traffic *t)
{
	memset(t, 0, sizeof(*t));
	if (cls >= n->n_types)
		return;
	for (unsigned v = 0; v < n->n_vnets; v++) {
		const struct noc_cls_stats *c = &n->net[v].cls[cls];

		traffic_count(n, t, *c->packets, *c->flits, *c->bytes);
	}
}

unsigned noc_classes(const struct noc *n)
{
	return n->n_types;
}

uint64_t noc_link_flits(const struct noc *n)
{
	uint64_t f = 0;

	for (unsigned v = 0; v < n->n_vnets; v++) {
		const struct noc_net *net = &n->net[v];

		for (unsigned o = 0; o < net->n_outs; o++)
			if (net->outs[o].down && net->outs[o].down->r)
				f += *net->outs[o].flits;
	}
	return f;
}

uint64_t noc_ep_flits(const struct noc *n, unsigned ep, bool inject)
{
	uint64_t f = 0;

	if (ep >= n->n_ep)
		return 0;
	for (unsigned v = 0; v < n->n_vnets; v++) {
		const struct noc_net *net = &n->net[v];

		if (inject && net->inj[ep])
			f += *net->inj[ep]->flits;
		else if (!inject && net->ej[ep].up)
			f += *net->ej[ep].up->flits;
	}
	return f;
}

unsigned noc_gpu_ep(const struct noc *n, bool mem, unsigned idx)
{
	return mem ? n->n_req + idx : idx;
}

unsigned noc_routers(const struct noc *n)
{
	return n->cols * n->rows;
}

unsigned noc_phys_nets(const struct noc *n)
{
	return n->cfg.vnet_links == NOC_LINKS_SHARED ? 1 : n->n_vnets;
}

void noc_energy(const struct noc *n, struct energy_counts *c)
{
	struct energy_noc e = {
	    .link_flits = (double)noc_link_flits(n),
	    .routers = (double)noc_routers(n) * noc_phys_nets(n),
	};

	for (unsigned v = 0; v < n->n_vnets; v++) {
		struct noc_traffic t;

		noc_vnet_traffic(n, v, &t);
		e.flits += (double)t.flits;
	}
	energy_add_noc(c, &e);
}

int noc_set_routes(struct noc *n, const uint16_t *ep_of_id, unsigned n_ids)
{
	uint16_t *r = malloc(n_ids * sizeof(*r));

	if (!r)
		return -CS_ENOMEM;
	for (unsigned i = 0; i < n_ids; i++) {
		if (ep_of_id[i] >= n->n_ep) {
			free(r);
			return -CS_EINVAL;
		}
		r[i] = ep_of_id[i];
	}
	free(n->route);
	n->route = r;
	n->n_route = n_ids;
	return 0;
}

static int net_build(struct noc *n, unsigned id, struct cs_stat_group *g, const char *vname,
		     const char *const *type_names, const char *const *ep_names)
{
	struct noc_net *net = &n->net[id];
	struct cs_stat_group *lg;
	char name[64], desc[128];
	int rc;

	net->n = n;
	net->id = id;
	net->ej = calloc(n->n_ep, sizeof(*net->ej));
	net->inj = calloc(n->n_ep, sizeof(*net->inj));
	if (!n->gpu)
		net->inj_lt = calloc(n->n_ep, sizeof(*net->inj_lt));
	if (!net->ej || !net->inj || (!n->gpu && !net->inj_lt))
		return -CS_ENOMEM;
	rc = net_stats(net, g, vname, type_names, &lg);
	if (rc)
		return rc;
	for (unsigned d = 0; d < n->n_ep; d++) {
		net->ej[d].net = net;
		net->ej[d].ep = &n->ep[d];
		net->ej[d].dsched = NOC_NEVER;
	}
	rc = n->cfg.topology == NOC_MESH ? build_mesh(net, lg, ep_names)
					 : build_crossbar(net, lg, ep_names);
	if (rc)
		return rc;
	for (unsigned i = 0; i < net->n_ins; i++)
		net->ins[i].net = net;
	for (unsigned s = 0; s < n->n_ep; s++) {
		struct noc_in *in = net->inj[s];

		if (!in)
			continue;
		in->ep = &n->ep[s];
		snprintf(name, sizeof(name), "%s_in", ep_names[s]);
		snprintf(desc, sizeof(desc), "flits injected by %s", ep_names[s]);
		in->flits = cs_stat_counter(lg, name, "flits", desc);
	}
	return 0;
}

/* Every endpoint on a router of the mesh, at most noc.concentration of them on one: the
 * per-router lists (rt_start, rt_ep), each endpoint's slot and max_conc. A bad placement is
 * -CS_EINVAL naming the router and its endpoints. */
static int mesh_place(struct noc *n, const char *const *names, struct cs_err *err)
{
	unsigned nr = n->cols * n->rows, c = conc_of(&n->cfg), *fill;

	n->rt_start = calloc((size_t)nr + 1, sizeof(*n->rt_start));
	n->rt_ep = calloc(n->n_ep, sizeof(*n->rt_ep));
	fill = calloc(nr, sizeof(*fill));
	if (!n->rt_start || !n->rt_ep || !fill) {
		free(fill);
		return cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
	}
	for (unsigned e = 0; e < n->n_ep; e++) {
		if (n->ep[e].pos >= nr) {
			free(fill);
			return cs_err_set(err, -CS_EINVAL,
					  "noc: %s at router %u is outside the mesh of %u x %u "
					  "routers",
					  names[e], n->ep[e].pos, n->cols, n->rows);
		}
		n->rt_start[n->ep[e].pos + 1]++;
	}
	for (unsigned r = 0; r < nr; r++) {
		unsigned k = n->rt_start[r + 1];

		if (k > c) {
			char list[160] = "";
			size_t len = 0;

			for (unsigned e = 0; e < n->n_ep && len + 1 < sizeof(list); e++)
				if (n->ep[e].pos == r)
					len += (size_t)snprintf(list + len, sizeof(list) - len,
								"%s%s", len ? ", " : "", names[e]);
			free(fill);
			return cs_err_set(
			    err, -CS_EINVAL,
			    "noc: router %u (x %u, y %u) holds %u endpoints (%s), more "
			    "than noc.concentration (%u)",
			    r, r % n->cols, r / n->cols, k, list, c);
		}
		if (k > n->max_conc)
			n->max_conc = k;
		n->rt_start[r + 1] += n->rt_start[r];
	}
	for (unsigned e = 0; e < n->n_ep; e++) {
		unsigned r = n->ep[e].pos;

		n->ep[e].slot = fill[r]++;
		n->rt_ep[n->rt_start[r] + n->ep[e].slot] = e;
	}
	free(fill);
	return 0;
}

int noc_build(struct sim_kernel *k, const struct noc_cfg *cfg, const struct noc_build *b,
	      const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
	      struct noc **out, struct cs_err *err)
{
	struct noc *n;
	unsigned maxpos = 0, nr;
	int rc;

	*out = NULL;
	if (!n_types || n_types > MEM_MSG_TYPE_MAX)
		return cs_err_set(err, -CS_EINVAL, "noc: %u message types (1 to %u allowed)",
				  n_types, (unsigned)MEM_MSG_TYPE_MAX);
	rc = noc_cfg_check(cfg, err);
	if (rc)
		return rc;
	if (cfg->topology == NOC_LINK && b->n_ep != 2)
		return cs_err_set(err, -CS_ECONFIG, "noc: a link joins 2 endpoints, not %u",
				  b->n_ep);
	n = calloc(1, sizeof(*n));
	if (!n)
		goto nomem;
	n->k = k;
	n->cfg = *cfg;
	n->gpu = b->gpu;
	n->n_ep = b->n_ep;
	n->n_vnets = b->n_vnets;
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
	n->ep = calloc(n->n_ep, sizeof(*n->ep));
	if (!n->ep)
		goto nomem_free;
	for (unsigned e = 0; e < n->n_ep; e++) {
		struct noc_ep *ep = &n->ep[e];

		ep->n = n;
		ep->id = e;
		ep->pos = cfg->topology == NOC_MESH ? (b->pos ? b->pos[e] : e) : 0;
		ep->send = b->send[e];
		ep->recv = b->recv[e];
		if (ep->pos > maxpos)
			maxpos = ep->pos;
	}
	if (cfg->topology == NOC_MESH) {
		noc_mesh_size(cfg, n->n_ep, &n->cols, &n->rows);
		if (!cfg->mesh_rows && maxpos / n->cols + 1 > n->rows)
			n->rows = maxpos / n->cols + 1;
		/* the message first: it reads the mesh's size, which noc_destroy frees */
		if ((uint64_t)n->cols * n->rows > 1u << 20)
			rc =
			    cs_err_set(err, -CS_EINVAL, "noc: mesh of %u x %u routers is too large",
				       n->cols, n->rows);
		else if ((uint64_t)n->cols * n->rows * conc_of(cfg) < n->n_ep)
			rc = cs_err_set(err, -CS_ECONFIG,
					"noc: %u endpoints do not fit a mesh of %u x %u routers "
					"holding noc.concentration (%u) each",
					b->n_ep, n->cols, n->rows, conc_of(cfg));
		else
			rc = mesh_place(n, b->ep_names, err);
		if (rc) {
			noc_destroy(n);
			return rc;
		}
	} else
		n->cols = n->rows = 1;
	nr = n->cols * n->rows;
	n->n_phys = (cfg->vnet_links == NOC_LINKS_SHARED ? 1 : n->n_vnets) * nr * phys_ports(n);
	n->phys = calloc(n->n_phys, sizeof(*n->phys));
	if (!n->phys)
		goto nomem_free;
	for (unsigned i = 0; i < n->n_phys; i++)
		n->phys[i].sched = NOC_NEVER;
	n->tot_packets = cs_stat_counter(stats, "packets", "packets", "packets, all networks");
	n->tot_flits = cs_stat_counter(stats, "flits", "flits", "flits, all networks");
	n->tot_bytes =
	    cs_stat_counter(stats, "bytes", "bytes", "bytes (header + payload), all networks");
	n->tot_latency = cs_stat_average(stats, "latency", "ns",
					 "packet latency, offer to delivery, all networks");
	for (unsigned v = 0; v < n->n_vnets; v++) {
		char vn[16];

		snprintf(vn, sizeof(vn), "v%u", v);
		rc = net_build(n, v, stats,
			       b->vnet_names && b->vnet_names[v] ? b->vnet_names[v] : vn,
			       type_names, b->ep_names);
		if (rc)
			goto nomem_free;
	}
	lt_params_default(&n->lt_default);
	*out = n;
	return 0;

nomem_free:
	noc_destroy(n);
nomem:
	return cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
}

/* Endpoint stat names: sm<i> / bank<j> (GPU) or ep<e>, in one block. */
static char **ep_names_make(unsigned n_ep, unsigned n_req)
{
	char **names = malloc(n_ep * (sizeof(char *) + 16));
	char *buf = (char *)(names + n_ep);

	if (!names)
		return NULL;
	for (unsigned e = 0; e < n_ep; e++) {
		names[e] = buf + (size_t)e * 16;
		if (n_req)
			snprintf(names[e], 16, e < n_req ? "sm%u" : "bank%u",
				 e < n_req ? e : e - n_req);
		else
			snprintf(names[e], 16, "ep%u", e);
	}
	return names;
}

int noc_create(struct sim_kernel *k, const struct noc_cfg *cfg, unsigned n_req, unsigned n_mem,
	       const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
	       struct noc **out, struct cs_err *err)
{
	static const char *const vnames[2] = {"req", "resp"};
	struct noc_build b = {.n_vnets = 2, .vnet_names = vnames, .gpu = true};
	unsigned *pos = NULL;
	uint8_t *send = NULL, *recv = NULL;
	char **names = NULL;
	struct noc *n;
	int rc;

	*out = NULL;
	if (!k || !cfg || !stats)
		return cs_err_set(err, -CS_EINVAL, "noc: no kernel, configuration or stat group");
	if (!n_req || !n_mem || n_req + (uint64_t)n_mem > 65535)
		return cs_err_set(err, -CS_EINVAL,
				  "noc: needs 1 to 65535 endpoints, got %u SMs and %u L2 banks",
				  n_req, n_mem);
	if (cfg->topology == NOC_LINK)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "noc.topology: the GPU's NoC is a crossbar or a mesh, not a link");
	b.n_ep = n_req + n_mem;
	pos = calloc(b.n_ep, sizeof(*pos));
	send = calloc(b.n_ep, 1);
	recv = calloc(b.n_ep, 1);
	names = ep_names_make(b.n_ep, n_req);
	if (!pos || !send || !recv || !names) {
		rc = cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
		goto out;
	}
	if (cfg->topology == NOC_MESH && conc_of(cfg) > 1) {
		/* the banks first: they take their exact spread positions */
		const struct noc_group g[2] = {{.first = n_req, .count = n_mem},
					       {.first = 0, .count = n_req}};

		rc = noc_spread_place(cfg, b.n_ep, g, 2, pos, err);
		if (rc)
			goto out;
	} else
		noc_gpu_place(n_req, n_mem, pos);
	for (unsigned e = 0; e < b.n_ep; e++) {
		send[e] = e < n_req ? 1u << NOC_REQ : 1u << NOC_RESP;
		recv[e] = e < n_req ? 1u << NOC_RESP : 1u << NOC_REQ;
	}
	b.pos = pos;
	b.send = send;
	b.recv = recv;
	b.ep_names = (const char *const *)names;
	rc = noc_build(k, cfg, &b, type_names, n_types, stats, &n, err);
	if (rc)
		goto out;
	n->n_req = n_req;
	n->n_mem = n_mem;
	for (unsigned e = 0; e < b.n_ep; e++) {
		struct noc_ep *ep = &n->ep[e];

		ep->mem = e >= n_req;
		ep->idx = ep->mem ? e - n_req : e;
		snprintf(ep->name, sizeof(ep->name), "noc.%s", names[e]);
		if (ep->mem)
			tlm_initiator_init(&ep->is, ep->name, &noc_mem_bw_ops, ep);
		else
			tlm_target_init(&ep->ts, ep->name, &noc_sm_fw_ops, ep);
	}
	noc_set_lt(n, NULL);
	*out = n;
out:
	free(pos);
	free(send);
	free(recv);
	free(names);
	return rc;
}

int noc_net_create(struct sim_kernel *k, const struct noc_cfg *cfg, unsigned n_ep, unsigned n_vnets,
		   const unsigned *pos, const char *const *vnet_names,
		   const char *const *type_names, unsigned n_types, struct cs_stat_group *stats,
		   struct noc **out, struct cs_err *err)
{
	struct noc_build b = {
	    .n_ep = n_ep, .n_vnets = n_vnets, .pos = pos, .vnet_names = vnet_names};
	unsigned *spread = NULL;
	uint8_t *mask = NULL;
	char **names = NULL;
	struct noc *n;
	int rc;

	*out = NULL;
	if (!k || !cfg || !stats)
		return cs_err_set(err, -CS_EINVAL, "noc: no kernel, configuration or stat group");
	if (!n_ep || n_ep > 65535 || !n_vnets || n_vnets > NOC_VNET_MAX)
		return cs_err_set(
		    err, -CS_EINVAL,
		    "noc: needs 1 to 65535 endpoints and 1 to %u vnets, got %u and %u",
		    (unsigned)NOC_VNET_MAX, n_ep, n_vnets);
	mask = malloc(n_ep);
	names = ep_names_make(n_ep, 0);
	if (!mask || !names) {
		rc = cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
		goto out;
	}
	if (!pos && cfg->topology == NOC_MESH && conc_of(cfg) > 1) {
		/* no placement given: the endpoints spread as one group */
		const struct noc_group g = {.first = 0, .count = n_ep};

		spread = calloc(n_ep, sizeof(*spread));
		if (!spread) {
			rc = cs_err_set(err, -CS_ENOMEM, "noc: out of memory");
			goto out;
		}
		rc = noc_spread_place(cfg, n_ep, &g, 1, spread, err);
		if (rc)
			goto out;
		b.pos = spread;
	}
	memset(mask, (1 << n_vnets) - 1, n_ep);
	b.send = b.recv = mask;
	b.ep_names = (const char *const *)names;
	rc = noc_build(k, cfg, &b, type_names, n_types, stats, &n, err);
	if (rc)
		goto out;
	for (unsigned e = 0; e < n_ep; e++) {
		struct noc_ep *ep = &n->ep[e];

		ep->idx = e;
		snprintf(ep->name, sizeof(ep->name), "noc.%s", names[e]);
		tlm_target_init(&ep->ts, ep->name, &noc_ep_fw_ops, ep);
		tlm_initiator_init(&ep->is, ep->name, &noc_ep_bw_ops, ep);
	}
	noc_set_lt(n, NULL);
	*out = n;
out:
	free(spread);
	free(mask);
	free(names);
	return rc;
}

/* ---- queries --------------------------------------------------------------------------------- */

struct tlm_target_socket *noc_req_port(struct noc *n, unsigned sm)
{
	return n->gpu && sm < n->n_req ? &n->ep[sm].ts : NULL;
}

struct tlm_initiator_socket *noc_mem_port(struct noc *n, unsigned bank)
{
	return n->gpu && bank < n->n_mem ? &n->ep[n->n_req + bank].is : NULL;
}

struct tlm_target_socket *noc_inject_port(struct noc *n, unsigned e)
{
	return !n->gpu && e < n->n_ep ? &n->ep[e].ts : NULL;
}

struct tlm_initiator_socket *noc_deliver_port(struct noc *n, unsigned e)
{
	return !n->gpu && e < n->n_ep ? &n->ep[e].is : NULL;
}

unsigned noc_endpoints(const struct noc *n)
{
	return n->n_ep;
}

unsigned noc_vnets(const struct noc *n)
{
	return n->n_vnets;
}

unsigned noc_flits(const struct noc *n, unsigned payload_bytes)
{
	return noc_flits_of(n, payload_bytes);
}

unsigned noc_ep_hops(const struct noc *n, unsigned a, unsigned b)
{
	if (a >= n->n_ep || b >= n->n_ep)
		return 0;
	return noc_hops_pos(n, n->ep[a].pos, n->ep[b].pos);
}

uint64_t noc_ep_unloaded_cycles(const struct noc *n, unsigned a, unsigned b, unsigned payload_bytes)
{
	return (uint64_t)(noc_ep_hops(n, a, b) + 1) * (n->R + n->L) +
	       noc_flits_of(n, payload_bytes) - 1;
}

unsigned noc_hops(const struct noc *n, unsigned sm, unsigned bank)
{
	if (sm >= n->n_req || bank >= n->n_mem)
		return 0;
	return noc_ep_hops(n, sm, n->n_req + bank);
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

	if (n->gpu && (mem ? idx < n->n_mem : idx < n->n_req))
		p = n->ep[mem ? n->n_req + idx : idx].pos;
	else if (!n->gpu && idx < n->n_ep)
		p = n->ep[idx].pos;
	*x = p % n->cols;
	*y = p / n->cols;
}

void noc_mesh_dims(const struct noc *n, unsigned *cols, unsigned *rows)
{
	*cols = n->cols;
	*rows = n->rows;
}
