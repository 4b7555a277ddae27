/*
 * tlm/system/gpu.c - system "gpu": a GPU cluster (gpu_cluster.h: the SMs with their L1s and
 * the CTA scheduler), the NoC, the banked L2 and DRAM channels, built from the configuration;
 * the host side of the op API (gh_*), the kernels' books for the sampling layer, the report.
 *
 * Topology: SM i's L1 -> NoC request port i; NoC memory port j -> L2 bank j; bank j -> DRAM
 * channel j / l2.banks_per_channel. The protocol (coherence.protocol) provides the L1 and L2
 * controllers. The host program of the workload runs as a thread: it writes inputs
 * functionally, launches kernels and waits for each, then checks the output. At a launch the
 * L1s are invalidated; at the end of a kernel the L1s write back what the protocol requires
 * before the kernel counts as done.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/energy.h"
#include "analytic/ltmodel.h"
#include "calibrate/calfile.h"
#include "sampling/sampler.h"
#include "tlm/coherence/gpu_fabric.h"
#include "tlm/coherence/gpu_proto.h"
#include "tlm/core/sm.h"
#include "tlm/dram/dram.h"
#include "tlm/noc/noc.h"
#include "tlm/system/gpu.h"
#include "tlm/system/fabric.h"
#include "tlm/system/gpu_cluster.h"
#include "tlm/system/system.h"
#include "util/mix.h"
#include "workloads/gpu_api.h"
#include "workloads/trace/trace.h"
#include "workloads/pannotia.h"
#include "workloads/workload.h"
#include "workloads/wsq.h"

#define HEAP_BASE	  0x10000000ull
#define GPU_MAX_PROTOCOLS 16
#define MAX_NOTES	  16
#define NOTE_BYTES	  256 /* a longer note ends in "..." */

/* ---- parameters ------------------------------------------------------------------------------ */

static const struct cs_param gpu_rows[] = {
    {"sms", CS_P_UINT, offsetof(struct gpu_cfg, sms), "16", "", "SMs (Table 3.3: 16)", 1, 1024,
     NULL},
    {"check", CS_P_BOOL, offsetof(struct gpu_cfg, check), "false", "",
     "run the TLM base-protocol checker on every binding and the coherence checker on every "
     "load (tests turn it on)",
     0, 0, NULL},
    {"line_stats", CS_P_BOOL, offsetof(struct gpu_cfg, line_stats), "false", "",
     "count the 128-byte lines the SMs' requests touch and those touched by more than one "
     "request (gpu.lines_touched, gpu.lines_retouched; a workload's characterisation, "
     "docs/workloads.md; detailed and LT faces, a hash set of every line)",
     0, 0, NULL},
    {NULL},
};

const struct cs_param_table gpu_params = {
    .section = "gpu",
    .help = "the GPU as a whole",
    .params = gpu_rows,
    .size = sizeof(struct gpu_cfg),
};

static const struct cs_param coherence_rows[] = {
    {"protocol", CS_P_STRING, offsetof(struct gpu_coherence_cfg, protocol), "none", "",
     "coherence protocol (cohscope list protocols)", 0, 0, NULL},
    {NULL},
};

const struct cs_param_table gpu_coherence_params = {
    .section = "coherence",
    .help = "the coherence protocol of the GPU's caches",
    .params = coherence_rows,
    .size = sizeof(struct gpu_coherence_cfg),
};

static const char *const size_names[] = {"tiny", "small", "default", "full", NULL};
static const char *const check_names[] = {"sample", "full", NULL};

static const struct cs_param workload_rows[] = {
    {"size", CS_P_ENUM, offsetof(struct gpu_workload_cfg, size), "small", "",
     "input size: tiny (unit tests), small (CI), default (sized like the papers' runs), full "
     "(the original inputs' sizes where a workload has them: the graphs of sssp, color and "
     "pagerank at their real node counts, docs/graphs.md; the suites' ports with larger "
     "original inputs, docs/workloads.md; other workloads as default)",
     0, 0, size_names},
    {"check", CS_P_ENUM, offsetof(struct gpu_workload_cfg, check), "sample", "",
     "how a benchmark with a costly host reference (sgm, ccp, km, mriq) checks its output: sample "
     "(a "
     "seeded random sample of workload.samples outputs, each bit for bit; the host side then "
     "costs little beside the simulation) or full (every output)",
     0, 0, check_names},
    {"samples", CS_P_UINT, offsetof(struct gpu_workload_cfg, samples), "4096", "outputs",
     "outputs a sampled check compares (all of them when there are fewer)", 1, 1ull << 40, NULL},
    {"corrupt", CS_P_BOOL, offsetof(struct gpu_workload_cfg, corrupt), "false", "",
     "tests of the workloads' checks: flip one high bit of the output word a workload names "
     "after its last launch (gh_corrupt), so that its check must fail (with check = full)",
     0, 0, NULL},
    {"graph", CS_P_ENUM, offsetof(struct gpu_workload_cfg, graph), "auto", "",
     "input graph of sssp, color and pagerank: a seeded graph shaped like one of seed 004's "
     "inputs, sized by workload.size (docs/graphs.md); auto: the workload's first input "
     "(sssp and pagerank usa-road-d.bay, color ecology1)",
     0, 0, pannotia_graph_names},
    {"graph_file", CS_P_STRING, offsetof(struct gpu_workload_cfg, graph_file), "", "",
     "sssp, color, pagerank: read the graph from this Matrix Market or DIMACS .gr file (the "
     "real input) instead of generating workload.graph; empty: generate",
     0, 0, NULL},
    {"scenario", CS_P_ENUM, offsetof(struct gpu_workload_cfg, scenario), "baseline", "",
     "sssp, color, pagerank: seed 004's synchronization scenario of the per-CTA task queues: "
     "baseline (no stealing, agent scope), scope-only (no stealing, work-group scope), "
     "steal-only (stealing, agent scope), rsp (work-group scope for own pops, remote agent "
     "scope for steals), scoped-steal (work-group scope for own pops, agent scope for steals: "
     "hLRC-scoped's, correct under registration only)",
     0, 0, wsq_scenario_names},
    {"chunk", CS_P_UINT, offsetof(struct gpu_workload_cfg, chunk), "0", "nodes",
     "sssp, color, pagerank: graph nodes per task; 0: one per work-item of the work-group (2 "
     "wavefronts of core.lanes)",
     0, 1u << 20, NULL},
    {"victim", CS_P_ENUM, offsetof(struct gpu_workload_cfg, victim), "random", "",
     "sssp, color, pagerank: where an idle work-group's sweep of the other queues starts: "
     "random, ring (the next queue), sticky (the last queue it stole from, else random)",
     0, 0, wsq_victim_names},
    {"steal_probe", CS_P_ENUM, offsetof(struct gpu_workload_cfg, steal_probe), "atomic", "",
     "sssp, color, pagerank: how a thief looks at a victim's queue: atomic (the steal's acquire "
     "loads of its indices), plain (plain loads first; the acquire loads and the CAS only when "
     "the queue looks non-empty)",
     0, 0, wsq_probe_names},
    {"queue_order", CS_P_ENUM, offsetof(struct gpu_workload_cfg, queue_order), "sc", "",
     "sssp, color, pagerank: how a pop orders its bottom store before its age read: sc (seed "
     "004's SC atomics: a release store the warp waits for, an exchange; no fence) or fence "
     "(a C11 / OpenCL 2.0 deque's relaxed store and acq_rel fence: a whole-L1 invalidation "
     "and store-buffer flush per pop under the scoped protocols and hLRC). Index loads are "
     "acquire, stores release, the CAS acq_rel either way",
     0, 0, wsq_order_names},
    {NULL},
};

const struct cs_param_table gpu_workload_params = {
    .section = "workload",
    .help = "the workload's inputs",
    .params = workload_rows,
    .size = sizeof(struct gpu_workload_cfg),
};

/* ---- state ----------------------------------------------------------------------------------- */

struct kernel_rec {
	char name[48];
	unsigned ctas;
	sim_time_t start, end;
	struct samp_estimate est;   /* hybrid, analytic: the kernel's estimate */
	double feat[CALM_FEATURES]; /* mean utilisation of NoC bank ports, L2 banks, DRAM buses */
	double lt_cycles, at_cycles, insts;
};

