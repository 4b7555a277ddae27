/*
 * tests/unit/test_energy.c - the energy model (analytic/energy.c) and its report in system gpu.
 *
 * The reported energies are the counts times the per-event energies, exactly, plus static power
 * times time; the static part is linear in the time and the dynamic part does not depend on
 * it; a node picks its scaled table and a single key overrides exactly one term; bad keys and
 * values are configuration errors naming the key; the counts every protocol's controllers
 * declare are the documented functions of their statistics (real runs); a protocol whose
 * controllers declare none is refused with one line naming it.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/cacti.h"
#include "analytic/energy.h"
#include "tlm/coherence/gpu_proto.h"
#include "tlm/noc/noc.h"
#include "tlm/system/system.h"
#include "util/config.h"

/* 2 SMs with their L1s, 2 L2 banks, 2 networks of a 2 x 2 mesh (8 routers), 1 DRAM channel,
 * 2 CPU cores in a CorePair, a directory with its LLC, a DMA engine. */
static const double some_inst[EN_COMPS] = {
    [EN_SM] = 2,  [EN_L1] = 2,	     [EN_L2] = 2,  [EN_NOC] = 8, [EN_DRAM] = 1,
    [EN_CPU] = 2, [EN_COREPAIR] = 1, [EN_DIR] = 1, [EN_LLC] = 1, [EN_DMA] = 1};

/* Distinct counts for every event, and the instances above. */
static void some_counts(struct energy_counts *c)
{
	for (unsigned e = 0; e < EN_EVENTS; e++)
		c->n[e] = 1000 + 37 * e;
	memcpy(c->inst, some_inst, sizeof(c->inst));
}

START_TEST(test_noc_events)
{
	struct energy_counts c = {{0}, {0}};
	struct energy_noc noc = {.flits = 600 + 1800, .link_flits = 345, .routers = 8};

	/* hops + 1 routers and hops links per flit */
	energy_add_noc(&c, &noc);
	ck_assert_double_eq(c.n[EN_NOC_LINK], 345);
	ck_assert_double_eq(c.n[EN_NOC_ROUTER], 345 + 600 + 1800);
	energy_add_noc(&c, &noc);
	ck_assert_double_eq(c.n[EN_NOC_ROUTER], 2 * (345 + 600 + 1800));
	/* the routers charge static power, once per declaration */
	ck_assert_double_eq(c.inst[EN_NOC], 16);
	ck_assert_double_eq(c.inst[EN_L1], 0);
}
END_TEST

/* Recomputes the report from its own counts and energies, in the documented order. */
static void check_sums(const struct energy_report *r, const struct energy_model *m,
		       const struct energy_counts *c)
{
	double dyn[EN_COMPS] = {0}, total = 0, dtot = 0, stot = 0, w = 0;

	for (unsigned e = 0; e < EN_EVENTS; e++) {
		double j = r->count[e] * m->pj[e] * 1e-12;

		if (r->pj[e] != m->pj[e] || r->event_j[e] != j)
			ck_abort_msg("%s: %g J, expected %g x %g pJ = %g J", energy_events[e].name,
				     r->event_j[e], r->count[e], m->pj[e], j);
		dyn[energy_events[e].comp] += j;
	}
	for (unsigned k = 0; k < EN_COMPS; k++) {
		double sw = c->inst[k] * m->static_w[k];

		ck_assert_double_eq(r->dynamic_j[k], dyn[k]);
		ck_assert_double_eq(r->static_w[k], sw);
		ck_assert_double_eq(r->static_j[k], sw * r->seconds);
		total += dyn[k] + sw * r->seconds;
		dtot += dyn[k];
		stot += sw * r->seconds;
		w += sw;
	}
	ck_assert_double_eq(r->total_j, total);
	ck_assert_double_eq(r->dynamic_total_j, dtot);
	ck_assert_double_eq(r->static_total_j, stot);
	ck_assert_double_eq(r->half_j, w * r->seconds_half);
	/* and the two parts add up to the total (to rounding) */
	ck_assert_double_eq_tol(r->dynamic_total_j + r->static_total_j, r->total_j,
				1e-12 * r->total_j);
}

START_TEST(test_counts_times_energies)
{
	struct energy_model m;
	struct energy_counts c;
	struct energy_report r;
	json_t *comp, *ev;
	double sum = 0;

	energy_model_defaults(EN_NODE_40NM, &m);
	some_counts(&c);
	energy_compute(&m, &c, 1e-3, 1e-5, &r);
	check_sums(&r, &m, &c);
	ck_assert(r.total_j > 0);
	/* the 40 nm table itself: e.g. a flit over a link 587.5 pJ, an SM 1.57 W */
	ck_assert_double_eq(m.pj[EN_NOC_LINK], 587.5);
	ck_assert_double_eq(m.static_w[EN_SM], 1.57);
	ck_assert_double_eq(r.static_w[EN_SM], 2 * 1.57);
	/* the JSON carries the same numbers */
	comp = energy_components_json(&r);
	ev = energy_events_json(&r);
	ck_assert_ptr_nonnull(comp);
	ck_assert_ptr_nonnull(ev);
	ck_assert_int_eq(json_object_size(comp), EN_COMPS);
	ck_assert_int_eq(json_object_size(ev), EN_EVENTS);
	for (unsigned k = 0; k < EN_COMPS; k++) {
		json_t *o = json_object_get(comp, energy_statics[k].name);

		sum += json_real_value(json_object_get(o, "dynamic_j")) +
		       json_real_value(json_object_get(o, "static_j"));
	}
	ck_assert_double_eq(sum, r.total_j);
	ck_assert_double_eq(
	    json_real_value(json_object_get(json_object_get(ev, "noc_link"), "count")),
	    c.n[EN_NOC_LINK]);
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(ev, "dram_io_bit"), "component")),
	    "dram");
	json_decref(comp);
	json_decref(ev);
}
END_TEST

