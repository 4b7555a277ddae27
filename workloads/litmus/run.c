/*
 * workloads/litmus/run.c - the litmus runner: one GPU system per test, one kernel launch per
 * iteration, one single-warp CTA per litmus thread; a histogram of the final states. X86 tests
 * run on a system of CPU cores instead (litmus_run_cpu): one program run per iteration, one
 * thread per core, each location in its own line, held to x86-TSO. With --agents they run on
 * the APU (litmus_run_mixed): one program run per iteration whose CPU threads are the test's
 * cpu threads, and whose thread 0 launches a kernel of one single-warp CTA per gpu thread;
 * every thread waits for a common start time (a timebase barrier), then runs its jitter.
 *
 * The host program (a custom workload, system "gpu") allocates one chunk per L2 bank
 * (l2.interleave bytes each); per iteration it places the thread groups on SMs and the
 * locations in chunks (random or fixed), writes the initial values, launches the kernel, reads
 * the registers the warps left in a host array and the final values of the locations, and
 * counts the outcome. Each warp interprets its thread's ops with the mapping of docs/litmus.md;
 * random compute delays (from the run seed, the iteration and the thread, at a scale drawn per
 * iteration) shift the threads against each other, and in warm-up iterations the warps first
 * load some of the locations they access so that L1s hold copies that may go stale.
 */
#include "workloads/litmus/run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/gpu_proto.h"
#include "tlm/core/cpu.h"
#include "tlm/core/sm.h"
#include "tlm/kernel/time.h"
#include "tlm/mem/idealport.h"
#include "tlm/coherence/apu/apu_mem.h"
#include "tlm/system/cpu.h"
#include "tlm/system/gpu.h"
#include "tlm/system/system.h"
#include "util/mix.h"
#include "workloads/cpu_api.h"
#include "workloads/gpu_api.h"
#include "workloads/workload.h"

#define TAG_LITMUS 0x6c69746d75730000ull

static uint64_t next_rand(uint64_t *state)
{
	return cs_splitmix64(state);
}

/* ---- the kernel -------------------------------------------------------------------------------- */

/* What a mixed run's threads share besides the argument block: the start time the launcher
 * sets for the warps, and the late starts. */
struct lit_sync {
	uint64_t start_gpu; /* GPU cycle of the common start */
	uint64_t late;
};

/* The argument block every thread (warp or CPU thread) sees. Threads write their registers
 * into regs (host memory). */
struct lit_args {
	const struct litmus_test *t;
	uint64_t addr[LIT_MAX_LOCS];
	uint32_t touch[LIT_MAX_THREADS]; /* locations each thread accesses (bit per location) */
	uint64_t iter_seed;
	uint64_t jitter;
	bool warm;
	int64_t (*regs)[LIT_MAX_REGS];
	/* the litmus thread of CTA k and of CPU thread j; CPU threads from ncpu on run no litmus
	 * thread (the launcher of a test without cpu threads) */
	uint8_t gpu_ti[LIT_MAX_THREADS], cpu_ti[LIT_MAX_THREADS];
	unsigned ncpu;
	/* mixed runs: the kernel CPU thread 0 launches (NULL: none); the timebase barrier's
	 * delay from a CPU thread's start (0: no barrier, not a mixed run); the clocks that
	 * convert the start into GPU cycles and the jitter (GPU cycles) into CPU cycles */
	const struct gpu_kernel *kernel;
	uint64_t delay_cpu, cpu_mhz, gpu_mhz;
	struct lit_sync *sync;
};

static enum mem_scope map_scope(uint8_t scope)
{
	switch (scope) {
	case LIT_SCOPE_WG:
		return MEM_SCOPE_WG;
	case LIT_SCOPE_SYSTEM:
		return MEM_SCOPE_SYSTEM;
	default:
		return MEM_SCOPE_DEVICE;
	}
}

static int64_t eval(const struct lit_val *v, const int64_t *reg)
{
	return v->is_reg ? reg[v->reg] : v->k;
}

static bool branch_taken(const struct lit_op *op, const int64_t *reg)
{
	int64_t a = eval(&op->a, reg), b = eval(&op->b, reg);

	switch (op->cmp) {
	case LIT_EQ:
		return a == b;
	case LIT_NE:
		return a != b;
	default:
		return a != 0;
	}
}

/* Fences before and after an access of this order: release before (release, acq_rel), acquire
 * after (acquire, acq_rel), acq_rel on both sides (seq_cst). A load takes no release part and a
 * store no acquire part. */
static void fence_before(struct gpu_warp *w, uint8_t order, bool can_release, enum mem_scope sc)
{
	if (order == LIT_SC)
		gw_fence(w, MEM_ORDER_ACQ_REL, sc);
	else if (can_release && (order == LIT_RELEASE || order == LIT_ACQ_REL))
		gw_fence(w, MEM_ORDER_RELEASE, sc);
}

static void fence_after(struct gpu_warp *w, uint8_t order, bool can_acquire, enum mem_scope sc)
{
	if (order == LIT_SC)
		gw_fence(w, MEM_ORDER_ACQ_REL, sc);
	else if (can_acquire && (order == LIT_ACQUIRE || order == LIT_ACQ_REL))
		gw_fence(w, MEM_ORDER_ACQUIRE, sc);
}

static void do_fence(struct gpu_warp *w, const struct lit_op *op)
{
	enum mem_scope sc = map_scope(op->scope);

	if (op->atomic) { /* PTX: fence.sc (a seq_cst fence), fence.acq_rel and membar */
		gw_fence(w, op->fence == LIT_FENCE_SC ? MEM_ORDER_SEQ_CST : MEM_ORDER_ACQ_REL, sc);
		return;
	}
	switch (op->fence) {
	case LIT_FENCE_MB:
		gw_fence(w, MEM_ORDER_ACQ_REL, MEM_SCOPE_DEVICE);
		break;
	case LIT_FENCE_RMB:
		gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
		break;
	case LIT_FENCE_WMB:
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		break;
	case LIT_FENCE_ACQ:
		gw_fence(w, MEM_ORDER_ACQUIRE, sc);
		break;
	case LIT_FENCE_REL:
		gw_fence(w, MEM_ORDER_RELEASE, sc);
		break;
	default: /* acq_rel, seq_cst */
		gw_fence(w, MEM_ORDER_ACQ_REL, sc);
		break;
	}
}

