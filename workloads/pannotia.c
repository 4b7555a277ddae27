/*
 * workloads/pannotia.c - seed 004's Pannotia graph applications on per-CTA work-stealing task
 * queues: sssp, color, pagerank (pannotia.h; docs/workloads.md, "Pannotia graph workloads").
 *
 * Every kernel is one of Pannotia's (Che et al., IISWC 2013; AMD's OpenCL code), with "thread
 * tid handles node tid" replaced by the task queues of Alsop et al. (MICRO 2016, after Orr et
 * al., ASPLOS 2015): one CTA of two wavefronts per SM, pinned, owning one queue; the host
 * spreads the nodes evenly over the queues before every launch (contiguous ranges cut into
 * tasks of workload.chunk nodes); warp 0 pops a task from its own queue, or when it is empty
 * (and the scenario steals) tries the other queues one at a time from a victim workload.victim
 * chooses, polling a count of drained queues before every try; the task goes to both warps
 * through the scratchpad, each lane handles one node. Every queue drained, or a round of the
 * others all found empty, ends the CTA (no task is made during a launch, so an empty queue
 * stays empty).
 *
 *   sssp:     spmv_min_dot_plus (y[i] = min(x[i], min_j x[j] + w_ij)) until nothing changes;
 *             Pannotia's vector_diff is folded in (a changed node sets the stop word) and its
 *             vector_assign is a swap of x and y. Source node 0.
 *   color:    color (max over the uncolored neighbours' values; stop if any) then color2 (a
 *             node above that max takes this round's color) until a round finds no uncolored
 *             node with an uncolored neighbour. Node values: a seeded permutation (distinct).
 *   pagerank: pagerank1 (each node adds rank / degree to its neighbours' next rank with
 *             atomics) then pagerank2 (rank = 0.15 / n + 0.85 next; next = 0), 20 iterations,
 *             in fixed point (1.0 = 2^30) so that the order of the adds does not matter.
 *
 * The host runs the same iterations and checks every output bit for bit, the iteration count,
 * and that every task of every launch was processed exactly once (counted by the simulator:
 * the counters cost no simulated traffic, nor do the pop and steal statistics of the note).
 */
#include "workloads/pannotia.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tlm/system/gpu.h"
#include "util/error.h"
#include "workloads/graph/graph.h"
#include "workloads/wl_util.h"
#include "workloads/wsq.h"

const char *const pannotia_graph_names[] = {"auto",	    "usa-road-d.bay", "usa-road-d.col",
					    "c-68",	    "ecology1",	      "coauthorsdblp",
					    "dictionary28", "opf_10000",      NULL};

#define PN_TAG	   0x70616e6e00000000ull /* "pann" */
#define PN_WARPS   2			 /* wavefronts per work-group (seed 004) */
#define PN_REC	   4			 /* task record: first node, nodes, task id, 0 */
#define PN_INF	   0x3fffffffu		 /* sssp: not reached (Pannotia's BIG_NUM) */
#define PN_UNCOL   0xffffffffu		 /* color: not colored yet (Pannotia's -1) */
#define PR_ONE	   (1u << 30)		 /* pagerank: fixed-point 1.0 */
#define PR_ITER	   20			 /* pagerank: Pannotia's ITER */
#define PN_SM_SLOT 4			 /* scratchpad words per task slot */

enum pn_kind { K_SSSP, K_COLOR1, K_COLOR2, K_PR1, K_PR2 };
static const char *const kind_names[] = {"sssp_relax", "color_max", "color_assign", "pr_push",
					 "pr_update"};

/* What next_task found: nothing, a task of the own queue, a stolen one. */
enum pn_found { PN_NONE, PN_OWN, PN_STOLEN, PN_FOUND_KINDS };

/* Simulator-side counters (no simulated memory traffic). */
struct pn_stats {
	uint64_t pop_tries, pops, steal_tries, steals, lost, tasks;
	/* warp 0's cycles by what next_task found (the wsq time note): finding it (a steal's: the
	 * failed pop and every try before it), and running the task it found (from the barrier
	 * that hands it out to warp 0's next look: its own share of the nodes; PN_NONE unused) */
	uint64_t find[PN_FOUND_KINDS], run[PN_FOUND_KINDS];
};

/* When a CTA started the launch, last popped a task of its own queue, and first found its own
 * queue giving it nothing (0: not yet). */
struct pn_cta_cycles {
	uint64_t start, last_pop, own_end;
};

struct pn_args {
	struct wsq q;
	struct wsq_sync own, thief;
	bool stealing;
	unsigned victim; /* enum wsq_victim */
	unsigned kind;	 /* enum pn_kind */
	uint32_t n, ntasks;
	uint64_t row, col, wt;	     /* CSR */
	uint64_t in, out;	     /* sssp: distances x, y; pagerank: rank, next */
	uint64_t value, color, maxv; /* color */
	uint64_t stop;		     /* uint32 on its own line */
	uint64_t drained; /* uint32 on its own line: queues whose owner took their last task */
	uint32_t colour, pr_base;  /* this round's color; pagerank's 0.15 / n */
	struct pn_stats *st;	   /* host memory */
	uint32_t *times;	   /* host memory: per task, times processed this launch */
	struct pn_cta_cycles *cyc; /* host memory, per CTA, this launch (pn_balance) */
};

/* ---- warp side ------------------------------------------------------------------------------ */

