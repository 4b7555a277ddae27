/*
 * workloads/gpu_api.h - the op API GPU workloads are written against (DESIGN.md §7).
 *
 * A GPU workload is a host program plus kernels. The host program (struct gpu_host) allocates
 * device memory, writes inputs, launches kernels one after another and checks the output
 * against a reference it computes itself. A kernel is a grid of CTAs of warps; each warp runs
 * the kernel function as a coroutine (struct gpu_warp) and every memory operation it calls
 * really travels through the modelled L1, NoC, L2 and DRAM: values come back from the caches,
 * so a spin on a flag or a stale copy behaves as it would on the hardware.
 *
 * Forms: "uniform" ops act for the whole warp at one address (one request, value broadcast:
 * what a warp does when lane 0 does the work or every lane reads the same word); "v" ops take
 * one address per lane (gw_lanes() of them: the kernel's wavefront width, 32 or 64; active lanes
 * given by a mask, bit i = lane i) and are coalesced.
 * Loads and atomics return their values, so the warp waits for them; stores return at once
 * under RC and when performed under SC. Fences order a warp's earlier accesses before its later
 * ones at the given scope (RC: wait until every earlier access is performed).
 */
#ifndef COHSCOPE_WORKLOADS_GPU_API_H
#define COHSCOPE_WORKLOADS_GPU_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlm/mem/msg.h" /* enum mem_atomic_op, mem_scope, mem_order */

/* Lanes of a kernel that does not set gpu_kernel.lanes (an NVIDIA warp); the widest wavefront
 * (an AMD GCN wavefront). */
#define WARP_LANES     32
#define WARP_LANES_MAX MEM_LANES_MAX
#define LANES_ALL      0xffffffffu /* every lane of a 32-lane warp */

struct gpu_warp;
struct gpu_host;

/* ---- identity ------------------------------------------------------------------------------- */

unsigned gw_cta(const struct gpu_warp *w);  /* linear CTA id in the grid: x + y * grid_x */
unsigned gw_ctas(const struct gpu_warp *w); /* CTAs in the grid */
/* CUDA's blockIdx and gridDim: a 1-D grid has y = 0 and grid_y = 1. */
unsigned gw_cta_x(const struct gpu_warp *w);
unsigned gw_cta_y(const struct gpu_warp *w);
unsigned gw_grid_x(const struct gpu_warp *w);
unsigned gw_grid_y(const struct gpu_warp *w);
/* CUDA's threadIdx of a lane (blockDim.x = gpu_kernel.block_x; t = warp * lanes + lane is the
 * thread's index in its CTA, x = t % block_x, y = t / block_x) and blockDim.x. */
unsigned gw_thread_x(const struct gpu_warp *w, unsigned lane);
unsigned gw_thread_y(const struct gpu_warp *w, unsigned lane);
unsigned gw_block_x(const struct gpu_warp *w);
unsigned gw_warp(const struct gpu_warp *w); /* warp index within its CTA */
unsigned gw_warps_per_cta(const struct gpu_warp *w);
unsigned gw_sm(const struct gpu_warp *w); /* the SM it runs on */
/* Global thread id of a lane: (cta * warps_per_cta + warp) * gw_lanes(w) + lane. */
uint64_t gw_tid(const struct gpu_warp *w, unsigned lane);
/* The kernel's wavefront width: 32 or 64 lanes (gpu_kernel.lanes). */
unsigned gw_lanes(const struct gpu_warp *w);
/* Global warp id: cta * warps_per_cta + warp. */
uint64_t gw_gwid(const struct gpu_warp *w);
const void *gw_args(const struct gpu_warp *w); /* the kernel's argument block */
/* The SM's cycle counter (clock64()): core cycles since the start of the run. */
uint64_t gw_cycle(const struct gpu_warp *w);
/* A per-warp random stream (a hash of the run seed, the warp id and the launch: independent
 * streams for every warp of every launch): same run, same values. */
uint64_t gw_rand(struct gpu_warp *w);

/* ---- uniform ops ---------------------------------------------------------------------------- */

