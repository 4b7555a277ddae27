/*
 * util/config.c - configuration loading: libconfig 1.5 files and strings, --set overrides,
 * section loading through parameter tables, unused-name checks and the effective-config dump.
 */
#include "util/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/readfile.h"

/* Longest "FILE:LINE: section.key = value" prefix kept for a message; cs_err.msg is 512. */
/* libconfig 1.5 refuses deeper @include nesting too. */
#define CS_INCLUDE_DEPTH 10

struct cs_override {
	char *text;    /* "sim.seed=7" as given, for messages */
	char *section; /* the three parts, split in one private copy (section owns it) */
	char *key;
	char *value;
	bool used; /* applied by a section load */
};

struct cs_include {
	char *written;	/* the name as written, which libconfig reports */
	char *shown;	/* the path opened (include directory joined) */
	char *includer; /* shown name of the file holding the @include */
	unsigned line;	/* its line there */
};

struct cs_section {
	const struct cs_param_table *t;
	void *values; /* t->size bytes: the effective values */
	/* cs_config_section_as: t is this copy of the caller's table under another name */
	struct cs_param_table *own;
	const char *canon; /* the caller's table's section name, which its checks' messages use */
	char *own_name;
};

struct cs_config {
	config_t lc;
	bool have_lc; /* lc holds a parsed file or string */
	char *name;   /* file name as given to open, NULL without a file */
	/* every @include met, so messages name an included file by its path and blame a syntax
	 * error libconfig reports at an included file's start on the line that includes it */
	struct cs_include *inc;
	size_t n_inc, cap_inc;
	struct cs_override *ovr;
	size_t n_ovr, cap_ovr;
	struct cs_section *sec;
	size_t n_sec, cap_sec;
};

/* Grows *arr (of elem-sized items) so one more fits. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -CS_ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Whole file into a NUL-terminated buffer, at most CS_TEXT_FILE_MAX bytes. */
static int read_text(const char *path, const char *shown, char **out, struct cs_err *err)
{
	return cs_read_file(path, shown, CS_TEXT_FILE_MAX, "a configuration file", 1, out, NULL,
			    err);
}

/*
 * libconfig 1.5 wraps an integer literal beyond int32 that lacks the L suffix (5000000000 reads
 * as 705032704) and saturates one beyond int64, and keeps no text to check afterwards. So the
 * source text is scanned for such literals once libconfig accepted its syntax.
 */
static int check_number(const char **sp, const char *file, unsigned line, struct cs_err *err)
{
	const char *s = *sp, *start = s, *body;
	char tok[80], *end;
	bool hex, is64 = false;
	size_t n, digits;
	long long v;

	if (*s == '-' || *s == '+')
		s++;
	body = s;
	hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	while (isalnum((unsigned char)*s) || *s == '.' || *s == '_' ||
	       (!hex && (*s == '-' || *s == '+') && (s[-1] == 'e' || s[-1] == 'E')))
		s++;
	*sp = s;
	n = (size_t)(s - start);
	if (n >= sizeof(tok))
		n = sizeof(tok) - 1;
	memcpy(tok, start, n);
	tok[n] = '\0';
	while (n && tok[n - 1] == 'L') {
		is64 = true;
		tok[--n] = '\0';
	}
	if (hex) {
		const char *d = tok + (body - start) + 2;

		while (*d == '0')
			d++;
		digits = strlen(d);
		if (digits > 16)
			return cs_err_set(err, -CS_ERANGE,
					  "%s:%u: integer %.40s does not fit in 64 bits", file,
					  line, tok);
		if (!is64 && digits > 8)
			goto need_l;
		return 0;
	}
	if (strpbrk(tok, ".eE"))
		return 0;
	errno = 0;
	v = strtoll(tok, &end, 10);
	if (*end)
		return 0; /* not a number token libconfig would accept: its syntax check passed */
	if (errno == ERANGE)
		return cs_err_set(err, -CS_ERANGE, "%s:%u: integer %.40s does not fit in 64 bits",
				  file, line, tok);
	if (!is64 && (v < INT32_MIN || v > INT32_MAX))
		goto need_l;
	return 0;

need_l:
	return cs_err_set(err, -CS_ECONFIG,
			  "%s:%u: integer %.40s needs the L suffix (%.40sL): libconfig reads it "
			  "wrapped to 32 bits",
			  file, line, tok, tok);
}

