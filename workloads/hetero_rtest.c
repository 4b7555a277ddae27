/*
 * workloads/hetero_rtest.c - hetero_rtest, the random tester of system apu (hetero.h;
 * docs/workloads.md, "hetero_rtest"): CPU threads and GPU warps at once on a few hot and
 * conflicting lines.
 *
 * Agents: the program's CPU threads (0 .. T-1) and the warps of one kernel, one CTA of
 * HR_WARPS_PER_CTA warps per CU (T .. T+G-1). Thread 0 launches the kernel; every CPU thread
 * waits until a warp has started (a system-scope counter), so both sides run together, and
 * thread 0 waits for the kernel at the end. Op i of agent g is a pure function of (seed, g, i)
 * (a counter-based generator, as rtest), so any agent and the host can recompute any op. The
 * value op i of agent g writes with lane l is 1 + ((g * nops + i) * 16 + l): unique, never 0,
 * below 2^31, naming its writer; a word's initial value has bit 31 set and depends on the word.
 *
 * Ops: loads (4 and 8 bytes; CPU ct_ldv batches; GPU per-lane loads of a line), stores (4, 8
 * bytes; GPU per-lane stores), atomics (CPU locked XADD and XCHG; GPU atomics at device scope,
 * performed at the TCC, and at system scope, at the directory), fences (MFENCE; GPU fences at
 * work-group, device and system scope), each after a random gap. Memory: 4 hot lines side by
 * side, 20 data lines and the 2 counter lines 256 KiB apart (one set of the TCP, the TCC, the
 * L1D and the L2: 22 lines overflow all four). Counters only grow: two system counters (CPU
 * locked adds, GPU system-scope adds) and two device counters (GPU device-scope adds only: a
 * device-scope atomic racing with a CPU one may lose an update under the scoped model, so the
 * CPU only reads them).
 *
 * Checks, as rtest: every value read is a value some op already issued wrote to that very word
 * (else the run fails at once); no agent reads a word's value older than its own last write
 * there, nor a counter below what it saw or made (counted, the run fails at the end); the
 * counters end at the sum of their adds and each data word at the last write of the agent that
 * wrote it; the ops each agent counted match the host's replay. With gpu.check the coherence
 * checker sees every load of both kinds besides.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/hetero.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define HR_LINE		 64 /* the APU's line */
#define HR_WPL		 16 /* 4-byte words per line */
#define HR_HOT		 4
#define HR_CONF		 20
#define HR_LINES	 (HR_HOT + HR_CONF)
#define HR_WORDS	 (HR_LINES * HR_WPL)
#define HR_CTRS		 4	      /* 0, 1: system counters; 2, 3: device counters */
#define HR_CONF_STRIDE	 (256 * 1024) /* a set apart in the TCP, TCC, L1D and L2 */
#define HR_WARPS_PER_CTA 2
#define HR_BATCH	 4 /* loads of a CPU ct_ldv */
#define HR_GAP_MAX	 24
#define HR_PAUSE_ONE_IN	 64
#define HR_PAUSE	 600
#define HR_INIT_BIT	 0x80000000u
#define HR_TAG		 0x6872746573740000ull

enum hr_kind {
	HR_LD32 = 0,
	HR_LD64,
	HR_LDC, /* load of a counter */
	HR_LDV, /* CPU: ct_ldv of HR_BATCH words; GPU: per-lane loads of one line */
	HR_ST32,
	HR_ST64,
	HR_STV, /* GPU only: per-lane stores into one line */
	HR_ADD, /* atomic add to a counter, old value checked */
	HR_EXCH,
	HR_FENCE,
	HR_KINDS
};

static const char *const hr_kind_names[HR_KINDS] = {
    "ld32", "ld64",  "counter ld32", "ldv",	    "st32",
    "st64", "st32v", "atomic add",   "atomic exch", "fence",
};

