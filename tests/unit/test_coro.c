/*
 * tests/unit/test_coro.c - Check suite "coro": stackful coroutines (tlm/kernel/coro.h).
 *
 * Covers the switch order (one coroutine, 10^4 round-robin, nesting), what must survive a
 * switch (stack contents, callee-saved registers, floating point values and each context's
 * rounding mode), deep stacks, done/no-op semantics, argument checks, freeing unfinished
 * coroutines, and the guard page. Assertions run on the main stack only: a failing
 * ck_assert longjmps (CK_FORK=no), which must never cross coroutine stacks, so coroutines
 * record what they see and the test checks it afterwards.
 */
#include <check.h>
#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tlm/kernel/coro.h"
#include "util/error.h"

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static size_t round_pages(size_t n)
{
	size_t p = page_size();

	return (n + p - 1) / p * p;
}

/* Bounds of the stack a coroutine runs on, from a frame address taken near its top (the
 * first frames use far less than a page) and the size the library reports. */
static void stack_bounds(uintptr_t frame, size_t size, uintptr_t *lo, uintptr_t *top)
{
	uintptr_t p = page_size();

	*top = (frame | (p - 1)) + 1;
	*lo = *top - size;
}

/* ---- one coroutine, exact interleaving -------------------------------------------------- */

#define ORDER_YIELDS 5

struct order_ctx {
	struct sim_coro *self;
	int log[64];
	int n;
};

static void order_fn(void *arg)
{
	struct order_ctx *o = arg;
	int i;

	for (i = 0; i < ORDER_YIELDS; i++) {
		o->log[o->n++] = 100 + i;
		sim_coro_yield(o->self);
	}
	o->log[o->n++] = 199;
}

START_TEST(test_yield_order)
{
	struct order_ctx o = {0};
	int expect[64], n = 0, i;

	ck_assert_int_eq(sim_coro_create(0, order_fn, &o, &o.self), 0);
	ck_assert_ptr_nonnull(o.self);
	for (i = 0; i <= ORDER_YIELDS; i++) {
		ck_assert(!sim_coro_done(o.self));
		o.log[o.n++] = i;
		sim_coro_resume(o.self);
	}
	ck_assert(sim_coro_done(o.self));

	for (i = 0; i < ORDER_YIELDS; i++) {
		expect[n++] = i;
		expect[n++] = 100 + i;
	}
	expect[n++] = ORDER_YIELDS;
	expect[n++] = 199;
	ck_assert_int_eq(o.n, n);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(o.log[i], expect[i]);
	sim_coro_destroy(o.self);
}
END_TEST

/* ---- 10^4 coroutines round-robin ------------------------------------------------------- */

#define RR_COROS  10000
#define RR_YIELDS 10

struct rr_shared {
	int *log;
	size_t n;
};

struct rr_coro {
	struct sim_coro *self;
	struct rr_shared *sh;
	int id;
	int bad; /* a local on this coroutine's stack did not survive */
};

static void rr_fn(void *arg)
{
	struct rr_coro *r = arg;
	volatile int mine = r->id * 7 + 1; /* lives in this coroutine's stack frame */
	int k;

	for (k = 0; k <= RR_YIELDS; k++) {
		r->sh->log[r->sh->n++] = r->id * 16 + k;
		if (mine != r->id * 7 + 1)
			r->bad = 1;
		if (k < RR_YIELDS)
			sim_coro_yield(r->self);
	}
}

