/*
 * tlm/coherence/gpu_l1_base.c - the SM's L1 without coherence, and its bypass.
 *
 * Cached mode (`noncoherent`, W/L1): a set-associative L1 with MSHRs that merge later misses to
 * a line in flight; loads hit after `l1.latency` core cycles; write-through no-write-allocate
 * by default (a store updates a present line and always goes to the L2, performed at its ack),
 * or write-back with write-allocate and fetch-on-write. Atomics go to the L2; the L1 drops its
 * own copy of the line (it would be stale for the atomic's own SM). A fill on its way holds the
 * line as it was before any later write of the SM (the bank serves requests in order): a
 * write-through store is written over it, and an atomic waits for it (l1_write_waits). Nothing
 * keeps the L1 coherent with other SMs' writes: that is the point of this protocol, and what
 * the stale-data tests show. The L1 is invalidated at each kernel launch, as on the GPUs the
 * papers model.
 *
 * Bypass mode (`none`, BL): no tag check and no MSHR; every access becomes a message.
 *
 * Misses and writes wait in a bounded miss queue for the NoC (one BEGIN_REQ open at a time);
 * when the queue, the MSHRs or an entry's merge slots are full the access is refused and the
 * SM is told to retry once something frees.
 */
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/gpu_base.h"
#include "tlm/coherence/gpu_l1_port.h"
#include "tlm/coherence/scoped.h"
#include "tlm/coherence/scoped/sc_msg.h"
#include "tlm/mem/cache.h"
#include "tlm/mem/mshr.h"

#define L1_VALID 1
#define L1_REG	 2 /* registered (hLRC): this L1 holds the line's only up-to-date atomics */

/* mshr_user(e)[2] of the rsp L1: what probes did while the entry's fill was in flight. An
 * invalidation: the fill serves its accesses but leaves no copy (its data may predate the
 * remote operation). A lock in the LT face, where the lock cannot wait for the fill as the
 * detailed face's does: the data predates the remote RMW the lock serves, so the entry's
 * work-group RMWs read the line again rather than lose that RMW's update. */
#define L1_FILL_DROP	1u
#define L1_FILL_REREAD	2u
#define L1_FILL_REG	4u /* the entry's request is a GetR: the fill brings registration */
/* LT face: a recall took the line before its GetR's answer was handled here; the entry's
 * atomics were performed on the answer's data then (README.md §6), the fill only finishes
 * them and leaves no copy */
#define L1_FILL_GONE	8u
/* LT face: the entry's atomics were performed on its answer's data (a recall came first); the
 * answer's byte_mask says what they wrote */
#define L1_FILL_APPLIED 16u

/* What an MSHR entry remembers per merged access (the transaction record). */
struct l1_target {
	uint32_t id;
	uint8_t kind; /* GPU_ACC_LD, GPU_ACC_ST (write-back fetch-on-write) or GPU_ACC_ATOM (a
		       * work-group-scope atomic the scoped L1 performs itself) */
	uint8_t sector_mask;
	uint8_t order; /* an atomic's (enum mem_order) */
	bool through;  /* GPU_ACC_ST: written through already (done at its ack); only its
			* bytes go over the fill */
	uint64_t byte_mask[2];
	union {
		uint8_t data[MEM_LINE_MAX];  /* a store's bytes */
		struct mem_atom_lanes *atom; /* an atomic's lanes (the SM's record) */
	};
};

/* The scoped L1 (protocol scoped-baseline): its FIFO store buffer and the coherence actions by
 * cause (seed 004's Figs. 5 and 6). */
struct l1_scoped_stats {
	uint64_t *inv_kernel_start, *inv_acquire, *flush_kernel_end, *flush_release;
	uint64_t *flush_waits, *sb_full, *l1_atomics, *l1_atomic_misses;
};

/* The rsp L1: the probes a home bank sent it, by action (seed 004's "remote flush" and
 * "remote inval" of Figs. 5 and 6), and the work-group RMWs its locks held back. */
struct l1_rsp_stats {
	uint64_t *probes, *remote_flush, *remote_inv, *locks, *unlocks, *lock_waits, *probe_waits;
};

/* Registration (hLRC): seed 004's sync-access classes at the L1 (Table 6's L1 hits, Synch
 * Evicts) and coherence actions by cause (Figs. 5 and 6: atomic in, atomic out). */
struct l1_reg_stats {
	uint64_t *getr, *l1_hits, *merged, *inv_atomic_in, *flush_atomic_out, *sync_evicts;
	uint64_t *recalls, *recall_empty, *recall_given_back, *recall_waits, *load_bypass,
	    *reg_waits, *forwards, *relaxed_l2, *stregs, *stregs_kend, *agent_l2;
};

/* A registered line this L1 evicted: its UnReg waits until the store buffer has drained
 * (hLRC flushes before registration leaves the L1). */
struct l1_unreg {
	uint64_t addr;
	uint64_t mask[2]; /* bytes its atomics wrote */
	uint8_t data[MEM_LINE_MAX];
};

struct l1_stats {
	struct l1_common_stats c;
	uint64_t *load_misses, *mshr_merges, *store_hits, *store_misses, *store_evictions;
	uint64_t *evictions, *writebacks, *sector_misses;
	uint64_t *fence_invalidations, *fills, *fill_merges, *fill_waits;
};

struct gpu_l1 {
	const struct gpu_ctx *ctx;
	bool bypass;
	bool write_back;
	bool write_evict; /* l1.write = evict: a write-through store drops a present line */
	unsigned line_bytes, sector_bytes;
	struct l1_port port;
	struct cache *cache;
	struct mshr_table *mshr;

	unsigned wb_pending;
	void (*flush_cb)(void *arg);
	void *flush_arg;

	/* scoped-baseline: write-throughs not yet acknowledged (the FIFO store buffer's entries),
	 * its capacity, and the warps whose release waits for it to drain */
	bool scoped;
	unsigned sb_pending, sb_cap;
	unsigned *sb_waiters, n_sb_waiters;
	bool kend_streg; /* DeNovo: the kernel's end waits for its StRegs (flush_cb) */
	struct l1_scoped_stats ss;

	/* rsp (one-way network): RMW locks held by remote operations, work-group RMWs waiting
	 * for their line (a lock's ack waits for them), and probes whose ack waits (a flush for
	 * the store buffer to drain, a lock for those RMWs), in arrival order */
	bool rsp;
	unsigned rmw_locks, wg_rmw_inflight;
	struct mem_msg **probe_wait;
	unsigned n_probe_wait, cap_probe_wait;
	struct l1_rsp_stats rs;

	/* registration (hlrc; NULL: none): what gaining and losing it do, and the evicted
	 * registered lines whose UnReg waits */
	const struct sc_reg_variant *rv;
	uint32_t getr_seq; /* GetRs sent: each one's number (SC_TS_GRANT) */
	struct l1_unreg *unreg;
	unsigned n_unreg, cap_unreg;
	struct l1_reg_stats rg;

	struct l1_stats st;
};

/* ---- the cached L1 -------------------------------------------------------------------------- */

static bool l1_is_reg(const struct cache_line *l)
{
	return l && l->state == L1_REG;
}

/* DeNovo-B: data stores are written into the L1 and registered at release (StReg). */
static bool l1_stores_reg(const struct gpu_l1 *l1)
{
	return l1->rv && l1->rv->store_reg;
}

/* DeNovo-B: a line not registered whose bytes this L1's stores wrote (meta: which) waits for
 * its StReg. */
static bool l1_dirty_unreg(const struct cache_line *l)
{
	return l && l->state == L1_VALID && (l->meta[0] || l->meta[1]);
}

static bool l1_writeback_line(struct gpu_l1 *l1, struct cache_line *v)
{
	struct mem_msg *m;

	if (!v->state || !v->dirty_sectors)
		return true;
	m = l1_port_msg(&l1->port, GPU_MSG_WRITEBACK, v->addr, GPU_TXN_WRITEBACK);
	if (!m)
		return false;
	memcpy(m->p.data, v->data, l1->line_bytes);
	memset(m->byte_mask, 0, sizeof(m->byte_mask));
	for (unsigned sb = l1->sector_bytes ? l1->sector_bytes : l1->line_bytes, s = 0;
	     s * sb < l1->line_bytes; s++)
		if ((v->dirty_sectors >> s) & 1)
			gpu_mask_set_range(m->byte_mask, s * sb, sb);
	if (l1_stores_reg(l1)) {
		/* DeNovo: only the bytes the L1's stores wrote (meta) are newer */
		m->byte_mask[0] = v->meta[0];
		m->byte_mask[1] = v->meta[1];
		v->meta[0] = v->meta[1] = 0;
	}
	m->req_bytes = (uint16_t)gpu_mask_bytes(m->byte_mask);
	m->sector_mask = v->dirty_sectors;
	l1->wb_pending++;
	(*l1->st.writebacks)++;
	l1_port_send(&l1->port, m);
	return true;
}

/* t joins entry e (counted in *merges); false: its merge slots are full. */
static bool l1_join(struct gpu_l1 *l1, struct mshr_entry *e, struct l1_target *t, uint64_t *merges)
{
	if (!mshr_merge(l1->mshr, e, t)) {
		(*l1->st.c.refused_merge)++;
		return false;
	}
	(*merges)++;
	return true;
}

/* May a new MSHR entry send its request? (false: counted, the access is refused) */
static bool l1_entry_room(struct gpu_l1 *l1)
{
	if (mshr_full(l1->mshr)) {
		(*l1->st.c.refused_mshr)++;
		return false;
	}
	if (!l1_port_room(&l1->port, 1)) {
		(*l1->st.c.refused_queue)++;
		return false;
	}
	return true;
}

static bool l1_miss(struct gpu_l1 *l1, const struct gpu_access *a, struct l1_target *t)
{
	struct mshr_entry *e = mshr_find(l1->mshr, a->line_addr);
	struct mem_msg *m;

	/* merged: sectors the fill will not bring are fetched when it arrives (see l1_fill) */
	if (e)
		return l1_join(l1, e, t, l1->st.mshr_merges);
	if (!l1_entry_room(l1))
		return false;
	e = mshr_alloc(l1->mshr, a->line_addr);
	mshr_merge(l1->mshr, e, t);
	mshr_user(e)[0] = gpu_now(l1->ctx);
	m = l1_port_msg(&l1->port, GPU_MSG_READ, a->line_addr, mshr_index(l1->mshr, e));
	if (!m)
		return false;
	m->sector_mask = l1->sector_bytes ? t->sector_mask : 0xff;
	mshr_user(e)[1] = m->sector_mask;
	l1_port_send(&l1->port, m);
	return true;
}

static bool l1_cached_load(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct l1_target t;

	if (l && (l->valid_sectors & a->sector_mask) == a->sector_mask) {
		cache_touch(l1->cache, l);
		(*l1->st.c.load_hits)++;
		l1_port_hit(&l1->port, a->id, l->data);
		return true;
	}
	t.id = a->id;
	t.kind = GPU_ACC_LD;
	t.through = false;
	t.sector_mask = a->sector_mask;
	t.byte_mask[0] = a->byte_mask[0];
	t.byte_mask[1] = a->byte_mask[1];
	if (!l1_miss(l1, a, &t))
		return false;
	if (l)
		(*l1->st.sector_misses)++;
	(*l1->st.load_misses)++;
	return true;
}

