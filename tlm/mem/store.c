/*
 * tlm/mem/store.c - sparse functional memory: 64 KiB pages in an open-addressed hash table.
 */
#include "tlm/mem/store.h"

#include <stdlib.h>
#include <string.h>

#include "tlm/mem/msg.h"
#include "util/error.h"

#define PAGE_SHIFT 16
#define PAGE_SIZE  (1u << PAGE_SHIFT)

struct store_slot {
	uint64_t page; /* page number + 1; 0 = empty */
	uint8_t *data;
};

struct mem_store {
	struct store_slot *slots;
	size_t cap; /* power of two */
	size_t used;
	/* one-entry cache of the last page touched: most accesses stay in one page */
	uint64_t last_page;
	uint8_t *last_data;
};

static inline size_t slot_hash(uint64_t page, size_t cap)
{
	return (size_t)((page * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

int mem_store_create(struct mem_store **out)
{
	struct mem_store *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -CS_ENOMEM;
	s->cap = 64;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return -CS_ENOMEM;
	}
	*out = s;
	return 0;
}

void mem_store_destroy(struct mem_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i].data);
	free(s->slots);
	free(s);
}

static uint8_t *page_find(const struct mem_store *s, uint64_t page)
{
	size_t i = slot_hash(page, s->cap);

	if (s->last_data && s->last_page == page)
		return s->last_data;
	for (;;) {
		const struct store_slot *sl = &s->slots[i];

		if (sl->page == page + 1)
			return sl->data;
		if (!sl->page)
			return NULL;
		i = (i + 1) & (s->cap - 1);
	}
}

static int grow(struct mem_store *s)
{
	size_t ncap = s->cap * 2;
	struct store_slot *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -CS_ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i].page)
			continue;
		j = slot_hash(s->slots[i].page - 1, ncap);
		while (n[j].page)
			j = (j + 1) & (ncap - 1);
		n[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = n;
	s->cap = ncap;
	return 0;
}

static uint8_t *page_get(struct mem_store *s, uint64_t page)
{
	uint8_t *d = page_find(s, page);
	size_t i;

	if (d)
		goto found;
	if ((s->used + 1) * 2 > s->cap && grow(s))
		return NULL;
	d = calloc(1, PAGE_SIZE);
	if (!d)
		return NULL;
	i = slot_hash(page, s->cap);
	while (s->slots[i].page)
		i = (i + 1) & (s->cap - 1);
	s->slots[i].page = page + 1;
	s->slots[i].data = d;
	s->used++;
found:
	s->last_page = page;
	s->last_data = d;
	return d;
}

void mem_store_read(const struct mem_store *s, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;

	while (len) {
		uint64_t page = addr >> PAGE_SHIFT;
		size_t off = (size_t)(addr & (PAGE_SIZE - 1));
		size_t n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;
		const uint8_t *d = page_find(s, page);

		if (d)
			memcpy(out, d + off, n);
		else
			memset(out, 0, n);
		out += n;
		addr += n;
		len -= n;
	}
}

int mem_store_write_masked(struct mem_store *s, uint64_t addr, const void *buf, const uint8_t *be,
			   size_t len)
{
	const uint8_t *in = buf;

	while (len) {
		uint64_t page = addr >> PAGE_SHIFT;
		size_t off = (size_t)(addr & (PAGE_SIZE - 1));
		size_t n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;
		uint8_t *d = page_get(s, page);

		if (!d)
			return -CS_ENOMEM;
		if (!be) {
			memcpy(d + off, in, n);
		} else {
			for (size_t i = 0; i < n; i++)
				if (be[i])
					d[off + i] = in[i];
			be += n;
		}
		in += n;
		addr += n;
		len -= n;
	}
	return 0;
}

int mem_store_write(struct mem_store *s, uint64_t addr, const void *buf, size_t len)
{
	return mem_store_write_masked(s, addr, buf, NULL, len);
}

size_t mem_store_footprint(const struct mem_store *s)
{
	return s->used * PAGE_SIZE;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t mem_store_digest(const struct mem_store *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint64_t *pages = malloc((s->used ? s->used : 1) * sizeof(*pages));
	size_t n = 0;

	if (!pages)
		return 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].page)
			pages[n++] = s->slots[i].page - 1;
	qsort(pages, n, sizeof(*pages), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *d = page_find(s, pages[i]);

		for (unsigned b = 0; b < 8; b++)
			h = (h ^ ((pages[i] >> (8 * b)) & 0xff)) * 0x100000001b3ull;
		for (size_t j = 0; j < PAGE_SIZE; j++)
			h = (h ^ d[j]) * 0x100000001b3ull;
	}
	free(pages);
	return h;
}

uint64_t mem_atomic_apply(void *p, unsigned bytes, unsigned op, uint64_t a, uint64_t b)
{
	uint64_t old = 0, nv;

	memcpy(&old, p, bytes); /* little-endian host */
	if (bytes < 8) { /* operands at the word's width (CPU atomics take 1 and 2 bytes too) */
		uint64_t m = (1ull << (8 * bytes)) - 1;

		a &= m;
		b &= m;
	}
	switch (op) {
	case MEM_ATOM_ADD:
		nv = old + a;
		break;
	case MEM_ATOM_EXCH:
		nv = a;
		break;
	case MEM_ATOM_CAS:
		nv = old == a ? b : old;
		break;
	case MEM_ATOM_MIN:
		nv = a < old ? a : old;
		break;
	case MEM_ATOM_MAX:
		nv = a > old ? a : old;
		break;
	case MEM_ATOM_STORE:
		nv = a;
		break;
	default: /* MEM_ATOM_LOAD */
		nv = old;
		break;
	}
	memcpy(p, &nv, bytes);
	return old;
}
