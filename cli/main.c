/*
 * cli/main.c - the `cohscope` command. The only place that prints for the user and exits.
 *
 * Exit statuses (also in `cohscope --help` and cli/README.md):
 *   0 success; 1 the simulation or a self-check failed; 2 usage error;
 *   3 bad input (configuration file, --set, workload name); 4 output could not be written;
 *   5 out of memory. Model errors (an impossible state, a protocol violation) are 1.
 * Every error is one line on stderr: "cohscope: FILE:LINE: problem".
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/calfile.h"
#include "calibrate/fit.h"
#include "cli/cli.h"
#include "cli/plot.h"
#include "cli/progress.h"
#include "cli/sweep.h"
#include "cli/study.h"
#include "tlm/coherence/gpu_proto.h"
#include "tlm/system/fabric.h"
#include "tlm/system/system.h"
#include "util/hostperf.h"
#include "workloads/litmus/litmus.h"
#include "workloads/litmus/run.h"
#include "workloads/trace/replay.h"
#include "workloads/trace/trace.h"
#include "workloads/workload.h"

#ifndef COHSCOPE_CONFIG_DIR
#define COHSCOPE_CONFIG_DIR "configs"
#endif

/* ---- help ---------------------------------------------------------------------------------------- */

static const char main_help[] =
    "usage: cohscope COMMAND [OPTIONS]\n"
    "\n"
    "A fast simulator of GPU and CPU-GPU memory systems for coherence and consistency studies.\n"
    "\n"
    "commands:\n"
    "  run      simulate a configuration and a workload; print a summary, write stats\n"
    "  suite    run the G-TSC benchmark suite and print a table of the results\n"
    "  litmus   run litmus tests on the GPU (or X86 ones on CPU cores) and check their outcomes\n"
    "           against the memory model\n"
    "  calibrate fit the analytic mode's correction to detailed runs (leave-one-out error)\n"
    "  sweep    run the points of a sweep file (configurations x workloads) on a local pool,\n"
    "           or write them as jobs for GNU parallel or a Slurm array\n"
    "  collect  merge a sweep's points into one CSV and one JSON\n"
    "  study    run a paper's evaluation (gtsc, hsc, hlrc): its sweeps, figures and a summary\n"
    "           of the paper's claims beside ours\n"
    "  plot     bar charts (SVG, PNG) of results files, normalized to a baseline\n"
    "  list     list systems, workloads, components, protocols or configs\n"
    "  config   show the effective configuration (--dump)\n"
    "  help     help on a command (also: cohscope COMMAND --help)\n"
    "\n"
    "options: --help, --version\n"
    "\n"
    "exit status: 0 success, 1 simulation or self-check failed, 2 usage error,\n"
    "3 bad input (config, --set, workload, litmus file), 4 output not written, 5 out of memory\n";

static const char run_help[] =
    "usage: cohscope run -c CONFIG [-w WORKLOAD] [--mode MODE] [--set SECTION.KEY=VALUE]...\n"
    "                    [-o FILE.json] [--csv FILE.csv] [--record FILE] [--host-counters] [-q]\n"
    "\n"
    "  -c, --config FILE      libconfig system configuration (cohscope list configs)\n"
    "  -w, --workload NAME    workload to run (cohscope list workloads); default: the\n"
    "                         configuration's system.workload. trace:PATH replays a trace: a\n"
    "                         file written by --record, or an Accel-Sim trace (its\n"
    "                         kernelslist.g or the directory holding it)\n"
    "      --mode MODE        detailed | hybrid | analytic (default: system.mode)\n"
    "      --set K=V          override one parameter, e.g. --set sim.seed=7 (repeatable)\n"
    "  -o, --output FILE      write results and every statistic as JSON (written whole or not\n"
    "                         at all)\n"
    "      --csv FILE         write every statistic as CSV (name,value,unit,description)\n"
    "      --record FILE      write every warp's ops and the host's copies to a trace file\n"
    "                         (zstd, checksummed; written only when the run succeeds)\n"
    "      --host-counters    report host cycles and instructions per simulated event (PAPI),\n"
    "                         or wall time when counters are unavailable\n"
    "      --progress         draw the progress line on stderr from the start, on any stream\n"
    "                         (default: on a terminal, once a run has taken 2 s)\n"
    "      --no-progress      no progress line\n"
    "  -q, --quiet            no summary on stdout (and no progress line unless --progress)\n";

static const char suite_help[] =
    "usage: cohscope suite [SUITE] -c CONFIG [-w NAME,NAME...] [--set SECTION.KEY=VALUE]...\n"
    "                      [-o FILE.json] [-q]\n"
    "\n"
    "Runs a benchmark suite one benchmark after another on CONFIG. SUITE: gtsc (the default:\n"
    "the G-TSC suite, set 1: bh cc dlb vpr stn bfs, needs coherence; set 2: ge hs km bp sgm\n"
    "ccp), rodinia, parboil, ispass, doe, tc or all (cohscope list workloads groups them).\n"
    "Prints a table: cycles\n"
    "(+-95%: the hybrid estimate's half-width; - in detailed mode), L1 and L2 hit rates,\n"
    "NoC and DRAM traffic, host time and whether the output verified. A\n"
    "benchmark that fails is reported in its row and the others still run (exit status 1).\n"
    "\n"
    "  -c, --config FILE      libconfig GPU configuration (cohscope list configs)\n"
    "  -w, --workload LIST    comma-separated subset of the suite (default: all of it)\n"
    "      --set K=V          override one parameter for every run, e.g.\n"
    "                         --set workload.size=small --set coherence.protocol=gtsc\n"
    "  -o, --output FILE      write every run's results as a JSON array (written whole or not\n"
    "                         at all)\n"
    "      --progress         draw each benchmark's progress line on stderr (default: on a\n"
    "                         terminal once a run has taken 2 s); --no-progress: never\n"
    "  -q, --quiet            no table\n";

