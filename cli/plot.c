/*
 * cli/plot.c - `cohscope plot`: from results files (CSV with a header row, or JSON: an array of
 * objects, {"points": [...]}, or the array `cohscope suite -o` writes), per benchmark bars for
 * each group of points, normalized to a baseline group, and a geometric-mean cluster. Writes
 * PREFIX.dat (the normalized table), PREFIX.gp (a gnuplot script holding the same table) and
 * runs gnuplot on it for PREFIX.svg and PREFIX.png. docs/plots.md.
 *
 * Every output is written to a temporary file first and renamed once all of them are complete:
 * bad input writes nothing, a failing gnuplot writes nothing. Without gnuplot the table and the
 * script are still written (a warning; exit 4 only if --format asked for images explicitly).
 * The .dat and .gp are byte-identical for the same command and inputs (fixed formats, inputs
 * in file order).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/plot.h"
#include "util/error.h"
#include "util/readfile.h"

extern char **environ;

/* The exit statuses of cli/main.c (cli/README.md). */

#define PLOT_MAX_GROUP_COLS 8
#define PLOT_MAX_WHERE	    32

const char plot_help[] =
    "usage: cohscope plot RESULTS... -o PREFIX [--metric NAME] [--baseline GROUP]\n"
    "                     [--group-by COL[,COL]...] [--x COL] [--where COL=VALUE[,VALUE]...]...\n"
    "                     [--speedup] [--format svg,png|svg|png|none] [--title TEXT]\n"
    "                     [--no-errorbars] [--no-gap-warning] [-q]\n"
    "\n"
    "Bar charts in the papers' style from results files: the CSV or JSON of cohscope sweep, or\n"
    "the JSON of cohscope suite -o (several files are read as one table). One cluster of bars\n"
    "per benchmark (in file order), one bar per group (in file order): the group's value over\n"
    "the baseline group's for that benchmark; a last cluster, gmean, is the geometric mean over\n"
    "the benchmarks. Writes PREFIX.dat (the normalized table), PREFIX.gp (a self-contained\n"
    "gnuplot script) and, through gnuplot, PREFIX.svg and PREFIX.png. Failed points (a status\n"
    "other than ok, or verified false) and missing ones get no bar (one line on stderr).\n"
    "\n"
    "  -o, --output PREFIX    write PREFIX.dat, .gp, .svg, .png (all written or none)\n"
    "  -m, --metric NAME      a numeric column: cycles (default), noc_bytes, dram_bytes,\n"
    "                         energy_j, ...; performance: cycles with --speedup; traffic:\n"
    "                         traffic_bytes (else noc_bytes); energy: energy_j\n"
    "  -b, --baseline GROUP   the group the others are normalized to (default: the first)\n"
    "  -g, --group-by COLS    comma-separated columns whose values make a group, named by the\n"
    "                         values joined with '/' (default: config if there is such a\n"
    "                         column, else coherence.protocol,core.consistency, else\n"
    "                         protocol,consistency)\n"
    "  -x, --x COL            the benchmark column (default: workload, else benchmark)\n"
    "      --where COL=V[,V]  keep only the points whose COL is one of the values (repeatable)\n"
    "      --speedup          plot baseline / value (higher is better: speedup for cycles)\n"
    "                         instead of value / baseline\n"
    "  -f, --format LIST      the images gnuplot makes: svg,png (default), svg, png or none\n"
    "  -t, --title TEXT       chart title\n"
    "      --no-errorbars     no error bars (default: from the metric's half-width column,\n"
    "                         e.g. cycles_half, when it holds a non-zero value)\n"
    "      --no-gap-warning   no line on stderr naming the bars left out (for a caller that\n"
    "                         reports them itself, as cohscope study does in summary.md)\n"
    "  -q, --quiet            no table on stdout\n"
    "\n"
    "Without gnuplot (or COHSCOPE_GNUPLOT, the command to run instead), PREFIX.dat and PREFIX.gp\n"
    "are written and a warning says so; the exit status is then 4 if --format was given, else\n"
    "0.\n"
    "\n"
    "exit status: 0 written, 2 usage error, 3 bad input (unreadable or malformed file, no such\n"
    "column, group or point), 4 output not written (gnuplot missing or failing), 5 out of memory\n";

/* ---- growing strings ------------------------------------------------------------------------ */

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static bool sb_reserve(struct sbuf *b, size_t extra)
{
	size_t cap;
	char *s;

	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

static void sb_putn(struct sbuf *b, const char *p, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!sb_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* The text (empty if nothing was written), or NULL when out of memory. */
static const char *sb_str(const struct sbuf *b)
{
	return b->oom ? NULL : b->s ? b->s : "";
}

/* ---- the table: columns by name, rows of optional string values --------------------------- */

struct prow {
	const char *file;
	unsigned long line; /* CSV: the record's first line; JSON: the point's index from 1 */
	bool json;
	char **val; /* val[c] for c < nval; NULL: no value (empty CSV field, JSON null, absent) */
	size_t nval;
};

struct ptable {
	char **col;
	size_t ncol, ccol;
	struct prow *row;
	size_t nrow, crow;
};

static void table_free(struct ptable *t)
{
	for (size_t r = 0; r < t->nrow; r++) {
		for (size_t c = 0; c < t->row[r].nval; c++)
			free(t->row[r].val[c]);
		free(t->row[r].val);
	}
	for (size_t c = 0; c < t->ncol; c++)
		free(t->col[c]);
	free(t->row);
	free(t->col);
	memset(t, 0, sizeof(*t));
}

/* The index of column `name` (exact), added if new; -CS_ENOMEM. */
static long table_col(struct ptable *t, const char *name)
{
	for (size_t c = 0; c < t->ncol; c++)
		if (strcmp(t->col[c], name) == 0)
			return (long)c;
	if (t->ncol == t->ccol) {
		size_t cap = t->ccol ? t->ccol * 2 : 32;
		char **n = realloc(t->col, cap * sizeof(*n));

		if (!n)
			return -CS_ENOMEM;
		t->col = n;
		t->ccol = cap;
	}
	t->col[t->ncol] = strdup(name);
	if (!t->col[t->ncol])
		return -CS_ENOMEM;
	return (long)t->ncol++;
}

static struct prow *table_row(struct ptable *t, const char *file, unsigned long line, bool json)
{
	if (t->nrow == t->crow) {
		size_t cap = t->crow ? t->crow * 2 : 64;
		struct prow *n = realloc(t->row, cap * sizeof(*n));

		if (!n)
			return NULL;
		t->row = n;
		t->crow = cap;
	}
	t->row[t->nrow] = (struct prow){.file = file, .line = line, .json = json};
	return &t->row[t->nrow++];
}

/* Sets row r's value in column c to the n bytes at v (n = 0: no value). */
static int row_set(struct prow *r, size_t c, const char *v, size_t n)
{
	if (c >= r->nval) {
		char **nv = realloc(r->val, (c + 1) * sizeof(*nv));

		if (!nv)
			return -CS_ENOMEM;
		memset(nv + r->nval, 0, (c + 1 - r->nval) * sizeof(*nv));
		r->val = nv;
		r->nval = c + 1;
	}
	free(r->val[c]);
	r->val[c] = NULL;
	if (n == 0)
		return 0;
	r->val[c] = strndup(v, n);
	return r->val[c] ? 0 : -CS_ENOMEM;
}

static const char *row_get(const struct prow *r, long c)
{
	return c >= 0 && (size_t)c < r->nval ? r->val[c] : NULL;
}

/* "file:line" or "file: point N", for messages. */
static const char *row_where(const struct prow *r, char *buf, size_t len)
{
	if (r->json)
		snprintf(buf, len, "%s: point %lu", r->file, r->line);
	else
		snprintf(buf, len, "%s:%lu", r->file, r->line);
	return buf;
}

/* Column `name`: exact, else the one column whose name ends in ".name" (a JSON point's nested
 * object, e.g. axes.coherence.protocol). -1: no such column; -2: several end so. */
static long col_find(const struct ptable *t, const char *name)
{
	size_t n = strlen(name);
	long hit = -1;

	for (size_t c = 0; c < t->ncol; c++)
		if (strcmp(t->col[c], name) == 0)
			return (long)c;
	for (size_t c = 0; c < t->ncol; c++) {
		size_t l = strlen(t->col[c]);

		if (l > n + 1 && t->col[c][l - n - 1] == '.' &&
		    strcmp(t->col[c] + l - n, name) == 0) {
			if (hit >= 0)
				return -2;
			hit = (long)c;
		}
	}
	return hit;
}

/* ---- reading files ------------------------------------------------------------------------ */

/* A plot input (a result, a sweep's CSV): at most CS_DATA_FILE_MAX bytes. */
static int read_all(const char *path, char **out, size_t *len, struct cs_err *err)
{
	return cs_read_file(path, path, CS_DATA_FILE_MAX, "a plot input", 0, out, len, err);
}

struct fields {
	struct sbuf *v;
	size_t n, cap;
};

static void fields_free(struct fields *f)
{
	for (size_t i = 0; i < f->cap; i++)
		free(f->v[i].s);
	free(f->v);
}

/* A new empty field at the end of f, or NULL. */
static struct sbuf *fields_add(struct fields *f)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		struct sbuf *n = realloc(f->v, cap * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + f->cap, 0, (cap - f->cap) * sizeof(*n));
		f->v = n;
		f->cap = cap;
	}
	f->v[f->n].len = 0;
	f->v[f->n].oom = false;
	if (f->v[f->n].s)
		f->v[f->n].s[0] = 0;
	return &f->v[f->n++];
}

