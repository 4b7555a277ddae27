/*
 * tests/fuzz/harness.h - what the fuzz targets share (tests/fuzz/README.md).
 *
 * Every reader under test takes a path, as the command line gives it one, so each input is
 * written to a file in a fresh temporary directory (under $TMPDIR, else /tmp) and read back
 * through the project's own API; the directory goes when the input is done. Targets whose
 * reader resolves relative paths (@include, a sweep's base, an Accel-Sim kernel list) get the
 * files they need beside the input: symbolic links to the source tree's configs/, or the other
 * files of a multi-file input.
 */
#ifndef COHSCOPE_TESTS_FUZZ_HARNESS_H
#define COHSCOPE_TESTS_FUZZ_HARNESS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point: every fuzz_NAME.c defines it (replay_main.c calls it without
 * libFuzzer). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_PATH	     PATH_MAX
#define FZ_NAME_MAX  64 /* a file name inside a multi-file input */
#define FZ_FILES_MAX 8

/* The source tree: $COHSCOPE_SRC, else the one this binary was configured from. */
const char *fz_src(void);

/* A fresh directory for one input, its path in dir (FZ_PATH bytes). 0 or -1. */
int fz_tmpdir(char *dir);
/* Removes dir and everything below it (symbolic links, not what they point to). */
void fz_rmtree(const char *dir);

/* Writes size bytes to dir/name (created or truncated), its path in path (FZ_PATH bytes, may
 * be NULL). 0 or -1. */
int fz_write(const char *dir, const char *name, const void *data, size_t size, char *path);
/* The same with a NUL-terminated copy of data in memory, for readers of strings; the caller
 * frees it. NULL when out of memory. */
char *fz_strndup(const uint8_t *data, size_t size);

/* A symbolic link dir/NAME to SRC/configs/NAME for every entry of the source's configs/, so
 * that an input written to dir resolves @include and relative paths as a file in configs/
 * would. 0 or -1. */
int fz_mirror_configs(const char *dir);

/*
 * A multi-file input: the text up to the first line "#@ NAME" is the file `first`, each such
 * line starts the file NAME (a plain file name: letters, digits, '.', '_', '-', at most
 * FZ_NAME_MAX - 1 characters, not starting with '.'; a line naming anything else is content).
 * At most max files (the rest goes into the last one). Returns the number of files.
 */
struct fz_file {
	char name[FZ_NAME_MAX];
	const uint8_t *data;
	size_t size;
};
size_t fz_split(const uint8_t *data, size_t size, const char *first, struct fz_file *out,
		size_t max);

/* Is name a plain file name as fz_split accepts it? */
bool fz_plain_name(const char *name, size_t len);

/* With $COHSCOPE_FUZZ_VERBOSE set (replaying seeds by hand), one line on stderr: what the
 * reader said of the input (rc 0: "accepted"). Returns rc. */
struct cs_err;
int fz_say(int rc, const struct cs_err *err);

/* Decodes every op of every warp of a loaded trace, as the replay reads them. */
struct trace;
void fz_trace_walk(const struct trace *t);

/* The graph targets: data written as NAME (its extension picks the reader, as graph_read
 * does), read, then the statistics and digest the Pannotia workloads print. */
int fz_graph(const uint8_t *data, size_t size, const char *name);

#endif
