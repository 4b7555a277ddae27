/*
 * workloads/workload.h - the workload registry: what `-w NAME` selects.
 *
 * A workload names the system type it runs on: the kernel self-checks (system "selfcheck"),
 * GPU programs written against workloads/gpu_api.h (system "gpu") or CPU programs written
 * against workloads/cpu_api.h (system "cpu").
 */
#ifndef COHSCOPE_WORKLOADS_WORKLOAD_H
#define COHSCOPE_WORKLOADS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "workloads/cpu_api.h"
#include "workloads/gpu_api.h"

struct cs_workload {
	const char *name;
	const char *system; /* the system type it runs on */
	const char *help;
	gpu_host_fn gpu; /* system "gpu": the host program */
	cpu_host_fn cpu; /* system "cpu": the host program (workloads/cpu_api.h) */
	/* The G-TSC benchmark suite (`cohscope suite`): 1 = set 1 (needs coherence), 2 = set 2
	 * (no coherence needed), 0 = not in the suite. */
	unsigned suite_set;
	/* The suite the workload comes from, as `cohscope suite NAME` and `list workloads` group
	 * them: "rodinia", "parboil", "ispass", "doe", "tc" (Singh et al.'s coherence set), or NULL
	 * (microbenchmarks, testers, CPU and CPU + GPU programs). */
	const char *origin;
};

/* The source suites, in `cohscope list workloads` order (NULL-terminated). */
extern const char *const cs_workload_origins[];
/* A suite name `cohscope suite` and sweeps take: "gtsc" (the G-TSC twelve, thesis Table 3.4),
 * a source suite (cs_workload_origins) or "all" (every benchmark of any of them). */
bool cs_suite_known(const char *suite);
/* "gtsc, tc, rodinia, ..., all": the names cs_suite_known takes, for messages (into buf). */
const char *cs_suite_names(char *buf, size_t len);
/* Whether w is a benchmark of that suite. */
bool cs_suite_has(const char *suite, const struct cs_workload *w);

/* NULL-terminated, in the order `cohscope list workloads` shows them. */
const struct cs_workload *const *cs_workload_registry(void);
const struct cs_workload *cs_workload_find(const char *name);

#endif