START_TEST(test_static_scales_with_time)
{
	struct energy_model m;
	struct energy_counts c;
	struct energy_report a, b, z;

	energy_model_defaults(EN_NODE_40NM, &m);
	some_counts(&c);
	energy_compute(&m, &c, 3e-4, 1e-5, &a);
	energy_compute(&m, &c, 6e-4, 2e-5, &b);
	energy_compute(&m, &c, 0, 0, &z);
	for (unsigned k = 0; k < EN_COMPS; k++) {
		ck_assert_double_eq(b.static_j[k], 2 * a.static_j[k]);
		ck_assert_double_eq(b.dynamic_j[k], a.dynamic_j[k]);
		ck_assert_double_eq(z.static_j[k], 0);
	}
	ck_assert_double_eq(b.static_total_j, 2 * a.static_total_j);
	ck_assert_double_eq(b.half_j, 2 * a.half_j);
	ck_assert_double_eq(z.total_j, a.dynamic_total_j);
	ck_assert_double_eq_tol((b.total_j - a.total_j), a.static_total_j, 1e-12 * b.total_j);
	/* static power: 2 SMs, 2 x 4 routers, 2 CPU cores (McPAT's at 40 nm); the arrays' and
	 * DRAM's come from CACTI and the currents, 0 here */
	ck_assert_double_eq_tol(a.static_total_j / 3e-4, 2 * 1.57 + 8 * 0.307 + 2 * 2.397, 1e-9);
}
END_TEST

/* ---- configuration --------------------------------------------------------------------------- */

/* Loads the energy section from text plus one --set (NULL: none). rc and message out. */
static int load(const char *text, const char *set, struct energy_model *m, char *msg, size_t len)
{
	struct cs_config *c = NULL;
	struct cs_err err = {0};
	int rc;

	ck_assert_int_eq(cs_config_open_string(text, "test.cfg", &c, &err), 0);
	rc = set ? cs_config_set(c, set, &err) : 0;
	if (!rc)
		rc = energy_model_load(c, m, &err);
	snprintf(msg, len, "%s", err.msg);
	cs_config_close(c);
	return rc;
}

START_TEST(test_nodes_and_overrides)
{
	struct energy_model d40, d22, m, def;
	struct energy_counts c = {0};
	struct energy_report r0, r1;
	char msg[400];

	energy_model_defaults(EN_NODE_40NM, &d40);
	energy_model_defaults(EN_NODE_22NM, &d22);
	/* no section: 40 nm */
	ck_assert_int_eq(load("", NULL, &def, msg, sizeof(msg)), 0);
	ck_assert_mem_eq(&def, &d40, sizeof(def));
	/* node = 22nm: the SM's values scaled as McPAT's core scales (dynamic 412.4 / 1305.7,
	 * leakage 0.564 / 2.397), McPAT's own values at 22 nm for the NoC and the CPU core, the
	 * arrays' and DRAM's filled in by the system (0 here) */
	ck_assert_int_eq(load("energy = { node = \"22nm\"; };", NULL, &m, msg, sizeof(msg)), 0);
	ck_assert_mem_eq(&m, &d22, sizeof(m));
	ck_assert_uint_eq(m.node, EN_NODE_22NM);
	for (unsigned e = 0; e < EN_EVENTS; e++) {
		unsigned sc = energy_events[e].scaling;

		if (sc == EN_SCALE_LOGIC)
			ck_assert_double_eq_tol(m.pj[e], energy_events[e].pj_40nm * 412.4 / 1305.7,
						1e-12 * m.pj[e]);
		else if (sc == EN_SCALE_ARRAY || sc == EN_SCALE_DEVICE)
			ck_assert_double_eq(m.pj[e], 0);
		else
			ck_assert(m.pj[e] > 0 && m.pj[e] < energy_events[e].pj_40nm);
	}
	ck_assert_double_eq(m.pj[EN_NOC_ROUTER], 133.9);
	ck_assert_double_eq(m.pj[EN_CPU_INST], 412.4);
	ck_assert_double_eq(d40.pj[EN_NOC_LINK], 587.5);
	ck_assert_double_eq_tol(m.static_w[EN_SM], 1.57 * 0.564 / 2.397, 1e-12);
	ck_assert_double_eq(m.static_w[EN_NOC], 0.130);
	ck_assert_double_eq(m.static_w[EN_CPU], 0.564);
	ck_assert_double_eq_tol(energy_node_scale(EN_NODE_28NM, EN_SCALE_LOGIC), 673.0 / 1305.7,
				1e-15);

	/* one key changes exactly its own value, on top of the node's */
	ck_assert_int_eq(
	    load("energy = { node = \"22nm\"; };", "energy.noc_link_pj=42", &m, msg, sizeof(msg)),
	    0);
	for (unsigned e = 0; e < EN_EVENTS; e++)
		ck_assert_double_eq(m.pj[e], e == EN_NOC_LINK ? 42 : d22.pj[e]);
	ck_assert_mem_eq(m.static_w, d22.static_w, sizeof(m.static_w));
	ck_assert_int_eq(
	    load("energy = { dram_static_w = 0.0; l1_tag_pj = 7.5; };", NULL, &m, msg, sizeof(msg)),
	    0);
	ck_assert_double_eq(m.static_w[EN_DRAM], 0);
	ck_assert_double_eq(m.pj[EN_L1_TAG], 7.5);
	ck_assert_double_eq(m.pj[EN_L1_DATA_READ], d40.pj[EN_L1_DATA_READ]);

	/* the report changes by exactly that term */
	for (unsigned e = 0; e < EN_EVENTS; e++)
		c.n[e] = 1000 + e;
	ck_assert_int_eq(load("", "energy.noc_link_pj=42", &m, msg, sizeof(msg)), 0);
	energy_compute(&d40, &c, 1e-4, 0, &r0);
	energy_compute(&m, &c, 1e-4, 0, &r1);
	for (unsigned e = 0; e < EN_EVENTS; e++)
		if (e != EN_NOC_LINK)
			ck_assert_double_eq(r1.event_j[e], r0.event_j[e]);
	ck_assert_double_eq(r1.event_j[EN_NOC_LINK], c.n[EN_NOC_LINK] * 42 * 1e-12);
	for (unsigned k = 0; k < EN_COMPS; k++)
		if (k != EN_NOC)
			ck_assert_double_eq(r1.dynamic_j[k], r0.dynamic_j[k]);
	ck_assert_double_eq_tol((r1.total_j - r0.total_j), c.n[EN_NOC_LINK] * (42 - 587.5) * 1e-12,
				1e-15);
}
END_TEST