/* Addresses of arr[first + l] for the cnt lanes from 0; returns their mask. */
static uint64_t node_addrs(uint64_t *addr, uint64_t arr, uint32_t first, unsigned cnt)
{
	for (unsigned l = 0; l < cnt; l++)
		addr[l] = arr + 4ull * (first + l);
	return cnt >= 64 ? ~0ull : (1ull << cnt) - 1;
}

static uint32_t max_degree(const uint32_t *start, const uint32_t *end, uint64_t mask,
			   unsigned lanes)
{
	uint32_t m = 0;

	for (unsigned l = 0; l < lanes; l++)
		if ((mask >> l & 1) && end[l] - start[l] > m)
			m = end[l] - start[l];
	return m;
}

/* Lanes of mask whose k-th edge exists: their addresses of col[start + k]. */
static uint64_t edge_addrs(uint64_t *addr, uint64_t col, const uint32_t *start, const uint32_t *end,
			   uint64_t mask, unsigned lanes, uint32_t k)
{
	uint64_t act = 0;

	for (unsigned l = 0; l < lanes; l++)
		if ((mask >> l & 1) && start[l] + k < end[l]) {
			act |= 1ull << l;
			addr[l] = col + 4ull * (start[l] + k);
		}
	return act;
}

static void load_rows(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt,
		      uint64_t mask, uint32_t *start, uint32_t *end)
{
	uint64_t addr[WARP_LANES_MAX];

	node_addrs(addr, a->row, first, cnt);
	gw_ld32v(w, addr, mask, start);
	node_addrs(addr, a->row, first + 1, cnt);
	gw_ld32v(w, addr, mask, end);
}

/* Pannotia's spmv_min_dot_plus_kernel, with vector_diff's test. */
static void sssp_nodes(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt)
{
	unsigned lanes = gw_lanes(w);
	uint64_t addr[WARP_LANES_MAX], mask = node_addrs(addr, a->in, first, cnt), act;
	uint32_t x[WARP_LANES_MAX], d[WARP_LANES_MAX], start[WARP_LANES_MAX], end[WARP_LANES_MAX];
	uint32_t nb[WARP_LANES_MAX], wt[WARP_LANES_MAX], xn[WARP_LANES_MAX];
	bool changed = false;

	gw_ld32v(w, addr, mask, x);
	load_rows(w, a, first, cnt, mask, start, end);
	memcpy(d, x, sizeof(x));
	gw_compute(w, 6); /* index, bounds, addresses */
	for (uint32_t k = 0, m = max_degree(start, end, mask, lanes); k < m; k++) {
		act = edge_addrs(addr, a->col, start, end, mask, lanes, k);
		gw_ld32v(w, addr, act, nb);
		for (unsigned l = 0; l < lanes; l++)
			if (act >> l & 1)
				addr[l] = a->wt + 4ull * (start[l] + k);
		gw_ld32v(w, addr, act, wt);
		for (unsigned l = 0; l < lanes; l++)
			if (act >> l & 1)
				addr[l] = a->in + 4ull * nb[l];
		gw_ld32v(w, addr, act, xn);
		for (unsigned l = 0; l < lanes; l++)
			if ((act >> l & 1) && (uint64_t)xn[l] + wt[l] < d[l])
				d[l] = xn[l] + wt[l];
		gw_compute(w, 8); /* loop, edge index, two addresses, add, compare */
	}
	node_addrs(addr, a->out, first, cnt);
	gw_st32v(w, addr, mask, d);
	for (unsigned l = 0; l < cnt; l++)
		changed |= d[l] != x[l];
	if (changed)
		gw_st32(w, a->stop, 1);
}

/* Loads the colors of the cnt nodes from first into c; returns the mask of the uncolored. */
static uint64_t uncolored(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt,
			  uint32_t *c)
{
	uint64_t addr[WARP_LANES_MAX], mask = node_addrs(addr, a->color, first, cnt), un = 0;

	gw_ld32v(w, addr, mask, c);
	for (unsigned l = 0; l < cnt; l++)
		if (c[l] == PN_UNCOL)
			un |= 1ull << l;
	gw_compute(w, 6); /* index, bounds, address, the test */
	return un;
}

/* Pannotia's color kernel (the max of the uncolored neighbours' values; stop = 1 when there is
 * one). Its `start != end - 1` exception (a node of degree 1 ignores its neighbour, which can
 * give both the same color) is left out: the result is a proper coloring. */
static void color1_nodes(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt)
{
	unsigned lanes = gw_lanes(w);
	uint64_t addr[WARP_LANES_MAX], un, act;
	uint32_t c[WARP_LANES_MAX], start[WARP_LANES_MAX], end[WARP_LANES_MAX];
	uint32_t nb[WARP_LANES_MAX], v[WARP_LANES_MAX], mx[WARP_LANES_MAX] = {0};
	bool stop = false;

	un = uncolored(w, a, first, cnt, c);
	if (!un)
		return;
	load_rows(w, a, first, cnt, un, start, end);
	for (uint32_t k = 0, m = max_degree(start, end, un, lanes); k < m; k++) {
		uint64_t open = 0;

		act = edge_addrs(addr, a->col, start, end, un, lanes, k);
		gw_ld32v(w, addr, act, nb);
		for (unsigned l = 0; l < lanes; l++)
			if (act >> l & 1)
				addr[l] = a->color + 4ull * nb[l];
		gw_ld32v(w, addr, act, c);
		for (unsigned l = 0; l < lanes; l++)
			if ((act >> l & 1) && c[l] == PN_UNCOL) {
				open |= 1ull << l;
				addr[l] = a->value + 4ull * nb[l];
			}
		gw_compute(w, 8); /* loop, edge index, addresses, the color test */
		if (!open)
			continue;
		stop = true;
		gw_ld32v(w, addr, open, v);
		for (unsigned l = 0; l < lanes; l++)
			if ((open >> l & 1) && v[l] > mx[l])
				mx[l] = v[l];
		gw_compute(w, 2);
	}
	node_addrs(addr, a->maxv, first, cnt);
	gw_st32v(w, addr, un, mx);
	if (stop)
		gw_st32(w, a->stop, 1);
}

