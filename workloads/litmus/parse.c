/*
 * workloads/litmus/parse.c - herdtools7 `.litmus` parser for the C dialect (herd7 C11 and the
 * Linux-kernel memory-model catalogue), the OpenCL flavour (Dat3M `P0@wg N, dev N` tags and
 * herd's `scopeTree` section), X86 (Intel syntax column programs: MOV, MFENCE, XCHG and
 * LOCK-prefixed read-modify-writes) and PTX (column programs too: herd's GPU_PTX of 2015 with
 * `.reg` declarations, addresses in registers, ld/st cache operators, membar and a scopeTree of
 * device/kernel/cta/warp; Dat3M's PTX 6 with ld/st.weak/.relaxed/.acquire/.release, fences and
 * `P0@cta N,gpu N` tags). Builds the struct litmus_test of litmus.h.
 *
 * Layout: a header line `ARCH NAME`, doc strings / `Key=value` lines / comments, an optional init
 * block `{ ... }`, thread functions `PN(params) { body }` (X86, PTX: a row `P0 | P1 ;` and rows
 * of instruction cells, one column per thread), optional `scopeTree` / memory-map /
 * `locations` sections, and the final condition `exists (...)` or `~exists (...)`.
 *
 * The header and the Key=value lines are read line by line; the rest goes through a small lexer.
 * OCaml comments `(* ... *)` are recognised everywhere except inside thread bodies, where `(*x`
 * is C (`READ_ONCE(*x)`); `//` and C block comments are recognised everywhere.
 *
 * Every failure is one line "FILE:LINE: problem"; constructs outside the subset are reported as
 * "FILE:LINE: unsupported: WHAT".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/litmus/litmus.h"
#include "util/readfile.h"

_Static_assert(LIT_MAX_LOCS <= 32, "location masks are 32-bit");
_Static_assert(LIT_MAX_REGS <= 32, "register masks are 32-bit");
_Static_assert(LIT_MAX_OPS <= 255, "branch skip counts are 8-bit");
_Static_assert(LIT_MAX_THREADS <= 10, "thread names are P0..P9");

#define LIT_DEPTH_MAX 32 /* nesting of blocks / parentheses */

enum tok_kind { TK_EOF = 0, TK_IDENT, TK_NUM, TK_PUNCT, TK_BAD };

struct token {
	int kind;
	unsigned line;
	const char *s; /* into the source text */
	size_t len;
	uint64_t num; /* TK_NUM: magnitude */
};

struct pending_reg {
	unsigned thread;
	char name[LIT_NAME_MAX];
	int64_t value;
	int loc;   /* GPU_PTX `.reg .b64 r1 = x`: the location whose address it holds, else -1 */
	bool decl; /* GPU_PTX `.reg .s32 r0`: declared, no value (0) */
	unsigned line;
	bool used;
};

struct parser {
	const char *src;
	size_t pos;
	unsigned line;
	bool c_body; /* inside a thread body: `(*` is C, not a comment */
	struct token tok;
	struct litmus_test *t;
	const char *path;
	struct cs_err *err;
	unsigned depth;
	uint32_t params[LIT_MAX_THREADS];   /* locations that are parameters of each thread */
	uint32_t declared[LIT_MAX_THREADS]; /* registers declared (or assigned) by the body */
	uint32_t loc_inited;		    /* locations given a value by the init block */
	bool ptx;			    /* GPU_PTX or PTX */
	/* PTX address registers: 1 + the location whose address register r of thread t holds
	 * (from `.reg .b64 r = x`), 0 for a value register */
	uint8_t aloc[LIT_MAX_THREADS][LIT_MAX_REGS];
	unsigned npend;
	struct pending_reg pend[LIT_MAX_THREADS * LIT_MAX_REGS];
};

/* ---- messages ------------------------------------------------------------------------------ */

static int perr(struct parser *p, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cs_err_vset_at(p->err, -CS_EINVAL, p->path, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* A printable description of the current token, for messages. */
static const char *tok_desc(const struct token *tk, char *buf, size_t size)
{
	switch (tk->kind) {
	case TK_EOF:
		snprintf(buf, size, "end of file");
		break;
	case TK_BAD:
		snprintf(buf, size, "character 0x%02x", (unsigned char)tk->s[0]);
		break;
	default:
		snprintf(buf, size, "'%.*s%s'", (int)(tk->len > 40 ? 40 : tk->len), tk->s,
			 tk->len > 40 ? "..." : "");
		break;
	}
	return buf;
}

/* The token's text without quotes (identifiers, numbers, punctuation), for "unsupported: X". */
static const char *tok_text(const struct token *tk, char *buf, size_t size)
{
	if (tk->kind == TK_EOF || tk->kind == TK_BAD)
		return tok_desc(tk, buf, size);
	snprintf(buf, size, "%.*s%s", (int)(tk->len > 40 ? 40 : tk->len), tk->s,
		 tk->len > 40 ? "..." : "");
	return buf;
}

static int unexpected(struct parser *p, const char *what)
{
	char d[64];

	return perr(p, p->tok.line, "expected %s, found %s", what, tok_desc(&p->tok, d, sizeof(d)));
}

static int unsupported_tok(struct parser *p)
{
	char d[64];

	return perr(p, p->tok.line, "unsupported: %s", tok_text(&p->tok, d, sizeof(d)));
}

/* ---- lexer --------------------------------------------------------------------------------- */

static bool is_ident0(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Skips one comment ending in `close` (2 characters) that starts at p->pos. */
static int skip_comment(struct parser *p, const char *close)
{
	const char *s = p->src;
	unsigned start = p->line;

	p->pos += 2;
	while (s[p->pos] && !(s[p->pos] == close[0] && s[p->pos + 1] == close[1])) {
		if (s[p->pos] == '\n')
			p->line++;
		p->pos++;
	}
	if (!s[p->pos])
		return perr(p, start, "unterminated comment (missing '%s')", close);
	p->pos += 2;
	return 0;
}

/* Skips blanks and comments; with `newlines` false stops at the end of the line. */
static int skip_blank(struct parser *p, bool newlines)
{
	const char *s = p->src;
	int rc;

	for (;;) {
		char c = s[p->pos];

		if (c == '\n' && newlines) {
			p->line++;
			p->pos++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p->pos++;
		} else if (c == '/' && s[p->pos + 1] == '/') {
			while (s[p->pos] && s[p->pos] != '\n')
				p->pos++;
		} else if ((c == '/' && s[p->pos + 1] == '*') ||
			   (c == '(' && s[p->pos + 1] == '*' && !p->c_body)) {
			unsigned before = p->line;

			rc = skip_comment(p, c == '/' ? "*/" : "*)");
			if (rc)
				return rc;
			if (!newlines && p->line != before)
				return 0;
		} else {
			return 0;
		}
	}
}

static const char *const two_char_puncts[] = {"==", "!=", "/\\", "\\/", "<=", ">=", "&&",
					      "||", "->", "++",	 "--",	"<<", ">>"};

/* Reads the next token into p->tok. */
static int advance(struct parser *p)
{
	struct token *tk = &p->tok;
	const char *s;
	int rc;

	rc = skip_blank(p, true);
	if (rc)
		return rc;
	s = p->src + p->pos;
	tk->line = p->line;
	tk->s = s;
	tk->num = 0;
	if (!*s) {
		tk->kind = TK_EOF;
		tk->len = 0;
		return 0;
	}
	if (is_ident0(*s)) {
		size_t n = 1;

		while (is_ident(s[n]))
			n++;
		tk->kind = TK_IDENT;
		tk->len = n;
	} else if (isdigit((unsigned char)*s)) {
		size_t n = 0;
		unsigned base = 10;
		uint64_t v = 0;
		bool big = false;

		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
			base = 16;
			n = 2;
		}
		for (; isxdigit((unsigned char)s[n]); n++) {
			unsigned d = isdigit((unsigned char)s[n])
					 ? (unsigned)(s[n] - '0')
					 : (unsigned)(tolower((unsigned char)s[n]) - 'a' + 10);

			if (d >= base)
				break;
			if (v > (UINT64_MAX - d) / base)
				big = true;
			v = v * base + d;
		}
		if (is_ident(s[n]))
			return perr(p, p->line, "bad number '%.*s'", (int)(n + 1), s);
		if (big)
			return perr(p, p->line, "number '%.*s' out of range",
				    (int)(n > 40 ? 40 : n), s);
		tk->kind = TK_NUM;
		tk->len = n;
		tk->num = v;
	} else if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e) {
		tk->kind = TK_BAD;
		tk->len = 1;
	} else {
		tk->kind = TK_PUNCT;
		tk->len = 1;
		for (size_t i = 0; i < sizeof(two_char_puncts) / sizeof(two_char_puncts[0]); i++) {
			if (s[0] == two_char_puncts[i][0] && s[1] == two_char_puncts[i][1]) {
				tk->len = 2;
				break;
			}
		}
	}
	p->pos += tk->len;
	return 0;
}

static bool tok_eq(const struct token *tk, const char *str)
{
	size_t n = strlen(str);

	return (tk->kind == TK_IDENT || tk->kind == TK_PUNCT) && tk->len == n &&
	       memcmp(tk->s, str, n) == 0;
}

static bool at(struct parser *p, const char *str)
{
	return tok_eq(&p->tok, str);
}

/* Consumes punctuation `str` or fails with "expected 'str' WHERE". */
static int expect(struct parser *p, const char *str, const char *where)
{
	char what[96];

	if (!at(p, str)) {
		snprintf(what, sizeof(what), "'%s'%s%s", str, where ? " " : "", where ? where : "");
		return unexpected(p, what);
	}
	return advance(p);
}

/* `[name]` (the current token is the '['): the location name into *name. */
static int bracketed_loc(struct parser *p, struct token *name)
{
	int rc = advance(p);

	if (rc)
		return rc;
	if (p->tok.kind != TK_IDENT)
		return unexpected(p, "a location name after '['");
	*name = p->tok;
	rc = advance(p);
	return rc ? rc : expect(p, "]", "after the location name");
}

static bool name_eq(const char *name, const char *s, size_t len)
{
	return strlen(name) == len && memcmp(name, s, len) == 0;
}

/* Copies an identifier token into a LIT_NAME_MAX buffer. */
static int copy_name(struct parser *p, char *dst, const struct token *tk)
{
	if (tk->len >= LIT_NAME_MAX)
		return perr(p, tk->line, "name '%.20s...' too long (max %d characters)", tk->s,
			    LIT_NAME_MAX - 1);
	memcpy(dst, tk->s, tk->len);
	dst[tk->len] = '\0';
	return 0;
}

/* `PN` -> N (0..999), or -1 if the identifier is not a thread name. */
static int thread_number(const struct token *tk)
{
	int n = 0;

	if (tk->kind != TK_IDENT || tk->len < 2 || tk->s[0] != 'P')
		return -1;
	for (size_t i = 1; i < tk->len; i++) {
		if (!isdigit((unsigned char)tk->s[i]))
			return -1;
		if (n < 1000)
			n = n * 10 + (tk->s[i] - '0');
	}
	return n;
}

/* An optionally negative integer, as the 32-bit word a location holds: -2^31 to 2^32 - 1, read
 * as signed (4294967295 is -1), since loads sign-extend what they read and a condition must
 * match it. */
static int parse_int(struct parser *p, int64_t *v, const char *what)
{
	bool neg = false;
	unsigned line = p->tok.line;
	int rc;

	if (at(p, "-")) {
		neg = true;
		rc = advance(p);
		if (rc)
			return rc;
	}
	if (p->tok.kind != TK_NUM)
		return unexpected(p, what);
	if (p->tok.num > (neg ? (uint64_t)1 << 31 : UINT32_MAX))
		return perr(p, line,
			    "%s%" PRIu64
			    " does not fit in 32 bits (a location holds a 32-bit word)",
			    neg ? "-" : "", p->tok.num);
	if (neg)
		*v = -(int64_t)p->tok.num;
	else
		*v = (int32_t)(uint32_t)p->tok.num;
	return advance(p);
}

/* A small non-negative integer (scope tags). */
static int parse_small(struct parser *p, int *v, const char *what)
{
	if (p->tok.kind != TK_NUM)
		return unexpected(p, what);
	if (p->tok.num > 1000000)
		return perr(p, p->tok.line, "%s out of range", what);
	*v = (int)p->tok.num;
	return advance(p);
}

/* ---- locations and registers ----------------------------------------------------------------- */

static int loc_find(const struct litmus_test *t, const char *s, size_t len)
{
	for (unsigned i = 0; i < t->nlocs; i++)
		if (name_eq(t->locs[i].name, s, len))
			return (int)i;
	return -1;
}

/* Finds or adds the location named by token tk. */
static int loc_get(struct parser *p, const struct token *tk, int *idx)
{
	struct litmus_test *t = p->t;
	int i = loc_find(t, tk->s, tk->len);
	int rc;

	if (i >= 0) {
		*idx = i;
		return 0;
	}
	if (t->nlocs >= LIT_MAX_LOCS)
		return perr(p, tk->line, "too many locations (max %d)", LIT_MAX_LOCS);
	rc = copy_name(p, t->locs[t->nlocs].name, tk);
	if (rc)
		return rc;
	*idx = (int)t->nlocs++;
	return 0;
}

static int reg_find(const struct lit_thread *th, const char *s, size_t len)
{
	for (unsigned i = 0; i < th->nregs; i++)
		if (name_eq(th->regs[i], s, len))
			return (int)i;
	return -1;
}

/* Adds register tk to thread ti (it must not exist yet). */
static int reg_add(struct parser *p, unsigned ti, const struct token *tk, int *idx)
{
	struct lit_thread *th = &p->t->threads[ti];
	int rc;

	if (th->nregs >= LIT_MAX_REGS)
		return perr(p, tk->line, "too many registers in %s (max %d)", th->name,
			    LIT_MAX_REGS);
	rc = copy_name(p, th->regs[th->nregs], tk);
	if (rc)
		return rc;
	*idx = (int)th->nregs++;
	return 0;
}

/* Is token tk a location parameter of thread ti? Returns its index or -1. */
static int param_find(struct parser *p, unsigned ti, const struct token *tk)
{
	int i = loc_find(p->t, tk->s, tk->len);

	if (i < 0 || !(p->params[ti] & (1u << i)))
		return -1;
	return i;
}

static int new_op(struct parser *p, unsigned ti, unsigned line, struct lit_op **out)
{
	struct lit_thread *th = &p->t->threads[ti];
	struct lit_op *op;

	if (th->nops >= LIT_MAX_OPS)
		return perr(p, line, "too many operations in %s (max %d)", th->name, LIT_MAX_OPS);
	op = &th->ops[th->nops++];
	memset(op, 0, sizeof(*op));
	op->reg = -1;
	op->line = line;
	*out = op;
	return 0;
}

/* ---- header and Key=value lines -------------------------------------------------------------- */

static bool is_space_tab(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int parse_header(struct parser *p)
{
	struct litmus_test *t = p->t;
	const char *s = p->src;
	size_t a, n;
	int rc;

	rc = skip_blank(p, true);
	if (rc)
		return rc;
	if (!s[p->pos])
		return perr(p, p->line, "empty file (expected a header line such as 'C name')");
	a = p->pos;
	while (s[p->pos] && !isspace((unsigned char)s[p->pos]))
		p->pos++;
	n = p->pos - a;
	if (!((n == 1 && s[a] == 'C') || (n == 6 && !memcmp(s + a, "OpenCL", 6)) ||
	      (n == 6 && !memcmp(s + a, "OPENCL", 6)) || (n == 3 && !memcmp(s + a, "X86", 3)) ||
	      (n == 7 && !memcmp(s + a, "GPU_PTX", 7)) || (n == 3 && !memcmp(s + a, "PTX", 3)))) {
		char shown[41];
		size_t k = 0;

		for (; k < n && k < 40; k++)
			shown[k] = isprint((unsigned char)s[a + k]) ? s[a + k] : '?';
		shown[k] = '\0';
		return perr(p, p->line, "unsupported: architecture %s%s", shown,
			    n > 40 ? "..." : "");
	}
	memcpy(t->arch, s + a, n);
	t->arch[n] = '\0';
	p->ptx = !strcmp(t->arch, "GPU_PTX") || !strcmp(t->arch, "PTX");
	while (is_space_tab(s[p->pos]))
		p->pos++;
	a = p->pos;
	while (s[p->pos] && !isspace((unsigned char)s[p->pos]))
		p->pos++;
	n = p->pos - a;
	if (!n)
		return perr(p, p->line, "missing test name after '%s'", t->arch);
	if (n >= sizeof(t->name))
		return perr(p, p->line, "test name too long (max %zu characters)",
			    sizeof(t->name) - 1);
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)s[a + i]))
			return perr(p, p->line, "bad character 0x%02x in the test name",
				    (unsigned char)s[a + i]);
	memcpy(t->name, s + a, n);
	t->name[n] = '\0';
	rc = skip_blank(p, false);
	if (rc)
		return rc;
	if (s[p->pos] && s[p->pos] != '\n')
		return perr(p, p->line, "unexpected text after the test name");
	return 0;
}

