/*
 * tlm/coherence/scoped/sc_home.c - an L2 bank as the home of its lines on the one-way network
 * (see the header and README.md §§2-5).
 */
#include "tlm/coherence/scoped/sc_home.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_port.h"
#include "tlm/coherence/scoped.h"
#include "tlm/coherence/scoped/sc_acks.h"
#include "tlm/coherence/scoped/sc_msg.h"
#include "tlm/mem/msgq.h"
#include "tlm/noc/noc.h"

/* A transaction record (README.md §3): a remote operation's (its request, kept here while
 * probes are out and handed to the bank after them, and the broadcast it waits for), or a
 * registration's (§6): a GetR, an UnReg, a relaxed atomic on a registered line (recalled to
 * the bank first), or the bank's eviction of a registered line; a
 * recall's, the owner's data on its way to the bank; or a data read or write of another L1
 * forwarded to the owner (SC_K_READ, SC_K_WRITE: registration stays). The bank's messages of
 * a record carry its index (mem_msg.ts[SC_TS_REC], plus one). */
enum sc_kind {
	SC_K_REMOTE = 0,
	SC_K_GETR,
	SC_K_UNREG,
	SC_K_EVICT,
	SC_K_READ,
	SC_K_WRITE,
	SC_K_ATOMIC /* a relaxed atomic, performed at the bank once the line is back there */
};
enum sc_phase { SC_PH_BEFORE = 0, SC_PH_AT_BANK, SC_PH_AFTER, SC_PH_RECALL };
#define SC_TS_REC (MEM_MSG_TS - 1)

struct sc_txn {
	struct mem_msg *req;   /* the request (an eviction's: none) */
	struct mem_msg *data;  /* a recall's: the owner's line, its ack or its UnReg */
	struct mem_msg *carry; /* that data at the bank, not answered yet */
	uint64_t line;
	uint8_t kind;	  /* enum sc_kind */
	uint8_t phase;	  /* enum sc_phase */
	uint8_t after;	  /* probe type of the broadcast after the bank (0: none) */
	bool acked;	  /* a recall's ack is in */
	bool data_is_ack; /* the data came in the ack (no one waits for its bank answer) */
	bool recalled;	  /* a GetR whose line was registered elsewhere (Table 6's remote hit) */
	uint16_t owner;	  /* the L1 a recall goes to */
	uint32_t grant;	  /* the owner's GetR whose registration it recalls (SC_TS_GRANT) */
	uint32_t acks_in; /* acks received (the answer must come after all of them) */
};

struct sc_home_stats {
	uint64_t *remote_ops, *broadcasts, *probes, *acks, *parked, *stalls, *acks_before_answer;
	uint64_t *getr_l2, *getr_remote, *recalls, *evict_recalls, *unregs, *forwards,
	    *atomic_recalls, *fwd_after_unreg, *peak_lines;
};

struct sc_home {
	const struct gpu_ctx *ctx;
	unsigned bank, ep;
	struct gpu_l2 *l2; /* the bank (gpu_l2_base.c) */
	struct apu_port *port;
	struct tlm_initiator_socket to_bank;
	struct mem_msg *bank_open; /* offered to the bank, END_REQ owed */
	struct msgq ready;	   /* remote operations whose probes are done, for the bank */
	struct sc_acks *acks;
	const struct sc_reg_variant *rv; /* registration (hlrc), or NULL */
	/* the LT face of registration: the ack of the recall being performed, the delay at
	 * which the bank performs the request in hand, and the data the bank's evictions
	 * recalled meanwhile, for the bank once it returns (README.md §6) */
	struct mem_msg *lt_ack;
	sim_time_t *lt_bank_delay;
	/* the GetR the bank performs by b_transport, and the recalls of lines its bank's
	 * evictions took from that GetR's requester before its answer reached it: made once
	 * the answer is there (the detailed face's recall would wait for it) */
	const struct mem_msg *lt_getr;
	struct lt_defer {
		uint64_t line;
		uint32_t grant;
		uint16_t owner;
	} * lt_defer;
	unsigned n_defer, cap_defer;
	struct mem_msg **lt_later;
	unsigned n_later, cap_later;
	uint64_t reg_lines; /* lines of the bank registered in an L1 now (reg.peak_lines) */
	struct sc_home_stats st;
};

/* The registration policy's state in the bank (gpu_l2_policy_state): its home. */
struct sc_reg_ps {
	struct sc_home *h;
};

static struct sc_home *home_of(struct gpu_l2 *l2)
{
	return (struct sc_home *)(void *)l2;
}

static const struct sc_home *home_of_const(const struct gpu_l2 *l2)
{
	return (const struct sc_home *)(const void *)l2;
}

static bool is_remote(const struct mem_msg *m)
{
	return m->type == GPU_MSG_ATOMIC && m->scope == MEM_SCOPE_DEVICE_REMOTE;
}

/* The broadcasts of a remote operation's row (Table 3): before the bank performs it, and
 * after (0: none). An atomic load is a remote acquire (a3-a5); a store a remote release
 * (a9-a14); any other RMW a remote acq-rel (a19-a25). */
static void remote_row(const struct mem_msg *m, uint8_t *before, uint8_t *after)
{
	if (m->atomic_op == MEM_ATOM_LOAD) {
		*before = SC_MSG_FLUSH;
		*after = 0;
	} else if (m->atomic_op == MEM_ATOM_STORE) {
		*before = SC_MSG_LK_FL_INV;
		*after = SC_MSG_INV_UL;
	} else {
		*before = SC_MSG_LK_FL_INV;
		*after = SC_MSG_FL_INV_UL;
	}
}

static struct mem_msg *probe_msg(struct sc_home *h, uint8_t type, uint64_t addr, unsigned sm,
				 uint32_t txn)
{
	struct tlm_payload *pl = tlm_payload_alloc(h->ctx->pool);
	struct mem_msg *m;

	if (!pl) {
		sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory for messages", h->bank);
		return NULL;
	}
	m = mem_msg_of(pl);
	pl->addr = addr;
	pl->len = (unsigned)h->ctx->l2->line_bytes;
	m->dst = (uint16_t)sm;
	m->vnet = SC_VNET_PRB;
	m->type = type;
	m->txn = txn;
	return m;
}

/* The answer the bank put in m goes to its requester on RSP (its class: the answer's type). */
static void answer(struct sc_home *h, struct mem_msg *m)
{
	m->dst = m->src;
	m->vnet = SC_VNET_RSP;
	m->type = m->resp_type;
	m->req_bytes = m->resp_bytes;
	apu_port_send(h->port, m, 0);
}

/* ---- the detailed face ------------------------------------------------------------------------ */

static struct sc_txn *txn_at(struct sc_home *h, unsigned i)
{
	return sc_acks_user(h->acks, i);
}

/* Broadcasts a probe of `type` for record i to every L1 but the requester's: N-1 unicasts on
 * PRB, which leave one after another through the home's injection port. Returns the acks
 * now owed. */
static unsigned broadcast(struct sc_home *h, unsigned i, uint8_t type)
{
	struct sc_txn *t = txn_at(h, i);
	unsigned n = 0;

	for (unsigned sm = 0; sm < h->ctx->sms; sm++) {
		struct mem_msg *m;

		if (sm == t->req->src)
			continue;
		m = probe_msg(h, type, t->req->p.addr, sm, i);
		if (!m)
			break;
		apu_port_send(h->port, m, 0);
		n++;
	}
	sc_acks_expect(h->acks, i, n);
	(*h->st.broadcasts)++;
	*h->st.probes += n;
	return n;
}