static bool l1_store_msg(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct mem_msg *m = l1_port_msg(&l1->port, GPU_MSG_WRITE, a->line_addr, a->id);

	if (!m)
		return false;
	gpu_mask_copy(m->p.data, a->data, a->byte_mask, l1->line_bytes);
	m->byte_mask[0] = a->byte_mask[0];
	m->byte_mask[1] = a->byte_mask[1];
	m->sector_mask = a->sector_mask;
	m->req_bytes = (uint16_t)gpu_mask_bytes(a->byte_mask);
	m->scope = a->scope;
	m->order = a->order;
	if (l1->scoped)
		l1->sb_pending++;
	l1_port_send(&l1->port, m);
	return true;
}

/* scoped-baseline: a store that finds the store buffer full waits (the SM offers it again
 * when an entry drains). */
static bool l1_sb_full(struct gpu_l1 *l1)
{
	if (!l1->scoped || l1->sb_pending < l1->sb_cap)
		return false;
	(*l1->ss.sb_full)++;
	return true;
}

/* A data store to a line registered here: its data is the L2's (seed 004 §2.5 corner case 2)
 * and the store goes there; the bytes it writes are no longer newer here than at the L2 (a
 * warp reads its own store back after its atomic), and the copy follows. */
static bool l1_reg_store(struct gpu_l1 *l1, struct cache_line *l, const struct gpu_access *a)
{
	if (!l1_is_reg(l))
		return false;
	gpu_mask_copy(l->data, a->data, a->byte_mask, l1->line_bytes);
	l->meta[0] &= ~a->byte_mask[0];
	l->meta[1] &= ~a->byte_mask[1];
	return true;
}

static bool l1_cached_store(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct l1_target t;

	if (!l1->write_back) {
		/* a fill on its way was read at the bank before this store (or, a GetR's, may
		 * have been): the store's bytes join its entry and go over it in order, so the
		 * loads before them get the fill as it came, those after see the store, and the
		 * copy kept has it */
		struct mshr_entry *e = mshr_find(l1->mshr, a->line_addr);

		if (l1_sb_full(l1))
			return false;
		if (!l1_port_room(&l1->port, 1)) {
			(*l1->st.c.refused_queue)++;
			return false;
		}
		if (e && mshr_targets(e) >= mshr_max_merge(l1->mshr)) {
			(*l1->st.c.refused_merge)++;
			return false;
		}
		if (l1_reg_store(l1, l, a)) {
			(*l1->st.store_hits)++;
		} else if (l && l1->write_evict && !e) {
			/* write-evict (GPGPU-Sim's Fermi global stores): the copy goes, the L2
			 * performs the store; with a fill on its way the store joins it below and
			 * the line stays, so the fill cannot install bytes older than the store */
			cache_invalidate(l1->cache, l);
			(*l1->st.store_hits)++;
			(*l1->st.store_evictions)++;
		} else if (l) {
			/* write-through: the present copy is updated, the L2 performs the store */
			gpu_mask_copy(l->data, a->data, a->byte_mask, l1->line_bytes);
			cache_touch(l1->cache, l);
			(*l1->st.store_hits)++;
		} else {
			(*l1->st.store_misses)++;
		}
		if (!l1_store_msg(l1, a))
			return false;
		if (e) {
			/* a present line too: the fill may bring its sectors again */
			memset(&t, 0, sizeof(t));
			t.id = a->id;
			t.kind = GPU_ACC_ST;
			t.through = true;
			t.byte_mask[0] = a->byte_mask[0];
			t.byte_mask[1] = a->byte_mask[1];
			gpu_mask_copy(t.data, a->data, a->byte_mask, l1->line_bytes);
			mshr_merge(l1->mshr, e, &t);
			(*l1->st.fill_merges)++;
		}
		return true;
	}
	if (l && (l->valid_sectors & a->sector_mask) == a->sector_mask) {
		gpu_mask_copy(l->data, a->data, a->byte_mask, l1->line_bytes);
		l->dirty_sectors |= a->sector_mask;
		cache_touch(l1->cache, l);
		(*l1->st.store_hits)++;
		l1_port_hit(&l1->port, a->id, NULL);
		return true;
	}
	/* write-back: allocate, fetch the line, merge the store when it arrives */
	t.id = a->id;
	t.kind = GPU_ACC_ST;
	t.through = false;
	t.sector_mask = a->sector_mask;
	t.byte_mask[0] = a->byte_mask[0];
	t.byte_mask[1] = a->byte_mask[1];
	gpu_mask_copy(t.data, a->data, a->byte_mask, l1->line_bytes);
	if (!l1_miss(l1, a, &t))
		return false;
	(*l1->st.store_misses)++;
	return true;
}

/* Must a write past the L1 wait for a fill of its line on the way? The bank serves the fill
 * first, so the copy it leaves would predate the write, and a write-back entry's stores must
 * reach the bank before it. The write-through W/L1's .cg/.cv stores do not wait: that race is
 * how it shows Fermi's stale .ca load after an st.cg (coRR-L2-L1,
 * docs/validation/litmus-hardware.md). */
static bool l1_write_waits(const struct gpu_l1 *l1, const struct gpu_access *a)
{
	if (a->kind == GPU_ACC_LD || !mshr_find(l1->mshr, a->line_addr))
		return false;
	return a->kind == GPU_ACC_ATOM || l1->scoped || l1->write_back;
}

/* An access performed at the L2 past a cached L1 (an atomic, a .cg or .cv access): a dirty
 * copy is written back first (the write-back reaches the bank before the access: both travel
 * the same request path); then the copy goes, unless `keep` (a .cg load only bypasses the L1:
 * PTX leaves a copy it finds alone). false: no room to send. */
static bool l1_past_l1(struct gpu_l1 *l1, const struct gpu_access *a, bool keep)
{
	struct cache_line *l;

	if (!l1_port_room(&l1->port, 1)) {
		(*l1->st.c.refused_queue)++;
		return false;
	}
	if (l1->bypass)
		return true;
	if (l1_write_waits(l1, a)) {
		(*l1->st.fill_waits)++;
		return false;
	}
	l = cache_lookup(l1->cache, a->line_addr);
	if (l && l->dirty_sectors) {
		if (!l1_writeback_line(l1, l))
			return false;
		l->dirty_sectors = 0; /* kept (keep): clean now */
	}
	if (l && !keep && !l1_is_reg(l))
		cache_invalidate(l1->cache,
				 l); /* a registered line stays (its data is read at the L2) */
	return true;
}

/* A load the L1 does not serve or fill (.cg; .cv, which also drops the copy as stale): the
 * bank's data goes straight to the SM. */
static bool l1_uncached_load(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct mem_msg *m;

	if (!l1_past_l1(l1, a, a->cop == MEM_CO_CG))
		return false;
	m = l1_port_msg(&l1->port, GPU_MSG_READ, a->line_addr,
			a->id | (l1->bypass ? 0 : GPU_TXN_UNCACHED));
	if (!m)
		return false;
	m->sector_mask = a->sector_mask;
	l1_port_send(&l1->port, m);
	return true;
}

/* A work-group-scope atomic the scoped L1 performs on its copy (seed 004 Table 3 a0, a6,
 * a15): the lanes in order, then what they wrote goes to the L2 through the store buffer. */
/* The lanes of al in order on l's data (each lane's old value back in its record); the bytes
 * they wrote are added to mask, their sectors returned. */
static uint8_t l1_lanes_apply_data(struct gpu_l1 *l1, uint8_t *data, uint64_t addr,
				   struct mem_atom_lanes *al, uint64_t mask[2])
{
	uint8_t sectors = 0;

	for (unsigned i = 0; i < al->n; i++) {
		struct mem_atom_lane *ln = &al->lane[i];

		ln->old = mem_atomic_apply(data + ln->offset, al->bytes, al->op, ln->a, ln->b);
		if (!mem_atomic_writes(al->op))
			continue;
		if (l1->ctx->chk) {
			/* performed here: the checker sees the write now (the L2 does not again) */
			uint64_t v = 0;

			memcpy(&v, data + ln->offset, al->bytes);
			cohcheck_write(l1->ctx->chk, addr + ln->offset, al->bytes, v);
		}
		gpu_mask_set_range(mask, ln->offset, al->bytes);
		sectors |=
		    (uint8_t)(l1->sector_bytes ? 1u << (ln->offset / l1->sector_bytes) : 0xff);
	}
	return sectors;
}

static uint8_t l1_lanes_apply(struct gpu_l1 *l1, struct cache_line *l, struct mem_atom_lanes *al,
			      uint64_t mask[2])
{
	uint8_t sectors = l1_lanes_apply_data(l1, l->data, l->addr, al, mask);

	cache_touch(l1->cache, l);
	return sectors;
}

static void l1_apply_atomic(struct gpu_l1 *l1, struct cache_line *l, struct mem_atom_lanes *al)
{
	uint64_t mask[2] = {0, 0};
	uint8_t sectors = l1_lanes_apply(l1, l, al, mask);
	struct mem_msg *m;

	(*l1->ss.l1_atomics)++;
	if (!mask[0] && !mask[1])
		return;
	/* may pass the store buffer's bound when a fill performs it: a fill is not refused */
	m = l1_port_msg(&l1->port, GPU_MSG_WRITE, l->addr, GPU_TXN_SB);
	if (!m)
		return;
	gpu_mask_copy(m->p.data, l->data, mask, l1->line_bytes);
	m->byte_mask[0] = mask[0];
	m->byte_mask[1] = mask[1];
	m->sector_mask = sectors;
	m->req_bytes = (uint16_t)gpu_mask_bytes(mask);
	m->scope = MEM_SCOPE_WG;
	l1->sb_pending++;
	l1_port_send(&l1->port, m);
}

static bool l1_wg_atomic(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct mem_atom_lanes *al = (struct mem_atom_lanes *)a->data;
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct l1_target t;

	if (mem_atomic_writes(al->op) && l1->rmw_locks) {
		/* a remote operation holds the RMWs of every other CU (Table 3 a9, a19) */
		(*l1->rs.lock_waits)++;
		return false;
	}
	if (mem_atomic_writes(al->op) && l1_sb_full(l1))
		return false;
	if (!l1_port_room(&l1->port, 1)) {
		(*l1->st.c.refused_queue)++;
		return false;
	}
	/* with a fill of the line on its way (other sectors; it may bring these again) the
	 * atomic waits in its entry and is performed over it */
	if (l && (l->valid_sectors & a->sector_mask) == a->sector_mask &&
	    !mshr_find(l1->mshr, a->line_addr)) {
		l1_apply_atomic(l1, l, al);
		l1_port_hit(&l1->port, a->id, NULL);
		return true;
	}
	memset(&t, 0, sizeof(t));
	t.id = a->id;
	t.kind = GPU_ACC_ATOM;
	t.sector_mask = a->sector_mask;
	t.atom = al;
	if (!l1_miss(l1, a, &t))
		return false;
	(*l1->ss.l1_atomic_misses)++;
	l1->wg_rmw_inflight++;
	return true;
}

/* ---- registration (hlrc; scoped/README.md §6) ----------------------------------------------- */

