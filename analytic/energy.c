/* analytic/energy.c - the energy model (see energy.h; the numbers and their sources:
 * docs/energy.md). */
#include "analytic/energy.h"

#include <stdio.h>
#include <string.h>

#include "analytic/cacti.h"

/* ---- the tables ------------------------------------------------------------------------------ */

/*
 * One row per event: X(ID, key, component, pJ at 40 nm, scaling, what one event is, count,
 * source); docs/energy.md gives the runs and arithmetic behind each. The 40 nm column is the GTX480-era baseline of the G-TSC
 * evaluation (GPGPU-Sim 3.2.2 + GPUWattch at 40 nm).
 */
#define ENERGY_EVENT_ROWS(X)                                                                       \
	X(CORE_ISSUE, core_issue, EN_SM, 1334.4, LOGIC,                                            \
	  "a warp instruction issued: instruction fetch, decode, scheduler, pipeline",             \
	  "sm.mem_insts + sm.compute_cycles + sm.fences + sm.barriers",                            \
	  "GPUWattch (its McPAT on the GTX480 XML, fitted factors): I-buffer and decode 3.61, "    \
	  "I-cache 63.43, scheduler 54.89, pipeline 1212.5 pJ a warp instruction")                 \
	X(CORE_COMPUTE, core_compute, EN_SM, 1836, LOGIC,                                          \
	  "a compute issue slot: 32 lanes of an FMA-class op with register operands",              \
	  "sm.compute_cycles",                                                                     \
	  "GPUWattch (fitted): an fma.f32, 32 FPU accesses x 29.58 + 96 register reads x 7.27 + "  \
	  "32 writes x 5.99 pJ")                                                                   \
	X(CORE_LDST, core_ldst, EN_SM, 454, LOGIC,                                                 \
	  "a warp memory instruction: 32 addresses, register reads, coalescing, LD/ST queue",      \
	  "sm.mem_insts",                                                                          \
	  "GPUWattch (fitted): a load's address (one FPU access, 29.58) and 32 register reads "    \
	  "and "                                                                                   \
	  "writes (7.27 + 5.99 pJ each); a store's is 495")                                        \
	X(L1_TAG, l1_tag, EN_L1, 0, ARRAY, "an L1 tag probe (all ways) or tag write",              \
	  "l1.accesses + l1.fills", "CACTI 7: the L1 geometry's tag array, a read")                \
	X(L1_DATA_READ, l1_data_read, EN_L1, 0, ARRAY, "an L1 data read (a whole line)",           \
	  "l1.load_hits + l1.writebacks", "CACTI 7: the L1's data array, a line-wide read")        \
	X(L1_DATA_WRITE, l1_data_write, EN_L1, 0, ARRAY, "an L1 data write (a whole line)",        \
	  "l1.fills + stores written into a present line", "CACTI 7: the data array, a write")     \
	X(L1_MSHR, l1_mshr, EN_L1, 0, ARRAY, "an L1 MSHR allocate, merge or look-up",              \
	  "L1 misses and pending writes + answers (docs/energy.md)",                               \
	  "CACTI 7: a CAM of l1.mshrs entries of 8 B, a search")                                   \
	X(L1_TS_READ, l1_ts_read, EN_L1, 0, ARRAY,                                                 \
	  "an L1 set's timestamps or leases read with the tags (32 bits a way)",                   \
	  "l1.accesses (tc, gtsc)", "CACTI 7: the tag array's read x 32 / its tag bits")           \
	X(L1_TS_WRITE, l1_ts_write, EN_L1, 0, ARRAY,                                               \
	  "an L1 line's timestamps or lease written (32 bits)",                                    \
	  "l1.fills (+ l1.renewal_answers for gtsc)",                                              \
	  "CACTI 7: the tag array's write x 32 / its tag bits")                                    \
	X(L1_WARP_TS, l1_warp_ts, EN_L1, 0, ARRAY,                                                 \
	  "a per-warp timestamp table access (G-TSC warp_ts, TC-Weak GWCT; 32 bits a warp)",       \
	  "gtsc: l1.accesses + fills + renewal_answers + write_acks; tc-weak: fills + write_acks", \
	  "CACTI 7: a RAM of core.warps x 4 B, a 4 B read")                                        \
	X(L2_TAG, l2_tag, EN_L2, 0, ARRAY, "an L2 tag probe (all ways) or tag write",              \
	  "l2.accesses + l2.fills", "CACTI 7: the bank geometry's tag array, a read")              \
	X(L2_DATA_READ, l2_data_read, EN_L2, 0, ARRAY, "an L2 data read (a whole line)",           \
	  "l2.reads - l2.gtsc.renewals + l2.atomics + l2.writebacks",                              \
	  "CACTI 7: the bank's data array, a line-wide read")                                      \
	X(L2_DATA_WRITE, l2_data_write, EN_L2, 0, ARRAY, "an L2 data write (a whole line)",        \
	  "l2.writes + l2.atomics + l2.fills", "CACTI 7: the data array, a write")                 \
	X(L2_MSHR, l2_mshr, EN_L2, 0, ARRAY, "an L2 MSHR allocate, merge or look-up",              \
	  "l2.read_misses + write_misses - write_allocs + atomic_misses + fills",                  \
	  "CACTI 7: a CAM of l2.mshrs entries of 8 B, a search")                                   \
	X(L2_TS_READ, l2_ts_read, EN_L2, 0, ARRAY,                                                 \
	  "an L2 set's timestamps or leases read with the tags (32 bits a way)",                   \
	  "l2.accesses (tc, gtsc)", "CACTI 7: the tag array's read x 32 / its tag bits")           \
	X(L2_TS_WRITE, l2_ts_write, EN_L2, 0, ARRAY, "an L2 line's timestamps or lease written",   \
	  "gtsc: l2.accesses + fills; tc: l2.tc.lease_extensions + fills",                         \
	  "CACTI 7: the tag array's write x 32 / its tag bits")                                    \
	X(NOC_ROUTER, noc_router, EN_NOC, 335.2, TOOL,                                             \
	  "a flit (32 B) through a router: buffer write and read, allocation, crossbar",           \
	  "flits of every vnet + router-to-router link flits (hops + 1 routers per flit; noc.h's " \
	  "declared traffic)",                                                                     \
	  "McPAT 1.3: a 5-port router of 256-bit flits, 16 entries a port, 1.4 GHz (45, 32, 22 "   \
	  "nm; "                                                                                   \
	  "40 and 28 between them in feature size)")                                               \
	X(NOC_LINK, noc_link, EN_NOC, 587.5, TOOL, "a flit (32 B) over a router-to-router link",   \
	  "noc_link_flits: the r<k>_{e,w,n,s} links of every vnet",                                \
	  "McPAT: its repeated global wire per mm x 4.6 mm (a tile of a 5 x 5 mesh on 530 mm2)")   \
	X(DRAM_ACT, dram_act, EN_DRAM, 0, DEVICE, "an ACT command (all the channel's devices)",    \
	  "dram.activations",                                                                      \
	  "DRAMPower: VDD (IDD0 - IDD3N) tRAS x devices, from section dram (docs/energy.md)")      \
	X(DRAM_PRE, dram_pre, EN_DRAM, 0, DEVICE,                                                  \
	  "a PRE command, or a bank a refresh's PREA closes", "dram.precharges + dram.prea_banks", \
	  "DRAMPower: VDD (IDD0 - IDD2N) (tRC - tRAS) x devices, from section dram")               \
	X(DRAM_RD, dram_rd, EN_DRAM, 0, DEVICE, "a read burst (RD command)", "dram.rd_bursts",     \
	  "DRAMPower: VDD (IDD4R - IDD3N) burst x devices, from section dram")                     \
	X(DRAM_WR, dram_wr, EN_DRAM, 0, DEVICE, "a write burst (WR command)", "dram.wr_bursts",    \
	  "DRAMPower: VDD (IDD4W - IDD3N) burst x devices, from section dram")                     \
	X(DRAM_IO_BIT, dram_io_bit, EN_DRAM, 0, DEVICE,                                            \
	  "a bit over the DRAM interface (termination, drivers, PHY; either direction)",           \
	  "8 x (dram.bytes_read + dram.bytes_written)",                                            \
	  "section dram's io_pj_bit: energydram's termination plus McPAT's PHY")                   \
	X(CPU_INST, cpu_inst, EN_CPU, 1305.7, TOOL,                                                \
	  "a CPU instruction committed: its core's fetch, "                                        \
	  "decode, rename, issue, execute and commit work, without the caches",                    \
	  "core.insts (every op the core commits: loads, stores, atomics, fences, compute)",       \
	  "McPAT 1.3, its Penryn example (see docs/energy.md, CPU cores)")                         \
	X(CP_L1D_TAG, corepair_l1d_tag, EN_COREPAIR, 0, ARRAY,                                     \
	  "a CorePair L1D tag probe or write",                                                     \
	  "corepair: l1_hits + l2_hits + misses + upgrades (every data access probes; a miss "     \
	  "fills)",                                                                                \
	  "CACTI 7: the L1D geometry's tag array, a read")                                         \
	X(CP_L1D_READ, corepair_l1d_read, EN_COREPAIR, 0, ARRAY, "an L1D data read (a line)",      \
	  "corepair: l1_hits", "CACTI 7: the L1D's data array, a read")                            \
	X(CP_L1D_WRITE, corepair_l1d_write, EN_COREPAIR, 0, ARRAY, "an L1D data write (a line)",   \
	  "corepair: l2_hits + misses + upgrades (a fill of the core's L1D)",                      \
	  "CACTI 7: the L1D's data array, a write")                                                \
	X(CP_L1I_READ, corepair_l1i_read, EN_COREPAIR, 0, ARRAY,                                   \
	  "an instruction fetch through the L1I: a tag probe and a data read",                     \
	  "corepair: l1i_hits + rdblks", "CACTI 7: the L1I's tag and data arrays, a read each")    \
	X(CP_L2_TAG, corepair_l2_tag, EN_COREPAIR, 0, ARRAY, "a CorePair L2 tag probe or write",   \
	  "corepair: l2_hits + misses + upgrades + probes received + victims",                     \
	  "CACTI 7: the L2 geometry's tag array, a read")                                          \
	X(CP_L2_READ, corepair_l2_read, EN_COREPAIR, 0, ARRAY, "an L2 data read (a line)",         \
	  "corepair: l2_hits + victims + probe_data", "CACTI 7: the L2's data array, a read")      \
	X(CP_L2_WRITE, corepair_l2_write, EN_COREPAIR, 0, ARRAY, "an L2 data write (a line)",      \
	  "corepair: misses + upgrades (the answer's data)",                                       \
	  "CACTI 7: the L2's data array, a write")                                                 \
	X(CP_TBE, corepair_tbe, EN_COREPAIR, 0, ARRAY, "a CorePair TBE allocate or look-up",       \
	  "corepair: misses + upgrades + victims (a TBE each)",                                    \
	  "CACTI 7: a CAM of corepair.tbes entries of 8 B, a search")                              \
	X(DIR_TBE, dir_tbe, EN_DIR, 0, ARRAY, "a directory transaction's TBE allocate or look-up", \
	  "dir: transactions started + probe acks received",                                       \
	  "CACTI 7: a CAM of dir.tbes entries of 8 B, a search")                                   \
	X(DIR_ENTRY, dir_entry, EN_DIR, 0, ARRAY,                                                  \
	  "a directory-cache entry read or written (dir.tracking owner or sharers)",               \
	  "dir: transactions started x 2 (a look-up and an update) when tracking, else 0",         \
	  "CACTI 7: a cache of dir.entries entries, dir.entry_assoc ways, a read")                 \
	X(LLC_TAG, llc_tag, EN_LLC, 0, ARRAY, "an LLC tag probe or write",                         \
	  "dir: llc_hits + llc_misses + LLC line writes", "CACTI 7: the LLC's tag array, a read")  \
	X(LLC_READ, llc_read, EN_LLC, 0, ARRAY, "an LLC data read (a line)", "dir: llc_hits",      \
	  "CACTI 7: the LLC's data array, a read")                                                 \
	X(LLC_WRITE, llc_write, EN_LLC, 0, ARRAY, "an LLC data write (a line)",                    \
	  "dir: LLC line writes (every cause)", "CACTI 7: the LLC's data array, a write")          \
	X(DMA_LINE, dma_line, EN_DMA, 0, ARRAY,                                                    \
	  "a line through the DMA engine's buffer: written, then read",                            \
	  "dma: lines_read + lines_written",                                                       \
	  "CACTI 7: a RAM of dma.window lines, a write and a read")

