/*
 * tests/unit/test_apu_dir_track.c - seed 002's enhanced directory (docs/apu.md §3.6): owner
 * tracking and sharer tracking in a directory cache inclusive of the caches, its evictions
 * (back-invalidations), the limited-pointer sharer list, illegal victims, and enhancement A
 * (early response), against scripted CorePair and TCC agents (tests/unit/apu_tb.h).
 *
 * What is checked is what seed 002 §IV and reference §6 state: reads in I or S send no probe;
 * reads in O send one, to the owner; writes in I send none; writes in S or O invalidate every
 * cache with owner tracking and only the holders with a sharer list; RdBlk in S is granted S and
 * served from the LLC or DRAM; in O the owner's dirty data answers without an LLC or DRAM read;
 * VicDirty in S is a protocol error; a full directory set evicts an entry by back-invalidating
 * its holders, and their dirty data reaches the LLC before the waiting request goes on.
 */
#include "apu_tb.h"

#define LINE_A 0x10000ull

static void owner_only(struct tb *tb)
{
	tb->dcfg.tracking = APU_TRACK_OWNER;
}

static void sharers(struct tb *tb)
{
	tb->dcfg.tracking = APU_TRACK_SHARERS;
}

/* A sharer list with gem5's rule that every invalidation reaches the TCC (dir.tcc_inv_always) */
static void sharers_tcc_always(struct tb *tb)
{
	tb->dcfg.tracking = APU_TRACK_SHARERS;
	tb->dcfg.tcc_inv_always = true;
}

/* One request from `agent` (P: the TCC) to addr, run to the end. */
static void req(struct tb *tb, unsigned agent, enum apu_msg_type t, uint64_t addr)
{
	struct mem_msg *m;
	struct apu_ext *e = tb_req(tb, agent, t, addr, &m);

	if (t == APU_ATOMIC) {
		e->op = MEM_ATOM_ADD;
		e->width = 4;
		e->operand = 1;
	}
	if (t == APU_WT || t == APU_FLUSH)
		e->mask = 0xff;
	tb_send(tb, agent, m);
	tb_run(tb);
}

static unsigned probes_at(const struct tb *tb, unsigned a)
{
	return tb_count(tb, a, APU_PRBDOWNGRADE) + tb_count(tb, a, APU_PRBINV);
}

/* Probes for one line that agents 0..n-1 received. */
static unsigned probes_for(const struct tb *tb, unsigned n, uint64_t line)
{
	unsigned k = 0;

	for (unsigned a = 0; a < n; a++)
		for (unsigned i = 0; i < tb->ag[a].n; i++)
			k += tb->ag[a].rec[i].addr == line &&
			     (tb->ag[a].rec[i].type == APU_PRBINV ||
			      tb->ag[a].rec[i].type == APU_PRBDOWNGRADE);
	return k;
}

/* ---- probe counts by directory state (reference §6, docs/apu.md §3.6) ---------------------- */

enum st { ST_I, ST_S, ST_O };
enum who { CP0, TCC, DMA };