uint32_t gw_ld32(struct gpu_warp *w, uint64_t addr);
uint64_t gw_ld64(struct gpu_warp *w, uint64_t addr);
void gw_st32(struct gpu_warp *w, uint64_t addr, uint32_t v);
void gw_st64(struct gpu_warp *w, uint64_t addr, uint64_t v);
/* Returns the old value. op: MEM_ATOM_ADD/EXCH/CAS/MIN/MAX/LOAD/STORE; CAS compares with a,
 * stores b; STORE stores a. bytes 4 or 8. Where it is performed is the protocol's: the L2 bank
 * for the NVIDIA-style protocols; the L1 for work-group scope, or wherever the word is
 * registered, for the scoped family. A seq_cst atomic acquires and releases, and the warp waits
 * until it is performed. */
uint64_t gw_atom(struct gpu_warp *w, enum mem_atomic_op op, uint64_t addr, unsigned bytes,
		 uint64_t a, uint64_t b, enum mem_scope scope, enum mem_order order);
/* Atomic load and store (C11 atomic_load_explicit / atomic_store_explicit with a scope). */
uint64_t gw_atom_load(struct gpu_warp *w, uint64_t addr, unsigned bytes, enum mem_scope scope,
		      enum mem_order order);
void gw_atom_store(struct gpu_warp *w, uint64_t addr, unsigned bytes, uint64_t v,
		   enum mem_scope scope, enum mem_order order);
/* A plain load or store of bytes (1, 2, 4, 8) with a PTX cache operator: MEM_CO_CG and
 * MEM_CO_CV loads are not served by the L1 (PTX ld.cg, ld.cv; what litmus tests of the
 * hardware use), MEM_CO_CA is gw_ld32/gw_st32's default. The load returns the low bytes. */
uint64_t gw_ld_co(struct gpu_warp *w, uint64_t addr, unsigned bytes, enum mem_cache_op cop);
void gw_st_co(struct gpu_warp *w, uint64_t addr, unsigned bytes, uint64_t v, enum mem_cache_op cop);

/* ---- per-lane ops --------------------------------------------------------------------------- */

/* addr, out and v hold gw_lanes(w) entries (only the masked lanes are read or written). */
void gw_ld32v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, uint32_t *out);
void gw_ld64v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, uint64_t *out);
void gw_st32v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, const uint32_t *v);
void gw_st64v(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, const uint64_t *v);
/* Any width the coalescer takes (1, 2, 4, 8 or 16 bytes per lane; trace replay uses them):
 * values travel in a uint64_t per lane, the low `bytes` bytes; a 16-byte lane carries its low
 * 8 bytes (a store writes zeros above them, a load returns them). */
void gw_ldv(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes, uint64_t *out);
void gw_stv(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
	    const uint64_t *v);
/* The same with a PTX cache operator (gw_ld_co). */
void gw_ldv_co(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
	       uint64_t *out, enum mem_cache_op cop);
void gw_stv_co(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
	       const uint64_t *v, enum mem_cache_op cop);
/* Per-lane atomics; old[] may be NULL (a reduction: the warp need not wait under RC). Lanes
 * that hit the same word are applied one after another in lane order. */
void gw_atomv(struct gpu_warp *w, enum mem_atomic_op op, const uint64_t *addr, uint64_t mask,
	      unsigned bytes, const uint64_t *a, const uint64_t *b, uint64_t *old,
	      enum mem_scope scope, enum mem_order order);

/* ---- other memory spaces -------------------------------------------------------------------- */

/* Local memory (PTX ld.local / st.local): each thread's private array of gpu_kernel.local_bytes,
 * word[l] being the index of the 32-bit word lane l's thread reads or writes. Laid out
 * interleaved as CUDA's is: word i of the launch's thread t (gw_tid) lives at (i * T + t) * 4 in
 * the launch's local window (T: the launch's threads), so a warp's lanes reading the same index
 * touch consecutive words. The window is fresh device memory for every launch (local values
 * never outlive a launch); the accesses go through the L1 and L2 like global ones, tagged
 * MEM_SPACE_LOCAL. */
