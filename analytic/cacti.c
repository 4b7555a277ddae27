/* analytic/cacti.c - interpolation over CACTI 7's table (see cacti.h for the rules). */
#include "analytic/cacti.h"

#include <math.h>
#include <stdbool.h>

/* The table's points on one axis: at most this many sizes per (node, kind, line, ways). */
#define CACTI_POINTS 64

static struct cacti_array of_row(const struct cacti_row *r)
{
	return (struct cacti_array){.read_pj = r->read_pj,
				    .write_pj = r->write_pj,
				    .search_pj = r->search_pj,
				    .leak_w = r->leak_mw * 1e-3,
				    .tag_bits = r->tag_bits};
}

/* Between a (at xa) and b (at xb), at x: each quantity log-log linear (a power law through
 * both), or linear over log x where one of them is 0; never below 0. */
static double mix1(double a, double b, double t)
{
	double v;

	if (t == 0 || a == b)
		return a; /* at a table point: its value, to the bit */
	if (t == 1)
		return b;
	if (a > 0 && b > 0)
		return exp(log(a) + t * (log(b) - log(a)));
	v = a + t * (b - a);
	return v > 0 ? v : 0;
}

static struct cacti_array mix(const struct cacti_array *a, const struct cacti_array *b, double xa,
			      double xb, double x)
{
	double t = xa == xb ? 0 : (log2(x) - log2(xa)) / (log2(xb) - log2(xa));

	return (struct cacti_array){.read_pj = mix1(a->read_pj, b->read_pj, t),
				    .write_pj = mix1(a->write_pj, b->write_pj, t),
				    .search_pj = mix1(a->search_pj, b->search_pj, t),
				    .leak_w = mix1(a->leak_w, b->leak_w, t),
				    .tag_bits = mix1(a->tag_bits, b->tag_bits, t)};
}

static bool match(const struct cacti_row *r, unsigned node, unsigned kind, unsigned line, int assoc)
{
	return r->node_nm == node && r->kind == kind && r->line == line &&
	       (assoc < 0 || r->assoc == (unsigned)assoc);
}

/*
 * The rows of (node, kind, line, assoc) at x = size / per (per: 1, or the CAMs' payload):
 * normal-mode rows only, the two around x mixed; beyond them the nearer end's value (no
 * extrapolation). A size CACTI built only in sequential mode (too few sets for the normal
 * one) is its sequential row, exactly: sequential access reads only the hit way, so it is far
 * cheaper, and a segment across the two modes would mean nothing. false: no row.
 */
static bool along_size(const struct cacti_table *t, unsigned node, unsigned kind, unsigned line,
		       int assoc, double x, double per, struct cacti_array *out)
{
	const struct cacti_row *p[CACTI_POINTS], *seq = NULL;
	double xs[CACTI_POINTS];
	size_t n = 0, i;

	for (i = 0; i < t->n && n < CACTI_POINTS; i++) {
		const struct cacti_row *r = &t->rows[i];

		if (!match(r, node, kind, line, assoc))
			continue;
		if (r->sequential) {
			if ((double)r->size / per == x)
				seq = r;
			continue;
		}
		p[n] = r;
		xs[n++] = (double)r->size / per;
	}
	if (seq && (!n || x < xs[0] || x > xs[n - 1])) {
		*out = of_row(seq);
		return true;
	}
	if (!n)
		return false;
	if (n == 1 || x <= xs[0]) {
		*out = of_row(p[0]);
		return true;
	}
	if (x >= xs[n - 1]) {
		*out = of_row(p[n - 1]);
		return true;
	}
	for (i = 1; xs[i] < x; i++)
		;
	{
		struct cacti_array a = of_row(p[i - 1]), b = of_row(p[i]);

		*out = mix(&a, &b, xs[i - 1], xs[i], x);
	}
	return true;
}

