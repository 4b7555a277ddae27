/*
 * cli/sweep.c - `cohscope sweep` and `cohscope collect`: parameter sweeps (docs/sweeps.md).
 *
 * A sweep file names a base configuration, workloads, fixed overrides and axes. Its points
 * (workloads x axis values, the last axis varying fastest) are each one `cohscope run` process
 * that writes DIR/points/ID.json atomically (cli/cli.c cli_write_atomic), its stderr going to
 * DIR/logs/ID.err. ID is a hash of what the point runs (base as written, workload, overrides in
 * order), so a point keeps its file when other points are added. Everything that ends in the
 * merged results (DIR/results.csv, DIR/results.json) is read back from those files, in point
 * order: the local pool, GNU parallel and Slurm give the same bytes.
 */
#include "cli/cli.h"
#include "cli/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <libconfig.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tlm/system/system.h"
#include "util/config.h"
#include "util/error.h"
#include "util/hostperf.h"
#include "workloads/trace/replay.h"
#include "workloads/trace/trace.h"
#include "workloads/workload.h"

/* The exit statuses of cli/main.c (cli/README.md). */

#define SWEEP_MAX_POINTS 100000
#define SWEEP_MAX_SETS	 256 /* --set on the command line */
#define ERROR_TAIL	 400 /* characters of a failed point's last stderr line */

const char sweep_help[] =
    "usage: cohscope sweep SWEEP_FILE -o DIR [--jobs N] [--resume] [--set SECTION.KEY=VALUE]...\n"
    "                      [--emit-jobs FILE] [--dry-run] [-q]\n"
    "\n"
    "Runs every point of a sweep file (libconfig, docs/sweeps.md): the workloads times the\n"
    "values of each axis, each point one `cohscope run` process writing DIR/points/ID.json\n"
    "whole or not at all (its stderr in DIR/logs/ID.err). Every point is checked against the\n"
    "configuration before anything runs. Then merges the points, in sweep order, into\n"
    "DIR/results.csv and DIR/results.json (host times left out: the same sweep gives the same\n"
    "bytes whatever --jobs). A point that fails is a row with status 'failed'; the others run.\n"
    "\n"
    "  -o, --output DIR       output directory (created if missing): manifest.json, points/,\n"
    "                         logs/, results.csv, results.json\n"
    "  -j, --jobs N           run N points at once (default: the number of CPUs)\n"
    "      --resume           keep the points DIR already holds, run the others (also after\n"
    "                         an interrupted sweep); without it DIR must not hold a sweep\n"
    "      --set K=V          override one parameter for every point (after the file's set,\n"
    "                         e.g. --set workload.size=tiny; repeatable; not an axis key)\n"
    "      --emit-jobs FILE   run nothing: write DIR/manifest.json, one shell command per\n"
    "                         point to FILE (for `parallel < FILE` or `parallel --sshloginfile\n"
    "                         HOSTS < FILE`) and FILE.slurm (for `sbatch FILE.slurm`); then\n"
    "                         `cohscope collect DIR`. With --resume: only the points not done\n"
    "  -n, --dry-run          check the sweep file and list its points (ID and name); write\n"
    "                         nothing\n"
    "  -q, --quiet            no progress lines\n"
    "\n"
    "exit status: 0 every point ran, 1 a point failed, 2 usage error, 3 bad sweep file (one\n"
    "line: FILE:LINE: problem), 4 output not written, 5 out of memory; 128+N when stopped by\n"
    "signal N (the finished points stay; --resume continues)\n";

const char collect_help[] =
    "usage: cohscope collect DIR [-q]\n"
    "\n"
    "Merges the points of the sweep in DIR (DIR/manifest.json, written by `cohscope sweep`,\n"
    "also with --emit-jobs) into DIR/results.csv and DIR/results.json, in sweep order: the\n"
    "same bytes the local pool writes. A point without DIR/points/ID.json is 'failed' when its\n"
    "DIR/logs/ID.err says why, else 'missing'.\n"
    "\n"
    "  -q, --quiet            no summary line\n"
    "\n"
    "exit status: 0 every point is there, 1 a point failed or is missing (the results are\n"
    "still written), 2 usage error, 3 unreadable manifest, 4 results not written\n";

/* ---- small helpers ------------------------------------------------------------------------- */

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* NULL when out of memory. */
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* Grows *p (an array of *cap elements of size sz) to hold n + 1. */
static int grow(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap * 2 : 8;
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, c * sz);
	if (!q)
		return -CS_ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* FNV-1a, 64 bits: a point's ID. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The shortest %g text that reads back to v. */
