/*
 * tests/fuzz/fuzz_config.c - a configuration file as `cohscope run -c FILE` loads it
 * (cli/main.c open_config, create_system): cs_config_open, the system builder reading every
 * section it uses through its components' parameter tables, the check for unused names and
 * the dump of `cohscope config --dump`. Nothing runs. The input is written beside links to
 * the source's configs/, so @include "gtsc-16sm-gpu.cfg" or "dram/ddr4-2400.cfg" resolve as
 * they do for a file in configs/.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/harness.h"
#include "tlm/system/system.h"
#include "util/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_run_opts ro = {.mode = -1};
	struct cs_config *cfg = NULL;
	struct cs_system *sys = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];

	if (fz_tmpdir(dir))
		return 0;
	if (!fz_mirror_configs(dir) && !fz_write(dir, "fuzz-input.cfg", data, size, path) &&
	    !fz_say(cs_config_open(path, &cfg, &err) || cs_system_create(cfg, &ro, &sys, &err) ||
			cs_config_check_unused(cfg, NULL, 0, &err),
		    &err)) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		if (f) {
			cs_config_dump(cfg, f);
			fclose(f);
		}
		free(text);
	}
	cs_system_destroy(sys);
	cs_config_close(cfg);
	fz_rmtree(dir);
	return 0;
}