/* The value of v nearest to x in log2 among the rows' (node, kind) field; 0: none. */
static unsigned nearest_line(const struct cacti_table *t, unsigned node, unsigned kind, unsigned x)
{
	unsigned best = 0;
	double bd = INFINITY;

	for (size_t i = 0; i < t->n; i++) {
		const struct cacti_row *r = &t->rows[i];
		double d;

		if (r->node_nm != node || r->kind != kind || !r->line)
			continue;
		d = fabs(log2((double)r->line) - log2((double)x));
		if (d < bd || (d == bd && r->line > best)) {
			bd = d;
			best = r->line;
		}
	}
	return best;
}

/* One array of a cache (kind tag or data), interpolated over ways and size. */
static int cache_array(const struct cacti_table *t, unsigned node, unsigned kind, uint64_t size,
		       unsigned assoc, unsigned line, struct cacti_array *out)
{
	unsigned lo = 0, hi = 0, least = 0, most = 0; /* the ways around assoc; the table's ends */
	struct cacti_array a, b;

	for (size_t i = 0; i < t->n; i++) {
		const struct cacti_row *r = &t->rows[i];
		unsigned w = r->assoc;

		if (!match(r, node, kind, line, -1) || !w)
			continue;
		if (w <= assoc && w > lo)
			lo = w;
		if (w >= assoc && (!hi || w < hi))
			hi = w;
		if (!least || w < least)
			least = w;
		if (w > most)
			most = w;
	}
	if (!least)
		return -1;
	/* beyond the table's ways: the nearer end's (no extrapolation) */
	if (!lo)
		lo = hi = least;
	if (!hi)
		lo = hi = most;
	if (!along_size(t, node, kind, line, (int)lo, (double)size, 1, &a) ||
	    !along_size(t, node, kind, line, (int)hi, (double)size, 1, &b))
		return -1;
	*out = mix(&a, &b, lo, hi, assoc);
	return 0;
}

int cacti_cache_in(const struct cacti_table *t, unsigned node_nm, uint64_t size, unsigned assoc,
		   unsigned line, struct cacti_array *tag, struct cacti_array *data)
{
	unsigned tl = nearest_line(t, node_nm, CACTI_TAG, line);
	double f;

	if (!tl || !assoc || !size || cache_array(t, node_nm, CACTI_TAG, size, assoc, tl, tag) ||
	    cache_array(t, node_nm, CACTI_DATA, size, assoc, tl, data))
		return -1;
	/* another line: the data array moves line / tl as many bits per access */
	f = (double)line / (double)tl;
	data->read_pj *= f;
	data->write_pj *= f;
	return 0;
}

int cacti_ram_in(const struct cacti_table *t, unsigned node_nm, uint64_t size, unsigned width,
		 struct cacti_array *out)
{
	unsigned w = nearest_line(t, node_nm, CACTI_RAM, width);

	if (!w || !along_size(t, node_nm, CACTI_RAM, w, 1, (double)size, 1, out))
		return -1;
	out->read_pj *= (double)width / w;
	out->write_pj *= (double)width / w;
	return 0;
}

int cacti_cam_in(const struct cacti_table *t, unsigned node_nm, unsigned entries,
		 struct cacti_array *out)
{
	unsigned w = nearest_line(t, node_nm, CACTI_CAM, 8);

	if (!w || !along_size(t, node_nm, CACTI_CAM, w, 0, (double)entries, w, out))
		return -1;
	return 0;
}

int cacti_cache(unsigned node_nm, uint64_t size, unsigned assoc, unsigned line,
		struct cacti_array *tag, struct cacti_array *data)
{
	return cacti_cache_in(&cacti_table, node_nm, size, assoc, line, tag, data);
}

int cacti_ram(unsigned node_nm, uint64_t size, unsigned width, struct cacti_array *out)
{
	return cacti_ram_in(&cacti_table, node_nm, size, width, out);
}

int cacti_cam(unsigned node_nm, unsigned entries, struct cacti_array *out)
{
	return cacti_cam_in(&cacti_table, node_nm, entries, out);
}
