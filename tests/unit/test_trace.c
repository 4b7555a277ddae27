/*
 * tests/unit/test_trace.c - op encoding (round trip, fuzzing), trace files (round trip, every
 * kind of damage), the Accel-Sim importer (hand-written traces and the two real ones)
 * (workloads/trace/).
 */
#include <check.h>
#include <dirent.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "util/error.h"
#include "workloads/trace/trace.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17 ^ *s << 13 ^ *s >> 41;
}

static uint64_t vmask(unsigned bytes)
{
	return bytes >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * bytes)) - 1);
}

/* A random valid op, with exactly the fields trace_next fills (so memcmp compares). */
static void random_op(uint64_t *s, uint64_t *base, struct trace_op *op)
{
	static const unsigned widths[] = {1, 2, 4, 8, 16};
	unsigned kind = (unsigned)(rnd(s) % 8), shape;

	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	switch (kind) {
	case TRACE_LD:
	case TRACE_ST:
	case TRACE_ATOM:
		op->bytes =
		    (uint8_t)(kind == TRACE_ATOM ? (rnd(s) & 1 ? 8 : 4) : widths[rnd(s) % 5]);
		shape = (unsigned)(rnd(s) % 4);
		if (shape == 0) /* full warp, or a full 64-lane wavefront */
			op->mask = rnd(s) % 4 ? LANES_ALL : ~0ull;
		else if (shape == 1) /* one contiguous run */
			op->mask = (uint32_t)(((1ull << (1 + rnd(s) % 32)) - 1) << (rnd(s) % 4));
		else if (shape == 2) /* single lane of a 64-lane wavefront */
			op->mask = 1ull << (rnd(s) % 64);
		else /* scattered, over 32 or 64 lanes */
			op->mask = rnd(s) % 2 ? (uint32_t)rnd(s) | 1 : rnd(s) | 1;
		if (!op->mask)
			op->mask = 1;
		if (kind == TRACE_ATOM) {
			op->atom_op =
			    (uint8_t)(MEM_ATOM_ADD + rnd(s) % (MEM_ATOM_LAST - MEM_ATOM_ADD + 1));
			op->want_old = (uint8_t)(rnd(s) & 1);
		} else {
			op->cop = (uint8_t)(rnd(s) % 4 ? MEM_CO_CA : 1 + rnd(s) % 2);
		}
		if (rnd(s) % 8 == 0)
			*base = rnd(s) & ~15ull; /* a jump anywhere (huge deltas) */
		else
			*base += (rnd(s) % 4096) * 16;
		{
			int64_t stride = rnd(s) % 3 == 0 ? 0 : (int64_t)op->bytes;
			uint64_t a = *base;

			if (rnd(s) % 5 == 0)
				stride = -stride;
			for (unsigned l = 0; l < WARP_LANES_MAX; l++) {
				if (!(op->mask & (1ull << l)))
					continue;
				if (shape == 3 && rnd(s) % 2)
					op->addr[l] = rnd(s) & ~(uint64_t)(op->bytes - 1);
				else
					op->addr[l] = a;
				a += (uint64_t)stride;
			}
		}
		if (kind == TRACE_ST || kind == TRACE_ATOM) {
			op->scope = (uint8_t)(rnd(s) % 4); /* up to the remote agent scope */
			op->order = (uint8_t)(rnd(s) % 5); /* up to seq_cst */
			for (unsigned l = 0; op->atom_op != MEM_ATOM_LOAD && l < WARP_LANES_MAX;
			     l++)
				if (op->mask & (1ull << l))
					op->val[l] = rnd(s) & vmask(op->bytes) >> (rnd(s) % 64);
		}
		if (op->atom_op == MEM_ATOM_CAS)
			for (unsigned l = 0; l < WARP_LANES_MAX; l++)
				if (op->mask & (1ull << l))
					op->b[l] = rnd(s) & vmask(op->bytes);
		break;
	case TRACE_FENCE:
		op->scope = (uint8_t)(rnd(s) % 4);
		op->order = (uint8_t)(1 + rnd(s) % 4);
		break;
	case TRACE_COMPUTE:
		op->cycles = 1 + (rnd(s) % 4 == 0 ? rnd(s) >> 1 : rnd(s) % 100);
		break;
	case TRACE_SPIN:
		op->first = (uint8_t)(rnd(s) & 1);
		break;
	default:
		break;
	}
}

/* n random ops into b (and ops[], bounds[i] = stream length after op i). */
static void random_stream(uint64_t seed, unsigned n, struct trace_buf *b, struct trace_op *ops,
			  size_t *bounds)
{
	uint64_t s = seed, base = 0x10000;

	for (unsigned i = 0; i < n; i++) {
		random_op(&s, &base, &ops[i]);
		if (trace_buf_put(b, &ops[i]) != 0)
			ck_abort_msg("put failed on op %u (kind %u)", i, ops[i].kind);
		if (bounds)
			bounds[i] = b->len;
	}
}

