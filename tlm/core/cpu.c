/*
 * tlm/core/cpu.c - the CPU core (cpu.h): thread, issue, store buffer, load window; the thread
 * side of the op API (ct_*) and the host side's dispatch (ch_*).
 */
#include "tlm/core/cpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/kernel/coro.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/store.h"
#include "util/mix.h"

/* ---- parameters ------------------------------------------------------------------------------ */

#define CF(f) offsetof(struct cpu_core_cfg, f)
static const struct cs_param cpu_rows[] = {
    {"clock_mhz", CS_P_UINT, CF(clock_mhz), "3500", "MHz",
     "core clock (seed 002 Table III: CPU at 3.5 GHz)", 1, 100000, NULL},
    {"store_buffer", CS_P_UINT, CF(store_buffer), "32", "entries",
     "store-buffer entries; a store that finds it full stalls the thread (inferred: seed 002 "
     "runs gem5's X86O3CPU, whose store queue holds 32 entries by default; the paper gives none)",
     1, 4096, NULL},
    {"mlp", CS_P_UINT, CF(mlp), "16", "loads",
     "loads outstanding at once (ct_ldv): the memory-level parallelism window (inferred: gem5 "
     "Ruby's sequencer, which seed 002's cores send through, holds 16 requests by default)",
     1, CPU_LDV_MAX, NULL},
    {"commit_cycles", CS_P_UINT, CF(commit_cycles), "4", "cycles",
     "cycles from a store's issue until it may leave the store buffer: it is written to memory "
     "only once retired (inferred: the stages from the memory stage to retirement of a short "
     "in-order pipeline)",
     0, 1000, NULL},
    {"spin_limit", CS_P_UINT, CF(spin_limit), "100000", "iterations",
     "spin iterations after which a flag wait is reported as a livelock", 1, UINT32_MAX, NULL},
    {"stack_kib", CS_P_UINT, CF(stack_kib), "64", "KiB", "stack of each core's thread coroutine",
     16, 65536, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table cpu_core_params = {
    .section = "cpu",
    .help = "the CPU cores: clock, in-order issue, store buffer (x86-TSO), load window",
    .params = cpu_rows,
    .size = sizeof(struct cpu_core_cfg),
};

/* ---- state ----------------------------------------------------------------------------------- */

enum op_kind { OP_NONE = 0, OP_LD, OP_ST, OP_ATOM, OP_FENCE, OP_COMPUTE, OP_DEVICE, OP_EXIT };

/* What the core is waiting for before the posted op can go on (for stall accounting). */
enum wait_kind { WAIT_NONE = 0, WAIT_SB_FULL, WAIT_FORWARD, WAIT_DRAIN, WAIT_WINDOW };

#define ID_ST	0x10000u /* the store-buffer head's access */
#define ID_ATOM 0x10001u

struct sb_entry {
	uint64_t addr, val, seq;
	sim_time_t ready; /* retired: may leave the buffer */
	uint8_t bytes;
};

struct cpu_op {
	uint8_t kind;
	uint8_t bytes;
	uint8_t atom;
	bool issued; /* ATOM, COMPUTE: sent */
	bool fetch;  /* LD: an instruction fetch (ct_ifetch): no forwarding, CPU_MEM_IFETCH */
	unsigned n;  /* LD: loads in the op */
	unsigned next, done;
	const uint64_t *addr; /* LD: n addresses */
	uint64_t *out;	      /* LD: n values */
	uint64_t val, a, b;   /* ST value; ATOM operands */
	uint64_t cycles;
	uint64_t wait_seq;	/* WAIT_FORWARD: until the entry with this sequence is performed */
	struct cpu_dev_req dev; /* DEVICE: the request */
};

struct cpu_stats {
	uint64_t *insts, *loads, *stores, *atomics, *fences, *compute_cycles, *spin_work;
	uint64_t *forwards, *forward_waits, *lt_ops, *sb_stalls, *sb_stall_cycles, *fence_waits,
	    *fence_wait_cycles, *mlp_stalls, *refused, *drained, *ifetches;
};

struct cpu_core {
	struct sim_kernel *k;
	struct cpu_core_cfg cfg;
	unsigned id;
	struct cpu_core_env env;
	struct sim_clock clk;
	const struct cpu_mem_ops *mops;
	struct cpu_mem *mem;
	unsigned line_bytes;

	/* the thread */
	struct sim_coro *co;
	const struct cpu_program *prog;
	unsigned tid;
	uint64_t rng;
	bool live; /* a thread runs (or its store buffer still drains after its exit) */
	struct cpu_op op;
	uint64_t ret;	 /* the value a blocking op returns */
	uint64_t one[1]; /* ct_ld's address and value */

	/* issue */
	sim_time_t last_issue;
	bool issued_once;
	bool tick_pending;
	uint8_t wait; /* enum wait_kind */
	sim_time_t wait_since;
	bool load_refused;
	unsigned outstanding; /* loads and atomics sent, not yet done */

	/* store buffer: a ring */
	struct sb_entry *sb;
	unsigned sb_head, sb_n, sb_cap;
	uint64_t sb_seq; /* sequence number of the next entry */
	bool sb_inflight, sb_refused, sb_pump_pending;
	uint8_t st_data[CPU_LINE_MAX];

	struct cpu_stats st;
	uint64_t spin_mark; /* ops and compute cycles at the last ct_spin_guard */

	/* faces (enum cpu_face): the sampling layer's switches */
	uint8_t face;
	bool hold; /* AT: issue nothing new and send no store (a drain) */
	sim_time_t quantum;
	/* LT, FF: the thread's own time (when its posted op was posted) */
	sim_time_t lt_t;
	bool lt_pending, lt_running, lt_exit_pending;
	/* the store buffer in LT: the head sent (performed at memory) and when it is done */
	bool lt_head_sent;
	sim_time_t lt_head_done;
	sim_time_t lt_sb_retry; /* the head was refused: offered again no earlier */
	/* AT after LT: the thread's time, when its posted op goes on (until then it waits) */
	sim_time_t at_wake;
	/* AT: when the compute op in progress ends (another face takes it over from there: a
	 * drain does not wait for it, nothing of it is in flight), and the generation that
	 * tells its end event whether it is still the face's */
	sim_time_t at_compute_end;
	uint64_t at_compute_gen;
	uint64_t at_wake_gen; /* likewise for the event that wakes the thread at at_wake */
	/* when the last entry left the buffer: the next may be sent no earlier (both faces) */
	sim_time_t sb_free_at;
	uint8_t lt_line[CPU_LINE_MAX];

	/* the coherence checker (cpu_core_set_check), NULL when off; chk_who: this core's reader */
	struct cohcheck *chk;
	unsigned chk_who;
};

static inline struct cpu_core *C(struct cpu_thread *t)
{
	return (struct cpu_core *)t;
}

static inline const struct cpu_core *CC(const struct cpu_thread *t)
{
	return (const struct cpu_core *)t;
}

static void core_fail(struct cpu_core *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void core_fail(struct cpu_core *c, int code, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->env.fail(c->env.sys, code, msg);
}

static uint64_t cycles_between(const struct cpu_core *c, sim_time_t a, sim_time_t b)
{
	return b > a ? sim_clock_cycle(&c->clk, b) - sim_clock_cycle(&c->clk, a) : 0;
}

/* ---- issue ----------------------------------------------------------------------------------- */

static void core_step(struct sim_kernel *k, void *obj, void *arg);
static void sb_pump(struct cpu_core *c);
static void lt_kick(struct cpu_core *c);

/* The posted op may make progress: a step at the next cycle edge the core may issue in. */
static void core_kick(struct cpu_core *c)
{
	sim_time_t now = sim_now(c->k), at;

	if (c->tick_pending || c->op.kind == OP_NONE)
		return;
	at = sim_clock_next_edge(&c->clk, now);
	if (c->issued_once && at <= c->last_issue)
		at = c->last_issue + sim_clock_delay(&c->clk, c->last_issue, 1);
	c->tick_pending = true;
	sim_schedule_at(c->k, at, SIM_PRIO_DEFAULT + 2, core_step, c, NULL);
}

/* The posted op is over: the thread runs to its next op. */
static void thread_resume(struct cpu_core *c)
{
	c->op.kind = OP_NONE;
	c->wait = WAIT_NONE;
	sim_coro_resume(c->co);
	if (c->face != CPU_FACE_AT) {
		lt_kick(c); /* the LT run performs it (at once when it is the run that resumed) */
		return;
	}
	if (c->op.kind == OP_EXIT) {
		if (!c->sb_n)
			goto exited;
		return; /* the store buffer drains first; sb_done() finishes it */
	}
	core_kick(c);
	return;
exited:
	c->op.kind = OP_NONE;
	c->live = false;
	c->env.thread_done(c->env.sys, c->id);
}

/* The stall counter of a wait's cause (both faces). */
static void wait_count(struct cpu_core *c, uint8_t why)
{
	switch (why) {
	case WAIT_SB_FULL:
		(*c->st.sb_stalls)++;
		break;
	case WAIT_FORWARD:
		(*c->st.forward_waits)++;
		break;
	case WAIT_DRAIN:
		(*c->st.fence_waits)++;
		break;
	default:
		(*c->st.mlp_stalls)++;
		break;
	}
}

static void wait_begin(struct cpu_core *c, uint8_t why)
{
	if (c->wait == why)
		return;
	c->wait = why;
	c->wait_since = sim_now(c->k);
	wait_count(c, why);
}

static void wait_end(struct cpu_core *c)
{
	uint64_t n = cycles_between(c, c->wait_since, sim_now(c->k));

	if (c->wait == WAIT_SB_FULL)
		*c->st.sb_stall_cycles += n;
	else if (c->wait == WAIT_DRAIN)
		*c->st.fence_wait_cycles += n;
	c->wait = WAIT_NONE;
}

/* The value bits of a `bytes`-wide word. */
static uint64_t width_mask(unsigned bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

/* A byte mask of `bytes` bytes from bit 0 (one bit per byte of the line). */
static uint64_t byte_bits(unsigned bytes)
{
	return (1ull << bytes) - 1;
}

/* ---- the coherence checker's hooks (tlm/mem/cohcheck.h) --------------------------------------
 * Values a core reads at memory, in the order its memory side performs them: its loads (not
 * forwarded ones: a buffered store is in no write order yet), the old value of its atomics,
 * and, as what the core has seen from then on, the value its store or atomic put there. The
 * checker orders 4-byte words: 1- and 2-byte accesses are not checked. */

static void chk_read(const struct cpu_core *c, uint64_t addr, unsigned bytes, uint64_t v)
{
	if (c->chk && bytes >= 4)
		cohcheck_read(c->chk, c->chk_who, addr, bytes, v);
}

/* The posted atomic performed with old value `old`. */
static void chk_atomic(const struct cpu_core *c, uint64_t old)
{
	const struct cpu_op *op = &c->op;
	uint64_t v = old;

	if (!c->chk || op->bytes < 4)
		return;
	(void)mem_atomic_apply(&v, op->bytes, op->atom, op->a, op->b);
	chk_read(c, op->addr[0], op->bytes, old);
	chk_read(c, op->addr[0], op->bytes, v);
}

/* Forwarding for a load of `bytes` at addr: 1 = value in *v, 0 = no buffered store overlaps,
 * -1 = the youngest overlapping store covers only part of it (*seq: that entry). */
static int sb_forward(const struct cpu_core *c, uint64_t addr, unsigned bytes, uint64_t *v,
		      uint64_t *seq)
{
	for (unsigned i = c->sb_n; i-- > 0;) {
		const struct sb_entry *e = &c->sb[(c->sb_head + i) % c->sb_cap];

		if (!(addr < e->addr + e->bytes && e->addr < addr + bytes))
			continue;
		if (e->addr <= addr && addr + bytes <= e->addr + e->bytes) {
			*v = (e->val >> (8 * (addr - e->addr))) & width_mask(bytes);
			return 1;
		}
		*seq = e->seq;
		return -1;
	}
	return 0;
}

/* The sequence number of the oldest entry still buffered (the next one if empty). */
static uint64_t sb_oldest_seq(const struct cpu_core *c)
{
	return c->sb_n ? c->sb[c->sb_head].seq : c->sb_seq;
}

/* The memory request of the load op's load at addr (every face), and the counter it counts in.
 * An instruction fetch goes to the instruction side (CPU_MEM_IFETCH). */
static void load_req(const struct cpu_core *c, uint64_t addr, struct cpu_mem_req *r)
{
	*r = (struct cpu_mem_req){.kind = c->op.fetch ? CPU_MEM_IFETCH : CPU_MEM_LD};
	r->line_addr = addr & ~(uint64_t)(c->line_bytes - 1);
	r->byte_mask = byte_bits(c->op.bytes) << (addr - r->line_addr);
}

static uint64_t *load_counter(const struct cpu_core *c)
{
	return c->op.fetch ? c->st.ifetches : c->st.loads;
}

/* Forwarding for the load op's load at addr (sb_forward); an instruction fetch never looks at
 * the store buffer (ct_ifetch). */
static int op_forward(const struct cpu_core *c, uint64_t addr, uint64_t *v, uint64_t *seq)
{
	return c->op.fetch ? 0 : sb_forward(c, addr, c->op.bytes, v, seq);
}

/* One cycle of the load op: forward, wait, or send the next load. Returns true when it used
 * the cycle's issue slot. */
static bool step_load(struct cpu_core *c)
{
	struct cpu_op *op = &c->op;
	uint64_t addr = op->addr[op->next], v = 0, seq = 0;
	struct cpu_mem_req r;
	int f;

	if (c->wait == WAIT_FORWARD) {
		if (sb_oldest_seq(c) <= op->wait_seq)
			return false;
		wait_end(c);
	}
	f = op_forward(c, addr, &v, &seq);
	if (f > 0) {
		op->out[op->next++] = v;
		op->done++;
		(*c->st.forwards)++;
		(*c->st.loads)++;
		return true;
	}
	if (f < 0) {
		op->wait_seq = seq;
		wait_begin(c, WAIT_FORWARD);
		return false;
	}
	if (c->outstanding >= c->cfg.mlp) {
		wait_begin(c, WAIT_WINDOW);
		return false;
	}
	if (c->wait == WAIT_WINDOW)
		wait_end(c);
	load_req(c, addr, &r);
	r.id = op->next;
	if (!c->mops->access(c->mem, &r)) {
		c->load_refused = true;
		(*c->st.refused)++;
		return false;
	}
	c->outstanding++;
	op->next++;
	(*load_counter(c))++;
	return true;
}

static void compute_over(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;

	(void)k;
	if ((uint64_t)(uintptr_t)arg != c->at_compute_gen)
		return; /* another face took the op over (cpu_core_set_face) */
	thread_resume(c);
}

/* The posted store enters the store buffer (both faces); it may leave commit_cycles later. */
static void sb_put(struct cpu_core *c, sim_time_t now)
{
	struct cpu_op *op = &c->op;
	struct sb_entry *e = &c->sb[(c->sb_head + c->sb_n) % c->sb_cap];

	e->addr = op->addr[0];
	e->bytes = op->bytes;
	e->val = op->val & width_mask(op->bytes);
	e->seq = c->sb_seq++;
	e->ready = now + sim_clock_delay(&c->clk, now, c->cfg.commit_cycles);
	c->sb_n++;
	(*c->st.stores)++;
}

/* ---- device requests (ct_launch, ct_gpu_wait, ct_dma_copy) ----------------------------------- */

static void device_call(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;

	(void)k;
	(void)arg;
	c->env.device(c->env.sys, c->id, &c->op.dev);
}

/* The store buffer is empty at t (>= now in AT; the thread's time in LT and FF): the request
 * reaches the system at t of the kernel's time, and the thread waits for the answer. */
static void device_issue(struct cpu_core *c, sim_time_t t)
{
	sim_time_t now = sim_now(c->k);

	c->op.issued = true;
	c->last_issue = t;
	c->issued_once = true;
	sim_schedule_at(c->k, t > now ? t : now, SIM_PRIO_DEFAULT + 1, device_call, c, NULL);
}

void cpu_core_device_done(struct cpu_core *c, int rc)
{
	if (c->op.kind != OP_DEVICE || !c->op.issued) {
		core_fail(c, -CS_ESTATE, "cpu%u: a device answered no request", c->id);
		return;
	}
	if (rc) {
		core_fail(c, rc, "cpu%u: the device request failed", c->id);
		return;
	}
	if (c->face != CPU_FACE_AT && c->lt_t < sim_now(c->k))
		c->lt_t = sim_now(c->k);
	thread_resume(c);
}

const struct cpu_dev_req *cpu_core_device_req(const struct cpu_core *c)
{
	return &c->op.dev;
}

static void core_step(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;
	struct cpu_op *op = &c->op;
	sim_time_t now = sim_now(k);
	bool used = false;

	(void)arg;
	c->tick_pending = false;
	if (c->hold || c->face != CPU_FACE_AT || c->at_wake > now)
		return; /* a drain, a step left from before a switch, or the thread's LT time
			 * not reached yet (at_resume steps then) */
	switch (op->kind) {
	case OP_COMPUTE:
		if (op->issued)
			return;
		op->issued = true;
		used = true;
		*c->st.compute_cycles += op->cycles;
		c->at_compute_end = now + sim_clock_delay(&c->clk, now, op->cycles);
		sim_schedule_at(k, c->at_compute_end, SIM_PRIO_DEFAULT + 1, compute_over, c,
				(void *)(uintptr_t)++c->at_compute_gen);
		break;
	case OP_ST:
		if (c->sb_n == c->sb_cap) {
			wait_begin(c, WAIT_SB_FULL);
			return;
		}
		if (c->wait == WAIT_SB_FULL)
			wait_end(c);
		sb_put(c, now);
		c->last_issue = now;
		c->issued_once = true;
		sb_pump(c);
		thread_resume(c);
		return;
	case OP_LD:
		if (op->next < op->n)
			used = step_load(c);
		if (op->next == op->n && op->done == op->n) {
			if (used) {
				c->last_issue = now;
				c->issued_once = true;
			}
			thread_resume(c);
			return;
		}
		if (used && op->next < op->n) {
			c->last_issue = now;
			c->issued_once = true;
			core_kick(c);
			return;
		}
		break;
	case OP_ATOM:
	case OP_FENCE:
	case OP_DEVICE:
		if (op->issued)
			return;
		if (c->sb_n || c->outstanding) {
			wait_begin(c, WAIT_DRAIN);
			return;
		}
		if (c->wait == WAIT_DRAIN)
			wait_end(c);
		if (op->kind == OP_DEVICE) {
			device_issue(c, now);
			return;
		}
		if (op->kind == OP_FENCE) {
			(*c->st.fences)++;
			c->last_issue = now;
			c->issued_once = true;
			thread_resume(c);
			return;
		}
		{
			uint64_t addr = op->addr[0];
			struct cpu_mem_req r = {
			    .kind = CPU_MEM_ATOM,
			    .atom_op = op->atom,
			    .bytes = op->bytes,
			    .id = ID_ATOM,
			    .a = op->a,
			    .b = op->b,
			};

			r.line_addr = addr & ~(uint64_t)(c->line_bytes - 1);
			r.offset = (uint16_t)(addr - r.line_addr);
			r.byte_mask = byte_bits(op->bytes) << r.offset;
			if (!c->mops->access(c->mem, &r)) {
				c->load_refused = true;
				(*c->st.refused)++;
				return;
			}
			op->issued = true;
			c->outstanding++;
			(*c->st.atomics)++;
			used = true;
		}
		break;
	default:
		return;
	}
	if (used) {
		c->last_issue = now;
		c->issued_once = true;
	}
}

/* ---- the store buffer ------------------------------------------------------------------------ */

static void sb_pump_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;

	(void)k;
	(void)arg;
	c->sb_pump_pending = false;
	sb_pump(c);
}

/* Sends the head entry once it is retired and nothing of the buffer is in flight. */
static void sb_pump(struct cpu_core *c)
{
	const struct sb_entry *e;
	struct cpu_mem_req r = {0};
	sim_time_t now = sim_now(c->k);
	unsigned off;

	if (!c->sb_n || c->sb_inflight || c->sb_pump_pending || c->hold || c->face != CPU_FACE_AT)
		return;
	e = &c->sb[c->sb_head];
	if (e->ready > now || c->sb_free_at > now) {
		/* sb_free_at: an entry the LT face sent left the buffer at that time */
		c->sb_pump_pending = true;
		sim_schedule_at(c->k, e->ready > c->sb_free_at ? e->ready : c->sb_free_at,
				SIM_PRIO_DEFAULT + 1, sb_pump_cb, c, NULL);
		return;
	}
	r.kind = CPU_MEM_ST;
	r.id = ID_ST;
	r.line_addr = e->addr & ~(uint64_t)(c->line_bytes - 1);
	off = (unsigned)(e->addr - r.line_addr);
	r.byte_mask = byte_bits(e->bytes) << off;
	for (unsigned i = 0; i < e->bytes; i++)
		c->st_data[off + i] = (uint8_t)(e->val >> (8 * i));
	r.data = c->st_data;
	if (!c->mops->access(c->mem, &r)) {
		c->sb_refused = true;
		(*c->st.refused)++;
		return;
	}
	c->sb_inflight = true;
}

/* The head store is performed: it leaves the buffer, the next may go. */
static void sb_done(struct cpu_core *c)
{
	c->sb_inflight = false;
	c->sb_free_at = sim_now(c->k);
	c->sb_head = (c->sb_head + 1) % c->sb_cap;
	c->sb_n--;
	(*c->st.drained)++;
	sb_pump(c);
	if (c->op.kind == OP_EXIT) {
		if (!c->sb_n) {
			c->op.kind = OP_NONE;
			c->live = false;
			c->env.thread_done(c->env.sys, c->id);
		}
		return;
	}
	if (c->wait == WAIT_SB_FULL || c->wait == WAIT_FORWARD || c->wait == WAIT_DRAIN)
		core_kick(c);
}

/* ---- the memory side's answers --------------------------------------------------------------- */

static void mem_done(void *obj, uint32_t id, const uint8_t *line, uint64_t old)
{
	struct cpu_core *c = obj;
	struct cpu_op *op = &c->op;

	if (id == ID_ST) {
		const struct sb_entry *e = &c->sb[c->sb_head];

		chk_read(c, e->addr, e->bytes, e->val);
		sb_done(c);
		return;
	}
	c->outstanding--;
	if (id == ID_ATOM) {
		chk_atomic(c, old);
		c->ret = old;
		thread_resume(c);
		return;
	}
	if (op->kind != OP_LD || id >= op->n || !line) {
		core_fail(c, -CS_ESTATE, "cpu%u: an answer to no load (id %u)", c->id, id);
		return;
	}
	{
		uint64_t addr = op->addr[id], v = 0;
		unsigned off = (unsigned)(addr & (c->line_bytes - 1));

		for (unsigned i = 0; i < op->bytes; i++)
			v |= (uint64_t)line[off + i] << (8 * i);
		op->out[id] = v;
		chk_read(c, addr, op->bytes, v);
	}
	op->done++;
	if (op->next == op->n && op->done == op->n) {
		thread_resume(c);
		return;
	}
	if (c->wait == WAIT_WINDOW)
		core_kick(c);
}

static void mem_retry(void *obj)
{
	struct cpu_core *c = obj;

	if (c->sb_refused) {
		c->sb_refused = false;
		sb_pump(c);
	}
	if (c->load_refused) {
		c->load_refused = false;
		core_kick(c);
	}
}

/* ---- the LT and FF faces ----------------------------------------------------------------------
 *
 * LT: the same thread, ops and store buffer, without events per op. The thread keeps its own
 * time (lt_t: when it posted its op) and runs up to the quantum ahead of the kernel's time;
 * each op is performed at once through the memory side's lt_access at the time the AT face
 * would have issued it, and the thread's time moves to when the AT face would have resumed it.
 * The store buffer keeps its entries: each is sent (performed at memory) at its AT time, when
 * it is retired and the entry before it is done, and leaves at its done time; the buffer is
 * advanced to each op's issue time before the op looks at it (forwarding, room, drains). The
 * arithmetic is the AT face's (issue at most one op per cycle, edges of the core's clock), so
 * a core whose memory side answers as in AT takes the same time in both faces.
 * FF: values only: each op one cycle of the thread's time, stores performed at once (the
 * buffer drained when the face starts), compute counted as work, not time. */

static sim_time_t max_t(sim_time_t a, sim_time_t b)
{
	return a > b ? a : b;
}

/* The cycle the AT face's core_kick at t would issue in. */
static sim_time_t lt_issue_at(const struct cpu_core *c, sim_time_t t)
{
	sim_time_t at = sim_clock_next_edge(&c->clk, t);

	if (c->issued_once && at <= c->last_issue)
		at = c->last_issue + sim_clock_delay(&c->clk, c->last_issue, 1);
	return at;
}

static void lt_issued(struct cpu_core *c, sim_time_t at)
{
	c->last_issue = at;
	c->issued_once = true;
}

/* Performs r through the LT face at *t or, while the memory side refuses it, at the times it
 * names (slot: a load's or atomic's, which takes the core's next issue cycle from there, as
 * the AT face's retry kicks the core). Returns its done time; SIM_TIME_MAX: the run failed. */
static void lt_sb_advance(struct cpu_core *c, sim_time_t t);

static sim_time_t lt_mem(struct cpu_core *c, const struct cpu_mem_req *r, sim_time_t *t, bool slot,
			 uint8_t *line, uint64_t *old)
{
	for (unsigned tries = 0;; tries++) {
		sim_time_t d = c->mops->lt_access(c->mem, r, *t, line, old), next;

		if (d != SIM_TIME_MAX)
			return d;
		(*c->st.refused)++;
		next = c->mops->lt_advance ? c->mops->lt_advance(c->mem, *t) : SIM_TIME_MAX;
		if (next == SIM_TIME_MAX || next <= *t || tries > 1000000) {
			core_fail(c, -CS_ESTATE,
				  "cpu%u: the memory side refused an access in LT and names no "
				  "time to offer it again",
				  c->id);
			return SIM_TIME_MAX;
		}
		if (!slot) {
			*t = next;
			continue;
		}
		/* the answer that frees the port lets the store buffer's head go first, as the AT
		 * face's retry() offers the buffer's refused head before the load */
		*t = lt_issue_at(c, next);
		lt_sb_advance(c, *t);
	}
}

/* When the head may be sent: retired, the entry before it done, and (refused) when the memory
 * side said. */
static sim_time_t lt_sb_send_time(const struct cpu_core *c)
{
	const struct sb_entry *e = &c->sb[c->sb_head];

	return max_t(max_t(e->ready, c->sb_free_at), c->lt_sb_retry);
}

/* Sends the head entry at its AT time, if that is by `until` (a refusal moves the time on:
 * it is offered again when the memory side names, as AT's retry() offers it, never at a time
 * beyond `until`, so that the core's calls stay in time order). */
static bool lt_sb_send(struct cpu_core *c, sim_time_t until)
{
	const struct sb_entry *e = &c->sb[c->sb_head];
	struct cpu_mem_req r = {0};
	unsigned off;

	r.kind = CPU_MEM_ST;
	r.id = ID_ST;
	r.line_addr = e->addr & ~(uint64_t)(c->line_bytes - 1);
	off = (unsigned)(e->addr - r.line_addr);
	r.byte_mask = byte_bits(e->bytes) << off;
	for (unsigned i = 0; i < e->bytes; i++)
		c->st_data[off + i] = (uint8_t)(e->val >> (8 * i));
	r.data = c->st_data;
	for (;;) {
		sim_time_t s = lt_sb_send_time(c), d, next;

		if (s > until || sim_failure(c->k))
			return false;
		d = c->mops->lt_access(c->mem, &r, s, NULL, NULL);
		if (d != SIM_TIME_MAX) {
			chk_read(c, e->addr, e->bytes, e->val);
			c->lt_sb_retry = 0;
			c->lt_head_sent = true;
			c->lt_head_done = d;
			return true;
		}
		(*c->st.refused)++;
		next = c->mops->lt_advance ? c->mops->lt_advance(c->mem, s) : SIM_TIME_MAX;
		if (next == SIM_TIME_MAX || next <= s) {
			core_fail(c, -CS_ESTATE,
				  "cpu%u: the memory side refused a store in LT and names no time "
				  "to offer it again",
				  c->id);
			return false;
		}
		c->lt_sb_retry = next;
	}
}

static void lt_sb_pop(struct cpu_core *c)
{
	c->lt_head_sent = false;
	c->sb_free_at = c->lt_head_done;
	c->sb_head = (c->sb_head + 1) % c->sb_cap;
	c->sb_n--;
	(*c->st.drained)++;
}

/* The buffer as the AT face has drained it by t: entries sent by then are performed, those
 * done by then have left. */
static void lt_sb_advance(struct cpu_core *c, sim_time_t t)
{
	while (c->sb_n && !sim_failure(c->k)) {
		if (!c->lt_head_sent && !lt_sb_send(c, t))
			return;
		if (c->lt_head_done > t)
			return;
		lt_sb_pop(c);
	}
}

/* Drains the buffer through the entry with sequence number seq (UINT64_MAX: all); returns
 * when the last of them left. */
static sim_time_t lt_sb_through(struct cpu_core *c, uint64_t seq)
{
	while (c->sb_n && c->sb[c->sb_head].seq <= seq && !sim_failure(c->k)) {
		if (!c->lt_head_sent && !lt_sb_send(c, SIM_TIME_MAX))
			break;
		lt_sb_pop(c);
	}
	return c->sb_free_at;
}

/* A wait from issue cycle u until the AT face's kick at x: its stall counters; returns the
 * cycle the op is tried again in. */
static sim_time_t lt_wait(struct cpu_core *c, uint8_t why, sim_time_t u, sim_time_t x)
{
	sim_time_t at = lt_issue_at(c, x);

	wait_count(c, why);
	if (why == WAIT_SB_FULL)
		*c->st.sb_stall_cycles += cycles_between(c, u, at);
	else if (why == WAIT_DRAIN)
		*c->st.fence_wait_cycles += cycles_between(c, u, at);
	return at;
}

/* A load op (ct_ld, ct_ldv) from its next load on, issued from cycle u. */
static void lt_load(struct cpu_core *c, sim_time_t u)
{
	struct cpu_op *op = &c->op;
	sim_time_t pend[CPU_LDV_MAX], last = 0;
	unsigned np = 0;

	while (op->next < op->n && !sim_failure(c->k)) {
		uint64_t addr = op->addr[op->next], v = 0, seq = 0;
		struct cpu_mem_req r;
		sim_time_t d;
		unsigned keep = 0, off;
		int f;

		lt_sb_advance(c, u);
		for (unsigned i = 0; i < np; i++) /* answers by u are in before the step */
			if (pend[i] > u)
				pend[keep++] = pend[i];
		np = keep;
		f = op_forward(c, addr, &v, &seq);
		if (f > 0) {
			op->out[op->next++] = v;
			op->done++;
			(*c->st.forwards)++;
			(*c->st.loads)++;
			lt_issued(c, u);
			if (op->next < op->n)
				u = lt_issue_at(c, u);
			continue;
		}
		if (f < 0) {
			u = lt_wait(c, WAIT_FORWARD, u, lt_sb_through(c, seq));
			continue;
		}
		if (np >= c->cfg.mlp) {
			sim_time_t first = pend[0];

			for (unsigned i = 1; i < np; i++)
				if (pend[i] < first)
					first = pend[i];
			u = lt_wait(c, WAIT_WINDOW, u, first);
			continue;
		}
		load_req(c, addr, &r);
		r.id = op->next;
		d = lt_mem(c, &r, &u, true, c->lt_line, NULL);
		if (d == SIM_TIME_MAX)
			return;
		off = (unsigned)(addr - r.line_addr);
		for (unsigned i = 0; i < op->bytes; i++)
			v |= (uint64_t)c->lt_line[off + i] << (8 * i);
		chk_read(c, addr, op->bytes, v);
		op->out[op->next++] = v;
		op->done++;
		(*load_counter(c))++;
		lt_issued(c, u);
		pend[np++] = d;
		last = max_t(last, d);
		if (op->next < op->n)
			u = lt_issue_at(c, u);
	}
	/* the thread goes on when the last answer is in (or in the cycle of a last forward) */
	c->lt_t = max_t(u, last);
}

/* An atomic's request for the posted op. */
static void atom_req(const struct cpu_core *c, struct cpu_mem_req *r)
{
	const struct cpu_op *op = &c->op;
	uint64_t addr = op->addr[0];

	*r = (struct cpu_mem_req){
	    .kind = CPU_MEM_ATOM,
	    .atom_op = op->atom,
	    .bytes = op->bytes,
	    .id = ID_ATOM,
	    .a = op->a,
	    .b = op->b,
	};
	r->line_addr = addr & ~(uint64_t)(c->line_bytes - 1);
	r->offset = (uint16_t)(addr - r->line_addr);
	r->byte_mask = byte_bits(op->bytes) << r->offset;
}

/* LT: performs the posted op (not the exit) at the AT face's times. */
static void lt_op(struct cpu_core *c)
{
	struct cpu_op *op = &c->op;
	sim_time_t u = lt_issue_at(c, c->lt_t);
	struct cpu_mem_req r;
	uint64_t old = 0;
	sim_time_t d;

	if (op->kind == OP_LD) {
		lt_load(c, u);
		return;
	}
	lt_sb_advance(c, u);
	switch (op->kind) {
	case OP_COMPUTE:
		*c->st.compute_cycles += op->cycles;
		lt_issued(c, u);
		c->lt_t = u + sim_clock_delay(&c->clk, u, op->cycles);
		return;
	case OP_ST:
		if (c->sb_n == c->sb_cap) {
			u = lt_wait(c, WAIT_SB_FULL, u, lt_sb_through(c, c->sb[c->sb_head].seq));
			lt_sb_advance(c, u);
		}
		sb_put(c, u);
		lt_issued(c, u);
		c->lt_t = u;
		return;
	case OP_FENCE:
	case OP_ATOM:
	case OP_DEVICE:
		if (c->sb_n)
			u = lt_wait(c, WAIT_DRAIN, u, lt_sb_through(c, UINT64_MAX));
		if (op->kind == OP_DEVICE) {
			lt_issued(c, u);
			c->lt_t = u;
			device_issue(c, u);
			return;
		}
		if (op->kind == OP_FENCE) {
			(*c->st.fences)++;
			lt_issued(c, u);
			c->lt_t = u;
			return;
		}
		atom_req(c, &r);
		d = lt_mem(c, &r, &u, true, NULL, &old);
		if (d == SIM_TIME_MAX)
			return;
		(*c->st.atomics)++;
		chk_atomic(c, old);
		lt_issued(c, u);
		c->ret = old;
		c->lt_t = d;
		return;
	default:
		core_fail(c, -CS_ESTATE, "cpu%u: no op to perform", c->id);
		return;
	}
}

/* FF: values only, one cycle of the thread's time per op (from the time the memory side named,
 * if it refused an access). */
static void ff_op(struct cpu_core *c)
{
	struct cpu_op *op = &c->op;
	struct cpu_mem_req r = {0};
	sim_time_t t = c->lt_t;
	uint64_t old = 0;
	unsigned off;

	switch (op->kind) {
	case OP_COMPUTE:
		*c->st.compute_cycles += op->cycles; /* its work, so that cycles per work apply */
		break;
	case OP_LD:
		for (; op->next < op->n; op->next++, op->done++) {
			uint64_t addr = op->addr[op->next], v = 0;

			load_req(c, addr, &r);
			if (lt_mem(c, &r, &t, false, c->lt_line, NULL) == SIM_TIME_MAX)
				return;
			off = (unsigned)(addr - r.line_addr);
			for (unsigned i = 0; i < op->bytes; i++)
				v |= (uint64_t)c->lt_line[off + i] << (8 * i);
			chk_read(c, addr, op->bytes, v);
			op->out[op->next] = v;
			(*load_counter(c))++;
		}
		break;
	case OP_ST:
		r.kind = CPU_MEM_ST;
		r.line_addr = op->addr[0] & ~(uint64_t)(c->line_bytes - 1);
		off = (unsigned)(op->addr[0] - r.line_addr);
		r.byte_mask = byte_bits(op->bytes) << off;
		for (unsigned i = 0; i < op->bytes; i++)
			c->st_data[off + i] = (uint8_t)(op->val >> (8 * i));
		r.data = c->st_data;
		if (lt_mem(c, &r, &t, false, NULL, NULL) == SIM_TIME_MAX)
			return;
		chk_read(c, op->addr[0], op->bytes, op->val & width_mask(op->bytes));
		(*c->st.stores)++;
		break;
	case OP_ATOM:
		atom_req(c, &r);
		if (lt_mem(c, &r, &t, false, NULL, &old) == SIM_TIME_MAX)
			return;
		(*c->st.atomics)++;
		chk_atomic(c, old);
		c->ret = old;
		break;
	case OP_FENCE:
		(*c->st.fences)++;
		break;
	case OP_DEVICE:
		device_issue(c, t);
		return;
	default:
		break;
	}
	c->lt_t = t + sim_clock_delay(&c->clk, t, 1);
}

static void lt_exit_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;

	(void)k;
	(void)arg;
	c->lt_exit_pending = false;
	c->live = false;
	c->env.thread_done(c->env.sys, c->id);
}

/* The thread returned: its buffer drains at its AT times, then the thread is done, at that
 * time of the kernel (the program's end is the last thread's). */
static void lt_exit(struct cpu_core *c)
{
	sim_time_t t = max_t(c->lt_t, lt_sb_through(c, UINT64_MAX));

	c->op.kind = OP_NONE;
	c->lt_exit_pending = true;
	sim_schedule_at(c->k, max_t(t, sim_now(c->k)), SIM_PRIO_DEFAULT + 2, lt_exit_cb, c, NULL);
}

static void lt_run(struct sim_kernel *k, void *obj, void *arg);

static void lt_schedule(struct cpu_core *c, sim_time_t at)
{
	sim_time_t now = sim_now(c->k);

	if (c->lt_pending || c->lt_running)
		return;
	c->lt_pending = true;
	sim_schedule_at(c->k, at > now ? at : now, SIM_PRIO_DEFAULT + 1, lt_run, c, NULL);
}

static void lt_kick(struct cpu_core *c)
{
	lt_schedule(c, sim_now(c->k));
}

/* One run: the thread's ops while its time is within the quantum from now. */
static void lt_run(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;
	sim_time_t end = sim_now(k) + c->quantum, next;

	(void)arg;
	c->lt_pending = false;
	if (c->face == CPU_FACE_AT)
		return;
	c->lt_running = true;
	while (c->face != CPU_FACE_AT && c->op.kind != OP_NONE && !sim_failure(k)) {
		if (c->op.kind == OP_EXIT) {
			lt_exit(c);
			break;
		}
		if (c->op.kind == OP_DEVICE && c->op.issued)
			break; /* cpu_core_device_done resumes the thread */
		if (c->lt_t >= end)
			break;
		if (c->op.kind == OP_COMPUTE && c->op.issued) {
			/* the AT face's compute op, counted there, over at lt_t */
			thread_resume(c);
			continue;
		}
		(*c->st.lt_ops)++;
		if (c->face == CPU_FACE_FF)
			ff_op(c);
		else
			lt_op(c);
		if (c->op.kind == OP_DEVICE)
			break;
		thread_resume(c);
	}
	c->lt_running = false;
	if (c->face == CPU_FACE_AT || c->op.kind == OP_NONE ||
	    (c->op.kind == OP_DEVICE && c->op.issued) || sim_failure(k))
		return; /* an issued device request: cpu_core_device_done resumes the thread */
	/* stores the AT face sends by the quantum's end are sent by then, not when the thread's
	 * next op comes (it may lie far beyond: other cores would see them late) */
	if (c->face == CPU_FACE_LT)
		lt_sb_advance(c, c->lt_t < end ? c->lt_t : end);
	next = c->lt_t;
	if (c->sb_n && c->face == CPU_FACE_LT) {
		sim_time_t s = c->lt_head_sent ? c->lt_head_done : lt_sb_send_time(c);

		if (s < next)
			next = s;
	}
	lt_schedule(c, next > end ? next - c->quantum / 2 : end);
}

/* ---- switching faces ------------------------------------------------------------------------- */

static void at_resume(struct sim_kernel *k, void *obj, void *arg)
{
	struct cpu_core *c = obj;

	(void)k;
	if ((uint64_t)(uintptr_t)arg != c->at_wake_gen || c->face != CPU_FACE_AT ||
	    c->op.kind == OP_NONE)
		return;
	if (c->op.kind == OP_EXIT) {
		if (!c->sb_n && !c->sb_inflight) {
			c->op.kind = OP_NONE;
			c->live = false;
			c->env.thread_done(c->env.sys, c->id);
		}
		return; /* else sb_done() finishes it */
	}
	core_kick(c);
}

static void lt_head_done_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)arg;
	sb_done(obj);
}

