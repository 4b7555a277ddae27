/*
 * workloads/cpu_micro.h - CPU microbenchmarks on system `cpu` (workloads/cpu_api.h): each
 * checks its own result.
 */
#ifndef COHSCOPE_WORKLOADS_CPU_MICRO_H
#define COHSCOPE_WORKLOADS_CPU_MICRO_H

#include "workloads/cpu_api.h"

/* cpu_count: every core adds 1 to one shared counter 200 times with LOCK XADD, between plain
 * stores and reloads of its own slot (store-to-load forwarding); total checked: cores * 200. */
int cpu_count_main(struct cpu_host *h);
/* cpu_mp: core 0 writes 64 data words then a flag; every other core spins on the flag and then
 * reads the data, which TSO guarantees it sees whole; 20 rounds with a sense flag. */
int cpu_mp_main(struct cpu_host *h);

#endif
