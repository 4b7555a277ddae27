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
#include "tlm/coherence/apu/apu_gpu.h"
#include "tlm/mem/msg.h"
#include "util/mix.h"

#define MAXCP 4
#define MAXCU 4
#define NOPS  400
#define BASE  0x10000ull

struct lsys {
	struct tb tb;
	struct apu_cp *cp[MAXCP];
	struct apu_lt *lt;
	struct lt_params ltp;
	/* the GPU side (n_cu > 0): TCPs at endpoints P + 3.., the TCC at P */
	unsigned n_cu;
	struct gpu_ctx ctx;
	struct gpu_lt_clock clk;
	struct apu_gpu_cfg gcfg;
	uint16_t tcp_node[MAXCU], tcc_node[1];
	struct apu_tcc *tcc;
	struct gpu_l1 *tcp[MAXCU];
	struct lsys_cu {
		struct lsys *s;
		struct op *cur; /* NULL: answers only counted */
		bool done;
		sim_time_t at;
		unsigned ndone;
	} cu[MAXCU];
};

struct op {
	bool gpu;
	unsigned cp, core, cu;
	struct cpu_mem_req r;
	struct gpu_access a;
	struct mem_atom_lanes lanes;
	uint8_t data[APU_LINE];
	/* results */
	sim_time_t issue, lat;
	uint8_t line[APU_LINE];
	uint64_t old;
};

static void small_l2(struct apu_cp_cfg *c)
{
	c->l2_kib = 1; /* 16 lines: 8 sets of 2 ways (victims) */
	c->l2_assoc = 2;
	c->l1d_kib = 1;
	c->l1d_assoc = 2;
}

static void gpu_done(void *obj, uint32_t id, const uint8_t *line)
{
	struct lsys_cu *c = obj;

	c->ndone++;
	if (!c->cur)
		return;
	ck_assert_uint_eq(id, c->cur->a.id);
	ck_assert(!c->done);
	c->done = true;
	c->at = c->s->clk.on ? c->s->clk.t : sim_now(c->s->tb.k);
	if (line)
		memcpy(c->cur->line, line, APU_LINE);
	if (c->cur->a.kind == GPU_ACC_ATOM)
		c->cur->old = c->cur->lanes.lane[0].old;
}

static void gpu_retry(void *obj)
{
	(void)obj;
}

static void gpu_fence_done(void *obj, unsigned warp)
{
	(void)obj;
	(void)warp;
}

/* wb: 0 write-through, 1 WB_L1, 2 WB_L2 */
static void lsys_init(struct lsys *s, unsigned P, unsigned n_cu, unsigned wb,
		      void (*tweak)(struct tb *))
{
	struct cs_err err;
	struct apu_cp_cfg cc;

	memset(s, 0, sizeof(*s));
	tb_init_gpu(&s->tb, P, false, tweak, n_cu);
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
	if (!n_cu)
		apu_port_set_lt(s->tb.ag[P].port, s->lt); /* the scripted TCC */
	lt_params_default(&s->ltp);
	s->ltp.exact = true;
	noc_set_lt(s->tb.net, &s->ltp);
	dram_ctrl_set_lt(s->tb.dram, &s->ltp);
	s->n_cu = n_cu;
	if (!n_cu)
		return;
	ck_assert_int_eq(cs_params_defaults(&apu_tcp_params, &s->gcfg.tcp, &err), 0);
	ck_assert_int_eq(cs_params_defaults(&apu_tcc_params, &s->gcfg.tcc, &err), 0);
	s->gcfg.tcp.size_kib = 1; /* 16 lines in one set: replacements */
	s->gcfg.tcc.size_kib = 1;
	s->gcfg.tcp.write = wb == 1 ? APU_WRITE_BACK : APU_WRITE_THROUGH;
	s->gcfg.tcc.write = wb == 2 ? APU_WRITE_BACK : APU_WRITE_THROUGH;
	for (unsigned i = 0; i < n_cu; i++)
		s->tcp_node[i] = (uint16_t)(P + 3 + i);
	s->tcc_node[0] = (uint16_t)P;
	s->gcfg.msgs = s->tb.msgs;
	s->gcfg.tcp_node = s->tcp_node;
	s->gcfg.tcc_node = s->tcc_node;
	s->gcfg.tccs = 1;
	s->gcfg.dir_node = (uint16_t)s->tb.ep_dir;
	s->gcfg.tcc_obj = &s->tcc;
	s->gcfg.lt = s->lt;
	s->ctx.k = s->tb.k;
	s->ctx.pool = s->tb.pool;
	s->ctx.store = s->tb.store;
	ck_assert_int_eq(sim_clock_init(&s->ctx.core_clk, 1100000000ull), 0);
	ck_assert_int_eq(sim_clock_init(&s->ctx.l2_clk, 1100000000ull), 0);
	s->ctx.sms = n_cu;
	s->ctx.warps = 8;
	s->ctx.proto_cfg = &s->gcfg;
	s->ctx.lt_clock = &s->clk;
	ck_assert_int_eq(apu_tcc_create(&s->ctx, 0,
					cs_stat_group(cs_stats_root(s->tb.stats), "tcc"), &s->tcc,
					&err),
			 0);
	ck_assert_int_eq(tlm_bind(apu_tcc_inject_port(s->tcc), noc_inject_port(s->tb.net, P)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(s->tb.net, P), apu_tcc_deliver_port(s->tcc)), 0);
	for (unsigned i = 0; i < n_cu; i++) {
		struct gpu_l1_client cl = {.sm = &s->cu[i],
					   .done = gpu_done,
					   .retry = gpu_retry,
					   .fence_done = gpu_fence_done};
		char g[16];

		s->cu[i].s = s;
		snprintf(g, sizeof(g), "cu%u", i);
		ck_assert_int_eq(apu_tcp_ops.create(&s->ctx, i, &cl,
						    cs_stat_group(cs_stats_root(s->tb.stats), g),
						    &s->tcp[i], &err),
				 0);
		ck_assert_int_eq(tlm_bind(apu_tcp_ops.noc_port(s->tcp[i]),
					  noc_inject_port(s->tb.net, P + 3 + i)),
				 0);
		ck_assert_int_eq(tlm_bind(noc_deliver_port(s->tb.net, P + 3 + i),
					  apu_tcp_ops.deliver_port(s->tcp[i])),
				 0);
	}
}

