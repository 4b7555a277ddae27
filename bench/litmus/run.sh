#!/usr/bin/env bash
# The litmus verdicts of every protocol `cohscope list protocols` prints, times
# core.consistency sc and rc, on configs/gtsc-16sm.cfg: our tests (tests/litmus/*.litmus) and the
# upstream ones (with tests/litmus/expected.tsv), more iterations than the CI test. Prints each
# verdict table, then one summary line per protocol x model (tests, failed, wall seconds, the
# tests whose condition was seen). Figures only: the exit status is 0 whatever the verdicts.
# Usage: bench/litmus/run.sh BUILD_DIR [ITERATIONS] [--set KEY=VALUE ...]   (default 5000)
set -euo pipefail
build=${1:?usage: bench/litmus/run.sh BUILD_DIR [ITERATIONS] [--set KEY=VALUE ...]}
shift
iters=5000
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
	iters=$1
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
echo "config: configs/gtsc-16sm.cfg, $iters iterations per test $*"
summary=()
for p in $protos; do
	for m in sc rc; do
		echo
		echo "==== protocol $p, core.consistency $m"
		t0=$(date +%s.%N)
		set +e
		"$bin" litmus "$src"/tests/litmus/*.litmus "$src"/tests/litmus/upstream/*/*.litmus \
			-c "$cfg" --expect "$src/tests/litmus/expected.tsv" --iterations "$iters" \
			--set coherence.protocol="$p" --set core.consistency="$m" "$@" \
			--json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		set -e
		t1=$(date +%s.%N)
		sed -n '1,/ tests: /p' "$tmp/out"
		cat "$tmp/err"
		if [ -s "$tmp/r.json" ]; then
			line=$(python3 - "$tmp/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["summary"]
seen = [t["name"] + ("(FAIL)" if not t["pass"] else "") for t in j["tests"]
        if t["condition_observed"]]
print(f'{s["tests"]:4d} tests {s["failed"]:3d} failed  seen: {" ".join(seen) or "-"}')
PY
)
		else
			line="no report (status $rc)"
		fi
		summary+=("$(printf '%-12s %-3s %7.1f s  %s' "$p" "$m" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$line")")
		rm -f "$tmp/r.json"
	done
done
echo
echo "==== summary (protocol, model, wall time, verdicts, tests whose condition was seen)"
printf '%s\n' "${summary[@]}"
