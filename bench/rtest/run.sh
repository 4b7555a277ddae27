#!/usr/bin/env bash
# Speed of the random coherence tester (workload rtest) under every protocol that
# `cohscope list protocols` prints, times core.consistency sc and rc, on configs/gtsc-16sm.cfg:
# warp ops per host second (wall clock around the whole run, host program and checks included)
# next to simulated cycles, side by side. The coherence checker is off unless CHECK=true.
# Prints figures only; no thresholds (bench/README.md).
# Usage: bench/rtest/run.sh BUILD_DIR [SIZE] [--set KEY=VALUE ...]   (SIZE: default by default)
set -euo pipefail
build=${1:?usage: bench/rtest/run.sh BUILD_DIR [SIZE] [--set KEY=VALUE ...]}
shift
size=default
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
	size=$1
	shift
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
cfg="$src/configs/gtsc-16sm.cfg"
bin="$build/cohscope"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

protos=$("$bin" list protocols | awk '/^protocols/ { p = 1; next } /^[^ ]/ { p = 0 }
	p && /^  [^ ]/ { print $1 }')
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "config: configs/gtsc-16sm.cfg, workload rtest, size $size, gpu.check=${CHECK:-false} $*"
printf "%-14s %-4s %10s %12s %9s %11s %12s %6s %s\n" protocol model "warp ops" "sim cycles" \
	"wall s" "ops/s" "cycles/s" status "first line of the error"
for p in $protos; do
	for m in sc rc; do
		t0=$(date +%s.%N)
		set +e
		"$bin" run -c "$cfg" -w rtest --set coherence.protocol="$p" \
			--set core.consistency="$m" --set workload.size="$size" \
			--set gpu.check="${CHECK:-false}" "$@" -q -o "$tmp/r.json" \
			>/dev/null 2>"$tmp/err"
		rc=$?
		set -e
		t1=$(date +%s.%N)
		python3 - "$tmp/r.json" "$p" "$m" "$t0" "$t1" "$rc" "$tmp/err" <<'PY'
import json, re, sys
path, p, m, t0, t1, rc, err = sys.argv[1:]
wall = float(t1) - float(t0)
ops, cyc = 0, 0
if rc == "0":
    r = json.load(open(path))["result"]
    cyc = r["cycles"]
    for n in r["notes"]:
        g = re.search(r"(\d+) ops:", n)
        if g:
            ops = int(g.group(1))
msg = open(err).read().strip().splitlines()
print("%-14s %-4s %10d %12d %9.2f %11.0f %12.0f %6s %s" % (
    p, m, ops, cyc, wall, ops / wall if ops else 0, cyc / wall if cyc else 0, rc,
    msg[0][:100] if msg else ""))
PY
	done
done
