/*
 * tests/unit/test_lt.c - the LT face of the memory system against the AT face.
 *
 * Every component has a detailed (AT) face and a loosely-timed (LT) one that walks the same
 * path by b_transport and applies the same state updates. When the accesses are performed one
 * after another (no two in flight at once), both faces must leave the same state in every
 * cache (the GPU result's state_digest: tags, replacement order, valid and dirty sectors,
 * protocol fields, data), count the same traffic (every counter but the timing ones) and give
 * every load the same value. The script is time-slotted: slot s belongs to one warp (each on
 * its own SM), which performs its op at T0 + s * GAP and waits before that; GAP is long enough
 * for any access (a DRAM round trip, write-backs, a TC-Strong write held for a lease) to finish
 * before the next slot. The ops are a fixed pseudo-random stream over a few hot lines shared by
 * every SM and a footprint larger than the (small) L1s and L2 banks: single-lane and multi-lane
 * loads, stores, atomics (add, exch, cas) and device-scope fences, under SC and RC, for every
 * registered protocol in mode detailed and in mode analytic with sampling.lt_exact.
 *
 * A last test runs unslotted random streams (several warps per SM) in analytic mode: the
 * coherence checker stays silent, and a race-free program leaves the same memory as in AT.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/gpu_base.h"
#include "tlm/coherence/gpu_proto.h"
#include "tlm/system/system.h"
#include "util/config.h"
#include "util/mix.h"
#include "workloads/gpu_api.h"
#include "workloads/workload.h"
#include "workloads/wl_util.h"

/* All clocks 1 GHz; small caches so that L1 and L2 evict (dirty lines too). */
static const char *base_cfg = "system = { type = \"gpu\"; workload = \"stream\"; };\n"
			      "gpu = { sms = 4; check = true; };\n"
			      "core = { clock_mhz = 1000; schedulers = 4; spin_limit = 5000; };\n"
			      "l1 = { latency = 20; size_kib = 1; assoc = 2; };\n"
			      "l2 = { banks = 2; clock_mhz = 1000; latency = 50; size_kib = 1; "
			      "assoc = 2; };\n"
			      "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
			      "dram = { clock_mhz = 1000; };\n"
			      "sampling = { lt_exact = true; };\n"
			      "tc = { lease = 4000; };\n";

/* ---- the slotted script ---------------------------------------------------------------------- */

#define NW	  4    /* warps, one per SM */
#define NSLOTS	  400  /* ops in the stream */
#define GAP	  3000 /* core cycles between slots */
#define T0	  100  /* the first slot */
#define HOT	  4    /* lines every SM touches */
#define FOOT	  48   /* lines of the larger footprint (6 KiB) */
#define LINE	  128
#define HOT_WORDS 4 /* words of the hot lines atomics use */

enum op_kind { K_LD1, K_LDV, K_LDV2, K_ST1, K_STV, K_ATOM, K_FENCE, K_KINDS };

struct op {
	uint8_t kind;
	uint8_t warp;
	uint8_t atom; /* enum mem_atomic_op */
	uint8_t order;
	uint32_t mask;
	uint32_t line, line2; /* line index in the region (hot lines first) */
	uint32_t word;	      /* word in the line (single-lane ops) */
	uint32_t a, b;	      /* store value / atomic operands */
};

struct slotted {
	struct op ops[NSLOTS];
	uint64_t base;
	struct gpu_host *h;
	/* results, per slot: every lane a load or atomic returned */
	uint32_t val[NSLOTS][WARP_LANES];
	uint64_t start[NSLOTS]; /* the warp's cycle before the op */
	uint64_t done[NSLOTS];	/* and after it */

	uint64_t late; /* slots whose op started after its time */
	/* after the kernel: the protocol's state of every line in every L1 (slot 0) and L2 */
	uint64_t probe[NW + 1][HOT + FOOT][3];
	bool present[NW + 1][HOT + FOOT];
};

static struct slotted sl;

static uint64_t splitmix64(uint64_t *s)
{
	return cs_splitmix64(s);
}

static uint32_t pick_line(uint64_t *s)
{
	uint64_t r = splitmix64(s);

	/* half the accesses to the hot lines */
	return (r & 1) ? (uint32_t)((r >> 8) % HOT) : HOT + (uint32_t)((r >> 8) % FOOT);
}

static void make_stream(uint64_t seed)
{
	uint64_t s = seed;

	memset(&sl, 0, sizeof(sl));
	for (unsigned i = 0; i < NSLOTS; i++) {
		struct op *o = &sl.ops[i];
		uint64_t r = splitmix64(&s);

		/* runs of the same warp now and then, so that an SM hits its own lines */
		o->warp = (uint8_t)(i && (r & 3) == 0 ? sl.ops[i - 1].warp : (r >> 2) % NW);
		r = splitmix64(&s);
		switch (r % 16) {
		case 0:
		case 1:
		case 2:
			o->kind = K_LD1;
			break;
		case 3:
		case 4:
		case 5:
			o->kind = K_LDV;
			break;
		case 6:
			o->kind = K_LDV2;
			break;
		case 7:
		case 8:
			o->kind = K_ST1;
			break;
		case 9:
		case 10:
			o->kind = K_STV;
			break;
		case 11:
		case 12:
		case 13:
			o->kind = K_ATOM;
			break;
		default:
			o->kind = K_FENCE;
			break;
		}
		o->line = pick_line(&s);
		o->line2 = pick_line(&s);
		if (o->line2 == o->line)
			o->line2 = (o->line + 1) % (HOT + FOOT);
		r = splitmix64(&s);
		o->word = (uint32_t)(r % 32);
		o->mask = (uint32_t)(r >> 32);
		if (!o->mask)
			o->mask = 1;
		if ((r >> 5) % 4 == 0)
			o->mask = LANES_ALL;
		r = splitmix64(&s);
		o->a = (uint32_t)r;
		o->b = (uint32_t)(r >> 32);
		o->atom = (uint8_t)(MEM_ATOM_ADD + (r >> 16) % 3); /* add, exch, cas */
		if (o->kind == K_ATOM) {
			/* atomics mostly on a few words of the hot lines (CAS then often succeeds) */
			if ((r >> 20) % 4)
				o->line = (uint32_t)((r >> 24) % HOT);
			o->word = (uint32_t)((r >> 28) % HOT_WORDS);
			if (o->atom == MEM_ATOM_CAS && (r >> 40) % 2)
				o->a = 0; /* compare with the initial value of unwritten words */
		}
		r = splitmix64(&s);
		o->order = (uint8_t)(o->kind == K_FENCE ? MEM_ORDER_ACQUIRE + r % 3 : r % 4);
	}
}

static uint64_t line_addr(uint32_t line)
{
	return sl.base + (uint64_t)line * LINE;
}

static void slotted_kernel(struct gpu_warp *w)
{
	unsigned g = (unsigned)gw_gwid(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned i = 0; i < NSLOTS; i++) {
		const struct op *o = &sl.ops[i];
		uint64_t target = T0 + (uint64_t)i * GAP;
		uint64_t now = gw_cycle(w);

		if (o->warp != g)
			continue;
		if (now < target)
			gw_compute(w, target - now);
		else
			sl.late++;
		sl.start[i] = gw_cycle(w);
		switch (o->kind) {
		case K_LD1:
			sl.val[i][0] = gw_ld32(w, line_addr(o->line) + o->word * 4);
			break;
		case K_LDV:
		case K_LDV2:
			for (unsigned l = 0; l < WARP_LANES; l++) {
				uint32_t line = o->kind == K_LDV2 && l >= 16 ? o->line2 : o->line;

				addr[l] = line_addr(line) + ((l * 7 + o->word) % 32) * 4;
			}
			gw_ld32v(w, addr, o->mask, sl.val[i]);
			break;
		case K_ST1:
			gw_st32(w, line_addr(o->line) + o->word * 4, o->a);
			break;
		case K_STV:
			for (unsigned l = 0; l < WARP_LANES; l++) {
				addr[l] = line_addr(o->line) + l * 4;
				v[l] = o->a + l;
			}
			gw_st32v(w, addr, o->mask, v);
			break;
		case K_ATOM:
			sl.val[i][0] =
			    (uint32_t)gw_atom(w, o->atom, line_addr(o->line) + o->word * 4, 4, o->a,
					      o->b, MEM_SCOPE_DEVICE, o->order);
			break;
		case K_FENCE:
			gw_fence(w, o->order, MEM_SCOPE_DEVICE);
			break;
		}
		sl.done[i] = gw_cycle(w);
	}
}

