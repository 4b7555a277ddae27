/*
 * workloads/litmus/expect.c - expected verdicts (a test's Cohscope.sc / Cohscope.rc keys, an
 * expectations file) and the verdict of a run: FAIL when an outcome the model forbids was seen.
 * Also the --agents list (litmus_agents_parse), whose text names a mixed run's table lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/params.h"
#include "util/readfile.h"
#include "workloads/litmus/run.h"

struct expect_row {
	char path[256];
	char agents[LIT_MAX_THREADS * 4]; /* a mixed run's line: "cpu,gpu"; else "" */
	unsigned sc, rc, tso, hsa;	  /* enum litmus_expect */
	unsigned line;			  /* where it was read, for a second line's message */
};

static const char *const agent_names[] = {"cpu", "gpu"};

int litmus_agents_parse(const char *text, struct litmus_opts *o, struct cs_err *err)
{
	const char *p = text;

	o->nagents = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned a;

		for (a = 0; a < 2; a++)
			if (len == 3 && !strncmp(p, agent_names[a], 3))
				break;
		if (a == 2)
			return cs_err_set(err, -CS_EUSAGE,
					  "--agents %s: '%.*s' is not an agent (cpu or gpu)", text,
					  (int)(len > 40 ? 40 : len), p);
		if (o->nagents == LIT_MAX_THREADS)
			return cs_err_set(err, -CS_EUSAGE,
					  "--agents %s: more than %d agents (a test has at most %d "
					  "threads)",
					  text, LIT_MAX_THREADS, LIT_MAX_THREADS);
		o->agents[o->nagents++] = (uint8_t)a;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

void litmus_agents_text(const struct litmus_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < o->nagents && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "",
				      agent_names[o->agents[i] ? 1 : 0]);
}

struct litmus_expect_table {
	struct expect_row *rows;
	unsigned n, cap;
};

/* "Forbid" / "F", "Allow" / "A", "-" / "?" (unknown); -1 for anything else, an empty field
 * included (an extra TAB would otherwise shift the columns into an unknown verdict). */
static int parse_verdict(const char *s)
{
	if (!strcasecmp(s, "Forbid") || !strcasecmp(s, "F"))
		return LIT_EXPECT_FORBID;
	if (!strcasecmp(s, "Allow") || !strcasecmp(s, "A"))
		return LIT_EXPECT_ALLOW;
	if (!strcmp(s, "-") || !strcmp(s, "?"))
		return LIT_EXPECT_UNKNOWN;
	return -1;
}

static int bad_verdict(const char *path, unsigned ln, unsigned col, const char *v,
		       struct cs_err *err)
{
	if (!v[0])
		return cs_err_set(err, -CS_EINVAL,
				  "%s:%u: field %u is empty (an extra TAB?); a verdict is Forbid, "
				  "Allow or -",
				  path, ln, col);
	return cs_err_set(err, -CS_EINVAL, "%s:%u: verdict '%.40s' is not Forbid, Allow or -", path,
			  ln, v);
}

static int add_row(struct litmus_expect_table *tab, const struct expect_row *row, const char *path,
		   struct cs_err *err)
{
	/* two lines for one test: the first would win silently */
	for (unsigned i = 0; i < tab->n; i++)
		if (!strcmp(tab->rows[i].path, row->path) &&
		    !strcmp(tab->rows[i].agents, row->agents))
			return cs_err_set(err, -CS_EINVAL,
					  "%s:%u: a second line for %s%s%s (the first is line %u)",
					  path, row->line, row->path, row->agents[0] ? " as " : "",
					  row->agents, tab->rows[i].line);
	if (tab->n == tab->cap) {
		unsigned n = tab->cap ? tab->cap * 2 : 32;
		struct expect_row *nr = realloc(tab->rows, n * sizeof(*nr));

		if (!nr)
			return cs_err_set(err, -CS_ENOMEM, "out of memory");
		tab->rows = nr;
		tab->cap = n;
	}
	tab->rows[tab->n++] = *row;
	return 0;
}

/* One line: PATH \t SC \t RC [\t TSO] [\t NOTE]. */
static int parse_line(struct litmus_expect_table *tab, char *line, const char *path, unsigned ln,
		      struct cs_err *err)
{
	char *field[3], *p = line;
	struct expect_row row = {.line = ln};
	int v[2];

	for (unsigned i = 0; i < 3; i++) {
		char *tab_ch = strchr(p, '\t');

		if (!tab_ch && i < 2)
			return cs_err_set(err, -CS_EINVAL,
					  "%s:%u: expected PATH<TAB>SC<TAB>RC[<TAB>NOTE]", path,
					  ln);
		field[i] = p;
		if (tab_ch) {
			*tab_ch = '\0';
			p = tab_ch + 1;
		}
	}
	if (!field[0][0] || strlen(field[0]) >= sizeof(row.path))
		return cs_err_set(err, -CS_EINVAL, "%s:%u: empty or too long test path", path, ln);
	snprintf(row.path, sizeof(row.path), "%s", field[0]);
	/* a mixed run's line: PATH AGENTS HSA [NOTE] */
	if (parse_verdict(field[1]) < 0 &&
	    (!strncmp(field[1], "cpu", 3) || !strncmp(field[1], "gpu", 3))) {
		struct litmus_opts ag;
		struct cs_err aerr = {0};
		int hsa = parse_verdict(field[2]);

		if (litmus_agents_parse(field[1], &ag, &aerr))
			return cs_err_set(err, -CS_EINVAL, "%s:%u: %s", path, ln, aerr.msg);
		if (hsa < 0)
			return bad_verdict(path, ln, 3, field[2], err);
		litmus_agents_text(&ag, row.agents, sizeof(row.agents));
		row.hsa = (unsigned)hsa;
		return add_row(tab, &row, path, err);
	}
	for (unsigned i = 0; i < 2; i++) {
		v[i] = parse_verdict(field[i + 1]);
		if (v[i] < 0)
			return bad_verdict(path, ln, i + 2, field[i + 1], err);
	}
	row.sc = (unsigned)v[0];
	row.rc = (unsigned)v[1];
	/* A fourth field that reads as a verdict is TSO's, one close to a verdict is a misspelt
	 * one (an error, not a note), anything else is the note. */
	if (field[2] != p) {
		static const char *const verdicts[] = {"Forbid", "Allow"};
		char *end = strchr(p, '\t');
		const char *near;
		int tso;

		if (end)
			*end = '\0';
		tso = parse_verdict(p);
		if (tso >= 0) {
			row.tso = (unsigned)tso;
		} else if (!p[0]) {
			return bad_verdict(path, ln, 4, p, err);
		} else if ((near = cs_nearest(p, verdicts, 2)) != NULL) {
			return cs_err_set(
			    err, -CS_EINVAL,
			    "%s:%u: verdict '%.40s' is not Forbid, Allow or - (did you "
			    "mean '%s'?)",
			    path, ln, p, near);
		}
	}
	return add_row(tab, &row, path, err);
}

