/*
 * tests/unit/test_coalesce.c - the warp coalescer (tlm/core/coalesce.c): exact requests, lane,
 * sector and byte masks for the classic patterns, misaligned lanes, parameter checks, and a
 * randomized comparison with a naive reference.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/core/coalesce.h"
#include "util/error.h"

#define WARP_LANES 32 /* the classic patterns: one 32-lane warp */
#define ALL	   0xffffffffu

static uint64_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static uint32_t rng32(uint64_t *s)
{
	return (uint32_t)(rng_next(s) << 16 ^ rng_next(s));
}

static void strided(uint64_t a[WARP_LANES_MAX], uint64_t base, uint64_t stride)
{
	for (unsigned i = 0; i < WARP_LANES_MAX; i++)
		a[i] = base + i * stride;
}

/* mask of bytes [lo, lo + n) of a line, as (word0, word1) */
static void bytes_mask(uint64_t m[2], unsigned lo, unsigned n)
{
	m[0] = m[1] = 0;
	for (unsigned b = lo; b < lo + n; b++)
		m[b >> 6] |= 1ull << (b & 63);
}

static void check_bytes(const struct coalesce_req *r, unsigned lo, unsigned n)
{
	uint64_t m[2];

	bytes_mask(m, lo, n);
	ck_assert_uint_eq(r->byte_mask[0], m[0]);
	ck_assert_uint_eq(r->byte_mask[1], m[1]);
}

START_TEST(test_fully_coalesced)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];
	unsigned bad = 99;

	strided(a, 0x10000, 4);
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 0, r, &bad), 1);
	ck_assert_uint_eq(bad, WARP_LANES_MAX);
	ck_assert_uint_eq(r[0].line_addr, 0x10000);
	ck_assert_uint_eq(r[0].lane_mask, ALL);
	ck_assert_uint_eq(r[0].sector_mask, COALESCE_ALL_SECTORS);
	check_bytes(&r[0], 0, 128);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 128, 0), 128);

	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 32, r, &bad), 1);
	ck_assert_uint_eq(r[0].sector_mask, 0x0f);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 128, 32), 128);

	/* same words, lanes permuted: still one request */
	for (unsigned i = 0; i < WARP_LANES; i++)
		a[i] = 0x10000 + ((i * 7) % 32) * 4;
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 32, r, &bad), 1);
	ck_assert_uint_eq(r[0].lane_mask, ALL);
	check_bytes(&r[0], 0, 128);

	/* every lane on the same word (broadcast) */
	for (unsigned i = 0; i < WARP_LANES; i++)
		a[i] = 0x10044;
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 32, r, &bad), 1);
	ck_assert_uint_eq(r[0].lane_mask, ALL);
	ck_assert_uint_eq(r[0].sector_mask, 0x04);
	check_bytes(&r[0], 0x44, 4);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 128, 32), 32);
}
END_TEST

START_TEST(test_stride_line)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];

	strided(a, 0x200000 + 8, 128);
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 32, r, NULL), 32);
	for (unsigned i = 0; i < WARP_LANES; i++) {
		ck_assert_uint_eq(r[i].line_addr, 0x200000 + i * 128);
		ck_assert_uint_eq(r[i].lane_mask, 1u << i);
		ck_assert_uint_eq(r[i].sector_mask, 0x01);
		check_bytes(&r[i], 8, 4);
		ck_assert_uint_eq(coalesce_req_bytes(&r[i], 128, 32), 32);
	}
	/* descending addresses: still in lane order */
	strided(a, 0x200000 + 31 * 128, (uint64_t)-128);
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 0, r, NULL), 32);
	for (unsigned i = 0; i < WARP_LANES; i++) {
		ck_assert_uint_eq(r[i].line_addr, 0x200000 + (31 - i) * 128);
		ck_assert_uint_eq(r[i].lane_mask, 1u << i);
		ck_assert_uint_eq(coalesce_req_bytes(&r[i], 128, 0), 128);
	}
}
END_TEST

