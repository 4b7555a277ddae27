/*
 * workloads/micro.c - microbenchmarks written against workloads/gpu_api.h.
 *
 * Latency (chase), bandwidth (stream, streamw), and the sharing patterns that need coherence
 * (prodcons, lock, barrier) or atomics at the L2 (histo). Every input comes from the run seed
 * (splitmix64 of the seed and the element's coordinates, so the host recomputes any value
 * without storing it) and every output is checked on the host. docs/workloads.md describes
 * each benchmark: what it measures, its sharing and synchronisation, its sizes, its checks.
 *
 * Conventions: generation 0 of a word is the value the host wrote before the launch; round r
 * of a kernel writes generation r + 1. When a kernel reads a wrong value it looks the value up
 * among the older generations, so a failure says "stale copy" or "garbage", not just "wrong".
 */
#include "workloads/micro.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define LINE_BYTES 128 /* one cache line: chase nodes, flags and counters own one each */
#define KIB	   UINT64_C(1024)
#define MIB	   (KIB * KIB)

/* Per-workload seed tweaks, so two workloads never share values. */
#define TAG_CHASE    0x6368617365000000ull
#define TAG_STREAM_A 0x73747265616d4100ull
#define TAG_STREAM_B 0x73747265616d4200ull
#define TAG_PRODCONS 0x70726f64636f6e73ull
#define TAG_LOCK     0x6c6f636b00000000ull
#define TAG_BARRIER  0x6261727269657200ull
#define TAG_HISTO    0x686973746f000000ull

/* ---- deterministic values ----------------------------------------------------------------- */

/* The generation before `gen` (0 = the host's initial value) whose value of the word is
 * `got`, or -1: tells a stale copy from a value never written there. */
static long older_generation(uint64_t seed, uint64_t id, uint64_t idx, uint64_t gen, uint32_t got)
{
	for (uint64_t g = gen; g-- > 0;)
		if (wl_value32(seed, id, g, idx) == got)
			return (long)g;
	return -1;
}

/* Describes what a stale word is: "round 3's value" or "the initial value". */
static void describe_generation(char *buf, size_t len, long gen)
{
	if (gen == 0)
		snprintf(buf, len, "the initial value");
	else
		snprintf(buf, len, "round %ld's value", gen - 1);
}

/* ---- warp-side helpers ---------------------------------------------------------------------- */

static uint64_t line_addr(uint64_t base, uint64_t i)
{
	return base + i * LINE_BYTES;
}

/* ---- host-side helpers ---------------------------------------------------------------------- */

/* ==== chase: pointer chasing, load-to-use latency ============================================ */

struct chase_args {
	uint64_t nodes; /* node i at nodes + 128 i: the uint64 index of the next node */
	uint64_t count; /* nodes in the cycle */
	uint64_t start; /* first node */
	uint64_t hops;
	uint64_t out; /* uint64: the node reached */
};

static void chase_kernel(struct gpu_warp *w)
{
	const struct chase_args *a = gw_args(w);
	uint64_t node = a->start;

	for (uint64_t hop = 0; hop < a->hops; hop++) {
		uint64_t next = gw_ld64(w, line_addr(a->nodes, node));

		if (next >= a->count) {
			gw_fail(w,
				"chase: hop %" PRIu64 ": node %" PRIu64 " holds %" PRIu64
				", not a node index (there are %" PRIu64 ")",
				hop, node, next, a->count);
			return;
		}
		node = next;
	}
	gw_st64(w, a->out, node);
}

