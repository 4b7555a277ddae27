/*
 * workloads/parboil/sad.c - sum of absolute differences (Parboil `sad`, Stratton et al. 2012;
 * the full-pixel motion estimation of the JM H.264 reference encoder), sad4.cu, largerBlocks.cu
 * and main.cu of Parboil's cuda version.
 *
 * For every 4x4 block of the current frame and every search position within +-16 pixels (33 x
 * 33 = MAX_POS = 1089 positions), the SAD against the reference frame; then the SADs of the
 * larger H.264 partitions (8x4, 4x8, 8x8, 16x8, 8x16, 16x16) summed from them. Three kernels:
 *
 * - mb_sad_calc: one CTA per 4x4 block (grid width/4 x height/4) of CEIL(1089, 18) = 61
 *   threads (2 warps, the second with 29 lanes). Threads 0..15 copy the block's 16 pixels into
 *   shared frame_loc; barrier; thread t computes the 18 positions from 18 t, three adjacent ones
 *   per iteration: per row y it fetches the 6 reference pixels the three 4-wide windows cover
 *   from the texture (tex2D, coordinates clamped at the frame edges), 24 fetches per
 *   iteration, and stores the three SADs into the shared sad_loc[MAX_POS_PADDED]; barrier; the
 *   32 threads of warp 0 copy sad_loc out as 274 8-byte words (9 coalesced stores).
 * - larger_sad_calc_8: one CTA of 32 x 4 threads per macroblock; warp y handles the 8x8
 *   quadrant (y & 1, y >> 1): per 2 search positions (a packed uint of two ushorts) it loads
 *   the four 4x4 SADs and stores the 8x4, 4x8 and 8x8 sums (4 loads, 5 stores per iteration, 18
 *   iterations of 32 lanes over the 545 words).
 * - larger_sad_calc_16: one CTA of 32 threads per macroblock: the same from the four 8x8 SADs
 *   to 16x8, 8x16 and 16x16.
 *
 * All SADs live in one array of 41 x MAX_POS_PADDED ushorts per macroblock (types 1..7,
 * SAD_TYPE_IX); each kernel reads only what the previous launch wrote: no sharing within a
 * kernel, no coherence needed.
 *
 * Input: two QCIF-like 8-bit luma frames from the seed: a smooth pattern with texture, and the
 * current frame as the reference moved by a few pixels with noise (so SADs have a minimum near
 * the motion vector). The reference frame is the texture; this model stores it row-major in
 * device memory (a CUDA array is block-linear) and tex fetches go through the L1 and L2 like
 * the other read-only spaces. Check: every SAD of every block type at the 1089 real positions
 * (the padding positions 1089..1095 are shared-memory garbage in Parboil) against a host
 * reference computing the 4x4 SADs from the pixels and the larger ones with the kernels' sums.
 */
#include "workloads/parboil/parboil.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "util/error.h"
#include "workloads/gpu_api.h"
#include "workloads/wl_util.h"

#define TAG_SAD		0x7361640000000000ull
#define SEARCH_RANGE	16
#define SEARCH_DIM	(2 * SEARCH_RANGE + 1)
#define MAX_POS		1089
#define MAX_POS_PADDED	1096
#define POS_PER_THREAD	18
#define SAD_THREADS	((MAX_POS + POS_PER_THREAD - 1) / POS_PER_THREAD) /* 61 */
#define SAD_WARPS	((SAD_THREADS + WARP_LANES - 1) / WARP_LANES)
#define SAD_ROW_8B	(MAX_POS_PADDED / 4) /* 8-byte words of one block's SADs */
#define HALF_POS	((MAX_POS + 1) / 2)  /* uint (2-SAD) words the larger kernels cover */
#define PAD_UINTS	(MAX_POS_PADDED / 2)
#define SAD_TYPES_TOTAL 41 /* ushort rows per macroblock over the 7 block types */

/*
 * Issue slots per warp (SASS-like counts):
 * mb_sad_calc: prologue (3 S2R, two divisions by 61 as IMUL.HI + shifts, macroblock and block
 *   coordinates, the copy's address and range test) 30; before the search loop (base, the
 *   division by 33, offsets, end clamp) 12; per iteration: 10 I2F + 8 IADD for the texture
 *   coordinates, 48 |t - f| accumulations (ISAD), 3 truncations to 16 bits, the position
 *   recurrence and loop test 8: 77; per copy-out iteration (address, loop) 4.
 * larger_sad_calc_8 / _16: prologue (S2R, __mul24s, four pointers) 20 / 16; per iteration 9
 *   addresses, 5 IADD, loop 3: 17.
 */
