/*
 * tlm/system/fabric.h - the system builder: a memory system as data (DESIGN.md §10,
 * docs/architecture.md §8).
 *
 * A configuration lists node groups, networks and address ranges; the builder numbers the
 * endpoints, makes every controller by its role, binds the sockets and hands each controller
 * the layout it routes by. No system is wired by hand: system `gpu`, system `cpu` on the APU
 * memory side and system `apu` are three configurations of this builder (their standard
 * layouts, below, are what a configuration without a `fabric` section gets).
 *
 *   fabric = { groups = "corepairs, cus, tccs, dmas, directory, channels"; ranges = ""; };
 *   corepairs = { role = "corepair"; count = 4; net = "noc"; };
 *   directory = { role = "directory"; memory = "channels"; };
 *   channels  = { role = "memctrl"; count = 2; };
 *
 * Groups. Each name in fabric.groups is a section of its own (cs_config_section_as): role (a
 * role of the system's protocol family), count (0: the role's natural count in this system,
 * e.g. the SMs of `gpu.sms`), net (the network section it attaches to; "": noc, and none for a
 * memory controller), memory (the group of memory controllers behind it; a memory group is
 * behind one group only). A group's name, like a network's or a range's, must not be a
 * component's section. Groups are made in list order; endpoints are numbered per network in
 * list order (a request/response network: its initiators, then its targets).
 *
 * Roles. A protocol family (struct fab_proto) supplies the controllers of the roles it defines
 * (struct fab_role_ops): how to make one, its sockets on its network, its sockets towards the
 * memory behind it, whether it is idle. A role is on one face of a network:
 *   FAB_MSG   one-way messages addressed by endpoint, on the family's virtual networks (the
 *             directory protocols: CorePair, TCP, TCC, DMA, directory);
 *   FAB_REQ   an initiator of a request/response network (a GPU protocol's L1);
 *   FAB_RESP  its target (a GPU protocol's L2 bank);
 *   FAB_MEM   on no network: a memory controller, behind the nodes that name its group.
 * An external role is made by the system's initiators (an SM makes its L1): the builder numbers
 * its endpoints and binds it when the system hands it over (fabric_attach).
 *
 * Memory. N nodes naming a group of M memory controllers: if N >= M (M divides N), node i uses
 * port i mod (N/M) of controller i / (N/M) (GPU L2 banks sharing a channel); if N < M (N
 * divides M), node i has M/N memory sockets, socket j to port 0 of controller i (M/N) + j (a
 * directory in front of its channels).
 *
 * Networks. A network section has the shape of `noc` (noc_params: crossbar, mesh, link) and
 * takes every group that names it. A FAB_MSG network carries the family's vnets; a network of
 * FAB_REQ and FAB_RESP groups is the GPU's request/response network (noc_create, mesh
 * placement as noc_gpu_place, or with noc.concentration > 1 the targets then the initiators
 * spread over all routers). On a FAB_MSG mesh of concentration > 1 every group is spread over
 * all routers, the smaller groups first (noc_spread_place); with concentration 1 endpoint e is
 * at router e. One network is one face.
 *
 * Ranges. fabric.ranges names sections of base, size, home (a group whose role serves memory)
 * and page attributes (cacheable, readonly); "" gives one range over all memory, homed at the
 * first group whose role serves memory. fabric_range_of() looks an address up; the systems'
 * allocators place every allocation inside one. A family whose protocols do not read page
 * attributes (fab_proto.page_attrs false: gpu, scoped and apu today) refuses an uncacheable or
 * read-only range rather than ignore it.
 */
#ifndef COHSCOPE_TLM_SYSTEM_FABRIC_H
#define COHSCOPE_TLM_SYSTEM_FABRIC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analytic/energy.h"
#include "analytic/evbound.h"
#include "tlm/dram/dram.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/addrmap.h"
#include "tlm/mem/store.h"
#include "tlm/noc/noc.h"
#include "util/config.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

#define FAB_GROUPS_MAX 16
#define FAB_NETS_MAX   4
#define FAB_RANGES_MAX 16

enum fab_face { FAB_MSG = 0, FAB_REQ, FAB_RESP, FAB_MEM };

/* The `fabric` section. */
struct fab_cfg {
	char groups[CS_PARAM_STR_MAX]; /* "": the system's standard layout */
	char ranges[CS_PARAM_STR_MAX]; /* "": one range over all memory */
	char links[CS_PARAM_STR_MAX];  /* networks read with the link table (noc_link_params) */
};
extern const struct cs_param_table fab_params;

/* A group's section (read under the group's own name). */
struct fab_group_cfg {
	char role[CS_PARAM_STR_MAX];
	uint64_t count;		       /* 0: the role's natural count */
	char net[CS_PARAM_STR_MAX];    /* a network section, "": noc (none for memory) */
	char net2[CS_PARAM_STR_MAX];   /* a bridge's second network */
	char memory[CS_PARAM_STR_MAX]; /* a group of memory controllers, "" for none */
};
extern const struct cs_param_table fab_group_params;

