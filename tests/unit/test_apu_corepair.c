/*
 * tests/unit/test_apu_corepair.c - the MOESI CorePair (docs/apu.md §3.1) with the directory,
 * a scripted TCC and DRAM (tests/unit/apu_tb.h), driven through struct cpu_mem_ops by scripted
 * cores.
 *
 * Checked: a load miss no one holds gets E and a store to it is silent (no message, E -> M);
 * a dirty line moves between two CorePairs (M -> O at the owner, S + dirty at the reader,
 * memory untouched), then the O holder's eviction writes memory (VicDirty, VicData); a store
 * to an S line upgrades with RdBlkM and invalidates the other copy; and a random stress test of
 * several CorePairs on few lines that finishes (no deadlock), passes the coherence checker,
 * keeps the MOESI invariants at the end, counts every atomic exactly once, and gives the same
 * result twice.
 */
#include "apu_tb.h"

#include "tlm/coherence/apu/apu_corepair.h"
#include "tlm/core/cpu.h"
#include "workloads/cpu_api.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/msg.h"
#include "util/mix.h"

#define MAXCP 4

struct tcore;

struct sys {
	struct tb tb;
	struct apu_cp *cp[MAXCP];
	struct cohcheck *chk;
};

static void small_l2(struct apu_cp_cfg *c)
{
	c->l2_kib = 1; /* 16 lines: 8 sets of 2 ways */
	c->l2_assoc = 2;
	c->l1d_kib = 1;
	c->l1d_assoc = 2;
}

static void sys_init(struct sys *s, unsigned P, bool small)
{
	struct cs_err err;
	struct apu_cp_cfg cc;

	memset(s, 0, sizeof(*s));
	tb_init(&s->tb, P, false, NULL);
	ck_assert_int_eq(cs_params_defaults(&apu_cp_params, &cc, &err), 0);
	if (small)
		small_l2(&cc);
	ck_assert_int_eq(cohcheck_create(&s->chk), 0);
	for (unsigned i = 0; i < P; i++) {
		char g[16];

		snprintf(g, sizeof(g), "cp%u", i);
		ck_assert_int_eq(apu_cp_create(s->tb.k, &cc, s->tb.msgs, i, s->tb.ep_dir,
					       cs_stat_group(cs_stats_root(s->tb.stats), g),
					       &s->cp[i], &err),
				 0);
		tb_bind(&s->tb, i, apu_cp_port(s->cp[i]));
		apu_cp_set_check(s->cp[i], s->chk);
	}
}

static void sys_fini(struct sys *s)
{
	for (unsigned i = 0; i < s->tb.P; i++) {
		apu_cp_destroy(s->cp[i]);
		s->tb.ag[i].port = NULL;
	}
	cohcheck_destroy(s->chk);
	tb_fini(&s->tb);
}

/* ---- a scripted core ------------------------------------------------------------------------- */

struct tcore {
	struct sys *s;
	struct cpu_mem *m;
	unsigned who;
	uint64_t rng;
	unsigned left; /* random ops still to issue (stress) */
	unsigned lines;
	bool pending, refused;
	struct cpu_mem_req r;
	uint8_t data[APU_LINE];
	uint8_t got[APU_LINE];
	uint64_t old;
	sim_time_t issued, at; /* the last access: when it was offered, when it was done */
	unsigned done;
	unsigned atomics;
	uint64_t *olds; /* atomic results */
	unsigned n_olds;
	uint32_t seq;
};

static uint64_t rnd(uint64_t *x)
{
	return cs_splitmix64(x);
}

static void tc_issue(struct tcore *c);

static void tc_done(void *core, uint32_t id, const uint8_t *line, uint64_t old)
{
	struct tcore *c = core;

	(void)id;
	ck_assert(c->pending);
	c->pending = false;
	c->done++;
	c->at = sim_now(c->s->tb.k);
	if (line) {
		memcpy(c->got, line, APU_LINE);
		for (unsigned w = 0; w < APU_LINE; w += 4)
			if (c->r.byte_mask >> w & 0xf) {
				uint32_t v;

				memcpy(&v, line + w, 4);
				cohcheck_read(c->s->chk, c->who, c->r.line_addr + w, 4, v);
			}
	}
	if (c->r.kind == CPU_MEM_ATOM) {
		c->old = old;
		if (c->olds)
			c->olds[c->n_olds++] = old;
	}
	if (c->left)
		tc_issue(c);
}

static void tc_retry(void *core)
{
	struct tcore *c = core;

	ck_assert(c->refused);
	c->refused = false;
	c->pending = true;
	if (!apu_cp_mem_ops.access(c->m, &c->r)) {
		c->pending = false;
		c->refused = true;
	}
}

static void tc_init(struct tcore *c, struct sys *s, unsigned cp, unsigned core, unsigned who)
{
	struct cpu_mem_client cl = {.core = c, .done = tc_done, .retry = tc_retry};

	memset(c, 0, sizeof(*c));
	c->s = s;
	c->who = who;
	c->m = apu_cp_mem(s->cp[cp], core);
	apu_cp_mem_ops.bind(c->m, &cl);
}

static void tc_send(struct tcore *c)
{
	c->issued = sim_now(c->s->tb.k);
	c->r.data = c->data;
	c->pending = true;
	if (!apu_cp_mem_ops.access(c->m, &c->r)) {
		c->pending = false;
		c->refused = true;
	}
}