/* One row per component: X(ID, key, per what, W per instance at 40 nm, source). */
#define ENERGY_STATIC_ROWS(X)                                                                      \
	X(SM, sm, "SM", 1.57, LEAK,                                                                \
	  "GPUWattch's idle SM power for the GTX480 (idle_core_power = 1.59 W in GPGPU-Sim's "     \
	  "configs/GTX480/gpuwattch_gtx480.xml) less the L1's 0.02 W of the model before CACTI")   \
	X(L1, l1, "L1", 0, ARRAY,                                                                  \
	  "CACTI 7: leakage of the L1's tag and data arrays, MSHR CAM and warp table")             \
	X(L2, l2, "L2 bank", 0, ARRAY,                                                             \
	  "CACTI 7: leakage of the bank's tag and data arrays and MSHR CAM")                       \
	X(NOC, noc, "router (per network)", 0.307, TOOL,                                           \
	  "McPAT: leakage of the 5-port 256-bit router at 360 K (40 nm: GPUWattch's McPAT; 22 "    \
	  "nm: McPAT 1.3; 28 nm between)")                                                         \
	X(DRAM, dram, "channel (its devices' background and refresh)", 0, DEVICE,                  \
	  "DRAMPower: VDD IDD3N while a bank is open, VDD IDD2N while none is, refresh "           \
	  "VDD (IDD5 - IDD3N) tRFC per tREFI, x devices, from section dram")                       \
	X(CPU, cpu, "CPU core", 2.397, TOOL,                                                       \
	  "McPAT 1.3, its Penryn example: the core's leakage without its caches (docs/energy.md)") \
	X(COREPAIR, corepair, "CorePair", 0, ARRAY,                                                \
	  "CACTI 7: leakage of its two L1Ds, its L1I, its L2 and its TBE CAM")                     \
	X(DIR, directory, "directory", 0, ARRAY,                                                   \
	  "CACTI 7: leakage of its TBE CAM and (tracking) its directory cache")                    \
	X(LLC, llc, "LLC (one per directory)", 0, ARRAY,                                           \
	  "CACTI 7: leakage of the victim LLC's tag and data arrays")                              \
	X(DMA, dma, "DMA engine", 0, ARRAY, "CACTI 7: leakage of its buffer of dma.window lines")

