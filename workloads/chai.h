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

/* TQ: CPU threads feed tasks into queues; GPU work-groups dequeue them with system-scope
 * atomics on the queues' counters and process them. */
int chai_tq_main(struct cpu_host *h);
/* HSTI: input partitioning; both devices add into one histogram with system-scope atomics. */
int chai_hsti_main(struct cpu_host *h);
/* HSTO: output partitioning; bins split between CPU threads and GPU work-groups, each reads
 * the whole input. */
int chai_hsto_main(struct cpu_host *h);
/* RSCD: RANSAC, iterations split between the devices, a shared candidate list. */
int chai_rscd_main(struct cpu_host *h);
/* RSCT: RANSAC, CPU threads make models and hand them to GPU work-groups through flags. */
int chai_rsct_main(struct cpu_host *h);

/* ---- shared by chai_hsti.c and chai_hsto.c (chai_hst.c) ------------------------------------- */

#define CHAI_HST_BINS 256 /* CHAI's default */

/* Pixel i of the seeded image: 12 bits (0..4095), bell-shaped like a natural image's. */
uint32_t chai_hst_pixel(uint64_t seed, uint64_t i);
/* The bin of a pixel: (pixel * bins) >> 12, as CHAI. */
static inline unsigned chai_hst_bin(uint32_t pixel)
{
	return (pixel * CHAI_HST_BINS) >> 12;
}
/* What both keep: the image (n pixels, 4 bytes each), the shared histogram, a private histogram
 * of CHAI_HST_BINS words per CPU thread (its stack lines) and the kernel. */
struct chai_hst {
	uint64_t image, histo, local, n;
	struct gpu_kernel kernel;
};

/* Writes the image and a zeroed histogram, makes s->kernel (ctas x warps of fn, the program's
 * arguments, which hold s), runs program p and checks every bin against the host's count; 0 or
 * the run's failure. */
int chai_hst_run(struct cpu_host *h, struct chai_hst *s, const struct cpu_program *p, unsigned ctas,
		 unsigned warps, void (*fn)(struct gpu_warp *w));

/* ---- shared by chai_rscd.c and chai_rsct.c (chai_rsc.c) ------------------------------------- */

/* A flow vector as CHAI stores it: a point and where it moved to (16 bytes). */
struct chai_flow {
	int32_t x, y, vx, vy;
};

#define CHAI_RSC_DEGENERATE   (-2011.0f) /* CHAI's mark in param[0] of a model with no fit */
#define CHAI_RSC_MODEL_CYCLES 80 /* a model's arithmetic: about 60 integer ops, 4 divisions */
#define CHAI_RSC_EVAL_CYCLES  12 /* one vector's test: 4 float ops, 4 conversions, compares */

struct chai_rsc {
	uint64_t flows;	 /* n struct chai_flow */
	uint64_t rnd;	 /* 2 * iters uint32: the two vectors of each iteration */
	uint64_t params; /* 4 * iters floats: each iteration's model (xc, yc, D, R) */
	uint64_t cand_model, cand_outliers; /* iters uint32 each: the candidate list */
	uint64_t out_id;		    /* uint32: candidates so far (its own line) */
	unsigned n, iters;
	uint64_t seed;
	/* host copies of the inputs and the reference: outliers[i] per iteration, or -1 for a
	 * degenerate model */
	struct chai_flow *h_flows;
	uint32_t *h_rnd;
	int32_t *h_outliers;
	struct gpu_kernel kernel;
};

/* A vector from its two 8-byte halves as loaded (x | y << 32, vx | vy << 32). */
static inline struct chai_flow chai_rsc_flow(uint64_t lo, uint64_t hi)
{
	return (struct chai_flow){.x = (int32_t)(uint32_t)lo,
				  .y = (int32_t)(uint32_t)(lo >> 32),
				  .vx = (int32_t)(uint32_t)hi,
				  .vy = (int32_t)(uint32_t)(hi >> 32)};
}

/* Allocates and writes the inputs (n seeded vectors of a known first-order-flow model plus
 * seeded outliers, 2 * iters seeded indices) and computes the reference. 0 or -CS_ENOMEM. */
int chai_rsc_setup(struct cpu_host *h, struct chai_rsc *r, unsigned n, unsigned iters);
void chai_rsc_free(struct chai_rsc *r);
/* CHAI's first-order-flow model of two vectors: 0 when degenerate. */
int chai_rsc_model(const struct chai_flow *a, const struct chai_flow *b, float p[4]);
/* Whether vector f is an outlier of model p (error of 3 or more in x or y). */
bool chai_rsc_outlier(const struct chai_flow *f, const float p[4]);
/* Whether a model with `outliers` is a candidate (fewer than 0.75 n). */
bool chai_rsc_candidate(unsigned outliers, unsigned n);

/* A CPU thread makes iteration it's model (loads its two indices and vectors, stores the four
 * parameters, or the degenerate mark); false when degenerate. */
bool chai_rsc_cpu_model(struct cpu_thread *t, const struct chai_rsc *r, unsigned it, float p[4]);
/* A CTA evaluates iteration it's model (every warp reads the parameters the CTA's warp 0 or a
 * CPU thread wrote, counts the outliers of its share of the vectors into the CTA's scratchpad
 * word 0, which warp 0 zeroed before the barrier that comes before this call); warp 0 then
 * appends a candidate with an atomic add at `scope` on out_id. */
void chai_rsc_gpu_evaluate(struct gpu_warp *w, const struct chai_rsc *r, unsigned it,
			   enum mem_scope scope);
/* Makes r->kernel (ctas work-groups of 8 warps running fn, the program's arguments, which hold
 * r), runs program p, checks the candidate list and every model's parameters against the
 * reference (ch_fail naming the first difference) and frees the host copies. *count: the
 * candidates; *best: the fewest outliers of one (n if none). 0 or the run's failure. */
int chai_rsc_run(struct cpu_host *h, struct chai_rsc *r, const struct cpu_program *p, unsigned ctas,
		 void (*fn)(struct gpu_warp *w), unsigned *count, unsigned *best);

#endif
