/*
 * workloads/graph/mtx.c - graph files: Matrix Market (read and write) and DIMACS .gr (read),
 * see graph.h.
 *
 * Both readers go line by line (any line length), check every number and every count, and stop
 * at the first problem with one message "PATH:LINE: problem". Entries become edges of
 * graph_build, which symmetrizes them, drops self loops and merges repeats.
 */
#include "workloads/graph/graph.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <unistd.h>

/* Checked at the size or problem line, before anything is allocated: four times the largest
 * input of seed 004 (ecology1, 10^6 nodes). A declared 2 * 10^9 would allocate gigabytes for a
 * file of two lines, and 4 * 10^7 isolated nodes took the statistics over 10 s under the
 * sanitizers (fuzzing found both). */
#define MAX_NODES (1u << 22)

struct reader {
	FILE *f;
	const char *path;
	unsigned long line; /* of the line in buf */
	char *buf;
	size_t cap;
	struct cs_err *err;
};

/* The error "PATH:LINE: ..." of the line just read. */
#define BAD(r, code, ...) cs_err_set_at((r)->err, code, (r)->path, (r)->line, __VA_ARGS__)

/* Longer lines are refused: a graph file's lines are short, and /dev/zero has none. */
#define MAX_LINE (64u << 10)

/* Reads the next line into r->buf without its end of line. Returns 1, 0 at the end of the file,
 * or a negative code (read error, a NUL byte, a line over MAX_LINE bytes). */
