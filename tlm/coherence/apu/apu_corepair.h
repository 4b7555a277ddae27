/*
 * tlm/coherence/apu/apu_corepair.h - the MOESI CorePair of seed 002's APU baseline
 * (docs/apu.md §3.1): two cores' L1Ds, a shared L1I and a shared L2 inclusive of the three L1s,
 * one controller.
 *
 * The L2 holds the coherence state (I, S, E, O, M and the transients I_ES, I_S, I_M, S_M, O_M of
 * a line in its frame; ES_I, MO_I, I_C of a victim, which lives in its TBE only; MO_S, the
 * victim an instruction fetch makes of an M/O line, keeps its frame for the RdBlkS that follows)
 * and the data; the L1s are latency filters (presence only: a load that finds its core's L1D
 * holds the line takes corepair.l1_hit_cycles, a fetch that finds the L1I holds it
 * corepair.l1i_hit_cycles, else corepair.l2_hit_cycles and the L1 is filled). Requests: RdBlk
 * (load miss), RdBlkS (instruction fetch: from I; from E, which is dropped silently; from M/O
 * after a VicDirty, MO_S), RdBlkM (store or locked RMW without E/M); silent E->M; a store drops
 * the other L1D's and the L1I's copy, so the L1I holds a line only in S; noisy evictions
 * (VicClean for S/E, VicDirty for O/M, then VicData or StaleNotif at the WBAck); probes are
 * answered in every state at once and invalidations clear every L1. Every message leaves
 * corepair.issue_cycles after its transition.
 *
 * Core side: struct cpu_mem_ops (tlm/coherence/cpu_port.h), one handle per core
 * (apu_cp_mem(cp, 0 or 1)); CPU_MEM_IFETCH goes to the L1I. Each core's accesses are performed
 * in the order it gave them, one at a time (so a load never passes an earlier load of its core:
 * TSO's load->load order holds without replays); up to corepair.queue accesses are accepted,
 * more are refused and retried. A load or fetch binds its value when it is performed (hit: at
 * once, done after the hit latency; miss: at the SysResp); a store or atomic is performed when
 * the L2 holds the line in E or M.
 *
 * Not modelled (docs/apu.md §3.1 rows left out): eviction notices to the core (not needed: loads
 * are in order); several misses of one core in flight at once (memory-level parallelism across
 * the two cores only).
 *
 * Statistics in G: l1_hits, l2_hits, misses, upgrades, rdblk, rdblkm, grants_e, grants_s,
 * silent_e_to_m, vic_clean, vic_dirty, vic_stale, probes.downgrade, probes.inv, probe_data,
 * l1i_hits, rdblks, ifetch_e_drops, ifetch_victims.
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_COREPAIR_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_COREPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic/energy.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/coherence/cpu_port.h"
#include "tlm/mem/cohcheck.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

struct apu_cp_cfg {
	uint64_t clock_mhz;
	uint64_t l1d_kib, l1d_assoc;
	uint64_t l1i_kib, l1i_assoc;
	uint64_t l2_kib, l2_assoc;
	uint64_t l1_hit_cycles, l1i_hit_cycles, l2_hit_cycles, issue_cycles;
	uint64_t tbes;
	uint64_t queue; /* accesses accepted per core */
};

extern const struct cs_param_table apu_cp_params; /* section "corepair" */
extern const struct cpu_mem_ops apu_cp_mem_ops;

struct apu_cp;

/* ep: this CorePair's endpoint; dir_ep: the directory's. 0, -CS_ECONFIG, -CS_EINVAL,
 * -CS_ENOMEM. */
int apu_cp_create(struct sim_kernel *k, const struct apu_cp_cfg *cfg, struct apu_msgs *msgs,
		  unsigned ep, unsigned dir_ep, struct cs_stat_group *stats, struct apu_cp **out,
		  struct cs_err *err);
/* The stats contract: its energy events and itself (docs/energy.md, "APU"). */
void apu_cp_energy(const struct apu_cp *cp, struct energy_counts *out);
void apu_cp_destroy(struct apu_cp *cp);
struct apu_port *apu_cp_port(struct apu_cp *cp);
/* Core c's memory side (c = 0 or 1); its ops are apu_cp_mem_ops (destroy is a no-op: the
 * CorePair owns both handles). */
struct cpu_mem *apu_cp_mem(struct apu_cp *cp, unsigned c);
/* Every store and atomic performed in the L2 is reported to c (per 4-byte word), in the order
 * they are performed: the coherence checker's write order. NULL turns it off. */
void apu_cp_set_check(struct apu_cp *cp, struct cohcheck *c);
/* The line's stable state ('I', 'S', 'E', 'O', 'M'; 'T' when transient) and, if held in a
 * stable state and data != NULL, its 64 B; *dirty (may be NULL) its dirty bit. */
char apu_cp_peek(const struct apu_cp *cp, uint64_t line, void *data, bool *dirty);
/* Which L1s hold the line (presence only: the data is the L2's): APU_CP_IN_D0, _IN_D1 (the
 * cores' L1Ds), _IN_I (the shared L1I). */
enum { APU_CP_IN_D0 = 1, APU_CP_IN_D1 = 2, APU_CP_IN_I = 4 };
unsigned apu_cp_peek_l1(const struct apu_cp *cp, uint64_t line);
/* Host copies while the CorePair is idle: len bytes at addr (within one line) written into
 * its L2 copy if it holds the line, state and dirty bit unchanged (the caller writes memory
 * too, so a clean copy stays equal to memory). The L1s hold no data of their own. */
void apu_cp_poke(struct apu_cp *cp, uint64_t addr, const void *buf, size_t len);
/* Nothing queued, in flight or owed. */
bool apu_cp_idle(const struct apu_cp *cp);

#endif
