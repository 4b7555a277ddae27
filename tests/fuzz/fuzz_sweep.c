/*
 * tests/fuzz/fuzz_sweep.c - a sweep file (`cohscope sweep FILE`, docs/sweeps.md): the reader of
 * cli/sweep.c (sweep_file_load: the configuration loader's checks, then the structure, the
 * --set texts, the axes and the points with their IDs), then the manifest `--emit-jobs` writes,
 * with every point's command line (for sweeps of at most 256 points). Checking each point
 * against its configuration (what `cohscope sweep` does next) builds systems as fuzz_set does
 * and is left out.
 *
 * The input is written to a directory beside links to the source's configs/ entries, as if in
 * configs/sweeps/: base = "../default.cfg" resolves.
 */
#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli/sweep.h"
#include "tests/fuzz/harness.h"
#include "util/error.h"

#define MANIFEST_POINTS_MAX 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweep *sw = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], sub[FZ_PATH], path[FZ_PATH];

	if (fz_tmpdir(dir))
		return 0;
	if (snprintf(sub, sizeof(sub), "%s/fuzz-sweeps", dir) >= (int)sizeof(sub) ||
	    fz_mirror_configs(dir) || mkdir(sub, 0700) ||
	    fz_write(sub, "fuzz.sweep", data, size, path)) {
		fz_rmtree(dir);
		return 0;
	}
	if (!fz_say(sweep_file_load(path, NULL, 0, &sw, &err), &err) &&
	    sweep_file_points(sw) <= MANIFEST_POINTS_MAX)
		json_decref(sweep_file_manifest(sw, dir));
	sweep_file_free(sw);
	fz_rmtree(dir);
	return 0;
}