void cpu_core_set_face(struct cpu_core *c, unsigned face)
{
	sim_time_t now = sim_now(c->k);

	if (face == c->face || !c->mops || !c->mops->lt_access)
		return;
	if (c->face == CPU_FACE_AT) {
		/* drained: nothing in flight; the posted op (or the rest of a ct_ldv) is issued
		 * from now on by the LT run */
		if (c->wait)
			wait_end(c);
		c->lt_t = max_t(now, c->at_wake);
		if (c->op.kind == OP_COMPUTE && c->op.issued) {
			c->at_compute_gen++; /* its end event is the AT face's: now LT's */
			c->lt_t = max_t(c->lt_t, c->at_compute_end);
		}
		c->lt_head_sent = false;
		c->face = (uint8_t)face;
		c->hold = false;
		if (face == CPU_FACE_FF)
			c->lt_t = max_t(c->lt_t, lt_sb_through(c, UINT64_MAX));
		if (c->live)
			lt_kick(c);
		return;
	}
	if (face == CPU_FACE_FF) {
		/* LT to FF: the buffer's stores performed at their times */
		c->lt_t = max_t(c->lt_t, lt_sb_through(c, UINT64_MAX));
		c->face = (uint8_t)face;
		lt_kick(c);
		return;
	}
	if (face == CPU_FACE_LT) {
		c->face = (uint8_t)face;
		lt_kick(c);
		return;
	}
	/* to AT: the head the LT face sent is done at its time; the rest of the buffer drains
	 * as the AT face drains it; the posted op issues at the thread's time */
	c->face = CPU_FACE_AT;
	c->hold = false;
	c->lt_sb_retry = 0;
	if (c->sb_n && c->lt_head_sent) {
		c->lt_head_sent = false;
		c->sb_inflight = true;
		sim_schedule_at(c->k, max_t(c->lt_head_done, now), SIM_PRIO_DEFAULT,
				lt_head_done_cb, c, NULL);
	} else if (c->sb_n) {
		sb_pump(c);
	}
	if (c->live && !c->lt_exit_pending && c->op.kind != OP_NONE) {
		c->at_wake = max_t(c->lt_t, now);
		sim_schedule_at(c->k, c->at_wake, SIM_PRIO_DEFAULT + 1, at_resume, c,
				(void *)(uintptr_t)++c->at_wake_gen);
	}
}

