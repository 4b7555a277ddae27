/*
 * workloads/rodinia/streamcluster.c - StreamCluster (Rodinia `streamcluster`, Che et al.,
 * IISWC 2009; from PARSEC, Bienia et al. 2008), streamcluster_cuda.cu and
 * streamcluster_cuda_cpu.cpp of Rodinia's CUDA version.
 *
 * Online k-median clustering of a stream of points: the stream is read a chunk at a time; each
 * chunk is clustered (localSearch -> pkmedian: speedy's random facility opening and a binary
 * search on the facility cost z around pFL, a local search that calls pgain for random
 * feasible points), the chunk's medians are kept as weighted centres, and the centres are
 * clustered again at the end. pgain(x) asks "how much would opening a centre at x save?": the
 * host uploads the point records (weight, assign, cost), the centre index table and, when they
 * changed, the coordinates transposed (coordinate i of point j at i * num + j), zeroes
 * switch_membership and the work_mem array of (K + 1) floats per point, and launches
 * kernel_compute_cost: one thread per point in CTAs of 512 threads (16 warps), a 2-D grid only
 * past 65536 CTAs. Each thread computes the weighted squared distance of its point to x (per
 * coordinate: a coalesced load of its own coordinate and a broadcast load of x's) and, if x is
 * cheaper, sets switch_membership[tid] and adds the saving to lower[K] of its own work_mem row,
 * else adds the loss to lower[center_table[assign]] (a gather through the centre table). The
 * host reads work_mem and switch_membership back and does the rest of pgain serially (the gain
 * of closing each centre, the decision, the reassignment).
 *
 * No sharing within a kernel (a thread writes only its own work_mem row and switch byte; the
 * rest is read-only); every launch's inputs are written by the host: no coherence needed. The
 * kernel is short and launched hundreds of times: launch overhead, the broadcast x loads and the
 * strided work_mem accesses (K + 1 floats apart) dominate.
 *
 * Input: as Rodinia's SimStream, every coordinate uniform in [0, 1) (lrand48() / INT_MAX), here
 * from a splitmix64 stream of the seed that also drives the shuffles, speedy's coin flips and
 * the feasible-point sampling (Rodinia's lrand48 calls, in the same order). Check: after every
 * launch, every work_mem word and every switch_membership byte against the host's computation
 * of the same kernel (same float operations through one noinline function), before the host
 * uses them; so the whole run equals a host-only streamcluster bit for bit.
 */
#include "workloads/rodinia/rodinia.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_SC	     0x7363000000000000ull
#define SC_THREADS   512   /* THREADS_PER_BLOCK */
#define SC_MAXBLOCKS 65536 /* MAXBLOCKS: grid x limit before a 2-D grid */
#define SC_SP	     1	   /* repetitions of speedy */
#define SC_ITER	     3	   /* iterate ITER * k log k times */
#define SC_INT_MAX   2147483647.0f
#define SC_POINT_BYTES \
	32		       /* the host's Point {float weight; float *coord; long assign; float
			      cost;} that pgain copies to the device as is */
#define SC_MAX_LAUNCHES 200000 /* a guard against a local search that never ends */

/*
 * Issue slots per warp (SASS-like count of kernel_compute_cost):
 * prologue: 3 S2R, bid and tid (2 IMAD), tid < num (ISETP, BRA), 3 pointers: 10;
 * per coordinate (d_dist inlined): two strength-reduced addresses (2 IADD), FADD, FFMA, loop
 *   (IADD, ISETP, BRA): 7;
 * after the loop: FMUL by the weight, FSETP, SSY and the divergent branch: 4;
 * x cheaper: lower[K] address (IMAD), FADD x_cost - cost, FADD into lower: 4;
 * else: center_table and lower addresses (2 IMAD, ISCADD), 2 FADD: 5.
 */
#define SC_INST_PROLOGUE 10
#define SC_INST_DIM	 7
#define SC_INST_TEST	 4
#define SC_INST_SWITCH	 4
#define SC_INST_STAY	 5

struct sc_point {
	float weight;
	float *coord;
	long assign; /* the point it is assigned to (a centre) */
	float cost;  /* weight * distance to it */
};

struct sc_points {
	long num;
	int dim;
	struct sc_point *p;
};

