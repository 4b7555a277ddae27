/*
 * tlm/system/cpu.h - system "cpu": the configuration section it owns (cpus). The generic
 * system builder of issue 17 will absorb this system (a CPU cluster on ideal memory ports).
 */
#ifndef COHSCOPE_TLM_SYSTEM_CPU_H
#define COHSCOPE_TLM_SYSTEM_CPU_H

#include "util/params.h"

extern const struct cs_param_table cs_cpus_params; /* "cpus" */

#endif
