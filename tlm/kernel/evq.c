/*
 * tlm/kernel/evq.c - timing wheel with overflow heap, and the binary-heap oracle (evq.h).
 */
#include "tlm/kernel/evq.h"

#include <stdlib.h>

#include "util/error.h"

#define WHEEL_SLOT_SHIFT 8u /* 256 ps per slot: at most one edge of any clock <= 3.9 GHz */
#define WHEEL_SLOTS	 4096u
#define WHEEL_MASK	 (WHEEL_SLOTS - 1u)
#define WHEEL_WORDS	 (WHEEL_SLOTS / 64u)
#define WHEEL_HORIZON	 ((sim_time_t)WHEEL_SLOTS << WHEEL_SLOT_SHIFT)

struct node_heap {
	struct sim_node **a;
	size_t n, cap;
};

/*
 * A slot's list, sorted by (when, key). mid is the node last inserted neither at the head nor
 * at the tail (NULL when none is in the list): items of one priority due at one time arrive
 * in sequence order, so the next of them goes right after it. Without it, 128 SMs' ticks
 * (a higher priority, at the tail) made every memory event due at the same edge scan past
 * all the events of that edge before it: O(n) per insertion, a sixth of a 128-CU run.
 */
struct wheel_slot {
	struct sim_node *head, *tail, *mid;
};

struct sim_evq {
	enum sim_queue_kind kind;
	size_t count;	 /* in the wheel (WHEEL) */
	sim_time_t base; /* wheel window start, slot aligned: wheel items lie in [base, base+H) */
	struct node_heap far; /* overflow (WHEEL) or everything (HEAP) */
	long first;	      /* earliest non-empty slot, or -1 when not known */
	uint64_t summary;     /* bit w set iff bitmap[w] != 0 */
	uint64_t bitmap[WHEEL_WORDS];
	struct wheel_slot slot[]; /* WHEEL_SLOTS entries for WHEEL, none for HEAP */
};

/* ---- binary heap ---------------------------------------------------------------------- */

static int heap_push(struct node_heap *h, struct sim_node *x)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct sim_node **a = realloc(h->a, cap * sizeof(*a));

		if (!a)
			return -CS_ENOMEM;
		h->a = a;
		h->cap = cap;
	}
	i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!sim_node_before(x, h->a[parent]))
			break;
		h->a[i] = h->a[parent];
		i = parent;
	}
	h->a[i] = x;
	return 0;
}

static struct sim_node *heap_pop(struct node_heap *h)
{
	struct sim_node *top, *last;
	size_t i = 0;

