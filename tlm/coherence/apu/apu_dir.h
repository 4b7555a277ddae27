/*
 * tlm/coherence/apu/apu_dir.h - the stateless system directory of seed 002's APU baseline,
 * with the victim LLC inside it (docs/apu.md §3.4, §3.5, §4).
 *
 * A line has state only while a transaction is open (a TBE); every other line is U. A request
 * to a line in U opens a transaction: the LLC is looked up at once (a hit gives the data after
 * llc.hit_cycles and removes the line; a miss reads DRAM), and probes go to the CorePairs (and
 * the home TCC slice for invalidations other than WT, Atomic, Flush) by the rules of §7. The
 * response leaves dir.response_cycles after the data and the last ack are both in; the line
 * stays blocked (B) until the requester's Unblock (CorePair and TCC reads), the directory's own
 * SelfUnblock (WT, Atomic, Flush) or the response (DMA). Victims go U -> BL (WBAck) -> U
 * (VicData: DRAM and LLC written; StaleNotif: nothing). Requests to a line that is not in U
 * are parked and woken in arrival order. The LLC is allocated only by victims (and by WT,
 * Atomic, Flush with llc.use_on_wt); every LLC write also writes DRAM.
 *
 * Seed 002's enhancements are switches (docs/apu.md §3.5, §3.5a): dir.clean_victims (B, B.1),
 * llc.write_back (C), dir.early_response (A: a read answered at the first dirty probe ack) and
 * dir.tracking: owner or sharers keeps states I, S, O per line in a tags-only directory cache
 * (dir.entries, dir.entry_assoc, tree-PLRU) inclusive of the caches, so that reads in I and S
 * probe nobody, reads in O probe the owner, writes invalidate every cache or only the holders;
 * a full set back-invalidates its PLRU entry's holders first.
 *
 * Events that the tables of §3.4 and §3.5a do not list fail the kernel with -CS_EPROTO and a
 * message naming the line, the state, the event and the sender.
 *
 * DRAM: one TLM initiator socket per channel (apu_dir_dram_port), bound to the channel's
 * controller (tlm/dram); the channel of a line is addrmap_channel(map, line). Requests are
 * sent dir.mem_issue_cycles after the transition, in order per channel, so a read sees every
 * write the directory sent before it. MemWr acks are dropped.
 *
 * Statistics in the group given (G), registered once (docs/apu.md §7.1):
 *   G.txn.<type>                transactions started, per request type
 *   G.probes.downgrade, G.probes.inv, G.probes.<type>   probes sent, by kind and transaction
 *   G.probe_acks, G.probe_acks_data
 *   G.parked, G.parked_wait (average, ns)
 *   G.vic_clean, G.vic_dirty, G.vic_stale
 *   G.llc_hits, G.llc_misses, G.llc_writes.{victim,wt,atomic,flush}, G.llc_evictions
 *   G.dram.reads, G.dram.writes.{victim,wt,atomic,flush,dma,llc_evict,read_writeback,backinv}
 *   G.probes.backinv, G.early_responses; with tracking G.pf.found.{I,S,O}, G.pf.evictions,
 *   G.pf.stalls, G.llc_writes.backinv
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_DIR_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_DIR_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic/energy.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/apu/apu_port.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/addrmap.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

struct apu_dir_cfg {
	uint64_t clock_mhz;	  /* uncore clock */
	uint64_t response_cycles; /* probes and responses leave after */
	uint64_t wback_cycles;	  /* WBAck to a victim or a WT leaves after */
	uint64_t tbes;
	uint64_t transitions_per_cycle;
	uint64_t mem_issue_cycles;
	uint64_t in_depth; /* messages per input queue of the network port */
	bool read_writeback;
	unsigned clean_victims;	  /* enum apu_clean_victims */
	unsigned tracking;	  /* enum apu_dir_tracking */
	uint64_t sharer_pointers; /* sharer list: 0 = full map, else a limited-pointer list */
	uint64_t entries;	  /* directory cache entries (tracking) */
	uint64_t entry_assoc;
	uint64_t entry_cycles; /* directory cache access before probes leave (tracking) */
	bool early_response;   /* seed 002 enhancement A */
	bool tcc_inv_always;   /* tracking: invalidations always reach the home TCC (gem5) */
};

/* What the directory knows of the lines the caches hold (seed 002 §IV): nothing (the
 * baseline, every request broadcasts), an owner per line (states I, S, O in a directory cache
 * inclusive of the caches), or the owner and a sharer list. */
