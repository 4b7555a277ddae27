/*
 * tlm/coherence/apu/apu_gpu.c - the GPU side's message names, the `tcp` and `tcc` parameter
 * tables (docs/apu.md §6.4) and the registry of APU GPU sides.
 */
#include <stddef.h>
#include <string.h>

#include "tlm/coherence/apu/apu_gpu.h"

static const char *const write_names[] = {"through", "back", NULL};
static const char *const atomic_at_names[] = {"tcc", "dir", NULL};

#define TF(f) offsetof(struct apu_tcp_cfg, f)
static const struct cs_param tcp_rows[] = {
    {"size_kib", CS_P_UINT, TF(size_kib), "16", "KiB", "capacity per CU (seed 002 Table II)", 1,
     1 << 20, NULL},
    {"assoc", CS_P_UINT, TF(assoc), "16", "ways", "associativity (seed 002 Table II)", 1, 64, NULL},
    {"latency", CS_P_UINT, TF(latency), "4", "GPU cycles",
     "hit latency (seed 002 Table II; gem5 --TCP_latency 4)", 1, 10000, NULL},
    {"req_pipe_cycles", CS_P_UINT, TF(req_pipe_cycles), "50", "GPU cycles",
     "CU -> TCP pipeline on every global access (gem5 apu_se --mem-req-latency 50; inferred, "
     "docs/apu.md §10.2)",
     0, 10000, NULL},
    {"resp_pipe_cycles", CS_P_UINT, TF(resp_pipe_cycles), "50", "GPU cycles",
     "TCP -> CU pipeline on every answer (gem5 apu_se --mem-resp-latency 50; inferred)", 0, 10000,
     NULL},
    {"issue_cycles", CS_P_UINT, TF(issue_cycles), "1", "GPU cycles",
     "TCP -> TCC messages leave after (gem5 viper.py issue_latency 1)", 0, 10000, NULL},
    {"mshrs", CS_P_UINT, TF(mshrs), "256", "entries",
     "lines in IV or A at once (inferred: gem5's 2560 TBEs are effectively unbounded)", 1, 65536,
     NULL},
    {"mshr_merge", CS_P_UINT, TF(mshr_merge), "64", "accesses",
     "accesses one IV/A line holds (merged loads and parked accesses)", 1, 64, NULL},
    {"write", CS_P_ENUM, TF(write), "through", "",
     "through: write-through, write-evict (VIPER default); back: WB_L1, flushed at releases", 0, 0,
     write_names},
    {NULL},
};

const struct cs_param_table apu_tcp_params = {
    .section = "tcp",
    .help = "the APU GPU's per-CU L1 (VIPER TCP, docs/apu.md §3.2)",
    .params = tcp_rows,
    .size = sizeof(struct apu_tcp_cfg),
};

#define CF(f) offsetof(struct apu_tcc_cfg, f)
static const struct cs_param tcc_rows[] = {
    {"size_kib", CS_P_UINT, CF(size_kib), "256", "KiB", "capacity per slice (seed 002 Table II)", 1,
     1 << 20, NULL},
    {"assoc", CS_P_UINT, CF(assoc), "16", "ways", "associativity (seed 002 Table II)", 1, 64, NULL},
    {"latency", CS_P_UINT, CF(latency), "16", "GPU cycles",
     "TCC -> TCP answers leave after (gem5 --TCC_latency 16; Table II's 8 cy is the array)", 1,
     10000, NULL},
    {"dir_issue_cycles", CS_P_UINT, CF(dir_issue_cycles), "120", "GPU cycles",
     "TCC -> directory requests leave after (gem5 --gpu-to-dir-latency 120)", 0, 100000, NULL},
    {"ack_cycles", CS_P_UINT, CF(ack_cycles), "1", "GPU cycles",
     "probe acks and unblocks leave after (gem5 TCC enqueue latency 1)", 0, 10000, NULL},
    {"atomic_latency", CS_P_UINT, CF(atomic_latency), "1", "GPU cycles",
     "extra cycles of a GLC atomic at the TCC (gem5 --glc-atomic-latency 1)", 0, 10000, NULL},
    {"mshrs", CS_P_UINT, CF(mshrs), "256", "entries",
     "lines in IV or A at once (inferred: gem5's TBEs are effectively unbounded)", 1, 65536, NULL},
    {"mshr_merge", CS_P_UINT, CF(mshr_merge), "64", "requests",
     "requests one IV/A line holds (merged reads and parked requests)", 1, 64, NULL},
    {"write", CS_P_ENUM, CF(write), "through", "",
     "through: write-through (VIPER default); back: WB_L2, dirty lines flushed at system-scope "
     "releases",
     0, 0, write_names},
    {"glc_atomic_at", CS_P_ENUM, CF(glc_atomic_at), "tcc", "",
     "where GLC atomics are performed: tcc (seed 002 §II-C fn 2) or dir (gem5 after #367)", 0, 0,
     atomic_at_names},
    {"inv_on_sys_acquire", CS_P_BOOL, CF(inv_on_sys_acquire), "true", "",
     "system-scope acquires and kernel launches drop the TCC's V lines (inferred, "
     "docs/apu.md §5.2; false: gem5)",
     0, 0, NULL},
    {NULL},
};

const struct cs_param_table apu_tcc_params = {
    .section = "tcc",
    .help = "the APU GPU's L2 (VIPER TCC, docs/apu.md §3.3), per slice",
    .params = tcc_rows,
    .size = sizeof(struct apu_tcc_cfg),
};

static const struct cs_param_table *const viper_params[] = {&apu_tcp_params, &apu_tcc_params, NULL};

static const struct apu_gpu_protocol viper = {
    .gpu =
	{
	    .name = "viper",
	    .help = "AMD VIPER GPU side of an APU: write-through VI TCP and TCC, GLC atomics at "
		    "the TCC, SLC at the directory (seed 002)",
	    .msg_names = apu_msg_names,
	    .msg_traffic = apu_msg_traffic,
	    .n_msgs = APU_MSG_TYPES,
	    .l1 = &apu_tcp_ops,
	    .l2 = NULL,
	    .label = "VIPER",
	    .has_l1 = true,
	    /* a TCP line stays V until an acquire: unfenced loads may read stale data */
	    .coherent = false,
	    .params = NULL,
	},
    .tcc = &apu_tcc_ops_viper,
    .params = viper_params,
};

static const struct apu_gpu_protocol *const registry[] = {&viper, NULL};

const struct apu_gpu_protocol *const *apu_gpu_registry(void)
{
	return registry;
}

const struct apu_gpu_protocol *apu_gpu_find(const char *name)
{
	for (unsigned i = 0; registry[i]; i++)
		if (!strcmp(registry[i]->gpu.name, name))
			return registry[i];
	return NULL;
}
