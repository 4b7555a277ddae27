/*
 * tests/unit/test_apu_dir.c - the stateless directory, its victim LLC and the DMA engine of
 * seed 002's APU baseline (docs/apu.md §3.4-3.6, §4, §7), against scripted CorePair and TCC
 * agents (tests/unit/apu_tb.h) on a real network and a real DRAM channel.
 *
 * What is checked is what docs/apu.md §7 states: the probes each baseline transaction sends
 * (kind and destinations: downgrades exclude the TCC, invalidations include it except for WT,
 * Atomic and Flush, the requester is never probed) and the acks the directory waits for; the
 * response leaves only after the last ack and the data; grants (E when no ack reports a copy);
 * dirty data moves with the response and is not written to memory; the LLC is allocated by
 * victims only (refills and probe data never), a hit removes the line, an LLC eviction writes
 * DRAM; useL3OnWT; SLC atomics at the directory; DMA reads see a cache's dirty data, DMA writes
 * invalidate every cache; requests to a busy line wait in arrival order; illegal events fail.
 */
#include "apu_tb.h"

#include "tlm/mem/cache.h"

#define LINE_A 0x10000ull
#define LINE_B 0x20040ull

static void fill(uint8_t *d, uint8_t seed)
{
	for (unsigned i = 0; i < APU_LINE; i++)
		d[i] = (uint8_t)(seed + i * 7);
}

static void mem_line(struct tb *tb, uint64_t line, uint8_t seed)
{
	uint8_t d[APU_LINE];

	fill(d, seed);
	ck_assert_int_eq(mem_store_write(tb->store, line, d, APU_LINE), 0);
}

static bool mem_is(struct tb *tb, uint64_t line, const uint8_t *want)
{
	uint8_t d[APU_LINE];

	mem_store_read(tb->store, line, d, APU_LINE);
	return memcmp(d, want, APU_LINE) == 0;
}

/* ---- probe counts per transaction (docs/apu.md §7) ------------------------------------------ */

enum who { CP0, TCC, DMA };

static const struct probe_case {
	enum apu_msg_type type;
	enum who who;
	enum apu_msg_type probe; /* PrbDowngrade or PrbInv */
	bool tcc_probed;
	enum apu_msg_type resp; /* what the requester gets */
} probe_cases[] = {
    {APU_RDBLK, CP0, APU_PRBDOWNGRADE, false, APU_SYSRESP},
    {APU_RDBLKS, CP0, APU_PRBDOWNGRADE, false, APU_SYSRESP},
    {APU_RDBLK, TCC, APU_PRBDOWNGRADE, false, APU_SYSRESP},
    {APU_RDBLKM, CP0, APU_PRBINV, true, APU_SYSRESP},
    {APU_WT, TCC, APU_PRBINV, false, APU_WBACK},
    {APU_ATOMIC, TCC, APU_PRBINV, false, APU_SYSRESP},
    {APU_FLUSH, TCC, APU_PRBINV, false, APU_WBACK},
    {APU_DMARD, DMA, APU_PRBDOWNGRADE, false, APU_DMADATA},
    {APU_DMAWR, DMA, APU_PRBINV, true, APU_DMAACK},
    {APU_VICDIRTY, CP0, 0, false, APU_WBACK},
    {APU_VICCLEAN, CP0, 0, false, APU_WBACK},
};

#define N_PROBE_CASES (sizeof(probe_cases) / sizeof(probe_cases[0]))