static void offer_ready(void *owner, void *arg);

/* m goes to the bank behind what already waits for it, tagged with record i. */
static void bank_push(struct sc_home *h, struct mem_msg *m, unsigned i)
{
	m->ts[SC_TS_REC] = i + 1;
	if (!msgq_push(&h->ready, m, 0)) {
		sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory", h->bank);
		return;
	}
	offer_ready(h, NULL);
}

/* Record i is over: it goes, its answer m (if any) is sent, and the next operation parked on
 * its line may start. */
static void txn_close(struct sc_home *h, unsigned i, struct mem_msg *m)
{
	uint64_t line = txn_at(h, i)->line;

	sc_acks_free(h->acks, i);
	if (m)
		answer(h, m);
	apu_port_wake(h->port, line, NULL);
	apu_port_kick(h->port); /* one may have waited for a record */
}

/* Record i's phase is over (its acks are in, or none were owed). */
static void phase_done(struct sc_home *h, unsigned i)
{
	struct sc_txn *t = txn_at(h, i);
	struct mem_msg *m;

	if (t->phase == SC_PH_BEFORE) {
		t->phase = SC_PH_AT_BANK;
		bank_push(h, t->req, i);
		return;
	}
	if (t->phase == SC_PH_AT_BANK && t->after) {
		t->phase = SC_PH_AFTER;
		if (broadcast(h, i, t->after))
			return; /* else no L1 to ask: done */
	}
	m = t->req;
	*h->st.acks_before_answer += t->acks_in;
	txn_close(h, i, m);
}

#define SC_K_ANY 0xff /* line_has_txn: a record of any kind */

/* Does a live record of `kind` (SC_K_ANY: any) hold line? */
static bool line_has_txn(struct sc_home *h, uint64_t line, unsigned kind)
{
	for (unsigned i = 0; i < sc_acks_cap(h->acks); i++)
		if (sc_acks_live(h->acks, i) && txn_at(h, i)->line == line &&
		    (kind == SC_K_ANY || txn_at(h, i)->kind == kind))
			return true;
	return false;
}

static bool line_busy(struct sc_home *h, uint64_t line)
{
	return line_has_txn(h, line, SC_K_ANY);
}

static int new_txn(struct sc_home *h, uint64_t line, uint8_t kind, struct mem_msg *req)
{
	int i = sc_acks_alloc(h->acks);
	struct sc_txn *t;

	if (i < 0)
		return -1;
	t = txn_at(h, (unsigned)i);
	t->req = req;
	t->line = line;
	t->kind = kind;
	return i;
}

/* m waits until the record of its line ends (txn_close wakes it). */
static void park(struct sc_home *h, struct mem_msg *m)
{
	apu_port_park(h->port, m);
	(*h->st.parked)++;
}

/* A record of `kind` for m on line, or: -1 when the line is busy (m parked: the caller takes
 * it), -2 when no record may be had (the caller stalls the input). */
static int line_txn(struct sc_home *h, struct mem_msg *m, uint64_t line, uint8_t kind)
{
	int i;

	if (line_busy(h, line)) {
		park(h, m);
		return -1;
	}
	i = new_txn(h, line, kind, m);
	if (i < 0) {
		(*h->st.stalls)++;
		return -2;
	}
	return i;
}

static enum apu_recv remote_begin(struct sc_home *h, struct mem_msg *m)
{
	uint64_t line = apu_line_of(m->p.addr);
	uint8_t before;
	struct sc_txn *t;
	int i;

	i = line_txn(h, m, line, SC_K_REMOTE);
	if (i < 0)
		return i == -1 ? APU_TAKE : APU_STALL;
	t = txn_at(h, (unsigned)i);
	t->phase = SC_PH_BEFORE;
	remote_row(m, &before, &t->after);
	(*h->st.remote_ops)++;
	if (!broadcast(h, (unsigned)i, before))
		phase_done(h, (unsigned)i);
	return APU_TAKE;
}

/* ---- registration (README.md §6) ---------------------------------------------------------------- */

/* The L1 holding line registered (the owner id in the L2 line, seed 004 §2.4), or -1; and
 * the number of its GetR that registration came from (*grant, SC_TS_GRANT). */
static int reg_owner(struct sc_home *h, uint64_t line, uint32_t *grant)
{
	struct cache_line *l = cache_lookup(gpu_l2_cache(h->l2), line);

	if (!l || !l->meta[0])
		return -1;
	*grant = (uint32_t)l->meta[1];
	return (int)l->meta[0] - 1;
}

/* A data write of an L1: a store, or (DeNovo-B) the written bytes of a line it evicted before
 * registering them (an UnReg is SC_MSG_UNREG here). */
static bool is_data_write(const struct mem_msg *m)
{
	return m->type == GPU_MSG_WRITE || m->type == GPU_MSG_WRITEBACK;
}

/* Does the L2 line (may be NULL) still name record t's owner and grant? */
static bool names_owner(const struct cache_line *l, const struct sc_txn *t)
{
	return l && l->meta[0] == (uint64_t)t->owner + 1 && (uint32_t)l->meta[1] == t->grant;
}

static bool is_fwd(const struct sc_txn *t)
{
	return t->kind == SC_K_READ || t->kind == SC_K_WRITE;
}

/* A forward carries a data write's bytes, for the owner's copy. */
static void fwd_write_bytes(const struct sc_home *h, struct mem_msg *p, const struct mem_msg *w)
{
	memcpy(p->p.data, w->p.data, h->ctx->l2->line_bytes);
	p->byte_mask[0] = w->byte_mask[0];
	p->byte_mask[1] = w->byte_mask[1];
	p->req_bytes = (uint16_t)gpu_mask_bytes(p->byte_mask);
}

/* Record i asks its owner for the line: a recall (registration leaves it), or a forward. */
static void send_recall(struct sc_home *h, unsigned i)
{
	struct sc_txn *t = txn_at(h, i);
	struct mem_msg *m =
	    probe_msg(h, is_fwd(t) ? SC_MSG_FWD : SC_MSG_RECALL, t->line, t->owner, i);

	if (!m)
		return;
	m->ts[SC_TS_GRANT] = t->grant;
	if (t->kind == SC_K_WRITE)
		fwd_write_bytes(h, m, t->req);
	t->phase = SC_PH_RECALL;
	sc_acks_expect(h->acks, i, 1);
	(*(is_fwd(t) ? h->st.forwards : h->st.recalls))++;
	(*h->st.probes)++;
	apu_port_send(h->port, m, 0);
}

/* Record i recalls line (or forwards to it) from `owner`, registered by its GetR `grant`. */
static void recall_owner(struct sc_home *h, unsigned i, unsigned owner, uint32_t grant)
{
	txn_at(h, i)->owner = (uint16_t)owner;
	txn_at(h, i)->grant = grant;
	send_recall(h, i);
}

/* d, the owner's data of a recall or forward (its ack or its own UnReg), becomes the owner's
 * UnReg for the bank: registration passes to L1 `to` by its GetR number `grant` (SC_F_XFER;
 * a forward's: back to the owner itself), or goes back to the L2 (to < 0). */
static void as_unreg(const struct sc_home *h, struct mem_msg *d, unsigned owner, int to,
		     uint32_t grant)
{
	d->type = SC_MSG_UNREG;
	d->vnet = SC_VNET_REQ;
	d->src = (uint16_t)owner;
	d->txn = GPU_TXN_WRITEBACK;
	d->flags = to >= 0 ? SC_F_XFER : 0;
	d->requester = (uint16_t)(to >= 0 ? to : 0);
	d->ts[SC_TS_GRANT] = to >= 0 ? grant : 0;
	d->sector_mask =
	    gpu_all_sectors((unsigned)h->ctx->l2->line_bytes, (unsigned)h->ctx->l2->sector_bytes);
}