/* A random cyclic permutation (Sattolo): following next[] from any node visits every node. */
static void random_cycle(uint64_t *next, uint64_t count, uint64_t *rng)
{
	for (uint64_t i = 0; i < count; i++)
		next[i] = i;
	for (uint64_t i = count - 1; i > 0; i--) {
		uint64_t j = wl_splitmix64(rng) % i;
		uint64_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
}

/* Footprints: 8 KiB fits any L1 (>= 16 KiB); 256 KiB exceeds any L1 (<= 128 KiB) and fits any
 * L2 (>= 512 KiB); 32 MiB exceeds the L2. */
static int chase_run(struct gpu_host *h, const char *level, uint64_t footprint)
{
	struct chase_args a = {.count = footprint / LINE_BYTES};
	struct gpu_kernel k = {
	    .name = "chase", .ctas = 1, .warps_per_cta = 1, .fn = chase_kernel, .args = &a};
	uint64_t rng = gh_seed(h) ^ TAG_CHASE ^ a.count;
	uint64_t *next = malloc(a.count * sizeof(*next));
	uint64_t want, got;
	int err;

	if (!next)
		return -CS_ENOMEM;
	random_cycle(next, a.count, &rng);
	a.hops = wl_by_size(h, 2048, 50000, 1000000);
	a.start = wl_splitmix64(&rng) % a.count;
	a.nodes = gh_alloc(h, footprint, 0);
	a.out = gh_alloc(h, 8, 0);
	for (uint64_t i = 0; i < a.count; i++)
		gh_write(h, line_addr(a.nodes, i), &next[i], sizeof(next[i]));
	want = a.start;
	for (uint64_t hop = 0; hop < a.hops; hop++)
		want = next[want];
	free(next);

	err = gh_launch(h, &k);
	if (err)
		return err;
	gh_read(h, a.out, &got, sizeof(got));
	if (got != want)
		return gh_fail(h,
			       "chase (%s footprint): reached node %" PRIu64 " after %" PRIu64
			       " hops, expected node %" PRIu64,
			       level, got, a.hops, want);
	gh_note(h,
		"chase %s: %" PRIu64 " dependent 8 B loads over %" PRIu64 " nodes (%" PRIu64
		" KiB, one per 128 B line), final node %" PRIu64 " verified",
		level, a.hops, a.count, footprint / KIB, got);
	return 0;
}

int micro_chase_l1_main(struct gpu_host *h)
{
	return chase_run(h, "L1", 8 * KIB);
}

int micro_chase_l2_main(struct gpu_host *h)
{
	return chase_run(h, "L2", 256 * KIB);
}

int micro_chase_dram_main(struct gpu_host *h)
{
	return chase_run(h, "DRAM", 32 * MIB);
}

int micro_chase_main(struct gpu_host *h)
{
	int err = micro_chase_l1_main(h);

	if (err || gh_size(h) == GPU_SIZE_TINY)
		return err;
	err = micro_chase_l2_main(h);
	if (err)
		return err;
	return micro_chase_dram_main(h);
}

/* ==== stream: c[i] = a[i] + b[i], read and write bandwidth ================================== */

struct stream_args {
	uint64_t a, b, c; /* uint32 arrays */
	uint64_t n;
};

static void stream_kernel(struct gpu_warp *w)
{
	const struct stream_args *arg = gw_args(w);
	uint64_t stride = wl_grid_warps(w) * WARP_LANES;
	uint64_t addr[WARP_LANES];
	uint32_t x[WARP_LANES] = {0}, y[WARP_LANES] = {0};

	for (uint64_t i = gw_gwid(w) * WARP_LANES; i < arg->n; i += stride) {
		uint32_t mask = wl_lane_addrs(addr, arg->a, i, arg->n, 4);

		gw_ld32v(w, addr, mask, x);
		wl_lane_addrs(addr, arg->b, i, arg->n, 4);
		gw_ld32v(w, addr, mask, y);
		for (unsigned l = 0; l < WARP_LANES; l++)
			x[l] += y[l];
		wl_lane_addrs(addr, arg->c, i, arg->n, 4);
		gw_st32v(w, addr, mask, x);
	}
}

static uint32_t stream_a(const void *seed, uint64_t i)
{
	return wl_value32(*(const uint64_t *)seed ^ TAG_STREAM_A, 0, 0, i);
}

static uint32_t stream_b(const void *seed, uint64_t i)
{
	return wl_value32(*(const uint64_t *)seed ^ TAG_STREAM_B, 0, 0, i);
}

static uint32_t stream_sum(const void *seed, uint64_t i)
{
	return stream_a(seed, i) + stream_b(seed, i);
}

int micro_stream_main(struct gpu_host *h)
{
	struct stream_args a = {.n = wl_by_size(h, 32 * KIB, 1 * MIB, 12 * MIB)};
	struct gpu_kernel k = {
	    .name = "stream", .warps_per_cta = 8, .fn = stream_kernel, .args = &a};
	uint64_t seed = gh_seed(h);
	struct wl_mismatch m;
	int err;

	k.ctas = wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	a.a = gh_alloc(h, a.n * 4, 0);
	a.b = gh_alloc(h, a.n * 4, 0);
	a.c = gh_alloc(h, a.n * 4, 0);
	err = wl_fill32(h, a.a, a.n, stream_a, &seed);
	if (!err)
		err = wl_fill32(h, a.b, a.n, stream_b, &seed);
	if (!err)
		err = gh_launch(h, &k);
	if (!err)
		err = wl_check32(h, a.c, a.n, stream_sum, &seed, &m);
	if (err)
		return err;
	if (m.count)
		return gh_fail(h,
			       "stream: c[%" PRIu64 "]=%" PRIu32 " expected %" PRIu32
			       " (a + b); %" PRIu64 " of %" PRIu64 " elements wrong",
			       m.first, m.got, m.want, m.count, a.n);
	gh_note(h,
		"stream: %" PRIu64 " elements, %u CTAs x %u warps, %" PRIu64
		" coalesced 128 B warp accesses, c = a + b verified",
		a.n, k.ctas, k.warps_per_cta, 3 * ((a.n + WARP_LANES - 1) / WARP_LANES));
	return 0;
}

/* ==== streamw: c[i] = i ^ seed, store bandwidth ============================================= */

struct streamw_args {
	uint64_t c; /* uint32 array */
	uint64_t n;
	uint64_t seed;
};

static void streamw_kernel(struct gpu_warp *w)
{
	const struct streamw_args *arg = gw_args(w);
	uint64_t stride = wl_grid_warps(w) * WARP_LANES;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (uint64_t i = gw_gwid(w) * WARP_LANES; i < arg->n; i += stride) {
		uint32_t mask = wl_lane_addrs(addr, arg->c, i, arg->n, 4);

		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] = (uint32_t)((i + l) ^ arg->seed);
		gw_st32v(w, addr, mask, v);
	}
}

