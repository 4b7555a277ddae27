/*
 * tlm/system/selfcheck.c - system "selfcheck": the kernel checking itself against numbers
 * known in closed form. It is the default job until the GPU model exists.
 *
 *  pingpong: pairs of processes (methods and threads) re-arming each other 1-4 ns ahead until
 *    pingpong.end_ns; the number of activations of each pair by then is known exactly.
 *  memtest: traffic initiators write and read back through TLM sockets, once approximately
 *    timed against memory_at (every socket under the base-protocol checker) and once loosely
 *    timed under the quantum keeper against memory_lt. Finish times are known exactly (AT when
 *    the accept stage is not the bottleneck, otherwise bounded), reads must return what was
 *    written, both faces must leave identical memory contents, and no payload may leak.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/core/traffic.h"
#include "tlm/mem/memtarget.h"
#include "tlm/system/system.h"
#include "workloads/workload.h"

struct pingpong_cfg {
	uint64_t procs;
	uint64_t end_ns;
};

static const struct cs_param pingpong_params[] = {
    {"procs", CS_P_UINT, offsetof(struct pingpong_cfg, procs), "1024", "",
     "processes of each variant (methods, threads), in pairs", 2, 1 << 20, NULL},
    {"end_ns", CS_P_UINT, offsetof(struct pingpong_cfg, end_ns), "20000", "ns",
     "no activation after this time", 1, 1e9, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

static const struct cs_param_table pingpong_table = {
    .section = "pingpong",
    .help = "kernel self-check: process pairs re-arming each other",
    .params = pingpong_params,
    .size = sizeof(struct pingpong_cfg),
};

#define MAX_CHECKS 8

struct check {
	char name[48];
	char expected[48];
	char measured[48];
	bool pass;
};

struct pp_proc {
	struct selfcheck *sc;
	unsigned id;
	struct sim_event *ev;
	struct pp_proc *partner;
	uint64_t *count;
};

struct selfcheck {
	bool run_pingpong, run_memtest;
	struct pingpong_cfg pp;
	struct memtarget_cfg mem; /* as loaded at build: the checks use the same values */
	struct traffic_cfg tg;
	struct pp_proc *procs; /* methods then threads */
	uint64_t *pp_method_count, *pp_thread_count;
	struct cs_component *mem_at, *mem_lt, *tg_at, *tg_lt;
	struct check checks[MAX_CHECKS];
	unsigned nchecks;
	double host_s;
};

/* ---- ping-pong ---------------------------------------------------------------------------------- */

static sim_time_t pp_delay(unsigned id)
{
	return (1 + id % 4) * SIM_NS;
}

/* One activation at the current time; re-arm the partner if that stays within end_ns. */
static void pp_activate(struct sim_kernel *k, struct pp_proc *p)
{
	sim_time_t next = sim_now(k) + pp_delay(p->id);

	++*p->count;
	if (next <= p->sc->pp.end_ns * SIM_NS)
		sim_event_notify_delayed(p->partner->ev, pp_delay(p->id));
}

static void pp_method(struct sim_kernel *k, void *ctx)
{
	pp_activate(k, ctx);
}

static void pp_thread(struct sim_kernel *k, void *ctx)
{
	struct pp_proc *p = ctx;

	for (;;) {
		sim_wait_event(k, p->ev);
		pp_activate(k, p);
	}
}

/* Activations of one pair by end: the first of the pair at 1 ns, then alternately d(a), d(b). */
static uint64_t pp_expected_pair(unsigned a, sim_time_t end)
{
	sim_time_t t0 = 1 * SIM_NS, da = pp_delay(a), db = pp_delay(a + 1), c = da + db;
	uint64_t n = 0;

	if (end >= t0)
		n += (end - t0) / c + 1;
	if (end >= t0 + da)
		n += (end - t0 - da) / c + 1;
	return n;
}

