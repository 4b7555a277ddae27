/* tlm/coherence/apu/apu_mem.c - the APU memory side of a CPU cluster (see apu_mem.h). */
#include "tlm/coherence/apu/apu_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/coherence/apu/apu_fabric.h"
#include "analytic/ltmodel.h"
#include "tlm/dram/dram.h"
#include "tlm/mem/addrmap.h"
#include "tlm/noc/noc.h"
#include "tlm/system/fabric.h"

static const struct cs_param apu_mem_rows[] = {
    {"channels", CS_P_UINT, offsetof(struct apu_mem_cfg, channels), "2", "",
     "DRAM channels behind the directory (the 2200G's two 64-bit DDR4 channels; docs/apu.md "
     "6.6)",
     1, 64, NULL},
    {"interleave_bytes", CS_P_UINT, offsetof(struct apu_mem_cfg, interleave_bytes), "64", "B",
     "bytes per DRAM channel before the next, a power of two (gem5 RoRaBaCoCh: the line)", 64,
     1u << 20, NULL},
    {"tccs", CS_P_UINT, offsetof(struct apu_mem_cfg, tccs), "1", "",
     "TCC slices of system apu; a line's home slice is (addr / 64) mod tccs (Table III leaves "
     "it blank: gem5's --num-tccs default 1; docs/apu.md 6.1)",
     1, 64, NULL},
    {"launch_cycles", CS_P_UINT, offsetof(struct apu_mem_cfg, launch_cycles), "1100", "GPU cycles",
     "system apu: from a CPU thread's ct_launch to the kernel's first CTA (inferred: about 1 us "
     "of user-mode queue dispatch; the seed gives none)",
     0, 100000000, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table apu_mem_params = {
    .section = "apu",
    .help = "the APU of seed 002: DRAM channels behind the system directory",
    .params = apu_mem_rows,
    .size = sizeof(struct apu_mem_cfg),
};

struct apu_mem {
	struct cs_system *s;
	struct apu_mem_cfg cfg;
	struct apu_cp_cfg cp_cfg;
	struct apu_dir_cfg dir_cfg;
	struct apu_llc_cfg llc_cfg;
	struct dram_cfg dram_cfg;
	struct mem_store *store;
	struct apu_fab_ctx fc; /* the protocol family's context for the builder */
	struct fabric *fab;
	struct apu_dir *dir;
	unsigned ncp, nch, ntcc;
	struct apu_cp *const *cp;
	struct dram_ctrl *const *dram;
	struct apu_tcc *const *tcc;
	/* the GPU side (system apu) */
	struct apu_gpu_cfg gcfg;
	struct apu_dma_cfg dma_cfg;
	struct apu_dma *dma;
	struct apu_lt *lt; /* the LT face's runs, shared by every port */
};

static int load_sections(struct apu_mem *m, bool gpu, struct cs_err *err)
{
	struct cs_config *c = m->s->cfg;
	char where[CS_WHERE_MAX];
	int rc;

	if (gpu && ((rc = cs_config_section(c, &apu_tcp_params, &m->gcfg.tcp, err)) ||
		    (rc = cs_config_section(c, &apu_tcc_params, &m->gcfg.tcc, err)) ||
		    (rc = cs_config_section(c, &apu_dma_params, &m->dma_cfg, err))))
		return rc;
	if ((rc = cs_config_section(c, &apu_mem_params, &m->cfg, err)) ||
	    (rc = cs_config_section(c, &apu_cp_params, &m->cp_cfg, err)) ||
	    (rc = cs_config_section(c, &apu_dir_params, &m->dir_cfg, err)) ||
	    (rc = cs_config_section(c, &apu_llc_params, &m->llc_cfg, err)) ||
	    (rc = cs_config_section(c, &dram_params, &m->dram_cfg, err)))
		return rc;
	if (m->cfg.interleave_bytes & (m->cfg.interleave_bytes - 1)) {
		cs_config_origin(c, "apu", "interleave_bytes", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: must be a power of two", where);
	}
	if (m->llc_cfg.write_back && !m->llc_cfg.use_on_wt) {
		cs_config_origin(c, "llc", "write_back", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: %s", where, APU_LLC_WB_NEEDS_WT);
	}
	return 0;
}

int apu_mem_create(struct cs_system *s, unsigned cores, const struct apu_mem_gpu *gpu,
		   struct mem_store *store, struct cs_stat_group *root, struct apu_mem **out,
		   struct cs_err *err)
{
	struct apu_mem *m = calloc(1, sizeof(*m));
	struct tlm_pool *pool;
	int rc;

	*out = NULL;
	if (!m)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	m->s = s;
	m->store = store;
	rc = load_sections(m, gpu != NULL, err);
	if (rc)
		goto fail;
	/* the protocol's messages carry a header and the APU extension: a pool of mem_msg
	 * replaces the system's */
	rc = tlm_pool_create_sized(sizeof(struct mem_msg), &pool);
	if (rc) {
		rc = cs_err_set(err, rc, "out of memory");
		goto fail;
	}
	tlm_pool_destroy(s->pool);
	s->pool = pool;
	if (apu_msgs_create(pool, &m->fc.msgs) || apu_lt_create(s->k, &m->lt)) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto fail;
	}
	m->fc = (struct apu_fab_ctx){
	    .k = s->k,
	    .cfg = s->cfg,
	    .msgs = m->fc.msgs,
	    .lt = m->lt,
	    .cp = &m->cp_cfg,
	    .dir = &m->dir_cfg,
	    .llc = &m->llc_cfg,
	    .dma = &m->dma_cfg,
	    .cores = cores,
	    .tccs = (unsigned)m->cfg.tccs,
	    .channels = (unsigned)m->cfg.channels,
	    .interleave_shift = (unsigned)__builtin_ctzll(m->cfg.interleave_bytes),
	};
	if (gpu) {
		/* with the coherence checker on (ctx->chk), a GPU write enters the write order
		 * where GPU agents first see it, the TCC, and again where the CPU's do, the
		 * directory (apu_mem_set_check) */
		m->gcfg.tcc_reports_writes = true;
		gpu->ctx->pool = pool;
		m->fc.gctx = gpu->ctx;
		m->fc.gcfg = &m->gcfg;
		m->fc.tcp_ops = &apu_tcp_ops;
	}
	rc = fabric_build(&(struct fab_build_args){.k = s->k,
						   .cfg = s->cfg,
						   .proto = &apu_fab_proto,
						   .ctx = &m->fc,
						   .std = gpu ? apu_fab_std : apu_fab_std_cpu,
						   .n_std = gpu ? apu_fab_n_std : apu_fab_n_std_cpu,
						   .root = root,
						   .net_stats = "net",
						   .msg_names = apu_msg_names,
						   .msg_traffic = apu_msg_traffic,
						   .n_msgs = APU_MSG_TYPES,
						   .dram = &m->dram_cfg,
						   .map = &m->fc.map,
						   .store = store},
			  &m->fab, err);
	if (rc)
		goto fail;
	m->dir = fabric_objs(m->fab, "directory")[0];
	m->ncp = fabric_count(m->fab, "corepair");
	m->cp = (struct apu_cp *const *)fabric_objs(m->fab, "corepair");
	m->nch = fabric_count(m->fab, "memctrl");
	m->dram = (struct dram_ctrl *const *)fabric_objs(m->fab, "memctrl");
	m->ntcc = fabric_count(m->fab, "tcc");
	m->tcc = (struct apu_tcc *const *)fabric_objs(m->fab, "tcc");
	m->dma = fabric_count(m->fab, "dma") ? fabric_objs(m->fab, "dma")[0] : NULL;
	*out = m;
	return 0;
fail:
	apu_mem_destroy(m);
	return rc;
}

int apu_mem_bind_tcp(struct apu_mem *m, unsigned i, const struct gpu_l1_ops *ops,
		     struct gpu_l1 *tcp, struct cs_err *err)
{
	(void)ops; /* the family's tcp_ops */
	return fabric_attach(m->fab, "tcp", i, tcp, err);
}

sim_time_t apu_mem_dma_lt_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len,
			       sim_time_t t)
{
	return m->dma ? apu_dma_lt_read(m->dma, addr, buf, len, t) : SIM_TIME_MAX;
}

sim_time_t apu_mem_dma_lt_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len,
				sim_time_t t)
{
	return m->dma ? apu_dma_lt_write(m->dma, addr, buf, len, t) : SIM_TIME_MAX;
}

void apu_mem_set_check(struct apu_mem *m, struct cohcheck *c)
{
	for (unsigned i = 0; i < m->ncp; i++)
		apu_cp_set_check(m->cp[i], c);
	apu_dir_set_check(m->dir, c);
}

const struct apu_mem_cfg *apu_mem_cfg(const struct apu_mem *m)
{
	return &m->cfg;
}

int apu_mem_dma_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len,
		     void (*done)(void *ctx), void *ctx)
{
	return m->dma ? apu_dma_read(m->dma, addr, buf, len, done, ctx) : -CS_EUNSUP;
}