START_TEST(test_bad_config)
{
	struct energy_model m;
	char msg[400];

	/* a misspelt key: the nearest one is named */
	ck_assert_int_eq(load("", "energy.noc_lnk_pj=1", &m, msg, sizeof(msg)), -CS_ECONFIG);
	ck_assert_msg(strstr(msg, "noc_lnk_pj") && strstr(msg, "noc_link_pj"), "%s", msg);
	ck_assert_int_eq(load("energy = { l2_tag = 3.0; };", NULL, &m, msg, sizeof(msg)),
			 -CS_ECONFIG);
	ck_assert_msg(strstr(msg, "test.cfg:1") && strstr(msg, "unknown key 'l2_tag'"), "%s", msg);
	/* an unknown node */
	ck_assert_int_eq(load("energy = { node = \"7nm\"; };", NULL, &m, msg, sizeof(msg)),
			 -CS_ECONFIG);
	ck_assert_msg(strstr(msg, "40nm"), "%s", msg);
	/* not a number, below the range, negative but not -1 */
	ck_assert_int_ne(load("", "energy.l1_tag_pj=abc", &m, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "l1_tag_pj"), "%s", msg);
	ck_assert_int_ne(load("", "energy.l1_tag_pj=-2", &m, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "l1_tag_pj"), "%s", msg);
	ck_assert_int_eq(load("", "energy.l1_tag_pj=-0.5", &m, msg, sizeof(msg)), -CS_ECONFIG);
	ck_assert_msg(strstr(msg, "--set energy.l1_tag_pj=-0.5") && strstr(msg, "-1"), "%s", msg);
	ck_assert_int_eq(load("energy = {\n  sm_static_w = -0.25;\n};", NULL, &m, msg, sizeof(msg)),
			 -CS_ECONFIG);
	ck_assert_msg(strstr(msg, "test.cfg:2"), "%s", msg);
}
END_TEST

/* ---- real runs ------------------------------------------------------------------------------- */

static const char *run_cfg =
    "system = { type = \"gpu\"; workload = \"bfs\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 4; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { warps = 16; clock_mhz = 700; };\n"
    "l2 = { banks = 2; };\n"
    "noc = { topology = \"mesh\"; };\n";

struct outcome {
	json_t *res;
	double flits, links_all, links_in, links_out;
	double cycles, hz;
};

/* Runs bfs under protocol; keeps the result and link sums taken from the JSON stats, and the
 * stats themselves in *stats_out when it is not NULL. */
static void run_stats(const char *protocol, const char *extra_set, struct outcome *o,
		      json_t **stats_out)
{
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct cs_err err = {0};
	char set[96];
	json_t *stats;
	const char *k;
	json_t *v;

	memset(o, 0, sizeof(*o));
	ck_assert_int_eq(cs_config_open_string(run_cfg, "run", &cfg, &err), 0);
	snprintf(set, sizeof(set), "coherence.protocol=%s", protocol);
	ck_assert_int_eq(cs_config_set(cfg, set, &err), 0);
	if (extra_set)
		ck_assert_int_eq(cs_config_set(cfg, extra_set, &err), 0);
	if (cs_system_create(cfg, NULL, &sys, &err) || cs_system_run(sys, &err))
		ck_abort_msg("%s: %s", protocol, err.msg);
	o->res = sys->ops->result(sys);
	stats = cs_stats_to_json(sys->stats);
	json_object_foreach(stats, k, v)
	{
		if (strncmp(k, "gpu.noc.", 8) || !strstr(k, ".link."))
			continue;
		o->links_all += (double)json_integer_value(v);
		if (strstr(k, "_in") && !strcmp(strstr(k, "_in"), "_in"))
			o->links_in += (double)json_integer_value(v);
		if (strstr(k, "_out") && !strcmp(strstr(k, "_out"), "_out"))
			o->links_out += (double)json_integer_value(v);
	}
	o->flits = (double)json_integer_value(json_object_get(stats, "gpu.noc.flits"));
	o->cycles = (double)json_integer_value(json_object_get(o->res, "cycles"));
	o->hz = 700e6; /* core.clock_mhz in run_cfg */
	if (stats_out)
		*stats_out = stats;
	else
		json_decref(stats);
	cs_system_destroy(sys);
	cs_config_close(cfg);
}

static void run(const char *protocol, const char *extra_set, struct outcome *o)
{
	run_stats(protocol, extra_set, o, NULL);
}

static double res(const struct outcome *o, const char *key)
{
	json_t *v = json_object_get(o->res, key);

	ck_assert_msg(v != NULL, "no result.%s", key);
	return json_number_value(v);
}

static double ev(const struct outcome *o, const char *event, const char *field)
{
	json_t *v = json_object_get(
	    json_object_get(json_object_get(o->res, "energy_events"), event), field);

	ck_assert_msg(v != NULL, "no energy_events.%s.%s", event, field);
	return json_number_value(v);
}

static double comp(const struct outcome *o, const char *c, const char *field)
{
	json_t *v = json_object_get(json_object_get(json_object_get(o->res, "energy"), c), field);

	ck_assert_msg(v != NULL, "no energy.%s.%s", c, field);
	return json_number_value(v);
}

