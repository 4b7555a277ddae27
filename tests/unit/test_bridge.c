/*
 * tests/unit/test_bridge.c - a bridge between two one-way networks (tlm/noc/bridge.h) with node
 * ids routed by table (noc_set_routes): a message from node S on network A to node D on network
 * B arrives at A's unloaded latency to the bridge, plus the bridge latency in B's cycles, plus
 * B's unloaded latency; a vnet stuck at D leaves another vnet at that latency, fills the bridge's
 * buffer, and loses nothing once D takes again, in order; the LT face charges the same unloaded
 * path.
 *
 * Network A (1 GHz): endpoint 0 = S (node 0), endpoint 1 = bridge side 0.
 * Network B (500 MHz): endpoint 0 = bridge side 1, endpoint 1 = D (node 1).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/mem/msg.h"
#include "tlm/noc/bridge.h"
#include "tlm/noc/noc.h"

#define N_MSG 64

struct t_node {
	struct tlm_initiator_socket is;
	struct tlm_target_socket ts;
	struct tb *tb;
	bool refuse[2];			  /* per vnet: hold deliveries */
	struct tlm_payload *held[2];	  /* the delivery held per vnet */
	sim_time_t at[N_MSG];		  /* arrival per message (txn) */
	unsigned order[N_MSG], n_arrived; /* arrival order */
	sim_time_t lt_delay;
};

struct tb {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct cs_stats *stats;
	struct noc *a, *b;
	struct noc_bridge *br;
	struct t_node s, d;
	unsigned waiting; /* sends refused, END_REQ owed to S */
};

static enum tlm_sync_enum node_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				  sim_time_t *delay)
{
	struct t_node *n = obj;
	struct mem_msg *m = mem_msg_of(p);

	(void)delay;
	ck_assert_int_eq(*ph, TLM_BEGIN_REQ);
	ck_assert_uint_eq(m->dst, 1);
	if (n->refuse[m->vnet]) {
		ck_assert_ptr_null(n->held[m->vnet]);
		n->held[m->vnet] = p;
		return TLM_ACCEPTED;
	}
	n->at[m->txn] = sim_now(n->tb->k);
	n->order[n->n_arrived++] = m->txn;
	tlm_payload_release(p);
	*ph = TLM_END_REQ;
	return TLM_UPDATED;
}

static void node_b(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct t_node *n = obj;

	(void)p;
	n->lt_delay = *delay;
}

static enum tlm_sync_enum node_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				  sim_time_t *delay)
{
	struct t_node *n = obj;

	(void)p, (void)delay;
	ck_assert_int_eq(*ph, TLM_END_REQ);
	n->tb->waiting--;
	return TLM_ACCEPTED;
}

static const struct tlm_fw_ops node_fw_ops = {.nb_transport_fw = node_fw, .b_transport = node_b};
static const struct tlm_bw_ops node_bw_ops = {.nb_transport_bw = node_bw};

