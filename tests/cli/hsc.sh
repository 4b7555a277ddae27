#!/usr/bin/env bash
# tests/cli/hsc.sh BINARY SOURCE_DIR
#
# Seed 002's evaluation sweep, configs/studies/hsc.sweep, at tiny size (about 10 s on 2 jobs):
# the ten CHAI workloads under the baseline and every directory variant (A, B, B.1,
# useL3OnWT, C, A+B+C, owner, owner+sharers, all) each verify their output, and the variants
# do what seed 002 §III-IV says they do, per workload:
# - owner tracking sends fewer directory probes than the broadcasting baseline, and a sharer
#   list fewer still (reads in I and S probe nobody; writes reach only the holders);
# - without tracking, the probe count does not depend on A, B, B.1 or C by more than the timing
#   can move it (the same requests broadcast the same way);
# - B and B.1 never write more victims to DRAM than the baseline; with C (the write-back LLC)
#   no victim is written to DRAM at all;
# - the tracked runs report the states their requests found (pf.found), the untracked ones none.
. "$(dirname "$0")/lib.bash" "$@"

timeout 600 "$BIN" sweep "$SRC/configs/studies/hsc.sweep" -o hsc --jobs 2 -q \
	--set workload.size=tiny >sweep.txt 2>&1 || fail "sweep: exit $?: $(tail -2 sweep.txt)"

python3 - hsc <<'PY' || fail "$(cat err.txt)"
import json, sys
d = sys.argv[1]
man = json.load(open(d + "/manifest.json"))
bad = []
run = {}
for pt in man["points"]:
    w, c = pt["workload"], pt["axes"]["config"]
    try:
        j = json.load(open("%s/points/%s.json" % (d, pt["id"])))
    except OSError:
        bad.append("%s %s: no result" % (w, c))
        continue
    if not any("verified" in n for n in j["result"].get("notes", [])):
        bad.append("%s %s: not verified" % (w, c))
    run[w, c] = j["stats"]
def probes(s):
    return s["apu.dir.probes.inv"] + s["apu.dir.probes.downgrade"] + s["apu.dir.probes.backinv"]
def victims_to_dram(s):
    return s["apu.dir.dram.writes.victim"]
workloads = sorted({w for w, _ in run})
if len(workloads) != 10 or len(run) != 100:
    bad.append("%d workloads, %d runs: want 10 and 100" % (len(workloads), len(run)))
for w in workloads:
    b, o, sh = run[w, "baseline"], run[w, "owner"], run[w, "owner+sharers"]
    if not probes(o) < probes(b):
        bad.append("%s: owner tracking %d probes, baseline %d" % (w, probes(o), probes(b)))
    if not probes(sh) < probes(o):
        bad.append("%s: sharer list %d probes, owner only %d" % (w, probes(sh), probes(o)))
    for c in ("A", "B", "B.1", "C", "A+B+C"):
        p = probes(run[w, c])
        if abs(p - probes(b)) > 0.1 * probes(b) + 16:
            bad.append("%s %s: %d probes, baseline %d (no tracking: the same broadcasts)"
                       % (w, c, p, probes(b)))
    for c in ("B", "B.1"):
        if victims_to_dram(run[w, c]) > victims_to_dram(b):
            bad.append("%s %s: %d victim writes to DRAM, baseline %d"
                       % (w, c, victims_to_dram(run[w, c]), victims_to_dram(b)))
    for c in ("C", "A+B+C", "all"):
        if victims_to_dram(run[w, c]) != 0:
            bad.append("%s %s: a write-back LLC wrote %d victims to DRAM"
                       % (w, c, victims_to_dram(run[w, c])))
    for c in ("owner", "owner+sharers", "all"):
        s = run[w, c]
        if sum(s.get("apu.dir.pf.found." + x, 0) for x in "ISO") <= 0:
            bad.append("%s %s: no tracked request" % (w, c))
    if any(k.startswith("apu.dir.pf.") for k in b):
        bad.append("%s baseline: directory cache statistics without tracking" % w)
if bad:
    open("err.txt", "w").write("; ".join(bad[:8]))
    sys.exit(1)
PY

exit $((fails > 0))