static enum mem_atomic_op map_rmw(uint8_t rmw)
{
	switch (rmw) {
	case LIT_RMW_XCHG:
		return MEM_ATOM_EXCH;
	case LIT_RMW_CAS:
		return MEM_ATOM_CAS;
	default:
		return MEM_ATOM_ADD;
	}
}

/* The op API's order of an access of order `order`. The C mapping puts fences around its
 * accesses and gives a seq_cst RMW acq_rel; an atomic access (op->atomic) is seq_cst itself. */
static enum mem_order map_order(uint8_t order, bool atomic)
{
	switch (order) {
	case LIT_ACQUIRE:
		return MEM_ORDER_ACQUIRE;
	case LIT_RELEASE:
		return MEM_ORDER_RELEASE;
	case LIT_ACQ_REL:
		return MEM_ORDER_ACQ_REL;
	case LIT_SC:
		return atomic ? MEM_ORDER_SEQ_CST : MEM_ORDER_ACQ_REL;
	default:
		return MEM_ORDER_RELAXED;
	}
}

static enum mem_cache_op map_co(uint8_t co)
{
	return co == LIT_CO_CG ? MEM_CO_CG : co == LIT_CO_CV ? MEM_CO_CV : MEM_CO_CA;
}

/* A load or store: an atomic one of its order and scope (op->atomic: PTX .relaxed / .acquire /
 * .release, OpenCL atomics), else a plain one between the C mapping's fences, with its PTX
 * cache operator if it has one. An RMW: an atomic of its order, inside the C mapping's fences
 * unless op->atomic. */
static void do_access(struct gpu_warp *w, const struct lit_args *a, const struct lit_op *op,
		      int64_t *reg)
{
	enum mem_scope sc = map_scope(op->scope);
	enum mem_order mo = map_order(op->order, op->atomic);
	uint64_t addr = a->addr[op->loc];
	uint8_t fo = op->atomic ? LIT_ONCE : op->order; /* the order the fences carry */
	uint64_t v, v2;

	switch (op->kind) {
	case LIT_LOAD:
		fence_before(w, fo, false, sc);
		if (op->atomic)
			v = gw_atom_load(w, addr, 4, sc, mo);
		else if (op->co)
			v = gw_ld_co(w, addr, 4, map_co(op->co));
		else
			v = gw_ld32(w, addr);
		if (op->reg >= 0)
			reg[op->reg] = (int32_t)(uint32_t)v;
		fence_after(w, fo, true, sc);
		break;
	case LIT_STORE:
		fence_before(w, fo, true, sc);
		v = (uint32_t)eval(&op->val, reg);
		if (op->atomic)
			gw_atom_store(w, addr, 4, v, sc, mo);
		else if (op->co)
			gw_st_co(w, addr, 4, v, map_co(op->co));
		else
			gw_st32(w, addr, (uint32_t)v);
		fence_after(w, fo, false, sc);
		break;
	default: /* LIT_RMW */
		v = (uint32_t)eval(&op->val, reg);
		v2 = (uint32_t)eval(&op->val2, reg);
		fence_before(w, fo, true, sc);
		if (op->rmw == LIT_RMW_CAS)
			v = gw_atom(w, MEM_ATOM_CAS, addr, 4, v, v2, sc, mo);
		else
			v = gw_atom(w, map_rmw(op->rmw), addr, 4, v, 0, sc, mo);
		if (op->reg >= 0)
			reg[op->reg] = (int32_t)(uint32_t)v;
		fence_after(w, fo, true, sc);
		break;
	}
}

/* How a thread's memory ops and delays are carried out: by a warp or by a CPU core. Delays
 * are drawn in the run's jitter unit and spent as cycles * mul / div of the agent's clock. */
struct lit_exec {
	void *who;
	void (*compute)(void *who, uint64_t cycles);
	void (*op)(void *who, const struct lit_op *op, int64_t *reg); /* access or fence */
	uint64_t mul, div;
};

static void lit_delay(const struct lit_exec *x, uint64_t cycles)
{
	x->compute(x->who, cycles * x->mul / x->div);
}

/* Warm-up: loads of a random subset of the locations the thread accesses (values discarded),
 * so that caches hold copies that may go stale. A subset, not all: a stale copy of one
 * location next to a miss on another is what exposes stale reads (all locations cached would
 * read all stale). */
static void lit_warm(const struct lit_args *a, unsigned ti, uint64_t *rng, const struct lit_exec *x)
{
	uint64_t pick = next_rand(rng);
	int64_t none[1];

	for (unsigned l = 0; l < a->t->nlocs; l++)
		if ((a->touch[ti] >> l & 1) && (pick >> l & 1)) {
			const struct lit_op ld = {.kind = LIT_LOAD, .loc = (uint8_t)l, .reg = -1};

			x->op(x->who, &ld, none);
		}
}

/* Runs thread th's ops: register moves and branches locally, memory ops and fences through x,
 * after a jitter before the first (below `jitter` cycles) and before each further one (below
 * jitter / 8 + 1 cycles). */
