/*
 * tests/fuzz/fuzz_gr.c - a DIMACS shortest-path graph (`workload.graph_file` NAME.gr,
 * docs/graphs.md): graph_read_gr (workloads/graph/mtx.c), then the statistics the Pannotia
 * workloads print (fz_graph).
 */
#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_graph(data, size, "fuzz.gr");
}