static const char litmus_help[] =
    "usage: cohscope litmus FILE... -c CONFIG [--set SECTION.KEY=VALUE]... [--iterations N]\n"
    "                       [--jitter CYCLES] [--warmup N] [--placement random|fixed]\n"
    "                       [--seed N] [--expect FILE] [--json FILE|-] [-q]\n"
    "                       [--agents cpu|gpu,...] [--atomics ops|fences]\n"
    "\n"
    "Runs each litmus test (herdtools7 .litmus: C, OpenCL, PTX) N times on the GPU of CONFIG,\n"
    "one single-warp CTA per thread, and checks the outcome named by its condition against the "
    "model\n"
    "the run is held to: core.consistency (sc or rc) under a coherent protocol; none (outcomes\n"
    "reported, nothing enforced) under a non-coherent one. X86 tests run on the CPU cores of a\n"
    "system 'cpu' CONFIG (configs/cpu-tso.cfg), one thread per core, held to tso (docs/cpu.md).\n"
    "With --agents, X86 tests run on a system 'apu' CONFIG (configs/apu-2200g.cfg): thread i on\n"
    "a CPU core (cpu: the instructions as written, x86-TSO) or a GPU CU (gpu: MOV a plain load or\n"
    "store, MFENCE / LFENCE / SFENCE a system-scope acq_rel / acquire / release fence, a locked\n"
    "instruction a system-scope atomic between system-scope acq_rel fences), held to hsa.\n"
    "FAIL: a forbidden outcome was seen.\n"
    "Prints a verdict table and each test's histogram of outcomes (docs/litmus.md).\n"
    "\n"
    "  -c, --config FILE      libconfig GPU configuration (cohscope list configs)\n"
    "      --set K=V          override one parameter, e.g. --set coherence.protocol=noncoherent\n"
    "                         or --set core.consistency=sc (repeatable)\n"
    "      --iterations N     kernel launches per test (default 500, at most 10^7)\n"
    "      --jitter CYCLES    random delay before a thread's first op, below CYCLES (default\n"
    "                         300; with --agents 3000 GPU cycles; at most 10^6); below\n"
    "                         CYCLES/8+1 between ops; 0: none\n"
    "      --warmup N         warm the L1s in every N-th iteration (default 2; 0: never;\n"
    "                         at most 10^7)\n"
    "      --placement P      random (default): threads on random distinct SMs and locations\n"
    "                         in random distinct L2 banks, drawn anew every iteration; fixed:\n"
    "                         thread (or work-group) i on SM i, location i in bank i (with\n"
    "                         --agents: distinct cores, CUs and lines)\n"
    "      --seed N           the run's seed (same as --set sim.seed=N)\n"
    "      --expect FILE      expected verdicts for tests without Cohscope.sc / Cohscope.rc\n"
    "                         keys (tests/litmus/expected.tsv; with --agents the lines of\n"
    "                         those agents: tests/litmus/mixed/expected.tsv)\n"
    "      --agents LIST      where each thread runs, one of cpu, gpu per thread, comma-\n"
    "                         separated (e.g. cpu,gpu): X86 tests on system apu (docs/litmus.md)\n"
    "      --atomics M        OpenCL atomics as the GPU's atomic loads, stores and RMWs of\n"
    "                         their order and scope (ops, the default), or as plain accesses\n"
    "                         between fences (fences: the C mapping)\n"
    "      --json FILE|-      write the report as JSON (written whole or not at all; - for\n"
    "                         standard output, which then gets no table)\n"
    "  -q, --quiet            no table and no histograms on stdout\n"
    "\n"
    "exit status: 0 every test passed, 1 a forbidden outcome was seen or a simulation failed,\n"
    "2 usage error, 3 bad input (litmus file, --expect file, config), 4 output not written\n";

static const char list_help[] =
    "usage: cohscope list [systems|workloads|components|protocols|roles|configs]\n"
    "\n"
    "Without an argument, lists everything.\n";

static const char config_help[] =
    "usage: cohscope config [-c CONFIG] [-w WORKLOAD] [--set SECTION.KEY=VALUE]... --dump\n"
    "\n"
    "Prints every parameter the configuration uses, with its effective value, default, unit\n"
    "and meaning, as a libconfig file that loads back to the same values. Without -c, the\n"
    "defaults of the default system.\n";

/* ---- list ------------------------------------------------------------------------------------------ */

static void list_systems(void)
{
	const struct cs_system_ops *const *s = cs_system_registry();

	printf("systems:\n");
	for (size_t i = 0; s[i]; i++)
		printf("  %-14s %s\n", s[i]->name, s[i]->help);
}

static void list_workload(const struct cs_workload *w)
{
	printf("  %-14s [%s%s] %s\n", w->name, w->system,
	       w->suite_set == 1   ? ", suite set 1"
	       : w->suite_set == 2 ? ", suite set 2"
				   : "",
	       w->help);
}

/* Those of no suite first, then each suite's (cohscope suite NAME) in registry order. */
static void list_workloads(void)
{
	const struct cs_workload *const *w = cs_workload_registry();

	printf("workloads:\n");
	for (size_t i = 0; w[i]; i++)
		if (!w[i]->origin)
			list_workload(w[i]);
	for (size_t o = 0; cs_workload_origins[o]; o++) {
		printf("workloads of suite %s (cohscope suite %s):\n", cs_workload_origins[o],
		       cs_workload_origins[o]);
		for (size_t i = 0; w[i]; i++)
			if (w[i]->origin && strcmp(w[i]->origin, cs_workload_origins[o]) == 0)
				list_workload(w[i]);
	}
}

static void list_components(void)
{
	const struct cs_component_ops *const *c = cs_component_registry();

	printf("components:\n");
	for (size_t i = 0; c[i]; i++)
		printf("  %-14s section '%s': %s\n", c[i]->kind, c[i]->params->section, c[i]->help);
}

static void list_protocols(void)
{
	const struct gpu_protocol *const *p = gpu_protocol_registry();

	printf("protocols (coherence.protocol):\n");
	for (size_t i = 0; p[i]; i++)
		printf("  %-14s %-6s %s\n", p[i]->name, p[i]->label, p[i]->help);
}

static void list_roles(void)
{
	const struct fab_proto *const *f = fab_proto_registry();

	printf("roles (a node group's role, by protocol family; docs/architecture.md §8):\n");
	for (size_t i = 0; f[i]; i++)
		for (const struct fab_role_ops *const *r = f[i]->roles; *r; r++)
			printf("  %-6s %-10s %s\n", f[i]->name, (*r)->name, (*r)->help);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_configs(void)
{
	DIR *d = opendir(COHSCOPE_CONFIG_DIR);
	char *names[256];
	size_t n = 0;
	struct dirent *e;

	printf("configs (%s):\n", COHSCOPE_CONFIG_DIR);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < 256) {
		size_t len = strlen(e->d_name);

		if (len > 4 && strcmp(e->d_name + len - 4, ".cfg") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (names[i])
			printf("  %s\n", names[i]);
		free(names[i]);
	}
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : NULL;

	if (what && (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0)) {
		fputs(list_help, stdout);
		return 0;
	}
	if (argc > 2)
		return cli_fail(EXIT_USAGE, "list: too many arguments (see cohscope list --help)");
	if (!what || strcmp(what, "systems") == 0)
		list_systems();
	if (!what || strcmp(what, "workloads") == 0)
		list_workloads();
	if (!what || strcmp(what, "components") == 0)
		list_components();
	if (!what || strcmp(what, "protocols") == 0)
		list_protocols();
	if (!what || strcmp(what, "roles") == 0)
		list_roles();
	if (!what || strcmp(what, "configs") == 0)
		list_configs();
	if (what && strcmp(what, "systems") && strcmp(what, "workloads") &&
	    strcmp(what, "components") && strcmp(what, "protocols") && strcmp(what, "roles") &&
	    strcmp(what, "configs"))
		return cli_fail(
		    EXIT_USAGE,
		    "list: unknown list '%s' (systems, workloads, components, protocols, roles, "
		    "configs)",
		    what);
	return 0;
}

/* ---- shared option parsing for run and config ------------------------------------------------------ */

struct opts {
	const char *config;
	const char *workload;
	const char *output;
	const char *csv;
	const char *record;
	int mode;
	bool dump, host_counters, quiet, help;
	enum progress_when progress;
	struct progress *pr; /* the run's progress line, or NULL */
	const char *sets[256];
	int nsets;
};

/* A file name that reads as an option ("-o -q") is a forgotten value, not a file to write. */
static int option_like(const char *cmd, const char *opt, const char *value)
{
	if (value[0] != '-' || !value[1])
		return 0;
	return cli_fail(EXIT_USAGE,
			"%s: %s %s: the value looks like an option (a file name is missing?)", cmd,
			opt, value);
}

static int parse_opts(int argc, char **argv, const char *cmd, struct opts *o)
{
	enum {
		OPT_MODE = 256,
		OPT_SET,
		OPT_DUMP,
		OPT_CSV,
		OPT_HOST,
		OPT_RECORD,
		OPT_PROGRESS,
		OPT_NO_PROGRESS
	};
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"workload", required_argument, NULL, 'w'},
	    {"train", required_argument, NULL, 'w'},
	    {"output", required_argument, NULL, 'o'},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"set", required_argument, NULL, OPT_SET},
	    {"dump", no_argument, NULL, OPT_DUMP},
	    {"csv", required_argument, NULL, OPT_CSV},
	    {"host-counters", no_argument, NULL, OPT_HOST},
	    {"record", required_argument, NULL, OPT_RECORD},
	    {"progress", no_argument, NULL, OPT_PROGRESS},
	    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->mode = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:w:o:qh", longopts, NULL)) != -1) {
		if ((c == 'c' || c == 'o' || c == OPT_CSV || c == OPT_RECORD) &&
		    option_like(cmd,
				c == 'c'       ? "-c"
				: c == 'o'     ? "-o"
				: c == OPT_CSV ? "--csv"
					       : "--record",
				optarg))
			return EXIT_USAGE;
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'w':
			/* "" would silently mean the configuration's workload (run) or none (suite) */
			if (!optarg[0])
				return cli_fail(EXIT_USAGE, "%s: -w: an empty workload list", cmd);
			o->workload = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			o->help = true;
			break;
		case OPT_MODE:
			o->mode = -2;
			for (int m = 0; cs_mode_names[m]; m++)
				if (strcmp(optarg, cs_mode_names[m]) == 0)
					o->mode = m;
			if (o->mode == -2)
				return cli_fail(
				    EXIT_USAGE,
				    "%s: --mode %s: not one of detailed, hybrid, analytic", cmd,
				    optarg);
			break;
		case OPT_SET:
			if (o->nsets == 256)
				return cli_fail(EXIT_USAGE, "%s: more than 256 --set options", cmd);
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_DUMP:
			o->dump = true;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case OPT_HOST:
			o->host_counters = true;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_PROGRESS:
			o->progress = PROGRESS_ALWAYS;
			break;
		case OPT_NO_PROGRESS:
			o->progress = PROGRESS_NEVER;
			break;
		case ':':
			return cli_fail(EXIT_USAGE, "%s: option %s needs a value", cmd,
					argv[optind - 1]);
		default:
			return cli_fail(EXIT_USAGE,
					"%s: unknown option '%s' (see cohscope %s --help)", cmd,
					argv[optind - 1], cmd);
		}
	}
	if (optind < argc)
		return cli_fail(EXIT_USAGE, "%s: unexpected argument '%s' (see cohscope %s --help)",
				cmd, argv[optind], cmd);
	return 0;
}

