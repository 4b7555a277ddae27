/* cli/cli.c - the command line's shared pieces (cli/cli.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/error.h"

int cli_exit_status(int code)
{
	switch (-code) {
	case 0:
		return 0;
	case CS_EUSAGE:
		return EXIT_USAGE;
	case CS_ECONFIG:
	case CS_ERANGE:
	case CS_ENOENT:
	case CS_EINVAL:
	case CS_EUNSUP:
		return EXIT_INPUT;
	case CS_EIO:
		return EXIT_INPUT; /* unreadable input; output errors are mapped at the call */
	case CS_ENOMEM:
		return EXIT_INTERNAL;
	default:
		return EXIT_SIM;
	}
}

static void vsay(const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "cohscope: %s\n", msg);
}

void cli_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

int cli_fail(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	return status;
}

/* path's temporary for this process, or NULL (out of memory). */
static char *tmp_name(const char *path)
{
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);

	if (tmp)
		snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	return tmp;
}

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -CS_EIO;
	ok = fwrite(text, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -CS_EIO;
}

/* Not a regular file (a FIFO, /dev/stdout): written in place, there is nothing to rename. */
static bool in_place(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

int cli_write_outputs(const struct cli_output *out, size_t n, size_t *failed)
{
	char **tmp = calloc(n ? n : 1, sizeof(*tmp));
	size_t i;
	int rc = 0;

	*failed = 0;
	if (!tmp)
		return -CS_ENOMEM;
	/* every temporary first: one that cannot be written leaves every path as it was */
	for (i = 0; i < n && !rc; i++) {
		if (in_place(out[i].path))
			continue;
		tmp[i] = tmp_name(out[i].path);
		rc = tmp[i] ? write_file(tmp[i], out[i].text, out[i].len) : -CS_ENOMEM;
		if (rc)
			*failed = i;
	}
	for (i = 0; i < n && !rc; i++) {
		if (tmp[i] ? rename(tmp[i], out[i].path) != 0
			   : write_file(out[i].path, out[i].text, out[i].len) != 0) {
			rc = -CS_EIO;
			*failed = i;
		}
		if (!rc && tmp[i]) {
			free(tmp[i]);
			tmp[i] = NULL;
		}
	}
	{
		int saved = errno; /* the failure's, for the caller's message */

		for (i = 0; i < n; i++) {
			if (tmp[i])
				unlink(tmp[i]);
			free(tmp[i]);
		}
		free(tmp);
		errno = saved;
	}
	return rc;
}

int cli_write_atomic(const char *path, const char *text, size_t len)
{
	struct cli_output o = {path, text, len};
	size_t failed;

	return cli_write_outputs(&o, 1, &failed);
}
