/*
 * workloads/chai_rsc.c - what chai_rscd and chai_rsct share (chai.h): CHAI's RANSAC on flow
 * vectors (first-order-flow ego-motion), its seeded input, the model and outlier test every
 * side computes with the same C functions (so the host reference is bit for bit the same), a
 * CPU thread's model step, a work-group's evaluation step and the host's check.
 *
 * Input (CHAI reads input/vectors.csv, 5922 vectors of a video frame, and draws the iteration's
 * two vectors with rand() seeded by the time of day): n vectors on a 1024 x 768 frame, 65% of
 * them moved by a seeded first-order-flow model (centre xc, yc; divergence D; rotation R) with
 * a seeded error of -1, 0 or 1 pixel, the others by a seeded displacement of up to 40 pixels each
 * way; the iteration's two vectors are seeded indices.
 *
 * Model (CHAI's gen_model_param, the same integer and float operations in the same order) and
 * test (an error of 3 or more pixels in x or y makes an outlier; a model is a candidate with
 * fewer outliers than 0.75 n). A product whose truncation to int would overflow (a near-
 * degenerate pair gives huge parameters; C leaves the conversion undefined) counts as an outlier.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/chai.h"
#include "workloads/wl_util.h"

#define RSC_LINE	64
#define RSC_WARPS	8 /* CHAI's 256 threads a work-group */
#define RSC_TAG		0x6368616972736300ull
#define RSC_ERROR	3     /* CHAI's error_threshold */
#define RSC_CONVERGENCE 0.75f /* CHAI's convergence_threshold */
#define RSC_WIDTH	1024
#define RSC_HEIGHT	768
#define RSC_INLIER_PCT	65
#define RSC_SPREAD	40

/* noinline: one compiled body for the workers and the reference, so no call site contracts or
 * reorders the float arithmetic differently */
__attribute__((noinline)) int chai_rsc_model(const struct chai_flow *a, const struct chai_flow *b,
					     float p[4])
{
	int x1 = a->x, y1 = a->y, vx1 = a->vx - a->x, vy1 = a->vy - a->y;
	int x2 = b->x, y2 = b->y, vx2 = b->vx - b->x, vy2 = b->vy - b->y;
	float den = (float)(vx1 * (vx1 - 2 * vx2) + vx2 * vx2 + vy1 * vy1 - vy2 * (2 * vy1 - vy2));

	if (den == 0)
		return 0;
	p[0] = (float)(vx1 * (-vx2 * x1 + vx1 * x2 - vx2 * x2 + vy2 * y1 - vy2 * y2) +
		       vy1 * (-vy2 * x1 + vy1 * x2 - vy2 * x2 - vx2 * y1 + vx2 * y2) +
		       x1 * (vy2 * vy2 + vx2 * vx2)) /
	       den;
	p[1] = (float)(vx2 * (vy1 * x1 - vy1 * x2 - vx1 * y1 + vx2 * y1 - vx1 * y2) +
		       vy2 * (-vx1 * x1 + vx1 * x2 - vy1 * y1 + vy2 * y1 - vy1 * y2) +
		       y2 * (vx1 * vx1 + vy1 * vy1)) /
	       den;
	den = (float)(x1 * (x1 - 2 * x2) + x2 * x2 + y1 * (y1 - 2 * y2) + y2 * y2);
	if (den == 0)
		return 0;
	p[2] = (float)((x1 - x2) * (vx1 - vx2) + (y1 - y2) * (vy1 - vy2)) / den;
	p[3] = (float)((x1 - x2) * (vy1 - vy2) + (y2 - y1) * (vx1 - vx2)) / den;
	return 1;
}

/* (int)f, or false when f is out of int's range (or not a number) */
static bool rsc_trunc(float f, int *out)
{
	if (!(fabsf(f) < 1073741824.0f))
		return false;
	*out = (int)f;
	return true;
}

__attribute__((noinline)) bool chai_rsc_outlier(const struct chai_flow *f, const float p[4])
{
	int a, b, c, d, ex, ey;

	if (!rsc_trunc((f->x - p[0]) * p[2], &a) || !rsc_trunc((f->y - p[1]) * p[3], &b) ||
	    !rsc_trunc((f->y - p[1]) * p[2], &c) || !rsc_trunc((f->x - p[0]) * p[3], &d))
		return true;
	ex = f->x + (a - b) - f->vx;
	ey = f->y + (c + d) - f->vy;
	return abs(ex) >= RSC_ERROR || abs(ey) >= RSC_ERROR;
}

bool chai_rsc_candidate(unsigned outliers, unsigned n)
{
	return (float)outliers < (float)n * RSC_CONVERGENCE;
}

/* ---- set-up and reference --------------------------------------------------------------------- */