static void lsys_fini(struct lsys *s)
{
	for (unsigned i = 0; i < s->n_cu; i++)
		apu_tcp_ops.destroy(s->tcp[i]);
	apu_tcc_destroy(s->tcc);
	for (unsigned i = 0; i < s->tb.P; i++) {
		apu_cp_destroy(s->cp[i]);
		s->tb.ag[i].port = NULL;
	}
	apu_lt_destroy(s->lt);
	tb_fini(&s->tb);
}

/* ---- a script of accesses ---------------------------------------------------------------- */

static uint64_t rnd(uint64_t *x)
{
	return cs_splitmix64(x);
}

/* n accesses to `lines` lines that share a set of every small cache (victims): of P
 * CorePairs' cores (loads, stores, atomic adds) and, with n_cu CUs, of their TCPs (loads,
 * GLC and SLC loads, stores, SLC stores, GLC and SLC atomic adds). */
static void make_script(struct op *ops, unsigned n, unsigned P, unsigned n_cu, unsigned lines,
			uint64_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		unsigned w = (unsigned)(rnd(&seed) % 16) * 4;
		uint64_t line = BASE + (rnd(&seed) % lines) * 16 * APU_LINE;
		uint32_t v = (uint32_t)rnd(&seed);

		memset(o, 0, sizeof(*o));
		o->gpu = n_cu && (!P || rnd(&seed) % 2);
		if (!o->gpu) {
			unsigned kind = (unsigned)(rnd(&seed) % 4);

			o->cp = (unsigned)(rnd(&seed) % P);
			o->core = (unsigned)(rnd(&seed) % 2);
			o->r.line_addr = line;
			o->r.id = i;
			if (kind < 2) {
				o->r.kind = CPU_MEM_LD;
				o->r.byte_mask = 0xfull << w;
			} else if (kind == 2) {
				o->r.kind = CPU_MEM_ST;
				o->r.byte_mask = 0xfull << w;
				memcpy(o->data + w, &v, 4);
			} else {
				o->r.kind = CPU_MEM_ATOM;
				o->r.atom_op = MEM_ATOM_ADD;
				o->r.bytes = 4;
				o->r.offset = (uint16_t)w;
				o->r.a = 1 + v % 100;
			}
			continue;
		}
		{
			unsigned kind = (unsigned)(rnd(&seed) % 7);

			o->cu = (unsigned)(rnd(&seed) % n_cu);
			o->a.id = i;
			o->a.line_addr = line;
			o->a.byte_mask[0] = 0xfull << w;
			o->a.sector_mask = 0xff;
			o->a.scope = MEM_SCOPE_DEVICE;
			o->a.order = MEM_ORDER_RELAXED;
			switch (kind) {
			case 0:
			case 1:
				o->a.kind = GPU_ACC_LD;
				break;
			case 2: /* GLC */
				o->a.kind = GPU_ACC_LD;
				o->a.order = MEM_ORDER_ACQUIRE;
				break;
			case 3: /* SLC */
				o->a.kind = GPU_ACC_LD;
				o->a.scope = MEM_SCOPE_SYSTEM;
				break;
			case 4:
			case 5:
				o->a.kind = GPU_ACC_ST;
				o->a.scope = kind == 5 ? MEM_SCOPE_SYSTEM : MEM_SCOPE_DEVICE;
				memcpy(o->data + w, &v, 4);
				break;
			default:
				o->a.kind = GPU_ACC_ATOM;
				o->a.scope = v % 2 ? MEM_SCOPE_SYSTEM : MEM_SCOPE_DEVICE;
				o->lanes.n = 1;
				o->lanes.op = MEM_ATOM_ADD;
				o->lanes.bytes = 4;
				o->lanes.lane[0].offset = (uint16_t)w;
				o->lanes.lane[0].a = 1 + v % 100;
				break;
			}
		}
	}
}

