/*
 * tlm/coherence/gpu_proto.h - what a GPU coherence protocol provides, and the protocol registry.
 *
 * A protocol is a registered object: its name, its message types (the NoC counts traffic by
 * them), and the controllers it provides: the L1 of every SM and the L2 banks. Controllers are
 * opaque behind ops tables; the SM talks to its L1 through gpu_l1_ops, the L1 to the NoC and the
 * L2 to the NoC and DRAM through TLM sockets. Nothing outside tlm/coherence/ looks at a
 * protocol's name or its states.
 *
 * The SM hands its L1 one coalesced access at a time (struct gpu_access) and is told when it is
 * performed: a load when its data is back, a store when the L2 has acknowledged it (or, in a
 * write-back L1, when the L1 holds it), an atomic when the L2 has applied it.
 */
#ifndef COHSCOPE_TLM_COHERENCE_GPU_PROTO_H
#define COHSCOPE_TLM_COHERENCE_GPU_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic/energy.h"
#include "analytic/ltmodel.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/time.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/addrmap.h"
#include "tlm/mem/cohcheck.h"
#include "tlm/mem/msg.h"
#include "tlm/mem/store.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

/* ---- configuration shared by the GPU controllers -------------------------------------------- */

enum gpu_l1_write { GPU_L1_WRITE_THROUGH = 0, GPU_L1_WRITE_BACK, GPU_L1_WRITE_EVICT };

/* The SMs' memory model (core.consistency). */
enum gpu_consistency { GPU_SC = 0, GPU_RC };

struct gpu_l1_cfg {
	uint64_t size_kib;
	uint64_t assoc;
	uint64_t line_bytes;
	uint64_t sector_bytes; /* 0: whole lines */
	unsigned repl;	       /* enum cache_repl */
	unsigned write;	       /* enum gpu_l1_write */
	uint64_t latency;      /* hit latency, core cycles */
	uint64_t mshrs;
	uint64_t mshr_merge;   /* accesses one MSHR entry holds */
	uint64_t miss_queue;   /* messages waiting for the NoC */
	bool fence_invalidate; /* noncoherent: acquire fences invalidate the L1 */
};

struct gpu_l2_cfg {
	uint64_t banks;
	uint64_t banks_per_channel;
	uint64_t size_kib; /* per bank */
	uint64_t assoc;
	uint64_t line_bytes;
	uint64_t sector_bytes;
	unsigned repl;
	uint64_t clock_mhz;
	uint64_t latency;	 /* L2 cycles from the head of the input queue to the tag result */
	uint64_t atomic_latency; /* extra L2 cycles to perform an atomic */
	uint64_t mshrs;
	uint64_t mshr_merge;
	uint64_t input_queue;	 /* requests waiting to enter the pipeline */
	uint64_t response_queue; /* responses waiting for the NoC */
	uint64_t dram_queue;	 /* DRAM requests waiting to be accepted */
	uint64_t interleave;	 /* bytes per bank before the next (power of two, >= line) */
};

extern const struct cs_param_table gpu_l1_params; /* section "l1" */
extern const struct cs_param_table gpu_l2_params; /* section "l2" */

/* The time of the access the LT face is performing (the warp's own time, ahead of the
 * kernel's under temporal decoupling); controllers read it through gpu_now(). */
struct l1_port;
struct noc;
struct gpu_lt_clock {
	bool on;
	sim_time_t t;
	/* A kernel's end in LT: the L1s' flushes queue their write-backs here (defer) and
	 * l1_port_lt_drain() performs them one message per L1 in turn, as the detailed face's
	 * L1s inject theirs side by side, each reaching its bank after its unloaded NoC latency;
	 * one L1 after another would reorder them at the L2. */
	bool defer;
	const struct noc *noc;
	unsigned ndeferred;
	struct l1_port **deferred; /* one slot per SM */
};

/* Ends the deferral: performs every deferred L1's queued messages, the one that would reach
 * its bank first next, each L1 injecting one message after another (gpu_l1_port.c). */
void l1_port_lt_drain(struct gpu_lt_clock *c);

