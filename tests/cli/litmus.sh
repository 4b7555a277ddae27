#!/usr/bin/env bash
# tests/cli/litmus.sh BINARY SOURCE_DIR
#
# `cohscope litmus`: our own litmus tests pass under the coherent baseline with SC and RC cores;
# every upstream test parses and passes its expected verdicts under every registered protocol
# (read from `cohscope list protocols`, so new protocols are picked up) with SC and RC cores;
# the JSON report is complete and deterministic; a forbidden outcome fails with exit 1; weak
# outcomes are really produced (store buffering under RC, stale data under `noncoherent`); bad
# input is one line with the documented exit status and no report file.
. "$(dirname "$0")/lib.bash" "$@"

G=$SRC/configs/gtsc-16sm.cfg
X=$SRC/configs/gtx480-15sm.cfg
L=$SRC/tests/litmus
OWN=("$L"/*.litmus)
UP=("$L"/upstream/{c-lkmm,c11,opencl}/*.litmus) # GPU dialects; X86: litmus_x86.sh

expect() { # expect STATUS GREP-PATTERN NAME -- ARGS...
	local want=$1 pat=$2 name=$3 rc
	shift 4
	# a hang guard, not a speed check: sanitizer builds on a loaded host take minutes
	timeout 600 "$BIN" "$@" >"$name.out" 2>"$name.err"
	rc=$?
	[ "$rc" -eq "$want" ] || { fail "$name: status $rc, want $want"; sed 's/^/  /' "$name.err"; }
	if [ -n "$pat" ] && ! grep -q -- "$pat" "$name.out" "$name.err"; then
		fail "$name: no '$pat' in the output"
	fi
	if [ "$want" -ne 0 ] && [ "$(wc -l <"$name.err")" -ne 1 ]; then
		fail "$name: want exactly one error line"
		sed 's/^/  /' "$name.err"
	fi
	if [ "$want" -eq 0 ] && [ -s "$name.err" ]; then
		fail "$name: unexpected stderr"
		sed 's/^/  /' "$name.err"
	fi
}

# seen FILE.json TEST: prints how often TEST's condition was observed
seen() {
	python3 -c 'import json, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    if t["name"] == sys.argv[2]:
        print(t["condition_observed"])' "$1" "$2"
}

[ ${#OWN[@]} -ge 26 ] || fail "only ${#OWN[@]} litmus files of our own"
[ ${#UP[@]} -ge 35 ] || fail "only ${#UP[@]} upstream litmus files"

# (a) our own tests: every verdict holds under the coherent baseline, SC and RC, both GPUs
for cfg in "$G" "$X"; do
	c=$(basename "$cfg" .cfg)
	for m in sc rc; do
		expect 0 "${#OWN[@]} tests: ${#OWN[@]} passed" "own-$c-$m" -- litmus "${OWN[@]}" -c "$cfg" \
			--set coherence.protocol=none --set core.consistency=$m --iterations 300
	done
done
grep -q "^MP  *sc  *none .*Forbid *PASS" own-gtsc-16sm-sc.out || fail "own sc: no MP row"
grep -q "^SB  *rc  *none .*Allow *PASS" own-gtsc-16sm-rc.out || fail "own rc: no SB row"
grep -q "<- condition" own-gtsc-16sm-rc.out || fail "own rc: no histogram marks the condition"

# (b) upstream and own tests under every registered protocol x {sc, rc}, upstream verdicts
# from the expectations file. XFAIL lists "protocol:model" pairs known to break their model (a
# FAIL is then expected: status 1); keep it empty unless a protocol's page documents the gap.
XFAIL=()
"$BIN" list protocols >protocols.out || fail "list protocols"
mapfile -t PROTOS < <(awk 'NR > 1 && NF { print $1 }' protocols.out)
[ ${#PROTOS[@]} -ge 2 ] || fail "list protocols: $(cat protocols.out)"
ALL=$((${#OWN[@]} + ${#UP[@]}))
for p in "${PROTOS[@]}"; do
	for m in sc rc; do
		want=0
		[[ " ${XFAIL[*]} " == *" $p:$m "* ]] && want=1
		expect $want "$ALL tests: " "all-$p-$m" -- litmus "${OWN[@]}" "${UP[@]}" \
			-c "$G" --expect "$L/expected.tsv" --set coherence.protocol="$p" \
			--set core.consistency=$m --iterations 2000 --json "all-$p-$m.json"
		grep "FAIL (" "all-$p-$m.out" | sed "s/^/  $([ $want = 1 ] && echo XFAIL) $p $m: /"
	done
done
expect 0 "${#UP[@]} tests: ${#UP[@]} passed" up-none-rc -- litmus "${UP[@]}" -c "$G" \
	--expect "$L/expected.tsv" --set coherence.protocol=none --set core.consistency=rc \
	--iterations 300 --json up-none-rc.json

# (c) the JSON report: complete, consistent with itself
python3 - up-none-rc.json "${#UP[@]}" <<'PY' || fail "JSON report incomplete or inconsistent"
import json, sys
j = json.load(open(sys.argv[1]))
tests = j["tests"]
assert len(tests) == int(sys.argv[2]), len(tests)
assert j["summary"] == {"tests": len(tests), "passed": len(tests), "failed": 0}, j["summary"]
assert j["cohscope"]["iterations"] == 300
for t in tests:
    for k in ("name", "file", "model", "protocol", "iterations", "outcomes",
              "condition_observed", "expected", "pass"):
        assert k in t, (t.get("name"), k)
    assert t["model"] == "rc" and t["protocol"] == "none", t["name"]
    assert t["expected"] in ("Allow", "Forbid"), t["name"]
    assert sum(o["count"] for o in t["outcomes"]) == t["iterations"] == 300, t["name"]
    assert sum(o["count"] for o in t["outcomes"] if o["condition"]) == t["condition_observed"]
    texts = [o["outcome"] for o in t["outcomes"]]
    assert len(set(texts)) == len(texts) and all(s.endswith(";") for s in texts), t["name"]
    assert t["pass"] is True
PY
python3 - all-noncoherent-sc.json <<'PY' || fail "noncoherent JSON: model is not none"
import json, sys
assert all(t["model"] == "none" and t["expected"] == "-" for t in json.load(open(sys.argv[1]))["tests"])
PY
"$BIN" litmus "$L/SB.litmus" -c "$G" --iterations 20 --json - >stdout.json 2>stdout.err ||
	fail "--json -: status $?"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' stdout.json ||
	fail "--json - is not JSON alone"

# (d) bad input: one line, documented status, no report
printf 'C bad\n\n{}\n\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1)\n\tfoo bar;\n}\n\nexists (x=1)\n' >bad.litmus
expect 3 "bad.litmus:[0-9]" syntax -- litmus "$L/SB.litmus" bad.litmus -c "$G" --json syntax.json
expect 3 "nosuch.litmus" missing -- litmus nosuch.litmus -c "$G" --json missing.json
expect 2 "--frobnicate" badopt -- litmus "$L/SB.litmus" -c "$G" --frobnicate --json badopt.json
expect 2 "iterations" zero-iter -- litmus "$L/SB.litmus" -c "$G" --iterations 0
expect 2 "placement" badplace -- litmus "$L/SB.litmus" -c "$G" --placement everywhere
expect 2 "atomics" badatomics -- litmus "$L/SB.litmus" -c "$G" --atomics sometimes
expect 2 "CONFIG" noconfig -- litmus "$L/SB.litmus"
expect 2 "no litmus file" nofile -- litmus -c "$G"
printf 'upstream/c11/b.litmus\tForbid\n' >bad.tsv
expect 3 "bad.tsv:1" badexpect -- litmus "$L/SB.litmus" -c "$G" --expect bad.tsv --json e.json
expect 3 "did you mean 'noncoherent'" badproto -- litmus "$L/SB.litmus" -c "$G" \
	--set coherence.protocol=noncoherant --json p.json
expect 3 "litmus" selfcheck-cfg -- litmus "$L/SB.litmus" -c "$DEF" --json s.json
for f in syntax.json missing.json badopt.json e.json p.json s.json; do
	[ ! -e "$f" ] || fail "$f written on failure"
done
ls ./*.tmp.* >/dev/null 2>&1 && fail "temporary report files left behind"

# a forbidden outcome seen: exit 1 with one line, the table and the report still written
sed 's/^Cohscope.rc=Allow$/Cohscope.rc=Forbid/' "$L/SB.litmus" >SB-claimed.litmus
expect 1 "saw an outcome their model forbids" forbidden -- litmus SB-claimed.litmus -c "$G" \
	--set core.consistency=rc --iterations 500 --json forbidden.json
grep -q "^SB .*FAIL (forbidden, seen" forbidden.out || fail "forbidden: no FAIL row"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["tests"][0]; sys.exit(t["pass"] is not False)' \
	forbidden.json || fail "forbidden: the report does not say pass=false"

# (e) determinism: same seed, same report, byte for byte
for i in 1 2; do
	"$BIN" litmus "${OWN[@]}" -c "$G" --seed 7 --iterations 200 -q --json "det$i.json" ||
		fail "determinism run $i"
done
cmp -s det1.json det2.json || fail "two runs with the same seed differ"

# (f) a weak outcome is produced: store buffering under RC on the coherent baseline
"$BIN" litmus "$L/SB.litmus" "$L/SB+fences.litmus" -c "$G" --set coherence.protocol=none \
	--set core.consistency=rc --iterations 500 -q --json sb.json || fail "SB under rc"
n=$(seen sb.json SB)
[ "${n:-0}" -gt 0 ] || fail "SB: the weak outcome 0:r0=0 /\\ 1:r0=0 never seen under rc in 500 runs"
[ "$(seen sb.json SB+fences)" = 0 ] || fail "SB+fences: weak outcome seen under rc"

# (g) stale data under noncoherent with warm-up; the model is none, so the run still passes
for m in sc rc; do
	expect 0 "MP  *none  *noncoherent .* -  *PASS (seen [1-9]" "nc-$m" -- litmus "$L/MP.litmus" \
		-c "$G" --set coherence.protocol=noncoherent --set core.consistency=$m \
		--iterations 1000
done
# without warm-up an SC core has nothing stale to read
expect 0 "MP  *none  *noncoherent .* PASS (not seen)" nc-cold -- litmus "$L/MP.litmus" -c "$G" \
	--set coherence.protocol=noncoherent --set core.consistency=sc --iterations 1000 --warmup 0

exit $((fails > 0))
