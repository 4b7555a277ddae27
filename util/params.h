/*
 * util/params.h - parameter tables: every component declares its configuration once.
 *
 * A table lists (key, type, default, unit, help, range, choices) for the fields of one config
 * struct. The same table drives loading from libconfig files (util/config.h), `--set
 * section.key=value` overrides, `cohscope config --dump` and generated docs, so a parameter can
 * never be documented with one default and loaded with another.
 *
 * Field types in the config struct, by enum cs_ptype:
 *   CS_P_BOOL bool, CS_P_INT int64_t, CS_P_UINT uint64_t, CS_P_DOUBLE double,
 *   CS_P_STRING char[CS_PARAM_STR_MAX] (NUL-terminated, zero-padded), CS_P_ENUM unsigned.
 *
 * Every function that takes `void *dst` / `const void *values` expects the whole config struct;
 * the parameter's offset is applied inside.
 */
#ifndef COHSCOPE_UTIL_PARAMS_H
#define COHSCOPE_UTIL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

enum cs_ptype {
	CS_P_BOOL,
	CS_P_INT,    /* int64_t */
	CS_P_UINT,   /* uint64_t */
	CS_P_DOUBLE, /* double, always finite */
	CS_P_STRING, /* char[CS_PARAM_STR_MAX] */
	CS_P_ENUM,   /* unsigned index into choices */
};

#define CS_PARAM_STR_MAX 256

struct cs_param {
	const char *key; /* "seed"; a libconfig name: [A-Za-z][-A-Za-z0-9_]* */
	enum cs_ptype type;
	size_t offset;	  /* offsetof(struct X_cfg, field) */
	const char *def;  /* default as text, parsed like a --set value ("1", "true", "wheel") */
	const char *unit; /* "ns", "cycles", "KiB", "" */
	const char *help; /* one line */
	double min, max;  /* inclusive range for numeric types; min == max == 0 means unchecked */
	const char *const *choices; /* CS_P_ENUM: NULL-terminated names */
};

struct cs_param_table {
	const char *section;	       /* top-level group name in the config file: "sim", "l1" */
	const char *help;	       /* one line: what the component is */
	const struct cs_param *params; /* terminated by an entry with key == NULL */
	size_t size;		       /* sizeof the config struct */
};

/* Zero dst (t->size bytes, so padding compares equal) and fill every default. A bad table or
 * default is a programming error: -CS_EINVAL with a message naming the parameter. */
int cs_params_defaults(const struct cs_param_table *t, void *dst, struct cs_err *err);

/*
 * Parse one value text for p into dst (defaults and --set values). where prefixes the message,
 * e.g. "--set sim.seed=abc" gives "--set sim.seed=abc: expected an unsigned integer".
 * Integers: decimal or 0x hex, no junk, no overflow, no '-' for CS_P_UINT. Doubles: finite, no
 * junk. Bools: true/false/1/0/yes/no/on/off, any case. Strings: raw text, no quotes.
 * Returns 0, -CS_ECONFIG (bad text, unknown choice), -CS_ERANGE (range) or -CS_EINVAL (bad p).
 */
int cs_param_parse(const struct cs_param *p, const char *text, void *dst, const char *where,
		   struct cs_err *err);

/*
 * Typed setters: check and store a value already converted by a reader (the libconfig loader).
 * Each requires p->type to be its type (CS_P_STRING or CS_P_ENUM for _string), else -CS_EINVAL.
 * Messages are "WHERE: out of range [1, 64]", "WHERE: not one of a, b (did you mean 'a'?)".
 */
int cs_param_set_bool(const struct cs_param *p, bool v, void *dst, const char *where,
		      struct cs_err *err);
int cs_param_set_int(const struct cs_param *p, int64_t v, void *dst, const char *where,
		     struct cs_err *err);
int cs_param_set_uint(const struct cs_param *p, uint64_t v, void *dst, const char *where,
		      struct cs_err *err);
int cs_param_set_double(const struct cs_param *p, double v, void *dst, const char *where,
			struct cs_err *err);
int cs_param_set_string(const struct cs_param *p, const char *s, void *dst, const char *where,
			struct cs_err *err);

/* Find a param by key, NULL if none. */
const struct cs_param *cs_param_find(const struct cs_param_table *t, const char *key);

/* Number of params in t (entries before the key == NULL terminator). */
size_t cs_params_count(const struct cs_param_table *t);

/* "a boolean", "an integer", "an unsigned integer", "a number", "a string", "a string". */
const char *cs_ptype_name(enum cs_ptype type);

/*
 * Nearest candidate to word by Damerau (optimal string alignment) distance, ignoring case; NULL
 * if none is reasonably close: distance > max(2, len/3), or the distance equals the word's
 * length (nothing in common). Ties go to the earlier candidate. NULL entries are skipped.
 */
const char *cs_nearest(const char *word, const char *const *candidates, size_t n);

/*
 * Format p's value in values as libconfig text into buf (always NUL-terminated if len > 0):
 * true/false, 42, 5000000000L, 0xFFFFFFFFFFFFFFFFL (uint64 beyond int64), 0.1 (shortest text
 * that reads back to the same double, always with '.' or 'e'), "quoted \"escaped\"".
 * Returns the length it needed (like snprintf) or -CS_EINVAL (bad enum index, bad p).
 */
int cs_param_format(const struct cs_param *p, const void *values, char *buf, size_t len);

/*
 * Write one section as libconfig text that loads back to the same values:
 *   # <table help>
 *   section = {
 *     # help [unit] (range 1..64) (one of: a, b) (default: X)
 *     key = value;
 *   };
 * Returns 0, -CS_EINVAL (unprintable value) or -CS_EIO (write error).
 */
int cs_params_dump(FILE *f, const struct cs_param_table *t, const void *values);

#endif