static const struct track_case {
	enum apu_msg_type type;
	enum who who;
	enum st st;
	/* CorePair probes, and the TCC's (0/1), with owner tracking and with a sharer list */
	unsigned owner_cp, owner_tcc, sharer_cp, sharer_tcc;
} track_cases[] = {
    /* reads: none in I and S, the owner only in O */
    {APU_RDBLK, CP0, ST_I, 0, 0, 0, 0},
    {APU_RDBLK, CP0, ST_S, 0, 0, 0, 0},
    {APU_RDBLK, CP0, ST_O, 1, 0, 1, 0},
    {APU_RDBLKS, CP0, ST_I, 0, 0, 0, 0},
    {APU_RDBLKS, CP0, ST_S, 0, 0, 0, 0},
    {APU_RDBLKS, CP0, ST_O, 1, 0, 1, 0},
    {APU_RDBLK, TCC, ST_I, 0, 0, 0, 0},
    {APU_RDBLK, TCC, ST_S, 0, 0, 0, 0},
    {APU_RDBLK, TCC, ST_O, 1, 0, 1, 0},
    {APU_DMARD, DMA, ST_I, 0, 0, 0, 0},
    {APU_DMARD, DMA, ST_S, 0, 0, 0, 0},
    {APU_DMARD, DMA, ST_O, 1, 0, 1, 0},
    /* writes: none in I; in S (holders 1, 2) and O (owner 1) every cache with owner
     * tracking, the holders only with a sharer list */
    {APU_RDBLKM, CP0, ST_I, 0, 0, 0, 0},
    {APU_RDBLKM, CP0, ST_S, 3, 1, 2, 0},
    {APU_RDBLKM, CP0, ST_O, 3, 1, 1, 0},
    {APU_WT, TCC, ST_I, 0, 0, 0, 0},
    {APU_WT, TCC, ST_S, 4, 0, 2, 0},
    {APU_WT, TCC, ST_O, 4, 0, 1, 0},
    {APU_ATOMIC, TCC, ST_I, 0, 0, 0, 0},
    {APU_ATOMIC, TCC, ST_S, 4, 0, 2, 0},
    {APU_ATOMIC, TCC, ST_O, 4, 0, 1, 0},
    {APU_FLUSH, TCC, ST_I, 0, 0, 0, 0},
    {APU_FLUSH, TCC, ST_S, 4, 0, 2, 0},
    {APU_FLUSH, TCC, ST_O, 4, 0, 1, 0},
    {APU_DMAWR, DMA, ST_I, 0, 0, 0, 0},
    {APU_DMAWR, DMA, ST_S, 4, 1, 2, 0},
    {APU_DMAWR, DMA, ST_O, 4, 1, 1, 0},
};

#define N_TRACK_CASES (sizeof(track_cases) / sizeof(track_cases[0]))

/* Puts LINE_A in state st: S held by CorePairs 1 and 2 (RdBlkS each), O owned by CorePair 1
 * (RdBlk in I: granted E). */
static void set_state(struct tb *tb, enum st st)
{
	if (st == ST_S) {
		req(tb, 1, APU_RDBLKS, LINE_A);
		req(tb, 2, APU_RDBLKS, LINE_A);
		ck_assert_uint_eq(tb_last(tb, 1, APU_SYSRESP)->e.grant, APU_GRANT_S);
	} else if (st == ST_O) {
		req(tb, 1, APU_RDBLK, LINE_A);
		ck_assert_uint_eq(tb_last(tb, 1, APU_SYSRESP)->e.grant, APU_GRANT_E);
	}
	tb_clear(tb);
}

/* tcc_always (with a sharer list): every invalidation not sent by the TCC reaches it too,
 * whatever the state; the CorePairs' probes do not change. */
static void track_case_run(bool sharer_list, bool tcc_always, const struct track_case *c)
{
	const unsigned P = 4;
	struct tb tb;
	uint8_t buf[APU_LINE];
	unsigned cp = 0, want_cp = sharer_list ? c->sharer_cp : c->owner_cp;
	unsigned want_tcc = sharer_list ? c->sharer_tcc : c->owner_tcc;
	bool inv = c->type == APU_RDBLKM || c->type == APU_WT || c->type == APU_ATOMIC ||
		   c->type == APU_FLUSH || c->type == APU_DMAWR;
	uint64_t probes0, found;
	static const char *const found_stat[] = {"dir.pf.found.I", "dir.pf.found.S",
						 "dir.pf.found.O"};

	memset(buf, 0, sizeof(buf));
	if (tcc_always && inv && c->who != TCC)
		want_tcc = 1;
	tb_init(&tb, P, true, tcc_always ? sharers_tcc_always : sharer_list ? sharers : owner_only);
	set_state(&tb, c->st);
	probes0 = tb_stat(&tb, "dir.probes.inv") + tb_stat(&tb, "dir.probes.downgrade");
	found = tb_stat(&tb, found_stat[c->st]);
	if (c->who == DMA) {
		if (c->type == APU_DMARD)
			ck_assert_int_eq(apu_dma_read(tb.dma, LINE_A, buf, APU_LINE, NULL, NULL),
					 0);
		else
			ck_assert_int_eq(apu_dma_write(tb.dma, LINE_A, buf, APU_LINE, NULL, NULL),
					 0);
		tb_run(&tb);
	} else {
		req(&tb, c->who == TCC ? P : 0, c->type, LINE_A);
	}
	for (unsigned i = 0; i < P; i++)
		cp += probes_at(&tb, i);
	ck_assert_msg(cp == want_cp, "%s in %c: %u CorePair probes, want %u",
		      apu_msg_info[c->type].name, "ISO"[c->st], cp, want_cp);
	ck_assert_uint_eq(probes_at(&tb, P), want_tcc);
	if (c->who == CP0)
		ck_assert_uint_eq(probes_at(&tb, 0), 0); /* never the requester */
	ck_assert_uint_eq(tb_stat(&tb, "dir.probes.inv") + tb_stat(&tb, "dir.probes.downgrade") -
			      probes0,
			  want_cp + want_tcc);
	ck_assert_uint_eq(tb_stat(&tb, found_stat[c->st]), found + 1);
	if (c->st == ST_O &&
	    (c->type == APU_RDBLK || c->type == APU_RDBLKS || c->type == APU_DMARD))
		ck_assert_uint_eq(tb_count(&tb, 1, APU_PRBDOWNGRADE), 1); /* the owner */
	tb_fini(&tb);
}

