/*
 * tests/unit/test_dram.c - the DRAM channel controller (tlm/dram/dram.c): closed-form
 * latencies, peak and random bandwidth, every timing constraint on a command trace,
 * back-pressure, FR-FCFS against FCFS, data, determinism.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/dram/dram.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/msg.h"
#include "tlm/mem/store.h"
#include "util/config.h"
#include "util/error.h"
#include "util/mix.h"
#include "util/params.h"
#include "util/stats.h"

/* ---- test bench: initiators with a request program, bound to one controller ---------------- */

#define MAX_INI 8

/* How an initiator answers BEGIN_RESP. */
enum resp_mode { RESP_COMPLETED = 0, RESP_UPDATED, RESP_ACCEPTED };

struct rq {
	uint64_t addr;
	uint32_t len;
	uint8_t write;
	uint8_t fill; /* write data: byte i is fill + i */
	const uint8_t *be;
	uint32_t be_len;
	sim_time_t at;	  /* sent no earlier than this */
	sim_time_t delay; /* annotated on BEGIN_REQ */
	/* results */
	sim_time_t sent, resp;
	uint64_t data_end; /* cycle the last burst left the bus (from the trace) */
	uint8_t data[MEM_LINE_MAX];
};

struct tb;

struct ini {
	struct tlm_initiator_socket is;
	struct tb *tb;
	unsigned id;
	struct rq *rq;
	unsigned n, next, done;
	bool busy; /* BEGIN_REQ without END_REQ */
	bool pump_pending;
	enum resp_mode mode;
	sim_time_t hold; /* RESP_ACCEPTED: END_RESP this long after BEGIN_RESP */
	unsigned backpressured;
	char name[32];
};

struct tb {
	struct sim_kernel *k;
	struct cs_stats *stats;
	struct mem_store *store;
	struct tlm_pool *pool;
	struct addr_map map;
	struct dram_cfg cfg;
	struct sim_clock clk;
	struct dram_ctrl *d;
	struct ini ini[MAX_INI];
	unsigned nini;
	struct dram_cmd_rec *cmd;
	size_t ncmd, capcmd;
	unsigned max_queued, max_rq, max_wq;
	sim_time_t last_resp;
	unsigned bad_status;
};

static void default_cfg(struct dram_cfg *cfg)
{
	struct cs_err err;

	ck_assert_int_eq(cs_params_defaults(&dram_params, cfg, &err), 0);
}

static void note_queued(struct tb *tb)
{
	unsigned q = dram_ctrl_queued(tb->d);
	unsigned rq = dram_ctrl_queue_len(tb->d, false), wq = dram_ctrl_queue_len(tb->d, true);

	if (q > tb->max_queued)
		tb->max_queued = q;
	if (rq > tb->max_rq)
		tb->max_rq = rq;
	if (wq > tb->max_wq)
		tb->max_wq = wq;
}

static void ini_pump(struct ini *in);

static void pump_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct ini *in = obj;

	(void)k;
	(void)arg;
	in->pump_pending = false;
	ini_pump(in);
}

static void ini_pump(struct ini *in)
{
	struct tb *tb = in->tb;

	while (!in->busy && in->next < in->n) {
		struct rq *r = &in->rq[in->next];
		struct tlm_payload *p;
		struct mem_msg *m;
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t delay = r->delay;
		enum tlm_sync_enum ret;

		if (r->at > sim_now(tb->k)) {
			if (!in->pump_pending) {
				in->pump_pending = true;
				sim_schedule_at(tb->k, r->at, SIM_PRIO_DEFAULT, pump_cb, in, NULL);
			}
			return;
		}
		p = tlm_payload_alloc(tb->pool);
		ck_assert_ptr_nonnull(p);
		m = mem_msg_of(p);
		m->src = (uint16_t)in->id;
		m->txn = in->next;
		p->addr = r->addr;
		p->len = r->len;
		p->cmd = r->write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND;
		if (r->write)
			for (unsigned i = 0; i < r->len; i++)
				p->data[i] = (uint8_t)(r->fill + i);
		p->byte_enable = (uint8_t *)r->be;
		p->byte_enable_len = r->be_len;
		r->sent = sim_now(tb->k);
		in->next++;
		ret = tlm_nb_transport_fw(&in->is, p, &ph, &delay);
		note_queued(tb);
		if (ret == TLM_ACCEPTED) {
			in->busy = true;
			in->backpressured++;
			return;
		}
		if (ret != TLM_UPDATED || ph != TLM_END_REQ) {
			sim_fail(tb->k, -CS_EPROTO, "%s: unexpected answer to BEGIN_REQ", in->name);
			return;
		}
	}
}

static void end_resp_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct ini *in = obj;
	struct tlm_payload *p = arg;
	enum tlm_phase ph = TLM_END_RESP;
	sim_time_t delay = 0;

	(void)k;
	tlm_nb_transport_fw(&in->is, p, &ph, &delay);
	tlm_payload_release(p);
}

static enum tlm_sync_enum ini_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				 sim_time_t *delay)
{
	struct ini *in = obj;
	struct tb *tb = in->tb;
	struct rq *r;

	(void)delay;
	note_queued(tb);
	if (*ph == TLM_END_REQ) {
		in->busy = false;
		sim_schedule(tb->k, 0, pump_cb, in, NULL);
		in->pump_pending = true;
		return TLM_ACCEPTED;
	}
	r = &in->rq[mem_msg_of(p)->txn];
	r->resp = sim_now(tb->k);
	if (sim_now(tb->k) > tb->last_resp)
		tb->last_resp = sim_now(tb->k);
	if (p->status != TLM_OK_RESPONSE)
		tb->bad_status++;
	if (!r->write)
		memcpy(r->data, p->data, r->len);
	in->done++;
	switch (in->mode) {
	case RESP_COMPLETED:
		tlm_payload_release(p);
		return TLM_COMPLETED;
	case RESP_UPDATED:
		tlm_payload_release(p);
		*ph = TLM_END_RESP;
		return TLM_UPDATED;
	case RESP_ACCEPTED:
		sim_schedule(tb->k, in->hold, end_resp_cb, in, p);
		return TLM_ACCEPTED;
	}
	return TLM_COMPLETED;
}

static const struct tlm_bw_ops ini_ops = {.nb_transport_bw = ini_bw};

static void trace_fn(void *ctx, const struct dram_cmd_rec *c)
{
	struct tb *tb = ctx;

	note_queued(tb);
	if (tb->ncmd == tb->capcmd) {
		tb->capcmd = tb->capcmd ? tb->capcmd * 2 : 1024;
		tb->cmd = realloc(tb->cmd, tb->capcmd * sizeof(*tb->cmd));
		if (!tb->cmd)
			abort();
	}
	tb->cmd[tb->ncmd++] = *c;
	if (c->kind == DRAM_CMD_RD || c->kind == DRAM_CMD_WR) {
		struct mem_msg *m = mem_msg_of(c->payload);

		tb->ini[m->src].rq[m->txn].data_end = c->data_end;
	}
}

/* A bench with nini initiators on channel `channel` of map (NULL: one channel, local == global). */
static void tb_init(struct tb *tb, const struct dram_cfg *cfg, unsigned nini, unsigned channel,
		    const struct addr_map *map)
{
	struct cs_err err = {0};

	memset(tb, 0, sizeof(*tb));
	tb->cfg = *cfg;
	tb->nini = nini;
	tb->map = map ? *map
		      : (struct addr_map){
			    .banks = nini, .banks_per_channel = nini, .interleave_shift = 8};
	ck_assert_int_eq(sim_clock_init(&tb->clk, cfg->clock_mhz * 1000000ull), 0);
	ck_assert_int_eq(sim_kernel_create(NULL, &tb->k), 0);
	ck_assert_int_eq(cs_stats_create(&tb->stats), 0);
	ck_assert_int_eq(mem_store_create(&tb->store), 0);
	ck_assert_int_eq(tlm_pool_create_sized(sizeof(struct mem_msg), &tb->pool), 0);
	if (dram_ctrl_create(tb->k, cfg, channel, &tb->map, tb->store, nini,
			     cs_stat_group(cs_stats_root(tb->stats), "dram0"), &tb->d, &err))
		ck_abort_msg("dram_ctrl_create: %s", err.msg);
	ck_assert_int_eq(cs_stats_error(tb->stats, &err), 0);
	dram_ctrl_set_trace(tb->d, trace_fn, tb);
	for (unsigned i = 0; i < nini; i++) {
		struct ini *in = &tb->ini[i];

		in->tb = tb;
		in->id = i;
		snprintf(in->name, sizeof(in->name), "ini%u", i);
		tlm_initiator_init(&in->is, in->name, &ini_ops, in);
		ck_assert_int_eq(tlm_bind(&in->is, dram_ctrl_port(tb->d, i)), 0);
		ck_assert_int_eq(tlm_checker_attach(&in->is, tb->k), 0);
	}
	ck_assert_ptr_null(dram_ctrl_port(tb->d, nini));
}

static struct rq *tb_program(struct tb *tb, unsigned i, unsigned n)
{
	struct ini *in = &tb->ini[i];

	in->rq = calloc(n ? n : 1, sizeof(*in->rq));
	ck_assert_ptr_nonnull(in->rq);
	in->n = n;
	return in->rq;
}

static int tb_run(struct tb *tb)
{
	for (unsigned i = 0; i < tb->nini; i++)
		if (tb->ini[i].n) {
			tb->ini[i].pump_pending = true;
			sim_schedule(tb->k, 0, pump_cb, &tb->ini[i], NULL);
		}
	return sim_run(tb->k);
}

