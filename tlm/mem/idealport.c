/*
 * tlm/mem/idealport.c - the ideal coherent memory port (idealport.h).
 */
#include "tlm/mem/idealport.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define IF(f) offsetof(struct idealport_cfg, f)
static const struct cs_param idealport_rows[] = {
    {"latency", CS_P_UINT, IF(latency), "20", "cycles",
     "core cycles from an access's accept to its answer (inferred: a private L2 hit at 3.5 GHz "
     "is about 12-20 cycles; the port is no cache, so one latency for every access)",
     1, 1000000, NULL},
    {"queue", CS_P_UINT, IF(queue), "32", "accesses",
     "accesses a port holds in flight; more are refused and retried", 1, 4096, NULL},
    {"line_bytes", CS_P_UINT, IF(line_bytes), "64", "B",
     "line size the cores address (seed 002 Table III: 64 B lines)", 8, 64, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table idealport_params = {
    .section = "idealmem",
    .help = "the ideal coherent memory port of system cpu: no caches, every access performed at "
	    "the backing store when accepted (TSO: the store buffers are the only weakness)",
    .params = idealport_rows,
    .size = sizeof(struct idealport_cfg),
};

struct slot {
	struct cpu_mem *m;
	uint32_t id;
	bool load;
	uint64_t old;
	uint8_t line[CPU_LINE_MAX];
	struct slot *next_free;
};

struct cpu_mem {
	struct sim_kernel *k;
	const struct sim_clock *clk;
	struct mem_store *store;
	struct idealport_cfg cfg;
	struct cpu_mem_client cl;
	struct slot *slots, *free;
	unsigned inflight;
	bool refused; /* a retry() is owed */
	/* LT: the done times of the accesses in flight (a ring in the order they were taken:
	 * a core's calls come in nondecreasing time, so their done times are in order too) */
	sim_time_t *lt_done;
	unsigned lt_head, lt_n;
	sim_time_t lt_last; /* the latest t of an lt_access */
	uint64_t *loads, *stores, *atomics, *refusals, *peak, *lt_disorder, *ifetches;
};

static void answer(struct sim_kernel *k, void *obj, void *arg)
{
	struct slot *s = obj;
	struct cpu_mem *m = s->m;
	uint32_t id = s->id;
	bool load = s->load;
	uint64_t old = s->old;
	uint8_t line[CPU_LINE_MAX];

	(void)k;
	(void)arg;
	if (load)
		memcpy(line, s->line, m->cfg.line_bytes);
	/* the slot is free before the core hears of it: done() may send the next access */
	s->next_free = m->free;
	m->free = s;
	m->inflight--;
	m->cl.done(m->cl.core, id, load ? line : NULL, old);
	if (m->refused) {
		m->refused = false;
		m->cl.retry(m->cl.core);
	}
}

/* The state update both faces share: performs r at the store; a load's line into line[], an
 * atomic's old word returned. */
static uint64_t ip_perform(struct cpu_mem *m, const struct cpu_mem_req *r, uint8_t *line)
{
	unsigned lb = (unsigned)m->cfg.line_bytes;
	uint8_t be[CPU_LINE_MAX];
	uint64_t old = 0;
	int rc;

	switch (r->kind) {
	case CPU_MEM_LD:
	case CPU_MEM_IFETCH: /* no instruction cache here: a fetch is a read like a load's */
		mem_store_read(m->store, r->line_addr, line, lb);
		(*(r->kind == CPU_MEM_LD ? m->loads : m->ifetches))++;
		break;
	case CPU_MEM_ST:
		for (unsigned i = 0; i < lb; i++)
			be[i] = (r->byte_mask >> i & 1) ? 0xff : 0;
		rc = mem_store_write_masked(m->store, r->line_addr, r->data, be, lb);
		if (rc)
			sim_fail(m->k, rc, "idealmem: out of memory");
		(*m->stores)++;
		break;
	default: {
		uint8_t w[8];

		mem_store_read(m->store, r->line_addr + r->offset, w, r->bytes);
		old = mem_atomic_apply(w, r->bytes, r->atom_op, r->a, r->b);
		rc = mem_store_write(m->store, r->line_addr + r->offset, w, r->bytes);
		if (rc)
			sim_fail(m->k, rc, "idealmem: out of memory");
		(*m->atomics)++;
		break;
	}
	}
	return old;
}

static bool ip_access(struct cpu_mem *m, const struct cpu_mem_req *r)
{
	struct slot *s = m->free;

	if (!s) {
		m->refused = true;
		(*m->refusals)++;
		return false;
	}
	m->free = s->next_free;
	m->inflight++;
	if (m->inflight > *m->peak)
		*m->peak = m->inflight;
	s->id = r->id;
	s->load = r->kind == CPU_MEM_LD || r->kind == CPU_MEM_IFETCH;
	s->old = ip_perform(m, r, s->line);
	sim_schedule_at(m->k,
			sim_now(m->k) + sim_clock_delay(m->clk, sim_now(m->k), m->cfg.latency),
			SIM_PRIO_DEFAULT, answer, s, NULL);
	return true;
}

/* LT: the accesses answered by t leave the queue (in AT their answers come before any access
 * of the same time); returns the next one's done time. */
static sim_time_t ip_lt_advance(struct cpu_mem *m, sim_time_t t)
{
	unsigned q = (unsigned)m->cfg.queue;

	while (m->lt_n && m->lt_done[m->lt_head] <= t) {
		m->lt_head = (m->lt_head + 1) % q;
		m->lt_n--;
	}
	return m->lt_n ? m->lt_done[m->lt_head] : SIM_TIME_MAX;
}

/* LT: the queue of `queue` accesses is kept as in AT (a full queue refuses); an access is
 * performed at t and answered `latency` cycles later. */
static sim_time_t ip_lt_access(struct cpu_mem *m, const struct cpu_mem_req *r, sim_time_t t,
			       uint8_t *line, uint64_t *old)
{
	unsigned q = (unsigned)m->cfg.queue;
	uint8_t buf[CPU_LINE_MAX];
	sim_time_t done;
	uint64_t o;

	if (t < m->lt_last)
		(*m->lt_disorder)++; /* the core broke the contract (cpu_port.h): tests check */
	m->lt_last = t;
	ip_lt_advance(m, t);
	if (m->lt_n == q) {
		(*m->refusals)++;
		return SIM_TIME_MAX;
	}
	o = ip_perform(m, r, line ? line : buf);
	if (old)
		*old = o;
	done = t + sim_clock_delay(m->clk, t, m->cfg.latency);
	m->lt_done[(m->lt_head + m->lt_n++) % q] = done;
	if (m->lt_n > *m->peak)
		*m->peak = m->lt_n;
	return done;
}

static void ip_bind(struct cpu_mem *m, const struct cpu_mem_client *cl)
{
	m->cl = *cl;
}

static unsigned ip_line_bytes(const struct cpu_mem *m)
{
	return (unsigned)m->cfg.line_bytes;
}

static bool ip_idle(const struct cpu_mem *m)
{
	return !m->inflight;
}

static void ip_destroy(struct cpu_mem *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->lt_done);
	free(m);
}

const struct cpu_mem_ops idealport_ops = {
    .name = "idealmem",
    .bind = ip_bind,
    .line_bytes = ip_line_bytes,
    .access = ip_access,
    .lt_access = ip_lt_access,
    .lt_advance = ip_lt_advance,
    .idle = ip_idle,
    .destroy = ip_destroy,
};

int idealport_create(struct sim_kernel *k, const struct sim_clock *clk, struct mem_store *store,
		     const struct idealport_cfg *cfg, struct cs_stat_group *g, struct cpu_mem **out,
		     struct cs_err *err)
{
	struct cpu_mem *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (m) {
		m->slots = calloc(cfg->queue, sizeof(*m->slots));
		m->lt_done = calloc(cfg->queue, sizeof(*m->lt_done));
	}
	if (!m || !m->slots || !m->lt_done) {
		ip_destroy(m);
		return cs_err_set(err, -CS_ENOMEM, "idealmem: out of memory");
	}
	if (cfg->line_bytes > CPU_LINE_MAX || cfg->line_bytes > 64 ||
	    (cfg->line_bytes & (cfg->line_bytes - 1))) {
		ip_destroy(m);
		return cs_err_set(err, -CS_ECONFIG,
				  "idealmem.line_bytes = %llu: a power of two of at most 64",
				  (unsigned long long)cfg->line_bytes);
	}
	m->k = k;
	m->clk = clk;
	m->store = store;
	m->cfg = *cfg;
	for (uint64_t i = 0; i < cfg->queue; i++) {
		m->slots[i].m = m;
		m->slots[i].next_free = i + 1 < cfg->queue ? &m->slots[i + 1] : NULL;
	}
	m->free = &m->slots[0];
	m->loads = cs_stat_counter(g, "loads", "", "loads performed");
	m->stores = cs_stat_counter(g, "stores", "", "stores performed");
	m->atomics = cs_stat_counter(g, "atomics", "", "locked atomics performed");
	m->refusals = cs_stat_counter(g, "refused", "", "accesses refused: queue full");
	m->peak = cs_stat_counter(g, "peak_inflight", "", "most accesses in flight at once");
	m->lt_disorder =
	    cs_stat_counter(g, "lt_disorder", "",
			    "LT accesses offered at an earlier time than the one before "
			    "(0: the core keeps the interface's time order)");
	m->ifetches = cs_stat_counter(g, "ifetches", "", "instruction fetches performed (reads)");
	*out = m;
	return 0;
}
