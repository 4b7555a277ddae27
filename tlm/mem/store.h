/*
 * tlm/mem/store.h - the functional backing store: the values DRAM holds.
 *
 * A sparse byte-addressed memory over the 64-bit address space, allocated in 64 KiB pages on
 * first write (reads of untouched memory return zeros). Workloads initialise their inputs
 * here before the first kernel; DRAM controllers read and write it at service time, so every
 * value a warp sees has travelled through the modelled hierarchy. Atomic read-modify-writes are
 * defined here once for every place that performs them (L2 banks, the fast path).
 */
#ifndef COHSCOPE_TLM_MEM_STORE_H
#define COHSCOPE_TLM_MEM_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct mem_store;

int mem_store_create(struct mem_store **out);
void mem_store_destroy(struct mem_store *s);
/* Copies len bytes at addr into buf (untouched bytes read as zero). */
void mem_store_read(const struct mem_store *s, uint64_t addr, void *buf, size_t len);
/* Returns 0 or -CS_ENOMEM. */
int mem_store_write(struct mem_store *s, uint64_t addr, const void *buf, size_t len);
/* Writes the bytes of buf whose byte-enable is 0xff (be NULL: all). */
int mem_store_write_masked(struct mem_store *s, uint64_t addr, const void *buf, const uint8_t *be,
			   size_t len);
/* Bytes of pages allocated. */
size_t mem_store_footprint(const struct mem_store *s);
/* FNV-1a over every allocated page (address and contents), in address order. */
uint64_t mem_store_digest(const struct mem_store *s);

/* One atomic on a little-endian word of `bytes` (1, 2, 4 or 8; GPUs use 4 and 8) at p: returns
 * the old value and leaves the new one. op is enum mem_atomic_op; operands are cut to the
 * word's width; CAS compares with a and swaps in b; MIN/MAX are unsigned (CUDA's atomicMin on
 * unsigned int, x86 has none: the CPU op API's MIN/MAX are unsigned too). */
uint64_t mem_atomic_apply(void *p, unsigned bytes, unsigned op, uint64_t a, uint64_t b);

/* The little-endian word of n bytes (at most 8) at p, zero-extended. A copy of a fixed size
 * for the usual 4 and 8: memcpy of a variable length into a word is byte stores followed by a
 * word load, which stalls on store forwarding (half of the LT face's sm_l1_done). */
static inline uint64_t mem_word_get(const void *p, unsigned n)
{
	uint64_t v = 0;
	uint32_t w;

	switch (n) {
	case 8:
		memcpy(&v, p, 8);
		return v;
	case 4:
		memcpy(&w, p, 4);
		return w;
	default:
		memcpy(&v, p, n);
		return v;
	}
}

#endif