static void fmt_double(char *buf, size_t len, double v)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static int write_json_atomic(const char *path, json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	char *nl = text ? xasprintf("%s\n", text) : NULL;
	int rc = nl ? cli_write_atomic(path, nl, strlen(nl)) : -CS_ENOMEM;

	free(text);
	free(nl);
	return rc;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return -CS_ENOMEM;
	for (char *s = p + 1; *s && !rc; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0777) && errno != EEXIST)
			rc = -CS_EIO;
		*s = '/';
	}
	if (!rc && mkdir(p, 0777) && errno != EEXIST)
		rc = -CS_EIO;
	free(p);
	return rc;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is text "section.key=..." with both names non-empty and one dot (cs_config_set's rule)?
 * *keylen: the length of "section.key". */
static bool assignment_ok(const char *text, size_t *keylen)
{
	const char *eq = strchr(text, '='), *dot = strchr(text, '.');

	if (!eq || !dot || dot > eq || dot == text || dot + 1 == eq ||
	    memchr(dot + 1, '.', (size_t)(eq - dot - 1)))
		return false;
	*keylen = (size_t)(eq - text);
	return true;
}

static bool same_key(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");

	return la == lb && memcmp(a, b, la) == 0;
}

/* ---- the sweep file ------------------------------------------------------------------------ */

struct sw_set {
	char *text;    /* "section.key=value" */
	unsigned line; /* 0: from the command line */
};

/* One value of an axis: one override (a key axis) or a named bundle of them. */
struct sw_val {
	char *label;
	struct sw_set *sets;
	size_t nsets, cap;
	unsigned line;
};

struct sw_axis {
	char *column; /* the key, or the bundle axis's name */
	struct sw_val *vals;
	size_t nvals, cap;
	unsigned line;
	bool bundle;
};

struct sw_wl {
	char *label; /* as written */
	char *arg;   /* for -w: trace paths made absolute */
	unsigned line;
};

struct sw_point {
	char id[17];
	char *name;
	size_t wl;
	size_t *vi; /* value index per axis */
};

struct sweep {
	char *path; /* as given */
	char *abspath;
	char *dir; /* of abspath: relative paths in the file start here */
	char *base_text, *base;
	unsigned base_line;
	struct sw_wl *wl;
	size_t nwl, cap_wl;
	struct sw_set *fixed; /* the file's set, then the command line's */
	size_t nfixed, cap_fixed;
	struct sw_axis *axes;
	size_t naxes, cap_axes;
	struct sw_point *pts;
	size_t npts;
};

static void sweep_free(struct sweep *sw)
{
	if (!sw)
		return;
	for (size_t i = 0; i < sw->nwl; i++) {
		free(sw->wl[i].label);
		free(sw->wl[i].arg);
	}
	for (size_t i = 0; i < sw->nfixed; i++)
		free(sw->fixed[i].text);
	for (size_t a = 0; a < sw->naxes; a++) {
		for (size_t v = 0; v < sw->axes[a].nvals; v++) {
			struct sw_val *val = &sw->axes[a].vals[v];

			for (size_t s = 0; s < val->nsets; s++)
				free(val->sets[s].text);
			free(val->sets);
			free(val->label);
		}
		free(sw->axes[a].vals);
		free(sw->axes[a].column);
	}
	for (size_t p = 0; p < sw->npts; p++) {
		free(sw->pts[p].name);
		free(sw->pts[p].vi);
	}
	free(sw->pts);
	free(sw->wl);
	free(sw->fixed);
	free(sw->axes);
	free(sw->path);
	free(sw->abspath);
	free(sw->dir);
	free(sw->base_text);
	free(sw->base);
	memset(sw, 0, sizeof(*sw));
}

static int at(struct cs_err *err, const struct sweep *sw, unsigned line, int code, const char *fmt,
	      ...) __attribute__((format(printf, 5, 6)));

/* "FILE:LINE: message" for the sweep file. */
static int at(struct cs_err *err, const struct sweep *sw, unsigned line, int code, const char *fmt,
	      ...)
{
	va_list ap;

	va_start(ap, fmt);
	cs_err_vset_at(err, code, sw->path, line, fmt, ap);
	va_end(ap);
	return code;
}

static unsigned line_of(const config_setting_t *s)
{
	return config_setting_source_line(s);
}

/* A scalar as --set text: integers in decimal, reals in their shortest exact form, booleans as
 * true/false, strings as they are. NULL for a group, array or list. */
static char *scalar_text(const config_setting_t *s, bool *nomem)
{
	char buf[64];
	const char *str;

	*nomem = false;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		snprintf(buf, sizeof(buf), "%d", config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, sizeof(buf), "%lld", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		fmt_double(buf, sizeof(buf), config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, sizeof(buf), "%s", config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		str = config_setting_get_string(s);
		*nomem = !(str = strdup(str ? str : ""));
		return (char *)str;
	default:
		return NULL;
	}
	*nomem = !(str = strdup(buf));
	return (char *)str;
}

static bool is_seq(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_ARRAY ||
	       config_setting_type(s) == CONFIG_TYPE_LIST;
}

static int add_set(struct sw_set **v, size_t *n, size_t *cap, const char *text, unsigned line)
{
	char *t;

	if (grow((void **)v, cap, *n, sizeof(**v)) || !(t = strdup(text)))
		return -CS_ENOMEM;
	(*v)[(*n)++] = (struct sw_set){.text = t, .line = line};
	return 0;
}

/* A list of "section.key=value" strings (`set` at the top or in a bundle) appended to *v;
 * no key twice. */
static int parse_sets(const struct sweep *sw, const config_setting_t *s, const char *what,
		      struct sw_set **v, size_t *n, size_t *cap, struct cs_err *err)
{
	size_t first = *n;

	if (!is_seq(s))
		return at(err, sw, line_of(s), -CS_ECONFIG,
			  "%s must be a list of \"section.key=value\" strings", what);
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *text = config_setting_get_string(e);
		size_t kl;
		int rc;

		if (config_setting_type(e) != CONFIG_TYPE_STRING || !text)
			return at(err, sw, line_of(e), -CS_ECONFIG,
				  "%s must be a list of \"section.key=value\" strings", what);
		if (!assignment_ok(text, &kl))
			return at(err, sw, line_of(e), -CS_ECONFIG,
				  "%s: '%.200s': expected \"section.key=value\"", what, text);
		for (size_t j = first; j < *n; j++)
			if (same_key((*v)[j].text, text))
				return at(err, sw, line_of(e), -CS_ECONFIG,
					  "%s: '%.*s' is set twice (also at line %u)", what,
					  (int)kl, text, (*v)[j].line);
		rc = add_set(v, n, cap, text, line_of(e));
		if (rc)
			return cs_err_set(err, rc, "out of memory");
	}
	return 0;
}

static int add_workload(struct sweep *sw, const char *name, unsigned line, struct cs_err *err)
{
	struct sw_wl w = {.line = line};

	for (size_t i = 0; i < sw->nwl; i++)
		if (!strcmp(sw->wl[i].label, name))
			return at(err, sw, line, -CS_ECONFIG,
				  "workload '%s' is listed twice (also at line %u)", name,
				  sw->wl[i].line);
	w.label = strdup(name);
	if (!strncmp(name, "trace:", 6) && name[6] != '/')
		w.arg = xasprintf("trace:%s/%s", sw->dir, name + 6);
	else
		w.arg = strdup(name);
	if (!w.label || !w.arg || grow((void **)&sw->wl, &sw->cap_wl, sw->nwl, sizeof(w))) {
		free(w.label);
		free(w.arg);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	sw->wl[sw->nwl++] = w;
	return 0;
}

static int parse_workloads(struct sweep *sw, const config_setting_t *s, struct cs_err *err)
{
	const struct cs_workload *const *reg = cs_workload_registry();
	int n = is_seq(s) ? config_setting_length(s) : 1;

	if (!is_seq(s) && config_setting_type(s) != CONFIG_TYPE_STRING)
		return at(err, sw, line_of(s), -CS_ECONFIG,
			  "workloads must be a string or a list of strings (workload names, "
			  "\"suite\")");
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = is_seq(s) ? config_setting_get_elem(s, (unsigned)i) : s;
		const char *name = config_setting_get_string(e);
		int rc = 0;

		if (config_setting_type(e) != CONFIG_TYPE_STRING || !name || !name[0])
			return at(
			    err, sw, line_of(e), -CS_ECONFIG,
			    "workloads must be a string or a list of strings (workload names, "
			    "\"suite\")");
		/* "suite" is the G-TSC twelve, "suite:NAME" any suite cohscope suite takes */
		if (strcmp(name, "suite") == 0 || strncmp(name, "suite:", 6) == 0) {
			const char *suite = name[5] ? name + 6 : "gtsc";

			char names[160];

			if (!cs_suite_known(suite))
				return at(err, sw, line_of(e), -CS_ECONFIG,
					  "workloads: no suite '%s' (%s)", suite,
					  cs_suite_names(names, sizeof(names)));
			for (size_t k = 0; reg[k] && !rc; k++)
				if (cs_suite_has(suite, reg[k]))
					rc = add_workload(sw, reg[k]->name, line_of(e), err);
		} else {
			rc = add_workload(sw, name, line_of(e), err);
		}
		if (rc)
			return rc;
	}
	if (!sw->nwl)
		return at(err, sw, line_of(s), -CS_ECONFIG, "workloads is empty");
	return 0;
}

static const char *const fixed_columns[] = {"id", "name", "workload", "status", "error"};

static int parse_axis(struct sweep *sw, const config_setting_t *g, struct cs_err *err)
{
	const config_setting_t *key = NULL, *name = NULL, *vals = NULL;
	struct sw_axis *ax;
	int rc;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return at(err, sw, line_of(g), -CS_ECONFIG,
			  "an axis must be a group: { key = \"section.key\"; values = [...]; } or "
			  "{ name = \"NAME\"; values = ( { name = ...; set = [...]; }, ... ); }");
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
		const char *mn = config_setting_name(m);

		if (!strcmp(mn, "key"))
			key = m;
		else if (!strcmp(mn, "name"))
			name = m;
		else if (!strcmp(mn, "values"))
			vals = m;
		else
			return at(err, sw, line_of(m), -CS_ECONFIG,
				  "unknown axis setting '%s' (key or name, and values)", mn);
	}
	if (!!key == !!name)
		return at(err, sw, line_of(g), -CS_ECONFIG,
			  "an axis needs either key (a parameter) or name (named bundles)");
	if (config_setting_type(key ? key : name) != CONFIG_TYPE_STRING ||
	    !config_setting_get_string(key ? key : name)[0])
		return at(err, sw, line_of(key ? key : name), -CS_ECONFIG,
			  "axis %s must be a non-empty string", key ? "key" : "name");
	if (!vals)
		return at(err, sw, line_of(g), -CS_ECONFIG, "axis without values");
	if (!is_seq(vals))
		return at(err, sw, line_of(vals), -CS_ECONFIG,
			  "axis values must be a list: [a, b, ...] or ( { ... }, ... )");
	if (!config_setting_length(vals))
		return at(err, sw, line_of(vals), -CS_ECONFIG, "axis '%s' has no values",
			  config_setting_get_string(key ? key : name));
	if (grow((void **)&sw->axes, &sw->cap_axes, sw->naxes, sizeof(*sw->axes)))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	ax = &sw->axes[sw->naxes++];
	memset(ax, 0, sizeof(*ax));
	ax->line = line_of(g);
	ax->bundle = !key;
	ax->column = strdup(config_setting_get_string(key ? key : name));
	if (!ax->column)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	if (key) {
		char probe[8 + 256];
		size_t kl;

		snprintf(probe, sizeof(probe), "%.250s=", ax->column);
		if (!assignment_ok(probe, &kl) || strlen(ax->column) > 250)
			return at(err, sw, line_of(key), -CS_ECONFIG,
				  "axis key '%.200s': expected \"section.key\"", ax->column);
	}
	for (size_t c = 0; c < sizeof(fixed_columns) / sizeof(fixed_columns[0]); c++)
		if (!strcmp(ax->column, fixed_columns[c]))
			return at(err, sw, line_of(name ? name : key), -CS_ECONFIG,
				  "axis name '%s' is taken by a column of the results (id, name, "
				  "workload, status, error)",
				  ax->column);
	for (int i = 0; i < config_setting_length(vals); i++) {
		const config_setting_t *e = config_setting_get_elem(vals, (unsigned)i);
		struct sw_val *v;

		if (grow((void **)&ax->vals, &ax->cap, ax->nvals, sizeof(*ax->vals)))
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		v = &ax->vals[ax->nvals++];
		memset(v, 0, sizeof(*v));
		v->line = line_of(e);
		if (key) {
			bool nomem;
			char *text;

			v->label = scalar_text(e, &nomem);
			if (nomem)
				return cs_err_set(err, -CS_ENOMEM, "out of memory");
			if (!v->label)
				return at(err, sw, v->line, -CS_ECONFIG,
					  "axis '%s': a value must be a number, a string or a "
					  "boolean",
					  ax->column);
			text = xasprintf("%s=%s", ax->column, v->label);
			rc = text ? add_set(&v->sets, &v->nsets, &v->cap, text, v->line)
				  : -CS_ENOMEM;
			free(text);
			if (rc)
				return cs_err_set(err, rc, "out of memory");
		} else {
			const config_setting_t *bn = NULL, *bs = NULL;

			if (config_setting_type(e) != CONFIG_TYPE_GROUP)
				return at(err, sw, v->line, -CS_ECONFIG,
					  "axis '%s': a value must be a group { name = \"NAME\"; "
					  "set = [\"section.key=value\", ...]; }",
					  ax->column);
			for (int k = 0; k < config_setting_length(e); k++) {
				const config_setting_t *m = config_setting_get_elem(e, (unsigned)k);

				if (!strcmp(config_setting_name(m), "name"))
					bn = m;
				else if (!strcmp(config_setting_name(m), "set"))
					bs = m;
				else
					return at(err, sw, line_of(m), -CS_ECONFIG,
						  "unknown setting '%s' in a value of axis '%s' "
						  "(name, set)",
						  config_setting_name(m), ax->column);
			}
			if (!bn || config_setting_type(bn) != CONFIG_TYPE_STRING ||
			    !config_setting_get_string(bn)[0])
				return at(err, sw, v->line, -CS_ECONFIG,
					  "axis '%s': a value needs name = \"NAME\"", ax->column);
			v->label = strdup(config_setting_get_string(bn));
			if (!v->label)
				return cs_err_set(err, -CS_ENOMEM, "out of memory");
			if (bs) {
				rc = parse_sets(sw, bs, "set", &v->sets, &v->nsets, &v->cap, err);
				if (rc)
					return rc;
			}
		}
		for (size_t k = 0; k + 1 < ax->nvals; k++)
			if (!strcmp(ax->vals[k].label, v->label))
				return at(err, sw, v->line, -CS_ECONFIG,
					  "axis '%s': value '%s' is listed twice (also at line %u)",
					  ax->column, v->label, ax->vals[k].line);
	}
	return 0;
}

