/*
 * workloads/rtest.h - the random coherence tester (docs/workloads.md, "rtest").
 *
 * Warps on every SM run seeded random mixes of loads, stores, atomics, fences and per-lane
 * accesses on a few hot lines and on lines chosen to conflict in one L1 set and in one L2 set,
 * so that leases expire, lines are renewed and evicted at both levels while other SMs write
 * them. Every value written is unique and names its writer, so every value read is checked as
 * it is read (a value written to that very word, by an op that was issued, not older than the
 * reader's own last write) and on the host after the kernel (atomic counters exact, every
 * word's final value the last write of its writer). Meant to run with gpu.check=true, under any
 * protocol and consistency model.
 */
#ifndef COHSCOPE_WORKLOADS_RTEST_H
#define COHSCOPE_WORKLOADS_RTEST_H

struct gpu_host;

/* The host program: 0, the code gh_launch() returned (a failed in-kernel check, a model
 * error) or the code of gh_fail() (a failed host check). */
int rtest_main(struct gpu_host *h);

#endif
