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

enum cpu_mem_kind { CPU_MEM_LD = 0, CPU_MEM_ST, CPU_MEM_ATOM };

#define CPU_LINE_MAX 128 /* bytes of a line the interface carries (64 on x86) */

struct cpu_mem_req {
	uint8_t kind;	 /* enum cpu_mem_kind */
	uint8_t atom_op; /* ATOM: enum mem_atomic_op */
	uint8_t bytes;	 /* ATOM: word size (1, 2, 4, 8) at byte offset `offset` */
	uint16_t offset; /* ATOM: the word's byte offset in the line */
	uint32_t id;	 /* the core's record, given back in done() */
	uint64_t line_addr;
	/* LD, ST: the bytes of the line touched (bit i = byte i; lines of at most 64 bytes) */
	uint64_t byte_mask;
	/* ST: the bytes at their line offsets (valid where byte_mask is set); the memory side
	 * copies what it keeps before access() returns */
	const uint8_t *data;
	uint64_t a, b; /* ATOM operands (CAS: compare, swap) */
};

/* How the memory side answers its core. */
struct cpu_mem_client {
	void *core;
	/* The access with this id is performed. LD: `line` holds the line's bytes (valid at least
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
	/* Nothing in flight. */
	bool (*idle)(const struct cpu_mem *m);
	void (*destroy)(struct cpu_mem *m);
};

#endif