#define SAD4_INST_PROLOGUE  30
#define SAD4_INST_SETUP	    12
#define SAD4_INST_ITER	    77
#define SAD4_INST_COPY	    4
#define LARGER8_INST_START  20
#define LARGER16_INST_START 16
#define LARGER_INST_ITER    17

/* Element offsets of the block types in the SAD array (sad.h SAD_TYPE_n_IX). */
static const unsigned sad_type_rows[8] = {0, 0, 1, 3, 5, 9, 17, 25};
static const unsigned sad_type_count[8] = {0, 1, 2, 2, 4, 8, 8, 16};

struct sad_args {
	uint64_t blk_sad; /* ushort [41 x MAX_POS_PADDED x macroblocks] */
	uint64_t frame;	  /* ushort [height][width]: the current frame */
	uint64_t ref;	  /* ushort [height][width]: the reference frame (texture) */
	int mb_width, mb_height;
};

struct sad_smem {
	uint16_t frame_loc[16];		  /* __shared__ frame_loc[THREADS_W * THREADS_H * 16] */
	uint16_t sad_loc[MAX_POS_PADDED]; /* extern __shared__ sad_loc[] */
};

static int sad_clamp(int v, int hi)
{
	return v < 0 ? 0 : v > hi ? hi : v;
}

/* ---- kernels -------------------------------------------------------------------------------- */

static void sad4_kernel(struct gpu_warp *w)
{
	const struct sad_args *a = gw_args(w);
	struct sad_smem *sm = gw_smem(w);
	int bx = (int)gw_cta_x(w), by = (int)gw_cta_y(w), wi = (int)gw_warp(w);
	int img_width = a->mb_width * 16, img_height = a->mb_height * 16;
	int mb_x = bx >> 2, mb_y = by >> 2, block_x = bx & 3, block_y = by & 3;
	int frame_x = bx << 2, frame_y = by << 2; /* ((mb_x << 2) + block_x) << 2 */
	int ref_x = frame_x - SEARCH_RANGE, ref_y = frame_y - SEARCH_RANGE;
	int off_x[WARP_LANES] = {0}, off_y[WARP_LANES] = {0}, pos[WARP_LANES] = {0};
	int end[WARP_LANES] = {0};
	uint64_t addr[WARP_LANES], v[WARP_LANES];
	uint32_t live = 0;

	gw_compute(w, SAD4_INST_PROLOGUE);
	/* threads 0..15 copy one pixel each of the 4x4 block (4 rows of 8 bytes) */
	if (wi == 0) {
		int cur_o = frame_y * img_width + frame_x;

		for (int t = 0; t < 16; t++)
			addr[t] = a->frame + 2 * (uint64_t)(cur_o + (t >> 2) * img_width + (t & 3));
		gw_ldv(w, addr, 0xffff, 2, v);
		for (int t = 0; t < 16; t++)
			sm->frame_loc[t] = (uint16_t)v[t];
		gw_smem_access(w);
	}
	gw_barrier(w);

	for (int l = 0; l < WARP_LANES; l++) {
		int tid = wi * WARP_LANES + l, base = (tid % SAD_THREADS) * POS_PER_THREAD;
		int sotmp = base / SEARCH_DIM;

		if (tid >= SAD_THREADS)
			continue;
		live |= 1u << l;
		pos[l] = base;
		end[l] = base + POS_PER_THREAD > MAX_POS ? MAX_POS : base + POS_PER_THREAD;
		off_x[l] = base - SEARCH_DIM * sotmp; /* local_search_off_x */
		off_y[l] = ref_y + sotmp;	      /* search_off_y */
	}
	gw_compute(w, SAD4_INST_SETUP);
	/* the 16 pixels of frame_loc, loaded into registers once (no store aliases them) */
	for (int i = 0; i < 16; i++)
		gw_smem_access(w);
	for (int it = 0; it < POS_PER_THREAD / 3; it++) {
		uint32_t mask = 0;
		uint16_t t[4][6][WARP_LANES];

		for (int l = 0; l < WARP_LANES; l++)
			if ((live >> l & 1) && pos[l] < end[l])
				mask |= 1u << l;
		if (!mask)
			break;
		/* t = tex2D(ref, search_off_x + dx, search_off_y + y), clamped addressing */
		for (int y = 0; y < 4; y++)
			for (int dx = 0; dx < 6; dx++) {
				for (int l = 0; l < WARP_LANES; l++) {
					int tx = sad_clamp(ref_x + off_x[l] + dx, img_width - 1);
					int ty = sad_clamp(off_y[l] + y, img_height - 1);

					addr[l] = a->ref + 2 * ((uint64_t)ty * img_width + tx);
				}
				gw_ld_texv(w, addr, mask, 2, v);
				for (int l = 0; l < WARP_LANES; l++)
					t[y][dx][l] = (uint16_t)v[l];
			}
		gw_compute(w, SAD4_INST_ITER);
		for (int l = 0; l < WARP_LANES; l++) {
			uint16_t sad[3] = {0, 0, 0};

			if (!(mask >> l & 1))
				continue;
			for (int s = 0; s < 3; s++)
				for (int y = 0; y < 4; y++)
					for (int x = 0; x < 4; x++)
						sad[s] =
						    (uint16_t)(sad[s] +
							       abs((int)t[y][x + s][l] -
								   (int)sm->frame_loc[y * 4 + x]));
			for (int s = 0; s < 3; s++)
				sm->sad_loc[pos[l] + s] = sad[s];
			pos[l] += 3;
			off_x[l] += 3;
			if (off_x[l] >= SEARCH_DIM) {
				off_x[l] -= SEARCH_DIM;
				off_y[l]++;
			}
		}
		for (int s = 0; s < 3; s++)
			gw_smem_access(w); /* SAD_LOC_PUT x 3 */
	}
	gw_barrier(w);

	/* warp 0 copies the block's SADs out, 8 bytes per thread, 32 threads at a time */
	if (wi == 0) {
		uint64_t out = a->blk_sad + 2 *
						((uint64_t)a->mb_width * a->mb_height * 25 +
						 ((uint64_t)mb_y * a->mb_width + mb_x) * 16 +
						 (uint64_t)(4 * block_y + block_x)) *
						MAX_POS_PADDED;

		for (int index = 0; index < SAD_ROW_8B; index += WARP_LANES) {
			uint32_t mask = 0;

			for (int l = 0; l < WARP_LANES && index + l < SAD_ROW_8B; l++) {
				const uint16_t *s = &sm->sad_loc[4 * (index + l)];

				mask |= 1u << l;
				addr[l] = out + 8 * (uint64_t)(index + l);
				v[l] = (uint64_t)s[0] | (uint64_t)s[1] << 16 |
				       (uint64_t)s[2] << 32 | (uint64_t)s[3] << 48;
			}
			gw_compute(w, SAD4_INST_COPY);
			gw_smem_access(w);
			gw_stv(w, addr, mask, 8, v);
		}
	}
}