struct hr_op {
	uint8_t kind;
	uint8_t scope, order; /* GPU atomics and fences */
	uint8_t counter;      /* HR_LDC, HR_ADD */
	uint8_t line;	      /* GPU HR_LDV, HR_STV */
	uint16_t wid;	      /* data ops (HR_LD64, HR_ST64: the even word) */
	uint16_t wids[HR_BATCH];
	uint32_t amount; /* HR_ADD */
	uint32_t mask;	 /* GPU HR_LDV, HR_STV: lanes 0-15, lane l on word l of the line */
};

struct hr_count {
	uint64_t ops, loads, stores, atomics, fences, checked;
	uint64_t adds[HR_CTRS];
};

struct hr_order {
	uint64_t n;
	char first[300];
};

struct hr_args {
	uint64_t seed, nops;
	unsigned threads, warps, agents; /* agents = threads + warps */
	uint32_t init_base;
	uint64_t line[HR_LINES], counter[HR_CTRS], started;
	uint64_t total[HR_CTRS];
	struct gpu_kernel kernel;
	/* host memory the agents update (the simulation runs in one host thread) */
	uint64_t *progress;	/* per agent: ops issued */
	uint32_t *own;		/* agents x HR_WORDS: 1 + the op of the agent's last write, or 0 */
	uint64_t *floor;	/* agents x HR_CTRS */
	struct hr_count *count; /* per agent */
	struct hr_order *order;
};

static unsigned draw(uint64_t *s, unsigned n)
{
	unsigned v = (unsigned)(*s % n);

	*s /= n;
	return v;
}

/* Half the draws go to the hot lines, half to the conflict set. */
static unsigned pick_line(uint64_t *s)
{
	return draw(s, 2) ? draw(s, HR_HOT) : HR_HOT + draw(s, HR_CONF);
}

/* Half the words among the first 4 of the line (true sharing), half anywhere. */
static unsigned pick_word(uint64_t *s)
{
	unsigned line = pick_line(s);

	return line * HR_WPL + (draw(s, 2) ? draw(s, 4) : draw(s, HR_WPL));
}

static bool is_cpu(const struct hr_args *a, uint64_t g)
{
	return g < a->threads;
}

/* Op i of agent g. Mix: 40% loads, 30% stores, 15% atomics, 5% fences, 10% batched. */
static void hr_gen(const struct hr_args *a, uint64_t g, uint64_t i, struct hr_op *op)
{
	uint64_t r = wl_mix64(a->seed ^ wl_mix64(g * a->nops + i + 0x9e3779b97f4a7c15ull));
	uint64_t s = wl_mix64(r ^ 0x632be59bd9b4e019ull);
	unsigned pct = draw(&r, 100);
	bool cpu = is_cpu(a, g);

	memset(op, 0, sizeof(*op));
	if (pct < 40) {
		unsigned sub = draw(&r, 8);

		op->kind = sub == 0 ? HR_LDC : sub == 1 ? HR_LD64 : HR_LD32;
	} else if (pct < 70) {
		op->kind = draw(&r, 5) == 0 ? HR_ST64 : HR_ST32;
	} else if (pct < 80) {
		op->kind = HR_ADD;
	} else if (pct < 85) {
		op->kind = HR_EXCH;
	} else if (pct < 90) {
		op->kind = HR_FENCE;
	} else {
		op->kind = pct < 95 || cpu ? HR_LDV : HR_STV;
	}
	op->scope = (uint8_t)(draw(&r, 2) ? MEM_SCOPE_SYSTEM : MEM_SCOPE_DEVICE);
	op->order = (uint8_t)draw(&r, 4); /* relaxed, acquire, release, acq_rel */
	switch (op->kind) {
	case HR_LDC:
		op->counter = (uint8_t)draw(&r, HR_CTRS);
		break;
	case HR_ADD:
		/* CPU: system counters only; GPU: a system counter at system scope, a device
		 * counter at device scope */
		op->counter = (uint8_t)draw(&r, 2);
		if (!cpu && op->scope == MEM_SCOPE_DEVICE)
			op->counter += 2;
		op->amount = 1 + draw(&r, 8);
		break;
	case HR_LD64:
	case HR_ST64:
		op->wid = (uint16_t)(pick_word(&s) & ~1u);
		break;
	case HR_LDV:
	case HR_STV:
		if (cpu) {
			for (unsigned k = 0; k < HR_BATCH; k++)
				op->wids[k] = (uint16_t)pick_word(&s);
		} else {
			op->line = (uint8_t)pick_line(&s);
			op->mask = 1 + draw(&s, 0xffff);
		}
		break;
	case HR_FENCE:
		op->order = (uint8_t)(MEM_ORDER_ACQUIRE + draw(&r, 3));
		op->scope = (uint8_t)draw(&r, 3); /* work-group, device, system */
		break;
	default: /* HR_LD32, HR_ST32, HR_EXCH */
		op->wid = (uint16_t)pick_word(&s);
		break;
	}
}