/* Opens the configuration and applies the --set overrides. */
static int open_config(const struct opts *o, struct cs_config **cfg)
{
	struct cs_err err = {0};
	int rc = cs_config_open(o->config, cfg, &err);

	for (int i = 0; !rc && i < o->nsets; i++)
		rc = cs_config_set(*cfg, o->sets[i], &err);
	if (rc) {
		cs_config_close(*cfg);
		*cfg = NULL;
		return cli_fail(cli_exit_status(rc), "%s", err.msg);
	}
	return 0;
}

#define TRACE_PREFIX "trace:"

/* Loads the trace of `-w trace:PATH` into *replay (NULL for any other workload). */
static int load_replay(const struct opts *o, struct trace **replay)
{
	struct cs_err err = {0};
	int rc;

	*replay = NULL;
	if (!o->workload || strncmp(o->workload, TRACE_PREFIX, strlen(TRACE_PREFIX)) != 0)
		return 0;
	if (!o->workload[strlen(TRACE_PREFIX)])
		return cli_fail(EXIT_USAGE, "-w trace:PATH: the path is missing");
	rc = trace_load(o->workload + strlen(TRACE_PREFIX), replay, &err);
	if (rc)
		return cli_fail(cli_exit_status(rc), "%s", err.msg);
	for (size_t i = 0; i < (*replay)->nev; i++)
		if ((*replay)->ev[i].kind == TRACE_EV_KERNEL)
			return 0;
	/* a trace of copies only would replay as a run of 0 cycles */
	trace_free(*replay);
	*replay = NULL;
	return cli_fail(EXIT_INPUT, "%s: no kernel in the trace (nothing to replay)",
			o->workload + strlen(TRACE_PREFIX));
}

/* record: an empty trace to fill (--record), or NULL. *replay: the loaded trace of
 * -w trace:PATH, for the caller to free after the system. */
static int create_system(const struct opts *o, struct cs_config *cfg, struct cs_system **sys,
			 struct trace **replay, struct trace *record)
{
	struct cs_run_opts ro = {.workload = o->workload,
				 .mode = o->mode,
				 .record = record,
				 .progress = o->pr ? progress_update : NULL,
				 .progress_arg = o->pr};
	struct cs_err err = {0};
	int rc = load_replay(o, replay);

	*sys = NULL;
	if (rc)
		return rc;
	if (*replay) {
		ro.workload = NULL;
		ro.custom = &trace_replay_workload;
		ro.arg = *replay;
	}
	rc = cs_system_create(cfg, &ro, sys, &err);
	if (!rc)
		rc = cs_config_check_unused(cfg, NULL, 0, &err);
	if (rc) {
		cs_system_destroy(*sys);
		*sys = NULL;
		return cli_fail(cli_exit_status(rc), "%s", err.msg);
	}
	return 0;
}

/* ---- config --dump ------------------------------------------------------------------------------- */

static int cmd_config(int argc, char **argv)
{
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct trace *replay = NULL;
	struct opts o;
	int rc;

	rc = parse_opts(argc, argv, "config", &o);
	if (rc)
		return rc;
	if (o.help) {
		fputs(config_help, stdout);
		return 0;
	}
	if (!o.dump)
		return cli_fail(EXIT_USAGE, "config: nothing to do (use --dump)");
	if (o.output || o.csv || o.host_counters || o.record)
		return cli_fail(EXIT_USAGE,
				"config: -o, --csv, --host-counters and --record belong to 'run'");
	rc = open_config(&o, &cfg);
	if (rc)
		return rc;
	rc = create_system(&o, cfg, &sys, &replay, NULL);
	if (!rc && cs_config_dump(cfg, stdout))
		rc = cli_fail(EXIT_OUTPUT, "config: cannot write the dump");
	cs_system_destroy(sys);
	trace_free(replay);
	cs_config_close(cfg);
	return rc;
}

/* ---- run ---------------------------------------------------------------------------------------- */

static json_t *run_json(struct cs_system *sys, const struct opts *o,
			const struct cs_hostperf_result *hp)
{
	const struct sim_kernel_stats *ks = sim_kernel_stats(sys->k);
	json_t *root = json_object();
	json_t *res = sys->ops->result ? sys->ops->result(sys) : json_object();

	json_object_set_new(root, "cohscope",
			    json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "version", COHSCOPE_VERSION,
				      "config", o->config ? o->config : "", "system",
				      cs_system_type_name(sys), "workload", sys->workload->name,
				      "mode", cs_mode_names[sys->sys.mode], "seed",
				      (json_int_t)sys->sim.seed));
	json_object_set_new(root, "result", res ? res : json_null());
	json_object_set_new(
	    root, "kernel",
	    json_pack("{s:I, s:I, s:I, s:I, s:I}", "sim_time_ps", (json_int_t)sim_now(sys->k),
		      "activations", (json_int_t)ks->activations, "timed_items",
		      (json_int_t)ks->timed_items, "delta_cycles", (json_int_t)ks->delta_cycles,
		      "time_steps", (json_int_t)ks->time_steps));
	json_object_set_new(root, "stats", cs_stats_to_json(sys->stats));
	/* Host figures differ from run to run; everything above is deterministic. */
	json_object_set_new(root, "host",
			    json_pack("{s:f, s:b, s:I, s:I, s:s}", "wall_s", hp->wall_s, "counters",
				      hp->counters, "cycles", (json_int_t)hp->cycles,
				      "instructions", (json_int_t)hp->instructions, "why",
				      hp->why));
	if (sys->ops->host_result)
		json_object_set_new(json_object_get(root, "host"), "faces",
				    sys->ops->host_result(sys));
	return root;
}