static int slotted_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[NW] = {0, 1, 2, 3};
	struct gpu_kernel k = {
	    .name = "slotted",
	    .ctas = NW,
	    .warps_per_cta = 1,
	    .fn = slotted_kernel,
	    .cta_sm = cta_sm,
	};
	uint32_t init[(HOT + FOOT) * LINE / 4];
	int rc;

	sl.h = h;
	sl.base = gh_alloc(h, sizeof(init), 4096);
	for (unsigned i = 0; i < sizeof(init) / 4; i++)
		init[i] = i < HOT * LINE / 4 ? 0 : 0x1000 + i;
	gh_write(h, sl.base, init, sizeof(init));
	rc = gh_launch(h, &k);
	for (unsigned l = 0; !rc && l < HOT + FOOT; l++) {
		for (unsigned m = 0; m < NW; m++)
			sl.present[m][l] = gh_probe_l1(h, m, 0, line_addr(l), sl.probe[m][l]);
		sl.present[NW][l] = gh_probe_l2(h, line_addr(l), sl.probe[NW][l]);
	}
	return rc;
}

static const struct cs_workload slotted_wl = {
    .name = "slotted", .system = "gpu", .gpu = slotted_host};

/* ---- runs ------------------------------------------------------------------------------------ */

struct run {
	struct cs_config *cfg;
	struct cs_system *sys;
	json_t *result;
	json_t *stats;
};

static void run(struct run *r, const struct cs_workload *wl, const char *const *sets)
{
	struct cs_run_opts ro = {.mode = -1, .custom = wl};
	struct cs_err err = {0};
	int rc;

	memset(r, 0, sizeof(*r));
	if (cs_config_open_string(base_cfg, "test", &r->cfg, &err))
		ck_abort_msg("config: %s", err.msg);
	for (unsigned i = 0; sets[i]; i++)
		if (cs_config_set(r->cfg, sets[i], &err))
			ck_abort_msg("--set %s: %s", sets[i], err.msg);
	if (cs_system_create(r->cfg, &ro, &r->sys, &err))
		ck_abort_msg("build: %s", err.msg);
	rc = cs_system_run(r->sys, &err);
	ck_assert_msg(rc == 0, "%s %s %s: %s", sets[0], sets[1], sets[2], err.msg);
	r->result = r->sys->ops->result(r->sys);
	r->stats = cs_stats_to_json(r->sys->stats);
	ck_assert(r->result && r->stats);
}

static void run_end(struct run *r)
{
	json_decref(r->result);
	json_decref(r->stats);
	cs_system_destroy(r->sys);
	cs_config_close(r->cfg);
}

static const char *result_str(struct run *r, const char *key)
{
	const char *s = json_string_value(json_object_get(r->result, key));

	ck_assert_msg(s, "no %s in the result", key);
	return s;
}

static double stat(struct run *r, const char *name)
{
	double v = -1;

	ck_assert_msg(cs_stats_value(r->sys->stats, name, &v) == 0, "no stat %s", name);
	return v;
}

/* Counters that depend on time, not on what was accessed. */
static bool timing_stat(const char *name)
{
	static const char *const parts[] = {
	    "latency", "stall", "cycles", "occupancy", "queue", "bus_busy", "lt_", "ff_", "inject_",
	};
	size_t n = strlen(name);

	/* the simulation kernel's counters, not the model's */
	if (!strncmp(name, "sim.", 4))
		return true;
	/* instructions: the detailed face issues a compute op in chunks (core.compute_chunk),
	 * one instruction each, and the script's waits depend on the time */
	if (n >= 6 && !strcmp(name + n - 6, ".insts"))
		return true;
	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(name, parts[i]))
			return true;
	return false;
}

/* Appends "name AT LT" of every integer counter that differs; returns their number. */
/* What the order of write-backs arriving at one L2 set decides: which of them hits, which
 * line each evicts, and so DRAM's writes. The LT face's kernel-end drain does not keep the
 * detailed face's arrival order under NoC contention (see test_equal_l1_write_back). */
static bool drain_order_stat(const char *name)
{
	static const char *const parts[] = {
	    ".write_hits", ".write_misses", ".write_allocs", ".evictions", ".writebacks", "dram",
	};

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(name, parts[i]))
			return true;
	return false;
}

/* Sum of a bank's write accesses, which no order changes. */
static long long l2_writes(json_t *stats, unsigned bank)
{
	char h[64], m[64];
	json_t *a, *b;

	snprintf(h, sizeof(h), "gpu.l2.bank%u.write_hits", bank);
	snprintf(m, sizeof(m), "gpu.l2.bank%u.write_misses", bank);
	a = json_object_get(stats, h);
	b = json_object_get(stats, m);
	return a && b ? json_integer_value(a) + json_integer_value(b) : -1;
}

/* order_free: skip the counts drain_order_stat() names; compare each bank's writes summed. */
static unsigned diff_stats(json_t *at, json_t *lt, char *msg, size_t len, bool order_free)
{
	const char *name;
	json_t *v;
	unsigned n = 0;
	size_t used = strlen(msg);

	if (order_free)
		for (unsigned b = 0; b < 2; b++)
			if (l2_writes(at, b) != l2_writes(lt, b) || l2_writes(at, b) < 0) {
				n++;
				if (used < len)
					used += (size_t)snprintf(
					    msg + used, len - used, " bank%u writes %lld/%lld;", b,
					    l2_writes(at, b), l2_writes(lt, b));
			}
	json_object_foreach(at, name, v)
	{
		json_t *u = json_object_get(lt, name);
		long long a, b;

		if (!json_is_integer(v) || timing_stat(name) ||
		    (order_free && drain_order_stat(name)))
			continue;
		a = json_integer_value(v);
		b = u && json_is_integer(u) ? json_integer_value(u) : -1;
		if (a == b)
			continue;
		n++;
		if (used < len)
			used +=
			    (size_t)snprintf(msg + used, len - used, " %s %lld/%lld;", name, a, b);
	}
	json_object_foreach(lt, name, v)
	{
		if (json_is_integer(v) && !timing_stat(name) && !json_object_get(at, name)) {
			n++;
			if (used < len)
				used += (size_t)snprintf(msg + used, len - used, " %s (LT only);",
							 name);
		}
	}
	return n;
}

static struct slotted at_sl;
static char fails[3600]; /* every combination's differences */

/* What equal_faces compares besides every value the stream's loads and atomics returned. */
enum eq_mode {
	EQ_EXACT,      /* every count, and the state digest */
	EQ_ORDER_FREE, /* the counts no reordering of concurrent messages changes */
	EQ_VALUES,     /* the values only (test_equal_denovo_rc says why) */
};

/* The stream under one protocol and consistency, in both modes: same state, traffic, values. */
static void equal_faces(const char *protocol, const char *consistency, const char *extra,
			enum eq_mode mode)
{
	bool digest = mode == EQ_EXACT;
	char p[96], c[96];
	const char *sets[2][5] = {
	    {p, c, "system.mode=detailed", extra, NULL},
	    {p, c, "system.mode=analytic", extra, NULL},
	};
	struct run at, lt;
	char msg[4096];
	unsigned n;

	snprintf(p, sizeof(p), "coherence.protocol=%s", protocol);
	snprintf(c, sizeof(c), "core.consistency=%s", consistency);
	make_stream(0x5eed0001);
	run(&at, &slotted_wl, sets[0]);
	ck_assert_msg(sl.late == 0, "%s %s AT: %" PRIu64 " slots started late", protocol,
		      consistency, sl.late);
	at_sl = sl;
	make_stream(0x5eed0001);
	run(&lt, &slotted_wl, sets[1]);
	ck_assert_msg(sl.late == 0, "%s %s LT: %" PRIu64 " slots started late", protocol,
		      consistency, sl.late);

