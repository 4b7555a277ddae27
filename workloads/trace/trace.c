/*
 * workloads/trace/trace.c - the op encoding of a warp stream, struct trace, and the cohscope
 * trace file (trace_save / trace_load).
 *
 * Op encoding (one op, all integers LEB128 varints unless said otherwise; zz() = zigzag):
 *   byte 0: bits 0-2 kind (enum trace_op_kind), bit 3 stride mode (LD/ST/ATOM), bits 4-6
 *           log2(bytes) (LD/ST/ATOM), bit 7 an extension byte follows (LD/ST/ATOM, format 2).
 *           Other kinds: bits 3-7 zero.
 *   extension (only when not all zero): bits 0-1 cache operator (LD/ST), bit 2 order bit 2
 *           (ST/ATOM: seq_cst), bits 3-7 zero.
 *   LD/ST/ATOM: mask (1..2^64-1); zz(first active lane's address - prev_addr) (64-bit
 *           wrapping difference; prev_addr is the previous LD/ST/ATOM's first address in the
 *           same stream, 0 at the start); then either, in stride mode (>= 2 active lanes, every
 *           next active lane = previous active lane + a constant), zz(stride), or one
 *           zz(lane - previous active lane) per further active lane, in lane order.
 *     ST:   one byte scope | (order & 3) << 2; one value per active lane (low `bytes` bytes, 8
 *           at most).
 *     ATOM: one byte atom_op | want_old << 3 | scope << 4 | (order & 3) << 6 (bytes 4 or 8);
 *           one operand a per active lane (none for LOAD); CAS: one operand b per active lane.
 *   FENCE: one byte scope | order << 2 (order acquire, release, acq_rel or seq_cst).
 *   SPIN (format 3): byte 0 alone, bit 3 set for a loop's first guard.
 * Format 1 streams are format 2 streams without extension bytes, 32 lanes, seq_cst, remote
 * scope or atomic loads and stores: the decoder reads both.
 *   COMPUTE: cycles (>= 1).
 *   BAR, SMEM: nothing more.
 * The decoder accepts exactly what the encoder writes (values above the width, unused bits,
 * over-long varints, a stride flag on one lane are all -CS_EINVAL).
 *
 * File layout: see trace_save below and workloads/trace/README.md.
 */
#include "workloads/trace/trace.h"

#include "util/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#define OP_MAX_BYTES (1 + 1 + 10 + 10 + 63 * 10 + 1 + 64 * 10 + 64 * 10)
#define HDR_BYTES    24
static const char trace_magic[8] = {'C', 'S', 'T', 'R', 'A', 'C', 'E', '\0'};

/* ---- varints -------------------------------------------------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* 0 or -1 (truncated or more than 64 bits). */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t c;

		if (p >= end)
			return -1;
		c = *p++;
		if (shift == 63 && c > 1)
			return -1;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
	}
	*pp = p;
	*out = v;
	return 0;
}

static uint64_t zz(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static uint64_t unzz(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static int width_log2(unsigned bytes)
{
	switch (bytes) {
	case 1:
		return 0;
	case 2:
		return 1;
	case 4:
		return 2;
	case 8:
		return 3;
	case 16:
		return 4;
	default:
		return -1;
	}
}

static uint64_t value_mask(unsigned bytes)
{
	return bytes >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * bytes)) - 1);
}

static int is_mem(unsigned kind)
{
	return kind == TRACE_LD || kind == TRACE_ST || kind == TRACE_ATOM;
}

/* ---- encoding ------------------------------------------------------------------------------- */

