/*
 * tlm/system/system.c - system creation, the system and component registries, the sim and
 * system configuration sections.
 */
#include "tlm/system/system.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calibrate/calfile.h"

#include "workloads/workload.h"

extern const struct cs_system_ops cs_selfcheck_system;
extern const struct cs_system_ops cs_gpu_system;
extern const struct cs_system_ops cs_cpu_system;
extern const struct cs_system_ops cs_apu_system;
extern const struct cs_component_ops cs_memtarget_component;
extern const struct cs_component_ops cs_traffic_component;

/* Explicit registries (no constructor tricks): add a line here to add a system or component. */
static const struct cs_system_ops *const systems[] = {
    &cs_selfcheck_system, &cs_gpu_system, &cs_cpu_system, &cs_apu_system, NULL,
};

static const struct cs_component_ops *const components[] = {
    &cs_memtarget_component,
    &cs_traffic_component,
    NULL,
};

const char *const cs_mode_names[] = {"detailed", "hybrid", "analytic", NULL};
static const char *const queue_names[] = {"wheel", "heap", NULL};

static const struct cs_param sim_params[] = {
    {"seed", CS_P_UINT, offsetof(struct cs_sim_cfg, seed), "1", "",
     "seed of every random stream (same inputs and seed give the same results)", 0, 0, NULL},
    {"queue", CS_P_ENUM, offsetof(struct cs_sim_cfg, queue), "wheel", "",
     "pending-event set: timing wheel, or the binary heap it is tested against", 0, 0, queue_names},
    {"quantum_ns", CS_P_UINT, offsetof(struct cs_sim_cfg, quantum_ns), "1000", "ns",
     "global quantum of loosely-timed initiators (0: synchronise after every access)", 0, 1e9,
     NULL},
    {"stack_kib", CS_P_UINT, offsetof(struct cs_sim_cfg, stack_kib), "64", "KiB",
     "stack of each thread process (warps, CPU threads)", 16, 65536, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table cs_sim_params = {
    .section = "sim",
    .help = "the simulation kernel",
    .params = sim_params,
    .size = sizeof(struct cs_sim_cfg),
};

static const struct cs_param system_params[] = {
    {"type", CS_P_STRING, offsetof(struct cs_system_cfg, type), "selfcheck", "",
     "system to build (cohscope list systems)", 0, 0, NULL},
    {"workload", CS_P_STRING, offsetof(struct cs_system_cfg, workload), "", "",
     "workload to run when -w is not given (empty: the system's first)", 0, 0, NULL},
    {"mode", CS_P_ENUM, offsetof(struct cs_system_cfg, mode), "hybrid", "",
     "timing mode: detailed (all AT), hybrid (sampled AT units, LT between, an interval on "
     "the result), analytic (all LT, corrected by sampling.calibration); a system with the "
     "detailed mode only runs detailed unless a mode is asked for",
     0, 0, cs_mode_names},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table cs_system_params = {
    .section = "system",
    .help = "what to simulate",
    .params = system_params,
    .size = sizeof(struct cs_system_cfg),
};

const struct cs_system_ops *const *cs_system_registry(void)
{
	return systems;
}

const struct cs_component_ops *const *cs_component_registry(void)
{
	return components;
}

const struct cs_component_ops *cs_component_find(const char *kind)
{
	for (size_t i = 0; components[i]; i++)
		if (strcmp(components[i]->kind, kind) == 0)
			return components[i];
	return NULL;
}

static const struct cs_system_ops *system_find(const char *name)
{
	for (size_t i = 0; systems[i]; i++)
		if (strcmp(systems[i]->name, name) == 0)
			return systems[i];
	return NULL;
}

/* Picks the system type and the workload, with one clear error for a wrong name. */
/* " (did you mean 'x'?)" or "" */
static const char *suggest(const char *near, char *buf, size_t len)
{
	if (!near)
		return "";
	snprintf(buf, len, " (did you mean '%s'?)", near);
	return buf;
}

/* Picks the system type and the workload, with one clear error for a wrong name. */
static int resolve(struct cs_system *s, const struct cs_run_opts *opts, struct cs_err *err)
{
	const struct cs_workload *const *wl = cs_workload_registry();
	char where[CS_WHERE_MAX] = "-w", hint[96];
	const char *names[64];
	size_t n = 0;
	const char *want;

	s->ops = system_find(s->sys.type);
	if (!s->ops) {
		for (size_t i = 0; systems[i] && n < 64; i++)
			names[n++] = systems[i]->name;
		cs_config_origin(s->cfg, "system", "type", where, sizeof(where));
		return cs_err_set(err, -CS_ECONFIG, "%s: unknown system%s", where,
				  suggest(cs_nearest(s->sys.type, names, n), hint, sizeof(hint)));
	}
	if (opts && opts->mode >= 0)
		s->sys.mode = (unsigned)opts->mode;
	if (opts) {
		s->record = opts->record;
		s->progress = opts->progress;
		s->progress_arg = opts->progress_arg;
	}
	/* the default mode (hybrid), from the defaults or a dump of them, falls back to detailed
	 * on a system without it; --mode asks for a mode */
	if (!(s->ops->modes & (1u << s->sys.mode)) && !(opts && opts->mode >= 0) &&
	    s->sys.mode == CS_MODE_HYBRID)
		s->sys.mode = CS_MODE_DETAILED;
	if (!(s->ops->modes & (1u << s->sys.mode)))
		return cs_err_set(err, -CS_EUNSUP, "mode '%s' is not available for system '%s'",
				  cs_mode_names[s->sys.mode], s->ops->name);
	if (opts && opts->custom) {
		if (strcmp(opts->custom->system, s->ops->name) != 0)
			return cs_err_set(err, -CS_ECONFIG, "%s runs on system '%s', not '%s'",
					  opts->custom->name, opts->custom->system, s->ops->name);
		s->workload = opts->custom;
		s->workload_arg = opts->arg;
		return 0;
	}
	/* -w wins over system.workload, whose value is checked all the same */
	if (opts && opts->workload && s->sys.workload[0]) {
		const struct cs_workload *named = cs_workload_find(s->sys.workload);

		if (!named || strcmp(named->system, s->ops->name)) {
			cs_config_origin(s->cfg, "system", "workload", where, sizeof(where));
			return cs_err_set(err, -CS_ECONFIG, "%s: %s (-w %s is run instead)", where,
					  named ? "a workload of another system"
						: "unknown workload",
					  opts->workload);
		}
	}
	want = opts && opts->workload ? opts->workload : s->sys.workload;
	for (size_t i = 0; wl[i]; i++) {
		if (strcmp(wl[i]->system, s->ops->name) != 0)
			continue;
		if (!want[0] || strcmp(wl[i]->name, want) == 0) {
			s->workload = wl[i];
			return 0;
		}
		if (n < 64)
			names[n++] = wl[i]->name;
	}
	if (!(opts && opts->workload))
		cs_config_origin(s->cfg, "system", "workload", where, sizeof(where));
	if (cs_workload_find(want))
		return cs_err_set(err, -CS_ECONFIG,
				  "%s: workload '%s' runs on system '%s', not '%s'", where, want,
				  cs_workload_find(want)->system, s->ops->name);
	return cs_err_set(err, -CS_ECONFIG, "%s: unknown workload '%s'%s", where, want,
			  suggest(cs_nearest(want, names, n), hint, sizeof(hint)));
}

/* A configuration error a component's check found names its keys: say where they were set. */
static int locate(const struct cs_config *cfg, int rc, struct cs_err *err)
{
	if (rc == -CS_ECONFIG || rc == -CS_ERANGE)
		cs_config_locate(cfg, err);
	return rc;
}

int cs_system_create(struct cs_config *cfg, const struct cs_run_opts *opts, struct cs_system **out,
		     struct cs_err *err)
{
	struct sim_kernel_opts ko = {0};
	struct cs_system *s;
	int rc;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	s->cfg = cfg;
	rc = cs_config_section(cfg, &cs_sim_params, &s->sim, err);
	if (rc)
		goto out_destroy;
	rc = cs_config_section(cfg, &cs_system_params, &s->sys, err);
	if (rc)
		goto out_destroy;
	rc = resolve(s, opts, err);
	if (rc)
		goto out_destroy;
	ko.queue = (enum sim_queue_kind)s->sim.queue;
	ko.quantum = s->sim.quantum_ns * SIM_NS;
	ko.default_stack_size = (size_t)s->sim.stack_kib * 1024;
	rc = sim_kernel_create(&ko, &s->k);
	if (!rc)
		rc = cs_stats_create(&s->stats);
	if (!rc)
		rc = tlm_pool_create(&s->pool);
	if (rc) {
		cs_err_set(err, rc, "cannot create the kernel: %s", cs_strerror(rc));
		goto out_destroy;
	}
	rc = s->ops->build(s, err);
	if (rc)
		goto out_destroy;
	rc = cs_stats_error(s->stats, err);
	if (rc)
		goto out_destroy;
	*out = s;
	return 0;

out_destroy:
	locate(cfg, rc, err);
	cs_system_destroy(s);
	return rc;
}

int cs_system_check_inputs(const struct cs_system *s, const char *calibration,
			   const char *graph_file, struct cs_err *err)
{
	char where[CS_WHERE_MAX], msg[sizeof(err->msg)];
	int rc = 0;

	if (calibration[0]) {
		struct cal_file cal;

		rc = cal_file_load(calibration, &cal, err);
		if (rc)
			cs_config_origin(s->cfg, "sampling", "calibration", where, sizeof(where));
	}
	if (!rc && graph_file[0]) {
		struct stat st;
		FILE *f = fopen(graph_file, "r");

		if (!f || fstat(fileno(f), &st) || S_ISDIR(st.st_mode))
			rc = cs_err_set(err, -CS_EIO, "%s: cannot open: %s", graph_file,
					f ? strerror(EISDIR) : strerror(errno));
		if (f)
			fclose(f);
		if (rc)
			cs_config_origin(s->cfg, "workload", "graph_file", where, sizeof(where));
	}
	if (rc) {
		snprintf(msg, sizeof(msg), "%s", err->msg);
		cs_format_cut(err->msg, sizeof(err->msg), "%s: %s", where, msg);
	}
	return rc;
}

int cs_system_run(struct cs_system *s, struct cs_err *err)
{
	return locate(s->cfg, s->ops->run(s, err), err);
}

const char *cs_system_type_name(const struct cs_system *s)
{
	return s->ops->name;
}

void cs_system_destroy(struct cs_system *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->destroy)
		s->ops->destroy(s);
	while (s->components) {
		struct cs_component *c = s->components;

		s->components = c->next;
		c->ops->destroy(c);
	}
	/* Threads may still hold payloads; the kernel goes before the pool. */
	sim_kernel_destroy(s->k);
	tlm_pool_destroy(s->pool);
	cs_stats_destroy(s->stats);
	free(s);
}

int cs_component_new(struct cs_system *s, const char *kind, const char *name,
		     struct cs_component **out, struct cs_err *err)
{
	const struct cs_component_ops *ops = cs_component_find(kind);
	void *cfg;
	int rc;

	*out = NULL;
	if (!ops)
		return cs_err_set(err, -CS_ENOENT, "no component kind '%s'", kind);
	cfg = calloc(1, ops->params->size);
	if (!cfg)
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	rc = cs_config_section(s->cfg, ops->params, cfg, err);
	if (!rc)
		rc = ops->create(s, name, cfg, out, err);
	free(cfg);
	if (rc)
		return rc;
	(*out)->ops = ops;
	snprintf((*out)->name, sizeof((*out)->name), "%s", name);
	(*out)->next = s->components;
	s->components = *out;
	return 0;
}