static const char *skip_string(const char *s, unsigned *line)
{
	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (*s == '\n')
			(*line)++;
	}
	return *s ? s + 1 : s;
}

/* One pass over a text and the files it includes. The first pass (c set, before libconfig
 * reads anything) checks and records every @include, so libconfig never opens a directory, a
 * device or a huge file; the second (c NULL, after libconfig accepted the syntax) checks the
 * integer literals. */
struct scan {
	struct cs_config *c;
	const char *incdir;
};

static int scan_text(const struct scan *sc, const char *s, const char *file, int depth,
		     struct cs_err *err);

static int note_include(struct cs_config *c, const char *written, const char *shown,
			const char *includer, unsigned line, struct cs_err *err)
{
	struct cs_include *n;

	if (grow((void **)&c->inc, &c->cap_inc, c->n_inc, sizeof(*c->inc)))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	n = &c->inc[c->n_inc];
	*n = (struct cs_include){.written = strdup(written),
				 .shown = strdup(shown),
				 .includer = strdup(includer),
				 .line = line};
	c->n_inc++;
	if (!n->written || !n->shown || !n->includer)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	return 0;
}

/* s just past "@include" at FILE:LINE: check the named file and scan it as libconfig will
 * read it (libconfig 1.5 joins every name, nested ones too, to the top file's directory). */
static int scan_include(const struct scan *sc, const char **sp, const char *file, unsigned line,
			int depth, struct cs_err *err)
{
	char name[1024], path[2048], *text = NULL;
	const char *s = *sp;
	struct stat st;
	size_t n = 0;
	int rc;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '"') {
		*sp = s;
		return 0;
	}
	for (s++; *s && *s != '"' && *s != '\n'; s++) {
		if (*s == '\\' && s[1])
			s++;
		if (n + 1 >= sizeof(name))
			return cs_err_set_at(err, -CS_ECONFIG, file, line,
					     "@include: a file name over %zu characters",
					     sizeof(name) - 1);
		name[n++] = *s;
	}
	name[n] = '\0';
	*sp = *s == '"' ? s + 1 : s;
	if (sc->incdir && strcmp(sc->incdir, "."))
		snprintf(path, sizeof(path), "%s/%s", sc->incdir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	if (sc->c) {
		if (depth >= CS_INCLUDE_DEPTH)
			return cs_err_set_at(err, -CS_ECONFIG, file, line,
					     "@include \"%s\": includes nested more than %d deep "
					     "(libconfig's limit; does a file include itself?)",
					     name, CS_INCLUDE_DEPTH);
		if (!name[0])
			return cs_err_set_at(err, -CS_ECONFIG, file, line,
					     "@include \"\": no file name");
		if (name[0] == '/')
			return cs_err_set_at(err, -CS_ECONFIG, file, line,
					     "@include \"%s\": an absolute path (libconfig 1.5 "
					     "reads every include relative to %s, the directory of "
					     "the file given to -c; write it relative to that)",
					     name, sc->incdir ? sc->incdir : ".");
		if (stat(path, &st))
			return cs_err_set_at(err, -CS_EIO, file, line,
					     "@include \"%s\": cannot open %s: %s", name, path,
					     strerror(errno));
		if (!S_ISREG(st.st_mode))
			return cs_err_set_at(
			    err, -CS_EIO, file, line, "@include \"%s\": %s is %s, not a file", name,
			    path, S_ISDIR(st.st_mode) ? "a directory" : "a device or pipe");
	}
	rc = read_text(path, path, &text, err);
	if (rc)
		return rc;
	if (sc->c)
		rc = note_include(sc->c, name, path, file, line, err);
	if (!rc)
		rc = scan_text(sc, text, path, depth + 1, err);
	free(text);
	return rc;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '*';
}

static int scan_text(const struct scan *sc, const char *s, const char *file, int depth,
		     struct cs_err *err)
{
	unsigned line = 1;
	int rc;