static void lit_interpret(const struct lit_thread *th, int64_t *reg, uint64_t *rng, uint64_t jitter,
			  const struct lit_exec *x)
{
	uint64_t gap = jitter / 8 + 1;
	bool first = true;

	if (jitter)
		lit_delay(x, next_rand(rng) % jitter);
	for (unsigned pc = 0; pc < th->nops; pc++) {
		const struct lit_op *op = &th->ops[pc];

		switch (op->kind) {
		case LIT_MOVE:
			if (op->reg >= 0)
				reg[op->reg] = eval(&op->val, reg);
			continue;
		case LIT_BRANCH:
			if (!branch_taken(op, reg))
				pc += op->skip;
			continue;
		default:
			break;
		}
		if (!first)
			lit_delay(x, next_rand(rng) % gap);
		first = false;
		x->op(x->who, op, reg);
	}
}

static void warp_compute(void *who, uint64_t cycles)
{
	gw_compute(who, cycles);
}

static void warp_op(void *who, const struct lit_op *op, int64_t *reg)
{
	struct gpu_warp *w = who;

	if (op->kind == LIT_FENCE)
		do_fence(w, op);
	else
		do_access(w, gw_args(w), op, reg);
}

/* The timebase barrier: wait until the common start time (now and start in the agent's
 * cycles); a thread that comes later starts at once and is counted. */
static void lit_wait_start(const struct lit_exec *x, struct lit_sync *sync, uint64_t now,
			   uint64_t start)
{
	if (now < start)
		x->compute(x->who, start - now);
	else
		sync->late++;
}

static void litmus_warp(struct gpu_warp *w)
{
	const struct lit_args *a = gw_args(w);
	unsigned ti = a->gpu_ti[gw_cta(w)];
	uint64_t rng = gw_rand(w) ^ cs_mix64(a->iter_seed + 0x9e3779b97f4a7c15ull * (ti + 1));
	const struct lit_exec x = {
	    .who = w, .compute = warp_compute, .op = warp_op, .mul = 1, .div = 1};

	if (a->warm)
		lit_warm(a, ti, &rng, &x);
	if (a->delay_cpu)
		lit_wait_start(&x, a->sync, gw_cycle(w), a->sync->start_gpu);
	lit_interpret(&a->t->threads[ti], a->regs[ti], &rng, a->jitter, &x);
}

/* ---- the host program -------------------------------------------------------------------------- */

struct lit_state {
	const struct litmus_test *t;
	const struct litmus_opts *o;
	struct litmus_result *r;
	uint64_t stride; /* bytes between locations: one L2 bank each (the APU: one line) */
	unsigned banks;	 /* L2 banks (the APU: the CUs) */
	unsigned cap;	 /* of r->outcomes */
	/* mixed runs: the timebase barrier's delay (CPU cycles), the two clocks */
	uint64_t delay_cpu, cpu_mhz, gpu_mhz;
};

static int64_t key_value(const struct litmus_key *k, int64_t (*regs)[LIT_MAX_REGS],
			 const int64_t *locs)
{
	return k->is_loc ? locs[k->loc] : regs[k->thread][k->reg];
}

static bool atom_holds(const struct lit_atom *at, int64_t (*regs)[LIT_MAX_REGS],
		       const int64_t *locs)
{
	int64_t v = at->is_loc ? locs[at->loc] : regs[at->thread][at->reg];

	return (v == at->value) != at->ne;
}

static int count_outcome(struct lit_state *st, int64_t (*regs)[LIT_MAX_REGS], const int64_t *locs)
{
	struct litmus_result *r = st->r;
	const struct lit_cond *c = &st->t->cond;
	int64_t vals[LITMUS_MAX_KEYS];
	bool holds = true;
	struct litmus_outcome *o;

	for (unsigned i = 0; i < r->nkeys; i++)
		vals[i] = key_value(&r->keys[i], regs, locs);
	for (unsigned i = 0; i < c->natoms; i++)
		holds = holds && atom_holds(&c->atoms[i], regs, locs);
	r->iterations++;
	if (holds)
		r->condition_count++;
	for (unsigned i = 0; i < r->noutcomes; i++) {
		o = &r->outcomes[i];
		if (!memcmp(o->vals, vals, r->nkeys * sizeof(vals[0]))) {
			o->count++;
			return 0;
		}
	}
	if (r->noutcomes == st->cap) {
		unsigned n = st->cap ? st->cap * 2 : 8;
		struct litmus_outcome *no = realloc(r->outcomes, n * sizeof(*no));

		if (!no)
			return -CS_ENOMEM;
		r->outcomes = no;
		st->cap = n;
	}
	o = &r->outcomes[r->noutcomes++];
	memset(o, 0, sizeof(*o));
	memcpy(o->vals, vals, r->nkeys * sizeof(vals[0]));
	o->count = 1;
	o->condition = holds;
	return 0;
}

/* Thread groups: threads with an OpenCL work-group tag share a group (and an SM) with the
 * threads of the same (device, work-group); any other thread is a group of its own. Groups are
 * numbered in order of their first thread. Returns the number of groups. */
static unsigned thread_groups(const struct litmus_test *t, unsigned *group)
{
	int gdev[LIT_MAX_THREADS], gwg[LIT_MAX_THREADS];
	unsigned ngroups = 0;

	for (unsigned i = 0; i < t->nthreads; i++) {
		const struct lit_thread *th = &t->threads[i];
		int dev = th->dev < 0 ? 0 : th->dev;
		unsigned g = ngroups;

		if (th->wg >= 0)
			for (g = 0; g < ngroups; g++)
				if (gwg[g] == th->wg && gdev[g] == dev)
					break;
		if (g == ngroups) {
			gwg[g] = th->wg;
			gdev[g] = th->wg >= 0 ? dev : -1;
			ngroups++;
		}
		group[i] = g;
	}
	return ngroups;
}

/* n distinct values below range (values repeat, in the same order, once range is used up):
 * 0, 1, 2... when fixed, a random choice otherwise. */
static void choose(unsigned *out, unsigned n, unsigned range, bool fixed, uint64_t *rng)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned v;
		bool dup;

		if (fixed || i >= range) {
			out[i] = fixed ? i % range : out[i % range];
			continue;
		}
		do {
			v = (unsigned)(next_rand(rng) % range);
			dup = false;
			for (unsigned j = 0; j < i; j++)
				dup = dup || out[j] == v;
		} while (dup);
		out[i] = v;
	}
}

