/*
 * workloads/trace/trace.h - GPU op traces: the in-memory form, the cohscope trace file, and the
 * Accel-Sim importer.
 *
 * A trace is what a GPU workload did, as the op API saw it: the host's copies into device
 * memory and, per kernel launch, every warp's sequence of ops (loads, stores, atomics with their
 * per-lane addresses and values, fences, barriers, compute delays, scratchpad accesses). A
 * recorded run replays exactly (same ops per warp in the same order: same cycles, when the model
 * is deterministic); an imported Accel-Sim trace becomes the same form.
 *
 * Each warp's ops are kept encoded (struct trace_buf, appended with trace_buf_put and read back
 * with a struct trace_cursor), so a trace of millions of ops stays small in memory.
 *
 * File (trace_save / trace_load): a fixed little-endian header (magic "CSTRACE\0", format
 * version, flags, body length) followed by the body as one zstd frame with its content checksum
 * (XXH64). A truncated or corrupt file, a wrong magic or an unknown version is an error naming
 * the file and the problem. Saving writes a temporary file and renames it.
 */
#ifndef COHSCOPE_WORKLOADS_TRACE_TRACE_H
#define COHSCOPE_WORKLOADS_TRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "workloads/gpu_api.h"

/* The device memory a trace may use, copies and accesses together, checked where a file
 * declares it (a .cst header, an Accel-Sim copy) before anything grows: more than the GPUs
 * modelled have (GTX 480: 1.5 GB), so a copy of 2^63 bytes is one error line. */
#define TRACE_DEVICE_MAX (2ull << 30)
/* The decompressed body of a .cst file, held whole in memory while it loads: a header that
 * declares more (or a small file that inflates past it) is refused before it is allocated. */
#define TRACE_BODY_MAX	 (512ull << 20)

#define TRACE_FORMAT_VERSION 3 /* reads 1 and 2 too: their ops are subsets (1: 32 lanes) */

enum trace_op_kind {
	TRACE_SPIN = 0, /* a spin loop's guard (gw_spin_guard) after a failed try; first: the
			 * loop's first (format 3; no op: the sampler's progress leaves the tries
			 * between two guards out) */
	TRACE_LD = 1,	/* per-lane load */
	TRACE_ST,	/* per-lane store: val[] */
	TRACE_ATOM,	/* per-lane atomic: atom_op, val[] (operand a), b[] (CAS new value) */
	TRACE_FENCE,	/* order, scope */
	TRACE_BAR,	/* CTA barrier */
	TRACE_COMPUTE,	/* cycles issue slots */
	TRACE_SMEM,	/* one warp-wide scratchpad access */
};

/* One op, decoded. Only the fields of its kind are meaningful; lanes outside mask are ignored
 * (and read back as 0). */
struct trace_op {
	uint8_t kind;	  /* enum trace_op_kind */
	uint8_t bytes;	  /* LD/ST/ATOM: bytes per lane, 1, 2, 4, 8 or 16 */
	uint8_t atom_op;  /* ATOM: enum mem_atomic_op */
	uint8_t scope;	  /* ST/ATOM/FENCE: enum mem_scope */
	uint8_t order;	  /* ST/ATOM/FENCE: enum mem_order */
	uint8_t want_old; /* ATOM: the warp waits for the old values */
	uint8_t cop;	  /* LD/ST: enum mem_cache_op */
	uint8_t first;	  /* SPIN: the loop's first guard */
	uint64_t mask;	  /* LD/ST/ATOM: active lanes (never 0) */
	uint64_t cycles;  /* COMPUTE: >= 1 */
	uint64_t addr[WARP_LANES_MAX];
	uint64_t val[WARP_LANES_MAX]; /* ST: the value (low `bytes` bytes; 16-byte lanes keep 8) */
	uint64_t b[WARP_LANES_MAX];
};

/* A growable byte buffer holding one warp's encoded ops. */
struct trace_buf {
	uint8_t *p;
	size_t len, cap;
	uint64_t ops; /* ops appended */
	/* encoder state: first lane address of the last LD/ST/ATOM appended (0 at the start) */
	uint64_t prev_addr;
};

