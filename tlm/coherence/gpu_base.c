/*
 * tlm/coherence/gpu_base.c - what the base GPU controllers share: message names, the l1 and
 * l2 parameter tables, byte-mask helpers.
 */
#include <stddef.h>
#include <string.h>

#include "tlm/coherence/gpu_base.h"
#include "tlm/mem/cache.h"
#include "tlm/mem/cohcheck.h"

const char *const gpu_base_msg_names[] = {GPU_BASE_MSG_NAMES};
const unsigned char gpu_base_msg_traffic[GPU_MSG_BASE_COUNT] = {GPU_BASE_MSG_TRAFFIC};

static const char *const repl_names[] = {"lru", "plru", "fifo", NULL};
static const char *const write_names[] = {"through", "back", "evict", NULL};

#define L1F(f) offsetof(struct gpu_l1_cfg, f)
static const struct cs_param l1_rows[] = {
    {"size_kib", CS_P_UINT, L1F(size_kib), "16", "KiB", "capacity per SM (Table 3.3: 16 KB)", 1,
     1 << 20, NULL},
    {"assoc", CS_P_UINT, L1F(assoc), "4", "ways", "associativity (Table 3.3: 4-way)", 1, 64, NULL},
    {"line_bytes", CS_P_UINT, L1F(line_bytes), "128", "B", "line size (128 B on every GPU here)",
     32, 128, NULL},
    {"sector_bytes", CS_P_UINT, L1F(sector_bytes), "0", "B",
     "sector size for sectored fills (0: whole lines; 32 for Volta-like sectors)", 0, 128, NULL},
    {"repl", CS_P_ENUM, L1F(repl), "lru", "", "replacement: lru, plru (tree) or fifo", 0, 0,
     repl_names},
    {"write", CS_P_ENUM, L1F(write), "through", "",
     "through: write-through, no-write-allocate, a store updates a present line; back: "
     "write-back, write-allocate; evict: write-through, no-write-allocate, a store drops a "
     "present line (GPGPU-Sim's Fermi L1 for global data, wr_hit_global_we_local_wb); the "
     "non-coherent and none L1s (G-TSC and TC keep their own policy, the scoped family is "
     "write-through)",
     0, 0, write_names},
    {"latency", CS_P_UINT, L1F(latency), "35", "core cycles",
     "hit latency (GPGPU-Sim GTX480 -gpgpu_l1_latency 35; the papers do not say)", 1, 1000, NULL},
    {"mshrs", CS_P_UINT, L1F(mshrs), "32", "entries", "MSHR entries (Table 3.3: 32)", 1, 4096,
     NULL},
    {"mshr_merge", CS_P_UINT, L1F(mshr_merge), "8", "accesses",
     "accesses one MSHR entry holds (GPGPU-Sim GTX480: 8)", 1, 64, NULL},
    {"miss_queue", CS_P_UINT, L1F(miss_queue), "8", "messages",
     "messages waiting for the NoC (GPGPU-Sim GTX480 miss queue: 8)", 1, 4096, NULL},
    {"fence_invalidate", CS_P_BOOL, L1F(fence_invalidate), "false", "",
     "noncoherent: an acquire fence of device or system scope invalidates the L1 (software-"
     "managed coherence, as HSA GPUs do); the papers' W/L1 does not",
     0, 0, NULL},
    {NULL},
};

const struct cs_param_table gpu_l1_params = {
    .section = "l1",
    .help = "the L1 data cache of each SM (used by protocols with an L1)",
    .params = l1_rows,
    .size = sizeof(struct gpu_l1_cfg),
};