void cpu_core_hold(struct cpu_core *c, bool hold)
{
	bool was = c->hold;

	c->hold = hold;
	if (was && !hold && c->face == CPU_FACE_AT) {
		sb_pump(c);
		core_kick(c);
	}
}

bool cpu_core_busy(const struct cpu_core *c)
{
	/* neither a compute op in progress nor a thread waiting for its LT time (at_wake) is
	 * busy: nothing of theirs is in flight, and the next face goes on from their time (a
	 * drain held every SM for the rest of a CPU thread's op, as the SMs' owed compute does
	 * not) */
	return c->outstanding || c->sb_inflight || c->lt_exit_pending ||
	       (c->mem && !c->mops->idle(c->mem));
}

/* A core commits its ops and, in compute, one instruction a cycle (docs/energy.md, "CPU"). */
void cpu_core_energy(const struct cpu_core *c, struct energy_counts *out)
{
	energy_add(out, EN_CPU_INST, (double)*c->st.insts + (double)*c->st.compute_cycles);
	out->inst[EN_CPU] += 1;
}

uint64_t cpu_core_work(const struct cpu_core *c)
{
	return *c->st.insts + *c->st.compute_cycles - *c->st.spin_work;
}

unsigned cpu_core_occupancy(const struct cpu_core *c)
{
	return c->live ? 1 : 0;
}