void gw_ld_localv(struct gpu_warp *w, const uint32_t *word, uint64_t mask, uint32_t *out);
void gw_st_localv(struct gpu_warp *w, const uint32_t *word, uint64_t mask, const uint32_t *v);
/* Read-only spaces: __constant__ memory (ld.const) and texture fetches (tex / ld.global.nc),
 * at device addresses the host wrote before the launch (a kernel never writes them). Per-lane
 * and uniform forms as gw_ldv / gw_ld32; tagged MEM_SPACE_CONST / MEM_SPACE_TEX, served by the
 * L1 and L2 (the SM has no separate constant or texture cache: see docs/workloads.md). */
void gw_ld_constv(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
		  uint64_t *out);
uint32_t gw_ld_const32(struct gpu_warp *w, uint64_t addr);
void gw_ld_texv(struct gpu_warp *w, const uint64_t *addr, uint64_t mask, unsigned bytes,
		uint64_t *out);

/* ---- ordering, synchronisation, time -------------------------------------------------------- */

/* order: MEM_ORDER_ACQUIRE, _RELEASE, _ACQ_REL or _SEQ_CST (an acq_rel fence: every earlier
 * access of the warp is performed first); scope: MEM_SCOPE_WG, _DEVICE, _SYSTEM or
 * _DEVICE_REMOTE. */
void gw_fence(struct gpu_warp *w, enum mem_order order, enum mem_scope scope);
/* CTA barrier (__syncthreads): also a work-group-scope acq_rel fence. */
void gw_barrier(struct gpu_warp *w);
/* `cycles` issue slots of arithmetic (the warp's scheduler is busy for them). */
void gw_compute(struct gpu_warp *w, uint64_t cycles);
/* Scratchpad (shared memory) of the CTA: the host pointer to its bytes, and the cost of one
 * warp-wide access (scratchpad latency; never enters the cache hierarchy). */
void *gw_smem(struct gpu_warp *w);
void gw_smem_access(struct gpu_warp *w);

/* Spin guard for flag waits: call once per iteration of a spin loop with a counter starting
 * at 0. Returns true when the run's spin limit (core.spin_limit) is exceeded; the workload
 * then reports a livelock with gw_fail() and returns. */
bool gw_spin_guard(struct gpu_warp *w, uint64_t *count);
/* Records a failed check (first one wins; the run ends with exit status 1 and this message)
 * and stops the simulation. */
