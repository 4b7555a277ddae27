/*
 * tests/unit/test_tlm.c - payload pool, extensions, sockets and the base-protocol checker,
 * the quantum keeper (tlm/kernel/tlm.c).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "util/error.h"

/* ---- pool ----------------------------------------------------------------------------------- */

START_TEST(test_pool_no_leak)
{
	struct tlm_pool *pool;
	struct tlm_payload *held[64] = {0};
	uint64_t rng = 7;

	ck_assert_int_eq(tlm_pool_create(&pool), 0);
	for (unsigned i = 0; i < 1000000; i++) {
		unsigned slot;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		slot = (unsigned)(rng >> 58);
		if (held[slot]) {
			tlm_payload_release(held[slot]);
			held[slot] = NULL;
		} else {
			struct tlm_payload *p = tlm_payload_alloc(pool);

			if (!p || p->refcnt != 1 || p->data != p->buf ||
			    p->status != TLM_INCOMPLETE_RESPONSE)
				ck_abort_msg("bad payload from the pool at %u", i);
			p->addr = i;
			p->len = 128;
			memset(p->data, (int)(i & 0xff), 128);
			p->status = TLM_OK_RESPONSE;
			held[slot] = p;
		}
	}
	for (unsigned s = 0; s < 64; s++)
		if (held[s])
			tlm_payload_release(held[s]);
	ck_assert_uint_eq(tlm_pool_live(pool), 0);
	/* at most 64 were ever out at once: the pool reused them */
	ck_assert_uint_le(tlm_pool_capacity(pool), 256);
	tlm_pool_destroy(pool);
}
END_TEST

static int ext_freed;

static void ext_free(void *e)
{
	ext_freed += *(int *)e;
	free(e);
}

START_TEST(test_extensions_and_refcount)
{
	struct tlm_pool *pool;
	struct tlm_payload *p, *q;
	int ts, scope, *v;
	char name[16];

	ext_freed = 0;
	ck_assert_int_eq(tlm_pool_create(&pool), 0);
	ts = tlm_ext_register(pool, "gtsc.ts", ext_free);
	scope = tlm_ext_register(pool, "scope", NULL);
	ck_assert_int_eq(ts, 0);
	ck_assert_int_eq(scope, 1);
	ck_assert_int_eq(tlm_ext_register(pool, "scope", NULL), -CS_EEXIST);
	for (int i = 2; i < TLM_MAX_EXTENSIONS; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		ck_assert_int_eq(tlm_ext_register(pool, name, NULL), i);
	}
	ck_assert_int_eq(tlm_ext_register(pool, "one-too-many", NULL), -CS_ERANGE);

	p = tlm_payload_alloc(pool);
	v = malloc(sizeof(*v));
	*v = 5;
	tlm_ext_set(p, ts, v);
	tlm_ext_set(p, scope, (void *)(uintptr_t)3);
	ck_assert_ptr_eq(tlm_ext_get(p, ts), v);
	tlm_payload_acquire(p); /* e.g. a NoC buffer holds it too */
	tlm_payload_release(p);
	ck_assert_int_eq(ext_freed, 0); /* still referenced */
	ck_assert_uint_eq(tlm_pool_live(pool), 1);
	tlm_payload_release(p);
	ck_assert_int_eq(ext_freed, 5);
	ck_assert_uint_eq(tlm_pool_live(pool), 0);
	q = tlm_payload_alloc(pool); /* recycled: extensions cleared */
	ck_assert_ptr_eq(q, p);
	ck_assert_ptr_null(tlm_ext_get(q, ts));
	ck_assert_ptr_null(tlm_ext_get(q, scope));
	ck_assert_uint_ne(q->id, 0);
	tlm_payload_release(q);
	tlm_pool_destroy(pool);
}
END_TEST

/* ---- an AT target and initiator pair --------------------------------------------------------- */

/* How the target answers BEGIN_REQ. */
enum tgt_style { TGT_FOUR_PHASE, TGT_UPDATED_END_REQ, TGT_COMPLETED, TGT_BAD_BEGIN_RESP_EARLY };