static int buf_reserve(struct trace_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->cap - b->len >= n)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			return -CS_ENOMEM;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		return -CS_ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int trace_buf_put(struct trace_buf *b, const struct trace_op *op)
{
	uint8_t tmp[OP_MAX_BYTES];
	unsigned lane[WARP_LANES_MAX], k = 0;
	size_t n = 0;
	uint64_t first = 0;
	int lg, stride = 0, r;
	uint8_t ext = 0;

	switch (op->kind) {
	case TRACE_LD:
	case TRACE_ST:
	case TRACE_ATOM: {
		uint64_t vm = value_mask(op->bytes);

		lg = width_log2(op->bytes);
		if (lg < 0 || !op->mask)
			return -CS_EINVAL;
		if (op->kind != TRACE_LD &&
		    (op->scope > MEM_SCOPE_DEVICE_REMOTE || op->order > MEM_ORDER_SEQ_CST))
			return -CS_EINVAL;
		if (op->kind == TRACE_ATOM &&
		    ((op->bytes != 4 && op->bytes != 8) || op->atom_op < MEM_ATOM_ADD ||
		     op->atom_op > MEM_ATOM_LAST || op->want_old > 1))
			return -CS_EINVAL;
		if (op->cop > MEM_CO_CV || (op->kind == TRACE_ATOM && op->cop))
			return -CS_EINVAL;
		ext = (uint8_t)(op->cop | (op->kind != TRACE_LD && (op->order & 4) ? 4 : 0));
		for (unsigned i = 0; i < WARP_LANES_MAX; i++)
			if (op->mask & (1ull << i))
				lane[k++] = i;
		first = op->addr[lane[0]];
		if (k >= 2) {
			uint64_t s = op->addr[lane[1]] - first;

			stride = 1;
			for (unsigned j = 2; j < k && stride; j++)
				if (op->addr[lane[j]] - op->addr[lane[j - 1]] != s)
					stride = 0;
		}
		tmp[n++] = (uint8_t)(op->kind | (stride ? 0x08 : 0) | (lg << 4) | (ext ? 0x80 : 0));
		if (ext)
			tmp[n++] = ext;
		n += put_varint(tmp + n, op->mask);
		n += put_varint(tmp + n, zz(first - b->prev_addr));
		if (stride)
			n += put_varint(tmp + n, zz(op->addr[lane[1]] - first));
		else
			for (unsigned j = 1; j < k; j++)
				n += put_varint(tmp + n,
						zz(op->addr[lane[j]] - op->addr[lane[j - 1]]));
		if (op->kind == TRACE_ST) {
			tmp[n++] = (uint8_t)(op->scope | (op->order & 3) << 2);
			for (unsigned j = 0; j < k; j++)
				n += put_varint(tmp + n, op->val[lane[j]] & vm);
		} else if (op->kind == TRACE_ATOM) {
			tmp[n++] = (uint8_t)(op->atom_op | op->want_old << 3 | op->scope << 4 |
					     (op->order & 3) << 6);
			for (unsigned j = 0; op->atom_op != MEM_ATOM_LOAD && j < k; j++)
				n += put_varint(tmp + n, op->val[lane[j]] & vm);
			if (op->atom_op == MEM_ATOM_CAS)
				for (unsigned j = 0; j < k; j++)
					n += put_varint(tmp + n, op->b[lane[j]] & vm);
		}
		break;
	}
	case TRACE_FENCE:
		if (op->scope > MEM_SCOPE_DEVICE_REMOTE || op->order < MEM_ORDER_ACQUIRE ||
		    op->order > MEM_ORDER_SEQ_CST)
			return -CS_EINVAL;
		tmp[n++] = TRACE_FENCE;
		tmp[n++] = (uint8_t)(op->scope | op->order << 2);
		break;
	case TRACE_COMPUTE:
		if (!op->cycles)
			return -CS_EINVAL;
		tmp[n++] = TRACE_COMPUTE;
		n += put_varint(tmp + n, op->cycles);
		break;
	case TRACE_BAR:
	case TRACE_SMEM:
		tmp[n++] = op->kind;
		break;
	case TRACE_SPIN:
		if (op->first > 1)
			return -CS_EINVAL;
		tmp[n++] = (uint8_t)(TRACE_SPIN | op->first << 3);
		break;
	default:
		return -CS_EINVAL;
	}
	r = buf_reserve(b, n);
	if (r)
		return r;
	memcpy(b->p + b->len, tmp, n);
	b->len += n;
	b->ops++;
	if (is_mem(op->kind))
		b->prev_addr = first;
	return 0;
}

/* ---- decoding ------------------------------------------------------------------------------- */

void trace_cursor_init(struct trace_cursor *c, const struct trace_buf *b)
{
	c->p = b->p;
	c->end = b->p ? b->p + b->len : NULL;
	c->prev_addr = 0;
}

static int decode_mem(const uint8_t **pp, const uint8_t *end, uint8_t head, uint64_t *prev,
		      struct trace_op *op)
{
	unsigned lane[WARP_LANES_MAX], k = 0, lg = (head >> 4) & 7;
	uint64_t v, vm;
	int stride = !!(head & 0x08);
	uint8_t ext = 0;