/* The recall of record i has the owner's line (and its ack): the line goes to the bank as an
 * UnReg of the owner (the bytes its atomics wrote), registration passing straight to a GetR's
 * requester (a forward's: staying with the owner, unless the data was the owner's own UnReg);
 * then the request behind it. */
static void release_followers(struct sc_home *h, unsigned i);

/* Has the owner of record i's registration given it back since it answered i's forward from
 * its copy? GAVE_NO; GAVE_AT_BANK: its UnReg is served (the L2 line names another owner or
 * grant, or is gone) or pushed to the bank by another record; GAVE_HELD: another record holds
 * the UnReg, waiting for its own ack, or the bank evicted the line and its recall has not
 * brought the owner's data yet (the eviction's record releases the access, release_followers). */
enum { GAVE_NO, GAVE_AT_BANK, GAVE_HELD };

static int owner_gave_back(struct sc_home *h, unsigned i)
{
	const struct sc_txn *t = txn_at(h, i);
	const struct cache_line *l = cache_lookup(gpu_l2_cache(h->l2), t->line);
	int gave = GAVE_NO;

	for (unsigned j = 0; !l && j < sc_acks_cap(h->acks); j++) {
		const struct sc_txn *o = txn_at(h, j);

		/* the bank evicted the line after the forward left: the owner's data of the
		 * eviction's recall is not at the bank yet, and memory is stale until it is */
		if (j != i && sc_acks_live(h->acks, j) && o->line == t->line &&
		    o->kind == SC_K_EVICT && o->owner == t->owner && !o->carry)
			return GAVE_HELD;
	}
	if (!names_owner(l, t))
		return GAVE_AT_BANK;
	for (unsigned j = 0; j < sc_acks_cap(h->acks); j++) {
		const struct sc_txn *o = txn_at(h, j);

		if (j == i || !sc_acks_live(h->acks, j) || o->line != t->line ||
		    o->owner != t->owner || o->data_is_ack)
			continue;
		if (o->carry)
			return GAVE_AT_BANK;
		if (o->data)
			gave = GAVE_HELD;
	}
	return gave;
}

static void recall_done(struct sc_home *h, unsigned i)
{
	struct sc_txn *t = txn_at(h, i);
	struct mem_msg *d = t->data;
	bool unreg = !t->data_is_ack;

	t->data = NULL;
	if (is_fwd(t) && t->data_is_ack) {
		int gave = owner_gave_back(h, i);

		if (gave != GAVE_NO) {
			/* the owner answered from its copy, then evicted it: its UnReg (newer)
			 * ends the registration, and this copy must neither register it again
			 * nor go over the UnReg's data; the access is served by the bank behind
			 * that UnReg (a follower of the record holding it, release_followers) */
			(*h->st.fwd_after_unreg)++;
			tlm_payload_release(&d->p);
			t->data_is_ack = false;
			if (gave == GAVE_HELD)
				return;
			t->phase = SC_PH_AT_BANK;
			bank_push(h, t->req, i);
			return;
		}
	}
	t->carry = d;
	if (t->kind == SC_K_GETR)
		as_unreg(h, d, t->owner, t->req->src, (uint32_t)t->req->ts[SC_TS_GRANT]);
	else if (is_fwd(t) && t->data_is_ack)
		as_unreg(h, d, t->owner, t->owner, t->grant);
	else
		as_unreg(h, d, t->owner, -1, 0);
	t->phase = SC_PH_AT_BANK;
	bank_push(h, d, i);
	if (t->req)
		bank_push(h, t->req, i);
	if (unreg || t->kind == SC_K_EVICT)
		release_followers(h, i);
}

/* A GetR (b2/b5, c1/c5): registration from the L2, or recalled from the L1 holding it; or a
 * relaxed atomic (no registration) on a line an L1 holds, recalled to the bank, which then
 * performs the atomic. Serialised per line with the line's other registration requests. */
static enum apu_recv reg_begin(struct sc_home *h, struct mem_msg *m, uint64_t line)
{
	bool getr = m->type == SC_MSG_GETR;
	uint32_t grant = 0;
	int i, owner;
	struct sc_txn *t;

	i = line_txn(h, m, line, getr ? SC_K_GETR : SC_K_ATOMIC);
	if (i < 0)
		return i == -1 ? APU_TAKE : APU_STALL;
	t = txn_at(h, (unsigned)i);
	owner = reg_owner(h, line, &grant);
	if (owner >= 0 && (!getr || owner != m->src)) {
		/* a relaxed atomic's sender may itself be the stale owner: its UnReg answers */
		t->recalled = getr;
		if (!getr)
			(*h->st.atomic_recalls)++;
		recall_owner(h, (unsigned)i, (unsigned)owner, grant);
		return APU_TAKE;
	}
	if (owner >= 0) {
		sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: sm%u asks for %#llx, registered to it",
			 h->bank, m->src, (unsigned long long)line);
		return APU_TAKE;
	}
	t->phase = SC_PH_AT_BANK;
	bank_push(h, m, (unsigned)i);
	return APU_TAKE;
}

/* Is the line's one live record a forward (which ends without waiting for any flush)? */
static bool line_fwd_only(struct sc_home *h, uint64_t line)
{
	for (unsigned i = 0; i < sc_acks_cap(h->acks); i++)
		if (sc_acks_live(h->acks, i) && txn_at(h, i)->line == line && !is_fwd(txn_at(h, i)))
			return false;
	return true;
}

/* A data read or write of another L1 to a line registered in an L1 (DeNovo's indirection,
 * seed 004 §2.4; hLRC's corner case 2 seen from another L1). The bytes the owner's atomics
 * wrote are newer there: for a read the home forwards for them (the owner keeps registration)
 * and serves the read behind them; a write's bytes go into the owner's copy first (its atomics
 * would go on from bytes the write replaced, and its UnReg would write them back over it). A
 * forward does not wait for the owner's flush (a data access is not synchronization).
 * Forwards of a line run side by side. Under hLRC a data access that finds a registration
 * transfer under way (which may wait for a flush, and a held write could be one that flush
 * waits for) goes to the bank unforwarded (a data access racing an atomic's transfer); under
 * DeNovo-B, which owes no flush, it waits for the transfer (home_recv). The seed's programs never touch an atomic's word with a data access; ours do
 * (PageRank's ranks, read and reset by plain accesses). */
static enum apu_recv reg_data(struct sc_home *h, struct mem_msg *m, uint64_t line, unsigned owner,
			      uint32_t grant)
{
	int i;

	/* never parked, not even behind another forward (a parked write could end up behind a
	 * transfer once the forward is over): forwards of a line run side by side */
	i = new_txn(h, line, m->type == GPU_MSG_READ ? SC_K_READ : SC_K_WRITE, m);
	if (i < 0) {
		(*h->st.stalls)++;
		return APU_STALL;
	}
	recall_owner(h, (unsigned)i, owner, grant);
	return APU_TAKE;
}

static bool unreg_of(const struct mem_msg *m, void *owner)
{
	return m->type == SC_MSG_UNREG && m->src == *(const unsigned *)owner;
}

