/*
 * workloads/bench/km.c - k-means clustering (Rodinia `kmeans`, Che et al., IISWC 2009).
 *
 * Rodinia's CUDA k-means: the points (npoints x nfeatures floats, point-major as read from the
 * input file) are transposed once on the GPU by invert_mapping into a feature-major array
 * (feature j of point p at j * npoints + p, so the threads of a warp read consecutive words).
 * Each iteration the host copies the current centres to the device, kmeansPoint gives every
 * point (one thread each, CTAs of 256 threads) the index of its nearest centre (squared
 * Euclidean distance, first minimum wins) and writes the membership array; the host reads it
 * back, counts the points whose membership changed (delta) and recomputes each centre as the
 * mean of its points. It loops while delta > threshold (0.001: until no point moves) and at
 * most max_loops times, as Rodinia's kmeans_clustering does. The first centres are the first
 * k points (Rodinia 3.1).
 *
 * Rodinia reads the centres from constant memory (c_clusters) and the features through the
 * texture cache, fetching feature j of the point again for every centre. Here every warp
 * loads the k x nfeatures centres with coalesced loads (the fill of its SM's constant cache:
 * every warp of every SM reads the same lines) and its points' features once per feature; the
 * refetches of the features for the other centres are texture-cache hits, counted as issue
 * slots in the compute.
 *
 * No coherence needed: the kernel reads only data written by the host or by an earlier kernel
 * (invert_mapping) and each thread writes its own membership word.
 *
 * Input: k blobs (centres uniform in [0, 1)^nfeatures, points within +-0.25 of them in each
 * feature) from the seed; at the default size k = 32 (Rodinia's ASSUMED_NR_CLUSTERS) so that
 * the kernel is compute-bound as in the papers, and at most 25 iterations.
 *
 * Check: every iteration, a seeded sample of the points' memberships (gh_check_samples of
 * them; every one under workload.check = full, and then the final centres are those of a
 * host-only k-means bit for bit) equals the host's nearest-centre search through the same
 * function on the same centres (exact: same float operations in the same order), and every
 * membership names a centre; the centres are then updated on the host from the device's
 * memberships. The full search was 2.15 s of a 6.25 s FF-only run at default size. The
 * transposed features are checked word for word.
 */
#include "workloads/bench/bench.h"

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_KM		0x6b6d65616e730000ull
#define KM_THREADS	256 /* Rodinia THREADS_PER_BLOCK */
#define KM_WARPS	(KM_THREADS / WARP_LANES)
#define KM_MAX_FEATURES 64
#define KM_MAX_CLUSTERS 32
#define KM_THRESHOLD	0.001f /* Rodinia's default: loop while more than this many points move */

/*
 * Issue slots per warp (SASS-like count of Rodinia's kernels):
 * invert_mapping, per feature: 2 addresses (IMAD, IMAD), IADD, ISETP, BRA: 5; index and bound
 *   test: 7.
 * kmeansPoint: point id and bound test (3 S2R, 2 IMAD, ISETP, BRA): 7; per centre: base index,
 *   ans = 0, FSETP, 2 SEL (min_dist, index), loop (IADD, ISETP, BRA): 8; per (centre, feature):
 *   feature address IMAD, TEX fetch, centre address and LDC, FADD, FFMA, loop (IADD, ISETP,
 *   BRA): 9; membership address and store: 2.
 */
#define KM_INV_FEATURE 5
#define KM_INDEX       7
#define KM_CENTRE      8
#define KM_PAIR	       9

struct km_args {
	uint64_t feature;  /* float [npoints][nfeatures] */
	uint64_t flipped;  /* float [nfeatures][npoints] */
	uint64_t clusters; /* float [nclusters][nfeatures] */
	uint64_t membership;
	unsigned npoints, nfeatures, nclusters;
};

/* The nearest centre of a point (Rodinia's loop: float sum of squared differences in feature
 * order, strict < so the first minimum wins); shared by the kernel and the host reference
 * (noinline: one copy of the machine code). */
static __attribute__((noinline)) int km_nearest(const float *pt, const float *clusters,
						unsigned nclusters, unsigned nfeatures)
{
	float min_dist = FLT_MAX;
	int index = -1;

	for (unsigned i = 0; i < nclusters; i++) {
		float ans = 0.0f;

		for (unsigned j = 0; j < nfeatures; j++) {
			float diff = pt[j] - clusters[i * nfeatures + j];

			ans += diff * diff;
		}
		if (ans < min_dist) {
			min_dist = ans;
			index = (int)i;
		}
	}
	return index;
}

/* ---- kernels -------------------------------------------------------------------------------- */