static void l1_drop_unregistered(void *ctx, struct cache_line *l)
{
	struct gpu_l1 *l1 = ctx;

	if (l1_dirty_unreg(l))
		l->valid_sectors = 0; /* DeNovo: the own stores' bytes stay, the rest goes */
	else if (l->state != L1_REG)
		cache_invalidate(l1->cache, l);
}

/* The flash invalidation of Table 1: every line; under registration every line but the
 * registered ones, which no invalidation touches (seed 004 §2.4). */
static void l1_flash_inv(struct gpu_l1 *l1)
{
	if (l1->rv)
		cache_for_each(l1->cache, l1_drop_unregistered, l1);
	else
		cache_invalidate_all(l1->cache);
}

static bool l1_not_reg(void *ctx, const struct cache_line *l)
{
	(void)ctx;
	return l->state != L1_REG;
}

/* A line with no fill on its way (a StReg's GetR, whose answer registers the written line). */
static bool l1_not_busy(void *ctx, const struct cache_line *l)
{
	return !mshr_find(((struct gpu_l1 *)ctx)->mshr, l->addr);
}

static bool l1_not_reg_busy(void *ctx, const struct cache_line *l)
{
	return l->state != L1_REG && l1_not_busy(ctx, l);
}

/* The way a fill takes: under Rprio registered lines go only when nothing else may (seed 004
 * §2.5 corner case 5), else LRU. Under DeNovo a line whose fill is on its way goes last: one
 * evicted while its StReg is out would write its bytes back behind the GetR, and the answer
 * would register a copy without them (the owner's copy, which forwards then serve: colors
 * lost under DeNovo-Rprio, whose small choice of ways made this common). */
static struct cache_line *l1_victim(struct gpu_l1 *l1, uint64_t addr)
{
	struct cache_line *v = NULL;

	if (l1->rv && l1->rv->rprio)
		v = cache_victim(l1->cache, addr, l1_stores_reg(l1) ? l1_not_reg_busy : l1_not_reg,
				 l1);
	if (!v && l1_stores_reg(l1))
		v = cache_victim(l1->cache, addr, l1_not_busy, l1);
	return v ? v : cache_victim(l1->cache, addr, NULL, NULL);
}

static int l1_unreg_find(const struct gpu_l1 *l1, uint64_t line)
{
	for (unsigned i = 0; i < l1->n_unreg; i++)
		if (l1->unreg[i].addr == line)
			return (int)i;
	return -1;
}

static void l1_unreg_remove(struct gpu_l1 *l1, unsigned i)
{
	l1->unreg[i] = l1->unreg[--l1->n_unreg];
}

/* Sends the UnRegs of the evicted registered lines once the store buffer has drained (hLRC:
 * the flush completes before the atomic may be read elsewhere). */
static void l1_unreg_send(struct gpu_l1 *l1)
{
	if (!l1->n_unreg || (l1->rv->flush_on_loss && l1->sb_pending))
		return;
	for (unsigned i = 0; i < l1->n_unreg; i++) {
		const struct l1_unreg *u = &l1->unreg[i];
		struct mem_msg *m =
		    l1_port_msg(&l1->port, SC_MSG_UNREG, u->addr, GPU_TXN_WRITEBACK);

		if (!m)
			return;
		memcpy(m->p.data, u->data, l1->line_bytes);
		m->byte_mask[0] = u->mask[0];
		m->byte_mask[1] = u->mask[1];
		m->req_bytes = (uint16_t)gpu_mask_bytes(u->mask);
		m->sector_mask = gpu_all_sectors(l1->line_bytes, l1->sector_bytes);
		l1->wb_pending++;
		l1_port_send(&l1->port, m);
	}
	l1->n_unreg = 0;
	l1_port_maybe_retry(&l1->port); /* an atomic on one of them may ask for it again */
}

/* A fill evicts registered line v (Synch Evict): registration goes back to the L2 with the
 * bytes this L1's atomics wrote, after the flush. */
