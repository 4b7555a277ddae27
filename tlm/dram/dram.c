/* tlm/dram/dram.c - DRAM channel controller (see dram.h). */
#include "tlm/dram/dram.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic/ltmodel.h"

static const char *const sched_names[] = {"frfcfs", "fcfs", NULL};

#define GTX480	" (GPGPU-Sim GTX480 GDDR5 default)"
/* CMU-SAFARI/ramulator (1.0) src/GDDR5.h/.cpp, speed bin GDDR5_4000: the bin whose cycle counts
 * GPGPU-Sim's GTX480 timings are (Hynix H5GQ1H24AFR: CL 12, RCD 12, RP 12, RAS 28, RC 40, RRD 6,
 * CCD 2, WR 12), 1 Gb parts as on the GTX 480. */
#define R1GDDR5 " (GDDR5 4 Gb/s bin, Ramulator 1 GDDR5.h"
#define D3G5	" (DRAMsim3 GDDR5_1Gb_x32: the H5GQ1H24AFR model)"

static const struct cs_param dram_param_rows[] = {
    {"clock_mhz", CS_P_UINT, offsetof(struct dram_cfg, clock_mhz), "924", "MHz",
     "command clock; every timing parameter counts its cycles" GTX480, 1, 100000, NULL},
    {"data_rate", CS_P_UINT, offsetof(struct dram_cfg, data_rate), "4", "beats/cycle",
     "data beats per command clock (GDDR5 QDR: 4, DDR: 2)" GTX480, 1, 16, NULL},
    {"bus_bytes", CS_P_UINT, offsetof(struct dram_cfg, bus_bytes), "8", "bytes",
     "channel data width (2 chips x 4 B)" GTX480, 1, 1024, NULL},
    {"burst_length", CS_P_UINT, offsetof(struct dram_cfg, burst_length), "8", "beats",
     "beats per burst; one burst moves bus_bytes * burst_length bytes" GTX480, 1, 64, NULL},
    {"banks", CS_P_UINT, offsetof(struct dram_cfg, banks), "16", "", "banks per channel" GTX480, 1,
     1024, NULL},
    {"row_bytes", CS_P_UINT, offsetof(struct dram_cfg, row_bytes), "4096", "bytes",
     "row buffer size of the channel (all chips)" GTX480, 64, 1048576, NULL},
    {"tCL", CS_P_UINT, offsetof(struct dram_cfg, tCL), "12", "cycles",
     "CAS latency: RD command to first read data" GTX480, 1, 1000, NULL},
    {"tRP", CS_P_UINT, offsetof(struct dram_cfg, tRP), "12", "cycles",
     "precharge: PRE to ACT of the same bank" GTX480, 1, 1000, NULL},
    {"tRC", CS_P_UINT, offsetof(struct dram_cfg, tRC), "40", "cycles",
     "row cycle: ACT to ACT of the same bank" GTX480, 1, 1000, NULL},
    {"tRAS", CS_P_UINT, offsetof(struct dram_cfg, tRAS), "28", "cycles",
     "row active: ACT to PRE of the same bank" GTX480, 1, 1000, NULL},
    {"tRCD", CS_P_UINT, offsetof(struct dram_cfg, tRCD), "12", "cycles",
     "ACT to RD/WR of the same bank" GTX480, 1, 1000, NULL},
    {"tRRD", CS_P_UINT, offsetof(struct dram_cfg, tRRD), "6", "cycles",
     "ACT to ACT of different banks" GTX480, 1, 1000, NULL},
    {"tCCD", CS_P_UINT, offsetof(struct dram_cfg, tCCD), "2", "cycles",
     "column command to column command" GTX480, 1, 1000, NULL},
    {"tWR", CS_P_UINT, offsetof(struct dram_cfg, tWR), "12", "cycles",
     "write recovery: end of write data to PRE of the same bank" GTX480, 0, 1000, NULL},
    {"tWL", CS_P_UINT, offsetof(struct dram_cfg, tWL), "4", "cycles",
     "write latency: WR command to first write data" GTX480, 1, 1000, NULL},
    {"tCDLR", CS_P_UINT, offsetof(struct dram_cfg, tCDLR), "5", "cycles",
     "write-to-read turnaround: end of write data to RD" GTX480, 0, 1000, NULL},
    {"tFAW", CS_P_UINT, offsetof(struct dram_cfg, tFAW), "23", "cycles",
     "four-activate window: at most 4 ACTs in any tFAW cycles (0: none)" R1GDDR5 ")", 0, 10000,
     NULL},
    {"bank_groups", CS_P_UINT, offsetof(struct dram_cfg, bank_groups), "1", "",
     "bank groups per channel (DDR4: 4 for x4/x8 parts; GDDR5 as modelled: 1); bank b is in"
     " group b % bank_groups and banks must be a multiple of it",
     1, DRAM_GROUPS_MAX, NULL},
    {"tCCDL", CS_P_UINT, offsetof(struct dram_cfg, tCCDL), "0", "cycles",
     "column command to column command in the same bank group (0: tCCD)", 0, 1000, NULL},
    {"tRRDL", CS_P_UINT, offsetof(struct dram_cfg, tRRDL), "0", "cycles",
     "ACT to ACT in the same bank group (0: tRRD)", 0, 1000, NULL},
    {"tWTRL", CS_P_UINT, offsetof(struct dram_cfg, tWTRL), "0", "cycles",
     "end of write data to RD in the same bank group (0: tCDLR)", 0, 1000, NULL},
    {"tREFI", CS_P_UINT, offsetof(struct dram_cfg, tREFI), "3900", "cycles",
     "all-bank refresh interval (0: no refresh)" R1GDDR5
     ": 3.9 us for 1 Gb parts, JEDEC GDDR5 8K refreshes / 32 ms)",
     0, 10000000, NULL},
    {"tRFC", CS_P_UINT, offsetof(struct dram_cfg, tRFC), "110", "cycles",
     "refresh cycle: REF to the next ACT" R1GDDR5 ": 110 ns at 1 GHz, the 1 Gb DDR3 value it uses)",
     1, 100000, NULL},
    {"queue", CS_P_UINT, offsetof(struct dram_cfg, queue), "32", "requests",
     "read queue entries (freed when a request issues its ACT, or for a row hit its first"
     " column command)"
     " (Ramulator 2 ReqBuffer default)",
     1, 4096, NULL},
    {"write_queue", CS_P_UINT, offsetof(struct dram_cfg, write_queue), "32", "requests",
     "write queue entries (Ramulator 2 ReqBuffer default)", 1, 4096, NULL},
    {"wr_high", CS_P_DOUBLE, offsetof(struct dram_cfg, wr_high), "0.8", "",
     "write drain starts when more than wr_high * write_queue writes wait (or no read does)"
     " (Ramulator 2 wr_high_watermark default)",
     0, 1, NULL},
    {"wr_low", CS_P_DOUBLE, offsetof(struct dram_cfg, wr_low), "0.2", "",
     "write drain ends when fewer than wr_low * write_queue writes wait and a read does"
     " (Ramulator 2 wr_low_watermark default)",
     0, 1, NULL},
    {"scheduler", CS_P_ENUM, offsetof(struct dram_cfg, scheduler), "frfcfs", "",
     "frfcfs: open-row requests first, then oldest; fcfs: strict arrival order", 0, 0, sched_names},
    {"ctrl_latency", CS_P_UINT, offsetof(struct dram_cfg, ctrl_latency), "0", "cycles",
     "fixed pipeline in front of the queues (GPGPU-Sim dram_latency_queue): adds its cycles"
     " to every request, holds up to ctrl_latency requests",
     0, 100000, NULL},
    /* power: DRAMsim3's GDDR5_1Gb_x32.ini, which follows SK Hynix's H5GQ1H24AFR (the GTX 480's
     * 1 Gb x32 part; no datasheet IDD table is among our sources: docs/energy.md) */
    {"vdd", CS_P_DOUBLE, offsetof(struct dram_cfg, vdd), "1.5", "V", "device supply voltage" D3G5,
     0, 10, NULL},
    {"idd0", CS_P_DOUBLE, offsetof(struct dram_cfg, idd0), "490", "mA",
     "IDD0 per device: one bank activating and precharging (ACT-PRE cycles)" D3G5, 0, 100000, NULL},
    {"idd2n", CS_P_DOUBLE, offsetof(struct dram_cfg, idd2n), "250", "mA",
     "IDD2N per device: precharge standby, every bank closed" D3G5, 0, 100000, NULL},
    {"idd3n", CS_P_DOUBLE, offsetof(struct dram_cfg, idd3n), "450", "mA",
     "IDD3N per device: active standby, a bank open" D3G5, 0, 100000, NULL},
    {"idd4r", CS_P_DOUBLE, offsetof(struct dram_cfg, idd4r), "1080", "mA",
     "IDD4R per device: burst reads" D3G5, 0, 100000, NULL},
    {"idd4w", CS_P_DOUBLE, offsetof(struct dram_cfg, idd4w), "1160", "mA",
     "IDD4W per device: burst writes" D3G5, 0, 100000, NULL},
    {"idd5", CS_P_DOUBLE, offsetof(struct dram_cfg, idd5), "450", "mA",
     "IDD5 (IDD5B) per device: all-bank refresh" D3G5, 0, 100000, NULL},
    {"devices", CS_P_UINT, offsetof(struct dram_cfg, devices), "2", "",
     "devices per channel (one rank; GTX480: 2 x32 devices on a 64-bit channel)", 1, 1024, NULL},
    {"vpp", CS_P_DOUBLE, offsetof(struct dram_cfg, vpp), "0", "V",
     "second supply (DDR4's VPP for the wordlines; 0: none)", 0, 10, NULL},
    {"ipp", CS_P_DOUBLE, offsetof(struct dram_cfg, ipp), "0", "mA",
     "standby current per device on the second supply (DDR4 IPP3N; charged all the time: "
     "IPP0 equals it, and the read, write and refresh IPPs are not in our sources)",
     0, 100000, NULL},
    {"io_pj_bit", CS_P_DOUBLE, offsetof(struct dram_cfg, io_pj_bit), "7.5", "pJ",
     "energy per bit over the interface, either way: DQ termination (energydram's model of the "
     "Micron power calculators) plus the controller's PHY (McPAT); GDDR5 point-to-point at "
     "3.7 Gb/s: 2.65 + 4.85 at 40 nm (docs/energy.md, DRAM interface)",
     0, 1e6, NULL},
    {NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cs_param_table dram_params = {
    .section = "dram",
    .help = "DRAM channel controller: banks, open rows, refresh, read/write queues, FR-FCFS, "
	    "data bus (per channel)",
    .params = dram_param_rows,
    .size = sizeof(struct dram_cfg),
};

#define NO_ROW	   UINT64_MAX
#define NEVER	   UINT64_MAX
#define POOL_CHUNK 64

struct dram_req {
	struct tlm_payload *p;
	struct dram_req *prev, *next; /* scheduler queue (arrival order), or the pipeline FIFO */
	struct dram_req *rnext;	      /* response FIFO of the port, or the free list */
	uint64_t seq;		      /* arrival order */
	uint64_t row;
	uint64_t visible; /* first cycle it may be scheduled (it leaves the pipeline) */
	sim_time_t arrived;
	unsigned bank, port;
	unsigned left; /* bursts not issued yet */
	bool write;
	bool started;	   /* first column command issued */
	bool committed;	   /* its bank is committed to it (it precharged, opened or started) */
	bool entry;	   /* holds an entry of its queue (until its ACT or first column command) */
	uint8_t row_state; /* enum dram_row_state, as this request found its bank */
};

/* Request records come from chunks (requests inside: pipeline + queues + responses in flight). */
struct dram_chunk {
	struct dram_chunk *next;
	struct dram_req r[POOL_CHUNK];
};

struct dram_bank {
	uint64_t open;	      /* open row, NO_ROW when precharged */
	uint64_t act_ok;      /* earliest ACT: tRC after ACT, tRP after PRE, tRFC after REF */
	uint64_t pre_ok;      /* earliest PRE: tRAS, tWR, read to precharge */
	uint64_t col_ok;      /* earliest column command: tRCD after ACT */
	struct dram_req *cur; /* the request the bank is committed to */
	struct dram_req *hit; /* decision scratch: oldest request to the open row */
	struct dram_req *old; /* decision scratch: oldest request */
};

/* Channel-wide timing state, in cycles. */
struct dram_chan {
	uint64_t act_ok;   /* tRRD, tRFC */
	uint64_t faw[4];   /* the last four ACTs (ring) */
	unsigned faw_i;	   /* oldest entry of faw */
	uint64_t faw_n;	   /* ACTs so far (the window applies from the fifth) */
	uint64_t col_ok;   /* tCCD */
	uint64_t rd_ok;	   /* tCDLR */
	uint64_t bus_free; /* end of the last burst on the data bus */
	uint64_t cmd_ok;   /* one command per cycle */
	/* per bank group: the _L spacings (tRRDL, tCCDL, tWTRL) */
	uint64_t grp_act_ok[DRAM_GROUPS_MAX], grp_col_ok[DRAM_GROUPS_MAX],
	    grp_rd_ok[DRAM_GROUPS_MAX];
};

struct dram_port {
	struct tlm_target_socket ts;
	struct dram_ctrl *d;
	struct tlm_payload *waiting; /* BEGIN_REQ not accepted yet */
	sim_time_t waiting_since;
	struct dram_req *rhead, *rtail; /* responses due, not sent yet */
	struct tlm_payload *resp_open;	/* BEGIN_RESP sent, END_RESP awaited */
	char name[48];
};

struct dram_ctrl {
	struct sim_kernel *k;
	struct dram_cfg cfg;
	struct sim_clock clk;
	const struct addr_map *map;
	struct mem_store *store;
	unsigned channel, nports;
	unsigned atom, burst;	      /* bytes per burst; data-bus cycles per burst */
	unsigned groups;	      /* bank groups */
	uint64_t tccdl, trrdl, twtrl; /* the same-group spacings, at least the short ones */
	struct dram_port *port;
	struct dram_bank *bank;
	unsigned *touched; /* banks with decision scratch set */
	struct dram_req **cand;
	struct dram_chunk *chunks;
	struct dram_req *free;
	struct dram_req *phead, *ptail; /* pipeline (ctrl_latency), arrival order */
	unsigned plen;
	struct dram_req *qhead, *qtail;	 /* read and write queues: requests with bursts left */
	unsigned rq_len, wq_len;	 /* entries in use */
	unsigned committed;		 /* requests in the queues with committed set */
	unsigned queued;		 /* accepted, not answered */
	unsigned *wait;			 /* ports whose BEGIN_REQ waits for room, arrival order */
	unsigned wait_len, wait_kind[2]; /* waiting, and of them reads [0] and writes [1] */
	uint64_t seq;
	/* write drain */
	bool wmode;	  /* serving writes */
	bool owe_read;	  /* a drain ended at its cap: a read goes before the next one */
	uint64_t drained; /* writes started in this drain */
	/* channel state, in cycles */
	struct dram_chan ch;
	int last_dir;	   /* direction of the last column command: -1 none, 0 read, 1 write */
	uint64_t ref_next; /* cycle the next refresh is due (NEVER: no refresh) */
	/* the one pending scheduling callback */
	struct sim_handle wake_h;
	uint64_t wake_cycle;
	bool wake_pending;
	dram_trace_fn trace;
	void *trace_ctx;
	/* stats */
	uint64_t *reads, *writes, *requests, *acts, *pres, *row_hits, *row_misses, *row_conflicts;
	uint64_t *bytes_read, *bytes_written, *bus_busy, *refreshes, *drains, *turnarounds;
	uint64_t *rd_bursts, *wr_bursts, *prea_banks, *open_cycles;
	/* banks open now, and the cycle the first of them opened (open_cycles: DRAMPower's
	 * active time, a bank open) */
	unsigned n_open;
	uint64_t open_since;
	struct cs_stat_avg *occupancy, *latency;
	/* the LT face: contention model and its load meter (fed by both faces) */
	const struct lt_params *ltp;
	struct lt_params lt_default;
	struct lt_res lt;
	uint64_t *lt_requests;
};

/* ---- configuration and closed forms ------------------------------------------------------- */

int dram_cfg_check(const struct dram_cfg *c, struct cs_err *err)
{
	const struct cs_param *p;

	for (p = dram_param_rows; p->key; p++) {
		double v;

		if (p->type == CS_P_ENUM) {
			if (c->scheduler > DRAM_SCHED_FCFS)
				return cs_err_set(err, -CS_ECONFIG, "dram.%s: bad value %u", p->key,
						  c->scheduler);
			continue;
		}
		if (p->type == CS_P_DOUBLE) {
			memcpy(&v, (const char *)c + p->offset, sizeof(v));
		} else {
			uint64_t u;

			memcpy(&u, (const char *)c + p->offset, sizeof(u));
			v = (double)u;
		}
		if (!(v >= p->min && v <= p->max))
			return cs_err_set(err, -CS_ECONFIG, "dram.%s = %g: out of range [%g, %g]",
					  p->key, v, p->min, p->max);
	}
	if (c->tRC < c->tRAS + c->tRP)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "dram.tRC (%llu) must be at least dram.tRAS + dram.tRP (%llu + %llu): "
		    "a row stays open tRAS, then precharges for tRP before the next ACT",
		    (unsigned long long)c->tRC, (unsigned long long)c->tRAS,
		    (unsigned long long)c->tRP);
	if (c->wr_low > c->wr_high)
		return cs_err_set(err, -CS_ECONFIG,
				  "dram.wr_low (%g) must not be above dram.wr_high (%g): a write "
				  "drain starts above the high mark and ends below the low one",
				  c->wr_low, c->wr_high);
	if (c->tRAS < c->tRCD)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "dram.tRAS (%llu) must be at least dram.tRCD (%llu): a row cannot "
		    "close before it can be accessed",
		    (unsigned long long)c->tRAS, (unsigned long long)c->tRCD);
	if (c->banks % c->bank_groups)
		return cs_err_set(err, -CS_ECONFIG,
				  "dram.banks (%llu) must be a multiple of dram.bank_groups (%llu)",
				  (unsigned long long)c->banks, (unsigned long long)c->bank_groups);
	if (c->burst_length % c->data_rate)
		return cs_err_set(err, -CS_ECONFIG,
				  "dram.burst_length (%llu) must be a multiple of dram.data_rate "
				  "(%llu): a burst holds the data bus for whole command cycles",
				  (unsigned long long)c->burst_length,
				  (unsigned long long)c->data_rate);
	if (c->row_bytes % (c->bus_bytes * c->burst_length))
		return cs_err_set(err, -CS_ECONFIG,
				  "dram.row_bytes (%llu) must be a multiple of dram.bus_bytes * "
				  "dram.burst_length (%llu * %llu): a row holds whole bursts",
				  (unsigned long long)c->row_bytes,
				  (unsigned long long)c->bus_bytes,
				  (unsigned long long)c->burst_length);
	if (c->idd0 < c->idd3n || c->idd0 < c->idd2n || c->idd4r < c->idd3n ||
	    c->idd4w < c->idd3n || c->idd5 < c->idd3n)
		return cs_err_set(err, -CS_ECONFIG,
				  "dram.idd0, idd4r, idd4w and idd5 (%g, %g, %g, %g mA) must be at "
				  "least dram.idd3n and idd0 at least dram.idd2n (%g, %g mA): each "
				  "command's energy is its current above standby",
				  c->idd0, c->idd4r, c->idd4w, c->idd5, c->idd3n, c->idd2n);
	if (c->tREFI && c->tREFI <= c->tRFC + c->tRP)
		return cs_err_set(
		    err, -CS_ECONFIG,
		    "dram.tREFI (%llu) must exceed dram.tRFC + dram.tRP (%llu + %llu): "
		    "a refresh must end before the next is due",
		    (unsigned long long)c->tREFI, (unsigned long long)c->tRFC,
		    (unsigned long long)c->tRP);
	return 0;
}