/* Record i's owner gave the line back: its UnReg pushed to the bank by another record
 * (carried), or served already (the L2 line names another owner or grant, or is gone with no
 * other record waiting for the owner's data: a write-through bank drops a line once it is no
 * longer registered)? Not when another record holds it or waits for it (the UnReg releases
 * them together, release_followers). */
static bool unreg_at_bank(struct sc_home *h, unsigned i)
{
	const struct sc_txn *t = txn_at(h, i);
	const struct cache_line *l = cache_lookup(gpu_l2_cache(h->l2), t->line);
	bool others = false;

	if (l && !names_owner(l, t))
		return true;
	for (unsigned j = 0; j < sc_acks_cap(h->acks); j++) {
		const struct sc_txn *o = txn_at(h, j);

		if (j == i || !sc_acks_live(h->acks, j) || o->line != t->line ||
		    o->owner != t->owner)
			continue;
		if (o->carry && !o->data_is_ack)
			return true;
		/* a recall or forward not answered yet may still bring the owner's UnReg; one
		 * answered empty waits like i */
		if ((o->data && !o->data_is_ack) ||
		    (o->phase == SC_PH_RECALL && !o->data && !o->acked))
			others = true;
	}
	return !l && !others;
}

/* Record i's recall or forward was answered empty and the owner's UnReg went to the bank
 * through another record: i's request follows it there (an eviction's record is done: the
 * data is on its way to the bank). */
static void follow_unreg(struct sc_home *h, unsigned i)
{
	struct sc_txn *t = txn_at(h, i);

	if (!t->req) {
		txn_close(h, i, NULL);
		return;
	}
	t->phase = SC_PH_AT_BANK;
	bank_push(h, t->req, i);
}

/* Record i pushed its owner's UnReg to the bank: the line's other records whose empty acks
 * wait for that UnReg follow it. */
static void release_followers(struct sc_home *h, unsigned i)
{
	const struct sc_txn *t = txn_at(h, i);

	for (unsigned j = 0; j < sc_acks_cap(h->acks); j++) {
		const struct sc_txn *o = txn_at(h, j);

		if (j != i && sc_acks_live(h->acks, j) && o->line == t->line &&
		    o->owner == t->owner && o->phase == SC_PH_RECALL && o->acked && !o->data)
			follow_unreg(h, j);
	}
}

/* The record whose recall waits for `owner`'s data of line (-1: none). */
static int recall_waiting(struct sc_home *h, uint64_t line, unsigned owner)
{
	for (unsigned i = 0; i < sc_acks_cap(h->acks); i++) {
		struct sc_txn *t = txn_at(h, i);

		if (sc_acks_live(h->acks, i) && t->line == line && t->phase == SC_PH_RECALL &&
		    t->owner == owner && !t->data)
			return (int)i;
	}
	return -1;
}

/* An L1 gives back an evicted registered line. Its data answers a recall that found the line
 * gone; else it goes to the bank (serialised with the line's other registration requests). */
static enum apu_recv reg_unreg(struct sc_home *h, struct mem_msg *m, uint64_t line)
{
	int i = recall_waiting(h, line, m->src);

	(*h->st.unregs)++;
	if (i >= 0) {
		txn_at(h, (unsigned)i)->data = m;
		if (txn_at(h, (unsigned)i)->acked)
			recall_done(h, (unsigned)i);
		return APU_TAKE;
	}
	i = line_txn(h, m, line, SC_K_UNREG);
	if (i < 0)
		return i == -1 ? APU_TAKE : APU_STALL;
	txn_at(h, (unsigned)i)->phase = SC_PH_AT_BANK;
	bank_push(h, m, (unsigned)i);
	return APU_TAKE;
}

/* A recall's or forward's ack: the line with it, or (the owner had evicted it) its UnReg to
 * wait for: one parked behind an earlier record is taken now (it would wait behind this one).
 * A write's forward the owner took: the write goes to the bank. */
static void recall_ack(struct sc_home *h, unsigned i, struct mem_msg *m)
{
	struct sc_txn *t = txn_at(h, i);

	t->acked = true;
	if ((m->flags & SC_F_SHARED) && t->data) {
		/* a forward the owner answered from its copy, which it then evicted: its UnReg
		 * overtook the ack (another vnet) and is the newer data, and it ends the
		 * registration; it goes to the bank, the request behind it */
		(*h->st.fwd_after_unreg)++;
		tlm_payload_release(&m->p);
		recall_done(h, i);
		return;
	}
	if (t->kind == SC_K_WRITE && (m->flags & SC_F_SHARED)) {
		tlm_payload_release(&m->p);
		t->phase = SC_PH_AT_BANK;
		bank_push(h, t->req, i);
		return;
	}
	if (m->flags & (SC_F_GAVE_UP | SC_F_SHARED)) {
		t->data = m;
		t->data_is_ack = true;
	} else {
		unsigned owner = t->owner;

		tlm_payload_release(&m->p);
		if (!t->data) {
			t->data = apu_port_unpark(h->port, t->line, unreg_of, &owner);
			if (t->data)
				(*h->st.unregs)++;
		}
		if (!t->data && unreg_at_bank(h, i)) {
			/* the UnReg is at the bank: the line's records answered empty before
			 * this one (which saw this one waiting) follow it too */
			release_followers(h, i);
			follow_unreg(h, i);
			return;
		}
	}
	if (t->data)
		recall_done(h, i);
}

/* Will `owner`'s data of line reach the bank through a live record (its UnReg, a recall)? */
static bool owner_data_coming(struct sc_home *h, uint64_t line, unsigned owner)
{
	for (unsigned i = 0; i < sc_acks_cap(h->acks); i++) {
		struct sc_txn *t = txn_at(h, i);

		/* a forward's data goes back with registration kept: no help */
		if (!sc_acks_live(h->acks, i) || t->line != line ||
		    (is_fwd(t) && (!t->acked || t->data_is_ack)))
			continue;
		if ((t->kind == SC_K_UNREG && t->req->src == owner) ||
		    ((t->phase == SC_PH_RECALL || t->carry) && t->owner == owner))
			return true;
	}
	return false;
}

static void lt_evict_recall(struct sc_home *h, uint64_t line, unsigned owner, uint32_t grant);

/* The bank's registered lines: one more (or fewer) when a line's owner id is set (cleared);
 * the most at once is the registered footprint (seed 004 §V.B: 24 KB of atomics under hLRC,
 * megabytes of written data under DeNovo-B). */
static void reg_count(struct sc_home *h, bool was, bool now)
{
	if (!was && now && ++h->reg_lines > *h->st.peak_lines)
		*h->st.peak_lines = h->reg_lines;
	else if (was && !now)
		h->reg_lines--;
}

/* The bank evicts a registered line (the policy's evicted hook): it is recalled from its
 * owner, whose data then goes to memory through the bank (corner case 5); the line's
 * registration requests wait for it. */
static void reg_evicted(void *ps, const struct cache_line *l)
{
	struct sc_home *h = ((struct sc_reg_ps *)ps)->h;
	unsigned owner = (unsigned)l->meta[0] - 1;
	int i;

	if (!l->meta[0])
		return;
	reg_count(h, true, false);
	if (h->lt_bank_delay) {
		lt_evict_recall(h, l->addr, owner, (uint32_t)l->meta[1]);
		return;
	}
	if (owner_data_coming(h, l->addr, owner))
		return;
	i = new_txn(h, l->addr, SC_K_EVICT, NULL);
	if (i < 0) {
		sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory", h->bank);
		return;
	}
	(*h->st.evict_recalls)++;
	recall_owner(h, (unsigned)i, owner, (uint32_t)l->meta[1]);
}