static void l1_reg_evict(struct gpu_l1 *l1, const struct cache_line *v)
{
	struct l1_unreg *u;

	if (l1->n_unreg == l1->cap_unreg) {
		unsigned cap = l1->cap_unreg ? 2 * l1->cap_unreg : 4;
		struct l1_unreg *n = realloc(l1->unreg, cap * sizeof(*n));

		if (!n) {
			sim_fail(l1->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory", l1->port.sm);
			return;
		}
		l1->unreg = n;
		l1->cap_unreg = cap;
	}
	u = &l1->unreg[l1->n_unreg++];
	u->addr = v->addr;
	u->mask[0] = v->meta[0];
	u->mask[1] = v->meta[1];
	memcpy(u->data, v->data, l1->line_bytes);
	(*l1->rg.sync_evicts)++;
	l1_unreg_send(l1);
}

static bool l1_atomic(struct gpu_l1 *l1, const struct gpu_access *a);
static void l1_mark_fills(struct gpu_l1 *l1, uint64_t flags);

/* DeNovo-B's acquire (Table 3 b1, b4, b7, b18, b22, b26): every line but the registered ones
 * is invalidated (the bytes of the own stores not yet registered stay), and fills on the way
 * will not stay. */
static void l1_acquire_inv(struct gpu_l1 *l1)
{
	l1_flash_inv(l1);
	l1_mark_fills(l1, L1_FILL_DROP);
	(*l1->ss.inv_acquire)++;
}

struct streg_scan {
	struct gpu_l1 *l1;
	unsigned left; /* lines still to register */
};

/* StReg of one line the L1's stores wrote: a GetR whose answer (the line's other bytes)
 * goes under them and registers the line. */
static void l1_streg_line(void *ctx, struct cache_line *l)
{
	struct streg_scan *s = ctx;
	struct gpu_l1 *l1 = s->l1;
	struct mshr_entry *e;
	struct mem_msg *m;

	if (!l1_dirty_unreg(l))
		return;
	s->left++;
	/* a fill on the way first (a GetR's registers the line; a read's leaves it to the next
	 * scan); an UnReg of the line first */
	if (mshr_find(l1->mshr, l->addr) || l1_unreg_find(l1, l->addr) >= 0 ||
	    mshr_full(l1->mshr) || !l1_port_room(&l1->port, 1))
		return;
	e = mshr_alloc(l1->mshr, l->addr);
	mshr_user(e)[0] = gpu_now(l1->ctx);
	mshr_user(e)[1] = gpu_all_sectors(l1->line_bytes, l1->sector_bytes);
	mshr_user(e)[2] = L1_FILL_REG;
	mshr_user(e)[3] = ++l1->getr_seq;
	m = l1_port_msg(&l1->port, SC_MSG_GETR, l->addr, mshr_index(l1->mshr, e));
	if (!m)
		return;
	m->ts[SC_TS_GRANT] = mshr_user(e)[3];
	m->sector_mask = (uint8_t)mshr_user(e)[1];
	m->scope = MEM_SCOPE_DEVICE;
	m->order = MEM_ORDER_RELEASE;
	(*l1->rg.stregs)++;
	if (l1->kend_streg)
		(*l1->rg.stregs_kend)++;
	l1_port_send(&l1->port, m);
}

/* DeNovo-B: StReg of every line the L1's stores wrote and that is not registered yet (as
 * room allows). true: none is left (a release may complete). */
static bool l1_streg_pump(struct gpu_l1 *l1)
{
	struct streg_scan s = {l1, 0};

	cache_for_each(l1->cache, l1_streg_line, &s);
	return !s.left;
}

/* The kernel's end the L1 held back (l1_kernel_end) is over. */
static void l1_flush_over(struct gpu_l1 *l1)
{
	void (*cb)(void *) = l1->flush_cb;

	l1->flush_cb = NULL;
	l1->kend_streg = false;
	cb(l1->flush_arg);
}

/* The warps whose release waits go on once the store buffer has drained and (DeNovo) every
 * written line is registered; so does the kernel's end, a release, once nothing it wrote back
 * is in flight. */
static void l1_release_check(struct gpu_l1 *l1)
{
	if (!l1_stores_reg(l1) || (!l1->n_sb_waiters && !l1->kend_streg) || l1->sb_pending ||
	    !l1_streg_pump(l1))
		return;
	for (unsigned i = 0; i < l1->n_sb_waiters; i++)
		l1->port.cl.fence_done(l1->port.cl.sm, l1->sb_waiters[i]);
	l1->n_sb_waiters = 0;
	if (l1->kend_streg && !l1->wb_pending)
		l1_flush_over(l1);
}

/* hLRC-scoped (seed 004 §2.6): an atomic of agent or system scope is performed at the L2, as
 * the baseline's (its release flushed the store buffer before it, l1_scoped_fence; its
 * acquire invalidates when the answer comes, l1_response), and the home recalls the line
 * first if an L1 holds it registered, this one included. A GetR or UnReg of the line on its
 * way goes first (the home must see it before the atomic). */
static bool l1_agent_atomic(struct gpu_l1 *l1, const struct gpu_access *a)
{
	if (l1_unreg_find(l1, a->line_addr) >= 0 || mshr_find(l1->mshr, a->line_addr)) {
		(*l1->rg.reg_waits)++;
		return false;
	}
	if (!l1_atomic(l1, a))
		return false;
	(*l1->rg.agent_l2)++;
	return true;
}

/* An atomic under registration. On a registered line it is performed here with no coherence
 * action (Table 3 c0, c8, c16), its writes kept in the line and remembered byte by byte (only
 * they are newer than the L2's copy). Else an ordered atomic (acquire, release or both) sends
 * a GetR for registration (c1, c5, c9, c13, c17, c21); it waits in the MSHR entry and is
 * performed when the registered line comes in. A relaxed one does not register (seed 004 §II:
 * relaxed atomics "do no coherence actions" and execute where the line is): it is performed at
 * the L2, which recalls the line first if another L1 holds it (README.md §6). */
static bool l1_reg_atomic(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct mem_atom_lanes *al = (struct mem_atom_lanes *)a->data;
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct mshr_entry *e;
	struct l1_target t;
	struct mem_msg *m;

	if (l1->rv->agent_at_l2 && a->scope != MEM_SCOPE_WG)
		return l1_agent_atomic(l1, a);
	if (l1_is_reg(l)) {
		l1_lanes_apply(l1, l, al, l->meta);
		(*l1->rg.l1_hits)++;
		l1_port_hit(&l1->port, a->id, NULL);
		if (l1->rv->inv_on_acquire && mem_order_acquires(a->order))
			l1_acquire_inv(l1);
		return true;
	}
	e = mshr_find(l1->mshr, a->line_addr);
	if (l1_unreg_find(l1, a->line_addr) >= 0 || (e && !(mshr_user(e)[2] & L1_FILL_REG))) {
		/* its UnReg must reach the home before a GetR; a read's fill brings no registration */
		(*l1->rg.reg_waits)++;
		return false;
	}
	if (!e && a->order == MEM_ORDER_RELAXED) {
		if (!l1_atomic(l1, a))
			return false;
		(*l1->rg.relaxed_l2)++;
		return true;
	}
	memset(&t, 0, sizeof(t));
	t.id = a->id;
	t.kind = GPU_ACC_ATOM;
	t.sector_mask = a->sector_mask;
	t.order = a->order;
	t.atom = al;
	if (e)
		return l1_join(l1, e, &t, l1->rg.merged);
	if (!l1_entry_room(l1))
		return false;
	if (l && !l1_dirty_unreg(l))
		cache_invalidate(l1->cache,
				 l); /* a copy without registration: the GetR brings it */
	e = mshr_alloc(l1->mshr, a->line_addr);
	mshr_merge(l1->mshr, e, &t);
	mshr_user(e)[0] = gpu_now(l1->ctx);
	mshr_user(e)[1] = gpu_all_sectors(l1->line_bytes, l1->sector_bytes);
	mshr_user(e)[2] = L1_FILL_REG;
	mshr_user(e)[3] = ++l1->getr_seq;
	m = l1_port_msg(&l1->port, SC_MSG_GETR, a->line_addr, mshr_index(l1->mshr, e));
	if (!m)
		return false;
	m->ts[SC_TS_GRANT] = mshr_user(e)[3];
	m->sector_mask = (uint8_t)mshr_user(e)[1];
	m->scope = a->scope;
	m->order = a->order;
	m->atomic_op = al->op;
	(*l1->rg.getr)++;
	l1_port_send(&l1->port, m);
	return true;
}

/* DeNovo-B: a store is performed in the L1 (its line is registered there at the release, and
 * its CU reads it there before): the checker sees the write now. */
static void l1_check_store(const struct gpu_l1 *l1, uint64_t line, const uint8_t *data,
			   const uint64_t *byte_mask)
{
	if (l1->ctx->chk)
		gpu_check_written(l1->ctx->chk, line, data, byte_mask, l1->line_bytes);
}

/* DeNovo-B's data store (seed 004 §2.4): written into the L1, write-allocate without a fetch
 * (the bytes it writes are remembered in meta; the rest of a new line is not valid). On a
 * registered line it is done (registered data is write-back); on another line it is
 * registered at the next release (StReg). A line with a fill on the way takes the store when
 * the fill comes. */
static bool l1_denovo_store(struct gpu_l1 *l1, const struct gpu_access *a)
{
	struct cache_line *l = cache_lookup(l1->cache, a->line_addr);
	struct mshr_entry *e = mshr_find(l1->mshr, a->line_addr);

	if (e && !l) {
		struct l1_target t;

		memset(&t, 0, sizeof(t));
		t.id = a->id;
		t.kind = GPU_ACC_ST;
		t.sector_mask = a->sector_mask;
		t.byte_mask[0] = a->byte_mask[0];
		t.byte_mask[1] = a->byte_mask[1];
		gpu_mask_copy(t.data, a->data, a->byte_mask, l1->line_bytes);
		if (!l1_join(l1, e, &t, l1->st.mshr_merges))
			return false;
		(*l1->st.store_misses)++;
		return true;
	}
	if (!l) {
		if (l1_unreg_find(l1, a->line_addr) >= 0) {
			(*l1->rg.reg_waits)++; /* its UnReg goes first */
			return false;
		}
		l = l1_victim(l1, a->line_addr);
		if (l->state) {
			(*l1->st.evictions)++;
			if (l->state == L1_REG)
				l1_reg_evict(l1, l);
			else
				l1_writeback_line(l1, l);
		}
		cache_install(l1->cache, l, a->line_addr, L1_VALID);
		l->valid_sectors = 0;
		l->dirty_sectors = 0;
		l->meta[0] = l->meta[1] = 0;
		(*l1->st.store_misses)++;
	} else {
		(*l1->st.store_hits)++;
	}
	gpu_mask_copy(l->data, a->data, a->byte_mask, l1->line_bytes);
	l1_check_store(l1, a->line_addr, l->data, a->byte_mask);
	l->meta[0] |= a->byte_mask[0];
	l->meta[1] |= a->byte_mask[1];
	if (!l1_is_reg(l))
		l->dirty_sectors |= a->sector_mask; /* written back if evicted before its StReg */
	cache_touch(l1->cache, l);
	l1_port_hit(&l1->port, a->id, NULL);
	return true;
}

bool gpu_l1_reg_functional(struct gpu_l1 *l1, uint64_t addr, void *rbuf, const void *wbuf,
			   size_t len)
{
	uint64_t line = addr & ~(uint64_t)(l1->line_bytes - 1);
	struct cache_line *l = l1->rv ? cache_lookup(l1->cache, line) : NULL;
	unsigned off = (unsigned)(addr - line);

	if (!l1_is_reg(l))
		return false;
	for (size_t i = 0; i < len && off + i < l1->line_bytes; i++) {
		if (wbuf)
			l->data[off + i] = ((const uint8_t *)wbuf)[i];
		else if (gpu_mask_byte(l->meta, off + (unsigned)i))
			((uint8_t *)rbuf)[i] = l->data[off + i];
	}
	return true;
}

static bool l1_atomic(struct gpu_l1 *l1, const struct gpu_access *a)
{
	const struct mem_atom_lanes *al = (const struct mem_atom_lanes *)a->data;
	struct mem_msg *m;

	if (!l1_past_l1(l1, a, false))
		return false;
	m = l1_port_msg(&l1->port, GPU_MSG_ATOMIC, a->line_addr, a->id);
	if (!m)
		return false;
	m->p.data = a->data; /* the SM's lane records: operands out, old values back */
	m->p.len = sizeof(struct mem_atom_lanes);
	m->atomic_op = al->op;
	m->scope = a->scope;
	m->order = a->order;
	m->req_bytes = mem_atom_req_bytes(al);
	l1_port_send(&l1->port, m);
	return true;
}

static bool l1_access(struct gpu_l1 *l1, const struct gpu_access *a)
{
	bool ok;

	switch (a->kind) {
	case GPU_ACC_LD:
		if (l1->bypass || a->cop != MEM_CO_CA) {
			ok = l1_uncached_load(l1, a);
		} else if (l1->rv && !l1_stores_reg(l1) &&
			   l1_is_reg(cache_lookup(l1->cache, a->line_addr))) {
			/* hLRC: data on a registered line is read at the L2 (seed 004 §2.5 corner
			 * case 2); DeNovo's registered line holds the up-to-date data */
			ok = l1_uncached_load(l1, a);
			if (ok)
				(*l1->rg.load_bypass)++;
		} else {
			ok = l1_cached_load(l1, a);
		}
		if (ok)
			(*l1->st.c.loads)++;
		break;
	case GPU_ACC_ST:
		if (l1->bypass || a->cop != MEM_CO_CA) {
			ok = l1_past_l1(l1, a, false) && l1_store_msg(l1, a);
			if (ok && l1->rv)
				l1_reg_store(l1, cache_lookup(l1->cache, a->line_addr), a);
		} else if (l1_stores_reg(l1)) {
			ok = l1_denovo_store(l1, a);
		} else {
			ok = l1_cached_store(l1, a);
		}
		if (ok)
			(*l1->st.c.stores)++;
		break;
	default:
		if (l1->rv)
			ok = l1_reg_atomic(l1, a);
		else if (l1->scoped && a->scope == MEM_SCOPE_WG)
			ok = l1_wg_atomic(l1, a);
		else
			ok = l1_atomic(l1, a);
		if (ok)
			(*l1->st.c.atomics)++;
		break;
	}
	if (ok)
		(*l1->st.c.accesses)++;
	else
		l1->port.want_retry = true;
	return ok;
}

/* ---- responses ------------------------------------------------------------------------------- */

static void l1_probes_check(struct gpu_l1 *l1);
static void l1_mark_fills(struct gpu_l1 *l1, uint64_t flags);

static bool l1_entry_has_rmw(struct mshr_entry *e)
{
	for (unsigned i = 0; i < mshr_targets(e); i++)
		if (((struct l1_target *)mshr_target(e, i))->kind == GPU_ACC_ATOM)
			return true;
	return false;
}

static void l1_fill(struct gpu_l1 *l1, struct mem_msg *m)
{
	struct mshr_entry *e = mshr_at(l1->mshr, m->txn);
	struct cache_line *l;
	bool acquired = false;
	uint64_t flags;
	unsigned n;

	if (!e || mshr_line(e) != m->p.addr) {
		sim_fail(l1->ctx->k, -CS_EPROTO, "sm%u.l1: a fill for %#llx matches no MSHR entry",
			 l1->port.sm, (unsigned long long)m->p.addr);
		return;
	}
	flags = mshr_user(e)[2];
	if ((flags & L1_FILL_REREAD) && l1_entry_has_rmw(e)) {
		struct mem_msg *r = l1_port_msg(&l1->port, GPU_MSG_READ, m->p.addr, m->txn);

		if (!r)
			return;
		r->sector_mask = (uint8_t)mshr_user(e)[1];
		mshr_user(e)[2] = flags & ~(uint64_t)L1_FILL_REREAD;
		l1_port_send(&l1->port, r);
		return;
	}
	cs_stat_avg_sample(l1->st.c.miss_latency, (double)(gpu_now(l1->ctx) - mshr_user(e)[0]) /
						      sim_clock_period_ps(&l1->ctx->core_clk));
	(*l1->st.fills)++;
	l = cache_lookup(l1->cache, m->p.addr);
	if (!l) {
		l = l1_victim(l1, m->p.addr);
		if (l->state) {
			(*l1->st.evictions)++;
			if (l->state == L1_REG)
				l1_reg_evict(l1, l);
			else
				l1_writeback_line(l1, l);
		}
		cache_install(l1->cache, l, m->p.addr, L1_VALID);
		l->valid_sectors = 0;
		l->dirty_sectors = 0;
		if (l1_stores_reg(l1))
			l->meta[0] = l->meta[1] = 0;
	}
	if ((flags & L1_FILL_REG) && !(flags & L1_FILL_GONE)) {
		/* registration comes with the home's up-to-date line (DeNovo: under the bytes
		 * the L1's own stores wrote, which stay newer) */
		uint64_t keep0 = l1_stores_reg(l1) ? l->meta[0] : 0;
		uint64_t keep1 = l1_stores_reg(l1) ? l->meta[1] : 0;

		l->state = L1_REG;
		l->dirty_sectors = 0; /* registered data is not written back at kernel end */
		l->meta[0] = keep0 | (flags & L1_FILL_APPLIED ? m->byte_mask[0] : 0);
		l->meta[1] = keep1 | (flags & L1_FILL_APPLIED ? m->byte_mask[1] : 0);
	}
	/* only the sectors that came back are new; dirty bytes of our own stay ours (DeNovo:
	 * byte by byte) */
	for (unsigned i = 0; i < l1->line_bytes; i++) {
		unsigned s = l1->sector_bytes ? i / l1->sector_bytes : 0;
		uint8_t bit = (uint8_t)(1u << s);
		bool own = l1_stores_reg(l1) ? gpu_mask_byte(l->meta, i) : (l->dirty_sectors & bit);

		if ((m->sector_mask & bit) && !own)
			l->data[i] = m->p.data[i];
	}
	l->valid_sectors |= l1->sector_bytes ? m->sector_mask : 0xff;
	n = mshr_targets(e);
	for (unsigned i = 0; i < n; i++) {
		struct l1_target *t = mshr_target(e, i);

		if (t->through) {
			/* written through while the fill was on its way: over it, in order (a
			 * registered line's bytes it writes are the L2's again, l1_reg_store) */
			gpu_mask_copy(l->data, t->data, t->byte_mask, l1->line_bytes);
			if (l1_is_reg(l)) {
				l->meta[0] &= ~t->byte_mask[0];
				l->meta[1] &= ~t->byte_mask[1];
			}
			continue;
		}
		if ((l->valid_sectors & t->sector_mask) != t->sector_mask) {
			/* merged while a fill for other sectors was in flight: ask again */
			struct mem_msg *r = l1_port_msg(&l1->port, GPU_MSG_READ, m->p.addr, m->txn);
			uint8_t missing = (uint8_t)(t->sector_mask & ~l->valid_sectors);

			if (!r)
				return;
			/* keep the remaining targets: move them to the front by re-sending for the union */
			for (unsigned j = i + 1; j < n; j++)
				missing |= ((struct l1_target *)mshr_target(e, j))->sector_mask &
					   (uint8_t)~l->valid_sectors;
			r->sector_mask = missing;
			/* targets before i are answered; drop them by rebuilding the entry */
			{
				struct l1_target keep[64];
				uint64_t grant = mshr_user(e)[3];
				unsigned kn = 0;

				for (unsigned j = i; j < n && kn < 64; j++)
					keep[kn++] = *(struct l1_target *)mshr_target(e, j);
				mshr_free(l1->mshr, e);
				e = mshr_alloc(l1->mshr, m->p.addr);
				for (unsigned j = 0; j < kn; j++)
					mshr_merge(l1->mshr, e, &keep[j]);
				mshr_user(e)[0] = gpu_now(l1->ctx);
				mshr_user(e)[1] = r->sector_mask;
				mshr_user(e)[2] = flags;
				mshr_user(e)[3] = grant;
				r->txn = mshr_index(l1->mshr, e);
			}
			l1_port_send(&l1->port, r);
			return;
		}
		if (t->kind == GPU_ACC_ST) {
			gpu_mask_copy(l->data, t->data, t->byte_mask, l1->line_bytes);
			l->dirty_sectors |= t->sector_mask;
			if (l1_stores_reg(l1)) {
				l1_check_store(l1, l->addr, l->data, t->byte_mask);
				l->meta[0] |= t->byte_mask[0];
				l->meta[1] |= t->byte_mask[1];
			}
			l1->port.cl.done(l1->port.cl.sm, t->id, NULL);
		} else if (t->kind == GPU_ACC_ATOM && (flags & L1_FILL_REG)) {
			if (!(flags & L1_FILL_APPLIED))
				l1_lanes_apply(l1, l, t->atom, l->meta);
			acquired |= mem_order_acquires(t->order);
			l1->port.cl.done(l1->port.cl.sm, t->id, NULL);
		} else if (t->kind == GPU_ACC_ATOM) {
			l1_apply_atomic(l1, l, t->atom);
			l1->wg_rmw_inflight--;
			l1->port.cl.done(l1->port.cl.sm, t->id, NULL);
		} else {
			l1->port.cl.done(l1->port.cl.sm, t->id, l->data);
		}
	}
	cache_touch(l1->cache, l);
	mshr_free(l1->mshr, e);
	if (flags & (L1_FILL_DROP | L1_FILL_GONE)) {
		if (l1_dirty_unreg(l))
			l->valid_sectors = 0; /* DeNovo: stores since the recall stay */
		else
			cache_invalidate(l1->cache, l);
	}
	if ((flags & L1_FILL_REG) && l1->rv->inv_on_gain) {
		/* registration came in: invalidate after the access (Table 3 c3, c7, c11, c15, c19,
		 * c23); fills in flight may predate what it synchronizes with */
		l1_flash_inv(l1);
		l1_mark_fills(l1, L1_FILL_DROP);
		(*l1->rg.inv_atomic_in)++;
	}
	if (acquired && l1->rv->inv_on_acquire)
		l1_acquire_inv(l1); /* DeNovo: after every acquire (Table 3 b4, b7, b22, b26) */
	l1_probes_check(l1);
	l1_release_check(l1);
	l1_port_maybe_retry(&l1->port);
}

/* scoped-baseline: a store-buffer entry was acknowledged; the releases waiting for the
 * buffer to drain go on once it is empty, and a store refused for room may come again. */
static void l1_sb_drained_one(struct gpu_l1 *l1)
{
	l1->sb_pending--;
	if (!l1->sb_pending && l1_stores_reg(l1)) {
		l1_release_check(l1);
	} else if (!l1->sb_pending) {
		for (unsigned i = 0; i < l1->n_sb_waiters; i++)
			l1->port.cl.fence_done(l1->port.cl.sm, l1->sb_waiters[i]);
		l1->n_sb_waiters = 0;
		l1_probes_check(
		    l1); /* a recall takes an evicted line's data before its UnReg goes */
		if (l1->rv)
			l1_unreg_send(l1);
	}
	if (l1->sb_pending + 1 == l1->sb_cap)
		l1_port_maybe_retry(&l1->port); /* it was full: a refused store may come now */
}

/* A data read of a line registered here was read at the L2 (corner case 2): the bytes this
 * L1's atomics wrote are newer there (a program may read an atomic's location with a plain
 * load once synchronized, e.g. after a kernel boundary). */
static void l1_reg_overlay(struct gpu_l1 *l1, struct mem_msg *m)
{
	struct cache_line *l = l1->rv ? cache_lookup(l1->cache, m->p.addr) : NULL;

	if (l1_is_reg(l))
		gpu_mask_copy(m->p.data, l->data, l->meta, l1->line_bytes);
}

static void l1_response(void *owner, struct mem_msg *m)
{
	struct gpu_l1 *l1 = owner;

	switch (m->resp_type) {
	case GPU_MSG_DATA:
		if (l1->bypass || (m->txn & GPU_TXN_UNCACHED)) {
			l1_reg_overlay(l1, m);
			l1->port.cl.done(l1->port.cl.sm, m->txn & ~GPU_TXN_UNCACHED, m->p.data);
		} else {
			l1_fill(l1, m);
		}
		break;
	case GPU_MSG_WRITE_ACK:
		if (m->txn & GPU_TXN_WRITEBACK) {
			l1->wb_pending--;
			l1_release_check(l1); /* room for a StReg */
		} else {
			if (l1->scoped)
				l1_sb_drained_one(l1);
			if (!(m->txn & GPU_TXN_SB))
				l1->port.cl.done(l1->port.cl.sm, m->txn, NULL);
		}
		if (!l1->wb_pending && !l1->sb_pending && l1->flush_cb && !l1->kend_streg)
			l1_flush_over(l1);
		break;
	case GPU_MSG_ATOMIC_ACK:
		/* scoped-baseline: an acquire of agent scope invalidates the L1 after the atomic
		 * (Table 3 a2, a18) */
		if (l1->scoped && mem_order_acquires(m->order) && m->scope != MEM_SCOPE_WG) {
			l1_flash_inv(l1);
			(*l1->ss.inv_acquire)++;
		}
		l1->port.cl.done(l1->port.cl.sm, m->txn, NULL);
		break;
	default:
		sim_fail(l1->ctx->k, -CS_EPROTO, "sm%u.l1: unexpected response type %u",
			 l1->port.sm, m->resp_type);
		break;
	}
}

/* ---- probes from a home bank (rsp, one-way network) ------------------------------------------- */

/* May the ack of a probe asking for `act` go now? A flush waits until every write-through of
 * the CU is acknowledged (the store buffer has drained); a lock until no work-group RMW is
 * waiting for its line (it would be performed inside the remote operation). */
static bool l1_probe_ready_act(const struct gpu_l1 *l1, unsigned act)
{
	return (!(act & SC_ACT_FLUSH) || !l1->sb_pending) &&
	       (!(act & SC_ACT_LOCK) || !l1->wg_rmw_inflight);
}

/* The GetR of this L1 a recall names (SC_TS_GRANT): granted, its answer still on the way. A
 * recall naming another grant is of a registration this L1 gave back. */
static struct mshr_entry *l1_recalled_getr(const struct gpu_l1 *l1, const struct mem_msg *probe)
{
	struct mshr_entry *e = mshr_find(l1->mshr, probe->p.addr);

	return e && (mshr_user(e)[2] & L1_FILL_REG) && mshr_user(e)[3] == probe->ts[SC_TS_GRANT]
		   ? e
		   : NULL;
}

/* A recall may be answered once the GetR it names is answered (its atomics are performed
 * before the line goes: each transfer makes progress) and, under hLRC, once the store buffer
 * has drained if the line goes (Table 3 c4, c12, c20: flush remote L1). */
static bool l1_recall_ready(const struct gpu_l1 *l1, const struct mem_msg *probe)
{
	uint64_t line = probe->p.addr;

	if (l1_recalled_getr(l1, probe))
		return false;
	return !l1->rv->flush_on_loss || !l1->sb_pending ||
	       !(l1_is_reg(cache_lookup(l1->cache, line)) || l1_unreg_find(l1, line) >= 0);
}

/* The LT face: a recall or forward whose GetR's answer waits in the port but is back by `at`,
 * when the probe comes: the detailed face would have the line registered then, and the probe
 * would wait only for what l1_recall_ready asks of a registered line (hLRC: the store
 * buffer). */
static bool l1_lt_answer_before(const struct gpu_l1 *l1, const struct mem_msg *probe, sim_time_t at)
{
	struct mshr_entry *e = l1_recalled_getr(l1, probe);

	if (!e || l1_port_lt_due(&l1->port, mshr_index(l1->mshr, e)) > at)
		return false;
	return !(sc_msg_actions(probe->type) & SC_ACT_RECALL) || !l1->rv->flush_on_loss ||
	       !l1->sb_pending;
}

static bool l1_probe_ready(const struct gpu_l1 *l1, const struct mem_msg *m)
{
	unsigned act = sc_msg_actions(m->type);

	if (act & SC_ACT_RECALL)
		return l1_recall_ready(l1, m);
	if (act & SC_ACT_FWD) /* a data access elsewhere: no flush, only the GetR it names */
		return !l1_recalled_getr(l1, m);
	return l1_probe_ready_act(l1, act);
}

/* The ack a carries a copy of the line: its data and the bytes this L1's atomics wrote. */
static void l1_ack_copy(const struct gpu_l1 *l1, struct mem_msg *a, const uint8_t *data,
			const uint64_t *mask)
{
	memcpy(a->p.data, data, l1->line_bytes);
	a->byte_mask[0] = mask[0];
	a->byte_mask[1] = mask[1];
}

/* The LT face: a recall or forward for a line whose GetR was performed at the home but whose
 * answer waits here for the L1's time (the detailed face would wait for it, l1_recall_ready).
 * The entry's atomics are performed now on the answer's data (once: L1_FILL_APPLIED), and the
 * answer is returned (with its entry), or NULL when there is no such entry. */
static struct mem_msg *l1_lt_applied_fill(struct gpu_l1 *l1, const struct mem_msg *probe,
					  struct mshr_entry **entry)
{
	struct mshr_entry *e = l1_recalled_getr(l1, probe);
	uint64_t line = probe->p.addr;
	struct mem_msg *fill;

	if (!e || (mshr_user(e)[2] & L1_FILL_GONE))
		return NULL;
	fill = l1_port_lt_pending(&l1->port, mshr_index(l1->mshr, e));
	if (!fill)
		return NULL;
	if (!(mshr_user(e)[2] & L1_FILL_APPLIED)) {
		fill->byte_mask[0] = 0;
		fill->byte_mask[1] = 0;
		for (unsigned i = 0; i < mshr_targets(e); i++) {
			struct l1_target *t = mshr_target(e, i);

			if (t->kind == GPU_ACC_ATOM)
				l1_lanes_apply_data(l1, fill->p.data, line, t->atom,
						    fill->byte_mask);
		}
		mshr_user(e)[2] |= L1_FILL_APPLIED;
	}
	*entry = e;
	return fill;
}

/* DeNovo-B: the ack for a line whose GetR's answer has not reached the L1 carries the bytes
 * this L1's stores wrote, which the detailed face's fill would have put under registration
 * first: those of stores waiting in the entry, then the line's own (newer: a store joins the
 * entry only with no line here). A recall (`gone`) takes them: the stores waiting complete at
 * the fill with nothing left to write, and the line leaves the L1 (stores after this start a
 * new written copy). A forward's read only copies them. */
static void l1_lt_give_written(struct gpu_l1 *l1, struct mshr_entry *e, struct mem_msg *ack,
			       bool gone)
{
	struct cache_line *l = cache_lookup(l1->cache, mshr_line(e));

	for (unsigned i = 0; i < mshr_targets(e); i++) {
		struct l1_target *t = mshr_target(e, i);

		if (t->kind != GPU_ACC_ST)
			continue;
		gpu_mask_copy(ack->p.data, t->data, t->byte_mask, l1->line_bytes);
		ack->byte_mask[0] |= t->byte_mask[0];
		ack->byte_mask[1] |= t->byte_mask[1];
		if (gone)
			t->byte_mask[0] = t->byte_mask[1] = 0;
	}
	if (l1_dirty_unreg(l)) {
		gpu_mask_copy(ack->p.data, l->data, l->meta, l1->line_bytes);
		ack->byte_mask[0] |= l->meta[0];
		ack->byte_mask[1] |= l->meta[1];
	}
	if (gone && l && l->state != L1_REG)
		cache_invalidate(l1->cache, l);
}

/* ... and its data (with the bytes the atomics wrote) goes in the ack; a recall's fill then
 * only finishes the atomics and leaves no copy (`gone`: L1_FILL_GONE). false: no such entry. */
static bool l1_lt_take_fill(struct gpu_l1 *l1, const struct mem_msg *probe, struct mem_msg *ack,
			    bool gone)
{
	struct mshr_entry *e;
	struct mem_msg *fill = l1_lt_applied_fill(l1, probe, &e);

	if (!fill)
		return false;
	l1_ack_copy(l1, ack, fill->p.data, fill->byte_mask);
	if (l1_stores_reg(l1))
		l1_lt_give_written(l1, e, ack, gone);
	if (gone)
		mshr_user(e)[2] |= L1_FILL_GONE;
	return true;
}

/* Bytes w writes replace those of the copy `data`, and are no longer this L1's own (`mask`). */
static void l1_take_bytes(const struct gpu_l1 *l1, uint8_t *data, uint64_t *mask,
			  const struct mem_msg *w)
{
	gpu_mask_copy(data, w->p.data, w->byte_mask, l1->line_bytes);
	mask[0] &= ~w->byte_mask[0];
	mask[1] &= ~w->byte_mask[1];
}

/* A data write of another L1 to a line registered here, forwarded by the home: into the
 * registered copy, the evicted one whose UnReg has not gone, or (LT) the GetR's answer waiting
 * here, after its atomics. false: none of them (the UnReg has gone; the home waits for it). */
static bool l1_reg_take_write(struct gpu_l1 *l1, const struct mem_msg *w, sim_time_t *lt_delay)
{
	struct cache_line *l = cache_lookup(l1->cache, w->p.addr);
	int u = l1_unreg_find(l1, w->p.addr);
	struct mshr_entry *e;
	struct mem_msg *fill;

	if (l1_is_reg(l)) {
		l1_take_bytes(l1, l->data, l->meta, w);
		return true;
	}
	if (u >= 0) {
		l1_take_bytes(l1, l1->unreg[u].data, l1->unreg[u].mask, w);
		return true;
	}
	fill = lt_delay ? l1_lt_applied_fill(l1, w, &e) : NULL;
	if (fill)
		l1_take_bytes(l1, fill->p.data, fill->byte_mask, w);
	if (fill && l1_dirty_unreg(l)) /* DeNovo: newer than the own stores' bytes there */
		l1_take_bytes(l1, l->data, l->meta, w);
	return fill != NULL;
}

/* A recall's answer: the registered line (or the evicted one whose UnReg has not gone yet),
 * its data and the bytes this L1's atomics wrote, and the line leaves the L1; or, when the
 * UnReg has gone, an empty ack (the home takes the UnReg's data). */
static void l1_recall_answer(struct gpu_l1 *l1, const struct mem_msg *probe, sim_time_t *lt_delay)
{
	struct mem_msg *a = l1_port_ack_msg(&l1->port, probe, SC_MSG_ACK);
	struct cache_line *l = cache_lookup(l1->cache, probe->p.addr);
	struct mshr_entry *e = mshr_find(l1->mshr, probe->p.addr);
	int u = l1_unreg_find(l1, probe->p.addr);

	/* a forward (a data access elsewhere) leaves registration here: a read's takes the
	 * data, a write's brings its bytes into the copy */
	bool fwd = sc_msg_actions(probe->type) & SC_ACT_FWD;
	uint8_t flags = fwd ? SC_F_SHARED : SC_F_GAVE_UP;

	if (!a)
		return;
	if (e && (mshr_user(e)[2] & L1_FILL_REG) && !l1_recalled_getr(l1, probe))
		(*l1->rg.recall_given_back)++;
	if (fwd)
		(*l1->rg.forwards)++;
	if (fwd && (probe->byte_mask[0] || probe->byte_mask[1])) {
		a->flags = l1_reg_take_write(l1, probe, lt_delay) ? SC_F_SHARED : 0;
	} else if (l1_is_reg(l)) {
		l1_ack_copy(l1, a, l->data, l->meta);
		a->flags = flags;
		if (!fwd)
			cache_invalidate(l1->cache, l);
	} else if (u >= 0) {
		l1_ack_copy(l1, a, l1->unreg[u].data, l1->unreg[u].mask);
		a->flags = flags;
		if (!fwd)
			l1_unreg_remove(l1, (unsigned)u);
	} else if (lt_delay && l1_lt_take_fill(l1, probe, a, !fwd)) {
		a->flags = flags;
	}
	if (!a->flags)
		(*l1->rg.recall_empty)++;
	if ((a->flags & SC_F_GAVE_UP) && l1->rv->flush_on_loss)
		(*l1->rg.flush_atomic_out)++;
	a->req_bytes = (uint16_t)gpu_mask_bytes(a->byte_mask);
	l1_port_ack_send(&l1->port, a, lt_delay);
}

static void l1_probe_answer(struct gpu_l1 *l1, const struct mem_msg *m, sim_time_t *lt_delay)
{
	if (sc_msg_actions(m->type) & (SC_ACT_RECALL | SC_ACT_FWD))
		l1_recall_answer(l1, m, lt_delay);
	else
		l1_port_ack(&l1->port, m, SC_MSG_ACK, lt_delay);
}

/* Acks the waiting probes that may go now, in arrival order. */
static void l1_probes_check(struct gpu_l1 *l1)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < l1->n_probe_wait; i++) {
		struct mem_msg *m = l1->probe_wait[i];

		if (!l1_probe_ready(l1, m)) {
			l1->probe_wait[kept++] = m;
			continue;
		}
		l1_probe_answer(l1, m, NULL);
		tlm_payload_release(&m->p);
	}
	l1->n_probe_wait = kept;
}