static void probe_case_run(unsigned P, const struct probe_case *c)
{
	struct tb tb;
	struct mem_msg *m;
	struct apu_ext *e;
	uint8_t buf[APU_LINE];
	unsigned req = c->who == TCC ? P : 0;
	unsigned cp_probes = 0, expect_cp, expect;
	char name[64];

	memset(buf, 0, sizeof(buf));
	tb_init(&tb, P, true, NULL);
	if (c->who == DMA) {
		if (c->type == APU_DMARD)
			ck_assert_int_eq(apu_dma_read(tb.dma, LINE_A, buf, APU_LINE, NULL, NULL),
					 0);
		else
			ck_assert_int_eq(apu_dma_write(tb.dma, LINE_A, buf, APU_LINE, NULL, NULL),
					 0);
	} else {
		e = tb_req(&tb, req, c->type, LINE_A, &m);
		if (c->type == APU_ATOMIC) {
			e->op = MEM_ATOM_ADD;
			e->width = 4;
			e->operand = 1;
		}
		if (c->type == APU_WT || c->type == APU_FLUSH)
			e->mask = 0xff;
		tb_send(&tb, req, m);
	}
	tb_run(&tb);

	for (unsigned i = 0; i < P; i++) {
		unsigned dg = tb_count(&tb, i, APU_PRBDOWNGRADE),
			 inv = tb_count(&tb, i, APU_PRBINV);

		if (c->who == CP0 && i == 0) {
			ck_assert_uint_eq(dg + inv, 0); /* the requester is never probed */
			continue;
		}
		ck_assert_uint_eq(dg + inv, c->probe ? 1 : 0);
		if (c->probe)
			ck_assert_uint_eq(c->probe == APU_PRBINV ? inv : dg, 1);
		cp_probes += dg + inv;
	}
	expect_cp = c->probe ? (c->who == CP0 ? P - 1 : P) : 0;
	ck_assert_uint_eq(cp_probes, expect_cp);
	ck_assert_uint_eq(tb_count(&tb, P, APU_PRBINV) + tb_count(&tb, P, APU_PRBDOWNGRADE),
			  c->tcc_probed ? 1 : 0);
	expect = expect_cp + (c->tcc_probed ? 1 : 0);
	ck_assert_uint_eq(tb_stat(&tb, "dir.probe_acks"), expect);
	ck_assert_uint_eq(
	    tb_stat(&tb, c->probe == APU_PRBINV ? "dir.probes.inv" : "dir.probes.downgrade"),
	    c->probe ? expect : 0);
	snprintf(name, sizeof(name), "dir.txn.%s", apu_msg_info[c->type].name);
	ck_assert_uint_eq(tb_stat(&tb, name), 1);
	if (c->probe) {
		snprintf(name, sizeof(name), "dir.probes.%s", apu_msg_info[c->type].name);
		ck_assert_uint_eq(tb_stat(&tb, name), expect);
	}
	if (c->who != DMA)
		ck_assert_uint_eq(tb_count(&tb, req, c->resp), 1);
	else
		ck_assert_uint_eq(
		    tb_stat(&tb, c->type == APU_DMARD ? "dma.lines_read" : "dma.lines_written"), 1);
	tb_fini(&tb);
}

START_TEST(test_probe_counts)
{
	probe_case_run(4, &probe_cases[_i]);
}
END_TEST

/* P = 1 and a CorePair requester: no probe at all, AcksDone fires by itself (§7). */
START_TEST(test_probe_counts_single_pair)
{
	probe_case_run(1, &probe_cases[_i]);
}
END_TEST

/* ---- ordering: the response waits for the last ack and for the data ------------------------ */

START_TEST(test_response_after_last_ack)
{
	struct tb tb;
	struct mem_msg *m;
	const struct tb_rec *r;
	uint8_t want[APU_LINE];

	tb_init(&tb, 4, true, NULL);
	mem_line(&tb, LINE_A, 3);
	fill(want, 3);
	tb.ag[2].ack_cycles = 3000; /* one slow cache: longer than any DRAM read */
	tb_req(&tb, 0, APU_RDBLK, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	r = tb_last(&tb, 0, APU_SYSRESP);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_gt(r->t, tb.ag[2].last_ack_sent);
	ck_assert_mem_eq(r->data, want, APU_LINE); /* and it carries the memory's data */
	ck_assert_uint_eq(r->e.grant, APU_GRANT_E);
	tb_fini(&tb);
}
END_TEST

/* With a fast ack the DRAM read is the last input: the response carries its data (it could not
 * have left before the read answered), and nothing was probed slow. */
START_TEST(test_response_after_data)
{
	struct tb tb;
	struct mem_msg *m;
	const struct tb_rec *r;
	uint8_t want[APU_LINE];

	tb_init(&tb, 2, true, NULL);
	mem_line(&tb, LINE_B, 9);
	fill(want, 9);
	tb_req(&tb, 0, APU_RDBLKM, LINE_B, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	r = tb_last(&tb, 0, APU_SYSRESP);
	ck_assert_ptr_nonnull(r);
	ck_assert_mem_eq(r->data, want, APU_LINE);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_M);
	ck_assert(!r->e.dirty);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.reads"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_misses"), 1);
	tb_fini(&tb);
}
END_TEST