static void invert_mapping_kernel(struct gpu_warp *w)
{
	const struct km_args *a = gw_args(w);
	uint64_t first = gw_gwid(w) * WARP_LANES;
	uint64_t in[WARP_LANES], out[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};
	uint32_t mask = wl_lane_addrs(out, a->flipped, first, a->npoints, 4);

	gw_compute(w, KM_INDEX);
	if (!mask)
		return;
	for (unsigned i = 0; i < a->nfeatures; i++) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			in[l] = a->feature + 4 * ((first + l) * a->nfeatures + i);
		gw_ld32v(w, in, mask, v);
		gw_st32v(w, out, mask, v);
		gw_compute(w, KM_INV_FEATURE);
		for (unsigned l = 0; l < WARP_LANES; l++)
			out[l] += 4ull * a->npoints;
	}
}

static void kmeans_point_kernel(struct gpu_warp *w)
{
	const struct km_args *a = gw_args(w);
	unsigned nf = a->nfeatures, nc = a->nclusters;
	uint64_t first = gw_gwid(w) * WARP_LANES;
	uint64_t addr[WARP_LANES];
	uint32_t v[WARP_LANES] = {0};
	float feat[WARP_LANES][KM_MAX_FEATURES];
	float centres[KM_MAX_CLUSTERS * KM_MAX_FEATURES];
	uint32_t mask = wl_lane_addrs(addr, a->membership, first, a->npoints, 4);

	gw_compute(w, KM_INDEX);
	if (!mask)
		return;
	/* The centres, as the SM's constant cache fetches them. */
	for (unsigned c = 0; c < nc * nf; c += WARP_LANES) {
		uint64_t ca[WARP_LANES];
		uint32_t cm = wl_lane_addrs(ca, a->clusters, c, nc * nf, 4);

		gw_ld32v(w, ca, cm, v);
		for (unsigned l = 0; l < WARP_LANES && c + l < nc * nf; l++)
			centres[c + l] = wl_u2f(v[l]);
	}
	/* The features of the warp's points (the first of Rodinia's texture fetches of each). */
	for (unsigned j = 0; j < nf; j++) {
		uint64_t fa[WARP_LANES];

		wl_lane_addrs(fa, a->flipped + 4ull * j * a->npoints, first, a->npoints, 4);
		gw_ld32v(w, fa, mask, v);
		for (unsigned l = 0; l < WARP_LANES; l++)
			feat[l][j] = wl_u2f(v[l]);
	}
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = mask >> l & 1 ? (uint32_t)km_nearest(feat[l], centres, nc, nf) : 0;
	gw_compute(w, (uint64_t)nc * (KM_CENTRE + (uint64_t)nf * KM_PAIR) + 2);
	gw_st32v(w, addr, mask, v);
}

/* ---- host ----------------------------------------------------------------------------------- */

struct km_host {
	unsigned npoints, nfeatures, nclusters;
	float *feature;	 /* [npoints][nfeatures] */
	float *clusters; /* [nclusters][nfeatures] */
	float *new_centers;
	unsigned *new_len;
	int *membership, *gm; /* the host's, the device's */
	float *buf;	      /* a read-back buffer */
};

static void km_free(struct km_host *k)
{
	free(k->feature);
	free(k->clusters);
	free(k->new_centers);
	free(k->new_len);
	free(k->membership);
	free(k->gm);
	free(k->buf);
}

/* k blobs: centre coordinates uniform in [0, 1), each point within +-0.25 of its blob's centre
 * in every feature (blobs overlap, so memberships take several iterations to settle). */
static void km_input(struct km_host *k, uint64_t seed)
{
	unsigned nf = k->nfeatures;

	for (unsigned p = 0; p < k->npoints; p++) {
		uint64_t b = wl_value32(seed, 0, 0, p) % k->nclusters;

		for (unsigned j = 0; j < nf; j++)
			k->feature[(size_t)p * nf + j] =
			    (float)(wl_unit(seed, 1, b * nf + j) +
				    0.5 * (wl_unit(seed, 2, (uint64_t)p * nf + j) - 0.5));
	}
}

