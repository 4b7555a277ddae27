/*
 * tests/fuzz/fuzz_calibration.c - a calibration file (`sampling.calibration`, written by
 * `cohscope calibrate`): cal_file_load (calibrate/calfile.c), then the model evaluated as the
 * analytic mode does at the ends and the middle of each feature's range.
 */
#include <math.h>

#include "calibrate/calfile.h"
#include "tests/fuzz/harness.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double rho[] = {0, 0.5, 1};
	unsigned bad = 0;
	struct cal_file cal;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];

	if (fz_tmpdir(dir))
		return 0;
	if (!fz_write(dir, "fuzz.cal", data, size, path) &&
	    !fz_say(cal_file_load(path, &cal, &err), &err))
		for (unsigned i = 0; i < 27; i++) {
			double x[CALM_FEATURES] = {rho[i % 3], rho[i / 3 % 3], rho[i / 9]};

			bad += !isfinite(calm_ratio(cal.p, x, NULL));
		}
	if (bad) /* accepted, but the analytic mode would scale cycles by inf or nan */
		fz_say(-1, &(struct cs_err){.msg = "accepted, the model is not finite"});
	fz_rmtree(dir);
	return 0;
}