int litmus_expect_load(const char *path, struct litmus_expect_table **out, struct cs_err *err)
{
	struct litmus_expect_table *tab;
	char *text = NULL, *line, *next;
	unsigned ln = 0;
	int rc;

	*out = NULL;
	rc =
	    cs_read_file(path, path, CS_TEXT_FILE_MAX, "an expectations file", 1, &text, NULL, err);
	if (rc)
		return rc;
	tab = calloc(1, sizeof(*tab));
	if (!tab) {
		free(text);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	for (line = text; !rc && *line; line = next) {
		size_t len = strcspn(line, "\n");

		next = line[len] ? line + len + 1 : line + len;
		line[len] = '\0';
		ln++;
		if (len >= 1024) {
			rc = cs_err_set(err, -CS_EINVAL, "%s:%u: line too long", path, ln);
			break;
		}
		while (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		rc = parse_line(tab, line, path, ln, err);
	}
	free(text);
	/* an empty table would leave every test without an expectation, silently */
	if (!rc && !tab->n)
		rc = cs_err_set_at(err, -CS_EINVAL, path, ln ? ln : 1,
				   "no expectation (expected lines PATH<TAB>SC<TAB>RC)");
	if (rc) {
		litmus_expect_free(tab);
		return rc;
	}
	*out = tab;
	return 0;
}

void litmus_expect_free(struct litmus_expect_table *tab)
{
	if (!tab)
		return;
	free(tab->rows);
	free(tab);
}

/* The row whose path is the longest suffix of the test's file path (at a '/'), among the rows
 * of these agents ("": the rows of runs without --agents). */
static const struct expect_row *find_row(const struct litmus_expect_table *tab, const char *file,
					 const char *agents)
{
	const struct expect_row *best = NULL;
	size_t flen = strlen(file), best_len = 0;

	for (unsigned i = 0; tab && i < tab->n; i++) {
		size_t klen = strlen(tab->rows[i].path);

		if (strcmp(tab->rows[i].agents, agents))
			continue;
		if (klen > flen || strcmp(file + flen - klen, tab->rows[i].path) ||
		    (klen < flen && file[flen - klen - 1] != '/'))
			continue;
		if (klen > best_len) {
			best = &tab->rows[i];
			best_len = klen;
		}
	}
	return best;
}

unsigned litmus_expected(const struct litmus_test *t, const struct litmus_expect_table *tab,
			 unsigned model)
{
	return litmus_expected_agents(t, tab, model, NULL);
}

unsigned litmus_expected_agents(const struct litmus_test *t, const struct litmus_expect_table *tab,
				unsigned model, const char *agents)
{
	const struct expect_row *row;
	int v;

	unsigned rv;

	if (model == LIT_MODEL_NONE)
		return LIT_EXPECT_UNKNOWN;
	/* a mixed run's verdict depends on where each thread runs: only its own line says it */
	if (model == LIT_MODEL_HSA) {
		row = agents && agents[0] ? find_row(tab, t->path, agents) : NULL;
		return row ? row->hsa : LIT_EXPECT_UNKNOWN;
	}
	v = parse_verdict(model == LIT_MODEL_SC	   ? t->expect_sc
			  : model == LIT_MODEL_TSO ? t->expect_tso
						   : t->expect_rc);
	if (v > 0)
		return (unsigned)v;
	row = find_row(tab, t->path, "");
	rv = !row		      ? LIT_EXPECT_UNKNOWN
	     : model == LIT_MODEL_SC  ? row->sc
	     : model == LIT_MODEL_TSO ? row->tso
				      : row->rc;
	if (rv != LIT_EXPECT_UNKNOWN)
		return rv;
	/* every coherent protocol keeps a single order of the writes to one location */
	return t->coherence ? LIT_EXPECT_FORBID : LIT_EXPECT_UNKNOWN;
}

void litmus_judge(const struct litmus_test *t, const struct litmus_result *r,
		  const struct litmus_expect_table *tab, struct litmus_verdict *v)
{
	static const char *const what[] = {"", "allowed, ", "forbidden, "};
	uint64_t seen = r->condition_count;

	v->expect = litmus_expected_agents(t, tab, r->model, r->agents);
	v->pass = !(v->expect == LIT_EXPECT_FORBID && seen);
	if (seen)
		snprintf(v->text, sizeof(v->text), "%sseen %" PRIu64, what[v->expect], seen);
	else
		snprintf(v->text, sizeof(v->text), "%snot seen", what[v->expect]);
}