static void l1_mark_fills(struct gpu_l1 *l1, uint64_t flags)
{
	for (unsigned i = 0; i < mshr_capacity(l1->mshr); i++) {
		struct mshr_entry *e = mshr_at(l1->mshr, i);

		/* a GetR's fill is registered: no invalidation touches it */
		if (e && !(mshr_user(e)[2] & L1_FILL_REG))
			mshr_user(e)[2] |= flags;
	}
}

static bool l1_probe_park(struct gpu_l1 *l1, struct mem_msg *m)
{
	if (l1->n_probe_wait == l1->cap_probe_wait) {
		unsigned cap = l1->cap_probe_wait ? 2 * l1->cap_probe_wait : 8;
		struct mem_msg **w = realloc(l1->probe_wait, cap * sizeof(*w));

		if (!w)
			return false;
		l1->probe_wait = w;
		l1->cap_probe_wait = cap;
	}
	l1->probe_wait[l1->n_probe_wait++] = m;
	if (l1->rsp)
		(*l1->rs.probe_waits)++;
	return true;
}

/* A probe whose actions are done: its answer now if it may go (l1_probe_ready), else when it
 * may (parked). In the LT face the answer goes at once, after the time the detailed face
 * would wait: until the last answer in flight (the store buffer's acks, the RMWs' fills) is
 * back. */
