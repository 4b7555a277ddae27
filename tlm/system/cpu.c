/*
 * tlm/system/cpu.c - systems "cpu" and "apu".
 *
 * System cpu: `cpus.cores` CPU cores (tlm/core/cpu.h) over one backing store, and the host side
 * of the CPU op API. The cores' memory side (`cpus.memory`) is either an ideal coherent memory
 * port per core (tlm/mem/idealport.h: memory is exactly x86-TSO, what the CPU unit tests need)
 * or seed 002's APU memory side (tlm/coherence/apu/apu_mem.h: CorePairs with MOESI caches, the
 * stateless directory and its victim LLC, DRAM).
 *
 * System apu: the whole APU of seed 002 (docs/apu.md): the same CPU cores on the APU memory
 * side, plus a GPU cluster (tlm/system/gpu_cluster.h: `gpu.sms` CUs, each SM's L1 a VIPER TCP),
 * the TCC slices and the DMA engine on the same network as the CorePairs and the directory.
 * The host program runs CPU programs; their threads launch GPU kernels (ct_launch), wait for
 * them (ct_gpu_wait) and copy by DMA (ct_dma_copy): the devices answer at the kernel's time, so
 * CPU threads and GPU warps share memory while both run.
 *
 * Kept data-driven (the core and CU counts, the memory side and every parameter come from the
 * configuration); docs/architecture.md §8 says how the generic builder absorbs them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/ltmodel.h"
#include "sampling/sampler.h"
#include "tlm/coherence/apu/apu_dir.h"
#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/core/cpu.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/idealport.h"
#include "tlm/mem/store.h"
#include "tlm/coherence/apu/apu_mem.h"
#include "tlm/system/fabric.h"
#include "tlm/system/cpu.h"
#include "tlm/system/gpu.h"
#include "tlm/system/gpu_cluster.h"
#include "tlm/system/system.h"
#include "util/error.h"
#include "workloads/wl_util.h"
#include "workloads/workload.h"

enum cpus_memory { CPUS_MEM_IDEAL = 0, CPUS_MEM_APU };

static const char *const memory_names[] = {"ideal", "apu", NULL};

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
	bool failed, host_finished, program_open;
	int fail_code, host_rc;
	char fail_msg[400];
	unsigned nnotes;
	char notes[CPU_NOTES][160];

	const char *root;	    /* the statistics' root group: "cpu" or "apu" */
	struct energy_model energy; /* the memory side's arrays from CACTI at build */
	struct gpu_workload_cfg wl;

	/* system apu: the GPU cluster and its devices' requests */
	struct apu_side *gpu;
	/* system apu with gpu.check: the coherence checker over CPU cores and GPU warps */
	struct cohcheck *chk;
	uint64_t gpu_reads; /* of cohcheck_reads: the warps' */
	uint64_t *chk_reads, *chk_cpu_reads, *chk_gpu_reads, *chk_violations;

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

static bool devices_idle(const struct cpu_sys *g);

/* The program is over once its last thread is done and the kernels and DMA copies its threads
 * asked for are over too (a thread may return with a kernel still running). */
static void program_maybe_over(struct cpu_sys *g)
{
	if (g->running || !g->program_open || !devices_idle(g))
		return;
	g->program_open = false;
	program_end(g);
	sim_event_notify_delayed(g->done_ev, 0);
}

static void thread_done(void *obj, unsigned core)
{
	struct cpu_sys *g = obj;

	(void)core;
	if (!--g->running)
		program_maybe_over(g);
}

/* ---- system apu: the GPU and the DMA engine beside the cores ------------------------------- */

#define APU_KERNEL_QUEUE 16

struct apu_side {
	struct gpu_cfg cfg;	  /* section gpu: sms = the CUs */
	struct gpu_core_cfg core; /* section core: the CUs' warps, clock, occupancy */
	struct gpu_l1_cfg l1;	  /* the SMs coalesce by its line: the TCP's 64 B */
	struct gpu_ctx ctx;
	struct lt_params ltp;
	struct gpu_lt_clock lt_clock;
	const struct apu_gpu_protocol *proto;
	struct gpu_cluster *gc;
	/* kernels launched and not started (a ring), with the time each may start */
	struct gpu_kernel kq[APU_KERNEL_QUEUE]; /* launches' copies (gpu_kernel_shape) */
	struct gpu_kernel run_k;		/* the running kernel's */
	sim_time_t kq_at[APU_KERNEL_QUEUE];
	unsigned kq_head, kq_n;
	bool running, start_pending;
	sim_time_t started;
	/* cores waiting in ct_gpu_wait; DMA copies asked for (one runs at a time) */
	unsigned *waiters, nwaiters;
	unsigned *dma_q, dma_head, dma_n;
	const struct cpu_dev_req *dma_req;
	unsigned dma_core;
	uint8_t *dma_buf;
	bool dma_busy;
	uint64_t *kernels, *kernel_cycles, *launch_stalls, *dma_copies, *dma_bytes, *dma_cycles;
	sim_time_t dma_started;
};