	if (lg > 4)
		return -1;
	if (head & 0x80) {
		if (*pp >= end)
			return -1;
		ext = *(*pp)++;
		/* only what the encoder writes: a non-zero byte of known bits for the kind */
		if (!ext || (ext & 0xf8) || (ext & 3) > MEM_CO_CV ||
		    (op->kind == TRACE_ATOM && (ext & 3)) || (op->kind == TRACE_LD && (ext & 4)))
			return -1;
		op->cop = ext & 3;
	}
	op->bytes = (uint8_t)(1u << lg);
	vm = value_mask(op->bytes);
	if (get_varint(pp, end, &v) || !v)
		return -1;
	op->mask = v;
	for (unsigned i = 0; i < WARP_LANES_MAX; i++)
		if (op->mask & (1ull << i))
			lane[k++] = i;
	if (stride && k < 2)
		return -1;
	if (get_varint(pp, end, &v))
		return -1;
	op->addr[lane[0]] = *prev + unzz(v);
	if (stride) {
		if (get_varint(pp, end, &v))
			return -1;
		for (unsigned j = 1; j < k; j++)
			op->addr[lane[j]] = op->addr[lane[j - 1]] + unzz(v);
	} else {
		for (unsigned j = 1; j < k; j++) {
			if (get_varint(pp, end, &v))
				return -1;
			op->addr[lane[j]] = op->addr[lane[j - 1]] + unzz(v);
		}
	}
	if (op->kind == TRACE_ST) {
		uint8_t so;

		if (*pp >= end)
			return -1;
		so = *(*pp)++;
		if (so & 0xf0)
			return -1;
		op->scope = so & 3;
		op->order = (uint8_t)(((so >> 2) & 3) | (ext & 4));
		if (op->order > MEM_ORDER_SEQ_CST)
			return -1;
		for (unsigned j = 0; j < k; j++) {
			if (get_varint(pp, end, &v) || v > vm)
				return -1;
			op->val[lane[j]] = v;
		}
	} else if (op->kind == TRACE_ATOM) {
		uint8_t a;

		if (op->bytes != 4 && op->bytes != 8)
			return -1;
		if (*pp >= end)
			return -1;
		a = *(*pp)++;
		op->atom_op = a & 7;
		op->want_old = (a >> 3) & 1;
		op->scope = (a >> 4) & 3;
		op->order = (uint8_t)(((a >> 6) & 3) | (ext & 4));
		if (op->atom_op < MEM_ATOM_ADD || op->order > MEM_ORDER_SEQ_CST)
			return -1;
		for (unsigned j = 0; op->atom_op != MEM_ATOM_LOAD && j < k; j++) {
			if (get_varint(pp, end, &v) || v > vm)
				return -1;
			op->val[lane[j]] = v;
		}
		if (op->atom_op == MEM_ATOM_CAS)
			for (unsigned j = 0; j < k; j++) {
				if (get_varint(pp, end, &v) || v > vm)
					return -1;
				op->b[lane[j]] = v;
			}
	}
	*prev = op->addr[lane[0]];
	return 0;
}

int trace_next(struct trace_cursor *c, struct trace_op *op)
{
	const uint8_t *p = c->p;
	uint64_t prev = c->prev_addr, v;
	uint8_t head;

	memset(op, 0, sizeof(*op));
	if (!p || p >= c->end)
		return 0;
	head = *p++;
	op->kind = head & 7;
	switch (op->kind) {
	case TRACE_LD:
	case TRACE_ST:
	case TRACE_ATOM:
		if (decode_mem(&p, c->end, head, &prev, op))
			goto bad;
		break;
	case TRACE_FENCE:
		if ((head & 0xf8) || p >= c->end)
			goto bad;
		op->scope = *p & 3;
		op->order = (*p >> 2) & 7;
		if ((*p & 0xe0) || op->order < MEM_ORDER_ACQUIRE || op->order > MEM_ORDER_SEQ_CST)
			goto bad;
		p++;
		break;
	case TRACE_COMPUTE:
		if ((head & 0xf8) || get_varint(&p, c->end, &v) || !v)
			goto bad;
		op->cycles = v;
		break;
	case TRACE_BAR:
	case TRACE_SMEM:
		if (head & 0xf8)
			goto bad;
		break;
	case TRACE_SPIN:
		if (head & 0xf0)
			goto bad;
		op->first = (head >> 3) & 1;
		break;
	default:
		goto bad;
	}
	c->p = p;
	c->prev_addr = prev;
	return 1;
bad:
	memset(op, 0, sizeof(*op));
	return -CS_EINVAL;
}

/* ---- struct trace --------------------------------------------------------------------------- */