/* Does lane `lane` of op write data word wid? */
static bool op_writes(const struct hr_op *op, unsigned lane, unsigned wid)
{
	switch (op->kind) {
	case HR_ST32:
	case HR_EXCH:
		return lane == 0 && op->wid == wid;
	case HR_ST64:
		return lane < 2 && op->wid + lane == wid;
	case HR_STV:
		return (op->mask >> lane & 1) && op->line * HR_WPL + lane == wid;
	default:
		return false;
	}
}

static void count_op(const struct hr_op *op, bool cpu, struct hr_count *c)
{
	c->ops++;
	switch (op->kind) {
	case HR_LD32:
	case HR_LDC:
		c->loads++;
		c->checked++;
		break;
	case HR_LD64:
		c->loads++;
		c->checked += 2;
		break;
	case HR_LDV:
		c->loads++;
		c->checked += cpu ? HR_BATCH : (unsigned)__builtin_popcount(op->mask);
		break;
	case HR_ST32:
	case HR_ST64:
	case HR_STV:
		c->stores++;
		break;
	case HR_ADD:
		c->atomics++;
		c->checked++;
		c->adds[op->counter] += op->amount;
		break;
	case HR_EXCH:
		c->atomics++;
		c->checked++;
		break;
	default:
		c->fences++;
		break;
	}
}

static uint64_t word_addr(const struct hr_args *a, unsigned wid)
{
	return a->line[wid / HR_WPL] + 4ull * (wid % HR_WPL);
}

static uint32_t written(const struct hr_args *a, uint64_t g, uint64_t i, unsigned lane)
{
	return (uint32_t)(1 + (g * a->nops + i) * HR_WPL + lane);
}

static uint32_t initial(const struct hr_args *a, unsigned wid)
{
	return HR_INIT_BIT | ((a->init_base + wid * 0x9e3779b1u) & ~HR_INIT_BIT);
}

struct hr_dec {
	bool init, known;
	uint64_t g, i;
	unsigned lane;
};

/* Decodes v read from data word wid: NULL, or why it is no value of that word. */
static const char *decode(const struct hr_args *a, unsigned wid, uint32_t v, struct hr_dec *d)
{
	struct hr_op op;
	uint64_t x;

	memset(d, 0, sizeof(*d));
	if (v & HR_INIT_BIT) {
		d->init = v == initial(a, wid);
		return d->init ? NULL : "a value never written there (not its initial value)";
	}
	if (v == 0)
		return "zero, which nothing writes";
	x = (uint64_t)v - 1;
	d->lane = (unsigned)(x % HR_WPL);
	x /= HR_WPL;
	d->g = x / a->nops;
	d->i = x % a->nops;
	if (d->g >= a->agents)
		return "a value never written there (beyond every agent's values)";
	d->known = true;
	hr_gen(a, d->g, d->i, &op);
	if (!op_writes(&op, d->lane, wid))
		return "a value never written there";
	return NULL;
}

