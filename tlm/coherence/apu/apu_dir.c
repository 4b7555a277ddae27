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

/* Phases of an open transaction; the kind (request type) gives the prefix of gem5's names. */
enum phase { PH_PM = 1, PH_Pm, PH_M, PH_B, PH_BL };

enum wcause {
	W_VICTIM = 0,
	W_WT,
	W_ATOMIC,
	W_FLUSH,
	W_DMA,
	W_LLC_EVICT,
	W_READ_WB,
	W_DIRTY_KEPT, /* write-back LLC: a dirty line a read hit goes back in */
	W_CAUSES
};
static const char *const wcause_names[W_CAUSES] = {
    "victim", "wt", "atomic", "flush", "dma", "llc_evict", "read_writeback", "dirty_kept"};

struct tbe {
	uint64_t line;
	int next; /* hash chain / free list */
	uint8_t phase;
	uint8_t kind; /* enum apu_msg_type of the request */
	uint16_t req; /* requester endpoint */
	unsigned pending_acks;
	bool acks_done, data_in, dirty, cached, llc_hit, probe_tcc;
	bool llc_dirty;	   /* write-back LLC: the hit took a dirty line, which must not be lost */
	bool lt;	   /* opened in an LT run */
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

	struct tbe *tbe;
	int free_tbe;
	unsigned tbes_used;
	int *hash;
	unsigned hash_mask;

	unsigned n_chan;
	struct dram_chan *chan;
	unsigned dram_out;

