/* workloads/graph/graph.c - the CSR graph: building from an edge list, weights, statistics (see
 * graph.h). */
#include "workloads/graph/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/graph/uf.h"
#include "workloads/wl_util.h"

struct graph {
	uint32_t nodes, entries;
	uint32_t *row, *col, *weight;
};

uint32_t graph_nodes(const struct graph *g)
{
	return g->nodes;
}

uint32_t graph_entries(const struct graph *g)
{
	return g->entries;
}

const uint32_t *graph_row(const struct graph *g)
{
	return g->row;
}

const uint32_t *graph_col(const struct graph *g)
{
	return g->col;
}

const uint32_t *graph_weight(const struct graph *g)
{
	return g->weight;
}

uint32_t graph_degree(const struct graph *g, uint32_t v)
{
	return g->row[v + 1] - g->row[v];
}

void graph_free(struct graph *g)
{
	if (!g)
		return;
	free(g->row);
	free(g->col);
	free(g->weight);
	free(g);
}

bool graph_equal(const struct graph *a, const struct graph *b)
{
	if (a->nodes != b->nodes || a->entries != b->entries || !a->weight != !b->weight)
		return false;
	if (memcmp(a->row, b->row, ((size_t)a->nodes + 1) * sizeof(*a->row)) != 0 ||
	    memcmp(a->col, b->col, (size_t)a->entries * sizeof(*a->col)) != 0)
		return false;
	return !a->weight || memcmp(a->weight, b->weight, (size_t)a->entries * 4) == 0;
}

static uint64_t digest_words(uint64_t h, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = wl_mix64(h ^ w[i]);
	return h;
}

uint64_t graph_digest(const struct graph *g)
{
	uint64_t h = wl_mix64(((uint64_t)g->nodes << 32) | g->entries);

	h = digest_words(h, g->row, (size_t)g->nodes + 1);
	h = digest_words(h, g->col, g->entries);
	if (g->weight)
		h = digest_words(h, g->weight, g->entries);
	return h;
}

int graph_set_weights(struct graph *g, uint64_t seed, uint32_t lo, uint32_t hi)
{
	uint64_t span = (uint64_t)hi - lo + 1;

	if (!g->weight) {
		g->weight = malloc(((size_t)g->entries ? g->entries : 1) * sizeof(*g->weight));
		if (!g->weight)
			return -CS_ENOMEM;
	}
	for (uint32_t u = 0; u < g->nodes; u++)
		for (uint32_t k = g->row[u]; k < g->row[u + 1]; k++) {
			uint32_t v = g->col[k];
			uint64_t a = u < v ? u : v, b = u < v ? v : u;

			/* a hash of the unordered pair: both directions get the same weight */
			g->weight[k] =
			    lo + (uint32_t)(wl_mix64(seed ^ wl_mix64(a << 32 | b)) % span);
		}
	return 0;
}

/* ---- building ------------------------------------------------------------------------------- */

int graph_edges_add(struct graph_edges *e, uint32_t u, uint32_t v, uint32_t w)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 1024;
		uint32_t *nu = realloc(e->u, cap * sizeof(*nu));

		if (!nu)
			return -CS_ENOMEM;
		e->u = nu;
		nu = realloc(e->v, cap * sizeof(*nu));
		if (!nu)
			return -CS_ENOMEM;
		e->v = nu;
		nu = realloc(e->w, cap * sizeof(*nu));
		if (!nu)
			return -CS_ENOMEM;
		e->w = nu;
		e->cap = cap;
	}
	e->u[e->n] = u;
	e->v[e->n] = v;
	e->w[e->n] = w;
	e->n++;
	return 0;
}