/* A range's section. */
struct fab_range_cfg {
	uint64_t base, size;
	char home[CS_PARAM_STR_MAX]; /* a group */
	bool cacheable, readonly;
};
extern const struct cs_param_table fab_range_params;

struct fabric;

/* One node of a group, as its role's constructor sees it. */
struct fab_node {
	unsigned group; /* its group's index in fabric.groups */
	unsigned index; /* within its group */
	unsigned nth;	/* within its role, over the groups in list order */
	int net;	/* its network, -1: none */
	unsigned ep;	/* FAB_MSG: its endpoint; FAB_REQ: initiator i; FAB_RESP: target j */
	unsigned id;	/* FAB_MSG: its node id, what messages name as dst (not for bridges) */
	int net2;	/* a bridge's second network (-1 for other roles) and its endpoint */
	unsigned ep2;
	unsigned n_mem;		    /* memory sockets towards the controllers behind it */
	unsigned mem_nth, mem_port; /* socket 0's controller (its nth memctrl) and port */
	unsigned ports;		    /* FAB_MEM: ports for the nodes in front of it */
	struct cs_stat_group *stats;
	void *obj; /* the controller */
};

struct fab_role_ops {
	const char *name;
	const char *help;
	unsigned face;	      /* enum fab_face */
	bool external;	      /* made by the system's initiators: fabric_attach binds it */
	bool home;	      /* it serves memory: a range may name its group as home */
	unsigned max_count;   /* 0: any */
	unsigned max_mem;     /* memory sockets a node has, 0: any */
	const char *stat_fmt; /* its stats group under the system's root: "corepair%u", "dir" */
	int (*create)(void *ctx, struct fabric *f, const struct fab_node *n, void **out,
		      struct cs_err *err);
	/* Each of these gets the family's context first (ctx) and the controller (obj). */
	void (*destroy)(void *ctx, void *obj);
	/* FAB_MSG: inject initiator and deliver target; FAB_REQ: send only; FAB_RESP: recv only */
	struct tlm_initiator_socket *(*send)(void *ctx, void *obj);
	struct tlm_target_socket *(*recv)(void *ctx, void *obj);
	/* socket j < n_mem towards the memory behind it */
	struct tlm_initiator_socket *(*mem_port)(void *ctx, void *obj, unsigned j);
	/* FAB_MEM: port p */
	struct tlm_target_socket *(*mem_target)(void *ctx, void *obj, unsigned p);
	bool (*idle)(void *ctx, const void *obj);
	/* optional, for same-event pairs (analytic/evbound.h): the units of work the node has
	 * served so far (requests taken by its pipeline, data-bus cycles) and the ps one unit
	 * holds it; a role without them bounds no interval */
	uint64_t (*served)(void *ctx, const void *obj);
	double (*served_ps)(void *ctx, const void *obj);
	/* the stats contract (analytic/energy.h; issue 38): adds the node's energy events so far
	 * and the instances it charges static power for. Required of every role: a layout with a
	 * role that lacks it is refused at build. An external node's is its maker's (an SM's L1). */
	void (*energy)(void *ctx, const void *obj, struct energy_counts *c);
};

/* A protocol family: its roles, its networks' vnets and message classes, and what it does once
 * the layout is known (node ids for its controllers) and once every node is made. */
struct fab_proto {
	const char *name;
	const struct fab_role_ops *const *roles; /* NULL-terminated */
	unsigned vnets;				 /* FAB_MSG networks */
	const char *const *vnet_names;
	bool page_attrs; /* its protocols read uncacheable and read-only pages */
	/* A role's natural count in this system (a group's count 0), e.g. gpu.sms L1s. */
	unsigned (*natural_count)(void *ctx, const struct fab_role_ops *role);
	int (*layout)(void *ctx, struct fabric *f, struct cs_err *err); /* may be NULL */
	int (*finish)(void *ctx, struct fabric *f, struct cs_err *err); /* may be NULL */
};

/* DRAM channels (fab_build_args.dram, .map, .store), for a family to list among its roles. */
extern const struct fab_role_ops fab_memctrl_role;
/* A bridge between two one-way networks (tlm/noc/bridge.h; section bridge): a group of this
 * role names both (net, net2). With bridges, messages name nodes by id (fab_node.id, numbered
 * over the one-way networks' nodes in list order, bridges left out) and every network routes
 * ids that are not its own to the bridge towards them; the networks and bridges form a tree. */
extern const struct fab_role_ops fab_bridge_role;

/* The protocol families (gpu, scoped, apu), NULL-terminated: `cohscope list roles`. */
const struct fab_proto *const *fab_proto_registry(void);

/* A group of the standard layout a system gives for configurations without fabric.groups. */
struct fab_std_group {
	const char *name;
	struct fab_group_cfg cfg;
};

struct fab_build_args {
	struct sim_kernel *k;
	struct cs_config *cfg;
	const struct fab_proto *proto;
	void *ctx; /* the family's context, passed to every role */
	const struct fab_std_group *std;
	unsigned n_std;
	struct cs_stat_group *root;   /* every node's stats group under it */
	const char *net_stats;	      /* stats group of the first network ("noc", "net") */
	const char *const *msg_names; /* the networks' message classes (the protocol's) */
	unsigned n_msgs;
	/* each class's kind of traffic (enum noc_traffic_kind), as the protocol declares it;
	 * required: fabric_traffic reports by it */
	const unsigned char *msg_traffic;
	bool check; /* TLM base-protocol checkers on request/response bindings */
	/* memory controllers: DRAM channels with this configuration and map */
	const struct dram_cfg *dram;
	const struct addr_map *map;
	struct mem_store *store;
};

