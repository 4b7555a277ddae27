/*
 * tlm/coherence/lease_l1.c - the L1 of TC-Strong, TC-Weak and G-TSC.
 *
 * A load hits when the tag matches and the line's lease covers it: TC, the global time is
 * before the lease's end (cache_line.meta[0], ps); G-TSC, the warp's timestamp is not beyond
 * the line's rts (meta[1]; meta[0] is wts), and the warp's timestamp then rises to the line's
 * wts. A tag match whose lease does not cover the load is a coherence miss: the L1 asks the L2
 * again (G-TSC: a BusRd carrying the line's wts, which the L2 answers with a renewal when its
 * copy is the same version, and the warp's timestamp).
 *
 * One MSHR entry per line holds what waits on it: loads waiting for a fill or a renewal, and
 * the stores and atomics sent and not yet acknowledged. Later misses to a line in flight wait
 * in the entry (request combining) and are checked against the lease that comes back; those it
 * does not cover send one renewal for all of them (G-TSC), or a new read (TC). With
 * gtsc.combining=forward every miss sends its own request instead.
 *
 * Stores and atomics are written through and performed at the L2. TC drops the L1's own copy
 * (write-evict). G-TSC with gtsc.visibility=block writes a store into a present line and keeps
 * every access to the line waiting until the store's ack has fixed the new data's timestamps
 * (the paper's update-visibility rule, Fig. 10); with keep, other warps go on reading the old
 * copy. Either way a warp's own loads wait for its pending stores to the line, so it sees them.
 * Under block, stores sent while the line was not here (its fill on the way may predate them)
 * are written into the copy with the next store that finds it, so that the acks' chain of
 * versions starts from a copy holding them.
 * TC-Weak remembers per warp the time its writes (and the writes it has read) become visible
 * everywhere (GWCT); a fence waits for it.
 */
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/gpu_l1_port.h"
#include "tlm/coherence/lease.h"
#include "tlm/mem/cache.h"
#include "tlm/mem/mshr.h"

#define L1_VALID   1
#define TICK_LINES 4 /* lines a warp's spin detector follows (spin_tick) */

/* mshr_user(e)[1] */
#define E_READS	 0xffu	    /* reads (or renewals) in flight */
#define E_MERGED (1u << 8)  /* a pending store was written into the present line */
#define E_BROKEN (1u << 9)  /* another SM's write came between them: drop the line */
#define E_STALE	 (1u << 10) /* TC: a store went while a read was out (its warps: chain[]) */
/* mshr_user(e)[2]: pending stores and atomics; [3]: warps that sent them (bit per warp, all
 * bits for warps beyond 63); [0]: when the miss started; the chain's expected wts is below */

/* Why a line was last dropped (miss causes): replaced, or dropped by the protocol (TC's
 * write-evict, a G-TSC copy another SM's store made stale, a fill predating the SM's store). */
enum { SEEN_REPLACED = 1, SEEN_DROPPED = 2 };

/* What the entry remembers of one access (the transaction record). */
struct ll1_target {
	uint32_t id;
	uint16_t warp;
	uint8_t kind; /* GPU_ACC_LD / ST / ATOM */
	uint8_t sector_mask;
	bool after_store; /* G-TSC: waited for its warp's store: it follows the store's ts */
	sim_time_t issued;
	uint64_t ts; /* G-TSC: the warp's timestamp when the load was issued */
	uint64_t byte_mask[2];
	uint8_t data[MEM_LINE_MAX]; /* a store's bytes */
};

struct ll1_stats {
	struct l1_common_stats c;
	uint64_t *miss_cold, *miss_capacity, *miss_coherence, *miss_expired, *miss_dropped;
	uint64_t *self_advances;
	uint64_t *mshr_merges, *renewals_sent, *renewals_got, *fills, *rereads;
	uint64_t *blocked_loads, *write_acks, *resets, *stale_epoch, *store_writes, *late_merges;
};

struct gpu_l1 {
	enum lease_kind kind;
	const struct gpu_ctx *ctx;
	struct l1_port port;
	struct cache *cache;
	struct mshr_table *mshr;
	unsigned line_bytes, sector_bytes;
	uint8_t all_sectors;
	/* TC */
	sim_time_t lease_ps;
	sim_time_t *gwct; /* per warp (TC-Weak) */
	/* G-TSC */
	const struct gtsc_cfg *g;
	unsigned tsb; /* timestamp bytes on the wire */
	uint64_t *warp_ts;
	uint32_t *warp_ops; /* memory operations since the warp's timestamp last self-advanced */
	/* per warp, the TICK_LINES lines it hit last and its hits to each since its timestamp
	 * last ticked (gtsc.tick_hits) */
	uint32_t *warp_hits;
	uint64_t *warp_line;
	uint8_t *warp_tick_next; /* the entry the next new line takes, round robin */
	/* per MSHR entry: G-TSC, the wts the next ack should have been applied on; TC, the warps
	 * whose stores went while a read was out */
	uint64_t *chain;
	uint64_t epoch;
	/* miss causes: lines seen since the launch (open addressing, line address -> cause) */
	uint64_t *seen_key;
	uint8_t *seen_val;
	unsigned seen_cap, seen_n;

	struct ll1_stats st;
};

static bool is_gtsc(const struct gpu_l1 *l1)
{
	return l1->kind == LEASE_GTSC;
}

/* ---- miss causes ----------------------------------------------------------------------------- */

static unsigned seen_slot(const struct gpu_l1 *l1, uint64_t line)
{
	uint64_t h = (line >> 7) * 0x9e3779b97f4a7c15ull;
	unsigned i = (unsigned)(h >> 40) & (l1->seen_cap - 1);

	while (l1->seen_key[i] && l1->seen_key[i] != line + 1)
		i = (i + 1) & (l1->seen_cap - 1);
	return i;
}