/* -o and --csv: both written or neither. */
static int write_outputs(struct cs_system *sys, const struct opts *o,
			 const struct cs_hostperf_result *hp)
{
	struct cli_output out[2];
	char *json_text = NULL, *csv_text = NULL;
	size_t n = 0, csv_len = 0, failed = 0;
	int rc = 0, status = 0;

	if (o->output) {
		json_t *root = run_json(sys, o, hp);

		json_text =
		    root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
		json_decref(root);
		rc = json_text ? 0 : -CS_ENOMEM;
		out[n++] =
		    (struct cli_output){o->output, json_text, json_text ? strlen(json_text) : 0};
	}
	if (!rc && o->csv) {
		FILE *m = open_memstream(&csv_text, &csv_len);

		rc = m ? cs_stats_write_csv(sys->stats, m) : -CS_ENOMEM;
		if (m && fclose(m) && !rc)
			rc = -CS_EIO;
		out[n++] = (struct cli_output){o->csv, csv_text, csv_len};
	}
	if (!rc)
		rc = cli_write_outputs(out, n, &failed);
	else
		failed = n - 1;
	if (rc)
		status = cli_fail(EXIT_OUTPUT, "%s: cannot write: %s", out[failed].path,
				  rc == -CS_EIO ? strerror(errno) : cs_strerror(rc));
	free(json_text);
	free(csv_text);
	return status;
}

static void print_summary(struct cs_system *sys, const struct opts *o,
			  const struct cs_hostperf_result *hp)
{
	const struct sim_kernel_stats *ks = sim_kernel_stats(sys->k);
	double events = (double)(ks->activations ? ks->activations : 1);

	printf("cohscope %s: system %s, workload %s, mode %s, seed %" PRIu64 ", config %s\n\n",
	       COHSCOPE_VERSION, cs_system_type_name(sys), sys->workload->name,
	       cs_mode_names[sys->sys.mode], sys->sim.seed, o->config ? o->config : "(defaults)");
	if (sys->ops->report)
		sys->ops->report(sys, stdout);
	printf("\nsimulated %.3f us: %" PRIu64 " activations, %" PRIu64 " timed items, %" PRIu64
	       " delta cycles\n",
	       (double)sim_now(sys->k) / SIM_US, ks->activations, ks->timed_items,
	       ks->delta_cycles);
	printf("host: %.3f s, %.1f M activations/s\n", hp->wall_s,
	       events / (hp->wall_s > 0 ? hp->wall_s : 1e-9) / 1e6);
	if (o->host_counters) {
		if (hp->counters)
			printf("host counters: %.1f cycles and %.1f instructions per activation\n",
			       (double)hp->cycles / events, (double)hp->instructions / events);
		else
			printf("host counters unavailable (%s): wall time %.1f ns per activation\n",
			       hp->why, hp->wall_s * 1e9 / events);
	}
}

static int cmd_run(int argc, char **argv)
{
	struct cs_hostperf_result hp = {0};
	struct cs_hostperf *perf = NULL;
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct trace *replay = NULL, *record = NULL;
	struct cs_err err = {0};
	struct progress pr;
	struct opts o;
	int rc, status;

	status = parse_opts(argc, argv, "run", &o);
	if (status)
		return status;
	if (o.help) {
		fputs(run_help, stdout);
		return 0;
	}
	if (o.dump)
		return cli_fail(EXIT_USAGE, "run: --dump belongs to 'config'");
	if (!o.config)
		return cli_fail(EXIT_USAGE,
				"run: -c CONFIG is required (see cohscope list configs)");
	status = open_config(&o, &cfg);
	if (status)
		return status;
	progress_init(&pr, o.quiet && o.progress == PROGRESS_AUTO ? PROGRESS_NEVER : o.progress,
		      NULL);
	o.pr = &pr;
	if (o.record && trace_new(&record)) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out_close;
	}
	status = create_system(&o, cfg, &sys, &replay, record);
	if (status)
		goto out_close;
	if (record && strcmp(cs_system_type_name(sys), "gpu") != 0) {
		status =
		    cli_fail(EXIT_USAGE, "run: --record records GPU workloads, not system '%s'",
			     cs_system_type_name(sys));
		goto out_close;
	}
	if (cs_hostperf_open(&perf)) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out_close;
	}
	cs_hostperf_start(perf);
	rc = cs_system_run(sys, &err);
	progress_done(&pr);
	cs_hostperf_stop(perf);
	cs_hostperf_read(perf, &hp);
	if (rc) {
		/* Still print what was measured: a failed check is a result to look at. */
		if (!o.quiet && rc == -CS_ECHECK)
			print_summary(sys, &o, &hp);
		status = cli_fail(cli_exit_status(rc), "%s", err.msg);
		goto out_close;
	}
	if (!o.quiet)
		print_summary(sys, &o, &hp);
	status = write_outputs(sys, &o, &hp);
	if (!status && record && trace_save(record, o.record, &err))
		status = cli_fail(EXIT_OUTPUT, "%s", err.msg);

out_close:
	cs_hostperf_close(perf);
	cs_system_destroy(sys);
	trace_free(replay);
	trace_free(record);
	cs_config_close(cfg);
	return status;
}

/* ---- suite ------------------------------------------------------------------------------------- */

#define SUITE_MAX 64

/* A suite name `cohscope suite` takes: 0, or a usage error listing them. */
static int suite_known(const char *suite)
{
	char names[160];

	if (cs_suite_known(suite))
		return 0;
	return cli_fail(EXIT_USAGE, "suite: no suite '%s' (one of %s)", suite,
			cs_suite_names(names, sizeof(names)));
}

/* Suite `suite`'s workloads, or the comma-separated subset `list` (each must be in it);
 * opt names the option in messages ("suite: -w", "calibrate: --train"). */
static int suite_select(const char *opt, const char *suite, const char *list,
			const struct cs_workload *out[SUITE_MAX], unsigned *n)
{
	const struct cs_workload *const *w = cs_workload_registry();
	char name[64];

	*n = 0;
	if (!list) {
		for (size_t i = 0; w[i] && *n < SUITE_MAX; i++)
			if (cs_suite_has(suite, w[i]))
				out[(*n)++] = w[i];
		return 0;
	}
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		const struct cs_workload *found;

		if (!len || len >= sizeof(name))
			return cli_fail(EXIT_USAGE, "%s %s: expected NAME,NAME,...", opt, list);
		memcpy(name, p, len);
		name[len] = 0;
		found = cs_workload_find(name);
		if (!found || !cs_suite_has(suite, found))
			return cli_fail(
			    EXIT_INPUT,
			    "%s: '%s' is not a benchmark of the %s suite (cohscope list "
			    "workloads shows them)",
			    opt, name, suite);
		if (*n == SUITE_MAX)
			return cli_fail(EXIT_USAGE, "%s: more than %d benchmarks", opt, SUITE_MAX);
		out[(*n)++] = found;
		p += len;
		p += *p == ',';
	}
	return 0;
}

static double json_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return v ? json_number_value(v) : -1;
}

