/*
 * tests/unit/test_apu_port.c - the APU controller kit (tlm/coherence/apu/apu_port.h) and the
 * message table (apu_msg.h): two ports on a crossbar.
 *
 * Checked: every message type has a name, a vnet of its class and the data flag of
 * docs/apu.md §2; the extension is zeroed and comes back to the free list; sends on one vnet
 * leave by their time (equal times in send order); inputs are served UNB, RSP, PRB, REQ; a
 * refused vnet keeps its messages (none lost, order kept, the network back-pressured through a
 * one-message input) until kicked, while other vnets flow; parked messages come back one at a
 * time, oldest first, per line; a trigger runs before the inputs of its edge.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/kernel/sim.h"
#include "tlm/noc/noc.h"
#include "util/params.h"
#include "util/stats.h"

struct ep {
	struct apu_port *port;
	struct apu_msgs *msgs;
	bool refuse[APU_VNETS];
	bool park;
	uint32_t got[64]; /* seq of messages received, in order */
	uint8_t got_vnet[64];
	char log[64];
	unsigned n;
};

static enum apu_recv ep_recv(void *owner, struct mem_msg *m)
{
	struct ep *e = owner;

	if (e->refuse[m->vnet])
		return APU_STALL;
	if (e->park && m->vnet == APU_VNET_REQ) {
		apu_port_park(e->port, m);
		return APU_TAKE;
	}
	e->got[e->n] = apu_ext_of(e->msgs, m)->seq;
	e->got_vnet[e->n] = m->vnet;
	e->log[e->n] = 'm';
	e->n++;
	tlm_payload_release(&m->p);
	return APU_TAKE;
}

static const struct apu_port_ops ep_ops = {.recv = ep_recv};

struct bench {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct apu_msgs *msgs;
	struct cs_stats *stats;
	struct noc *net;
	struct ep ep[2];
	struct noc_cfg nc;
};

static void bench_init(struct bench *b, unsigned in_depth)
{
	struct noc_cfg *nc = &b->nc;
	struct cs_err err;

	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(sim_kernel_create(NULL, &b->k), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &b->pool), 0);
	ck_assert_int_eq(apu_msgs_create(b->pool, &b->msgs), 0);
	ck_assert_int_eq(cs_stats_create(&b->stats), 0);
	ck_assert_int_eq(cs_params_defaults(&noc_params, nc, &err), 0);
	nc->clock_mhz = 1000;
	nc->flit_bytes = 8;
	nc->buffer_flits = 17;
	ck_assert_int_eq(noc_net_create(b->k, nc, 2, APU_VNETS, NULL, apu_vnet_names, apu_msg_names,
					APU_MSG_TYPES, cs_stats_root(b->stats), &b->net, &err),
			 0);
	for (unsigned i = 0; i < 2; i++) {
		struct apu_port_cfg pc = {.name = i ? "b" : "a",
					  .ep = i,
					  .clock_mhz = 1000,
					  .in_depth = in_depth,
					  .per_cycle = 64};

		b->ep[i].msgs = b->msgs;
		ck_assert_int_eq(apu_port_create(b->k, &pc, &ep_ops, &b->ep[i], &b->ep[i].port), 0);
		ck_assert_int_eq(
		    tlm_bind(apu_port_initiator(b->ep[i].port), noc_inject_port(b->net, i)), 0);
		ck_assert_int_eq(
		    tlm_bind(noc_deliver_port(b->net, i), apu_port_target(b->ep[i].port)), 0);
	}
}

static void bench_fini(struct bench *b)
{
	for (unsigned i = 0; i < 2; i++) {
		ck_assert(apu_port_idle(b->ep[i].port));
		apu_port_destroy(b->ep[i].port);
	}
	noc_destroy(b->net);
	ck_assert_uint_eq(tlm_pool_live(b->pool), 0);
	tlm_pool_destroy(b->pool);
	apu_msgs_destroy(b->msgs);
	cs_stats_destroy(b->stats);
	sim_kernel_destroy(b->k);
}

static void send(struct bench *b, enum apu_msg_type t, uint64_t line, uint32_t seq, uint64_t cycles)
{
	struct mem_msg *m = apu_msg_new(b->msgs, t, line, 0, 1, 0);

	apu_ext_of(b->msgs, m)->seq = seq;
	apu_port_send(b->ep[0].port, m, cycles);
}

