/*
 * workloads/litmus/litmus.h - a litmus test in memory: what the parser (parse.c) builds from a
 * herdtools7 `.litmus` file (C dialect as herd7 and the Linux-kernel memory-model catalogue
 * write it; OpenCL flavour with scope tags; X86 in Intel syntax; PTX: herd's GPU_PTX of 2015
 * with cache operators and Dat3M's PTX 6 with scoped release/acquire) and what the runner
 * (run.c) executes on the GPU (C, OpenCL, PTX) or on CPU cores (X86).
 *
 * A test has shared locations with initial values, threads (each a straight-line list of ops;
 * `if` without `else` becomes a BRANCH op that skips the ops of its body when the condition is
 * false), and a final condition: `exists (...)` or `~exists (...)` over a conjunction of
 * `T:reg=value` and `loc=value` atoms.
 */
#ifndef COHSCOPE_WORKLOADS_LITMUS_LITMUS_H
#define COHSCOPE_WORKLOADS_LITMUS_LITMUS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

#define LIT_MAX_THREADS 8
#define LIT_MAX_LOCS	16
#define LIT_MAX_REGS	16 /* per thread */
#define LIT_MAX_OPS	64 /* per thread */
#define LIT_MAX_ATOMS	16
#define LIT_NAME_MAX	64

enum lit_op_kind {
	LIT_LOAD = 0, /* reg = loc */
	LIT_STORE,    /* loc = val */
	LIT_RMW,      /* reg = rmw(loc, val[, val2]) : atomic_fetch_add / xchg / cmpxchg */
	LIT_FENCE,    /* a fence of kind `fence` */
	LIT_MOVE,     /* reg = val (a register initialised or assigned without memory) */
	LIT_BRANCH,   /* if !(cond) skip the next `skip` ops */
};

/* Memory order of an access, as written. ONCE = READ_ONCE/WRITE_ONCE, plain accesses and
 * memory_order_relaxed. */
enum lit_order { LIT_ONCE = 0, LIT_ACQUIRE, LIT_RELEASE, LIT_ACQ_REL, LIT_SC };

/* Fences, as written: smp_mb / smp_rmb / smp_wmb, and atomic_thread_fence(order). */
enum lit_fence {
	LIT_FENCE_MB = 0,
	LIT_FENCE_RMB,
	LIT_FENCE_WMB,
	LIT_FENCE_ACQ,
	LIT_FENCE_REL,
	LIT_FENCE_ACQ_REL,
	LIT_FENCE_SC,
};

/* A scope as OpenCL writes it (memory_scope_work_group, _device, _all_svm_devices; PTX .cta,
 * .gpu, .sys and membar.cta, .gl, .sys); accesses without one have LIT_SCOPE_DEFAULT (device
 * for atomics, as OpenCL's default, and for C). */
enum lit_scope { LIT_SCOPE_DEFAULT = 0, LIT_SCOPE_WG, LIT_SCOPE_DEVICE, LIT_SCOPE_SYSTEM };

enum lit_rmw { LIT_RMW_ADD = 0, LIT_RMW_XCHG, LIT_RMW_CAS };

/* A PTX cache operator of a plain access (GPU_PTX ld/st.ca, .cg, .cv; .volatile is read as
 * .cv); LIT_CO_NONE: none written (the L1's default, as .ca). */
enum lit_co { LIT_CO_NONE = 0, LIT_CO_CA, LIT_CO_CG, LIT_CO_CV };

/* An operand: a constant or a register of the same thread. */
struct lit_val {
	bool is_reg;
	uint8_t reg;
	int64_t k;
};

enum lit_cmp { LIT_EQ = 0, LIT_NE, LIT_TRUE /* if (r) : r != 0 */ };

struct lit_op {
	uint8_t kind;		  /* enum lit_op_kind */
	uint8_t order;		  /* enum lit_order (accesses) */
	uint8_t fence;		  /* enum lit_fence (LIT_FENCE) */
	uint8_t scope;		  /* enum lit_scope */
	uint8_t rmw;		  /* enum lit_rmw (LIT_RMW) */
	uint8_t loc;		  /* location index (accesses) */
	int8_t reg;		  /* destination register (LOAD, RMW, MOVE), -1 if none */
	struct lit_val val, val2; /* STORE / MOVE value; RMW operand(s) (CAS: expected, desired) */
	/* LIT_BRANCH: `if (a cmp b)`; skip = ops in the body */
	uint8_t cmp; /* enum lit_cmp */
	struct lit_val a, b;
	uint8_t skip;
	uint8_t co; /* enum lit_co (LOAD, STORE) */
	/* An atomic access as the op API performs it: a PTX strong access (.relaxed, .acquire,
	 * .release with a scope) or an OpenCL atomic: an atomic load / store / RMW of that order
	 * and scope (run.c; OpenCL's only under --atomics ops). A fence with it set takes its
	 * order as written (PTX fence.sc: a seq_cst fence). Unset: the C mapping, plain accesses
	 * between fences (docs/litmus.md). */
	bool atomic;
	unsigned line; /* source line, for messages */
};

struct lit_thread {
	char name[8]; /* "P0" */
	/* OpenCL placement (`P0@wg 0, dev 0` or scopeTree), PTX's (`P0@cta 0,gpu 0` or a GPU_PTX
	 * scopeTree: cta as wg, gpu as dev); -1 when not given */
	int wg, dev;
	unsigned nregs;
	char regs[LIT_MAX_REGS][LIT_NAME_MAX]; /* register names, in order of declaration */
	unsigned nops;
	struct lit_op ops[LIT_MAX_OPS];
};

struct lit_loc {
	char name[LIT_NAME_MAX];
	int64_t init;
	bool atomic; /* declared atomic_int * in some thread */
	bool local;  /* OpenCL `local` memory space */
};

struct lit_atom {
	bool is_loc; /* loc=value, else thread:reg=value */
	bool ne;     /* `!=` (PTX): the value differs */
	uint8_t thread, reg, loc;
	int64_t value;
};

struct lit_cond {
	bool negated; /* ~exists */
	unsigned natoms;
	struct lit_atom atoms[LIT_MAX_ATOMS]; /* a conjunction */
};

struct litmus_test {
	char arch[16];	/* "C", "OpenCL", "X86", "GPU_PTX", "PTX" as written on the header line */
	char name[128]; /* the test's name from the header line */
	char path[256]; /* the file it came from */
	unsigned nlocs, nthreads;
	struct lit_loc locs[LIT_MAX_LOCS];
	struct lit_thread threads[LIT_MAX_THREADS];
	struct lit_cond cond;
	/* Key=value lines of the header we know: cohscope's own expected verdicts. */
	char expect_sc[8];  /* "Forbid" / "Allow" / "" (from a `Cohscope.sc=Forbid` line) */
	char expect_rc[8];  /* from a `Cohscope.rc=...` line */
	char expect_tso[8]; /* from a `Cohscope.tso=...` line */
	bool coherence; /* a coherence shape (Co*), from `Cohscope.shape=coherence` or the name */
};

/* Parses a file / a string. Errors fill err with "FILE:LINE: problem" (unsupported constructs:
 * "FILE:LINE: unsupported: WHAT") and return -CS_EINVAL (-CS_EIO when the file cannot be read,
 * -CS_ENOMEM). *out is NULL on error. */
int litmus_parse_file(const char *path, struct litmus_test **out, struct cs_err *err);
int litmus_parse_string(const char *text, const char *path, struct litmus_test **out,
			struct cs_err *err);
void litmus_free(struct litmus_test *t);

#endif