struct sc_args {
	uint64_t coord;		    /* float [dim][num] */
	uint64_t work_mem;	    /* float [num + 1][stride] */
	uint64_t center_table;	    /* int [num] */
	uint64_t switch_membership; /* bool [num] */
	uint64_t points;	    /* struct Point [num], SC_POINT_BYTES each */
	int num, dim, k, stride;
	long x;
};

/* The state of one run (Rodinia's globals and pgain's statics). */
struct sc {
	struct gpu_host *h;
	uint64_t rng; /* lrand48 */
	long kmin, kmax;
	int dim;
	long cap; /* points the device arrays hold (allocDevMem at the first pgain) */
	struct sc_args a;
	struct gpu_kernel kern;
	size_t work_cap; /* floats of the device work_mem */
	size_t host_cap; /* floats of the host work arrays */
	float *coord_h, *work_h, *work_want;
	uint8_t *switch_h, *switch_want, *point_img; /* switch_h: switch_membership read back */
	bool *is_center;
	int *center_table;
	bool coord_changed; /* isCoordChanged */
	long iter;	    /* pgain calls (pgain's static iter) */
	long k;		    /* pkmedian's static k */
	uint64_t launches, words, max_warps;
	int err; /* the first failure: the clustering stops */
};

/* One term of the squared Euclidean distance, the float operations of d_dist and dist
 * (noinline: the kernel and the host share the code). */
static __attribute__((noinline)) float sc_dist_add(float acc, float a, float b)
{
	float tmp = a - b;

	return acc + tmp * tmp;
}

static float sc_dist(const struct sc_point *p1, const struct sc_point *p2, int dim)
{
	float result = 0.0f;

	for (int i = 0; i < dim; i++)
		result = sc_dist_add(result, p1->coord[i], p2->coord[i]);
	return result;
}

static long sc_lrand48(struct sc *s)
{
	return (long)(wl_splitmix64(&s->rng) >> 33);
}

/* ---- kernel --------------------------------------------------------------------------------- */

static void sc_kernel(struct gpu_warp *w)
{
	const struct sc_args *a = gw_args(w);
	uint64_t bid = gw_cta_x(w) + (uint64_t)gw_grid_x(w) * gw_cta_y(w);
	uint64_t first = bid * SC_THREADS + gw_warp(w) * WARP_LANES; /* tid of lane 0 */
	uint64_t addr[WARP_LANES], ct[WARP_LANES] = {0}, ones[WARP_LANES];
	uint32_t v[WARP_LANES] = {0}, weight[WARP_LANES] = {0}, cost[WARP_LANES] = {0};
	uint32_t old[WARP_LANES] = {0};
	float dist[WARP_LANES] = {0}, x_cost[WARP_LANES];
	uint32_t mask, cheaper = 0;

	gw_compute(w, SC_INST_PROLOGUE);
	mask = wl_lane_addrs(addr, a->coord, first, (uint64_t)a->num, 4);
	if (!mask)
		return;
	/* d_dist(tid, x): coord_d[i * num + tid] per lane, coord_d[i * num + x] for all */
	for (int i = 0; i < a->dim; i++) {
		uint64_t row = a->coord + 4 * (uint64_t)i * (uint64_t)a->num;
		float xv;

		wl_lane_addrs(addr, row, first, (uint64_t)a->num, 4);
		gw_ld32v(w, addr, mask, v);
		xv = wl_u2f(gw_ld32(w, row + 4 * (uint64_t)a->x));
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (mask >> l & 1)
				dist[l] = sc_dist_add(dist[l], wl_u2f(v[l]), xv);
		gw_compute(w, SC_INST_DIM);
	}
	/* p[tid].weight, p[tid].cost */
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = a->points + SC_POINT_BYTES * (first + l);
	gw_ld32v(w, addr, mask, weight);
	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] += 24;
	gw_ld32v(w, addr, mask, cost);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		if (!(mask >> l & 1))
			continue;
		x_cost[l] = dist[l] * wl_u2f(weight[l]);
		if (x_cost[l] < wl_u2f(cost[l]))
			cheaper |= 1u << l;
	}
	gw_compute(w, SC_INST_TEST);
	if (cheaper) {
		/* switch_membership_d[tid] = 1; lower[K] += x_cost - p[tid].cost */
		for (unsigned l = 0; l < WARP_LANES; l++) {
			addr[l] = a->switch_membership + first + l;
			ones[l] = 1;
		}
		gw_compute(w, SC_INST_SWITCH);
		gw_stv(w, addr, cheaper, 1, ones);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->work_mem + 4 * ((first + l) * (uint64_t)a->stride + a->k);
		gw_ld32v(w, addr, cheaper, old);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (cheaper >> l & 1)
				v[l] = wl_f2u(wl_u2f(old[l]) + (x_cost[l] - wl_u2f(cost[l])));
		gw_st32v(w, addr, cheaper, v);
	}
	if (mask & ~cheaper) {
		uint32_t stay = mask & ~cheaper;

		/* lower[center_table_d[p[tid].assign]] += p[tid].cost - x_cost */
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->points + SC_POINT_BYTES * (first + l) + 16;
		gw_ld64v(w, addr, stay, ct);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->center_table + 4 * ((stay >> l & 1) ? ct[l] : 0);
		gw_ld32v(w, addr, stay, v);
		gw_compute(w, SC_INST_STAY);
		for (unsigned l = 0; l < WARP_LANES; l++)
			addr[l] = a->work_mem + 4 * ((first + l) * (uint64_t)a->stride +
						     ((stay >> l & 1) ? v[l] : 0));
		gw_ld32v(w, addr, stay, old);
		for (unsigned l = 0; l < WARP_LANES; l++)
			if (stay >> l & 1)
				v[l] = wl_f2u(wl_u2f(old[l]) + (wl_u2f(cost[l]) - x_cost[l]));
		gw_st32v(w, addr, stay, v);
	}
}