/* One CSV record (RFC 4180: fields separated by commas, double-quoted fields may hold commas,
 * newlines and "" for a quote; CRLF or LF line ends) from b[*pos]; *line counts lines. Unquoted
 * fields lose their surrounding blanks. */
static int csv_record(const char *path, const char *b, size_t n, size_t *pos, unsigned long *line,
		      struct fields *out, struct cs_err *err)
{
	size_t i = *pos;

	out->n = 0;
	for (;;) {
		struct sbuf *f = fields_add(out);

		if (!f)
			return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
		while (i < n && (b[i] == ' ' || b[i] == '\t'))
			i++;
		if (i < n && b[i] == '"') {
			unsigned long first = *line;

			for (i++;; i++) {
				if (i >= n)
					return cs_err_set_at(err, -CS_EINVAL, path, first,
							     "a quoted field is not closed");
				if (b[i] == '"' && i + 1 < n && b[i + 1] == '"') {
					sb_putn(f, "\"", 1);
					i++;
					continue;
				}
				if (b[i] == '"')
					break;
				if (b[i] == 0)
					return cs_err_set_at(err, -CS_EINVAL, path, *line,
							     "a NUL byte (not a text file)");
				if (b[i] == '\n')
					(*line)++;
				sb_putn(f, b + i, 1);
			}
			for (i++; i < n && (b[i] == ' ' || b[i] == '\t'); i++)
				;
			if (i < n && b[i] != ',' && b[i] != '\n' && b[i] != '\r')
				return cs_err_set_at(err, -CS_EINVAL, path, *line,
						     "text after a closing quote");
		} else {
			size_t s = i, e;

			for (; i < n && b[i] != ',' && b[i] != '\n' && b[i] != '\r'; i++) {
				if (b[i] == '"')
					return cs_err_set_at(err, -CS_EINVAL, path, *line,
							     "a quote inside an unquoted field "
							     "(quote the whole field)");
				if (b[i] == 0)
					return cs_err_set_at(err, -CS_EINVAL, path, *line,
							     "a NUL byte (not a text file)");
			}
			for (e = i; e > s && (b[e - 1] == ' ' || b[e - 1] == '\t'); e--)
				;
			sb_putn(f, b + s, e - s);
		}
		if (f->oom)
			return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		if (i < n && b[i] == '\r')
			i++;
		if (i < n && b[i] == '\n')
			i++;
		(*line)++;
		break;
	}
	*pos = i;
	return 0;
}

static int load_csv(struct ptable *t, const char *path, const char *b, size_t n, struct cs_err *err)
{
	struct fields f = {0};
	long *map = NULL;
	size_t pos = 0, nh = 0;
	unsigned long line = 1, at;
	int rc = 0;

	while (pos < n && !rc) {
		at = line;
		rc = csv_record(path, b, n, &pos, &line, &f, err);
		if (rc)
			break;
		if (f.n == 1 && f.v[0].len == 0)
			continue; /* a blank line */
		if (!map) {
			map = calloc(f.n, sizeof(*map));
			if (!map) {
				rc = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
				break;
			}
			nh = f.n;
			for (size_t i = 0; i < nh && !rc; i++) {
				const char *name = f.v[i].s ? f.v[i].s : "";

				for (size_t j = 0; j < i && name[0]; j++)
					if (f.v[j].s && strcmp(f.v[j].s, name) == 0)
						rc = cs_err_set_at(err, -CS_EINVAL, path, at,
								   "column '%s' appears twice",
								   name);
				if (!rc) {
					map[i] = table_col(t, name);
					if (map[i] < 0)
						rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
				}
			}
			continue;
		}
		if (f.n != nh) {
			rc = cs_err_set_at(err, -CS_EINVAL, path, at,
					   "%zu fields, the header has %zu", f.n, nh);
			break;
		}
		struct prow *r = table_row(t, path, at, false);

		if (!r) {
			rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
			break;
		}
		for (size_t i = 0; i < nh && !rc; i++)
			if (row_set(r, (size_t)map[i], f.v[i].s, f.v[i].len))
				rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	if (!rc && !map)
		rc = cs_err_set(err, -CS_EINVAL, "%s: no header row (an empty CSV file)", path);
	free(map);
	fields_free(&f);
	return rc;
}

/* A JSON point's members as columns; nested objects as PREFIX.KEY; arrays are left out. */
static int json_point(struct ptable *t, struct prow *r, const char *prefix, json_t *o, int depth)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v)
	{
		char name[512], num[64];
		const char *s = NULL;
		long c;
		int rc;

		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", key);
		switch (json_typeof(v)) {
		case JSON_OBJECT:
			if (depth < 8 && (rc = json_point(t, r, name, v, depth + 1)))
				return rc;
			continue;
		case JSON_ARRAY:
			continue;
		case JSON_STRING:
			s = json_string_value(v);
			break;
		case JSON_INTEGER:
			snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			s = num;
			break;
		case JSON_REAL:
			snprintf(num, sizeof(num), "%.17g", json_real_value(v));
			s = num;
			break;
		case JSON_TRUE:
			s = "true";
			break;
		case JSON_FALSE:
			s = "false";
			break;
		case JSON_NULL:
			break;
		}
		c = table_col(t, name);
		if (c < 0)
			return (int)c;
		if ((rc = row_set(r, (size_t)c, s, s ? strlen(s) : 0)))
			return rc;
	}
	return 0;
}

static int load_json(struct ptable *t, const char *path, const char *b, size_t n,
		     struct cs_err *err)
{
	json_error_t je;
	json_t *root = json_loadb(b, n, 0, &je), *pts;
	int rc = 0;

