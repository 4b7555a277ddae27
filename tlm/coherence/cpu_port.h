/*
 * tlm/coherence/cpu_port.h - what a CPU core asks of the memory side: the core <-> L1 interface
 * (the CPU's counterpart of struct gpu_l1_ops in gpu_proto.h).
 *
 * A CPU core (tlm/core/cpu.h) hands its memory side one access at a time: a load of some bytes
 * of a line, a store (a store-buffer entry leaving the buffer), or a locked atomic. The memory
 * side accepts it (true: done() follows) or refuses it (false: retry() follows, then the core
 * offers it again). done() says the access is performed: a load's bytes are bound, a store is
 * visible to every other core, an atomic has read, modified and written its word indivisibly.
 * The core relies on that and on nothing else for x86-TSO: it keeps its loads in order, sends
 * one store at a time, and sends an atomic only with its store buffer empty. A memory side that
 * lets a load be performed before an earlier load of the same core (a hit passing a miss) must
 * hold it back or replay it, as real cores squash such loads on an invalidation.
 *
 * Implementations: the ideal coherent memory port (tlm/mem/idealport.h) for tests and litmus;
 * the MOESI CorePair L1/L2 of issue 17 will implement the same ops table. Creation is the
 * implementation's own (the system builder knows what it builds); the core binds itself as
 * the client.
 */
#ifndef COHSCOPE_TLM_COHERENCE_CPU_PORT_H
#define COHSCOPE_TLM_COHERENCE_CPU_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "tlm/kernel/time.h"

/* IFETCH: an instruction fetch (ct_ifetch): a read of the line's bytes like LD, through the
 * instruction side of the memory hierarchy (the CorePair's L1I; an L2 miss asks for the line
 * with RdBlkS, docs/apu.md §3.1). A memory side without an instruction side reads as for LD. */
enum cpu_mem_kind { CPU_MEM_LD = 0, CPU_MEM_ST, CPU_MEM_ATOM, CPU_MEM_IFETCH };

#define CPU_LINE_MAX 128 /* bytes of a line the interface carries (64 on x86) */

struct cpu_mem_req {
	uint8_t kind;	 /* enum cpu_mem_kind */
	uint8_t atom_op; /* ATOM: enum mem_atomic_op */
	uint8_t bytes;	 /* ATOM: word size (1, 2, 4, 8) at byte offset `offset` */
	uint16_t offset; /* ATOM: the word's byte offset in the line */
	uint32_t id;	 /* the core's record, given back in done() */
	uint64_t line_addr;
	/* LD, IFETCH, ST: the bytes of the line touched (bit i = byte i; lines of at most 64 bytes) */
	uint64_t byte_mask;
	/* ST: the bytes at their line offsets (valid where byte_mask is set); the memory side
	 * copies what it keeps before access() returns */
	const uint8_t *data;
	uint64_t a, b; /* ATOM operands (CAS: compare, swap) */
};

/* How the memory side answers its core. */
struct cpu_mem_client {
	void *core;
	/* The access with this id is performed. LD, IFETCH: `line` holds the line's bytes (valid at least
	 * where the byte mask is set), else NULL. ATOM: `old` is the word's value before it. */
	void (*done)(void *core, uint32_t id, const uint8_t *line, uint64_t old);
	/* An access that was refused can now be offered again. */
	void (*retry)(void *core);
};

struct cpu_mem;

struct cpu_mem_ops {
	const char *name;
	/* The core that uses this port (once, before the first access). */
	void (*bind)(struct cpu_mem *m, const struct cpu_mem_client *client);
	unsigned (*line_bytes)(const struct cpu_mem *m);
	/* Takes the access (true; done() follows, never from inside access()) or refuses it
	 * (false; retry() follows). */
	bool (*access)(struct cpu_mem *m, const struct cpu_mem_req *r);
	/* The LT face (temporal decoupling: docs/hybrid.md, docs/cpu.md). The core calls it when
	 * its thread runs ahead of the kernel's time; access() and lt_access() may alternate on
	 * one port only at a switch of faces, which the sampling layer makes with the port idle
	 * (AT to LT, after a drain) or with LT's accesses performed (LT to AT).
	 *
	 * lt_access performs r at time t at once, through the same state-update code as
	 * access() (every state change made, every statistic counted, as b_transport down the
	 * hierarchy), and returns the time its done() would have come in the detailed face
	 * (>= t): the unloaded latency of the path it took plus the delay of whatever earlier
	 * accesses still hold (queues, MSHRs, a line in transition). On return a load's (or
	 * instruction fetch's) bytes
	 * are in line[] (at least where byte_mask is set; line may be NULL for ST and ATOM), an
	 * atomic's old word in *old (old may be NULL). The access is performed at t as done()
	 * defines it: the core relies on nothing else, exactly as in AT. Or it returns
	 * SIM_TIME_MAX: refused (resources held by earlier accesses at t), nothing changed, and
	 * the core offers it again no earlier than lt_advance(m, t) says.
	 * A core's calls come in nondecreasing t (its loads in program order, its stores one at
	 * a time in program order, an atomic only with its store buffer empty); calls of
	 * different cores are not ordered in t (each core runs up to a quantum ahead), and their
	 * order of calls is the order in which the accesses are performed.
	 *
	 * lt_advance handles the memory side's own timed work up to t (what earlier lt_access
	 * calls left in flight: fills, write-backs, freed entries) and returns the time of the
	 * next such event (SIM_TIME_MAX: none); the core offers a refused access again then.
	 * NULL when lt_access is NULL. lt_access NULL: the memory side has no LT face (the core
	 * stays in AT). */
	sim_time_t (*lt_access)(struct cpu_mem *m, const struct cpu_mem_req *r, sim_time_t t,
				uint8_t *line, uint64_t *old);
	sim_time_t (*lt_advance)(struct cpu_mem *m, sim_time_t t);
	/* Nothing in flight. */
	bool (*idle)(const struct cpu_mem *m);
	void (*destroy)(struct cpu_mem *m);
};

#endif