START_TEST(test_two_lines)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];

	/* 32 x 4 B from the middle of a line: half in each */
	strided(a, 0x1040, 4);
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 32, r, NULL), 2);
	ck_assert_uint_eq(r[0].line_addr, 0x1000);
	ck_assert_uint_eq(r[0].lane_mask, 0x0000ffff);
	ck_assert_uint_eq(r[0].sector_mask, 0x0c);
	check_bytes(&r[0], 64, 64);
	ck_assert_uint_eq(r[1].line_addr, 0x1080);
	ck_assert_uint_eq(r[1].lane_mask, 0xffff0000);
	ck_assert_uint_eq(r[1].sector_mask, 0x03);
	check_bytes(&r[1], 0, 64);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 128, 32) + coalesce_req_bytes(&r[1], 128, 32),
			  128);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 128, 0) + coalesce_req_bytes(&r[1], 128, 0),
			  256);

	/* 32 x 8 B consecutive = 256 B = two full lines */
	strided(a, 0x4000, 8);
	ck_assert_int_eq(coalesce(a, ALL, 8, 128, 32, r, NULL), 2);
	ck_assert_uint_eq(r[0].line_addr, 0x4000);
	ck_assert_uint_eq(r[0].lane_mask, 0x0000ffff);
	ck_assert_uint_eq(r[1].line_addr, 0x4080);
	ck_assert_uint_eq(r[1].lane_mask, 0xffff0000);
	for (unsigned i = 0; i < 2; i++) {
		ck_assert_uint_eq(r[i].sector_mask, 0x0f);
		check_bytes(&r[i], 0, 128);
	}

	/* 32 x 16 B = 512 B = four lines of 8 lanes */
	strided(a, 0x8000, 16);
	ck_assert_int_eq(coalesce(a, ALL, 16, 128, 32, r, NULL), 4);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_uint_eq(r[i].line_addr, 0x8000 + i * 128);
		ck_assert_uint_eq(r[i].lane_mask, 0xffu << (8 * i));
		check_bytes(&r[i], 0, 128);
	}
}
END_TEST

START_TEST(test_scattered)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];

	/* three lines, interleaved; lane 0 is in the highest line */
	for (unsigned i = 0; i < WARP_LANES; i++) {
		static const uint64_t lines[3] = {0x9000, 0x1000, 0x5000};

		a[i] = lines[i % 3] + (i / 3) * 4;
	}
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 32, r, NULL), 3);
	ck_assert_uint_eq(r[0].line_addr, 0x9000);
	ck_assert_uint_eq(r[1].line_addr, 0x1000);
	ck_assert_uint_eq(r[2].line_addr, 0x5000);
	ck_assert_uint_eq(r[0].lane_mask, 0x49249249); /* lanes 0, 3, ..., 30 */
	ck_assert_uint_eq(r[1].lane_mask, 0x92492492); /* lanes 1, 4, ..., 31 */
	ck_assert_uint_eq(r[2].lane_mask, 0x24924924); /* lanes 2, 5, ..., 29 */
	check_bytes(&r[0], 0, 44);		       /* 11 lanes: words 0..10 */
	check_bytes(&r[1], 0, 44);
	check_bytes(&r[2], 0, 40);
	ck_assert_uint_eq(r[0].sector_mask, 0x03);
	ck_assert_uint_eq(r[2].sector_mask, 0x03);

	/* bytes: sector masks from the bytes touched, 1-byte and 2-byte accesses */
	for (unsigned i = 0; i < WARP_LANES; i++)
		a[i] = 0x7000 + 97 * i; /* lane i: byte (97 i) mod 128 of line 0x7000 + ... */
	ck_assert_int_eq(coalesce(a, ALL, 1, 128, 32, r, NULL),
			 (int)((0x7000 + 97 * 31) / 128 - 0x7000 / 128 + 1));
	for (int k = 0; k < 2; k++) {
		uint64_t base = 0x3000 + 128 * (uint64_t)k;

		for (unsigned i = 0; i < WARP_LANES; i++)
			a[i] = base + ((i * 2 * 5) % 128);
		ck_assert_int_eq(coalesce(a, ALL, 2, 128, 32, r, NULL), 1);
		ck_assert_uint_eq(r[0].line_addr, base);
		ck_assert_uint_eq(r[0].sector_mask, 0x0f);
	}
}
END_TEST