static char *mkdir_tmp(void)
{
	char *d = strdup("/tmp/cstraceXXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[1024];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) != 0)
			rm_rf(p);
	}
	closedir(d);
	rmdir(dir);
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	write_file(dir, name, text, strlen(text));
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static unsigned dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Every field of two traces; aborts with the first difference. */
static void assert_trace_equal(const struct trace *a, const struct trace *b)
{
	ck_assert_str_eq(a->source, b->source);
	ck_assert_str_eq(a->workload, b->workload);
	ck_assert_uint_eq(a->heap_base, b->heap_base);
	ck_assert_uint_eq(a->heap_end, b->heap_end);
	ck_assert_uint_eq(a->nev, b->nev);
	for (size_t i = 0; i < a->nev; i++) {
		const struct trace_event *x = &a->ev[i], *y = &b->ev[i];

		ck_assert_int_eq(x->kind, y->kind);
		if (x->kind == TRACE_EV_COPY) {
			ck_assert_uint_eq(x->copy.addr, y->copy.addr);
			ck_assert_uint_eq(x->copy.len, y->copy.len);
			ck_assert_int_eq(!x->copy.data, !y->copy.data);
			if (x->copy.data)
				ck_assert(!memcmp(x->copy.data, y->copy.data, x->copy.len));
			continue;
		}
		ck_assert_str_eq(x->kernel.name, y->kernel.name);
		ck_assert_uint_eq(x->kernel.ctas, y->kernel.ctas);
		ck_assert_uint_eq(x->kernel.warps_per_cta, y->kernel.warps_per_cta);
		ck_assert_uint_eq(x->kernel.regs_per_thread, y->kernel.regs_per_thread);
		ck_assert_uint_eq(x->kernel.smem_bytes, y->kernel.smem_bytes);
		ck_assert_uint_eq(x->kernel.lanes, y->kernel.lanes);
		ck_assert_int_eq(!x->kernel.cta_sm, !y->kernel.cta_sm);
		if (x->kernel.cta_sm)
			ck_assert(!memcmp(x->kernel.cta_sm, y->kernel.cta_sm,
					  x->kernel.ctas * sizeof(uint16_t)));
		for (unsigned w = 0; w < x->kernel.ctas * x->kernel.warps_per_cta; w++) {
			const struct trace_buf *p = &x->kernel.warp[w], *q = &y->kernel.warp[w];

			if (p->ops != q->ops || p->len != q->len || p->prev_addr != q->prev_addr ||
			    (p->len && memcmp(p->p, q->p, p->len)))
				ck_abort_msg("event %zu warp %u differs", i, w);
		}
	}
}

/* ---- encoding ------------------------------------------------------------------------------- */

#define NOPS 3000

START_TEST(test_encode_roundtrip)
{
	struct trace_op *ops = malloc(NOPS * sizeof(*ops)), got;
	struct trace_buf b = {0};
	struct trace_cursor c;
	unsigned n = 0;
	int r;

	random_stream(12345, NOPS, &b, ops, NULL);
	ck_assert_uint_eq(b.ops, NOPS);
	trace_cursor_init(&c, &b);
	while ((r = trace_next(&c, &got)) == 1) {
		if (n >= NOPS || memcmp(&got, &ops[n], sizeof(got)) != 0)
			ck_abort_msg("op %u (kind %u) differs after the round trip", n,
				     n < NOPS ? ops[n].kind : 0);
		n++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(n, NOPS);
	ck_assert_uint_eq(c.prev_addr, b.prev_addr);
	free(b.p);
	free(ops);
}
END_TEST

START_TEST(test_encode_compact_and_exact)
{
	struct trace_buf b = {0};
	struct trace_op op, got;
	struct trace_cursor c;
	size_t before;

	/* a coalesced warp load: stride mode, a few bytes whatever the address */
	memset(&op, 0, sizeof(op));
	op.kind = TRACE_LD;
	op.bytes = 4;
	op.mask = LANES_ALL;
	for (unsigned l = 0; l < WARP_LANES; l++)
		op.addr[l] = 0x7f0000001000ull + 4 * l;
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	before = b.len;
	for (unsigned l = 0; l < WARP_LANES; l++)
		op.addr[l] += 128; /* the next chunk: a 2-byte delta from the previous op */
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	ck_assert_uint_le(b.len - before, 1 + 5 + 2 + 1);
	/* 16-byte store: values keep 8 bytes, lanes outside the mask read back as 0 */
	memset(&op, 0, sizeof(op));
	op.kind = TRACE_ST;
	op.bytes = 16;
	op.mask = 0x80000001u;
	op.addr[0] = 0x100;
	op.addr[31] = 0xfffffffffffffff0ull;
	op.val[0] = UINT64_MAX;
	op.val[31] = 0x123456789abcdefull;
	op.val[5] = 77; /* inactive lane: dropped */
	op.order = MEM_ORDER_RELEASE;
	op.scope = MEM_SCOPE_SYSTEM;
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	trace_cursor_init(&c, &b);
	ck_assert_int_eq(trace_next(&c, &got), 1);
	ck_assert_int_eq(trace_next(&c, &got), 1);
	ck_assert_int_eq(trace_next(&c, &got), 1);
	ck_assert_uint_eq(got.val[0], UINT64_MAX);
	ck_assert_uint_eq(got.val[31], 0x123456789abcdefull);
	ck_assert_uint_eq(got.val[5], 0);
	ck_assert_uint_eq(got.addr[31], 0xfffffffffffffff0ull);
	ck_assert_uint_eq(got.order, MEM_ORDER_RELEASE);
	ck_assert_uint_eq(got.scope, MEM_SCOPE_SYSTEM);
	ck_assert_int_eq(trace_next(&c, &got), 0);
	/* values above the width are cut to it */
	memset(&op, 0, sizeof(op));
	op.kind = TRACE_ST;
	op.bytes = 2;
	op.mask = 1;
	op.val[0] = 0x12345;
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	trace_cursor_init(&c, &b); /* a cursor sees the stream as it was at init */
	for (unsigned i = 0; i < 4; i++)
		ck_assert_int_eq(trace_next(&c, &got), 1);
	ck_assert_uint_eq(got.val[0], 0x2345);

	/* invalid ops are refused and leave the buffer as it was */
	before = b.len;
	op.bytes = 3;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.bytes = 4;
	op.mask = 0;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	memset(&op, 0, sizeof(op));
	op.kind = TRACE_COMPUTE;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.kind = 9;
	op.cycles = 1;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.kind = TRACE_ATOM;
	op.mask = 1;
	op.bytes = 2;
	op.atom_op = MEM_ATOM_ADD;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.bytes = 4;
	op.atom_op = MEM_ATOM_NONE;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.kind = TRACE_FENCE;
	op.order = MEM_ORDER_RELAXED;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	ck_assert_uint_eq(b.len, before);
	free(b.p);
}
END_TEST

/* Format 2: the extension byte carries a cache operator and seq_cst; format 1 ops are written
 * as before (no extension byte), and the decoder takes only the extension bytes it writes. */
START_TEST(test_encode_format2)
{
	struct trace_buf b = {0};
	struct trace_op op, got;
	struct trace_cursor c;
	uint8_t bad[8];

	memset(&op, 0, sizeof(op));
	op.kind = TRACE_ATOM;
	op.bytes = 4;
	op.mask = 1ull << 63; /* lane 63 of a 64-lane wavefront */
	op.addr[63] = 0x1000;
	op.atom_op = MEM_ATOM_LOAD;
	op.want_old = 1;
	op.scope = MEM_SCOPE_DEVICE_REMOTE;
	op.order = MEM_ORDER_SEQ_CST;
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	/* head, extension (seq_cst), mask (10-byte varint), zz(0x1000) (2 bytes), atom byte: no
	 * operand */
	ck_assert_uint_eq(b.len, 1 + 1 + 10 + 2 + 1);
	ck_assert_uint_eq(b.p[0] & 0x80, 0x80);
	ck_assert_uint_eq(b.p[1], 4);
	trace_cursor_init(&c, &b);
	ck_assert_int_eq(trace_next(&c, &got), 1);
	ck_assert(!memcmp(&got, &op, sizeof(op)));
	/* a .cg load: extension 1; a relaxed .ca load: no extension */
	memset(&op, 0, sizeof(op));
	op.kind = TRACE_LD;
	op.bytes = 4;
	op.mask = 1;
	op.cop = MEM_CO_CG;
	b.len = 0;
	b.prev_addr = 0;
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	ck_assert_uint_eq(b.len, 4);
	ck_assert_uint_eq(b.p[1], MEM_CO_CG);
	op.cop = MEM_CO_CA;
	ck_assert_int_eq(trace_buf_put(&b, &op), 0);
	ck_assert_uint_eq(b.len, 4 + 3);
	/* refused: a cache operator on an atomic, an order above seq_cst, a scope above remote */
	op.cop = MEM_CO_CV + 1;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.cop = 0;
	op.kind = TRACE_ATOM;
	op.atom_op = MEM_ATOM_ADD;
	op.cop = MEM_CO_CG;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	op.cop = 0;
	op.order = MEM_ORDER_SEQ_CST + 1;
	ck_assert_int_eq(trace_buf_put(&b, &op), -CS_EINVAL);
	/* extension bytes the encoder never writes: zero, unknown bits, seq_cst on a load,
	 * a cache operator on an atomic */
	{
		static const uint8_t exts[4][2] = {
		    {TRACE_LD, 0x00}, {TRACE_LD, 0x08}, {TRACE_LD, 0x04}, {TRACE_ATOM, 0x01}};

		for (unsigned i = 0; i < 4; i++) {
			struct trace_buf x = {.p = bad, .len = 0, .cap = sizeof(bad)};

			bad[0] = (uint8_t)(exts[i][0] | 2 << 4 | 0x80);
			bad[1] = exts[i][1];
			bad[2] = 1; /* mask */
			bad[3] = 0; /* address */
			bad[4] = MEM_ATOM_ADD;
			bad[5] = 0;
			x.len = 6;
			trace_cursor_init(&c, &x);
			if (trace_next(&c, &got) != -CS_EINVAL)
				ck_abort_msg("extension %#x on kind %u accepted", exts[i][1],
					     exts[i][0]);
		}
	}
	free(b.p);
}
END_TEST

#define NFUZZ 60

START_TEST(test_decode_fuzz)
{
	struct trace_op ops[NFUZZ], got;
	struct trace_buf b = {0}, t;
	size_t bounds[NFUZZ];
	struct trace_cursor c;
	uint64_t s = 99;
	uint8_t rb[96];
	int r;

	/* random bytes: every result is an op, the end, or -CS_EINVAL */
	for (unsigned i = 0; i < 20000; i++) {
		size_t n = rnd(&s) % sizeof(rb);
		unsigned steps = 0;

		for (size_t j = 0; j < n; j++)
			rb[j] = (uint8_t)rnd(&s);
		t.p = rb;
		t.len = n;
		trace_cursor_init(&c, &t);
		while ((r = trace_next(&c, &got)) == 1) {
			if (c.p > rb + n || ++steps > n)
				ck_abort_msg("cursor ran past the bytes");
			if (got.kind > TRACE_SMEM)
				ck_abort_msg("decoded an invalid kind %u", got.kind);
		}
		if (r != 0 && r != -CS_EINVAL)
			ck_abort_msg("trace_next returned %d", r);
	}
	/* every truncation of a valid stream: the ops before the cut, then the end exactly at
	 * an op boundary, -CS_EINVAL otherwise */
	random_stream(7, NFUZZ, &b, ops, bounds);
	for (size_t len = 0; len <= b.len; len++) {
		uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */
		unsigned n = 0;

		memcpy(copy, b.p, len);
		t.p = copy;
		t.len = len;
		trace_cursor_init(&c, &t);
		while ((r = trace_next(&c, &got)) == 1) {
			if (n >= NFUZZ || bounds[n] > len || memcmp(&got, &ops[n], sizeof(got)))
				ck_abort_msg("cut at %zu: op %u wrong", len, n);
			n++;
		}
		if (r == 0 ? (n ? bounds[n - 1] : 0) != len : r != -CS_EINVAL)
			ck_abort_msg("cut at %zu: result %d after %u ops", len, r, n);
		free(copy);
	}
	/* flipped bytes: never a crash, never a read past the end */
	for (unsigned i = 0; i < 3000; i++) {
		uint8_t *copy = malloc(b.len);

		memcpy(copy, b.p, b.len);
		copy[rnd(&s) % b.len] ^= (uint8_t)(1 + rnd(&s) % 255);
		t.p = copy;
		t.len = b.len;
		trace_cursor_init(&c, &t);
		while ((r = trace_next(&c, &got)) == 1)
			;
		if (r != 0 && r != -CS_EINVAL)
			ck_abort_msg("flip: trace_next returned %d", r);
		free(copy);
	}
	free(b.p);
}
END_TEST

/* ---- files ---------------------------------------------------------------------------------- */

static struct trace *sample_trace(void)
{
	static const uint16_t sm[3] = {2, 0, 1};
	struct trace_op *ops = malloc(400 * sizeof(*ops));
	struct trace_kernel *k;
	struct trace *t;
	uint8_t data[3000];

	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	ck_assert_int_eq(trace_new(&t), 0);
	strcpy(t->source, "cohscope");
	strcpy(t->workload, "sample");
	t->heap_base = 0x10000;
	t->heap_end = 0x90000;
	ck_assert_int_eq(trace_add_copy(t, 0x10000, data, sizeof(data)), 0);
	ck_assert_int_eq(trace_add_copy(t, 0x20000, NULL, 4096), 0);
	ck_assert_int_eq(trace_add_kernel(t, "first", 3, 2, 24, 1024, sm, &k), 0);
	for (unsigned w = 0; w < 6; w++)
		random_stream(100 + w, 10 + 30 * w, &k->warp[w], ops, NULL);
	ck_assert_int_eq(trace_add_copy(t, 0x30000, data, 100), 0);
	ck_assert_int_eq(trace_add_kernel(t, "second", 2, 4, 0, 0, NULL, &k), 0);
	k->lanes = 64;			    /* format 2 keeps the wavefront width */
	for (unsigned w = 0; w < 8; w += 2) /* odd warps stay empty */
		random_stream(200 + w, 50, &k->warp[w], ops, NULL);
	free(ops);
	return t;
}

START_TEST(test_file_roundtrip)
{
	char *dir = mkdir_tmp(), path[512];
	struct trace *t = sample_trace(), *u = NULL;
	struct cs_err err = {0};

	snprintf(path, sizeof(path), "%s/a.cstrace", dir);
	ck_assert_int_eq(trace_save(t, path, &err), 0);
	ck_assert_uint_eq(dir_entries(dir), 1); /* no temporary left */
	ck_assert_int_eq(trace_load(path, &u, &err), 0);
	assert_trace_equal(t, u);
	ck_assert_uint_eq(trace_ops(u), trace_ops(t));
	ck_assert_uint_eq(trace_ops(t), 10 + 40 + 70 + 100 + 130 + 160 + 4 * 50);
	/* appending after a load continues the address deltas correctly */
	{
		struct trace_kernel *k = &u->ev[2].kernel;
		struct trace_op op, got;
		struct trace_cursor c;
		uint64_t n = 0;

		memset(&op, 0, sizeof(op));
		op.kind = TRACE_LD;
		op.bytes = 8;
		op.mask = 1;
		op.addr[0] = 0x4242;
		ck_assert_int_eq(trace_buf_put(&k->warp[5], &op), 0);
		trace_cursor_init(&c, &k->warp[5]);
		while (trace_next(&c, &got) == 1)
			n++;
		ck_assert_uint_eq(n, k->warp[5].ops);
		ck_assert_uint_eq(got.addr[0], 0);
		ck_assert_uint_eq(c.prev_addr, 0x4242);
	}
	trace_free(u);
	trace_free(t);
	rm_rf(dir);
	free(dir);
}
END_TEST

static int load_expect(const char *path, const char *what)
{
	struct cs_err err = {0};
	struct trace *u = NULL;
	int r = trace_load(path, &u, &err);

	if (r == 0) {
		trace_free(u);
		ck_abort_msg("%s: loaded, expected '%s'", path, what);
	}
	if (!strstr(err.msg, path) || !strstr(err.msg, what))
		ck_abort_msg("'%s' does not name the file and '%s'", err.msg, what);
	return r;
}

START_TEST(test_file_damage)
{
	char *dir = mkdir_tmp(), path[512], bad[600];
	struct trace *t = sample_trace();
	struct cs_err err = {0};
	uint8_t *data;
	size_t len;

	snprintf(path, sizeof(path), "%s/a.cstrace", dir);
	snprintf(bad, sizeof(bad), "%s/bad.cstrace", dir);
	ck_assert_int_eq(trace_save(t, path, &err), 0);
	data = read_all(path, &len);
	ck_assert_uint_gt(len, 1000);

	/* truncated anywhere (header or frame) */
	for (size_t cut = 0; cut < len; cut += 97) {
		write_file(dir, "bad.cstrace", data, cut);
		load_expect(bad, "truncated");
	}
	write_file(dir, "bad.cstrace", data, len - 1);
	load_expect(bad, "truncated");
	/* a flipped byte inside the compressed body */
	data[24 + (len - 24) / 2] ^= 0x20;
	write_file(dir, "bad.cstrace", data, len);
	load_expect(bad, "corrupt");
	data[24 + (len - 24) / 2] ^= 0x20;
	/* any flipped byte of the frame is detected, or changes nothing */
	for (size_t i = 24; i < len; i += 7) {
		struct trace *u;

		data[i] ^= 0x41;
		write_file(dir, "bad.cstrace", data, len);
		if (trace_load(bad, &u, &err) == 0) {
			assert_trace_equal(t, u);
			trace_free(u);
		} else if (!strstr(err.msg, "corrupt") && !strstr(err.msg, "truncated")) {
			ck_abort_msg("flip at %zu: '%s'", i, err.msg);
		}
		data[i] ^= 0x41;
	}
	/* the checksum itself */
	data[len - 2] ^= 1;
	write_file(dir, "bad.cstrace", data, len);
	load_expect(bad, "corrupt: checksum mismatch");
	data[len - 2] ^= 1;
	/* bad magic, future version */
	data[0] = 'X';
	write_file(dir, "bad.cstrace", data, len);
	ck_assert_int_eq(load_expect(bad, "not a cohscope trace (bad magic)"), -CS_EINVAL);
	data[0] = 'C';
	data[8] = 4;
	write_file(dir, "bad.cstrace", data, len);
	load_expect(bad, "format version 4, this build reads 1 to 3");
	data[8] = 0;
	write_file(dir, "bad.cstrace", data, len);
	load_expect(bad, "format version 0, this build reads 1 to 3");
	data[8] = 2;
	write_file(dir, "bad.cstrace", data, len);
	{
		struct trace *u;

		ck_assert_int_eq(trace_load(bad, &u, &err), 0); /* restored: loads */
		trace_free(u);
	}
	load_expect("/nonexistent/x.cstrace", "cannot open");

	/* saving into a missing directory fails and leaves nothing */
	snprintf(bad, sizeof(bad), "%s/missing/x.cstrace", dir);
	ck_assert_int_ne(trace_save(t, bad, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, bad));
	ck_assert_uint_eq(dir_entries(dir), 2); /* a.cstrace and bad.cstrace only */
	free(data);
	trace_free(t);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* A file whose body (valid zstd, right checksum) lies about its counts. */
static void write_raw(const char *dir, const char *name, const uint8_t *body, size_t blen)
{
	size_t cap = ZSTD_compressBound(blen), n;
	uint8_t *f = malloc(24 + cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	memcpy(f, "CSTRACE", 8);
	memset(f + 8, 0, 16);
	f[8] = 1;
	for (unsigned i = 0; i < 8; i++)
		f[16 + i] = (uint8_t)((uint64_t)blen >> (8 * i));
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(cc, f + 24, cap, body, blen);
	ck_assert(!ZSTD_isError(n));
	write_file(dir, name, f, 24 + n);
	ZSTD_freeCCtx(cc);
	free(f);
}

START_TEST(test_file_body_structure)
{
	char *dir = mkdir_tmp(), path[512];
	uint8_t body[128];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/raw.cstrace", dir);
	/* issue 43, case 9: a source of neither kind, a heap that ends before it starts */
	memset(body, 0, sizeof(body));
	body[0] = 4;
	memcpy(body + 4, "gem5", 4);
	write_raw(dir, "raw.cstrace", body, 8 + 4 + 16 + 1);
	load_expect(path, "corrupt: source 'gem5' (cohscope or accelsim)");
	memset(body, 0, sizeof(body));
	body[0] = 8;
	memcpy(body + 4, "cohscope", 8);
	body[16] = 0x10; /* heap_base 0x10, heap_end 0 */
	write_raw(dir, "raw.cstrace", body, 12 + 4 + 16 + 1);
	load_expect(path, "corrupt: device memory [0x10, 0x0)");
	/* source "cohscope", workload "", heap 0..0 */
	memset(body, 0, sizeof(body));
	body[n] = 8;
	n += 4;
	memcpy(body + n, "cohscope", 8);
	n += 8;
	n += 4 + 16;
	/* a kernel of 2^32-1 x 2^32-1 warps: must be refused before any allocation */
	body[n++] = TRACE_EV_KERNEL;
	n += 4; /* empty name */
	memset(body + n, 0xff, 8);
	n += 8 + 8;
	body[n++] = 0;
	write_raw(dir, "raw.cstrace", body, n);
	load_expect(path, "warps run past the body");
	/* one warp whose stream claims more bytes than there are */
	n -= 17;
	memset(body + n, 0, 8);
	body[n] = 1;
	body[n + 4] = 1;
	n += 8 + 8;
	body[n++] = 0; /* no placement */
	body[n] = 1;   /* 1 op */
	n += 8;
	body[n] = 200; /* 200 bytes */
	n += 8;
	write_raw(dir, "raw.cstrace", body, n);
	load_expect(path, "corrupt: kernel 0 warp 0: stream runs past the body");
	/* a stream that does not decode */
	body[n - 8] = 1;
	body[n++] = 0x7f;
	body[n++] = 0;
	write_raw(dir, "raw.cstrace", body, n);
	load_expect(path, "corrupt: kernel 0 warp 0: bad op encoding");
	/* a valid op (BAR) and the end marker: loads */
	body[n - 2] = TRACE_BAR;
	{
		struct cs_err err;
		struct trace *u;

		write_raw(dir, "raw.cstrace", body, n);
		ck_assert_int_eq(trace_load(path, &u, &err), 0);
		ck_assert_uint_eq(trace_ops(u), 1);
		ck_assert_str_eq(u->source, "cohscope");
		trace_free(u);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- Accel-Sim import ----------------------------------------------------------------------- */

static const char *const hdr_v5 = "-kernel name = _Z4testPf\n"
				  "-kernel id = 1\n"
				  "-grid dim = (2,1,1)\n"
				  "-block dim = (64,1,1)\n"
				  "-shmem = 4096\n"
				  "-nregs = 20\n"
				  "-some future key = 3\n"
				  "-shmem base_addr = 0x00007f1000000000\n"
				  "-local mem base_addr = 0x00007f2000000000\n"
				  "-accelsim tracer version = 5\n"
				  "-enable lineinfo = 1\n"
				  "\n#traces format = [line_num] PC mask ...\n\n";

static const char *const body_v5 =
    "#BEGIN_TB\n"
    "\n"
    "thread block = 0,0,0\n"
    "\n"
    "warp = 0\n"
    "insts = 18\n"
    "12 0000 ffffffff 1 R1 MOV 0 0 5\n"
    "12 0008 ffffffff 1 R1 IADD 1 R2 0 7 \n"
    "13 0010 0000000f 1 R4 LDG.E 1 R4 4 0 0x00007f0000010000 0x00007f0000010008 "
    "0x00007f0000010004 0x00007f0000010010 0\n"
    "14 0018 ffffffff 0 STG.E.64 2 R4 R6 8 1 0x00007f5500000000 8 0\n"
    "15 0020 00000505 1 R4 LDG.E.U8 1 R4 1 2 0x00007f5500000040 1 -2 3 0\n"
    "16 0028 ffffffff 0 BAR.SYNC 0 0 0\n"
    "17 0030 ffffffff 0 MEMBAR.CTA 0 0 0\n"
    "18 0038 ffffffff 1 R5 LDS.U.128 1 R4 16 1 0x0 0 0\n"
    "19 0040 00000000 1 R5 LDG.E 1 R4 4 1 0x0 0 0\n"
    "19 0048 ffffffff 0 NOP 0 0 0\n"
    "20 0050 ffffffff 0 MEMBAR.GL 0 0 0\n"
    "21 0058 00000001 1 R2 ATOMG.E.ADD.STRONG.GPU 2 R4 R5 4 1 0x00007f0000010020 0 0\n"
    "21 0060 00000003 0 RED.E.ADD 2 R4 R5 4 1 0x00007f0000010040 4 0\n"
    "22 0068 ffffffff 1 R1 LD.E 1 R2 4 1 0x00007f1000000100 4 0\n"
    "22 0070 00000001 0 STL 2 R1 R2 4 1 0x10 0 0\n"
    "23 0078 ffffffff 0 MEMBAR.SYS 0 0 0\n"
    "24 0080 0000fff0 0 EXIT 0 0 0\n"
    "24 0088 0000000f 0 EXIT 0 0 0\n"
    "\n"
    "warp = 1\n"
    "insts = 2\n"
    "1 0000 ffffffff 1 R1 MOV 0 0 0\n"
    "2 0008 ffffffff 0 EXIT 0 0 0\n"
    "#END_TB\n"
    "\n"
    "#BEGIN_TB\n"
    "thread block = 1,0,0\n"
    "warp = 0\n"
    "insts = 1\n"
    "3 0000 ffffffff 1 R4 LDG.E 1 R4 4 1 0x00007f6600000000 4 0\n"
    "#END_TB\n";

static const char *const list_v5 = "MemcpyHtoD,0x00007f0000010000,256\n"
				   "\n"
				   "MemcpyHtoD,0x00007f5500000000,128\n"
				   "kernel-1.traceg\n";

static void next_op(struct trace_cursor *c, struct trace_op *op, unsigned kind)
{
	int r = trace_next(c, op);

	if (r != 1 || op->kind != kind)
		ck_abort_msg("expected an op of kind %u, got result %d kind %u", kind, r, op->kind);
}

static void check_v5_trace(const struct trace *t)
{
	const struct trace_kernel *k;
	struct trace_cursor c;
	struct trace_op op;

	ck_assert_str_eq(t->source, "accelsim");
	ck_assert_uint_eq(t->nev, 3);
	ck_assert_int_eq(t->ev[0].kind, TRACE_EV_COPY);
	ck_assert_uint_eq(t->ev[0].copy.addr, 0);
	ck_assert_uint_eq(t->ev[0].copy.len, 256);
	ck_assert_ptr_null(t->ev[0].copy.data);
	ck_assert_uint_eq(t->ev[1].copy.addr, 0x10000);
	ck_assert_uint_eq(t->ev[1].copy.len, 128);
	/* slots: copy granules 0, 1; the local area 2; the kernel's third region 3 */
	ck_assert_uint_eq(t->heap_base, 0);
	ck_assert_uint_eq(t->heap_end, 4 * 65536);
	k = &t->ev[2].kernel;
	ck_assert_str_eq(k->name, "_Z4testPf");
	ck_assert_uint_eq(k->ctas, 2);
	ck_assert_uint_eq(k->warps_per_cta, 2);
	ck_assert_uint_eq(k->regs_per_thread, 20);
	ck_assert_uint_eq(k->smem_bytes, 4096);
	ck_assert_ptr_null(k->cta_sm);

	trace_cursor_init(&c, &k->warp[0]);
	next_op(&c, &op, TRACE_COMPUTE); /* MOV, IADD merged */
	ck_assert_uint_eq(op.cycles, 2);
	next_op(&c, &op, TRACE_LD); /* list_all */
	ck_assert_uint_eq(op.bytes, 4);
	ck_assert_uint_eq(op.mask, 0xf);
	ck_assert_uint_eq(op.addr[0], 0x0);
	ck_assert_uint_eq(op.addr[1], 0x8);
	ck_assert_uint_eq(op.addr[2], 0x4);
	ck_assert_uint_eq(op.addr[3], 0x10);
	next_op(&c, &op, TRACE_ST); /* base_stride, 64-bit */
	ck_assert_uint_eq(op.bytes, 8);
	ck_assert_uint_eq(op.mask, LANES_ALL);
	for (unsigned l = 0; l < WARP_LANES; l++)
		ck_assert_uint_eq(op.addr[l], 0x10000 + 8 * l);
	ck_assert_uint_eq(op.val[7], 0);
	next_op(&c, &op, TRACE_LD); /* base_delta over lanes 0, 2, 8, 10, U8 */
	ck_assert_uint_eq(op.bytes, 1);
	ck_assert_uint_eq(op.mask, 0x505);
	ck_assert_uint_eq(op.addr[0], 0x10040);
	ck_assert_uint_eq(op.addr[2], 0x10041);
	ck_assert_uint_eq(op.addr[8], 0x1003f);
	ck_assert_uint_eq(op.addr[10], 0x10042);
	next_op(&c, &op, TRACE_BAR);
	next_op(&c, &op, TRACE_FENCE);
	ck_assert_uint_eq(op.order, MEM_ORDER_ACQ_REL);
	ck_assert_uint_eq(op.scope, MEM_SCOPE_WG);
	next_op(&c, &op, TRACE_SMEM);
	next_op(&c, &op, TRACE_COMPUTE); /* predicated-off LDG + NOP */
	ck_assert_uint_eq(op.cycles, 2);
	next_op(&c, &op, TRACE_FENCE);
	ck_assert_uint_eq(op.scope, MEM_SCOPE_DEVICE);
	next_op(&c, &op, TRACE_ATOM);
	ck_assert_uint_eq(op.atom_op, MEM_ATOM_ADD);
	ck_assert_uint_eq(op.want_old, 1);
	ck_assert_uint_eq(op.scope, MEM_SCOPE_DEVICE);
	ck_assert_uint_eq(op.order, MEM_ORDER_RELAXED);
	ck_assert_uint_eq(op.bytes, 4);
	ck_assert_uint_eq(op.mask, 1);
	ck_assert_uint_eq(op.addr[0], 0x20);
	ck_assert_uint_eq(op.val[0], 0);
	next_op(&c, &op, TRACE_ATOM); /* RED: no old value */
	ck_assert_uint_eq(op.want_old, 0);
	ck_assert_uint_eq(op.addr[1], 0x44);
	next_op(&c, &op, TRACE_SMEM); /* generic LD in the shared window */
	next_op(&c, &op, TRACE_ST);   /* STL: thread 0's offset 0x10 in the private area */
	ck_assert_uint_eq(op.addr[0], 2 * 65536 + (1 * 128 + 0) * 16);
	next_op(&c, &op, TRACE_FENCE);
	ck_assert_uint_eq(op.scope, MEM_SCOPE_SYSTEM);
	ck_assert_int_eq(trace_next(&c, &op), 0); /* EXITs: nothing */
	ck_assert_uint_eq(k->warp[0].ops, 14);

	trace_cursor_init(&c, &k->warp[1]);
	next_op(&c, &op, TRACE_COMPUTE);
	ck_assert_uint_eq(op.cycles, 1);
	ck_assert_int_eq(trace_next(&c, &op), 0);
	trace_cursor_init(&c, &k->warp[2]); /* CTA 1 warp 0 */
	next_op(&c, &op, TRACE_LD);
	ck_assert_uint_eq(op.addr[0], 3 * 65536);
	ck_assert_uint_eq(op.addr[31], 3 * 65536 + 124);
	ck_assert_uint_eq(k->warp[3].ops, 0); /* not traced */
}

static char *make_dir(const char *list, const char *kname, const char *kernel)
{
	char *dir = mkdir_tmp();

	write_text(dir, "kernelslist.g", list);
	if (kernel)
		write_text(dir, kname, kernel);
	return dir;
}

static char *cat2(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);

	strcpy(s, a);
	strcat(s, b);
	return s;
}

START_TEST(test_accelsim_import)
{
	char *k = cat2(hdr_v5, body_v5), *dir = make_dir(list_v5, "kernel-1.traceg", k), list[512];
	struct cs_err err = {0};
	struct trace *t, *u;

	ck_assert_int_eq(trace_load(dir, &t, &err), 0); /* the directory */
	check_v5_trace(t);
	snprintf(list, sizeof(list), "%s/kernelslist.g", dir);
	ck_assert_int_eq(trace_load(list, &u, &err), 0); /* the list itself */
	assert_trace_equal(t, u);
	trace_free(u);
	ck_assert_int_eq(trace_import_accelsim(list, &u, &err), 0);
	assert_trace_equal(t, u);
	trace_free(u);

	/* the same kernel as .traceg.xz (compressed here with liblzma) */
	{
		size_t cap = strlen(k) + 1024, pos = 0;
		uint8_t *xz = malloc(cap);
		char *dir2 = mkdir_tmp();

		ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL,
							 (const uint8_t *)k, strlen(k), xz, &pos,
							 cap),
				 LZMA_OK);
		write_file(dir2, "kernel-1.traceg.xz", xz, pos);
		write_text(dir2, "kernelslist.g",
			   "MemcpyHtoD,0x00007f0000010000,256\n"
			   "MemcpyHtoD,0x00007f5500000000,128\nkernel-1.traceg.xz\n");
		ck_assert_int_eq(trace_load(dir2, &u, &err), 0);
		strcpy(u->workload, t->workload);
		assert_trace_equal(t, u);
		trace_free(u);
		/* a truncated .xz is an error naming the file */
		write_file(dir2, "kernel-1.traceg.xz", xz, pos / 2);
		ck_assert_int_ne(trace_load(dir2, &u, &err), 0);
		ck_assert_ptr_nonnull(strstr(err.msg, "kernel-1.traceg.xz"));
		ck_assert_ptr_nonnull(strstr(err.msg, "xz"));
		free(xz);
		rm_rf(dir2);
		free(dir2);
	}
	trace_free(t);
	rm_rf(dir);
	free(dir);
	free(k);
}
END_TEST

START_TEST(test_accelsim_relocation)
{
	/* granules in order of first use: the second copy's tail granule was taken by the first
	 * copy, so the second copy is split in two contiguous runs */
	const char *list = "MemcpyHtoD,0x0000700000050000,16\n"
			   "MemcpyHtoD,0x000070000004ff00,512\n"
			   "MemcpyHtoD,0x0000123400000010,64\n";
	char *k = cat2(hdr_v5, body_v5), *dir = make_dir(list, NULL, NULL), *list2;
	struct cs_err err = {0};
	struct trace *t = NULL;

	/* copies and no kernel: an error naming the file and its last line, not an empty run */
	ck_assert_int_eq(trace_load(dir, &t, &err), -CS_EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_ptr_nonnull(strstr(err.msg, "kernelslist.g:3: no kernel"));
	rm_rf(dir);
	free(dir);
	list2 = cat2(list, "kernel-1.traceg\n");
	dir = make_dir(list2, "kernel-1.traceg", k);
	ck_assert_int_eq(trace_load(dir, &t, &err), 0);
	ck_assert_uint_eq(t->nev, 5);
	ck_assert_int_eq(t->ev[4].kind, TRACE_EV_KERNEL);
	ck_assert_uint_eq(t->ev[0].copy.addr, 0x0);
	ck_assert_uint_eq(t->ev[0].copy.len, 16);
	ck_assert_uint_eq(t->ev[1].copy.addr, 0x1ff00); /* granule ...4 -> slot 1 */
	ck_assert_uint_eq(t->ev[1].copy.len, 0x100);
	ck_assert_uint_eq(t->ev[2].copy.addr, 0x0); /* granule ...5 -> slot 0 */
	ck_assert_uint_eq(t->ev[2].copy.len, 0x100);
	ck_assert_uint_eq(t->ev[3].copy.addr, 0x20010);
	ck_assert_uint_ge(t->heap_end, 3 * 65536); /* the kernel's granules come after */
	trace_free(t);
	rm_rf(dir);
	free(dir);
	free(list2);
	free(k);
}
END_TEST

static void import_expect(const char *list, const char *kernel, const char *what)
{
	char *dir = make_dir(list, "kernel-1.traceg", kernel), path[512];
	struct cs_err err = {0};
	struct trace *t = NULL;

	snprintf(path, sizeof(path), "%s/kernelslist.g", dir);
	if (trace_import_accelsim(path, &t, &err) == 0) {
		trace_free(t);
		ck_abort_msg("imported; expected '%s'", what);
	}
	if (!strstr(err.msg, what) || !strstr(err.msg, dir))
		ck_abort_msg("'%s' lacks '%s' or the path", err.msg, what);
	rm_rf(dir);
	free(dir);
}

START_TEST(test_accelsim_errors)
{
	const char *hdr = "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
			  "-accelsim tracer version = 4\n-enable lineinfo = 0\n#traces\n"; /* 6 */
	const char *list = "MemcpyHtoD,0x00007f0000010000,256\nkernel-1.traceg\n";
	char *k;

	k = cat2(hdr, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 3\n"
		      "0000 ffffffff 0 NOP 0 0\n0008 ffffffff 0 EXIT 0 0\n#END_TB\n");
	import_expect(list, k, "kernel-1.traceg:13: warp 1: expected 3 instructions, found 2");
	free(k);
	k = cat2(hdr, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		      "0000 ffffffff 0 NOP 0 0\n0008 ffffffff 0 EXIT 0 0\n#END_TB\n");
	import_expect(list, k, "kernel-1.traceg:12: warp 0: expected 1 instructions, found more");
	free(k);
	k = cat2(hdr, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		      "0000 ffffffff 1 R4 LDG.E 1 R4 4 7 0x00007f0000010000 4\n#END_TB\n");
	import_expect(list, k, "kernel-1.traceg:11: bad address mode 7");
	free(k);
	k = cat2(hdr, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		      "0000 00000003 1 R4 LDG.E 1 R4 4 1 0x00007f0000010002 4\n#END_TB\n");
	import_expect(list, k,
		      "kernel-1.traceg:11: lane 0: address 0x7f0000010002 not aligned to 4");
	free(k);
	k = cat2(hdr, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
		      "0000 ffffffff 1 R4 LDG.E 1 R4 4 1 0x00007f0000010000 4 99\n#END_TB\n");
	import_expect(list, k, "kernel-1.traceg:11: unexpected field '99'"); /* v4: no immediate */
	free(k);
	k = cat2(hdr, "#BEGIN_TB\nthread block = 0,1,0\n");
	import_expect(list, k, "kernel-1.traceg:8: thread block (0,1,0) outside the grid");
	free(k);
	import_expect(list, "-kernel name = k\n-block dim = (64,1,1)\n#traces\n",
		      "kernel-1.traceg:3: missing -grid dim");
	import_expect("MemcpyHtoD,0x10,4\nkernel-2.traceg\n", "",
		      "kernelslist.g:2: cannot open kernel-2.traceg");
	import_expect("MemcpyHtoD,0x10\n", "", "kernelslist.g:1: expected MemcpyHtoD,0xADDR,BYTES");
}
END_TEST

START_TEST(test_accelsim_fuzz)
{
	/* damaged kernel files: imported, or one error naming the file; never a crash */
	char *k = cat2(hdr_v5, body_v5), *dir = mkdir_tmp(), list[512];
	size_t len = strlen(k);
	char *m = malloc(len + 1);
	uint64_t s = 4242;

	snprintf(list, sizeof(list), "%s/kernelslist.g", dir);
	write_text(dir, "kernelslist.g", list_v5);
	for (unsigned i = 0; i < 300; i++) {
		static const char alphabet[] = " \n0123456789abcdefx-=,#()RLDGSTEXIT.";
		struct cs_err err = {0};
		struct trace *t;
		size_t n = len;

		memcpy(m, k, len + 1);
		for (unsigned j = 0; j < 1 + rnd(&s) % 4; j++) {
			size_t at = strlen(hdr_v5) / 2 + rnd(&s) % (len - strlen(hdr_v5) / 2);

			if (rnd(&s) % 3 == 0)
				n = at; /* cut */
			else
				m[at] = alphabet[rnd(&s) % (sizeof(alphabet) - 1)];
		}
		write_file(dir, "kernel-1.traceg", m, n);
		if (trace_import_accelsim(list, &t, &err) == 0)
			trace_free(t);
		else if (!strstr(err.msg, dir))
			ck_abort_msg("mutation %u: '%s' does not name the file", i, err.msg);
	}
	free(m);
	free(k);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- the two real traces (FORMAT.md) -------------------------------------------------------- */

struct counts {
	uint64_t ld, st, atom, smem, bar, fence, compute_cycles, ops;
};

static void count_kernel(const struct trace_kernel *k, struct counts *n)
{
	memset(n, 0, sizeof(*n));
	for (unsigned w = 0; w < k->ctas * k->warps_per_cta; w++) {
		struct trace_cursor c;
		struct trace_op op;
		int r;

		trace_cursor_init(&c, &k->warp[w]);
		while ((r = trace_next(&c, &op)) == 1) {
			n->ops++;
			switch (op.kind) {
			case TRACE_LD:
				n->ld++;
				break;
			case TRACE_ST:
				n->st++;
				break;
			case TRACE_ATOM:
				n->atom++;
				break;
			case TRACE_SMEM:
				n->smem++;
				break;
			case TRACE_BAR:
				n->bar++;
				break;
			case TRACE_FENCE:
				n->fence++;
				break;
			case TRACE_COMPUTE:
				n->compute_cycles += op.cycles;
				n->ops--; /* counted by its cycles */
				break;
			}
		}
		ck_assert_int_eq(r, 0);
	}
}

static char *real_trace(const char *name)
{
	const char *src = getenv("COHSCOPE_SRC");
	char *p;

	if (!src)
		return NULL;
	p = malloc(strlen(src) + strlen(name) + 64);
	sprintf(p, "%s/tests/traces/external/%s", src, name);
	return p;
}

START_TEST(test_real_vectoradd)
{
	char *dir = real_trace("vectoradd-100-32/"); /* a trailing slash is fine */
	const struct trace_kernel *k;
	struct cs_err err = {0};
	struct counts n;
	struct trace *t;

	if (!dir)
		return; /* COHSCOPE_SRC not set: skipped */
	if (trace_load(dir, &t, &err) != 0)
		ck_abort_msg("%s", err.msg);
	ck_assert_str_eq(t->workload, "vectoradd-100-32");
	ck_assert_uint_eq(t->nev, 4);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(t->ev[i].kind, TRACE_EV_COPY);
		ck_assert_uint_eq(t->ev[i].copy.len, 400);
		ck_assert_uint_eq(t->ev[i].copy.addr, 0x200 * i); /* one granule, offsets kept */
	}
	ck_assert_uint_eq(t->heap_end, 65536);
	k = &t->ev[3].kernel;
	ck_assert_str_eq(k->name, "_Z6vecAddIfEvPT_S1_S1_i");
	ck_assert_uint_eq(k->ctas, 1);
	ck_assert_uint_eq(k->warps_per_cta, 32);
	ck_assert_uint_eq(k->regs_per_thread, 8);
	count_kernel(k, &n);
	ck_assert_uint_eq(n.ld, 8);
	ck_assert_uint_eq(n.st, 4);
	ck_assert_uint_eq(n.atom + n.smem + n.bar + n.fence, 0);
	/* 344 warp instructions = compute slots + ops + 33 executed EXITs (warps 0-2: 1,
	 * warp 3: 2 (a partial one), warps 4-31: 1) */
	ck_assert_uint_eq(n.compute_cycles + n.ops + 33, 344);
	{
		struct trace_cursor c;
		struct trace_op op;
		unsigned mem = 0;

		trace_cursor_init(&c, &k->warp[3]);
		while (trace_next(&c, &op) == 1) {
			if (op.kind == TRACE_COMPUTE)
				continue;
			ck_assert_uint_eq(op.mask, 0x0000000f);
			ck_assert_uint_eq(op.addr[0] & 0x1ff, 0x180);
			mem++;
		}
		ck_assert_uint_eq(mem, 3);
		trace_cursor_init(&c, &k->warp[0]);
		next_op(&c, &op, TRACE_COMPUTE);
		next_op(&c, &op, TRACE_LD);
		ck_assert_uint_eq(op.addr[31], 124); /* a[] at slot 0 offset 0 */
	}
	trace_free(t);
	free(dir);
}
END_TEST

START_TEST(test_real_matrixmul)
{
	char *dir = real_trace("matrixmul-32-32"), path[600];
	const struct trace_kernel *k;
	struct cs_err err = {0};
	struct trace *t, *u;
	struct counts n;

	if (!dir)
		return;
	if (trace_load(dir, &t, &err) != 0)
		ck_abort_msg("%s", err.msg);
	ck_assert_uint_eq(t->nev, 3);
	k = &t->ev[2].kernel;
	ck_assert_uint_eq(k->ctas, 1);
	ck_assert_uint_eq(k->warps_per_cta, 32);
	ck_assert_uint_eq(k->smem_bytes, 8192);
	ck_assert_uint_eq(k->regs_per_thread, 30);
	count_kernel(k, &n);
	ck_assert_uint_eq(n.ld, 64);
	ck_assert_uint_eq(n.st, 32);
	ck_assert_uint_eq(n.smem, 64 + 1024 + 256);
	ck_assert_uint_eq(n.bar, 64);
	ck_assert_uint_eq(n.fence, 64);
	/* 4416 warp instructions = compute slots + ops + one EXIT per warp */
	ck_assert_uint_eq(n.compute_cycles + n.ops + 32, 4416);
	/* and the imported trace survives a save / load */
	{
		char *tmp = mkdir_tmp();

		snprintf(path, sizeof(path), "%s/mm.cstrace", tmp);
		ck_assert_int_eq(trace_save(t, path, &err), 0);
		ck_assert_int_eq(trace_load(path, &u, &err), 0);
		assert_trace_equal(t, u);
		trace_free(u);
		rm_rf(tmp);
		free(tmp);
	}
	trace_free(t);
	free(dir);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("encoding");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_encode_roundtrip);
	tcase_add_test(tc, test_encode_compact_and_exact);
	tcase_add_test(tc, test_encode_format2);
	tcase_add_test(tc, test_decode_fuzz);
	suite_add_tcase(s, tc);

	tc = tcase_create("file");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_file_roundtrip);
	tcase_add_test(tc, test_file_damage);
	tcase_add_test(tc, test_file_body_structure);
	suite_add_tcase(s, tc);

	tc = tcase_create("accelsim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_accelsim_import);
	tcase_add_test(tc, test_accelsim_relocation);
	tcase_add_test(tc, test_accelsim_errors);
	tcase_add_test(tc, test_accelsim_fuzz);
	tcase_add_test(tc, test_real_vectoradd);
	tcase_add_test(tc, test_real_matrixmul);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
