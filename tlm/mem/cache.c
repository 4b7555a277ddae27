/*
 * tlm/mem/cache.c - set-associative cache array (see cache.h).
 *
 * Layout: tags[] holds the line address of every way, set after set, so a lookup is a compare
 * loop over one contiguous run of assoc words; a tag match also needs state != 0 (the state
 * byte is the truth: a controller that clears it directly leaves a stale tag that never hits).
 * LRU and FIFO share stamp[] (a per-cache counter value: last touch, or insertion); PLRU keeps
 * assoc - 1 tree bits per set, heap-numbered from node 1 (children 2n, 2n+1, leaves assoc + way);
 * a bit of 0 says "the pseudo-LRU way is in the left subtree", 1 the right one.
 */
#include "tlm/mem/cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define TAG_NONE UINT64_MAX

struct cache {
	struct cache_geom g;
	unsigned sets;
	unsigned assoc;
	unsigned line_shift;
	unsigned chunk_lines_shift; /* banked: log2 of lines per interleave chunk */
	unsigned bank_shift;	    /* banked with a power-of-two bank count: log2 of it, else 0 */
	unsigned nsectors;
	unsigned plru_words; /* uint64_t words of tree bits per set (PLRU) */
	uint8_t all_sectors;
	uint64_t line_mask; /* line_bytes - 1 */
	uint64_t clock;	    /* LRU/FIFO stamp source */
	uint64_t *tags;	    /* sets * assoc line addresses, TAG_NONE when never installed */
	uint64_t *stamp;    /* sets * assoc (LRU, FIFO) */
	uint64_t *plru;	    /* sets * plru_words (PLRU) */
	uint64_t *elig;	    /* plru_words: evictable ways while a PLRU victim is chosen */
	struct cache_line *lines;
	uint8_t *data;
};

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static unsigned log2u(uint64_t x)
{
	unsigned s = 0;

	while ((1ull << s) < x)
		s++;
	return s;
}

int cache_create(const struct cache_geom *g, struct cache **out)
{
	struct cache *c;
	uint64_t set_bytes, sets, nlines;
	unsigned nsectors = 1;

	*out = NULL;
	if (!g || g->assoc < 1 || !is_pow2(g->line_bytes))
		return -CS_EINVAL;
	if (g->repl != CACHE_REPL_LRU && g->repl != CACHE_REPL_PLRU && g->repl != CACHE_REPL_FIFO)
		return -CS_EINVAL;
	if (g->repl == CACHE_REPL_PLRU && !is_pow2(g->assoc))
		return -CS_EINVAL;
	if (g->sector_bytes) {
		if (g->sector_bytes > g->line_bytes || g->line_bytes % g->sector_bytes)
			return -CS_EINVAL;
		nsectors = g->line_bytes / g->sector_bytes;
		if (nsectors > CACHE_MAX_SECTORS)
			return -CS_EINVAL;
	}
	set_bytes = (uint64_t)g->assoc * g->line_bytes;
	if (g->size_bytes == 0 || g->size_bytes % set_bytes)
		return -CS_EINVAL;
	sets = g->size_bytes / set_bytes;
	nlines = sets * g->assoc;
	if (!is_pow2(sets) || sets > UINT32_MAX || nlines > UINT32_MAX ||
	    g->size_bytes > SIZE_MAX / 2)
		return -CS_EINVAL;
	if (g->index_banks > 1 &&
	    (g->index_chunk_shift < log2u(g->line_bytes) || g->index_chunk_shift > 40))
		return -CS_EINVAL;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -CS_ENOMEM;
	c->g = *g;
	c->sets = (unsigned)sets;
	c->assoc = g->assoc;
	c->line_shift = log2u(g->line_bytes);
	c->line_mask = g->line_bytes - 1;
	if (g->index_banks > 1) {
		c->chunk_lines_shift = g->index_chunk_shift - c->line_shift;
		c->bank_shift = is_pow2(g->index_banks) ? log2u(g->index_banks) : 0;
	}
	c->nsectors = nsectors;
	c->all_sectors = g->sector_bytes ? (uint8_t)((1u << nsectors) - 1) : CACHE_ALL_SECTORS;
	c->plru_words = (g->assoc + 63) / 64;

	c->tags = malloc(nlines * sizeof(*c->tags));
	c->lines = calloc(nlines, sizeof(*c->lines));
	c->data = g->tags_only ? NULL : calloc(nlines, g->line_bytes);
	if (!c->tags || !c->lines || (!g->tags_only && !c->data))
		goto fail;
	if (g->repl == CACHE_REPL_PLRU) {
		c->plru = calloc(sets * c->plru_words, sizeof(*c->plru));
		c->elig = calloc(c->plru_words, sizeof(*c->elig));
		if (!c->plru || !c->elig)
			goto fail;
	} else {
		c->stamp = calloc(nlines, sizeof(*c->stamp));
		if (!c->stamp)
			goto fail;
	}
	for (uint64_t i = 0; i < nlines; i++) {
		c->tags[i] = TAG_NONE;
		c->lines[i].data = c->data ? c->data + i * g->line_bytes : NULL;
	}
	*out = c;
	return 0;
fail:
	cache_destroy(c);
	return -CS_ENOMEM;
}

