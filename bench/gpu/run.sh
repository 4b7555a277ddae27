#!/usr/bin/env bash
# Detailed-mode speed of the GPU model: simulated warp memory instructions per host second on
# the 16-SM G-TSC configuration, for the streaming (bandwidth) and pointer-chase (latency)
# microbenchmarks under both protocols of issue 3, side by side in one run. Also prints
# simulated cycles per host second and kernel events per op, so a slow case shows where it is.
# Target (docs/performance.md): >= 1 M warp memory ops/s.
# Usage: bench/gpu/run.sh BUILD_DIR [SIZE]   (SIZE: tiny, small or default; default: default)
set -euo pipefail
build=${1:?usage: bench/gpu/run.sh BUILD_DIR [SIZE]}
size=${2:-default}
src=$(cd "$(dirname "$0")/../.." && pwd)
cfg="$src/configs/gtsc-16sm.cfg"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "config: configs/gtsc-16sm.cfg, size $size, mode detailed"
printf "%-11s %-12s %12s %14s %9s %12s %12s %10s\n" workload protocol "warp mem ops" "sim cycles" \
	"host s" "ops/s" "cycles/s" "events/op"
for w in stream chase_l1 chase_l2 chase_dram; do
	for p in none noncoherent; do
		"$build/cohscope" run -c "$cfg" -w "$w" --set coherence.protocol="$p" \
			--set workload.size="$size" -q -o "$tmp/r.json" >/dev/null
		python3 - "$tmp/r.json" "$w" "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, k, h = d["result"], d["kernel"], d["host"]
ops, cyc, s = r["mem_insts"], r["cycles"], h["wall_s"]
ev = k.get("activations", 0)
print("%-11s %-12s %12.0f %14d %9.2f %12.0f %12.0f %10.1f" % (
    sys.argv[2], sys.argv[3], ops, cyc, s, ops / s, cyc / s, ev / ops if ops else 0))
PY
	done
done