/* Appends op (validated: a bad kind, width, empty mask or zero cycles is -CS_EINVAL). Returns 0,
 * -CS_EINVAL or -CS_ENOMEM. Encoding: see trace.c (addresses as base + stride or deltas from
 * the previous op, values as varints). */
int trace_buf_put(struct trace_buf *b, const struct trace_op *op);

struct trace_cursor {
	const uint8_t *p, *end;
	uint64_t prev_addr; /* decoder state mirrored from the encoder */
};

void trace_cursor_init(struct trace_cursor *c, const struct trace_buf *b);
/* Decodes the next op. Returns 1 (an op), 0 (end of the stream) or -CS_EINVAL (corrupt). */
int trace_next(struct trace_cursor *c, struct trace_op *op);

/* A host copy into device memory, in program order between launches. */
struct trace_copy {
	uint64_t addr, len;
	uint8_t *data; /* NULL: contents not recorded (Accel-Sim); the replay leaves memory as is */
};

struct trace_kernel {
	char *name;
	unsigned ctas, warps_per_cta, regs_per_thread, smem_bytes;
	unsigned lanes;		/* wavefront width: 32 (trace_add_kernel's) or 64 */
	uint16_t *cta_sm;	/* placement (CTA i on SM cta_sm[i]); NULL: round robin */
	struct trace_buf *warp; /* ctas * warps_per_cta streams, by global warp id */
};

enum trace_event_kind { TRACE_EV_COPY = 1, TRACE_EV_KERNEL };

struct trace_event {
	enum trace_event_kind kind;
	struct trace_copy copy;	    /* TRACE_EV_COPY */
	struct trace_kernel kernel; /* TRACE_EV_KERNEL */
};

struct trace {
	char source[32];    /* "cohscope" (recorded) or "accelsim" (imported) */
	char workload[64];  /* recorded workload (or the Accel-Sim directory's name) */
	uint64_t heap_base; /* device addresses used lie in [heap_base, heap_end) */
	uint64_t heap_end;
	struct trace_event *ev;
	size_t nev, cap;
};

int trace_new(struct trace **out);
void trace_free(struct trace *t);
/* Appends a copy (data copied when non-NULL). */
int trace_add_copy(struct trace *t, uint64_t addr, const void *data, uint64_t len);
/* Appends a kernel with ctas * warps_per_cta empty warp streams; *out points into t (valid
 * until the next trace_add_*). cta_sm may be NULL. */
int trace_add_kernel(struct trace *t, const char *name, unsigned ctas, unsigned warps_per_cta,
		     unsigned regs_per_thread, unsigned smem_bytes, const uint16_t *cta_sm,
		     struct trace_kernel **out);
/* Total ops of every kernel. */
uint64_t trace_ops(const struct trace *t);

/* Writes t to path (zstd level 3, checksummed; temporary file + rename). */
int trace_save(const struct trace *t, const char *path, struct cs_err *err);
/* Reads a cohscope trace file, or imports an Accel-Sim trace when path is a kernelslist.g file
 * or a directory holding one. Errors name the file (and line for text formats). */
int trace_load(const char *path, struct trace **out, struct cs_err *err);

/*
 * Accel-Sim import (../shared/external/traces/FORMAT.md): kernelslist.g (MemcpyHtoD lines and
 * kernel-N.traceg or .traceg.xz files, read with liblzma), each kernel's header and thread
 * blocks. Global loads, stores and atomics become ops with their per-lane addresses (list_all,
 * base_stride and base_delta); shared-memory instructions become TRACE_SMEM; BAR.SYNC a barrier;
 * MEMBAR a fence; every other instruction one issue slot of compute (runs merged). Device
 * addresses are moved into [0, heap_end): each 64 KiB granule touched, in order of first use,
 * takes the next 64 KiB slot (offsets inside a granule kept), so the replay relocates them by a
 * 64 KiB-aligned base. What is approximated is listed in docs/workloads.md.
 */
int trace_import_accelsim(const char *kernelslist, struct trace **out, struct cs_err *err);

#endif