static bool devices_idle(const struct cpu_sys *g)
{
	const struct apu_side *a = g->gpu;

	return !a || (!a->running && !a->start_pending && !a->kq_n && !a->dma_busy && !a->dma_n);
}

static void answer_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)arg;
	cpu_core_device_done(obj, 0);
}

/* The thread of `core` goes on now (never from inside the request: the core expects that). */
static void answer(struct cpu_sys *g, unsigned core)
{
	sim_schedule(g->s->k, 0, answer_cb, g->core[core], NULL);
}

static void kernel_start_cb(struct sim_kernel *k, void *obj, void *arg);

/* The next queued kernel starts once the running one has ended and its launch delay is over. */
static void kernels_kick(struct cpu_sys *g)
{
	struct apu_side *a = g->gpu;
	sim_time_t now = sim_now(g->s->k), at;

	if (a->running || a->start_pending || !a->kq_n)
		return;
	at = a->kq_at[a->kq_head];
	a->start_pending = true;
	sim_schedule_at(g->s->k, at > now ? at : now, SIM_PRIO_DEFAULT, kernel_start_cb, g, NULL);
}

static void kernel_start_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_sys *g = obj;
	struct apu_side *a = g->gpu;
	const struct gpu_kernel *kn = &a->run_k;

	(void)arg;
	a->run_k = a->kq[a->kq_head];
	a->start_pending = false;
	a->kq_head = (a->kq_head + 1) % APU_KERNEL_QUEUE;
	a->kq_n--;
	if (gpu_cluster_check_fit(a->gc, kn))
		return;
	a->running = true;
	a->started = sim_now(k);
	(*a->kernels)++;
	/* the launch is a system-scope acquire: the TCPs (and through them the TCC) drop their
	 * clean lines at kernel_begin */
	gpu_cluster_begin(a->gc, kn);
	gpu_cluster_fill(a->gc);
}

static void gpu_kernel_over_cb(struct sim_kernel *k, void *obj, void *arg);

/* Every SM's end-of-kernel work is done. LT and FF warps ran ahead of the kernel's time: the
 * kernel ends when the last of them exited. */
static void gpu_kernel_over(void *arg)
{
	struct cpu_sys *g = arg;
	sim_time_t now = sim_now(g->s->k), end = now;

	if (sampler_face(g->sampler) != SAMP_FACE_AT && gpu_cluster_lt_exit_time(g->gpu->gc) > end)
		end = gpu_cluster_lt_exit_time(g->gpu->gc);
	sim_schedule_at(g->s->k, end, SIM_PRIO_DEFAULT, gpu_kernel_over_cb, g, NULL);
}

static void gpu_kernel_over_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_sys *g = obj;
	struct apu_side *a = g->gpu;

	(void)k;
	(void)arg;
	a->running = false;
	*a->kernel_cycles += sim_clock_cycle(&a->ctx.core_clk, sim_now(g->s->k)) -
			     sim_clock_cycle(&a->ctx.core_clk, a->started);
	if (a->kq_n) {
		kernels_kick(g);
		return;
	}
	for (unsigned i = 0; i < a->nwaiters; i++)
		answer(g, a->waiters[i]);
	a->nwaiters = 0;
	program_maybe_over(g);
}

/* The kernel's last CTA is done: its end is a system-scope release (WB_L1, WB_L2 flushes). */
static void gpu_ctas_done(void *obj)
{
	struct cpu_sys *g = obj;

	gpu_cluster_kernel_end(g->gpu->gc, gpu_kernel_over, g);
}

static void gpu_fail_cb(void *obj, int code, const char *msg)
{
	sys_fail(obj, code, msg);
}

static void dma_next(struct cpu_sys *g);

static void dma_written(void *ctx)
{
	struct cpu_sys *g = ctx;
	struct apu_side *a = g->gpu;

	free(a->dma_buf);
	a->dma_buf = NULL;
	a->dma_busy = false;
	(*a->dma_copies)++;
	*a->dma_bytes += a->dma_req->len;
	*a->dma_cycles += sim_clock_cycle(cpu_core_clock(g->core[0]), sim_now(g->s->k)) -
			  sim_clock_cycle(cpu_core_clock(g->core[0]), a->dma_started);
	answer(g, a->dma_core);
	dma_next(g);
	program_maybe_over(g);
}

static void dma_lt_done(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)arg;
	dma_written(obj);
}

