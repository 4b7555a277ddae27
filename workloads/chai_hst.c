/*
 * workloads/chai_hst.c - what chai_hsti and chai_hsto share (chai.h): the seeded image that
 * stands for CHAI's input file, its set-up in memory with the host's counts, and the check.
 *
 * CHAI reads 16-bit pixels of a natural image (van Hateren), clipped to 4095. Here pixel i is
 * the mean of four 12-bit fields of one seeded 64-bit value: 0..4095, bell-shaped around 2048
 * as a natural image's histogram is peaked, so a few middle bins are hot and the edge bins
 * nearly empty.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "workloads/chai.h"
#include "workloads/wl_util.h"

#define HST_LINE 64
#define HST_TAG	 0x6368616968737400ull
#define HST_STEP 4096 /* pixels written per ch_write */

uint32_t chai_hst_pixel(uint64_t seed, uint64_t i)
{
	uint64_t z = wl_mix64((seed ^ HST_TAG) + wl_mix64(i + 1));
	uint32_t s = 0;

	for (unsigned k = 0; k < 4; k++)
		s += (uint32_t)(z >> (12 * k)) & 0xfff;
	return s / 4;
}

int chai_hst_run(struct cpu_host *h, struct chai_hst *s, const struct cpu_program *p, unsigned ctas,
		 unsigned warps, void (*fn)(struct gpu_warp *w))
{
	uint32_t buf[HST_STEP], want[CHAI_HST_BINS] = {0}, got[CHAI_HST_BINS] = {0};
	uint64_t seed = ch_seed(h);
	int rc;

	s->image = ch_alloc(h, 4 * s->n, HST_LINE);
	s->histo = ch_alloc(h, sizeof(got), HST_LINE);
	s->local = ch_alloc(h, (uint64_t)p->threads * sizeof(got), HST_LINE);
	ch_write(h, s->histo, got, sizeof(got));
	for (uint64_t i = 0; i < s->n; i += HST_STEP) {
		uint64_t k = s->n - i < HST_STEP ? s->n - i : HST_STEP;

		for (uint64_t j = 0; j < k; j++) {
			buf[j] = chai_hst_pixel(seed, i + j);
			want[chai_hst_bin(buf[j])]++;
		}
		ch_write(h, s->image + 4 * i, buf, 4 * k);
	}
	s->kernel = (struct gpu_kernel){.name = "histogram",
					.ctas = ctas,
					.warps_per_cta = warps,
					.smem_bytes = sizeof(got),
					.fn = fn,
					.args = p->args};
	rc = ch_run(h, p);
	if (rc)
		return rc;
	ch_read(h, s->histo, got, sizeof(got));
	for (unsigned b = 0; b < CHAI_HST_BINS; b++)
		if (got[b] != want[b])
			return ch_fail(h,
				       "%s: bin %u holds %" PRIu32 ", expected %" PRIu32
				       " (an update of the CPU or the GPU was lost or doubled)",
				       p->name, b, got[b], want[b]);
	return 0;
}
