/*
 * tlm/coherence/apu/apu_corepair.c - the MOESI CorePair (see apu_corepair.h, docs/apu.md §3.1).
 */
#include "tlm/coherence/apu/apu_corepair.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/mem/cache.h"
#include "tlm/mem/store.h"

static const struct cs_param cp_rows[] = {
    {"clock_mhz", CS_P_UINT, offsetof(struct apu_cp_cfg, clock_mhz), "2000", "MHz",
     "CorePair controller clock: the uncore (gem5 Ruby clock, docs/apu.md 6.1)", 1, 100000, NULL},
    {"l1d_kib", CS_P_UINT, offsetof(struct apu_cp_cfg, l1d_kib), "64", "KiB",
     "L1D per core (paper Table II)", 1, 1048576, NULL},
    {"l1d_assoc", CS_P_UINT, offsetof(struct apu_cp_cfg, l1d_assoc), "2", "ways",
     "L1D associativity, tree-PLRU (paper Table II)", 1, 1024, NULL},
    {"l1i_kib", CS_P_UINT, offsetof(struct apu_cp_cfg, l1i_kib), "32", "KiB",
     "L1I shared by both cores (paper Table II)", 1, 1048576, NULL},
    {"l1i_assoc", CS_P_UINT, offsetof(struct apu_cp_cfg, l1i_assoc), "2", "ways",
     "L1I associativity (paper Table II); tree-PLRU inferred: Table II names the policy for the "
     "directory cache and the LLC only (gem5 GPU_VIPER.py sets TreePLRURP for the L1s)",
     1, 1024, NULL},
    {"l2_kib", CS_P_UINT, offsetof(struct apu_cp_cfg, l2_kib), "2048", "KiB",
     "shared L2, inclusive of both L1Ds and the L1I (paper Table II)", 1, 1048576, NULL},
    {"l2_assoc", CS_P_UINT, offsetof(struct apu_cp_cfg, l2_assoc), "8", "ways",
     "L2 associativity, tree-PLRU (paper Table II)", 1, 1024, NULL},
    {"l1_hit_cycles", CS_P_UINT, offsetof(struct apu_cp_cfg, l1_hit_cycles), "1", "cycles",
     "L1 hit, and a store to an E/M line (paper Table II)", 0, 100000, NULL},
    {"l1i_hit_cycles", CS_P_UINT, offsetof(struct apu_cp_cfg, l1i_hit_cycles), "1", "cycles",
     "instruction fetch that hits the L1I (paper Table II)", 0, 100000, NULL},
    {"l2_hit_cycles", CS_P_UINT, offsetof(struct apu_cp_cfg, l2_hit_cycles), "18", "cycles",
     "L1D or L1I miss that hits the L2, to data (gem5 CorePair l2_hit_latency)", 0, 100000, NULL},
    {"issue_cycles", CS_P_UINT, offsetof(struct apu_cp_cfg, issue_cycles), "120", "cycles",
     "every message leaves this long after its transition (gem5 --cpu-to-dir-latency)", 0, 100000,
     NULL},
    {"tbes", CS_P_UINT, offsetof(struct apu_cp_cfg, tbes), "256", "",
     "transactions in flight (gem5 Controller.number_of_TBEs)", 2, 65536, NULL},
    {"queue", CS_P_UINT, offsetof(struct apu_cp_cfg, queue), "16", "accesses",
     "accesses accepted per core before refusing (inferred: gem5 max_outstanding_requests)", 1,
     4096, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table apu_cp_params = {
    .section = "corepair",
    .help = "APU CorePair: two cores' L1Ds, a shared L1I and an inclusive L2, MOESI (docs/apu.md "
	    "3.1)",
    .params = cp_rows,
    .size = sizeof(struct apu_cp_cfg),
};

/* L2 frame states (cache_line.state; 0 = I) and victim states (TBE only). A victim of an
 * instruction fetch (V_MO_S, and V_I_C with refetch) keeps its frame, in ST_I_S: after the WBAck
 * the same frame and TBE wait for the RdBlkS's answer, so no second frame (and no Repl) is
 * needed then. */
enum {
	ST_I = 0,
	ST_S,
	ST_E,
	ST_O,
	ST_M,
	ST_I_ES,
	ST_I_M,
	ST_S_M,
	ST_O_M,
	ST_I_S,
	V_ES_I,
	V_MO_I,
	V_MO_S,
	V_I_C,
	ST_COUNT
};
static const char *const st_names[ST_COUNT] = {"I",   "S",   "E",   "O",    "M",    "I_ES", "I_M",
					       "S_M", "O_M", "I_S", "ES_I", "MO_I", "MO_S", "I_C"};

#define F_DIRTY 1u

struct tbe {
	bool used;
	uint8_t state; /* the frame's transient for a request, V_* for a victim */
	bool dirty, shared;
	bool refetch;	 /* V_I_C from V_MO_S: the fetch's RdBlkS follows the WBAck */
	uint8_t waiters; /* bit per core whose head access waits for the SysResp */
	uint64_t line;
	uint8_t data[APU_LINE];
};

struct qent {
	struct cpu_mem_req r;
	uint8_t data[APU_LINE];
};

struct cpu_mem {
	struct apu_cp *cp;
	unsigned core;
	struct cpu_mem_client cl;
	struct qent *q;
	unsigned head, n;
	bool busy;	  /* the head is being performed (done owed) */
	bool blocked;	  /* the head waits for a TBE or a line to settle */
	bool refused;	  /* a retry() is owed */
	bool try_pending; /* a try event is scheduled */
	/* the head's result */
	uint8_t line[APU_LINE];
	uint64_t old;
	/* the LT face: the access being performed, its result instead of done() */
	bool lt_wait, lt_done;
	sim_time_t lt_t;
	sim_time_t lt_free; /* when its last LT access was done */
};

struct apu_cp {
	struct sim_kernel *k;
	struct apu_cp_cfg cfg;
	struct apu_msgs *msgs;
	struct apu_port *port;
	unsigned ep, dir_ep;
	struct cache *l2, *l1d[2], *l1i;
	sim_time_t *ready; /* per L2 frame: when its line's data came (ready_wait; not state) */
	struct tbe *tbe;
	unsigned tbes_used;
	unsigned *live; /* indices of the TBEs in use, tbes_used of them (short scans) */
	struct cpu_mem mem[2];
	struct cohcheck *check;
	uint64_t *l1_hits, *l2_hits, *misses, *upgrades, *rdblk, *rdblkm, *grants_e, *grants_s;
	uint64_t *silent, *vic_clean, *vic_dirty, *vic_stale, *prb_dg, *prb_inv, *prb_data;
	uint64_t *l1i_hits, *rdblks, *fetch_drops, *fetch_victims;
};

static void fail(struct apu_cp *cp, uint64_t line, const char *event, unsigned st)
{
	sim_fail(cp->k, -CS_EPROTO, "%s: line 0x%" PRIx64 ": event %s in state %s is illegal",
		 apu_port_name(cp->port), line, event, st < ST_COUNT ? st_names[st] : "?");
}

/* ---- TBEs ------------------------------------------------------------------------------------ */

static struct tbe *tbe_find(struct apu_cp *cp, uint64_t line)
{
	for (unsigned i = 0; i < cp->tbes_used; i++)
		if (cp->tbe[cp->live[i]].line == line)
			return &cp->tbe[cp->live[i]];
	return NULL;
}

static struct tbe *tbe_alloc(struct apu_cp *cp, uint64_t line, uint8_t state)
{
	for (unsigned i = 0; i < cp->cfg.tbes; i++) {
		struct tbe *t = &cp->tbe[i];

		if (!t->used) {
			memset(t, 0, sizeof(*t));
			t->used = true;
			t->line = line;
			t->state = state;
			cp->live[cp->tbes_used++] = i;
			return t;
		}
	}
	return NULL;
}

static void try_core_later(struct apu_cp *cp, unsigned c);

static void tbe_free(struct apu_cp *cp, struct tbe *t)
{
	unsigned i = (unsigned)(t - cp->tbe), j = 0;

	while (cp->live[j] != i)
		j++;
	cp->live[j] = cp->live[--cp->tbes_used];
	t->used = false;
	for (unsigned c = 0; c < 2; c++) /* what waited for a TBE or this line may go on */
		if (cp->mem[c].blocked)
			try_core_later(cp, c);
}

/* ---- sending --------------------------------------------------------------------------------- */

static struct mem_msg *send(struct apu_cp *cp, enum apu_msg_type type, uint64_t line)
{
	struct mem_msg *m = apu_msg_new(cp->msgs, type, line, cp->ep, cp->dir_ep, cp->ep);

	if (!m) {
		sim_fail(cp->k, -CS_ENOMEM, "%s: out of memory", apu_port_name(cp->port));
		return NULL;
	}
	apu_port_send(cp->port, m, cp->cfg.issue_cycles);
	return m;
}

static void send_ack(struct apu_cp *cp, uint64_t line, bool hit, const uint8_t *data,
		     unsigned requester)
{
	struct mem_msg *m = apu_msg_new(cp->msgs, APU_PRBACK, line, cp->ep, cp->dir_ep, requester);
	struct apu_ext *e;

	if (!m) {
		sim_fail(cp->k, -CS_ENOMEM, "%s: out of memory", apu_port_name(cp->port));
		return;
	}
	e = apu_ext_of(cp->msgs, m);
	e->hit = hit;
	if (data) {
		e->dirty = true;
		m->req_bytes = APU_LINE;
		memcpy(m->p.data, data, APU_LINE);
		(*cp->prb_data)++;
	}
	apu_port_send(cp->port, m, cp->cfg.issue_cycles);
}

/* ---- L1 presence ----------------------------------------------------------------------------- */

/* The L1s (L1D0, L1D1, L1I) hold presence only: the data and the state are the L2's. */
static bool l1_has(struct cache *l1, uint64_t line)
{
	return cache_lookup(l1, line) != NULL;
}

static void l1_drop(struct cache *l1, uint64_t line)
{
	struct cache_line *l = cache_lookup(l1, line);

	if (l)
		cache_invalidate(l1, l);
}

static void l1_fill(struct cache *l1, uint64_t line)
{
	struct cache_line *l = cache_lookup(l1, line);

	if (l) {
		cache_touch(l1, l);
		return;
	}
	/* the L1 holds no data of its own: replacing a frame needs no message */
	l = cache_victim(l1, line, NULL, NULL);
	cache_install(l1, l, line, 1);
}

/* "inv L1s" of docs/apu.md §3.1: the line leaves both L1Ds and the L1I (inclusion). */
static void inv_l1s(struct apu_cp *cp, uint64_t line)
{
	l1_drop(cp->l1d[0], line);
	l1_drop(cp->l1d[1], line);
	l1_drop(cp->l1i, line);
}

static void inv_l2(struct apu_cp *cp, struct cache_line *l)
{
	inv_l1s(cp, l->addr);
	cache_invalidate(cp->l2, l);
}

/* ---- performing an access -------------------------------------------------------------------- */

static void core_done(void *owner, void *arg);

/* Cycles a load that finds l stable waits for its data: 0 in the detailed face. An LT run
 * performs a miss whole and fills the line at its data's time (ready[]); the other core's run
 * may start earlier (its own time), and in the detailed face its load would have joined the
 * miss (the TBE's waiters) and been answered with the data. */
static uint64_t ready_wait(const struct apu_cp *cp, const struct cache_line *l)
{
	return apu_port_cycles_until(cp->port, cp->ready[cache_line_index(cp->l2, l)]);
}

static void finish_later(struct apu_cp *cp, unsigned c, uint64_t cycles)
{
	cp->mem[c].busy = true;
	apu_port_call(cp->port, cycles ? apu_port_delay(cp->port, cycles) : 0, core_done,
		      (void *)(uintptr_t)c);
}

static void check_words(struct apu_cp *cp, uint64_t line, const uint8_t *data, uint64_t mask)
{
	if (!cp->check)
		return;
	for (unsigned w = 0; w < APU_LINE; w += 4)
		if (mask >> w & 0xfull) {
			uint32_t v;

			memcpy(&v, data + w, 4);
			cohcheck_write(cp->check, line + w, 4, v);
		}
}

/* Performs core c's head access on l (readable; E or M for a write). */
static void perform(struct apu_cp *cp, unsigned c, struct cache_line *l)
{
	struct cpu_mem *m = &cp->mem[c];
	struct qent *q = &m->q[m->head];
	unsigned other = c ^ 1;

	switch (q->r.kind) {
	case CPU_MEM_LD:
	case CPU_MEM_IFETCH:
		memcpy(m->line, l->data, APU_LINE);
		break;
	case CPU_MEM_ST:
		for (unsigned i = 0; i < APU_LINE; i++)
			if (q->r.byte_mask >> i & 1)
				l->data[i] = q->data[i];
		check_words(cp, l->addr, l->data, q->r.byte_mask);
		break;
	default:
		m->old = mem_atomic_apply(l->data + q->r.offset, q->r.bytes, q->r.atom_op, q->r.a,
					  q->r.b);
		check_words(cp, l->addr, l->data,
			    (q->r.bytes >= 8 ? 0xffull : 0xfull) << (q->r.offset & ~3u));
		break;
	}
	if (q->r.kind == CPU_MEM_IFETCH) {
		l1_fill(cp->l1i, l->addr);
		return;
	}
	if (q->r.kind != CPU_MEM_LD) {
		if (l->state == ST_E)
			(*cp->silent)++;
		l->state = ST_M;
		l->flags |= F_DIRTY;
		/* a store leaves the line in the storing core's L1D only: the L1I's copy goes
		 * too (gem5 cp i1_invCluster), so in_i holds only in S */
		l1_drop(cp->l1d[other], l->addr);
		l1_drop(cp->l1i, l->addr);
	}
	l1_fill(cp->l1d[c], l->addr);
}

static bool stable(uint8_t s)
{
	return s >= ST_S && s <= ST_M;
}

static bool may_evict(void *ctx, const struct cache_line *l)
{
	(void)ctx;
	return stable(l->state);
}

/* Repl: the frame's line leaves for a victim TBE (VicClean for S/E, VicDirty for O/M). */
static void evict(struct apu_cp *cp, struct cache_line *v, struct tbe *t)
{
	bool owner = v->state == ST_O || v->state == ST_M;

	t->state = owner ? V_MO_I : V_ES_I;
	t->dirty = (v->flags & F_DIRTY) != 0;
	t->shared = v->state == ST_S || v->state == ST_O;
	memcpy(t->data, v->data, APU_LINE);
	apu_ext_of(cp->msgs, send(cp, owner ? APU_VICDIRTY : APU_VICCLEAN, v->addr))->shared =
	    t->shared;
	inv_l2(cp, v);
}

/* An instruction fetch of core c (the head access) to l, which the L2 holds in a stable state
 * (docs/apu.md §3.1, rows "Ifetch"). The L1I may hold a line only in S: S is a hit (L1I) or a
 * fill from the L2; E, O and M first give up the line, since a line fetched from needs S. */
static void fetch_stable(struct apu_cp *cp, unsigned c, struct cache_line *l)
{
	struct cpu_mem *m = &cp->mem[c];
	bool owner = l->state == ST_O || l->state == ST_M;
	struct tbe *t;

	if (l->state == ST_S) {
		bool l1 = l1_has(cp->l1i, l->addr);

		(*(l1 ? cp->l1i_hits : cp->l2_hits))++;
		cache_touch(cp->l2, l);
		perform(cp, c, l);
		finish_later(cp, c, l1 ? cp->cfg.l1i_hit_cycles : cp->cfg.l2_hit_cycles);
		return;
	}
	t = tbe_alloc(cp, l->addr, ST_I_S);
	if (!t) {
		m->blocked = true;
		return;
	}
	t->waiters = 1u << c;
	m->busy = true;
	inv_l1s(cp, l->addr);
	if (owner) {
		/* M/O: the dirty line goes first (VicDirty, MO_S); the RdBlkS follows the WBAck
		 * (gem5 cp {Ms,M0,M1,O}, Ifetch0_L1miss -> MO_S0). The frame stays, reserved. */
		t->state = V_MO_S;
		t->dirty = true;
		t->shared = l->state == ST_O;
		memcpy(t->data, l->data, APU_LINE);
		l->state = ST_I_S;
		l->flags = 0;
		(*cp->fetch_victims)++;
		apu_ext_of(cp->msgs, send(cp, APU_VICDIRTY, l->addr))->shared = t->shared;
		return;
	}
	/* E: the clean line is dropped silently, no VicClean (gem5 cp E0, Ifetch0_L1miss -> S0
	 * with i2_invL2; paper Table I fn c: the owner itself asks with RdBlkS) */
	l->state = ST_I_S;
	l->flags = 0;
	(*cp->fetch_drops)++;
	(*cp->rdblks)++;
	send(cp, APU_RDBLKS, l->addr);
}

static void try_core(struct apu_cp *cp, unsigned c)
{
	struct cpu_mem *m = &cp->mem[c];
	struct qent *q;
	uint64_t line;
	struct tbe *t;
	struct cache_line *l;
	bool load, fetch, write;

	if (m->busy || !m->n)
		return;
	m->blocked = false;
	q = &m->q[m->head];
	line = q->r.line_addr & ~(uint64_t)(APU_LINE - 1);
	load = q->r.kind == CPU_MEM_LD;
	fetch = q->r.kind == CPU_MEM_IFETCH;
	write = !load && !fetch;
	t = tbe_find(cp, line);
	l = cache_lookup(cp->l2, line);
	if (t && t->state >= V_ES_I) {
		m->blocked = true; /* no new request for a line whose victim is in flight */
		return;
	}
	if (t) {
		if (!l) {
			fail(cp, line, "core access", t->state);
			return;
		}
		if ((l->state == ST_S_M || l->state == ST_O_M) && load) {
			(*cp->l2_hits)++;
			perform(cp, c, l);
			finish_later(cp, c, cp->cfg.l2_hit_cycles);
			return;
		}
		/* loads and stores join a pending RdBlkM, loads a pending RdBlk; an Ifetch joins
		 * nothing and anything waits for I_S (docs/apu.md §3.1: "stall") */
		if (!fetch && (l->state == ST_I_M || l->state == ST_S_M || l->state == ST_O_M ||
			       (l->state == ST_I_ES && load))) {
			t->waiters |= 1u << c;
			m->busy = true;
			return;
		}
		m->blocked = true; /* a store to a line being read: after the fill */
		return;
	}
	if (l && stable(l->state)) {
		if (fetch) {
			fetch_stable(cp, c, l);
			return;
		}
		if (load) {
			bool l1 = l1_has(cp->l1d[c], line);

			(*(l1 ? cp->l1_hits : cp->l2_hits))++;
			cache_touch(cp->l2, l);
			perform(cp, c, l);
			finish_later(cp, c,
				     (l1 ? cp->cfg.l1_hit_cycles : cp->cfg.l2_hit_cycles) +
					 ready_wait(cp, l));
			return;
		}
		if (l->state == ST_E || l->state == ST_M) {
			(*cp->l1_hits)++;
			cache_touch(cp->l2, l);
			perform(cp, c, l);
			finish_later(cp, c, cp->cfg.l1_hit_cycles);
			return;
		}
		t = tbe_alloc(cp, line, 0);
		if (!t) {
			m->blocked = true;
			return;
		}
		(*cp->upgrades)++;
		(*cp->rdblkm)++;
		l1_drop(cp->l1d[c ^ 1], line);
		l1_drop(cp->l1i, line);
		l->state = l->state == ST_S ? ST_S_M : ST_O_M;
		t->state = l->state;
		t->waiters = 1u << c;
		m->busy = true;
		send(cp, APU_RDBLKM, line);
		return;
	}
	/* miss: a frame (evicting a stable line) and a TBE, two if a victim leaves */
	{
		struct cache_line *v = cache_victim(cp->l2, line, may_evict, NULL);
		struct tbe *vt = NULL;
		uint8_t st = write ? ST_I_M : fetch ? ST_I_S : ST_I_ES;

		if (!v || cp->tbes_used + (v->state ? 2u : 1u) > cp->cfg.tbes) {
			m->blocked = true;
			return;
		}
		if (v->state) {
			vt = tbe_alloc(cp, v->addr, V_ES_I);
			evict(cp, v, vt);
		}
		(*cp->misses)++;
		cache_install(cp->l2, v, line, st);
		t = tbe_alloc(cp, line, st);
		t->waiters = 1u << c;
		m->busy = true;
		if (write) {
			(*cp->rdblkm)++;
			send(cp, APU_RDBLKM, line);
		} else if (fetch) {
			(*cp->rdblks)++;
			send(cp, APU_RDBLKS, line);
		} else {
			(*cp->rdblk)++;
			send(cp, APU_RDBLK, line);
		}
	}
}

static void try_ev(void *owner, void *arg)
{
	struct apu_cp *cp = owner;
	unsigned c = (unsigned)(uintptr_t)arg;

	cp->mem[c].try_pending = false;
	try_core(cp, c);
}

static void try_core_later(struct apu_cp *cp, unsigned c)
{
	if (cp->mem[c].try_pending)
		return;
	cp->mem[c].try_pending = true;
	apu_port_call(cp->port, 0, try_ev, (void *)(uintptr_t)c);
}

static void core_done(void *owner, void *arg)
{
	struct apu_cp *cp = owner;
	unsigned c = (unsigned)(uintptr_t)arg;
	struct cpu_mem *m = &cp->mem[c];
	struct qent *q = &m->q[m->head];
	uint32_t id = q->r.id;
	bool load = q->r.kind == CPU_MEM_LD || q->r.kind == CPU_MEM_IFETCH;
	uint8_t line[APU_LINE];
	uint64_t old = m->old;

	memcpy(line, m->line, APU_LINE);
	m->head = (m->head + 1) % (unsigned)cp->cfg.queue;
	m->n--;
	m->busy = false;
	m->old = 0;
	if (m->lt_wait) { /* the LT face returns the result instead */
		m->lt_wait = false;
		m->lt_done = true;
		m->lt_t = apu_port_now(cp->port);
		memcpy(m->line, line, APU_LINE);
		m->old = old;
		return;
	}
	m->cl.done(m->cl.core, id, load ? line : NULL, old);
	if (m->refused) {
		m->refused = false;
		m->cl.retry(m->cl.core);
	}
	try_core(cp, c);
}

/* ---- the network side ------------------------------------------------------------------------ */

static void on_probe(struct apu_cp *cp, struct mem_msg *msg)
{
	uint64_t line = msg->p.addr;
	bool inv = msg->type == APU_PRBINV;
	struct tbe *t = tbe_find(cp, line);
	struct cache_line *l = cache_lookup(cp->l2, line);
	unsigned req = msg->requester;

	(*(inv ? cp->prb_inv : cp->prb_dg))++;
	if (t && t->state >= V_ES_I) { /* a victim in flight */
		switch (t->state) {
		case V_ES_I:
			send_ack(cp, line, !inv, NULL, req);
			if (inv)
				t->state = V_I_C;
			else
				t->shared = true;
			return;
		case V_MO_I:
		case V_MO_S:
			send_ack(cp, line, true, t->data, req);
			if (inv) {
				/* MO_S: the fetch still wants the line; its RdBlkS leaves after
				 * the WBAck, as from MO_S (docs/apu.md §3.1, inferred) */
				t->refetch = t->state == V_MO_S;
				t->state = V_I_C;
			} else {
				t->shared = true;
			}
			return;
		default:
			send_ack(cp, line, false, NULL, req);
			return;
		}
	}
	if (!l) {
		send_ack(cp, line, false, NULL, req);
		return;
	}
	switch (l->state) {
	case ST_S:
	case ST_E:
		send_ack(cp, line, !inv, NULL, req);
		if (inv)
			inv_l2(cp, l);
		else
			l->state = ST_S;
		break;
	case ST_O:
	case ST_M:
		send_ack(cp, line, true, l->data, req);
		if (inv)
			inv_l2(cp, l);
		else
			l->state = ST_O;
		break;
	case ST_I_ES:
	case ST_I_S:
	case ST_I_M:
		/* the probe is from a transaction ordered before ours (docs/apu.md §4.1) */
		send_ack(cp, line, !inv, NULL, req);
		break;
	case ST_S_M:
		send_ack(cp, line, !inv, NULL, req);
		if (inv) {
			l->state = t->state = ST_I_M;
			inv_l1s(cp, line);
		}
		break;
	case ST_O_M:
		send_ack(cp, line, true, l->data, req);
		if (inv) {
			l->state = t->state = ST_I_M;
			inv_l1s(cp, line);
		}
		break;
	default:
		fail(cp, line, apu_msg_info[msg->type].name, l->state);
	}
}

static void on_sysresp(struct apu_cp *cp, struct mem_msg *msg)
{
	uint64_t line = msg->p.addr;
	struct apu_ext *e = apu_ext_of(cp->msgs, msg);
	struct tbe *t = tbe_find(cp, line);
	struct cache_line *l = cache_lookup(cp->l2, line);
	uint8_t waiters;

	if (!t || !l || t->state >= V_ES_I) {
		fail(cp, line, "SysResp", t ? t->state : ST_I);
		return;
	}
	switch (l->state) {
	case ST_I_ES:
		if (e->grant != APU_GRANT_E && e->grant != APU_GRANT_S) {
			fail(cp, line, "SysResp(M)", l->state);
			return;
		}
		memcpy(l->data, msg->p.data, APU_LINE);
		l->state = e->grant == APU_GRANT_E ? ST_E : ST_S;
		l->flags = e->grant == APU_GRANT_S && e->dirty ? F_DIRTY : 0;
		(*(e->grant == APU_GRANT_E ? cp->grants_e : cp->grants_s))++;
		break;
	case ST_I_S: /* RdBlkS: always S (docs/apu.md §4.2) */
		if (e->grant != APU_GRANT_S) {
			fail(cp, line, "SysResp(E/M)", l->state);
			return;
		}
		memcpy(l->data, msg->p.data, APU_LINE);
		l->state = ST_S;
		l->flags = e->dirty ? F_DIRTY : 0;
		break;
	case ST_I_M:
		memcpy(l->data, msg->p.data, APU_LINE);
		/* fall through */
	case ST_S_M:
	case ST_O_M: /* keep own data: any writer would have invalidated us first */
		if (e->grant != APU_GRANT_M) {
			fail(cp, line, "SysResp(S/E)", l->state);
			return;
		}
		l->state = ST_M;
		l->flags = F_DIRTY;
		break;
	default:
		fail(cp, line, "SysResp", l->state);
		return;
	}
	cp->ready[cache_line_index(cp->l2, l)] = apu_port_now(cp->port); /* ready_wait */
	waiters = t->waiters;
	tbe_free(cp, t);
	send(cp, APU_UNBLOCK, line);
	for (unsigned c = 0; c < 2; c++) {
		if (!(waiters >> c & 1))
			continue;
		uint8_t kind = cp->mem[c].q[cp->mem[c].head].r.kind;

		if (kind != CPU_MEM_LD && kind != CPU_MEM_IFETCH && l->state != ST_M &&
		    l->state != ST_E) {
			/* only loads join a read; a store waits for its own RdBlkM */
			cp->mem[c].busy = false;
			try_core_later(cp, c);
			continue;
		}
		perform(cp, c, l);
		finish_later(cp, c, 0);
	}
}

static void on_wback(struct apu_cp *cp, struct mem_msg *msg)
{
	uint64_t line = msg->p.addr;
	struct tbe *t = tbe_find(cp, line);
	struct mem_msg *m;
	struct apu_ext *e;

	if (!t || t->state < V_ES_I) {
		fail(cp, line, "WBAck", t ? t->state : ST_I);
		return;
	}
	if (t->state == V_I_C) {
		(*cp->vic_stale)++;
		send(cp, APU_STALENOTIF, line);
	} else {
		bool owner = t->state == V_MO_I || t->state == V_MO_S;

		m = send(cp, APU_VICDATA, line);
		if (!m)
			return;
		e = apu_ext_of(cp->msgs, m);
		e->dirty = owner ? true : t->dirty;
		e->shared = t->shared;
		memcpy(m->p.data, t->data, APU_LINE);
		(*(owner ? cp->vic_dirty : cp->vic_clean))++;
	}
	if (t->state == V_MO_S || t->refetch) {
		/* the instruction fetch's request, in the frame and TBE the victim kept (gem5 cp
		 * MO_S0, NB_AckWB -> S0) */
		t->state = ST_I_S;
		t->refetch = false;
		(*cp->rdblks)++;
		send(cp, APU_RDBLKS, line);
		return;
	}
	tbe_free(cp, t);
}

static enum apu_recv cp_recv(void *owner, struct mem_msg *m)
{
	struct apu_cp *cp = owner;

	switch (m->type) {
	case APU_PRBDOWNGRADE:
	case APU_PRBINV:
		on_probe(cp, m);
		break;
	case APU_SYSRESP:
		on_sysresp(cp, m);
		break;
	case APU_WBACK:
		on_wback(cp, m);
		break;
	default:
		fail(cp, m->p.addr, m->type < APU_MSG_TYPES ? apu_msg_info[m->type].name : "?",
		     ST_I);
	}
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops cp_port_ops = {.recv = cp_recv};

/* ---- the core side --------------------------------------------------------------------------- */

static void m_bind(struct cpu_mem *m, const struct cpu_mem_client *client)
{
	m->cl = *client;
}

static unsigned m_line_bytes(const struct cpu_mem *m)
{
	(void)m;
	return APU_LINE;
}

static bool m_access(struct cpu_mem *m, const struct cpu_mem_req *r)
{
	struct apu_cp *cp = m->cp;
	struct qent *q;

	if (m->n == cp->cfg.queue) {
		m->refused = true;
		return false;
	}
	q = &m->q[(m->head + m->n) % (unsigned)cp->cfg.queue];
	q->r = *r;
	if (r->kind == CPU_MEM_ST && r->data)
		memcpy(q->data, r->data, APU_LINE);
	q->r.data = NULL;
	m->n++;
	try_core_later(cp, m->core); /* done() never from inside access() */
	return true;
}

/* The LT face: the access runs through try_core in an LT run of the APU's ports (docs/apu.md
 * §11), which performs every message it causes (the directory's transaction, probes to the
 * other CorePairs, DRAM) at once; the result is what core_done would have given, at its time. */
static sim_time_t m_lt_access(struct cpu_mem *m, const struct cpu_mem_req *r, sim_time_t t,
			      uint8_t *line, uint64_t *old)
{
	struct apu_cp *cp = m->cp;
	struct apu_lt *lt = apu_port_lt(cp->port);
	struct qent *q;

	if (!lt || m->n || m->busy) {
		sim_fail(cp->k, -CS_EPROTO, "%s: core %u: an LT access %s", apu_port_name(cp->port),
			 m->core,
			 !lt ? "without the LT face (no apu_lt joined)"
			     : "while the detailed face's accesses are in flight");
		return t;
	}
	q = &m->q[m->head];
	q->r = *r;
	if (r->kind == CPU_MEM_ST && r->data)
		memcpy(q->data, r->data, APU_LINE);
	q->r.data = NULL;
	m->n = 1;
	m->lt_wait = true;
	m->lt_done = false;
	/* the detailed face serves a core's accesses one at a time (try_core: busy until
	 * core_done), so a second access issued at once starts when the first is done */
	t = t > m->lt_free ? t : m->lt_free;
	apu_lt_begin(lt, t);
	try_core(cp, m->core);
	apu_lt_run(lt);
	apu_lt_end(lt);
	if (!m->lt_done) {
		if (!sim_failure(cp->k))
			sim_fail(cp->k, -CS_EPROTO, "%s: core %u: an LT access was not performed",
				 apu_port_name(cp->port), m->core);
		m->lt_wait = false;
		return t;
	}
	if (line)
		memcpy(line, m->line, APU_LINE);
	if (old)
		*old = m->old;
	m->old = 0;
	m->lt_free = m->lt_t;
	return m->lt_t;
}

/* Every LT access ends in its run: nothing is left in flight. */
static sim_time_t m_lt_advance(struct cpu_mem *m, sim_time_t t)
{
	(void)m;
	(void)t;
	return SIM_TIME_MAX;
}

static bool m_idle(const struct cpu_mem *m)
{
	return !m->n && !m->busy;
}

static void m_destroy(struct cpu_mem *m)
{
	(void)m; /* owned by the CorePair */
}

const struct cpu_mem_ops apu_cp_mem_ops = {
    .name = "apu-corepair",
    .bind = m_bind,
    .line_bytes = m_line_bytes,
    .access = m_access,
    .lt_access = m_lt_access,
    .lt_advance = m_lt_advance,
    .idle = m_idle,
    .destroy = m_destroy,
};

/* ---- life ------------------------------------------------------------------------------------ */

static int make_cache(uint64_t kib, uint64_t assoc, struct cache **out)
{
	struct cache_geom g = {.size_bytes = kib * 1024,
			       .assoc = (unsigned)assoc,
			       .line_bytes = APU_LINE,
			       .sector_bytes = 0,
			       .repl = CACHE_REPL_PLRU};

	return cache_create(&g, out);
}

int apu_cp_create(struct sim_kernel *k, const struct apu_cp_cfg *cfg, struct apu_msgs *msgs,
		  unsigned ep, unsigned dir_ep, struct cs_stat_group *g, struct apu_cp **out,
		  struct cs_err *err)
{
	struct apu_cp *cp;
	struct apu_port_cfg pc = {.ep = ep, .in_depth = 4, .per_cycle = 8};
	char name[32];
	int rc;

	if (!k || !cfg || !msgs || !g || !out)
		return cs_err_set(err, -CS_EINVAL, "apu_cp_create: bad arguments");
	if (cfg->tbes < 2 || !cfg->queue || !cfg->clock_mhz)
		return cs_err_set(err, -CS_ECONFIG,
				  "corepair.tbes must be >= 2, corepair.queue and clock_mhz >= 1");
	cp = calloc(1, sizeof(*cp));
	if (!cp)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	cp->k = k;
	cp->cfg = *cfg;
	cp->msgs = msgs;
	cp->ep = ep;
	cp->dir_ep = dir_ep;
	rc = make_cache(cfg->l2_kib, cfg->l2_assoc, &cp->l2);
	if (!rc && !(cp->ready = calloc(cache_lines(cp->l2), sizeof(*cp->ready))))
		rc = -CS_ENOMEM;
	if (!rc)
		rc = make_cache(cfg->l1d_kib, cfg->l1d_assoc, &cp->l1d[0]);
	if (!rc)
		rc = make_cache(cfg->l1d_kib, cfg->l1d_assoc, &cp->l1d[1]);
	if (!rc)
		rc = make_cache(cfg->l1i_kib, cfg->l1i_assoc, &cp->l1i);
	if (rc) {
		apu_cp_destroy(cp);
		return cs_err_set(
		    err, rc == -CS_ENOMEM ? rc : -CS_ECONFIG,
		    "corepair.l2_kib/l2_assoc/l1d_kib/l1d_assoc/l1i_kib/l1i_assoc: not "
		    "a power-of-two number of sets of 64-B lines with a power-of-two "
		    "assoc");
	}
	cp->tbe = calloc(cfg->tbes, sizeof(*cp->tbe));
	cp->live = calloc(cfg->tbes, sizeof(*cp->live));
	for (unsigned c = 0; c < 2; c++) {
		cp->mem[c].cp = cp;
		cp->mem[c].core = c;
		cp->mem[c].q = calloc(cfg->queue, sizeof(*cp->mem[c].q));
	}
	if (!cp->tbe || !cp->live || !cp->mem[0].q || !cp->mem[1].q) {
		apu_cp_destroy(cp);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	snprintf(name, sizeof(name), "corepair@%u", ep);
	pc.name = name;
	pc.clock_mhz = cfg->clock_mhz;
	rc = apu_port_create(k, &pc, &cp_port_ops, cp, &cp->port);
	if (rc) {
		apu_cp_destroy(cp);
		return cs_err_set(err, rc, "corepair: cannot create the network port");
	}
	cp->l1_hits = cs_stat_counter(g, "l1_hits", "", "accesses served by the core's L1D");
	cp->l2_hits = cs_stat_counter(g, "l2_hits", "", "L1 misses served by the L2");
	cp->misses = cs_stat_counter(g, "misses", "", "L2 misses (RdBlk, RdBlkS or RdBlkM from I)");
	cp->upgrades = cs_stat_counter(g, "upgrades", "", "RdBlkM from S or O");
	cp->rdblk = cs_stat_counter(g, "rdblk", "", "RdBlk sent");
	cp->rdblkm = cs_stat_counter(g, "rdblkm", "", "RdBlkM sent");
	cp->grants_e = cs_stat_counter(g, "grants_e", "", "RdBlk answered with E");
	cp->grants_s = cs_stat_counter(g, "grants_s", "", "RdBlk answered with S");
	cp->silent = cs_stat_counter(g, "silent_e_to_m", "", "stores to E lines (no message)");
	cp->vic_clean = cs_stat_counter(g, "vic_clean", "", "VicClean victims written");
	cp->vic_dirty = cs_stat_counter(g, "vic_dirty", "", "VicDirty victims written");
	cp->vic_stale = cs_stat_counter(g, "vic_stale", "", "victims cancelled by a PrbInv");
	cp->prb_dg = cs_stat_counter(g, "probes.downgrade", "", "PrbDowngrade received");
	cp->prb_inv = cs_stat_counter(g, "probes.inv", "", "PrbInv received");
	cp->prb_data = cs_stat_counter(g, "probe_data", "", "probe acks with dirty data");
	cp->l1i_hits = cs_stat_counter(g, "l1i_hits", "", "instruction fetches served by the L1I");
	cp->rdblks = cs_stat_counter(g, "rdblks", "", "RdBlkS sent (instruction fetches)");
	cp->fetch_drops = cs_stat_counter(g, "ifetch_e_drops", "",
					  "E lines dropped silently for an instruction fetch");
	cp->fetch_victims = cs_stat_counter(
	    g, "ifetch_victims", "", "M/O lines written back for an instruction fetch (MO_S)");
	*out = cp;
	return 0;
}

/* The stats contract (docs/energy.md, "APU"): every data access probes its core's L1D tags, a
 * hit reads the L1D, anything else fills it from the L2; a fetch reads the L1I; the L2's tags
 * are probed by L1 misses, probes and victims, its data read by L2 hits, victims and dirty
 * probe answers and written by fills; a miss, an upgrade and a victim each take a TBE. */
void apu_cp_energy(const struct apu_cp *cp, struct energy_counts *out)
{
	double l1h = (double)*cp->l1_hits, l2h = (double)*cp->l2_hits;
	double miss = (double)*cp->misses + (double)*cp->upgrades;
	double vic = (double)*cp->vic_clean + (double)*cp->vic_dirty;
	double probes = (double)*cp->prb_dg + (double)*cp->prb_inv;

	energy_add(out, EN_CP_L1D_TAG, l1h + l2h + miss);
	energy_add(out, EN_CP_L1D_READ, l1h);
	energy_add(out, EN_CP_L1D_WRITE, l2h + miss);
	energy_add(out, EN_CP_L1I_READ, (double)*cp->l1i_hits + (double)*cp->rdblks);
	energy_add(out, EN_CP_L2_TAG, l2h + miss + probes + vic);
	energy_add(out, EN_CP_L2_READ, l2h + vic + (double)*cp->prb_data);
	energy_add(out, EN_CP_L2_WRITE, miss);
	energy_add(out, EN_CP_TBE, miss + vic);
	out->inst[EN_COREPAIR] += 1;
}

void apu_cp_destroy(struct apu_cp *cp)
{
	if (!cp)
		return;
	apu_port_destroy(cp->port);
	cache_destroy(cp->l2);
	free(cp->ready);
	cache_destroy(cp->l1d[0]);
	cache_destroy(cp->l1d[1]);
	cache_destroy(cp->l1i);
	free(cp->tbe);
	free(cp->live);
	free(cp->mem[0].q);
	free(cp->mem[1].q);
	free(cp);
}

struct apu_port *apu_cp_port(struct apu_cp *cp)
{
	return cp->port;
}

struct cpu_mem *apu_cp_mem(struct apu_cp *cp, unsigned c)
{
	return c < 2 ? &cp->mem[c] : NULL;
}

void apu_cp_set_check(struct apu_cp *cp, struct cohcheck *c)
{
	cp->check = c;
}

char apu_cp_peek(const struct apu_cp *cp, uint64_t line, void *data, bool *dirty)
{
	struct cache_line *l = cache_lookup(cp->l2, apu_line_of(line));

	if (!l)
		return 'I';
	if (!stable(l->state))
		return 'T';
	if (data)
		memcpy(data, l->data, APU_LINE);
	if (dirty)
		*dirty = (l->flags & F_DIRTY) != 0;
	return "ISEOM"[l->state];
}

unsigned apu_cp_peek_l1(const struct apu_cp *cp, uint64_t line)
{
	uint64_t a = apu_line_of(line);

	return (l1_has(cp->l1d[0], a) ? APU_CP_IN_D0 : 0u) |
	       (l1_has(cp->l1d[1], a) ? APU_CP_IN_D1 : 0u) |
	       (l1_has(cp->l1i, a) ? APU_CP_IN_I : 0u);
}

void apu_cp_poke(struct apu_cp *cp, uint64_t addr, const void *buf, size_t len)
{
	struct cache_line *l = cache_lookup(cp->l2, apu_line_of(addr));

	if (l && stable(l->state) && l->state != ST_I)
		memcpy(l->data + (addr - apu_line_of(addr)), buf, len);
}

bool apu_cp_idle(const struct apu_cp *cp)
{
	return !cp->tbes_used && m_idle(&cp->mem[0]) && m_idle(&cp->mem[1]) &&
	       apu_port_idle(cp->port);
}