/* Pannotia's color2: an uncolored node above the max of its uncolored neighbours takes the
 * round's color. */
static void color2_nodes(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt)
{
	uint64_t addr[WARP_LANES_MAX], un, win = 0;
	uint32_t c[WARP_LANES_MAX], v[WARP_LANES_MAX], mx[WARP_LANES_MAX];

	un = uncolored(w, a, first, cnt, c);
	if (!un)
		return;
	node_addrs(addr, a->value, first, cnt);
	gw_ld32v(w, addr, un, v);
	node_addrs(addr, a->maxv, first, cnt);
	gw_ld32v(w, addr, un, mx);
	for (unsigned l = 0; l < cnt; l++)
		if ((un >> l & 1) && v[l] > mx[l]) {
			win |= 1ull << l;
			c[l] = a->colour;
		}
	gw_compute(w, 4);
	if (!win)
		return;
	node_addrs(addr, a->color, first, cnt);
	gw_st32v(w, addr, win, c);
}

/* Pannotia's pagerank1: rank / degree added to every neighbour's next rank (atomics). */
static void pr1_nodes(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt)
{
	unsigned lanes = gw_lanes(w);
	uint64_t addr[WARP_LANES_MAX], mask = node_addrs(addr, a->in, first, cnt), act;
	uint64_t add[WARP_LANES_MAX] = {0};
	uint32_t r[WARP_LANES_MAX], start[WARP_LANES_MAX], end[WARP_LANES_MAX], nb[WARP_LANES_MAX];

	gw_ld32v(w, addr, mask, r);
	load_rows(w, a, first, cnt, mask, start, end);
	for (unsigned l = 0; l < cnt; l++)
		add[l] = end[l] > start[l] ? r[l] / (end[l] - start[l]) : 0;
	gw_compute(w, 12); /* index, bounds, the division */
	for (uint32_t k = 0, m = max_degree(start, end, mask, lanes); k < m; k++) {
		act = edge_addrs(addr, a->col, start, end, mask, lanes, k);
		gw_ld32v(w, addr, act, nb);
		for (unsigned l = 0; l < lanes; l++)
			if (act >> l & 1)
				addr[l] = a->out + 4ull * nb[l];
		gw_atomv(w, MEM_ATOM_ADD, addr, act, 4, add, NULL, NULL, MEM_SCOPE_DEVICE,
			 MEM_ORDER_RELAXED);
		gw_compute(w, 4);
	}
}

/* Pannotia's pagerank2: rank = 0.15 / n + 0.85 next; next = 0. */
static void pr2_nodes(struct gpu_warp *w, const struct pn_args *a, uint32_t first, unsigned cnt)
{
	uint64_t addr[WARP_LANES_MAX], mask = node_addrs(addr, a->out, first, cnt);
	uint32_t nx[WARP_LANES_MAX], r[WARP_LANES_MAX] = {0};

	gw_ld32v(w, addr, mask, nx);
	for (unsigned l = 0; l < cnt; l++)
		r[l] = a->pr_base + (uint32_t)((uint64_t)nx[l] * 85 / 100);
	gw_compute(w, 8);
	memset(nx, 0, sizeof(nx));
	gw_st32v(w, addr, mask, nx);
	node_addrs(addr, a->in, first, cnt);
	gw_st32v(w, addr, mask, r);
}

/* Whether every queue's owner has taken its last task (the drained count is the number of
 * queues): nothing is left to steal. A relaxed agent-scope load (the count orders nothing). */
static bool all_drained(struct gpu_warp *w, const struct pn_args *a)
{
	return gw_atom_load(w, a->drained, 4, mem_scope_base(a->thief.scope), MEM_ORDER_RELAXED) ==
	       a->q.queues;
}

/* Warp 0: a task from the own queue, else (stealing) from the other queues, one victim at a
 * time starting where the victim policy says, the drained count polled before each try (the
 * termination test of Cederman & Tsigas between steal attempts). PN_OWN or PN_STOLEN with the
 * record, or PN_NONE: no work left for this CTA (every queue drained, or a whole round of the
 * others found empty). */
