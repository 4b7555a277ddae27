#!/usr/bin/env bash
# The hybrid mode's headline figures: the 12-benchmark suite under each protocol x model pair
# in detailed, hybrid and analytic mode (analytic with a calibration trained by
# `cohscope calibrate` on a disjoint subset of the suite), on configs/default.cfg. Per run:
# cycles both ways and the error, whether the detailed value falls in the hybrid's interval,
# NoC traffic error, host seconds (and the FF-only floor's: sampling.ff = only), speedup, the
# share of the hybrid's cycles run detailed; then the means and the warp memory operations
# per host second of each face. Prints figures only; no thresholds (bench/README.md).
# Usage: bench/hybrid/run.sh BUILD_DIR [SIZE] [PROTOCOL:MODEL ...]
#   (default: size default; pairs none:rc noncoherent:rc tc-weak:rc tc-strong:sc gtsc:rc gtsc:sc)
set -euo pipefail
build=${1:?usage: bench/hybrid/run.sh BUILD_DIR [SIZE] [PROTOCOL:MODEL ...]}
shift
size=${1:-default}
[ $# -gt 0 ] && shift
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(none:rc noncoherent:rc tc-weak:rc tc-strong:sc gtsc:rc gtsc:sc)
src=$(cd "$(dirname "$0")/../.." && pwd)
bin="$build/cohscope"
cfg="$src/configs/default.cfg"
train=cc,dlb,stn,bp,sgm,ccp # the analytic mode is judged on the other six
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "config: configs/default.cfg, size $size, seed 1; calibration trained on $train"
"$bin" calibrate -c "$cfg" --set workload.size="$size" --train "$train" -o "$tmp/calib.cfg" -q
grep -E 'error' "$tmp/calib.cfg" | sed 's/^/  calibration: /'
for pair in "${pairs[@]}"; do
	p=${pair%%:*} m=${pair##*:}
	for mode in detailed hybrid analytic floor; do
		extra=()
		[ "$mode" = analytic ] && extra=(--set sampling.calibration="$tmp/calib.cfg")
		# the FF-only floor: every kernel values only, nothing timed (sampling.ff = only)
		[ "$mode" = floor ] && extra=(--set sampling.ff=only)
		"$bin" suite -c "$cfg" --set workload.size="$size" --set coherence.protocol="$p" \
			--set core.consistency="$m" --set system.mode="${mode/floor/hybrid}" \
			"${extra[@]}" -q -o "$tmp/$p-$m-$mode.json" || true
	done
done
python3 - "$tmp" "$train" "${pairs[@]}" <<'PY'
import json, sys, os
tmp, train, pairs = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
load = lambda p, m, mode: {r["benchmark"]: r for r in json.load(open(f"{tmp}/{p}-{m}-{mode}.json"))}
errs, maxe, cover, terr, sp, aerr, afast, rank_ok = [], 0, [], [], [], [], [], {}
half_rel = []
failed_alike = [0, 0]
ops = {"detailed": [0, 0], "hybrid": [0, 0], "analytic": [0, 0]}
floor_s, det_share, det_cyc, all_cyc = 0.0, [], 0.0, 0.0
det_all = {}
for pair in pairs:
    p, m = pair.split(":")
    D, H, A = load(p, m, "detailed"), load(p, m, "hybrid"), load(p, m, "analytic")
    F = load(p, m, "floor")
    print(f"\n{p} {m}:")
    print(f"  {'bench':5} {'detailed':>10} {'hybrid':>10} {'+-':>9} {'err%':>6} {'in':>3} "
          f"{'traf%':>6} {'det s':>6} {'hyb s':>6} {'FF s':>6} {'speedup':>7} {'det%':>5} "
          f"{'analytic':>10} {'err%':>6}")
    for b, d in D.items():
        h, a = H[b], A[b]
        c = d["cycles"]
        if not d["verified"]:
            # fails in detailed mode too (W/L1 on set 1): must fail alike, stays out of the means
            alike = not h["verified"] and not a["verified"]
            failed_alike[0] += alike; failed_alike[1] += 1
            print(f"  {b:5} {c:10d} fails in detailed mode; hybrid and analytic "
                  f"{'fail alike' if alike else 'DO NOT fail alike'} (left out of the means)")
            continue
        e = 100 * (h["cycles"] - c) / c
        inside = abs(h["cycles"] - c) <= h["cycles_half"]
        te = 100 * (h["traffic_bytes"] - d["traffic_bytes"]) / d["traffic_bytes"] if d["traffic_bytes"] else 0
        s = d["host_seconds"] / h["host_seconds"] if h["host_seconds"] else 0
        ae = 100 * (a["cycles"] - c) / c
        errs.append(abs(e)); maxe = max(maxe, abs(e)); cover.append(inside); terr.append(abs(te)); sp.append(s)
        half_rel.append(h["cycles_half"] / h["cycles"] if h["cycles"] else 0)
        if b not in train:
            aerr.append(abs(ae))
        afast.append(a["host_seconds"] < h["host_seconds"])
        for mode, r in (("detailed", d), ("hybrid", h), ("analytic", a)):
            ops[mode][0] += r.get("mem_insts", 0); ops[mode][1] += r["host_seconds"]
        det_all.setdefault(b, {})[pair] = (c, h["cycles"])
        # the share of the hybrid's cycles its detailed face simulated (drains included)
        hc = ((h.get("host_faces") or {}).get("detailed") or {}).get("cycles", 0)
        share = 100 * hc / h["cycles"] if h["cycles"] else 0
        det_share.append(share); det_cyc += hc; all_cyc += h["cycles"]
        floor_s += F[b]["host_seconds"]
        ok = "" if d["verified"] and h["verified"] and a["verified"] and F[b]["verified"] else "  FAILED"
        print(f"  {b:5} {c:10d} {h['cycles']:10d} {h['cycles_half']:9.0f} {e:6.1f} {'yes' if inside else 'no':>3} "
              f"{te:6.2f} {d['host_seconds']:6.2f} {h['host_seconds']:6.2f} {F[b]['host_seconds']:6.2f} {s:7.1f} "
              f"{share:5.1f} {a['cycles']:10d} {ae:6.1f}{ok}")
rank = sum(1 for b, v in det_all.items()
           if sorted(v, key=lambda k: v[k][0]) == sorted(v, key=lambda k: v[k][1]))
n = len(errs)
print(f"\nmeans over {n} runs ({failed_alike[1]} runs that fail in detailed mode left out; "
      f"{failed_alike[0]} of them fail alike in hybrid and analytic mode):")
print(f"  hybrid |cycle error| mean {sum(errs)/n:.1f}%, max {maxe:.1f}%; interval covers the detailed value in {100*sum(cover)/n:.0f}% of runs")
print(f"  hybrid traffic |error| mean {sum(terr)/n:.2f}%; speedup over detailed: mean {sum(sp)/n:.1f}x, suite total "
      f"{ops['detailed'][1]/ops['hybrid'][1]:.1f}x")
print(f"  host seconds: detailed {ops['detailed'][1]:.1f}, hybrid {ops['hybrid'][1]:.1f}, FF-only floor {floor_s:.1f} "
      f"(hybrid {ops['hybrid'][1]/max(floor_s,1e-9):.2f}x the floor); runs where hybrid took longer than detailed: "
      f"{sum(1 for x in sp if x < 1)}/{n}")
print(f"  detailed share of the hybrid's cycles: {100*det_cyc/max(all_cyc,1):.1f}% of all, per run mean "
      f"{sum(det_share)/n:.1f}%, max {max(det_share):.1f}%")
hw = [100 * H_half for H_half in half_rel]
print(f"  interval half-width: mean {sum(hw)/n:.1f}% of the estimate")
print(f"  analytic (held-out benchmarks) |cycle error| mean {sum(aerr)/max(len(aerr),1):.1f}%; faster than hybrid in {sum(afast)}/{len(afast)} runs")
print(f"  protocol ranking by cycles the same in hybrid as in detailed for {rank}/{len(det_all)} benchmarks")
# Protocols whose detailed cycles lie within a fraction of a percent are not ordered by the
# protocol: the detailed order itself changes with a one-cycle change of an unstated latency or
# with the input seed (docs/hybrid.md). So also: the pairs the hybrid orders as detailed does,
# counting only pairs whose detailed cycles differ by more than a gap.
for gap in (1, 2, 5):
    po = pt = bo = 0
    for b, v in det_all.items():
        whole = True
        ks = sorted(v)
        for i in range(len(ks)):
            for j in range(i + 1, len(ks)):
                (di, hi), (dj, hj) = v[ks[i]], v[ks[j]]
                if abs(di - dj) <= gap / 100 * min(di, dj):
                    continue
                pt += 1
                same = (di < dj) == (hi < hj)
                po += same
                whole &= same
        bo += whole
    print(f"    pairs more than {gap}% apart in detailed mode: ordered alike in {po}/{pt}; every such pair of a benchmark in {bo}/{len(det_all)} benchmarks")
for mode in ("detailed", "hybrid", "analytic"):
    o, s = ops[mode]
    print(f"  {mode:9} {o/s/1e6:6.2f} M warp memory ops per host second ({s:.1f} s)")
# each face's own speed, from the runs' host_faces (work = warp instructions + compute cycles)
faces = {"detailed": [0.0, 0.0, 0.0], "lt": [0.0, 0.0, 0.0], "ff": [0.0, 0.0, 0.0]}
side = {"detailed": 0.0, "hybrid": 0.0, "analytic": 0.0}
for pair in pairs:
    p, m = pair.split(":")
    for mode in ("detailed", "hybrid", "analytic"):
        for r in load(p, m, mode).values():
            hf = r.get("host_faces") or {}
            side[mode] += hf.get("host_side_seconds", 0)
            for f in faces:
                x = hf.get(f) or {}
                faces[f][0] += x.get("seconds", 0); faces[f][1] += x.get("work", 0); faces[f][2] += x.get("cycles", 0)
print("  per face (all modes pooled; work = warp instructions + compute cycles):")
for f, (s, w, c) in faces.items():
    if s > 0:
        print(f"    {f:8} {w/s/1e6:7.2f} M work/s, {c/s/1e6:6.3f} M core cycles/s ({s:.1f} s)")
for mode in ("detailed", "hybrid", "analytic"):
    print(f"  workloads' host side in {mode} runs: {side[mode]:.1f} s of {ops[mode][1]:.1f} s "
          f"({100*side[mode]/max(ops[mode][1],1e-9):.1f}%)")
PY
