/* tlm/system/fabric.c - the system builder (see fabric.h). */
#include "tlm/system/fabric.h"

#include "tlm/coherence/apu/apu_fabric.h"
#include "tlm/coherence/gpu_fabric.h"
#include "tlm/coherence/scoped/sc_fabric.h"
#include "tlm/noc/bridge.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cs_param fab_rows[] = {
    {"groups", CS_P_STRING, offsetof(struct fab_cfg, groups), "", "",
     "node groups, each a section of its own, in the order they are made and numbered on "
     "their networks (\"\": the system's standard layout, docs/architecture.md §8)",
     0, 0, NULL},
    {"ranges", CS_P_STRING, offsetof(struct fab_cfg, ranges), "", "",
     "address ranges, each a section (base, size, home, cacheable, readonly); \"\": one range "
     "over all memory",
     0, 0, NULL},
    {"links", CS_P_STRING, offsetof(struct fab_cfg, links), "", "",
     "networks that are point-to-point links: their sections are read with the link table "
     "(section link's keys and defaults: topology link, 16 B flits at 1 GHz, a 24 B header, "
     "240 cycles of wire), every other network with the noc table's",
     0, 0, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table fab_params = {
    .section = "fabric",
    .help = "the system builder: node groups and address ranges (docs/architecture.md §8)",
    .params = fab_rows,
    .size = sizeof(struct fab_cfg),
};

static const struct cs_param fab_group_rows[] = {
    {"role", CS_P_STRING, offsetof(struct fab_group_cfg, role), "", "",
     "the controllers' role (cohscope list roles)", 0, 0, NULL},
    {"count", CS_P_UINT, offsetof(struct fab_group_cfg, count), "0", "",
     "nodes in the group (0: the role's natural count, e.g. gpu.sms L1s)", 0, 4096, NULL},
    {"net", CS_P_STRING, offsetof(struct fab_group_cfg, net), "", "",
     "the network section its nodes attach to (\"\": noc; a memory controller is on none)", 0, 0,
     NULL},
    {"net2", CS_P_STRING, offsetof(struct fab_group_cfg, net2), "", "",
     "a bridge's second network (\"\" for every other role)", 0, 0, NULL},
    {"memory", CS_P_STRING, offsetof(struct fab_group_cfg, memory), "", "",
     "the group of memory controllers behind its nodes (\"\": none)", 0, 0, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

/* section: each group's own name */
const struct cs_param_table fab_group_params = {
    .section = "group",
    .help = "a node group of the system builder (fabric.groups)",
    .params = fab_group_rows,
    .size = sizeof(struct fab_group_cfg),
};

static const struct cs_param fab_range_rows[] = {
    {"base", CS_P_UINT, offsetof(struct fab_range_cfg, base), "0", "B",
     "first address, a multiple of 4 KiB", 0, 0, NULL},
    {"size", CS_P_UINT, offsetof(struct fab_range_cfg, size), "0", "B",
     "bytes, a multiple of 4 KiB, at least one page", 0, 0, NULL},
    {"home", CS_P_STRING, offsetof(struct fab_range_cfg, home), "", "",
     "the group whose nodes serve it (a directory, a memory controller)", 0, 0, NULL},
    {"cacheable", CS_P_BOOL, offsetof(struct fab_range_cfg, cacheable), "true", "",
     "page attribute: caches may keep its lines", 0, 0, NULL},
    {"readonly", CS_P_BOOL, offsetof(struct fab_range_cfg, readonly), "false", "",
     "page attribute: read-only to the simulated agents (host copies still write it)", 0, 0, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table fab_range_params = {
    .section = "range",
    .help = "an address range of the system builder (fabric.ranges)",
    .params = fab_range_rows,
    .size = sizeof(struct fab_range_cfg),
};

#define FAB_PAGE 4096u

struct fab_group {
	char name[64];
	struct fab_group_cfg cfg;
	const struct fab_role_ops *role;
	unsigned count;
	int net;	    /* network index, -1 none */
	int net2;	    /* a bridge's second network, else -1 */
	int mem;	    /* memory group index, -1 none */
	int front;	    /* a memory group: the group in front of it, -1 none yet */
	struct fab_node *n; /* count nodes */
	unsigned ri;	    /* its role's index in the family's roles */
	unsigned nth0;	    /* its first node's index within its role */
};

struct fab_net {
	char name[CS_PARAM_STR_MAX];
	struct noc_cfg cfg;
	unsigned face; /* FAB_MSG, or FAB_REQ for a request/response network */
	unsigned n_ep, n_req, n_resp;
	struct noc *noc;
};

struct fabric {
	struct fab_build_args a;
	struct fab_cfg cfg;
	unsigned ngroups, nnets, nranges;
	struct fab_group g[FAB_GROUPS_MAX];
	struct fab_net net[FAB_NETS_MAX];
	struct fab_range r[FAB_RANGES_MAX];
	char rname[FAB_RANGES_MAX][64];
	char link[FAB_NETS_MAX][64]; /* fabric.links */
	unsigned nlinks;
	/* per role of the family (same index as proto->roles): its controllers in order */
	unsigned nroles;
	void ***role_obj;
	unsigned *role_n;
	struct noc_bridge_cfg bridge_cfg; /* section bridge, when the layout has a bridge */
	bool have_bridge_cfg;
	unsigned n_ids; /* node ids on one-way networks (every node there but the bridges) */
	/* the initiator sockets that have a base-protocol checker */
	struct tlm_initiator_socket **checked;
	unsigned nchecked, capchecked;
};

/* ---- configuration --------------------------------------------------------------------------- */

/* Splits a comma- or space-separated list of section names. */
static int split_names(const char *list, char out[][64], unsigned max, unsigned *n,
		       const char *where, struct cs_err *err)
{
	const char *p = list;

	*n = 0;
	while (*p) {
		size_t len;

		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		len = strcspn(p, ", \t");
		if (*n == max)
			return cs_err_set(err, -CS_ECONFIG, "%s: more than %u names", where, max);
		if (len >= 64)
			return cs_err_set(err, -CS_ECONFIG, "%s: name '%.*s' too long", where,
					  (int)len, p);
		memcpy(out[*n], p, len);
		out[*n][len] = 0;
		for (unsigned i = 0; i < *n; i++)
			if (!strcmp(out[i], out[*n]))
				return cs_err_set(err, -CS_ECONFIG, "%s: '%s' named twice", where,
						  out[*n]);
		(*n)++;
		p += len;
	}
	return 0;
}

static const struct fab_role_ops *role_find(const struct fab_proto *p, const char *name,
					    unsigned *idx)
{
	unsigned i = 0;

	for (const struct fab_role_ops *const *r = p->roles; *r; r++, i++)
		if (!strcmp((*r)->name, name)) {
			*idx = i;
			return *r;
		}
	return NULL;
}

static int group_find(const struct fabric *f, const char *name)
{
	for (unsigned i = 0; i < f->ngroups; i++)
		if (!strcmp(f->g[i].name, name))
			return (int)i;
	return -1;
}

static int net_find(const struct fabric *f, const char *name)
{
	for (unsigned i = 0; i < f->nnets; i++)
		if (!strcmp(f->net[i].name, name))
			return (int)i;
	return -1;
}

__attribute__((format(printf, 5, 6))) static int bad_key(struct fabric *f, const char *section,
							 const char *key, struct cs_err *err,
							 const char *fmt, ...)
{
	char where[CS_WHERE_MAX], msg[300];
	va_list ap;

	cs_config_origin(f->a.cfg, section, key, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cs_err_set(err, -CS_ECONFIG, "%s: %s", where, msg);
}

/* A section name the builder reads: a libconfig name that no component's section has. */
/* name, given at sec.key, must be a section name. */
static int name_ok(struct fabric *f, const char *name, const char *sec, const char *key,
		   struct cs_err *err)
{
	bool ok = (name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z');

	for (const char *p = name; ok && *p; p++)
		ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
	if (!ok)
		return bad_key(
		    f, sec, key, err,
		    "'%s' is not a section name (a letter, then letters, digits, - or _)", name);
	return 0;
}

/* cs_config_section_as refused name: it is the section of something else. */
static int name_taken(struct fabric *f, const char *name, const char *list_key, int rc,
		      struct cs_err *err)
{
	if (rc != -CS_EEXIST)
		return rc;
	return bad_key(f, "fabric", list_key, err,
		       "'%s' is already the section of a component or of another part of the "
		       "layout: give it a name of its own",
		       name);
}

static int load_group(struct fabric *f, const char *name, struct cs_err *err)
{
	struct fab_group *g = &f->g[f->ngroups];
	const struct fab_group_cfg *base = NULL;
	const char *names[32];
	size_t nn = 0;
	int rc;

	for (unsigned i = 0; i < f->a.n_std; i++)
		if (!strcmp(f->a.std[i].name, name))
			base = &f->a.std[i].cfg;
	snprintf(g->name, sizeof(g->name), "%s", name);
	if ((rc = name_ok(f, name, "fabric", "groups", err)))
		return rc;
	if (!base && !cs_config_has_section(f->a.cfg, name))
		return bad_key(f, "fabric", "groups", err,
			       "'%s' names no section (each group is a section: role, count, net, "
			       "memory)",
			       name);
	rc = cs_config_section_as(f->a.cfg, &fab_group_params, name, base, &g->cfg, err);
	if (rc)
		return name_taken(f, name, "groups", rc, err);
	g->role = role_find(f->a.proto, g->cfg.role, &g->ri);
	if (!g->role) {
		const char *near;

		for (const struct fab_role_ops *const *r = f->a.proto->roles; *r && nn < 32; r++)
			names[nn++] = (*r)->name;
		near = cs_nearest(g->cfg.role, names, nn);
		return bad_key(f, name, "role", err, "no role '%s' in protocol family %s%s%s%s",
			       g->cfg.role, f->a.proto->name, near ? " (did you mean '" : "",
			       near ? near : "", near ? "'?)" : "");
	}
	if (!g->role->energy)
		return bad_key(f, name, "role", err,
			       "role %s of protocol family %s declares no energy events "
			       "(fab_role_ops.energy)",
			       g->role->name, f->a.proto->name);
	g->count =
	    g->cfg.count ? (unsigned)g->cfg.count : f->a.proto->natural_count(f->a.ctx, g->role);
	if (!g->count)
		return bad_key(f, name, "count", err, "the group %s has no nodes", name);
	if (g->role->max_count && g->count > g->role->max_count)
		return bad_key(f, name, "count", err,
			       "at most %u %s node(s) in this protocol family", g->role->max_count,
			       g->role->name);
	g->front = -1;
	f->ngroups++;
	return 0;
}

/* The network called name (made on first use) for group g's key `key`: its index in *out. */
/* Is network `name` one of fabric.links? */
static bool is_link(const struct fabric *f, const char *name)
{
	for (unsigned i = 0; i < f->nlinks; i++)
		if (!strcmp(f->link[i], name))
			return true;
	return false;
}

static int net_of(struct fabric *f, struct fab_group *g, const char *name, const char *key,
		  int *out, struct cs_err *err)
{
	int found = net_find(f, name);
	unsigned i = found < 0 ? f->nnets : (unsigned)found;
	int rc;

	if (found < 0) {
		struct fab_net *n = &f->net[i];

		if (i == FAB_NETS_MAX)
			return bad_key(f, g->name, key, err, "more than 4 networks (%s)", name);
		if (group_find(f, name) >= 0)
			return bad_key(f, g->name, key, err, "'%s' is a node group, not a network",
				       name);
		snprintf(n->name, sizeof(n->name), "%s", name);
		if ((rc = name_ok(f, n->name, g->name, key, err)))
			return rc;
		/* A new network without a section of its own takes the default links; one whose
		 * name is that close to noc or to a network with a section is a typo ("nco"), not
		 * a new network. */
		if (strcmp(name, "noc") && !cs_config_has_section(f->a.cfg, name)) {
			const char *known[FAB_NETS_MAX + 1] = {"noc"};
			const char *near;
			unsigned nk = 1;

			for (unsigned j = 0; j < f->nnets; j++)
				if (cs_config_has_section(f->a.cfg, f->net[j].name))
					known[nk++] = f->net[j].name;
			near = cs_nearest(name, known, nk);
			if (near)
				return bad_key(f, g->name, key, err,
					       "no network section '%s' (did you mean '%s'?)", name,
					       near);
		}
		rc = cs_config_section_as(f->a.cfg,
					  is_link(f, name) ? &noc_link_params : &noc_params,
					  n->name, NULL, &n->cfg, err);
		if (rc == -CS_EEXIST)
			return bad_key(
			    f, g->name, key, err,
			    "'%s' is already the section of something else, not a network", name);
		if (rc)
			return rc;
		if ((rc = noc_cfg_check(&n->cfg, err))) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			cs_err_set(err, rc, "network %s: %s", n->name, msg);
			return cs_config_locate_as(f->a.cfg, "noc", n->name, err);
		}
		n->face = g->role->face == FAB_MSG ? FAB_MSG : FAB_REQ;
		f->nnets++;
	}
	if ((f->net[i].face == FAB_MSG) != (g->role->face == FAB_MSG))
		return bad_key(f, g->name, key, err,
			       "network %s carries one-way messages and requests with responses "
			       "at once: give each face its own network",
			       name);
	*out = (int)i;
	return 0;
}

static int load_net(struct fabric *f, struct fab_group *g, struct cs_err *err)
{
	int rc;

	g->net = g->net2 = -1;
	if (g->role->face == FAB_MEM) {
		if (g->cfg.net2[0])
			return bad_key(f, g->name, "net2", err,
				       "only a bridge is on a second network");
		if (g->cfg.net[0])
			return bad_key(f, g->name, "net", err,
				       "a memory controller is on no network (it sits behind the "
				       "nodes naming its group as memory): leave %s.net out",
				       g->name);
		return 0;
	}
	if (!g->cfg.net[0])
		snprintf(g->cfg.net, sizeof(g->cfg.net), "noc");
	if ((rc = net_of(f, g, g->cfg.net, "net", &g->net, err)))
		return rc;
	if (g->role != &fab_bridge_role) {
		if (g->cfg.net2[0])
			return bad_key(f, g->name, "net2", err,
				       "only a bridge is on a second network");
		return 0;
	}
	if (!g->cfg.net2[0] || !strcmp(g->cfg.net2, f->net[g->net].name))
		return bad_key(f, g->name, "net2", err,
			       "a bridge joins its network to another one: name it");
	if ((rc = net_of(f, g, g->cfg.net2, "net2", &g->net2, err)))
		return rc;
	if (!f->have_bridge_cfg) {
		rc = cs_config_section(f->a.cfg, &noc_bridge_params, &f->bridge_cfg, err);
		if (rc)
			return rc;
		f->have_bridge_cfg = true;
	}
	return 0;
}

static int load_range(struct fabric *f, const char *name, struct cs_err *err)
{
	struct fab_range_cfg rc_;
	struct fab_range *r = &f->r[f->nranges];
	int rc, home;

	if ((rc = name_ok(f, name, "fabric", "ranges", err)))
		return rc;
	if (!cs_config_has_section(f->a.cfg, name))
		return bad_key(f, "fabric", "ranges", err,
			       "'%s' names no section (each range is a section: base, size, home, "
			       "cacheable, readonly)",
			       name);
	rc = cs_config_section_as(f->a.cfg, &fab_range_params, name, NULL, &rc_, err);
	if (rc)
		return name_taken(f, name, "ranges", rc, err);
	if (rc_.base % FAB_PAGE)
		return bad_key(f, name, "base", err, "not a multiple of 4 KiB");
	if (!rc_.size || rc_.size % FAB_PAGE)
		return bad_key(f, name, "size", err, "%s: not a whole number of 4 KiB pages", name);
	if (rc_.base + rc_.size < rc_.base)
		return bad_key(f, name, "size", err, "runs past the end of the address space");
	home = group_find(f, rc_.home);
	if (home < 0 || !f->g[home].role->home)
		return bad_key(f, name, "home", err,
			       "'%s' is not a group whose role serves memory (a directory or a "
			       "memory controller)",
			       rc_.home);
	*r = (struct fab_range){.base = rc_.base,
				.end = rc_.base + rc_.size,
				.home = (unsigned)home,
				.cacheable = rc_.cacheable,
				.readonly = rc_.readonly};
	for (unsigned i = 0; i < f->nranges; i++)
		if (r->base < f->r[i].end && f->r[i].base < r->end)
			return bad_key(f, name, "base", err, "overlaps range %s", f->rname[i]);
	if ((!r->cacheable || r->readonly) && !f->a.proto->page_attrs)
		return bad_key(f, name, r->readonly ? "readonly" : "cacheable", err,
			       "the %s protocols do not implement uncacheable or read-only pages",
			       f->a.proto->name);
	snprintf(f->rname[f->nranges], sizeof(f->rname[0]), "%s", name);
	f->nranges++;
	return 0;
}

static int load_layout(struct fabric *f, struct cs_err *err)
{
	char names[FAB_GROUPS_MAX][64], where[CS_WHERE_MAX];
	unsigned n;
	int rc;

	rc = cs_config_section(f->a.cfg, &fab_params, &f->cfg, err);
	if (rc)
		return rc;
	cs_config_origin(f->a.cfg, "fabric", "links", where, sizeof(where));
	rc = split_names(f->cfg.links, f->link, FAB_NETS_MAX, &f->nlinks, where, err);
	if (rc)
		return rc;
	cs_config_origin(f->a.cfg, "fabric", "groups", where, sizeof(where));
	if (f->cfg.groups[0]) {
		rc = split_names(f->cfg.groups, names, FAB_GROUPS_MAX, &n, where, err);
		if (rc)
			return rc;
	} else {
		for (n = 0; n < f->a.n_std; n++)
			snprintf(names[n], sizeof(names[n]), "%s", f->a.std[n].name);
	}
	if (!n)
		return cs_err_set(err, -CS_ECONFIG, "%s: no node groups", where);
	for (unsigned i = 0; i < n; i++) {
		rc = load_group(f, names[i], err);
		if (rc)
			return rc;
	}
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct fab_group *g = &f->g[i];

		rc = load_net(f, g, err);
		if (rc)
			return rc;
		g->mem = -1;
		if (g->cfg.memory[0]) {
			g->mem = group_find(f, g->cfg.memory);
			if (g->mem < 0 || f->g[g->mem].role->face != FAB_MEM)
				return bad_key(f, g->name, "memory", err,
					       "'%s' is not a group of memory controllers",
					       g->cfg.memory);
			if (!g->role->mem_port)
				return bad_key(f, g->name, "memory", err,
					       "role %s has no memory behind it", g->role->name);
		} else if (g->role->mem_port) {
			return bad_key(f, g->name, "memory", err,
				       "role %s needs a group of memory controllers behind it",
				       g->role->name);
		}
	}
	for (unsigned i = 0; i < f->nlinks; i++)
		if (net_find(f, f->link[i]) < 0)
			return bad_key(f, "fabric", "links", err,
				       "'%s' is not a network of any node group", f->link[i]);
	cs_config_origin(f->a.cfg, "fabric", "ranges", where, sizeof(where));
	rc = split_names(f->cfg.ranges, names, FAB_RANGES_MAX, &n, where, err);
	for (unsigned i = 0; !rc && i < n; i++)
		rc = load_range(f, names[i], err);
	if (rc)
		return rc;
	if (!n) {
		unsigned i;

		for (i = 0; i < f->ngroups && !f->g[i].role->home; i++)
			;
		if (i == f->ngroups)
			return cs_err_set(err, -CS_ECONFIG, "%s: no group serves memory", where);
		f->r[0] =
		    (struct fab_range){.base = 0, .end = UINT64_MAX, .home = i, .cacheable = true};
		f->nranges = 1;
	}
	return 0;
}

/* ---- layout ---------------------------------------------------------------------------------- */

/* Endpoints per network in list order (request/response: initiators first, then targets), each
 * node's memory sockets, each memory controller's ports. */
static int number_nodes(struct fabric *f, struct cs_err *err)
{
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct fab_group *g = &f->g[i];

		if (g->net >= 0) {
			struct fab_net *n = &f->net[g->net];

			if (g->role->face == FAB_RESP)
				n->n_resp += g->count;
			else
				n->n_req += g->count;
		}
		if (g->net2 >= 0)
			f->net[g->net2].n_req += g->count;
	}
	for (unsigned i = 0; i < f->nnets; i++) {
		struct fab_net *n = &f->net[i];
		const char *first = NULL; /* the first group on it: its net key locates errors */

		for (unsigned j = 0; j < f->ngroups && !first; j++)
			if (f->g[j].net == (int)i || f->g[j].net2 == (int)i)
				first = f->g[j].name;
		n->n_ep = n->n_req + n->n_resp;
		if (n->face == FAB_REQ && (!n->n_req || !n->n_resp))
			return bad_key(f, first, "net", err,
				       "network %s: requests with responses need initiators and "
				       "targets on it",
				       n->name);
		if (n->face == FAB_REQ && n->cfg.topology == NOC_LINK)
			return bad_key(f, first, "net", err,
				       "network %s: a link carries one-way messages, not requests "
				       "with responses",
				       n->name);
		if (n->n_ep > 65535 || (n->cfg.topology == NOC_LINK && n->n_ep != 2))
			return bad_key(f, first, "net", err,
				       "network %s: %u endpoints (a link joins exactly 2)", n->name,
				       n->n_ep);
		n->n_req = n->face == FAB_REQ ? n->n_req : n->n_ep;
	}
	{
		unsigned next_req[FAB_NETS_MAX] = {0}, next_resp[FAB_NETS_MAX] = {0};

		for (unsigned i = 0; i < f->ngroups; i++) {
			struct fab_group *g = &f->g[i];

			g->n = calloc(g->count, sizeof(*g->n));
			if (!g->n)
				return cs_err_set(err, -CS_ENOMEM, "out of memory");
			for (unsigned j = 0; j < g->count; j++) {
				struct fab_node *n = &g->n[j];

				*n = (struct fab_node){.group = i,
						       .index = j,
						       .nth = g->nth0 + j,
						       .net = g->net,
						       .net2 = g->net2};
				if (g->net >= 0)
					n->ep = g->role->face == FAB_RESP ? next_resp[g->net]++
									  : next_req[g->net]++;
				if (g->net2 >= 0)
					n->ep2 = next_req[g->net2]++;
				if (g->role->face == FAB_MSG && g->role != &fab_bridge_role)
					n->id = f->n_ids++;
			}
		}
	}
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct fab_group *g = &f->g[i];
		struct fab_group *m;

		if (g->mem < 0)
			continue;
		m = &f->g[g->mem];
		if (m->front >= 0)
			return bad_key(f, g->name, "memory", err,
				       "memory group %s is already behind group %s", m->name,
				       f->g[m->front].name);
		m->front = (int)i;
		if (g->count >= m->count ? g->count % m->count : m->count % g->count)
			return bad_key(f, g->name, "memory", err,
				       "%u nodes of %s and %u memory controllers of %s: one count "
				       "must divide the other",
				       g->count, g->name, m->count, m->name);
		if (g->role->max_mem && m->count / g->count > g->role->max_mem)
			return bad_key(
			    f, g->name, "memory", err,
			    "a %s node has %u memory socket(s); %u controllers behind %u "
			    "nodes need more",
			    g->role->name, g->role->max_mem, m->count, g->count);
		for (unsigned j = 0; j < g->count; j++) {
			struct fab_node *n = &g->n[j];

			n->n_mem = g->count >= m->count ? 1 : m->count / g->count;
			n->mem_nth = g->count >= m->count ? m->nth0 + j / (g->count / m->count)
							  : m->nth0 + j * n->n_mem;
			n->mem_port = g->count >= m->count ? j % (g->count / m->count) : 0;
		}
		for (unsigned j = 0; j < m->count; j++) {
			unsigned p = g->count >= m->count ? g->count / m->count : 1;

			m->n[j].ports = p;
		}
	}
	for (unsigned i = 0; i < f->ngroups; i++)
		for (unsigned j = 0; j < f->g[i].count; j++)
			if (f->g[i].role->face == FAB_MEM && !f->g[i].n[j].ports)
				return bad_key(f, f->g[i].name, "role", err,
					       "no group names %s as its memory", f->g[i].name);
	return 0;
}

/* ---- making and binding ---------------------------------------------------------------------- */

static int note_checked(struct fabric *f, struct tlm_initiator_socket *s)
{
	if (f->nchecked == f->capchecked) {
		unsigned cap = f->capchecked ? 2 * f->capchecked : 64;
		void *p = realloc(f->checked, cap * sizeof(*f->checked));

		if (!p)
			return -CS_ENOMEM;
		f->checked = p;
		f->capchecked = cap;
	}
	f->checked[f->nchecked++] = s;
	return 0;
}

/* Request/response bindings get a base-protocol checker when asked (gpu.check). */
static int bind(struct fabric *f, struct tlm_initiator_socket *i, struct tlm_target_socket *t,
		bool reqresp)
{
	int rc = tlm_bind(i, t);

	/* room in the list first: an attached checker is always detached later */
	if (!rc && reqresp && f->a.check && !(rc = note_checked(f, i))) {
		rc = tlm_checker_attach(i, f->a.k);
		if (rc)
			f->nchecked--;
	}
	return rc;
}

static int bind_net(struct fabric *f, const struct fab_group *g, const struct fab_node *n,
		    struct cs_err *err)
{
	struct noc *noc;
	int rc = 0;

	if (g->net < 0)
		return 0;
	noc = f->net[g->net].noc;
	switch (g->role->face) {
	case FAB_MSG:
		if (g->role == &fab_bridge_role) {
			struct noc *noc2 = f->net[g->net2].noc;

			rc = bind(f, noc_bridge_inject(n->obj, 0), noc_inject_port(noc, n->ep),
				  false);
			rc = rc ? rc
				: bind(f, noc_deliver_port(noc, n->ep),
				       noc_bridge_deliver(n->obj, 0), false);
			rc = rc ? rc
				: bind(f, noc_bridge_inject(n->obj, 1),
				       noc_inject_port(noc2, n->ep2), false);
			rc = rc ? rc
				: bind(f, noc_deliver_port(noc2, n->ep2),
				       noc_bridge_deliver(n->obj, 1), false);
			break;
		}
		rc = bind(f, g->role->send(f->a.ctx, n->obj), noc_inject_port(noc, n->ep), false);
		if (!rc)
			rc = bind(f, noc_deliver_port(noc, n->ep), g->role->recv(f->a.ctx, n->obj),
				  false);
		break;
	case FAB_REQ:
		rc = bind(f, g->role->send(f->a.ctx, n->obj), noc_req_port(noc, n->ep), true);
		break;
	case FAB_RESP:
		rc = bind(f, noc_mem_port(noc, n->ep), g->role->recv(f->a.ctx, n->obj), true);
		break;
	}
	if (rc)
		return cs_err_set(err, -CS_EINVAL, "cannot bind %s %u to network %s", g->role->name,
				  n->index, f->net[g->net].name);
	return 0;
}

static int bind_mem(struct fabric *f, const struct fab_group *g, const struct fab_node *n,
		    struct cs_err *err)
{
	const struct fab_group *m;

	if (g->mem < 0)
		return 0;
	m = &f->g[g->mem];
	/* socket j goes to the controller after socket 0's (number_nodes chose them) */
	for (unsigned j = 0; j < n->n_mem; j++) {
		unsigned ctl = n->mem_nth - m->nth0 + j;

		if (bind(f, g->role->mem_port(f->a.ctx, n->obj, j),
			 m->role->mem_target(f->a.ctx, m->n[ctl].obj, n->mem_port),
			 g->role->face == FAB_RESP))
			return cs_err_set(err, -CS_EINVAL, "cannot bind %s %u to %s %u",
					  g->role->name, n->index, m->role->name, ctl);
	}
	return 0;
}

/* A one-way mesh network of concentration > 1: each group on it spread over all routers
 * (noc_spread_place: the smaller groups first). *pos stays NULL otherwise. */
static int msg_positions(const struct fabric *f, unsigned i, unsigned **pos, struct cs_err *err)
{
	const struct fab_net *n = &f->net[i];
	struct noc_group gr[FAB_GROUPS_MAX];
	unsigned ng = 0;

	*pos = NULL;
	if (n->cfg.topology != NOC_MESH || n->cfg.concentration <= 1)
		return 0;
	for (unsigned j = 0; j < f->ngroups; j++) {
		const struct fab_group *g = &f->g[j];

		if (g->count && (g->net == (int)i || g->net2 == (int)i))
			gr[ng++] =
			    (struct noc_group){.first = g->net == (int)i ? g->n[0].ep : g->n[0].ep2,
					       .count = g->count};
	}
	*pos = calloc(n->n_ep ? n->n_ep : 1, sizeof(**pos));
	if (!*pos)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	return noc_spread_place(&n->cfg, n->n_ep, gr, ng, *pos, err);
}

static int make_nets(struct fabric *f, struct cs_err *err)
{
	const struct fab_proto *p = f->a.proto;
	int rc;

	for (unsigned i = 0; i < f->nnets; i++) {
		struct fab_net *n = &f->net[i];
		struct cs_stat_group *sg =
		    cs_stat_group(f->a.root, i == 0 && f->a.net_stats ? f->a.net_stats : n->name);
		unsigned *pos = NULL;

		if (n->face == FAB_REQ)
			rc = noc_create(f->a.k, &n->cfg, n->n_req, n->n_resp, f->a.msg_names,
					f->a.n_msgs, sg, &n->noc, err);
		else if (!(rc = msg_positions(f, i, &pos, err)))
			rc = noc_net_create(f->a.k, &n->cfg, n->n_ep, p->vnets, pos, p->vnet_names,
					    f->a.msg_names, f->a.n_msgs, sg, &n->noc, err);
		free(pos);
		if (rc == -CS_ECONFIG) {
			char msg[sizeof(err->msg)];

			/* the mesh cannot hold the network's endpoints (only given rows can be too
			 * few): name where they are set */
			snprintf(msg, sizeof(msg), "%s",
				 strncmp(err->msg, "noc: ", 5) ? err->msg : err->msg + 5);
			return bad_key(f, n->name, n->cfg.mesh_rows ? "mesh_rows" : "concentration",
				       err, "network %s: %s", n->name, msg);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* With bridges: every one-way network routes the ids of nodes elsewhere to the bridge towards
 * them. The networks and bridges must form a tree (one path between two networks). */
static int make_routes(struct fabric *f, struct cs_err *err)
{
	/* via[x][y]: the endpoint on x of the first bridge on the path from network x to y */
	unsigned via[FAB_NETS_MAX][FAB_NETS_MAX], nmsg = 0, nbridge = 0;
	bool seen[FAB_NETS_MAX][FAB_NETS_MAX] = {{false}};
	uint16_t *route;
	char where[CS_WHERE_MAX];
	int rc = 0;

	for (unsigned i = 0; i < f->nnets; i++)
		nmsg += f->net[i].face == FAB_MSG;
	for (unsigned i = 0; i < f->ngroups; i++)
		if (f->g[i].role == &fab_bridge_role)
			nbridge += f->g[i].count;
	if (nmsg <= 1 && !nbridge)
		return 0; /* one network: a node's id is its endpoint */
	cs_config_origin(f->a.cfg, "fabric", "groups", where, sizeof(where));
	if (nbridge != nmsg - 1)
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: %u networks of messages need %u bridges between them in a "
				  "tree (%u given)",
				  where, nmsg, nmsg - 1, nbridge);
	/* breadth first from every network, over the bridges */
	for (unsigned x = 0; x < f->nnets; x++) {
		unsigned queue[FAB_NETS_MAX], qh = 0, qt = 0;

		if (f->net[x].face != FAB_MSG)
			continue;
		seen[x][x] = true;
		queue[qt++] = x;
		while (qh < qt) {
			unsigned u = queue[qh++];

			for (unsigned i = 0; i < f->ngroups; i++) {
				const struct fab_group *g = &f->g[i];

				if (g->role != &fab_bridge_role)
					continue;
				for (unsigned j = 0; j < g->count; j++) {
					const struct fab_node *b = &g->n[j];
					unsigned w;

					if (b->net != (int)u && b->net2 != (int)u)
						continue;
					w = (unsigned)(b->net == (int)u ? b->net2 : b->net);
					if (seen[x][w])
						continue;
					seen[x][w] = true;
					/* the first hop from x: this bridge if u is x, else u's */
					via[x][w] = u == x ? (b->net == (int)x ? b->ep : b->ep2)
							   : via[x][u];
					queue[qt++] = w;
				}
			}
		}
		if (qt != nmsg)
			return cs_err_set(err, -CS_ECONFIG,
					  "%s: network %s is not joined to every other by bridges",
					  where, f->net[x].name);
	}
	route = calloc(f->n_ids ? f->n_ids : 1, sizeof(*route));
	if (!route)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (unsigned x = 0; x < f->nnets && !rc; x++) {
		if (f->net[x].face != FAB_MSG)
			continue;
		for (unsigned i = 0; i < f->ngroups; i++) {
			const struct fab_group *g = &f->g[i];

			if (g->role->face != FAB_MSG || g->role == &fab_bridge_role)
				continue;
			for (unsigned j = 0; j < g->count; j++)
				route[g->n[j].id] = g->net == (int)x ? (uint16_t)g->n[j].ep
								     : (uint16_t)via[x][g->net];
		}
		rc = noc_set_routes(f->net[x].noc, route, f->n_ids);
	}
	free(route);
	return rc ? cs_err_set(err, rc, "out of memory") : 0;
}

static int make_nodes(struct fabric *f, struct cs_err *err)
{
	char name[64];
	int rc;

	for (unsigned i = 0; i < f->ngroups; i++) {
		struct fab_group *g = &f->g[i];

		for (unsigned j = 0; j < g->count && !g->role->external; j++) {
			struct fab_node *n = &g->n[j];

			snprintf(name, sizeof(name), g->role->stat_fmt, n->nth);
			n->stats = cs_stat_group(f->a.root, name);
			rc = g->role->create(f->a.ctx, f, n, &n->obj, err);
			if (rc)
				return rc;
			f->role_obj[g->ri][n->nth] = n->obj;
		}
	}
	/* bind once all exist: a node's memory is made after it when listed later */
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct fab_group *g = &f->g[i];

		for (unsigned j = 0; j < g->count && !g->role->external; j++)
			if ((rc = bind_net(f, g, &g->n[j], err)) ||
			    (rc = bind_mem(f, g, &g->n[j], err)))
				return rc;
	}
	return 0;
}

static int role_arrays(struct fabric *f, struct cs_err *err)
{
	const struct fab_proto *p = f->a.proto;

	for (const struct fab_role_ops *const *r = p->roles; *r; r++)
		f->nroles++;
	f->role_obj = calloc(f->nroles, sizeof(*f->role_obj));
	f->role_n = calloc(f->nroles, sizeof(*f->role_n));
	if (!f->role_obj || !f->role_n)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	/* a group's nodes follow the earlier groups' of its role */
	for (unsigned i = 0; i < f->ngroups; i++) {
		f->g[i].nth0 = f->role_n[f->g[i].ri];
		f->role_n[f->g[i].ri] += f->g[i].count;
	}
	for (unsigned ri = 0; ri < f->nroles; ri++)
		if (f->role_n[ri] && !(f->role_obj[ri] = calloc(f->role_n[ri], sizeof(void *))))
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
	return 0;
}

int fabric_build(const struct fab_build_args *a, struct fabric **out, struct cs_err *err)
{
	struct fabric *f = calloc(1, sizeof(*f));
	int rc;

	*out = NULL;
	if (!f)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	if (!a->msg_traffic) {
		free(f);
		return cs_err_set(
		    err, -CS_EINVAL,
		    "protocol family %s: the message classes declare no kind of traffic "
		    "(fab_build_args.msg_traffic)",
		    a->proto->name);
	}
	f->a = *a;
	if ((rc = load_layout(f, err)) || (rc = role_arrays(f, err)) || (rc = number_nodes(f, err)))
		goto fail;
	if (a->proto->layout && (rc = a->proto->layout(a->ctx, f, err)))
		goto fail;
	if ((rc = make_nets(f, err)) || (rc = make_routes(f, err)) || (rc = make_nodes(f, err)))
		goto fail;
	if (a->proto->finish && (rc = a->proto->finish(a->ctx, f, err)))
		goto fail;
	*out = f;
	return 0;
fail:
	fabric_detach_checkers(f);
	fabric_destroy(f);
	return rc;
}

int fabric_attach(struct fabric *f, const char *role, unsigned nth, void *obj, struct cs_err *err)
{
	for (unsigned i = 0; i < f->ngroups; i++) {
		struct fab_group *g = &f->g[i];

		if (strcmp(g->role->name, role) || nth < g->nth0 || nth >= g->nth0 + g->count)
			continue;
		g->n[nth - g->nth0].obj = obj;
		f->role_obj[g->ri][nth] = obj;
		return bind_net(f, g, &g->n[nth - g->nth0], err);
	}
	return cs_err_set(err, -CS_EINVAL, "no %s node %u in the layout", role, nth);
}

void fabric_detach_checkers(struct fabric *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->nchecked; i++)
		tlm_checker_detach(f->checked[i]);
	f->nchecked = 0;
}

void fabric_destroy(struct fabric *f)
{
	if (!f)
		return;
	/* nodes in front of memory first, memory controllers, then the networks */
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < f->ngroups; i++) {
			struct fab_group *g = &f->g[i];

			if (g->role->external || (g->role->face == FAB_MEM) != (pass == 1))
				continue;
			for (unsigned j = 0; g->n && j < g->count; j++)
				if (g->n[j].obj)
					g->role->destroy(f->a.ctx, g->n[j].obj);
		}
	for (unsigned i = 0; i < f->nnets; i++)
		noc_destroy(f->net[i].noc);
	for (unsigned i = 0; i < f->ngroups; i++)
		free(f->g[i].n);
	for (unsigned ri = 0; f->role_obj && ri < f->nroles; ri++)
		free(f->role_obj[ri]);
	free(f->role_obj);
	free(f->role_n);
	free(f->checked);
	free(f);
}

/* ---- the memory controller role ---------------------------------------------------------- */

static int memctrl_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
			  struct cs_err *err)
{
	(void)ctx;
	return dram_ctrl_create(f->a.k, f->a.dram, n->nth, f->a.map, f->a.store, n->ports, n->stats,
				(struct dram_ctrl **)out, err);
}

static void memctrl_destroy(void *ctx, void *obj)
{
	(void)ctx;
	dram_ctrl_destroy(obj);
}

static struct tlm_target_socket *memctrl_target(void *ctx, void *obj, unsigned p)
{
	(void)ctx;
	return dram_ctrl_port(obj, p);
}

static bool memctrl_idle(void *ctx, const void *obj)
{
	(void)ctx;
	return !dram_ctrl_queued(obj);
}

/* a channel's events: the cycles its data bus has been busy */
static uint64_t memctrl_served(void *ctx, const void *obj)
{
	(void)ctx;
	return dram_ctrl_bus_busy(obj);
}

static double memctrl_served_ps(void *ctx, const void *obj)
{
	(void)ctx;
	return (double)dram_ctrl_period_ps(obj);
}

static void memctrl_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	dram_ctrl_energy(obj, c);
	c->inst[EN_DRAM] += 1;
}

