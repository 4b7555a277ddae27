/* workloads/wsq.c - per-CTA lock-free work-stealing deques (wsq.h). */
#include "workloads/wsq.h"

#include <string.h>

#include "util/error.h"
#include "workloads/wl_util.h"

const char *const wsq_scenario_names[] = {"baseline", "scope-only",   "steal-only",
					  "rsp",      "scoped-steal", NULL};
const char *const wsq_victim_names[] = {"random", "ring", "sticky", NULL};
const char *const wsq_probe_names[] = {"atomic", "plain", NULL};
const char *const wsq_order_names[] = {"sc", "fence", NULL};

uint64_t wsq_bytes(const struct wsq *q)
{
	return 2 * WL_LINE_BYTES + (uint64_t)q->cap * q->words * 4;
}

uint64_t wsq_age_addr(const struct wsq *q, unsigned i)
{
	return q->base + i * wsq_bytes(q);
}

uint64_t wsq_bot_addr(const struct wsq *q, unsigned i)
{
	return wsq_age_addr(q, i) + WL_LINE_BYTES;
}

uint64_t wsq_slot_addr(const struct wsq *q, unsigned i, uint32_t slot)
{
	return wsq_age_addr(q, i) + 2 * WL_LINE_BYTES + (uint64_t)slot * q->words * 4;
}

static enum mem_order acq_half(enum mem_order o)
{
	return mem_order_acquires(o) ? MEM_ORDER_ACQUIRE : MEM_ORDER_RELAXED;
}

static enum mem_order rel_half(enum mem_order o)
{
	return mem_order_releases(o) ? MEM_ORDER_RELEASE : MEM_ORDER_RELAXED;
}

static uint64_t rec_mask(const struct wsq *q)
{
	return q->words >= 64 ? ~0ull : (1ull << q->words) - 1;
}

/* One vector access of the record's words (lanes 0..words-1). */
static void rec_load(struct gpu_warp *w, const struct wsq *q, uint64_t base, uint32_t *rec)
{
	uint64_t addr[WARP_LANES_MAX] = {0};
	uint32_t v[WARP_LANES_MAX] = {0};

	wl_lane_addrs(addr, base, 0, q->words, 4);
	gw_ld32v(w, addr, rec_mask(q), v);
	memcpy(rec, v, q->words * 4);
}

static void rec_store(struct gpu_warp *w, const struct wsq *q, uint64_t base, const uint32_t *rec)
{
	uint64_t addr[WARP_LANES_MAX] = {0};
	uint32_t v[WARP_LANES_MAX] = {0};

	wl_lane_addrs(addr, base, 0, q->words, 4);
	memcpy(v, rec, q->words * 4);
	gw_st32v(w, addr, rec_mask(q), v);
}

/* An index store: atomic with the release half of the order, or plain. */
static void idx_store(struct gpu_warp *w, const struct wsq_sync *s, uint64_t addr, uint32_t v,
		      enum mem_order order)
{
	if (s->access == WSQ_ATOMIC)
		gw_atom_store(w, addr, 4, v, s->scope, order);
	else
		gw_st32(w, addr, v);
}

int wsq_pop(struct gpu_warp *w, const struct wsq *q, unsigned me, struct wsq_owner *o,
	    const struct wsq_sync *s, uint32_t *rec, uint32_t *slot)
{
	uint32_t b, age, top, tag, nage;

	if (o->bot == 0)
		return 0;
	b = --o->bot;
	if (s->access == WSQ_ATOMIC && s->sc && s->scope != MEM_SCOPE_WG) {
		/* SC atomics (seed 004): a release store the warp waits for, an exchange as x86
		 * compilers make a seq_cst store, so the age read cannot be performed first. At
		 * work-group scope both are performed in the L1 and the fence costs nothing but
		 * the wait (an exchange would be a work-group RMW, which RSP's locks hold up). */
		gw_atom(w, MEM_ATOM_EXCH, wsq_bot_addr(q, me), 4, b, 0, s->scope,
			MEM_ORDER_RELEASE);
	} else {
		idx_store(w, s, wsq_bot_addr(q, me), b, MEM_ORDER_RELAXED);
		gw_fence(w, MEM_ORDER_ACQ_REL, s->scope); /* the bottom store before the age read */
	}
	rec_load(w, q, wsq_slot_addr(q, me, b), rec);
	if (s->access == WSQ_ATOMIC)
		age =
		    (uint32_t)gw_atom_load(w, wsq_age_addr(q, me), 4, s->scope, acq_half(s->order));
	else /* an atomic add of 0: the value at the L2 */
		age = (uint32_t)gw_atom(w, MEM_ATOM_ADD, wsq_age_addr(q, me), 4, 0, 0, s->scope,
					MEM_ORDER_RELAXED);
	top = age & 0xffff;
	tag = age >> 16;
	gw_compute(w, 6); /* compares, unpacking */
	if (slot)
		*slot = b;
	if (b > top)
		return 1;
	o->bot = 0;
	idx_store(w, s, wsq_bot_addr(q, me), 0, rel_half(s->order));
	if (s->access == WSQ_PLAIN)
		gw_fence(w, MEM_ORDER_RELEASE, s->scope);
	o->tag = (tag + 1) & 0xffff;
	nage = o->tag << 16;
	if (b == top &&
	    gw_atom(w, MEM_ATOM_CAS, wsq_age_addr(q, me), 4, age, nage, s->scope, s->order) == age)
		return 1;
	gw_atom(w, MEM_ATOM_EXCH, wsq_age_addr(q, me), 4, nage, 0, s->scope, rel_half(s->order));
	return 0;
}