/* Does axis a set key (the text "section.key=..." of some override)? Returns the line. */
static unsigned axis_sets(const struct sw_axis *a, const char *text)
{
	for (size_t v = 0; v < a->nvals; v++)
		for (size_t s = 0; s < a->vals[v].nsets; s++)
			if (same_key(a->vals[v].sets[s].text, text))
				return a->vals[v].sets[s].line ? a->vals[v].sets[s].line : 1;
	return 0;
}

/* No parameter is set by two sources of one point: the fixed set and an axis, two axes. */
static int check_conflicts(const struct sweep *sw, struct cs_err *err)
{
	for (size_t a = 0; a < sw->naxes; a++) {
		const struct sw_axis *ax = &sw->axes[a];

		for (size_t i = 0; i < sw->nfixed; i++) {
			const char *t = sw->fixed[i].text;
			unsigned l = axis_sets(ax, t);

			if (!l)
				continue;
			if (!sw->fixed[i].line)
				return cs_err_set(err, -CS_EUSAGE,
						  "--set %.200s: '%.*s' is an axis of %s (line %u)",
						  t, (int)strcspn(t, "="), t, sw->path, l);
			return at(err, sw, l, -CS_ECONFIG,
				  "'%.*s' is both an axis and in set (line %u)",
				  (int)strcspn(t, "="), t, sw->fixed[i].line);
		}
		for (size_t b = 0; b < a; b++)
			for (size_t v = 0; v < ax->nvals; v++)
				for (size_t s = 0; s < ax->vals[v].nsets; s++) {
					const char *t = ax->vals[v].sets[s].text;
					unsigned l = axis_sets(&sw->axes[b], t);

					if (l)
						return at(err, sw, ax->vals[v].sets[s].line,
							  -CS_ECONFIG,
							  "'%.*s' is set by two axes (also at line "
							  "%u)",
							  (int)strcspn(t, "="), t, l);
				}
	}
	return 0;
}

/* The command line's --set: after the file's set, replacing the same key there. */
static int add_cmdline_sets(struct sweep *sw, const char *const *sets, int n, struct cs_err *err)
{
	for (int i = 0; i < n; i++) {
		size_t kl;

		if (!assignment_ok(sets[i], &kl))
			return cs_err_set(err, -CS_EUSAGE,
					  "--set %.200s: expected section.key=value", sets[i]);
		for (size_t j = 0; j < sw->nfixed; j++)
			if (same_key(sw->fixed[j].text, sets[i])) {
				free(sw->fixed[j].text);
				memmove(&sw->fixed[j], &sw->fixed[j + 1],
					(sw->nfixed - j - 1) * sizeof(sw->fixed[0]));
				sw->nfixed--;
				break;
			}
		if (add_set(&sw->fixed, &sw->nfixed, &sw->cap_fixed, sets[i], 0))
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	return 0;
}

static int parse_file(struct sweep *sw, const config_t *lc, struct cs_err *err)
{
	const config_setting_t *root = config_root_setting(lc);
	const config_setting_t *base = NULL, *wl = NULL, *set = NULL, *axes = NULL;
	int rc;

	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
		const char *n = config_setting_name(s);

		if (!strcmp(n, "base"))
			base = s;
		else if (!strcmp(n, "workloads"))
			wl = s;
		else if (!strcmp(n, "set"))
			set = s;
		else if (!strcmp(n, "axes"))
			axes = s;
		else
			return at(err, sw, line_of(s), -CS_ECONFIG,
				  "unknown setting '%s' (base, workloads, set, axes)", n);
	}
	if (!base)
		return at(err, sw, 1, -CS_ECONFIG,
			  "no base = \"CONFIG.cfg\" (the system configuration of every point)");
	if (!wl)
		return at(err, sw, 1, -CS_ECONFIG, "no workloads = [\"NAME\", ...] (or \"suite\")");
	sw->base_line = line_of(base);
	if (config_setting_type(base) != CONFIG_TYPE_STRING || !config_setting_get_string(base)[0])
		return at(err, sw, sw->base_line, -CS_ECONFIG,
			  "base must be the path of a configuration file");
	sw->base_text = strdup(config_setting_get_string(base));
	if (!sw->base_text)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	{
		char *joined = sw->base_text[0] == '/' ? strdup(sw->base_text)
						       : xasprintf("%s/%s", sw->dir, sw->base_text);

		if (!joined)
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		sw->base = realpath(joined, NULL);
		rc = errno;
		free(joined);
		if (!sw->base)
			return at(err, sw, sw->base_line, -CS_EIO, "base '%s': %s", sw->base_text,
				  strerror(rc));
	}
	rc = parse_workloads(sw, wl, err);
	if (!rc && set)
		rc = parse_sets(sw, set, "set", &sw->fixed, &sw->nfixed, &sw->cap_fixed, err);
	if (!rc && axes) {
		if (config_setting_type(axes) != CONFIG_TYPE_LIST)
			return at(
			    err, sw, line_of(axes), -CS_ECONFIG,
			    "axes must be a list of groups: ( { key = ...; values = [...]; }, "
			    "... )");
		for (int i = 0; !rc && i < config_setting_length(axes); i++)
			rc = parse_axis(sw, config_setting_get_elem(axes, (unsigned)i), err);
		for (size_t a = 0; !rc && a < sw->naxes; a++)
			for (size_t b = 0; b < a; b++)
				if (!strcmp(sw->axes[a].column, sw->axes[b].column)) {
					rc = at(err, sw, sw->axes[a].line, -CS_ECONFIG,
						"axis '%s' twice (also at line %u)",
						sw->axes[a].column, sw->axes[b].line);
					break;
				}
	}
	return rc;
}

/* The sets of point p in the order they apply: fixed, then each axis's value. */
static size_t point_sets(const struct sweep *sw, const struct sw_point *p,
			 const struct sw_set **out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < sw->nfixed && n < cap; i++)
		out[n++] = &sw->fixed[i];
	for (size_t a = 0; a < sw->naxes; a++) {
		const struct sw_val *v = &sw->axes[a].vals[p->vi[a]];

		for (size_t s = 0; s < v->nsets && n < cap; s++)
			out[n++] = &v->sets[s];
	}
	return n;
}

static size_t point_nsets(const struct sweep *sw, const struct sw_point *p)
{
	size_t n = sw->nfixed;

	for (size_t a = 0; a < sw->naxes; a++)
		n += sw->axes[a].vals[p->vi[a]].nsets;
	return n;
}