/* What every run's result must satisfy, whatever the protocol. */
static void check_run(const struct outcome *o)
{
	double total = 0, dyn = 0, j;

	for (unsigned e = 0; e < EN_EVENTS; e++) {
		const char *n = energy_events[e].name;

		j = ev(o, n, "count") * ev(o, n, "pj") * 1e-12;
		ck_assert_double_eq(ev(o, n, "j"), j);
	}
	for (unsigned k = 0; k < EN_COMPS; k++) {
		const char *n = energy_statics[k].name;

		dyn = 0;
		for (unsigned e = 0; e < EN_EVENTS; e++)
			if (energy_events[e].comp == k)
				dyn += ev(o, energy_events[e].name, "j");
		ck_assert_double_eq(comp(o, n, "dynamic_j"), dyn);
		ck_assert_double_eq_tol(comp(o, n, "static_j"),
					comp(o, n, "static_w") * o->cycles / o->hz,
					1e-9 * comp(o, n, "static_j") + 1e-18);
		total += comp(o, n, "dynamic_j") + comp(o, n, "static_j");
	}
	ck_assert_double_eq(res(o, "energy_j"), total);
	ck_assert_double_eq(res(o, "energy_half_j"), 0); /* detailed: the time is exact */
	/* the NoC counts, from every link counter by name: the endpoints' ports are not
	 * router-to-router links; every flit is injected and ejected once */
	ck_assert_double_eq(o->links_in, o->flits);
	ck_assert_double_eq(o->links_out, o->flits);
	ck_assert_double_eq(ev(o, "noc_link", "count"), o->links_all - o->links_in - o->links_out);
	ck_assert_double_eq(ev(o, "noc_router", "count"), o->links_all - o->links_in);
	ck_assert_double_eq(ev(o, "dram_io_bit", "count"), 8 * res(o, "dram_bytes"));
	/* the arrays' energies from CACTI's table at 40 nm, for the configured geometry (the
	 * defaults: a 16 KB 4-way L1 and 128 KB 8-way banks of 128 B lines, 32 MSHRs each, 16
	 * warps) */
	{
		struct cacti_array tag, data, cam, warp;

		ck_assert_int_eq(cacti_cache(40, 131072, 8, 128, &tag, &data), 0);
		ck_assert_int_eq(cacti_cam(40, 32, &cam), 0);
		ck_assert_double_eq(ev(o, "l2_tag", "pj"), tag.read_pj);
		ck_assert_double_eq(ev(o, "l2_data_read", "pj"), data.read_pj);
		ck_assert_double_eq(ev(o, "l2_data_write", "pj"), data.write_pj);
		ck_assert_double_eq(ev(o, "l2_mshr", "pj"), cam.search_pj);
		ck_assert_double_eq(ev(o, "l2_ts_read", "pj"), tag.read_pj * 32 / tag.tag_bits);
		ck_assert_double_eq_tol(comp(o, "l2", "static_w"),
					2 * (tag.leak_w + data.leak_w + cam.leak_w), 1e-15);
		ck_assert_int_eq(cacti_cache(40, 16384, 4, 128, &tag, &data), 0);
		ck_assert_int_eq(cacti_ram(40, 16 * 4, 4, &warp), 0);
		if (comp(o, "l1", "static_w") > 0) {
			ck_assert_double_eq(ev(o, "l1_data_read", "pj"), data.read_pj);
			ck_assert_double_eq(ev(o, "l1_warp_ts", "pj"), warp.read_pj);
			ck_assert_double_eq_tol(
			    comp(o, "l1", "static_w"),
			    4 * (tag.leak_w + data.leak_w + cam.leak_w + warp.leak_w), 1e-15);
		}
	}
	/* the DRAM's energies from its currents (section dram's defaults: the H5GQ1H24AFR model,
	 * 2 devices at 1.5 V, 924 MHz): ACT 2 x 1.5 x (490 - 450) mA x 28 cycles x 1.0823 ns */
	ck_assert_double_eq_tol(ev(o, "dram_act", "pj"), 2 * 1.5 * 40 * 28 * 1e3 / 924, 1e-9);
	ck_assert_double_eq_tol(ev(o, "dram_pre", "pj"), 2 * 1.5 * 240 * 12 * 1e3 / 924, 1e-9);
	ck_assert_double_eq_tol(ev(o, "dram_rd", "pj"), 2 * 1.5 * 630 * 2 * 1e3 / 924, 1e-9);
	ck_assert_double_eq_tol(ev(o, "dram_wr", "pj"), 2 * 1.5 * 710 * 2 * 1e3 / 924, 1e-9);
	/* its background between every bank closed (750 mW a channel) and one always open
	 * (1.35 W; IDD5 = IDD3N: a refresh adds no energy beyond the active standby) */
	ck_assert(comp(o, "dram", "static_w") > 0);
	/* 4 SMs at 1.57 W */
	ck_assert_double_eq_tol(comp(o, "sm", "static_w"), 4 * 1.57, 1e-12);
	ck_assert_str_eq(json_string_value(json_object_get(o->res, "energy_node")), "40nm");
}

