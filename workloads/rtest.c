/*
 * workloads/rtest.c - the random coherence tester (docs/workloads.md, "rtest").
 *
 * Every warp runs `nops` random ops (the size's total over the warps). Op i of warp g is a pure
 * function of (seed, g, i): a counter-based generator (splitmix64 of the seed and g * nops + i),
 * not a stream, so that any warp, and the host, can recompute any op of any warp in O(1). The
 * value an op writes to a word is 1 + (g * nops + i) * 32 + lane: unique, never 0, below 2^31,
 * and it names its writer. A word's initial value has bit 31 set and depends on the word, so a
 * value read from a word decodes to exactly one op, which is recomputed to see whether it wrote
 * that very word.
 *
 * The memory: 4 hot lines (L1 sets 8-14 of a 16 KiB 4-way L1, 4 L2 banks), 12 data lines and 2
 * counter lines 4 KiB apart (one set of such an L1), 12 data lines 30 MiB apart (one set of one
 * L2 bank); docs/workloads.md gives the reasoning and the configurations it holds for.
 * Failures name the warp, its SM, the op, the word and the decoded writer of the value.
 *
 * Gaps between ops (0-20 cycles, sometimes 500-1499 more to let leases expire) come from
 * gw_rand(): they change timing only, never what is written, so the host's replay of the ops
 * does not need them.
 */
#include "workloads/rtest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/mix.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * KIB)

#define RT_LINE		 128 /* bytes of a cache line */
#define RT_WPL		 32  /* 4-byte words per line */
#define RT_HOT		 4   /* hot lines */
#define RT_L1SET	 12  /* data lines in one L1 set */
#define RT_L2SET	 12  /* data lines in one set of one L2 bank */
#define RT_LINES	 (RT_HOT + RT_L1SET + RT_L2SET)
#define RT_WORDS	 (RT_LINES * RT_WPL) /* data words */
#define RT_COUNTERS	 4		     /* words only atomic adds write */
#define RT_CTR_LINES	 2		     /* lines holding the counters, in the L1 set */
#define RT_L1_STRIDE	 (4 * KIB)	     /* L1 sets x line: 16 KiB / 4 ways */
#define RT_HOT_OFFSET	 (8 * RT_LINE) /* hot lines in L1 sets 8, 10, 12, 14, away from set 0 */
#define RT_HOT_STRIDE	 256	       /* and in 4 L2 banks */
#define RT_L2_ALIGN	 (2 * MIB)
#define RT_L2_STRIDE	 (15 * RT_L2_ALIGN) /* 30 MiB: see docs/workloads.md */
#define RT_WARPS_PER_CTA 4
#define RT_GAP_MAX	 20   /* cycles of compute before an op: 0..20 */
#define RT_PAUSE_ONE_IN	 128  /* one op in this many waits longer: */
#define RT_PAUSE_MIN	 500  /* cycles */
#define RT_PAUSE_SPAN	 1000 /* 500..1499 */
#define RT_INIT_BIT	 0x80000000u
#define RT_TAG		 0x7274657374000000ull

enum rt_kind {
	RT_LD32 = 0, /* uniform load of a data word */
	RT_LD64,     /* uniform 8-byte load of an even data word and the next */
	RT_LDC,	     /* uniform load of a counter */
	RT_ST32,
	RT_ST64,
	RT_ADD,	 /* atomic add to a counter, old value checked */
	RT_EXCH, /* atomic exchange of a data word with a fresh value, old value checked */
	RT_FENCE,
	RT_LDV, /* per-lane loads: 32 distinct words of one or two lines */
	RT_STV,
	RT_KINDS
};

static const char *const rt_kind_names[RT_KINDS] = {
    "ld32",	  "ld64",	 "counter ld32", "st32",  "st64",
    "atomic add", "atomic exch", "fence",	 "ld32v", "st32v",
};

