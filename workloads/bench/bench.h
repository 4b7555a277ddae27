/*
 * workloads/bench/bench.h - the benchmark suite of the G-TSC evaluation (thesis Table 3.4), as
 * self-verifying workloads written against workloads/gpu_api.h.
 *
 * Set 1 needs coherence (CTAs communicate through global memory within a kernel): bh, cc, dlb,
 * vpr, stn, bfs. Set 2 does not (CTAs share data only across kernel launches): ge, hs, km, bp,
 * sgm, ccp. Each host program generates its input from the run seed, launches the kernels,
 * and checks the output against a reference computed on the host; sizes follow gh_size()
 * (tiny for unit tests, small for CI, default sized like the papers' runs). docs/workloads.md
 * gives each one's algorithm, sharing, synchronisation, sizes and the reference it follows.
 *
 * Return: 0, the code gh_launch() returned (a failed in-kernel check, a livelock, a model
 * error) or the code of gh_fail() (a failed output check).
 */
#ifndef COHSCOPE_WORKLOADS_BENCH_BENCH_H
#define COHSCOPE_WORKLOADS_BENCH_BENCH_H

struct gpu_host;

/* Set 1: needs coherence. */
int bench_bh_main(struct gpu_host *h);	/* Barnes-Hut n-body */
int bench_cc_main(struct gpu_host *h);	/* CUDA Cuts: push-relabel graph cut */
int bench_dlb_main(struct gpu_host *h); /* dynamic load balancing, octree partitioning */
int bench_vpr_main(struct gpu_host *h); /* simulated-annealing placement */
int bench_stn_main(struct gpu_host *h); /* stencil wave propagation, global barriers */
int bench_bfs_main(struct gpu_host *h); /* breadth-first search, frontier flags */

/* Set 2: no coherence needed. */
int bench_ge_main(struct gpu_host *h);	/* Gaussian elimination (Rodinia) */
int bench_hs_main(struct gpu_host *h);	/* HotSpot (Rodinia) */
int bench_km_main(struct gpu_host *h);	/* k-means (Rodinia) */
int bench_bp_main(struct gpu_host *h);	/* back-propagation (Rodinia) */
int bench_sgm_main(struct gpu_host *h); /* SGEMM, tiled in shared memory (Parboil) */
int bench_ccp_main(struct gpu_host *h); /* cutoff Coulombic potential (Parboil) */

#endif