/* ---- grants and dirty data ------------------------------------------------------------------ */

START_TEST(test_grants)
{
	struct tb tb;
	struct mem_msg *m;
	const struct tb_rec *r;
	uint8_t owner[APU_LINE];

	/* a copy reported by one ack turns E into S */
	tb_init(&tb, 3, true, NULL);
	tb.ag[1].hit = true;
	tb_req(&tb, 0, APU_RDBLK, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	r = tb_last(&tb, 0, APU_SYSRESP);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_S);
	ck_assert(!r->e.dirty);
	tb_fini(&tb);

	/* an owner's dirty data moves with the response, S + dirty; memory is not written */
	tb_init(&tb, 3, true, NULL);
	mem_line(&tb, LINE_A, 1);
	fill(owner, 77);
	tb.ag[2].hit = tb.ag[2].dirty = true;
	memcpy(tb.ag[2].data, owner, APU_LINE);
	tb_req(&tb, 0, APU_RDBLK, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	r = tb_last(&tb, 0, APU_SYSRESP);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_S);
	ck_assert(r->e.dirty);
	ck_assert_mem_eq(r->data, owner, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.probe_acks_data"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dram0.writes"), 0);
	ck_assert(!apu_dir_llc_peek(tb.dir, LINE_A, NULL)); /* probe data never allocates */

	/* RdBlkS: S and not dirty even when the owner answered with data (it keeps O) */
	tb_clear(&tb);
	tb_req(&tb, 1, APU_RDBLKS, LINE_A, &m);
	tb_send(&tb, 1, m);
	tb_run(&tb);
	r = tb_last(&tb, 1, APU_SYSRESP);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_S);
	ck_assert(!r->e.dirty);
	ck_assert_mem_eq(r->data, owner, APU_LINE);

	/* RdBlkM: M with the dirty data, still no memory write */
	tb_clear(&tb);
	tb_req(&tb, 0, APU_RDBLKM, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	r = tb_last(&tb, 0, APU_SYSRESP);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_M);
	ck_assert(r->e.dirty);
	ck_assert_mem_eq(r->data, owner, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dram0.writes"), 0);
	tb_fini(&tb);
}
END_TEST

/* ---- the victim LLC ------------------------------------------------------------------------- */