/* DRAMPower 4 (MemoryPowerModel::power_calc): a command's energy is its current above the
 * standby it replaces, over its time, per device; mA x V x ns = pJ. */
void dram_cfg_energies(const struct dram_cfg *c, struct dram_energies *e)
{
	double tck = 1e3 / (double)c->clock_mhz, n = (double)c->devices * c->vdd * tck;
	double burst = (double)(c->burst_length / c->data_rate);
	double vpp_w = (double)c->devices * c->vpp * c->ipp * 1e-3;

	e->act_pj = n * (c->idd0 - c->idd3n) * (double)c->tRAS;
	e->pre_pj = n * (c->idd0 - c->idd2n) * (double)(c->tRC - c->tRAS);
	e->rd_pj = n * (c->idd4r - c->idd3n) * burst;
	e->wr_pj = n * (c->idd4w - c->idd3n) * burst;
	e->ref_pj = n * (c->idd5 - c->idd3n) * (double)c->tRFC;
	e->act_stby_w = (double)c->devices * c->vdd * c->idd3n * 1e-3 + vpp_w;
	e->pre_stby_w = (double)c->devices * c->vdd * c->idd2n * 1e-3 + vpp_w;
	e->ref_w = c->tREFI ? e->ref_pj * 1e-12 / ((double)c->tREFI * tck * 1e-9) : 0;
	e->ref_act =
	    c->tREFI && c->tRFC > c->tRP ? (double)(c->tRFC - c->tRP) / (double)c->tREFI : 0;
}