	if (!root)
		return cs_err_set_at(err, -CS_EINVAL, path,
				     (unsigned long)(je.line > 0 ? je.line : 1), "JSON: %s",
				     je.text);
	pts = json_is_array(root) ? root : json_object_get(root, "points");
	if (!json_is_array(pts) && json_is_object(root))
		pts = json_object_get(root, "results");
	if (!json_is_array(pts)) {
		json_decref(root);
		return cs_err_set(err, -CS_EINVAL,
				  "%s: JSON: expected an array of points, or an object with a "
				  "\"points\" array",
				  path);
	}
	for (size_t i = 0; i < json_array_size(pts) && !rc; i++) {
		json_t *p = json_array_get(pts, i);
		struct prow *r;

		if (!json_is_object(p)) {
			rc = cs_err_set(err, -CS_EINVAL, "%s: point %zu: not a JSON object", path,
					i + 1);
			break;
		}
		r = table_row(t, path, i + 1, true);
		rc = r ? json_point(t, r, "", p, 0) : -CS_ENOMEM;
		if (rc)
			cs_err_set(err, rc, "%s: out of memory", path);
	}
	json_decref(root);
	return rc;
}

static int load_file(struct ptable *t, const char *path, struct cs_err *err)
{
	char *b = NULL;
	size_t n = 0, skip, i;
	int rc = read_all(path, &b, &n, err);

	if (rc)
		return rc;
	skip = n >= 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; /* a UTF-8 byte order mark */
	for (i = skip; i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'); i++)
		;
	if (i == n)
		rc = cs_err_set(err, -CS_EINVAL, "%s: empty file", path);
	else if (b[i] == '[' || b[i] == '{')
		rc = load_json(t, path, b + skip, n - skip, err);
	else
		rc = load_csv(t, path, b + skip, n - skip, err);
	free(b);
	return rc;
}

/* ---- options ------------------------------------------------------------------------------ */

struct popts {
	const char *out, *metric, *baseline, *group_by, *x, *title;
	const char *where[PLOT_MAX_WHERE];
	int nwhere;
	bool svg, png, format_given, speedup, no_errorbars, no_gap_warning, quiet, help;
	char **files;
	int nfiles;
};

static int parse_format(const char *s, struct popts *o, struct cs_err *err)
{
	char buf[64];

	o->svg = o->png = false;
	o->format_given = true;
	if (strcmp(s, "none") == 0)
		return 0;
	if (strlen(s) >= sizeof(buf))
		return cs_err_set(err, -CS_EUSAGE, "plot: --format %s: not a list of svg, png", s);
	strcpy(buf, s);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		if (strcmp(tok, "svg") == 0)
			o->svg = true;
		else if (strcmp(tok, "png") == 0)
			o->png = true;
		else
			return cs_err_set(err, -CS_EUSAGE,
					  "plot: --format %s: '%s' is not svg, png or none", s,
					  tok);
	}
	if (!o->svg && !o->png)
		return cs_err_set(err, -CS_EUSAGE, "plot: --format %s: no format", s);
	return 0;
}

static int parse_plot_opts(int argc, char **argv, struct popts *o, struct cs_err *err)
{
	enum { OPT_WHERE = 256, OPT_SPEEDUP, OPT_NOERR, OPT_NOGAP };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"metric", required_argument, NULL, 'm'},
	    {"baseline", required_argument, NULL, 'b'},
	    {"group-by", required_argument, NULL, 'g'},
	    {"x", required_argument, NULL, 'x'},
	    {"where", required_argument, NULL, OPT_WHERE},
	    {"speedup", no_argument, NULL, OPT_SPEEDUP},
	    {"format", required_argument, NULL, 'f'},
	    {"title", required_argument, NULL, 't'},
	    {"no-errorbars", no_argument, NULL, OPT_NOERR},
	    {"no-gap-warning", no_argument, NULL, OPT_NOGAP},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->svg = o->png = true;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:m:b:g:x:f:t:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'm':
			o->metric = optarg;
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'g':
			o->group_by = optarg;
			break;
		case 'x':
			o->x = optarg;
			break;
		case 't':
			o->title = optarg;
			break;
		case 'f':
			if ((rc = parse_format(optarg, o, err)))
				return rc;
			break;
		case OPT_WHERE:
			if (o->nwhere == PLOT_MAX_WHERE)
				return cs_err_set(err, -CS_EUSAGE,
						  "plot: more than %d --where options",
						  PLOT_MAX_WHERE);
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return cs_err_set(
				    err, -CS_EUSAGE,
				    "plot: --where %s: expected COLUMN=VALUE[,VALUE...]", optarg);
			o->where[o->nwhere++] = optarg;
			break;
		case OPT_SPEEDUP:
			o->speedup = true;
			break;
		case OPT_NOERR:
			o->no_errorbars = true;
			break;
		case OPT_NOGAP:
			o->no_gap_warning = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
			return cs_err_set(err, -CS_EUSAGE, "plot: option %s needs a value",
					  argv[optind - 1]);
		default:
			return cs_err_set(err, -CS_EUSAGE,
					  "plot: unknown option '%s' (see cohscope plot --help)",
					  argv[optind - 1]);
		}
	}
	o->files = argv + optind;
	o->nfiles = argc - optind;
	if (o->help)
		return 0;
	if (o->nfiles < 1)
		return cs_err_set(err, -CS_EUSAGE,
				  "plot: no results file (cohscope plot RESULTS... -o PREFIX)");
	if (!o->out)
		return cs_err_set(err, -CS_EUSAGE, "plot: -o PREFIX is required");
	if (!o->out[0] || o->out[strlen(o->out) - 1] == '/')
		return cs_err_set(err, -CS_EUSAGE,
				  "plot: -o %s: expected a file name prefix, e.g. out/fig", o->out);
	return 0;
}

/* ---- the chart ---------------------------------------------------------------------------- */

enum cell_state { CELL_NONE, CELL_OK, CELL_FAILED, CELL_NOVALUE };

struct cell {
	enum cell_state st;
	const struct prow *row; /* the point that gave the value, or the failed one */
	double v, half;
};

struct strlist {
	char **s;
	size_t n, cap;
};

static void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
}

/* The index of s in l, added at the end if new; -CS_ENOMEM. */
static long strlist_index(struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->s[i], s) == 0)
			return (long)i;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **n = realloc(l->s, cap * sizeof(*n));

		if (!n)
			return -CS_ENOMEM;
		l->s = n;
		l->cap = cap;
	}
	l->s[l->n] = strdup(s);
	if (!l->s[l->n])
		return -CS_ENOMEM;
	return (long)l->n++;
}

static const char *const palette[] = {"#505050", "#0072b2", "#d55e00", "#009e73",
				      "#e69f00", "#56b4e9", "#cc79a7", "#b0b0b0"};
static const char *const fills[] = {"solid 1.0", "pattern 4", "pattern 5", "pattern 1",
				    "pattern 2", "pattern 6", "pattern 7"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))
#define NFILLS	 (sizeof(fills) / sizeof(fills[0]))

struct chart {
	const char *metric; /* the column */
	const char *half;   /* the half-width column or NULL */
	bool speedup, errbars;
	char group_cols[256], x_col[128];
	struct strlist wl, grp, colours, fills;
	long *gcolour, *gfill; /* per group */
	size_t base;
	struct cell *cell;    /* [w * ngrp + g] */
	double *ratio, *rerr; /* [(nwl + 1) * ngrp]: the last row is the gmean; NaN: no bar */
	unsigned *gm_n;	      /* benchmarks in each group's gmean */
	const struct popts *o;
};

static void chart_free(struct chart *ch)
{
	strlist_free(&ch->wl);
	strlist_free(&ch->grp);
	strlist_free(&ch->colours);
	strlist_free(&ch->fills);
	free(ch->gcolour);
	free(ch->gfill);
	free(ch->cell);
	free(ch->ratio);
	free(ch->rerr);
	free(ch->gm_n);
}

/* The input files, "a.csv, b.json", for messages about all of them. */
static const char *files_text(const struct popts *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < o->nfiles && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", o->files[i]);
	return buf;
}

/* A number (blanks around allowed): 0; no value: 1; not a finite non-negative number: -1. */
static int parse_value(const char *s, double *v)
{
	char *end;

	if (!s)
		return 1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 1;
	errno = 0;
	*v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == s || *end || !isfinite(*v) || *v < 0)
		return -1;
	return 0;
}

