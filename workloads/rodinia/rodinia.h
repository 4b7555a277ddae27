/* workloads/rodinia/rodinia.h - host programs of the Rodinia (Che et al., IISWC 2009) ports (workloads/registry.c lists them). */
#ifndef COHSCOPE_WORKLOADS_RODINIA_RODINIA_H
#define COHSCOPE_WORKLOADS_RODINIA_RODINIA_H

#include "workloads/gpu_api.h"

int rodinia_bfs_rodinia_main(struct gpu_host *h);
int rodinia_btree_main(struct gpu_host *h);
int rodinia_mummer_main(struct gpu_host *h);
int rodinia_needle_main(struct gpu_host *h);
int rodinia_pathfinder_main(struct gpu_host *h);
int rodinia_srad_main(struct gpu_host *h);
int rodinia_heartwall_main(struct gpu_host *h);
int rodinia_leukocyte_main(struct gpu_host *h);
int rodinia_lud_main(struct gpu_host *h);
int rodinia_streamcluster_main(struct gpu_host *h);

#endif