	while (*s) {
		if (*s == '\n') {
			line++;
			s++;
		} else if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
			while (*s && *s != '\n')
				s++;
		} else if (s[0] == '/' && s[1] == '*') {
			for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
				if (*s == '\n')
					line++;
			if (*s)
				s += 2;
		} else if (*s == '"') {
			s = skip_string(s, &line);
		} else if (!strncmp(s, "@include", 8)) {
			s += 8;
			rc = scan_include(sc, &s, file, line, depth, err);
			if (rc)
				return rc;
		} else if (isalpha((unsigned char)*s) || *s == '*') {
			/* A name such as l1 or x-2: its digits are not numbers. */
			while (name_char(*s))
				s++;
		} else if (!sc->c && (isdigit((unsigned char)*s) ||
				      ((*s == '-' || *s == '+' || *s == '.') &&
				       (isdigit((unsigned char)s[1]) ||
					(s[1] == '.' && isdigit((unsigned char)s[2])))))) {
			rc = check_number(&s, file, line, err);
			if (rc)
				return rc;
		} else {
			s++;
		}
	}
	return 0;
}

/* The include libconfig names by the name as written, NULL for the top file or none. */
static const struct cs_include *include_of(const struct cs_config *c, const char *written)
{
	for (size_t i = 0; written && i < c->n_inc; i++)
		if (!strcmp(c->inc[i].written, written))
			return &c->inc[i];
	return NULL;
}

static const char *or_name(const struct cs_config *c, const char *file)
{
	const struct cs_include *inc = include_of(c, file);

	if (inc)
		return inc->shown;
	if (file)
		return file;
	return c->name ? c->name : "<config>";
}

/* libconfig 1.5 reports a stray token just before an @include at the included file's first
 * token. When that file parses alone, the fault is the includer's: name its @include line. */
static bool included_parses_alone(const struct cs_include *inc, const char *incdir)
{
	struct cs_err ignored;
	char *text = NULL;
	config_t lc;
	bool ok;

	if (read_text(inc->shown, inc->shown, &text, &ignored))
		return false;
	config_init(&lc);
	if (incdir)
		config_set_include_dir(&lc, incdir);
	ok = config_read_string(&lc, text);
	config_destroy(&lc);
	free(text);
	return ok;
}

/* Parses text (already read) into c->lc and rejects integers libconfig would corrupt. */
static int parse_text(struct cs_config *c, const char *text, const char *incdir, struct cs_err *err)
{
	const struct cs_include *inc;
	struct scan sc = {.c = c, .incdir = incdir};
	const char *top = or_name(c, NULL);
	int rc;

	config_init(&c->lc);
	c->have_lc = true;
	if (incdir)
		config_set_include_dir(&c->lc, incdir); /* libconfig copies it */
	rc = scan_text(&sc, text, top, 0, err);
	if (rc)
		return rc;
	if (!config_read_string(&c->lc, text)) {
		inc = include_of(c, config_error_file(&c->lc));
		if (inc && included_parses_alone(inc, incdir))
			return cs_err_set_at(err, -CS_ECONFIG, inc->includer, inc->line,
					     "%s before @include \"%s\" (that file parses alone)",
					     config_error_text(&c->lc), inc->written);
		return cs_err_set(err, -CS_ECONFIG, "%s:%d: %s",
				  or_name(c, config_error_file(&c->lc)), config_error_line(&c->lc),
				  config_error_text(&c->lc));
	}
	sc.c = NULL;
	return scan_text(&sc, text, top, 0, err);
}

static int config_new(const char *name, struct cs_config **out, struct cs_err *err)
{
	struct cs_config *c = NULL;

	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	if (name) {
		c->name = strdup(name);
		if (!c->name)
			goto nomem_free;
	}
	*out = c;
	return 0;

nomem_free:
	free(c);
nomem:
	return cs_err_set(err, -CS_ENOMEM, "out of memory");
}

/* Directory of path, for @include: "a.cfg" -> ".", "/x.cfg" -> "/", "d/a.cfg" -> "d". */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int cs_config_open(const char *path, struct cs_config **out, struct cs_err *err)
{
	struct cs_config *c = NULL;
	char *text = NULL, *dir = NULL;
	int rc;

	if (!out)
		return cs_err_set(err, -CS_EINVAL, "cs_config_open: no result pointer");
	*out = NULL;
	rc = config_new(path, &c, err);
	if (rc)
		return rc;
	if (!path)
		goto done;
	rc = read_text(path, path, &text, err);
	if (rc)
		goto fail;
	dir = dir_of(path);
	if (!dir) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto fail;
	}
	rc = parse_text(c, text, dir, err);
	if (rc)
		goto fail;
	free(dir);
	free(text);
done:
	*out = c;
	return 0;

