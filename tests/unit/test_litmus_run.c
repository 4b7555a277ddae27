/*
 * tests/unit/test_litmus_run.c - the litmus runner and its verdicts (workloads/litmus/run.c,
 * expect.c).
 *
 * Every iteration lands in the histogram exactly once, outcomes are sorted and distinct, the
 * condition count is the sum of the condition's outcomes; the same seed gives the same
 * histogram; register moves, branches, RMWs and negative values come back as the program says;
 * SC cores never show store buffering; a non-coherent protocol is held to no model; expectation
 * files match by path suffix and report bad lines with FILE:LINE; header keys win over the file;
 * --agents lists parse and print back, and a mixed run's expectation lines apply only to a run
 * with the same agents. PTX: cache operators reach the L1 (.ca reads a stale copy under
 * noncoherent, .cv never), fence.sc orders store buffering, `!=` conditions count; OpenCL
 * atomics are performed as atomics (--atomics ops) or as plain accesses (fences).
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/config.h"
#include "workloads/litmus/litmus.h"
#include "workloads/litmus/run.h"

static const char *base_cfg = "system = { type = \"gpu\"; };\n"
			      "gpu = { sms = 4; check = true; };\n"
			      "core = { clock_mhz = 1000; };\n"
			      "l2 = { banks = 4; clock_mhz = 1000; latency = 20; };\n"
			      "noc = { topology = \"mesh\"; clock_mhz = 1000; };\n"
			      "dram = { clock_mhz = 1000; };\n";

static const char *sb_text = "C SB\n"
			     "Cohscope.sc=Forbid\n"
			     "Cohscope.rc=Allow\n"
			     "{}\n"
			     "P0(int *x, int *y)\n{\n\tint r0;\n\n"
			     "\tWRITE_ONCE(*x, 1);\n\tr0 = READ_ONCE(*y);\n}\n\n"
			     "P1(int *x, int *y)\n{\n\tint r0;\n\n"
			     "\tWRITE_ONCE(*y, 1);\n\tr0 = READ_ONCE(*x);\n}\n\n"
			     "exists (0:r0=0 /\\ 1:r0=0)\n";

static struct litmus_test *parse(const char *text, const char *path)
{
	struct litmus_test *t = NULL;
	struct cs_err err = {0};

	if (litmus_parse_string(text, path, &t, &err))
		ck_abort_msg("parse: %s", err.msg);
	return t;
}

/* Runs t under base_cfg plus the overrides (NULL-terminated), OpenCL atomics as `atomics`. */
static void run_atomics(const struct litmus_test *t, const char *const *sets, uint64_t iterations,
			unsigned atomics, struct litmus_result *r)
{
	struct cs_config *cfg = NULL;
	struct cs_err err = {0};
	struct litmus_opts o;
	int rc;

	litmus_opts_default(&o);
	o.iterations = iterations;
	o.atomics = atomics;
	if (cs_config_open_string(base_cfg, "test", &cfg, &err))
		ck_abort_msg("config: %s", err.msg);
	for (unsigned i = 0; sets && sets[i]; i++)
		if (cs_config_set(cfg, sets[i], &err))
			ck_abort_msg("--set %s: %s", sets[i], err.msg);
	rc = litmus_run(t, cfg, &o, r, &err);
	cs_config_close(cfg);
	if (rc)
		ck_abort_msg("run: %s", err.msg);
}

static void run(const struct litmus_test *t, const char *const *sets, uint64_t iterations,
		struct litmus_result *r)
{
	run_atomics(t, sets, iterations, LIT_ATOMICS_OPS, r);
}

