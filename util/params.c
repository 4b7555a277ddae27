/*
 * util/params.c - parameter tables: defaults, value parsing and checking, typo suggestions and
 * libconfig text output. File reading lives in util/config.c; this file knows no libconfig API,
 * only its text syntax (for the dump).
 */
#include "util/params.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIELD(base, p, type)  ((type *)((char *)(base) + (p)->offset))
#define CFIELD(base, p, type) ((const type *)((const char *)(base) + (p)->offset))
/* Words longer than this are never "near" anything: keeps cs_nearest allocation-free. */
#define CS_NEAREST_MAX	      64
/* An escaped string is at most 4 bytes per input byte ("\xNN"), plus quotes and NUL. */
#define CS_PARAM_FMT_MAX      (CS_PARAM_STR_MAX * 4 + 8)

static size_t ptype_size(enum cs_ptype type)
{
	switch (type) {
	case CS_P_BOOL:
		return sizeof(bool);
	case CS_P_INT:
		return sizeof(int64_t);
	case CS_P_UINT:
		return sizeof(uint64_t);
	case CS_P_DOUBLE:
		return sizeof(double);
	case CS_P_STRING:
		return CS_PARAM_STR_MAX;
	case CS_P_ENUM:
		return sizeof(unsigned);
	}
	return 0;
}

const char *cs_ptype_name(enum cs_ptype type)
{
	switch (type) {
	case CS_P_BOOL:
		return "a boolean";
	case CS_P_INT:
		return "an integer";
	case CS_P_UINT:
		return "an unsigned integer";
	case CS_P_DOUBLE:
		return "a number";
	case CS_P_STRING:
	case CS_P_ENUM:
		return "a string";
	}
	return "a value";
}

size_t cs_params_count(const struct cs_param_table *t)
{
	size_t n = 0;

	while (t->params[n].key)
		n++;
	return n;
}

const struct cs_param *cs_param_find(const struct cs_param_table *t, const char *key)
{
	const struct cs_param *p;

	for (p = t->params; p->key; p++)
		if (!strcmp(p->key, key))
			return p;
	return NULL;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transposition), ignoring case. */
static size_t osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t r0[CS_NEAREST_MAX + 1], r1[CS_NEAREST_MAX + 1], r2[CS_NEAREST_MAX + 1];
	size_t *pp = r0, *prev = r1, *cur = r2, *tmp;
	size_t i, j;

	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t d = prev[j] + 1;

			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			cur[j] = d;
		}
		tmp = pp;
		pp = prev;
		prev = cur;
		cur = tmp;
	}
	return prev[lb];
}

const char *cs_nearest(const char *word, const char *const *candidates, size_t n)
{
	size_t lw = strlen(word), limit, best_d = SIZE_MAX, i;
	const char *best = NULL;

	if (lw == 0 || lw > CS_NEAREST_MAX)
		return NULL;
	limit = lw / 3 > 2 ? lw / 3 : 2;
	for (i = 0; i < n; i++) {
		size_t lc, d;

		if (!candidates[i])
			continue;
		lc = strlen(candidates[i]);
		if (lc > CS_NEAREST_MAX)
			continue;
		d = osa_distance(word, lw, candidates[i], lc);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	if (!best || best_d > limit || best_d >= lw)
		return NULL;
	return best;
}

static bool range_checked(const struct cs_param *p)
{
	return p->min != 0 || p->max != 0;
}

static int range_error(const struct cs_param *p, const char *where, struct cs_err *err)
{
	return cs_err_set(err, -CS_ERANGE, "%s: out of range [%.15g, %.15g]", where, p->min,
			  p->max);
}

static int wrong_type(const struct cs_param *p, enum cs_ptype want, const char *where,
		      struct cs_err *err)
{
	if (p->type == want || (want == CS_P_STRING && p->type == CS_P_ENUM))
		return 0;
	return cs_err_set(err, -CS_EINVAL, "%s: parameter '%s' is not %s", where, p->key,
			  cs_ptype_name(want));
}

int cs_param_set_bool(const struct cs_param *p, bool v, void *dst, const char *where,
		      struct cs_err *err)
{
	int rc = wrong_type(p, CS_P_BOOL, where, err);

	if (rc)
		return rc;
	*FIELD(dst, p, bool) = v;
	return 0;
}

int cs_param_set_int(const struct cs_param *p, int64_t v, void *dst, const char *where,
		     struct cs_err *err)
{
	int rc = wrong_type(p, CS_P_INT, where, err);

	if (rc)
		return rc;
	if (range_checked(p) && ((double)v < p->min || (double)v > p->max))
		return range_error(p, where, err);
	*FIELD(dst, p, int64_t) = v;
	return 0;
}

int cs_param_set_uint(const struct cs_param *p, uint64_t v, void *dst, const char *where,
		      struct cs_err *err)
{
	int rc = wrong_type(p, CS_P_UINT, where, err);

	if (rc)
		return rc;
	if (range_checked(p) && ((double)v < p->min || (double)v > p->max))
		return range_error(p, where, err);
	*FIELD(dst, p, uint64_t) = v;
	return 0;
}

int cs_param_set_double(const struct cs_param *p, double v, void *dst, const char *where,
			struct cs_err *err)
{
	int rc = wrong_type(p, CS_P_DOUBLE, where, err);

	if (rc)
		return rc;
	if (!isfinite(v))
		return cs_err_set(err, -CS_ERANGE, "%s: expected a finite number", where);
	if (range_checked(p) && (v < p->min || v > p->max))
		return range_error(p, where, err);
	*FIELD(dst, p, double) = v;
	return 0;
}

/* "wheel, heap" into buf, cut short (with "...") if the list is very long. */
static void join_choices(const struct cs_param *p, char *buf, size_t len)
{
	size_t pos = 0, i;

	buf[0] = '\0';
	for (i = 0; p->choices[i]; i++) {
		int n = snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "", p->choices[i]);

		if (n < 0 || (size_t)n >= len - pos) {
			if (len > 4)
				strcpy(buf + len - 4, "...");
			return;
		}
		pos += (size_t)n;
	}
}