const struct fab_role_ops fab_memctrl_role = {
    .name = "memctrl",
    .help = "a DRAM channel (section dram) behind the nodes that name its group as memory",
    .face = FAB_MEM,
    .home = true,
    .stat_fmt = "dram%u",
    .create = memctrl_create,
    .destroy = memctrl_destroy,
    .mem_target = memctrl_target,
    .idle = memctrl_idle,
    .served = memctrl_served,
    .served_ps = memctrl_served_ps,
    .energy = memctrl_energy,
};

/* ---- the bridge role ------------------------------------------------------------------------ */

static int bridge_create(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
			 struct cs_err *err)
{
	(void)ctx;
	return noc_bridge_create(f->a.k, &f->bridge_cfg, noc_clock(f->net[n->net].noc),
				 noc_clock(f->net[n->net2].noc), n->stats,
				 (struct noc_bridge **)out, err);
}

static void bridge_destroy(void *ctx, void *obj)
{
	(void)ctx;
	noc_bridge_destroy(obj);
}

static bool bridge_idle(void *ctx, const void *obj)
{
	(void)ctx;
	return noc_bridge_idle(obj);
}

/* A bridge's crossing is counted by the two networks it joins: each counts the message's flits
 * through its routers, the bridge's endpoints; its buffers are theirs (docs/energy.md). */