int trace_new(struct trace **out)
{
	struct trace *t = calloc(1, sizeof(*t));

	if (!t)
		return -CS_ENOMEM;
	*out = t;
	return 0;
}

static void kernel_release(struct trace_kernel *k)
{
	if (k->warp)
		for (uint64_t i = 0; i < (uint64_t)k->ctas * k->warps_per_cta; i++)
			free(k->warp[i].p);
	free(k->warp);
	free(k->cta_sm);
	free(k->name);
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nev; i++) {
		if (t->ev[i].kind == TRACE_EV_COPY)
			free(t->ev[i].copy.data);
		else
			kernel_release(&t->ev[i].kernel);
	}
	free(t->ev);
	free(t);
}

static struct trace_event *new_event(struct trace *t)
{
	if (t->nev == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		struct trace_event *ev = realloc(t->ev, cap * sizeof(*ev));

		if (!ev)
			return NULL;
		t->ev = ev;
		t->cap = cap;
	}
	memset(&t->ev[t->nev], 0, sizeof(t->ev[t->nev]));
	return &t->ev[t->nev];
}

int trace_add_copy(struct trace *t, uint64_t addr, const void *data, uint64_t len)
{
	struct trace_event *e = new_event(t);
	uint8_t *d = NULL;

	if (!e)
		return -CS_ENOMEM;
	if (data && len) {
		if (len > SIZE_MAX)
			return -CS_ENOMEM;
		d = malloc((size_t)len);
		if (!d)
			return -CS_ENOMEM;
		memcpy(d, data, (size_t)len);
	}
	e->kind = TRACE_EV_COPY;
	e->copy.addr = addr;
	e->copy.len = len;
	e->copy.data = d;
	t->nev++;
	return 0;
}

int trace_add_kernel(struct trace *t, const char *name, unsigned ctas, unsigned warps_per_cta,
		     unsigned regs_per_thread, unsigned smem_bytes, const uint16_t *cta_sm,
		     struct trace_kernel **out)
{
	struct trace_event *e;
	struct trace_kernel *k;
	uint64_t nw = (uint64_t)ctas * warps_per_cta;

	if (!ctas || !warps_per_cta || nw > SIZE_MAX / sizeof(struct trace_buf))
		return -CS_EINVAL;
	e = new_event(t);
	if (!e)
		return -CS_ENOMEM;
	k = &e->kernel;
	k->name = strdup(name ? name : "");
	k->warp = calloc((size_t)nw, sizeof(*k->warp));
	if (cta_sm) {
		k->cta_sm = malloc((size_t)ctas * sizeof(*k->cta_sm));
		if (k->cta_sm)
			memcpy(k->cta_sm, cta_sm, (size_t)ctas * sizeof(*k->cta_sm));
	}
	if (!k->name || !k->warp || (cta_sm && !k->cta_sm)) {
		free(k->name);
		free(k->warp);
		free(k->cta_sm);
		memset(k, 0, sizeof(*k));
		return -CS_ENOMEM;
	}
	e->kind = TRACE_EV_KERNEL;
	k->ctas = ctas;
	k->warps_per_cta = warps_per_cta;
	k->regs_per_thread = regs_per_thread;
	k->smem_bytes = smem_bytes;
	k->lanes = WARP_LANES;
	t->nev++;
	if (out)
		*out = k;
	return 0;
}

uint64_t trace_ops(const struct trace *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nev; i++) {
		const struct trace_kernel *k = &t->ev[i].kernel;

		if (t->ev[i].kind != TRACE_EV_KERNEL)
			continue;
		for (uint64_t w = 0; w < (uint64_t)k->ctas * k->warps_per_cta; w++)
			n += k->warp[w].ops;
	}
	return n;
}

