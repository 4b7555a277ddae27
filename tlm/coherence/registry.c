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

/* One member missing: the error names the protocol, the table and the member. */
static int missing(const struct gpu_protocol *p, const char *table, const char *member,
		   struct cs_err *err)
{
	return cs_err_set(
	    err, -CS_ECONFIG,
	    "coherence.protocol = \"%s\": its %s declares no %s (every system needs it)", p->name,
	    table, member);
}

int gpu_protocol_check(const struct gpu_protocol *p, struct cs_err *err)
{
	const struct gpu_l1_ops *l1 = p->l1;
	const struct gpu_l2_ops *l2 = p->l2;

	if (!p->msg_traffic)
		return missing(p, "protocol", "kind of traffic of its messages (msg_traffic)", err);
	if (!l1)
		return missing(p, "protocol", "L1 (gpu_l1_ops)", err);
	if (!l2)
		return missing(p, "protocol", "L2 (gpu_l2_ops)", err);
	if (!l1->create || !l1->destroy || !l1->access || !l1->idle || !l1->digest)
		return missing(p, "L1 (gpu_l1_ops)", "create, destroy, access, idle or digest",
			       err);
	if (!l1->energy)
		return missing(p, "L1 (gpu_l1_ops)", "energy events (gpu_l1_ops.energy)", err);
	if (!l2->create || !l2->destroy || !l2->idle || !l2->digest)
		return missing(p, "L2 (gpu_l2_ops)", "create, destroy, idle or digest", err);
	if (!l2->energy)
		return missing(p, "L2 (gpu_l2_ops)", "energy events (gpu_l2_ops.energy)", err);
	return 0;
}