START_TEST(test_llc_victims_only)
{
	struct tb tb;
	struct mem_msg *m;
	const struct tb_rec *r;
	uint8_t vic[APU_LINE], got[APU_LINE];

	tb_init(&tb, 2, true, NULL);
	mem_line(&tb, LINE_A, 1);
	mem_line(&tb, LINE_B, 2);
	/* a refill does not allocate */
	tb_req(&tb, 0, APU_RDBLK, LINE_B, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	ck_assert(!apu_dir_llc_peek(tb.dir, LINE_B, NULL));
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_misses"), 1);

	/* a dirty victim: WBAck, VicData, then DRAM and LLC hold it */
	fill(vic, 200);
	memcpy(tb.ag[0].data, vic, APU_LINE);
	tb_req(&tb, 0, APU_VICDIRTY, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	ck_assert_uint_eq(tb_count(&tb, 0, APU_WBACK), 1);
	ck_assert(apu_dir_llc_peek(tb.dir, LINE_A, got));
	ck_assert_mem_eq(got, vic, APU_LINE);
	ck_assert(mem_is(&tb, LINE_A, vic)); /* write-through */
	ck_assert_uint_eq(tb_stat(&tb, "dir.vic_dirty"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.victim"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_writes.victim"), 1);

	/* a demand hit serves the data and removes the line */
	tb_req(&tb, 1, APU_RDBLK, LINE_A, &m);
	tb_send(&tb, 1, m);
	tb_run(&tb);
	r = tb_last(&tb, 1, APU_SYSRESP);
	ck_assert(r->e.llc_hit);
	ck_assert_mem_eq(r->data, vic, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_hits"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.reads"), 1); /* only LINE_B's */
	ck_assert(!apu_dir_llc_peek(tb.dir, LINE_A, NULL));

	/* a clean victim allocates too; a stale one writes nothing */
	tb_req(&tb, 1, APU_VICCLEAN, LINE_B, &m);
	tb_send(&tb, 1, m);
	tb_run(&tb);
	ck_assert(apu_dir_llc_peek(tb.dir, LINE_B, NULL));
	ck_assert_uint_eq(tb_stat(&tb, "dir.vic_clean"), 1);
	tb.ag[0].stale = true;
	tb_req(&tb, 0, APU_VICDIRTY, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	ck_assert(!apu_dir_llc_peek(tb.dir, LINE_A, NULL));
	ck_assert_uint_eq(tb_stat(&tb, "dir.vic_stale"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.victim"), 2);
	tb_fini(&tb);
}
END_TEST

static void clean_to_llc(struct tb *tb)
{
	tb->dcfg.clean_victims = APU_CLEAN_VIC_LLC;
}

static void clean_nowhere(struct tb *tb)
{
	tb->dcfg.clean_victims = APU_CLEAN_VIC_NONE;
}

/* Seed 002 enhancement B (dir.clean_victims = llc): a clean victim goes to the LLC and not to
 * memory; B.1 (none): to neither. A dirty victim goes to both in every setting, and the
 * handshake (WBAck, VicData) is the baseline's. Loop: 0 baseline, 1 B, 2 B.1. */
START_TEST(test_clean_victims)
{
	static void (*const tweak[3])(struct tb *) = {NULL, clean_to_llc, clean_nowhere};
	struct tb tb;
	struct mem_msg *m;
	uint8_t vic[APU_LINE], got[APU_LINE];

	tb_init(&tb, 2, true, tweak[_i]);
	mem_line(&tb, LINE_B, 2);
	fill(vic, 2); /* a clean victim's bytes are memory's */
	memcpy(tb.ag[1].data, vic, APU_LINE);
	tb_req(&tb, 1, APU_VICCLEAN, LINE_B, &m);
	tb_send(&tb, 1, m);
	tb_run(&tb);
	ck_assert_uint_eq(tb_count(&tb, 1, APU_WBACK), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.vic_clean"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.victim"), _i == 0 ? 1 : 0);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_writes.victim"), _i == 2 ? 0 : 1);
	ck_assert(apu_dir_llc_peek(tb.dir, LINE_B, got) == (_i != 2));
	if (_i != 2)
		ck_assert_mem_eq(got, vic, APU_LINE);
	ck_assert(mem_is(&tb, LINE_B, vic));
	/* a later read is served right: from the LLC (baseline, B) or memory (B.1) */
	tb_req(&tb, 0, APU_RDBLK, LINE_B, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	ck_assert_mem_eq(tb_last(&tb, 0, APU_SYSRESP)->data, vic, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_hits"), _i == 2 ? 0 : 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.reads"), _i == 2 ? 1 : 0);
	/* a dirty victim: memory and the LLC in every setting */
	fill(vic, 201);
	memcpy(tb.ag[0].data, vic, APU_LINE);
	tb_req(&tb, 0, APU_VICDIRTY, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	ck_assert(mem_is(&tb, LINE_A, vic));
	ck_assert(apu_dir_llc_peek(tb.dir, LINE_A, NULL));
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.victim"), _i == 0 ? 2 : 1);
	tb_fini(&tb);
}
END_TEST

/* 17 victims in one set of a 16-way LLC: one eviction, written to DRAM (llc.evict_write). */
START_TEST(test_llc_eviction)
{
	struct tb tb;
	unsigned sets;

	tb_init(&tb, 1, true, NULL);
	sets = (unsigned)(tb.lcfg.size_kib * 1024 / APU_LINE / tb.lcfg.assoc);
	for (unsigned i = 0; i <= tb.lcfg.assoc; i++) {
		struct mem_msg *m;

		tb_req(&tb, 0, APU_VICCLEAN, 0x100000ull + (uint64_t)i * sets * APU_LINE, &m);
		tb_send(&tb, 0, m);
		tb_run(&tb);
	}
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_evictions"), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.llc_evict"), 1);
	ck_assert(!apu_dir_llc_peek(tb.dir, 0x100000ull, NULL)); /* tree-PLRU: the oldest */
	tb_fini(&tb);
}
END_TEST

static void write_back_llc(struct tb *tb)
{
	tb->lcfg.write_back = true;
	tb->lcfg.use_on_wt = true;
}

/* Seed 002 enhancement C (llc.write_back): DRAM writes counted against the write-through LLC.
 * A dirty victim goes to the LLC only, dirty; a clean one too, clean. A read that hits the
 * dirty line (a TCC's RdBlk here: it cannot own it) is answered from it and puts it back,
 * still dirty; filling its set then evicts it, and only the dirty line is written back, with
 * its data. The same steps under the write-through LLC write DRAM at each victim and at every
 * eviction (llc.evict_write). Loop: 0 write-through, 1 write-back. */
START_TEST(test_llc_write_back)
{
	struct tb tb;
	struct mem_msg *m;
	uint8_t vic[APU_LINE], got[APU_LINE];
	unsigned sets;
	bool wb = _i == 1;

	tb_init(&tb, 2, true, wb ? write_back_llc : NULL);
	sets = (unsigned)(tb.lcfg.size_kib * 1024 / APU_LINE / tb.lcfg.assoc);
	mem_line(&tb, LINE_A, 1);
	fill(vic, 77);
	memcpy(tb.ag[0].data, vic, APU_LINE);
	tb_req(&tb, 0, APU_VICDIRTY, LINE_A, &m);
	tb_send(&tb, 0, m);
	tb_run(&tb);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.victim"), wb ? 0 : 1);
	ck_assert(mem_is(&tb, LINE_A, vic) != wb); /* DRAM still holds the old bytes under C */
	ck_assert(apu_dir_llc_peek(tb.dir, LINE_A, got));
	ck_assert_mem_eq(got, vic, APU_LINE);
	/* the TCC reads it: answered from the LLC; under C the dirty line goes back in */
	tb_req(&tb, tb.P, APU_RDBLK, LINE_A, &m);
	tb_send(&tb, tb.P, m);
	tb_run(&tb);
	ck_assert(tb_last(&tb, tb.P, APU_SYSRESP)->e.llc_hit);
	ck_assert_mem_eq(tb_last(&tb, tb.P, APU_SYSRESP)->data, vic, APU_LINE);
	ck_assert(apu_dir_llc_peek(tb.dir, LINE_A, NULL) == wb);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_writes.dirty_kept"), wb ? 1 : 0);
	/* LINE_A's set filled with clean victims: one eviction, LINE_A the oldest */
	for (unsigned i = 1; i <= tb.lcfg.assoc; i++) {
		tb_req(&tb, 1, APU_VICCLEAN, LINE_A + (uint64_t)i * sets * APU_LINE, &m);
		tb_send(&tb, 1, m);
		tb_run(&tb);
	}
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_evictions"), wb ? 1 : 0);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.llc_evict"), wb ? 1 : 0);
	ck_assert(mem_is(&tb, LINE_A, vic)); /* written back under C, through under WT */
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.victim"), wb ? 0 : 1 + tb.lcfg.assoc);
	/* one more clean victim evicts a clean line: no DRAM write under C */
	tb_req(&tb, 1, APU_VICCLEAN, LINE_A + (uint64_t)(tb.lcfg.assoc + 1) * sets * APU_LINE, &m);
	tb_send(&tb, 1, m);
	tb_run(&tb);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_evictions"), wb ? 2 : 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.llc_evict"), 1);
	tb_fini(&tb);
}
END_TEST

