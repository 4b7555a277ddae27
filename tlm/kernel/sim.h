/*
 * tlm/kernel/sim.h - the discrete-event kernel: time, events, processes, phases.
 *
 * IEEE 1666 (SystemC) simulation semantics in plain C11 (docs/architecture.md):
 *   evaluate  : run every runnable process / callback (immediate notifications add to this set)
 *   update    : run the update callbacks requested during evaluate (sim_request_update)
 *   delta     : fire delta notifications; if anything became runnable, evaluate again
 *   timed     : advance to the earliest pending time, fire everything due then, evaluate
 * Time is picoseconds. Same-time items are ordered by (time, priority, insertion sequence),
 * so a run is deterministic. Components are callbacks (methods) over explicit state machines;
 * workload code may run as threads (stackful coroutines) that wait.
 *
 * No globals: every call takes the kernel. Nothing here prints or exits; a model that finds
 * itself in an impossible state calls sim_fail(), and sim_run() returns the error.
 */
#ifndef COHSCOPE_TLM_KERNEL_SIM_H
#define COHSCOPE_TLM_KERNEL_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlm/kernel/time.h"

struct sim_kernel;
struct sim_event;
struct sim_process;
struct sim_node;

/* Which pending-item set the kernel uses. The heap is the test oracle for the wheel. */
enum sim_queue_kind {
	SIM_QUEUE_WHEEL = 0, /* timing wheel with occupancy bitmap + overflow heap (default) */
	SIM_QUEUE_HEAP,	     /* plain binary heap, same ordering */
};

struct sim_kernel_opts {
	enum sim_queue_kind queue;
	sim_time_t quantum;	   /* global quantum for tlm_qk (0: none, sync every inc) */
	size_t default_stack_size; /* bytes per thread stack (0: SIM_DEFAULT_STACK) */
};

#define SIM_DEFAULT_STACK (64u * 1024u)

/* Counters the kernel keeps about itself (for benchmarks and the self-check table). */
struct sim_kernel_stats {
	uint64_t timed_items;  /* timed items fired (notifications and callbacks) */
	uint64_t delta_items;  /* delta items fired */
	uint64_t activations;  /* method runs + thread resumptions + callback calls */
	uint64_t delta_cycles; /* evaluate/update/delta rounds */
	uint64_t time_steps;   /* distinct times the kernel advanced to */
	uint64_t cancelled;    /* items cancelled before they fired */
	uint64_t updates;      /* update callbacks run */
};

int sim_kernel_create(const struct sim_kernel_opts *opts, struct sim_kernel **out);
void sim_kernel_destroy(struct sim_kernel *k);

sim_time_t sim_now(const struct sim_kernel *k);
const struct sim_kernel_stats *sim_kernel_stats(const struct sim_kernel *k);
sim_time_t sim_global_quantum(const struct sim_kernel *k);
/* Kernel items ever allocated (the pool only grows): tests check that memory stays bounded. */
size_t sim_kernel_node_capacity(const struct sim_kernel *k);
void sim_set_global_quantum(struct sim_kernel *k, sim_time_t q);

/* ---- running ------------------------------------------------------------------------- */

/* Runs until nothing is pending (starvation), sim_stop() or sim_fail(). Returns 0 or the
 * negative code given to sim_fail(). */
int sim_run(struct sim_kernel *k);
/* Runs every item due at a time <= until, then leaves sim_now() == until (as SystemC's
 * SC_RUN_TO_TIME) unless stopped earlier. until < sim_now() is -CS_EINVAL. */
