/*
 * workloads/port_util.h - helpers shared by the benchmark ports (workloads/rodinia, parboil,
 * ispass, doe) beyond what workloads/wl_util.h has for every GPU workload: the double
 * counterparts of wl_f2u / wl_u2f, and the uniform float4 read of __constant__ memory.
 */
#ifndef COHSCOPE_WORKLOADS_PORT_UTIL_H
#define COHSCOPE_WORKLOADS_PORT_UTIL_H

#include <stdint.h>

#include "workloads/gpu_api.h"

/* The bits of a double as a 64-bit memory word (gw_ld64v, gw_st64v), and back. No conversion:
 * NaNs and signed zeros keep their bits, so comparing the words is a bit-exact check. */
uint64_t pu_d2u(double d);
double pu_u2d(uint64_t u);

/* out = c[i], a float4 of __constant__ memory at addr that every lane of the warp reads (a
 * uniform index): one constant-cache access, carried as two 8-byte lanes of one request. */
void pu_ld_const_float4(struct gpu_warp *w, uint64_t addr, float out[4]);

#endif