static void rsc_input(struct chai_rsc *r)
{
	uint64_t s = wl_mix64(r->seed ^ RSC_TAG);
	float xc = 400 + (float)wl_below(&s, 224), yc = 300 + (float)wl_below(&s, 168);
	float d = 0.01f + 0.04f * (float)wl_below(&s, 1000) / 1000;
	float rot = -0.03f + 0.06f * (float)wl_below(&s, 1000) / 1000;

	for (unsigned i = 0; i < r->n; i++) {
		struct chai_flow *f = &r->h_flows[i];

		f->x = (int32_t)wl_below(&s, RSC_WIDTH);
		f->y = (int32_t)wl_below(&s, RSC_HEIGHT);
		if (wl_below(&s, 100) < RSC_INLIER_PCT) {
			f->vx = f->x + (int)((f->x - xc) * d) - (int)((f->y - yc) * rot) +
				(int32_t)wl_below(&s, 3) - 1;
			f->vy = f->y + (int)((f->y - yc) * d) + (int)((f->x - xc) * rot) +
				(int32_t)wl_below(&s, 3) - 1;
		} else {
			f->vx = f->x + (int32_t)wl_below(&s, 2 * RSC_SPREAD + 1) - RSC_SPREAD;
			f->vy = f->y + (int32_t)wl_below(&s, 2 * RSC_SPREAD + 1) - RSC_SPREAD;
		}
	}
	for (unsigned i = 0; i < 2 * r->iters; i++)
		r->h_rnd[i] = (uint32_t)wl_below(&s, r->n);
}

static void rsc_reference(struct chai_rsc *r)
{
	for (unsigned it = 0; it < r->iters; it++) {
		float p[4];
		int32_t c = 0;

		if (!chai_rsc_model(&r->h_flows[r->h_rnd[2 * it]],
				    &r->h_flows[r->h_rnd[2 * it + 1]], p)) {
			r->h_outliers[it] = -1;
			continue;
		}
		for (unsigned i = 0; i < r->n; i++)
			c += chai_rsc_outlier(&r->h_flows[i], p);
		r->h_outliers[it] = c;
	}
}

int chai_rsc_setup(struct cpu_host *h, struct chai_rsc *r, unsigned n, unsigned iters)
{
	r->n = n;
	r->iters = iters;
	r->seed = ch_seed(h);
	r->h_flows = calloc(n, sizeof(*r->h_flows));
	r->h_rnd = calloc(2 * (size_t)iters, sizeof(*r->h_rnd));
	r->h_outliers = calloc(iters, sizeof(*r->h_outliers));
	if (!r->h_flows || !r->h_rnd || !r->h_outliers) {
		chai_rsc_free(r);
		return -CS_ENOMEM;
	}
	rsc_input(r);
	rsc_reference(r);
	r->flows = ch_alloc(h, sizeof(struct chai_flow) * (uint64_t)n, RSC_LINE);
	r->rnd = ch_alloc(h, 8 * (uint64_t)iters, RSC_LINE);
	r->params = ch_alloc(h, 16 * (uint64_t)iters, RSC_LINE);
	r->cand_model = ch_alloc(h, 4 * (uint64_t)iters, RSC_LINE);
	r->cand_outliers = ch_alloc(h, 4 * (uint64_t)iters, RSC_LINE);
	r->out_id = ch_alloc(h, RSC_LINE, RSC_LINE);
	ch_write(h, r->flows, r->h_flows, sizeof(struct chai_flow) * (size_t)n);
	ch_write(h, r->rnd, r->h_rnd, 8 * (size_t)iters);
	return 0;
}

void chai_rsc_free(struct chai_rsc *r)
{
	free(r->h_flows);
	free(r->h_rnd);
	free(r->h_outliers);
	r->h_flows = NULL;
	r->h_rnd = NULL;
	r->h_outliers = NULL;
}

/* ---- the workers' steps ----------------------------------------------------------------------- */

bool chai_rsc_cpu_model(struct cpu_thread *t, const struct chai_rsc *r, unsigned it, float p[4])
{
	struct chai_flow f[2];
	uint64_t pa = r->params + 16 * (uint64_t)it;

	for (unsigned k = 0; k < 2; k++) {
		uint64_t at =
		    r->flows + sizeof(struct chai_flow) *
				   (uint64_t)ct_ld32(t, r->rnd + 4 * (2 * (uint64_t)it + k));

		f[k] = chai_rsc_flow(ct_ld64(t, at), ct_ld64(t, at + 8));
	}
	ct_compute(t, CHAI_RSC_MODEL_CYCLES);
	if (!chai_rsc_model(&f[0], &f[1], p)) {
		ct_st32(t, pa, wl_f2u(CHAI_RSC_DEGENERATE));
		return false;
	}
	for (unsigned k = 0; k < 4; k++)
		ct_st32(t, pa + 4 * k, wl_f2u(p[k]));
	return true;
}

void chai_rsc_gpu_evaluate(struct gpu_warp *w, const struct chai_rsc *r, unsigned it,
			   enum mem_scope scope)
{
	uint32_t *count = gw_smem(w);
	unsigned nw = gw_warps_per_cta(w), mine = 0;
	uint64_t lo[WARP_LANES], hi[WARP_LANES], addr[WARP_LANES];
	float p[4];

