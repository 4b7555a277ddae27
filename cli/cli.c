/* cli/cli.c - the command line's shared pieces (cli/cli.h). */
#include <stdarg.h>
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

int cli_write_atomic(const char *path, const char *text, size_t len)
{
	size_t plen = strlen(path);
	char *tmp;
	struct stat st;
	FILE *f;
	int ok;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			return -CS_EIO;
		ok = fwrite(text, 1, len, f) == len;
		ok = (fclose(f) == 0) && ok;
		return ok ? 0 : -CS_EIO;
	}
	tmp = malloc(plen + 32);
	if (!tmp)
		return -CS_ENOMEM;
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		free(tmp);
		return -CS_EIO;
	}
	ok = fwrite(text, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	if (ok && rename(tmp, path) == 0) {
		free(tmp);
		return 0;
	}
	unlink(tmp);
	free(tmp);
	return -CS_EIO;
}