struct gpu_sys {
	struct cs_system *s;
	struct gpu_cfg gpu;
	struct gpu_core_cfg core;
	struct gpu_l1_cfg l1;
	struct gpu_l2_cfg l2;
	struct dram_cfg dram_cfg;
	struct gpu_coherence_cfg coh;
	struct gpu_workload_cfg wl;
	bool corrupted;		  /* gh_corrupt has flipped its bit (workload.corrupt) */
	struct gpu_kernel launch; /* the running launch's copy of its kernel (gpu_kernel_shape) */
	/* gpu.line_stats: open addressing on line address + 1 (0: empty), a count (1 or 2) each */
	struct {
		uint64_t *key;
		uint8_t *seen;
		size_t cap, n;
		uint64_t *touched, *retouched;
	} lines;
	struct energy_model energy; /* its L1's and banks' values from CACTI at build */
	const struct gpu_protocol *proto;
	void *proto_cfg[GPU_MAX_PROTOCOLS]; /* each registered protocol's section */
	struct gpu_ctx ctx;
	struct tlm_pool *pool;
	struct mem_store *store;
	struct cohcheck *chk;
	uint64_t *chk_violations, *chk_reads;
	/* the memory side, made by the system builder (tlm/system/fabric.h) */
	struct fabric *fab;
	struct gpu_fab_ctx fab_ctx;
	struct noc *noc;
	struct gpu_l2 *const *bank;
	struct dram_ctrl *const *dram;
	unsigned channels;
	struct gpu_cluster *gc; /* the SMs and the CTA scheduler */
	struct gpu_l1 **l1s;	/* every SM's L1 (gpu_ctx.l1s) */

	/* the host program */
	struct sim_event *kernel_done;
	int host_rc;
	bool host_finished;
	uint64_t heap;
	char notes[MAX_NOTES][NOTE_BYTES];
	unsigned nnotes;

	/* --record: the trace being filled and the running kernel's entry in it */
	struct trace *rec;
	struct trace_kernel *rec_k;

	/* the running kernel */
	bool running;
	struct kernel_rec *kernels;
	unsigned nkernels, kernels_cap;

	int fail_code;
	char fail_msg[400];
	bool failed;

	/* modes: the sampling layer, the LT contention model */
	unsigned mode; /* enum cs_mode */
	struct samp_cfg scfg;
	struct sampler *sampler;
	struct lt_params ltp;
	struct gpu_lt_clock lt_clock;
	double cal_factor; /* analytic: the calibration's correction (0: none) */
	struct cal_file cal;
	double f0[4];		 /* counters at the kernel's start: NoC bank-port flits, L2
				  accesses, DRAM bus cycles */
	const uint64_t **ev_ctr; /* same-event pairs: the counters after the SMs' work */
	unsigned nev_ctr;
	struct gpu_ev_port {
		const struct noc *noc;
		unsigned ep;
	} * ev_ep; /* the network ports of the SMs' L1s, then of the L2 banks */
};

static struct gpu_sys *G(struct gpu_host *h)
{
	return (struct gpu_sys *)h;
}

static void gpu_fail(void *obj, int code, const char *msg)
{
	struct gpu_sys *g = obj;

	if (!g->failed) {
		g->failed = true;
		g->fail_code = code;
		snprintf(g->fail_msg, sizeof(g->fail_msg), "%s", msg);
	}
	sim_fail(g->s->k, code, "%s", msg);
	/* gh_launch returns the failure (gpu_api.h): the host program runs on in this evaluation
	 * phase, before the kernel stops, and frees what it holds; the warps stay abandoned */
	if (g->running)
		sim_event_notify(g->kernel_done);
}

/* Nothing queued or in flight in the L2 banks, DRAM channels and the NoC. */
static bool gpu_memory_idle(void *obj)
{
	const struct gpu_sys *g = obj;

	for (unsigned b = 0; b < g->l2.banks; b++)
		if (!g->proto->l2->idle(g->bank[b]))
			return false;
	for (unsigned c = 0; c < g->channels; c++)
		if (dram_ctrl_queued(g->dram[c]))
			return false;
	return !noc_in_flight(g->noc);
}

/* Bytes the networks carried (header + payload, every vnet), as they declare them. */
static double gpu_noc_bytes(void *obj)
{
	const struct gpu_sys *g = obj;
	double b = 0;

	for (unsigned i = 0; i < fabric_nets(g->fab); i++)
		b += (double)noc_bytes(fabric_net(g->fab, i));
	return b;
}

/* Same-event pairs: per SM what it issued (spin tries in), per bank its L2 accesses, per
 * channel its data-bus busy cycles (counters found once), per NoC port its flits as the
 * network declares them: each SM's injection and ejection links, then each bank's ejection and
 * injection links, over every vnet. */
static void gpu_event_counts(void *obj, double *v)
{
	const struct gpu_sys *g = obj;
	unsigned i = 0, banks = (unsigned)g->l2.banks;

	for (unsigned s = 0; s < g->ctx.sms; s++)
		v[i++] = (double)gpu_sm_issued(gpu_cluster_sm(g->gc, s));
	for (unsigned c = 0; c < g->nev_ctr; c++)
		v[i++] = g->ev_ctr[c] ? (double)*g->ev_ctr[c] : 0;
	for (unsigned p = 0; p < 4; p++)
		for (unsigned e = 0; e < (p < 2 ? g->ctx.sms : banks); e++) {
			const struct gpu_ev_port *q = &g->ev_ep[(p < 2 ? 0 : g->ctx.sms) + e];

			v[i++] = (double)noc_ep_flits(q->noc, q->ep, p == 0 || p == 3);
		}
}

static int gpu_events_setup(struct gpu_sys *g, struct cs_err *err)
{
	double core = (double)sim_clock_period_ps(&g->ctx.core_clk);
	unsigned banks = (unsigned)g->l2.banks, n = 0;
	struct samp_events ev = {
	    .layout = {.n = {g->ctx.sms, banks, g->channels, 2 * (g->ctx.sms + banks)},
		       .cycles = {1.0 / (double)g->core.schedulers,
				  (double)sim_clock_period_ps(&g->ctx.l2_clk) / core,
				  1e6 / ((double)g->dram_cfg.clock_mhz * core),
				  (double)sim_clock_period_ps(noc_clock(g->noc)) / core}},
	    .counts = gpu_event_counts,
	};
	char name[80], where[CS_WHERE_MAX];

	g->nev_ctr = banks + g->channels;
	g->ev_ctr = calloc(g->nev_ctr, sizeof(*g->ev_ctr));
	g->ev_ep = calloc(g->ctx.sms + banks, sizeof(*g->ev_ep));
	if (!g->ev_ctr || !g->ev_ep)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (unsigned e = 0; e < g->ctx.sms + banks; e++) {
		bool l1 = e < g->ctx.sms;
		const struct fab_node *nd =
		    fabric_node(g->fab, l1 ? "l1" : "l2", l1 ? e : e - g->ctx.sms);

		if (!nd || nd->net < 0)
			return cs_err_set(err, -CS_EINVAL, "%s %u is on no network",
					  l1 ? "SM" : "L2 bank", l1 ? e : e - g->ctx.sms);
		g->ev_ep[e].noc = fabric_net(g->fab, (unsigned)nd->net);
		g->ev_ep[e].ep = fabric_node_endpoint(g->fab, nd);
	}
	for (unsigned i = 0; i < banks + g->channels; i++) {
		if (i < banks)
			snprintf(name, sizeof(name), "gpu.l2.bank%u.accesses", i);
		else
			snprintf(name, sizeof(name), "gpu.dram%u.bus_busy", i - banks);
		g->ev_ctr[n] = cs_stats_counter_find(g->s->stats, name);
		if (!g->ev_ctr[n++])
			return cs_err_set(
			    err, -CS_EINVAL,
			    "the events predictor needs the counter %s, which protocol "
			    "%s does not register",
			    name, g->proto->name);
	}
	if (sampler_set_events(g->sampler, &ev))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	cs_config_origin(g->s->cfg, "sampling", "predictor", where, sizeof(where));
	return sampler_ready(g->sampler, where, "gpu", err);
}

static bool gpu_all_started(void *obj)
{
	const struct gpu_sys *g = obj;

	return gpu_cluster_all_started(g->gc);
}

static void gpu_ff_timing(void *obj, bool work)
{
	struct gpu_sys *g = obj;

	g->ctx.ff_work_time = work;
}

static const struct samp_system_ops gpu_sampled = {
    .idle = gpu_memory_idle,
    .traffic = gpu_noc_bytes,
    .all_started = gpu_all_started,
    .ff_timing = gpu_ff_timing,
};

static double stat_sum(const struct gpu_sys *g, const char *fmt, unsigned n);

/* The counters behind the calibration's features. */
static void feature_counts(const struct gpu_sys *g, double c[3])
{
	double v = 0;

	cs_stats_value(g->s->stats, "gpu.noc.flits", &v);
	c[0] = v;
	c[1] = stat_sum(g, "gpu.l2.bank%u.accesses", (unsigned)g->l2.banks);
	c[2] = stat_sum(g, "gpu.dram%u.bus_busy", g->channels);
}