START_TEST(test_owner_probe_counts)
{
	track_case_run(false, false, &track_cases[_i]);
}
END_TEST

START_TEST(test_sharer_probe_counts)
{
	track_case_run(true, false, &track_cases[_i]);
}
END_TEST

START_TEST(test_sharer_tcc_always_probe_counts)
{
	track_case_run(true, true, &track_cases[_i]);
}
END_TEST

/* ---- grants and where the data comes from --------------------------------------------------- */

/* RdBlk in S is granted S, from the LLC or DRAM; in O with a dirty owner, S with the owner's
 * data and no DRAM read; with a clean owner (E), S from DRAM. */
START_TEST(test_grants_and_data)
{
	struct tb tb;
	uint64_t reads;
	const struct tb_rec *r;

	tb_init(&tb, 4, true, sharers);
	set_state(&tb, ST_S);
	reads = tb_stat(&tb, "dir.dram.reads");
	req(&tb, 0, APU_RDBLK, LINE_A);
	ck_assert_uint_eq(tb_last(&tb, 0, APU_SYSRESP)->e.grant, APU_GRANT_S);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.reads"), reads + 1);
	tb_fini(&tb);

	tb_init(&tb, 4, true, sharers);
	set_state(&tb, ST_O);
	tb.ag[1].hit = tb.ag[1].dirty = true; /* the owner wrote its E line (silently M) */
	for (unsigned i = 0; i < APU_LINE; i++)
		tb.ag[1].data[i] = (uint8_t)(0xa0 + i);
	reads = tb_stat(&tb, "dir.dram.reads");
	req(&tb, 0, APU_RDBLK, LINE_A);
	r = tb_last(&tb, 0, APU_SYSRESP);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_S);
	ck_assert(r->e.dirty);
	ck_assert_mem_eq(r->data, tb.ag[1].data, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.reads"), reads); /* elided */
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_hits") + tb_stat(&tb, "dir.llc_misses"), 1);
	/* the owner kept its dirty line (M -> O): the next reader probes it again */
	tb_clear(&tb);
	req(&tb, 2, APU_RDBLK, LINE_A);
	ck_assert_uint_eq(tb_count(&tb, 1, APU_PRBDOWNGRADE), 1);
	tb_fini(&tb);

	tb_init(&tb, 4, true, sharers);
	set_state(&tb, ST_O);
	tb.ag[1].hit = true; /* still E: a clean ack */
	reads = tb_stat(&tb, "dir.dram.reads");
	req(&tb, 0, APU_RDBLK, LINE_A);
	ck_assert_uint_eq(tb_last(&tb, 0, APU_SYSRESP)->e.grant, APU_GRANT_S);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.reads"), reads + 1);
	/* now S (fn f): the next reader probes nobody, a writer invalidates both holders */
	tb_clear(&tb);
	req(&tb, 2, APU_RDBLK, LINE_A);
	ck_assert_uint_eq(probes_at(&tb, 1), 0);
	tb_clear(&tb);
	req(&tb, 3, APU_RDBLKM, LINE_A);
	ck_assert_uint_eq(probes_at(&tb, 0) + probes_at(&tb, 1) + probes_at(&tb, 2), 3);
	ck_assert_uint_eq(tb_count(&tb, 0, APU_PRBINV), 1);
	tb_fini(&tb);
}
END_TEST

