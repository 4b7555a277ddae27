/*
 * tlm/coherence/gtsc.c - protocol `gtsc`: timestamp-ordered coherence for GPUs (G-TSC paper,
 * thesis chapter 3), its L2 side. docs/protocols/gtsc.md has the rules and the worked example.
 *
 * Every L2 line has wts (meta[0]: the timestamp of the store that produced its data) and rts
 * (meta[1]: up to when it may be read); the bank has mem_ts, the largest rts of the lines it
 * evicted, so the L2 need not be inclusive. A line from DRAM gets [mem_ts, mem_ts + lease].
 * Reads (BusRd) move rts to max(rts, wts + lease, warp_ts + lease) and are answered with a
 * renewal (BusRnw, rts only) when the L1's wts is the line's, else with the data (BusFill).
 * Writes and atomics are scheduled after every lease given: wts = max(rts + 1, warp_ts),
 * rts = wts + lease (BusWrAck). A timestamp beyond gtsc.ts_bits resets every bank (wts = 1,
 * rts = lease, mem_ts = 1; the L2 keeps its data) and the answers carry the reset to the L1s.
 */
#include "tlm/coherence/lease.h"

#define GF(f) offsetof(struct gtsc_cfg, f)
static const char *const vis_names[] = {"block", "keep", NULL};
static const char *const comb_names[] = {"mshr", "forward", NULL};
static const struct cs_param gtsc_rows[] = {
    {"lease", CS_P_UINT, GF(lease), "10", "timestamps",
     "logical lease of a read (thesis §3.6.3: flat for 8-20; the examples use 5 and 10; [INF] 10)",
     1, 1u << 30, NULL},
    {"ts_bits", CS_P_UINT, GF(ts_bits), "16", "bits",
     "width of wts, rts, warp_ts and mem_ts (thesis §3.5.4: 16); a larger one resets when it "
     "would overflow",
     8, 32, NULL},
    {"visibility", CS_P_ENUM, GF(visibility), "block", "",
     "a store hitting in the L1: block (write the line, hold every access to it until the ack: "
     "the paper's choice) or keep (leave the old copy readable by other warps)",
     0, 0, vis_names},
    {"combining", CS_P_ENUM, GF(combining), "mshr", "",
     "later misses to a line in flight: mshr (wait in the MSHR, renew if the lease does not "
     "cover them: the paper's choice) or forward (each sends its own BusRd)",
     0, 0, comb_names},
    {"tick_hits", CS_P_UINT, GF(tick_hits), "16", "hits",
     "after this many L1 hits in a row to one line a warp's timestamp moves past the line's "
     "rts, so that a warp spinning on a cached flag renews it and sees a new value (Tardis "
     "advances timestamps against livelock; the G-TSC papers do not say; [INF] 16); 0: never",
     0, 1u << 30, NULL},
    {"advance", CS_P_UINT, GF(advance), "1", "memory operations",
     "a warp's timestamp also advances by 1 every this many of its memory operations "
     "(Tardis's self-increment; [INF] the G-TSC papers do not say how logical time passes), so "
     "that a lease covers about lease x advance operations and its length matters; 0: time "
     "moves only at the rules' jumps, which makes every count independent of gtsc.lease "
     "(docs/protocols/gtsc.md)",
     0, 1u << 30, NULL},
    {NULL},
};

const struct cs_param_table gtsc_params = {
    .section = "gtsc",
    .help = "G-TSC, timestamp-ordered coherence",
    .params = gtsc_rows,
    .size = sizeof(struct gtsc_cfg),
};

const char *const gtsc_msg_names[] = {
    [GPU_MSG_READ] = "BusRd",
    [GPU_MSG_WRITE] = "BusWr",
    [GPU_MSG_ATOMIC] = "atomic",
    [GPU_MSG_WRITEBACK] = "writeback",
    [GPU_MSG_DATA] = "BusFill",
    [GPU_MSG_WRITE_ACK] = "BusWrAck",
    [GPU_MSG_ATOMIC_ACK] = "atomic_ack",
    [GPU_MSG_RENEW] = "BusRnw",
};

/* a renewal asks (BusRnw); its grant is a BusFill without data or with it */
const unsigned char gtsc_msg_traffic[LEASE_MSG_COUNT] = {GPU_BASE_MSG_TRAFFIC, [GPU_MSG_RENEW] =
										   NOC_TR_REQUEST};

struct gtsc_l2 {
	const struct gpu_ctx *ctx;
	uint64_t lease, ts_max, mem_ts, epoch;
	unsigned tsb;
	uint64_t *renewals, *fills, *resets, *stale;
};

static int gtsc_init(void *ps, const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
		     struct cs_err *err)
{
	struct gtsc_l2 *s = ps;
	const struct gtsc_cfg *cfg = ctx->proto_cfg;

	(void)bank;
	s->ctx = ctx;
	s->lease = cfg->lease;
	s->ts_max = (1ull << cfg->ts_bits) - 1;
	s->tsb = gtsc_ts_bytes(cfg);
	s->mem_ts = 1;
	if (s->lease + 2 > s->ts_max)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "gtsc.lease (%llu) leaves no room in %llu-bit timestamps: it must "
		    "be below %llu",
		    (unsigned long long)s->lease, (unsigned long long)cfg->ts_bits,
		    (unsigned long long)s->ts_max - 1);
	s->renewals = cs_stat_counter(g, "gtsc.renewals", "", "BusRd answered with BusRnw");
	s->fills = cs_stat_counter(g, "gtsc.fills", "", "BusRd answered with BusFill");
	s->resets = cs_stat_counter(g, "gtsc.ts_resets", "", "timestamp overflow resets started");
	s->stale = cs_stat_counter(g, "gtsc.stale_requests", "",
				   "requests carrying timestamps from before a reset");
	return 0;
}