/* The loop of larger_sad_calc_8 and _16 over the 545 packed words: four uint inputs at bi +
 * in_off[i], five outputs (out[j] + i, sum of inputs per kind[j]). */
static void sad_larger_loop(struct gpu_warp *w, uint64_t bi, const unsigned in_off[4],
			    const uint64_t out[5])
{
	uint64_t addr[WARP_LANES];
	uint32_t in[4][WARP_LANES], res[WARP_LANES];

	for (int sp0 = 0; sp0 < HALF_POS; sp0 += WARP_LANES) {
		uint32_t mask = 0;

		for (int l = 0; l < WARP_LANES && sp0 + l < HALF_POS; l++)
			mask |= 1u << l;
		for (int i = 0; i < 4; i++) {
			for (int l = 0; l < WARP_LANES; l++)
				addr[l] = bi + 4 * (uint64_t)(sp0 + l + (int)in_off[i]);
			gw_ld32v(w, addr, mask, in[i]);
		}
		gw_compute(w, LARGER_INST_ITER);
		/* i00 + i10, i01 + i11, i00 + i01, i10 + i11, (i00 + i01) + (i10 + i11) */
		for (int j = 0; j < 5; j++) {
			for (int l = 0; l < WARP_LANES; l++) {
				uint32_t a00 = in[0][l], a01 = in[1][l], a10 = in[2][l],
					 a11 = in[3][l];

				addr[l] = out[j] + 4 * (uint64_t)(sp0 + l);
				res[l] = j == 0	  ? a00 + a10
					 : j == 1 ? a01 + a11
					 : j == 2 ? a00 + a01
					 : j == 3 ? a10 + a11
						  : (a00 + a01) + (a10 + a11);
			}
			gw_st32v(w, addr, mask, res);
		}
	}
}

