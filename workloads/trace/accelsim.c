/*
 * workloads/trace/accelsim.c - the Accel-Sim trace importer (kernelslist.g + kernel-N.traceg
 * or .traceg.xz, format: ../shared/external/traces/FORMAT.md).
 *
 * Mapping (docs/workloads.md lists the approximations):
 *   LDG / LD (generic, global window) -> TRACE_LD; STG / ST -> TRACE_ST (values 0);
 *   ATOMG / ATOM -> TRACE_ATOM ADD, operand 0, want_old; RED / REDG -> the same without
 *   want_old; all device scope, relaxed.
 *   LDS / STS / ATOMS / LDSM and generic accesses in the shared window -> TRACE_SMEM.
 *   LDL / STL and generic accesses in the local window -> LD / ST in a private per-thread area
 *   (16-byte chunks interleaved across the kernel's threads, as the hardware lays out local
 *   memory), mapped as global accesses.
 *   BAR* -> TRACE_BAR; MEMBAR.CTA -> acq_rel fence at wg scope, MEMBAR.GL / .GPU (or none) ->
 *   device, MEMBAR.SYS -> system.
 *   EXIT / RET with a non-empty mask -> nothing; every other instruction, and every instruction
 *   with mask 0, -> one compute issue slot (runs merged into one TRACE_COMPUTE).
 * Addresses: each 64 KiB granule, in order of first use (every copy first, then the kernels'
 * accesses), takes the next 64 KiB slot from 0.
 */
#include "workloads/trace/trace.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GRAN_SHIFT   16
#define WINDOW_BYTES (16ull << 20) /* shared / local generic windows */
#define LOCAL_TAG    (1ull << 63)  /* granule keys of the private local area */
#define MAX_LINE     (16u << 20)
#define MAX_TOKENS   96
#define MAX_WARPS    (1u << 26)

/* ---- line reader (plain or xz) -------------------------------------------------------------- */

struct lreader {
	FILE *f;
	int xz, eof;
	lzma_stream zs;
	uint8_t in[65536];
	char *buf;
	size_t pos, len, cap, scan;
	unsigned long line;
	const char *path;
};

static int lr_open(struct lreader *lr, const char *path)
{
	static const uint8_t xzmagic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	size_t n;

	memset(lr, 0, sizeof(*lr));
	lr->path = path;
	lr->f = fopen(path, "rb");
	if (!lr->f)
		return -CS_ENOENT;
	lr->cap = 65536;
	lr->buf = malloc(lr->cap);
	if (!lr->buf) {
		fclose(lr->f);
		lr->f = NULL;
		return -CS_ENOMEM;
	}
	n = fread(lr->in, 1, sizeof(xzmagic), lr->f);
	if (n == sizeof(xzmagic) && memcmp(lr->in, xzmagic, n) == 0) {
		lzma_stream init = LZMA_STREAM_INIT;

		lr->xz = 1;
		lr->zs = init;
		if (lzma_stream_decoder(&lr->zs, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
			fclose(lr->f);
			free(lr->buf);
			lr->f = NULL;
			lr->buf = NULL;
			return -CS_ENOMEM;
		}
		lr->zs.next_in = lr->in;
		lr->zs.avail_in = n;
	} else {
		memcpy(lr->buf, lr->in, n);
		lr->len = n;
	}
	return 0;
}

static void lr_close(struct lreader *lr)
{
	if (lr->xz)
		lzma_end(&lr->zs);
	if (lr->f)
		fclose(lr->f);
	free(lr->buf);
	lr->f = NULL;
	lr->buf = NULL;
	lr->xz = 0;
}

/* Reads more bytes into buf. 1: some, 0: end of input, <0: error (message in err). */
static int lr_fill(struct lreader *lr, struct cs_err *err)
{
	if (lr->eof)
		return 0;
	if (lr->pos) {
		memmove(lr->buf, lr->buf + lr->pos, lr->len - lr->pos);
		lr->len -= lr->pos;
		lr->scan -= lr->pos;
		lr->pos = 0;
	}
	if (lr->cap - lr->len < 2) {
		char *nb;

		if (lr->cap >= MAX_LINE)
			return cs_err_set(err, -CS_EINVAL, "%s:%lu: line too long", lr->path,
					  lr->line + 1);
		nb = realloc(lr->buf, lr->cap * 2);
		if (!nb)
			return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", lr->path);
		lr->buf = nb;
		lr->cap *= 2;
	}
	if (!lr->xz) {
		size_t n = fread(lr->buf + lr->len, 1, lr->cap - lr->len - 1, lr->f);

		if (n == 0) {
			if (ferror(lr->f))
				return cs_err_set(err, -CS_EIO, "%s: read error", lr->path);
			lr->eof = 1;
			return 0;
		}
		lr->len += n;
		return 1;
	}
	for (;;) {
		lzma_action act = LZMA_RUN;
		size_t room = lr->cap - lr->len - 1, got;
		lzma_ret ret;

		if (lr->zs.avail_in == 0 && !feof(lr->f)) {
			lr->zs.next_in = lr->in;
			lr->zs.avail_in = fread(lr->in, 1, sizeof(lr->in), lr->f);
			if (ferror(lr->f))
				return cs_err_set(err, -CS_EIO, "%s: read error", lr->path);
		}
		if (lr->zs.avail_in == 0 && feof(lr->f))
			act = LZMA_FINISH;
		lr->zs.next_out = (uint8_t *)lr->buf + lr->len;
		lr->zs.avail_out = room;
		ret = lzma_code(&lr->zs, act);
		got = room - lr->zs.avail_out;
		lr->len += got;
		if (ret == LZMA_STREAM_END) {
			lr->eof = 1;
			return got ? 1 : 0;
		}
		if (ret != LZMA_OK)
			return cs_err_set(err, -CS_EINVAL, "%s: corrupt xz data (%s)", lr->path,
					  ret == LZMA_BUF_ERROR ? "truncated" : "decoder error");
		if (got)
			return 1;
	}
}

/* Next line (NUL-terminated, no '\n' / '\r'): 1, 0 at the end, <0 on error. */
static int lr_getline(struct lreader *lr, char **line, struct cs_err *err)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->scan, '\n', lr->len - lr->scan);
		int r;

		if (nl) {
			size_t end = (size_t)(nl - lr->buf);

			*nl = '\0';
			if (end > lr->pos && lr->buf[end - 1] == '\r')
				lr->buf[end - 1] = '\0';
			*line = lr->buf + lr->pos;
			lr->pos = lr->scan = end + 1;
			lr->line++;
			return 1;
		}
		lr->scan = lr->len;
		r = lr_fill(lr, err);
		if (r < 0)
			return r;
		if (r == 0) {
			if (lr->pos == lr->len)
				return 0;
			lr->buf[lr->len] =
			    '\0'; /* last line without '\n' (fill keeps a spare byte) */
			if (lr->len > lr->pos && lr->buf[lr->len - 1] == '\r')
				lr->buf[lr->len - 1] = '\0';
			*line = lr->buf + lr->pos;
			lr->pos = lr->scan = lr->len;
			lr->line++;
			return 1;
		}
	}
}

