/* analytic/energy.c - the energy model (see energy.h; the numbers and their sources:
 * docs/energy.md). */
#include "analytic/energy.h"

#include <stdio.h>
#include <string.h>

#include "analytic/cacti.h"

/* ---- the tables ------------------------------------------------------------------------------ */

/*
 * One row per event: X(ID, key, component, pJ at 40 nm, scaling, what one event is, count,
 * source). Every number is an estimate unless its source says otherwise; docs/energy.md gives
 * the reasoning behind each. The 40 nm column is the GTX480-era baseline of the G-TSC
 * evaluation (GPGPU-Sim 3.2.2 + GPUWattch at 40 nm).
 */
#define ENERGY_EVENT_ROWS(X)                                                                       \
	X(CORE_ISSUE, core_issue, EN_SM, 100, LOGIC,                                               \
	  "a warp instruction issued: instruction fetch, decode, scoreboard, scheduler",           \
	  "sm.mem_insts + sm.compute_cycles + sm.fences + sm.barriers",                            \
	  "estimate: instruction RAM ~4 pJ and a few tens of pJ of decode and scheduling "         \
	  "(Keckler/DARPA 2008 exascale figures, 30 nm), x2 for 40 nm and control overhead")       \
	X(CORE_COMPUTE, core_compute, EN_SM, 1000, LOGIC,                                          \
	  "a compute issue slot: 32 lanes of an FMA-class op with register operands",              \
	  "sm.compute_cycles",                                                                     \
	  "estimate: ~10 pJ per lane for the op and its register file accesses (Horowitz 2014, "   \
	  "45 nm; Keckler, 30 nm) x32 lanes, x3 for operand collectors, pipeline and clock as "    \
	  "GPUWattch charges per instruction")                                                     \
	X(CORE_LDST, core_ldst, EN_SM, 400, LOGIC,                                                 \
	  "a warp memory instruction: 32 addresses, register reads, coalescing, LD/ST queue",      \
	  "sm.mem_insts", "estimate: 32 lanes of address arithmetic and register reads")           \
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
	X(NOC_ROUTER, noc_router, EN_NOC, 50, LOGIC,                                               \
	  "a flit (32 B) through a router: buffer write and read, allocation, crossbar",           \
	  "flits of every vnet + router-to-router link flits (hops + 1 routers per flit; noc.h's " \
	  "declared traffic)",                                                                     \
	  "estimate: ~0.2 pJ/bit for a 5-port virtual-channel router at 40 nm (Orion/DSENT-class " \
	  "figures)")                                                                              \
	X(NOC_LINK, noc_link, EN_NOC, 90, LOGIC, "a flit (32 B) over a router-to-router link",     \
	  "noc_link_flits: the r<k>_{e,w,n,s} links of every vnet",                                \
	  "estimate: ~80 fJ/bit/mm full-swing wire (Keckler: 18-110 fJ/bit/mm) x256 bits x ~4.5 "  \
	  "mm (a 24-node mesh on a ~530 mm2 die)")                                                 \
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
	X(DRAM_IO_BIT, dram_io_bit, EN_DRAM, 6, OFFCHIP,                                           \
	  "a bit over the GDDR5 interface (drivers, termination, PHY; either direction)",          \
	  "8 x (dram.bytes_read + dram.bytes_written)",                                            \
	  "estimate: GDDR5 at ~10.5 GB/s/W (~12 pJ/bit in all, AMD's HBM comparison) minus the "   \
	  "array and activation shares")

