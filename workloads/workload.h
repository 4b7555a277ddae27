/*
 * workloads/workload.h - the workload registry: what `-w NAME` selects.
 *
 * A workload names the system type it runs on: the kernel self-checks (system "selfcheck"),
 * GPU programs written against workloads/gpu_api.h (system "gpu") or CPU programs written
 * against workloads/cpu_api.h (system "cpu").
 */
#ifndef COHSCOPE_WORKLOADS_WORKLOAD_H
#define COHSCOPE_WORKLOADS_WORKLOAD_H

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
};

/* NULL-terminated, in the order `cohscope list workloads` shows them. */
const struct cs_workload *const *cs_workload_registry(void);
const struct cs_workload *cs_workload_find(const char *name);

#endif