static void sad_larger8_kernel(struct gpu_warp *w)
{
	const struct sad_args *a = gw_args(w);
	uint64_t mbs = (uint64_t)a->mb_width * a->mb_height;
	uint64_t mb_index = ((uint64_t)gw_cta_y(w) * a->mb_width + gw_cta_x(w)) * MAX_POS_PADDED;
	unsigned y = gw_thread_y(w, 0), tx = y & 1, ty = y >> 1;
	uint64_t bi =
	    a->blk_sad + 2 * ((mbs * 25 + (ty * 8 + tx * 2)) * MAX_POS_PADDED + mb_index * 16);
	uint64_t bo_6 =
	    a->blk_sad + 2 * ((mbs * 17 + (ty * 4 + tx * 2)) * MAX_POS_PADDED + mb_index * 8);
	uint64_t bo_5 =
	    a->blk_sad + 2 * ((mbs * 9 + (ty * 4 + tx)) * MAX_POS_PADDED + mb_index * 8);
	uint64_t bo_4 =
	    a->blk_sad + 2 * ((mbs * 5 + (ty * 2 + tx)) * MAX_POS_PADDED + mb_index * 4);
	const unsigned in_off[4] = {0, PAD_UINTS, 4 * PAD_UINTS, 5 * PAD_UINTS};
	const uint64_t out[5] = {bo_6, bo_6 + 4 * PAD_UINTS, bo_5, bo_5 + 4 * 2 * PAD_UINTS, bo_4};

	gw_compute(w, LARGER8_INST_START);
	sad_larger_loop(w, bi, in_off, out);
}

static void sad_larger16_kernel(struct gpu_warp *w)
{
	const struct sad_args *a = gw_args(w);
	uint64_t mbs = (uint64_t)a->mb_width * a->mb_height * MAX_POS_PADDED; /* "macroblocks" */
	uint64_t mb_index = ((uint64_t)gw_cta_y(w) * a->mb_width + gw_cta_x(w)) * MAX_POS_PADDED;
	uint64_t bi = a->blk_sad + 2 * (((mbs + mb_index) << 2) + mbs);
	uint64_t bo_3 = a->blk_sad + 2 * (((mbs + mb_index) << 1) + mbs);
	uint64_t bo_2 = a->blk_sad + 2 * (mbs + mb_index * 2);
	uint64_t bo_1 = a->blk_sad + 2 * mb_index;
	const unsigned in_off[4] = {0, PAD_UINTS, 2 * PAD_UINTS, 3 * PAD_UINTS};
	const uint64_t out[5] = {bo_3, bo_3 + 4 * PAD_UINTS, bo_2, bo_2 + 4 * PAD_UINTS, bo_1};

	gw_compute(w, LARGER16_INST_START);
	sad_larger_loop(w, bi, in_off, out);
}

/* ---- host ----------------------------------------------------------------------------------- */

/* The SADs of one 4x4 block (origin fx, fy) at every search position, clamped as the texture. */
static void sad_ref_block(const uint16_t *cur, const uint16_t *ref, int width, int height, int fx,
			  int fy, uint16_t *out)
{
	for (int sy = 0; sy < SEARCH_DIM; sy++)
		for (int sx = 0; sx < SEARCH_DIM; sx++) {
			uint16_t sad = 0;

			for (int y = 0; y < 4; y++)
				for (int x = 0; x < 4; x++) {
					int rx = sad_clamp(fx - SEARCH_RANGE + sx + x, width - 1);
					int ry = sad_clamp(fy - SEARCH_RANGE + sy + y, height - 1);

					sad =
					    (uint16_t)(sad + abs((int)ref[(size_t)ry * width + rx] -
								 (int)cur[(size_t)(fy + y) * width +
									  fx + x]));
				}
			out[sy * SEARCH_DIM + sx] = sad;
		}
}

/* out[pos] = a[pos] + b[pos] over the positions (16-bit sums: a 16x16 SAD of 8-bit pixels is
 * below 65536, so the kernels' packed 32-bit adds never carry between the halves). */
static void sad_ref_add(uint16_t *out, const uint16_t *x, const uint16_t *y)
{
	for (int p = 0; p < MAX_POS; p++)
		out[p] = (uint16_t)(x[p] + y[p]);
}

/* Row `blk` of block type n of macroblock mb in the SAD array. */
static uint16_t *sad_row(uint16_t *sads, size_t mbs, int n, size_t mb, unsigned blk)
{
	return sads + (sad_type_rows[n] * mbs + mb * sad_type_count[n] + blk) * MAX_POS_PADDED;
}