/* ---- body writer ---------------------------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void w_bytes(struct wbuf *w, const void *src, size_t n)
{
	if (w->err)
		return;
	if (w->cap - w->len < n) {
		size_t cap = w->cap ? w->cap : 4096;
		uint8_t *p;

		while (cap - w->len < n) {
			if (cap > SIZE_MAX / 2) {
				w->err = -CS_ENOMEM;
				return;
			}
			cap *= 2;
		}
		p = realloc(w->p, cap);
		if (!p) {
			w->err = -CS_ENOMEM;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	if (n)
		memcpy(w->p + w->len, src, n);
	w->len += n;
}

static void le_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t le_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void w_int(struct wbuf *w, uint64_t v, unsigned n)
{
	uint8_t b[8];

	le_put(b, v, n);
	w_bytes(w, b, n);
}

static void w_str(struct wbuf *w, const char *s, size_t max)
{
	size_t n = strnlen(s ? s : "", max);

	w_int(w, n, 4);
	w_bytes(w, s, n);
}

/* Body: see README.md. */
static int build_body(const struct trace *t, struct wbuf *w)
{
	w_str(w, t->source, sizeof(t->source) - 1);
	w_str(w, t->workload, sizeof(t->workload) - 1);
	w_int(w, t->heap_base, 8);
	w_int(w, t->heap_end, 8);
	for (size_t i = 0; i < t->nev; i++) {
		const struct trace_event *e = &t->ev[i];

		if (e->kind == TRACE_EV_COPY) {
			w_int(w, TRACE_EV_COPY, 1);
			w_int(w, e->copy.addr, 8);
			w_int(w, e->copy.len, 8);
			w_int(w, e->copy.data != NULL, 1);
			if (e->copy.data)
				w_bytes(w, e->copy.data, (size_t)e->copy.len);
		} else {
			const struct trace_kernel *k = &e->kernel;
			uint64_t nw = (uint64_t)k->ctas * k->warps_per_cta;

			w_int(w, TRACE_EV_KERNEL, 1);
			w_str(w, k->name, 65535);
			w_int(w, k->ctas, 4);
			w_int(w, k->warps_per_cta, 4);
			w_int(w, k->regs_per_thread, 4);
			w_int(w, k->smem_bytes, 4);
			w_int(w, k->lanes, 1);
			w_int(w, k->cta_sm != NULL, 1);
			if (k->cta_sm)
				for (unsigned c = 0; c < k->ctas; c++)
					w_int(w, k->cta_sm[c], 2);
			for (uint64_t x = 0; x < nw; x++) {
				w_int(w, k->warp[x].ops, 8);
				w_int(w, k->warp[x].len, 8);
				w_bytes(w, k->warp[x].p, k->warp[x].len);
			}
		}
	}
	w_int(w, 0, 1); /* end marker */
	return w->err;
}

int trace_save(const struct trace *t, const char *path, struct cs_err *err)
{
	struct wbuf w = {0};
	ZSTD_CCtx *cc = NULL;
	uint8_t *frame = NULL, hdr[HDR_BYTES];
	size_t flen, bound;
	char *tmp = NULL;
	FILE *f = NULL;
	int r;

	r = build_body(t, &w);
	if (r) {
		cs_err_set(err, r, "%s: out of memory building the trace", path);
		goto out;
	}
	bound = ZSTD_compressBound(w.len);
	frame = malloc(bound);
	cc = ZSTD_createCCtx();
	if (!frame || !cc) {
		r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory compressing the trace", path);
		goto out;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cc, w.len))) {
		r = cs_err_set(err, -CS_EIO, "%s: cannot configure zstd", path);
		goto out;
	}
	flen = ZSTD_compress2(cc, frame, bound, w.p, w.len);
	if (ZSTD_isError(flen)) {
		r = cs_err_set(err, -CS_EIO, "%s: zstd: %s", path, ZSTD_getErrorName(flen));
		goto out;
	}
	memcpy(hdr, trace_magic, 8);
	le_put(hdr + 8, TRACE_FORMAT_VERSION, 4);
	le_put(hdr + 12, 0, 4);
	le_put(hdr + 16, w.len, 8);

	tmp = malloc(strlen(path) + 32);
	if (!tmp) {
		r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	sprintf(tmp, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f) {
		r = cs_err_set(err, -CS_EIO, "%s: cannot create %s: %s", path, tmp,
			       strerror(errno));
		goto out;
	}
	if (fwrite(hdr, 1, HDR_BYTES, f) != HDR_BYTES || fwrite(frame, 1, flen, f) != flen ||
	    fflush(f) != 0 || fsync(fileno(f)) != 0) {
		r = cs_err_set(err, -CS_EIO, "%s: write error: %s", tmp, strerror(errno));
		goto fail_tmp;
	}
	if (fclose(f) != 0) {
		f = NULL;
		r = cs_err_set(err, -CS_EIO, "%s: write error: %s", tmp, strerror(errno));
		goto fail_tmp;
	}
	f = NULL;
	if (rename(tmp, path) != 0) {
		r = cs_err_set(err, -CS_EIO, "%s: cannot rename %s: %s", path, tmp,
			       strerror(errno));
		goto fail_tmp;
	}
	r = 0;
	goto out;
fail_tmp:
	if (f)
		fclose(f);
	f = NULL;
	unlink(tmp);
out:
	if (f)
		fclose(f);
	free(tmp);
	ZSTD_freeCCtx(cc);
	free(frame);
	free(w.p);
	return r;
}

