/*
 * tests/unit/test_energy.c - the energy model (analytic/energy.c) and its report in system gpu.
 *
 * The reported energies are the counts times the per-event energies, exactly, plus static power
 * times time; the static part is linear in the time and the dynamic part does not depend on
 * it; a node picks its scaled table and a single key overrides exactly one term; bad keys and
 * values are configuration errors naming the key; the counts are the documented functions of
 * the statistics; real runs under tc-weak, gtsc and none report what their statistics say.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/energy.h"
#include "tlm/system/system.h"
#include "util/config.h"

/* ---- a hand-made statistics tree with the GPU's names ---------------------------------------- */

/* 2 SMs, 2 L2 banks, 1 DRAM channel, a 2 x 2 mesh (4 routers per network). */
static const struct energy_shape shape = {.sms = 2,
					  .banks = 2,
					  .channels = 1,
					  .routers = 4,
					  .networks = 2,
					  .has_l1 = true,
					  .proto = EN_PROTO_GTSC};

/* The networks' declared figures (noc.h): every vnet's flits and the router-to-router ones. */
static const struct energy_noc noc_figs = {.flits = 600 + 1800, .link_flits = 345};

static void put(struct cs_stats *s, const char *name, uint64_t v)
{
	*cs_stat_counter(cs_stats_root(s), name, "", "") = v;
}

/* Every counter the model reads, with distinct values (instance i adds 1000 * i). */
static struct cs_stats *fake_stats(void)
{
	static const struct {
		const char *fmt;
		uint64_t v;
	} per_sm[] =
	    {
		{"gpu.sm%u.mem_insts", 300},
		{"gpu.sm%u.compute_cycles", 5000},
		{"gpu.sm%u.fences", 7},
		{"gpu.sm%u.barriers", 11},
		{"gpu.sm%u.l1.accesses", 400},
		{"gpu.sm%u.l1.loads", 310},
		{"gpu.sm%u.l1.stores", 80},
		{"gpu.sm%u.l1.atomics", 10},
		{"gpu.sm%u.l1.load_hits", 150},
		{"gpu.sm%u.l1.fills", 120},
		{"gpu.sm%u.l1.renewal_answers", 30},
		{"gpu.sm%u.l1.write_acks", 90},
		{"gpu.sm%u.l1.store_writes", 20},
		{"gpu.sm%u.l1.writebacks", 0},
		{"gpu.sm%u.ff_insts", 0},
	    },
	  per_bank[] =
	      {
		  {"gpu.l2.bank%u.accesses", 500},     {"gpu.l2.bank%u.reads", 320},
		  {"gpu.l2.bank%u.writes", 150},       {"gpu.l2.bank%u.atomics", 30},
		  {"gpu.l2.bank%u.read_misses", 60},   {"gpu.l2.bank%u.write_misses", 40},
		  {"gpu.l2.bank%u.atomic_misses", 5},  {"gpu.l2.bank%u.write_allocs", 8},
		  {"gpu.l2.bank%u.fills", 70},	       {"gpu.l2.bank%u.writebacks", 25},
		  {"gpu.l2.bank%u.gtsc.renewals", 45},
	      },
	  per_chan[] = {
	      {"gpu.dram%u.activations", 33},
	      {"gpu.dram%u.precharges", 31},
	      {"gpu.dram%u.bytes_read", 8960},
	      {"gpu.dram%u.bytes_written", 3200},
	  };
	struct cs_stats *s;
	char name[96];

	ck_assert_int_eq(cs_stats_create(&s), 0);
	for (unsigned i = 0; i < 2; i++)
		for (size_t k = 0; k < sizeof(per_sm) / sizeof(per_sm[0]); k++) {
			snprintf(name, sizeof(name), per_sm[k].fmt, i);
			put(s, name, per_sm[k].v + 1000 * i);
		}
	for (unsigned i = 0; i < 2; i++)
		for (size_t k = 0; k < sizeof(per_bank) / sizeof(per_bank[0]); k++) {
			snprintf(name, sizeof(name), per_bank[k].fmt, i);
			put(s, name, per_bank[k].v + 1000 * i);
		}
	for (size_t k = 0; k < sizeof(per_chan) / sizeof(per_chan[0]); k++) {
		snprintf(name, sizeof(name), per_chan[k].fmt, 0u);
		put(s, name, per_chan[k].v);
	}
	/* the networks' stats under guessed names: the model must not read them (it reads
	 * what the networks declare, noc_figs) */
	put(s, "gpu.noc.req.flits", 9000);
	put(s, "gpu.noc.resp.link.r0_e", 9000);
	ck_assert_int_eq(cs_stats_error(s, NULL), 0);
	return s;
}

/* Sum over both instances of a per-instance value v (+1000 for instance 1). */
#define TWO(v) (2.0 * (v) + 1000)