	snprintf(msg, sizeof(msg), "%s %s%s%s: AT/LT differ:", protocol, consistency,
		 extra ? " " : "", extra ? extra : "");
	n = mode == EQ_VALUES ? 0 : diff_stats(at.stats, lt.stats, msg, sizeof(msg), !digest);
	for (unsigned i = 0, bad = 0; i < NSLOTS && !bad; i++)
		for (unsigned l = 0; l < WARP_LANES && !bad; l++)
			if (at_sl.val[i][l] != sl.val[i][l]) {
				bad = 1;
				n++;
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 " slot %u (warp %u kind %u line %u) lane %u read %#x in "
					 "AT, %#x in LT;",
					 i, sl.ops[i].warp, sl.ops[i].kind, sl.ops[i].line, l,
					 at_sl.val[i][l], sl.val[i][l]);
			}
	if (digest && strcmp(result_str(&at, "state_digest"), result_str(&lt, "state_digest")))
		n++, snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " state_digest %s/%s;",
			      result_str(&at, "state_digest"), result_str(&lt, "state_digest"));
	if (n) {
		/* where the faces went apart: the first slot that started at another time, and
		 * the lines whose protocol state differs in the end */
		for (unsigned i = 0; i < NSLOTS; i++)
			if (at_sl.start[i] != sl.start[i]) {
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 " [slot %u (warp %u kind %u) starts at %" PRIu64
					 " / %" PRIu64 "]",
					 i, sl.ops[i].warp, sl.ops[i].kind, at_sl.start[i],
					 sl.start[i]);
				break;
			}
		for (unsigned m = 0; m <= NW; m++)
			for (unsigned l = 0; l < HOT + FOOT; l++)
				if (at_sl.present[m][l] != sl.present[m][l] ||
				    memcmp(at_sl.probe[m][l], sl.probe[m][l],
					   sizeof(sl.probe[m][l])))
					snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
						 " [%s%u line %u: %d %" PRIu64 " %" PRIu64
						 " %" PRIu64 " / %d %" PRIu64 " %" PRIu64
						 " %" PRIu64 "]",
						 m < NW ? "l1 sm" : "l2 ", m, l,
						 at_sl.present[m][l], at_sl.probe[m][l][0],
						 at_sl.probe[m][l][1], at_sl.probe[m][l][2],
						 sl.present[m][l], sl.probe[m][l][0],
						 sl.probe[m][l][1], sl.probe[m][l][2]);
	}
	if (n) /* Check's messages are short: the first 600 characters of each */
		snprintf(fails + strlen(fails), sizeof(fails) - strlen(fails), "\n%.600s", msg);
	if (mode == EQ_VALUES) {
		/* the releases did register written lines in both faces */
		double at_st = 0, lt_st = 0;

		for (unsigned m = 0; m < NW; m++) {
			char name[64];

			snprintf(name, sizeof(name), "gpu.sm%u.l1.reg.stregs", m);
			at_st += stat(&at, name);
			lt_st += stat(&lt, name);
		}
		ck_assert_double_gt(at_st, 0);
		ck_assert_double_gt(lt_st, 0);
	}
	/* the stream did what it is meant to: evictions at both levels, dirty write-backs */
	if (gpu_protocol_find(protocol)->coherent)
		ck_assert_double_eq(stat(&lt, "gpu.coherence_check.violations"), 0);
	ck_assert_double_gt(
	    stat(&at, "gpu.l2.bank0.evictions") + stat(&at, "gpu.l2.bank1.evictions"), 0);
	ck_assert_double_gt(
	    stat(&at, "gpu.l2.bank0.writebacks") + stat(&at, "gpu.l2.bank1.writebacks"), 0);
	run_end(&at);
	run_end(&lt);
}

/* DeNovo-B registers every line a CU wrote at a release (StReg): under RC a release sends
 * one GetR per written line at once, and test_equal_denovo_rc compares them apart. */
static bool release_burst(const char *protocol)
{
	return !strncmp(protocol, "denovo-", 7);
}

static void equal_all(const char *consistency, const char *extra)
{
	const struct gpu_protocol *const *p = gpu_protocol_registry();

	fails[0] = 0;
	for (unsigned i = 0; p[i]; i++)
		if (strcmp(consistency, "rc") || !release_burst(p[i]->name))
			equal_faces(p[i]->name, consistency, extra, EQ_EXACT);
	ck_assert_msg(!fails[0], "%s", fails);
}

START_TEST(test_equal_sc)
{
	equal_all("sc", NULL);
}
END_TEST

START_TEST(test_equal_rc)
{
	equal_all("rc", NULL);
}
END_TEST

/* TC-Weak with the lifetime predictor: the lifetime a read gets depends on the events before
 * it (expired lines, writes to leased ones, blocked replacements), which both faces must see
 * alike. */
START_TEST(test_equal_tc_predict)
{
	fails[0] = 0;
	equal_faces("tc-weak", "rc", "tc.lease_policy=predict", EQ_EXACT);
	equal_faces("tc-weak", "sc", "tc.lease_policy=predict", EQ_EXACT);
	ck_assert_msg(!fails[0], "%s", fails);
}
END_TEST

/* Write-back L1 (none and noncoherent allow it): dirty partial lines written back by the L1.
 * The kernel-end flush is the one concurrent step of these streams: every L1 writes back at
 * once. The LT face performs those write-backs in order of their unloaded arrival at the
 * banks (l1_port_lt_drain), not in the order the detailed face's crossbar arbitration gives
 * them under contention. Within an L2 set that order decides which write-back hits and which
 * line it evicts, so the replacement order (state_digest), the banks' write hit/miss split,
 * evictions and DRAM writes are not compared here; each bank's write total and everything
 * else is (docs/hybrid.md, Known limits). With the L2 indexed by bank (all of a bank's sets
 * in use) this stream shows such a reordering: 30 DRAM writes against 29 under noncoherent. */
START_TEST(test_equal_l1_write_back)
{
	static const char *const protos[] = {"none", "noncoherent"};

	fails[0] = 0;
	for (unsigned i = 0; i < 2; i++) {
		equal_faces(protos[i], "rc", "l1.write=back", EQ_ORDER_FREE);
		equal_faces(protos[i], "sc", "l1.write=back", EQ_ORDER_FREE);
	}
	ck_assert_msg(!fails[0], "%s", fails);
}
END_TEST

/* DeNovo-B under RC: a release's StRegs (one GetR per line the CU wrote) and a vector load's
 * lines go to the homes together, and a home's recall or forward for one of them takes a
 * round trip to another L1. The LT face performs each message's whole chain at the home in
 * one b_transport (the recall's answer, its data into the bank, the request behind it); the
 * detailed face lets the others into the bank meanwhile, where they may evict the line being
 * recalled or take the set's other way. With this stream's 2-way 1 KiB banks that changes a
 * few hits and evictions (denovo-b: 2 of 136 bank-0 reads, 1 of 88 evictions, 2 of 138 DRAM
 * requests; docs/hybrid.md, Known limits), so only the values are compared here: every load
 * and atomic of the 400 slots returns the same in both faces, and neither face sees a
 * coherence violation. Under SC (test_equal_sc) each store's release registers one line at a
 * time and every count is equal. */
START_TEST(test_equal_denovo_rc)
{
	const struct gpu_protocol *const *p = gpu_protocol_registry();
	unsigned n = 0;

	fails[0] = 0;
	for (unsigned i = 0; p[i]; i++)
		if (release_burst(p[i]->name)) {
			equal_faces(p[i]->name, "rc", NULL, EQ_VALUES);
			n++;
		}
	ck_assert_uint_eq(n, 2);
	ck_assert_msg(!fails[0], "%s", fails);
}
END_TEST

/* ---- unslotted: warps race ------------------------------------------------------------------- */

#define U_CTAS	 8
#define U_WARPS	 4 /* per CTA: two CTAs per SM */
#define U_OPS	 60
#define U_PRIV	 2 /* lines each warp owns */
#define U_SHARED 8 /* lines every warp reads and adds to */
#define U_NWARPS (U_CTAS * U_WARPS)
#define U_WORDS	 ((U_NWARPS * U_PRIV + U_SHARED) * LINE / 4)

struct unslotted {
	uint64_t base;
	uint32_t final[U_WORDS];
	unsigned bad; /* private words that read back wrong */
};

static struct unslotted us;

static uint64_t u_priv(unsigned g, unsigned word)
{
	return us.base + ((uint64_t)g * U_PRIV * LINE) + (uint64_t)word * 4;
}

static uint64_t u_shared(unsigned word)
{
	return us.base + (uint64_t)U_NWARPS * U_PRIV * LINE + (uint64_t)word * 4;
}

/* Each warp: a random stream of loads of the shared lines, atomic adds to them (the sums do
 * not depend on the order), stores to its own lines (read back and checked at the end),
 * fences; no two warps write one word but by atomic adds, so the final memory is the same
 * whatever the timing. */
static void unslotted_kernel(struct gpu_warp *w)
{
	unsigned g = (unsigned)gw_gwid(w);
	uint64_t s = 0xabcdef12u + g, addr[WARP_LANES];
	uint32_t v[WARP_LANES], out[WARP_LANES], mine[U_PRIV * LINE / 4] = {0};
	const unsigned pw = U_PRIV * LINE / 4, sw = U_SHARED * LINE / 4;

	for (unsigned i = 0; i < U_OPS; i++) {
		uint64_t r = splitmix64(&s);
		unsigned word = (unsigned)(r >> 8);

		switch (r % 8) {
		case 0:
		case 1:
			(void)gw_ld32(w, u_shared(word % sw));
			break;
		case 2:
			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] = u_shared((word + l * 5) % sw);
			gw_ld32v(w, addr, (uint32_t)(r >> 32) | 1, out);
			break;
		case 3:
			(void)gw_atom(w, MEM_ATOM_ADD, u_shared(word % 64), 4, g + 1, 0,
				      MEM_SCOPE_DEVICE, (enum mem_order)((r >> 40) % 4));
			break;
		case 4:
			mine[word % pw] = (uint32_t)(r >> 32);
			gw_st32(w, u_priv(g, word % pw), mine[word % pw]);
			break;
		case 5:
			for (unsigned l = 0; l < WARP_LANES; l++) {
				unsigned k = (word / 32 % U_PRIV) * 32 + l;

				addr[l] = u_priv(g, k);
				v[l] = (uint32_t)(r >> 32) + l;
				if ((r >> 16) & (1u << (l % 16)))
					mine[k] = v[l];
			}
			{
				uint32_t mask = 0;

				for (unsigned l = 0; l < WARP_LANES; l++)
					if ((r >> 16) & (1u << (l % 16)))
						mask |= 1u << l;
				gw_st32v(w, addr, mask, v);
			}
			break;
		case 6:
			gw_fence(w, (enum mem_order)(MEM_ORDER_ACQUIRE + (r >> 12) % 3),
				 MEM_SCOPE_DEVICE);
			break;
		default:
			gw_compute(w, 1 + (r >> 20) % 50);
			break;
		}
	}
	/* own stores read back (a warp sees its own stores under every protocol) */
	for (unsigned k = 0; k < pw; k++)
		if (gw_ld32(w, u_priv(g, k)) != mine[k])
			us.bad++;
}