struct rt_op {
	uint8_t kind;	  /* enum rt_kind */
	uint8_t order;	  /* enum mem_order: fences and atomics */
	uint8_t counter;  /* RT_LDC, RT_ADD */
	uint8_t line[2];  /* RT_LDV, RT_STV: the line of lanes 0-15 and of lanes 16-31 */
	uint8_t rot, mul; /* lane l: word (mul * l + rot) % 32 (mul odd: 32 distinct words) */
	uint16_t wid;	  /* uniform data ops: the word (RT_LD64, RT_ST64: the even one) */
	uint32_t amount;  /* RT_ADD */
	uint32_t mask;	  /* RT_LDV, RT_STV */
};

/* Reads the warps saw out of coherence order (an L1 without coherence makes them): counted and
 * the first described; the run goes on and the host fails it at the end. */
struct rt_order {
	uint64_t n;
	char first[300];
};

/* What a warp did, counted by the warp and by the host's replay: they must agree. */
struct rt_count {
	uint64_t ops, loads, vloads, stores, vstores, atomics, fences;
	uint64_t checked;	    /* loaded words and atomic old values checked */
	uint64_t adds[RT_COUNTERS]; /* sum of the amounts added to each counter */
};

struct rt_args {
	uint64_t seed;
	uint64_t nops;	/* ops per warp */
	uint64_t warps; /* in the grid */
	uint32_t init_base;
	uint64_t line[RT_LINES];
	uint64_t counter[RT_COUNTERS];
	uint64_t total[RT_COUNTERS]; /* every warp's adds together: the counters' final values */
	/* host memory the warps update (the simulation runs in one thread) */
	uint64_t *progress;	/* per warp: ops issued */
	uint32_t *own;		/* warps x RT_WORDS: 1 + the op of the warp's last write, or 0 */
	uint64_t *floor;	/* warps x RT_COUNTERS: least value the warp may see next */
	struct rt_count *count; /* per warp */
	struct rt_order *order; /* reads out of coherence order seen by the warps */
};

/* ---- the ops -------------------------------------------------------------------------------- */

/* A uniform draw in 0..n-1 from *s, consuming it. */
static unsigned draw(uint64_t *s, unsigned n)
{
	unsigned v = (unsigned)(*s % n);

	*s /= n;
	return v;
}

/* Half the draws go to the hot lines, a quarter to each conflict set. */
static unsigned pick_line(uint64_t *s)
{
	switch (draw(s, 4)) {
	case 0:
	case 1:
		return draw(s, RT_HOT);
	case 2:
		return RT_HOT + draw(s, RT_L1SET);
	default:
		return RT_HOT + RT_L1SET + draw(s, RT_L2SET);
	}
}

/* Half the draws go to the first 4 words of the line (true sharing), half to any word. */
static unsigned pick_word(uint64_t *s)
{
	unsigned line = pick_line(s);
	unsigned word = draw(s, 2) ? draw(s, 4) : draw(s, RT_WPL);

	return line * RT_WPL + word;
}

static uint8_t atomic_order(uint64_t *r)
{
	static const uint8_t orders[6] = {MEM_ORDER_RELAXED, MEM_ORDER_RELAXED, MEM_ORDER_RELAXED,
					  MEM_ORDER_ACQUIRE, MEM_ORDER_RELEASE, MEM_ORDER_ACQ_REL};

	return orders[draw(r, 6)];
}