int wsq_push(struct gpu_warp *w, const struct wsq *q, unsigned me, struct wsq_owner *o,
	     const struct wsq_sync *s, const uint32_t *recs, unsigned n)
{
	if (n == 0)
		return 0;
	if (o->bot + n > q->cap)
		return -1;
	for (unsigned i = 0; i < n; i++)
		rec_store(w, q, wsq_slot_addr(q, me, o->bot + i), recs + (size_t)i * q->words);
	if (s->access == WSQ_PLAIN)
		gw_fence(w, MEM_ORDER_RELEASE, s->scope);
	o->bot += n;
	idx_store(w, s, wsq_bot_addr(q, me), o->bot, rel_half(s->order));
	return 0;
}

enum wsq_steal_result wsq_steal(struct gpu_warp *w, const struct wsq *q, unsigned victim,
				const struct wsq_sync *s, uint32_t *rec, uint32_t *agep)
{
	uint64_t age_at = wsq_age_addr(q, victim), bot_at = wsq_bot_addr(q, victim);
	uint32_t age, top, b;

	if (s->probe) {
		/* a plain look first: an empty queue costs the victim nothing (under registration
		 * an atomic load would take its index lines away) */
		age = gw_ld32(w, age_at);
		b = gw_ld32(w, bot_at);
		gw_compute(w, 4);
		if (b <= (age & 0xffff))
			return WSQ_EMPTY;
	}
	if (s->access == WSQ_ATOMIC) {
		age = (uint32_t)gw_atom_load(w, age_at, 4, s->scope, acq_half(s->order));
		b = (uint32_t)gw_atom_load(w, bot_at, 4, s->scope, acq_half(s->order));
	} else {
		age = gw_ld32(w, age_at);
		gw_fence(w, MEM_ORDER_ACQUIRE, s->scope);
		b = gw_ld32(w, bot_at);
	}
	top = age & 0xffff;
	gw_compute(w, 4);
	if (b <= top || top >= q->cap)
		return WSQ_EMPTY;
	if (s->access == WSQ_PLAIN)
		gw_fence(w, MEM_ORDER_ACQUIRE, s->scope);
	rec_load(w, q, wsq_slot_addr(q, victim, top), rec);
	if (gw_atom(w, MEM_ATOM_CAS, age_at, 4, age, age + 1, s->scope, s->order) != age)
		return WSQ_LOST;
	if (agep)
		*agep = age;
	return WSQ_STOLEN;
}

void wsq_owner_load(struct gpu_warp *w, const struct wsq *q, unsigned me, const struct wsq_sync *s,
		    struct wsq_owner *o)
{
	o->bot = (uint32_t)gw_atom_load(w, wsq_bot_addr(q, me), 4, s->scope, acq_half(s->order));
	o->tag =
	    (uint32_t)gw_atom_load(w, wsq_age_addr(q, me), 4, s->scope, acq_half(s->order)) >> 16;
}

int wsq_alloc(struct gpu_host *h, struct wsq *q, unsigned queues, unsigned cap, unsigned words)
{
	if (queues == 0 || cap == 0 || cap > WSQ_MAX_CAP || words == 0 || words > WSQ_MAX_WORDS)
		return -CS_EINVAL;
	q->queues = queues;
	q->cap = cap;
	q->words = words;
	q->base = wl_alloc_zero(h, (size_t)queues * wsq_bytes(q));
	return 0;
}

void wsq_fill(struct gpu_host *h, const struct wsq *q, unsigned i, const uint32_t *recs, unsigned n)
{
	if (n)
		gh_write(h, wsq_slot_addr(q, i, 0), recs, (size_t)n * q->words * 4);
	gh_write32(h, wsq_bot_addr(q, i), n);
	gh_write32(h, wsq_age_addr(q, i), 0);
}

void wsq_scenario_sync(enum wsq_scenario sc, struct wsq_sync *own, struct wsq_sync *steal,
		       bool *stealing)
{
	*own = (struct wsq_sync){MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL, WSQ_ATOMIC, false, false};
	*steal = *own;
	*stealing = sc == WSQ_STEAL_ONLY || sc == WSQ_RSP || sc == WSQ_SCOPED_STEAL;
	if (sc == WSQ_SCOPE_ONLY || sc == WSQ_RSP || sc == WSQ_SCOPED_STEAL)
		own->scope = MEM_SCOPE_WG;
	if (sc == WSQ_RSP)
		steal->scope = MEM_SCOPE_DEVICE_REMOTE;
}