/* ---- granule relocation --------------------------------------------------------------------- */

struct gmap {
	uint64_t *key; /* key + 1; 0 = empty */
	uint64_t *slot;
	size_t cap, n;
};

static int gmap_get(struct gmap *m, uint64_t key, uint64_t *slot)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		uint64_t *nk = calloc(ncap, sizeof(*nk)), *ns = calloc(ncap, sizeof(*ns));

		if (!nk || !ns) {
			free(nk);
			free(ns);
			return -CS_ENOMEM;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->key[j])
				continue;
			i = (size_t)((m->key[j] * 0x9e3779b97f4a7c15ull) >> 20) & (ncap - 1);
			while (nk[i])
				i = (i + 1) & (ncap - 1);
			nk[i] = m->key[j];
			ns[i] = m->slot[j];
		}
		free(m->key);
		free(m->slot);
		m->key = nk;
		m->slot = ns;
		m->cap = ncap;
	}
	i = (size_t)(((key + 1) * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
	while (m->key[i]) {
		if (m->key[i] == key + 1) {
			*slot = m->slot[i];
			return 0;
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->key[i] = key + 1;
	m->slot[i] = m->n;
	*slot = m->n++;
	return 0;
}

/* ---- kernelslist.g -------------------------------------------------------------------------- */

struct cmd {
	int is_copy;
	uint64_t addr, len;
	char *file;
	unsigned long line;
};

struct imp {
	struct trace *t;
	struct gmap map;
	const char *list;
	char *dir;
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return (errno || *end) ? -1 : 0;
}

static int parse_udec(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

static int parse_sdec(const char *s, int64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s) &&
	    !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

/* ---- one kernel ----------------------------------------------------------------------------- */

struct kfile {
	struct imp *im;
	struct lreader lr;
	const char *path;
	char *name;
	int have_grid, have_block, have_shbase, have_lbase, lineinfo;
	uint64_t grid[3], block[3], shmem, nregs, shbase, lbase, version;
	struct trace_kernel *k;
	uint8_t *seen;
	uint64_t threads; /* of the whole grid (local area interleave) */
	struct cs_err *err;
	struct trace_op op;
};

static int kerr(struct kfile *kf, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "file:line: message" */
static int kerr(struct kfile *kf, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = cs_err_vset_at(kf->err, code, kf->path, kf->lr.line, fmt, ap);
	va_end(ap);
	return code;
}

struct wstate {
	struct trace_buf *b;
	uint64_t gwid, pending; /* pending: compute slots not yet emitted */
	uint64_t want, got;	/* insts = K, lines seen */
	unsigned w;
};

static int put(struct kfile *kf, struct wstate *ws, struct trace_op *op)
{
	int r = trace_buf_put(ws->b, op);

	if (r)
		return kerr(kf, r, "%s", r == -CS_ENOMEM ? "out of memory" : "cannot encode op");
	return 0;
}

static int flush_compute(struct kfile *kf, struct wstate *ws)
{
	struct trace_op op;

	if (!ws->pending)
		return 0;
	memset(&op, 0, offsetof(struct trace_op, addr));
	op.kind = TRACE_COMPUTE;
	op.cycles = ws->pending;
	ws->pending = 0;
	return put(kf, ws, &op);
}

/* Emits a non-memory op (BAR, SMEM, FENCE). */
static int emit_simple(struct kfile *kf, struct wstate *ws, unsigned kind, unsigned order,
		       unsigned scope)
{
	struct trace_op op;
	int r = flush_compute(kf, ws);

	if (r)
		return r;
	memset(&op, 0, offsetof(struct trace_op, addr));
	op.kind = (uint8_t)kind;
	op.order = (uint8_t)order;
	op.scope = (uint8_t)scope;
	return put(kf, ws, &op);
}

enum cls {
	C_OTHER,
	C_GLD,	 /* LDG */
	C_GST,	 /* STG */
	C_GATOM, /* ATOMG, REDG */
	C_LD,	 /* generic */
	C_ST,
	C_ATOM, /* ATOM, RED */
	C_LLD,	/* LDL */
	C_LST,	/* STL */
	C_SMEM,
	C_BAR,
	C_MEMBAR,
	C_EXIT,
};

static enum cls classify(const char *opc, int *want_old)
{
	static const struct {
		const char *m;
		enum cls c;
		int want_old;
	} tab[] = {
	    {"LDG", C_GLD, 0},	     {"STG", C_GST, 0},	  {"ATOMG", C_GATOM, 1},
	    {"REDG", C_GATOM, 0},    {"LD", C_LD, 0},	  {"ST", C_ST, 0},
	    {"ATOM", C_ATOM, 1},     {"RED", C_ATOM, 0},  {"LDL", C_LLD, 0},
	    {"STL", C_LST, 0},	     {"LDS", C_SMEM, 0},  {"STS", C_SMEM, 0},
	    {"ATOMS", C_SMEM, 0},    {"LDSM", C_SMEM, 0}, {"BAR", C_BAR, 0},
	    {"MEMBAR", C_MEMBAR, 0}, {"EXIT", C_EXIT, 0}, {"RET", C_EXIT, 0},
	};
	size_t n = strcspn(opc, ".");

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].m) == n && strncmp(tab[i].m, opc, n) == 0) {
			*want_old = tab[i].want_old;
			return tab[i].c;
		}
	return C_OTHER;
}

/* Width from the opcode (FORMAT.md): the first modifier N or U<N> (also S<N>) gives N/8 bytes;
 * default 4. 0 if that is not 1, 2, 4, 8 or 16. */
static unsigned opcode_width(const char *opc)
{
	const char *s = strchr(opc, '.');

	while (s) {
		const char *m = s + 1, *d = m;
		size_t len = strcspn(m, ".");

		if (*d == 'U' || *d == 'S')
			d++;
		if (d < m + len && strspn(d, "0123456789") == (size_t)(m + len - d)) {
			unsigned long bits = strtoul(d, NULL, 10);

			switch (bits) {
			case 8:
			case 16:
			case 32:
			case 64:
			case 128:
				return (unsigned)(bits / 8);
			default:
				return 0;
			}
		}
		s = strchr(m, '.');
	}
	return 4;
}

static int has_modifier(const char *opc, const char *mod)
{
	const char *s = strchr(opc, '.');
	size_t n = strlen(mod);

	while (s) {
		s++;
		if (strncmp(s, mod, n) == 0 && (s[n] == '.' || s[n] == '\0'))
			return 1;
		s = strchr(s, '.');
	}
	return 0;
}

static int reloc(struct kfile *kf, uint64_t gran_key, uint64_t low, uint64_t *out)
{
	uint64_t slot;

	if (gmap_get(&kf->im->map, gran_key, &slot))
		return kerr(kf, -CS_ENOMEM, "out of memory");
	*out = (slot << GRAN_SHIFT) | low;
	return 0;
}

static int in_window(uint64_t a, int have, uint64_t base)
{
	return have && a >= base && a - base < WINDOW_BYTES;
}

static int parse_inst(struct kfile *kf, struct wstate *ws, char *line)
{
	char *tok[MAX_TOKENS], *save = NULL, *opc;
	unsigned nt = 0, i = 0, k = 0, lanes[WARP_LANES], width;
	uint64_t v, mask, ndst, nsrc, memw, mode, addr[WARP_LANES];
	struct trace_op *op = &kf->op;
	int want_old = 0, r;
	enum cls c;

	for (char *s = strtok_r(line, " \t", &save); s; s = strtok_r(NULL, " \t", &save)) {
		if (nt == MAX_TOKENS)
			return kerr(kf, -CS_EINVAL, "too many fields");
		tok[nt++] = s;
	}
	if (kf->lineinfo && (i >= nt || parse_udec(tok[i++], &v)))
		return kerr(kf, -CS_EINVAL, "bad source line number");
	if (i >= nt || parse_hex(tok[i++], &v))
		return kerr(kf, -CS_EINVAL, "bad PC");
	if (i >= nt || parse_hex(tok[i++], &mask) || mask > UINT32_MAX)
		return kerr(kf, -CS_EINVAL, "bad active mask");
	if (i >= nt || parse_udec(tok[i++], &ndst) || ndst > 8 || i + ndst >= nt)
		return kerr(kf, -CS_EINVAL, "bad destination register list");
	i += (unsigned)ndst;
	opc = tok[i++];
	if (i >= nt || parse_udec(tok[i++], &nsrc) || nsrc > 8 || i + nsrc >= nt)
		return kerr(kf, -CS_EINVAL, "bad source register list");
	i += (unsigned)nsrc;
	if (parse_udec(tok[i++], &memw))
		return kerr(kf, -CS_EINVAL, "bad memory width '%s'", tok[i - 1]);
	c = classify(opc, &want_old);
	if (memw) {
		if (i >= nt && !mask)
			goto compute;
		if (i >= nt)
			return kerr(kf, -CS_EINVAL, "missing address mode");
		if (parse_udec(tok[i], &mode) || mode > 2)
			return kerr(kf, -CS_EINVAL, "bad address mode %s", tok[i]);
		i++;
	}
	if (!mask) /* executed by nobody: one issue slot, addresses (if any) not used */
		goto compute;
	for (unsigned l = 0; l < WARP_LANES; l++)
		if (mask & (1u << l))
			lanes[k++] = l;
	if (memw) {
		if (mode == 0) {
			for (unsigned j = 0; j < k; j++)
				if (i >= nt || parse_hex(tok[i++], &addr[j]))
					return kerr(kf, -CS_EINVAL, "bad address list");
		} else {
			int64_t d;

			if (i >= nt || parse_hex(tok[i++], &addr[0]))
				return kerr(kf, -CS_EINVAL, "bad base address");
			if (mode == 1) {
				if (i >= nt || parse_sdec(tok[i++], &d))
					return kerr(kf, -CS_EINVAL, "bad stride");
				for (unsigned j = 1; j < k; j++)
					addr[j] = addr[j - 1] + (uint64_t)d;
			} else {
				for (unsigned j = 1; j < k; j++) {
					if (i >= nt || parse_sdec(tok[i++], &d))
						return kerr(kf, -CS_EINVAL, "bad address delta");
					addr[j] = addr[j - 1] + (uint64_t)d;
				}
			}
		}
	}
	if (nt - i > (kf->version >= 5 ? 1u : 0u))
		return kerr(kf, -CS_EINVAL, "unexpected field '%s'", tok[nt - 1]);
	if (kf->version >= 5 && i < nt && parse_sdec(tok[i], (int64_t *)&v))
		return kerr(kf, -CS_EINVAL, "bad immediate '%s'", tok[i]);

	switch (c) {
	case C_EXIT:
		return 0;
	case C_BAR:
		return emit_simple(kf, ws, TRACE_BAR, 0, 0);
	case C_MEMBAR:
		return emit_simple(kf, ws, TRACE_FENCE, MEM_ORDER_ACQ_REL,
				   has_modifier(opc, "CTA")   ? MEM_SCOPE_WG
				   : has_modifier(opc, "SYS") ? MEM_SCOPE_SYSTEM
							      : MEM_SCOPE_DEVICE);
	case C_SMEM:
		return emit_simple(kf, ws, TRACE_SMEM, 0, 0);
	case C_OTHER:
		goto compute;
	default:
		break;
	}
	if (!memw) /* a memory opcode without addresses: counted as an issue slot */
		goto compute;
	{
		int local =
		    (c == C_LLD || c == C_LST) &&
		    (in_window(addr[0], kf->have_lbase, kf->lbase) || addr[0] < WINDOW_BYTES);

		if (c == C_LD || c == C_ST || c == C_ATOM) {
			if (in_window(addr[0], kf->have_shbase, kf->shbase))
				return emit_simple(kf, ws, TRACE_SMEM, 0, 0);
			local = in_window(addr[0], kf->have_lbase, kf->lbase);
		}
		width = opcode_width(opc);
		if (!width)
			return kerr(kf, -CS_EINVAL, "unsupported access width in %s", opc);
		if ((c == C_GATOM || c == C_ATOM) && width != 4 && width != 8)
			return kerr(kf, -CS_EUNSUP, "unsupported atomic width %u in %s", width,
				    opc);
		memset(op, 0, sizeof(*op));
		op->kind = (c == C_GLD || c == C_LD || c == C_LLD)   ? TRACE_LD
			   : (c == C_GST || c == C_ST || c == C_LST) ? TRACE_ST
								     : TRACE_ATOM;
		op->bytes = (uint8_t)width;
		op->mask = (uint32_t)mask;
		if (op->kind == TRACE_ATOM) {
			op->atom_op = MEM_ATOM_ADD;
			op->want_old = (uint8_t)want_old;
			op->scope = MEM_SCOPE_DEVICE;
			op->order = MEM_ORDER_RELAXED;
		}
		for (unsigned j = 0; j < k; j++) {
			uint64_t a = addr[j], key;

			if (local) {
				uint64_t off =
				    in_window(a, kf->have_lbase, kf->lbase) ? a - kf->lbase : a;
				uint64_t tid = ws->gwid * WARP_LANES + lanes[j];

				if (off >= WINDOW_BYTES)
					return kerr(
					    kf, -CS_EINVAL,
					    "lane %u: local address 0x%llx outside the local "
					    "window",
					    lanes[j], (unsigned long long)a);
				if (off % width)
					return kerr(
					    kf, -CS_EINVAL,
					    "lane %u: address 0x%llx not aligned to %u bytes",
					    lanes[j], (unsigned long long)a, width);
				a = ((off >> 4) * kf->threads + tid) * 16 + (off & 15);
				key = LOCAL_TAG | (a >> GRAN_SHIFT);
			} else {
				if (a % width)
					return kerr(
					    kf, -CS_EINVAL,
					    "lane %u: address 0x%llx not aligned to %u bytes",
					    lanes[j], (unsigned long long)a, width);
				key = a >> GRAN_SHIFT;
			}
			r = reloc(kf, key, a & ((1u << GRAN_SHIFT) - 1), &op->addr[lanes[j]]);
			if (r)
				return r;
		}
		r = flush_compute(kf, ws);
		if (r)
			return r;
		return put(kf, ws, op);
	}
compute:
	ws->pending++;
	return 0;
}

/* Header line "-key = value". */
static int parse_header(struct kfile *kf, char *line)
{
	char *eq = strchr(line, '='), *key, *val;

	if (!eq)
		return 0; /* not key = value: ignored like unknown keys */
	*eq = '\0';
	key = trim(line + 1);
	val = eq + 1;
	if (*val == ' ')
		val++;
	if (strcmp(key, "kernel name") == 0) {
		free(kf->name);
		kf->name = strdup(trim(val));
		if (!kf->name)
			return kerr(kf, -CS_ENOMEM, "out of memory");
		return 0;
	}
	val = trim(val);
	if (strcmp(key, "grid dim") == 0 || strcmp(key, "block dim") == 0) {
		uint64_t *d = key[0] == 'g' ? kf->grid : kf->block;
		unsigned long long x, y, z;
		int n = -1;

		if (sscanf(val, "(%llu,%llu,%llu)%n", &x, &y, &z, &n) != 3 || n < 0 ||
		    val[n] != '\0' || !x || !y || !z || x > UINT32_MAX || y > UINT32_MAX ||
		    z > UINT32_MAX)
			return kerr(kf, -CS_EINVAL, "bad -%s '%s'", key, val);
		d[0] = x;
		d[1] = y;
		d[2] = z;
		if (key[0] == 'g')
			kf->have_grid = 1;
		else
			kf->have_block = 1;
	} else if (strcmp(key, "shmem") == 0) {
		if (parse_udec(val, &kf->shmem) || kf->shmem > UINT32_MAX)
			return kerr(kf, -CS_EINVAL, "bad -shmem '%s'", val);
	} else if (strcmp(key, "nregs") == 0) {
		if (parse_udec(val, &kf->nregs) || kf->nregs > UINT32_MAX)
			return kerr(kf, -CS_EINVAL, "bad -nregs '%s'", val);
	} else if (strcmp(key, "shmem base_addr") == 0) {
		if (parse_hex(val, &kf->shbase))
			return kerr(kf, -CS_EINVAL, "bad -shmem base_addr '%s'", val);
		kf->have_shbase = 1;
	} else if (strcmp(key, "local mem base_addr") == 0) {
		if (parse_hex(val, &kf->lbase))
			return kerr(kf, -CS_EINVAL, "bad -local mem base_addr '%s'", val);
		kf->have_lbase = 1;
	} else if (strcmp(key, "accelsim tracer version") == 0) {
		if (parse_udec(val, &kf->version))
			return kerr(kf, -CS_EINVAL, "bad -accelsim tracer version '%s'", val);
	} else if (strcmp(key, "enable lineinfo") == 0) {
		uint64_t li;

		if (parse_udec(val, &li) || li > 1)
			return kerr(kf, -CS_EINVAL, "bad -enable lineinfo '%s'", val);
		kf->lineinfo = (int)li;
	}
	return 0; /* unknown keys are skipped */
}

static int make_kernel(struct kfile *kf)
{
	uint64_t ctas, threads, wpc;
	const char *base;
	int r;

	if (!kf->have_grid)
		return kerr(kf, -CS_EINVAL, "missing -grid dim");
	if (!kf->have_block)
		return kerr(kf, -CS_EINVAL, "missing -block dim");
	ctas = kf->grid[0] * kf->grid[1];
	threads = kf->block[0] * kf->block[1];
	if (ctas > UINT32_MAX || threads > UINT32_MAX || (ctas *= kf->grid[2]) > UINT32_MAX ||
	    (threads *= kf->block[2]) > UINT32_MAX)
		return kerr(kf, -CS_EINVAL, "grid or block too large");
	wpc = (threads + WARP_LANES - 1) / WARP_LANES;
	if (ctas * wpc > MAX_WARPS)
		return kerr(kf, -CS_EINVAL, "grid too large (%llu warps)",
			    (unsigned long long)(ctas * wpc));
	kf->threads = ctas * wpc * WARP_LANES;
	base = strrchr(kf->path, '/');
	r = trace_add_kernel(kf->im->t, kf->name ? kf->name : (base ? base + 1 : kf->path),
			     (unsigned)ctas, (unsigned)wpc, (unsigned)kf->nregs,
			     (unsigned)kf->shmem, NULL, &kf->k);
	if (r)
		return kerr(kf, r, "cannot create the kernel");
	kf->seen = calloc((size_t)(ctas * wpc), 1);
	if (!kf->seen)
		return kerr(kf, -CS_ENOMEM, "out of memory");
	return 0;
}

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* The value after "key =" in "key = value", or NULL. */
static char *after_eq(char *s, const char *key)
{
	if (!starts(s, key))
		return NULL;
	s = trim(s + strlen(key));
	if (*s != '=')
		return NULL;
	return trim(s + 1);
}

enum kstate { K_HEADER, K_OUT, K_TB, K_IN_TB, K_WARP, K_INSTS };

static int import_kernel(struct imp *im, const char *path, struct cs_err *err)
{
	struct kfile *kf = calloc(1, sizeof(*kf));
	struct wstate ws = {0};
	enum kstate st = K_HEADER;
	uint64_t cta = 0;
	char *line, *v;
	int r;

	if (!kf)
		return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
	kf->im = im;
	kf->path = path;
	kf->err = err;
	kf->version = 4;
	r = lr_open(&kf->lr, path);
	if (r == -CS_ENOMEM)
		cs_err_set(err, r, "%s: out of memory", path);
	if (r)
		goto out; /* -CS_ENOENT: the caller names the kernelslist.g line */
	while ((r = lr_getline(&kf->lr, &line, err)) == 1) {
		char *s = trim(line);

		if (st == K_HEADER) {
			if (*s == '-') {
				r = parse_header(kf, s);
				if (r)
					goto out;
				continue;
			}
			if (*s != '#') {
				if (!*s)
					continue;
				r = kerr(kf, -CS_EINVAL, "expected a -key = value header line");
				goto out;
			}
			r = make_kernel(kf);
			if (r)
				goto out;
			st = K_OUT;
		}
		if (!*s)
			continue;
		if (st == K_INSTS) {
			if (*s == '#' || starts(s, "warp") || starts(s, "thread block") ||
			    starts(s, "insts")) {
				r = kerr(kf, -CS_EINVAL,
					 "warp %u: expected %llu instructions, found %llu", ws.w,
					 (unsigned long long)ws.want, (unsigned long long)ws.got);
				goto out;
			}
			r = parse_inst(kf, &ws, s);
			if (r)
				goto out;
			if (++ws.got == ws.want) {
				r = flush_compute(kf, &ws);
				if (r)
					goto out;
				st = K_IN_TB;
			}
			continue;
		}
		switch (st) {
		case K_OUT:
			if (strcmp(s, "#BEGIN_TB") == 0)
				st = K_TB;
			else if (*s != '#') {
				r = kerr(kf, -CS_EINVAL, "expected #BEGIN_TB");
				goto out;
			}
			break;
		case K_TB: {
			unsigned long long x, y, z;
			int n = -1;

			v = after_eq(s, "thread block");
			if (!v || sscanf(v, "%llu,%llu,%llu%n", &x, &y, &z, &n) != 3 || n < 0 ||
			    v[n] != '\0') {
				r = kerr(kf, -CS_EINVAL, "expected thread block = x,y,z");
				goto out;
			}
			if (x >= kf->grid[0] || y >= kf->grid[1] || z >= kf->grid[2]) {
				r = kerr(kf, -CS_EINVAL,
					 "thread block (%llu,%llu,%llu) outside the grid", x, y, z);
				goto out;
			}
			cta = x + y * kf->grid[0] + z * kf->grid[0] * kf->grid[1];
			st = K_IN_TB;
			break;
		}
		case K_IN_TB:
			if (strcmp(s, "#END_TB") == 0) {
				st = K_OUT;
				break;
			}
			v = after_eq(s, "warp");
			if (!v) {
				if (isxdigit((unsigned char)*s))
					r = kerr(kf, -CS_EINVAL,
						 "warp %u: expected %llu instructions, found more",
						 ws.w, (unsigned long long)ws.want);
				else
					r = kerr(kf, -CS_EINVAL, "expected warp = N or #END_TB");
				goto out;
			}
			{
				uint64_t w;

				if (parse_udec(v, &w) || w >= kf->k->warps_per_cta) {
					r = kerr(kf, -CS_EINVAL, "bad warp '%s' (%u warps per CTA)",
						 v, kf->k->warps_per_cta);
					goto out;
				}
				ws.w = (unsigned)w;
				ws.gwid = cta * kf->k->warps_per_cta + w;
				if (kf->seen[ws.gwid]) {
					r = kerr(kf, -CS_EINVAL,
						 "warp %u of CTA %llu appears twice", ws.w,
						 (unsigned long long)cta);
					goto out;
				}
				kf->seen[ws.gwid] = 1;
				ws.b = &kf->k->warp[ws.gwid];
				ws.pending = ws.got = ws.want = 0;
			}
			st = K_WARP;
			break;
		case K_WARP:
			v = after_eq(s, "insts");
			if (!v || parse_udec(v, &ws.want)) {
				r = kerr(kf, -CS_EINVAL, "expected insts = N");
				goto out;
			}
			st = ws.want ? K_INSTS : K_IN_TB;
			break;
		default:
			break;
		}
	}
	if (r < 0)
		goto out;
	r = 0;
	if (st == K_HEADER) {
		r = make_kernel(kf);
	} else if (st == K_INSTS) {
		r = kerr(kf, -CS_EINVAL, "warp %u: expected %llu instructions, found %llu", ws.w,
			 (unsigned long long)ws.want, (unsigned long long)ws.got);
	} else if (st != K_OUT) {
		r = kerr(kf, -CS_EINVAL, "missing #END_TB at the end of the file");
	}
out:
	lr_close(&kf->lr);
	free(kf->seen);
	free(kf->name);
	free(kf);
	return r;
}

/* ---- the whole trace ------------------------------------------------------------------------ */

static int add_copy(struct imp *im, const struct cmd *c, struct cs_err *err)
{
	uint64_t g = c->addr >> GRAN_SHIFT, gl = (c->addr + c->len - 1) >> GRAN_SHIFT;
	uint64_t start, slot, prev, run_start_addr;

	if (!c->len)
		return 0;
	if (gmap_get(&im->map, g, &slot))
		return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", im->list);
	start = c->addr;
	run_start_addr = (slot << GRAN_SHIFT) | (c->addr & ((1u << GRAN_SHIFT) - 1));
	prev = slot;
	for (uint64_t x = g + 1; x <= gl; x++) {
		if (gmap_get(&im->map, x, &slot))
			return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", im->list);
		if (slot != prev + 1) { /* not contiguous after relocation: split */
			uint64_t end = x << GRAN_SHIFT;

			if (trace_add_copy(im->t, run_start_addr, NULL, end - start))
				return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", im->list);
			start = end;
			run_start_addr = slot << GRAN_SHIFT;
		}
		prev = slot;
	}
	if (trace_add_copy(im->t, run_start_addr, NULL, c->addr + c->len - start))
		return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", im->list);
	return 0;
}

int trace_import_accelsim(const char *kernelslist, struct trace **out, struct cs_err *err)
{
	struct imp im = {0};
	struct lreader lr;
	struct cmd *cmds = NULL;
	size_t ncmd = 0, capcmd = 0;
	const char *slash;
	char *line, *kpath = NULL;
	int r;

	im.list = kernelslist;
	r = lr_open(&lr, kernelslist);
	if (r)
		return cs_err_set(err, r, "%s: cannot open: %s", kernelslist,
				  r == -CS_ENOMEM ? "out of memory" : strerror(errno));
	slash = strrchr(kernelslist, '/');
	im.dir = slash ? strndup(kernelslist, (size_t)(slash - kernelslist)) : strdup(".");
	r = trace_new(&im.t);
	if (r || !im.dir) {
		r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", kernelslist);
		goto out;
	}
	snprintf(im.t->source, sizeof(im.t->source), "accelsim");
	{
		size_t dl = strlen(im.dir);
		const char *b;

		while (dl > 1 && im.dir[dl - 1] == '/') /* "traces/x//kernelslist.g" */
			im.dir[--dl] = '\0';
		b = strrchr(im.dir, '/');
		snprintf(im.t->workload, sizeof(im.t->workload), "%s", b ? b + 1 : im.dir);
		if (strcmp(im.t->workload, ".") == 0 || !im.t->workload[0]) {
			char cwd[4096];

			if (getcwd(cwd, sizeof(cwd)) && strrchr(cwd, '/'))
				snprintf(im.t->workload, sizeof(im.t->workload), "%s",
					 strrchr(cwd, '/') + 1);
		}
	}
	/* pass 1: the command list */
	while ((r = lr_getline(&lr, &line, err)) == 1) {
		char *s = trim(line);
		struct cmd c = {0};

		c.line = lr.line;
		if (starts(s, "MemcpyHtoD")) {
			char *a = strchr(s, ','), *n = a ? strchr(a + 1, ',') : NULL;

			if (n)
				*n = '\0';
			c.is_copy = 1;
			if (!a || !n || parse_hex(trim(a + 1), &c.addr) ||
			    parse_udec(trim(n + 1), &c.len) || c.addr + c.len < c.addr) {
				r = cs_err_set(err, -CS_EINVAL,
					       "%s:%lu: expected MemcpyHtoD,0xADDR,BYTES",
					       kernelslist, lr.line);
				goto out;
			}
			if (c.len > TRACE_DEVICE_MAX) {
				r = cs_err_set(err, -CS_ERANGE,
					       "%s:%lu: a copy of %" PRIu64
					       " bytes (the limit for a trace's device "
					       "memory is %llu bytes)",
					       kernelslist, lr.line, c.len, TRACE_DEVICE_MAX);
				goto out;
			}
		} else if (starts(s, "kernel")) {
			c.file = strdup(s);
			if (!c.file) {
				r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", kernelslist);
				goto out;
			}
		} else {
			continue; /* blank or not a command */
		}
		if (ncmd == capcmd) {
			size_t nc = capcmd ? capcmd * 2 : 16;
			struct cmd *p = realloc(cmds, nc * sizeof(*p));

			if (!p) {
				free(c.file);
				r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", kernelslist);
				goto out;
			}
			cmds = p;
			capcmd = nc;
		}
		cmds[ncmd++] = c;
	}
	if (r < 0)
		goto out;
	{
		size_t nk = 0;

		for (size_t i = 0; i < ncmd; i++)
			nk += !cmds[i].is_copy;
		/* a list of copies only (or of nothing) would replay as a run of 0 cycles */
		if (!nk) {
			r = cs_err_set_at(err, -CS_EINVAL, kernelslist, lr.line ? lr.line : 1,
					  "no kernel (expected kernel-N.traceg lines%s)",
					  ncmd ? " after the MemcpyHtoD lines" : "");
			goto out;
		}
	}
	/* the copies' granules take the first slots */
	for (size_t i = 0; i < ncmd; i++) {
		uint64_t slot;

		if (!cmds[i].is_copy || !cmds[i].len)
			continue;
		for (uint64_t g = cmds[i].addr >> GRAN_SHIFT;
		     g <= (cmds[i].addr + cmds[i].len - 1) >> GRAN_SHIFT; g++) {
			if (gmap_get(&im.map, g, &slot)) {
				r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", kernelslist);
				goto out;
			}
			if ((uint64_t)im.map.n > TRACE_DEVICE_MAX >> GRAN_SHIFT) {
				r = cs_err_set(err, -CS_ERANGE,
					       "%s:%lu: the copies touch more than %llu bytes of "
					       "device memory, the limit for a trace",
					       kernelslist, cmds[i].line, TRACE_DEVICE_MAX);
				goto out;
			}
		}
	}
	/* pass 2: events in program order */
	for (size_t i = 0; i < ncmd; i++) {
		if (cmds[i].is_copy) {
			r = add_copy(&im, &cmds[i], err);
			if (r)
				goto out;
			continue;
		}
		free(kpath);
		if (cmds[i].file[0] == '/') {
			kpath = strdup(cmds[i].file);
		} else {
			kpath = malloc(strlen(im.dir) + strlen(cmds[i].file) + 2);
			if (kpath)
				sprintf(kpath, "%s/%s", im.dir, cmds[i].file);
		}
		if (!kpath) {
			r = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", kernelslist);
			goto out;
		}
		r = import_kernel(&im, kpath, err);
		if (r == -CS_ENOENT) {
			r = cs_err_set(err, r, "%s:%lu: cannot open %s", kernelslist, cmds[i].line,
				       cmds[i].file);
			goto out;
		}
		if (r)
			goto out;
	}
	im.t->heap_base = 0;
	im.t->heap_end = (uint64_t)im.map.n << GRAN_SHIFT;
	*out = im.t;
	im.t = NULL;
	r = 0;
out:
	lr_close(&lr);
	for (size_t i = 0; i < ncmd; i++)
		free(cmds[i].file);
	free(cmds);
	free(kpath);
	free(im.dir);
	free(im.map.key);
	free(im.map.slot);
	trace_free(im.t);
	return r;
}
