/*
 * workloads/litmus/run.h - runs a litmus test (litmus.h) many times on the simulated GPU, on
 * CPU cores (X86 tests), or with --agents on both (system apu: each thread on a CPU core or a
 * GPU CU), and judges the outcomes against the memory model the run is held to.
 * docs/litmus.md describes the mapping of accesses and fences to the GPU's ops, placement,
 * jitter, warm-up and verdicts.
 *
 *   struct litmus_opts o;
 *   struct litmus_result r;
 *   litmus_opts_default(&o);
 *   litmus_run(test, cfg, &o, &r, &err);         // one GPU system, o.iterations launches
 *   litmus_judge(test, &r, table, &verdict);     // table: --expect FILE, or NULL
 *   litmus_result_free(&r);
 */
#ifndef COHSCOPE_WORKLOADS_LITMUS_RUN_H
#define COHSCOPE_WORKLOADS_LITMUS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/config.h"
#include "util/error.h"
#include "util/params.h"
#include "workloads/litmus/litmus.h"

#define LITMUS_DEFAULT_ITERATIONS   500
#define LITMUS_DEFAULT_JITTER	    300 /* core cycles */
/* With --agents (GPU cycles): a GPU access that reaches the directory takes about a
 * microsecond, ten times a CPU core's L2 hit; the threads' delays must span that for the
 * GPU's stores to land on either side of the CPU's loads (cohscope litmus applies it when
 * --jitter is not given). */
#define LITMUS_DEFAULT_JITTER_MIXED 3000
#define LITMUS_DEFAULT_WARMUP	    2 /* warm the L1s in every other iteration */
#define LITMUS_MAX_KEYS		    (LIT_MAX_ATOMS)

/* Where threads and locations go. Fixed: thread group g (a thread, or the threads of one
 * OpenCL work-group) on SM g % sms, location l in L2 bank l % banks. Random: every iteration
 * draws distinct SMs for the groups and distinct banks for the locations, so that the NoC
 * distances between writers, readers and banks differ from one iteration to the next. */
enum litmus_placement { LIT_PLACE_RANDOM = 0, LIT_PLACE_FIXED };

/* How an OpenCL test's atomics run (--atomics): as the op API's atomic loads, stores and RMWs
 * of their order and scope (ops), or as the C mapping's plain accesses between fences, RMWs
 * inside them (fences). docs/litmus.md "Mapping to the GPU's ops". */
enum litmus_atomics { LIT_ATOMICS_OPS = 0, LIT_ATOMICS_FENCES };

/* jitter (core cycles; GPU cycles in a mixed run, which a CPU thread waits as the same time in
 * its own cycles): each iteration draws a scale J in {jitter, jitter/4, jitter/16, jitter/64};
 * a thread waits rand % J before its first op and rand % (J/8 + 1) before each further memory
 * op or fence. warmup: warm the L1s (in a mixed run the TCPs and TCC, and the CorePairs) in
 * iterations i with i % warmup == warmup - 1 (0: never). */
struct litmus_opts {
	uint64_t iterations; /* kernel launches (>= 1) */
	uint64_t jitter;
	uint64_t warmup;
	unsigned placement; /* enum litmus_placement */
	unsigned atomics;   /* enum litmus_atomics */
	/* --agents: thread i runs on agents[i] (enum litmus_agent); 0 agents: no --agents (C and
	 * OpenCL tests on the GPU, X86 tests on the CPU cores of system cpu) */
	unsigned nagents;
	uint8_t agents[LIT_MAX_THREADS];
};

/* Where a thread of a mixed run (--agents, system apu) runs: a CPU core (x86-TSO, the X86
 * instructions as written) or a GPU CU (one single-warp CTA; the X86 instructions mapped to
 * GPU ops, docs/litmus.md "CPU and GPU threads together"). */
enum litmus_agent { LIT_AGENT_CPU = 0, LIT_AGENT_GPU };

/* "cpu,gpu,..." into o->agents. Errors: "--agents TEXT: ..." (-CS_EUSAGE): an unknown name, an
 * empty item, more than LIT_MAX_THREADS agents. */
int litmus_agents_parse(const char *text, struct litmus_opts *o, struct cs_err *err);
/* o's agents as "cpu,gpu" ("" without --agents). */
void litmus_agents_text(const struct litmus_opts *o, char *buf, size_t len);

/* The memory model a run is held to: the SMs' core.consistency under a coherent protocol,
 * nothing ("none") under a protocol whose L1s may hold stale data; x86-TSO for an X86 test on
 * CPU cores; "hsa" for a mixed run (--agents): x86-TSO on the CPU threads, HSA's scoped
 * acquire/release on the GPU threads, synchronising at system scope (docs/litmus.md). */
enum litmus_model { LIT_MODEL_SC = 0, LIT_MODEL_RC, LIT_MODEL_NONE, LIT_MODEL_TSO, LIT_MODEL_HSA };

enum litmus_expect { LIT_EXPECT_UNKNOWN = 0, LIT_EXPECT_ALLOW, LIT_EXPECT_FORBID };