static void agent_name(char *buf, size_t n, const struct hr_args *a, uint64_t g)
{
	if (is_cpu(a, g))
		snprintf(buf, n, "CPU thread %" PRIu64, g);
	else
		snprintf(buf, n, "GPU warp %" PRIu64, g - a->threads);
}

static void describe(char *buf, size_t n, const struct hr_args *a, unsigned wid, uint32_t v,
		     const struct hr_dec *d)
{
	unsigned line = wid / HR_WPL;
	char val[96] = "unknown", who[40];
	struct hr_op op;

	if (d->init) {
		snprintf(val, sizeof(val), "the initial value");
	} else if (d->known) {
		agent_name(who, sizeof(who), a, d->g);
		hr_gen(a, d->g, d->i, &op);
		snprintf(val, sizeof(val), "%s op %" PRIu64 "'s, a %s", who, d->i,
			 hr_kind_names[op.kind]);
	}
	snprintf(buf, n, "word %u of %s line %u (%#" PRIx64 ") = %#" PRIx32 " (%s)", wid % HR_WPL,
		 line < HR_HOT ? "hot" : "conflict", line < HR_HOT ? line : line - HR_HOT,
		 word_addr(a, wid), v, val);
}

/* ---- one agent's ops, CPU or GPU ----------------------------------------------------------- */

struct hr_agent {
	const struct hr_args *a;
	uint64_t g;
	struct cpu_thread *t; /* a CPU thread, else */
	struct gpu_warp *w;   /* a warp */
	uint32_t *own;
	uint64_t *floor;
};

static void agent_fail(const struct hr_agent *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void agent_fail(const struct hr_agent *x, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->t)
		ct_fail(x->t, "hetero_rtest: %s", msg);
	else
		gw_fail(x->w, "hetero_rtest: %s", msg);
}

