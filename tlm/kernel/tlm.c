/*
 * tlm/kernel/tlm.c - payload pool, extension registry, sockets, base-protocol checker,
 * quantum keeper (see tlm.h).
 */
#include "tlm/kernel/tlm.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define POOL_CHUNK 256

/* A chunk holds POOL_CHUNK payloads of pool->elem_size bytes each (a payload, or a message
 * struct that begins with one). */
struct pool_chunk {
	struct pool_chunk *next;
	max_align_t items[];
};

struct tlm_pool {
	struct tlm_payload *free;
	size_t elem_size; /* bytes per payload, rounded to max_align_t */
	struct pool_chunk *chunks;
	size_t live, capacity;
	uint64_t next_id;
	unsigned next_ext;
	const char *ext_name[TLM_MAX_EXTENSIONS];
	tlm_ext_free_fn ext_free[TLM_MAX_EXTENSIONS];
};

/* ---- pool ------------------------------------------------------------------------------- */

int tlm_pool_create(struct tlm_pool **out)
{
	return tlm_pool_create_sized(sizeof(struct tlm_payload), out);
}

int tlm_pool_create_sized(size_t payload_size, struct tlm_pool **out)
{
	size_t a = _Alignof(max_align_t);

	*out = NULL;
	if (payload_size < sizeof(struct tlm_payload) || payload_size > (1u << 20))
		return -CS_EINVAL;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -CS_ENOMEM;
	(*out)->elem_size = (payload_size + a - 1) / a * a;
	return 0;
}

static inline struct tlm_payload *chunk_item(struct pool_chunk *c, size_t elem, size_t i)
{
	return (struct tlm_payload *)((char *)c->items + elem * i);
}

void tlm_pool_destroy(struct tlm_pool *pool)
{
	if (!pool)
		return;
	while (pool->chunks) {
		struct pool_chunk *c = pool->chunks;

		pool->chunks = c->next;
		free(c);
	}
	for (unsigned i = 0; i < pool->next_ext; i++)
		free((char *)pool->ext_name[i]);
	free(pool);
}

int tlm_ext_register(struct tlm_pool *pool, const char *name, tlm_ext_free_fn free_fn)
{
	char *copy;

	for (unsigned i = 0; i < pool->next_ext; i++)
		if (strcmp(pool->ext_name[i], name) == 0)
			return -CS_EEXIST;
	if (pool->next_ext == TLM_MAX_EXTENSIONS)
		return -CS_ERANGE;
	copy = strdup(name);
	if (!copy)
		return -CS_ENOMEM;
	pool->ext_name[pool->next_ext] = copy;
	pool->ext_free[pool->next_ext] = free_fn;
	return (int)pool->next_ext++;
}

static void payload_reset(struct tlm_pool *pool, struct tlm_payload *p)
{
	/* The container's own fields (after the payload) start zeroed for every message. */
	if (pool->elem_size > sizeof(*p))
		memset(p + 1, 0, pool->elem_size - sizeof(*p));
	p->addr = 0;
	p->data = p->buf;
	p->byte_enable = NULL;
	p->len = 0;
	p->byte_enable_len = 0;
	p->streaming_width = 0;
	p->cmd = TLM_READ_COMMAND;
	p->status = TLM_INCOMPLETE_RESPONSE;
	p->dmi_allowed = false;
}

struct tlm_payload *tlm_payload_alloc(struct tlm_pool *pool)
{
	struct tlm_payload *p = pool->free;

	if (!p) {
		struct pool_chunk *c = calloc(1, sizeof(*c) + pool->elem_size * POOL_CHUNK);

		if (!c)
			return NULL;
		c->next = pool->chunks;
		pool->chunks = c;
		for (size_t i = POOL_CHUNK; i-- > 0;) {
			struct tlm_payload *q = chunk_item(c, pool->elem_size, i);

			q->pool = pool;
			q->free_next = pool->free;
			pool->free = q;
		}
		pool->capacity += POOL_CHUNK;
		p = pool->free;
	}
	pool->free = p->free_next;
	p->free_next = NULL;
	payload_reset(pool, p);
	p->refcnt = 1;
	p->id = pool->next_id++;
	pool->live++;
	return p;
}

void tlm_payload_acquire(struct tlm_payload *p)
{
	p->refcnt++;
}

void tlm_payload_release(struct tlm_payload *p)
{
	struct tlm_pool *pool = p->pool;

	if (--p->refcnt)
		return;
	for (unsigned i = 0; i < pool->next_ext; i++) {
		if (p->ext[i] && pool->ext_free[i])
			pool->ext_free[i](p->ext[i]);
		p->ext[i] = NULL;
	}
	p->free_next = pool->free;
	pool->free = p;
	pool->live--;
}

size_t tlm_pool_live(const struct tlm_pool *pool)
{
	return pool->live;
}

size_t tlm_pool_capacity(const struct tlm_pool *pool)
{
	return pool->capacity;
}

