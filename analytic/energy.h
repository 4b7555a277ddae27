/*
 * analytic/energy.h - the energy model: per-event dynamic energies times event counts, plus
 * static power per component times the simulated time (issue 7; docs/energy.md).
 *
 * The model is a table of events (one row each: name, component, energy per event at 40 nm,
 * how it scales to other nodes, what one event is, where the number comes from) and a table of
 * static powers (one row per component, per instance: per SM, per L1, per L2 bank, per router,
 * per DRAM channel). The configuration section `energy` picks a technology node (`node`, whose
 * built-in table gives every default) and may override any single value: `<event>_pj` for an
 * event, `<component>_static_w` for a static power. A key left at -1 takes the node's value.
 *
 * Counts come from the components themselves (struct energy_counts, below: each declares its
 * events through its ops table; docs/energy.md lists the rule of each). energy_compute() is
 * pure arithmetic:
 *
 *     event_j[e]    = count[e] * pj[e] * 1e-12
 *     dynamic_j[c]  = sum of event_j[e] over the events of component c, in table order
 *     static_w[c]   = inst[c] * per-instance static power of c
 *     static_j[c]   = static_w[c] * seconds
 *     total_j       = sum over components (in enum order) of dynamic_j[c] + static_j[c]
 *     half_j        = (sum of static_w) * seconds_half
 *
 * so the reported totals are exactly the sum of counts times energies, and the static part is
 * linear in the time. seconds_half is the half-width of the time estimate (hybrid and analytic
 * modes); the counts are taken as exact.
 */
#ifndef COHSCOPE_ANALYTIC_ENERGY_H
#define COHSCOPE_ANALYTIC_ENERGY_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "util/config.h"
#include "util/error.h"
#include "util/params.h"

/* Components of the breakdown: the GPU's (its SMs or CUs, their L1s or TCPs, the L2 banks or
 * TCC slices, the networks, the DRAM channels) and the CPU side's (cores, CorePairs, the system
 * directory, its victim LLC, the DMA engine). A system reports every one; those it does not
 * have are zero. */
enum energy_comp {
	EN_SM = 0,
	EN_L1,
	EN_L2,
	EN_NOC,
	EN_DRAM,
	EN_CPU,
	EN_COREPAIR,
	EN_DIR,
	EN_LLC,
	EN_DMA,
	EN_COMPS
};

/* Events. energy.c has one table row per event (the same order). */
enum energy_event {
	EN_CORE_ISSUE = 0, /* a warp instruction issued */
	EN_CORE_COMPUTE,   /* a compute issue slot: 32 lanes of ALU work */
	EN_CORE_LDST,	   /* a warp memory instruction: addresses, coalescing */
	EN_L1_TAG,	   /* L1 tag array probe (an access) or write (a fill) */
	EN_L1_DATA_READ,   /* L1 data array read (a load hit, a write-back) */
	EN_L1_DATA_WRITE,  /* L1 data array write (a fill, a store into a present line) */
	EN_L1_MSHR,	   /* L1 MSHR allocate, merge or look-up */
	EN_L1_TS_READ,	   /* L1 line timestamps / lease read with the tags (TC, G-TSC) */
	EN_L1_TS_WRITE,	   /* L1 line timestamps / lease written (TC, G-TSC) */
	EN_L1_WARP_TS,	   /* per-warp timestamp table access (G-TSC warp_ts, TC-Weak GWCT) */
	EN_L2_TAG,	   /* L2 tag probe (a request) or write (a fill) */
	EN_L2_DATA_READ,   /* L2 data read (a read answered with data, an atomic, a write-back) */
	EN_L2_DATA_WRITE,  /* L2 data write (a write, an atomic, a fill) */
	EN_L2_MSHR,	   /* L2 MSHR allocate, merge or look-up */
	EN_L2_TS_READ,	   /* L2 line timestamps / lease read (TC, G-TSC) */
	EN_L2_TS_WRITE,	   /* L2 line timestamps / lease written (TC, G-TSC) */
	EN_NOC_ROUTER,	   /* a flit through a router (buffer, allocation, crossbar) */
	EN_NOC_LINK,	   /* a flit over a router-to-router link */
	EN_DRAM_ACT,	   /* an ACT command */
	EN_DRAM_PRE,	   /* a PRE command */
	EN_DRAM_RD,	   /* a read burst (RD command) */
	EN_DRAM_WR,	   /* a write burst (WR command) */
	EN_DRAM_IO_BIT,	   /* a bit over the DRAM interface (either direction) */
	EN_CPU_INST,	   /* a CPU instruction committed (the core, not its caches) */
	EN_CP_L1D_TAG,	   /* a CorePair L1D tag probe or write */
	EN_CP_L1D_READ,	   /* an L1D data read */
	EN_CP_L1D_WRITE,   /* an L1D data write (a store, a fill) */
	EN_CP_L1I_READ,	   /* an instruction fetch through the L1I (tags and data) */
	EN_CP_L2_TAG,	   /* a CorePair L2 tag probe or write */
	EN_CP_L2_READ,	   /* an L2 data read */
	EN_CP_L2_WRITE,	   /* an L2 data write */
	EN_CP_TBE,	   /* a CorePair TBE allocate or look-up */
	EN_DIR_TBE,	   /* a directory transaction's TBE allocate or look-up */
	EN_DIR_ENTRY,	   /* a directory-cache entry read or written (owner, sharer tracking) */
	EN_LLC_TAG,	   /* an LLC tag probe or write */
	EN_LLC_READ,	   /* an LLC data read */
	EN_LLC_WRITE,	   /* an LLC data write */
	EN_DMA_LINE,	   /* a line through the DMA engine's buffer (written and read) */
	EN_EVENTS
};