/* C without useL3OnWT is refused: a write-through would go under a dirty LLC copy. */
START_TEST(test_llc_write_back_needs_use_on_wt)
{
	struct tb tb;
	struct apu_dir *d = NULL;
	struct apu_dir_nodes nodes;
	struct cs_err err = {0};
	unsigned cp[1] = {0};

	tb_init(&tb, 1, true, NULL);
	tb.lcfg.write_back = true;
	tb.lcfg.use_on_wt = false;
	nodes = (struct apu_dir_nodes){.ep = 5, .n_cp = 1, .cp = cp};
	ck_assert_int_eq(apu_dir_create(tb.k, &tb.dcfg, &tb.lcfg, &nodes, tb.msgs, &tb.map, 1,
					cs_stat_group(cs_stats_root(tb.stats), "d2"), &d, &err),
			 -CS_ECONFIG);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(err.msg, APU_LLC_WB_NEEDS_WT);
	tb_fini(&tb);
}
END_TEST

/* ---- GPU writes through the directory -------------------------------------------------------- */

static void use_l3(struct tb *tb)
{
	tb->lcfg.use_on_wt = true;
}

START_TEST(test_use_l3_on_wt)
{
	struct tb tb;
	struct mem_msg *m;
	struct apu_ext *e;
	uint8_t want[APU_LINE], got[APU_LINE];

	tb_init(&tb, 2, true, _i ? use_l3 : NULL);
	mem_line(&tb, LINE_A, 5);
	fill(want, 5);
	e = tb_req(&tb, tb.P, APU_WT, LINE_A, &m);
	e->mask = 0xff00; /* bytes 8..15 */
	for (unsigned i = 8; i < 16; i++)
		m->p.data[i] = want[i] = 0xab;
	e->seq = 42;
	tb_send(&tb, tb.P, m);
	tb_run(&tb);
	ck_assert(mem_is(&tb, LINE_A, want)); /* merged under the mask */
	ck_assert_uint_eq(tb_last(&tb, tb.P, APU_WBACK)->e.seq, 42);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.wt"), 1);
	ck_assert_int_eq(apu_dir_llc_peek(tb.dir, LINE_A, got), _i);
	if (_i)
		ck_assert_mem_eq(got, want, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dir.llc_writes.wt"), _i);
	tb_fini(&tb);
}
END_TEST

START_TEST(test_slc_atomic)
{
	struct tb tb;
	struct mem_msg *m;
	struct apu_ext *e;
	uint32_t v = 5;
	const struct tb_rec *r;

	tb_init(&tb, 2, true, NULL);
	ck_assert_int_eq(mem_store_write(tb.store, LINE_A + 8, &v, 4), 0);
	e = tb_req(&tb, tb.P, APU_ATOMIC, LINE_A, &m);
	e->op = MEM_ATOM_ADD;
	e->width = 4;
	e->offset = 8;
	e->operand = 3;
	e->slc = true;
	tb_send(&tb, tb.P, m);
	tb_run(&tb);
	r = tb_last(&tb, tb.P, APU_SYSRESP);
	ck_assert_uint_eq(r->e.old, 5);
	ck_assert_uint_eq(r->e.grant, APU_GRANT_M);
	mem_store_read(tb.store, LINE_A + 8, &v, 4);
	ck_assert_uint_eq(v, 8);
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.atomic"), 1);
	/* a CorePair's dirty copy is the value the atomic applies to */
	tb.ag[0].hit = tb.ag[0].dirty = true;
	memset(tb.ag[0].data, 0, APU_LINE);
	tb.ag[0].data[8] = 100;
	e = tb_req(&tb, tb.P, APU_ATOMIC, LINE_A, &m);
	e->op = MEM_ATOM_ADD;
	e->width = 4;
	e->offset = 8;
	e->operand = 1;
	tb_send(&tb, tb.P, m);
	tb_run(&tb);
	ck_assert_uint_eq(tb_last(&tb, tb.P, APU_SYSRESP)->e.old, 100);
	mem_store_read(tb.store, LINE_A + 8, &v, 4);
	ck_assert_uint_eq(v, 101);
	tb_fini(&tb);
}
END_TEST

/* ---- DMA ------------------------------------------------------------------------------------- */

START_TEST(test_dma_sees_dirty_data)
{
	struct tb tb;
	uint8_t buf[2 * APU_LINE], owner[APU_LINE], want[APU_LINE];

	tb_init(&tb, 3, true, NULL);
	mem_line(&tb, LINE_A + APU_LINE, 4);
	fill(want, 4);
	fill(owner, 99);
	tb.ag[1].hit = tb.ag[1].dirty = true; /* CorePair 1 answers every probe with its data */
	memcpy(tb.ag[1].data, owner, APU_LINE);
	ck_assert_int_eq(apu_dma_read(tb.dma, LINE_A, buf, sizeof(buf), NULL, NULL), 0);
	tb_run(&tb);
	ck_assert_mem_eq(buf, owner, APU_LINE);
	ck_assert_mem_eq(buf + APU_LINE, owner, APU_LINE);
	ck_assert_uint_eq(tb_stat(&tb, "dram0.writes"), 0); /* the owner keeps O */
	tb_fini(&tb);
}
END_TEST

START_TEST(test_dma_write_invalidates)
{
	struct tb tb;
	uint8_t src[90], want[2 * APU_LINE], got[2 * APU_LINE];
	uint64_t base = LINE_A + 32; /* 90 bytes over two lines, neither whole */

	tb_init(&tb, 3, true, NULL);
	mem_line(&tb, LINE_A, 1);
	mem_line(&tb, LINE_A + APU_LINE, 2);
	fill(want, 1);
	fill(want + APU_LINE, 2);
	for (unsigned i = 0; i < sizeof(src); i++)
		want[32 + i] = src[i] = (uint8_t)(i ^ 0x5a);
	ck_assert_int_eq(apu_dma_write(tb.dma, base, src, sizeof(src), NULL, NULL), 0);
	tb_run(&tb);
	for (unsigned a = 0; a <= tb.P; a++)
		ck_assert_uint_eq(tb_count(&tb, a, APU_PRBINV), 2); /* every CorePair and the TCC */
	mem_store_read(tb.store, LINE_A, got, sizeof(got));
	ck_assert_mem_eq(got, want, sizeof(got));
	ck_assert_uint_eq(tb_stat(&tb, "dir.dram.writes.dma"), 2);
	ck_assert_uint_eq(tb_stat(&tb, "dma.bytes_written"), sizeof(src));
	tb_fini(&tb);
}
END_TEST

/* ---- serialization --------------------------------------------------------------------------- */

START_TEST(test_park_in_order)
{
	struct tb tb;
	struct mem_msg *m;
	const struct tb_rec *r0, *r1, *r2;

	tb_init(&tb, 3, true, NULL);
	for (unsigned a = 0; a < 3; a++) {
		tb_req(&tb, a, a == 1 ? APU_RDBLKM : APU_RDBLK, LINE_A, &m);
		apu_port_send(tb.ag[a].port, m, 4 * a); /* staggered: arrival order 0, 1, 2 */
	}
	tb_run(&tb);
	r0 = tb_last(&tb, 0, APU_SYSRESP);
	r1 = tb_last(&tb, 1, APU_SYSRESP);
	r2 = tb_last(&tb, 2, APU_SYSRESP);
	ck_assert(r0 && r1 && r2);
	ck_assert_uint_lt(r0->t, r1->t);
	ck_assert_uint_lt(r1->t, r2->t);
	ck_assert_uint_eq(tb_stat(&tb, "dir.parked"), 2);
	/* each transaction probed the others after the previous one ended */
	ck_assert_uint_eq(tb_count(&tb, 0, APU_PRBINV), 1);
	ck_assert_uint_eq(tb_count(&tb, 2, APU_PRBINV), 1);
	ck_assert_uint_gt(tb_last(&tb, 0, APU_PRBINV)->t, r0->t);
	ck_assert_uint_gt(tb_last(&tb, 2, APU_PRBINV)->t, r0->t);
	tb_fini(&tb);
}
END_TEST

/* One TBE: requests to other lines wait at the head of the REQ input (the vnet is refused,
 * responses and unblocks still flow) and all complete. */
static void one_tbe(struct tb *tb)
{
	tb->dcfg.tbes = 1;
}

START_TEST(test_tbe_backpressure)
{
	struct tb tb;
	struct mem_msg *m;

	tb_init(&tb, 4, true, one_tbe);
	for (unsigned a = 0; a < 4; a++) {
		tb_req(&tb, a, a & 1 ? APU_RDBLKM : APU_RDBLK, LINE_A + a * 0x1000, &m);
		tb_send(&tb, a, m);
	}
	tb_run(&tb);
	for (unsigned a = 0; a < 4; a++)
		ck_assert_uint_eq(tb_count(&tb, a, APU_SYSRESP), 1);
	ck_assert_uint_eq(tb_stat(&tb, "dir.parked"), 0); /* refused, not parked */
	tb_fini(&tb);
}
END_TEST

static void window2(struct tb *tb)
{
	tb->mcfg.window = 2;
}

/* A window of 2 lines over a 16-line read: every byte arrives, never more than 2 in flight. */
START_TEST(test_dma_window)
{
	struct tb tb;
	uint8_t want[16 * APU_LINE], got[16 * APU_LINE];

	tb_init(&tb, 2, true, window2);
	for (unsigned i = 0; i < sizeof(want); i++)
		want[i] = (uint8_t)(i * 13 + 1);
	ck_assert_int_eq(mem_store_write(tb.store, LINE_A, want, sizeof(want)), 0);
	ck_assert_int_eq(apu_dma_read(tb.dma, LINE_A, got, sizeof(got), NULL, NULL), 0);
	ck_assert_uint_eq(apu_dma_in_flight(tb.dma), 2);
	ck_assert_int_eq(apu_dma_read(tb.dma, LINE_A, got, 1, NULL, NULL), -CS_ESTATE);
	tb_run(&tb);
	ck_assert_mem_eq(got, want, sizeof(got));
	ck_assert_uint_eq(tb_stat(&tb, "dma.lines_read"), 16);
	tb_fini(&tb);
}
END_TEST

/* ---- protocol errors ------------------------------------------------------------------------- */

START_TEST(test_illegal_events)
{
	static const enum apu_msg_type bad[] = {APU_UNBLOCK, APU_PRBACK, APU_VICDATA,
						APU_STALENOTIF, APU_TCCDATA};
	struct tb tb;
	struct mem_msg *m;
	char want[64];

	tb_init(&tb, 2, true, NULL);
	m = apu_msg_new(tb.msgs, bad[_i], LINE_B, 1, tb.ep_dir, 1);
	tb_send(&tb, 1, m);
	ck_assert_int_eq(sim_run(tb.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), apu_msg_info[bad[_i]].name));
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), "state U"));
	snprintf(want, sizeof(want), "line 0x%llx", (unsigned long long)LINE_B);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), want));
	tb_fini(&tb);
}
END_TEST

