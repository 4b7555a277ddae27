/*
 * workloads/parboil/mriq.c - MRI-Q (Parboil `mri-q`, Stratton et al. 2012; Stone et al.,
 * "Accelerating advanced MRI reconstructions on GPUs", CF 2008), computeQ.cu and main.cu of
 * Parboil's cuda version.
 *
 * The Q matrix of a non-Cartesian 3-D MRI reconstruction: for every voxel position x,
 * Q(x) = sum_k |phi(k)|^2 exp(i 2 pi k . x) over the k-space trajectory. Two kernels:
 * ComputePhiMag_GPU (CTAs of 512 threads, one thread per k sample: |phi|^2 = re^2 + im^2, read
 * back by the host) and ComputeQ_GPU (CTAs of KERNEL_Q_THREADS_PER_BLOCK = 256 threads, one
 * thread per voxel). The host packs (Kx, Ky, Kz, PhiMag) per sample and copies them into
 * __constant__ memory KERNEL_Q_K_ELEMS_PER_GRID = 1024 at a time, one ComputeQ launch per
 * chunk: each thread loads its x, y, z and its running Qr, Qi (5 coalesced loads per warp),
 * loops over the chunk's samples (unrolled by two; every lane reads the same kValues: one
 * broadcast constant-cache access per sample per warp) accumulating PhiMag cos(arg) and
 * PhiMag sin(arg), and stores Qr, Qi (2 coalesced stores).
 *
 * No sharing between CTAs (one writer per voxel; the trajectory is read-only): no coherence
 * needed; Qr and Qi carry over from launch to launch through the kernel boundary.
 *
 * Input from the seed: voxels on a 32 x 32 x (numX / 1024) block of a unit field of view, k
 * samples uniform in [-16, 16)^3 cycles per FOV, phi uniform in [-1, 1)^2. Parboil compiles
 * with --use_fast_math (__sinf, __cosf on the SFU); here both the kernel and the reference call
 * the host's sinf / cosf through one noinline function, so every value is bit-exact. Check:
 * every |phi|^2, and Qr, Qi of a seeded sample of voxels (all under workload.check=full).
 */
#include "workloads/parboil/parboil.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/port_util.h"
#include "workloads/wl_util.h"

#define TAG_MRIQ	0x6d72697100000000ull
#define TAG_MRIQ_SAMPLE 0x6d72697173000000ull
#define PIX2		6.2831853071795864769252867665590058f
#define PHIMAG_THREADS	512  /* KERNEL_PHI_MAG_THREADS_PER_BLOCK */
#define Q_THREADS	256  /* KERNEL_Q_THREADS_PER_BLOCK */
#define Q_K_PER_GRID	1024 /* KERNEL_Q_K_ELEMS_PER_GRID: the __constant__ ck[] */

/*
 * Issue slots per warp (SASS-like count; --use_fast_math):
 * ComputePhiMag: 2 S2R, IMAD indexK, ISETP + BRA, 3 addresses: 8; FMUL + FFMA: 2.
 * ComputeQ prologue: 2 S2R, IMAD xIndex, 5 addresses, numK % 2 test and branch, loop setup: 12.
 * Per k sample (half an unrolled iteration): the dot product (FMUL, 2 FFMA), FMUL by 2 pi, RRO
 *   and MUFU.COS, MUFU.SIN (the SFU at 1/8 rate, ~4 slots each with two schedulers: 9), 2 FFMA
 *   into Qr, Qi, and half the loop's 2 IADD, 2 ISETP, BRA: 3 + 1 + 9 + 2 + 3 = 18.
 * Epilogue: 2 (addresses).
 */
#define PHIMAG_INST_PROLOGUE 8
#define PHIMAG_INST_BODY     2
#define Q_INST_PROLOGUE	     12
#define Q_INST_K	     18
#define Q_INST_EPILOGUE	     2