static void bridge_energy(void *ctx, const void *obj, struct energy_counts *c)
{
	(void)ctx;
	(void)obj;
	(void)c;
}

const struct fab_role_ops fab_bridge_role = {
    .name = "bridge",
    .help = "a bridge between two networks of messages (net, net2; section bridge)",
    .face = FAB_MSG,
    .stat_fmt = "bridge%u",
    .create = bridge_create,
    .destroy = bridge_destroy,
    .idle = bridge_idle,
    .energy = bridge_energy,
};

static const struct fab_proto *const fab_protos[] = {&gpu_fab_proto, &sc_fab_proto, &apu_fab_proto,
						     NULL};

const struct fab_proto *const *fab_proto_registry(void)
{
	return fab_protos;
}

/* ---- queries --------------------------------------------------------------------------------- */

static int role_index(const struct fabric *f, const char *role)
{
	unsigned ri;

	return role_find(f->a.proto, role, &ri) ? (int)ri : -1;
}

unsigned fabric_count(const struct fabric *f, const char *role)
{
	int ri = role_index(f, role);

	return ri < 0 ? 0 : f->role_n[ri];
}

const struct fab_node *fabric_node(const struct fabric *f, const char *role, unsigned nth)
{
	for (unsigned i = 0; i < f->ngroups; i++) {
		const struct fab_group *g = &f->g[i];

		if (!strcmp(g->role->name, role) && nth >= g->nth0 && nth < g->nth0 + g->count)
			return &g->n[nth - g->nth0];
	}
	return NULL;
}

