/* workloads/port_util.c - helpers shared by the benchmark ports (see port_util.h). */
#include "workloads/port_util.h"

#include <string.h>

#include "workloads/wl_util.h"

uint64_t pu_d2u(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

double pu_u2d(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

void pu_ld_const_float4(struct gpu_warp *w, uint64_t addr, float out[4])
{
	uint64_t c[WARP_LANES] = {addr, addr + 8}, v[WARP_LANES] = {0};

	gw_ld_constv(w, c, 0x3, 8, v);
	out[0] = wl_u2f((uint32_t)v[0]);
	out[1] = wl_u2f((uint32_t)(v[0] >> 32));
	out[2] = wl_u2f((uint32_t)v[1]);
	out[3] = wl_u2f((uint32_t)(v[1] >> 32));
}
