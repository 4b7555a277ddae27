/*
 * workloads/ispass/nn.c - NN, the convolutional neural network of the ISPASS-2009 set (Bakhoda
 * et al., "Analyzing CUDA workloads using a detailed GPU simulator", ISPASS 2009; GPGPU-Sim's
 * ispass2009-benchmarks NN/NN.cu and NN_kernel.cu, after Simard et al.'s handwritten-digit
 * network).
 *
 * NUM 29 x 29 images (MNIST digits framed by a blank row and column) go through four layers,
 * one kernel each, every neuron computing bias + sum(input * weight) and 1.7159 tanh(2/3 x):
 * - executeFirstLayer, grid (6, NUM), CTA 13 x 13: 6 feature maps of 13 x 13, each neuron a
 *   5 x 5 window at stride 2 of the image (the window offsets in __constant__ kernelTemplate);
 * - executeSecondLayer, grid (50, NUM), CTA 5 x 5: 50 maps of 5 x 5, each neuron 5 x 5 windows
 *   at stride 2 of all 6 first-layer maps (kernelTemplate2);
 * - executeThirdLayer, grid (100, NUM), CTA 1 x 1: 100 neurons fully connected to the 1250;
 * - executeFourthLayer, grid (10, NUM), CTA 1 x 1: the 10 outputs, fully connected to the 100
 *   (the thesis shows its Layer4_Neurons_GPU code).
 * blockIdx.x is the map (the CTA's weights start at blockID * 26, * 156, * 1251, * 101) and
 * blockIdx.y the image. Access pattern as the CUDA code compiles: a weight is the same word
 * for every thread of a CTA (one uniform load per warp), a neuron of the previous layer is a
 * per-lane load (stride-2 windows: a warp touches 2-4 lines), a template offset is a uniform
 * constant-memory read; the one-thread layers walk their inputs and weights word by word.
 *
 * The 2-D CTAs are not multiples of a warp (169 and 25 threads), so the CTA is given as 6 and
 * 1 warps and threadIdx.x / .y are derived from the linear thread index t as CUDA lays them out
 * (x = t % 13, y = t / 13), the lanes past the CTA's threads idle; gpu_kernel.block_x must
 * divide the warp-rounded thread count, which 13 and 5 do not.
 *
 * No coherence needed: each layer reads only what earlier launches wrote.
 *
 * Input: the original reads MNIST's t10k images and four trained weight files (lw1..lw4.wei);
 * here digit-like images (a blank background, strokes of ink) and weights uniform in
 * +-2.4 / fan-in (LeCun's initialisation) from the seed; pixels become 1 - p / 256 as readIn()
 * does. Check: every output neuron (and every neuron of the three hidden layers) bit for bit
 * against a host reference running the same float operations in the same order through the
 * same functions (the multiply-add as FMUL + FADD: nvcc would fuse it into FFMA; the activation
 * in double with the host's tanhf on both sides).
 */
#include "workloads/ispass/ispass.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_NN 0x6e6e000000000000ull

/* Layer sizes (NN.cu): neurons per image of layers 1 .. 5 and weights of layers 1 .. 4. */
#define NN_L1_N 841  /* 29 x 29 */
#define NN_L2_N 1014 /* 6 x 13 x 13 */
#define NN_L3_N 1250 /* 50 x 5 x 5 */
#define NN_L4_N 100
#define NN_L5_N 10
#define NN_L1_W 156    /* 6 x 26 */
#define NN_L2_W 7800   /* 50 x 156 */
#define NN_L3_W 125100 /* 100 x 1251 */
#define NN_L4_W 1010   /* 10 x 101 */
#define NN_TAPS 25     /* 5 x 5 kernel windows */

/*
 * Issue slots per warp (SASS-like counts of the four kernels):
 * prologue of the convolutions: 4 S2R, weightBegin (IMUL), windowX / windowY (2 SHL), the
 *   neuron base index (2 IMAD), the weight address (ISCADD), result = 0 + bias (FADD): 11;
 * first layer, per tap (unrolled): neuron index + template (IADD), address (ISCADD), FFMA: 3;
 * second layer, per tap: template index (IADD), per channel an address (ISCADD) and an FFMA
 *   (12): 13;
 * the activation: F2F to double, DMUL (8), F2F, tanhf (~20: MUFU.EX2 and MUFU.RCP at the
 *   SFU's 1/8 rate, the FMAs around them), F2F, DMUL (8), F2F, the output index (2 IMAD) and
 *   address: 43 (a double-precision instruction counts 8 as on the GTX 480);
 * fully connected layers: prologue 2 S2R, weightBegin (IMUL), three addresses, bias: 7; per
 *   input, the loop unrolled by 4: FFMA, the two address increments and the loop test
 *   amortised over 4: 3.
 */