static int unslotted_host(struct gpu_host *h)
{
	struct gpu_kernel k = {
	    .name = "unslotted", .ctas = U_CTAS, .warps_per_cta = U_WARPS, .fn = unslotted_kernel};
	int rc;

	us.base = gh_alloc(h, sizeof(us.final), 4096);
	memset(us.final, 0, sizeof(us.final));
	gh_write(h, us.base, us.final, sizeof(us.final));
	rc = gh_launch(h, &k);
	if (!rc)
		gh_read(h, us.base, us.final, sizeof(us.final));
	return rc;
}

static const struct cs_workload unslotted_wl = {
    .name = "unslotted", .system = "gpu", .gpu = unslotted_host};

static uint32_t at_final[U_WORDS];

START_TEST(test_unslotted_checker_silent)
{
	static const char *const cons[] = {"sc", "rc"};
	const struct gpu_protocol *const *p = gpu_protocol_registry();

	for (unsigned i = 0; p[i]; i++) {
		char pr[96];

		if (!p[i]->coherent)
			continue; /* stale reads of the shared lines are its nature (noncoherent,
				   * scoped-baseline: only scoped synchronization orders them) */
		snprintf(pr, sizeof(pr), "coherence.protocol=%s", p[i]->name);
		for (unsigned c = 0; c < 2; c++) {
			char co[96];
			const char *at_sets[] = {pr, co, "system.mode=detailed", NULL};
			const char *lt_sets[] = {pr, co, "system.mode=analytic", NULL};
			struct run r;
			double sum = 0, want = 0;

			snprintf(co, sizeof(co), "core.consistency=%s", cons[c]);
			memset(&us, 0, sizeof(us));
			run(&r, &unslotted_wl, at_sets);
			ck_assert_msg(us.bad == 0, "%s %s AT: %u words read back wrong", p[i]->name,
				      cons[c], us.bad);
			memcpy(at_final, us.final, sizeof(at_final));
			run_end(&r);

			memset(&us, 0, sizeof(us));
			run(&r, &unslotted_wl, lt_sets);
			ck_assert_msg(us.bad == 0, "%s %s LT: %u words read back wrong", p[i]->name,
				      cons[c], us.bad);
			ck_assert_msg(
			    stat(&r, "gpu.coherence_check.violations") == 0,
			    "%s %s LT: %g coherence violations: %s", p[i]->name, cons[c],
			    stat(&r, "gpu.coherence_check.violations"),
			    json_string_value(json_object_get(r.result, "coherence_first")));
			ck_assert_double_gt(stat(&r, "gpu.coherence_check.reads"), 0);
			for (unsigned k = 0; k < U_WORDS; k++)
				if (at_final[k] != us.final[k])
					ck_abort_msg("%s %s: word %u is %#x after AT, %#x after LT",
						     p[i]->name, cons[c], k, at_final[k],
						     us.final[k]);
			/* the shared adds all arrived */
			for (unsigned k = 0; k < 64; k++)
				sum += us.final[U_NWARPS * U_PRIV * LINE / 4 + k];
			want = sum; /* same in both faces (checked above); at least one add */
			ck_assert_double_gt(want, 0);
			run_end(&r);
		}
	}
}
END_TEST

/* ---- a switch of faces in a compute-bound kernel --------------------------------------------- */

#define CB_WARPS 16   /* per SM: 4 per scheduler */
#define CB_OPS	 12   /* compute ops per warp */
#define CB_CYC	 4000 /* cycles per op */

static void compute_bound_kernel(struct gpu_warp *w)
{
	for (unsigned i = 0; i < CB_OPS; i++)
		gw_compute(w, CB_CYC);
}

static unsigned cb_launches = 1;

static int compute_bound_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[NW] = {0, 1, 2, 3};
	struct gpu_kernel k = {
	    .name = "compute_bound",
	    .ctas = NW,
	    .warps_per_cta = CB_WARPS,
	    .fn = compute_bound_kernel,
	    .cta_sm = cta_sm,
	};
	int rc = 0;

	for (unsigned i = 0; i < cb_launches && !rc; i++)
		rc = gh_launch(h, &k);
	return rc;
}

static const struct cs_workload compute_bound_wl = {
    .name = "compute_bound", .system = "gpu", .gpu = compute_bound_host};

/*
 * Each scheduler has CB_OPS * CB_CYC cycles of compute from each of its 4 warps: the kernel
 * takes 4 * 12 * 4000 = 192000 cycles in the detailed face, round robin. The LT face serves
 * the ops first come first served, so when the faces switch, warps are queued up to 3 ops
 * ahead; the detailed units must go on serving that queue (the schedulers stay busy), or
 * they measure idle schedulers and the hybrid estimate runs long.
 */
START_TEST(test_switch_compute_bound)
{
	const char *at_sets[] = {"system.mode=detailed", "sampling.lt_exact=false",
				 "gpu.check=false", NULL};
	const char *hy_sets[] = {
	    "system.mode=hybrid",   "sampling.lt_exact=false", "gpu.check=false",
	    "sampling.first=3000",  "sampling.warmup=1000",    "sampling.unit=3000",
	    "sampling.period=9000", "sampling.min_units=100",  NULL};
	double at, hy, half, want = 4.0 * CB_OPS * CB_CYC;
	struct run r;

	run(&r, &compute_bound_wl, at_sets);
	at = json_number_value(json_object_get(r.result, "cycles"));
	run_end(&r);
	ck_assert_msg(at >= want && at <= want * 1.01, "detailed: %g cycles, want %g", at, want);
	run(&r, &compute_bound_wl, hy_sets);
	hy = json_number_value(json_object_get(r.result, "cycles"));
	half = json_number_value(json_object_get(r.result, "cycles_half"));
	ck_assert_double_gt(stat(&r, "gpu.sm0.lt_insts"), 0);
	run_end(&r);
	ck_assert_msg(hy >= at * 0.99 && hy <= at * 1.01, "hybrid %g +- %g cycles, detailed %g", hy,
		      half, at);
}
END_TEST

/*
 * Four launches of the compute-bound kernel with sampling.ff: the first two are measured (units
 * inside), the group's cycles per work is steady, so the last two run in FF and are predicted
 * from it. FF must count a compute op's cycles as work, as the other faces do, or the
 * prediction is one instruction per op (here 4000 times too short).
 */
START_TEST(test_ff_compute_group)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=false", NULL};
	const char *hy_sets[] = {"system.mode=hybrid",	 "sampling.lt_exact=false",
				 "gpu.check=false",	 "sampling.first=3000",
				 "sampling.warmup=1000", "sampling.unit=3000",
				 "sampling.period=9000", "sampling.min_units=100",
				 "sampling.ff=always",	 NULL};
	double at, hy, ff_work;
	json_t *ks;
	struct run r;

	cb_launches = 4;
	run(&r, &compute_bound_wl, at_sets);
	at = json_number_value(json_object_get(r.result, "cycles"));
	run_end(&r);
	run(&r, &compute_bound_wl, hy_sets);
	hy = json_number_value(json_object_get(r.result, "cycles"));
	ks = json_object_get(r.result, "kernels");
	ck_assert_uint_eq(json_array_size(ks), 4);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ks, 3), "plan")), "ff");
	ff_work = stat(&r, "gpu.sm0.ff_compute_cycles");
	run_end(&r);
	cb_launches = 1;
	ck_assert_msg(hy >= at * 0.99 && hy <= at * 1.01, "hybrid %g cycles, detailed %g", hy, at);
	ck_assert_double_eq(ff_work, 2.0 * CB_WARPS * CB_OPS * CB_CYC); /* SM 0's two FF CTAs */
}
END_TEST

/*
 * FF reads and writes a line at a time (sm_lt.c): its values must be those of lane order, bit
 * for bit. The kernel loads 32-bit lanes scattered over up to 32 lines (more than FF keeps
 * open at once), 64-bit lanes four to an address, stores 32-bit lanes of which three write
 * each word (the last lane's value stays) and 64-bit lanes in reverse order, then reads its
 * own stores back; every value it loaded goes to its output. The host computes the same in C
 * and checks every launch; the last two of four launches run in FF.
 */
#define FFV_IN	  4096u		       /* 32-bit words of input */
#define FFV_WARPS 8u		       /* per CTA */
#define FFV_OUT	  (FFV_WARPS * 4 * 32) /* 64-bit words of output per CTA and launch */