/* ---- sockets ------------------------------------------------------------------------------- */

void tlm_initiator_init(struct tlm_initiator_socket *s, const char *name,
			const struct tlm_bw_ops *bw, void *owner)
{
	memset(s, 0, sizeof(*s));
	s->bw = bw;
	s->owner = owner;
	s->name = name;
}

void tlm_target_init(struct tlm_target_socket *s, const char *name, const struct tlm_fw_ops *fw,
		     void *owner)
{
	memset(s, 0, sizeof(*s));
	s->fw = fw;
	s->owner = owner;
	s->name = name;
}

int tlm_bind(struct tlm_initiator_socket *i, struct tlm_target_socket *t)
{
	if (i->peer || t->peer)
		return -CS_EEXIST;
	i->peer = t;
	t->peer = i;
	return 0;
}

const char *tlm_phase_name(enum tlm_phase ph)
{
	static const char *const names[] = {"UNINITIALIZED_PHASE", "BEGIN_REQ", "END_REQ",
					    "BEGIN_RESP", "END_RESP"};

	return (unsigned)ph < sizeof(names) / sizeof(names[0]) ? names[ph] : "?";
}

/* ---- base-protocol checker ------------------------------------------------------------------ */

/* Where one transaction stands on one binding. */
enum chk_state { CHK_IDLE = 0, CHK_REQ, CHK_WAIT_RESP, CHK_RESP };

struct chk_entry {
	const struct tlm_payload *p;
	enum chk_state st;
};

struct tlm_checker {
	struct sim_kernel *k;
	struct chk_entry *e; /* transactions in flight, few: a linear scan is fine */
	unsigned n, cap;
	const struct tlm_payload *req_busy;  /* BEGIN_REQ without END_REQ yet */
	const struct tlm_payload *resp_busy; /* BEGIN_RESP without END_RESP yet */
	unsigned violations;
};

int tlm_checker_attach(struct tlm_initiator_socket *s, struct sim_kernel *k)
{
	if (s->chk)
		return 0;
	s->chk = calloc(1, sizeof(*s->chk));
	if (!s->chk)
		return -CS_ENOMEM;
	s->chk->k = k;
	return 0;
}

void tlm_checker_detach(struct tlm_initiator_socket *s)
{
	if (!s->chk)
		return;
	free(s->chk->e);
	free(s->chk);
	s->chk = NULL;
}

unsigned tlm_checker_violations(const struct tlm_initiator_socket *s)
{
	return s->chk ? s->chk->violations : 0;
}

unsigned tlm_checker_in_flight(const struct tlm_initiator_socket *s)
{
	return s->chk ? s->chk->n : 0;
}

static enum chk_state chk_get(const struct tlm_checker *c, const struct tlm_payload *p)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->e[i].p == p)
			return c->e[i].st;
	return CHK_IDLE;
}

static void chk_put(struct tlm_checker *c, const struct tlm_payload *p, enum chk_state st)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (c->e[i].p != p)
			continue;
		if (st == CHK_IDLE)
			c->e[i] = c->e[--c->n];
		else
			c->e[i].st = st;
		return;
	}
	if (st == CHK_IDLE)
		return;
	if (c->n == c->cap) {
		unsigned cap = c->cap ? c->cap * 2 : 16;
		struct chk_entry *e = realloc(c->e, cap * sizeof(*e));

		if (!e) {
			sim_fail(c->k, -CS_ENOMEM, "out of memory in the TLM checker");
			return;
		}
		c->e = e;
		c->cap = cap;
	}
	c->e[c->n].p = p;
	c->e[c->n].st = st;
	c->n++;
}

static void chk_violation(struct tlm_checker *c, const char *sock, const struct tlm_payload *p,
			  const char *what)
{
	c->violations++;
	sim_fail(c->k, -CS_EPROTO, "TLM base protocol violation on socket %s, transaction %llu: %s",
		 sock ? sock : "?", (unsigned long long)p->id, what);
}

/* Applies phase ph arriving on the forward (fw) or backward path; false on a violation. */
static bool chk_phase(struct tlm_checker *c, const char *sock, const struct tlm_payload *p,
		      enum tlm_phase ph, bool fw)
{
	enum chk_state st = chk_get(c, p);

