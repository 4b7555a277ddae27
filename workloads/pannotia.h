/*
 * workloads/pannotia.h - seed 004's Pannotia graph applications (Che et al., IISWC 2013: SSSP,
 * graph coloring, PageRank) on per-CTA work-stealing task queues (workloads/wsq.h), as Alsop et
 * al. ("Lazy release consistency for GPUs", MICRO 2016) run them. docs/workloads.md.
 */
#ifndef COHSCOPE_WORKLOADS_PANNOTIA_H
#define COHSCOPE_WORKLOADS_PANNOTIA_H

#include "workloads/gpu_api.h"
#include "workloads/graph/graph.h"

/* workload.graph's values: "auto", then the shapes of workloads/graph in enum graph_shape order
 * (NULL-terminated). */
extern const char *const pannotia_graph_names[];
/* workload.size's graph tier: tiny, small, default, and full (the original's node count). */
enum graph_tier pannotia_graph_tier(enum gpu_size size);

int pannotia_sssp_main(struct gpu_host *h);
int pannotia_color_main(struct gpu_host *h);
int pannotia_pagerank_main(struct gpu_host *h);

#endif
