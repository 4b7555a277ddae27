/*
 * bench/kernel/pingpong_systemc.cpp - the kernel ping-pong benchmark on Accellera SystemC 2.3.4.
 *
 * The reference point for tlm/kernel (anchors §2.1): N processes in N/2 pairs (2k, 2k+1);
 * each activation counts and re-arms its partner (1 + id % 4) ns ahead, so N/2 events are
 * pending and each is 1..4 ns ahead, the cycle-level pattern a memory hierarchy produces.
 * Variants: SC_METHOD statically sensitive to its own sc_event (notify(delay) on the
 * partner's), and SC_THREAD looping on wait(ev) + partner.notify(delay).
 *
 *   pingpong_systemc --variant method|thread --procs N --events E
 *
 * runs exactly E activations and prints one line starting with "systemc " for the runner
 * (bench/kernel/run.sh). Only the sc_start() that runs the activations is timed: elaboration,
 * thread creation and the initialisation phase happen in an earlier sc_start(SC_ZERO_TIME).
 * Set SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 to drop the banner.
 */
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace sc_core;

namespace
{

struct options {
	bool thread = false;
	unsigned procs = 1024;
	unsigned long long events = 5000000;
};

/* Small enough that 16384 threads fit in memory; the thread body is two calls deep. */
const std::size_t thread_stack = 16 * 1024;

class pingpong : public sc_module
{
      public:
	pingpong(sc_module_name name, const options &o)
	    : sc_module(name), n_(o.procs), limit_(o.events), ev_(new sc_event[o.procs])
	{
		delay_.reserve(n_);
		for (unsigned i = 0; i < n_; i++)
			delay_.emplace_back(1 + i % 4, SC_NS);
		for (unsigned i = 0; i < n_; i++) {
			sc_spawn_options opt;
			std::string pname = "p" + std::to_string(i);

			if (o.thread) {
				opt.set_stack_size(thread_stack);
				sc_spawn(sc_bind(&pingpong::thread_proc, this, i), pname.c_str(),
					 &opt);
			} else {
				opt.spawn_method();
				opt.set_sensitivity(&ev_[i]);
				opt.dont_initialize();
				sc_spawn(sc_bind(&pingpong::method_proc, this, i), pname.c_str(),
					 &opt);
			}
		}
	}

	unsigned long long activations() const
	{
		return count_;
	}

      private:
	/* One notification per pair at 1 ns starts the ball; after that each activation passes
	 * it on, so the number of pending events stays N/2. */
	void start_of_simulation() override
	{
		for (unsigned i = 0; i < n_; i += 2)
			ev_[i].notify(1, SC_NS);
	}

	/* Returns false once E activations have run: later activations in the same delta cycle
	 * (sc_stop lets it finish) must not count. */
	bool activate(unsigned id)
	{
		if (count_ >= limit_)
			return false;
		if (++count_ == limit_) {
			sc_stop();
			return false;
		}
		ev_[id ^ 1].notify(delay_[id]);
		return true;
	}

	void method_proc(unsigned id)
	{
		activate(id);
	}

	void thread_proc(unsigned id)
	{
		for (;;) {
			wait(ev_[id]);
			if (!activate(id))
				return;
		}
	}

	unsigned n_;
	unsigned long long limit_;
	unsigned long long count_ = 0;
	std::unique_ptr<sc_event[]> ev_; /* sc_event is neither copyable nor movable */
	std::vector<sc_time> delay_;	 /* per process, so activations build no sc_time */
};

void usage(const char *argv0)
{
	std::fprintf(stderr,
		     "usage: %s --variant method|thread --procs N --events E\n"
		     "  N: even number of processes >= 2; E: activations to run (e.g. 5e6)\n",
		     argv0);
}

/* Returns 0 or 2 (usage error). */
int parse(int argc, char *argv[], options *o)
{
	for (int i = 1; i < argc; i++) {
		const char *key = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : nullptr;
		char *end = nullptr;

		if (!val)
			return 2;
		i++;
		if (!std::strcmp(key, "--variant")) {
			if (!std::strcmp(val, "method"))
				o->thread = false;
			else if (!std::strcmp(val, "thread"))
				o->thread = true;
			else
				return 2;
		} else if (!std::strcmp(key, "--procs")) {
			unsigned long n = std::strtoul(val, &end, 10);

			if (*end || n < 2 || n % 2 || n > (1ul << 24))
				return 2;
			o->procs = static_cast<unsigned>(n);
		} else if (!std::strcmp(key, "--events")) {
			double e = std::strtod(val, &end); /* accepts 5e6 */

			if (*end || !(e >= 1 && e <= 1e15) ||
			    e != static_cast<double>(static_cast<unsigned long long>(e)))
				return 2;
			o->events = static_cast<unsigned long long>(e);
		} else {
			return 2;
		}
	}
	return 0;
}

} // namespace

int sc_main(int argc, char *argv[])
{
	options o;

	if (parse(argc, argv, &o)) {
		usage(argv[0]);
		return 2;
	}
	/* "Simulation stopped by user" and friends would break the one-line output. */
	sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);

	pingpong top("top", o);
	sc_start(SC_ZERO_TIME); /* end of elaboration, thread stacks, initialisation phase */

	auto t0 = std::chrono::steady_clock::now();
	sc_start();
	auto t1 = std::chrono::steady_clock::now();
	double secs = std::chrono::duration<double>(t1 - t0).count();

	if (top.activations() != o.events) {
		std::fprintf(stderr, "pingpong_systemc: ran %llu activations, expected %llu\n",
			     top.activations(), o.events);
		return 1;
	}
	std::printf("systemc variant=%s procs=%u activations=%llu seconds=%.3f "
		    "mevents_per_s=%.2f sim_ns=%.0f\n",
		    o.thread ? "thread" : "method", o.procs, top.activations(), secs,
		    secs > 0 ? o.events / secs / 1e6 : 0.0, sc_time_stamp().to_seconds() * 1e9);
	return 0;
}