static enum pn_found next_task(struct gpu_warp *w, const struct pn_args *a, struct wsq_owner *o,
			       unsigned *last, bool *counted, uint32_t *rec)
{
	unsigned me = gw_cta(w), nq = a->q.queues, s0;
	int got = 0;

	if (o->bot) {
		a->st->pop_tries++;
		got = wsq_pop(w, &a->q, me, o, &a->own, rec, NULL);
		a->st->pops += (unsigned)got;
		if (got)
			a->cyc[me].last_pop = gw_cycle(w);
	}
	if (!got && !a->cyc[me].own_end)
		a->cyc[me].own_end = gw_cycle(w);
	if (!a->stealing || nq < 2)
		return got ? PN_OWN : PN_NONE;
	if (o->bot == 0 && !*counted) {
		/* the own queue is empty for good (nothing is pushed during a launch). The count
		 * orders nothing and no work-group-scope op touches it: agent scope even when steals
		 * are remote (under rsp a remote-scope poll would cost two broadcasts to every CU).
		 * A reduction (no old value: PTX red): the owner does not wait for the add, which
		 * queues behind the other owners' at the counter's L2 bank, before its last task */
		uint64_t addr[WARP_LANES_MAX] = {a->drained}, one[WARP_LANES_MAX] = {1};

		gw_atomv(w, MEM_ATOM_ADD, addr, 1, 4, one, NULL, NULL,
			 mem_scope_base(a->thief.scope), MEM_ORDER_RELAXED);
		*counted = true;
	}
	if (got)
		return PN_OWN;
	if (a->victim == WSQ_VICTIM_RING)
		s0 = 0;
	else if (a->victim == WSQ_VICTIM_STICKY && *last < nq - 1)
		s0 = *last;
	else
		s0 = (unsigned)(gw_rand(w) % (nq - 1));
	gw_compute(w, 4); /* the victim */
	for (unsigned k = 0; k < nq - 1;) {
		unsigned off = (s0 + k) % (nq - 1), v = (me + 1 + off) % nq;
		enum wsq_steal_result r;

		if (all_drained(w, a))
			return PN_NONE; /* every queue is empty: no more tries */
		r = wsq_steal(w, &a->q, v, &a->thief, rec, NULL);
		a->st->steal_tries++;
		if (r == WSQ_STOLEN) {
			a->st->steals++;
			*last = off;
			return PN_STOLEN;
		}
		if (r == WSQ_LOST)
			a->st->lost++; /* the victim had more: try it again */
		else
			k++;
	}
	return PN_NONE;
}

static void pn_kernel(struct gpu_warp *w)
{
	const struct pn_args *a = gw_args(w);
	uint32_t *sm = gw_smem(w);
	unsigned wid = gw_warp(w), nw = gw_warps_per_cta(w), lanes = gw_lanes(w);
	unsigned last = UINT32_MAX;
	bool counted = false;
	struct wsq_owner own = {0};
	uint64_t handed = 0;		 /* warp 0: when the current task was handed out */
	enum pn_found running = PN_NONE; /* warp 0: the current task's kind */

	if (wid == 0) {
		a->cyc[gw_cta(w)].start = gw_cycle(w);
		wsq_owner_load(w, &a->q, gw_cta(w), &a->own, &own);
	}
	/* Two scratchpad slots used in turn: warp 0 writes slot i % 2 only after every warp has
	 * passed the barrier of task i - 1, so nobody still reads it. */
	for (unsigned it = 0;; it++) {
		uint32_t *slot = sm + (it & 1) * PN_SM_SLOT, first, count;

		if (wid == 0) {
			uint32_t rec[PN_REC] = {0};
			uint64_t t0 = gw_cycle(w);
			enum pn_found got;

			if (running != PN_NONE)
				a->st->run[running] += t0 - handed;
			got = next_task(w, a, &own, &last, &counted, rec);
			a->st->find[got] += gw_cycle(w) - t0;
			running = got;

			if (got && (rec[2] >= a->ntasks || rec[1] == 0 || rec[0] >= a->n ||
				    rec[1] > a->n - rec[0])) {
				gw_fail(w,
					"%s: CTA %u read a garbage task record (first %" PRIu32
					", nodes %" PRIu32 ", id %" PRIu32 ")",
					kind_names[a->kind], gw_cta(w), rec[0], rec[1], rec[2]);
				got = PN_NONE;
			}
			if (got) {
				a->st->tasks++;
				a->times[rec[2]]++;
			}
			slot[0] = (uint32_t)got;
			slot[1] = rec[0];
			slot[2] = rec[1];
			gw_smem_access(w);
		}
		gw_barrier(w);
		gw_smem_access(w);
		if (!slot[0])
			return;
		if (wid == 0)
			handed = gw_cycle(w);
		first = slot[1];
		count = slot[2];
		for (uint32_t off = wid * lanes; off < count; off += nw * lanes) {
			uint32_t f = first + off;
			unsigned cnt = count - off < lanes ? count - off : lanes;

			switch (a->kind) {
			case K_SSSP:
				sssp_nodes(w, a, f, cnt);
				break;
			case K_COLOR1:
				color1_nodes(w, a, f, cnt);
				break;
			case K_COLOR2:
				color2_nodes(w, a, f, cnt);
				break;
			case K_PR1:
				pr1_nodes(w, a, f, cnt);
				break;
			default:
				pr2_nodes(w, a, f, cnt);
				break;
			}
		}
	}
}

/* ---- host side ------------------------------------------------------------------------------ */

struct pn_run {
	const char *who;
	struct graph *g;
	char gname[CS_PARAM_STR_MAX];
	struct pn_args a;
	struct pn_stats st;
	struct gpu_kernel k;
	uint16_t *cta_sm;
	uint32_t *recs;	  /* all tasks, queue after queue */
	unsigned *qtasks; /* tasks per queue */
	unsigned chunk, launches;
	enum wsq_scenario scenario;
	/* pn_balance over the launches, in CTA cycles: the task phases' (each launch's from its
	 * first CTA's start to its last CTA's own queue's end, times the CTAs), the CTAs' idle
	 * cycles after their own queue's end, and those of them while another queue still held
	 * a task */
	uint64_t phase_cycles, idle_cycles, stealable_cycles;
};

