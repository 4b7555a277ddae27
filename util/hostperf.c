/*
 * util/hostperf.c - host wall time (CLOCK_MONOTONIC) and, with HAVE_PAPI, cycle and instruction
 * counters from PAPI, with a silent fallback to wall time when the counters are unavailable.
 */
#include "util/hostperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_PAPI
#include <papi.h>
#endif

struct cs_hostperf {
	bool counters; /* PAPI events usable */
	bool running;
	struct timespec t0; /* start of the running stretch */
	double wall_acc;    /* seconds of the finished stretches */
	uint64_t cycles_acc;
	uint64_t instructions_acc;
	char why[sizeof(((struct cs_hostperf_result *)0)->why)];
#ifdef HAVE_PAPI
	int eventset;	   /* PAPI_NULL when none */
	bool owns_library; /* we initialised PAPI and shut it down on close */
#endif
};

double cs_wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - t0->tv_sec) + (double)(ts.tv_nsec - t0->tv_nsec) * 1e-9;
}

#ifdef HAVE_PAPI

static void papi_why(struct cs_hostperf *h, int rc, const char *step)
{
	const char *text = PAPI_strerror(rc);

	snprintf(h->why, sizeof(h->why), "PAPI: %s (%s)", text ? text : "unknown error", step);
}

/* Frees the event set and, if we initialised it, the library. Leaves counters off. */
static void papi_release(struct cs_hostperf *h)
{
	h->counters = false;
	if (h->eventset != PAPI_NULL) {
		PAPI_cleanup_eventset(h->eventset);
		PAPI_destroy_eventset(&h->eventset);
		h->eventset = PAPI_NULL;
	}
	if (h->owns_library) {
		PAPI_shutdown();
		h->owns_library = false;
	}
}

/* The probe: every step the measurement needs, once. Fills h->why on failure. */
static void papi_probe(struct cs_hostperf *h)
{
	long long vals[2];
	int rc;

	h->eventset = PAPI_NULL;
	if (PAPI_is_initialized() == PAPI_NOT_INITED) {
		rc = PAPI_library_init(PAPI_VER_CURRENT);
		if (rc != PAPI_VER_CURRENT) {
			if (rc > 0)
				snprintf(h->why, sizeof(h->why),
					 "PAPI: library version mismatch (PAPI_library_init)");
			else
				papi_why(h, rc, "PAPI_library_init");
			return;
		}
		h->owns_library = true;
		PAPI_set_debug(PAPI_QUIET); /* no reports on stderr */
	}
	rc = PAPI_create_eventset(&h->eventset);
	if (rc != PAPI_OK) {
		h->eventset = PAPI_NULL;
		papi_why(h, rc, "PAPI_create_eventset");
		goto out_release;
	}
	rc = PAPI_add_event(h->eventset, PAPI_TOT_CYC);
	if (rc != PAPI_OK) {
		papi_why(h, rc, "PAPI_TOT_CYC");
		goto out_release;
	}
	rc = PAPI_add_event(h->eventset, PAPI_TOT_INS);
	if (rc != PAPI_OK) {
		papi_why(h, rc, "PAPI_TOT_INS");
		goto out_release;
	}
	rc = PAPI_start(h->eventset);
	if (rc != PAPI_OK) {
		papi_why(h, rc, "PAPI_start");
		goto out_release;
	}
	rc = PAPI_stop(h->eventset, vals);
	if (rc != PAPI_OK) {
		papi_why(h, rc, "PAPI_stop");
		goto out_release;
	}
	h->counters = true;
	return;

out_release:
	papi_release(h);
}

#endif /* HAVE_PAPI */

int cs_hostperf_open(struct cs_hostperf **out)
{
	struct cs_hostperf *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return -CS_ENOMEM;
#ifdef HAVE_PAPI
	papi_probe(h);
#else
	snprintf(h->why, sizeof(h->why), "built without PAPI");
#endif
	*out = h;
	return 0;
}

void cs_hostperf_close(struct cs_hostperf *h)
{
	if (!h)
		return;
#ifdef HAVE_PAPI
	if (h->running && h->counters) {
		long long vals[2];

		PAPI_stop(h->eventset, vals);
	}
	papi_release(h);
#endif
	free(h);
}

void cs_hostperf_start(struct cs_hostperf *h)
{
	if (h->running)
		return;
#ifdef HAVE_PAPI
	if (h->counters) {
		int rc = PAPI_start(h->eventset);

		if (rc != PAPI_OK) {
			papi_why(h, rc, "PAPI_start");
			papi_release(h);
		}
	}
#endif
	h->running = true;
	clock_gettime(CLOCK_MONOTONIC, &h->t0);
}

void cs_hostperf_stop(struct cs_hostperf *h)
{
	if (!h->running)
		return;
	h->wall_acc += elapsed_s(&h->t0);
	h->running = false;
#ifdef HAVE_PAPI
	if (h->counters) {
		long long vals[2];
		int rc = PAPI_stop(h->eventset, vals);

		if (rc != PAPI_OK) {
			papi_why(h, rc, "PAPI_stop");
			papi_release(h);
			return;
		}
		h->cycles_acc += (uint64_t)vals[0];
		h->instructions_acc += (uint64_t)vals[1];
	}
#endif
}

void cs_hostperf_read(const struct cs_hostperf *h, struct cs_hostperf_result *r)
{
	memset(r, 0, sizeof(*r));
	r->counters = h->counters;
	r->wall_s = h->wall_acc;
	if (h->running)
		r->wall_s += elapsed_s(&h->t0);
	snprintf(r->why, sizeof(r->why), "%s", h->why);
	if (!h->counters)
		return;
	r->cycles = h->cycles_acc;
	r->instructions = h->instructions_acc;
#ifdef HAVE_PAPI
	if (h->running) {
		long long vals[2];

		if (PAPI_read(h->eventset, vals) == PAPI_OK) {
			r->cycles += (uint64_t)vals[0];
			r->instructions += (uint64_t)vals[1];
		}
	}
#endif
}
