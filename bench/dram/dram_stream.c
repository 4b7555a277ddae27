/*
 * bench/dram/dram_stream.c - feeds one DRAM channel controller (tlm/dram) a request stream and
 * prints bandwidth, row-hit rate and read latency; also writes the streams (the same files drive
 * Ramulator 2 through bench/dram/ramulator_stream.cpp, see bench/dram/run.sh).
 *
 *   dram_stream gen KIND N SEED LOAD > FILE    KIND seq | rand | mix (random, 2 reads : 1 write);
 *       N requests of 64 B; LOAD requests per command cycle offered (Poisson arrivals), 0 = all
 *       at cycle 0 (saturating). Lines: "R|W <channel-local address, hex> <arrival cycle>".
 *   dram_stream run FILE [KEY=VALUE ...]       runs the stream on one channel with the `dram`
 *       defaults overridden by KEY=VALUE (keys of the dram section), prints one line.
 *
 * The driver is one in-order port: a request is sent at its arrival cycle or as soon as the
 * one before it was accepted (END_REQ), whichever is later, as Ramulator's trace front ends do.
 * Latency of a read: from its arrival cycle (waiting to be accepted included) to BEGIN_RESP.
 * Bandwidth: bytes of all requests / time from cycle 0 to the last response.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/dram/dram.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/msg.h"
#include "tlm/mem/store.h"
#include "util/error.h"
#include "util/mix.h"
#include "util/params.h"
#include "util/stats.h"

#define REQ_BYTES 64
#define REGION	  (256ull << 20) /* random streams: 256 MiB of the channel, 4096 rows per bank */

struct rq {
	uint64_t addr, at; /* arrival, command cycles */
	bool write;
	sim_time_t resp;
};

struct drv {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct sim_clock clk;
	struct tlm_initiator_socket is;
	struct rq *rq;
	size_t n, next, done;
	bool busy, pump_pending;
};

static uint64_t splitmix(uint64_t *s)
{
	return cs_splitmix64(s);
}

static int gen(const char *kind, size_t n, uint64_t seed, double load)
{
	double t = 0.0;

	if (strcmp(kind, "seq") && strcmp(kind, "rand") && strcmp(kind, "mix")) {
		fprintf(stderr, "dram_stream: unknown stream '%s' (seq, rand, mix)\n", kind);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t x = splitmix(&seed);
		uint64_t a =
		    kind[0] == 's' ? i * REQ_BYTES : (x % (REGION / REQ_BYTES)) * REQ_BYTES;
		bool w = kind[0] == 'm' && (x >> 40) % 3 == 0;

		if (load > 0.0) {
			/* exponential gap of mean 1 / load cycles (53 random bits, never 0) */
			double u = ((double)(splitmix(&seed) >> 11) + 0.5) / 9007199254740992.0;

			t += -log(u) / load;
		}
		printf("%c %" PRIx64 " %" PRIu64 "\n", w ? 'W' : 'R', a, (uint64_t)t);
	}
	return 0;
}

static void pump(struct drv *v);

static void pump_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct drv *v = obj;

	(void)k;
	(void)arg;
	v->pump_pending = false;
	pump(v);
}

static void pump(struct drv *v)
{
	while (!v->busy && v->next < v->n) {
		struct rq *r = &v->rq[v->next];
		sim_time_t at = sim_clock_edge(&v->clk, r->at);
		struct tlm_payload *p;
		enum tlm_phase ph = TLM_BEGIN_REQ;
		sim_time_t delay = 0;
		enum tlm_sync_enum ret;

		if (at > sim_now(v->k)) {
			if (!v->pump_pending) {
				v->pump_pending = true;
				sim_schedule_at(v->k, at, SIM_PRIO_DEFAULT, pump_cb, v, NULL);
			}
			return;
		}
		p = tlm_payload_alloc(v->pool);
		if (!p) {
			sim_fail(v->k, -CS_ENOMEM, "dram_stream: out of payloads");
			return;
		}
		mem_msg_of(p)->txn = v->next;
		p->addr = r->addr;
		p->len = REQ_BYTES;
		p->cmd = r->write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND;
		v->next++;
		ret = tlm_nb_transport_fw(&v->is, p, &ph, &delay);
		if (ret == TLM_ACCEPTED) {
			v->busy = true;
			return;
		}
	}
}

static enum tlm_sync_enum drv_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				 sim_time_t *delay)
{
	struct drv *v = obj;

	(void)delay;
	if (*ph == TLM_END_REQ) {
		v->busy = false;
		if (!v->pump_pending) {
			v->pump_pending = true;
			sim_schedule(v->k, 0, pump_cb, v, NULL);
		}
		return TLM_ACCEPTED;
	}
	v->rq[mem_msg_of(p)->txn].resp = sim_now(v->k);
	v->done++;
	tlm_payload_release(p);
	return TLM_COMPLETED;
}

static const struct tlm_bw_ops drv_ops = {.nb_transport_bw = drv_bw};