static uint32_t streamw_value(const void *seed, uint64_t i)
{
	return (uint32_t)(i ^ *(const uint64_t *)seed);
}

int micro_streamw_main(struct gpu_host *h)
{
	struct streamw_args a = {.n = wl_by_size(h, 64 * KIB, 4 * MIB, 32 * MIB),
				 .seed = gh_seed(h)};
	struct gpu_kernel k = {
	    .name = "streamw", .warps_per_cta = 8, .fn = streamw_kernel, .args = &a};
	struct wl_mismatch m;
	int err;

	k.ctas = wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	a.c = gh_alloc(h, a.n * 4, 0);
	err = gh_launch(h, &k);
	if (!err)
		err = wl_check32(h, a.c, a.n, streamw_value, &a.seed, &m);
	if (err)
		return err;
	if (m.count)
		return gh_fail(h,
			       "streamw: c[%" PRIu64 "]=%" PRIu32 " expected %" PRIu32
			       " (i ^ seed); %" PRIu64 " of %" PRIu64 " elements wrong",
			       m.first, m.got, m.want, m.count, a.n);
	gh_note(h,
		"streamw: %" PRIu64 " elements, %u CTAs x %u warps, %" PRIu64
		" coalesced 128 B warp stores, c = i ^ seed verified",
		a.n, k.ctas, k.warps_per_cta, (a.n + WARP_LANES - 1) / WARP_LANES);
	return 0;
}

/* ==== prodcons: producer/consumer pairs through a flag ====================================== */

/*
 * CTA 2p produces for CTA 2p + 1 (one warp each; a round-robin CTA placement puts them on
 * different SMs). Round r: the producer waits until the consumer has acknowledged round r - 1,
 * writes generation r + 1 of its block, fences (release) and sets the flag to r + 1. The
 * consumer first reads the block (so its L1 holds the old values), spins on the flag with
 * atomic reads at the L2, fences (acquire), reads the block again, checks it, stores it to out
 * and acknowledges. A coherent L1 serves the new values after the acquire; a non-coherent L1
 * serves the copy the first read left there.
 */
struct prodcons_args {
	uint64_t data;	/* pairs * words uint32: each producer's block */
	uint64_t flags; /* one line per pair: the last round published */
	uint64_t acks;	/* one line per pair: the last round consumed */
	uint64_t out;	/* pairs * words uint32: what each consumer read in the last round */
	uint64_t sms;	/* 2 * pairs uint32: the SM of each CTA */
	uint64_t seed;
	unsigned words; /* per block, a multiple of WARP_LANES */
	unsigned rounds;
};

static uint32_t prodcons_value(const struct prodcons_args *a, unsigned pair, unsigned gen,
			       unsigned i)
{
	return wl_value32(a->seed, pair, gen, i);
}

/* Spins with atomic reads until the flag word equals want: 0, or -1 after a livelock report. */
static int prodcons_wait(struct gpu_warp *w, uint64_t addr, uint32_t want, const char *role,
			 const char *flag)
{
	uint64_t spins = 0;
	uint32_t v;

	while ((v = wl_atomic_read32(w, addr)) != want) {
		if (gw_spin_guard(w, &spins)) {
			gw_fail(w,
				"prodcons: livelock: %s of pair %u (CTA %u, SM %u) spun %" PRIu64
				" times (atomic reads at the L2) waiting for %s = %" PRIu32
				", it stays %" PRIu32,
				role, gw_cta(w) / 2, gw_cta(w), gw_sm(w), spins, flag, want, v);
			return -1;
		}
	}
	return 0;
}

static void prodcons_produce(struct gpu_warp *w, const struct prodcons_args *a, unsigned pair)
{
	uint64_t block = a->data + (uint64_t)pair * a->words * 4;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned r = 0; r < a->rounds; r++) {
		if (prodcons_wait(w, line_addr(a->acks, pair), r, "producer", "ack") != 0)
			return;
		gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
		for (unsigned i = 0; i < a->words; i += WARP_LANES) {
			wl_lane_addrs(addr, block, i, a->words, 4);
			for (unsigned l = 0; l < WARP_LANES; l++)
				v[l] = prodcons_value(a, pair, r + 1, i + l);
			gw_st32v(w, addr, LANES_ALL, v);
		}
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		gw_st32(w, line_addr(a->flags, pair), r + 1);
	}
}

