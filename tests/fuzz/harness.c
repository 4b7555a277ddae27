/*
 * tests/fuzz/harness.c - temporary directories, files and multi-file inputs for the fuzz
 * targets (see the header).
 */
#include "tests/fuzz/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "workloads/graph/graph.h"
#include "workloads/trace/trace.h"

const char *fz_src(void)
{
	const char *s = getenv("COHSCOPE_SRC");

	return s && s[0] ? s : COHSCOPE_FUZZ_SRC;
}

int fz_tmpdir(char *dir)
{
	const char *t = getenv("TMPDIR");

	if (snprintf(dir, FZ_PATH, "%s/cohscope-fuzz.XXXXXX", t && t[0] ? t : "/tmp") >= FZ_PATH)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void fz_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int fz_write(const char *dir, const char *name, const void *data, size_t size, char *path)
{
	char buf[FZ_PATH];
	const char *p = data;
	int fd;

	if (!path)
		path = buf;
	if (snprintf(path, FZ_PATH, "%s/%s", dir, name) >= FZ_PATH)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	return close(fd) ? -1 : 0;
}

char *fz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

int fz_mirror_configs(const char *dir)
{
	char src[FZ_PATH], from[FZ_PATH], to[FZ_PATH];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (snprintf(src, sizeof(src), "%s/configs", fz_src()) >= (int)sizeof(src))
		return -1;
	d = opendir(src);
	if (!d)
		return -1;
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(from, sizeof(from), "%s/%s", src, e->d_name) >= (int)sizeof(from) ||
		    snprintf(to, sizeof(to), "%s/%s", dir, e->d_name) >= (int)sizeof(to) ||
		    symlink(from, to))
			rc = -1;
	}
	closedir(d);
	return rc;
}

bool fz_plain_name(const char *name, size_t len)
{
	if (!len || len >= FZ_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* A line "#@ NAME" at data[i] (the start of a line), NAME's length in *len; NULL otherwise. */
static const char *marker(const uint8_t *data, size_t size, size_t i, size_t *len)
{
	const char *name = (const char *)data + i + 3;
	size_t n = 0;

	if (size - i < 4 || memcmp(data + i, "#@ ", 3) != 0)
		return NULL;
	while (i + 3 + n < size && name[n] != '\n')
		n++;
	if (n && name[n - 1] == '\r')
		n--;
	*len = n;
	return fz_plain_name(name, n) ? name : NULL;
}

size_t fz_split(const uint8_t *data, size_t size, const char *first, struct fz_file *out,
		size_t max)
{
	size_t n = 1, i = 0;

	snprintf(out[0].name, sizeof(out[0].name), "%s", first);
	out[0].data = data;
	out[0].size = size;
	while (i < size && n < max) {
		size_t len, next;
		const char *name = marker(data, size, i, &len);
		const uint8_t *nl = memchr(data + i, '\n', size - i);

		next = nl ? (size_t)(nl - data) + 1 : size;
		if (name) {
			out[n - 1].size = (size_t)(data + i - out[n - 1].data);
			memcpy(out[n].name, name, len);
			out[n].name[len] = '\0';
			out[n].data = data + next;
			out[n].size = size - next;
			n++;
		}
		i = next;
	}
	return n;
}

void fz_trace_walk(const struct trace *t)
{
	trace_ops(t);
	for (size_t e = 0; e < t->nev; e++) {
		const struct trace_kernel *k = &t->ev[e].kernel;

		if (t->ev[e].kind != TRACE_EV_KERNEL)
			continue;
		for (uint64_t w = 0; w < (uint64_t)k->ctas * k->warps_per_cta; w++) {
			struct trace_cursor c;
			struct trace_op op;

			trace_cursor_init(&c, &k->warp[w]);
			while (trace_next(&c, &op) == 1)
				;
		}
	}
}

int fz_say(int rc, const struct cs_err *err)
{
	const char *v = getenv("COHSCOPE_FUZZ_VERBOSE");

	if (v && v[0])
		fprintf(stderr, "fuzz: %s\n", rc ? err->msg : "accepted");
	return rc;
}

int fz_graph(const uint8_t *data, size_t size, const char *name)
{
	struct graph_build_info info;
	struct graph_stats st;
	struct graph *g = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];

	if (fz_tmpdir(dir))
		return 0;
	if (!fz_write(dir, name, data, size, path) &&
	    !fz_say(graph_read(path, &g, &info, &err), &err)) {
		char line[256];

		if (!graph_stats(g, &st))
			graph_stats_line(&st, line, sizeof(line));
		graph_digest(g);
	}
	graph_free(g);
	fz_rmtree(dir);
	return 0;
}