static void seen_set(struct gpu_l1 *l1, uint64_t line, uint8_t why)
{
	unsigned i;

	if (2 * (l1->seen_n + 1) > l1->seen_cap) {
		uint64_t *ok = l1->seen_key;
		uint8_t *ov = l1->seen_val;
		unsigned oc = l1->seen_cap;
		uint64_t *nk = calloc(2 * (size_t)oc, sizeof(*nk));
		uint8_t *nv = calloc(2 * (size_t)oc, 1);

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return; /* a statistic: keep the old table */
		}
		l1->seen_key = nk;
		l1->seen_val = nv;
		l1->seen_cap = 2 * oc;
		for (unsigned j = 0; j < oc; j++)
			if (ok[j]) {
				unsigned s = seen_slot(l1, ok[j] - 1);

				l1->seen_key[s] = ok[j];
				l1->seen_val[s] = ov[j];
			}
		free(ok);
		free(ov);
	}
	i = seen_slot(l1, line);
	if (!l1->seen_key[i]) {
		l1->seen_key[i] = line + 1;
		l1->seen_n++;
	}
	l1->seen_val[i] = why;
}

static void count_miss(struct gpu_l1 *l1, uint64_t line, const struct cache_line *l)
{
	unsigned i;

	if (l) {
		/* the tag matched: the lease did not cover the load (the lease protocols keep
		 * whole lines) */
		(*l1->st.miss_coherence)++;
		(*l1->st.miss_expired)++;
		return;
	}
	i = seen_slot(l1, line);
	if (!l1->seen_key[i]) {
		(*l1->st.miss_cold)++;
	} else if (l1->seen_val[i] == SEEN_DROPPED) {
		(*l1->st.miss_coherence)++;
		(*l1->st.miss_dropped)++;
	} else
		(*l1->st.miss_capacity)++;
}

/* ---- state helpers --------------------------------------------------------------------------- */

static uint64_t warp_bit(unsigned warp)
{
	return warp < 64 ? 1ull << warp : ~0ull;
}

static unsigned e_reads(struct mshr_entry *e)
{
	return (unsigned)(mshr_user(e)[1] & E_READS);
}

static bool load_blocked(struct mshr_entry *e, unsigned warp)
{
	uint64_t *u = mshr_user(e);

	if (!u[2])
		return false;
	return (u[1] & E_MERGED) || (u[3] & warp_bit(warp));
}

/* Does l's lease cover a load of this warp now? */
static bool covered(const struct gpu_l1 *l1, const struct cache_line *l, unsigned warp)
{
	if (is_gtsc(l1))
		return l1->warp_ts[warp] <= l->meta[1];
	return gpu_now(l1->ctx) < (sim_time_t)l->meta[0];
}

/* The timestamp a waiting G-TSC load needs covered: its warp's when it was issued (under RC a
 * store acked meanwhile may come after it), unless it waited for a store of its warp to the
 * line, which it must follow. */
static uint64_t target_ts(const struct gpu_l1 *l1, const struct ll1_target *t)
{
	return t->after_store ? l1->warp_ts[t->warp] : t->ts;
}

static bool target_covered(const struct gpu_l1 *l1, const struct cache_line *l,
			   const struct ll1_target *t)
{
	if (is_gtsc(l1))
		return target_ts(l1, t) <= l->meta[1];
	return covered(l1, l, t->warp);
}

/* Logical time must move for a warp spinning on cached flags to see a new value: after
 * gtsc.tick_hits hits to one of the last TICK_LINES lines it hit, the warp moves past that
 * line's lease. Several lines, because a warp's lanes may spin on different words (bh's tree
 * build gathers every blocked lane's slot each turn). */
static void spin_tick(struct gpu_l1 *l1, const struct cache_line *l, unsigned warp)
{
	uint64_t *line = &l1->warp_line[(size_t)warp * TICK_LINES];
	uint32_t *hits = &l1->warp_hits[(size_t)warp * TICK_LINES];
	unsigned i;

	for (i = 0; i < TICK_LINES && line[i] != l->addr; i++)
		;
	if (i == TICK_LINES) {
		i = l1->warp_tick_next[warp];
		l1->warp_tick_next[warp] = (uint8_t)((i + 1) % TICK_LINES);
		line[i] = l->addr;
		hits[i] = 0;
		return;
	}
	if (!l1->g->tick_hits || ++hits[i] < l1->g->tick_hits)
		return;
	hits[i] = 0;
	if (l1->warp_ts[warp] <= l->meta[1])
		l1->warp_ts[warp] = l->meta[1] + 1;
}

/* A load is performed on l: the warp's timestamp (G-TSC) or GWCT (TC-Weak) follows. */
static void load_performed(struct gpu_l1 *l1, const struct cache_line *l, unsigned warp)
{
	if (is_gtsc(l1)) {
		if (l1->warp_ts[warp] < l->meta[0])
			l1->warp_ts[warp] = l->meta[0];
		spin_tick(l1, l, warp);
	} else if (l1->kind == LEASE_TC_WEAK && l1->gwct[warp] < l->meta[1]) {
		l1->gwct[warp] = l->meta[1];
	}
}

/* Lines an MSHR entry waits on stay (a renewal answer carries no data). */
static bool not_pinned(void *ctx, const struct cache_line *l)
{
	struct gpu_l1 *l1 = ctx;

	return !mshr_find(l1->mshr, l->addr);
}

