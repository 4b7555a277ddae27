/*
 * tests/unit/test_cache.c - the cache array (tlm/mem/cache.c): geometry checks, set mapping,
 * LRU / tree-PLRU / FIFO victims, invalid ways first, eviction exclusions, digest; and the MSHR
 * table (tlm/mem/mshr.c): capacity, lookup, merging, deterministic stable indices, reuse.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/mem/cache.h"
#include "tlm/mem/mshr.h"
#include "util/error.h"

static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static struct cache *mk(uint64_t size, unsigned assoc, unsigned line, unsigned sector,
			enum cache_repl repl)
{
	struct cache_geom g = {size, assoc, line, sector, repl, false, 0, 0};
	struct cache *c = NULL;

	ck_assert_int_eq(cache_create(&g, &c), 0);
	ck_assert_ptr_nonnull(c);
	return c;
}

/* Miss path as a controller does it: victim, install. Returns the way used. */
static unsigned fill(struct cache *c, uint64_t addr)
{
	struct cache_line *v = cache_victim(c, addr, NULL, NULL);

	ck_assert_ptr_nonnull(v);
	cache_install(c, v, addr, 1);
	return cache_way_of(c, v);
}

static unsigned victim_way(struct cache *c, uint64_t addr)
{
	struct cache_line *v = cache_victim(c, addr, NULL, NULL);

	ck_assert_ptr_nonnull(v);
	return cache_way_of(c, v);
}

static void touch(struct cache *c, uint64_t addr)
{
	struct cache_line *l = cache_lookup(c, addr);

	ck_assert_ptr_nonnull(l);
	cache_touch(c, l);
}

/* ---- geometry ------------------------------------------------------------------------------- */