/* A kernel's mean utilisations over ps picoseconds of its time. */
static void features(const struct gpu_sys *g, double ps, double out[CALM_FEATURES])
{
	double c[3];
	double noc_cyc = ps / (double)sim_clock_period_ps(noc_clock(g->noc));
	double l2_cyc = ps / (double)sim_clock_period_ps(&g->ctx.l2_clk);
	double dram_cyc = ps * (double)g->dram_cfg.clock_mhz * 1e-6;

	feature_counts(g, c);
	out[0] = noc_cyc > 0 ? (c[0] - g->f0[0]) / (noc_cyc * 2.0 * (double)g->l2.banks) : 0;
	out[1] = l2_cyc > 0 ? (c[1] - g->f0[1]) / (l2_cyc * (double)g->l2.banks) : 0;
	out[2] = dram_cyc > 0 ? (c[2] - g->f0[2]) / (dram_cyc * (double)g->channels) : 0;
}

/* A kernel starts: its features' counters, then every SM on the face its plan wants. */
static void plan_kernel(struct gpu_sys *g, const struct gpu_kernel *kn)
{
	feature_counts(g, g->f0);
	sampler_kernel_begin(g->sampler, kn->name ? kn->name : "kernel", kn->ctas,
			     kn->warps_per_cta);
}

/* The kernel's last CTA is done at t: close its books. */
static void plan_kernel_end(struct gpu_sys *g, struct kernel_rec *r, sim_time_t t)
{
	struct samp_kernel_facts f;
	double at_ps, lt_ps;

	sampler_kernel_close(g->sampler, t, &f);
	sampler_kernel_ps(g->sampler, &at_ps, &lt_ps);
	features(g, at_ps + lt_ps, r->feat);
	r->lt_cycles = lt_ps / (double)sim_clock_period_ps(&g->ctx.core_clk);
	r->at_cycles = f.at_cycles;
	r->insts = f.insts;
	if (g->mode == CS_MODE_DETAILED)
		return;
	g->cal_factor =
	    g->mode == CS_MODE_ANALYTIC && g->cal.loaded ? calm_ratio(g->cal.p, r->feat, NULL) : 0;
	f.lt_factor = g->cal_factor;
	sampler_kernel_estimate(g->sampler, &f, &r->est);
}

/* The host's copies see the values in the L2 and in DRAM, not those still travelling between
 * them: a kernel's end is reported once every bank has drained its write-backs. */
static void drain_poll(struct sim_kernel *k, void *obj, void *arg)
{
	struct gpu_sys *g = obj;

	(void)arg;
	for (unsigned b = 0; b < g->l2.banks; b++)
		if (!g->proto->l2->idle(g->bank[b])) {
			sim_schedule(k, 10 * SIM_NS, drain_poll, g, NULL);
			return;
		}
	{
		sim_time_t end = g->nkernels ? g->kernels[g->nkernels - 1].end : 0;

		sim_event_notify_delayed(g->kernel_done, end > sim_now(k) ? end - sim_now(k) : 0);
	}
}

static uint64_t core_cycles(const struct gpu_sys *g, sim_time_t t);
static void gpu_progress(struct gpu_sys *g);

static void kernel_end(void *arg)
{
	struct gpu_sys *g = arg;
	sim_time_t end = sim_now(g->s->k);

	/* LT and FF warps ran ahead: the kernel ends when the last one exited */
	if (sampler_face(g->sampler) != SAMP_FACE_AT && gpu_cluster_lt_exit_time(g->gc) > end)
		end = gpu_cluster_lt_exit_time(g->gc);
	plan_kernel_end(g, &g->kernels[g->nkernels - 1], end);
	g->running = false;
	g->kernels[g->nkernels - 1].end = end;
	gpu_progress(g);
	drain_poll(g->s->k, g, NULL);
}

/* Tells the command line's progress display where the run is (at CTA and kernel boundaries). */
static void gpu_progress(struct gpu_sys *g)
{
	struct cs_progress p = {.mode = cs_mode_names[g->mode], .kernel = ""};

	if (!g->s->progress)
		return;
	p.kernels = g->nkernels;
	if (g->running && gpu_cluster_kernel(g->gc)) {
		p.kernel = g->kernels[g->nkernels - 1].name;
		p.ctas = gpu_cluster_kernel(g->gc)->ctas;
		p.ctas_done = gpu_cluster_ctas_done(g->gc);
	}
	p.cycles = core_cycles(g, sim_now(g->s->k));
	if (g->sampler)
		sampler_counts(g->sampler, &p.units, &(unsigned){0}, &(unsigned){0});
	for (unsigned i = g->nkernels; i-- > 0;)
		if (g->kernels[i].end) {
			const struct kernel_rec *r = &g->kernels[i];

			p.kernel_est =
			    g->mode == CS_MODE_DETAILED
				? (double)(core_cycles(g, r->end) - core_cycles(g, r->start))
				: r->est.cycles;
			p.kernel_half = g->mode == CS_MODE_DETAILED ? 0 : r->est.half;
			break;
		}
	g->s->progress(g->s->progress_arg, &p);
}

static void cta_done(void *obj)
{
	gpu_progress(obj);
}

static void ctas_done(void *obj)
{
	struct gpu_sys *g = obj;

	/* LT: the L1s' kernel-end write-backs go side by side, as in the detailed face */
	g->lt_clock.defer = sampler_face(g->sampler) == SAMP_FACE_LT;
	g->lt_clock.noc = g->noc;
	gpu_cluster_kernel_end(g->gc, kernel_end, g);
	l1_port_lt_drain(&g->lt_clock);
}

/* ---- host API -------------------------------------------------------------------------------- */

int gh_launch(struct gpu_host *h, const struct gpu_kernel *user_k)
{
	struct gpu_sys *g = G(h);
	const struct gpu_kernel *k = &g->launch;
	struct kernel_rec *r;
	char msg[200];
	int rc;

	if (g->failed)
		return g->fail_code;
	if (gpu_kernel_shape(user_k, &g->launch, msg, sizeof(msg)))
		return gh_fail(h, "%s", msg);
	rc = gpu_cluster_check_fit(g->gc, k);
	if (rc)
		return rc;
	if (g->nkernels == g->kernels_cap) {
		unsigned n = g->kernels_cap ? g->kernels_cap * 2 : 8;
		struct kernel_rec *nk = realloc(g->kernels, n * sizeof(*nk));

		if (!nk)
			return -CS_ENOMEM;
		g->kernels = nk;
		g->kernels_cap = n;
	}
	if (g->rec) {
		rc = trace_add_kernel(g->rec, k->name ? k->name : "kernel", k->ctas,
				      k->warps_per_cta, k->regs_per_thread, k->smem_bytes,
				      k->cta_sm, &g->rec_k);

		if (rc)
			return gh_fail(h, "recording: out of memory");
		g->rec_k->lanes = gpu_kernel_lanes(k);
	}
	if (k->local_bytes) {
		/* fresh for every launch: local values never outlive it (gw_ld_localv) */
		uint64_t threads = (uint64_t)k->ctas * k->warps_per_cta * gpu_kernel_lanes(k);

		g->launch.local_base = gh_alloc(h, threads * k->local_bytes, 128);
		if (g->failed)
			return g->fail_code;
	}
	r = &g->kernels[g->nkernels++];
	/* a run that fails inside the kernel never closes its books: its figures stay 0 */
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", k->name ? k->name : "kernel");
	r->ctas = k->ctas;
	r->start = sim_now(g->s->k);
	g->running = true;
	plan_kernel(g, k);
	gpu_cluster_begin(g->gc, k);
	if (g->proto->l2->kernel_begin)
		for (unsigned b = 0; b < g->l2.banks; b++)
			g->proto->l2->kernel_begin(g->bank[b]);
	gpu_cluster_fill(g->gc);
	sim_wait_event(g->s->k, g->kernel_done);
	return g->failed ? g->fail_code : 0;
}

uint64_t gh_alloc(struct gpu_host *h, uint64_t bytes, uint64_t align)
{
	struct gpu_sys *g = G(h);
	uint64_t a;

	if (!align)
		align = 256;
	if (align < 128)
		align = 128;
	a = (g->heap + align - 1) & ~(align - 1);
	g->heap = a + (bytes ? bytes : 1);
	if (g->rec)
		g->rec->heap_end = g->heap;
	{
		char msg[160];

		if (fabric_check_alloc(g->fab, a, g->heap - a, msg, sizeof(msg)))
			gpu_fail(g, -CS_ECONFIG, msg);
	}
	return a;
}