/* One row per component: X(ID, key, per what, W per instance at 40 nm, source). */
#define ENERGY_STATIC_ROWS(X)                                                                    \
	X(SM, sm, "SM", 1.57, LEAK,                                                              \
	  "GPUWattch's idle SM power for the GTX480 (idle_core_power = 1.59 W in GPGPU-Sim's "   \
	  "configs/GTX480/gpuwattch_gtx480.xml) less the L1's 0.02 W of the model before CACTI") \
	X(L1, l1, "L1", 0, ARRAY,                                                                \
	  "CACTI 7: leakage of the L1's tag and data arrays, MSHR CAM and warp table")           \
	X(L2, l2, "L2 bank", 0, ARRAY,                                                           \
	  "CACTI 7: leakage of the bank's tag and data arrays and MSHR CAM")                     \
	X(NOC, noc, "router (per network)", 0.03, LEAK,                                          \
	  "estimate: buffers and crossbar of a 5-port 256-bit router at 40 nm")                  \
	X(DRAM, dram, "channel (its devices' background and refresh)", 0, DEVICE,                \
	  "DRAMPower: VDD IDD3N while a bank is open, VDD IDD2N while none is, refresh "         \
	  "VDD (IDD5 - IDD3N) tRFC per tREFI, x devices, from section dram")

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
 * Scaling from 40 nm (estimates, docs/energy.md): on-chip dynamic energy as C V^2 with C
 * proportional to the feature size and V of 1.0 V (40 nm), 0.93 V (28 nm) and 0.9 V (22 nm):
 * 0.7 x 0.86 = 0.6 and 0.55 x 0.81 = 0.45; static power as the area (0.5 and 0.3 of 40 nm's)
 * times a higher leakage density, rounded to 0.7 and 0.5; the DRAM stays GDDR5.
 */
static const double node_scale[EN_NODES][EN_SCALES] = {
    [EN_NODE_40NM] = {[EN_SCALE_LOGIC] = 1, [EN_SCALE_LEAK] = 1, [EN_SCALE_OFFCHIP] = 1},
    [EN_NODE_28NM] = {[EN_SCALE_LOGIC] = 0.6, [EN_SCALE_LEAK] = 0.7, [EN_SCALE_OFFCHIP] = 1},
    [EN_NODE_22NM] = {[EN_SCALE_LOGIC] = 0.45, [EN_SCALE_LEAK] = 0.5, [EN_SCALE_OFFCHIP] = 1},
    /* EN_SCALE_DEVICE and EN_SCALE_ARRAY: 0, the system fills the value in (its DRAM
     * section's currents, CACTI's table) */
};

double energy_node_scale(unsigned node, unsigned scaling)
{
	if (node >= EN_NODES || scaling >= EN_SCALES)
		return 0;
	return node_scale[node][scaling];
}

/* ---- parameters ------------------------------------------------------------------------------ */

/* A key's help: -1 takes the node's table value, or for the DRAM's the currents' */
#define EN_DEFAULT_LOGIC(v)   "; -1: the node's value (40nm: " #v ")"
#define EN_DEFAULT_LEAK(v)    EN_DEFAULT_LOGIC(v)
#define EN_DEFAULT_OFFCHIP(v) EN_DEFAULT_LOGIC(v)
#define EN_DEFAULT_DEVICE(v)  "; -1: from section dram's currents and timings (DRAMPower)"
#define EN_DEFAULT_ARRAY(v)   "; -1: from CACTI 7's table for the configured geometry at the node"

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
     "technology node: the L1's and L2's arrays from CACTI 7 at 40, 28 or 22 nm, the SM's "
     "and NoC's from the built-in 40nm estimates (scaled for 28nm and 22nm; docs/energy.md)",
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

double energy_instances(const struct energy_shape *sh, unsigned comp)
{
	switch (comp) {
	case EN_SM:
		return sh->sms;
	case EN_L1:
		return sh->has_l1 ? sh->sms : 0;
	case EN_L2:
		return sh->banks;
	case EN_NOC:
		return (double)sh->networks * sh->routers;
	case EN_DRAM:
		return sh->channels;
	default:
		return 0;
	}
}

/* ---- the arrays, from CACTI ------------------------------------------------------------------ */

static const unsigned node_nm[EN_NODES] = {
    [EN_NODE_40NM] = 40, [EN_NODE_28NM] = 28, [EN_NODE_22NM] = 22};

/* Timestamp or lease bits per line kept beside the tags (G-TSC's wts and rts of 16 bits; TC's
 * 32-bit lease end) and of a warp's entry in the per-warp table (TC-Weak's 32-bit GWCT). */
#define EN_TS_BITS	 32
#define EN_WARP_TS_BYTES 4

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

/* ---- counts ------------------------------------------------------------------------------- */

void energy_add_noc(struct energy_counts *c, const struct energy_noc *noc)
{
	c->n[EN_NOC_LINK] += noc->link_flits;
	c->n[EN_NOC_ROUTER] += noc->link_flits + noc->flits;
}

/* ---- the arithmetic -------------------------------------------------------------------------- */

void energy_compute(const struct energy_model *m, const struct energy_shape *sh,
		    const struct energy_counts *c, double seconds, double seconds_half,
		    struct energy_report *out)
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
		out->static_w[k] = energy_instances(sh, k) * m->static_w[k];
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