static void op_bind_data(struct op *o)
{
	if (!o->gpu)
		o->r.data = o->data;
	else if (o->a.kind == GPU_ACC_ST)
		o->a.data = o->data;
	else if (o->a.kind == GPU_ACC_ATOM)
		o->a.data = (uint8_t *)&o->lanes;
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

static void kernel_end_cb(void *arg)
{
	(*(unsigned *)arg)++;
}

/* The kernel's end on every TCP (WB_L1, WB_L2 flush); lt: in the LT face. */
static void end_kernel(struct lsys *s, bool lt, sim_time_t t)
{
	unsigned ended = 0;

	s->clk.t = t;
	for (unsigned i = 0; i < s->n_cu; i++)
		apu_tcp_ops.kernel_end(s->tcp[i], kernel_end_cb, &ended);
	if (!lt)
		tb_run(&s->tb);
	ck_assert_uint_eq(ended, s->n_cu);
}

static void run_at(struct lsys *s, struct op *ops, unsigned n)
{
	static struct at_core cores[MAXCP][2];

	for (unsigned i = 0; i < s->tb.P; i++)
		for (unsigned c = 0; c < 2; c++) {
			struct cpu_mem_client cl = {
			    .core = &cores[i][c], .done = at_done, .retry = at_retry};

			cores[i][c] = (struct at_core){.k = s->tb.k};
			apu_cp_mem_ops.bind(apu_cp_mem(s->cp[i], c), &cl);
		}
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		bool *done;
		sim_time_t *at;

		op_bind_data(o);
		o->issue = sim_now(s->tb.k);
		if (!o->gpu) {
			struct at_core *c = &cores[o->cp][o->core];

			c->cur = o;
			c->done = false;
			done = &c->done;
			at = &c->at;
			ck_assert(apu_cp_mem_ops.access(apu_cp_mem(s->cp[o->cp], o->core), &o->r));
		} else {
			struct lsys_cu *c = &s->cu[o->cu];

			c->cur = o;
			c->done = false;
			done = &c->done;
			at = &c->at;
			ck_assert(apu_tcp_ops.access(s->tcp[o->cu], &o->a));
		}
		tb_run(&s->tb);
		ck_assert(*done);
		o->lat = *at - o->issue;
	}
	end_kernel(s, false, 0);
}

/* The LT face: the same accesses, each later than the detailed face issued it by LT_GAP per
 * access before it, so that no access of the LT face finds a line still held by the one
 * before: the faces' latencies differ (DRAM's two faces by a cycle, and with it the order of
 * what follows), by up to about 80 ns on one access; 10 ns sufficed by chance. */
#define LT_GAP (200 * SIM_NS)

static void run_lt(struct lsys *s, struct op *ops, unsigned n)
{
	sim_time_t end = 0;

	for (unsigned i = 0; i < s->n_cu; i++)
		apu_tcp_ops.set_lt(s->tcp[i], true);
	for (unsigned i = 0; i < n; i++) {
		struct op *o = &ops[i];
		sim_time_t t, at = o->issue + (sim_time_t)i * LT_GAP;

		op_bind_data(o);
		if (!o->gpu) {
			t = apu_cp_mem_ops.lt_access(apu_cp_mem(s->cp[o->cp], o->core), &o->r, at,
						     o->line, &o->old);
		} else {
			struct lsys_cu *c = &s->cu[o->cu];

			c->cur = o;
			c->done = false;
			s->clk.on = true;
			s->clk.t = at;
			t = apu_tcp_ops.lt_access(s->tcp[o->cu], &o->a, at, true);
			ck_assert(t != SIM_TIME_MAX);
			/* the answers back at their times */
			while (apu_tcp_ops.lt_advance(s->tcp[o->cu], t) != SIM_TIME_MAX)
				t = apu_tcp_ops.lt_advance(s->tcp[o->cu], SIM_TIME_MAX);
			s->clk.on = false;
			ck_assert(c->done);
			t = c->at;
		}
		ck_assert_msg(!sim_failure(s->tb.k), "%s", sim_failure(s->tb.k));
		ck_assert(t != SIM_TIME_MAX && t >= at);
		o->lat = t - at;
		ck_assert_uint_eq(apu_dir_busy(s->tb.dir), 0);
		if (t > end)
			end = t;
	}
	s->clk.on = true;
	end_kernel(s, true, end + 10 * SIM_NS);
	s->clk.on = false;
	ck_assert_msg(!sim_failure(s->tb.k), "%s", sim_failure(s->tb.k));
	for (unsigned i = 0; i < s->n_cu; i++)
		apu_tcp_ops.set_lt(s->tcp[i], false);
	tb_run(&s->tb); /* nothing is left for the detailed face */
}

