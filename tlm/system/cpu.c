/*
 * tlm/system/cpu.c - system "cpu": `cpus.cores` CPU cores (tlm/core/cpu.h) over one backing
 * store, and the host side of the CPU op API. The cores' memory side (`cpus.memory`) is either
 * an ideal coherent memory port per core (tlm/mem/idealport.h: memory is exactly x86-TSO,
 * what the CPU unit tests need) or seed 002's APU memory side (tlm/system/apu_mem.h:
 * CorePairs with MOESI caches, the stateless directory and its victim LLC, DRAM).
 *
 * Kept data-driven (the core count, the memory side and every parameter come from the
 * configuration); the generic system builder of issue 17 will absorb it as configurations of
 * a CPU cluster.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/ltmodel.h"
#include "sampling/sampler.h"
#include "tlm/core/cpu.h"
#include "tlm/mem/idealport.h"
#include "tlm/mem/store.h"
#include "tlm/system/apu_mem.h"
#include "tlm/system/cpu.h"
#include "tlm/system/system.h"
#include "workloads/workload.h"

enum cpus_memory { CPUS_MEM_IDEAL = 0, CPUS_MEM_APU };

static const char *const memory_names[] = {"ideal", "apu", NULL};

struct cpus_cfg {
	uint64_t cores;
	unsigned memory; /* enum cpus_memory */
};

