/*
 * workloads/workload.h - the workload registry: what `-w NAME` selects.
 *
 * A workload names the system type it runs on. The kernel self-checks are the only workloads
 * until the GPU model arrives; GPU kernels, traces and litmus tests will register here too.
 */
#ifndef COHSCOPE_WORKLOADS_WORKLOAD_H
#define COHSCOPE_WORKLOADS_WORKLOAD_H

struct cs_workload {
	const char *name;
	const char *system; /* the system type it runs on */
	const char *help;
};

/* NULL-terminated, in the order `cohscope list workloads` shows them. */
const struct cs_workload *const *cs_workload_registry(void);
const struct cs_workload *cs_workload_find(const char *name);

#endif
