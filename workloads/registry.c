/* workloads/registry.c - the explicit list of workloads (as Lua's linit.c lists libraries). */
#include "workloads/workload.h"

#include <stddef.h>
#include <string.h>

static const struct cs_workload wl_selfcheck = {
    .name = "selfcheck",
    .system = "selfcheck",
    .help = "kernel self-check: ping-pong processes, TLM AT and LT memory tests, checked "
	    "against their analytic times",
};

static const struct cs_workload wl_pingpong = {
    .name = "pingpong",
    .system = "selfcheck",
    .help = "pairs of processes re-arming each other 1-4 ns ahead (methods and threads)",
};

static const struct cs_workload wl_memtest = {
    .name = "memtest",
    .system = "selfcheck",
    .help = "initiators writing and reading back a memory target through TLM sockets, "
	    "approximately timed (4 phases) and loosely timed (quantum keeper)",
};

static const struct cs_workload *const workloads[] = {
    &wl_selfcheck,
    &wl_pingpong,
    &wl_memtest,
    NULL,
};

const struct cs_workload *const *cs_workload_registry(void)
{
	return workloads;
}

const struct cs_workload *cs_workload_find(const char *name)
{
	for (size_t i = 0; workloads[i]; i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}