/* Point i of the cross product: its axis values, name and ID, the ID's hash in *hash. */
static int make_point(struct sweep *sw, size_t i, uint64_t *hash, struct cs_err *err)
{
	struct sw_point *p = &sw->pts[i];
	size_t rest = i, len, ns;
	const struct sw_set **sets;
	uint64_t h = 0xcbf29ce484222325ULL;
	char *name;
	FILE *m;

	p->vi = calloc(sw->naxes ? sw->naxes : 1, sizeof(*p->vi));
	if (!p->vi)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (size_t a = sw->naxes; a-- > 0;) {
		p->vi[a] = rest % sw->axes[a].nvals;
		rest /= sw->axes[a].nvals;
	}
	p->wl = rest;
	m = open_memstream(&name, &len);
	if (!m)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	fputs(sw->wl[p->wl].label, m);
	for (size_t a = 0; a < sw->naxes; a++)
		fprintf(m, "__%s=%s", sw->axes[a].column, sw->axes[a].vals[p->vi[a]].label);
	if (fclose(m))
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	p->name = name;
	/* The ID: what the point runs, as the file says it. */
	ns = point_nsets(sw, p);
	sets = malloc((ns ? ns : 1) * sizeof(*sets));
	if (!sets)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	ns = point_sets(sw, p, sets, ns);
	h = fnv1a(h, "cohscope-sweep 1", 17);
	h = fnv1a(h, sw->base_text, strlen(sw->base_text) + 1);
	h = fnv1a(h, sw->wl[p->wl].label, strlen(sw->wl[p->wl].label) + 1);
	for (size_t s = 0; s < ns; s++)
		h = fnv1a(h, sets[s]->text, strlen(sets[s]->text) + 1);
	free(sets);
	snprintf(p->id, sizeof(p->id), "%016" PRIx64, h);
	*hash = h;
	return 0;
}

/*
 * The points in order, each ID checked against the earlier ones through a hash table (point
 * index + 1, 0 empty; open addressing on the ID's hash): a sweep of 10^5 points would take
 * 5 * 10^9 comparisons pairwise. The first point whose ID an earlier one has is the error, named
 * with the first point that has it.
 */
static int make_points(struct sweep *sw, struct cs_err *err)
{
	size_t n = sw->nwl, mask = 1, *tab;
	int rc = 0;

	for (size_t a = 0; a < sw->naxes; a++) {
		if (n > SWEEP_MAX_POINTS / sw->axes[a].nvals)
			return at(err, sw, sw->axes[a].line, -CS_ECONFIG,
				  "more than %d points, the limit of a sweep", SWEEP_MAX_POINTS);
		n *= sw->axes[a].nvals;
	}
	while (mask < 2 * n) /* at most half full */
		mask = mask * 2 + 1;
	sw->pts = calloc(n, sizeof(*sw->pts));
	tab = calloc(mask + 1, sizeof(*tab));
	if (!sw->pts || !tab) {
		free(tab);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	sw->npts = n;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct sw_point *p = &sw->pts[i], *q;
		uint64_t h = 0;
		size_t k, a = 0;

		rc = make_point(sw, i, &h, err);
		if (rc)
			break;
		for (k = (size_t)(h ^ h >> 32) & mask; tab[k]; k = (k + 1) & mask)
			if (!strcmp(sw->pts[tab[k] - 1].id, p->id))
				break;
		if (!tab[k]) {
			tab[k] = i + 1;
			continue;
		}
		q = &sw->pts[tab[k] - 1];
		while (a < sw->naxes && q->vi[a] == p->vi[a])
			a++;
		/* the first axis where they differ; none: the workload (a hash collision) */
		rc = at(err, sw,
			a < sw->naxes ? sw->axes[a].vals[p->vi[a]].line
			: sw->naxes   ? sw->axes[0].line
				      : sw->wl[p->wl].line,
			-CS_ECONFIG, "points '%s' and '%s' run the same configuration", q->name,
			p->name);
	}
	free(tab);
	return rc;
}

static char *dir_of(const char *abspath)
{
	const char *slash = strrchr(abspath, '/');

	return slash == abspath ? strdup("/") : strndup(abspath, (size_t)(slash - abspath));
}

/*
 * Reads the sweep file and the command line's --set into *sw and lists the points. The file goes
 * through the configuration loader first (its syntax errors, @include and integer checks), then
 * libconfig for the structure.
 */
static int sweep_load(const char *path, const char *const *sets, int nsets, struct sweep *sw,
		      struct cs_err *err)
{
	struct cs_config *probe = NULL;
	config_t lc;
	int rc;

	memset(sw, 0, sizeof(*sw));
	sw->path = strdup(path);
	if (!sw->path)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	rc = cs_config_open(path, &probe, err);
	cs_config_close(probe);
	if (rc)
		return rc;
	sw->abspath = realpath(path, NULL);
	if (!sw->abspath)
		return cs_err_set(err, -CS_EIO, "%s: cannot open: %s", path, strerror(errno));
	sw->dir = dir_of(sw->abspath);
	if (!sw->dir)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	config_init(&lc);
	config_set_include_dir(&lc, sw->dir);
	if (!config_read_file(&lc, sw->abspath)) {
		rc = cs_err_set(err, -CS_ECONFIG, "%s:%d: %s", path, config_error_line(&lc),
				config_error_text(&lc));
		config_destroy(&lc);
		return rc;
	}
	rc = parse_file(sw, &lc, err);
	config_destroy(&lc);
	if (!rc)
		rc = add_cmdline_sets(sw, sets, nsets, err);
	if (!rc)
		rc = check_conflicts(sw, err);
	if (!rc)
		rc = make_points(sw, err);
	return rc;
}

/* ---- checking every point against the configuration ------------------------------------------ */

/*
 * Turns the loader's message for point p into "FILE:LINE: problem" at the line that caused it:
 * "--set K=V: ..." names one of the point's overrides, "-w: ..." its workload; anything else is
 * about the base file.
 */
static int blame(const struct sweep *sw, const struct sw_point *p, const struct sw_set **sets,
		 size_t ns, const struct cs_err *e, struct cs_err *err)
{
	const char *msg = e->msg;
	unsigned line = sw->base_line;
	bool in_point = true;

	if (!strncmp(msg, "--set ", 6)) {
		for (size_t s = ns; s-- > 0;) {
			size_t len = strlen(sets[s]->text);

			if (!strncmp(msg + 6, sets[s]->text, len) && msg[6 + len] == ':') {
				if (!sets[s]->line)
					return cs_err_set(err, e->code, "%s", msg);
				line = sets[s]->line;
				in_point = s >= sw->nfixed;
				msg += 6;
				break;
			}
		}
	} else if (!strncmp(msg, "-w: ", 4)) {
		line = sw->wl[p->wl].line;
		in_point = false;
		msg += 4;
	} else {
		for (size_t s = ns; s-- > 0;) {
			char *needle = xasprintf("--set %s", sets[s]->text);
			bool hit = needle && strstr(msg, needle);

			free(needle);
			if (hit) {
				line = sets[s]->line ? sets[s]->line : line;
				break;
			}
		}
	}
	if (in_point)
		return at(err, sw, line, e->code, "%s (point %s)", msg, p->name);
	return at(err, sw, line, e->code, "%s", msg);
}

/* Builds each point's system without running it: every key, value and workload is checked
 * before the first point runs (cli/main.c create_system). */
static int sweep_check(const struct sweep *sw, struct cs_err *err)
{
	struct trace *tr = NULL;
	size_t tr_wl = SIZE_MAX;
	int rc = 0;

	for (size_t i = 0; i < sw->npts && !rc; i++) {
		const struct sw_point *p = &sw->pts[i];
		const char *wl = sw->wl[p->wl].arg;
		struct cs_run_opts ro = {.workload = wl, .mode = -1};
		size_t ns = point_nsets(sw, p);
		const struct sw_set **sets = malloc((ns ? ns : 1) * sizeof(*sets));
		struct cs_config *cfg = NULL;
		struct cs_system *sys = NULL;
		struct cs_err e = {0};

		if (!sets) {
			rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
			break;
		}
		ns = point_sets(sw, p, sets, ns);
		if (!strncmp(wl, "trace:", 6)) {
			if (tr_wl != p->wl) {
				trace_free(tr);
				tr = NULL;
				tr_wl = p->wl;
				rc = trace_load(wl + 6, &tr, &e);
				if (rc) {
					rc = at(err, sw, sw->wl[p->wl].line, rc, "%s", e.msg);
					free(sets);
					break;
				}
			}
			ro.workload = NULL;
			ro.custom = &trace_replay_workload;
			ro.arg = tr;
		}
		rc = cs_config_open(sw->base, &cfg, &e);
		for (size_t s = 0; !rc && s < ns; s++)
			rc = cs_config_set(cfg, sets[s]->text, &e);
		if (!rc)
			rc = cs_system_create(cfg, &ro, &sys, &e);
		if (!rc)
			rc = cs_config_check_unused(cfg, NULL, 0, &e);
		if (rc && e.code)
			rc = blame(sw, p, sets, ns, &e, err);
		cs_system_destroy(sys);
		cs_config_close(cfg);
		free(sets);
	}
	trace_free(tr);
	return rc;
}