void cpu_core_set_quantum(struct cpu_core *c, sim_time_t ps)
{
	c->quantum = ps ? ps : 1;
}

/* ---- life cycle ------------------------------------------------------------------------------ */

static void thread_main(void *arg)
{
	struct cpu_core *c = arg;

	for (;;) {
		c->prog->fn((struct cpu_thread *)c);
		c->op.kind = OP_EXIT;
		sim_coro_yield(c->co);
	}
}

static void stats_register(struct cpu_core *c, struct cs_stat_group *g)
{
	struct cpu_stats *s = &c->st;

	s->insts = cs_stat_counter(g, "insts", "", "ops the thread posted (a ct_ldv counts once)");
	s->loads = cs_stat_counter(g, "loads", "", "loads (forwarded ones included)");
	s->stores = cs_stat_counter(g, "stores", "", "stores put into the store buffer");
	s->atomics = cs_stat_counter(g, "atomics", "", "locked atomics");
	s->fences = cs_stat_counter(g, "fences", "", "MFENCEs");
	s->compute_cycles = cs_stat_counter(g, "compute_cycles", "cycles", "cycles of compute");
	s->spin_work =
	    cs_stat_counter(g, "spin_work", "",
			    "work (ops and compute cycles) of spin loops' repeated tries, "
			    "every face (left out of the sampler's progress)");
	s->forwards = cs_stat_counter(g, "sb.forwards", "",
				      "loads that took their value from the store buffer");
	s->forward_waits =
	    cs_stat_counter(g, "sb.partial_waits", "",
			    "loads that waited for a buffered store overlapping part of them");
	s->sb_stalls = cs_stat_counter(g, "sb.stalls", "", "stores that found the buffer full");
	s->sb_stall_cycles = cs_stat_counter(g, "sb.stall_cycles", "cycles",
					     "cycles threads waited for a store-buffer entry");
	s->drained = cs_stat_counter(g, "sb.drained", "", "stores performed from the buffer");
	s->fence_waits = cs_stat_counter(g, "stall.drain", "",
					 "MFENCEs and atomics that waited for the buffer to drain");
	s->fence_wait_cycles = cs_stat_counter(g, "stall.drain_cycles", "cycles",
					       "cycles MFENCEs and atomics waited to drain");
	s->mlp_stalls = cs_stat_counter(g, "stall.mlp", "",
					"loads that waited for the window of outstanding loads");
	s->refused = cs_stat_counter(g, "stall.refused", "", "accesses the memory side refused");
	s->lt_ops = cs_stat_counter(g, "lt_ops", "", "ops performed in the LT or FF face");
	s->ifetches = cs_stat_counter(g, "ifetches", "", "instruction fetches (ct_ifetch)");
}