/* Drop every line and start the timestamps again (a G-TSC reset, a launch). */
static void l1_flush_all(struct gpu_l1 *l1)
{
	cache_invalidate_all(l1->cache);
	if (!is_gtsc(l1))
		return;
	for (unsigned w = 0; w < l1->ctx->warps; w++) {
		l1->warp_ts[w] = 1;
		l1->warp_ops[w] = 0;
		for (unsigned i = 0; i < TICK_LINES; i++)
			l1->warp_hits[(size_t)w * TICK_LINES + i] = 0;
	}
	/* loads waiting from before the reset start again at 1 too: asking with their old
	 * timestamps in the new epoch would overflow it at once (a storm of resets) */
	for (unsigned i = 0; i < mshr_capacity(l1->mshr); i++) {
		struct mshr_entry *e = mshr_at(l1->mshr, i);

		for (unsigned j = 0; e && j < mshr_targets(e); j++) {
			struct ll1_target *t = mshr_target(e, j);

			t->ts = 1;
		}
	}
}

/* ---- requests -------------------------------------------------------------------------------- */

/* A read (G-TSC: BusRd; a renewal when the line is present) for the entry's waiting loads. */
static bool send_read(struct gpu_l1 *l1, struct mshr_entry *e, uint64_t warp_ts)
{
	uint64_t line = mshr_line(e);
	struct cache_line *l = cache_lookup(l1->cache, line);
	struct mem_msg *m = l1_port_msg(&l1->port, GPU_MSG_READ, line, mshr_index(l1->mshr, e));

	if (!m)
		return false;
	m->sector_mask = l1->sector_bytes ? l1->all_sectors : 0xff;
	if (is_gtsc(l1)) {
		m->ts[GTSC_WTS] = l ? l->meta[0] : 0;
		m->ts[GTSC_WARP_TS] = warp_ts;
		m->ts[GTSC_EPOCH] = l1->epoch;
		m->req_bytes = (uint16_t)(2 * l1->tsb);
		if (l)
			(*l1->st.renewals_sent)++;
	} else {
		/* the lifetime predictor lengthens the lease when a copy expired before use */
		m->ts[TC_L1_EXPIRED] = l != NULL;
		if (l)
			(*l1->st.rereads)++;
	}
	mshr_user(e)[1]++;
	l1_port_send(&l1->port, m);
	return true;
}

/* Serve the loads waiting in e that line l (NULL: none) covers, except those of the warps in
 * `skip`. served: when the L2 read the data just filled (TC: loads that came before may use it
 * whatever the lease), 0 otherwise. Returns whether some load still needs a read, and in
 * *need_ts the largest timestamp it must cover (G-TSC). */
static bool serve_loads(struct gpu_l1 *l1, struct mshr_entry *e, const struct cache_line *l,
			sim_time_t served, uint64_t skip, uint64_t *need_ts)
{
	bool need = false;

	*need_ts = 0;
	for (unsigned i = 0; i < mshr_targets(e);) {
		struct ll1_target *t = mshr_target(e, i);

		if (t->kind != GPU_ACC_LD) {
			i++;
			continue;
		}
		if (load_blocked(e, t->warp)) {
			t->after_store = true;
			i++;
			continue;
		}
		if (l && !(skip & warp_bit(t->warp)) &&
		    (l->valid_sectors & t->sector_mask) == t->sector_mask &&
		    (target_covered(l1, l, t) || (served && t->issued <= served))) {
			load_performed(l1, l, t->warp);
			l1->port.cl.done(l1->port.cl.sm, t->id, l->data);
			mshr_remove(e, i);
			continue;
		}
		need = true;
		if (is_gtsc(l1) && target_ts(l1, t) > *need_ts)
			*need_ts = target_ts(l1, t);
		i++;
	}
	return need;
}

/* Serve what waits in e and may go now; ask again for the loads the lease does not cover;
 * free the entry when nothing is left. served: as for serve_loads(). */
static void serve_waiting(struct gpu_l1 *l1, struct mshr_entry *e, sim_time_t served)
{
	uint64_t need_ts;
	bool need = serve_loads(l1, e, cache_lookup(l1->cache, mshr_line(e)), served, 0, &need_ts);

	if (need && !e_reads(e)) {
		send_read(l1, e, need_ts);
		return;
	}
	if (!mshr_targets(e) && !e_reads(e) && !mshr_user(e)[2]) {
		mshr_free(l1->mshr, e);
		l1_port_maybe_retry(&l1->port);
	}
}

static bool l1_load(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct mshr_entry *e = mshr_find(l1->mshr, a->line_addr);
	struct ll1_target t = {
	    .id = a->id,
	    .warp = a->warp,
	    .kind = GPU_ACC_LD,
	    .sector_mask = a->sector_mask,
	    .issued = gpu_now(l1->ctx),
	    .ts = is_gtsc(l1) ? l1->warp_ts[a->warp] : 0,
	    .after_store = e && load_blocked(e, a->warp),
	};
	bool hit =
	    l && (l->valid_sectors & a->sector_mask) == a->sector_mask && covered(l1, l, a->warp);

	if (hit && (!e || !load_blocked(e, a->warp))) {
		(*l1->st.c.load_hits)++;
		load_performed(l1, l, a->warp);
		cache_touch(l1->cache, l);
		l1_port_hit(&l1->port, a->id, l->data);
		return true;
	}
	if (e) {
		bool forward = is_gtsc(l1) && l1->g->combining == GTSC_COMBINE_FORWARD;
		bool send = !load_blocked(e, a->warp) && (forward || !e_reads(e));

		if (send && !l1_port_room(&l1->port, 1)) {
			(*l1->st.c.refused_queue)++;
			return false;
		}
		if (!mshr_merge(l1->mshr, e, &t)) {
			(*l1->st.c.refused_merge)++;
			return false;
		}
		if (load_blocked(e, a->warp))
			(*l1->st.blocked_loads)++;
		(*l1->st.mshr_merges)++;
		count_miss(l1, a->line_addr, l);
		if (send)
			send_read(l1, e, is_gtsc(l1) ? l1->warp_ts[a->warp] : 0);
		return true;
	}
	if (mshr_full(l1->mshr)) {
		(*l1->st.c.refused_mshr)++;
		return false;
	}
	if (!l1_port_room(&l1->port, 1)) {
		(*l1->st.c.refused_queue)++;
		return false;
	}
	count_miss(l1, a->line_addr, l);
	e = mshr_alloc(l1->mshr, a->line_addr);
	mshr_merge(l1->mshr, e, &t);
	mshr_user(e)[0] = gpu_now(l1->ctx);
	return send_read(l1, e, is_gtsc(l1) ? l1->warp_ts[a->warp] : 0);
}