enum graph_tier pannotia_graph_tier(enum gpu_size size)
{
	switch (size) {
	case GPU_SIZE_TINY:
		return GRAPH_TIER_TINY;
	case GPU_SIZE_SMALL:
		return GRAPH_TIER_SMALL;
	case GPU_SIZE_DEFAULT:
		return GRAPH_TIER_DEFAULT;
	default:
		return GRAPH_TIER_FULL;
	}
}

/* The input graph: the file, or the generator of workload.graph (auto: dflt) at the size's
 * tier. */
static int pn_graph(struct gpu_host *h, struct pn_run *r, enum graph_shape dflt, bool weights)
{
	const struct gpu_workload_cfg *wc = gh_workload_cfg(h);
	struct cs_err err = {0};
	enum graph_shape s = dflt;
	int rc;

	if (wc->graph_file[0]) {
		const char *base = strrchr(wc->graph_file, '/');

		rc = graph_read(wc->graph_file, &r->g, NULL, &err);
		if (rc)
			return gh_error(h, rc, "%s: workload.graph_file: %s", r->who, err.msg);
		snprintf(r->gname, sizeof(r->gname), "%s", base ? base + 1 : wc->graph_file);
		if (graph_nodes(r->g) == 0)
			return gh_error(h, -CS_EINVAL, "%s: workload.graph_file %s: no nodes",
					r->who, wc->graph_file);
		if (weights && !graph_weight(r->g) &&
		    graph_set_weights(r->g, gh_seed(h) ^ PN_TAG, 1, 1000) != 0)
			return -CS_ENOMEM;
		return 0;
	}
	if (wc->graph) {
		rc = graph_shape_find(pannotia_graph_names[wc->graph], &s, &err);
		if (rc)
			return gh_error(h, rc, "%s: workload.graph: %s", r->who, err.msg);
	}
	rc = graph_generate(s, graph_tier_nodes(s, pannotia_graph_tier(gh_size(h))), gh_seed(h),
			    &r->g, &err);
	if (rc)
		return gh_error(h, rc, "%s: %s", r->who, err.msg);
	snprintf(r->gname, sizeof(r->gname), "%s", graph_original(s)->name);
	return 0;
}

/* n uint32 on the device (an edgeless graph: one zero word). */
static uint64_t pn_upload(struct gpu_host *h, const uint32_t *v, uint32_t n)
{
	return n ? wl_upload(h, v, (size_t)n * 4) : wl_alloc_zero(h, 4);
}

/* The graph on the device, the queues and their tasks, the kernel. */
static int pn_setup(struct gpu_host *h, struct pn_run *r, enum graph_shape dflt, bool weights)
{
	const struct gpu_workload_cfg *wc = gh_workload_cfg(h);
	struct pn_args *a = &r->a;
	unsigned nq = gh_sms(h), lanes = gh_lanes(h), cap = 1;
	uint32_t n, t = 0;
	int rc = pn_graph(h, r, dflt, weights);

	if (rc)
		return rc;
	n = graph_nodes(r->g);
	r->scenario = (enum wsq_scenario)wc->scenario;
	r->chunk = wc->chunk ? (unsigned)wc->chunk : PN_WARPS * lanes;
	wsq_scenario_sync(r->scenario, &a->own, &a->thief, &a->stealing);
	a->victim = wc->victim;
	a->thief.probe = wc->steal_probe == WSQ_PROBE_PLAIN;
	a->own.sc = wc->queue_order == WSQ_ORDER_SC;
	a->n = n;
	a->st = &r->st;
	r->qtasks = calloc(nq, sizeof(*r->qtasks));
	r->cta_sm = calloc(nq, sizeof(*r->cta_sm));
	if (!r->qtasks || !r->cta_sm)
		return -CS_ENOMEM;
	for (unsigned q = 0; q < nq; q++) {
		uint32_t lo = (uint32_t)((uint64_t)n * q / nq),
			 hi = (uint32_t)((uint64_t)n * (q + 1) / nq);

		r->qtasks[q] = (hi - lo + r->chunk - 1) / r->chunk;
		cap = r->qtasks[q] > cap ? r->qtasks[q] : cap;
		a->ntasks += r->qtasks[q];
		r->cta_sm[q] = (uint16_t)q;
	}
	if (cap > WSQ_MAX_CAP)
		return gh_error(
		    h, -CS_EINVAL,
		    "%s: workload.chunk = %u makes %u tasks for one queue, more than the "
		    "%u a queue holds (a larger chunk)",
		    r->who, r->chunk, cap, WSQ_MAX_CAP);
	r->recs = calloc((size_t)a->ntasks * PN_REC, sizeof(*r->recs));
	a->times = calloc(a->ntasks, sizeof(*a->times));
	a->cyc = calloc(nq, sizeof(*a->cyc));
	if (!r->recs || !a->times || !a->cyc)
		return -CS_ENOMEM;
	for (unsigned q = 0; q < nq; q++) {
		uint32_t lo = (uint32_t)((uint64_t)n * q / nq),
			 hi = (uint32_t)((uint64_t)n * (q + 1) / nq);

		for (uint32_t f = lo; f < hi; f += r->chunk, t++) {
			uint32_t *rec = r->recs + (size_t)t * PN_REC;

			rec[0] = f;
			rec[1] = hi - f < r->chunk ? hi - f : r->chunk;
			rec[2] = t;
		}
	}
	rc = wsq_alloc(h, &a->q, nq, cap, PN_REC);
	if (rc)
		return rc;
	a->row = wl_upload(h, graph_row(r->g), ((size_t)n + 1) * 4);
	a->col = pn_upload(h, graph_col(r->g), graph_entries(r->g));
	if (weights)
		a->wt = pn_upload(h, graph_weight(r->g), graph_entries(r->g));
	a->stop = wl_alloc_zero(h, WL_LINE_BYTES);
	a->drained = wl_alloc_zero(h, WL_LINE_BYTES);
	r->k = (struct gpu_kernel){.ctas = nq,
				   .warps_per_cta = PN_WARPS,
				   .regs_per_thread = 32,
				   .smem_bytes = 2 * PN_SM_SLOT * 4,
				   .fn = pn_kernel,
				   .args = a,
				   .cta_sm = r->cta_sm,
				   .lanes = lanes};
	if (gh_max_ctas_per_sm(h, &r->k) == 0)
		return gh_no_fit(h, &r->k);
	return 0;
}

