/*
 * workloads/litmus/run.c - the litmus runner: one GPU system per test, one kernel launch per
 * iteration, one single-warp CTA per litmus thread; a histogram of the final states. X86 tests
 * run on a system of CPU cores instead (litmus_run_cpu): one program run per iteration, one
 * thread per core, each location in its own line, held to x86-TSO.
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

#include "tlm/coherence/gpu_proto.h"
#include "tlm/core/cpu.h"
#include "tlm/core/sm.h"
#include "tlm/kernel/time.h"
#include "tlm/mem/idealport.h"
#include "tlm/system/cpu.h"
#include "tlm/system/gpu.h"
#include "tlm/system/system.h"
#include "workloads/cpu_api.h"
#include "workloads/gpu_api.h"
#include "workloads/workload.h"

#define TAG_LITMUS 0x6c69746d75730000ull

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t next_rand(uint64_t *state)
{
	return mix64(*state += 0x9e3779b97f4a7c15ull);
}

/* ---- the kernel -------------------------------------------------------------------------------- */

/* The argument block every warp sees. Warps write their registers into regs (host memory). */
struct lit_args {
	const struct litmus_test *t;
	uint64_t addr[LIT_MAX_LOCS];
	uint32_t touch[LIT_MAX_THREADS]; /* locations each thread accesses (bit per location) */
	uint64_t iter_seed;
	uint64_t jitter;
	bool warm;
	int64_t (*regs)[LIT_MAX_REGS];
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

static enum mem_order map_order(uint8_t order)
{
	switch (order) {
	case LIT_ACQUIRE:
		return MEM_ORDER_ACQUIRE;
	case LIT_RELEASE:
		return MEM_ORDER_RELEASE;
	case LIT_ACQ_REL:
	case LIT_SC:
		return MEM_ORDER_ACQ_REL;
	default:
		return MEM_ORDER_RELAXED;
	}
}

static void do_access(struct gpu_warp *w, const struct lit_args *a, const struct lit_op *op,
		      int64_t *reg)
{
	enum mem_scope sc = map_scope(op->scope);
	uint64_t addr = a->addr[op->loc];
	uint64_t v, v2;

	switch (op->kind) {
	case LIT_LOAD:
		fence_before(w, op->order, false, sc);
		v = gw_ld32(w, addr);
		if (op->reg >= 0)
			reg[op->reg] = (int32_t)(uint32_t)v;
		fence_after(w, op->order, true, sc);
		break;
	case LIT_STORE:
		fence_before(w, op->order, true, sc);
		gw_st32(w, addr, (uint32_t)eval(&op->val, reg));
		fence_after(w, op->order, false, sc);
		break;
	default: /* LIT_RMW */
		v = (uint32_t)eval(&op->val, reg);
		v2 = (uint32_t)eval(&op->val2, reg);
		fence_before(w, op->order, true, sc);
		if (op->rmw == LIT_RMW_CAS)
			v = gw_atom(w, MEM_ATOM_CAS, addr, 4, v, v2, sc, map_order(op->order));
		else
			v = gw_atom(w, map_rmw(op->rmw), addr, 4, v, 0, sc, map_order(op->order));
		if (op->reg >= 0)
			reg[op->reg] = (int32_t)(uint32_t)v;
		fence_after(w, op->order, true, sc);
		break;
	}
}

/* How a thread's memory ops and delays are carried out: by a warp or by a CPU core. */
struct lit_exec {
	void *who;
	void (*compute)(void *who, uint64_t cycles);
	void (*op)(void *who, const struct lit_op *op, int64_t *reg); /* access or fence */
};

/* Runs thread th's ops: register moves and branches locally, memory ops and fences through x,
 * after a jitter before the first (below `jitter` cycles) and before each further one (below
 * jitter / 8 + 1 cycles). */
static void lit_interpret(const struct lit_thread *th, int64_t *reg, uint64_t *rng, uint64_t jitter,
			  const struct lit_exec *x)
{
	uint64_t gap = jitter / 8 + 1;
	bool first = true;

	if (jitter)
		x->compute(x->who, next_rand(rng) % jitter);
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
			x->compute(x->who, next_rand(rng) % gap);
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

static void litmus_warp(struct gpu_warp *w)
{
	const struct lit_args *a = gw_args(w);
	unsigned ti = gw_cta(w);
	uint64_t rng = gw_rand(w) ^ mix64(a->iter_seed + 0x9e3779b97f4a7c15ull * (ti + 1));
	const struct lit_exec x = {.who = w, .compute = warp_compute, .op = warp_op};

	if (a->warm) {
		uint64_t pick = next_rand(&rng);

		/* a random subset: a stale copy of one location next to a miss on another is
		 * what exposes stale reads (all locations cached would read all stale) */
		for (unsigned l = 0; l < a->t->nlocs; l++)
			if ((a->touch[ti] >> l & 1) && (pick >> l & 1))
				(void)gw_ld32(w, a->addr[l]);
	}
	lit_interpret(&a->t->threads[ti], a->regs[ti], &rng, a->jitter, &x);
}

/* ---- the host program -------------------------------------------------------------------------- */

struct lit_state {
	const struct litmus_test *t;
	const struct litmus_opts *o;
	struct litmus_result *r;
	uint64_t stride; /* bytes between locations: one L2 bank each */
	unsigned banks;
	unsigned cap; /* of r->outcomes */
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

	return v == at->value;
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
	uint64_t seed = mix64(gh_seed(h) ^ TAG_LITMUS);
	int rc;

	for (unsigned i = 0; i < t->nthreads; i++)
		for (unsigned p = 0; p < t->threads[i].nops; p++) {
			const struct lit_op *op = &t->threads[i].ops[p];

			if (op->kind == LIT_LOAD || op->kind == LIT_STORE || op->kind == LIT_RMW)
				a.touch[i] |= 1u << op->loc;
		}
	for (uint64_t it = 0; it < o->iterations; it++) {
		uint64_t rng = mix64(seed + it);

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

/* Every thread sees this; threads write their registers into regs (host memory). */
struct lit_cpu_args {
	const struct litmus_test *t;
	uint64_t addr[LIT_MAX_LOCS];
	uint64_t iter_seed;
	uint64_t jitter;
	int64_t (*regs)[LIT_MAX_REGS];
};

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
	const struct lit_cpu_args *a = ct_args(ct);
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

static void litmus_cpu_thread(struct cpu_thread *ct)
{
	const struct lit_cpu_args *a = ct_args(ct);
	unsigned ti = ct_id(ct);
	uint64_t rng = ct_rand(ct) ^ mix64(a->iter_seed + 0x9e3779b97f4a7c15ull * (ti + 1));
	const struct lit_exec x = {.who = ct, .compute = core_compute, .op = core_op};

	lit_interpret(&a->t->threads[ti], a->regs[ti], &rng, a->jitter, &x);
}

static int litmus_cpu_host(struct cpu_host *h)
{
	struct lit_state *st = ch_arg(h);
	const struct litmus_test *t = st->t;
	const struct litmus_opts *o = st->o;
	bool fixed = o->placement == LIT_PLACE_FIXED;
	int64_t regs[LIT_MAX_THREADS][LIT_MAX_REGS];
	int64_t locs[LIT_MAX_LOCS];
	uint16_t core[LIT_MAX_THREADS];
	unsigned pick[LIT_MAX_THREADS];
	struct lit_cpu_args a = {.t = t, .regs = regs};
	struct cpu_program p = {
	    .name = "litmus",
	    .threads = t->nthreads,
	    .fn = litmus_cpu_thread,
	    .args = &a,
	    .thread_core = core,
	};
	uint64_t seed = mix64(ch_seed(h) ^ TAG_LITMUS);
	int rc;

	/* one line per location: no false sharing, nothing but the store buffers in between */
	for (unsigned l = 0; l < t->nlocs; l++)
		a.addr[l] = ch_alloc(h, st->stride, st->stride);
	if (t->nthreads > ch_cores(h))
		return ch_fail(h, "%s: %u threads need %u CPU cores (cpus.cores = %u)", t->path,
			       t->nthreads, t->nthreads, ch_cores(h));
	for (uint64_t it = 0; it < o->iterations; it++) {
		uint64_t rng = mix64(seed + it);

		a.iter_seed = next_rand(&rng);
		a.jitter = o->jitter >> (2 * (next_rand(&rng) % 4));
		choose(pick, t->nthreads, ch_cores(h), fixed, &rng);
		for (unsigned i = 0; i < t->nthreads; i++)
			core[i] = (uint16_t)pick[i];
		for (unsigned l = 0; l < t->nlocs; l++)
			ch_write32(h, a.addr[l], (uint32_t)t->locs[l].init);
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
	return 0;
}

static const struct cs_workload litmus_cpu_workload = {
    .name = "litmus",
    .system = "cpu",
    .help = "an X86 litmus test run many times on CPU cores (cohscope litmus)",
    .cpu = litmus_cpu_host,
};

/* An X86 test: system cpu, model TSO. */
static int litmus_run_cpu(const struct litmus_test *t, struct cs_config *cfg, struct lit_state *st,
			  struct cs_err *err)
{
	struct litmus_result *r = st->r;
	/* detailed always: the outcomes come from the AT face's interleavings (the LT face runs
	 * each core a quantum at a time) */
	struct cs_run_opts ro = {
	    .mode = CS_MODE_DETAILED, .custom = &litmus_cpu_workload, .arg = st};
	struct cs_system_cfg sys;
	struct cpu_core_cfg cpu;
	struct idealport_cfg ip;
	struct cs_system *s = NULL;
	struct sim_clock clk;
	int rc;

	rc = cs_config_section(cfg, &cs_system_params, &sys, err);
	if (rc)
		return rc;
	if (strcmp(sys.type, "cpu"))
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: an X86 test runs on CPU cores: give a configuration of "
				  "system 'cpu' (configs/cpu-tso.cfg), not '%s'",
				  t->path[0] ? t->path : t->name, sys.type);
	rc = cs_system_create(cfg, &ro, &s, err);
	if (!rc)
		rc = cs_config_check_unused(cfg, NULL, 0, err);
	if (!rc)
		rc = cs_config_section(cfg, &cpu_core_params, &cpu, err);
	if (!rc)
		rc = cs_config_section(cfg, &idealport_params, &ip, err);
	if (rc)
		goto out;
	snprintf(r->protocol, sizeof(r->protocol), "%s", cpu_sys_memory_name(s));
	r->model = LIT_MODEL_TSO;
	r->seed = s->sim.seed;
	st->stride = ip.line_bytes;
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
	o->iterations = LITMUS_DEFAULT_ITERATIONS;
	o->jitter = LITMUS_DEFAULT_JITTER;
	o->warmup = LITMUS_DEFAULT_WARMUP;
	o->placement = LIT_PLACE_RANDOM;
}

const char *litmus_model_name(unsigned model)
{
	static const char *const names[] = {"sc", "rc", "none", "tso"};

	return model <= LIT_MODEL_TSO ? names[model] : "?";
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
	struct cs_system_cfg scfg;
	struct gpu_core_cfg core;
	struct gpu_l2_cfg l2;
	const struct gpu_protocol *proto;
	struct cs_system *sys = NULL;
	struct sim_clock clk;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = check_test(t, err);
	if (rc)
		return rc;
	if (!o->iterations)
		return cs_err_set(err, -CS_EINVAL, "litmus: at least one iteration is needed");
	collect_keys(t, r);
	if (!strcmp(t->arch, "X86")) {
		rc = litmus_run_cpu(t, cfg, &st, err);
		if (!rc) {
			sort_outcomes(r);
			for (unsigned i = 0; i < r->noutcomes; i++)
				outcome_text(t, r, &r->outcomes[i]);
		}
		return rc;
	}
	rc = cs_config_section(cfg, &cs_system_params, &scfg, err);
	if (rc)
		return rc;
	if (strcmp(scfg.type, "gpu"))
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: a %s test runs on the GPU: give a configuration of system "
				  "'gpu', not '%s'",
				  t->path[0] ? t->path : t->name, t->arch, scfg.type);
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
	return rc;
}
