/*
 * tlm/mem/cohcheck.c - per-word write order and per-reader progress, in two hash tables.
 */
#include "tlm/mem/cohcheck.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

struct hist {
	uint32_t *v;
	uint32_t n, cap;
};

struct map {
	uint64_t *key; /* key + 1; 0 = empty */
	uint32_t *val;
	size_t cap, used;
};

struct cohcheck {
	struct map words; /* word -> index into hists */
	struct hist *hists;
	size_t nhists, caphists;
	struct map seen; /* (word, reader) -> last version index + 1 */
	uint64_t violations, reads;
	char first[256];
	bool oom;
};

static size_t hslot(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static bool map_grow(struct map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	uint32_t *nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->key[i])
			continue;
		j = hslot(m->key[i], ncap);
		while (nk[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = m->key[i];
		nv[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = nk;
	m->val = nv;
	m->cap = ncap;
	return true;
}

/* The value slot of key, created (zero) when absent; NULL when out of memory. */
static uint32_t *map_get(struct map *m, uint64_t key, bool create)
{
	size_t i;

	key++;
	if (m->cap) {
		for (i = hslot(key, m->cap); m->key[i]; i = (i + 1) & (m->cap - 1))
			if (m->key[i] == key)
				return &m->val[i];
	}
	if (!create)
		return NULL;
	if ((m->used + 1) * 2 > m->cap && !map_grow(m))
		return NULL;
	for (i = hslot(key, m->cap); m->key[i]; i = (i + 1) & (m->cap - 1))
		;
	m->key[i] = key;
	m->val[i] = 0;
	m->used++;
	return &m->val[i];
}

int cohcheck_create(struct cohcheck **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -CS_ENOMEM;
}

void cohcheck_destroy(struct cohcheck *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nhists; i++)
		free(c->hists[i].v);
	free(c->hists);
	free(c->words.key);
	free(c->words.val);
	free(c->seen.key);
	free(c->seen.val);
	free(c);
}

/* The history of a word, created as [0] (memory starts zeroed). */
static struct hist *hist_of(struct cohcheck *c, uint64_t word)
{
	uint32_t *slot = map_get(&c->words, word, true);

	if (!slot)
		return NULL;
	if (!*slot) {
		struct hist *h;

		if (c->nhists == c->caphists) {
			size_t n = c->caphists ? c->caphists * 2 : 1024;
			struct hist *nh = realloc(c->hists, n * sizeof(*nh));

			if (!nh)
				return NULL;
			c->hists = nh;
			c->caphists = n;
		}
		h = &c->hists[c->nhists++];
		memset(h, 0, sizeof(*h));
		h->cap = 4;
		h->v = calloc(h->cap, sizeof(*h->v));
		if (!h->v)
			return NULL;
		h->n = 1; /* version 0: zero */
		*slot = (uint32_t)c->nhists;
	}
	return &c->hists[*slot - 1];
}

static void write_word(struct cohcheck *c, uint64_t word, uint32_t v)
{
	struct hist *h = hist_of(c, word);

	if (!h) {
		c->oom = true;
		return;
	}
	if (h->n == h->cap) {
		uint32_t *nv = realloc(h->v, (size_t)h->cap * 2 * sizeof(*nv));

		if (!nv) {
			c->oom = true;
			return;
		}
		h->v = nv;
		h->cap *= 2;
	}
	h->v[h->n++] = v;
}

void cohcheck_write(struct cohcheck *c, uint64_t addr, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes / 4; i++)
		write_word(c, (addr >> 2) + i, (uint32_t)(v >> (32 * i)));
}

static void violation(struct cohcheck *c, const char *fmt, unsigned who, uint64_t addr, uint32_t v)
{
	if (!c->violations++)
		snprintf(c->first, sizeof(c->first), fmt, who, addr, v);
}

static void read_word(struct cohcheck *c, unsigned who, uint64_t word, uint32_t v)
{
	struct hist *h = hist_of(c, word);
	uint32_t *last = map_get(&c->seen, (word << 20) | (who & 0xfffff), true);
	uint32_t from;

	if (!h || !last) {
		c->oom = true;
		return;
	}
	from = *last ? *last - 1 : 0;
	for (uint32_t j = h->n; j-- > from;)
		if (h->v[j] == v) {
			/* the newest matching write not older than what it saw: most permissive */
			*last = j + 1;
			return;
		}
	for (uint32_t j = 0; j < from; j++)
		if (h->v[j] == v) {
			violation(c,
				  "reader %u read an older value of %#" PRIx64
				  " (%u) than it had seen",
				  who, word << 2, v);
			return;
		}
	violation(c, "reader %u read %#" PRIx64 " = %u, a value no write produced", who, word << 2,
		  v);
}

void cohcheck_read(struct cohcheck *c, unsigned who, uint64_t addr, unsigned bytes, uint64_t v)
{
	c->reads++;
	for (unsigned i = 0; i < bytes / 4; i++)
		read_word(c, who, (addr >> 2) + i, (uint32_t)(v >> (32 * i)));
}

uint64_t cohcheck_violations(const struct cohcheck *c)
{
	return c->violations;
}

uint64_t cohcheck_reads(const struct cohcheck *c)
{
	return c->reads;
}

const char *cohcheck_first(const struct cohcheck *c)
{
	return c->oom ? "the coherence checker ran out of memory" : c->first;
}

bool cohcheck_latest(struct cohcheck *c, uint64_t addr, uint32_t *v)
{
	uint32_t *slot = map_get(&c->words, addr >> 2, false);
	struct hist *h;

	if (!slot || !*slot)
		return false;
	h = &c->hists[*slot - 1];
	if (!h->n)
		return false;
	*v = h->v[h->n - 1];
	return true;
}