/* The fields every runner fills alike: thread i is CTA i and CPU thread i, and the locations
 * each thread touches (for the warm-up). */
static void lit_args_init(struct lit_args *a)
{
	const struct litmus_test *t = a->t;

	for (unsigned i = 0; i < t->nthreads; i++) {
		a->gpu_ti[i] = a->cpu_ti[i] = (uint8_t)i;
		for (unsigned p = 0; p < t->threads[i].nops; p++) {
			const struct lit_op *op = &t->threads[i].ops[p];

			if (op->kind == LIT_LOAD || op->kind == LIT_STORE || op->kind == LIT_RMW)
				a->touch[i] |= 1u << op->loc;
		}
	}
	a->ncpu = t->nthreads;
}

static int litmus_host(struct gpu_host *h)
{
	struct lit_state *st = gh_arg(h);
	const struct litmus_test *t = st->t;
	const struct litmus_opts *o = st->o;
	bool fixed = o->placement == LIT_PLACE_FIXED;
	int64_t regs[LIT_MAX_THREADS][LIT_MAX_REGS];
	int64_t locs[LIT_MAX_LOCS];
	uint16_t cta_sm[LIT_MAX_THREADS];
	unsigned group[LIT_MAX_THREADS], group_sm[LIT_MAX_THREADS], chunk[LIT_MAX_LOCS];
	unsigned ngroups = thread_groups(t, group);
	unsigned nchunks = st->banks > t->nlocs ? st->banks : t->nlocs;
	struct lit_args a = {.t = t, .regs = regs};
	struct gpu_kernel k = {
	    .name = "litmus",
	    .ctas = t->nthreads,
	    .warps_per_cta = 1,
	    .fn = litmus_warp,
	    .args = &a,
	    .cta_sm = cta_sm,
	};
	uint64_t base = gh_alloc(h, st->stride * nchunks, st->stride);
	uint64_t seed = cs_mix64(gh_seed(h) ^ TAG_LITMUS);
	int rc;

	lit_args_init(&a);
	for (uint64_t it = 0; it < o->iterations; it++) {
		uint64_t rng = cs_mix64(seed + it);

		a.iter_seed = next_rand(&rng);
		/* the iteration's scale: wide windows find some interleavings, races whose window
		 * is a few cycles (store buffering) need the threads nearly in step */
		a.jitter = o->jitter >> (2 * (next_rand(&rng) % 4));
		choose(group_sm, ngroups, gh_sms(h), fixed, &rng);
		choose(chunk, t->nlocs, nchunks, fixed, &rng);
		for (unsigned i = 0; i < t->nthreads; i++)
			cta_sm[i] = (uint16_t)group_sm[group[i]];
		for (unsigned l = 0; l < t->nlocs; l++) {
			a.addr[l] = base + chunk[l] * st->stride;
			gh_write32(h, a.addr[l], (uint32_t)t->locs[l].init);
		}
		memset(regs, 0, sizeof(regs));
		a.warm = o->warmup && it % o->warmup == o->warmup - 1;
		rc = gh_launch(h, &k);
		if (rc)
			return rc;
		for (unsigned l = 0; l < t->nlocs; l++)
			locs[l] = (int32_t)gh_read32(h, a.addr[l]);
		rc = count_outcome(st, regs, locs);
		if (rc)
			return gh_fail(h, "litmus: out of memory for the histogram");
	}
	return 0;
}

static const struct cs_workload litmus_workload = {
    .name = "litmus",
    .system = "gpu",
    .help = "a litmus test run many times (cohscope litmus)",
    .gpu = litmus_host,
};

/* ---- X86 tests on CPU cores -------------------------------------------------------------------- */

static void core_compute(void *who, uint64_t cycles)
{
	ct_compute(who, cycles);
}

/* A litmus thread on a CPU core under TSO: loads and stores are MOVs, read-modify-writes are
 * locked (LOCK XADD, XCHG, LOCK CMPXCHG), MFENCE drains the store buffer; LFENCE and SFENCE
 * order nothing TSO does not already order (ordinary write-back memory), so they cost one
 * cycle. */
static void core_op(void *who, const struct lit_op *op, int64_t *reg)
{
	struct cpu_thread *ct = who;
	const struct lit_args *a = ct_args(ct);
	uint64_t addr = a->addr[op->loc], v;

	switch (op->kind) {
	case LIT_FENCE:
		if (op->fence == LIT_FENCE_MB || op->fence == LIT_FENCE_SC ||
		    op->fence == LIT_FENCE_ACQ_REL)
			ct_mfence(ct);
		else
			ct_compute(ct, 1);
		break;
	case LIT_LOAD:
		v = ct_ld(ct, addr, 4);
		if (op->reg >= 0)
			reg[op->reg] = (int32_t)(uint32_t)v;
		break;
	case LIT_STORE:
		ct_st(ct, addr, 4, (uint32_t)eval(&op->val, reg));
		break;
	default: /* LIT_RMW */
		v = ct_atomic(ct, map_rmw(op->rmw), addr, 4, (uint32_t)eval(&op->val, reg),
			      (uint32_t)eval(&op->val2, reg));
		if (op->reg >= 0)
			reg[op->reg] = (int32_t)(uint32_t)v;
		break;
	}
}

/* A CPU thread: its litmus thread, after the warm-up and the timebase barrier of a mixed run.
 * Thread 0 of a mixed run first launches the GPU threads' kernel (setting their start time)
 * and at the end waits for it. */
