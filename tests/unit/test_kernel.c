/*
 * tests/unit/test_kernel.c - the scheduler (tlm/kernel/sim.c, evq.c) and clock domains.
 *
 * Phase order (immediate / delta / timed), update-phase isolation, cancellation, the
 * one-pending-notification rule, same-time tie-break, run_until boundaries, threads and
 * dynamic sensitivity, exact clock conversion, and the wheel checked against the heap oracle
 * over 10^6 random schedule/cancel operations.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/kernel/evq.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "util/error.h"
#include "util/mix.h"

/* ---- a log of what ran, when, in which delta cycle ------------------------------------------ */

struct entry {
	int id;
	sim_time_t t;
	uint64_t delta;
};

struct log {
	struct entry e[256];
	int n;
	struct sim_kernel *k;
};

static void log_add(struct log *l, int id)
{
	ck_assert_int_lt(l->n, 256);
	l->e[l->n].id = id;
	l->e[l->n].t = sim_now(l->k);
	l->e[l->n].delta = sim_kernel_stats(l->k)->delta_cycles;
	l->n++;
}

static struct sim_kernel *new_kernel(enum sim_queue_kind q)
{
	struct sim_kernel_opts o = {.queue = q};
	struct sim_kernel *k;

	ck_assert_int_eq(sim_kernel_create(&o, &k), 0);
	return k;
}

/* ---- immediate vs delta vs timed --------------------------------------------------------------- */

struct order_ctx {
	struct log log;
	struct sim_event *e_imm, *e_delta, *e_timed;
	int fired;
};

static void order_driver(struct sim_kernel *k, void *c)
{
	struct order_ctx *o = c;

	(void)k;
	if (o->fired++)
		return;
	log_add(&o->log, 0);
	sim_event_notify_delayed(o->e_timed, 5 * SIM_NS);
	sim_event_notify_delayed(o->e_delta, 0);
	sim_event_notify(o->e_imm);
}

static void order_imm(struct sim_kernel *k, void *c)
{
	(void)k;
	log_add(&((struct order_ctx *)c)->log, 1);
}

static void order_delta(struct sim_kernel *k, void *c)
{
	(void)k;
	log_add(&((struct order_ctx *)c)->log, 2);
}

static void order_timed(struct sim_kernel *k, void *c)
{
	(void)k;
	log_add(&((struct order_ctx *)c)->log, 3);
}

START_TEST(test_notify_order)
{
	struct sim_kernel *k = new_kernel(_i);
	struct order_ctx o = {0};
	struct sim_process *p;

	o.log.k = k;
	o.e_imm = sim_event_create(k, "imm");
	o.e_delta = sim_event_create(k, "delta");
	o.e_timed = sim_event_create(k, "timed");
	sim_method_create(k, "driver", order_driver, &o);
	p = sim_method_create(k, "imm", order_imm, &o);
	sim_sensitive(p, o.e_imm);
	sim_dont_initialize(p);
	p = sim_method_create(k, "delta", order_delta, &o);
	sim_sensitive(p, o.e_delta);
	sim_dont_initialize(p);
	p = sim_method_create(k, "timed", order_timed, &o);
	sim_sensitive(p, o.e_timed);
	sim_dont_initialize(p);

	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(o.log.n, 4);
	/* driver, then the immediate one in the same evaluation phase */
	ck_assert_int_eq(o.log.e[0].id, 0);
	ck_assert_int_eq(o.log.e[1].id, 1);
	ck_assert_uint_eq(o.log.e[1].delta, o.log.e[0].delta);
	ck_assert_uint_eq(o.log.e[1].t, 0);
	/* the delta one in the next delta cycle, same time */
	ck_assert_int_eq(o.log.e[2].id, 2);
	ck_assert_uint_eq(o.log.e[2].delta, o.log.e[0].delta + 1);
	ck_assert_uint_eq(o.log.e[2].t, 0);
	/* the timed one at 5 ns */
	ck_assert_int_eq(o.log.e[3].id, 3);
	ck_assert_uint_eq(o.log.e[3].t, 5 * SIM_NS);
	ck_assert_uint_eq(sim_now(k), 5 * SIM_NS);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- update phase isolation ------------------------------------------------------------------ */

/* A signal: writers set next and request an update; readers see cur until the update phase. */
struct signal {
	struct sim_channel ch;
	int cur, next;
	struct sim_event *changed;
};

static void signal_update(struct sim_kernel *k, void *obj)
{
	struct signal *s = obj;

	(void)k;
	if (s->cur != s->next) {
		s->cur = s->next;
		sim_event_notify_delayed(s->changed, 0);
	}
}

struct iso_ctx {
	struct signal sig;
	int seen_in_first_delta;
	int seen_after;
	int reader_runs;
};

static void iso_writer(struct sim_kernel *k, void *c)
{
	struct iso_ctx *x = c;

	x->sig.next = 42;
	sim_request_update(k, &x->sig.ch);
}

static void iso_reader(struct sim_kernel *k, void *c)
{
	struct iso_ctx *x = c;

	(void)k;
	if (x->reader_runs++ == 0)
		x->seen_in_first_delta = x->sig.cur;
	else
		x->seen_after = x->sig.cur;
}

START_TEST(test_update_isolation)
{
	/* _i selects creation order: the reader must see the old value either way. */
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);
	struct iso_ctx x = {0};
	struct sim_process *r;

	sim_channel_init(&x.sig.ch, signal_update, &x.sig);
	x.sig.changed = sim_event_create(k, "changed");
	if (_i == 0) {
		sim_method_create(k, "writer", iso_writer, &x);
		r = sim_method_create(k, "reader", iso_reader, &x);
	} else {
		r = sim_method_create(k, "reader", iso_reader, &x);
		sim_method_create(k, "writer", iso_writer, &x);
	}
	sim_sensitive(r, x.sig.changed);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(x.reader_runs, 2);
	ck_assert_int_eq(x.seen_in_first_delta, 0);
	ck_assert_int_eq(x.seen_after, 42);
	ck_assert_uint_eq(sim_kernel_stats(k)->updates, 1);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- cancellation ------------------------------------------------------------------------------ */

static void count_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)arg;
	(*(int *)obj)++;
}

