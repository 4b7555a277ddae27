/*
 * tests/unit/test_apu_lt.c - the LT face of the APU controllers (docs/apu.md §11) against their
 * detailed face: the same accesses, one at a time, through the same CorePairs, directory,
 * LLC, DRAM (and TCP, TCC, DMA) give the same values, the same cache and directory states and
 * the same counters of docs/apu.md §7.1 in both faces, and a lone access takes the same path
 * (a hit is a hit, a miss a round trip to the directory).
 */
#include "apu_tb.h"

#include "analytic/ltmodel.h"
#include "tlm/coherence/apu/apu_corepair.h"
#include "tlm/mem/msg.h"

#define MAXCP 4
#define NOPS  400
#define BASE  0x10000ull

struct lsys {
	struct tb tb;
	struct apu_cp *cp[MAXCP];
	struct apu_lt *lt;
	struct lt_params ltp;
};

static void small_l2(struct apu_cp_cfg *c)
{
	c->l2_kib = 1; /* 16 lines: 8 sets of 2 ways (victims) */
	c->l2_assoc = 2;
	c->l1d_kib = 1;
	c->l1d_assoc = 2;
}

static void lsys_init(struct lsys *s, unsigned P)
{
	struct cs_err err;
	struct apu_cp_cfg cc;

	memset(s, 0, sizeof(*s));
	tb_init(&s->tb, P, false, NULL);
	ck_assert_int_eq(cs_params_defaults(&apu_cp_params, &cc, &err), 0);
	small_l2(&cc);
	ck_assert_int_eq(apu_lt_create(s->tb.k, &s->lt), 0);
	for (unsigned i = 0; i < P; i++) {
		char g[16];

		snprintf(g, sizeof(g), "cp%u", i);
		ck_assert_int_eq(apu_cp_create(s->tb.k, &cc, s->tb.msgs, i, s->tb.ep_dir,
					       cs_stat_group(cs_stats_root(s->tb.stats), g),
					       &s->cp[i], &err),
				 0);
		tb_bind(&s->tb, i, apu_cp_port(s->cp[i]));
		apu_port_set_lt(apu_cp_port(s->cp[i]), s->lt);
	}
	apu_port_set_lt(apu_dir_port(s->tb.dir), s->lt);
	apu_port_set_lt(apu_dma_port(s->tb.dma), s->lt);
	apu_port_set_lt(s->tb.ag[P].port, s->lt); /* the scripted TCC */
	lt_params_default(&s->ltp);
	s->ltp.exact = true;
	noc_set_lt(s->tb.net, &s->ltp);
	dram_ctrl_set_lt(s->tb.dram, &s->ltp);
}

static void lsys_fini(struct lsys *s)
{
	for (unsigned i = 0; i < s->tb.P; i++) {
		apu_cp_destroy(s->cp[i]);
		s->tb.ag[i].port = NULL;
	}
	apu_lt_destroy(s->lt);
	tb_fini(&s->tb);
}

/* ---- a script of CPU accesses ------------------------------------------------------------ */

struct op {
	unsigned cp, core;
	struct cpu_mem_req r;
	uint8_t data[APU_LINE];
	/* results */
	sim_time_t issue, lat;
	uint8_t line[APU_LINE];
	uint64_t old;
};

static uint64_t rnd(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* n accesses of P CorePairs' cores to `lines` lines that share few L2 sets (victims), loads,
 * stores and atomic adds. */
static void make_script(struct op *ops, unsigned n, unsigned P, unsigned lines, uint64_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		unsigned kind = rnd(&seed) % 4, w = (unsigned)(rnd(&seed) % 16) * 4;

		memset(o, 0, sizeof(*o));
		o->cp = (unsigned)(rnd(&seed) % P);
		o->core = (unsigned)(rnd(&seed) % 2);
		/* lines 8 sets apart land in one set of the small L2 */
		o->r.line_addr = BASE + (rnd(&seed) % lines) * 8 * APU_LINE;
		o->r.id = i;
		if (kind < 2) {
			o->r.kind = CPU_MEM_LD;
			o->r.byte_mask = 0xfull << w;
		} else if (kind == 2) {
			uint32_t v = (uint32_t)rnd(&seed);

			o->r.kind = CPU_MEM_ST;
			o->r.byte_mask = 0xfull << w;
			memcpy(o->data + w, &v, 4);
		} else {
			o->r.kind = CPU_MEM_ATOM;
			o->r.atom_op = MEM_ATOM_ADD;
			o->r.bytes = 4;
			o->r.offset = (uint16_t)w;
			o->r.a = 1 + rnd(&seed) % 100;
		}
	}
}

