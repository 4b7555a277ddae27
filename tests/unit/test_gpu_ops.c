/*
 * tests/unit/test_gpu_ops.c - the op API's scoped operations (workloads/gpu_api.h): 64-lane
 * wavefronts, atomic loads and stores, seq_cst, the remote agent scope, and the PTX cache
 * operators .ca/.cg/.cv on an L1 without coherence.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/sysrun.h"
#include "workloads/gpu_api.h"

/* Fixed latencies at 1 GHz everywhere, as test_gpu.c: an L2 access costs at least 50 cycles. */
static const char *base_cfg =
    "system = { type = \"gpu\"; workload = \"stream\"; mode = \"detailed\"; };\n"
    "gpu = { sms = 2; check = true; };\n"
    "workload = { size = \"tiny\"; };\n"
    "core = { clock_mhz = 1000; spin_limit = 5000; };\n"
    "l1 = { latency = 20; };\n"
    "l2 = { banks = 1; clock_mhz = 1000; latency = 50; };\n"
    "noc = { topology = \"crossbar\"; clock_mhz = 1000; };\n"
    "dram = { clock_mhz = 1000; };\n";

/* ---- 64-lane wavefronts ---------------------------------------------------------------------- */

struct wave_args {
	uint64_t a, b; /* arrays of 128 words */
	unsigned lanes, ctas, warps;
	uint64_t mask; /* lanes the store uses */
	unsigned seen_lanes;
	uint32_t got[128]; /* a and b read back by the host */
	uint64_t nb[128];
};

/* Each lane stores its thread id at a[tid]; after the barrier it reads its neighbour's
 * (tid + 1 mod threads) and stores it at b[tid]. */
static void wave_kernel(struct gpu_warp *w)
{
	struct wave_args *a = (struct wave_args *)gw_args(w);
	unsigned lanes = gw_lanes(w), threads = lanes * a->warps * a->ctas;
	uint64_t addr[WARP_LANES_MAX], v[WARP_LANES_MAX];
	uint32_t in[WARP_LANES_MAX], out[WARP_LANES_MAX];

	a->seen_lanes = lanes;
	for (unsigned l = 0; l < lanes; l++) {
		addr[l] = a->a + 4 * gw_tid(w, l);
		out[l] = (uint32_t)gw_tid(w, l);
	}
	gw_st32v(w, addr, a->mask, out);
	gw_barrier(w);
	for (unsigned l = 0; l < lanes; l++)
		addr[l] = a->a + 4 * ((gw_tid(w, l) + 1) % threads);
	gw_ld32v(w, addr, a->mask, in);
	for (unsigned l = 0; l < lanes; l++) {
		addr[l] = a->b + 8 * gw_tid(w, l);
		v[l] = in[l];
	}
	gw_st64v(w, addr, a->mask, v);
}

static int wave_host(struct gpu_host *h)
{
	struct wave_args *a = gh_arg(h);
	struct gpu_kernel k = {.name = "wave",
			       .ctas = a->ctas,
			       .warps_per_cta = a->warps,
			       .fn = wave_kernel,
			       .args = a,
			       .lanes = a->lanes};

	int rc;

	a->a = gh_alloc(h, 4 * 128, 0);
	a->b = gh_alloc(h, 8 * 128, 0);
	rc = gh_launch(h, &k);
	if (!rc) {
		gh_read(h, a->a, a->got, sizeof(a->got));
		gh_read(h, a->b, a->nb, sizeof(a->nb));
	}
	return rc;
}

static const struct cs_workload wave_wl = {.name = "wave", .system = "gpu", .gpu = wave_host};

START_TEST(test_wavefront64)
{
	static const char *const sets[] = {"core.lanes=64", NULL};
	struct wave_args a = {.lanes = 64, .ctas = 1, .warps = 2, .mask = ~0ull};
	struct sysrun r;

	sysrun_start(&r, base_cfg, &wave_wl, &a, -1, sets);
	ck_assert_uint_eq(a.seen_lanes, 64);
	for (unsigned t = 0; t < 128; t++) {
		ck_assert_uint_eq(a.got[t], t);		   /* thread ids run over 2 x 64 lanes */
		ck_assert_uint_eq(a.nb[t], (t + 1) % 128); /* lane 63 read wavefront 1's lane 0 */
	}
	/* per wavefront: a 4-byte store over 64 lanes is two 128-byte lines (test_coalesce),
	 * an 8-byte one four; the shifted load touches three lines: 2 x (2 + 3 + 4) requests */
	ck_assert_double_eq(sysrun_stat(&r, "gpu.sm0.requests"), 18);
	sysrun_end(&r);
}
END_TEST

