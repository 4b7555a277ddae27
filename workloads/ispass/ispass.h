/* workloads/ispass/ispass.h - host programs of the the ISPASS-2009 set (Bakhoda et al., ISPASS 2009) ports (workloads/registry.c lists them). */
#ifndef COHSCOPE_WORKLOADS_ISPASS_ISPASS_H
#define COHSCOPE_WORKLOADS_ISPASS_ISPASS_H

#include "workloads/gpu_api.h"

int ispass_lib_main(struct gpu_host *h);
int ispass_nn_main(struct gpu_host *h);
int ispass_wp_main(struct gpu_host *h);

#endif