/* How evenly the launch's work fell on the queues (V4): its task phase runs from the first
 * CTA's start to the last CTA's finding its own queue empty. A CTA whose own queue ended
 * before is idle without stealing; stealing can fill only the part of that while another
 * queue still holds a task (a task is not split), which bounds what it can gain. */
static void pn_balance(struct pn_run *r)
{
	const struct pn_args *a = &r->a;
	unsigned nq = a->q.queues;
	uint64_t first = UINT64_MAX, last = 0, avail = 0;

	for (unsigned q = 0; q < nq; q++) {
		const struct pn_cta_cycles *c = &a->cyc[q];

		first = c->start < first ? c->start : first;
		last = c->own_end > last ? c->own_end : last;
		avail = c->last_pop > avail ? c->last_pop : avail;
	}
	if (last <= first)
		return;
	r->phase_cycles += (last - first) * nq;
	for (unsigned q = 0; q < nq; q++) {
		uint64_t end = a->cyc[q].own_end;

		r->idle_cycles += last - end;
		if (avail > end)
			r->stealable_cycles += avail - end;
	}
}

/* One launch of kernel `kind` over every node: queues refilled, stop word cleared; then every
 * task must have been processed exactly once. *stop (may be NULL): the stop word after. */
static int pn_launch(struct gpu_host *h, struct pn_run *r, enum pn_kind kind, uint32_t *stop)
{
	struct pn_args *a = &r->a;
	unsigned t = 0;
	int rc;

	for (unsigned q = 0; q < a->q.queues; q++) {
		wsq_fill(h, &a->q, q, r->recs + (size_t)t * PN_REC, r->qtasks[q]);
		t += r->qtasks[q];
	}
	memset(a->times, 0, a->ntasks * sizeof(*a->times));
	memset(a->cyc, 0, a->q.queues * sizeof(*a->cyc));
	gh_write32(h, a->stop, 0);
	gh_write32(h, a->drained, 0);
	a->kind = kind;
	r->k.name = kind_names[kind];
	rc = gh_launch(h, &r->k);
	if (rc)
		return rc;
	r->launches++;
	pn_balance(r);
	for (t = 0; t < a->ntasks; t++)
		if (a->times[t] != 1) {
			const uint32_t *rec = r->recs + (size_t)t * PN_REC;

			return gh_fail(h,
				       "%s: launch %u (%s): task %u (nodes %" PRIu32 "..%" PRIu32
				       ") was processed %u times, want once: the queue %s it",
				       r->who, r->launches, kind_names[kind], t, rec[0],
				       rec[0] + rec[1] - 1, a->times[t],
				       a->times[t] ? "duplicated" : "lost");
		}
	if (stop)
		*stop = gh_read32(h, a->stop);
	return 0;
}

static double pn_mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : 0.0;
}

static void pn_note(struct gpu_host *h, const struct pn_run *r, const char *what)
{
	gh_note(h, "%s: %s, %" PRIu32 " nodes, %" PRIu32 " entries, %u launches; %s", r->who,
		r->gname, graph_nodes(r->g), graph_entries(r->g), r->launches, what);
	gh_note(h,
		"wsq: %s, %u queues x %u x %u lanes, chunk %u, %s victim: %" PRIu64
		" tasks, %" PRIu64 " pops, %" PRIu64 " steal tries, %" PRIu64 " steals, %" PRIu64
		" lost",
		wsq_scenario_names[r->scenario], r->a.q.queues, PN_WARPS, r->k.lanes, r->chunk,
		wsq_victim_names[r->a.victim], r->st.tasks, r->st.pops, r->st.steal_tries,
		r->st.steals, r->st.lost);
	if (r->phase_cycles)
		gh_note(h,
			"wsq balance: work-groups idle %.1f%% of the task phases after their own "
			"queue, %.1f%% while another queue still held a task (%" PRIu64
			" of %" PRIu64 " work-group cycles)",
			100.0 * (double)r->idle_cycles / (double)r->phase_cycles,
			100.0 * (double)r->stealable_cycles / (double)r->phase_cycles,
			r->stealable_cycles, r->phase_cycles);
	gh_note(
	    h,
	    "wsq time: warp 0 finds a task in %.0f cycles by a pop, %.0f by a steal, none in "
	    "%.0f; runs its share of an own task in %.0f, of a stolen one in %.0f",
	    pn_mean(r->st.find[PN_OWN], r->st.pops), pn_mean(r->st.find[PN_STOLEN], r->st.steals),
	    pn_mean(r->st.find[PN_NONE], (uint64_t)r->launches * r->a.q.queues),
	    pn_mean(r->st.run[PN_OWN], r->st.pops), pn_mean(r->st.run[PN_STOLEN], r->st.steals));
}

