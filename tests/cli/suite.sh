#!/usr/bin/env bash
# tests/cli/suite.sh BINARY SOURCE_DIR
#
# The G-TSC benchmark suite (cohscope suite, configs/gtsc-16sm.cfg):
# - `list workloads` shows the twelve of thesis Table 3.4, six in each set;
# - tiny: every benchmark verifies under none (BL), G-TSC RC and SC, TC-Weak RC and TC-Strong
#   SC (the papers' TC-RC and TC-SC); under noncoherent (W/L1) set 2 verifies and BFS, STN and
#   DLB fail visibly (exit 1, their row names a livelock or a wrong result);
# - small: every benchmark verifies under none and G-TSC RC, set 2 under noncoherent;
# - CCP, HS and KM are compute-bound: their cycles move by less than 10% across the coherent
#   protocols with L1s and both models, as the papers report, while GE (memory-bound) moves by
#   more;
# - the same run twice gives the same JSON (host times aside); -w names only suite benchmarks;
# - the table's +-95% column is the JSON's cycles_half in hybrid mode and "-" in detailed mode.
. "$(dirname "$0")/lib.bash" "$@"

G=$SRC/configs/gtsc-16sm.cfg
JOBS=${SUITE_JOBS:-2}
SET1="bh cc dlb vpr stn bfs"
SET2="ge hs km bp sgm ccp"

"$BIN" list workloads >list.out || fail "list workloads: status $?"
for w in $SET1; do grep -q "^  $w .*suite set 1\]" list.out || fail "list: $w not in set 1"; done
for w in $SET2; do grep -q "^  $w .*suite set 2\]" list.out || fail "list: $w not in set 2"; done
[ "$(grep -c "suite set" list.out)" -eq 12 ] || fail "list: not twelve suite benchmarks"

# one NAME ARGS...: cohscope suite in the background into NAME.json/.out/.err/.rc
one() {
	local name=$1
	shift
	(
		timeout 600 "$BIN" suite -c "$G" -o "$name.json" "$@" >"$name.out" 2>"$name.err"
		echo $? >"$name.rc"
	) &
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
}

tiny=(--set workload.size=tiny)
small=(--set workload.size=small)
one t-none "${tiny[@]}" --set coherence.protocol=none
one t-gtsc-rc "${tiny[@]}" --set coherence.protocol=gtsc
one t-gtsc-sc "${tiny[@]}" --set coherence.protocol=gtsc --set core.consistency=sc
one t-tcw-rc "${tiny[@]}" --set coherence.protocol=tc-weak
one t-tcs-sc "${tiny[@]}" --set coherence.protocol=tc-strong --set core.consistency=sc
one t-tcs-rc "${tiny[@]}" --set coherence.protocol=tc-strong -w ccp,hs,km
one t-nc "${tiny[@]}" --set coherence.protocol=noncoherent
one s-none "${small[@]}" --set coherence.protocol=none
one s-gtsc-rc "${small[@]}" --set coherence.protocol=gtsc
one s-nc2 "${small[@]}" --set coherence.protocol=noncoherent -w ge,hs,km,bp,sgm,ccp
one s-nc1 "${small[@]}" --set coherence.protocol=noncoherent -w bfs,stn,dlb
for m in "gtsc sc" "tc-weak rc" "tc-strong sc"; do
	set -- $m
	one "s-cb-$1-$2" "${small[@]}" --set coherence.protocol="$1" \
		--set core.consistency="$2" -w ccp,hs,km,ge
done
one det-a "${tiny[@]}" --set coherence.protocol=gtsc -w bfs,sgm
one det-b "${tiny[@]}" --set coherence.protocol=gtsc -w bfs,sgm
wait

# rows NAME: "bench verified|error" per row of the JSON array
rows() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["benchmark"], "ok" if r["verified"] else "FAIL", r.get("error", ""))' "$1.json"
}

for n in t-none t-gtsc-rc t-gtsc-sc t-tcw-rc t-tcs-sc t-tcs-rc s-none s-gtsc-rc s-nc2 \
	s-cb-gtsc-sc s-cb-tc-weak-rc s-cb-tc-strong-sc det-a; do
	[ "$(cat $n.rc)" = 0 ] || fail "$n: status $(cat $n.rc): $(cat $n.out $n.err)"
	[ -s $n.json ] || { fail "$n: no JSON"; continue; }
	rows $n | grep -v " ok" | while read -r line; do echo "FAIL $n: $line"; done
	rows $n | grep -q " FAIL" && fail "$n: a benchmark failed"
