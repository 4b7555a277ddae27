/* tlm/coherence/scoped/sc_acks.c - ack aggregation (see the header). */
#include "tlm/coherence/scoped/sc_acks.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

struct sc_acks {
	unsigned cap, used;
	size_t user_bytes;
	unsigned *pending; /* acks still owed per record */
	bool *live;
	unsigned char *user;
};

int sc_acks_create(unsigned cap, size_t user_bytes, struct sc_acks **out)
{
	struct sc_acks *t;

	*out = NULL;
	if (!cap)
		return -CS_EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -CS_ENOMEM;
	t->cap = cap;
	t->user_bytes = user_bytes;
	t->pending = calloc(cap, sizeof(*t->pending));
	t->live = calloc(cap, sizeof(*t->live));
	t->user = calloc(cap, user_bytes ? user_bytes : 1);
	if (!t->pending || !t->live || !t->user) {
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
	free(t->pending);
	free(t->live);
	free(t->user);
	free(t);
}

int sc_acks_alloc(struct sc_acks *t)
{
	for (unsigned i = 0; i < t->cap; i++) {
		if (t->live[i])
			continue;
		t->live[i] = true;
		t->pending[i] = 0;
		memset(t->user + i * t->user_bytes, 0, t->user_bytes);
		t->used++;
		return (int)i;
	}
	return -1;
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
	return t->user + i * t->user_bytes;
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