int apu_mem_dma_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len,
		      void (*done)(void *ctx), void *ctx)
{
	return m->dma ? apu_dma_write(m->dma, addr, buf, len, done, ctx) : -CS_EUNSUP;
}

void apu_mem_destroy(struct apu_mem *m)
{
	if (!m)
		return;
	fabric_destroy(m->fab);
	apu_lt_destroy(m->lt);
	apu_msgs_destroy(m->fc.msgs);
	apu_fab_ctx_free(&m->fc);
	free(m);
}

struct cpu_mem *apu_mem_port(struct apu_mem *m, unsigned c)
{
	return apu_cp_mem(m->cp[c / 2], c % 2);
}

const struct cpu_mem_ops *apu_mem_ops(const struct apu_mem *m)
{
	(void)m;
	return &apu_cp_mem_ops;
}

void apu_mem_set_lt(struct apu_mem *m, const struct lt_params *p)
{
	/* the network's meters (injection and ejection ports: one-way networks) take arrivals
	 * noted out of time order, as an LT run notes a whole transaction's messages (up to its
	 * end, hundreds of cycles ahead) before the next run notes its first
	 * (analytic/ltmodel.h) */
	for (unsigned i = 0; i < fabric_nets(m->fab); i++)
		noc_set_lt(fabric_net(m->fab, i), p);
	for (unsigned c = 0; c < m->nch; c++)
		dram_ctrl_set_lt(m->dram[c], p);
}

