/*
 * tlm/mem/idealport.h - the ideal coherent memory port: a struct cpu_mem_ops memory side
 * (tlm/coherence/cpu_port.h) with no caches, one per core.
 *
 * Every access is performed at the functional store (tlm/mem/store.h) in the cycle the port
 * accepts it, and answered `idealmem.latency` core cycles later. All cores' ports share the one
 * store, so memory is coherent and every access is single-copy atomic: the only weakness a
 * program can see is the cores' store buffers, which is exactly x86-TSO. A port holds at most
 * `idealmem.queue` accesses in flight and refuses more (retry() follows). Used by the system
 * `cpu` (tests, litmus); the MOESI caches of issue 17 implement the same ops.
 */
#ifndef COHSCOPE_TLM_MEM_IDEALPORT_H
#define COHSCOPE_TLM_MEM_IDEALPORT_H

#include <stdint.h>

#include "tlm/coherence/cpu_port.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "tlm/mem/store.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

struct idealport_cfg {
	uint64_t latency;    /* core cycles from accept to done() */
	uint64_t queue;	     /* accesses in flight */
	uint64_t line_bytes; /* the line the core addresses */
};

extern const struct cs_param_table idealport_params; /* section "idealmem" */
extern const struct cpu_mem_ops idealport_ops;

/* clk: the clock of the core it serves (latency counts its cycles). */
int idealport_create(struct sim_kernel *k, const struct sim_clock *clk, struct mem_store *store,
		     const struct idealport_cfg *cfg, struct cs_stat_group *stats,
		     struct cpu_mem **out, struct cs_err *err);

#endif