/* Everything delivered, nothing held, no protocol violation. */
static void tb_check_complete(struct tb *tb)
{
	for (unsigned i = 0; i < tb->nini; i++) {
		struct ini *in = &tb->ini[i];

		ck_assert_uint_eq(in->next, in->n);
		ck_assert_uint_eq(in->done, in->n);
		ck_assert_uint_eq(tlm_checker_violations(&in->is), 0);
		ck_assert_uint_eq(tlm_checker_in_flight(&in->is), 0);
	}
	ck_assert_uint_eq(tb->bad_status, 0);
	ck_assert_uint_eq(dram_ctrl_queued(tb->d), 0);
	ck_assert_uint_eq(tlm_pool_live(tb->pool), 0);
}

static double tb_stat(struct tb *tb, const char *name)
{
	char full[128];
	double v;

	snprintf(full, sizeof(full), "dram0.%s", name);
	ck_assert_int_eq(cs_stats_value(tb->stats, full, &v), 0);
	return v;
}

static void tb_fini(struct tb *tb)
{
	for (unsigned i = 0; i < tb->nini; i++) {
		tlm_checker_detach(&tb->ini[i].is);
		free(tb->ini[i].rq);
	}
	dram_ctrl_destroy(tb->d);
	sim_kernel_destroy(tb->k);
	tlm_pool_destroy(tb->pool);
	mem_store_destroy(tb->store);
	cs_stats_destroy(tb->stats);
	free(tb->cmd);
}

static uint64_t rng_next(uint64_t *s)
{
	return cs_splitmix64(s);
}

/* Local address of (bank, row, byte in row) for the default decode. */
static uint64_t addr_of(const struct dram_cfg *c, unsigned bank, uint64_t row, uint64_t col)
{
	return (row * c->banks + bank) * c->row_bytes + col;
}

/*
 * Each response comes at the edge where its last burst left the bus, unless the port is still
 * busy with the previous response (RESP_ACCEPTED: END_RESP `hold` after BEGIN_RESP): then
 * right at that END_RESP. Responses of a port go out in data order.
 */
static int by_data_end(const void *a, const void *b);

static void check_responses(const struct tb *tb, const struct ini *in)
{
	const struct rq **o = calloc(in->n ? in->n : 1, sizeof(*o));
	sim_time_t prev_end_resp = 0;

	ck_assert_ptr_nonnull(o);
	for (unsigned j = 0; j < in->n; j++)
		o[j] = &in->rq[j];
	qsort(o, in->n, sizeof(*o), by_data_end);
	for (unsigned j = 0; j < in->n; j++) {
		sim_time_t due = sim_clock_edge(&tb->clk, o[j]->data_end);
		sim_time_t want = due;

		if (in->mode == RESP_ACCEPTED && prev_end_resp > want)
			want = prev_end_resp;
		if (o[j]->resp != want) {
			unsigned idx = (unsigned)(o[j] - in->rq);
			sim_time_t got = o[j]->resp;

			free(o);
			ck_abort_msg("%s request %u: response at %llu ps, expected %llu ps",
				     in->name, idx, (unsigned long long)got,
				     (unsigned long long)want);
		}
		prev_end_resp = o[j]->resp + in->hold;
	}
	free(o);
}

/*
 * Every timing rule the controller promises, checked on its command trace; also that each
 * response arrived exactly at the edge where its last burst left the bus.
 */
static void check_trace(const struct tb *tb)
{
	const struct dram_cfg *c = &tb->cfg;
	uint64_t burst = c->burst_length / c->data_rate;
	unsigned nb = (unsigned)c->banks;
	struct bk {
		int64_t act, pre, rd, wr_end;
		uint64_t row;
		bool open;
	} *b = calloc(nb, sizeof(*b));
	int64_t last_act = -1000000, last_col = -1000000, last_cmd = -1, wr_end = -1000000;
	int64_t bus_end = 0, last_ref = -1000000, faw[4] = {-1000000, -1000000, -1000000, -1000000};
	unsigned faw_i = 0, ng = (unsigned)c->bank_groups;
	/* per bank group: the last ACT, column command and write data end (the _L spacings) */
	int64_t g_act[DRAM_GROUPS_MAX], g_col[DRAM_GROUPS_MAX], g_wr_end[DRAM_GROUPS_MAX];
	int64_t ccdl = (int64_t)(c->tCCDL ? c->tCCDL : c->tCCD);
	int64_t rrdl = (int64_t)(c->tRRDL ? c->tRRDL : c->tRRD);
	int64_t wtrl = (int64_t)(c->tWTRL ? c->tWTRL : c->tCDLR);

	ck_assert_ptr_nonnull(b);
	for (unsigned i = 0; i < nb; i++)
		b[i] = (struct bk){-1000000, -1000000, -1000000, -1000000, 0, false};
	for (unsigned g = 0; g < DRAM_GROUPS_MAX; g++)
		g_act[g] = g_col[g] = g_wr_end[g] = -1000000;
	for (size_t i = 0; i < tb->ncmd; i++) {
		const struct dram_cmd_rec *r = &tb->cmd[i];
		int64_t t = (int64_t)r->cycle;
		struct bk *k = &b[r->bank];
		unsigned g = r->bank % ng;
		const char *bad = NULL;

		if (t <= last_cmd)
			bad = "two commands in one cycle (or out of order)";
		else if (r->kind == DRAM_CMD_ACT) {
			if (k->open)
				bad = "ACT to an open bank";
			else if (t < k->act + (int64_t)c->tRC)
				bad = "tRC";
			else if (t < k->pre + (int64_t)c->tRP)
				bad = "tRP";
			else if (t < last_act + (int64_t)c->tRRD)
				bad = "tRRD";
			else if (t < g_act[g] + rrdl)
				bad = "tRRDL";
			else if (c->tFAW && t < faw[faw_i] + (int64_t)c->tFAW)
				bad = "tFAW";
			else if (t < last_ref + (int64_t)c->tRFC)
				bad = "tRFC";
			faw[faw_i] = t;
			faw_i = (faw_i + 1) % 4;
			k->open = true;
			k->row = r->row;
			k->act = t;
			last_act = t;
			g_act[g] = t;
		} else if (r->kind == DRAM_CMD_PRE) {
			if (!k->open || k->row != r->row)
				bad = "PRE of a closed bank";
			else if (t < k->act + (int64_t)c->tRAS)
				bad = "tRAS";
			else if (t < k->wr_end + (int64_t)c->tWR)
				bad = "tWR";
			else if (t < k->rd + (int64_t)burst)
				bad = "read to precharge";
			k->open = false;
			k->pre = t;
		} else if (r->kind == DRAM_CMD_PREA) {
			for (unsigned j = 0; j < nb && !bad; j++) {
				struct bk *q = &b[j];

				if (!q->open)
					continue;
				if (t < q->act + (int64_t)c->tRAS)
					bad = "tRAS (PREA)";
				else if (t < q->wr_end + (int64_t)c->tWR)
					bad = "tWR (PREA)";
				else if (t < q->rd + (int64_t)burst)
					bad = "read to precharge (PREA)";
				q->open = false;
				q->pre = t;
			}
		} else if (r->kind == DRAM_CMD_REF) {
			for (unsigned j = 0; j < nb && !bad; j++)
				if (b[j].open)
					bad = "REF with a bank open";
				else if (t < b[j].pre + (int64_t)c->tRP)
					bad = "tRP (REF)";
				else if (t < b[j].act + (int64_t)c->tRC)
					bad = "tRC (REF)";
			last_ref = t;
		} else {
			bool wr = r->kind == DRAM_CMD_WR;
			int64_t start = t + (int64_t)(wr ? c->tWL : c->tCL);

			if (!k->open || k->row != r->row)
				bad = "column command to a row not open";
			else if (t < k->act + (int64_t)c->tRCD)
				bad = "tRCD";
			else if (t < last_col + (int64_t)c->tCCD)
				bad = "tCCD";
			else if (t < g_col[g] + ccdl)
				bad = "tCCDL";
			else if (!wr && t < wr_end + (int64_t)c->tCDLR)
				bad = "tCDLR";
			else if (!wr && t < g_wr_end[g] + wtrl)
				bad = "tWTRL";
			else if ((int64_t)r->data_start != start ||
				 r->data_end != r->data_start + burst)
				bad = "data slot not tCL/tWL after the command";
			else if (start < bus_end)
				bad = "bursts overlap on the data bus";
			bus_end = (int64_t)r->data_end;
			last_col = t;
			g_col[g] = t;
			if (wr) {
				k->wr_end = (int64_t)r->data_end;
				wr_end = (int64_t)r->data_end;
				g_wr_end[g] = (int64_t)r->data_end;
			} else {
				k->rd = t;
			}
		}
		if (bad) {
			free(b);
			ck_abort_msg("command %zu (kind %u bank %u cycle %llu): %s", i, r->kind,
				     r->bank, (unsigned long long)r->cycle, bad);
		}
		last_cmd = t;
	}
	free(b);
	for (unsigned i = 0; i < tb->nini; i++)
		check_responses(tb, &tb->ini[i]);
}

static int by_data_end(const void *a, const void *b)
{
	const struct rq *x = *(const struct rq *const *)a, *y = *(const struct rq *const *)b;

	return x->data_end < y->data_end ? -1 : x->data_end > y->data_end;
}

/* ---- configuration ------------------------------------------------------------------------ */