fail:
	free(dir);
	free(text);
	cs_config_close(c);
	return rc;
}

int cs_config_open_string(const char *text, const char *name, struct cs_config **out,
			  struct cs_err *err)
{
	struct cs_config *c = NULL;
	int rc;

	if (!out || !text)
		return cs_err_set(err, -CS_EINVAL, "cs_config_open_string: no text or result");
	*out = NULL;
	rc = config_new(name ? name : "<string>", &c, err);
	if (rc)
		return rc;
	rc = parse_text(c, text, NULL, err);
	if (rc) {
		cs_config_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

void cs_config_close(struct cs_config *c)
{
	size_t i;

	if (!c)
		return;
	if (c->have_lc)
		config_destroy(&c->lc);
	for (i = 0; i < c->n_ovr; i++) {
		free(c->ovr[i].text);
		free(c->ovr[i].section);
	}
	free(c->ovr);
	for (i = 0; i < c->n_sec; i++) {
		free(c->sec[i].values);
		free(c->sec[i].own);
		free(c->sec[i].own_name);
	}
	free(c->sec);
	for (i = 0; i < c->n_inc; i++) {
		free(c->inc[i].written);
		free(c->inc[i].shown);
		free(c->inc[i].includer);
	}
	free(c->inc);
	free(c->name);
	free(c);
}

const char *cs_config_path(const struct cs_config *c)
{
	return c ? c->name : NULL;
}

int cs_config_set(struct cs_config *c, const char *assignment, struct cs_err *err)
{
	struct cs_override o = {0};
	char *eq, *dot;
	size_t i;

	if (!c || !assignment)
		return cs_err_set(err, -CS_EINVAL, "cs_config_set: no config or assignment");
	o.text = strdup(assignment);
	o.section = strdup(assignment);
	if (!o.text || !o.section)
		goto nomem;
	eq = strchr(o.section, '=');
	if (!eq)
		goto usage;
	*eq = '\0';
	dot = strchr(o.section, '.');
	if (!dot || strchr(dot + 1, '.') || dot == o.section || !dot[1])
		goto usage;
	*dot = '\0';
	o.key = dot + 1;
	o.value = eq + 1;
	for (i = 0; i < c->n_ovr; i++) {
		struct cs_override *old = &c->ovr[i];

		if (!strcmp(old->section, o.section) && !strcmp(old->key, o.key)) {
			free(old->text);
			free(old->section);
			*old = o;
			return 0;
		}
	}
	if (grow((void **)&c->ovr, &c->cap_ovr, c->n_ovr, sizeof(*c->ovr)))
		goto nomem;
	c->ovr[c->n_ovr++] = o;
	return 0;

usage:
	free(o.text);
	free(o.section);
	return cs_err_set(err, -CS_ECONFIG, "--set %.200s: expected section.key=value", assignment);
nomem:
	free(o.text);
	free(o.section);
	return cs_err_set(err, -CS_ENOMEM, "out of memory");
}

static const config_setting_t *file_member(const struct cs_config *c, const char *name)
{
	if (!c->have_lc)
		return NULL;
	return config_setting_get_member(config_root_setting(&c->lc), name);
}

static struct cs_section *find_section(const struct cs_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_sec; i++)
		if (!strcmp(c->sec[i].t->section, name))
			return &c->sec[i];
	return NULL;
}

bool cs_config_has_section(const struct cs_config *c, const char *section)
{
	size_t i;

	if (!c || !section)
		return false;
	if (file_member(c, section))
		return true;
	for (i = 0; i < c->n_ovr; i++)
		if (!strcmp(c->ovr[i].section, section))
			return true;
	return false;
}

/* Nearest key of t to word, NULL if none (or no memory: a suggestion is only a courtesy). */
static const char *nearest_key(const struct cs_param_table *t, const char *word)
{
	size_t n = cs_params_count(t), i;
	const char **keys, *best;

	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return NULL;
	for (i = 0; i < n; i++)
		keys[i] = t->params[i].key;
	best = cs_nearest(word, keys, n);
	free(keys);
	return best;
}

static int unknown_key(const char *where, const struct cs_param_table *t, const char *key,
		       struct cs_err *err)
{
	const char *near = nearest_key(t, key);

	if (near)
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: unknown key '%s' in section '%s' (did you mean '%s'?)",
				  where, key, t->section, near);
	return cs_err_set(err, -CS_ECONFIG, "%s: unknown key '%s' in section '%s'", where, key,
			  t->section);
}

