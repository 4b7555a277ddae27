/*
 * workloads/hetero.c - CPU + GPU workloads of system apu (hetero.h).
 *
 * Every CPU thread runs on a simulated core under x86-TSO; its thread 0 launches the GPU kernel
 * (ct_launch) and waits for it (ct_gpu_wait). GPU warps synchronise with the CPU at system
 * scope: a system-scope atomic (SLC: performed at the directory, seen by and invalidating the
 * CPU's caches through the directory's probes) for flags and bins, a system-scope acquire fence
 * before reading what the CPU wrote (the TCP and the TCC drop their clean lines), a
 * system-scope release fence after writing what the CPU will read (the write-throughs are
 * acknowledged by the directory). Inputs come from the seed (wl_value32), and every output is
 * checked, by the threads as they go and by the host at the end.
 */
#include "workloads/hetero.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/hetero_util.h"
#include "workloads/wl_util.h"

#define LINE	     64 /* the APU's line */
#define TAG_PRODCONS 0x6870726f64636f6eull
#define TAG_HISTO    0x68686973746f0000ull
#define TAG_DMA	     0x68646d6100000000ull

/* ==== hetero_prodcons ========================================================================= */

/*
 * Channel c joins CPU thread c (the producer) and GPU CTA c (one warp, the consumer). Round r
 * (1..rounds): the thread writes the 32 words of its block (generation r) and then the flag r
 * (TSO keeps the order); the warp spins on the flag at system scope, fences (acquire, system),
 * reads the block, writes out[i] = 3 * block[i] + r, fences (release, system) and sets ack = r
 * with a system-scope exchange; the thread waits for the ack and checks out[]. The warp also
 * keeps a running sum of everything it consumed, which the host checks.
 */
#define PC_WORDS WARP_LANES

struct pc_args {
	uint64_t block, flag, ack, out, sums; /* per channel: a 128-B block, lines, a 128-B out */
	uint64_t seed;
	unsigned channels, rounds;
	struct gpu_kernel kernel;
};

static uint64_t pc_line(uint64_t base, unsigned c)
{
	return base + (uint64_t)c * 2 * LINE;
}

static uint32_t pc_value(const struct pc_args *a, unsigned c, unsigned r, unsigned i)
{
	return wl_value32(a->seed ^ TAG_PRODCONS, c, r, i);
}

static void pc_gpu(struct gpu_warp *w)
{
	const struct pc_args *a = gw_args(w);
	unsigned c = gw_cta(w);
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES], o[WARP_LANES], sum = 0;

	for (unsigned r = 1; r <= a->rounds; r++) {
		/* per wait: the guard counts the work since its last call as a spin try */
		uint64_t spins = 0;

		while (hx_gpu_sys_read32(w, pc_line(a->flag, c)) < r)
			if (gw_spin_guard(w, &spins)) {
				gw_fail(w,
					"hetero_prodcons: GPU consumer %u livelocked in round %u",
					c, r);
				return;
			}
		gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_SYSTEM);
		wl_lane_addrs(addr, pc_line(a->block, c), 0, PC_WORDS, 4);
		gw_ld32v(w, addr, LANES_ALL, v);
		for (unsigned i = 0; i < PC_WORDS; i++) {
			if (v[i] != pc_value(a, c, r, i)) {
				gw_fail(w,
					"hetero_prodcons: GPU consumer %u round %u word %u: read "
					"%#" PRIx32 ", the CPU wrote %#" PRIx32 " (%s)",
					c, r, i, v[i], pc_value(a, c, r, i),
					r > 1 && v[i] == pc_value(a, c, r - 1, i)
					    ? "the previous round's: a stale copy"
					    : "never written");
				return;
			}
			o[i] = 3 * v[i] + r;
			sum += v[i];
		}
		wl_lane_addrs(addr, pc_line(a->out, c), 0, PC_WORDS, 4);
		gw_st32v(w, addr, LANES_ALL, o);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_SYSTEM);
		(void)gw_atom(w, MEM_ATOM_EXCH, pc_line(a->ack, c), 4, r, 0, MEM_SCOPE_SYSTEM,
			      MEM_ORDER_RELEASE);
	}
	gw_st32(w, pc_line(a->sums, c), sum);
	gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_SYSTEM);
}

