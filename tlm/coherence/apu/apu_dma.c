/*
 * tlm/coherence/apu/apu_dma.c - the APU DMA engine (see apu_dma.h).
 */
#include "tlm/coherence/apu/apu_dma.h"

#include <stdlib.h>
#include <string.h>

static const struct cs_param dma_rows[] = {
    {"clock_mhz", CS_P_UINT, offsetof(struct apu_dma_cfg, clock_mhz), "2000", "MHz",
     "uncore clock of the DMA engine (docs/apu.md 6.1)", 1, 100000, NULL},
    {"issue_cycles", CS_P_UINT, offsetof(struct apu_dma_cfg, issue_cycles), "6", "cycles",
     "DMARd/DMAWr leave this long after the engine decides (gem5 dma request_latency)", 0, 100000,
     NULL},
    {"window", CS_P_UINT, offsetof(struct apu_dma_cfg, window), "64", "lines",
     "line requests in flight (gem5 DMASequencer max_outstanding_requests)", 1, 65536, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table apu_dma_params = {
    .section = "dma",
    .help = "APU DMA engine (docs/apu.md 3.6)",
    .params = dma_rows,
    .size = sizeof(struct apu_dma_cfg),
};

struct apu_dma {
	struct sim_kernel *k;
	struct apu_dma_cfg cfg;
	struct apu_msgs *msgs;
	struct apu_port *port;
	unsigned ep, dir_ep;
	/* the transfer */
	bool active, write;
	uint64_t addr;
	uint8_t *rbuf;
	const uint8_t *wbuf;
	size_t len, next; /* bytes; next: first byte not yet requested */
	size_t done_bytes;
	unsigned in_flight;
	apu_dma_done_fn done;
	void *ctx;
	uint64_t *lines_read, *lines_written, *bytes_read, *bytes_written;
	sim_time_t lt_end; /* the LT face: when the transfer was done */
};

static void issue(struct apu_dma *d)
{
	while (d->active && d->next < d->len && d->in_flight < d->cfg.window) {
		uint64_t a = d->addr + d->next;
		unsigned off = (unsigned)(a & (APU_LINE - 1));
		size_t n = APU_LINE - off;
		struct mem_msg *m;
		struct apu_ext *e;

		if (n > d->len - d->next)
			n = d->len - d->next;
		m = apu_msg_new(d->msgs, d->write ? APU_DMAWR : APU_DMARD, a, d->ep, d->dir_ep,
				d->ep);
		if (!m) {
			sim_fail(d->k, -CS_ENOMEM, "dma: out of memory");
			return;
		}
		e = apu_ext_of(d->msgs, m);
		e->offset = (uint16_t)off;
		e->len = (uint16_t)n;
		/* the byte position in the buffer travels in seq: the answer says where it goes */
		e->seq = (uint32_t)d->next;
		if (d->write)
			memcpy(m->p.data + off, d->wbuf + d->next, n);
		d->next += n;
		d->in_flight++;
		apu_port_send(d->port, m, d->cfg.issue_cycles);
	}
}

static enum apu_recv dma_recv(void *owner, struct mem_msg *m)
{
	struct apu_dma *d = owner;
	struct apu_ext *e = apu_ext_of(d->msgs, m);

	if ((m->type != APU_DMADATA && m->type != APU_DMAACK) || !d->active ||
	    (m->type == APU_DMADATA) == d->write || !d->in_flight) {
		sim_fail(d->k, -CS_EPROTO, "dma: unexpected %s for line 0x%llx",
			 m->type < APU_MSG_TYPES ? apu_msg_info[m->type].name : "message",
			 (unsigned long long)m->p.addr);
		tlm_payload_release(&m->p);
		return APU_TAKE;
	}
	if (m->type == APU_DMADATA) {
		memcpy(d->rbuf + e->seq, m->p.data + e->offset, e->len);
		(*d->lines_read)++;
		*d->bytes_read += e->len;
	} else {
		(*d->lines_written)++;
		*d->bytes_written += e->len;
	}
	d->done_bytes += e->len;
	d->in_flight--;
	tlm_payload_release(&m->p);
	if (d->done_bytes == d->len) {
		d->active = false;
		if (d->done)
			d->done(d->ctx);
	} else {
		issue(d);
	}
	return APU_TAKE;
}

static const struct apu_port_ops dma_ops = {.recv = dma_recv};

static int start(struct apu_dma *d, bool write, uint64_t addr, uint8_t *rbuf, const uint8_t *wbuf,
		 size_t len, apu_dma_done_fn done, void *ctx)
{
	if (d->active)
		return -CS_ESTATE;
	if (!len)
		return -CS_EINVAL;
	d->active = true;
	d->write = write;
	d->addr = addr;
	d->rbuf = rbuf;
	d->wbuf = wbuf;
	d->len = len;
	d->next = d->done_bytes = 0;
	d->done = done;
	d->ctx = ctx;
	issue(d);
	return 0;
}

int apu_dma_read(struct apu_dma *d, uint64_t addr, void *buf, size_t len, apu_dma_done_fn done,
		 void *ctx)
{
	return start(d, false, addr, buf, NULL, len, done, ctx);
}

int apu_dma_write(struct apu_dma *d, uint64_t addr, const void *buf, size_t len,
		  apu_dma_done_fn done, void *ctx)
{
	return start(d, true, addr, NULL, buf, len, done, ctx);
}

unsigned apu_dma_in_flight(const struct apu_dma *d)
{
	return d->in_flight;
}

struct apu_port *apu_dma_port(struct apu_dma *d)
{
	return d->port;
}

int apu_dma_create(struct sim_kernel *k, const struct apu_dma_cfg *cfg, struct apu_msgs *msgs,
		   unsigned ep, unsigned dir_ep, struct cs_stat_group *stats, struct apu_dma **out,
		   struct cs_err *err)
{
	struct apu_dma *d;
	struct apu_port_cfg pc = {.name = "dma", .ep = ep, .in_depth = 4, .per_cycle = 1};
	int rc;

	if (!k || !cfg || !msgs || !stats || !out)
		return cs_err_set(err, -CS_EINVAL, "apu_dma_create: bad arguments");
	if (!cfg->window || !cfg->clock_mhz)
		return cs_err_set(err, -CS_ECONFIG, "dma.window and dma.clock_mhz must be >= 1");
	d = calloc(1, sizeof(*d));
	if (!d)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	d->k = k;
	d->cfg = *cfg;
	d->msgs = msgs;
	d->ep = ep;
	d->dir_ep = dir_ep;
	pc.clock_mhz = cfg->clock_mhz;
	rc = apu_port_create(k, &pc, &dma_ops, d, &d->port);
	if (rc) {
		free(d);
		return cs_err_set(err, rc, "dma: cannot create the network port");
	}
	d->lines_read = cs_stat_counter(stats, "lines_read", "", "DMARd lines answered");
	d->lines_written = cs_stat_counter(stats, "lines_written", "", "DMAWr lines acked");
	d->bytes_read = cs_stat_counter(stats, "bytes_read", "bytes", "bytes read by DMA");
	d->bytes_written = cs_stat_counter(stats, "bytes_written", "bytes", "bytes written by DMA");
	*out = d;
	return 0;
}

/* The stats contract: a line read or written passes its buffer once each way. */
void apu_dma_energy(const struct apu_dma *d, struct energy_counts *out)
{
	energy_add(out, EN_DMA_LINE, (double)*d->lines_read + (double)*d->lines_written);
	out->inst[EN_DMA] += 1;
}

void apu_dma_destroy(struct apu_dma *d)
{
	if (!d)
		return;
	apu_port_destroy(d->port);
	free(d);
}

/* ---- the LT face ----------------------------------------------------------------------------- */

static void lt_done(void *ctx)
{
	struct apu_dma *d = ctx;

	d->lt_end = apu_port_now(d->port);
}

static sim_time_t lt_transfer(struct apu_dma *d, bool write, uint64_t addr, void *buf, size_t len,
			      sim_time_t t)
{
	struct apu_lt *lt = apu_port_lt(d->port);
	int rc;

	if (!lt) {
		sim_fail(d->k, -CS_EPROTO, "dma: no LT face (the port joined no apu_lt)");
		return SIM_TIME_MAX;
	}
	d->lt_end = SIM_TIME_MAX;
	apu_lt_begin(lt, t);
	rc = write ? apu_dma_write(d, addr, buf, len, lt_done, d)
		   : apu_dma_read(d, addr, buf, len, lt_done, d);
	if (!rc)
		apu_lt_run(lt);
	apu_lt_end(lt);
	if (!rc && d->lt_end == SIM_TIME_MAX && !sim_failure(d->k))
		sim_fail(d->k, -CS_EPROTO, "dma: an LT transfer did not end");
	return rc ? SIM_TIME_MAX : d->lt_end;
}

sim_time_t apu_dma_lt_read(struct apu_dma *d, uint64_t addr, void *buf, size_t len, sim_time_t t)
{
	return lt_transfer(d, false, addr, buf, len, t);
}

sim_time_t apu_dma_lt_write(struct apu_dma *d, uint64_t addr, const void *buf, size_t len,
			    sim_time_t t)
{
	return lt_transfer(d, true, addr, (void *)(uintptr_t)buf, len, t);
}
