/*
 * tests/fuzz/fuzz_litmus_x86.c - X86 litmus tests: parse, check and a short run
 * (tests/fuzz/litmus_common.c).
 */
#include "tests/fuzz/harness.h"
#include "tests/fuzz/litmus_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_litmus(data, size, FZ_LIT_X86);
}
