/* workloads/parboil/parboil.h - host programs of the Parboil (Stratton et al., 2012) ports (workloads/registry.c lists them). */
#ifndef COHSCOPE_WORKLOADS_PARBOIL_PARBOIL_H
#define COHSCOPE_WORKLOADS_PARBOIL_PARBOIL_H

#include "workloads/gpu_api.h"

int parboil_cp_main(struct gpu_host *h);
int parboil_lbm_main(struct gpu_host *h);
int parboil_mriq_main(struct gpu_host *h);
int parboil_sad_main(struct gpu_host *h);
int parboil_stencil_main(struct gpu_host *h);

#endif
