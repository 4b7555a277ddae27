/*
 * tlm/dram/dram.h - a DRAM channel controller: banks, row buffers, FR-FCFS, the data bus.
 *
 * One controller per channel (GPGPU-Sim's memory partition), approximately timed. It takes
 * requests from the L2 banks of its channel on one target socket each, keeps them in one
 * bounded queue and issues ACT / PRE / RD / WR commands on command-clock edges under the
 * timing parameters below (open-page policy). Defaults are GPGPU-Sim's GTX 480 GDDR5
 * (configs/tested-cfgs/SM2_GTX480: -gpgpu_dram_timing_opt, 924 MHz command clock, QDR data,
 * 2 chips x 4 B per channel, burst 8).
 *
 * Address: the controller gets global addresses and uses addrmap_local() for the dense local
 * address L of its channel. r = L / row_bytes; bank = r % banks; row = r / banks: consecutive
 * row-sized pieces go to consecutive banks, so streaming stays in open rows and visits every
 * bank. A request of len bytes moves every atom (bus_bytes * burst_length bytes, 64 B by
 * default) it touches, one column command (burst) per atom; a burst holds the data bus for
 * burst_length / data_rate command cycles.
 *
 * Timing, all in command-clock cycles. Per bank: ACT->RD/WR tRCD, ACT->PRE tRAS, ACT->ACT
 * tRC, PRE->ACT tRP, write data end->PRE tWR, RD->PRE burst_length/data_rate. Per channel:
 * ACT->ACT (any bank) tRRD, at most four ACTs in any tFAW window, column->column tCCD, write
 * data end->RD tCDLR, read data starts tCL after RD, write data tWL after WR, bursts never
 * overlap on the data bus, at most one command per cycle. With bank groups (DDR4), bank b is in
 * group b % bank_groups, and within a group column commands keep tCCDL, ACTs tRRDL and
 * write data end -> RD tWTRL (the short tCCD, tRRD, tCDLR apply across groups). All-bank refresh: every tREFI
 * cycles the controller lets the requests that already opened their row (or started) finish,
 * precharges every open bank with one PREA, issues REF and opens no row for tRFC (GDDR5's
 * all-bank auto refresh, issued on time, never postponed). A read answers (BEGIN_RESP) at the
 * edge where its last burst has crossed the bus, a write when its last data beat is written.
 * Not modelled: power-down, ranks, read-to-write turnaround beyond the bus
 * occupancy, refresh postponement.
 *
 * Front end: a request that the controller accepts (END_REQ) enters a fixed pipeline of
 * ctrl_latency cycles (GPGPU-Sim's dram_latency_queue) and then its queue: reads the read queue
 * (`queue` entries), writes the write queue (`write_queue`). The pipeline holds at most
 * ctrl_latency requests and a request enters it only while its queue has room; a request that
 * leaves it to a full queue waits at its head. A queue entry is freed when the request issues
 * its ACT (its bank holds it from then on) or, for a row hit, its first column command, as
 * Ramulator 2 moves a request from its read or write buffer to its active buffer; data and
 * response follow on their own.
 *
 * Scheduling: each cycle the controller serves one direction. It starts draining writes when
 * the write queue holds more than wr_high * write_queue of them (or no read waits), and goes
 * back to reads when it holds fewer than wr_low * write_queue (Ramulator 2's watermarks), or
 * after write_queue writes in one drain while reads wait (then at least one read goes first),
 * so neither direction starves the other. Requests that opened their row or started are always
 * served. Per bank it looks at the request it would serve next (frfcfs: the oldest one of the
 * direction whose row is open in the bank, else the oldest; fcfs: requests handed to their
 * banks strictly in arrival order, one at a time per bank) and issues the next command of the
 * best one that can issue now (frfcfs: column commands first, then oldest; fcfs: oldest). It is
 * event driven: callbacks are scheduled only for cycles where a command can issue or a
 * response is due.
 *
 * Back-pressure: when the pipeline is full, or the queue of the request's kind is, BEGIN_REQ
 * returns TLM_ACCEPTED and END_REQ follows when there is room (in arrival order among requests
 * of one kind, across ports: a waiting write does not hold up a read). Functional data moves when the controller accepts a request, in arrival order (so a
 * read sees every write that arrived before it, whatever order the commands take): reads copy
 * from the mem_store into p->data, writes store p->data honouring p->byte_enable (0xff / 0x00
 * per byte, repeated every byte_enable_len bytes). Every response is TLM_OK_RESPONSE.
 */
#ifndef COHSCOPE_TLM_DRAM_DRAM_H
#define COHSCOPE_TLM_DRAM_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "analytic/energy.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"
#include "tlm/mem/addrmap.h"
#include "tlm/mem/store.h"
#include "util/error.h"
#include "util/params.h"
#include "util/stats.h"