int cpu_core_create(struct sim_kernel *k, const struct cpu_core_cfg *cfg, unsigned id,
		    const struct cpu_core_env *env, struct cs_stat_group *g, struct cpu_core **out,
		    struct cs_err *err)
{
	struct cpu_core *c = calloc(1, sizeof(*c));
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!c)
		goto fail;
	c->k = k;
	c->cfg = *cfg;
	c->id = id;
	c->env = *env;
	c->sb_cap = (unsigned)cfg->store_buffer;
	c->sb = calloc(c->sb_cap, sizeof(*c->sb));
	if (!c->sb)
		goto fail;
	rc = sim_clock_init(&c->clk, cfg->clock_mhz * 1000000);
	if (rc)
		goto fail;
	rc = sim_coro_create((size_t)cfg->stack_kib * 1024, thread_main, c, &c->co);
	if (rc)
		goto fail;
	stats_register(c, g);
	c->quantum = sim_global_quantum(k) ? sim_global_quantum(k) : 1;
	*out = c;
	return 0;
fail:
	cpu_core_destroy(c);
	return cs_err_set(err, rc, "cpu%u: %s", id, cs_strerror(rc));
}

void cpu_core_destroy(struct cpu_core *c)
{
	if (!c)
		return;
	if (c->co)
		sim_coro_destroy(c->co);
	free(c->sb);
	free(c);
}