/* ---- the bank ------------------------------------------------------------------------------------ */

/* Offers m to the bank; when the bank holds it and owes END_REQ, bank_open says so. */
static void to_bank(struct sc_home *h, struct mem_msg *m)
{
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;
	enum tlm_sync_enum r = tlm_nb_transport_fw(&h->to_bank, &m->p, &ph, &d);

	if (r == TLM_ACCEPTED) {
		h->bank_open = m;
		return;
	}
	if (r == TLM_COMPLETED || (r == TLM_UPDATED && ph == TLM_BEGIN_RESP))
		answer(h, m); /* answered at once (not done by gpu_l2_base.c today) */
}

/* The records' messages go to the bank first. */
static void offer_ready(void *owner, void *arg)
{
	struct sc_home *h = owner;

	(void)arg;
	while (h->ready.n && !h->bank_open) {
		struct mem_msg *m = msgq_head(&h->ready)->m;

		msgq_pop(&h->ready);
		to_bank(h, m);
	}
	if (!h->bank_open)
		apu_port_kick(h->port);
}

static enum apu_recv home_recv(void *owner, struct mem_msg *m)
{
	struct sc_home *h = owner;
	uint64_t line = apu_line_of(m->p.addr);

	if (m->vnet == SC_VNET_RSP) {
		uint32_t i = m->txn;
		int r = m->type == SC_MSG_ACK ? sc_acks_one(h->acks, i) : -1;

		if (r < 0) {
			tlm_payload_release(&m->p);
			sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: an answer no record waits for",
				 h->bank);
			return APU_TAKE;
		}
		(*h->st.acks)++;
		txn_at(h, i)->acks_in++;
		if (txn_at(h, i)->phase == SC_PH_RECALL) {
			recall_ack(h, i, m);
			return APU_TAKE;
		}
		tlm_payload_release(&m->p);
		if (r)
			phase_done(h, i);
		return APU_TAKE;
	}
	m->ts[SC_TS_REC] = 0;
	if (is_remote(m))
		return remote_begin(h, m);
	if (h->rv) {
		if (m->type == SC_MSG_UNREG)
			return reg_unreg(h, m, line);
		/* an atomic reaching the bank is relaxed: performed there, the line recalled
		 * first if an L1 holds it */
		if (m->type == SC_MSG_GETR ||
		    (m->type == GPU_MSG_ATOMIC &&
		     (line_busy(h, line) || reg_owner(h, line, &(uint32_t){0}) >= 0)))
			return reg_begin(h, m, line);
		if (m->type == GPU_MSG_READ || is_data_write(m)) {
			uint32_t grant = 0;
			int o = reg_owner(h, line, &grant);

			if (o >= 0 && o != m->src && line_fwd_only(h, line))
				return reg_data(h, m, line, (unsigned)o, grant);
			if ((o >= 0 && h->rv->store_reg && line_busy(h, line)) ||
			    (o < 0 && m->type == GPU_MSG_READ &&
			     line_has_txn(h, line, SC_K_EVICT))) {
				/* DeNovo-B: the only up-to-date copy of written data is the
				 * owner's, on its way through a transfer or an UnReg: the access
				 * waits for it (no flush is owed there, so nothing waits for it).
				 * Any registration: a read of a line the bank evicted (it no longer
				 * knows the owner) waits for the owner's data, on the way to memory,
				 * which is stale until it lands (seen at full size as lost ranks).
				 * Not a write: the owner's write-throughs drain before its recall
				 * can be answered */
				park(h, m);
				return APU_TAKE;
			}
		}
	}
	if (h->bank_open || h->ready.n)
		return APU_STALL;
	to_bank(h, m);
	/* a woken message (a relaxed atomic whose line is free again) that took no record: no
	 * record's end will wake the line's next one, so it is woken now */
	if (h->rv && !line_busy(h, line))
		apu_port_wake(h->port, line, NULL);
	return APU_TAKE;
}

/* The bank's answer to m, a message of record i. */
static void txn_answer(struct sc_home *h, unsigned i, struct mem_msg *m)
{
	struct sc_txn *t = txn_at(h, i);

	m->ts[SC_TS_REC] = 0;
	if (t->kind == SC_K_REMOTE) {
		phase_done(h, i);
		return;
	}
	if (m == t->carry) {
		/* the owner's data is in the bank: an UnReg is answered, an ack's data is not */
		t->carry = NULL;
		m->flags = 0;
		if (t->data_is_ack)
			tlm_payload_release(&m->p);
		else
			answer(h, m);
		if (t->kind == SC_K_EVICT)
			txn_close(h, i, NULL);
		return;
	}
	if (t->kind == SC_K_GETR)
		(*(t->recalled ? h->st.getr_remote : h->st.getr_l2))++;
	txn_close(h, i, m);
}

/* The bank's side of the request/response handshake. */
static enum tlm_sync_enum bank_bw(void *obj, struct tlm_payload *pl, enum tlm_phase *ph,
				  sim_time_t *d)
{
	struct sc_home *h = obj;
	struct mem_msg *m = mem_msg_of(pl);

	(void)d;
	if (*ph == TLM_END_REQ || (*ph == TLM_BEGIN_RESP && h->bank_open == m)) {
		h->bank_open = NULL;
		apu_port_trigger(h->port, 0, offer_ready, NULL);
	}
	if (*ph == TLM_END_REQ)
		return TLM_ACCEPTED;
	if (*ph != TLM_BEGIN_RESP) {
		sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: unexpected %s from the bank", h->bank,
			 tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (m->ts[SC_TS_REC]) {
		unsigned i = (unsigned)m->ts[SC_TS_REC] - 1;

		if (!sc_acks_live(h->acks, i)) {
			sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: an answer without its record",
				 h->bank);
			return TLM_COMPLETED;
		}
		txn_answer(h, i, m);
		return TLM_COMPLETED;
	}
	answer(h, m);
	return TLM_COMPLETED;
}

static const struct tlm_bw_ops bank_bw_ops = {.nb_transport_bw = bank_bw};

/* ---- the LT face (README.md §5) ---------------------------------------------------------------- */

/* Performs a broadcast functionally: each probe leaves after the ones before it have left the
 * injection port, its ack comes back by b_transport; *delay becomes the latest ack's. */
static void lt_broadcast(struct sc_home *h, const struct mem_msg *req, uint8_t type,
			 sim_time_t *delay)
{
	const struct noc *noc = h->ctx->lt_clock ? h->ctx->lt_clock->noc : NULL;
	sim_time_t start = *delay, latest = *delay, inj = 0;

	for (unsigned sm = 0; sm < h->ctx->sms; sm++) {
		struct mem_msg *m;
		sim_time_t d;

		if (sm == req->src)
			continue;
		m = probe_msg(h, type, req->p.addr, sm, 0);
		if (!m)
			return;
		m->src = (uint16_t)h->ep;
		d = start + inj;
		m->sent_ps = sim_now(h->ctx->k) + d;
		if (noc)
			inj += sim_clock_delay(noc_clock(noc), sim_now(h->ctx->k) + d,
					       noc_flits(noc, m->req_bytes));
		tlm_b_transport(apu_port_initiator(h->port), &m->p, &d);
		tlm_payload_release(&m->p);
		(*h->st.probes)++;
		(*h->st.acks)++;
		(*h->st.acks_before_answer)++; /* the answer waits for the latest (below) */
		if (d > latest)
			latest = d;
	}
	(*h->st.broadcasts)++;
	*delay = latest;
}

