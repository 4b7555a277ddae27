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
static const char *const policy_names[] = {"fixed", "predict", NULL};
static const struct cs_param tc_rows[] = {
    {"lease", CS_P_UINT, TCF(lease), "800", "core cycles",
     "lifetime an L1 copy gets, in cycles of core.clock_mhz (fixed), or the predictor's start "
     "and the floor of its write penalty (predict). The TC artifact's default is 800 Ruby "
     "cycles, one per interconnect clock: 800 at the 700 MHz of GPGPU-Sim's GTX480 (core.clock_mhz "
     "700) [docs/protocols/tc.md]",
     1, 1ull << 32, NULL},
    {"lease_policy", CS_P_ENUM, TCF(lease_policy), "fixed", "",
     "fixed (every read gets tc.lease: the TC artifact's default and its only policy for "
     "TC-Strong) or predict (TC-Weak only: one lifetime per L2 bank, lengthened by reads of "
     "expired lines and shortened by writes to and replacements blocked by unexpired ones: "
     "the artifact's per-L2 predictor)",
     0, 0, policy_names},
    {"pred_credit", CS_P_UINT, TCF(pred_credit), "1", "core cycles",
     "predict: added to the bank's lifetime when a read finds the line expired at the L2 or "
     "in the requesting L1 (artifact: expiredhit credit 1)",
     0, 1ull << 20, NULL},
    {"pred_evict", CS_P_UINT, TCF(pred_evict), "16", "core cycles",
     "predict: taken from the bank's lifetime when a replacement meets unexpired leases "
     "(artifact: l2evict penalty 16; never below 0)",
     0, 1ull << 20, NULL},
    {"pred_write", CS_P_UINT, TCF(pred_write), "64", "core cycles",
     "predict: taken from the bank's lifetime on a write to a line with an unexpired lease, "
     "only while the lifetime is above tc.lease (artifact: writeunexpired penalty 64)",
     0, 1ull << 20, NULL},
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
	bool weak, predict;
	sim_time_t period_ps; /* one core cycle */
	uint64_t base;	      /* tc.lease */
	int64_t lifetime;     /* core cycles: what the next read gets */
	uint64_t credit, evict_pen, write_pen;
	uint64_t *write_waits, *lease_extensions;
	uint64_t *ev_expired_l2, *ev_expired_l1, *ev_write, *ev_evict;
	struct cs_stat_avg *given;
};

static double tc_lifetime_now(const void *ps)
{
	return (double)((const struct tc_l2 *)ps)->lifetime;
}

static int tc_init(void *ps, const struct gpu_ctx *ctx, bool weak, struct cs_stat_group *g,
		   struct cs_err *err)
{
	struct tc_l2 *t = ps;
	const struct tc_cfg *cfg = ctx->proto_cfg;

	t->weak = weak;
	t->predict = cfg->lease_policy == TC_LEASE_PREDICT;
	if (t->predict && !weak)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "tc.lease_policy = \"predict\" needs coherence.protocol = "
		    "\"tc-weak\": the TC artifact predicts lifetimes for TC-Weak only");
	t->period_ps = sim_clock_period_ps(&ctx->core_clk);
	t->base = cfg->lease;
	t->lifetime = (int64_t)cfg->lease;
	t->credit = cfg->pred_credit;
	t->evict_pen = cfg->pred_evict;
	t->write_pen = cfg->pred_write;
	t->write_waits = cs_stat_counter(g, "tc.write_waits", "",
					 "writes and atomics that found unexpired leases");
	t->lease_extensions =
	    cs_stat_counter(g, "tc.lease_extensions", "", "reads that moved a line's lease end");
	/* the predictor's events, counted under either policy */
	t->ev_expired_l2 = cs_stat_counter(
	    g, "tc.pred.expired_l2", "", "reads of a line whose leases had all expired at the L2");
	t->ev_expired_l1 =
	    cs_stat_counter(g, "tc.pred.expired_l1", "",
			    "other reads from an L1 that held the line with an expired lease");
	t->ev_write = cs_stat_counter(g, "tc.pred.unexpired_writes", "",
				      "TC-Weak: writes to a line with an unexpired lease");
	t->ev_evict =
	    cs_stat_counter(g, "tc.pred.blocked_evictions", "",
			    "requests whose replacement met only unexpired leases (once each)");
	t->given = cs_stat_average(g, "tc.lifetime", "core cycles", "lifetimes given to reads");
	cs_stat_formula(g, "tc.lifetime_now", "core cycles",
			"the lifetime the next read gets (the predictor's value)", tc_lifetime_now,
			t);
	return 0;
}