	switch (ph) {
	case TLM_BEGIN_REQ:
		if (!fw)
			break;
		if (st != CHK_IDLE) {
			chk_violation(c, sock, p, "BEGIN_REQ for a transaction already in flight");
			return false;
		}
		if (c->req_busy) {
			chk_violation(c, sock, p,
				      "BEGIN_REQ before END_REQ of the previous request "
				      "(request exclusion)");
			return false;
		}
		c->req_busy = p;
		chk_put(c, p, CHK_REQ);
		return true;
	case TLM_END_REQ:
		if (fw)
			break;
		if (st != CHK_REQ) {
			chk_violation(c, sock, p, "END_REQ without an open BEGIN_REQ");
			return false;
		}
		c->req_busy = NULL;
		chk_put(c, p, CHK_WAIT_RESP);
		return true;
	case TLM_BEGIN_RESP:
		if (fw)
			break;
		if (st != CHK_REQ && st != CHK_WAIT_RESP) {
			chk_violation(c, sock, p, "BEGIN_RESP for a transaction with no request");
			return false;
		}
		if (c->resp_busy) {
			chk_violation(c, sock, p,
				      "BEGIN_RESP before END_RESP of the previous response "
				      "(response exclusion)");
			return false;
		}
		if (c->req_busy == p) /* BEGIN_RESP implies END_REQ */
			c->req_busy = NULL;
		c->resp_busy = p;
		chk_put(c, p, CHK_RESP);
		return true;
	case TLM_END_RESP:
		if (!fw)
			break;
		if (st != CHK_RESP) {
			chk_violation(c, sock, p, "END_RESP without an open BEGIN_RESP");
			return false;
		}
		c->resp_busy = NULL;
		chk_put(c, p, CHK_IDLE);
		return true;
	default:
		chk_violation(c, sock, p, "uninitialised phase");
		return false;
	}
	chk_violation(c, sock, p,
		      fw ? "END_REQ or BEGIN_RESP sent on the forward path"
			 : "BEGIN_REQ or END_RESP sent on the backward path");
	return false;
}

static void chk_complete(struct tlm_checker *c, const struct tlm_payload *p)
{
	if (c->req_busy == p)
		c->req_busy = NULL;
	if (c->resp_busy == p)
		c->resp_busy = NULL;
	chk_put(c, p, CHK_IDLE);
}

/* What the callee returned, given the phase it was called with. */
static void chk_return(struct tlm_checker *c, const char *sock, const struct tlm_payload *p,
		       enum tlm_phase called, enum tlm_phase now, enum tlm_sync_enum r, bool fw)
{
	switch (r) {
	case TLM_ACCEPTED:
		if (now != called)
			chk_violation(c, sock, p, "phase changed with TLM_ACCEPTED");
		return;
	case TLM_COMPLETED:
		chk_complete(c, p);
		return;
	case TLM_UPDATED:
		if (now == called) {
			chk_violation(c, sock, p, "TLM_UPDATED without a new phase");
			return;
		}
		/* The callee answered on the return path: the other direction's phase. */
		chk_phase(c, sock, p, now, !fw);
		return;
	}
	chk_violation(c, sock, p, "unknown tlm_sync_enum value");
}

enum tlm_sync_enum tlm_checked_fw(struct tlm_initiator_socket *s, struct tlm_payload *p,
				  enum tlm_phase *phase, sim_time_t *delay)
{
	struct tlm_checker *c = s->chk;
	enum tlm_phase called = *phase;
	enum tlm_sync_enum r;

	if (!chk_phase(c, s->name, p, called, true))
		return TLM_COMPLETED;
	r = s->peer->fw->nb_transport_fw(s->peer->owner, p, phase, delay);
	chk_return(c, s->name, p, called, *phase, r, true);
	return r;
}

enum tlm_sync_enum tlm_checked_bw(struct tlm_target_socket *s, struct tlm_payload *p,
				  enum tlm_phase *phase, sim_time_t *delay)
{
	struct tlm_initiator_socket *i = s->peer;
	struct tlm_checker *c = i->chk;
	enum tlm_phase called = *phase;
	enum tlm_sync_enum r;

	if (!chk_phase(c, i->name, p, called, false))
		return TLM_COMPLETED;
	r = i->bw->nb_transport_bw(i->owner, p, phase, delay);
	chk_return(c, i->name, p, called, *phase, r, false);
	return r;
}

void tlm_checked_b(struct tlm_initiator_socket *s, struct tlm_payload *p, sim_time_t *delay)
{
	struct tlm_checker *c = s->chk;

	if (chk_get(c, p) != CHK_IDLE) {
		chk_violation(c, s->name, p,
			      "b_transport of a transaction in flight on nb_transport");
		return;
	}
	s->peer->fw->b_transport(s->peer->owner, p, delay);
}

/* ---- quantum keeper ------------------------------------------------------------------------ */

void tlm_qk_init(struct tlm_qk *q, struct sim_kernel *k)
{
	q->k = k;
	tlm_qk_reset(q);
}

void tlm_qk_reset(struct tlm_qk *q)
{
	sim_time_t now = sim_now(q->k);
	sim_time_t quantum = sim_global_quantum(q->k);

	q->local = 0;
	/* Next boundary is aligned to the quantum grid, as tlm_quantumkeeper does. */
	q->next_sync = quantum ? now - now % quantum + quantum : now;
}

void tlm_qk_sync(struct tlm_qk *q)
{
	sim_wait_time(q->k, q->local);
	tlm_qk_reset(q);
}