/* G-TSC, visibility=block: the copy of e's line takes the entry's unacknowledged stores (written
 * in order) and its acks are checked from the copy's version on. A copy that lacked them (they
 * were sent with no line here and its fill came after; a new fill) would otherwise be carried
 * by their acks to a version whose bytes it does not hold. An atomic's result never reaches
 * the L1: the copy is dropped once the acks are in. */
static void merge_pending(struct gpu_l1 *l1, struct mshr_entry *e, struct cache_line *l)
{
	uint64_t *u = mshr_user(e);

	u[1] &= ~(uint64_t)E_BROKEN;
	for (unsigned i = 0; i < mshr_targets(e); i++) {
		struct ll1_target *t = mshr_target(e, i);

		if (t->kind == GPU_ACC_ST)
			gpu_mask_copy(l->data, t->data, t->byte_mask, l1->line_bytes);
		else if (t->kind == GPU_ACC_ATOM)
			u[1] |= E_BROKEN;
	}
	l1->chain[mshr_index(l1->mshr, e)] = l->meta[0];
}

/* Stores and atomics: written through, performed at the L2; the entry remembers them. */
static bool l1_write(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct mshr_entry *e = mshr_find(l1->mshr, a->line_addr);
	bool atomic = a->kind == GPU_ACC_ATOM;
	struct ll1_target t = {
	    .id = a->id,
	    .warp = a->warp,
	    .kind = a->kind,
	    .sector_mask = a->sector_mask,
	    .issued = gpu_now(l1->ctx),
	    .byte_mask = {a->byte_mask[0], a->byte_mask[1]},
	};
	struct mem_msg *m;
	uint64_t *u;

	if (!l1_port_room(&l1->port, 1)) {
		(*l1->st.c.refused_queue)++;
		return false;
	}
	if (!e && mshr_full(l1->mshr)) {
		(*l1->st.c.refused_mshr)++;
		return false;
	}
	if (e && mshr_targets(e) >= mshr_max_merge(l1->mshr)) {
		(*l1->st.c.refused_merge)++;
		return false;
	}
	m = l1_port_msg(&l1->port, atomic ? GPU_MSG_ATOMIC : GPU_MSG_WRITE, a->line_addr, 0);
	if (!m)
		return false;
	if (!e) {
		e = mshr_alloc(l1->mshr, a->line_addr);
		mshr_user(e)[0] = gpu_now(l1->ctx);
	}
	u = mshr_user(e);
	m->txn = mshr_index(l1->mshr, e);
	m->scope = a->scope;
	m->order = a->order;
	if (atomic) {
		const struct mem_atom_lanes *al = (const struct mem_atom_lanes *)a->data;

		m->p.data = a->data; /* the SM's lane records: operands out, old values back */
		m->p.len = sizeof(struct mem_atom_lanes);
		m->atomic_op = al->op;
		m->req_bytes = mem_atom_req_bytes(al);
	} else {
		gpu_mask_copy(m->p.data, a->data, a->byte_mask, l1->line_bytes);
		gpu_mask_copy(t.data, a->data, a->byte_mask, l1->line_bytes);
		m->byte_mask[0] = a->byte_mask[0];
		m->byte_mask[1] = a->byte_mask[1];
		m->sector_mask = a->sector_mask;
		m->req_bytes = (uint16_t)gpu_mask_bytes(a->byte_mask);
	}
	if (is_gtsc(l1)) {
		m->ts[GTSC_WARP_TS] = l1->warp_ts[a->warp];
		m->ts[GTSC_EPOCH] = l1->epoch;
		m->req_bytes = (uint16_t)(m->req_bytes + l1->tsb);
		if (l && !u[2]) {
			l1->chain[mshr_index(l1->mshr, e)] = l->meta[0];
			u[1] &= ~(uint64_t)E_BROKEN;
		}
		if (l && l1->g->visibility == GTSC_VIS_BLOCK) {
			if (atomic) {
				/* the L1 will not see the atomic's result: its copy cannot follow */
				if (u[1] & E_MERGED)
					u[1] |= E_BROKEN;
			} else {
				if (u[2] && !(u[1] & E_MERGED)) {
					/* earlier writes of the SM are not in the copy */
					merge_pending(l1, e, l);
					(*l1->st.late_merges)++;
				}
				gpu_mask_copy(l->data, a->data, a->byte_mask, l1->line_bytes);
				u[1] |= E_MERGED;
				(*l1->st.store_writes)++;
			}
		}
	} else {
		/* TC: the writer's own copy goes (write-evict); the L2 performs the write, and a
		 * fill already on its way may hold the data from before it */
		if (l) {
			seen_set(l1, l->addr, SEEN_DROPPED);
			cache_invalidate(l1->cache, l);
		}
		if (e_reads(e)) {
			u[1] |= E_STALE;
			l1->chain[mshr_index(l1->mshr, e)] |= warp_bit(a->warp);
		}
	}
	mshr_merge(l1->mshr, e, &t);
	u[2]++;
	u[3] |= warp_bit(a->warp);
	l1_port_send(&l1->port, m);
	return true;
}