/* LT: a recall (or, w given, a forward; w a data write: with its bytes) of line, registered
 * by the owner's GetR number `grant`, by b_transport at *delay (its ack's arrival is the new
 * *delay); the owner's ack with its data, or NULL when the owner had nothing (a protocol error
 * in this face, where an UnReg is at the bank once sent). */
static struct mem_msg *lt_recall(struct sc_home *h, uint64_t line, unsigned owner, uint32_t grant,
				 const struct mem_msg *w, sim_time_t *delay)
{
	struct mem_msg *p = probe_msg(h, w ? SC_MSG_FWD : SC_MSG_RECALL, line, owner, 0);
	struct mem_msg *d;

	if (!p)
		return NULL;
	p->ts[SC_TS_GRANT] = grant;
	p->src = (uint16_t)h->ep;
	p->sent_ps = sim_now(h->ctx->k) + *delay;
	if (w && is_data_write(w))
		fwd_write_bytes(h, p, w);
	(*(w ? h->st.forwards : h->st.recalls))++;
	(*h->st.probes)++;
	(*h->st.acks)++;
	tlm_b_transport(apu_port_initiator(h->port), &p->p, delay);
	tlm_payload_release(&p->p);
	d = h->lt_ack;
	h->lt_ack = NULL;
	if (!d || !(d->flags & (w ? SC_F_SHARED : SC_F_GAVE_UP))) {
		if (d)
			tlm_payload_release(&d->p);
		sim_fail(h->ctx->k, -CS_EPROTO, "l2.bank%u: sm%u did not give %#llx up (LT)",
			 h->bank, owner, (unsigned long long)line);
		return NULL;
	}
	return d;
}

/* LT: the bank performs m (its delay grows); the data its evictions recalled meanwhile
 * follows it into the bank (without delaying m's requester). */
static void lt_bank(struct sc_home *h, struct mem_msg *m, sim_time_t *delay)
{
	sim_time_t *outer = h->lt_bank_delay;

	h->lt_bank_delay = delay;
	tlm_b_transport(&h->to_bank, &m->p, delay);
	h->lt_bank_delay = outer;
	while (!outer && h->n_later) {
		struct mem_msg *d = h->lt_later[--h->n_later];
		sim_time_t t = *delay;

		h->lt_bank_delay = &t;
		tlm_b_transport(&h->to_bank, &d->p, &t);
		h->lt_bank_delay = NULL;
		tlm_payload_release(&d->p);
	}
}

/* LT: line recalled from owner (registered by its GetR `grant`) back to the L2 at *delay: its
 * data goes into the bank as the owner's UnReg (*delay: after it). false after a model
 * error. */
static bool lt_recall_to_bank(struct sc_home *h, uint64_t line, unsigned owner, uint32_t grant,
			      sim_time_t *delay)
{
	struct mem_msg *d = lt_recall(h, line, owner, grant, NULL, delay);

	if (!d)
		return false;
	as_unreg(h, d, owner, -1, 0);
	lt_bank(h, d, delay);
	tlm_payload_release(&d->p);
	return true;
}

/* LT: the bank evicted a registered line (reg_evicted): recalled now, its data into the bank
 * once the bank returns. */
static void lt_evict_recall(struct sc_home *h, uint64_t line, unsigned owner, uint32_t grant)
{
	sim_time_t t = *h->lt_bank_delay;
	struct mem_msg *d;

	(*h->st.evict_recalls)++;
	if (h->lt_getr && h->lt_getr->src == owner &&
	    (uint32_t)h->lt_getr->ts[SC_TS_GRANT] == grant) {
		if (h->n_defer == h->cap_defer) {
			unsigned cap = h->cap_defer ? 2 * h->cap_defer : 4;
			struct lt_defer *n = realloc(h->lt_defer, cap * sizeof(*n));

			if (!n) {
				sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory",
					 h->bank);
				return;
			}
			h->lt_defer = n;
			h->cap_defer = cap;
		}
		h->lt_defer[h->n_defer++] = (struct lt_defer){line, grant, (uint16_t)owner};
		return;
	}
	d = lt_recall(h, line, owner, grant, NULL, &t);
	if (!d)
		return;
	as_unreg(h, d, owner, -1, 0);
	if (h->n_later == h->cap_later) {
		unsigned cap = h->cap_later ? 2 * h->cap_later : 4;
		struct mem_msg **n = realloc(h->lt_later, cap * sizeof(*n));

		if (!n) {
			tlm_payload_release(&d->p);
			sim_fail(h->ctx->k, -CS_ENOMEM, "l2.bank%u: out of memory", h->bank);
			return;
		}
		h->lt_later = n;
		h->cap_later = cap;
	}
	h->lt_later[h->n_later++] = d;
}

static void home_b_transport(void *owner, struct mem_msg *m, sim_time_t *delay)
{
	struct sc_home *h = owner;
	uint8_t before = 0, after = 0;

	if (m->vnet == SC_VNET_RSP) {
		/* an ack: a broadcast reads *delay; a recall keeps its line (a reference: the L1
		 * releases its own once its b_transport returns) */
		if (h->rv && (m->flags & (SC_F_GAVE_UP | SC_F_SHARED)) && !h->lt_ack) {
			tlm_payload_acquire(&m->p);
			h->lt_ack = m;
		}
		return;
	}
	if (is_remote(m)) {
		(*h->st.remote_ops)++;
		remote_row(m, &before, &after);
		lt_broadcast(h, m, before, delay);
	}
	if (h->rv && (m->type == GPU_MSG_READ || is_data_write(m))) {
		uint64_t line = apu_line_of(m->p.addr);
		uint32_t grant = 0;
		int o = reg_owner(h, line, &grant);

		if (o >= 0 && o != m->src) {
			/* forwarded (reg_data): a write's bytes go into the owner's copy; a read's
			 * answer, the owner's bytes, goes into the bank with registration kept, the
			 * read following it through the bank's pipeline (not its whole latency) */
			struct mem_msg *d = lt_recall(h, line, (unsigned)o, grant, m, delay);
			sim_time_t t = *delay;

			if (!d) {
				m->p.status = TLM_GENERIC_ERROR_RESPONSE;
				return;
			}
			if (m->type == GPU_MSG_READ) {
				as_unreg(h, d, (unsigned)o, o, grant);
				lt_bank(h, d, &t);
			}
			tlm_payload_release(&d->p);
		}
	} else if (h->rv && m->type == GPU_MSG_ATOMIC) {
		/* a relaxed atomic: the line recalled to the bank first if an L1 holds it */
		uint64_t line = apu_line_of(m->p.addr);
		uint32_t grant = 0;
		int o = reg_owner(h, line, &grant);

		if (o >= 0) {
			if (!lt_recall_to_bank(h, line, (unsigned)o, grant, delay)) {
				m->p.status = TLM_GENERIC_ERROR_RESPONSE;
				return;
			}
			(*h->st.atomic_recalls)++;
		}
	} else if (h->rv && m->type == SC_MSG_GETR) {
		uint64_t line = apu_line_of(m->p.addr);
		uint32_t grant = 0;
		int o = reg_owner(h, line, &grant);

		if (o >= 0 && o != m->src) {
			struct mem_msg *d = lt_recall(h, line, (unsigned)o, grant, NULL, delay);

			if (!d) {
				m->p.status = TLM_GENERIC_ERROR_RESPONSE;
				return;
			}
			as_unreg(h, d, (unsigned)o, m->src, (uint32_t)m->ts[SC_TS_GRANT]);
			lt_bank(h, d, delay);
			tlm_payload_release(&d->p);
			(*h->st.getr_remote)++;
		} else if (o >= 0) {
			sim_fail(h->ctx->k, -CS_EPROTO,
				 "l2.bank%u: sm%u asks for %#llx, registered to it (LT)", h->bank,
				 m->src, (unsigned long long)line);
			m->p.status = TLM_GENERIC_ERROR_RESPONSE;
			return;
		} else {
			(*h->st.getr_l2)++;
		}
	} else if (h->rv && m->type == SC_MSG_UNREG) {
		(*h->st.unregs)++;
	}
	h->lt_getr = h->rv && m->type == SC_MSG_GETR ? m : NULL;
	lt_bank(h, m, delay);
	h->lt_getr = NULL;
	if (after)
		lt_broadcast(h, m, after, delay);
	m->dst = m->src;
	m->vnet = SC_VNET_RSP;
	m->type = m->resp_type;
	m->req_bytes = m->resp_bytes;
	tlm_b_transport(apu_port_initiator(h->port), &m->p, delay);
	while (h->n_defer) {
		/* the evictions' recalls that waited for the answer just given */
		struct lt_defer e = h->lt_defer[--h->n_defer];
		sim_time_t t = *delay;

		if (!lt_recall_to_bank(h, e.line, e.owner, e.grant, &t))
			return;
	}
}

