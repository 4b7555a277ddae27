/* util/readfile.c - whole input files read with a size cap (see the header). */
#include "util/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_read_file(const char *path, const char *shown, size_t max, const char *what, int text,
		 char **out, size_t *len, struct cs_err *err)
{
	size_t n = 0, cap = 0;
	char *buf = NULL;
	FILE *f;
	int rc;

	*out = NULL;
	if (len)
		*len = 0;
	if (!shown)
		shown = path;
	f = fopen(path, "rb");
	if (!f)
		return cs_err_set(err, -CS_EIO, "%s: cannot open: %s", shown, strerror(errno));
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			/* one byte past the cap is read, so a file of exactly max bytes passes */
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb;

			if (ncap > max + 2)
				ncap = max + 2;
			if (ncap <= n + 1)
				break; /* n > max: too large */
			nb = realloc(buf, ncap);
			if (!nb) {
				rc = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", shown);
				goto fail;
			}
			buf = nb;
			cap = ncap;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				/* e.g. a directory: fopen succeeds, reading fails with EISDIR */
				rc = cs_err_set(err, -CS_EIO, "%s: cannot open: %s", shown,
						strerror(errno ? errno : EIO));
				goto fail;
			}
			break;
		}
		if (n > max)
			break;
	}
	if (n > max) {
		rc = cs_err_set(err, -CS_EINVAL, "%s: larger than %zu bytes, the limit for %s",
				shown, max, what);
		goto fail;
	}
	buf = buf ? buf : malloc(1);
	if (!buf) {
		rc = cs_err_set(err, -CS_ENOMEM, "%s: out of memory", shown);
		goto fail;
	}
	buf[n] = '\0';
	if (text && strlen(buf) != n) {
		unsigned long line = 1;

		for (size_t i = 0; buf[i]; i++)
			line += buf[i] == '\n';
		rc = cs_err_set_at(err, -CS_EINVAL, shown, line, "unexpected NUL byte");
		goto fail;
	}
	fclose(f);
	*out = buf;
	if (len)
		*len = n;
	return 0;

fail:
	free(buf);
	fclose(f);
	return rc;
}