int sim_run_until(struct sim_kernel *k, sim_time_t until);
/* Requests a stop at the end of the current delta cycle. sim_run() may be called again. */
void sim_stop(struct sim_kernel *k);
/* Records a model failure (first one wins) and stops. sim_run() returns code. */
void sim_fail(struct sim_kernel *k, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The first failure's message, or NULL. */
const char *sim_failure(const struct sim_kernel *k);
/* Time of the earliest pending timed item, or SIM_TIME_MAX. */
sim_time_t sim_next_time(struct sim_kernel *k);
/* True while items are pending (timed, delta or runnable). */
bool sim_pending(struct sim_kernel *k);

/* ---- one-shot callbacks (PEQ style: every call is its own item) ------------------------ */

typedef void (*sim_callback_fn)(struct sim_kernel *k, void *obj, void *arg);

/* A handle to cancel a scheduled callback; stale handles are harmless. */
struct sim_handle {
	struct sim_node *node;
	uint64_t gen;
};

/* Priorities break ties between timed items due at the same time: lower runs first. Delta
 * items (delay 0) run in the order they were scheduled, whatever their priority. */
#define SIM_PRIO_FIRST	 0u
#define SIM_PRIO_DEFAULT 0x8000u
#define SIM_PRIO_LAST	 0xffffu

/* delay 0 means the next delta cycle. */
struct sim_handle sim_schedule(struct sim_kernel *k, sim_time_t delay, sim_callback_fn fn,
			       void *obj, void *arg);
struct sim_handle sim_schedule_prio(struct sim_kernel *k, sim_time_t delay, unsigned prio,
				    sim_callback_fn fn, void *obj, void *arg);
/* Absolute time; when == sim_now() means the next delta cycle; when < now is an error
 * (reported through sim_fail). */
struct sim_handle sim_schedule_at(struct sim_kernel *k, sim_time_t when, unsigned prio,
				  sim_callback_fn fn, void *obj, void *arg);
/* Returns true if the item was still pending. */
bool sim_cancel(struct sim_kernel *k, struct sim_handle h);

/* ---- events (sc_event) ------------------------------------------------------------------ */

/* Owned by the kernel, freed by sim_kernel_destroy. name is copied. */
struct sim_event *sim_event_create(struct sim_kernel *k, const char *name);
const char *sim_event_name(const struct sim_event *e);
/* Immediate: sensitive processes run in the current evaluation phase. */
void sim_event_notify(struct sim_event *e);
/* delay 0 = next delta cycle. An event holds at most one pending notification: a new one
 * replaces the pending one only if it is earlier (immediate < delta < earlier time). */
void sim_event_notify_delayed(struct sim_event *e, sim_time_t delay);
void sim_event_cancel(struct sim_event *e);
/* Time at which the pending notification fires (now for delta), or SIM_TIME_MAX. */
sim_time_t sim_event_pending_time(const struct sim_event *e);

/* ---- processes ---------------------------------------------------------------------------- */

typedef void (*sim_proc_fn)(struct sim_kernel *k, void *ctx);

/* SC_METHOD: runs to completion each time it is triggered. */
struct sim_process *sim_method_create(struct sim_kernel *k, const char *name, sim_proc_fn fn,
				      void *ctx);
/* SC_THREAD: a coroutine that may wait; returning from fn ends the thread. stack_size 0 takes
 * the kernel default. */
struct sim_process *sim_thread_create(struct sim_kernel *k, const char *name, sim_proc_fn fn,
				      void *ctx, size_t stack_size);
const char *sim_process_name(const struct sim_process *p);
/* Static sensitivity (sensitive << e). */
int sim_sensitive(struct sim_process *p, struct sim_event *e);
/* Not made runnable at initialisation. */
void sim_dont_initialize(struct sim_process *p);
bool sim_process_terminated(const struct sim_process *p);
/* The process now running, or NULL in a callback / outside evaluation. */
struct sim_process *sim_current(const struct sim_kernel *k);

/* Dynamic sensitivity of the running method (next_trigger): overrides static sensitivity once. */
void sim_next_trigger_event(struct sim_kernel *k, struct sim_event *e);
void sim_next_trigger_time(struct sim_kernel *k, sim_time_t delay);

/* Thread waits. Calling them outside a thread is reported through sim_fail. */
void sim_wait_event(struct sim_kernel *k, struct sim_event *e);
void sim_wait_time(struct sim_kernel *k, sim_time_t delay);
/* Waits for e or delay, whichever first; returns true if e fired. */
bool sim_wait_event_timeout(struct sim_kernel *k, struct sim_event *e, sim_time_t delay);

/* ---- update phase (request_update) ------------------------------------------------------- */

typedef void (*sim_update_fn)(struct sim_kernel *k, void *obj);

/* A primitive channel's update hook. Embed it in the channel; initialise with
 * sim_channel_init. A channel requested several times in one evaluation updates once. */
struct sim_channel {
	sim_update_fn update;
	void *obj;
	struct sim_channel *next;
	bool requested;
};

void sim_channel_init(struct sim_channel *ch, sim_update_fn update, void *obj);
void sim_request_update(struct sim_kernel *k, struct sim_channel *ch);

#endif