/* An Unblock from a cache that is not the requester, in B. */
START_TEST(test_illegal_unblock_sender)
{
	struct tb tb;
	struct mem_msg *m;

	tb_init(&tb, 2, true, NULL);
	tb.ag[1].ack_cycles = 2000;
	tb_req(&tb, 0, APU_RDBLK, LINE_A, &m);
	tb_send(&tb, 0, m);
	m = apu_msg_new(tb.msgs, APU_UNBLOCK, LINE_A, 1, tb.ep_dir, 1);
	apu_port_send(tb.ag[1].port, m, 1000);
	ck_assert_int_eq(sim_run(tb.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), "Unblock in state B_Pm"));
	tb_fini(&tb);
}
END_TEST

/* The parameter tables load their defaults and say what docs/apu.md §6.5 says. */
START_TEST(test_params)
{
	struct apu_dir_cfg d;
	struct apu_llc_cfg l;
	struct apu_dma_cfg m;
	struct cs_err err;

	ck_assert_int_eq(cs_params_defaults(&apu_dir_params, &d, &err), 0);
	ck_assert_int_eq(cs_params_defaults(&apu_llc_params, &l, &err), 0);
	ck_assert_int_eq(cs_params_defaults(&apu_dma_params, &m, &err), 0);
	ck_assert_uint_eq(d.response_cycles, 30);
	ck_assert_uint_eq(d.tbes, 256);
	ck_assert_uint_eq(l.size_kib, 16384);
	ck_assert_uint_eq(l.hit_cycles, 20);
	ck_assert(!l.use_on_wt);
	ck_assert(l.evict_write);
	ck_assert_uint_eq(m.window, 64);
	ck_assert_uint_eq(m.issue_cycles, 6);
}
END_TEST

