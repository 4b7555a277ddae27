/*
 * tlm/system/cpu.h - system "cpu": the configuration section it owns (cpus) and what reports
 * ask of it. The generic system builder of issue 17 will absorb this system (a CPU cluster on
 * ideal memory ports or on the APU's CorePairs).
 */
#ifndef COHSCOPE_TLM_SYSTEM_CPU_H
#define COHSCOPE_TLM_SYSTEM_CPU_H

#include <stdint.h>

#include "util/params.h"

/* Section "cpus" (also read by `cohscope litmus --agents` to check a test fits). */
struct cpus_cfg {
	uint64_t cores;
	unsigned memory; /* 0 ideal, 1 apu */
};

extern const struct cs_param_table cs_cpus_params; /* "cpus" */

struct cs_system;
/* The name of the cores' memory side ("idealmem", "apu-corepair") of a built system cpu. */
const char *cpu_sys_memory_name(const struct cs_system *s);

#endif