static uint64_t ffv_in, ffv_scratch, ffv_out;
static unsigned ffv_launch;

static uint32_t ffv_in_word(unsigned i)
{
	return i * 2654435761u ^ 0x5bd1e995u;
}

/* What lane i of warp (cta, wp) does, for the kernel and the host alike. */
static unsigned ffv_scatter(unsigned cta, unsigned wp, unsigned i)
{
	return (i * 37 + wp * 11 + cta * 101 + ffv_launch * 5) * 31 % FFV_IN;
}

static uint64_t ffv_scratch_of(unsigned cta, unsigned wp)
{
	return ffv_scratch + ((uint64_t)cta * FFV_WARPS + wp) * 512;
}

static void ffv_kernel(struct gpu_warp *w)
{
	unsigned cta = gw_cta(w), wp = gw_warp(w);
	uint64_t a[32], v64[32], out[4][32], sc = ffv_scratch_of(cta, wp);
	uint32_t v32[32], st32[32];

	for (unsigned i = 0; i < 32; i++)
		a[i] = ffv_in + 4 * (uint64_t)ffv_scatter(cta, wp, i);
	gw_ld32v(w, a, ~0u, v32);
	for (unsigned i = 0; i < 32; i++) {
		out[0][i] = v32[i];
		a[i] = ffv_in + 8 * (uint64_t)((i / 4 + wp) % (FFV_IN / 2));
	}
	gw_ld64v(w, a, 0xfffffffeu, v64); /* lane 0 idle */
	for (unsigned i = 0; i < 32; i++) {
		out[1][i] = i ? v64[i] : 0;
		a[i] = sc + 4 * (i % 11);
		st32[i] = i * 1000 + ffv_launch;
	}
	gw_st32v(w, a, ~0u, st32);
	for (unsigned i = 0; i < 32; i++) {
		a[i] = sc + 128 + 8 * (31 - i);
		v64[i] = ((uint64_t)ffv_launch << 40) | ((uint64_t)wp << 20) | i;
	}
	gw_st64v(w, a, 0x7fffffffu, v64); /* lane 31 idle */
	for (unsigned i = 0; i < 32; i++)
		a[i] = sc + 4 * (i % 11);
	gw_ld32v(w, a, ~0u, v32);
	for (unsigned i = 0; i < 32; i++) {
		out[2][i] = v32[i];
		a[i] = sc + 128 + 8 * i;
	}
	gw_ld64v(w, a, ~0u, v64);
	for (unsigned i = 0; i < 32; i++)
		out[3][i] = v64[i];
	for (unsigned k = 0; k < 4; k++)
		for (unsigned i = 0; i < 32; i++)
			gw_st64(w,
				ffv_out + 8 * (((uint64_t)cta * FFV_WARPS + wp) * 128 + k * 32 + i),
				out[k][i]);
}

static int ffv_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[NW] = {0, 1, 2, 3};
	struct gpu_kernel k = {.name = "ffv",
			       .ctas = NW,
			       .warps_per_cta = FFV_WARPS,
			       .fn = ffv_kernel,
			       .cta_sm = cta_sm};
	uint64_t *got = malloc(sizeof(uint64_t) * NW * FFV_OUT);
	int rc = got ? 0 : -CS_ENOMEM;

	ffv_in = gh_alloc(h, 4 * FFV_IN, 4096);
	ffv_scratch = gh_alloc(h, (uint64_t)NW * FFV_WARPS * 512, 4096);
	ffv_out = gh_alloc(h, 8 * (uint64_t)NW * FFV_OUT, 4096);
	for (unsigned i = 0; i < FFV_IN && !rc; i++)
		gh_write32(h, ffv_in + 4 * (uint64_t)i, ffv_in_word(i));
	for (ffv_launch = 0; ffv_launch < 4 && !rc; ffv_launch++) {
		rc = gh_launch(h, &k);
		if (rc)
			break;
		gh_read(h, ffv_out, got, sizeof(uint64_t) * NW * FFV_OUT);
		for (unsigned c = 0; c < NW && !rc; c++)
			for (unsigned wp = 0; wp < FFV_WARPS && !rc; wp++)
				for (unsigned i = 0; i < 32 && !rc; i++) {
					const uint64_t *o =
					    got + ((uint64_t)c * FFV_WARPS + wp) * 128;
					unsigned j = (i / 4 + wp) % (FFV_IN / 2);
					/* the last lane writing word i % 11 is the highest l = i % 11
					 * (mod 11) below 32 */
					unsigned last = i % 11 + 11 * ((31 - i % 11) / 11);
					uint64_t want[4] = {
					    ffv_in_word(ffv_scatter(c, wp, i)),
					    i ? ffv_in_word(2 * j) |
						    (uint64_t)ffv_in_word(2 * j + 1) << 32
					      : 0,
					    last * 1000 + ffv_launch,
					    /* lane 31, which would write address 0, is idle */
					    i == 0 ? 0
						   : ((uint64_t)ffv_launch << 40) |
							 ((uint64_t)wp << 20) | (31 - i)};

					for (unsigned q = 0; q < 4 && !rc; q++)
						if (o[q * 32 + i] != want[q])
							rc = gh_fail(
							    h,
							    "launch %u CTA %u warp %u lane "
							    "%u value %u: %#llx, want %#llx",
							    ffv_launch, c, wp, i, q,
							    (unsigned long long)o[q * 32 + i],
							    (unsigned long long)want[q]);
				}
	}
	free(got);
	return rc;
}

static const struct cs_workload ffv_wl = {.name = "ffv", .system = "gpu", .gpu = ffv_host};

START_TEST(test_ff_line_values)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=true", NULL};
	const char *hy_sets[] = {"system.mode=hybrid",	 "gpu.check=true",
				 "sampling.head=0",	 "sampling.first=500",
				 "sampling.warmup=200",	 "sampling.unit=500",
				 "sampling.period=1000", "sampling.ff=always",
				 "sampling.group_cv=10", NULL};
	json_t *ks;
	struct run r;

	run(&r, &ffv_wl, at_sets);
	run_end(&r);
	run(&r, &ffv_wl, hy_sets);
	ks = json_object_get(r.result, "kernels");
	ck_assert_uint_eq(json_array_size(ks), 4);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ks, 3), "plan")), "ff");
	ck_assert_double_gt(stat(&r, "gpu.sm0.ff_insts"), 0);
	run_end(&r);
}
END_TEST

/* FF gathers a store's bytes into a line mask a word at a time (gpu_mask_set_range): every
 * range of a 128-byte line, against the bit-by-bit mask. */
START_TEST(test_mask_set_range)
{
	for (unsigned off = 0; off < 128; off++)
		for (unsigned len = 0; off + len <= 128; len++) {
			uint64_t got[2] = {0, 0}, want[2] = {0, 0};

			gpu_mask_set_range(got, off, len);
			for (unsigned i = off; i < off + len; i++)
				want[i / 64] |= UINT64_C(1) << (i % 64);
			ck_assert_msg(got[0] == want[0] && got[1] == want[1],
				      "bytes %u..%u: %016" PRIx64 " %016" PRIx64, off, off + len,
				      got[1], got[0]);
			ck_assert_uint_eq(gpu_mask_bytes(got), len);
		}
}
END_TEST

/* ---- sectored L2 fills ------------------------------------------------------------------------ */

#define SEC_LINES 128 /* lines read, one 4-byte word each */

static uint64_t sec_base;

static void sec_kernel(struct gpu_warp *w)
{
	uint64_t a[32];
	uint32_t v[32];

	for (unsigned i = 0; i < 32; i++)
		a[i] = sec_base + ((uint64_t)gw_cta(w) * 32 + i) * LINE + 4 * (i % 8);
	gw_ld32v(w, a, ~0u, v);
}

static int sec_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[NW] = {0, 1, 2, 3};
	struct gpu_kernel k = {
	    .name = "sec", .ctas = NW, .warps_per_cta = 1, .fn = sec_kernel, .cta_sm = cta_sm};

	sec_base = gh_alloc(h, SEC_LINES * LINE, 4096);
	return gh_launch(h, &k);
}

static const struct cs_workload sec_wl = {.name = "sec", .system = "gpu", .gpu = sec_host};

/* Bytes every DRAM channel read. */
static double dram_read_bytes(struct run *r)
{
	const char *name;
	json_t *v;
	double sum = 0;

	json_object_foreach(r->stats, name, v)
	{
		if (!strncmp(name, "gpu.dram", 8) && strstr(name, ".bytes_read"))
			sum += json_number_value(v);
	}
	return sum;
}

/*
 * A warp reads one word of each of 32 lines. With 32-byte L2 sectors and no L1 (sector
 * coalescing), a miss fetches the sector the word lies in: 32 bytes a line from DRAM. Behind an
 * unsectored L1 (G-TSC's), the L1 asks for the whole line (its mask 0xff): the bank fetches its
 * four sectors, 128 bytes, and its answers carry as many NoC bytes as an unsectored bank's. It
 * read eight 32-byte sectors before, a 256-byte DRAM access that overran the message's data
 * (heap overflow; or the DRAM refused it as crossing a row).
 */