const struct sim_clock *cpu_core_clock(const struct cpu_core *c)
{
	return &c->clk;
}

void cpu_core_attach(struct cpu_core *c, const struct cpu_mem_ops *ops, struct cpu_mem *mem)
{
	struct cpu_mem_client cl = {.core = c, .done = mem_done, .retry = mem_retry};

	c->mops = ops;
	c->mem = mem;
	c->line_bytes = ops->line_bytes(mem);
	ops->bind(mem, &cl);
}

int cpu_core_start(struct cpu_core *c, const struct cpu_program *p, unsigned tid, uint64_t run)
{
	if (c->live || !c->mops)
		return -CS_ESTATE;
	c->prog = p;
	c->tid = tid;
	c->rng = cs_mix64(c->env.seed ^ cs_mix64(run * 0x100000001b3ull + tid + 1));
	c->live = true;
	c->lt_t = sim_now(c->k);
	thread_resume(c);
	return 0;
}

bool cpu_core_idle(const struct cpu_core *c)
{
	return !c->live && !c->sb_n && !c->outstanding && (!c->mem || c->mops->idle(c->mem));
}

/* ---- the op API: thread side ----------------------------------------------------------------- */

unsigned ct_id(const struct cpu_thread *t)
{
	return CC(t)->tid;
}