START_TEST(test_defaults)
{
	struct dram_cfg c;
	struct cs_err err;

	default_cfg(&c);
	ck_assert_uint_eq(c.clock_mhz, 924);
	ck_assert_uint_eq(c.data_rate, 4);
	ck_assert_uint_eq(c.bus_bytes, 8);
	ck_assert_uint_eq(c.burst_length, 8);
	ck_assert_uint_eq(c.banks, 16);
	ck_assert_uint_eq(c.row_bytes, 4096);
	ck_assert_uint_eq(c.tCL, 12);
	ck_assert_uint_eq(c.tRP, 12);
	ck_assert_uint_eq(c.tRC, 40);
	ck_assert_uint_eq(c.tRAS, 28);
	ck_assert_uint_eq(c.tRCD, 12);
	ck_assert_uint_eq(c.tRRD, 6);
	ck_assert_uint_eq(c.tCCD, 2);
	ck_assert_uint_eq(c.tWR, 12);
	ck_assert_uint_eq(c.tWL, 4);
	ck_assert_uint_eq(c.tCDLR, 5);
	ck_assert_uint_eq(c.queue, 32);
	ck_assert_uint_eq(c.scheduler, DRAM_SCHED_FRFCFS);
	ck_assert_uint_eq(c.ctrl_latency, 0);
	ck_assert_int_eq(dram_cfg_check(&c, &err), 0);
	/* 8 B x 4 beats x 924 MHz */
	ck_assert_double_eq_tol(dram_peak_bytes_per_s(&c), 29.568e9, 1.0);
	ck_assert_str_eq(dram_params.section, "dram");
}
END_TEST

START_TEST(test_bad_config)
{
	struct dram_cfg c;
	struct cs_err err = {0};
	struct sim_kernel *k;
	struct mem_store *s;
	struct cs_stats *st;
	struct dram_ctrl *d = (struct dram_ctrl *)&err;
	struct addr_map map = {.banks = 2, .banks_per_channel = 1, .interleave_shift = 8};

	default_cfg(&c);
	c.tRC = 30; /* < tRAS + tRP = 40 */
	ck_assert_int_eq(dram_cfg_check(&c, &err), -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.tRC"));
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.tRAS"));
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.tRP"));

	default_cfg(&c);
	c.tRCD = 30; /* > tRAS */
	ck_assert_int_eq(dram_cfg_check(&c, &err), -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.tRAS"));
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.tRCD"));

	default_cfg(&c);
	c.burst_length = 6; /* 1.5 command cycles */
	ck_assert_int_eq(dram_cfg_check(&c, &err), -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.burst_length"));

	default_cfg(&c);
	c.row_bytes = 4000;
	ck_assert_int_eq(dram_cfg_check(&c, &err), -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.row_bytes"));

	default_cfg(&c);
	c.banks = 0;
	ck_assert_int_eq(dram_cfg_check(&c, &err), -CS_ECONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.banks"));

	/* create refuses the same, and a channel outside the map */
	default_cfg(&c);
	c.tRC = 30;
	ck_assert_int_eq(sim_kernel_create(NULL, &k), 0);
	ck_assert_int_eq(mem_store_create(&s), 0);
	ck_assert_int_eq(cs_stats_create(&st), 0);
	ck_assert_int_eq(dram_ctrl_create(k, &c, 0, &map, s, 1, cs_stats_root(st), &d, &err),
			 -CS_ECONFIG);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(strstr(err.msg, "dram.tRC"));
	default_cfg(&c);
	ck_assert_int_eq(dram_ctrl_create(k, &c, 2, &map, s, 1, cs_stats_root(st), &d, &err),
			 -CS_EINVAL);
	cs_stats_destroy(st);
	mem_store_destroy(s);
	sim_kernel_destroy(k);
}
END_TEST

/* ---- closed forms ------------------------------------------------------------------------- */

/* ceil(n * 10^12 / f): the time of command-clock edge n */
static sim_time_t edge_ps(uint64_t clock_mhz, uint64_t n)
{
	return (n * 1000000ull + clock_mhz - 1) / clock_mhz;
}

/* A timing preset of configs/dram/ (NAME.cfg, the lines of a `dram` group) as the loader reads
 * it inside `dram = { ... }`: the defaults, then its keys. */
static void preset_cfg(const char *name, struct dram_cfg *c)
{
	const char *src = getenv("COHSCOPE_SRC");
	char path[1024], *text;
	struct cs_config *cfg;
	struct cs_err err;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/configs/dram/%s.cfg", src ? src : ".", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	text = calloc((size_t)len + 32, 1);
	ck_assert_ptr_nonnull(text);
	strcpy(text, "dram = {\n");
	ck_assert_uint_eq(fread(text + strlen(text), 1, (size_t)len, f), (size_t)len);
	strcat(text, "\n};\n");
	fclose(f);
	if (cs_config_open_string(text, path, &cfg, &err) ||
	    cs_config_section(cfg, &dram_params, c, &err))
		ck_abort_msg("%s", err.msg);
	ck_assert_int_eq(dram_cfg_check(c, &err), 0);
	cs_config_close(cfg);
	free(text);
}

/* Configurations the latency tests run on. */
/* DDR4-2400 17-17-17, x64 of 8 x8 parts (gem5's DDR4_2400_8x8, its ns in 1200 MHz cycles):
 * 16 banks in 4 groups, 8 KB rows; tCCD_S 4 / tCCD_L 6, tRRD_S 4 / tRRD_L 6, tWTR_S 3 /
 * tWTR_L 9 (JEDEC 2.5 ns / 7.5 ns), CWL 12 (JEDEC DDR4-2400): the preset
 * configs/dram/ddr4-2400.cfg. No refresh here. */
static void ddr4_cfg(struct dram_cfg *c)
{
	preset_cfg("ddr4-2400", c);
	ck_assert_uint_eq(c->tCCDL, 6);
	c->tREFI = 0;
}

static void latency_cfg(int i, struct dram_cfg *c)
{
	default_cfg(c);
	c->tREFI = 0; /* the closed forms are for a channel no refresh gets in the way of */
	switch (i) {
	case 0: /* GTX480 */
		break;
	case 1: /* 1 GHz, a front end, tCCD longer than a burst, tRC above tRAS + tRP */
		c->clock_mhz = 1000;
		c->ctrl_latency = 3;
		c->tCCD = 3;
		c->tRC = 45;
		c->tCL = 10;
		c->tWL = 6;
		break;
	case 2: /* DDR with long bursts: 4 bus cycles per burst, 32 B atoms */
		c->data_rate = 2;
		c->bus_bytes = 4;
		c->ctrl_latency = 1;
		c->tRAS = 36;
		c->tRC = 48;
		break;
	case 3: /* DDR4-2400 8x8 with 4 bank groups (gem5 DDR4_2400_8x8 in cycles of 0.833 ns) */
		ddr4_cfg(c);
		break;
	case 4: /* DDR3-1000: the preset configs/dram/ddr3-1000.cfg, 8 banks, 2 ns cycles */
		preset_cfg("ddr3-1000", c);
		c->tREFI = 0;
		break;
	}
}

START_TEST(test_closed_forms)
{
	struct dram_cfg c;
	static const unsigned lens[] = {32, 64, 128};

	latency_cfg(_i, &c);
	for (unsigned l = 0; l < 3; l++) {
		unsigned len = lens[l];
		uint64_t atom = c.bus_bytes * c.burst_length;
		uint64_t bursts = (len + atom - 1) / atom;
		uint64_t burst = c.burst_length / c.data_rate; /* bus cycles per burst */
		/* one request's bursts go to one bank, so one group: tCCDL when there are groups */
		uint64_t ccd = c.tCCDL > c.tCCD ? c.tCCDL : c.tCCD;
		uint64_t step = ccd > burst ? ccd : burst;
		/* last burst issues (bursts - 1) steps after the first; its data ends a burst
		 * after tCL (tWL) */
		uint64_t tail = (bursts - 1) * step + burst;
		uint64_t hit = c.ctrl_latency + c.tCL + tail;
		uint64_t closed = c.ctrl_latency + c.tRCD + c.tCL + tail;
		uint64_t conflict = c.ctrl_latency + c.tRP + c.tRCD + c.tCL + tail;
		uint64_t whit = c.ctrl_latency + c.tWL + tail;
		uint64_t wconflict = c.ctrl_latency + c.tRP + c.tRCD + c.tWL + tail;

		ck_assert_uint_eq(dram_unloaded_read_cycles(&c, len, DRAM_ROW_HIT), hit);
		ck_assert_uint_eq(dram_unloaded_read_cycles(&c, len, DRAM_ROW_CLOSED), closed);
		ck_assert_uint_eq(dram_unloaded_read_cycles(&c, len, DRAM_ROW_CONFLICT), conflict);
		ck_assert_uint_eq(dram_unloaded_write_cycles(&c, len, DRAM_ROW_HIT), whit);
		ck_assert_uint_eq(dram_unloaded_write_cycles(&c, len, DRAM_ROW_CONFLICT),
				  wconflict);
		ck_assert_uint_eq(dram_unloaded_read_ps(&c, len, DRAM_ROW_HIT),
				  edge_ps(c.clock_mhz, hit));
		ck_assert_uint_eq(dram_unloaded_read_ps(&c, len, DRAM_ROW_CLOSED),
				  edge_ps(c.clock_mhz, closed));
		ck_assert_uint_eq(dram_unloaded_read_ps(&c, len, DRAM_ROW_CONFLICT),
				  edge_ps(c.clock_mhz, conflict));
		ck_assert_uint_eq(dram_unloaded_write_ps(&c, len, DRAM_ROW_CLOSED),
				  edge_ps(c.clock_mhz, c.ctrl_latency + c.tRCD + c.tWL + tail));
	}
	if (_i == 0) {
		/* GTX480, a 128 B line: 2 bursts of 64 B, 2 cycles each: closed row
		 * 12 + 12 + 4 = 28 cycles of 1082.25 ps */
		ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 128, DRAM_ROW_CLOSED), 28);
		ck_assert_uint_eq(dram_unloaded_read_ps(&c, 128, DRAM_ROW_CLOSED), 30304);
		ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 32, DRAM_ROW_HIT), 14);
		ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 128, DRAM_ROW_CONFLICT), 40);
	}
}
END_TEST