static void count_method(struct sim_kernel *k, void *ctx)
{
	(void)k;
	(*(int *)ctx)++;
}

START_TEST(test_cancel)
{
	struct sim_kernel *k = new_kernel(_i);
	int calls = 0, method_runs = 0;
	struct sim_handle h1, h2, h3;
	struct sim_event *e = sim_event_create(k, "e");
	struct sim_process *p = sim_method_create(k, "m", count_method, &method_runs);

	sim_sensitive(p, e);
	sim_dont_initialize(p);
	h1 = sim_schedule(k, 10 * SIM_NS, count_cb, &calls, NULL);
	h2 = sim_schedule(k, 20 * SIM_NS, count_cb, &calls, NULL);
	h3 = sim_schedule(k, 0, count_cb, &calls, NULL); /* delta */
	sim_event_notify_delayed(e, 30 * SIM_NS);
	ck_assert(sim_cancel(k, h2));
	ck_assert(!sim_cancel(k, h2)); /* already cancelled */
	ck_assert(sim_cancel(k, h3));
	sim_event_cancel(e);
	ck_assert_uint_eq(sim_event_pending_time(e), SIM_TIME_MAX);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(method_runs, 0);
	/* Cancelled items do not advance time: the last live item was at 10 ns. */
	ck_assert_uint_eq(sim_now(k), 10 * SIM_NS);
	ck_assert(!sim_cancel(k, h1)); /* fired: stale handle */
	ck_assert_uint_eq(sim_kernel_stats(k)->cancelled, 3);
	sim_kernel_destroy(k);
}
END_TEST

/* At most one pending notification; the earlier one wins. */
START_TEST(test_notify_override)
{
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);
	struct sim_event *e = sim_event_create(k, "e");
	struct sim_process *p;

	/* later then earlier: fires once, at the earlier time */
	{
		int runs = 0;

		p = sim_method_create(k, "m", count_method, &runs);
		sim_sensitive(p, e);
		sim_dont_initialize(p);
		sim_event_notify_delayed(e, 10 * SIM_NS);
		sim_event_notify_delayed(e, 5 * SIM_NS);
		ck_assert_uint_eq(sim_event_pending_time(e), 5 * SIM_NS);
		sim_event_notify_delayed(e, 7 * SIM_NS); /* later: discarded */
		ck_assert_uint_eq(sim_event_pending_time(e), 5 * SIM_NS);
		ck_assert_int_eq(sim_run(k), 0);
		ck_assert_int_eq(runs, 1);
		ck_assert_uint_eq(sim_now(k), 5 * SIM_NS);
		/* timed then delta: delta wins, the timed one is dropped */
		sim_event_notify_delayed(e, 3 * SIM_NS);
		sim_event_notify_delayed(e, 0);
		sim_event_notify_delayed(e, 1 * SIM_NS); /* delta pending: discarded */
		ck_assert_int_eq(sim_run(k), 0);
		ck_assert_int_eq(runs, 2);
		ck_assert_uint_eq(sim_now(k), 5 * SIM_NS);
	}
	sim_kernel_destroy(k);
}
END_TEST

