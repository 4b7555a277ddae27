/*
 * workloads/graph/graph.h - graph inputs for the graph workloads (Pannotia SSSP, color and
 * PageRank in seed 004's study): a CSR graph, seeded generators shaped like the study's nine
 * inputs, a Matrix Market and DIMACS .gr reader, and statistics (docs/graphs.md).
 *
 * The graph is undirected as Pannotia uses its inputs: every edge {u, v} is stored twice, as
 * u -> v in row u and v -> u in row v, with the same weight; no self loops, no duplicates, each
 * row sorted by column. The arrays are contiguous uint32 so a host program uploads them as they
 * are: row[nodes + 1] offsets into col[entries] (the neighbours) and weight[entries] (NULL when
 * the graph has none). "entries" is what a sparse-matrix collection calls nnz for a symmetric
 * pattern without its diagonal: twice the number of undirected edges.
 *
 * Everything is deterministic: the same seed gives the same graph bit for bit (splitmix64
 * streams, workloads/wl_util.h). Functions return 0 or a negative code (util/error.h); the
 * readers fill a struct cs_err with one line naming the file, the line and the problem.
 */
#ifndef COHSCOPE_WORKLOADS_GRAPH_GRAPH_H
#define COHSCOPE_WORKLOADS_GRAPH_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* ---- the CSR graph -------------------------------------------------------------------------- */

struct graph;

uint32_t graph_nodes(const struct graph *g);
uint32_t graph_entries(const struct graph *g);	     /* sum of the degrees: 2 x undirected edges */
const uint32_t *graph_row(const struct graph *g);    /* nodes + 1 offsets, row[0] = 0 */
const uint32_t *graph_col(const struct graph *g);    /* entries neighbours */
const uint32_t *graph_weight(const struct graph *g); /* entries weights, or NULL */
uint32_t graph_degree(const struct graph *g, uint32_t v);
void graph_free(struct graph *g);

/* Same nodes, rows, columns and weights (or both without weights). */
bool graph_equal(const struct graph *a, const struct graph *b);
/* A 64-bit hash of the whole graph, for reports and determinism checks. */
uint64_t graph_digest(const struct graph *g);

/* Replaces the weights by seeded ones uniform in [lo, hi] (1 <= lo <= hi), equal in both
 * directions of an edge: a hash of (seed, min(u, v), max(u, v)). Returns 0 or -CS_ENOMEM. */
int graph_set_weights(struct graph *g, uint64_t seed, uint32_t lo, uint32_t hi);

/* ---- building from an edge list ------------------------------------------------------------- */

/* A growable list of edges u - v with weight w; either direction, in any order, repeats and
 * self loops allowed (the build drops them). */
struct graph_edges {
	uint32_t *u, *v, *w;
	size_t n, cap;
};

/* Appends one edge. Returns 0 or -CS_ENOMEM. */
int graph_edges_add(struct graph_edges *e, uint32_t u, uint32_t v, uint32_t w);
void graph_edges_free(struct graph_edges *e);

/* What graph_build dropped: self loops, and repeated edges (an edge given in both directions
 * by a general matrix counts once here, as it is one edge). */
struct graph_build_info {
	uint64_t self_loops;
	uint64_t repeats;
};

/* Builds the symmetric CSR graph of the edges (endpoints < nodes): both directions, self loops
 * dropped, repeats merged keeping the smallest weight (a shortest path uses that one). With
 * weighted false the graph has no weights. info may be NULL. Returns 0, -CS_EINVAL (an
 * endpoint >= nodes), -CS_ERANGE (more than 2^32 - 1 entries) or -CS_ENOMEM. */
int graph_build(uint32_t nodes, const struct graph_edges *e, bool weighted, struct graph **out,
		struct graph_build_info *info, struct cs_err *err);

/* ---- statistics ----------------------------------------------------------------------------- */

#define GRAPH_DEGREE_BUCKETS 33 /* bucket 0: degree 0; bucket b >= 1: degrees [2^(b-1), 2^b) */
#define GRAPH_NEAR_SPAN	     64 /* |i - j| within which neighbour data shares a few lines */

struct graph_stats {
	uint32_t nodes, entries;
	uint32_t min_degree, max_degree, isolated;
	double mean_degree;
	double top1_share; /* share of the entries held by the 1% highest-degree nodes */
	uint64_t degree_buckets[GRAPH_DEGREE_BUCKETS];
	double mean_span;     /* mean |i - j| over the entries: locality of the ordering */
	uint32_t max_span;    /* the bandwidth */
	double near_fraction; /* share of the entries with |i - j| <= GRAPH_NEAR_SPAN */
	uint32_t components, largest_component;
};

/* Fills *s. Returns 0 or -CS_ENOMEM (the component count needs n words). */
int graph_stats(const struct graph *g, struct graph_stats *s);
/* hist[d] = nodes of degree d for d < len - 1; hist[len - 1] = nodes of degree >= len - 1. */
void graph_degree_hist(const struct graph *g, uint64_t *hist, uint32_t len);
/* One line "nodes N entries E degree min/mean/max ... " for reports; returns buf. */
char *graph_stats_line(const struct graph_stats *s, char *buf, size_t len);

