/*
 * bench/kernel/bench_kernel.c - our kernel's side of the kernel benchmark.
 *
 *   bench_kernel pingpong --variant method|thread|callback --procs N --events E
 *       N processes in N/2 pairs; each activation counts and re-arms its partner (1 + id % 4) ns
 *       ahead, so N/2 items are pending, 1..4 ns ahead: the model of
 *       bench/kernel/pingpong_systemc.cpp, which runs the same thing on Accellera SystemC.
 *       method = SC_METHOD with static sensitivity and a timed notify (the like-for-like
 *       comparison), thread = SC_THREAD waiting on its event, callback = our PEQ-style path
 *       (every message its own scheduled callback), which is what components use.
 *   bench_kernel lt --txns T --quantum-ns Q
 *       one initiator thread doing T b_transport calls to a memory target that annotates 10 ns
 *       each; Q = 0 waits after every transaction, Q > 0 uses the quantum keeper.
 *   bench_kernel switch --switches S
 *       coroutine resume/yield pairs: ns per switch.
 * Each prints one line "cohscope key=value ..." for bench/kernel/run.sh. Wall time covers the
 * simulation run only, not building the model.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tlm/kernel/coro.h"
#include "tlm/kernel/sim.h"
#include "tlm/kernel/tlm.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- ping-pong -------------------------------------------------------------------------------- */

struct pp_proc {
	struct pp *pp;
	unsigned id;
	struct sim_event *ev;
	struct pp_proc *partner;
};

struct pp {
	uint64_t count, target;
	struct pp_proc *procs;
};

static inline sim_time_t pp_delay(const struct pp_proc *p)
{
	return (1 + p->id % 4) * SIM_NS;
}

/* Counts one activation; false once the target is reached (others due in the same delta
 * cycle still run, and must neither count nor re-arm). */
static inline bool pp_count(struct sim_kernel *k, struct pp *pp)
{
	if (pp->count >= pp->target)
		return false;
	if (++pp->count == pp->target) {
		sim_stop(k);
		return false;
	}
	return true;
}

static void pp_method(struct sim_kernel *k, void *ctx)
{
	struct pp_proc *p = ctx;

	if (pp_count(k, p->pp))
		sim_event_notify_delayed(p->partner->ev, pp_delay(p));
}

static void pp_thread(struct sim_kernel *k, void *ctx)
{
	struct pp_proc *p = ctx;

	for (;;) {
		sim_wait_event(k, p->ev);
		if (!pp_count(k, p->pp))
			return;
		sim_event_notify_delayed(p->partner->ev, pp_delay(p));
	}
}

static void pp_callback(struct sim_kernel *k, void *obj, void *arg)
{
	struct pp_proc *p = obj;

	(void)arg;
	if (pp_count(k, p->pp))
		sim_schedule(k, pp_delay(p), pp_callback, p->partner, NULL);
}

static int bench_pingpong(const char *variant, unsigned n, uint64_t events)
{
	struct sim_kernel_opts o = {.default_stack_size = 16 * 1024};
	struct pp pp = {.target = events};
	struct sim_kernel *k;
	double t0, t1;
	int err;

	if (n < 2 || n % 2) {
		fprintf(stderr, "bench_kernel: --procs must be even and >= 2\n");
		return 2;
	}
	if (sim_kernel_create(&o, &k))
		return 1;
	pp.procs = calloc(n, sizeof(*pp.procs));
	if (!pp.procs)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		struct pp_proc *p = &pp.procs[i];

		p->pp = &pp;
		p->id = i;
		p->partner = &pp.procs[i ^ 1u];
		p->ev = sim_event_create(k, "ev");
		if (strcmp(variant, "method") == 0) {
			struct sim_process *pr = sim_method_create(k, "pp", pp_method, p);

			sim_sensitive(pr, p->ev);
			sim_dont_initialize(pr);
		} else if (strcmp(variant, "thread") == 0) {
			sim_thread_create(k, "pp", pp_thread, p, 0);
		} else if (strcmp(variant, "callback") != 0) {
			fprintf(stderr, "bench_kernel: unknown variant '%s'\n", variant);
			return 2;
		}
	}
	/* threads reach their first wait at time 0 */
	err = sim_run_until(k, 0);
	for (unsigned i = 0; i < n && !err; i += 2) {
		if (strcmp(variant, "callback") == 0)
			sim_schedule(k, 1 * SIM_NS, pp_callback, &pp.procs[i], NULL);
		else
			sim_event_notify_delayed(pp.procs[i].ev, 1 * SIM_NS);
	}
	t0 = now_s();
	err = err ? err : sim_run(k);
	t1 = now_s();
	if (err || pp.count != events) {
		fprintf(stderr, "bench_kernel: run failed (%d, %s), %llu activations\n", err,
			sim_failure(k) ? sim_failure(k) : "", (unsigned long long)pp.count);
		return 1;
	}
	printf("cohscope variant=%s procs=%u activations=%llu seconds=%.4f mevents_per_s=%.2f "
	       "sim_time_ps=%llu\n",
	       variant, n, (unsigned long long)pp.count, t1 - t0,
	       (double)pp.count / (t1 - t0) / 1e6, (unsigned long long)sim_now(k));
	sim_kernel_destroy(k);
	free(pp.procs);
	return 0;
}

/* ---- loosely timed b_transport ------------------------------------------------------------------ */

struct lt_mem {
	struct tlm_target_socket ts;
	uint8_t mem[4096];
};