enum dram_sched { DRAM_SCHED_FRFCFS = 0, DRAM_SCHED_FCFS };

#define DRAM_GROUPS_MAX 16 /* bank groups per channel */

struct dram_cfg {
	uint64_t clock_mhz;    /* command clock */
	uint64_t data_rate;    /* data beats per command clock (GDDR5: 4) */
	uint64_t bus_bytes;    /* channel data width */
	uint64_t burst_length; /* beats per burst */
	uint64_t banks;
	uint64_t row_bytes; /* row buffer of the channel */
	uint64_t tCL, tRP, tRC, tRAS, tRCD, tRRD, tCCD, tWR, tWL, tCDLR;
	uint64_t tFAW; /* four-activate window (0: none) */
	/* Bank groups (DDR4): bank b is in group b % bank_groups; commands to banks of one group
	 * keep the longer _L spacings (0: the value of the short one, tCCD / tRRD / tCDLR). */
	uint64_t bank_groups;
	uint64_t tCCDL, tRRDL, tWTRL;
	uint64_t tREFI, tRFC;  /* all-bank refresh interval (0: no refresh) and its duration */
	uint64_t queue;	       /* read queue entries */
	uint64_t write_queue;  /* write queue entries */
	double wr_high;	       /* write drain starts above wr_high * write_queue writes */
	double wr_low;	       /* and ends below wr_low * write_queue */
	unsigned scheduler;    /* enum dram_sched */
	uint64_t ctrl_latency; /* fixed pipeline cycles in front of the queues */
	/* Power (per device, as the datasheets give it; the DRAMPower method, docs/energy.md):
	 * supply voltage, currents in mA, devices per channel, and the second supply of DDR4
	 * (VPP) with its standby current. */
	double vdd, idd0, idd2n, idd3n, idd4r, idd4w, idd5;
	uint64_t devices;
	double vpp, ipp;
	double io_pj_bit; /* the interface: termination and controller PHY, per bit */
};

/* A channel's energies from its currents and timings (DRAMPower 4's formulas, charged in the
 * configured clock), for the whole channel (all its devices). */
struct dram_energies {
	double act_pj;	   /* VDD (IDD0 - IDD3N) tRAS */
	double pre_pj;	   /* VDD (IDD0 - IDD2N) (tRC - tRAS) */
	double rd_pj;	   /* VDD (IDD4R - IDD3N) burst: one read burst */
	double wr_pj;	   /* VDD (IDD4W - IDD3N) burst */
	double ref_pj;	   /* VDD (IDD5 - IDD3N) tRFC: one all-bank refresh */
	double act_stby_w; /* VDD IDD3N (+ VPP IPP): a bank open */
	double pre_stby_w; /* VDD IDD2N (+ VPP IPP): every bank closed */
	double ref_w;	   /* ref_pj every tREFI (0 without refresh) */
	double ref_act;	   /* share of the time a refresh keeps the channel active: (tRFC - tRP) /
			      tREFI */
};
void dram_cfg_energies(const struct dram_cfg *cfg, struct dram_energies *e);
/* Background and refresh power, given the share of time a bank was open. */
double dram_background_w(const struct dram_energies *e, double open_share);

/* Section "dram". */
extern const struct cs_param_table dram_params;

/* Row state of a closed form. */
enum dram_row_state { DRAM_ROW_HIT = 0, DRAM_ROW_CLOSED = 1, DRAM_ROW_CONFLICT = 2 };

/* Commands, for the trace hook. */
/* PREA (precharge all) and REF come from refresh: bank is 0 and payload NULL. */
enum dram_cmd_kind {
	DRAM_CMD_ACT = 0,
	DRAM_CMD_PRE,
	DRAM_CMD_RD,
	DRAM_CMD_WR,
	DRAM_CMD_PREA,
	DRAM_CMD_REF
};

struct dram_cmd_rec {
	uint64_t cycle; /* command-clock edge number */
	unsigned kind;	/* enum dram_cmd_kind */
	unsigned bank;
	uint64_t row;	     /* row opened (ACT) or accessed (RD/WR); closed row for PRE */
	uint64_t data_start; /* RD/WR: first and one-past-last data cycle on the bus */
	uint64_t data_end;
	struct tlm_payload *payload; /* the request the command serves (look, do not touch) */
};

typedef void (*dram_trace_fn)(void *ctx, const struct dram_cmd_rec *c);

struct dram_ctrl;