unsigned ct_threads(const struct cpu_thread *t)
{
	return CC(t)->prog->threads;
}

unsigned ct_core(const struct cpu_thread *t)
{
	return CC(t)->id;
}

const void *ct_args(const struct cpu_thread *t)
{
	return CC(t)->prog->args;
}

uint64_t ct_cycle(const struct cpu_thread *t)
{
	const struct cpu_core *c = CC(t);

	return sim_clock_cycle(&c->clk, c->face == CPU_FACE_AT ? sim_now(c->k) : c->lt_t);
}

uint64_t ct_rand(struct cpu_thread *t)
{
	return cs_splitmix64(&C(t)->rng);
}

/* Posts the op and waits until the core lets the thread go on. */
static void post(struct cpu_core *c, uint8_t kind)
{
	(*c->st.insts)++;
	c->op.kind = kind;
	c->op.issued = false;
	c->op.next = c->op.done = 0;
	sim_coro_yield(c->co);
}

/* A bad access fails the run; the thread then waits (one cycle) for the stop. */
static bool bad_access(struct cpu_core *c, const char *what, uint64_t addr, unsigned bytes)
{
	if ((bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) && !(addr & (bytes - 1)))
		return false;
	core_fail(c, -CS_EINVAL,
		  "cpu%u: %s of %u bytes at %#llx: not 1, 2, 4 or 8 bytes naturally aligned", c->id,
		  what, bytes, (unsigned long long)addr);
	c->op.cycles = 1;
	post(c, OP_COMPUTE);
	return true;
}

