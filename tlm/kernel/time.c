/*
 * tlm/kernel/time.c - exact clock-domain arithmetic (see time.h for the edge rule).
 * 128-bit intermediates keep n * 10^12 exact for every 64-bit cycle count.
 */
#include "tlm/kernel/time.h"

#include "util/error.h"

__extension__ typedef unsigned __int128 u128;

#define PS_PER_SEC 1000000000000ull

int sim_clock_init(struct sim_clock *c, uint64_t freq_hz)
{
	if (freq_hz == 0 || freq_hz >= PS_PER_SEC)
		return -CS_EINVAL;
	c->freq_hz = freq_hz;
	return 0;
}

sim_time_t sim_clock_edge(const struct sim_clock *c, uint64_t n)
{
	u128 num = (u128)n * PS_PER_SEC;

	return (sim_time_t)((num + c->freq_hz - 1) / c->freq_hz);
}

uint64_t sim_clock_cycle(const struct sim_clock *c, sim_time_t t)
{
	return (uint64_t)(((u128)t * c->freq_hz) / PS_PER_SEC);
}

static uint64_t next_edge_index(const struct sim_clock *c, sim_time_t t)
{
	uint64_t n = sim_clock_cycle(c, t);

	/* edge(n) <= t always; it is the answer only when it lands exactly on t. */
	return sim_clock_edge(c, n) == t ? n : n + 1;
}

sim_time_t sim_clock_next_edge(const struct sim_clock *c, sim_time_t t)
{
	return sim_clock_edge(c, next_edge_index(c, t));
}

sim_time_t sim_clock_delay(const struct sim_clock *c, sim_time_t t, uint64_t cycles)
{
	return sim_clock_edge(c, next_edge_index(c, t) + cycles) - t;
}

double sim_clock_period_ps(const struct sim_clock *c)
{
	return (double)PS_PER_SEC / (double)c->freq_hz;
}
