/*
 * tlm/kernel/time.c - exact clock-domain arithmetic (see time.h for the edge rule).
 * Exact for every 64-bit cycle count: n * num and t * den are formed in 64 bits when they fit
 * (every realistic run) and in 128 bits otherwise; both give the same integer.
 */
#include "tlm/kernel/time.h"

#include "util/error.h"

__extension__ typedef unsigned __int128 u128;

#define PS_PER_SEC 1000000000000ull

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

int sim_clock_init(struct sim_clock *c, uint64_t freq_hz)
{
	uint64_t g;

	if (freq_hz == 0 || freq_hz >= PS_PER_SEC)
		return -CS_EINVAL;
	g = gcd_u64(PS_PER_SEC, freq_hz);
	c->freq_hz = freq_hz;
	c->num = PS_PER_SEC / g;
	c->den = freq_hz / g;
	return 0;
}

/* ceil(n * 10^12 / f) = ceil(n * num / den) */
sim_time_t sim_clock_edge(const struct sim_clock *c, uint64_t n)
{
	uint64_t p;

	if (!__builtin_mul_overflow(n, c->num, &p) && p <= UINT64_MAX - (c->den - 1))
		return (p + c->den - 1) / c->den;
	return (sim_time_t)(((u128)n * c->num + c->den - 1) / c->den);
}

/* floor(t * f / 10^12) = floor(t * den / num) */
uint64_t sim_clock_cycle(const struct sim_clock *c, sim_time_t t)
{
	uint64_t p;

	if (!__builtin_mul_overflow(t, c->den, &p))
		return p / c->num;
	return (uint64_t)(((u128)t * c->den) / c->num);
}

static uint64_t next_edge_index(const struct sim_clock *c, sim_time_t t)
{
	uint64_t n = sim_clock_cycle(c, t);

	/* edge(n) <= t always; it is the answer only when it lands exactly on t. */
	return sim_clock_edge(c, n) == t ? n : n + 1;
}

uint64_t sim_clock_next_edge_n(const struct sim_clock *c, sim_time_t t, sim_time_t *edge)
{
	uint64_t n = sim_clock_cycle(c, t);
	sim_time_t e = sim_clock_edge(c, n);

	if (e != t)
		e = sim_clock_edge(c, ++n);
	*edge = e;
	return n;
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
