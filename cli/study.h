/*
 * cli/study.h - `cohscope study`: a paper's evaluation as one command (docs/study.md).
 *
 * `cohscope study gtsc` runs the sweeps of the G-TSC study (configs/studies/gtsc-*.sweep:
 * set 1 and set 2 under BL, W/L1, TC-RC, TC-SC, G-TSC-RC, G-TSC-SC, and G-TSC-RC's lease
 * 8-20) through `cohscope sweep`, plots the analogues of the thesis' Figs. 3.12-3.19 through
 * `cohscope plot`, and writes DIR/summary.md: the paper's claims beside ours, Table 3.2, and
 * the cycles of every point.
 */
#ifndef COHSCOPE_CLI_STUDY_H
#define COHSCOPE_CLI_STUDY_H

extern const char study_help[];

/* `cohscope study NAME ...` with argv[0] = "study". Prints progress and the summary (unless
 * -q); returns the exit status of cli/README.md. */
int cmd_study(int argc, char **argv);

#endif