enum apu_dir_tracking { APU_TRACK_NONE = 0, APU_TRACK_OWNER, APU_TRACK_SHARERS };

/* Where a clean victim (VicClean's data) goes: seed 002's baseline writes it to memory and the
 * LLC; enhancement B keeps it out of memory (the LLC only: memory holds the same bytes); B.1
 * keeps it out of the LLC too, so only dirty victims are cached (seed 002 §III-B, Fig. 4). */
enum apu_clean_victims { APU_CLEAN_VIC_MEMORY = 0, APU_CLEAN_VIC_LLC, APU_CLEAN_VIC_NONE };

struct apu_llc_cfg {
	uint64_t size_kib;
	uint64_t assoc;
	uint64_t hit_cycles;
	bool evict_write;
	bool use_on_wt;
	bool
	    write_back; /* seed 002 enhancement C: a dirty bit per line, victims stay out of DRAM */
};

/* Enhancement C without useL3OnWT: a GPU write-through or SLC atomic would write DRAM under a
 * dirty LLC copy that a later eviction writes back over it (seed 002 §III-C). */
#define APU_LLC_WB_NEEDS_WT                                                                    \
	"llc.write_back = true needs llc.use_on_wt = true: a GPU write-through or SLC atomic " \
	"would go to DRAM under a dirty LLC copy that a later eviction writes back over it"

extern const struct cs_param_table apu_dir_params; /* section "dir" */
extern const struct cs_param_table apu_llc_params; /* section "llc" */

/* The causes of the directory's writes, NULL-terminated: the statistics G.dram.writes.CAUSE
 * (every cause but dirty_kept, which only the LLC sees) and G.llc_writes.CAUSE. */
extern const char *const apu_dir_write_causes[];

/* The caches one directory probes, CorePairs and TCC slices together (its probe masks are 64
 * bits wide). */
#define APU_DIR_MAX_PROBED 64

/* Who the directory talks to: endpoint ids on the network. */
struct apu_dir_nodes {
	unsigned ep;	     /* the directory */
	unsigned n_cp;	     /* CorePairs (P) */
	const unsigned *cp;  /* their endpoints */
	unsigned n_tcc;	     /* TCC slices (T); the home slice of a line is (line >> 6) % T */
	const unsigned *tcc; /* their endpoints (may be NULL when T = 0) */
};

struct apu_dir;

/* cfgs and nodes are copied; msgs, map and stats must outlive the directory. n_chan DRAM
 * channels (>= 1). 0, -CS_ECONFIG (message names the key), -CS_EINVAL, -CS_ENOMEM. */
int apu_dir_create(struct sim_kernel *k, const struct apu_dir_cfg *cfg,
		   const struct apu_llc_cfg *llc, const struct apu_dir_nodes *nodes,
		   struct apu_msgs *msgs, const struct addr_map *map, unsigned n_chan,
		   struct cs_stat_group *stats, struct apu_dir **out, struct cs_err *err);
/* The stats contract: its energy events, the LLC's, and both (docs/energy.md, "APU"). */
void apu_dir_energy(const struct apu_dir *d, struct energy_counts *out);
void apu_dir_destroy(struct apu_dir *d);

struct apu_port *apu_dir_port(struct apu_dir *d);
struct tlm_initiator_socket *apu_dir_dram_port(struct apu_dir *d, unsigned ch);

/* Open transactions (TBEs in use), requests parked, DRAM requests not yet answered. */
unsigned apu_dir_busy(const struct apu_dir *d);
/* Transactions started (every face), and the ps one start takes its pipeline (a clock period
 * over dir.transitions_per_cycle): its events for same-event pairs. */
uint64_t apu_dir_served(const struct apu_dir *d);
double apu_dir_served_ps(const struct apu_dir *d);
/* WT, Atomic, Flush and DMAWr are performed here: each reports the 4-byte words it writes to c
 * (the coherence checker's write order) when it completes. NULL turns it off. */
struct cohcheck;
void apu_dir_set_check(struct apu_dir *d, struct cohcheck *c);
/* Host copies while nothing runs: len bytes at addr (within one line) written into the LLC's
 * copy if it holds the line (memory is written by the caller: the LLC is write-through). */
void apu_dir_llc_poke(struct apu_dir *d, uint64_t addr, const void *buf, size_t len);
/* True if the LLC holds the line (tests); if so and data != NULL, copies its 64 B. */
bool apu_dir_llc_peek(const struct apu_dir *d, uint64_t line, void *data);

#endif
