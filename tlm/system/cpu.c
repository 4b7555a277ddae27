/*
 * tlm/system/cpu.c - system "cpu": `cpus.cores` CPU cores (tlm/core/cpu.h), each with its own
 * ideal coherent memory port (tlm/mem/idealport.h) over one backing store, and the host side of
 * the CPU op API. Memory is exactly x86-TSO: what the litmus runner's X86 tests and the CPU unit
 * tests need.
 *
 * The smallest builder CPU cores need, kept data-driven (the core count and every parameter
 * come from the configuration); the generic system builder of issue 17 will absorb it as one
 * configuration (CPU cluster, ideal memory side).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/core/cpu.h"
#include "tlm/mem/idealport.h"
#include "tlm/mem/store.h"
#include "tlm/system/cpu.h"
#include "tlm/system/system.h"
#include "workloads/workload.h"

struct cpus_cfg {
	uint64_t cores;
};

static const struct cs_param cpus_rows[] = {
    {"cores", CS_P_UINT, offsetof(struct cpus_cfg, cores), "4", "",
     "CPU cores of system cpu, one thread each", 1, 256, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table cs_cpus_params = {
    .section = "cpus",
    .help = "system cpu: its cores, each with an ideal coherent memory port",
    .params = cpus_rows,
    .size = sizeof(struct cpus_cfg),
};

#define CPU_NOTES 8

struct cpu_sys {
	struct cs_system *s;
	struct cpus_cfg sc;
	struct cpu_core_cfg cpu;
	struct idealport_cfg ip;
	struct mem_store *store;
	unsigned n;
	struct cpu_core **core;
	struct cpu_mem **port;
	struct cpu_host host;
	struct sim_event *done_ev;
	unsigned running;
	uint64_t runs, heap;
	bool failed, host_finished;
	int fail_code, host_rc;
	char fail_msg[400];
	unsigned nnotes;
	char notes[CPU_NOTES][160];
};

static void sys_fail(void *obj, int code, const char *msg)
{
	struct cpu_sys *g = obj;

	if (!g->failed) {
		g->failed = true;
		g->fail_code = code;
		snprintf(g->fail_msg, sizeof(g->fail_msg), "%s", msg);
	}
	sim_fail(g->s->k, code, "%s", msg);
}

static void thread_done(void *obj, unsigned core)
{
	struct cpu_sys *g = obj;

	(void)core;
	if (!--g->running)
		sim_event_notify_delayed(g->done_ev, 0);
}

/* ---- host side ------------------------------------------------------------------------------ */

static uint64_t h_alloc(void *obj, uint64_t bytes, uint64_t align)
{
	struct cpu_sys *g = obj;
	uint64_t a;

	if (!align || (align & (align - 1)))
		align = 64;
	a = (g->heap + align - 1) & ~(align - 1);
	g->heap = a + (bytes ? bytes : 1);
	return a;
}

static void h_read(void *obj, uint64_t addr, void *buf, size_t len)
{
	struct cpu_sys *g = obj;

	mem_store_read(g->store, addr, buf, len);
}

static void h_write(void *obj, uint64_t addr, const void *buf, size_t len)
{
	struct cpu_sys *g = obj;

	if (g->running)
		sys_fail(g, -CS_ESTATE, "cpu: a host copy while a program runs");
	else if (mem_store_write(g->store, addr, buf, len))
		sys_fail(g, -CS_ENOMEM, "cpu: out of memory");
}

static int h_run(void *obj, const struct cpu_program *p)
{
	struct cpu_sys *g = obj;
	uint64_t used = 0;

	if (g->failed)
		return g->fail_code;
	if (!p->fn || !p->threads || p->threads > g->n) {
		char msg[200];

		snprintf(msg, sizeof(msg),
			 "program '%s': %u threads on %u cores (cpus.cores): one thread per core",
			 p->name ? p->name : "?", p->threads, g->n);
		sys_fail(g, -CS_ECONFIG, msg);
		return -CS_ECONFIG;
	}
	for (unsigned i = 0; i < p->threads; i++) {
		unsigned c = p->thread_core ? p->thread_core[i] : i;

		if (c >= g->n || (c < 64 && (used >> c & 1))) {
			sys_fail(g, -CS_EINVAL, "cpu: thread placement: bad or shared core");
			return -CS_EINVAL;
		}
		if (c < 64)
			used |= 1ull << c;
	}
	g->running = p->threads;
	for (unsigned i = 0; i < p->threads; i++) {
		int rc =
		    cpu_core_start(g->core[p->thread_core ? p->thread_core[i] : i], p, i, g->runs);

		if (rc) {
			sys_fail(g, rc, "cpu: a core is busy");
			return rc;
		}
	}
	g->runs++;
	sim_wait_event(g->s->k, g->done_ev);
	return g->failed ? g->fail_code : 0;
}