/* ---- the points' commands ------------------------------------------------------------------- */

/* argv of `cohscope run` for point p (NULL-terminated; the strings are sw's and bin, but the
 * output path, which is argv[n - 2] and also *outp: free it and the array). */
static char **point_argv(const struct sweep *sw, const struct sw_point *p, const char *bin,
			 const char *dir, char **outp)
{
	size_t ns = point_nsets(sw, p), n = 0;
	const struct sw_set **sets = malloc((ns ? ns : 1) * sizeof(*sets));
	char **argv = calloc(9 + 2 * ns + 1, sizeof(*argv));
	char *out = xasprintf("%s/points/%s.json", dir, p->id);

	if (!sets || !argv || !out) {
		free(sets);
		free(argv);
		free(out);
		return NULL;
	}
	ns = point_sets(sw, p, sets, ns);
	argv[n++] = (char *)bin;
	argv[n++] = "run";
	argv[n++] = "-q";
	argv[n++] = "-c";
	argv[n++] = sw->base;
	argv[n++] = "-w";
	argv[n++] = sw->wl[p->wl].arg;
	for (size_t s = 0; s < ns; s++) {
		argv[n++] = "--set";
		argv[n++] = sets[s]->text;
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	free(sets);
	*outp = out;
	return argv;
}

static json_t *manifest_json(const struct sweep *sw, const char *dir)
{
	json_t *root = json_object(), *cols = json_array(), *pts = json_array();

	if (!root || !cols || !pts) {
		json_decref(root);
		json_decref(cols);
		json_decref(pts);
		return NULL;
	}
	json_object_set_new(root, "cohscope_sweep", json_integer(1));
	json_object_set_new(root, "sweep", json_string(sw->abspath));
	json_object_set_new(root, "base", json_string(sw->base));
	for (size_t a = 0; a < sw->naxes; a++)
		json_array_append_new(cols, json_string(sw->axes[a].column));
	json_object_set_new(root, "columns", cols);
	for (size_t i = 0; i < sw->npts; i++) {
		const struct sw_point *p = &sw->pts[i];
		json_t *axes = json_object(), *args = json_array();
		char *out = NULL;
		char **argv = point_argv(sw, p, "cohscope", dir, &out);

		if (!axes || !args || !argv) {
			json_decref(axes);
			json_decref(args);
			free(argv);
			free(out);
			json_decref(root);
			json_decref(pts);
			return NULL;
		}
		for (size_t a = 0; a < sw->naxes; a++)
			json_object_set_new(axes, sw->axes[a].column,
					    json_string(sw->axes[a].vals[p->vi[a]].label));
		for (size_t k = 1; argv[k]; k++)
			json_array_append_new(args, json_string(argv[k]));
		free(argv);
		free(out);
		json_array_append_new(
		    pts, json_pack("{s:s, s:s, s:s, s:o, s:o}", "id", p->id, "name", p->name,
				   "workload", sw->wl[p->wl].label, "axes", axes, "argv", args));
	}
	json_object_set_new(root, "points", pts);
	return root;
}

/* ---- the reader alone (sweep.h) ------------------------------------------------------------ */

int sweep_file_load(const char *path, const char *const *sets, int nsets, struct sweep **out,
		    struct cs_err *err)
{
	struct sweep *sw = malloc(sizeof(*sw));
	int rc;

	*out = NULL;
	if (!sw)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	rc = sweep_load(path, sets, nsets, sw, err);
	if (rc) {
		sweep_free(sw);
		free(sw);
		return rc;
	}
	*out = sw;
	return 0;
}

void sweep_file_free(struct sweep *sw)
{
	sweep_free(sw);
	free(sw);
}

size_t sweep_file_points(const struct sweep *sw)
{
	return sw->npts;
}

json_t *sweep_file_manifest(const struct sweep *sw, const char *dir)
{
	return manifest_json(sw, dir);
}

/* Has point id a result file that parses? */
static bool point_done(const char *dir, const char *id)
{
	char *path = xasprintf("%s/points/%s.json", dir, id);
	json_t *j = path ? json_load_file(path, 0, NULL) : NULL;
	bool ok = json_is_object(json_object_get(j, "result"));

	json_decref(j);
	free(path);
	return ok;
}

/* The last line of a point's log that starts with "cohscope: " (its error), else its last
 * non-empty line (a crash, a sanitizer's report), control characters replaced, at most
 * ERROR_TAIL characters; "" when there is none. */
static void last_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	bool ours = false;
	size_t n;

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || (ours && strncmp(line, "cohscope: ", 10) != 0))
			continue;
		ours = strncmp(line, "cohscope: ", 10) == 0;
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		/* cut at len - 1 on purpose (snprintf would draw -Wformat-truncation) */
		n = strnlen(line, len - 1);
		memcpy(buf, line, n);
		buf[n] = 0;
	}
	fclose(f);
}

/* ---- merging ------------------------------------------------------------------------------- */

struct merge_count {
	size_t ok, failed, missing;
};

/* Every scalar of result, nested objects flattened to "a.b": into *flat (name -> value). */
static void flatten(json_t *obj, const char *prefix, json_t *flat)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v)
	{
		char *name = prefix ? xasprintf("%s.%s", prefix, k) : strdup(k);

		if (!name)
			continue;
		if (json_is_object(v))
			flatten(v, name, flat);
		else if (!json_is_array(v))
			json_object_set(flat, name, v);
		free(name);
	}
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_value(FILE *f, json_t *v)
{
	char buf[64];

	if (!v)
		return;
	switch (json_typeof(v)) {
	case JSON_STRING:
		csv_field(f, json_string_value(v));
		break;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		fmt_double(buf, sizeof(buf), json_real_value(v));
		fputs(buf, f);
		break;
	case JSON_TRUE:
		fputs("true", f);
		break;
	case JSON_FALSE:
		fputs("false", f);
		break;
	default:
		break;
	}
}

/* One row per point of the manifest: id, name, workload, axes, status, error, result. */
static int merge_rows(const char *dir, json_t *man, json_t *rows, struct merge_count *mc,
		      struct cs_err *err)
{
	json_t *pts = json_object_get(man, "points");
	size_t i;
	json_t *pt;

	json_array_foreach(pts, i, pt)
	{
		const char *id = json_string_value(json_object_get(pt, "id"));
		json_t *axes = json_object_get(pt, "axes"), *row, *res = NULL, *j = NULL;
		char *path, *log, error[ERROR_TAIL + 64] = "";
		const char *status;
		json_error_t je;

		if (!id || strlen(id) != 16 || strspn(id, "0123456789abcdef") != 16 ||
		    !json_is_string(json_object_get(pt, "name")) ||
		    !json_is_string(json_object_get(pt, "workload")) || !json_is_object(axes))
			return cs_err_set(err, -CS_ECONFIG,
					  "%s/manifest.json: point %zu is malformed", dir, i);
		path = xasprintf("%s/points/%s.json", dir, id);
		log = xasprintf("%s/logs/%s.err", dir, id);
		row = json_object();
		if (!path || !log || !row) {
			free(path);
			free(log);
			json_decref(row);
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		}
		if (access(path, F_OK) == 0) {
			j = json_load_file(path, 0, &je);
			res = json_object_get(j, "result");
			if (!j)
				snprintf(error, sizeof(error), "points/%s.json:%d: %.*s", id,
					 je.line, ERROR_TAIL, je.text);
			else if (!json_is_object(res))
				snprintf(error, sizeof(error), "points/%s.json: no result object",
					 id);
		} else {
			last_line(log, error, ERROR_TAIL);
		}
		status = json_is_object(res) ? "ok" : error[0] ? "failed" : "missing";
		mc->ok += status[0] == 'o';
		mc->failed += status[0] == 'f';
		mc->missing += status[0] == 'm';
		json_object_set(row, "id", json_object_get(pt, "id"));
		json_object_set(row, "name", json_object_get(pt, "name"));
		json_object_set(row, "workload", json_object_get(pt, "workload"));
		json_object_set(row, "axes", axes);
		json_object_set_new(row, "status", json_string(status));
		if (error[0] && !json_is_object(res))
			json_object_set_new(row, "error", json_string(error));
		if (json_is_object(res))
			json_object_set(row, "result", res);
		json_decref(j);
		json_array_append_new(rows, row);
		free(path);
		free(log);
	}
	return 0;
}

