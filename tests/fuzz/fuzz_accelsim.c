/*
 * tests/fuzz/fuzz_accelsim.c - an Accel-Sim trace (`-w trace:DIR/kernelslist.g`):
 * trace_import_accelsim through trace_load (workloads/trace/accelsim.c), then every warp's ops
 * decoded as the replay reads them.
 *
 * Input: a multi-file input (tests/fuzz/harness.h fz_split): kernelslist.g first, then
 * "#@ kernel-1.traceg" and that file's lines, and so on. A file named NAME.xz is compressed by
 * the harness (xz, as Accel-Sim's .traceg.xz), so its lines reach the reader through liblzma.
 */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/harness.h"
#include "workloads/trace/trace.h"

static int write_xz(const char *dir, const struct fz_file *f)
{
	size_t cap = lzma_stream_buffer_bound(f->size), n = 0;
	uint8_t *out = malloc(cap);
	int rc = -1;

	if (out && lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, f->data, f->size, out, &n,
					   cap) == LZMA_OK)
		rc = fz_write(dir, f->name, out, n, NULL);
	free(out);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_file files[FZ_FILES_MAX];
	size_t n = fz_split(data, size, "kernelslist.g", files, FZ_FILES_MAX);
	struct trace *t = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];
	int rc = 0;

	if (fz_tmpdir(dir))
		return 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len = strlen(files[i].name);

		if (len > 3 && !strcmp(files[i].name + len - 3, ".xz"))
			rc = write_xz(dir, &files[i]);
		else
			rc = fz_write(dir, files[i].name, files[i].data, files[i].size, NULL);
	}
	if (!rc && snprintf(path, sizeof(path), "%s/kernelslist.g", dir) < (int)sizeof(path) &&
	    !fz_say(trace_load(path, &t, &err), &err))
		fz_trace_walk(t);
	trace_free(t);
	fz_rmtree(dir);
	return 0;
}