void *const *fabric_objs(const struct fabric *f, const char *role)
{
	int ri = role_index(f, role);

	return ri < 0 ? NULL : (void *const *)f->role_obj[ri];
}

struct noc *fabric_role_net(const struct fabric *f, const char *role)
{
	const struct fab_node *n = fabric_node(f, role, 0);

	return n && n->net >= 0 ? f->net[n->net].noc : NULL;
}

unsigned fabric_node_endpoint(const struct fabric *f, const struct fab_node *n)
{
	if (n->net >= 0 && f->g[n->group].role->face == FAB_RESP)
		return noc_gpu_ep(f->net[n->net].noc, true, n->ep);
	return n->ep;
}

unsigned fabric_nets(const struct fabric *f)
{
	return f->nnets;
}

struct noc *fabric_net(const struct fabric *f, unsigned i)
{
	return i < f->nnets ? f->net[i].noc : NULL;
}

bool fabric_idle(const struct fabric *f)
{
	for (unsigned i = 0; i < f->ngroups; i++) {
		const struct fab_group *g = &f->g[i];

		for (unsigned j = 0; g->role->idle && j < g->count; j++)
			if (g->n[j].obj && !g->role->idle(f->a.ctx, g->n[j].obj))
				return false;
	}
	for (unsigned i = 0; i < f->nnets; i++)
		if (noc_in_flight(f->net[i].noc))
			return false;
	return true;
}

