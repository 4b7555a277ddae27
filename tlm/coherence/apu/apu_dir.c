/*
 * tlm/coherence/apu/apu_dir.c - the stateless directory and its victim LLC (see apu_dir.h).
 */
#include "tlm/coherence/apu/apu_dir.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/mem/cache.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/msgq.h"
#include "tlm/mem/store.h"

#define APU "docs/apu.md"

static const char *const clean_victim_names[] = {"memory", "llc", "none", NULL};
static const char *const tracking_names[] = {"none", "owner", "sharers", NULL};

static const struct cs_param dir_rows[] = {
    {"clock_mhz", CS_P_UINT, offsetof(struct apu_dir_cfg, clock_mhz), "2000", "MHz",
     "uncore clock of the directory and its LLC (gem5 --ruby-clock, " APU " 6.1)", 1, 100000, NULL},
    {"response_cycles", CS_P_UINT, offsetof(struct apu_dir_cfg, response_cycles), "30", "cycles",
     "probes and responses leave this long after the transition (gem5 viper.py "
     "DirCntrl.response_latency)",
     0, 100000, NULL},
    {"wback_cycles", CS_P_UINT, offsetof(struct apu_dir_cfg, wback_cycles), "1", "cycles",
     "WBAck to a victim or a write-through leaves after (gem5 dir w_sendResponseWBAck)", 0, 100000,
     NULL},
    {"tbes", CS_P_UINT, offsetof(struct apu_dir_cfg, tbes), "256", "",
     "open transactions (gem5 viper.py --num-tbes)", 1, 65536, NULL},
    {"transitions_per_cycle", CS_P_UINT, offsetof(struct apu_dir_cfg, transitions_per_cycle), "32",
     "", "messages handled per cycle (gem5 Controller.transitions_per_cycle)", 1, 1024, NULL},
    {"mem_issue_cycles", CS_P_UINT, offsetof(struct apu_dir_cfg, mem_issue_cycles), "1", "cycles",
     "DRAM requests leave after (gem5 dir to_memory_controller_latency)", 0, 100000, NULL},
    {"in_depth", CS_P_UINT, offsetof(struct apu_dir_cfg, in_depth), "4", "messages",
     "input queue per virtual network at the network port (inferred: gem5's are unbounded)", 1,
     4096, NULL},
    {"read_writeback", CS_P_BOOL, offsetof(struct apu_dir_cfg, read_writeback), "false", "",
     "write memory at the end of a read served without dirty data (gem5 since bfcab125; " APU " 0)",
     0, 0, NULL},
    {"clean_victims", CS_P_ENUM, offsetof(struct apu_dir_cfg, clean_victims), "memory", "",
     "a clean victim goes to memory and the LLC (memory: the baseline), to the LLC only (llc: "
     "seed 002 enhancement B) or nowhere, only dirty victims cached (none: B.1)",
     0, 0, clean_victim_names},
    {"tracking", CS_P_ENUM, offsetof(struct apu_dir_cfg, tracking), "none", "",
     "what the directory tracks (seed 002 4): none (the stateless baseline: every request "
     "broadcasts), owner (states I, S, O per line in a directory cache inclusive of the caches: "
     "no probes for reads in I or S, one to the owner in O) or sharers (owner and a sharer list: "
     "invalidations multicast to the holders)",
     0, 0, tracking_names},
    {"sharer_pointers", CS_P_UINT, offsetof(struct apu_dir_cfg, sharer_pointers), "0", "",
     "sharer list format with tracking = sharers: 0 a full-map vector (one bit per CorePair and "
     "TCC slice, seed 002 4-B), n a limited-pointer list of n sharers that broadcasts when full "
     "and then drops no sharer (Table I fn b)",
     0, 64, NULL},
    {"entries", CS_P_UINT, offsetof(struct apu_dir_cfg, entries), "262144", "",
     "directory cache entries, one line each (tracking; Table II: 256 KB of 1-B entries, " APU
     " 3.6)",
     1, 1u << 26, NULL},
    {"entry_assoc", CS_P_UINT, offsetof(struct apu_dir_cfg, entry_assoc), "32", "ways",
     "directory cache associativity, tree-PLRU (Table II)", 1, 1024, NULL},
    {"entry_cycles", CS_P_UINT, offsetof(struct apu_dir_cfg, entry_cycles), "20", "cycles",
     "directory cache access: probes leave this much later than without tracking (Table II)", 0,
     100000, NULL},
    {"early_response", CS_P_BOOL, offsetof(struct apu_dir_cfg, early_response), "false", "",
     "seed 002 enhancement A: a read (RdBlk, RdBlkS, DMARd) is answered at the first probe ack "
     "with dirty data, before the other acks and the LLC or DRAM data",
     0, 0, NULL},
    {"tcc_inv_always", CS_P_BOOL, offsetof(struct apu_dir_cfg, tcc_inv_always), "false", "",
     "with tracking, send every invalidation to the home TCC slice too, whatever the line's "
     "state and sharers, as gem5's enhanced directory (seed 002's code) does; false: the TCC "
     "only when it holds the line, as the paper describes",
     0, 0, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table apu_dir_params = {
    .section = "dir",
    .help = "APU system directory (stateless, seed 002 baseline, docs/apu.md 3.4)",
    .params = dir_rows,
    .size = sizeof(struct apu_dir_cfg),
};

static const struct cs_param llc_rows[] = {
    {"size_kib", CS_P_UINT, offsetof(struct apu_llc_cfg, size_kib), "16384", "KiB",
     "victim LLC inside the directory (paper Table II: 16 MB)", 1, 1048576, NULL},
    {"assoc", CS_P_UINT, offsetof(struct apu_llc_cfg, assoc), "16", "ways",
     "LLC associativity, tree-PLRU (paper Table II)", 1, 1024, NULL},
    {"hit_cycles", CS_P_UINT, offsetof(struct apu_llc_cfg, hit_cycles), "20", "cycles",
     "LLC hit to data, uncore cycles (paper Table II; gem5 l3_hit_latency)", 0, 100000, NULL},
    {"evict_write", CS_P_BOOL, offsetof(struct apu_llc_cfg, evict_write), "true", "",
     "an LLC eviction writes the victim to DRAM (gem5 dir al_allocateL3Block)", 0, 0, NULL},
    {"write_back", CS_P_BOOL, offsetof(struct apu_llc_cfg, write_back), "false", "",
     "seed 002 enhancement C: a dirty bit per line; no victim, clean or dirty, goes to DRAM; an "
     "eviction writes back only a dirty line; a hit on a dirty line keeps it (needs "
     "llc.use_on_wt)",
     0, 0, NULL},
    {"use_on_wt", CS_P_BOOL, offsetof(struct apu_llc_cfg, use_on_wt), "false", "",
     "useL3OnWT: GPU write-throughs, atomics and flushes also write the LLC (paper 2)", 0, 0, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table apu_llc_params = {
    .section = "llc",
    .help = "APU victim LLC inside the directory (write-through, docs/apu.md 3.5)",
    .params = llc_rows,
    .size = sizeof(struct apu_llc_cfg),
};

/* ---- state ----------------------------------------------------------------------------------- */

/* Phases of an open transaction; the kind (request type) gives the prefix of gem5's names.
 * PH_W: the request waits for a directory way another line's eviction frees; PH_BP: that
 * eviction (gem5's B_P), back-invalidations out. */
enum phase { PH_PM = 1, PH_Pm, PH_M, PH_B, PH_BL, PH_W, PH_BP };

/* The kind of a directory entry's own eviction (no request type: gem5's PF_Repl). */
#define KIND_PF_REPL APU_MSG_TYPES

/* Directory states of a tracked line (seed 002 §IV-A), in the directory cache's line state;
 * PF_NEW holds a way for a request that found the line in I until it completes. The owner is
 * meta[0] (holder index + 1, 0 = none), the sharer list meta[1] (a bit per holder index). */
enum pf_state { PF_I = 0, PF_S, PF_O, PF_NEW, PF_STATES };
static const char *const pf_state_names[PF_STATES] = {"I", "S", "O", "new"};

enum wcause {
	W_VICTIM = 0,
	W_WT,
	W_ATOMIC,
	W_FLUSH,
	W_DMA,
	W_LLC_EVICT,
	W_READ_WB,
	W_DIRTY_KEPT, /* write-back LLC: a dirty line a read hit goes back in */
	W_BACKINV,    /* dirty data a directory eviction's back-invalidation brought back */
	W_CAUSES
};
const char *const apu_dir_write_causes[W_CAUSES + 1] = {
    "victim",	      "wt",	    "atomic",  "flush", "dma", "llc_evict",
    "read_writeback", "dirty_kept", "backinv", NULL};

struct tbe {
	uint64_t line;
	int next; /* hash chain / free list */
	uint8_t phase;
	uint8_t kind; /* enum apu_msg_type of the request */
	uint16_t req; /* requester endpoint */
	unsigned pending_acks;
	bool acks_done, data_in, dirty, cached, llc_hit;
	bool llc_dirty;	   /* write-back LLC: the hit took a dirty line, which must not be lost */
	bool lt;	   /* opened in an LT run */
	uint8_t pf;	   /* tracking: the directory state the request found (enum pf_state) */
	bool deferred;	   /* tracking, state O: the LLC is read only if no dirty data comes back */
	bool responded;	   /* early response (A): the read is answered, the line not yet done */
	bool unblocked;	   /* ... and its Unblock is in */
	bool wback_owed;   /* tracking: a WT's WBAck waits for its invalidations' acks */
	int waiter;	   /* PH_BP: the TBE of the request waiting for this way (-1: none) */
	struct apu_ext rq; /* the request's fields (mask, cu, seq, atomic operands, DMA range) */
	uint8_t own[APU_LINE];	   /* the request's bytes (WT, Flush, DMAWr) under rq.mask */
	uint8_t data[APU_LINE];	   /* best data so far: the dirty ack's, else LLC/DRAM */
	uint8_t llc_buf[APU_LINE]; /* an LLC hit's data until LlcData */
	sim_time_t start;
};

struct dir_stats {
	uint64_t *txn[APU_MSG_TYPES];
	uint64_t *probes_dg, *probes_inv, *probes_by[APU_MSG_TYPES];
	uint64_t *acks, *acks_data;
	uint64_t *parked;
	struct cs_stat_avg *parked_wait;
	uint64_t *vic_clean, *vic_dirty, *vic_stale;
	uint64_t *llc_hits, *llc_misses, *llc_writes[W_CAUSES], *llc_evictions;
	uint64_t *dram_reads, *dram_writes[W_CAUSES];
	uint64_t *pf_found[PF_STATES], *pf_evictions, *pf_evict_stalls, *probes_backinv;
	uint64_t *early;
};

struct dram_chan {
	struct apu_dir *d;
	unsigned ch;
	struct tlm_initiator_socket s;
	char name[48];
	struct msgq q; /* requests due (ready time) in order */
	bool open;     /* a BEGIN_REQ waits for END_REQ */
	bool pump_pending;
	struct sim_handle h;
};

struct apu_dir {
	struct sim_kernel *k;
	struct apu_dir_cfg cfg;
	struct apu_llc_cfg llc_cfg;
	struct apu_dir_nodes nodes;
	unsigned *cp, *tcc;
	struct apu_msgs *msgs;
	struct tlm_pool *pool;
	const struct addr_map *map;
	struct apu_port *port;
	struct cache *llc;
	struct cache *pf;      /* the directory cache (tracking), tags only */
	int16_t *holder_of_ep; /* endpoint -> holder index (CorePair i: i; TCC slice j: P + j) */
	unsigned n_ep;

	struct tbe *tbe;
	int free_tbe;
	unsigned tbes_used;
	int *hash;
	unsigned hash_mask;

	unsigned n_chan;
	struct dram_chan *chan;
	unsigned dram_out;
	uint64_t served; /* transactions started (same-event pairs: apu_dir_served) */

	struct dir_stats st;
	uint64_t sink; /* what the stats not kept count into */
	struct cohcheck *check;

	/* the LT face: when each line's last transaction of an LT run ended (direct-mapped by
	 * line): a later request of another run waits for it, as a parked one would */
	struct lt_busy {
		uint64_t line;
		sim_time_t until;
	} * lt_busy;
};

#define LT_BUSY_SLOTS 4096u

static const char *const phase_suffix[] = {"", "_PM", "_Pm", "_M", "", ""};

static const char *kind_prefix(unsigned kind)
{
	switch (kind) {
	case APU_RDBLK:
		return "B";
	case APU_RDBLKS:
		return "BS";
	case APU_DMARD:
		return "BDR";
	case APU_DMAWR:
		return "BDW";
	default:
		return "BM";
	}
}

static void state_name(const struct tbe *t, char *buf, size_t len)
{
	if (!t)
		snprintf(buf, len, "U");
	else if (t->phase == PH_BL)
		snprintf(buf, len, "BL");
	else if (t->phase == PH_B)
		snprintf(buf, len, "B");
	else if (t->phase == PH_BP)
		snprintf(buf, len, "B_P");
	else if (t->phase == PH_W)
		snprintf(buf, len, "%s_W", kind_prefix(t->kind));
	else
		snprintf(buf, len, "%s%s", kind_prefix(t->kind), phase_suffix[t->phase]);
}

static void proto_error(struct apu_dir *d, const struct tbe *t, uint64_t line, const char *event,
			unsigned from)
{
	char s[16];

	state_name(t, s, sizeof(s));
	sim_fail(d->k, -CS_EPROTO,
		 "%s: line 0x%" PRIx64 ": event %s in state %s (from endpoint %u) is illegal",
		 apu_port_name(d->port), line, event, s, from);
}

/* ---- TBEs ------------------------------------------------------------------------------------ */

static unsigned hash_of(const struct apu_dir *d, uint64_t line)
{
	return (unsigned)((line >> 6) * 0x9e3779b97f4a7c15ull >> 40) & d->hash_mask;
}

static struct tbe *tbe_find(struct apu_dir *d, uint64_t line)
{
	for (int i = d->hash[hash_of(d, line)]; i >= 0; i = d->tbe[i].next)
		if (d->tbe[i].line == line)
			return &d->tbe[i];
	return NULL;
}

static struct tbe *tbe_alloc(struct apu_dir *d, uint64_t line)
{
	struct tbe *t;
	unsigned h = hash_of(d, line);
	int i = d->free_tbe;

	if (i < 0)
		return NULL;
	t = &d->tbe[i];
	d->free_tbe = t->next;
	memset(t, 0, sizeof(*t));
	t->line = line;
	t->next = d->hash[h];
	d->hash[h] = i;
	t->start = apu_port_now(d->port);
	t->lt = apu_lt_on(apu_port_lt(d->port));
	d->tbes_used++;
	return t;
}

static void tbe_free(struct apu_dir *d, struct tbe *t)
{
	int i = (int)(t - d->tbe);
	int *pp = &d->hash[hash_of(d, t->line)];

	while (*pp != i)
		pp = &d->tbe[*pp].next;
	*pp = t->next;
	t->next = d->free_tbe;
	t->phase = 0;
	d->free_tbe = i;
	d->tbes_used--;
}

/* The line is back in U: free the TBE, restart the oldest parked request, let stalled
 * requests look for a TBE again. */
static void to_u(struct apu_dir *d, struct tbe *t)
{
	uint64_t line = t->line;
	sim_time_t waited;

	tbe_free(d, t);
	if (apu_lt_on(apu_port_lt(d->port))) {
		struct lt_busy *b = &d->lt_busy[hash_of(d, line) & (LT_BUSY_SLOTS - 1)];

		b->line = line;
		b->until = apu_port_now(d->port);
	}
	if (apu_port_wake(d->port, line, &waited))
		cs_stat_avg_sample(d->st.parked_wait, (double)waited / SIM_NS);
	apu_port_kick(d->port);
}

/* ---- DRAM ------------------------------------------------------------------------------------ */

static void dram_pump(struct sim_kernel *k, void *obj, void *arg);

static void dram_kick(struct dram_chan *c)
{
	struct msgq_slot *h = msgq_head(&c->q);
	sim_time_t now = sim_now(c->d->k);

	if (!h || c->open || c->pump_pending)
		return;
	c->pump_pending = true;
	c->h = sim_schedule_prio(c->d->k, h->ready > now ? h->ready - now : 0, SIM_PRIO_DEFAULT,
				 dram_pump, c, NULL);
}

static void dram_pump(struct sim_kernel *k, void *obj, void *arg)
{
	struct dram_chan *c = obj;
	struct msgq_slot *h;

	(void)arg;
	c->pump_pending = false;
	while (!c->open && (h = msgq_head(&c->q)) && h->ready <= sim_now(k)) {
		struct mem_msg *m = h->m;
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t dl = 0;
		enum tlm_sync_enum r;

		msgq_pop(&c->q);
		c->open = true;
		r = tlm_nb_transport_fw(&c->s, &m->p, &ph, &dl);
		if (r == TLM_UPDATED && ph == TLM_END_REQ)
			c->open = false;
		else if (r != TLM_ACCEPTED)
			sim_fail(k, -CS_EPROTO, "%s: DRAM answered %s to BEGIN_REQ", c->name,
				 tlm_phase_name(ph));
	}
	dram_kick(c);
}

/* txn of a DRAM request: a TBE index for reads, ~0 for writes. */
#define TXN_WRITE UINT32_MAX

static void on_data(struct apu_dir *d, struct tbe *t, const uint8_t *data);

/* MemData of an LT run, at the time DRAM's b_transport gave. */
static void lt_mem_data(void *owner, void *arg)
{
	struct apu_dir *d = owner;
	struct mem_msg *m = arg;
	struct tbe *t = &d->tbe[m->txn];

	if (t->phase != PH_PM && t->phase != PH_M)
		proto_error(d, t->phase ? t : NULL, m->p.addr, "MemData", d->nodes.ep);
	else
		on_data(d, t, m->p.data);
	tlm_payload_release(&m->p);
}

/* The LT face's DRAM access: performed at once by the channel's b_transport (its command
 * sequence and load meter), the data back at the time it gives. */
static void dram_lt(struct apu_dir *d, struct dram_chan *c, struct mem_msg *m)
{
	sim_time_t at = apu_port_now(d->port) + apu_port_delay(d->port, d->cfg.mem_issue_cycles);
	sim_time_t kn = sim_now(d->k), dl = at > kn ? at - kn : 0;

	tlm_b_transport(&c->s, &m->p, &dl);
	if (m->p.status != TLM_OK_RESPONSE && m->p.status != TLM_INCOMPLETE_RESPONSE) {
		sim_fail(d->k, -CS_EPROTO, "%s: DRAM refused a request by b_transport", c->name);
		tlm_payload_release(&m->p);
		return;
	}
	if (m->txn == TXN_WRITE) {
		tlm_payload_release(&m->p);
		return;
	}
	apu_port_call(d->port,
		      kn + dl > apu_port_now(d->port) ? kn + dl - apu_port_now(d->port) : 0,
		      lt_mem_data, m);
}

static void dram_send(struct apu_dir *d, uint64_t line, bool write, const uint8_t *data,
		      uint32_t txn)
{
	struct tlm_payload *p = tlm_payload_alloc(d->pool);
	struct dram_chan *c = &d->chan[addrmap_channel(d->map, line) % d->n_chan];
	struct mem_msg *m;

	if (!p) {
		sim_fail(d->k, -CS_ENOMEM, "%s: out of memory", apu_port_name(d->port));
		return;
	}
	m = mem_msg_of(p);
	p->addr = line;
	p->len = APU_LINE;
	p->cmd = write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND;
	if (write)
		memcpy(p->data, data, APU_LINE);
	m->txn = txn;
	if (apu_lt_on(apu_port_lt(d->port))) {
		dram_lt(d, c, m);
		return;
	}
	if (!msgq_push(&c->q, m,
		       sim_now(d->k) + apu_port_delay(d->port, d->cfg.mem_issue_cycles))) {
		tlm_payload_release(p);
		sim_fail(d->k, -CS_ENOMEM, "%s: out of memory", apu_port_name(d->port));
		return;
	}
	d->dram_out++;
	dram_kick(c);
}

static void mem_write(struct apu_dir *d, uint64_t line, const uint8_t *data, enum wcause why)
{
	(*d->st.dram_writes[why])++;
	dram_send(d, line, true, data, TXN_WRITE);
}

static enum tlm_sync_enum dram_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				  sim_time_t *dl)
{
	struct dram_chan *c = obj;
	struct apu_dir *d = c->d;
	struct mem_msg *m = mem_msg_of(p);

	(void)dl;
	if (*ph == TLM_END_REQ) {
		c->open = false;
		dram_kick(c);
		return TLM_ACCEPTED;
	}
	if (*ph != TLM_BEGIN_RESP) {
		sim_fail(d->k, -CS_EPROTO, "%s: unexpected %s from DRAM", c->name,
			 tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	d->dram_out--;
	if (m->txn != TXN_WRITE) { /* MemData: always taken, the TBE waits for it (rule 6) */
		struct tbe *t = &d->tbe[m->txn];

		if (t->phase != PH_PM && t->phase != PH_M)
			proto_error(d, t->phase ? t : NULL, p->addr, "MemData", d->nodes.ep);
		else
			on_data(d, t, p->data);
	}
	tlm_payload_release(p);
	return TLM_COMPLETED;
}

static const struct tlm_bw_ops dram_bw_ops = {.nb_transport_bw = dram_bw};

/* ---- LLC ------------------------------------------------------------------------------------- */

/* Demand lookup: a hit gives the data after hit_cycles and removes the line. */
static void llc_data_trigger(void *owner, void *arg);

static void lookup(struct apu_dir *d, struct tbe *t)
{
	struct cache_line *l = cache_lookup(d->llc, t->line);

	if (l) {
		(*d->st.llc_hits)++;
		t->llc_hit = true;
		t->llc_dirty = l->dirty_sectors != 0;
		/* read and removed at once (exclusive on hit): a victim allocated in the next
		 * hit_cycles cannot change what this transaction gets */
		memcpy(t->llc_buf, l->data, APU_LINE);
		cache_invalidate(d->llc, l);
		apu_port_trigger(d->port, d->llc_cfg.hit_cycles, llc_data_trigger, t);
		return;
	}
	(*d->st.llc_misses)++;
	(*d->st.dram_reads)++;
	dram_send(d, t->line, false, NULL, (uint32_t)(t - d->tbe));
}

/* Puts data in the LLC; dirty (a write-back LLC only) when DRAM does not hold it. */
static void llc_alloc(struct apu_dir *d, uint64_t line, const uint8_t *data, enum wcause why,
		      bool dirty)
{
	struct cache_line *l = cache_lookup(d->llc, line);

	(*d->st.llc_writes[why])++;
	if (!l) {
		l = cache_victim(d->llc, line, NULL, NULL);
		if (l->state) {
			(*d->st.llc_evictions)++;
			/* write-through: as gem5 (llc.evict_write); write-back: a dirty line */
			if (d->llc_cfg.write_back ? l->dirty_sectors != 0 : d->llc_cfg.evict_write)
				mem_write(d, l->addr, l->data, W_LLC_EVICT);
		}
		cache_install(d->llc, l, line, 1);
		l->dirty_sectors = 0;
	} else {
		cache_touch(d->llc, l);
	}
	memcpy(l->data, data, APU_LINE);
	/* a line already here keeps its dirt: a clean victim of a line a read kept dirty still
	 * holds bytes DRAM lacks */
	l->dirty_sectors = d->llc_cfg.write_back && (dirty || l->dirty_sectors);
}

/* Write-back LLC: a read that took a dirty line out of the LLC (exclusive on hit) puts it back,
 * with the data it answered (a cache's newer dirty copy, if a probe returned one), still dirty:
 * the requester may not own it (a TCC, a DMA read, RdBlkS), and DRAM does not hold it. Writes
 * (WT, Atomic, Flush, DMAWr) write DRAM with the merged line, so nothing is lost there. */
static void keep_dirty(struct apu_dir *d, struct tbe *t, const uint8_t *line)
{
	if (t->llc_dirty)
		llc_alloc(d, t->line, line, W_DIRTY_KEPT, true);
}

/* State O: a write the owner's dirty data served read no LLC copy, so the exclusive-on-hit
 * lookup did not take it out; the copy is stale and goes (a write-back LLC must never write it
 * back over the newer line). */
static void llc_drop(struct apu_dir *d, uint64_t line)
{
	struct cache_line *l = cache_lookup(d->llc, line);

	if (l)
		cache_invalidate(d->llc, l);
}

/* ---- sending --------------------------------------------------------------------------------- */

static struct mem_msg *msg(struct apu_dir *d, enum apu_msg_type type, uint64_t line, unsigned dst,
			   unsigned req)
{
	struct mem_msg *m = apu_msg_new(d->msgs, type, line, d->nodes.ep, dst, req);

	if (!m)
		sim_fail(d->k, -CS_ENOMEM, "%s: out of memory", apu_port_name(d->port));
	return m;
}

static void acks_done_trigger(void *owner, void *arg);

/* ---- probes and holders ---------------------------------------------------------------------- */

/* Holders are what a probe can reach: CorePair i is holder i, TCC slice j holder P + j (at most
 * 64 in all, checked at creation); probe targets are holder masks. */
static unsigned holder_ep(const struct apu_dir *d, unsigned h)
{
	return h < d->nodes.n_cp ? d->cp[h] : d->tcc[h - d->nodes.n_cp];
}

static int holder_of(const struct apu_dir *d, unsigned ep)
{
	return ep < d->n_ep ? d->holder_of_ep[ep] : -1;
}

static uint64_t holder_bit(const struct apu_dir *d, unsigned ep)
{
	int h = holder_of(d, ep);

	return h < 0 ? 0 : 1ull << h;
}

static bool writes_line(unsigned kind)
{
	return kind == APU_RDBLKM || kind == APU_WT || kind == APU_ATOMIC || kind == APU_FLUSH ||
	       kind == APU_DMAWR || kind == KIND_PF_REPL;
}

/* The CorePairs' holder bits. */
static uint64_t cp_mask(const struct apu_dir *d)
{
	return d->nodes.n_cp >= 64 ? ~0ull : (1ull << d->nodes.n_cp) - 1;
}

/* The baseline's probes (docs/apu.md §7): every CorePair; the home TCC slice for invalidations
 * other than WT, Atomic and Flush (the TCC is the requester's side); never the requester. */
static uint64_t broadcast(const struct apu_dir *d, const struct tbe *t, bool inv)
{
	uint64_t m = cp_mask(d);

	if (inv && d->nodes.n_tcc && t->kind != APU_WT && t->kind != APU_ATOMIC &&
	    t->kind != APU_FLUSH)
		m |= 1ull << (d->nodes.n_cp + (t->line >> 6) % d->nodes.n_tcc);
	return m & ~holder_bit(d, t->req);
}

/* Probes leave dir.response_cycles after the transition, and the directory cache's access
 * later with tracking: the state decides whom to probe. */
static uint64_t probe_delay(const struct apu_dir *d)
{
	return d->cfg.response_cycles + (d->pf ? d->cfg.entry_cycles : 0);
}

/* Sends a probe to each holder in mask, in holder order; AcksDone next cycle (tracking: once
 * the directory cache has been read) if there is none. */
static void probe_to(struct apu_dir *d, struct tbe *t, bool inv, uint64_t mask)
{
	enum apu_msg_type pt = inv ? APU_PRBINV : APU_PRBDOWNGRADE;
	unsigned n = 0;

	for (uint64_t left = mask; left; left &= left - 1) {
		struct mem_msg *m =
		    msg(d, pt, t->line, holder_ep(d, (unsigned)__builtin_ctzll(left)), t->req);

		if (!m)
			return;
		apu_port_send(d->port, m, probe_delay(d));
		n++;
	}
	*(inv ? d->st.probes_inv : d->st.probes_dg) += n;
	*(t->kind == KIND_PF_REPL ? d->st.probes_backinv : d->st.probes_by[t->kind]) += n;
	t->pending_acks = n;
	if (!n)
		apu_port_trigger(d->port,
				 d->pf && d->cfg.entry_cycles > 1 ? d->cfg.entry_cycles : 1,
				 acks_done_trigger, t);
}

/* ---- the directory cache (tracking, seed 002 §IV) --------------------------------------------- */

static bool needs_entry(unsigned kind)
{
	return kind == APU_RDBLK || kind == APU_RDBLKS || kind == APU_RDBLKM || kind == APU_WT ||
	       kind == APU_ATOMIC || kind == APU_FLUSH;
}

static uint64_t owner_bit(const struct cache_line *l)
{
	return l->meta[0] ? 1ull << (l->meta[0] - 1) : 0;
}

/* A limited-pointer list with no free pointer: invalidations broadcast, and no sharer is
 * dropped (Table I fn b), since some sharers are not on it. */
static bool pf_full(const struct apu_dir *d, const struct cache_line *l)
{
	return d->cfg.sharer_pointers &&
	       (uint64_t)__builtin_popcountll(l->meta[1]) >= d->cfg.sharer_pointers;
}

static void pf_add(const struct apu_dir *d, struct cache_line *l, int h)
{
	if (d->cfg.tracking == APU_TRACK_SHARERS && h >= 0 && !pf_full(d, l))
		l->meta[1] |= 1ull << h;
}

static void pf_remove(const struct apu_dir *d, struct cache_line *l, int h)
{
	if (h >= 0 && !pf_full(d, l))
		l->meta[1] &= ~(1ull << h);
}

static void pf_set(struct cache_line *l, unsigned state, int owner, uint64_t sharers)
{
	l->state = (uint8_t)state;
	l->meta[0] = owner < 0 ? 0 : (uint64_t)owner + 1;
	l->meta[1] = sharers;
}

/* Whom an invalidation reaches: the owner and the sharers (tracking = sharers and the list
 * complete), else every holder, as the baseline; never the requester. */
static uint64_t inv_targets(const struct apu_dir *d, const struct tbe *t,
			    const struct cache_line *l)
{
	if (d->cfg.tracking != APU_TRACK_SHARERS || pf_full(d, l))
		return broadcast(d, t, true);
	return (l->meta[1] | owner_bit(l)) & ~holder_bit(d, t->req);
}

/* A line in a transaction keeps its way. (A line with parked requests may go: its woken
 * request, if it finds the eviction, parks again ahead of the others, apu_port_park.) */
static bool pf_may_evict(void *ctx, const struct cache_line *l)
{
	return tbe_find(ctx, l->addr) == NULL;
}

/* A request that leaves the line cached needs a directory way. A full set first evicts the
 * tree-PLRU way among those whose line has no open transaction (gem5 PF_Repl -> B_P):
 * back-invalidations go to its holders and the request waits (PH_W) until all are acked.
 * -1 when no way or no TBE is free now: the request stalls. */
static int pf_reserve(struct apu_dir *d, struct tbe *t, bool *wait)
{
	struct cache_line *v;
	struct tbe *b;

	*wait = false;
	if (!d->pf || !needs_entry(t->kind) || cache_lookup(d->pf, t->line))
		return 0;
	v = cache_victim(d->pf, t->line, pf_may_evict, d);
	if (!v) {
		(*d->st.pf_evict_stalls)++;
		return -1;
	}
	if (!v->state)
		return 0;
	b = tbe_alloc(d, v->addr);
	if (!b)
		return -1;
	b->kind = KIND_PF_REPL;
	b->req = (uint16_t)d->nodes.ep;
	b->phase = PH_BP;
	b->waiter = (int)(t - d->tbe);
	(*d->st.pf_evictions)++;
	probe_to(d, b, true, inv_targets(d, b, v)); /* the requester, the directory, holds none */
	*wait = true;
	return 0;
}

static void victim_write(struct apu_dir *d, uint64_t line, const uint8_t *data, bool clean,
			 enum wcause why);
static void start(struct apu_dir *d, struct tbe *t);

/* A WT's WBAck: the TCC's store is performed (and the GPU goes on to its next store). */
static void wt_wback(struct apu_dir *d, struct tbe *t)
{
	struct mem_msg *r = msg(d, APU_WBACK, t->line, t->req, t->req);

	if (r) {
		struct apu_ext *re = apu_ext_of(d->msgs, r);

		re->cu = t->rq.cu;
		re->seq = t->rq.seq;
		apu_port_send(d->port, r, d->cfg.wback_cycles);
	}
}

/* Every back-invalidation is acked: dirty data goes where a dirty victim goes, the way is
 * free, the waiting request takes it, then the evicted line's parked requests go on. */
static void pf_evict_done(struct apu_dir *d, struct tbe *b)
{
	struct cache_line *v = cache_lookup(d->pf, b->line);

	if (b->dirty)
		victim_write(d, b->line, b->data, false, W_BACKINV);
	if (v)
		cache_invalidate(d->pf, v);
	if (b->waiter >= 0)
		start(d, &d->tbe[b->waiter]);
	to_u(d, b);
}

/* The state after a request with tracking (Table I as docs/apu.md §3.6 rebuilds it); a read's
 * grant. */
static unsigned pf_update(struct apu_dir *d, struct tbe *t)
{
	struct cache_line *l = cache_lookup(d->pf, t->line);
	int r = holder_of(d, t->req);
	bool cpu = r >= 0 && (unsigned)r < d->nodes.n_cp;
	int owner;

	if (!l || r < 0) {
		proto_error(d, t, t->line, "completion without a directory entry", t->req);
		return APU_GRANT_S;
	}
	owner = (int)l->meta[0] - 1;
	switch (t->kind) {
	case APU_RDBLKM: /* every other copy was invalidated */
		pf_set(l, PF_O, r, 0);
		return APU_GRANT_M;
	case APU_WT:
	case APU_ATOMIC:
	case APU_FLUSH: /* memory holds the line; the TCC may keep a clean copy */
		pf_set(l, PF_S, -1, 0);
		pf_add(d, l, r);
		return APU_GRANT_M;
	default:
		break;
	}
	if (t->pf == PF_I && t->kind == APU_RDBLK && cpu) {
		pf_set(l, PF_O, r, 0); /* E: the owner may write silently */
		return APU_GRANT_E;
	}
	if (t->pf == PF_O && owner != r && t->dirty) {
		pf_add(d, l, r); /* the owner went M -> O and keeps the dirty line */
		return APU_GRANT_S;
	}
	if (t->pf == PF_O) { /* E -> S (fn f), or the owner dropped E for an Ifetch (fn c) */
		l->meta[0] = 0;
		if (owner != r && t->cached)
			pf_add(d, l, owner);
	}
	if (t->pf == PF_I)
		pf_set(l, PF_S, -1, 0);
	l->state = PF_S;
	pf_add(d, l, r);
	return APU_GRANT_S;
}

/* A victim's end with tracking: the sender leaves (owner-only: only the owner is known). */
static void pf_victim(struct apu_dir *d, struct tbe *t, bool stale)
{
	struct cache_line *l = cache_lookup(d->pf, t->line);
	int x = holder_of(d, t->req);
	bool owner;

	if (!l) { /* a back-invalidation took the line while the victim waited: StaleNotif */
		if (!stale)
			proto_error(d, t, t->line, "VicData in directory state I", t->req);
		return;
	}
	owner = x >= 0 && l->meta[0] == (uint64_t)x + 1;
	if (t->kind == APU_VICDIRTY && !stale && (l->state != PF_O || !owner)) {
		proto_error(d, t, t->line,
			    l->state == PF_O ? "VicDirty from a cache that is not the owner"
					     : "VicDirty in directory state S",
			    t->req);
		return;
	}
	if (owner) {
		l->meta[0] = 0;
		l->state = PF_S; /* dirty sharers may remain (fn h) */
		if (d->cfg.tracking == APU_TRACK_OWNER && t->kind == APU_VICCLEAN && !stale) {
			cache_invalidate(d->pf, l); /* the owner held E: nobody else (fn e, g) */
			return;
		}
	}
	pf_remove(d, l, x);
	if (d->cfg.tracking == APU_TRACK_SHARERS && !l->meta[0] && !l->meta[1])
		cache_invalidate(d->pf, l);
}

/* The request's first step, once it holds its directory way: the LLC lookup and the probes.
 * With tracking (seed 002 §IV-A): reads in I or S probe nobody; reads in O probe the owner
 * only; writes in S or O invalidate the holders; in O the LLC, which may be stale, is read only
 * if the owner returns no dirty data. */
static void start(struct apu_dir *d, struct tbe *t)
{
	bool inv = writes_line(t->kind);
	struct cache_line *l;
	uint64_t to = 0;

	t->phase = PH_PM;
	if (!d->pf) {
		lookup(d, t);
		probe_to(d, t, inv, broadcast(d, t, inv));
		return;
	}
	l = cache_lookup(d->pf, t->line);
	t->pf = l ? l->state : PF_I;
	if (t->pf == PF_NEW) {
		proto_error(d, t, t->line, "request to a line whose entry is being made", t->req);
		return;
	}
	(*d->st.pf_found[t->pf])++;
	if (t->pf == PF_S && inv) {
		to = inv_targets(d, t, l);
	} else if (t->pf == PF_O) {
		to = inv ? inv_targets(d, t, l) : owner_bit(l) & ~holder_bit(d, t->req);
		t->deferred = (to & owner_bit(l)) != 0;
	}
	if (l) {
		cache_touch(d->pf, l);
	} else if (needs_entry(t->kind)) {
		l = cache_victim(d->pf, t->line, NULL, NULL);
		if (!l || l->state) {
			proto_error(d, t, t->line, "no free directory way", t->req);
			return;
		}
		cache_install(d->pf, l, t->line, PF_NEW);
	}
	/* gem5's enhanced directory (seed 002's code) sends every invalidation to the home TCC
	 * slice, whatever the line's state: the TCC part of a broadcast (none for the TCC's own
	 * WT, Atomic, Flush) */
	if (inv && d->cfg.tcc_inv_always)
		to |= broadcast(d, t, true) & ~cp_mask(d);
	if (!t->deferred)
		lookup(d, t);
	/* A WT that invalidates no one is acked at once, as the baseline's; one that does waits
	 * for the acks: the baseline's early WBAck is safe only because every CorePair gets every
	 * WT's probes in order (docs/apu.md 8.3), which a multicast no longer gives */
	if (t->kind == APU_WT && to)
		t->wback_owed = true;
	else if (t->kind == APU_WT)
		wt_wback(d, t);
	probe_to(d, t, inv, to);
}

/* ---- completion ------------------------------------------------------------------------------ */

static void self_unblock_trigger(void *owner, void *arg)
{
	struct apu_dir *d = owner;
	struct tbe *t = arg;

	if (t->phase != PH_B) {
		proto_error(d, t, t->line, "SelfUnblock", d->nodes.ep);
		return;
	}
	to_u(d, t);
}

static void merge_own(struct tbe *t, uint8_t *line)
{
	for (unsigned i = 0; i < APU_LINE; i++)
		if (t->rq.mask >> i & 1)
			line[i] = t->own[i];
}

static void check_words(struct apu_dir *d, uint64_t line, const uint8_t *data, uint64_t mask)
{
	if (!d->check)
		return;
	for (unsigned w = 0; w < APU_LINE; w += 4)
		if (mask >> w & 0xfull) {
			uint32_t v;

			memcpy(&v, data + w, 4);
			cohcheck_write(d->check, line + w, 4, v);
		}
}

/* DMAData or DMAAck, naming the DMA request's bytes. */
static struct mem_msg *dma_msg(struct apu_dir *d, struct tbe *t, enum apu_msg_type type)
{
	struct mem_msg *m = msg(d, type, t->line, t->req, t->req);
	struct apu_ext *e;

	if (!m)
		return NULL;
	e = apu_ext_of(d->msgs, m);
	e->offset = t->rq.offset;
	e->len = t->rq.len;
	e->seq = t->rq.seq;
	return m;
}

/* A read's answer: SysResp (RdBlk, RdBlkS, RdBlkM) or DMAData; -1 out of memory. */
static int respond(struct apu_dir *d, struct tbe *t, const uint8_t *line)
{
	struct mem_msg *m;
	struct apu_ext *e;

	if (t->kind == APU_DMARD) {
		m = dma_msg(d, t, APU_DMADATA);
		if (!m)
			return -1;
		memcpy(m->p.data, line, APU_LINE);
		apu_port_send(d->port, m, d->cfg.response_cycles);
		t->responded = true;
		return 0;
	}
	m = msg(d, APU_SYSRESP, t->line, t->req, t->req);
	if (!m)
		return -1;
	e = apu_ext_of(d->msgs, m);
	e->grant = d->pf		   ? pf_update(d, t)
		   : t->kind == APU_RDBLKM ? APU_GRANT_M
		   : t->kind == APU_RDBLKS ? APU_GRANT_S
		   : t->cached		   ? APU_GRANT_S
					   : APU_GRANT_E;
	e->dirty = t->kind == APU_RDBLKS ? false : t->dirty;
	e->llc_hit = t->llc_hit;
	e->cu = t->rq.cu;
	e->glc = t->rq.glc;
	e->slc = t->rq.slc;
	memcpy(m->p.data, line, APU_LINE);
	apu_port_send(d->port, m, d->cfg.response_cycles);
	t->responded = true;
	return 0;
}

static void complete(struct apu_dir *d, struct tbe *t)
{
	uint8_t line[APU_LINE];
	struct mem_msg *m;
	struct apu_ext *e;

	memcpy(line, t->data, APU_LINE);
	merge_own(t, line);
	switch (t->kind) {
	case APU_RDBLK:
	case APU_RDBLKS:
	case APU_RDBLKM:
		if (!t->responded && respond(d, t, line))
			return;
		if (d->cfg.read_writeback && !t->dirty)
			mem_write(d, t->line, line, W_READ_WB);
		keep_dirty(d, t, line);
		if (t->unblocked) /* answered early, and the Unblock came before the last ack */
			to_u(d, t);
		else
			t->phase = PH_B;
		return;
	case APU_WT:
		if (t->wback_owed)
			wt_wback(d, t);
		check_words(d, t->line, line, t->rq.mask);
		mem_write(d, t->line, line, W_WT);
		if (d->llc_cfg.use_on_wt)
			llc_alloc(d, t->line, line, W_WT, false);
		break;
	case APU_ATOMIC: {
		uint64_t old;

		if (t->rq.offset + t->rq.width > APU_LINE ||
		    (t->rq.width != 4 && t->rq.width != 8)) {
			proto_error(d, t, t->line, "Atomic with a bad offset or width", t->req);
			return;
		}
		old = mem_atomic_apply(line + t->rq.offset, t->rq.width, t->rq.op, t->rq.operand,
				       t->rq.operand2);
		check_words(d, t->line, line,
			    (t->rq.width == 8 ? 0xffull : 0xfull) << (t->rq.offset & ~3u));
		m = msg(d, APU_SYSRESP, t->line, t->req, t->req);
		if (!m)
			return;
		e = apu_ext_of(d->msgs, m);
		e->grant = APU_GRANT_M;
		e->old = old;
		e->cu = t->rq.cu;
		e->seq = t->rq.seq;
		e->slc = t->rq.slc;
		e->glc = t->rq.glc;
		e->offset = t->rq.offset;
		e->width = t->rq.width;
		memcpy(m->p.data, t->data, APU_LINE); /* the line before the op */
		apu_port_send(d->port, m, d->cfg.response_cycles);
		mem_write(d, t->line, line, W_ATOMIC);
		if (d->llc_cfg.use_on_wt)
			llc_alloc(d, t->line, line, W_ATOMIC, false);
		break;
	}
	case APU_FLUSH:
		check_words(d, t->line, line, t->rq.mask);
		m = msg(d, APU_WBACK, t->line, t->req, t->req);
		if (!m)
			return;
		e = apu_ext_of(d->msgs, m);
		e->cu = t->rq.cu;
		e->seq = t->rq.seq;
		apu_port_send(d->port, m, d->cfg.response_cycles);
		mem_write(d, t->line, line, W_FLUSH);
		if (d->llc_cfg.use_on_wt)
			llc_alloc(d, t->line, line, W_FLUSH, false);
		break;
	case APU_DMARD: /* DMA ends at the response: no unblock */
		if (!t->responded && respond(d, t, line))
			return;
		keep_dirty(d, t, line);
		to_u(d, t);
		return;
	case APU_DMAWR:
		m = dma_msg(d, t, APU_DMAACK);
		if (!m)
			return;
		check_words(d, t->line, line, t->rq.mask);
		mem_write(d, t->line, line, W_DMA);
		apu_port_send(d->port, m, d->cfg.response_cycles);
		to_u(d, t);
		return;
	default:
		proto_error(d, t, t->line, "completion of a non-transaction", t->req);
		return;
	}
	if (d->pf)
		(void)pf_update(d, t);
	/* WT, Atomic, Flush unblock themselves (paper fn 3) */
	t->phase = PH_B;
	apu_port_trigger(d->port, 1, self_unblock_trigger, t);
}

static void on_data(struct apu_dir *d, struct tbe *t, const uint8_t *data)
{
	if (t->data_in) {
		proto_error(d, t, t->line, "second MemData/LlcData", d->nodes.ep);
		return;
	}
	t->data_in = true;
	if (!t->dirty) /* dirty probe data wins */
		memcpy(t->data, data, APU_LINE);
	if (t->phase == PH_PM)
		t->phase = PH_Pm;
	else if (t->phase == PH_M)
		complete(d, t);
	else
		proto_error(d, t, t->line, "MemData", d->nodes.ep);
}

static void llc_data_trigger(void *owner, void *arg)
{
	struct apu_dir *d = owner;
	struct tbe *t = arg;

	if (t->phase != PH_PM && t->phase != PH_M) {
		proto_error(d, t, t->line, "LlcData", d->nodes.ep);
		return;
	}
	on_data(d, t, t->llc_buf);
}

static void acks_done_trigger(void *owner, void *arg)
{
	struct apu_dir *d = owner;
	struct tbe *t = arg;

	t->acks_done = true;
	if (t->phase == PH_BP) {
		pf_evict_done(d, t);
		return;
	}
	if (t->deferred && t->phase == PH_PM) {
		/* state O: the owner's dirty data answers; without it the LLC is read now */
		t->deferred = false;
		if (t->dirty) {
			if (writes_line(t->kind))
				llc_drop(d, t->line);
			t->data_in = true;
			complete(d, t);
		} else {
			t->phase = PH_M;
			lookup(d, t);
		}
		return;
	}
	if (t->phase == PH_PM)
		t->phase = PH_M;
	else if (t->phase == PH_Pm)
		complete(d, t);
	else
		proto_error(d, t, t->line, "AcksDone", d->nodes.ep);
}

/* ---- the input ------------------------------------------------------------------------------- */

static enum apu_recv on_request(struct apu_dir *d, struct mem_msg *m);

static void lt_rerequest(void *owner, void *arg)
{
	struct apu_dir *d = owner;

	if (on_request(d, arg) == APU_STALL) /* no TBE: wait for one like any request */
		apu_port_lt_stall(d->port, arg);
}

static enum apu_recv on_request(struct apu_dir *d, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	struct apu_ext *e = apu_ext_of(d->msgs, m);
	struct tbe *t = tbe_find(d, line);
	struct mem_msg *r;
	bool wait;

	if (t && !t->lt && apu_lt_on(apu_port_lt(d->port))) {
		/* the sampler switches faces with the memory side drained: a transaction of the
		 * detailed face still open here would be overtaken, not waited for */
		proto_error(d, t, line,
			    "request of an LT run (the line's transaction is the detailed face's)",
			    m->src);
		tlm_payload_release(&m->p);
		return APU_TAKE;
	}
	if (!t && apu_lt_on(apu_port_lt(d->port))) {
		const struct lt_busy *b = &d->lt_busy[hash_of(d, line) & (LT_BUSY_SLOTS - 1)];
		sim_time_t now = apu_port_now(d->port);

		if (b->line == line && b->until > now) {
			/* an LT run that started earlier held the line until then */
			(*d->st.parked)++;
			cs_stat_avg_sample(d->st.parked_wait, (double)(b->until - now) / SIM_NS);
			apu_port_call(d->port, b->until - now, lt_rerequest, m);
			return APU_TAKE;
		}
	}
	if (t) { /* not in U: stall-and-wait on the line */
		(*d->st.parked)++;
		apu_port_park(d->port, m);
		return APU_TAKE;
	}
	t = tbe_alloc(d, line);
	if (!t)
		return APU_STALL; /* no TBE: back-pressure on REQ (kicked when one frees) */
	t->kind = m->type;
	t->req = m->src;
	if (pf_reserve(d, t, &wait)) {
		tbe_free(d, t); /* no directory way or TBE for its eviction: stall as above */
		return APU_STALL;
	}
	if (e)
		t->rq = *e;
	t->rq.next_free = NULL;
	t->rq.home = NULL;
	(*d->st.txn[m->type])++;
	d->served++;
	switch (m->type) {
	case APU_VICDIRTY:
	case APU_VICCLEAN:
		t->phase = PH_BL;
		r = msg(d, APU_WBACK, line, t->req, t->req);
		if (r)
			apu_port_send(d->port, r, d->cfg.wback_cycles);
		tlm_payload_release(&m->p);
		return APU_TAKE;
	case APU_WT:
		if (!d->pf) /* the baseline acks a WT at once (docs/apu.md 4.5) */
			wt_wback(d, t);
		memcpy(t->own, m->p.data, APU_LINE);
		break;
	case APU_FLUSH:
		memcpy(t->own, m->p.data, APU_LINE);
		break;
	case APU_DMAWR:
		if (t->rq.offset + t->rq.len > APU_LINE) {
			proto_error(d, NULL, line, "DMAWr beyond the line", m->src);
			tlm_payload_release(&m->p);
			return APU_TAKE;
		}
		t->rq.mask = 0;
		for (unsigned i = t->rq.offset; i < (unsigned)t->rq.offset + t->rq.len; i++)
			t->rq.mask |= 1ull << i;
		memcpy(t->own, m->p.data, APU_LINE);
		break;
	default: /* RdBlk, RdBlkS, RdBlkM, Atomic, DMARd: no bytes of their own */
		t->rq.mask = 0;
		break;
	}
	if (wait)
		t->phase = PH_W; /* start() when the evicted way is free */
	else
		start(d, t);
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static void on_ack(struct apu_dir *d, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	struct tbe *t = tbe_find(d, line);
	struct apu_ext *e = apu_ext_of(d->msgs, m);

	if (!t || (t->phase != PH_PM && t->phase != PH_Pm && t->phase != PH_BP) ||
	    !t->pending_acks) {
		proto_error(d, t, line, "PrbAck", m->src);
		return;
	}
	(*d->st.acks)++;
	if (e->dirty) {
		(*d->st.acks_data)++;
		if (t->dirty) {
			proto_error(d, t, line, "a second PrbAck with dirty data", m->src);
			return;
		}
		t->dirty = true;
		memcpy(t->data, m->p.data, APU_LINE);
	}
	if (e->hit)
		t->cached = true;
	if (e->dirty && d->cfg.early_response && !t->responded && !t->deferred &&
	    (t->kind == APU_RDBLK || t->kind == APU_RDBLKS || t->kind == APU_DMARD)) {
		/* A: the owner's data answers at once; the line stays busy until every ack and
		 * the LLC or DRAM data are in (and the requester's Unblock) */
		(*d->st.early)++;
		if (respond(d, t, t->data))
			return;
	}
	if (!--t->pending_acks)
		apu_port_trigger(d->port, 1, acks_done_trigger, t);
}

/* Where a victim's data goes: DRAM and the LLC (the baseline), the LLC only for clean ones
 * (B), nowhere for clean ones (B.1); a write-back LLC (C) keeps every victim out of DRAM. */
static void victim_write(struct apu_dir *d, uint64_t line, const uint8_t *data, bool clean,
			 enum wcause why)
{
	unsigned to = clean ? d->cfg.clean_victims : APU_CLEAN_VIC_MEMORY;

	if (to == APU_CLEAN_VIC_MEMORY && !d->llc_cfg.write_back)
		mem_write(d, line, data, why);
	if (to != APU_CLEAN_VIC_NONE)
		llc_alloc(d, line, data, why, !clean);
}

static void on_victim_data(struct apu_dir *d, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	struct tbe *t = tbe_find(d, line);

	if (!t || t->phase != PH_BL || t->req != m->src) {
		proto_error(d, t, line, apu_msg_info[m->type].name, m->src);
		return;
	}
	if (m->type == APU_VICDATA) {
		bool clean = t->kind != APU_VICDIRTY;

		(*(clean ? d->st.vic_clean : d->st.vic_dirty))++;
		victim_write(d, line, m->p.data, clean, W_VICTIM);
	} else {
		(*d->st.vic_stale)++;
	}
	if (d->pf)
		pf_victim(d, t, m->type != APU_VICDATA);
	to_u(d, t);
}

static void on_unblock(struct apu_dir *d, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	struct tbe *t = tbe_find(d, line);

	if (t && t->responded && t->req == m->src && t->kind != APU_DMARD &&
	    (t->phase == PH_PM || t->phase == PH_Pm || t->phase == PH_M)) {
		t->unblocked = true; /* answered early: the line ends when the rest is in */
		return;
	}
	if (!t || t->phase != PH_B || t->req != m->src ||
	    (t->kind != APU_RDBLK && t->kind != APU_RDBLKS && t->kind != APU_RDBLKM)) {
		proto_error(d, t, line, "Unblock", m->src);
		return;
	}
	to_u(d, t);
}

static enum apu_recv dir_recv(void *owner, struct mem_msg *m)
{
	struct apu_dir *d = owner;

	switch (m->type) {
	case APU_RDBLK:
	case APU_RDBLKS:
	case APU_RDBLKM:
	case APU_VICDIRTY:
	case APU_VICCLEAN:
	case APU_WT:
	case APU_ATOMIC:
	case APU_FLUSH:
	case APU_DMARD:
	case APU_DMAWR:
		return on_request(d, m);
	case APU_PRBACK:
		on_ack(d, m);
		break;
	case APU_VICDATA:
	case APU_STALENOTIF:
		on_victim_data(d, m);
		break;
	case APU_UNBLOCK:
		on_unblock(d, m);
		break;
	default:
		proto_error(d, tbe_find(d, apu_line_of(m->p.addr)), apu_line_of(m->p.addr),
			    m->type < APU_MSG_TYPES ? apu_msg_info[m->type].name : "unknown type",
			    m->src);
		break;
	}
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops dir_port_ops = {.recv = dir_recv};

/* ---- life ------------------------------------------------------------------------------------ */

static void stats_init(struct apu_dir *d, struct cs_stat_group *g)
{
	struct dir_stats *s = &d->st;
	struct cs_stat_group *tx = cs_stat_group(g, "txn"), *pr = cs_stat_group(g, "probes");
	struct cs_stat_group *lw = cs_stat_group(g, "llc_writes");
	struct cs_stat_group *dr = cs_stat_group(g, "dram");
	struct cs_stat_group *dw = cs_stat_group(dr, "writes");
	static const unsigned req_types[] = {APU_RDBLK,	   APU_RDBLKS, APU_RDBLKM, APU_VICDIRTY,
					     APU_VICCLEAN, APU_WT,     APU_ATOMIC, APU_FLUSH,
					     APU_DMARD,	   APU_DMAWR};

	for (unsigned i = 0; i < APU_MSG_TYPES; i++)
		s->txn[i] = s->probes_by[i] = &d->sink; /* never counted: not directory requests */
	for (unsigned i = 0; i < sizeof(req_types) / sizeof(req_types[0]); i++) {
		unsigned t = req_types[i];

		s->txn[t] = cs_stat_counter(tx, apu_msg_info[t].name, "", "transactions started");
		if (t != APU_VICDIRTY && t != APU_VICCLEAN)
			s->probes_by[t] = cs_stat_counter(pr, apu_msg_info[t].name, "",
							  "probes sent for this request type");
	}
	s->probes_dg = cs_stat_counter(pr, "downgrade", "", "PrbDowngrade sent");
	s->probes_inv = cs_stat_counter(pr, "inv", "", "PrbInv sent");
	s->acks = cs_stat_counter(g, "probe_acks", "", "probe acks received");
	s->acks_data = cs_stat_counter(g, "probe_acks_data", "", "probe acks with dirty data");
	s->parked = cs_stat_counter(g, "parked", "", "requests that waited for a busy line");
	s->parked_wait = cs_stat_average(g, "parked_wait", "ns", "time a parked request waited");
	s->vic_clean = cs_stat_counter(g, "vic_clean", "", "VicClean victims written");
	s->vic_dirty = cs_stat_counter(g, "vic_dirty", "", "VicDirty victims written");
	s->vic_stale = cs_stat_counter(g, "vic_stale", "", "victims ended by StaleNotif");
	s->llc_hits = cs_stat_counter(g, "llc_hits", "", "demand lookups that hit the LLC");
	s->llc_misses = cs_stat_counter(g, "llc_misses", "", "demand lookups that missed");
	s->llc_evictions = cs_stat_counter(g, "llc_evictions", "", "LLC lines evicted");
	s->dram_reads = cs_stat_counter(dr, "reads", "", "DRAM line reads");
	for (unsigned i = 0; i < W_CAUSES; i++) {
		/* a kept dirty line is an LLC write only */
		s->dram_writes[i] = i == W_DIRTY_KEPT ? &d->sink
						      : cs_stat_counter(dw, apu_dir_write_causes[i],
									"", "DRAM line writes");
		s->llc_writes[i] = &d->sink;
	}
	for (unsigned i = W_VICTIM; i <= W_FLUSH; i++)
		s->llc_writes[i] =
		    cs_stat_counter(lw, apu_dir_write_causes[i], "", "LLC line writes");
	s->llc_writes[W_DIRTY_KEPT] =
	    cs_stat_counter(lw, apu_dir_write_causes[W_DIRTY_KEPT], "",
			    "write-back LLC: dirty lines a read hit took out and put back");
	s->probes_backinv = cs_stat_counter(pr, "backinv", "",
					    "PrbInv sent for directory cache evictions (tracking)");
	s->early = cs_stat_counter(g, "early_responses", "",
				   "reads answered at the first dirty probe ack (enhancement A)");
	if (d->pf) {
		struct cs_stat_group *pg = cs_stat_group(g, "pf");
		struct cs_stat_group *fg = cs_stat_group(pg, "found");

		for (unsigned i = PF_I; i <= PF_O; i++)
			s->pf_found[i] = cs_stat_counter(fg, pf_state_names[i], "",
							 "requests that found the line in this "
							 "directory state");
		s->pf_evictions = cs_stat_counter(
		    pg, "evictions", "", "directory cache entries evicted (back-invalidated)");
		s->pf_evict_stalls = cs_stat_counter(
		    pg, "stalls", "", "requests stalled: every way of the set in a transaction");
		s->llc_writes[W_BACKINV] = cs_stat_counter(lw, apu_dir_write_causes[W_BACKINV], "",
							   "dirty data of back-invalidations");
	} else {
		for (unsigned i = 0; i < PF_STATES; i++)
			s->pf_found[i] = &d->sink;
		s->pf_evictions = s->pf_evict_stalls = &d->sink;
	}
	s->pf_found[PF_NEW] = &d->sink;
}

int apu_dir_create(struct sim_kernel *k, const struct apu_dir_cfg *cfg,
		   const struct apu_llc_cfg *llc, const struct apu_dir_nodes *nodes,
		   struct apu_msgs *msgs, const struct addr_map *map, unsigned n_chan,
		   struct cs_stat_group *stats, struct apu_dir **out, struct cs_err *err)
{
	struct apu_dir *d;
	struct apu_port_cfg pc;
	struct cache_geom g;
	unsigned hs = 1;
	int rc;

	if (!k || !cfg || !llc || !nodes || !msgs || !map || !n_chan || !stats || !out ||
	    (nodes->n_cp && !nodes->cp) || (nodes->n_tcc && !nodes->tcc))
		return cs_err_set(err, -CS_EINVAL, "apu_dir_create: bad arguments");
	if (!cfg->tbes || !cfg->transitions_per_cycle || !cfg->in_depth || !cfg->clock_mhz)
		return cs_err_set(err, -CS_ECONFIG,
				  "dir.tbes, dir.transitions_per_cycle, dir.in_depth and "
				  "dir.clock_mhz must be at least 1");
	if (llc->write_back && !llc->use_on_wt)
		return cs_err_set(err, -CS_ECONFIG, APU_LLC_WB_NEEDS_WT);
	if (nodes->n_cp + nodes->n_tcc > APU_DIR_MAX_PROBED)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "the directory probes at most %d CorePairs and TCC slices (%u + %u)",
		    APU_DIR_MAX_PROBED, nodes->n_cp, nodes->n_tcc);
	d = calloc(1, sizeof(*d));
	if (!d)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	d->k = k;
	d->cfg = *cfg;
	d->llc_cfg = *llc;
	d->nodes = *nodes;
	d->msgs = msgs;
	d->pool = apu_msgs_pool(msgs);
	d->map = map;
	d->n_chan = n_chan;
	rc = -CS_ENOMEM;
	d->cp = calloc(nodes->n_cp + 1, sizeof(*d->cp));
	d->tcc = calloc(nodes->n_tcc + 1, sizeof(*d->tcc));
	d->tbe = calloc(cfg->tbes, sizeof(*d->tbe));
	while (hs < 2 * cfg->tbes)
		hs <<= 1;
	d->hash = malloc(hs * sizeof(*d->hash));
	d->hash_mask = hs - 1;
	d->chan = calloc(n_chan, sizeof(*d->chan));
	d->lt_busy = calloc(LT_BUSY_SLOTS, sizeof(*d->lt_busy));
	if (!d->cp || !d->tcc || !d->tbe || !d->hash || !d->chan || !d->lt_busy)
		goto fail;
	memcpy(d->cp, nodes->cp, nodes->n_cp * sizeof(*d->cp));
	if (nodes->n_tcc)
		memcpy(d->tcc, nodes->tcc, nodes->n_tcc * sizeof(*d->tcc));
	d->nodes.cp = d->cp;
	d->nodes.tcc = d->tcc;
	d->n_ep = nodes->ep + 1;
	for (unsigned i = 0; i < nodes->n_cp; i++)
		d->n_ep = nodes->cp[i] >= d->n_ep ? nodes->cp[i] + 1 : d->n_ep;
	for (unsigned i = 0; i < nodes->n_tcc; i++)
		d->n_ep = nodes->tcc[i] >= d->n_ep ? nodes->tcc[i] + 1 : d->n_ep;
	d->holder_of_ep = malloc(d->n_ep * sizeof(*d->holder_of_ep));
	if (!d->holder_of_ep)
		goto fail;
	for (unsigned i = 0; i < d->n_ep; i++)
		d->holder_of_ep[i] = -1;
	for (unsigned i = 0; i < nodes->n_cp; i++)
		d->holder_of_ep[nodes->cp[i]] = (int16_t)i;
	for (unsigned i = 0; i < nodes->n_tcc; i++)
		d->holder_of_ep[nodes->tcc[i]] = (int16_t)(nodes->n_cp + i);
	for (unsigned i = 0; i < hs; i++)
		d->hash[i] = -1;
	for (unsigned i = 0; i < cfg->tbes; i++)
		d->tbe[i].next = i + 1 < cfg->tbes ? (int)i + 1 : -1;
	d->free_tbe = 0;
	for (unsigned c = 0; c < n_chan; c++) {
		struct dram_chan *ch = &d->chan[c];

		ch->d = d;
		ch->ch = c;
		snprintf(ch->name, sizeof(ch->name), "dir.dram%u", c);
		tlm_initiator_init(&ch->s, ch->name, &dram_bw_ops, ch);
		if (msgq_init(&ch->q, 16))
			goto fail;
	}
	g = (struct cache_geom){.size_bytes = llc->size_kib * 1024,
				.assoc = (unsigned)llc->assoc,
				.line_bytes = APU_LINE,
				.sector_bytes = 0,
				.repl = CACHE_REPL_PLRU};
	rc = cache_create(&g, &d->llc);
	if (rc) {
		rc = cs_err_set(err, rc == -CS_ENOMEM ? rc : -CS_ECONFIG,
				"llc.size_kib / llc.assoc: %" PRIu64 " KiB in %" PRIu64
				" ways of 64 B lines is not a power-of-two number of sets "
				"(tree-PLRU needs a power-of-two assoc)",
				llc->size_kib, llc->assoc);
		goto fail;
	}
	if (cfg->tracking != APU_TRACK_NONE) {
		g = (struct cache_geom){.size_bytes = cfg->entries * APU_LINE,
					.assoc = (unsigned)cfg->entry_assoc,
					.line_bytes = APU_LINE,
					.repl = CACHE_REPL_PLRU,
					.tags_only = true};
		rc = cache_create(&g, &d->pf);
		if (rc) {
			rc = cs_err_set(
			    err, rc == -CS_ENOMEM ? rc : -CS_ECONFIG,
			    "dir.entries / dir.entry_assoc: %" PRIu64 " entries in %" PRIu64
			    " ways is not a power-of-two number of sets (tree-PLRU needs "
			    "a power-of-two assoc)",
			    cfg->entries, cfg->entry_assoc);
			goto fail;
		}
	}
	pc = (struct apu_port_cfg){.name = "dir",
				   .ep = nodes->ep,
				   .clock_mhz = cfg->clock_mhz,
				   .in_depth = (unsigned)cfg->in_depth,
				   .per_cycle = (unsigned)cfg->transitions_per_cycle};
	rc = apu_port_create(k, &pc, &dir_port_ops, d, &d->port);
	if (rc) {
		rc = cs_err_set(err, rc, "dir: cannot create the network port");
		goto fail;
	}
	stats_init(d, stats);
	*out = d;
	return 0;
fail:
	if (rc == -CS_ENOMEM)
		cs_err_set(err, rc, "out of memory");
	apu_dir_destroy(d);
	return rc;
}

/* The stats contract (docs/energy.md, "APU"): a transaction and a probe ack each look up or
 * allocate a TBE; a tracking directory reads and updates an entry per transaction; demand
 * look-ups and line writes probe the LLC's tags, a hit reads its data, a write writes it. */
void apu_dir_energy(const struct apu_dir *d, struct energy_counts *out)
{
	const struct dir_stats *s = &d->st;
	double txn = 0, llc_w = 0;

	for (unsigned t = 0; t < APU_MSG_TYPES; t++)
		if (s->txn[t] != &d->sink)
			txn += (double)*s->txn[t];
	for (unsigned i = 0; i < W_CAUSES; i++)
		if (s->llc_writes[i] != &d->sink)
			llc_w += (double)*s->llc_writes[i];
	energy_add(out, EN_DIR_TBE, txn + (double)*s->acks);
	energy_add(out, EN_DIR_ENTRY, d->pf ? 2 * txn : 0);
	energy_add(out, EN_LLC_TAG, (double)*s->llc_hits + (double)*s->llc_misses + llc_w);
	energy_add(out, EN_LLC_READ, (double)*s->llc_hits);
	energy_add(out, EN_LLC_WRITE, llc_w);
	out->inst[EN_DIR] += 1;
	out->inst[EN_LLC] += 1;
}

void apu_dir_destroy(struct apu_dir *d)
{
	if (!d)
		return;
	apu_port_destroy(d->port);
	if (d->chan)
		for (unsigned c = 0; c < d->n_chan; c++) {
			if (d->chan[c].pump_pending)
				sim_cancel(d->k, d->chan[c].h);
			if (d->chan[c].q.s)
				msgq_release_all(&d->chan[c].q);
			msgq_free(&d->chan[c].q);
		}
	cache_destroy(d->llc);
	cache_destroy(d->pf);
	free(d->holder_of_ep);
	free(d->chan);
	free(d->lt_busy);
	free(d->hash);
	free(d->tbe);
	free(d->cp);
	free(d->tcc);
	free(d);
}

struct apu_port *apu_dir_port(struct apu_dir *d)
{
	return d->port;
}

struct tlm_initiator_socket *apu_dir_dram_port(struct apu_dir *d, unsigned ch)
{
	return ch < d->n_chan ? &d->chan[ch].s : NULL;
}

unsigned apu_dir_busy(const struct apu_dir *d)
{
	return d->tbes_used + apu_port_parked(d->port) + d->dram_out;
}

uint64_t apu_dir_served(const struct apu_dir *d)
{
	return d->served;
}

double apu_dir_served_ps(const struct apu_dir *d)
{
	/* transitions_per_cycle messages per edge: a transaction's start takes its share */
	return 1e6 / (double)d->cfg.clock_mhz / (double)d->cfg.transitions_per_cycle;
}

void apu_dir_set_check(struct apu_dir *d, struct cohcheck *c)
{
	d->check = c;
}

void apu_dir_llc_poke(struct apu_dir *d, uint64_t addr, const void *buf, size_t len)
{
	struct cache_line *l = cache_lookup(d->llc, apu_line_of(addr));

	if (l)
		memcpy(l->data + (addr - apu_line_of(addr)), buf, len);
}

bool apu_dir_llc_peek(const struct apu_dir *d, uint64_t line, void *data)
{
	struct cache_line *l = cache_lookup(d->llc, apu_line_of(line));

	if (l && data)
		memcpy(data, l->data, APU_LINE);
	return l != NULL;
}