static void dma_read_done(void *ctx)
{
	struct cpu_sys *g = ctx;
	struct apu_side *a = g->gpu;
	int rc =
	    apu_mem_dma_write(g->apu, a->dma_req->dst, a->dma_buf, a->dma_req->len, dma_written, g);

	if (rc)
		sys_fail(g, rc, "apu: the DMA engine refused a write");
}

/* A copy is a DMA read of the source into the engine's buffer, then a DMA write of it. */
static void dma_next(struct cpu_sys *g)
{
	struct apu_side *a = g->gpu;
	int rc;

	if (a->dma_busy || !a->dma_n)
		return;
	a->dma_core = a->dma_q[a->dma_head];
	a->dma_head = (a->dma_head + 1) % g->n;
	a->dma_n--;
	a->dma_req = cpu_core_device_req(g->core[a->dma_core]);
	a->dma_buf = malloc(a->dma_req->len);
	if (!a->dma_buf) {
		sys_fail(g, -CS_ENOMEM, "apu: out of memory for a DMA copy");
		return;
	}
	a->dma_busy = true;
	a->dma_started = sim_now(g->s->k);
	if (sampler_face(g->sampler) != SAMP_FACE_AT) {
		/* LT: the copy's transactions run at once (a detailed-face transaction left open
		 * would meet the LT runs of the cores); it is over at the time they name */
		sim_time_t t = apu_mem_dma_lt_read(g->apu, a->dma_req->src, a->dma_buf,
						   a->dma_req->len, a->dma_started);

		if (t != SIM_TIME_MAX)
			t = apu_mem_dma_lt_write(g->apu, a->dma_req->dst, a->dma_buf,
						 a->dma_req->len, t);
		if (t == SIM_TIME_MAX) {
			sys_fail(g, -CS_ESTATE, "apu: the DMA engine refused an LT copy");
			return;
		}
		sim_schedule_at(g->s->k, t, SIM_PRIO_DEFAULT, dma_lt_done, g, NULL);
		return;
	}
	rc = apu_mem_dma_read(g->apu, a->dma_req->src, a->dma_buf, a->dma_req->len, dma_read_done,
			      g);
	if (rc)
		sys_fail(g, rc, "apu: the DMA engine refused a read");
}