START_TEST(test_geometry_validation)
{
	static const struct {
		struct cache_geom g;
		int rc;
	} cases[] = {
	    {{16384, 4, 128, 0, CACHE_REPL_LRU, false, 0, 0}, 0},   /* GTX 480 L1: 32 sets */
	    {{65536, 8, 128, 32, CACHE_REPL_LRU, false, 0, 0}, 0},  /* GTX 480 L2 slice, sectored */
	    {{98304, 24, 128, 32, CACHE_REPL_LRU, false, 0, 0}, 0}, /* TITAN V L2 slice: 24 ways */
	    {{1536, 3, 128, 0, CACHE_REPL_FIFO, false, 0, 0}, 0},   /* 3 ways, 4 sets */
	    {{1536, 3, 128, 0, CACHE_REPL_PLRU, false, 0, 0}, -CS_EINVAL}, /* PLRU needs 2^k ways */
	    {{32768, 64, 128, 0, CACHE_REPL_PLRU, false, 0, 0}, 0},	   /* 64-way PLRU */
	    {{65536, 128, 128, 0, CACHE_REPL_PLRU, false, 0, 0},
	     0}, /* more tree bits than a word */
	    {{16384, 4, 96, 0, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL},  /* line not 2^k */
	    {{12288, 4, 128, 0, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL}, /* 24 sets */
	    {{16000, 4, 128, 0, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL}, /* not whole sets */
	    {{0, 4, 128, 0, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL},
	    {{16384, 0, 128, 0, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL},
	    {{16384, 4, 128, 24, CACHE_REPL_LRU, false, 0, 0},
	     -CS_EINVAL}, /* sector does not divide */
	    {{16384, 4, 128, 8, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL}, /* 16 sectors */
	    {{16384, 4, 128, 16, CACHE_REPL_LRU, false, 0, 0}, 0},	   /* 8 sectors */
	    {{16384, 4, 128, 256, CACHE_REPL_LRU, false, 0, 0}, -CS_EINVAL},
	    {{16384, 4, 128, 0, (enum cache_repl)7, false, 0, 0}, -CS_EINVAL},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cache *c = (struct cache *)1;
		int rc = cache_create(&cases[i].g, &c);

		ck_assert_msg(rc == cases[i].rc, "case %u: rc %d, want %d", i, rc, cases[i].rc);
		if (rc)
			ck_assert_ptr_null(c);
		cache_destroy(c);
	}
}
END_TEST

START_TEST(test_sets_map)
{
	struct cache *c = mk(16384, 4, 128, 0, CACHE_REPL_LRU);
	struct cache *s = mk(65536, 8, 128, 32, CACHE_REPL_LRU);
	unsigned n = 0;

	ck_assert_uint_eq(cache_sets(c), 32);
	ck_assert_uint_eq(cache_geometry(c)->assoc, 4);
	ck_assert_uint_eq(cache_set_of(c, 0), 0);
	ck_assert_uint_eq(cache_set_of(c, 127), 0);
	ck_assert_uint_eq(cache_set_of(c, 128), 1);
	ck_assert_uint_eq(cache_set_of(c, 31 * 128 + 5), 31);
	ck_assert_uint_eq(cache_set_of(c, 32 * 128), 0);
	ck_assert_uint_eq(cache_set_of(c, 0x123456789abcull), (0x123456789abcull >> 7) & 31);
	ck_assert_uint_eq(cache_line_addr(c, 0x12345ull), 0x12300ull);
	ck_assert_uint_eq(cache_sectors(c), 1);
	ck_assert_uint_eq(cache_all_sectors(c), CACHE_ALL_SECTORS);
	ck_assert_uint_eq(cache_sets(s), 64);
	ck_assert_uint_eq(cache_sectors(s), 4);
	ck_assert_uint_eq(cache_all_sectors(s), 0x0f);

	/* one line in every set, in every way of set 5: all found, each where it belongs */
	for (unsigned i = 0; i < 32; i++)
		fill(c, 0x100000 + i * 128);
	for (unsigned w = 1; w < 4; w++)
		ck_assert_uint_eq(fill(c, 0x100000 + 5 * 128 + w * 4096), w);
	for (unsigned i = 0; i < 32; i++) {
		struct cache_line *l = cache_lookup(c, 0x100000 + i * 128 + 64);

		ck_assert_ptr_nonnull(l);
		ck_assert_uint_eq(l->addr, 0x100000 + i * 128);
		ck_assert_ptr_eq(l, cache_line_at(c, i, 0));
	}
	ck_assert_ptr_null(cache_lookup(c, 0x100000 + 32 * 128));
	/* a fifth line of set 5 evicts the LRU one of that set only */
	{
		struct cache_line *v = cache_victim(c, 0x100000 + 5 * 128 + 4 * 4096, NULL, NULL);

		ck_assert_uint_eq(v->addr, 0x100000 + 5 * 128);
		cache_install(c, v, 0x100000 + 5 * 128 + 4 * 4096, 1);
		ck_assert_ptr_null(cache_lookup(c, 0x100000 + 5 * 128));
		ck_assert_ptr_nonnull(cache_lookup(c, 0x100000 + 4 * 128));
		ck_assert_ptr_nonnull(cache_lookup(c, 0x100000 + 6 * 128));
	}
	/* data of distinct lines is distinct memory of line_bytes */
	for (unsigned i = 0; i < 32; i++)
		memset(cache_line_at(c, i, 0)->data, (int)i, 128);
	for (unsigned i = 0; i < 32; i++)
		for (unsigned b = 0; b < 128; b++)
			if (cache_line_at(c, i, 0)->data[b] != i)
				ck_abort_msg("data of set %u byte %u clobbered", i, b);
	for (unsigned i = 0; i < 32; i++)
		for (unsigned w = 0; w < 4; w++)
			n += cache_line_at(c, i, w)->state != 0;
	ck_assert_uint_eq(n, 35);
	cache_destroy(c);
	cache_destroy(s);
}
END_TEST

/* A bank of an interleaved cache indexes by its own addresses: a working set of exactly one
 * bank's capacity, spread over all banks, fits with no eviction (16 banks, 6 banks; line- and
 * two-line-grain chunks), and the geometry check refuses a chunk smaller than a line. */
static void banked_fits(unsigned banks, unsigned chunk_shift)
{
	const uint64_t bank_bytes = 32768, line = 128;
	struct cache *bank[16];
	uint64_t lines = banks * bank_bytes / line;

	for (unsigned b = 0; b < banks; b++) {
		struct cache_geom g = {.size_bytes = bank_bytes,
				       .assoc = 8,
				       .line_bytes = (unsigned)line,
				       .repl = CACHE_REPL_LRU,
				       .index_banks = banks,
				       .index_chunk_shift = chunk_shift};

		bank[b] = NULL;
		ck_assert_int_eq(cache_create(&g, &bank[b]), 0);
	}
	for (uint64_t i = 0; i < lines; i++) {
		uint64_t a = 0x40000000 + i * line;
		struct cache *c = bank[(a >> chunk_shift) % banks];
		struct cache_line *v = cache_victim(c, a, NULL, NULL);

		if (v->state)
			ck_abort_msg("%u banks, chunk 2^%u: line %llu evicts %llx", banks,
				     chunk_shift, (unsigned long long)i,
				     (unsigned long long)v->addr);
		cache_install(c, v, a, 1);
	}
	for (uint64_t i = 0; i < lines; i++) {
		uint64_t a = 0x40000000 + i * line;

		ck_assert_ptr_nonnull(cache_lookup(bank[(a >> chunk_shift) % banks], a));
	}
	/* consecutive lines of one bank fill consecutive sets */
	ck_assert_uint_eq(cache_set_of(bank[0], 0), 0);
	ck_assert_uint_eq(cache_set_of(bank[0], (uint64_t)banks << chunk_shift),
			  1u << (chunk_shift - 7));
	for (unsigned b = 0; b < banks; b++)
		cache_destroy(bank[b]);
}

START_TEST(test_banked_index)
{
	struct cache_geom bad = {.size_bytes = 32768,
				 .assoc = 8,
				 .line_bytes = 128,
				 .repl = CACHE_REPL_LRU,
				 .index_banks = 4,
				 .index_chunk_shift = 6};
	struct cache *c = NULL;

	banked_fits(16, 7);
	banked_fits(16, 8);
	banked_fits(6, 8);
	banked_fits(1, 7);
	ck_assert_int_eq(cache_create(&bad, &c), -CS_EINVAL);
	ck_assert_ptr_null(c);
}
END_TEST

static void visit(void *ctx, struct cache_line *l)
{
	uint64_t *log = ctx;

	log[1 + log[0]++] = l->addr;
}

START_TEST(test_for_each_and_invalidate_all)
{
	struct cache *c = mk(2048, 2, 128, 0, CACHE_REPL_LRU); /* 8 sets */
	uint64_t log[32] = {0};

	fill(c, 0x80 * 7);
	fill(c, 0x80 * 3 + 0x400);
	fill(c, 0x80 * 3);
	fill(c, 0x400);
	fill(c, 0x0);
	/* set 0: 0x400 in way 0, 0x0 in way 1 -> set order, then way order */
	cache_for_each(c, visit, log);
	ck_assert_uint_eq(log[0], 5);
	ck_assert_uint_eq(log[1], 0x400);
	ck_assert_uint_eq(log[2], 0x0);
	ck_assert_uint_eq(log[3], 0x80 * 3 + 0x400);
	ck_assert_uint_eq(log[4], 0x80 * 3);
	ck_assert_uint_eq(log[5], 0x80 * 7);

	cache_invalidate_all(c);
	log[0] = 0;
	cache_for_each(c, visit, log);
	ck_assert_uint_eq(log[0], 0);
	{
		struct cache *fresh = mk(2048, 2, 128, 0, CACHE_REPL_LRU);

		ck_assert_uint_eq(cache_digest(c), cache_digest(fresh));
		cache_destroy(fresh);
	}
	cache_destroy(c);
}
END_TEST

/* ---- replacement ---------------------------------------------------------------------------- */

#define A 0x0000
#define B 0x1000
#define C 0x2000
#define D 0x3000
#define E 0x4000

START_TEST(test_lru_scripted)
{
	struct cache *c = mk(512, 4, 128, 0, CACHE_REPL_LRU); /* one set, 4 ways */

	ck_assert_uint_eq(cache_sets(c), 1);
	ck_assert_uint_eq(fill(c, A), 0);
	ck_assert_uint_eq(fill(c, B), 1);
	ck_assert_uint_eq(fill(c, C), 2);
	ck_assert_uint_eq(fill(c, D), 3);
	ck_assert_uint_eq(cache_victim(c, E, NULL, NULL)->addr, A); /* order A B C D */
	touch(c, A);						    /* B C D A */
	ck_assert_uint_eq(cache_victim(c, E, NULL, NULL)->addr, B);
	touch(c, C); /* B D A C */
	touch(c, B); /* D A C B */
	ck_assert_uint_eq(cache_victim(c, E, NULL, NULL)->addr, D);
	ck_assert_uint_eq(cache_victim(c, E, NULL, NULL)->addr, D); /* victim changes nothing */
	ck_assert_uint_eq(fill(c, E), 3);			    /* A C B E */
	ck_assert_uint_eq(cache_victim(c, D, NULL, NULL)->addr, A);
	ck_assert_ptr_nonnull(cache_lookup(c, A)); /* lookup alone is not an access */
	ck_assert_uint_eq(cache_victim(c, D, NULL, NULL)->addr, A);
	touch(c, A); /* C B E A */
	touch(c, E); /* C B A E */
	ck_assert_uint_eq(cache_victim(c, D, NULL, NULL)->addr, C);
	ck_assert_uint_eq(fill(c, D), 2); /* B A E D */
	ck_assert_uint_eq(cache_victim(c, C, NULL, NULL)->addr, B);
	ck_assert_ptr_null(cache_lookup(c, C));
	cache_destroy(c);
}
END_TEST

START_TEST(test_fifo)
{
	struct cache *c = mk(512, 4, 128, 0, CACHE_REPL_FIFO);

	fill(c, A);
	fill(c, B);
	fill(c, C);
	fill(c, D);
	for (unsigned i = 0; i < 5; i++)
		touch(c, A); /* hits do not reorder a FIFO */
	ck_assert_uint_eq(cache_victim(c, E, NULL, NULL)->addr, A);
	ck_assert_uint_eq(fill(c, E), 0); /* B C D E */
	touch(c, B);
	ck_assert_uint_eq(cache_victim(c, A, NULL, NULL)->addr, B);
	ck_assert_uint_eq(fill(c, A), 1); /* C D E A */
	ck_assert_uint_eq(cache_victim(c, B, NULL, NULL)->addr, C);
	cache_destroy(c);
}
END_TEST

/*
 * 4-way tree: node 1 (root), 2 (ways 0-1), 3 (ways 2-3); bit 0 = victim on the left.
 * Touching a way points its path away from it.
 *   fill 0,1,2,3      -> b1=0 b2=0 b3=0 : victim 0 (as LRU)
 *   touch 0           -> b1=1 b2=1 b3=0 : victim 2 (true LRU would say 1)
 *   touch 2           -> b1=0 b2=1 b3=1 : victim 1
 *   touch 1           -> b1=1 b2=0 b3=1 : victim 3
 * then with b1=1 b2=0 b3=1, excluding 3 -> 2; excluding 2,3 -> 0; excluding all -> NULL.
 */
static bool not_in_mask(void *ctx, const struct cache_line *l)
{
	const unsigned *excl = ctx;

	return !(excl[1] & (1u << (unsigned)((l->addr >> 12) & 31)));
}

START_TEST(test_plru4)
{
	struct cache *c = mk(512, 4, 128, 0, CACHE_REPL_PLRU);
	unsigned excl[2] = {0, 0};

	ck_assert_uint_eq(fill(c, 0x0000), 0);
	ck_assert_uint_eq(fill(c, 0x1000), 1);
	ck_assert_uint_eq(fill(c, 0x2000), 2);
	ck_assert_uint_eq(fill(c, 0x3000), 3);
	ck_assert_uint_eq(victim_way(c, E), 0);
	touch(c, 0x0000);
	ck_assert_uint_eq(victim_way(c, E), 2);
	touch(c, 0x2000);
	ck_assert_uint_eq(victim_way(c, E), 1);
	touch(c, 0x1000);
	ck_assert_uint_eq(victim_way(c, E), 3);

	excl[1] = 1u << 3; /* line 0x3000 (way 3) pinned: the sibling */
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, E, not_in_mask, excl)), 2);
	excl[1] = (1u << 3) | (1u << 2); /* right subtree pinned: left, b2=0 -> way 0 */
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, E, not_in_mask, excl)), 0);
	excl[1] = (1u << 3) | (1u << 2) | 1u;
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, E, not_in_mask, excl)), 1);
	excl[1] = 0xf;
	ck_assert_ptr_null(cache_victim(c, E, not_in_mask, excl));
	/* with a way invalid, that way wins regardless of exclusions */
	cache_invalidate(c, cache_line_at(c, 0, 2));
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, E, not_in_mask, excl)), 2);
	cache_destroy(c);
}
END_TEST

