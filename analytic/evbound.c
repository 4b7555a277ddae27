/*
 * analytic/evbound.c - bottleneck time of an interval from its event counts (see the header).
 */
#include "analytic/evbound.h"

unsigned evb_len(const struct evb_layout *l)
{
	unsigned n = 0;

	for (unsigned c = 0; c < EVB_CLASSES; c++)
		n += l->n[c];
	return n;
}

double evb_cycles(const struct evb_layout *l, const double *a, const double *b)
{
	double t = 0;
	unsigned i = 0;

	for (unsigned c = 0; c < EVB_CLASSES; c++)
		for (unsigned j = 0; j < l->n[c]; j++, i++) {
			double d = (b[i] - a[i]) * l->cycles[c];

			if (d > t)
				t = d;
		}
	return t;
}
