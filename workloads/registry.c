/* workloads/registry.c - the explicit list of workloads (as Lua's linit.c lists libraries). */
#include "workloads/workload.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "workloads/bench/bench.h"
#include "workloads/chai.h"
#include "workloads/cpu_micro.h"
#include "workloads/doe/doe.h"
#include "workloads/hetero.h"
#include "workloads/ispass/ispass.h"
#include "workloads/micro.h"
#include "workloads/pannotia.h"
#include "workloads/parboil/parboil.h"
#include "workloads/rodinia/rodinia.h"
#include "workloads/rtest.h"

static const struct cs_workload wl_selfcheck = {
    .name = "selfcheck",
    .system = "selfcheck",
    .help = "kernel self-check: ping-pong processes, TLM AT and LT memory tests, checked "
	    "against their analytic times",
};

static const struct cs_workload wl_pingpong = {
    .name = "pingpong",
    .system = "selfcheck",
    .help = "pairs of processes re-arming each other 1-4 ns ahead (methods and threads)",
};

static const struct cs_workload wl_memtest = {
    .name = "memtest",
    .system = "selfcheck",
    .help = "initiators writing and reading back a memory target through TLM sockets, "
	    "approximately timed (4 phases) and loosely timed (quantum keeper)",
};

#define GPU_WL(id, fn, text)                        \
	static const struct cs_workload wl_##id = { \
	    .name = #id, .system = "gpu", .help = text, .gpu = fn}

GPU_WL(stream, micro_stream_main,
       "streaming c[i] = a[i] + b[i] over every SM, coalesced (bandwidth)");
GPU_WL(streamw, micro_streamw_main, "write-only streaming c[i] = i ^ seed (store bandwidth)");
GPU_WL(chase, micro_chase_main,
       "pointer chase by one warp over L1-, L2- and DRAM-sized footprints (latency)");
GPU_WL(chase_l1, micro_chase_l1_main, "pointer chase within an L1-sized footprint");
GPU_WL(chase_l2, micro_chase_l2_main, "pointer chase within an L2-sized footprint");
GPU_WL(chase_dram, micro_chase_dram_main, "pointer chase over a footprint beyond the L2");
GPU_WL(prodcons, micro_prodcons_main,
       "producer/consumer CTA pairs on different SMs through a flag (needs coherence)");
GPU_WL(lock, micro_lock_main,
       "spin lock (CAS acquire, exchange release) around a shared counter (needs coherence)");
GPU_WL(barrier, micro_barrier_main,
       "sense-reversing global barrier over every co-resident CTA (needs coherence)");
GPU_WL(histo, micro_histo_main, "histogram with per-lane atomic adds at the L2");
GPU_WL(rtest, rtest_main,
       "random coherence tester: seeded loads, stores, atomics, fences on hot and conflicting "
       "lines, every value checked (run it with gpu.check=true)");

#define CPU_WL(id, fn, text)                        \
	static const struct cs_workload wl_##id = { \
	    .name = #id, .system = "cpu", .help = text, .cpu = fn}

CPU_WL(cpu_count, cpu_count_main,
       "every core adds to one counter with locked adds between stores and reloads of its own "
       "slot (store-to-load forwarding); total checked");
CPU_WL(cpu_mp, cpu_mp_main,
       "message passing: core 0 writes data then a flag, the others spin and check the data "
       "(TSO keeps stores in order)");

#define APU_WL(id, fn, text)                        \
	static const struct cs_workload wl_##id = { \
	    .name = #id, .system = "apu", .help = text, .cpu = fn}

APU_WL(hetero_prodcons, hetero_prodcons_main,
       "CPU threads produce blocks and flags, GPU warps consume them at system scope and answer "
       "back through flags the CPU waits on; every value checked both ways");
APU_WL(hetero_histo, hetero_histo_main,
       "CPU locked adds and GPU system-scope (SLC) atomics on the same bins at once; bins "
       "checked");
APU_WL(hetero_dma, hetero_dma_main,
       "DMA copies of CPU-dirty lines to the GPU and of GPU results back over lines the CPU "
       "caches (DMARd, DMAWr and their probes); every word checked");
APU_WL(hetero_rtest, hetero_rtest_main,
       "random tester: CPU threads and GPU warps make seeded loads, stores, atomics (device and "
       "system scope) and fences on hot and conflicting lines; every value checked (run it with "
       "gpu.check = true)");

/* CHAI (Gomez-Luna et al., ISPASS 2017), CPU + GPU collaboration on system apu (chai.h). */
APU_WL(chai_bs, chai_bs_main,
       "CHAI BS: Bezier surface tiles taken by CPU threads and GPU work-groups from one "
       "system-scope tile counter (dynamic data partitioning); sampled points checked");