/* The nodes that declare what they served, on a network (mem false) or memory controllers. */
static bool serves_events(const struct fab_group *g, bool mem)
{
	return g->role->served && g->role->served_ps && (g->role->face == FAB_MEM) == mem;
}

void fabric_event_shape(const struct fabric *f, unsigned n[EVB_CLASSES])
{
	n[EVB_L2] = n[EVB_DRAM] = n[EVB_NOC] = 0;
	for (unsigned i = 0; i < f->ngroups; i++) {
		n[EVB_L2] += serves_events(&f->g[i], false) ? f->g[i].count : 0;
		n[EVB_DRAM] += serves_events(&f->g[i], true) ? f->g[i].count : 0;
	}
	for (unsigned i = 0; i < f->nnets; i++)
		n[EVB_NOC] += 2 * noc_endpoints(f->net[i].noc);
}

void fabric_event_counts(const struct fabric *f, double unit_ps, double *v)
{
	unsigned k = 0;

	for (unsigned mem = 0; mem < 2; mem++)
		for (unsigned i = 0; i < f->ngroups; i++) {
			const struct fab_group *g = &f->g[i];

			for (unsigned j = 0; serves_events(g, mem) && j < g->count; j++) {
				const void *o = g->n[j].obj;

				v[k++] = o ? (double)g->role->served(f->a.ctx, o) *
						 g->role->served_ps(f->a.ctx, o) / unit_ps
					   : 0;
			}
		}
	for (unsigned i = 0; i < f->nnets; i++) {
		const struct noc *noc = f->net[i].noc;
		double ps = (double)sim_clock_period_ps(noc_clock(noc)) / unit_ps;

		for (unsigned e = 0; e < noc_endpoints(noc); e++) {
			v[k++] = (double)noc_ep_flits(noc, e, true) * ps;
			v[k++] = (double)noc_ep_flits(noc, e, false) * ps;
		}
	}
}