done
[ "$(rows t-none | wc -l)" -eq 12 ] || fail "t-none: not twelve rows"

# noncoherent: set 2 verifies, BFS, STN and DLB fail and say why (tiny and small)
for n in t-nc s-nc1; do
	[ "$(cat $n.rc)" = 1 ] || fail "$n: status $(cat $n.rc), want 1: $(cat $n.err)"
	[ -s $n.json ] || { fail "$n: no JSON"; continue; }
	for w in bfs stn dlb; do
		line=$(rows $n | grep "^$w ")
		grep -q "^$w FAIL FAILED: $w: " <<<"$line" ||
			fail "$n: $w did not fail visibly under noncoherent: $line"
	done
done
for w in $SET2; do
	rows t-nc | grep -q "^$w ok" || fail "t-nc: set-2 $w: $(rows t-nc | grep "^$w ")"
done

# compute-bound: ccp, hs, km within 10% across the protocols with L1s and both models; ge not
python3 - s-gtsc-rc.json s-cb-gtsc-sc.json s-cb-tc-weak-rc.json s-cb-tc-strong-sc.json <<'PY' ||
import json, sys
cyc = {}
for p in sys.argv[1:]:
    for r in json.load(open(p)):
        cyc.setdefault(r["benchmark"], []).append(r["cycles"])
bad = 0
for b in ("ccp", "hs", "km", "ge"):
    c = cyc[b]
    spread = max(c) / min(c) - 1 if len(c) == 4 else -1
    if spread < 0 or (b != "ge") != (spread < 0.10):
        print(b, c, spread)
        bad = 1
sys.exit(bad)
PY
	fail "compute-bound benchmarks moved by 10% or more across protocols, or ge did not"

# determinism: same JSON but host seconds
python3 - det-a.json det-b.json <<'PY' || fail "the same suite run twice differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in a + b:
    r.pop("host_seconds")
    r.pop("host_faces", None)
sys.exit(a != b)
PY

# the table's +-95% column: the JSON's cycles_half in hybrid mode, "-" in detailed mode
"$BIN" suite -c "$SRC/configs/default.cfg" "${tiny[@]}" -w hs,bfs,sgm -o hy.json >hy.out 2>hy.err ||
	fail "hybrid suite: status $?: $(cat hy.err)"
for n in hy det-a; do
	python3 - $n.json $n.out <<'PY' || fail "$n: the table's +-95% column differs from the JSON's cycles_half"
import json, sys
rows = {r["benchmark"]: r for r in json.load(open(sys.argv[1]))}
lines = open(sys.argv[2]).read().splitlines()
assert lines[0].split()[4] == "+-95%", lines[0]
seen = 0
for line in lines[1:]:
    f = line.split()
    if f[0] not in rows:
        continue
    r, seen = rows[f[0]], seen + 1
    assert f[1] == r["suite"], (line, r["suite"])  # the source suite: tc, rodinia, ...
    assert int(f[3]) == r["cycles"], (line, r["cycles"])
    if r["mode"] == "detailed":
        assert f[4] == "-", line
    else:
        assert r["mode"] == "hybrid" and int(f[4]) == round(r["cycles_half"]), (line, r["cycles_half"])
assert seen == len(rows), (seen, len(rows))
PY
done
python3 -c "
import json, sys
r = json.load(open('hy.json'))
sys.exit(not any(x['cycles_half'] > 0 for x in r))" || fail "hybrid suite: no benchmark has a half-width above 0"

# -w: only suite benchmarks
"$BIN" suite -c "$G" -w stream -q 2>err
[ $? -eq 3 ] && grep -q "'stream' is not a benchmark of the gtsc suite" err || fail "-w stream: $(cat err)"
"$BIN" suite -c "$G" -w bfs,,sgm -q 2>err
[ $? -eq 2 ] || fail "-w bfs,,sgm: not a usage error: $(cat err)"
"$BIN" suite -q 2>err
[ $? -eq 2 ] || fail "suite without -c: not a usage error"

exit $((fails > 0))
