/*
 * tlm/kernel/sim.c - the scheduler: phases, events, processes, callbacks (see sim.h).
 *
 * One runnable list holds, in order, the processes made runnable and the callback nodes due
 * now; it is drained in the evaluation phase. Timed items come from the pending-item set
 * (evq.c), delta items from a FIFO. Event and wake nodes never reach the runnable list: when
 * they fire they put processes on it, so everything due at one time runs in (time, priority,
 * sequence) order, as the items were scheduled.
 */
#include "tlm/kernel/sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/kernel/coro.h"
#include "tlm/kernel/evq.h"
#include "util/error.h"

#define NODE_CHUNK 1024

enum pending_kind { PENDING_NONE, PENDING_DELTA, PENDING_TIMED };

#define SENS_INLINE 2
#define CACHE_LINE  64

struct sim_event {
	/* Its own node for notifications, first so that node and the fields the kernel
	 * touches on every notification share the first two cache lines. An event has at most
	 * one pending notification, so the pool is needed only while a cancelled one is still
	 * queued (own_queued). */
	struct sim_node own;
	struct sim_kernel *k;
	struct sim_node *pending; /* EVENT node in the delta list or the timed set */
	sim_time_t pending_when;
	uint8_t pending_kind;
	bool own_queued;
	unsigned nsens, capmore;
	/* Static sensitivity: most events wake one or two processes, kept inline to save a
	 * cache miss per notification; more spill to sens_more. */
	struct sim_process *sens[SENS_INLINE];
	struct sim_process **sens_more;
	struct sim_node *waiters;    /* dynamic, one-shot: WAITER nodes */
	unsigned nwaiters, prune_at; /* stale waiters are pruned when the list doubles */
	struct sim_event *all_next;
	char name[];
};

struct sim_process {
	/* what make_runnable and run_process touch, in the first cache line */
	struct sim_runnable link; /* kind SIM_NODE_PROCESS */
	sim_proc_fn fn;
	void *ctx;
	struct sim_kernel *k;
	bool is_thread, runnable, terminated, dont_init, initialized, dyn_pending, woke_by_event;
	struct sim_coro *coro; /* threads only */
	uint64_t wait_gen;     /* bumped on every wake: older WAKE/WAITER nodes go stale */
	struct sim_handle timeout;
	struct sim_process *all_next;
	char name[];
};

struct node_chunk {
	struct sim_node nodes[NODE_CHUNK]; /* first: each node on its own cache line */
	struct node_chunk *next;
};

struct run_list {
	struct sim_runnable *head, *tail;
};

struct sim_kernel {
	sim_time_t now;
	uint64_t seq;
	struct sim_evq *timed;
	struct run_list delta;	  /* delta-notified nodes, FIFO */
	struct run_list runnable; /* evaluation phase */
	struct sim_channel *updates;
	struct sim_node *free_nodes;
	struct node_chunk *chunks;
	size_t node_capacity;
	struct sim_process *current;
	struct sim_process *procs;
	struct sim_event *events;
	struct sim_process *init_pending; /* created since the last run started: to initialise */
	bool stop_requested, failed, running;
	int fail_code;
	char fail_msg[512];
	sim_time_t quantum;
	size_t stack_size;
	struct sim_kernel_stats st;
};

