/*
 * sampling/sampler.h - the sampling layer: the phase machine that runs a system's initiators
 * on the faces the sampling controller's plan wants (DESIGN.md §4).
 *
 * An initiator (an SM today, a CPU core later) implements `struct samp_initiator_ops`: take a
 * face (AT, LT, FF), hold (issue nothing new: a drain), say whether anything of its own is
 * still in flight, and count its work. The system gives the rest: whether the memory side is
 * idle and how many bytes its network has counted. The sampler then does the rest for any
 * system: within a kernel, LT warm-up, units (AT warm-up, measured AT, drain), LT periods,
 * FF or whole-AT kernels, each phase's time booked to its face, and each unit's pair given to
 * the controller (sampling/controller.h), which decides plans and makes the estimates.
 *
 * In detailed mode every kernel is one AT phase; in analytic mode one LT phase.
 */
#ifndef COHSCOPE_SAMPLING_SAMPLER_H
#define COHSCOPE_SAMPLING_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic/evbound.h"
#include "sampling/controller.h"
#include "tlm/kernel/sim.h"

enum samp_face { SAMP_FACE_AT = 0, SAMP_FACE_LT, SAMP_FACE_FF };

/* What every initiator offers the sampling layer. */
struct samp_initiator_ops {
	void (*set_face)(void *obj, unsigned face); /* enum samp_face */
	void (*hold)(void *obj, bool hold);	    /* AT: issue nothing new (a drain) */
	bool (*busy)(const void *obj);		    /* its accesses or timed waits in flight */
	/* optional: nothing the LT face issued is still in flight (its answers come at LT
	 * times, outside the detailed queues: a unit must not count them) */
	bool (*lt_settled)(const void *obj);
	uint64_t (*work)(const void *obj);	/* work done so far, every face (instructions and
					      compute cycles: a unit's size) */
	unsigned (*occupancy)(const void *obj); /* threads of work resident now (warps) */
};

/* What the rest of the system offers it. */
struct samp_system_ops {
	bool (*idle)(void *sys);	/* the memory side holds nothing queued or in flight */
	double (*traffic)(void *sys);	/* network bytes counted so far */
	bool (*all_started)(void *sys); /* the kernel's work has all been handed out (no CTA
					   waits for room on an SM) */
	/* the FF face to come is a fill between units (work: its warps' time is their work,
	 * so that they keep their spread over the kernel's phases) or a whole kernel (NULL: the
	 * system has no FF fill) */
	void (*ff_timing)(void *sys, bool work);
};

/* sampling.predictor = events: the counters whose counts bound an interval's time, in the
 * layout's order (the system reads them; a unit and an LT interval are predicted alike). */
struct samp_events {
	struct evb_layout layout;
	void (*counts)(void *sys, double *v);
};

struct sampler;

/* mode: enum cs_mode (detailed, hybrid, analytic); clk: the initiators' clock (cycles). */
int sampler_create(struct sim_kernel *k, const struct sim_clock *clk, const struct samp_cfg *cfg,
		   unsigned mode, const struct samp_system_ops *sys_ops, void *sys,
		   struct sampler **out);
void sampler_destroy(struct sampler *s);
int sampler_add_initiator(struct sampler *s, const struct samp_initiator_ops *ops, void *obj);
/* The system's event counters (needed by sampling.predictor = events in hybrid mode). */
int sampler_set_events(struct sampler *s, const struct samp_events *ev);

/* After the system is built: in hybrid mode the events predictor needs the system's
 * counters (sampler_set_events); without them -CS_ECONFIG, err naming `where` (the setting's
 * origin) and `system`, rather than pairs of another kind unsaid. 0 otherwise. */
struct cs_err;
int sampler_ready(const struct sampler *s, const char *where, const char *system,
		  struct cs_err *err);

/* A kernel starts (name and launch shape are its group's signature): every initiator on the
 * face of its plan. */
void sampler_kernel_begin(struct sampler *s, const char *name, unsigned ctas, unsigned warps);
/* The face the initiators are on now. */
unsigned sampler_face(const struct sampler *s);
/* The kernel ended at t: its facts (lt_factor left 0 for the caller). */
void sampler_kernel_close(struct sampler *s, sim_time_t t, struct samp_kernel_facts *f);
/* The closed kernel's simulated ps in the AT face (drains excluded) and in the LT face. */
void sampler_kernel_ps(const struct sampler *s, double *at_ps, double *lt_ps);
/* Its estimate from the facts (hybrid, analytic; the caller may set f->lt_factor first). */
void sampler_kernel_estimate(struct sampler *s, const struct samp_kernel_facts *f,
			     struct samp_estimate *e);

/* Units taken, kernels sampled, predicted. */
void sampler_counts(const struct sampler *s, unsigned *units, unsigned *sampled, unsigned *skipped);
/* Where the host's time went, per face (enum samp_face order) and outside kernels (the
 * workload's host side: inputs, copies, references, checks): wall seconds, simulated ps and
 * work. Host figures: they differ from run to run and change no result. */
struct samp_host_faces {
	double seconds[3], sim_ps[3], work[3];
	double host_side_s;
};
void sampler_host_faces(const struct sampler *s, struct samp_host_faces *h);

/* Simulated ps in the AT face (drains excluded) and in AT and LT, over the run's kernels. */
double sampler_at_ps(const struct sampler *s);
double sampler_timed_ps(const struct sampler *s);

#endif
