/*
 * workloads/chai.h - ports of the CHAI benchmarks (Gomez-Luna et al., ISPASS 2017; the CUDA-U
 * collaborative versions with system-wide atomics) to system apu: CPU threads on the simulated
 * cores and a GPU kernel on the CUs work on the same memory at the same time, and synchronise
 * the way CHAI does (a shared work counter, per-item flags, frames taken by two proxies).
 * Seeded, self-verifying, sizes tiny, small, default. docs/workloads.md, "CHAI workloads".
 */
#ifndef COHSCOPE_WORKLOADS_CHAI_H
#define COHSCOPE_WORKLOADS_CHAI_H

#include <stdbool.h>
#include <stdint.h>

#include "workloads/cpu_api.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

/* BS: Bezier surface; output tiles taken by CPU threads and GPU work-groups through one
 * system-scope tile counter (CHAI's dynamic partitioning). */
int chai_bs_main(struct cpu_host *h);
/* CEDD: Canny edge detection on a stream of frames; a CPU proxy (its worker threads run the
 * four stages) and a GPU proxy (four kernels per frame) take whole frames from one counter. */
int chai_cedd_main(struct cpu_host *h);
/* PAD: in-place padding of a matrix; tasks from one system-scope counter, each task writes only
 * after its predecessor has set its flag (a chain of system-scope flags). */
int chai_pad_main(struct cpu_host *h);
/* SC: in-place stream compaction; tasks from one counter, the flag chain carries the running
 * count of kept elements. */
int chai_sc_main(struct cpu_host *h);
/* TRNS: in-place transposition by cycle following (PTTWAC); start points from one counter,
 * each element's move claimed with a system-scope exchange on its flag. */
int chai_trns_main(struct cpu_host *h);

/* ---- shared by chai_*.c (chai_partition.c): CHAI's support/partitioner.h and the waits ---- */

/* ch_run(h, p), then the work counts the workers left at `taken` (a uint32 per CPU thread of p,
 * then one per CTA of the kernel, ctas of them) added up per device. Returns ch_run's code. */
int chai_run(struct cpu_host *h, const struct cpu_program *p, uint64_t taken, unsigned ctas,
	     uint64_t *cpu, uint64_t *gpu);
/* The run's second note: "NAME (SIZE): work split: CPU n UNITS, GPU m UNITS" (the first one
 * says what was verified). */
void chai_note_split(struct cpu_host *h, const char *name, const char *units, uint64_t cpu,
		     uint64_t gpu);
/* The CPU host's twin of wl_sample_init (ch_check_samples outputs of n, seeded by tag). */
void chai_sample_init(const struct cpu_host *h, struct wl_sample *s, uint64_t n, uint64_t tag);

/* CHAI's gpu_first/gpu_next under dynamic partitioning: the CTA's warp 0 takes the next item
 * with a system-scope atomic add on the counter at `worklist` and leaves it in the CTA's
 * scratchpad at byte `slot`; every warp of the CTA gets it (CTA barriers around). */
uint32_t chai_gpu_take(struct gpu_warp *w, uint64_t worklist, unsigned slot);
/* CHAI's cpu_first/cpu_next: a locked add on the counter. */
uint32_t chai_cpu_take(struct cpu_thread *t, uint64_t worklist);

/* A CPU thread spins with plain loads (CHAI's atomic load) until the uint32 at addr is not 0,
 * pausing 16, 32, ... up to 512 cycles between looks; returns the value, or 0 after a livelock
 * report naming `who` and `what`. */
uint32_t chai_cpu_wait_nonzero(struct cpu_thread *t, uint64_t addr, const char *who,
			       const char *what);
/* A GPU warp spins with system-scope atomic reads (CHAI's atomicAdd_system(flag, 0)) until the
 * uint32 at addr is not 0; returns the value, or 0 after gw_fail. */
uint32_t chai_gpu_wait_nonzero(struct gpu_warp *w, uint64_t addr, const char *who,
			       const char *what);

/* The CTA's warp 0 puts v at byte `slot` of the scratchpad; after a CTA barrier every warp
 * returns it (a __shared__ broadcast). */
uint32_t chai_cta_bcast(struct gpu_warp *w, unsigned slot, uint32_t v);

/* The CPU threads of a program [first, first + n) meet: round r (1, 2, ...) waits until each
 * of them has added its 1 to `count` r times. */
bool chai_cpu_group_barrier(struct cpu_thread *t, uint64_t count, unsigned n, uint32_t round,
			    const char *who);

#endif