#define NN_CONV_PROLOGUE 11
#define NN_L1_TAP	 3
#define NN_L2_TAP	 13
#define NN_ACTIVATE	 43
#define NN_FC_PROLOGUE	 7
#define NN_FC_INPUT	 3

/* NN_kernel.cu's __constant__ kernelTemplate and kernelTemplate2. */
static const int32_t nn_template1[NN_TAPS] = {0,  1,  2,   3,	4,   29,  30, 31, 32,
					      33, 58, 59,  60,	61,  62,  87, 88, 89,
					      90, 91, 116, 117, 118, 119, 120};
static const int32_t nn_template2[NN_TAPS] = {0,  1,  2,  3,  4,  13, 14, 15, 16, 17, 26, 27, 28,
					      29, 30, 39, 40, 41, 42, 43, 52, 53, 54, 55, 56};

struct nn_args {
	uint64_t in, weights, out; /* float arrays of the layer */
	uint64_t tmpl;		   /* int [25]: the layer's kernelTemplate (constant memory) */
};

/* result += neuron * weight (FMUL + FADD in this order), kernel and host. */
static __attribute__((noinline)) float nn_mac(float acc, float neuron, float weight)
{
	return acc + neuron * weight;
}

/* result = 1.7159 * tanhf(0.66666667 * result): the literals are doubles, tanhf takes and
 * returns float, the product is stored to a float. */
