/*
 * tlm/coherence/lease.h - the lease and timestamp protocols: TC-Strong and TC-Weak (temporal
 * coherence, Singh et al. HPCA 2013, as the G-TSC paper's §II-D and thesis §3.1 describe it)
 * and G-TSC (G-TSC paper, thesis chapter 3). docs/protocols/ has a page per protocol.
 *
 * They share one L1 controller (lease_l1.c): a line is read only while its lease covers the
 * reader (TC: physical time before the lease's end; G-TSC: the warp's timestamp not beyond the
 * line's rts); misses, renewals and pending stores share an MSHR entry per line; stores and
 * atomics are written through and performed at the L2. The L2 banks are gpu_l2_base.c with a
 * policy (tc.c, gtsc.c).
 *
 * Messages reuse the base protocol's type numbers (read, write, atomic, data, write ack, atomic
 * ack; no write-backs) and add G-TSC's renewal. The protocol fields travel in mem_msg.ts[].
 */
#ifndef COHSCOPE_TLM_COHERENCE_LEASE_H
#define COHSCOPE_TLM_COHERENCE_LEASE_H

#include "tlm/coherence/gpu_l2_base.h"

/* G-TSC's BusRnw: a renewal answer, rts only, no data. */
#define GPU_MSG_RENEW	GPU_MSG_BASE_COUNT
#define LEASE_MSG_COUNT (GPU_MSG_BASE_COUNT + 1)

/* mem_msg.ts[] of G-TSC (Table I) */
enum {
	GTSC_WTS = 0, /* BusRd: the L1's wts (0: tag miss); BusFill, BusWrAck: the data's wts */
	GTSC_RTS,     /* BusFill, BusRnw, BusWrAck */
	GTSC_WARP_TS, /* BusRd, BusWr: the warp's timestamp */
	GTSC_PREV,    /* BusWrAck: the wts the store was applied on (see gtsc.md) */
	GTSC_EPOCH,   /* timestamp resets seen: stands for the paper's reset flag */
};

/* mem_msg.ts[] of TC (times in ps of the global clock) */
enum {
	TC_EXPIRE = 0, /* data: the end of the L1's lease */
	TC_GWCT,       /* TC-Weak: write ack, and data of a line whose last write is not yet
			* visible everywhere: when it will be */
	TC_SERVED,     /* data: when the L2 read the line */
	TC_L1_EXPIRED, /* read: the L1 holds the line with an expired lease (the lifetime
			* predictor's "expired in L1") */
};

enum lease_kind { LEASE_TC_STRONG = 0, LEASE_TC_WEAK, LEASE_GTSC };

/* section "tc" */
enum tc_lease_policy { TC_LEASE_FIXED = 0, TC_LEASE_PREDICT };

struct tc_cfg {
	uint64_t lease;	       /* core cycles: the fixed lifetime, the predictor's start */
	unsigned lease_policy; /* enum tc_lease_policy */
	uint64_t pred_credit;  /* predict: added on a read of an expired line */
	uint64_t pred_evict;   /* predict: taken when a replacement meets unexpired leases */
	uint64_t pred_write;   /* predict: taken on a write to an unexpired line */
};

/* section "gtsc" */
enum gtsc_visibility { GTSC_VIS_BLOCK = 0, GTSC_VIS_KEEP };
enum gtsc_combining { GTSC_COMBINE_MSHR = 0, GTSC_COMBINE_FORWARD };

struct gtsc_cfg {
	uint64_t lease;	     /* logical time */
	uint64_t ts_bits;    /* width of every timestamp */
	unsigned visibility; /* enum gtsc_visibility */
	unsigned combining;  /* enum gtsc_combining */
	uint64_t tick_hits;  /* hits in a row to one line after which a warp passes its lease */
	uint64_t advance;    /* a warp's timestamp self-advances by 1 every this many of its
			      * memory operations (0: never) */
};

extern const struct cs_param_table tc_params;
extern const struct cs_param_table gtsc_params;
extern const char *const tc_msg_names[];
extern const char *const gtsc_msg_names[];
extern const unsigned char gtsc_msg_traffic[];

extern const struct gpu_l1_ops lease_l1_tc_strong_ops;
extern const struct gpu_l1_ops lease_l1_tc_weak_ops;
extern const struct gpu_l1_ops lease_l1_gtsc_ops;
extern const struct gpu_l2_ops tc_strong_l2_ops;
extern const struct gpu_l2_ops tc_weak_l2_ops;
extern const struct gpu_l2_ops gtsc_l2_ops;

/* Bytes of one timestamp on the wire. */
static inline unsigned gtsc_ts_bytes(const struct gtsc_cfg *c)
{
	return (unsigned)((c->ts_bits + 7) / 8);
}
#define TC_TS_BYTES 4 /* 32-bit timestamps (thesis §3.1) */

/* The ops of an L2 bank with a policy: only create differs. */
#define LEASE_L2_OPS(id, create_fn)              \
	const struct gpu_l2_ops id = {           \
	    GPU_L2_BASE_MEMBERS,                 \
	    .create = create_fn,                 \
	    .kernel_begin = gpu_l2_kernel_begin, \
	    .probe = gpu_l2_probe,               \
	}

#endif
