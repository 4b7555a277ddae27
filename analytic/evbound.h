/*
 * analytic/evbound.h - a bottleneck time for an interval from its event counts (same-event
 * unit pairs of the hybrid mode).
 *
 * An interval's counts (per SM: warp instructions plus compute cycles; per L2 bank:
 * accesses; per DRAM channel: data-bus busy cycles; per NoC port: flits) give a lower bound on
 * its time: the busiest resource's work over its rate. The hybrid mode predicts each detailed
 * unit and each LT interval with the same bound; the units' (bound, measured) pairs give the
 * ratio that scales the LT intervals' bounds, so the kernel's LT time is estimated from what
 * it did, not from how long the LT face took to do it.
 */
#ifndef COHSCOPE_ANALYTIC_EVBOUND_H
#define COHSCOPE_ANALYTIC_EVBOUND_H

/* Resource classes, in the order their counters lie in a count vector. */
enum evb_class { EVB_ISSUE = 0, EVB_L2, EVB_DRAM, EVB_NOC, EVB_CLASSES };

struct evb_layout {
	unsigned n[EVB_CLASSES];    /* counters of each class (SMs, banks, channels, ports) */
	double cycles[EVB_CLASSES]; /* core cycles one count of the class takes its resource */
};

/* Counters in a vector laid out as l (the classes one after the other). */
unsigned evb_len(const struct evb_layout *l);

/* The bound, in core cycles, of the interval whose counts went from a to b. */
double evb_cycles(const struct evb_layout *l, const double *a, const double *b);

#endif