START_TEST(test_lanes_checked)
{
	static const char *const l32[] = {"core.lanes=32", NULL};
	static const char *const l48[] = {"core.lanes=48", NULL};
	static const char *const q[] = {"core.lanes=64", "core.ldst_queue=48", NULL};
	struct wave_args a = {.lanes = 64, .ctas = 1, .warps = 1, .mask = ~0ull};
	struct sysrun r;
	char msg[512];

	/* a 64-lane kernel needs a 64-lane machine */
	ck_assert_int_ne(sysrun_try(&r, base_cfg, &wave_wl, &a, -1, l32, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "kernel 'wave' has 64-lane wavefronts"), "%s", msg);
	sysrun_end(&r);
	ck_assert_int_ne(sysrun_try(&r, base_cfg, &wave_wl, &a, -1, l48, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "core.lanes") && strstr(msg, "must be 32 or 64"), "%s", msg);
	sysrun_end(&r);
	/* the LD/ST queue must hold one wavefront's requests */
	ck_assert_int_ne(sysrun_try(&r, base_cfg, &wave_wl, &a, -1, q, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "core.ldst_queue") && strstr(msg, "at least core.lanes"), "%s",
		      msg);
	sysrun_end(&r);
	/* a 32-lane kernel may not name lane 32 */
	a.lanes = 32;
	a.mask = 1ull << 32 | 1;
	ck_assert_int_ne(sysrun_try(&r, base_cfg, &wave_wl, &a, -1, l32, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "has lanes beyond the kernel's 32"), "%s", msg);
	sysrun_end(&r);
	/* and a 32-lane kernel runs on a 64-lane machine (its wavefronts half full) */
	a.mask = LANES_ALL;
	a.warps = 4;
	{
		static const char *const l64[] = {"core.lanes=64", NULL};

		sysrun_start(&r, base_cfg, &wave_wl, &a, -1, l64);
		ck_assert_uint_eq(a.seen_lanes, 32);
		for (unsigned t = 0; t < 128; t++)
			ck_assert_uint_eq(a.got[t], t);
		sysrun_end(&r);
	}
}
END_TEST

/* ---- atomic loads and stores, seq_cst --------------------------------------------------------- */

struct atom_args {
	uint64_t x;
	uint64_t old_store, loaded, loaded_again, cas_old;
	uint64_t relaxed_cycles, seq_cycles, seq_load_cycles;
	enum mem_scope scope;
	uint32_t x_after; /* read back by the host */
};

static void atom_kernel(struct gpu_warp *w)
{
	struct atom_args *a = (struct atom_args *)gw_args(w);
	uint64_t t0;

	a->old_store = gw_atom(w, MEM_ATOM_STORE, a->x, 4, 7, 0, a->scope, MEM_ORDER_RELAXED);
	a->loaded = gw_atom_load(w, a->x, 4, a->scope, MEM_ORDER_ACQUIRE);
	/* a relaxed atomic store whose result nobody waits for: the warp goes on at once */
	t0 = gw_cycle(w);
	gw_atom_store(w, a->x, 4, 9, a->scope, MEM_ORDER_RELAXED);
	a->relaxed_cycles = gw_cycle(w) - t0;
	/* seq_cst: the earlier store is performed first, then this one, before the warp goes on */
	t0 = gw_cycle(w);
	gw_atom_store(w, a->x, 4, 11, a->scope, MEM_ORDER_SEQ_CST);
	a->seq_cycles = gw_cycle(w) - t0;
	t0 = gw_cycle(w);
	a->loaded_again = gw_atom_load(w, a->x, 4, a->scope, MEM_ORDER_SEQ_CST);
	a->seq_load_cycles = gw_cycle(w) - t0;
	a->cas_old = gw_atom(w, MEM_ATOM_CAS, a->x, 4, 11, 12, a->scope, MEM_ORDER_ACQ_REL);
	gw_fence(w, MEM_ORDER_SEQ_CST, a->scope);
}

static int atom_host(struct gpu_host *h)
{
	struct atom_args *a = gh_arg(h);
	struct gpu_kernel k = {
	    .name = "atom", .ctas = 1, .warps_per_cta = 1, .fn = atom_kernel, .args = a};

	int rc;

	a->x = gh_alloc(h, 128, 0);
	gh_write32(h, a->x, 5);
	rc = gh_launch(h, &k);
	if (!rc)
		a->x_after = gh_read32(h, a->x);
	return rc;
}

static const struct cs_workload atom_wl = {.name = "atom", .system = "gpu", .gpu = atom_host};