APU_WL(chai_cedd, chai_cedd_main,
       "CHAI CEDD: Canny edge detection on a stream of frames; a CPU proxy (threads running the "
       "four stages) and a GPU proxy (four kernels per frame) take whole frames from one counter");
APU_WL(chai_pad, chai_pad_main,
       "CHAI PAD: in-place matrix padding; CPU threads and GPU work-groups take tasks from one "
       "counter and write only after the task before has read (a chain of system-scope flags)");
APU_WL(chai_sc, chai_sc_main,
       "CHAI SC: in-place stream compaction; CPU threads and GPU work-groups take tasks from one "
       "counter, a chain of system-scope flags carries the count of kept elements");
APU_WL(chai_trns, chai_trns_main,
       "CHAI TRNS: in-place transposition by cycle following; CPU threads and GPU work-groups "
       "take start points from one counter and claim each move with a system-scope exchange");
APU_WL(chai_tq, chai_tq_main,
       "CHAI TQ: CPU threads feed task queues, GPU work-groups dequeue through system-scope "
       "atomics on the queue counters and process the tasks; every task's output checked");
APU_WL(chai_hsti, chai_hsti_main,
       "CHAI HSTI: histogram, input partitioned; CPU locked adds and GPU system-scope atomics "
       "merge into one shared histogram; bins checked");
APU_WL(chai_hsto, chai_hsto_main,
       "CHAI HSTO: histogram, output partitioned; CPU threads and GPU work-groups each own "
       "bins and read the whole image; bins checked");
APU_WL(chai_rscd, chai_rscd_main,
       "CHAI RSCD: RANSAC, iterations split between CPU threads and GPU work-groups, a shared "
       "candidate list through system-scope atomics; models and candidates checked");
APU_WL(chai_rsct, chai_rsct_main,
       "CHAI RSCT: RANSAC, CPU threads make models and hand them to GPU work-groups through "
       "system-scope flags; models and candidates checked");

/* The G-TSC benchmark suite (thesis Table 3.4; workloads/bench/, `cohscope suite`). */
#define SUITE_WL(id, set, from, text)                                        \
	static const struct cs_workload wl_##id = {.name = #id,              \
						   .system = "gpu",          \
						   .help = text,             \
						   .gpu = bench_##id##_main, \
						   .suite_set = set,         \
						   .origin = from}

SUITE_WL(bh, 1, "tc",
	 "Barnes-Hut n-body (Burtscher & Pingali): tree build with per-slot locks, bottom-up "
	 "summarization waiting on children, force walk (needs coherence)");
SUITE_WL(cc, 1, "tc",
	 "CUDA Cuts (Vineet & Narayanan): push-relabel max-flow on a grid graph, persistent "
	 "kernel with grid barriers (needs coherence)");
SUITE_WL(dlb, 1, "tc",
	 "dynamic load balancing (Cederman & Tsigas): octree partitioning with lock-free "
	 "work-stealing deques between CTAs (needs coherence)");
SUITE_WL(vpr, 1, "tc",
	 "VPR: simulated-annealing placement, concurrent locked swaps of slots, plain loads of "
	 "positions other CTAs moved (needs coherence)");
SUITE_WL(stn, 1, "tc",
	 "STN: 2D wave-propagation stencil, persistent kernel, halos read across grid barriers "
	 "(needs coherence)");
SUITE_WL(bfs, 1, "ispass",
	 "BFS: level-synchronous breadth-first search (Harish & Narayanan), one persistent "
	 "kernel, frontier flags read across grid barriers (needs coherence)");
SUITE_WL(ge, 2, "rodinia",
	 "Gaussian elimination (Rodinia gaussian): Fan1/Fan2 per pivot, host back-substitution "
	 "(no coherence needed)");
SUITE_WL(hs, 2, "rodinia",
	 "HotSpot (Rodinia hotspot): pyramid tiles in shared memory, ping-pong launches, "
	 "compute-bound (no coherence needed)");
SUITE_WL(km, 2, "rodinia",
	 "k-means (Rodinia kmeans): nearest-centre kernel, host centre update until converged, "
	 "compute-bound (no coherence needed)");
SUITE_WL(bp, 2, "rodinia",
	 "back-propagation (Rodinia backprop): layer-forward reduction in shared memory, host "
	 "layers, weight adjustment (no coherence needed)");
