/*
 * util/readfile.h - whole input files read with a size cap.
 *
 * Every reader of a user's file (configuration, calibration, litmus test, expectations, sweep,
 * plot input, trace) reads it through here, so /dev/zero or a runaway file costs at most the
 * cap and gives one line naming the file and the limit instead of filling the machine.
 */
#ifndef COHSCOPE_UTIL_READFILE_H
#define COHSCOPE_UTIL_READFILE_H

#include <stddef.h>

#include "util/error.h"

/* The caps, by kind of input. A text written by hand or by our tools stays far below them. */
#define CS_TEXT_FILE_MAX  (1u << 20)   /* configs, calibrations, litmus tests, sweeps */
#define CS_DATA_FILE_MAX  (256u << 20) /* plot inputs: results, CSV tables */
#define CS_TRACE_FILE_MAX (1ull << 32) /* cohscope trace files */

/*
 * Reads the file at path into *out (NUL-terminated; *len bytes without the NUL; len may be
 * NULL). shown names it in messages ("SHOWN: cannot open: REASON", "SHOWN: larger than N
 * bytes, the limit for WHAT"). With text set, a NUL byte inside is an error naming its line.
 * Returns 0, -CS_EIO (cannot open or read, a directory included), -CS_EINVAL (too large, NUL)
 * or -CS_ENOMEM.
 */
int cs_read_file(const char *path, const char *shown, size_t max, const char *what, int text,
		 char **out, size_t *len, struct cs_err *err);

#endif