START_TEST(test_table)
{
	for (unsigned t = 0; t < APU_MSG_TYPES; t++) {
		ck_assert_ptr_nonnull(apu_msg_info[t].name);
		ck_assert_str_eq(apu_msg_info[t].name, apu_msg_names[t]);
	}
	/* classes by docs/apu.md §2: requests, probes, responses, unblock */
	ck_assert_uint_eq(apu_msg_info[APU_TCPFLUSH].vnet, APU_VNET_REQ);
	ck_assert_uint_eq(apu_msg_info[APU_PRBINV].vnet, APU_VNET_PRB);
	ck_assert_uint_eq(apu_msg_info[APU_PRBDOWNGRADE].vnet, APU_VNET_PRB);
	ck_assert_uint_eq(apu_msg_info[APU_DMAACK].vnet, APU_VNET_RSP);
	ck_assert_uint_eq(apu_msg_info[APU_UNBLOCK].vnet, APU_VNET_UNB);
	ck_assert(apu_msg_info[APU_WT].data && apu_msg_info[APU_SYSRESP].data &&
		  apu_msg_info[APU_VICDATA].data && apu_msg_info[APU_DMAWR].data);
	ck_assert(!apu_msg_info[APU_RDBLK].data && !apu_msg_info[APU_VICDIRTY].data &&
		  !apu_msg_info[APU_WBACK].data && !apu_msg_info[APU_UNBLOCK].data);
}
END_TEST

START_TEST(test_ext_free_list)
{
	struct tlm_pool *pool;
	struct apu_msgs *a, *a2 = NULL;
	struct mem_msg *m;
	size_t cap;

	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &pool), 0);
	ck_assert_int_eq(apu_msgs_create(pool, &a), 0);
	ck_assert_int_eq(apu_msgs_create(pool, &a2), -CS_EEXIST); /* once per pool */
	ck_assert_ptr_null(a2);
	m = apu_msg_new(a, APU_WT, 0x1234, 1, 2, 3);
	ck_assert_uint_eq(m->p.addr, 0x1200);
	ck_assert_uint_eq(m->req_bytes, APU_LINE);
	ck_assert_uint_eq(m->vnet, APU_VNET_REQ);
	ck_assert_uint_eq(m->requester, 3);
	apu_ext_of(a, m)->mask = ~0ull;
	tlm_payload_release(&m->p);
	cap = apu_msgs_ext_capacity(a);
	for (unsigned i = 0; i < 10000; i++) {
		m = apu_msg_new(a, APU_RDBLK, 0, 0, 0, 0);
		ck_assert_uint_eq(apu_ext_of(a, m)->mask, 0); /* zeroed */
		ck_assert_uint_eq(m->req_bytes, 0);
		tlm_payload_release(&m->p);
	}
	ck_assert_uint_eq(apu_msgs_ext_capacity(a), cap); /* reused, not grown */
	tlm_pool_destroy(pool);
	apu_msgs_destroy(a);
}
END_TEST

START_TEST(test_send_order)
{
	struct bench b;

	bench_init(&b, 4);
	send(&b, APU_RDBLK, 0, 1, 20);
	send(&b, APU_RDBLK, 64, 2, 5);
	send(&b, APU_RDBLK, 128, 3, 20);
	send(&b, APU_RDBLK, 192, 4, 5);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].n, 4);
	ck_assert_uint_eq(b.ep[1].got[0], 2);
	ck_assert_uint_eq(b.ep[1].got[1], 4);
	ck_assert_uint_eq(b.ep[1].got[2], 1);
	ck_assert_uint_eq(b.ep[1].got[3], 3);
	bench_fini(&b);
}
END_TEST

static void kick_ev(struct sim_kernel *k, void *obj, void *arg)
{
	struct ep *e = obj;

	(void)k;
	(void)arg;
	memset(e->refuse, 0, sizeof(e->refuse));
	apu_port_kick(e->port);
}

START_TEST(test_priority_and_refusal)
{
	struct bench b;

	bench_init(&b, 1);
	for (unsigned v = 0; v < APU_VNETS; v++)
		b.ep[1].refuse[v] = true;
	/* 3 requests through a one-message input: two wait in the network */
	send(&b, APU_RDBLK, 0, 10, 0);
	send(&b, APU_RDBLK, 64, 11, 0);
	send(&b, APU_RDBLK, 128, 12, 0);
	send(&b, APU_PRBINV, 0, 20, 0);
	send(&b, APU_PRBACK, 0, 30, 0);
	send(&b, APU_UNBLOCK, 0, 40, 0);
	sim_schedule(b.k, 1000 * SIM_NS, kick_ev, &b.ep[1], NULL);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].n, 6);
	ck_assert_uint_eq(b.ep[1].got[0], 40); /* UNB */
	ck_assert_uint_eq(b.ep[1].got[1], 30); /* RSP */
	ck_assert_uint_eq(b.ep[1].got[2], 20); /* PRB */
	ck_assert_uint_eq(b.ep[1].got[3], 10); /* REQ in order */
	ck_assert_uint_eq(b.ep[1].got[4], 11);
	ck_assert_uint_eq(b.ep[1].got[5], 12);
	bench_fini(&b);
}
END_TEST