struct at_pair {
	struct sim_kernel *k;
	struct tlm_initiator_socket is;
	struct tlm_target_socket ts;
	enum tgt_style style;
	struct tlm_payload *pending;
	int responses, end_resps;
	uint8_t mem[1024];
};

static void tgt_send_resp(struct sim_kernel *k, void *obj, void *arg)
{
	struct at_pair *x = obj;
	struct tlm_payload *p = arg;
	enum tlm_phase ph = TLM_BEGIN_RESP;
	sim_time_t d = 0;

	(void)k;
	p->status = TLM_OK_RESPONSE;
	if (tlm_nb_transport_bw(&x->ts, p, &ph, &d) == TLM_UPDATED && ph == TLM_END_RESP)
		x->end_resps++;
}

static void tgt_send_end_req(struct sim_kernel *k, void *obj, void *arg)
{
	struct at_pair *x = obj;
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t d = 0;

	tlm_nb_transport_bw(&x->ts, arg, &ph, &d);
	sim_schedule(k, 10 * SIM_NS, tgt_send_resp, x, arg);
}

static enum tlm_sync_enum tgt_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				 sim_time_t *d)
{
	struct at_pair *x = obj;

	(void)d;
	if (*ph == TLM_END_RESP) {
		x->end_resps++;
		return TLM_COMPLETED;
	}
	switch (x->style) {
	case TGT_FOUR_PHASE:
		sim_schedule(x->k, 2 * SIM_NS, tgt_send_end_req, x, p);
		return TLM_ACCEPTED;
	case TGT_UPDATED_END_REQ:
		*ph = TLM_END_REQ;
		sim_schedule(x->k, 10 * SIM_NS, tgt_send_resp, x, p);
		return TLM_UPDATED;
	case TGT_COMPLETED:
		p->status = TLM_OK_RESPONSE;
		return TLM_COMPLETED;
	case TGT_BAD_BEGIN_RESP_EARLY:
		/* answers BEGIN_RESP for a different, unknown payload */
		sim_schedule(x->k, 1 * SIM_NS, tgt_send_resp, x, x->pending);
		return TLM_ACCEPTED;
	}
	return TLM_ACCEPTED;
}

static void tgt_b(void *obj, struct tlm_payload *p, sim_time_t *d)
{
	struct at_pair *x = obj;

	if (p->cmd == TLM_WRITE_COMMAND)
		memcpy(&x->mem[p->addr], p->data, p->len);
	else
		memcpy(p->data, &x->mem[p->addr], p->len);
	*d += 10 * SIM_NS;
	p->status = TLM_OK_RESPONSE;
}

static enum tlm_sync_enum ini_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				 sim_time_t *d)
{
	struct at_pair *x = obj;

	(void)d;
	if (*ph == TLM_BEGIN_RESP) {
		x->responses++;
		*ph = TLM_END_RESP;
		(void)p;
		return TLM_UPDATED;
	}
	return TLM_ACCEPTED;
}

static const struct tlm_fw_ops tgt_ops = {.b_transport = tgt_b, .nb_transport_fw = tgt_fw};
static const struct tlm_bw_ops ini_ops = {.nb_transport_bw = ini_bw};

static void pair_init(struct at_pair *x, enum tgt_style style)
{
	struct sim_kernel_opts o = {0};

	memset(x, 0, sizeof(*x));
	ck_assert_int_eq(sim_kernel_create(&o, &x->k), 0);
	x->style = style;
	tlm_initiator_init(&x->is, "cpu.isock", &ini_ops, x);
	tlm_target_init(&x->ts, "mem.tsock", &tgt_ops, x);
	ck_assert_int_eq(tlm_bind(&x->is, &x->ts), 0);
	ck_assert_int_eq(tlm_bind(&x->is, &x->ts), -CS_EEXIST);
	ck_assert_int_eq(tlm_checker_attach(&x->is, x->k), 0);
}

static void pair_fini(struct at_pair *x)
{
	tlm_checker_detach(&x->is);
	sim_kernel_destroy(x->k);
}

struct issue {
	struct at_pair *x;
	struct tlm_payload *p;
};