/* Case-insensitive comparison of s[0..len) with word. */
static bool ieq(const char *s, size_t len, const char *word)
{
	if (strlen(word) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (tolower((unsigned char)s[i]) != tolower((unsigned char)word[i]))
			return false;
	return true;
}

/* A `Key=value` line: only cohscope's own keys mean something. */
static int meta_key(struct parser *p, const char *key, size_t klen, const char *val, size_t vlen)
{
	struct litmus_test *t = p->t;
	char *dst = NULL;

	if (name_eq("Cohscope.sc", key, klen))
		dst = t->expect_sc;
	else if (name_eq("Cohscope.rc", key, klen))
		dst = t->expect_rc;
	else if (name_eq("Cohscope.tso", key, klen))
		dst = t->expect_tso;
	if (dst) {
		if (ieq(val, vlen, "Forbid"))
			strcpy(dst, "Forbid");
		else if (ieq(val, vlen, "Allow"))
			strcpy(dst, "Allow");
		else
			return perr(p, p->line, "bad value '%.*s' for %.*s (Forbid or Allow)",
				    (int)(vlen > 40 ? 40 : vlen), val, (int)klen, key);
	} else if (name_eq("Cohscope.shape", key, klen)) {
		if (vlen == 9 && !memcmp(val, "coherence", 9))
			t->coherence = true;
	}
	return 0;
}

/* Doc strings, Key=value lines and comments up to the init block or the first thread. */
static int parse_meta(struct parser *p)
{
	const char *s = p->src;
	int rc;

	for (;;) {
		size_t a, k, v, e;

		rc = skip_blank(p, true);
		if (rc)
			return rc;
		if (s[p->pos] == '"') {
			unsigned start = p->line;

			p->pos++;
			while (s[p->pos] && s[p->pos] != '"') {
				if (s[p->pos] == '\n')
					p->line++;
				p->pos++;
			}
			if (!s[p->pos])
				return perr(p, start, "unterminated string");
			p->pos++;
			continue;
		}
		if (!is_ident0(s[p->pos]))
			return 0;
		a = p->pos;
		k = a;
		while (is_ident(s[k]) || s[k] == '.' || s[k] == '-')
			k++;
		v = k;
		while (is_space_tab(s[v]))
			v++;
		if (s[v] != '=' || s[v + 1] == '=')
			return 0; /* not a Key=value line: the program starts here */
		v++;
		while (is_space_tab(s[v]))
			v++;
		e = v;
		while (s[e] && s[e] != '\n')
			e++;
		p->pos = e;
		while (e > v && is_space_tab(s[e - 1]))
			e--;
		rc = meta_key(p, s + a, k - a, s + v, e - v);
		if (rc)
			return rc;
	}
}

/* ---- init block ---------------------------------------------------------------------------- */

static bool is_init_type_word(const struct token *tk)
{
	static const char *const words[] = {"int",	  "long",     "unsigned", "signed",
					    "short",	  "char",     "volatile", "const",
					    "atomic_int", "atomic_t", "_Atomic",  "global",
					    "local",	  "__global", "__local",  "intptr_t"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tok_eq(tk, words[i]))
			return true;
	return false;
}

static int init_value(struct parser *p, int64_t *v)
{
	if (p->tok.kind == TK_IDENT || at(p, "&")) {
		char d[64];

		return perr(p, p->tok.line, "unsupported: non-integer initial value %s",
			    tok_desc(&p->tok, d, sizeof(d)));
	}
	return parse_int(p, v, "an integer initial value");
}

/* `loc = value` once the location token has been read. */
static int init_loc(struct parser *p, const struct token *name, bool atomic, bool has_value)
{
	int64_t v = 0;
	int idx, rc;

	rc = loc_get(p, name, &idx);
	if (rc)
		return rc;
	if (p->loc_inited & (1u << idx))
		return perr(p, name->line, "location %s initialised twice", p->t->locs[idx].name);
	p->loc_inited |= 1u << idx;
	if (atomic)
		p->t->locs[idx].atomic = true;
	if (has_value) {
		rc = expect(p, "=", "in the init block");
		if (rc)
			return rc;
		rc = init_value(p, &v);
		if (rc)
			return rc;
	}
	p->t->locs[idx].init = v;
	return 0;
}

/* `.word` after a PTX mnemonic or in a `.reg` declaration: the word into *w. */
static int ptx_qualifier(struct parser *p, struct token *w)
{
	int rc = advance(p); /* '.' */

	if (rc)
		return rc;
	if (p->tok.kind != TK_IDENT)
		return unexpected(p, "a qualifier after '.'");
	*w = p->tok;
	return advance(p);
}

/* GPU_PTX `.reg .TYPE` before a register name (the '.' is the current token). */
static int ptx_reg_decl(struct parser *p)
{
	static const char *const types[] = {"s32", "u32", "b32", "s64", "u64", "b64"};
	struct token w;
	int rc = ptx_qualifier(p, &w);

	if (rc)
		return rc;
	if (!tok_eq(&w, "reg"))
		return perr(p, w.line, "unsupported: .%.*s in the init block (expected .reg)",
			    (int)(w.len > 40 ? 40 : w.len), w.s);
	if (!at(p, "."))
		return unexpected(p, "a type such as '.s32' after .reg");
	rc = ptx_qualifier(p, &w);
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (tok_eq(&w, types[i]))
			return 0;
	return perr(p, w.line, "unsupported: register type .%.*s", (int)(w.len > 40 ? 40 : w.len),
		    w.s);
}

/* `T:reg = value`, T already read; recorded and turned into a MOVE when thread T is parsed.
 * PTX: `T:.reg .TYPE reg` (value 0), `= value`, or `= loc` (the register holds loc's address). */
static int init_reg(struct parser *p, unsigned thread, unsigned line)
{
	struct pending_reg *pr;
	struct token name;
	bool decl = false;
	int rc;

	if (thread >= LIT_MAX_THREADS)
		return perr(p, line, "register initialised for thread %u (max %d threads)", thread,
			    LIT_MAX_THREADS);
	rc = expect(p, ":", "after the thread number");
	if (rc)
		return rc;
	if (p->ptx && at(p, ".")) {
		rc = ptx_reg_decl(p);
		if (rc)
			return rc;
		decl = true;
	}
	if (p->tok.kind != TK_IDENT)
		return unexpected(p, "a register name");
	name = p->tok;
	if (p->npend >= LIT_MAX_THREADS * LIT_MAX_REGS)
		return perr(p, line, "too many register initialisations");
	pr = &p->pend[p->npend];
	memset(pr, 0, sizeof(*pr));
	pr->loc = -1;
	rc = copy_name(p, pr->name, &name);
	if (rc)
		return rc;
	for (unsigned i = 0; i < p->npend; i++)
		if (p->pend[i].thread == thread && !strcmp(p->pend[i].name, pr->name))
			return perr(p, line, "register %u:%s initialised twice", thread, pr->name);
	rc = advance(p);
	if (rc)
		return rc;
	if (decl && !at(p, "=")) {
		pr->decl = true;
	} else {
		rc = expect(p, "=", "in the init block");
		if (rc)
			return rc;
		if (decl && p->tok.kind == TK_IDENT) {
			int idx;

			rc = loc_get(p, &p->tok, &idx);
			if (!rc)
				rc = advance(p);
			pr->loc = idx;
		} else {
			rc = init_value(p, &pr->value);
		}
		if (rc)
			return rc;
	}
	pr->thread = thread;
	pr->line = line;
	pr->used = false;
	p->npend++;
	return 0;
}

static int parse_init(struct parser *p)
{
	int rc = advance(p); /* '{' */

	while (!rc && !at(p, "}")) {
		struct token first = p->tok;

		if (at(p, ";")) {
			rc = advance(p);
			continue;
		}
		if (first.kind == TK_EOF)
			return perr(p, first.line, "unterminated init block (missing '}')");
		if (at(p, "[")) {
			struct token name;

			rc = bracketed_loc(p, &name);
			if (!rc)
				rc = init_loc(p, &name, false, true);
		} else if (first.kind == TK_NUM) {
			if (first.num >= 1000)
				return perr(p, first.line, "bad thread number");
			rc = advance(p);
			if (!rc)
				rc = init_reg(p, (unsigned)first.num, first.line);
		} else if (is_init_type_word(&first)) {
			bool atomic = false;

			while (!rc && is_init_type_word(&p->tok)) {
				if (at(p, "atomic_int") || at(p, "atomic_t") || at(p, "_Atomic"))
					atomic = true;
				rc = advance(p);
			}
			if (rc)
				return rc;
			if (at(p, "*"))
				return perr(p, p->tok.line, "unsupported: pointer declaration");
			if (p->tok.kind != TK_IDENT)
				return unexpected(p, "a location name in the declaration");
			first = p->tok;
			rc = advance(p);
			if (!rc)
				rc = init_loc(p, &first, atomic, at(p, "="));
		} else if (first.kind == TK_IDENT) {
			rc = advance(p);
			if (rc)
				return rc;
			if (at(p, ":")) {
				int n = thread_number(&first);

				if (n < 0)
					return perr(p, first.line, "bad thread name '%.*s'",
						    (int)(first.len > 40 ? 40 : first.len),
						    first.s);
				rc = init_reg(p, (unsigned)n, first.line);
			} else {
				rc = init_loc(p, &first, false, true);
			}
		} else {
			return unsupported_tok(p);
		}
		if (rc)
			return rc;
		if (!at(p, ";") && !at(p, "}"))
			return unexpected(p, "';' or '}' in the init block");
	}
	if (rc)
		return rc;
	return advance(p); /* '}' */
}

/* ---- thread headers ------------------------------------------------------------------------ */

static int x86_reg(struct parser *p, unsigned ti, const struct token *tk, int *r);

/* Register initialisations of thread ti from the init block become its leading MOVEs. C: the
 * register is new and must not shadow a location parameter; X86 and PTX (x86 true): registers
 * are named by their first use or declaration; a PTX address register gets no MOVE, its
 * location is recorded (p->aloc), and a declared one without value none either. */
static int init_moves(struct parser *p, unsigned ti, bool x86)
{
	for (unsigned i = 0; i < p->npend; i++) {
		struct pending_reg *pr = &p->pend[i];
		struct token tk = {.kind = TK_IDENT, .line = pr->line, .s = pr->name};
		struct lit_op *op;
		int r, rc;

		if (pr->thread != ti)
			continue;
		tk.len = strlen(pr->name);
		if ((!x86 && param_find(p, ti, &tk) >= 0) ||
		    (p->ptx && loc_find(p->t, tk.s, tk.len) >= 0))
			return perr(p, pr->line, "register '%s' shadows a location", pr->name);
		rc = x86 ? x86_reg(p, ti, &tk, &r) : reg_add(p, ti, &tk, &r);
		if (rc)
			return rc;
		pr->used = true;
		if (pr->loc >= 0)
			p->aloc[ti][r] = (uint8_t)(pr->loc + 1);
		if (pr->loc >= 0 || pr->decl)
			continue;
		rc = new_op(p, ti, pr->line, &op);
		if (rc)
			return rc;
		op->kind = LIT_MOVE;
		op->reg = (int8_t)r;
		op->val.k = pr->value;
	}
	return 0;
}

static int parse_params(struct parser *p, unsigned ti)
{
	struct litmus_test *t = p->t;
	int rc = advance(p); /* '(' */

	if (rc)
		return rc;
	if (at(p, ")"))
		return advance(p);
	if (at(p, "void")) {
		rc = advance(p);
		if (rc)
			return rc;
		return expect(p, ")", "after 'void'");
	}
	for (;;) {
		bool local = false, atomic = false, typed = false;
		struct token bad = {0}, last = {0};
		int idx;

		while (p->tok.kind == TK_IDENT) {
			last = p->tok;
			if (at(p, "local") || at(p, "__local")) {
				local = true;
			} else if (at(p, "atomic_int") || at(p, "atomic_t") || at(p, "_Atomic")) {
				atomic = true;
				typed = true;
			} else if (at(p, "int") || at(p, "long") || at(p, "unsigned") ||
				   at(p, "signed")) {
				typed = true;
			} else if (!at(p, "global") && !at(p, "__global") && !at(p, "volatile") &&
				   !at(p, "const")) {
				if (!bad.s)
					bad = p->tok;
			}
			rc = advance(p);
			if (rc)
				return rc;
		}
		if (!at(p, "*")) {
			if (last.s && (at(p, ",") || at(p, ")")))
				return perr(p, last.line,
					    "unsupported: non-pointer parameter '%.*s'",
					    (int)(last.len > 40 ? 40 : last.len), last.s);
			return unexpected(p, "a parameter such as 'int *x'");
		}
		if (bad.s)
			return perr(p, bad.line, "unsupported: parameter type '%.*s'",
				    (int)(bad.len > 40 ? 40 : bad.len), bad.s);
		if (!typed)
			return perr(p, p->tok.line, "missing parameter type");
		rc = advance(p);
		while (!rc && (at(p, "volatile") || at(p, "const")))
			rc = advance(p);
		if (rc)
			return rc;
		if (at(p, "*"))
			return perr(p, p->tok.line, "unsupported: pointer to pointer parameter");
		if (p->tok.kind != TK_IDENT)
			return unexpected(p, "a parameter name");
		rc = loc_get(p, &p->tok, &idx);
		if (rc)
			return rc;
		if (p->params[ti] & (1u << idx))
			return perr(p, p->tok.line, "duplicate parameter '%s'", t->locs[idx].name);
		p->params[ti] |= 1u << idx;
		if (atomic)
			t->locs[idx].atomic = true;
		if (local)
			t->locs[idx].local = true;
		rc = advance(p);
		if (rc)
			return rc;
		if (at(p, ")"))
			return advance(p);
		rc = expect(p, ",", "or ')' in the parameter list");
		if (rc)
			return rc;
	}
}

/* ---- statements ---------------------------------------------------------------------------- */

enum call_class { C_LOAD, C_STORE, C_FENCE, C_RMW };

enum call_flags {
	F_DEREF = 1 << 0,    /* the location is written `*x` (READ_ONCE / WRITE_ONCE) */
	F_MO = 1 << 1,	     /* memory_order (and optional memory_scope) arguments */
	F_VALFIRST = 1 << 2, /* LKMM atomic_add(i, v): operand before the location */
	F_EITHER = 1 << 3,   /* C11 (obj, arg) or LKMM (i, v): decided by the first argument */
	F_NORESULT = 1 << 4, /* returns nothing usable */
	F_CASPTR = 1 << 5,   /* C11 compare-exchange: (obj, &expected, desired, ...) */
	F_NEG = 1 << 6,	     /* subtract: the constant operand is negated */
};

struct call {
	const char *name;
	uint8_t cls;   /* enum call_class */
	uint8_t order; /* enum lit_order when not given by an argument */
	uint8_t fence; /* enum lit_fence for smp_* fences */
	uint8_t rmw;   /* enum lit_rmw */
	uint8_t flags; /* enum call_flags */
};

#define LKMM_RMW(base, kind, fl)                                                             \
	{base, C_RMW, LIT_SC, 0, kind, fl}, {base "_relaxed", C_RMW, LIT_ONCE, 0, kind, fl}, \
	    {base "_acquire", C_RMW, LIT_ACQUIRE, 0, kind, fl},                              \
	{                                                                                    \
		base "_release", C_RMW, LIT_RELEASE, 0, kind, fl                             \
	}

static const struct call calls[] = {
    /* loads */
    {"READ_ONCE", C_LOAD, LIT_ONCE, 0, 0, F_DEREF},
    {"smp_load_acquire", C_LOAD, LIT_ACQUIRE, 0, 0, 0},
    {"atomic_read", C_LOAD, LIT_ONCE, 0, 0, 0},
    {"atomic_read_acquire", C_LOAD, LIT_ACQUIRE, 0, 0, 0},
    {"atomic_load", C_LOAD, LIT_SC, 0, 0, 0},
    {"atomic_load_explicit", C_LOAD, LIT_SC, 0, 0, F_MO},
    /* stores */
    {"WRITE_ONCE", C_STORE, LIT_ONCE, 0, 0, F_DEREF},
    {"smp_store_release", C_STORE, LIT_RELEASE, 0, 0, 0},
    {"atomic_set", C_STORE, LIT_ONCE, 0, 0, 0},
    {"atomic_set_release", C_STORE, LIT_RELEASE, 0, 0, 0},
    {"atomic_store", C_STORE, LIT_SC, 0, 0, 0},
    {"atomic_store_explicit", C_STORE, LIT_SC, 0, 0, F_MO},
    /* fences */
    {"smp_mb", C_FENCE, LIT_SC, LIT_FENCE_MB, 0, 0},
    {"smp_rmb", C_FENCE, LIT_ONCE, LIT_FENCE_RMB, 0, 0},
    {"smp_wmb", C_FENCE, LIT_ONCE, LIT_FENCE_WMB, 0, 0},
    {"atomic_thread_fence", C_FENCE, LIT_SC, 0, 0, F_MO},
    /* LKMM read-modify-writes (fully ordered unless suffixed) */
    LKMM_RMW("xchg", LIT_RMW_XCHG, 0),
    LKMM_RMW("cmpxchg", LIT_RMW_CAS, 0),
    LKMM_RMW("atomic_xchg", LIT_RMW_XCHG, 0),
    LKMM_RMW("atomic_cmpxchg", LIT_RMW_CAS, 0),
    {"atomic_fetch_add_relaxed", C_RMW, LIT_ONCE, 0, LIT_RMW_ADD, F_VALFIRST},
    {"atomic_fetch_add_acquire", C_RMW, LIT_ACQUIRE, 0, LIT_RMW_ADD, F_VALFIRST},
    {"atomic_fetch_add_release", C_RMW, LIT_RELEASE, 0, LIT_RMW_ADD, F_VALFIRST},
    {"atomic_fetch_sub_relaxed", C_RMW, LIT_ONCE, 0, LIT_RMW_ADD, F_VALFIRST | F_NEG},
    {"atomic_fetch_sub_acquire", C_RMW, LIT_ACQUIRE, 0, LIT_RMW_ADD, F_VALFIRST | F_NEG},
    {"atomic_fetch_sub_release", C_RMW, LIT_RELEASE, 0, LIT_RMW_ADD, F_VALFIRST | F_NEG},
    {"atomic_add", C_RMW, LIT_ONCE, 0, LIT_RMW_ADD, F_VALFIRST | F_NORESULT},
    {"atomic_sub", C_RMW, LIT_ONCE, 0, LIT_RMW_ADD, F_VALFIRST | F_NORESULT | F_NEG},
    /* C11 read-modify-writes; atomic_fetch_add/sub also name the LKMM (i, v) forms */
    {"atomic_fetch_add", C_RMW, LIT_SC, 0, LIT_RMW_ADD, F_EITHER},
    {"atomic_fetch_sub", C_RMW, LIT_SC, 0, LIT_RMW_ADD, F_EITHER | F_NEG},
    {"atomic_fetch_add_explicit", C_RMW, LIT_SC, 0, LIT_RMW_ADD, F_MO},
    {"atomic_fetch_sub_explicit", C_RMW, LIT_SC, 0, LIT_RMW_ADD, F_MO | F_NEG},
    {"atomic_exchange", C_RMW, LIT_SC, 0, LIT_RMW_XCHG, 0},
    {"atomic_exchange_explicit", C_RMW, LIT_SC, 0, LIT_RMW_XCHG, F_MO},
    {"atomic_compare_exchange_strong", C_RMW, LIT_SC, 0, LIT_RMW_CAS, F_CASPTR | F_NORESULT},
    {"atomic_compare_exchange_weak", C_RMW, LIT_SC, 0, LIT_RMW_CAS, F_CASPTR | F_NORESULT},
    {"atomic_compare_exchange_strong_explicit", C_RMW, LIT_SC, 0, LIT_RMW_CAS,
     F_CASPTR | F_NORESULT | F_MO},
    {"atomic_compare_exchange_weak_explicit", C_RMW, LIT_SC, 0, LIT_RMW_CAS,
     F_CASPTR | F_NORESULT | F_MO},
};

static const struct call *call_find(const struct token *tk)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (tok_eq(tk, calls[i].name))
			return &calls[i];
	return NULL;
}