/* ---- same-time tie-break --------------------------------------------------------------------- */

static void log_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	log_add(obj, (int)(intptr_t)arg);
}

START_TEST(test_tie_break)
{
	struct sim_kernel *k = new_kernel(_i);
	struct log l = {.k = k};
	static const int expect[] = {10, 11, 20, 21, 22, 30, 40};

	sim_schedule_prio(k, 5 * SIM_NS, 300, log_cb, &l, (void *)30);
	sim_schedule_prio(k, 5 * SIM_NS, 200, log_cb, &l, (void *)20);
	sim_schedule_prio(k, 5 * SIM_NS, 100, log_cb, &l, (void *)10);
	sim_schedule_prio(k, 5 * SIM_NS, 200, log_cb, &l, (void *)21);
	sim_schedule_prio(k, 5 * SIM_NS + 1, 0, log_cb, &l, (void *)40); /* 1 ps later */
	sim_schedule_prio(k, 5 * SIM_NS, 100, log_cb, &l, (void *)11);
	sim_schedule_prio(k, 5 * SIM_NS, 200, log_cb, &l, (void *)22);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(l.n, 7);
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(l.e[i].id, expect[i]);
	ck_assert_uint_eq(l.e[5].t, 5 * SIM_NS);
	ck_assert_uint_eq(l.e[6].t, 5 * SIM_NS + 1);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- run_until ----------------------------------------------------------------------------------- */

START_TEST(test_run_until)
{
	struct sim_kernel *k = new_kernel(_i);
	struct log l = {.k = k};

	sim_schedule(k, 10 * SIM_NS, log_cb, &l, (void *)1);
	sim_schedule(k, 10 * SIM_NS + 1, log_cb, &l, (void *)2);
	sim_schedule(k, 5 * SIM_US, log_cb, &l, (void *)3); /* beyond the wheel horizon */

	ck_assert_int_eq(sim_run_until(k, 10 * SIM_NS), 0); /* inclusive of the end time */
	ck_assert_int_eq(l.n, 1);
	ck_assert_uint_eq(sim_now(k), 10 * SIM_NS);
	ck_assert_uint_eq(sim_next_time(k), 10 * SIM_NS + 1);

	ck_assert_int_eq(sim_run_until(k, 4 * SIM_US), 0); /* nothing at the end: now = end */
	ck_assert_int_eq(l.n, 2);
	ck_assert_uint_eq(sim_now(k), 4 * SIM_US);
	ck_assert_int_eq(sim_run_until(k, 1 * SIM_US), -CS_EINVAL); /* backwards */

	/* scheduling after a run_until that stopped short of the next item */
	sim_schedule(k, 1 * SIM_NS, log_cb, &l, (void *)4);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(l.n, 4);
	ck_assert_int_eq(l.e[2].id, 4);
	ck_assert_uint_eq(l.e[2].t, 4 * SIM_US + 1 * SIM_NS);
	ck_assert_int_eq(l.e[3].id, 3);
	ck_assert_uint_eq(l.e[3].t, 5 * SIM_US);
	ck_assert(!sim_pending(k));
	/* starvation with run_until still advances to the end time */
	ck_assert_int_eq(sim_run_until(k, 7 * SIM_US), 0);
	ck_assert_uint_eq(sim_now(k), 7 * SIM_US);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- stop and fail ------------------------------------------------------------------------------ */

static void stop_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)arg;
	(*(int *)obj)++;
	sim_stop(k);
}

static void fail_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)obj;
	(void)arg;
	sim_fail(k, -CS_ECHECK, "value %d is wrong", 7);
}

START_TEST(test_stop_and_fail)
{
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);
	int stops = 0, calls = 0;

	sim_schedule(k, 1 * SIM_NS, stop_cb, &stops, NULL);
	sim_schedule(k, 1 * SIM_NS, count_cb, &calls, NULL); /* same delta: still runs */
	sim_schedule(k, 2 * SIM_NS, count_cb, &calls, NULL);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(stops, 1);
	ck_assert_int_eq(calls, 1);
	ck_assert_uint_eq(sim_now(k), 1 * SIM_NS);
	ck_assert_int_eq(sim_run(k), 0); /* resumes */
	ck_assert_int_eq(calls, 2);

	sim_schedule(k, 1 * SIM_NS, fail_cb, NULL, NULL);
	sim_schedule(k, 2 * SIM_NS, count_cb, &calls, NULL);
	ck_assert_int_eq(sim_run(k), -CS_ECHECK);
	ck_assert_str_eq(sim_failure(k), "value 7 is wrong");
	ck_assert_int_eq(calls, 2);
	ck_assert_int_eq(sim_run(k), -CS_ECHECK); /* failure is final */
	/* scheduling in the past is a model error */
	sim_kernel_destroy(k);

	k = new_kernel(SIM_QUEUE_WHEEL);
	sim_run_until(k, 10 * SIM_NS);
	sim_schedule_at(k, 5 * SIM_NS, SIM_PRIO_DEFAULT, count_cb, &calls, NULL);
	ck_assert_int_eq(sim_run(k), -CS_EINVAL);
	ck_assert_ptr_nonnull(strstr(sim_failure(k), "in the past"));
	sim_kernel_destroy(k);
}
END_TEST