/* The numeric columns, "a, b, c", for a message naming what --metric could be. */
static void numeric_columns(const struct ptable *t, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t c = 0; c < t->ncol && n < len; c++) {
		size_t seen = 0;
		bool num = true;

		for (size_t r = 0; r < t->nrow && num; r++) {
			const char *s = row_get(&t->row[r], (long)c);
			char *end;

			if (!s)
				continue;
			strtod(s, &end);
			num = end != s && *end == 0;
			seen++;
		}
		if (num && seen)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", t->col[c]);
	}
}

static bool value_in(const char *v, const char *list)
{
	size_t n = strlen(v);

	for (const char *p = list;;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && strncmp(p, v, n) == 0)
			return true;
		if (!e)
			return false;
		p = e + 1;
	}
}

/* Whether the point verified: a status column other than ok/verified/pass/... or a verified
 * column false fails it; *why says how. */
static bool point_ok(const struct prow *r, long status_col, long verified_col, char *why,
		     size_t len)
{
	static const char *const good[] = {"ok",      "verified", "pass",      "passed",
					   "success", "done",	  "completed", "0"};
	const char *s = row_get(r, status_col), *v = row_get(r, verified_col);

	if (s) {
		bool ok = false;

		for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
			ok = ok || strcasecmp(s, good[i]) == 0;
		if (!ok) {
			snprintf(why, len, "failed: status '%.40s%s'", s,
				 strlen(s) > 40 ? "..." : "");
			return false;
		}
	}
	if (v && (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0)) {
		snprintf(why, len, "failed: not verified");
		return false;
	}
	return true;
}

/* The group columns: --group-by, else config, else coherence.protocol and/or core.consistency,
 * else protocol and/or consistency. */
static int group_columns(const struct ptable *t, const struct popts *o, long *gc, size_t *ngc,
			 char *names, size_t names_len, const char *files, struct cs_err *err)
{
	static const char *const dflt[][2] = {{"config", NULL},
					      {"coherence.protocol", "core.consistency"},
					      {"protocol", "consistency"}};
	char buf[256];

	*ngc = 0;
	names[0] = 0;
	if (o->group_by) {
		if (strlen(o->group_by) >= sizeof(buf))
			return cs_err_set(err, -CS_EUSAGE, "plot: --group-by: too long");
		strcpy(buf, o->group_by);
		for (char *s = buf, *e; s; s = e) {
			long c;

			e = strchr(s, ',');
			if (e)
				*e++ = 0;
			if (!*s)
				return cs_err_set(err, -CS_EUSAGE,
						  "plot: --group-by %s: an empty column name",
						  o->group_by);
			if (*ngc == PLOT_MAX_GROUP_COLS)
				return cs_err_set(err, -CS_EUSAGE,
						  "plot: --group-by: more than %d columns",
						  PLOT_MAX_GROUP_COLS);
			c = col_find(t, s);
			if (c == -2)
				return cs_err_set(err, -CS_EINVAL,
						  "%s: several columns end in '.%s' (--group-by): "
						  "name one in full",
						  files, s);
			if (c < 0)
				return cs_err_set(err, -CS_EINVAL,
						  "%s: no column '%s' (--group-by)", files, s);
			gc[(*ngc)++] = c;
		}
	} else {
		for (size_t d = 0; d < sizeof(dflt) / sizeof(dflt[0]) && !*ngc; d++)
			for (size_t i = 0; i < 2; i++) {
				long c = dflt[d][i] ? col_find(t, dflt[d][i]) : -1;

				if (c >= 0)
					gc[(*ngc)++] = c;
			}
		if (!*ngc)
			return cs_err_set(err, -CS_EINVAL,
					  "%s: no config, coherence.protocol or protocol column to "
					  "group the points by (use --group-by COLUMN)",
					  files);
	}
	for (size_t i = 0, n = 0; i < *ngc && n < names_len; i++)
		n +=
		    (size_t)snprintf(names + n, names_len - n, "%s%s", i ? "," : "", t->col[gc[i]]);
	return 0;
}

/* label = the row's values of the group columns joined by '/' (from `from`, `n` of them). */
static int group_label(const struct prow *r, const long *gc, size_t from, size_t n,
		       const struct ptable *t, struct sbuf *label, struct cs_err *err)
{
	char where[600];

	label->len = 0;
	sb_putn(label, "", 0);
	for (size_t i = from; i < from + n; i++) {
		const char *v = row_get(r, gc[i]);

		if (!v)
			return cs_err_set(err, -CS_EINVAL,
					  "%s: no value in column '%s' (--group-by)",
					  row_where(r, where, sizeof(where)), t->col[gc[i]]);
		if (i > from)
			sb_putn(label, "/", 1);
		sb_putn(label, v, strlen(v));
	}
	return label->oom ? cs_err_set(err, -CS_ENOMEM, "out of memory") : 0;
}

/* Metric aliases: performance/speedup, traffic, energy (when no column has that name). */
static const char *metric_column(const struct ptable *t, const char *m, bool *speedup)
{
	if (col_find(t, m) != -1)
		return m;
	if (strcmp(m, "performance") == 0 || strcmp(m, "speedup") == 0) {
		*speedup = true;
		return "cycles";
	}
	if (strcmp(m, "traffic") == 0)
		return col_find(t, "traffic_bytes") >= 0 ? "traffic_bytes" : "noc_bytes";
	if (strcmp(m, "energy") == 0)
		return "energy_j";
	return m;
}

/* The metric's half-width column: M_half, STEM_half_UNIT (energy_j: energy_half_j), STEM_half
 * (traffic_bytes: traffic_half); -1 if none. */
static long half_column(const struct ptable *t, const char *m)
{
	const char *us = strrchr(m, '_');
	char name[300];
	long c;

	snprintf(name, sizeof(name), "%s_half", m);
	if ((c = col_find(t, name)) >= 0)
		return c;
	if (!us || us == m)
		return -1;
	snprintf(name, sizeof(name), "%.*s_half%s", (int)(us - m), m, us);
	if ((c = col_find(t, name)) >= 0)
		return c;
	snprintf(name, sizeof(name), "%.*s_half", (int)(us - m), m);
	return col_find(t, name) >= 0 ? col_find(t, name) : -1;
}

/* Why a cell has no value, for the warning line. */
static const char *cell_why(const struct chart *ch, const struct cell *c, long sc, long vc,
			    char *buf, size_t len)
{
	if (c->st == CELL_FAILED) {
		point_ok(c->row, sc, vc, buf, len);
		return buf;
	}
	if (c->st == CELL_NOVALUE) {
		snprintf(buf, len, "no %s value", ch->metric);
		return buf;
	}
	return "no point";
}

/* Reads the points into ch: benchmarks and groups in file order, one value per (benchmark,
 * group), then the ratios to the baseline and the gmeans. Bars left out go to warn. */
static int chart_build(struct chart *ch, const struct ptable *t, const struct popts *o,
		       struct sbuf *warn, struct cs_err *err)
{
	char files[512], where[600], where2[600], cols[400], why[80];
	long gc[PLOT_MAX_GROUP_COLS], xc, mc, hc = -1, sc, vc, wc[PLOT_MAX_WHERE];
	const char *wv[PLOT_MAX_WHERE];
	size_t ngc, ng, nw, nskip = 0, ngm = 0;
	struct sbuf label = {0};
	bool *keep = NULL;
	int rc = 0;