	if (h->n == 0)
		return NULL;
	top = h->a[0];
	last = h->a[--h->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && sim_node_before(h->a[c + 1], h->a[c]))
			c++;
		if (!sim_node_before(h->a[c], last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n > 0)
		h->a[i] = last;
	return top;
}

/* ---- wheel ------------------------------------------------------------------------------ */

static inline size_t slot_of(sim_time_t when)
{
	return (size_t)(when >> WHEEL_SLOT_SHIFT) & WHEEL_MASK;
}

static void wheel_insert(struct sim_evq *q, struct sim_node *n)
{
	size_t s = slot_of(n->when);
	struct wheel_slot *sl = &q->slot[s];

	n->link.next = NULL;
	if (q->count == 0) {
		q->first = (long)s;
	} else if (q->first >= 0) {
		size_t cur = slot_of(q->base);

		/* cyclic distance from the window start orders the slots by time */
		if (((s - cur) & WHEEL_MASK) < (((size_t)q->first - cur) & WHEEL_MASK))
			q->first = (long)s;
	}
	if (!sl->head) {
		sl->head = sl->tail = n;
		q->bitmap[s / 64] |= 1ull << (s % 64);
		q->summary |= 1ull << (s / 64);
	} else if (!sim_node_before(n, sl->tail)) {
		sl->tail->link.next = &n->link;
		sl->tail = n;
	} else if (sim_node_before(n, sl->head)) {
		n->link.next = &sl->head->link;
		sl->head = n;
	} else {
		struct sim_node *p = sl->mid && !sim_node_before(n, sl->mid) ? sl->mid : sl->head;

		while (p->link.next && !sim_node_before(n, (struct sim_node *)p->link.next))
			p = (struct sim_node *)p->link.next;
		n->link.next = p->link.next;
		p->link.next = &n->link;
		sl->mid = n;
	}
	q->count++;
}

/* First non-empty slot at or after the window start, cyclically. count must be > 0. */
static size_t wheel_scan(const struct sim_evq *q)
{
	size_t cur = slot_of(q->base);
	size_t w = cur / 64;
	uint64_t m = q->bitmap[w] & (~0ull << (cur % 64));
	uint64_t s;

	if (m)
		return w * 64 + (size_t)__builtin_ctzll(m);
	s = w + 1 < 64 ? q->summary & (~0ull << (w + 1)) : 0;
	if (!s)
		s = q->summary; /* wrapped: slots before cur hold later times */
	w = (size_t)__builtin_ctzll(s);
	return w * 64 + (size_t)__builtin_ctzll(q->bitmap[w]);
}

static inline size_t wheel_first(struct sim_evq *q)
{
	if (q->first < 0)
		q->first = (long)wheel_scan(q);
	return (size_t)q->first;
}

static void wheel_pull_far(struct sim_evq *q)
{
	while (q->far.n && q->far.a[0]->when < q->base + WHEEL_HORIZON)
		wheel_insert(q, heap_pop(&q->far));
}

/* ---- interface ---------------------------------------------------------------------------- */

int sim_evq_create(enum sim_queue_kind kind, struct sim_evq **out)
{
	size_t nslots = kind == SIM_QUEUE_WHEEL ? WHEEL_SLOTS : 0;
	struct sim_evq *q;

	*out = NULL;
	if (kind != SIM_QUEUE_WHEEL && kind != SIM_QUEUE_HEAP)
		return -CS_EINVAL;
	q = calloc(1, sizeof(*q) + nslots * sizeof(q->slot[0]));
	if (!q)
		return -CS_ENOMEM;
	q->kind = kind;
	q->first = -1;
	*out = q;
	return 0;
}

void sim_evq_destroy(struct sim_evq *q)
{
	if (!q)
		return;
	free(q->far.a);
	free(q);
}

int sim_evq_insert(struct sim_evq *q, struct sim_node *n)
{
	if (q->kind == SIM_QUEUE_WHEEL && n->when < q->base + WHEEL_HORIZON) {
		wheel_insert(q, n);
		return 0;
	}
	return heap_push(&q->far, n);
}

struct sim_node *sim_evq_peek(struct sim_evq *q)
{
	if (q->kind == SIM_QUEUE_WHEEL && q->count)
		return q->slot[wheel_first(q)].head;
	return q->far.n ? q->far.a[0] : NULL;
}

static struct sim_node *wheel_pop_slot(struct sim_evq *q, size_t s)
{
	struct wheel_slot *sl = &q->slot[s];
	struct sim_node *n = sl->head;

	sl->head = (struct sim_node *)n->link.next;
	if (n == sl->mid)
		sl->mid = NULL;
	/* the next item due is usually needed next: start loading it */
	__builtin_prefetch(sl->head);
	if (!sl->head) {
		sl->tail = NULL;
		q->bitmap[s / 64] &= ~(1ull << (s % 64));
		if (!q->bitmap[s / 64])
			q->summary &= ~(1ull << (s / 64));
		q->first = -1;
	}
	q->count--;
	n->link.next = NULL;
	return n;
}

struct sim_node *sim_evq_pop(struct sim_evq *q)
{
	if (q->kind != SIM_QUEUE_WHEEL || q->count == 0)
		return heap_pop(&q->far);
	return wheel_pop_slot(q, wheel_first(q));
}

struct sim_node *sim_evq_pop_due(struct sim_evq *q, sim_time_t when)
{
	size_t s;

	if (q->kind != SIM_QUEUE_WHEEL || q->count == 0)
		return q->far.n && q->far.a[0]->when == when ? heap_pop(&q->far) : NULL;
	s = wheel_first(q);
	return q->slot[s].head->when == when ? wheel_pop_slot(q, s) : NULL;
}

void sim_evq_advance(struct sim_evq *q, sim_time_t now)
{
	sim_time_t nb = now & ~(((sim_time_t)1 << WHEEL_SLOT_SHIFT) - 1);

	if (q->kind != SIM_QUEUE_WHEEL || nb <= q->base)
		return;
	q->base = nb;
	wheel_pull_far(q);
}

size_t sim_evq_size(const struct sim_evq *q)
{
	return q->count + q->far.n;
}
