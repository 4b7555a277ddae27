/*
 * tlm/coherence/apu/apu_gpu.h - the GPU side of seed 002's APU (docs/apu.md §3.2, §3.3, §5):
 * VIPER's TCP (per-CU L1) and TCC (GPU L2) on the generic network (tlm/noc/noc.h).
 *
 * The TCP is a struct gpu_l1_ops, so today's SM drives it unchanged: its noc_port binds to the
 * network's noc_inject_port of its endpoint, and the network's noc_deliver_port binds to its
 * deliver_port. The TCC is an endpoint too (apu_tcc_*). Both read their configuration and their
 * place in the system from gpu_ctx.proto_cfg, a struct apu_gpu_cfg that the system builder
 * fills: the `tcp` and `tcc` sections (their own tables, so the GPU-only `l1`/`l2` sections
 * keep their meaning) and the endpoint ids.
 *
 * Scopes (from struct gpu_access): scope SYSTEM = SLC (bypass TCP and TCC); a load with
 * acquire order at DEVICE scope = GLC (bypass the TCP); everything else is a plain access.
 * Atomics: SYSTEM scope = SLC (performed at the directory), else GLC (at the TCC unless
 * tcc.glc_atomic_at = dir).
 */
#ifndef COHSCOPE_TLM_COHERENCE_APU_APU_GPU_H
#define COHSCOPE_TLM_COHERENCE_APU_APU_GPU_H

#include "analytic/energy.h"
#include "tlm/coherence/apu/apu_msg.h"
#include "tlm/coherence/gpu_proto.h"

enum apu_write { APU_WRITE_THROUGH = 0, APU_WRITE_BACK };
enum apu_atomic_at { APU_ATOMIC_AT_TCC = 0, APU_ATOMIC_AT_DIR };

struct apu_tcp_cfg {
	uint64_t size_kib, assoc;
	uint64_t latency;	  /* hit, GPU cycles */
	uint64_t req_pipe_cycles; /* CU -> TCP pipeline, every global access */
	uint64_t resp_pipe_cycles;
	uint64_t issue_cycles; /* TCP -> TCC */
	uint64_t mshrs, mshr_merge;
	unsigned write; /* enum apu_write */
};

struct apu_tcc_cfg {
	uint64_t size_kib, assoc; /* per slice */
	uint64_t latency;	  /* TCC -> TCP responses, GPU cycles */
	uint64_t dir_issue_cycles;
	uint64_t ack_cycles; /* probe acks, unblocks */
	uint64_t atomic_latency;
	uint64_t mshrs, mshr_merge;
	unsigned write;		/* enum apu_write */
	unsigned glc_atomic_at; /* enum apu_atomic_at */
	bool inv_on_sys_acquire;
};

extern const struct cs_param_table apu_tcp_params; /* section "tcp" */
extern const struct cs_param_table apu_tcc_params; /* section "tcc" */

struct apu_tcc;

/* What the builder hands every TCP and TCC in gpu_ctx.proto_cfg. */
struct apu_gpu_cfg {
	struct apu_tcp_cfg tcp;
	struct apu_tcc_cfg tcc;
	struct apu_msgs *msgs;	  /* the system's messages (on gpu_ctx.pool) */
	const uint16_t *tcp_node; /* endpoint of CU i's TCP */
	const uint16_t *tcc_node; /* endpoint of TCC slice j; a line's home is (addr >> 6) % tccs */
	unsigned tccs;
	uint16_t dir_node;
	/* the slices, for a TCP's system-scope acquire (set once they exist) */
	struct apu_tcc *const *tcc_obj;
	/* the TCC reports the writes it serializes (stores, GLC atomics) to gpu_ctx.chk; a system
	 * with CPU writers reports at the directory instead */
	bool tcc_reports_writes;
	/* the system's LT runs (apu_port.h), joined by every TCP and TCC at create; NULL: no LT
	 * face (the TCP's set_lt(true) then fails the run) */
	struct apu_lt *lt;
};

static inline unsigned apu_tcc_home(const struct apu_gpu_cfg *c, uint64_t addr)
{
	return (unsigned)((addr >> 6) % c->tccs);
}

