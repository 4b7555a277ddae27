/*
 * workloads/chai_cedd.c - chai_cedd, CHAI's CEDD (Canny edge detection, data partitioning) on
 * system apu (chai.h).
 *
 * A stream of grayscale frames (rows x cols bytes, rows and cols 2 more than a multiple of 16)
 * goes through four stages: a 3x3 Gaussian blur, a Sobel filter (magnitude and a direction
 * quantised to 0, 45, 90, 135 degrees), non-maximum suppression along the direction and
 * hysteresis thresholding; each stage writes the inner pixels only. CHAI's CUDA-U/CEDD with
 * dynamic partitioning: two proxies take whole frames from one counter (coarse grain). The GPU
 * proxy is CPU thread 0: it copies the frame into its buffer, launches the four kernels (16x16
 * work-groups of 8 warps, the tile and its halo staged in the scratchpad; CHAI's kernels), waits
 * for them and copies the result out. The CPU proxy is thread 1 with threads 1 .. T-1 as its
 * workers: it copies the frame into its own buffers, then the workers run each stage on rows
 * k + 1, k + 1 + (T - 1), ... (CHAI's run_cpu_threads) with a barrier between stages, and the
 * proxy copies the result out. Buffers as in CHAI: the frame buffer, an intermediate buffer and
 * a direction buffer per proxy; the stages go frame -> interm -> frame (+ theta) -> interm ->
 * frame, so the output keeps the frame's outer ring.
 *
 * CHAI reads its frames from files (input/peppa/, 354 x 626); here frames are synthetic: a
 * gradient background, a rectangle and a disc that move from frame to frame, and seeded noise.
 * Every pixel is computed by one C function (cedd_pixel) on the values the thread or warp read
 * through the modelled memory, and by the host for its reference, so the check is exact. CPU
 * threads move bytes in 8-byte words where a row's bytes are aligned (as vectorised code does).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "workloads/chai.h"
#include "workloads/hetero_util.h"

#define CEDD_LINE     64
#define CEDD_TILE     16 /* CHAI's n_gpu_threads: 16 x 16 work-groups */
#define CEDD_WARPS    (CEDD_TILE * CEDD_TILE / WARP_LANES)
#define CEDD_HALO     (CEDD_TILE + 2)
#define CEDD_MAX_COLS 512
#define CEDD_CPU      1 /* owner[f]: the proxy that did frame f */
#define CEDD_GPU      2
#define CEDD_TAG      0x6368616963656464ull

enum cedd_stage { CEDD_GAUSS, CEDD_SOBEL, CEDD_NMS, CEDD_HYST, CEDD_STAGES };

/* Work per pixel and stage: CPU cycles (about 2 operations a cycle) and a warp's issue slots. */
static const unsigned cedd_cpu_cycles[CEDD_STAGES] = {10, 40, 6, 3};
static const unsigned cedd_gpu_slots[CEDD_STAGES] = {20, 80, 12, 6};
static const char *const cedd_stage_name[CEDD_STAGES] = {"gaussian", "sobel", "non_max_supp",
							 "hysteresis"};

struct cedd_bufs {
	uint64_t frame, interm, theta;
};

struct cedd_args;

struct cedd_kargs {
	const struct cedd_args *a;
	enum cedd_stage stage;
	uint64_t src, dst, theta;
};

struct cedd_args {
	uint64_t in, out, owner, worklist, slot, bar; /* in, out: frames of `stride` bytes */
	uint64_t seed, stride;
	unsigned rows, cols, frames, threads;
	struct cedd_bufs cpu, gpu;
	struct cedd_kargs kargs[CEDD_STAGES];
	struct gpu_kernel kernel[CEDD_STAGES];
};

/* ---- the pipeline, one pixel at a time (CHAI's kernel.cpp and kernel.cu) -------------------- */

/* Output pixel of a stage from its 3x3 neighbourhood nb (row by row) of the stage's input and,
 * for non-maximum suppression, the direction th; Sobel also gives the direction in *th_out. */
