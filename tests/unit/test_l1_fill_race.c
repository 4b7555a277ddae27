/*
 * tests/unit/test_l1_fill_race.c - a write to a line whose fill is on its way (found by Rodinia
 * b+tree). One CTA of four warps: warp 1's load misses on line L, and while its fill is in
 * flight warp 0 writes L (a store, or an atomic at the L2); the bank serves the read first, so
 * the fill holds L as it was before the write. Warp 2 stores to L too, before, inside or after
 * that window. After the CTA's barrier (a work-group acq_rel fence) every warp must see every
 * write, and a warp must see its own write at once (read-own-write), under every protocol
 * whose L1 a work-group barrier keeps coherent within its SM: all of them, the APU's TCP too.
 * In one case the miss is an acq_rel atomic (under hLRC and DeNovo a GetR, whose fill
 * registers the line here) and an atomic after the barrier reads warp 0's store from the
 * registered copy. The delays before the writes are swept, so that the writes land before,
 * inside and after the fill's window.
 *
 * The L1 is small (four sets of two ways) so that two loads evict L between rounds. Before the
 * race warp 0 writes L once through a present copy: under G-TSC that leaves the MSHR entry's
 * chain of acks at the version the racing fill brings back, so that an ack could carry a copy
 * without warp 0's store to the store's version (what b+tree met).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "workloads/cpu_api.h"
#include "workloads/gpu_api.h"

/* Fixed latencies at 1 GHz everywhere, as test_gpu_ops.c: an L2 hit costs at least 50 cycles
 * of tag latency, so a fill is on its way for some 60 cycles after its load. */
static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 2; check = true; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 5000; };\n"
    "l1 = { latency = 20; size_kib = 1; assoc = 2; };\n"
    "l2 = { banks = 1; clock_mhz = 1000; latency = 50; };\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

#define WARPS 4
#define WORDS 4
#define SET   512 /* bytes between the lines of one L1 set (4 sets of 128 B lines) */

enum race_case {
	RACE_STORE,	 /* warp 0 stores word 1 */
	RACE_OWN_STORE,	 /* ... and reads it back at once */
	RACE_ATOMIC,	 /* warp 0 adds to word 1 at the L2 */
	RACE_OWN_ATOMIC, /* warp 0 writes word 1 with a relaxed atomic store, reads it back */
	RACE_GETR,	 /* warp 1's miss is an acq_rel atomic (hLRC, DeNovo: a GetR), warp 0
			  * stores word 1, and warp 3 reads it with an atomic after the barrier
			  * (performed on the registered copy) */
	RACE_CASES
};

static const char *const case_names[RACE_CASES] = {"store", "own store", "atomic", "own atomic",
						   "GetR"};

struct race_args {
	uint64_t buf; /* L at buf, two lines of its L1 set after it */
	enum race_case c;
	unsigned d1, d2;	    /* cycles before the writes of warps 0 and 2 */
	uint32_t got[WARPS][WORDS]; /* each warp's loads of L after the barrier */
	uint32_t own; /* warp 0's load of its write; RACE_GETR: warp 3's atomic's old value */
	uint64_t ld_issue, ld_done, w1_issue; /* cycles of warp 1's load and warp 0's write */
};

/* Words of L at the start, and after the race: word 1 gets 42 from warp 0 (a store, or the
 * atomic add of 37), word 2 the 7 of the first round, word 3 warp 2's 43. */
static const uint32_t want[WORDS] = {5, 42, 7, 43};

