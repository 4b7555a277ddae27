/*
 * cli/sweep.h - `cohscope sweep` and `cohscope collect` (docs/sweeps.md).
 *
 * sweep: reads a sweep file (libconfig: a base configuration, workloads, fixed overrides and
 * axes), checks every point against the configuration schema before anything runs, then runs
 * the cross product on a local pool of `cohscope run` processes (--jobs N), or writes one shell
 * command per point for GNU parallel and a Slurm array script (--emit-jobs FILE).
 * collect: merges DIR/points/ID.json into DIR/results.csv and DIR/results.json, in point
 * order, byte for byte what the local pool writes.
 *
 * Both print for the user and return the process's exit status (cli/README.md); they never
 * exit.
 */
#ifndef COHSCOPE_CLI_SWEEP_H
#define COHSCOPE_CLI_SWEEP_H

#include <jansson.h>
#include <stddef.h>

struct cs_err;
struct sweep;

extern const char sweep_help[];
extern const char collect_help[];

/* argv[0] is the command name ("sweep", "collect"). */
int cmd_sweep(int argc, char **argv);
int cmd_collect(int argc, char **argv);

/*
 * The sweep file reader alone, as `cohscope sweep` starts (tests/fuzz/fuzz_sweep.c): reads path
 * and the command line's --set texts (sets[0..nsets-1]) and lists the points, without checking
 * them against the configuration. Returns 0 with *out (sweep_file_free), or a negative code with
 * *out NULL and err's message ("FILE:LINE: problem" for the file).
 */
int sweep_file_load(const char *path, const char *const *sets, int nsets, struct sweep **out,
		    struct cs_err *err);
void sweep_file_free(struct sweep *sw);
size_t sweep_file_points(const struct sweep *sw);
/* What DIR/manifest.json holds for output directory dir (NULL when out of memory). */
json_t *sweep_file_manifest(const struct sweep *sw, const char *dir);

#endif