/* Technology nodes with a built-in table. */
enum energy_node { EN_NODE_40NM = 0, EN_NODE_28NM, EN_NODE_22NM, EN_NODES };

/* How a 40 nm value moves to another node (docs/energy.md: the scaling rule). */
enum energy_scaling {
	EN_SCALE_LOGIC = 0, /* on-chip dynamic energy: as McPAT's core scales between nodes */
	EN_SCALE_LEAK,	    /* on-chip static power: as McPAT's core's leakage scales */
	EN_SCALE_DEVICE,    /* from the DRAM devices' currents (section dram): no table value */
	EN_SCALE_ARRAY,	    /* from CACTI's table for the configured array (energy_model_arrays) */
	EN_SCALE_TOOL,	    /* McPAT's value at each node (a table per node, energy.c) */
	EN_SCALES
};

struct energy_event_info {
	const char *name;  /* "l1_tag": the config key is name + "_pj" */
	unsigned comp;	   /* enum energy_comp */
	double pj_40nm;	   /* pJ per event at 40 nm */
	unsigned scaling;  /* enum energy_scaling */
	const char *what;  /* one event is ... */
	const char *count; /* where the count comes from (stat names) */
	const char *source;
};

struct energy_static_info {
	const char *name; /* "sm": the config key is name + "_static_w"; also the JSON name */
	const char *per;  /* "SM", "L1", "L2 bank", "router", "channel" */
	double w_40nm;	  /* W per instance at 40 nm */
	unsigned scaling; /* enum energy_scaling */
	const char *source;
};

/* The tables, indexed by enum energy_event / enum energy_comp / enum energy_node. */
extern const struct energy_event_info energy_events[EN_EVENTS];
extern const struct energy_static_info energy_statics[EN_COMPS];
extern const char *const energy_node_names[]; /* NULL-terminated: "40nm", "28nm", "22nm" */
/* Factor applied to a 40 nm value of the given scaling class at the given node. */
double energy_node_scale(unsigned node, unsigned scaling);

/* Section "energy": the node and the overrides (-1: the node's value). */
struct energy_cfg {
	unsigned node; /* enum energy_node */
	double pj[EN_EVENTS];
	double static_w[EN_COMPS];
};
extern const struct cs_param_table energy_params;

/* Effective values. */
struct energy_model {
	unsigned node;
	double pj[EN_EVENTS];	   /* pJ per event */
	double static_w[EN_COMPS]; /* W per instance */
	/* set by a key of section energy (not the node's value): the system leaves it alone
	 * where it would otherwise fill it in (the DRAM's, from its currents) */
	bool given_pj[EN_EVENTS], given_static[EN_COMPS];
};

/* The arrays the model charges per access, from the system's configuration: one SM's L1 and
 * one L2 bank (bytes, ways, line bytes, MSHR entries), and the warps of an SM (its per-warp
 * timestamp table). */
struct energy_arrays {
	bool has_l1;
	uint64_t l1_bytes, l2_bytes;
	unsigned l1_assoc, l2_assoc, l1_line, l2_line;
	unsigned l1_mshrs, l2_mshrs, warps;
};

/* The CPU side's arrays (systems cpu and apu on the APU memory side): one CorePair's L1D
 * (each of its two), L1I and L2 and its TBEs; the directory's TBEs and (tracking) its
 * directory cache of entries x entry_bytes; its victim LLC; the DMA engine's buffer. */
struct energy_cpu_arrays {
	uint64_t l1d_bytes, l1i_bytes, l2_bytes, llc_bytes;
	unsigned l1d_assoc, l1i_assoc, l2_assoc, llc_assoc, line;
	unsigned cp_tbes, dir_tbes;
	uint64_t dir_entries; /* 0: a stateless directory (no directory cache) */
	unsigned dir_entry_assoc, dir_entry_bytes;
	unsigned dma_lines; /* lines the DMA engine's buffer holds */
};