int bench_km_main(struct gpu_host *h)
{
	struct km_host k = {.npoints = (unsigned)wl_by_size(h, 512, 2048, 65536),
			    .nfeatures = (unsigned)wl_by_size(h, 8, 34, 34),
			    .nclusters = (unsigned)wl_by_size(h, 3, 32, 32)};
	unsigned max_loops = (unsigned)wl_by_size(h, 500, 12, 24);
	unsigned np = k.npoints, nf = k.nfeatures, nc = k.nclusters;
	size_t nfeat = (size_t)np * nf;
	struct km_args a = {.npoints = np, .nfeatures = nf, .nclusters = nc};
	struct gpu_kernel inv = {.name = "invert_mapping",
				 .ctas = (np + KM_THREADS - 1) / KM_THREADS,
				 .warps_per_cta = KM_WARPS,
				 .fn = invert_mapping_kernel,
				 .args = &a};
	struct gpu_kernel kp = {.name = "kmeansPoint",
				.ctas = (np + KM_THREADS - 1) / KM_THREADS,
				.warps_per_cta = KM_WARPS,
				.regs_per_thread = 16,
				.fn = kmeans_point_kernel,
				.args = &a};
	unsigned loop = 0, iters = 0;
	uint64_t moved_total = 0, checked = 0;
	struct wl_sample smp;
	float delta;
	int err = -CS_ENOMEM;

	k.feature = malloc(nfeat * sizeof(float));
	k.buf = malloc(nfeat * sizeof(float));
	k.clusters = malloc((size_t)nc * nf * sizeof(float));
	k.new_centers = calloc((size_t)nc * nf, sizeof(float));
	k.new_len = calloc(nc, sizeof(unsigned));
	k.membership = malloc(np * sizeof(int));
	k.gm = malloc(np * sizeof(int));
	if (!k.feature || !k.buf || !k.clusters || !k.new_centers || !k.new_len || !k.membership ||
	    !k.gm)
		goto out;
	km_input(&k, gh_seed(h) ^ TAG_KM);
	a.feature = wl_upload(h, k.feature, nfeat * sizeof(float));
	a.flipped = wl_alloc_zero(h, nfeat * sizeof(float));
	a.clusters = wl_alloc_zero(h, (size_t)nc * nf * sizeof(float));
	a.membership = wl_alloc_zero(h, np * sizeof(int));
	err = gh_launch(h, &inv);
	if (err)
		goto out;
	gh_read(h, a.flipped, k.buf, nfeat * sizeof(float));
	for (size_t i = 0; i < nfeat; i++) {
		size_t p = i % np, j = i / np;

		if (wl_f2u(k.buf[i]) != wl_f2u(k.feature[p * nf + j])) {
			err = gh_fail(
			    h, "km: invert_mapping: feature %zu of point %zu = %.9g, want %.9g", j,
			    p, (double)k.buf[i], (double)k.feature[p * nf + j]);
			goto out;
		}
	}
	/* Rodinia's kmeans_clustering: the first nclusters points are the first centres. */
	for (size_t i = 0; i < (size_t)nc * nf; i++)
		k.clusters[i] = k.feature[i];
	for (unsigned p = 0; p < np; p++)
		k.membership[p] = -1;
	do {
		unsigned moved = 0;

		gh_write(h, a.clusters, k.clusters, (size_t)nc * nf * sizeof(float));
		err = gh_launch(h, &kp);
		if (err)
			goto out;
		gh_read(h, a.membership, k.gm, np * sizeof(int));
		wl_sample_init(h, &smp, np, TAG_KM + iters);
		for (unsigned p = 0; p < np; p++) {
			int c = k.gm[p];
			int want = c;

			if (wl_sample_take(&smp)) {
				want = km_nearest(k.feature + (size_t)p * nf, k.clusters, nc, nf);
				checked++;
			}
			if (c != want || c < 0 || (unsigned)c >= nc) {
				err = gh_fail(
				    h,
				    "km: iteration %u: point %u assigned to centre %d, want "
				    "%d (the host's nearest-centre search)",
				    iters, p, c, want);
				goto out;
			}
			k.new_len[c]++;
			if (c != k.membership[p]) {
				moved++;
				k.membership[p] = c;
			}
			for (unsigned j = 0; j < nf; j++)
				k.new_centers[(size_t)c * nf + j] += k.feature[(size_t)p * nf + j];
		}
		delta = (float)moved;
		moved_total += moved;
		for (unsigned i = 0; i < nc; i++) {
			for (unsigned j = 0; j < nf; j++) {
				if (k.new_len[i] > 0)
					k.clusters[i * nf + j] =
					    k.new_centers[i * nf + j] / (float)k.new_len[i];
				k.new_centers[i * nf + j] = 0.0f;
			}
			k.new_len[i] = 0;
		}
		iters++;
	} while (delta > KM_THRESHOLD && loop++ < max_loops);
	gh_note(h,
		"km: %u points x %u features, %u centres, %u iterations (%s, %" PRIu64
		" moves); %" PRIu64 " of %" PRIu64 " memberships checked against the host's "
		"nearest-centre search, the centres updated from the device's",
		np, nf, nc, iters, delta > KM_THRESHOLD ? "iteration limit" : "converged",
		moved_total, checked, (uint64_t)np * iters);
	err = 0;
out:
	km_free(&k);
	return err;
}