/* ---- threads and dynamic sensitivity --------------------------------------------------------- */

struct thr_ctx {
	struct log log;
	struct sim_event *go, *never;
	bool r1, r2;
};

static void thr_waiter(struct sim_kernel *k, void *c)
{
	struct thr_ctx *x = c;

	log_add(&x->log, 1);
	sim_wait_time(k, 3 * SIM_NS);
	log_add(&x->log, 2);
	sim_wait_event(k, x->go);
	log_add(&x->log, 3);
	x->r1 = sim_wait_event_timeout(k, x->never, 4 * SIM_NS); /* times out */
	log_add(&x->log, 4);
	x->r2 = sim_wait_event_timeout(k, x->go, 100 * SIM_NS); /* event at 20 ns wins */
	log_add(&x->log, 5);
}

static void thr_notifier(struct sim_kernel *k, void *c)
{
	struct thr_ctx *x = c;

	sim_wait_time(k, 10 * SIM_NS);
	sim_event_notify(x->go);
	sim_wait_time(k, 10 * SIM_NS);
	sim_event_notify_delayed(x->go, 0);
}

START_TEST(test_threads)
{
	struct sim_kernel *k = new_kernel(_i);
	struct thr_ctx x = {.log.k = k};
	struct sim_process *w;

	x.go = sim_event_create(k, "go");
	x.never = sim_event_create(k, "never");
	w = sim_thread_create(k, "waiter", thr_waiter, &x, 0);
	sim_thread_create(k, "notifier", thr_notifier, &x, 0);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(x.log.n, 5);
	ck_assert_uint_eq(x.log.e[0].t, 0);
	ck_assert_uint_eq(x.log.e[1].t, 3 * SIM_NS);
	ck_assert_uint_eq(x.log.e[2].t, 10 * SIM_NS);
	ck_assert_uint_eq(x.log.e[3].t, 14 * SIM_NS);
	ck_assert(!x.r1);
	ck_assert_uint_eq(x.log.e[4].t, 20 * SIM_NS);
	ck_assert(x.r2);
	ck_assert(sim_process_terminated(w));
	/* The 100 ns timeout was cancelled: the run ends at 20 ns, not 114 ns. */
	ck_assert_uint_eq(sim_now(k), 20 * SIM_NS);
	sim_kernel_destroy(k);
}
END_TEST

struct trig_ctx {
	struct log log;
	struct sim_event *stat, *dyn;
	int runs;
};

static void trig_method(struct sim_kernel *k, void *c)
{
	struct trig_ctx *x = c;

	log_add(&x->log, x->runs);
	switch (x->runs++) {
	case 0:
		sim_next_trigger_time(k, 7 * SIM_NS); /* static sensitivity is off until then */
		break;
	case 1:
		sim_next_trigger_event(k, x->dyn);
		break;
	default:
		break; /* back to static sensitivity */
	}
}

static void trig_stim(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	sim_event_notify(arg == NULL ? ((struct trig_ctx *)obj)->stat
				     : ((struct trig_ctx *)obj)->dyn);
}

START_TEST(test_next_trigger)
{
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);
	struct trig_ctx x = {.log.k = k};
	struct sim_process *p;

	x.stat = sim_event_create(k, "stat");
	x.dyn = sim_event_create(k, "dyn");
	p = sim_method_create(k, "m", trig_method, &x);
	sim_sensitive(p, x.stat);
	sim_schedule(k, 2 * SIM_NS, trig_stim, &x, NULL);	/* ignored: dynamic pending */
	sim_schedule(k, 9 * SIM_NS, trig_stim, &x, NULL);	/* ignored: waiting for dyn */
	sim_schedule(k, 11 * SIM_NS, trig_stim, &x, (void *)1); /* dyn: runs */
	sim_schedule(k, 13 * SIM_NS, trig_stim, &x, NULL);	/* static again: runs */
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(x.log.n, 4);
	ck_assert_uint_eq(x.log.e[0].t, 0);
	ck_assert_uint_eq(x.log.e[1].t, 7 * SIM_NS);
	ck_assert_uint_eq(x.log.e[2].t, 11 * SIM_NS);
	ck_assert_uint_eq(x.log.e[3].t, 13 * SIM_NS);
	sim_kernel_destroy(k);
}
END_TEST