/* Raw memory orders: consume is kept apart so that misuse can be reported. */
enum raw_mo { MO_RELAXED, MO_CONSUME, MO_ACQUIRE, MO_RELEASE, MO_ACQ_REL, MO_SEQ_CST };

static int parse_mo(struct parser *p, int *mo)
{
	static const char *const names[] = {"memory_order_relaxed", "memory_order_consume",
					    "memory_order_acquire", "memory_order_release",
					    "memory_order_acq_rel", "memory_order_seq_cst"};

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		if (at(p, names[i])) {
			*mo = i;
			return advance(p);
		}
	}
	if (p->tok.kind == TK_IDENT)
		return perr(p, p->tok.line, "unknown memory order '%.*s'",
			    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s);
	return unexpected(p, "a memory order");
}

static int parse_scope(struct parser *p, uint8_t *scope)
{
	if (at(p, "memory_scope_work_group"))
		*scope = LIT_SCOPE_WG;
	else if (at(p, "memory_scope_device"))
		*scope = LIT_SCOPE_DEVICE;
	else if (at(p, "memory_scope_all_svm_devices") || at(p, "memory_scope_all_devices"))
		*scope = LIT_SCOPE_SYSTEM;
	else if (at(p, "memory_scope_work_item") || at(p, "memory_scope_sub_group"))
		return unsupported_tok(p);
	else if (p->tok.kind == TK_IDENT)
		return perr(p, p->tok.line, "unknown memory scope '%.*s'",
			    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s);
	else
		return unexpected(p, "a memory scope");
	return advance(p);
}