void gw_fail(struct gpu_warp *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- host side ------------------------------------------------------------------------------ */

struct gpu_kernel {
	const char *name;
	unsigned ctas;		  /* grid size (linear; 0 with a 2-D grid_x, grid_y) */
	unsigned warps_per_cta;	  /* CTA size in warps */
	unsigned regs_per_thread; /* occupancy: registers (0 = 16) */
	unsigned smem_bytes;	  /* occupancy: scratchpad per CTA */
	void (*fn)(struct gpu_warp *w);
	const void *args; /* passed to every warp (gw_args) */
	/* Placement: CTA i runs on SM cta_sm[i] (litmus tests pin threads); NULL: round robin. */
	const uint16_t *cta_sm;
	/* Wavefront width: 32 or 64 lanes (0: WARP_LANES); at most the machine's (gh_lanes). */
	unsigned lanes;
	/* A 2-D grid (CUDA's gridDim.x, .y): grid_x * grid_y CTAs, CTA (x, y) having linear id
	 * x + y * grid_x, placed in that order; ctas is then 0 or that product. 0: 1-D. */
	unsigned grid_x, grid_y;
	/* A 2-D CTA (blockDim.x; blockDim.y is the CTA's threads / block_x): a divisor of the CTA's
	 * threads. 0: 1-D, blockDim.x = the CTA's threads. */
	unsigned block_x;
	/* Local memory per thread in bytes, a multiple of 4 (gw_ld_localv); 0: none. */
	unsigned local_bytes;
	/* Set by the launch in its own copy of the kernel (a workload leaves it 0): where the
	 * launch's local-memory window starts. */
	uint64_t local_base;
};

static inline unsigned gpu_kernel_lanes(const struct gpu_kernel *k)
{
	return k->lanes ? k->lanes : WARP_LANES;
}

/* full: the original inputs' sizes where a workload has them (the graph workloads' real node
 * counts); a workload without one runs its default size. */
enum gpu_size { GPU_SIZE_TINY = 0, GPU_SIZE_SMALL, GPU_SIZE_DEFAULT, GPU_SIZE_FULL };

/* Device memory: a bump allocator; align is a power of two >= 128 (0 = 256). */
uint64_t gh_alloc(struct gpu_host *h, uint64_t bytes, uint64_t align);
/* Functional copies between host and device (what cudaMemcpy does): no timing; they see and
 * update the values held in the L2. Not allowed while a kernel runs. */
void gh_write(struct gpu_host *h, uint64_t addr, const void *buf, size_t len);
void gh_read(struct gpu_host *h, uint64_t addr, void *buf, size_t len);
uint32_t gh_read32(struct gpu_host *h, uint64_t addr);
void gh_write32(struct gpu_host *h, uint64_t addr, uint32_t v);
/* Runs the kernel to completion; returns 0, or a negative code when the run failed (a check,
 * a livelock, a model error: the host program should return it). */
int gh_launch(struct gpu_host *h, const struct gpu_kernel *k);
enum gpu_size gh_size(const struct gpu_host *h); /* workload.size */
uint64_t gh_seed(const struct gpu_host *h);	 /* sim.seed */
/* Outputs a costly check compares: workload.samples, or UINT64_MAX under workload.check=full. */
uint64_t gh_check_samples(const struct gpu_host *h);
void *gh_arg(const struct gpu_host *h); /* cs_run_opts.arg of a custom workload */
/* Tests and debugging: the coherence protocol's state of addr's line in SM sm's L1 (with that
 * of the warp in slot `slot`: G-TSC wts, rts, warp_ts; TC lease end, GWCT of the line, GWCT of
 * the warp) and in its L2 bank (G-TSC wts, rts, mem_ts; TC lease end, GWCT). false when the
 * line is not present or the protocol keeps no such state. */
bool gh_probe_l1(struct gpu_host *h, unsigned sm, unsigned slot, uint64_t addr, uint64_t out[3]);
bool gh_probe_l2(struct gpu_host *h, uint64_t addr, uint64_t out[3]);
unsigned gh_sms(const struct gpu_host *h); /* SMs in the system */
/* The machine's wavefront width (core.lanes: 32, or 64 on an AMD-style GPU): what a workload
 * written for either width sets as gpu_kernel.lanes. */
unsigned gh_lanes(const struct gpu_host *h);
unsigned gh_max_ctas_per_sm(const struct gpu_host *h, const struct gpu_kernel *k);
/* A failed output check: recorded like gw_fail; returns -CS_ECHECK for the host to return. */
int gh_fail(struct gpu_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failure that is not a failed check, e.g. a bad input file (code -CS_EINVAL: exit status 3):
 * recorded like gh_fail with that code, which it returns for the host to return. */
int gh_error(struct gpu_host *h, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A kernel that fits on no SM (gh_max_ctas_per_sm 0): fails the run as the configuration error
 * it is, naming the SM's limits (core.warps, core.regs, core.smem_kib: exit status 3, at the
 * key's origin); returns the code for the host to return. */
int gh_no_fit(struct gpu_host *h, const struct gpu_kernel *k);
/* Tests of the checks (workload.corrupt = true): flips one high bit (bit 30 of a 4-byte word,
 * bit 62 of an 8-byte one) of the output word at addr in device memory, once per run, and says
 * so in a note; otherwise does nothing. A workload calls it on one output word after its last
 * launch and before reading its outputs back, so a run with workload.corrupt = true and
 * workload.check = full must fail its check. */
void gh_corrupt(struct gpu_host *h, uint64_t addr, unsigned bytes);
/* Free-form result lines for the report ("histogram: 256 bins verified"). */
void gh_note(struct gpu_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A GPU workload: its host program. Registered in workloads/registry.c. */
typedef int (*gpu_host_fn)(struct gpu_host *h);

#endif