static void host_copy(struct gpu_sys *g, uint64_t addr, void *rbuf, const void *wbuf, size_t len)
{
	unsigned chunk = (unsigned)g->l2.line_bytes;

	while (len) {
		uint64_t line = addr & ~(uint64_t)(chunk - 1);
		size_t n = line + chunk - addr < len ? (size_t)(line + chunk - addr) : len;
		struct gpu_l2 *b = g->bank[addrmap_bank(&g->ctx.map, addr)];

		if (rbuf) {
			g->proto->l2->functional_read(b, addr, rbuf, n);
			rbuf = (uint8_t *)rbuf + n;
		} else {
			if (g->proto->l2->functional_write(b, addr, wbuf, n))
				gpu_fail(g, -CS_ENOMEM, "out of memory for the backing store");
			for (size_t i = 0; g->chk && i + 4 <= n; i += 4) {
				uint32_t v;

				memcpy(&v, (const uint8_t *)wbuf + i, 4);
				if (!((addr + i) & 3))
					cohcheck_write(g->chk, addr + i, 4, v);
			}
			wbuf = (const uint8_t *)wbuf + n;
		}
		addr += n;
		len -= n;
	}
}

void gh_write(struct gpu_host *h, uint64_t addr, const void *buf, size_t len)
{
	struct gpu_sys *g = G(h);

	if (g->rec && trace_add_copy(g->rec, addr, buf, len))
		gpu_fail(g, -CS_ENOMEM, "recording: out of memory");
	host_copy(g, addr, NULL, buf, len);
}

void gh_read(struct gpu_host *h, uint64_t addr, void *buf, size_t len)
{
	host_copy(G(h), addr, buf, NULL, len);
}

uint32_t gh_read32(struct gpu_host *h, uint64_t addr)
{
	uint32_t v;

	gh_read(h, addr, &v, 4);
	return v;
}

void gh_write32(struct gpu_host *h, uint64_t addr, uint32_t v)
{
	gh_write(h, addr, &v, 4);
}

void gh_corrupt(struct gpu_host *h, uint64_t addr, unsigned bytes)
{
	struct gpu_sys *g = G(h);
	uint64_t v = 0;

	if (!g->wl.corrupt || g->corrupted || (bytes != 4 && bytes != 8))
		return;
	g->corrupted = true;
	gh_read(h, addr, &v, bytes);
	v ^= bytes == 4 ? 1ull << 30 : 1ull << 62;
	gh_write(h, addr, &v, bytes);
	gh_note(h, "workload.corrupt: flipped bit %u of the %u-byte word at %#" PRIx64,
		bytes == 4 ? 30 : 62, bytes, addr);
}

const struct gpu_workload_cfg *gh_workload_cfg(const struct gpu_host *h)
{
	return &((const struct gpu_sys *)h)->wl;
}

enum gpu_size gh_size(const struct gpu_host *h)
{
	return (enum gpu_size)((const struct gpu_sys *)h)->wl.size;
}

uint64_t gh_check_samples(const struct gpu_host *h)
{
	const struct gpu_workload_cfg *wl = &((const struct gpu_sys *)h)->wl;

	return wl->check ? UINT64_MAX : wl->samples;
}

uint64_t gh_seed(const struct gpu_host *h)
{
	return ((const struct gpu_sys *)h)->s->sim.seed;
}

void *gh_arg(const struct gpu_host *h)
{
	return G((struct gpu_host *)h)->s->workload_arg;
}

bool gh_probe_l1(struct gpu_host *h, unsigned sm, unsigned slot, uint64_t addr, uint64_t out[3])
{
	struct gpu_sys *g = G(h);

	if (sm >= g->ctx.sms || !g->proto->l1->probe)
		return false;
	return g->proto->l1->probe(gpu_sm_l1(gpu_cluster_sm(g->gc, sm)), addr, slot, out);
}

bool gh_probe_l2(struct gpu_host *h, uint64_t addr, uint64_t out[3])
{
	struct gpu_sys *g = G(h);

	if (!g->proto->l2->probe)
		return false;
	return g->proto->l2->probe(g->bank[addrmap_bank(&g->ctx.map, addr)], addr, out);
}

unsigned gh_sms(const struct gpu_host *h)
{
	return ((const struct gpu_sys *)h)->ctx.sms;
}

unsigned gh_lanes(const struct gpu_host *h)
{
	return (unsigned)((const struct gpu_sys *)h)->core.lanes;
}

unsigned gh_max_ctas_per_sm(const struct gpu_host *h, const struct gpu_kernel *k)
{
	return gpu_sm_max_ctas(&((const struct gpu_sys *)h)->core, k);
}

