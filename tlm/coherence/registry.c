/*
 * tlm/coherence/registry.c - the protocol registry: an explicit table, as Lua's linit.c.
 */
#include <string.h>

#include "tlm/coherence/gpu_proto.h"

extern const struct gpu_protocol gpu_protocol_none;
extern const struct gpu_protocol gpu_protocol_noncoherent;
extern const struct gpu_protocol gpu_protocol_tc_strong;
extern const struct gpu_protocol gpu_protocol_tc_weak;
extern const struct gpu_protocol gpu_protocol_gtsc;
extern const struct gpu_protocol gpu_protocol_scoped_baseline;
extern const struct gpu_protocol gpu_protocol_rsp;
extern const struct gpu_protocol gpu_protocol_hlrc;
extern const struct gpu_protocol gpu_protocol_hlrc_noprio;
extern const struct gpu_protocol gpu_protocol_hlrc_scoped;
extern const struct gpu_protocol gpu_protocol_denovo_b;
extern const struct gpu_protocol gpu_protocol_denovo_rprio;

static const struct gpu_protocol *const protocols[] = {
    &gpu_protocol_none,
    &gpu_protocol_noncoherent,
    &gpu_protocol_tc_strong,
    &gpu_protocol_tc_weak,
    &gpu_protocol_gtsc,
    &gpu_protocol_scoped_baseline,
    &gpu_protocol_rsp,
    &gpu_protocol_hlrc,
    &gpu_protocol_hlrc_noprio,
    &gpu_protocol_hlrc_scoped,
    &gpu_protocol_denovo_b,
    &gpu_protocol_denovo_rprio,
    NULL,
};

const struct gpu_protocol *const *gpu_protocol_registry(void)
{
	return protocols;
}

const struct gpu_protocol *gpu_protocol_find(const char *name)
{
	for (const struct gpu_protocol *const *p = protocols; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}