static void pc_cpu(struct cpu_thread *t)
{
	const struct pc_args *a = ct_args(t);
	unsigned c = ct_id(t);

	if (c == 0)
		ct_launch(t, &a->kernel);
	for (unsigned r = 1; r <= a->rounds; r++) {
		for (unsigned i = 0; i < PC_WORDS; i++)
			ct_st(t, pc_line(a->block, c) + 4 * i, 4, pc_value(a, c, r, i));
		ct_st(t, pc_line(a->flag, c), 4, r);
		if (!hx_cpu_wait_at_least(t, pc_line(a->ack, c), r, "hetero_prodcons"))
			return;
		for (unsigned i = 0; i < PC_WORDS; i++) {
			uint32_t got = (uint32_t)ct_ld(t, pc_line(a->out, c) + 4 * i, 4);
			uint32_t want = 3 * pc_value(a, c, r, i) + r;

			if (got != want) {
				ct_fail(t,
					"hetero_prodcons: CPU thread %u round %u word %u: read "
					"%#" PRIx32 " the GPU wrote %#" PRIx32 " (%s)",
					c, r, i, got, want,
					r > 1 && got == 3 * pc_value(a, c, r - 1, i) + r - 1
					    ? "the previous round's: a stale copy"
					    : "never written");
				return;
			}
		}
	}
	if (c == 0)
		ct_gpu_wait(t);
}

int hetero_prodcons_main(struct cpu_host *h)
{
	struct pc_args a = {.seed = ch_seed(h),
			    .channels = ch_cores(h),
			    .rounds = (unsigned)wl_size_pick(ch_size(h), 4, 16, 64)};
	struct cpu_program p = {
	    .name = "prodcons", .threads = a.channels, .fn = pc_cpu, .args = &a};
	uint64_t bytes = (uint64_t)a.channels * 2 * LINE;
	int rc;

	a.block = ch_alloc(h, bytes, LINE);
	a.flag = ch_alloc(h, bytes, LINE);
	a.ack = ch_alloc(h, bytes, LINE);
	a.out = ch_alloc(h, bytes, LINE);
	a.sums = ch_alloc(h, bytes, LINE);
	a.kernel = (struct gpu_kernel){
	    .name = "consume", .ctas = a.channels, .warps_per_cta = 1, .fn = pc_gpu, .args = &a};
	rc = ch_run(h, &p);
	if (rc)
		return rc;
	for (unsigned c = 0; c < a.channels; c++) {
		uint32_t want = 0, got = ch_read32(h, pc_line(a.sums, c));

		for (unsigned r = 1; r <= a.rounds; r++)
			for (unsigned i = 0; i < PC_WORDS; i++)
				want += pc_value(&a, c, r, i);
		if (got != want)
			return ch_fail(h,
				       "hetero_prodcons: GPU consumer %u summed %#" PRIx32
				       ", the CPU produced %#" PRIx32,
				       c, got, want);
	}
	ch_note(h,
		"hetero_prodcons (%s): %u CPU producers -> %u GPU consumers, %u rounds of %u "
		"words each way, verified",
		wl_size_str(ch_size(h)), a.channels, a.channels, a.rounds, PC_WORDS);
	return 0;
}

/* ==== hetero_histo ============================================================================ */

/*
 * n seeded elements, each a bin index below BINS. The CPU threads take the first half (an x86
 * locked add per element), the GPU's warps the second half (a per-lane system-scope atomic add,
 * performed at the directory), on the same 4-byte bins at the same time. The host compares the
 * bins with its own count.
 */
#define HISTO_BINS 64

struct histo_args {
	uint64_t bins, seed;
	uint64_t n, cpu_n; /* elements; the first cpu_n are the CPU's */
	struct gpu_kernel kernel;
};

static unsigned histo_bin(const struct histo_args *a, uint64_t i)
{
	return wl_value32(a->seed ^ TAG_HISTO, 0, 0, i) % HISTO_BINS;
}

