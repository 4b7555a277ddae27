#!/usr/bin/env bash
# tests/cli/litmus_x86.sh BINARY SOURCE_DIR
#
# `cohscope litmus` on X86 tests: every upstream X86 test (herdtools7 catalogue, verbatim in
# tests/litmus/upstream/x86/) parses and runs on the CPU cores of system cpu under x86-TSO with
# seeded jitter; no TSO-forbidden outcome is ever seen (EXPECTED.md's TSO column, from
# expected.tsv), and the outcomes TSO allows and SC forbids are really produced: SB and
# SB+rfi-pos (store buffering, with forwarding) at the default port latency, R when the port's
# latency is below the store commit delay; the same holds on the APU's MOESI CorePairs
# (configs/cpu-apu.cfg). The report is deterministic; an X86 test given a GPU
# configuration is one error line.
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/cpu-tso.cfg
L=$SRC/tests/litmus
X86=("$L"/upstream/x86/*.litmus)
[ ${#X86[@]} -ge 9 ] || fail "only ${#X86[@]} X86 litmus files"

# seen FILE.json TEST: how often TEST's condition was observed
seen() {
	python3 -c 'import json, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    if t["name"] == sys.argv[2]:
        print(t["condition_observed"])' "$1" "$2"
}

run() { # run NAME ARGS...: cohscope litmus, status 0 wanted, nothing on stderr
	local name=$1 rc
	shift
	timeout 300 "$BIN" litmus "$@" >"$name.out" 2>"$name.err"
	rc=$?
	[ "$rc" -eq 0 ] || { fail "$name: status $rc"; sed 's/^/  /' "$name.err" "$name.out" | head -20; }
	[ -s "$name.err" ] && { fail "$name: stderr"; sed 's/^/  /' "$name.err"; }
}

# (a) every X86 test, 3000 jittered iterations, two seeds: every verdict holds
for seed in 1 2; do
	run "x86-$seed" "${X86[@]}" -c "$C" --expect "$L/expected.tsv" --iterations 3000 \
		--seed $seed --json "x86-$seed.json"
	grep -q "${#X86[@]} tests: ${#X86[@]} passed, 0 failed" "x86-$seed.out" || fail "x86-$seed: not all passed"
	python3 - "x86-$seed.json" <<'PY' || fail "x86-$seed: report"
import json, sys
j = json.load(open(sys.argv[1]))
want = {"MP": "Forbid", "MP+mfences": "Forbid", "SB": "Allow", "SB+mfences": "Forbid",
        "SB+rfi-pos": "Allow", "LB": "Forbid", "R": "Allow", "2+2W": "Forbid", "iriw": "Forbid"}
for t in j["tests"]:
    assert t["model"] == "tso" and t["protocol"] == "idealmem", t["name"]
    assert t["expected"] == want[t["name"]], (t["name"], t["expected"])
    assert t["pass"] is True, t["name"]
    assert sum(o["count"] for o in t["outcomes"]) == 3000, t["name"]
    if t["expected"] == "Forbid":
        assert t["condition_observed"] == 0, t["name"]
PY
	for t in SB SB+rfi-pos; do
		n=$(seen "x86-$seed.json" "$t")
		[ "${n:-0}" -gt 0 ] || fail "x86-$seed: $t's TSO-allowed outcome never seen"
	done
	# the other outcomes of SB are there too: the jitter really moves the threads
	[ "$(grep -c '0:EAX=' "x86-$seed.out")" -ge 20 ] || fail "x86-$seed: too few outcomes"
done

# (b) R: P1's store must stay buffered past P0's two stores, each a port round trip; with a
# 1-cycle port the 4-cycle commit delay is long enough
run r-fast "$L/upstream/x86/R.litmus" -c "$C" --expect "$L/expected.tsv" --iterations 3000 \
	--set idealmem.latency=1 --json r-fast.json
n=$(seen r-fast.json R)
[ "${n:-0}" -gt 0 ] || fail "R: the TSO-allowed outcome never seen with idealmem.latency=1"

# (c) the same tests on seed 002's APU memory side (configs/cpu-apu.cfg: MOESI CorePairs, the
# stateless directory, DDR4): the caches keep TSO (no forbidden outcome), and the store
# buffer's outcomes still show
run apu "${X86[@]}" -c "$SRC/configs/cpu-apu.cfg" --expect "$L/expected.tsv" --iterations 1000 \
	--json apu.json
grep -q "${#X86[@]} tests: ${#X86[@]} passed, 0 failed" apu.out || fail "apu: not all passed"
python3 - apu.json <<'PY' || fail "apu: report"
import json, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    assert t["model"] == "tso" and t["protocol"] == "apu-corepair", t["name"]
    assert t["pass"] is True, t["name"]
    if t["expected"] == "Forbid":
        assert t["condition_observed"] == 0, t["name"]
PY
for t in SB SB+rfi-pos; do
	n=$(seen apu.json "$t")
	[ "${n:-0}" -gt 0 ] || fail "apu: $t's TSO-allowed outcome never seen"
done

# (d) same seed, same report
run det "${X86[@]}" -c "$C" --iterations 200 --seed 5 -q --json det1.json
run det "${X86[@]}" -c "$C" --iterations 200 --seed 5 -q --json det2.json
cmp -s det1.json det2.json || fail "same seed, different X86 reports"

# (e) an X86 test on a GPU configuration, a C test on the CPU: one line, status 3, no report
"$BIN" litmus "$L/upstream/x86/SB.litmus" -c "$SRC/configs/gtsc-16sm.cfg" --json g.json \
	>g.out 2>g.err
[ $? -eq 3 ] && [ "$(wc -l <g.err)" -eq 1 ] && grep -q "runs on CPU cores" g.err ||
	{ fail "X86 on a GPU config"; cat g.err; }
"$BIN" litmus "$L/SB.litmus" -c "$C" --json c.json >c.out 2>c.err
[ $? -eq 3 ] && [ "$(wc -l <c.err)" -eq 1 ] && grep -q "runs on the GPU" c.err ||
	{ fail "C on the CPU config"; cat c.err; }
[ ! -e g.json ] && [ ! -e c.json ] || fail "report written on failure"
# a bad X86 line: FILE:LINE
printf 'X86 bad\n{ }\n P0 ;\n MOV [x],$1 ;\n ADD [x],$1 ;\nexists (x=1)\n' >bad.litmus
"$BIN" litmus bad.litmus -c "$C" >b.out 2>b.err
[ $? -eq 3 ] && grep -q "^cohscope: bad.litmus:5: unsupported: X86 instruction ADD" b.err ||
	{ fail "bad X86 line"; cat b.err; }

exit $((fails > 0))
