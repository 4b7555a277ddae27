/*
 * tlm/kernel/tlm.h - TLM-2.0 concepts in C: generic payload, pool, extensions, sockets,
 * phases, the base-protocol checker and the quantum keeper.
 *
 * The payload is the message (what travels): command, address, data, byte enables, response
 * status, plus extension slots for protocol fields (timestamps, scope, sharers). What a
 * controller remembers while it waits (MSHR entries, transaction records) lives in the
 * controller, never here.
 *
 * Sockets are plain structs embedded in components and bound in pairs. A target implements
 * the forward ops (b_transport, nb_transport_fw, transport_dbg), an initiator the backward op
 * (nb_transport_bw). Calls are inline: one indirect call per hop.
 */
#ifndef COHSCOPE_TLM_KERNEL_TLM_H
#define COHSCOPE_TLM_KERNEL_TLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlm/kernel/sim.h"

enum tlm_command { TLM_READ_COMMAND = 0, TLM_WRITE_COMMAND = 1, TLM_IGNORE_COMMAND = 2 };

enum tlm_response_status {
	TLM_OK_RESPONSE = 1,
	TLM_INCOMPLETE_RESPONSE = 0,
	TLM_GENERIC_ERROR_RESPONSE = -1,
	TLM_ADDRESS_ERROR_RESPONSE = -2,
	TLM_COMMAND_ERROR_RESPONSE = -3,
	TLM_BURST_ERROR_RESPONSE = -4,
	TLM_BYTE_ENABLE_ERROR_RESPONSE = -5,
};

enum tlm_phase {
	TLM_UNINITIALIZED_PHASE = 0,
	TLM_BEGIN_REQ,
	TLM_END_REQ,
	TLM_BEGIN_RESP,
	TLM_END_RESP,
};

enum tlm_sync_enum { TLM_ACCEPTED = 0, TLM_UPDATED, TLM_COMPLETED };

#define TLM_MAX_EXTENSIONS 16
#define TLM_INLINE_DATA	   128 /* one GPU cache line travels without a separate buffer */

struct tlm_pool;

struct tlm_payload {
	uint64_t addr;
	uint8_t *data;	      /* points at buf unless the initiator sets its own */
	uint8_t *byte_enable; /* NULL: all bytes enabled; else 0x00/0xff per byte */
	uint32_t len;	      /* bytes */
	uint32_t byte_enable_len;
	uint32_t streaming_width;
	uint8_t cmd;   /* enum tlm_command */
	int8_t status; /* enum tlm_response_status */
	bool dmi_allowed;
	uint32_t refcnt;
	uint64_t id; /* unique per pool, for traces */
	struct tlm_pool *pool;
	struct tlm_payload *free_next;
	void *ext[TLM_MAX_EXTENSIONS];
	uint8_t buf[TLM_INLINE_DATA];
};

/* Called when a payload carrying a non-NULL extension goes back to the pool. */
typedef void (*tlm_ext_free_fn)(void *ext);

/* One pool per system: extension ids are the pool's. */
int tlm_pool_create(struct tlm_pool **out);
/* A pool whose payloads are payload_size bytes: the first member of a message struct is its
 * struct tlm_payload, and the bytes after it are zeroed on every alloc (container_of gets the
 * message back). -CS_EINVAL if payload_size < sizeof(struct tlm_payload). */
int tlm_pool_create_sized(size_t payload_size, struct tlm_pool **out);
/* Payloads still out are freed too; tlm_pool_live tells whether any leaked. */
void tlm_pool_destroy(struct tlm_pool *pool);
/* Returns the id (>= 0) or -CS_ERANGE when all TLM_MAX_EXTENSIONS are taken, -CS_EEXIST on
 * a duplicate name. */
int tlm_ext_register(struct tlm_pool *pool, const char *name, tlm_ext_free_fn free_fn);
/* A payload with refcnt 1, all fields reset (cmd READ, status INCOMPLETE, data = buf). NULL
 * only when memory is exhausted. */
struct tlm_payload *tlm_payload_alloc(struct tlm_pool *pool);
void tlm_payload_acquire(struct tlm_payload *p);
/* Drops one reference; at zero frees the extensions and returns p to its pool. */
void tlm_payload_release(struct tlm_payload *p);
size_t tlm_pool_live(const struct tlm_pool *pool);     /* payloads out of the pool */
size_t tlm_pool_capacity(const struct tlm_pool *pool); /* payloads ever allocated */

static inline void *tlm_ext_get(const struct tlm_payload *p, int id)
{
	return p->ext[id];
}

static inline void tlm_ext_set(struct tlm_payload *p, int id, void *ext)
{
	p->ext[id] = ext;
}

/* ---- sockets ------------------------------------------------------------------------------ */

struct tlm_fw_ops {
	void (*b_transport)(void *target, struct tlm_payload *p, sim_time_t *delay);
	enum tlm_sync_enum (*nb_transport_fw)(void *target, struct tlm_payload *p,
					      enum tlm_phase *phase, sim_time_t *delay);
	unsigned (*transport_dbg)(void *target, struct tlm_payload *p);
};