/* ---- victims --------------------------------------------------------------------------------- */

/* The owner's VicDirty leaves S (dirty sharers remain) or I; VicClean of the E owner frees the
 * entry; sharers' victims shrink the list. */
START_TEST(test_victims_update)
{
	struct tb tb;

	tb_init(&tb, 4, true, sharers);
	set_state(&tb, ST_S); /* holders 1, 2 */
	req(&tb, 1, APU_VICCLEAN, LINE_A);
	tb_clear(&tb);
	req(&tb, 0, APU_RDBLKM, LINE_A); /* only 2 is left to invalidate */
	ck_assert_uint_eq(probes_at(&tb, 1) + probes_at(&tb, 2) + probes_at(&tb, 3), 1);
	ck_assert_uint_eq(tb_count(&tb, 2, APU_PRBINV), 1);
	/* 0 owns it (M): its VicDirty leaves no holder, so the next write probes nobody */
	req(&tb, 0, APU_VICDIRTY, LINE_A);
	tb_clear(&tb);
	req(&tb, 3, APU_RDBLKM, LINE_A);
	ck_assert_uint_eq(probes_at(&tb, 0) + probes_at(&tb, 1) + probes_at(&tb, 2), 0);
	tb_fini(&tb);

	/* owner tracking: the E owner's VicClean frees the entry: a write in I probes nobody */
	tb_init(&tb, 4, true, owner_only);
	set_state(&tb, ST_O);
	req(&tb, 1, APU_VICCLEAN, LINE_A);
	tb_clear(&tb);
	req(&tb, 0, APU_RDBLKM, LINE_A);
	ck_assert_uint_eq(
	    probes_at(&tb, 1) + probes_at(&tb, 2) + probes_at(&tb, 3) + probes_at(&tb, 4), 0);
	tb_fini(&tb);
}
END_TEST

/* Transitions Table I lacks are protocol errors naming the event and the line (§2.6). */
START_TEST(test_illegal_victims)
{
	struct tb tb;
	struct mem_msg *m;

	/* VicDirty in S */
	tb_init(&tb, 4, true, _i ? sharers : owner_only);
	set_state(&tb, ST_S);
	tb_req(&tb, 1, APU_VICDIRTY, LINE_A, &m);
	tb_send(&tb, 1, m);
	ck_assert_int_eq(sim_run(tb.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), "VicDirty in directory state S"));
	tb_fini(&tb);
	/* VicDirty from a cache that is not the owner */
	tb_init(&tb, 4, true, _i ? sharers : owner_only);
	set_state(&tb, ST_O);
	tb_req(&tb, 2, APU_VICDIRTY, LINE_A, &m);
	tb_send(&tb, 2, m);
	ck_assert_int_eq(sim_run(tb.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), "not the owner"));
	tb_fini(&tb);
	/* a victim's data for a line the directory does not track */
	tb_init(&tb, 4, true, _i ? sharers : owner_only);
	tb_req(&tb, 2, APU_VICCLEAN, LINE_A, &m);
	tb_send(&tb, 2, m);
	ck_assert_int_eq(sim_run(tb.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), "VicData in directory state I"));
	tb_fini(&tb);
}
END_TEST

/* ---- the directory cache's evictions --------------------------------------------------------- */

static void tiny_dir(struct tb *tb)
{
	tb->dcfg.tracking = APU_TRACK_SHARERS;
	tb->dcfg.entries = 4;
	tb->dcfg.entry_assoc = 2; /* 2 sets: lines 0x..00 and 0x..80 share set 0 */
}

static void tiny_dir_owner(struct tb *tb)
{
	tiny_dir(tb);
	tb->dcfg.tracking = APU_TRACK_OWNER;
}

/* A third line in a full set evicts the tree-PLRU entry: PrbInv to its holders only (sharer
 * list) or to every cache (owner tracking), the dirty data to the LLC, and the new request is
 * answered only after the back-invalidation's acks. */