	for (unsigned k = 0; k < 4; k++)
		p[k] = wl_u2f(gw_ld32(w, r->params + 16 * (uint64_t)it + 4 * k));
	if (p[0] == CHAI_RSC_DEGENERATE)
		return;
	for (uint64_t i = gw_warp(w) * WARP_LANES; i < r->n; i += nw * WARP_LANES) {
		uint32_t mask = wl_lane_addrs(addr, r->flows, i, r->n, sizeof(struct chai_flow));

		gw_ld64v(w, addr, mask, lo);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] += 8;
		gw_ld64v(w, addr, mask, hi);
		gw_compute(w, CHAI_RSC_EVAL_CYCLES);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			struct chai_flow f = chai_rsc_flow(lo[l], hi[l]);

			if (mask >> l & 1 && chai_rsc_outlier(&f, p))
				mine++;
		}
	}
	count[0] += mine; /* atomicAdd on the scratchpad */
	gw_smem_access(w);
	gw_barrier(w);
	if (gw_warp(w) == 0) {
		gw_smem_access(w);
		if (chai_rsc_candidate(count[0], r->n)) {
			uint32_t idx = (uint32_t)gw_atom(w, MEM_ATOM_ADD, r->out_id, 4, 1, 0, scope,
							 MEM_ORDER_RELAXED);

			gw_st32(w, r->cand_model + 4 * (uint64_t)idx, it);
			gw_st32(w, r->cand_outliers + 4 * (uint64_t)idx, count[0]);
		}
	}
}

/* ---- the check -------------------------------------------------------------------------------- */

static int rsc_check(struct cpu_host *h, const struct chai_rsc *r, const char *who, unsigned *count,
		     unsigned *best)
{
	unsigned want = 0, n = ch_read32(h, r->out_id);
	uint8_t *seen = calloc(r->iters, 1);
	int rc = 0;

	if (!seen)
		return -CS_ENOMEM;
	*best = r->n;
	for (unsigned it = 0; it < r->iters && !rc; it++) {
		uint32_t p0 = ch_read32(h, r->params + 16 * (uint64_t)it);
		float p[4];

		want +=
		    r->h_outliers[it] >= 0 && chai_rsc_candidate((unsigned)r->h_outliers[it], r->n);
		if (r->h_outliers[it] < 0) {
			if (p0 != wl_f2u(CHAI_RSC_DEGENERATE))
				rc =
				    ch_fail(h,
					    "%s: iteration %u's model is degenerate, param 0 holds "
					    "%#" PRIx32 ", expected the mark -2011",
					    who, it, p0);
			continue;
		}
		chai_rsc_model(&r->h_flows[r->h_rnd[2 * it]], &r->h_flows[r->h_rnd[2 * it + 1]], p);
		for (unsigned k = 0; k < 4 && !rc; k++) {
			uint32_t got = ch_read32(h, r->params + 16 * (uint64_t)it + 4 * k);

			if (got != wl_f2u(p[k]))
				rc = ch_fail(h,
					     "%s: iteration %u's model param %u holds %#" PRIx32
					     ", expected %#" PRIx32 " (%g)",
					     who, it, k, got, wl_f2u(p[k]), (double)p[k]);
		}
	}
	for (unsigned i = 0; i < n && i < r->iters && !rc; i++) {
		uint32_t it = ch_read32(h, r->cand_model + 4 * (uint64_t)i);
		uint32_t out = ch_read32(h, r->cand_outliers + 4 * (uint64_t)i);

		if (it >= r->iters || seen[it] || r->h_outliers[it] < 0 ||
		    !chai_rsc_candidate((unsigned)r->h_outliers[it], r->n))
			rc = ch_fail(h, "%s: candidate %u names iteration %" PRIu32 " (%s)", who, i,
				     it,
				     it >= r->iters ? "out of range"
				     : seen[it]	    ? "listed twice"
						    : "not a candidate");
		else if (out != (uint32_t)r->h_outliers[it])
			rc = ch_fail(h,
				     "%s: candidate %u (iteration %" PRIu32 ") has %" PRIu32
				     " outliers, expected %" PRId32,
				     who, i, it, out, r->h_outliers[it]);
		else
			seen[it] = 1;
		*best = !rc && out < *best ? out : *best;
	}
	if (!rc && n != want)
		rc = ch_fail(h, "%s: %u candidates in the list, expected %u", who, n, want);
	free(seen);
	*count = n;
	return rc;
}

int chai_rsc_run(struct cpu_host *h, struct chai_rsc *r, const struct cpu_program *p, unsigned ctas,
		 void (*fn)(struct gpu_warp *w), unsigned *count, unsigned *best)
{
	int rc;

	r->kernel = (struct gpu_kernel){.name = "ransac",
					.ctas = ctas,
					.warps_per_cta = RSC_WARPS,
					.smem_bytes = 4,
					.fn = fn,
					.args = p->args};
	rc = ch_run(h, p);
	if (!rc)
		rc = rsc_check(h, r, p->name, count, best);
	chai_rsc_free(r);
	return rc;
}