/* Op i of warp g. Mix: 45% loads, 30% stores, 10% atomics, 5% fences, 10% per-lane. */
static void rt_gen(const struct rt_args *a, uint64_t g, uint64_t i, struct rt_op *op)
{
	uint64_t r = cs_mix64(a->seed ^ cs_mix64(g * a->nops + i + 0x9e3779b97f4a7c15ull));
	uint64_t s = cs_mix64(r ^ 0x632be59bd9b4e019ull);
	uint64_t t = cs_mix64(s ^ 0x85157af5ull);
	unsigned pct = draw(&r, 100);

	memset(op, 0, sizeof(*op));
	if (pct < 45) {
		unsigned sub = draw(&r, 8);

		op->kind = sub == 0 ? RT_LDC : sub == 1 ? RT_LD64 : RT_LD32;
	} else if (pct < 75) {
		op->kind = draw(&r, 5) == 0 ? RT_ST64 : RT_ST32;
	} else if (pct < 82) {
		op->kind = RT_ADD;
	} else if (pct < 85) {
		op->kind = RT_EXCH;
	} else if (pct < 90) {
		op->kind = RT_FENCE;
	} else {
		op->kind = pct < 95 ? RT_LDV : RT_STV;
	}
	switch (op->kind) {
	case RT_LDC:
	case RT_ADD:
		op->counter = (uint8_t)draw(&r, RT_COUNTERS);
		op->amount = 1 + draw(&r, 8);
		op->order = op->kind == RT_ADD ? atomic_order(&r) : MEM_ORDER_RELAXED;
		break;
	case RT_LD32:
	case RT_ST32:
		op->wid = (uint16_t)pick_word(&s);
		break;
	case RT_EXCH:
		op->wid = (uint16_t)pick_word(&s);
		op->order = atomic_order(&r);
		break;
	case RT_LD64:
	case RT_ST64:
		op->wid = (uint16_t)(pick_word(&s) & ~1u);
		break;
	case RT_FENCE:
		op->order =
		    (uint8_t)(MEM_ORDER_ACQUIRE + draw(&r, 3)); /* acquire, release, acq_rel */
		break;
	default: /* RT_LDV, RT_STV */
		op->line[0] = (uint8_t)pick_line(&s);
		op->line[1] = (uint8_t)pick_line(&s);
		op->rot = (uint8_t)draw(&s, RT_WPL);
		op->mul = (uint8_t)(2 * draw(&s, RT_WPL / 2) + 1);
		op->mask = draw(&s, 4) == 0 ? LANES_ALL : (uint32_t)t | 1u;
		break;
	}
}

/* The data word lane l of a per-lane op touches. */
static unsigned lane_word(const struct rt_op *op, unsigned l)
{
	return op->line[l >= WARP_LANES / 2] * RT_WPL + ((op->mul * l + op->rot) % RT_WPL);
}

/* Does lane `lane` of op write data word wid? */
static bool op_writes(const struct rt_op *op, unsigned lane, unsigned wid)
{
	switch (op->kind) {
	case RT_ST32:
	case RT_EXCH:
		return lane == 0 && op->wid == wid;
	case RT_ST64:
		return lane < 2 && op->wid + lane == wid;
	case RT_STV:
		return (op->mask >> lane & 1) && lane_word(op, lane) == wid;
	default:
		return false;
	}
}

static void count_op(const struct rt_op *op, struct rt_count *c)
{
	unsigned lanes = (unsigned)__builtin_popcount(op->mask);

	c->ops++;
	switch (op->kind) {
	case RT_LD32:
	case RT_LDC:
		c->loads++;
		c->checked++;
		break;
	case RT_LD64:
		c->loads++;
		c->checked += 2;
		break;
	case RT_ST32:
	case RT_ST64:
		c->stores++;
		break;
	case RT_ADD:
		c->atomics++;
		c->checked++;
		c->adds[op->counter] += op->amount;
		break;
	case RT_EXCH:
		c->atomics++;
		c->checked++;
		break;
	case RT_FENCE:
		c->fences++;
		break;
	case RT_LDV:
		c->loads++;
		c->vloads++;
		c->checked += lanes;
		break;
	default:
		c->stores++;
		c->vstores++;
		break;
	}
}

/* ---- values --------------------------------------------------------------------------------- */

static uint64_t word_addr(const struct rt_args *a, unsigned wid)
{
	return a->line[wid / RT_WPL] + 4ull * (wid % RT_WPL);
}

/* What op i of warp g writes with lane `lane`. */
static uint32_t written(const struct rt_args *a, uint64_t g, uint64_t i, unsigned lane)
{
	return (uint32_t)(1 + (g * a->nops + i) * RT_WPL + lane);
}