static void bad_wait(struct sim_kernel *k, void *ctx)
{
	(void)ctx;
	sim_wait_time(k, 1); /* a method may not wait */
}

START_TEST(test_wait_in_method_fails)
{
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);

	sim_method_create(k, "m", bad_wait, NULL);
	ck_assert_int_eq(sim_run(k), -CS_ESTATE);
	ck_assert_ptr_nonnull(strstr(sim_failure(k), "outside a thread"));
	sim_kernel_destroy(k);
}
END_TEST

/* A dynamic wait overrides static sensitivity: the thread's static event must not cut its
 * timed wait short, nor leave a stale timeout that cuts a later wait short. */
struct stat_thr {
	struct log log;
	struct sim_event *stat;
};

static void stat_thread(struct sim_kernel *k, void *c)
{
	struct stat_thr *x = c;

	sim_wait_time(k, 100 * SIM_NS);
	log_add(&x->log, 1);
	sim_wait_time(k, 1000 * SIM_NS);
	log_add(&x->log, 2);
}

static void stat_poke(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)arg;
	sim_event_notify(obj);
}

START_TEST(test_thread_static_sensitivity)
{
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);
	struct stat_thr x = {.log.k = k};
	struct sim_process *p;

	x.stat = sim_event_create(k, "stat");
	p = sim_thread_create(k, "t", stat_thread, &x, 0);
	sim_sensitive(p, x.stat);
	sim_schedule(k, 10 * SIM_NS, stat_poke, x.stat, NULL);
	sim_schedule(k, 150 * SIM_NS, stat_poke, x.stat, NULL);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_int_eq(x.log.n, 2);
	ck_assert_uint_eq(x.log.e[0].t, 100 * SIM_NS);
	ck_assert_uint_eq(x.log.e[1].t, 1100 * SIM_NS);
	sim_kernel_destroy(k);
}
END_TEST

/* Waits with a timeout on an event that never fires: the event's waiter list is pruned, so
 * memory stays bounded (the kernel's node pool does not keep growing). */
struct prune_ctx {
	struct sim_event *never;
	unsigned timeouts;
};

static void prune_thread(struct sim_kernel *k, void *c)
{
	struct prune_ctx *x = c;

	for (unsigned i = 0; i < 100000; i++)
		if (!sim_wait_event_timeout(k, x->never, 1 * SIM_NS))
			x->timeouts++;
}