START_TEST(test_real_runs_follow_counts)
{
	struct outcome tc, gt, bl, gt28, act5;

	run("gtsc", "energy.dram_act_pj=5", &act5);
	ck_assert_double_eq(ev(&act5, "dram_act", "pj"), 5);
	json_decref(act5.res);
	/* a larger L1 costs more per access and leaks more, as CACTI's table says */
	run("gtsc", "l1.size_kib=32", &act5);
	{
		struct cacti_array tag, data;

		ck_assert_int_eq(cacti_cache(40, 32768, 4, 128, &tag, &data), 0);
		ck_assert_double_eq(ev(&act5, "l1_data_read", "pj"), data.read_pj);
		ck_assert_double_eq(ev(&act5, "l1_tag", "pj"), tag.read_pj);
		ck_assert_int_eq(cacti_cache(40, 16384, 4, 128, &tag, &data), 0);
		ck_assert(ev(&act5, "l1_data_read", "pj") > data.read_pj);
	}
	json_decref(act5.res);
	run("tc-weak", NULL, &tc);
	run("gtsc", NULL, &gt);
	run("none", NULL, &bl);
	run("gtsc", "energy.node=28nm", &gt28);
	check_run(&tc);
	check_run(&gt);
	check_run(&bl);

	/* G-TSC renews without data: the L2 reads answered with data exclude its renewals */
	ck_assert(ev(&gt, "l2_data_read", "count") > 0);
	/* per component and event, more events of the same kind cost more energy */
	for (unsigned e = 0; e < EN_EVENTS; e++) {
		const char *n = energy_events[e].name;
		double dc = ev(&gt, n, "count") - ev(&tc, n, "count");
		double dj = ev(&gt, n, "j") - ev(&tc, n, "j");

		if ((dc > 0) != (dj > 0) || (dc < 0) != (dj < 0))
			ck_abort_msg("%s: count %+g but energy %+g", n, dc, dj);
	}
	/* the NoC's dynamic energy follows its flit-hop counts: routers and links */
	{
		double dr = ev(&gt, "noc_router", "count") - ev(&tc, "noc_router", "count");
		double dl = ev(&gt, "noc_link", "count") - ev(&tc, "noc_link", "count");
		double dj = comp(&gt, "noc", "dynamic_j") - comp(&tc, "noc", "dynamic_j");

		ck_assert_double_eq_tol(dj, (dr * 335.2 + dl * 587.5) * 1e-12,
					1e-9 * fabs(dj) + 1e-18);
	}
	/* static energy follows the run time */
	ck_assert((gt.cycles > tc.cycles) ==
		  (res(&gt, "energy_static_j") > res(&tc, "energy_static_j")));
	/* timestamps: both lease protocols pay for them, TC-Weak its GWCT table, G-TSC warp_ts
	 * on every access; without an L1 there is none */
	ck_assert(ev(&gt, "l1_ts_read", "count") > 0 && ev(&tc, "l1_ts_read", "count") > 0);
	ck_assert(ev(&gt, "l2_ts_write", "count") >= ev(&gt, "l2_ts_read", "count"));
	ck_assert(ev(&gt, "l1_warp_ts", "count") > ev(&gt, "l1_tag", "count") / 2);
	ck_assert(ev(&tc, "l1_warp_ts", "count") > 0);
	for (unsigned e = 0; e < EN_EVENTS; e++)
		if (energy_events[e].comp == EN_L1 || e == EN_L2_TS_READ || e == EN_L2_TS_WRITE)
			ck_assert_msg(ev(&bl, energy_events[e].name, "count") == 0, "none: %s",
				      energy_events[e].name);
	ck_assert_double_eq(comp(&bl, "l1", "static_w"), 0);
	/* BL sends every access over the NoC */
	ck_assert(ev(&bl, "noc_router", "count") > ev(&gt, "noc_router", "count"));
	ck_assert(comp(&bl, "noc", "dynamic_j") > comp(&gt, "noc", "dynamic_j"));
	/* a node changes the energies, not the counts */
	ck_assert_str_eq(json_string_value(json_object_get(gt28.res, "energy_node")), "28nm");
	for (unsigned e = 0; e < EN_EVENTS; e++)
		ck_assert_double_eq(ev(&gt28, energy_events[e].name, "count"),
				    ev(&gt, energy_events[e].name, "count"));
	ck_assert(res(&gt28, "energy_j") < res(&gt, "energy_j"));
	json_decref(tc.res);
	json_decref(gt.res);
	json_decref(bl.res);
	json_decref(gt28.res);
}
END_TEST

/* Sum of a counter over instances 0..n-1 ("gpu.sm%u.l1.fills"); 0 where none is registered. */
static double sum(json_t *stats, const char *fmt, unsigned n)
{
	char name[128];
	double t = 0;

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), fmt, i);
		t += json_number_value(json_object_get(stats, name));
	}
	return t;
}

#define SM(x) sum(st, "gpu.sm%u." x, 4)
#define L1(x) sum(st, "gpu.sm%u.l1." x, 4)
#define L2(x) sum(st, "gpu.l2.bank%u." x, 2)
#define CH(x) sum(st, "gpu.dram%u." x, 8)

static void check_count(const struct outcome *o, const char *protocol, const char *event,
			double want)
{
	double got = ev(o, event, "count");

	if (got != want)
		ck_abort_msg("%s: %s counts %.0f, the documented rule gives %.0f", protocol, event,
			     got, want);
}

/*
 * Every protocol's controllers declare their events (gpu_l1_ops.energy, gpu_l2_ops.energy,
 * gpu_sm_energy, dram_ctrl_energy); what they declare is the rule docs/energy.md gives over
 * their statistics. The statistics are read here by name, only to check the rule.
 */
static const char *const declared_protos[] = {"gtsc", "tc-weak",     "tc-strong",
					      "none", "noncoherent", "scoped-baseline",
					      "rsp",  "hlrc",	     "denovo-b"};

static void check_traffic(const char *what, json_t *res, json_t *stats, const char *net,
			  double flit_bytes);
static void check_conserved(const char *what, json_t *res);

