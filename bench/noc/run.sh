#!/bin/sh
# bench/noc/run.sh BUILD_DIR [quick] - the generic network (tlm/noc) under synthetic traffic:
# zero-load latency and saturation throughput per pattern (SM->bank, bank->SM, uniform random,
# all-to-all) on a 5x5 XY mesh and a crossbar, and the CPU-GPU link, each beside its analytic
# expectation (the zero-load formula; the channel-load bound). Output recorded in
# docs/validation/noc.md. BookSim 2 is not run here (not available offline).
set -eu
BUILD=${1:-build}
NB=$BUILD/bench/noc_bench
[ -x "$NB" ] || { echo "run.sh: $NB not built (cmake --build $BUILD --target noc_bench)" >&2; exit 1; }
"$NB" ${2:-}
