#!/usr/bin/env bash
# tests/cli/hybrid_accuracy.sh BINARY SOURCE_DIR
#
# The hybrid mode against the detailed one (deterministic: same seed, same results), on six of
# the G-TSC benchmarks at `small` size under G-TSC RC and under the no-L1 baseline, with
# sampling.head = 0 so that every kernel is sampled (at this size the head would measure them
# all whole). Asserts, per configuration:
# - every benchmark verifies in both modes;
# - the hybrid's 95% interval covers the detailed cycles in at least 5 of 6 runs;
# - the mean |cycle error| is at most 15% (small kernels give few units: 2 to 6 here), over
#   the runs but km's. km's kernels (50 000 cycles) get one unit each, at their start, where
#   the L2-hit-bound loading has 13 times the bound per instruction of the compute the LT
#   intervals do; the bound's ratio then overstates the rest (+160% under G-TSC, +63% with no
#   L1, since the L2 holds km's data: docs/hybrid.md, Known limits). km is held to the
#   interval only;
# - at least one unit was taken in every run (the sampling path ran).
# And with the head on (its default), a first kernel shorter than the head is measured whole:
# the detailed run's cycles exactly, with a zero interval.
. "$(dirname "$0")/lib.bash" "$@"

cfg=$SRC/configs/default.cfg
sel=bfs,stn,hs,km,sgm,bp
for pm in gtsc:rc none:rc; do
	p=${pm%%:*} m=${pm##*:}
	for mode in detailed hybrid; do
		"$BIN" suite -c "$cfg" -w "$sel" --set workload.size=small \
			--set coherence.protocol="$p" --set core.consistency="$m" \
			--set system.mode="$mode" --set sampling.head=0 -q -o "$p-$mode.json" \
			2>"$p-$mode.err" || fail "$pm $mode: status $?: $(cat "$p-$mode.err")"
	done
	python3 - "$p-detailed.json" "$p-hybrid.json" "$pm" <<'PY' || fail "$pm: hybrid accuracy"
import json, sys
d = {r["benchmark"]: r for r in json.load(open(sys.argv[1]))}
h = {r["benchmark"]: r for r in json.load(open(sys.argv[2]))}
bad, errs, covered = 0, [], 0
mean_of = lambda b: b != "km" # see the header
for b, r in d.items():
    x = h[b]
    if not (r["verified"] and x["verified"]):
        print(f"  {b}: not verified"); bad = 1
    if x["units"] < 1:
        print(f"  {b}: no unit taken"); bad = 1
    e = abs(x["cycles"] - r["cycles"]) / r["cycles"]
    if mean_of(b):
        errs.append(e)
    covered += abs(x["cycles"] - r["cycles"]) <= x["cycles_half"]
    print(f"  {sys.argv[3]} {b}: detailed {r['cycles']}, hybrid {x['cycles']} +- {x['cycles_half']:.0f} ({100*e:+.1f}%)")
mean = sum(errs) / len(errs)
if covered < len(d) - 1:
    print(f"  interval covers {covered} of {len(d)}"); bad = 1
if mean > 0.15:
    print(f"  mean |error| {100*mean:.1f}%"); bad = 1
sys.exit(bad)
PY
done

# with the head (default 50000 cycles) a run starts detailed: the first kernel of each of these
# runs is shorter than the head, so it is measured whole: the detailed run's cycles (within one:
# a launch falls between core clock edges), with a zero interval
"$BIN" suite -c "$cfg" -w hs,bp --set workload.size=small --set system.mode=hybrid -q \
	-o head.json 2>head.err || fail "head: status $?: $(cat head.err)"
python3 - gtsc-detailed.json head.json <<'PY' || fail "head: a short first kernel not measured whole"
import json, sys
d = {r["benchmark"]: r for r in json.load(open(sys.argv[1]))}
bad = 0
for x in json.load(open(sys.argv[2])):
    k, kd = x["kernels"][0], d[x["benchmark"]]["kernels"][0]
    if k["plan"] != "detailed" or abs(k["estimate"] - kd["cycles"]) >= 1 or k["half"] != 0:
        print(f"  {x['benchmark']}: first kernel {k['plan']} {k['estimate']} +- {k['half']}, detailed {kd['cycles']}")
        bad = 1
sys.exit(bad)
PY

exit $((fails > 0))