/* ---- loading -------------------------------------------------------------------------------- */

struct rbuf {
	const uint8_t *p, *end;
};

static size_t r_left(const struct rbuf *r)
{
	return (size_t)(r->end - r->p);
}

static int r_int(struct rbuf *r, unsigned n, uint64_t *v)
{
	if (r_left(r) < n)
		return -1;
	*v = le_get(r->p, n);
	r->p += n;
	return 0;
}

/* A length-prefixed string into dst (size cap, NUL-terminated); -1 if short or too long. */
static int r_str(struct rbuf *r, char *dst, size_t cap)
{
	uint64_t n;

	if (r_int(r, 4, &n) || n >= cap || n > r_left(r))
		return -1;
	memcpy(dst, r->p, (size_t)n);
	dst[n] = '\0';
	r->p += n;
	return 0;
}

static int parse_body(const char *path, unsigned ver, const uint8_t *body, size_t len,
		      struct trace *t, struct cs_err *err)
{
	struct rbuf r = {body, body + len};
	char *name = NULL;
	unsigned nk = 0;
	uint16_t *sm = NULL;
	int ret = -CS_EINVAL;

	if (r_str(&r, t->source, sizeof(t->source)) ||
	    r_str(&r, t->workload, sizeof(t->workload)) || r_int(&r, 8, &t->heap_base) ||
	    r_int(&r, 8, &t->heap_end))
		return cs_err_set(err, -CS_EINVAL, "%s: corrupt: bad body header", path);
	if (strcmp(t->source, "cohscope") && strcmp(t->source, "accelsim"))
		return cs_err_set(err, -CS_EINVAL,
				  "%s: corrupt: source '%s' (cohscope or accelsim)", path,
				  t->source);
	if (t->heap_end < t->heap_base || t->heap_end - t->heap_base > TRACE_DEVICE_MAX)
		return cs_err_set(
		    err, -CS_EINVAL,
		    "%s: corrupt: device memory [0x%llx, 0x%llx) (at most %llu bytes)", path,
		    (unsigned long long)t->heap_base, (unsigned long long)t->heap_end,
		    TRACE_DEVICE_MAX);
	for (size_t ev = 0;; ev++) {
		uint64_t tag;

		if (r_int(&r, 1, &tag))
			return cs_err_set(err, -CS_EINVAL, "%s: corrupt: no end marker", path);
		if (tag == 0)
			break;
		if (tag == TRACE_EV_COPY) {
			uint64_t addr, n, has;

			if (r_int(&r, 8, &addr) || r_int(&r, 8, &n) || r_int(&r, 1, &has) ||
			    has > 1 || (has && n > r_left(&r)) || addr < t->heap_base ||
			    addr > t->heap_end || n > t->heap_end - addr)
				return cs_err_set(err, -CS_EINVAL,
						  "%s: corrupt: event %zu: bad copy", path, ev);
			ret = trace_add_copy(t, addr, has ? r.p : NULL, n);
			if (ret)
				return cs_err_set(err, ret, "%s: out of memory", path);
			if (has)
				r.p += n;
		} else if (tag == TRACE_EV_KERNEL) {
			uint64_t nlen, ctas, wpc, regs, smem, lanes = 32, has, nw;
			struct trace_kernel *k;

			if (r_int(&r, 4, &nlen) || nlen > r_left(&r))
				return cs_err_set(err, -CS_EINVAL,
						  "%s: corrupt: kernel %u: bad name", path, nk);
			name = malloc((size_t)nlen + 1);
			if (!name)
				return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
			memcpy(name, r.p, (size_t)nlen);
			name[nlen] = '\0';
			r.p += nlen;
			if (r_int(&r, 4, &ctas) || r_int(&r, 4, &wpc) || r_int(&r, 4, &regs) ||
			    r_int(&r, 4, &smem) || (ver >= 2 && r_int(&r, 1, &lanes)) ||
			    (lanes != 32 && lanes != 64) || r_int(&r, 1, &has) || has > 1 ||
			    !ctas || !wpc || (has && ctas * 2 > r_left(&r))) {
				ret = cs_err_set(err, -CS_EINVAL,
						 "%s: corrupt: kernel %u: bad kernel header", path,
						 nk);
				goto fail;
			}
			nw = ctas * wpc; /* both < 2^32: no overflow */
			if (nw > (r_left(&r) - (has ? ctas * 2 : 0)) / 16) {
				ret = cs_err_set(err, -CS_EINVAL,
						 "%s: corrupt: kernel %u: %llu warps run past the "
						 "body",
						 path, nk, (unsigned long long)nw);
				goto fail;
			}
			if (has) {
				sm = malloc((size_t)ctas * sizeof(*sm));
				if (!sm) {
					ret =
					    cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
					goto fail;
				}
				for (uint64_t c = 0; c < ctas; c++) {
					uint64_t v;

					r_int(&r, 2, &v);
					sm[c] = (uint16_t)v;
				}
			}
			ret = trace_add_kernel(t, name, (unsigned)ctas, (unsigned)wpc,
					       (unsigned)regs, (unsigned)smem, sm, &k);
			if (ret) {
				cs_err_set(err, ret, "%s: out of memory", path);
				goto fail;
			}
			k->lanes = (unsigned)lanes;
			free(name);
			free(sm);
			name = NULL;
			sm = NULL;
			for (uint64_t x = 0; x < nw; x++) {
				uint64_t ops, blen, got = 0;
				struct trace_cursor c;
				struct trace_op op;
				int s;

				if (r_int(&r, 8, &ops) || r_int(&r, 8, &blen) ||
				    blen > r_left(&r) || ops > blen)
					return cs_err_set(
					    err, -CS_EINVAL,
					    "%s: corrupt: kernel %u warp %llu: stream "
					    "runs past the body",
					    path, nk, (unsigned long long)x);
				if (blen) {
					k->warp[x].p = malloc((size_t)blen);
					if (!k->warp[x].p)
						return cs_err_set(err, -CS_ENOMEM,
								  "%s: out of memory", path);
					memcpy(k->warp[x].p, r.p, (size_t)blen);
					k->warp[x].len = k->warp[x].cap = (size_t)blen;
					r.p += blen;
				}
				trace_cursor_init(&c, &k->warp[x]);
				while ((s = trace_next(&c, &op)) == 1)
					got++;
				if (s < 0 || got != ops)
					return cs_err_set(
					    err, -CS_EINVAL, "%s: corrupt: kernel %u warp %llu: %s",
					    path, nk, (unsigned long long)x,
					    s < 0 ? "bad op encoding" : "op count mismatch");
				k->warp[x].ops = ops;
				k->warp[x].prev_addr = c.prev_addr;
			}
			nk++;
		} else {
			return cs_err_set(err, -CS_EINVAL, "%s: corrupt: event %zu: bad kind %llu",
					  path, ev, (unsigned long long)tag);
		}
	}
	if (r.p != r.end)
		return cs_err_set(err, -CS_EINVAL, "%s: corrupt: data after the end marker", path);
	return 0;
fail:
	free(name);
	free(sm);
	return ret;
}