START_TEST(test_l2_sector_fills)
{
	const char *none_sets[] = {"system.mode=detailed", "coherence.protocol=none",
				   "core.coalesce=sector", "l2.sector_bytes=32", NULL};
	const char *gtsc_sets[] = {"system.mode=detailed", "coherence.protocol=gtsc",
				   "l2.sector_bytes=32", NULL};
	const char *whole_sets[] = {"system.mode=detailed", "coherence.protocol=none",
				    "core.coalesce=sector", "l2.sector_bytes=0", NULL};
	const char *gtsc_whole_sets[] = {"system.mode=detailed", "coherence.protocol=gtsc",
					 "l2.sector_bytes=0", NULL};
	double noc_sectored;
	struct run r;

	run(&r, &sec_wl, none_sets);
	ck_assert_double_eq(dram_read_bytes(&r), SEC_LINES * 32.0);
	run_end(&r);
	run(&r, &sec_wl, gtsc_sets);
	ck_assert_double_eq(dram_read_bytes(&r), SEC_LINES * (double)LINE);
	noc_sectored = json_number_value(json_object_get(r.result, "noc_bytes"));
	run_end(&r);
	/* the answers carry the line, as from an unsectored bank (they counted 256 bytes) */
	run(&r, &sec_wl, gtsc_whole_sets);
	ck_assert_double_eq(json_number_value(json_object_get(r.result, "noc_bytes")),
			    noc_sectored);
	run_end(&r);
	run(&r, &sec_wl, whole_sets);
	ck_assert_double_eq(dram_read_bytes(&r), SEC_LINES * (double)LINE);
	run_end(&r);
}
END_TEST

/* ---- functional warming --------------------------------------------------------------------- */

/*
 * Four launches of a sweep, each reading and rewriting its own region of 8 lines (one warp a
 * line), then a probe reading the last region. The L2 (2 banks x 4 sets x 2 ways) holds two
 * regions: each sweep from the third on evicts the region two before it, dirty, and after the
 * last the probe hits; after one sweep fewer it would miss.
 * With sampling.ff = always and a group of one the sweeps after the first run in FF: warming
 * must leave the L2 as the detailed sweeps did (the second's lines dirty when the fourth
 * evicts them), so that over the same ops the hits, misses and write-backs add up to the
 * detailed run's (those of the FF sweep counted as warm.*).
 */
#define WARM_LINES  8
#define WARM_SWEEPS 4
static uint64_t warm_base;
static unsigned warm_region;

static void warm_sweep(struct gpu_warp *w)
{
	uint64_t line = (uint64_t)gw_cta(w) * 2 + gw_warp(w);
	uint64_t a[32];
	uint32_t v[32];

	for (unsigned i = 0; i < 32; i++)
		a[i] = warm_base + ((uint64_t)warm_region * WARM_LINES + line) * LINE + 4 * i;
	gw_ld32v(w, a, ~0u, v);
	for (unsigned i = 0; i < 32; i++)
		v[i] += 1;
	gw_st32v(w, a, ~0u, v);
}

static void warm_probe(struct gpu_warp *w)
{
	uint64_t line = (uint64_t)gw_cta(w) * 2 + gw_warp(w);

	(void)gw_ld32(w, warm_base + ((WARM_SWEEPS - 1) * WARM_LINES + line) * LINE);
}

static int warm_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[NW] = {0, 1, 2, 3};
	struct gpu_kernel k = {
	    .name = "sweep", .ctas = NW, .warps_per_cta = 2, .fn = warm_sweep, .cta_sm = cta_sm};
	int rc = 0;

	warm_base = gh_alloc(h, WARM_SWEEPS * WARM_LINES * LINE, 4096);
	for (warm_region = 0; warm_region < WARM_SWEEPS && !rc; warm_region++)
		rc = gh_launch(h, &k);
	k.name = "probe";
	k.fn = warm_probe;
	if (!rc)
		rc = gh_launch(h, &k);
	for (unsigned i = 0; i < WARM_SWEEPS * WARM_LINES * 32 && !rc; i++)
		if (gh_read32(h, warm_base + 4 * (uint64_t)i) != 1)
			rc = gh_fail(h, "word %u: %u, want 1", i,
				     gh_read32(h, warm_base + 4 * (uint64_t)i));
	return rc;
}

static const struct cs_workload warm_wl = {.name = "warm", .system = "gpu", .gpu = warm_host};

/* The L2 banks' count of `what` (a stat of each bank: "read_hits", "warm.hits"). */
static double l2_sum(struct run *r, const char *what)
{
	char name[64];
	double sum = 0;

	for (unsigned b = 0; b < 2; b++) {
		snprintf(name, sizeof(name), "gpu.l2.bank%u.%s", b, what);
		sum += stat(r, name);
	}
	return sum;
}

struct warm_split {
	double hits, misses, writebacks, probe;
};

static struct warm_split warm_split_of(struct run *r, bool ff)
{
	struct warm_split w = {
	    .hits = l2_sum(r, "read_hits") + l2_sum(r, "write_hits") +
		    (ff ? l2_sum(r, "warm.hits") : 0),
	    .misses = l2_sum(r, "read_misses") + l2_sum(r, "write_misses") +
		      (ff ? l2_sum(r, "warm.misses") : 0),
	    .writebacks = l2_sum(r, "writebacks") + (ff ? l2_sum(r, "warm.writebacks") : 0),
	};
	json_t *ks = json_object_get(r->result, "kernels");

	ck_assert_uint_eq(json_array_size(ks), WARM_SWEEPS + 1);
	w.probe = json_number_value(json_object_get(json_array_get(ks, WARM_SWEEPS), "cycles"));
	return w;
}

START_TEST(test_warmed_fill_split)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=false", NULL};
	const char *hy_sets[] = {"system.mode=hybrid",
				 "gpu.check=false",
				 "sampling.ff=always",
				 "sampling.group_min=1",
				 "sampling.group_cv=10",
				 "sampling.lt_exact=false",
				 NULL,
				 NULL};
	struct warm_split d, h, cold;
	json_t *ks;
	struct run r;

	run(&r, &warm_wl, at_sets);
	d = warm_split_of(&r, false);
	run_end(&r);
	/* per sweep 8 read misses and 8 write hits, the probe 8 hits; the third and fourth sweeps
	 * write back the first and second regions' 8 lines */
	ck_assert_double_eq(d.hits, WARM_SWEEPS * 8 + 8);
	ck_assert_double_eq(d.misses, WARM_SWEEPS * 8);
	ck_assert_double_eq(d.writebacks, 16);

	run(&r, &warm_wl, hy_sets);
	ks = json_object_get(r.result, "kernels");
	for (unsigned i = 0; i <= WARM_SWEEPS; i++)
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ks, i), "plan")),
				 i == 0 || i == WARM_SWEEPS ? "detailed" : "ff");
	h = warm_split_of(&r, true);
	run_end(&r);
	ck_assert_double_eq(h.hits, d.hits);
	ck_assert_double_eq(h.misses, d.misses);
	ck_assert_double_eq(h.writebacks, d.writebacks);
	/* the probe, measured whole after the warmed FF sweep, takes the detailed probe's time */
	ck_assert_msg(fabs(h.probe - d.probe) <= 0.02 * d.probe, "probe %g cycles, detailed %g",
		      h.probe, d.probe);

	/* without warming the probe meets the L2 of the second sweep: it misses the third region */
	hy_sets[6] = "sampling.warm=false";
	run(&r, &warm_wl, hy_sets);
	cold = warm_split_of(&r, true);
	run_end(&r);
	ck_assert_msg(cold.hits < d.hits - 4, "cold: %g hits, detailed %g", cold.hits, d.hits);
	ck_assert_msg(cold.probe > 1.1 * d.probe, "cold probe %g cycles, detailed %g", cold.probe,
		      d.probe);
}
END_TEST

/* ---- a kernel's tail ------------------------------------------------------------------------ */

#define TAIL_WARPS 32  /* per CTA: one CTA per SM at a time (48 warp slots) */
#define TAIL_OPS   4   /* compute ops per warp of the first wave */
#define TAIL_LOADS 600 /* loads the one warp of each second-wave CTA makes, one after another */
#define TAIL_STEP  4096

static uint64_t tail_base;
/* The shape of the tail workload: compute ops and their cycles in the first wave, loads in
 * the second, launches (the short-group test makes it short and launches it often). */
static unsigned tail_ops = TAIL_OPS, tail_cyc = CB_CYC, tail_loads = TAIL_LOADS, tail_launches = 1;

/* The first wave (CTAs 0-3) computes; in the second (4-7, one per SM once the first has left)
 * one warp waits on DRAM misses, one after another, and the others exit at once. */