/* What both faces must agree on (docs/apu.md §7.1). */
static const char *const sys_counters[] = {
    "dir.txn.RdBlk",
    "dir.txn.RdBlkS",
    "dir.txn.RdBlkM",
    "dir.txn.VicDirty",
    "dir.txn.VicClean",
    "dir.txn.WT",
    "dir.txn.Atomic",
    "dir.txn.Flush",
    "dir.txn.DMARd",
    "dir.txn.DMAWr",
    "dir.probes.downgrade",
    "dir.probes.inv",
    "dir.probes.RdBlk",
    "dir.probes.RdBlkS",
    "dir.probes.RdBlkM",
    "dir.probes.WT",
    "dir.probes.Atomic",
    "dir.probes.DMAWr",
    "dir.probe_acks",
    "dir.probe_acks_data",
    "dir.parked",
    "dir.vic_clean",
    "dir.vic_dirty",
    "dir.vic_stale",
    "dir.llc_hits",
    "dir.llc_misses",
    "dir.llc_writes.victim",
    "dir.llc_evictions",
    "dir.dram.reads",
    "dir.dram.writes.victim",
    "dir.dram.writes.wt",
    "dir.dram.writes.atomic",
    "dir.dram.writes.flush",
    "dir.dram.writes.dma",
    "dir.dram.writes.llc_evict",
    "dir.dram.writes.backinv",
    "dir.probes.backinv",
    "dir.early_responses",
    "dram0.reads",
    "dram0.writes",
    "dma.lines_read",
    "dma.lines_written",
    "net.packets",
};

/* the directory cache's, with tracking */
static const char *const pf_counters[] = {
    "dir.pf.found.I",	"dir.pf.found.S",	  "dir.pf.found.O",
    "dir.pf.evictions", "dir.llc_writes.backinv",
};

static const char *const cp_counters[] = {
    "l1_hits",	 "l2_hits",   "misses",		  "upgrades",	    "rdblk",
    "rdblkm",	 "grants_e",  "grants_s",	  "silent_e_to_m",  "vic_clean",
    "vic_dirty", "vic_stale", "probes.downgrade", "probes.inv",	    "probe_data",
    "l1i_hits",	 "rdblks",    "ifetch_e_drops",	  "ifetch_victims",
};

static const char *const tcp_counters[] = {
    "accesses", "loads",	"stores", "atomics",	  "load_hits", "load_misses",
    "merges",	"bypass_loads", "parked", "store_evicts", "flushes",   "refused",
};

static const char *const tcc_counters[] = {
    "tcc.reads",
    "tcc.hits",
    "tcc.misses",
    "tcc.merged_reads",
    "tcc.bypass_reads",
    "tcc.wts",
    "tcc.atomics.tcc",
    "tcc.atomics.dir",
    "tcc.parked",
    "tcc.probes",
    "tcc.probe_invalidations",
    "tcc.unblocks",
    "tcc.writebacks",
    "tcc.flushes",
};

#define MAXLINES 16