/* Zeroed, cache-line aligned: events and processes are touched on every activation. */
static void *alloc_line_aligned(size_t size)
{
	size_t rounded = (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	void *p = aligned_alloc(CACHE_LINE, rounded);

	if (p)
		memset(p, 0, rounded);
	return p;
}

/* link is the first member of nodes and processes: converting a possibly NULL pointer to
 * it needs no member access (which would be undefined for NULL). */
static inline struct sim_runnable *as_runnable(void *p)
{
	return p;
}

/* ---- lists and node pool ---------------------------------------------------------------- */

static inline void run_append(struct run_list *l, struct sim_runnable *r)
{
	r->next = NULL;
	if (l->tail)
		l->tail->next = r;
	else
		l->head = r;
	l->tail = r;
}

static inline struct sim_runnable *run_take(struct run_list *l)
{
	struct sim_runnable *r = l->head;

	if (r) {
		l->head = r->next;
		if (!l->head)
			l->tail = NULL;
	}
	return r;
}

/* Refills the free list with a chunk of nodes; cold. */
static __attribute__((noinline, cold)) struct sim_node *node_refill(struct sim_kernel *k)
{
	struct node_chunk *c = alloc_line_aligned(sizeof(*c));

	if (!c) {
		sim_fail(k, -CS_ENOMEM, "out of memory for kernel items");
		return NULL;
	}
	c->next = k->chunks;
	k->chunks = c;
	k->node_capacity += NODE_CHUNK;
	for (size_t i = NODE_CHUNK; i-- > 0;) {
		c->nodes[i].link.next = as_runnable(k->free_nodes);
		k->free_nodes = &c->nodes[i];
	}
	return k->free_nodes;
}

static inline struct sim_node *node_alloc(struct sim_kernel *k)
{
	struct sim_node *n = k->free_nodes;

	if (__builtin_expect(!n, 0)) {
		n = node_refill(k);
		if (!n)
			return NULL;
	}
	k->free_nodes = (struct sim_node *)n->link.next;
	return n;
}

static inline void node_free(struct sim_kernel *k, struct sim_node *n)
{
	n->gen++;
	n->link.kind = SIM_NODE_FREE;
	if (__builtin_expect(n->link.embedded, 0)) {
		((struct sim_event *)n->obj)->own_queued = false;
		return;
	}
	n->link.next = as_runnable(k->free_nodes);
	k->free_nodes = n;
}

/* Queues node n (kind, obj, arg, fn set by the caller) at absolute time when. */
static inline struct sim_handle node_queue(struct sim_kernel *k, struct sim_node *n,
					   sim_time_t when, unsigned prio)
{
	struct sim_handle h = {n, n->gen};

	n->when = when;
	n->key = SIM_KEY(prio, k->seq++);
	if (when == k->now) {
		run_append(&k->delta, &n->link);
	} else if (sim_evq_insert(k->timed, n) < 0) {
		node_free(k, n);
		sim_fail(k, -CS_ENOMEM, "out of memory for the timed item set");
		h.node = NULL;
	}
	return h;
}

static __attribute__((noinline, cold)) void fail_past(struct sim_kernel *k, sim_time_t when)
{
	sim_fail(k, -CS_EINVAL, "item scheduled in the past (%llu ps < now %llu ps)",
		 (unsigned long long)when, (unsigned long long)k->now);
}

static inline struct sim_handle schedule_node(struct sim_kernel *k, enum sim_node_kind kind,
					      sim_time_t when, unsigned prio, sim_callback_fn fn,
					      void *obj, void *arg, uint64_t wait_gen)
{
	struct sim_handle none = {NULL, 0};
	struct sim_node *n;

	if (__builtin_expect(when < k->now, 0)) {
		fail_past(k, when);
		return none;
	}
	n = node_alloc(k);
	if (!n)
		return none;
	n->link.kind = (uint8_t)kind;
	n->fn = fn;
	n->obj = obj;
	if (kind == SIM_NODE_CALLBACK)
		n->arg = arg;
	else
		n->wait_gen = wait_gen;
	return node_queue(k, n, when, prio);
}

static inline sim_time_t time_after(struct sim_kernel *k, sim_time_t delay)
{
	return delay > SIM_TIME_MAX - k->now ? SIM_TIME_MAX : k->now + delay;
}

/* ---- kernel --------------------------------------------------------------------------- */

int sim_kernel_create(const struct sim_kernel_opts *opts, struct sim_kernel **out)
{
	struct sim_kernel_opts def = {0};
	struct sim_kernel *k;
	int err;

	*out = NULL;
	if (!opts)
		opts = &def;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -CS_ENOMEM;
	err = sim_evq_create(opts->queue, &k->timed);
	if (err)
		goto out_free_kernel;
	k->quantum = opts->quantum;
	k->stack_size = opts->default_stack_size ? opts->default_stack_size : SIM_DEFAULT_STACK;
	*out = k;
	return 0;

out_free_kernel:
	free(k);
	return err;
}

void sim_kernel_destroy(struct sim_kernel *k)
{
	if (!k)
		return;
	while (k->procs) {
		struct sim_process *p = k->procs;

		k->procs = p->all_next;
		sim_coro_destroy(p->coro);
		free(p);
	}
	while (k->events) {
		struct sim_event *e = k->events;

		k->events = e->all_next;
		free(e->sens_more);
		free(e);
	}
	while (k->chunks) {
		struct node_chunk *c = k->chunks;

		k->chunks = c->next;
		free(c);
	}
	sim_evq_destroy(k->timed);
	free(k);
}

sim_time_t sim_now(const struct sim_kernel *k)
{
	return k->now;
}

const struct sim_kernel_stats *sim_kernel_stats(const struct sim_kernel *k)
{
	return &k->st;
}

size_t sim_kernel_node_capacity(const struct sim_kernel *k)
{
	return k->node_capacity;
}

sim_time_t sim_global_quantum(const struct sim_kernel *k)
{
	return k->quantum;
}

void sim_set_global_quantum(struct sim_kernel *k, sim_time_t q)
{
	k->quantum = q;
}

void sim_fail(struct sim_kernel *k, int code, const char *fmt, ...)
{
	va_list ap;

	if (k->failed)
		return;
	k->failed = true;
	k->fail_code = code < 0 ? code : -CS_ESTATE;
	va_start(ap, fmt);
	vsnprintf(k->fail_msg, sizeof(k->fail_msg), fmt, ap);
	va_end(ap);
	k->stop_requested = true;
}

const char *sim_failure(const struct sim_kernel *k)
{
	return k->failed ? k->fail_msg : NULL;
}

void sim_stop(struct sim_kernel *k)
{
	k->stop_requested = true;
}

/* ---- callbacks ------------------------------------------------------------------------ */

struct sim_handle sim_schedule_at(struct sim_kernel *k, sim_time_t when, unsigned prio,
				  sim_callback_fn fn, void *obj, void *arg)
{
	if (prio > SIM_PRIO_LAST)
		prio = SIM_PRIO_LAST;
	return schedule_node(k, SIM_NODE_CALLBACK, when, prio, fn, obj, arg, 0);
}

struct sim_handle sim_schedule_prio(struct sim_kernel *k, sim_time_t delay, unsigned prio,
				    sim_callback_fn fn, void *obj, void *arg)
{
	return sim_schedule_at(k, time_after(k, delay), prio, fn, obj, arg);
}

struct sim_handle sim_schedule(struct sim_kernel *k, sim_time_t delay, sim_callback_fn fn,
			       void *obj, void *arg)
{
	return schedule_node(k, SIM_NODE_CALLBACK, time_after(k, delay), SIM_PRIO_DEFAULT, fn, obj,
			     arg, 0);
}

static bool cancel_node(struct sim_kernel *k, struct sim_node *n, uint64_t gen)
{
	if (!n || n->gen != gen || n->link.kind == SIM_NODE_FREE ||
	    n->link.kind == SIM_NODE_CANCELLED)
		return false;
	n->link.kind = SIM_NODE_CANCELLED;
	k->st.cancelled++;
	return true;
}

bool sim_cancel(struct sim_kernel *k, struct sim_handle h)
{
	return cancel_node(k, h.node, h.gen);
}

/* ---- processes ------------------------------------------------------------------------ */

static inline void make_runnable(struct sim_kernel *k, struct sim_process *p)
{
	if (p->runnable || p->terminated)
		return;
	p->runnable = true;
	run_append(&k->runnable, &p->link);
}

/* A dynamic wake (timeout, next_trigger, wait) reached p: only the newest one counts. */
static void wake_process(struct sim_kernel *k, struct sim_process *p, uint64_t gen, bool by_event)
{
	if (gen != p->wait_gen)
		return;
	p->wait_gen++;
	p->dyn_pending = false;
	p->woke_by_event = by_event;
	if (by_event)
		cancel_node(k, p->timeout.node, p->timeout.gen);
	make_runnable(k, p);
}

static struct sim_process *process_new(struct sim_kernel *k, const char *name, sim_proc_fn fn,
				       void *ctx)
{
	size_t len = strlen(name ? name : "") + 1;
	struct sim_process *p = alloc_line_aligned(sizeof(*p) + len);

	if (!p)
		return NULL;
	memcpy(p->name, name ? name : "", len);
	p->link.kind = SIM_NODE_PROCESS;
	p->k = k;
	p->fn = fn;
	p->ctx = ctx;
	return p;
}

static void process_add(struct sim_kernel *k, struct sim_process *p)
{
	p->all_next = k->procs;
	k->procs = p;
	/* Initialised (made runnable) when the next run starts, or now if a run is under way:
	 * reuse the link for the pending list until then. */
	p->link.next = as_runnable(k->init_pending);
	k->init_pending = p;
}

struct sim_process *sim_method_create(struct sim_kernel *k, const char *name, sim_proc_fn fn,
				      void *ctx)
{
	struct sim_process *p = process_new(k, name, fn, ctx);

	if (!p) {
		sim_fail(k, -CS_ENOMEM, "out of memory for process %s", name ? name : "");
		return NULL;
	}
	process_add(k, p);
	return p;
}

static void thread_entry(void *arg)
{
	struct sim_process *p = arg;

	p->fn(p->k, p->ctx);
	p->terminated = true;
}

struct sim_process *sim_thread_create(struct sim_kernel *k, const char *name, sim_proc_fn fn,
				      void *ctx, size_t stack_size)
{
	struct sim_process *p = process_new(k, name, fn, ctx);
	int err;

	if (!p)
		goto out_fail;
	p->is_thread = true;
	err = sim_coro_create(stack_size ? stack_size : k->stack_size, thread_entry, p, &p->coro);
	if (err)
		goto out_free_process;
	process_add(k, p);
	return p;

out_free_process:
	free(p);
out_fail:
	sim_fail(k, -CS_ENOMEM, "cannot create thread %s", name ? name : "");
	return NULL;
}

const char *sim_process_name(const struct sim_process *p)
{
	return p->name;
}

int sim_sensitive(struct sim_process *p, struct sim_event *e)
{
	if (e->nsens < SENS_INLINE) {
		e->sens[e->nsens++] = p;
		return 0;
	}
	if (e->nsens - SENS_INLINE == e->capmore) {
		unsigned cap = e->capmore ? e->capmore * 2 : 4;
		struct sim_process **s = realloc(e->sens_more, cap * sizeof(*s));

		if (!s)
			return -CS_ENOMEM;
		e->sens_more = s;
		e->capmore = cap;
	}
	e->sens_more[e->nsens++ - SENS_INLINE] = p;
	return 0;
}

void sim_dont_initialize(struct sim_process *p)
{
	p->dont_init = true;
}

bool sim_process_terminated(const struct sim_process *p)
{
	return p->terminated;
}

struct sim_process *sim_current(const struct sim_kernel *k)
{
	return k->current;
}

static void run_process(struct sim_kernel *k, struct sim_process *p)
{
	struct sim_process *saved = k->current;

	k->current = p;
	k->st.activations++;
	if (p->is_thread) {
		sim_coro_resume(p->coro);
		if (sim_coro_done(p->coro))
			p->terminated = true;
	} else {
		p->fn(k, p->ctx);
	}
	k->current = saved;
}

/* ---- dynamic sensitivity and waits ------------------------------------------------------- */

/* Drops waiters that can no longer wake anyone: their process was woken another way (a
 * timeout) since it began waiting. Without this, waits with timeouts on an event that
 * seldom fires would grow its list without bound. */
static void prune_waiters(struct sim_kernel *k, struct sim_event *e)
{
	struct sim_node *w = e->waiters, *keep = NULL, *last = NULL;

	e->nwaiters = 0;
	while (w) { /* rebuild the list in its order, live waiters only */
		struct sim_node *nx = (struct sim_node *)w->link.next;
		struct sim_process *p = w->obj;

		if (w->wait_gen != p->wait_gen) {
			node_free(k, w);
		} else {
			w->link.next = NULL;
			if (last)
				last->link.next = as_runnable(w);
			else
				keep = w;
			last = w;
			e->nwaiters++;
		}
		w = nx;
	}
	e->waiters = keep;
	e->prune_at = e->nwaiters * 2 > 64 ? e->nwaiters * 2 : 64;
}

static void add_waiter(struct sim_kernel *k, struct sim_event *e, struct sim_process *p)
{
	struct sim_node *w;

	if (e->nwaiters >= e->prune_at)
		prune_waiters(k, e);
	w = node_alloc(k);
	if (!w)
		return;
	w->link.kind = SIM_NODE_WAITER;
	w->obj = p;
	w->wait_gen = p->wait_gen;
	w->link.next = as_runnable(e->waiters);
	e->waiters = w;
	e->nwaiters++;
}

static void add_timeout(struct sim_kernel *k, struct sim_process *p, sim_time_t delay)
{
	p->timeout = schedule_node(k, SIM_NODE_WAKE, time_after(k, delay), SIM_PRIO_DEFAULT, NULL,
				   p, NULL, p->wait_gen);
}

static struct sim_process *current_method(struct sim_kernel *k, const char *what)
{
	struct sim_process *p = k->current;

	if (!p || p->is_thread) {
		sim_fail(k, -CS_ESTATE, "%s called outside a method process", what);
		return NULL;
	}
	return p;
}

static struct sim_process *current_thread(struct sim_kernel *k, const char *what)
{
	struct sim_process *p = k->current;

	if (!p || !p->is_thread) {
		sim_fail(k, -CS_ESTATE, "%s called outside a thread process", what);
		return NULL;
	}
	return p;
}

void sim_next_trigger_event(struct sim_kernel *k, struct sim_event *e)
{
	struct sim_process *p = current_method(k, "sim_next_trigger_event");

	if (!p)
		return;
	p->wait_gen++; /* a later next_trigger replaces an earlier one */
	p->dyn_pending = true;
	add_waiter(k, e, p);
}

void sim_next_trigger_time(struct sim_kernel *k, sim_time_t delay)
{
	struct sim_process *p = current_method(k, "sim_next_trigger_time");

	if (!p)
		return;
	p->wait_gen++;
	p->dyn_pending = true;
	add_timeout(k, p, delay);
}

static void thread_suspend(struct sim_kernel *k, struct sim_process *p)
{
	/* a dynamic wait overrides static sensitivity until it is answered (IEEE 1666) */
	p->dyn_pending = true;
	k->current = NULL;
	sim_coro_yield(p->coro);
}

void sim_wait_event(struct sim_kernel *k, struct sim_event *e)
{
	struct sim_process *p = current_thread(k, "sim_wait_event");

	if (!p)
		return;
	add_waiter(k, e, p);
	thread_suspend(k, p);
}

void sim_wait_time(struct sim_kernel *k, sim_time_t delay)
{
	struct sim_process *p = current_thread(k, "sim_wait_time");

	if (!p)
		return;
	add_timeout(k, p, delay);
	thread_suspend(k, p);
}

bool sim_wait_event_timeout(struct sim_kernel *k, struct sim_event *e, sim_time_t delay)
{
	struct sim_process *p = current_thread(k, "sim_wait_event_timeout");

	if (!p)
		return false;
	add_waiter(k, e, p);
	add_timeout(k, p, delay);
	thread_suspend(k, p);
	return p->woke_by_event;
}

/* ---- events ------------------------------------------------------------------------------ */

struct sim_event *sim_event_create(struct sim_kernel *k, const char *name)
{
	size_t len = strlen(name ? name : "") + 1;
	struct sim_event *e = alloc_line_aligned(sizeof(*e) + len);

	if (!e) {
		sim_fail(k, -CS_ENOMEM, "out of memory for event %s", name ? name : "");
		return NULL;
	}
	memcpy(e->name, name ? name : "", len);
	e->k = k;
	e->pending_when = SIM_TIME_MAX;
	e->prune_at = 64;
	e->own.link.embedded = 1;
	e->own.obj = e;
	e->all_next = k->events;
	k->events = e;
	return e;
}

const char *sim_event_name(const struct sim_event *e)
{
	return e->name;
}

static inline void event_trigger(struct sim_kernel *k, struct sim_event *e)
{
	struct sim_node *w = e->waiters;

	if (e->nsens == 1 && !w) { /* the common case, without the loops */
		if (!e->sens[0]->dyn_pending)
			make_runnable(k, e->sens[0]);
		return;
	}
	for (unsigned i = 0; i < e->nsens; i++) {
		struct sim_process *p =
		    i < SENS_INLINE ? e->sens[i] : e->sens_more[i - SENS_INLINE];

		if (!p->dyn_pending)
			make_runnable(k, p);
	}
	if (!w)
		return;
	e->waiters = NULL;
	e->nwaiters = 0;
	/* Waiters were pushed at the head: wake them in the order they started waiting. */
	{
		struct sim_node *rev = NULL;

		while (w) {
			struct sim_node *nx = (struct sim_node *)w->link.next;

			w->link.next = as_runnable(rev);
			rev = w;
			w = nx;
		}
		w = rev;
	}
	while (w) {
		struct sim_node *nx = (struct sim_node *)w->link.next;

		wake_process(k, w->obj, w->wait_gen, true);
		node_free(k, w);
		w = nx;
	}
}

static void event_clear_pending(struct sim_event *e)
{
	if (e->pending)
		cancel_node(e->k, e->pending, e->pending->gen);
	e->pending = NULL;
	e->pending_kind = PENDING_NONE;
	e->pending_when = SIM_TIME_MAX;
}

void sim_event_notify(struct sim_event *e)
{
	event_clear_pending(e);
	event_trigger(e->k, e);
}

void sim_event_notify_delayed(struct sim_event *e, sim_time_t delay)
{
	struct sim_kernel *k = e->k;
	sim_time_t when = time_after(k, delay);
	struct sim_handle h;

	if (e->pending_kind != PENDING_NONE) {
		if (e->pending_kind == PENDING_DELTA || e->pending_when <= when)
			return; /* the pending notification is earlier: it stands */
		event_clear_pending(e);
	}
	if (!e->own_queued) {
		e->own.link.kind = SIM_NODE_EVENT;
		e->own_queued = true;
		h = node_queue(k, &e->own, when, SIM_PRIO_DEFAULT);
	} else {
		h = schedule_node(k, SIM_NODE_EVENT, when, SIM_PRIO_DEFAULT, NULL, e, NULL, 0);
	}
	if (!h.node)
		return;
	e->pending = h.node;
	e->pending_kind = delay == 0 ? PENDING_DELTA : PENDING_TIMED;
	e->pending_when = when;
}

void sim_event_cancel(struct sim_event *e)
{
	if (e->pending_kind != PENDING_NONE)
		event_clear_pending(e);
}

sim_time_t sim_event_pending_time(const struct sim_event *e)
{
	return e->pending_when;
}

/* ---- update phase ------------------------------------------------------------------------- */

void sim_channel_init(struct sim_channel *ch, sim_update_fn update, void *obj)
{
	ch->update = update;
	ch->obj = obj;
	ch->next = NULL;
	ch->requested = false;
}

void sim_request_update(struct sim_kernel *k, struct sim_channel *ch)
{
	if (ch->requested)
		return;
	ch->requested = true;
	ch->next = k->updates;
	k->updates = ch;
}

static void update_phase(struct sim_kernel *k)
{
	while (k->updates) {
		struct sim_channel *list = k->updates;

		k->updates = NULL;
		/* The list is LIFO; updates of distinct channels commute by construction, but run
		 * them in request order anyway so traces read naturally. */
		{
			struct sim_channel *rev = NULL;

			while (list) {
				struct sim_channel *nx = list->next;

				list->next = rev;
				rev = list;
				list = nx;
			}
			list = rev;
		}
		while (list) {
			struct sim_channel *nx = list->next;

			list->requested = false;
			list->next = NULL;
			k->st.updates++;
			list->update(k, list->obj);
			list = nx;
		}
	}
}

/* ---- the scheduler loop -------------------------------------------------------------------- */

/* A node came due (timed or delta): fire it or move it to the runnable list. */
static void fire_node(struct sim_kernel *k, struct sim_node *n)
{
	switch ((enum sim_node_kind)n->link.kind) {
	case SIM_NODE_CALLBACK:
		run_append(&k->runnable, &n->link);
		return;
	case SIM_NODE_EVENT: {
		struct sim_event *e = n->obj;

		e->pending = NULL;
		e->pending_kind = PENDING_NONE;
		e->pending_when = SIM_TIME_MAX;
		event_trigger(k, e);
		break;
	}
	case SIM_NODE_WAKE:
		wake_process(k, n->obj, n->wait_gen, false);
		break;
	default: /* cancelled */
		break;
	}
	node_free(k, n);
}

static void evaluate_phase(struct sim_kernel *k)
{
	struct sim_runnable *r;

	while ((r = run_take(&k->runnable))) {
		if (r->kind == SIM_NODE_PROCESS) {
			struct sim_process *p = (struct sim_process *)r;

			p->runnable = false;
			run_process(k, p);
		} else {
			struct sim_node *n = (struct sim_node *)r;

			if (n->link.kind == SIM_NODE_CALLBACK) {
				sim_callback_fn fn = n->fn;
				void *obj = n->obj, *arg = n->arg;

				/* Free first: the callback may schedule (and reuse the node). */
				node_free(k, n);
				k->st.activations++;
				fn(k, obj, arg);
			} else {
				node_free(k, n);
			}
		}
	}
}

static void initialize_new_processes(struct sim_kernel *k)
{
	struct sim_process *p = k->init_pending;
	struct sim_process *rev = NULL;

	k->init_pending = NULL;
	while (p) { /* creation order */
		struct sim_process *nx = (struct sim_process *)p->link.next;

		p->link.next = as_runnable(rev);
		rev = p;
		p = nx;
	}
	for (p = rev; p;) {
		struct sim_process *nx = (struct sim_process *)p->link.next;

		p->link.next = NULL;
		p->initialized = true;
		if (!p->dont_init)
			make_runnable(k, p);
		p = nx;
	}
}

/* Drops cancelled items at the front so the front is a real item (or nothing). */
static struct sim_node *peek_live(struct sim_kernel *k)
{
	struct sim_node *n;

	while ((n = sim_evq_peek(k->timed)) && n->link.kind == SIM_NODE_CANCELLED)
		node_free(k, sim_evq_pop(k->timed));
	return n;
}

static int kernel_loop(struct sim_kernel *k, bool bounded, sim_time_t until)
{
	struct sim_node *n;

	if (k->running)
		return -CS_ESTATE;
	if (k->failed)
		return k->fail_code;
	k->running = true;
	k->stop_requested = false;
	for (;;) {
		if (k->init_pending)
			initialize_new_processes(k);
		evaluate_phase(k);
		update_phase(k);
		k->st.delta_cycles++;
		if (k->stop_requested)
			break;
		/* Delta notification phase: everything notified for the next delta. */
		if (k->delta.head) {
			struct run_list due = k->delta;

			k->delta.head = k->delta.tail = NULL;
			while ((n = (struct sim_node *)run_take(&due))) {
				k->st.delta_items++;
				fire_node(k, n);
			}
			if (k->runnable.head || k->delta.head || k->init_pending)
				continue;
		}
		if (k->init_pending)
			continue;
		/* Timed notification phase. */
		n = peek_live(k);
		if (!n || (bounded && n->when > until)) {
			if (bounded && until > k->now)
				k->now = until;
			break;
		}
		k->now = n->when;
		sim_evq_advance(k->timed, k->now);
		k->st.time_steps++;
		n = sim_evq_pop(k->timed); /* the live item just peeked: due now */
		k->st.timed_items++;
		fire_node(k, n);
		while ((n = sim_evq_pop_due(k->timed, k->now))) {
			if (n->link.kind != SIM_NODE_CANCELLED)
				k->st.timed_items++;
			fire_node(k, n);
		}
	}
	k->running = false;
	return k->failed ? k->fail_code : 0;
}

int sim_run(struct sim_kernel *k)
{
	return kernel_loop(k, false, 0);
}

int sim_run_until(struct sim_kernel *k, sim_time_t until)
{
	if (until < k->now)
		return -CS_EINVAL;
	return kernel_loop(k, true, until);
}

sim_time_t sim_next_time(struct sim_kernel *k)
{
	struct sim_node *n;

	if (k->runnable.head || k->delta.head || k->init_pending)
		return k->now;
	n = peek_live(k);
	return n ? n->when : SIM_TIME_MAX;
}

bool sim_pending(struct sim_kernel *k)
{
	return sim_next_time(k) != SIM_TIME_MAX;
}
