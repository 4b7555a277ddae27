/* util/error.c - error texts, struct cs_err helpers, and cut-marked formatting. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const cs_err_texts[CS_ERRNO_COUNT] = {[CS_OK] = "success",
#define CS_ERRNO_TEXT(name, text) [CS_##name] = text,
							 CS_ERRNO_MAP(CS_ERRNO_TEXT)
#undef CS_ERRNO_TEXT
};

const char *cs_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= CS_ERRNO_COUNT)
		return "unknown error";
	return cs_err_texts[err];
}

int cs_err_set(struct cs_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int cs_err_vset_at(struct cs_err *e, int code, const char *path, unsigned long line,
		   const char *fmt, va_list ap)
{
	char msg[sizeof(e->msg)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return cs_err_set(e, code, "%s:%lu: %s", path, line, msg);
}

int cs_err_set_at(struct cs_err *e, int code, const char *path, unsigned long line, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = cs_err_vset_at(e, code, path, line, fmt, ap);
	va_end(ap);
	return code;
}

void cs_err_clear(struct cs_err *e)
{
	if (!e)
		return;
	e->code = 0;
	e->msg[0] = '\0';
}

void cs_vformat_cut(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, len, fmt, ap);

	if (n >= 0 && (size_t)n >= len)
		memcpy(buf + len - 4, "...", 4);
}

void cs_format_cut(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cs_vformat_cut(buf, len, fmt, ap);
	va_end(ap);
}