/* The value the host writes to data word wid before the launch (distinct per word). */
static uint32_t initial(const struct rt_args *a, unsigned wid)
{
	return RT_INIT_BIT | ((a->init_base + wid * 0x9e3779b1u) & ~RT_INIT_BIT);
}

struct rt_dec {
	bool init;  /* the word's initial value */
	bool known; /* g, i, lane name an op of the grid (set when !init) */
	uint64_t g, i;
	unsigned lane;
};

/* Decodes v read from data word wid: NULL, or why it is no value of that word. */
static const char *decode(const struct rt_args *a, unsigned wid, uint32_t v, struct rt_dec *d)
{
	struct rt_op op;
	uint64_t x;

	memset(d, 0, sizeof(*d));
	if (v & RT_INIT_BIT) {
		d->init = v == initial(a, wid);
		return d->init ? NULL : "a value never written there (not its initial value)";
	}
	if (v == 0)
		return "zero, which nothing writes";
	x = (uint64_t)v - 1;
	d->lane = (unsigned)(x % RT_WPL);
	x /= RT_WPL;
	d->g = x / a->nops;
	d->i = x % a->nops;
	if (d->g >= a->warps)
		return "a value never written there (beyond every warp's values)";
	d->known = true;
	rt_gen(a, d->g, d->i, &op);
	if (!op_writes(&op, d->lane, wid))
		return "a value never written there";
	return NULL;
}

static void describe_word(char *buf, size_t n, const struct rt_args *a, unsigned wid)
{
	unsigned line = wid / RT_WPL;
	const char *set = "hot";

	if (line >= RT_HOT + RT_L1SET) {
		set = "L2-set";
		line -= RT_HOT + RT_L1SET;
	} else if (line >= RT_HOT) {
		set = "L1-set";
		line -= RT_HOT;
	}
	snprintf(buf, n, "word %u of %s line %u (%#" PRIx64 ")", wid % RT_WPL, set, line,
		 word_addr(a, wid));
}

/* "the initial value", "warp 3 op 17 lane 5's value (a st32v)" or "0x1234" */
static void describe_value(char *buf, size_t n, const struct rt_args *a, uint32_t v,
			   const struct rt_dec *d)
{
	struct rt_op op;

	if (d->init) {
		snprintf(buf, n, "the initial value");
	} else if (d->known) {
		rt_gen(a, d->g, d->i, &op);
		snprintf(buf, n,
			 "%#" PRIx32 ", warp %" PRIu64 " op %" PRIu64 " lane %u's value (a %s)", v,
			 d->g, d->i, d->lane, rt_kind_names[op.kind]);
	} else {
		snprintf(buf, n, "%#" PRIx32, v);
	}
}

/* ---- the kernel ----------------------------------------------------------------------------- */

struct rt_warp {
	struct gpu_warp *w;
	const struct rt_args *a;
	uint64_t g;
	uint32_t *own;
	uint64_t *floor;
};