START_TEST(test_atomic_load_store)
{
	static const char *const protos[] = {"none", "noncoherent", "tc-weak", "tc-strong", "gtsc"};
	static const enum mem_scope scopes[] = {MEM_SCOPE_DEVICE, MEM_SCOPE_DEVICE_REMOTE,
						MEM_SCOPE_SYSTEM};

	for (unsigned p = 0; p < 5; p++)
		for (unsigned s = 0; s < 3; s++) {
			char set[64];
			const char *sets[] = {set, NULL};
			struct atom_args a = {.scope = scopes[s]};
			struct sysrun r;
			uint32_t x;

			snprintf(set, sizeof(set), "coherence.protocol=%s", protos[p]);
			sysrun_start(&r, base_cfg, &atom_wl, &a, -1, sets);
			x = a.x_after;
			ck_assert_msg(a.old_store == 5 && a.loaded == 7 && a.loaded_again == 11 &&
					  a.cas_old == 11 && x == 12,
				      "%s scope %u: old %llu, loaded %llu / %llu, cas %llu, x %u",
				      protos[p], scopes[s], (unsigned long long)a.old_store,
				      (unsigned long long)a.loaded,
				      (unsigned long long)a.loaded_again,
				      (unsigned long long)a.cas_old, x);
			/* the relaxed store issues in a cycle; the seq_cst ones wait for the
			 * L2 (50 cycles of tag latency alone) */
			ck_assert_uint_le(a.relaxed_cycles, 2);
			ck_assert_uint_ge(a.seq_cycles, 50);
			ck_assert_uint_ge(a.seq_load_cycles, 50);
			sysrun_end(&r);
		}
}
END_TEST

/* ---- PTX cache operators on an L1 without coherence ----------------------------------------- */

struct cop_args {
	uint64_t x, flag;
	uint32_t ca_before, ca_stale, cg, ca_after_cg, cv, ca_after_cv;
	uint64_t spins;
};

static void wait_flag(struct gpu_warp *w, struct cop_args *a, uint32_t v)
{
	uint64_t n = 0;

	while (gw_atom_load(w, a->flag, 4, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED) != v)
		if (gw_spin_guard(w, &n)) {
			gw_fail(w, "flag %u never came", v);
			return;
		}
	a->spins += n;
}

