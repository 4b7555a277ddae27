/*
 * tlm/mem/addrmap.h - where an address lives: L2 bank, DRAM channel, local address.
 *
 * Addresses are interleaved across L2 banks in chunks of 2^interleave_shift bytes (GPGPU-Sim's
 * `dramid@8`: 256 B). Chunk c goes to bank c % banks (a modulo, so 6 or 12 banks work as well
 * as 8); banks_per_channel consecutive banks share one DRAM channel (GPGPU-Sim's memory
 * sub-partitions). Inside a channel the chunks its banks own are packed densely, so the DRAM
 * sees a contiguous local address space and row, bank and column follow from it.
 */
#ifndef COHSCOPE_TLM_MEM_ADDRMAP_H
#define COHSCOPE_TLM_MEM_ADDRMAP_H

#include <stdint.h>

struct addr_map {
	unsigned banks;		    /* L2 banks in all */
	unsigned banks_per_channel; /* banks % banks_per_channel == 0 */
	unsigned interleave_shift;  /* log2 of the interleave chunk in bytes (>= 7) */
};

static inline unsigned addrmap_bank(const struct addr_map *m, uint64_t addr)
{
	return (unsigned)((addr >> m->interleave_shift) % m->banks);
}

static inline unsigned addrmap_channel(const struct addr_map *m, uint64_t addr)
{
	return addrmap_bank(m, addr) / m->banks_per_channel;
}

/* The address inside its channel: dense, starting at 0. */
static inline uint64_t addrmap_local(const struct addr_map *m, uint64_t addr)
{
	uint64_t chunk = addr >> m->interleave_shift;
	uint64_t off = addr & ((UINT64_C(1) << m->interleave_shift) - 1);
	uint64_t bank = chunk % m->banks;
	uint64_t local_chunk =
	    chunk / m->banks * m->banks_per_channel + bank % m->banks_per_channel;

	return (local_chunk << m->interleave_shift) | off;
}

#endif