START_TEST(test_round_robin)
{
	struct rr_shared sh = {0};
	struct rr_coro *r;
	size_t total = (size_t)RR_COROS * (RR_YIELDS + 1);
	int i, round, early_done = 0, not_done = 0, wrong = 0;

	r = calloc(RR_COROS, sizeof(*r));
	sh.log = calloc(total, sizeof(*sh.log));
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(sh.log);
	for (i = 0; i < RR_COROS; i++) {
		r[i].sh = &sh;
		r[i].id = i;
		ck_assert_int_eq(sim_coro_create(16 * 1024, rr_fn, &r[i], &r[i].self), 0);
		ck_assert_uint_eq(sim_coro_stack_size(r[i].self), round_pages(16 * 1024));
	}
	/* Mismatches are counted, not asserted one by one: each passing ck_assert costs a
	 * message to the parent in CK_FORK mode. */
	for (round = 0; round <= RR_YIELDS; round++) {
		for (i = 0; i < RR_COROS; i++) {
			early_done += sim_coro_done(r[i].self);
			sim_coro_resume(r[i].self);
		}
	}
	ck_assert_int_eq(early_done, 0);
	/* One more round: all done, so nothing may run. */
	for (i = 0; i < RR_COROS; i++) {
		not_done += !sim_coro_done(r[i].self);
		sim_coro_resume(r[i].self);
	}
	ck_assert_int_eq(not_done, 0);
	ck_assert_uint_eq(sh.n, total);
	for (round = 0; round <= RR_YIELDS; round++)
		for (i = 0; i < RR_COROS; i++)
			wrong += sh.log[(size_t)round * RR_COROS + i] != i * 16 + round;
	ck_assert_int_eq(wrong, 0);
	for (i = 0; i < RR_COROS; i++) {
		wrong += r[i].bad;
		sim_coro_destroy(r[i].self);
	}
	ck_assert_int_eq(wrong, 0);
	free(sh.log);
	free(r);
}
END_TEST

/* ---- deep stack ------------------------------------------------------------------------ */

#define DEEP_STACK  (256 * 1024)
#define DEEP_TARGET (200 * 1024) /* bytes of the 256 KiB stack to use */
#define DEEP_FRAME  1024

struct deep_ctx {
	uintptr_t top_frame, min_frame;
	int depth;
	long result;
};

/* A run-time sized alloca stays on the real stack even when ASan moves locals (and
 * constant-size allocas) to a fake stack (detect_stack_use_after_return=1). */
static long deep_rec(struct deep_ctx *d, int n)
{
	volatile size_t frame_bytes = DEEP_FRAME;
	volatile unsigned char *buf = __builtin_alloca(frame_bytes);
	uintptr_t fa = (uintptr_t)__builtin_frame_address(0);
	long sum = 0;
	size_t i;

	if (fa < d->min_frame)
		d->min_frame = fa;
	for (i = 0; i < DEEP_FRAME; i++)
		buf[i] = (unsigned char)(n + i);
	if (n > 0)
		sum = deep_rec(d, n - 1);
	for (i = 0; i < DEEP_FRAME; i += 64)
		sum += buf[i];
	return sum;
}

/* Frame sizes differ between -O0, -O2 and sanitizer builds by 20 %, so the depth that uses
 * DEEP_TARGET bytes is measured first with two short probes. */
static void deep_fn(void *arg)
{
	struct deep_ctx *d = arg;
	uintptr_t one, many;

	d->top_frame = (uintptr_t)__builtin_frame_address(0);
	d->min_frame = d->top_frame;
	deep_rec(d, 0);
	one = d->min_frame;
	deep_rec(d, 16);
	many = d->min_frame;
	d->depth = (int)((DEEP_TARGET - (d->top_frame - one)) / ((one - many) / 16));
	d->min_frame = d->top_frame;
	d->result = deep_rec(d, d->depth);
}

START_TEST(test_deep_stack)
{
	struct deep_ctx d = {0};
	struct sim_coro *c;
	long expect = 0;
	size_t used;
	int n, i;

	ck_assert_int_eq(sim_coro_create(DEEP_STACK, deep_fn, &d, &c), 0);
	ck_assert_uint_eq(sim_coro_stack_size(c), round_pages(DEEP_STACK));
	sim_coro_resume(c);
	ck_assert(sim_coro_done(c));
	ck_assert_int_gt(d.depth, 100);
	for (n = 0; n <= d.depth; n++)
		for (i = 0; i < DEEP_FRAME; i += 64)
			expect += (unsigned char)(n + i);
	ck_assert_int_eq(d.result, expect);
	used = d.top_frame - d.min_frame;
	ck_assert_msg(used >= DEEP_TARGET - 8 * 1024 && used < DEEP_STACK,
		      "used %zu bytes of stack", used);
	if (getenv("CORO_TEST_SHOW"))
		fprintf(stderr, "deep stack: depth %d, %zu bytes used\n", d.depth, used);
	sim_coro_destroy(c);
}
END_TEST

/* ---- nesting --------------------------------------------------------------------------- */

struct nest_ctx {
	struct sim_coro *a, *b;
	char log[128];
};