SUITE_WL(sgm, 2, "parboil",
	 "SGEMM (Parboil sgemm): register-tiled C = A*B^T + beta*C, B tiles in shared memory (no "
	 "coherence needed)");
SUITE_WL(ccp, 2, "parboil",
	 "cutoff Coulombic potential (Parboil cutcp): atom bins staged in shared memory, "
	 "compute-bound (no coherence needed)");

/* Ports of the suites architects run (workloads/rodinia, parboil, ispass, doe: issue 39). */
#define PORT_WL(id, from, text)                                               \
	static const struct cs_workload wl_##id = {.name = #id,               \
						   .system = "gpu",           \
						   .help = text,              \
						   .gpu = from##_##id##_main, \
						   .origin = #from}

PORT_WL(bfs_rodinia, rodinia,
	"Rodinia bfs: Kernel and Kernel2 per level over bool frontier masks, host loop until over "
	"stays false; every node's cost checked");
PORT_WL(btree, rodinia,
	"Rodinia b+tree: findK and findRangeK, one 256-thread CTA per query walking an order-256 "
	"tree in device memory; every answer checked");
PORT_WL(mummer, rodinia,
	"Rodinia mummergpu: 100 bp reads walk a suffix tree in textures, then print every maximal "
	"match; every result checked");
PORT_WL(needle, rodinia,
	"Rodinia nw: Needleman-Wunsch alignment, one launch per anti-diagonal strip of 16x16 "
	"blocks in shared memory; every score checked");
PORT_WL(pathfinder, rodinia,
	"Rodinia pathfinder: min-cost path row by row, 256-column pyramid tiles in shared memory, "
	"ping-pong launches; every column checked");
PORT_WL(srad, rodinia,
	"Rodinia srad_v1: speckle-reducing diffusion of an image; per iteration prepare, "
	"multi-level tree reduce, srad, srad2; bit-exact");
PORT_WL(heartwall, rodinia,
	"Rodinia heartwall: 51 wall points tracked by template correlation, a CTA per point per "
	"frame; every position bit-exact");
PORT_WL(leukocyte, rodinia,
	"Rodinia leukocyte: GICOV and dilation (textures, constants) of frame 0, IMGVF of the "
	"cells in frame 1; every value bit-exact");
PORT_WL(lud, rodinia,
	"Rodinia lud: blocked LU decomposition (diagonal, perimeter, 2-D internal kernels on 16x16 "
	"shared tiles); L and U bit-exact");
PORT_WL(streamcluster, rodinia,
	"Rodinia streamcluster: online k-median (PARSEC), ~1000 short pgain launches of "
	"kernel_compute_cost; every output word bit-exact");
PORT_WL(cp, parboil,
	"Parboil cp: direct Coulomb summation on a 2-D lattice slice, atoms in constant memory, "
	"4000 per launch; every point bit-exact");
PORT_WL(lbm, parboil,
	"Parboil lbm: D3Q19 lattice-Boltzmann lid-driven cavity, one 120-thread CTA per (y, z) "
	"row, scatter stores, ping-pong grids");
PORT_WL(mriq, parboil,
	"Parboil mri-q: ComputePhiMag, then ComputeQ over k-space samples in constant memory (1024 "
	"per launch); phiMag, Qr, Qi bit-exact");
PORT_WL(sad, parboil,
	"Parboil sad: H.264 motion search, 4x4 SADs over +-16 pixels from a texture, then 8x8 and "
	"16x16 sums (3 kernels); every SAD bit-exact");
PORT_WL(stencil, parboil,
	"Parboil stencil: 7-point 3-D Jacobi, 32x4 CTAs coarsened in x, shared-memory plane "
	"walking up z, ping-pong launches");
PORT_WL(lib, ispass,
	"ISPASS-2009 LIB: LIBOR Monte Carlo swaption portfolio, one path per thread, per-thread "
	"arrays in local memory, constants in __constant__");
PORT_WL(nn, ispass,
	"ISPASS-2009 NN: 4-layer handwritten-digit CNN, one kernel per layer over 2-D grids (map, "
	"image); every neuron checked bit for bit");
PORT_WL(wp, ispass,
	"ISPASS-2009 WP: WRF WSM5 microphysics, one thread per column, 8x8 CTAs, 21 per-level "
	"arrays in local memory, double-precision physics");
PORT_WL(cns, doe,
	"DOE CNS (ExaCT): one RK3 step of 8th-order hypterm/diffterm stencils, 2-D x-y CTA grid "
	"marching z; every value bit-exact");
PORT_WL(comd, doe,
	"DOE CoMD-CUDA: Lennard-Jones thread-per-atom forces over 27 link cells, velocity Verlet "
	"steps; every force and energy bit-exact");
