/* workloads/wl_util.c - helpers shared by the GPU workloads (see wl_util.h). */
#include "workloads/wl_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"
#include "util/mix.h"

#define CHUNK_WORDS 8192 /* host copies go through a buffer of this many uint32 */

/* ---- deterministic values (splitmix64) ------------------------------------------------------ */

uint64_t wl_mix64(uint64_t z)
{
	return cs_mix64(z);
}

uint64_t wl_splitmix64(uint64_t *state)
{
	return cs_splitmix64(state);
}

uint32_t wl_value32(uint64_t seed, uint64_t id, uint64_t gen, uint64_t idx)
{
	uint64_t z = wl_mix64(seed + 0x9e3779b97f4a7c15ull);

	z = wl_mix64(z ^ (id + 0x9e3779b97f4a7c15ull));
	z = wl_mix64(z ^ (gen + 0x632be59bd9b4e019ull));
	return (uint32_t)wl_mix64(z ^ (idx + 0x85157af5ull));
}

double wl_unit(uint64_t seed, uint64_t id, uint64_t idx)
{
	uint64_t z = wl_mix64(seed + 0x9e3779b97f4a7c15ull);

	z = wl_mix64(z ^ (id + 0x632be59bd9b4e019ull));
	z = wl_mix64(z ^ (idx + 0x85157af5ull));
	return (double)(z >> 11) * 0x1.0p-53;
}

uint64_t wl_below(uint64_t *state, uint64_t n)
{
	return wl_splitmix64(state) % n;
}

/* ---- sizes ---------------------------------------------------------------------------------- */

uint64_t wl_by_size(const struct gpu_host *h, uint64_t tiny, uint64_t small, uint64_t dflt)
{
	return wl_size_pick(gh_size(h), tiny, small, dflt);
}

uint64_t wl_size_pick(enum gpu_size size, uint64_t tiny, uint64_t small, uint64_t dflt)
{
	switch (size) {
	case GPU_SIZE_TINY:
		return tiny;
	case GPU_SIZE_SMALL:
		return small;
	default:
		return dflt;
	}
}

void wl_sample_start(struct wl_sample *s, uint64_t n, uint64_t samples, uint64_t seed, uint64_t tag)
{
	s->left = n;
	s->want = samples < n ? samples : n;
	s->rng = wl_mix64(seed ^ tag);
}

void wl_sample_init(const struct gpu_host *h, struct wl_sample *s, uint64_t n, uint64_t tag)
{
	wl_sample_start(s, n, gh_check_samples(h), gh_seed(h), tag);
}

bool wl_sample_take(struct wl_sample *s)
{
	bool take;

	if (!s->left)
		return false;
	/* take with probability want / left: exactly `want` of the `left` remaining are taken */
	take = s->want == s->left || (s->want && wl_below(&s->rng, s->left) < s->want);
	s->left--;
	if (take)
		s->want--;
	return take;
}

const char *wl_size_name(const struct gpu_host *h)
{
	return wl_size_str(gh_size(h));
}

const char *wl_size_str(enum gpu_size size)
{
	static const char *const names[] = {"tiny", "small", "default", "full"};

	return names[size <= GPU_SIZE_FULL ? size : GPU_SIZE_DEFAULT];
}

/* ---- warp side ------------------------------------------------------------------------------ */

uint32_t wl_lane_addrs(uint64_t addr[WARP_LANES], uint64_t base, uint64_t first, uint64_t n,
		       unsigned bytes)
{
	uint32_t mask = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		addr[l] = base + (first + l) * bytes;
		if (first + l < n)
			mask |= 1u << l;
	}
	return mask;
}

uint32_t wl_atomic_read32(struct gpu_warp *w, uint64_t addr)
{
	return (uint32_t)gw_atom(w, MEM_ATOM_ADD, addr, 4, 0, 0, MEM_SCOPE_DEVICE,
				 MEM_ORDER_RELAXED);
}

uint64_t wl_grid_warps(const struct gpu_warp *w)
{
	return (uint64_t)gw_ctas(w) * gw_warps_per_cta(w);
}

int wl_spin_until_eq(struct gpu_warp *w, uint64_t addr, uint32_t want, const char *who,
		     const char *what)
{
	uint64_t spins = 0;
	uint32_t seen;

	while ((seen = gw_ld32(w, addr)) != want) {
		uint32_t at_l2;

		if (!gw_spin_guard(w, &spins))
			continue;
		at_l2 = wl_atomic_read32(w, addr);
		if (at_l2 == want)
			gw_fail(w,
				"%s: livelock: CTA %u warp %u (SM %u) spun %" PRIu64
				" times on %s with plain loads and kept reading %" PRIu32
				" while the L2 holds %" PRIu32
				" (an L1 without coherence keeps serving its old copy)",
				who, gw_cta(w), gw_warp(w), gw_sm(w), spins, what, seen, at_l2);
		else
			gw_fail(w,
				"%s: livelock: CTA %u warp %u (SM %u) spun %" PRIu64
				" times on %s waiting for %" PRIu32 "; the L2 holds %" PRIu32,
				who, gw_cta(w), gw_warp(w), gw_sm(w), spins, what, want, at_l2);
		return -1;
	}
	return 0;
}