START_TEST(test_inactive_and_empty)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];
	unsigned bad = 0;

	for (unsigned i = 0; i < WARP_LANES; i++)
		a[i] = 0xdeadbeefull + i; /* misaligned garbage */
	for (unsigned i = 8; i < 16; i++)
		a[i] = 0x6000 + 0x100 * (i & 1) + 4 * i;
	ck_assert_int_eq(coalesce(a, 0x0000ff00u, 4, 128, 32, r, &bad), 2);
	ck_assert_uint_eq(r[0].line_addr, 0x6000);
	ck_assert_uint_eq(r[0].lane_mask, 0x5500);
	ck_assert_uint_eq(r[1].line_addr, 0x6100);
	ck_assert_uint_eq(r[1].lane_mask, 0xaa00);
	ck_assert_uint_eq(r[0].byte_mask[0], 0x0f0f0f0full << 32);
	ck_assert_uint_eq(r[0].byte_mask[1], 0);
	ck_assert_uint_eq(r[0].sector_mask, 0x02);
	ck_assert_int_eq(coalesce(a, 0, 4, 128, 32, r, &bad), 0);
	ck_assert_uint_eq(bad, WARP_LANES_MAX);
	/* lane 31 only */
	a[31] = 0x123480;
	ck_assert_int_eq(coalesce(a, 0x80000000u, 16, 128, 32, r, &bad), 1);
	ck_assert_uint_eq(r[0].lane_mask, 0x80000000u);
	ck_assert_uint_eq(r[0].line_addr, 0x123480);
	ck_assert_uint_eq(r[0].sector_mask, 0x01);
	check_bytes(&r[0], 0, 16);
}
END_TEST

START_TEST(test_sectors_and_bytes)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];

	/* 64 B lines, 8 B sectors: a 16 B access covers two sectors */
	memset(a, 0, sizeof(a));
	a[0] = 0x1010;
	a[1] = 0x1030;
	ck_assert_int_eq(coalesce(a, 0x3, 16, 64, 8, r, NULL), 1);
	ck_assert_uint_eq(r[0].line_addr, 0x1000);
	ck_assert_uint_eq(r[0].sector_mask, 0xcc);
	ck_assert_uint_eq(r[0].byte_mask[0], 0xffff0000ffff0000ull);
	ck_assert_uint_eq(r[0].byte_mask[1], 0);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 64, 8), 32);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 64, 0), 64);

	/* 128 B lines, 32 B sectors: bytes across the 64-bit boundary of byte_mask */
	a[0] = 0x2038; /* 8 B at 56: bits 56..63 of word 0 */
	a[1] = 0x2040; /* 8 B at 64: bits 0..7 of word 1 */
	a[2] = 0x207e; /* 2 B at 126 (lane 2 alone, below) */
	ck_assert_int_eq(coalesce(a, 0x3, 8, 128, 32, r, NULL), 1);
	ck_assert_uint_eq(r[0].byte_mask[0], 0xffull << 56);
	ck_assert_uint_eq(r[0].byte_mask[1], 0xffull);
	ck_assert_uint_eq(r[0].sector_mask, 0x06);
	ck_assert_int_eq(coalesce(a, 0x4, 2, 128, 32, r, NULL), 1);
	ck_assert_uint_eq(r[0].byte_mask[0], 0);
	ck_assert_uint_eq(r[0].byte_mask[1], 0x3ull << 62);
	ck_assert_uint_eq(r[0].sector_mask, 0x08);

	/* one sector of the whole line (sector_bytes == line_bytes) */
	strided(a, 0x3000, 4);
	ck_assert_int_eq(coalesce(a, 0x1, 4, 128, 128, r, NULL), 1);
	ck_assert_uint_eq(r[0].sector_mask, 0x01);
	ck_assert_uint_eq(coalesce_req_bytes(&r[0], 128, 128), 128);
	/* 32 B lines: 4 requests of 8 lanes for 32 x 4 B */
	ck_assert_int_eq(coalesce(a, ALL, 4, 32, 0, r, NULL), 4);
	ck_assert_uint_eq(r[3].line_addr, 0x3060);
	ck_assert_uint_eq(r[3].lane_mask, 0xff000000u);
	check_bytes(&r[3], 0, 32);
}
END_TEST

