#!/usr/bin/env bash
# tests/cli/gpu.sh BINARY SOURCE_DIR
#
# The GPU from the command line: both shipped configurations run the microbenchmarks under both
# protocols of issue 3; programs that communicate between SMs verify under `none` and are seen
# to fail, with one clear line, under `noncoherent`; same seed, same JSON; bad GPU settings are
# one-line errors with exit status 3.
. "$(dirname "$0")/lib.bash" "$@"

G=$SRC/configs/gtsc-16sm.cfg
X=$SRC/configs/gtx480-15sm.cfg
TINY=(--set workload.size=tiny --set core.spin_limit=5000 --set gpu.check=true)

expect() { # expect STATUS GREP-PATTERN NAME -- ARGS...
	local want=$1 pat=$2 name=$3 rc
	shift 4
	timeout 60 "$BIN" "$@" >"$name.out" 2>"$name.err"
	rc=$?
	[ "$rc" -eq "$want" ] || { fail "$name: status $rc, want $want"; sed 's/^/  /' "$name.err"; }
	if [ -n "$pat" ] && ! grep -q -- "$pat" "$name.out" "$name.err"; then
		fail "$name: no '$pat' in the output"
	fi
	if [ "$want" -ne 0 ] && [ "$(grep -c '^cohscope:' "$name.err")" -ne 1 ]; then
		fail "$name: want exactly one error line"
		sed 's/^/  /' "$name.err"
	fi
}

for cfg in "$G" "$X"; do
	c=$(basename "$cfg" .cfg)
	for w in stream chase_l1 histo prodcons lock barrier; do
		expect 0 "verified\|final node" "$c-$w-none" -- run -c "$cfg" -w "$w" "${TINY[@]}" \
			--set coherence.protocol=none
	done
	for w in stream histo; do
		expect 0 "" "$c-$w-nc" -- run -c "$cfg" -w "$w" "${TINY[@]}" \
			--set coherence.protocol=noncoherent
	done
	expect 1 "stale" "$c-prodcons-nc" -- run -c "$cfg" -w prodcons "${TINY[@]}" \
		--set coherence.protocol=noncoherent
	expect 1 "lost\|stale" "$c-lock-nc" -- run -c "$cfg" -w lock "${TINY[@]}" \
		--set coherence.protocol=noncoherent
	expect 1 "livelock\|stale" "$c-barrier-nc" -- run -c "$cfg" -w barrier "${TINY[@]}" \
		--set coherence.protocol=noncoherent
done

# seed 004's 128-CU GPU (configs/hlrc-128cu.cfg): it runs, oldest first, on the concentrated
# 16 x 8 mesh and the DDR3 preset; a coherent protocol verifies what needs coherence
H=$SRC/configs/hlrc-128cu.cfg
expect 0 "verified" hlrc-stream -- run -c "$H" -w stream "${TINY[@]}" -o hlrc.json
grep -q "128 SMs, protocol scoped-baseline .*oldest first" hlrc-stream.out ||
	fail "hlrc: $(grep '^gpu:' hlrc-stream.out)"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["stats"]
sys.exit(0 if "gpu.noc.req.link.bank31_out" in s and "gpu.noc.req.link.r127_n" in s else 1)' \
	hlrc.json || fail "hlrc: no 32nd bank or 128th router in the NoC stats"
expect 0 "verified" hlrc-barrier -- run -c "$H" -w barrier "${TINY[@]}" \
	--set coherence.protocol=gtsc

# the report has what an architect looks for
expect 0 "L1 load hit rate" report -- run -c "$G" -w chase_l1 "${TINY[@]}" \
	--set coherence.protocol=noncoherent
for pat in "cycles" "L2 hit rate" "NoC" "DRAM" "row hit rate"; do
	grep -q "$pat" report.out || fail "report: no '$pat'"
done

# determinism: same inputs and seed, same JSON (all but host timing)
for i in 1 2; do
	"$BIN" run -c "$G" -w histo "${TINY[@]}" --set coherence.protocol=noncoherent -q \
		-o "det$i.json" || fail "determinism run $i"
done
python3 - det1.json det2.json <<'PY' || fail "two runs with the same seed differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for j in (a, b):
    j.pop("host", None)
sys.exit(0 if a == b else 1)
PY

# G-TSC with 8-bit timestamps resets every few dozen cycles under the grid barrier's spinning:
# loads waiting across a reset must ask again at the new epoch's start (with their old
# timestamps they overflowed it at once and the resets never stopped: a livelock)
expect 0 "verified" gtsc-8bit-barrier -- run -c "$G" -w barrier --set workload.size=small \
	--set coherence.protocol=gtsc --set gtsc.ts_bits=8 -o gtsc8.json
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["stats"]
sys.exit(0 if sum(v for k, v in s.items() if k.endswith("ts_resets")) > 100 else 1)' gtsc8.json ||
	fail "gtsc-8bit-barrier: fewer than 100 timestamp resets"