void cache_destroy(struct cache *c)
{
	if (!c)
		return;
	free(c->tags);
	free(c->stamp);
	free(c->plru);
	free(c->elig);
	free(c->lines);
	free(c->data);
	free(c);
}

const struct cache_geom *cache_geometry(const struct cache *c)
{
	return &c->g;
}

unsigned cache_sets(const struct cache *c)
{
	return c->sets;
}

unsigned cache_sectors(const struct cache *c)
{
	return c->nsectors;
}

uint8_t cache_all_sectors(const struct cache *c)
{
	return c->all_sectors;
}

uint64_t cache_line_addr(const struct cache *c, uint64_t addr)
{
	return addr & ~c->line_mask;
}

/* The line number the set index is taken from: the global one, or a bank's local one. */
static inline uint64_t index_line(const struct cache *c, uint64_t addr)
{
	uint64_t line = addr >> c->line_shift, chunk, in_chunk;

	if (c->g.index_banks <= 1)
		return line;
	chunk = line >> c->chunk_lines_shift;
	in_chunk = line & ((UINT64_C(1) << c->chunk_lines_shift) - 1);
	chunk = c->bank_shift ? chunk >> c->bank_shift : chunk / c->g.index_banks;
	return chunk << c->chunk_lines_shift | in_chunk;
}

unsigned cache_set_of(const struct cache *c, uint64_t addr)
{
	return (unsigned)(index_line(c, addr) & (c->sets - 1));
}

static size_t line_index(const struct cache *c, const struct cache_line *l)
{
	size_t i = (size_t)(l - c->lines);

	assert(l >= c->lines && i < (size_t)c->sets * c->assoc);
	return i;
}

size_t cache_lines(const struct cache *c)
{
	return (size_t)c->sets * c->assoc;
}

size_t cache_line_index(const struct cache *c, const struct cache_line *l)
{
	return (size_t)line_index(c, l);
}

unsigned cache_way_of(const struct cache *c, const struct cache_line *l)
{
	return (unsigned)(line_index(c, l) % c->assoc);
}

struct cache_line *cache_line_at(struct cache *c, unsigned set, unsigned way)
{
	assert(set < c->sets && way < c->assoc);
	return &c->lines[(size_t)set * c->assoc + way];
}

struct cache_line *cache_lookup(struct cache *c, uint64_t addr)
{
	uint64_t la = addr & ~c->line_mask;
	size_t base = (size_t)cache_set_of(c, addr) * c->assoc;
	const uint64_t *t = c->tags + base;

	for (unsigned w = 0; w < c->assoc; w++)
		if (t[w] == la && c->lines[base + w].state)
			return &c->lines[base + w];
	return NULL;
}

/* ---- tree pseudo-LRU ------------------------------------------------------------------------ */

static inline unsigned plru_bit(const uint64_t *bits, unsigned node)
{
	return (unsigned)(bits[node >> 6] >> (node & 63)) & 1u;
}

static inline void plru_set(uint64_t *bits, unsigned node, unsigned v)
{
	uint64_t m = 1ull << (node & 63);

	if (v)
		bits[node >> 6] |= m;
	else
		bits[node >> 6] &= ~m;
}

/* Point every node on way's path away from it. */
static void plru_touch(struct cache *c, unsigned set, unsigned way)
{
	uint64_t *bits = c->plru + (size_t)set * c->plru_words;
	unsigned n = c->assoc + way;

	while (n > 1) {
		/* came from the left child (even n): the victim side is the right one */
		plru_set(bits, n >> 1, !(n & 1));
		n >>= 1;
	}
}

/* Any evictable way in [lo, lo + n)? n is a power of two and lo a multiple of n. */
static bool elig_any(const uint64_t *e, unsigned lo, unsigned n)
{
	if (n >= 64) {
		for (unsigned w = lo >> 6; w < (lo + n) >> 6; w++)
			if (e[w])
				return true;
		return false;
	}
	return (e[lo >> 6] >> (lo & 63)) & ((1ull << n) - 1);
}

static unsigned plru_victim(const struct cache *c, unsigned set, const uint64_t *elig)
{
	const uint64_t *bits = c->plru + (size_t)set * c->plru_words;
	unsigned node = 1, lo = 0, n = c->assoc;

	while (node < c->assoc) {
		unsigned b = plru_bit(bits, node), half = n >> 1;

		if (elig && !elig_any(elig, lo + b * half, half))
			b ^= 1;
		node = 2 * node + b;
		lo += b * half;
		n = half;
	}
	return node - c->assoc;
}

/* ---- replacement ---------------------------------------------------------------------------- */

void cache_touch(struct cache *c, struct cache_line *l)
{
	size_t i = line_index(c, l);

	switch (c->g.repl) {
	case CACHE_REPL_LRU:
		c->stamp[i] = ++c->clock;
		break;
	case CACHE_REPL_PLRU:
		plru_touch(c, (unsigned)(i / c->assoc), (unsigned)(i % c->assoc));
		break;
	case CACHE_REPL_FIFO:
		break;
	}
}