static void prodcons_report(struct gpu_warp *w, const struct prodcons_args *a, unsigned pair,
			    unsigned r, unsigned i, uint32_t got)
{
	uint32_t want = prodcons_value(a, pair, r + 1, i);
	long gen = older_generation(a->seed, pair, i, r + 1, got);
	char what[48];

	if (gen < 0) {
		gw_fail(
		    w,
		    "prodcons: consumer %u (SM %u) read wrong data in round %u: out[%u]=%" PRIu32
		    " expected %" PRIu32 ", a value the producer never wrote there",
		    pair, gw_sm(w), r, i, got, want);
		return;
	}
	describe_generation(what, sizeof(what), gen);
	gw_fail(w,
		"prodcons: consumer %u (SM %u) read stale data in round %u: out[%u]=%" PRIu32
		" expected %" PRIu32 ", it is %s (an L1 without coherence kept the old copy)",
		pair, gw_sm(w), r, i, got, want, what);
}

/* Reads the block (checking it against round r unless warm_only) and stores it to out. */
static int prodcons_read_block(struct gpu_warp *w, const struct prodcons_args *a, unsigned pair,
			       unsigned r, bool warm_only)
{
	uint64_t offset = (uint64_t)pair * a->words * 4;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	for (unsigned i = 0; i < a->words; i += WARP_LANES) {
		wl_lane_addrs(addr, a->data + offset, i, a->words, 4);
		gw_ld32v(w, addr, LANES_ALL, v);
		if (warm_only)
			continue;
		for (unsigned l = 0; l < WARP_LANES; l++) {
			if (v[l] != prodcons_value(a, pair, r + 1, i + l)) {
				prodcons_report(w, a, pair, r, i + l, v[l]);
				return -1;
			}
		}
		wl_lane_addrs(addr, a->out + offset, i, a->words, 4);
		gw_st32v(w, addr, LANES_ALL, v);
	}
	return 0;
}

static void prodcons_consume(struct gpu_warp *w, const struct prodcons_args *a, unsigned pair)
{
	for (unsigned r = 0; r < a->rounds; r++) {
		prodcons_read_block(w, a, pair, r, true);
		if (prodcons_wait(w, line_addr(a->flags, pair), r + 1, "consumer", "flag") != 0)
			return;
		gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
		if (prodcons_read_block(w, a, pair, r, false) != 0)
			return;
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		gw_st32(w, line_addr(a->acks, pair), r + 1);
	}
}

static void prodcons_kernel(struct gpu_warp *w)
{
	const struct prodcons_args *a = gw_args(w);
	unsigned cta = gw_cta(w);

	gw_st32(w, a->sms + 4ull * cta, gw_sm(w));
	if (cta % 2 == 0)
		prodcons_produce(w, a, cta / 2);
	else
		prodcons_consume(w, a, cta / 2);
}

static uint32_t prodcons_initial(const void *args, uint64_t i)
{
	const struct prodcons_args *a = args;

	return prodcons_value(a, (unsigned)(i / a->words), 0, (unsigned)(i % a->words));
}

static uint32_t prodcons_final(const void *args, uint64_t i)
{
	const struct prodcons_args *a = args;

	return prodcons_value(a, (unsigned)(i / a->words), a->rounds, (unsigned)(i % a->words));
}

/* Pairs whose producer and consumer ran on different SMs. */
static unsigned prodcons_split_pairs(struct gpu_host *h, const struct prodcons_args *a,
				     unsigned pairs)
{
	unsigned split = 0;

	for (unsigned p = 0; p < pairs; p++)
		split += gh_read32(h, a->sms + 8ull * p) != gh_read32(h, a->sms + 8ull * p + 4);
	return split;
}