/* What every controller of one GPU shares. */
struct gpu_ctx {
	struct sim_kernel *k;
	struct tlm_pool *pool; /* of struct mem_msg */
	struct mem_store *store;
	struct addr_map map;
	struct sim_clock core_clk;
	struct sim_clock l2_clk;
	const struct gpu_l1_cfg *l1;
	const struct gpu_l2_cfg *l2;
	unsigned sms;
	unsigned warps;	       /* warp slots per SM (per-warp protocol state: warp_ts, GWCT) */
	unsigned consistency;  /* enum gpu_consistency of the SMs */
	const void *proto_cfg; /* the protocol's own section (gpu_protocol.params), or NULL */
	struct gpu_l2 *const *l2_banks; /* every bank (a G-TSC timestamp reset reaches them all) */
	/* every SM's L1 (the registration protocols' host copies read a registered line from its
	 * owner), or NULL */
	struct gpu_l1 *const *l1s;
	struct cohcheck *chk;	    /* NULL unless gpu.check: controllers report performed writes */
	const struct lt_params *lt; /* the LT face's contention model (analytic/ltmodel.h) */
	struct gpu_lt_clock *lt_clock;
	bool ff_warm; /* the FF face warms the L2 banks (sampling.warm, gpu_l2_ops.warm) */
	/* an FF warp's time is its work, not a cycle per op: in an FF fill between units (a
	 * unit after it meets the warps spread over the kernel's phases as their work has them;
	 * set by the sampler, samp_system_ops.ff_timing) */
	bool ff_work_time;
};

/* "Now" for a controller: the kernel's time, or in the LT face the access's. */
static inline sim_time_t gpu_now(const struct gpu_ctx *c)
{
	return c->lt_clock && c->lt_clock->on ? c->lt_clock->t : sim_now(c->k);
}

/* ---- SM <-> L1 ------------------------------------------------------------------------------ */

enum gpu_access_kind { GPU_ACC_LD = 0, GPU_ACC_ST, GPU_ACC_ATOM };

struct gpu_access {
	uint8_t kind;	     /* enum gpu_access_kind */
	uint8_t sector_mask; /* sectors touched */
	uint8_t scope;	     /* enum mem_scope */
	uint8_t order;	     /* enum mem_order */
	uint8_t cop;	     /* loads and stores: enum mem_cache_op (.cg, .cv bypass the L1) */
	uint8_t space;	     /* enum mem_space */
	uint16_t warp;	     /* warp slot in the SM */
	uint32_t id;	     /* the SM's request record, given back in done() */
	uint64_t line_addr;
	uint64_t byte_mask[2]; /* bytes of the line touched */
	uint8_t *data; /* ST: the bytes at their line offsets; ATOM: struct mem_atom_lanes */
};

/* How an L1 answers its SM. */
struct gpu_l1_client {
	void *sm;
	/* The access with this id is performed; for loads `line` holds the line's bytes (valid at
	 * least where the access's byte mask is set), NULL otherwise. */
	void (*done)(void *sm, uint32_t id, const uint8_t *line);
	/* An access that was refused can now be offered again. */
	void (*retry)(void *sm);
	/* A fence that returned GPU_FENCE_PENDING is over for warp slot `warp` (an L1 whose
	 * release must flush first, e.g. the APU's write-back TCP). */
	void (*fence_done)(void *sm, unsigned warp);
};

/* gpu_l1_ops.fence: the warp waits until the L1 calls gpu_l1_client.fence_done. */
#define GPU_FENCE_PENDING SIM_TIME_MAX

struct gpu_l1;
struct gpu_l2;
struct fab_proto;
struct fab_std_group;

/* FF's write of len bytes at addr to memory (the L2's functional view). */
typedef void gpu_ff_write_fn(void *arg, uint64_t addr, const void *buf, size_t len);