/* Measured latencies on an idle channel equal the closed forms exactly. Requests arrive at
 * edges that are multiples of 231 (at 924 MHz edge n + 231 = edge n + 250 ns exactly). */
START_TEST(test_unloaded_latency)
{
	struct tb tb;
	struct dram_cfg c;
	struct rq *r;
	const uint64_t gap = 231 * 8;
	struct {
		uint64_t addr;
		uint32_t len;
		uint8_t write;
		int state;
	} seq[] = {
	    {0, 128, 0, DRAM_ROW_CLOSED}, /* bank 0 row 0 */
	    {256, 128, 0, DRAM_ROW_HIT},  /* same row */
	    {0, 0, 0, DRAM_ROW_CONFLICT}, /* bank 0 row 1 (addr set below) */
	    {512, 32, 0, DRAM_ROW_HIT},	  /* a sector of row 1 */
	    {0, 0, 1, DRAM_ROW_CLOSED},	  /* write, bank 3 row 5 */
	    {0, 0, 1, DRAM_ROW_HIT},	  /* write hit */
	    {0, 0, 1, DRAM_ROW_CONFLICT}, /* write conflict, bank 3 row 6 */
	    {0, 0, 0, DRAM_ROW_CONFLICT}, /* read conflict after a write (tWR) */
	    {0, 0, 0, DRAM_ROW_HIT},	  /* read hit */
	};
	unsigned n = sizeof(seq) / sizeof(seq[0]);

	latency_cfg(_i, &c);
	seq[2].addr = addr_of(&c, 0, 1, 0);
	seq[2].len = 128;
	seq[3].addr = addr_of(&c, 0, 1, 512);
	seq[4].addr = addr_of(&c, 3, 5, 1024);
	seq[4].len = 128;
	seq[5].addr = addr_of(&c, 3, 5, 0);
	seq[5].len = 64;
	seq[6].addr = addr_of(&c, 3, 6, 128);
	seq[6].len = 128;
	seq[7].addr = addr_of(&c, 3, 7, 128);
	seq[7].len = 128;
	seq[8].addr = addr_of(&c, 3, 7, 3968);
	seq[8].len = 128;

	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, n);
	for (unsigned i = 0; i < n; i++) {
		r[i].addr = seq[i].addr;
		r[i].len = seq[i].len;
		r[i].write = seq[i].write;
		r[i].at = sim_clock_edge(&tb.clk, gap * i);
	}
	/* one arrives through an annotated BEGIN_REQ delay: timed from when it takes effect */
	r[1].delay = 5 * SIM_NS;
	r[1].at -= r[1].delay;
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	for (unsigned i = 0; i < n; i++) {
		sim_time_t want = seq[i].write
				      ? dram_unloaded_write_ps(&c, seq[i].len, seq[i].state)
				      : dram_unloaded_read_ps(&c, seq[i].len, seq[i].state);

		ck_assert_uint_eq(r[i].sent + r[i].delay, sim_clock_edge(&tb.clk, gap * i));
		if (r[i].resp - r[i].sent - r[i].delay != want)
			ck_abort_msg("request %u: latency %llu ps, closed form %llu ps", i,
				     (unsigned long long)(r[i].resp - r[i].sent - r[i].delay),
				     (unsigned long long)want);
	}
	ck_assert_double_eq(tb_stat(&tb, "row_hits"), 4);
	ck_assert_double_eq(tb_stat(&tb, "row_misses"), 2);
	ck_assert_double_eq(tb_stat(&tb, "row_conflicts"), 3);
	ck_assert_double_eq(tb_stat(&tb, "activations"), 5);
	ck_assert_double_eq(tb_stat(&tb, "precharges"), 3);
	ck_assert_double_eq(tb_stat(&tb, "reads"), 6);
	ck_assert_double_eq(tb_stat(&tb, "writes"), 3);
	ck_assert_double_eq(tb_stat(&tb, "bytes_read"), 128 * 5 + 32);
	ck_assert_double_eq(tb_stat(&tb, "bytes_written"), 128 * 2 + 64);
	ck_assert_double_eq_tol(tb_stat(&tb, "row_hit_rate"), 4.0 / 9.0, 1e-12);
	/* idle between requests: a handful of callbacks per request, no ticking */
	ck_assert_uint_lt(sim_kernel_stats(tb.k)->timed_items, 20u * n);
	ck_assert_uint_eq(tb.ini[0].backpressured, 1); /* the delayed one: END_REQ came later */
	tb_fini(&tb);
}
END_TEST

/* ---- ACT spacing ---------------------------------------------------------------------------- */

/* Two closed-row reads to different banks arriving together: the second ACT waits tRRD and
 * so does its response. Two reads to different rows of one bank: the second ACT waits for
 * max(tRAS + tRP, tRC) after the first. */
START_TEST(test_act_spacing)
{
	struct tb tb;
	struct dram_cfg c;
	struct rq *r;
	uint64_t closed, tail, act2, t0, bursts;
	size_t acts[2], na = 0;

	latency_cfg(_i, &c);
	/* longer than a line's data, so the bus does not hide it, and off the first line's
	 * column command cycles */
	c.tRRD = _i == 2 ? 17 : 9;
	closed = dram_unloaded_read_cycles(&c, 128, DRAM_ROW_CLOSED);
	tail = closed - c.ctrl_latency - c.tRCD;
	bursts = 128 / (c.bus_bytes * c.burst_length);

	/* different banks */
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 2);
	r[0].addr = addr_of(&c, 0, 0, 0);
	r[1].addr = addr_of(&c, 1, 0, 0);
	r[0].len = r[1].len = 128;
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	ck_assert_uint_eq(r[0].resp, sim_clock_edge(&tb.clk, closed));
	ck_assert_uint_eq(r[1].resp, sim_clock_edge(&tb.clk, closed + c.tRRD));
	for (size_t i = 0; i < tb.ncmd; i++)
		if (tb.cmd[i].kind == DRAM_CMD_ACT && na < 2)
			acts[na++] = i;
	ck_assert_uint_eq(na, 2);
	ck_assert_uint_eq(tb.cmd[acts[0]].cycle, c.ctrl_latency);
	ck_assert_uint_eq(tb.cmd[acts[1]].cycle - tb.cmd[acts[0]].cycle, c.tRRD);
	tb_fini(&tb);

	/* one bank, two rows */
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 2);
	r[0].addr = addr_of(&c, 2, 0, 0);
	r[1].addr = addr_of(&c, 2, 1, 0);
	r[0].len = r[1].len = 128;
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	t0 = c.ctrl_latency;
	act2 = c.tRAS + c.tRP > c.tRC ? c.tRAS + c.tRP : c.tRC;
	ck_assert_uint_eq(r[1].resp, sim_clock_edge(&tb.clk, t0 + act2 + c.tRCD + tail));
	/* ACT, a RD per burst, PRE, ACT, a RD per burst */
	ck_assert_uint_eq(tb.ncmd, 3 + 2 * bursts);
	ck_assert_uint_eq(tb.cmd[1 + bursts].kind, DRAM_CMD_PRE);
	ck_assert_uint_eq(tb.cmd[1 + bursts].cycle, t0 + c.tRAS);
	ck_assert_uint_eq(tb.cmd[2 + bursts].kind, DRAM_CMD_ACT);
	ck_assert_uint_eq(tb.cmd[2 + bursts].cycle, t0 + act2);
	tb_fini(&tb);
}
END_TEST

/* Random mixed traffic from several ports: every timing rule holds on the command trace, every
 * response is exact, the counters add up. */