/* A load (CPU_MEM_LD) or an instruction fetch (CPU_MEM_IFETCH) of the word at addr. */
static void tc_read(struct tcore *c, uint8_t kind, uint64_t addr)
{
	memset(&c->r, 0, sizeof(c->r));
	c->r.kind = kind;
	c->r.line_addr = apu_line_of(addr);
	c->r.byte_mask = 0xfull << (addr & 63);
	tc_send(c);
}

static void tc_load(struct tcore *c, uint64_t addr)
{
	tc_read(c, CPU_MEM_LD, addr);
}

static void tc_fetch(struct tcore *c, uint64_t addr)
{
	tc_read(c, CPU_MEM_IFETCH, addr);
}

static void tc_store(struct tcore *c, uint64_t addr, uint32_t v)
{
	memset(&c->r, 0, sizeof(c->r));
	c->r.kind = CPU_MEM_ST;
	c->r.line_addr = apu_line_of(addr);
	c->r.byte_mask = 0xfull << (addr & 63);
	memcpy(c->data + (addr & 63), &v, 4);
	tc_send(c);
}

static void tc_atomic_add(struct tcore *c, uint64_t addr, uint32_t v)
{
	memset(&c->r, 0, sizeof(c->r));
	c->r.kind = CPU_MEM_ATOM;
	c->r.atom_op = MEM_ATOM_ADD;
	c->r.bytes = 4;
	c->r.offset = (uint16_t)(addr & 63);
	c->r.line_addr = apu_line_of(addr);
	c->r.a = v;
	tc_send(c);
}

static uint32_t word(const uint8_t *line, unsigned off)
{
	uint32_t v;

	memcpy(&v, line + off, 4);
	return v;
}

static void run(struct sys *s)
{
	tb_run(&s->tb);
	for (unsigned i = 0; i < s->tb.P; i++)
		ck_assert(apu_cp_idle(s->cp[i]));
}

/* ---- directed -------------------------------------------------------------------------------- */

#define X 0x4000ull

START_TEST(test_silent_e_to_m)
{
	struct sys s;
	struct tcore c;
	uint64_t packets;

	sys_init(&s, 2, false);
	tc_init(&c, &s, 0, 0, 0);
	tc_load(&c, X);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'E');
	ck_assert_uint_eq(tb_stat(&s.tb, "cp0.grants_e"), 1);
	packets = tb_stat(&s.tb, "net.packets"); /* RdBlk, PrbDowngrade, PrbAck, SysResp, Unblock */
	ck_assert_uint_eq(packets, 5);
	tc_store(&c, X + 4, 7);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'M');
	ck_assert_uint_eq(tb_stat(&s.tb, "cp0.silent_e_to_m"), 1);
	/* no message: the directory saw one transaction, the RdBlk */
	ck_assert_uint_eq(tb_stat(&s.tb, "dir.txn.RdBlk"), 1);
	ck_assert_uint_eq(tb_stat(&s.tb, "dir.txn.RdBlkM"), 0);
	ck_assert_uint_eq(tb_stat(&s.tb, "net.packets"), packets);
	sys_fini(&s);
}
END_TEST

START_TEST(test_dirty_line_moves)
{
	struct sys s;
	struct tcore a, b;
	uint8_t d[APU_LINE];
	bool dirty = false;

	sys_init(&s, 2, true);
	tc_init(&a, &s, 0, 0, 0);
	tc_init(&b, &s, 1, 1, 1);
	tc_store(&a, X, 0x1234);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'M');
	tc_load(&b, X);
	run(&s);
	ck_assert_uint_eq(word(b.got, 0), 0x1234);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, &dirty), 'O');
	ck_assert(dirty);
	ck_assert_int_eq(apu_cp_peek(s.cp[1], X, d, &dirty), 'S');
	ck_assert(dirty); /* a dirty sharer */
	ck_assert_uint_eq(tb_stat(&s.tb, "dram0.writes"), 0);
	mem_store_read(s.tb.store, X, d, 4);
	ck_assert_uint_eq(word(d, 0), 0);
	/* the O holder evicts X: lines of X's set (8 sets of 64 B) push it out */
	tc_load(&a, X + 8 * APU_LINE);
	run(&s);
	tc_load(&a, X + 16 * APU_LINE);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'I');
	ck_assert_uint_eq(tb_stat(&s.tb, "cp0.vic_dirty"), 1);
	ck_assert_uint_eq(tb_stat(&s.tb, "dir.vic_dirty"), 1);
	mem_store_read(s.tb.store, X, d, 4);
	ck_assert_uint_eq(word(d, 0), 0x1234);
	ck_assert(apu_dir_llc_peek(s.tb.dir, X, d)); /* and the LLC */
	ck_assert_uint_eq(word(d, 0), 0x1234);
	sys_fini(&s);
}
END_TEST

START_TEST(test_upgrade_invalidates)
{
	struct sys s;
	struct tcore a, b;

	sys_init(&s, 2, false);
	tc_init(&a, &s, 0, 0, 0);
	tc_init(&b, &s, 1, 0, 1);
	tc_load(&a, X);
	run(&s);
	tc_load(&b, X);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'S');
	tc_store(&b, X, 5);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'M');
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'I');
	ck_assert_uint_eq(tb_stat(&s.tb, "cp1.upgrades"), 1);
	ck_assert_uint_eq(tb_stat(&s.tb, "cp0.probes.inv"), 1);
	ck_assert_uint_eq(tb_count(&s.tb, s.tb.P, APU_PRBINV), 1); /* RdBlkM probes the TCC */
	tc_load(&a, X);
	run(&s);
	ck_assert_uint_eq(word(a.got, 0), 5);
	sys_fini(&s);
}
END_TEST