START_TEST(test_waiters_pruned)
{
	struct sim_kernel *k = new_kernel(SIM_QUEUE_WHEEL);
	struct prune_ctx x = {0};
	struct sim_process *keeper;

	x.never = sim_event_create(k, "never");
	sim_thread_create(k, "t", prune_thread, &x, 0);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_uint_eq(x.timeouts, 100000);
	ck_assert_uint_eq(sim_now(k), 100000 * SIM_NS);
	/* a waiter that is still live survives pruning and is woken */
	keeper = sim_thread_create(k, "keeper", prune_thread, &x, 0);
	(void)keeper;
	sim_schedule(k, 1, stat_poke, x.never, NULL);
	ck_assert_int_eq(sim_run(k), 0);
	ck_assert_uint_eq(x.timeouts, 100000 + 99999);
	ck_assert_uint_le(sim_kernel_node_capacity(k), 4096);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- clock domains ------------------------------------------------------------------------------ */

START_TEST(test_clock_exact)
{
	static const uint64_t freqs[] = {700000000ull, 1100000000ull, 1400000000ull, 3500000000ull};
	struct sim_clock c;

	ck_assert_int_eq(sim_clock_init(&c, 0), -CS_EINVAL);
	for (unsigned i = 0; i < 4; i++) {
		uint64_t f = freqs[i];

		ck_assert_int_eq(sim_clock_init(&c, f), 0);
		/* f cycles are exactly one second; 10^6 seconds of cycles exactly 10^6 s */
		ck_assert_uint_eq(sim_clock_edge(&c, f), SIM_SEC);
		ck_assert_uint_eq(sim_clock_edge(&c, f * 1000000ull), 1000000ull * SIM_SEC);
		ck_assert_uint_eq(sim_clock_cycle(&c, SIM_SEC), f);
		/* 10 ns is a whole number of cycles of each of these clocks */
		ck_assert_uint_eq(sim_clock_edge(&c, f / 100000000ull), 10 * SIM_NS);
		/* plain comparisons in the loop: each ck_assert costs a pipe write */
		for (uint64_t n = 0; n < 200000; n++) {
			sim_time_t t = sim_clock_edge(&c, n);
			__extension__ unsigned __int128 exact = (unsigned __int128)n * SIM_SEC;

			/* edge = ceil(n * 10^12 / f): within one ps of the ideal, never before */
			if ((unsigned __int128)t * f < exact ||
			    (unsigned __int128)t * f >= exact + f)
				ck_abort_msg("edge %llu of %llu Hz at %llu ps",
					     (unsigned long long)n, (unsigned long long)f,
					     (unsigned long long)t);
			if (sim_clock_cycle(&c, t) != n || sim_clock_next_edge(&c, t) != t ||
			    sim_clock_next_edge(&c, t + 1) != sim_clock_edge(&c, n + 1) ||
			    sim_clock_delay(&c, t + 1, 2) != sim_clock_edge(&c, n + 3) - t - 1)
				ck_abort_msg("conversion of edge %llu of %llu Hz",
					     (unsigned long long)n, (unsigned long long)f);
		}
	}
	/* 700 MHz: period 1428.571... ps, edge 1 at 1429 ps, edge 7 at exactly 10 ns */
	sim_clock_init(&c, 700000000ull);
	ck_assert_uint_eq(sim_clock_edge(&c, 1), 1429);
	ck_assert_uint_eq(sim_clock_edge(&c, 2), 2858);
	ck_assert_uint_eq(sim_clock_edge(&c, 3), 4286);
	ck_assert_uint_eq(sim_clock_edge(&c, 7), 10000);
	/* 3.5 GHz: 285.714... ps */
	sim_clock_init(&c, 3500000000ull);
	ck_assert_uint_eq(sim_clock_edge(&c, 1), 286);
	ck_assert_uint_eq(sim_clock_edge(&c, 35), 10000);
	ck_assert_uint_eq(sim_clock_delay(&c, 0, 0), 0);
	ck_assert_uint_eq(sim_clock_delay(&c, 1, 0), 285);
}
END_TEST

/* The 64-bit fast paths (reduced period num/den) against the plain 128-bit formulas, on
 * clocks whose fraction is small (700 MHz: 10000/7) and ones that overflow 64 bits early (a
 * prime frequency: num = 10^12, den = f), at cycle counts and times up to 2^64 - 1. */
START_TEST(test_clock_fast_path_exact)
{
	static const uint64_t freqs[] = {1ull,		 1000ull,	700000000ull,
					 924000000ull,	 1400000000ull, 999999999989ull,
					 999999999999ull};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct sim_clock c;

	for (unsigned i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		uint64_t f = freqs[i];

		ck_assert_int_eq(sim_clock_init(&c, f), 0);
		for (unsigned k = 0; k < 200000; k++) {
			__extension__ unsigned __int128 e, y;
			uint64_t n, t, want_t, want_n;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* every magnitude from 1 to 2^64 - 1, and the very ends */
			n = k < 2 ? (k ? UINT64_MAX : 0) : x >> (x % 64);
			t = k < 2 ? (k ? UINT64_MAX : 0) : (x * 0xff51afd7ed558ccdull) >> (k % 64);
			e = ((unsigned __int128)n * SIM_SEC + f - 1) / f;
			y = (unsigned __int128)t * f / SIM_SEC;
			want_n = (uint64_t)y;
			if (e <= UINT64_MAX) {
				want_t = (uint64_t)e;
				if (sim_clock_edge(&c, n) != want_t)
					ck_abort_msg("edge %llu of %llu Hz", (unsigned long long)n,
						     (unsigned long long)f);
			}
			if (sim_clock_cycle(&c, t) != want_n)
				ck_abort_msg("cycle at %llu ps of %llu Hz", (unsigned long long)t,
					     (unsigned long long)f);
		}
	}
}
END_TEST

/* ---- property: wheel == heap over 10^6 random schedule/cancel operations --------------------------- */

#define PROP_OPS     1000000u
#define PROP_HANDLES 4096u

struct prop {
	struct sim_kernel *k;
	uint64_t rng;
	uint64_t ops;
	uint64_t next_id;
	struct sim_handle h[PROP_HANDLES];
	uint64_t *fired; /* (id, time) hashed into a running digest, plus the first entries */
	uint64_t digest;
	uint64_t nfired;
};

static uint64_t prop_rand(struct prop *p)
{
	/* splitmix64: the same sequence in both kernels as long as firing order is the same */
	return cs_splitmix64(&p->rng);
}

static void prop_fire(struct sim_kernel *k, void *obj, void *arg);

static sim_time_t prop_delay(struct prop *p)
{
	uint64_t r = prop_rand(p);

	switch (r % 8) {
	case 0:
		return 0; /* delta */
	case 1:
	case 2:
		return (r >> 8) % 4 * 1000; /* 0..3 ns, many exact collisions */
	case 3:
	case 4:
		return (r >> 8) % 5000; /* any ps within 5 ns */
	case 5:
		return (r >> 8) % (900 * SIM_NS); /* within the wheel horizon */
	case 6:
		return (r >> 8) % (2 * SIM_US) + 1 * SIM_US / 2; /* around the horizon edge */
	default:
		return (r >> 8) % (50 * SIM_US); /* far: overflow heap */
	}
}

static void prop_step(struct prop *p)
{
	uint64_t r = prop_rand(p);
	unsigned slot = (unsigned)(r >> 20) % PROP_HANDLES;

	p->ops++;
	if (r % 5 == 0) {
		sim_cancel(p->k, p->h[slot]);
	} else {
		unsigned prio =
		    (r >> 40) % 4 == 0 ? (unsigned)((r >> 42) % 3) * 0x4000u : SIM_PRIO_DEFAULT;

		p->h[slot] = sim_schedule_prio(p->k, prop_delay(p), prio, prop_fire, p,
					       (void *)(uintptr_t)(p->next_id++));
	}
}

static void prop_fire(struct sim_kernel *k, void *obj, void *arg)
{
	struct prop *p = obj;
	uint64_t id = (uint64_t)(uintptr_t)arg;

	p->digest = (p->digest ^ id) * 0x100000001b3ull;
	p->digest = (p->digest ^ sim_now(k)) * 0x100000001b3ull;
	p->nfired++;
	/* each firing does 0..3 more operations, until the budget is spent */
	if (p->ops < PROP_OPS) {
		unsigned more = (unsigned)(prop_rand(p) % 4);

		for (unsigned i = 0; i < more && p->ops < PROP_OPS; i++)
			prop_step(p);
	}
}

static void prop_run(enum sim_queue_kind q, struct prop *p)
{
	memset(p, 0, sizeof(*p));
	p->k = new_kernel(q);
	p->rng = 12345;
	p->digest = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < 2000; i++)
		prop_step(p);
	while (p->ops < PROP_OPS) {
		ck_assert_int_eq(sim_run(p->k), 0);
		if (p->ops < PROP_OPS) /* everything drained: seed more */
			for (unsigned i = 0; i < 100; i++)
				prop_step(p);
	}
	ck_assert_int_eq(sim_run(p->k), 0);
}