START_TEST(test_misaligned_and_params)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];
	unsigned bad = 0;

	strided(a, 0x1000, 4);
	a[5] += 2;
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 0, r, &bad), -CS_EINVAL);
	ck_assert_uint_eq(bad, 5);
	ck_assert_int_eq(coalesce(a, ALL & ~(1u << 5), 4, 128, 0, r, &bad), 1); /* lane 5 off */
	ck_assert_uint_eq(bad, WARP_LANES_MAX);
	a[20] += 1;
	a[7] += 3;
	ck_assert_int_eq(coalesce(a, ALL, 4, 128, 0, r, &bad), -CS_EINVAL);
	ck_assert_uint_eq(bad, 5);
	ck_assert_int_eq(coalesce(a, ALL & ~(1u << 5), 4, 128, 0, r, &bad), -CS_EINVAL);
	ck_assert_uint_eq(bad, 7);
	ck_assert_int_eq(coalesce(a, ALL & ~(1u << 5), 4, 128, 0, r, NULL), -CS_EINVAL);
	/* 8 B access at a 4 B boundary */
	strided(a, 0x1004, 8);
	ck_assert_int_eq(coalesce(a, ALL, 8, 128, 0, r, &bad), -CS_EINVAL);
	ck_assert_uint_eq(bad, 0);

	strided(a, 0x1000, 16);
	static const unsigned badp[][3] = {
	    {3, 128, 0},  {0, 128, 0}, {32, 128, 0}, {4, 256, 0},   {4, 96, 0}, {16, 8, 0},
	    {4, 128, 24}, {4, 128, 8}, {4, 128, 4},  {4, 128, 256}, {4, 0, 0},
	};
	for (unsigned i = 0; i < sizeof(badp) / sizeof(badp[0]); i++) {
		bad = 0;
		if (coalesce(a, ALL, badp[i][0], badp[i][1], badp[i][2], r, &bad) != -CS_EINVAL ||
		    bad != WARP_LANES_MAX)
			ck_abort_msg("params %u/%u/%u accepted", badp[i][0], badp[i][1],
				     badp[i][2]);
	}
}
END_TEST

/* A 64-lane wavefront (AMD GCN): 4-byte words over two 128-byte lines, lane 32 opens the
 * second; a 64-lane scatter makes 64 requests; a misaligned lane 63 is reported as 63. */
START_TEST(test_wavefront64)
{
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX];
	unsigned bad = 0;

	strided(a, 0x40000, 4);
	ck_assert_int_eq(coalesce(a, ~0ull, 4, 128, 0, r, &bad), 2);
	ck_assert_uint_eq(bad, WARP_LANES_MAX);
	ck_assert_uint_eq(r[0].line_addr, 0x40000);
	ck_assert_uint_eq(r[0].lane_mask, 0xffffffffull);
	ck_assert_uint_eq(r[1].line_addr, 0x40080);
	ck_assert_uint_eq(r[1].lane_mask, 0xffffffff00000000ull);
	check_bytes(&r[1], 0, 128);
	/* only the upper half active: one request, for the second line */
	ck_assert_int_eq(coalesce(a, 0xffffffff00000000ull, 4, 128, 32, r, NULL), 1);
	ck_assert_uint_eq(r[0].line_addr, 0x40080);
	ck_assert_uint_eq(r[0].sector_mask, 0x0f);
	strided(a, 0x80000, 256);
	ck_assert_int_eq(coalesce(a, ~0ull, 8, 128, 0, r, NULL), 64);
	for (unsigned i = 0; i < WARP_LANES_MAX; i++) {
		ck_assert_uint_eq(r[i].line_addr, 0x80000 + i * 256);
		ck_assert_uint_eq(r[i].lane_mask, 1ull << i);
	}
	strided(a, 0x40000, 4);
	a[63] += 2;
	ck_assert_int_eq(coalesce(a, ~0ull, 4, 128, 0, r, &bad), -CS_EINVAL);
	ck_assert_uint_eq(bad, 63);
}
END_TEST

/* ---- randomized against a naive reference ---------------------------------------------------- */

static int naive(const uint64_t addr[WARP_LANES_MAX], uint64_t active, unsigned ab, unsigned line,
		 unsigned sector, struct coalesce_req out[WARP_LANES_MAX], unsigned *bad)
{
	int n = 0;

	for (unsigned i = 0; i < WARP_LANES_MAX; i++) {
		uint64_t la;
		int k;

		if (!(active >> i & 1))
			continue;
		if (addr[i] % ab) {
			*bad = i;
			return -CS_EINVAL;
		}
		la = addr[i] / line * line;
		for (k = 0; k < n; k++)
			if (out[k].line_addr == la)
				break;
		if (k == n) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n++].line_addr = la;
		}
		out[k].lane_mask |= 1ull << i;
		for (unsigned b = 0; b < ab; b++) {
			unsigned off = (unsigned)(addr[i] - la) + b;

			out[k].byte_mask[off / 64] |= 1ull << (off % 64);
			out[k].sector_mask |= sector ? (uint8_t)(1u << (off / sector)) : 0xff;
		}
	}
	*bad = WARP_LANES_MAX;
	return n;
}