static void gtsc_installed(void *ps, struct cache_line *l)
{
	struct gtsc_l2 *s = ps;

	l->meta[0] = s->mem_ts;
	l->meta[1] = s->mem_ts + s->lease;
}

static void gtsc_evicted(void *ps, const struct cache_line *l)
{
	struct gtsc_l2 *s = ps;

	if (s->mem_ts < l->meta[1])
		s->mem_ts = l->meta[1];
}

static void gtsc_line_reset(void *ctx, struct cache_line *l)
{
	const struct gtsc_l2 *s = ctx;

	l->meta[0] = 1;
	l->meta[1] = s->lease;
}

/* One bank's timestamps start again (the L2 keeps its data: it has the latest of every line
 * it holds). */
static void gtsc_bank_reset(struct gtsc_l2 *s, struct cache *c)
{
	s->mem_ts = 1;
	cache_for_each(c, gtsc_line_reset, s);
}

/* A timestamp would overflow: the reset reaches every bank (we do not model its latency). */
static void gtsc_reset_all(struct gtsc_l2 *s)
{
	(*s->resets)++;
	for (unsigned b = 0; b < s->ctx->l2->banks; b++) {
		struct gpu_l2 *bank = s->ctx->l2_banks[b];
		struct gtsc_l2 *o = gpu_l2_policy_state(bank);

		gtsc_bank_reset(o, gpu_l2_cache(bank));
		o->epoch++;
	}
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

static void gtsc_served(void *ps, struct cache_line *l, struct mem_msg *m, sim_time_t at)
{
	struct gtsc_l2 *s = ps;
	bool stale = m->ts[GTSC_EPOCH] < s->epoch;
	uint64_t warp_ts = stale ? 1 : m->ts[GTSC_WARP_TS];

	(void)at;
	if (stale)
		(*s->stale)++;
	if (m->type == GPU_MSG_READ) {
		uint64_t rts = max3(l->meta[1], l->meta[0] + s->lease, warp_ts + s->lease);

		if (rts > s->ts_max) {
			gtsc_reset_all(s);
			stale = true;
			rts = max3(l->meta[1], l->meta[0] + s->lease, 1 + s->lease);
		}
		l->meta[1] = rts;
		if (!stale && m->ts[GTSC_WTS] == l->meta[0]) {
			/* the L1 has this version: extend its lease, no data */
			m->resp_type = GPU_MSG_RENEW;
			m->resp_bytes = (uint16_t)s->tsb;
			(*s->renewals)++;
		} else {
			m->resp_bytes = (uint16_t)(m->resp_bytes + 2 * s->tsb);
			(*s->fills)++;
		}
	} else {
		uint64_t prev = l->meta[0];
		uint64_t wts = l->meta[1] + 1 > warp_ts ? l->meta[1] + 1 : warp_ts;

		if (wts + s->lease > s->ts_max) {
			gtsc_reset_all(s);
			prev = 0; /* the L1's copy goes with the reset */
			wts = l->meta[1] + 1;
		}
		l->meta[0] = wts;
		l->meta[1] = wts + s->lease;
		m->ts[GTSC_PREV] = prev;
		m->resp_bytes = (uint16_t)(m->resp_bytes + 3 * s->tsb);
	}
	m->ts[GTSC_WTS] = l->meta[0];
	m->ts[GTSC_RTS] = l->meta[1];
	m->ts[GTSC_EPOCH] = s->epoch;
}

static uint64_t gtsc_mem_ts(const void *ps)
{
	return ((const struct gtsc_l2 *)ps)->mem_ts;
}

/* At a launch every L1 starts empty with its warps at 1: so do the bank's timestamps. */
static void gtsc_kernel_begin(void *ps, struct cache *c)
{
	gtsc_bank_reset(ps, c);
}

/* Every request reads a line's wts and rts and moves one of them, and a fill writes both; a
 * renewal (BusRnw) answers a read without the data. */
static void gtsc_energy(const void *ps, double accesses, double fills, struct energy_counts *out)
{
	const struct gtsc_l2 *s = ps;

	energy_add(out, EN_L2_DATA_READ, -(double)*s->renewals);
	energy_add(out, EN_L2_TS_READ, accesses);
	energy_add(out, EN_L2_TS_WRITE, accesses + fills);
}

static const struct l2_policy gtsc_policy = {
    .state_size = sizeof(struct gtsc_l2),
    .init = gtsc_init,
    .installed = gtsc_installed,
    .evicted = gtsc_evicted,
    .served = gtsc_served,
    .kernel_begin = gtsc_kernel_begin,
    .bank_state = gtsc_mem_ts,
    .energy = gtsc_energy,
};

static int gtsc_create(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *g,
		       struct gpu_l2 **out, struct cs_err *err)
{
	return gpu_l2_create_policy(&gtsc_policy, ctx, bank, g, out, err);
}

LEASE_L2_OPS(gtsc_l2_ops, gtsc_create);

const struct gpu_protocol gpu_protocol_gtsc = {
    .name = "gtsc",
    .help = "G-TSC: timestamp-ordered coherence with logical leases, non-inclusive L2",
    .label = "G-TSC",
    .msg_names = gtsc_msg_names,
    .msg_traffic = gtsc_msg_traffic,
    .n_msgs = LEASE_MSG_COUNT,
    .l1 = &lease_l1_gtsc_ops,
    .l2 = &gtsc_l2_ops,
    .has_l1 = true,
    .coherent = true,
    .params = &gtsc_params,
};
