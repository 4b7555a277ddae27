/*
 * util/config.h - configuration loading: a libconfig file (or none) plus `--set` overrides,
 * read section by section through parameter tables (util/params.h).
 *
 * Typical use by a builder:
 *   cs_config_open(path, &c, &err);             // or cs_config_open_string(), or NULL path
 *   cs_config_set(c, "sim.seed=7", &err);       // once per --set, before loading sections
 *   cs_config_section(c, &sim_table, &sim, &err);
 *   if (cs_config_has_section(c, "l3")) cs_config_section(c, &l3_table, &l3, &err);
 *   cs_config_check_unused(c, all_names, n, &err); // typos in section names, stray --set
 *   cs_config_dump(c, stdout);                  // `cohscope config --dump`
 *   cs_config_close(c);
 *
 * Errors are one line naming file, line and the nearest valid name, e.g.
 * "a.cfg:7: unknown key 'sede' in section 'sim' (did you mean 'seed'?)".
 *
 * libconfig 1.5 notes: integers beyond int32 need the L suffix (5000000000L); without it
 * libconfig silently wraps them, so the file text is scanned and such literals are rejected.
 * Hex literals are read as unsigned (0xFFFFFFFF is 4294967295). @include paths are relative to
 * the directory of the top-level file (for a string config: the working directory).
 */
#ifndef COHSCOPE_UTIL_CONFIG_H
#define COHSCOPE_UTIL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/error.h"
#include "util/params.h"

/* A parsed libconfig file (or none), recorded --set overrides, and the sections loaded so far
 * with a copy of their values (for the dump). */
struct cs_config;

/* path NULL: no file, defaults and overrides only. Missing file: "FILE: cannot open: REASON"
 * (-CS_EIO); syntax error: "FILE:LINE: syntax error" (-CS_ECONFIG). *out is NULL on error. */
int cs_config_open(const char *path, struct cs_config **out, struct cs_err *err);

/* Same for config text in memory; name (NULL: "<string>") stands for the file in messages. */
int cs_config_open_string(const char *text, const char *name, struct cs_config **out,
			  struct cs_err *err);

void cs_config_close(struct cs_config *c);

/* The name given to open (file path or string name); NULL when opened without a file. */
const char *cs_config_path(const struct cs_config *c);

/*
 * Record "section.key=value" (the text after --set). Only the syntax is checked here: the key
 * part (before the first '=') must be exactly section.key with both parts non-empty, else
 * -CS_ECONFIG "--set X: expected section.key=value". The value is raw text (may be empty).
 * A later override of the same key replaces the earlier one. Call before loading the section.
 */
int cs_config_set(struct cs_config *c, const char *assignment, struct cs_err *err);

/*
 * Load section t->section into dst (t->size bytes): defaults, then the file's group of that name
 * (if any), then the overrides for it. Checks types, ranges, enum choices and that every key in
 * the group and in the overrides is in the table. Records the section as consumed and keeps a
 * copy of the values. dst is untouched on error. Loading a section again returns the same values
 * (the table must be the same one: -CS_EINVAL otherwise).
 */
int cs_config_section(struct cs_config *c, const struct cs_param_table *t, void *dst,
		      struct cs_err *err);

/* The same with t's parameters read from the section called name (t->section is ignored): one
 * table for many sections of one shape, e.g. the builder's node groups. base (t->size bytes, or
 * NULL for the table's defaults) holds the values the file and the overrides start from. The
 * configuration keeps its own copy of the table under that name, so dumps and checks see it like
 * any section. A name already loaded with a table of other parameters is -CS_EEXIST, for the
 * caller to say what it clashes with. */
int cs_config_section_as(struct cs_config *c, const struct cs_param_table *t, const char *name,
			 const void *base, void *dst, struct cs_err *err);

/* Does the file have a top-level setting with this name (a group, or something that will fail to
 * load as one), or is there an override for it? Lets a builder decide optional sections. */
bool cs_config_has_section(const struct cs_config *c, const char *section);

/*
 * Call after the builder loaded every section it uses. Any top-level setting in the file that was
 * not loaded is an error: "FILE:LINE: unknown section 'foo' (did you mean 'l2'?)", suggesting
 * among the loaded section names and extra_known (NULL/0 allowed); a name that is in extra_known
 * but was not loaded gives "FILE:LINE: section 'dram' is not used by this configuration". Any
 * override not applied: "--set foo.bar=1: unknown section 'foo' (did you mean ...)". -CS_ECONFIG.
 */
int cs_config_check_unused(struct cs_config *c, const char *const *extra_known, size_t n_extra,
			   struct cs_err *err);

/* Write every loaded section, in the order first loaded, with its effective values (libconfig
 * text via cs_params_dump), after a first comment line naming the source. Loading the output
 * back gives identical values. Returns 0, -CS_EINVAL or -CS_EIO. */
int cs_config_dump(const struct cs_config *c, FILE *f);
#define CS_WHERE_MAX 320 /* enough for any location prefix below */

/* Where section.key's effective value came from, with the value, for errors found after
 * loading (a builder checking two parameters against each other): "FILE:LINE: section.key =
 * V", "--set section.key=V" or "section.key = V (default)". The section must be loaded. */
void cs_config_origin(const struct cs_config *c, const char *section, const char *key, char *buf,
		      size_t len);

/*
 * An error a component's own check found, placed at its origin. Such checks name their keys
 * by their table's section (dram.tRC, noc.buffer_flits). cs_config_locate_as rewrites CANON.key
 * into SECTION.key, for a table loaded under another name (a network called gpu_xbar), and
 * both put in front the origin of the first key named that the file or a --set gave:
 * "--set gpu_xbar.buffer_flits=1: network gpu_xbar: gpu_xbar.buffer_flits (1) must hold ...".
 * A message that says where already, or names no given key, keeps its place. Return
 * err->code, so a caller writes `return cs_config_locate(cfg, err);`.
 */
int cs_config_locate_as(const struct cs_config *c, const char *canon, const char *section,
			struct cs_err *err);
int cs_config_locate(const struct cs_config *c, struct cs_err *err);

#endif
