/*
 * tlm/system/system.h - a simulated system: kernel, configuration, stats, components.
 *
 * A system type (selfcheck now; gpu, apu later) is a registered builder: it reads the
 * configuration sections it needs, creates components from the component registry, binds
 * their sockets and runs a workload. Components know their neighbours only through bound
 * sockets. Registries are explicit arrays (systems and components in system.c, workloads in
 * workloads/registry.c).
 */
#ifndef COHSCOPE_TLM_SYSTEM_SYSTEM_H
#define COHSCOPE_TLM_SYSTEM_SYSTEM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "util/config.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

/* How timing is computed (DESIGN.md §4). Only detailed exists so far. */
enum cs_mode { CS_MODE_DETAILED = 0, CS_MODE_HYBRID, CS_MODE_ANALYTIC };

extern const char *const cs_mode_names[]; /* NULL-terminated, indexed by enum cs_mode */

/* The "sim" section: the kernel's own settings. */
struct cs_sim_cfg {
	uint64_t seed;
	unsigned queue; /* enum sim_queue_kind */
	uint64_t quantum_ns;
	uint64_t stack_kib;
};

/* The "system" section. */
struct cs_system_cfg {
	char type[CS_PARAM_STR_MAX]; /* a name in the system registry */
	char workload[CS_PARAM_STR_MAX];
	unsigned mode; /* enum cs_mode */
};

struct cs_system;
struct cs_component;
struct trace;

struct cs_system_ops {
	unsigned version;
	const char *name;
	const char *help;
	unsigned modes; /* bit (1 << enum cs_mode) for each mode it supports */
	/* Reads the sections it needs, creates components. */
	int (*build)(struct cs_system *s, struct cs_err *err);
	/* Runs the workload. A failed check is -CS_ECHECK with a message. */
	int (*run)(struct cs_system *s, struct cs_err *err);
	/* A readable summary of the run. */
	int (*report)(struct cs_system *s, FILE *f);
	/* The system's own result object for the JSON output (may be NULL). */
	json_t *(*result)(struct cs_system *s);
	/* Host figures of the run (they differ from run to run; may be NULL), e.g. where the
	 * host's time went per timing face. */
	json_t *(*host_result)(struct cs_system *s);
	void (*destroy)(struct cs_system *s);
};

struct cs_component_ops {
	unsigned version;
	const char *kind;
	const char *help;
	const struct cs_param_table *params; /* its configuration section */
	int (*create)(struct cs_system *s, const char *name, const void *cfg,
		      struct cs_component **out, struct cs_err *err);
	void (*destroy)(struct cs_component *c);
};

/* Embedded at the start of every component instance. */
struct cs_component {
	const struct cs_component_ops *ops;
	struct cs_component *next; /* the system's list, newest first */
	char name[64];
};

/* Where a run is, for a progress display (the command line's; the system calls it at CTA and
 * kernel boundaries, so it adds no simulation event). */
struct cs_progress {
	const char *mode;		/* cs_mode_names */
	const char *kernel;		/* the running kernel's name, "" between kernels */
	unsigned kernels;		/* kernels launched so far */
	unsigned ctas_done, ctas;	/* of the running kernel */
	uint64_t cycles;		/* core cycles simulated so far (all faces) */
	unsigned units;			/* detailed units taken (hybrid) */
	double kernel_est, kernel_half; /* the last finished kernel's estimate (cycles) */
};

/* What the command line chose for a run. NULL / -1: the configuration's value. */
struct cs_run_opts {
	const char *workload;
	int mode;
	/* A workload that is not in the registry (the litmus runner's), with an argument its
	 * host program reads with gh_arg(); it must name this system type. */
	const struct cs_workload *custom;
	void *arg;
	/* --record: an empty trace (workloads/trace/trace.h) the GPU system fills with the host's
	 * copies and every warp's ops; the caller saves it after a successful run. */
	struct trace *record;
	/* a progress display, or NULL */
	void (*progress)(void *arg, const struct cs_progress *p);
	void *progress_arg;
};

/* Fields builders and components use. */
struct cs_system {
	const struct cs_system_ops *ops;
	struct sim_kernel *k;
	struct cs_stats *stats;
	struct cs_config *cfg;
	struct tlm_pool *pool;
	struct cs_sim_cfg sim;
	struct cs_system_cfg sys;
	const struct cs_workload *workload;
	void *workload_arg;   /* cs_run_opts.arg */
	struct trace *record; /* cs_run_opts.record */
	void (*progress)(void *arg, const struct cs_progress *p);
	void *progress_arg;
	void *priv; /* the system type's state */
	struct cs_component *components;
};

/* Registries. */
const struct cs_system_ops *const *cs_system_registry(void);	   /* NULL-terminated */
const struct cs_component_ops *const *cs_component_registry(void); /* NULL-terminated */
const struct cs_component_ops *cs_component_find(const char *kind);

/* Loads sim and system sections, creates kernel, stats and pool, builds the system type.
 * On error everything is freed and *out is NULL. cfg stays the caller's. */
int cs_system_create(struct cs_config *cfg, const struct cs_run_opts *opts, struct cs_system **out,
		     struct cs_err *err);
int cs_system_run(struct cs_system *s, struct cs_err *err);
/* The input files a configuration names, checked whether or not this run reads them (a
 * calibration outside analytic mode, a graph file for a workload without a graph): one line
 * with the key's origin. For the system types' build. */
int cs_system_check_inputs(const struct cs_system *s, const char *calibration,
			   const char *graph_file, struct cs_err *err);
void cs_system_destroy(struct cs_system *s);
const char *cs_system_type_name(const struct cs_system *s);

/* Creates a component of a registered kind: loads its section, calls create, links it. */
int cs_component_new(struct cs_system *s, const char *kind, const char *name,
		     struct cs_component **out, struct cs_err *err);

/* Every parameter table the system layer owns (sim, system) for docs and --dump. */
extern const struct cs_param_table cs_sim_params;
extern const struct cs_param_table cs_system_params;

#endif