static void l1_probe_finish(struct gpu_l1 *l1, struct mem_msg *m, sim_time_t *lt_delay)
{
	bool ready = l1_probe_ready(l1, m);

	if (!ready && lt_delay && l1_lt_answer_before(l1, m, sim_now(l1->ctx->k) + *lt_delay))
		ready = true;
	if (!ready && (sc_msg_actions(m->type) & SC_ACT_RECALL))
		(*l1->rg.recall_waits)++;
	if (lt_delay) {
		sim_time_t at = sim_now(l1->ctx->k) + *lt_delay, last = l1_port_lt_last(&l1->port);

		if (!ready && last > at)
			*lt_delay += last - at;
		l1_probe_answer(l1, m, lt_delay);
		return;
	}
	if (ready) {
		l1_probe_answer(l1, m, NULL);
		tlm_payload_release(&m->p);
		return;
	}
	if (!l1_probe_park(l1, m)) {
		sim_fail(l1->ctx->k, -CS_ENOMEM, "sm%u.l1: out of memory", l1->port.sm);
		tlm_payload_release(&m->p);
	}
}

/* A probe (l1_port_oneway): its actions at once (an invalidation is the flash invalidation of
 * Table 1; a lock holds back this CU's work-group RMWs), its ack when l1_probe_ready says so.
 * In the LT face (lt_delay) the ack goes at once, after the time the detailed face would
 * wait: until the last answer in flight (the store buffer's acks, the RMWs' fills) is back. */
static void l1_probe(void *owner, struct mem_msg *m, sim_time_t *lt_delay)
{
	struct gpu_l1 *l1 = owner;
	unsigned act = sc_msg_actions(m->type);

	if ((act == SC_ACT_RECALL || act == SC_ACT_FWD) && l1->rv) {
		if (act == SC_ACT_RECALL)
			(*l1->rg.recalls)++;
		l1_probe_finish(l1, m, lt_delay);
		return;
	}
	if (!act || (act & SC_ACT_RECALL) || ((act & SC_ACT_UNLOCK) && !l1->rmw_locks)) {
		sim_fail(l1->ctx->k, -CS_EPROTO, "sm%u.l1: unexpected probe %u (locks %u)",
			 l1->port.sm, m->type, l1->rmw_locks);
		if (!lt_delay)
			tlm_payload_release(&m->p);
		return;
	}
	(*l1->rs.probes)++;
	if (act & SC_ACT_LOCK) {
		l1->rmw_locks++;
		(*l1->rs.locks)++;
		if (lt_delay)
			l1_mark_fills(l1, L1_FILL_REREAD);
	}
	if (act & SC_ACT_INV) {
		l1_flash_inv(l1);
		l1_mark_fills(l1, L1_FILL_DROP);
		(*l1->rs.remote_inv)++;
	}
	if (act & SC_ACT_FLUSH)
		(*l1->rs.remote_flush)++;
	if (act & SC_ACT_UNLOCK) {
		l1->rmw_locks--;
		(*l1->rs.unlocks)++;
		if (!l1->rmw_locks)
			l1_port_maybe_retry(&l1->port);
	}
	l1_probe_finish(l1, m, lt_delay);
}