static bool l1_access(struct gpu_l1 *l1, const struct gpu_access *a)
{
	bool ok;

	if (a->kind == GPU_ACC_LD)
		ok = l1_load(l1, a);
	else
		ok = l1_write(l1, a);
	if (ok) {
		/* gtsc.advance: logical time also passes on its own, a tick every N memory
		 * operations of the warp (Tardis's self-increment), so that leases expire */
		if (is_gtsc(l1) && l1->g->advance && ++l1->warp_ops[a->warp] >= l1->g->advance) {
			l1->warp_ops[a->warp] = 0;
			l1->warp_ts[a->warp]++;
			(*l1->st.self_advances)++;
		}
		(*l1->st.c.accesses)++;
		(*(a->kind == GPU_ACC_LD   ? l1->st.c.loads
		   : a->kind == GPU_ACC_ST ? l1->st.c.stores
					   : l1->st.c.atomics))++;
	} else {
		l1->port.want_retry = true;
	}
	return ok;
}

/* ---- responses ------------------------------------------------------------------------------- */

/* An answer from before a G-TSC timestamp reset this L1 has seen: its timestamps mean nothing
 * now. */
static bool stale_epoch(struct gpu_l1 *l1, const struct mem_msg *m)
{
	if (!is_gtsc(l1))
		return false;
	if (m->ts[GTSC_EPOCH] > l1->epoch) {
		/* the reset signal: drop every line, start every warp again at 1 */
		(*l1->st.resets)++;
		l1_flush_all(l1);
		l1->epoch = m->ts[GTSC_EPOCH];
	}
	if (m->ts[GTSC_EPOCH] < l1->epoch) {
		(*l1->st.stale_epoch)++;
		return true;
	}
	return false;
}

static void on_ack(struct gpu_l1 *l1, struct mshr_entry *e, struct mem_msg *m)
{
	uint64_t *u = mshr_user(e);
	struct cache_line *l = cache_lookup(l1->cache, mshr_line(e));
	bool stale = stale_epoch(l1, m);
	unsigned i;
	struct ll1_target *t = NULL;

	for (i = 0; i < mshr_targets(e); i++) {
		t = mshr_target(e, i);
		if (t->kind != GPU_ACC_LD)
			break;
	}
	if (!t || i == mshr_targets(e) || !u[2]) {
		sim_fail(l1->ctx->k, -CS_EPROTO, "sm%u.l1: an ack for %#llx answers no store",
			 l1->port.sm, (unsigned long long)mshr_line(e));
		return;
	}
	(*l1->st.write_acks)++;
	if (is_gtsc(l1) && !stale) {
		uint64_t *chain = &l1->chain[mshr_index(l1->mshr, e)];

		l = cache_lookup(l1->cache, mshr_line(e));
		if (l1->warp_ts[t->warp] < m->ts[GTSC_WTS])
			l1->warp_ts[t->warp] = m->ts[GTSC_WTS];
		if (u[1] & E_MERGED) {
			if (m->ts[GTSC_PREV] != *chain)
				u[1] |= E_BROKEN;
			*chain = m->ts[GTSC_WTS];
		} else if (l && t->kind == GPU_ACC_ST && m->ts[GTSC_PREV] == l->meta[0]) {
			/* keep-the-old-copy: the store was applied on our version, so our copy
			 * plus the store is the new version */
			gpu_mask_copy(l->data, t->data, t->byte_mask, l1->line_bytes);
			l->meta[0] = m->ts[GTSC_WTS];
			l->meta[1] = m->ts[GTSC_RTS];
		}
	} else if (l1->kind == LEASE_TC_WEAK && l1->gwct[t->warp] < m->ts[TC_GWCT]) {
		l1->gwct[t->warp] = m->ts[TC_GWCT];
	}
	l1->port.cl.done(l1->port.cl.sm, t->id, NULL);
	mshr_remove(e, i);
	if (--u[2])
		return;
	u[3] = 0;
	if (u[1] & E_MERGED) {
		l = cache_lookup(l1->cache, mshr_line(e));
		if (l && !stale && !(u[1] & E_BROKEN)) {
			l->meta[0] = m->ts[GTSC_WTS];
			l->meta[1] = m->ts[GTSC_RTS];
		} else if (l) {
			seen_set(l1, l->addr, SEEN_DROPPED);
			cache_invalidate(l1->cache, l);
		}
		u[1] &= ~(uint64_t)(E_MERGED | E_BROKEN);
	}
	serve_waiting(l1, e, 0);
}

/* Serve the waiting loads the answer m covers straight from it, without keeping the line (no
 * way is free, or the data predates a store of the SM: TC-Weak), except those of the warps in
 * `skip`, which ask again. */
static void serve_from_msg(struct gpu_l1 *l1, struct mshr_entry *e, const struct mem_msg *m,
			   uint64_t skip)
{
	uint8_t buf[MEM_LINE_MAX];
	struct cache_line tmp = {.addr = mshr_line(e), .state = L1_VALID, .data = buf};
	uint64_t need_ts;

	tmp.valid_sectors = l1->all_sectors;
	memcpy(tmp.data, m->p.data, l1->line_bytes);
	tmp.meta[0] = is_gtsc(l1) ? m->ts[GTSC_WTS] : m->ts[TC_EXPIRE];
	tmp.meta[1] = is_gtsc(l1) ? m->ts[GTSC_RTS] : m->ts[TC_GWCT];
	serve_loads(l1, e, &tmp, is_gtsc(l1) ? 0 : m->ts[TC_SERVED], skip, &need_ts);
}