static void lt_mem_b(void *obj, struct tlm_payload *p, sim_time_t *d)
{
	struct lt_mem *m = obj;

	if (p->cmd == TLM_WRITE_COMMAND)
		memcpy(&m->mem[p->addr], p->data, p->len);
	else
		memcpy(p->data, &m->mem[p->addr], p->len);
	p->status = TLM_OK_RESPONSE;
	*d += 10 * SIM_NS;
}

struct lt_cpu {
	struct tlm_initiator_socket is;
	struct tlm_pool *pool;
	uint64_t txns, done;
	bool use_qk;
};

static void lt_cpu_thread(struct sim_kernel *k, void *ctx)
{
	struct lt_cpu *c = ctx;
	struct tlm_payload *p = tlm_payload_alloc(c->pool);
	struct tlm_qk qk;

	tlm_qk_init(&qk, k);
	p->len = 8;
	for (uint64_t i = 0; i < c->txns; i++) {
		sim_time_t d = c->use_qk ? tlm_qk_local_time(&qk) : 0;

		p->cmd = (i & 1) ? TLM_READ_COMMAND : TLM_WRITE_COMMAND;
		p->addr = (i * 8) % 4096;
		tlm_b_transport(&c->is, p, &d);
		c->done++;
		if (c->use_qk) {
			tlm_qk_set(&qk, d);
			if (tlm_qk_need_sync(&qk))
				tlm_qk_sync(&qk);
		} else {
			sim_wait_time(k, d);
		}
	}
	if (c->use_qk)
		tlm_qk_sync(&qk);
	tlm_payload_release(p);
}

static const struct tlm_fw_ops lt_mem_ops = {.b_transport = lt_mem_b};
static const struct tlm_bw_ops lt_cpu_ops = {0};

static int bench_lt(uint64_t txns, uint64_t quantum_ns)
{
	struct sim_kernel_opts o = {.quantum = quantum_ns * SIM_NS};
	struct lt_mem *mem = calloc(1, sizeof(*mem));
	struct lt_cpu cpu = {.txns = txns, .use_qk = quantum_ns > 0};
	struct sim_kernel *k;
	double t0, t1;
	int err;

	if (!mem || sim_kernel_create(&o, &k) || tlm_pool_create(&cpu.pool))
		return 1;
	tlm_target_init(&mem->ts, "mem", &lt_mem_ops, mem);
	tlm_initiator_init(&cpu.is, "cpu", &lt_cpu_ops, &cpu);
	tlm_bind(&cpu.is, &mem->ts);
	sim_thread_create(k, "cpu", lt_cpu_thread, &cpu, 0);
	t0 = now_s();
	err = sim_run(k);
	t1 = now_s();
	if (err || cpu.done != txns || sim_now(k) != txns * 10 * SIM_NS) {
		fprintf(stderr, "bench_kernel: LT run failed\n");
		return 1;
	}
	printf("cohscope lt quantum_ns=%llu txns=%llu seconds=%.4f mtxn_per_s=%.2f\n",
	       (unsigned long long)quantum_ns, (unsigned long long)txns, t1 - t0,
	       (double)txns / (t1 - t0) / 1e6);
	sim_kernel_destroy(k);
	tlm_pool_destroy(cpu.pool);
	free(mem);
	return 0;
}

/* ---- coroutine switch cost ---------------------------------------------------------------------- */

struct sw {
	struct sim_coro *co;
	uint64_t n;
};

static void sw_body(void *arg)
{
	struct sw *s = arg;

	for (;;) {
		s->n++;
		sim_coro_yield(s->co);
	}
}

static int bench_switch(uint64_t switches)
{
	struct sw s = {0};
	uint64_t pairs = switches / 2;
	double t0, t1;

	if (sim_coro_create(16 * 1024, sw_body, &s, &s.co))
		return 1;
	t0 = now_s();
	for (uint64_t i = 0; i < pairs; i++)
		sim_coro_resume(s.co);
	t1 = now_s();
	printf("cohscope switch backend=\"%s\" switches=%llu seconds=%.4f ns_per_switch=%.2f\n",
	       sim_coro_backend(), (unsigned long long)(pairs * 2), t1 - t0,
	       (t1 - t0) * 1e9 / (double)(pairs * 2));
	sim_coro_destroy(s.co);
	return 0;
}

/* ---- command line ----------------------------------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr, "usage: bench_kernel pingpong --variant method|thread|callback --procs N "
			"--events E\n"
			"       bench_kernel lt --txns T --quantum-ns Q\n"
			"       bench_kernel switch --switches S\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *variant = "method";
	uint64_t procs = 2, events = 10000000, txns = 10000000, quantum = 0, switches = 20000000;

	if (argc < 2)
		return usage();
	for (int i = 2; i < argc; i++) {
		char *end;
		uint64_t v;

		if (i + 1 >= argc)
			return usage();
		if (strcmp(argv[i], "--variant") == 0) {
			variant = argv[++i];
			continue;
		}
		v = strtoull(argv[i + 1], &end, 10);
		if (*end)
			return usage();
		if (strcmp(argv[i], "--procs") == 0)
			procs = v;
		else if (strcmp(argv[i], "--events") == 0)
			events = v;
		else if (strcmp(argv[i], "--txns") == 0)
			txns = v;
		else if (strcmp(argv[i], "--quantum-ns") == 0)
			quantum = v;
		else if (strcmp(argv[i], "--switches") == 0)
			switches = v;
		else
			return usage();
		i++;
	}
	if (strcmp(argv[1], "pingpong") == 0)
		return bench_pingpong(variant, (unsigned)procs, events);
	if (strcmp(argv[1], "lt") == 0)
		return bench_lt(txns, quantum);
	if (strcmp(argv[1], "switch") == 0)
		return bench_switch(switches);
	return usage();
}