static void suite_row(FILE *f, const struct cs_workload *w, json_t *r, double secs,
		      const char *error)
{
	double l1 = json_num(r, "l1_load_hit_rate"), half = json_num(r, "cycles_half");
	const char *mode = json_string_value(json_object_get(r, "mode"));
	char l1s[16], halfs[24];

	if (l1 < 0)
		snprintf(l1s, sizeof(l1s), "-");
	else
		snprintf(l1s, sizeof(l1s), "%.1f%%", 100 * l1);
	/* the estimate's 95% half-width (docs/hybrid.md); detailed cycles are exact: "-" */
	if (half < 0 || !mode || strcmp(mode, "detailed") == 0)
		snprintf(halfs, sizeof(halfs), "-");
	else
		snprintf(halfs, sizeof(halfs), "%.0f", half);
	fprintf(f, "  %-13s %-7s %3u %11.0f %9s %7s %6.1f%% %10.2f %10.2f %8.2f  %s\n", w->name,
		w->origin ? w->origin : "-", w->suite_set, json_num(r, "cycles"), halfs, l1s,
		100 * json_num(r, "l2_hit_rate"), json_num(r, "noc_bytes") / 1e6,
		json_num(r, "dram_bytes") / 1e6, secs, error ? error : "verified");
}

/* One benchmark: a fresh system on the same configuration and overrides. Returns its
 * result (NULL when it did not get that far) and fills *error on failure. */
static json_t *suite_run_one(const struct opts *o, const struct cs_workload *w, double *secs,
			     char *error, size_t error_len)
{
	struct opts one = *o;
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct trace *replay = NULL;
	struct cs_err err = {0};
	struct progress pr;
	json_t *r = NULL;
	double t0 = cs_wall_seconds();
	int rc;

	error[0] = 0;
	one.workload = w->name;
	one.quiet = true;
	progress_init(&pr, o->quiet && o->progress == PROGRESS_AUTO ? PROGRESS_NEVER : o->progress,
		      w->name);
	one.pr = &pr;
	if (open_config(&one, &cfg) || create_system(&one, cfg, &sys, &replay, NULL)) {
		snprintf(error, error_len, "could not start (see above)");
		goto out;
	}
	rc = cs_system_run(sys, &err);
	progress_done(&pr);
	if (rc)
		snprintf(error, error_len, "FAILED: %s", err.msg);
	if (!rc || rc == -CS_ECHECK)
		r = sys->ops->result ? sys->ops->result(sys) : NULL;
	if (r && sys->ops->host_result)
		json_object_set_new(r, "host_faces", sys->ops->host_result(sys));
out:
	*secs = cs_wall_seconds() - t0;
	cs_system_destroy(sys);
	trace_free(replay);
	cs_config_close(cfg);
	return r;
}

static int cmd_suite(int argc, char **argv)
{
	const struct cs_workload *sel[SUITE_MAX];
	const char *suite = "gtsc";
	json_t *all = json_array();
	double total = 0;
	unsigned n, failed = 0;
	struct opts o;
	int status;

	if (!all)
		return cli_fail(EXIT_INTERNAL, "out of memory");
	/* cohscope suite [SUITE] ...: a first argument that is no option names the suite */
	if (argc > 1 && argv[1][0] != '-') {
		suite = argv[1];
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	status = parse_opts(argc, argv, "suite", &o);
	if (!status && o.help) {
		fputs(suite_help, stdout);
		goto out;
	}
	if (!status && (o.dump || o.csv || o.record || o.host_counters || o.mode >= 0))
		status =
		    cli_fail(EXIT_USAGE,
			     "suite: --dump, --csv, --record, --host-counters and --mode belong to "
			     "other commands");
	if (!status && !o.config)
		status = cli_fail(EXIT_USAGE,
				  "suite: -c CONFIG is required (see cohscope list configs)");
	if (!status)
		status = suite_known(suite);
	if (!status)
		status = suite_select("suite: -w", suite, o.workload, sel, &n);
	if (status)
		goto out;
	if (!o.quiet)
		printf("  bench         suite   set      cycles     +-95%%  L1 hit L2 hit     NoC "
		       "MB    DRAM MB   "
		       "host s  check\n");
	for (unsigned i = 0; i < n; i++) {
		char error[600];
		double secs;
		json_t *r = suite_run_one(&o, sel[i], &secs, error, sizeof(error));
		json_t *row = r ? r : json_object();

		total += secs;
		failed += error[0] != 0;
		if (!o.quiet)
			suite_row(stdout, sel[i], row, secs, error[0] ? error : NULL);
		fflush(stdout);
		json_object_set_new(row, "benchmark", json_string(sel[i]->name));
		json_object_set_new(row, "set", json_integer(sel[i]->suite_set));
		json_object_set_new(row, "suite",
				    sel[i]->origin ? json_string(sel[i]->origin) : json_null());
		json_object_set_new(row, "host_seconds", json_real(secs));
		json_object_set_new(row, "verified", json_boolean(!error[0]));
		if (error[0])
			json_object_set_new(row, "error", json_string(error));
		json_array_append_new(all, row);
	}
	if (!o.quiet)
		printf("  %u benchmarks, %u failed, host %.2f s in all\n", n, failed, total);
	if (o.output) {
		char *text = json_dumps(all, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
		int rc = text ? cli_write_atomic(o.output, text, strlen(text)) : -CS_ENOMEM;

		free(text);
		if (rc)
			status = cli_fail(EXIT_OUTPUT, "%s: cannot write: %s", o.output,
					  rc == -CS_EIO ? strerror(errno) : cs_strerror(rc));
	}
	if (!status && failed)
		status = EXIT_SIM;
out:
	json_decref(all);
	return status;
}

/* ---- litmus ------------------------------------------------------------------------------------ */

struct litmus_cli {
	const char *config, *expect, *json, *agents;
	const char *sets[257];
	int nsets;
	char seed_set[48];
	struct litmus_opts lo;
	bool quiet, help, jitter_set;
	char **files;
	int nfiles;
};

/* A non-negative decimal number for option `opt`. */
/* A whole number in [min, max]: the bounds keep a typo from running for days (the run time is
 * linear in --iterations and in --jitter). */
static int parse_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (!text[0] || *end || errno || text[0] == '-' || v < min || v > max)
		return cli_fail(EXIT_USAGE,
				"litmus: %s %s: expected a whole number from %" PRIu64
				" to %" PRIu64,
				opt, text, min, max);
	*out = v;
	return 0;
}

static int parse_litmus_opts(int argc, char **argv, struct litmus_cli *o)
{
	enum {
		OPT_SET = 256,
		OPT_ITER,
		OPT_JITTER,
		OPT_WARMUP,
		OPT_PLACE,
		OPT_SEED,
		OPT_EXPECT,
		OPT_JSON,
		OPT_AGENTS,
		OPT_ATOMICS
	};
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"set", required_argument, NULL, OPT_SET},
	    {"iterations", required_argument, NULL, OPT_ITER},
	    {"jitter", required_argument, NULL, OPT_JITTER},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"placement", required_argument, NULL, OPT_PLACE},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"expect", required_argument, NULL, OPT_EXPECT},
	    {"json", required_argument, NULL, OPT_JSON},
	    {"agents", required_argument, NULL, OPT_AGENTS},
	    {"atomics", required_argument, NULL, OPT_ATOMICS},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t seed;
	int c, rc;

	memset(o, 0, sizeof(*o));
	litmus_opts_default(&o->lo);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:qh", longopts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			o->help = true;
			break;
		case OPT_SET:
			if (o->nsets == 256)
				return cli_fail(EXIT_USAGE, "litmus: more than 256 --set options");
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_ITER:
			rc = parse_count("--iterations", optarg, 1, 10000000, &o->lo.iterations);
			break;
		case OPT_JITTER:
			rc = parse_count("--jitter", optarg, 0, 1000000, &o->lo.jitter);
			o->jitter_set = true;
			break;
		case OPT_WARMUP:
			rc = parse_count("--warmup", optarg, 0, 10000000, &o->lo.warmup);
			break;
		case OPT_PLACE:
			if (strcmp(optarg, "random") == 0)
				o->lo.placement = LIT_PLACE_RANDOM;
			else if (strcmp(optarg, "fixed") == 0)
				o->lo.placement = LIT_PLACE_FIXED;
			else
				return cli_fail(EXIT_USAGE,
						"litmus: --placement %s: not one of random, fixed",
						optarg);
			break;
		case OPT_ATOMICS:
			if (strcmp(optarg, "ops") == 0)
				o->lo.atomics = LIT_ATOMICS_OPS;
			else if (strcmp(optarg, "fences") == 0)
				o->lo.atomics = LIT_ATOMICS_FENCES;
			else
				return cli_fail(EXIT_USAGE,
						"litmus: --atomics %s: not one of ops, fences",
						optarg);
			break;
		case OPT_SEED:
			rc = parse_count("--seed", optarg, 0, UINT64_MAX, &seed);
			snprintf(o->seed_set, sizeof(o->seed_set), "sim.seed=%" PRIu64, seed);
			break;
		case OPT_EXPECT:
			o->expect = optarg;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_AGENTS: {
			struct cs_err aerr = {0};

			o->agents = optarg;
			if (litmus_agents_parse(optarg, &o->lo, &aerr))
				return cli_fail(EXIT_USAGE, "litmus: %s", aerr.msg);
			break;
		}
		case ':':
			return cli_fail(EXIT_USAGE, "litmus: option %s needs a value",
					argv[optind - 1]);
		default:
			return cli_fail(EXIT_USAGE,
					"litmus: unknown option '%s' (see cohscope litmus --help)",
					argv[optind - 1]);
		}
		if (rc)
			return rc;
	}
	if (o->lo.nagents && !o->jitter_set)
		o->lo.jitter = LITMUS_DEFAULT_JITTER_MIXED;
	/* --seed last: it wins over a --set sim.seed */
	if (o->seed_set[0])
		o->sets[o->nsets++] = o->seed_set;
	o->files = argv + optind;
	o->nfiles = argc - optind;
	return 0;
}