static void litmus_cpu_thread(struct cpu_thread *ct)
{
	const struct lit_args *a = ct_args(ct);
	unsigned j = ct_id(ct), ti = j < a->ncpu ? a->cpu_ti[j] : 0;
	uint64_t rng = ct_rand(ct) ^ cs_mix64(a->iter_seed + 0x9e3779b97f4a7c15ull * (ti + 1));
	/* a mixed run's jitter is in GPU cycles: the same time on the CPU */
	const struct lit_exec x = {.who = ct,
				   .compute = core_compute,
				   .op = core_op,
				   .mul = a->delay_cpu ? a->cpu_mhz : 1,
				   .div = a->delay_cpu ? a->gpu_mhz : 1};
	/* every thread of a program starts at the same cycle (ch_run), so each reckons the same
	 * start from its own counter */
	uint64_t start = ct_cycle(ct) + a->delay_cpu;

	if (j == 0 && a->kernel) {
		/* the first GPU cycle not before the CPU's start cycle */
		a->sync->start_gpu = (start * a->gpu_mhz + a->cpu_mhz - 1) / a->cpu_mhz;
		ct_launch(ct, a->kernel);
	}
	if (j < a->ncpu) {
		if (a->warm)
			lit_warm(a, ti, &rng, &x);
		if (a->delay_cpu)
			lit_wait_start(&x, a->sync, ct_cycle(ct), start);
		lit_interpret(&a->t->threads[ti], a->regs[ti], &rng, a->jitter, &x);
	}
	if (j == 0 && a->kernel)
		ct_gpu_wait(ct);
}

/* The host program of a run on CPU cores: per iteration, distinct cores for the CPU threads (and
 * in a mixed run distinct CUs for the CTAs and distinct lines, of a pool of 4 per location, for
 * the locations), the initial values, one program run, the final values. Without --agents each
 * location keeps its own line: no false sharing, nothing but the store buffers in between. */
static int litmus_cpu_host(struct cpu_host *h)
{
	struct lit_state *st = ch_arg(h);
	const struct litmus_test *t = st->t;
	const struct litmus_opts *o = st->o;
	bool fixed = o->placement == LIT_PLACE_FIXED, mixed = o->nagents != 0;
	int64_t regs[LIT_MAX_THREADS][LIT_MAX_REGS];
	int64_t locs[LIT_MAX_LOCS];
	uint16_t core[LIT_MAX_THREADS], cta_cu[LIT_MAX_THREADS];
	unsigned pick[LIT_MAX_THREADS], line[LIT_MAX_LOCS], ngpu = 0;
	unsigned nlines = mixed ? 4 * t->nlocs : t->nlocs;
	struct lit_sync sync = {0};
	struct lit_args a = {.t = t,
			     .regs = regs,
			     .delay_cpu = st->delay_cpu,
			     .cpu_mhz = st->cpu_mhz,
			     .gpu_mhz = st->gpu_mhz,
			     .sync = &sync};
	struct gpu_kernel k = {
	    .name = "litmus", .warps_per_cta = 1, .fn = litmus_warp, .args = &a, .cta_sm = cta_cu};
	struct cpu_program p = {
	    .name = "litmus", .fn = litmus_cpu_thread, .args = &a, .thread_core = core};
	uint64_t base = ch_alloc(h, nlines * st->stride, st->stride);
	uint64_t seed = cs_mix64(ch_seed(h) ^ TAG_LITMUS);
	int rc;

	lit_args_init(&a);
	if (mixed) {
		a.ncpu = 0;
		for (unsigned i = 0; i < t->nthreads; i++) {
			if (o->agents[i] == LIT_AGENT_GPU)
				a.gpu_ti[ngpu++] = (uint8_t)i;
			else
				a.cpu_ti[a.ncpu++] = (uint8_t)i;
		}
	}
	k.ctas = ngpu;
	a.kernel = ngpu ? &k : NULL;
	/* without cpu threads, one CPU thread only launches the kernel and waits for it */
	p.threads = a.ncpu ? a.ncpu : 1;
	for (unsigned l = 0; l < t->nlocs; l++)
		line[l] = l;
	for (uint64_t it = 0; it < o->iterations; it++) {
		uint64_t rng = cs_mix64(seed + it);

		a.iter_seed = next_rand(&rng);
		a.jitter = o->jitter >> (2 * (next_rand(&rng) % 4));
		choose(pick, p.threads, ch_cores(h), fixed, &rng);
		for (unsigned j = 0; j < p.threads; j++)
			core[j] = (uint16_t)pick[j];
		if (mixed) {
			choose(pick, ngpu, st->banks, fixed, &rng);
			for (unsigned c = 0; c < ngpu; c++)
				cta_cu[c] = (uint16_t)pick[c];
			choose(line, t->nlocs, nlines, fixed, &rng);
			a.warm = o->warmup && it % o->warmup == o->warmup - 1;
		}
		for (unsigned l = 0; l < t->nlocs; l++) {
			a.addr[l] = base + line[l] * st->stride;
			ch_write32(h, a.addr[l], (uint32_t)t->locs[l].init);
		}
		memset(regs, 0, sizeof(regs));
		rc = ch_run(h, &p);
		if (rc)
			return rc;
		for (unsigned l = 0; l < t->nlocs; l++)
			locs[l] = (int32_t)ch_read32(h, a.addr[l]);
		rc = count_outcome(st, regs, locs);
		if (rc)
			return ch_fail(h, "litmus: out of memory for the histogram");
	}
	st->r->late_starts = sync.late;
	return 0;
}

static const struct cs_workload litmus_cpu_workload = {
    .name = "litmus",
    .system = "cpu",
    .help = "an X86 litmus test run many times on CPU cores (cohscope litmus)",
    .cpu = litmus_cpu_host,
};

/* ---- CPU and GPU threads together (--agents, system apu) ---------------------------------------- */