/* A refresh keeps the channel active for tRFC - tRP of its tREFI (DRAMPower's handleRef),
 * time the banks are closed otherwise (its PREA closed them). */
double dram_background_w(const struct dram_energies *e, double open_share)
{
	double act = open_share + e->ref_act;

	if (act > 1)
		act = 1;
	return act * e->act_stby_w + (1 - act) * e->pre_stby_w + e->ref_w;
}

void dram_decode(const struct dram_cfg *cfg, uint64_t local, unsigned *bank, uint64_t *row)
{
	uint64_t r = local / cfg->row_bytes;

	*bank = (unsigned)(r % cfg->banks);
	*row = r / cfg->banks;
}

double dram_peak_bytes_per_s(const struct dram_cfg *cfg)
{
	return (double)cfg->bus_bytes * (double)cfg->data_rate * (double)cfg->clock_mhz * 1e6;
}

static uint64_t unloaded_cycles(const struct dram_cfg *c, unsigned len, int row_state,
				uint64_t latency)
{
	uint64_t atom = c->bus_bytes * c->burst_length;
	uint64_t burst = c->burst_length / c->data_rate;
	uint64_t ccd = c->tCCDL > c->tCCD ? c->tCCDL : c->tCCD; /* one request's bursts: one bank */
	uint64_t step = ccd > burst ? ccd : burst;
	uint64_t bursts = len ? (len + atom - 1) / atom : 1;
	uint64_t n = c->ctrl_latency + latency + (bursts - 1) * step + burst;

	if (row_state >= DRAM_ROW_CLOSED)
		n += c->tRCD;
	if (row_state >= DRAM_ROW_CONFLICT)
		n += c->tRP;
	return n;
}

uint64_t dram_unloaded_read_cycles(const struct dram_cfg *cfg, unsigned len, int row_state)
{
	return unloaded_cycles(cfg, len, row_state, cfg->tCL);
}

uint64_t dram_unloaded_write_cycles(const struct dram_cfg *cfg, unsigned len, int row_state)
{
	return unloaded_cycles(cfg, len, row_state, cfg->tWL);
}

static sim_time_t cycles_ps(const struct dram_cfg *cfg, uint64_t n)
{
	struct sim_clock clk;

	if (sim_clock_init(&clk, cfg->clock_mhz * 1000000ull))
		return 0;
	return sim_clock_edge(&clk, n);
}

sim_time_t dram_unloaded_read_ps(const struct dram_cfg *cfg, unsigned len, int row_state)
{
	return cycles_ps(cfg, dram_unloaded_read_cycles(cfg, len, row_state));
}

sim_time_t dram_unloaded_write_ps(const struct dram_cfg *cfg, unsigned len, int row_state)
{
	return cycles_ps(cfg, dram_unloaded_write_cycles(cfg, len, row_state));
}

/* ---- state updates (shared by every face) ------------------------------------------------- */

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The edge at or after t, as a cycle number. */
static uint64_t cycle_at_or_after(const struct dram_ctrl *d, sim_time_t t)
{
	uint64_t n = sim_clock_cycle(&d->clk, t);

	return sim_clock_edge(&d->clk, n) == t ? n : n + 1;
}

/* Earliest ACT the channel allows: tRRD, tRFC and the four-activate window. */
static uint64_t dram_chan_act_ok(const struct dram_ctrl *d)
{
	uint64_t e = d->ch.act_ok;

	if (d->cfg.tFAW && d->ch.faw_n >= 4)
		e = max64(e, d->ch.faw[d->ch.faw_i] + d->cfg.tFAW);
	return e;
}