void graph_edges_free(struct graph_edges *e)
{
	free(e->u);
	free(e->v);
	free(e->w);
	*e = (struct graph_edges){0};
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Counting sort by row into (column << 32 | weight) keys, each row sorted, then one pass that
 * keeps the first key of every column: the smallest weight of a repeated edge.
 */
int graph_build(uint32_t nodes, const struct graph_edges *e, bool weighted, struct graph **out,
		struct graph_build_info *info, struct cs_err *err)
{
	struct graph *g = NULL;
	uint64_t *key = NULL, total = 0, loops = 0, dropped = 0;
	uint32_t *fill = NULL, k = 0;
	int rc = -CS_ENOMEM;

	*out = NULL;
	if (info)
		*info = (struct graph_build_info){0};
	if (nodes == 0 || nodes == UINT32_MAX)
		return cs_err_set(err, -CS_EINVAL, "graph: %u nodes (1 to 2^32 - 2)", nodes);
	g = calloc(1, sizeof(*g));
	if (!g || !(g->row = calloc((size_t)nodes + 1, sizeof(*g->row))))
		goto fail;
	g->nodes = nodes;
	for (size_t i = 0; i < e->n; i++) {
		if (e->u[i] >= nodes || e->v[i] >= nodes) {
			rc = cs_err_set(err, -CS_EINVAL,
					"graph: edge %zu joins %u and %u, beyond the %u nodes", i,
					e->u[i], e->v[i], nodes);
			goto fail;
		}
		if (e->u[i] == e->v[i]) {
			loops++;
			continue;
		}
		g->row[e->u[i] + 1]++;
		g->row[e->v[i] + 1]++;
		total += 2;
	}
	if (total > UINT32_MAX) {
		rc = cs_err_set(err, -CS_ERANGE,
				"graph: %llu entries, more than the 2^32 - 1 uint32 offsets hold",
				(unsigned long long)total);
		goto fail;
	}
	for (uint32_t v = 0; v < nodes; v++)
		g->row[v + 1] += g->row[v];
	key = malloc((size_t)(total ? total : 1) * sizeof(*key));
	fill = malloc((size_t)nodes * sizeof(*fill));
	g->col = malloc((size_t)(total ? total : 1) * sizeof(*g->col));
	if (weighted)
		g->weight = malloc((size_t)(total ? total : 1) * sizeof(*g->weight));
	if (!key || !fill || !g->col || (weighted && !g->weight))
		goto fail;
	memcpy(fill, g->row, (size_t)nodes * sizeof(*fill));
	for (size_t i = 0; i < e->n; i++) {
		uint64_t w = weighted ? e->w[i] : 0;

		if (e->u[i] == e->v[i])
			continue;
		key[fill[e->u[i]]++] = (uint64_t)e->v[i] << 32 | w;
		key[fill[e->v[i]]++] = (uint64_t)e->u[i] << 32 | w;
	}
	for (uint32_t v = 0; v < nodes; v++) {
		uint32_t lo = g->row[v], hi = g->row[v + 1];

		if (hi - lo > 1)
			qsort(key + lo, hi - lo, sizeof(*key), cmp_u64);
		g->row[v] = k;
		for (uint32_t i = lo; i < hi; i++) {
			if (i > lo && key[i] >> 32 == key[i - 1] >> 32) {
				dropped++;
				continue;
			}
			g->col[k] = (uint32_t)(key[i] >> 32);
			if (weighted)
				g->weight[k] = (uint32_t)key[i];
			k++;
		}
	}
	g->row[nodes] = k;
	g->entries = k;
	if (k < total) { /* give back what the repeats took */
		uint32_t *p = realloc(g->col, (size_t)(k ? k : 1) * sizeof(*p));

		if (p)
			g->col = p;
		if (weighted && (p = realloc(g->weight, (size_t)(k ? k : 1) * sizeof(*p))))
			g->weight = p;
	}
	if (info) {
		info->self_loops = loops;
		info->repeats = dropped / 2; /* each repeated edge left one key in both rows */
	}
	free(key);
	free(fill);
	*out = g;
	return 0;
fail:
	if (rc == -CS_ENOMEM)
		cs_err_set(err, rc, "graph: out of memory building %u nodes", nodes);
	free(key);
	free(fill);
	graph_free(g);
	return rc;
}

/* ---- statistics ----------------------------------------------------------------------------- */

void graph_degree_hist(const struct graph *g, uint64_t *hist, uint32_t len)
{
	memset(hist, 0, (size_t)len * sizeof(*hist));
	for (uint32_t v = 0; v < g->nodes; v++) {
		uint32_t d = graph_degree(g, v);

		hist[d < len - 1 ? d : len - 1]++;
	}
}

/* Components by union-find over the edges; the sizes reuse the parent array's memory. */
static int count_components(const struct graph *g, struct graph_stats *s)
{
	uint32_t *parent = malloc((size_t)g->nodes * sizeof(*parent));
	uint32_t *size = calloc(g->nodes, sizeof(*size));

	if (!parent || !size) {
		free(parent);
		free(size);
		return -CS_ENOMEM;
	}
	for (uint32_t v = 0; v < g->nodes; v++)
		parent[v] = v;
	for (uint32_t u = 0; u < g->nodes; u++)
		for (uint32_t k = g->row[u]; k < g->row[u + 1]; k++) {
			uint32_t a = graph_uf_root(parent, u), b = graph_uf_root(parent, g->col[k]);

			if (a != b)
				parent[a < b ? b : a] = a < b ? a : b;
		}
	s->components = 0;
	s->largest_component = 0;
	for (uint32_t v = 0; v < g->nodes; v++) {
		uint32_t r = graph_uf_root(parent, v);

		if (size[r]++ == 0)
			s->components++;
		if (size[r] > s->largest_component)
			s->largest_component = size[r];
	}
	free(parent);
	free(size);
	return 0;
}

int graph_stats(const struct graph *g, struct graph_stats *s)
{
	uint64_t *count = NULL, span_sum = 0, near = 0, top = 0;
	uint32_t want;

	memset(s, 0, sizeof(*s));
	s->nodes = g->nodes;
	s->entries = g->entries;
	s->min_degree = UINT32_MAX;
	for (uint32_t v = 0; v < g->nodes; v++) {
		uint32_t d = graph_degree(g, v), b = 0;

		while ((uint64_t)d >> b) /* b = bits of d, 0..32 */
			b++;
		s->degree_buckets[b]++;
		s->min_degree = d < s->min_degree ? d : s->min_degree;
		s->max_degree = d > s->max_degree ? d : s->max_degree;
		s->isolated += d == 0;
		for (uint32_t k = g->row[v]; k < g->row[v + 1]; k++) {
			uint32_t span = g->col[k] > v ? g->col[k] - v : v - g->col[k];

			span_sum += span;
			near += span <= GRAPH_NEAR_SPAN;
			s->max_span = span > s->max_span ? span : s->max_span;
		}
	}
	s->mean_degree = (double)g->entries / g->nodes;
	if (g->entries) {
		s->mean_span = (double)span_sum / g->entries;
		s->near_fraction = (double)near / g->entries;
	}
	/* the top 1% (at least one node) by degree, from a count per degree */
	count = calloc((size_t)s->max_degree + 1, sizeof(*count));
	if (!count)
		return -CS_ENOMEM;
	graph_degree_hist(g, count, s->max_degree + 1);
	want = (g->nodes + 99) / 100;
	for (uint32_t d = s->max_degree + 1; d-- > 0 && want;) {
		uint64_t take = count[d] < want ? count[d] : want;

		top += take * d;
		want -= (uint32_t)take;
	}
	free(count);
	s->top1_share = g->entries ? (double)top / g->entries : 0;
	return count_components(g, s);
}

char *graph_stats_line(const struct graph_stats *s, char *buf, size_t len)
{
	snprintf(buf, len,
		 "nodes %u entries %u degree min %u mean %.3f max %u isolated %u top1%% %.3f "
		 "span mean %.1f max %u near %.3f components %u largest %u",
		 s->nodes, s->entries, s->min_degree, s->mean_degree, s->max_degree, s->isolated,
		 s->top1_share, s->mean_span, s->max_span, s->near_fraction, s->components,
		 s->largest_component);
	return buf;
}