static uint8_t mo_order(int mo)
{
	static const uint8_t map[] = {LIT_ONCE,	   LIT_ACQUIRE, LIT_ACQUIRE,
				      LIT_RELEASE, LIT_ACQ_REL, LIT_SC};

	return map[mo];
}

/* A location argument of thread ti: `x`, or `*x` when deref. */
static int parse_loc_arg(struct parser *p, unsigned ti, bool deref, uint8_t *loc)
{
	int i;

	if (deref) {
		int rc = expect(p, "*", "before the location");

		if (rc)
			return rc;
	}
	if (p->tok.kind != TK_IDENT)
		return unexpected(p, deref ? "a location name" : "a location such as 'x'");
	i = param_find(p, ti, &p->tok);
	if (i < 0) {
		if (reg_find(&p->t->threads[ti], p->tok.s, p->tok.len) >= 0)
			return perr(p, p->tok.line, "unsupported: access through register '%.*s'",
				    (int)p->tok.len, p->tok.s);
		return perr(p, p->tok.line, "unknown location '%.*s' (not a parameter of %s)",
			    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s,
			    p->t->threads[ti].name);
	}
	*loc = (uint8_t)i;
	return advance(p);
}

/* An operand: an integer or a register of thread ti. */
static int parse_val(struct parser *p, unsigned ti, struct lit_val *v)
{
	struct lit_thread *th = &p->t->threads[ti];
	struct token name = p->tok;
	int r, rc;

	memset(v, 0, sizeof(*v));
	if (p->tok.kind == TK_NUM || at(p, "-"))
		return parse_int(p, &v->k, "an integer");
	if (p->tok.kind != TK_IDENT) {
		if (at(p, "*") || at(p, "&") || at(p, "("))
			return unsupported_tok(p);
		return unexpected(p, "a value (integer or register)");
	}
	r = reg_find(th, name.s, name.len);
	if (r >= 0) {
		v->is_reg = true;
		v->reg = (uint8_t)r;
		return advance(p);
	}
	if (param_find(p, ti, &name) >= 0)
		return perr(p, name.line, "unsupported: address of location '%.*s' as a value",
			    (int)name.len, name.s);
	rc = advance(p);
	if (rc)
		return rc;
	if (at(p, "("))
		return perr(p, name.line, "unsupported: %.*s as an operand",
			    (int)(name.len > 40 ? 40 : name.len), name.s);
	return perr(p, name.line, "unknown register '%.*s' in %s",
		    (int)(name.len > 40 ? 40 : name.len), name.s, th->name);
}

/* A call to a known macro/function c (its name already consumed, p->tok is '('). dst is the
 * register receiving the result, -1 in statement position. */
static int parse_call(struct parser *p, unsigned ti, const struct call *c, const struct token *name,
		      int dst)
{
	struct lit_thread *th = &p->t->threads[ti];
	struct lit_op op;
	struct lit_val v1 = {0}, v2 = {0};
	uint8_t loc = 0, scope = LIT_SCOPE_DEFAULT;
	uint8_t order = c->order;
	bool valfirst = c->flags & F_VALFIRST;
	int mo = -1, mo2, rc;
	struct lit_op *slot;
	const int nlen = (int)name->len;

	if (dst >= 0 && (c->cls == C_STORE || c->cls == C_FENCE || (c->flags & F_NORESULT)))
		return perr(p, name->line, "unsupported: using the result of %.*s", nlen, name->s);
	if (dst < 0 && c->cls == C_LOAD)
		return perr(p, name->line, "unsupported: discarded result of %.*s", nlen, name->s);
	rc = expect(p, "(", "after the function name");
	if (rc)
		return rc;
	if (c->flags & F_EITHER)
		valfirst = !(p->tok.kind == TK_IDENT && param_find(p, ti, &p->tok) >= 0);
	if (valfirst) {
		rc = parse_val(p, ti, &v1);
		if (!rc)
			rc = expect(p, ",", "after the operand");
		if (!rc)
			rc = parse_loc_arg(p, ti, false, &loc);
	} else if (c->cls != C_FENCE) {
		rc = parse_loc_arg(p, ti, c->flags & F_DEREF, &loc);
		if (!rc && (c->cls == C_STORE || c->cls == C_RMW))
			rc = expect(p, ",", "after the location");
		if (!rc && (c->flags & F_CASPTR)) {
			int r;

			rc = expect(p, "&", "before the expected-value register");
			if (rc)
				return rc;
			if (p->tok.kind != TK_IDENT)
				return unexpected(p, "a register after '&'");
			r = reg_find(th, p->tok.s, p->tok.len);
			if (r < 0)
				return perr(p, p->tok.line, "unknown register '%.*s' in %s",
					    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s,
					    th->name);
			dst = r;
			v1.is_reg = true;
			v1.reg = (uint8_t)r;
			rc = advance(p);
			if (!rc)
				rc = expect(p, ",", "after the expected value");
			if (!rc)
				rc = parse_val(p, ti, &v2);
		} else if (!rc && (c->cls == C_STORE || c->cls == C_RMW)) {
			rc = parse_val(p, ti, &v1);
			if (!rc && c->rmw == LIT_RMW_CAS && c->cls == C_RMW) {
				rc = expect(p, ",", "after the expected value");
				if (!rc)
					rc = parse_val(p, ti, &v2);
			}
		}
	}
	if (rc)
		return rc;
	if (c->flags & F_MO) {
		if (c->cls != C_FENCE) {
			rc = expect(p, ",", "before the memory order");
			if (rc)
				return rc;
		}
		rc = parse_mo(p, &mo);
		if (!rc && (c->flags & F_CASPTR)) {
			rc = expect(p, ",", "before the failure memory order");
			if (!rc)
				rc = parse_mo(p, &mo2);
		}
		if (!rc && at(p, ",")) {
			rc = advance(p);
			if (!rc)
				rc = parse_scope(p, &scope);
		}
		if (rc)
			return rc;
		order = mo_order(mo);
	}
	if (at(p, ","))
		return perr(p, p->tok.line, "too many arguments to %.*s", nlen, name->s);
	rc = expect(p, ")", "after the arguments");
	if (rc)
		return rc;

	if (mo >= 0 && c->cls == C_LOAD && (mo == MO_RELEASE || mo == MO_ACQ_REL))
		return perr(p, name->line, "memory order not valid for a load in %.*s", nlen,
			    name->s);
	if (mo >= 0 && c->cls == C_STORE &&
	    (mo == MO_ACQUIRE || mo == MO_CONSUME || mo == MO_ACQ_REL))
		return perr(p, name->line, "memory order not valid for a store in %.*s", nlen,
			    name->s);
	if (c->flags & F_NEG) {
		if (v1.is_reg)
			return perr(p, name->line, "unsupported: %.*s with a register operand",
				    nlen, name->s);
		if (v1.k == INT64_MIN)
			return perr(p, name->line, "number out of range");
		v1.k = -v1.k;
	}

	memset(&op, 0, sizeof(op));
	op.order = order;
	op.scope = scope;
	op.reg = (int8_t)dst;
	/* OpenCL's atomics are atomic accesses (run as such unless --atomics fences) */
	op.atomic = c->cls != C_FENCE && strcmp(p->t->arch, "C") != 0;
	switch (c->cls) {
	case C_LOAD:
		op.kind = LIT_LOAD;
		op.loc = loc;
		break;
	case C_STORE:
		op.kind = LIT_STORE;
		op.loc = loc;
		op.val = v1;
		break;
	case C_RMW:
		op.kind = LIT_RMW;
		op.rmw = c->rmw;
		op.loc = loc;
		op.val = v1;
		op.val2 = v2;
		break;
	default:
		op.kind = LIT_FENCE;
		op.reg = -1;
		if (!(c->flags & F_MO)) {
			op.fence = c->fence;
		} else if (mo == MO_RELAXED) {
			return 0; /* atomic_thread_fence(memory_order_relaxed) has no effect */
		} else {
			static const uint8_t fmap[] = {LIT_FENCE_SC,	  LIT_FENCE_ACQ,
						       LIT_FENCE_ACQ,	  LIT_FENCE_REL,
						       LIT_FENCE_ACQ_REL, LIT_FENCE_SC};

			op.fence = fmap[mo];
		}
		break;
	}
	rc = new_op(p, ti, name->line, &slot);
	if (rc)
		return rc;
	op.line = name->line;
	*slot = op;
	return 0;
}

static bool is_operator(const struct token *tk)
{
	static const char *const ops[] = {"+", "-",  "*",  "/",	 "%",  "&",  "|",  "^",	 "<",
					  ">", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>",
					  "?", ".",  "->", "++", "--", "[",  "!",  "~",	 "="};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (tok_eq(tk, ops[i]))
			return true;
	return false;
}