#define L2F(f) offsetof(struct gpu_l2_cfg, f)
static const struct cs_param l2_rows[] = {
    {"banks", CS_P_UINT, L2F(banks), "8", "", "L2 banks, one per memory partition (Table 3.3: 8)",
     1, 256, NULL},
    {"banks_per_channel", CS_P_UINT, L2F(banks_per_channel), "1", "",
     "banks sharing one DRAM channel (GPGPU-Sim sub-partitions: 2 on the GTX480)", 1, 16, NULL},
    {"size_kib", CS_P_UINT, L2F(size_kib), "128", "KiB", "capacity per bank (Table 3.3: 128 KB)", 1,
     1 << 20, NULL},
    {"assoc", CS_P_UINT, L2F(assoc), "8", "ways", "associativity (Table 3.3: 8-way)", 1, 64, NULL},
    {"line_bytes", CS_P_UINT, L2F(line_bytes), "128", "B", "line size", 32, 128, NULL},
    {"sector_bytes", CS_P_UINT, L2F(sector_bytes), "0", "B",
     "sector size (0: whole lines; GPGPU-Sim's sectored L2 uses 32)", 0, 128, NULL},
    {"repl", CS_P_ENUM, L2F(repl), "lru", "", "replacement: lru, plru (tree) or fifo", 0, 0,
     repl_names},
    {"clock_mhz", CS_P_UINT, L2F(clock_mhz), "700", "MHz", "L2 clock (Table 3.3: 700 MHz)", 1,
     100000, NULL},
    {"latency", CS_P_UINT, L2F(latency), "120", "L2 cycles",
     "from the head of the input queue to the tag result, pipelined (GPGPU-Sim "
     "-gpgpu_l2_rop_latency 120; the papers do not say)",
     1, 10000, NULL},
    {"atomic_latency", CS_P_UINT, L2F(atomic_latency), "4", "L2 cycles",
     "extra cycles to perform an atomic at the bank (estimate: the ALU beside the bank)", 0, 10000,
     NULL},
    {"mshrs", CS_P_UINT, L2F(mshrs), "32", "entries", "MSHR entries per bank (Table 3.3: 32)", 1,
     4096, NULL},
    {"mshr_merge", CS_P_UINT, L2F(mshr_merge), "8", "requests",
     "requests one MSHR entry holds (GPGPU-Sim GTX480: 4; 8 here so that 16 SMs can share)", 1, 64,
     NULL},
    {"input_queue", CS_P_UINT, L2F(input_queue), "8", "requests",
     "requests waiting to enter the pipeline (GPGPU-Sim icnt->L2 queue: 8)", 1, 4096, NULL},
    {"response_queue", CS_P_UINT, L2F(response_queue), "8", "messages",
     "answers waiting for the NoC (GPGPU-Sim L2->icnt queue: 8)", 1, 4096, NULL},
    {"dram_queue", CS_P_UINT, L2F(dram_queue), "8", "requests",
     "requests waiting for the DRAM controller to accept them (GPGPU-Sim L2->DRAM: 8)", 1, 4096,
     NULL},
    {"interleave", CS_P_UINT, L2F(interleave), "256", "B",
     "address interleave between banks (GPGPU-Sim dramid@8: 256 B)", 128, 1 << 20, NULL},
    {NULL},
};

const struct cs_param_table gpu_l2_params = {
    .section = "l2",
    .help = "the banked L2: one bank per address slice, its own clock",
    .params = l2_rows,
    .size = sizeof(struct gpu_l2_cfg),
};

uint8_t gpu_all_sectors(unsigned line_bytes, unsigned sector_bytes)
{
	if (!sector_bytes)
		return CACHE_ALL_SECTORS;
	return (uint8_t)((1u << (line_bytes / sector_bytes)) - 1);
}

uint8_t gpu_mask_full_sectors(const uint64_t m[2], unsigned line_bytes, unsigned sector_bytes)
{
	unsigned sb = sector_bytes ? sector_bytes : line_bytes;
	uint8_t full = 0;

	for (unsigned s = 0; s < line_bytes / sb; s++) {
		bool all = true;

		for (unsigned i = s * sb; i < (s + 1) * sb && all; i++)
			all = gpu_mask_byte(m, i);
		if (all)
			full |= (uint8_t)(1u << s);
	}
	if (!sector_bytes)
		return full ? CACHE_ALL_SECTORS : 0;
	return full;
}

void gpu_check_written(struct cohcheck *chk, uint64_t addr, const uint8_t *data,
		       const uint64_t m[2], unsigned line_bytes)
{
	for (unsigned w = 0; w < line_bytes / 4; w++) {
		uint32_t v;

		if (!gpu_mask_byte(m, w * 4))
			continue;
		memcpy(&v, data + w * 4, 4);
		cohcheck_write(chk, addr + w * 4, 4, v);
	}
}