int wl_grid_barrier_init(struct gpu_host *h, struct wl_grid_barrier *b, const char *who)
{
	b->count = gh_alloc(h, WL_LINE_BYTES, WL_LINE_BYTES);
	b->gen = gh_alloc(h, WL_LINE_BYTES, WL_LINE_BYTES);
	b->who = who;
	gh_write32(h, b->count, 0);
	gh_write32(h, b->gen, 0);
	return 0;
}

int wl_grid_sync(struct gpu_warp *w, const struct wl_grid_barrier *b, unsigned round)
{
	int err = 0;

	gw_barrier(w);
	if (gw_warp(w) == 0) {
		uint32_t want = round + 1;

		if (gw_atom(w, MEM_ATOM_ADD, b->count, 4, 1, 0, MEM_SCOPE_DEVICE,
			    MEM_ORDER_ACQ_REL) == gw_ctas(w) - 1) {
			gw_atom(w, MEM_ATOM_EXCH, b->count, 4, 0, 0, MEM_SCOPE_DEVICE,
				MEM_ORDER_RELAXED);
			gw_atom(w, MEM_ATOM_EXCH, b->gen, 4, want, 0, MEM_SCOPE_DEVICE,
				MEM_ORDER_RELEASE);
		} else {
			char what[64];

			snprintf(what, sizeof(what), "the grid barrier of round %u", round);
			err = wl_spin_until_eq(w, b->gen, want, b->who, what);
		}
	}
	gw_barrier(w);
	gw_fence(w, MEM_ORDER_ACQUIRE, MEM_SCOPE_DEVICE);
	return err;
}

/* ---- host side ------------------------------------------------------------------------------ */

unsigned wl_resident_ctas(struct gpu_host *h, const struct gpu_kernel *k)
{
	return gh_sms(h) * gh_max_ctas_per_sm(h, k);
}

uint64_t wl_upload(struct gpu_host *h, const void *buf, size_t bytes)
{
	uint64_t a = gh_alloc(h, bytes, WL_LINE_BYTES);

	gh_write(h, a, buf, bytes);
	return a;
}

uint64_t wl_alloc_zero(struct gpu_host *h, size_t bytes)
{
	return gh_alloc(h, bytes, WL_LINE_BYTES);
}

int wl_fill32(struct gpu_host *h, uint64_t base, uint64_t n, wl_gen32_fn gen, const void *ctx)
{
	uint32_t *buf = malloc(CHUNK_WORDS * sizeof(*buf));

	if (!buf)
		return -CS_ENOMEM;
	for (uint64_t i = 0; i < n; i += CHUNK_WORDS) {
		uint64_t len = n - i < CHUNK_WORDS ? n - i : CHUNK_WORDS;

		for (uint64_t j = 0; j < len; j++)
			buf[j] = gen(ctx, i + j);
		gh_write(h, base + i * 4, buf, len * 4);
	}
	free(buf);
	return 0;
}

int wl_check32(struct gpu_host *h, uint64_t base, uint64_t n, wl_gen32_fn gen, const void *ctx,
	       struct wl_mismatch *m)
{
	uint32_t *buf = malloc(CHUNK_WORDS * sizeof(*buf));

	*m = (struct wl_mismatch){0};
	if (!buf)
		return -CS_ENOMEM;
	for (uint64_t i = 0; i < n; i += CHUNK_WORDS) {
		uint64_t len = n - i < CHUNK_WORDS ? n - i : CHUNK_WORDS;

		gh_read(h, base + i * 4, buf, len * 4);
		for (uint64_t j = 0; j < len; j++) {
			uint32_t want = gen(ctx, i + j);

			if (buf[j] == want)
				continue;
			if (m->count++ == 0) {
				m->first = i + j;
				m->got = buf[j];
				m->want = want;
			}
		}
	}
	free(buf);
	return 0;
}

uint64_t wl_check_float(struct gpu_host *h, uint64_t base, const float *want, uint64_t n,
			double abs_tol, double rel_tol, uint64_t *first, float *got)
{
	float buf[CHUNK_WORDS];
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i += CHUNK_WORDS) {
		uint64_t len = n - i < CHUNK_WORDS ? n - i : CHUNK_WORDS;

		gh_read(h, base + i * 4, buf, len * 4);
		for (uint64_t j = 0; j < len; j++) {
			double d = fabs((double)buf[j] - (double)want[i + j]);

			if (d <= abs_tol + rel_tol * fabs((double)want[i + j]) && !isnan(buf[j]))
				continue;
			if (bad++ == 0) {
				*first = i + j;
				*got = buf[j];
			}
		}
	}
	return bad;
}
