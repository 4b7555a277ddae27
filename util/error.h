/*
 * util/error.h - error codes and error messages shared by every module.
 *
 * Functions return 0 on success or a negative code (-CS_EINVAL, ...), libuv-style.
 * Where the user needs to know more than the code (which file, which line, which key),
 * the caller passes a struct cs_err and the failing function fills its message.
 * Nothing below cli/ prints or exits.
 */
#ifndef COHSCOPE_UTIL_ERROR_H
#define COHSCOPE_UTIL_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* X-macro: name, text. The CLI maps some codes to distinct exit statuses (cli/README.md). */
#define CS_ERRNO_MAP(X)                   \
	X(EINVAL, "invalid argument")     \
	X(ENOMEM, "out of memory")        \
	X(ENOENT, "not found")            \
	X(EEXIST, "already exists")       \
	X(ECONFIG, "configuration error") \
	X(EIO, "input/output error")      \
	X(ERANGE, "value out of range")   \
	X(EPROTO, "protocol violation")   \
	X(ESTATE, "invalid state")        \
	X(EUNSUP, "not supported")        \
	X(ECHECK, "self-check failed")    \
	X(EUSAGE, "usage error")

enum cs_errno {
	CS_OK = 0,
#define CS_ERRNO_ENUM(name, text) CS_##name,
	CS_ERRNO_MAP(CS_ERRNO_ENUM)
#undef CS_ERRNO_ENUM
	    CS_ERRNO_COUNT
};

/* Text for a (negative or positive) code; never NULL. */
const char *cs_strerror(int err);

/* A code plus a one-line human message, e.g. "configs/a.cfg:7: unknown key 'sede' in 'sim'
 * (did you mean 'seed'?)". */
struct cs_err {
	int code;
	char msg[512];
};

/* Fills *e (if not NULL) and returns code, so callers write `return cs_err_set(e, -CS_EINVAL,
 * ...)`. code is negative. */
int cs_err_set(struct cs_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with a "path:line: " prefix: the form every parser's errors take. */
int cs_err_set_at(struct cs_err *e, int code, const char *path, unsigned long line, const char *fmt,
		  ...) __attribute__((format(printf, 5, 6)));
/* The va_list form, for a parser's own wrapper. */
int cs_err_vset_at(struct cs_err *e, int code, const char *path, unsigned long line,
		   const char *fmt, va_list ap);

/* Resets *e to "no error". */
void cs_err_clear(struct cs_err *e);

/* Formats into buf (len > 3 bytes); a text that does not fit is cut and ends in "...", so a
 * reader sees that it was cut (the systems' run notes). */
void cs_vformat_cut(char *buf, size_t len, const char *fmt, va_list ap);
void cs_format_cut(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