static void dev_request(void *obj, unsigned core, const struct cpu_dev_req *r)
{
	struct cpu_sys *g = obj;
	struct apu_side *a = g->gpu;
	sim_time_t now = sim_now(g->s->k);
	char msg[200];

	switch (r->kind) {
	case CPU_DEV_LAUNCH:
		if (!r->kernel) {
			snprintf(msg, sizeof(msg), "cpu%u: ct_launch: no kernel", core);
			sys_fail(g, -CS_EINVAL, msg);
			return;
		}
		if (r->kernel->local_bytes) {
			snprintf(msg, sizeof(msg),
				 "cpu%u: ct_launch: kernel '%s': local memory is not modelled on "
				 "system apu (local_bytes %u)",
				 core, r->kernel->name ? r->kernel->name : "?",
				 r->kernel->local_bytes);
			sys_fail(g, -CS_EINVAL, msg);
			return;
		}
		if (a->kq_n == APU_KERNEL_QUEUE) {
			snprintf(msg, sizeof(msg),
				 "cpu%u: ct_launch: more than %d kernels queued (none ended)", core,
				 APU_KERNEL_QUEUE);
			sys_fail(g, -CS_EINVAL, msg);
			return;
		}
		{
			unsigned slot = (a->kq_head + a->kq_n) % APU_KERNEL_QUEUE;
			char why[160];

			if (gpu_kernel_shape(r->kernel, &a->kq[slot], why, sizeof(why))) {
				snprintf(msg, sizeof(msg), "cpu%u: ct_launch: %s", core, why);
				sys_fail(g, -CS_EINVAL, msg);
				return;
			}
			a->kq_n++;
			a->kq_at[slot] = now + sim_clock_delay(&a->ctx.core_clk, now,
							       apu_mem_cfg(g->apu)->launch_cycles);
		}
		if (a->running || a->start_pending)
			(*a->launch_stalls)++;
		kernels_kick(g);
		answer(g, core);
		return;
	case CPU_DEV_WAIT:
		if (!a->running && !a->start_pending && !a->kq_n)
			answer(g, core);
		else
			a->waiters[a->nwaiters++] = core;
		return;
	case CPU_DEV_DMA:
		if (!r->len) {
			answer(g, core);
			return;
		}
		a->dma_q[(a->dma_head + a->dma_n++) % g->n] = core;
		dma_next(g);
		return;
	default:
		sys_fail(g, -CS_EINVAL, "apu: unknown device request");
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
	if (g->apu) {
		char msg[160];

		if (fabric_check_alloc(apu_mem_fabric(g->apu), a, g->heap - a, msg, sizeof(msg)))
			sys_fail(g, -CS_ECONFIG, msg);
	}
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
	/* the host's writes are in the write order too (its whole words) */
	for (size_t i = (size_t)(-addr & 3); g->chk && i + 4 <= len; i += 4) {
		uint32_t v;

		memcpy(&v, (const uint8_t *)buf + i, 4);
		cohcheck_write(g->chk, addr + i, 4, v);
	}
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
	g->program_open = true;
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
		cs_format_cut(g->notes[g->nnotes++], sizeof(g->notes[0]), "%s", msg);
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

/* Same-event pairs (sampling.predictor = events): each CPU core's work (ops and compute
 * cycles, one a cycle), each CU's warp instructions (spin tries in) in CPU cycles over its
 * schedulers, then what the APU memory side's nodes declare they served and its networks'
 * port flits (fabric_event_counts), all in CPU cycles. The ideal memory has no resource of
 * its own: its bound is the cores'. */
static void cpu_event_counts(void *obj, double *v)
{
	const struct cpu_sys *g = obj;
	unsigned i = 0;
	double cpu_ps = (double)sim_clock_period_ps(cpu_core_clock(g->core[0]));

	for (unsigned c = 0; c < g->n; c++)
		v[i++] = (double)cpu_core_work(g->core[c]);
	if (g->gpu) {
		double w = (double)sim_clock_period_ps(&g->gpu->ctx.core_clk) /
			   ((double)g->gpu->core.schedulers * cpu_ps);

		for (unsigned sm = 0; sm < g->gpu->ctx.sms; sm++)
			v[i++] = (double)gpu_sm_issued(gpu_cluster_sm(g->gpu->gc, sm)) * w;
	}
	if (g->apu)
		fabric_event_counts(apu_mem_fabric(g->apu), cpu_ps, v + i);
}

static int cpu_events_setup(struct cpu_sys *g, struct cs_err *err)
{
	struct samp_events ev = {
	    .layout = {.n = {g->n + (g->gpu ? g->gpu->ctx.sms : 0)}, .cycles = {1, 1, 1, 1}},
	    .counts = cpu_event_counts,
	};
	char where[CS_WHERE_MAX];

	if (g->apu)
		fabric_event_shape(apu_mem_fabric(g->apu), ev.layout.n);
	if (sampler_set_events(g->sampler, &ev))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	cs_config_origin(g->s->cfg, "sampling", "predictor", where, sizeof(where));
	return sampler_ready(g->sampler, where, g->root, err);
}

const char *cpu_sys_memory_name(const struct cs_system *s)
{
	const struct cpu_sys *g = s->priv;

	return g->apu ? apu_mem_ops(g->apu)->name : idealport_ops.name;
}

/* ---- build, run, report --------------------------------------------------------------------- */

static void apu_side_destroy(struct apu_side *a)
{
	if (!a)
		return;
	gpu_cluster_destroy(a->gc);
	free(a->lt_clock.deferred);
	free(a->waiters);
	free(a->dma_q);
	free(a->dma_buf);
	free(a);
}

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
	apu_side_destroy(g->gpu);
	apu_mem_destroy(g->apu);
	cohcheck_destroy(g->chk);
	sampler_destroy(g->sampler);
	free(g->recs);
	mem_store_destroy(g->store);
	free(g);
	s->priv = NULL;
}

/* System apu's GPU: its sections, the cluster's context (the APU memory side fills in the
 * TCPs' and TCCs' configuration), before the memory side is made. */
static int apu_side_load(struct cpu_sys *g, struct cs_err *err)
{
	struct cs_config *c = g->s->cfg;
	struct apu_side *a = calloc(1, sizeof(*a));
	char where[CS_WHERE_MAX];
	int rc;

	if (!a)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	g->gpu = a;
	if ((rc = cs_config_section(c, &gpu_params, &a->cfg, err)) ||
	    (rc = cs_config_section(c, &gpu_core_params, &a->core, err)) ||
	    (rc = gpu_core_cfg_check(&a->core, c, err)) ||
	    (rc = cs_params_defaults(&gpu_l1_params, &a->l1, err)))
		return rc;
	if (g->sc.memory != CPUS_MEM_APU) {
		cs_config_origin(c, "cpus", "memory", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: system apu puts its cores on the APU's memory side: set "
				  "cpus.memory = \"apu\"",
				  where);
	}
	if (a->cfg.check) {
		/* every agent's reads, every place a write is performed: CPU cores, GPU warps,
		 * CorePairs, TCPs, TCCs, directory (apu_mem_set_check) */
		if (cohcheck_create(&g->chk))
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		a->ctx.chk = g->chk;
	}
	a->proto = apu_gpu_find("viper");
	a->l1.line_bytes = APU_LINE;
	a->ctx.k = g->s->k;
	a->ctx.store = g->store;
	sim_clock_init(&a->ctx.core_clk, a->core.clock_mhz * 1000000);
	sim_clock_init(&a->ctx.l2_clk, a->core.clock_mhz * 1000000); /* the TCC: GPU clock */
	a->ctx.l1 = &a->l1;
	a->ctx.sms = (unsigned)a->cfg.sms;
	a->ctx.warps = (unsigned)a->core.warps;
	a->ctx.consistency = a->core.consistency;
	lt_params_default(&a->ltp);
	a->ctx.lt = &a->ltp;
	a->ctx.lt_clock = &a->lt_clock;
	a->lt_clock.deferred = calloc(a->ctx.sms, sizeof(*a->lt_clock.deferred));
	a->waiters = calloc(g->n, sizeof(*a->waiters));
	a->dma_q = calloc(g->n, sizeof(*a->dma_q));
	if (!a->proto || !a->lt_clock.deferred || !a->waiters || !a->dma_q)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	return 0;
}

/* A warp's load, for the coherence checker: warps are readers 0 .. sms x warps - 1, the CPU
 * cores the readers after them. */
static void apu_observe_read(void *obj, unsigned sm, unsigned slot, uint64_t addr, unsigned bytes,
			     uint64_t v)
{
	struct cpu_sys *g = obj;

	cohcheck_read(g->chk, sm * g->gpu->ctx.warps + slot, addr, bytes, v);
	g->gpu_reads++;
}

/* The checker's counters, brought up to date (at the end of a run). */
static void chk_stats(struct cpu_sys *g)
{
	if (!g->chk)
		return;
	*g->chk_reads = cohcheck_reads(g->chk);
	*g->chk_gpu_reads = g->gpu_reads;
	*g->chk_cpu_reads = cohcheck_reads(g->chk) - g->gpu_reads;
	*g->chk_violations = cohcheck_violations(g->chk);
}

/* System apu's GPU cluster, its TCPs bound to the network, its SMs under the sampler. */
static int apu_side_build(struct cpu_sys *g, struct cs_stat_group *root, struct cs_err *err)
{
	struct apu_side *a = g->gpu;
	struct cs_stat_group *gg = cs_stat_group(root, "gpu");
	struct gpu_cluster_env env = {
	    .owner = g,
	    .fail = gpu_fail_cb,
	    .ctas_done = gpu_ctas_done,
	    .observe_read = g->chk ? apu_observe_read : NULL,
	    .seed = g->s->sim.seed,
	};
	int rc;

	if (g->chk) {
		struct cs_stat_group *cg = cs_stat_group(root, "coherence_check");

		g->chk_reads = cs_stat_counter(cg, "reads", "", "loads checked, CPU and GPU");
		g->chk_cpu_reads = cs_stat_counter(cg, "cpu_reads", "",
						   "CPU reads checked: loads at memory, atomics' "
						   "old values, own performed writes");
		g->chk_gpu_reads = cs_stat_counter(cg, "gpu_reads", "", "GPU warps' loads checked");
		g->chk_violations = cs_stat_counter(
		    cg, "violations", "", "reads that saw a value out of coherence order");
		apu_mem_set_check(g->apu, g->chk);
	}

	a->kernels = cs_stat_counter(gg, "kernels", "", "GPU kernels run");
	a->kernel_cycles =
	    cs_stat_counter(gg, "kernel_cycles", "GPU cycles", "GPU cycles with a kernel running");
	a->launch_stalls =
	    cs_stat_counter(gg, "launch_queued", "", "launches made while a kernel ran or started");
	a->dma_copies = cs_stat_counter(gg, "dma_copies", "", "DMA copies (ct_dma_copy)");
	a->dma_bytes = cs_stat_counter(gg, "dma_bytes", "bytes", "bytes copied by DMA");
	a->dma_cycles = cs_stat_counter(gg, "dma_cycles", "CPU cycles", "DMA copy time");
	rc = gpu_cluster_create(&a->ctx, &a->core, &a->proto->gpu, &env,
				sim_clock_delay(&a->ctx.core_clk, 0, g->scfg.quantum), root, &a->gc,
				err);
	if (rc)
		return rc;
	for (unsigned i = 0; i < a->ctx.sms; i++) {
		rc = apu_mem_bind_tcp(g->apu, i, a->proto->gpu.l1,
				      gpu_sm_l1(gpu_cluster_sm(a->gc, i)), err);
		if (rc)
			return rc;
	}
	return gpu_cluster_sample(a->gc, g->sampler) ? cs_err_set(err, -CS_ENOMEM, "out of memory")
						     : 0;
}

static int host_build(struct cs_system *s, bool apu, struct cs_err *err)
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
	g->root = apu ? "apu" : "cpu";
	if ((rc = cs_config_section(s->cfg, &cs_cpus_params, &g->sc, err)) ||
	    (rc = cs_config_section(s->cfg, &cpu_core_params, &g->cpu, err)) ||
	    (rc = cs_config_section(s->cfg, &idealport_params, &g->ip, err)) ||
	    (rc = cs_config_section(s->cfg, &gpu_workload_params, &g->wl, err)) ||
	    (rc = cs_config_section(s->cfg, &samp_params, &g->scfg, err)) ||
	    (rc = cs_system_check_inputs(s, g->scfg.calibration, g->wl.graph_file, err)))
		return rc;
	g->mode = s->sys.mode;
	g->n = (unsigned)g->sc.cores;
	g->core = calloc(g->n, sizeof(*g->core));
	g->port = calloc(g->n, sizeof(*g->port));
	g->done_ev = sim_event_create(s->k, "cpu.program_done");
	if (!g->core || !g->port || !g->done_ev || mem_store_create(&g->store))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	g->heap = 0x10000; /* address 0 stays unused: a null pointer is never a location */
	g->host = (struct cpu_host){.ops = &host_ops,
				    .sys = g,
				    .seed = s->sim.seed,
				    .arg = s->workload_arg,
				    .size = g->wl.size,
				    .check_samples = g->wl.check ? UINT64_MAX : g->wl.samples};
	env = (struct cpu_core_env){.sys = g,
				    .fail = sys_fail,
				    .thread_done = thread_done,
				    .device = apu ? dev_request : NULL,
				    .seed = s->sim.seed};
	root = cs_stat_group(cs_stats_root(s->stats), g->root);
	if (apu && (rc = apu_side_load(g, err)))
		return rc;
	if (g->sc.memory == CPUS_MEM_APU) {
		rc = apu_mem_create(
		    s, g->n,
		    apu ? &(struct apu_mem_gpu){.cus = g->gpu->ctx.sms, .ctx = &g->gpu->ctx} : NULL,
		    g->store, root, &g->apu, err);
		if (rc)
			return rc;
		lt_params_default(&g->ltp);
		g->ltp.exact = g->scfg.lt_exact;
		apu_mem_set_lt(g->apu, &g->ltp);
	}
	if ((rc = energy_model_load(s->cfg, &g->energy, err)))
		return rc;
	if (g->apu &&
	    apu_mem_energy_arrays(g->apu, apu ? (unsigned)g->gpu->core.warps : 0, &g->energy))
		return energy_model_no_table(&g->energy, err);
	for (unsigned i = 0; i < g->n; i++) {
		struct cs_stat_group *cg;

		snprintf(name, sizeof(name), "core%u", i);
		cg = cs_stat_group(root, name);
		rc = cpu_core_create(s->k, &g->cpu, i, &env, cg, &g->core[i], err);
		if (rc)
			return rc;
		if (g->apu) {
			cpu_core_attach(g->core[i], apu_mem_ops(g->apu), apu_mem_port(g->apu, i));
			if (g->chk)
				cpu_core_set_check(g->core[i], g->chk,
						   g->gpu->ctx.sms * g->gpu->ctx.warps + i);
			continue;
		}
		rc = idealport_create(s->k, cpu_core_clock(g->core[i]), g->store, &g->ip,
				      cs_stat_group(cg, "mem"), &g->port[i], err);
		if (rc)
			return rc;
		cpu_core_attach(g->core[i], &idealport_ops, g->port[i]);
	}
	g->scfg.fill = SAMP_FILL_LT; /* its caches have no FF face inside a run */
	g->scfg.seed = s->sim.seed;
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
	if (apu && (rc = apu_side_build(g, root, err)))
		return rc;
	return cpu_events_setup(g, err);
}

