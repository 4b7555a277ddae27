/*
 * tlm/system/gpu.h - system "gpu": configuration sections it owns (gpu, coherence, workload).
 */
#ifndef COHSCOPE_TLM_SYSTEM_GPU_H
#define COHSCOPE_TLM_SYSTEM_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "util/params.h"

struct gpu_cfg {
	uint64_t sms;
	bool check;
	bool line_stats; /* count the lines requests touch, and those touched again */
};

struct gpu_coherence_cfg {
	char protocol[CS_PARAM_STR_MAX];
};

struct gpu_workload_cfg {
	unsigned size;	  /* enum gpu_size */
	unsigned check;	  /* 0: sample, 1: full */
	uint64_t samples; /* outputs a sampled check compares */
	bool corrupt;	  /* gh_corrupt flips its bit (tests of the checks) */
	/* the graph workloads (sssp, color, pagerank: workloads/pannotia.c) */
	unsigned graph;			   /* 0: the workload's own, else pannotia_graph_names */
	char graph_file[CS_PARAM_STR_MAX]; /* a Matrix Market or DIMACS .gr file, or "" */
	unsigned scenario;		   /* enum wsq_scenario */
	uint64_t chunk;			   /* nodes per task, 0: one per work-item */
	unsigned victim;		   /* enum wsq_victim */
	unsigned steal_probe;		   /* enum wsq_probe */
	unsigned queue_order;		   /* enum wsq_order */
};

extern const struct cs_param_table gpu_params;		 /* "gpu" */
extern const struct cs_param_table gpu_coherence_params; /* "coherence" */
extern const struct cs_param_table gpu_workload_params;	 /* "workload" */

struct gpu_host;
/* The workload section of a GPU host's run (per-workload parameters). */
const struct gpu_workload_cfg *gh_workload_cfg(const struct gpu_host *h);

#endif