static int gh_vfail(struct gpu_host *h, int code, const char *fmt, va_list ap)
{
	char msg[400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	gpu_fail(G(h), code, msg);
	return code;
}

int gh_error(struct gpu_host *h, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = gh_vfail(h, code, fmt, ap);
	va_end(ap);
	return code;
}

int gh_fail(struct gpu_host *h, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = gh_vfail(h, -CS_ECHECK, fmt, ap);
	va_end(ap);
	return code;
}

int gh_no_fit(struct gpu_host *h, const struct gpu_kernel *k)
{
	int rc = gpu_cluster_check_fit(G(h)->gc, k);

	return rc ? rc : gh_error(h, -CS_EINVAL, "kernel '%s' fits on an SM", k->name);
}

void gh_note(struct gpu_host *h, const char *fmt, ...)
{
	struct gpu_sys *g = G(h);
	va_list ap;

	if (g->nnotes == MAX_NOTES)
		return;
	va_start(ap, fmt);
	cs_vformat_cut(g->notes[g->nnotes++], NOTE_BYTES, fmt, ap);
	va_end(ap);
}

/* ---- build ----------------------------------------------------------------------------------- */

/* ---- line statistics (gpu.line_stats) -------------------------------------------------------- */

static size_t line_hash(uint64_t k, size_t cap)
{
	return (size_t)cs_mix64(k) & (cap - 1);
}

static bool lines_grow(struct gpu_sys *g)
{
	size_t cap = g->lines.cap ? g->lines.cap * 2 : 1u << 16;
	uint64_t *key = calloc(cap, sizeof(*key));
	uint8_t *seen = calloc(cap, 1);

	if (!key || !seen) {
		free(key);
		free(seen);
		return false;
	}
	for (size_t i = 0; i < g->lines.cap; i++) {
		size_t j;

		if (!g->lines.key[i])
			continue;
		for (j = line_hash(g->lines.key[i], cap); key[j]; j = (j + 1) & (cap - 1))
			;
		key[j] = g->lines.key[i];
		seen[j] = g->lines.seen[i];
	}
	free(g->lines.key);
	free(g->lines.seen);
	g->lines.key = key;
	g->lines.seen = seen;
	g->lines.cap = cap;
	return true;
}

static void line_touch(void *obj, uint64_t line_addr)
{
	struct gpu_sys *g = obj;
	uint64_t k = line_addr + 1;
	size_t j;

	if (2 * (g->lines.n + 1) > g->lines.cap && !lines_grow(g)) {
		gpu_fail(g, -CS_ENOMEM, "gpu.line_stats: out of memory");
		return;
	}
	for (j = line_hash(k, g->lines.cap); g->lines.key[j] && g->lines.key[j] != k;
	     j = (j + 1) & (g->lines.cap - 1))
		;
	if (!g->lines.key[j]) {
		g->lines.key[j] = k;
		g->lines.seen[j] = 1;
		g->lines.n++;
		(*g->lines.touched)++;
	} else if (g->lines.seen[j] == 1) {
		g->lines.seen[j] = 2;
		(*g->lines.retouched)++;
	}
}

static void gpu_destroy(struct cs_system *s)
{
	struct gpu_sys *g = s->priv;

	if (!g)
		return;
	/* checkers first: they hang off sockets the components own */
	fabric_detach_checkers(g->fab);
	gpu_cluster_destroy(g->gc);
	free(g->l1s);
	fabric_destroy(g->fab);
	free(g->lt_clock.deferred);
	free(g->kernels);
	free(g->lines.key);
	free(g->lines.seen);
	sampler_destroy(g->sampler);
	free(g->ev_ctr);
	free(g->ev_ep);
	for (unsigned i = 0; i < GPU_MAX_PROTOCOLS; i++)
		free(g->proto_cfg[i]);
	mem_store_destroy(g->store);
	cohcheck_destroy(g->chk);
	s->priv = NULL;
	free(g); /* the pool (s->pool) goes after the kernel, in cs_system_destroy */
}

/* Protocols sharing a section (tc-strong, tc-weak) share its slot. */
static unsigned proto_table_index(const struct gpu_protocol *proto)
{
	unsigned i = 0;

	for (const struct gpu_protocol *const *p = gpu_protocol_registry(); *p; p++, i++)
		if ((*p)->params && (*p)->params == proto->params)
			return i;
	return GPU_MAX_PROTOCOLS - 1; /* no section: an empty slot */
}

static int load_sections(struct gpu_sys *g, struct cs_err *err)
{
	struct cs_config *cfg = g->s->cfg;
	char where[CS_WHERE_MAX];
	int rc;

	if ((rc = cs_config_section(cfg, &gpu_params, &g->gpu, err)) ||
	    (rc = cs_config_section(cfg, &gpu_coherence_params, &g->coh, err)) ||
	    (rc = cs_config_section(cfg, &gpu_workload_params, &g->wl, err)) ||
	    (rc = cs_config_section(cfg, &gpu_core_params, &g->core, err)) ||
	    (rc = cs_config_section(cfg, &gpu_l1_params, &g->l1, err)) ||
	    (rc = cs_config_section(cfg, &gpu_l2_params, &g->l2, err)) ||
	    (rc = cs_config_section(cfg, &dram_params, &g->dram_cfg, err)) ||
	    (rc = cs_config_section(cfg, &samp_params, &g->scfg, err)) ||
	    (rc = cs_system_check_inputs(g->s, g->scfg.calibration, g->wl.graph_file, err)) ||
	    (rc = energy_model_load(cfg, &g->energy, err)))
		return rc;
	g->proto = gpu_protocol_find(g->coh.protocol);
	if (!g->proto) {
		const char *names[32];
		size_t n = 0;
		const char *near;

		for (const struct gpu_protocol *const *p = gpu_protocol_registry(); *p && n < 32;
		     p++)
			names[n++] = (*p)->name;
		near = cs_nearest(g->coh.protocol, names, n);
		cs_config_origin(cfg, "coherence", "protocol", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: unknown protocol%s%s%s", where,
				  near ? " (did you mean '" : "", near ? near : "",
				  near ? "'?)" : "");
	}
	rc = gpu_protocol_check(g->proto, err);
	if (rc)
		return rc;
	{
		/* the L1's and the banks' energies follow their geometry: CACTI's, once */
		const struct energy_arrays arrays = {
		    .has_l1 = g->proto->has_l1,
		    .l1_bytes = g->l1.size_kib * 1024,
		    .l1_assoc = (unsigned)g->l1.assoc,
		    .l1_line = (unsigned)g->l1.line_bytes,
		    .l1_mshrs = (unsigned)g->l1.mshrs,
		    .l2_bytes = g->l2.size_kib * 1024,
		    .l2_assoc = (unsigned)g->l2.assoc,
		    .l2_line = (unsigned)g->l2.line_bytes,
		    .l2_mshrs = (unsigned)g->l2.mshrs,
		    .warps = (unsigned)g->core.warps,
		};

		if (energy_model_arrays(&g->energy, &arrays))
			return energy_model_no_table(&g->energy, err);
	}
	/* every protocol's section, whichever runs: a sweep may set them all */
	for (const struct gpu_protocol *const *p = gpu_protocol_registry(); *p; p++) {
		unsigned i = proto_table_index(*p);

		if (!(*p)->params || g->proto_cfg[i])
			continue;
		g->proto_cfg[i] = calloc(1, (*p)->params->size);
		if (!g->proto_cfg[i])
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		rc = cs_config_section(cfg, (*p)->params, g->proto_cfg[i], err);
		if (rc)
			return rc;
	}
	if ((rc = gpu_core_cfg_check(&g->core, cfg, err)))
		return rc;
	if (g->l2.banks % g->l2.banks_per_channel) {
		cs_config_origin(cfg, "l2", "banks_per_channel", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: l2.banks (%" PRIu64 ") must be a multiple of it", where,
				  g->l2.banks);
	}
	if (g->l2.interleave & (g->l2.interleave - 1) || g->l2.interleave < g->l2.line_bytes) {
		cs_config_origin(cfg, "l2", "interleave", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: must be a power of two of at least l2.line_bytes", where);
	}
	if (g->l1.line_bytes != g->l2.line_bytes) {
		cs_config_origin(cfg, "l1", "line_bytes", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must equal l2.line_bytes (%" PRIu64 ")",
				  where, g->l2.line_bytes);
	}
	if ((rc = dram_cfg_check(&g->dram_cfg, err)))
		return rc;
	return 0;
}

static void observe_read(void *obj, unsigned sm, unsigned slot, uint64_t addr, unsigned bytes,
			 uint64_t v)
{
	struct gpu_sys *g = obj;

	cohcheck_read(g->chk, sm * (unsigned)g->core.warps + slot, addr, bytes, v);
	*g->chk_reads = cohcheck_reads(g->chk);
	*g->chk_violations = cohcheck_violations(g->chk);
}

/* The SM numbers its ops as the trace does (sm.h); a recorded op goes to its warp's stream. */
_Static_assert(TRACE_SPIN == 0 && TRACE_LD == 1 && TRACE_ST == 2 && TRACE_ATOM == 3 &&
		   TRACE_FENCE == 4 && TRACE_BAR == 5 && TRACE_COMPUTE == 6 && TRACE_SMEM == 7,
	       "sm_op_view.kind numbers as enum trace_op_kind");

static void record_op(void *gpu, uint64_t gwid, const struct sm_op_view *v)
{
	struct gpu_sys *g = gpu;
	struct trace_op op;
	int rc;

	op.kind = v->kind;
	op.bytes = v->bytes;
	op.atom_op = v->atom_op;
	op.scope = v->scope;
	op.order = v->order;
	op.want_old = v->want_old;
	op.cop = v->kind == TRACE_ATOM ? 0 : v->cop;
	op.mask = v->mask;
	op.cycles = v->cycles;
	op.first = v->spin_first;
	if (v->kind == TRACE_LD || v->kind == TRACE_ST || v->kind == TRACE_ATOM) {
		for (uint64_t m = v->mask; m; m &= m - 1) {
			unsigned l = (unsigned)__builtin_ctzll(m);

			op.addr[l] = v->addr[l];
			if (v->kind == TRACE_ST)
				op.val[l] = v->vals32 ? ((const uint32_t *)v->val)[l]
						      : ((const uint64_t *)v->val)[l];
			if (v->kind == TRACE_ATOM) { /* b (and a) may be NULL for a reduction */
				op.val[l] = v->a ? v->a[l] : 0;
				op.b[l] = v->b ? v->b[l] : 0;
			}
		}
	}
	rc = trace_buf_put(&g->rec_k->warp[gwid], &op);
	if (rc)
		gpu_fail(g, rc,
			 rc == -CS_ENOMEM ? "recording: out of memory"
					  : "recording: an op the trace cannot hold");
}

/* analytic mode: the correction a calibration file gives the LT face's time */
static int gpu_load_calibration(struct gpu_sys *g, struct cs_err *err)
{
	return cal_file_load(g->scfg.calibration, &g->cal, err);
}

static int gpu_build(struct cs_system *s, struct cs_err *err)
{
	struct gpu_sys *g = calloc(1, sizeof(*g));
	struct cs_stat_group *root = cs_stat_group(cs_stats_root(s->stats), "gpu");
	struct gpu_cluster_env env;
	const struct fab_proto *fab;
	const struct fab_std_group *std;
	unsigned n_std;
	int rc;

	if (!g)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	s->priv = g;
	g->s = s;
	/* the GPU's messages carry a protocol header: a pool of mem_msg replaces the system's */
	rc = tlm_pool_create_sized(sizeof(struct mem_msg), &g->pool);
	if (rc)
		return cs_err_set(err, rc, "out of memory");
	tlm_pool_destroy(s->pool);
	s->pool = g->pool;
	rc = load_sections(g, err);
	if (rc)
		return rc;
	g->heap = HEAP_BASE;
	g->kernel_done = sim_event_create(s->k, "gpu.kernel_done");
	if ((rc = mem_store_create(&g->store)) || !g->kernel_done)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	g->ctx.k = s->k;
	g->ctx.pool = s->pool;
	g->ctx.store = g->store;
	g->ctx.map.banks = (unsigned)g->l2.banks;
	g->ctx.map.banks_per_channel = (unsigned)g->l2.banks_per_channel;
	g->ctx.map.interleave_shift = (unsigned)__builtin_ctzll(g->l2.interleave);
	sim_clock_init(&g->ctx.core_clk, g->core.clock_mhz * 1000000);
	sim_clock_init(&g->ctx.l2_clk, g->l2.clock_mhz * 1000000);
	g->ctx.l1 = &g->l1;
	g->ctx.l2 = &g->l2;
	g->ctx.sms = (unsigned)g->gpu.sms;
	g->ctx.warps = (unsigned)g->core.warps;
	g->ctx.consistency = g->core.consistency;
	g->ctx.proto_cfg = g->proto_cfg[proto_table_index(g->proto)];
	g->mode = s->sys.mode;
	lt_params_default(&g->ltp);
	g->ltp.exact = g->scfg.lt_exact;
	g->ctx.lt = &g->ltp;
	g->ctx.lt_clock = &g->lt_clock;
	g->ctx.ff_warm = g->scfg.warm;
	g->lt_clock.deferred = calloc(g->ctx.sms, sizeof(*g->lt_clock.deferred));
	if (!g->lt_clock.deferred)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	/* an FF fill needs L1s that can hand their bytes back with no message and banks that
	 * warm (gpu_l1_ops.ff_flush, gpu_l2_ops.warm) */
	if (!g->proto->l1->ff_flush || !g->proto->l2->warm)
		g->scfg.fill = SAMP_FILL_LT;
	g->scfg.seed = g->s->sim.seed;
	if (sampler_create(g->s->k, &g->ctx.core_clk, &g->scfg, g->mode, &gpu_sampled, g,
			   &g->sampler))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	if (g->scfg.calibration[0]) {
		rc = gpu_load_calibration(g, err);
		if (rc)
			return rc;
	}
	if (g->gpu.check) {
		struct cs_stat_group *cg = cs_stat_group(root, "coherence_check");

		if (cohcheck_create(&g->chk))
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		g->ctx.chk = g->chk;
		g->chk_reads = cs_stat_counter(cg, "reads", "", "loads checked");
		g->chk_violations = cs_stat_counter(
		    cg, "violations", "", "loads that saw a value out of coherence order");
	}
	g->channels = (unsigned)(g->l2.banks / g->l2.banks_per_channel);

	g->fab_ctx = (struct gpu_fab_ctx){.proto = g->proto, .ctx = &g->ctx, .cfg = s->cfg};
	/* the protocol's family (the one-way network for those that probe L1s), else the
	 * request/response one */
	fab = g->proto->fab ? g->proto->fab : &gpu_fab_proto;
	std = g->proto->fab ? g->proto->fab_std : gpu_fab_std;
	n_std = g->proto->fab ? *g->proto->fab_n_std : gpu_fab_n_std;
	rc = fabric_build(&(struct fab_build_args){.k = s->k,
						   .cfg = s->cfg,
						   .proto = fab,
						   .ctx = &g->fab_ctx,
						   .std = std,
						   .n_std = n_std,
						   .root = root,
						   .net_stats = "noc",
						   .msg_names = g->proto->msg_names,
						   .msg_traffic = g->proto->msg_traffic,
						   .n_msgs = g->proto->n_msgs,
						   .check = g->gpu.check,
						   .dram = &g->dram_cfg,
						   .map = &g->ctx.map,
						   .store = g->store},
			  &g->fab, err);
	if (rc)
		return rc;
	g->noc = fabric_role_net(g->fab, "l2");
	g->bank = (struct gpu_l2 *const *)fabric_objs(g->fab, "l2");
	g->dram = (struct dram_ctrl *const *)fabric_objs(g->fab, "memctrl");
	g->ctx.l2_banks = g->bank;
	noc_set_lt(g->noc, &g->ltp);
	for (unsigned c = 0; c < g->channels; c++)
		dram_ctrl_set_lt(g->dram[c], &g->ltp);
	g->rec = s->record;
	if (g->rec) {
		snprintf(g->rec->source, sizeof(g->rec->source), "cohscope");
		snprintf(g->rec->workload, sizeof(g->rec->workload), "%s", s->workload->name);
		g->rec->heap_base = HEAP_BASE;
		g->rec->heap_end = HEAP_BASE;
	}
	if (g->gpu.line_stats) {
		g->lines.touched = cs_stat_counter(root, "lines_touched", "",
						   "128-byte lines the SMs' requests touched");
		g->lines.retouched = cs_stat_counter(
		    root, "lines_retouched", "",
		    "of those, lines more than one request touched (gpu.line_stats)");
	}
	env = (struct gpu_cluster_env){
	    .owner = g,
	    .fail = gpu_fail,
	    .cta_done = cta_done,
	    .ctas_done = ctas_done,
	    .observe_read = g->chk ? observe_read : NULL,
	    .record = g->rec ? record_op : NULL,
	    .touch = g->gpu.line_stats ? line_touch : NULL,
	    .seed = s->sim.seed,
	};
	rc = gpu_cluster_create(&g->ctx, &g->core, g->proto, &env,
				sim_clock_delay(&g->ctx.core_clk, 0, g->scfg.quantum), root, &g->gc,
				err);
	if (rc)
		return rc;
	if (gpu_cluster_sample(g->gc, g->sampler))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	g->l1s = calloc(g->ctx.sms, sizeof(*g->l1s));
	if (!g->l1s)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (unsigned i = 0; i < g->ctx.sms; i++) {
		g->l1s[i] = gpu_sm_l1(gpu_cluster_sm(g->gc, i));
		rc = fabric_attach(g->fab, "l1", i, g->l1s[i], err);
		if (rc)
			return rc;
	}
	g->ctx.l1s = g->l1s;
	return gpu_events_setup(g, err);
}

/* ---- run and report -------------------------------------------------------------------------- */

static void host_main(struct sim_kernel *k, void *ctx)
{
	struct gpu_sys *g = ctx;

	(void)k;
	g->host_rc = g->s->workload->gpu((struct gpu_host *)g);
	g->host_finished = true;
}

static uint64_t core_cycles(const struct gpu_sys *g, sim_time_t t)
{
	return sim_clock_cycle(&g->ctx.core_clk, t);
}

static int gpu_run(struct cs_system *s, struct cs_err *err)
{
	struct gpu_sys *g = s->priv;
	int rc;

	if (!sim_thread_create(s->k, "host", host_main, g, (size_t)g->core.stack_kib * 1024 * 4))
		return cs_err_set(err, -CS_ENOMEM, "cannot create the host thread");
	rc = sim_run(s->k);
	if (g->failed)
		return cs_err_set(err, g->fail_code == -CS_ECHECK ? -CS_ECHECK : g->fail_code, "%s",
				  g->fail_msg);
	if (rc)
		return cs_err_set(err, rc, "%s", sim_failure(s->k) ? sim_failure(s->k) : "failed");
	if (!g->host_finished)
		return cs_err_set(err, -CS_ESTATE,
				  "the simulation ran out of events with the host program still "
				  "waiting (a deadlock in the model) at %" PRIu64 " cycles",
				  core_cycles(g, sim_now(s->k)));
	if (g->host_rc)
		return cs_err_set(err, g->host_rc, "%s",
				  g->fail_msg[0] ? g->fail_msg : cs_strerror(g->host_rc));
	if (gpu_cluster_busy_sm(g->gc) >= 0)
		return cs_err_set(err, -CS_ESTATE, "SM %d is not idle at the end",
				  gpu_cluster_busy_sm(g->gc));
	for (unsigned b = 0; b < g->l2.banks; b++)
		if (!g->proto->l2->idle(g->bank[b]))
			return cs_err_set(err, -CS_ESTATE, "L2 bank %u is not idle at the end", b);
	if (tlm_pool_live(s->pool))
		return cs_err_set(err, -CS_ESTATE, "%zu messages leaked", tlm_pool_live(s->pool));
	return 0;
}

static double stat_sum(const struct gpu_sys *g, const char *fmt, unsigned n)
{
	double sum = 0, v;
	char name[128];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), fmt, i);
		if (!cs_stats_value(g->s->stats, name, &v))
			sum += v;
	}
	return sum;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* Aggregates shown in the report and the JSON result. */