/* ext->cu of a WT the TCC sends for itself (a GLC atomic's result): its WBAck goes nowhere */
#define APU_CU_NONE  0xffffu
/* ext->cu of a Flush (WB_L2 release): its WBAck counts for the release */
#define APU_CU_FLUSH 0xfffeu

/* Messages a TCP or TCC takes from its inputs per GPU cycle (gem5 transitions_per_cycle 32),
 * and the depth of each input queue. */
#define APU_GPU_PER_CYCLE 32
#define APU_GPU_IN_DEPTH  16

/* ---- the TCC -------------------------------------------------------------------------------- */

int apu_tcc_create(const struct gpu_ctx *ctx, unsigned slice, struct cs_stat_group *stats,
		   struct apu_tcc **out, struct cs_err *err);
void apu_tcc_destroy(struct apu_tcc *t);
struct tlm_initiator_socket *apu_tcc_inject_port(struct apu_tcc *t);
struct tlm_target_socket *apu_tcc_deliver_port(struct apu_tcc *t);
/* A system-scope acquire or a kernel launch (tcc.inv_on_sys_acquire): V lines dropped, M lines
 * become W (their dirty bytes stay). */
void apu_tcc_sys_acquire(struct apu_tcc *t);
/* A system-scope release or a kernel's end: under WB_L2 every dirty line is sent as Flush and
 * dropped. true: nothing to wait for; false: cb(arg) runs once every Flush sent so far is
 * acked. In the LT face call it inside an LT run (the TCP's fence and kernel_end do). */
bool apu_tcc_release(struct apu_tcc *t, void (*cb)(void *arg), void *arg);
/* Tests: out[0] = 1 when the line is V; false when absent. */
bool apu_tcc_probe(const struct apu_tcc *t, uint64_t addr, uint64_t out[3]);
/* Tests: the line's bytes if V (true). */
bool apu_tcc_peek(const struct apu_tcc *t, uint64_t addr, uint8_t *line);
bool apu_tcc_idle(const struct apu_tcc *t);
/* Requests its pipeline took (reads, write-throughs, atomics; every face), and its clock's
 * period: its events for same-event pairs. */
uint64_t apu_tcc_served(const struct apu_tcc *t);
sim_time_t apu_tcc_period_ps(const struct apu_tcc *t);
uint64_t apu_tcc_digest(const struct apu_tcc *t);
/* The stats contract: its energy events and itself (docs/energy.md, "APU"). */
void apu_tcc_energy(const struct apu_tcc *t, struct energy_counts *out);

struct apu_tcc_ops {
	int (*create)(const struct gpu_ctx *ctx, unsigned slice, struct cs_stat_group *stats,
		      struct apu_tcc **out, struct cs_err *err);
	void (*destroy)(struct apu_tcc *t);
	struct tlm_initiator_socket *(*inject_port)(struct apu_tcc *t);
	struct tlm_target_socket *(*deliver_port)(struct apu_tcc *t);
	void (*sys_acquire)(struct apu_tcc *t);
	bool (*release)(struct apu_tcc *t, void (*cb)(void *arg), void *arg);
	bool (*probe)(const struct apu_tcc *t, uint64_t addr, uint64_t out[3]);
	bool (*idle)(const struct apu_tcc *t);
	uint64_t (*digest)(const struct apu_tcc *t);
};

/* ---- the registry of APU GPU sides ------------------------------------------------------------ */

/* A GPU side of an APU: `gpu` is what the SM is given (its l1 is the TCP; l2 is NULL: the TCC
 * is not a gpu_l2), `tcc` the L2 role, `params` its sections (NULL-terminated). */
struct apu_gpu_protocol {
	struct gpu_protocol gpu;
	const struct apu_tcc_ops *tcc;
	const struct cs_param_table *const *params;
};

extern const struct gpu_l1_ops apu_tcp_ops;
extern const struct apu_tcc_ops apu_tcc_ops_viper;

/* NULL-terminated ("viper" today). */
const struct apu_gpu_protocol *const *apu_gpu_registry(void);
const struct apu_gpu_protocol *apu_gpu_find(const char *name);

#endif
