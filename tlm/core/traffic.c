/* tlm/core/traffic.c - the "traffic" component (see traffic.h). */
#include "tlm/core/traffic.h"

#include <stdlib.h>
#include <string.h>

#include "util/mix.h"

static const char *const mode_names[] = {"at", "lt", NULL};

static const struct cs_param traffic_params[] = {
    {"initiators", CS_P_UINT, offsetof(struct traffic_cfg, initiators), "4", "",
     "initiator threads, each with its own socket", 1, 4096, NULL},
    {"iterations", CS_P_UINT, offsetof(struct traffic_cfg, iterations), "20000", "",
     "write + read-back pairs per initiator", 1, 1e9, NULL},
    {"bytes", CS_P_UINT, offsetof(struct traffic_cfg, bytes), "64", "bytes", "bytes per access", 1,
     TLM_INLINE_DATA, NULL},
    {"region_kib", CS_P_UINT, offsetof(struct traffic_cfg, region_kib), "16", "KiB",
     "address region of each initiator (regions are disjoint)", 1, 1048576, NULL},
    {"mode", CS_P_ENUM, offsetof(struct traffic_cfg, mode), "at", "",
     "at: nb_transport, 4 phases; lt: b_transport with the quantum keeper", 0, 0, mode_names},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

static const struct cs_param_table traffic_table = {
    .section = "traffic",
    .help = "initiators writing a pattern and reading it back through TLM sockets",
    .params = traffic_params,
    .size = sizeof(struct traffic_cfg),
};

struct traffic;

struct tg_init {
	struct tlm_initiator_socket is;
	struct traffic *t;
	unsigned id;
	struct sim_event *resp;
	struct tlm_payload *waiting; /* the transaction whose response is awaited */
	char name[80];
};

struct traffic {
	struct cs_component base;
	struct sim_kernel *k;
	struct tlm_pool *pool;
	struct traffic_cfg cfg;
	uint64_t seed;
	struct tg_init *in;
	uint64_t *ops, *mismatches, *errors;
	struct cs_stat_avg *latency;
	sim_time_t finished;
};

#define TG(c) ((struct traffic *)(c))

static uint8_t pattern(uint64_t seed, unsigned id, uint64_t it, unsigned byte)
{
	return (uint8_t)cs_mix64(seed ^ ((uint64_t)id << 40) ^ (it << 8) ^ byte);
}

static enum tlm_sync_enum tg_nb_bw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				   sim_time_t *delay)
{
	struct tg_init *in = obj;