struct mriq_phimag_args {
	uint64_t phi_r, phi_i, phi_mag; /* float[numK] */
	int num_k;
};

struct mriq_q_args {
	uint64_t ck;		  /* __constant__ struct kValues ck[1024]: Kx, Ky, Kz, PhiMag */
	uint64_t x, y, z, qr, qi; /* float[numX] */
	int num_k, k_global_index;
};

/* |phi|^2 as ComputePhiMag_GPU computes it (noinline: kernel and reference share the code). */
static __attribute__((noinline)) float mriq_phimag(float real, float imag)
{
	return real * real + imag * imag;
}

/* One k sample's term of ComputeQ_GPU, added to *qr and *qi. */
static __attribute__((noinline)) void mriq_term(const float k[4], float sx, float sy, float sz,
						float *qr, float *qi)
{
	float exp_arg = PIX2 * (k[0] * sx + k[1] * sy + k[2] * sz);

	*qr += k[3] * cosf(exp_arg);
	*qi += k[3] * sinf(exp_arg);
}

/* ---- kernels -------------------------------------------------------------------------------- */

static void mriq_phimag_kernel(struct gpu_warp *w)
{
	const struct mriq_phimag_args *a = gw_args(w);
	uint64_t first = (uint64_t)gw_cta(w) * PHIMAG_THREADS + gw_warp(w) * WARP_LANES;
	uint64_t addr[WARP_LANES];
	uint32_t re[WARP_LANES], im[WARP_LANES], mag[WARP_LANES];
	uint32_t mask;

	gw_compute(w, PHIMAG_INST_PROLOGUE);
	mask = wl_lane_addrs(addr, a->phi_r, first, (uint64_t)a->num_k, 4);
	if (!mask)
		return;
	gw_ld32v(w, addr, mask, re);
	wl_lane_addrs(addr, a->phi_i, first, (uint64_t)a->num_k, 4);
	gw_ld32v(w, addr, mask, im);
	for (unsigned l = 0; l < WARP_LANES; l++)
		mag[l] = (mask >> l & 1) ? wl_f2u(mriq_phimag(wl_u2f(re[l]), wl_u2f(im[l]))) : 0;
	gw_compute(w, PHIMAG_INST_BODY);
	wl_lane_addrs(addr, a->phi_mag, first, (uint64_t)a->num_k, 4);
	gw_st32v(w, addr, mask, mag);
}

static void mriq_q_kernel(struct gpu_warp *w)
{
	const struct mriq_q_args *a = gw_args(w);
	uint64_t first = (uint64_t)gw_cta(w) * Q_THREADS + gw_warp(w) * WARP_LANES;
	uint64_t addr[WARP_LANES];
	uint32_t sx[WARP_LANES], sy[WARP_LANES], sz[WARP_LANES], qr[WARP_LANES], qi[WARP_LANES];
	int k_global = a->k_global_index;

	gw_compute(w, Q_INST_PROLOGUE);
	/* sX = x[xIndex] ... sQi = Qi[xIndex]: numX is a multiple of 256, no bound test */
	wl_lane_addrs(addr, a->x, first, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, sx);
	wl_lane_addrs(addr, a->y, first, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, sy);
	wl_lane_addrs(addr, a->z, first, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, sz);
	wl_lane_addrs(addr, a->qr, first, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, qr);
	wl_lane_addrs(addr, a->qi, first, UINT64_MAX, 4);
	gw_ld32v(w, addr, LANES_ALL, qi);
	/* numK is even (the host makes sure), so the odd-numK prologue on ck[0] never runs */
	for (int k = 0; k < Q_K_PER_GRID && k_global < a->num_k; k++, k_global++) {
		float kv[4];

		/* ck[kIndex]: the same kValues in every lane */
		pu_ld_const_float4(w, a->ck + 16 * (uint64_t)k, kv);
		for (unsigned l = 0; l < WARP_LANES; l++) {
			float r = wl_u2f(qr[l]), i = wl_u2f(qi[l]);

			mriq_term(kv, wl_u2f(sx[l]), wl_u2f(sy[l]), wl_u2f(sz[l]), &r, &i);
			qr[l] = wl_f2u(r);
			qi[l] = wl_f2u(i);
		}
		gw_compute(w, Q_INST_K);
	}
	gw_compute(w, Q_INST_EPILOGUE);
	wl_lane_addrs(addr, a->qr, first, UINT64_MAX, 4);
	gw_st32v(w, addr, LANES_ALL, qr);
	wl_lane_addrs(addr, a->qi, first, UINT64_MAX, 4);
	gw_st32v(w, addr, LANES_ALL, qi);
}