START_TEST(test_dir_eviction)
{
	struct tb tb;
	uint8_t llc[APU_LINE];
	sim_time_t ack, resp;

	tb_init(&tb, 4, true, _i ? tiny_dir_owner : tiny_dir);
	req(&tb, 1, APU_RDBLKM, 0x0000); /* owner 1, set 0 */
	req(&tb, 2, APU_RDBLK, 0x0100);	 /* owner 2, set 0: the set is full */
	tb_clear(&tb);
	tb.ag[1].hit = tb.ag[1].dirty = true;
	for (unsigned i = 0; i < APU_LINE; i++)
		tb.ag[1].data[i] = (uint8_t)(0x30 + i);
	tb.ag[1].ack_cycles = 500;
	req(&tb, 3, APU_RDBLK, 0x0200); /* set 0 again: 0x0000 (LRU) goes */
	ck_assert_uint_eq(tb_stat(&tb, "dir.pf.evictions"), 1);
	ck_assert_uint_eq(tb_count(&tb, 1, APU_PRBINV), 1);
	ck_assert_uint_eq(tb_last(&tb, 1, APU_PRBINV)->addr, 0x0000);
	ck_assert_uint_eq(tb_stat(&tb, "dir.probes.backinv"), _i ? 5u : 1u);
	ck_assert_uint_eq(probes_at(&tb, 0) + probes_at(&tb, 2) + probes_at(&tb, 4), _i ? 3u : 0u);
	/* the owner's dirty data went where a dirty victim goes: the LLC (and DRAM) */
	ck_assert(apu_dir_llc_peek(tb.dir, 0x0000, llc));
	ck_assert_mem_eq(llc, tb.ag[1].data, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_writes.backinv"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.backinv"), 1);
	/* the waiting RdBlk (I: no probes of its own) was answered after the last ack */
	ack = tb.ag[1].last_ack_sent;
	resp = tb_last(&tb, 3, APU_SYSRESP)->t;
	ck_assert_msg(resp > ack, "response %llu before the back-invalidation's ack %llu",
		      (unsigned long long)resp, (unsigned long long)ack);
	/* a later read of the evicted line finds I: no probes for it (the set is full again: one
	 * more eviction, of another line), the LLC serves it */
	tb_clear(&tb);
	tb.ag[1].hit = tb.ag[1].dirty = false;
	req(&tb, 0, APU_RDBLK, 0x0000);
	ck_assert_uint_eq(probes_for(&tb, 5, 0x0000), 0);
	ck_assert_uint_eq(tb_stat(&tb, "dir.pf.evictions"), 2);
	ck_assert_mem_eq(tb_last(&tb, 0, APU_SYSRESP)->data, tb.ag[1].data, APU_LINE);
	tb_fini(&tb);
}
END_TEST

/* ---- limited pointers (Table I fn b) ---------------------------------------------------------- */

static void two_pointers(struct tb *tb)
{
	sharers(tb);
	tb->dcfg.sharer_pointers = 2;
}

/* Three readers on a two-pointer list: the list is full, so a write broadcasts; with a full
 * map it reaches the three readers only. A full list drops no sharer. */
START_TEST(test_limited_pointers)
{
	struct tb tb;
	unsigned cp;

	tb_init(&tb, 5, true, _i ? two_pointers : sharers);
	for (unsigned a = 1; a <= 3; a++)
		req(&tb, a, APU_RDBLKS, LINE_A);
	req(&tb, 1, APU_VICCLEAN, LINE_A); /* full: 1 stays on the list */
	tb_clear(&tb);
	req(&tb, 0, APU_RDBLKM, LINE_A);
	cp = probes_at(&tb, 1) + probes_at(&tb, 2) + probes_at(&tb, 3) + probes_at(&tb, 4);
	ck_assert_uint_eq(cp, _i ? 4u : 2u);
	ck_assert_uint_eq(probes_at(&tb, 5), _i ? 1u : 0u); /* the TCC: broadcast only */
	tb_fini(&tb);
}
END_TEST

/* ---- enhancement A: early response -------------------------------------------------------------- */

static void early(struct tb *tb)
{
	tb->dcfg.early_response = true;
}

/* The baseline RdBlk with a dirty owner whose ack comes first: answered at that ack, before the
 * slow acks (A), or only after the last one (baseline); the line stays busy until every ack is
 * in, and the requester's early Unblock is kept. */
