/*
 * tlm/coherence/apu/apu_dma.h - the DMA engine of seed 002's APU baseline (docs/apu.md §3.6).
 *
 * A transfer (read or write of a buffer) is cut into line pieces (offset, len within a line);
 * each piece is one DMARd or DMAWr to the directory, sent dma.issue_cycles after the engine
 * decides to send it, with at most dma.window pieces in flight. A read piece is done at its
 * DMAData (the bytes go to the buffer), a write piece at its DMAAck. The transfer's done
 * callback runs when every piece is done. One transfer at a time (a second start while one is
 * in progress is -CS_ESTATE): pieces of one transfer are distinct lines, so no line is ever
 * requested twice at once (gem5's stall on a busy line never arises).
 *
 * Statistics in G: G.lines_read, G.lines_written, G.bytes_read, G.bytes_written.
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_DMA_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_DMA_H

#include <stddef.h>
#include <stdint.h>

#include "tlm/kernel/time.h"

#include "analytic/energy.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

struct apu_dma_cfg {
	uint64_t clock_mhz;
	uint64_t issue_cycles;
	uint64_t window; /* lines in flight */
};

extern const struct cs_param_table apu_dma_params; /* section "dma" */

struct apu_dma;

/* ep: the engine's endpoint; dir_ep: the directory's. 0, -CS_ECONFIG, -CS_EINVAL, -CS_ENOMEM. */
int apu_dma_create(struct sim_kernel *k, const struct apu_dma_cfg *cfg, struct apu_msgs *msgs,
		   unsigned ep, unsigned dir_ep, struct cs_stat_group *stats, struct apu_dma **out,
		   struct cs_err *err);
/* The stats contract: its energy events and itself (docs/energy.md, "APU"). */
void apu_dma_energy(const struct apu_dma *d, struct energy_counts *out);
void apu_dma_destroy(struct apu_dma *d);
struct apu_port *apu_dma_port(struct apu_dma *d);

typedef void (*apu_dma_done_fn)(void *ctx);

/* Read len bytes at addr into buf / write them from buf. buf must live until done. 0,
 * -CS_ESTATE (a transfer is in progress), -CS_EINVAL (len 0). */
int apu_dma_read(struct apu_dma *d, uint64_t addr, void *buf, size_t len, apu_dma_done_fn done,
		 void *ctx);
int apu_dma_write(struct apu_dma *d, uint64_t addr, const void *buf, size_t len,
		  apu_dma_done_fn done, void *ctx);
/* The LT face (docs/apu.md §11): the whole transfer performed at once in an LT run at time t
 * (the engine's port must have joined the system's apu_lt: apu_port_set_lt), every piece's
 * directory transaction with its probes and DRAM access included; returns the time the last
 * piece was done (SIM_TIME_MAX, nothing done: a transfer in progress or len 0). */
sim_time_t apu_dma_lt_read(struct apu_dma *d, uint64_t addr, void *buf, size_t len, sim_time_t t);
sim_time_t apu_dma_lt_write(struct apu_dma *d, uint64_t addr, const void *buf, size_t len,
			    sim_time_t t);
/* Pieces in flight (sent, not answered). */
unsigned apu_dma_in_flight(const struct apu_dma *d);

#endif