/* DMA read sees a CPU's dirty data (the owner keeps O); DMA write invalidates every copy and
 * memory gets the owner's data with the DMA bytes on top. */
START_TEST(test_dma_with_cpus)
{
	struct sys s;
	struct tcore a, b;
	uint8_t buf[APU_LINE], src[4] = {1, 2, 3, 4}, mem[APU_LINE];

	sys_init(&s, 2, false);
	tc_init(&a, &s, 0, 0, 0);
	tc_init(&b, &s, 1, 0, 1);
	tc_store(&a, X, 0x55);
	run(&s);
	tc_load(&b, X);
	run(&s);
	ck_assert_int_eq(apu_dma_read(s.tb.dma, X, buf, APU_LINE, NULL, NULL), 0);
	run(&s);
	ck_assert_uint_eq(word(buf, 0), 0x55);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'O');
	ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'S');
	ck_assert_int_eq(apu_dma_write(s.tb.dma, X + 8, src, sizeof(src), NULL, NULL), 0);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'I');
	ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'I');
	/* the TCC: one PrbInv for a's RdBlkM, one for the DMAWr */
	ck_assert_uint_eq(tb_count(&s.tb, s.tb.P, APU_PRBINV), 2);
	mem_store_read(s.tb.store, X, mem, APU_LINE);
	ck_assert_uint_eq(word(mem, 0), 0x55);
	ck_assert_mem_eq(mem + 8, src, sizeof(src));
	tc_load(&b, X + 8);
	run(&s);
	ck_assert_mem_eq(b.got + 8, src, sizeof(src));
	sys_fini(&s);
}
END_TEST

/* ---- instruction fetches: the L1I, RdBlkS, MO_S (docs/apu.md §3.1 rows "Ifetch") ------------ */

#define CYCLE (SIM_NS / 2) /* the CorePair's uncore clock, 2 GHz */

/* Memory holds base + i in word i of the line. */
static void mem_pattern(struct sys *s, uint64_t line, uint32_t base)
{
	uint8_t d[APU_LINE];

	for (unsigned w = 0; w < APU_LINE; w += 4) {
		uint32_t v = base + w / 4;

		memcpy(d + w, &v, 4);
	}
	ck_assert_int_eq(mem_store_write(s->tb.store, line, d, APU_LINE), 0);
}

static uint64_t st(struct sys *s, const char *name)
{
	return tb_stat(&s->tb, name);
}

/* Counters and the values they must have; EXPECT(s, {"name", v}, ...) checks them all, naming
 * the first that differs. */
struct want {
	const char *stat;
	uint64_t v;
};

static void expect(struct sys *s, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = st(s, w[i].stat);

		ck_assert_msg(v == w[i].v, "%s = %llu, expected %llu", w[i].stat,
			      (unsigned long long)v, (unsigned long long)w[i].v);
	}
}

#define EXPECT(s, ...)                                              \
	do {                                                        \
		const struct want want_[] = {__VA_ARGS__};          \
		expect(s, want_, sizeof(want_) / sizeof(want_[0])); \
	} while (0)

/* I + Ifetch -> RdBlkS -> I_S -> S (one RdBlkS, P - 1 downgrades, granted S clean); the other
 * core's fetch hits the shared L1I; a load then misses the L1D and is served by the L2. */
START_TEST(test_ifetch_from_i)
{
	struct sys s;
	struct tcore c0, c1;
	bool dirty = true;
	uint64_t packets;

	sys_init(&s, 2, false);
	mem_pattern(&s, X, 0x100);
	tc_init(&c0, &s, 0, 0, 0);
	tc_init(&c1, &s, 0, 1, 1);
	tc_fetch(&c0, X + 8);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, &dirty), 'S');
	ck_assert(!dirty);
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I);
	ck_assert_uint_eq(word(c0.got, 8), 0x102); /* the fetch returns memory's bytes */
	EXPECT(&s, {"cp0.rdblks", 1}, {"cp0.misses", 1}, {"cp0.rdblk", 0}, {"dir.txn.RdBlkS", 1},
	       {"dir.txn.RdBlk", 0}, {"cp1.probes.downgrade", 1});
	ck_assert_uint_eq(tb_count(&s.tb, s.tb.P, APU_PRBDOWNGRADE), 0);
	ck_assert_uint_eq(tb_count(&s.tb, s.tb.P, APU_PRBINV), 0);
	packets = st(&s, "net.packets"); /* RdBlkS, PrbDowngrade, PrbAck, SysResp, Unblock */
	ck_assert_uint_eq(packets, 5);
	/* the other core's fetch: a hit in the shared L1I, no message, l1i_hit_cycles */
	tc_fetch(&c1, X + 12);
	run(&s);
	ck_assert_uint_eq(word(c1.got, 12), 0x103);
	EXPECT(&s, {"cp0.l1i_hits", 1}, {"net.packets", packets});
	ck_assert_uint_le(c1.at - c1.issued, 2 * CYCLE);
	/* a load: L1D0 misses, the L2 serves it after l2_hit_cycles (18) and fills L1D0 */
	tc_load(&c0, X + 16);
	run(&s);
	ck_assert_uint_eq(word(c0.got, 16), 0x104);
	ck_assert_uint_eq(st(&s, "cp0.l2_hits"), 1);
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I | APU_CP_IN_D0);
	ck_assert_uint_ge(c0.at - c0.issued, 18 * CYCLE);
	ck_assert_uint_le(c0.at - c0.issued, 20 * CYCLE);
	ck_assert_uint_eq(st(&s, "net.packets"), packets);
	sys_fini(&s);
}
END_TEST