static Suite *apu_dir_suite(void)
{
	Suite *s = suite_create("apu_dir");
	TCase *tc = tcase_create("dir");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_probe_counts, 0, N_PROBE_CASES);
	tcase_add_loop_test(tc, test_probe_counts_single_pair, 0, N_PROBE_CASES);
	tcase_add_test(tc, test_response_after_last_ack);
	tcase_add_test(tc, test_response_after_data);
	tcase_add_test(tc, test_grants);
	tcase_add_test(tc, test_llc_victims_only);
	tcase_add_loop_test(tc, test_clean_victims, 0, 3);
	tcase_add_loop_test(tc, test_llc_write_back, 0, 2);
	tcase_add_test(tc, test_llc_write_back_needs_use_on_wt);
	tcase_add_test(tc, test_llc_eviction);
	tcase_add_loop_test(tc, test_use_l3_on_wt, 0, 2);
	tcase_add_test(tc, test_slc_atomic);
	tcase_add_test(tc, test_dma_sees_dirty_data);
	tcase_add_test(tc, test_dma_write_invalidates);
	tcase_add_test(tc, test_park_in_order);
	tcase_add_test(tc, test_tbe_backpressure);
	tcase_add_test(tc, test_dma_window);
	tcase_add_loop_test(tc, test_illegal_events, 0, 5);
	tcase_add_test(tc, test_illegal_unblock_sender);
	tcase_add_test(tc, test_params);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(apu_dir_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