static void histo_gpu(struct gpu_warp *w)
{
	const struct histo_args *a = gw_args(w);
	uint64_t warps = wl_grid_warps(w), gpu_n = a->n - a->cpu_n;
	uint64_t addr[WARP_LANES], one[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		one[l] = 1;
	for (uint64_t first = gw_gwid(w) * WARP_LANES; first < gpu_n; first += warps * WARP_LANES) {
		uint32_t mask = 0;

		for (unsigned l = 0; l < WARP_LANES; l++)
			if (first + l < gpu_n) {
				addr[l] = a->bins + 4 * histo_bin(a, a->cpu_n + first + l);
				mask |= 1u << l;
			}
		gw_atomv(w, MEM_ATOM_ADD, addr, mask, 4, one, NULL, NULL, MEM_SCOPE_SYSTEM,
			 MEM_ORDER_RELAXED);
	}
}

static void histo_cpu(struct cpu_thread *t)
{
	const struct histo_args *a = ct_args(t);
	uint64_t per = (a->cpu_n + ct_threads(t) - 1) / ct_threads(t);
	uint64_t lo = per * ct_id(t), hi = lo + per < a->cpu_n ? lo + per : a->cpu_n;

	if (ct_id(t) == 0)
		ct_launch(t, &a->kernel);
	for (uint64_t i = lo; i < hi; i++)
		(void)ct_atomic(t, MEM_ATOM_ADD, a->bins + 4 * histo_bin(a, i), 4, 1, 0);
	if (ct_id(t) == 0)
		ct_gpu_wait(t);
}

int hetero_histo_main(struct cpu_host *h)
{
	struct histo_args a = {.seed = ch_seed(h),
			       .n = wl_size_pick(ch_size(h), 2048, 16384, 65536)};
	struct cpu_program p = {
	    .name = "histo", .threads = ch_cores(h), .fn = histo_cpu, .args = &a};
	uint32_t want[HISTO_BINS] = {0}, got[HISTO_BINS];
	int rc;

	a.cpu_n = a.n / 2;
	a.bins = ch_alloc(h, 4 * HISTO_BINS, LINE);
	a.kernel = (struct gpu_kernel){
	    .name = "histo", .ctas = 16, .warps_per_cta = 4, .fn = histo_gpu, .args = &a};
	rc = ch_run(h, &p);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < a.n; i++)
		want[histo_bin(&a, i)]++;
	ch_read(h, a.bins, got, sizeof(got));
	for (unsigned b = 0; b < HISTO_BINS; b++)
		if (got[b] != want[b])
			return ch_fail(h,
				       "hetero_histo: bin %u holds %" PRIu32 ", expected %" PRIu32
				       " (an update of the CPU or the GPU was lost)",
				       b, got[b], want[b]);
	ch_note(h,
		"hetero_histo (%s): %" PRIu64 " CPU + %" PRIu64
		" GPU atomic adds on %d shared bins, verified",
		wl_size_str(ch_size(h)), a.cpu_n, a.n - a.cpu_n, HISTO_BINS);
	return 0;
}

/* ==== hetero_dma ============================================================================== */

/*
 * The CPU threads write src (their lines stay dirty in the CorePairs); thread 0 copies src to
 * dst by DMA (each DMARd must fetch the dirty line through a probe) and launches a kernel that
 * reads dst and writes out[i] = dst[i] ^ MASK with a per-warp sum in sums[]; thread 0 reads
 * back[] (the CorePairs now hold its zeros), copies out to back by DMA (each DMAWr must
 * invalidate those copies), and every thread checks its slice of back[].
 */
#define DMA_MASK 0x5a5a5a5au

struct dma_args {
	uint64_t src, dst, out, back, sums, count;
	uint64_t seed, words;
	struct gpu_kernel kernel;
};

static uint32_t dma_value(const struct dma_args *a, uint64_t i)
{
	return wl_value32(a->seed ^ TAG_DMA, 0, 0, i);
}