int cs_param_set_string(const struct cs_param *p, const char *s, void *dst, const char *where,
			struct cs_err *err)
{
	int rc = wrong_type(p, CS_P_STRING, where, err);
	char list[200];
	const char *near;
	size_t len, i;

	if (rc)
		return rc;
	if (p->type == CS_P_STRING) {
		len = strlen(s);
		if (len >= CS_PARAM_STR_MAX)
			return cs_err_set(err, -CS_ERANGE, "%s: string longer than %d bytes", where,
					  CS_PARAM_STR_MAX - 1);
		/* Zero the tail so equal configs compare equal with memcmp. */
		memset(FIELD(dst, p, char), 0, CS_PARAM_STR_MAX);
		memcpy(FIELD(dst, p, char), s, len);
		return 0;
	}
	if (!p->choices)
		return cs_err_set(err, -CS_EINVAL, "%s: enum '%s' has no choices", where, p->key);
	for (i = 0; p->choices[i]; i++) {
		if (!strcmp(p->choices[i], s)) {
			*FIELD(dst, p, unsigned) = (unsigned)i;
			return 0;
		}
	}
	join_choices(p, list, sizeof(list));
	near = cs_nearest(s, p->choices, i);
	if (near)
		return cs_err_set(err, -CS_ECONFIG, "%s: not one of %s (did you mean '%s'?)", where,
				  list, near);
	return cs_err_set(err, -CS_ECONFIG, "%s: not one of %s", where, list);
}

enum int_parse { INT_OK, INT_JUNK, INT_OVERFLOW };

/* Optional sign, then decimal or 0x hex digits, nothing else (no blanks, no octal). */
static enum int_parse parse_integer(const char *s, bool *neg, uint64_t *mag)
{
	int base = 10;
	char *end;

	*neg = false;
	if (*s == '+' || *s == '-')
		*neg = *s++ == '-';
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		/* strtoull(base 16) would skip a second "0x". */
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			return INT_JUNK;
	}
	/* strtoull would accept blanks and a second sign here. */
	if (base == 16 ? !isxdigit((unsigned char)*s) : !isdigit((unsigned char)*s))
		return INT_JUNK;
	errno = 0;
	*mag = strtoull(s, &end, base);
	if (*end)
		return INT_JUNK;
	if (errno == ERANGE)
		return INT_OVERFLOW;
	return INT_OK;
}

static int parse_bool(const char *s, bool *v)
{
	static const char *const yes[] = {"true", "1", "yes", "on"};
	static const char *const no[] = {"false", "0", "no", "off"};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*v = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*v = false;
			return 0;
		}
	}
	return -1;
}

int cs_param_parse(const struct cs_param *p, const char *text, void *dst, const char *where,
		   struct cs_err *err)
{
	enum int_parse ip;
	uint64_t mag;
	bool neg, b;
	double d;
	char *end;