struct gpu_summary {
	uint64_t cycles;
	double mem_insts, l1_loads, l1_hits, l2_acc, l2_hits, l2_misses;
	double dram_reads, dram_writes, dram_acts, dram_row_hits, dram_bytes;
	struct noc_traffic noc[NOC_VK_KINDS]; /* by vnet kind, over every network */
	bool noc_has[NOC_VK_KINDS];	      /* some network has a vnet of that kind */
	double noc_bytes;
	double mem_stall, l1_coh_misses, l1_expired, l1_dropped;
};

static void summarize(const struct gpu_sys *g, struct gpu_summary *m)
{
	unsigned nb = (unsigned)g->l2.banks, ns = g->ctx.sms, nc = g->channels;

	memset(m, 0, sizeof(*m));
	m->cycles = core_cycles(g, sim_now(g->s->k));
	m->mem_insts = stat_sum(g, "gpu.sm%u.mem_insts", ns);
	m->l1_loads = stat_sum(g, "gpu.sm%u.l1.loads", ns);
	m->l1_hits = stat_sum(g, "gpu.sm%u.l1.load_hits", ns);
	m->l2_acc = stat_sum(g, "gpu.l2.bank%u.accesses", nb);
	m->l2_hits = stat_sum(g, "gpu.l2.bank%u.read_hits", nb) +
		     stat_sum(g, "gpu.l2.bank%u.write_hits", nb) +
		     stat_sum(g, "gpu.l2.bank%u.atomic_hits", nb);
	m->l2_misses = stat_sum(g, "gpu.l2.bank%u.read_misses", nb) +
		       stat_sum(g, "gpu.l2.bank%u.write_misses", nb) +
		       stat_sum(g, "gpu.l2.bank%u.atomic_misses", nb);
	m->dram_reads = stat_sum(g, "gpu.dram%u.reads", nc);
	m->dram_writes = stat_sum(g, "gpu.dram%u.writes", nc);
	m->dram_acts = stat_sum(g, "gpu.dram%u.activations", nc);
	m->dram_row_hits = stat_sum(g, "gpu.dram%u.row_hits", nc);
	{
		double rd, wr;

		fabric_dram_bytes(g->fab, &rd, &wr);
		m->dram_bytes = rd + wr;
	}
	for (unsigned i = 0; i < fabric_nets(g->fab); i++) {
		const struct noc *n = fabric_net(g->fab, i);

		for (unsigned k = 0; k < NOC_VK_KINDS; k++) {
			struct noc_traffic t;

			noc_kind_traffic(n, k, &t);
			noc_traffic_add(&m->noc[k], &t);
			m->noc_has[k] |= noc_has_kind(n, k);
			m->noc_bytes += (double)t.bytes;
		}
	}
	m->mem_stall = stat_sum(g, "gpu.sm%u.stall.memory_cycles", ns);
	m->l1_coh_misses = stat_sum(g, "gpu.sm%u.l1.miss.coherence", ns);
	m->l1_expired = stat_sum(g, "gpu.sm%u.l1.miss.lease_expired", ns);
	m->l1_dropped = stat_sum(g, "gpu.sm%u.l1.miss.write_evict", ns);
}