void fabric_energy(const struct fabric *f, struct energy_counts *c)
{
	for (unsigned i = 0; i < f->ngroups; i++) {
		const struct fab_group *g = &f->g[i];

		for (unsigned j = 0; j < g->count; j++)
			if (g->n[j].obj)
				g->role->energy(f->a.ctx, g->n[j].obj, c);
	}
	for (unsigned i = 0; i < f->nnets; i++)
		noc_energy(f->net[i].noc, c);
}

/* By kind: what the networks carried, and (link, may be NULL) their flits x flit bytes. */
static void traffic_kinds(const struct fabric *f, struct noc_traffic out[NOC_TRAFFIC_KINDS],
			  double *link)
{
	for (unsigned i = 0; i < f->nnets; i++)
		for (unsigned t = 0; t < noc_classes(f->net[i].noc); t++) {
			struct noc_traffic one;

			noc_class_traffic(f->net[i].noc, t, &one);
			noc_traffic_add(&out[f->a.msg_traffic[t]], &one);
			if (link)
				link[f->a.msg_traffic[t]] +=
				    (double)one.flits * (double)f->net[i].cfg.flit_bytes;
		}
}

void fabric_traffic(const struct fabric *f, struct noc_traffic out[NOC_TRAFFIC_KINDS])
{
	traffic_kinds(f, out, NULL);
}

