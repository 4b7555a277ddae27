/*
 * cli/cli.h - what every command of the command line shares: the exit statuses, the one-line
 * error, the mapping from the library's error codes, and atomic file writes (cli/cli.c).
 */
#ifndef COHSCOPE_CLI_CLI_H
#define COHSCOPE_CLI_CLI_H

#include <stddef.h>

/* 0 success; 1 the simulation failed a check (or a sweep point failed); 2 usage; 3 bad input;
 * 4 output not written; 5 internal (out of memory) */
enum { EXIT_SIM = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4, EXIT_INTERNAL = 5 };

/* The exit status for a library return code (0 or -CS_E...). */
int cli_exit_status(int code);

/* "cohscope: MESSAGE" on stderr as one line (control characters become '?': a newline in an
 * argument or a file name would split it). cli_fail returns status. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes text to path atomically: a temporary file in the same directory, then rename. A path
 * that exists and is not a regular file (/dev/stdout, a pipe) is written in place: renaming
 * over it would replace the device or the pipe with a file. 0, -CS_EIO or -CS_ENOMEM. */
int cli_write_atomic(const char *path, const char *text, size_t len);

/* Several outputs of one command, all written or none: each goes to its temporary first, and
 * only when every one is written are they renamed into place (a path that is not a regular
 * file, such as /dev/stdout, is written in place). On failure *failed is the index of the
 * output that failed. 0, -CS_EIO (errno set) or -CS_ENOMEM. */
struct cli_output {
	const char *path;
	const char *text;
	size_t len;
};
int cli_write_outputs(const struct cli_output *out, size_t n, size_t *failed);

#endif
