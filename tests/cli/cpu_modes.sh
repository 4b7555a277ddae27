#!/usr/bin/env bash
# tests/cli/cpu_modes.sh BINARY SOURCE_DIR
#
# System cpu in its three timing modes from the command line (docs/cpu.md): cpu_count and
# cpu_mp verify in detailed, hybrid and analytic mode; hybrid reports its estimate with a
# half-width, in the summary and in the JSON (cycles, cycles_half, units, the programs' plans,
# the host's time per face), and with short units (sampling.head=0, units of 500 cycles) takes
# several and its interval contains the detailed cycles; the same seed gives the same JSON
# result and statistics; with the default predictor (events: the cores' spin-free work) the
# default hybrid run is within 3% of detailed (issue 37's bound for system cpu).
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/cpu-tso.cfg
UNITS=(--set sampling.head=0 --set sampling.first=500 --set sampling.warmup=200
	--set sampling.unit=500 --set sampling.period=1500)

for w in cpu_count cpu_mp; do
	for m in detailed hybrid analytic; do
		"$BIN" run -c "$C" -w $w --mode $m -o $w.$m.json >$w.$m.txt 2>&1 ||
			fail "$w $m: exit $?: $(tail -1 $w.$m.txt)"
		grep -q "verified" $w.$m.txt || fail "$w $m: not verified"
	done
	grep -q "cycles .* +- .*confidence; hybrid" $w.hybrid.txt || fail "$w: no interval in the summary"
	"$BIN" run -c "$C" -w $w --mode hybrid "${UNITS[@]}" -o $w.u1.json >/dev/null 2>&1 ||
		fail "$w hybrid, short units: exit $?"
	"$BIN" run -c "$C" -w $w --mode hybrid "${UNITS[@]}" -o $w.u2.json >/dev/null 2>&1 ||
		fail "$w hybrid, short units (again): exit $?"
	python3 - $w.detailed.json $w.u1.json $w.u2.json $w.hybrid.json <<'PY' || fail "$w: $(cat err.txt)"
import json, sys
d, u1, u2, h = (json.load(open(p)) for p in sys.argv[1:5])
bad = []
det = d["result"]["cycles"]
r = u1["result"]
if r["mode"] != "hybrid" or r["units"] < 2:
    bad.append("units %s" % r["units"])
if not (r["cycles"] - r["cycles_half"] <= det <= r["cycles"] + r["cycles_half"]):
    bad.append("detailed %s outside %s +- %s" % (det, r["cycles"], r["cycles_half"]))
if r["programs"][0]["plan"] != "sampled":
    bad.append("plan %s" % r["programs"][0]["plan"])
faces = u1["host"]["faces"]
if faces["detailed"]["work"] <= 0 or faces["lt"]["work"] <= 0:
    bad.append("host faces %s" % faces)
if "cycles_half" not in h["result"]:
    bad.append("no cycles_half in the default hybrid run")
elif abs(h["result"]["cycles"] - det) > 0.03 * det:
    bad.append("default hybrid %s against detailed %s: more than 3%%" % (h["result"]["cycles"], det))
if u1["result"] != u2["result"] or u1["stats"] != u2["stats"]:
    bad.append("two runs with the same seed differ")
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done

exit $((fails > 0))