static void sad_reference(uint16_t *want, const uint16_t *cur, const uint16_t *ref, int mb_w,
			  int mb_h)
{
	size_t mbs = (size_t)mb_w * mb_h;
	uint16_t t[MAX_POS_PADDED];

	for (size_t mb = 0; mb < mbs; mb++) {
		int mx = (int)(mb % (size_t)mb_w), my = (int)(mb / (size_t)mb_w);

		for (unsigned s = 0; s < 16; s++)
			sad_ref_block(cur, ref, mb_w * 16, mb_h * 16, mx * 16 + (int)(s & 3) * 4,
				      my * 16 + (int)(s >> 2) * 4, sad_row(want, mbs, 7, mb, s));
		/* larger_sad_calc_8: quadrant (tx, ty), 4x4 blocks i00 i01 / i10 i11 */
		for (unsigned ty = 0; ty < 2; ty++)
			for (unsigned tx = 0; tx < 2; tx++) {
				unsigned s = ty * 8 + tx * 2;
				uint16_t *i00 = sad_row(want, mbs, 7, mb, s);
				uint16_t *i01 = sad_row(want, mbs, 7, mb, s + 1);
				uint16_t *i10 = sad_row(want, mbs, 7, mb, s + 4);
				uint16_t *i11 = sad_row(want, mbs, 7, mb, s + 5);

				sad_ref_add(sad_row(want, mbs, 6, mb, ty * 4 + tx * 2), i00, i10);
				sad_ref_add(sad_row(want, mbs, 6, mb, ty * 4 + tx * 2 + 1), i01,
					    i11);
				sad_ref_add(sad_row(want, mbs, 5, mb, ty * 4 + tx), i00, i01);
				sad_ref_add(sad_row(want, mbs, 5, mb, ty * 4 + tx + 2), i10, i11);
				sad_ref_add(t, i00, i01);
				sad_ref_add(sad_row(want, mbs, 4, mb, ty * 2 + tx), t,
					    sad_row(want, mbs, 5, mb, ty * 4 + tx + 2));
			}
		/* larger_sad_calc_16 from the four 8x8 blocks */
		{
			uint16_t *i00 = sad_row(want, mbs, 4, mb, 0),
				 *i01 = sad_row(want, mbs, 4, mb, 1);
			uint16_t *i10 = sad_row(want, mbs, 4, mb, 2),
				 *i11 = sad_row(want, mbs, 4, mb, 3);

			sad_ref_add(sad_row(want, mbs, 3, mb, 0), i00, i10);
			sad_ref_add(sad_row(want, mbs, 3, mb, 1), i01, i11);
			sad_ref_add(sad_row(want, mbs, 2, mb, 0), i00, i01);
			sad_ref_add(sad_row(want, mbs, 2, mb, 1), i10, i11);
			sad_ref_add(t, i00, i01);
			sad_ref_add(sad_row(want, mbs, 1, mb, 0), t, sad_row(want, mbs, 2, mb, 1));
		}
	}
}