static int load_cstrace(const char *path, const uint8_t *data, size_t size, struct trace **out,
			struct cs_err *err)
{
	ZSTD_inBuffer in;
	ZSTD_outBuffer ob = {NULL, 0, 0};
	ZSTD_DCtx *dc = NULL;
	struct trace *t = NULL;
	uint64_t ver, flags, blen;
	uint8_t *body = NULL;
	size_t cap = 0;
	int r;

	if (size < HDR_BYTES)
		return cs_err_set(err, -CS_EINVAL, "%s: truncated (%zu bytes, header is %d)", path,
				  size, HDR_BYTES);
	ver = le_get(data + 8, 4);
	flags = le_get(data + 12, 4);
	blen = le_get(data + 16, 8);
	if (ver < 1 || ver > TRACE_FORMAT_VERSION)
		return cs_err_set(err, -CS_EUNSUP,
				  "%s: format version %llu, this build reads 1 to %d", path,
				  (unsigned long long)ver, TRACE_FORMAT_VERSION);
	if (flags)
		return cs_err_set(err, -CS_EUNSUP, "%s: unknown flags 0x%llx", path,
				  (unsigned long long)flags);
	if (blen > TRACE_BODY_MAX)
		return cs_err_set(
		    err, -CS_EINVAL, "%s: a body of %llu bytes, above %llu, the limit for a trace",
		    path, (unsigned long long)blen, (unsigned long long)TRACE_BODY_MAX);
	dc = ZSTD_createDCtx();
	if (!dc)
		return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
	in.src = data + HDR_BYTES;
	in.size = size - HDR_BYTES;
	in.pos = 0;
	for (;;) {
		size_t z;

		if (ob.pos == ob.size) {
			/* grow with the real output, one byte past the declared length */
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nb;

			if (cap >= blen + 1) {
				r = cs_err_set(err, -CS_EINVAL,
					       "%s: corrupt: body longer than the header says",
					       path);
				goto out;
			}
			if (ncap > blen + 1)
				ncap = (size_t)blen + 1;
			nb = realloc(body, ncap);
			if (!nb) {
				r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
				goto out;
			}
			body = nb;
			cap = ncap;
			ob.dst = body;
			ob.size = cap;
		}
		z = ZSTD_decompressStream(dc, &ob, &in);
		if (ZSTD_isError(z)) {
			if (ZSTD_getErrorCode(z) == ZSTD_error_checksum_wrong)
				r = cs_err_set(err, -CS_EINVAL, "%s: corrupt: checksum mismatch",
					       path);
			else
				r = cs_err_set(err, -CS_EINVAL, "%s: corrupt: %s", path,
					       ZSTD_getErrorName(z));
			goto out;
		}
		if (z == 0)
			break;
		if (in.pos == in.size && ob.pos < ob.size) {
			r = cs_err_set(err, -CS_EINVAL, "%s: truncated", path);
			goto out;
		}
	}
	if (in.pos != in.size) {
		r = cs_err_set(err, -CS_EINVAL, "%s: corrupt: data after the zstd frame", path);
		goto out;
	}
	if (ob.pos != blen) {
		r = cs_err_set(err, -CS_EINVAL, "%s: corrupt: body is %zu bytes, header says %llu",
			       path, ob.pos, (unsigned long long)blen);
		goto out;
	}
	r = trace_new(&t);
	if (r) {
		cs_err_set(err, r, "%s: out of memory", path);
		goto out;
	}
	r = parse_body(path, (unsigned)ver, body, ob.pos, t, err);
	if (r) {
		trace_free(t);
		goto out;
	}
	*out = t;
out:
	ZSTD_freeDCtx(dc);
	free(body);
	return r;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int trace_load(const char *path, struct trace **out, struct cs_err *err)
{
	struct stat st;
	uint8_t *data = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	if (stat(path, &st) != 0)
		return cs_err_set(err, -CS_ENOENT, "%s: cannot open: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode) && (uint64_t)st.st_size > CS_TRACE_FILE_MAX)
		return cs_err_set(err, -CS_EINVAL,
				  "%s: larger than %llu bytes, the limit for a trace", path,
				  (unsigned long long)CS_TRACE_FILE_MAX);
	if (S_ISDIR(st.st_mode)) {
		char *list = malloc(strlen(path) + 16);

		if (!list)
			return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
		sprintf(list, "%s/kernelslist.g", path);
		if (access(list, R_OK) != 0) {
			free(list);
			return cs_err_set(err, -CS_ENOENT,
					  "%s: a directory without kernelslist.g (not an Accel-Sim "
					  "trace)",
					  path);
		}
		r = trace_import_accelsim(list, out, err);
		free(list);
		return r;
	}
	if (ends_with(path, "kernelslist.g"))
		return trace_import_accelsim(path, out, err);
	f = fopen(path, "rb");
	if (!f)
		return cs_err_set(err, -CS_ENOENT, "%s: cannot open: %s", path, strerror(errno));
	if (st.st_size > 0) {
		if ((uint64_t)st.st_size > SIZE_MAX) {
			fclose(f);
			return cs_err_set(err, -CS_ENOMEM, "%s: too large", path);
		}
		data = malloc((size_t)st.st_size);
		if (!data) {
			fclose(f);
			return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
		}
		size = fread(data, 1, (size_t)st.st_size, f);
		if (size != (size_t)st.st_size || ferror(f)) {
			fclose(f);
			free(data);
			return cs_err_set(err, -CS_EIO, "%s: read error", path);
		}
	}
	fclose(f);
	if (size == 0 || memcmp(data, trace_magic, size < 8 ? size : 8) == 0)
		r = load_cstrace(path, data, size, out, err);
	else if ((size >= 10 && memcmp(data, "MemcpyHtoD", 10) == 0) ||
		 (size >= 7 && memcmp(data, "kernel-", 7) == 0))
		r = trace_import_accelsim(path, out, err);
	else
		r = cs_err_set(err, -CS_EINVAL, "%s: not a cohscope trace (bad magic)", path);
	free(data);
	return r;
}