int micro_prodcons_main(struct gpu_host *h)
{
	struct prodcons_args a = {.seed = gh_seed(h) ^ TAG_PRODCONS};
	struct gpu_kernel k = {
	    .name = "prodcons", .warps_per_cta = 1, .fn = prodcons_kernel, .args = &a};
	unsigned pairs = gh_sms(h), split;
	struct wl_mismatch m;
	int err;

	if (pairs > wl_resident_ctas(h, &k) / 2)
		pairs = wl_resident_ctas(h, &k) / 2;
	if (pairs == 0)
		return gh_fail(h, "prodcons: needs 2 resident CTAs, the GPU holds %u",
			       wl_resident_ctas(h, &k));
	k.ctas = 2 * pairs;
	a.words = (unsigned)wl_by_size(h, 256, 1024, 1024);
	a.rounds = (unsigned)wl_by_size(h, 4, 32, 512);
	a.data = gh_alloc(h, (uint64_t)pairs * a.words * 4, 0);
	a.out = gh_alloc(h, (uint64_t)pairs * a.words * 4, 0);
	a.flags = gh_alloc(h, (uint64_t)pairs * LINE_BYTES, 0);
	a.acks = gh_alloc(h, (uint64_t)pairs * LINE_BYTES, 0);
	a.sms = gh_alloc(h, 8ull * pairs, 0);
	err = wl_fill32(h, a.data, (uint64_t)pairs * a.words, prodcons_initial, &a);
	if (!err)
		err = gh_launch(h, &k);
	if (!err)
		err = wl_check32(h, a.out, (uint64_t)pairs * a.words, prodcons_final, &a, &m);
	if (err)
		return err;
	if (m.count)
		return gh_fail(h,
			       "prodcons: consumer %u's output out[%u]=%" PRIu32
			       " expected %" PRIu32 " (round %u's value); %" PRIu64 " words wrong",
			       (unsigned)(m.first / a.words), (unsigned)(m.first % a.words), m.got,
			       m.want, a.rounds - 1, m.count);
	split = prodcons_split_pairs(h, &a, pairs);
	gh_note(h,
		"prodcons: %u pairs (%u with producer and consumer on different SMs), %u rounds of "
		"%u B blocks, every round's data verified",
		pairs, split, a.rounds, a.words * 4);
	return 0;
}

/* ==== lock: a spin lock guarding plain loads and stores ===================================== */

struct lock_args {
	uint64_t lock;	  /* uint32, own line: 0 free, 1 held */
	uint64_t counter; /* uint32, own line: incremented once per critical section */
	uint64_t slots;	  /* nslots uint32: one of them incremented per critical section */
	uint64_t seed;
	unsigned iters; /* critical sections per warp */
	unsigned nslots;
};

#define LOCK_SLOTS	 64
#define LOCK_BACKOFF_MIN 32   /* cycles of pause after the first failed CAS */
#define LOCK_BACKOFF_MAX 1024 /* doubling up to this */

static unsigned lock_slot(const struct lock_args *a, uint64_t gwid, unsigned iter)
{
	return wl_value32(a->seed, gwid, 0, iter) % a->nslots;
}

/* CAS 0 -> 1 with acquire order, exponential back-off: 0, or -1 after a livelock report. */
static int lock_acquire(struct gpu_warp *w, uint64_t lock)
{
	uint64_t spins = 0, backoff = LOCK_BACKOFF_MIN;

	while (gw_atom(w, MEM_ATOM_CAS, lock, 4, 0, 1, MEM_SCOPE_DEVICE, MEM_ORDER_ACQUIRE) != 0) {
		if (gw_spin_guard(w, &spins)) {
			gw_fail(w,
				"lock: livelock: warp %" PRIu64
				" (SM %u) failed to take the lock %" PRIu64 " times",
				gw_gwid(w), gw_sm(w), spins);
			return -1;
		}
		gw_compute(w, backoff);
		if (backoff < LOCK_BACKOFF_MAX)
			backoff *= 2;
	}
	return 0;
}