/* E + Ifetch (L1I miss): the line is dropped silently (no VicClean, no WBAck, no VicData) with
 * its L1D copy, and RdBlkS asks for it again: S. */
START_TEST(test_ifetch_e_dropped)
{
	struct sys s;
	struct tcore c;
	uint64_t packets;

	sys_init(&s, 2, false);
	mem_pattern(&s, X, 0x200);
	tc_init(&c, &s, 0, 0, 0);
	tc_load(&c, X);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'E');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_D0);
	packets = st(&s, "net.packets");
	tc_fetch(&c, X + 4);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I);
	ck_assert_uint_eq(word(c.got, 4), 0x201);
	EXPECT(&s, {"cp0.ifetch_e_drops", 1}, {"cp0.rdblks", 1}, {"cp0.vic_clean", 0},
	       {"dir.txn.VicClean", 0}, {"dir.vic_clean", 0}, {"dir.txn.RdBlkS", 1});
	ck_assert_uint_eq(st(&s, "net.packets") - packets, 5); /* the RdBlkS transaction only */
	sys_fini(&s);
}
END_TEST

/* M (_i = 0) or O (_i = 1) + Ifetch: VicDirty first (MO_S); the CorePair sends RdBlkS only at
 * the WBAck, with the VicData (gem5 cp MO_S0, NB_AckWB); the directory opens the RdBlkS
 * transaction after the victim's data is in (the RdBlkS, a control packet, may arrive before
 * the 72-B VicData and wait for it). Memory gets the dirty data and the fetch returns it. */
START_TEST(test_ifetch_mo_s)
{
	struct sys s;
	struct tcore a, b;
	sim_time_t t = 0, t_vic = 0, t_data = 0, t_sent = 0, t_rdblks = 0;
	uint8_t d[APU_LINE];
	bool dirty = true;

	sys_init(&s, 2, false);
	tc_init(&a, &s, 0, 0, 0);
	tc_init(&b, &s, 1, 0, 1);
	tc_store(&a, X, 0x1234);
	run(&s);
	if (_i) {
		tc_load(&b, X);
		run(&s);
	}
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), _i ? 'O' : 'M');
	t = sim_now(s.tb.k);
	tc_fetch(&a, X);
	while (a.pending) {
		t += CYCLE;
		ck_assert_int_eq(sim_run_until(s.tb.k, t), 0);
		if (!t_vic && st(&s, "dir.txn.VicDirty"))
			t_vic = t;
		if (!t_data && st(&s, "dir.vic_dirty"))
			t_data = t;
		if (!t_sent && st(&s, "cp0.rdblks"))
			t_sent = t;
		if (!t_rdblks && st(&s, "dir.txn.RdBlkS"))
			t_rdblks = t;
		if (!t_rdblks)
			ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'T'); /* MO_S */
	}
	run(&s);
	ck_assert(t_vic && t_data && t_sent && t_rdblks);
	ck_assert_uint_lt(t_vic, t_sent); /* not sent with the VicDirty */
	ck_assert_uint_lt(t_vic, t_data);
	ck_assert_uint_le(t_data, t_rdblks);
	ck_assert_uint_le(st(&s, "dir.parked"), 1);
	ck_assert_uint_eq(word(a.got, 0), 0x1234);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, &dirty), 'S');
	ck_assert(!dirty);
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I);
	if (_i)
		ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'S');
	EXPECT(&s, {"cp0.ifetch_victims", 1}, {"cp0.vic_dirty", 1}, {"cp0.vic_clean", 0},
	       {"cp0.rdblks", 1}, {"dir.txn.VicDirty", 1}, {"dir.vic_dirty", 1},
	       {"dir.txn.RdBlkS", 1});
	mem_store_read(s.tb.store, X, d, 4);
	ck_assert_uint_eq(word(d, 0), 0x1234); /* written back before the fetch */
	/* the victim went into the LLC too, and the RdBlkS's lookup hit it and removed it
	 * (docs/apu.md §3.5) */
	EXPECT(&s, {"dir.llc_writes.victim", 1}, {"dir.llc_hits", 1});
	ck_assert(!apu_dir_llc_peek(s.tb.dir, X, NULL));
	sys_fini(&s);
}
END_TEST

/* MO_S probed: another CorePair's request reaches the directory before the fetch's VicDirty.
 * _i = 0, a store's RdBlkM: the victim answers PrbInv with its data and becomes I_C; at the
 * WBAck it sends StaleNotif (nothing written) and then the RdBlkS, which gets the new owner's
 * data. _i = 1, a load's RdBlk: the victim answers PrbDowngrade with its data and stays MO_S
 * (shared); at the WBAck its VicData writes memory and the RdBlkS follows. */