/* The right-hand side of `reg = ...` / `int reg = ...`. */
static int parse_rhs(struct parser *p, unsigned ti, int dst, unsigned line)
{
	struct lit_op *op;
	int rc;

	if (at(p, "(")) {
		/* a parenthesised right-hand side */
		if (++p->depth > LIT_DEPTH_MAX)
			return perr(p, p->tok.line, "expression nested too deeply");
		rc = advance(p);
		if (!rc)
			rc = parse_rhs(p, ti, dst, line);
		p->depth--;
		if (!rc && !at(p, ")")) {
			char d[64];

			if (is_operator(&p->tok))
				return perr(p, p->tok.line, "unsupported: operator '%s'",
					    tok_text(&p->tok, d, sizeof(d)));
			return unexpected(p, "')'");
		}
		if (!rc)
			rc = advance(p);
		return rc;
	}
	if (at(p, "*")) {
		uint8_t loc;

		rc = advance(p);
		if (!rc)
			rc = parse_loc_arg(p, ti, false, &loc);
		if (!rc)
			rc = new_op(p, ti, line, &op);
		if (rc)
			return rc;
		op->kind = LIT_LOAD;
		op->order = LIT_ONCE;
		op->loc = loc;
		op->reg = (int8_t)dst;
		return 0;
	}
	if (p->tok.kind == TK_IDENT && reg_find(&p->t->threads[ti], p->tok.s, p->tok.len) < 0 &&
	    param_find(p, ti, &p->tok) < 0) {
		struct token name = p->tok;
		const struct call *c;

		rc = advance(p);
		if (rc)
			return rc;
		if (!at(p, "("))
			return perr(p, name.line, "unknown register '%.*s' in %s",
				    (int)(name.len > 40 ? 40 : name.len), name.s,
				    p->t->threads[ti].name);
		c = call_find(&name);
		if (!c)
			return perr(p, name.line, "unsupported: %.*s",
				    (int)(name.len > 40 ? 40 : name.len), name.s);
		return parse_call(p, ti, c, &name, dst);
	}
	{
		struct lit_val v;

		rc = parse_val(p, ti, &v);
		if (!rc)
			rc = new_op(p, ti, line, &op);
		if (rc)
			return rc;
		op->kind = LIT_MOVE;
		op->reg = (int8_t)dst;
		op->val = v;
		return 0;
	}
}

/* The ';' ending a statement; an operator there means an expression we do not model. */
static int end_stmt(struct parser *p)
{
	char d[64];

	if (at(p, ";"))
		return advance(p);
	if (is_operator(&p->tok))
		return perr(p, p->tok.line, "unsupported: operator '%s'",
			    tok_text(&p->tok, d, sizeof(d)));
	return unexpected(p, "';'");
}

static bool is_reg_type_word(const struct token *tk)
{
	return tok_eq(tk, "int") || tok_eq(tk, "long") || tok_eq(tk, "unsigned") ||
	       tok_eq(tk, "signed") || tok_eq(tk, "short") || tok_eq(tk, "char") ||
	       tok_eq(tk, "volatile") || tok_eq(tk, "const") || tok_eq(tk, "intptr_t");
}

/* `int r0;`, `int r0 = expr;`, `int r0, r1 = 1;` */
static int parse_decl(struct parser *p, unsigned ti)
{
	struct lit_thread *th = &p->t->threads[ti];
	int rc = 0;

	while (!rc && is_reg_type_word(&p->tok))
		rc = advance(p);
	if (rc)
		return rc;
	for (;;) {
		struct token name = p->tok;
		int r;

		if (at(p, "*"))
			return perr(p, p->tok.line, "unsupported: pointer register");
		if (name.kind != TK_IDENT)
			return unexpected(p, "a register name in the declaration");
		if (param_find(p, ti, &name) >= 0)
			return perr(p, name.line, "register '%.*s' shadows a location",
				    (int)name.len, name.s);
		if (call_find(&name) || tok_eq(&name, "if") || tok_eq(&name, "else") ||
		    is_reg_type_word(&name))
			return perr(p, name.line, "bad register name '%.*s'", (int)name.len,
				    name.s);
		r = reg_find(th, name.s, name.len);
		if (r >= 0 && (p->declared[ti] & (1u << r)))
			return perr(p, name.line, "register '%.*s' declared twice in %s",
				    (int)name.len, name.s, th->name);
		if (r < 0) {
			rc = reg_add(p, ti, &name, &r);
			if (rc)
				return rc;
		}
		p->declared[ti] |= 1u << r;
		rc = advance(p);
		if (rc)
			return rc;
		if (at(p, "=")) {
			rc = advance(p);
			if (!rc)
				rc = parse_rhs(p, ti, r, name.line);
			if (rc)
				return rc;
		}
		if (!at(p, ","))
			return end_stmt(p);
		rc = advance(p);
		if (rc)
			return rc;
	}
}

static int parse_stmt(struct parser *p, unsigned ti);

/* `{ stmt* }` with p->tok at '{'. */
static int parse_block(struct parser *p, unsigned ti)
{
	unsigned open = p->tok.line;
	int rc = advance(p);

	while (!rc && !at(p, "}")) {
		if (p->tok.kind == TK_EOF)
			return perr(p, open, "unterminated block (missing '}')");
		rc = parse_stmt(p, ti);
	}
	if (rc)
		return rc;
	return advance(p);
}

/* An operand of an if condition. */
static int cond_operand(struct parser *p, unsigned ti, struct lit_val *v)
{
	if (p->tok.kind == TK_IDENT && param_find(p, ti, &p->tok) >= 0)
		return perr(p, p->tok.line, "unsupported: location '%.*s' in an if condition",
			    (int)p->tok.len, p->tok.s);
	return parse_val(p, ti, v);
}

static int parse_if(struct parser *p, unsigned ti)
{
	struct lit_thread *th = &p->t->threads[ti];
	struct lit_op *op;
	unsigned line = p->tok.line, bi;
	struct lit_val a, b = {0};
	uint8_t cmp = LIT_TRUE;
	int rc = advance(p);

	if (!rc)
		rc = expect(p, "(", "after 'if'");
	if (rc)
		return rc;
	if (at(p, "!")) {
		rc = advance(p);
		if (!rc)
			rc = cond_operand(p, ti, &a);
		cmp = LIT_EQ;
	} else {
		rc = cond_operand(p, ti, &a);
		if (!rc && (at(p, "==") || at(p, "!="))) {
			cmp = at(p, "==") ? LIT_EQ : LIT_NE;
			rc = advance(p);
			if (!rc)
				rc = cond_operand(p, ti, &b);
		}
	}
	if (rc)
		return rc;
	if (!at(p, ")")) {
		char d[64];

		if (is_operator(&p->tok))
			return perr(p, p->tok.line, "unsupported: '%s' in an if condition",
				    tok_text(&p->tok, d, sizeof(d)));
		return unexpected(p, "')' after the if condition");
	}
	rc = advance(p);
	if (!rc)
		rc = new_op(p, ti, line, &op);
	if (rc)
		return rc;
	op->kind = LIT_BRANCH;
	op->cmp = cmp;
	op->a = a;
	op->b = b;
	bi = th->nops - 1;
	if (at(p, "{"))
		rc = parse_block(p, ti);
	else
		rc = parse_stmt(p, ti);
	if (rc)
		return rc;
	th->ops[bi].skip = (uint8_t)(th->nops - bi - 1);
	if (at(p, "else"))
		return perr(p, p->tok.line, "unsupported: else");
	return 0;
}

static int parse_stmt_inner(struct parser *p, unsigned ti)
{
	struct lit_thread *th = &p->t->threads[ti];
	struct token name = p->tok;
	const struct call *c;
	int rc;

	if (at(p, ";"))
		return advance(p);
	if (at(p, "{"))
		return parse_block(p, ti);
	if (at(p, "*")) {
		struct lit_op *op;
		struct lit_val v;
		uint8_t loc;

		rc = advance(p);
		if (!rc)
			rc = parse_loc_arg(p, ti, false, &loc);
		if (!rc)
			rc = expect(p, "=", "in the store");
		if (!rc)
			rc = parse_val(p, ti, &v);
		if (!rc)
			rc = new_op(p, ti, name.line, &op);
		if (rc)
			return rc;
		op->kind = LIT_STORE;
		op->order = LIT_ONCE;
		op->loc = loc;
		op->val = v;
		return end_stmt(p);
	}
	if (name.kind != TK_IDENT)
		return unsupported_tok(p);
	if (at(p, "if"))
		return parse_if(p, ti);
	if (at(p, "else"))
		return unsupported_tok(p);
	if (at(p, "exists") || at(p, "forall") || thread_number(&name) >= 0)
		return perr(p, name.line, "missing '}' at the end of %s (found '%.*s')", th->name,
			    (int)(name.len > 40 ? 40 : name.len), name.s);
	if (is_reg_type_word(&name))
		return parse_decl(p, ti);
	c = call_find(&name);
	rc = advance(p);
	if (rc)
		return rc;
	if (at(p, "=")) {
		int r;

		if (c)
			return perr(p, name.line, "cannot assign to %.*s", (int)name.len, name.s);
		if (param_find(p, ti, &name) >= 0)
			return perr(p, name.line,
				    "unsupported: assignment to pointer '%.*s' (write *%.*s)",
				    (int)name.len, name.s, (int)name.len, name.s);
		r = reg_find(th, name.s, name.len);
		if (r < 0) {
			/* first use of an undeclared register: declare it */
			rc = reg_add(p, ti, &name, &r);
			if (rc)
				return rc;
			p->declared[ti] |= 1u << r;
		}
		rc = advance(p);
		if (!rc)
			rc = parse_rhs(p, ti, r, name.line);
		if (rc)
			return rc;
		return end_stmt(p);
	}
	if (c && at(p, "(")) {
		rc = parse_call(p, ti, c, &name, -1);
		if (rc)
			return rc;
		return end_stmt(p);
	}
	return perr(p, name.line, "unsupported: %.*s", (int)(name.len > 40 ? 40 : name.len),
		    name.s);
}

static int parse_stmt(struct parser *p, unsigned ti)
{
	int rc;

	if (++p->depth > LIT_DEPTH_MAX)
		return perr(p, p->tok.line, "statements nested too deeply");
	rc = parse_stmt_inner(p, ti);
	p->depth--;
	return rc;
}

/* ---- threads ------------------------------------------------------------------------------- */

/* A thread's placement after its name (p->tok is the '@'): OpenCL `@wg N, dev N`, PTX
 * `@cta N,gpu N` (the CTA as the work-group, the GPU as the device). */
static int scope_tag(struct parser *p, struct lit_thread *th)
{
	const char *inner = p->ptx ? "cta" : "wg", *outer = p->ptx ? "gpu" : "dev";
	char what[40];
	int rc = advance(p);

	if (rc)
		return rc;
	if (!at(p, inner)) {
		char d[64];

		return perr(p, p->tok.line, "unsupported: scope tag '@%s'",
			    tok_text(&p->tok, d, sizeof(d)));
	}
	rc = advance(p);
	if (!rc)
		rc = parse_small(p, &th->wg, p->ptx ? "a CTA number" : "a work-group number");
	if (!rc)
		rc =
		    expect(p, ",", p->ptx ? "after the CTA number" : "after the work-group number");
	if (rc)
		return rc;
	if (!at(p, outer)) {
		snprintf(what, sizeof(what), "'%s N' in the scope tag", outer);
		return unexpected(p, what);
	}
	rc = advance(p);
	return rc ? rc : parse_small(p, &th->dev, p->ptx ? "a GPU number" : "a device number");
}

static int parse_thread(struct parser *p)
{
	struct litmus_test *t = p->t;
	struct lit_thread *th;
	struct token head = p->tok;
	int n = thread_number(&head);
	unsigned ti = t->nthreads;
	int rc;

	if (n < (int)t->nthreads)
		return perr(p, head.line, "thread P%d defined twice", n);
	if (n > (int)t->nthreads)
		return perr(p, head.line, "thread P%d out of order (expected P%u)", n, t->nthreads);
	if (t->nthreads >= LIT_MAX_THREADS)
		return perr(p, head.line, "too many threads (max %d)", LIT_MAX_THREADS);
	th = &t->threads[t->nthreads++];
	th->name[0] = 'P';
	th->name[1] = (char)('0' + ti);
	th->name[2] = '\0';
	th->wg = -1;
	th->dev = -1;
	rc = advance(p);
	if (!rc && at(p, "@"))
		rc = scope_tag(p, th);
	if (rc)
		return rc;
	if (!at(p, "("))
		return unexpected(p, "'(' after the thread name");
	rc = parse_params(p, ti);
	if (rc)
		return rc;

	rc = init_moves(p, ti, false);
	if (rc)
		return rc;

	if (!at(p, "{"))
		return unexpected(p, "'{' to start the thread body");
	p->c_body = true;
	rc = advance(p);
	while (!rc && !at(p, "}")) {
		if (p->tok.kind == TK_EOF)
			return perr(p, head.line, "unterminated body of %s (missing '}')",
				    th->name);
		rc = parse_stmt(p, ti);
	}
	if (rc)
		return rc;
	p->c_body = false;
	return advance(p);
}

