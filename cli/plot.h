/*
 * cli/plot.h - `cohscope plot`: bar charts of a results file in the papers' style.
 *
 * From one or more results files (the CSV or JSON of `cohscope sweep`, the JSON of `cohscope
 * suite -o`), per benchmark bars for each group (a configuration, or protocol x consistency),
 * normalized to a baseline group, with a geometric-mean cluster; writes PREFIX.dat (the
 * normalized table), PREFIX.gp (a self-contained gnuplot script) and, through gnuplot,
 * PREFIX.svg and PREFIX.png. docs/plots.md.
 */
#ifndef COHSCOPE_CLI_PLOT_H
#define COHSCOPE_CLI_PLOT_H

extern const char plot_help[];

/* `cohscope plot ...` with argv[0] = "plot". Prints its own table and error lines; returns the
 * exit status of cli/README.md (0, 2 usage, 3 bad input, 4 output not written, 5 out of
 * memory). */
int cmd_plot(int argc, char **argv);

#endif