/* The condition as written: "exists (1:r0=1 /\ 1:r1=0)". */
static void format_cond(const struct litmus_test *t, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%sexists (", t->cond.negated ? "~" : "");

	for (unsigned i = 0; i < t->cond.natoms && n < len; i++) {
		const struct lit_atom *a = &t->cond.atoms[i];
		const char *sep = i ? " /\\ " : "";
		const char *eq = a->ne ? "!=" : "=";

		if (a->is_loc)
			n += (size_t)snprintf(buf + n, len - n, "%s%s%s%" PRId64, sep,
					      t->locs[a->loc].name, eq, a->value);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%u:%s%s%" PRId64, sep, a->thread,
					      t->threads[a->thread].regs[a->reg], eq, a->value);
	}
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

static const char *expect_text(const struct litmus_result *r, const struct litmus_verdict *v)
{
	return r->model == LIT_MODEL_NONE ? "-" : litmus_expect_name(v->expect);
}

static void print_litmus(struct litmus_test **t, const struct litmus_result *r,
			 const struct litmus_verdict *v, int n)
{
	int w = 4, passed = 0;
	char cond[1024];

	for (int i = 0; i < n; i++) {
		int len = (int)strlen(t[i]->name);

		w = len > w ? (len < 48 ? len : 48) : w;
	}
	printf("%-*s  %-5s %-12s %7s %8s %7s  %-8s %s\n", w, "test", "model", "protocol", "iters",
	       "outcomes", "seen", "expected", "result");
	for (int i = 0; i < n; i++) {
		printf("%-*.*s  %-5s %-12s %7" PRIu64 " %8u %7" PRIu64 "  %-8s %s (%s)\n", w, w,
		       t[i]->name, litmus_model_name(r[i].model), r[i].protocol, r[i].iterations,
		       r[i].noutcomes, r[i].condition_count, expect_text(&r[i], &v[i]),
		       v[i].pass ? "PASS" : "FAIL", v[i].text);
		passed += v[i].pass;
	}
	printf("%d tests: %d passed, %d failed\n", n, passed, n - passed);
	for (int i = 0; i < n; i++) {
		format_cond(t[i], cond, sizeof(cond));
		printf("\n%s (%s, %s%s%s, seed %" PRIu64 ", %" PRIu64 " cycles): %s\n", t[i]->name,
		       t[i]->path, litmus_model_name(r[i].model), r[i].agents[0] ? ", agents " : "",
		       r[i].agents, r[i].seed, r[i].cycles, cond);
		for (unsigned k = 0; k < r[i].noutcomes; k++)
			printf("  %8" PRIu64 "  %s%s\n", r[i].outcomes[k].count,
			       r[i].outcomes[k].text,
			       r[i].outcomes[k].condition ? "   <- condition" : "");
	}
}

static json_t *litmus_json(const struct litmus_cli *o, struct litmus_test **t,
			   const struct litmus_result *r, const struct litmus_verdict *v, int n)
{
	json_t *root = json_object(), *tests = json_array();
	int passed = 0;
	char cond[1024];

	if (!root || !tests) {
		json_decref(root);
		json_decref(tests);
		return NULL;
	}
	json_object_set_new(
	    root, "cohscope",
	    json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:s, s:s?, s:s?}", "version",
		      COHSCOPE_VERSION, "config", o->config, "seed",
		      (json_int_t)(n ? r[0].seed : 0), "iterations", (json_int_t)o->lo.iterations,
		      "jitter", (json_int_t)o->lo.jitter, "warmup", (json_int_t)o->lo.warmup,
		      "placement", o->lo.placement == LIT_PLACE_FIXED ? "fixed" : "random",
		      "atomics", o->lo.atomics == LIT_ATOMICS_FENCES ? "fences" : "ops", "expect",
		      o->expect, "agents", n && r[0].agents[0] ? r[0].agents : NULL));
	for (int i = 0; i < n; i++) {
		json_t *outs = json_array(), *jt;

		for (unsigned k = 0; k < r[i].noutcomes; k++)
			json_array_append_new(
			    outs, json_pack("{s:s, s:I, s:b}", "outcome", r[i].outcomes[k].text,
					    "count", (json_int_t)r[i].outcomes[k].count,
					    "condition", r[i].outcomes[k].condition));
		format_cond(t[i], cond, sizeof(cond));
		jt = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:I, s:s, s:b, s:s}",
			       "name", t[i]->name, "file", t[i]->path, "arch", t[i]->arch,
			       "condition", cond, "model", litmus_model_name(r[i].model),
			       "protocol", r[i].protocol, "iterations", (json_int_t)r[i].iterations,
			       "cycles", (json_int_t)r[i].cycles, "outcomes", outs,
			       "condition_observed", (json_int_t)r[i].condition_count, "expected",
			       expect_text(&r[i], &v[i]), "pass", v[i].pass, "verdict", v[i].text);
		if (jt && r[i].agents[0])
			json_object_set_new(jt, "late_starts",
					    json_integer((json_int_t)r[i].late_starts));
		json_array_append_new(tests, jt);
		passed += v[i].pass;
	}
	json_object_set_new(root, "tests", tests);
	json_object_set_new(
	    root, "summary",
	    json_pack("{s:i, s:i, s:i}", "tests", n, "passed", passed, "failed", n - passed));
	return root;
}

