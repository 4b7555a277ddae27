/*
 * bench/noc/noc_bench.c - the generic network (tlm/noc, noc_net_create) under synthetic traffic:
 * zero-load latency and saturation throughput per traffic pattern, beside the analytic
 * expectation. Prints one table; never asserts (bench/README.md).
 *
 * Network: 1 GHz (cycles = ns), 32 B flits, 8 B header, R = 2, L = 1, 16-flit buffers, XY
 * routing on a 5 x 5 mesh, or a crossbar. Packets of 1 flit (24 B payload) or 5 flits (128 B).
 * Patterns (dst drawn per packet):
 *   sm2bank   15 SMs -> 6 banks, uniform over the banks (the GPU placement, 4 routers empty)
 *   bank2sm   6 banks -> 15 SMs, uniform over the SMs
 *   uniform   25 endpoints -> uniform over the other 24
 *   all2all   25 endpoints, each sending to the other 24 in turn (s+1, s+2, ... mod 25)
 *   0->1      the link (noc_link_params defaults: 16 B per 1 GHz cycle, 24 B header, R = 10,
 *             L = 240, 512-flit buffers): endpoint 0 to endpoint 1, 64 B and 128 B payloads
 * Sources: Bernoulli, a packet per cycle with probability lambda / F (lambda in flits per cycle
 * per source), an unbounded source queue, latency from generation to the tail's delivery.
 * Zero-load latency: measured at lambda = 0.005 beside the mean over the pattern's pairs of
 * (hops + 1)(R + L) + F - 1 (zl.form); diff% compares the measured mean with the formula's mean
 * over the same packets (so the sampling of pairs cancels and only queueing remains). Saturation throughput: every source always backlogged (one packet
 * waiting at the injection port at all times), accepted flits per cycle per source over the
 * window, beside the channel-load bound 1 / max_c(load of channel c per unit lambda) computed by
 * walking the XY routes of the pattern's traffic matrix (injection, router-router and ejection
 * channels): the bisection bound for uniform traffic, the ejection bound for many-to-few.
 * Then mean latency at 25/50/75/90 % of the measured saturation throughput.
 *
 * Usage: noc_bench [quick]   (quick: shorter windows)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/msg.h"
#include "tlm/noc/noc.h"
#include "util/error.h"
#include "util/mix.h"
#include "util/params.h"
#include "util/stats.h"

#define MAX_EP 32
#define NS     ((sim_time_t)SIM_NS)

enum pattern { P_SM2BANK = 0, P_BANK2SM, P_UNIFORM, P_ALL2ALL, P_P2P, P_COUNT };
static const char *const pat_name[P_COUNT] = {"sm2bank", "bank2sm", "uniform", "all2all", "0->1"};

struct bench;

struct src {
	struct tlm_initiator_socket is;
	struct bench *b;
	unsigned ep;
	uint64_t rng;
	unsigned turn; /* all2all: next offset */
	bool active;   /* a source in this pattern */
};

struct dst {
	struct tlm_target_socket ts;
	struct bench *b;
};

struct bench {
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct cs_stats *stats;
	struct noc *noc;
	struct noc_cfg cfg;
	enum pattern pat;
	unsigned n_ep, n_src, n_dst, n_vnets;
	unsigned src_ep[MAX_EP], dst_ep[MAX_EP];
	unsigned pos[MAX_EP];
	struct src src[MAX_EP];
	struct dst dst[MAX_EP];
	unsigned payload, flits;
	double p;	 /* packets per cycle per source (Bernoulli) */
	bool backlog;	 /* saturation: a new packet as soon as the last one is taken */
	uint64_t w0, w1; /* measurement window, cycles */
	/* results */
	double lat_sum, zero_sum; /* zero_sum: the formula for the same packets */
	uint64_t lat_n, win_flits, outstanding;
};

static uint64_t splitmix(uint64_t *s)
{
	return cs_splitmix64(s);
}

