/*
 * workloads/hetero_util.h - what the CPU + GPU workloads of system apu share (hetero.c, chai*.c):
 * a GPU warp's system-scope read, a CPU thread's spin-wait with back-off, and a barrier of a
 * program's CPU threads.
 */
#ifndef COHSCOPE_WORKLOADS_HETERO_UTIL_H
#define COHSCOPE_WORKLOADS_HETERO_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "workloads/cpu_api.h"
#include "workloads/gpu_api.h"

/* A system-scope read of a GPU warp: an atomic add of 0 at the directory (acquire). */
uint32_t hx_gpu_sys_read32(struct gpu_warp *w, uint64_t addr);
/* Spin-waits of a CPU thread with plain loads until the uint32 at addr is at least want,
 * pausing 16, 32, ... up to max_backoff cycles between looks; *v (may be NULL) gets the value.
 * False on livelock: the thread has failed the run, naming `who` and `what` (NULL: the value
 * waited for). */
bool hx_cpu_spin(struct cpu_thread *t, uint64_t addr, uint32_t want, uint64_t max_backoff,
		 const char *who, const char *what, uint32_t *v);
/* hx_cpu_spin backing off up to about a microsecond (4096 cycles) between looks. */
bool hx_cpu_wait_at_least(struct cpu_thread *t, uint64_t addr, uint32_t want, const char *who);
/* A barrier of n CPU threads of the program on the counter at `count` (zero at the start):
 * round r (1, 2, ...) waits until each of them has added its 1 r times. */
bool hx_cpu_group_barrier(struct cpu_thread *t, uint64_t count, unsigned n, uint32_t round,
			  const char *who);
/* hx_cpu_group_barrier of all the program's threads. */
bool hx_cpu_barrier(struct cpu_thread *t, uint64_t count, uint32_t round, const char *who);

#endif
