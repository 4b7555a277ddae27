/*
 * util/mix.h - splitmix64 (Steele, Lea and Flood, OOPSLA 2014): the finaliser that mixes a
 * 64-bit word, and the generator that runs it over a Weyl sequence. Seeded inputs, hashes of
 * addresses and pointers, and test scripts all draw from it, so one run's numbers do not depend
 * on which copy a file carried.
 */
#ifndef COHSCOPE_UTIL_MIX_H
#define COHSCOPE_UTIL_MIX_H

#include <stdint.h>

static inline uint64_t cs_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The next number of the sequence *state steps through. */
static inline uint64_t cs_splitmix64(uint64_t *state)
{
	return cs_mix64(*state += 0x9e3779b97f4a7c15ull);
}

#endif
