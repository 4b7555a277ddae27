// bench/dram/ramulator_stream.cpp - drives Ramulator 2.0's memory system (built elsewhere, see
// bench/dram/run.sh) with a stream written by `dram_stream gen` and prints the same line as
// `dram_stream run`. Compiled by run.sh against $RAMULATOR2 (its src/ and libramulator.so);
// not part of the project's build, and no Ramulator code is kept here.
//
//   ramulator_stream CONFIG.yaml FILE
//
// One in-order source, as dram_stream's: every memory cycle it sends the requests whose arrival
// cycle has come until the controller refuses one (its read or write buffer is full), then ticks
// the memory system once. A read completes when its callback runs (the cycle its data has left
// the bus). Writes have no callback in Ramulator 2: the run ends at the last read's completion or
// the last acceptance, whichever is later (the writes still buffered then, at most 33, are not
// waited for), and bandwidth counts all requests over that time. Channel-local addresses are mapped to the same
// bank, row and column as tlm/dram's decode (bank = (L / 4096) % 16, row = L / 65536,
// column = L % 4096) for the ChRaBaRoCo mapper of a DDR4 device with 4 bank groups x 4 banks,
// 512 columns of 8 B, 64 B per access.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "base/base.h"
#include "base/config.h"
#include "base/request.h"
#include "frontend/frontend.h"
#include "memory_system/memory_system.h"

namespace {

struct Rq {
  uint64_t addr, at;
  bool write;
  uint64_t done;
};

constexpr uint64_t kRowBytes = 4096, kBanks = 16, kRows = 1u << 15;

uint64_t ram_addr(uint64_t local) {
  uint64_t r = local / kRowBytes, bank = r % kBanks, row = r / kBanks;
  uint64_t col = (local % kRowBytes) / 64;
  // ChRaBaRoCo on DDR4: channel | rank | bankgroup | bank | row | column | 6 offset bits
  return ((((bank / 4) * 4 + bank % 4) * kRows + row) * (kRowBytes / 64) + col) << 6;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc != 3) {
    std::cerr << "usage: ramulator_stream CONFIG.yaml FILE\n";
    return 2;
  }
  std::vector<Rq> rq;
  {
    FILE* f = std::fopen(argv[2], "r");
    char c;
    uint64_t a, t;
    if (!f) {
      std::cerr << "ramulator_stream: " << argv[2] << ": cannot open\n";
      return 1;
    }
    while (std::fscanf(f, " %c %" SCNx64 " %" SCNu64, &c, &a, &t) == 3)
      rq.push_back({ram_addr(a), t, c == 'W', 0});
    std::fclose(f);
  }
  YAML::Node config = Ramulator::Config::parse_config_file(argv[1], {});
  auto frontend = Ramulator::Factory::create_frontend(config);
  auto mem = Ramulator::Factory::create_memory_system(config);
  frontend->connect_memory_system(mem);
  mem->connect_frontend(frontend);

  size_t next = 0, reads = 0, reads_done = 0;
  uint64_t clk = 0, last_done = 0, last_accept = 0;
  for (auto& r : rq) reads += !r.write;
  while (next < rq.size() || reads_done < reads) {
    while (next < rq.size() && rq[next].at <= clk) {
      Rq* r = &rq[next];
      int type = r->write ? Ramulator::Request::Type::Write : Ramulator::Request::Type::Read;
      bool ok = mem->send({static_cast<Ramulator::Addr_t>(r->addr), type, 0,
                           [r, &reads_done, &clk, &last_done](Ramulator::Request&) {
                             r->done = clk + 1;
                             last_done = clk + 1;
                             reads_done++;
                           }});
      if (!ok) break;
      last_accept = clk;
      next++;
    }
    mem->tick();
    clk++;
  }
  uint64_t end = last_done > last_accept + 1 ? last_done : last_accept + 1;
  double lat = 0.0;
  for (auto& r : rq)
    if (!r.write) lat += static_cast<double>(r.done) - static_cast<double>(r.at);
  double tck_ns = mem->get_tCK();
  double bytes = 64.0 * static_cast<double>(rq.size());
  std::printf("ramulator requests=%zu cycles=%" PRIu64 " gbps=%.3f read_latency=%.2f\n", rq.size(),
              end, bytes / (static_cast<double>(end) * tck_ns), reads ? lat / reads : 0.0);
  std::fflush(stdout);
  frontend->finalize();
  mem->finalize();  // the stats, as YAML (run.sh reads the row hits from them)
  return 0;
}