struct snap {
	uint64_t ctr[200];
	char name[200][48];
	unsigned n;
	char st[MAXCP][MAXLINES];
	bool dirty[MAXCP][MAXLINES];
	uint8_t data[MAXCP][MAXLINES][APU_LINE];
	bool llc[MAXLINES];
	uint8_t llc_data[MAXLINES][APU_LINE], mem[MAXLINES][APU_LINE];
	uint64_t digest[MAXCU + 1];
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void snap_take(struct lsys *s, unsigned lines, struct snap *x)
{
	char name[48];

	memset(x, 0, sizeof(*x));
#define TAKE(nm)                                                       \
	do {                                                           \
		snprintf(x->name[x->n], sizeof(x->name[0]), "%s", nm); \
		x->ctr[x->n] = tb_stat(&s->tb, nm);                    \
		x->n++;                                                \
	} while (0)
	for (unsigned i = 0; i < N(sys_counters); i++)
		TAKE(sys_counters[i]);
	if (s->tb.dcfg.tracking != APU_TRACK_NONE)
		for (unsigned i = 0; i < N(pf_counters); i++)
			TAKE(pf_counters[i]);
	for (unsigned p = 0; p < s->tb.P; p++)
		for (unsigned i = 0; i < N(cp_counters); i++) {
			snprintf(name, sizeof(name), "cp%u.%s", p, cp_counters[i]);
			TAKE(name);
		}
	for (unsigned c = 0; c < s->n_cu; c++) {
		for (unsigned i = 0; i < N(tcp_counters); i++) {
			snprintf(name, sizeof(name), "cu%u.%s", c, tcp_counters[i]);
			TAKE(name);
		}
		x->digest[c] = apu_tcp_ops.digest(s->tcp[c]);
	}
	if (s->n_cu) {
		for (unsigned i = 0; i < N(tcc_counters); i++)
			TAKE(tcc_counters[i]);
		x->digest[MAXCU] = apu_tcc_digest(s->tcc);
	}
#undef TAKE
	ck_assert_uint_le(x->n, N(x->ctr));
	for (unsigned l = 0; l < lines; l++) {
		uint64_t a = BASE + l * 16 * APU_LINE;

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
		ck_assert_msg(a->ctr[i] == b->ctr[i], "%s: AT %llu, LT %llu", a->name[i],
			      (unsigned long long)a->ctr[i], (unsigned long long)b->ctr[i]);
	for (unsigned i = 0; i <= MAXCU; i++)
		ck_assert_msg(a->digest[i] == b->digest[i], "GPU cache %u: states differ", i);
	for (unsigned l = 0; l < lines; l++) {
		for (unsigned p = 0; p < P; p++) {
			ck_assert_msg(a->st[p][l] == b->st[p][l], "cp%u line %u: AT %c, LT %c", p,
				      l, a->st[p][l], b->st[p][l]);
			ck_assert(a->dirty[p][l] == b->dirty[p][l]);
			ck_assert(!memcmp(a->data[p][l], b->data[p][l], APU_LINE));
		}
		ck_assert(a->llc[l] == b->llc[l]);
		ck_assert(!memcmp(a->llc_data[l], b->llc_data[l], APU_LINE));
		ck_assert_msg(!memcmp(a->mem[l], b->mem[l], APU_LINE), "line %u: memory differs",
			      l);
	}
}

static bool is_load(const struct op *o)
{
	return o->gpu ? o->a.kind == GPU_ACC_LD
		      : o->r.kind == CPU_MEM_LD || o->r.kind == CPU_MEM_IFETCH;
}

static bool is_atomic(const struct op *o)
{
	return o->gpu ? o->a.kind == GPU_ACC_ATOM : o->r.kind == CPU_MEM_ATOM;
}

static void compare_ops(const struct op *a, const struct op *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (is_load(&a[i]))
			ck_assert_msg(!memcmp(a[i].line, b[i].line, APU_LINE),
				      "op %u: loaded values", i);
		if (is_atomic(&a[i]))
			ck_assert_msg(a[i].old == b[i].old, "op %u: atomic's old value", i);
		/* both faces take the same path: an L2 hit costs the same, a miss costs the
		 * round trip (not compared to the cycle: DRAM's two faces may differ by one of
		 * its cycles, which the directory's clock rounds to one or two) */
		if (!a[i].gpu)
			ck_assert_int_eq(a[i].lat < 100 * SIM_NS, b[i].lat < 100 * SIM_NS);
	}
}

/* The same script in both faces, compared. fetches: every other CPU load of the script is an
 * instruction fetch instead (the L1I, RdBlkS, MO_S). */
static void at_lt_equal(unsigned P, unsigned n_cu, unsigned wb, unsigned lines, uint64_t seed,
			bool fetches, void (*tweak)(struct tb *), struct snap *sa)
{
	static struct op at[NOPS], lt[NOPS];
	static struct snap sl;
	struct lsys s;

	ck_assert_uint_le(lines, MAXLINES);
	make_script(at, NOPS, P, n_cu, lines, seed);
	for (unsigned i = 0; fetches && i < NOPS; i++)
		if (!at[i].gpu && at[i].r.kind == CPU_MEM_LD && i % 2)
			at[i].r.kind = CPU_MEM_IFETCH;
	lsys_init(&s, P, n_cu, wb, tweak);
	run_at(&s, at, NOPS);
	snap_take(&s, lines, sa);
	lsys_fini(&s);

	memcpy(lt, at, sizeof(lt));
	lsys_init(&s, P, n_cu, wb, tweak);
	run_lt(&s, lt, NOPS);
	snap_take(&s, lines, &sl);
	lsys_fini(&s);

	compare_ops(at, lt, NOPS);
	snap_compare(sa, &sl, P, lines);
}

static uint64_t ctr(const struct snap *x, const char *name)
{
	if (getenv("APU_LT_DUMP"))
		for (unsigned i = 0; i < x->n; i++)
			fprintf(stderr, "%s %llu\n", x->name[i], (unsigned long long)x->ctr[i]);
	for (unsigned i = 0; i < x->n; i++)
		if (!strcmp(x->name[i], name))
			return x->ctr[i];
	ck_abort_msg("no counter %s", name);
	return 0;
}

/* CPU traffic only: loads, stores, atomics of 8 cores in 4 CorePairs on 12 lines that share
 * one set of each small L2 (victims, stale victims, dirty sharers, upgrades). */
START_TEST(test_cpu_at_lt_equal)
{
	static struct snap sa;

	at_lt_equal(4, 0, 0, 12, 7, false, NULL, &sa);
	ck_assert_uint_gt(ctr(&sa, "dir.probes.inv"), 0); /* the script shares lines */
	ck_assert_uint_gt(ctr(&sa, "dir.vic_dirty"), 0);
	ck_assert_uint_gt(ctr(&sa, "dir.llc_hits"), 0);
}
END_TEST

/* Instruction fetches among CPU loads, stores and atomics (2 CorePairs, 6 lines): the L1I,
 * RdBlkS, E dropped for a fetch, M/O written back for one (MO_S) give the same values, states
 * and counters in both faces. */
START_TEST(test_ifetch_at_lt_equal)
{
	static struct snap sa;
	uint64_t victims = 0, drops = 0, l1i = 0;

	at_lt_equal(2, 0, 0, 6, 31, true, NULL, &sa);
	ck_assert_uint_gt(ctr(&sa, "dir.txn.RdBlkS"), 0);
	ck_assert_uint_gt(ctr(&sa, "dir.probes.RdBlkS"), 0);
	for (unsigned p = 0; p < 2; p++) {
		char name[48];

		snprintf(name, sizeof(name), "cp%u.ifetch_victims", p);
		victims += ctr(&sa, name);
		snprintf(name, sizeof(name), "cp%u.ifetch_e_drops", p);
		drops += ctr(&sa, name);
		snprintf(name, sizeof(name), "cp%u.l1i_hits", p);
		l1i += ctr(&sa, name);
	}
	ck_assert_uint_gt(victims, 0);
	ck_assert_uint_gt(drops, 0);
	ck_assert_uint_gt(l1i, 0);
}
END_TEST

/* GPU traffic only through TCPs and the TCC: write-through, WB_L1, WB_L2 (_i). */
START_TEST(test_gpu_at_lt_equal)
{
	static struct snap sa;

	at_lt_equal(1, 3, (unsigned)_i, 10, 11 + (uint64_t)_i, false, NULL, &sa);
	ck_assert_uint_gt(ctr(&sa, "dir.txn.RdBlk"), 0);
	ck_assert_uint_gt(ctr(&sa, "dir.txn.Atomic"), 0);
	if (_i != 2)
		ck_assert_uint_gt(ctr(&sa, "dir.txn.WT"), 0);
}
END_TEST

/* CPU and GPU sharing lines: CorePairs' probes reach the TCC, the TCC's writes invalidate
 * the CorePairs. */
START_TEST(test_mixed_at_lt_equal)
{
	static struct snap sa;

	at_lt_equal(2, 2, (unsigned)_i, 10, 23 + (uint64_t)_i, false, NULL, &sa);
	ck_assert_uint_gt(ctr(&sa, "dir.probes.inv"), 0);
	ck_assert_uint_gt(ctr(&sa, "dir.probes.WT") + ctr(&sa, "dir.probes.Atomic"), 0);
}
END_TEST

/* Seed 002's directory variants (docs/apu.md §3.5, §3.6) in both faces, on the CPU script and
 * the CPU + GPU one: owner and sharer tracking (a directory cache of 8 entries in 2 ways, so
 * entries are evicted and back-invalidated), a limited-pointer list, the TCC in every
 * invalidation (gem5's rule), early response, clean
 * victims to the LLC or nowhere, useL3OnWT, the write-back LLC, and all of them together. */
static void v_owner(struct tb *tb)
{
	tb->dcfg.tracking = APU_TRACK_OWNER;
	tb->dcfg.entries = 8;
	tb->dcfg.entry_assoc = 2;
}

static void v_sharers(struct tb *tb)
{
	v_owner(tb);
	tb->dcfg.tracking = APU_TRACK_SHARERS;
}

static void v_pointers(struct tb *tb)
{
	tb->dcfg.tracking = APU_TRACK_SHARERS;
	tb->dcfg.sharer_pointers = 1;
}

static void v_tcc_always(struct tb *tb)
{
	v_sharers(tb);
	tb->dcfg.tcc_inv_always = true;
}

static void v_early(struct tb *tb)
{
	tb->dcfg.early_response = true;
}

static void v_llc_only(struct tb *tb)
{
	tb->dcfg.clean_victims = APU_CLEAN_VIC_LLC;
}

static void v_nowhere(struct tb *tb)
{
	tb->dcfg.clean_victims = APU_CLEAN_VIC_NONE;
}

static void v_use_on_wt(struct tb *tb)
{
	tb->lcfg.use_on_wt = true;
}

/* A, B and C together on the sharer list: the study's "all" */
static void v_all(struct tb *tb)
{
	v_sharers(tb);
	tb->dcfg.early_response = true;
	tb->dcfg.clean_victims = APU_CLEAN_VIC_LLC;
	tb->lcfg.write_back = tb->lcfg.use_on_wt = true;
}

static void v_write_back(struct tb *tb)
{
	v_sharers(tb);
	tb->lcfg.write_back = tb->lcfg.use_on_wt = true;
}

static void (*const variants[])(struct tb *) = {v_owner,      v_sharers,  v_pointers, v_tcc_always,
						v_early,      v_llc_only, v_nowhere,  v_use_on_wt,
						v_write_back, v_all};

#define N_VARIANTS (sizeof(variants) / sizeof(variants[0]))

START_TEST(test_variants_at_lt_equal)
{
	static struct snap sa;
	unsigned v = (unsigned)_i / 2;

	if (_i % 2)
		at_lt_equal(2, 2, 0, 10, 23, false, variants[v], &sa);
	else
		at_lt_equal(4, 0, 0, 12, 7, false, variants[v], &sa);
	if (variants[v] == v_owner || variants[v] == v_sharers)
		ck_assert_uint_gt(ctr(&sa, "dir.pf.evictions"), 0);
	if (variants[v] == v_early && _i % 2 == 0)
		ck_assert_uint_gt(ctr(&sa, "dir.early_responses"), 0);
}
END_TEST

/* DMA reads and writes between CPU accesses, in both faces. */
START_TEST(test_dma_at_lt_equal)
{
	static struct op ops[2][40];
	static struct snap sn[2];
	uint8_t buf[2][4][256];
	sim_time_t dma_at[4];

	for (unsigned face = 0; face < 2; face++) {
		struct lsys s;
		sim_time_t t = 0;

		make_script(ops[face], 40, 2, 0, 8, 5);
		lsys_init(&s, 2, 0, 0, NULL);
		for (unsigned i = 0; i < 4; i++) {
			uint64_t a = BASE + 16 * APU_LINE * (i % 8) + 8;
			uint8_t src[256];

			for (unsigned b = 0; b < sizeof(src); b++)
				src[b] = (uint8_t)(b + 3 * i);
			/* the LT face 2 us (and its accesses' gaps) later per round: its round never
			 * meets the last one's */
			sim_time_t off = (sim_time_t)(i + 1) * (2000 * SIM_NS + 10 * LT_GAP);

			if (!face) {
				run_at(&s, ops[face] + 10 * i, 10);
				dma_at[i] = sim_now(s.tb.k);
				ck_assert_int_eq(
				    i % 2
					? apu_dma_write(s.tb.dma, a, src, 200, NULL, NULL)
					: apu_dma_read(s.tb.dma, a, buf[face][i], 256, NULL, NULL),
				    0);
				tb_run(&s.tb);
			} else {
				for (unsigned j = 0; j < 10; j++)
					ops[face][10 * i + j].issue =
					    ops[0][10 * i + j].issue + off;
				run_lt(&s, ops[face] + 10 * i, 10);
				t = dma_at[i] + off + 10 * LT_GAP;
				t = i % 2 ? apu_dma_lt_write(s.tb.dma, a, src, 200, t)
					  : apu_dma_lt_read(s.tb.dma, a, buf[face][i], 256, t);
				ck_assert(t != SIM_TIME_MAX);
				ck_assert_msg(!sim_failure(s.tb.k), "%s", sim_failure(s.tb.k));
			}
		}
		snap_take(&s, 8, &sn[face]);
		lsys_fini(&s);
	}
	ck_assert(!memcmp(buf[0][0], buf[1][0], 256));
	ck_assert(!memcmp(buf[0][2], buf[1][2], 256));
	compare_ops(ops[0], ops[1], 40);
	snap_compare(&sn[0], &sn[1], 2, 8);
	ck_assert_uint_gt(ctr(&sn[0], "dma.lines_read"), 0);
	ck_assert_uint_gt(ctr(&sn[0], "dma.lines_written"), 0);
}
END_TEST

/* The TCP's LT face keeps a miss in flight until its answer's time: a second load of the line
 * by another warp of the CU before then merges into the MSHR entry (one TcpRd), and both are
 * answered when lt_advance reaches the fill, as in the detailed face. */
START_TEST(test_tcp_lt_merges)
{
	static struct op o[2];
	struct lsys s;
	sim_time_t t0 = 1000 * SIM_NS, back;

	make_script(o, 2, 0, 1, 1, 9);
	for (unsigned i = 0; i < 2; i++) {
		o[i].a.kind = GPU_ACC_LD;
		o[i].a.scope = MEM_SCOPE_DEVICE;
		o[i].a.order = MEM_ORDER_RELAXED;
		o[i].a.warp = (uint16_t)i;
	}
	lsys_init(&s, 1, 1, 0, NULL);
	apu_tcp_ops.set_lt(s.tcp[0], true);
	s.clk.on = true;
	back = apu_tcp_ops.lt_access(s.tcp[0], &o[0].a, t0, true);
	ck_assert(back != SIM_TIME_MAX && back > t0);
	ck_assert_uint_eq(s.cu[0].ndone, 0); /* the fill is not back yet */
	ck_assert_uint_eq(apu_tcp_ops.lt_advance(s.tcp[0], t0), back);
	ck_assert(apu_tcp_ops.lt_access(s.tcp[0], &o[1].a, t0 + SIM_NS, true) != SIM_TIME_MAX);
	ck_assert_uint_eq(tb_stat(&s.tb, "cu0.merges"), 1);
	ck_assert_uint_eq(tb_stat(&s.tb, "tcc.reads"), 1);
	ck_assert_uint_eq(s.cu[0].ndone, 0);
	ck_assert_uint_eq(apu_tcp_ops.lt_advance(s.tcp[0], back), SIM_TIME_MAX);
	ck_assert_uint_eq(s.cu[0].ndone, 2); /* both, with the fill */
	ck_assert(apu_tcp_ops.idle(s.tcp[0]));
	apu_tcp_ops.set_lt(s.tcp[0], false);
	s.clk.on = false;
	ck_assert_msg(!sim_failure(s.tb.k), "%s", sim_failure(s.tb.k));
	lsys_fini(&s);
}
END_TEST

/* The CorePair's LT face keeps the detailed face's order of a core's accesses and of a fill:
 * a core's port serves one access at a time (a second load issued at once starts when the
 * first is done), and the other core's load of a line being filled joins the miss (answered
 * with the data, not at the L2's hit latency). Before, chai_hsto's CPU threads read the image
 * 5x faster in LT than in the detailed face (analytic mode -80.0%, now -4.8%). */
START_TEST(test_corepair_lt_order)
{
	struct lsys s;
	struct cpu_mem_req a = {.kind = CPU_MEM_LD, .line_addr = BASE, .byte_mask = 0xf};
	struct cpu_mem_req b = a;
	sim_time_t t0 = 1000 * SIM_NS, fill, joined, second;

	b.line_addr = BASE + 16 * APU_LINE;
	lsys_init(&s, 1, 0, 0, NULL);
	fill = apu_cp_mem_ops.lt_access(apu_cp_mem(s.cp[0], 0), &a, t0, NULL, NULL);
	ck_assert(fill > t0 + 50 * SIM_NS); /* a miss: the directory, DRAM */
	joined = apu_cp_mem_ops.lt_access(apu_cp_mem(s.cp[0], 1), &a, t0, NULL, NULL);
	ck_assert_msg(joined >= fill, "core 1 at %llu ps, the fill at %llu",
		      (unsigned long long)joined, (unsigned long long)fill);
	second = apu_cp_mem_ops.lt_access(apu_cp_mem(s.cp[0], 0), &b, t0, NULL, NULL);
	ck_assert_msg(second >= fill + (fill - t0) / 2, "core 0's second miss done at %llu ps",
		      (unsigned long long)second);
	ck_assert_uint_eq(tb_stat(&s.tb, "cp0.misses"), 2);
	ck_assert_msg(!sim_failure(s.tb.k), "%s", sim_failure(s.tb.k));
	lsys_fini(&s);
}
END_TEST

/* A line whose transaction the detailed face opened is not absorbed by an LT run: the run
 * fails naming it. */
START_TEST(test_mixed_faces_fail)
{
	struct lsys s;
	struct op o[2];
	struct at_core c = {0};
	struct cpu_mem_client cl = {.core = &c, .done = at_done, .retry = at_retry};

	make_script(o, 2, 2, 0, 1, 3);
	o[0].cp = 0;
	o[1].cp = 1;
	o[0].r.kind = o[1].r.kind = CPU_MEM_LD;
	lsys_init(&s, 2, 0, 0, NULL);
	c.k = s.tb.k;
	c.cur = &o[0];
	apu_cp_mem_ops.bind(apu_cp_mem(s.cp[0], o[0].core), &cl);
	ck_assert(apu_cp_mem_ops.access(apu_cp_mem(s.cp[0], o[0].core), &o[0].r));
	sim_run_until(s.tb.k, 100 * SIM_NS); /* the RdBlk is at the directory, not answered */
	ck_assert_uint_gt(apu_dir_busy(s.tb.dir), 0);
	ck_assert(!c.done);
	apu_cp_mem_ops.lt_access(apu_cp_mem(s.cp[1], o[1].core), &o[1].r, sim_now(s.tb.k), NULL,
				 NULL);
	ck_assert_ptr_nonnull(sim_failure(s.tb.k));
	ck_assert_ptr_nonnull(strstr(sim_failure(s.tb.k), "detailed face"));
	lsys_fini(&s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("apu_lt");
	TCase *tc = tcase_create("lt");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpu_at_lt_equal);
	tcase_add_test(tc, test_ifetch_at_lt_equal);
	tcase_add_loop_test(tc, test_gpu_at_lt_equal, 0, 3);
	tcase_add_loop_test(tc, test_mixed_at_lt_equal, 0, 3);
	tcase_add_loop_test(tc, test_variants_at_lt_equal, 0, 2 * N_VARIANTS);
	tcase_add_test(tc, test_dma_at_lt_equal);
	tcase_add_test(tc, test_tcp_lt_merges);
	tcase_add_test(tc, test_corepair_lt_order);
	tcase_add_test(tc, test_mixed_faces_fail);
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