static const struct cs_param cpus_rows[] = {
    {"cores", CS_P_UINT, offsetof(struct cpus_cfg, cores), "4", "",
     "CPU cores of system cpu, one thread each", 1, 256, NULL},
    {"memory", CS_P_ENUM, offsetof(struct cpus_cfg, memory), "ideal", "",
     "the cores' memory side: ideal (a coherent memory port per core: exactly x86-TSO) or apu "
     "(seed 002's CorePairs, directory with its victim LLC, DRAM; docs/apu.md)",
     0, 0, memory_names},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table cs_cpus_params = {
    .section = "cpus",
    .help = "system cpu: its cores and their memory side",
    .params = cpus_rows,
    .size = sizeof(struct cpus_cfg),
};

#define CPU_NOTES 8

_Static_assert((int)CPU_FACE_AT == (int)SAMP_FACE_AT && (int)CPU_FACE_LT == (int)SAMP_FACE_LT &&
		   (int)CPU_FACE_FF == (int)SAMP_FACE_FF,
	       "a core's faces are the sampler's");

/* A program run (ch_run): the sampler's kernel. */
struct run_rec {
	char name[48];
	unsigned threads;
	sim_time_t start, end;
	struct samp_estimate est; /* hybrid, analytic */
	double at_cycles, lt_cycles;
};

struct cpu_sys {
	struct cs_system *s;
	struct cpus_cfg sc;
	struct cpu_core_cfg cpu;
	struct idealport_cfg ip;
	struct mem_store *store;
	struct apu_mem *apu;  /* cpus.memory = apu, else NULL */
	struct lt_params ltp; /* the APU memory side's LT contention model */
	unsigned n;
	struct cpu_core **core;
	struct cpu_mem **port; /* ideal ports (cpus.memory = ideal) */
	struct cpu_host host;
	struct sim_event *done_ev;
	unsigned running;
	uint64_t runs, heap;
	bool failed, host_finished;
	int fail_code, host_rc;
	char fail_msg[400];
	unsigned nnotes;
	char notes[CPU_NOTES][160];

	/* modes: the sampling layer over the cores */
	unsigned mode; /* enum cs_mode */
	struct samp_cfg scfg;
	struct sampler *sampler;
	struct run_rec *recs;
	unsigned nrecs, recs_cap;
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

/* The program's last thread is done now: the sampler closes its books. */
static void program_end(struct cpu_sys *g)
{
	struct run_rec *r = &g->recs[g->nrecs - 1];
	struct samp_kernel_facts f;
	double at_ps, lt_ps, cyc = (double)sim_clock_period_ps(cpu_core_clock(g->core[0]));

	r->end = sim_now(g->s->k);
	sampler_kernel_close(g->sampler, r->end, &f);
	sampler_kernel_ps(g->sampler, &at_ps, &lt_ps);
	r->at_cycles = f.at_cycles;
	r->lt_cycles = lt_ps / cyc;
	if (g->mode != CS_MODE_DETAILED)
		sampler_kernel_estimate(g->sampler, &f, &r->est);
}

static void thread_done(void *obj, unsigned core)
{
	struct cpu_sys *g = obj;

	(void)core;
	if (!--g->running) {
		program_end(g);
		sim_event_notify_delayed(g->done_ev, 0);
	}
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

	if (g->apu)
		apu_mem_read(g->apu, addr, buf, len);
	else
		mem_store_read(g->store, addr, buf, len);
}

static void h_write(void *obj, uint64_t addr, const void *buf, size_t len)
{
	struct cpu_sys *g = obj;

	if (g->running)
		sys_fail(g, -CS_ESTATE, "cpu: a host copy while a program runs");
	else if (g->apu ? apu_mem_write(g->apu, addr, buf, len)
			: mem_store_write(g->store, addr, buf, len))
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
	if (g->nrecs == g->recs_cap) {
		unsigned c = g->recs_cap ? 2 * g->recs_cap : 8;
		struct run_rec *nr = realloc(g->recs, c * sizeof(*nr));

		if (!nr) {
			sys_fail(g, -CS_ENOMEM, "cpu: out of memory");
			return -CS_ENOMEM;
		}
		g->recs = nr;
		g->recs_cap = c;
	}
	g->recs[g->nrecs] = (struct run_rec){.threads = p->threads, .start = sim_now(g->s->k)};
	snprintf(g->recs[g->nrecs].name, sizeof(g->recs[0].name), "%s", p->name ? p->name : "?");
	g->nrecs++;
	/* a program run is the sampler's kernel: its name and thread count are its signature */
	sampler_kernel_begin(g->sampler, p->name ? p->name : "program", p->threads, 1);
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
	/* the host's copies see memory once the caches' victims and write-backs have landed */
	while (g->apu && !g->failed && !apu_mem_idle(g->apu))
		sim_wait_time(g->s->k, sim_clock_period_ps(cpu_core_clock(g->core[0])));
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

/* ---- the sampling layer ------------------------------------------------------------------- */

static void ini_set_face(void *obj, unsigned face)
{
	cpu_core_set_face(obj, face);
}

static void ini_hold(void *obj, bool hold)
{
	cpu_core_hold(obj, hold);
}

static bool ini_busy(const void *obj)
{
	return cpu_core_busy(obj);
}

static uint64_t ini_work(const void *obj)
{
	return cpu_core_work(obj);
}

static unsigned ini_occupancy(const void *obj)
{
	return cpu_core_occupancy(obj);
}

static const struct samp_initiator_ops core_initiator = {
    .set_face = ini_set_face,
    .hold = ini_hold,
    .busy = ini_busy,
    .work = ini_work,
    .occupancy = ini_occupancy,
};

/* The ideal ports hold every access the cores make (cpu_core_busy asks them): the ideal
 * memory has nothing else in flight; the APU memory side has its victims and write-backs. */
static bool cpu_memory_idle(void *obj)
{
	const struct cpu_sys *g = obj;

	return !g->apu || apu_mem_idle(g->apu);
}

/* The ideal memory has no network: traffic is the bytes the ports moved (a line per load, the
 * stored bytes, a word per atomic are not told apart: 0 keeps the estimate's traffic out of
 * it). The APU memory side counts its network's bytes. */
static double cpu_traffic(void *obj)
{
	const struct cpu_sys *g = obj;

	return g->apu ? apu_mem_traffic(g->apu) : 0;
}

static bool cpu_all_started(void *obj)
{
	(void)obj;
	return true; /* every thread of a program starts at once */
}

static const struct samp_system_ops cpu_sampled = {
    .idle = cpu_memory_idle,
    .traffic = cpu_traffic,
    .all_started = cpu_all_started,
};

const char *cpu_sys_memory_name(const struct cs_system *s)
{
	const struct cpu_sys *g = s->priv;

	return g->apu ? apu_mem_ops(g->apu)->name : idealport_ops.name;
}

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
	apu_mem_destroy(g->apu);
	sampler_destroy(g->sampler);
	free(g->recs);
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
	    (rc = cs_config_section(s->cfg, &idealport_params, &g->ip, err)) ||
	    (rc = cs_config_section(s->cfg, &samp_params, &g->scfg, err)))
		return rc;
	g->mode = s->sys.mode;
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
	if (g->sc.memory == CPUS_MEM_APU) {
		rc = apu_mem_create(s, g->n, g->store, root, &g->apu, err);
		if (rc)
			return rc;
		lt_params_default(&g->ltp);
		g->ltp.exact = g->scfg.lt_exact;
		apu_mem_set_lt(g->apu, &g->ltp);
	}
	for (unsigned i = 0; i < g->n; i++) {
		struct cs_stat_group *cg;

		snprintf(name, sizeof(name), "core%u", i);
		cg = cs_stat_group(root, name);
		rc = cpu_core_create(s->k, &g->cpu, i, &env, cg, &g->core[i], err);
		if (rc)
			return rc;
		if (g->apu) {
			cpu_core_attach(g->core[i], apu_mem_ops(g->apu), apu_mem_port(g->apu, i));
			continue;
		}
		rc = idealport_create(s->k, cpu_core_clock(g->core[i]), g->store, &g->ip,
				      cs_stat_group(cg, "mem"), &g->port[i], err);
		if (rc)
			return rc;
		cpu_core_attach(g->core[i], &idealport_ops, g->port[i]);
	}
	if (sampler_create(s->k, cpu_core_clock(g->core[0]), &g->scfg, g->mode, &cpu_sampled, g,
			   &g->sampler))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (unsigned i = 0; i < g->n; i++) {
		if (sampler_add_initiator(g->sampler, &core_initiator, g->core[i]))
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		/* as the SMs: a thread runs at most sampling.quantum cycles ahead, well within a
		 * unit's warm-up (sim.quantum_ns, 3500 cycles at 3.5 GHz, is longer than a unit:
		 * at a switch to AT the threads would sleep through it) */
		cpu_core_set_quantum(
		    g->core[i], sim_clock_delay(cpu_core_clock(g->core[i]), 0, g->scfg.quantum));
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

/* The run's cycles: detailed, the kernel's; hybrid and analytic, the sum of the programs'
 * estimates and of their half-widths (programs of a group share their ratio). */
struct cpu_estimate {
	double cycles, half;
	unsigned units, sampled, skipped;
};

static void estimate(const struct cpu_sys *g, struct cpu_estimate *e)
{
	memset(e, 0, sizeof(*e));
	if (g->mode == CS_MODE_DETAILED) {
		e->cycles = (double)cycles_now(g);
		return;
	}
	for (unsigned i = 0; i < g->nrecs; i++) {
		e->cycles += g->recs[i].est.cycles;
		e->half += g->recs[i].est.half;
	}
	sampler_counts(g->sampler, &e->units, &e->sampled, &e->skipped);
}

static int cpu_report(struct cs_system *s, FILE *f)
{
	struct cpu_sys *g = s->priv;
	struct cpu_estimate e;

	estimate(g, &e);
	fprintf(f,
		"cpu: %u cores at %" PRIu64 " MHz, x86-TSO, store buffer %" PRIu64
		", ideal memory (%" PRIu64 " cycles), workload %s\n",
		g->n, g->cpu.clock_mhz, g->cpu.store_buffer, g->ip.latency, s->workload->name);
	if (g->mode == CS_MODE_DETAILED) {
		fprintf(f, "  cycles            %" PRIu64 " (core clock, %.3f us; detailed)\n",
			cycles_now(g), (double)sim_now(s->k) / SIM_US);
	} else {
		fprintf(f, "  cycles            %.0f +- %.0f (%.1f%%, %.0f%% confidence; %s)\n",
			e.cycles, e.half, e.cycles > 0 ? 100 * e.half / e.cycles : 0,
			100 * g->scfg.conf, cs_mode_names[g->mode]);
		fprintf(f, "  sampling          %u units, %u programs sampled, %u predicted\n",
			e.units, e.sampled, e.skipped);
		for (unsigned i = 0; i < g->nrecs && i < 50; i++)
			fprintf(
			    f,
			    "    program %-15s %4u threads  %.0f +- %.0f cycles (%s, %u units)\n",
			    g->recs[i].name, g->recs[i].threads, g->recs[i].est.cycles,
			    g->recs[i].est.half, samp_plan_names[g->recs[i].est.plan],
			    g->recs[i].est.units);
	}
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

	struct cpu_estimate e;
	json_t *ps = json_array();

	estimate(g, &e);
	json_object_set_new(r, "workload", json_string(s->workload->name));
	json_object_set_new(r, "mode", json_string(cs_mode_names[g->mode]));
	json_object_set_new(r, "cores", json_integer(g->n));
	/* detailed: the cycles simulated; hybrid, analytic: the estimate, its half-width */
	if (g->mode == CS_MODE_DETAILED)
		json_object_set_new(r, "cycles", json_integer((json_int_t)cycles_now(g)));
	else
		json_object_set_new(r, "cycles", json_real(e.cycles));
	json_object_set_new(r, "cycles_half", json_real(e.half));
	json_object_set_new(r, "units", json_integer(e.units));
	for (unsigned i = 0; i < g->nrecs; i++) {
		const struct run_rec *x = &g->recs[i];
		double cyc = (double)sim_clock_period_ps(cpu_core_clock(g->core[0]));

		json_array_append_new(
		    ps, json_pack("{s:s, s:i, s:f, s:f, s:f, s:s, s:i, s:f, s:f}", "name", x->name,
				  "threads", (json_int_t)x->threads, "simulated",
				  (double)(x->end - x->start) / cyc, "estimate",
				  g->mode == CS_MODE_DETAILED ? (double)(x->end - x->start) / cyc
							      : x->est.cycles,
				  "half", x->est.half, "plan", samp_plan_names[x->est.plan],
				  "units", (json_int_t)x->est.units, "at_cycles", x->at_cycles,
				  "lt_cycles", x->lt_cycles));
	}
	json_object_set_new(r, "programs", ps);
	for (size_t i = 0; i < sizeof(summary_keys) / sizeof(summary_keys[0]); i++)
		json_object_set_new(r, summary_keys[i],
				    json_integer((json_int_t)stat_sum(g, summary_keys[i])));
	for (unsigned i = 0; i < g->nnotes; i++)
		json_array_append_new(notes, json_string(g->notes[i]));
	json_object_set_new(r, "notes", notes);
	return r;
}

/* Per face: wall seconds, simulated core cycles, work (ops and compute cycles) and work per
 * host second; and the workload's host side (outside program runs). */
static json_t *cpu_host_result(struct cs_system *s)
{
	static const char *const face_names[] = {"detailed", "lt", "ff"};
	struct cpu_sys *g = s->priv;
	struct samp_host_faces h;
	json_t *o = json_object();
	double cyc;

	if (!o || !g->sampler || !g->n)
		return o;
	cyc = (double)sim_clock_period_ps(cpu_core_clock(g->core[0]));
	sampler_host_faces(g->sampler, &h);
	for (unsigned f = 0; f < 3; f++)
		json_object_set_new(o, face_names[f],
				    json_pack("{s:f, s:f, s:f, s:f}", "seconds", h.seconds[f],
					      "cycles", h.sim_ps[f] / cyc, "work", h.work[f],
					      "work_per_s",
					      h.seconds[f] > 0 ? h.work[f] / h.seconds[f] : 0.0));
	json_object_set_new(o, "host_side_seconds", json_real(h.host_side_s));
	return o;
}

const struct cs_system_ops cs_cpu_system = {
    .version = 1,
    .name = "cpu",
    .help = "CPU cores (x86-TSO store buffers) on an ideal coherent memory",
    .modes = 1u << CS_MODE_DETAILED | 1u << CS_MODE_HYBRID | 1u << CS_MODE_ANALYTIC,
    .build = cpu_build,
    .run = cpu_run,
    .report = cpu_report,
    .result = cpu_result,
    .host_result = cpu_host_result,
    .destroy = cpu_destroy,
};
