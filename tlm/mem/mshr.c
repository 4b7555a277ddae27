/*
 * tlm/mem/mshr.c - miss status holding registers (see mshr.h).
 *
 * Entries live in one array; the free ones are bits of free_map (lowest set bit = next index).
 * The allocated ones are chained from a power-of-two bucket array (>= 2 buckets per entry)
 * hashed on the line address. Target records live in one block: entry i's records start at
 * i * max_merge * stride.
 */
#include "tlm/mem/mshr.h"

#include <assert.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define NIL UINT32_MAX

struct mshr_entry {
	uint64_t line;
	uint64_t user[MSHR_USER_WORDS];
	uint8_t *tgt;  /* this entry's target records */
	size_t stride; /* bytes between records */
	uint32_t ntargets;
	uint32_t next; /* hash chain, NIL at the end */
	bool used;
};

struct mshr_table {
	struct mshr_entry *e;
	uint32_t *bucket;   /* head index per bucket, NIL when empty */
	uint64_t *free_map; /* bit i set: entry i is free */
	uint8_t *targets;
	unsigned entries;
	unsigned max_merge;
	unsigned used;
	unsigned map_words;
	unsigned bucket_shift; /* 64 - log2(buckets) */
	size_t target_bytes;
};

static inline uint32_t bucket_of(const struct mshr_table *t, uint64_t line)
{
	/* Fibonacci hashing: the high bits of the product mix every address bit */
	return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> t->bucket_shift);
}

int mshr_create(unsigned entries, unsigned max_merge, size_t target_bytes, struct mshr_table **out)
{
	struct mshr_table *t;
	size_t align = alignof(max_align_t), stride, nbuckets = 2;
	unsigned shift = 1;

	*out = NULL;
	if (!entries || !max_merge || !target_bytes || entries > (1u << 30) ||
	    target_bytes > SIZE_MAX / 2)
		return -CS_EINVAL;
	stride = (target_bytes + align - 1) / align * align;
	if ((size_t)entries * max_merge > SIZE_MAX / stride)
		return -CS_EINVAL;
	while (nbuckets < 2 * (size_t)entries) {
		nbuckets <<= 1;
		shift++;
	}

	t = calloc(1, sizeof(*t));
	if (!t)
		return -CS_ENOMEM;
	t->entries = entries;
	t->max_merge = max_merge;
	t->target_bytes = target_bytes;
	t->map_words = (entries + 63) / 64;
	t->bucket_shift = 64 - shift;
	t->e = calloc(entries, sizeof(*t->e));
	t->bucket = malloc(nbuckets * sizeof(*t->bucket));
	t->free_map = calloc(t->map_words, sizeof(*t->free_map));
	t->targets = malloc((size_t)entries * max_merge * stride);
	if (!t->e || !t->bucket || !t->free_map || !t->targets) {
		mshr_destroy(t);
		return -CS_ENOMEM;
	}
	for (size_t b = 0; b < nbuckets; b++)
		t->bucket[b] = NIL;
	for (unsigned i = 0; i < entries; i++) {
		t->e[i].tgt = t->targets + (size_t)i * max_merge * stride;
		t->e[i].stride = stride;
		t->e[i].next = NIL;
		t->free_map[i >> 6] |= 1ull << (i & 63);
	}
	*out = t;
	return 0;
}

void mshr_destroy(struct mshr_table *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->bucket);
	free(t->free_map);
	free(t->targets);
	free(t);
}

unsigned mshr_capacity(const struct mshr_table *t)
{
	return t->entries;
}

unsigned mshr_max_merge(const struct mshr_table *t)
{
	return t->max_merge;
}

struct mshr_entry *mshr_find(struct mshr_table *t, uint64_t line_addr)
{
	for (uint32_t i = t->bucket[bucket_of(t, line_addr)]; i != NIL; i = t->e[i].next)
		if (t->e[i].line == line_addr)
			return &t->e[i];
	return NULL;
}

struct mshr_entry *mshr_alloc(struct mshr_table *t, uint64_t line_addr)
{
	struct mshr_entry *e;
	uint32_t b, i;
	unsigned w = 0;

	if (t->used == t->entries)
		return NULL;
	assert(!mshr_find(t, line_addr));
	while (!t->free_map[w])
		w++;
	i = w * 64 + (unsigned)__builtin_ctzll(t->free_map[w]);
	t->free_map[w] &= t->free_map[w] - 1;
	e = &t->e[i];
	e->line = line_addr;
	memset(e->user, 0, sizeof(e->user));
	e->ntargets = 0;
	e->used = true;
	b = bucket_of(t, line_addr);
	e->next = t->bucket[b];
	t->bucket[b] = i;
	t->used++;
	return e;
}

bool mshr_full(const struct mshr_table *t)
{
	return t->used == t->entries;
}

unsigned mshr_used(const struct mshr_table *t)
{
	return t->used;
}

bool mshr_merge(struct mshr_table *t, struct mshr_entry *e, const void *target)
{
	assert(e->used);
	if (e->ntargets >= t->max_merge)
		return false;
	memcpy(e->tgt + e->ntargets * e->stride, target, t->target_bytes);
	e->ntargets++;
	return true;
}

unsigned mshr_targets(const struct mshr_entry *e)
{
	return e->ntargets;
}

void *mshr_target(struct mshr_entry *e, unsigned i)
{
	assert(i < e->ntargets);
	return e->tgt + i * e->stride;
}

void mshr_remove(struct mshr_entry *e, unsigned i)
{
	assert(i < e->ntargets);
	memmove(e->tgt + i * e->stride, e->tgt + (i + 1) * e->stride,
		(e->ntargets - i - 1) * e->stride);
	e->ntargets--;
}

uint64_t mshr_line(const struct mshr_entry *e)
{
	return e->line;
}

unsigned mshr_index(const struct mshr_table *t, const struct mshr_entry *e)
{
	assert(e >= t->e && e < t->e + t->entries);
	return (unsigned)(e - t->e);
}

struct mshr_entry *mshr_at(struct mshr_table *t, unsigned index)
{
	if (index >= t->entries || !t->e[index].used)
		return NULL;
	return &t->e[index];
}

void mshr_free(struct mshr_table *t, struct mshr_entry *e)
{
	uint32_t i = mshr_index(t, e);
	uint32_t *p = &t->bucket[bucket_of(t, e->line)];

	assert(e->used);
	while (*p != i) {
		assert(*p != NIL);
		p = &t->e[*p].next;
	}
	*p = e->next;
	e->next = NIL;
	e->used = false;
	e->ntargets = 0;
	t->free_map[i >> 6] |= 1ull << (i & 63);
	t->used--;
}

uint64_t *mshr_user(struct mshr_entry *e)
{
	return e->user;
}