	(void)delay;
	if (*ph == TLM_END_REQ)
		return TLM_ACCEPTED;
	if (*ph != TLM_BEGIN_RESP || p != in->waiting) {
		sim_fail(in->t->k, -CS_EPROTO, "%s: unexpected %s", in->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	in->waiting = NULL;
	sim_event_notify(in->resp);
	*ph = TLM_END_RESP;
	return TLM_UPDATED;
}

static const struct tlm_bw_ops tg_bw_ops = {.nb_transport_bw = tg_nb_bw};

/* One access, approximately timed: BEGIN_REQ, then wait for BEGIN_RESP. */
static void tg_access_at(struct sim_kernel *k, struct tg_init *in, struct tlm_payload *p)
{
	enum tlm_phase ph = TLM_BEGIN_REQ;
	sim_time_t d = 0, t0 = sim_now(k);

	in->waiting = p;
	if (tlm_nb_transport_fw(&in->is, p, &ph, &d) != TLM_COMPLETED)
		while (in->waiting && !sim_failure(k))
			sim_wait_event(k, in->resp);
	in->waiting = NULL;
	cs_stat_avg_sample(in->t->latency, (double)(sim_now(k) - t0) / SIM_NS);
}

static void tg_thread(struct sim_kernel *k, void *ctx)
{
	struct tg_init *in = ctx;
	struct traffic *t = in->t;
	uint64_t region = t->cfg.region_kib * 1024;
	unsigned bytes = (unsigned)t->cfg.bytes;
	struct tlm_qk qk;

	tlm_qk_init(&qk, k);
	for (uint64_t it = 0; it < t->cfg.iterations && !sim_failure(k); it++) {
		uint64_t addr = in->id * region + (it * bytes) % (region - region % bytes);

		for (int write = 1; write >= 0; write--) {
			struct tlm_payload *p = tlm_payload_alloc(t->pool);

			if (!p) {
				sim_fail(k, -CS_ENOMEM, "%s: out of payloads", in->name);
				return;
			}
			p->cmd = write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND;
			p->addr = addr;
			p->len = bytes;
			for (unsigned b = 0; b < bytes; b++)
				p->data[b] = write ? pattern(t->seed, in->id, it, b) : 0;
			if (t->cfg.mode == TRAFFIC_AT) {
				tg_access_at(k, in, p);
			} else {
				sim_time_t d = tlm_qk_local_time(&qk);

				tlm_b_transport(&in->is, p, &d);
				tlm_qk_set(&qk, d);
				if (tlm_qk_need_sync(&qk))
					tlm_qk_sync(&qk);
			}
			++*t->ops;
			if (p->status != TLM_OK_RESPONSE)
				++*t->errors;
			for (unsigned b = 0; !write && b < bytes; b++) {
				if (p->data[b] != pattern(t->seed, in->id, it, b)) {
					++*t->mismatches;
					break;
				}
			}
			tlm_payload_release(p);
		}
	}
	if (t->cfg.mode == TRAFFIC_LT)
		tlm_qk_sync(&qk);
	if (sim_now(k) > t->finished)
		t->finished = sim_now(k);
}

static void tg_destroy(struct cs_component *c)
{
	struct traffic *t = TG(c);

	if (t->in)
		for (unsigned i = 0; i < t->cfg.initiators; i++)
			tlm_checker_detach(&t->in[i].is);
	free(t->in);
	free(t);
}

static int tg_create(struct cs_system *s, const char *name, const void *cfgv,
		     struct cs_component **out, struct cs_err *err)
{
	const struct traffic_cfg *cfg = cfgv;
	struct traffic *t = calloc(1, sizeof(*t));
	struct cs_stat_group *g;

	if (!t)
		return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", name);
	t->k = s->k;
	t->pool = s->pool;
	t->cfg = *cfg;
	t->seed = s->sim.seed;
	t->in = calloc(cfg->initiators, sizeof(*t->in));
	if (!t->in)
		goto out_nomem;
	for (unsigned i = 0; i < cfg->initiators; i++) {
		struct tg_init *in = &t->in[i];

		in->t = t;
		in->id = i;
		snprintf(in->name, sizeof(in->name), "%s.init%u", name, i);
		tlm_initiator_init(&in->is, in->name, &tg_bw_ops, in);
		in->resp = sim_event_create(s->k, in->name);
		if (!in->resp || !sim_thread_create(s->k, in->name, tg_thread, in, 0))
			goto out_nomem;
		/* Every socket checks the base protocol: cheap at one transaction in flight. */
		if (tlm_checker_attach(&in->is, s->k))
			goto out_nomem;
	}
	g = cs_stat_group(cs_stats_root(s->stats), name);
	t->ops = cs_stat_counter(g, "ops", "accesses", "accesses completed");
	t->mismatches = cs_stat_counter(g, "mismatches", "accesses",
					"reads that did not return the data written");
	t->errors = cs_stat_counter(g, "errors", "accesses", "responses with an error status");
	t->latency = cs_stat_average(g, "latency", "ns", "request to response (AT accesses)");
	*out = &t->base;
	return 0;

out_nomem:
	tg_destroy(&t->base);
	return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", name);
}

struct tlm_initiator_socket *traffic_socket(struct cs_component *c, unsigned i)
{
	struct traffic *t = TG(c);

	return i < t->cfg.initiators ? &t->in[i].is : NULL;
}

unsigned traffic_initiators(const struct cs_component *c)
{
	return (unsigned)((const struct traffic *)c)->cfg.initiators;
}

void traffic_set_mode(struct cs_component *c, enum traffic_mode mode)
{
	TG(c)->cfg.mode = mode;
}

void traffic_result(const struct cs_component *c, struct traffic_result *r)
{
	const struct traffic *t = (const struct traffic *)c;

	r->ops = *t->ops;
	r->mismatches = *t->mismatches;
	r->errors = *t->errors;
	r->finished = t->finished;
}

const struct cs_component_ops cs_traffic_component = {
    .version = 1,
    .kind = "traffic",
    .help = "initiator threads writing and reading back a pattern (AT or LT)",
    .params = &traffic_table,
    .create = tg_create,
    .destroy = tg_destroy,
};