static int write_csv(const char *path, json_t *cols, json_t *rows)
{
	json_t *rcols = json_object(), *row;
	char *buf = NULL;
	size_t len = 0, i, c;
	FILE *m;
	int rc;

	if (!rcols)
		return -CS_ENOMEM;
	/* result columns: first appearance in point order, not a name taken already */
	json_array_foreach(rows, i, row)
	{
		json_t *flat = json_object();
		const char *k;
		json_t *v;

		if (!flat)
			continue;
		flatten(json_object_get(row, "result"), NULL, flat);
		json_object_foreach(flat, k, v)
		{
			bool taken = false;

			for (c = 0; c < sizeof(fixed_columns) / sizeof(fixed_columns[0]); c++)
				taken |= !strcmp(k, fixed_columns[c]);
			for (c = 0; c < json_array_size(cols); c++)
				taken |= !strcmp(k, json_string_value(json_array_get(cols, c)));
			if (!taken)
				json_object_set_new(rcols, k, json_true());
		}
		json_decref(flat);
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		json_decref(rcols);
		return -CS_ENOMEM;
	}
	fputs("id,name,workload", m);
	for (c = 0; c < json_array_size(cols); c++) {
		fputc(',', m);
		csv_field(m, json_string_value(json_array_get(cols, c)));
	}
	fputs(",status", m);
	{
		const char *k;
		json_t *v;

		json_object_foreach(rcols, k, v)
		{
			fputc(',', m);
			csv_field(m, k);
		}
	}
	fputs(",error\n", m);
	json_array_foreach(rows, i, row)
	{
		json_t *flat = json_object(), *axes = json_object_get(row, "axes");
		const char *k;
		json_t *v;

		flatten(json_object_get(row, "result"), NULL, flat);
		csv_value(m, json_object_get(row, "id"));
		fputc(',', m);
		csv_value(m, json_object_get(row, "name"));
		fputc(',', m);
		csv_value(m, json_object_get(row, "workload"));
		for (c = 0; c < json_array_size(cols); c++) {
			fputc(',', m);
			csv_value(
			    m, json_object_get(axes, json_string_value(json_array_get(cols, c))));
		}
		fputc(',', m);
		csv_value(m, json_object_get(row, "status"));
		json_object_foreach(rcols, k, v)
		{
			fputc(',', m);
			csv_value(m, json_object_get(flat, k));
		}
		fputc(',', m);
		csv_value(m, json_object_get(row, "error"));
		fputc('\n', m);
		json_decref(flat);
	}
	json_decref(rcols);
	if (fclose(m)) {
		free(buf);
		return -CS_ENOMEM;
	}
	rc = cli_write_atomic(path, buf, len);
	free(buf);
	return rc;
}

/*
 * Reads DIR/manifest.json and every point's file, writes DIR/results.json and DIR/results.csv.
 * *output_failed tells a write error (exit 4) from a bad manifest (exit 3).
 */
static int merge_dir(const char *dir, struct merge_count *mc, bool *output_failed,
		     struct cs_err *err)
{
	char *man_path = xasprintf("%s/manifest.json", dir);
	char *json_path = xasprintf("%s/results.json", dir);
	char *csv_path = xasprintf("%s/results.csv", dir);
	json_t *man = NULL, *rows = json_array(), *out = json_object(), *cols;
	json_error_t je;
	int rc = 0;

	memset(mc, 0, sizeof(*mc));
	*output_failed = false;
	if (!man_path || !json_path || !csv_path || !rows || !out) {
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		goto out;
	}
	man = json_load_file(man_path, 0, &je);
	if (!man) {
		if (access(man_path, F_OK))
			rc = cs_err_set(err, -CS_EIO,
					"%s: cannot open: %s (not a sweep's directory?)", man_path,
					strerror(errno));
		else
			rc = cs_err_set(err, -CS_ECONFIG, "%s:%d: %s", man_path, je.line, je.text);
		goto out;
	}
	cols = json_object_get(man, "columns");
	if (json_integer_value(json_object_get(man, "cohscope_sweep")) != 1 ||
	    !json_is_array(cols) || !json_is_array(json_object_get(man, "points"))) {
		rc = cs_err_set(err, -CS_ECONFIG, "%s: not a cohscope sweep manifest", man_path);
		goto out;
	}
	for (size_t c = 0; c < json_array_size(cols); c++)
		if (!json_is_string(json_array_get(cols, c))) {
			rc = cs_err_set(err, -CS_ECONFIG, "%s: not a cohscope sweep manifest",
					man_path);
			goto out;
		}
	rc = merge_rows(dir, man, rows, mc, err);
	if (rc)
		goto out;
	json_object_set(out, "columns", cols);
	json_object_set(out, "points", rows);
	rc = write_json_atomic(json_path, out);
	if (rc) {
		*output_failed = true;
		rc = cs_err_set(err, rc, "%s: cannot write: %s", json_path,
				rc == -CS_EIO ? strerror(errno) : cs_strerror(rc));
		goto out;
	}
	rc = write_csv(csv_path, cols, rows);
	if (rc) {
		*output_failed = true;
		rc = cs_err_set(err, rc, "%s: cannot write: %s", csv_path,
				rc == -CS_EIO ? strerror(errno) : cs_strerror(rc));
	}
out:
	json_decref(man);
	json_decref(rows);
	json_decref(out);
	free(man_path);
	free(json_path);
	free(csv_path);
	return rc;
}

/* ---- the local pool ------------------------------------------------------------------------ */

struct child {
	pid_t pid;
	size_t point;
	double t0;
};

struct pool {
	const struct sweep *sw;
	const char *bin, *dir;
	sigset_t oldmask, sigs, sigdef;
	struct child *run;
	size_t nrun, done, total, failed;
	bool quiet;
};

static int spawn_point(struct pool *pl, size_t i, struct child *c)
{
	const struct sw_point *p = &pl->sw->pts[i];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char *out = NULL, *log = xasprintf("%s/logs/%s.err", pl->dir, p->id);
	char **argv = log ? point_argv(pl->sw, p, pl->bin, pl->dir, &out) : NULL;
	int rc;

	if (!argv) {
		free(log);
		return ENOMEM;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &pl->oldmask);
	posix_spawnattr_setsigdefault(&attr, &pl->sigdef);
	rc = posix_spawn(&c->pid, pl->bin, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	c->point = i;
	c->t0 = cs_wall_seconds();
	free(argv);
	free(out);
	free(log);
	return rc;
}

/* ": CYCLES cycles" of a finished point, with " ± HALF" when its mode estimates them
 * (hybrid, analytic: docs/hybrid.md); "" when the result has no cycles. */
static void point_cycles(const char *dir, const char *id, char *buf, size_t len)
{
	char *path = xasprintf("%s/points/%s.json", dir, id);
	json_t *j = path ? json_load_file(path, 0, NULL) : NULL;
	json_t *r = json_object_get(j, "result"), *c = json_object_get(r, "cycles");
	json_t *h = json_object_get(r, "cycles_half");
	const char *mode = json_string_value(json_object_get(r, "mode"));

	buf[0] = 0;
	if (json_is_number(c) && json_is_number(h) && mode && strcmp(mode, "detailed") != 0)
		snprintf(buf, len, ": %.0f ± %.0f cycles", json_number_value(c),
			 json_number_value(h));
	else if (json_is_number(c))
		snprintf(buf, len, ": %.0f cycles", json_number_value(c));
	json_decref(j);
	free(path);
}

static void progress(struct pool *pl, size_t i, bool ok, double secs, const char *why)
{
	char cyc[96] = "";

	pl->done++;
	pl->failed += !ok;
	if (pl->quiet)
		return;
	if (ok)
		point_cycles(pl->dir, pl->sw->pts[i].id, cyc, sizeof(cyc));
	printf("[%*zu/%zu] %-6s %7.2f s  %s%s%s\n", pl->total >= 100 ? 4 : 2, pl->done, pl->total,
	       ok ? "ok" : "FAILED", secs, pl->sw->pts[i].name, ok ? cyc : ": ", ok ? "" : why);
	fflush(stdout);
}

/* A point's process ended with wait status st: its result file, or its log says why not. */
static void reaped(struct pool *pl, const struct child *c, int st)
{
	const char *id = pl->sw->pts[c->point].id;
	char *log = xasprintf("%s/logs/%s.err", pl->dir, id);
	char why[ERROR_TAIL + 64] = "", note[96] = "";
	bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && point_done(pl->dir, id);

	if (!ok && log) {
		last_line(log, why, ERROR_TAIL);
		if (WIFSIGNALED(st))
			snprintf(note, sizeof(note),
				 "cohscope: sweep: the point died of signal %d (%s)", WTERMSIG(st),
				 strsignal(WTERMSIG(st)));
		else if (!why[0] && WEXITSTATUS(st))
			snprintf(note, sizeof(note),
				 "cohscope: sweep: the point exited with status %d",
				 WEXITSTATUS(st));
		else if (!why[0])
			snprintf(note, sizeof(note),
				 "cohscope: sweep: the point wrote no result file");
		if (note[0]) {
			FILE *f = fopen(log, "a");

			if (f) {
				fprintf(f, "%s\n", note);
				fclose(f);
			}
			if (!why[0] || WIFSIGNALED(st))
				snprintf(why, sizeof(why), "%s", note);
		}
	}
	free(log);
	progress(pl, c->point, ok, cs_wall_seconds() - c->t0, why);
}

/* Stops the running points (SIGTERM) and removes what a stopped one leaves: a temporary result
 * file, its log. A point that finished meanwhile counts as finished. */
static void stop_all(struct pool *pl)
{
	for (size_t k = 0; k < pl->nrun; k++)
		kill(pl->run[k].pid, SIGTERM);
	for (size_t k = 0; k < pl->nrun; k++) {
		const char *id = pl->sw->pts[pl->run[k].point].id;
		char *tmp =
		    xasprintf("%s/points/%s.json.tmp.%ld", pl->dir, id, (long)pl->run[k].pid);
		char *log = xasprintf("%s/logs/%s.err", pl->dir, id);
		int st = 0;

		while (waitpid(pl->run[k].pid, &st, 0) < 0 && errno == EINTR)
			;
		if (tmp)
			unlink(tmp);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && point_done(pl->dir, id))
			reaped(pl, &pl->run[k], st);
		else if (log)
			unlink(log);
		free(tmp);
		free(log);
	}
	pl->nrun = 0;
}