/* ---- kernel boundaries ----------------------------------------------------------------------- */

static void l1_kernel_begin(struct gpu_l1 *l1)
{
	if (!l1->bypass)
		l1_flash_inv(l1);
	if (l1->scoped)
		(*l1->ss.inv_kernel_start)++;
}

static void l1_flush_one(void *ctx, struct cache_line *l)
{
	struct gpu_l1 *l1 = ctx;

	if (l->dirty_sectors) {
		l1_writeback_line(l1, l);
		l->dirty_sectors = 0;
	}
}

static void l1_drop_clean(void *ctx, struct cache_line *l)
{
	struct gpu_l1 *l1 = ctx;

	if (!l->dirty_sectors)
		cache_invalidate(l1->cache, l);
}

static void l1_kernel_end(struct gpu_l1 *l1, void (*cb)(void *), void *arg)
{
	if (l1_stores_reg(l1)) {
		/* DeNovo-B: a kernel's end is a release: every written line is registered
		 * (StReg), where it stays for the next kernels' readers (the L2 keeps its owner:
		 * seed 004's "multiple MB" of registered footprint, V17) */
		(*l1->ss.flush_kernel_end)++;
		l1->flush_cb = cb;
		l1->flush_arg = arg;
		l1->kend_streg = true;
		l1_release_check(l1);
		return;
	}
	if (!l1->bypass && l1->write_back) {
		/* the miss queue may grow past its bound here: a flush is not refused */
		cache_for_each(l1->cache, l1_flush_one, l1);
	}
	if (l1->scoped)
		(*l1->ss.flush_kernel_end)++;
	if (!l1->wb_pending && !l1->sb_pending) {
		cb(arg);
		return;
	}
	l1->flush_cb = cb;
	l1->flush_arg = arg;
}

struct l1_ff_sink {
	struct gpu_l1 *l1;
	gpu_ff_write_fn *write;
	void *arg;
};

/* A write-back line's dirty sectors to memory, functionally. */
static void l1_ff_write_line(void *ctx, struct cache_line *l)
{
	const struct l1_ff_sink *k = ctx;
	unsigned sb = k->l1->sector_bytes ? k->l1->sector_bytes : k->l1->line_bytes;

	for (unsigned s = 0; s * sb < k->l1->line_bytes; s++)
		if ((l->dirty_sectors >> s) & 1)
			k->write(k->arg, l->addr + s * sb, l->data + s * sb, sb);
	l->dirty_sectors = 0;
}

/* Only for L1s whose lines the L2 has not handed over (no registrations): the write-back
 * L1's dirty bytes go to memory, then every line. */
static void l1_ff_flush(struct gpu_l1 *l1, gpu_ff_write_fn *write, void *arg)
{
	struct l1_ff_sink k = {.l1 = l1, .write = write, .arg = arg};

	if (l1->bypass)
		return;
	if (l1->write_back)
		cache_for_each(l1->cache, l1_ff_write_line, &k);
	cache_invalidate_all(l1->cache);
}

/* Non-coherent L1: an acquire of device or system scope drops every line (nothing is dirty in
 * a write-through L1; a write-back L1 keeps its dirty lines, which are the SM's own data). */
static sim_time_t l1_nc_fence(struct gpu_l1 *l1, unsigned warp, uint8_t order, uint8_t scope)
{
	(void)warp;
	if (l1->ctx->l1->fence_invalidate && mem_order_acquires(order) && scope != MEM_SCOPE_WG) {
		(*l1->st.fence_invalidations)++;
		if (l1->write_back)
			cache_for_each(l1->cache, l1_drop_clean, l1);
		else
			cache_invalidate_all(l1->cache);
	}
	return 0;
}

/* scoped-baseline (seed 004 §2.2): work-group scope needs nothing (one L1 per CU); an acquire
 * of agent or system scope flash-invalidates the L1 in one cycle; a release flushes the FIFO
 * store buffer: the warp waits until every write-through of the CU is acknowledged. */
static sim_time_t l1_scoped_fence(struct gpu_l1 *l1, unsigned warp, uint8_t order, uint8_t scope)
{
	if (scope == MEM_SCOPE_WG)
		return 0;
	if (mem_order_acquires(order)) {
		l1_flash_inv(l1);
		(*l1->ss.inv_acquire)++;
	}
	if (!mem_order_releases(order))
		return 0;
	(*l1->ss.flush_release)++;
	if (l1_stores_reg(l1)) {
		/* DeNovo-B: StReg of the written lines (Table 3 b8, b10, b13, ...); in the LT
		 * face they go and come back now, as room allows */
		bool held = l1->port.lt && l1_port_lt_hold(&l1->port, true);
		bool done = l1_streg_pump(l1) && !l1->sb_pending;

		if (l1->port.lt) {
			/* LT: they go now, their answers handled in time order while the fence
			 * waits (where a recall may still take one over) */
			l1_port_lt_hold(&l1->port, held);
			l1_port_lt_send_now(&l1->port);
		}

		if (done || !l1->port.cl.fence_done)
			return 0;
		(*l1->ss.flush_waits)++;
		l1->sb_waiters[l1->n_sb_waiters++] = warp;
		return GPU_FENCE_PENDING;
	}
	if (!l1->sb_pending || !l1->port.cl.fence_done)
		return 0;
	(*l1->ss.flush_waits)++;
	l1->sb_waiters[l1->n_sb_waiters++] = warp;
	return GPU_FENCE_PENDING;
}

static bool l1_idle(const struct gpu_l1 *l1)
{
	return l1_port_idle(&l1->port) && (l1->bypass || !mshr_used(l1->mshr)) &&
	       !l1->n_probe_wait && !l1->rmw_locks && !l1->n_unreg;
}

static uint64_t l1_digest(const struct gpu_l1 *l1)
{
	return l1->bypass ? 0 : cache_digest(l1->cache);
}

/*
 * The L1's energy events (docs/energy.md): every access and fill probes or writes the tags;
 * load hits and write-backs read the data array, fills and stores into a present line write
 * it (a write-back L1 also writes the store it fetched a missing line for); MSHR entries are
 * taken by load misses (and a write-back L1's store misses) and freed by fills. The scoped
 * family adds its own arrays' work: an atomic performed in the L1 (work-group scope, or on a
 * line registered here) reads and writes the line; a home's probe, recall or forward looks
 * up the tags, and a recall or forward that finds the line reads it. The bypass L1 (`none`)
 * has no arrays.
 */
static void l1_energy(const struct gpu_l1 *l1, struct energy_counts *out)
{
	const struct l1_stats *s = &l1->st;
	double fills = (double)*s->fills;
	double smiss = l1->write_back ? (double)*s->store_misses : 0;
	double rmw = 0;

	if (l1->bypass)
		return;
	energy_add(out, EN_L1_TAG, (double)*s->c.accesses + fills);
	energy_add(out, EN_L1_DATA_READ, (double)*s->c.load_hits + (double)*s->writebacks);
	energy_add(out, EN_L1_DATA_WRITE,
		   fills + (double)*s->store_hits - (double)*s->store_evictions + smiss);
	energy_add(out, EN_L1_MSHR, (double)*s->load_misses + smiss + fills);
	if (l1->scoped)
		rmw += (double)*l1->ss.l1_atomics;
	if (l1->rv) {
		double found = (double)*l1->rg.recalls + (double)*l1->rg.forwards;

		rmw += (double)*l1->rg.l1_hits;
		energy_add(out, EN_L1_TAG, found);
		energy_add(out, EN_L1_DATA_READ, found - (double)*l1->rg.recall_empty);
	}
	if (l1->rsp)
		energy_add(out, EN_L1_TAG, (double)*l1->rs.probes);
	energy_add(out, EN_L1_DATA_READ, rmw);
	energy_add(out, EN_L1_DATA_WRITE, rmw);
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
	free(l1->sb_waiters);
	for (unsigned i = 0; i < l1->n_probe_wait; i++)
		tlm_payload_release(&l1->probe_wait[i]->p);
	free(l1->probe_wait);
	free(l1->unreg);
	free(l1);
}