	files_text(o, files, sizeof(files));
	ch->o = o;
	if (t->nrow == 0)
		return cs_err_set(err, -CS_EINVAL, "%s: no points", files);
	ch->speedup = o->speedup;
	ch->metric = metric_column(t, o->metric ? o->metric : "cycles", &ch->speedup);
	mc = col_find(t, ch->metric);
	if (mc == -2)
		return cs_err_set(err, -CS_EINVAL,
				  "%s: several columns end in '.%s' (--metric): name one in full",
				  files, ch->metric);
	if (mc < 0) {
		numeric_columns(t, cols, sizeof(cols));
		return cs_err_set(err, -CS_EINVAL, "%s: no column '%s' for --metric (numeric: %s)",
				  files, ch->metric, cols[0] ? cols : "none");
	}
	ch->metric = t->col[mc];
	if (!o->no_errorbars && (hc = half_column(t, t->col[mc])) >= 0)
		ch->half = t->col[hc];
	if (o->x) {
		xc = col_find(t, o->x);
		if (xc < 0)
			return cs_err_set(err, -CS_EINVAL, "%s: no column '%s' (--x)", files, o->x);
	} else {
		xc = col_find(t, "workload");
		if (xc < 0)
			xc = col_find(t, "benchmark");
		if (xc < 0)
			return cs_err_set(err, -CS_EINVAL,
					  "%s: no workload or benchmark column (use --x COLUMN)",
					  files);
	}
	snprintf(ch->x_col, sizeof(ch->x_col), "%s", t->col[xc]);
	rc = group_columns(t, o, gc, &ngc, ch->group_cols, sizeof(ch->group_cols), files, err);
	if (rc)
		return rc;
	for (int i = 0; i < o->nwhere; i++) {
		char name[256];
		const char *eq = strchr(o->where[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - o->where[i]), o->where[i]);
		wc[i] = col_find(t, name);
		wv[i] = eq + 1;
		if (wc[i] < 0)
			return cs_err_set(err, -CS_EINVAL, "%s: no column '%s' (--where)", files,
					  name);
	}
	sc = col_find(t, "status");
	vc = col_find(t, "verified");

	/* pass 1: the points kept, the benchmarks and the groups in file order */
	keep = calloc(t->nrow, sizeof(*keep));
	if (!keep)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (size_t r = 0; r < t->nrow && !rc; r++) {
		const struct prow *p = &t->row[r];
		const char *x = row_get(p, xc);
		size_t ngrp_before;
		long g, w;

		keep[r] = true;
		for (int i = 0; i < o->nwhere && keep[r]; i++)
			keep[r] = value_in(row_get(p, wc[i]) ? row_get(p, wc[i]) : "", wv[i]);
		if (!keep[r])
			continue;
		if (!x) {
			rc = cs_err_set(err, -CS_EINVAL, "%s: no value in column '%s'",
					row_where(p, where, sizeof(where)), t->col[xc]);
			break;
		}
		if ((rc = group_label(p, gc, 0, ngc, t, &label, err)))
			break;
		ngrp_before = ch->grp.n;
		w = strlist_index(&ch->wl, x);
		g = strlist_index(&ch->grp, label.s);
		if (w < 0 || g < 0) {
			rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
			break;
		}
		if (ch->grp.n > ngrp_before) { /* a new group: its colour and fill */
			long *nc = realloc(ch->gcolour, ch->grp.n * sizeof(*nc)), *nf;

			if (nc)
				ch->gcolour = nc;
			nf = nc ? realloc(ch->gfill, ch->grp.n * sizeof(*nf)) : NULL;
			if (nf)
				ch->gfill = nf;
			if (!nc || !nf) {
				rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
				break;
			}
			if (ngc == 1) { /* colours first, then fills */
				ch->gcolour[g] = g % (long)NPALETTE;
				ch->gfill[g] = g / (long)NPALETTE;
			} else {
				if ((rc = group_label(p, gc, 0, ngc - 1, t, &label, err)))
					break;
				ch->gcolour[g] = strlist_index(&ch->colours, label.s);
				if ((rc = group_label(p, gc, ngc - 1, 1, t, &label, err)))
					break;
				ch->gfill[g] = strlist_index(&ch->fills, label.s);
				if (ch->gcolour[g] < 0 || ch->gfill[g] < 0) {
					rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
					break;
				}
			}
		}
	}
	if (rc)
		goto out;
	ng = ch->grp.n;
	nw = ch->wl.n;
	if (nw == 0) {
		rc = cs_err_set(err, -CS_EINVAL, "%s: no points left by --where", files);
		goto out;
	}

	/* the baseline */
	if (o->baseline) {
		size_t hits = 0, hit = 0;
		bool exact = false;

		for (size_t g = 0; g < ng && !exact; g++)
			if (strcmp(ch->grp.s[g], o->baseline) == 0)
				exact = true, hit = g;
		/* else ignoring case, if that names one group */
		for (size_t g = 0; g < ng && !exact; g++)
			if (strcasecmp(ch->grp.s[g], o->baseline) == 0 && hits++ == 0)
				hit = g;
		if (!exact && hits != 1) {
			size_t n = 0;

			cols[0] = 0;
			for (size_t g = 0; g < ng && n < sizeof(cols); g++)
				n += (size_t)snprintf(cols + n, sizeof(cols) - n, "%s%s",
						      g ? ", " : "", ch->grp.s[g]);
			rc = cs_err_set(err, -CS_EINVAL,
					"%s: no group '%s' for --baseline (groups by %s: %s)",
					files, o->baseline, ch->group_cols, cols);
			goto out;
		}
		ch->base = hit;
	}