/*
 * Runs the points marked in todo, at most jobs at once. Returns 0, or the signal that stopped
 * it (SIGINT, SIGTERM, SIGHUP): the running points are stopped, the finished ones stay.
 * Signals are blocked and taken with sigwaitinfo: no handler. A stop signal the sweep was
 * started with ignored (nohup) stays ignored, for the points too.
 */
static int pool_run(struct pool *pl, const bool *todo, int jobs)
{
	static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction dfl = {.sa_handler = SIG_DFL}, oldchld;
	size_t next = 0;
	int sig = 0;

	pl->run = calloc((size_t)jobs, sizeof(*pl->run));
	if (!pl->run)
		return -1;
	sigemptyset(&pl->sigs);
	sigemptyset(&pl->sigdef);
	for (size_t k = 0; k < sizeof(stop_sigs) / sizeof(stop_sigs[0]); k++) {
		struct sigaction sa;

		if (sigaction(stop_sigs[k], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(&pl->sigs, stop_sigs[k]);
	}
	sigaddset(&pl->sigs, SIGCHLD);
	sigaddset(&pl->sigdef, SIGCHLD);
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, &oldchld); /* an ignored SIGCHLD would reap the points itself */
	sigprocmask(SIG_BLOCK, &pl->sigs, &pl->oldmask);
	for (;;) {
		siginfo_t si;
		int st;
		pid_t pid;

		while (pl->nrun < (size_t)jobs && next < pl->sw->npts) {
			struct child *c = &pl->run[pl->nrun];
			size_t i = next++;
			int rc;

			if (!todo[i])
				continue;
			rc = spawn_point(pl, i, c);
			if (rc) {
				char why[160];

				snprintf(why, sizeof(why), "cannot start %s: %s", pl->bin,
					 strerror(rc));
				progress(pl, i, false, 0, why);
				continue;
			}
			pl->nrun++;
		}
		if (!pl->nrun)
			break;
		if (sigwaitinfo(&pl->sigs, &si) < 0)
			continue;
		if (si.si_signo != SIGCHLD) {
			sig = si.si_signo;
			stop_all(pl);
			break;
		}
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (size_t k = 0; k < pl->nrun; k++)
				if (pl->run[k].pid == pid) {
					struct child c = pl->run[k];

					pl->run[k] = pl->run[--pl->nrun];
					reaped(pl, &c, st);
					break;
				}
	}
	sigprocmask(SIG_SETMASK, &pl->oldmask, NULL);
	sigaction(SIGCHLD, &oldchld, NULL);
	free(pl->run);
	pl->run = NULL;
	return sig;
}

/* ---- --emit-jobs ----------------------------------------------------------------------------- */

static void sh_word(FILE *f, const char *s)
{
	if (s[0] && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			      "@%+=:,./_-") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* FILE: one command per point to run; FILE.slurm: an array job running line TASK_ID + 1. */
static int emit_jobs(const struct sweep *sw, const char *bin, const char *dir, const bool *todo,
		     const char *file, size_t *njobs, struct cs_err *err)
{
	char *buf = NULL, *slurm = NULL, *script = NULL, *abs = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = 0;

	*njobs = 0;
	if (!m)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	for (size_t i = 0; i < sw->npts && !rc; i++) {
		char *out = NULL, *log;
		char **argv;

		if (!todo[i])
			continue;
		argv = point_argv(sw, &sw->pts[i], bin, dir, &out);
		log = xasprintf("%s/logs/%s.err", dir, sw->pts[i].id);
		if (!argv || !log) {
			rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
		} else {
			for (size_t k = 0; argv[k]; k++) {
				if (k)
					fputc(' ', m);
				sh_word(m, argv[k]);
			}
			fputs(" 2>", m);
			sh_word(m, log);
			fputc('\n', m);
			(*njobs)++;
		}
		free(argv);
		free(out);
		free(log);
	}
	if (fclose(m) && !rc)
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
	if (!rc && cli_write_atomic(file, buf, len))
		rc = cs_err_set(err, -CS_EIO, "%s: cannot write: %s", file, strerror(errno));
	slurm = xasprintf("%s.slurm", file);
	abs = rc ? NULL : realpath(file, NULL);
	if (!rc && (!slurm || !abs))
		rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
	if (!rc && !*njobs) {
		unlink(slurm);
	} else if (!rc) {
		m = open_memstream(&script, &len);
		if (!m) {
			rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
			goto out;
		}
		fprintf(
		    m,
		    "#!/bin/bash\n"
		    "# Written by cohscope sweep --emit-jobs: task i of the array runs line i+1 "
		    "of\n"
		    "# the jobs file, one point of the sweep. Submit with `sbatch %s.slurm`; "
		    "merge\n"
		    "# with `cohscope collect %s` once every task has ended. Add the #SBATCH "
		    "lines\n"
		    "# your site needs (partition, account, time); above MaxArraySize, split the\n"
		    "# range (--array=0-999, then 1000-...) or throttle it (--array=0-N%%50).\n"
		    "#SBATCH --job-name=cohscope-sweep\n"
		    "#SBATCH --array=0-%zu\n"
		    "#SBATCH --ntasks=1\n"
		    "#SBATCH --cpus-per-task=1\n"
		    "#SBATCH --output=%s/logs/slurm-%%A_%%a.out\n"
		    "set -euo pipefail\n"
		    "jobs=",
		    file, dir, *njobs - 1, dir);
		sh_word(m, abs);
		fputs(
		    "\n"
		    ": \"${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch, or set "
		    "SLURM_ARRAY_TASK_ID}\"\n"
		    "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$jobs\")\n"
		    "if [ -z \"$line\" ]; then\n"
		    "\techo \"cohscope sweep: no line $((SLURM_ARRAY_TASK_ID + 1)) in $jobs\" >&2\n"
		    "\texit 2\n"
		    "fi\n"
		    "exec bash -c \"$line\"\n",
		    m);
		if (fclose(m)) {
			rc = cs_err_set(err, -CS_ENOMEM, "out of memory");
			goto out;
		}
		if (cli_write_atomic(slurm, script, len) || chmod(slurm, 0755))
			rc = cs_err_set(err, -CS_EIO, "%s: cannot write: %s", slurm,
					strerror(errno));
	}
out:
	free(buf);
	free(script);
	free(slurm);
	free(abs);
	return rc;
}

/* ---- commands -------------------------------------------------------------------------------- */

struct sweep_opts {
	const char *file, *output, *emit;
	const char *sets[SWEEP_MAX_SETS];
	int nsets, jobs;
	bool resume, dry_run, quiet, help;
};

static int parse_sweep_opts(int argc, char **argv, struct sweep_opts *o)
{
	enum { OPT_RESUME = 256, OPT_SET, OPT_EMIT };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"resume", no_argument, NULL, OPT_RESUME},
	    {"set", required_argument, NULL, OPT_SET},
	    {"emit-jobs", required_argument, NULL, OPT_EMIT},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char *end;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->jobs = cpus > 0 ? (cpus < 1024 ? (int)cpus : 1024) : 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:j:nqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!optarg[0] || *end || errno || v < 1 || v > 1024)
				return cli_fail(
				    EXIT_USAGE,
				    "sweep: --jobs %s: expected a number from 1 to 1024", optarg);
			o->jobs = (int)v;
			break;
		case OPT_RESUME:
			o->resume = true;
			break;
		case OPT_SET:
			if (o->nsets == SWEEP_MAX_SETS)
				return cli_fail(EXIT_USAGE, "sweep: more than %d --set options",
						SWEEP_MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_EMIT:
			o->emit = optarg;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
			return cli_fail(EXIT_USAGE, "sweep: option %s needs a value",
					argv[optind - 1]);
		default:
			return cli_fail(EXIT_USAGE,
					"sweep: unknown option '%s' (see cohscope sweep --help)",
					argv[optind - 1]);
		}
	}
	if (o->help)
		return 0;
	if (optind >= argc)
		return cli_fail(EXIT_USAGE, "sweep: no sweep file (see cohscope sweep --help)");
	if (optind + 1 < argc)
		return cli_fail(EXIT_USAGE, "sweep: unexpected argument '%s' (one sweep file)",
				argv[optind + 1]);
	o->file = argv[optind];
	if (!o->output && !o->dry_run)
		return cli_fail(EXIT_USAGE, "sweep: -o DIR is required (the results go there)");
	if (o->dry_run && (o->emit || o->resume))
		return cli_fail(EXIT_USAGE, "sweep: --dry-run runs and writes nothing: no "
					    "--emit-jobs or --resume");
	return 0;
}