static int cpu_build(struct cs_system *s, struct cs_err *err)
{
	return host_build(s, false, err);
}

static int apu_build(struct cs_system *s, struct cs_err *err)
{
	return host_build(s, true, err);
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
	chk_stats(g);
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
	if (g->gpu && gpu_cluster_busy_sm(g->gpu->gc) >= 0)
		return cs_err_set(err, -CS_ESTATE, "GPU CU %d is not idle at the end",
				  gpu_cluster_busy_sm(g->gpu->gc));
	if (!devices_idle(g))
		return cs_err_set(err, -CS_ESTATE,
				  "a GPU kernel or DMA copy is still pending at the end");
	return 0;
}

static double stat_sum(const struct cpu_sys *g, const char *what)
{
	double sum = 0, v;
	char name[96];

	for (unsigned i = 0; i < g->n; i++) {
		snprintf(name, sizeof(name), "%s.core%u.%s", g->root, i, what);
		if (!cs_stats_value(g->s->stats, name, &v))
			sum += v;
	}
	return sum;
}

static const char *const summary_keys[] = {"insts",	"loads",	   "stores",
					   "atomics",	"fences",	   "sb.forwards",
					   "sb.stalls", "sb.stall_cycles", "stall.drain_cycles",
					   "stall.mlp"};