# the progress line (issue 6): on stderr only, the results unchanged; never without a terminal
# unless asked
D=$SRC/configs/default.cfg
expect 0 "" progress-off -- run -c "$D" -w stream --set workload.size=small -o prog-off.json
expect 0 "" progress-on -- run -c "$D" -w stream --set workload.size=small --progress \
	-o prog-on.json
grep -q "hybrid: kernel 1 stream .* CTAs, .*cycles, [0-9]* units" progress-on.err ||
	fail "progress: no progress line: $(tr '\r' '\n' <progress-on.err | tail -2)"
[ ! -s progress-off.err ] || fail "progress: drawn without a terminal: $(cat progress-off.err)"
cmp -s <(grep -v '^host:' progress-on.out) <(grep -v '^host:' progress-off.out) ||
	fail "progress: the summary changed"
python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if a["result"] == b["result"] and a["stats"] == b["stats"] else 1)' prog-on.json \
	prog-off.json || fail "progress: the results changed"

# sampled checks (workload.check, workload.samples): the sample's size is exact, the full check
# compares every output, and neither changes the simulation
expect 0 "" sgm-sample -- run -c "$D" -w sgm --set workload.size=tiny --set workload.samples=5 \
	-o sgm-sample.json
expect 0 "" sgm-full -- run -c "$D" -w sgm --set workload.size=tiny --set workload.check=full \
	-o sgm-full.json
grep -q "sgm: .* 5 of 16384 elements checked" sgm-sample.out ||
	fail "sgm sample: $(grep 'sgm:' sgm-sample.out)"
grep -q "sgm: .* 16384 of 16384 elements checked" sgm-full.out ||
	fail "sgm full: $(grep 'sgm:' sgm-full.out)"
expect 0 "" ccp-sample -- run -c "$D" -w ccp --set workload.size=tiny --set workload.samples=7 \
	-o ccp-sample.json
grep -q "ccp: .* 7 of 2048 points checked" ccp-sample.out || fail "ccp sample: $(grep 'ccp:' ccp-sample.out)"
python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
del a["result"]["notes"], b["result"]["notes"] # the notes say how much was checked
sys.exit(0 if a["result"] == b["result"] and a["stats"] == b["stats"] else 1)' sgm-sample.json \
	sgm-full.json || fail "workload.check: the results changed"
expect 3 "workload.check" bad-check -- run -c "$D" -w sgm --set workload.check=some

# where the host's time went, per face: in detailed mode all the work is the detailed face's
# (warp instructions + compute cycles less spin loops' failed tries, summed over SMs); in
# hybrid mode the faces' work adds up to the same total and the LT face has some
expect 0 "" faces-det -- run -c "$D" -w bfs --set workload.size=tiny --mode detailed -o faces-det.json
expect 0 "" faces-hyb -- run -c "$D" -w bfs --set workload.size=tiny --mode hybrid \
	--set sampling.head=0 -o faces-hyb.json
python3 -c 'import json, sys
def total(d):
    s = d["stats"]
    return sum(v * (-1 if k.endswith("spin_work") else 1) for k, v in s.items()
               if k.startswith("gpu.sm") and k.split(".")[-1] in
               ("insts", "compute_cycles", "ff_insts", "ff_compute_cycles", "spin_work"))
d, h = (json.load(open(f)) for f in sys.argv[1:])
fd, fh = d["host"]["faces"], h["host"]["faces"]
ok = fd["detailed"]["work"] == total(d) and fd["lt"]["work"] == 0 and fd["ff"]["work"] == 0
ok = ok and fd["detailed"]["seconds"] > 0 and fd["detailed"]["cycles"] > 0
ok = ok and sum(fh[f]["work"] for f in ("detailed", "lt", "ff")) == total(h) and fh["lt"]["work"] > 0
sys.exit(0 if ok else 1)' faces-det.json faces-hyb.json || fail "host.faces: work per face does not add up"

# bad input: one line naming the setting, exit 3
expect 3 "did you mean 'noncoherent'" bad-protocol -- run -c "$G" "${TINY[@]}" \
	--set coherence.protocol=noncoherant
expect 3 "workload.size" bad-size -- run -c "$G" --set workload.size=huge
expect 3 "banks_per_channel" bad-banks -- run -c "$G" --set l2.banks=8 \
	--set l2.banks_per_channel=3
expect 3 "line_bytes" bad-line -- run -c "$G" --set l1.line_bytes=64
"$BIN" list protocols >list.out || fail "list protocols"
grep -q "^  none " list.out && grep -q "^  noncoherent " list.out || fail "list protocols: $(cat list.out)"

exit $((fails > 0))
