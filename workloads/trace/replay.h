/*
 * workloads/trace/replay.h - `-w trace:PATH`: a GPU host program that replays a trace.
 *
 * The trace (a cohscope recording or an imported Accel-Sim trace, workloads/trace/trace.h) is
 * loaded by the caller and passed as the run's argument (cs_run_opts.arg). The replay reserves
 * the trace's device address range, performs its host copies and launches its kernels in
 * order; each warp issues its recorded ops through the op API. A recorded run's addresses are
 * kept (its range starts where a fresh GPU's allocator starts), an imported trace's are
 * relocated by the base the allocator returns.
 */
#ifndef COHSCOPE_WORKLOADS_TRACE_REPLAY_H
#define COHSCOPE_WORKLOADS_TRACE_REPLAY_H

#include "workloads/workload.h"

/* The workload entry (name "trace", system "gpu") to pass as cs_run_opts.custom. */
extern const struct cs_workload trace_replay_workload;

#endif