static void race_kernel(struct gpu_warp *w)
{
	struct race_args *a = (struct race_args *)gw_args(w);
	unsigned wi = gw_warp(w);
	uint64_t l = a->buf;

	/* round 1: L in the L1, written once through the copy, then evicted */
	if (wi == 0) {
		gw_ld32(w, l);
		gw_st32(w, l + 8, 7);
	}
	gw_barrier(w);
	if (wi == 0) {
		gw_ld32(w, l + SET);
		gw_ld32(w, l + 2 * SET);
	}
	gw_barrier(w);
	/* round 2: the race */
	if (wi == 1) {
		a->ld_issue = gw_cycle(w);
		if (a->c == RACE_GETR)
			gw_atom(w, MEM_ATOM_ADD, l, 4, 0, 0, MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL);
		else
			gw_ld32(w, l);
		a->ld_done = gw_cycle(w);
	} else if (wi == 0) {
		gw_compute(w, a->d1);
		a->w1_issue = gw_cycle(w);
		switch (a->c) {
		case RACE_STORE:
		case RACE_OWN_STORE:
		case RACE_GETR:
			gw_st32(w, l + 4, 42);
			break;
		case RACE_ATOMIC:
			gw_atom(w, MEM_ATOM_ADD, l + 4, 4, 37, 0, MEM_SCOPE_DEVICE,
				MEM_ORDER_RELAXED);
			break;
		default:
			gw_atom_store(w, l + 4, 4, 42, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
			break;
		}
		if (a->c == RACE_OWN_STORE || a->c == RACE_OWN_ATOMIC)
			a->own = gw_ld32(w, l + 4);
	} else if (wi == 2) {
		gw_compute(w, a->d2);
		gw_st32(w, l + 12, 43);
	}
	gw_barrier(w);
	if (wi == 3 && a->c == RACE_GETR)
		a->own = (uint32_t)gw_atom(w, MEM_ATOM_ADD, l + 4, 4, 0, 0, MEM_SCOPE_DEVICE,
					   MEM_ORDER_ACQ_REL);
	for (unsigned i = 0; i < WORDS; i++)
		a->got[wi][i] = gw_ld32(w, l + 4 * i);
}

static void race_setup(struct race_args *a, uint64_t buf,
		       void (*write32)(void *, uint64_t, uint32_t), void *h)
{
	a->buf = buf;
	write32(h, buf, 5);
	write32(h, buf + 4, a->c == RACE_ATOMIC ? 5 : 0);
}

static void gpu_write32(void *h, uint64_t addr, uint32_t v)
{
	gh_write32(h, addr, v);
}

static int race_host(struct gpu_host *h)
{
	struct race_args *a = gh_arg(h);

	race_setup(a, gh_alloc(h, 4 * SET, 0), gpu_write32, h);
	return sysrun_launch_pinned(h, "race", race_kernel, a, 1, WARPS);
}

static const struct cs_workload race_wl = {.name = "race", .system = "gpu", .gpu = race_host};

/* What a sweep of one protocol (and settings) saw. */
struct sweep {
	unsigned runs, bad, in_window; /* runs; runs where a warp read wrong; runs whose write
					* went while the fill was on its way */
	unsigned bad_case[RACE_CASES];
	double fill_merges, late_merges, fill_waits; /* the L1's counters, summed */
	char first[400];			     /* the first bad run */
};

static double stat_or_0(struct sysrun *r, const char *name)
{
	double v = 0;

	return cs_stats_value(r->sys->stats, name, &v) ? 0 : v;
}

/* Checks what a run read; counts it in s. */
static void race_check(struct sweep *s, const char *what, const struct race_args *a)
{
	bool bad = (a->c == RACE_OWN_STORE || a->c == RACE_OWN_ATOMIC || a->c == RACE_GETR) &&
		   a->own != 42;
	unsigned wi;

	for (wi = 0; wi < WARPS && !bad; wi++)
		bad = memcmp(a->got[wi], want, sizeof(want)) != 0;
	s->runs++;
	s->in_window += a->w1_issue > a->ld_issue && a->w1_issue < a->ld_done;
	if (!bad)
		return;
	s->bad_case[a->c]++;
	if (!s->bad++) {
		wi = wi ? wi - 1 : 0;
		snprintf(s->first, sizeof(s->first),
			 "%s, %s, d1 %u d2 %u: warp %u read %u %u %u %u (want 5 42 7 43), own %u; "
			 "load %llu..%llu, write %llu",
			 what, case_names[a->c], a->d1, a->d2, wi, a->got[wi][0], a->got[wi][1],
			 a->got[wi][2], a->got[wi][3], a->own, (unsigned long long)a->ld_issue,
			 (unsigned long long)a->ld_done, (unsigned long long)a->w1_issue);
	}
}

/* No run of the sweep read a stale value (else the counts by case and the first). */
static void sweep_ok(const struct sweep *s)
{
	ck_assert_msg(!s->bad,
		      "%u of %u runs read a stale value (store %u, own store %u, atomic %u, own "
		      "atomic %u, GetR %u); the first: %s",
		      s->bad, s->runs, s->bad_case[RACE_STORE], s->bad_case[RACE_OWN_STORE],
		      s->bad_case[RACE_ATOMIC], s->bad_case[RACE_OWN_ATOMIC],
		      s->bad_case[RACE_GETR], s->first);
}

/* Every case at every (d1, d2) of the sweep on the GPU, with the `--set`s in sets. */
static void race_sweep(struct sweep *s, const char *what, const char *const *sets, unsigned step)
{
	memset(s, 0, sizeof(*s));
	for (unsigned c = 0; c < RACE_CASES; c++)
		for (unsigned d1 = 0; d1 <= 80; d1 += step)
			/* warp 2's store moves over the whole window only beside warp 0's */
			for (unsigned d2 = 0; d2 <= (c == RACE_STORE ? 160 : 0); d2 += 2 * step) {
				struct race_args a = {.c = c, .d1 = d1, .d2 = d2};
				struct sysrun r;

				sysrun_start(&r, base_cfg, &race_wl, &a, -1, sets);
				race_check(s, what, &a);
				s->fill_merges += stat_or_0(&r, "gpu.sm0.l1.fill_merges");
				s->late_merges += stat_or_0(&r, "gpu.sm0.l1.late_merges");
				s->fill_waits += stat_or_0(&r, "gpu.sm0.l1.stall.fill_in_flight");
				sysrun_end(&r);
			}
}

/* The protocols (with settings) and the L1 paths each exercises. */
static const struct {
	const char *name;
	const char *sets[3];
} protos[] = {
    {"none", {NULL}},
    {"noncoherent", {NULL}},
    {"noncoherent", {"l1.write=back", NULL}},
    {"noncoherent", {"l1.write=evict", NULL}},
    {"noncoherent", {"l1.sector_bytes=32", NULL}},
    {"tc-weak", {NULL}},
    {"tc-strong", {NULL}},
    {"gtsc", {NULL}},
    {"gtsc", {"gtsc.visibility=keep", NULL}},
    {"gtsc", {"gtsc.combining=forward", NULL}},
    {"gtsc", {"gtsc.advance=0", NULL}},
    {"scoped-baseline", {NULL}},
    {"rsp", {NULL}},
    {"hlrc", {NULL}},
    {"hlrc-noprio", {NULL}},
    {"hlrc-scoped", {NULL}},
    {"denovo-b", {NULL}},
    {"denovo-rprio", {NULL}},
};

static void proto_sets(unsigned p, const char *model, const char *mode, char *proto, char *mdl,
		       char *md, const char **sets, char *what, size_t len)
{
	unsigned n = 0;

	sprintf(proto, "coherence.protocol=%s", protos[p].name);
	sprintf(mdl, "core.consistency=%s", model);
	sprintf(md, "system.mode=%s", mode);
	sets[n++] = proto;
	sets[n++] = mdl;
	sets[n++] = md;
	snprintf(what, len, "%s (%s%s%s, %s)", protos[p].name, model, protos[p].sets[0] ? ", " : "",
		 protos[p].sets[0] ? protos[p].sets[0] : "", mode);
	for (unsigned i = 0; protos[p].sets[i]; i++)
		sets[n++] = protos[p].sets[i];
	sets[n] = NULL;
}

/* Detailed mode, RC and SC: every write lands in the window somewhere in the sweep, and no
 * warp ever reads a value older than the writes the barrier (or its own program order)
 * orders before its load. */
START_TEST(test_fill_race)
{
	unsigned p = (unsigned)_i / 2;
	const char *model = _i % 2 ? "sc" : "rc";
	char proto[64], mdl[64], md[64], what[128];
	const char *sets[8];
	struct sweep s;

	proto_sets(p, model, "detailed", proto, mdl, md, sets, what, sizeof(what));
	race_sweep(&s, what, sets, 6);
	sweep_ok(&s);
	/* the sweep does reach the window (warp 0's write while warp 1's load waits) */
	ck_assert_msg(s.in_window > 0, "%s: no run of %u raced the fill", what, s.runs);
	if (!strcmp(model, "sc") || protos[p].sets[0])
		return;
	/* the paths taken: the W/L1 and the scoped family's store merged into the fill and their
	 * atomic waiting for it; G-TSC's later store writing the earlier one into the copy */
	if (!strcmp(protos[p].name, "noncoherent") || !strcmp(protos[p].name, "scoped-baseline") ||
	    !strcmp(protos[p].name, "rsp")) {
		ck_assert_msg(s.fill_merges > 0, "%s: no store merged into a fill", what);
		ck_assert_msg(s.fill_waits > 0, "%s: no atomic waited for a fill", what);
	}
	if (!strcmp(protos[p].name, "gtsc"))
		ck_assert_msg(s.late_merges > 0, "%s: no late merge", what);
}
END_TEST

/* The loosely-timed face runs the same L1 code: a coarser sweep, no window asserted. */
START_TEST(test_fill_race_lt)
{
	char proto[64], mdl[64], md[64], what[128];
	const char *sets[8];
	struct sweep s;

	proto_sets((unsigned)_i, "rc", "analytic", proto, mdl, md, sets, what, sizeof(what));
	race_sweep(&s, what, sets, 16);
	sweep_ok(&s);
}
END_TEST

/* ---- the APU's VIPER TCP ---------------------------------------------------------------------- */

/* The TCP parks every access but a load behind a line's entry, so the window never opens:
 * the same kernel, launched by a CPU thread, write-through (tcp.write=through) and write-back
 * (WB_L1). */
static const char *apu_cfg =
    "system = { type = \"apu\"; workload = \"hetero_prodcons\"; mode = \"detailed\"; };\n"
    "cpus = { cores = 1; memory = \"apu\"; };\n"
    "gpu = { sms = 2; check = true; };\n"
    "workload = { size = \"tiny\"; };\n";

struct apu_args {
	struct race_args *a;
	struct gpu_kernel k;
};

static void apu_cpu(struct cpu_thread *t)
{
	const struct apu_args *x = ct_args(t);

	ct_launch(t, &x->k);
	ct_gpu_wait(t);
}

static void cpu_write32(void *h, uint64_t addr, uint32_t v)
{
	ch_write32(h, addr, v);
}

static int apu_host(struct cpu_host *h)
{
	struct race_args *a = ch_arg(h);
	struct apu_args x = {
	    .a = a,
	    .k = {.name = "race", .ctas = 1, .warps_per_cta = WARPS, .fn = race_kernel, .args = a}};
	struct cpu_program p = {.name = "race", .threads = 1, .fn = apu_cpu, .args = &x};

	race_setup(a, ch_alloc(h, 4 * SET, 128), cpu_write32, h);
	return ch_run(h, &p);
}

static const struct cs_workload apu_wl = {.name = "race", .system = "apu", .cpu = apu_host};

START_TEST(test_fill_race_apu)
{
	static const char *const wb[] = {"tcp.write=back", NULL};
	struct sweep s;

	for (unsigned m = 0; m < 2; m++) {
		memset(&s, 0, sizeof(s));
		for (unsigned c = 0; c < RACE_CASES; c++)
			for (unsigned d1 = 0; d1 <= 120; d1 += 12)
				for (unsigned d2 = 0; d2 <= (c == RACE_STORE ? 240 : 0); d2 += 40) {
					struct race_args a = {.c = c, .d1 = d1, .d2 = d2};
					struct sysrun r;

					sysrun_start(&r, apu_cfg, &apu_wl, &a, -1, m ? wb : NULL);
					race_check(&s, m ? "apu (tcp.write=back)" : "apu", &a);
					sysrun_end(&r);
				}
		sweep_ok(&s);
		ck_assert_msg(s.in_window > 0, "apu: no run raced the fill");
	}
}
END_TEST

/* ---- l1.write = evict: a store that hits drops the line (GPGPU-Sim's Fermi global stores) ---- */

struct evict_args {
	uint64_t buf;
	uint32_t got; /* the load after the store */
};

static void evict_kernel(struct gpu_warp *w)
{
	struct evict_args *a = (struct evict_args *)gw_args(w);

	gw_ld32(w, a->buf);		 /* a miss: the line is filled */
	gw_ld32(w, a->buf + 8);		 /* a hit */
	gw_st32(w, a->buf + 4, 9);	 /* a store hit: updates the copy, or drops it */
	a->got = gw_ld32(w, a->buf + 4); /* a hit on the updated copy, or a miss */
}

static int evict_host(struct gpu_host *h)
{
	struct evict_args *a = gh_arg(h);

	a->buf = gh_alloc(h, 128, 0);
	gh_write32(h, a->buf + 4, 1);
	return sysrun_launch_pinned(h, "evict", evict_kernel, a, 1, 1);
}

static const struct cs_workload evict_wl = {.name = "evict", .system = "gpu", .gpu = evict_host};

START_TEST(test_write_evict)
{
	static const char *const through[] = {"coherence.protocol=noncoherent", NULL};
	static const char *const evict[] = {"coherence.protocol=noncoherent", "l1.write=evict",
					    NULL};
	static const char *const scoped[] = {"coherence.protocol=rsp", "l1.write=evict", NULL};

	for (unsigned m = 0; m < 2; m++) {
		struct evict_args a = {0};
		struct sysrun r;

		sysrun_start(&r, base_cfg, &evict_wl, &a, -1, m ? evict : through);
		ck_assert_uint_eq(a.got, 9);
		ck_assert_uint_eq(stat_or_0(&r, "gpu.sm0.l1.store_hits"), 1);
		/* write-through keeps the copy: the last load hits; write-evict drops it */
		ck_assert_uint_eq(stat_or_0(&r, "gpu.sm0.l1.load_hits"), m ? 1 : 2);
		ck_assert_uint_eq(stat_or_0(&r, "gpu.sm0.l1.store_evictions"), m);
		ck_assert_uint_eq(stat_or_0(&r, "gpu.sm0.l1.fills"), m ? 2 : 1);
		sysrun_end(&r);
	}
	{
		/* the scoped family's L1 is write-through (seed 004): evict is refused */
		struct evict_args a = {0};
		struct sysrun r;
		char msg[256];
		int rc = sysrun_try(&r, base_cfg, &evict_wl, &a, -1, scoped, msg, sizeof(msg));

		ck_assert_int_lt(rc, 0);
		ck_assert_msg(strstr(msg, "l1.write") != NULL, "%s", msg);
		sysrun_end(&r);
	}
}
END_TEST

static Suite *race_suite(void)
{
	Suite *s = suite_create("l1_fill_race");
	TCase *tc = tcase_create("race");
	int n = (int)(sizeof(protos) / sizeof(protos[0]));

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_fill_race, 0, 2 * n);
	tcase_add_loop_test(tc, test_fill_race_lt, 0, n);
	tcase_add_test(tc, test_fill_race_apu);
	tcase_add_test(tc, test_write_evict);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(race_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