START_TEST(test_declared_counts)
{
	for (size_t i = 0; i < sizeof(declared_protos) / sizeof(declared_protos[0]); i++) {
		const char *p = declared_protos[i];
		bool lease = !strncmp(p, "tc-", 3) || !strcmp(p, "gtsc");
		bool gtsc = !strcmp(p, "gtsc"), weak = !strcmp(p, "tc-weak");
		struct outcome o;
		json_t *st;
		double acc, fills, hits, ren, acks, rmw, found;

		/* sssp (atomics, every protocol runs it; bfs's grid barrier spins on plain loads,
		 * which the L1s without coherence never see change) */
		run_stats(p, "system.workload=sssp", &o, &st);
		check_count(&o, p, "core_issue",
			    SM("mem_insts") + SM("compute_cycles") + SM("fences") + SM("barriers"));
		check_count(&o, p, "core_compute", SM("compute_cycles"));
		check_count(&o, p, "core_ldst", SM("mem_insts"));
		acc = L1("accesses");
		fills = L1("fills");
		hits = L1("load_hits");
		ren = L1("renewal_answers");
		acks = L1("write_acks");
		if (!strcmp(p, "none")) {
			for (unsigned e = 0; e < EN_EVENTS; e++)
				if (energy_events[e].comp == EN_L1)
					check_count(&o, p, energy_events[e].name, 0);
		} else if (lease) {
			check_count(&o, p, "l1_tag", acc + fills);
			check_count(&o, p, "l1_data_read", hits);
			check_count(&o, p, "l1_data_write", fills + L1("store_writes"));
			check_count(&o, p, "l1_mshr",
				    L1("loads") - hits + fills + ren + L1("stores") +
					L1("atomics") + acks);
			check_count(&o, p, "l1_ts_read", acc);
			check_count(&o, p, "l1_ts_write", fills + (gtsc ? ren : 0));
			check_count(&o, p, "l1_warp_ts",
				    gtsc   ? acc + fills + ren + acks
				    : weak ? fills + acks
					   : 0);
		} else {
			/* write-through L1s here (l1.write's default) */
			rmw = L1("l1_atomics") + L1("reg.l1_hits");
			found = L1("reg.recalls") + L1("reg.forwards");
			check_count(&o, p, "l1_tag", acc + fills + found + L1("probes"));
			check_count(&o, p, "l1_data_read",
				    hits + L1("writebacks") + found - L1("reg.recall_empty") + rmw);
			check_count(&o, p, "l1_data_write", fills + L1("store_hits") + rmw);
			check_count(&o, p, "l1_mshr", L1("load_misses") + fills);
			check_count(&o, p, "l1_ts_read", 0);
			check_count(&o, p, "l1_warp_ts", 0);
		}
		check_count(&o, p, "l2_tag", L2("accesses") + L2("fills"));
		check_count(&o, p, "l2_data_read",
			    L2("reads") - L2("gtsc.renewals") + L2("atomics") + L2("writebacks"));
		check_count(&o, p, "l2_data_write", L2("writes") + L2("atomics") + L2("fills"));
		check_count(&o, p, "l2_mshr",
			    L2("read_misses") + L2("write_misses") - L2("write_allocs") +
				L2("atomic_misses") + L2("fills"));
		check_count(&o, p, "l2_ts_read", lease ? L2("accesses") : 0);
		check_count(&o, p, "l2_ts_write",
			    gtsc    ? L2("accesses") + L2("fills")
			    : lease ? L2("tc.lease_extensions") + L2("fills")
				    : 0);
		check_count(&o, p, "dram_act", CH("activations"));
		check_count(&o, p, "dram_pre", CH("precharges") + CH("prea_banks"));
		check_count(&o, p, "dram_rd", CH("rd_bursts"));
		check_count(&o, p, "dram_wr", CH("wr_bursts"));
		/* something happened in every array this workload uses */
		ck_assert_msg(ev(&o, "l2_tag", "count") > 0 && ev(&o, "core_ldst", "count") > 0,
			      "%s: no L2 or LD/ST event", p);
		if (strcmp(p, "none"))
			ck_assert_msg(ev(&o, "l1_tag", "count") > 0, "%s: no L1 event", p);
		check_run(&o);
		/* its traffic by kind is the network's own (test_traffic_every_protocol runs the
		 * other registered protocols) */
		check_traffic(p, o.res, st, "gpu.noc", 32);
		check_conserved(p, o.res);
		json_decref(st);
		json_decref(o.res);
	}
}
END_TEST

/* A protocol whose L1 or L2 declares no energy events is refused with one line naming it,
 * the table and the member; the registered ones all pass. */
START_TEST(test_undeclared_refused)
{
	const struct gpu_protocol *gt = gpu_protocol_find("gtsc");
	struct gpu_protocol p;
	struct gpu_l1_ops l1;
	struct gpu_l2_ops l2;
	struct cs_err err = {0};

	for (const struct gpu_protocol *const *r = gpu_protocol_registry(); *r; r++)
		ck_assert_msg(gpu_protocol_check(*r, &err) == 0, "%s: %s", (*r)->name, err.msg);
	ck_assert_ptr_nonnull(gt);
	p = *gt;
	l1 = *gt->l1;
	l2 = *gt->l2;
	p.l1 = &l1;
	p.l2 = &l2;
	l1.energy = NULL;
	ck_assert_int_eq(gpu_protocol_check(&p, &err), -CS_ECONFIG);
	ck_assert_msg(strstr(err.msg, "\"gtsc\"") && strstr(err.msg, "gpu_l1_ops.energy") &&
			  !strchr(err.msg, '\n'),
		      "%s", err.msg);
	l1.energy = gt->l1->energy;
	l2.energy = NULL;
	ck_assert_int_eq(gpu_protocol_check(&p, &err), -CS_ECONFIG);
	ck_assert_msg(strstr(err.msg, "gpu_l2_ops.energy"), "%s", err.msg);
	/* the kinds of traffic of its messages, which the result reports by */
	l2.energy = gt->l2->energy;
	p.msg_traffic = NULL;
	ck_assert_int_eq(gpu_protocol_check(&p, &err), -CS_ECONFIG);
	ck_assert_msg(strstr(err.msg, "\"gtsc\"") && strstr(err.msg, "msg_traffic") &&
			  !strchr(err.msg, '\n'),
		      "%s", err.msg);
}
END_TEST

/* ---- every system: traffic by kind, energy conserved ----------------------------------------- */

/* Runs text (with `set` on top when not NULL); the result and the stats as JSON. */
static void run_text(const char *text, const char *set, json_t **res, json_t **stats)
{
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct cs_err err = {0};

	ck_assert_int_eq(cs_config_open_string(text, "run", &cfg, &err), 0);
	if (set)
		ck_assert_int_eq(cs_config_set(cfg, set, &err), 0);
	if (cs_system_create(cfg, NULL, &sys, &err) || cs_system_run(sys, &err))
		ck_abort_msg("%s: %s", set ? set : text, err.msg);
	*res = sys->ops->result(sys);
	*stats = cs_stats_to_json(sys->stats);
	cs_system_destroy(sys);
	cs_config_close(cfg);
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	ck_assert_msg(v != NULL, "no %s", key);
	return json_number_value(v);
}