	if (!p || !text || !dst)
		return cs_err_set(err, -CS_EINVAL, "%s: missing parameter or value", where);
	switch (p->type) {
	case CS_P_BOOL:
		if (parse_bool(text, &b))
			return cs_err_set(
			    err, -CS_ECONFIG,
			    "%s: expected a boolean (true/false, yes/no, on/off, 1/0)", where);
		return cs_param_set_bool(p, b, dst, where, err);
	case CS_P_INT:
		ip = parse_integer(text, &neg, &mag);
		if (ip == INT_JUNK)
			return cs_err_set(err, -CS_ECONFIG, "%s: expected an integer", where);
		if (ip == INT_OVERFLOW || mag > (uint64_t)INT64_MAX + neg)
			return cs_err_set(err, -CS_ERANGE, "%s: out of range for a 64-bit integer",
					  where);
		/* -(2^63) does not fit in int64_t before the negation: go through uint64_t. */
		return cs_param_set_int(p, neg ? (int64_t)(0 - mag) : (int64_t)mag, dst, where,
					err);
	case CS_P_UINT:
		ip = parse_integer(text, &neg, &mag);
		if (ip == INT_JUNK || neg)
			return cs_err_set(err, -CS_ECONFIG, "%s: expected an unsigned integer",
					  where);
		if (ip == INT_OVERFLOW)
			return cs_err_set(err, -CS_ERANGE,
					  "%s: out of range for a 64-bit unsigned integer", where);
		return cs_param_set_uint(p, mag, dst, where, err);
	case CS_P_DOUBLE:
		if (!*text || isspace((unsigned char)*text))
			return cs_err_set(err, -CS_ECONFIG, "%s: expected a number", where);
		errno = 0;
		d = strtod(text, &end);
		if (*end)
			return cs_err_set(err, -CS_ECONFIG, "%s: expected a number", where);
		return cs_param_set_double(p, d, dst, where, err);
	case CS_P_STRING:
	case CS_P_ENUM:
		return cs_param_set_string(p, text, dst, where, err);
	}
	return cs_err_set(err, -CS_EINVAL, "%s: unknown parameter type %d", where, (int)p->type);
}

/* Catches table mistakes that would otherwise corrupt memory or print garbage. */
static int check_param(const struct cs_param_table *t, const struct cs_param *p, struct cs_err *err)
{
	size_t sz = ptype_size(p->type);

	if (!sz)
		return cs_err_set(err, -CS_EINVAL, "%s.%s: unknown parameter type %d", t->section,
				  p->key, (int)p->type);
	if (p->offset > t->size || sz > t->size - p->offset)
		return cs_err_set(err, -CS_EINVAL, "%s.%s: offset %zu outside the %zu-byte struct",
				  t->section, p->key, p->offset, t->size);
	if (!p->def)
		return cs_err_set(err, -CS_EINVAL, "%s.%s: no default", t->section, p->key);
	if (p->type == CS_P_ENUM && (!p->choices || !p->choices[0]))
		return cs_err_set(err, -CS_EINVAL, "%s.%s: enum without choices", t->section,
				  p->key);
	if (p->min > p->max)
		return cs_err_set(err, -CS_EINVAL, "%s.%s: empty range", t->section, p->key);
	if (cs_param_find(t, p->key) != p)
		return cs_err_set(err, -CS_EINVAL, "%s.%s: duplicate key", t->section, p->key);
	return 0;
}

int cs_params_defaults(const struct cs_param_table *t, void *dst, struct cs_err *err)
{
	const struct cs_param *p;
	char where[160];
	int rc;

	if (!t || !t->section || !t->params || !dst)
		return cs_err_set(err, -CS_EINVAL, "cs_params_defaults: missing table or struct");
	memset(dst, 0, t->size);
	for (p = t->params; p->key; p++) {
		rc = check_param(t, p, err);
		if (rc)
			return rc;
		snprintf(where, sizeof(where), "default of %s.%s (\"%.60s\")", t->section, p->key,
			 p->def);
		rc = cs_param_parse(p, p->def, dst, where, err);
		if (rc) {
			/* A default the table itself cannot satisfy is a bug, not a user error. */
			if (err)
				err->code = -CS_EINVAL;
			return -CS_EINVAL;
		}
	}
	return 0;
}

/* Appends to a fixed buffer but keeps counting, so the caller learns the needed length. */
struct strbuf {
	char *buf;
	size_t len, pos;
};

static void sb_putc(struct strbuf *sb, char c)
{
	if (sb->pos + 1 < sb->len)
		sb->buf[sb->pos] = c;
	sb->pos++;
}

static void sb_puts(struct strbuf *sb, const char *s)
{
	while (*s)
		sb_putc(sb, *s++);
}

static void sb_finish(struct strbuf *sb)
{
	if (sb->len)
		sb->buf[sb->pos < sb->len ? sb->pos : sb->len - 1] = '\0';
}

/* A libconfig 1.5 string literal: the scanner knows \" \\ \n \r \t \f and \xNN. */
static void sb_quote(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	sb_putc(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			sb_puts(sb, "\\\"");
			break;
		case '\\':
			sb_puts(sb, "\\\\");
			break;
		case '\n':
			sb_puts(sb, "\\n");
			break;
		case '\r':
			sb_puts(sb, "\\r");
			break;
		case '\t':
			sb_puts(sb, "\\t");
			break;
		case '\f':
			sb_puts(sb, "\\f");
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				sb_puts(sb, "\\x");
				sb_putc(sb, hex[c >> 4]);
				sb_putc(sb, hex[c & 15]);
			} else {
				sb_putc(sb, (char)c);
			}
		}
	}
	sb_putc(sb, '"');
}

