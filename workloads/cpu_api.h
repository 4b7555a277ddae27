/*
 * workloads/cpu_api.h - the op API CPU workloads are written against (DESIGN.md §7), as GPU
 * warps are written against gpu_api.h.
 *
 * A CPU workload is a host program plus thread programs. The host program (struct cpu_host)
 * allocates memory, writes inputs, runs a program (one thread per core, each a coroutine
 * running the program's function: struct cpu_thread) and checks the output. Every memory op a
 * thread calls travels through the core model (tlm/core/cpu.h: in-order issue, a store buffer
 * with store-to-load forwarding, a window of outstanding loads) and the memory side behind it,
 * so values really flow: a spin on a flag behaves as it would on the hardware.
 *
 * Memory model: x86-TSO. A store goes into the core's FIFO store buffer and the thread goes on;
 * stores leave the buffer in program order, each performed before the next goes. A load reads
 * its own thread's youngest buffered store to the same bytes (store-to-load forwarding), else
 * memory. ct_mfence and the locked atomics (ct_atomic: x86 LOCK ADD/XADD, XCHG, LOCK CMPXCHG)
 * wait until the store buffer is empty; an atomic then reads, modifies and writes its word at
 * memory in one indivisible step and returns the old value.
 *
 * Accesses are 1, 2, 4 or 8 bytes, naturally aligned (so never across a line); values travel
 * in the low bytes of a uint64_t, little-endian. A misaligned or bad-width access fails the run.
 */
#ifndef COHSCOPE_WORKLOADS_CPU_API_H
#define COHSCOPE_WORKLOADS_CPU_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlm/mem/msg.h"       /* enum mem_atomic_op */
#include "workloads/gpu_api.h" /* struct gpu_kernel, enum gpu_size */

#define CPU_LDV_MAX 64 /* loads one ct_ldv call takes */

struct cpu_thread;
struct cpu_host;

/* ---- identity ------------------------------------------------------------------------------- */

unsigned ct_id(const struct cpu_thread *t);	 /* thread index in the program: 0 .. threads-1 */
unsigned ct_threads(const struct cpu_thread *t); /* threads in the program */
unsigned ct_core(const struct cpu_thread *t);	 /* the core it runs on */
const void *ct_args(const struct cpu_thread *t); /* the program's argument block */
/* The core's cycle counter (rdtsc): core cycles since the start of the run. */
uint64_t ct_cycle(const struct cpu_thread *t);
/* A per-thread random stream (a hash of the run seed, the thread and the program run): same
 * run, same values. */
uint64_t ct_rand(struct cpu_thread *t);

/* ---- memory --------------------------------------------------------------------------------- */

/* A load of `bytes` at addr: waits for the value (forwarded from the store buffer or read at
 * memory) and returns it zero-extended. */
uint64_t ct_ld(struct cpu_thread *t, uint64_t addr, unsigned bytes);
/* A store: into the store buffer (waits only while the buffer is full). */
void ct_st(struct cpu_thread *t, uint64_t addr, unsigned bytes, uint64_t v);
static inline uint32_t ct_ld32(struct cpu_thread *t, uint64_t addr)
{
	return (uint32_t)ct_ld(t, addr, 4);
}
static inline uint64_t ct_ld64(struct cpu_thread *t, uint64_t addr)
{
	return ct_ld(t, addr, 8);
}
static inline void ct_st32(struct cpu_thread *t, uint64_t addr, uint32_t v)
{
	ct_st(t, addr, 4, v);
}
static inline void ct_st64(struct cpu_thread *t, uint64_t addr, uint64_t v)
{
	ct_st(t, addr, 8, v);
}
/* n independent loads (n <= CPU_LDV_MAX), issued in order one per cycle without waiting for
 * each other's values, at most cpu.mlp of them outstanding at once (memory-level
 * parallelism: what an out-of-order core's load queue overlaps); returns when every value is
 * in out[]. Each load forwards from the store buffer as ct_ld does. */
void ct_ldv(struct cpu_thread *t, const uint64_t *addr, unsigned n, unsigned bytes, uint64_t *out);
/* An instruction fetch of `bytes` at addr (the thread has no instruction stream of its own:
 * this models one fetch of code at addr): read through the instruction side of the memory
 * hierarchy (on the APU the CorePair's shared L1I; an L2 miss sends RdBlkS, docs/apu.md §3.1),
 * waits for the bytes and returns them zero-extended. It bypasses the store buffer: it does not
 * see the thread's own buffered stores and does not wait for them (x86 orders code writes with
 * fetches only through serializing instructions, not the store buffer). */