START_TEST(test_timing_rules_random)
{
	struct tb tb;
	struct dram_cfg c;
	uint64_t seed = 11 + (uint64_t)_i;
	static const uint32_t lens[] = {32, 64, 128};
	unsigned total = 0;

	latency_cfg(_i % 5, &c);
	c.scheduler = _i >= 5 ? DRAM_SCHED_FCFS : DRAM_SCHED_FRFCFS;
	c.queue = 16;
	c.write_queue = 16;
	tb_init(&tb, &c, 4, 0, NULL);
	for (unsigned i = 0; i < 4; i++) {
		struct rq *r = tb_program(&tb, i, 600);

		tb.ini[i].mode = (enum resp_mode)(i % 3);
		tb.ini[i].hold = 3000;
		for (unsigned j = 0; j < 600; j++) {
			uint64_t x = rng_next(&seed);
			/* a few hot rows per bank, so hits, misses and conflicts all happen */
			unsigned bank = (unsigned)(x % 4);
			uint64_t row = (x >> 8) % 3;
			uint64_t col = ((x >> 16) % 32) * 128;
			uint32_t len = lens[(x >> 24) % 3];

			r[j].addr = addr_of(&c, bank, row, col + ((x >> 32) % (128 / len)) * len);
			r[j].len = len;
			r[j].write = (x >> 40) % 3 == 0;
			r[j].fill = (uint8_t)x;
			r[j].at = ((x >> 44) % 4 == 0) ? j * 20 * SIM_NS : 0;
		}
		total += 600;
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	ck_assert_uint_le(tb.max_rq, 16);
	ck_assert_uint_le(tb.max_wq, 16);
	ck_assert_double_eq(tb_stat(&tb, "requests"), total);
	ck_assert_double_eq(tb_stat(&tb, "reads") + tb_stat(&tb, "writes"), total);
	ck_assert_double_eq(tb_stat(&tb, "row_hits") + tb_stat(&tb, "row_misses") +
				tb_stat(&tb, "row_conflicts"),
			    total);
	/* each request needing a row opened it itself, once */
	ck_assert_double_eq(tb_stat(&tb, "activations"),
			    tb_stat(&tb, "row_misses") + tb_stat(&tb, "row_conflicts"));
	ck_assert_double_eq(tb_stat(&tb, "precharges"), tb_stat(&tb, "row_conflicts"));
	ck_assert_double_gt(tb_stat(&tb, "row_hits"), 0);
	ck_assert_double_gt(tb_stat(&tb, "row_conflicts"), 0);
	ck_assert_double_le(tb_stat(&tb, "queue_occupancy"), 16);
	tb_fini(&tb);
}
END_TEST

/* The DDR3-1000 preset (configs/dram/ddr3-1000.cfg) by hand: a 2 ns clock, 64 B bursts of 4
 * clocks, CL = tRCD = tRP = 7. A 64 B read takes tCL + burst = 11 clocks (22 ns) on an open row,
 * tRCD more (36 ns) on a closed bank and tRP more again (50 ns) on another open row; measured on
 * an idle channel, before its first refresh (7.8 us). Peak: 8 B x 2 beats x 500 MHz = 8 GB/s;
 * a sequential stream with refresh stays under it and loses at most what the refreshes take,
 * (tRP + tRFC + tRCD) / tREFI = 144 / 3900 = 3.7 %, plus 1 % for the rows it opens. */
START_TEST(test_ddr3_preset)
{
	struct tb tb;
	struct dram_cfg c;
	struct rq *r;
	const unsigned n = 8192;
	double secs, bw;

	preset_cfg("ddr3-1000", &c);
	ck_assert_uint_eq(c.clock_mhz, 500);
	ck_assert_uint_eq(c.tREFI, 3900);
	ck_assert_double_eq(dram_peak_bytes_per_s(&c), 8e9);
	ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 64, DRAM_ROW_HIT), 7 + 4);
	ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 64, DRAM_ROW_CLOSED), 7 + 7 + 4);
	ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 64, DRAM_ROW_CONFLICT), 7 + 7 + 7 + 4);
	ck_assert_uint_eq(dram_unloaded_write_cycles(&c, 64, DRAM_ROW_HIT), 6 + 4);
	/* a 128 B line: a second burst tCCD = 4 clocks later */
	ck_assert_uint_eq(dram_unloaded_read_cycles(&c, 128, DRAM_ROW_CLOSED), 7 + 7 + 4 + 4);

	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 3);
	r[0] = (struct rq){.addr = addr_of(&c, 0, 0, 0), .len = 64, .at = 0};
	r[1] = (struct rq){.addr = addr_of(&c, 0, 0, 64), .len = 64, .at = SIM_US};
	r[2] = (struct rq){.addr = addr_of(&c, 0, 1, 0), .len = 64, .at = 2 * SIM_US};
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	ck_assert_uint_eq(r[0].resp - r[0].sent, 36 * SIM_NS);
	ck_assert_uint_eq(r[1].resp - r[1].sent, 22 * SIM_NS);
	ck_assert_uint_eq(r[2].resp - r[2].sent, 50 * SIM_NS);
	ck_assert_double_eq(tb_stat(&tb, "row_misses"), 1);
	ck_assert_double_eq(tb_stat(&tb, "row_hits"), 1);
	ck_assert_double_eq(tb_stat(&tb, "row_conflicts"), 1);
	tb_fini(&tb);

	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, n);
	for (unsigned i = 0; i < n; i++)
		r[i] = (struct rq){.addr = (uint64_t)i * 64, .len = 64};
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	secs = (double)(tb.last_resp - r[0].sent) * 1e-12;
	bw = (double)n * 64 / secs;
	if (bw > dram_peak_bytes_per_s(&c) || bw < (1 - 144.0 / 3900 - 0.01) * 8e9)
		ck_abort_msg("DDR3-1000 stream: %.3f GB/s, peak 8 GB/s", bw / 1e9);
	ck_assert_double_gt(tb_stat(&tb, "refreshes"), 0);
	tb_fini(&tb);
}
END_TEST

/*
 * Energy by the DRAMPower method on the DDR3-1000 preset (gem5's DDR3_1600_8x8 currents: VDD
 * 1.5 V, IDD0 55, IDD2N 32, IDD3N 38, IDD4R 157, IDD4W 125, IDD5 235 mA, 8 devices), by hand
 * in its 2 ns clock (mA x V x ns = pJ, x 8 devices):
 *   ACT  1.5 x (55 - 38) x 18 cycles x 2 ns x 8 =   7 344 pJ
 *   PRE  1.5 x (55 - 32) x (25 - 18) x 2 x 8    =   3 864 pJ
 *   RD   1.5 x (157 - 38) x 4 x 2 x 8           =  11 424 pJ (a 64 B burst)
 *   WR   1.5 x (125 - 38) x 4 x 2 x 8           =   8 352 pJ
 *   REF  1.5 x (235 - 38) x 130 x 2 x 8         = 614 640 pJ
 *   standby: 8 x 1.5 V x 32 mA = 384 mW (precharged), x 38 mA = 456 mW (a bank open);
 *   refresh power 614 640 pJ per 7.8 us = 78.8 mW, and (130 - 7) / 3900 of the time active.
 * Then a scripted stream (a closed bank, a row hit, a conflict in the same bank) counts each
 * command once, and the open share is the time from the first ACT to the conflict's PRE plus
 * from the second ACT to the end, read off the command trace.
 */
START_TEST(test_idd_energy)
{
	struct dram_cfg c;
	struct dram_energies e;
	struct energy_counts n = {{0}, {0}};
	struct tb tb;
	struct rq *r;
	uint64_t act[2] = {0}, pre = 0, end;
	unsigned na = 0;

	preset_cfg("ddr3-1000", &c);
	dram_cfg_energies(&c, &e);
	ck_assert_double_eq_tol(e.act_pj, 7344, 1e-9);
	ck_assert_double_eq_tol(e.pre_pj, 3864, 1e-9);
	ck_assert_double_eq_tol(e.rd_pj, 11424, 1e-9);
	ck_assert_double_eq_tol(e.wr_pj, 8352, 1e-9);
	ck_assert_double_eq_tol(e.ref_pj, 614640, 1e-9);
	ck_assert_double_eq_tol(e.pre_stby_w, 0.384, 1e-12);
	ck_assert_double_eq_tol(e.act_stby_w, 0.456, 1e-12);
	ck_assert_double_eq_tol(e.ref_w, 614640e-12 / 7.8e-6, 1e-12);
	ck_assert_double_eq_tol(e.ref_act, 123.0 / 3900, 1e-15);
	/* background: the open share moves it between the two standby powers */
	ck_assert_double_eq_tol(dram_background_w(&e, 0),
				0.384 + 0.456 * 0 + (0.456 - 0.384) * 123.0 / 3900 + e.ref_w,
				1e-12);
	ck_assert_double_eq_tol(dram_background_w(&e, 1), 0.456 + e.ref_w, 1e-12);

	c.tREFI = 0;
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 4);
	r[0] = (struct rq){.addr = addr_of(&c, 0, 0, 0), .len = 64, .at = 0};
	r[1] = (struct rq){.addr = addr_of(&c, 0, 0, 64), .len = 64, .at = SIM_US};
	r[2] = (struct rq){.addr = addr_of(&c, 0, 1, 0), .len = 64, .at = 2 * SIM_US};
	r[3] =
	    (struct rq){.addr = addr_of(&c, 0, 1, 0), .len = 64, .write = true, .at = 3 * SIM_US};
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	dram_ctrl_energy(tb.d, &n);
	ck_assert_double_eq(n.n[EN_DRAM_ACT], 2);
	ck_assert_double_eq(n.n[EN_DRAM_PRE], 1);
	ck_assert_double_eq(n.n[EN_DRAM_RD], 3);
	ck_assert_double_eq(n.n[EN_DRAM_WR], 1);
	ck_assert_double_eq(n.n[EN_DRAM_IO_BIT], 8 * 4 * 64);
	ck_assert_double_eq(tb_stat(&tb, "rd_bursts"), 3);
	ck_assert_double_eq(tb_stat(&tb, "wr_bursts"), 1);
	for (size_t i = 0; i < tb.ncmd; i++) {
		if (tb.cmd[i].kind == DRAM_CMD_ACT && na < 2)
			act[na++] = tb.cmd[i].cycle;
		if (tb.cmd[i].kind == DRAM_CMD_PRE)
			pre = tb.cmd[i].cycle;
	}
	ck_assert_uint_eq(na, 2);
	ck_assert(act[0] < pre && pre < act[1]);
	ck_assert_double_eq(tb_stat(&tb, "open_cycles"), (double)(pre - act[0]));
	end = sim_clock_cycle(&tb.clk, sim_now(tb.k));
	ck_assert_double_eq_tol(dram_ctrl_open_share(tb.d),
				(double)(pre - act[0] + end - act[1]) / (double)end, 1e-12);
	tb_fini(&tb);
}
END_TEST

static void idle_until_cb(struct sim_kernel *k, void *obj, void *arg)
{
	(void)k;
	(void)obj;
	(void)arg;
}

/* A channel idle after its last request: the first refresh due closes its open rows, so the
 * open share counts them open only until then (DDR3 preset: one read at 0, the run ending at
 * 100 us; the first refresh is due at 3 900 cycles = 7.8 us). */