/* The detailed face: each access alone (issued once everything before it is over). */
struct at_core {
	struct op *cur;
	bool done;
	sim_time_t at;
	struct sim_kernel *k;
};

static void at_done(void *core, uint32_t id, const uint8_t *line, uint64_t old)
{
	struct at_core *c = core;

	ck_assert_uint_eq(id, c->cur->r.id);
	c->done = true;
	c->at = sim_now(c->k);
	if (line)
		memcpy(c->cur->line, line, APU_LINE);
	c->cur->old = old;
}

static void at_retry(void *core)
{
	(void)core;
	ck_abort_msg("an access alone was refused");
}

static void run_at(struct lsys *s, struct op *ops, unsigned n)
{
	struct at_core cores[MAXCP][2];

	for (unsigned i = 0; i < s->tb.P; i++)
		for (unsigned c = 0; c < 2; c++) {
			struct cpu_mem_client cl = {
			    .core = &cores[i][c], .done = at_done, .retry = at_retry};

			cores[i][c] = (struct at_core){.k = s->tb.k};
			apu_cp_mem_ops.bind(apu_cp_mem(s->cp[i], c), &cl);
		}
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		struct at_core *c = &cores[o->cp][o->core];

		c->cur = o;
		c->done = false;
		o->r.data = o->data;
		o->issue = sim_now(s->tb.k);
		ck_assert(apu_cp_mem_ops.access(apu_cp_mem(s->cp[o->cp], o->core), &o->r));
		tb_run(&s->tb);
		ck_assert(c->done);
		o->lat = c->at - o->issue;
	}
}

/* The LT face: the same accesses at the times the detailed face issued them. */
static void run_lt(struct lsys *s, struct op *ops, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		sim_time_t t;

		o->r.data = o->data;
		t = apu_cp_mem_ops.lt_access(apu_cp_mem(s->cp[o->cp], o->core), &o->r, o->issue,
					     o->line, &o->old);
		ck_assert_msg(!sim_failure(s->tb.k), "%s", sim_failure(s->tb.k));
		ck_assert(t != SIM_TIME_MAX && t >= o->issue);
		o->lat = t - o->issue;
		ck_assert_uint_eq(apu_dir_busy(s->tb.dir), 0);
	}
}

/* What both faces must agree on. */
static const char *const cpu_counters[] = {
    "dir.txn.RdBlk",	   "dir.txn.RdBlkM",	   "dir.txn.VicDirty",	  "dir.txn.VicClean",
    "dir.probes.downgrade", "dir.probes.inv",	   "dir.probes.RdBlk",	  "dir.probes.RdBlkM",
    "dir.probe_acks",	   "dir.probe_acks_data", "dir.parked",		  "dir.vic_clean",
    "dir.vic_dirty",	   "dir.vic_stale",	   "dir.llc_hits",	  "dir.llc_misses",
    "dir.llc_writes.victim", "dir.llc_evictions",   "dir.dram.reads",	  "dir.dram.writes.victim",
    "dir.dram.writes.llc_evict", "dram0.reads",	   "dram0.writes",	  "net.packets",
};

static const char *const cp_counters[] = {
    "l1_hits",	  "l2_hits",   "misses",	"upgrades",	    "rdblk",	  "rdblkm",
    "grants_e",	  "grants_s",  "silent_e_to_m", "vic_clean",	    "vic_dirty",  "vic_stale",
    "probes.downgrade", "probes.inv", "probe_data",
};

struct snap {
	uint64_t ctr[64];
	unsigned n;
	char st[MAXCP][64];
	bool dirty[MAXCP][64];
	uint8_t data[MAXCP][64][APU_LINE];
	bool llc[64];
	uint8_t llc_data[64][APU_LINE], mem[64][APU_LINE];
};