/* ---- X86 column programs (herdtools7 X86, Intel syntax) ------------------------------------- */

/* The general-purpose registers a test may name (32- and 64-bit forms). */
static bool x86_is_reg(const struct token *tk)
{
	static const char *const regs[] = {
	    "EAX", "EBX", "ECX", "EDX", "ESI",	"EDI",	"EBP",	"RAX",	"RBX",	"RCX",
	    "RDX", "RSI", "RDI", "RBP", "R8",	"R9",	"R10",	"R11",	"R12",	"R13",
	    "R14", "R15", "R8D", "R9D", "R10D", "R11D", "R12D", "R13D", "R14D", "R15D"};

	if (tk->kind != TK_IDENT)
		return false;
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (ieq(tk->s, tk->len, regs[i]))
			return true;
	return false;
}

/* One operand: `[loc]`, `$k` or a register. */
struct x86_operand {
	enum { X86_MEM, X86_IMM, X86_REG } kind;
	uint8_t loc;
	int reg;
	int64_t k;
	unsigned line;
};

/* The register of thread ti named by tk, added on first use. */
static int x86_reg(struct parser *p, unsigned ti, const struct token *tk, int *r)
{
	*r = reg_find(&p->t->threads[ti], tk->s, tk->len);
	return *r >= 0 ? 0 : reg_add(p, ti, tk, r);
}

static int x86_operand(struct parser *p, unsigned ti, struct x86_operand *o)
{
	int rc;

	o->line = p->tok.line;
	if (at(p, "[")) {
		struct token name;
		int idx = 0;

		rc = bracketed_loc(p, &name);
		if (!rc && x86_is_reg(&name))
			return perr(p, name.line, "unsupported: indirect address [%.*s]",
				    (int)name.len, name.s);
		if (!rc)
			rc = loc_get(p, &name, &idx);
		o->kind = X86_MEM;
		o->loc = (uint8_t)idx;
		return rc;
	}
	if (at(p, "$")) {
		rc = advance(p);
		o->kind = X86_IMM;
		return rc ? rc : parse_int(p, &o->k, "an integer after '$'");
	}
	if (x86_is_reg(&p->tok)) {
		struct token tk = p->tok;

		o->kind = X86_REG;
		rc = x86_reg(p, ti, &tk, &o->reg);
		return rc ? rc : advance(p);
	}
	if (p->tok.kind == TK_NUM)
		return perr(p, p->tok.line, "expected '$' before the immediate %.*s",
			    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s);
	return unexpected(p, "an operand ('[x]', '$1' or a register such as EAX)");
}

/* Two operands separated by ','. */
static int x86_operands(struct parser *p, unsigned ti, struct x86_operand *a, struct x86_operand *b)
{
	int rc = x86_operand(p, ti, a);

	if (!rc)
		rc = expect(p, ",", "between the operands");
	return rc ? rc : x86_operand(p, ti, b);
}

static void x86_val(const struct x86_operand *o, struct lit_val *v)
{
	v->is_reg = o->kind == X86_REG;
	v->reg = (uint8_t)(o->kind == X86_REG ? o->reg : 0);
	v->k = o->kind == X86_IMM ? o->k : 0;
}

/* One instruction of thread ti (the mnemonic is the current token). */
static int x86_instr(struct parser *p, unsigned ti)
{
	struct token m = p->tok;
	struct x86_operand a = {0}, b = {0};
	struct lit_op *op;
	bool lock = false;
	int rc;

	if (m.kind != TK_IDENT)
		return unexpected(p, "an X86 instruction");
	if (ieq(m.s, m.len, "LOCK")) {
		lock = true;
		rc = advance(p);
		if (rc)
			return rc;
		m = p->tok;
		if (m.kind != TK_IDENT)
			return unexpected(p, "an instruction after LOCK");
	}
	rc = advance(p);
	if (rc)
		return rc;
	if (!lock &&
	    (ieq(m.s, m.len, "MFENCE") || ieq(m.s, m.len, "LFENCE") || ieq(m.s, m.len, "SFENCE"))) {
		rc = new_op(p, ti, m.line, &op);
		if (rc)
			return rc;
		op->kind = LIT_FENCE;
		op->fence = ieq(m.s, m.len, "MFENCE")	? LIT_FENCE_MB
			    : ieq(m.s, m.len, "LFENCE") ? LIT_FENCE_RMB
							: LIT_FENCE_WMB;
		return 0;
	}
	if (!lock && ieq(m.s, m.len, "MOV")) {
		rc = x86_operands(p, ti, &a, &b);
		if (rc)
			return rc;
		if (a.kind == X86_MEM && b.kind == X86_MEM)
			return perr(p, m.line, "MOV from memory to memory");
		if (a.kind == X86_IMM)
			return perr(p, m.line, "MOV into an immediate");
		rc = new_op(p, ti, m.line, &op);
		if (rc)
			return rc;
		if (a.kind == X86_MEM) { /* store */
			op->kind = LIT_STORE;
			op->loc = a.loc;
			x86_val(&b, &op->val);
		} else if (b.kind == X86_MEM) { /* load */
			op->kind = LIT_LOAD;
			op->loc = b.loc;
			op->reg = (int8_t)a.reg;
		} else { /* register move */
			op->kind = LIT_MOVE;
			op->reg = (int8_t)a.reg;
			x86_val(&b, &op->val);
		}
		return 0;
	}
	/* read-modify-writes: XCHG (always locked), LOCK XADD / ADD / INC / DEC / CMPXCHG */
	if (ieq(m.s, m.len, "XCHG") ||
	    (lock &&
	     (ieq(m.s, m.len, "XADD") || ieq(m.s, m.len, "ADD") || ieq(m.s, m.len, "CMPXCHG")))) {
		bool xchg = ieq(m.s, m.len, "XCHG"), cmpxchg = ieq(m.s, m.len, "CMPXCHG");

		rc = x86_operands(p, ti, &a, &b);
		if (rc)
			return rc;
		if (xchg && b.kind == X86_MEM) { /* XCHG r,[x] is XCHG [x],r */
			struct x86_operand t = a;

			a = b;
			b = t;
		}
		if (a.kind != X86_MEM)
			return perr(p, m.line, "%.*s needs a memory operand first", (int)m.len,
				    m.s);
		if (b.kind == X86_MEM || (b.kind == X86_IMM && !ieq(m.s, m.len, "ADD")))
			return perr(p, m.line, "%.*s needs a register as its second operand",
				    (int)m.len, m.s);
		rc = new_op(p, ti, m.line, &op);
		if (rc)
			return rc;
		op->kind = LIT_RMW;
		op->order = LIT_SC;
		op->loc = a.loc;
		if (cmpxchg) { /* EAX = old; [x] = b if old == EAX */
			struct token eax = {.kind = TK_IDENT, .line = m.line, .s = "EAX", .len = 3};
			int r;

			rc = x86_reg(p, ti, &eax, &r);
			if (rc)
				return rc;
			op->rmw = LIT_RMW_CAS;
			op->reg = (int8_t)r;
			op->val.is_reg = true;
			op->val.reg = (uint8_t)r;
			x86_val(&b, &op->val2);
			return 0;
		}
		op->rmw = xchg ? LIT_RMW_XCHG : LIT_RMW_ADD;
		op->reg = (int8_t)(ieq(m.s, m.len, "ADD") ? -1 : b.reg);
		x86_val(&b, &op->val);
		return 0;
	}
	if (lock && (ieq(m.s, m.len, "INC") || ieq(m.s, m.len, "DEC"))) {
		rc = x86_operand(p, ti, &a);
		if (rc)
			return rc;
		if (a.kind != X86_MEM)
			return perr(p, m.line, "LOCK %.*s needs a memory operand", (int)m.len, m.s);
		rc = new_op(p, ti, m.line, &op);
		if (rc)
			return rc;
		op->kind = LIT_RMW;
		op->order = LIT_SC;
		op->rmw = LIT_RMW_ADD;
		op->loc = a.loc;
		op->val.k = ieq(m.s, m.len, "INC") ? 1 : -1;
		return 0;
	}
	return perr(p, m.line, "unsupported: X86 instruction %s%.*s", lock ? "LOCK " : "",
		    (int)(m.len > 40 ? 40 : m.len), m.s);
}

/* ---- PTX column programs (herd's GPU_PTX of 2015, Dat3M's PTX 6) --------------------------- */

/* Memory semantics a PTX access or fence names. */
enum ptx_sem {
	PS_NONE = 0,
	PS_WEAK,
	PS_RELAXED,
	PS_ACQUIRE,
	PS_RELEASE,
	PS_VOLATILE,
	PS_ACQ_REL,
	PS_SC
};

/* The qualifiers after a mnemonic: `.sem`, `.scope`, a cache operator, `.global`, a type. */
struct ptx_quals {
	int sem;   /* enum ptx_sem */
	int scope; /* enum lit_scope, -1: none; membar's .gl is DEVICE */
	int co;	   /* enum lit_co */
	bool gl;   /* the scope was written .gl (membar's word) */
};

static int ptx_quals(struct parser *p, const struct token *m, struct ptx_quals *q)
{
	static const char *const sems[] = {"",	      "weak",	  "relaxed", "acquire",
					   "release", "volatile", "acq_rel", "sc"};
	static const char *const cos[] = {"", "ca", "cg", "cv"};
	const int mlen = (int)(m->len > 20 ? 20 : m->len);

	memset(q, 0, sizeof(*q));
	q->scope = -1;
	while (at(p, ".")) {
		struct token w;
		int sem = 0, co = 0, scope = -1, rc = ptx_qualifier(p, &w);

		if (rc)
			return rc;
		for (int i = 1; i < (int)(sizeof(sems) / sizeof(sems[0])); i++)
			if (tok_eq(&w, sems[i]))
				sem = i;
		for (int i = 1; i < (int)(sizeof(cos) / sizeof(cos[0])); i++)
			if (tok_eq(&w, cos[i]))
				co = i;
		if (tok_eq(&w, "cta"))
			scope = LIT_SCOPE_WG;
		else if (tok_eq(&w, "gpu") || tok_eq(&w, "gl"))
			scope = LIT_SCOPE_DEVICE;
		else if (tok_eq(&w, "sys"))
			scope = LIT_SCOPE_SYSTEM;
		if ((sem && q->sem) || (co && q->co) || (scope >= 0 && q->scope >= 0))
			return perr(p, w.line, "%.*s: .%.*s repeats a kind of qualifier", mlen,
				    m->s, (int)(w.len > 20 ? 20 : w.len), w.s);
		if (sem)
			q->sem = sem;
		else if (co)
			q->co = co;
		else if (scope >= 0)
			q->scope = scope, q->gl = tok_eq(&w, "gl");
		else if (!tok_eq(&w, "global") && !tok_eq(&w, "s32") && !tok_eq(&w, "u32") &&
			 !tok_eq(&w, "b32"))
			return perr(p, w.line, "unsupported: .%.*s in %.*s",
				    (int)(w.len > 20 ? 20 : w.len), w.s, mlen, m->s);
	}
	return 0;
}

/* The register of thread ti named by the current token, used as a value or a destination (role,
 * for the message when it is a location or holds an address); added on first use. */