void fabric_dram_bytes(const struct fabric *f, double *read, double *written)
{
	unsigned n;
	struct dram_ctrl *const *ch = fabric_channels(f, &n);

	*read = *written = 0;
	for (unsigned i = 0; i < n; i++) {
		*read += (double)dram_ctrl_bytes(ch[i], false);
		*written += (double)dram_ctrl_bytes(ch[i], true);
	}
}

json_t *fabric_traffic_json(const struct fabric *f)
{
	struct noc_traffic t[NOC_TRAFFIC_KINDS] = {{0}};
	double link[NOC_TRAFFIC_KINDS] = {0};
	json_t *noc = json_object();
	double rd, wr;

	traffic_kinds(f, t, link);
	fabric_dram_bytes(f, &rd, &wr);
	for (unsigned k = 0; k < NOC_TRAFFIC_KINDS; k++)
		json_object_set_new(
		    noc, noc_traffic_kind_names[k],
		    json_pack("{s:I, s:I, s:I, s:I, s:f}", "packets", (json_int_t)t[k].packets,
			      "flits", (json_int_t)t[k].flits, "bytes", (json_int_t)t[k].bytes,
			      "payload_bytes", (json_int_t)t[k].payload_bytes, "link_bytes",
			      link[k]));
	return json_pack("{s:o, s:{s:f, s:f}}", "noc", noc, "dram", "read_bytes", rd,
			 "written_bytes", wr);
}