START_TEST(test_idle_tail_open_share)
{
	struct dram_cfg c;
	struct tb tb;
	struct rq *r;
	uint64_t act = UINT64_MAX, end;

	preset_cfg("ddr3-1000", &c);
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 1);
	r[0] = (struct rq){.addr = addr_of(&c, 0, 0, 0), .len = 64, .at = 0};
	sim_schedule(tb.k, 100 * SIM_US, idle_until_cb, NULL, NULL);
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	for (size_t i = 0; i < tb.ncmd; i++)
		if (tb.cmd[i].kind == DRAM_CMD_ACT)
			act = tb.cmd[i].cycle;
	end = sim_clock_cycle(&tb.clk, sim_now(tb.k));
	ck_assert_uint_eq(end, 50000);
	ck_assert_double_eq_tol(dram_ctrl_open_share(tb.d), (double)(3900 - act) / 50000, 1e-12);
	tb_fini(&tb);
}
END_TEST

/* A refresh's PREA closes the open banks: one PRE's energy each (DRAMPower's handlePreA), kept
 * apart from precharges (which equal the conflicts). */
START_TEST(test_prea_banks)
{
	struct dram_cfg c;
	struct energy_counts n = {{0}, {0}};
	struct tb tb;
	struct rq *r;

	preset_cfg("ddr3-1000", &c);
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 3);
	r[0] = (struct rq){.addr = addr_of(&c, 0, 0, 0), .len = 64, .at = 0};
	r[1] = (struct rq){.addr = addr_of(&c, 1, 0, 0), .len = 64, .at = 0};
	/* after the first refresh (7.8 us) */
	r[2] = (struct rq){.addr = addr_of(&c, 2, 0, 0), .len = 64, .at = 10 * SIM_US};
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	ck_assert_double_eq(tb_stat(&tb, "refreshes"), 1);
	ck_assert_double_eq(tb_stat(&tb, "prea_banks"), 2);
	ck_assert_double_eq(tb_stat(&tb, "precharges"), 0);
	dram_ctrl_energy(tb.d, &n);
	ck_assert_double_eq(n.n[EN_DRAM_PRE], 2);
	ck_assert_double_eq(n.n[EN_DRAM_ACT], 3);
	tb_fini(&tb);
}
END_TEST

/* DDR4 bank groups: row hits in two banks of one group issue their column commands tCCD_L
 * apart, in two banks of different groups tCCD_S apart (the burst, 4 cycles, also tCCD_S):
 * the same reads take 6/4 as long on the bus. */
static uint64_t group_pair_span(unsigned bank_b)
{
	struct tb tb;
	struct dram_cfg c;
	const unsigned n = 64;
	struct rq *r;
	uint64_t first = UINT64_MAX, last = 0, span;

	ddr4_cfg(&c);
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, n);
	for (unsigned i = 0; i < n; i++) {
		r[i].addr = addr_of(&c, i % 2 ? bank_b : 0, 0, (i / 2) * 64);
		r[i].len = 64;
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	for (size_t i = 0; i < tb.ncmd; i++)
		if (tb.cmd[i].kind == DRAM_CMD_RD) {
			first = tb.cmd[i].cycle < first ? tb.cmd[i].cycle : first;
			last = tb.cmd[i].cycle > last ? tb.cmd[i].cycle : last;
		}
	span = last - first;
	tb_fini(&tb);
	return span;
}

START_TEST(test_bank_groups)
{
	/* 64 reads after the first: 63 gaps of tCCD_S (4) across groups; within a group each
	 * bank's next read waits tCCD_L (6) after the group's last one */
	ck_assert_uint_eq(group_pair_span(1), 63 * 4);
	ck_assert_uint_eq(group_pair_span(4), 63 * 6);
}
END_TEST

/* ---- bandwidth ------------------------------------------------------------------------------ */

/* Consecutive requests with the queue kept full reach >= 95% of the peak and never exceed it. */
START_TEST(test_stream_bandwidth)
{
	struct tb tb;
	struct dram_cfg c;
	const unsigned n = 8192;
	uint32_t len = _i == 1 ? 64 : 128;
	bool write = _i == 2;
	struct rq *r;
	double bytes, secs, bw, peak, elapsed_cycles;

	default_cfg(&c);
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, n);
	for (unsigned i = 0; i < n; i++) {
		r[i].addr = (uint64_t)i * len;
		r[i].len = len;
		r[i].write = write;
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	bytes = (double)n * len;
	secs = (double)(tb.last_resp - r[0].sent) * 1e-12;
	bw = bytes / secs;
	peak = dram_peak_bytes_per_s(&c);
	elapsed_cycles = (double)sim_clock_cycle(&tb.clk, tb.last_resp);
	if (bw < 0.95 * peak || bw > peak)
		ck_abort_msg("streaming %u B %s: %.3f GB/s, peak %.3f GB/s", len,
			     write ? "writes" : "reads", bw / 1e9, peak / 1e9);
	ck_assert_double_le(tb_stat(&tb, "bus_busy"), elapsed_cycles);
	ck_assert_double_eq(tb_stat(&tb, "bus_busy"), bytes / (double)(c.bus_bytes * c.data_rate));
	ck_assert_double_gt(tb_stat(&tb, "row_hit_rate"), 0.95);
	ck_assert_uint_eq(write ? tb.max_wq : tb.max_rq, write ? c.write_queue : c.queue);
	/* event driven: a few callbacks per request */
	ck_assert_uint_lt(sim_kernel_stats(tb.k)->timed_items, 8u * n);
	tb_fini(&tb);
}
END_TEST

/* Random rows: almost no row hits, and every line needs its own ACT, so the bandwidth is bounded
 * by one line per max(tRRD, tRC / banks) cycles, well below the peak. */
START_TEST(test_random_bandwidth)
{
	struct tb tb;
	struct dram_cfg c;
	const unsigned n = 4096;
	uint64_t seed = 5;
	struct rq *r;
	double secs, bw, peak, act_interval, bound, hit_rate;

	default_cfg(&c);
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, n);
	for (unsigned i = 0; i < n; i++) {
		r[i].addr = (rng_next(&seed) % (1u << 20)) * 128; /* 128 MiB, 2048 rows/bank */
		r[i].len = 128;
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	secs = (double)(tb.last_resp - r[0].sent) * 1e-12;
	bw = (double)n * 128 / secs;
	peak = dram_peak_bytes_per_s(&c);
	hit_rate = tb_stat(&tb, "row_hit_rate");
	act_interval = (double)c.tRRD > (double)c.tRC / (double)c.banks
			   ? (double)c.tRRD
			   : (double)c.tRC / (double)c.banks;
	/* lines that needed an ACT come at most one per act_interval; hits ride along */
	bound = 128.0 / act_interval * (double)c.clock_mhz * 1e6 / (1.0 - hit_rate);
	ck_assert_double_lt(hit_rate, 0.02);
	if (bw > bound || bw > 0.7 * peak)
		ck_abort_msg("random rows: %.3f GB/s, ACT bound %.3f GB/s, peak %.3f GB/s",
			     bw / 1e9, bound / 1e9, peak / 1e9);
	ck_assert_double_ge(tb_stat(&tb, "activations"), 0.98 * n);
	tb_fini(&tb);
}
END_TEST

/* ---- tFAW, refresh, front-end pipeline ------------------------------------------------------ */

/* One port, n reads (or writes every `wevery`-th, 0: none) of len bytes, all offered at 0:
 * sequential (rnd false) or uniform over 128 MiB. Returns the cycle of the last response. */
static uint64_t run_stream(struct tb *tb, const struct dram_cfg *c, unsigned n, uint32_t len,
			   bool rnd, unsigned wevery, uint64_t seed)
{
	struct rq *r;

	tb_init(tb, c, 1, 0, NULL);
	r = tb_program(tb, 0, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = rng_next(&seed);

		r[i].addr = rnd ? (x % ((128u << 20) / len)) * len : (uint64_t)i * len;
		r[i].len = len;
		r[i].write = wevery && (x >> 40) % wevery == 0;
	}
	ck_assert_int_eq(tb_run(tb), 0);
	tb_check_complete(tb);
	check_trace(tb);
	return sim_clock_cycle(&tb->clk, tb->last_resp);
}

/* Smallest span of five consecutive ACTs on the trace (the window the fifth must respect). */
static uint64_t min_act_window(const struct tb *tb)
{
	uint64_t a[5], best = UINT64_MAX;
	unsigned n = 0;

	for (size_t i = 0; i < tb->ncmd; i++) {
		if (tb->cmd[i].kind != DRAM_CMD_ACT)
			continue;
		memmove(a, a + 1, 4 * sizeof(a[0]));
		a[4] = tb->cmd[i].cycle;
		if (++n >= 5 && a[4] - a[0] < best)
			best = a[4] - a[0];
	}
	return best;
}

/* With tRRD short enough that tRRD alone would allow five ACTs within tFAW, a random stream
 * (one ACT per request) runs into the window: the fifth ACT of any five comes exactly tFAW
 * after the first at the closest, never sooner, so at most four ACTs fall in any tFAW cycles;
 * without tFAW the same stream packs them tRRD apart. */
START_TEST(test_faw)
{
	struct tb tb;
	struct dram_cfg c;
	uint64_t cyc;
	double acts;

	default_cfg(&c);
	c.tRRD = 2;
	ck_assert_uint_lt(4 * c.tRRD, c.tFAW);
	cyc = run_stream(&tb, &c, 2000, 64, true, 0, 21);
	acts = tb_stat(&tb, "activations");
	ck_assert_double_ge(acts, 0.98 * 2000);
	ck_assert_uint_eq(min_act_window(&tb), c.tFAW);
	/* ACT rate: at most 4 per tFAW (one window may start before the first ACT) */
	ck_assert_double_le(acts, 4.0 * ((double)cyc / (double)c.tFAW + 1.0));
	tb_fini(&tb);

	c.tFAW = 0;
	run_stream(&tb, &c, 2000, 64, true, 0, 21);
	ck_assert_uint_lt(min_act_window(&tb), 23);
	tb_fini(&tb);
}
END_TEST

