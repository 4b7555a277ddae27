#!/usr/bin/env bash
# tests/cli/trace.sh BINARY SOURCE_DIR
#
# Traces. Record (run --record) and replay (-w trace:FILE) give the same run: every statistic
# of the JSON result equal, for workloads that spin on flags (prodcons, barrier), use
# reductions (histo), the scratchpad (sgm) and random per-lane accesses (rtest), under a
# coherent and a non-coherent protocol. A bad trace file (truncated, a flipped byte, a bad
# magic, empty, a directory without kernelslist.g) is one error line naming the file, exit 3,
# and no output file. --record writes nothing when the run fails or the path is unwritable.
# The two real Accel-Sim traces (tests/traces/external) import and run, with the L2 accesses
# their coalesced accesses imply.
. "$(dirname "$0")/lib.bash" "$@"

G=$SRC/configs/gtsc-16sm.cfg
EXT=$SRC/tests/traces/external

# same_run A.json B.json: cycles, the result and every statistic equal
same_run() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra, rb = a["result"], b["result"]
keys = [k for k in ra if k not in ("workload", "notes")]
bad = [k for k in keys if ra[k] != rb.get(k)]
sa, sb = a["stats"], b["stats"]
bad += [k for k in sa if sa[k] != sb.get(k)]
if bad or ra["cycles"] <= 0:
    print("differ:", bad[:8], ra["cycles"], rb["cycles"])
    sys.exit(1)
PY
}

for spec in "stream gtsc" "prodcons gtsc" "barrier tc-weak" "histo noncoherent" \
	"sgm gtsc" "rtest tc-strong" "prodcons noncoherent"; do
	set -- $spec
	w=$1 p=$2
	args=(-c "$G" --set workload.size=tiny --set coherence.protocol="$p" -q)
	"$BIN" run "${args[@]}" -w "$w" --record "$w-$p.cst" -o "$w-$p-rec.json" 2>err
	rc=$?
	# prodcons under noncoherent may fail its check: then nothing may be recorded
	if [ $rc -ne 0 ]; then
		[ $rc -eq 1 ] || fail "record $w $p: status $rc: $(cat err)"
		[ ! -e "$w-$p.cst" ] || fail "record $w $p: a failed run left a trace file"
		continue
	fi
	[ -s "$w-$p.cst" ] || { fail "record $w $p: no trace written"; continue; }
	"$BIN" run "${args[@]}" -w "trace:$w-$p.cst" -o "$w-$p-rep.json" 2>err ||
		{ fail "replay $w $p: status $?: $(cat err)"; continue; }
	same_run "$w-$p-rec.json" "$w-$p-rep.json" || fail "replay of $w under $p is not the same run"
	# a replay recorded again replays the same
	"$BIN" run "${args[@]}" -w "trace:$w-$p.cst" --record "$w-$p-2.cst" -o "$w-$p-rep2.json" ||
		fail "re-record $w $p: status $?"
	"$BIN" run "${args[@]}" -w "trace:$w-$p-2.cst" -o "$w-$p-rep3.json" ||
		fail "replay of the re-recording $w $p: status $?"
	same_run "$w-$p-rec.json" "$w-$p-rep3.json" || fail "re-recorded $w $p differs"
done
ls ./*.tmp.* >/dev/null 2>&1 && fail "temporary files left: $(ls ./*.tmp.*)"

# bad trace files: exit 3, one line naming the file, no -o output
good=stream-gtsc.cst
size=$(stat -c %s "$good")
head -c 10 "$good" >short.cst
head -c $((size / 2)) "$good" >half.cst
head -c $((size - 1)) "$good" >minus1.cst
cp "$good" flip.cst
printf '\xff' | dd of=flip.cst bs=1 seek=$((size / 2)) conv=notrunc status=none
printf 'NOTATRACE-at-all\n' >magic.cst
: >empty.cst
mkdir nolist
for f in short half minus1 flip magic empty; do
	"$BIN" run -c "$G" -w "trace:$f.cst" -o "$f.json" -q 2>err
	rc=$?
	[ $rc -eq 3 ] || fail "$f.cst: status $rc, want 3: $(cat err)"
	[ "$(wc -l <err)" -eq 1 ] || fail "$f.cst: not one error line: $(cat err)"
	grep -q "$f.cst" err || fail "$f.cst: the error does not name the file: $(cat err)"
	[ ! -e "$f.json" ] || fail "$f.cst: output written for a bad trace"
done
grep -q "truncated" <(
	"$BIN" run -c "$G" -w trace:half.cst -q 2>&1
) || fail "half a trace is not reported as truncated"
"$BIN" run -c "$G" -w trace:nolist -q 2>err
[ $? -eq 3 ] || fail "a directory without kernelslist.g: not status 3: $(cat err)"
"$BIN" run -c "$G" -w trace:missing.cst -q 2>err
[ $? -eq 3 ] && grep -q missing.cst err || fail "a missing trace: $(cat err)"
"$BIN" run -c "$G" -w trace: -q 2>err
[ $? -eq 2 ] || fail "-w trace: without a path is not a usage error"

# --record: unwritable path -> status 4, nothing left; a selfcheck system cannot be recorded
"$BIN" run -c "$G" -w stream --set workload.size=tiny --record nodir/x.cst -q 2>err
[ $? -eq 4 ] || fail "--record into a missing directory: not status 4: $(cat err)"
[ -z "$(ls nodir 2>/dev/null)" ] || fail "--record into a missing directory left files"
"$BIN" run -c "$SRC/configs/selfcheck.cfg" --record sc.cst -q 2>err
[ $? -eq 2 ] && [ ! -e sc.cst ] || fail "--record of a selfcheck run: $(cat err)"

# the real Accel-Sim traces: vectoradd = 4 working warps x (2 loads + 1 store), each a warp's
# 32 (or 4) consecutive floats in one 128 B line: 12 L2 accesses, BL (no L1); matrixmul = 64
# row loads + 32 row stores of 32 floats: 96.
accel() {
	local dir=$1 want_acc=$2 want_ops=$3
	"$BIN" run -c "$SRC/configs/gtx480-15sm.cfg" -w "trace:$EXT/$dir" -o "$dir.json" \
		>"$dir.out" 2>err || { fail "$dir: status $?: $(cat err)"; return; }
	python3 - "$dir.json" "$want_acc" "$want_ops" <<'PY' || fail "$dir: $(cat "$dir.out")"
import json, sys
j = json.load(open(sys.argv[1]))
r, s = j["result"], j["stats"]
acc = sum(v for k, v in s.items() if k.startswith("gpu.l2") and k.endswith(".accesses"))
ok = acc == int(sys.argv[2]) and r["mem_insts"] == int(sys.argv[2]) and r["cycles"] > 0
ok = ok and any(("%s warp ops" % sys.argv[3]) in n for n in r["notes"])
if not ok:
    print("accesses", acc, "mem_insts", r["mem_insts"], "notes", r["notes"])
    sys.exit(1)
PY
}
accel vectoradd-100-32 12 56
accel matrixmul-32-32 96 2688
# the list file itself names the same trace
"$BIN" run -c "$SRC/configs/gtx480-15sm.cfg" -w "trace:$EXT/vectoradd-100-32/kernelslist.g" \
	-o va2.json -q || fail "kernelslist.g path: status $?"
same_run vectoradd-100-32.json va2.json || fail "directory and kernelslist.g differ"

exit $((fails > 0))