/* Records a read out of coherence order; the warp goes on. */
static void order_violation(const struct rt_warp *ws, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void order_violation(const struct rt_warp *ws, const char *fmt, ...)
{
	va_list ap;

	if (ws->a->order->n++)
		return;
	va_start(ap, fmt);
	vsnprintf(ws->a->order->first, sizeof(ws->a->order->first), fmt, ap);
	va_end(ap);
}

/* Checks v, read by op i from data word wid: a value written there by an op already issued
 * (else gw_fail() and -1), not older than the warp's own last write to the word (else an
 * order violation). */
static int check_word(const struct rt_warp *ws, uint64_t i, const char *what, unsigned wid,
		      uint32_t v)
{
	const struct rt_args *a = ws->a;
	uint32_t own = ws->own[wid];
	char why[160], word[96], val[112];
	bool hard = true;
	struct rt_dec d;
	const char *bad = decode(a, wid, v, &d);

	if (bad) {
		snprintf(why, sizeof(why), "%s", bad);
	} else if (!d.init && (d.g == ws->g ? d.i >= i : a->progress[d.g] <= d.i)) {
		snprintf(why, sizeof(why),
			 "from the future: warp %" PRIu64 " had issued only %" PRIu64 " ops", d.g,
			 d.g == ws->g ? i : a->progress[d.g]);
	} else if (own && (d.init || (d.g == ws->g && d.i + 1 < own))) {
		snprintf(why, sizeof(why),
			 "older than the warp's own op %" PRIu32
			 " store to the word (a stale copy)",
			 own - 1);
		hard = false;
	} else {
		return 0;
	}
	describe_word(word, sizeof(word), a, wid);
	describe_value(val, sizeof(val), a, v, &d);
	if (!hard) {
		order_violation(ws, "warp %" PRIu64 " (SM %u) op %" PRIu64 " (%s) read %s = %s: %s",
				ws->g, gw_sm(ws->w), i, what, word, val, why);
		return 0;
	}
	gw_fail(ws->w, "rtest: warp %" PRIu64 " (SM %u) op %" PRIu64 " (%s) read %s = %s: %s",
		ws->g, gw_sm(ws->w), i, what, word, val, why);
	return -1;
}

/* A counter read v (a load, or the old value of an add): at most every add together (else
 * gw_fail() and -1), at least what the warp saw or made last (else an order violation). */
static int check_counter(const struct rt_warp *ws, uint64_t i, const struct rt_op *op, uint32_t v)
{
	const struct rt_args *a = ws->a;
	uint64_t floor = ws->floor[op->counter], top = a->total[op->counter];
	uint64_t amount = op->kind == RT_ADD ? op->amount : 0;

	if (v + amount > top) {
		gw_fail(ws->w,
			"rtest: warp %" PRIu64 " (SM %u) op %" PRIu64
			" (%s) read counter %u = %" PRIu32
			"%s, more than all adds together (%" PRIu64 ")",
			ws->g, gw_sm(ws->w), i, rt_kind_names[op->kind], op->counter, v,
			amount ? " before its add" : "", top);
		return -1;
	}
	if (v < floor)
		order_violation(
		    ws,
		    "warp %" PRIu64 " (SM %u) op %" PRIu64 " (%s) read counter %u = %" PRIu32
		    ", less than %" PRIu64 " it had already seen or made",
		    ws->g, gw_sm(ws->w), i, rt_kind_names[op->kind], op->counter, v, floor);
	return 0;
}

static int do_vector(const struct rt_warp *ws, uint64_t i, const struct rt_op *op)
{
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = word_addr(ws->a, lane_word(op, l));
	if (op->kind == RT_STV) {
		for (unsigned l = 0; l < WARP_LANES; l++) {
			v[l] = written(ws->a, ws->g, i, l);
			if (op->mask >> l & 1)
				ws->own[lane_word(op, l)] = (uint32_t)(i + 1);
		}
		gw_st32v(ws->w, addr, op->mask, v);
		return 0;
	}
	gw_ld32v(ws->w, addr, op->mask, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		if ((op->mask >> l & 1) && check_word(ws, i, "ld32v", lane_word(op, l), v[l]) != 0)
			return -1;
	return 0;
}

/* Performs op i and checks what it read: 0, or -1 after gw_fail(). */
static int do_op(const struct rt_warp *ws, uint64_t i, const struct rt_op *op)
{
	const struct rt_args *a = ws->a;
	struct gpu_warp *w = ws->w;
	uint64_t addr = word_addr(a, op->wid), v64;
	uint32_t v;

	switch (op->kind) {
	case RT_LD32:
		return check_word(ws, i, "ld32", op->wid, gw_ld32(w, addr));
	case RT_LD64:
		v64 = gw_ld64(w, addr);
		if (check_word(ws, i, "ld64", op->wid, (uint32_t)v64) != 0)
			return -1;
		return check_word(ws, i, "ld64", op->wid + 1u, (uint32_t)(v64 >> 32));
	case RT_LDC:
		v = gw_ld32(w, a->counter[op->counter]);
		if (check_counter(ws, i, op, v) != 0)
			return -1;
		if (v > ws->floor[op->counter])
			ws->floor[op->counter] = v;
		return 0;
	case RT_ST32:
		ws->own[op->wid] = (uint32_t)(i + 1);
		gw_st32(w, addr, written(a, ws->g, i, 0));
		return 0;
	case RT_ST64:
		ws->own[op->wid] = ws->own[op->wid + 1] = (uint32_t)(i + 1);
		gw_st64(w, addr, written(a, ws->g, i, 0) | (uint64_t)written(a, ws->g, i, 1) << 32);
		return 0;
	case RT_ADD:
		v = (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->counter[op->counter], 4, op->amount, 0,
				      MEM_SCOPE_DEVICE, op->order);
		if (check_counter(ws, i, op, v) != 0)
			return -1;
		if ((uint64_t)v + op->amount > ws->floor[op->counter])
			ws->floor[op->counter] = (uint64_t)v + op->amount;
		return 0;
	case RT_EXCH:
		v = (uint32_t)gw_atom(w, MEM_ATOM_EXCH, addr, 4, written(a, ws->g, i, 0), 0,
				      MEM_SCOPE_DEVICE, op->order);
		if (check_word(ws, i, "atomic exch", op->wid, v) != 0)
			return -1;
		ws->own[op->wid] = (uint32_t)(i + 1);
		return 0;
	case RT_FENCE:
		gw_fence(w, op->order, MEM_SCOPE_DEVICE);
		return 0;
	default:
		return do_vector(ws, i, op);
	}
}

/* 0..RT_GAP_MAX cycles of compute, and now and then a pause long enough for leases to end. */
static void gap(struct gpu_warp *w)
{
	uint64_t r = gw_rand(w);
	uint64_t cycles = r % (RT_GAP_MAX + 1);

	if ((r >> 16) % RT_PAUSE_ONE_IN == 0)
		cycles += RT_PAUSE_MIN + (r >> 32) % RT_PAUSE_SPAN;
	if (cycles)
		gw_compute(w, cycles);
}

static void rt_kernel(struct gpu_warp *w)
{
	const struct rt_args *a = gw_args(w);
	uint64_t g = gw_gwid(w);
	struct rt_warp ws = {
	    .w = w,
	    .a = a,
	    .g = g,
	    .own = a->own + g * RT_WORDS,
	    .floor = a->floor + g * RT_COUNTERS,
	};
	struct rt_op op;

	for (uint64_t i = 0; i < a->nops; i++) {
		gap(w);
		rt_gen(a, g, i, &op);
		a->progress[g] = i + 1;
		if (do_op(&ws, i, &op) != 0)
			return;
		count_op(&op, &a->count[g]);
	}
}

/* ---- the host ------------------------------------------------------------------------------- */

struct rt_host {
	struct rt_args a;
	struct rt_count *expect; /* per warp, from the replay */
	struct rt_count sum;	 /* of expect */
	uint32_t *last;		 /* warps x RT_WORDS: 1 + op of each warp's last write, or 0 */
	uint32_t *writers;	 /* per data word: warps that write it */
};

/* Replays every op of every warp: the counters' totals, what each warp must count, and the
 * last write of each warp to each word. */
static void replay(struct rt_host *x)
{
	struct rt_args *a = &x->a;
	struct rt_op op;

	for (uint64_t g = 0; g < a->warps; g++) {
		uint32_t *last = x->last + g * RT_WORDS;

		for (uint64_t i = 0; i < a->nops; i++) {
			rt_gen(a, g, i, &op);
			count_op(&op, &x->expect[g]);
			for (unsigned l = 0; l < WARP_LANES; l++) {
				unsigned wid = op.kind == RT_STV ? lane_word(&op, l) : op.wid + l;

				if (op_writes(&op, l, wid))
					last[wid] = (uint32_t)(i + 1);
			}
		}
		for (unsigned wid = 0; wid < RT_WORDS; wid++)
			x->writers[wid] += last[wid] != 0;
		for (unsigned c = 0; c < RT_COUNTERS; c++)
			a->total[c] += x->expect[g].adds[c];
		x->sum.ops += x->expect[g].ops;
		x->sum.loads += x->expect[g].loads;
		x->sum.vloads += x->expect[g].vloads;
		x->sum.stores += x->expect[g].stores;
		x->sum.vstores += x->expect[g].vstores;
		x->sum.atomics += x->expect[g].atomics;
		x->sum.fences += x->expect[g].fences;
		x->sum.checked += x->expect[g].checked;
	}
}

/* Lays out the lines (docs/workloads.md) and writes the initial values. */
static void place(struct gpu_host *h, struct rt_args *a)
{
	uint64_t l2 = gh_alloc(h, (RT_L2SET - 1) * RT_L2_STRIDE + RT_LINE, RT_L2_ALIGN);
	uint64_t l1 = gh_alloc(h, (RT_L1SET + RT_CTR_LINES) * RT_L1_STRIDE, RT_L1_STRIDE);
	uint64_t hot = gh_alloc(h, RT_L1_STRIDE, RT_L1_STRIDE) + RT_HOT_OFFSET;
	uint32_t buf[RT_WPL];

	for (unsigned l = 0; l < RT_HOT; l++)
		a->line[l] = hot + (uint64_t)l * RT_HOT_STRIDE;
	for (unsigned l = 0; l < RT_L1SET; l++)
		a->line[RT_HOT + l] = l1 + l * RT_L1_STRIDE;
	for (unsigned l = 0; l < RT_L2SET; l++)
		a->line[RT_HOT + RT_L1SET + l] = l2 + l * RT_L2_STRIDE;
	/* two counters share a line, the other two share the next one, 5 words apart */
	for (unsigned c = 0; c < RT_COUNTERS; c++)
		a->counter[c] = l1 + (RT_L1SET + c / 2) * RT_L1_STRIDE + 4ull * (c % 2 ? 5 : 0);
	for (unsigned l = 0; l < RT_LINES; l++) {
		for (unsigned j = 0; j < RT_WPL; j++)
			buf[j] = initial(a, l * RT_WPL + j);
		gh_write(h, a->line[l], buf, sizeof(buf));
	}
	memset(buf, 0, sizeof(buf));
	for (unsigned c = 0; c < RT_CTR_LINES; c++)
		gh_write(h, l1 + (RT_L1SET + c) * RT_L1_STRIDE, buf, sizeof(buf));
}

/* Every data word's final value: written there (or initial when nobody writes it), never the
 * initial value when somebody does, and the last write of the warp that wrote it. */
static int check_final(struct gpu_host *h, const struct rt_host *x)
{
	const struct rt_args *a = &x->a;
	uint32_t buf[RT_WPL];
	char word[96], val[112];

	for (unsigned l = 0; l < RT_LINES; l++) {
		gh_read(h, a->line[l], buf, sizeof(buf));
		for (unsigned j = 0; j < RT_WPL; j++) {
			unsigned wid = l * RT_WPL + j;
			struct rt_dec d;
			const char *bad = decode(a, wid, buf[j], &d);
			uint32_t last = d.known ? x->last[d.g * RT_WORDS + wid] : 0;

			describe_word(word, sizeof(word), a, wid);
			describe_value(val, sizeof(val), a, buf[j], &d);
			if (bad)
				return gh_fail(h, "rtest: final %s = %s: %s", word, val, bad);
			if (d.init && x->writers[wid])
				return gh_fail(h,
					       "rtest: final %s = %s although %" PRIu32
					       " warps wrote it (writes lost)",
					       word, val, x->writers[wid]);
			if (!d.init && last != d.i + 1)
				return gh_fail(h,
					       "rtest: final %s = %s, but that warp wrote the word "
					       "again at its op %" PRIu32
					       " (its writes reached the L2 out of program order)",
					       word, val, last - 1);
		}
	}
	return 0;
}

static int check_counts(struct gpu_host *h, const struct rt_host *x)
{
	const struct rt_args *a = &x->a;

	for (uint64_t g = 0; g < a->warps; g++)
		if (memcmp(&a->count[g], &x->expect[g], sizeof(struct rt_count)) != 0)
			return gh_fail(h,
				       "rtest: warp %" PRIu64 " counted %" PRIu64 " ops (%" PRIu64
				       " atomics), the replay %" PRIu64 " (%" PRIu64 ")",
				       g, a->count[g].ops, a->count[g].atomics, x->expect[g].ops,
				       x->expect[g].atomics);
	for (unsigned c = 0; c < RT_COUNTERS; c++) {
		uint32_t got = gh_read32(h, a->counter[c]);
		uint64_t sum = 0;

		for (uint64_t g = 0; g < a->warps; g++)
			sum += a->count[g].adds[c];
		if (got != (uint32_t)sum)
			return gh_fail(h,
				       "rtest: counter %u = %" PRIu32
				       " but the warps added %" PRIu64 " (%" PRId64 " lost)",
				       c, got, sum, (int64_t)sum - got);
	}
	return 0;
}

int rtest_main(struct gpu_host *h)
{
	struct rt_host x = {0};
	struct rt_args *a = &x.a;
	struct rt_order order = {0};
	struct gpu_kernel k = {
	    .name = "rtest", .warps_per_cta = RT_WARPS_PER_CTA, .fn = rt_kernel, .args = a};
	uint64_t ops = wl_by_size(h, 20000, 120000, 2000000);
	int err = -CS_ENOMEM;

	k.ctas = 2 * gh_sms(h);
	if (gh_max_ctas_per_sm(h, &k) == 0)
		return gh_no_fit(h, &k);
	a->warps = (uint64_t)k.ctas * k.warps_per_cta;
	a->nops = (ops + a->warps - 1) / a->warps;
	if (a->warps * a->nops * RT_WPL >= RT_INIT_BIT - RT_WPL)
		return gh_fail(h,
			       "rtest: %" PRIu64 " warps x %" PRIu64
			       " ops do not fit the 31-bit value encoding",
			       a->warps, a->nops);
	a->seed = cs_mix64(gh_seed(h) ^ RT_TAG);
	a->init_base = (uint32_t)cs_mix64(a->seed);
	a->order = &order;
	a->progress = calloc(a->warps, sizeof(*a->progress));
	a->own = calloc(a->warps * RT_WORDS, sizeof(*a->own));
	a->floor = calloc(a->warps * RT_COUNTERS, sizeof(*a->floor));
	a->count = calloc(a->warps, sizeof(*a->count));
	x.expect = calloc(a->warps, sizeof(*x.expect));
	x.last = calloc(a->warps * RT_WORDS, sizeof(*x.last));
	x.writers = calloc(RT_WORDS, sizeof(*x.writers));
	if (!a->progress || !a->own || !a->floor || !a->count || !x.expect || !x.last || !x.writers)
		goto out;
	replay(&x);
	place(h, a);
	err = gh_launch(h, &k);
	if (!err)
		err = check_counts(h, &x);
	if (!err)
		err = check_final(h, &x);
	if (!err && order.n)
		err = gh_fail(h, "rtest: %" PRIu64 " reads out of coherence order, first: %s",
			      order.n, order.first);
	if (err)
		goto out;
	gh_note(h,
		"rtest: %u CTAs x %u warps, %" PRIu64 " ops: %" PRIu64 " loads (%" PRIu64
		" per-lane), %" PRIu64 " stores (%" PRIu64 " per-lane), %" PRIu64
		" atomics, %" PRIu64 " fences",
		k.ctas, k.warps_per_cta, x.sum.ops, x.sum.loads, x.sum.vloads, x.sum.stores,
		x.sum.vstores, x.sum.atomics, x.sum.fences);
	gh_note(h,
		"rtest: %" PRIu64 " loaded words and atomic results, %u counters and %u final "
		"words verified",
		x.sum.checked, RT_COUNTERS, RT_WORDS);
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