/*
 * 8-way tree: nodes 1..7, node n has children 2n and 2n+1, leaves 8..15 = ways 0..7.
 *   fill 0..7 in order -> every bit 0                              : victim 0
 *   touch 0 -> b1=1 b2=1 b4=1                                      : 1 -> 3 -> 6 -> way 4
 *   touch 4 -> b6=1 b3=1 b1=0                                      : 1 -> 2 -> 5 -> way 2
 *   touch 2 -> b5=1 b2=0 b1=1                                      : 1 -> 3 -> 7 -> way 6
 *   touch 6 -> b7=1 b3=0 b1=0                                      : 1 -> 2 -> 4 -> way 1
 *   touch 1 -> b4=0 b2=1 b1=1  (bits 1:1 2:1 3:0 4:0 5:1 6:1 7:1)   : 1 -> 3 -> 6 -> way 5
 *     (true LRU would evict way 3 here)
 *   touch 5 -> b6=0 b3=1 b1=0                                      : 1 -> 2 -> 5 -> way 3
 */
START_TEST(test_plru8)
{
	struct cache *c = mk(1024, 8, 128, 0, CACHE_REPL_PLRU);
	static const unsigned seq[][2] = {{0, 4}, {4, 2}, {2, 6}, {6, 1}, {1, 5}, {5, 3}};
	unsigned excl[2] = {0, 0};

	for (unsigned w = 0; w < 8; w++)
		ck_assert_uint_eq(fill(c, (uint64_t)w << 12), w);
	ck_assert_uint_eq(victim_way(c, 0x8000), 0);
	for (unsigned i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		touch(c, (uint64_t)seq[i][0] << 12);
		ck_assert_msg(victim_way(c, 0x8000) == seq[i][1],
			      "after touch %u: victim %u, want %u", seq[i][0],
			      victim_way(c, 0x8000), seq[i][1]);
	}
	/* bits now 1:0 2:1 3:1 4:0 5:1 6:0 7:1; exclude way 3 -> sibling 2; exclude 2,3 -> node 4
	 * (b4=0) way 0; exclude 0..3 -> node 3, b3=1 -> node 7, b7=1 -> way 7 */
	excl[1] = 1u << 3;
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, 0x8000, not_in_mask, excl)), 2);
	excl[1] = 0xc;
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, 0x8000, not_in_mask, excl)), 0);
	excl[1] = 0xf;
	ck_assert_uint_eq(cache_way_of(c, cache_victim(c, 0x8000, not_in_mask, excl)), 7);
	excl[1] = 0xff;
	ck_assert_ptr_null(cache_victim(c, 0x8000, not_in_mask, excl));
	cache_destroy(c);
}
END_TEST