static int load_trace(const char *path, struct drv *v)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t cap = 0, lineno = 0;

	if (!f) {
		fprintf(stderr, "dram_stream: %s: cannot open\n", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char c;
		uint64_t a, t;

		lineno++;
		if (sscanf(line, " %c %" SCNx64 " %" SCNu64, &c, &a, &t) != 3 ||
		    (c != 'R' && c != 'W') || a % REQ_BYTES) {
			fprintf(stderr,
				"dram_stream: %s:%zu: expected 'R|W <hex address, 64 B aligned> "
				"<cycle>'\n",
				path, lineno);
			fclose(f);
			return 1;
		}
		if (v->n == cap) {
			struct rq *n = realloc(v->rq, (cap = cap ? 2 * cap : 4096) * sizeof(*n));

			if (!n) {
				fclose(f);
				fprintf(stderr, "dram_stream: out of memory\n");
				return 1;
			}
			v->rq = n;
		}
		v->rq[v->n++] = (struct rq){.addr = a, .at = t, .write = c == 'W'};
	}
	fclose(f);
	return 0;
}

static int run(const char *path, int nset, char **set)
{
	struct drv v = {0};
	struct dram_cfg cfg;
	struct cs_err err = {0};
	struct cs_stats *stats = NULL;
	struct mem_store *store = NULL;
	struct dram_ctrl *d = NULL;
	struct addr_map map = {.banks = 1, .banks_per_channel = 1, .interleave_shift = 8};
	double hits, reqs, lat = 0.0, bytes, turns, drains, refs;
	size_t nreads = 0;
	sim_time_t last = 0;
	int rc = 1;

	if (cs_params_defaults(&dram_params, &cfg, &err))
		goto out;
	for (int i = 0; i < nset; i++) {
		char key[64];
		const char *eq = strchr(set[i], '=');
		const struct cs_param *p;

		if (!eq || (size_t)(eq - set[i]) >= sizeof(key)) {
			fprintf(stderr, "dram_stream: '%s': expected KEY=VALUE\n", set[i]);
			goto out;
		}
		memcpy(key, set[i], (size_t)(eq - set[i]));
		key[eq - set[i]] = '\0';
		p = cs_param_find(&dram_params, key);
		if (!p) {
			fprintf(stderr, "dram_stream: '%s': no such dram parameter\n", key);
			goto out;
		}
		if (cs_param_parse(p, eq + 1, &cfg, set[i], &err)) {
			fprintf(stderr, "dram_stream: %s\n", err.msg);
			goto out;
		}
	}
	if (load_trace(path, &v))
		goto out;
	if (sim_clock_init(&v.clk, cfg.clock_mhz * 1000000ull) || sim_kernel_create(NULL, &v.k) ||
	    cs_stats_create(&stats) || mem_store_create(&store) ||
	    tlm_pool_create_sized(sizeof(struct mem_msg), &v.pool)) {
		fprintf(stderr, "dram_stream: out of memory\n");
		goto out;
	}
	if (dram_ctrl_create(v.k, &cfg, 0, &map, store, 1, cs_stat_group(cs_stats_root(stats), "d"),
			     &d, &err)) {
		fprintf(stderr, "dram_stream: %s\n", err.msg);
		goto out;
	}
	tlm_initiator_init(&v.is, "drv", &drv_ops, &v);
	if (tlm_bind(&v.is, dram_ctrl_port(d, 0)))
		goto out;
	v.pump_pending = true;
	sim_schedule(v.k, 0, pump_cb, &v, NULL);
	if (sim_run(v.k)) {
		fprintf(stderr, "dram_stream: %s\n", sim_failure(v.k));
		goto out;
	}
	if (v.done != v.n) {
		fprintf(stderr, "dram_stream: %zu of %zu requests answered\n", v.done, v.n);
		goto out;
	}
	for (size_t i = 0; i < v.n; i++) {
		if (v.rq[i].resp > last)
			last = v.rq[i].resp;
		if (!v.rq[i].write) {
			/* response edge in cycles, minus the arrival cycle */
			lat += (double)sim_clock_cycle(&v.clk, v.rq[i].resp) - (double)v.rq[i].at;
			nreads++;
		}
	}
	cs_stats_value(stats, "d.row_hits", &hits);
	cs_stats_value(stats, "d.requests", &reqs);
	cs_stats_value(stats, "d.turnaround_cycles", &turns);
	cs_stats_value(stats, "d.write_queue_drains", &drains);
	cs_stats_value(stats, "d.refreshes", &refs);
	bytes = (double)v.n * REQ_BYTES;
	printf("requests=%zu cycles=%" PRIu64 " gbps=%.3f row_hit_rate=%.4f read_latency=%.2f "
	       "turnaround_cycles=%.0f write_drains=%.0f refreshes=%.0f\n",
	       v.n, sim_clock_cycle(&v.clk, last), bytes / ((double)last * 1e-12) / 1e9,
	       reqs > 0 ? hits / reqs : 0.0, nreads ? lat / (double)nreads : 0.0, turns, drains,
	       refs);
	rc = 0;
out:
	if (rc && err.msg[0] && !d)
		fprintf(stderr, "dram_stream: %s\n", err.msg);
	dram_ctrl_destroy(d);
	sim_kernel_destroy(v.k);
	tlm_pool_destroy(v.pool);
	mem_store_destroy(store);
	cs_stats_destroy(stats);
	free(v.rq);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
			   strtod(argv[5], NULL));
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return run(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: dram_stream gen seq|rand|mix N SEED LOAD > FILE\n"
			"       dram_stream run FILE [KEY=VALUE ...]\n");
	return 2;
}