static void tb_init(struct tb *tb, unsigned latency, unsigned buffer)
{
	static const char *const vn[2] = {"v0", "v1"};
	static const uint16_t route_a[2] = {0, 1}, route_b[2] = {0, 1};
	struct noc_cfg ca, cb;
	struct noc_bridge_cfg bc = {.latency = latency, .buffer = buffer};
	struct cs_err err;
	struct cs_stat_group *root;

	memset(tb, 0, sizeof(*tb));
	ck_assert_int_eq(sim_kernel_create(NULL, &tb->k), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &tb->pool), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	root = cs_stats_root(tb->stats);
	/* 8-B flits, an 8-B header, router 2 and link 1 cycles, 17-flit buffers (a 128-B line) */
	ca = (struct noc_cfg){.topology = NOC_CROSSBAR,
			      .vnet_links = NOC_LINKS_SEPARATE,
			      .clock_mhz = 1000,
			      .flit_bytes = 8,
			      .header_bytes = 8,
			      .router_latency = 2,
			      .link_latency = 1,
			      .buffer_flits = 17};
	cb = ca;
	cb.clock_mhz = 500;
	ck_assert_int_eq(noc_net_create(tb->k, &ca, 2, 2, NULL, vn, vn, 2, cs_stat_group(root, "a"),
					&tb->a, &err),
			 0);
	ck_assert_int_eq(noc_net_create(tb->k, &cb, 2, 2, NULL, vn, vn, 2, cs_stat_group(root, "b"),
					&tb->b, &err),
			 0);
	ck_assert_int_eq(noc_set_routes(tb->a, route_a, 2), 0);
	ck_assert_int_eq(noc_set_routes(tb->b, route_b, 2), 0);
	ck_assert_int_eq(noc_bridge_create(tb->k, &bc, noc_clock(tb->a), noc_clock(tb->b),
					   cs_stat_group(root, "bridge"), &tb->br, &err),
			 0);
	tb->s.tb = tb->d.tb = tb;
	tlm_initiator_init(&tb->s.is, "s", &node_bw_ops, &tb->s);
	tlm_target_init(&tb->s.ts, "s", &node_fw_ops, &tb->s);
	tlm_initiator_init(&tb->d.is, "d", &node_bw_ops, &tb->d);
	tlm_target_init(&tb->d.ts, "d", &node_fw_ops, &tb->d);
	ck_assert_int_eq(tlm_bind(&tb->s.is, noc_inject_port(tb->a, 0)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->a, 0), &tb->s.ts), 0);
	ck_assert_int_eq(tlm_bind(noc_bridge_inject(tb->br, 0), noc_inject_port(tb->a, 1)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->a, 1), noc_bridge_deliver(tb->br, 0)), 0);
	ck_assert_int_eq(tlm_bind(noc_bridge_inject(tb->br, 1), noc_inject_port(tb->b, 0)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->b, 0), noc_bridge_deliver(tb->br, 1)), 0);
	ck_assert_int_eq(tlm_bind(&tb->d.is, noc_inject_port(tb->b, 1)), 0);
	ck_assert_int_eq(tlm_bind(noc_deliver_port(tb->b, 1), &tb->d.ts), 0);
}

static void tb_end(struct tb *tb)
{
	noc_bridge_destroy(tb->br);
	noc_destroy(tb->a);
	noc_destroy(tb->b);
	sim_kernel_destroy(tb->k);
	tlm_pool_destroy(tb->pool);
	cs_stats_destroy(tb->stats);
}

static struct tlm_payload *msg(struct tb *tb, unsigned txn, unsigned vnet, unsigned bytes)
{
	struct tlm_payload *p = tlm_payload_alloc(tb->pool);
	struct mem_msg *m = mem_msg_of(p);

	m->src = 0;
	m->dst = 1; /* node D, on the other network */
	m->vnet = (uint8_t)vnet;
	m->type = (uint8_t)vnet;
	m->req_bytes = (uint16_t)bytes;
	m->txn = txn;
	return p;
}

static void ev_send(struct sim_kernel *k, void *obj, void *arg)
{
	struct tb *tb = obj;
	unsigned txn = (unsigned)(uintptr_t)arg;
	struct tlm_payload *p = msg(tb, txn, txn == N_MSG - 1 ? 1 : 0, 64);
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;

	(void)k;
	if (tlm_nb_transport_fw(&tb->s.is, p, &ph, &d) == TLM_ACCEPTED)
		tb->waiting++;
}

/* The unloaded path: A's hop to the bridge, the bridge latency on B's clock, B's hop. */
static sim_time_t unloaded(struct tb *tb, unsigned bytes, unsigned latency)
{
	sim_time_t ta =
	    sim_clock_edge(noc_clock(tb->a), noc_ep_unloaded_cycles(tb->a, 0, 1, bytes));
	sim_time_t off = ta + sim_clock_delay(noc_clock(tb->b), ta, latency);
	uint64_t c0 = sim_clock_cycle(noc_clock(tb->b), off);

	return sim_clock_edge(noc_clock(tb->b), c0 + noc_ep_unloaded_cycles(tb->b, 0, 1, bytes));
}