PORT_WL(minife, doe,
	"DOE miniFE CUDA: CG on the 27-point hex8 matrix in ELL (matvec, dot trees, waxpby); every "
	"dot, x and r bit-exact");
PORT_WL(xsbench, doe,
	"DOE XSBench CUDA: unionized-grid macro cross-section look-ups, one per thread; every "
	"macro_xs and the hash bit-exact");

/* Seed 004's Pannotia graph applications on per-CTA work-stealing queues (pannotia.h). */
GPU_WL(sssp, pannotia_sssp_main,
       "Pannotia SSSP: Bellman-Ford min-plus relaxation until nothing changes, nodes in per-CTA "
       "work-stealing task queues (workload.graph, .scenario, .chunk, .victim); every distance "
       "checked");
GPU_WL(color, pannotia_color_main,
       "Pannotia color: maximal-independent-set rounds on seeded node values, two kernels a "
       "round, nodes in per-CTA work-stealing task queues; every color checked");
GPU_WL(pagerank, pannotia_pagerank_main,
       "Pannotia PageRank: 20 push iterations with atomic adds, in fixed point, nodes in "
       "per-CTA work-stealing task queues; every rank checked");

static const struct cs_workload *const workloads[] = {
    &wl_selfcheck,
    &wl_pingpong,
    &wl_memtest,
    &wl_stream,
    &wl_streamw,
    &wl_chase,
    &wl_chase_l1,
    &wl_chase_l2,
    &wl_chase_dram,
    &wl_prodcons,
    &wl_lock,
    &wl_barrier,
    &wl_histo,
    &wl_rtest,
    &wl_sssp,
    &wl_color,
    &wl_pagerank,
    /* the suite, in thesis Table 3.4's order */
    &wl_bh,
    &wl_cc,
    &wl_dlb,
    &wl_vpr,
    &wl_stn,
    &wl_bfs,
    &wl_ge,
    &wl_hs,
    &wl_km,
    &wl_bp,
    &wl_sgm,
    &wl_ccp,
    /* the suites' ports, by suite */
    &wl_bfs_rodinia,
    &wl_btree,
    &wl_mummer,
    &wl_needle,
    &wl_pathfinder,
    &wl_srad,
    &wl_heartwall,
    &wl_leukocyte,
    &wl_lud,
    &wl_streamcluster,
    &wl_cp,
    &wl_lbm,
    &wl_mriq,
    &wl_sad,
    &wl_stencil,
    &wl_lib,
    &wl_nn,
    &wl_wp,
    &wl_cns,
    &wl_comd,
    &wl_minife,
    &wl_xsbench,
    /* system cpu */
    &wl_cpu_count,
    &wl_cpu_mp,
    &wl_hetero_prodcons,
    &wl_hetero_histo,
    &wl_hetero_dma,
    &wl_hetero_rtest,
    &wl_chai_bs, /* seed 002's order */
    &wl_chai_cedd,
    &wl_chai_pad,
    &wl_chai_sc,
    &wl_chai_tq,
    &wl_chai_hsti,
    &wl_chai_hsto,
    &wl_chai_trns,
    &wl_chai_rscd,
    &wl_chai_rsct,
    NULL,
};

const char *const cs_workload_origins[] = {"tc", "rodinia", "parboil", "ispass", "doe", NULL};

bool cs_suite_known(const char *suite)
{
	if (strcmp(suite, "gtsc") == 0 || strcmp(suite, "all") == 0)
		return true;
	for (size_t o = 0; cs_workload_origins[o]; o++)
		if (strcmp(suite, cs_workload_origins[o]) == 0)
			return true;
	return false;
}

const char *cs_suite_names(char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "gtsc");

	for (size_t o = 0; cs_workload_origins[o] && used < len; o++)
		used += (size_t)snprintf(buf + used, len - used, ", %s", cs_workload_origins[o]);
	if (used < len)
		snprintf(buf + used, len - used, ", all");
	return buf;
}

bool cs_suite_has(const char *suite, const struct cs_workload *w)
{
	if (strcmp(suite, "gtsc") == 0)
		return w->suite_set != 0;
	if (strcmp(suite, "all") == 0)
		return w->suite_set || w->origin;
	return w->origin && strcmp(w->origin, suite) == 0;
}

const struct cs_workload *const *cs_workload_registry(void)
{
	return workloads;
}

const struct cs_workload *cs_workload_find(const char *name)
{
	for (size_t i = 0; workloads[i]; i++)
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	return NULL;
}