uint64_t ct_ifetch(struct cpu_thread *t, uint64_t addr, unsigned bytes);
/* A locked read-modify-write (x86 LOCK prefix; XCHG is always locked): drains the store buffer,
 * then performs at memory atomically; returns the old value. op: MEM_ATOM_ADD (XADD), _EXCH
 * (XCHG), _CAS (CMPXCHG: compares with a, stores b), _MIN, _MAX (unsigned; x86 has no such
 * instruction: a CAS loop's effect in one step). */
uint64_t ct_atomic(struct cpu_thread *t, enum mem_atomic_op op, uint64_t addr, unsigned bytes,
		   uint64_t a, uint64_t b);
/* MFENCE: waits until every earlier load is performed and the store buffer is empty. */
void ct_mfence(struct cpu_thread *t);
/* `cycles` core cycles of non-memory work. */
void ct_compute(struct cpu_thread *t, uint64_t cycles);

/* ---- the GPU and the DMA engine beside the CPU (system apu) ---------------------------------- */

/* Each of these first drains the store buffer (as MFENCE: what the thread stored before is
 * visible to the device; a doorbell write is a release), then makes its request. On a system
 * without a GPU they fail the run.
 *
 * ct_launch: GPU kernel k (workloads/gpu_api.h: its warps run on the APU's CUs, sharing memory
 * with the CPU threads) is queued and the thread goes on at once, as hipLaunchKernel returns
 * before the kernel runs; the kernel starts apu.launch_cycles GPU cycles later, or when the
 * kernel before it ends (one kernel runs at a time, in launch order). The launch is a
 * system-scope acquire for the GPU (the TCPs and the TCC drop their clean lines); the kernel's
 * end is a system-scope release (WB_L1, WB_L2 flush). k and its arguments must live until it
 * ends. ct_gpu_wait: waits until every kernel launched so far has ended (hipDeviceSynchronize).
 * ct_dma_copy: copies len bytes from src to dst through the DMA engine (DMARd then DMAWr per
 * line, with their probes: the copy sees and invalidates cached copies) and waits for it. */
void ct_launch(struct cpu_thread *t, const struct gpu_kernel *k);
void ct_gpu_wait(struct cpu_thread *t);
void ct_dma_copy(struct cpu_thread *t, uint64_t dst, uint64_t src, uint64_t len);

/* Spin guard for flag waits: call once per iteration with a counter starting at 0; true when
 * the run's spin limit (cpu.spin_limit) is exceeded: report a livelock with ct_fail. */
bool ct_spin_guard(struct cpu_thread *t, uint64_t *count);
/* Records a failed check (first one wins; the run ends with exit status 1) and stops. */
void ct_fail(struct cpu_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- host side ------------------------------------------------------------------------------ */

struct cpu_program {
	const char *name;
	unsigned threads; /* 1 .. cores: one thread per core */
	void (*fn)(struct cpu_thread *t);
	const void *args; /* ct_args */
	/* Placement: thread i runs on core thread_core[i] (distinct); NULL: thread i on core i. */
	const uint16_t *thread_core;
};

/* Memory: a bump allocator; align a power of two (0 = 64). */
uint64_t ch_alloc(struct cpu_host *h, uint64_t bytes, uint64_t align);
/* Functional copies (no timing) while no program runs: what the loader and the checker see. */
void ch_write(struct cpu_host *h, uint64_t addr, const void *buf, size_t len);
void ch_read(struct cpu_host *h, uint64_t addr, void *buf, size_t len);
uint32_t ch_read32(struct cpu_host *h, uint64_t addr);
void ch_write32(struct cpu_host *h, uint64_t addr, uint32_t v);
/* Runs the program to completion: every thread has returned and every store buffer is drained.
 * Returns 0, or a negative code when the run failed (return it from the host program). */
int ch_run(struct cpu_host *h, const struct cpu_program *p);
unsigned ch_cores(const struct cpu_host *h);
uint64_t ch_seed(const struct cpu_host *h);	 /* sim.seed */
enum gpu_size ch_size(const struct cpu_host *h); /* workload.size */
/* Outputs a sampled check compares (workload.check, workload.samples; UINT64_MAX: all). */
uint64_t ch_check_samples(const struct cpu_host *h);
void *ch_arg(const struct cpu_host *h); /* cs_run_opts.arg of a custom workload */
/* A failed output check: recorded like ct_fail; returns -CS_ECHECK for the host to return. */
int ch_fail(struct cpu_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free-form result lines for the report. */
void ch_note(struct cpu_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A CPU workload: its host program. Registered in workloads/registry.c. */
typedef int (*cpu_host_fn)(struct cpu_host *h);

#endif
