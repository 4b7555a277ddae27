#!/bin/sh
# bench/hybrid/systems.sh BUILD_DIR [SIZE]
#
# The hybrid and analytic modes beside detailed mode on the systems other than the GPU suite
# (issue 37; bench/hybrid/run.sh is the GPU suite's): system cpu on the ideal memory
# (configs/cpu-tso.cfg) and on the APU memory side (configs/cpu-apu.cfg) with cpu_count and
# cpu_mp, system apu (configs/apu-2200g.cfg, the baseline) with the ten CHAI workloads of
# `study hsc`, and the 128-CU GPU (configs/hlrc-128cu.cfg) with PR-1 (pagerank on its default
# input). Per run: detailed cycles, the hybrid estimate with its half-width, its error and
# whether the interval holds the detailed value, host seconds of each mode, the speedup, the
# share of the hybrid's cycles its detailed face simulated, and the analytic estimate with its
# error; per system the means. It prints figures and asserts nothing (docs/performance.md).
# SIZE defaults to default. Needs python3 (its tables).
set -eu
BUILD=${1:?usage: bench/hybrid/systems.sh BUILD_DIR [SIZE]}
SIZE=${2:-default}
BIN=$BUILD/cohscope
[ -x "$BIN" ] || BIN=$BUILD
[ -x "$BIN" ] || { echo "systems.sh: no cohscope in $1" >&2; exit 2; }
cd "$(dirname "$0")/../.."
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

cases="cpu:configs/cpu-tso.cfg:cpu_count cpu:configs/cpu-tso.cfg:cpu_mp
cpu-apu:configs/cpu-apu.cfg:cpu_count cpu-apu:configs/cpu-apu.cfg:cpu_mp"
for w in bs cedd pad sc tq hsti hsto trns rscd rsct; do
	cases="$cases
apu:configs/apu-2200g.cfg:chai_$w"
done
cases="$cases
128cu:configs/hlrc-128cu.cfg:pagerank"

for c in $cases; do
	sys=${c%%:*}; rest=${c#*:}; cfg=${rest%%:*}; wl=${rest#*:}
	for m in detailed hybrid analytic; do
		s=$(date +%s.%N)
		if ! "$BIN" run -c "$cfg" -w "$wl" --set workload.size="$SIZE" --mode $m -q \
			-o "$OUT/$sys.$wl.$m.json" 2>"$OUT/$sys.$wl.$m.err"; then
			echo "$sys $wl $m: failed: $(tail -1 "$OUT/$sys.$wl.$m.err")" >&2
			rm -f "$OUT/$sys.$wl.$m.json"
		fi
		e=$(date +%s.%N)
		echo "$sys $wl $m $s $e" >>"$OUT/times"
	done
done

python3 - "$OUT" "$SIZE" <<'PY'
import json, os, sys
out, size = sys.argv[1], sys.argv[2]
secs = {}
for line in open(os.path.join(out, "times")):
    s, w, m, a, b = line.split()
    secs[(s, w, m)] = float(b) - float(a)
def load(s, w, m):
    try:
        return json.load(open(os.path.join(out, f"{s}.{w}.{m}.json")))
    except OSError:
        return None
order = []
for (s, w, m) in secs:
    if (s, w) not in order:
        order.append((s, w))
print(f"size {size}, one run each; host seconds are wall time of the whole command")
cur = None
agg = {}
for s, w in order:
    if s != cur:
        cur = s
        print(f"\n{s}:")
        print(f"  {'workload':10} {'detailed':>10} {'hybrid':>12} {'+-':>10} {'err%':>7} {'in':>3} "
              f"{'det s':>6} {'hyb s':>6} {'ana s':>6} {'speedup':>7} {'det%':>5} {'analytic':>12} {'err%':>7}")
    d, h, a = load(s, w, "detailed"), load(s, w, "hybrid"), load(s, w, "analytic")
    if not d or not h:
        print(f"  {w:10} failed")
        continue
    dc = d["result"]["cycles"]; hc = h["result"]["cycles"]; hh = h["result"].get("cycles_half", 0)
    err = 100 * (hc - dc) / dc
    inside = abs(hc - dc) <= hh
    faces = (h.get("host") or {}).get("faces") or {}
    det_cyc = (faces.get("detailed") or {}).get("cycles", 0)
    share = 100 * det_cyc / hc if hc else 0
    ds, hs, as_ = secs[(s, w, "detailed")], secs[(s, w, "hybrid")], secs[(s, w, "analytic")]
    ac = a["result"]["cycles"] if a else float("nan")
    aerr = 100 * (ac - dc) / dc
    print(f"  {w:10} {dc:10.0f} {hc:12.0f} {hh:10.0f} {err:+7.1f} {'yes' if inside else 'no':>3} "
          f"{ds:6.2f} {hs:6.2f} {as_:6.2f} {ds / hs if hs else 0:7.2f} {share:5.1f} {ac:12.0f} {aerr:+7.1f}")
    g = agg.setdefault(s, {"e": [], "ae": [], "in": 0, "ds": 0.0, "hs": 0.0, "as": 0.0, "dc": 0.0, "hc": 0.0})
    g["e"].append(abs(err)); g["ae"].append(abs(aerr)); g["in"] += inside
    g["ds"] += ds; g["hs"] += hs; g["as"] += as_; g["dc"] += det_cyc; g["hc"] += hc
print("\nper system:")
for s, g in agg.items():
    n = len(g["e"])
    print(f"  {s:8} {n:2} runs: hybrid |error| mean {sum(g['e']) / n:.1f}%, max {max(g['e']):.1f}%, "
          f"interval holds {g['in']}/{n}; host s detailed {g['ds']:.1f}, hybrid {g['hs']:.1f} "
          f"({g['ds'] / g['hs'] if g['hs'] else 0:.2f}x), analytic {g['as']:.1f}; detailed share "
          f"{100 * g['dc'] / g['hc'] if g['hc'] else 0:.1f}%; analytic |error| mean "
          f"{sum(g['ae']) / n:.1f}%")
PY