/* Per-role figures of the APU memory side (the result's "apu" object; "probes" is added as the
 * sum of both kinds): directory probes by kind and by cause, LLC hits, victims, the directory's
 * DRAM reads, TCC hits, DMA bytes, GPU kernels. NULL key: end. */
static const struct role_stat {
	const char *key;  /* in the result object */
	const char *stat; /* under the root group; a trailing '*' sums the numbered instances */
} role_stats[] = {
    {"probes_downgrade", "dir.probes.downgrade"},
    {"probes_inv", "dir.probes.inv"},
    {"probes_rdblk", "dir.probes.RdBlk"},
    {"probes_rdblks", "dir.probes.RdBlkS"},
    {"probes_rdblkm", "dir.probes.RdBlkM"},
    {"probes_wt", "dir.probes.WT"},
    {"probes_atomic", "dir.probes.Atomic"},
    {"probes_flush", "dir.probes.Flush"},
    {"probes_dmard", "dir.probes.DMARd"},
    {"probes_dmawr", "dir.probes.DMAWr"},
    {"llc_hits", "dir.llc_hits"},
    {"llc_misses", "dir.llc_misses"},
    {"victims_clean", "dir.vic_clean"},
    {"victims_dirty", "dir.vic_dirty"},
    {"dram_reads", "dir.dram.reads"},
    {"probes_backinv", "dir.probes.backinv"},
    {"tcc_hits", "tcc*.hits"},
    {"tcc_misses", "tcc*.misses"},
    {"dma_bytes_read", "dma.bytes_read"},
    {"dma_bytes_written", "dma.bytes_written"},
    {"gpu_kernels", "gpu.kernels"},
    {NULL, NULL},
};