START_TEST(test_ifetch_mo_s_probed)
{
	struct sys s;
	struct tcore a, b;
	uint8_t d[APU_LINE];

	sys_init(&s, 2, false);
	tc_init(&a, &s, 0, 0, 0);
	tc_init(&b, &s, 1, 0, 1);
	tc_store(&a, X, 0x1234);
	run(&s);
	if (_i)
		tc_load(&b, X + 4); /* its RdBlk leaves a cycle before the VicDirty */
	else
		tc_store(&b, X + 4, 0x77); /* its RdBlkM, the same */
	ck_assert_int_eq(sim_run_until(s.tb.k, sim_now(s.tb.k) + CYCLE), 0);
	tc_fetch(&a, X + 4);
	run(&s);
	ck_assert_uint_eq(word(a.got, 0), 0x1234);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	EXPECT(&s, {"cp0.probe_data", 1}, {"cp0.rdblks", 1}, {"dir.txn.RdBlkS", 1});
	mem_store_read(s.tb.store, X, d, 8);
	if (_i) {
		EXPECT(&s, {"cp0.probes.downgrade", 1}, {"cp0.vic_stale", 0}, {"cp0.vic_dirty", 1},
		       {"dir.vic_dirty", 1});
		ck_assert_uint_eq(word(b.got, 0), 0x1234); /* the victim's probe data */
		ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'S');
		ck_assert_uint_eq(word(d, 0), 0x1234); /* the VicData */
	} else {
		EXPECT(&s, {"cp0.probes.inv", 1}, {"cp0.vic_stale", 1}, {"dir.vic_stale", 1},
		       {"dir.vic_dirty", 0});
		ck_assert_uint_eq(word(a.got, 4), 0x77);
		ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'O');
		ck_assert_uint_eq(word(d, 0), 0); /* the stale victim wrote nothing */
		ck_assert_uint_eq(word(d, 4), 0);
	}
	sys_fini(&s);
}
END_TEST

/* A store drops the L1I's copy (S -> S_M -> M: the upgrade drops it when it starts), so a
 * later fetch of the now M line goes through MO_S and returns the stored value. */
START_TEST(test_store_drops_l1i)
{
	struct sys s;
	struct tcore c0, c1;

	sys_init(&s, 2, false);
	tc_init(&c0, &s, 0, 0, 0);
	tc_init(&c1, &s, 0, 1, 1);
	tc_fetch(&c0, X);
	run(&s);
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I);
	tc_store(&c1, X + 8, 0xabc);
	/* S_M: the L1I copy went when the upgrade started, before the store is performed */
	ck_assert_int_eq(sim_run_until(s.tb.k, sim_now(s.tb.k) + 10 * CYCLE), 0);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'T');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), 0);
	run(&s);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'M');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_D1);
	ck_assert_uint_eq(st(&s, "cp0.upgrades"), 1);
	tc_fetch(&c0, X + 8);
	run(&s);
	ck_assert_uint_eq(word(c0.got, 8), 0xabc);
	EXPECT(&s, {"cp0.l1i_hits", 0}, {"cp0.ifetch_victims", 1}, {"cp0.rdblks", 2});
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I);
	sys_fini(&s);
}
END_TEST

/* Probes and the L1I: a PrbDowngrade leaves an S line and its L1I copy alone; a PrbInv clears
 * the L1I with the L2 line, and the next fetch misses (RdBlkS) and gets the writer's data. */
START_TEST(test_probe_invalidates_l1i)
{
	struct sys s;
	struct tcore a, b;

	sys_init(&s, 2, false);
	mem_pattern(&s, X, 0x300);
	tc_init(&a, &s, 0, 0, 0);
	tc_init(&b, &s, 1, 0, 1);
	tc_fetch(&a, X);
	run(&s);
	tc_load(&b, X); /* RdBlk: a PrbDowngrade to CorePair 0 */
	run(&s);
	ck_assert_uint_eq(st(&s, "cp0.probes.downgrade"), 1);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), APU_CP_IN_I);
	tc_store(&b, X, 0x99); /* RdBlkM: a PrbInv to CorePair 0 */
	run(&s);
	ck_assert_uint_eq(st(&s, "cp0.probes.inv"), 1);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'I');
	ck_assert_uint_eq(apu_cp_peek_l1(s.cp[0], X), 0);
	tc_fetch(&a, X);
	run(&s);
	ck_assert_uint_eq(word(a.got, 0), 0x99);
	ck_assert_uint_eq(word(a.got, 4), 0x301);
	EXPECT(&s, {"cp0.l1i_hits", 0}, {"cp0.rdblks", 2});
	ck_assert_int_eq(apu_cp_peek(s.cp[1], X, NULL, NULL), 'O');
	sys_fini(&s);
}
END_TEST

/* I_S stalls the other core's access until the SysResp (no second request): a load (_i = 0)
 * then hits the L2, a fetch (_i = 1) the shared L1I. */
START_TEST(test_i_s_stalls)
{
	struct sys s;
	struct tcore c0, c1;

	sys_init(&s, 2, false);
	mem_pattern(&s, X, 0x400);
	tc_init(&c0, &s, 0, 0, 0);
	tc_init(&c1, &s, 0, 1, 1);
	tc_fetch(&c0, X);
	tc_read(&c1, _i ? CPU_MEM_IFETCH : CPU_MEM_LD, X + 4);
	run(&s);
	ck_assert_uint_eq(word(c0.got, 0), 0x400);
	ck_assert_uint_eq(word(c1.got, 4), 0x401);
	ck_assert_uint_ge(c1.at, c0.at);
	EXPECT(&s, {"dir.txn.RdBlkS", 1}, {"dir.txn.RdBlk", 0});
	ck_assert_uint_eq(st(&s, _i ? "cp0.l1i_hits" : "cp0.l2_hits"), 1);
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	sys_fini(&s);
}
END_TEST

/* docs/apu.md §7: a CorePair's RdBlkS sends P - 1 PrbDowngrades, one to every other CorePair,
 * none to the TCC, and the directory waits for P - 1 acks (P = 1 .. 4, _i + 1). */