static bool not_pinned(void *ctx, const struct cache_line *l)
{
	(void)ctx;
	return !(l->flags & 1);
}

START_TEST(test_invalid_first_and_pinned)
{
	static const enum cache_repl pol[] = {CACHE_REPL_LRU, CACHE_REPL_PLRU, CACHE_REPL_FIFO};

	for (unsigned p = 0; p < 3; p++) {
		struct cache *c = mk(512, 4, 128, 0, pol[p]);
		struct cache_line *l;

		fill(c, A);
		fill(c, B);
		fill(c, C);
		fill(c, D);
		/* way 0 (A) is the victim of every policy here; invalidate 2: 2 goes first */
		ck_assert_uint_eq(victim_way(c, E), 0);
		cache_invalidate(c, cache_lookup(c, C));
		ck_assert_ptr_null(cache_lookup(c, C));
		ck_assert_uint_eq(victim_way(c, E), 2);
		/* a controller clearing the state itself: lowest invalid way, and no stale hit */
		cache_lookup(c, B)->state = 0;
		ck_assert_ptr_null(cache_lookup(c, B));
		ck_assert_uint_eq(victim_way(c, E), 1);
		ck_assert_uint_eq(fill(c, E), 1);
		ck_assert_uint_eq(fill(c, B), 2);
		ck_assert_ptr_nonnull(cache_lookup(c, B));
		ck_assert_uint_eq(cache_way_of(c, cache_lookup(c, B)), 2);

		/* ways: A E B D. LRU/FIFO order A D E B; PLRU bits b1=0 b2=0 b3=1. Victim A for
		 * all; with A pinned LRU/FIFO take D (way 3), PLRU stays left (way 1 evictable)
		 * and takes E (way 1). Then everything pinned. */
		l = cache_lookup(c, A);
		ck_assert_ptr_eq(cache_victim(c, C, NULL, NULL), l);
		ck_assert_ptr_eq(cache_victim(c, C, not_pinned, NULL), l);
		l->flags = 1;
		ck_assert_ptr_eq(cache_victim(c, C, NULL, NULL), l); /* NULL filter: all */
		ck_assert_uint_eq(cache_way_of(c, cache_victim(c, C, not_pinned, NULL)),
				  pol[p] == CACHE_REPL_PLRU ? 1 : 3);
		for (unsigned w = 0; w < 4; w++)
			cache_line_at(c, 0, w)->flags = 1;
		ck_assert_ptr_null(cache_victim(c, C, not_pinned, NULL));
		cache_destroy(c);
	}
}
END_TEST