static void nest_log(struct nest_ctx *x, const char *tok)
{
	strcat(x->log, tok);
}

static void nest_b(void *arg)
{
	struct nest_ctx *x = arg;

	nest_log(x, "B1 ");
	sim_coro_yield(x->b);
	nest_log(x, "B2 ");
	sim_coro_yield(x->b);
	nest_log(x, "B3 ");
}

static void nest_a(void *arg)
{
	struct nest_ctx *x = arg;

	nest_log(x, "A1 ");
	sim_coro_resume(x->b); /* B yields back here, not to main */
	nest_log(x, "A2 ");
	sim_coro_yield(x->a);
	nest_log(x, "A3 ");
	sim_coro_resume(x->b); /* B is done by now: no-op */
	nest_log(x, "A4 ");
}

START_TEST(test_nesting)
{
	struct nest_ctx x = {0};

	ck_assert_int_eq(sim_coro_create(0, nest_a, &x, &x.a), 0);
	ck_assert_int_eq(sim_coro_create(0, nest_b, &x, &x.b), 0);
	/* B is resumed by main, then by A, then by main again: the resumer changes. */
	nest_log(&x, "M1 ");
	sim_coro_resume(x.b);
	nest_log(&x, "M2 ");
	sim_coro_resume(x.a);
	nest_log(&x, "M3 ");
	sim_coro_resume(x.b);
	ck_assert(sim_coro_done(x.b));
	ck_assert(!sim_coro_done(x.a));
	nest_log(&x, "M4 ");
	sim_coro_resume(x.a);
	nest_log(&x, "M5");
	ck_assert(sim_coro_done(x.a));
	ck_assert_str_eq(x.log, "M1 B1 M2 A1 B2 A2 M3 B3 M4 A3 A4 M5");
	sim_coro_destroy(x.a);
	sim_coro_destroy(x.b);
}
END_TEST

/* A chain: coroutine k resumes k+1 and logs on the way in and out, twice each. */
#define CHAIN 16

struct chain_ctx {
	struct sim_coro *c[CHAIN];
	int level[CHAIN];
	int log[4 * CHAIN + 8];
	int n;
};

struct chain_arg {
	struct chain_ctx *x;
	int k;
};

static void chain_fn(void *arg)
{
	struct chain_arg *a = arg;
	struct chain_ctx *x = a->x;
	int k = a->k, pass;

	for (pass = 0; pass < 2; pass++) {
		x->log[x->n++] = k;
		if (k + 1 < CHAIN)
			sim_coro_resume(x->c[k + 1]);
		x->log[x->n++] = -k - 1;
		if (pass == 0)
			sim_coro_yield(x->c[k]);
	}
}

START_TEST(test_nesting_chain)
{
	struct chain_ctx x = {0};
	struct chain_arg args[CHAIN];
	int k, pass, n = 0;

	for (k = 0; k < CHAIN; k++) {
		args[k].x = &x;
		args[k].k = k;
		ck_assert_int_eq(sim_coro_create(0, chain_fn, &args[k], &x.c[k]), 0);
	}
	sim_coro_resume(x.c[0]);
	sim_coro_resume(x.c[0]);
	for (k = 0; k < CHAIN; k++)
		ck_assert(sim_coro_done(x.c[k]));
	/* Each pass goes down the chain (0..15) and back up (-16..-1). */
	ck_assert_int_eq(x.n, 4 * CHAIN);
	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < CHAIN; k++)
			ck_assert_int_eq(x.log[n++], k);
		for (k = CHAIN - 1; k >= 0; k--)
			ck_assert_int_eq(x.log[n++], -k - 1);
	}
	for (k = 0; k < CHAIN; k++)
		sim_coro_destroy(x.c[k]);
}
END_TEST

/* ---- registers and floating point survive switches ------------------------------------- */

#define REG_STEPS 200

struct reg_ctx {
	struct sim_coro *self; /* NULL: run without coroutines (the reference) */
	uint64_t out_int;
	double out_fp;
};

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 29;
	return x;
}

/* Eight integers and two doubles are live across every yield: more than the callee-saved
 * registers, so both register restore and spill slots on the coroutine stack are exercised. */
