/*
 * workloads/litmus/run.h - runs a litmus test (litmus.h) many times on the simulated GPU and
 * judges the outcomes against the memory model the run is held to. docs/litmus.md describes
 * the mapping of accesses and fences to the GPU's ops, placement, jitter, warm-up and verdicts.
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
#include <stdint.h>

#include "util/config.h"
#include "util/error.h"
#include "util/params.h"
#include "workloads/litmus/litmus.h"

#define LITMUS_DEFAULT_ITERATIONS 500
#define LITMUS_DEFAULT_JITTER	  300 /* core cycles */
#define LITMUS_DEFAULT_WARMUP	  2   /* warm the L1s in every other iteration */
#define LITMUS_MAX_KEYS		  (LIT_MAX_ATOMS)

/* Where threads and locations go. Fixed: thread group g (a thread, or the threads of one
 * OpenCL work-group) on SM g % sms, location l in L2 bank l % banks. Random: every iteration
 * draws distinct SMs for the groups and distinct banks for the locations, so that the NoC
 * distances between writers, readers and banks differ from one iteration to the next. */
enum litmus_placement { LIT_PLACE_RANDOM = 0, LIT_PLACE_FIXED };

/* jitter (core cycles): each iteration draws a scale J in {jitter, jitter/4, jitter/16,
 * jitter/64}; a warp waits rand % J before its first op and rand % (J/8 + 1) before each further
 * memory op or fence. warmup: warm the L1s in iterations i with i % warmup == warmup - 1 (0:
 * never). */
struct litmus_opts {
	uint64_t iterations; /* kernel launches (>= 1) */
	uint64_t jitter;
	uint64_t warmup;
	unsigned placement; /* enum litmus_placement */
};

/* The memory model a run is held to: the SMs' core.consistency under a coherent protocol,
 * nothing ("none") under a protocol whose L1s may hold stale data; x86-TSO for an X86 test on
 * CPU cores. */
enum litmus_model { LIT_MODEL_SC = 0, LIT_MODEL_RC, LIT_MODEL_NONE, LIT_MODEL_TSO };

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
	unsigned model; /* enum litmus_model */
	uint64_t seed;	/* sim.seed */
	uint64_t iterations;
	uint64_t condition_count; /* iterations whose outcome satisfied the proposition */
	uint64_t cycles;	  /* simulated core cycles of the whole run */
	unsigned nkeys;
	struct litmus_key keys[LITMUS_MAX_KEYS];
	unsigned noutcomes; /* sorted by their values, key by key */
	struct litmus_outcome *outcomes;
};

void litmus_opts_default(struct litmus_opts *o);

/* Builds a GPU system from cfg (system type "gpu"; --set overrides already applied), or for an
 * X86 test a system with CPU cores (system type "cpu": one thread per core, TSO), runs the
 * test o->iterations times on it and fills *r (free it with litmus_result_free, also after an
 * error). Configuration errors come back as from cs_system_create (-CS_ECONFIG...); a failed
 * simulation (a deadlock, a model error) as from cs_system_run. */
int litmus_run(const struct litmus_test *t, struct cs_config *cfg, const struct litmus_opts *o,
	       struct litmus_result *r, struct cs_err *err);
void litmus_result_free(struct litmus_result *r);

const char *litmus_model_name(unsigned model);	 /* "sc", "rc", "none", "tso" */
const char *litmus_expect_name(unsigned expect); /* "Allow", "Forbid", "?" */

/* ---- expectations and verdicts -------------------------------------------------------------- */

/* An expectations file (tests/litmus/expected.tsv): lines "PATH<TAB>SC<TAB>RC<TAB>NOTE" or
 * "PATH<TAB>SC<TAB>RC<TAB>TSO<TAB>NOTE" (a fourth field that reads as a verdict is the TSO
 * one), PATH relative to tests/litmus/ (a test matches when its file path ends with "/PATH"),
 * verdicts Forbid / Allow (or F / A; "-" or "?": unknown); '#' starts a comment line. */
struct litmus_expect_table;

/* Errors: "FILE: cannot open: REASON" (-CS_EIO), "FILE:LINE: problem" (-CS_EINVAL). */
int litmus_expect_load(const char *path, struct litmus_expect_table **out, struct cs_err *err);
void litmus_expect_free(struct litmus_expect_table *tab);

/* The verdict expected for t under model: the test's own Cohscope.sc / .rc / .tso key, else
 * the table's line (tab may be NULL), else Forbid for a coherence shape, else unknown. Model
 * "none" expects nothing (unknown). */
unsigned litmus_expected(const struct litmus_test *t, const struct litmus_expect_table *tab,
			 unsigned model);

struct litmus_verdict {
	unsigned expect; /* enum litmus_expect */
	bool pass;	 /* false only when expected Forbid and seen */
	char text[48];	 /* "forbidden, seen 3" / "allowed, seen 12" / "allowed, not seen" ... */
};

void litmus_judge(const struct litmus_test *t, const struct litmus_result *r,
		  const struct litmus_expect_table *tab, struct litmus_verdict *v);

#endif