/* Earliest cycle the next command for r can issue, and which command it is. */
static uint64_t dram_next_cmd(const struct dram_ctrl *d, const struct dram_req *r, unsigned *kind)
{
	const struct dram_bank *b = &d->bank[r->bank];
	uint64_t e = max64(d->ch.cmd_ok, r->visible);

	unsigned g = r->bank % d->groups;

	if (b->open == r->row) {
		e = max64(e, max64(b->col_ok, max64(d->ch.col_ok, d->ch.grp_col_ok[g])));
		if (r->write) {
			*kind = DRAM_CMD_WR;
			return max64(e, sub0(d->ch.bus_free, d->cfg.tWL));
		}
		*kind = DRAM_CMD_RD;
		return max64(e, max64(max64(d->ch.rd_ok, d->ch.grp_rd_ok[g]),
				      sub0(d->ch.bus_free, d->cfg.tCL)));
	}
	if (b->open == NO_ROW) {
		*kind = DRAM_CMD_ACT;
		return max64(e, max64(max64(b->act_ok, d->ch.grp_act_ok[g]), dram_chan_act_ok(d)));
	}
	*kind = DRAM_CMD_PRE;
	return max64(e, b->pre_ok);
}

/* A bank closes at cycle c: the last one ends an open stretch (the LT face's cycles may run
 * back to a request's arrival: a stretch that would end before it began counts nothing). */
static void dram_bank_closed(struct dram_ctrl *d, uint64_t c)
{
	if (!--d->n_open && c > d->open_since)
		*d->open_cycles += c - d->open_since;
}

static void dram_do_act(struct dram_ctrl *d, unsigned bank, uint64_t row, uint64_t c)
{
	struct dram_bank *b = &d->bank[bank];

	if (b->open == NO_ROW && !d->n_open++)
		d->open_since = c;
	b->open = row;
	b->col_ok = c + d->cfg.tRCD;
	b->pre_ok = max64(b->pre_ok, c + d->cfg.tRAS);
	b->act_ok = max64(b->act_ok, c + d->cfg.tRC);
	d->ch.act_ok = max64(d->ch.act_ok, c + d->cfg.tRRD);
	d->ch.grp_act_ok[bank % d->groups] = c + d->trrdl;
	d->ch.faw[d->ch.faw_i] = c;
	d->ch.faw_i = (d->ch.faw_i + 1) % 4;
	d->ch.faw_n++;
	d->ch.cmd_ok = c + 1;
	++*d->acts;
}

static void dram_do_pre(struct dram_ctrl *d, unsigned bank, uint64_t c)
{
	struct dram_bank *b = &d->bank[bank];

	if (b->open != NO_ROW)
		dram_bank_closed(d, c);
	b->open = NO_ROW;
	b->act_ok = max64(b->act_ok, c + d->cfg.tRP);
	d->ch.cmd_ok = c + 1;
	++*d->pres;
}

/* One burst; returns the cycle its data has left the bus (the data slot is [end-burst, end)). */
static uint64_t dram_do_col(struct dram_ctrl *d, unsigned bank, bool write, uint64_t c)
{
	struct dram_bank *b = &d->bank[bank];
	uint64_t end = c + (write ? d->cfg.tWL : d->cfg.tCL) + d->burst, prev_free = d->ch.bus_free;

	d->ch.bus_free = end;
	d->ch.col_ok = c + d->cfg.tCCD;
	d->ch.grp_col_ok[bank % d->groups] = c + d->tccdl;
	d->ch.cmd_ok = c + 1;
	if (write) {
		b->pre_ok = max64(b->pre_ok, end + d->cfg.tWR);
		d->ch.rd_ok = max64(d->ch.rd_ok, end + d->cfg.tCDLR);
		d->ch.grp_rd_ok[bank % d->groups] = end + d->twtrl;
	} else {
		b->pre_ok = max64(b->pre_ok, c + d->burst);
	}
	if (d->last_dir >= 0 && d->last_dir != (int)write)
		*d->turnarounds += sub0(end - d->burst, prev_free); /* the bus idles to turn */
	d->last_dir = write;
	*d->bus_busy += d->burst;
	++*(write ? d->wr_bursts : d->rd_bursts);
	return end;
}

/* Writes buf honouring TLM byte enables (a pattern of be_len bytes repeated over len). */
static int store_write_be(struct mem_store *s, const struct tlm_payload *p)
{
	uint32_t be_len = p->byte_enable_len ? p->byte_enable_len : p->len;

	if (!p->byte_enable || be_len >= p->len)
		return mem_store_write_masked(s, p->addr, p->data, p->byte_enable, p->len);
	for (uint32_t off = 0; off < p->len; off += be_len) {
		uint32_t n = p->len - off < be_len ? p->len - off : be_len;
		int rc = mem_store_write_masked(s, p->addr + off, p->data + off, p->byte_enable, n);

		if (rc)
			return rc;
	}
	return 0;
}

/* The functional effect of an access: the values it reads or leaves. */
static int dram_data(struct mem_store *s, struct tlm_payload *p)
{
	if (p->cmd == TLM_WRITE_COMMAND)
		return store_write_be(s, p);
	mem_store_read(s, p->addr, p->data, p->len);
	return 0;
}

/* ---- requests and responses --------------------------------------------------------------- */

static void dram_wake(struct dram_ctrl *d, uint64_t cycle);

static void dram_trace(struct dram_ctrl *d, unsigned kind, unsigned bank, uint64_t row, uint64_t c,
		       uint64_t end, struct tlm_payload *p)
{
	struct dram_cmd_rec rec = {
	    .cycle = c,
	    .kind = kind,
	    .bank = bank,
	    .row = row,
	    .data_start = end ? end - d->burst : 0,
	    .data_end = end,
	    .payload = p,
	};

	d->trace(d->trace_ctx, &rec);
}

/* Bursts a request of len bytes at row offset off needs. */
static unsigned dram_bursts(const struct dram_ctrl *d, uint64_t off, unsigned len)
{
	return (unsigned)((off + len - 1) / d->atom - off / d->atom + 1);
}

static struct dram_req *dram_req_alloc(struct dram_ctrl *d)
{
	struct dram_req *r;

	if (!d->free) {
		struct dram_chunk *ch = calloc(1, sizeof(*ch));

		if (!ch)
			return NULL;
		ch->next = d->chunks;
		d->chunks = ch;
		for (unsigned i = 0; i < POOL_CHUNK; i++) {
			ch->r[i].rnext = d->free;
			d->free = &ch->r[i];
		}
	}
	r = d->free;
	d->free = r->rnext;
	return r;
}

/* Every entry of the read (or write) queue is in use. */
static bool dram_queue_full(const struct dram_ctrl *d, bool write)
{
	return write ? d->wq_len >= d->cfg.write_queue : d->rq_len >= d->cfg.queue;
}

/* Room for a request of this kind: its queue has a free entry (GPGPU-Sim checks the scheduler
 * queue as a request enters the latency pipeline) and, with a pipeline, the pipeline does. */
static bool dram_room(const struct dram_ctrl *d, bool write)
{
	if (dram_queue_full(d, write))
		return false;
	return !d->cfg.ctrl_latency || d->plen < d->cfg.ctrl_latency;
}

/* r takes an entry of its queue. */
static void dram_enqueue(struct dram_ctrl *d, struct dram_req *r)
{
	r->next = NULL;
	r->prev = d->qtail;
	if (d->qtail)
		d->qtail->next = r;
	else
		d->qhead = r;
	d->qtail = r;
	r->entry = true;
	cs_stat_avg_sample(d->occupancy, r->write ? ++d->wq_len : ++d->rq_len);
}