START_TEST(test_counts_from_stats)
{
	struct cs_stats *s = fake_stats();
	struct energy_shape sh = shape;
	struct energy_counts c;

	ck_assert_int_eq(energy_counts_gpu(s, &sh, &noc_figs, &c), 0);
	/* SM */
	ck_assert_double_eq(c.n[EN_CORE_ISSUE], TWO(300) + TWO(5000) + TWO(7) + TWO(11));
	ck_assert_double_eq(c.n[EN_CORE_COMPUTE], TWO(5000));
	ck_assert_double_eq(c.n[EN_CORE_LDST], TWO(300));
	/* L1, G-TSC */
	ck_assert_double_eq(c.n[EN_L1_TAG], TWO(400) + TWO(120));
	ck_assert_double_eq(c.n[EN_L1_DATA_READ], TWO(150) + TWO(0));
	ck_assert_double_eq(c.n[EN_L1_DATA_WRITE], TWO(120) + TWO(20));
	ck_assert_double_eq(c.n[EN_L1_MSHR],
			    TWO(310) - TWO(150) + TWO(120) + TWO(30) + TWO(80) + TWO(10) + TWO(90));
	ck_assert_double_eq(c.n[EN_L1_TS_READ], TWO(400));
	ck_assert_double_eq(c.n[EN_L1_TS_WRITE], TWO(120) + TWO(30));
	ck_assert_double_eq(c.n[EN_L1_WARP_TS], TWO(400) + TWO(120) + TWO(30) + TWO(90));
	/* L2, G-TSC: renewals answer reads without data */
	ck_assert_double_eq(c.n[EN_L2_TAG], TWO(500) + TWO(70));
	ck_assert_double_eq(c.n[EN_L2_DATA_READ], TWO(320) - TWO(45) + TWO(30) + TWO(25));
	ck_assert_double_eq(c.n[EN_L2_DATA_WRITE], TWO(150) + TWO(30) + TWO(70));
	ck_assert_double_eq(c.n[EN_L2_MSHR], TWO(60) + TWO(40) - TWO(8) + TWO(5) + TWO(70));
	ck_assert_double_eq(c.n[EN_L2_TS_READ], TWO(500));
	ck_assert_double_eq(c.n[EN_L2_TS_WRITE], TWO(500) + TWO(70));
	/* NoC: hops + 1 routers and hops links per flit */
	ck_assert_double_eq(c.n[EN_NOC_LINK], 345);
	ck_assert_double_eq(c.n[EN_NOC_ROUTER], 345 + 600 + 1800);
	/* DRAM */
	ck_assert_double_eq(c.n[EN_DRAM_ACT], 33);
	ck_assert_double_eq(c.n[EN_DRAM_PRE], 31);
	ck_assert_double_eq(c.n[EN_DRAM_READ_BIT], 8 * 8960);
	ck_assert_double_eq(c.n[EN_DRAM_WRITE_BIT], 8 * 3200);
	ck_assert_double_eq(c.n[EN_DRAM_IO_BIT], 8 * (8960 + 3200));

	/* TC-Weak: no renewals, leases instead; GWCT per warp */
	sh.proto = EN_PROTO_TC_WEAK;
	put(s, "gpu.l2.bank0.tc.lease_extensions", 17);
	put(s, "gpu.l2.bank1.tc.lease_extensions", 19);
	ck_assert_int_eq(energy_counts_gpu(s, &sh, &noc_figs, &c), 0);
	ck_assert_double_eq(c.n[EN_L1_TS_WRITE], TWO(120));
	ck_assert_double_eq(c.n[EN_L1_WARP_TS], TWO(120) + TWO(90));
	ck_assert_double_eq(c.n[EN_L2_TS_WRITE], 17 + 19 + TWO(70));
	sh.proto = EN_PROTO_TC_STRONG;
	ck_assert_int_eq(energy_counts_gpu(s, &sh, &noc_figs, &c), 0);
	ck_assert_double_eq(c.n[EN_L1_WARP_TS], 0);

	/* no L1 (none): no L1 event at all, no timestamps */
	sh.proto = EN_PROTO_PLAIN;
	sh.has_l1 = false;
	ck_assert_int_eq(energy_counts_gpu(s, &sh, &noc_figs, &c), 0);
	for (unsigned e = 0; e < EN_EVENTS; e++)
		if (energy_events[e].comp == EN_L1 || e == EN_L2_TS_READ || e == EN_L2_TS_WRITE)
			ck_assert_msg(c.n[e] == 0, "%s counts %g without an L1",
				      energy_events[e].name, c.n[e]);
	ck_assert_double_eq(energy_instances(&sh, EN_L1), 0);
	ck_assert_double_eq(energy_instances(&sh, EN_NOC), 8);
	cs_stats_destroy(s);
}
END_TEST

/* Recomputes the report from its own counts and energies, in the documented order. */
static void check_sums(const struct energy_report *r, const struct energy_model *m,
		       const struct energy_shape *sh)
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
		double sw = energy_instances(sh, k) * m->static_w[k];

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
	struct cs_stats *s = fake_stats();
	struct energy_model m;
	struct energy_counts c;
	struct energy_report r;
	json_t *comp, *ev;
	double sum = 0;

	energy_model_defaults(EN_NODE_40NM, &m);
	ck_assert_int_eq(energy_counts_gpu(s, &shape, &noc_figs, &c), 0);
	energy_compute(&m, &shape, &c, 1e-3, 1e-5, &r);
	check_sums(&r, &m, &shape);
	ck_assert(r.total_j > 0);
	/* the 40 nm table itself: e.g. a flit over a link 90 pJ, an SM 1.57 W */
	ck_assert_double_eq(m.pj[EN_NOC_LINK], 90);
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
	cs_stats_destroy(s);
}
END_TEST