START_TEST(test_wheel_matches_heap)
{
	struct prop *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	sim_time_t end_a, end_b;

	prop_run(SIM_QUEUE_WHEEL, a);
	prop_run(SIM_QUEUE_HEAP, b);
	end_a = sim_now(a->k);
	end_b = sim_now(b->k);
	ck_assert_uint_ge(a->ops, PROP_OPS);
	ck_assert_uint_gt(a->nfired, PROP_OPS / 2);
	ck_assert_uint_gt(sim_kernel_stats(a->k)->cancelled, PROP_OPS / 20);
	ck_assert_uint_eq(a->nfired, b->nfired);
	ck_assert_uint_eq(a->digest, b->digest);
	ck_assert_uint_eq(end_a, end_b);
	sim_kernel_destroy(a->k);
	sim_kernel_destroy(b->k);
	free(a);
	free(b);
}
END_TEST

/* The queue alone: random inserts and pops, wheel and heap give the same sequence. */
START_TEST(test_evq_direct)
{
	struct sim_evq *w, *h;
	struct sim_node *nodes = calloc(200000, sizeof(*nodes));
	struct sim_node *nodes2 = calloc(200000, sizeof(*nodes2));
	struct prop rng = {.rng = 99};
	sim_time_t now = 0;
	size_t used = 0;

	ck_assert_int_eq(sim_evq_create(SIM_QUEUE_WHEEL, &w), 0);
	ck_assert_int_eq(sim_evq_create(SIM_QUEUE_HEAP, &h), 0);
	while (used < 200000 || sim_evq_size(w)) {
		uint64_t r = prop_rand(&rng);

		if (used < 200000 && r % 3 != 0) {
			sim_time_t when = now + prop_delay(&rng);

			nodes[used].when = nodes2[used].when = when;
			nodes[used].key = nodes2[used].key = SIM_KEY((r >> 33) % 3, used);
			if (sim_evq_insert(w, &nodes[used]) || sim_evq_insert(h, &nodes2[used]))
				ck_abort_msg("insert failed");
			used++;
		} else if (sim_evq_size(w)) {
			struct sim_node *a = sim_evq_pop(w), *b = sim_evq_pop(h);

			if (a - nodes != b - nodes2 || a->when < now)
				ck_abort_msg("pop %zu: wheel gave node %td, heap node %td", used,
					     a - nodes, b - nodes2);
			now = a->when;
			sim_evq_advance(w, now);
			sim_evq_advance(h, now);
		}
		if (sim_evq_size(w) != sim_evq_size(h))
			ck_abort_msg("sizes differ");
	}
	sim_evq_destroy(w);
	sim_evq_destroy(h);
	free(nodes);
	free(nodes2);
}
END_TEST