/* Takes p into the controller (dram_room said yes). */
static void dram_accept(struct dram_ctrl *d, unsigned port, struct tlm_payload *p,
			sim_time_t arrived)
{
	struct dram_req *r = dram_req_alloc(d);
	uint64_t local = addrmap_local(d->map, p->addr);
	uint64_t off = local % d->cfg.row_bytes;

	if (!r || dram_data(d->store, p)) {
		sim_fail(d->k, -CS_ENOMEM, "%s: out of memory", d->port[port].name);
		return;
	}
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->seq = d->seq++;
	r->port = port;
	r->arrived = arrived;
	r->write = p->cmd == TLM_WRITE_COMMAND;
	r->left = dram_bursts(d, off, p->len);
	dram_decode(&d->cfg, local, &r->bank, &r->row);
	r->visible = cycle_at_or_after(d, sim_now(d->k)) + d->cfg.ctrl_latency;
	if (d->cfg.ctrl_latency) {
		if (d->ptail)
			d->ptail->next = r;
		else
			d->phead = r;
		d->ptail = r;
		d->plen++;
	} else {
		dram_enqueue(d, r);
	}
	d->queued++;
	lt_res_note(&d->lt, arrived, (double)r->left * (double)max64(d->burst, d->cfg.tCCD));
	tlm_payload_acquire(p); /* held until the response is sent */
	dram_wake(d, r->visible);
}

/* Requests at the head of the pipeline whose time is up move to their queues, in order; one
 * whose queue is full holds the ones behind it. */
static void dram_admit(struct dram_ctrl *d);

static void dram_pipe_drain(struct dram_ctrl *d, uint64_t c)
{
	while (d->phead && d->phead->visible <= c) {
		struct dram_req *r = d->phead;

		if (dram_queue_full(d, r->write))
			return;
		d->phead = r->next;
		if (!d->phead)
			d->ptail = NULL;
		d->plen--;
		dram_enqueue(d, r);
		dram_admit(d); /* a pipeline stage is free */
	}
}

static void dram_end_req_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct dram_port *pt = obj;
	enum tlm_phase ph = TLM_END_REQ;
	sim_time_t delay = 0;

	(void)k;
	tlm_nb_transport_bw(&pt->ts, arg, &ph, &delay);
}

/* Room made: waiting BEGIN_REQs come in, in arrival order among those of one kind; a write
 * that waits for the write queue does not hold up a read (nor the reverse). */
static void dram_admit(struct dram_ctrl *d)
{
	unsigned kept = 0, n = d->wait_len;

	if (!n)
		return;
	for (unsigned i = 0; i < n; i++) {
		struct dram_port *pt = &d->port[d->wait[i]];
		struct tlm_payload *p = pt->waiting;
		bool write = p->cmd == TLM_WRITE_COMMAND;

		if (!dram_room(d, write)) {
			d->wait[kept++] = d->wait[i];
			continue;
		}
		pt->waiting = NULL;
		d->wait_kind[write]--;
		dram_accept(d, (unsigned)(pt - d->port), p, pt->waiting_since);
		sim_schedule(d->k, 0, dram_end_req_cb, pt, p);
	}
	d->wait_len = kept;
}

static void dram_send_resps(struct dram_ctrl *d, struct dram_port *pt)
{
	while (!pt->resp_open && pt->rhead) {
		struct dram_req *r = pt->rhead;
		struct tlm_payload *p = r->p;
		enum tlm_phase ph = TLM_BEGIN_RESP;
		sim_time_t delay = 0;
		enum tlm_sync_enum ret;

		pt->rhead = r->rnext;
		if (!pt->rhead)
			pt->rtail = NULL;
		cs_stat_avg_sample(d->latency, (double)(sim_now(d->k) - r->arrived) / SIM_NS);
		r->rnext = d->free;
		d->free = r;
		d->queued--;
		p->status = TLM_OK_RESPONSE;
		pt->resp_open = p;
		ret = tlm_nb_transport_bw(&pt->ts, p, &ph, &delay);
		if (ret == TLM_ACCEPTED)
			continue; /* END_RESP follows on the forward path (or came already) */
		if (ret == TLM_UPDATED && ph != TLM_END_RESP) {
			sim_fail(d->k, -CS_EPROTO, "%s: BEGIN_RESP answered with %s", pt->name,
				 tlm_phase_name(ph));
			return;
		}
		if (pt->resp_open == p) {
			pt->resp_open = NULL;
			tlm_payload_release(p);
		}
	}
}

static void dram_send_resps_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct dram_port *pt = obj;

	(void)k;
	(void)arg;
	dram_send_resps(pt->d, pt);
}

/* The data of r has crossed the bus: its response is due. */
static void dram_resp_due_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct dram_ctrl *d = obj;
	struct dram_req *r = arg;
	struct dram_port *pt = &d->port[r->port];

	(void)k;
	r->rnext = NULL;
	if (pt->rtail)
		pt->rtail->rnext = r;
	else
		pt->rhead = r;
	pt->rtail = r;
	dram_send_resps(d, pt);
}

/* ---- scheduler ---------------------------------------------------------------------------- */

/* r opened its row or started: the bank holds it now, its queue entry is free (Ramulator 2
 * moves such a request from its read or write buffer to the active buffer). */
static void dram_free_entry(struct dram_ctrl *d, struct dram_req *r)
{
	if (!r->entry)
		return;
	r->entry = false;
	if (r->write)
		d->wq_len--;
	else
		d->rq_len--;
	dram_admit(d);
}

/* r's last column command issued: it leaves the scheduler. */
static void dram_unlink(struct dram_ctrl *d, struct dram_req *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		d->qhead = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		d->qtail = r->prev;
	if (r->committed)
		d->committed--;
}

/* The first column command of r: its counts (every face). */
static void dram_start(struct dram_ctrl *d, struct dram_req *r)
{
	struct tlm_payload *p = r->p;

	++*d->requests;
	++*(r->row_state == DRAM_ROW_HIT      ? d->row_hits
	    : r->row_state == DRAM_ROW_CLOSED ? d->row_misses
					      : d->row_conflicts);
	if (r->write) {
		++*d->writes;
		*d->bytes_written += p->len;
	} else {
		++*d->reads;
		*d->bytes_read += p->len;
	}
}

static void dram_commit(struct dram_ctrl *d, struct dram_req *r)
{
	if (!r->committed) {
		r->committed = true;
		d->committed++;
	}
}

/* Issues command kind for r at cycle c. */
static void dram_issue(struct dram_ctrl *d, struct dram_req *r, unsigned kind, uint64_t c)
{
	struct dram_bank *b = &d->bank[r->bank];
	uint64_t end;

	if (kind == DRAM_CMD_PRE) {
		uint64_t closed = b->open;

		if (r->row_state == DRAM_ROW_HIT)
			r->row_state = DRAM_ROW_CONFLICT;
		b->cur = r; /* the bank serves r next: no other row opens in between */
		dram_commit(d, r);
		dram_do_pre(d, r->bank, c);
		if (d->trace)
			dram_trace(d, kind, r->bank, closed, c, 0, r->p);
		return;
	}
	if (kind == DRAM_CMD_ACT) {
		if (r->row_state == DRAM_ROW_HIT)
			r->row_state = DRAM_ROW_CLOSED;
		b->cur = r;
		dram_commit(d, r);
		dram_do_act(d, r->bank, r->row, c);
		dram_free_entry(d, r);
		if (d->trace)
			dram_trace(d, kind, r->bank, r->row, c, 0, r->p);
		return;
	}
	if (!r->started) {
		r->started = true;
		b->cur = r;
		dram_commit(d, r);
		dram_start(d, r);
		if (r->write && d->wmode)
			d->drained++;
		if (!r->write)
			d->owe_read = false;
		dram_free_entry(d, r);
	}
	end = dram_do_col(d, r->bank, r->write, c);
	if (d->trace)
		dram_trace(d, kind, r->bank, r->row, c, end, r->p);
	if (--r->left)
		return;
	b->cur = NULL;
	dram_unlink(d, r);
	sim_schedule_at(d->k, sim_clock_edge(&d->clk, end), SIM_PRIO_DEFAULT, dram_resp_due_cb, d,
			r);
}

/*
 * All-bank refresh at or after cycle t0 (nothing committed): one PREA once every open bank
 * may precharge, REF once every bank may activate (tRP after the PREA, tRC after its last
 * ACT), then no ACT for tRFC.
 */