/* An X86 thread on a GPU CU (docs/litmus.md "CPU and GPU threads together"): MOV loads and
 * stores stay plain (relaxed, device scope: gw_ld32 / gw_st32); MFENCE becomes a system-scope
 * acq_rel fence, LFENCE a system-scope acquire fence, SFENCE a system-scope release fence; a
 * locked instruction (LOCK XADD / ADD / INC / DEC / CMPXCHG, XCHG) a system-scope atomic with
 * system-scope acq_rel fences on both sides (the C mapping's seq_cst RMW, at system scope). */
static void x86_to_gpu(struct lit_thread *th)
{
	for (unsigned p = 0; p < th->nops; p++) {
		struct lit_op *op = &th->ops[p];

		if (op->kind == LIT_FENCE) {
			op->fence = op->fence == LIT_FENCE_RMB	 ? LIT_FENCE_ACQ
				    : op->fence == LIT_FENCE_WMB ? LIT_FENCE_REL
								 : LIT_FENCE_ACQ_REL;
			op->scope = LIT_SCOPE_SYSTEM;
		} else if (op->kind == LIT_RMW) {
			op->order = LIT_SC;
			op->scope = LIT_SCOPE_SYSTEM;
		}
	}
}

static bool is_opencl(const struct litmus_test *t)
{
	return !strcmp(t->arch, "OpenCL") || !strcmp(t->arch, "OPENCL");
}

static const struct cs_workload litmus_mixed_workload = {
    .name = "litmus",
    .system = "apu",
    .help = "an X86 litmus test run many times on CPU cores and GPU CUs (cohscope litmus --agents)",
    .cpu = litmus_cpu_host,
};

/* The timebase barrier's margin beyond the launch delay: the CTAs' start and the warm-up loads
 * (a miss to DRAM through the directory is a few hundred ns). */
#define LIT_MIXED_MARGIN_NS  1000
#define LIT_MIXED_PER_LOC_NS 500

/* What the mixed host program needs of the configuration: the line, the CUs, the two clocks
 * and the timebase barrier's delay (the launch delay plus the margin, in CPU cycles). */
static int mixed_config(struct cs_config *cfg, const struct cpu_core_cfg *cpu, struct lit_state *st,
			struct cs_err *err)
{
	struct gpu_core_cfg core;
	struct gpu_cfg gpu;
	struct apu_mem_cfg apu;
	int rc = cs_config_section(cfg, &gpu_core_params, &core, err);

	if (!rc)
		rc = cs_config_section(cfg, &gpu_params, &gpu, err);
	if (!rc)
		rc = cs_config_section(cfg, &apu_mem_params, &apu, err);
	if (rc)
		return rc;
	st->stride = APU_LINE;
	st->banks = (unsigned)gpu.sms; /* the CUs to draw from */
	st->cpu_mhz = cpu->clock_mhz;
	st->gpu_mhz = core.clock_mhz;
	st->delay_cpu = (apu.launch_cycles * cpu->clock_mhz + core.clock_mhz - 1) / core.clock_mhz +
			(LIT_MIXED_MARGIN_NS + LIT_MIXED_PER_LOC_NS * (uint64_t)st->t->nlocs) *
			    cpu->clock_mhz / 1000;
	return 0;
}

/* A test on CPU cores: an X86 test on system cpu (model tso), or with --agents on system apu
 * (model hsa; st->t is the test with its gpu threads mapped, x86_to_gpu). The test is already
 * checked (litmus_check). */
static int litmus_run_cpu(struct cs_config *cfg, struct lit_state *st, struct cs_err *err)
{
	struct litmus_result *r = st->r;
	bool mixed = st->o->nagents != 0;
	/* detailed always: the outcomes come from the AT face's interleavings (the LT face runs
	 * each core a quantum at a time) */
	struct cs_run_opts ro = {.mode = CS_MODE_DETAILED,
				 .custom = mixed ? &litmus_mixed_workload : &litmus_cpu_workload,
				 .arg = st};
	struct cpu_core_cfg cpu;
	struct idealport_cfg ip;
	struct cs_system *s = NULL;
	struct sim_clock clk;
	int rc;

	rc = cs_system_create(cfg, &ro, &s, err);
	if (!rc)
		rc = cs_config_check_unused(cfg, NULL, 0, err);
	if (!rc)
		rc = cs_config_section(cfg, &cpu_core_params, &cpu, err);
	if (!rc && mixed)
		rc = mixed_config(cfg, &cpu, st, err);
	if (!rc && !mixed)
		rc = cs_config_section(cfg, &idealport_params, &ip, err);
	if (rc)
		goto out;
	if (!mixed)
		st->stride = ip.line_bytes;
	snprintf(r->protocol, sizeof(r->protocol), "%s", cpu_sys_memory_name(s));
	r->model = mixed ? LIT_MODEL_HSA : LIT_MODEL_TSO;
	r->seed = s->sim.seed;
	rc = cs_system_run(s, err);
	if (rc)
		goto out;
	sim_clock_init(&clk, cpu.clock_mhz * 1000000);
	r->cycles = sim_clock_cycle(&clk, sim_now(s->k));
out:
	cs_system_destroy(s);
	return rc;
}

/* ---- keys, outcomes, checks -------------------------------------------------------------------- */

static int key_cmp(const struct litmus_test *t, const struct litmus_key *a,
		   const struct litmus_key *b)
{
	if (a->is_loc != b->is_loc)
		return a->is_loc ? 1 : -1;
	if (a->is_loc)
		return strcmp(t->locs[a->loc].name, t->locs[b->loc].name);
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return strcmp(t->threads[a->thread].regs[a->reg], t->threads[b->thread].regs[b->reg]);
}

/* The registers and locations the condition names, each once: registers by thread and name,
 * then locations by name. */
