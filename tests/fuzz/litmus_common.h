/*
 * tests/fuzz/litmus_common.h - the litmus targets' shared body (fuzz_litmus_*.c).
 */
#ifndef COHSCOPE_TESTS_FUZZ_LITMUS_COMMON_H
#define COHSCOPE_TESTS_FUZZ_LITMUS_COMMON_H

#include <stddef.h>
#include <stdint.h>

enum fz_dialect { FZ_LIT_C = 0, FZ_LIT_OPENCL, FZ_LIT_X86, FZ_LIT_PTX };

/* One input of the litmus target for dialect d (see litmus_common.c). Returns 0. */
int fz_litmus(const uint8_t *data, size_t size, enum fz_dialect d);

#endif
