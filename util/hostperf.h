/*
 * util/hostperf.h - host-side performance measurement: wall time always, plus CPU cycles and
 * instructions from PAPI when the build has PAPI (HAVE_PAPI) and the host exposes the counters.
 *
 * Missing counters are never an error (VMs and containers often have no CPU PMU): the probe in
 * cs_hostperf_open() records why and the handle falls back to wall time only. Counters count
 * the calling thread. PAPI is process-wide state: keep at most one handle open at a time; the
 * handle that initialised the PAPI library shuts it down again on close.
 */
#ifndef COHSCOPE_UTIL_HOSTPERF_H
#define COHSCOPE_UTIL_HOSTPERF_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

struct cs_hostperf;

struct cs_hostperf_result {
	bool counters;	       /* cycles and instructions are valid */
	double wall_s;	       /* CLOCK_MONOTONIC seconds */
	uint64_t cycles;       /* PAPI_TOT_CYC, 0 without counters */
	uint64_t instructions; /* PAPI_TOT_INS, 0 without counters */
	/* empty when counters work, else e.g. "PAPI: Event does not exist (PAPI_TOT_CYC)" or
	 * "built without PAPI" */
	char why[160];
};

/*
 * Probes PAPI (if built with HAVE_PAPI): library_init, create an event set, add PAPI_TOT_CYC and
 * PAPI_TOT_INS, start, stop. On any failure records why (PAPI_strerror text and the failing
 * step) and falls back to wall time. Prints nothing. Returns 0 or -CS_ENOMEM only.
 */
int cs_hostperf_open(struct cs_hostperf **out);
/* NULL is a no-op. */
void cs_hostperf_close(struct cs_hostperf *h);
/* Seconds on the monotonic clock (differences are wall time; host figures only). */
double cs_wall_seconds(void);
/* Start / stop a measured stretch; stretches accumulate. start while running and stop while
 * stopped are no-ops. A counter failure during start or stop drops to wall time (why says so). */
void cs_hostperf_start(struct cs_hostperf *h);
void cs_hostperf_stop(struct cs_hostperf *h);
/* Totals over every stretch so far, including the running one. */
void cs_hostperf_read(const struct cs_hostperf *h, struct cs_hostperf_result *r);

#endif