/* Reference LRU / FIFO: per set, ways ordered oldest first. */
/* Reference tree-PLRU over plain arrays (node n: children 2n, 2n+1; leaves assoc + way;
 * bit 1 = the victim is on the right), for every tree size including several words of bits. */
static bool ref_any(const bool *elig, unsigned lo, unsigned n)
{
	for (unsigned w = lo; w < lo + n; w++)
		if (elig[w])
			return true;
	return false;
}

static unsigned ref_plru_victim(const bool *bits, const bool *elig, unsigned assoc)
{
	unsigned node = 1, lo = 0, n = assoc;

	while (n > 1) {
		unsigned half = n / 2, right = bits[node];

		if (!ref_any(elig, lo + right * half, half))
			right = !right;
		lo += right * half;
		node = 2 * node + right;
		n = half;
	}
	return lo;
}

START_TEST(test_plru_random_vs_reference)
{
	static const unsigned assocs[] = {1, 2, 4, 8, 16, 64, 128, 256};
	uint64_t rng = 77;

	for (unsigned ai = 0; ai < sizeof(assocs) / sizeof(assocs[0]); ai++) {
		unsigned assoc = assocs[ai];
		struct cache *c = mk((uint64_t)assoc * 64, assoc, 64, 0, CACHE_REPL_PLRU);
		bool bits[512] = {false}, elig[256];
		unsigned mru = 0;

		for (unsigned op = 0; op < 20000; op++) {
			uint64_t a = (rng_next(&rng) % (2 * assoc)) * 64;
			struct cache_line *l = cache_lookup(c, a);
			unsigned way, want, node;
			bool any = false;

			if (!l) {
				bool pin = rng_next(&rng) % 2;

				/* pin a random subset (sometimes every way) */
				for (unsigned w = 0; w < assoc; w++) {
					struct cache_line *x = cache_line_at(c, 0, w);

					x->flags = pin && rng_next(&rng) % 8 < (op % 9);
					elig[w] = !x->flags;
					any |= elig[w];
				}
				l = cache_victim(c, a, pin ? not_pinned : NULL, NULL);
				if (cache_line_at(c, 0, assoc - 1)->state == 0) {
					/* filling up: lowest invalid way */
					if (!l || l->state != 0)
						ck_abort_msg("assoc %u op %u: no invalid way",
							     assoc, op);
				} else {
					if (!pin)
						for (unsigned w = 0; w < assoc; w++)
							elig[w] = true;
					if (pin && !any) {
						if (l)
							ck_abort_msg(
							    "assoc %u: victim with all pinned",
							    assoc);
						continue;
					}
					want = ref_plru_victim(bits, elig, assoc);
					if (!l || cache_way_of(c, l) != want)
						ck_abort_msg("assoc %u op %u: victim %u, want %u",
							     assoc, op,
							     l ? cache_way_of(c, l) : 9999, want);
					if (!pin && assoc > 1 && want == mru)
						ck_abort_msg("assoc %u op %u: evicting the MRU way",
							     assoc, op);
				}
				cache_install(c, l, a, 1);
			} else {
				cache_touch(c, l);
			}
			way = cache_way_of(c, l);
			mru = way;
			for (node = assoc + way; node > 1; node /= 2)
				bits[node / 2] = node % 2 == 0;
		}
		cache_destroy(c);
	}
}
END_TEST

