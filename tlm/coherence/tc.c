/*
 * tlm/coherence/tc.c - protocols `tc-strong` and `tc-weak`: temporal coherence (Singh et al.,
 * HPCA 2013), as the G-TSC paper (§II-D) and thesis (§3.1) describe it. docs/protocols/tc.md.
 *
 * Globally synchronised counters are the simulation's own clock. A read at the L2 gives the L1
 * a lease of tc.lease core cycles and the L2 line remembers the latest lease it gave (meta[0]);
 * the L2 is inclusive of every unexpired lease: a leased line is not replaced, and a set whose
 * ways are all leased stalls the bank until the first lease ends.
 * TC-Strong: a write (or an atomic) waits at the L2 until the line's leases have expired, and
 * the requests to the line behind it wait with it. TC-Weak: a write is performed at once and
 * its ack carries the time every lease on the line has ended (its global write completion
 * time); the L2 line remembers it (meta[1]) and reads of the line carry it too while it lies
 * ahead, so a warp that saw the write also waits for it at its next release (cumulativity).
 */
#include "tlm/coherence/lease.h"

#define TCF(f) offsetof(struct tc_cfg, f)
static const struct cs_param tc_rows[] = {
    {"lease", CS_P_UINT, TCF(lease), "400", "core cycles",
     "lease an L1 copy gets (the papers do not give TC's; [INF] long enough to cover an L2 round "
     "trip several times: 400 cycles of the 700 MHz issue clock = 571 ns)",
     1, 1ull << 32, NULL},
    {NULL},
};

const struct cs_param_table tc_params = {
    .section = "tc",
    .help = "temporal coherence (tc-strong, tc-weak)",
    .params = tc_rows,
    .size = sizeof(struct tc_cfg),
};

const char *const tc_msg_names[] = {
    [GPU_MSG_READ] = "read",
    [GPU_MSG_WRITE] = "write",
    [GPU_MSG_ATOMIC] = "atomic",
    [GPU_MSG_WRITEBACK] = "writeback",
    [GPU_MSG_DATA] = "data",
    [GPU_MSG_WRITE_ACK] = "write_ack",
    [GPU_MSG_ATOMIC_ACK] = "atomic_ack",
};

struct tc_l2 {
	bool weak;
	sim_time_t lease_ps;
	uint64_t *write_waits, *lease_extensions;
};

static int tc_init(void *ps, const struct gpu_ctx *ctx, bool weak, struct cs_stat_group *g)
{
	struct tc_l2 *t = ps;
	const struct tc_cfg *cfg = ctx->proto_cfg;

	t->weak = weak;
	t->lease_ps = cfg->lease * sim_clock_period_ps(&ctx->core_clk);
	t->write_waits = cs_stat_counter(g, "tc.write_waits", "",
					 "writes and atomics that found unexpired leases");
	t->lease_extensions =
	    cs_stat_counter(g, "tc.lease_extensions", "", "reads that moved a line's lease end");
	return 0;
}

static int tc_strong_init(void *ps, const struct gpu_ctx *ctx, unsigned bank,
			  struct cs_stat_group *g, struct cs_err *err)
{
	(void)bank;
	(void)err;
	return tc_init(ps, ctx, false, g);
}

static int tc_weak_init(void *ps, const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			struct cs_err *err)
{
	(void)bank;
	(void)err;
	return tc_init(ps, ctx, true, g);
}

static void tc_installed(void *ps, struct cache_line *l)
{
	(void)ps;
	l->meta[0] = 0; /* no lease given */
	l->meta[1] = 0; /* no write pending visibility */
}

static bool tc_may_evict(void *ps, const struct cache_line *l, sim_time_t now, sim_time_t *retry)
{
	(void)ps;
	if ((sim_time_t)l->meta[0] <= now)
		return true;
	if ((sim_time_t)l->meta[0] < *retry)
		*retry = l->meta[0];
	return false;
}

static bool is_write(const struct mem_msg *m)
{
	return m->type == GPU_MSG_WRITE || m->type == GPU_MSG_ATOMIC;
}