/* Reads the layout, makes the networks and every non-external node, binds them. 0 or a
 * negative code with err set (a configuration error names the file, line and key). */
int fabric_build(const struct fab_build_args *a, struct fabric **out, struct cs_err *err);
/* Binds external node `nth` of role `role` (its object made by the system). */
int fabric_attach(struct fabric *f, const char *role, unsigned nth, void *obj, struct cs_err *err);
/* Detaches the base-protocol checkers (before externals are destroyed). */
void fabric_detach_checkers(struct fabric *f);
void fabric_destroy(struct fabric *f);

/* Layout queries (not for hot paths). */
unsigned fabric_count(const struct fabric *f, const char *role);
/* Node `nth` of the role: its record (NULL if none). */
const struct fab_node *fabric_node(const struct fabric *f, const char *role, unsigned nth);
/* The controllers of a role, in order (valid for the fabric's life; NULL: none). */
void *const *fabric_objs(const struct fabric *f, const char *role);
/* The network of a role's first node (NULL: none), and network i. */
struct noc *fabric_role_net(const struct fabric *f, const char *role);
/* A node's endpoint on its network as the network numbers them (noc_ep_flits): fab_node.ep,
 * or for a target of a request/response network the GPU face's number (noc_gpu_ep). */
unsigned fabric_node_endpoint(const struct fabric *f, const struct fab_node *n);
unsigned fabric_nets(const struct fabric *f);
struct noc *fabric_net(const struct fabric *f, unsigned i);
/* Every node idle and nothing in any network. */
bool fabric_idle(const struct fabric *f);
/* Same-event counts (sampling.predictor = events), in the classes of analytic/evbound.h: the
 * nodes whose role declares `served`, those on a network (EVB_L2: L2 banks, TCC slices,
 * directories) then the memory controllers (EVB_DRAM), then every endpoint of every network,
 * its injected and its ejected flits (EVB_NOC). shape sets n[] of those three classes. Each
 * count is the ps it holds its resource over unit_ps (the initiators' cycle), so a layout
 * over them has cycles 1 in those classes; v receives the counts in that order. */
void fabric_event_shape(const struct fabric *f, unsigned n[EVB_CLASSES]);
void fabric_event_counts(const struct fabric *f, double unit_ps, double *v);

/* Every node's energy events and instances (their roles' fab_role_ops.energy; external nodes
 * not yet attached count nothing) and every network's (noc_energy), added to c. */
void fabric_energy(const struct fabric *f, struct energy_counts *c);
/* What every network carried, by kind of traffic (enum noc_traffic_kind), added to out. */
void fabric_traffic(const struct fabric *f, struct noc_traffic out[NOC_TRAFFIC_KINDS]);
/* The traffic for a run's result: {"noc": {kind: {packets, flits, bytes, payload_bytes,
 * link_bytes}} for every kind (bytes: header and payload; link_bytes: flits x the network's
 * flit bytes, what its links carry with the last flits' padding), "dram": {"read_bytes", "written_bytes"}}; and for its report, one line. */
json_t *fabric_traffic_json(const struct fabric *f);
void fabric_traffic_print(const struct fabric *f, FILE *out);
/* The bytes the DRAM channels' requests read and wrote so far. */
void fabric_dram_bytes(const struct fabric *f, double *read, double *written);
/* The memory controllers (DRAM channels) in order, and how many. */
struct dram_ctrl *const *fabric_channels(const struct fabric *f, unsigned *n);

/* An address range and its page attributes. */
struct fab_range {
	uint64_t base, end; /* [base, end) */
	unsigned home;	    /* the home group */
	bool cacheable, readonly;
};
const struct fab_range *fabric_range_of(const struct fabric *f, uint64_t addr);
unsigned fabric_ranges(const struct fabric *f);
/* An allocation [addr, addr + len) of a system's allocator: 0 when it lies inside one range,
 * else -CS_ECONFIG with the message in msg (the caller fails the run with it). */
int fabric_check_alloc(const struct fabric *f, uint64_t addr, uint64_t len, char *msg,
		       size_t msg_len);
const struct fab_range *fabric_range(const struct fabric *f, unsigned i);
/* The layout as built, for a run's result: {"groups": [{name, role, count, net, endpoints}],
 * "networks": [{name, endpoints}], "ranges": [{base, size, home, cacheable, readonly}]}. */
json_t *fabric_json(const struct fabric *f);
/* Group i's section name and role. */
unsigned fabric_groups(const struct fabric *f);
const char *fabric_group_name(const struct fabric *f, unsigned i);
const char *fabric_group_role(const struct fabric *f, unsigned i);
unsigned fabric_group_count(const struct fabric *f, unsigned i);

#endif