/*
 * Fills in the L1's and the L2's per-event energies and static powers that no key of section
 * energy set, from CACTI 7's table at the model's node (analytic/cacti.h; docs/energy.md
 * "Arrays"): tag and data reads and writes of the cache's arrays, the MSHRs' CAM search, the
 * timestamps as bits read and written beside the tags, the warp table as a RAM, and the
 * arrays' leakage. 0, or -1 when the table has no row of the node.
 */
int energy_model_arrays(struct energy_model *m, const struct energy_arrays *a);
/* The error line of a system whose arrays CACTI's table has no row for at the model's node:
 * -CS_ECONFIG. */
int energy_model_no_table(const struct energy_model *m, struct cs_err *err);
/* The same for the CPU side's arrays (CorePair, directory, LLC, DMA). 0, or -1 when the table
 * has no row of the node. */
int energy_model_cpu_arrays(struct energy_model *m, const struct energy_cpu_arrays *a);

/* Sets event e's energy, or component comp's static power per instance, unless a key of
 * section energy set it (what a system fills in: CACTI's arrays, the DRAM's currents). */
void energy_model_set_pj(struct energy_model *m, unsigned e, double pj);
void energy_model_set_static(struct energy_model *m, unsigned comp, double w);

/* The node's built-in values. */
void energy_model_defaults(unsigned node, struct energy_model *m);
/*
 * Load section `energy` of c and resolve it: every key at -1 takes the node's value; any other
 * negative value is an error naming where it was set ("--set energy.l1_tag_pj=-0.5: ..."). Bad
 * keys, types and choices are reported by the config loader. 0 or -CS_ECONFIG (or the loader's
 * code).
 */
int energy_model_load(struct cs_config *c, struct energy_model *m, struct cs_err *err);

/*
 * The events of a run, by enum energy_event, and the instances static power is charged for, by
 * enum energy_comp. Nothing here reads a statistic: every component declares its own events
 * and itself through its ops table (the stats contract of issue 38): the SM (gpu_sm_energy),
 * each protocol's L1 and L2 (gpu_l1_ops.energy, gpu_l2_ops.energy, required: a protocol without
 * them is refused when the system is built), every node the system builder makes
 * (fab_role_ops.energy, required of every role), the DRAM channels (dram_ctrl_energy), the CPU
 * cores (cpu_core_energy) and the networks (energy_add_noc, from what noc.h declares).
 */
struct energy_counts {
	double n[EN_EVENTS];
	double inst[EN_COMPS]; /* SMs, L1s, L2 banks, routers x physical networks, channels... */
};

/* The networks' figures, as they declare them (noc.h: the flits of every vnet, and
 * noc_link_flits), summed over the system's networks. */
struct energy_noc {
	double flits;	   /* flits sent, every vnet */
	double link_flits; /* flits over router-to-router links, every vnet */
	double routers;	   /* routers x physical networks (noc_routers x noc_phys_nets) */
};

static inline void energy_add(struct energy_counts *c, unsigned event, double n)
{
	c->n[event] += n;
}

/* A flit crosses hops + 1 routers and hops router-to-router links; the routers charge static
 * power. */
void energy_add_noc(struct energy_counts *c, const struct energy_noc *noc);

struct energy_report {
	unsigned node;
	double seconds, seconds_half;
	double count[EN_EVENTS];
	double pj[EN_EVENTS];
	double event_j[EN_EVENTS];
	double dynamic_j[EN_COMPS];
	double static_w[EN_COMPS]; /* all instances together */
	double static_j[EN_COMPS];
	double dynamic_total_j, static_total_j, total_j;
	double half_j; /* half-width from seconds_half (static part only) */
};

/* See the formulas at the top. seconds and seconds_half must be >= 0. */
void energy_compute(const struct energy_model *m, const struct energy_counts *c, double seconds,
		    double seconds_half, struct energy_report *out);

/* {component name: {"dynamic_j", "static_j", "static_w"}} in enum order; NULL when out of
 * memory. */
json_t *energy_components_json(const struct energy_report *r);
/* {event name: {"component", "count", "pj", "j"}} in table order; NULL when out of memory. */
json_t *energy_events_json(const struct energy_report *r);
/* A run's result keys: energy_j, energy_half_j, energy_dynamic_j, energy_static_j,
 * energy_node, energy_seconds, energy (energy_components_json), energy_events. */
void energy_report_json(json_t *result, const struct energy_report *r);
/* The report's two lines: the total (with its half-width when `interval`) and each component
 * the system has (dynamic + static, mJ). */
void energy_report_print(FILE *f, const struct energy_report *r, bool interval);

#endif