START_TEST(test_lru_fifo_random_vs_reference)
{
	for (unsigned p = 0; p < 2; p++) {
		enum cache_repl pol = p ? CACHE_REPL_FIFO : CACHE_REPL_LRU;
		struct cache *c = mk(4 * 8 * 64, 8, 64, 0, pol); /* 4 sets x 8 ways */
		uint64_t ref_addr[4][8];
		unsigned ref_n[4] = {0};
		uint64_t rng = 99 + p;
		unsigned hits = 0;

		for (unsigned op = 0; op < 200000; op++) {
			uint64_t a = (rng_next(&rng) % 64) * 64 + (rng_next(&rng) % 64);
			uint64_t la = a & ~63ull;
			unsigned s = (unsigned)((a >> 6) & 3), pos = 0;
			struct cache_line *l = cache_lookup(c, a);
			bool ref_hit = false;

			for (pos = 0; pos < ref_n[s]; pos++)
				if (ref_addr[s][pos] == la) {
					ref_hit = true;
					break;
				}
			if (ref_hit != (l != NULL))
				ck_abort_msg("op %u: hit %d, reference %d", op, l != NULL, ref_hit);
			if (l) {
				hits++;
				cache_touch(c, l);
				if (pol == CACHE_REPL_LRU) {
					memmove(&ref_addr[s][pos], &ref_addr[s][pos + 1],
						(ref_n[s] - pos - 1) * sizeof(uint64_t));
					ref_addr[s][ref_n[s] - 1] = la;
				}
				continue;
			}
			l = cache_victim(c, a, NULL, NULL);
			if (ref_n[s] == 8) {
				if (l->state == 0 || l->addr != ref_addr[s][0])
					ck_abort_msg("op %u: victim %#llx, reference %#llx", op,
						     (unsigned long long)l->addr,
						     (unsigned long long)ref_addr[s][0]);
				memmove(&ref_addr[s][0], &ref_addr[s][1], 7 * sizeof(uint64_t));
				ref_n[s]--;
			} else if (l->state != 0) {
				ck_abort_msg("op %u: evicted with a free way", op);
			}
			cache_install(c, l, a, 1);
			ref_addr[s][ref_n[s]++] = la;
		}
		ck_assert_uint_gt(hits, 50000);
		ck_assert_uint_lt(hits, 150000);
		cache_destroy(c);
	}
}
END_TEST

/* ---- install, sectors, digest --------------------------------------------------------------- */

START_TEST(test_install_clears)
{
	struct cache *c = mk(4096, 4, 128, 32, CACHE_REPL_LRU);
	struct cache_line *l = cache_victim(c, 0x1234, NULL, NULL);

	cache_install(c, l, 0x1234, 3);
	ck_assert_uint_eq(l->addr, 0x1200);
	ck_assert_uint_eq(l->state, 3);
	l->valid_sectors = 0x5;
	l->dirty_sectors = 0x4;
	l->flags = 0x80;
	l->meta[0] = 11;
	l->meta[1] = 12;
	memset(l->data, 0xab, 128);
	cache_invalidate(c, l);
	ck_assert_uint_eq(l->state, 0);
	ck_assert_ptr_null(cache_lookup(c, 0x1200));
	cache_install(c, l, 0x9200, 2);
	ck_assert_uint_eq(l->valid_sectors, 0);
	ck_assert_uint_eq(l->dirty_sectors, 0);
	ck_assert_uint_eq(l->flags, 0);
	ck_assert_uint_eq(l->meta[0] | l->meta[1], 0);
	for (unsigned b = 0; b < 128; b++)
		ck_assert_uint_eq(l->data[b], 0);
	ck_assert_ptr_eq(cache_lookup(c, 0x927f), l);
	cache_destroy(c);
}
END_TEST

static void script(struct cache *c, unsigned extra_touches)
{
	fill(c, 0x000);
	fill(c, 0x800);
	fill(c, 0x080);
	for (unsigned i = 0; i < extra_touches; i++)
		touch(c, 0x080); /* the only line of its set: the order does not change */
	touch(c, 0x000);
	cache_lookup(c, 0x800)->meta[0] = 42;
	cache_lookup(c, 0x000)->data[5] = 7;
}

START_TEST(test_digest)
{
	static const enum cache_repl pol[] = {CACHE_REPL_LRU, CACHE_REPL_PLRU, CACHE_REPL_FIFO};

	for (unsigned p = 0; p < 3; p++) {
		struct cache *x = mk(2048, 2, 128, 0, pol[p]); /* 8 sets x 2 ways */
		struct cache *y = mk(2048, 2, 128, 0, pol[p]);
		struct cache_line *l;
		uint64_t d;

		ck_assert_uint_eq(cache_digest(x), cache_digest(y));
		script(x, 0);
		script(y, 0);
		d = cache_digest(x);
		ck_assert_uint_eq(d, cache_digest(y));
		{
			struct cache *z = mk(2048, 2, 128, 0, pol[p]);

			ck_assert_uint_ne(d, cache_digest(z));
			cache_destroy(z);
		}

		/* each field of a valid line counts */
		l = cache_lookup(y, 0x800);
		l->state = 2;
		ck_assert_uint_ne(cache_digest(y), d);
		l->state = 1;
		ck_assert_uint_eq(cache_digest(y), d);
		l->valid_sectors = 1;
		ck_assert_uint_ne(cache_digest(y), d);
		l->valid_sectors = 0;
		l->dirty_sectors = 1;
		ck_assert_uint_ne(cache_digest(y), d);
		l->dirty_sectors = 0;
		l->meta[1] = 1;
		ck_assert_uint_ne(cache_digest(y), d);
		l->meta[1] = 0;
		l->data[127] ^= 1;
		ck_assert_uint_ne(cache_digest(y), d);
		l->data[127] ^= 1;
		ck_assert_uint_eq(cache_digest(y), d);

		/* replacement state counts (FIFO: a touch is not a change) */
		touch(y, 0x800);
		if (pol[p] == CACHE_REPL_FIFO)
			ck_assert_uint_eq(cache_digest(y), d);
		else
			ck_assert_uint_ne(cache_digest(y), d);
		cache_destroy(y);

		/* same order reached with a different number of touches: same digest */
		y = mk(2048, 2, 128, 0, pol[p]);
		script(y, 5);
		ck_assert_uint_eq(cache_digest(y), d);
		cache_destroy(y);
		cache_destroy(x);
	}
}
END_TEST

