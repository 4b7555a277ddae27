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

extern const char sweep_help[];
extern const char collect_help[];

/* argv[0] is the command name ("sweep", "collect"). */
int cmd_sweep(int argc, char **argv);
int cmd_collect(int argc, char **argv);

#endif