/* ---- pgain: the host part around the kernel ------------------------------------------------- */

/* Host arrays for n points with K centres (grown as needed). */
static int sc_host_room(struct sc *s, size_t floats)
{
	float *a, *b;

	if (floats <= s->host_cap)
		return 0;
	a = realloc(s->work_h, floats * sizeof(float));
	if (!a)
		return -CS_ENOMEM;
	s->work_h = a;
	b = realloc(s->work_want, floats * sizeof(float));
	if (!b)
		return -CS_ENOMEM;
	s->work_want = b;
	s->host_cap = floats;
	return 0;
}

/* The kernel's outputs for this launch, computed on the host, against what came back. */
static int sc_check_launch(struct sc *s, const struct sc_points *pts, long x, int k, int stride)
{
	long num = pts->num;
	size_t words = (size_t)stride * (size_t)(num + 1);

	memset(s->work_want, 0, words * sizeof(float));
	memset(s->switch_want, 0, (size_t)num);
	for (long t = 0; t < num; t++) {
		const struct sc_point *p = &pts->p[t];
		float d = 0.0f, x_cost;

		for (int i = 0; i < s->dim; i++)
			d = sc_dist_add(d, s->coord_h[(size_t)i * num + t],
					s->coord_h[(size_t)i * num + x]);
		x_cost = d * p->weight;
		if (x_cost < p->cost) {
			s->switch_want[t] = 1;
			s->work_want[t * stride + k] = 0.0f + (x_cost - p->cost);
		} else {
			s->work_want[t * stride + s->center_table[p->assign]] =
			    0.0f + (p->cost - x_cost);
		}
	}
	for (size_t i = 0; i < words; i++)
		if (wl_f2u(s->work_h[i]) != wl_f2u(s->work_want[i]))
			return gh_fail(s->h,
				       "streamcluster: pgain %ld (x = %ld, K = %d): work_mem[%zu] "
				       "(point %zu, column %zu) = %.9g, want %.9g",
				       s->iter, x, k, i, i / (size_t)stride, i % (size_t)stride,
				       (double)s->work_h[i], (double)s->work_want[i]);
	for (long t = 0; t < num; t++)
		if (s->switch_h[t] != s->switch_want[t])
			return gh_fail(
			    s->h,
			    "streamcluster: pgain %ld (x = %ld): switch_membership[%ld] = "
			    "%u, want %u",
			    s->iter, x, t, s->switch_h[t], s->switch_want[t]);
	s->words += words + (size_t)num;
	return 0;
}