/* One distinct final state: the values of the registers and locations the condition names
 * (in the order of litmus_result.keys), how often it was seen, and whether the condition's
 * proposition holds in it. */
struct litmus_outcome {
	int64_t vals[LITMUS_MAX_KEYS];
	uint64_t count;
	bool condition;
	char text[LITMUS_MAX_KEYS * (LIT_NAME_MAX + 28) + 1]; /* "0:r0=1; 1:r0=0; x=2;" */
};

/* What an outcome lists: a register (thread, reg) or a location. */
struct litmus_key {
	bool is_loc;
	uint8_t thread, reg, loc;
};

struct litmus_result {
	char protocol[CS_PARAM_STR_MAX];
	char agents[LIT_MAX_THREADS * 4]; /* mixed runs: "cpu,gpu"; else "" */
	unsigned model;			  /* enum litmus_model */
	uint64_t seed;			  /* sim.seed */
	uint64_t iterations;
	uint64_t condition_count; /* iterations whose outcome satisfied the proposition */
	uint64_t cycles;	  /* simulated core cycles of the whole run */
	/* mixed runs: thread starts that came after the common start time (the timebase
	 * barrier's margin was too short for them; they started at once) */
	uint64_t late_starts;
	unsigned nkeys;
	struct litmus_key keys[LITMUS_MAX_KEYS];
	unsigned noutcomes; /* sorted by their values, key by key */
	struct litmus_outcome *outcomes;
};

void litmus_opts_default(struct litmus_opts *o);

/* Whether t can run on cfg's system with o (before anything runs): the system type the test
 * needs (gpu for C and OpenCL, cpu for X86; apu with --agents, which takes X86 tests only and
 * one agent per thread, no more CPU threads than cpus.cores and no more GPU threads than
 * gpu.sms). Errors name the test's file: -CS_ECONFIG (system), -CS_EINVAL (the test). */
int litmus_check(const struct litmus_test *t, struct cs_config *cfg, const struct litmus_opts *o,
		 struct cs_err *err);

/* Builds a GPU system from cfg (system type "gpu"; --set overrides already applied), or for an
 * X86 test a system with CPU cores (system type "cpu": one thread per core, TSO), or with
 * --agents the APU (system type "apu": one CPU program per iteration whose thread 0 launches
 * the GPU threads' kernel), runs the test o->iterations times on it and fills *r (free it with
 * litmus_result_free, also after an error). Errors as litmus_check's, configuration errors as
 * from cs_system_create (-CS_ECONFIG...); a failed simulation (a deadlock, a model error) as
 * from cs_system_run. */
int litmus_run(const struct litmus_test *t, struct cs_config *cfg, const struct litmus_opts *o,
	       struct litmus_result *r, struct cs_err *err);
void litmus_result_free(struct litmus_result *r);

const char *litmus_model_name(unsigned model);	 /* "sc", "rc", "none", "tso", "hsa" */
const char *litmus_expect_name(unsigned expect); /* "Allow", "Forbid", "?" */

/* ---- expectations and verdicts -------------------------------------------------------------- */

/* An expectations file (tests/litmus/expected.tsv): lines "PATH<TAB>SC<TAB>RC<TAB>NOTE" or
 * "PATH<TAB>SC<TAB>RC<TAB>TSO<TAB>NOTE" (a fourth field that reads as a verdict is the TSO
 * one), PATH relative to tests/litmus/ (a test matches when its file path ends with "/PATH"),
 * verdicts Forbid / Allow (or F / A; "-" or "?": unknown); '#' starts a comment line. Mixed
 * runs (tests/litmus/mixed/expected.tsv): "PATH<TAB>AGENTS<TAB>HSA<TAB>NOTE", AGENTS as
 * --agents writes them ("cpu,gpu"); such a line applies only to a run with those agents. */
struct litmus_expect_table;

/* Errors: "FILE: cannot open: REASON" (-CS_EIO), "FILE:LINE: problem" (-CS_EINVAL). */
int litmus_expect_load(const char *path, struct litmus_expect_table **out, struct cs_err *err);
void litmus_expect_free(struct litmus_expect_table *tab);

/* The verdict expected for t under model: the test's own Cohscope.sc / .rc / .tso key, else
 * the table's line (tab may be NULL), else Forbid for a coherence shape, else unknown. Model
 * "none" expects nothing (unknown). */
unsigned litmus_expected(const struct litmus_test *t, const struct litmus_expect_table *tab,
			 unsigned model);
/* The same for a run with these agents ("cpu,gpu"; "" or NULL: none): model hsa takes the
 * table's line for the test and those agents, else unknown. */
unsigned litmus_expected_agents(const struct litmus_test *t, const struct litmus_expect_table *tab,
				unsigned model, const char *agents);

struct litmus_verdict {
	unsigned expect; /* enum litmus_expect */
	bool pass;	 /* false only when expected Forbid and seen */
	char text[48];	 /* "forbidden, seen 3" / "allowed, seen 12" / "allowed, not seen" ... */
};

void litmus_judge(const struct litmus_test *t, const struct litmus_result *r,
		  const struct litmus_expect_table *tab, struct litmus_verdict *v);

#endif