static void order_violation(const struct hr_agent *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void order_violation(const struct hr_agent *x, const char *fmt, ...)
{
	va_list ap;

	if (x->a->order->n++)
		return;
	va_start(ap, fmt);
	vsnprintf(x->a->order->first, sizeof(x->a->order->first), fmt, ap);
	va_end(ap);
}

/* v, read by op i from data word wid: a value written there by an op already issued (else
 * the run fails: -1), not older than the agent's own last write there (else counted). */
static int check_word(const struct hr_agent *x, uint64_t i, const char *what, unsigned wid,
		      uint32_t v)
{
	const struct hr_args *a = x->a;
	uint32_t own = x->own[wid];
	char why[160], desc[200], who[40];
	struct hr_dec d;
	const char *bad = decode(a, wid, v, &d);

	if (bad) {
		snprintf(why, sizeof(why), "%s", bad);
	} else if (!d.init && (d.g == x->g ? d.i >= i : a->progress[d.g] <= d.i)) {
		snprintf(why, sizeof(why),
			 "from the future: that agent had issued only %" PRIu64 " ops",
			 d.g == x->g ? i : a->progress[d.g]);
	} else if (own && (d.init || (d.g == x->g && d.i + 1 < own))) {
		describe(desc, sizeof(desc), a, wid, v, &d);
		agent_name(who, sizeof(who), a, x->g);
		order_violation(x,
				"%s op %" PRIu64 " (%s) read %s: older than its own op %" PRIu32
				" write to the word",
				who, i, what, desc, own - 1);
		return 0;
	} else {
		return 0;
	}
	describe(desc, sizeof(desc), a, wid, v, &d);
	agent_name(who, sizeof(who), a, x->g);
	agent_fail(x, "%s op %" PRIu64 " (%s) read %s: %s", who, i, what, desc, why);
	return -1;
}

static int check_counter(const struct hr_agent *x, uint64_t i, const struct hr_op *op, uint32_t v)
{
	uint64_t floor = x->floor[op->counter], top = x->a->total[op->counter];
	uint64_t amount = op->kind == HR_ADD ? op->amount : 0;
	char who[40];

	agent_name(who, sizeof(who), x->a, x->g);
	if (v + amount > top) {
		agent_fail(x,
			   "%s op %" PRIu64 " (%s) read counter %u = %" PRIu32
			   ", more than all adds together (%" PRIu64 ")",
			   who, i, hr_kind_names[op->kind], op->counter, v, top);
		return -1;
	}
	if (v < floor)
		order_violation(x,
				"%s op %" PRIu64 " (%s) read counter %u = %" PRIu32
				", less than %" PRIu64 " it had seen or made",
				who, i, hr_kind_names[op->kind], op->counter, v, floor);
	if (v + amount > floor)
		x->floor[op->counter] = v + amount;
	return 0;
}

static int cpu_op(const struct hr_agent *x, uint64_t i, const struct hr_op *op)
{
	const struct hr_args *a = x->a;
	struct cpu_thread *t = x->t;
	uint64_t addr = word_addr(a, op->wid), v64, va[HR_BATCH], vv[HR_BATCH];

	switch (op->kind) {
	case HR_LD32:
		return check_word(x, i, "ld32", op->wid, (uint32_t)ct_ld(t, addr, 4));
	case HR_LD64:
		v64 = ct_ld(t, addr, 8);
		if (check_word(x, i, "ld64", op->wid, (uint32_t)v64))
			return -1;
		return check_word(x, i, "ld64", op->wid + 1u, (uint32_t)(v64 >> 32));
	case HR_LDC:
		return check_counter(x, i, op, (uint32_t)ct_ld(t, a->counter[op->counter], 4));
	case HR_LDV:
		for (unsigned k = 0; k < HR_BATCH; k++)
			va[k] = word_addr(a, op->wids[k]);
		ct_ldv(t, va, HR_BATCH, 4, vv);
		for (unsigned k = 0; k < HR_BATCH; k++)
			if (check_word(x, i, "ldv", op->wids[k], (uint32_t)vv[k]))
				return -1;
		return 0;
	case HR_ST32:
		x->own[op->wid] = (uint32_t)(i + 1);
		ct_st(t, addr, 4, written(a, x->g, i, 0));
		return 0;
	case HR_ST64:
		x->own[op->wid] = x->own[op->wid + 1] = (uint32_t)(i + 1);
		ct_st(t, addr, 8, written(a, x->g, i, 0) | (uint64_t)written(a, x->g, i, 1) << 32);
		return 0;
	case HR_ADD:
		return check_counter(x, i, op,
				     (uint32_t)ct_atomic(t, MEM_ATOM_ADD, a->counter[op->counter],
							 4, op->amount, 0));
	case HR_EXCH:
		if (check_word(
			x, i, "xchg", op->wid,
			(uint32_t)ct_atomic(t, MEM_ATOM_EXCH, addr, 4, written(a, x->g, i, 0), 0)))
			return -1;
		x->own[op->wid] = (uint32_t)(i + 1);
		return 0;
	default:
		ct_mfence(t);
		return 0;
	}
}

static int gpu_op(const struct hr_agent *x, uint64_t i, const struct hr_op *op)
{
	const struct hr_args *a = x->a;
	struct gpu_warp *w = x->w;
	uint64_t addr = word_addr(a, op->wid), v64, la[WARP_LANES] = {0};
	uint32_t lv[WARP_LANES] = {0};

	switch (op->kind) {
	case HR_LD32:
		return check_word(x, i, "ld32", op->wid, gw_ld32(w, addr));
	case HR_LD64:
		v64 = gw_ld64(w, addr);
		if (check_word(x, i, "ld64", op->wid, (uint32_t)v64))
			return -1;
		return check_word(x, i, "ld64", op->wid + 1u, (uint32_t)(v64 >> 32));
	case HR_LDC:
		return check_counter(x, i, op, gw_ld32(w, a->counter[op->counter]));
	case HR_LDV:
	case HR_STV:
		for (unsigned l = 0; l < HR_WPL; l++) {
			la[l] = word_addr(a, op->line * HR_WPL + l);
			lv[l] = written(a, x->g, i, l);
		}
		if (op->kind == HR_STV) {
			for (unsigned l = 0; l < HR_WPL; l++)
				if (op->mask >> l & 1)
					x->own[op->line * HR_WPL + l] = (uint32_t)(i + 1);
			gw_st32v(w, la, op->mask, lv);
			return 0;
		}
		gw_ld32v(w, la, op->mask, lv);
		for (unsigned l = 0; l < HR_WPL; l++)
			if ((op->mask >> l & 1) &&
			    check_word(x, i, "ld32v", op->line * HR_WPL + l, lv[l]))
				return -1;
		return 0;
	case HR_ST32:
		x->own[op->wid] = (uint32_t)(i + 1);
		gw_st32(w, addr, written(a, x->g, i, 0));
		return 0;
	case HR_ST64:
		x->own[op->wid] = x->own[op->wid + 1] = (uint32_t)(i + 1);
		gw_st64(w, addr, written(a, x->g, i, 0) | (uint64_t)written(a, x->g, i, 1) << 32);
		return 0;
	case HR_ADD:
		return check_counter(x, i, op,
				     (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->counter[op->counter], 4,
						       op->amount, 0, op->scope, op->order));
	case HR_EXCH:
		if (check_word(x, i, "atomic exch", op->wid,
			       (uint32_t)gw_atom(w, MEM_ATOM_EXCH, addr, 4, written(a, x->g, i, 0),
						 0, op->scope, op->order)))
			return -1;
		x->own[op->wid] = (uint32_t)(i + 1);
		return 0;
	default:
		gw_fence(w, op->order, op->scope);
		return 0;
	}
}

/* Runs agent x's ops, each after a random gap (timing only: the host's replay needs none). */
static void agent_run(struct hr_agent *x)
{
	const struct hr_args *a = x->a;
	struct hr_op op;

	x->own = a->own + x->g * HR_WORDS;
	x->floor = a->floor + x->g * HR_CTRS;
	for (uint64_t i = 0; i < a->nops; i++) {
		uint64_t r = x->t ? ct_rand(x->t) : gw_rand(x->w);
		uint64_t gap = r % (HR_GAP_MAX + 1);

		if ((r >> 16) % HR_PAUSE_ONE_IN == 0)
			gap += HR_PAUSE + (r >> 32) % HR_PAUSE;
		if (gap && x->t)
			ct_compute(x->t, gap);
		else if (gap)
			gw_compute(x->w, gap);
		hr_gen(a, x->g, i, &op);
		a->progress[x->g] = i + 1;
		if (x->t ? cpu_op(x, i, &op) : gpu_op(x, i, &op))
			return;
		count_op(&op, x->t != NULL, &a->count[x->g]);
	}
}

static void hr_gpu(struct gpu_warp *w)
{
	const struct hr_args *a = gw_args(w);
	struct hr_agent x = {.a = a, .g = a->threads + gw_gwid(w), .w = w};

	/* the CPU threads start their ops when the kernel has begun */
	(void)gw_atom(w, MEM_ATOM_ADD, a->started, 4, 1, 0, MEM_SCOPE_SYSTEM, MEM_ORDER_RELAXED);
	agent_run(&x);
}

static void hr_cpu(struct cpu_thread *t)
{
	const struct hr_args *a = ct_args(t);
	struct hr_agent x = {.a = a, .g = ct_id(t), .t = t};

	if (ct_id(t) == 0)
		ct_launch(t, &a->kernel);
	if (!hx_cpu_spin(t, a->started, 1, 1024, "hetero_rtest", "the kernel's start", NULL))
		return;
	agent_run(&x);
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

/* ---- the host ------------------------------------------------------------------------------- */

struct hr_host {
	struct hr_args a;
	struct hr_count *expect, sum;
	uint32_t *last;	   /* agents x HR_WORDS */
	uint32_t *writers; /* per word: agents that write it */
	uint64_t cpu_ops, gpu_ops;
};

static void replay(struct hr_host *x)
{
	struct hr_args *a = &x->a;
	struct hr_op op;

	for (uint64_t g = 0; g < a->agents; g++) {
		uint32_t *last = x->last + g * HR_WORDS;
		struct hr_count *c = &x->expect[g];

		for (uint64_t i = 0; i < a->nops; i++) {
			hr_gen(a, g, i, &op);
			count_op(&op, is_cpu(a, g), c);
			for (unsigned l = 0; l < HR_WPL; l++) {
				unsigned wid =
				    op.kind == HR_STV ? op.line * HR_WPL + l : op.wid + l;

				if (wid < HR_WORDS && op_writes(&op, l, wid))
					last[wid] = (uint32_t)(i + 1);
			}
		}
		for (unsigned wid = 0; wid < HR_WORDS; wid++)
			x->writers[wid] += last[wid] != 0;
		for (unsigned k = 0; k < HR_CTRS; k++)
			a->total[k] += c->adds[k];
		x->sum.ops += c->ops;
		x->sum.loads += c->loads;
		x->sum.stores += c->stores;
		x->sum.atomics += c->atomics;
		x->sum.fences += c->fences;
		x->sum.checked += c->checked;
		*(is_cpu(a, g) ? &x->cpu_ops : &x->gpu_ops) += c->ops;
	}
}

/* 4 hot lines side by side; 20 data lines and the 2 counter lines a set apart. */
static void place(struct cpu_host *h, struct hr_args *a)
{
	uint64_t hot = ch_alloc(h, HR_HOT * HR_LINE, 4096);
	uint64_t conf = ch_alloc(h, (HR_CONF + 2) * (uint64_t)HR_CONF_STRIDE, HR_CONF_STRIDE);
	uint32_t buf[HR_WPL];

	for (unsigned l = 0; l < HR_HOT; l++)
		a->line[l] = hot + (uint64_t)l * HR_LINE;
	for (unsigned l = 0; l < HR_CONF; l++)
		a->line[HR_HOT + l] = conf + (uint64_t)l * HR_CONF_STRIDE;
	for (unsigned k = 0; k < HR_CTRS; k++)
		a->counter[k] =
		    conf + (uint64_t)(HR_CONF + k / 2) * HR_CONF_STRIDE + 4 * (k % 2 ? 5 : 0);
	a->started = ch_alloc(h, HR_LINE, HR_LINE);
	for (unsigned l = 0; l < HR_LINES; l++) {
		for (unsigned j = 0; j < HR_WPL; j++)
			buf[j] = initial(a, l * HR_WPL + j);
		ch_write(h, a->line[l], buf, sizeof(buf));
	}
	memset(buf, 0, sizeof(buf));
	for (unsigned k = 0; k < 2; k++)
		ch_write(h, conf + (uint64_t)(HR_CONF + k) * HR_CONF_STRIDE, buf, sizeof(buf));
	ch_write(h, a->started, buf, sizeof(buf));
}

static int check_final(struct cpu_host *h, const struct hr_host *x)
{
	const struct hr_args *a = &x->a;
	uint32_t buf[HR_WPL];
	char desc[200];

	for (unsigned l = 0; l < HR_LINES; l++) {
		ch_read(h, a->line[l], buf, sizeof(buf));
		for (unsigned j = 0; j < HR_WPL; j++) {
			unsigned wid = l * HR_WPL + j;
			struct hr_dec d;
			const char *bad = decode(a, wid, buf[j], &d);
			uint32_t last = d.known ? x->last[d.g * HR_WORDS + wid] : 0;

			describe(desc, sizeof(desc), a, wid, buf[j], &d);
			if (bad)
				return ch_fail(h, "hetero_rtest: final %s: %s", desc, bad);
			if (d.init && x->writers[wid])
				return ch_fail(h,
					       "hetero_rtest: final %s although %" PRIu32
					       " agents wrote it (writes lost)",
					       desc, x->writers[wid]);
			if (!d.init && last != d.i + 1)
				return ch_fail(h,
					       "hetero_rtest: final %s, but that agent wrote the "
					       "word again at its op %" PRIu32
					       " (its writes were performed out of program order)",
					       desc, last - 1);
		}
	}
	for (unsigned k = 0; k < HR_CTRS; k++) {
		uint32_t got = ch_read32(h, a->counter[k]);

		if (got != (uint32_t)a->total[k])
			return ch_fail(h,
				       "hetero_rtest: %s counter %u = %" PRIu32
				       ", but the agents added %" PRIu64 " (%" PRId64 " lost)",
				       k < 2 ? "system" : "device", k % 2, got, a->total[k],
				       (int64_t)a->total[k] - got);
	}
	for (uint64_t g = 0; g < a->agents; g++)
		if (memcmp(&a->count[g], &x->expect[g], sizeof(struct hr_count)))
			return ch_fail(h,
				       "hetero_rtest: agent %" PRIu64 " counted %" PRIu64
				       " ops, the replay %" PRIu64,
				       g, a->count[g].ops, x->expect[g].ops);
	return 0;
}

int hetero_rtest_main(struct cpu_host *h)
{
	struct hr_host x = {0};
	struct hr_args *a = &x.a;
	struct hr_order order = {0};
	struct cpu_program p = {.name = "rtest", .fn = hr_cpu, .args = a};
	int err = -CS_ENOMEM;

	a->threads = ch_cores(h);
	a->kernel = (struct gpu_kernel){
	    .name = "rtest", .ctas = 8, .warps_per_cta = HR_WARPS_PER_CTA, .fn = hr_gpu, .args = a};
	a->warps = a->kernel.ctas * HR_WARPS_PER_CTA;
	a->agents = a->threads + a->warps;
	a->nops = wl_size_pick(ch_size(h), 60, 300, 2000);
	a->seed = wl_mix64(ch_seed(h) ^ HR_TAG);
	a->init_base = (uint32_t)wl_mix64(a->seed);
	a->order = &order;
	p.threads = a->threads;
	a->progress = calloc(a->agents, sizeof(*a->progress));
	a->own = calloc((size_t)a->agents * HR_WORDS, sizeof(*a->own));
	a->floor = calloc((size_t)a->agents * HR_CTRS, sizeof(*a->floor));
	a->count = calloc(a->agents, sizeof(*a->count));
	x.expect = calloc(a->agents, sizeof(*x.expect));
	x.last = calloc((size_t)a->agents * HR_WORDS, sizeof(*x.last));
	x.writers = calloc(HR_WORDS, sizeof(*x.writers));
	if (!a->progress || !a->own || !a->floor || !a->count || !x.expect || !x.last || !x.writers)
		goto out;
	replay(&x);
	place(h, a);
	err = ch_run(h, &p);
	if (!err)
		err = check_final(h, &x);
	if (!err && order.n)
		err =
		    ch_fail(h, "hetero_rtest: %" PRIu64 " reads out of coherence order, first: %s",
			    order.n, order.first);
	if (err)
		goto out;
	ch_note(h,
		"hetero_rtest (%s): %u CPU threads + %u GPU warps, %" PRIu64 " CPU + %" PRIu64
		" GPU ops: %" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64 " atomics, %" PRIu64
		" fences",
		wl_size_str(ch_size(h)), a->threads, a->warps, x.cpu_ops, x.gpu_ops, x.sum.loads,
		x.sum.stores, x.sum.atomics, x.sum.fences);
	ch_note(h,
		"hetero_rtest: %" PRIu64 " values read and %d counters and %d final words verified",
		x.sum.checked, HR_CTRS, HR_WORDS);
out:
	free(a->progress);
	free(a->own);
	free(a->floor);
	free(a->count);
	free(x.expect);
	free(x.last);
	free(x.writers);
	return err;
}