START_TEST(test_histogram_complete_and_sorted)
{
	static const char *const rc_none[] = {"core.consistency=rc", NULL};
	struct litmus_test *t = parse(sb_text, "SB.litmus");
	struct litmus_result r;
	uint64_t sum = 0, cond = 0;

	run(t, rc_none, 300, &r);
	ck_assert_str_eq(r.protocol, "none");
	ck_assert_uint_eq(r.model, LIT_MODEL_RC);
	ck_assert_uint_eq(r.iterations, 300);
	ck_assert_uint_eq(r.nkeys, 2);
	ck_assert(r.noutcomes >= 2 && r.noutcomes <= 4);
	for (unsigned i = 0; i < r.noutcomes; i++) {
		const struct litmus_outcome *o = &r.outcomes[i];
		char want[64];

		snprintf(want, sizeof(want), "0:r0=%lld; 1:r0=%lld;", (long long)o->vals[0],
			 (long long)o->vals[1]);
		ck_assert_str_eq(o->text, want);
		ck_assert(o->vals[0] >= 0 && o->vals[0] <= 1 && o->vals[1] >= 0 && o->vals[1] <= 1);
		ck_assert(o->condition == (o->vals[0] == 0 && o->vals[1] == 0));
		if (i)
			ck_assert(o[-1].vals[0] < o->vals[0] ||
				  (o[-1].vals[0] == o->vals[0] && o[-1].vals[1] < o->vals[1]));
		sum += o->count;
		cond += o->condition ? o->count : 0;
	}
	ck_assert_uint_eq(sum, 300);
	ck_assert_uint_eq(cond, r.condition_count);
	litmus_result_free(&r);
	litmus_free(t);
}
END_TEST

START_TEST(test_same_seed_same_histogram)
{
	static const char *const seed[] = {"sim.seed=42", NULL};
	struct litmus_test *t = parse(sb_text, "SB.litmus");
	struct litmus_result a, b, c;
	static const char *const seed2[] = {"sim.seed=43", NULL};
	bool same = true;

	run(t, seed, 200, &a);
	run(t, seed, 200, &b);
	run(t, seed2, 200, &c);
	ck_assert_uint_eq(a.noutcomes, b.noutcomes);
	ck_assert_uint_eq(a.cycles, b.cycles);
	for (unsigned i = 0; i < a.noutcomes; i++) {
		ck_assert_str_eq(a.outcomes[i].text, b.outcomes[i].text);
		ck_assert_uint_eq(a.outcomes[i].count, b.outcomes[i].count);
	}
	/* another seed, other timing */
	same = a.cycles == c.cycles && a.noutcomes == c.noutcomes;
	for (unsigned i = 0; same && i < a.noutcomes; i++)
		same = a.outcomes[i].count == c.outcomes[i].count;
	ck_assert_msg(!same, "seeds 42 and 43 gave the same run");
	litmus_result_free(&a);
	litmus_result_free(&b);
	litmus_result_free(&c);
	litmus_free(t);
}
END_TEST

START_TEST(test_sc_forbids_store_buffering)
{
	static const char *const sc[] = {"core.consistency=sc", NULL};
	struct litmus_test *t = parse(sb_text, "SB.litmus");
	struct litmus_verdict v;
	struct litmus_result r;

	run(t, sc, 300, &r);
	ck_assert_uint_eq(r.model, LIT_MODEL_SC);
	ck_assert_uint_eq(r.condition_count, 0);
	litmus_judge(t, &r, NULL, &v);
	ck_assert_uint_eq(v.expect, LIT_EXPECT_FORBID);
	ck_assert(v.pass);
	ck_assert_str_eq(v.text, "forbidden, not seen");
	/* the same result held to a verdict it breaks */
	r.condition_count = 3;
	litmus_judge(t, &r, NULL, &v);
	ck_assert(!v.pass);
	ck_assert_str_eq(v.text, "forbidden, seen 3");
	r.model = LIT_MODEL_RC;
	litmus_judge(t, &r, NULL, &v);
	ck_assert(v.pass);
	ck_assert_str_eq(v.text, "allowed, seen 3");
	litmus_result_free(&r);
	litmus_free(t);
}
END_TEST