/* pgain: sets s->err on a failure (the caller stops). */
static float sc_pgain(struct sc *s, long x, struct sc_points *pts, float z, long *numcenters)
{
	struct gpu_host *h = s->h;
	int stride = (int)*numcenters + 1, k = (int)*numcenters;
	long num = pts->num;
	int dim = pts->dim, count = 0, err;
	size_t words = (size_t)stride * (size_t)(num + 1);
	int number_of_centers_to_close = 0;
	float gl_cost_of_opening_x = z, *gl_lower;
	int num_blocks, num_blocks_y, num_blocks_x;

	if (s->err)
		return 0;
	if (s->launches >= SC_MAX_LAUNCHES) {
		s->err = gh_error(h, -CS_EINVAL, "streamcluster: over %d pgain launches",
				  SC_MAX_LAUNCHES);
		return 0;
	}
	err = sc_host_room(s, words);
	if (err) {
		s->err = err;
		return 0;
	}
	/* build center-index table */
	for (long i = 0; i < num; i++)
		if (s->is_center[i])
			s->center_table[i] = count++;
	if (count > k) {
		s->err =
		    gh_error(h, -CS_EINVAL, "streamcluster: %d centres, numcenters %d", count, k);
		return 0;
	}
	/* extract 'coord' (only if first iteration or coord has changed) */
	if (s->coord_changed || s->iter == 0)
		for (int i = 0; i < dim; i++)
			for (long j = 0; j < num; j++)
				s->coord_h[(size_t)num * i + j] = pts->p[j].coord[i];
	/* device memory: work_mem per call (cudaMalloc: fresh memory when it grows) */
	if (words > s->work_cap) {
		s->a.work_mem = gh_alloc(h, words * sizeof(float), 0);
		s->work_cap = words;
	}
	if (s->coord_changed || s->iter == 0)
		gh_write(h, s->a.coord, s->coord_h, (size_t)num * dim * sizeof(float));
	gh_write(h, s->a.center_table, s->center_table, (size_t)num * sizeof(int));
	for (long i = 0; i < num; i++) {
		uint8_t *r = &s->point_img[i * SC_POINT_BYTES];
		int64_t assign = pts->p[i].assign;

		memset(r, 0, SC_POINT_BYTES); /* the coord pointer is never read on the device */
		memcpy(r, &pts->p[i].weight, 4);
		memcpy(r + 16, &assign, 8);
		memcpy(r + 24, &pts->p[i].cost, 4);
	}
	gh_write(h, s->a.points, s->point_img, (size_t)num * SC_POINT_BYTES);
	memset(s->switch_h, 0, (size_t)num); /* cudaMemset */
	gh_write(h, s->a.switch_membership, s->switch_h, (size_t)num);
	memset(s->work_h, 0, words * sizeof(float));
	gh_write(h, s->a.work_mem, s->work_h, words * sizeof(float));

	/* kernel_compute_cost over num threads */
	num_blocks = (int)((float)(num + SC_THREADS - 1) / (float)SC_THREADS);
	num_blocks_y = (int)((float)(num_blocks + SC_MAXBLOCKS - 1) / (float)SC_MAXBLOCKS);
	num_blocks_x = (int)((float)(num_blocks + num_blocks_y - 1) / (float)num_blocks_y);
	s->kern.grid_x = (unsigned)num_blocks_x;
	s->kern.grid_y = (unsigned)num_blocks_y;
	s->a.num = (int)num;
	s->a.dim = dim;
	s->a.k = k;
	s->a.stride = stride;
	s->a.x = x;
	err = gh_launch(h, &s->kern);
	if (err) {
		s->err = err;
		return 0;
	}
	s->launches++;
	if ((uint64_t)(num + WARP_LANES - 1) / WARP_LANES > s->max_warps)
		s->max_warps = (uint64_t)(num + WARP_LANES - 1) / WARP_LANES;
	gh_corrupt(h, s->a.work_mem, 4); /* acts once per run: the first launch's check fails */
	gh_read(h, s->a.work_mem, s->work_h, words * sizeof(float));
	gh_read(h, s->a.switch_membership, s->switch_h, (size_t)num);
	err = sc_check_launch(s, pts, x, k, stride);
	if (err) {
		s->err = err;
		return 0;
	}

	/* CPU (serial) work: the number of centres to close if we open x */
	gl_lower = &s->work_h[(size_t)stride * num];
	for (long i = 0; i < num; i++) {
		if (s->is_center[i]) {
			float low = z;

			for (long j = 0; j < num; j++)
				low += s->work_h[j * stride + s->center_table[i]];
			gl_lower[s->center_table[i]] = low;
			if (low > 0) {
				++number_of_centers_to_close;
				s->work_h[i * stride + k] -= low;
			}
		}
		gl_cost_of_opening_x += s->work_h[i * stride + k];
	}
	/* if opening a center at x saves cost (i.e. cost is negative) do so */
	if (gl_cost_of_opening_x < 0) {
		for (long i = 0; i < num; i++) {
			bool close_center = gl_lower[s->center_table[pts->p[i].assign]] > 0;

			if (s->switch_h[i] || close_center) {
				pts->p[i].cost =
				    sc_dist(&pts->p[i], &pts->p[x], dim) * pts->p[i].weight;
				pts->p[i].assign = x;
			}
		}
		for (long i = 0; i < num; i++)
			if (s->is_center[i] && gl_lower[s->center_table[i]] > 0)
				s->is_center[i] = false;
		if (x >= 0 && x < num)
			s->is_center[x] = true;
		*numcenters = *numcenters + 1 - number_of_centers_to_close;
	} else {
		gl_cost_of_opening_x = 0;
	}
	s->iter++;
	return -gl_cost_of_opening_x;
}