/* The run's estimate: hybrid and analytic sum their kernels' estimates and intervals (the
 * half-widths add: kernels of a group share their ratio, so they are not independent). */
struct gpu_estimate {
	double cycles, half, traffic, traffic_half;
	double coverage; /* share of the simulated time spent in the detailed face */
	unsigned units, sampled, skipped;
};

static void estimate(const struct gpu_sys *g, const struct gpu_summary *m, struct gpu_estimate *e)
{
	memset(e, 0, sizeof(*e));
	e->cycles = (double)m->cycles;
	e->traffic = m->noc_bytes;
	if (g->mode == CS_MODE_DETAILED) {
		e->coverage = 1;
		return;
	}
	e->cycles = 0;
	e->traffic = 0;
	for (unsigned i = 0; i < g->nkernels; i++) {
		e->cycles += g->kernels[i].est.cycles;
		e->half += g->kernels[i].est.half;
		e->traffic += g->kernels[i].est.traffic;
		e->traffic_half += g->kernels[i].est.traffic_half;
	}
	e->coverage = sampler_timed_ps(g->sampler) > 0
			  ? sampler_at_ps(g->sampler) / sampler_timed_ps(g->sampler)
			  : 0;
	sampler_counts(g->sampler, &e->units, &e->sampled, &e->skipped);
}

/* Instructions the FF face ran (values only: their events are not counted). */
static double ff_insts(const struct gpu_sys *g)
{
	return stat_sum(g, "gpu.sm%u.ff_insts", g->ctx.sms);
}

/* The run's energy: exact event counts, static power over the estimated time (the half-width
 * of the time estimate gives the energy's). */
static void gpu_energy(const struct gpu_sys *g, const struct gpu_estimate *e,
		       struct energy_report *r)
{
	double hz = (double)g->core.clock_mhz * 1e6;
	struct energy_counts c = {{0}, {0}};
	struct energy_model m;

	/* every component declares its own events and itself: the SMs, and every node and
	 * network of the layout (their roles' energy, required at build) */
	for (unsigned i = 0; i < g->ctx.sms; i++)
		gpu_sm_energy(gpu_cluster_sm(g->gc, i), &c);
	fabric_energy(g->fab, &c);
	dram_energy_model(&g->energy, &g->dram_cfg, g->dram, g->channels, &m);
	/* FF runs values only and counts no event: the events the other faces counted stand for
	 * their work and are scaled to the whole run's (km with FF members: four fifths of its
	 * kernels), the scaled part as uncertain as the run's time */
	{
		double done = 0, ff = 0, scale, rel;

		for (unsigned i = 0; i < g->ctx.sms; i++) {
			const struct gpu_sm *sm = gpu_cluster_sm(g->gc, i);

			done += (double)(gpu_sm_issued(sm) - gpu_sm_ff_work(sm));
			ff += (double)gpu_sm_ff_work(sm);
		}
		scale = done > 0 && ff > 0 ? (done + ff) / done : 1;
		rel = e->cycles > 0 ? e->half / e->cycles : g->scfg.prior;

		for (unsigned k = 0; k < EN_EVENTS; k++)
			c.n[k] *= scale;
		energy_compute(&m, &c, e->cycles / hz, e->half / hz, r);
		r->half_j += r->dynamic_total_j * (1 - 1 / scale) * rel;
	}
}

/* The report's names of enum gpu_sched_policy. */
static const char *const sched_labels[] = {"LRR", "GTO", "oldest first"};

static int gpu_report(struct cs_system *s, FILE *f)
{
	struct gpu_sys *g = s->priv;
	struct gpu_summary m;
	struct gpu_estimate e;
	struct energy_report en;
	double secs = (double)sim_now(s->k) / SIM_SEC;

	summarize(g, &m);
	fprintf(f, "gpu: %u SMs, protocol %s (%s), %s, %s, workload %s (%s)\n", g->ctx.sms,
		g->proto->name, g->proto->label, g->core.consistency == GPU_SC ? "SC" : "RC",
		sched_labels[g->core.scheduler], s->workload->name, size_names[g->wl.size]);
	estimate(g, &m, &e);
	if (g->mode == CS_MODE_DETAILED) {
		fprintf(f, "  cycles            %" PRIu64 " (core clock, %.3f us; detailed)\n",
			m.cycles, secs * 1e6);
	} else {
		fprintf(f, "  cycles            %.0f +- %.0f (%.1f%%, %.0f%% confidence; %s)\n",
			e.cycles, e.half, e.cycles > 0 ? 100 * e.half / e.cycles : 0,
			100 * g->scfg.conf, cs_mode_names[g->mode]);
		fprintf(f,
			"  sampling          %u units, %u kernels sampled, %u predicted, %.1f%% of "
			"the time detailed\n",
			e.units, e.sampled, e.skipped, 100 * e.coverage);
		fprintf(f, "  NoC traffic       %.0f +- %.0f B\n", e.traffic, e.traffic_half);
	}
	for (unsigned i = 0; i < g->nkernels; i++) {
		const struct kernel_rec *r = &g->kernels[i];

		if (g->mode == CS_MODE_DETAILED)
			fprintf(f, "    kernel %-16s %6u CTAs  %" PRIu64 " cycles\n", r->name,
				r->ctas, core_cycles(g, r->end) - core_cycles(g, r->start));
		else if (i < 50 || i + 1 == g->nkernels)
			fprintf(f,
				"    kernel %-16s %6u CTAs  %.0f +- %.0f cycles (%s, %u units)\n",
				r->name, r->ctas, r->est.cycles, r->est.half,
				samp_plan_names[r->est.plan], r->est.units);
		else if (i == 50)
			fprintf(f, "    ... %u more kernels\n", g->nkernels - 51);
	}
	fprintf(f, "  warp memory insts %.0f\n", m.mem_insts);
	if (g->proto->has_l1)
		fprintf(f, "  L1 load hit rate  %.1f%% of %.0f loads\n",
			100 * ratio(m.l1_hits, m.l1_loads), m.l1_loads);
	else
		fprintf(f, "  L1                off (every access goes to the L2)\n");
	fprintf(f, "  L2 hit rate       %.1f%% of %.0f accesses\n",
		100 * ratio(m.l2_hits, m.l2_acc), m.l2_acc);
	fprintf(f, "  NoC              ");
	for (unsigned k = 0, first = 1; k < NOC_VK_KINDS; k++)
		if (m.noc_has[k]) {
			fprintf(f, "%s %s %" PRIu64 " packets %" PRIu64 " B", first ? "" : ",",
				noc_vnet_kind_names[k], m.noc[k].packets, m.noc[k].bytes);
			first = 0;
		}
	fprintf(f, "\n");
	for (unsigned t = 0; t < g->proto->n_msgs; t++) {
		struct noc_traffic c = {0}, one;

		for (unsigned i = 0; i < fabric_nets(g->fab); i++) {
			noc_class_traffic(fabric_net(g->fab, i), t, &one);
			noc_traffic_add(&c, &one);
		}
		if (c.packets > 0)
			fprintf(f, "    %-12s %10" PRIu64 " packets %12" PRIu64 " B\n",
				g->proto->msg_names[t], c.packets, c.bytes);
	}
	fprintf(f,
		"  DRAM              %.0f reads, %.0f writes, %.0f activations, row hit rate "
		"%.1f%%, %.2f GB/s\n",
		m.dram_reads, m.dram_writes, m.dram_acts,
		100 * ratio(m.dram_row_hits, m.dram_reads + m.dram_writes),
		secs > 0 ? m.dram_bytes / secs / 1e9 : 0.0);
	fabric_traffic_print(g->fab, f);
	gpu_energy(g, &e, &en);
	energy_report_print(f, &en, g->mode != CS_MODE_DETAILED);
	if (ff_insts(g) > 0)
		fprintf(
		    f,
		    "    (the %.0f fast-forwarded instructions' events are extrapolated from the "
		    "counted ones by work)\n",
		    ff_insts(g));
	if (g->chk)
		fprintf(f, "  coherence check   %" PRIu64 " loads, %" PRIu64 " violations%s%s\n",
			cohcheck_reads(g->chk), cohcheck_violations(g->chk),
			cohcheck_violations(g->chk) ? ", first: " : "", cohcheck_first(g->chk));
	for (unsigned i = 0; i < g->nnotes; i++)
		fprintf(f, "  %s\n", g->notes[i]);
	return 0;
}