/* REQ refused: a probe behind it still gets through. */
START_TEST(test_refused_vnet_does_not_block)
{
	struct bench b;

	bench_init(&b, 1);
	b.ep[1].refuse[APU_VNET_REQ] = true;
	send(&b, APU_RDBLK, 0, 1, 0);
	send(&b, APU_RDBLK, 64, 2, 0);
	send(&b, APU_PRBINV, 0, 3, 5);
	sim_schedule(b.k, 1000 * SIM_NS, kick_ev, &b.ep[1], NULL);
	ck_assert_int_eq(sim_run_until(b.k, 500 * SIM_NS), 0);
	ck_assert_uint_eq(b.ep[1].n, 1);
	ck_assert_uint_eq(b.ep[1].got[0], 3);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].n, 3);
	bench_fini(&b);
}
END_TEST

static void wake_ev(struct sim_kernel *k, void *obj, void *arg)
{
	struct ep *e = obj;

	(void)k;
	e->park = false;
	ck_assert(apu_port_wake(e->port, (uint64_t)(uintptr_t)arg, NULL));
}

START_TEST(test_park_wake)
{
	struct bench b;

	bench_init(&b, 4);
	b.ep[1].park = true;
	send(&b, APU_RDBLK, 0, 1, 0);
	send(&b, APU_RDBLK, 64, 2, 1);
	send(&b, APU_RDBLK, 0, 3, 2);
	send(&b, APU_RDBLK, 0, 4, 3);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(apu_port_parked(b.ep[1].port), 4);
	ck_assert(apu_port_line_parked(b.ep[1].port, 0));
	ck_assert(!apu_port_line_parked(b.ep[1].port, 128));
	sim_schedule(b.k, 0, wake_ev, &b.ep[1], (void *)(uintptr_t)0);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].n, 1);
	ck_assert_uint_eq(b.ep[1].got[0], 1); /* the oldest of line 0, alone */
	sim_schedule(b.k, 0, wake_ev, &b.ep[1], (void *)(uintptr_t)64);
	sim_schedule(b.k, 0, wake_ev, &b.ep[1], (void *)(uintptr_t)0);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].got[1], 2);
	ck_assert_uint_eq(b.ep[1].got[2], 3);
	ck_assert(!apu_port_wake(b.ep[1].port, 64, NULL));
	sim_schedule(b.k, 0, wake_ev, &b.ep[1], (void *)(uintptr_t)0);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].got[3], 4);
	ck_assert_uint_eq(apu_port_parked(b.ep[1].port), 0);
	bench_fini(&b);
}
END_TEST

static void trig(void *owner, void *arg)
{
	struct ep *e = owner;

	(void)arg;
	e->log[e->n++] = 't';
}

static void arm_ev(struct sim_kernel *k, void *obj, void *arg)
{
	struct bench *b = obj;

	(void)k;
	(void)arg;
	/* one cycle before the message lands: a trigger for the edge where it does */
	apu_port_trigger(b->ep[1].port, 1, trig, NULL);
}

START_TEST(test_trigger_first)
{
	struct bench b;
	sim_time_t lat;

	bench_init(&b, 4);
	send(&b, APU_UNBLOCK, 0, 1, 0);
	lat = noc_ep_unloaded_cycles(b.net, 0, 1, 0) * SIM_NS;
	/* the message is in b's input at `lat`; the trigger is armed for that edge */
	sim_schedule_prio(b.k, lat - SIM_NS, SIM_PRIO_FIRST, arm_ev, &b, NULL);
	ck_assert_int_eq(sim_run(b.k), 0);
	ck_assert_uint_eq(b.ep[1].n, 2);
	ck_assert_int_eq(b.ep[1].log[0], 't');
	ck_assert_int_eq(b.ep[1].log[1], 'm');
	bench_fini(&b);
}
END_TEST

static Suite *apu_port_suite(void)
{
	Suite *s = suite_create("apu_port");
	TCase *tc = tcase_create("port");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_ext_free_list);
	tcase_add_test(tc, test_send_order);
	tcase_add_test(tc, test_priority_and_refusal);
	tcase_add_test(tc, test_refused_vnet_does_not_block);
	tcase_add_test(tc, test_park_wake);
	tcase_add_test(tc, test_trigger_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(apu_port_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