static void pn_free(struct pn_run *r)
{
	graph_free(r->g);
	free(r->cta_sm);
	free(r->recs);
	free(r->qtasks);
	free(r->a.times);
	free(r->a.cyc);
}

/* Reads n words at addr and compares them with want; 0 or a failure naming the first. */
static int pn_compare(struct gpu_host *h, const struct pn_run *r, uint64_t addr,
		      const uint32_t *want, const char *what)
{
	uint32_t n = r->a.n, *got = malloc((size_t)n * 4), bad = 0, first = 0;
	int rc = 0;

	if (!got)
		return -CS_ENOMEM;
	gh_read(h, addr, got, (size_t)n * 4);
	for (uint32_t i = 0; i < n; i++)
		if (got[i] != want[i] && bad++ == 0)
			first = i;
	if (bad)
		rc = gh_fail(h,
			     "%s: node %" PRIu32 " has %s %" PRIu32 ", want %" PRIu32 "; %" PRIu32
			     " of %" PRIu32 " nodes wrong",
			     r->who, first, what, got[first], want[first], bad, n);
	free(got);
	return rc;
}

/* ---- sssp ----------------------------------------------------------------------------------- */

/* One Jacobi step on the host; returns whether anything changed. */
static bool sssp_step(const struct graph *g, const uint32_t *x, uint32_t *y)
{
	const uint32_t *row = graph_row(g), *col = graph_col(g), *wt = graph_weight(g);
	bool changed = false;

	for (uint32_t i = 0; i < graph_nodes(g); i++) {
		uint32_t d = x[i];

		for (uint32_t e = row[i]; e < row[i + 1]; e++)
			if ((uint64_t)x[col[e]] + wt[e] < d)
				d = x[col[e]] + wt[e];
		y[i] = d;
		changed |= d != x[i];
	}
	return changed;
}