START_TEST(test_rdblks_probe_counts)
{
	struct sys s;
	struct tcore c;
	unsigned P = 1 + (unsigned)_i;
	char name[32];

	sys_init(&s, P, false);
	tc_init(&c, &s, 0, 0, 0);
	tc_fetch(&c, X);
	run(&s);
	ck_assert_uint_eq(st(&s, "dir.txn.RdBlkS"), 1);
	for (unsigned i = 0; i < P; i++) {
		snprintf(name, sizeof(name), "cp%u.probes.downgrade", i);
		ck_assert_uint_eq(st(&s, name), i ? 1 : 0);
		snprintf(name, sizeof(name), "cp%u.probes.inv", i);
		ck_assert_uint_eq(st(&s, name), 0);
	}
	ck_assert_uint_eq(tb_count(&s.tb, P, APU_PRBDOWNGRADE) + tb_count(&s.tb, P, APU_PRBINV), 0);
	EXPECT(&s, {"dir.probes.RdBlkS", P - 1}, {"dir.probes.downgrade", P - 1},
	       {"dir.probes.inv", 0}, {"dir.probe_acks", P - 1});
	ck_assert_int_eq(apu_cp_peek(s.cp[0], X, NULL, NULL), 'S');
	sys_fini(&s);
}
END_TEST

/* ---- stress ---------------------------------------------------------------------------------- */

#define ST_LINES 4
#define ST_BASE	 0x8000ull
#define ST_OPS	 400

static void tc_issue(struct tcore *c)
{
	uint64_t r = rnd(&c->rng);
	unsigned line = (unsigned)(r % c->lines);
	unsigned w = (unsigned)((r >> 8) % 16) * 4;
	unsigned op = (unsigned)((r >> 16) % 10);
	uint64_t addr = ST_BASE + (uint64_t)line * 8 * APU_LINE + w; /* same L2 set: evictions */

	c->left--;
	if (op < 5) {
		tc_load(c, addr);
	} else if (op < 9 && w && w < 32) { /* the CPUs store to words 1..7, the GPU to 8..15 */
		tc_store(c, addr, (c->who + 1) << 24 | ++c->seq);
	} else {
		c->atomics++;
		tc_atomic_add(c, ST_BASE, 1); /* word 0 of line 0: the shared counter */
	}
}

static void issue_ev(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)arg;
	tc_issue(obj);
}

/* The GPU side: the scripted TCC writes through to the stress lines (never the counter). */
static void wt_ev(struct sim_kernel *k, void *obj, void *arg)
{
	struct sys *s = obj;
	unsigned j = (unsigned)(uintptr_t)arg;
	uint64_t r = j * 0x9e3779b97f4a7c15ull;
	unsigned line = (unsigned)(r >> 40) % ST_LINES, w = 32 + (unsigned)(r >> 50) % 8 * 4;
	uint32_t v = 0xf0000000u | j;
	struct mem_msg *m;
	struct apu_ext *e;

	(void)k;
	e = tb_req(&s->tb, s->tb.P, APU_WT, ST_BASE + (uint64_t)line * 8 * APU_LINE, &m);
	e->mask = 0xfull << w;
	memcpy(m->p.data + w, &v, 4);
	tb_send(&s->tb, s->tb.P, m);
}

struct stress_out {
	sim_time_t end;
	uint64_t reads, packets, digest;
};

static void stress(unsigned P, uint64_t seed, struct stress_out *out)
{
	struct sys s;
	struct tcore c[2 * MAXCP];
	uint64_t olds[2 * MAXCP * ST_OPS];
	unsigned n = 2 * P, atomics = 0, n_olds = 0;
	uint64_t counter = 0;

	sys_init(&s, P, true);
	for (unsigned i = 0; i < n; i++) {
		tc_init(&c[i], &s, i / 2, i % 2, i);
		c[i].rng = seed * 1000 + i;
		c[i].left = ST_OPS;
		c[i].lines = ST_LINES;
		c[i].olds = olds + i * ST_OPS;
		sim_schedule(s.tb.k, i * 1000, issue_ev, &c[i], NULL);
	}
	apu_dir_set_check(s.tb.dir, s.chk);
	for (unsigned j = 0; j < 40; j++)
		sim_schedule(s.tb.k, (sim_time_t)j * 700 * SIM_NS, wt_ev, &s, (void *)(uintptr_t)j);
	run(&s);
	for (unsigned i = 0; i < n; i++) {
		ck_assert_uint_eq(c[i].done, ST_OPS);
		atomics += c[i].atomics;
		n_olds += c[i].n_olds;
	}
	ck_assert_msg(cohcheck_violations(s.chk) == 0, "%s", cohcheck_first(s.chk));
	ck_assert_uint_gt(cohcheck_reads(s.chk), 0);
	/* MOESI invariants at quiescence, line by line; the final values */
	out->digest = 0;
	for (unsigned l = 0; l < ST_LINES; l++) {
		uint64_t a = ST_BASE + (uint64_t)l * 8 * APU_LINE;
		uint8_t mem[APU_LINE], ref[APU_LINE], d[APU_LINE];
		unsigned owners = 0, excl = 0, holders = 0;

		mem_store_read(s.tb.store, a, mem, APU_LINE);
		memcpy(ref, mem, APU_LINE);
		for (unsigned i = 0; i < P; i++) {
			char st = apu_cp_peek(s.cp[i], a, d, NULL);

			ck_assert_int_ne(st, 'T');
			if (st == 'I')
				continue;
			if (holders++)
				ck_assert_mem_eq(d, ref, APU_LINE); /* every copy the same */
			memcpy(ref, d, APU_LINE);
			owners += st == 'O' || st == 'M';
			excl += st == 'E' || st == 'M';
		}
		ck_assert_uint_le(owners, 1);
		ck_assert(!excl || holders == 1);
		if (!owners)
			ck_assert_mem_eq(ref, mem, APU_LINE); /* no owner: memory is up to date */
		for (unsigned w = 0; w < APU_LINE; w += 4) {  /* every word holds its last write */
			uint32_t last = 0;

			cohcheck_latest(s.chk, a + w, &last);
			ck_assert_msg(word(ref, w) == last, "line %u word %u: %#x, last write %#x",
				      l, w, word(ref, w), last);
		}
		if (l == 0)
			counter = word(ref, 0);
		for (unsigned i = 0; i < APU_LINE; i++)
			out->digest = (out->digest ^ ref[i]) * 0x100000001b3ull;
	}
	/* every atomic counted once: the counter and the old values 0..n-1, each once */
	ck_assert_uint_eq(counter, atomics);
	ck_assert_uint_eq(n_olds, atomics);
	for (unsigned v = 0; v < atomics; v++) {
		unsigned hits = 0;

		for (unsigned i = 0; i < n; i++)
			for (unsigned j = 0; j < c[i].n_olds; j++)
				hits += c[i].olds[j] == v;
		ck_assert_uint_eq(hits, 1);
	}
	out->end = sim_now(s.tb.k);
	out->reads = cohcheck_reads(s.chk);
	out->packets = tb_stat(&s.tb, "net.packets");
	ck_assert_uint_gt(tb_stat(&s.tb, "dir.parked"), 0); /* the lines were contended */
	ck_assert_uint_eq(tb_stat(&s.tb, "dir.txn.WT"), 40);
	sys_fini(&s);
}