START_TEST(test_static_scales_with_time)
{
	struct cs_stats *s = fake_stats();
	struct energy_model m;
	struct energy_counts c;
	struct energy_report a, b, z;

	energy_model_defaults(EN_NODE_40NM, &m);
	ck_assert_int_eq(energy_counts_gpu(s, &shape, &noc_figs, &c), 0);
	energy_compute(&m, &shape, &c, 3e-4, 1e-5, &a);
	energy_compute(&m, &shape, &c, 6e-4, 2e-5, &b);
	energy_compute(&m, &shape, &c, 0, 0, &z);
	for (unsigned k = 0; k < EN_COMPS; k++) {
		ck_assert_double_eq(b.static_j[k], 2 * a.static_j[k]);
		ck_assert_double_eq(b.dynamic_j[k], a.dynamic_j[k]);
		ck_assert_double_eq(z.static_j[k], 0);
	}
	ck_assert_double_eq(b.static_total_j, 2 * a.static_total_j);
	ck_assert_double_eq(b.half_j, 2 * a.half_j);
	ck_assert_double_eq(z.total_j, a.dynamic_total_j);
	ck_assert_double_eq_tol((b.total_j - a.total_j), a.static_total_j, 1e-12 * b.total_j);
	/* static power: SMs, L1s, banks, 2 x 4 routers, 1 channel */
	ck_assert_double_eq_tol(a.static_total_j / 3e-4,
				2 * 1.57 + 2 * 0.02 + 2 * 0.12 + 8 * 0.03 + 1 * 0.5, 1e-9);
	cs_stats_destroy(s);
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
	/* node = 22nm: on-chip dynamic x0.45, static x0.5, DRAM unchanged */
	ck_assert_int_eq(load("energy = { node = \"22nm\"; };", NULL, &m, msg, sizeof(msg)), 0);
	ck_assert_mem_eq(&m, &d22, sizeof(m));
	ck_assert_uint_eq(m.node, EN_NODE_22NM);
	for (unsigned e = 0; e < EN_EVENTS; e++) {
		double f = energy_events[e].comp == EN_DRAM ? 1 : 0.45;

		ck_assert_double_eq(m.pj[e], energy_events[e].pj_40nm * f);
	}
	for (unsigned k = 0; k < EN_COMPS; k++)
		ck_assert_double_eq(m.static_w[k], energy_statics[k].w_40nm * 0.5);
	ck_assert_double_eq(energy_node_scale(EN_NODE_28NM, EN_SCALE_LOGIC), 0.6);

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
	energy_compute(&d40, &shape, &c, 1e-4, 0, &r0);
	energy_compute(&m, &shape, &c, 1e-4, 0, &r1);
	for (unsigned e = 0; e < EN_EVENTS; e++)
		if (e != EN_NOC_LINK)
			ck_assert_double_eq(r1.event_j[e], r0.event_j[e]);
	ck_assert_double_eq(r1.event_j[EN_NOC_LINK], c.n[EN_NOC_LINK] * 42 * 1e-12);
	for (unsigned k = 0; k < EN_COMPS; k++)
		if (k != EN_NOC)
			ck_assert_double_eq(r1.dynamic_j[k], r0.dynamic_j[k]);
	ck_assert_double_eq_tol((r1.total_j - r0.total_j), c.n[EN_NOC_LINK] * (42 - 90) * 1e-12,
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

/* Runs bfs under protocol; keeps the result and link sums taken from the JSON stats. */
static void run(const char *protocol, const char *extra_set, struct outcome *o)
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
	json_decref(stats);
	cs_system_destroy(sys);
	cs_config_close(cfg);
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
	/* 4 SMs at 1.57 W */
	ck_assert_double_eq_tol(comp(o, "sm", "static_w"), 4 * 1.57, 1e-12);
	ck_assert_str_eq(json_string_value(json_object_get(o->res, "energy_node")), "40nm");
}

START_TEST(test_real_runs_follow_counts)
{
	struct outcome tc, gt, bl, gt28;

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

		ck_assert_double_eq_tol(dj, (dr * 50 + dl * 90) * 1e-12, 1e-9 * fabs(dj) + 1e-18);
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
	tcase_add_test(t, test_counts_from_stats);
	tcase_add_test(t, test_counts_times_energies);
	tcase_add_test(t, test_static_scales_with_time);
	tcase_add_test(t, test_nodes_and_overrides);
	tcase_add_test(t, test_bad_config);
	tcase_add_test(t, test_real_runs_follow_counts);
	tcase_add_test(t, test_hybrid_half_width);
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