/* CTA 0 (SM 0) caches x, lets CTA 1 (SM 1) write it, and reads it with each operator. */
static void cop_kernel(struct gpu_warp *w)
{
	struct cop_args *a = (struct cop_args *)gw_args(w);

	if (gw_cta(w) == 1) {
		wait_flag(w, a, 1);
		gw_st_co(w, a->x, 4, 2, MEM_CO_CA);
		gw_fence(w, MEM_ORDER_RELEASE, MEM_SCOPE_DEVICE); /* performed at the L2 */
		gw_atom_store(w, a->flag, 4, 2, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
		return;
	}
	a->ca_before = (uint32_t)gw_ld_co(w, a->x, 4, MEM_CO_CA);
	gw_atom_store(w, a->flag, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
	wait_flag(w, a, 2);
	a->ca_stale = (uint32_t)gw_ld_co(w, a->x, 4, MEM_CO_CA);
	a->cg = (uint32_t)gw_ld_co(w, a->x, 4, MEM_CO_CG);
	a->ca_after_cg = (uint32_t)gw_ld_co(w, a->x, 4, MEM_CO_CA);
	a->cv = (uint32_t)gw_ld_co(w, a->x, 4, MEM_CO_CV);
	a->ca_after_cv = (uint32_t)gw_ld_co(w, a->x, 4, MEM_CO_CA);
}

static int cop_host(struct gpu_host *h)
{
	struct cop_args *a = gh_arg(h);

	a->x = gh_alloc(h, 128, 0);
	a->flag = gh_alloc(h, 128, 0);
	gh_write32(h, a->x, 1);
	return sysrun_launch_pair(h, "cop", cop_kernel, a, 1);
}

static const struct cs_workload cop_wl = {.name = "cop", .system = "gpu", .gpu = cop_host};

START_TEST(test_cache_operators)
{
	static const char *const nc[] = {"coherence.protocol=noncoherent", NULL};
	static const char *const none[] = {"coherence.protocol=none", NULL};
	struct cop_args a = {0};
	struct sysrun r;

	/* PTX: .ca hits the stale copy; .cg reads the L2 and leaves the copy; .cv reads the L2
	 * and drops the copy, so the next .ca misses */
	sysrun_start(&r, base_cfg, &cop_wl, &a, -1, nc);
	ck_assert_uint_eq(a.ca_before, 1);
	ck_assert_uint_eq(a.ca_stale, 1);
	ck_assert_uint_eq(a.cg, 2);
	ck_assert_uint_eq(a.ca_after_cg, 1);
	ck_assert_uint_eq(a.cv, 2);
	ck_assert_uint_eq(a.ca_after_cv, 2);
	sysrun_end(&r);
	/* without an L1 every load sees the L2 */
	memset(&a, 0, sizeof(a));
	sysrun_start(&r, base_cfg, &cop_wl, &a, -1, none);
	ck_assert_uint_eq(a.ca_stale, 2);
	ck_assert_uint_eq(a.ca_after_cg, 2);
	sysrun_end(&r);
}
END_TEST

/* ---- an acquire atomic performs the protocol's acquire ------------------------------------- */

struct acq_args {
	uint64_t x, flag;
	uint8_t order; /* of the consumer's flag reads */
	bool rmw;      /* read the flag with an atomic add of 0 instead of an atomic load */
	uint32_t got;
};

static uint32_t acq_read_flag(struct gpu_warp *w, const struct acq_args *a)
{
	if (a->rmw)
		return (uint32_t)gw_atom(w, MEM_ATOM_ADD, a->flag, 4, 0, 0, MEM_SCOPE_DEVICE,
					 a->order);
	return (uint32_t)gw_atom_load(w, a->flag, 4, MEM_SCOPE_DEVICE, a->order);
}

/* CTA 0 (SM 0) caches x = 1; CTA 1 (SM 1) writes 2 and releases the flag; CTA 0 reads the flag
 * until it sees the release, then reads x from its L1. */
static void acq_kernel(struct gpu_warp *w)
{
	struct acq_args *a = (struct acq_args *)gw_args(w);
	uint64_t n = 0;

	if (gw_cta(w) == 1) {
		while (gw_atom_load(w, a->flag, 4, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED) != 1)
			if (gw_spin_guard(w, &n))
				return gw_fail(w, "the consumer never cached x");
		gw_st32(w, a->x, 2);
		gw_atom_store(w, a->flag, 4, 2, MEM_SCOPE_DEVICE, MEM_ORDER_RELEASE);
		return;
	}
	if (gw_ld32(w, a->x) != 1)
		return gw_fail(w, "x is not 1 at the start");
	gw_atom_store(w, a->flag, 4, 1, MEM_SCOPE_DEVICE, MEM_ORDER_RELAXED);
	while (acq_read_flag(w, a) != 2)
		if (gw_spin_guard(w, &n))
			return gw_fail(w, "the release never came");
	a->got = gw_ld32(w, a->x);
}

static int acq_host(struct gpu_host *h)
{
	struct acq_args *a = gh_arg(h);

	a->x = gh_alloc(h, 128, 0);
	a->flag = gh_alloc(h, 128, 0);
	gh_write32(h, a->x, 1);
	return sysrun_launch_pair(h, "acq", acq_kernel, a, 1);
}

static const struct cs_workload acq_wl = {.name = "acq", .system = "gpu", .gpu = acq_host};

/* On a non-coherent L1 that drops its lines at an acquire (l1.fence_invalidate), reading the
 * flag with an acquire atomic (a PTX ld.acquire, an OpenCL acquire RMW) drops the stale x, in
 * both faces; a relaxed read keeps it (the message-passing failure the acquire is for). */
START_TEST(test_acquire_atomic_invalidates)
{
	static const char *const modes[] = {"system.mode=detailed", "system.mode=analytic"};

	for (unsigned m = 0; m < 2; m++)
		for (unsigned c = 0; c < 5; c++) {
			static const uint8_t orders[] = {MEM_ORDER_ACQUIRE, MEM_ORDER_ACQ_REL,
							 MEM_ORDER_SEQ_CST, MEM_ORDER_RELAXED,
							 MEM_ORDER_RELEASE};
			const char *sets[] = {"coherence.protocol=noncoherent",
					      "l1.fence_invalidate=true", modes[m], NULL};
			struct acq_args a = {.order = orders[c], .rmw = c == 1};
			uint32_t want = c < 3 ? 2 : 1;
			struct sysrun r;

			sysrun_start(&r, base_cfg, &acq_wl, &a, -1, sets);
			ck_assert_msg(a.got == want, "%s, order %u%s: x %u, want %u", modes[m],
				      orders[c], a.rmw ? " (RMW)" : "", a.got, want);
			sysrun_end(&r);
		}
}
END_TEST

static Suite *gpu_ops_suite(void)
{
	Suite *s = suite_create("gpu_ops");
	TCase *tc = tcase_create("ops");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_wavefront64);
	tcase_add_test(tc, test_lanes_checked);
	tcase_add_test(tc, test_atomic_load_store);
	tcase_add_test(tc, test_cache_operators);
	tcase_add_test(tc, test_acquire_atomic_invalidates);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gpu_ops_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
