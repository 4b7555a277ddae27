/*
 * tlm/core/cpu.h - a CPU core: one thread (a coroutine running workload code written against
 * workloads/cpu_api.h), in-order issue on the core's own clock, a FIFO store buffer with
 * store-to-load forwarding, a bounded window of outstanding loads, in front of a memory side
 * that implements struct cpu_mem_ops (tlm/coherence/cpu_port.h). docs/cpu.md has the model.
 *
 * Timing: the thread posts one op at a time; the core issues at most one op per core cycle, in
 * program order. A load waits for its value (forwarded in the cycle it issues, or from memory);
 * ct_ldv issues its loads one per cycle with at most cpu.mlp outstanding. A store enters the
 * store buffer and the thread goes on (a full buffer stalls it); an entry may leave the buffer
 * cpu.commit_cycles after its issue (when an in-order pipeline retires it), and only once every
 * older entry is performed, so stores become visible in program order (x86-TSO). A load whose
 * bytes the youngest overlapping buffered store covers takes its value; a partial overlap waits
 * until that store is performed. MFENCE waits for the buffer to empty; a locked atomic waits for
 * the same, then performs at memory. Compute of n cycles takes n cycles.
 */
#ifndef COHSCOPE_TLM_CORE_CPU_H
#define COHSCOPE_TLM_CORE_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic/energy.h"
#include "tlm/coherence/cpu_port.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"
#include "workloads/cpu_api.h"

struct cpu_core_cfg {
	uint64_t clock_mhz;
	uint64_t store_buffer;	/* entries */
	uint64_t mlp;		/* outstanding loads */
	uint64_t commit_cycles; /* issue of a store to the earliest it may leave the buffer */
	uint64_t spin_limit;
	uint64_t stack_kib;
};

extern const struct cs_param_table cpu_core_params; /* section "cpu" */

/* A request of a thread to a device beside the CPU (ct_launch, ct_gpu_wait, ct_dma_copy). */
enum cpu_dev_kind { CPU_DEV_LAUNCH = 0, CPU_DEV_WAIT, CPU_DEV_DMA };

struct cpu_dev_req {
	uint8_t kind; /* enum cpu_dev_kind */
	const struct gpu_kernel *kernel;
	uint64_t dst, src, len;
};

/* What a core asks of the system around it. */
struct cpu_core_env {
	void *sys;
	/* a thread's check failed or a model error: record and stop */
	void (*fail)(void *sys, int code, const char *msg);
	/* the core's thread has returned and its store buffer is empty */
	void (*thread_done)(void *sys, unsigned core);
	/* a device request, made once the store buffer is empty (the request is a release: what
	 * the thread stored before is visible to the device); the system answers with
	 * cpu_core_device_done, never from inside the call. NULL: no devices (the request fails
	 * the run). */
	void (*device)(void *sys, unsigned core, const struct cpu_dev_req *r);
	uint64_t seed;
};

struct cpu_core;

int cpu_core_create(struct sim_kernel *k, const struct cpu_core_cfg *cfg, unsigned id,
		    const struct cpu_core_env *env, struct cs_stat_group *stats,
		    struct cpu_core **out, struct cs_err *err);
void cpu_core_destroy(struct cpu_core *c);
/* The core's clock (its memory side may count latencies in it). */
const struct sim_clock *cpu_core_clock(const struct cpu_core *c);
/* Its memory side, bound once before the first thread starts; the core does not own it. */
void cpu_core_attach(struct cpu_core *c, const struct cpu_mem_ops *ops, struct cpu_mem *mem);
/* Starts thread tid of program p on the idle core; run numbers the program runs of the system
 * (it seeds the thread's random stream). */
int cpu_core_start(struct cpu_core *c, const struct cpu_program *p, unsigned tid, uint64_t run);
/* No thread and an empty store buffer. */
bool cpu_core_idle(const struct cpu_core *c);
/* The device request of the core's thread is answered (rc: 0 or a negative code, which fails
 * the run): the thread goes on now (in every face: a device lives at the kernel's time). */
void cpu_core_device_done(struct cpu_core *c, int rc);
/* The request the core's thread waits on (valid until cpu_core_device_done). */
const struct cpu_dev_req *cpu_core_device_req(const struct cpu_core *c);

/* The coherence checker (tlm/mem/cohcheck.h; gpu.check on system apu): the core reports what
 * it reads at memory as reader `who` (loads that were not forwarded from its store buffer, an
 * atomic's old value, and the value its own store or atomic left, once performed), 4- and
 * 8-byte accesses only. The writes themselves are the memory side's to report, where they are
 * performed. NULL turns it off. Set before the first thread starts. */
struct cohcheck;
void cpu_core_set_check(struct cpu_core *c, struct cohcheck *chk, unsigned who);

/* ---- faces (the sampling layer's initiator: sampling/sampler.h, docs/hybrid.md) ------------- */

/* The same numbers as enum samp_face. */
enum cpu_face { CPU_FACE_AT = 0, CPU_FACE_LT, CPU_FACE_FF };

/* Switches the core's face. AT to LT or FF only when the core is drained (cpu_core_hold, then
 * !cpu_core_busy); LT or FF to AT at any time (the thread goes on at its own time). LT: the
 * thread runs up to the quantum ahead of the kernel's time, its ops performed at once through
 * the memory side's lt_access at the times the AT face would issue them, the store buffer
 * kept (docs/cpu.md). FF: values only, a cycle per op, stores performed at once. A memory
 * side without lt_access keeps the core in AT. */
void cpu_core_set_face(struct cpu_core *c, unsigned face);
/* AT: issue nothing new and send no store from the buffer (a drain); false: go on. */
void cpu_core_hold(struct cpu_core *c, bool hold);
/* Accesses in flight, a compute op running, a thread's end pending, or (AT after LT) a
 * thread waiting for its own time. */
bool cpu_core_busy(const struct cpu_core *c);
/* Work so far, every face: ops posted plus compute cycles, less the spin loops' repeated
 * tries (ct_spin_guard): the sampler's progress, and the events bound's issue count (one
 * thread a core: a spinning thread takes no issue slot another could use). */
uint64_t cpu_core_work(const struct cpu_core *c);
/* The stats contract: its energy events (ops and compute cycles, as instructions) and itself. */
void cpu_core_energy(const struct cpu_core *c, struct energy_counts *out);
/* Threads resident: 1 while a thread runs (or its buffer drains), else 0. */
unsigned cpu_core_occupancy(const struct cpu_core *c);
/* LT: how far the thread may run ahead of the kernel's time (default: sim.quantum_ns, 0 there
 * meaning one op per synchronisation). */
void cpu_core_set_quantum(struct cpu_core *c, sim_time_t ps);

/* ---- the host side of the op API (workloads/cpu_api.h) --------------------------------------- */

/* A system with CPU cores implements these; the ch_* functions call them. */
struct cpu_host_ops {
	uint64_t (*alloc)(void *sys, uint64_t bytes, uint64_t align);
	void (*read)(void *sys, uint64_t addr, void *buf, size_t len);
	void (*write)(void *sys, uint64_t addr, const void *buf, size_t len);
	int (*run)(void *sys, const struct cpu_program *p);
	unsigned (*cores)(const void *sys);
	void (*fail)(void *sys, int code, const char *msg);
	void (*note)(void *sys, const char *msg);
};

struct cpu_host {
	const struct cpu_host_ops *ops;
	void *sys;
	uint64_t seed;
	void *arg;
	unsigned size;		/* enum gpu_size: workload.size */
	uint64_t check_samples; /* workload.check/samples: UINT64_MAX = every output */
};

#endif