struct cache_line *cache_victim(struct cache *c, uint64_t addr,
				bool (*may_evict)(void *ctx, const struct cache_line *l), void *ctx)
{
	unsigned set = cache_set_of(c, addr);
	size_t base = (size_t)set * c->assoc;
	struct cache_line *ls = c->lines + base;

	for (unsigned w = 0; w < c->assoc; w++)
		if (!ls[w].state)
			return &ls[w];

	if (c->g.repl == CACHE_REPL_PLRU) {
		bool any = false;

		if (!may_evict)
			return &ls[plru_victim(c, set, NULL)];
		memset(c->elig, 0, c->plru_words * sizeof(*c->elig));
		for (unsigned w = 0; w < c->assoc; w++) {
			if (may_evict(ctx, &ls[w])) {
				c->elig[w >> 6] |= 1ull << (w & 63);
				any = true;
			}
		}
		return any ? &ls[plru_victim(c, set, c->elig)] : NULL;
	}

	/* LRU and FIFO: smallest stamp (last touch / insertion) among the evictable ways */
	{
		const uint64_t *st = c->stamp + base;
		struct cache_line *best = NULL;
		uint64_t best_st = 0;

		for (unsigned w = 0; w < c->assoc; w++) {
			if ((best && st[w] >= best_st) || (may_evict && !may_evict(ctx, &ls[w])))
				continue;
			best = &ls[w];
			best_st = st[w];
		}
		return best;
	}
}

void cache_install(struct cache *c, struct cache_line *l, uint64_t addr, uint8_t state)
{
	size_t i = line_index(c, l);
	uint64_t la = addr & ~c->line_mask;

	assert(state != 0);
	assert(i / c->assoc == cache_set_of(c, addr));
	c->tags[i] = la;
	l->addr = la;
	l->state = state;
	l->valid_sectors = 0;
	l->dirty_sectors = 0;
	l->flags = 0;
	l->meta[0] = 0;
	l->meta[1] = 0;
	if (l->data)
		memset(l->data, 0, c->g.line_bytes);
	switch (c->g.repl) {
	case CACHE_REPL_LRU:
	case CACHE_REPL_FIFO:
		c->stamp[i] = ++c->clock;
		break;
	case CACHE_REPL_PLRU:
		plru_touch(c, (unsigned)(i / c->assoc), (unsigned)(i % c->assoc));
		break;
	}
}

void cache_invalidate(struct cache *c, struct cache_line *l)
{
	size_t i = line_index(c, l);

	c->tags[i] = TAG_NONE;
	l->state = 0;
	l->valid_sectors = 0;
	l->dirty_sectors = 0;
	l->flags = 0;
	l->meta[0] = 0;
	l->meta[1] = 0;
}

void cache_invalidate_all(struct cache *c)
{
	size_t n = (size_t)c->sets * c->assoc;

	for (size_t i = 0; i < n; i++)
		cache_invalidate(c, &c->lines[i]);
	if (c->stamp)
		memset(c->stamp, 0, n * sizeof(*c->stamp));
	if (c->plru)
		memset(c->plru, 0, (size_t)c->sets * c->plru_words * sizeof(*c->plru));
}

void cache_for_each(struct cache *c, void (*fn)(void *ctx, struct cache_line *l), void *ctx)
{
	size_t n = (size_t)c->sets * c->assoc;

	for (size_t i = 0; i < n; i++)
		if (c->lines[i].state)
			fn(ctx, &c->lines[i]);
}

/* ---- digest --------------------------------------------------------------------------------- */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= FNV_PRIME;
	}
	return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++) {
		h ^= (uint8_t)(v >> (8 * i));
		h *= FNV_PRIME;
	}
	return h;
}

uint64_t cache_digest(const struct cache *c)
{
	uint64_t h = FNV_OFFSET;

	for (unsigned s = 0; s < c->sets; s++) {
		size_t base = (size_t)s * c->assoc;

		for (unsigned w = 0; w < c->assoc; w++) {
			const struct cache_line *l = &c->lines[base + w];

			if (!l->state)
				continue;
			h = fnv_u64(h, s);
			h = fnv_u64(h, w);
			h = fnv_u64(h, l->addr);
			h = fnv_u64(h, (uint64_t)l->state | (uint64_t)l->valid_sectors << 8 |
					   (uint64_t)l->dirty_sectors << 16 |
					   (uint64_t)l->flags << 24);
			h = fnv_u64(h, l->meta[0]);
			h = fnv_u64(h, l->meta[1]);
			if (l->data)
				h = fnv_bytes(h, l->data, c->g.line_bytes);
			if (c->stamp) {
				/* rank among the valid ways: the order, not the clock value */
				uint64_t rank = 0;

				for (unsigned v = 0; v < c->assoc; v++)
					if (c->lines[base + v].state &&
					    c->stamp[base + v] < c->stamp[base + w])
						rank++;
				h = fnv_u64(h, rank);
			}
		}
		if (c->plru)
			for (unsigned i = 0; i < c->plru_words; i++)
				h = fnv_u64(h, c->plru[(size_t)s * c->plru_words + i]);
	}
	return h;
}