/*
 * cfg is copied; map, store and stats must outlive the controller. channel is this
 * controller's channel in map; ports target sockets, one per L2 bank of the channel. Stats
 * are registered in `stats` (the caller names the group, e.g. "dram0"). Returns 0,
 * -CS_ECONFIG (an impossible timing combination, the message names the keys), -CS_EINVAL or
 * -CS_ENOMEM.
 */
int dram_ctrl_create(struct sim_kernel *k, const struct dram_cfg *cfg, unsigned channel,
		     const struct addr_map *map, struct mem_store *store, unsigned ports,
		     struct cs_stat_group *stats, struct dram_ctrl **out, struct cs_err *err);
/* After the run: scheduled callbacks point at the controller, and payloads it still holds
 * (a run stopped early) are left to their pool. NULL is a no-op. */
void dram_ctrl_destroy(struct dram_ctrl *d);
/* The stats contract (analytic/energy.h): adds the channel's energy events (ACT and PRE
 * commands, a refresh's PREA counting one PRE per bank it closes, read and write bursts, and
 * the bits its requests moved over its interface). */
void dram_ctrl_energy(const struct dram_ctrl *d, struct energy_counts *out);
/* The share of the channel's time so far with at least one bank open (0 before any). */
double dram_ctrl_open_share(const struct dram_ctrl *d);
/* The energy model `in` with the DRAM's values filled in from the channels' currents, where
 * no key of section energy set them: per-command energies (dram_cfg_energies) and the static
 * power per channel, the channels' mean background and refresh power at their open shares. */
void dram_energy_model(const struct energy_model *in, const struct dram_cfg *cfg,
		       struct dram_ctrl *const *ch, unsigned n, struct energy_model *out);
/* Target socket i (one per L2 bank of the channel), or NULL. */
struct tlm_target_socket *dram_ctrl_port(struct dram_ctrl *d, unsigned i);
/* Requests accepted and not yet answered (pipeline, queues, data and responses in flight). */
unsigned dram_ctrl_queued(const struct dram_ctrl *d);
/* Entries in use in the read queue (write false) or the write queue (write true). */
unsigned dram_ctrl_queue_len(const struct dram_ctrl *d, bool write);
/* Cycles the data bus has been busy (every face), and the channel's clock period. */
uint64_t dram_ctrl_bus_busy(const struct dram_ctrl *d);
/* Bytes its requests wrote (write) or read so far. */
uint64_t dram_ctrl_bytes(const struct dram_ctrl *d, bool write);
sim_time_t dram_ctrl_period_ps(const struct dram_ctrl *d);
/* Called for every command issued (tests, traces); fn NULL turns it off. */
/* The LT face's contention model (NULL: defaults; the pointer is kept). */
struct lt_params;
void dram_ctrl_set_lt(struct dram_ctrl *d, const struct lt_params *p);
void dram_ctrl_set_trace(struct dram_ctrl *d, dram_trace_fn fn, void *ctx);

/* Checks the physics of cfg (tRC >= tRAS + tRP, tRAS >= tRCD, whole-cycle bursts, whole atoms
 * per row). 0 or -CS_ECONFIG naming the keys. */
int dram_cfg_check(const struct dram_cfg *cfg, struct cs_err *err);
/* Bank and row of a channel-local address. */
void dram_decode(const struct dram_cfg *cfg, uint64_t local, unsigned *bank, uint64_t *row);
/* Peak data bandwidth: bus_bytes * data_rate * clock. */
double dram_peak_bytes_per_s(const struct dram_cfg *cfg);

/*
 * Closed forms on an idle channel, for an atom-aligned request of len bytes, in command cycles
 * from the edge where BEGIN_REQ arrives to the edge of BEGIN_RESP, with
 * bursts = ceil(len / atom), burst = burst_length / data_rate, step = max(tCCD, burst):
 *   read  = ctrl_latency + [conflict: tRP] + [closed, conflict: tRCD] + tCL
 *           + (bursts - 1) * step + burst
 *   write = the same with tWL for tCL.
 * (No refresh falls in the request's way: a refresh can add up to tRFC + tRP.)
 */
uint64_t dram_unloaded_read_cycles(const struct dram_cfg *cfg, unsigned len, int row_state);
uint64_t dram_unloaded_write_cycles(const struct dram_cfg *cfg, unsigned len, int row_state);
/*
 * The same in ps for a request arriving at edge 0 (or at any edge that is a multiple of the
 * clock's repeat: edges of a clock whose period is not a whole number of ps are 1 ps apart
 * from uniform; at 924 MHz edge n + 231 = edge n + 250 ns exactly).
 */
sim_time_t dram_unloaded_read_ps(const struct dram_cfg *cfg, unsigned len, int row_state);
sim_time_t dram_unloaded_write_ps(const struct dram_cfg *cfg, unsigned len, int row_state);

#endif