static void dram_refresh(struct dram_ctrl *d, uint64_t t0)
{
	uint64_t pa = max64(t0, d->ch.cmd_ok), rf;
	bool open = false;

	for (unsigned i = 0; i < d->cfg.banks; i++)
		if (d->bank[i].open != NO_ROW) {
			open = true;
			pa = max64(pa, d->bank[i].pre_ok);
		}
	if (open) {
		for (unsigned i = 0; i < d->cfg.banks; i++)
			if (d->bank[i].open != NO_ROW) {
				d->bank[i].open = NO_ROW;
				d->bank[i].act_ok = max64(d->bank[i].act_ok, pa + d->cfg.tRP);
				++*d->prea_banks;
				dram_bank_closed(d, pa);
			}
		d->ch.cmd_ok = pa + 1;
		if (d->trace)
			dram_trace(d, DRAM_CMD_PREA, 0, 0, pa, 0, NULL);
	}
	rf = d->ch.cmd_ok;
	for (unsigned i = 0; i < d->cfg.banks; i++)
		rf = max64(rf, d->bank[i].act_ok);
	for (unsigned i = 0; i < d->cfg.banks; i++)
		d->bank[i].act_ok = rf + d->cfg.tRFC;
	d->ch.act_ok = max64(d->ch.act_ok, rf + d->cfg.tRFC);
	d->ch.cmd_ok = rf + 1;
	++*d->refreshes;
	if (d->trace)
		dram_trace(d, DRAM_CMD_REF, 0, 0, rf, 0, NULL);
}

/*
 * Refreshes due by cycle c. One due while requests are committed waits for them (the caller
 * lets only those issue); one due while the channel was idle happened at its time (no
 * callbacks run while idle: they are caught up here). Returns true while one is held back.
 */
static bool dram_refresh_due(struct dram_ctrl *d, uint64_t c)
{
	while (d->ref_next <= c) {
		if (d->committed)
			return true;
		dram_refresh(d, d->ref_next);
		d->ref_next += d->cfg.tREFI;
		if (d->ref_next + d->cfg.tREFI <= c) {
			/* a long idle stretch: every bank is closed, only the last one matters */
			uint64_t n = (c - d->ref_next) / d->cfg.tREFI;

			*d->refreshes += n;
			d->ref_next += n * d->cfg.tREFI;
		}
	}
	return false;
}

/* The direction to serve (Ramulator 2's watermarks, with a cap on a drain while reads wait). */
static void dram_mode(struct dram_ctrl *d)
{
	double wq = (double)d->cfg.write_queue;

	if (!d->wmode) {
		if (d->wq_len &&
		    (!d->rq_len || (!d->owe_read && (double)d->wq_len > d->cfg.wr_high * wq))) {
			d->wmode = true;
			d->drained = 0;
			++*d->drains;
		}
	} else if (d->rq_len && (!d->wq_len || (double)d->wq_len < d->cfg.wr_low * wq ||
				 d->drained >= d->cfg.write_queue)) {
		d->wmode = false;
		d->owe_read = d->drained >= d->cfg.write_queue;
	}
}

/*
 * The request each bank would serve next (frfcfs: its oldest open-row request, else its oldest;
 * fcfs: requests handed to banks in arrival order), among the committed ones and, unless a
 * refresh is held back, those of the direction served. Fills d->cand, returns how many, and
 * sets *next_visible to the cycle the first not yet eligible request becomes eligible.
 */
static unsigned dram_candidates(struct dram_ctrl *d, uint64_t c, bool refresh,
				uint64_t *next_visible)
{
	bool fcfs = d->cfg.scheduler == DRAM_SCHED_FCFS;
	bool blocked = false;
	unsigned n = 0, nt = 0;

	*next_visible = NEVER;
	for (struct dram_req *r = d->qhead; r; r = r->next) {
		struct dram_bank *b = &d->bank[r->bank];

		if (r->visible > c) {
			*next_visible = r->visible;
			break;
		}
		if (b->cur) {
			if (b->cur == r)
				d->cand[n++] = r;
			else if (fcfs)
				blocked = true;
			continue;
		}
		if (!r->committed && (refresh || r->write != d->wmode))
			continue;
		if (fcfs) {
			if (!blocked) {
				b->cur = r; /* handed to its bank */
				d->cand[n++] = r;
			}
			continue;
		}
		if (!b->old) {
			b->old = r;
			d->touched[nt++] = r->bank;
		}
		if (!b->hit && r->row == b->open)
			b->hit = r;
	}
	for (unsigned i = 0; i < nt; i++) {
		struct dram_bank *b = &d->bank[d->touched[i]];

		d->cand[n++] = b->hit ? b->hit : b->old;
		b->hit = b->old = NULL;
	}
	return n;
}

/* True when command a (for request ra) goes before command b (for rb). */
static bool dram_better(const struct dram_ctrl *d, unsigned ka, const struct dram_req *ra,
			unsigned kb, const struct dram_req *rb)
{
	if (d->cfg.scheduler == DRAM_SCHED_FRFCFS) {
		bool ca = ka == DRAM_CMD_RD || ka == DRAM_CMD_WR;
		bool cb = kb == DRAM_CMD_RD || kb == DRAM_CMD_WR;

		if (ca != cb)
			return ca;
	}
	return ra->seq < rb->seq;
}

/* One scheduling step at cycle c: issue the best ready command, if any; returns the next cycle
 * something can happen (NEVER when idle). */
static uint64_t dram_step(struct dram_ctrl *d, uint64_t c)
{
	uint64_t next_visible, next = NEVER;
	struct dram_req *best = NULL;
	unsigned best_kind = 0, n, kind;
	bool refresh;

	refresh = dram_refresh_due(d, c);
	dram_pipe_drain(d, c);
	dram_mode(d);
	n = dram_candidates(d, c, refresh, &next_visible);
	for (unsigned i = 0; i < n; i++) {
		uint64_t e = dram_next_cmd(d, d->cand[i], &kind);

		if (e <= c && (!best || dram_better(d, kind, d->cand[i], best_kind, best))) {
			best = d->cand[i];
			best_kind = kind;
		}
	}
	if (best) {
		dram_issue(d, best, best_kind, c);
		dram_pipe_drain(d, c);
		dram_mode(d);
		n = dram_candidates(d, c, refresh, &next_visible);
	}
	for (unsigned i = 0; i < n; i++)
		next = min64(next, dram_next_cmd(d, d->cand[i], &kind));
	if (d->qhead) /* the mode may change, a refresh fall due */
		next = min64(next, d->ref_next);
	if (d->phead && !dram_queue_full(d, d->phead->write))
		next = min64(next, d->phead->visible);
	next = next < NEVER ? max64(next, c + 1) : next;
	return next < next_visible ? next : next_visible;
}

static void dram_wake_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct dram_ctrl *d = obj;
	sim_time_t now = sim_now(k);
	uint64_t c = cycle_at_or_after(d, now);
	uint64_t next;

	(void)arg;
	d->wake_pending = false;
	if (sim_clock_edge(&d->clk, c) != now) {
		dram_wake(d, c);
		return;
	}
	next = dram_step(d, c);
	if (next != NEVER)
		dram_wake(d, next);
}

/* Makes sure a scheduling step runs at cycle `cycle` (or earlier). */
static void dram_wake(struct dram_ctrl *d, uint64_t cycle)
{
	if (d->wake_pending) {
		if (d->wake_cycle <= cycle)
			return;
		sim_cancel(d->k, d->wake_h);
	}
	d->wake_pending = true;
	d->wake_cycle = cycle;
	d->wake_h = sim_schedule_at(d->k, sim_clock_edge(&d->clk, cycle), SIM_PRIO_DEFAULT,
				    dram_wake_cb, d, NULL);
}

/* ---- sockets ------------------------------------------------------------------------------ */

/* A request this controller cannot serve is a wiring or initiator bug. */
static bool dram_check_req(struct dram_ctrl *d, struct dram_port *pt, struct tlm_payload *p)
{
	uint64_t local;

	if (p->cmd != TLM_READ_COMMAND && p->cmd != TLM_WRITE_COMMAND) {
		sim_fail(d->k, -CS_EPROTO, "%s: command %u not supported", pt->name, p->cmd);
		return false;
	}
	if (addrmap_channel(d->map, p->addr) != d->channel) {
		sim_fail(d->k, -CS_EPROTO, "%s: address 0x%llx belongs to channel %u", pt->name,
			 (unsigned long long)p->addr, addrmap_channel(d->map, p->addr));
		return false;
	}
	local = addrmap_local(d->map, p->addr);
	if (p->len == 0 || local % d->cfg.row_bytes + p->len > d->cfg.row_bytes ||
	    (p->addr & ((UINT64_C(1) << d->map->interleave_shift) - 1)) + p->len >
		(UINT64_C(1) << d->map->interleave_shift)) {
		sim_fail(d->k, -CS_EPROTO,
			 "%s: access 0x%llx + %u crosses a DRAM row or an interleave chunk",
			 pt->name, (unsigned long long)p->addr, p->len);
		return false;
	}
	return true;
}

