/*
 * tests/fuzz/fuzz_plot.c - the results files `cohscope plot` reads (the CSV or JSON of
 * `cohscope sweep`, the JSON of `cohscope suite -o`): cmd_plot (cli/plot.c) on them as
 * `cohscope plot FILE... -o PREFIX --format none -q` runs it, writing PREFIX.dat and PREFIX.gp
 * in the input's temporary directory (no gnuplot).
 *
 * Input: a multi-file input (tests/fuzz/harness.h fz_split; several files are read as one
 * table), optionally after a first line "#!plot OPTION..." of options for the chart, each
 * --NAME=VALUE with NAME one of metric, baseline, group-by, x, where, title, or --speedup or
 * --no-errorbars (anything else on the line is left out: no option may name a file).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot.h"
#include "tests/fuzz/harness.h"
#include "util/error.h"

#define OPTS_MAX 16

static bool allowed(const char *tok)
{
	static const char *const with_value[] = {
	    "--metric=", "--baseline=", "--group-by=", "--x=", "--where=", "--title="};

	if (!strcmp(tok, "--speedup") || !strcmp(tok, "--no-errorbars"))
		return true;
	for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
		if (!strncmp(tok, with_value[i], strlen(with_value[i])))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* plot, the chart options, -q --format=none -o PREFIX, the files, NULL */
	char *argv[1 + OPTS_MAX + 4 + FZ_FILES_MAX + 1], *reset[] = {(char *)"fuzz", NULL};
	struct fz_file files[FZ_FILES_MAX];
	char dir[FZ_PATH], prefix[FZ_PATH], paths[FZ_FILES_MAX][FZ_PATH], *opts = NULL;
	char *save = NULL;
	int argc = 0;
	size_t n;

	if (size >= 6 && !memcmp(data, "#!plot", 6)) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - data) : size;

		opts = fz_strndup(data + 6, len - 6);
		data += len + (nl != NULL);
		size -= len + (nl != NULL);
		if (!opts)
			return 0;
	}
	if (fz_tmpdir(dir)) {
		free(opts);
		return 0;
	}
	argv[argc++] = (char *)"plot";
	for (char *tok = opts ? strtok_r(opts, " \t\r", &save) : NULL; tok && argc < 1 + OPTS_MAX;
	     tok = strtok_r(NULL, " \t\r", &save))
		if (allowed(tok))
			argv[argc++] = tok;
	if (snprintf(prefix, sizeof(prefix), "%s/out", dir) >= (int)sizeof(prefix))
		goto out;
	argv[argc++] = (char *)"-q";
	argv[argc++] = (char *)"--format=none";
	argv[argc++] = (char *)"-o";
	argv[argc++] = prefix;
	n = fz_split(data, size, "results.csv", files, FZ_FILES_MAX);
	for (size_t i = 0; i < n; i++) {
		if (fz_write(dir, files[i].name, files[i].data, files[i].size, paths[i]))
			goto out;
		argv[argc++] = paths[i];
	}
	argv[argc] = NULL;
	/* cmd_plot sets optind = 1 as `cohscope` starts with it: make glibc's getopt start anew
	 * too, as in a fresh process */
	optind = 0;
	opterr = 0;
	getopt(1, reset, "");
	fz_say(cmd_plot(argc, argv),
	       &(struct cs_err){.msg = "not plotted (the line above says why)"});
out:
	free(opts);
	fz_rmtree(dir);
	return 0;
}