static double role_value(const struct cpu_sys *g, const char *stat)
{
	const char *star = strchr(stat, '*');
	char name[128];
	double v = 0, sum = 0;

	if (!star) {
		snprintf(name, sizeof(name), "%s.%s", g->root, stat);
		return cs_stats_value(g->s->stats, name, &v) ? 0 : v;
	}
	for (unsigned i = 0;; i++) {
		snprintf(name, sizeof(name), "%s.%.*s%u%s", g->root, (int)(star - stat), stat, i,
			 star + 1);
		if (cs_stats_value(g->s->stats, name, &v))
			return sum;
		sum += v;
	}
}

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

/* The run's energy: the cores', the CUs', and every node's and network's of the APU memory
 * side (each declares its own: the stats contract), static power over the estimated time. The
 * ideal memory has no arrays of its own: the cores alone. */
static void cpu_energy(const struct cpu_sys *g, const struct cpu_estimate *e,
		       struct energy_report *r)
{
	double hz = (double)g->cpu.clock_mhz * 1e6;
	struct energy_counts c = {{0}, {0}};
	struct energy_model m = g->energy;

	for (unsigned i = 0; i < g->n; i++)
		cpu_core_energy(g->core[i], &c);
	if (g->gpu)
		for (unsigned i = 0; i < g->gpu->ctx.sms; i++)
			gpu_sm_energy(gpu_cluster_sm(g->gpu->gc, i), &c);
	if (g->apu)
		apu_mem_energy(g->apu, &g->energy, &c, &m);
	energy_compute(&m, &c, e->cycles / hz, e->half / hz, r);
}