static void collect_keys(const struct litmus_test *t, struct litmus_result *r)
{
	r->nkeys = 0;
	for (unsigned i = 0; i < t->cond.natoms; i++) {
		const struct lit_atom *at = &t->cond.atoms[i];
		struct litmus_key k = {
		    .is_loc = at->is_loc, .thread = at->thread, .reg = at->reg, .loc = at->loc};
		unsigned j;

		if (at->is_loc)
			k.thread = k.reg = 0;
		else
			k.loc = 0;
		for (j = 0; j < r->nkeys; j++)
			if (!memcmp(&r->keys[j], &k, sizeof(k)))
				break;
		if (j < r->nkeys)
			continue;
		/* insertion in order */
		for (j = r->nkeys; j > 0 && key_cmp(t, &r->keys[j - 1], &k) > 0; j--)
			r->keys[j] = r->keys[j - 1];
		r->keys[j] = k;
		r->nkeys++;
	}
}

static void sort_outcomes(struct litmus_result *r)
{
	/* insertion sort: few outcomes (and qsort's comparator would need the key count) */
	for (unsigned i = 1; i < r->noutcomes; i++) {
		struct litmus_outcome tmp = r->outcomes[i];
		unsigned j = i;

		while (j > 0) {
			int c = 0;

			for (unsigned k = 0; k < r->nkeys && !c; k++)
				if (r->outcomes[j - 1].vals[k] != tmp.vals[k])
					c = r->outcomes[j - 1].vals[k] < tmp.vals[k] ? -1 : 1;
			if (c <= 0)
				break;
			r->outcomes[j] = r->outcomes[j - 1];
			j--;
		}
		r->outcomes[j] = tmp;
	}
}

static void outcome_text(const struct litmus_test *t, const struct litmus_result *r,
			 struct litmus_outcome *o)
{
	size_t len = 0, cap = sizeof(o->text);

	o->text[0] = '\0';
	for (unsigned i = 0; i < r->nkeys && len < cap; i++) {
		const struct litmus_key *k = &r->keys[i];
		int n;

		if (k->is_loc)
			n = snprintf(o->text + len, cap - len, "%s%s=%" PRId64 ";", i ? " " : "",
				     t->locs[k->loc].name, o->vals[i]);
		else
			n = snprintf(o->text + len, cap - len, "%s%u:%s=%" PRId64 ";", i ? " " : "",
				     k->thread, t->threads[k->thread].regs[k->reg], o->vals[i]);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static int bad_test(const struct litmus_test *t, struct cs_err *err, const char *what,
		    unsigned line)
{
	return cs_err_set(err, -CS_EINVAL, "%s:%u: %s", t->path[0] ? t->path : t->name, line, what);
}

/* The parser guarantees these; a test built by hand might not. */
static int check_test(const struct litmus_test *t, struct cs_err *err)
{
	if (t->nthreads < 1 || t->nthreads > LIT_MAX_THREADS)
		return bad_test(t, err, "a test needs 1 to 8 threads", 0);
	if (t->nlocs > LIT_MAX_LOCS || t->cond.natoms > LIT_MAX_ATOMS)
		return bad_test(t, err, "too many locations or condition atoms", 0);
	for (unsigned i = 0; i < t->nthreads; i++) {
		const struct lit_thread *th = &t->threads[i];

		if (th->nops > LIT_MAX_OPS || th->nregs > LIT_MAX_REGS)
			return bad_test(t, err, "too many ops or registers in a thread", 0);
		for (unsigned p = 0; p < th->nops; p++) {
			const struct lit_op *op = &th->ops[p];
			bool mem =
			    op->kind == LIT_LOAD || op->kind == LIT_STORE || op->kind == LIT_RMW;
			const struct lit_val *v[4] = {&op->val, &op->val2, &op->a, &op->b};

			if (op->kind > LIT_BRANCH || (mem && op->loc >= t->nlocs) ||
			    (op->reg >= 0 && (unsigned)op->reg >= th->nregs))
				return bad_test(t, err, "op out of range", op->line);
			for (unsigned j = 0; j < 4; j++)
				if (v[j]->is_reg && v[j]->reg >= th->nregs)
					return bad_test(t, err, "register out of range", op->line);
		}
	}
	for (unsigned i = 0; i < t->cond.natoms; i++) {
		const struct lit_atom *at = &t->cond.atoms[i];

		if (at->is_loc
			? at->loc >= t->nlocs
			: at->thread >= t->nthreads || at->reg >= t->threads[at->thread].nregs)
			return bad_test(t, err, "condition names an unknown register or location",
					0);
	}
	return 0;
}

/* ---- entry points ------------------------------------------------------------------------------ */

void litmus_opts_default(struct litmus_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->iterations = LITMUS_DEFAULT_ITERATIONS;
	o->jitter = LITMUS_DEFAULT_JITTER;
	o->warmup = LITMUS_DEFAULT_WARMUP;
	o->placement = LIT_PLACE_RANDOM;
}

const char *litmus_model_name(unsigned model)
{
	static const char *const names[] = {"sc", "rc", "none", "tso", "hsa"};

	return model <= LIT_MODEL_HSA ? names[model] : "?";
}

int litmus_check(const struct litmus_test *t, struct cs_config *cfg, const struct litmus_opts *o,
		 struct cs_err *err)
{
	const char *file = t->path[0] ? t->path : t->name;
	bool x86 = !strcmp(t->arch, "X86");
	struct cs_system_cfg sys;
	struct cpus_cfg cpus;
	struct gpu_cfg gpu;
	unsigned ngpu = 0;
	int rc = check_test(t, err);

	if (!rc)
		rc = cs_config_section(cfg, &cs_system_params, &sys, err);
	if (rc)
		return rc;
	if (!o->nagents) {
		if (x86 && strcmp(sys.type, "cpu"))
			return cs_err_set(
			    err, -CS_ECONFIG,
			    "%s: an X86 test runs on CPU cores: give a configuration of "
			    "system 'cpu' (configs/cpu-tso.cfg)%s, not '%s'",
			    file, strcmp(sys.type, "apu") ? "" : ", or --agents on system 'apu'",
			    sys.type);
		if (!x86 && strcmp(sys.type, "gpu"))
			return cs_err_set(err, -CS_ECONFIG,
					  "%s: a %s test runs on the GPU: give a configuration of "
					  "system 'gpu', not '%s'",
					  file, t->arch, sys.type);
		if (x86) {
			rc = cs_config_section(cfg, &cs_cpus_params, &cpus, err);
			if (!rc && t->nthreads > cpus.cores)
				rc = cs_err_set(
				    err, -CS_ECONFIG,
				    "%s: %u threads need %u CPU cores (cpus.cores = %" PRIu64 ")",
				    file, t->nthreads, t->nthreads, cpus.cores);
		}
		return rc;
	}
	if (!x86)
		return cs_err_set(err, -CS_EINVAL,
				  "%s: --agents runs X86 tests, not %s ones (docs/litmus.md)", file,
				  t->arch);
	if (o->nagents != t->nthreads)
		return cs_err_set(err, -CS_EINVAL,
				  "%s: --agents names %u agents, the test has %u threads", file,
				  o->nagents, t->nthreads);
	if (strcmp(sys.type, "apu"))
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: --agents needs CPU cores and a GPU: give a configuration of "
				  "system 'apu' (configs/apu-2200g.cfg), not '%s'",
				  file, sys.type);
	for (unsigned i = 0; i < o->nagents; i++)
		ngpu += o->agents[i] == LIT_AGENT_GPU;
	rc = cs_config_section(cfg, &gpu_params, &gpu, err);
	if (!rc)
		rc = cs_config_section(cfg, &cs_cpus_params, &cpus, err);
	if (rc)
		return rc;
	if (o->nagents - ngpu > cpus.cores)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "%s: --agents puts %u threads on CPU cores, the system has %" PRIu64
		    " (cpus.cores): one core each",
		    file, o->nagents - ngpu, cpus.cores);
	if (ngpu > gpu.sms)
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: --agents puts %u threads on the GPU, which has %" PRIu64
				  " CUs (gpu.sms): one CU each",
				  file, ngpu, gpu.sms);
	return 0;
}