START_TEST(test_noncoherent_is_held_to_nothing)
{
	static const char *const nc[] = {"coherence.protocol=noncoherent", NULL};
	struct litmus_test *t = parse(sb_text, "SB.litmus");
	struct litmus_verdict v;
	struct litmus_result r;

	run(t, nc, 50, &r);
	ck_assert_str_eq(r.protocol, "noncoherent");
	ck_assert_uint_eq(r.model, LIT_MODEL_NONE);
	r.condition_count = 7;
	litmus_judge(t, &r, NULL, &v);
	ck_assert_uint_eq(v.expect, LIT_EXPECT_UNKNOWN);
	ck_assert(v.pass);
	ck_assert_str_eq(v.text, "seen 7");
	litmus_result_free(&r);
	litmus_free(t);
}
END_TEST

/* One thread: the outcome is fixed by the program. */
START_TEST(test_moves_branches_rmw_negative)
{
	static const char *text =
	    "C regs\n"
	    "{ [x] = 5; [y] = -3; }\n"
	    "P0 (atomic_int* x, atomic_int* y) {\n"
	    "  int r1 = -1;\n"
	    "  int r2 = 9;\n"
	    "  int r0 = atomic_load_explicit(x, memory_order_acquire);\n"
	    "  if (r0 == 5) {\n"
	    "    r1 = atomic_fetch_add_explicit(x, 2, memory_order_acq_rel);\n"
	    "  }\n"
	    "  if (r0 == 6) {\n"
	    "    r2 = atomic_load_explicit(y, memory_order_seq_cst);\n"
	    "  }\n"
	    "  int r3 = atomic_load_explicit(y, memory_order_relaxed);\n"
	    "  atomic_store_explicit(y, r3, memory_order_release);\n"
	    "}\n"
	    "exists (0:r0=5 /\\ 0:r1=5 /\\ 0:r2=9 /\\ 0:r3=-3 /\\ x=7 /\\ y=-3)\n";
	struct litmus_test *t = parse(text, "regs.litmus");
	struct litmus_result r;

	run(t, NULL, 20, &r);
	ck_assert_uint_eq(r.noutcomes, 1);
	ck_assert_str_eq(r.outcomes[0].text, "0:r0=5; 0:r1=5; 0:r2=9; 0:r3=-3; x=7; y=-3;");
	ck_assert(r.outcomes[0].condition);
	ck_assert_uint_eq(r.condition_count, 20);
	litmus_result_free(&r);
	litmus_free(t);
}
END_TEST

/* GPU_PTX message passing across two CTAs with membar.gl, reader's loads with operator OP. */
static struct litmus_test *ptx_mp(const char *op)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "GPU_PTX mp\n{\n0:.reg .b64 r1 = x;\n0:.reg .b64 r3 = y;\n"
		 "1:.reg .b64 r1 = y;\n1:.reg .b64 r3 = x;\n}\n"
		 " P0                | P1                ;\n"
		 " st.cg.s32 [r1],1  | ld.%s.s32 r0,[r1] ;\n"
		 " membar.gl         | membar.gl         ;\n"
		 " st.cg.s32 [r3],1  | ld.%s.s32 r2,[r3] ;\n"
		 "scopeTree\n(device (kernel (cta (warp P0)) (cta (warp P1))))\n"
		 "exists (1:r0=1 /\\ 1:r2=0)\n",
		 op, op);
	return parse(text, "mp.litmus");
}

/* The cache operators reach the non-coherent L1: through .ca the reader sees the flag and an
 * old copy of the data the warm-up left in its L1 (the fences do not drop it); .cv and .cg
 * read the L2 (where message passing is never broken). A coherent L1 serves them all alike. */