	/* pass 2: one value per benchmark and group */
	ch->cell = calloc(nw * ng, sizeof(*ch->cell));
	ch->ratio = malloc((nw + 1) * ng * sizeof(*ch->ratio));
	ch->rerr = malloc((nw + 1) * ng * sizeof(*ch->rerr));
	ch->gm_n = calloc(ng, sizeof(*ch->gm_n));
	if (!ch->cell || !ch->ratio || !ch->rerr || !ch->gm_n) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < t->nrow && !rc; r++) {
		const struct prow *p = &t->row[r];
		struct cell *c;
		double v, h = 0;
		int pv;

		if (!keep[r])
			continue;
		if ((rc = group_label(p, gc, 0, ngc, t, &label, err)))
			break;
		c = &ch->cell[(size_t)strlist_index(&ch->wl, row_get(p, xc)) * ng +
			      (size_t)strlist_index(&ch->grp, label.s)];
		if (!point_ok(p, sc, vc, why, sizeof(why))) {
			if (c->st == CELL_NONE)
				*c = (struct cell){.st = CELL_FAILED, .row = p};
			continue;
		}
		pv = parse_value(row_get(p, mc), &v);
		if (pv < 0) {
			rc = cs_err_set(
			    err, -CS_EINVAL, "%s: column '%s': '%s' is not a non-negative number",
			    row_where(p, where, sizeof(where)), ch->metric, row_get(p, mc));
			break;
		}
		if (pv > 0) {
			if (c->st == CELL_NONE || c->st == CELL_FAILED)
				*c = (struct cell){.st = CELL_NOVALUE, .row = p};
			continue;
		}
		if (hc >= 0 && parse_value(row_get(p, hc), &h) < 0) {
			rc = cs_err_set(
			    err, -CS_EINVAL, "%s: column '%s': '%s' is not a non-negative number",
			    row_where(p, where, sizeof(where)), t->col[hc], row_get(p, hc));
			break;
		}
		if (c->st == CELL_OK) {
			rc = cs_err_set(
			    err, -CS_EINVAL,
			    "%s: a second point for %s in group %s (the first: %s); add "
			    "the column that tells them apart to --group-by, or pick one "
			    "with --where",
			    row_where(p, where, sizeof(where)), row_get(p, xc), label.s,
			    row_where(c->row, where2, sizeof(where2)));
			break;
		}
		*c = (struct cell){.st = CELL_OK, .row = p, .v = v, .half = h};
	}
	if (rc)
		goto out;

	/* the ratios */
	{
		bool any = false;

		for (size_t w = 0; w < nw; w++)
			any = any || ch->cell[w * ng + ch->base].st == CELL_OK;
		if (!any) {
			rc = cs_err_set(err, -CS_EINVAL,
					"%s: the baseline group '%s' has no point with a %s value",
					files, ch->grp.s[ch->base], ch->metric);
			goto out;
		}
	}
	for (size_t w = 0; w < nw; w++) {
		const struct cell *b = &ch->cell[w * ng + ch->base];

		for (size_t g = 0; g < ng; g++) {
			ch->ratio[w * ng + g] = NAN;
			ch->rerr[w * ng + g] = NAN;
		}
		if (b->st != CELL_OK) {
			sb_printf(warn, "%s %s (baseline %s: %s)", nskip ? "," : "", ch->wl.s[w],
				  ch->grp.s[ch->base], cell_why(ch, b, sc, vc, why, sizeof(why)));
			nskip++;
			continue;
		}
		for (size_t g = 0; g < ng; g++) {
			const struct cell *c = &ch->cell[w * ng + g];
			double *r = &ch->ratio[w * ng + g], *e = &ch->rerr[w * ng + g];
			const char *bad = NULL;

			if (c->st != CELL_OK) {
				bad = cell_why(ch, c, sc, vc, why, sizeof(why));
			} else if (g == ch->base) {
				*r = 1;
				*e = 0;
			} else if (ch->speedup && c->v > 0) {
				/* r = b / c; first-order half-width, independent errors */
				*r = b->v / c->v;
				*e = sqrt(pow(b->half / c->v, 2) +
					  pow(b->v * c->half / (c->v * c->v), 2));
			} else if (!ch->speedup && b->v > 0) {
				*r = c->v / b->v;
				*e = sqrt(pow(c->half / b->v, 2) +
					  pow(c->v * b->half / (b->v * b->v), 2));
			} else {
				bad = ch->speedup ? "value 0" : "baseline value 0";
			}
			if (bad) {
				sb_printf(warn, "%s %s under %s (%s)", nskip ? "," : "",
					  ch->wl.s[w], ch->grp.s[g], bad);
				nskip++;
			}
		}
	}

	/* the geometric means over the benchmarks with a bar */
	for (size_t g = 0; g < ng; g++) {
		double sl = 0, se = 0, *gm = &ch->ratio[nw * ng + g], *ge = &ch->rerr[nw * ng + g];
		unsigned n = 0;
		bool zero = false;

		for (size_t w = 0; w < nw; w++) {
			double r = ch->ratio[w * ng + g];

			if (isnan(r))
				continue;
			n++;
			if (r == 0) {
				zero = true;
				continue;
			}
			sl += log(r);
			se += pow(ch->rerr[w * ng + g] / r, 2);
		}
		ch->gm_n[g] = n;
		*gm = n == 0 ? NAN : zero ? 0 : exp(sl / n);
		*ge = n == 0 ? NAN : zero ? 0 : *gm * sqrt(se) / n;
		if (n < nw) {
			sb_printf(warn, "%s gmean of %s over %u of %zu benchmarks",
				  ngm	  ? ","
				  : nskip ? ";"
					  : "",
				  ch->grp.s[g], n, nw);
			ngm++;
		}
	}
	if (nskip + ngm) {
		/* one line: "plot: no bar for: X under G (why), ...; gmean of G over n of m" */
		struct sbuf line = {0};

		sb_printf(&line, "plot: %s%s", nskip ? "no bar for:" : "", warn->s);
		free(warn->s);
		*warn = line;
	}
	for (size_t i = 0; i < (nw + 1) * ng && hc >= 0; i++)
		ch->errbars = ch->errbars || (!isnan(ch->rerr[i]) && ch->rerr[i] > 0);
	if (warn->oom || label.oom)
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
out:
	free(label.s);
	free(keep);
	return rc;
}

/* ---- the data and the script -------------------------------------------------------------- */

/* Text for a gnuplot single-quoted string: ' doubled, control characters as '?'. */
static void gp_quote(struct sbuf *b, const char *s)
{
	sb_putn(b, "'", 1);
	for (; *s; s++) {
		if (*s == '\'')
			sb_putn(b, "''", 2);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			sb_putn(b, "?", 1);
		else
			sb_putn(b, s, 1);
	}
	sb_putn(b, "'", 1);
}

/* A label in the data: double-quoted; a double quote inside becomes ' (gnuplot's data files
 * have no escape for it), control characters '?'. */
static void dat_quote(struct sbuf *b, const char *s)
{
	sb_putn(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			sb_putn(b, "'", 1);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			sb_putn(b, "?", 1);
		else
			sb_putn(b, s, 1);
	}
	sb_putn(b, "\"", 1);
}

static void dat_num(struct sbuf *b, double v)
{
	if (isnan(v))
		sb_printf(b, " NaN");
	else
		sb_printf(b, " %.6f", v);
}

/* What a bar shows, e.g. "speedup: BL's cycles / cycles". */
static void describe(const struct chart *ch, struct sbuf *b)
{
	const char *base = ch->grp.s[ch->base];

	if (ch->speedup)
		sb_printf(b, "%s: %s's %s / %s (higher is better)",
			  strcmp(ch->metric, "cycles") == 0 ? "speedup" : "inverse ratio", base,
			  ch->metric, ch->metric);
	else
		sb_printf(b, "%s / %s's %s", ch->metric, base, ch->metric);
}

static void write_dat(const struct chart *ch, struct sbuf *b)
{
	size_t ng = ch->grp.n, nw = ch->wl.n;

	sb_printf(b, "# cohscope plot: ");
	describe(ch, b);
	sb_printf(b, "\n# inputs:");
	for (int i = 0; i < ch->o->nfiles; i++) {
		sb_putn(b, " ", 1);
		dat_quote(b, ch->o->files[i]);
	}
	sb_printf(b,
		  "\n# one row per %s (file order), one column per group of %s (file order); "
		  "baseline ",
		  ch->x_col, ch->group_cols);
	dat_quote(b, ch->grp.s[ch->base]);
	sb_printf(b, "\n# last row: geometric mean over the benchmarks with a bar; NaN: no bar\n");
	if (ch->errbars)
		sb_printf(b,
			  "# NAME:err columns: half-widths from %s (first order, independent "
			  "errors)\n",
			  ch->half);
	sb_printf(b, "# gmean over:");
	for (size_t g = 0; g < ng; g++)
		sb_printf(b, " %u", ch->gm_n[g]);
	sb_printf(b, " of %zu benchmarks\n# ", nw);
	dat_quote(b, ch->x_col);
	for (size_t g = 0; g < ng; g++) {
		sb_putn(b, " ", 1);
		dat_quote(b, ch->grp.s[g]);
		if (ch->errbars) {
			struct sbuf e = {0};

			sb_printf(&e, "%s:err", ch->grp.s[g]);
			sb_putn(b, " ", 1);
			dat_quote(b, sb_str(&e) ? sb_str(&e) : "");
			if (e.oom)
				b->oom = true;
			free(e.s);
		}
	}
	sb_putn(b, "\n", 1);
	for (size_t w = 0; w <= nw; w++) {
		dat_quote(b, w < nw ? ch->wl.s[w] : "gmean");
		for (size_t g = 0; g < ng; g++) {
			dat_num(b, ch->ratio[w * ng + g]);
			if (ch->errbars)
				dat_num(b, ch->rerr[w * ng + g]);
		}
		sb_putn(b, "\n", 1);
	}
}

static void gp_plot(const struct chart *ch, struct sbuf *b)
{
	for (size_t g = 0; g < ch->grp.n; g++) {
		size_t col = ch->errbars ? 2 + 2 * g : 2 + g;
		size_t ci = (size_t)ch->gcolour[g], fi = (size_t)ch->gfill[g];

		sb_printf(b, "%s", g ? ", \\\n     '' using " : "\tplot $data using ");
		if (ch->errbars)
			sb_printf(b, "%zu:%zu", col, col + 1);
		else
			sb_printf(b, "%zu", col);
		sb_printf(b, "%s title ", g ? "" : ":xtic(1)");
		gp_quote(b, ch->grp.s[g]);
		sb_printf(b, " lc rgb '%s' fs %s border lt -1", palette[ci % NPALETTE],
			  fills[fi % NFILLS]);
	}
	sb_putn(b, "\n", 1);
}