/* ---- the rest of Rodinia's streamcluster (PARSEC's), single-threaded (nproc = 1) ----------- */

static void sc_shuffle(struct sc *s, struct sc_points *pts)
{
	for (long i = 0; i < pts->num - 1; i++) {
		long j = (sc_lrand48(s) % (pts->num - i)) + i;
		struct sc_point temp = pts->p[i];

		pts->p[i] = pts->p[j];
		pts->p[j] = temp;
	}
}

static void sc_intshuffle(struct sc *s, int *a, int length)
{
	for (long i = 0; i < length; i++) {
		long j = (sc_lrand48(s) % (length - i)) + i;
		int temp = a[i];

		a[i] = a[j];
		a[j] = temp;
	}
}

/* run speedy on the points, return total cost of solution */
static float sc_pspeedy(struct sc *s, struct sc_points *pts, float z, long *kcenter)
{
	float totalcost, mytotal = 0;

	/* create center at first point, send it to itself */
	for (long k = 0; k < pts->num; k++) {
		float distance = sc_dist(&pts->p[k], &pts->p[0], pts->dim);

		pts->p[k].cost = distance * pts->p[k].weight;
		pts->p[k].assign = 0;
	}
	*kcenter = 1;
	for (long i = 1; i < pts->num; i++) {
		bool to_open = ((float)sc_lrand48(s) / SC_INT_MAX) < (pts->p[i].cost / z);

		if (!to_open)
			continue;
		(*kcenter)++;
		for (long k = 0; k < pts->num; k++) {
			float distance = sc_dist(&pts->p[i], &pts->p[k], pts->dim);

			if (distance * pts->p[k].weight < pts->p[k].cost) {
				pts->p[k].cost = distance * pts->p[k].weight;
				pts->p[k].assign = i;
			}
		}
	}
	for (long k = 0; k < pts->num; k++)
		mytotal += pts->p[k].cost;
	totalcost = z * (*kcenter);
	totalcost += mytotal;
	return totalcost;
}

/* facility location on the points using local search (see PARSEC's pFL) */
static float sc_pfl(struct sc *s, struct sc_points *pts, int *feasible, int numfeasible, float z,
		    long *k, float cost, long iter, float e)
{
	float change = cost;

	/* continue until we run iter iterations without improvement */
	while (change / cost > 1.0 * e) {
		change = 0.0;
		sc_intshuffle(s, feasible, numfeasible);
		for (long i = 0; i < iter; i++) {
			long x = i % numfeasible;

			change += sc_pgain(s, feasible[x], pts, z, k);
			if (s->err)
				return cost;
		}
		cost -= change;
	}
	return cost;
}