/*
 * A saturating sequential stream loses to refresh what the refreshes cost: the bus idles from
 * the last read's data (its PREA may issue a burst after the RD, so the PREA hides under tCL)
 * through tRP, REF, tRFC and the next row's tRCD + tCL, so a refresh costs at least
 * tRP + tRFC + tRCD and at most tCL, tRAS (a row just opened must stay open that long) and a
 * burst more. One refresh every tREFI: the bandwidth lost is that over tREFI.
 */
START_TEST(test_refresh_cost)
{
	struct tb tb;
	struct dram_cfg c;
	uint64_t with, without, burst, lo, hi;
	double refs, lost;

	default_cfg(&c);
	burst = c.burst_length / c.data_rate;
	with = run_stream(&tb, &c, 32768, 64, false, 0, 1);
	refs = tb_stat(&tb, "refreshes");
	/* one due every tREFI: the last may fall after the last request was served */
	ck_assert_double_ge(refs, (double)(with / c.tREFI) - 1);
	ck_assert_double_le(refs, (double)(with / c.tREFI));
	ck_assert_double_gt(refs, 10);
	tb_fini(&tb);
	c.tREFI = 0;
	without = run_stream(&tb, &c, 32768, 64, false, 0, 1);
	ck_assert_double_eq(tb_stat(&tb, "refreshes"), 0);
	tb_fini(&tb);
	lo = c.tRFC + c.tRP + c.tRCD;
	hi = lo + c.tCL + c.tRAS + burst;
	lost = (double)(with - without) / refs;
	if (lost < (double)lo || lost > (double)hi)
		ck_abort_msg("refresh costs %.1f cycles each, expected %llu..%llu", lost,
			     (unsigned long long)lo, (unsigned long long)hi);
}
END_TEST

/*
 * ctrl_latency is a pipeline in front of the queues: an unloaded read takes exactly
 * ctrl_latency cycles more (the closed forms, test_unloaded_latency, include it), and a
 * saturating stream only starts ctrl_latency later: every command of the stream issues exactly
 * ctrl_latency cycles later than without the pipeline, so the bandwidth stays at the bus peak
 * times the row-hit efficiency.
 */
START_TEST(test_ctrl_latency_pipeline)
{
	struct tb tb;
	struct dram_cfg c;
	struct dram_cmd_rec *cmd0;
	size_t n0;
	uint64_t t0, t1, busy;
	double bw, peak;

	default_cfg(&c);
	c.tREFI = 0; /* refreshes fall on fixed cycles, not shifted with the stream */
	t0 = run_stream(&tb, &c, 8192, 128, false, 0, 1);
	n0 = tb.ncmd;
	cmd0 = tb.cmd;
	tb.cmd = NULL;
	busy = (uint64_t)tb_stat(&tb, "bus_busy");
	tb_fini(&tb);
	c.ctrl_latency = 100;
	t1 = run_stream(&tb, &c, 8192, 128, false, 0, 1);
	ck_assert_uint_eq(t1, t0 + c.ctrl_latency);
	ck_assert_uint_eq(tb.ncmd, n0);
	for (size_t i = 0; i < n0; i++) {
		ck_assert_uint_eq(tb.cmd[i].kind, cmd0[i].kind);
		ck_assert_uint_eq(tb.cmd[i].cycle, cmd0[i].cycle + c.ctrl_latency);
	}
	/* the stream is as fast as without the pipeline: the bus peak but for the row switches */
	peak = dram_peak_bytes_per_s(&c);
	bw = 8192.0 * 128 / ((double)(tb.last_resp - tb.ini[0].rq[0].sent) * 1e-12);
	ck_assert_double_eq(tb_stat(&tb, "bus_busy"), busy);
	ck_assert_double_gt(bw, 0.95 * peak);
	free(cmd0);
	tb_fini(&tb);
}
END_TEST

/* Bus direction changes on the trace (RD after WR or WR after RD); *wr_rd: RD after WR. */
static unsigned trace_turnarounds(const struct tb *tb, unsigned *writes, unsigned *wr_rd)
{
	int last = -1;
	unsigned t = 0;

	*writes = 0;
	*wr_rd = 0;
	for (size_t i = 0; i < tb->ncmd; i++) {
		int w;

		if (tb->cmd[i].kind != DRAM_CMD_RD && tb->cmd[i].kind != DRAM_CMD_WR)
			continue;
		w = tb->cmd[i].kind == DRAM_CMD_WR;
		*writes += (unsigned)w;
		t += last >= 0 && last != w;
		*wr_rd += last == 1 && w == 0;
		last = w;
	}
	return t;
}

/*
 * Random reads and writes 2:1 on one in-order port: writes wait in their queue and go in
 * drains. A drain starts when more than wr_high * write_queue writes wait and ends below
 * wr_low * write_queue, so it issues at least (wr_high - wr_low) * write_queue of them (the
 * queue gets no new write while the port is blocked behind a read); each drain turns the bus
 * around twice, plus once for each row-opened read finishing inside it (at most one per
 * bank). Equal watermarks (0.5: a drain that starts above half the queue ends as soon as
 * the queue is below half again) give drains of a write or two and turn it around more often.
 */
START_TEST(test_write_drain)
{
	struct tb tb;
	struct dram_cfg c;
	unsigned turns, writes, turns_fifo, w2, wr_rd;
	double drains, batch;

	default_cfg(&c);
	run_stream(&tb, &c, 6000, 64, true, 3, 8);
	turns = trace_turnarounds(&tb, &writes, &wr_rd);
	drains = tb_stat(&tb, "write_queue_drains");
	/* a read after a write waits tCDLR after the write data, then tCL for its own */
	ck_assert_double_ge(tb_stat(&tb, "turnaround_cycles"),
			    (double)wr_rd * (double)(c.tCDLR + c.tCL));
	ck_assert_double_eq(tb_stat(&tb, "writes"), writes);
	batch = (c.wr_high - c.wr_low) * (double)c.write_queue;
	/* every drain but the last (the stream's tail) issues at least a batch */
	ck_assert_double_ge((double)writes, batch * (drains - 1));
	ck_assert_double_le((double)turns, drains * (2.0 + 2.0 * (double)c.banks));
	tb_fini(&tb);

	c.wr_high = 0.5;
	c.wr_low = 0.5;
	run_stream(&tb, &c, 6000, 64, true, 3, 8);
	turns_fifo = trace_turnarounds(&tb, &w2, &wr_rd);
	ck_assert_uint_eq(w2, writes);
	ck_assert_uint_gt(turns_fifo, turns);
	tb_fini(&tb);
}
END_TEST

/*
 * Reads are not starved by a flood of writes: port 0 keeps the write queue full, port 1 has 20
 * reads waiting from the start. A drain stops after write_queue writes while reads wait and a
 * read goes next, so between two reads at most write_queue writes start, plus the writes
 * whose rows were already open (one per bank); all reads finish long before the flood.
 */
START_TEST(test_no_read_starvation)
{
	struct tb tb;
	struct dram_cfg c;
	struct rq *w, *r;
	uint64_t seed = 77;
	unsigned run = 0, maxrun = 0, reads = 0;
	sim_time_t last_read = 0;

	default_cfg(&c);
	tb_init(&tb, &c, 2, 0, NULL);
	w = tb_program(&tb, 0, 3000);
	r = tb_program(&tb, 1, 20);
	for (unsigned i = 0; i < 3000; i++)
		w[i] = (struct rq){
		    .addr = (rng_next(&seed) % (1u << 20)) * 128, .len = 128, .write = 1};
	for (unsigned i = 0; i < 20; i++)
		r[i] = (struct rq){.addr = (rng_next(&seed) % (1u << 20)) * 128, .len = 128};
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	/* only port 1 reads: 40 RD bursts; the writes between two of them */
	for (size_t i = 0; i < tb.ncmd && reads < 40; i++) {
		if (tb.cmd[i].kind == DRAM_CMD_RD) {
			reads++;
			run = 0;
		} else if (tb.cmd[i].kind == DRAM_CMD_WR && ++run > maxrun) {
			maxrun = run;
		}
	}
	ck_assert_uint_eq(reads, 40);
	ck_assert_uint_le(maxrun, 2 * (c.write_queue + c.banks));
	for (unsigned i = 0; i < 20; i++)
		if (r[i].resp > last_read)
			last_read = r[i].resp;
	ck_assert_uint_lt(last_read, w[2999].resp / 4);
	tb_fini(&tb);
}
END_TEST

/* ---- back-pressure ------------------------------------------------------------------------- */