static int next_line(struct reader *r)
{
	size_t n = 0;

	if (!r->buf) {
		r->buf = malloc(MAX_LINE + 2);
		if (!r->buf)
			return cs_err_set(r->err, -CS_ENOMEM, "%s: out of memory", r->path);
		r->cap = MAX_LINE + 2;
	}
	errno = 0;
	for (;;) {
		int c = getc_unlocked(r->f);

		if (c == EOF) {
			if (ferror(r->f)) {
				r->line++;
				return BAD(r, -CS_EIO, "cannot read: %s",
					   strerror(errno ? errno : EIO));
			}
			if (n == 0)
				return 0;
			break;
		}
		if (n == MAX_LINE) {
			r->line++;
			return BAD(r, -CS_EINVAL, "a line over %u bytes", MAX_LINE);
		}
		r->buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	r->buf[n] = '\0';
	r->line++;
	while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
		r->buf[--n] = '\0';
	if (strlen(r->buf) != n)
		return BAD(r, -CS_EINVAL, "a NUL byte: not a text file");
	return 1;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A blank line, or a comment line starting with `comment`. */
static bool ignorable(const char *line, char comment)
{
	const char *p = skip_space(line);

	return *p == '\0' || *p == comment;
}

/* The token at p (after spaces), at most 40 characters, for messages. */
static const char *token(const char *p, char out[44])
{
	size_t n = 0;

	p = skip_space(p);
	while (p[n] && p[n] != ' ' && p[n] != '\t' && n < 40)
		n++;
	memcpy(out, p, n);
	strcpy(out + n, p[n] && p[n] != ' ' && p[n] != '\t' ? "..." : "");
	return out;
}

static bool token_end(const char *p)
{
	return *p == '\0' || *p == ' ' || *p == '\t';
}

/*
 * Parses an unsigned decimal integer of at most `max` at *p (after spaces) and moves *p past
 * it. On failure, reports "WHAT: missing", "WHAT: 'x' is not ..." or "WHAT N above MAX" and
 * returns -CS_EINVAL.
 */
static int parse_uint(struct reader *r, const char **p, const char *what, uint64_t max, uint64_t *v)
{
	const char *s = skip_space(*p);
	uint64_t x = 0;
	char tok[44];

	if (*s == '\0')
		return BAD(r, -CS_EINVAL, "%s: missing", what);
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return BAD(r, -CS_EINVAL, "%s: %s is too large", what, token(*p, tok));
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (s == skip_space(*p) || !token_end(s))
		return BAD(r, -CS_EINVAL, "%s: '%s' is not a non-negative integer", what,
			   token(*p, tok));
	if (x > max)
		return BAD(r, -CS_EINVAL, "%s %llu is above %llu", what, (unsigned long long)x,
			   (unsigned long long)max);
	*p = s;
	*v = x;
	return 0;
}

/* A 1-based node index in 1..nodes, as a 0-based id. */
static int parse_index(struct reader *r, const char **p, const char *what, uint64_t nodes,
		       uint32_t *v)
{
	uint64_t x;
	int rc = parse_uint(r, p, what, UINT64_MAX, &x);

	if (rc)
		return rc;
	if (x < 1 || x > nodes)
		return BAD(r, -CS_EINVAL, "%s %llu out of range 1..%llu", what,
			   (unsigned long long)x, (unsigned long long)nodes);
	*v = (uint32_t)(x - 1);
	return 0;
}

static int expect_end(struct reader *r, const char *p, const char *what)
{
	char tok[44];

	p = skip_space(p);
	if (*p)
		return BAD(r, -CS_EINVAL, "unexpected '%s' after %s", token(p, tok), what);
	return 0;
}

static int open_reader(struct reader *r, const char *path, struct cs_err *err)
{
	*r = (struct reader){.path = path, .err = err};
	r->f = fopen(path, "r");
	if (!r->f)
		return cs_err_set(err, -CS_EIO, "%s: cannot open: %s", path, strerror(errno));
	return 0;
}

static void close_reader(struct reader *r)
{
	if (r->f)
		fclose(r->f);
	free(r->buf);
}

/* After the last entry: only blank and comment lines may follow. */
static int expect_no_more(struct reader *r, char comment, unsigned long long declared,
			  const char *what, const char *where)
{
	int rc;

	while ((rc = next_line(r)) > 0)
		if (!ignorable(r->buf, comment))
			return BAD(r, -CS_EINVAL, "more %s than the %llu the %s declares", what,
				   declared, where);
	return rc;
}

/* The graph of the edges, a build error named after the file. */
static int build(struct reader *r, uint64_t nodes, const struct graph_edges *e, bool weighted,
		 struct graph **out, struct graph_build_info *info)
{
	struct cs_err local = {0};
	int rc = graph_build((uint32_t)nodes, e, weighted, out, info, &local);

	if (rc)
		cs_err_set(r->err, rc, "%s: %s", r->path, local.msg);
	return rc;
}

/* ---- Matrix Market -------------------------------------------------------------------------- */

enum mtx_field { MTX_REAL, MTX_INTEGER, MTX_PATTERN };

/* "%%MatrixMarket matrix coordinate FIELD SYMMETRY" (keywords in any case). */
static int mtx_header(struct reader *r, enum mtx_field *field)
{
	char w[5][44];
	const char *p = r->buf;
	int n = 0;

	while (n < 5 && *skip_space(p)) {
		token(p, w[n++]);
		p = skip_space(p);
		while (!token_end(p))
			p++;
	}
	if (n == 0 || strcasecmp(w[0], "%%MatrixMarket") != 0)
		return BAD(r, -CS_EINVAL, "not a Matrix Market file: no %%%%MatrixMarket header");
	if (n < 5 || *skip_space(p))
		return BAD(r, -CS_EINVAL,
			   "header: expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
	if (strcasecmp(w[1], "matrix") != 0)
		return BAD(r, -CS_EUNSUP, "header: object '%s' is not read (only matrix)", w[1]);
	if (strcasecmp(w[2], "coordinate") != 0)
		return BAD(r, strcasecmp(w[2], "array") == 0 ? -CS_EUNSUP : -CS_EINVAL,
			   "header: format '%s' is not read (only coordinate)", w[2]);
	if (strcasecmp(w[3], "real") == 0)
		*field = MTX_REAL;
	else if (strcasecmp(w[3], "integer") == 0)
		*field = MTX_INTEGER;
	else if (strcasecmp(w[3], "pattern") == 0)
		*field = MTX_PATTERN;
	else
		return BAD(r, strcasecmp(w[3], "complex") == 0 ? -CS_EUNSUP : -CS_EINVAL,
			   "header: field '%s' is not read (real, integer or pattern)", w[3]);
	if (strcasecmp(w[4], "general") != 0 && strcasecmp(w[4], "symmetric") != 0)
		return BAD(r,
			   strcasecmp(w[4], "skew-symmetric") == 0 ||
				   strcasecmp(w[4], "hermitian") == 0
			       ? -CS_EUNSUP
			       : -CS_EINVAL,
			   "header: symmetry '%s' is not read (general or symmetric)", w[4]);
	return 0;
}

/* An entry's value as a weight: |value| rounded, at least 1, at most 2^32 - 1. */
static int mtx_weight(struct reader *r, const char *p, enum mtx_field field, uint32_t *w)
{
	char tok[44], *end;
	double a;

	if (field == MTX_PATTERN) {
		*w = 1;
		return expect_end(r, p, "a pattern entry's two indices");
	}
	p = skip_space(p);
	if (*p == '\0')
		return BAD(r, -CS_EINVAL, "entry: missing value");
	errno = 0;
	if (field == MTX_INTEGER) {
		long long v = strtoll(p, &end, 10);

		if (end == p || !token_end(end) || errno == ERANGE)
			return BAD(r, -CS_EINVAL, "entry: '%s' is not a 64-bit integer",
				   token(p, tok));
		a = fabs((double)v);
	} else {
		a = fabs(strtod(p, &end));
		if (end == p || !token_end(end) || !isfinite(a))
			return BAD(r, -CS_EINVAL, "entry: '%s' is not a finite number",
				   token(p, tok));
	}
	*w = a < 1 ? 1 : a >= 4294967295.0 ? UINT32_MAX : (uint32_t)llround(a);
	return expect_end(r, end, "the value");
}

int graph_read_mtx(const char *path, struct graph **out, struct graph_build_info *info,
		   struct cs_err *err)
{
	struct reader r;
	struct graph_edges e = {0};
	enum mtx_field field = MTX_PATTERN;
	uint64_t rows, cols, nnz, got = 0;
	const char *p;
	int rc;

	*out = NULL;
	if ((rc = open_reader(&r, path, err)) != 0)
		return rc;
	if ((rc = next_line(&r)) <= 0) {
		if (rc == 0)
			rc = cs_err_set_at(err, -CS_EINVAL, path, 1,
					   "empty file: no %%%%MatrixMarket header");
		goto out;
	}
	if ((rc = mtx_header(&r, &field)) != 0)
		goto out;
	while ((rc = next_line(&r)) > 0 && ignorable(r.buf, '%'))
		;
	if (rc <= 0) {
		if (rc == 0)
			rc = BAD(&r, -CS_EINVAL,
				 "file ends before the size line 'ROWS COLS ENTRIES'");
		goto out;
	}
	p = r.buf;
	if ((rc = parse_uint(&r, &p, "size line: rows", UINT64_MAX, &rows)) ||
	    (rc = parse_uint(&r, &p, "size line: columns", UINT64_MAX, &cols)) ||
	    (rc = parse_uint(&r, &p, "size line: entries", UINT64_MAX, &nnz)) ||
	    (rc = expect_end(&r, p, "the size line")))
		goto out;
	if (rows != cols) {
		rc = BAD(&r, -CS_EINVAL, "size line: %llu x %llu is not square (a graph's is)",
			 (unsigned long long)rows, (unsigned long long)cols);
		goto out;
	}
	if (rows < 1 || rows > MAX_NODES) {
		rc = BAD(&r, rows ? -CS_ERANGE : -CS_EINVAL, "size line: %llu rows (1 to %u)",
			 (unsigned long long)rows, MAX_NODES);
		goto out;
	}
	if (nnz > rows * rows) {
		rc = BAD(&r, -CS_EINVAL, "size line: %llu entries, more than a %llu x %llu holds",
			 (unsigned long long)nnz, (unsigned long long)rows,
			 (unsigned long long)rows);
		goto out;
	}
	while (got < nnz) {
		uint32_t i, j, w;

		if ((rc = next_line(&r)) <= 0) {
			if (rc == 0)
				rc = BAD(&r, -CS_EINVAL,
					 "file ends after %llu of the %llu entries the size line "
					 "declares",
					 (unsigned long long)got, (unsigned long long)nnz);
			goto out;
		}
		if (ignorable(r.buf, '%'))
			continue;
		p = r.buf;
		if ((rc = parse_index(&r, &p, "entry: row", rows, &i)) ||
		    (rc = parse_index(&r, &p, "entry: column", rows, &j)) ||
		    (rc = mtx_weight(&r, p, field, &w)))
			goto out;
		if (graph_edges_add(&e, i, j, w)) {
			rc = BAD(&r, -CS_ENOMEM, "out of memory after %llu entries",
				 (unsigned long long)got);
			goto out;
		}
		got++;
	}
	if ((rc = expect_no_more(&r, '%', nnz, "entries", "size line")) == 0)
		rc = build(&r, rows, &e, field != MTX_PATTERN, out, info);
out:
	graph_edges_free(&e);
	close_reader(&r);
	return rc;
}

int graph_write_mtx(const struct graph *g, const char *path, struct cs_err *err)
{
	const uint32_t *row = graph_row(g), *col = graph_col(g), *w = graph_weight(g);
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	FILE *f = NULL;
	int rc = -CS_EIO;

	if (!tmp)
		return cs_err_set(err, -CS_ENOMEM, "%s: out of memory", path);
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		rc = cs_err_set(err, -CS_EIO, "%s: cannot create %s: %s", path, tmp,
				strerror(errno));
		free(tmp);
		return rc;
	}
	fprintf(f, "%%%%MatrixMarket matrix coordinate %s symmetric\n", w ? "integer" : "pattern");
	fprintf(f, "%% written by cohscope (workloads/graph): the lower triangle, one line per "
		   "edge\n");
	fprintf(f, "%u %u %u\n", graph_nodes(g), graph_nodes(g), graph_entries(g) / 2);
	for (uint32_t u = 0; u < graph_nodes(g); u++)
		for (uint32_t k = row[u]; k < row[u + 1] && col[k] < u; k++) {
			if (w)
				fprintf(f, "%u %u %u\n", u + 1, col[k] + 1, w[k]);
			else
				fprintf(f, "%u %u\n", u + 1, col[k] + 1);
		}
	if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		cs_err_set(err, -CS_EIO, "%s: write error: %s", tmp, strerror(errno));
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		cs_err_set(err, -CS_EIO, "%s: write error: %s", tmp, strerror(errno));
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		cs_err_set(err, -CS_EIO, "%s: cannot rename %s: %s", path, tmp, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return rc;
}

/* ---- DIMACS shortest-path files ------------------------------------------------------------- */

/* "p sp NODES ARCS". */
static int gr_problem(struct reader *r, uint64_t *nodes, uint64_t *arcs)
{
	const char *p = skip_space(r->buf) + 1;
	char tok[44];

	p = skip_space(p);
	if (strncmp(p, "sp", 2) != 0 || !token_end(p + 2))
		return BAD(r, -CS_EINVAL, "problem line: type '%s' is not read (only sp)",
			   token(p, tok));
	p += 2;
	if (parse_uint(r, &p, "problem line: nodes", MAX_NODES, nodes) ||
	    parse_uint(r, &p, "problem line: arcs", UINT64_MAX, arcs))
		return -CS_EINVAL;
	if (*nodes < 1)
		return BAD(r, -CS_EINVAL, "problem line: 0 nodes");
	return expect_end(r, p, "the problem line");
}

/* "a TAIL HEAD LENGTH", the length a non-negative integer below 2^32. */
static int gr_arc(struct reader *r, uint64_t nodes, struct graph_edges *e)
{
	const char *p = skip_space(r->buf) + 1;
	uint32_t u, v;
	uint64_t w;
	int rc;

	if ((rc = parse_index(r, &p, "arc: tail", nodes, &u)) ||
	    (rc = parse_index(r, &p, "arc: head", nodes, &v)))
		return rc;
	if (*skip_space(p) == '-')
		return BAD(r, -CS_EINVAL, "arc: negative length");
	if ((rc = parse_uint(r, &p, "arc: length", UINT32_MAX, &w)) ||
	    (rc = expect_end(r, p, "the arc")))
		return rc;
	if (graph_edges_add(e, u, v, (uint32_t)w))
		return BAD(r, -CS_ENOMEM, "out of memory");
	return 0;
}

int graph_read_gr(const char *path, struct graph **out, struct graph_build_info *info,
		  struct cs_err *err)
{
	struct reader r;
	struct graph_edges e = {0};
	uint64_t nodes = 0, arcs = 0;
	bool problem = false;
	int rc;

	*out = NULL;
	if ((rc = open_reader(&r, path, err)) != 0)
		return rc;
	while (!problem || e.n < arcs) {
		const char *p;
		char tok[44];

		if ((rc = next_line(&r)) <= 0) {
			if (rc < 0)
				goto out;
			rc = problem ? BAD(&r, -CS_EINVAL,
					   "file ends after %zu of the %llu arcs the problem line "
					   "declares",
					   e.n, (unsigned long long)arcs)
				     : cs_err_set_at(err, -CS_EINVAL, path, r.line ? r.line : 1,
						     "no problem line 'p sp NODES ARCS'");
			goto out;
		}
		if (ignorable(r.buf, 'c'))
			continue;
		p = skip_space(r.buf);
		if (*p == 'p' && token_end(p + 1)) {
			if (problem) {
				rc = BAD(&r, -CS_EINVAL, "a second problem line");
				goto out;
			}
			if ((rc = gr_problem(&r, &nodes, &arcs)) != 0)
				goto out;
			problem = true;
		} else if (*p == 'a' && token_end(p + 1)) {
			if (!problem) {
				rc = BAD(&r, -CS_EINVAL, "an arc before the problem line");
				goto out;
			}
			if ((rc = gr_arc(&r, nodes, &e)) != 0)
				goto out;
		} else {
			rc = BAD(&r, -CS_EINVAL, "unknown line '%s' (c, p or a lines)",
				 token(p, tok));
			goto out;
		}
	}
	if ((rc = expect_no_more(&r, 'c', arcs, "arcs", "problem line")) == 0)
		rc = build(&r, nodes, &e, true, out, info);
out:
	graph_edges_free(&e);
	close_reader(&r);
	return rc;
}

int graph_read(const char *path, struct graph **out, struct graph_build_info *info,
	       struct cs_err *err)
{
	size_t n = strlen(path);

	if (n >= 3 && strcmp(path + n - 3, ".gr") == 0)
		return graph_read_gr(path, out, info, err);
	return graph_read_mtx(path, out, info, err);
}