static void dma_gpu(struct gpu_warp *w)
{
	const struct dma_args *a = gw_args(w);
	uint64_t warps = wl_grid_warps(w), addr[WARP_LANES];
	uint32_t v[WARP_LANES], o[WARP_LANES], sum = 0;

	for (uint64_t first = gw_gwid(w) * WARP_LANES; first < a->words;
	     first += warps * WARP_LANES) {
		uint32_t mask = wl_lane_addrs(addr, a->dst, first, a->words, 4);

		gw_ld32v(w, addr, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1) {
				o[l] = v[l] ^ DMA_MASK;
				sum += v[l];
			}
		wl_lane_addrs(addr, a->out, first, a->words, 4);
		gw_st32v(w, addr, mask, o);
	}
	gw_st32(w, a->sums + 4 * gw_gwid(w), sum);
}

static void dma_cpu(struct cpu_thread *t)
{
	const struct dma_args *a = ct_args(t);
	uint64_t per = (a->words + ct_threads(t) - 1) / ct_threads(t);
	uint64_t lo = per * ct_id(t), hi = lo + per < a->words ? lo + per : a->words;

	for (uint64_t i = lo; i < hi; i++)
		ct_st(t, a->src + 4 * i, 4, dma_value(a, i));
	if (!hx_cpu_barrier(t, a->count, 1, "hetero_dma"))
		return;
	if (ct_id(t) == 0) {
		ct_dma_copy(t, a->dst, a->src, 4 * a->words);
		ct_launch(t, &a->kernel);
		for (uint64_t i = 0; i < a->words; i += LINE / 4)
			(void)ct_ld(t, a->back + 4 * i, 4);
		ct_gpu_wait(t);
		ct_dma_copy(t, a->back, a->out, 4 * a->words);
	}
	if (!hx_cpu_barrier(t, a->count, 2, "hetero_dma"))
		return;
	for (uint64_t i = lo; i < hi; i++) {
		uint32_t got = (uint32_t)ct_ld(t, a->back + 4 * i, 4);

		if (got != (dma_value(a, i) ^ DMA_MASK)) {
			ct_fail(t,
				"hetero_dma: CPU thread %u word %" PRIu64 " of the copy back: read "
				"%#" PRIx32 ", expected %#" PRIx32 "%s",
				ct_id(t), i, got, dma_value(a, i) ^ DMA_MASK,
				got == 0 ? " (a stale copy the DMA write did not invalidate)" : "");
			return;
		}
	}
}

int hetero_dma_main(struct cpu_host *h)
{
	struct dma_args a = {.seed = ch_seed(h),
			     .words = wl_size_pick(ch_size(h), 1024, 8192, 65536)};
	struct cpu_program p = {.name = "dma", .threads = ch_cores(h), .fn = dma_cpu, .args = &a};
	uint64_t bytes;
	uint32_t *sums;
	uint32_t total = 0, want = 0;
	unsigned warps;
	int rc;

	a.kernel = (struct gpu_kernel){
	    .name = "xor", .ctas = 8, .warps_per_cta = 4, .fn = dma_gpu, .args = &a};
	warps = a.kernel.ctas * a.kernel.warps_per_cta;
	bytes = 4 * a.words;
	a.src = ch_alloc(h, bytes, LINE);
	a.dst = ch_alloc(h, bytes, LINE);
	a.out = ch_alloc(h, bytes, LINE);
	a.back = ch_alloc(h, bytes, LINE);
	a.sums = ch_alloc(h, 4 * (uint64_t)warps, LINE);
	a.count = ch_alloc(h, LINE, LINE);
	rc = ch_run(h, &p);
	if (rc)
		return rc;
	sums = calloc(warps, sizeof(*sums));
	if (!sums)
		return -CS_ENOMEM;
	ch_read(h, a.sums, sums, 4 * (size_t)warps);
	for (unsigned i = 0; i < warps; i++)
		total += sums[i];
	free(sums);
	for (uint64_t i = 0; i < a.words; i++)
		want += dma_value(&a, i);
	if (total != want)
		return ch_fail(h,
			       "hetero_dma: the GPU's sums of the copied words total %#" PRIx32
			       ", the CPU wrote %#" PRIx32 " (the DMA read missed dirty lines)",
			       total, want);
	ch_note(h,
		"hetero_dma (%s): %" PRIu64
		" B CPU -> DMA -> GPU -> DMA -> CPU (DMARd of dirty lines, DMAWr over cached "
		"copies), verified",
		wl_size_str(ch_size(h)), bytes);
	return 0;
}
