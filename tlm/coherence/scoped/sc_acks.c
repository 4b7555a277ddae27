/* tlm/coherence/scoped/sc_acks.c - ack aggregation (see the header). */
#include "tlm/coherence/scoped/sc_acks.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* Records live in chunks that never move (a record's user bytes stay where they are while
 * the table grows); the table grows by a chunk when every record is in use. */
#define SC_ACKS_CHUNK 64u

struct sc_acks {
	unsigned cap, used, limit, nchunks;
	size_t user_bytes;
	unsigned *pending; /* acks still owed per record */
	bool *live;
	unsigned char **chunk;
};

static int sc_acks_grow(struct sc_acks *t)
{
	unsigned cap = t->cap + SC_ACKS_CHUNK;
	unsigned chunks = (t->cap + SC_ACKS_CHUNK - 1) / SC_ACKS_CHUNK;
	unsigned *pending;
	bool *live;
	unsigned char **chunk;

	if (t->limit && cap > t->limit)
		cap = t->limit;
	if (cap <= t->cap)
		return -CS_ENOMEM;
	pending = realloc(t->pending, cap * sizeof(*pending));
	if (!pending)
		return -CS_ENOMEM;
	t->pending = pending;
	live = realloc(t->live, cap * sizeof(*live));
	if (!live)
		return -CS_ENOMEM;
	t->live = live;
	chunk = realloc(t->chunk, (chunks + 1) * sizeof(*chunk));
	if (!chunk)
		return -CS_ENOMEM;
	t->chunk = chunk;
	chunk[chunks] = calloc(SC_ACKS_CHUNK, t->user_bytes ? t->user_bytes : 1);
	if (!chunk[chunks])
		return -CS_ENOMEM;
	t->nchunks = chunks + 1;
	memset(pending + t->cap, 0, (cap - t->cap) * sizeof(*pending));
	memset(live + t->cap, 0, (cap - t->cap) * sizeof(*live));
	t->cap = cap;
	return 0;
}

int sc_acks_create(unsigned cap, size_t user_bytes, struct sc_acks **out)
{
	struct sc_acks *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -CS_ENOMEM;
	t->limit = cap;
	t->user_bytes = user_bytes;
	if (sc_acks_grow(t)) {
		sc_acks_destroy(t);
		return -CS_ENOMEM;
	}
	*out = t;
	return 0;
}

void sc_acks_destroy(struct sc_acks *t)
{
	if (!t)
		return;
	for (unsigned c = 0; c < t->nchunks; c++)
		free(t->chunk[c]);
	free(t->chunk);
	free(t->pending);
	free(t->live);
	free(t);
}

int sc_acks_alloc(struct sc_acks *t)
{
	if (t->used == t->cap && sc_acks_grow(t))
		return -1;
	for (unsigned i = 0; i < t->cap; i++) {
		if (t->live[i])
			continue;
		t->live[i] = true;
		t->pending[i] = 0;
		memset(sc_acks_user(t, i), 0, t->user_bytes);
		t->used++;
		return (int)i;
	}
	return -1;
}

unsigned sc_acks_cap(const struct sc_acks *t)
{
	return t->cap;
}

void sc_acks_free(struct sc_acks *t, unsigned i)
{
	if (i < t->cap && t->live[i]) {
		t->live[i] = false;
		t->used--;
	}
}

void *sc_acks_user(struct sc_acks *t, unsigned i)
{
	return t->chunk[i / SC_ACKS_CHUNK] + (i % SC_ACKS_CHUNK) * t->user_bytes;
}

void sc_acks_expect(struct sc_acks *t, unsigned i, unsigned n)
{
	t->pending[i] += n;
}

int sc_acks_one(struct sc_acks *t, unsigned i)
{
	if (i >= t->cap || !t->live[i] || !t->pending[i])
		return -1;
	return --t->pending[i] == 0;
}

bool sc_acks_live(const struct sc_acks *t, unsigned i)
{
	return i < t->cap && t->live[i];
}

unsigned sc_acks_pending(const struct sc_acks *t, unsigned i)
{
	return i < t->cap ? t->pending[i] : 0;
}

unsigned sc_acks_used(const struct sc_acks *t)
{
	return t->used;
}