bool apu_mem_idle(const struct apu_mem *m)
{
	return fabric_idle(m->fab);
}

void apu_mem_read(struct apu_mem *m, uint64_t addr, void *buf, size_t len)
{
	uint8_t line[APU_LINE], *out = buf;

	mem_store_read(m->store, addr, buf, len);
	for (uint64_t a = addr; a < addr + len;) {
		uint64_t l = apu_line_of(a), n = l + APU_LINE - a;

		n = n < addr + len - a ? n : addr + len - a;
		/* the LLC's copy: DRAM's bytes when it writes through, newer when it writes back */
		if (apu_dir_llc_peek(m->dir, l, line))
			memcpy(out + (a - addr), line + (a - l), n);
		for (unsigned i = 0; i < m->ncp; i++) {
			bool dirty = false;
			char st = apu_cp_peek(m->cp[i], l, line, &dirty);

			/* the owner (M, O) or a dirty sharer holds the newest data */
			if ((st == 'M' || st == 'O' || st == 'S') && dirty) {
				memcpy(out + (a - addr), line + (a - l), n);
				break;
			}
		}
		a += n;
	}
}

int apu_mem_write(struct apu_mem *m, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	int rc = mem_store_write(m->store, addr, buf, len);

	if (rc)
		return rc;
	for (uint64_t a = addr; a < addr + len;) {
		uint64_t l = apu_line_of(a), n = l + APU_LINE - a;

		n = n < addr + len - a ? n : addr + len - a;
		apu_dir_llc_poke(m->dir, a, in + (a - addr), n);
		for (unsigned i = 0; i < m->ncp; i++)
			apu_cp_poke(m->cp[i], a, in + (a - addr), n);
		a += n;
	}
	return 0;
}

double apu_mem_traffic(const struct apu_mem *m)
{
	double b = 0;

	for (unsigned i = 0; i < fabric_nets(m->fab); i++)
		b += (double)noc_bytes(fabric_net(m->fab, i));
	return b;
}

int apu_mem_energy_arrays(const struct apu_mem *m, unsigned warps, struct energy_model *em)
{
	const struct energy_cpu_arrays cpu = {
	    .l1d_bytes = m->cp_cfg.l1d_kib * 1024,
	    .l1d_assoc = (unsigned)m->cp_cfg.l1d_assoc,
	    .l1i_bytes = m->cp_cfg.l1i_kib * 1024,
	    .l1i_assoc = (unsigned)m->cp_cfg.l1i_assoc,
	    .l2_bytes = m->cp_cfg.l2_kib * 1024,
	    .l2_assoc = (unsigned)m->cp_cfg.l2_assoc,
	    .llc_bytes = m->llc_cfg.size_kib * 1024,
	    .llc_assoc = (unsigned)m->llc_cfg.assoc,
	    .line = APU_LINE,
	    .cp_tbes = (unsigned)m->cp_cfg.tbes,
	    .dir_tbes = (unsigned)m->dir_cfg.tbes,
	    /* a 1-byte state entry per line (docs/apu.md §3.5a) */
	    .dir_entries = m->dir_cfg.tracking ? m->dir_cfg.entries : 0,
	    .dir_entry_assoc = (unsigned)m->dir_cfg.entry_assoc,
	    .dir_entry_bytes = 1,
	    .dma_lines = m->dma ? (unsigned)m->dma_cfg.window : 1,
	};

	if (energy_model_cpu_arrays(em, &cpu))
		return -1;
	if (m->ntcc) {
		const struct energy_arrays gpu = {
		    .has_l1 = true,
		    .l1_bytes = m->gcfg.tcp.size_kib * 1024,
		    .l1_assoc = (unsigned)m->gcfg.tcp.assoc,
		    .l1_line = APU_LINE,
		    .l1_mshrs = (unsigned)m->gcfg.tcp.mshrs,
		    .l2_bytes = m->gcfg.tcc.size_kib * 1024,
		    .l2_assoc = (unsigned)m->gcfg.tcc.assoc,
		    .l2_line = APU_LINE,
		    .l2_mshrs = (unsigned)m->gcfg.tcc.mshrs,
		    .warps = warps,
		};

		return energy_model_arrays(em, &gpu);
	}
	return 0;
}

void apu_mem_energy(const struct apu_mem *m, const struct energy_model *in, struct energy_counts *c,
		    struct energy_model *out)
{
	fabric_energy(m->fab, c);
	dram_energy_model(in, &m->dram_cfg, m->dram, m->nch, out);
}

const struct fabric *apu_mem_fabric(const struct apu_mem *m)
{
	return m->fab;
}