static int write_litmus_json(const struct litmus_cli *o, struct litmus_test **t,
			     const struct litmus_result *r, const struct litmus_verdict *v, int n)
{
	json_t *root = litmus_json(o, t, r, v, n);
	char *text = root ? json_dumps(root, JSON_INDENT(1)) : NULL;
	int rc;

	json_decref(root);
	if (!text)
		return cli_fail(EXIT_INTERNAL, "out of memory");
	if (strcmp(o->json, "-") == 0) {
		rc = fputs(text, stdout) < 0 || fputc('\n', stdout) < 0 ? -CS_EIO : 0;
		free(text);
		return rc ? cli_fail(EXIT_OUTPUT, "standard output: cannot write") : 0;
	}
	rc = cli_write_atomic(o->json, text, strlen(text));
	free(text);
	if (rc)
		return cli_fail(EXIT_OUTPUT, "%s: cannot write: %s", o->json,
				rc == -CS_EIO ? strerror(errno) : cs_strerror(rc));
	return 0;
}

static int cmd_litmus(int argc, char **argv)
{
	struct litmus_expect_table *tab = NULL;
	struct litmus_test **tests = NULL;
	struct litmus_result *res = NULL;
	struct litmus_verdict *ver = NULL;
	struct cs_config *cfg = NULL;
	struct cs_err err = {0};
	struct litmus_cli o;
	struct opts co = {0};
	int status, failed = 0;

	status = parse_litmus_opts(argc, argv, &o);
	if (status)
		return status;
	if (o.help) {
		fputs(litmus_help, stdout);
		return 0;
	}
	if (!o.nfiles)
		return cli_fail(EXIT_USAGE, "litmus: no litmus file (see cohscope litmus --help)");
	if (!o.config)
		return cli_fail(EXIT_USAGE,
				"litmus: -c CONFIG is required (see cohscope list configs)");
	tests = calloc((size_t)o.nfiles, sizeof(*tests));
	res = calloc((size_t)o.nfiles, sizeof(*res));
	ver = calloc((size_t)o.nfiles, sizeof(*ver));
	if (!tests || !res || !ver) {
		status = cli_fail(EXIT_INTERNAL, "out of memory");
		goto out;
	}
	/* every input is read before anything runs: bad input costs no simulation */
	if (o.expect) {
		int rc = litmus_expect_load(o.expect, &tab, &err);

		if (rc) {
			status = cli_fail(cli_exit_status(rc), "%s", err.msg);
			goto out;
		}
	}
	for (int i = 0; i < o.nfiles; i++) {
		int rc = litmus_parse_file(o.files[i], &tests[i], &err);

		if (rc) {
			status = cli_fail(cli_exit_status(rc), "%s", err.msg);
			goto out;
		}
	}
	co.config = o.config;
	memcpy(co.sets, o.sets, sizeof(co.sets[0]) * (size_t)o.nsets);
	co.nsets = o.nsets;
	status = open_config(&co, &cfg);
	if (status)
		goto out;
	/* every test fits the system and --agents before the first one runs */
	for (int i = 0; i < o.nfiles; i++) {
		int rc = litmus_check(tests[i], cfg, &o.lo, &err);

		if (rc) {
			status = cli_fail(cli_exit_status(rc), "%s", err.msg);
			goto out;
		}
	}
	for (int i = 0; i < o.nfiles; i++) {
		int rc = litmus_run(tests[i], cfg, &o.lo, &res[i], &err);

		if (rc) {
			status = cli_exit_status(rc);
			status = status == EXIT_SIM
				     ? cli_fail(status, "%s: %s", tests[i]->path, err.msg)
				     : cli_fail(status, "%s", err.msg);
			goto out;
		}
		litmus_judge(tests[i], &res[i], tab, &ver[i]);
		failed += !ver[i].pass;
	}
	if (!o.quiet && !(o.json && strcmp(o.json, "-") == 0))
		print_litmus(tests, res, ver, o.nfiles);
	if (o.json) {
		status = write_litmus_json(&o, tests, res, ver, o.nfiles);
		if (status)
			goto out;
	}
	if (failed)
		status =
		    cli_fail(EXIT_SIM, "litmus: %d of %d tests saw an outcome their model forbids",
			     failed, o.nfiles);
out:
	for (int i = 0; res && i < o.nfiles; i++)
		litmus_result_free(&res[i]);
	for (int i = 0; tests && i < o.nfiles; i++)
		litmus_free(tests[i]);
	free(tests);
	free(res);
	free(ver);
	litmus_expect_free(tab);
	cs_config_close(cfg);
	return status;
}

/* ---- calibrate ------------------------------------------------------------------------------- */

static const char calibrate_help[] =
    "usage: cohscope calibrate -c CONFIG --train W1,W2,... -o CALIB.cfg [--set K=V]... [-q]\n"
    "\n"
    "Runs each training workload in detailed and in analytic mode, pairs their kernels, and\n"
    "fits the analytic mode's correction R = detailed / LT cycles = a + sum_r b_r rho_r /\n"
    "(1 - c rho_r) over the LT face's utilisation of the NoC bank ports, the L2 banks and the\n"
    "DRAM buses (GSL nonlinear least squares). Reports the fit and the held-out error of\n"
    "leave-one-workload-out, and writes parameters, training set and errors to CALIB.cfg,\n"
    "which --mode analytic --set sampling.calibration=CALIB.cfg uses.\n"
    "\n"
    "The training workloads are benchmarks of the suite (cohscope list workloads), at least\n"
    "two: each is held out in turn.\n";

struct cal_sample {
	double x[CALM_FEATURES];
	double y, lt, det;
	unsigned wl;
};

/* Held-out error of workload w: fit on the others, predict w's total. */
static double cal_total_err(const struct cal_sample *smp, size_t n, const double *p, unsigned w)
{
	double pred = 0, det = 0;

	for (size_t i = 0; i < n; i++)
		if (smp[i].wl == w) {
			pred += calm_ratio(p, smp[i].x, NULL) * smp[i].lt;
			det += smp[i].det;
		}
	return det > 0 ? fabs(pred - det) / det : 0;
}

static int cal_fit_subset(const struct cal_sample *smp, size_t n, int skip, double *p,
			  struct cs_err *err)
{
	struct cal_model m = {.n_params = CALM_PARAMS,
			      .n_features = CALM_FEATURES,
			      .predict = calm_ratio,
			      .lower = calm_lower,
			      .upper = calm_upper};
	double *x = malloc((n ? n : 1) * CALM_FEATURES * sizeof(double));
	double *y = malloc((n ? n : 1) * sizeof(double));
	struct cal_fit_result r;
	size_t k = 0;
	int rc;

	if (!x || !y) {
		free(x);
		free(y);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		if ((int)smp[i].wl == skip)
			continue;
		memcpy(x + k * CALM_FEATURES, smp[i].x, sizeof(smp[i].x));
		y[k++] = smp[i].y;
	}
	rc = cal_fit(&m, x, y, k, calm_init, &r, err);
	if (!rc)
		memcpy(p, r.params, CALM_PARAMS * sizeof(double));
	free(x);
	free(y);
	return rc;
}