START_TEST(test_stress)
{
	struct stress_out a, b;
	unsigned P = 2 + _i % 3;

	stress(P, 1 + _i, &a);
	stress(P, 1 + _i, &b);
	ck_assert_uint_eq(a.end, b.end); /* deterministic */
	ck_assert_uint_eq(a.reads, b.reads);
	ck_assert_uint_eq(a.packets, b.packets);
	ck_assert_uint_eq(a.digest, b.digest);
}
END_TEST

/* ---- the CPU core model on CorePairs --------------------------------------------------------- */

struct prog {
	uint64_t data, flag, counter;
	unsigned rounds;
	uint64_t seen_old; /* MP: reads of the flag set that found stale data */
	uint64_t flag_seen;
	uint64_t fetched_before, loaded, fetched_after; /* fetch_thread */
	char fail[256];
	unsigned done;
};

static void env_fail(void *sys, int code, const char *msg)
{
	struct prog *p = sys;

	(void)code;
	if (!p->fail[0])
		snprintf(p->fail, sizeof(p->fail), "%s", msg);
}

static void env_done(void *sys, unsigned core)
{
	(void)core;
	((struct prog *)sys)->done++;
}

/* Message passing: thread 0 writes data then flag, round after round; thread 1 waits for each
 * flag value and must then read that round's data (TSO keeps store->store and load->load
 * order). Threads 2 and 3 add to a shared counter with locked atomics. */
static void mp_thread(struct cpu_thread *t)
{
	struct prog *p = (struct prog *)ct_args(t);

	switch (ct_id(t)) {
	case 0:
		for (unsigned r = 1; r <= p->rounds; r++) {
			ct_st32(t, p->data, r);
			ct_st32(t, p->flag, r);
			ct_compute(t, 50);
		}
		break;
	case 1:
		for (unsigned r = 1; r <= p->rounds; r++) {
			uint64_t spins = 0;
			uint32_t f;

			while ((f = ct_ld32(t, p->flag)) < r)
				if (ct_spin_guard(t, &spins)) {
					ct_fail(t, "flag %u never came", r);
					return;
				}
			if (ct_ld32(t, p->data) < f)
				p->seen_old++;
			p->flag_seen++;
		}
		break;
	default:
		for (unsigned r = 0; r < p->rounds; r++)
			ct_atomic(t, MEM_ATOM_ADD, p->counter, 4, 1, 0);
		break;
	}
}

/* CPU core `id` (default parameters: 3.5 GHz) on core c of CorePair cp, its stats in group g;
 * it reports what it reads to the checker the CorePairs write to, as reader 100 + id. */
static struct cpu_core *core_on(struct sys *s, unsigned id, const struct cpu_core_env *env,
				const char *g, unsigned cp, unsigned c)
{
	struct cs_err err;
	struct cpu_core_cfg cc;
	struct cpu_core *core;

	ck_assert_int_eq(cs_params_defaults(&cpu_core_params, &cc, &err), 0);
	ck_assert_int_eq(cpu_core_create(s->tb.k, &cc, id, env,
					 cs_stat_group(cs_stats_root(s->tb.stats), g), &core, &err),
			 0);
	cpu_core_attach(core, &apu_cp_mem_ops, apu_cp_mem(s->cp[cp], c));
	cpu_core_set_check(core, s->chk, 100 + id);
	return core;
}