struct tlm_bw_ops {
	enum tlm_sync_enum (*nb_transport_bw)(void *initiator, struct tlm_payload *p,
					      enum tlm_phase *phase, sim_time_t *delay);
};

struct tlm_checker;
struct tlm_target_socket;

struct tlm_initiator_socket {
	const struct tlm_bw_ops *bw;
	void *owner;
	struct tlm_target_socket *peer;
	struct tlm_checker *chk; /* NULL unless checking is on */
	const char *name;
};

struct tlm_target_socket {
	const struct tlm_fw_ops *fw;
	void *owner;
	struct tlm_initiator_socket *peer;
	const char *name;
};

void tlm_initiator_init(struct tlm_initiator_socket *s, const char *name,
			const struct tlm_bw_ops *bw, void *owner);
void tlm_target_init(struct tlm_target_socket *s, const char *name, const struct tlm_fw_ops *fw,
		     void *owner);
/* -CS_EEXIST if either side is bound already. */
int tlm_bind(struct tlm_initiator_socket *i, struct tlm_target_socket *t);

/* Base-protocol checker on a binding: every nb_transport call through it is checked against
 * the TLM-2.0 base protocol (phase order, request and response exclusion, return codes); a
 * violation fails the kernel with -CS_EPROTO and a message naming the socket. */
int tlm_checker_attach(struct tlm_initiator_socket *s, struct sim_kernel *k);
void tlm_checker_detach(struct tlm_initiator_socket *s);
unsigned tlm_checker_violations(const struct tlm_initiator_socket *s);
/* Transactions the checker sees in flight (between BEGIN_REQ and completion). */
unsigned tlm_checker_in_flight(const struct tlm_initiator_socket *s);

enum tlm_sync_enum tlm_checked_fw(struct tlm_initiator_socket *s, struct tlm_payload *p,
				  enum tlm_phase *phase, sim_time_t *delay);
enum tlm_sync_enum tlm_checked_bw(struct tlm_target_socket *s, struct tlm_payload *p,
				  enum tlm_phase *phase, sim_time_t *delay);
void tlm_checked_b(struct tlm_initiator_socket *s, struct tlm_payload *p, sim_time_t *delay);

static inline void tlm_b_transport(struct tlm_initiator_socket *s, struct tlm_payload *p,
				   sim_time_t *delay)
{
	if (s->chk)
		tlm_checked_b(s, p, delay);
	else
		s->peer->fw->b_transport(s->peer->owner, p, delay);
}

static inline enum tlm_sync_enum tlm_nb_transport_fw(struct tlm_initiator_socket *s,
						     struct tlm_payload *p, enum tlm_phase *phase,
						     sim_time_t *delay)
{
	if (s->chk)
		return tlm_checked_fw(s, p, phase, delay);
	return s->peer->fw->nb_transport_fw(s->peer->owner, p, phase, delay);
}

static inline enum tlm_sync_enum tlm_nb_transport_bw(struct tlm_target_socket *s,
						     struct tlm_payload *p, enum tlm_phase *phase,
						     sim_time_t *delay)
{
	if (s->peer->chk)
		return tlm_checked_bw(s, p, phase, delay);
	return s->peer->bw->nb_transport_bw(s->peer->owner, p, phase, delay);
}

static inline unsigned tlm_transport_dbg(struct tlm_initiator_socket *s, struct tlm_payload *p)
{
	return s->peer->fw->transport_dbg ? s->peer->fw->transport_dbg(s->peer->owner, p) : 0;
}

const char *tlm_phase_name(enum tlm_phase ph);

/* ---- quantum keeper (temporal decoupling) --------------------------------------------------- */

/* An initiator running ahead of kernel time: it adds the delays its b_transport calls
 * annotate to local, and synchronises (waits local off) when it reaches the next quantum
 * boundary. Quantum 0 means synchronise on every need_sync check. sync() must be called from
 * a thread process. */
struct tlm_qk {
	struct sim_kernel *k;
	sim_time_t local;
	sim_time_t next_sync;
};

void tlm_qk_init(struct tlm_qk *q, struct sim_kernel *k);
void tlm_qk_reset(struct tlm_qk *q);

static inline void tlm_qk_inc(struct tlm_qk *q, sim_time_t t)
{
	q->local += t;
}

static inline void tlm_qk_set(struct tlm_qk *q, sim_time_t t)
{
	q->local = t;
}

static inline sim_time_t tlm_qk_local_time(const struct tlm_qk *q)
{
	return q->local;
}

static inline sim_time_t tlm_qk_current_time(const struct tlm_qk *q)
{
	return sim_now(q->k) + q->local;
}

static inline bool tlm_qk_need_sync(const struct tlm_qk *q)
{
	return sim_now(q->k) + q->local >= q->next_sync;
}

void tlm_qk_sync(struct tlm_qk *q);

#endif