static sim_time_t tc_ready_at(void *ps, const struct cache_line *l, const struct mem_msg *m,
			      sim_time_t now)
{
	struct tc_l2 *t = ps;

	if (t->weak || !is_write(m) || (sim_time_t)l->meta[0] <= now)
		return now;
	return l->meta[0];
}

static void tc_served(void *ps, struct cache_line *l, struct mem_msg *m, sim_time_t at)
{
	struct tc_l2 *t = ps;

	if (m->type == GPU_MSG_READ) {
		sim_time_t end = at + t->lease_ps;

		if ((sim_time_t)l->meta[0] < end) {
			l->meta[0] = end;
			(*t->lease_extensions)++;
		}
		m->ts[TC_EXPIRE] = end;
		m->ts[TC_SERVED] = at;
		m->ts[TC_GWCT] = (sim_time_t)l->meta[1] > at ? l->meta[1] : 0;
		m->resp_bytes = (uint16_t)(m->resp_bytes + TC_TS_BYTES * (t->weak ? 2 : 1));
		return;
	}
	if ((sim_time_t)l->meta[0] > at)
		(*t->write_waits)++; /* TC-Weak: performed now, visible everywhere later */
	if (t->weak) {
		if (l->meta[1] < l->meta[0])
			l->meta[1] = l->meta[0];
		m->ts[TC_GWCT] = (sim_time_t)l->meta[0] > at ? l->meta[0] : 0;
		m->resp_bytes = (uint16_t)(m->resp_bytes + TC_TS_BYTES);
	}
}

static void tc_forget(void *ctx, struct cache_line *l)
{
	(void)ctx;
	l->meta[0] = 0;
	l->meta[1] = 0;
}

/* At a launch every L1 starts empty: no lease is held any more. */
static void tc_kernel_begin(void *ps, struct cache *c)
{
	(void)ps;
	cache_for_each(c, tc_forget, NULL);
}

static const struct l2_policy tc_strong_policy = {
    .state_size = sizeof(struct tc_l2),
    .init = tc_strong_init,
    .installed = tc_installed,
    .may_evict = tc_may_evict,
    .ready_at = tc_ready_at,
    .served = tc_served,
    .kernel_begin = tc_kernel_begin,
};

static const struct l2_policy tc_weak_policy = {
    .state_size = sizeof(struct tc_l2),
    .init = tc_weak_init,
    .installed = tc_installed,
    .may_evict = tc_may_evict,
    .ready_at = tc_ready_at,
    .served = tc_served,
    .kernel_begin = tc_kernel_begin,
};

static int tc_strong_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			    struct gpu_l2 **out, struct cs_err *err)
{
	return gpu_l2_create_policy(&tc_strong_policy, ctx, bank, g, out, err);
}

static int tc_weak_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			  struct gpu_l2 **out, struct cs_err *err)
{
	return gpu_l2_create_policy(&tc_weak_policy, ctx, bank, g, out, err);
}

LEASE_L2_OPS(tc_strong_l2_ops, tc_strong_create);
LEASE_L2_OPS(tc_weak_l2_ops, tc_weak_create);

const struct gpu_protocol gpu_protocol_tc_strong = {
    .name = "tc-strong",
    .help = "temporal coherence, writes wait at the L2 until every lease has expired",
    .label = "TC-Strong",
    .msg_names = tc_msg_names,
    .n_msgs = GPU_MSG_BASE_COUNT,
    .l1 = &lease_l1_tc_strong_ops,
    .l2 = &tc_strong_l2_ops,
    .has_l1 = true,
    .coherent = true,
    .params = &tc_params,
};

const struct gpu_protocol gpu_protocol_tc_weak = {
    .name = "tc-weak",
    .help = "temporal coherence, writes go at once; fences wait for the global write "
	    "completion time (GWCT)",
    .label = "TC-Weak",
    .msg_names = tc_msg_names,
    .n_msgs = GPU_MSG_BASE_COUNT,
    .l1 = &lease_l1_tc_weak_ops,
    .l2 = &tc_weak_l2_ops,
    .has_l1 = true,
    .coherent = true,
    .params = &tc_params,
};