START_TEST(test_ptx_cache_operators)
{
	static const char *const nc[] = {"coherence.protocol=noncoherent", NULL};
	static const char *const gtsc[] = {"coherence.protocol=gtsc", NULL};
	static const char *const ops[] = {"ca", "cg", "cv"};
	uint64_t seen[3];

	for (unsigned i = 0; i < 3; i++) {
		struct litmus_test *t = ptx_mp(ops[i]);
		struct litmus_result r;

		run(t, nc, 1500, &r);
		seen[i] = r.condition_count;
		litmus_result_free(&r);
		run(t, gtsc, 300, &r);
		ck_assert_uint_eq(r.model, LIT_MODEL_RC);
		ck_assert_msg(r.condition_count == 0, "gtsc: .%s mp+membar.gl seen %" PRIu64,
			      ops[i], r.condition_count);
		litmus_result_free(&r);
		litmus_free(t);
	}
	ck_assert_msg(seen[0] > 0, ".ca loads never read the stale copy");
	ck_assert_uint_eq(seen[1], 0);
	ck_assert_uint_eq(seen[2], 0);
}
END_TEST

/* PTX 6: weak store buffering is seen under RC, fence.sc.gpu (a seq_cst fence) removes it; the
 * condition uses `!=`, counted as the values that differ. */
START_TEST(test_ptx_fence_sc_and_ne)
{
	static const char *const rc[] = {"core.consistency=rc", NULL};
	static const char *const text[2] = {
	    "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
	    " st.weak x, 1 | st.weak y, 1 ;\n ld.weak r1, y | ld.weak r2, x ;\n"
	    "exists (P0:r1 != 1 /\\ P1:r2 != 1)\n",
	    "PTX SB+sc\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
	    " st.weak x, 1 | st.weak y, 1 ;\n fence.sc.gpu | fence.sc.gpu ;\n"
	    " ld.weak r1, y | ld.weak r2, x ;\nexists (P0:r1 != 1 /\\ P1:r2 != 1)\n"};
	uint64_t seen[2];

	for (unsigned i = 0; i < 2; i++) {
		struct litmus_test *t = parse(text[i], "sb.litmus");
		struct litmus_result r;
		uint64_t cond = 0;

		run(t, rc, 600, &r);
		for (unsigned k = 0; k < r.noutcomes; k++) {
			bool ne = r.outcomes[k].vals[0] != 1 && r.outcomes[k].vals[1] != 1;

			ck_assert(ne == r.outcomes[k].condition);
			cond += ne ? r.outcomes[k].count : 0;
		}
		ck_assert_uint_eq(cond, r.condition_count);
		seen[i] = r.condition_count;
		litmus_result_free(&r);
		litmus_free(t);
	}
	ck_assert_msg(seen[0] > 0, "weak SB never seen under rc");
	ck_assert_uint_eq(seen[1], 0);
}
END_TEST

/* OpenCL atomics: as the op API's atomics (the default) a relaxed atomic load is performed at
 * the L2 and never reads a stale L1 copy; as the C mapping's plain loads (--atomics fences) it
 * does under noncoherent. */