static double unif(uint64_t *s)
{
	return ((double)(splitmix(s) >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t now_cycle(struct bench *b)
{
	return sim_now(b->k) / NS;
}

static unsigned pick_dst(struct bench *b, struct src *s)
{
	switch (b->pat) {
	case P_SM2BANK:
	case P_BANK2SM:
	case P_P2P:
		return b->dst_ep[splitmix(&s->rng) % b->n_dst];
	case P_UNIFORM: {
		unsigned d = (unsigned)(splitmix(&s->rng) % (b->n_ep - 1));

		return d >= s->ep ? d + 1 : d;
	}
	default:
		s->turn = s->turn % (b->n_ep - 1) + 1;
		return (s->ep + s->turn) % b->n_ep;
	}
}

static void gen(struct sim_kernel *k, void *obj, void *arg);

/* One packet from s now; the next generation scheduled (Bernoulli) unless backlogged. */
static void offer(struct bench *b, struct src *s)
{
	struct tlm_payload *p = tlm_payload_alloc(b->pool);
	struct mem_msg *m = mem_msg_of(p);
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0;

	m->src = (uint16_t)s->ep;
	m->requester = (uint16_t)s->ep;
	m->dst = (uint16_t)pick_dst(b, s);
	m->vnet = (uint8_t)(b->n_vnets > 1 ? splitmix(&s->rng) % b->n_vnets : 0);
	m->type = 0;
	m->req_bytes = (uint16_t)b->payload;
	m->sent_ps = sim_now(b->k);
	b->outstanding++;
	if (tlm_nb_transport_fw(&s->is, p, &ph, &d) == TLM_UPDATED && b->backlog &&
	    now_cycle(b) < b->w1)
		sim_schedule_at(b->k, sim_now(b->k) + NS, SIM_PRIO_DEFAULT, gen, s, NULL);
}

static void gen(struct sim_kernel *k, void *obj, void *arg)
{
	struct src *s = obj;
	struct bench *b = s->b;
	uint64_t c = now_cycle(b), gap;

	(void)k;
	(void)arg;
	if (c >= b->w1)
		return;
	offer(b, s);
	if (b->backlog)
		return;
	/* geometric gap: the next cycle with a success of a Bernoulli(p) per cycle */
	gap = b->p >= 1 ? 1 : 1 + (uint64_t)floor(log(unif(&s->rng)) / log(1 - b->p));
	sim_schedule_at(b->k, (c + gap) * NS, SIM_PRIO_DEFAULT, gen, s, NULL);
}

static enum tlm_sync_enum src_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				 sim_time_t *d)
{
	struct src *s = obj;

	(void)p;
	(void)ph;
	(void)d;
	/* backlogged: the waiting packet was taken, the next one waits from the next cycle */
	if (s->b->backlog && now_cycle(s->b) < s->b->w1)
		sim_schedule_at(s->b->k, (now_cycle(s->b) + 1) * NS, SIM_PRIO_DEFAULT, gen, s,
				NULL);
	return TLM_ACCEPTED;
}

static const struct tlm_bw_ops src_bw_ops = {.nb_transport_bw = src_bw};

static enum tlm_sync_enum dst_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				 sim_time_t *d)
{
	struct dst *x = obj;
	struct bench *b = x->b;
	struct mem_msg *m = mem_msg_of(p);
	uint64_t c = now_cycle(b), g = m->sent_ps / NS;

	(void)d;
	if (g >= b->w0 && g < b->w1) {
		b->lat_sum += (double)(c - g);
		b->zero_sum += (double)noc_ep_unloaded_cycles(b->noc, m->src, m->dst, b->payload);
		b->lat_n++;
	}
	if (c >= b->w0 && c < b->w1)
		b->win_flits += b->flits;
	b->outstanding--;
	tlm_payload_release(p);
	*ph = TLM_END_REQ;
	return TLM_UPDATED;
}

static void dst_b(void *obj, struct tlm_payload *p, sim_time_t *d)
{
	(void)obj;
	(void)p;
	(void)d;
}

static const struct tlm_fw_ops dst_fw_ops = {.nb_transport_fw = dst_fw, .b_transport = dst_b};

/* ---- setup ----------------------------------------------------------------------------------- */

static void pattern_setup(struct bench *b, enum pattern pat)
{
	b->pat = pat;
	if (pat == P_P2P) {
		b->n_ep = 2;
		b->n_src = b->n_dst = 1;
		b->src_ep[0] = b->pos[0] = 0;
		b->dst_ep[0] = b->pos[1] = 1;
	} else if (pat == P_SM2BANK || pat == P_BANK2SM) {
		b->n_ep = 21;
		noc_gpu_place(15, 6, b->pos);
		b->n_src = pat == P_SM2BANK ? 15 : 6;
		b->n_dst = pat == P_SM2BANK ? 6 : 15;
		for (unsigned i = 0; i < b->n_src; i++)
			b->src_ep[i] = pat == P_SM2BANK ? i : 15 + i;
		for (unsigned i = 0; i < b->n_dst; i++)
			b->dst_ep[i] = pat == P_SM2BANK ? 15 + i : i;
	} else {
		b->n_ep = b->n_src = b->n_dst = 25;
		for (unsigned i = 0; i < 25; i++)
			b->pos[i] = b->src_ep[i] = b->dst_ep[i] = i;
	}
}

/* T[s][d]: the share of source s's packets that go to d. */
static double share(const struct bench *b, unsigned s, unsigned d)
{
	bool is_src = false, is_dst = false;

	for (unsigned i = 0; i < b->n_src; i++)
		is_src |= b->src_ep[i] == s;
	for (unsigned i = 0; i < b->n_dst; i++)
		is_dst |= b->dst_ep[i] == d;
	if (!is_src || !is_dst)
		return 0;
	if (b->pat == P_P2P)
		return 1;
	if (b->pat == P_UNIFORM || b->pat == P_ALL2ALL)
		return s == d ? 0 : 1.0 / (b->n_ep - 1);
	return 1.0 / b->n_dst;
}

/* Mean unloaded latency over the pattern's pairs, and the channel-load bound on lambda. */
static void analytic(const struct bench *b, double *zero, double *bound)
{
	const unsigned cols = 5, R = (unsigned)b->cfg.router_latency,
		       L = (unsigned)b->cfg.link_latency;
	static double link[25][4]; /* mesh: router r's E, W, N, S output */
	double inj[MAX_EP] = {0}, ej[MAX_EP] = {0}, z = 0, tot = 0, mx = 0;
	bool mesh = b->cfg.topology == NOC_MESH;

	memset(link, 0, sizeof(link));
	for (unsigned s = 0; s < b->n_ep; s++)
		for (unsigned d = 0; d < b->n_ep; d++) {
			double t = share(b, s, d);
			unsigned x, y, tx, ty, hops = 0;

			if (t == 0)
				continue;
			inj[s] += t;
			ej[d] += t;
			x = b->pos[s] % cols;
			y = b->pos[s] / cols;
			tx = b->pos[d] % cols;
			ty = b->pos[d] / cols;
			while (mesh && (x != tx || y != ty)) {
				unsigned r = y * cols + x, dir;

				if (tx > x)
					dir = 0, x++;
				else if (tx < x)
					dir = 1, x--;
				else if (ty < y)
					dir = 2, y--;
				else
					dir = 3, y++;
				link[r][dir] += t;
				hops++;
			}
			z += t * ((double)(hops + 1) * (R + L) + b->flits - 1);
			tot += t;
		}
	for (unsigned e = 0; e < b->n_ep; e++) {
		mx = fmax(mx, inj[e]);
		mx = fmax(mx, ej[e]);
	}
	for (unsigned r = 0; r < 25; r++)
		for (unsigned d = 0; d < 4; d++)
			mx = fmax(mx, link[r][d]);
	*zero = z / tot;
	*bound = 1.0 / mx;
}

/* One run: lambda flits per cycle per source (< 0: backlogged). Returns the mean latency
 * (cycles) of the packets generated in the window; *thr the accepted flits per cycle per
 * source in the window. */
static double run(struct bench *b, double lambda, uint64_t warm, uint64_t win, double *thr)
{
	static const char *const vn[4] = {"v0", "v1", "v2", "v3"};
	struct cs_err err;
	int rc;

	b->lat_sum = b->zero_sum = 0;
	b->lat_n = b->win_flits = b->outstanding = 0;
	b->backlog = lambda < 0;
	b->p = b->backlog ? 1 : lambda / b->flits;
	b->w0 = warm;
	b->w1 = warm + win;
	if (sim_kernel_create(NULL, &b->k) ||
	    tlm_pool_create_sized(sizeof(struct mem_msg), &b->pool) || cs_stats_create(&b->stats)) {
		fprintf(stderr, "noc_bench: out of memory\n");
		exit(1);
	}
	rc = noc_net_create(b->k, &b->cfg, b->n_ep, b->n_vnets, b->pos, vn, NULL, 1,
			    cs_stats_root(b->stats), &b->noc, &err);
	if (rc) {
		fprintf(stderr, "noc_bench: %s\n", err.msg);
		exit(1);
	}
	for (unsigned e = 0; e < b->n_ep; e++) {
		struct src *s = &b->src[e];
		struct dst *x = &b->dst[e];

		memset(s, 0, sizeof(*s));
		s->b = b;
		s->ep = e;
		s->rng = 0x1234567ull * (e + 1);
		tlm_initiator_init(&s->is, "src", &src_bw_ops, s);
		x->b = b;
		tlm_target_init(&x->ts, "dst", &dst_fw_ops, x);
		tlm_bind(&s->is, noc_inject_port(b->noc, e));
		tlm_bind(noc_deliver_port(b->noc, e), &x->ts);
	}
	for (unsigned i = 0; i < b->n_src; i++) {
		struct src *s = &b->src[b->src_ep[i]];
		uint64_t first =
		    b->backlog
			? 0
			: (uint64_t)floor(log(unif(&s->rng)) / log(1 - fmin(b->p, 0.999999)));

		s->active = true;
		sim_schedule_at(b->k, first * NS, SIM_PRIO_DEFAULT, gen, s, NULL);
	}
	rc = sim_run(b->k);
	if (rc) {
		fprintf(stderr, "noc_bench: %s\n", sim_failure(b->k));
		exit(1);
	}
	*thr = (double)b->win_flits / (double)win / b->n_src;
	b->zero_sum = b->lat_n ? b->zero_sum / (double)b->lat_n : 0;
	noc_destroy(b->noc);
	sim_kernel_destroy(b->k);
	tlm_pool_destroy(b->pool);
	cs_stats_destroy(b->stats);
	return b->lat_n ? b->lat_sum / (double)b->lat_n : 0;
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "quick");
	const uint64_t warm = quick ? 1000 : 3000, win = quick ? 4000 : 20000;
	struct bench *b = calloc(1, sizeof(*b));
	struct cs_err err;

	if (!b || cs_params_defaults(&noc_params, &b->cfg, &err)) {
		fprintf(stderr, "noc_bench: setup failed\n");
		return 1;
	}
	b->cfg.clock_mhz = 1000;
	printf("# noc_bench: mesh and crossbar R=%llu L=%llu, %llu B flits, %llu B header, "
	       "%llu-flit buffers; "
	       "warm-up %llu, window %llu cycles\n",
	       (unsigned long long)b->cfg.router_latency, (unsigned long long)b->cfg.link_latency,
	       (unsigned long long)b->cfg.flit_bytes, (unsigned long long)b->cfg.header_bytes,
	       (unsigned long long)b->cfg.buffer_flits, (unsigned long long)warm,
	       (unsigned long long)win);
	printf("# throughput in flits/cycle/source; latency in cycles, generation to tail "
	       "delivered\n");
	printf("%-8s %-8s %-2s %-2s | %8s %8s %6s | %7s %7s %6s | %7s %7s %7s %7s\n", "topology",
	       "pattern", "F", "V", "zl.form", "zl.meas", "diff%", "sat.bnd", "sat.meas", "of.bnd",
	       "lat@25%", "lat@50%", "lat@75%", "lat@90%");
	for (unsigned topo = 0; topo < 3; topo++)
		for (unsigned pat = 0; pat < P_COUNT; pat++)
			for (unsigned fi = 0; fi < 3; fi++) {
				double zero, bound, zm, zpk, thr, sat, lat[4];
				static const double frac[4] = {0.25, 0.5, 0.75, 0.9};
				static const char *const tname[3] = {"crossbar", "mesh5x5", "link"};

				if ((topo == 2) != (pat == P_P2P))
					continue;
				/* fi 2: 5-flit packets on 4 vnets sharing the links (mesh uniform) */
				if (fi == 2 && !(topo == 1 && pat == P_UNIFORM))
					continue;
				if (topo == 2) {
					cs_params_defaults(&noc_link_params, &b->cfg, &err);
					b->cfg.topology = NOC_LINK;
					b->payload = fi == 0 ? 64 : 128;
				} else {
					cs_params_defaults(&noc_params, &b->cfg, &err);
					b->cfg.clock_mhz = 1000;
					b->cfg.mesh_cols = 5;
					b->cfg.topology = topo ? NOC_MESH : NOC_CROSSBAR;
					b->payload = fi == 0 ? 24 : 128;
				}
				b->cfg.vnet_links = fi == 2 ? NOC_LINKS_SHARED : NOC_LINKS_SEPARATE;
				b->n_vnets = fi == 2 ? 4 : 1;
				b->flits = (unsigned)((b->cfg.header_bytes + b->payload +
						       b->cfg.flit_bytes - 1) /
						      b->cfg.flit_bytes);
				pattern_setup(b, (enum pattern)pat);
				analytic(b, &zero, &bound);
				zm = run(b, 0.005, warm, win * 20, &thr);
				zpk = b->zero_sum;
				run(b, -1, warm, win, &sat);
				for (unsigned i = 0; i < 4; i++)
					lat[i] = run(b, frac[i] * sat, warm, win, &thr);
				printf("%-8s %-8s %-2u %-2u | %8.2f %8.2f %+6.2f | %7.3f %7.3f "
				       "%5.0f%% | "
				       "%7.1f %7.1f %7.1f %7.1f\n",
				       tname[topo], pat_name[pat], b->flits, b->n_vnets, zero, zm,
				       100 * (zm - zpk) / zpk, fmin(bound, 1.0), sat,
				       100 * sat / fmin(bound, 1.0), lat[0], lat[1], lat[2],
				       lat[3]);
				fflush(stdout);
			}
	free(b);
	return 0;
}