static void lock_release(struct gpu_warp *w, uint64_t lock)
{
	gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
	gw_atom(w, MEM_ATOM_EXCH, lock, 4, 0, 0, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
}

/* A plain read-modify-write: correct only under the lock and with coherent loads. */
static void plain_increment(struct gpu_warp *w, uint64_t addr)
{
	gw_st32(w, addr, gw_ld32(w, addr) + 1);
}

static void lock_kernel(struct gpu_warp *w)
{
	const struct lock_args *a = gw_args(w);

	for (unsigned i = 0; i < a->iters; i++) {
		if (lock_acquire(w, a->lock) != 0)
			return;
		plain_increment(w, a->counter);
		plain_increment(w, a->slots + 4ull * lock_slot(a, gw_gwid(w), i));
		lock_release(w, a->lock);
	}
}

/* Host check of the counter and the slots against the host's count. */
static int lock_check(struct gpu_host *h, const struct lock_args *a, uint64_t warps)
{
	uint64_t sections = warps * a->iters;
	uint32_t want[LOCK_SLOTS] = {0};
	uint32_t counter = gh_read32(h, a->counter);

	if (counter != (uint32_t)sections)
		return gh_fail(h,
			       "lock: counter=%" PRIu32 " expected %" PRIu64 ": %" PRId64
			       " of %" PRIu64 " increments lost (a plain load in the "
			       "critical section read a stale copy: an L1 without coherence kept "
			       "the old value)",
			       counter, sections, (int64_t)sections - counter, sections);
	for (uint64_t wid = 0; wid < warps; wid++)
		for (unsigned i = 0; i < a->iters; i++)
			want[lock_slot(a, wid, i)]++;
	for (unsigned s = 0; s < a->nslots; s++) {
		uint32_t got = gh_read32(h, a->slots + 4ull * s);

		if (got != want[s])
			return gh_fail(h,
				       "lock: slot[%u]=%" PRIu32 " expected %" PRIu32
				       " (counter right, a slot update lost or duplicated: a stale "
				       "copy in an L1 without coherence?)",
				       s, got, want[s]);
	}
	return 0;
}

int micro_lock_main(struct gpu_host *h)
{
	struct lock_args a = {.seed = gh_seed(h) ^ TAG_LOCK, .nslots = LOCK_SLOTS};
	struct gpu_kernel k = {.name = "lock", .warps_per_cta = 4, .fn = lock_kernel, .args = &a};
	uint64_t warps;
	int err;

	k.ctas = gh_sms(h) < wl_resident_ctas(h, &k) ? gh_sms(h) : wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	warps = (uint64_t)k.ctas * k.warps_per_cta;
	a.iters = (unsigned)wl_by_size(h, 4, 32, 512);
	a.lock = gh_alloc(h, LINE_BYTES, 0);
	a.counter = gh_alloc(h, LINE_BYTES, 0);
	a.slots = gh_alloc(h, 4 * LOCK_SLOTS, 0);
	err = gh_launch(h, &k);
	if (!err)
		err = lock_check(h, &a, warps);
	if (err)
		return err;
	gh_note(h,
		"lock: %" PRIu64 " warps on %u CTAs, %" PRIu64
		" critical sections, counter and %u slots verified",
		warps, k.ctas, warps * a.iters, a.nslots);
	return 0;
}

/* ==== barrier: a sense-reversing barrier across the grid ==================================== */

/*
 * Every warp of every CTA owns a 128 B slot (32 uint32) in each of two buffers. Round r: each
 * warp writes generation r + 1 into its slot of buffer r % 2, fences (release), CTA barrier;
 * warp 0 crosses the grid barrier; CTA barrier; each warp fences (acquire) and reads the same
 * warp's slot of the next CTA, checks it and adds it to a checksum. Two buffers: a CTA may
 * overwrite buffer r % 2 (in round r + 2) only after every CTA has passed the barrier of round
 * r + 1, so after its neighbour has read round r.
 */
struct barrier_args {
	uint64_t slots; /* 2 buffers of ctas * warps_per_cta slots of 32 uint32 */
	uint64_t count; /* uint32, own line: CTAs arrived in this round */
	uint64_t sense; /* uint32, own line: flips when the last CTA arrives */
	uint64_t out;	/* uint64 per warp: checksum of what it read */
	uint64_t seed;
	unsigned rounds;
};

static uint64_t barrier_slot(const struct barrier_args *a, const struct gpu_warp *w, unsigned round,
			     uint64_t slot)
{
	uint64_t per_buffer = wl_grid_warps(w) * LINE_BYTES;

	return a->slots + (round % 2) * per_buffer + slot * LINE_BYTES;
}

static void barrier_write_slot(struct gpu_warp *w, const struct barrier_args *a, unsigned r)
{
	uint64_t slot = gw_gwid(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	wl_lane_addrs(addr, barrier_slot(a, w, r, slot), 0, WARP_LANES, 4);
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = wl_value32(a->seed, slot, r + 1, l);
	gw_st32v(w, addr, LANES_ALL, v);
}

static void barrier_livelock(struct gpu_warp *w, const struct barrier_args *a, unsigned r,
			     uint32_t sense, uint32_t seen, uint64_t spins)
{
	uint32_t at_l2 = wl_atomic_read32(w, a->sense);
	uint32_t arrived = wl_atomic_read32(w, a->count);

	if (at_l2 == sense)
		gw_fail(w,
			"barrier: livelock in round %u: CTA %u (SM %u) spun %" PRIu64
			" times on the sense flag with plain loads and kept reading %" PRIu32
			" while the flag at the L2 is %" PRIu32
			" (an L1 without coherence keeps serving its old copy)",
			r, gw_cta(w), gw_sm(w), spins, seen, at_l2);
	else
		gw_fail(w,
			"barrier: livelock in round %u: CTA %u (SM %u) spun %" PRIu64
			" times on the sense flag; %" PRIu32 " of %u CTAs have arrived (are all "
			"CTAs resident?)",
			r, gw_cta(w), gw_sm(w), spins, arrived, gw_ctas(w));
}

/* Warp 0 of each CTA: arrive with an atomic add at the L2; the last CTA resets the count and
 * publishes the new sense with a release; the others spin on the sense with plain loads.
 * Returns 0, or -1 after a livelock report. */
static int barrier_grid(struct gpu_warp *w, const struct barrier_args *a, unsigned r,
			uint32_t sense)
{
	uint64_t spins = 0;
	uint32_t seen;

	if (gw_atom(w, MEM_ATOM_ADD, a->count, 4, 1, 0, MEM_SCOPE_DEVICE, MEM_ORDER_ACQ_REL) ==
	    gw_ctas(w) - 1) {
		gw_atom(w, MEM_ATOM_EXCH, a->count, 4, 0, 0, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
		gw_atom(w, MEM_ATOM_EXCH, a->sense, 4, sense, 0, MEM_SCOPE_DEVICE,
			MEM_ORDER_RELEASE);
		return 0;
	}
	while ((seen = gw_ld32(w, a->sense)) != sense) {
		if (gw_spin_guard(w, &spins)) {
			barrier_livelock(w, a, r, sense, seen, spins);
			return -1;
		}
	}
	return 0;
}

static void barrier_report(struct gpu_warp *w, const struct barrier_args *a, unsigned r,
			   uint64_t slot, unsigned lane, uint32_t got)
{
	uint32_t want = wl_value32(a->seed, slot, r + 1, lane);
	long gen = older_generation(a->seed, slot, lane, r + 1, got);
	char what[48];

	if (gen < 0) {
		gw_fail(
		    w,
		    "barrier: round %u: CTA %u warp %u (SM %u) read wrong data from CTA %" PRIu64
		    ": slot word %u=%" PRIu32 " expected %" PRIu32 ", a value never written there",
		    r, gw_cta(w), gw_warp(w), gw_sm(w), slot / gw_warps_per_cta(w), lane, got,
		    want);
		return;
	}
	describe_generation(what, sizeof(what), gen);
	gw_fail(w,
		"barrier: round %u: CTA %u warp %u (SM %u) read stale data from CTA %" PRIu64
		": slot word %u=%" PRIu32 " expected %" PRIu32
		", it is %s (an L1 without coherence kept the old copy)",
		r, gw_cta(w), gw_warp(w), gw_sm(w), slot / gw_warps_per_cta(w), lane, got, want,
		what);
}

/* Reads the same warp's slot of the next CTA, checks it, adds it to *sum: 0 or -1. */
static int barrier_read_neighbour(struct gpu_warp *w, const struct barrier_args *a, unsigned r,
				  uint64_t *sum)
{
	uint64_t cta = (gw_cta(w) + 1) % gw_ctas(w);
	uint64_t slot = cta * gw_warps_per_cta(w) + gw_warp(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES];

	wl_lane_addrs(addr, barrier_slot(a, w, r, slot), 0, WARP_LANES, 4);
	gw_ld32v(w, addr, LANES_ALL, v);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		if (v[l] != wl_value32(a->seed, slot, r + 1, l)) {
			barrier_report(w, a, r, slot, l, v[l]);
			return -1;
		}
		*sum += v[l];
	}
	return 0;
}

static void barrier_kernel(struct gpu_warp *w)
{
	const struct barrier_args *a = gw_args(w);
	uint32_t sense = 0;
	uint64_t sum = 0;

	for (unsigned r = 0; r < a->rounds; r++) {
		barrier_write_slot(w, a, r);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE);
		gw_barrier(w);
		sense ^= 1;
		if (gw_warp(w) == 0 && barrier_grid(w, a, r, sense) != 0)
			return;
		gw_barrier(w);
		gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
		if (barrier_read_neighbour(w, a, r, &sum) != 0)
			return;
	}
	gw_st64(w, a->out + 8 * gw_gwid(w), sum);
}

static uint32_t barrier_initial(const void *args, uint64_t i)
{
	const struct barrier_args *a = args;

	return wl_value32(a->seed, i / WARP_LANES, 0, i % WARP_LANES);
}

/* The checksum warp `wid` of a grid of ctas x wpc warps must have. */
static uint64_t barrier_checksum(const struct barrier_args *a, unsigned ctas, unsigned wpc,
				 uint64_t wid)
{
	uint64_t slot = ((wid / wpc + 1) % ctas) * wpc + wid % wpc;
	uint64_t sum = 0;

	for (unsigned r = 0; r < a->rounds; r++)
		for (unsigned l = 0; l < WARP_LANES; l++)
			sum += wl_value32(a->seed, slot, r + 1, l);
	return sum;
}

int micro_barrier_main(struct gpu_host *h)
{
	struct barrier_args a = {.seed = gh_seed(h) ^ TAG_BARRIER};
	struct gpu_kernel k = {
	    .name = "barrier", .warps_per_cta = 4, .fn = barrier_kernel, .args = &a};
	uint64_t warps, slots;
	int err;

	/* Exactly the CTAs that can be resident together: one more and the barrier deadlocks. */
	k.ctas = wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	warps = (uint64_t)k.ctas * k.warps_per_cta;
	slots = 2 * warps * WARP_LANES;
	a.rounds = (unsigned)wl_by_size(h, 2, 32, 512);
	a.slots = gh_alloc(h, slots * 4, 0);
	a.count = gh_alloc(h, LINE_BYTES, 0);
	a.sense = gh_alloc(h, LINE_BYTES, 0);
	a.out = gh_alloc(h, warps * 8, 0);
	err = wl_fill32(h, a.slots, slots / 2, barrier_initial, &a);
	if (!err)
		err = wl_fill32(h, a.slots + slots / 2 * 4, slots / 2, barrier_initial, &a);
	if (!err)
		err = gh_launch(h, &k);
	if (err)
		return err;
	for (uint64_t wid = 0; wid < warps; wid++) {
		uint64_t got, want = barrier_checksum(&a, k.ctas, k.warps_per_cta, wid);

		gh_read(h, a.out + 8 * wid, &got, sizeof(got));
		if (got != want)
			return gh_fail(h,
				       "barrier: CTA %" PRIu64 " warp %" PRIu64 " checksum %" PRIu64
				       " expected %" PRIu64 " (a neighbour's slot read stale or "
				       "before it was written)",
				       wid / k.warps_per_cta, wid % k.warps_per_cta, got, want);
	}
	gh_note(h,
		"barrier: %u CTAs x %u warps (every SM full), %u rounds, every neighbour read and "
		"%" PRIu64 " checksums verified",
		k.ctas, k.warps_per_cta, a.rounds, warps);
	return 0;
}

/* ==== histo: histogram with per-lane atomics at the L2 ====================================== */

struct histo_args {
	uint64_t in;   /* n uint32 */
	uint64_t bins; /* nbins uint32 */
	uint64_t n;
	unsigned nbins;
};

#define HISTO_BINS 256
#define HISTO_HOT  8 /* a quarter of the values fall in bins 0..7 */

static void histo_kernel(struct gpu_warp *w)
{
	const struct histo_args *a = gw_args(w);
	uint64_t stride = wl_grid_warps(w) * WARP_LANES;
	uint64_t addr[WARP_LANES], one[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};

	for (unsigned l = 0; l < WARP_LANES; l++)
		one[l] = 1;
	for (uint64_t i = gw_gwid(w) * WARP_LANES; i < a->n; i += stride) {
		uint32_t mask = wl_lane_addrs(addr, a->in, i, a->n, 4);

		gw_ld32v(w, addr, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->bins + 4ull * (v[l] % a->nbins);
		gw_atomv(w, MEM_ATOM_ADD, addr, mask, 4, one, NULL, NULL, MEM_SCOPE_DEVICE,
			 MEM_ORDER_RELAXED);
	}
}

/* Random values; one in four is moved into one of the HISTO_HOT hot bins. */
static uint32_t histo_value(const void *seed, uint64_t i)
{
	uint64_t r = wl_mix64(*(const uint64_t *)seed ^ wl_mix64(i + 0x9e3779b97f4a7c15ull));
	uint32_t v = (uint32_t)(r >> 32);

	if ((r & 3) == 0)
		v = v - v % HISTO_BINS + (uint32_t)((r >> 2) % HISTO_HOT);
	return v;
}

int micro_histo_main(struct gpu_host *h)
{
	struct histo_args a = {.n = wl_by_size(h, 32 * KIB, 2 * MIB, 16 * MIB),
			       .nbins = HISTO_BINS};
	struct gpu_kernel k = {.name = "histo", .warps_per_cta = 8, .fn = histo_kernel, .args = &a};
	uint64_t seed = gh_seed(h) ^ TAG_HISTO;
	uint32_t want[HISTO_BINS] = {0}, got[HISTO_BINS];
	uint64_t sum = 0;
	int err;

	k.ctas = wl_resident_ctas(h, &k);
	if (k.ctas == 0)
		return gh_no_fit(h, &k);
	a.in = gh_alloc(h, a.n * 4, 0);
	a.bins = gh_alloc(h, 4 * HISTO_BINS, 0);
	err = wl_fill32(h, a.in, a.n, histo_value, &seed);
	if (!err)
		err = gh_launch(h, &k);
	if (err)
		return err;
	for (uint64_t i = 0; i < a.n; i++)
		want[histo_value(&seed, i) % HISTO_BINS]++;
	gh_read(h, a.bins, got, sizeof(got));
	for (unsigned b = 0; b < HISTO_BINS; b++)
		sum += got[b];
	for (unsigned b = 0; b < HISTO_BINS; b++)
		if (got[b] != want[b])
			return gh_fail(h,
				       "histo: bin %u=%" PRIu32 " expected %" PRIu32
				       "; the bins hold %" PRIu64 " of %" PRIu64 " atomic adds",
				       b, got[b], want[b], sum, a.n);
	gh_note(h,
		"histo: %" PRIu64 " values into %u bins (a quarter in %u hot bins), %u CTAs x %u "
		"warps, every bin verified",
		a.n, HISTO_BINS, HISTO_HOT, k.ctas, k.warps_per_cta);
	return 0;
}
