/*
 * tests/unit/sysrun.h - build and run a system from configuration text in a unit test, keep
 * it for its statistics, tear it down. Every failure aborts the test with the one-line error.
 */
#ifndef COHSCOPE_TESTS_UNIT_SYSRUN_H
#define COHSCOPE_TESTS_UNIT_SYSRUN_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "tlm/system/system.h"
#include "util/config.h"
#include "util/stats.h"
#include "workloads/gpu_api.h"
#include "workloads/workload.h"

struct sysrun {
	struct cs_config *cfg;
	struct cs_system *sys;
};

/* cfg_text plus the `--set` overrides in sets (NULL-terminated, may be NULL), workload wl
 * with argument arg, mode an enum cs_mode or -1 for the configuration's. */
/* As sysrun_start, but building or running may fail: returns 0 or the negative code, with
 * the one-line error in msg. The configuration text and overrides must be valid. */
static inline int sysrun_try(struct sysrun *r, const char *cfg_text, const struct cs_workload *wl,
			     void *arg, int mode, const char *const *sets, char *msg, size_t len)
{
	struct cs_run_opts ro = {.mode = mode, .custom = wl, .arg = arg};
	struct cs_err err = {0};
	int rc;

	memset(r, 0, sizeof(*r));
	if (cs_config_open_string(cfg_text, "test", &r->cfg, &err))
		ck_abort_msg("config: %s", err.msg);
	for (unsigned i = 0; sets && sets[i]; i++)
		if (cs_config_set(r->cfg, sets[i], &err))
			ck_abort_msg("--set %s: %s", sets[i], err.msg);
	rc = cs_system_create(r->cfg, &ro, &r->sys, &err);
	if (!rc)
		rc = cs_system_run(r->sys, &err);
	snprintf(msg, len, "%s", rc ? err.msg : "");
	return rc;
}

static inline void sysrun_start(struct sysrun *r, const char *cfg_text,
				const struct cs_workload *wl, void *arg, int mode,
				const char *const *sets)
{
	char msg[512];

	if (sysrun_try(r, cfg_text, wl, arg, mode, sets, msg, sizeof(msg)))
		ck_abort_msg("%s", msg);
}

static inline void sysrun_end(struct sysrun *r)
{
	cs_system_destroy(r->sys);
	cs_config_close(r->cfg);
}

/* A statistic's value (the test fails when there is no such statistic). */
static inline double sysrun_stat(struct sysrun *r, const char *name)
{
	double v = -1;

	ck_assert_msg(cs_stats_value(r->sys->stats, name, &v) == 0, "no stat %s", name);
	return v;
}

/* gpu.smN.l1.<name> */
static inline double sysrun_l1_stat(struct sysrun *r, unsigned sm, const char *name)
{
	char full[96];

	snprintf(full, sizeof(full), "gpu.sm%u.l1.%s", sm, name);
	return sysrun_stat(r, full);
}

/* gpu.l2.bankN.<name> summed over banks 0 .. banks-1 */
static inline double sysrun_banks_stat(struct sysrun *r, unsigned banks, const char *name)
{
	char full[96];
	double sum = 0;

	for (unsigned b = 0; b < banks; b++) {
		snprintf(full, sizeof(full), "gpu.l2.bank%u.%s", b, name);
		sum += sysrun_stat(r, full);
	}
	return sum;
}

/* gpu.smN.l1.<name> summed over SMs 0 .. sms-1 */
static inline double sysrun_l1s_stat(struct sysrun *r, unsigned sms, const char *name)
{
	double sum = 0;

	for (unsigned sm = 0; sm < sms; sm++)
		sum += sysrun_l1_stat(r, sm, name);
	return sum;
}

/* In a kernel: spins until the word at addr, read at the L2 (.cg: no L1 copy, no
 * registration), is v; fails the warp after the spin guard. */
static inline void sysrun_spin_cg(struct gpu_warp *w, uint64_t addr, uint32_t v)
{
	uint64_t n = 0;

	while ((uint32_t)gw_ld_co(w, addr, 4, MEM_CO_CG) != v)
		if (gw_spin_guard(w, &n)) {
			gw_fail(w, "%#llx never became %u", (unsigned long long)addr, v);
			return;
		}
}

/* Launches fn as `ctas` CTAs of `warps` warps, CTA i on SM i (at most 16): the directed
 * multi-CU tests, each role on an SM of its own. */
static inline int sysrun_launch_pinned(struct gpu_host *h, const char *name,
				       void (*fn)(struct gpu_warp *w), void *args, unsigned ctas,
				       unsigned warps)
{
	static const uint16_t sm[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	struct gpu_kernel k = {.name = name,
			       .ctas = ctas,
			       .warps_per_cta = warps,
			       .fn = fn,
			       .args = args,
			       .cta_sm = sm};

	ck_assert_uint_le(ctas, 16);
	return gh_launch(h, &k);
}

/* Two CTAs: a producer on SM 0, a consumer on SM 1. */
static inline int sysrun_launch_pair(struct gpu_host *h, const char *name,
				     void (*fn)(struct gpu_warp *w), void *args, unsigned warps)
{
	return sysrun_launch_pinned(h, name, fn, args, 2, warps);
}

#endif