static int pp_build(struct cs_system *s, struct selfcheck *sc, struct cs_err *err)
{
	unsigned n = (unsigned)sc->pp.procs;
	struct cs_stat_group *g = cs_stat_group(cs_stats_root(s->stats), "pingpong");

	if (n % 2) {
		char where[CS_WHERE_MAX];

		cs_config_origin(s->cfg, "pingpong", "procs", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must be even", where);
	}
	sc->procs = calloc(2 * (size_t)n, sizeof(*sc->procs));
	if (!sc->procs)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	sc->pp_method_count =
	    cs_stat_counter(g, "method.activations", "activations", "method process activations");
	sc->pp_thread_count =
	    cs_stat_counter(g, "thread.activations", "activations", "thread process activations");
	for (unsigned i = 0; i < 2 * n; i++) {
		struct pp_proc *p = &sc->procs[i];
		bool thread = i >= n;
		unsigned id = i % n;

		p->sc = sc;
		p->id = id;
		p->partner = &sc->procs[i ^ 1u];
		p->count = thread ? sc->pp_thread_count : sc->pp_method_count;
		p->ev = sim_event_create(s->k, "pingpong");
		if (!p->ev)
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		if (thread) {
			if (!sim_thread_create(s->k, "pingpong.thread", pp_thread, p, 16 * 1024))
				return cs_err_set(err, -CS_ENOMEM, "cannot create threads");
		} else {
			struct sim_process *pr =
			    sim_method_create(s->k, "pingpong.method", pp_method, p);

			if (!pr || sim_sensitive(pr, p->ev))
				return cs_err_set(err, -CS_ENOMEM, "out of memory");
			sim_dont_initialize(pr);
		}
		/* the first of each pair starts at 1 ns */
		if (id % 2 == 0)
			sim_event_notify_delayed(p->ev, 1 * SIM_NS);
	}
	return 0;
}

/* ---- memtest ------------------------------------------------------------------------------------ */

static int bind_all(struct cs_system *s, struct cs_component *tg, struct cs_component *mem,
		    struct cs_err *err)
{
	for (unsigned i = 0; i < traffic_initiators(tg); i++) {
		struct tlm_target_socket *ts = memtarget_port(mem, i);

		if (!ts) {
			char where[CS_WHERE_MAX];

			cs_config_origin(s->cfg, "traffic", "initiators", where, sizeof(where));
			return cs_err_set(err, -CS_ECONFIG, "%s: more than memory.ports", where);
		}
		if (tlm_bind(traffic_socket(tg, i), ts))
			return cs_err_set(err, -CS_ESTATE, "socket bound twice");
	}
	return 0;
}

static int mt_build(struct cs_system *s, struct selfcheck *sc, struct cs_err *err)
{
	int rc;

	rc = cs_component_new(s, "memory", "memory_at", &sc->mem_at, err);
	if (!rc)
		rc = cs_component_new(s, "memory", "memory_lt", &sc->mem_lt, err);
	if (!rc)
		rc = cs_component_new(s, "traffic", "traffic_at", &sc->tg_at, err);
	if (!rc)
		rc = cs_component_new(s, "traffic", "traffic_lt", &sc->tg_lt, err);
	if (rc)
		return rc;
	traffic_set_mode(sc->tg_at, TRAFFIC_AT);
	traffic_set_mode(sc->tg_lt, TRAFFIC_LT);
	rc = bind_all(s, sc->tg_at, sc->mem_at, err);
	return rc ? rc : bind_all(s, sc->tg_lt, sc->mem_lt, err);
}

/* ---- checks ------------------------------------------------------------------------------------- */

static void add_check(struct selfcheck *sc, const char *name, bool pass, const char *fmt_exp,
		      uint64_t exp, const char *fmt_meas, uint64_t meas)
{
	struct check *c;

	if (sc->nchecks == MAX_CHECKS)
		return;
	c = &sc->checks[sc->nchecks++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->expected, sizeof(c->expected), fmt_exp, exp);
	snprintf(c->measured, sizeof(c->measured), fmt_meas, meas);
	c->pass = pass;
}

static void check_pingpong(struct cs_system *s, struct selfcheck *sc)
{
	sim_time_t end = sc->pp.end_ns * SIM_NS;
	uint64_t expect = 0;

	for (unsigned a = 0; a < sc->pp.procs; a += 2)
		expect += pp_expected_pair(a, end);
	add_check(sc, "pingpong.method activations", *sc->pp_method_count == expect, "%" PRIu64,
		  expect, "%" PRIu64, *sc->pp_method_count);
	add_check(sc, "pingpong.thread activations", *sc->pp_thread_count == expect, "%" PRIu64,
		  expect, "%" PRIu64, *sc->pp_thread_count);
	(void)s;
}

static void check_memtest(struct cs_system *s, struct selfcheck *sc)
{
	struct traffic_result at, lt;
	uint64_t n = sc->tg.initiators, it = sc->tg.iterations;
	uint64_t A = sc->mem.accept_ns * SIM_NS, L = sc->mem.latency_ns * SIM_NS;
	uint64_t lo, hi;
	bool exact;

	traffic_result(sc->tg_at, &at);
	traffic_result(sc->tg_lt, &lt);
	/* AT: initiator i's k-th access is accepted at i*A + k*L while the accept stage keeps
	 * up (n*A <= L); otherwise the stage is the bottleneck and the time lies between the
	 * two bounds below. */
	exact = n * A <= L;
	lo = (n - 1) * A + 2 * it * L;
	if ((2 * it * n - 1) * A + L > lo)
		lo = (2 * it * n - 1) * A + L;
	hi = exact ? lo : 2 * it * (L + n * A);
	add_check(sc, exact ? "memtest.at finish (ps)" : "memtest.at finish >= (ps)",
		  at.finished >= lo && at.finished <= hi, "%" PRIu64, lo, "%" PRIu64, at.finished);
	/* LT: no contention is modelled on this face; each access annotates L */
	add_check(sc, "memtest.lt finish (ps)", lt.finished == 2 * it * L, "%" PRIu64, 2 * it * L,
		  "%" PRIu64, lt.finished);
	add_check(sc, "memtest reads == writes (at+lt)",
		  at.mismatches + lt.mismatches + at.errors + lt.errors == 0 &&
		      at.ops == 2 * n * it && lt.ops == 2 * n * it,
		  "%" PRIu64 " bad", 0, "%" PRIu64 " bad",
		  at.mismatches + lt.mismatches + at.errors + lt.errors);
	add_check(sc, "memtest at/lt memory equal",
		  memtarget_digest(sc->mem_at) == memtarget_digest(sc->mem_lt), "%016" PRIx64,
		  memtarget_digest(sc->mem_at), "%016" PRIx64, memtarget_digest(sc->mem_lt));
	add_check(sc, "payloads leaked", tlm_pool_live(s->pool) == 0, "%" PRIu64, 0, "%" PRIu64,
		  tlm_pool_live(s->pool));
}

static int load_memtest_sections(struct cs_system *s, struct selfcheck *sc, struct cs_err *err)
{
	int rc = cs_config_section(s->cfg, cs_component_find("memory")->params, &sc->mem, err);

	return rc ? rc
		  : cs_config_section(s->cfg, cs_component_find("traffic")->params, &sc->tg, err);
}

/* ---- system ops --------------------------------------------------------------------------------- */

static int sc_build(struct cs_system *s, struct cs_err *err)
{
	struct selfcheck *sc = calloc(1, sizeof(*sc));
	const char *w = s->workload->name;
	int rc = 0;

	if (!sc)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	s->priv = sc;
	sc->run_pingpong = strcmp(w, "selfcheck") == 0 || strcmp(w, "pingpong") == 0;
	sc->run_memtest = strcmp(w, "selfcheck") == 0 || strcmp(w, "memtest") == 0;
	/* Every section of the system is loaded, and so checked, whichever workload runs: one
	 * configuration serves all of them. */
	rc = cs_config_section(s->cfg, &pingpong_table, &sc->pp, err);
	if (!rc)
		rc = load_memtest_sections(s, sc, err);
	if (!rc && sc->run_pingpong)
		rc = pp_build(s, sc, err);
	if (!rc && sc->run_memtest)
		rc = mt_build(s, sc, err);
	return rc;
}

static int sc_run(struct cs_system *s, struct cs_err *err)
{
	struct selfcheck *sc = s->priv;
	int rc = sim_run(s->k);

	if (rc)
		return cs_err_set(err, rc, "simulation failed: %s",
				  sim_failure(s->k) ? sim_failure(s->k) : cs_strerror(rc));
	if (sc->run_pingpong)
		check_pingpong(s, sc);
	if (sc->run_memtest)
		check_memtest(s, sc);
	for (unsigned i = 0; i < sc->nchecks; i++)
		if (!sc->checks[i].pass)
			return cs_err_set(
			    err, -CS_ECHECK, "self-check '%s' failed: expected %s, got %s",
			    sc->checks[i].name, sc->checks[i].expected, sc->checks[i].measured);
	return 0;
}

static int sc_report(struct cs_system *s, FILE *f)
{
	struct selfcheck *sc = s->priv;

	fprintf(f, "%-34s %20s %20s  %s\n", "check", "expected", "measured", "result");
	for (unsigned i = 0; i < sc->nchecks; i++)
		fprintf(f, "%-34s %20s %20s  %s\n", sc->checks[i].name, sc->checks[i].expected,
			sc->checks[i].measured, sc->checks[i].pass ? "pass" : "FAIL");
	return 0;
}

static json_t *sc_result(struct cs_system *s)
{
	struct selfcheck *sc = s->priv;
	json_t *arr = json_array();

	for (unsigned i = 0; arr && i < sc->nchecks; i++)
		json_array_append_new(
		    arr, json_pack("{s:s, s:s, s:s, s:b}", "check", sc->checks[i].name, "expected",
				   sc->checks[i].expected, "measured", sc->checks[i].measured,
				   "pass", sc->checks[i].pass));
	return json_pack("{s:o}", "checks", arr);
}

static void sc_destroy(struct cs_system *s)
{
	struct selfcheck *sc = s->priv;

	if (!sc)
		return;
	free(sc->procs);
	free(sc);
	s->priv = NULL;
}

const struct cs_system_ops cs_selfcheck_system = {
    .version = 1,
    .name = "selfcheck",
    .help = "the kernel checking itself against closed-form results (the default job)",
    .modes = 1u << CS_MODE_DETAILED,
    .build = sc_build,
    .run = sc_run,
    .report = sc_report,
    .result = sc_result,
    .destroy = sc_destroy,
};