static void snap_take(struct lsys *s, unsigned lines, struct snap *x)
{
	memset(x, 0, sizeof(*x));
	for (unsigned i = 0; i < sizeof(cpu_counters) / sizeof(cpu_counters[0]); i++)
		x->ctr[x->n++] = tb_stat(&s->tb, cpu_counters[i]);
	for (unsigned p = 0; p < s->tb.P; p++)
		for (unsigned i = 0; i < sizeof(cp_counters) / sizeof(cp_counters[0]); i++) {
			char name[48];

			snprintf(name, sizeof(name), "cp%u.%s", p, cp_counters[i]);
			x->ctr[x->n++] = tb_stat(&s->tb, name);
		}
	for (unsigned l = 0; l < lines; l++) {
		uint64_t a = BASE + l * 8 * APU_LINE;

		for (unsigned p = 0; p < s->tb.P; p++)
			x->st[p][l] = apu_cp_peek(s->cp[p], a, x->data[p][l], &x->dirty[p][l]);
		x->llc[l] = apu_dir_llc_peek(s->tb.dir, a, x->llc_data[l]);
		mem_store_read(s->tb.store, a, x->mem[l], APU_LINE);
	}
}

static void snap_compare(const struct snap *a, const struct snap *b, unsigned P, unsigned lines)
{
	ck_assert_uint_eq(a->n, b->n);
	for (unsigned i = 0; i < a->n; i++)
		ck_assert_msg(a->ctr[i] == b->ctr[i], "counter %u: AT %llu, LT %llu", i,
			      (unsigned long long)a->ctr[i], (unsigned long long)b->ctr[i]);
	for (unsigned l = 0; l < lines; l++) {
		for (unsigned p = 0; p < P; p++) {
			ck_assert_msg(a->st[p][l] == b->st[p][l], "cp%u line %u: AT %c, LT %c", p, l,
				      a->st[p][l], b->st[p][l]);
			ck_assert(a->dirty[p][l] == b->dirty[p][l]);
			ck_assert(!memcmp(a->data[p][l], b->data[p][l], APU_LINE));
		}
		ck_assert(a->llc[l] == b->llc[l]);
		ck_assert(!memcmp(a->llc_data[l], b->llc_data[l], APU_LINE));
		ck_assert(!memcmp(a->mem[l], b->mem[l], APU_LINE));
	}
}

static void compare_ops(const struct op *a, const struct op *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (a[i].r.kind == CPU_MEM_LD)
			ck_assert_msg(!memcmp(a[i].line, b[i].line, APU_LINE), "op %u: loaded values",
				      i);
		if (a[i].r.kind == CPU_MEM_ATOM)
			ck_assert_uint_eq(a[i].old, b[i].old);
		/* both faces take the same path: an L2 hit costs the same, a miss costs the
		 * round trip (not compared to the cycle: DRAM's two faces may differ by one of
		 * its cycles, which the directory's clock rounds to one or two) */
		ck_assert_int_eq(a[i].lat < 100 * SIM_NS, b[i].lat < 100 * SIM_NS);
	}
}

/* CPU traffic only: loads, stores, atomics of 8 cores in 4 CorePairs on 12 lines that share
 * one set of each small L2 (victims, stale victims, dirty sharers, upgrades). */
START_TEST(test_cpu_at_lt_equal)
{
	static struct op at[NOPS], lt[NOPS];
	static struct snap sa, sl;
	struct lsys s;
	const unsigned P = 4, lines = 12;

	make_script(at, NOPS, P, lines, 7);
	lsys_init(&s, P);
	run_at(&s, at, NOPS);
	snap_take(&s, lines, &sa);
	lsys_fini(&s);

	memcpy(lt, at, sizeof(lt));
	lsys_init(&s, P);
	run_lt(&s, lt, NOPS);
	snap_take(&s, lines, &sl);
	lsys_fini(&s);

	compare_ops(at, lt, NOPS);
	snap_compare(&sa, &sl, P, lines);
	ck_assert_uint_gt(sa.ctr[5], 0); /* probes.inv: the script shares lines */
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("apu_lt");
	TCase *tc = tcase_create("lt");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpu_at_lt_equal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