START_TEST(test_opencl_atomics)
{
	static const char *const nc[] = {"coherence.protocol=noncoherent", NULL};
	static const char *text =
	    "OpenCL mp\n{ [x] = 0; [y] = 0; }\n"
	    "P0@wg 0, dev 0 (global atomic_int* x, global atomic_int* y) {\n"
	    "  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device);\n"
	    "  atomic_store_explicit(y, 1, memory_order_release, memory_scope_device);\n}\n"
	    "P1@wg 1, dev 0 (global atomic_int* x, global atomic_int* y) {\n"
	    "  int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_device);\n"
	    "  int r1 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device);\n}\n"
	    "exists (1:r0=1 /\\ 1:r1=0)\n";
	struct litmus_test *t = parse(text, "mp.litmus");
	struct litmus_result ops, fences;

	ck_assert(t->threads[1].ops[0].atomic);
	run_atomics(t, nc, 1500, LIT_ATOMICS_OPS, &ops);
	run_atomics(t, nc, 1500, LIT_ATOMICS_FENCES, &fences);
	ck_assert_uint_eq(ops.condition_count, 0);
	ck_assert_msg(fences.condition_count > 0, "plain loads never read the stale copy");
	ck_assert(t->threads[1].ops[0].atomic); /* the caller's test is left alone */
	litmus_result_free(&ops);
	litmus_result_free(&fences);
	litmus_free(t);
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_expectations_file)
{
	char path[] = "/tmp/cohscope_expect_XXXXXX";
	int fd = mkstemp(path);
	struct litmus_expect_table *tab = NULL;
	struct litmus_test *t = parse(sb_text, "tests/litmus/upstream/c11/SB.litmus");
	struct litmus_test *u = parse(sb_text, "elsewhere/xSB.litmus");
	struct cs_err err = {0};

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(path, "# comment\n\nupstream/c11/SB.litmus\tF\tA\tnote\nSB.litmus\t-\tForbid\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), 0);
	/* header keys first */
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_RC), LIT_EXPECT_ALLOW);
	t->expect_rc[0] = t->expect_sc[0] = '\0';
	/* then the longest matching path suffix */
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_SC), LIT_EXPECT_FORBID);
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_RC), LIT_EXPECT_ALLOW);
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_NONE), LIT_EXPECT_UNKNOWN);
	/* a suffix must start at a '/' */
	u->expect_rc[0] = u->expect_sc[0] = '\0';
	ck_assert_uint_eq(litmus_expected(u, tab, LIT_MODEL_RC), LIT_EXPECT_UNKNOWN);
	u->coherence = true;
	ck_assert_uint_eq(litmus_expected(u, tab, LIT_MODEL_RC), LIT_EXPECT_FORBID);
	litmus_expect_free(tab);

	/* a fourth field that reads as a verdict is TSO's; anything else is a note */
	write_file(path, "upstream/c11/SB.litmus\tF\tA\tEXPECTED.md: note\n"
			 "xSB.litmus\tForbid\t-\tAllow\tnote\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), 0);
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_TSO), LIT_EXPECT_UNKNOWN);
	u->coherence = false;
	ck_assert_uint_eq(litmus_expected(u, tab, LIT_MODEL_TSO), LIT_EXPECT_ALLOW);
	ck_assert_uint_eq(litmus_expected(u, tab, LIT_MODEL_RC), LIT_EXPECT_UNKNOWN);
	ck_assert_uint_eq(litmus_expected(u, tab, LIT_MODEL_SC), LIT_EXPECT_FORBID);
	strcpy(u->expect_tso, "Forbid"); /* the header key wins */
	ck_assert_uint_eq(litmus_expected(u, tab, LIT_MODEL_TSO), LIT_EXPECT_FORBID);
	litmus_expect_free(tab);

	write_file(path, "a.litmus\tF\tA\nb.litmus\tForbid\tmaybe\tnote\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_ptr_null(tab);
	ck_assert_msg(strstr(err.msg, ":2: verdict 'maybe'"), "%s", err.msg);
	/* issue 43, case 8: a misspelt or empty verdict, and two lines for one test, are errors */
	write_file(path, "a.litmus\tF\tA\tForbidd\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":1: verdict 'Forbidd' is not Forbid, Allow or - (did you "
				      "mean 'Forbid'?)"),
		      "%s", err.msg);
	write_file(path, "# x\na.litmus\t\tForbid\tAllow\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":2: field 2 is empty (an extra TAB?)"), "%s", err.msg);
	write_file(path, "a.litmus\tF\tA\t\tnote\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":1: field 4 is empty"), "%s", err.msg);
	write_file(path, "a.litmus\tF\tA\nb.litmus\tA\tA\na.litmus\tA\tA\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":3: a second line for a.litmus (the first is line 1)"), "%s",
		      err.msg);
	write_file(path, "a.litmus Forbid Allow\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":1: expected PATH"), "%s", err.msg);
	unlink(path);
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EIO);
	ck_assert_msg(strstr(err.msg, "cannot open"), "%s", err.msg);
	litmus_free(t);
	litmus_free(u);
}
END_TEST

START_TEST(test_agents)
{
	char path[] = "/tmp/cohscope_expect_XXXXXX";
	int fd = mkstemp(path);
	struct litmus_expect_table *tab = NULL;
	struct litmus_test *t = parse(sb_text, "tests/litmus/mixed/SB.litmus");
	struct cs_err err = {0};
	struct litmus_opts o;
	char text[64];

	litmus_opts_default(&o);
	ck_assert_uint_eq(o.nagents, 0);
	ck_assert_int_eq(litmus_agents_parse("cpu,gpu,gpu", &o, &err), 0);
	ck_assert_uint_eq(o.nagents, 3);
	ck_assert_uint_eq(o.agents[0], LIT_AGENT_CPU);
	ck_assert_uint_eq(o.agents[2], LIT_AGENT_GPU);
	litmus_agents_text(&o, text, sizeof(text));
	ck_assert_str_eq(text, "cpu,gpu,gpu");
	ck_assert_int_eq(litmus_agents_parse("cpu,fpga", &o, &err), -CS_EUSAGE);
	ck_assert_msg(strstr(err.msg, "'fpga' is not an agent"), "%s", err.msg);
	ck_assert_int_eq(litmus_agents_parse("gpu,", &o, &err), -CS_EUSAGE);
	ck_assert_int_eq(litmus_agents_parse("", &o, &err), -CS_EUSAGE);
	ck_assert_int_eq(litmus_agents_parse("cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu", &o, &err),
			 -CS_EUSAGE);
	ck_assert_msg(strstr(err.msg, "more than 8 agents"), "%s", err.msg);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(path, "mixed/SB.litmus\tcpu,gpu\tAllow\tnote\n"
			 "mixed/SB.litmus\tgpu,cpu\tForbid\n"
			 "SB.litmus\tF\tA\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), 0);
	t->expect_rc[0] = t->expect_sc[0] = '\0';
	ck_assert_uint_eq(litmus_expected_agents(t, tab, LIT_MODEL_HSA, "cpu,gpu"),
			  LIT_EXPECT_ALLOW);
	ck_assert_uint_eq(litmus_expected_agents(t, tab, LIT_MODEL_HSA, "gpu,cpu"),
			  LIT_EXPECT_FORBID);
	/* no line for these agents: unknown, not another placement's verdict */
	ck_assert_uint_eq(litmus_expected_agents(t, tab, LIT_MODEL_HSA, "gpu,gpu"),
			  LIT_EXPECT_UNKNOWN);
	/* runs without --agents see only the lines without agents */
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_SC), LIT_EXPECT_FORBID);
	ck_assert_uint_eq(litmus_expected(t, tab, LIT_MODEL_RC), LIT_EXPECT_ALLOW);
	litmus_expect_free(tab);
	write_file(path, "mixed/SB.litmus\tcpu,tpu\tAllow\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":1: --agents cpu,tpu: 'tpu' is not an agent"), "%s",
		      err.msg);
	write_file(path, "mixed/SB.litmus\tcpu,gpu\tmaybe\n");
	ck_assert_int_eq(litmus_expect_load(path, &tab, &err), -CS_EINVAL);
	ck_assert_msg(strstr(err.msg, ":1: verdict 'maybe'"), "%s", err.msg);
	unlink(path);
	litmus_free(t);
}
END_TEST

static Suite *litmus_run_suite(void)
{
	Suite *s = suite_create("litmus_run");
	TCase *t = tcase_create("litmus_run");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_histogram_complete_and_sorted);
	tcase_add_test(t, test_same_seed_same_histogram);
	tcase_add_test(t, test_sc_forbids_store_buffering);
	tcase_add_test(t, test_noncoherent_is_held_to_nothing);
	tcase_add_test(t, test_moves_branches_rmw_negative);
	tcase_add_test(t, test_ptx_cache_operators);
	tcase_add_test(t, test_ptx_fence_sc_and_ne);
	tcase_add_test(t, test_opencl_atomics);
	tcase_add_test(t, test_expectations_file);
	tcase_add_test(t, test_agents);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(litmus_run_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