START_TEST(test_random_vs_naive)
{
	static const unsigned lines[] = {32, 64, 128};
	uint64_t rng = 12345;
	uint64_t a[WARP_LANES_MAX];
	struct coalesce_req r[WARP_LANES_MAX], q[WARP_LANES_MAX];
	unsigned count_hist[65] = {0};

	for (unsigned it = 0; it < 200000; it++) {
		unsigned ab = 1u << (rng_next(&rng) % 5);
		unsigned line = lines[rng_next(&rng) % 3], sector = 0, bad1 = 0, bad2 = 0;
		unsigned pat = (unsigned)(rng_next(&rng) % 6);
		/* half the wavefronts have 64 lanes (AMD GCN), half 32 (an NVIDIA warp) */
		unsigned lanes = rng_next(&rng) % 2 ? 64 : 32;
		uint64_t all = lanes == 64 ? ~0ull : 0xffffffffull;
		uint64_t active = ((uint64_t)rng32(&rng) << 32 | rng32(&rng)) & all;
		uint64_t base = (rng_next(&rng) << 20 | rng_next(&rng)) * ab;
		int n1, n2;

		if (line < ab)
			line = 128;
		if (rng_next(&rng) % 2) {
			unsigned smin = line / 8, s;

			s = smin << (rng_next(&rng) % 4);
			sector = s <= line ? s : line;
		}
		switch (rng_next(&rng) % 4) {
		case 0:
			active = all;
			break;
		case 1:
			active &= (uint64_t)rng32(&rng) << 32 | rng32(&rng);
			break;
		case 2:
			active = 1ull << (rng_next(&rng) % lanes);
			break;
		default:
			break;
		}
		for (unsigned i = 0; i < WARP_LANES_MAX; i++) {
			switch (pat) {
			case 0: /* unit stride */
				a[i] = base + (uint64_t)i * ab;
				break;
			case 1: /* small stride */
				a[i] = base + (uint64_t)i * ab * (1 + rng_next(&rng) % 4);
				break;
			case 2: /* scattered in a small window: many shared lines */
				a[i] = base + (rng_next(&rng) % 1024) / ab * ab;
				break;
			case 3: /* scattered widely */
				a[i] = (rng_next(&rng) << 24 | rng_next(&rng)) / ab * ab;
				break;
			case 4: /* lines 2^40 apart: same low bits */
				a[i] = base + ((uint64_t)(rng_next(&rng) % 6) << 40);
				break;
			default: /* permuted consecutive */
				a[i] = base + (uint64_t)((i * 13) % lanes) * ab;
				break;
			}
		}
		if (rng_next(&rng) % 50 == 0)
			a[rng_next(&rng) % lanes] += 1 + rng_next(&rng) % (ab > 1 ? ab - 1 : 1);
		n1 = coalesce(a, active, ab, line, sector, r, &bad1);
		n2 = naive(a, active, ab, line, sector, q, &bad2);
		if (n1 != n2 || bad1 != bad2)
			ck_abort_msg("it %u: %d requests (bad %u), reference %d (bad %u)", it, n1,
				     bad1, n2, bad2);
		if (n1 < 0)
			continue;
		count_hist[n1]++;
		for (int k = 0; k < n1; k++)
			if (r[k].line_addr != q[k].line_addr || r[k].lane_mask != q[k].lane_mask ||
			    r[k].sector_mask != q[k].sector_mask ||
			    r[k].byte_mask[0] != q[k].byte_mask[0] ||
			    r[k].byte_mask[1] != q[k].byte_mask[1])
				ck_abort_msg("it %u request %d differs (line %#llx)", it, k,
					     (unsigned long long)q[k].line_addr);
	}
	/* the patterns covered the range */
	ck_assert_uint_gt(count_hist[1], 0);
	ck_assert_uint_gt(count_hist[2], 0);
	ck_assert_uint_gt(count_hist[32], 0);
	ck_assert_uint_gt(count_hist[64], 0);
}
END_TEST

static Suite *coalesce_suite(void)
{
	Suite *s = suite_create("coalesce");
	TCase *tc = tcase_create("patterns");

	tcase_add_test(tc, test_fully_coalesced);
	tcase_add_test(tc, test_stride_line);
	tcase_add_test(tc, test_two_lines);
	tcase_add_test(tc, test_scattered);
	tcase_add_test(tc, test_inactive_and_empty);
	tcase_add_test(tc, test_sectors_and_bytes);
	tcase_add_test(tc, test_misaligned_and_params);
	tcase_add_test(tc, test_wavefront64);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_test(tc, test_random_vs_naive);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(coalesce_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