static void tail_kernel(struct gpu_warp *w)
{
	unsigned cta = gw_cta(w);

	if (cta < NW) {
		for (unsigned i = 0; i < tail_ops; i++)
			gw_compute(w, tail_cyc);
		return;
	}
	if (gw_warp(w) != 0)
		return;
	for (unsigned i = 0; i < tail_loads; i++)
		(void)gw_ld32(w, tail_base + ((uint64_t)(cta - NW) * TAIL_LOADS + i) * TAIL_STEP);
}

static int tail_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[2 * NW] = {0, 1, 2, 3, 0, 1, 2, 3};
	struct gpu_kernel k = {
	    .name = "tail",
	    .ctas = 2 * NW,
	    .warps_per_cta = TAIL_WARPS,
	    .fn = tail_kernel,
	    .cta_sm = cta_sm,
	};

	int rc = 0;

	tail_base = gh_alloc(h, (uint64_t)NW * TAIL_LOADS * TAIL_STEP, 4096);
	if (!tail_base)
		return -CS_ENOMEM;
	for (unsigned i = 0; i < tail_launches && !rc; i++)
		rc = gh_launch(h, &k);
	return rc;
}

static const struct cs_workload tail_wl = {.name = "tail", .system = "gpu", .gpu = tail_host};

/*
 * A compute-bound first wave, then a tail of one warp per SM waiting on 600 DRAM misses in a
 * row: latency bound, one warp of 32 resident. The units, all in the compute-bound wave (three
 * agree, and the kernel takes no more), give the ratio of an issue-bound interval; the tail's bound (a handful of L2 and DRAM accesses)
 * scaled by it would be a small fraction of the tail's time. With sampling.tail the tail runs
 * detailed and the estimate holds; without, it falls short.
 */
START_TEST(test_tail_runs_detailed)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=false", NULL};
	const char *hy_sets[] = {"system.mode=hybrid",
				 "sampling.lt_exact=false",
				 "gpu.check=false",
				 "sampling.first=3000",
				 "sampling.warmup=1000",
				 "sampling.unit=3000",
				 "sampling.period=9000",
				 "sampling.min_units=3",
				 "sampling.head=0",
				 NULL,
				 NULL};
	double compute = (double)TAIL_WARPS / 4 * TAIL_OPS * CB_CYC, at, hy, hy_off, at_part;
	json_t *k0;
	struct run r;

	run(&r, &tail_wl, at_sets);
	at = json_number_value(json_object_get(r.result, "cycles"));
	run_end(&r);
	/* the tail is a good part of the kernel */
	ck_assert_msg(at > 1.25 * compute, "detailed: %g cycles", at);

	run(&r, &tail_wl, hy_sets);
	hy = json_number_value(json_object_get(r.result, "cycles"));
	k0 = json_array_get(json_object_get(r.result, "kernels"), 0);
	at_part = json_number_value(json_object_get(k0, "at_cycles"));
	run_end(&r);
	ck_assert_msg(hy >= at * 0.98 && hy <= at * 1.02, "hybrid %g cycles, detailed %g", hy, at);
	/* the tail ran detailed */
	ck_assert_msg(at_part > at - compute, "detailed cycles %g of %g", at_part, at);

	hy_sets[9] = "sampling.tail=0";
	run(&r, &tail_wl, hy_sets);
	hy_off = json_number_value(json_object_get(r.result, "cycles"));
	run_end(&r);
	ck_assert_msg(hy_off < at * 0.9, "without the tail's detailed run: %g cycles, detailed %g",
		      hy_off, at);
}
END_TEST

/* ---- progress that spinning cannot inflate ---------------------------------------------- */

#define SPIN_WAIT 20000 /* cycles of compute before the flag is set */

static uint64_t spin_flag;

/* Warp 0 of CTA 0 computes, then sets the flag; every other warp spins on it with plain loads
 * (wl_spin_until_eq: each try after the first is a spin try), then does one op. How many tries
 * a warp makes is the face's timing: FF's warps spin until the setter's turn comes. */
static void spin_kernel(struct gpu_warp *w)
{
	if (gw_cta(w) == 0 && gw_warp(w) == 0) {
		gw_compute(w, SPIN_WAIT);
		gw_atom_store(w, spin_flag, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		return;
	}
	if (wl_spin_until_eq(w, spin_flag, 1, "spin", "the flag"))
		return;
	gw_compute(w, 10);
}

static int spin_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[NW] = {0, 1, 2, 3};
	struct gpu_kernel k = {
	    .name = "spin", .ctas = NW, .warps_per_cta = 4, .fn = spin_kernel, .cta_sm = cta_sm};

	spin_flag = gh_alloc(h, LINE, LINE);
	return gh_launch(h, &k);
}

static const struct cs_workload spin_wl = {.name = "spin", .system = "gpu", .gpu = spin_host};

static double spin_sum(struct run *r)
{
	char name[64];
	double sum = 0;

	for (unsigned i = 0; i < NW; i++) {
		snprintf(name, sizeof(name), "gpu.sm%u.spin_work", i);
		sum += stat(r, name);
	}
	return sum;
}

/* The sampler's work (a kernel's insts) leaves out spin loops' repeated tries: the same in the
 * detailed face and in FF, although the two spin for different numbers of tries. */
START_TEST(test_spin_not_progress)
{
	const char *at_sets[] = {"system.mode=detailed", NULL};
	const char *ff_sets[] = {"system.mode=hybrid", "sampling.ff=only", NULL};
	double at_work, ff_work, at_spin, ff_spin;
	json_t *k0;
	struct run r;

	run(&r, &spin_wl, at_sets);
	k0 = json_array_get(json_object_get(r.result, "kernels"), 0);
	at_work = json_number_value(json_object_get(k0, "insts"));
	at_spin = spin_sum(&r);
	run_end(&r);
	run(&r, &spin_wl, ff_sets);
	k0 = json_array_get(json_object_get(r.result, "kernels"), 0);
	ff_work = json_number_value(json_object_get(k0, "insts"));
	ff_spin = spin_sum(&r);
	run_end(&r);
	/* the faces spun for different numbers of tries (FF's setter sets the flag at its
	 * second op, and few tries are made before it) */
	ck_assert_double_gt(at_spin, 0);
	ck_assert_double_ne(at_spin, ff_spin);
	/* the setter's compute, the others' one compute op and exit: at least this much */
	ck_assert_double_ge(at_work, SPIN_WAIT);
	/* a loop's first failed try stays progress (its guard is called after it, and the
	 * try's work is known only from the next one): a load and its compare per waiter at
	 * most apart, against tries that differ by far more */
	ck_assert_msg(fabs(at_work - ff_work) <= 2.0 * (NW * 4 - 1), "work %g detailed, %g FF",
		      at_work, ff_work);
	ck_assert_msg(fabs(at_spin - ff_spin) > 20.0 * (NW * 4 - 1), "spin work %g detailed, %g FF",
		      at_spin, ff_spin);
}
END_TEST

/* ---- the FF fill ----------------------------------------------------------------------------- */

/* sampling.fill = ff on the compute-bound kernel: between units the warps run in FF (the
 * kernel is sampled, and FF performed part of it), the work of compute ops FF or LT performed
 * and the detailed face owed is counted once (the kernel's work equals the detailed run's),
 * and the fills timed at their units' cycles per work give the detailed cycles within 2%. */
START_TEST(test_fill_ff_compute_bound)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=false", NULL};
	const char *hy_sets[] = {"system.mode=hybrid",
				 "gpu.check=false",
				 "sampling.fill=ff",
				 "sampling.head=0",
				 "sampling.first=3000",
				 "sampling.warmup=1000",
				 "sampling.unit=3000",
				 "sampling.period=9000",
				 "sampling.retime=2000",
				 "sampling.min_units=100",
				 NULL};
	double at, at_work, hy, hy_work;
	json_t *k0;
	struct run r;

	cb_launches = 1;
	run(&r, &compute_bound_wl, at_sets);
	at = json_number_value(json_object_get(r.result, "cycles"));
	k0 = json_array_get(json_object_get(r.result, "kernels"), 0);
	at_work = json_number_value(json_object_get(k0, "insts"));
	run_end(&r);
	run(&r, &compute_bound_wl, hy_sets);
	hy = json_number_value(json_object_get(r.result, "cycles"));
	k0 = json_array_get(json_object_get(r.result, "kernels"), 0);
	hy_work = json_number_value(json_object_get(k0, "insts"));
	ck_assert_str_eq(json_string_value(json_object_get(k0, "plan")), "sampled");
	ck_assert_double_gt(stat(&r, "gpu.sm0.ff_compute_cycles"), 0);
	ck_assert_double_gt(json_number_value(json_object_get(r.result, "units")), 1);
	run_end(&r);
	ck_assert_double_eq(hy_work, at_work);
	ck_assert_msg(hy >= at * 0.98 && hy <= at * 1.02, "hybrid %g cycles, detailed %g", hy, at);
}
END_TEST

/* A kernel that ends within sampling.head runs whole in the detailed face: its estimate is the
 * detailed run's cycles exactly, with no interval. */