static const char *metric_label(const struct chart *ch)
{
	static const char *const names[][2] = {{"noc_bytes", "NoC traffic"},
					       {"traffic_bytes", "NoC traffic"},
					       {"dram_bytes", "DRAM traffic"},
					       {"energy_j", "Energy"},
					       {"l1_load_hit_rate", "L1 load hit rate"},
					       {"l2_hit_rate", "L2 hit rate"}};

	if (strcmp(ch->metric, "cycles") == 0)
		return ch->speedup ? "Speedup" : "Execution time";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(ch->metric, names[i][0]) == 0)
			return names[i][1];
	return ch->metric;
}

/* The top of the y axis: 8% over the tallest bar (at least 1), with its error bar up to half
 * the bar again (a taller error bar is cut). */
static double y_max(const struct chart *ch)
{
	double top = 1;

	for (size_t i = 0; i < (ch->wl.n + 1) * ch->grp.n; i++) {
		double r = ch->ratio[i], e = ch->errbars && !isnan(ch->rerr[i]) ? ch->rerr[i] : 0;

		if (isnan(r))
			continue;
		e = e < r / 2 ? e : r / 2;
		top = r + e > top ? r + e : top;
	}
	return 1.08 * top;
}

static void write_gp(const struct chart *ch, const char *dat, const char *base, struct sbuf *b)
{
	size_t ng = ch->grp.n, nw = ch->wl.n, clusters = nw + 1, longest = 5;
	size_t cluster_px = ng * 14 + 24, width = 120 + clusters * cluster_px, height = 380;
	struct sbuf s = {0};

	for (size_t w = 0; w < nw; w++)
		longest = strlen(ch->wl.s[w]) > longest ? strlen(ch->wl.s[w]) : longest;
	width = width < 480 ? 480 : width > 4000 ? 4000 : width;
	sb_printf(b, "# %s.gp - written by cohscope plot (docs/plots.md): ", base);
	describe(ch, b);
	sb_printf(b,
		  "\n# Self-contained (the data is below, as in %s.dat). `gnuplot %s.gp` writes "
		  "%s.svg and %s.png\n# in the current directory; other names: gnuplot -e "
		  "\"svgout='a.svg'; pngout=''\" %s.gp ('' skips one).\n",
		  base, base, base, base, base);
	sb_printf(b, "if (!exists(\"svgout\")) svgout = ");
	sb_printf(&s, "%s.svg", base);
	gp_quote(b, sb_str(&s) ? sb_str(&s) : "");
	s.len = 0;
	sb_printf(b, "\nif (!exists(\"pngout\")) pngout = ");
	sb_printf(&s, "%s.png", base);
	gp_quote(b, sb_str(&s) ? sb_str(&s) : "");
	if (s.oom)
		b->oom = true;
	free(s.s);
	sb_printf(b, "\n\n$data << EOD\n%sEOD\n\n", dat);
	sb_printf(b, "set style data histograms\n");
	if (ch->errbars)
		sb_printf(b, "set style histogram errorbars gap 1 lw 1\n");
	else
		sb_printf(b, "set style histogram clustered gap 1\n");
	sb_printf(b, "set style fill solid 1.0 border lt -1\n"
		     "set key above horizontal center samplen 2.5 spacing 1.1 width 1\n");
	if (ch->o->title) {
		sb_printf(b, "set title ");
		gp_quote(b, ch->o->title);
		sb_putn(b, "\n", 1);
	}
	sb_printf(b, "set ylabel ");
	{
		struct sbuf l = {0};

		sb_printf(&l, "%s (normalized to %s)", metric_label(ch), ch->grp.s[ch->base]);
		gp_quote(b, sb_str(&l) ? sb_str(&l) : "");
		if (l.oom)
			b->oom = true;
		free(l.s);
	}
	sb_printf(b, "\nset yrange [0:%.4g]\n", y_max(ch));
	sb_printf(b, "set border 3\n"
		     "set grid ytics lt 1 lc rgb '#d8d8d8'\n"
		     "set ytics nomirror\n");
	if (longest * 7 > cluster_px)
		sb_printf(b, "set xtics nomirror scale 0 rotate by -35 left\n");
	else
		sb_printf(b, "set xtics nomirror scale 0\n");
	sb_printf(b,
		  "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "
		  "'#303030' front\n"
		  "set arrow 2 from first %zu.5, graph 0 to first %zu.5, graph 1 nohead dt 3 lc "
		  "rgb '#808080'\n",
		  nw - 1, nw - 1);
	sb_printf(b,
		  "if (strlen(svgout) > 0) {\n"
		  "\tset terminal svg size %zu,%zu dynamic noenhanced font 'Helvetica,12' "
		  "background '#ffffff'\n"
		  "\tset output svgout\n",
		  width, height);
	gp_plot(ch, b);
	sb_printf(b, "\tset output\n}\n");
	sb_printf(b,
		  "if (strlen(pngout) > 0) {\n"
		  "\tif (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		  "\t\tset terminal pngcairo size %zu,%zu noenhanced font 'Sans,10' background "
		  "'#ffffff'\n"
		  "\t} else {\n"
		  "\t\tset terminal png size %zu,%zu noenhanced background '#ffffff'\n"
		  "\t}\n"
		  "\tset output pngout\n",
		  width, height, width, height);
	gp_plot(ch, b);
	sb_printf(b, "\tset output\n}\n");
}

static void print_table(const struct chart *ch)
{
	size_t ng = ch->grp.n, nw = ch->wl.n, ww = 6;

	for (size_t w = 0; w < nw; w++)
		ww = strlen(ch->wl.s[w]) > ww ? strlen(ch->wl.s[w]) : ww;
	printf("  %-*s", (int)ww, ch->x_col);
	for (size_t g = 0; g < ng; g++)
		printf(" %*s", (int)(strlen(ch->grp.s[g]) > 8 ? strlen(ch->grp.s[g]) : 8),
		       ch->grp.s[g]);
	printf("\n");
	for (size_t w = 0; w <= nw; w++) {
		printf("  %-*s", (int)ww, w < nw ? ch->wl.s[w] : "gmean");
		for (size_t g = 0; g < ng; g++) {
			int cw = (int)(strlen(ch->grp.s[g]) > 8 ? strlen(ch->grp.s[g]) : 8);
			double r = ch->ratio[w * ng + g];

			if (isnan(r))
				printf(" %*s", cw, "-");
			else
				printf(" %*.3f", cw, r);
		}
		printf("\n");
	}
}

/* ---- writing and gnuplot ------------------------------------------------------------------ */

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -errno;
	ok = fwrite(text, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -(errno ? errno : EIO);
}

/* msg on one line: blanks and line ends squeezed to one space, at most 400 characters. */
static void squeeze(struct sbuf *msg)
{
	size_t o = 0;

	if (!msg->s)
		return;
	for (size_t i = 0; i < msg->len && o < 400; i++) {
		char c = msg->s[i];

		if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
			if (o && msg->s[o - 1] != ' ')
				msg->s[o++] = ' ';
		} else {
			msg->s[o++] = c;
		}
	}
	while (o && msg->s[o - 1] == ' ')
		o--;
	msg->len = o;
	msg->s[o] = 0;
}

/* Runs gnuplot (or $COHSCOPE_GNUPLOT) on script with svgout/pngout set; its output and errors
 * go to msg. 0; -CS_ENOENT: no gnuplot; -CS_EIO: it failed. */