static void issue_req(struct sim_kernel *k, void *obj, void *arg)
{
	struct at_pair *x = obj;
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;

	(void)k;
	tlm_nb_transport_fw(&x->is, arg, &ph, &d);
}

START_TEST(test_socket_legal_sequences)
{
	/* _i: target style. Each issues 3 requests spaced so request exclusion holds. */
	struct at_pair x;
	struct tlm_pool *pool;
	struct tlm_payload *p[3];

	pair_init(&x, (enum tgt_style)_i);
	ck_assert_int_eq(tlm_pool_create(&pool), 0);
	for (int i = 0; i < 3; i++) {
		p[i] = tlm_payload_alloc(pool);
		sim_schedule(x.k, (sim_time_t)(i * 5 + 1) * SIM_NS, issue_req, &x, p[i]);
	}
	ck_assert_int_eq(sim_run(x.k), 0);
	ck_assert_ptr_null(sim_failure(x.k));
	ck_assert_uint_eq(tlm_checker_violations(&x.is), 0);
	ck_assert_uint_eq(tlm_checker_in_flight(&x.is), 0);
	if (_i == TGT_COMPLETED) {
		ck_assert_int_eq(x.responses, 0);
	} else {
		ck_assert_int_eq(x.responses, 3);
		ck_assert_int_eq(x.end_resps, 3);
	}
	for (int i = 0; i < 3; i++)
		tlm_payload_release(p[i]);
	ck_assert_uint_eq(tlm_pool_live(pool), 0);
	tlm_pool_destroy(pool);
	pair_fini(&x);
}
END_TEST

START_TEST(test_socket_illegal_response)
{
	struct at_pair x;
	struct tlm_pool *pool;
	struct tlm_payload *p, *stranger;

	pair_init(&x, TGT_BAD_BEGIN_RESP_EARLY);
	ck_assert_int_eq(tlm_pool_create(&pool), 0);
	p = tlm_payload_alloc(pool);
	stranger = tlm_payload_alloc(pool);
	x.pending = stranger;
	sim_schedule(x.k, 1 * SIM_NS, issue_req, &x, p);
	ck_assert_int_eq(sim_run(x.k), -CS_EPROTO);
	ck_assert_uint_eq(tlm_checker_violations(&x.is), 1);
	ck_assert_ptr_nonnull(
	    strstr(sim_failure(x.k), "BEGIN_RESP for a transaction with no request"));
	ck_assert_ptr_nonnull(strstr(sim_failure(x.k), "cpu.isock"));
	ck_assert_int_eq(x.responses, 0); /* the illegal call was not delivered */
	tlm_payload_release(p);
	tlm_payload_release(stranger);
	tlm_pool_destroy(pool);
	pair_fini(&x);
}
END_TEST

START_TEST(test_socket_request_exclusion)
{
	struct at_pair x;
	struct tlm_pool *pool;
	struct tlm_payload *a, *b;

	pair_init(&x, TGT_FOUR_PHASE); /* END_REQ comes 2 ns after BEGIN_REQ */
	ck_assert_int_eq(tlm_pool_create(&pool), 0);
	a = tlm_payload_alloc(pool);
	b = tlm_payload_alloc(pool);
	sim_schedule(x.k, 1 * SIM_NS, issue_req, &x, a);
	sim_schedule(x.k, 2 * SIM_NS, issue_req, &x, b); /* before END_REQ of a */
	ck_assert_int_eq(sim_run(x.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(x.k), "request exclusion"));
	tlm_payload_release(a);
	tlm_payload_release(b);
	tlm_pool_destroy(pool);
	pair_fini(&x);
}
END_TEST

static void issue_end_resp(struct sim_kernel *k, void *obj, void *arg)
{
	struct at_pair *x = obj;
	enum tlm_phase ph = TLM_END_RESP;
	sim_time_t d = 0;

	(void)k;
	tlm_nb_transport_fw(&x->is, arg, &ph, &d);
}