/* A BEGIN_REQ reaches the controller (at once or after its annotated delay). */
static bool dram_arrive(struct dram_ctrl *d, struct dram_port *pt, struct tlm_payload *p)
{
	bool write = p->cmd == TLM_WRITE_COMMAND;

	if (!d->wait_kind[write] && dram_room(d, write)) {
		dram_accept(d, (unsigned)(pt - d->port), p, sim_now(d->k));
		return true;
	}
	pt->waiting = p;
	pt->waiting_since = sim_now(d->k);
	d->wait[d->wait_len++] = (unsigned)(pt - d->port);
	d->wait_kind[write]++;
	return false;
}

static void dram_arrive_cb(struct sim_kernel *k, void *obj, void *arg)
{
	struct dram_port *pt = obj;

	(void)k;
	if (dram_arrive(pt->d, pt, arg))
		sim_schedule(pt->d->k, 0, dram_end_req_cb, pt, arg);
}

static enum tlm_sync_enum dram_nb_fw(void *obj, struct tlm_payload *p, enum tlm_phase *ph,
				     sim_time_t *delay)
{
	struct dram_port *pt = obj;
	struct dram_ctrl *d = pt->d;

	if (*ph == TLM_END_RESP) {
		if (pt->resp_open != p) {
			sim_fail(d->k, -CS_EPROTO, "%s: END_RESP for a response not open",
				 pt->name);
			return TLM_COMPLETED;
		}
		pt->resp_open = NULL;
		tlm_payload_release(p);
		if (pt->rhead)
			sim_schedule(d->k, 0, dram_send_resps_cb, pt, NULL);
		return TLM_COMPLETED;
	}
	if (*ph != TLM_BEGIN_REQ || pt->waiting) {
		sim_fail(d->k, -CS_EPROTO, "%s: unexpected %s", pt->name, tlm_phase_name(*ph));
		return TLM_COMPLETED;
	}
	if (!dram_check_req(d, pt, p))
		return TLM_COMPLETED;
	if (*delay) {
		sim_schedule(d->k, *delay, dram_arrive_cb, pt, p);
		return TLM_ACCEPTED;
	}
	if (!dram_arrive(d, pt, p))
		return TLM_ACCEPTED;
	*ph = TLM_END_REQ;
	return TLM_UPDATED;
}

static unsigned dram_dbg(void *obj, struct tlm_payload *p)
{
	struct dram_port *pt = obj;

	/* debug access: no time, no statistics */
	if (p->cmd != TLM_READ_COMMAND && p->cmd != TLM_WRITE_COMMAND)
		return 0;
	return dram_data(pt->d->store, p) ? 0 : p->len;
}

/*
 * The LT face: the request is performed at once, with the same command sequence the scheduler
 * would issue for it alone (dram_next_cmd and the dram_do_* state updates: open rows, row
 * hits, activates, precharges, bus time, data), from the cycle it arrives (now + *delay). In
 * exact mode the bank and channel timing state left by earlier requests applies, as in the
 * detailed face for a lone request; otherwise requests of temporally decoupled warps do not
 * arrive in time order, so only the row state carries over and contention is the load
 * meter's M/G/1 wait. Refreshes due by the arrival are caught up first, as the detailed face
 * does after an idle stretch (their row closing always applies, their timing in exact mode);
 * the queues and the write drain are the detailed face's only.
 */
static void dram_b_transport(void *obj, struct tlm_payload *p, sim_time_t *delay)
{
	struct dram_port *pt = obj;
	struct dram_ctrl *d = pt->d;
	sim_time_t t = sim_now(d->k) + *delay;
	struct dram_req r = {0};
	struct dram_chan saved;
	uint64_t local, c0, c, end = 0;
	double wait;

	if (!dram_check_req(d, pt, p)) {
		p->status = TLM_COMMAND_ERROR_RESPONSE;
		return;
	}
	if (dram_data(d->store, p)) {
		sim_fail(d->k, -CS_ENOMEM, "%s: out of memory in the backing store", pt->name);
		return;
	}
	local = addrmap_local(d->map, p->addr);
	r.p = p;
	r.port = (unsigned)(pt - d->port);
	r.write = p->cmd == TLM_WRITE_COMMAND;
	r.left = dram_bursts(d, local % d->cfg.row_bytes, p->len);
	dram_decode(&d->cfg, local, &r.bank, &r.row);
	c0 = cycle_at_or_after(d, t) + d->cfg.ctrl_latency;
	r.visible = c0;
	if (d->cfg.tREFI)
		dram_refresh_due(d, c0); /* the refreshes due by now: rows closed, tRFC */
	{
		struct dram_bank *b = &d->bank[r.bank];

		r.row_state = b->open == r.row	  ? DRAM_ROW_HIT
			      : b->open == NO_ROW ? DRAM_ROW_CLOSED
						  : DRAM_ROW_CONFLICT;
		if (!d->ltp->exact) {
			/* nothing earlier constrains it: contention is the meter's */
			b->col_ok = min64(b->col_ok, c0);
			b->pre_ok = min64(b->pre_ok, c0);
			b->act_ok = min64(b->act_ok, c0);
			d->ch.act_ok = min64(d->ch.act_ok, c0);
			d->ch.col_ok = min64(d->ch.col_ok, c0);
			d->ch.rd_ok = min64(d->ch.rd_ok, c0);
			d->ch.bus_free = min64(d->ch.bus_free, c0);
			d->ch.cmd_ok = min64(d->ch.cmd_ok, c0);
			d->ch.faw_n = 0;
			for (unsigned g = 0; g < d->groups; g++) {
				d->ch.grp_act_ok[g] = min64(d->ch.grp_act_ok[g], c0);
				d->ch.grp_col_ok[g] = min64(d->ch.grp_col_ok[g], c0);
				d->ch.grp_rd_ok[g] = min64(d->ch.grp_rd_ok[g], c0);
			}
		}
	}
	lt_res_note(&d->lt, t, (double)r.left * (double)max64(d->burst, d->cfg.tCCD));
	++*d->lt_requests;
	/* posted: the detailed face drains writes when no read waits, so a write does not hold up
	 * the channel (bus, command slots, ACT window) for the reads after it */
	saved = d->ch;
	while (r.left) {
		unsigned kind;

		c = dram_next_cmd(d, &r, &kind);
		if (kind == DRAM_CMD_PRE) {
			dram_do_pre(d, r.bank, c);
		} else if (kind == DRAM_CMD_ACT) {
			dram_do_act(d, r.bank, r.row, c);
		} else {
			if (!r.started) {
				r.started = true;
				dram_start(d, &r);
			}
			end = dram_do_col(d, r.bank, r.write, c);
			r.left--;
		}
	}
	if (r.write)
		d->ch = saved;
	wait = lt_res_wait(&d->lt, d->ltp, LT_RES_DRAM);
	*delay = sim_clock_edge(&d->clk, end) - sim_now(d->k) +
		 (sim_time_t)(wait * (double)sim_clock_period_ps(&d->clk));
	p->status = TLM_OK_RESPONSE;
}

uint64_t dram_ctrl_bus_busy(const struct dram_ctrl *d)
{
	return *d->bus_busy;
}

sim_time_t dram_ctrl_period_ps(const struct dram_ctrl *d)
{
	return sim_clock_period_ps(&d->clk);
}

void dram_ctrl_set_lt(struct dram_ctrl *d, const struct lt_params *p)
{
	d->ltp = p ? p : &d->lt_default;
	lt_res_init(&d->lt, sim_clock_period_ps(&d->clk), d->ltp);
}

static const struct tlm_fw_ops dram_fw_ops = {
    .b_transport = dram_b_transport,
    .nb_transport_fw = dram_nb_fw,
    .transport_dbg = dram_dbg,
};

/* ---- life cycle --------------------------------------------------------------------------- */

uint64_t dram_ctrl_bytes(const struct dram_ctrl *d, bool write)
{
	return write ? *d->bytes_written : *d->bytes_read;
}

