/* tlm/coherence/scoped/sc_msg.c - the scoped protocols' message names and probe actions. */
#include "tlm/coherence/scoped/sc_msg.h"

const char *const sc_msg_names[SC_MSG_COUNT] = {
    GPU_BASE_MSG_NAMES,		      /* requests and the bank's answers */
    [SC_MSG_FLUSH] = "flush",	      /* a4 */
    [SC_MSG_LK_FL_INV] = "lk_fl_inv", /* a9-a11, a19-a21 */
    [SC_MSG_INV_UL] = "inv_ul",	      /* a13-a14 */
    [SC_MSG_FL_INV_UL] = "fl_inv_ul", /* a23-a25 */
    [SC_MSG_RECALL] = "recall",	      /* b5, c4, and the L2's eviction of an R line */
    [SC_MSG_ACK] = "ack",
    [SC_MSG_GETR] = "getr",   /* b2, b5, c1, c5 */
    [SC_MSG_UNREG] = "unreg", /* an L1's eviction of an R line */
    [SC_MSG_FWD] = "fwd",     /* a data access to a line registered in another L1 */
};

const unsigned char sc_msg_traffic[SC_MSG_COUNT] = {
    GPU_BASE_MSG_TRAFFIC,
    [SC_MSG_FLUSH] = NOC_TR_PROBE,
    [SC_MSG_LK_FL_INV] = NOC_TR_PROBE,
    [SC_MSG_INV_UL] = NOC_TR_PROBE,
    [SC_MSG_FL_INV_UL] = NOC_TR_PROBE,
    [SC_MSG_RECALL] = NOC_TR_PROBE,
    [SC_MSG_ACK] = NOC_TR_PROBE, /* a probe's answer (a recall's carries the line) */
    [SC_MSG_GETR] = NOC_TR_REQUEST,
    [SC_MSG_UNREG] = NOC_TR_WRITEBACK,
    [SC_MSG_FWD] = NOC_TR_PROBE,
};

unsigned sc_msg_base_type(unsigned type)
{
	switch (type) {
	case SC_MSG_GETR:
		return GPU_MSG_READ;
	case SC_MSG_UNREG:
		return GPU_MSG_WRITEBACK;
	default:
		return type;
	}
}

unsigned sc_msg_actions(unsigned type)
{
	switch (type) {
	case SC_MSG_FLUSH:
		return SC_ACT_FLUSH;
	case SC_MSG_LK_FL_INV:
		return SC_ACT_LOCK | SC_ACT_FLUSH | SC_ACT_INV;
	case SC_MSG_INV_UL:
		return SC_ACT_INV | SC_ACT_UNLOCK;
	case SC_MSG_FL_INV_UL:
		return SC_ACT_FLUSH | SC_ACT_INV | SC_ACT_UNLOCK;
	case SC_MSG_RECALL:
		return SC_ACT_RECALL;
	case SC_MSG_FWD:
		return SC_ACT_FWD;
	default:
		return 0;
	}
}