void fabric_traffic_print(const struct fabric *f, FILE *out)
{
	struct noc_traffic t[NOC_TRAFFIC_KINDS] = {{0}};
	double rd, wr;

	fabric_traffic(f, t);
	fabric_dram_bytes(f, &rd, &wr);
	fprintf(out, "  traffic (B)      ");
	for (unsigned k = 0; k < NOC_TRAFFIC_KINDS; k++)
		fprintf(out, " %s %" PRIu64 "%s", noc_traffic_kind_names[k], t[k].bytes,
			k + 1 < NOC_TRAFFIC_KINDS ? "," : "");
	fprintf(out, "; DRAM read %.0f, written %.0f\n", rd, wr);
}

struct dram_ctrl *const *fabric_channels(const struct fabric *f, unsigned *n)
{
	int r = role_index(f, "memctrl");

	*n = r < 0 ? 0 : f->role_n[r];
	return r < 0 ? NULL : (struct dram_ctrl *const *)f->role_obj[r];
}

const struct fab_range *fabric_range_of(const struct fabric *f, uint64_t addr)
{
	for (unsigned i = 0; i < f->nranges; i++)
		if (addr >= f->r[i].base && addr < f->r[i].end)
			return &f->r[i];
	return NULL;
}

int fabric_check_alloc(const struct fabric *f, uint64_t addr, uint64_t len, char *msg,
		       size_t msg_len)
{
	const struct fab_range *r = fabric_range_of(f, addr);

	if (r && len <= r->end - addr)
		return 0;
	snprintf(msg, msg_len,
		 "an allocation of %" PRIu64 " bytes at 0x%" PRIx64
		 " lies outside every range of fabric.ranges",
		 len, addr);
	return -CS_ECONFIG;
}

unsigned fabric_ranges(const struct fabric *f)
{
	return f->nranges;
}

const struct fab_range *fabric_range(const struct fabric *f, unsigned i)
{
	return i < f->nranges ? &f->r[i] : NULL;
}

unsigned fabric_groups(const struct fabric *f)
{
	return f->ngroups;
}

const char *fabric_group_name(const struct fabric *f, unsigned i)
{
	return i < f->ngroups ? f->g[i].name : NULL;
}

const char *fabric_group_role(const struct fabric *f, unsigned i)
{
	return i < f->ngroups ? f->g[i].role->name : NULL;
}

unsigned fabric_group_count(const struct fabric *f, unsigned i)
{
	return i < f->ngroups ? f->g[i].count : 0;
}

json_t *fabric_json(const struct fabric *f)
{
	json_t *r = json_object(), *gs = json_array(), *ns = json_array(), *rs = json_array();

	for (unsigned i = 0; i < f->ngroups; i++) {
		const struct fab_group *g = &f->g[i];
		json_t *eps = json_array();

		for (unsigned j = 0; g->net >= 0 && j < g->count; j++)
			json_array_append_new(eps, json_integer(g->n[j].ep));
		json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:o}", "name", g->name, "role",
				      g->role->name, "count", (json_int_t)g->count, "net",
				      g->net >= 0 ? f->net[g->net].name : "", "endpoints", eps);

		if (g->net2 >= 0) {
			json_t *eps2 = json_array();

			for (unsigned j = 0; j < g->count; j++)
				json_array_append_new(eps2, json_integer(g->n[j].ep2));
			json_object_set_new(o, "net2", json_string(f->net[g->net2].name));
			json_object_set_new(o, "endpoints2", eps2);
		}
		json_array_append_new(gs, o);
	}
	for (unsigned i = 0; i < f->nnets; i++)
		json_array_append_new(ns,
				      json_pack("{s:s, s:s, s:i}", "name", f->net[i].name, "face",
						f->net[i].face == FAB_MSG ? "messages" : "requests",
						"endpoints", (json_int_t)f->net[i].n_ep));
	for (unsigned i = 0; i < f->nranges; i++) {
		const struct fab_range *x = &f->r[i];

		json_array_append_new(rs, json_pack("{s:I, s:I, s:s, s:b, s:b}", "base",
						    (json_int_t)x->base, "end",
						    (json_int_t)(x->end == UINT64_MAX ? 0 : x->end),
						    "home", f->g[x->home].name, "cacheable",
						    x->cacheable, "readonly", x->readonly));
	}
	json_object_set_new(r, "groups", gs);
	json_object_set_new(r, "networks", ns);
	json_object_set_new(r, "ranges", rs);
	return r;
}