static void reg_work(struct reg_ctx *r)
{
	uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
	volatile uint64_t va = 11, vb = 13, vc = 17;
	volatile double vacc = 0.25;
	double acc = 0.5, acc2 = 1.0;
	int i;

	for (i = 0; i < REG_STEPS; i++) {
		a = mix(a + h);
		b = mix(b ^ a);
		c += b * 3;
		d = mix(d + c);
		e ^= d;
		f = mix(f + e);
		g += f;
		h = mix(h ^ g);
		acc = acc * 1.0000001 + (double)(a & 0xffff) / 3.0;
		acc2 = acc2 * 0.999 + acc / 7.0;
		va = va + a;
		vb = vb ^ h;
		vc = vc * 3 + e;
		vacc = vacc + acc2 / 11.0;
		if (r->self)
			sim_coro_yield(r->self);
	}
	r->out_int = a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ va ^ vb ^ vc;
	r->out_fp = acc + acc2 + vacc;
}

static void reg_fn(void *arg)
{
	reg_work(arg);
}

/* The resumer keeps its own values live across resume() while the coroutine churns. */
static uint64_t resumer_work(struct sim_coro *c, double *fp_out)
{
	uint64_t p = 21, q = 22, s = 23, t = 24, u = 25, v = 26;
	double x = 0.125;
	int i;

	for (i = 0; i < REG_STEPS + 1; i++) {
		p = mix(p + v);
		q = mix(q ^ p);
		s += q;
		t = mix(t + s);
		u ^= t;
		v = mix(v + u);
		x = x * 0.5 + (double)(p & 0xfff) / 5.0;
		if (c)
			sim_coro_resume(c);
	}
	*fp_out = x;
	return p ^ q ^ s ^ t ^ u ^ v;
}

START_TEST(test_registers_fp)
{
	struct reg_ctx ref = {0}, co = {0};
	uint64_t main_ref, main_co;
	double main_ref_fp, main_co_fp;

	reg_work(&ref);
	main_ref = resumer_work(NULL, &main_ref_fp);

	ck_assert_int_eq(sim_coro_create(0, reg_fn, &co, &co.self), 0);
	main_co = resumer_work(co.self, &main_co_fp);
	ck_assert(sim_coro_done(co.self));
	ck_assert_uint_eq(co.out_int, ref.out_int);
	ck_assert(co.out_fp == ref.out_fp); /* same operations in the same order: bit-exact */
	ck_assert_uint_eq(main_co, main_ref);
	ck_assert(main_co_fp == main_ref_fp);
	sim_coro_destroy(co.self);
}
END_TEST

/* Each context keeps its own rounding mode: on x86-64 both the x87 control word (read by
 * fegetround) and MXCSR (used by SSE arithmetic) are callee-saved and must be switched.
 * valgrind computes SSE in round-to-nearest whatever MXCSR says, so the arithmetic result is
 * compared with one computed in the same mode outside the coroutine, and MXCSR is also read
 * directly. */
struct fenv_ctx {
	struct sim_coro *self;
	int round_seen, sse_seen;
	double third_seen;
};

static double third(void)
{
	volatile double one = 1.0, three = 3.0;
	volatile double r = one / three;

	return r;
}

/* The SSE rounding mode as an FE_* value. */
static int sse_rounding(void)
{
#if defined(__x86_64__)
	unsigned int mxcsr;

	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	return (int)((mxcsr >> 3) & 0xc00); /* MXCSR.RC sits 3 bits above the x87 RC field */
#else
	return fegetround();
#endif
}

static void fenv_fn(void *arg)
{
	struct fenv_ctx *f = arg;

	fesetround(FE_UPWARD);
	sim_coro_yield(f->self);
	f->round_seen = fegetround();
	f->sse_seen = sse_rounding();
	f->third_seen = third();
}

START_TEST(test_rounding_mode)
{
	struct fenv_ctx f = {0};
	double nearest, up;

	ck_assert_int_eq(fesetround(FE_UPWARD), 0);
	up = third();
	ck_assert_int_eq(fesetround(FE_TONEAREST), 0);
	nearest = third();

	ck_assert_int_eq(sim_coro_create(0, fenv_fn, &f, &f.self), 0);
	sim_coro_resume(f.self); /* the coroutine switches to FE_UPWARD and yields */
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
	ck_assert_int_eq(sse_rounding(), FE_TONEAREST);
	ck_assert(third() == nearest);
	ck_assert_int_eq(fesetround(FE_DOWNWARD), 0);
	sim_coro_resume(f.self);
	ck_assert_int_eq(fegetround(), FE_DOWNWARD);
	ck_assert_int_eq(sse_rounding(), FE_DOWNWARD);
	fesetround(FE_TONEAREST);
	ck_assert(sim_coro_done(f.self));
	ck_assert_int_eq(f.round_seen, FE_UPWARD);
	ck_assert_int_eq(f.sse_seen, FE_UPWARD);
	ck_assert(f.third_seen == up);
	sim_coro_destroy(f.self);
}
END_TEST

