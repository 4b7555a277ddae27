/*
 * tests/fuzz/fuzz_expect.c - a `cohscope litmus --expect FILE` verdict file
 * (tests/litmus/expected.tsv, mixed/expected.tsv): litmus_expect_load, then what a run asks of
 * the table: the expected verdict of a test under every model, with and without the agents
 * named on the line, and the verdict of a run that saw the condition. The tests asked about are
 * the file's own: each line's first field as a test under tests/litmus/ (the first 256 lines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/harness.h"
#include "workloads/litmus/litmus.h"
#include "workloads/litmus/run.h"

#define LINES_MAX 256

static void ask(const struct litmus_expect_table *tab, const char *file, const char *agents)
{
	struct litmus_test *t = calloc(1, sizeof(*t));
	struct litmus_result r = {.condition_count = 1};
	struct litmus_verdict v;

	if (!t)
		return;
	snprintf(t->path, sizeof(t->path), "tests/litmus/%s", file);
	for (unsigned m = LIT_MODEL_SC; m <= LIT_MODEL_HSA; m++) {
		litmus_expected(t, tab, m);
		litmus_expected_agents(t, tab, m, agents);
		r.model = m;
		snprintf(r.agents, sizeof(r.agents), "%s", m == LIT_MODEL_HSA ? agents : "");
		litmus_judge(t, &r, tab, &v);
	}
	t->coherence = true;
	litmus_expected(t, tab, LIT_MODEL_RC);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct litmus_expect_table *tab = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];

	if (fz_tmpdir(dir))
		return 0;
	if (!fz_write(dir, "expected.tsv", data, size, path) &&
	    !fz_say(litmus_expect_load(path, &tab, &err), &err)) {
		char *text = fz_strndup(data, size), *line, *save = NULL;
		unsigned n = 0;

		for (line = text ? strtok_r(text, "\n", &save) : NULL; line && n < LINES_MAX;
		     line = strtok_r(NULL, "\n", &save), n++) {
			char *agents = strchr(line, '\t'), *end;

			if (!agents)
				continue;
			*agents++ = '\0';
			end = strchr(agents, '\t');
			if (end)
				*end = '\0';
			ask(tab, line, agents);
		}
		free(text);
	}
	litmus_expect_free(tab);
	fz_rmtree(dir);
	return 0;
}