/* ---- host ----------------------------------------------------------------------------------- */

int parboil_mriq_main(struct gpu_host *h)
{
	bool full = gh_size(h) == GPU_SIZE_FULL;
	/* default: Parboil's small dataset (32768 voxels, 3072 samples); full: its large one */
	int num_x = full ? 262144 : (int)wl_by_size(h, 512, 2048, 32768);
	int num_k = full ? 2048 : (int)wl_by_size(h, 1088, 1536, 3072);
	uint64_t seed = gh_seed(h) ^ TAG_MRIQ;
	struct mriq_phimag_args pa = {.num_k = num_k};
	struct mriq_q_args qa = {.num_k = num_k};
	struct gpu_kernel pk = {.name = "ComputePhiMag_GPU",
				.ctas = (unsigned)((num_k + PHIMAG_THREADS - 1) / PHIMAG_THREADS),
				.warps_per_cta = PHIMAG_THREADS / WARP_LANES,
				.regs_per_thread = 8,
				.fn = mriq_phimag_kernel,
				.args = &pa};
	struct gpu_kernel qk = {.name = "ComputeQ_GPU",
				.ctas = (unsigned)(num_x / Q_THREADS),
				.warps_per_cta = Q_THREADS / WARP_LANES,
				.regs_per_thread = 20,
				.fn = mriq_q_kernel,
				.args = &qa};
	size_t nx = (size_t)num_x, nk = (size_t)num_k;
	float *kx = malloc(nk * sizeof(float)), *ky = malloc(nk * sizeof(float));
	float *kz = malloc(nk * sizeof(float)), *phi_r = malloc(nk * sizeof(float));
	float *phi_i = malloc(nk * sizeof(float)), *phi_mag = malloc(nk * sizeof(float));
	float *kvals = malloc(nk * 4 * sizeof(float));
	float *x = malloc(nx * sizeof(float)), *y = malloc(nx * sizeof(float));
	float *z = malloc(nx * sizeof(float));
	float *qr = malloc(nx * sizeof(float)), *qi = malloc(nx * sizeof(float));
	uint64_t checked = 0;
	unsigned launches = 0;
	struct wl_sample sample;
	int err = -CS_ENOMEM;

	if (!kx || !ky || !kz || !phi_r || !phi_i || !phi_mag || !kvals || !x || !y || !z || !qr ||
	    !qi)
		goto out;
	if (num_k % 2 || num_x % Q_THREADS) {
		err = gh_error(h, -CS_EINVAL, "mriq: numK must be even, numX a multiple of 256");
		goto out;
	}
	for (size_t k = 0; k < nk; k++) {
		kx[k] = (float)(32.0 * wl_unit(seed, 0, k) - 16.0);
		ky[k] = (float)(32.0 * wl_unit(seed, 1, k) - 16.0);
		kz[k] = (float)(32.0 * wl_unit(seed, 2, k) - 16.0);
		phi_r[k] = (float)(2.0 * wl_unit(seed, 3, k) - 1.0);
		phi_i[k] = (float)(2.0 * wl_unit(seed, 4, k) - 1.0);
	}
	for (size_t i = 0; i < nx; i++) {
		x[i] = (float)(i % 32) / 32.0f - 0.5f;
		y[i] = (float)(i / 32 % 32) / 32.0f - 0.5f;
		z[i] = (float)(i / 1024) / 32.0f - 0.5f;
	}

	/* GPU section 1: |phi|^2 */
	pa.phi_r = wl_upload(h, phi_r, nk * sizeof(float));
	pa.phi_i = wl_upload(h, phi_i, nk * sizeof(float));
	pa.phi_mag = gh_alloc(h, nk * sizeof(float), 0);
	err = gh_launch(h, &pk);
	if (err)
		goto out;
	gh_read(h, pa.phi_mag, phi_mag, nk * sizeof(float));
	for (size_t k = 0; k < nk; k++) {
		float want = mriq_phimag(phi_r[k], phi_i[k]);

		if (wl_f2u(phi_mag[k]) != wl_f2u(want)) {
			err = gh_fail(h, "mriq: ComputePhiMag: phiMag[%zu] = %.9g, want %.9g", k,
				      (double)phi_mag[k], (double)want);
			goto out;
		}
		kvals[4 * k] = kx[k];
		kvals[4 * k + 1] = ky[k];
		kvals[4 * k + 2] = kz[k];
		kvals[4 * k + 3] = phi_mag[k];
	}

	/* GPU section 2: Q, one launch per 1024 samples */
	qa.x = wl_upload(h, x, nx * sizeof(float));
	qa.y = wl_upload(h, y, nx * sizeof(float));
	qa.z = wl_upload(h, z, nx * sizeof(float));
	qa.qr = wl_alloc_zero(h, nx * sizeof(float));
	qa.qi = wl_alloc_zero(h, nx * sizeof(float));
	qa.ck = gh_alloc(h, Q_K_PER_GRID * 16, 0);
	for (int base = 0; base < num_k; base += Q_K_PER_GRID) {
		int elems = num_k - base < Q_K_PER_GRID ? num_k - base : Q_K_PER_GRID;

		gh_write(h, qa.ck, &kvals[4 * (size_t)base], (size_t)elems * 16);
		qa.k_global_index = base;
		err = gh_launch(h, &qk);
		if (err)
			goto out;
		launches++;
	}
	gh_corrupt(h, qa.qr + 4 * (nx / 2), 4);
	gh_read(h, qa.qr, qr, nx * sizeof(float));
	gh_read(h, qa.qi, qi, nx * sizeof(float));

	/* reference: a voxel accumulates the samples in order (the chunks continue the sums) */
	wl_sample_init(h, &sample, nx, TAG_MRIQ_SAMPLE);
	for (size_t i = 0; i < nx; i++) {
		float r = 0.0f, im = 0.0f;

		if (!wl_sample_take(&sample))
			continue;
		checked++;
		for (size_t k = 0; k < nk; k++)
			mriq_term(&kvals[4 * k], x[i], y[i], z[i], &r, &im);
		if (wl_f2u(qr[i]) != wl_f2u(r) || wl_f2u(qi[i]) != wl_f2u(im)) {
			err = gh_fail(h,
				      "mriq: ComputeQ: voxel %zu: Qr = %.9g, Qi = %.9g, want %.9g, "
				      "%.9g",
				      i, (double)qr[i], (double)qi[i], (double)r, (double)im);
			goto out;
		}
	}
	gh_note(h,
		"mriq: %d voxels, %d k samples, %u ComputeQ launches of %u CTAs; every phiMag and "
		"Qr, Qi of %" PRIu64 " voxels bit-exact",
		num_x, num_k, launches, qk.ctas, checked);
	err = 0;
out:
	free(kx);
	free(ky);
	free(kz);
	free(phi_r);
	free(phi_i);
	free(phi_mag);
	free(kvals);
	free(x);
	free(y);
	free(z);
	free(qr);
	free(qi);
	return err;
}
