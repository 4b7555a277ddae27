/*
 * tests/fuzz/litmus_common.c - a litmus test as `cohscope litmus FILE -c CONFIG` takes it
 * (cli/main.c cmd_litmus): litmus_parse_file, litmus_check against the configuration, then a
 * short run (2 iterations: one cold, one warm) and the verdict, so that what the parser accepts
 * also reaches the runner's mapping to ops.
 *
 * Each dialect has its own target, kept in its dialect: an input whose first word is not one of
 * the dialect's architecture names gets it replaced by the dialect's. The configuration is the
 * one the command-line tests use for that dialect: C and OpenCL on configs/gtsc-16sm.cfg, PTX on
 * configs/gtx480-15sm.cfg, X86 on configs/cpu-tso.cfg. An odd input size picks the other
 * variant the command line offers: OpenCL's --atomics fences; X86 on configs/apu-2200g.cfg with
 * --agents cpu,gpu,cpu,... (one per thread).
 */
#include "tests/fuzz/litmus_common.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/harness.h"
#include "util/config.h"
#include "workloads/litmus/litmus.h"
#include "workloads/litmus/run.h"

#define FZ_LIT_ITERATIONS 2

static const char *const arch_names[][3] = {
    [FZ_LIT_C] = {"C", NULL},
    [FZ_LIT_OPENCL] = {"OpenCL", "OPENCL", NULL},
    [FZ_LIT_X86] = {"X86", NULL},
    [FZ_LIT_PTX] = {"GPU_PTX", "PTX", NULL},
};

/* The input with its first word made one of d's architecture names; *len its length. */
static char *in_dialect(const uint8_t *data, size_t size, enum fz_dialect d, size_t *len)
{
	const char *const *names = arch_names[d];
	size_t a = 0, e, n;
	char *out;

	while (a < size && isspace(data[a]))
		a++;
	for (e = a; e < size && !isspace(data[e]); e++)
		;
	for (unsigned i = 0; names[i]; i++)
		if (e - a == strlen(names[i]) && !memcmp(data + a, names[i], e - a)) {
			*len = size;
			return fz_strndup(data, size);
		}
	n = strlen(names[0]);
	*len = a + n + (size - e);
	out = malloc(*len + 1);
	if (!out)
		return NULL;
	memcpy(out, data, a);
	memcpy(out + a, names[0], n);
	memcpy(out + a + n, data + e, size - e);
	out[*len] = '\0';
	return out;
}

int fz_litmus(const uint8_t *data, size_t size, enum fz_dialect d)
{
	static const char *const configs[] = {
	    [FZ_LIT_C] = "gtsc-16sm.cfg",
	    [FZ_LIT_OPENCL] = "gtsc-16sm.cfg",
	    [FZ_LIT_X86] = "cpu-tso.cfg",
	    [FZ_LIT_PTX] = "gtx480-15sm.cfg",
	};
	bool variant = size & 1;
	const char *cfg_name = d == FZ_LIT_X86 && variant ? "apu-2200g.cfg" : configs[d];
	struct litmus_test *t = NULL;
	struct litmus_result r = {0};
	struct litmus_verdict v;
	struct litmus_opts o;
	struct cs_config *cfg = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];
	size_t len;
	char *text = in_dialect(data, size, d, &len);

	if (!text)
		return 0;
	if (fz_tmpdir(dir)) {
		free(text);
		return 0;
	}
	if (fz_write(dir, "test.litmus", text, len, path) ||
	    fz_say(litmus_parse_file(path, &t, &err), &err))
		goto out;
	for (unsigned m = LIT_MODEL_SC; m <= LIT_MODEL_HSA; m++)
		litmus_expected(t, NULL, m);
	litmus_opts_default(&o);
	o.iterations = FZ_LIT_ITERATIONS;
	if (d == FZ_LIT_OPENCL && variant)
		o.atomics = LIT_ATOMICS_FENCES;
	if (d == FZ_LIT_X86 && variant) {
		o.nagents = t->nthreads;
		for (unsigned i = 0; i < t->nthreads; i++)
			o.agents[i] = i % 2 ? LIT_AGENT_GPU : LIT_AGENT_CPU;
		o.jitter = LITMUS_DEFAULT_JITTER_MIXED;
	}
	snprintf(path, sizeof(path), "%s/configs/%s", fz_src(), cfg_name);
	if (fz_say(cs_config_open(path, &cfg, &err) || litmus_check(t, cfg, &o, &err), &err))
		goto out;
	if (!fz_say(litmus_run(t, cfg, &o, &r, &err), &err))
		litmus_judge(t, &r, NULL, &v);
	litmus_result_free(&r);
out:
	cs_config_close(cfg);
	litmus_free(t);
	free(text);
	fz_rmtree(dir);
	return 0;
}