static int ptx_value_reg(struct parser *p, unsigned ti, const char *role, int *r)
{
	struct token tk = p->tok;
	int rc;

	if (tk.kind != TK_IDENT)
		return unexpected(p, "a register");
	if (reg_find(&p->t->threads[ti], tk.s, tk.len) < 0 && loc_find(p->t, tk.s, tk.len) >= 0)
		return perr(p, tk.line, "'%.*s' is a location, expected a register as the %s",
			    (int)tk.len, tk.s, role);
	rc = x86_reg(p, ti, &tk, r);
	if (rc)
		return rc;
	if (p->aloc[ti][*r])
		return perr(p, tk.line, "unsupported: address register '%.*s' as the %s",
			    (int)tk.len, tk.s, role);
	return advance(p);
}

/* An address: `[r]` (r holds a location's address), `[x]` or `x`. */
static int ptx_address(struct parser *p, unsigned ti, uint8_t *loc)
{
	bool bracket = at(p, "[");
	struct token tk;
	int r, idx, rc = bracket ? advance(p) : 0;

	if (rc)
		return rc;
	tk = p->tok;
	if (tk.kind != TK_IDENT)
		return unexpected(p, "an address such as '[r1]' or 'x'");
	r = reg_find(&p->t->threads[ti], tk.s, tk.len);
	if (r >= 0 && !p->aloc[ti][r])
		return perr(p, tk.line,
			    "register '%.*s' holds no address (declare it '.reg .b64 %.*s = x')",
			    (int)tk.len, tk.s, (int)tk.len, tk.s);
	if (r >= 0) {
		idx = p->aloc[ti][r] - 1;
	} else if (!strcmp(p->t->arch, "GPU_PTX") && loc_find(p->t, tk.s, tk.len) < 0) {
		return perr(p, tk.line,
			    "unknown address '%.*s' (neither a register nor a location)",
			    (int)(tk.len > 40 ? 40 : tk.len), tk.s);
	} else {
		rc = loc_get(p, &tk, &idx);
		if (rc)
			return rc;
	}
	*loc = (uint8_t)idx;
	rc = advance(p);
	if (rc || !bracket)
		return rc;
	if (at(p, "+"))
		return perr(p, p->tok.line, "unsupported: address offset");
	return expect(p, "]", "after the address");
}

/* A value operand: an integer or a value register. */
static int ptx_value(struct parser *p, unsigned ti, struct lit_val *v)
{
	int r, rc;

	memset(v, 0, sizeof(*v));
	if (p->tok.kind == TK_NUM || at(p, "-"))
		return parse_int(p, &v->k, "an integer");
	rc = ptx_value_reg(p, ti, "value", &r);
	v->is_reg = true;
	v->reg = (uint8_t)r;
	return rc;
}

/* ld / st: semantics, scope and cache operator as PTX allows them together. */
static int ptx_access_check(struct parser *p, const struct token *m, const struct ptx_quals *q,
			    bool load)
{
	const int mlen = (int)m->len;
	bool strong = q->sem == PS_RELAXED || q->sem == PS_ACQUIRE || q->sem == PS_RELEASE;

	if (q->sem == PS_ACQ_REL || q->sem == PS_SC || q->sem == (load ? PS_RELEASE : PS_ACQUIRE))
		return perr(p, m->line, "%.*s cannot be .%s", mlen, m->s,
			    q->sem == PS_ACQ_REL   ? "acq_rel"
			    : q->sem == PS_SC	   ? "sc"
			    : q->sem == PS_RELEASE ? "release"
						   : "acquire");
	if (strong && q->scope < 0)
		return perr(p, m->line, "%.*s needs a scope (.cta, .gpu or .sys)", mlen, m->s);
	if (!strong && q->scope >= 0)
		return perr(p, m->line, "%.*s: a scope needs .relaxed, .acquire or .release", mlen,
			    m->s);
	if (q->gl)
		return perr(p, m->line, "unsupported: .gl in %.*s (write .gpu)", mlen, m->s);
	if (q->co && (strong || q->sem == PS_VOLATILE))
		return perr(p, m->line, "%.*s: a cache operator on a %s access", mlen, m->s,
			    strong ? "strong" : "volatile");
	return 0;
}

/* One PTX instruction of thread ti (the mnemonic is the current token): mov, ld, st, membar,
 * fence. */
static int ptx_instr(struct parser *p, unsigned ti)
{
	struct token m = p->tok;
	struct ptx_quals q;
	struct lit_op *op;
	const int mlen = (int)(m.len > 40 ? 40 : m.len);
	bool ld = tok_eq(&m, "ld"), st = tok_eq(&m, "st");
	int rc;

	if (m.kind != TK_IDENT)
		return unexpected(p, "a PTX instruction");
	if (!ld && !st && !tok_eq(&m, "mov") && !tok_eq(&m, "membar") && !tok_eq(&m, "fence"))
		return perr(p, m.line, "unsupported: PTX instruction %.*s", mlen, m.s);
	rc = advance(p);
	if (!rc)
		rc = ptx_quals(p, &m, &q);
	if (!rc)
		rc = new_op(p, ti, m.line, &op);
	if (rc)
		return rc;
	if (tok_eq(&m, "membar") || tok_eq(&m, "fence")) {
		bool membar = tok_eq(&m, "membar");

		if (q.scope < 0 || q.co || (q.scope == LIT_SCOPE_DEVICE && q.gl != membar))
			return perr(p, m.line, "%s needs a scope (%s)", membar ? "membar" : "fence",
				    membar ? ".cta, .gl or .sys" : ".cta, .gpu or .sys");
		if (membar ? q.sem != PS_NONE : q.sem != PS_ACQ_REL && q.sem != PS_SC)
			return perr(p, m.line, "%s",
				    membar ? "membar takes no semantics"
					   : "fence needs .acq_rel or .sc");
		op->kind = LIT_FENCE;
		op->fence = q.sem == PS_SC ? LIT_FENCE_SC : LIT_FENCE_ACQ_REL;
		op->order = q.sem == PS_SC ? LIT_SC : LIT_ACQ_REL;
		op->scope = (uint8_t)q.scope;
		op->atomic = true;
		return 0;
	}
	if (tok_eq(&m, "mov")) {
		int r;

		if (q.sem || q.co || q.scope >= 0)
			return perr(p, m.line, "mov takes a type only (mov.s32)");
		rc = ptx_value_reg(p, ti, "destination", &r);
		if (!rc)
			rc = expect(p, ",", "between the operands");
		if (!rc)
			rc = ptx_value(p, ti, &op->val);
		op->kind = LIT_MOVE;
		op->reg = (int8_t)r;
		return rc;
	}
	rc = ptx_access_check(p, &m, &q, ld);
	if (rc)
		return rc;
	op->order = q.sem == PS_ACQUIRE	  ? LIT_ACQUIRE
		    : q.sem == PS_RELEASE ? LIT_RELEASE
					  : LIT_ONCE;
	op->scope = (uint8_t)(q.scope < 0 ? LIT_SCOPE_DEFAULT : q.scope);
	op->atomic = q.scope >= 0;
	op->co = (uint8_t)(q.sem == PS_VOLATILE ? LIT_CO_CV : q.co);
	if (ld) {
		int r;

		op->kind = LIT_LOAD;
		rc = ptx_value_reg(p, ti, "destination", &r);
		op->reg = (int8_t)r;
		if (!rc)
			rc = expect(p, ",", "between the operands");
		return rc ? rc : ptx_address(p, ti, &op->loc);
	}
	op->kind = LIT_STORE;
	rc = ptx_address(p, ti, &op->loc);
	if (!rc)
		rc = expect(p, ",", "between the operands");
	return rc ? rc : ptx_value(p, ti, &op->val);
}

/* ---- column programs (X86, PTX) ------------------------------------------------------------ */

/* Is the current token where the program ends (the condition or a section after it: herd's
 * sections, a GPU_PTX scopeTree or memory map `x: global`)? */
static bool column_program_end(struct parser *p)
{
	const char *s = p->src + p->pos;

	if (p->tok.kind == TK_EOF || at(p, "exists") || at(p, "~") || at(p, "forall") ||
	    at(p, "locations") || at(p, "filter") || at(p, "scopeTree"))
		return true;
	if (p->tok.kind != TK_IDENT)
		return false;
	while (is_space_tab(*s))
		s++;
	return *s == ':';
}

/* `P0 | P1 ... ;` (PTX: `P0@cta 0,gpu 0 | ...`) then rows of cells `instr | instr ... ;` (a
 * cell may be empty). */
