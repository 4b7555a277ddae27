/*
 * calibrate/calfile.c - the calibration model and its file (see the header).
 */
#include "calibrate/calfile.h"

#include <libconfig.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/readfile.h"

const double calm_init[CALM_PARAMS] = {1.0, 0.1, 0.1, 0.1, 0.5};
const double calm_lower[CALM_PARAMS] = {0.3, -2.0, -2.0, -2.0, 0.0};
const double calm_upper[CALM_PARAMS] = {3.0, 5.0, 5.0, 5.0, 0.95};

double calm_ratio(const double *p, const double *x, void *ctx)
{
	double r = p[0];

	(void)ctx;
	for (unsigned i = 0; i < CALM_FEATURES; i++) {
		double rho = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i];

		r += p[1 + i] * rho / (1 - p[4] * rho);
	}
	return r;
}

static const char *const pnames[CALM_PARAMS] = {"a", "b_noc", "b_l2", "b_dram", "c"};

int cal_file_load(const char *path, struct cal_file *out, struct cs_err *err)
{
	config_t cf;
	config_setting_t *grp;
	const char *str;
	char *text = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	config_init(&cf);
	rc = cs_read_file(path, path, CS_TEXT_FILE_MAX, "a calibration file", 1, &text, NULL, err);
	if (rc)
		goto out;
	if (!config_read_string(&cf, text)) {
		rc = cs_err_set(err, -CS_ECONFIG, "%s:%d: %s", path, config_error_line(&cf),
				config_error_text(&cf));
		goto out;
	}
	grp = config_lookup(&cf, "calibration");
	if (!grp || !config_setting_is_group(grp) || !config_setting_length(grp)) {
		/* an empty file or group: say so rather than name the first parameter */
		rc =
		    cs_err_set_at(err, -CS_ECONFIG, path, grp ? config_setting_source_line(grp) : 1,
				  "%s (expected calibration = { a = ...; b_noc = ...; ... }, as "
				  "cohscope calibrate writes)",
				  !grp ? "no calibration group: not a calibration file"
				  : config_setting_is_group(grp) ? "the calibration group is empty"
								 : "calibration is not a group");
		goto out;
	}
	for (unsigned i = 0; i < CALM_PARAMS; i++) {
		config_setting_t *st = config_setting_get_member(grp, pnames[i]);
		int type = st ? config_setting_type(st) : CONFIG_TYPE_NONE;

		if (type != CONFIG_TYPE_FLOAT && type != CONFIG_TYPE_INT &&
		    type != CONFIG_TYPE_INT64) {
			rc = cs_err_set_at(
			    err, -CS_ECONFIG, path, config_setting_source_line(st ? st : grp),
			    "calibration.%s is %s", pnames[i], st ? "not a number" : "missing");
			goto out;
		}
		out->p[i] = type == CONFIG_TYPE_FLOAT ? config_setting_get_float(st)
			    : type == CONFIG_TYPE_INT ? config_setting_get_int(st)
						      : (double)config_setting_get_int64(st);
		/* The fitter's bounds are the model's domain: outside them R can be negative, c = 1
		 * divides by zero at a saturated resource, and 1e308 overflows the cycles. */
		if (!(out->p[i] >= calm_lower[i] && out->p[i] <= calm_upper[i])) {
			rc = cs_err_set_at(err, -CS_ECONFIG, path, config_setting_source_line(st),
					   "calibration.%s = %g is outside [%g, %g], the range the "
					   "model can use (cohscope calibrate fits within it)",
					   pnames[i], out->p[i], calm_lower[i], calm_upper[i]);
			goto out;
		}
	}
	if (config_lookup_string(&cf, "calibration.train", &str))
		snprintf(out->train, sizeof(out->train), "%s", str);
	if (config_lookup_string(&cf, "calibration.config", &str))
		snprintf(out->config, sizeof(out->config), "%s", str);
	config_lookup_float(&cf, "calibration.heldout_mean_error", &out->heldout_mean_err);
	config_lookup_float(&cf, "calibration.heldout_max_error", &out->heldout_max_err);
	config_lookup_float(&cf, "calibration.fit_mean_error", &out->fit_mean_err);
	{
		int n = 0;

		config_lookup_int(&cf, "calibration.kernels", &n);
		out->samples = n > 0 ? (unsigned)n : 0;
	}
	out->loaded = true;
out:
	config_destroy(&cf);
	free(text);
	return rc;
}

int cal_file_save(const char *path, const struct cal_file *c, struct cs_err *err)
{
	char tmp[4200];
	FILE *f;
	int bad;

	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return cs_err_set(err, -CS_EIO, "%s: cannot write", path);
	fprintf(f, "# cohscope calibration (cohscope calibrate): R = detailed / LT cycles =\n");
	fprintf(f, "#   a + sum_r b_r rho_r / (1 - c rho_r), r in noc, l2, dram\n");
	fprintf(f, "calibration = {\n");
	for (unsigned i = 0; i < CALM_PARAMS; i++)
		fprintf(f, "  %s = %.17g;\n", pnames[i], c->p[i]);
	fprintf(f, "  train = \"%s\";\n  config = \"%s\";\n  kernels = %u;\n", c->train, c->config,
		c->samples);
	fprintf(f, "  fit_mean_error = %.6f;\n", c->fit_mean_err);
	fprintf(f, "  heldout_mean_error = %.6f;\n  heldout_max_error = %.6f;\n",
		c->heldout_mean_err, c->heldout_max_err);
	fprintf(f, "};\n");
	bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		remove(tmp);
		return cs_err_set(err, -CS_EIO, "%s: cannot write", path);
	}
	return 0;
}
