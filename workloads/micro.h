/*
 * workloads/micro.h - microbenchmarks: the host programs (docs/workloads.md, "Microbenchmarks").
 *
 * Each is a gpu_host_fn: it allocates device memory, writes its inputs (generated from the run
 * seed with splitmix64), launches its kernels and checks the output on the host. It returns 0,
 * the code gh_launch() returned (a failed in-kernel check, a livelock, a model error) or the
 * code of gh_fail() (a failed output check). Sizes follow gh_size(): tiny (a few thousand warp
 * memory operations), small (tens of thousands to ~200 k), default (about 1-3 M).
 */
#ifndef COHSCOPE_WORKLOADS_MICRO_H
#define COHSCOPE_WORKLOADS_MICRO_H

struct gpu_host;

/* Pointer chase (load latency): one warp follows a random cycle of nodes, one per 128 B line.
 * chase runs the L1-resident footprint at tiny and all three footprints, one launch each, at
 * the other sizes; the _l1/_l2/_dram entries run one footprint. */
int micro_chase_main(struct gpu_host *h);
int micro_chase_l1_main(struct gpu_host *h);
int micro_chase_l2_main(struct gpu_host *h);
int micro_chase_dram_main(struct gpu_host *h);
/* Streaming (bandwidth): c[i] = a[i] + b[i], coalesced, every SM full. */
int micro_stream_main(struct gpu_host *h);
/* Write-only streaming (store bandwidth): c[i] = i ^ seed. */
int micro_streamw_main(struct gpu_host *h);
/* Producer/consumer pairs on different SMs through a flag; needs coherence. */
int micro_prodcons_main(struct gpu_host *h);
/* Spin lock (CAS acquire, exchange release) around plain loads and stores; needs coherence. */
int micro_lock_main(struct gpu_host *h);
/* Sense-reversing global barrier over every co-resident CTA; needs coherence. */
int micro_barrier_main(struct gpu_host *h);
/* Histogram with per-lane atomic adds at the L2 (skewed input). */
int micro_histo_main(struct gpu_host *h);

#endif