	struct dir_stats st;
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

/* Probes by the rules of docs/apu.md §7: every CorePair but the requester; the home TCC slice
 * for invalidations other than WT, Atomic and Flush (and never the requester). */
static void probe(struct apu_dir *d, struct tbe *t, bool inv)
{
	enum apu_msg_type pt = inv ? APU_PRBINV : APU_PRBDOWNGRADE;
	unsigned n = 0;

	for (unsigned i = 0; i < d->nodes.n_cp; i++) {
		struct mem_msg *m;

		if (d->cp[i] == t->req)
			continue;
		m = msg(d, pt, t->line, d->cp[i], t->req);
		if (!m)
			return;
		apu_port_send(d->port, m, d->cfg.response_cycles);
		n++;
	}
	if (inv && d->nodes.n_tcc && t->kind != APU_WT && t->kind != APU_ATOMIC &&
	    t->kind != APU_FLUSH) {
		unsigned home = d->tcc[(t->line >> 6) % d->nodes.n_tcc];

		if (home != t->req) {
			struct mem_msg *m = msg(d, pt, t->line, home, t->req);

			if (!m)
				return;
			apu_port_send(d->port, m, d->cfg.response_cycles);
			n++;
		}
	}
	*(inv ? d->st.probes_inv : d->st.probes_dg) += n;
	*d->st.probes_by[t->kind] += n;
	t->pending_acks = n;
	if (!n)
		apu_port_trigger(d->port, 1, acks_done_trigger, t);
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
		m = msg(d, APU_SYSRESP, t->line, t->req, t->req);
		if (!m)
			return;
		e = apu_ext_of(d->msgs, m);
		e->grant = t->kind == APU_RDBLKM   ? APU_GRANT_M
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
		if (d->cfg.read_writeback && !t->dirty)
			mem_write(d, t->line, line, W_READ_WB);
		keep_dirty(d, t, line);
		t->phase = PH_B;
		return;
	case APU_WT:
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
	case APU_DMARD:
	case APU_DMAWR: /* DMA ends at the response: no unblock */
		m = msg(d, t->kind == APU_DMARD ? APU_DMADATA : APU_DMAACK, t->line, t->req,
			t->req);
		if (!m)
			return;
		e = apu_ext_of(d->msgs, m);
		e->offset = t->rq.offset;
		e->len = t->rq.len;
		e->seq = t->rq.seq;
		if (t->kind == APU_DMARD) {
			memcpy(m->p.data, line, APU_LINE);
			keep_dirty(d, t, line);
		} else {
			check_words(d, t->line, line, t->rq.mask);
			mem_write(d, t->line, line, W_DMA);
		}
		apu_port_send(d->port, m, d->cfg.response_cycles);
		to_u(d, t);
		return;
	default:
		proto_error(d, t, t->line, "completion of a non-transaction", t->req);
		return;
	}
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
	if (e)
		t->rq = *e;
	t->rq.next_free = NULL;
	t->rq.home = NULL;
	(*d->st.txn[m->type])++;
	switch (m->type) {
	case APU_VICDIRTY:
	case APU_VICCLEAN:
		t->phase = PH_BL;
		r = msg(d, APU_WBACK, line, t->req, t->req);
		if (r)
			apu_port_send(d->port, r, d->cfg.wback_cycles);
		break;
	case APU_WT:
		r = msg(d, APU_WBACK, line, t->req, t->req);
		if (r) {
			struct apu_ext *re = apu_ext_of(d->msgs, r);

			re->cu = t->rq.cu;
			re->seq = t->rq.seq;
			apu_port_send(d->port, r, d->cfg.wback_cycles);
		}
		memcpy(t->own, m->p.data, APU_LINE);
		t->phase = PH_PM;
		lookup(d, t);
		probe(d, t, true);
		break;
	case APU_FLUSH:
		memcpy(t->own, m->p.data, APU_LINE);
		/* fall through */
	case APU_RDBLKM:
	case APU_ATOMIC:
		if (m->type != APU_FLUSH)
			t->rq.mask = 0;
		t->phase = PH_PM;
		lookup(d, t);
		probe(d, t, true);
		break;
	case APU_DMAWR:
		if (t->rq.offset + t->rq.len > APU_LINE) {
			proto_error(d, NULL, line, "DMAWr beyond the line", m->src);
			break;
		}
		t->rq.mask = 0;
		for (unsigned i = t->rq.offset; i < (unsigned)t->rq.offset + t->rq.len; i++)
			t->rq.mask |= 1ull << i;
		memcpy(t->own, m->p.data, APU_LINE);
		t->phase = PH_PM;
		lookup(d, t);
		probe(d, t, true);
		break;
	case APU_RDBLK:
	case APU_RDBLKS:
	case APU_DMARD:
		t->rq.mask = 0;
		t->phase = PH_PM;
		lookup(d, t);
		probe(d, t, false);
		break;
	default:
		break;
	}
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static void on_ack(struct apu_dir *d, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	struct tbe *t = tbe_find(d, line);
	struct apu_ext *e = apu_ext_of(d->msgs, m);

	if (!t || (t->phase != PH_PM && t->phase != PH_Pm) || !t->pending_acks) {
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
	if (!--t->pending_acks)
		apu_port_trigger(d->port, 1, acks_done_trigger, t);
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
		unsigned to = clean ? d->cfg.clean_victims : APU_CLEAN_VIC_MEMORY;

		(*(clean ? d->st.vic_clean : d->st.vic_dirty))++;
		/* a write-back LLC (C) keeps every victim out of DRAM */
		if (to == APU_CLEAN_VIC_MEMORY && !d->llc_cfg.write_back)
			mem_write(d, line, m->p.data, W_VICTIM);
		if (to != APU_CLEAN_VIC_NONE)
			llc_alloc(d, line, m->p.data, W_VICTIM, !clean);
	} else {
		(*d->st.vic_stale)++;
	}
	to_u(d, t);
}

static void on_unblock(struct apu_dir *d, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	struct tbe *t = tbe_find(d, line);

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
	static uint64_t sink;

	for (unsigned i = 0; i < APU_MSG_TYPES; i++)
		s->txn[i] = s->probes_by[i] = &sink; /* never counted: not directory requests */
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
		s->dram_writes[i] = i == W_DIRTY_KEPT ? &sink
						      : cs_stat_counter(dw, wcause_names[i], "",
									"DRAM line writes");
		s->llc_writes[i] = &sink;
	}
	for (unsigned i = W_VICTIM; i <= W_FLUSH; i++)
		s->llc_writes[i] = cs_stat_counter(lw, wcause_names[i], "", "LLC line writes");
	s->llc_writes[W_DIRTY_KEPT] =
	    cs_stat_counter(lw, wcause_names[W_DIRTY_KEPT], "",
			    "write-back LLC: dirty lines a read hit took out and put back");
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