static const struct apu_port_ops home_port_ops = {.recv = home_recv,
						  .b_transport = home_b_transport};

/* ---- gpu_l2_ops ------------------------------------------------------------------------------- */

static void home_destroy(struct gpu_l2 *l2)
{
	struct sc_home *h = home_of(l2);

	if (!h)
		return;
	apu_port_destroy(h->port);
	if (h->ready.s)
		msgq_release_all(&h->ready);
	msgq_free(&h->ready);
	for (unsigned i = 0; h->acks && i < sc_acks_cap(h->acks); i++) {
		struct sc_txn *t = sc_acks_user(h->acks, i);

		if (!sc_acks_live(h->acks, i))
			continue;
		/* at the bank, the request is in `ready` (released above) or the bank's */
		if (t->req && t->phase != SC_PH_AT_BANK)
			tlm_payload_release(&t->req->p);
		if (t->data)
			tlm_payload_release(&t->data->p);
	}
	sc_acks_destroy(h->acks);
	for (unsigned i = 0; i < h->n_later; i++)
		tlm_payload_release(&h->lt_later[i]->p);
	free(h->lt_later);
	free(h->lt_defer);
	if (h->lt_ack)
		tlm_payload_release(&h->lt_ack->p);
	gpu_l2_destroy(h->l2);
	free(h);
}

/* ---- the registration policy of the bank (README.md §6) -------------------------------------- */

/* A GetR registers the line to its requester (the owner id in the L2 line); an UnReg gives it
 * back to the L2, or (a recall's, SC_F_XFER) passes it to the GetR behind it. */
/* What a served message does to the line's owner id. */
static void reg_update(struct cache_line *l, const struct mem_msg *m)
{
	if (m->type == SC_MSG_GETR) {
		l->meta[0] = (uint64_t)m->src + 1;
		l->meta[1] = m->ts[SC_TS_GRANT];
	} else if (m->type == SC_MSG_UNREG && (m->flags & SC_F_XFER)) {
		l->meta[0] = (uint64_t)m->requester + 1;
		l->meta[1] = m->ts[SC_TS_GRANT];
	} else if (m->type == SC_MSG_UNREG && l->meta[0] == (uint64_t)m->src + 1) {
		l->meta[0] = 0;
		l->meta[1] = 0;
	}
}

static void reg_served(void *ps, struct cache_line *l, struct mem_msg *m, sim_time_t t)
{
	bool was = l->meta[0] != 0;

	(void)t;
	reg_update(l, m);
	reg_count(((struct sc_reg_ps *)ps)->h, was, l->meta[0] != 0);
}

static bool reg_keep(void *ps, const struct cache_line *l)
{
	(void)ps;
	return l->meta[0] != 0;
}

#define REG_L2_POLICY_WB                                                                      \
	.state_size = sizeof(struct sc_reg_ps), .evicted = reg_evicted, .served = reg_served, \
	.base_type = sc_msg_base_type, .keep = reg_keep
#define REG_L2_POLICY REG_L2_POLICY_WB, .write_through = true

static const struct l2_policy reg_l2_policy = {REG_L2_POLICY};

/* Rprio: the same, registered lines replaced last */
static const struct l2_policy reg_l2_policy_rprio = {REG_L2_POLICY, .evict_last = reg_keep};

/* DeNovo-B: registered data comes back write-back (the L2 keeps the written data, seed 004
 * §2.4: "the L2 acts as a write-back cache for dirty data") */
static const struct l2_policy reg_l2_policy_wb = {REG_L2_POLICY_WB};
static const struct l2_policy reg_l2_policy_wb_rprio = {REG_L2_POLICY_WB, .evict_last = reg_keep};

static int home_create_variant(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			       const struct sc_reg_variant *rv, struct gpu_l2 **out,
			       struct cs_err *err)
{
	struct sc_home *h = calloc(1, sizeof(*h));
	char name[32];
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (!h)
		return cs_err_set(err, rc, "l2.bank%u: out of memory", bank);
	h->ctx = ctx;
	h->bank = bank;
	h->ep = ctx->sms + bank;
	h->rv = rv;
	rc = gpu_l2_create_policy(!rv ? &scoped_l2_policy
				  : rv->store_reg
				      ? (rv->rprio ? &reg_l2_policy_wb_rprio : &reg_l2_policy_wb)
				  : rv->rprio ? &reg_l2_policy_rprio
					      : &reg_l2_policy,
				  ctx, bank, g, &h->l2, err);
	if (rc)
		goto fail_quiet;
	if (rv)
		((struct sc_reg_ps *)gpu_l2_policy_state(h->l2))->h = h;
	snprintf(name, sizeof(name), "l2.bank%u", bank);
	rc = apu_port_create(ctx->k,
			     &(struct apu_port_cfg){.name = name,
						    .ep = h->ep,
						    .clock_mhz = ctx->l2->clock_mhz,
						    .in_depth = (unsigned)ctx->l2->input_queue,
						    .per_cycle = 1,
						    .msg_names = sc_msg_names,
						    .n_msgs = SC_MSG_COUNT},
			     &home_port_ops, h, &h->port);
	/* rsp: one record per L1 (each SM has at most one remote atomic per warp in flight, and
	 * a record more than SMs only parks; a full table stalls the REQ input). Registration:
	 * as many as needed (a stalled REQ input could hold the store-buffer writes a recall's
	 * flush waits for) */
	if (!rc)
		rc = sc_acks_create(rv ? 0 : ctx->sms, sizeof(struct sc_txn), &h->acks);
	if (!rc && msgq_init(&h->ready, 4))
		rc = -CS_ENOMEM;
	if (rc)
		goto fail;
	tlm_initiator_init(&h->to_bank, "l2.home", &bank_bw_ops, h);
	if (tlm_bind(&h->to_bank, gpu_l2_noc_port(h->l2))) {
		rc = -CS_EINVAL;
		goto fail;
	}
	h->st.remote_ops = cs_stat_counter(g, "remote_ops", "", "remote-scope atomics performed");
	h->st.broadcasts = cs_stat_counter(g, "broadcasts", "", "probe broadcasts sent");
	h->st.probes = cs_stat_counter(g, "probes", "", "probes sent (N-1 per broadcast)");
	h->st.acks = cs_stat_counter(g, "probe_acks", "", "probe acks counted");
	h->st.parked =
	    cs_stat_counter(g, "remote_parked", "",
			    "requests that waited for their line's record to end (remote "
			    "atomics; registration's GetRs, UnRegs, relaxed atomics; "
			    "DeNovo-B's data accesses)");
	h->st.acks_before_answer =
	    cs_stat_counter(g, "acks_before_answer", "",
			    "acks a remote operation's record had counted when its requester was "
			    "answered (all it was owed)");
	h->st.stalls = cs_stat_counter(g, "remote_stalls", "",
				       "requests held back: every transaction record in use");
	if (rv) {
		h->st.getr_l2 =
		    cs_stat_counter(g, "reg.getr_l2", "",
				    "GetRs of lines registered nowhere (Table 6's L2/Mem hits)");
		h->st.getr_remote = cs_stat_counter(
		    g, "reg.getr_remote", "",
		    "GetRs of lines registered in another L1 (Table 6's remote L1 hits)");
		h->st.recalls = cs_stat_counter(g, "reg.recalls", "", "recalls sent");
		h->st.evict_recalls =
		    cs_stat_counter(g, "reg.evict_recalls", "",
				    "registered lines evicted from the bank and recalled");
		h->st.unregs = cs_stat_counter(g, "reg.unregs", "",
					       "registered lines L1s evicted and gave back");
		h->st.atomic_recalls = cs_stat_counter(
		    g, "reg.atomic_recalls", "",
		    "relaxed atomics on lines registered in an L1, recalled to the bank first");
		h->st.forwards = cs_stat_counter(
		    g, "reg.forwards", "",
		    "data accesses to lines registered in another L1, forwarded to the owner");
		h->st.peak_lines = cs_stat_counter(
		    g, "reg.peak_lines", "lines",
		    "most lines of this bank registered in L1s at once (the registered footprint)");
		h->st.fwd_after_unreg = cs_stat_counter(
		    g, "reg.fwd_after_unreg", "",
		    "forwards the owner answered from its copy before giving the line back, whose "
		    "UnReg came first or was served: the copy dropped");
	}
	*out = (struct gpu_l2 *)(void *)h;
	return 0;
fail:
	cs_err_set(err, rc, "l2.bank%u: %s", bank, cs_strerror(rc));
fail_quiet:
	home_destroy((struct gpu_l2 *)(void *)h);
	return rc;
}