static int sc_selectfeasible_fast(struct sc *s, struct sc_points *pts, int **feasible, long kmin)
{
	int numfeasible = (int)pts->num;
	float *accumweight, totalweight;

	if (numfeasible > (SC_ITER * kmin * log((float)kmin)))
		numfeasible = (int)(SC_ITER * kmin * log((float)kmin));
	*feasible = malloc((size_t)numfeasible * sizeof(int));
	if (!*feasible)
		return -CS_ENOMEM;
	/* not many points, all will be feasible */
	if (numfeasible == pts->num) {
		for (int i = 0; i < numfeasible; i++)
			(*feasible)[i] = i;
		return numfeasible;
	}
	accumweight = malloc((size_t)pts->num * sizeof(float));
	if (!accumweight)
		return -CS_ENOMEM;
	accumweight[0] = pts->p[0].weight;
	for (long i = 1; i < pts->num; i++)
		accumweight[i] = accumweight[i - 1] + pts->p[i].weight;
	totalweight = accumweight[pts->num - 1];
	for (int i = 0; i < numfeasible; i++) {
		float w = ((float)sc_lrand48(s) / SC_INT_MAX) * totalweight;
		long l = 0, r = pts->num - 1;

		/* binary search */
		if (accumweight[0] > w) {
			(*feasible)[i] = 0;
			continue;
		}
		while (l + 1 < r) {
			long m = (l + r) / 2;

			if (accumweight[m] > w)
				r = m;
			else
				l = m;
		}
		(*feasible)[i] = (int)r;
	}
	free(accumweight);
	return numfeasible;
}

/* compute approximate kmedian on the points */
static float sc_pkmedian(struct sc *s, struct sc_points *pts, long kmin, long kmax, long *kfinal)
{
	float cost, hiz = 0.0, loz = 0.0, z, myhiz = 0;
	int *feasible = NULL, numfeasible, i;

	for (long kk = 0; kk < pts->num; kk++)
		myhiz += sc_dist(&pts->p[kk], &pts->p[0], pts->dim) * pts->p[kk].weight;
	hiz += myhiz;
	loz = 0.0;
	z = (hiz + loz) / 2.0;
	/* NEW: Check whether more centers than points! */
	if (pts->num <= kmax) {
		/* just return all points as facilities */
		for (long kk = 0; kk < pts->num; kk++) {
			pts->p[kk].assign = kk;
			pts->p[kk].cost = 0;
		}
		*kfinal = s->k;
		return 0;
	}
	sc_shuffle(s, pts);
	cost = sc_pspeedy(s, pts, z, &s->k);
	i = 0;
	/* give speedy SP chances to get at least kmin/2 facilities */
	while ((s->k < kmin) && (i < SC_SP)) {
		cost = sc_pspeedy(s, pts, z, &s->k);
		i++;
	}
	/* if still not enough facilities, assume z is too high */
	while (s->k < kmin) {
		if (i >= SC_SP) {
			hiz = z;
			z = (hiz + loz) / 2.0;
			i = 0;
		}
		sc_shuffle(s, pts);
		cost = sc_pspeedy(s, pts, z, &s->k);
		i++;
	}
	/* now we begin the binary search for real */
	numfeasible = sc_selectfeasible_fast(s, pts, &feasible, kmin);
	if (numfeasible < 0) {
		s->err = numfeasible;
		free(feasible);
		return 0;
	}
	for (long j = 0; j < pts->num; j++)
		s->is_center[pts->p[j].assign] = true;
	while (1) {
		/* first get a rough estimate on the FL solution */
		cost = sc_pfl(s, pts, feasible, numfeasible, z, &s->k, cost,
			      (long)(SC_ITER * kmax * log((float)kmax)), 0.1);
		/* if number of centers seems good, try a more accurate FL */
		if (!s->err && (((s->k <= (1.1) * kmax) && (s->k >= (0.9) * kmin)) ||
				((s->k <= kmax + 2) && (s->k >= kmin - 2))))
			cost = sc_pfl(s, pts, feasible, numfeasible, z, &s->k, cost,
				      (long)(SC_ITER * kmax * log((float)kmax)), 0.001);
		if (s->err)
			break;
		if (s->k > kmax) {
			/* facilities too cheap: increase facility cost */
			loz = z;
			z = (hiz + loz) / 2.0;
			cost += (z - loz) * s->k;
		}
		if (s->k < kmin) {
			/* facilities too expensive: decrease facility cost */
			hiz = z;
			z = (hiz + loz) / 2.0;
			cost += (z - hiz) * s->k;
		}
		/* if k is good, return the result; if we're stuck, just give up */
		if (((s->k <= kmax) && (s->k >= kmin)) || ((loz >= (0.999) * hiz)))
			break;
	}
	free(feasible);
	*kfinal = s->k;
	return cost;
}