static int cmd_calibrate(int argc, char **argv)
{
	const struct cs_workload *sel[SUITE_MAX];
	struct cal_sample *smp = NULL;
	size_t ns = 0, cap = 0;
	struct cal_file cf = {0};
	struct cs_err err = {0};
	unsigned n = 0;
	struct opts o;
	int status = parse_opts(argc, argv, "calibrate", &o);

	if (!status && o.help) {
		fputs(calibrate_help, stdout);
		return 0;
	}
	if (!status && (!o.config || !o.workload || !o.output))
		status =
		    cli_fail(EXIT_USAGE, "calibrate: -c CONFIG, --train W1,W2,... and -o FILE are "
					 "required (cohscope help calibrate)");
	if (!status && o.nsets + 2 > (int)(sizeof(o.sets) / sizeof(o.sets[0])))
		status = cli_fail(EXIT_USAGE, "calibrate: too many --set");
	if (!status)
		status = suite_select("calibrate: --train", "gtsc", o.workload, sel, &n);
	if (!status && n < 2)
		status =
		    cli_fail(EXIT_USAGE, "calibrate: --train needs at least two workloads (one is "
					 "held out in turn)");
	if (status)
		return status;
	for (unsigned w = 0; w < n && !status; w++) {
		struct opts d = o, a = o;
		char error[600];
		double secs;
		json_t *rd, *ra, *kd, *ka;

		d.sets[d.nsets++] = "system.mode=detailed";
		a.sets[a.nsets++] = "system.mode=analytic";
		a.sets[a.nsets++] = "sampling.calibration=";
		rd = suite_run_one(&d, sel[w], &secs, error, sizeof(error));
		if (error[0]) {
			status =
			    cli_fail(EXIT_SIM, "calibrate: %s (detailed): %s", sel[w]->name, error);
			json_decref(rd);
			break;
		}
		ra = suite_run_one(&a, sel[w], &secs, error, sizeof(error));
		if (error[0]) {
			status =
			    cli_fail(EXIT_SIM, "calibrate: %s (analytic): %s", sel[w]->name, error);
			json_decref(rd);
			json_decref(ra);
			break;
		}
		kd = json_object_get(rd, "kernels");
		ka = json_object_get(ra, "kernels");
		for (size_t k = 0; k < json_array_size(kd) && k < json_array_size(ka); k++) {
			json_t *jd = json_array_get(kd, k), *ja = json_array_get(ka, k);
			double det = json_num(jd, "cycles"), lt = json_num(ja, "lt_cycles");

			if (det <= 0 || lt < 100)
				continue;
			if (ns == cap) {
				size_t c = cap ? cap * 2 : 64;
				struct cal_sample *ns2 = realloc(smp, c * sizeof(*smp));

				if (!ns2) {
					status = cli_fail(EXIT_INTERNAL, "out of memory");
					break;
				}
				smp = ns2;
				cap = c;
			}
			smp[ns] = (struct cal_sample){.x = {json_num(ja, "rho_noc"),
							    json_num(ja, "rho_l2"),
							    json_num(ja, "rho_dram")},
						      .y = det / lt,
						      .lt = lt,
						      .det = det,
						      .wl = w};
			ns++;
		}
		if (!o.quiet)
			printf("  %-6s %4zu kernels so far\n", sel[w]->name, ns);
		json_decref(rd);
		json_decref(ra);
	}
	if (!status && cal_fit_subset(smp, ns, -1, cf.p, &err))
		status = cli_fail(EXIT_SIM, "calibrate: %s", err.msg);
	if (!status) {
		double sum = 0, mx = 0, fit = 0;

		if (!o.quiet)
			printf("\n  %-6s %10s %10s\n", "held", "fit err", "held-out");
		for (unsigned w = 0; w < n; w++) {
			double p[CALM_PARAMS], e, ef = cal_total_err(smp, ns, cf.p, w);

			if (cal_fit_subset(smp, ns, (int)w, p, &err)) {
				status = cli_fail(EXIT_SIM, "calibrate: without %s: %s",
						  sel[w]->name, err.msg);
				break;
			}
			e = cal_total_err(smp, ns, p, w);
			sum += e;
			fit += ef;
			mx = e > mx ? e : mx;
			if (!o.quiet)
				printf("  %-6s %9.2f%% %9.2f%%\n", sel[w]->name, 100 * ef, 100 * e);
		}
		cf.heldout_mean_err = sum / n;
		cf.heldout_max_err = mx;
		cf.fit_mean_err = fit / n;
		cf.samples = (unsigned)ns;
		snprintf(cf.config, sizeof(cf.config), "%s", o.config);
		for (unsigned w = 0; w < n; w++)
			snprintf(cf.train + strlen(cf.train), sizeof(cf.train) - strlen(cf.train),
				 "%s%s", w ? "," : "", sel[w]->name);
	}
	if (!status) {
		if (!o.quiet)
			printf("\n  R = %.4f + %.4f rho_noc/(1-%.3f rho) + %.4f rho_l2/(..) + %.4f "
			       "rho_dram/(..)\n  %zu kernels; fit error %.2f%%, held-out mean "
			       "%.2f%%, max %.2f%%\n",
			       cf.p[0], cf.p[1], cf.p[4], cf.p[2], cf.p[3], ns,
			       100 * cf.fit_mean_err, 100 * cf.heldout_mean_err,
			       100 * cf.heldout_max_err);
		if (cal_file_save(o.output, &cf, &err))
			status = cli_fail(EXIT_OUTPUT, "%s", err.msg);
	}
	free(smp);
	return status;
}

/* The commands, in the order the help lists them: dispatch, `help COMMAND` and the error
 * lines that name them all read this one table. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
    {"run", cmd_run, run_help},
    {"suite", cmd_suite, suite_help},
    {"litmus", cmd_litmus, litmus_help},
    {"calibrate", cmd_calibrate, calibrate_help},
    {"sweep", cmd_sweep, sweep_help},
    {"collect", cmd_collect, collect_help},
    {"study", cmd_study, study_help},
    {"plot", cmd_plot, plot_help},
    {"list", cmd_list, list_help},
    {"config", cmd_config, config_help},
    {NULL, NULL, NULL},
};

static const struct command *command_find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "run, suite, ..., config, help" into buf */
static const char *command_names(char *buf, size_t len)
{
	size_t n = 0;

	for (const struct command *c = commands; c->name && n < len; c++)
		n += (size_t)snprintf(buf + n, len - n, "%s, ", c->name);
	if (n < len)
		snprintf(buf + n, len - n, "help");
	return buf;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const struct command *c;
	char names[160];

	if (!cmd)
		return cli_fail(EXIT_USAGE, "no command (%s; see cohscope --help)",
				command_names(names, sizeof(names)));
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		fputs(main_help, stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("cohscope %s\n", COHSCOPE_VERSION);
		return 0;
	}
	if ((c = command_find(cmd)))
		return c->fn(argc - 1, argv + 1);
	if (strcmp(cmd, "help") == 0) {
		const char *what = argc > 2 ? argv[2] : "";

		/* help, help --help, help help: the list of commands */
		if (!what[0] || !strcmp(what, "--help") || !strcmp(what, "-h") ||
		    !strcmp(what, "help")) {
			if (argc > 3)
				return cli_fail(EXIT_USAGE, "help: one command at most");
			fputs(main_help, stdout);
			return 0;
		}
		c = command_find(what);
		if (argc > 3 || !c)
			return cli_fail(EXIT_USAGE, "help: no command '%s' (%s)", what,
					command_names(names, sizeof(names)));
		fputs(c->help, stdout);
		return 0;
	}
	return cli_fail(EXIT_USAGE, "unknown command '%s' (%s)", cmd,
			command_names(names, sizeof(names)));
}

int main(int argc, char **argv)
{
	int status, e;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	status = dispatch(argc, argv);
	/* stdout is fully buffered: a dump or summary to a full disk fails only here. */
	e = fflush(stdout) ? errno : 0;
	if (ferror(stdout) && status == 0)
		status = cli_fail(EXIT_OUTPUT, "standard output: cannot write: %s",
				  e ? strerror(e) : "write error");
	return status;
}
