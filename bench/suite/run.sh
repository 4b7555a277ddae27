#!/usr/bin/env bash
# The G-TSC benchmark suite (12 benchmarks, thesis Table 3.4) at one size under one or more
# protocol x model pairs in detailed mode, on configs/gtsc-16sm.cfg: per benchmark simulated
# cycles beside the seed's Table 3.2 (BL and TC columns of the G-TSC simulator, millions of
# cycles), warp memory instructions, host seconds and warp memory ops per host second, then the
# suite's total host time per pair: the baseline the hybrid mode (issue 6) must beat.
# SUITE=NAME runs another suite of `cohscope suite` the same way (rodinia, parboil, ispass, doe,
# tc, all; Table 3.2's columns then stay empty but for the G-TSC suite's members).
# Prints figures only; no thresholds (bench/README.md).
# Usage: [SUITE=NAME] bench/suite/run.sh BUILD_DIR [SIZE] [PROTOCOL:MODEL ...]
#   (default: suite gtsc, size default, pairs none:rc gtsc:rc)
set -euo pipefail
build=${1:?usage: bench/suite/run.sh BUILD_DIR [SIZE] [PROTOCOL:MODEL ...]}
shift
size=${1:-default}
[ $# -gt 0 ] && shift
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(none:rc gtsc:rc)
src=$(cd "$(dirname "$0")/../.." && pwd)
bin="$build/cohscope"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
suite=${SUITE:-gtsc}
echo "config: configs/gtsc-16sm.cfg, suite $suite, size $size, detailed mode, seed 1"
for pair in "${pairs[@]}"; do
	p=${pair%%:*} m=${pair##*:}
	t0=$(date +%s.%N)
	"$bin" suite "$suite" -c "$src/configs/gtsc-16sm.cfg" --set workload.size="$size" \
		--set coherence.protocol="$p" --set core.consistency="$m" -q \
		-o "$tmp/$p-$m.json" || true
	t1=$(date +%s.%N)
	python3 - "$tmp/$p-$m.json" "$p" "$m" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, sys
# thesis Table 3.2, millions of cycles: BL and TC on the G-TSC simulator
t32 = {"bh": (0.55, 0.84), "cc": (1.47, 1.77), "dlb": (1.63, 1.63), "vpr": (0.85, 0.90),
       "stn": (2.00, 1.74), "bfs": (0.79, 2.32), "ccp": (13.50, 13.50), "ge": (2.22, 2.49),
       "hs": (0.22, 0.23), "km": (28.74, 30.78), "bp": (0.84, 0.69), "sgm": (6.08, 6.14)}
rows = json.load(open(sys.argv[1]))
p, m, wall = sys.argv[2], sys.argv[3], float(sys.argv[4])
print(f"\n{p} {m}:")
print(f"  {'bench':13} {'Mcycles':>9} {'T3.2 BL':>8} {'T3.2 TC':>8} {'mem insts':>11} "
      f"{'host s':>8} {'ops/s':>10}  check")
host = 0
for r in rows:
    b = r["benchmark"]
    secs = r["host_seconds"]
    host += secs
    mi = r.get("mem_insts", 0)
    bl, tc = (f"{x:8.2f}" for x in t32[b]) if b in t32 else ("       -", "       -")
    print(f"  {b:13} {r.get('cycles', 0) / 1e6:9.3f} {bl} {tc} "
          f"{mi:11.0f} {secs:8.2f} {mi / secs if secs else 0:10.3g}  "
          f"{'verified' if r['verified'] else r.get('error', 'FAILED')}")
print(f"  suite: {len(rows)} benchmarks, {sum(not r['verified'] for r in rows)} failed, "
      f"host {host:.1f} s in the runs, {wall:.1f} s wall")
PY
done