/* Shortest %.Ng that reads back to the same double, marked as a float for libconfig. */
static void format_double(double v, char *buf, size_t len)
{
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, len, "%.17g", v);
	/* "1" would load back as an integer: still accepted, but keep the type visible. */
	if (!strpbrk(buf, ".eEni"))
		strncat(buf, ".0", len - strlen(buf) - 1);
}

int cs_param_format(const struct cs_param *p, const void *values, char *buf, size_t len)
{
	struct strbuf sb = {buf, len, 0};
	char num[48];
	int64_t i;
	uint64_t u;
	unsigned e;
	size_t k;

	if (!p || !values)
		return -CS_EINVAL;
	switch (p->type) {
	case CS_P_BOOL:
		sb_puts(&sb, *CFIELD(values, p, bool) ? "true" : "false");
		break;
	case CS_P_INT:
		/* libconfig 1.5 silently wraps integers beyond int32 unless they carry 'L'. */
		i = *CFIELD(values, p, int64_t);
		snprintf(num, sizeof(num), "%" PRId64 "%s", i,
			 i < INT32_MIN || i > INT32_MAX ? "L" : "");
		sb_puts(&sb, num);
		break;
	case CS_P_UINT:
		/* Beyond int64 only hex keeps all 64 bits through libconfig's long long. */
		u = *CFIELD(values, p, uint64_t);
		if (u > INT64_MAX)
			snprintf(num, sizeof(num), "0x%" PRIX64 "L", u);
		else
			snprintf(num, sizeof(num), "%" PRIu64 "%s", u, u > INT32_MAX ? "L" : "");
		sb_puts(&sb, num);
		break;
	case CS_P_DOUBLE:
		format_double(*CFIELD(values, p, double), num, sizeof(num));
		sb_puts(&sb, num);
		break;
	case CS_P_STRING:
		/* The field is a fixed array: never read past it, even if unterminated. */
		{
			char s[CS_PARAM_STR_MAX];

			memcpy(s, CFIELD(values, p, char), CS_PARAM_STR_MAX);
			s[CS_PARAM_STR_MAX - 1] = '\0';
			sb_quote(&sb, s);
		}
		break;
	case CS_P_ENUM:
		e = *CFIELD(values, p, unsigned);
		if (!p->choices)
			return -CS_EINVAL;
		/* Walk up to e so a bad index is caught instead of read past the list. */
		for (k = 0; k < e && p->choices[k]; k++)
			;
		if (!p->choices[k])
			return -CS_EINVAL;
		sb_quote(&sb, p->choices[e]);
		break;
	default:
		return -CS_EINVAL;
	}
	sb_finish(&sb);
	return (int)sb.pos;
}

/* "  # help [unit] (range 1..64) (one of: a, b) (default: X)" */
static void dump_comment(FILE *f, const struct cs_param *p)
{
	char buf[CS_PARAM_FMT_MAX];
	struct strbuf sb = {buf, sizeof(buf), 0};
	size_t i;

	fprintf(f, "  # %s", p->help ? p->help : "");
	if (p->unit && *p->unit)
		fprintf(f, " [%s]", p->unit);
	if (range_checked(p) && p->type != CS_P_STRING && p->type != CS_P_ENUM)
		fprintf(f, " (range %.15g..%.15g)", p->min, p->max);
	if (p->type == CS_P_ENUM && p->choices) {
		fputs(" (one of:", f);
		for (i = 0; p->choices[i]; i++)
			fprintf(f, "%s %s", i ? "," : "", p->choices[i]);
		fputc(')', f);
	}
	if (p->type == CS_P_STRING || p->type == CS_P_ENUM) {
		sb_quote(&sb, p->def ? p->def : "");
		sb_finish(&sb);
		fprintf(f, " (default: %s)\n", buf);
	} else {
		fprintf(f, " (default: %s)\n", p->def ? p->def : "");
	}
}

int cs_params_dump(FILE *f, const struct cs_param_table *t, const void *values)
{
	char buf[CS_PARAM_FMT_MAX];
	const struct cs_param *p;
	int n;

	if (!f || !t || !t->params || !values)
		return -CS_EINVAL;
	if (t->help && *t->help)
		fprintf(f, "# %s\n", t->help);
	fprintf(f, "%s = {\n", t->section);
	for (p = t->params; p->key; p++) {
		n = cs_param_format(p, values, buf, sizeof(buf));
		if (n < 0)
			return n;
		dump_comment(f, p);
		fprintf(f, "  %s = %s;\n", p->key, buf);
	}
	fputs("};\n", f);
	return ferror(f) ? -CS_EIO : 0;
}