struct gpu_l1_ops {
	int (*create)(const struct gpu_ctx *ctx, unsigned sm, const struct gpu_l1_client *client,
		      struct cs_stat_group *stats, struct gpu_l1 **out, struct cs_err *err);
	void (*destroy)(struct gpu_l1 *l1);
	struct tlm_initiator_socket *(*noc_port)(struct gpu_l1 *l1);
	/* On a one-way network (noc_net_create): the target socket the network delivers into
	 * (bind noc_deliver_port to it); noc_port then binds to noc_inject_port. NULL for the L1s
	 * of the GPU's request/response NoC, whose answers come back on noc_port. */
	struct tlm_target_socket *(*deliver_port)(struct gpu_l1 *l1);
	/* Takes the access (true; done() follows) or refuses it (false; retry() follows). One
	 * access per core cycle. */
	bool (*access)(struct gpu_l1 *l1, const struct gpu_access *a);
	/* Kernel boundaries: invalidate (begin), write back what must reach L2 (end). cb runs
	 * once the L1 is ready (at once when nothing is to be done). */
	void (*kernel_begin)(struct gpu_l1 *l1);
	void (*kernel_end)(struct gpu_l1 *l1, void (*cb)(void *arg), void *arg);
	/* A fence of warp `warp` once every earlier access of the warp is performed (an explicit
	 * fence, a barrier, a release atomic, and under SC every store and atomic). Returns the
	 * time until which the warp must still wait (<= now: none): TC-Weak's GWCT. May act on
	 * the L1 (an acquire invalidates a non-coherent L1). GPU_FENCE_PENDING: the warp waits
	 * for client.fence_done (a release that must flush first). NULL: nothing to do. */
	sim_time_t (*fence)(struct gpu_l1 *l1, unsigned warp, uint8_t order, uint8_t scope);
	/* A CTA barrier releases the n warps (slots) of a CTA, after each one's fence: protocols
	 * with per-warp logical time join it there (G-TSC: every warp goes on at the largest
	 * warp_ts of the CTA, so what one warp has seen, the others see too). NULL: nothing. */
	void (*barrier)(struct gpu_l1 *l1, const unsigned *warps, unsigned n);
	/* The LT face. set_lt switches the L1 between its faces (only when idle). lt_access
	 * performs a at time t at once, by b_transport down the hierarchy: a hit's done() is
	 * called before it returns; the answers to the messages it sent are back at known times
	 * and handled (fills, done()) when lt_advance reaches them, so that accesses of other
	 * warps in between find the miss in flight (they merge, and victims go when the fill
	 * comes, as in the detailed face). Returns the latest time a hit is answered or a
	 * message is back (>= t), or SIM_TIME_MAX when the L1 refused the access (MSHRs or an
	 * entry's merge slots full): the caller tries again once the next answer is handled.
	 * lt_advance handles the answers back by t and returns when the next one is back
	 * (SIM_TIME_MAX: none). */
	void (*set_lt)(struct gpu_l1 *l1, bool on);
	sim_time_t (*lt_access)(struct gpu_l1 *l1, const struct gpu_access *a, sim_time_t t,
				bool last);
	sim_time_t (*lt_advance)(struct gpu_l1 *l1, sim_time_t t);
	/* Tests and debugging: the protocol state of addr's line (G-TSC: wts, rts; TC: lease end,
	 * GWCT of the line) and of the warp (G-TSC: warp_ts; TC-Weak: GWCT). false when the
	 * line is not present. NULL: no such state. */
	bool (*probe)(const struct gpu_l1 *l1, uint64_t addr, unsigned warp, uint64_t out[3]);
	/* The hybrid's fill turns to the FF face inside a kernel: with nothing in flight, the
	 * bytes only this L1 holds go to memory through write() and every line is dropped, with
	 * no message and no time, so that FF's accesses (at the L2) and the detailed face after
	 * them see the same values. Not a launch: epochs and warp state stay. NULL: the L1 holds
	 * copies the L2 has handed it (registrations) and the fill stays LT. */
	void (*ff_flush)(struct gpu_l1 *l1, gpu_ff_write_fn *write, void *arg);
	/* Nothing in flight. */
	bool (*idle)(const struct gpu_l1 *l1);
	uint64_t (*digest)(const struct gpu_l1 *l1);
	/* The stats contract (analytic/energy.h): adds the L1's energy events so far (tag and
	 * data array accesses, MSHR, timestamps) to out, from its own counters. Required: a
	 * protocol whose L1 has none is refused when the system is built (gpu_protocol_check). */
	void (*energy)(const struct gpu_l1 *l1, struct energy_counts *out);
};