/* ---- done state, no-op resume, arguments ----------------------------------------------- */

static void count_fn(void *arg)
{
	++*(int *)arg;
}

START_TEST(test_done_noop)
{
	struct sim_coro *c = (struct sim_coro *)&c; /* non-NULL garbage: must be reset */
	int runs = 0;

	ck_assert_int_eq(sim_coro_create(0, NULL, NULL, &c), -CS_EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(sim_coro_create(0, count_fn, &runs, NULL), -CS_EINVAL);

	ck_assert_int_eq(sim_coro_create(0, count_fn, &runs, &c), 0);
	ck_assert(!sim_coro_done(c));
	ck_assert_int_eq(runs, 0); /* nothing runs before the first resume */
	sim_coro_resume(c);
	ck_assert(sim_coro_done(c));
	ck_assert_int_eq(runs, 1);
	sim_coro_resume(c);
	sim_coro_resume(c);
	ck_assert(sim_coro_done(c));
	ck_assert_int_eq(runs, 1);
	sim_coro_destroy(c);
	sim_coro_destroy(NULL);
}
END_TEST

START_TEST(test_stack_size_and_backend)
{
	static const size_t asked[] = {0, 1, 16 * 1024, 16 * 1024 + 1, 100000, 1 << 20};
	const char *expect;
	struct sim_coro *c;
	size_t i, want;

	for (i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		ck_assert_int_eq(sim_coro_create(asked[i], count_fn, NULL, &c), 0);
		want = round_pages(asked[i] < 16 * 1024 ? 16 * 1024 : asked[i]);
		ck_assert_uint_eq(sim_coro_stack_size(c), want);
		sim_coro_destroy(c); /* never started */
	}
	ck_assert_int_eq(sim_coro_create(SIZE_MAX, count_fn, NULL, &c), -CS_EINVAL);
	ck_assert_ptr_null(c);

#if defined(COHSCOPE_UCONTEXT) && COHSCOPE_UCONTEXT
	expect = "ucontext";
#elif defined(__x86_64__) && !defined(__ILP32__)
	expect = "x86-64 asm";
#elif defined(__aarch64__) && !defined(__ILP32__)
	expect = "aarch64 asm";
#else
	expect = "ucontext";
#endif
	ck_assert_str_eq(sim_coro_backend(), expect);
}
END_TEST

/* ---- destroying unfinished coroutines -------------------------------------------------- */

struct forever_ctx {
	struct sim_coro *self;
	uintptr_t frame;
	int steps;
};

static void forever_fn(void *arg)
{
	struct forever_ctx *f = arg;

	f->frame = (uintptr_t)__builtin_frame_address(0);
	for (;;) {
		f->steps++;
		sim_coro_yield(f->self);
	}
}

/* mincore fails with ENOMEM on an address that is not mapped (and, unlike msync, valgrind
 * does not take its argument for a buffer to check). */
static int page_mapped(uintptr_t addr)
{
	void *pg = (void *)(addr & ~(uintptr_t)(page_size() - 1));
	unsigned char vec;

	if (mincore(pg, page_size(), &vec) == 0)
		return 1;
	return errno == ENOMEM ? 0 : -1;
}

START_TEST(test_destroy_unfinished)
{
	struct forever_ctx f;
	int i, k;

	for (i = 0; i < 64; i++) {
		memset(&f, 0, sizeof(f));
		ck_assert_int_eq(sim_coro_create(32 * 1024, forever_fn, &f, &f.self), 0);
		for (k = 0; k < i % 4; k++)
			sim_coro_resume(f.self);
		ck_assert_int_eq(f.steps, i % 4);
		ck_assert(!sim_coro_done(f.self));
		if (f.frame)
			ck_assert_int_eq(page_mapped(f.frame), 1);
		sim_coro_destroy(f.self);
		/* Nothing has been mapped since, so the stack's address must be gone. */
		if (f.frame)
			ck_assert_int_eq(page_mapped(f.frame), 0);
	}
}
END_TEST

/* ---- guard page ------------------------------------------------------------------------ */

struct guard_ctx {
	struct sim_coro *self;
	uintptr_t frame;
	int touch; /* write one byte below the stack */
	size_t size;
};

static void guard_fn(void *arg)
{
	struct guard_ctx *g = arg;
	uintptr_t lo, top;

	g->frame = (uintptr_t)__builtin_frame_address(0);
	if (g->touch) {
		stack_bounds(g->frame, g->size, &lo, &top);
		*(volatile char *)(lo - 1) = 1; /* must fault */
	}
	sim_coro_yield(g->self);
}

/* Permissions ("rw-p", "---p") of the mapping that holds addr, from /proc/self/maps. */
static int maps_perms(uintptr_t addr, char perms[5])
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		char p[5];

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi, p) != 3)
			continue;
		if (addr >= lo && addr < hi) {
			memcpy(perms, p, 5);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

START_TEST(test_guard_page_maps)
{
	struct guard_ctx g = {0};
	uintptr_t lo, top;
	char perms[5];

	g.size = round_pages(64 * 1024);
	ck_assert_int_eq(sim_coro_create(64 * 1024, guard_fn, &g, &g.self), 0);
	ck_assert_uint_eq(sim_coro_stack_size(g.self), g.size);
	sim_coro_resume(g.self);
	stack_bounds(g.frame, g.size, &lo, &top);
	ck_assert_msg(maps_perms(lo, perms), "stack bottom not in /proc/self/maps");
	ck_assert_str_eq(perms, "rw-p");
	ck_assert(maps_perms(top - 1, perms));
	ck_assert_str_eq(perms, "rw-p");
	ck_assert_msg(maps_perms(lo - 1, perms), "no mapping below the stack");
	ck_assert_str_eq(perms, "---p");
	ck_assert(maps_perms(lo - page_size(), perms));
	ck_assert_str_eq(perms, "---p");
	sim_coro_resume(g.self);
	ck_assert(sim_coro_done(g.self));
	sim_coro_destroy(g.self);
}
END_TEST

/* Runs in a forked child only (see main). SIG_DFL first: under ASan its own SEGV handler
 * would otherwise report and exit(1) instead of dying by the signal. */
START_TEST(test_guard_page_faults)
{
	struct guard_ctx g = {0};

	signal(SIGSEGV, SIG_DFL);
	g.touch = 1;
	g.size = round_pages(16 * 1024);
	ck_assert_int_eq(sim_coro_create(16 * 1024, guard_fn, &g, &g.self), 0);
	sim_coro_resume(g.self);
	/* Reaching here means the write below the stack succeeded: the raise_signal test fails. */
	sim_coro_destroy(g.self);
}
END_TEST

/* ---- suite ----------------------------------------------------------------------------- */

static Suite *coro_suite(void)
{
	Suite *s = suite_create("coro");
	TCase *tc;

	tc = tcase_create("switch");
	tcase_add_test(tc, test_yield_order);
	tcase_add_test(tc, test_nesting);
	tcase_add_test(tc, test_nesting_chain);
	tcase_add_test(tc, test_registers_fp);
	tcase_add_test(tc, test_rounding_mode);
	tcase_add_test(tc, test_done_noop);
	tcase_add_test(tc, test_stack_size_and_backend);
	suite_add_tcase(s, tc);

	tc = tcase_create("stacks");
	tcase_set_timeout(tc, 120); /* 10^4 stacks under valgrind/ASan */
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_deep_stack);
	tcase_add_test(tc, test_destroy_unfinished);
	tcase_add_test(tc, test_guard_page_maps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	Suite *s = coro_suite();
	SRunner *sr = srunner_create(s);
	int failed;

	/* The fault test kills its process: only where each test runs in its own child. */
	if (srunner_fork_status(sr) == CK_FORK) {
		TCase *tc = tcase_create("guard_fault");

		tcase_add_test_raise_signal(tc, test_guard_page_faults, SIGSEGV);
		suite_add_tcase(s, tc);
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
