/*
 * tests/fuzz/fuzz_mtx.c - a Matrix Market graph (`workload.graph_file`, docs/graphs.md):
 * graph_read_mtx (workloads/graph/mtx.c), then the statistics the Pannotia workloads print
 * (fz_graph).
 */
#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_graph(data, size, "fuzz.mtx");
}