void dram_ctrl_energy(const struct dram_ctrl *d, struct energy_counts *out)
{
	energy_add(out, EN_DRAM_ACT, (double)*d->acts);
	energy_add(out, EN_DRAM_PRE, (double)*d->pres + (double)*d->prea_banks);
	energy_add(out, EN_DRAM_RD, (double)*d->rd_bursts);
	energy_add(out, EN_DRAM_WR, (double)*d->wr_bursts);
	energy_add(out, EN_DRAM_IO_BIT, 8 * ((double)*d->bytes_read + (double)*d->bytes_written));
}

void dram_energy_model(const struct energy_model *in, const struct dram_cfg *cfg,
		       struct dram_ctrl *const *ch, unsigned n, struct energy_model *out)
{
	struct dram_energies e;
	double w = 0;

	*out = *in;
	dram_cfg_energies(cfg, &e);
	energy_model_set_pj(out, EN_DRAM_ACT, e.act_pj);
	energy_model_set_pj(out, EN_DRAM_PRE, e.pre_pj);
	energy_model_set_pj(out, EN_DRAM_RD, e.rd_pj);
	energy_model_set_pj(out, EN_DRAM_WR, e.wr_pj);
	energy_model_set_pj(out, EN_DRAM_IO_BIT, cfg->io_pj_bit);
	for (unsigned i = 0; i < n; i++)
		w += dram_background_w(&e, dram_ctrl_open_share(ch[i]));
	energy_model_set_static(out, EN_DRAM, n ? w / n : dram_background_w(&e, 0));
}

double dram_ctrl_open_share(const struct dram_ctrl *d)
{
	uint64_t now = sim_clock_cycle(&d->clk, sim_now(d->k)), open = *d->open_cycles;
	uint64_t end = now;

	/* an idle channel catches its refreshes up only when the next request comes: the first
	 * one due has closed the rows still open (its PREA), so their stretch ends there */
	if (d->cfg.tREFI && d->ref_next < end)
		end = d->ref_next;
	if (d->n_open && end > d->open_since)
		open += end - d->open_since;
	if (!now)
		return 0;
	return open >= now ? 1 : (double)open / (double)now;
}

void dram_ctrl_destroy(struct dram_ctrl *d)
{
	if (!d)
		return;
	free(d->port);
	free(d->bank);
	free(d->touched);
	free(d->cand);
	free(d->wait);
	while (d->chunks) {
		struct dram_chunk *ch = d->chunks;

		d->chunks = ch->next;
		free(ch);
	}
	free(d);
}

int dram_ctrl_create(struct sim_kernel *k, const struct dram_cfg *cfg, unsigned channel,
		     const struct addr_map *map, struct mem_store *store, unsigned ports,
		     struct cs_stat_group *g, struct dram_ctrl **out, struct cs_err *err)
{
	struct dram_ctrl *d;
	int rc;

	*out = NULL;
	if (!k || !cfg || !map || !store || !g || ports == 0)
		return cs_err_set(err, -CS_EINVAL, "dram: missing kernel, map, store or stats");
	if (map->banks == 0 || map->banks_per_channel == 0 || map->banks % map->banks_per_channel ||
	    map->interleave_shift > 40 || channel >= map->banks / map->banks_per_channel)
		return cs_err_set(err, -CS_EINVAL, "dram: channel %u not in the address map",
				  channel);
	rc = dram_cfg_check(cfg, err);
	if (rc)
		return rc;
	d = calloc(1, sizeof(*d));
	if (!d)
		return cs_err_set(err, -CS_ENOMEM, "dram%u: out of memory", channel);
	d->k = k;
	d->cfg = *cfg;
	sim_clock_init(&d->clk, cfg->clock_mhz * 1000000ull);
	d->map = map;
	d->store = store;
	d->channel = channel;
	d->nports = ports;
	d->atom = (unsigned)(cfg->bus_bytes * cfg->burst_length);
	d->burst = (unsigned)(cfg->burst_length / cfg->data_rate);
	d->groups = (unsigned)cfg->bank_groups;
	d->tccdl = max64(cfg->tCCDL, cfg->tCCD);
	d->trrdl = max64(cfg->tRRDL, cfg->tRRD);
	d->twtrl = max64(cfg->tWTRL, cfg->tCDLR);
	d->port = calloc(ports, sizeof(*d->port));
	d->bank = calloc(cfg->banks, sizeof(*d->bank));
	d->touched = calloc(cfg->banks, sizeof(*d->touched));
	d->cand = calloc(cfg->banks, sizeof(*d->cand));
	d->wait = calloc(ports, sizeof(*d->wait));
	if (!d->port || !d->bank || !d->touched || !d->cand || !d->wait) {
		dram_ctrl_destroy(d);
		return cs_err_set(err, -CS_ENOMEM, "dram%u: out of memory", channel);
	}
	for (unsigned i = 0; i < cfg->banks; i++)
		d->bank[i].open = NO_ROW;
	d->last_dir = -1;
	d->ref_next = cfg->tREFI ? cfg->tREFI : NEVER;
	for (unsigned i = 0; i < ports; i++) {
		struct dram_port *pt = &d->port[i];

		pt->d = d;
		snprintf(pt->name, sizeof(pt->name), "dram%u.port%u", channel, i);
		tlm_target_init(&pt->ts, pt->name, &dram_fw_ops, pt);
	}
	d->reads = cs_stat_counter(g, "reads", "requests", "read requests served");
	d->writes = cs_stat_counter(g, "writes", "requests", "write requests served");
	d->requests =
	    cs_stat_counter(g, "requests", "requests", "requests served (reads + writes)");
	d->acts = cs_stat_counter(g, "activations", "commands", "ACT commands");
	d->pres = cs_stat_counter(g, "precharges", "commands", "PRE commands");
	d->row_hits =
	    cs_stat_counter(g, "row_hits", "requests", "requests that found their row open");
	d->row_misses = cs_stat_counter(g, "row_misses", "requests",
					"requests that found their bank precharged (ACT only)");
	d->row_conflicts = cs_stat_counter(g, "row_conflicts", "requests",
					   "requests that found another row open (PRE + ACT)");
	d->bytes_read = cs_stat_counter(g, "bytes_read", "bytes", "bytes read by requests");
	d->bytes_written =
	    cs_stat_counter(g, "bytes_written", "bytes", "bytes written by requests");
	d->bus_busy =
	    cs_stat_counter(g, "bus_busy", "cycles", "command cycles the data bus is busy");
	d->refreshes = cs_stat_counter(g, "refreshes", "commands", "all-bank REF commands");
	d->rd_bursts = cs_stat_counter(g, "rd_bursts", "commands", "RD commands (data bursts)");
	d->wr_bursts = cs_stat_counter(g, "wr_bursts", "commands", "WR commands (data bursts)");
	d->prea_banks = cs_stat_counter(g, "prea_banks", "banks",
					"open banks a refresh's PREA closed (not in precharges)");
	d->open_cycles = cs_stat_counter(g, "open_cycles", "cycles",
					 "cycles with at least one bank open (ended stretches)");
	d->drains = cs_stat_counter(g, "write_queue_drains", "drains",
				    "switches from serving reads to serving writes");
	d->turnarounds = cs_stat_counter(
	    g, "turnaround_cycles", "cycles",
	    "data-bus cycles idle between bursts of opposite directions (read/write "
	    "turnarounds)");
	d->occupancy =
	    cs_stat_average(g, "queue_occupancy", "requests",
			    "entries in use in its queue (read or write) as each request "
			    "takes one (itself included)");
	d->latency = cs_stat_average(g, "latency", "ns", "BEGIN_REQ arrival to BEGIN_RESP");
	cs_stat_ratio(g, "row_hit_rate", "row_hits / requests", d->row_hits, d->requests);
	d->lt_requests =
	    cs_stat_counter(g, "lt_requests", "requests",
			    "requests served by the loosely-timed face (included above)");
	lt_params_default(&d->lt_default);
	dram_ctrl_set_lt(d, NULL);
	*out = d;
	return 0;
}

struct tlm_target_socket *dram_ctrl_port(struct dram_ctrl *d, unsigned i)
{
	return i < d->nports ? &d->port[i].ts : NULL;
}

unsigned dram_ctrl_queued(const struct dram_ctrl *d)
{
	return d->queued;
}

unsigned dram_ctrl_queue_len(const struct dram_ctrl *d, bool write)
{
	return write ? d->wq_len : d->rq_len;
}

void dram_ctrl_set_trace(struct dram_ctrl *d, dram_trace_fn fn, void *ctx)
{
	d->trace = fn;
	d->trace_ctx = ctx;
}