static const char *setting_kind(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	}
	return "nothing";
}

/* A file string shown in a message: short, one line. */
static void show_string(const char *s, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[n++] = '"';
	for (i = 0; s[i] && n + 5 < len && i < 40; i++)
		buf[n++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	if (s[i]) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

/*
 * libconfig integers as sign + magnitude. Hex literals are taken as unsigned bit patterns:
 * libconfig 1.5 stores 0xFFFFFFFF as the int -1 and 0xFFFFFFFFFFFFFFFFL as the long long -1.
 */
static void setting_int(const config_setting_t *s, bool *neg, uint64_t *mag)
{
	bool hex = config_setting_get_format(s) == CONFIG_FORMAT_HEX;
	long long v;

	if (config_setting_type(s) == CONFIG_TYPE_INT) {
		int i = config_setting_get_int(s);

		if (hex) {
			*neg = false;
			*mag = (uint32_t)i;
			return;
		}
		v = i;
	} else {
		v = config_setting_get_int64(s);
		if (hex) {
			*neg = false;
			*mag = (uint64_t)v;
			return;
		}
	}
	*neg = v < 0;
	*mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* One file setting s of group t->section into dst, as parameter p. */
static int load_setting(const struct cs_config *c, const struct cs_param_table *t,
			const struct cs_param *p, const config_setting_t *s, void *dst,
			struct cs_err *err)
{
	const char *file = or_name(c, config_setting_source_file(s));
	unsigned line = config_setting_source_line(s);
	int type = config_setting_type(s);
	char where[CS_WHERE_MAX], val[64];
	bool is_int = type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64;
	bool neg = false;
	uint64_t mag = 0;
	const char *str;

	if (is_int) {
		setting_int(s, &neg, &mag);
		snprintf(val, sizeof(val), "%s%" PRIu64, neg ? "-" : "", mag);
	} else if (type == CONFIG_TYPE_FLOAT) {
		snprintf(val, sizeof(val), "%.17g", config_setting_get_float(s));
	} else if (type == CONFIG_TYPE_STRING) {
		show_string(config_setting_get_string(s), val, sizeof(val));
	} else if (type == CONFIG_TYPE_BOOL) {
		snprintf(val, sizeof(val), "%s", config_setting_get_bool(s) ? "true" : "false");
	} else {
		snprintf(val, sizeof(val), "%s", setting_kind(type)); /* only for type errors */
	}
	snprintf(where, sizeof(where), "%s:%u: %s.%s = %s", file, line, t->section, p->key, val);

	switch (p->type) {
	case CS_P_BOOL:
		if (type != CONFIG_TYPE_BOOL)
			break;
		return cs_param_set_bool(p, config_setting_get_bool(s), dst, where, err);
	case CS_P_INT:
		if (!is_int)
			break;
		if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
			return cs_err_set(err, -CS_ERANGE, "%s: out of range for a 64-bit integer",
					  where);
		return cs_param_set_int(p, neg ? (int64_t)(0 - mag) : (int64_t)mag, dst, where,
					err);
	case CS_P_UINT:
		if (!is_int)
			break;
		if (neg)
			return cs_err_set(
			    err, -CS_ECONFIG,
			    "%s:%u: %s.%s: expected an unsigned integer, got a negative "
			    "integer",
			    file, line, t->section, p->key);
		return cs_param_set_uint(p, mag, dst, where, err);
	case CS_P_DOUBLE:
		if (is_int)
			return cs_param_set_double(p, neg ? -(double)mag : (double)mag, dst, where,
						   err);
		if (type != CONFIG_TYPE_FLOAT)
			break;
		return cs_param_set_double(p, config_setting_get_float(s), dst, where, err);
	case CS_P_STRING:
	case CS_P_ENUM:
		if (type != CONFIG_TYPE_STRING)
			break;
		str = config_setting_get_string(s);
		return cs_param_set_string(p, str, dst, where, err);
	}
	return cs_err_set(err, -CS_ECONFIG, "%s:%u: %s.%s: expected %s, got %s", file, line,
			  t->section, p->key, cs_ptype_name(p->type), setting_kind(type));
}

/* The file's group t->section (if any) into dst. */
static int load_group(const struct cs_config *c, const struct cs_param_table *t, void *dst,
		      struct cs_err *err)
{
	const config_setting_t *g = file_member(c, t->section);
	char where[CS_WHERE_MAX];
	int i, n, rc;

	if (!g)
		return 0;
	if (!config_setting_is_group(g))
		return cs_err_set(err, -CS_ECONFIG, "%s:%u: '%s' must be a group { ... }",
				  or_name(c, config_setting_source_file(g)),
				  config_setting_source_line(g), t->section);
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *key = config_setting_name(s);
		const struct cs_param *p = cs_param_find(t, key);

		if (!p) {
			snprintf(where, sizeof(where), "%s:%u",
				 or_name(c, config_setting_source_file(s)),
				 config_setting_source_line(s));
			return unknown_key(where, t, key, err);
		}
		rc = load_setting(c, t, p, s, dst, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* "--set sim.seed=abc", cut short so the explanation still fits in the message. */
static void override_where(const struct cs_override *o, char *buf, size_t len)
{
	snprintf(buf, len, "--set %.150s%s", o->text, strlen(o->text) > 150 ? "..." : "");
}

static int load_overrides(struct cs_config *c, const struct cs_param_table *t, void *dst,
			  struct cs_err *err)
{
	char where[CS_WHERE_MAX];
	size_t i;
	int rc;

	for (i = 0; i < c->n_ovr; i++) {
		const struct cs_override *o = &c->ovr[i];
		const struct cs_param *p;

		if (strcmp(o->section, t->section))
			continue;
		override_where(o, where, sizeof(where));
		p = cs_param_find(t, o->key);
		if (!p)
			return unknown_key(where, t, o->key, err);
		rc = cs_param_parse(p, o->value, dst, where, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int load_section(struct cs_config *c, const struct cs_param_table *t, const void *base,
			void *dst, struct cs_err *err);

int cs_config_section(struct cs_config *c, const struct cs_param_table *t, void *dst,
		      struct cs_err *err)
{
	return load_section(c, t, NULL, dst, err);
}

static int load_section(struct cs_config *c, const struct cs_param_table *t, const void *base,
			void *dst, struct cs_err *err)
{
	struct cs_section *old;
	void *vals;
	size_t i;
	int rc;

	if (!c || !t || !t->section || !dst)
		return cs_err_set(err, -CS_EINVAL, "cs_config_section: missing argument");
	old = find_section(c, t->section);
	if (old) {
		if (old->t != t) {
			const config_setting_t *g = file_member(c, t->section);
			char where[CS_WHERE_MAX] = "";

			if (g)
				snprintf(where, sizeof(where),
					 "%s:%u: ", or_name(c, config_setting_source_file(g)),
					 config_setting_source_line(g));
			return cs_err_set(err, -CS_ECONFIG,
					  "%ssection '%s' is read as two different things (a node "
					  "group's, network's or range's name must not be a "
					  "component's section)",
					  where, t->section);
		}
		memcpy(dst, old->values, t->size);
		return 0;
	}
	/* Work on a private copy so dst is untouched on error and padding is zero. */
	vals = calloc(1, t->size ? t->size : 1);
	if (!vals)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	rc = cs_params_defaults(t, vals, err);
	if (rc)
		goto fail;
	if (base)
		memcpy(vals, base, t->size);
	rc = load_group(c, t, vals, err);
	if (rc)
		goto fail;
	rc = load_overrides(c, t, vals, err);
	if (rc)
		goto fail;
	if (grow((void **)&c->sec, &c->cap_sec, c->n_sec, sizeof(*c->sec))) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto fail;
	}
	c->sec[c->n_sec] = (struct cs_section){.t = t, .values = vals, .canon = t->section};
	c->n_sec++;
	for (i = 0; i < c->n_ovr; i++)
		if (!strcmp(c->ovr[i].section, t->section))
			c->ovr[i].used = true;
	memcpy(dst, vals, t->size);
	return 0;

fail:
	free(vals);
	return rc;
}

int cs_config_section_as(struct cs_config *c, const struct cs_param_table *t, const char *name,
			 const void *base, void *dst, struct cs_err *err)
{
	struct cs_section *old;
	struct cs_param_table *own;
	char *own_name;
	int rc;

	if (!c || !t || !name || !dst)
		return cs_err_set(err, -CS_EINVAL, "cs_config_section_as: missing argument");
	if (t->section && !strcmp(t->section, name))
		return load_section(c, t, base, dst, err);
	old = find_section(c, name);
	if (old) {
		if (old->t->params != t->params || old->t->size != t->size)
			return cs_err_set(err, -CS_EEXIST,
					  "section '%s' is read as two different things", name);
		memcpy(dst, old->values, t->size);
		return 0;
	}
	own = malloc(sizeof(*own));
	own_name = strdup(name);
	if (!own || !own_name) {
		free(own);
		free(own_name);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	*own = *t;
	own->section = own_name;
	rc = load_section(c, own, base, dst, err);
	if (rc) {
		free(own);
		free(own_name);
		return rc;
	}
	c->sec[c->n_sec - 1].own = own;
	c->sec[c->n_sec - 1].own_name = own_name;
	c->sec[c->n_sec - 1].canon = t->section;
	return 0;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] && !strcmp(list[i], name))
			return true;
	return false;
}

/* "WHERE: unknown section 'foo' (did you mean 'l2'?)" or "... not used ..." */
static int unknown_section(const char *where, const char *name, const char *const *names,
			   size_t n_names, const char *const *extra, size_t n_extra,
			   struct cs_err *err)
{
	const char *near;

	if (in_list(name, extra, n_extra))
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: section '%s' is not used by this configuration", where,
				  name);
	near = cs_nearest(name, names, n_names);
	if (near)
		return cs_err_set(err, -CS_ECONFIG, "%s: unknown section '%s' (did you mean '%s'?)",
				  where, name, near);
	return cs_err_set(err, -CS_ECONFIG, "%s: unknown section '%s'", where, name);
}

int cs_config_check_unused(struct cs_config *c, const char *const *extra_known, size_t n_extra,
			   struct cs_err *err)
{
	char where[CS_WHERE_MAX];
	const char **names;
	size_t n = 0, i;
	int rc = 0;

	if (!c)
		return cs_err_set(err, -CS_EINVAL, "cs_config_check_unused: no config");
	if (!extra_known)
		n_extra = 0;
	names = malloc((c->n_sec + n_extra + 1) * sizeof(*names));
	if (!names)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (i = 0; i < c->n_sec; i++)
		names[n++] = c->sec[i].t->section;
	for (i = 0; i < n_extra; i++)
		names[n++] = extra_known[i];

	if (c->have_lc) {
		const config_setting_t *root = config_root_setting(&c->lc);
		int k, len = config_setting_length(root);

		for (k = 0; k < len; k++) {
			const config_setting_t *s = config_setting_get_elem(root, (unsigned)k);
			const char *name = config_setting_name(s);

			if (find_section(c, name))
				continue;
			snprintf(where, sizeof(where), "%s:%u",
				 or_name(c, config_setting_source_file(s)),
				 config_setting_source_line(s));
			rc = unknown_section(where, name, names, n, extra_known, n_extra, err);
			goto out;
		}
	}
	for (i = 0; i < c->n_ovr; i++) {
		const struct cs_override *o = &c->ovr[i];

		if (o->used)
			continue;
		override_where(o, where, sizeof(where));
		if (find_section(c, o->section)) {
			/* Recorded after its section was loaded: the value never took effect. */
			rc = cs_err_set(err, -CS_ECONFIG,
					"%s: given after section '%s' was loaded (ignored)", where,
					o->section);
			goto out;
		}
		rc = unknown_section(where, o->section, names, n, extra_known, n_extra, err);
		goto out;
	}
out:
	free(names);
	return rc;
}

int cs_config_dump(const struct cs_config *c, FILE *f)
{
	size_t i;
	int rc;

	if (!c || !f)
		return -CS_EINVAL;
	fprintf(f, "# cohscope effective configuration (source: %s",
		c->name ? c->name : "defaults");
	if (c->n_ovr)
		fprintf(f, ", %zu --set override%s", c->n_ovr, c->n_ovr == 1 ? "" : "s");
	fputs(")\n", f);
	for (i = 0; i < c->n_sec; i++) {
		fputc('\n', f);
		rc = cs_params_dump(f, c->sec[i].t, c->sec[i].values);
		if (rc)
			return rc;
	}
	return ferror(f) ? -CS_EIO : 0;
}

/* Did the file or a --set give section.key? Then its origin is in buf. */
static bool given_origin(const struct cs_config *c, const char *section, const char *key, char *buf,
			 size_t len)
{
	const config_setting_t *g = file_member(c, section);
	bool given = g && config_setting_is_group(g) && config_setting_get_member(g, key);

	for (size_t i = 0; i < c->n_ovr && !given; i++)
		given = !strcmp(c->ovr[i].section, section) && !strcmp(c->ovr[i].key, key);
	if (given)
		cs_config_origin(c, section, key, buf, len);
	return given;
}

/* "FILE:LINE: ..." or "--set ...": the message says where already. */
static bool has_origin(const char *msg)
{
	const char *colon = strstr(msg, ": ");
	const char *d;

	if (!strncmp(msg, "--set ", 6))
		return true;
	if (!colon || memchr(msg, ' ', (size_t)(colon - msg)))
		return false;
	for (d = colon; d > msg && isdigit((unsigned char)d[-1]); d--)
		;
	return d < colon && d > msg && d[-1] == ':';
}

static bool key_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* Rewrites CANON.key into SEC.key in err's message and, unless it says where already, puts
 * the origin of the first key named that the file or a --set gave in front. */
static bool locate_in(const struct cs_config *c, const struct cs_section *sec, const char *canon,
		      struct cs_err *err)
{
	char out[sizeof(err->msg)], where[CS_WHERE_MAX] = "";
	const char *m = err->msg, *name = sec->t->section;
	size_t cl = strlen(canon), n = 0;
	bool found = false, placed = has_origin(err->msg);

	while (*m && n + 1 < sizeof(out)) {
		const struct cs_param *p, *hit = NULL;

		if (!strncmp(m, canon, cl) && m[cl] == '.' && (m == err->msg || !key_char(m[-1])))
			for (p = sec->t->params; p->key; p++) {
				size_t kl = strlen(p->key);

				if (!strncmp(m + cl + 1, p->key, kl) && !key_char(m[cl + 1 + kl]) &&
				    (!hit || kl > strlen(hit->key)))
					hit = p;
			}
		if (!hit) {
			out[n++] = *m++;
			continue;
		}
		found = true;
		if (!placed)
			placed = given_origin(c, name, hit->key, where, sizeof(where));
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s.%s", name, hit->key);
		if (n >= sizeof(out))
			n = sizeof(out) - 1;
		m += cl + 1 + strlen(hit->key);
	}
	out[n] = '\0';
	if (!found)
		return false;
	if (where[0])
		cs_format_cut(err->msg, sizeof(err->msg), "%s: %s", where, out);
	else
		snprintf(err->msg, sizeof(err->msg), "%s", out);
	return where[0] != 0;
}

int cs_config_locate_as(const struct cs_config *c, const char *canon, const char *section,
			struct cs_err *err)
{
	const struct cs_section *sec = c && err ? find_section(c, section) : NULL;

	if (sec)
		locate_in(c, sec, canon, err);
	return err ? err->code : 0;
}

int cs_config_locate(const struct cs_config *c, struct cs_err *err)
{
	if (!c || !err)
		return err ? err->code : 0;
	for (size_t i = 0; i < c->n_sec && !has_origin(err->msg); i++)
		if (!strcmp(c->sec[i].canon, c->sec[i].t->section))
			locate_in(c, &c->sec[i], c->sec[i].canon, err);
	return err->code;
}

void cs_config_origin(const struct cs_config *c, const char *section, const char *key, char *buf,
		      size_t len)
{
	const config_setting_t *g = file_member(c, section);
	const struct cs_section *sec = find_section(c, section);
	const struct cs_param *p = sec ? cs_param_find(sec->t, key) : NULL;
	const config_setting_t *s;
	char val[96] = "?";

	/* the last --set of the key wins, as in cs_config_section */
	for (size_t i = c->n_ovr; i-- > 0;) {
		const struct cs_override *o = &c->ovr[i];

		if (!strcmp(o->section, section) && !strcmp(o->key, key)) {
			override_where(o, buf, len);
			return;
		}
	}
	if (p)
		cs_param_format(p, sec->values, val, sizeof(val));
	s = g && config_setting_is_group(g) ? config_setting_get_member(g, key) : NULL;
	if (s)
		snprintf(buf, len, "%s:%u: %s.%s = %s", or_name(c, config_setting_source_file(s)),
			 config_setting_source_line(s), section, key, val);
	else
		snprintf(buf, len, "%s.%s = %s (default)", section, key, val);
}