/* compute the means for the k clusters */
static void sc_contcenters(struct sc_points *pts)
{
	for (long i = 0; i < pts->num; i++) {
		struct sc_point *c = &pts->p[pts->p[i].assign];
		float relweight;

		/* compute relative weight of this point to the cluster */
		if (pts->p[i].assign == i)
			continue;
		relweight = c->weight + pts->p[i].weight;
		relweight = pts->p[i].weight / relweight;
		for (int ii = 0; ii < pts->dim; ii++) {
			c->coord[ii] *= 1.0 - relweight;
			c->coord[ii] += pts->p[i].coord[ii] * relweight;
		}
		c->weight += pts->p[i].weight;
	}
}

/* copy centers from points to centers */
static int sc_copycenters(struct sc_points *pts, struct sc_points *centers, long *center_ids,
			  long offset)
{
	bool *is_a_median = calloc((size_t)pts->num, sizeof(bool));
	long k = centers->num;

	if (!is_a_median)
		return -CS_ENOMEM;
	for (long i = 0; i < pts->num; i++)
		is_a_median[pts->p[i].assign] = 1;
	for (long i = 0; i < pts->num; i++) {
		if (!is_a_median[i])
			continue;
		memcpy(centers->p[k].coord, pts->p[i].coord, (size_t)pts->dim * sizeof(float));
		centers->p[k].weight = pts->p[i].weight;
		center_ids[k] = i + offset;
		k++;
	}
	centers->num = k;
	free(is_a_median);
	return 0;
}

/* localSearch on one set of points: the per-set is_center and center_table around pkmedian. */
static int sc_local_search(struct sc *s, struct sc_points *pts, long *kfinal)
{
	size_t n = (size_t)pts->num;

	s->is_center = calloc(n ? n : 1, sizeof(bool));
	s->center_table = calloc(n ? n : 1, sizeof(int));
	if (!s->is_center || !s->center_table)
		s->err = -CS_ENOMEM;
	else
		sc_pkmedian(s, pts, s->kmin, s->kmax, kfinal);
	free(s->is_center);
	free(s->center_table);
	s->is_center = NULL;
	s->center_table = NULL;
	return s->err;
}