int pannotia_sssp_main(struct gpu_host *h)
{
	struct pn_run r = {.who = "sssp"};
	uint32_t *x = NULL, *y = NULL, n, iters = 0, reached = 0;
	int rc = pn_setup(h, &r, GRAPH_USA_ROAD_BAY, true);

	if (rc)
		goto out;
	n = r.a.n;
	x = malloc((size_t)n * 4);
	y = malloc((size_t)n * 4);
	if (!x || !y) {
		rc = -CS_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		x[i] = i == 0 ? 0 : PN_INF;
	r.a.in = wl_upload(h, x, (size_t)n * 4);
	r.a.out = wl_upload(h, x, (size_t)n * 4);
	for (bool more = true; more; iters++) {
		uint32_t *tmp = x;

		more = sssp_step(r.g, x, y);
		x = y;
		y = tmp;
	}
	/* the device: the same iterations, x and y swapped after each */
	for (uint32_t it = 0;; it++) {
		uint32_t stop = 0;
		uint64_t tmp;

		rc = pn_launch(h, &r, K_SSSP, &stop);
		if (rc)
			goto out;
		tmp = r.a.in;
		r.a.in = r.a.out;
		r.a.out = tmp;
		if (!stop && it + 1 == iters)
			break;
		if (!stop || it + 1 == iters) {
			rc = gh_fail(h,
				     "sssp: the device %s after %" PRIu32
				     " iterations, the host after %" PRIu32,
				     stop ? "goes on changing" : "converged", it + 1, iters);
			goto out;
		}
	}
	rc = pn_compare(h, &r, r.a.in, x, "distance");
	if (rc)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		reached += x[i] < PN_INF;
	{
		char what[96];

		snprintf(what, sizeof(what),
			 "%" PRIu32 " iterations, %" PRIu32
			 " nodes reached, every distance verified",
			 iters, reached);
		pn_note(h, &r, what);
	}
out:
	free(x);
	free(y);
	pn_free(&r);
	return rc;
}

/* ---- color ---------------------------------------------------------------------------------- */

/* The host's rounds; returns the number of rounds, colors in col. */
static uint32_t color_host(const struct graph *g, const uint32_t *value, uint32_t *color,
			   uint32_t *mx)
{
	const uint32_t *row = graph_row(g), *col = graph_col(g);
	uint32_t n = graph_nodes(g), rounds = 0;

	for (uint32_t i = 0; i < n; i++)
		color[i] = PN_UNCOL;
	for (bool stop = true; stop;) {
		stop = false;
		rounds++;
		for (uint32_t i = 0; i < n; i++) {
			if (color[i] != PN_UNCOL)
				continue;
			mx[i] = 0;
			for (uint32_t e = row[i]; e < row[i + 1]; e++)
				if (color[col[e]] == PN_UNCOL) {
					stop = true;
					mx[i] = value[col[e]] > mx[i] ? value[col[e]] : mx[i];
				}
		}
		for (uint32_t i = 0; i < n; i++)
			if (color[i] == PN_UNCOL && value[i] > mx[i])
				color[i] = rounds;
	}
	return rounds;
}

int pannotia_color_main(struct gpu_host *h)
{
	struct pn_run r = {.who = "color"};
	uint32_t *value = NULL, *color = NULL, *mx = NULL, n, rounds, dev_rounds = 0;
	uint64_t st;
	int rc = pn_setup(h, &r, GRAPH_ECOLOGY1, false);

	if (rc)
		goto out;
	n = r.a.n;
	value = malloc((size_t)n * 4);
	color = malloc((size_t)n * 4);
	mx = calloc(n, 4);
	if (!value || !color || !mx) {
		rc = -CS_ENOMEM;
		goto out;
	}
	/* Node values: a seeded permutation of 1..n (Pannotia: rand() / RAND_MAX; distinct here,
	 * so that no two neighbours tie). */
	st = gh_seed(h) ^ PN_TAG ^ 0xc0;
	for (uint32_t i = 0; i < n; i++)
		value[i] = i + 1;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)wl_below(&st, (uint64_t)i + 1), t = value[i];

		value[i] = value[j];
		value[j] = t;
	}
	r.a.value = wl_upload(h, value, (size_t)n * 4);
	r.a.maxv = wl_alloc_zero(h, (size_t)n * 4);
	for (uint32_t i = 0; i < n; i++)
		color[i] = PN_UNCOL;
	r.a.color = wl_upload(h, color, (size_t)n * 4);
	rounds = color_host(r.g, value, color, mx);
	for (uint32_t stop = 1; stop;) {
		dev_rounds++;
		if (dev_rounds > rounds) {
			rc = gh_fail(h,
				     "color: the device goes on after %" PRIu32 " rounds, the "
				     "host stopped after %" PRIu32,
				     rounds, rounds);
			goto out;
		}
		r.a.colour = dev_rounds;
		rc = pn_launch(h, &r, K_COLOR1, &stop);
		if (!rc)
			rc = pn_launch(h, &r, K_COLOR2, NULL);
		if (rc)
			goto out;
	}
	if (dev_rounds != rounds) {
		rc = gh_fail(h,
			     "color: the device stopped after %" PRIu32 " rounds, the host after "
			     "%" PRIu32,
			     dev_rounds, rounds);
		goto out;
	}
	rc = pn_compare(h, &r, r.a.color, color, "color");
	if (rc)
		goto out;
	{
		const uint32_t *row = graph_row(r.g), *col = graph_col(r.g);
		uint32_t used = 0;
		char what[112];

		for (uint32_t i = 0; i < n; i++) {
			used = color[i] > used ? color[i] : used;
			for (uint32_t e = row[i]; e < row[i + 1]; e++)
				if (color[col[e]] == color[i]) {
					rc = gh_fail(h,
						     "color: nodes %" PRIu32 " and %" PRIu32
						     " are neighbours with color %" PRIu32,
						     i, col[e], color[i]);
					goto out;
				}
		}
		snprintf(what, sizeof(what),
			 "%" PRIu32 " rounds, %" PRIu32
			 " colors, every color verified, a proper coloring",
			 rounds, used);
		pn_note(h, &r, what);
	}
out:
	free(value);
	free(color);
	free(mx);
	pn_free(&r);
	return rc;
}

/* ---- pagerank ------------------------------------------------------------------------------- */

int pannotia_pagerank_main(struct gpu_host *h)
{
	struct pn_run r = {.who = "pagerank"};
	uint32_t *rank = NULL, *next = NULL, n;
	int rc = pn_setup(h, &r, GRAPH_USA_ROAD_BAY, false);
	const uint32_t *row, *col;

	if (rc)
		goto out;
	n = r.a.n;
	row = graph_row(r.g);
	col = graph_col(r.g);
	rank = malloc((size_t)n * 4);
	next = calloc(n, 4);
	if (!rank || !next) {
		rc = -CS_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		rank[i] = PR_ONE / n; /* inibuffer */
	r.a.pr_base = (uint32_t)((uint64_t)PR_ONE * 15 / 100 / n);
	r.a.in = wl_upload(h, rank, (size_t)n * 4);
	r.a.out = wl_alloc_zero(h, (size_t)n * 4);
	for (unsigned it = 0; it < PR_ITER; it++) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t deg = row[i + 1] - row[i];

			for (uint32_t e = row[i]; e < row[i + 1]; e++)
				next[col[e]] += rank[i] / deg;
		}
		for (uint32_t i = 0; i < n; i++) {
			rank[i] = r.a.pr_base + (uint32_t)((uint64_t)next[i] * 85 / 100);
			next[i] = 0;
		}
		rc = pn_launch(h, &r, K_PR1, NULL);
		if (!rc)
			rc = pn_launch(h, &r, K_PR2, NULL);
		if (rc)
			goto out;
	}
	rc = pn_compare(h, &r, r.a.in, rank, "rank");
	if (rc)
		goto out;
	{
		char what[96];

		snprintf(what, sizeof(what),
			 "%u iterations in fixed point (1.0 = 2^30), every rank verified", PR_ITER);
		pn_note(h, &r, what);
	}
out:
	free(rank);
	free(next);
	pn_free(&r);
	return rc;
}