START_TEST(test_backpressure)
{
	struct tb tb;
	struct dram_cfg c;
	unsigned nini = _i == 0 ? 1 : 4, per = 100 / nini, stalled = 0;
	uint64_t seed = 3;

	default_cfg(&c);
	c.queue = 4;
	c.write_queue = 4;
	tb_init(&tb, &c, nini, 0, NULL);
	for (unsigned i = 0; i < nini; i++) {
		struct rq *r = tb_program(&tb, i, per);

		tb.ini[i].mode = (enum resp_mode)(i % 3);
		tb.ini[i].hold = 5 * SIM_NS; /* slow END_RESP: a response waits on its port */
		for (unsigned j = 0; j < per; j++) {
			r[j].addr = (rng_next(&seed) % 4096) * 128;
			r[j].len = 128;
			r[j].write = j % 4 == 1;
		}
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	for (unsigned i = 0; i < nini; i++)
		stalled += tb.ini[i].backpressured;
	ck_assert_uint_gt(stalled, 50); /* back-pressure did happen */
	ck_assert_uint_eq(tb.max_rq, 4);
	ck_assert_uint_le(tb.max_wq, 4);
	ck_assert_double_eq(tb_stat(&tb, "requests"), 100);
	ck_assert_double_le(tb_stat(&tb, "queue_occupancy"), 4);
	tb_fini(&tb);
}
END_TEST

/* ---- scheduling policy ------------------------------------------------------------------- */

/* Alternating rows of one bank: FR-FCFS serves each row's requests together. */
static void run_alternating(unsigned sched, double *hits, sim_time_t *finish)
{
	struct tb tb;
	struct dram_cfg c;
	struct rq *r;

	default_cfg(&c);
	c.scheduler = sched;
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 16);
	for (unsigned i = 0; i < 16; i++) {
		r[i].addr = addr_of(&c, 5, i % 2, (i / 2) * 128);
		r[i].len = 128;
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	*hits = tb_stat(&tb, "row_hits");
	*finish = tb.last_resp;
	tb_fini(&tb);
}

START_TEST(test_frfcfs_vs_fcfs)
{
	double hf, hq;
	sim_time_t tf, tq;

	run_alternating(DRAM_SCHED_FRFCFS, &hf, &tf);
	run_alternating(DRAM_SCHED_FCFS, &hq, &tq);
	ck_assert_double_gt(hf, hq);
	ck_assert_double_eq(hf, 14); /* one ACT per row */
	ck_assert_double_eq(hq, 0);  /* every request switches rows */
	ck_assert_uint_lt(tf, tq);
}
END_TEST

/* ---- data ------------------------------------------------------------------------------------ */

START_TEST(test_data)
{
	struct tb tb;
	struct dram_cfg c;
	struct rq *r;
	static uint8_t be_half[128], be_word[4] = {0xff, 0x00, 0x00, 0xff};
	uint8_t model[128] = {0}, got[128];
	uint64_t x, y, z0, z1;
	struct tlm_payload *p;

	default_cfg(&c);
	for (unsigned i = 0; i < 128; i++)
		be_half[i] = (i / 8) % 2 ? 0x00 : 0xff;
	x = addr_of(&c, 4, 7, 1024);
	y = addr_of(&c, 4, 9, 2048); /* untouched */
	z0 = addr_of(&c, 4, 8, 0);
	z1 = addr_of(&c, 4, 8, 128);
	tb_init(&tb, &c, 1, 0, NULL);
	r = tb_program(&tb, 0, 8);
	/* sent back to back: reads of another row of the same bank tempt reordering */
	r[0] = (struct rq){.addr = x, .len = 128, .write = 1, .fill = 0x10};
	r[1] = (struct rq){.addr = z0, .len = 128};
	r[2] = (struct rq){
	    .addr = x, .len = 128, .write = 1, .fill = 0x80, .be = be_half, .be_len = 128};
	r[3] = (struct rq){.addr = z1, .len = 128};
	r[4] = (struct rq){
	    .addr = x + 32, .len = 32, .write = 1, .fill = 0xc0, .be = be_word, .be_len = 4};
	r[5] = (struct rq){.addr = x, .len = 128};
	r[6] = (struct rq){.addr = y, .len = 128};
	r[7] = (struct rq){.addr = x + 96, .len = 32};
	for (unsigned i = 0; i < 128; i++)
		model[i] = (uint8_t)(0x10 + i);
	for (unsigned i = 0; i < 128; i++)
		if (be_half[i])
			model[i] = (uint8_t)(0x80 + i);
	for (unsigned i = 0; i < 32; i++)
		if (be_word[i % 4])
			model[32 + i] = (uint8_t)(0xc0 + i);
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	ck_assert_mem_eq(r[5].data, model, 128);
	memset(got, 0, sizeof(got));
	ck_assert_mem_eq(r[6].data, got, 128);
	ck_assert_mem_eq(r[7].data, model + 96, 32);
	mem_store_read(tb.store, x, got, 128);
	ck_assert_mem_eq(got, model, 128);
	/* debug access reads the same, with no time and no stats */
	p = tlm_payload_alloc(tb.pool);
	p->addr = x;
	p->len = 128;
	ck_assert_uint_eq(tlm_transport_dbg(&tb.ini[0].is, p), 128);
	ck_assert_mem_eq(p->data, model, 128);
	tlm_payload_release(p);
	ck_assert_double_eq(tb_stat(&tb, "requests"), 8);
	tb_fini(&tb);
}
END_TEST

/* ---- determinism ----------------------------------------------------------------------------- */

static void run_mix(sim_time_t *finish, uint64_t *digest, uint64_t *trace_hash, double *acts)
{
	struct tb tb;
	struct dram_cfg c;
	uint64_t seed = 99, h = 0xcbf29ce484222325ull;

	default_cfg(&c);
	c.queue = 8;
	tb_init(&tb, &c, 3, 0, NULL);
	for (unsigned i = 0; i < 3; i++) {
		struct rq *r = tb_program(&tb, i, 400);

		tb.ini[i].mode = (enum resp_mode)i;
		tb.ini[i].hold = 2 * SIM_NS;
		for (unsigned j = 0; j < 400; j++) {
			uint64_t x = rng_next(&seed);

			r[j].addr = (x % 8192) * 128;
			r[j].len = 128;
			r[j].write = (x >> 20) % 2;
			r[j].fill = (uint8_t)(x >> 30);
			r[j].at = (x >> 40) % 8 == 0 ? j * 10 * SIM_NS : 0;
		}
	}
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	for (size_t i = 0; i < tb.ncmd; i++) {
		h = (h ^ tb.cmd[i].cycle) * 0x100000001b3ull;
		h = (h ^ (tb.cmd[i].kind * 1000u + tb.cmd[i].bank)) * 0x100000001b3ull;
	}
	*finish = tb.last_resp;
	*digest = mem_store_digest(tb.store);
	*trace_hash = h;
	*acts = tb_stat(&tb, "activations");
	tb_fini(&tb);
}

START_TEST(test_determinism)
{
	sim_time_t f1, f2;
	uint64_t d1, d2, h1, h2;
	double a1, a2;

	run_mix(&f1, &d1, &h1, &a1);
	run_mix(&f2, &d2, &h2, &a2);
	ck_assert_uint_gt(f1, 0);
	ck_assert_uint_eq(f1, f2);
	ck_assert_uint_eq(d1, d2);
	ck_assert_uint_eq(h1, h2);
	ck_assert_double_eq(a1, a2);
}
END_TEST

/* ---- address map ----------------------------------------------------------------------------- */

/* Channel 1 of 2 (2 L2 banks each): its addresses are packed densely, so streaming over them
 * stays in open rows; an address of channel 0 is a wiring error. */
START_TEST(test_channel_addresses)
{
	struct tb tb;
	struct dram_cfg c;
	struct addr_map map = {.banks = 4, .banks_per_channel = 2, .interleave_shift = 8};
	struct rq *r;
	unsigned n = 0;

	default_cfg(&c);
	tb_init(&tb, &c, 2, 1, &map);
	r = tb_program(&tb, 0, 64);
	for (uint64_t a = 0; n < 64; a += 128)
		if (addrmap_channel(&map, a) == 1)
			r[n++] = (struct rq){.addr = a, .len = 128};
	ck_assert_int_eq(tb_run(&tb), 0);
	tb_check_complete(&tb);
	check_trace(&tb);
	/* 64 lines = 8 KiB of local space = rows 0 of banks 0 and 1 */
	ck_assert_double_eq(tb_stat(&tb, "row_hits"), 62);
	ck_assert_double_eq(tb_stat(&tb, "activations"), 2);
	tb_fini(&tb);

	tb_init(&tb, &c, 2, 1, &map);
	r = tb_program(&tb, 1, 1);
	r[0] = (struct rq){.addr = 0x100 * 4 + 0x80, .len = 128}; /* chunk 4: bank 0, channel 0 */
	ck_assert_int_eq(tb_run(&tb), -CS_EPROTO);
	ck_assert_ptr_nonnull(strstr(sim_failure(tb.k), "channel 0"));
	tb_fini(&tb);
}
END_TEST

static Suite *dram_suite(void)
{
	Suite *s = suite_create("dram");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_bad_config);
	tcase_add_loop_test(tc, test_closed_forms, 0, 5);
	suite_add_tcase(s, tc);

	tc = tcase_create("timing");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_unloaded_latency, 0, 5);
	tcase_add_loop_test(tc, test_act_spacing, 0, 3);
	tcase_add_loop_test(tc, test_timing_rules_random, 0, 10);
	tcase_add_test(tc, test_ddr3_preset);
	tcase_add_test(tc, test_idd_energy);
	tcase_add_test(tc, test_prea_banks);
	tcase_add_test(tc, test_idle_tail_open_share);
	tcase_add_test(tc, test_bank_groups);
	suite_add_tcase(s, tc);

	tc = tcase_create("bandwidth");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_stream_bandwidth, 0, 3);
	tcase_add_test(tc, test_random_bandwidth);
	tcase_add_test(tc, test_faw);
	tcase_add_test(tc, test_refresh_cost);
	tcase_add_test(tc, test_ctrl_latency_pipeline);
	suite_add_tcase(s, tc);

	tc = tcase_create("queue");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_backpressure, 0, 2);
	tcase_add_test(tc, test_frfcfs_vs_fcfs);
	tcase_add_test(tc, test_write_drain);
	tcase_add_test(tc, test_no_read_starvation);
	tcase_add_test(tc, test_data);
	tcase_add_test(tc, test_determinism);
	tcase_add_test(tc, test_channel_addresses);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(dram_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
