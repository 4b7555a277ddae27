/*
 * workloads/hetero.h - workloads that use the CPU and the GPU of an APU together (system apu):
 * a host program whose CPU threads run on the simulated CPU cores, launch GPU kernels and share
 * memory with their warps while both run. Seeded, self-verifying, sizes tiny, small, default.
 * docs/workloads.md describes each.
 */
#ifndef COHSCOPE_WORKLOADS_HETERO_H
#define COHSCOPE_WORKLOADS_HETERO_H

#include "workloads/cpu_api.h"

/* CPU threads produce blocks, GPU warps consume them through flags in shared memory, and
 * answer back through flags the CPU threads wait on. */
int hetero_prodcons_main(struct cpu_host *h);
/* CPU threads and GPU warps add into the same bins with system-scope (SLC) atomics. */
int hetero_histo_main(struct cpu_host *h);
/* DMA copies between CPU-written and GPU-read buffers, and back (DMARd, DMAWr and their
 * probes). */
int hetero_dma_main(struct cpu_host *h);
/* The random tester of the APU (hetero_rtest.c): CPU threads and GPU warps make seeded random
 * loads, stores, atomics and fences on a few hot and conflicting lines; every value checked. */
int hetero_rtest_main(struct cpu_host *h);

#endif
