/*
 * tlm/kernel/time.h - simulated time and clock domains.
 *
 * Time is an unsigned 64-bit count of picoseconds (213 days of simulated time).
 * A clock domain is given by its frequency in Hz, not by a period in ps, because common
 * GPU clocks (700 MHz, 1.1 GHz, 1.4 GHz, 3.5 GHz) have no whole-ps period. Edge n of a
 * domain lies at ceil(n * 10^12 / f) ps, computed exactly in 128-bit arithmetic: no rounding
 * error accumulates however long the run, and cycles -> time -> cycles is the identity.
 * The period is kept as the reduced fraction num/den ps (700 MHz: 10000/7), so the hot paths
 * multiply and divide in 64 bits while the product fits and fall back to 128 bits only beyond.
 */
#ifndef COHSCOPE_TLM_KERNEL_TIME_H
#define COHSCOPE_TLM_KERNEL_TIME_H

#include <stdint.h>

typedef uint64_t sim_time_t;

#define SIM_PS	     ((sim_time_t)1)
#define SIM_NS	     ((sim_time_t)1000)
#define SIM_US	     ((sim_time_t)1000000)
#define SIM_MS	     ((sim_time_t)1000000000)
#define SIM_SEC	     ((sim_time_t)1000000000000ull)
#define SIM_TIME_MAX UINT64_MAX

struct sim_clock {
	uint64_t freq_hz;
	uint64_t num, den; /* period = num / den ps, in lowest terms (set by sim_clock_init) */
};

/* freq_hz must be in [1, 10^12). Returns 0 or -CS_EINVAL. */
int sim_clock_init(struct sim_clock *c, uint64_t freq_hz);
/* Time of edge n: ceil(n * 10^12 / f). */
sim_time_t sim_clock_edge(const struct sim_clock *c, uint64_t n);
/* Number of the first edge at or after t; its time in *edge (one step where next_edge and
 * delay would each convert again). */
uint64_t sim_clock_next_edge_n(const struct sim_clock *c, sim_time_t t, sim_time_t *edge);
/* Number of the last edge at or before t: floor(t * f / 10^12). */
uint64_t sim_clock_cycle(const struct sim_clock *c, sim_time_t t);
/* Earliest edge at or after t. */
sim_time_t sim_clock_next_edge(const struct sim_clock *c, sim_time_t t);
/* Time from t to the edge `cycles` edges after the next edge at or after t: the delay a
 * component in this domain uses to act `cycles` cycles from now (0 cycles = next edge). */
sim_time_t sim_clock_delay(const struct sim_clock *c, sim_time_t t, uint64_t cycles);
/* Nominal period rounded to the nearest ps (for display only). */
double sim_clock_period_ps(const struct sim_clock *c);

#endif
