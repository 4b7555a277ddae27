#!/usr/bin/env bash
# Soak of the coherence machinery: the random coherence tester (workload rtest) with the
# coherence checker on (gpu.check=true), for many seeds, under every coherent protocol that
# `cohscope list protocols` prints, times core.consistency sc and rc, on configs/gtsc-16sm.cfg
# (or $CONFIG).
# Per pair: runs, warp ops, memory ops (ops less fences), loads the checker checked, its
# violations, host seconds. A pair fails when a run exits non-zero (rtest's own checks) or the
# checker counts a violation; the script then exits 1.
# Protocols the list describes as without coherence (noncoherent, W/L1) are not soaked: the
# checker is meant to flag them. One of them runs once at size small as a control, printed
# (and never failing the soak), showing that the checks do catch a protocol that is not coherent.
# Not part of CI (tests/cli/rtest.sh is the short version). Prints figures; no time thresholds.
#
# Usage: bench/soak/run.sh BUILD_DIR [--set KEY=VALUE ...]
# Environment: SEEDS (default "1 2 3 4 5 6": 6 x 2*10^6 ops = 1.2*10^7 ops, 1.14*10^7 of them
# memory ops, per pair at size default), SIZE (default `default`), PAIRS (default every coherent
# protocol x sc rc, as "PROTO:MODEL ..."), CONTROL (default true), JOBS (runs at once, default 1),
# CONFIG (default configs/gtsc-16sm.cfg).
set -euo pipefail
build=${1:?usage: bench/soak/run.sh BUILD_DIR [--set KEY=VALUE ...]}
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
cfg=${CONFIG:-$src/configs/gtsc-16sm.cfg}
bin=$build/cohscope
seeds=${SEEDS:-1 2 3 4 5 6}
size=${SIZE:-default}
jobs=${JOBS:-1}
[ -x "$bin" ] || {
	echo "soak: $bin: no cohscope binary (build first: make build)" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "  NAME  LABEL  HELP" lines of the protocols section; the same test of "not coherent" as
# tests/cli/rtest.sh
noncoh_re='without coherence|non-?coherent|not coherent|incoherent'
"$bin" list protocols | awk '/^protocols/ { p = 1; next } /^[^ ]/ { p = 0 } p && /^  [^ ]/' \
	>"$tmp/protos"
coherent=()
control=
while read -r p rest; do
	if grep -Eiq -- "$noncoh_re" <<<"$rest"; then
		control=${control:-$p}
	else
		coherent+=("$p")
	fi
done <"$tmp/protos"
if [ -n "${PAIRS:-}" ]; then
	read -ra pairs <<<"$PAIRS"
else
	pairs=()
	for p in "${coherent[@]}"; do
		pairs+=("$p:sc" "$p:rc")
	done
fi

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "config: ${cfg#"$src"/}, workload rtest, size $size, gpu.check=true, seeds $seeds, $jobs at a time $*"

# one NAME PROTO MODEL SEED SIZE: a run into NAME.json/.err/.rc/.t (wall seconds)
one() {
	local name=$1 p=$2 m=$3 s=$4 sz=$5
	(
		t0=$(date +%s.%N)
		rc=0
		"$bin" run -c "$cfg" -w rtest --set coherence.protocol="$p" --set core.consistency="$m" \
			--set workload.size="$sz" --set sim.seed="$s" --set gpu.check=true "${extra[@]}" \
			-q -o "$tmp/$name.json" >/dev/null 2>"$tmp/$name.err" || rc=$?
		t1=$(date +%s.%N)
		echo "$rc" >"$tmp/$name.rc"
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >"$tmp/$name.t"
	) &
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
}
extra=("$@")

t_all=$(date +%s)
for pm in "${pairs[@]}"; do
	for s in $seeds; do
		one "${pm/:/-}-$s" "${pm%%:*}" "${pm##*:}" "$s" "$size"
	done
done
[ -n "$control" ] && [ "${CONTROL:-true}" = true ] && one control "$control" rc 1 small
wait

status=0
python3 - "$tmp" "$control" "${CONTROL:-true}" "$seeds" "${pairs[@]}" <<'PY' || status=$?
import json, os, re, sys
tmp, control, want_control, seeds = sys.argv[1:5]
pairs, seeds = sys.argv[5:], seeds.split()

def run(name):
    """status, wall s, ops, fences, checked loads, violations, first error or violation"""
    rc = int(open(os.path.join(tmp, name + ".rc")).read())
    wall = float(open(os.path.join(tmp, name + ".t")).read())
    err = open(os.path.join(tmp, name + ".err")).read().strip().splitlines()
    ops = fences = reads = viol = None
    first = err[0] if err else ""
    path = os.path.join(tmp, name + ".json")
    if rc == 0 and os.path.exists(path):
        j = json.load(open(path))
        st, r = j["stats"], j["result"]
        reads = st.get("gpu.coherence_check.reads")
        viol = st.get("gpu.coherence_check.violations")
        for n in r.get("notes", []):
            g = re.search(r"(\d+) ops: .* (\d+) fences", n)
            if g:
                ops, fences = int(g.group(1)), int(g.group(2))
        if viol:
            first = r.get("coherence_first", "")
    return rc, wall, ops, fences, reads, viol, first

hdr = "%-12s %-3s %5s %11s %11s %12s %10s %9s %8s" % (
    "protocol", "mdl", "runs", "warp ops", "mem ops", "loads chkd", "violations", "host s",
    "kops/s")
print(hdr)
bad = 0
for pm in pairs:
    p, m = pm.split(":")
    tot = dict(ops=0, mem=0, reads=0, viol=0, wall=0.0)
    fails = []
    for s in seeds:
        rc, wall, ops, fences, reads, viol, first = run("%s-%s-%s" % (p, m, s))
        tot["wall"] += wall
        if rc != 0 or ops is None or reads is None or viol is None:
            fails.append("seed %s: status %d: %s" % (s, rc, first[:160] or "no result"))
            continue
        tot["ops"] += ops
        tot["mem"] += ops - fences
        tot["reads"] += reads
        tot["viol"] += viol
        if viol:
            fails.append("seed %s: %d violations, first: %s" % (s, viol, first[:160]))
    ok = not fails and tot["reads"] > 0
    bad += not ok
    # a run that failed wrote no result: its violations are unknown
    vcol = str(tot["viol"]) + ("+?" if any("status" in f for f in fails) else "")
    print("%-12s %-3s %5d %11d %11d %12d %10s %9.1f %8.0f %s" % (
        p, m, len(seeds), tot["ops"], tot["mem"], tot["reads"], vcol, tot["wall"],
        tot["ops"] / tot["wall"] / 1e3 if tot["wall"] else 0, "ok" if ok else "FAIL"))
    for f in fails:
        print("    " + f)
if control and want_control == "true":
    rc, wall, ops, fences, reads, viol, first = run("control")
    if rc == 0:
        what = "passed (%s violations among %s loads): this seed did not expose it" % (viol, reads)
    else:
        what = "caught, status %d: %s" % (rc, first[:200])
    print("control: %s rc, size small, seed 1 (not coherent, not soaked): %s" % (control, what))
print("soak: %d pairs, %d failed" % (len(pairs), bad))
sys.exit(1 if bad else 0)
PY
echo "soak: total host time $(($(date +%s) - t_all)) s"
exit $status