static unsigned h_cores(const void *obj)
{
	return ((const struct cpu_sys *)obj)->n;
}

static void h_note(void *obj, const char *msg)
{
	struct cpu_sys *g = obj;

	if (g->nnotes < CPU_NOTES)
		snprintf(g->notes[g->nnotes++], sizeof(g->notes[0]), "%s", msg);
}

static const struct cpu_host_ops host_ops = {
    .alloc = h_alloc,
    .read = h_read,
    .write = h_write,
    .run = h_run,
    .cores = h_cores,
    .fail = sys_fail,
    .note = h_note,
};

/* ---- build, run, report --------------------------------------------------------------------- */

static void cpu_destroy(struct cs_system *s)
{
	struct cpu_sys *g = s->priv;

	if (!g)
		return;
	for (unsigned i = 0; i < g->n; i++) {
		if (g->core)
			cpu_core_destroy(g->core[i]);
		if (g->port && g->port[i])
			idealport_ops.destroy(g->port[i]);
	}
	free(g->core);
	free(g->port);
	mem_store_destroy(g->store);
	free(g);
	s->priv = NULL;
}

static int cpu_build(struct cs_system *s, struct cs_err *err)
{
	struct cpu_sys *g = calloc(1, sizeof(*g));
	struct cs_stat_group *root;
	struct cpu_core_env env;
	char name[32];
	int rc;

	if (!g)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	s->priv = g;
	g->s = s;
	if ((rc = cs_config_section(s->cfg, &cs_cpus_params, &g->sc, err)) ||
	    (rc = cs_config_section(s->cfg, &cpu_core_params, &g->cpu, err)) ||
	    (rc = cs_config_section(s->cfg, &idealport_params, &g->ip, err)))
		return rc;
	g->n = (unsigned)g->sc.cores;
	g->core = calloc(g->n, sizeof(*g->core));
	g->port = calloc(g->n, sizeof(*g->port));
	g->done_ev = sim_event_create(s->k, "cpu.program_done");
	if (!g->core || !g->port || !g->done_ev || mem_store_create(&g->store))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	g->heap = 0x10000; /* address 0 stays unused: a null pointer is never a location */
	g->host = (struct cpu_host){
	    .ops = &host_ops, .sys = g, .seed = s->sim.seed, .arg = s->workload_arg};
	env = (struct cpu_core_env){
	    .sys = g, .fail = sys_fail, .thread_done = thread_done, .seed = s->sim.seed};
	root = cs_stat_group(cs_stats_root(s->stats), "cpu");
	for (unsigned i = 0; i < g->n; i++) {
		struct cs_stat_group *cg;

		snprintf(name, sizeof(name), "core%u", i);
		cg = cs_stat_group(root, name);
		rc = cpu_core_create(s->k, &g->cpu, i, &env, cg, &g->core[i], err);
		if (rc)
			return rc;
		rc = idealport_create(s->k, cpu_core_clock(g->core[i]), g->store, &g->ip,
				      cs_stat_group(cg, "mem"), &g->port[i], err);
		if (rc)
			return rc;
		cpu_core_attach(g->core[i], &idealport_ops, g->port[i]);
	}
	return 0;
}

static void host_main(struct sim_kernel *k, void *ctx)
{
	struct cpu_sys *g = ctx;

	(void)k;
	g->host_rc = g->s->workload->cpu(&g->host);
	g->host_finished = true;
}

static uint64_t cycles_now(const struct cpu_sys *g)
{
	return g->n ? sim_clock_cycle(cpu_core_clock(g->core[0]), sim_now(g->s->k)) : 0;
}

