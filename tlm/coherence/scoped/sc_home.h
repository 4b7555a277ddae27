/*
 * tlm/coherence/scoped/sc_home.h - the L2 side of the scoped kit (README.md): an L2 bank of
 * gpu_l2_base.c behind an apu_port endpoint of the one-way network. The home takes requests on
 * REQ and hands them to the bank, sends the bank's answers on RSP to the requester, and
 * performs remote-scope atomics (seed 004 Table 3 a3-a5, a9-a14, a19-a25): a broadcast of
 * probes to every L1 but the requester's, the acks counted in a transaction record, the atomic
 * at the bank, a second broadcast where the row has one, then the answer. Remote operations on
 * one line are serialised (the later ones parked); the bank serves other requests meanwhile.
 *
 * Its gpu_l2_ops (sc_home_l2_ops) are what protocol rsp registers; the family `scoped`
 * (sc_fabric.c) binds the home's endpoint sockets and the bank's DRAM socket. SM i is node i,
 * bank j node gpu.sms + j (the family's layout check holds every layout to this).
 */
#ifndef COHSCOPE_TLM_COHERENCE_SCOPED_SC_HOME_H
#define COHSCOPE_TLM_COHERENCE_SCOPED_SC_HOME_H

#include "tlm/coherence/gpu_l2_base.h"

struct sc_home;

extern const struct gpu_l2_ops sc_home_l2_ops;
/* hLRC's (protocols hlrc, hlrc-noprio): registration of atomics in the L1s (README.md §6) */
extern const struct gpu_l2_ops sc_home_hlrc_l2_ops, sc_home_hlrc_noprio_l2_ops;
/* DeNovo-B's homes: the same registration, the bank write-back (LRU, Rprio) */
extern const struct gpu_l2_ops sc_home_denovo_b_l2_ops, sc_home_denovo_rprio_l2_ops;

/* The endpoint sockets of a home made by sc_home_l2_ops.create (its struct gpu_l2 *). */
struct tlm_initiator_socket *sc_home_inject(struct gpu_l2 *home);
struct tlm_target_socket *sc_home_deliver(struct gpu_l2 *home);

#endif
