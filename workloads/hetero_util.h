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
/* Spin-waits of a CPU thread until the uint32 at addr is at least want, backing off (PAUSE) up
 * to about a microsecond between looks; false on livelock (the thread has failed the run,
 * naming `who`). */
bool hx_cpu_wait_at_least(struct cpu_thread *t, uint64_t addr, uint32_t want, const char *who);
/* A barrier of the program's CPU threads on the counter at `count` (zero at the start): round r
 * (1, 2, ...) waits until every thread has added its 1 r times. */
bool hx_cpu_barrier(struct cpu_thread *t, uint64_t count, uint32_t round, const char *who);

#endif