static void l1_stats_register(struct gpu_l1 *l1, struct cs_stat_group *g)
{
	struct l1_stats *s = &l1->st;

	l1_common_stats_register(&s->c, g, !l1->bypass);
	s->load_misses =
	    cs_stat_counter(g, "load_misses", "", "loads sent to (or merged for) the L2");
	s->mshr_merges = cs_stat_counter(g, "mshr_merges", "", "misses merged into an MSHR entry");
	s->store_hits = cs_stat_counter(g, "store_hits", "", "stores finding the line present");
	s->store_misses = cs_stat_counter(g, "store_misses", "", "stores to lines not present");
	s->store_evictions = cs_stat_counter(g, "store_evictions", "",
					     "store hits that dropped the line (l1.write = evict)");
	s->sector_misses = cs_stat_counter(g, "sector_misses", "", "misses on a present line");
	s->evictions = cs_stat_counter(g, "evictions", "", "valid lines replaced");
	s->writebacks = cs_stat_counter(g, "writebacks", "", "dirty lines written back");
	s->fence_invalidations =
	    cs_stat_counter(g, "fence_invalidations", "", "acquire fences that invalidated the L1");
	s->fills = cs_stat_counter(g, "fills", "", "data answers written into the L1");
	s->fill_merges = cs_stat_counter(
	    g, "fill_merges", "",
	    "write-through stores to a line whose fill was on its way, written over the fill");
	s->fill_waits =
	    cs_stat_counter(g, "stall.fill_in_flight", "",
			    "writes past the L1 (atomics; .cg/.cv stores but the "
			    "write-through W/L1's) refused until a fill of their line on "
			    "its way was in");
	if (!l1->scoped)
		return;
	l1->ss.inv_kernel_start =
	    cs_stat_counter(g, "inv_kernel_start", "", "invalidations at a kernel's start");
	l1->ss.inv_acquire = cs_stat_counter(g, "inv_acquire", "",
					     "invalidations by acquires of agent or system scope");
	l1->ss.flush_kernel_end =
	    cs_stat_counter(g, "flush_kernel_end", "", "store-buffer flushes at a kernel's end");
	l1->ss.flush_release = cs_stat_counter(
	    g, "flush_release", "", "store-buffer flushes by releases of agent or system scope");
	l1->ss.flush_waits = cs_stat_counter(g, "flush_waits", "",
					     "releases that waited for the store buffer to drain");
	l1->ss.sb_full =
	    cs_stat_counter(g, "sb_full", "", "stores held back by a full store buffer");
	l1->ss.l1_atomics =
	    cs_stat_counter(g, "l1_atomics", "", "work-group-scope atomics performed in the L1");
	l1->ss.l1_atomic_misses = cs_stat_counter(
	    g, "l1_atomic_misses", "", "work-group-scope atomics that fetched their line first");
	if (l1->rv) {
		struct l1_reg_stats *r = &l1->rg;

		r->getr = cs_stat_counter(g, "reg.getr", "",
					  "GetRs sent: atomics on lines not registered here");
		r->l1_hits = cs_stat_counter(
		    g, "reg.l1_hits", "", "atomics on a line registered here (Table 6's L1 hits)");
		r->merged =
		    cs_stat_counter(g, "reg.merged", "",
				    "atomics that waited for a GetR already sent for the line");
		r->inv_atomic_in = cs_stat_counter(
		    g, "inv_atomic_in", "", "invalidations when registration came in (atomic in)");
		r->flush_atomic_out =
		    cs_stat_counter(g, "flush_atomic_out", "",
				    "flushes when registration left at a recall (atomic out)");
		r->sync_evicts = cs_stat_counter(g, "reg.sync_evicts", "",
						 "registered lines this L1 evicted (Synch Evicts)");
		r->recalls = cs_stat_counter(g, "reg.recalls", "", "recalls from home banks");
		r->recall_empty =
		    cs_stat_counter(g, "reg.recall_empty", "",
				    "recalls or forwards for a line whose UnReg had gone");
		r->recall_given_back = cs_stat_counter(
		    g, "reg.recall_given_back", "",
		    "recalls of a registration this L1 had given back while it asked again");
		r->forwards = cs_stat_counter(
		    g, "reg.forwards", "",
		    "data accesses elsewhere to a line registered here: its data sent, or a "
		    "write's bytes taken (registration kept)");
		r->stregs = cs_stat_counter(g, "reg.stregs", "",
					    "DeNovo StRegs: written lines registered at a release");
		r->stregs_kend =
		    cs_stat_counter(g, "reg.stregs_kernel_end", "",
				    "DeNovo StRegs at a kernel's end (counted in reg.stregs too)");
		r->agent_l2 = cs_stat_counter(
		    g, "reg.agent_l2", "",
		    "hLRC-scoped: atomics of agent or system scope performed at the L2");
		r->relaxed_l2 = cs_stat_counter(
		    g, "reg.relaxed_l2", "",
		    "relaxed atomics on lines not registered here, performed at the L2 (no "
		    "registration)");
		r->recall_waits =
		    cs_stat_counter(g, "reg.recall_waits", "",
				    "recalls that waited (the store buffer, this L1's own GetR)");
		r->load_bypass = cs_stat_counter(g, "reg.load_bypass", "",
						 "data loads of a registered line, read at the L2");
		r->reg_waits = cs_stat_counter(
		    g, "reg.waits", "",
		    "atomics refused until the line's UnReg or read fill is out of the way");
	}
	if (!l1->rsp)
		return;
	l1->rs.probes = cs_stat_counter(g, "probes", "", "probes from home banks");
	l1->rs.remote_flush = cs_stat_counter(g, "remote_flush", "",
					      "store-buffer flushes asked by remote operations");
	l1->rs.remote_inv =
	    cs_stat_counter(g, "remote_inv", "", "invalidations asked by remote operations");
	l1->rs.locks = cs_stat_counter(g, "rmw_locks", "", "RMW locks taken by remote operations");
	l1->rs.unlocks = cs_stat_counter(g, "rmw_unlocks", "", "RMW locks released");
	l1->rs.lock_waits =
	    cs_stat_counter(g, "rmw_lock_waits", "",
			    "work-group RMWs refused while a remote operation held the lock");
	l1->rs.probe_waits = cs_stat_counter(
	    g, "probe_waits", "", "probes whose ack waited (store buffer, RMWs in flight)");
}

static int l1_create_common(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			    struct cs_stat_group *g, bool bypass, bool scoped, bool rsp,
			    const struct sc_reg_variant *rv, struct gpu_l1 **out,
			    struct cs_err *err)
{
	const struct gpu_l1_cfg *cfg = ctx->l1;
	struct gpu_l1 *l1 = calloc(1, sizeof(*l1));
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!l1)
		goto fail;
	l1->ctx = ctx;
	l1->bypass = bypass;
	l1->scoped = scoped;
	l1->rsp = rsp;
	l1->rv = rv;
	if (scoped) {
		const struct scoped_cfg *sc = ctx->proto_cfg;

		l1->sb_cap = (unsigned)sc->store_buffer;
		l1->sb_waiters = calloc(ctx->warps ? ctx->warps : 1, sizeof(*l1->sb_waiters));
		if (!l1->sb_waiters)
			goto fail;
	}
	l1->write_back = cfg->write == GPU_L1_WRITE_BACK;
	l1->write_evict = cfg->write == GPU_L1_WRITE_EVICT;
	l1->line_bytes = (unsigned)cfg->line_bytes;
	l1->sector_bytes = (unsigned)cfg->sector_bytes;
	rc = l1_port_init(&l1->port, ctx, sm, cl, l1_response, l1, g);
	if (!rc && (rsp || rv))
		rc = l1_port_oneway(&l1->port, SC_VNET_REQ, SC_VNET_RSP, l1_probe);
	if (rc)
		goto fail;
	if (!bypass) {
		struct cache_geom geom = {
		    .size_bytes = cfg->size_kib * 1024,
		    .assoc = (unsigned)cfg->assoc,
		    .line_bytes = (unsigned)cfg->line_bytes,
		    .sector_bytes = (unsigned)cfg->sector_bytes,
		    .repl = (enum cache_repl)cfg->repl,
		};

		rc = cache_create(&geom, &l1->cache);
		if (rc) {
			cs_err_set(err, rc,
				   "l1: a %llu KiB %llu-way cache of %llu B lines (sectors %llu B) "
				   "cannot be built: sizes must give a power-of-two number of sets",
				   (unsigned long long)cfg->size_kib,
				   (unsigned long long)cfg->assoc,
				   (unsigned long long)cfg->line_bytes,
				   (unsigned long long)cfg->sector_bytes);
			goto fail_quiet;
		}
		rc = mshr_create((unsigned)cfg->mshrs, (unsigned)cfg->mshr_merge,
				 sizeof(struct l1_target), &l1->mshr);
		if (rc)
			goto fail;
	}
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

static int l1_create_nc(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_common(ctx, sm, cl, g, false, false, false, NULL, out, err);
}

/* The scoped protocols' L1 (rsp, registration: on the one-way network, answering probes). */
static int l1_create_seed004(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			     struct cs_stat_group *g, bool rsp, const struct sc_reg_variant *rv,
			     struct gpu_l1 **out, struct cs_err *err)
{
	if (ctx->l1->write != GPU_L1_WRITE_THROUGH)
		return cs_err_set(err, -CS_ECONFIG,
				  "l1.write: the scoped protocols' L1 is write-through (seed 004)");
	return l1_create_common(ctx, sm, cl, g, false, true, rsp, rv, out, err);
}

static int l1_create_scoped(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			    struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, false, NULL, out, err);
}

static int l1_create_rsp(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			 struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, true, NULL, out, err);
}

static int l1_create_hlrc(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			  struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, false, &sc_reg_hlrc, out, err);
}

static int l1_create_hlrc_noprio(const struct gpu_ctx *ctx, unsigned sm,
				 const struct gpu_l1_client *cl, struct cs_stat_group *g,
				 struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, false, &sc_reg_hlrc_noprio, out, err);
}

static int l1_create_hlrc_scoped(const struct gpu_ctx *ctx, unsigned sm,
				 const struct gpu_l1_client *cl, struct cs_stat_group *g,
				 struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, false, &sc_reg_hlrc_scoped, out, err);
}

static int l1_create_denovo_b(const struct gpu_ctx *ctx, unsigned sm,
			      const struct gpu_l1_client *cl, struct cs_stat_group *g,
			      struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, false, &sc_reg_denovo_b, out, err);
}

static int l1_create_denovo_rprio(const struct gpu_ctx *ctx, unsigned sm,
				  const struct gpu_l1_client *cl, struct cs_stat_group *g,
				  struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_seed004(ctx, sm, cl, g, false, &sc_reg_denovo_rprio, out, err);
}

static struct tlm_target_socket *l1_deliver_port(struct gpu_l1 *l1)
{
	return l1_port_deliver(&l1->port);
}

static int l1_create_bypass(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *cl,
			    struct cs_stat_group *g, struct gpu_l1 **out, struct cs_err *err)
{
	return l1_create_common(ctx, sm, cl, g, true, false, false, NULL, out, err);
}

/* What every L1 of this file shares; the tables differ in create, fence and deliver_port. */
#define L1_BASE_OPS                                                                               \
	.destroy = l1_destroy, .noc_port = l1_noc_port, .access = l1_access, .set_lt = l1_set_lt, \
	.lt_access = l1_lt_access, .lt_advance = l1_lt_advance, .kernel_begin = l1_kernel_begin,  \
	.kernel_end = l1_kernel_end, .idle = l1_idle, .digest = l1_digest, .energy = l1_energy

const struct gpu_l1_ops gpu_l1_nc_ops = {
    L1_BASE_OPS,
    .ff_flush = l1_ff_flush,
    .create = l1_create_nc,
    .fence = l1_nc_fence,
};

const struct gpu_l1_ops gpu_l1_bypass_ops = {
    L1_BASE_OPS,
    .ff_flush = l1_ff_flush,
    .create = l1_create_bypass,
};

const struct gpu_l1_ops gpu_l1_scoped_ops = {
    L1_BASE_OPS,
    .ff_flush = l1_ff_flush,
    .create = l1_create_scoped,
    .fence = l1_scoped_fence,
};

/* rsp: the scoped L1 on the one-way network, answering its home banks' probes */
const struct gpu_l1_ops gpu_l1_rsp_ops = {
    L1_BASE_OPS,
    .create = l1_create_rsp,
    .deliver_port = l1_deliver_port,
    .fence = l1_scoped_fence,
};

/* hLRC (seed 004 §2.5): the scoped L1 on the one-way network whose atomics register their
 * line; with and without Rprio */
const struct gpu_l1_ops gpu_l1_hlrc_ops = {
    L1_BASE_OPS,
    .create = l1_create_hlrc,
    .deliver_port = l1_deliver_port,
    .fence = l1_scoped_fence,
};

const struct gpu_l1_ops gpu_l1_hlrc_noprio_ops = {
    L1_BASE_OPS,
    .create = l1_create_hlrc_noprio,
    .deliver_port = l1_deliver_port,
    .fence = l1_scoped_fence,
};

/* hLRC-scoped: hLRC's L1 whose agent-scope atomics go to the L2 */
const struct gpu_l1_ops gpu_l1_hlrc_scoped_ops = {
    L1_BASE_OPS,
    .create = l1_create_hlrc_scoped,
    .deliver_port = l1_deliver_port,
    .fence = l1_scoped_fence,
};

const struct gpu_l1_ops gpu_l1_denovo_b_ops = {
    L1_BASE_OPS,
    .create = l1_create_denovo_b,
    .deliver_port = l1_deliver_port,
    .fence = l1_scoped_fence,
};

const struct gpu_l1_ops gpu_l1_denovo_rprio_ops = {
    L1_BASE_OPS,
    .create = l1_create_denovo_rprio,
    .deliver_port = l1_deliver_port,
    .fence = l1_scoped_fence,
};
