/*
 * workloads/wl_util.h - helpers shared by the GPU workloads (microbenchmarks, the benchmark
 * suite in workloads/bench/, the random tester): deterministic values from the run seed, sizes,
 * per-lane address vectors, host-side copies and checks, and a grid-wide barrier.
 *
 * Values: splitmix64 run as a counter-based generator, so a host reference recomputes any input
 * without storing it, and a run is the same bit for bit for the same seed.
 */
#ifndef COHSCOPE_WORKLOADS_WL_UTIL_H
#define COHSCOPE_WORKLOADS_WL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "workloads/gpu_api.h"

#define WL_LINE_BYTES 128 /* one cache line of the modelled GPUs */

/* ---- deterministic values ------------------------------------------------------------------- */

uint64_t wl_mix64(uint64_t z);
/* Next value of a splitmix64 stream (state advanced). */
uint64_t wl_splitmix64(uint64_t *state);
/* Counter-based: the value of word `idx` of object `id` at generation `gen` under `seed`. */
uint32_t wl_value32(uint64_t seed, uint64_t id, uint64_t gen, uint64_t idx);
/* A hash of (seed, id, idx) as a uniform double in [0, 1). */
double wl_unit(uint64_t seed, uint64_t id, uint64_t idx);
/* Uniform integer in [0, n) from a splitmix64 stream (n > 0; bias below 2^-32 for n < 2^32). */
uint64_t wl_below(uint64_t *state, uint64_t n);

static inline uint32_t wl_f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float wl_u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* ---- sizes ---------------------------------------------------------------------------------- */

uint64_t wl_by_size(const struct gpu_host *h, uint64_t tiny, uint64_t small, uint64_t dflt);
const char *wl_size_name(const struct gpu_host *h);
/* The same for any size (a CPU host's ch_size). */
uint64_t wl_size_pick(enum gpu_size size, uint64_t tiny, uint64_t small, uint64_t dflt);
const char *wl_size_str(enum gpu_size size);

/* ---- sampled checks ------------------------------------------------------------------------- */

/* A seeded random sample of exactly min(n, gh_check_samples) of the indices 0..n-1, visited in
 * increasing order (selection sampling, Knuth's Algorithm S): ask wl_sample_take once per index,
 * in order, and compute the reference only where it says yes. The same seed and tag give the
 * same sample. */
struct wl_sample {
	uint64_t left, want, rng; /* indices not yet asked about; still to take; PRNG state */
};

void wl_sample_init(const struct gpu_host *h, struct wl_sample *s, uint64_t n, uint64_t tag);
/* The same from the sample count and seed (a CPU host's: ch_check_samples, ch_seed). */
void wl_sample_start(struct wl_sample *s, uint64_t n, uint64_t samples, uint64_t seed,
		     uint64_t tag);
bool wl_sample_take(struct wl_sample *s);

/* ---- warp side ------------------------------------------------------------------------------ */

/* Addresses of the WARP_LANES consecutive `bytes`-wide elements of the array at base from
 * element `first`; returns the mask of the lanes below element n. */
uint32_t wl_lane_addrs(uint64_t addr[WARP_LANES], uint64_t base, uint64_t first, uint64_t n,
		       unsigned bytes);
/* An atomic add of 0 performed at the L2 bank: a read that always sees the latest value. */
uint32_t wl_atomic_read32(struct gpu_warp *w, uint64_t addr);
uint64_t wl_grid_warps(const struct gpu_warp *w);

/*
 * A grid-wide barrier for kernels whose CTAs are all resident at once (wl_resident_ctas): every
 * warp calls wl_grid_sync with the same round number 0, 1, 2, ... The CTA's warps meet at a CTA
 * barrier; warp 0 arrives with an acq_rel atomic add on `count` at the L2; the last CTA to
 * arrive resets the count and publishes round + 1 in `gen` with a release exchange; the other
 * warps 0 spin on `gen` with plain loads (an L1 without coherence keeps its stale copy and the
 * spin guard reports a livelock); then a CTA barrier and an acquire fence. Returns 0, or -1
 * after gw_fail() (livelock; the kernel must return).
 */
struct wl_grid_barrier {
	uint64_t count;	 /* uint32 on its own line */
	uint64_t gen;	 /* uint32 on its own line */
	const char *who; /* workload name for the livelock report */
};

int wl_grid_barrier_init(struct gpu_host *h, struct wl_grid_barrier *b, const char *who);
int wl_grid_sync(struct gpu_warp *w, const struct wl_grid_barrier *b, unsigned round);

/* Spins with plain loads until the uint32 at addr equals want. Returns 0, or -1 after a
 * livelock report through gw_fail naming `who` and `what` (and the value the L2 holds, read
 * with an atomic, so the report tells a stale L1 copy from a value nobody wrote). */
int wl_spin_until_eq(struct gpu_warp *w, uint64_t addr, uint32_t want, const char *who,
		     const char *what);

/* ---- host side ------------------------------------------------------------------------------ */

/* CTAs of k that fit on the whole GPU at once (every SM full; 0 if none fits). */
unsigned wl_resident_ctas(struct gpu_host *h, const struct gpu_kernel *k);
/* gh_alloc + gh_write of a host array; returns the device address. */
uint64_t wl_upload(struct gpu_host *h, const void *buf, size_t bytes);
/* gh_alloc of device memory that reads as zero (the allocator never reuses addresses and the
 * sparse backing store reads zero where nothing was written). */
uint64_t wl_alloc_zero(struct gpu_host *h, size_t bytes);

typedef uint32_t (*wl_gen32_fn)(const void *ctx, uint64_t i);

/* Writes n generated uint32 at base. Returns 0 or -CS_ENOMEM. */
int wl_fill32(struct gpu_host *h, uint64_t base, uint64_t n, wl_gen32_fn gen, const void *ctx);

struct wl_mismatch {
	uint64_t count; /* words that differ */
	uint64_t first; /* index of the first one */
	uint32_t got, want;
};

/* Compares n uint32 at base with the generated values. Returns 0 or -CS_ENOMEM. */
int wl_check32(struct gpu_host *h, uint64_t base, uint64_t n, wl_gen32_fn gen, const void *ctx,
	       struct wl_mismatch *m);

/* Compares n floats at base with want[] within |got - want| <= abs_tol + rel_tol * |want|;
 * returns the number of mismatches, the first in *first (index) / *got. */
uint64_t wl_check_float(struct gpu_host *h, uint64_t base, const float *want, uint64_t n,
			double abs_tol, double rel_tol, uint64_t *first, float *got);

#endif