/* Per face: wall seconds, simulated core cycles, work (warp instructions and compute cycles)
 * and work per host second; and the workload's host side (outside kernels). */
static json_t *gpu_host_result(struct cs_system *s)
{
	static const char *const face_names[] = {"detailed", "lt", "ff"};
	struct gpu_sys *g = s->priv;
	struct samp_host_faces h;
	json_t *o = json_object();
	double cyc = (double)sim_clock_period_ps(&g->ctx.core_clk);

	if (!o || !g->sampler)
		return o;
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

static json_t *gpu_result(struct cs_system *s)
{
	struct gpu_sys *g = s->priv;
	struct gpu_summary m;
	json_t *r = json_object(), *ks = json_array(), *notes = json_array();
	struct gpu_estimate e;
	struct energy_report en;

	summarize(g, &m);
	json_object_set_new(r, "protocol", json_string(g->proto->name));
	json_object_set_new(r, "fabric", fabric_json(g->fab));
	json_object_set_new(r, "consistency",
			    json_string(g->core.consistency == GPU_SC ? "sc" : "rc"));
	json_object_set_new(r, "workload", json_string(s->workload->name));
	json_object_set_new(r, "size", json_string(size_names[g->wl.size]));
	estimate(g, &m, &e);
	json_object_set_new(r, "mode", json_string(cs_mode_names[g->mode]));
	json_object_set_new(r, "cycles", json_integer((json_int_t)(e.cycles + 0.5)));
	json_object_set_new(r, "cycles_half", json_real(e.half));
	json_object_set_new(r, "confidence", json_real(g->scfg.conf));
	json_object_set_new(r, "simulated_cycles", json_integer((json_int_t)m.cycles));
	json_object_set_new(r, "units", json_integer(e.units));
	json_object_set_new(r, "kernels_sampled", json_integer(e.sampled));
	json_object_set_new(r, "kernels_predicted", json_integer(e.skipped));
	json_object_set_new(r, "coverage", json_real(e.coverage));
	json_object_set_new(r, "traffic_bytes", json_real(e.traffic));
	json_object_set_new(r, "traffic_half", json_real(e.traffic_half));
	for (unsigned i = 0; i < g->nkernels; i++) {
		json_t *k = json_object();

		json_object_set_new(k, "name", json_string(g->kernels[i].name));
		json_object_set_new(k, "ctas", json_integer(g->kernels[i].ctas));
		json_object_set_new(k, "plan",
				    json_string(samp_plan_names[g->kernels[i].est.plan]));
		json_object_set_new(k, "estimate", json_real(g->kernels[i].est.cycles));
		json_object_set_new(k, "half", json_real(g->kernels[i].est.half));
		if (g->kernels[i].est.plan == SAMP_SAMPLE || g->kernels[i].est.plan == SAMP_LT)
			/* what R scaled: the LT intervals' bound, or their work (mismatch) */
			json_object_set_new(
			    k, "scaled", json_string(g->kernels[i].est.by_work ? "work" : "bound"));
		json_object_set_new(k, "lt_cycles", json_real(g->kernels[i].lt_cycles));
		json_object_set_new(k, "at_cycles", json_real(g->kernels[i].at_cycles));
		json_object_set_new(k, "insts", json_real(g->kernels[i].insts));
		json_object_set_new(k, "rho_noc", json_real(g->kernels[i].feat[0]));
		json_object_set_new(k, "rho_l2", json_real(g->kernels[i].feat[1]));
		json_object_set_new(k, "rho_dram", json_real(g->kernels[i].feat[2]));
		json_object_set_new(
		    k, "cycles",
		    json_integer((json_int_t)(core_cycles(g, g->kernels[i].end) -
					      core_cycles(g, g->kernels[i].start))));
		json_array_append_new(ks, k);
	}
	json_object_set_new(r, "kernels", ks);
	json_object_set_new(r, "mem_insts", json_real(m.mem_insts));
	/* SM cycles stalled on memory, summed over SMs (the G-TSC study's Fig. 13): counted by
	 * the detailed face only, so hybrid scales its units' count to the estimated cycles and
	 * analytic has none */
	if (g->mode == CS_MODE_DETAILED)
		json_object_set_new(r, "memory_stall_cycles", json_real(m.mem_stall));
	else if (g->mode == CS_MODE_HYBRID && sampler_at_ps(g->sampler) > 0)
		json_object_set_new(r, "memory_stall_cycles",
				    json_real(m.mem_stall * e.cycles /
					      (sampler_at_ps(g->sampler) /
					       (double)sim_clock_period_ps(&g->ctx.core_clk))));
	/* loads that found their line but not a lease covering them (lease expiry), or a line the
	 * protocol dropped (write-evict): the same in every face; the two parts apart (0 for the
	 * protocols without leases) */
	if (g->proto->has_l1) {
		json_object_set_new(r, "l1_coherence_misses", json_real(m.l1_coh_misses));
		json_object_set_new(r, "l1_lease_expired_misses", json_real(m.l1_expired));
		json_object_set_new(r, "l1_write_evict_drops", json_real(m.l1_dropped));
		json_object_set_new(r, "l1_load_hit_rate", json_real(ratio(m.l1_hits, m.l1_loads)));
	}
	json_object_set_new(r, "l2_hit_rate", json_real(ratio(m.l2_hits, m.l2_acc)));
	json_object_set_new(r, "noc_bytes", json_real(m.noc_bytes));
	{
		json_t *nk = json_object();

		for (unsigned k = 0; k < NOC_VK_KINDS; k++)
			if (m.noc_has[k])
				json_object_set_new(nk, noc_vnet_kind_names[k],
						    json_pack("{s:I, s:I, s:I, s:I}", "packets",
							      (json_int_t)m.noc[k].packets, "flits",
							      (json_int_t)m.noc[k].flits, "bytes",
							      (json_int_t)m.noc[k].bytes,
							      "payload_bytes",
							      (json_int_t)m.noc[k].payload_bytes));
		json_object_set_new(r, "noc_traffic", nk);
	}
	json_object_set_new(r, "dram_bytes", json_real(m.dram_bytes));
	json_object_set_new(r, "traffic", fabric_traffic_json(g->fab));
	gpu_energy(g, &e, &en);
	energy_report_json(r, &en);
	json_object_set_new(r, "energy_ff_insts", json_real(ff_insts(g)));
	for (unsigned i = 0; i < g->nnotes; i++)
		json_array_append_new(notes, json_string(g->notes[i]));
	json_object_set_new(r, "notes", notes);
	{
		/* every cache's state (tags, replacement order, protocol fields, data) */
		uint64_t d = 0xcbf29ce484222325ull;
		char hex[24];

		for (unsigned i = 0; i < g->ctx.sms; i++)
			d = (d ^ g->proto->l1->digest(gpu_sm_l1(gpu_cluster_sm(g->gc, i)))) *
			    0x100000001b3ull;
		for (unsigned b = 0; b < g->l2.banks; b++)
			d = (d ^ g->proto->l2->digest(g->bank[b])) * 0x100000001b3ull;
		snprintf(hex, sizeof(hex), "%016" PRIx64, d);
		json_object_set_new(r, "state_digest", json_string(hex));
	}
	if (g->chk) {
		json_object_set_new(r, "coherence_violations",
				    json_integer((json_int_t)cohcheck_violations(g->chk)));
		json_object_set_new(r, "coherence_first", json_string(cohcheck_first(g->chk)));
	}
	return r;
}

const struct cs_system_ops cs_gpu_system = {
    .version = 1,
    .name = "gpu",
    .help = "a GPU: SMs, L1s, NoC, banked L2, DRAM channels",
    .modes = (1u << CS_MODE_DETAILED) | (1u << CS_MODE_HYBRID) | (1u << CS_MODE_ANALYTIC),
    .build = gpu_build,
    .run = gpu_run,
    .report = gpu_report,
    .result = gpu_result,
    .host_result = gpu_host_result,
    .destroy = gpu_destroy,
};