/* ---- the study's inputs and their generators ------------------------------------------------ */

enum graph_shape {
	GRAPH_USA_ROAD_BAY,   /* road network, San Francisco Bay Area (DIMACS 9) */
	GRAPH_USA_ROAD_COL,   /* road network, Colorado (DIMACS 9) */
	GRAPH_C68,	      /* GHS_indef/c-68, nonlinear optimization (KKT) matrix */
	GRAPH_ECOLOGY1,	      /* McRae/ecology1, 1000 x 1000 5-point mesh */
	GRAPH_COAUTHORS_DBLP, /* DIMACS10/coAuthorsDBLP, co-authorship */
	GRAPH_DICTIONARY28,   /* Pajek/dictionary28, words one letter apart */
	GRAPH_OPF_10000,      /* IPSO/OPF_10000, optimal power flow matrix */
	GRAPH_SHAPES
};

/* Size tiers (workload.size, plus the original's size). */
enum graph_tier { GRAPH_TIER_TINY, GRAPH_TIER_SMALL, GRAPH_TIER_DEFAULT, GRAPH_TIER_FULL };

/* The original graph as Pannotia reads it (docs/graphs.md gives each number's source). */
struct graph_original {
	const char *name;  /* "usa-road-d.bay": what graph_shape_find takes */
	const char *title; /* "USA-road-d.BAY" */
	uint32_t nodes;	   /* rows */
	uint32_t entries;  /* CSR entries after symmetrizing and dropping the diagonal */
	const char *kind;  /* e.g. "road network" */
	bool distances;	   /* weights are Euclidean lengths (road); else seeded in [1, 1000] */
};

const struct graph_original *graph_original(enum graph_shape s);
/* Returns 0, or -CS_ENOENT with the list of names in err. */
int graph_shape_find(const char *name, enum graph_shape *s, struct cs_err *err);

/* Node count of a tier: tiny 2048, small 16384, default 65536, full the original's, each at
 * most the original's; ecology1's rounded to a square (graph_shape_nodes). 0 for no shape. */
uint32_t graph_tier_nodes(enum graph_shape s, enum graph_tier t);
/* The node count graph_generate makes for a request of `nodes` (ecology1: the nearest square;
 * the others: nodes itself). */
uint32_t graph_shape_nodes(enum graph_shape s, uint32_t nodes);
/* The entries graph_generate makes at that node count: the original's mean degree kept
 * (entries x nodes / original nodes, rounded to an even number), ecology1's exact 5-point count
 * 4 side (side - 1). 0 for no shape. */
uint32_t graph_shape_entries(enum graph_shape s, uint32_t nodes);

/* The smallest node count a generator accepts. */
#define GRAPH_MIN_NODES 64

/*
 * Generates a graph shaped like the original at `nodes` nodes (GRAPH_MIN_NODES up to the
 * original's count; graph_shape_nodes says what it makes of it) from the run seed: exactly
 * graph_shape_entries entries, the original's degree distribution and ordering as far as they
 * are known (docs/graphs.md: what each one matches and what it does not), with weights.
 * Returns 0, -CS_ERANGE (nodes out of range) or -CS_ENOMEM.
 */
int graph_generate(enum graph_shape s, uint32_t nodes, uint64_t seed, struct graph **out,
		   struct cs_err *err);

/* ---- files ---------------------------------------------------------------------------------- */

/*
 * Reads a Matrix Market file: "%%MatrixMarket matrix coordinate F S" with F real, integer or
 * pattern and S general or symmetric; a square matrix is a graph, symmetrized, its diagonal
 * dropped. Weights: |value| rounded and clamped to [1, 2^32 - 1] (none for pattern). Explicit
 * zeros are entries (weight 1), as Pannotia's readers keep them. Bad input is one message
 * "PATH:LINE: problem" and -CS_EINVAL (-CS_EIO: cannot read, -CS_EUNSUP: a Matrix Market
 * variant we do not read, -CS_ENOMEM). info may be NULL.
 */
int graph_read_mtx(const char *path, struct graph **out, struct graph_build_info *info,
		   struct cs_err *err);
/* Writes "coordinate integer symmetric" (pattern without weights), one line per edge, its
 * lower-triangle half; whole or not at all (a temporary file renamed). */
int graph_write_mtx(const struct graph *g, const char *path, struct cs_err *err);
/* Reads a DIMACS shortest-path file (.gr: "p sp N M", "a U V W" arcs, "c" comments), as the
 * road networks come; arcs are symmetrized like the Matrix Market entries. */
int graph_read_gr(const char *path, struct graph **out, struct graph_build_info *info,
		  struct cs_err *err);
/* graph_read_gr for a name ending in .gr, else graph_read_mtx. */
int graph_read(const char *path, struct graph **out, struct graph_build_info *info,
	       struct cs_err *err);

#endif