const char *litmus_expect_name(unsigned expect)
{
	static const char *const names[] = {"?", "Allow", "Forbid"};

	return expect <= LIT_EXPECT_FORBID ? names[expect] : "?";
}

void litmus_result_free(struct litmus_result *r)
{
	if (!r)
		return;
	free(r->outcomes);
	r->outcomes = NULL;
	r->noutcomes = 0;
}

int litmus_run(const struct litmus_test *t, struct cs_config *cfg, const struct litmus_opts *o,
	       struct litmus_result *r, struct cs_err *err)
{
	struct lit_state st = {.t = t, .o = o, .r = r};
	struct cs_run_opts ro = {.mode = -1, .custom = &litmus_workload, .arg = &st};
	struct gpu_coherence_cfg coh;
	struct gpu_core_cfg core;
	struct gpu_l2_cfg l2;
	const struct gpu_protocol *proto;
	struct cs_system *sys = NULL;
	struct litmus_test *mt = NULL; /* t with its ops mapped (--agents, --atomics fences) */
	struct sim_clock clk;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = litmus_check(t, cfg, o, err);
	if (rc)
		return rc;
	if (!o->iterations)
		return cs_err_set(err, -CS_EINVAL, "litmus: at least one iteration is needed");
	collect_keys(t, r);
	if (o->nagents || (o->atomics == LIT_ATOMICS_FENCES && is_opencl(t))) {
		mt = malloc(sizeof(*mt));
		if (!mt)
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		*mt = *t;
		for (unsigned i = 0; i < mt->nthreads; i++) {
			if (o->nagents && o->agents[i] == LIT_AGENT_GPU)
				x86_to_gpu(&mt->threads[i]);
			for (unsigned k = 0; !o->nagents && k < mt->threads[i].nops; k++)
				mt->threads[i].ops[k].atomic = false; /* --atomics fences */
		}
		st.t = mt;
	}
	if (o->nagents || !strcmp(t->arch, "X86")) {
		if (o->nagents)
			litmus_agents_text(o, r->agents, sizeof(r->agents));
		rc = litmus_run_cpu(cfg, &st, err);
		free(mt);
		if (!rc) {
			sort_outcomes(r);
			for (unsigned i = 0; i < r->noutcomes; i++)
				outcome_text(t, r, &r->outcomes[i]);
		}
		return rc;
	}
	rc = cs_system_create(cfg, &ro, &sys, err);
	if (!rc)
		rc = cs_config_check_unused(cfg, NULL, 0, err);
	/* the sections are loaded by now: loading them again gives the same values */
	if (!rc)
		rc = cs_config_section(cfg, &gpu_coherence_params, &coh, err);
	if (!rc)
		rc = cs_config_section(cfg, &gpu_core_params, &core, err);
	if (!rc)
		rc = cs_config_section(cfg, &gpu_l2_params, &l2, err);
	if (rc)
		goto out;
	proto = gpu_protocol_find(coh.protocol);
	snprintf(r->protocol, sizeof(r->protocol), "%s", coh.protocol);
	r->model = !proto || !proto->coherent	? LIT_MODEL_NONE
		   : core.consistency == GPU_SC ? LIT_MODEL_SC
						: LIT_MODEL_RC;
	r->seed = sys->sim.seed;
	st.stride = l2.interleave > l2.line_bytes ? l2.interleave : l2.line_bytes;
	st.banks = (unsigned)l2.banks;
	rc = cs_system_run(sys, err);
	if (rc)
		goto out;
	sim_clock_init(&clk, core.clock_mhz * 1000000);
	r->cycles = sim_clock_cycle(&clk, sim_now(sys->k));
	sort_outcomes(r);
	for (unsigned i = 0; i < r->noutcomes; i++)
		outcome_text(t, r, &r->outcomes[i]);
out:
	cs_system_destroy(sys);
	free(mt);
	return rc;
}