/* Posts a load op of n loads (fetch: an instruction fetch, n = 1). */
static void post_loads(struct cpu_core *c, const uint64_t *addr, unsigned n, unsigned bytes,
		       uint64_t *out, bool fetch)
{
	const char *what = fetch ? "instruction fetch" : "load";

	if (!n)
		return;
	if (n > CPU_LDV_MAX) {
		core_fail(c, -CS_EINVAL, "cpu%u: ct_ldv of %u loads (max %d)", c->id, n,
			  CPU_LDV_MAX);
		c->op.cycles = 1;
		post(c, OP_COMPUTE);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (bad_access(c, what, addr[i], bytes))
			return;
	c->op.addr = addr;
	c->op.out = out;
	c->op.n = n;
	c->op.bytes = (uint8_t)bytes;
	c->op.fetch = fetch;
	post(c, OP_LD);
	c->op.fetch = false;
}

void ct_ldv(struct cpu_thread *t, const uint64_t *addr, unsigned n, unsigned bytes, uint64_t *out)
{
	post_loads(C(t), addr, n, bytes, out, false);
}

uint64_t ct_ld(struct cpu_thread *t, uint64_t addr, unsigned bytes)
{
	struct cpu_core *c = C(t);
	uint64_t v = 0;

	c->one[0] = addr;
	post_loads(c, c->one, 1, bytes, &v, false);
	return v;
}

/* An instruction fetch is a load op that skips the store buffer: it neither takes a buffered
 * store's value nor waits for the buffer to drain. Why: the fetch reads the instruction side
 * (the L1I), which a store reaches only once it has left the buffer and is performed at the
 * L2; x86 orders code writes before another thread's fetches only through a serializing
 * instruction of the fetching thread (cross-modifying code, Intel SDM vol. 3A §8.1.3), not
 * through TSO's store order. A real core also catches its own stores to code it is about to
 * run by snooping its pipeline; cohscope's threads have no instruction stream, so there is
 * nothing to snoop. */
uint64_t ct_ifetch(struct cpu_thread *t, uint64_t addr, unsigned bytes)
{
	struct cpu_core *c = C(t);
	uint64_t v = 0;

	c->one[0] = addr;
	post_loads(c, c->one, 1, bytes, &v, true);
	return v;
}

void ct_st(struct cpu_thread *t, uint64_t addr, unsigned bytes, uint64_t v)
{
	struct cpu_core *c = C(t);

	if (bad_access(c, "store", addr, bytes))
		return;
	c->one[0] = addr;
	c->op.addr = c->one;
	c->op.bytes = (uint8_t)bytes;
	c->op.val = v;
	post(c, OP_ST);
}

uint64_t ct_atomic(struct cpu_thread *t, enum mem_atomic_op aop, uint64_t addr, unsigned bytes,
		   uint64_t a, uint64_t b)
{
	struct cpu_core *c = C(t);

	if (bad_access(c, "atomic", addr, bytes))
		return 0;
	if (aop < MEM_ATOM_ADD || aop > MEM_ATOM_MAX) {
		core_fail(c, -CS_EINVAL, "cpu%u: unknown atomic operation %d", c->id, (int)aop);
		c->op.cycles = 1;
		post(c, OP_COMPUTE);
		return 0;
	}
	c->one[0] = addr;
	c->op.addr = c->one;
	c->op.bytes = (uint8_t)bytes;
	c->op.atom = (uint8_t)aop;
	c->op.a = a;
	c->op.b = b;
	c->ret = 0;
	post(c, OP_ATOM);
	return c->ret;
}

void ct_mfence(struct cpu_thread *t)
{
	post(C(t), OP_FENCE);
}

/* A device request: the thread waits for its answer. */
static void post_device(struct cpu_thread *t, const struct cpu_dev_req *r)
{
	struct cpu_core *c = C(t);

	if (!c->env.device) {
		core_fail(c, -CS_EUNSUP,
			  "cpu%u: %s: this system has no GPU or DMA engine beside the CPU (system "
			  "apu has)",
			  c->id,
			  r->kind == CPU_DEV_LAUNCH ? "ct_launch"
			  : r->kind == CPU_DEV_WAIT ? "ct_gpu_wait"
						    : "ct_dma_copy");
		c->op.cycles = 1;
		post(c, OP_COMPUTE);
		return;
	}
	c->op.dev = *r;
	post(c, OP_DEVICE);
}

void ct_launch(struct cpu_thread *t, const struct gpu_kernel *k)
{
	post_device(t, &(struct cpu_dev_req){.kind = CPU_DEV_LAUNCH, .kernel = k});
}

void ct_gpu_wait(struct cpu_thread *t)
{
	post_device(t, &(struct cpu_dev_req){.kind = CPU_DEV_WAIT});
}

void ct_dma_copy(struct cpu_thread *t, uint64_t dst, uint64_t src, uint64_t len)
{
	post_device(t,
		    &(struct cpu_dev_req){.kind = CPU_DEV_DMA, .dst = dst, .src = src, .len = len});
}

void ct_compute(struct cpu_thread *t, uint64_t cycles)
{
	struct cpu_core *c = C(t);

	if (!cycles)
		return;
	c->op.cycles = cycles;
	post(c, OP_COMPUTE);
}

/* A spin loop calls this after each try that found nothing: the work since its last call is
 * one such try, which the sampler's progress measure leaves out (cpu_core_work: each face
 * spins as long as its timing makes it). The first failed try is known only as the work before
 * the first call, and stays progress (as gw_spin_guard). */
bool ct_spin_guard(struct cpu_thread *t, uint64_t *count)
{
	struct cpu_core *c = C(t);
	uint64_t now = *c->st.insts + *c->st.compute_cycles;

	if (*count)
		*c->st.spin_work += now - c->spin_mark;
	c->spin_mark = now;
	return ++*count > c->cfg.spin_limit;
}

void ct_fail(struct cpu_thread *t, const char *fmt, ...)
{
	struct cpu_core *c = C(t);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->env.fail(c->env.sys, -CS_ECHECK, msg);
}

/* ---- the op API: host side (dispatch to the system) ------------------------------------------ */

uint64_t ch_alloc(struct cpu_host *h, uint64_t bytes, uint64_t align)
{
	return h->ops->alloc(h->sys, bytes, align);
}

void ch_write(struct cpu_host *h, uint64_t addr, const void *buf, size_t len)
{
	h->ops->write(h->sys, addr, buf, len);
}

void ch_read(struct cpu_host *h, uint64_t addr, void *buf, size_t len)
{
	h->ops->read(h->sys, addr, buf, len);
}

uint32_t ch_read32(struct cpu_host *h, uint64_t addr)
{
	uint32_t v;

	ch_read(h, addr, &v, sizeof(v));
	return v;
}

void ch_write32(struct cpu_host *h, uint64_t addr, uint32_t v)
{
	ch_write(h, addr, &v, sizeof(v));
}

int ch_run(struct cpu_host *h, const struct cpu_program *p)
{
	return h->ops->run(h->sys, p);
}

unsigned ch_cores(const struct cpu_host *h)
{
	return h->ops->cores(h->sys);
}

uint64_t ch_seed(const struct cpu_host *h)
{
	return h->seed;
}

enum gpu_size ch_size(const struct cpu_host *h)
{
	return (enum gpu_size)h->size;
}

uint64_t ch_check_samples(const struct cpu_host *h)
{
	return h->check_samples;
}

void *ch_arg(const struct cpu_host *h)
{
	return h->arg;
}

int ch_fail(struct cpu_host *h, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	h->ops->fail(h->sys, -CS_ECHECK, msg);
	return -CS_ECHECK;
}

void ch_note(struct cpu_host *h, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	h->ops->note(h->sys, msg);
}

void cpu_core_set_check(struct cpu_core *c, struct cohcheck *chk, unsigned who)
{
	c->chk = chk;
	c->chk_who = who;
}
