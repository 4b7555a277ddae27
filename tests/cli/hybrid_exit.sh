#!/usr/bin/env bash
# tests/cli/hybrid_exit.sh BINARY SOURCE_DIR
#
# A warp that exits in the LT face frees its slot only once every answer it waits for is in,
# those due after its last blocking answer too (write-through acks): one left over was counted
# off the slot's next warp, whose count wrapped, and the next drain of the detailed face never
# ended (hs at default size under TC-Weak, hybrid, seed 1 with units at jittered offsets: two
# acks due at the exit's own time, on SM 12). Since then an answer for a warp with nothing
# outstanding fails the run with one line instead. Asserts that this run ends (within a
# timeout), verifies, and gives the same cycles twice.
. "$(dirname "$0")/lib.bash" "$@"

for i in 1 2; do
	timeout 120 "$BIN" run -c "$SRC/configs/default.cfg" -w hs --set workload.size=default \
		--set coherence.protocol=tc-weak --set core.consistency=rc --mode hybrid \
		--set sim.seed=1 --set sampling.jitter=1 -q -o "hs$i.json" 2>"hs$i.err" ||
		fail "hs under TC-Weak, hybrid: status $?: $(cat "hs$i.err")"
done
python3 - hs1.json hs2.json <<'PY' || fail "hs under TC-Weak, hybrid: result"
import json, sys
a, b = (json.load(open(f))["result"] for f in sys.argv[1:])
assert any("bit-exact" in n or "verified" in n for n in a.get("notes", [])), a.get("notes")
assert a["cycles"] > 0 and a["cycles"] == b["cycles"], (a["cycles"], b["cycles"])
PY
[ "$fails" -eq 0 ] && echo "all passed"
[ "$fails" -eq 0 ]