/* A fill (data) or a G-TSC renewal (rts only) for the entry's reads. */
static void on_data(struct gpu_l1 *l1, struct mshr_entry *e, struct mem_msg *m)
{
	uint64_t *u = mshr_user(e);
	uint64_t line = mshr_line(e);
	bool renew = m->resp_type == GPU_MSG_RENEW;
	struct cache_line *l;

	if (!e_reads(e)) {
		sim_fail(l1->ctx->k, -CS_EPROTO, "sm%u.l1: data for %#llx answers no read",
			 l1->port.sm, (unsigned long long)line);
		return;
	}
	u[1]--;
	if (stale_epoch(l1, m)) {
		serve_waiting(l1, e, 0); /* the loads ask again, in the new epoch */
		return;
	}
	cs_stat_avg_sample(l1->st.c.miss_latency, (double)(gpu_now(l1->ctx) - u[0]) /
						      sim_clock_period_ps(&l1->ctx->core_clk));
	l = cache_lookup(l1->cache, line);
	if (renew) {
		(*l1->st.renewals_got)++;
		if (l && l->meta[1] < m->ts[GTSC_RTS])
			l->meta[1] = m->ts[GTSC_RTS];
		serve_waiting(l1, e, 0);
		return;
	}
	(*l1->st.fills)++;
	if (u[1] & E_STALE) {
		/* TC: read before a store of this SM was performed: the writers must not see it,
		 * so it is not kept either (a later hit could be theirs) */
		u[1] &= ~(uint64_t)E_STALE;
		serve_from_msg(l1, e, m, l1->chain[mshr_index(l1->mshr, e)]);
		l1->chain[mshr_index(l1->mshr, e)] = 0;
		if (l) {
			seen_set(l1, line, SEEN_DROPPED);
			cache_invalidate(l1->cache, l);
		}
		serve_waiting(l1, e, 0);
		return;
	}
	if (!l) {
		l = cache_victim(l1->cache, line, not_pinned, l1);
		if (!l) {
			/* every way waits on something: serve from the message, keep nothing */
			serve_from_msg(l1, e, m, 0);
			serve_waiting(l1, e, 0);
			return;
		}
		if (l->state)
			seen_set(l1, l->addr, SEEN_REPLACED);
		cache_install(l1->cache, l, line, L1_VALID);
	}
	memcpy(l->data, m->p.data, l1->line_bytes);
	l->valid_sectors = l1->all_sectors;
	seen_set(l1, line, SEEN_REPLACED);
	if (is_gtsc(l1)) {
		l->meta[0] = m->ts[GTSC_WTS];
		l->meta[1] = m->ts[GTSC_RTS];
		if (u[2] && (u[1] & E_MERGED))
			merge_pending(l1, e, l); /* stores written into the old copy: again */
	} else {
		l->meta[0] = m->ts[TC_EXPIRE];
		l->meta[1] = m->ts[TC_GWCT];
	}
	cache_touch(l1->cache, l);
	serve_waiting(l1, e, is_gtsc(l1) ? 0 : m->ts[TC_SERVED]);
}

static void l1_response(void *owner, struct mem_msg *m)
{
	struct gpu_l1 *l1 = owner;
	struct mshr_entry *e = mshr_at(l1->mshr, m->txn);

	if (!e || mshr_line(e) != m->p.addr) {
		sim_fail(l1->ctx->k, -CS_EPROTO,
			 "sm%u.l1: an answer for %#llx matches no MSHR entry", l1->port.sm,
			 (unsigned long long)m->p.addr);
		return;
	}
	switch (m->resp_type) {
	case GPU_MSG_DATA:
	case GPU_MSG_RENEW:
		on_data(l1, e, m);
		break;
	case GPU_MSG_WRITE_ACK:
	case GPU_MSG_ATOMIC_ACK:
		on_ack(l1, e, m);
		break;
	default:
		sim_fail(l1->ctx->k, -CS_EPROTO, "sm%u.l1: unexpected answer type %u", l1->port.sm,
			 m->resp_type);
		break;
	}
}

/* ---- fences, kernel boundaries --------------------------------------------------------------- */

static sim_time_t l1_fence(struct gpu_l1 *l1, unsigned warp, uint8_t order, uint8_t scope)
{
	(void)scope;
	/* TC-Weak: a release waits until the warp's writes (and those it read) are visible
	 * everywhere; an acquire needs nothing, since expired leases already miss */
	if (l1->kind == LEASE_TC_WEAK && order != MEM_ORDER_ACQUIRE)
		return l1->gwct[warp];
	return 0;
}

/* G-TSC: the warps of a CTA leave a barrier at the largest warp_ts among them. A barrier
 * orders every warp's earlier accesses before every warp's later ones; in logical time that
 * means a common timestamp (Tardis joins timestamps at synchronisation the same way) [INF: the
 * papers do not say]. Without it a warp that did not itself read the flag of a grid barrier
 * would keep hitting copies older than what the flag published. */
static void l1_barrier(struct gpu_l1 *l1, const unsigned *warps, unsigned n)
{
	uint64_t ts = 0;

	if (!is_gtsc(l1))
		return;
	for (unsigned i = 0; i < n; i++)
		if (l1->warp_ts[warps[i]] > ts)
			ts = l1->warp_ts[warps[i]];
	for (unsigned i = 0; i < n; i++)
		l1->warp_ts[warps[i]] = ts;
}

static bool l1_probe(const struct gpu_l1 *l1, uint64_t addr, unsigned warp, uint64_t out[3])
{
	struct cache_line *l = cache_lookup(l1->cache, addr & ~(uint64_t)(l1->line_bytes - 1));

	out[2] = is_gtsc(l1) ? l1->warp_ts[warp] : l1->gwct ? l1->gwct[warp] : 0;
	if (!l)
		return false;
	out[0] = l->meta[0];
	out[1] = l->meta[1];
	return true;
}

static void l1_kernel_begin(struct gpu_l1 *l1)
{
	l1_flush_all(l1);
	memset(l1->seen_key, 0, l1->seen_cap * sizeof(*l1->seen_key));
	l1->seen_n = 0;
	if (l1->gwct)
		memset(l1->gwct, 0, l1->ctx->warps * sizeof(*l1->gwct));
}