static int home_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
		       struct gpu_l2 **out, struct cs_err *err)
{
	return home_create_variant(ctx, bank, g, NULL, out, err);
}

static int home_create_hlrc(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			    struct gpu_l2 **out, struct cs_err *err)
{
	return home_create_variant(ctx, bank, g, &sc_reg_hlrc, out, err);
}

static int home_create_hlrc_noprio(const struct gpu_ctx *ctx, unsigned bank,
				   struct cs_stat_group *g, struct gpu_l2 **out, struct cs_err *err)
{
	return home_create_variant(ctx, bank, g, &sc_reg_hlrc_noprio, out, err);
}

static int home_create_denovo_b(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
				struct gpu_l2 **out, struct cs_err *err)
{
	return home_create_variant(ctx, bank, g, &sc_reg_denovo_b, out, err);
}

static int home_create_denovo_rprio(const struct gpu_ctx *ctx, unsigned bank,
				    struct cs_stat_group *g, struct gpu_l2 **out,
				    struct cs_err *err)
{
	return home_create_variant(ctx, bank, g, &sc_reg_denovo_rprio, out, err);
}

struct tlm_initiator_socket *sc_home_inject(struct gpu_l2 *l2)
{
	return apu_port_initiator(home_of(l2)->port);
}

struct tlm_target_socket *sc_home_deliver(struct gpu_l2 *l2)
{
	return apu_port_target(home_of(l2)->port);
}

static struct tlm_initiator_socket *home_dram_port(struct gpu_l2 *l2)
{
	return gpu_l2_dram_port(home_of(l2)->l2);
}

/* A host copy of a line registered in an L1 sees the bytes that L1's atomics wrote, and
 * writes its copy too (the host copies one line at a time). */
static void home_functional_reg(struct sc_home *h, uint64_t addr, void *rbuf, const void *wbuf,
				size_t len)
{
	uint32_t grant;
	int owner;

	if (!h->rv || !h->ctx->l1s)
		return;
	owner = reg_owner(h, addr & ~(uint64_t)(h->ctx->l2->line_bytes - 1), &grant);
	if (owner >= 0)
		gpu_l1_reg_functional(h->ctx->l1s[owner], addr, rbuf, wbuf, len);
}

static void home_functional_read(struct gpu_l2 *l2, uint64_t addr, void *buf, size_t len)
{
	gpu_l2_functional_read(home_of(l2)->l2, addr, buf, len);
	home_functional_reg(home_of(l2), addr, buf, NULL, len);
}

static int home_functional_write(struct gpu_l2 *l2, uint64_t addr, const void *buf, size_t len)
{
	home_functional_reg(home_of(l2), addr, NULL, buf, len);
	return gpu_l2_functional_write(home_of(l2)->l2, addr, buf, len);
}

static bool home_probe(const struct gpu_l2 *l2, uint64_t addr, uint64_t out[3])
{
	return gpu_l2_probe(home_of_const(l2)->l2, addr, out);
}

static bool home_idle(const struct gpu_l2 *l2)
{
	const struct sc_home *h = home_of_const(l2);

	return !h->bank_open && !h->ready.n && !sc_acks_used(h->acks) && apu_port_idle(h->port) &&
	       gpu_l2_idle(h->l2);
}

static uint64_t home_digest(const struct gpu_l2 *l2)
{
	return gpu_l2_digest(home_of_const(l2)->l2);
}

/* A home's arrays are its bank's (an owner's id sits in the line, read with its tags); its
 * probes, recalls and forwards are messages, which the networks count. */
static void home_energy(const struct gpu_l2 *l2, struct energy_counts *out)
{
	gpu_l2_energy(home_of_const(l2)->l2, out);
}

const struct gpu_l2_ops sc_home_l2_ops = {
    .create = home_create,
    .destroy = home_destroy,
    .dram_port = home_dram_port,
    .functional_read = home_functional_read,
    .functional_write = home_functional_write,
    .probe = home_probe,
    .idle = home_idle,
    .digest = home_digest,
    .energy = home_energy,
};

/* hLRC's homes (seed 004 §2.5), with and without Rprio: the bank keeps registered lines
 * (inclusion), an owner id in each, and recalls them */
#define SC_HOME_MEMBERS                                                                     \
	.destroy = home_destroy, .dram_port = home_dram_port,                               \
	.functional_read = home_functional_read, .functional_write = home_functional_write, \
	.probe = home_probe, .idle = home_idle, .digest = home_digest, .energy = home_energy

const struct gpu_l2_ops sc_home_hlrc_l2_ops = {
    SC_HOME_MEMBERS,
    .create = home_create_hlrc,
};

const struct gpu_l2_ops sc_home_hlrc_noprio_l2_ops = {
    SC_HOME_MEMBERS,
    .create = home_create_hlrc_noprio,
};

const struct gpu_l2_ops sc_home_denovo_b_l2_ops = {
    SC_HOME_MEMBERS,
    .create = home_create_denovo_b,
};

const struct gpu_l2_ops sc_home_denovo_rprio_l2_ops = {
    SC_HOME_MEMBERS,
    .create = home_create_denovo_rprio,
};