struct gpu_l2_ops {
	int (*create)(const struct gpu_ctx *ctx, unsigned bank, struct cs_stat_group *stats,
		      struct gpu_l2 **out, struct cs_err *err);
	void (*destroy)(struct gpu_l2 *l2);
	struct tlm_target_socket *(*noc_port)(struct gpu_l2 *l2);
	struct tlm_initiator_socket *(*dram_port)(struct gpu_l2 *l2);
	/* Host copies (cudaMemcpy): read through the bank's copy if it has one; write both. */
	void (*functional_read)(struct gpu_l2 *l2, uint64_t addr, void *buf, size_t len);
	int (*functional_write)(struct gpu_l2 *l2, uint64_t addr, const void *buf, size_t len);
	/* Functional warming (the FF face): an access of the bytes `mask` of the bank's line at
	 * `line` (writes: it changes memory) leaves the tags, replacement order and valid and
	 * dirty sectors as the access would, with no message and no time; values are not
	 * changed (FF writes them by functional_write). NULL: the bank is not warmed (the scoped
	 * family's homes: a victim's registration cannot be recalled without messages). */
	void (*warm)(struct gpu_l2 *l2, uint64_t line, const uint64_t mask[2], bool writes);
	/* Tests and debugging: the protocol state of addr's line (out[0], out[1]) and of the bank
	 * (out[2]: G-TSC mem_ts); false when the line is not present. */
	bool (*probe)(const struct gpu_l2 *l2, uint64_t addr, uint64_t out[3]);
	/* A kernel launch (protocols reset their timestamps here); NULL: nothing to do. */
	void (*kernel_begin)(struct gpu_l2 *l2);
	bool (*idle)(const struct gpu_l2 *l2);
	uint64_t (*digest)(const struct gpu_l2 *l2);
	/* The stats contract: adds the bank's energy events so far to out. Required, as the
	 * L1's. */
	void (*energy)(const struct gpu_l2 *l2, struct energy_counts *out);
};

struct gpu_protocol {
	const char *name;
	const char *help;
	const char *const *msg_names; /* indexed by mem_msg.type / resp_type */
	unsigned n_msgs;
	/* each type's kind of traffic (enum noc_traffic_kind, tlm/noc/noc.h); required */
	const unsigned char *msg_traffic;
	const struct gpu_l1_ops *l1;
	const struct gpu_l2_ops *l2;
	/* The paper's label ("BL", "W/L1") for reports. */
	const char *label;
	bool has_l1; /* false: every access goes to the L2 (nothing cached in the SM) */
	/* false: the L1 may return stale data to accesses no fence orders (litmus and random
	 * tests then hold it only to the fenced outcomes of RC) */
	bool coherent;
	/* the L1 performs an acquire atomic's acquire itself when the atomic returns (seed 004's
	 * scoped protocols): before a release atomic the SM asks the L1 for the release only */
	bool acquire_in_l1;
	/* the L1 performs a release atomic's release itself (hLRC defers it to the loss of the
	 * atomic's registration): before a release atomic the SM only waits for the warp's earlier
	 * accesses, and asks the L1 for no fence */
	bool release_in_l1;
	/* its own configuration section (loaded for every registered protocol, so that sweeps
	 * may set it whatever the protocol), NULL when it has none */
	const struct cs_param_table *params;
	/* the system builder's family its controllers belong to and its standard layout (NULL:
	 * the GPU family on the request/response NoC, gpu_fab_proto); the scoped protocols that
	 * send probes to L1s use the one-way network's (scoped/sc_fabric.h) */
	const struct fab_proto *fab;
	const struct fab_std_group *fab_std;
	const unsigned *fab_n_std;
};

/* A protocol's tables have every member a system needs of them (create, destroy, the ports,
 * access, idle, digest, energy ...): 0, or -CS_ECONFIG naming the protocol and the member. */
int gpu_protocol_check(const struct gpu_protocol *p, struct cs_err *err);

/* NULL-terminated, in the order `cohscope list protocols` shows them. */
const struct gpu_protocol *const *gpu_protocol_registry(void);
const struct gpu_protocol *gpu_protocol_find(const char *name);

#endif
