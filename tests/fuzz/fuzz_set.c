/*
 * tests/fuzz/fuzz_set.c - `--set section.key=value` overrides over a shipped configuration, as
 * `cohscope run -c configs/default.cfg --set ... [-w NAME] [--mode M]` applies them
 * (cli/main.c open_config, create_system), without running.
 *
 * Input: one override per line (at most 256, as the command line takes), applied in order
 * over configs/default.cfg. Three kinds of line are the harness's own: "#base NAME" takes
 * configs/NAME instead (a plain file name), "#w NAME" is -w NAME and "#mode M" is --mode M
 * (detailed, hybrid or analytic).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/harness.h"
#include "tlm/system/system.h"
#include "util/config.h"

#define SETS_MAX 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_run_opts ro = {.mode = -1};
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct cs_err err = {0};
	const char *sets[SETS_MAX], *base = "default.cfg";
	char *text = fz_strndup(data, size), *line, *save = NULL, path[FZ_PATH];
	int n = 0, rc;

	if (!text)
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);

		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!strncmp(line, "#base ", 6) && fz_plain_name(line + 6, len - 6)) {
			base = line + 6;
		} else if (!strncmp(line, "#w ", 3)) {
			ro.workload = line + 3;
		} else if (!strncmp(line, "#mode ", 6)) {
			ro.mode = -1;
			for (int m = 0; cs_mode_names[m]; m++)
				if (!strcmp(line + 6, cs_mode_names[m]))
					ro.mode = m;
		} else if (len && n < SETS_MAX) {
			sets[n++] = line;
		}
	}
	snprintf(path, sizeof(path), "%s/configs/%s", fz_src(), base);
	rc = cs_config_open(path, &cfg, &err);
	for (int i = 0; !rc && i < n; i++)
		rc = cs_config_set(cfg, sets[i], &err);
	if (!rc)
		rc = cs_system_create(cfg, &ro, &sys, &err);
	if (!rc)
		rc = cs_config_check_unused(cfg, NULL, 0, &err);
	fz_say(rc, &err);
	cs_system_destroy(sys);
	cs_config_close(cfg);
	free(text);
	return 0;
}
