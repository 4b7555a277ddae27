/*
 * tlm/core/traffic.h - component "traffic": initiator threads that write a pattern and read it
 * back, through TLM sockets, approximately timed (4 phases, one transaction in flight per
 * initiator) or loosely timed (b_transport under the quantum keeper).
 *
 * Initiator i owns a disjoint address region, so every read must return what i wrote last:
 * a mismatch is a model error, counted and reported by the self-check.
 */
#ifndef COHSCOPE_TLM_CORE_TRAFFIC_H
#define COHSCOPE_TLM_CORE_TRAFFIC_H

#include <stdint.h>

#include "tlm/system/system.h"

enum traffic_mode { TRAFFIC_AT = 0, TRAFFIC_LT };

struct traffic_cfg {
	uint64_t initiators;
	uint64_t iterations; /* each is one write and one read */
	uint64_t bytes;
	uint64_t region_kib; /* per initiator */
	unsigned mode;	     /* enum traffic_mode */
};

struct traffic_result {
	uint64_t ops;
	uint64_t mismatches;
	uint64_t errors;     /* responses other than TLM_OK_RESPONSE */
	sim_time_t finished; /* when the last initiator finished */
};

struct tlm_initiator_socket *traffic_socket(struct cs_component *c, unsigned i);
unsigned traffic_initiators(const struct cs_component *c);
void traffic_result(const struct cs_component *c, struct traffic_result *r);
/* Overrides the configured mode (the self-check runs both faces from one section). */
void traffic_set_mode(struct cs_component *c, enum traffic_mode mode);

#endif