static __attribute__((noinline)) float nn_activate(float x)
{
	return (float)(1.7159 * (double)tanhf((float)(0.66666667 * (double)x)));
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* threadIdx.x, .y of the lanes of a CTA of bx x by threads; returns the mask of the lanes that
 * are threads of it. */
static uint32_t nn_threads(struct gpu_warp *w, unsigned bx, unsigned by, int *x, int *y)
{
	uint32_t in = 0;

	for (unsigned l = 0; l < WARP_LANES; l++) {
		unsigned t = gw_warp(w) * WARP_LANES + l;

		x[l] = (int)(t % bx);
		y[l] = (int)(t / bx);
		if (t < bx * by)
			in |= 1u << l;
	}
	return in;
}

/*
 * A convolutional layer: maps of side x side neurons (a CTA of side x side threads per map and
 * image), each neuron bias + NN_TAPS stride-2 windows (the template) over the chans input maps
 * of in_side x in_side; the map's weights are 26 per input map.
 */
struct nn_conv {
	int in_side, chans, side, maps;
	int in_n, out_n; /* neurons per image of the input and the output layer */
	unsigned tap_cost;
	const int32_t *tmpl; /* the host's copy of the template */
};

static const struct nn_conv nn_conv1 = {29, 1, 13, 6, NN_L1_N, NN_L2_N, NN_L1_TAP, nn_template1};
static const struct nn_conv nn_conv2 = {13, 6, 5, 50, NN_L2_N, NN_L3_N, NN_L2_TAP, nn_template2};

/* executeFirstLayer / executeSecondLayer */
static void nn_conv_layer(struct gpu_warp *w, const struct nn_conv *cv)
{
	const struct nn_args *a = gw_args(w);
	int block = (int)gw_cta_x(w), image = (int)gw_cta_y(w), in_map = cv->in_side * cv->in_side;
	int px[WARP_LANES], py[WARP_LANES];
	uint32_t in = nn_threads(w, (unsigned)cv->side, (unsigned)cv->side, px, py), n[WARP_LANES];
	uint64_t wb = a->weights + (uint64_t)block * 26 * cv->chans * 4, addr[WARP_LANES];
	float result[WARP_LANES], bias;

	gw_compute(w, NN_CONV_PROLOGUE);
	if (!in)
		return;
	bias = wl_u2f(gw_ld32(w, wb));
	for (unsigned l = 0; l < WARP_LANES; l++)
		result[l] = 0.f + bias;
	for (int i = 0; i < NN_TAPS; i++) {
		int32_t tmpl = (int32_t)gw_ld_const32(w, a->tmpl + 4 * (uint64_t)i);

		for (int c = 0; c < cv->chans; c++) {
			float weight;

			for (unsigned l = 0; l < WARP_LANES; l++)
				addr[l] = a->in + 4 * (uint64_t)((in_map * c + px[l] * 2 +
								  cv->in_side * py[l] * 2 + tmpl) +
								 cv->in_n * image);
			gw_ld32v(w, addr, in, n);
			weight = wl_u2f(gw_ld32(w, wb + 4 * (uint64_t)(1 + i * cv->chans + c)));
			for (unsigned l = 0; l < WARP_LANES; l++)
				if (in >> l & 1)
					result[l] = nn_mac(result[l], wl_u2f(n[l]), weight);
		}
		gw_compute(w, cv->tap_cost);
	}
	for (unsigned l = 0; l < WARP_LANES; l++) {
		n[l] = in >> l & 1 ? wl_f2u(nn_activate(result[l])) : 0;
		addr[l] = a->out +
			  4 * (uint64_t)((cv->side * cv->side * block + py[l] * cv->side + px[l]) +
					 cv->out_n * image);
	}
	gw_compute(w, NN_ACTIVATE);
	gw_st32v(w, addr, in, n);
}

static void nn_first_layer(struct gpu_warp *w)
{
	nn_conv_layer(w, &nn_conv1);
}

static void nn_second_layer(struct gpu_warp *w)
{
	nn_conv_layer(w, &nn_conv2);
}

/* executeThirdLayer / executeFourthLayer: one thread per CTA (lane 0: uniform ops) walks its
 * `inputs` inputs and weights. */
static void nn_full(struct gpu_warp *w, unsigned inputs, unsigned outputs)
{
	const struct nn_args *a = gw_args(w);
	uint64_t block = gw_cta_x(w), image = gw_cta_y(w);
	uint64_t wb = a->weights + block * (inputs + 1) * 4, nb = a->in + image * inputs * 4;
	float result;

	gw_compute(w, NN_FC_PROLOGUE);
	result = 0.f + wl_u2f(gw_ld32(w, wb));
	for (unsigned i = 0; i < inputs; i++) {
		float neuron = wl_u2f(gw_ld32(w, nb + 4 * (uint64_t)i));
		float weight = wl_u2f(gw_ld32(w, wb + 4 * (uint64_t)(1 + i)));

		result = nn_mac(result, neuron, weight);
		gw_compute(w, NN_FC_INPUT);
	}
	gw_compute(w, NN_ACTIVATE);
	gw_st32(w, a->out + (block + outputs * image) * 4, wl_f2u(nn_activate(result)));
}

static void nn_third_layer(struct gpu_warp *w)
{
	nn_full(w, NN_L3_N, NN_L4_N);
}

static void nn_fourth_layer(struct gpu_warp *w)
{
	nn_full(w, NN_L4_N, NN_L5_N);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* A convolutional layer of one image on the host, the kernel's operations in its order. */
static void nn_ref_conv(const struct nn_conv *cv, const float *in, const float *wts, float *out)
{
	for (int m = 0; m < cv->maps; m++)
		for (int y = 0; y < cv->side; y++)
			for (int x = 0; x < cv->side; x++) {
				const float *wt = wts + m * 26 * cv->chans;
				float r = 0.f + wt[0];

				for (int i = 0; i < NN_TAPS; i++)
					for (int c = 0; c < cv->chans; c++)
						r = nn_mac(
						    r,
						    in[cv->in_side * cv->in_side * c + x * 2 +
						       cv->in_side * y * 2 + cv->tmpl[i]],
						    wt[1 + i * cv->chans + c]);
				out[cv->side * cv->side * m + y * cv->side + x] = nn_activate(r);
			}
}

/* A fully connected layer of one image on the host (nn_full's order). */
static void nn_ref_full(const float *in, const float *wts, float *out, int inputs, int outputs)
{
	for (int m = 0; m < outputs; m++) {
		const float *wt = wts + m * (inputs + 1);
		float r = 0.f + wt[0];

		for (int i = 0; i < inputs; i++)
			r = nn_mac(r, in[i], wt[1 + i]);
		out[m] = nn_activate(r);
	}
}

/* The whole network for one image. */
static void nn_reference(const float *l1, const float *w1, const float *w2, const float *w3,
			 const float *w4, float *l2, float *l3, float *l4, float *l5)
{
	nn_ref_conv(&nn_conv1, l1, w1, l2);
	nn_ref_conv(&nn_conv2, l2, w2, l3);
	nn_ref_full(l3, w3, l4, NN_L3_N, NN_L4_N);
	nn_ref_full(l4, w4, l5, NN_L4_N, NN_L5_N);
}

/* A digit-like 28 x 28 image in the top-left of the 29 x 29 frame (the last row and column
 * stay blank, as readIn() leaves them): a few strokes of ink around the centre. */
static void nn_image(uint64_t seed, uint64_t id, float *out)
{
	uint8_t px[29 * 29] = {0};
	uint64_t rng = wl_mix64(seed ^ (id * 0x9e3779b97f4a7c15ull));
	unsigned strokes = 2 + (unsigned)wl_below(&rng, 3);

	for (unsigned s = 0; s < strokes; s++) {
		int x = 6 + (int)wl_below(&rng, 16), y = 4 + (int)wl_below(&rng, 20);
		int dx = (int)wl_below(&rng, 3) - 1, dy = (int)wl_below(&rng, 3) - 1;
		unsigned len = 6 + (unsigned)wl_below(&rng, 10);

		for (unsigned k = 0; k < len; k++) {
			for (int oy = 0; oy < 2; oy++)
				for (int ox = 0; ox < 2; ox++) {
					int xx = x + ox, yy = y + oy;

					if (xx >= 0 && xx < 28 && yy >= 0 && yy < 28)
						px[yy * 29 + xx] =
						    (uint8_t)(128 + wl_below(&rng, 128));
				}
			x += dx;
			y += dy;
			if (wl_below(&rng, 4) == 0) {
				dx = (int)wl_below(&rng, 3) - 1;
				dy = (int)wl_below(&rng, 3) - 1;
			}
		}
	}
	for (unsigned i = 0; i < 29 * 29; i++)
		out[i] = (float)(1.0 - (float)px[i] / 256);
}

static void nn_weights(uint64_t seed, uint64_t id, float *w, size_t n, double fan_in)
{
	for (size_t i = 0; i < n; i++)
		w[i] = (float)((2.0 * wl_unit(seed, id, i) - 1.0) * 2.4 / fan_in);
}

/* Compares n floats; returns the index of the first difference or n. */
static size_t nn_diff(const float *got, const float *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (wl_f2u(got[i]) != wl_f2u(want[i]))
			return i;
	return n;
}

int ispass_nn_main(struct gpu_host *h)
{
	/* NN.cu's argument NUM (the GPGPU-Sim run: 28 images) */
	unsigned num = gh_size(h) == GPU_SIZE_FULL ? 28 : (unsigned)wl_by_size(h, 1, 2, 8);
	uint64_t seed = gh_seed(h) ^ TAG_NN;
	/* the four launches: grid (maps, NUM) */
	static const struct {
		const char *name;
		unsigned maps, warps, regs;
		void (*fn)(struct gpu_warp *w);
	} layer[4] = {
	    {"executeFirstLayer", 6, 6, 20, nn_first_layer},	/* 13 x 13 = 169 threads */
	    {"executeSecondLayer", 50, 1, 20, nn_second_layer}, /* 5 x 5 = 25 threads */
	    {"executeThirdLayer", 100, 1, 12, nn_third_layer},	/* one thread */
	    {"executeFourthLayer", 10, 1, 12, nn_fourth_layer},
	};
	struct nn_args a[4] = {{0}};
	size_t n1 = (size_t)NN_L1_N * num, n2 = (size_t)NN_L2_N * num, n3 = (size_t)NN_L3_N * num;
	size_t n4 = (size_t)NN_L4_N * num, n5 = (size_t)NN_L5_N * num;
	float *w1 = malloc(NN_L1_W * sizeof(float)), *w2 = malloc(NN_L2_W * sizeof(float));
	float *w3 = malloc(NN_L3_W * sizeof(float)), *w4 = malloc(NN_L4_W * sizeof(float));
	float *l1 = malloc(n1 * sizeof(float)), *l2 = malloc(n2 * sizeof(float));
	float *l3 = malloc(n3 * sizeof(float)), *l4 = malloc(n4 * sizeof(float));
	float *l5 = malloc(n5 * sizeof(float)), *got = malloc(n3 * sizeof(float));
	uint64_t dev[5], tmpl1, tmpl2;
	unsigned digits[NN_L5_N] = {0};
	int err = -CS_ENOMEM;

	if (!w1 || !w2 || !w3 || !w4 || !l1 || !l2 || !l3 || !l4 || !l5 || !got)
		goto out;
	for (unsigned i = 0; i < num; i++)
		nn_image(seed, i, l1 + (size_t)NN_L1_N * i);
	nn_weights(seed, 1 << 20 | 1, w1, NN_L1_W, 26);
	nn_weights(seed, 1 << 20 | 2, w2, NN_L2_W, 151);
	nn_weights(seed, 1 << 20 | 3, w3, NN_L3_W, NN_L3_N + 1);
	nn_weights(seed, 1 << 20 | 4, w4, NN_L4_W, NN_L4_N + 1);
	dev[0] = wl_upload(h, l1, n1 * sizeof(float));
	dev[1] = wl_alloc_zero(h, n2 * sizeof(float));
	dev[2] = wl_alloc_zero(h, n3 * sizeof(float));
	dev[3] = wl_alloc_zero(h, n4 * sizeof(float));
	dev[4] = wl_alloc_zero(h, n5 * sizeof(float));
	tmpl1 = wl_upload(h, nn_template1, sizeof(nn_template1));
	tmpl2 = wl_upload(h, nn_template2, sizeof(nn_template2));
	a[0] = (struct nn_args){dev[0], wl_upload(h, w1, NN_L1_W * sizeof(float)), dev[1], tmpl1};
	a[1] = (struct nn_args){dev[1], wl_upload(h, w2, NN_L2_W * sizeof(float)), dev[2], tmpl2};
	a[2] = (struct nn_args){dev[2], wl_upload(h, w3, NN_L3_W * sizeof(float)), dev[3], 0};
	a[3] = (struct nn_args){dev[3], wl_upload(h, w4, NN_L4_W * sizeof(float)), dev[4], 0};
	for (unsigned k = 0; k < 4; k++) {
		struct gpu_kernel kern = {.name = layer[k].name,
					  .grid_x = layer[k].maps,
					  .grid_y = num,
					  .warps_per_cta = layer[k].warps,
					  .regs_per_thread = layer[k].regs,
					  .fn = layer[k].fn,
					  .args = &a[k]};

		err = gh_launch(h, &kern);
		if (err)
			goto out;
	}
	gh_corrupt(h, dev[4] + 4 * (n5 / 2), 4);

	for (unsigned i = 0; i < num; i++)
		nn_reference(l1 + (size_t)NN_L1_N * i, w1, w2, w3, w4, l2 + (size_t)NN_L2_N * i,
			     l3 + (size_t)NN_L3_N * i, l4 + (size_t)NN_L4_N * i,
			     l5 + (size_t)NN_L5_N * i);
	{
		static const char *const name[4] = {"second-layer", "third-layer", "fourth-layer",
						    "output"};
		static const unsigned per[4] = {NN_L2_N, NN_L3_N, NN_L4_N, NN_L5_N};
		const float *want[4] = {l2, l3, l4, l5};
		size_t count[4] = {n2, n3, n4, n5};

		/* the outputs first: a wrong output is the failure to name */
		for (int k = 3; k >= 0; k--) {
			size_t i;

			gh_read(h, dev[k + 1], got, count[k] * sizeof(float));
			i = nn_diff(got, want[k], count[k]);
			if (i < count[k]) {
				err = gh_fail(h, "nn: %s neuron %zu of image %zu = %.9g, want %.9g",
					      name[k], i % per[k], i / per[k], (double)got[i],
					      (double)want[k][i]);
				goto out;
			}
		}
	}
	for (unsigned i = 0; i < num; i++) {
		unsigned best = 0;

		for (unsigned d = 1; d < NN_L5_N; d++)
			if (l5[i * NN_L5_N + d] > l5[i * NN_L5_N + best])
				best = d;
		digits[best]++;
	}
	gh_note(h,
		"nn: %u images through 4 layers (%zu + %zu + %zu + %zu neurons), every output and "
		"hidden neuron bit-exact; argmax digits 0-9: %u %u %u %u %u %u %u %u %u %u",
		num, n2, n3, n4, n5, digits[0], digits[1], digits[2], digits[3], digits[4],
		digits[5], digits[6], digits[7], digits[8], digits[9]);
	err = 0;
out:
	free(w1);
	free(w2);
	free(w3);
	free(w4);
	free(l1);
	free(l2);
	free(l3);
	free(l4);
	free(l5);
	free(got);
	return err;
}
