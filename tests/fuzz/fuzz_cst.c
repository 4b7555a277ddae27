/*
 * tests/fuzz/fuzz_cst.c - a cohscope trace file (.cst, `run --record`, `-w trace:FILE`):
 * trace_load (workloads/trace/trace.c), then every warp's ops decoded as the replay reads them.
 *
 * The body is one zstd frame with its checksum: mutations of a whole file rarely get past the
 * checksum, so an input may also be a raw body: "BODY" and the format version as one digit
 * ('1' to '9'), then the body's bytes, which the harness compresses behind a valid header.
 * Any other input is the file as it is.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tests/fuzz/harness.h"
#include "workloads/trace/trace.h"

#define HDR_BYTES 24 /* magic, version, flags, body length: workloads/trace/trace.c */

static void le_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A whole trace file around the raw body: header and zstd frame with its checksum. */
static uint8_t *wrap_body(const uint8_t *body, size_t len, unsigned version, size_t *out_len)
{
	size_t bound = ZSTD_compressBound(len), n;
	uint8_t *out = malloc(HDR_BYTES + bound);
	ZSTD_CCtx *cc = ZSTD_createCCtx();

	if (!out || !cc || ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(n = ZSTD_compress2(cc, out + HDR_BYTES, bound, body, len))) {
		ZSTD_freeCCtx(cc);
		free(out);
		return NULL;
	}
	ZSTD_freeCCtx(cc);
	memcpy(out, "CSTRACE", 8);
	le_put(out + 8, version, 4);
	le_put(out + 12, 0, 4);
	le_put(out + 16, len, 8);
	*out_len = HDR_BYTES + n;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = NULL;
	struct cs_err err = {0};
	char dir[FZ_PATH], path[FZ_PATH];
	uint8_t *file = NULL;
	size_t len = size;

	if (size >= 5 && !memcmp(data, "BODY", 4) && data[4] >= '1' && data[4] <= '9') {
		file = wrap_body(data + 5, size - 5, (unsigned)(data[4] - '0'), &len);
		if (!file)
			return 0;
	}
	if (fz_tmpdir(dir)) {
		free(file);
		return 0;
	}
	if (!fz_write(dir, "fuzz.cst", file ? file : data, len, path) &&
	    !fz_say(trace_load(path, &t, &err), &err))
		fz_trace_walk(t);
	trace_free(t);
	free(file);
	fz_rmtree(dir);
	return 0;
}
