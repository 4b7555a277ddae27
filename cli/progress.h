/*
 * cli/progress.h - the progress line on a terminal: mode, kernel, CTAs done, simulated cycles,
 * detailed units taken, the last kernel's estimate and interval, and the running kernel's ETA.
 * Drawn on stderr (carriage return, no newline until the end) so stdout stays the result.
 */
#ifndef COHSCOPE_CLI_PROGRESS_H
#define COHSCOPE_CLI_PROGRESS_H

#include <stdbool.h>

#include "tlm/system/system.h"

enum progress_when { PROGRESS_AUTO = 0, PROGRESS_NEVER, PROGRESS_ALWAYS };

struct progress {
	enum progress_when when;
	const char *label; /* e.g. the suite's benchmark, or NULL */
	double t0, last;   /* host seconds at start, at the last draw */
	double kstart;	   /* host seconds when the running kernel started */
	unsigned kernels;  /* launched at kstart */
	bool drawn;
};

/* AUTO draws on a terminal once a run has taken PROGRESS_AFTER_S seconds; ALWAYS from the
 * start and on any stream (tests); NEVER not at all. */
#define PROGRESS_AFTER_S 2.0
#define PROGRESS_EVERY_S 0.25

void progress_init(struct progress *p, enum progress_when when, const char *label);
/* The struct cs_run_opts.progress callback (arg: struct progress *). */
void progress_update(void *arg, const struct cs_progress *s);
/* Ends the line (if anything was drawn). */
void progress_done(struct progress *p);

#endif