static void l1_kernel_end(struct gpu_l1 *l1, void (*cb)(void *), void *arg)
{
	(void)l1;
	cb(arg); /* write-through: the L2 has everything */
}

/* Write-through: the L2 has every byte; the lines go, the warps' timestamps and GWCT stay. */
static void l1_ff_flush(struct gpu_l1 *l1, gpu_ff_write_fn *write, void *arg)
{
	(void)write;
	(void)arg;
	cache_invalidate_all(l1->cache);
}

static bool l1_idle(const struct gpu_l1 *l1)
{
	return l1_port_idle(&l1->port) && !mshr_used(l1->mshr);
}

static uint64_t l1_digest(const struct gpu_l1 *l1)
{
	return cache_digest(l1->cache);
}

/*
 * The L1's energy events (docs/energy.md): every access and fill probes or writes the tags
 * and reads the set's timestamps or leases with them; load hits read the data array, fills
 * and stores into a present line write it; one MSHR entry per line holds the loads waiting
 * and the stores and atomics not yet acknowledged (loads missed, fills, renewals, stores,
 * atomics and acks each touch it). A fill writes the line's timestamps, and so does a G-TSC
 * renewal; the per-warp table (G-TSC warp_ts, TC-Weak GWCT) is read or moved by every access,
 * fill, renewal and ack under G-TSC and by fills and acks under TC-Weak.
 */
static void l1_energy(const struct gpu_l1 *l1, struct energy_counts *out)
{
	const struct ll1_stats *s = &l1->st;
	double acc = (double)*s->c.accesses, fills = (double)*s->fills;
	double hits = (double)*s->c.load_hits, ren = (double)*s->renewals_got;
	double acks = (double)*s->write_acks;

	energy_add(out, EN_L1_TAG, acc + fills);
	energy_add(out, EN_L1_DATA_READ, hits);
	energy_add(out, EN_L1_DATA_WRITE, fills + (double)*s->store_writes);
	energy_add(out, EN_L1_MSHR,
		   (double)*s->c.loads - hits + fills + ren + (double)*s->c.stores +
		       (double)*s->c.atomics + acks);
	energy_add(out, EN_L1_TS_READ, acc);
	energy_add(out, EN_L1_TS_WRITE, fills + (l1->kind == LEASE_GTSC ? ren : 0));
	if (l1->kind == LEASE_GTSC)
		energy_add(out, EN_L1_WARP_TS, acc + fills + ren + acks);
	else if (l1->kind == LEASE_TC_WEAK)
		energy_add(out, EN_L1_WARP_TS, fills + acks);
}

static struct tlm_initiator_socket *l1_noc_port(struct gpu_l1 *l1)
{
	return &l1->port.noc;
}

static void l1_destroy(struct gpu_l1 *l1)
{
	if (!l1)
		return;
	l1_port_fini(&l1->port);
	cache_destroy(l1->cache);
	mshr_destroy(l1->mshr);
	free(l1->gwct);
	free(l1->warp_ts);
	free(l1->warp_ops);
	free(l1->warp_hits);
	free(l1->warp_line);
	free(l1->warp_tick_next);
	free(l1->chain);
	free(l1->seen_key);
	free(l1->seen_val);
	free(l1);
}

static void l1_stats_register(struct gpu_l1 *l1, struct cs_stat_group *g)
{
	struct ll1_stats *s = &l1->st;

	l1_common_stats_register(&s->c, g, true);
	s->miss_cold =
	    cs_stat_counter(g, "miss.cold", "", "load misses to lines not seen since the launch");
	s->miss_capacity = cs_stat_counter(
	    g, "miss.capacity", "", "load misses to lines replaced since (capacity, conflict)");
	s->miss_coherence =
	    cs_stat_counter(g, "miss.coherence", "",
			    "load misses on a tag match whose lease did not cover the load, or to "
			    "lines the protocol dropped: miss.lease_expired + miss.write_evict");
	s->miss_expired = cs_stat_counter(
	    g, "miss.lease_expired", "",
	    "load misses on a tag match whose lease did not cover the load (true lease expiry)");
	s->miss_dropped = cs_stat_counter(
	    g, "miss.write_evict", "",
	    "load misses to lines the protocol dropped: TC's write-evict of the SM's own copy, a "
	    "G-TSC copy another SM's store made stale, a fill predating the SM's store");
	s->self_advances = cs_stat_counter(g, "self_advances", "",
					   "G-TSC: warp timestamps advanced by gtsc.advance");
	s->mshr_merges =
	    cs_stat_counter(g, "mshr_merges", "", "loads waiting in an MSHR entry (combining)");
	s->renewals_sent = cs_stat_counter(g, "renewals", "",
					   "G-TSC: BusRd for a line present with an expired lease");
	s->renewals_got =
	    cs_stat_counter(g, "renewal_answers", "", "G-TSC: BusRnw received (no data)");
	s->rereads = cs_stat_counter(g, "rereads", "", "TC: reads of a line present but expired");
	s->fills = cs_stat_counter(g, "fills", "", "data answers received");
	s->blocked_loads = cs_stat_counter(g, "blocked_loads", "",
					   "loads held behind a pending store to their line");
	s->write_acks = cs_stat_counter(g, "write_acks", "", "store and atomic acks received");
	s->resets = cs_stat_counter(g, "ts_resets", "", "G-TSC: timestamp resets seen");
	s->stale_epoch =
	    cs_stat_counter(g, "stale_answers", "", "G-TSC: answers from before a reset");
	s->store_writes = cs_stat_counter(
	    g, "store_writes", "", "G-TSC: stores written into a present line (visibility=block)");
	s->late_merges = cs_stat_counter(
	    g, "late_merges", "",
	    "G-TSC: of store_writes, those into a copy without the SM's earlier unacknowledged "
	    "writes to the line (sent before its fill came), written in first");
}