/* The result's traffic by kind adds up to its NoC bytes, which are the network's own byte
 * counter (stat net.bytes) and not 0; its link bytes are the network's flit counter times the
 * flit size. */
static void check_traffic(const char *what, json_t *res, json_t *stats, const char *net,
			  double flit_bytes)
{
	json_t *noc = json_object_get(json_object_get(res, "traffic"), "noc");
	double bytes = 0, link = 0, flits;
	char key[64];

	ck_assert_msg(noc != NULL, "%s: no traffic.noc", what);
	ck_assert_uint_eq(json_object_size(noc), NOC_TRAFFIC_KINDS);
	for (unsigned k = 0; k < NOC_TRAFFIC_KINDS; k++) {
		json_t *t = json_object_get(noc, noc_traffic_kind_names[k]);

		bytes += num(t, "bytes");
		link += num(t, "link_bytes");
	}
	snprintf(key, sizeof(key), "%s.bytes", net);
	ck_assert_msg(bytes > 0, "%s: no NoC bytes", what);
	ck_assert_msg(bytes == num(res, "noc_bytes") && bytes == num(stats, key),
		      "%s: traffic %g B, noc_bytes %g, %s %g", what, bytes, num(res, "noc_bytes"),
		      key, num(stats, key));
	snprintf(key, sizeof(key), "%s.flits", net);
	flits = num(stats, key);
	ck_assert_msg(link == flits * flit_bytes, "%s: link bytes %g, %g flits x %g B", what, link,
		      flits, flit_bytes);
	ck_assert(num(json_object_get(json_object_get(res, "traffic"), "dram"), "read_bytes") > 0);
}

/* Energy is conserved: each event's joules are its count times its energy, each component's
 * dynamic energy the sum of its events', its static energy its power times the run's time,
 * and the total the sum of the components'. */
static void check_conserved(const char *what, json_t *res)
{
	json_t *evs = json_object_get(res, "energy_events"),
	       *comps = json_object_get(res, "energy");
	double total = 0, secs = num(res, "energy_seconds");

	ck_assert_msg(evs && comps, "%s: no energy", what);
	for (unsigned k = 0; k < EN_COMPS; k++) {
		json_t *c = json_object_get(comps, energy_statics[k].name);
		double dyn = 0;

		for (unsigned e = 0; e < EN_EVENTS; e++) {
			json_t *v = json_object_get(evs, energy_events[e].name);

			ck_assert_double_eq(num(v, "j"), num(v, "count") * num(v, "pj") * 1e-12);
			if (energy_events[e].comp == k)
				dyn += num(v, "j");
		}
		ck_assert_double_eq(num(c, "dynamic_j"), dyn);
		ck_assert_double_eq_tol(num(c, "static_j"), num(c, "static_w") * secs,
					1e-12 * num(c, "static_j") + 1e-18);
		total += num(c, "dynamic_j") + num(c, "static_j");
	}
	ck_assert_msg(total == num(res, "energy_j"), "%s: %g J over the components, %g J in all",
		      what, total, num(res, "energy_j"));
	ck_assert_msg(num(res, "energy_j") > 0, "%s: no energy", what);
}

static double event_count(json_t *res, const char *event)
{
	return num(json_object_get(json_object_get(res, "energy_events"), event), "count");
}

static double comp_w(json_t *res, const char *comp)
{
	return num(json_object_get(json_object_get(res, "energy"), comp), "static_w");
}

/* Every registered protocol on system gpu (sssp moves data under each): NoC bytes > 0, the
 * network's own, and its flits x 32 B; energy conserved. The protocols test_declared_counts
 * runs are checked there. */
START_TEST(test_traffic_every_protocol)
{
	for (const struct gpu_protocol *const *p = gpu_protocol_registry(); *p; p++) {
		json_t *res, *stats;
		char set[96];
		bool done = false;

		for (size_t i = 0; i < sizeof(declared_protos) / sizeof(declared_protos[0]); i++)
			done |= strcmp(declared_protos[i], (*p)->name) == 0;
		if (done)
			continue;
		snprintf(set, sizeof(set), "coherence.protocol=%s", (*p)->name);
		run_text("system = { type = \"gpu\"; workload = \"sssp\"; mode = \"detailed\"; };\n"
			 "gpu = { sms = 4; };\nworkload = { size = \"tiny\"; };\n"
			 "core = { warps = 16; };\nl2 = { banks = 2; };\n",
			 set, &res, &stats);
		check_traffic((*p)->name, res, stats, "gpu.noc", 32);
		check_conserved((*p)->name, res);
		json_decref(res);
		json_decref(stats);
	}
}
END_TEST

/* Systems apu and cpu on the APU memory side: traffic by kind from the network's counters,
 * every component of the CPU side charged (cores, CorePairs, directory, LLC; the CUs, TCPs
 * and TCC with a GPU), energy conserved; on the ideal memory, the cores alone. */