/* An 8-bit luma value of a smooth textured scene at (x, y). */
static uint16_t sad_scene(uint64_t seed, double x, double y)
{
	double v = 128.0 + 60.0 * sin(0.19 * x + 0.07 * y) * cos(0.11 * y - 0.05 * x) +
		   25.0 * sin(0.9 * x) * sin(0.7 * y);
	uint64_t cell = (uint64_t)((int64_t)floor(x / 4) + 4096) << 20 |
			(uint64_t)((int64_t)floor(y / 4) + 4096);

	v += 24.0 * (wl_unit(seed, 2, cell) - 0.5); /* blocky texture */
	return (uint16_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

int parboil_sad_main(struct gpu_host *h)
{
	/* frames in macroblocks: tiny 32x16, small 64x48, default QCIF 176x144 */
	int mb_w = (int)wl_by_size(h, 2, 4, 11), mb_h = (int)wl_by_size(h, 1, 3, 9);
	int width = mb_w * 16, height = mb_h * 16;
	size_t pixels = (size_t)width * height, mbs = (size_t)mb_w * mb_h;
	size_t nsad = SAD_TYPES_TOTAL * MAX_POS_PADDED * mbs;
	uint64_t seed = gh_seed(h) ^ TAG_SAD;
	struct sad_args a = {.mb_width = mb_w, .mb_height = mb_h};
	struct gpu_kernel k4 = {.name = "mb_sad_calc",
				.warps_per_cta = SAD_WARPS,
				.regs_per_thread = 32,
				.smem_bytes = sizeof(struct sad_smem),
				.fn = sad4_kernel,
				.args = &a,
				.grid_x = (unsigned)width / 4,
				.grid_y = (unsigned)height / 4};
	struct gpu_kernel k8 = {.name = "larger_sad_calc_8",
				.warps_per_cta = 4,
				.regs_per_thread = 16,
				.fn = sad_larger8_kernel,
				.args = &a,
				.grid_x = (unsigned)mb_w,
				.grid_y = (unsigned)mb_h,
				.block_x = 32};
	struct gpu_kernel k16 = {.name = "larger_sad_calc_16",
				 .warps_per_cta = 1,
				 .regs_per_thread = 16,
				 .fn = sad_larger16_kernel,
				 .args = &a,
				 .grid_x = (unsigned)mb_w,
				 .grid_y = (unsigned)mb_h};
	uint16_t *ref = malloc(pixels * 2), *cur = malloc(pixels * 2);
	uint16_t *want = calloc(nsad, 2), *got = malloc(nsad * 2);
	int mv_x = (int)(gh_seed(h) % 7) - 3, mv_y = (int)(gh_seed(h) / 7 % 5) - 2;
	int err = -CS_ENOMEM;

	if (!ref || !cur || !want || !got)
		goto out;
	/* reference frame; the current one sees the scene moved by (mv_x, mv_y), plus noise */
	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++) {
			size_t i = (size_t)y * width + x;
			int n = (int)(wl_value32(seed, 3, 0, i) % 9) - 4;
			int c = (int)sad_scene(seed, x + mv_x, y + mv_y) + n;

			ref[i] = sad_scene(seed, x, y);
			cur[i] = (uint16_t)(c < 0 ? 0 : c > 255 ? 255 : c);
		}
	a.frame = wl_upload(h, cur, pixels * 2);
	a.ref = wl_upload(h, ref, pixels * 2); /* cudaMemcpy2DToArray + bind to `ref` */
	a.blk_sad = wl_alloc_zero(h, nsad * 2);
	err = gh_launch(h, &k4);
	if (!err)
		err = gh_launch(h, &k8);
	if (!err)
		err = gh_launch(h, &k16);
	if (err)
		goto out;
	gh_corrupt(h, a.blk_sad, 4);
	gh_read(h, a.blk_sad, got, nsad * 2);

	sad_reference(want, cur, ref, mb_w, mb_h);
	{
		uint64_t bad = 0, checked = 0;
		int first_n = 0;
		size_t first_row = 0, first_pos = 0;

		for (int n = 1; n <= 7; n++)
			for (size_t r = 0; r < mbs * sad_type_count[n]; r++) {
				const uint16_t *g = sad_row(got, mbs, n, 0, 0) + r * MAX_POS_PADDED;
				const uint16_t *x =
				    sad_row(want, mbs, n, 0, 0) + r * MAX_POS_PADDED;

				for (size_t p = 0; p < MAX_POS; p++) {
					checked++;
					if (g[p] != x[p] && bad++ == 0) {
						first_n = n;
						first_row = r;
						first_pos = p;
					}
				}
			}
		if (bad) {
			const uint16_t *g = sad_row(got, mbs, first_n, 0, 0);
			const uint16_t *x = sad_row(want, mbs, first_n, 0, 0);
			size_t i = first_row * MAX_POS_PADDED + first_pos;

			err = gh_fail(h,
				      "sad: type %d SAD of macroblock %zu block %zu at search "
				      "position %zu = %u, want %u (%" PRIu64 " of %" PRIu64
				      " SADs differ)",
				      first_n, first_row / sad_type_count[first_n],
				      first_row % sad_type_count[first_n], first_pos, g[i], x[i],
				      bad, checked);
			goto out;
		}
		gh_note(h,
			"sad: %dx%d frames (%zu macroblocks, motion %d,%d), 3 kernels (%u CTAs of "
			"61 threads, %zu x 4 warps, %zu x 1); all %" PRIu64 " SADs of the 7 block "
			"types bit-exact",
			width, height, mbs, mv_x, mv_y, k4.grid_x * k4.grid_y, mbs, mbs, checked);
	}
	err = 0;
out:
	free(ref);
	free(cur);
	free(want);
	free(got);
	return err;
}