static int run_gnuplot(const char *script, const char *svg, const char *png, struct sbuf *msg)
{
	const char *cmd = getenv("COHSCOPE_GNUPLOT");
	posix_spawn_file_actions_t fa;
	struct sbuf e = {0};
	char *argv[5], chunk[4096];
	int fd[2], rc, st;
	pid_t pid;
	ssize_t n;

	if (!cmd || !cmd[0])
		cmd = "gnuplot";
	sb_printf(&e, "svgout=");
	gp_quote(&e, svg);
	sb_printf(&e, "; pngout=");
	gp_quote(&e, png);
	if (e.oom) {
		free(e.s);
		return -CS_ENOMEM;
	}
	argv[0] = (char *)cmd;
	argv[1] = (char *)"-e";
	argv[2] = e.s;
	argv[3] = (char *)script;
	argv[4] = NULL;
	if (pipe2(fd, O_CLOEXEC)) {
		sb_printf(msg, "pipe: %s", strerror(errno));
		free(e.s);
		return -CS_EIO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	rc = posix_spawnp(&pid, cmd, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	free(e.s);
	if (rc) {
		close(fd[0]);
		sb_printf(msg, "%s: %s", cmd, strerror(rc));
		return rc == ENOENT ? -CS_ENOENT : -CS_EIO;
	}
	while ((n = read(fd[0], chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (msg->len < 4096)
			sb_putn(msg, chunk, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -CS_EIO;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && msg->len == 0)
		return -CS_ENOENT;
	if (msg->len == 0 && WIFEXITED(st))
		sb_printf(msg, "%s: exit status %d", cmd, WEXITSTATUS(st));
	else if (msg->len == 0)
		sb_printf(msg, "%s: killed by signal %d", cmd, WTERMSIG(st));
	return -CS_EIO;
}

static int exit_for(int code)
{
	switch (-code) {
	case CS_EUSAGE:
		return EXIT_USAGE;
	case CS_ENOMEM:
		return EXIT_INTERNAL;
	default:
		return EXIT_INPUT;
	}
}

enum { OUT_DAT, OUT_GP, OUT_SVG, OUT_PNG, OUT_N };

/* Writes the four files through temporaries; on failure none of them is left (but the table
 * and script when gnuplot is missing). *gnuplot_missing tells that case. */
static int write_outputs(const struct popts *o, const char *dat, const char *gp,
			 bool *gnuplot_missing, struct sbuf *msg, char **final)
{
	static const char *const ext[OUT_N] = {".dat", ".gp", ".svg", ".png"};
	bool want[OUT_N] = {true, true, o->svg, o->png}, made[OUT_N] = {false};
	char *tmp[OUT_N] = {NULL};
	int rc = 0;

	for (int i = 0; i < OUT_N && !rc; i++) {
		size_t n = strlen(o->out) + 40;

		final[i] = malloc(n);
		tmp[i] = malloc(n);
		if (!final[i] || !tmp[i]) {
			rc = -CS_ENOMEM;
			break;
		}
		snprintf(final[i], n, "%s%s", o->out, ext[i]);
		snprintf(tmp[i], n, "%s%s.tmp.%ld", o->out, ext[i], (long)getpid());
	}
	if (rc)
		goto out;
	for (int i = OUT_DAT; i <= OUT_GP && !rc; i++) {
		const char *text = i == OUT_DAT ? dat : gp;

		rc = write_file(tmp[i], text, strlen(text));
		made[i] = true;
		if (rc) {
			sb_printf(msg, "%s: cannot write: %s", final[i], strerror(-rc));
			rc = -CS_EIO;
		}
	}
	if (!rc && (want[OUT_SVG] || want[OUT_PNG])) {
		made[OUT_SVG] = want[OUT_SVG];
		made[OUT_PNG] = want[OUT_PNG];
		rc = run_gnuplot(tmp[OUT_GP], want[OUT_SVG] ? tmp[OUT_SVG] : "",
				 want[OUT_PNG] ? tmp[OUT_PNG] : "", msg);
		if (rc == -CS_EIO) {
			struct sbuf m = {0};

			squeeze(msg);
			sb_printf(&m, "gnuplot failed: %s", sb_str(msg) ? sb_str(msg) : "");
			free(msg->s);
			*msg = m;
		}
		if (rc == -CS_ENOENT) {
			*gnuplot_missing = true;
			want[OUT_SVG] = want[OUT_PNG] = false;
			msg->len = 0;
			rc = 0;
		}
		for (int i = OUT_SVG; i <= OUT_PNG && !rc; i++) {
			struct stat st;

			if (want[i] && (stat(tmp[i], &st) || st.st_size == 0)) {
				sb_printf(msg, "gnuplot wrote no %s", final[i]);
				rc = -CS_EIO;
			}
		}
	}
	for (int i = 0; i < OUT_N && !rc; i++)
		if (want[i] && rename(tmp[i], final[i])) {
			sb_printf(msg, "%s: cannot write: %s", final[i], strerror(errno));
			rc = -CS_EIO;
		} else if (want[i]) {
			made[i] = false;
		}
out:
	for (int i = 0; i < OUT_N; i++) {
		if (made[i] && tmp[i])
			unlink(tmp[i]);
		free(tmp[i]);
		if (!want[i] || rc) {
			free(final[i]);
			final[i] = NULL;
		}
	}
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct ptable t = {0};
	struct chart ch = {0};
	struct sbuf warn = {0}, dat = {0}, gp = {0}, msg = {0};
	struct cs_err err = {0};
	struct popts o;
	char *final[OUT_N] = {NULL};
	bool missing = false;
	const char *base;
	int status = 0, rc;

	rc = parse_plot_opts(argc, argv, &o, &err);
	if (rc) {
		cli_say("%s", err.msg);
		return exit_for(rc);
	}
	if (o.help) {
		fputs(plot_help, stdout);
		return 0;
	}
	for (int i = 0; i < o.nfiles && !rc; i++)
		rc = load_file(&t, o.files[i], &err);
	if (!rc)
		rc = chart_build(&ch, &t, &o, &warn, &err);
	if (rc) {
		cli_say("%s", err.msg);
		status = exit_for(rc);
		goto out;
	}
	base = strrchr(o.out, '/') ? strrchr(o.out, '/') + 1 : o.out;
	write_dat(&ch, &dat);
	if (sb_str(&dat))
		write_gp(&ch, sb_str(&dat), base, &gp);
	if (!sb_str(&dat) || !sb_str(&gp)) {
		cli_say("out of memory");
		status = EXIT_INTERNAL;
		goto out;
	}
	rc = write_outputs(&o, dat.s, gp.s, &missing, &msg, final);
	squeeze(&msg);
	if (rc == -CS_ENOMEM) {
		cli_say("out of memory");
		status = EXIT_INTERNAL;
		goto out;
	}
	if (rc) {
		cli_say("plot: %s (nothing written)", msg.s ? msg.s : "gnuplot failed");
		status = EXIT_OUTPUT;
		goto out;
	}
	if (warn.len && !o.no_gap_warning)
		cli_say("%s", warn.s);
	if (msg.len)
		cli_say("plot: gnuplot: %s", msg.s);
	if (!o.quiet) {
		print_table(&ch);
		printf("  wrote");
		for (int i = 0; i < OUT_N; i++)
			if (final[i])
				printf(" %s", final[i]);
		printf("\n");
	}
	if (missing) {
		cli_say(
		    "plot: gnuplot is not installed: wrote %s and %s; run `gnuplot %s.gp` where "
		    "it is for the images",
		    final[OUT_DAT], final[OUT_GP], base);
		if (o.format_given)
			status = EXIT_OUTPUT;
	}
out:
	for (int i = 0; i < OUT_N; i++)
		free(final[i]);
	free(warn.s);
	free(dat.s);
	free(gp.s);
	free(msg.s);
	chart_free(&ch);
	table_free(&t);
	return status;
}
