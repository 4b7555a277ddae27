/* tlm/mem/memtarget.c - the "memory" component (see memtarget.h). */
#include "tlm/mem/memtarget.h"

#include <stdlib.h>
#include <string.h>

static const struct cs_param memtarget_params[] = {
    {"latency_ns", CS_P_UINT, offsetof(struct memtarget_cfg, latency_ns), "20", "ns",
     "from the start of a request's accept to its response", 1, 1e6, NULL},
    {"accept_ns", CS_P_UINT, offsetof(struct memtarget_cfg, accept_ns), "2", "ns",
     "time the accept stage spends on one request (1 / peak request rate)", 1, 1e6, NULL},
    {"size_kib", CS_P_UINT, offsetof(struct memtarget_cfg, size_kib), "256", "KiB",
     "capacity of the backing store", 1, 1048576, NULL},
    {"ports", CS_P_UINT, offsetof(struct memtarget_cfg, ports), "64", "",
     "target sockets (one per initiator)", 1, 4096, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

static const struct cs_param_table memtarget_table = {
    .section = "memory",
    .help = "memory target with a serial accept stage (approximately and loosely timed)",
    .params = memtarget_params,
    .size = sizeof(struct memtarget_cfg),
};

struct mt_port {
	struct tlm_target_socket ts;
	struct memtarget *m;
	char name[80];
};

struct mt_waiting {
	struct tlm_payload *p;
	unsigned port;
	sim_time_t arrived;
};

struct memtarget {
	struct cs_component base;
	struct sim_kernel *k;
	struct memtarget_cfg cfg;
	uint8_t *store;
	size_t size;
	struct mt_port *port;
	/* requests waiting for the accept stage: each port has at most one (request exclusion) */
	struct mt_waiting *q;
	unsigned qhead, qlen;
	bool accepting;
	struct mt_waiting cur; /* the request in the accept stage (its ring slot may be reused) */
	uint64_t *reads, *writes, *bytes, *addr_errors;
	struct cs_stat_avg *accept_wait;
};

#define MT(c) ((struct memtarget *)(c))

/* Moves the data of a read or write within the store; false when it does not fit. */
static bool mt_copy(struct memtarget *m, struct tlm_payload *p)
{
	if (p->addr > m->size || p->len > m->size - p->addr)
		return false;
	if (p->cmd == TLM_WRITE_COMMAND)
		memcpy(m->store + p->addr, p->data, p->len);
	else
		memcpy(p->data, m->store + p->addr, p->len);
	return true;
}

/* The one state update both faces share. */
static void mt_access(struct memtarget *m, struct tlm_payload *p)
{
	if (p->cmd == TLM_IGNORE_COMMAND || !mt_copy(m, p)) {
		p->status = p->cmd == TLM_IGNORE_COMMAND ? TLM_COMMAND_ERROR_RESPONSE
							 : TLM_ADDRESS_ERROR_RESPONSE;
		++*m->addr_errors;
		return;
	}
	if (p->cmd == TLM_WRITE_COMMAND)
		++*m->writes;
	else
		++*m->reads;
	*m->bytes += p->len;
	p->status = TLM_OK_RESPONSE;
}

/* ---- loosely timed face ---------------------------------------------------------------------- */

static void mt_b_transport(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct mt_port *pt = obj;

	mt_access(pt->m, p);
	*delay += pt->m->cfg.latency_ns * SIM_NS;
}

static unsigned mt_transport_dbg(void *obj, struct tlm_payload *p)
{
	struct mt_port *pt = obj;

	/* debug access: no time, no statistics */
	return p->cmd != TLM_IGNORE_COMMAND && mt_copy(pt->m, p) ? p->len : 0;
}

/* ---- approximately timed face ---------------------------------------------------------------- */

static void mt_start_accept(struct memtarget *m);

static void mt_send_resp(struct sim_kernel *k, void *obj, void *arg)
{
	struct mt_port *pt = obj;
	struct tlm_payload *p = arg;
	enum tlm_phase ph = TLM_BEGIN_RESP;
	sim_time_t d = 0;

	(void)k;
	/* END_RESP comes back either on the return path (UPDATED) or later on the forward
	 * path; either way the memory holds no state for p any more. */
	tlm_nb_transport_bw(&pt->ts, p, &ph, &d);
	tlm_payload_release(p);
}

static void mt_end_accept(struct sim_kernel *k, void *obj, void *arg)
{
	struct memtarget *m = obj;
	struct mt_port *pt = &m->port[m->cur.port];
	struct tlm_payload *p = m->cur.p;
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t d = 0;

	(void)k;
	(void)arg;
	m->accepting = false;
	tlm_nb_transport_bw(&pt->ts, p, &ph, &d);
	mt_start_accept(m);
}

static void mt_start_accept(struct memtarget *m)
{
	struct mt_waiting *w;
	sim_time_t accept = m->cfg.accept_ns * SIM_NS;

	if (m->accepting || m->qlen == 0)
		return;
	m->cur = m->q[m->qhead];
	w = &m->cur;
	m->qhead = (m->qhead + 1) % (unsigned)m->cfg.ports;
	m->qlen--;
	m->accepting = true;
	cs_stat_avg_sample(m->accept_wait, (double)(sim_now(m->k) - w->arrived) / SIM_NS);
	/* The access takes effect when the accept begins: accesses apply in accept order. */
	mt_access(m, w->p);
	sim_schedule(m->k, accept, mt_end_accept, m, NULL);
	sim_schedule(m->k, m->cfg.latency_ns * SIM_NS, mt_send_resp, &m->port[w->port], w->p);
}

/* A request reaches the accept stage's queue (at BEGIN_REQ time plus its annotated delay). */
static void mt_arrive(struct sim_kernel *k, void *obj, void *arg)
{
	struct mt_port *pt = obj;
	struct memtarget *m = pt->m;
	unsigned tail = (m->qhead + m->qlen) % (unsigned)m->cfg.ports;

	m->q[tail].p = arg;
	m->q[tail].port = (unsigned)(pt - m->port);
	m->q[tail].arrived = sim_now(k);
	m->qlen++;
	mt_start_accept(m);
}

static enum tlm_sync_enum mt_nb_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				   sim_time_t *delay)
{
	struct mt_port *pt = obj;
	struct memtarget *m = pt->m;

	if (*ph == TLM_END_RESP)
		return TLM_COMPLETED;
	if (*ph != TLM_BEGIN_REQ || m->qlen == m->cfg.ports) {
		sim_fail(m->k, -CS_EPROTO, "%s: unexpected %s", pt->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	tlm_payload_acquire(p); /* held until the response is sent */
	if (*delay)
		sim_schedule(m->k, *delay, mt_arrive, pt, p);
	else
		mt_arrive(m->k, pt, p);
	return TLM_ACCEPTED;
}

static const struct tlm_fw_ops mt_fw_ops = {
    .b_transport = mt_b_transport,
    .nb_transport_fw = mt_nb_fw,
    .transport_dbg = mt_transport_dbg,
};

/* ---- component -------------------------------------------------------------------------------- */

static void mt_destroy(struct cs_component *c)
{
	struct memtarget *m = MT(c);

	free(m->store);
	free(m->port);
	free(m->q);
	free(m);
}

static int mt_create(struct cs_system *s, const char *name, const void *cfgv,
		     struct cs_component **out, struct cs_err *err)
{
	const struct memtarget_cfg *cfg = cfgv;
	struct memtarget *m;
	struct cs_stat_group *g;

	if (cfg->latency_ns < cfg->accept_ns) {
		char where[CS_WHERE_MAX];

		cs_config_origin(s->cfg, "memory", "latency_ns", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must be at least memory.accept_ns (%llu)",
				  where, (unsigned long long)cfg->accept_ns);
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto out_nomem;
	m->k = s->k;
	m->cfg = *cfg;
	m->size = (size_t)cfg->size_kib * 1024;
	m->store = calloc(1, m->size);
	m->port = calloc(cfg->ports, sizeof(*m->port));
	m->q = calloc(cfg->ports, sizeof(*m->q));
	if (!m->store || !m->port || !m->q)
		goto out_free;
	for (unsigned i = 0; i < cfg->ports; i++) {
		struct mt_port *pt = &m->port[i];

		pt->m = m;
		snprintf(pt->name, sizeof(pt->name), "%s.port%u", name, i);
		tlm_target_init(&pt->ts, pt->name, &mt_fw_ops, pt);
	}
	g = cs_stat_group(cs_stats_root(s->stats), name);
	m->reads = cs_stat_counter(g, "reads", "accesses", "read accesses performed");
	m->writes = cs_stat_counter(g, "writes", "accesses", "write accesses performed");
	m->bytes = cs_stat_counter(g, "bytes", "bytes", "bytes read or written");
	m->addr_errors =
	    cs_stat_counter(g, "errors", "accesses", "accesses answered with an error");
	m->accept_wait = cs_stat_average(g, "accept_wait", "ns",
					 "time a request waited for the accept stage (AT)");
	*out = &m->base;
	return 0;

out_free:
	mt_destroy(&m->base);
out_nomem:
	return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", name);
}

struct tlm_target_socket *memtarget_port(struct cs_component *c, unsigned i)
{
	struct memtarget *m = MT(c);

	return i < m->cfg.ports ? &m->port[i].ts : NULL;
}

uint64_t memtarget_digest(const struct cs_component *c)
{
	const struct memtarget *m = (const struct memtarget *)c;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < m->size; i++)
		h = (h ^ m->store[i]) * 0x100000001b3ull;
	return h;
}

const struct cs_component_ops cs_memtarget_component = {
    .version = 1,
    .kind = "memory",
    .help = "memory target with a serial accept stage (AT: 4 phases with back-pressure; LT)",
    .params = &memtarget_table,
    .create = mt_create,
    .destroy = mt_destroy,
};