/* The artifact's adjust_lease: move only while above `floor` (0: always); never below 0. */
static void tc_adjust(struct tc_l2 *t, int64_t delta, uint64_t floor)
{
	if (!t->predict || (floor && t->lifetime <= (int64_t)floor))
		return;
	t->lifetime += delta;
	if (t->lifetime < 0)
		t->lifetime = 0;
}

static int tc_strong_init(void *ps, const struct gpu_ctx *ctx, unsigned bank,
			  struct cs_stat_group *g, struct cs_err *err)
{
	(void)bank;
	return tc_init(ps, ctx, false, g, err);
}

static int tc_weak_init(void *ps, const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
			struct cs_err *err)
{
	(void)bank;
	return tc_init(ps, ctx, true, g, err);
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

/* A replacement found every way of its set leased: the lifetime is too long for the set. */
static void tc_evict_blocked(void *ps)
{
	struct tc_l2 *t = ps;

	(*t->ev_evict)++;
	tc_adjust(t, -(int64_t)t->evict_pen, 0);
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
		sim_time_t end = at + (sim_time_t)t->lifetime * t->period_ps;

		cs_stat_avg_sample(t->given, (double)t->lifetime);
		/* the lifetime was too short: the L2's leases (the artifact's Expired state) or
		 * the reader's own copy ran out before this read */
		if (l->meta[0] && (sim_time_t)l->meta[0] <= at) {
			(*t->ev_expired_l2)++;
			tc_adjust(t, (int64_t)t->credit, 0);
		} else if (m->ts[TC_L1_EXPIRED]) {
			(*t->ev_expired_l1)++;
			tc_adjust(t, (int64_t)t->credit, 0);
		}
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
	if ((sim_time_t)l->meta[0] > at) {
		(*t->write_waits)++; /* TC-Weak: performed now, visible everywhere later */
		if (m->type == GPU_MSG_WRITE) {
			/* too long for a line that is written: the artifact shortens the lifetime
			 * only while it is above the fixed lease (atomics leave it alone) */
			(*t->ev_write)++;
			tc_adjust(t, -(int64_t)t->write_pen, t->base);
		}
	}
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

/* Every request reads the line's lease end; a read that extends it and a fill write it. */
static void tc_energy(const void *ps, double accesses, double fills, struct energy_counts *out)
{
	const struct tc_l2 *t = ps;

	energy_add(out, EN_L2_TS_READ, accesses);
	energy_add(out, EN_L2_TS_WRITE, (double)*t->lease_extensions + fills);
}

static const struct l2_policy tc_strong_policy = {
    .state_size = sizeof(struct tc_l2),
    .init = tc_strong_init,
    .installed = tc_installed,
    .may_evict = tc_may_evict,
    .evict_blocked = tc_evict_blocked,
    .ready_at = tc_ready_at,
    .served = tc_served,
    .kernel_begin = tc_kernel_begin,
    .energy = tc_energy,
};

static const struct l2_policy tc_weak_policy = {
    .state_size = sizeof(struct tc_l2),
    .init = tc_weak_init,
    .installed = tc_installed,
    .may_evict = tc_may_evict,
    .evict_blocked = tc_evict_blocked,
    .ready_at = tc_ready_at,
    .served = tc_served,
    .kernel_begin = tc_kernel_begin,
    .energy = tc_energy,
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
    .msg_traffic = gpu_base_msg_traffic,
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
    .msg_traffic = gpu_base_msg_traffic,
    .n_msgs = GPU_MSG_BASE_COUNT,
    .l1 = &lease_l1_tc_weak_ops,
    .l2 = &tc_weak_l2_ops,
    .has_l1 = true,
    .coherent = true,
    .params = &tc_params,
};