static int parse_column_program(struct parser *p)
{
	struct litmus_test *t = p->t;
	int (*instr)(struct parser *, unsigned) = p->ptx ? ptx_instr : x86_instr;
	unsigned n = 0;
	int rc;

	for (;;) {
		int tn = thread_number(&p->tok);
		struct lit_thread *th;

		if (tn < 0)
			return unexpected(p, n ? "a thread name such as 'P1'"
					       : "the thread row 'P0 | P1 ... ;'");
		if (tn != (int)n)
			return perr(p, p->tok.line, "thread P%d out of order (expected P%u)", tn,
				    n);
		if (n >= LIT_MAX_THREADS)
			return perr(p, p->tok.line, "too many threads (max %d)", LIT_MAX_THREADS);
		th = &t->threads[n];
		snprintf(th->name, sizeof(th->name), "P%u", n);
		th->wg = th->dev = -1;
		t->nthreads = ++n;
		rc = advance(p);
		if (!rc && at(p, "@")) {
			if (!p->ptx)
				return perr(p, p->tok.line, "unsupported: scope tag in an %s test",
					    t->arch);
			rc = scope_tag(p, th);
		}
		if (rc)
			return rc;
		if (at(p, ";"))
			break;
		rc = expect(p, "|", "between thread names (or ';' to end the row)");
		if (rc)
			return rc;
	}
	rc = advance(p);
	if (rc)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		rc = init_moves(p, i, true);
		if (rc)
			return rc;
	}
	while (!column_program_end(p)) {
		unsigned row = p->tok.line;

		for (unsigned col = 0; col < n; col++) {
			if (!at(p, "|") && !at(p, ";")) {
				rc = instr(p, col);
				if (rc)
					return rc;
			}
			if (col + 1 < n && at(p, ";"))
				return perr(p, row,
					    "row has %u cells, expected %u (one per thread)",
					    col + 1, n);
			rc = expect(p, col + 1 < n ? "|" : ";",
				    col + 1 < n ? "between cells" : "at the end of the row");
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---- sections after the threads ------------------------------------------------------------ */

/* `(LEVEL item*)` of a scopeTree; dev/wg are the enclosing device and work-group numbers.
 * OpenCL levels: device, work_group, sub_group; GPU_PTX: device, kernel, cta (the work-group),
 * warp (one thread: each runs as a warp of its own). */
static int parse_sexpr(struct parser *p, unsigned depth, int dev, int wg, int *ndev, int *nwg,
		       uint32_t *placed)
{
	struct litmus_test *t = p->t;
	const char *group = p->ptx ? "cta" : "work_group";
	bool warp = false;
	unsigned threads = 0;
	int rc;

	if (depth > LIT_DEPTH_MAX)
		return perr(p, p->tok.line, "scopeTree nested too deeply");
	rc = expect(p, "(", "in the scopeTree");
	if (rc)
		return rc;
	if (at(p, "device")) {
		dev = (*ndev)++;
	} else if (at(p, group)) {
		if (wg >= 0)
			return perr(p, p->tok.line, "%s inside a %s", group, group);
		wg = (*nwg)++;
	} else if (p->ptx && at(p, "warp")) {
		warp = true;
	} else if (!(p->ptx ? at(p, "kernel") : at(p, "sub_group"))) {
		char d[64];

		if (p->tok.kind == TK_IDENT)
			return perr(p, p->tok.line, "unsupported: scope level %s",
				    tok_text(&p->tok, d, sizeof(d)));
		return unexpected(p, p->ptx ? "a scope level (device, kernel, cta, warp)"
					    : "a scope level (device, work_group)");
	}
	rc = advance(p);
	while (!rc && !at(p, ")")) {
		int n = thread_number(&p->tok);

		if (at(p, "(")) {
			rc = parse_sexpr(p, depth + 1, dev, wg, ndev, nwg, placed);
			continue;
		}
		if (n < 0)
			return unexpected(p, "a thread or '(' in the scopeTree");
		if (n >= (int)t->nthreads)
			return perr(p, p->tok.line, "scopeTree names P%d, which is not a thread",
				    n);
		if (*placed & (1u << n))
			return perr(p, p->tok.line, "P%d appears twice in the scopeTree", n);
		if (wg < 0)
			return perr(p, p->tok.line, "P%d is not inside a %s", n, group);
		if (warp && threads++)
			return perr(p, p->tok.line,
				    "unsupported: two threads in one warp (each thread runs as a "
				    "warp of its own)");
		*placed |= 1u << n;
		t->threads[n].wg = wg;
		t->threads[n].dev = dev < 0 ? 0 : dev;
		rc = advance(p);
	}
	if (rc)
		return rc;
	return advance(p);
}

static int parse_scope_tree(struct parser *p)
{
	int ndev = 0, nwg = 0;
	uint32_t placed = 0;
	int rc = advance(p); /* scopeTree */

	if (!rc && !at(p, "("))
		return unexpected(p, "'(' after scopeTree");
	while (!rc && at(p, "("))
		rc = parse_sexpr(p, 0, -1, -1, &ndev, &nwg, &placed);
	return rc;
}

/* `x: global, y: local` (a herd memory map); p->tok is the ':' after name. */
static int parse_memory_map(struct parser *p, struct token name)
{
	for (;;) {
		int i = loc_find(p->t, name.s, name.len);
		int rc = advance(p); /* ':' */

		if (rc)
			return rc;
		if (i < 0)
			return perr(p, name.line, "memory map names unknown location '%.*s'",
				    (int)(name.len > 40 ? 40 : name.len), name.s);
		if (at(p, "local") || at(p, "shared"))
			p->t->locs[i].local = true;
		else if (at(p, "global"))
			p->t->locs[i].local = false;
		else
			return unexpected(p, "'global' or 'local' in the memory map");
		rc = advance(p);
		if (!rc && at(p, ","))
			rc = advance(p);
		if (rc)
			return rc;
		if (p->tok.kind != TK_IDENT || at(p, "exists") || at(p, "forall") ||
		    at(p, "scopeTree") || at(p, "locations"))
			return 0;
		name = p->tok;
		rc = advance(p);
		if (rc)
			return rc;
		if (!at(p, ":"))
			return perr(p, name.line, "expected 'exists' or '~exists', found '%.*s'",
				    (int)(name.len > 40 ? 40 : name.len), name.s);
	}
}

/* `locations [x; 0:r0;]`: what herd prints; nothing to do for us. */
static int skip_locations(struct parser *p)
{
	unsigned line = p->tok.line;
	int rc = advance(p);

	if (!rc)
		rc = expect(p, "[", "after 'locations'");
	while (!rc && !at(p, "]")) {
		if (p->tok.kind == TK_EOF)
			return perr(p, line, "unterminated locations section (missing ']')");
		rc = advance(p);
	}
	if (rc)
		return rc;
	return advance(p);
}

/* ---- final condition ----------------------------------------------------------------------- */

static int parse_atom(struct parser *p)
{
	struct litmus_test *t = p->t;
	struct lit_cond *cond = &t->cond;
	struct lit_atom atom;
	struct token first = p->tok;
	int tid = -1, rc;

	memset(&atom, 0, sizeof(atom));
	if (cond->natoms >= LIT_MAX_ATOMS)
		return perr(p, first.line, "too many atoms in the condition (max %d)",
			    LIT_MAX_ATOMS);
	if (at(p, "[")) {
		rc = bracketed_loc(p, &first);
		if (rc)
			return rc;
	} else if (first.kind == TK_NUM || first.kind == TK_IDENT) {
		rc = advance(p);
		if (rc)
			return rc;
		if (at(p, ":")) {
			tid = first.kind == TK_NUM ? (first.num < 1000 ? (int)first.num : 1000)
						   : thread_number(&first);
			if (tid < 0)
				return perr(p, first.line, "bad thread name '%.*s'",
					    (int)(first.len > 40 ? 40 : first.len), first.s);
		} else if (first.kind == TK_NUM) {
			return unexpected(p, "':' after the thread number");
		}
	} else if (at(p, "~") || at(p, "!")) {
		return perr(p, first.line, "unsupported: negation inside the condition");
	} else {
		return unexpected(p, "an atom such as '0:r0=1' or 'x=1'");
	}

	if (tid >= 0) {
		struct lit_thread *th;
		int r;

		rc = advance(p); /* ':' */
		if (rc)
			return rc;
		if (tid >= (int)t->nthreads)
			return perr(p, first.line,
				    "condition names thread %d, which does not exist", tid);
		th = &t->threads[tid];
		if (p->tok.kind != TK_IDENT)
			return unexpected(p, "a register name");
		r = reg_find(th, p->tok.s, p->tok.len);
		if (r < 0)
			return perr(p, p->tok.line, "unknown register %d:%.*s in the condition",
				    tid, (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s);
		atom.thread = (uint8_t)tid;
		atom.reg = (uint8_t)r;
		rc = advance(p);
		if (rc)
			return rc;
	} else {
		int i;

		if (first.kind != TK_IDENT)
			return unexpected(p, "a location name");
		if (tok_eq(&first, "not") || tok_eq(&first, "true") || tok_eq(&first, "false"))
			return perr(p, first.line, "unsupported: %.*s in the condition",
				    (int)first.len, first.s);
		/* a location named only here holds 0, as herd7 gives it (no thread touches it) */
		rc = loc_get(p, &first, &i);
		if (rc)
			return rc;
		atom.is_loc = true;
		atom.loc = (uint8_t)i;
	}
	if (at(p, "!=") && !p->ptx)
		return perr(p, p->tok.line, "unsupported: '!=' in the condition");
	if (!at(p, "=") && !at(p, "==") && !at(p, "!="))
		return unexpected(p, "'=' in the condition");
	atom.ne = at(p, "!=");
	rc = advance(p);
	if (rc)
		return rc;
	if (p->tok.kind == TK_IDENT)
		return perr(p, p->tok.line,
			    "unsupported: non-integer value '%.*s' in the condition",
			    (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.s);
	rc = parse_int(p, &atom.value, "an integer value");
	if (rc)
		return rc;
	cond->atoms[cond->natoms++] = atom;
	return 0;
}

static int parse_conj(struct parser *p, unsigned depth);

static int parse_primary(struct parser *p, unsigned depth)
{
	int rc;

	if (!at(p, "("))
		return parse_atom(p);
	if (depth > LIT_DEPTH_MAX)
		return perr(p, p->tok.line, "condition nested too deeply");
	rc = advance(p);
	if (!rc)
		rc = parse_conj(p, depth + 1);
	if (!rc)
		rc = expect(p, ")", "in the condition");
	return rc;
}

static int parse_conj(struct parser *p, unsigned depth)
{
	int rc = parse_primary(p, depth);

	while (!rc && at(p, "/\\")) {
		rc = advance(p);
		if (!rc)
			rc = parse_primary(p, depth);
	}
	if (!rc && at(p, "\\/"))
		return perr(p, p->tok.line, "unsupported: disjunction");
	return rc;
}

static int parse_condition(struct parser *p)
{
	struct lit_cond *cond = &p->t->cond;
	int rc;

	if (at(p, "~")) {
		cond->negated = true;
		rc = advance(p);
		if (rc)
			return rc;
	}
	if (at(p, "forall"))
		return perr(p, p->tok.line, "unsupported: forall");
	if (!at(p, "exists"))
		return unexpected(p, "'exists' or '~exists'");
	rc = advance(p);
	if (!rc)
		rc = parse_conj(p, 0);
	if (rc)
		return rc;
	if (p->tok.kind != TK_EOF) {
		char d[64];

		if (at(p, "\\/"))
			return perr(p, p->tok.line, "unsupported: disjunction");
		return perr(p, p->tok.line, "unexpected %s after the final condition",
			    tok_desc(&p->tok, d, sizeof(d)));
	}
	return 0;
}

/* ---- the whole test ------------------------------------------------------------------------ */

static bool name_is_coherence(const char *name)
{
	return name[0] == 'C' && name[1] == 'o' &&
	       (isupper((unsigned char)name[2]) || !strncmp(name + 2, "herence", 7));
}

static int parse_test(struct parser *p)
{
	struct litmus_test *t = p->t;
	unsigned first, ops = 0;
	int rc;

	rc = parse_header(p);
	if (!rc)
		rc = parse_meta(p);
	if (!rc)
		rc = advance(p);
	if (!rc && at(p, "{"))
		rc = parse_init(p);
	if (rc)
		return rc;
	first = p->tok.line;
	if (!strcmp(t->arch, "X86") || p->ptx) {
		rc = parse_column_program(p);
		if (rc)
			return rc;
		for (unsigned i = 0; i < t->nthreads; i++)
			ops += t->threads[i].nops;
	} else if (thread_number(&p->tok) < 0) {
		if (p->tok.kind == TK_IDENT && !at(p, "exists"))
			return unsupported_tok(p);
		return unexpected(p, "a thread such as 'P0(int *x)'");
	}
	while (thread_number(&p->tok) >= 0) {
		rc = parse_thread(p);
		if (rc)
			return rc;
		ops += t->threads[t->nthreads - 1].nops;
	}
	for (unsigned i = 0; i < p->npend; i++)
		if (!p->pend[i].used)
			return perr(p, p->pend[i].line,
				    "register initialised for P%u, which does not exist",
				    p->pend[i].thread);
	for (;;) {
		if (at(p, "scopeTree")) {
			rc = parse_scope_tree(p);
		} else if (at(p, "locations")) {
			rc = skip_locations(p);
		} else if (p->tok.kind == TK_IDENT && !at(p, "exists") && !at(p, "forall")) {
			struct token name = p->tok;

			rc = advance(p);
			if (rc)
				return rc;
			if (!at(p, ":")) {
				if (name.len == 6 && !memcmp(name.s, "filter", 6))
					return perr(p, name.line, "unsupported: filter");
				return perr(p, name.line,
					    "expected 'exists' or '~exists', found '%.*s'",
					    (int)(name.len > 40 ? 40 : name.len), name.s);
			}
			rc = parse_memory_map(p, name);
		} else {
			break;
		}
		if (rc)
			return rc;
	}
	rc = parse_condition(p);
	if (rc)
		return rc;
	/* threads that do nothing test nothing: the run would pass vacuously */
	if (!ops)
		return perr(p, first, "no thread has an instruction (nothing to test)");
	if (name_is_coherence(t->name))
		t->coherence = true;
	return 0;
}

int litmus_parse_string(const char *text, const char *path, struct litmus_test **out,
			struct cs_err *err)
{
	struct parser *p;
	struct litmus_test *t;
	int rc;

	if (out)
		*out = NULL;
	if (!path)
		path = "<string>";
	if (!text || !out)
		return cs_err_set(err, -CS_EINVAL, "%s: no text to parse", path);
	t = calloc(1, sizeof(*t));
	p = calloc(1, sizeof(*p));
	if (!t || !p) {
		rc = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	snprintf(t->path, sizeof(t->path), "%s", path);
	p->src = text;
	p->line = 1;
	p->t = t;
	p->path = path;
	p->err = err;
	rc = parse_test(p);
	if (rc)
		goto fail;
	free(p);
	*out = t;
	return 0;
fail:
	free(p);
	free(t);
	return rc;
}

int litmus_parse_file(const char *path, struct litmus_test **out, struct cs_err *err)
{
	char *buf = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (!path || !out)
		return cs_err_set(err, -CS_EINVAL, "litmus_parse_file: no file name");
	rc = cs_read_file(path, path, CS_TEXT_FILE_MAX, "a litmus test", 1, &buf, NULL, err);
	if (!rc)
		rc = litmus_parse_string(buf, path, out, err);
	free(buf);
	return rc;
}

void litmus_free(struct litmus_test *t)
{
	free(t);
}