int rodinia_streamcluster_main(struct gpu_host *h)
{
	/* Rodinia's run is "10 20 256 65536 65536 1000" (kmin kmax dim n chunksize clustersize):
	 * default keeps its k range and one chunk, with 2048 points of 16 dimensions; tiny and
	 * small stream two chunks, so that the centres are clustered again with pgain */
	long kmin = (long)wl_by_size(h, 2, 4, 10), kmax = (long)wl_by_size(h, 4, 8, 20);
	int dim = (int)wl_by_size(h, 8, 8, 16);
	long n = (long)wl_by_size(h, 256, 1024, 2048);
	long chunksize = (long)wl_by_size(h, 128, 512, 2048);
	long centersize = (long)wl_by_size(h, 64, 100, 1000);
	struct sc s = {.h = h, .rng = gh_seed(h) ^ TAG_SC, .kmin = kmin, .kmax = kmax, .dim = dim};
	float *block = malloc((size_t)chunksize * dim * sizeof(float));
	float *center_block = malloc((size_t)centersize * dim * sizeof(float));
	long *center_ids = malloc((size_t)centersize * sizeof(long));
	struct sc_points points = {.dim = dim,
				   .p = malloc((size_t)chunksize * sizeof(struct sc_point))};
	struct sc_points centers = {.dim = dim,
				    .p = malloc((size_t)centersize * sizeof(struct sc_point))};
	long remaining = n, offset = 0, kfinal = 0, chunks = 0, medians = 0;
	double weight = 0;
	int err = -CS_ENOMEM;

	s.cap = chunksize > centersize ? chunksize : centersize;
	s.coord_h = malloc((size_t)s.cap * dim * sizeof(float));
	s.switch_h = malloc((size_t)s.cap);
	s.switch_want = malloc((size_t)s.cap);
	s.point_img = malloc((size_t)s.cap * SC_POINT_BYTES);
	if (!block || !center_block || !center_ids || !points.p || !centers.p || !s.coord_h ||
	    !s.switch_h || !s.switch_want || !s.point_img)
		goto out;
	for (long i = 0; i < chunksize; i++)
		points.p[i].coord = &block[i * dim];
	for (long i = 0; i < centersize; i++) {
		centers.p[i].coord = &center_block[i * dim];
		centers.p[i].weight = 1.0;
	}
	/* allocDevMem, sized for the largest set pgain sees */
	s.a.coord = gh_alloc(h, (uint64_t)s.cap * dim * sizeof(float), 0);
	s.a.center_table = gh_alloc(h, (uint64_t)s.cap * sizeof(int), 0);
	s.a.switch_membership = gh_alloc(h, (uint64_t)s.cap, 0);
	s.a.points = gh_alloc(h, (uint64_t)s.cap * SC_POINT_BYTES, 0);
	s.kern = (struct gpu_kernel){.name = "kernel_compute_cost",
				     .warps_per_cta = SC_THREADS / WARP_LANES,
				     .regs_per_thread = 16,
				     .fn = sc_kernel,
				     .args = &s.a};

	while (1) {
		/* SimStream::read: the next chunk of points, uniform in [0, 1) per coordinate */
		long num_read = remaining < chunksize ? remaining : chunksize;

		for (long i = 0; i < num_read; i++)
			for (int k = 0; k < dim; k++)
				block[i * dim + k] = (float)sc_lrand48(&s) / SC_INT_MAX;
		remaining -= num_read;
		points.num = num_read;
		for (long i = 0; i < points.num; i++)
			points.p[i].weight = 1.0;
		err = sc_local_search(&s, &points, &kfinal);
		if (err)
			goto out;
		sc_contcenters(&points);
		s.coord_changed = true;
		if (kfinal + centers.num > centersize) {
			err = gh_error(h, -CS_EINVAL, "streamcluster: no more space for centers");
			goto out;
		}
		err = sc_copycenters(&points, &centers, center_ids, offset);
		if (err)
			goto out;
		offset += num_read;
		chunks++;
		if (remaining <= 0)
			break;
	}
	/* finally cluster all temp centers */
	err = sc_local_search(&s, &centers, &kfinal);
	if (err)
		goto out;
	sc_contcenters(&centers);
	/* outcenterIDs: the medians (the centres some centre is assigned to) and their weights */
	{
		bool *is_a_median = calloc((size_t)centersize, sizeof(bool));

		err = -CS_ENOMEM;
		if (!is_a_median)
			goto out;
		for (long i = 0; i < centers.num; i++)
			is_a_median[centers.p[i].assign] = true;
		for (long i = 0; i < centers.num; i++)
			if (is_a_median[i]) {
				medians++;
				weight += centers.p[i].weight;
			}
		free(is_a_median);
	}
	if (!s.launches) {
		err = gh_error(h, -CS_EINVAL, "streamcluster: no pgain launch at this size");
		goto out;
	}
	gh_note(h,
		"streamcluster: %ld points x %d dims in %ld chunks of %ld, k %ld..%ld: %ld "
		"intermediate centres -> %ld medians (weight %.0f); %" PRIu64
		" pgain launches (up to %" PRIu64 " warps), every work_mem word and switch byte "
		"(%" PRIu64 ") bit-exact",
		n, dim, chunks, chunksize, kmin, kmax, centers.num, medians, weight, s.launches,
		s.max_warps, s.words);
	err = 0;
out:
	free(block);
	free(center_block);
	free(center_ids);
	free(points.p);
	free(centers.p);
	free(s.coord_h);
	free(s.work_h);
	free(s.work_want);
	free(s.switch_h);
	free(s.switch_want);
	free(s.point_img);
	return err;
}