static int cpu_run(struct cs_system *s, struct cs_err *err)
{
	struct cpu_sys *g = s->priv;
	int rc;

	if (!s->workload->cpu)
		return cs_err_set(err, -CS_ECONFIG, "workload '%s' has no CPU program",
				  s->workload->name);
	if (!sim_thread_create(s->k, "host", host_main, g, (size_t)g->cpu.stack_kib * 1024 * 4))
		return cs_err_set(err, -CS_ENOMEM, "cannot create the host thread");
	rc = sim_run(s->k);
	if (g->failed)
		return cs_err_set(err, g->fail_code, "%s", g->fail_msg);
	if (rc)
		return cs_err_set(err, rc, "%s", sim_failure(s->k) ? sim_failure(s->k) : "failed");
	if (!g->host_finished)
		return cs_err_set(err, -CS_ESTATE,
				  "the simulation ran out of events with the host program still "
				  "waiting (a deadlock in the model) at %" PRIu64 " cycles",
				  cycles_now(g));
	if (g->host_rc)
		return cs_err_set(err, g->host_rc, "%s", cs_strerror(g->host_rc));
	for (unsigned i = 0; i < g->n; i++)
		if (!cpu_core_idle(g->core[i]))
			return cs_err_set(err, -CS_ESTATE, "CPU core %u is not idle at the end", i);
	return 0;
}

static double stat_sum(const struct cpu_sys *g, const char *what)
{
	double sum = 0, v;
	char name[96];

	for (unsigned i = 0; i < g->n; i++) {
		snprintf(name, sizeof(name), "cpu.core%u.%s", i, what);
		if (!cs_stats_value(g->s->stats, name, &v))
			sum += v;
	}
	return sum;
}

static const char *const summary_keys[] = {"insts",	"loads",	   "stores",
					   "atomics",	"fences",	   "sb.forwards",
					   "sb.stalls", "sb.stall_cycles", "stall.drain_cycles",
					   "stall.mlp"};

static int cpu_report(struct cs_system *s, FILE *f)
{
	struct cpu_sys *g = s->priv;

	fprintf(f,
		"cpu: %u cores at %" PRIu64 " MHz, x86-TSO, store buffer %" PRIu64
		", ideal memory (%" PRIu64 " cycles), workload %s\n",
		g->n, g->cpu.clock_mhz, g->cpu.store_buffer, g->ip.latency, s->workload->name);
	fprintf(f, "  cycles            %" PRIu64 " (core clock, %.3f us)\n", cycles_now(g),
		(double)sim_now(s->k) / SIM_US);
	for (size_t i = 0; i < sizeof(summary_keys) / sizeof(summary_keys[0]); i++)
		fprintf(f, "  %-17s %.0f\n", summary_keys[i], stat_sum(g, summary_keys[i]));
	for (unsigned i = 0; i < g->nnotes; i++)
		fprintf(f, "  %s\n", g->notes[i]);
	return ferror(f) ? -CS_EIO : 0;
}

static json_t *cpu_result(struct cs_system *s)
{
	struct cpu_sys *g = s->priv;
	json_t *r = json_object(), *notes = json_array();

	json_object_set_new(r, "workload", json_string(s->workload->name));
	json_object_set_new(r, "cores", json_integer(g->n));
	json_object_set_new(r, "cycles", json_integer((json_int_t)cycles_now(g)));
	for (size_t i = 0; i < sizeof(summary_keys) / sizeof(summary_keys[0]); i++)
		json_object_set_new(r, summary_keys[i],
				    json_integer((json_int_t)stat_sum(g, summary_keys[i])));
	for (unsigned i = 0; i < g->nnotes; i++)
		json_array_append_new(notes, json_string(g->notes[i]));
	json_object_set_new(r, "notes", notes);
	return r;
}

const struct cs_system_ops cs_cpu_system = {
    .version = 1,
    .name = "cpu",
    .help = "CPU cores (x86-TSO store buffers) on an ideal coherent memory",
    .modes = 1u << CS_MODE_DETAILED,
    .build = cpu_build,
    .run = cpu_run,
    .report = cpu_report,
    .result = cpu_result,
    .destroy = cpu_destroy,
};