START_TEST(test_cpu_side_systems)
{
	json_t *res, *stats;

	run_text("system = { type = \"apu\"; workload = \"hetero_prodcons\"; mode = "
		 "\"detailed\"; };\n"
		 "cpus = { cores = 4; memory = \"apu\"; };\ngpu = { sms = 2; };\n"
		 "workload = { size = \"tiny\"; };\n",
		 NULL, &res, &stats);
	check_traffic("apu", res, stats, "apu.net", 32); /* noc.flit_bytes */
	check_conserved("apu", res);
	for (const char *const *e =
		 (const char *const[]){"cpu_inst", "corepair_l1d_tag", "corepair_l2_tag",
				       "corepair_tbe", "dir_tbe", "llc_tag", "core_issue", "l1_tag",
				       "l2_tag", "noc_router", "dram_rd", NULL};
	     *e; e++)
		ck_assert_msg(event_count(res, *e) > 0, "apu: no %s event", *e);
	/* 4 cores in 2 CorePairs, 2 CUs with their TCPs, 1 TCC slice, 1 directory with its LLC,
	 * 1 DMA engine: static power per instance times the instances */
	{
		struct energy_model m;
		struct cs_config *c = NULL;
		struct cs_err err = {0};

		ck_assert_int_eq(cs_config_open_string("", "x", &c, &err), 0);
		ck_assert_int_eq(energy_model_load(c, &m, &err), 0);
		cs_config_close(c);
		ck_assert_double_eq_tol(comp_w(res, "cpu"), 4 * m.static_w[EN_CPU], 1e-15);
		ck_assert_double_eq_tol(comp_w(res, "sm"), 2 * m.static_w[EN_SM], 1e-15);
	}
	ck_assert(comp_w(res, "corepair") > 0 && comp_w(res, "llc") > 0 && comp_w(res, "l1") > 0 &&
		  comp_w(res, "l2") > 0 && comp_w(res, "directory") > 0 && comp_w(res, "dma") > 0);
	/* the CPU side's arrays from CACTI's table for their geometry (seed 002's defaults at
	 * 40 nm: 64 KB 2-way L1Ds, 2 MB 8-way L2s, a 16 MB 16-way LLC, 64 B lines; 16 KB 16-way
	 * TCPs), two CorePairs' leakage */
	{
		struct cacti_array t1, d1, ti, di, t2, d2, tl, dl, cam, tt, dt;
		json_t *evs = json_object_get(res, "energy_events");

		ck_assert_int_eq(cacti_cache(40, 65536, 2, 64, &t1, &d1), 0);
		ck_assert_int_eq(cacti_cache(40, 32768, 2, 64, &ti, &di), 0);
		ck_assert_int_eq(cacti_cache(40, 2097152, 8, 64, &t2, &d2), 0);
		ck_assert_int_eq(cacti_cache(40, 16777216, 16, 64, &tl, &dl), 0);
		ck_assert_int_eq(cacti_cache(40, 16384, 16, 64, &tt, &dt), 0);
		ck_assert_int_eq(cacti_cam(40, 256, &cam), 0);
		ck_assert_double_eq(num(json_object_get(evs, "corepair_l1d_read"), "pj"),
				    d1.read_pj);
		ck_assert_double_eq(num(json_object_get(evs, "corepair_l1i_read"), "pj"),
				    ti.read_pj + di.read_pj);
		ck_assert_double_eq(num(json_object_get(evs, "corepair_l2_write"), "pj"),
				    d2.write_pj);
		ck_assert_double_eq(num(json_object_get(evs, "llc_read"), "pj"), dl.read_pj);
		ck_assert_double_eq(num(json_object_get(evs, "l1_data_read"), "pj"), dt.read_pj);
		ck_assert_double_eq_tol(comp_w(res, "corepair"),
					2 * (2 * (t1.leak_w + d1.leak_w) + ti.leak_w + di.leak_w +
					     t2.leak_w + d2.leak_w + cam.leak_w),
					1e-12);
		ck_assert_double_eq_tol(comp_w(res, "llc"), tl.leak_w + dl.leak_w, 1e-12);
	}
	json_decref(res);
	json_decref(stats);

	run_text("system = { type = \"cpu\"; workload = \"cpu_count\"; mode = \"detailed\"; };\n"
		 "cpus = { cores = 4; memory = \"apu\"; };\nworkload = { size = \"tiny\"; };\n",
		 NULL, &res, &stats);
	check_traffic("cpu", res, stats, "cpu.net", 32);
	check_conserved("cpu", res);
	ck_assert(event_count(res, "cpu_inst") > 0 && event_count(res, "corepair_l1d_tag") > 0);
	ck_assert_double_eq(comp_w(res, "sm"), 0);
	ck_assert_double_eq(comp_w(res, "l1"), 0);
	json_decref(res);
	json_decref(stats);

	run_text("system = { type = \"cpu\"; workload = \"cpu_count\"; mode = \"detailed\"; };\n"
		 "cpus = { cores = 4; };\nworkload = { size = \"tiny\"; };\n",
		 NULL, &res, &stats);
	check_conserved("cpu, ideal memory", res);
	for (unsigned k = 0; k < EN_COMPS; k++)
		if (k != EN_CPU)
			ck_assert_double_eq(comp_w(res, energy_statics[k].name), 0);
	json_decref(res);
	json_decref(stats);
}
END_TEST

/* Hybrid mode: the static part is charged over the estimated cycles, with their half-width. */
START_TEST(test_hybrid_half_width)
{
	struct outcome o;
	double w = 0;

	run("gtsc", "system.mode=hybrid", &o);
	for (unsigned k = 0; k < EN_COMPS; k++)
		w += comp(&o, energy_statics[k].name, "static_w");
	ck_assert_double_eq_tol(res(&o, "energy_half_j"), w * res(&o, "cycles_half") / o.hz,
				1e-9 * res(&o, "energy_half_j") + 1e-18);
	ck_assert_double_eq_tol(res(&o, "energy_static_j"), w * res(&o, "energy_seconds"),
				1e-9 * res(&o, "energy_static_j"));
	ck_assert_double_eq_tol(res(&o, "energy_seconds") * o.hz, o.cycles, 1);
	json_decref(o.res);
}
END_TEST

static Suite *energy_suite(void)
{
	Suite *s = suite_create("energy");
	TCase *t = tcase_create("core");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_noc_events);
	tcase_add_test(t, test_undeclared_refused);
	tcase_add_test(t, test_counts_times_energies);
	tcase_add_test(t, test_static_scales_with_time);
	tcase_add_test(t, test_nodes_and_overrides);
	tcase_add_test(t, test_bad_config);
	tcase_add_test(t, test_real_runs_follow_counts);
	tcase_add_test(t, test_hybrid_half_width);
	suite_add_tcase(s, t);
	/* nine runs (the sanitizers' build takes ten times longer) */
	t = tcase_create("protocols");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, test_declared_counts);
	tcase_add_test(t, test_traffic_every_protocol);
	tcase_add_test(t, test_cpu_side_systems);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(energy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