START_TEST(test_cpu_cores_mp_and_atomics)
{
	struct sys s;
	struct cpu_core *core[4];
	struct prog p = {.data = 0x10000, .flag = 0x20000, .counter = 0x30000, .rounds = 40};
	struct cpu_core_env env = {.sys = &p, .fail = env_fail, .thread_done = env_done, .seed = 1};
	struct cpu_program prog = {.name = "mp", .threads = 4, .fn = mp_thread, .args = &p};
	uint8_t d[APU_LINE];
	uint32_t counter = 0;
	bool found = false;

	sys_init(&s, 2, false);
	/* threads 0 and 1 on different CorePairs, the atomics on both */
	for (unsigned i = 0; i < 4; i++)
		core[i] = core_on(&s, i, &env, "cpu", i % 2, i / 2);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_int_eq(cpu_core_start(core[i], &prog, i, 0), 0);
	run(&s);
	ck_assert_msg(!p.fail[0], "%s", p.fail);
	ck_assert_uint_eq(p.done, 4);
	ck_assert_uint_eq(p.flag_seen, p.rounds);
	ck_assert_uint_eq(p.seen_old, 0);
	for (unsigned i = 0; i < 2 && !found; i++) {
		char st = apu_cp_peek(s.cp[i], p.counter, d, NULL);

		if (st == 'M' || st == 'O' || st == 'E') {
			counter = word(d, 0);
			found = true;
		}
	}
	if (!found) {
		mem_store_read(s.tb.store, p.counter, d, 4);
		counter = word(d, 0);
	}
	ck_assert_uint_eq(counter, 2 * p.rounds);
	/* the checker saw the cores' reads (the reader's flag and data loads; each atomic's old
	 * and new value; each performed store) and found them in order ... */
	ck_assert_msg(cohcheck_violations(s.chk) == 0, "%s", cohcheck_first(s.chk));
	ck_assert_uint_ge(cohcheck_reads(s.chk), 2 * p.flag_seen + 2 * 2 * p.rounds + 2 * p.rounds);
	/* ... and it fails a read out of order: the reader, which saw the last round's data, now
	 * "reads" round 1's, then a value nobody wrote */
	cohcheck_read(s.chk, 101, p.data, 4, 1);
	ck_assert_uint_eq(cohcheck_violations(s.chk), 1);
	ck_assert_ptr_nonnull(strstr(cohcheck_first(s.chk), "older value"));
	cohcheck_read(s.chk, 101, p.data, 4, 0xdead);
	ck_assert_uint_eq(cohcheck_violations(s.chk), 2);
	/* a reader that has seen nothing of the word may read its oldest value */
	cohcheck_read(s.chk, 102, p.data, 4, 1);
	ck_assert_uint_eq(cohcheck_violations(s.chk), 2);
	for (unsigned i = 0; i < 4; i++)
		cpu_core_destroy(core[i]);
	sys_fini(&s);
}
END_TEST

/* ct_ifetch through a CPU core on a CorePair: a fetch issued right after a store to its word
 * does not see the buffered store (a load forwards it) and reads memory's value (its RdBlkS is
 * performed before the store leaves the buffer); after MFENCE the store is performed (the line
 * in M) and the fetch writes the line back (MO_S) and returns the stored value. */
static void fetch_thread(struct cpu_thread *t)
{
	struct prog *p = (struct prog *)ct_args(t);

	ct_st32(t, p->data, 5);
	p->fetched_before = ct_ifetch(t, p->data, 4);
	p->loaded = ct_ld32(t, p->data);
	ct_mfence(t);
	p->fetched_after = ct_ifetch(t, p->data, 4);
}

START_TEST(test_cpu_core_ifetch)
{
	struct sys s;
	struct cpu_core *core;
	struct prog p = {.data = X};
	struct cpu_core_env env = {.sys = &p, .fail = env_fail, .thread_done = env_done, .seed = 1};
	struct cpu_program prog = {.name = "fetch", .threads = 1, .fn = fetch_thread, .args = &p};

	sys_init(&s, 2, false);
	mem_pattern(&s, X, 0x500);
	cohcheck_write(s.chk, X, 4, 0x500); /* the host's write, first in the word's order */
	core = core_on(&s, 0, &env, "cpu0", 0, 0);
	ck_assert_int_eq(cpu_core_start(core, &prog, 0, 0), 0);
	run(&s);
	ck_assert_msg(!p.fail[0], "%s", p.fail);
	ck_assert_uint_eq(p.done, 1);
	ck_assert_uint_eq(p.fetched_before, 0x500);
	ck_assert_uint_eq(p.loaded, 5);
	ck_assert_uint_eq(p.fetched_after, 5);
	EXPECT(&s, {"cpu0.ifetches", 2}, {"cpu0.loads", 1}, {"cpu0.sb.forwards", 1},
	       {"cp0.rdblks", 2});
	ck_assert_uint_eq(st(&s, "cp0.upgrades"), 1); /* the store found the fetched line in S */
	ck_assert_uint_eq(st(&s, "cp0.ifetch_victims"), 1);
	ck_assert_msg(cohcheck_violations(s.chk) == 0, "%s", cohcheck_first(s.chk));
	cpu_core_destroy(core);
	sys_fini(&s);
}
END_TEST

static Suite *apu_cp_suite(void)
{
	Suite *s = suite_create("apu_corepair");
	TCase *tc = tcase_create("corepair");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_silent_e_to_m);
	tcase_add_test(tc, test_dirty_line_moves);
	tcase_add_test(tc, test_upgrade_invalidates);
	tcase_add_test(tc, test_dma_with_cpus);
	tcase_add_test(tc, test_cpu_cores_mp_and_atomics);
	tcase_add_test(tc, test_ifetch_from_i);
	tcase_add_test(tc, test_cpu_core_ifetch);
	tcase_add_test(tc, test_ifetch_e_dropped);
	tcase_add_loop_test(tc, test_ifetch_mo_s, 0, 2);
	tcase_add_loop_test(tc, test_ifetch_mo_s_probed, 0, 2);
	tcase_add_test(tc, test_store_drops_l1i);
	tcase_add_test(tc, test_probe_invalidates_l1i);
	tcase_add_loop_test(tc, test_i_s_stalls, 0, 2);
	tcase_add_loop_test(tc, test_rdblks_probe_counts, 0, MAXCP);
	tcase_add_loop_test(tc, test_stress, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(apu_cp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
