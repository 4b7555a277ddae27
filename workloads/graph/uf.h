/* workloads/graph/uf.h - union-find over node ids (spanning trees, connected components),
 * internal to workloads/graph. */
#ifndef COHSCOPE_WORKLOADS_GRAPH_UF_H
#define COHSCOPE_WORKLOADS_GRAPH_UF_H

#include <stdint.h>

/* The root of v's set; halves the path on the way (parent[v] == v at a root). */
static inline uint32_t graph_uf_root(uint32_t *parent, uint32_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]];
		v = parent[v];
	}
	return v;
}

#endif