static uint8_t cedd_pixel(enum cedd_stage s, const int nb[9], uint8_t th, uint8_t *th_out)
{
	static const float gaus[9] = {0.0625f, 0.125f,	0.0625f, 0.125f, 0.25f,
				      0.125f,  0.0625f, 0.125f,	 0.0625f};
	static const int sobx[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
	static const int soby[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
	const float pi = 3.14159265f;
	int sum = 0, m = nb[4];
	float sx = 0, sy = 0, angle;

	switch (s) {
	case CEDD_GAUSS:
		for (unsigned i = 0; i < 9; i++)
			sum = (int)((float)sum + gaus[i] * (float)nb[i]); /* CHAI: int += float */
		return (uint8_t)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
	case CEDD_SOBEL:
		for (unsigned i = 0; i < 9; i++) {
			sx += (float)(sobx[i] * nb[i]);
			sy += (float)(soby[i] * nb[i]);
		}
		sum = (int)hypotf(sx, sy);
		angle = atan2f(sy, sx);
		if (angle < 0)
			angle = fmodf(angle + 2 * pi, 2 * pi);
		/* rounded to 0, 45, 90 or 135 degrees, by eighths of pi */
		*th_out = angle <= pi / 8	 ? 0
			  : angle <= 3 * pi / 8	 ? 45
			  : angle <= 5 * pi / 8	 ? 90
			  : angle <= 7 * pi / 8	 ? 135
			  : angle <= 9 * pi / 8	 ? 0
			  : angle <= 11 * pi / 8 ? 45
			  : angle <= 13 * pi / 8 ? 90
			  : angle <= 15 * pi / 8 ? 135
						 : 0;
		return (uint8_t)(sum > 255 ? 255 : sum);
	case CEDD_NMS:
		switch (th) {
		case 0: /* east, west */
			return m <= nb[5] || m <= nb[3] ? 0 : (uint8_t)m;
		case 45: /* north-east, south-west */
			return m <= nb[2] || m <= nb[6] ? 0 : (uint8_t)m;
		case 90: /* north, south */
			return m <= nb[1] || m <= nb[7] ? 0 : (uint8_t)m;
		case 135: /* north-west, south-east */
			return m <= nb[0] || m <= nb[8] ? 0 : (uint8_t)m;
		default:
			return (uint8_t)m;
		}
	default: /* hysteresis: high 70, low 10, between them the midpoint decides */
		return m >= 70 ? 255 : m <= 10 ? 0 : m >= 40 ? 255 : 0;
	}
}

/* A stage on the inner pixels of one row: up, mid, down are rows r-1, r, r+1 of its input,
 * th_in row r of the direction buffer; writes out[1 .. cols-2] and for Sobel th_out too. */
static void cedd_row(enum cedd_stage s, unsigned cols, const uint8_t *up, const uint8_t *mid,
		     const uint8_t *down, const uint8_t *th_in, uint8_t *out, uint8_t *th_out)
{
	for (unsigned c = 1; c + 1 < cols; c++) {
		int nb[9] = {up[c - 1],	 up[c],	      up[c + 1], mid[c - 1], mid[c],
			     mid[c + 1], down[c - 1], down[c],	 down[c + 1]};
		uint8_t th = 0;

		out[c] = cedd_pixel(s, nb, th_in[c], &th);
		if (s == CEDD_SOBEL)
			th_out[c] = th;
	}
}

static void cedd_stage_bufs(const struct cedd_bufs *b, enum cedd_stage s, uint64_t *src,
			    uint64_t *dst)
{
	*src = s == CEDD_GAUSS || s == CEDD_NMS ? b->frame : b->interm;
	*dst = s == CEDD_GAUSS || s == CEDD_NMS ? b->interm : b->frame;
}

/* The synthetic frame f: a vertical gradient, a bright rectangle and a mid-gray disc moving with
 * f, and seeded noise of +-8. */
static uint8_t cedd_input(const struct cedd_args *a, unsigned f, unsigned r, unsigned c)
{
	int rows = (int)a->rows, cols = (int)a->cols, v = 50 + 60 * (int)r / rows;
	int x0 = cols / 8 + 3 * (int)f, y0 = rows / 5 + (int)f, dx, dy;
	int cx = cols / 2 + 2 * (int)f, cy = rows / 2, rad = rows / 4;

	if ((int)c >= x0 && (int)c < x0 + cols / 4 && (int)r >= y0 && (int)r < y0 + rows / 3)
		v = 210;
	dx = (int)c - cx;
	dy = (int)r - cy;
	if (dx * dx + dy * dy <= rad * rad)
		v = 140;
	v += (int)(wl_value32(a->seed ^ CEDD_TAG, f, 0, (uint64_t)r * a->cols + c) % 17) - 8;
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* ---- GPU: one kernel per stage ------------------------------------------------------------- */

/* Per-lane byte loads of the pixels (row[l], col[l]) of buf into v (lanes of mask). */
static void cedd_gpu_ld(struct gpu_warp *w, const struct cedd_args *a, uint64_t buf,
			const unsigned *row, const unsigned *col, uint32_t mask, uint64_t *v)
{
	uint64_t addr[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++)
		addr[l] = buf + (uint64_t)row[l] * a->cols + col[l];
	gw_ldv(w, addr, mask, 1, v);
}

static void cedd_gpu(struct gpu_warp *w)
{
	const struct cedd_kargs *k = gw_args(w);
	const struct cedd_args *a = k->a;
	int32_t *tile = gw_smem(w); /* [CEDD_HALO][CEDD_HALO], CHAI's l_data */
	unsigned tc = (a->cols - 2) / CEDD_TILE, wp = gw_warp(w);
	unsigned r0 = gw_cta(w) / tc * CEDD_TILE, c0 = gw_cta(w) % tc * CEDD_TILE; /* halo corner */
	unsigned row[WARP_LANES], col[WARP_LANES], ty[WARP_LANES], tx[WARP_LANES];
	uint64_t v[WARP_LANES], th[WARP_LANES] = {0}, out[WARP_LANES], tho[WARP_LANES];

	for (unsigned l = 0; l < WARP_LANES; l++) {
		ty[l] = 2 * wp + l / CEDD_TILE + 1;
		tx[l] = l % CEDD_TILE + 1;
		row[l] = r0 + ty[l];
		col[l] = c0 + tx[l];
	}
	cedd_gpu_ld(w, a, k->src, row, col, LANES_ALL, v);
	for (unsigned l = 0; l < WARP_LANES; l++)
		tile[ty[l] * CEDD_HALO + tx[l]] = (int32_t)v[l];
	if (k->stage != CEDD_HYST) {
		/* the halo: the first warp the row above, the last the row below, every warp the
		 * columns left and right of its two rows */
		unsigned hr[WARP_LANES] = {0}, hc[WARP_LANES] = {0};
		uint32_t n = 0;

		if (wp == 0 || wp == CEDD_WARPS - 1)
			for (unsigned i = 0; i < CEDD_HALO; i++, n++) {
				hr[n] = wp == 0 ? 0 : CEDD_HALO - 1;
				hc[n] = i;
			}
		for (unsigned i = 0; i < 4; i++, n++) {
			hr[n] = 2 * wp + i / 2 + 1;
			hc[n] = i % 2 ? CEDD_HALO - 1 : 0;
		}
		for (unsigned i = 0; i < n; i++) {
			row[i] = r0 + hr[i];
			col[i] = c0 + hc[i];
		}
		cedd_gpu_ld(w, a, k->src, row, col, (uint32_t)((1ull << n) - 1), out);
		for (unsigned i = 0; i < n; i++)
			tile[hr[i] * CEDD_HALO + hc[i]] = (int32_t)out[i];
		for (unsigned l = 0; l < WARP_LANES; l++) {
			row[l] = r0 + ty[l];
			col[l] = c0 + tx[l];
		}
	}
	gw_smem_access(w);
	gw_barrier(w);
	if (k->stage == CEDD_NMS)
		cedd_gpu_ld(w, a, k->theta, row, col, LANES_ALL, th);
	for (unsigned l = 0; l < WARP_LANES; l++) {
		int nb[9];
		uint8_t t = 0;

		for (unsigned i = 0; i < 9; i++)
			nb[i] = tile[(ty[l] + i / 3 - 1) * CEDD_HALO + tx[l] + i % 3 - 1];
		out[l] = cedd_pixel(k->stage, nb, (uint8_t)th[l], &t);
		tho[l] = t;
	}
	for (unsigned i = 0; i < (k->stage == CEDD_HYST ? 1u : 9u); i++)
		gw_smem_access(w);
	gw_compute(w, cedd_gpu_slots[k->stage]);
	for (unsigned l = 0; l < WARP_LANES; l++)
		v[l] = k->dst + (uint64_t)row[l] * a->cols + col[l];
	gw_stv(w, v, LANES_ALL, 1, out);
	if (k->stage == CEDD_SOBEL) {
		for (unsigned l = 0; l < WARP_LANES; l++)
			v[l] = k->theta + (uint64_t)row[l] * a->cols + col[l];
		gw_stv(w, v, LANES_ALL, 1, tho);
	}
}

/* ---- CPU: byte ranges in words, the proxies ------------------------------------------------- */

/* len bytes at addr into buf: 8-byte loads of the words that cover them, 64 in flight. */
static void cedd_cpu_read(struct cpu_thread *t, uint64_t addr, unsigned len, uint8_t *buf)
{
	uint64_t end = (addr + len + 7) & ~7ull, wa[CPU_LDV_MAX], wv[CPU_LDV_MAX];

	for (uint64_t p = addr & ~7ull; p < end; p += 8 * CPU_LDV_MAX) {
		unsigned n = (end - p) / 8 < CPU_LDV_MAX ? (unsigned)((end - p) / 8) : CPU_LDV_MAX;

		for (unsigned i = 0; i < n; i++)
			wa[i] = p + 8 * i;
		ct_ldv(t, wa, n, 8, wv);
		for (uint64_t b = p; b < p + 8 * n; b++)
			if (b >= addr && b < addr + len)
				buf[b - addr] = (uint8_t)(wv[(b - p) / 8] >> (8 * (b % 8)));
	}
}

/* len bytes of buf to addr: byte stores up to the first aligned word, then words, then bytes. */
static void cedd_cpu_write(struct cpu_thread *t, uint64_t addr, unsigned len, const uint8_t *buf)
{
	uint64_t p = addr, end = addr + len;

	for (; p < end && (p % 8 || end - p < 8); p++)
		ct_st(t, p, 1, buf[p - addr]);
	for (; p + 8 <= end; p += 8) {
		uint64_t v;

		memcpy(&v, buf + (p - addr), 8);
		ct_st64(t, p, v);
	}
	for (; p < end; p++)
		ct_st(t, p, 1, buf[p - addr]);
}

/* memcpy of a frame (CHAI's proxies copy each frame in and its result out). */
static void cedd_cpu_copy(struct cpu_thread *t, uint64_t dst, uint64_t src, uint64_t len)
{
	uint8_t chunk[8 * CPU_LDV_MAX];

	for (uint64_t o = 0; o < len; o += sizeof(chunk)) {
		unsigned n = len - o < sizeof(chunk) ? (unsigned)(len - o) : sizeof(chunk);

		cedd_cpu_read(t, src + o, n, chunk);
		cedd_cpu_write(t, dst + o, n, chunk);
	}
}

/* Worker k of n runs stage s on rows k + 1, k + 1 + n, ... of the CPU proxy's buffers. */
static void cedd_cpu_stage(struct cpu_thread *t, const struct cedd_args *a, enum cedd_stage s,
			   unsigned k, unsigned n)
{
	uint8_t in[3][CEDD_MAX_COLS] = {{0}}, th[CEDD_MAX_COLS] = {0}, out[CEDD_MAX_COLS],
		tho[CEDD_MAX_COLS];
	uint64_t src, dst, c = a->cols;

	cedd_stage_bufs(&a->cpu, s, &src, &dst);
	for (unsigned r = k + 1; r + 1 < a->rows; r += n) {
		if (s == CEDD_HYST)
			cedd_cpu_read(t, src + r * c, a->cols, in[1]);
		else
			for (unsigned i = 0; i < 3; i++)
				cedd_cpu_read(t, src + (r + i - 1) * c, a->cols, in[i]);
		if (s == CEDD_NMS)
			cedd_cpu_read(t, a->cpu.theta + r * c, a->cols, th);
		cedd_row(s, a->cols, in[0], in[1], in[2], th, out, tho);
		ct_compute(t, (uint64_t)(a->cols - 2) * cedd_cpu_cycles[s]);
		cedd_cpu_write(t, dst + r * c + 1, a->cols - 2, out + 1);
		if (s == CEDD_SOBEL)
			cedd_cpu_write(t, a->cpu.theta + r * c + 1, a->cols - 2, tho + 1);
	}
}

static void cedd_gpu_proxy(struct cpu_thread *t, const struct cedd_args *a)
{
	uint64_t size = (uint64_t)a->rows * a->cols;
	unsigned f;

	while ((f = chai_cpu_take(t, a->worklist)) < a->frames) {
		cedd_cpu_copy(t, a->gpu.frame, a->in + f * a->stride, size);
		for (unsigned s = 0; s < CEDD_STAGES; s++)
			ct_launch(t, &a->kernel[s]);
		ct_gpu_wait(t);
		cedd_cpu_copy(t, a->out + f * a->stride, a->gpu.frame, size);
		ct_st32(t, a->owner + 4 * f, CEDD_GPU);
	}
}

/* Threads 1 .. T-1: thread 1 is the proxy, all of them its workers. */
static void cedd_cpu_proxy(struct cpu_thread *t, const struct cedd_args *a)
{
	unsigned k = ct_id(t) - 1, n = ct_threads(t) - 1, round = 0;
	uint64_t size = (uint64_t)a->rows * a->cols;

	for (;;) {
		unsigned f;

		if (k == 0)
			ct_st32(t, a->slot, chai_cpu_take(t, a->worklist));
		if (!hx_cpu_group_barrier(t, a->bar, n, ++round, "chai_cedd"))
			return;
		f = ct_ld32(t, a->slot);
		if (f >= a->frames)
			return;
		if (k == 0)
			cedd_cpu_copy(t, a->cpu.frame, a->in + f * a->stride, size);
		for (unsigned s = 0; s < CEDD_STAGES; s++) {
			if (!hx_cpu_group_barrier(t, a->bar, n, ++round, "chai_cedd"))
				return;
			cedd_cpu_stage(t, a, (enum cedd_stage)s, k, n);
		}
		if (!hx_cpu_group_barrier(t, a->bar, n, ++round, "chai_cedd"))
			return;
		if (k == 0) {
			cedd_cpu_copy(t, a->out + f * a->stride, a->cpu.frame, size);
			ct_st32(t, a->owner + 4 * f, CEDD_CPU);
		}
	}
}

static void cedd_cpu(struct cpu_thread *t)
{
	const struct cedd_args *a = ct_args(t);

	if (ct_id(t) == 0)
		cedd_gpu_proxy(t, a);
	else
		cedd_cpu_proxy(t, a);
}

/* ---- host ---------------------------------------------------------------------------------- */

/* The reference of frame f into out (rows * cols): CHAI's four stages on a proxy's buffers. */
static void cedd_reference(const struct cedd_args *a, unsigned f, uint8_t *out, uint8_t *interm,
			   uint8_t *theta)
{
	unsigned c = a->cols;

	for (unsigned r = 0; r < a->rows; r++)
		for (unsigned x = 0; x < c; x++)
			out[r * c + x] = cedd_input(a, f, r, x);
	memset(interm, 0, (size_t)a->rows * c); /* its outer ring is never written */
	for (unsigned s = 0; s < CEDD_STAGES; s++) {
		const uint8_t *src = s == CEDD_GAUSS || s == CEDD_NMS ? out : interm;
		uint8_t *dst = s == CEDD_GAUSS || s == CEDD_NMS ? interm : out;

		for (unsigned r = 1; r + 1 < a->rows; r++)
			cedd_row((enum cedd_stage)s, c, src + (r - 1) * c, src + r * c,
				 src + (r + 1) * c, theta + r * c, dst + r * c, theta + r * c);
	}
}

int chai_cedd_main(struct cpu_host *h)
{
	struct cedd_args a = {.seed = ch_seed(h),
			      .rows = 2 + CEDD_TILE * (unsigned)wl_size_pick(ch_size(h), 2, 4, 8),
			      .cols = 2 + CEDD_TILE * (unsigned)wl_size_pick(ch_size(h), 4, 8, 16),
			      .frames = (unsigned)wl_size_pick(ch_size(h), 4, 6, 16),
			      .threads = ch_cores(h)};
	struct cpu_program p = {.name = "cedd", .threads = a.threads, .fn = cedd_cpu, .args = &a};
	uint64_t size = (uint64_t)a.rows * a.cols, checked = 0;
	unsigned frames[3] = {0}, ref_frame = ~0u;
	uint8_t *buf, *ref, *interm, *theta;
	struct wl_sample s;
	int rc = 0;

	if (a.threads < 2)
		return ch_fail(h, "chai_cedd: needs 2 CPU cores or more (the two proxies)");
	a.stride = (size + CEDD_LINE - 1) / CEDD_LINE * CEDD_LINE;
	a.in = ch_alloc(h, a.stride * a.frames, CEDD_LINE);
	a.out = ch_alloc(h, a.stride * a.frames, CEDD_LINE);
	a.owner = ch_alloc(h, 4 * (uint64_t)a.frames, CEDD_LINE);
	a.worklist = ch_alloc(h, CEDD_LINE, CEDD_LINE);
	a.slot = ch_alloc(h, CEDD_LINE, CEDD_LINE);
	a.bar = ch_alloc(h, CEDD_LINE, CEDD_LINE);
	for (unsigned i = 0; i < 2; i++) {
		struct cedd_bufs *b = i ? &a.gpu : &a.cpu;

		b->frame = ch_alloc(h, a.stride, CEDD_LINE);
		b->interm = ch_alloc(h, a.stride, CEDD_LINE);
		b->theta = ch_alloc(h, a.stride, CEDD_LINE);
	}
	for (unsigned st = 0; st < CEDD_STAGES; st++) {
		a.kargs[st] = (struct cedd_kargs){.a = &a, .stage = st, .theta = a.gpu.theta};
		cedd_stage_bufs(&a.gpu, st, &a.kargs[st].src, &a.kargs[st].dst);
		a.kernel[st] = (struct gpu_kernel){.name = cedd_stage_name[st],
						   .ctas = (a.rows - 2) / CEDD_TILE *
							   ((a.cols - 2) / CEDD_TILE),
						   .warps_per_cta = CEDD_WARPS,
						   .smem_bytes = 4 * CEDD_HALO * CEDD_HALO,
						   .fn = cedd_gpu,
						   .args = &a.kargs[st]};
	}
	buf = malloc(3 * size + a.stride);
	if (!buf)
		return -CS_ENOMEM;
	ref = buf + a.stride;
	interm = ref + size;
	theta = interm + size;
	for (unsigned f = 0; f < a.frames; f++) {
		for (unsigned r = 0; r < a.rows; r++)
			for (unsigned x = 0; x < a.cols; x++)
				buf[r * a.cols + x] = cedd_input(&a, f, r, x);
		ch_write(h, a.in + f * a.stride, buf, size);
	}
	rc = ch_run(h, &p);
	if (rc)
		goto out;

	for (unsigned f = 0; f < a.frames; f++) {
		uint32_t o = ch_read32(h, a.owner + 4 * f);

		if (o != CEDD_CPU && o != CEDD_GPU) {
			rc = ch_fail(h,
				     "chai_cedd: frame %u was done by no proxy (owner %" PRIu32 ")",
				     f, o);
			goto out;
		}
		frames[o]++;
	}
	chai_sample_init(h, &s, a.frames * size, CEDD_TAG);
	for (uint64_t i = 0; i < a.frames * size; i++) {
		unsigned f = (unsigned)(i / size), r = (unsigned)(i % size / a.cols);
		unsigned x = (unsigned)(i % a.cols);
		uint8_t got;

		if (!wl_sample_take(&s))
			continue;
		if (f != ref_frame) {
			cedd_reference(&a, f, ref, interm, theta);
			ref_frame = f;
		}
		ch_read(h, a.out + f * a.stride + i % size, &got, 1);
		if (got != ref[i % size]) {
			rc = ch_fail(
			    h,
			    "chai_cedd: frame %u (done by the %s proxy) pixel (%u, %u): read "
			    "%u, expected %u",
			    f, ch_read32(h, a.owner + 4 * f) == CEDD_CPU ? "CPU" : "GPU", r, x, got,
			    ref[i % size]);
			goto out;
		}
		checked++;
	}
	ch_note(h,
		"chai_cedd (%s): %u frames of %ux%u (%" PRIu64 " B), 4 stages, %u work-groups "
		"per kernel; %" PRIu64 " pixels verified",
		wl_size_str(ch_size(h)), a.frames, a.rows, a.cols, size, a.kernel[0].ctas, checked);
	chai_note_split(h, "chai_cedd", "frames", frames[CEDD_CPU], frames[CEDD_GPU]);
out:
	free(buf);
	return rc;
}