static int cpu_report(struct cs_system *s, FILE *f)
{
	struct cpu_sys *g = s->priv;
	struct cpu_estimate e;

	estimate(g, &e);
	fprintf(f, "%s: %u cores at %" PRIu64 " MHz, x86-TSO, store buffer %" PRIu64 ", ", g->root,
		g->n, g->cpu.clock_mhz, g->cpu.store_buffer);
	if (g->apu)
		fprintf(f, "APU memory side (CorePairs, directory, LLC, DRAM)");
	else
		fprintf(f, "ideal memory (%" PRIu64 " cycles)", g->ip.latency);
	if (g->gpu)
		fprintf(f, ", %u CUs at %" PRIu64 " MHz (VIPER)", g->gpu->ctx.sms,
			g->gpu->core.clock_mhz);
	fprintf(f, ", workload %s\n", s->workload->name);
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
	if (g->apu)
		fprintf(
		    f,
		    "  directory         %.0f probes (%.0f downgrade, %.0f invalidate), LLC %.0f "
		    "hits / %.0f misses, victims %.0f clean / %.0f dirty, %.0f DRAM reads\n",
		    role_value(g, "dir.probes.downgrade") + role_value(g, "dir.probes.inv"),
		    role_value(g, "dir.probes.downgrade"), role_value(g, "dir.probes.inv"),
		    role_value(g, "dir.llc_hits"), role_value(g, "dir.llc_misses"),
		    role_value(g, "dir.vic_clean"), role_value(g, "dir.vic_dirty"),
		    role_value(g, "dir.dram.reads"));
	if (g->gpu)
		fprintf(f,
			"  gpu               %" PRIu64 " kernels, %" PRIu64
			" GPU cycles busy; DMA %" PRIu64 " copies, %" PRIu64 " bytes\n",
			*g->gpu->kernels, *g->gpu->kernel_cycles, *g->gpu->dma_copies,
			*g->gpu->dma_bytes);
	if (g->apu) {
		fprintf(f, "  NoC               %.0f B\n", apu_mem_traffic(g->apu));
		fabric_traffic_print(apu_mem_fabric(g->apu), f);
	}
	{
		struct energy_report en;

		cpu_energy(g, &e, &en);
		energy_report_print(f, &en, g->mode != CS_MODE_DETAILED);
		if (!g->apu)
			fprintf(f,
				"    (the ideal memory has no arrays of its own: the cores' energy "
				"alone)\n");
	}
	if (g->chk)
		fprintf(f,
			"  coherence check   %" PRIu64 " loads (%" PRIu64 " CPU, %" PRIu64
			" GPU), %" PRIu64 " violations%s%s\n",
			cohcheck_reads(g->chk), cohcheck_reads(g->chk) - g->gpu_reads, g->gpu_reads,
			cohcheck_violations(g->chk), cohcheck_violations(g->chk) ? ", first: " : "",
			cohcheck_first(g->chk));
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
	json_object_set_new(r, "size", json_string(wl_size_str(g->wl.size)));
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
	if (g->apu) {
		json_t *roles = json_object();

		for (const struct role_stat *x = role_stats; x->key; x++)
			json_object_set_new(roles, x->key,
					    json_integer((json_int_t)role_value(g, x->stat)));
		/* "probes": every probe the directory sent, downgrading, invalidating and (a
		 * tracked directory's own evictions) back-invalidating */
		json_object_set_new(
		    roles, "probes",
		    json_integer((json_int_t)(role_value(g, "dir.probes.downgrade") +
					      role_value(g, "dir.probes.inv") +
					      role_value(g, "dir.probes.backinv"))));
		/* "dram_writes": the directory's writes to memory, whatever their cause (seed 002
		 * Fig. 5 counts them all; a cause with no statistic counts 0) */
		{
			double w = 0;
			char name[64];

			for (const char *const *c = apu_dir_write_causes; *c; c++) {
				snprintf(name, sizeof(name), "dir.dram.writes.%s", *c);
				w += role_value(g, name);
			}
			json_object_set_new(roles, "dram_writes", json_integer((json_int_t)w));
			json_object_set_new(
			    roles, "dram_accesses",
			    json_integer((json_int_t)(w + role_value(g, "dir.dram.reads"))));
		}
		json_object_set_new(r, "apu", roles);
		json_object_set_new(r, "fabric", fabric_json(apu_mem_fabric(g->apu)));
		json_object_set_new(r, "noc_bytes", json_real(apu_mem_traffic(g->apu)));
		json_object_set_new(r, "traffic", fabric_traffic_json(apu_mem_fabric(g->apu)));
	}
	{
		struct energy_report en;

		cpu_energy(g, &e, &en);
		energy_report_json(r, &en);
	}
	for (unsigned i = 0; i < g->nnotes; i++)
		json_array_append_new(notes, json_string(g->notes[i]));
	json_object_set_new(r, "notes", notes);
	if (g->chk) {
		json_object_set_new(r, "coherence_violations",
				    json_integer((json_int_t)cohcheck_violations(g->chk)));
		json_object_set_new(r, "coherence_first", json_string(cohcheck_first(g->chk)));
	}
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

const struct cs_system_ops cs_apu_system = {
    .version = 1,
    .name = "apu",
    .help = "seed 002's APU: CPU cores in MOESI CorePairs and GPU CUs with VIPER TCPs and TCC, "
	    "a DMA engine, the stateless directory with its victim LLC, DRAM (docs/apu.md)",
    .modes = 1u << CS_MODE_DETAILED | 1u << CS_MODE_HYBRID | 1u << CS_MODE_ANALYTIC,
    .build = apu_build,
    .run = cpu_run,
    .report = cpu_report,
    .result = cpu_result,
    .host_result = cpu_host_result,
    .destroy = cpu_destroy,
};
