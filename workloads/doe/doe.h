/* workloads/doe/doe.h - host programs of the the US DOE proxy applications ports (workloads/registry.c lists them). */
#ifndef COHSCOPE_WORKLOADS_DOE_DOE_H
#define COHSCOPE_WORKLOADS_DOE_DOE_H

#include "workloads/gpu_api.h"

int doe_cns_main(struct gpu_host *h);
int doe_comd_main(struct gpu_host *h);
int doe_minife_main(struct gpu_host *h);
int doe_xsbench_main(struct gpu_host *h);

#endif