#define EV_ROW(ID, key, comp_, pj_, sc, what_, count_, src) \
	[EN_##ID] = {#key, comp_, pj_, EN_SCALE_##sc, what_, count_, src},
const struct energy_event_info energy_events[EN_EVENTS] = {ENERGY_EVENT_ROWS(EV_ROW)};

#define ST_ROW(ID, key, per_, w_, sc, src) [EN_##ID] = {#key, per_, w_, EN_SCALE_##sc, src},
const struct energy_static_info energy_statics[EN_COMPS] = {ENERGY_STATIC_ROWS(ST_ROW)};

#define EV_ONE(...) +1
_Static_assert(0 ENERGY_EVENT_ROWS(EV_ONE) == EN_EVENTS, "one row per enum energy_event");
_Static_assert(0 ENERGY_STATIC_ROWS(EV_ONE) == EN_COMPS, "one row per enum energy_comp");

const char *const energy_node_names[] = {"40nm", "28nm", "22nm", NULL};

/*
 * Scaling from 40 nm for the SM's events and static power, which have a 40 nm value only
 * (GPUWattch's): as McPAT scales its Penryn core between the same nodes (the TOOL table's
 * cpu_inst and cpu rows): dynamic 673.0 / 1305.7 = 0.515 at 28 nm, 412.4 / 1305.7 = 0.316 at
 * 22 nm; leakage 1.186 / 2.397 = 0.495 and 0.564 / 2.397 = 0.235 (docs/energy.md, "Nodes").
 */
static const double node_scale[EN_NODES][EN_SCALES] = {
    [EN_NODE_40NM] = {[EN_SCALE_LOGIC] = 1, [EN_SCALE_LEAK] = 1},
    [EN_NODE_28NM] = {[EN_SCALE_LOGIC] = 673.0 / 1305.7, [EN_SCALE_LEAK] = 1.186 / 2.397},
    [EN_NODE_22NM] = {[EN_SCALE_LOGIC] = 412.4 / 1305.7, [EN_SCALE_LEAK] = 0.564 / 2.397},
    /* EN_SCALE_DEVICE and EN_SCALE_ARRAY: 0, the system fills the value in (its DRAM
     * section's currents, CACTI's table); EN_SCALE_TOOL: the tables above */
};

/*
 * Values McPAT computed at each node (EN_SCALE_TOOL; docs/energy.md gives the runs and the
 * arithmetic): the router and link per flit and the router's leakage (McPAT 1.3 at 45, 32 and
 * 22 nm, GPUWattch's McPAT at 40 nm; 40 and 28 nm between their neighbours in feature size where
 * no run gave them), and the CPU core per committed instruction and its leakage, without its
 * caches (McPAT 1.3's Penryn at 45, 32, 22 nm; 40 and 28 nm between).
 */
static const double tool_pj[EN_EVENTS][EN_NODES] = {
    [EN_NOC_ROUTER] = {335.2, 197.0, 133.9},
    [EN_NOC_LINK] = {587.5, 453.7, 389.0},
    [EN_CPU_INST] = {1305.7, 673.0, 412.4},
};
static const double tool_w[EN_COMPS][EN_NODES] = {
    [EN_NOC] = {0.307, 0.214, 0.130},
    [EN_CPU] = {2.397, 1.186, 0.564},
};

double energy_node_scale(unsigned node, unsigned scaling)
{
	if (node >= EN_NODES || scaling >= EN_SCALES)
		return 0;
	return node_scale[node][scaling];
}

/* ---- parameters ------------------------------------------------------------------------------ */

/* A key's help: -1 takes the node's table value, or for the DRAM's the currents' */
#define EN_DEFAULT_LOGIC(v) "; -1: the node's value (40nm: " #v ")"
#define EN_DEFAULT_LEAK(v)  EN_DEFAULT_LOGIC(v)
#define EN_DEFAULT_DEVICE(v) \
	"; -1: from section dram (its currents and timings by DRAMPower's method; io_pj_bit)"
#define EN_DEFAULT_ARRAY(v) "; -1: from CACTI 7's table for the configured geometry at the node"
#define EN_DEFAULT_TOOL(v)  "; -1: McPAT's value at the node (40nm: " #v ")"

#define EV_PARAM(ID, key, comp_, pj_, sc, what_, count_, src)               \
	{#key "_pj", CS_P_DOUBLE, offsetof(struct energy_cfg, pj[EN_##ID]), \
	 "-1",	     "pJ",	  what_ EN_DEFAULT_##sc(pj_),               \
	 -1,	     1e9,	  NULL},
#define ST_PARAM(ID, key, per_, w_, sc, src)             \
	{#key "_static_w",                               \
	 CS_P_DOUBLE,                                    \
	 offsetof(struct energy_cfg, static_w[EN_##ID]), \
	 "-1",                                           \
	 "W",                                            \
	 "static power per " per_ EN_DEFAULT_##sc(w_),   \
	 -1,                                             \
	 1e6,                                            \
	 NULL},

static const struct cs_param energy_rows[] = {
    {"node", CS_P_ENUM, offsetof(struct energy_cfg, node), "40nm", "",
     "technology node: every array from CACTI 7 at 40, 28 or 22 nm, the NoC's and the CPU "
     "cores' from McPAT at the node, the SMs' from GPUWattch's 40 nm values scaled as McPAT's "
     "core (docs/energy.md)",
     0, 0, energy_node_names},
    ENERGY_EVENT_ROWS(EV_PARAM) ENERGY_STATIC_ROWS(ST_PARAM){NULL},
};

const struct cs_param_table energy_params = {
    .section = "energy",
    .help = "the energy model: pJ per event and static W per component (docs/energy.md)",
    .params = energy_rows,
    .size = sizeof(struct energy_cfg),
};

/* ---- the model ------------------------------------------------------------------------------- */

void energy_model_defaults(unsigned node, struct energy_model *m)
{
	memset(m, 0, sizeof(*m));
	if (node >= EN_NODES)
		node = EN_NODE_40NM;
	m->node = node;
	for (unsigned e = 0; e < EN_EVENTS; e++)
		m->pj[e] = energy_events[e].pj_40nm * node_scale[node][energy_events[e].scaling];
	for (unsigned c = 0; c < EN_COMPS; c++)
		m->static_w[c] =
		    energy_statics[c].w_40nm * node_scale[node][energy_statics[c].scaling];
	for (unsigned e = 0; e < EN_EVENTS; e++)
		if (energy_events[e].scaling == EN_SCALE_TOOL)
			m->pj[e] = tool_pj[e][node];
	for (unsigned c = 0; c < EN_COMPS; c++)
		if (energy_statics[c].scaling == EN_SCALE_TOOL)
			m->static_w[c] = tool_w[c][node];
}

/* -1 keeps the node's value; other negative values are errors. */
static int take(struct cs_config *c, const char *key, double v, double *dst, bool *given,
		struct cs_err *err)
{
	char where[CS_WHERE_MAX];

	if (v == -1)
		return 0;
	if (v < 0) {
		cs_config_origin(c, "energy", key, where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must be >= 0, or -1 for the node's value",
				  where);
	}
	*dst = v;
	*given = true;
	return 0;
}

int energy_model_load(struct cs_config *c, struct energy_model *m, struct cs_err *err)
{
	struct energy_cfg cfg;
	char key[64];
	int rc;

	rc = cs_config_section(c, &energy_params, &cfg, err);
	if (rc)
		return rc;
	energy_model_defaults(cfg.node, m);
	for (unsigned e = 0; e < EN_EVENTS; e++) {
		snprintf(key, sizeof(key), "%s_pj", energy_events[e].name);
		rc = take(c, key, cfg.pj[e], &m->pj[e], &m->given_pj[e], err);
		if (rc)
			return rc;
	}
	for (unsigned k = 0; k < EN_COMPS; k++) {
		snprintf(key, sizeof(key), "%s_static_w", energy_statics[k].name);
		rc = take(c, key, cfg.static_w[k], &m->static_w[k], &m->given_static[k], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the arrays, from CACTI ------------------------------------------------------------------ */

static const unsigned node_nm[EN_NODES] = {
    [EN_NODE_40NM] = 40, [EN_NODE_28NM] = 28, [EN_NODE_22NM] = 22};

/* Timestamp or lease bits per line kept beside the tags (G-TSC's wts and rts of 16 bits; TC's
 * 32-bit lease end) and of a warp's entry in the per-warp table (TC-Weak's 32-bit GWCT). */
#define EN_TS_BITS	 32
#define EN_WARP_TS_BYTES 4

int energy_model_no_table(const struct energy_model *m, struct cs_err *err)
{
	return cs_err_set(
	    err, -CS_ECONFIG,
	    "energy.node = \"%s\": CACTI's table (analytic/cacti/cacti-table.csv) has "
	    "no arrays of that node",
	    energy_node_names[m->node < EN_NODES ? m->node : EN_NODE_40NM]);
}

void energy_model_set_pj(struct energy_model *m, unsigned e, double pj)
{
	if (!m->given_pj[e])
		m->pj[e] = pj;
}

void energy_model_set_static(struct energy_model *m, unsigned comp, double w)
{
	if (!m->given_static[comp])
		m->static_w[comp] = w;
}

/* One cache's events (tag, data read, data write, MSHR, timestamp read and write: consecutive
 * in enum energy_event from `first`) and its static power, with `other_w` of its other arrays'
 * leakage (the L1's warp table). */
static int cache_events(struct energy_model *m, unsigned node, uint64_t bytes, unsigned assoc,
			unsigned line, unsigned mshrs, unsigned first, unsigned ts_read,
			unsigned comp, double other_w)
{
	struct cacti_array tag, data, cam;
	double ts = 0;

	if (cacti_cache(node, bytes, assoc, line, &tag, &data) || cacti_cam(node, mshrs, &cam))
		return -1;
	if (tag.tag_bits > 0)
		ts = EN_TS_BITS / tag.tag_bits;
	energy_model_set_pj(m, first, tag.read_pj);
	energy_model_set_pj(m, first + 1, data.read_pj);
	energy_model_set_pj(m, first + 2, data.write_pj);
	energy_model_set_pj(m, first + 3, cam.search_pj);
	energy_model_set_pj(m, ts_read, tag.read_pj * ts);
	energy_model_set_pj(m, ts_read + 1, tag.write_pj * ts);
	energy_model_set_static(m, comp, tag.leak_w + data.leak_w + cam.leak_w + other_w);
	return 0;
}

int energy_model_arrays(struct energy_model *m, const struct energy_arrays *a)
{
	unsigned node = node_nm[m->node < EN_NODES ? m->node : EN_NODE_40NM];
	struct cacti_array warp;

	_Static_assert(EN_L1_DATA_READ == EN_L1_TAG + 1 && EN_L1_MSHR == EN_L1_TAG + 3 &&
			   EN_L1_TS_WRITE == EN_L1_TS_READ + 1 &&
			   EN_L2_DATA_READ == EN_L2_TAG + 1 && EN_L2_MSHR == EN_L2_TAG + 3 &&
			   EN_L2_TS_WRITE == EN_L2_TS_READ + 1,
		       "a cache's events in the order cache_events sets them");
	if (cache_events(m, node, a->l2_bytes, a->l2_assoc, a->l2_line, a->l2_mshrs, EN_L2_TAG,
			 EN_L2_TS_READ, EN_L2, 0))
		return -1;
	if (!a->has_l1)
		return 0;
	if (cacti_ram(node, (uint64_t)a->warps * EN_WARP_TS_BYTES, EN_WARP_TS_BYTES, &warp) ||
	    cache_events(m, node, a->l1_bytes, a->l1_assoc, a->l1_line, a->l1_mshrs, EN_L1_TAG,
			 EN_L1_TS_READ, EN_L1, warp.leak_w))
		return -1;
	energy_model_set_pj(m, EN_L1_WARP_TS, warp.read_pj);
	return 0;
}

/* The CPU side's arrays, from CACTI as energy_model_arrays does (energy.h). */
int energy_model_cpu_arrays(struct energy_model *m, const struct energy_cpu_arrays *a)
{
	unsigned node = node_nm[m->node < EN_NODES ? m->node : EN_NODE_40NM];
	struct cacti_array t1, d1, ti, di, t2, d2, tl, dl, cp_cam, dir_cam, dma;
	struct cacti_array te = {0}, de = {0};

	_Static_assert(
	    EN_CP_L1D_READ == EN_CP_L1D_TAG + 1 && EN_CP_L1D_WRITE == EN_CP_L1D_TAG + 2 &&
		EN_CP_L2_READ == EN_CP_L2_TAG + 1 && EN_CP_L2_WRITE == EN_CP_L2_TAG + 2 &&
		EN_LLC_READ == EN_LLC_TAG + 1 && EN_LLC_WRITE == EN_LLC_TAG + 2,
	    "a cache's events in tag, read, write order");
	if (cacti_cache(node, a->l1d_bytes, a->l1d_assoc, a->line, &t1, &d1) ||
	    cacti_cache(node, a->l1i_bytes, a->l1i_assoc, a->line, &ti, &di) ||
	    cacti_cache(node, a->l2_bytes, a->l2_assoc, a->line, &t2, &d2) ||
	    cacti_cache(node, a->llc_bytes, a->llc_assoc, a->line, &tl, &dl) ||
	    cacti_cam(node, a->cp_tbes, &cp_cam) || cacti_cam(node, a->dir_tbes, &dir_cam) ||
	    cacti_ram(node, (uint64_t)a->dma_lines * a->line, a->line, &dma))
		return -1;
	if (a->dir_entries && cacti_cache(node, a->dir_entries * a->dir_entry_bytes,
					  a->dir_entry_assoc, a->dir_entry_bytes, &te, &de))
		return -1;
	energy_model_set_pj(m, EN_CP_L1D_TAG, t1.read_pj);
	energy_model_set_pj(m, EN_CP_L1D_READ, d1.read_pj);
	energy_model_set_pj(m, EN_CP_L1D_WRITE, d1.write_pj);
	energy_model_set_pj(m, EN_CP_L1I_READ, ti.read_pj + di.read_pj);
	energy_model_set_pj(m, EN_CP_L2_TAG, t2.read_pj);
	energy_model_set_pj(m, EN_CP_L2_READ, d2.read_pj);
	energy_model_set_pj(m, EN_CP_L2_WRITE, d2.write_pj);
	energy_model_set_pj(m, EN_CP_TBE, cp_cam.search_pj);
	energy_model_set_pj(m, EN_DIR_TBE, dir_cam.search_pj);
	energy_model_set_pj(m, EN_DIR_ENTRY, te.read_pj + de.read_pj);
	energy_model_set_pj(m, EN_LLC_TAG, tl.read_pj);
	energy_model_set_pj(m, EN_LLC_READ, dl.read_pj);
	energy_model_set_pj(m, EN_LLC_WRITE, dl.write_pj);
	energy_model_set_pj(m, EN_DMA_LINE, dma.read_pj + dma.write_pj);
	energy_model_set_static(m, EN_COREPAIR,
				2 * (t1.leak_w + d1.leak_w) + ti.leak_w + di.leak_w + t2.leak_w +
				    d2.leak_w + cp_cam.leak_w);
	energy_model_set_static(m, EN_DIR, dir_cam.leak_w + te.leak_w + de.leak_w);
	energy_model_set_static(m, EN_LLC, tl.leak_w + dl.leak_w);
	energy_model_set_static(m, EN_DMA, dma.leak_w);
	return 0;
}

/* ---- counts ------------------------------------------------------------------------------- */

void energy_add_noc(struct energy_counts *c, const struct energy_noc *noc)
{
	c->n[EN_NOC_LINK] += noc->link_flits;
	c->n[EN_NOC_ROUTER] += noc->link_flits + noc->flits;
	c->inst[EN_NOC] += noc->routers;
}

/* ---- the arithmetic -------------------------------------------------------------------------- */

void energy_compute(const struct energy_model *m, const struct energy_counts *c, double seconds,
		    double seconds_half, struct energy_report *out)
{
	double static_w_total = 0;

	memset(out, 0, sizeof(*out));
	out->node = m->node;
	out->seconds = seconds;
	out->seconds_half = seconds_half;
	for (unsigned e = 0; e < EN_EVENTS; e++) {
		out->count[e] = c->n[e];
		out->pj[e] = m->pj[e];
		out->event_j[e] = c->n[e] * m->pj[e] * 1e-12;
		out->dynamic_j[energy_events[e].comp] += out->event_j[e];
	}
	for (unsigned k = 0; k < EN_COMPS; k++) {
		out->static_w[k] = c->inst[k] * m->static_w[k];
		out->static_j[k] = out->static_w[k] * seconds;
		static_w_total += out->static_w[k];
		out->dynamic_total_j += out->dynamic_j[k];
		out->static_total_j += out->static_j[k];
		out->total_j += out->dynamic_j[k] + out->static_j[k];
	}
	out->half_j = static_w_total * seconds_half;
}

json_t *energy_components_json(const struct energy_report *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (unsigned k = 0; k < EN_COMPS; k++) {
		json_t *c = json_pack("{s:f, s:f, s:f}", "dynamic_j", r->dynamic_j[k], "static_j",
				      r->static_j[k], "static_w", r->static_w[k]);

		if (!c || json_object_set_new(o, energy_statics[k].name, c)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *energy_events_json(const struct energy_report *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (unsigned e = 0; e < EN_EVENTS; e++) {
		json_t *v = json_pack("{s:s, s:f, s:f, s:f}", "component",
				      energy_statics[energy_events[e].comp].name, "count",
				      r->count[e], "pj", r->pj[e], "j", r->event_j[e]);

		if (!v || json_object_set_new(o, energy_events[e].name, v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

void energy_report_json(json_t *result, const struct energy_report *r)
{
	json_object_set_new(result, "energy_j", json_real(r->total_j));
	json_object_set_new(result, "energy_half_j", json_real(r->half_j));
	json_object_set_new(result, "energy_dynamic_j", json_real(r->dynamic_total_j));
	json_object_set_new(result, "energy_static_j", json_real(r->static_total_j));
	json_object_set_new(result, "energy_node", json_string(energy_node_names[r->node]));
	json_object_set_new(result, "energy_seconds", json_real(r->seconds));
	json_object_set_new(result, "energy", energy_components_json(r));
	json_object_set_new(result, "energy_events", energy_events_json(r));
}

void energy_report_print(FILE *f, const struct energy_report *r, bool interval)
{
	if (interval)
		fprintf(f, "  energy            %.4g +- %.2g mJ (%s; dynamic %.4g, static %.4g)\n",
			r->total_j * 1e3, r->half_j * 1e3, energy_node_names[r->node],
			r->dynamic_total_j * 1e3, r->static_total_j * 1e3);
	else
		fprintf(f, "  energy            %.4g mJ (%s; dynamic %.4g, static %.4g)\n",
			r->total_j * 1e3, energy_node_names[r->node], r->dynamic_total_j * 1e3,
			r->static_total_j * 1e3);
	fprintf(f, "    dynamic+static ");
	for (unsigned k = 0; k < EN_COMPS; k++)
		if (r->dynamic_j[k] > 0 || r->static_w[k] > 0)
			fprintf(f, " %s %.4g+%.4g", energy_statics[k].name, r->dynamic_j[k] * 1e3,
				r->static_j[k] * 1e3);
	fprintf(f, " mJ\n");
}