/* Creates DIR (and points/, logs/), makes its path absolute, checks it holds no other sweep,
 * removes stale merged results and writes the manifest. */
static int prepare_dir(const struct sweep *sw, const struct sweep_opts *o, char **dirp)
{
	char *dir = NULL, *p = NULL;
	json_t *man;
	int rc, status = 0;

	*dirp = NULL;
	if (make_dirs(o->output) || !(dir = realpath(o->output, NULL)))
		return cli_fail(EXIT_OUTPUT, "%s: cannot create the directory: %s", o->output,
				strerror(errno));
	p = xasprintf("%s/manifest.json", dir);
	if (!p) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	if (!o->resume && access(p, F_OK) == 0) {
		status = cli_fail(EXIT_USAGE,
				  "sweep: %s holds a sweep already (manifest.json): --resume "
				  "continues it, or choose another -o",
				  o->output);
		goto out;
	}
	free(p);
	p = xasprintf("%s/points", dir);
	if (!p || make_dirs(p)) {
		status = cli_fail(EXIT_OUTPUT, "%s/points: cannot create: %s", o->output,
				  strerror(errno));
		goto out;
	}
	free(p);
	p = xasprintf("%s/logs", dir);
	if (!p || make_dirs(p)) {
		status =
		    cli_fail(EXIT_OUTPUT, "%s/logs: cannot create: %s", o->output, strerror(errno));
		goto out;
	}
	free(p);
	/* results describe the last complete sweep or collect only */
	p = xasprintf("%s/results.csv", dir);
	if (p)
		unlink(p);
	free(p);
	p = xasprintf("%s/results.json", dir);
	if (p)
		unlink(p);
	free(p);
	p = xasprintf("%s/manifest.json", dir);
	man = manifest_json(sw, dir);
	rc = p && man ? write_json_atomic(p, man) : -CS_ENOMEM;
	json_decref(man);
	if (rc)
		status = cli_fail(rc == -CS_ENOMEM ? EXIT_INTERNAL : EXIT_OUTPUT,
				  "%s/manifest.json: cannot write: %s", o->output,
				  rc == -CS_EIO ? strerror(errno) : cs_strerror(rc));
out:
	free(p);
	if (status)
		free(dir);
	else
		*dirp = dir;
	return status;
}

static int merged(const char *dir, const char *shown, const char *cmd, bool quiet)
{
	struct merge_count mc;
	struct cs_err err = {0};
	bool output_failed;
	size_t n;
	int rc = merge_dir(dir, &mc, &output_failed, &err);

	if (rc)
		return cli_fail(output_failed ? EXIT_OUTPUT : cli_exit_status(rc), "%s", err.msg);
	n = mc.ok + mc.failed + mc.missing;
	if (!quiet) {
		printf("%s: %zu points: %zu ok, %zu failed, %zu missing; %s/results.csv, "
		       "%s/results.json\n",
		       cmd, n, mc.ok, mc.failed, mc.missing, shown, shown);
		fflush(stdout);
	}
	if (mc.failed || mc.missing)
		return cli_fail(
		    EXIT_SIM, "%s: %zu of %zu points %s (see %s/results.csv)", cmd,
		    mc.failed + mc.missing, n,
		    mc.missing ? (mc.failed ? "failed or missing" : "missing") : "failed", shown);
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep sw = {0};
	struct sweep_opts o;
	struct cs_err err = {0};
	char *dir = NULL, *bin = NULL;
	bool *todo = NULL;
	size_t ntodo = 0;
	int status, rc;

	status = parse_sweep_opts(argc, argv, &o);
	if (status)
		return status;
	if (o.help) {
		fputs(sweep_help, stdout);
		return 0;
	}
	rc = sweep_load(o.file, o.sets, o.nsets, &sw, &err);
	if (!rc)
		rc = sweep_check(&sw, &err);
	if (rc) {
		status = cli_fail(cli_exit_status(rc), "%s", err.msg);
		goto out;
	}
	if (o.dry_run) {
		for (size_t i = 0; i < sw.npts; i++)
			printf("%s  %s\n", sw.pts[i].id, sw.pts[i].name);
		goto out;
	}
	bin = realpath("/proc/self/exe", NULL);
	todo = calloc(sw.npts, sizeof(*todo));
	if (!bin || !todo) {
		status = cli_fail(EXIT_INTERNAL, "sweep: cannot find the cohscope binary: %s",
				  strerror(errno));
		goto out;
	}
	status = prepare_dir(&sw, &o, &dir);
	if (status)
		goto out;
	for (size_t i = 0; i < sw.npts; i++) {
		todo[i] = !o.resume || !point_done(dir, sw.pts[i].id);
		ntodo += todo[i];
	}
	if (o.emit) {
		size_t njobs;

		rc = emit_jobs(&sw, bin, dir, todo, o.emit, &njobs, &err);
		if (rc) {
			status =
			    cli_fail(rc == -CS_ENOMEM ? EXIT_INTERNAL : EXIT_OUTPUT, "%s", err.msg);
			goto out;
		}
		if (!o.quiet && njobs)
			printf("sweep: %zu points, %zu commands in %s, an array job in %s.slurm; "
			       "run them (parallel < %s, or sbatch %s.slurm), then cohscope "
			       "collect %s\n",
			       sw.npts, njobs, o.emit, o.emit, o.emit, o.emit, o.output);
		else if (!o.quiet)
			printf("sweep: %zu points, every one done: %s is empty; cohscope collect "
			       "%s\n",
			       sw.npts, o.emit, o.output);
		goto out;
	}
	if (!o.quiet) {
		printf("sweep: %zu points, %zu to run (%zu done already), %d at once; %s\n",
		       sw.npts, ntodo, sw.npts - ntodo, o.jobs, o.output);
		fflush(stdout);
	}
	{
		struct pool pl = {
		    .sw = &sw, .bin = bin, .dir = dir, .total = ntodo, .quiet = o.quiet};
		int sig = pool_run(&pl, todo, o.jobs);

		if (sig < 0) {
			status = cli_fail(EXIT_INTERNAL, "out of memory");
			goto out;
		}
		if (sig) {
			status =
			    cli_fail(128 + sig,
				     "sweep: stopped by signal %d (%s) after %zu of %zu points "
				     "(kept in %s/points); cohscope sweep --resume runs the others",
				     sig, strsignal(sig), pl.done, ntodo, o.output);
			goto out;
		}
	}
	status = merged(dir, o.output, "sweep", o.quiet);
out:
	free(todo);
	free(bin);
	free(dir);
	sweep_free(&sw);
	return status;
}

int cmd_collect(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool quiet = false;
	char *dir;
	int c, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(collect_help, stdout);
			return 0;
		}
		if (c != 'q')
			return cli_fail(
			    EXIT_USAGE,
			    "collect: unknown option '%s' (see cohscope collect --help)",
			    argv[optind - 1]);
		quiet = true;
	}
	if (optind + 1 != argc)
		return cli_fail(EXIT_USAGE, "collect: expected one directory (see cohscope collect "
					    "--help)");
	if (!is_dir(argv[optind]))
		return cli_fail(EXIT_INPUT, "collect: %s: not a directory", argv[optind]);
	dir = realpath(argv[optind], NULL);
	if (!dir)
		return cli_fail(EXIT_INPUT, "collect: %s: %s", argv[optind], strerror(errno));
	status = merged(dir, argv[optind], "collect", quiet);
	free(dir);
	return status;
}