START_TEST(test_early_response)
{
	struct tb tb;
	sim_time_t resp, last;

	tb_init(&tb, 4, true, _i ? early : NULL);
	tb.ag[1].hit = tb.ag[1].dirty = true;
	tb.ag[1].ack_cycles = 1;
	tb.ag[2].ack_cycles = tb.ag[3].ack_cycles = 3000;
	req(&tb, 0, APU_RDBLK, LINE_A);
	resp = tb_last(&tb, 0, APU_SYSRESP)->t;
	last = tb.ag[3].last_ack_sent;
	if (_i)
		ck_assert_msg(resp < last, "early: response %llu not before the last ack %llu",
			      (unsigned long long)resp, (unsigned long long)last);
	else
		ck_assert(resp > last);
	ck_assert_uint_eq(tb_last(&tb, 0, APU_SYSRESP)->e.grant, APU_GRANT_S);
	ck_assert_mem_eq(tb_last(&tb, 0, APU_SYSRESP)->data, tb.ag[1].data, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.early_responses"), _i ? 1u : 0u);
	/* a second request waited for the whole first transaction */
	tb.ag[2].ack_cycles = tb.ag[3].ack_cycles = 1;
	tb_clear(&tb);
	req(&tb, 2, APU_RDBLK, LINE_A);
	ck_assert_uint_eq(tb_count(&tb, 2, APU_SYSRESP), 1);
	tb_fini(&tb);
}
END_TEST

/* With tracking a WT that invalidates a CorePair is acked (WBAck) only after that CorePair's
 * ack: the TCC's next write must not reach a reader that still holds this line's old data
 * (docs/apu.md §8.3); a WT that invalidates nobody is acked at once, as in the baseline. */
START_TEST(test_wt_wback_after_acks)
{
	struct tb tb;
	sim_time_t wback;

	tb_init(&tb, 4, true, _i ? sharers : owner_only);
	set_state(&tb, ST_S); /* holders 1, 2 */
	tb.ag[1].ack_cycles = 2000;
	req(&tb, 4, APU_WT, LINE_A);
	wback = tb_last(&tb, 4, APU_WBACK)->t;
	ck_assert_msg(wback > tb.ag[1].last_ack_sent, "WBAck at %llu, the slow ack at %llu",
		      (unsigned long long)wback, (unsigned long long)tb.ag[1].last_ack_sent);
	/* now S held by the TCC only: the next WT invalidates no CorePair with a sharer list */
	tb_clear(&tb);
	req(&tb, 4, APU_WT, LINE_A);
	ck_assert_uint_eq(probes_at(&tb, 1) + probes_at(&tb, 2), _i ? 0u : 2u);
	tb_fini(&tb);
}
END_TEST

/* Bad directory-cache geometry is one error naming the keys. */
START_TEST(test_bad_geometry)
{
	struct tb tb;
	struct cs_err err = {0};
	struct apu_dir *d = NULL;
	unsigned cp[2] = {0, 1};
	struct apu_dir_nodes nodes = {.ep = 4, .n_cp = 2, .cp = cp};

	tb_init(&tb, 2, true, NULL);
	tb.dcfg.tracking = APU_TRACK_OWNER;
	tb.dcfg.entries = 96;
	tb.dcfg.entry_assoc = 32;
	ck_assert_int_eq(apu_dir_create(tb.k, &tb.dcfg, &tb.lcfg, &nodes, tb.msgs, &tb.map, 1,
					cs_stat_group(cs_stats_root(tb.stats), "dir2"), &d, &err),
			 -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "dir.entries"));
	ck_assert_ptr_null(d);
	tb_fini(&tb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("apu_dir_track");
	TCase *tc = tcase_create("core");
	SRunner *r;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_owner_probe_counts, 0, N_TRACK_CASES);
	tcase_add_loop_test(tc, test_sharer_probe_counts, 0, N_TRACK_CASES);
	tcase_add_loop_test(tc, test_sharer_tcc_always_probe_counts, 0, N_TRACK_CASES);
	tcase_add_test(tc, test_grants_and_data);
	tcase_add_test(tc, test_victims_update);
	tcase_add_loop_test(tc, test_illegal_victims, 0, 2);
	tcase_add_loop_test(tc, test_dir_eviction, 0, 2);
	tcase_add_loop_test(tc, test_limited_pointers, 0, 2);
	tcase_add_loop_test(tc, test_early_response, 0, 2);
	tcase_add_loop_test(tc, test_wt_wback_after_acks, 0, 2);
	tcase_add_test(tc, test_bad_geometry);
	suite_add_tcase(s, tc);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