/*
 * The pattern a 128-CU GPU makes: at each edge many items of one priority (the SMs' ticks,
 * appended) and of a lower one (memory events, inserted before them, in sequence), a few a
 * picosecond apart in the same slot, and pops between insertions (the slot's last mid-list
 * insertion popped, then more inserted). Wheel and heap give the same sequence.
 */
START_TEST(test_evq_same_edge)
{
	enum { N = 120000 };
	struct sim_evq *w, *h;
	struct sim_node *nodes = calloc(N, sizeof(*nodes)), *nodes2 = calloc(N, sizeof(*nodes2));
	struct prop rng = {.rng = 7};
	sim_time_t now = 0, edge = 1000;
	size_t used = 0, popped = 0;

	ck_assert_int_eq(sim_evq_create(SIM_QUEUE_WHEEL, &w), 0);
	ck_assert_int_eq(sim_evq_create(SIM_QUEUE_HEAP, &h), 0);
	while (popped < N) {
		uint64_t r = prop_rand(&rng);

		if (used < N && r % 4 != 0) {
			unsigned prio = (r >> 20) % 5 == 0 ? 1 : (r >> 24) % 7 == 0 ? 2 : 0;
			sim_time_t when =
			    (edge > now ? edge : now) + ((r >> 30) % 9 == 0 ? (r >> 40) % 3 : 0);

			nodes[used].when = nodes2[used].when = when;
			nodes[used].key = nodes2[used].key = SIM_KEY(prio, used);
			if (sim_evq_insert(w, &nodes[used]) || sim_evq_insert(h, &nodes2[used]))
				ck_abort_msg("insert failed");
			used++;
		} else if (sim_evq_size(w)) {
			struct sim_node *a = sim_evq_pop(w), *b = sim_evq_pop(h);

			if (a - nodes != b - nodes2)
				ck_abort_msg("pop %zu: wheel gave node %td, heap node %td", popped,
					     a - nodes, b - nodes2);
			popped++;
			now = a->when;
			sim_evq_advance(w, now);
			sim_evq_advance(h, now);
		}
		/* the next edge, now and then once this one is being served: until then,
		 * items join the edge whose first ones have gone */
		if (now >= edge && (r >> 50) % 16 == 0)
			edge = now + 1000;
	}
	ck_assert_uint_eq(sim_evq_size(w), 0);
	sim_evq_destroy(w);
	sim_evq_destroy(h);
	free(nodes);
	free(nodes2);
}
END_TEST

static Suite *kernel_suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *tc = tcase_create("semantics");

	/* loop index = queue kind: every semantic test runs on the wheel and on the heap */
	tcase_add_loop_test(tc, test_notify_order, SIM_QUEUE_WHEEL, SIM_QUEUE_HEAP + 1);
	tcase_add_loop_test(tc, test_update_isolation, 0, 2);
	tcase_add_loop_test(tc, test_cancel, SIM_QUEUE_WHEEL, SIM_QUEUE_HEAP + 1);
	tcase_add_test(tc, test_notify_override);
	tcase_add_loop_test(tc, test_tie_break, SIM_QUEUE_WHEEL, SIM_QUEUE_HEAP + 1);
	tcase_add_loop_test(tc, test_run_until, SIM_QUEUE_WHEEL, SIM_QUEUE_HEAP + 1);
	tcase_add_test(tc, test_stop_and_fail);
	tcase_add_loop_test(tc, test_threads, SIM_QUEUE_WHEEL, SIM_QUEUE_HEAP + 1);
	tcase_add_test(tc, test_next_trigger);
	tcase_add_test(tc, test_wait_in_method_fails);
	tcase_add_test(tc, test_thread_static_sensitivity);
	tcase_add_test(tc, test_waiters_pruned);
	suite_add_tcase(s, tc);

	tc = tcase_create("clock");
	tcase_add_test(tc, test_clock_exact);
	tcase_add_test(tc, test_clock_fast_path_exact);
	suite_add_tcase(s, tc);

	tc = tcase_create("property");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_wheel_matches_heap);
	tcase_add_test(tc, test_evq_direct);
	tcase_add_test(tc, test_evq_same_edge);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kernel_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