START_TEST(test_head_measures_short_kernel_whole)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=false", NULL};
	const char *hy_sets[] = {"system.mode=hybrid", "gpu.check=false", "sampling.head=300000",
				 NULL};
	double at, hy, half;
	json_t *k0;
	struct run r;

	run(&r, &compute_bound_wl, at_sets);
	at = json_number_value(json_object_get(r.result, "cycles"));
	run_end(&r);
	run(&r, &compute_bound_wl, hy_sets);
	hy = json_number_value(json_object_get(r.result, "cycles"));
	half = json_number_value(json_object_get(r.result, "cycles_half"));
	k0 = json_array_get(json_object_get(r.result, "kernels"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(k0, "plan")), "detailed");
	ck_assert_double_eq(stat(&r, "gpu.sm0.lt_insts"), 0);
	run_end(&r);
	ck_assert_double_eq(hy, at);
	ck_assert_double_eq(half, 0);
}
END_TEST

/* ---- a miss in flight ------------------------------------------------------------------------ */

/*
 * Two warps of one SM, one L1 set (the base L1: 1 KiB, 2 ways, 4 sets of 128 B lines). At
 * IF_T0 both load line X (set 1) a cycle apart: the second finds the first's miss in flight
 * and waits in its MSHR entry (one read, one merge), answered with the fill, not before. Then
 * warp 0 reads A and B (set 0, A least recently used), and at IF_T1 misses on C (set 0); two
 * cycles later warp 1 reads A, which is still there: the victim goes when C's fill comes back,
 * not when its miss is sent. The LT face performs each op at once, but its answers must come
 * at their times: before, the second X load hit the line the first had already filled, and A
 * was evicted the moment C was sent (five reads and no merge instead of four and one).
 */
#define IF_T0 200
#define IF_T1 1200 /* well within TC's lease (4000 cycles) of A's fill */

struct inflight {
	uint64_t base;
	uint32_t x[2], a;
	uint64_t x_done[2];
};

static struct inflight inf;

static uint64_t if_line(unsigned set, unsigned n)
{
	return inf.base + ((uint64_t)n * 4 + set) * LINE;
}

static void if_wait(struct gpu_warp *w, uint64_t until)
{
	uint64_t now = gw_cycle(w);

	if (now < until)
		gw_compute(w, until - now);
}

static void inflight_kernel(struct gpu_warp *w)
{
	unsigned g = gw_warp(w);

	if_wait(w, IF_T0 + g);
	inf.x[g] = gw_ld32(w, if_line(1, 0) + 4 * g);
	inf.x_done[g] = gw_cycle(w);
	if (g == 0) {
		(void)gw_ld32(w, if_line(0, 0)); /* A */
		(void)gw_ld32(w, if_line(0, 1)); /* B */
		if_wait(w, IF_T1);
		(void)gw_ld32(w, if_line(0, 2)); /* C */
	} else {
		if_wait(w, IF_T1 + 2);
		inf.a = gw_ld32(w, if_line(0, 0));
	}
}

static int inflight_host(struct gpu_host *h)
{
	static const uint16_t cta_sm[1] = {0};
	struct gpu_kernel k = {
	    .name = "inflight",
	    .ctas = 1,
	    .warps_per_cta = 2,
	    .fn = inflight_kernel,
	    .cta_sm = cta_sm,
	};
	uint32_t init[12 * LINE / 4];

	inf.base = gh_alloc(h, sizeof(init), 4096);
	for (unsigned i = 0; i < sizeof(init) / 4; i++)
		init[i] = 0x5000 + i;
	gh_write(h, inf.base, init, sizeof(init));
	return gh_launch(h, &k);
}

static const struct cs_workload inflight_wl = {
    .name = "inflight", .system = "gpu", .gpu = inflight_host};

START_TEST(test_miss_in_flight)
{
	static const char *const protos[] = {"noncoherent", "tc-strong", "tc-weak", "gtsc"};
	static const char *const modes[] = {"system.mode=detailed", "system.mode=analytic"};

	for (unsigned i = 0; i < 4; i++)
		for (unsigned m = 0; m < 2; m++) {
			char p[96];
			const char *sets[] = {p, modes[m], "core.consistency=rc", NULL};
			struct run r;

			snprintf(p, sizeof(p), "coherence.protocol=%s", protos[i]);
			memset(&inf, 0, sizeof(inf));
			run(&r, &inflight_wl, sets);
			ck_assert_msg(stat(&r, "gpu.sm0.l1.messages") == 4 &&
					  stat(&r, "gpu.sm0.l1.mshr_merges") == 1 &&
					  stat(&r, "gpu.sm0.l1.load_hits") == 1,
				      "%s %s: %g reads, %g merges, %g hits (want 4, 1, 1)",
				      protos[i], modes[m], stat(&r, "gpu.sm0.l1.messages"),
				      stat(&r, "gpu.sm0.l1.mshr_merges"),
				      stat(&r, "gpu.sm0.l1.load_hits"));
			/* the merged load is answered by the fill it waited for */
			ck_assert_msg(inf.x_done[1] >= inf.x_done[0],
				      "%s %s: the merged load was done at %" PRIu64
				      ", the fill at %" PRIu64,
				      protos[i], modes[m], inf.x_done[1], inf.x_done[0]);
			ck_assert_uint_eq(inf.x[0], 0x5000 + LINE / 4 * 1);
			ck_assert_uint_eq(inf.x[1], 0x5000 + LINE / 4 * 1 + 1);
			ck_assert_uint_eq(inf.a, 0x5000);
			run_end(&r);
		}
}
END_TEST

/*
 * A group of short launches (issue 37): each ends within the detailed head, so the first is
 * measured whole and the second runs in LT to learn the group's LT cycles per work. Its tail
 * ran detailed (sampling.tail), and the rate was recorded only by a member with no detailed
 * cycles at all. So it never was: every later member stayed in LT, predicted from the cold
 * first member (PR-1 on the 128-CU GPU: +17.9%, 0 units). Now a short group's LT members
 * run whole in LT (their tail is inside the whole members' ratio), the third member is
 * measured whole and paired with the rate, and the estimate follows the detailed run.
 */
START_TEST(test_short_group_learns_rate)
{
	const char *at_sets[] = {"system.mode=detailed", "gpu.check=false", NULL};
	const char *hy_sets[] = {"system.mode=hybrid", "sampling.lt_exact=false", "gpu.check=false",
				 NULL};
	double at, hy;
	json_t *ks;
	struct run r;

	tail_ops = 1;
	tail_cyc = 1000;
	tail_loads = 40;
	tail_launches = 8;
	run(&r, &tail_wl, at_sets);
	at = json_number_value(json_object_get(r.result, "cycles"));
	ks = json_object_get(r.result, "kernels");
	for (size_t i = 0; i < json_array_size(ks); i++)
		ck_assert_int_lt(
		    json_integer_value(json_object_get(json_array_get(ks, i), "cycles")),
		    50000); /* shorter than the head: a short group */
	run_end(&r);
	run(&r, &tail_wl, hy_sets);
	hy = json_number_value(json_object_get(r.result, "cycles"));
	ks = json_object_get(r.result, "kernels");
	ck_assert_uint_eq(json_array_size(ks), 8);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ks, 0), "plan")),
			 "detailed");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ks, 1), "plan")), "lt");
	/* whole in LT: its tail too, or it gives no LT rate */
	ck_assert_double_eq(json_number_value(json_object_get(json_array_get(ks, 1), "at_cycles")),
			    0);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ks, 2), "plan")),
			 "detailed");
	run_end(&r);
	tail_ops = TAIL_OPS;
	tail_cyc = CB_CYC;
	tail_loads = TAIL_LOADS;
	tail_launches = 1;
	ck_assert_msg(fabs(hy - at) <= 0.05 * at, "hybrid %g cycles, detailed %g", hy, at);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lt");
	TCase *t = tcase_create("equal");
	SRunner *sr;
	int failed;

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_equal_sc);
	tcase_add_test(t, test_equal_rc);
	tcase_add_test(t, test_equal_l1_write_back);
	tcase_add_test(t, test_equal_tc_predict);
	tcase_add_test(t, test_equal_denovo_rc);
	tcase_add_test(t, test_unslotted_checker_silent);
	tcase_add_test(t, test_switch_compute_bound);
	tcase_add_test(t, test_ff_compute_group);
	tcase_add_test(t, test_ff_line_values);
	tcase_add_test(t, test_mask_set_range);
	tcase_add_test(t, test_l2_sector_fills);
	tcase_add_test(t, test_warmed_fill_split);
	tcase_add_test(t, test_short_group_learns_rate);
	tcase_add_test(t, test_head_measures_short_kernel_whole);
	tcase_add_test(t, test_tail_runs_detailed);
	tcase_add_test(t, test_miss_in_flight);
	tcase_add_test(t, test_spin_not_progress);
	tcase_add_test(t, test_fill_ff_compute_bound);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
