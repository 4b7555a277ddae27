/*
 * tlm/mem/memtarget.h - a memory target with both faces: component "memory".
 *
 * Approximately timed: one accept stage serves requests in arrival order, accept_ns each
 * (END_REQ at the end, so a busy memory back-pressures its initiators); the response follows
 * latency_ns after the accept began. Loosely timed: b_transport annotates latency_ns.
 * Both faces apply an access through the same function, so the data they leave is the same
 * for the same order of accesses. Out-of-range accesses answer TLM_ADDRESS_ERROR_RESPONSE.
 */
#ifndef COHSCOPE_TLM_MEM_MEMTARGET_H
#define COHSCOPE_TLM_MEM_MEMTARGET_H

#include <stdint.h>

#include "tlm/system/system.h"

struct memtarget_cfg {
	uint64_t latency_ns;
	uint64_t accept_ns;
	uint64_t size_kib;
	uint64_t ports;
};

/* Target socket i (0 <= i < ports) of a "memory" component, or NULL. */
struct tlm_target_socket *memtarget_port(struct cs_component *c, unsigned i);
/* FNV-1a of the whole store: compares the state two runs leave behind. */
uint64_t memtarget_digest(const struct cs_component *c);

#endif