static int l1_create(enum lease_kind kind, const struct gpu_ctx *ctx, unsigned sm,
		     const struct gpu_l1_client *cl, struct cs_stat_group *g, struct gpu_l1 **out,
		     struct cs_err *err)
{
	const struct gpu_l1_cfg *cfg = ctx->l1;
	struct gpu_l1 *l1 = calloc(1, sizeof(*l1));
	struct cache_geom geom = {
	    .size_bytes = cfg->size_kib * 1024,
	    .assoc = (unsigned)cfg->assoc,
	    .line_bytes = (unsigned)cfg->line_bytes,
	    .sector_bytes = 0,
	    .repl = (enum cache_repl)cfg->repl,
	};
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!l1)
		goto fail;
	l1->kind = kind;
	l1->ctx = ctx;
	l1->line_bytes = (unsigned)cfg->line_bytes;
	l1->sector_bytes = 0; /* the lease protocols keep whole lines */
	l1->all_sectors = gpu_all_sectors(l1->line_bytes, 0);
	l1->seen_cap = 1024;
	l1->seen_key = calloc(l1->seen_cap, sizeof(*l1->seen_key));
	l1->seen_val = calloc(l1->seen_cap, 1);
	if (!l1->seen_key || !l1->seen_val)
		goto fail;
	if (kind == LEASE_GTSC) {
		l1->g = ctx->proto_cfg;
		l1->tsb = gtsc_ts_bytes(l1->g);
		l1->warp_ts = calloc(ctx->warps, sizeof(*l1->warp_ts));
		l1->warp_ops = calloc(ctx->warps, sizeof(*l1->warp_ops));
		l1->warp_hits = calloc((size_t)ctx->warps * TICK_LINES, sizeof(*l1->warp_hits));
		l1->warp_line = calloc((size_t)ctx->warps * TICK_LINES, sizeof(*l1->warp_line));
		l1->warp_tick_next = calloc(ctx->warps, sizeof(*l1->warp_tick_next));
		l1->chain = calloc(cfg->mshrs, sizeof(*l1->chain));
		if (!l1->warp_ts || !l1->warp_ops || !l1->warp_hits || !l1->warp_line ||
		    !l1->warp_tick_next || !l1->chain)
			goto fail;
		for (unsigned w = 0; w < ctx->warps; w++)
			l1->warp_ts[w] = 1;
	} else {
		const struct tc_cfg *tc = ctx->proto_cfg;

		l1->lease_ps = tc->lease * sim_clock_period_ps(&ctx->core_clk);
		l1->gwct = calloc(ctx->warps, sizeof(*l1->gwct));
		l1->chain = calloc(cfg->mshrs, sizeof(*l1->chain));
		if (!l1->gwct || !l1->chain)
			goto fail;
	}
	rc = cache_create(&geom, &l1->cache);
	if (rc) {
		cs_err_set(err, rc,
			   "l1: a %llu KiB %llu-way cache of %llu B lines cannot be built: sizes "
			   "must give a power-of-two number of sets",
			   (unsigned long long)cfg->size_kib, (unsigned long long)cfg->assoc,
			   (unsigned long long)cfg->line_bytes);
		goto fail_quiet;
	}
	rc = mshr_create((unsigned)cfg->mshrs, (unsigned)cfg->mshr_merge, sizeof(struct ll1_target),
			 &l1->mshr);
	if (rc || (rc = l1_port_init(&l1->port, ctx, sm, cl, l1_response, l1, g)))
		goto fail;
	l1_stats_register(l1, g);
	*out = l1;
	return 0;
fail:
	cs_err_set(err, rc, "sm%u.l1: %s", sm, cs_strerror(rc));
fail_quiet:
	l1_destroy(l1);
	return rc;
}

static void l1_set_lt(struct gpu_l1 *l1, bool on)
{
	l1_port_set_lt(&l1->port, on);
}

static sim_time_t l1_lt_access(struct gpu_l1 *l1, const struct gpu_access *a, sim_time_t t,
			       bool last)
{
	return l1_port_lt_access(&l1->port, l1_access, l1, a, t, last);
}

static sim_time_t l1_lt_advance(struct gpu_l1 *l1, sim_time_t t)
{
	return l1_port_lt_advance(&l1->port, t);
}

static int l1_create_tc_strong(const struct gpu_ctx *ctx, unsigned sm,
			       const struct gpu_l1_client *cl, struct cs_stat_group *g,
			       struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create(LEASE_TC_STRONG, ctx, sm, cl, g, out, err);
}

static int l1_create_tc_weak(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			     struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create(LEASE_TC_WEAK, ctx, sm, cl, g, out, err);
}

static int l1_create_gtsc(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			  struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create(LEASE_GTSC, ctx, sm, cl, g, out, err);
}

#define LEASE_L1_OPS(id)                                \
	const struct gpu_l1_ops lease_l1_##id##_ops = { \
	    .create = l1_create_##id,                   \
	    .destroy = l1_destroy,                      \
	    .noc_port = l1_noc_port,                    \
	    .access = l1_access,                        \
	    .set_lt = l1_set_lt,                        \
	    .lt_access = l1_lt_access,                  \
	    .lt_advance = l1_lt_advance,                \
	    .kernel_begin = l1_kernel_begin,            \
	    .kernel_end = l1_kernel_end,                \
	    .fence = l1_fence,                          \
	    .barrier = l1_barrier,                      \
	    .probe = l1_probe,                          \
	    .ff_flush = l1_ff_flush,                    \
	    .idle = l1_idle,                            \
	    .digest = l1_digest,                        \
	    .energy = l1_energy,                        \
	}

LEASE_L1_OPS(tc_strong);
LEASE_L1_OPS(tc_weak);
LEASE_L1_OPS(gtsc);