START_TEST(test_unloaded_latency)
{
	struct tb tb;
	sim_time_t want;

	tb_init(&tb, 3, 4);
	want = unloaded(&tb, 64, 3);
	sim_schedule_at(tb.k, 0, SIM_PRIO_DEFAULT, ev_send, &tb, (void *)(uintptr_t)0);
	ck_assert_int_eq(sim_run(tb.k), 0);
	ck_assert_uint_eq(tb.d.n_arrived, 1);
	ck_assert_uint_eq(tb.d.at[0], want);
	/* A at 1 GHz: 9 flits (8-B header + 64 B), (0 + 1) * (2 + 1) + 9 - 1 = 11 cycles to the
	 * bridge (11 ns); the offer 3 B-cycles after the next B edge (12 + 6 = 18 ns); B at 500
	 * MHz: 11 cycles (22 ns) */
	ck_assert_uint_eq(want, 40000);
	ck_assert(noc_bridge_idle(tb.br));
	tb_end(&tb);
}
END_TEST

/* vnet 0 stuck at D: 62 messages back up through B, the bridge's 4-deep buffer and A to S; a
 * vnet-1 message sent last still arrives at the unloaded latency; once D takes vnet 0 again
 * every message arrives, in the order sent. */
START_TEST(test_vnets_independent_through_bridge)
{
	struct tb tb;
	sim_time_t t1, want;
	double stalls = 0;

	tb_init(&tb, 1, 4);
	tb.d.refuse[0] = true;
	for (unsigned i = 0; i < N_MSG - 1; i++)
		sim_schedule_at(tb.k, (sim_time_t)i * 1000, SIM_PRIO_DEFAULT, ev_send, &tb,
				(void *)(uintptr_t)i);
	t1 = (sim_time_t)N_MSG * 1000 + 100000; /* long after vnet 0 backed up; an edge of both */
	sim_schedule_at(tb.k, t1, SIM_PRIO_DEFAULT, ev_send, &tb, (void *)(uintptr_t)(N_MSG - 1));
	ck_assert_int_eq(sim_run_until(tb.k, t1 + 1000000), 0);
	ck_assert_uint_eq(tb.d.n_arrived, 1);
	ck_assert_uint_eq(tb.d.order[0], N_MSG - 1);
	want = t1 + unloaded(&tb, 64, 1);
	/* t1 falls on a clock edge of both networks, so the path is the one from time 0 */
	ck_assert_uint_eq(tb.d.at[N_MSG - 1], want);
	ck_assert_uint_gt(tb.waiting, 0); /* S was refused: the back-pressure reached it */
	ck_assert_int_eq(cs_stats_value(tb.stats, "bridge.stalls", &stalls), 0);
	ck_assert(stalls >= 1);
	ck_assert(!noc_bridge_idle(tb.br));
	/* D takes again */
	tb.d.refuse[0] = false;
	{
		struct tlm_payload *p = tb.d.held[0];
		struct mem_msg *m = mem_msg_of(p);
		enum tlm_phase ph = TLM_END_REQ;
		sim_time_t d = 0;

		tb.d.held[0] = NULL;
		tb.d.at[m->txn] = sim_now(tb.k);
		tb.d.order[tb.d.n_arrived++] = m->txn;
		tlm_nb_transport_bw(&tb.d.ts, p, &ph, &d);
		tlm_payload_release(p);
	}
	ck_assert_int_eq(sim_run(tb.k), 0);
	ck_assert_uint_eq(tb.d.n_arrived, N_MSG);
	for (unsigned i = 1; i < N_MSG; i++)
		ck_assert_uint_eq(tb.d.order[i], i - 1);
	ck_assert_uint_eq(tb.waiting, 0);
	ck_assert(noc_bridge_idle(tb.br));
	ck_assert_uint_eq(noc_in_flight(tb.a) + noc_in_flight(tb.b), 0);
	tb_end(&tb);
}
END_TEST

/* LT: b_transport from S reaches D with the unloaded path's delay. */
START_TEST(test_lt_path)
{
	struct tb tb;
	struct tlm_payload *p;
	sim_time_t d = 0;

	tb_init(&tb, 3, 4);
	p = msg(&tb, 0, 0, 64);
	tlm_b_transport(&tb.s.is, p, &d);
	ck_assert_uint_eq(d, unloaded(&tb, 64, 3));
	ck_assert_uint_eq(tb.d.lt_delay, d);
	tlm_payload_release(p);
	tb_end(&tb);
}
END_TEST

static Suite *bridge_suite(void)
{
	Suite *s = suite_create("bridge");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_unloaded_latency);
	tcase_add_test(tc, test_vnets_independent_through_bridge);
	tcase_add_test(tc, test_lt_path);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bridge_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