START_TEST(test_socket_end_resp_twice)
{
	struct at_pair x;
	struct tlm_pool *pool;
	struct tlm_payload *a;

	pair_init(&x, TGT_FOUR_PHASE);
	ck_assert_int_eq(tlm_pool_create(&pool), 0);
	a = tlm_payload_alloc(pool);
	sim_schedule(x.k, 1 * SIM_NS, issue_req, &x, a);
	sim_schedule(x.k, 50 * SIM_NS, issue_end_resp, &x, a); /* already completed by UPDATED */
	ck_assert_int_eq(sim_run(x.k), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(x.k), "END_RESP without an open BEGIN_RESP"));
	tlm_payload_release(a);
	tlm_pool_destroy(pool);
	pair_fini(&x);
}
END_TEST

/* ---- quantum keeper ---------------------------------------------------------------------------- */

struct qk_ctx {
	struct at_pair x;
	struct tlm_pool *pool;
	unsigned syncs;
	unsigned errors;
	sim_time_t local_max;
};

static void qk_initiator(struct sim_kernel *k, void *c)
{
	struct qk_ctx *q = c;
	struct tlm_qk qk;

	tlm_qk_init(&qk, k);
	for (unsigned i = 0; i < 1000; i++) {
		struct tlm_payload *p = tlm_payload_alloc(q->pool);
		sim_time_t d = tlm_qk_local_time(&qk);

		p->cmd = TLM_WRITE_COMMAND;
		p->addr = (i * 4) % 1000;
		p->len = 4;
		memcpy(p->data, &i, 4);
		tlm_b_transport(&q->x.is, p, &d);
		tlm_qk_set(&qk, d);
		p->cmd = TLM_READ_COMMAND;
		memset(p->data, 0, 4);
		d = tlm_qk_local_time(&qk);
		tlm_b_transport(&q->x.is, p, &d);
		tlm_qk_set(&qk, d);
		if (memcmp(p->data, &i, 4) != 0)
			q->errors++;
		tlm_payload_release(p);
		if (tlm_qk_local_time(&qk) > q->local_max)
			q->local_max = tlm_qk_local_time(&qk);
		if (tlm_qk_need_sync(&qk)) {
			q->syncs++;
			tlm_qk_sync(&qk);
		}
	}
	tlm_qk_sync(&qk);
}

START_TEST(test_quantum_keeper)
{
	/* 1000 iterations x 2 transactions x 10 ns = 20 us of simulated time, whatever the
	 * quantum; the quantum only sets how often the initiator synchronises. */
	static const sim_time_t quanta[] = {0, 100 * SIM_NS, 1 * SIM_US};
	static const unsigned expect_syncs[] = {1000, 200, 20};
	struct qk_ctx q;

	memset(&q, 0, sizeof(q));
	pair_init(&q.x, TGT_FOUR_PHASE);
	sim_set_global_quantum(q.x.k, quanta[_i]);
	ck_assert_int_eq(tlm_pool_create(&q.pool), 0);
	sim_thread_create(q.x.k, "initiator", qk_initiator, &q, 0);
	ck_assert_int_eq(sim_run(q.x.k), 0);
	ck_assert_uint_eq(q.errors, 0);
	ck_assert_uint_eq(sim_now(q.x.k), 20 * SIM_US);
	ck_assert_uint_eq(q.syncs, expect_syncs[_i]);
	ck_assert_uint_le(q.local_max, quanta[_i] ? quanta[_i] : 20 * SIM_NS);
	ck_assert_uint_eq(tlm_pool_live(q.pool), 0);
	tlm_pool_destroy(q.pool);
	pair_fini(&q.x);
}
END_TEST

static Suite *tlm_suite(void)
{
	Suite *s = suite_create("tlm");
	TCase *tc = tcase_create("payload");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pool_no_leak);
	tcase_add_test(tc, test_extensions_and_refcount);
	suite_add_tcase(s, tc);

	tc = tcase_create("socket");
	tcase_add_loop_test(tc, test_socket_legal_sequences, TGT_FOUR_PHASE, TGT_COMPLETED + 1);
	tcase_add_test(tc, test_socket_illegal_response);
	tcase_add_test(tc, test_socket_request_exclusion);
	tcase_add_test(tc, test_socket_end_resp_twice);
	suite_add_tcase(s, tc);

	tc = tcase_create("quantum");
	tcase_add_loop_test(tc, test_quantum_keeper, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tlm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