/* ---- MSHR ----------------------------------------------------------------------------------- */

struct tgt {
	uint32_t lane;
	uint64_t tag;
	uint8_t pad[3];
};

START_TEST(test_mshr_create_validation)
{
	struct mshr_table *t = (struct mshr_table *)1;

	ck_assert_int_eq(mshr_create(0, 8, 16, &t), -CS_EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(mshr_create(8, 0, 16, &t), -CS_EINVAL);
	ck_assert_int_eq(mshr_create(8, 8, 0, &t), -CS_EINVAL);
	ck_assert_int_eq(mshr_create(64, 8, sizeof(struct tgt), &t), 0);
	ck_assert_uint_eq(mshr_capacity(t), 64);
	ck_assert_uint_eq(mshr_max_merge(t), 8);
	mshr_destroy(t);
	mshr_destroy(NULL);
}
END_TEST

START_TEST(test_mshr_basic)
{
	struct mshr_table *t;
	struct mshr_entry *e[8];

	ck_assert_int_eq(mshr_create(8, 4, sizeof(struct tgt), &t), 0);
	ck_assert(!mshr_full(t));
	for (unsigned i = 0; i < 8; i++) {
		e[i] = mshr_alloc(t, 0x1000ull * (i + 1));
		ck_assert_ptr_nonnull(e[i]);
		ck_assert_uint_eq(mshr_index(t, e[i]), i);
		ck_assert_uint_eq(mshr_line(e[i]), 0x1000ull * (i + 1));
		ck_assert_uint_eq(mshr_targets(e[i]), 0);
		ck_assert_uint_eq(mshr_used(t), i + 1);
		mshr_user(e[i])[0] = 0xdead;
		mshr_user(e[i])[3] = i;
	}
	ck_assert(mshr_full(t));
	ck_assert_ptr_null(mshr_alloc(t, 0x99000));
	ck_assert_uint_eq(mshr_used(t), 8);
	for (unsigned i = 0; i < 8; i++) {
		ck_assert_ptr_eq(mshr_find(t, 0x1000ull * (i + 1)), e[i]);
		ck_assert_ptr_eq(mshr_at(t, i), e[i]);
	}
	ck_assert_ptr_null(mshr_find(t, 0x9000));
	ck_assert_ptr_null(mshr_find(t, 0));
	ck_assert_ptr_null(mshr_at(t, 8));

	/* merge up to max_merge, then refuse; records copied, in arrival order */
	for (unsigned k = 0; k < 4; k++) {
		struct tgt x = {.lane = k, .tag = 100 + k};

		ck_assert(mshr_merge(t, e[2], &x));
		x.lane = 77; /* the table kept a copy */
	}
	{
		struct tgt x = {.lane = 9, .tag = 9};

		ck_assert(!mshr_merge(t, e[2], &x));
	}
	ck_assert_uint_eq(mshr_targets(e[2]), 4);
	for (unsigned k = 0; k < 4; k++) {
		struct tgt *r = mshr_target(e[2], k);

		ck_assert_uint_eq(r->lane, k);
		ck_assert_uint_eq(r->tag, 100 + k);
		ck_assert_uint_eq((uintptr_t)r % _Alignof(max_align_t), 0);
	}
	/* other entries' targets are separate */
	{
		struct tgt x = {.lane = 31, .tag = 5};

		ck_assert(mshr_merge(t, e[3], &x));
		ck_assert_uint_eq(((struct tgt *)mshr_target(e[2], 3))->tag, 103);
		ck_assert_uint_eq(((struct tgt *)mshr_target(e[3], 0))->lane, 31);
	}

	/* free and reuse: lowest free index, empty targets, zeroed user words */
	mshr_free(t, e[5]);
	mshr_free(t, e[2]);
	ck_assert_uint_eq(mshr_used(t), 6);
	ck_assert(!mshr_full(t));
	ck_assert_ptr_null(mshr_at(t, 2));
	ck_assert_ptr_null(mshr_at(t, 5));
	ck_assert_ptr_null(mshr_find(t, 0x3000));
	ck_assert_ptr_null(mshr_find(t, 0x6000));
	e[2] = mshr_alloc(t, 0x6000); /* the line freed from index 5, now at index 2 */
	ck_assert_uint_eq(mshr_index(t, e[2]), 2);
	ck_assert_uint_eq(mshr_targets(e[2]), 0);
	for (unsigned u = 0; u < MSHR_USER_WORDS; u++)
		ck_assert_uint_eq(mshr_user(e[2])[u], 0);
	ck_assert_ptr_eq(mshr_find(t, 0x6000), e[2]);
	e[5] = mshr_alloc(t, 0x3000);
	ck_assert_uint_eq(mshr_index(t, e[5]), 5);
	ck_assert(mshr_full(t));
	/* untouched entries kept their index and state */
	ck_assert_ptr_eq(mshr_at(t, 7), e[7]);
	ck_assert_uint_eq(mshr_user(e[7])[3], 7);
	ck_assert_uint_eq(mshr_targets(e[3]), 1);
	mshr_destroy(t);
}
END_TEST

/* Random alloc/find/merge/free against a reference (array of lines, lowest free index), with
 * lines that share hash buckets; two tables fed the same sequence give the same indices. */
START_TEST(test_mshr_random_vs_reference)
{
	enum { N = 100, M = 3 };
	struct mshr_table *t, *u;
	uint64_t ref_line[N];
	unsigned ref_tg[N];
	bool ref_used[N] = {false};
	unsigned used = 0;
	uint64_t rng = 5;

	ck_assert_int_eq(mshr_create(N, M, sizeof(uint64_t), &t), 0);
	ck_assert_int_eq(mshr_create(N, M, sizeof(uint64_t), &u), 0);
	for (unsigned op = 0; op < 300000; op++) {
		/* 256 distinct lines, far apart: 1 MiB strides */
		uint64_t line = (rng_next(&rng) % 256) << 20;
		unsigned r = (unsigned)(rng_next(&rng) % 4), idx = N;
		struct mshr_entry *e = mshr_find(t, line);

		for (unsigned i = 0; i < N; i++)
			if (ref_used[i] && ref_line[i] == line)
				idx = i;
		if ((e == NULL) != (idx == N) || (e && mshr_index(t, e) != idx))
			ck_abort_msg("op %u: find %p, reference index %u", op, (void *)e, idx);
		if ((mshr_find(u, line) == NULL) != (e == NULL))
			ck_abort_msg("op %u: the twin table differs", op);
		if (!e) {
			unsigned want = 0;

			while (want < N && ref_used[want])
				want++;
			e = mshr_alloc(t, line);
			if (want == N) {
				if (e || !mshr_full(t) || mshr_alloc(u, line))
					ck_abort_msg("op %u: alloc while full", op);
				continue;
			}
			if (!e || mshr_index(t, e) != want)
				ck_abort_msg("op %u: alloc index %u, want %u", op,
					     e ? mshr_index(t, e) : N, want);
			if (mshr_index(u, mshr_alloc(u, line)) != want)
				ck_abort_msg("op %u: twin alloc index differs", op);
			ref_used[want] = true;
			ref_line[want] = line;
			ref_tg[want] = 0;
			used++;
			idx = want;
		}
		if (r < 2) {
			uint64_t v = ((uint64_t)op << 8) | ref_tg[idx];
			bool ok = mshr_merge(t, e, &v);

			if (ok != (ref_tg[idx] < M))
				ck_abort_msg("op %u: merge %d with %u targets", op, ok,
					     ref_tg[idx]);
			if (ok)
				ref_tg[idx]++;
		} else if (r == 2) {
			struct mshr_entry *f = mshr_find(u, line);

			if (mshr_targets(e) != ref_tg[idx])
				ck_abort_msg("op %u: %u targets, want %u", op, mshr_targets(e),
					     ref_tg[idx]);
			for (unsigned k = 0; k < mshr_targets(e); k++)
				if ((*(uint64_t *)mshr_target(e, k) & 0xff) != k)
					ck_abort_msg("op %u: target %u out of order", op, k);
			mshr_free(t, e);
			mshr_free(u, f);
			ref_used[idx] = false;
			used--;
		}
		if (mshr_used(t) != used || mshr_used(u) != used)
			ck_abort_msg("op %u: used %u, want %u", op, mshr_used(t), used);
	}
	for (unsigned i = 0; i < N; i++)
		if ((mshr_at(t, i) != NULL) != ref_used[i])
			ck_abort_msg("index %u: mshr_at disagrees", i);
	mshr_destroy(t);
	mshr_destroy(u);
}
END_TEST

static Suite *cache_suite(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("array");

	tcase_add_test(tc, test_geometry_validation);
	tcase_add_test(tc, test_sets_map);
	tcase_add_test(tc, test_banked_index);
	tcase_add_test(tc, test_for_each_and_invalidate_all);
	tcase_add_test(tc, test_install_clears);
	tcase_add_test(tc, test_digest);
	suite_add_tcase(s, tc);

	tc = tcase_create("replacement");
	tcase_add_test(tc, test_lru_scripted);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_plru4);
	tcase_add_test(tc, test_plru8);
	tcase_add_test(tc, test_invalid_first_and_pinned);
	tcase_add_test(tc, test_lru_fifo_random_vs_reference);
	tcase_add_test(tc, test_plru_random_vs_reference);
	suite_add_tcase(s, tc);

	tc = tcase_create("mshr");
	tcase_add_test(tc, test_mshr_create_validation);
	tcase_add_test(tc, test_mshr_basic);
	tcase_add_test(tc, test_mshr_random_vs_reference);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cache_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
