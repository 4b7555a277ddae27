#!/usr/bin/env bash
# tests/cli/chai_a.sh BINARY SOURCE_DIR
#
# CHAI's bs, cedd, pad, sc and trns on system apu (configs/apu-2200g.cfg; workloads/chai_*.c,
# docs/workloads.md "CHAI workloads"):
# - each verifies at tiny (twice: the same seed gives the same result and statistics) and under
#   the coherence checker (0 violations); chai_pad verifies at small;
# - the collaboration really happened: both devices did work (the "work split" note), the CPU
#   made locked atomics, the GPU's system-scope atomics reached the directory (not chai_cedd:
#   its frame counter is the two CPU proxies'), the CorePairs asked for lines to write
#   (RdBlkM), the GPU's results crossed the directory as write-throughs (and chai_cedd's
#   kernels read the copied frames with RdBlk), probes and acks balance, the CPU launched the
#   kernels (chai_cedd: four per frame of the GPU proxy);
# - hybrid mode runs one of them and verifies.
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/apu-2200g.cfg
run() { # name workload size extra-args...
	local name=$1 w=$2 sz=$3
	shift 3
	timeout 300 "$BIN" run -c "$C" -w "$w" --set workload.size="$sz" "$@" -o "$name.json" \
		>"$name.txt" 2>&1 || fail "$name: exit $?: $(tail -1 "$name.txt")"
	grep -q "verified" "$name.txt" || fail "$name: not verified"
}

for b in bs cedd pad sc trns; do
	w=chai_$b
	run $w.1 $w tiny
	run $w.2 $w tiny
	run $w.chk $w tiny --set gpu.check=true
	[ $b = pad ] && run $w.small $w small
	python3 - $w.1.json $w.2.json $w.chk.json $w <<'PY' || fail "$w: $(cat err.txt)"
import json, re, sys
from clistats import getter
a, b, chk = (json.load(open(p)) for p in sys.argv[1:4])
w = sys.argv[4]
bad = []
s = a["stats"]
v = getter(s, bad)
split = [re.search(r"work split: CPU (\d+) \w+, GPU (\d+) \w+", n) for n in a["result"]["notes"]]
split = [m for m in split if m]
if not split:
    bad.append("no work-split note")
else:
    cpu, gpu = (int(x) for x in split[0].groups())
    if cpu <= 0 or gpu <= 0:
        bad.append("work split CPU %d, GPU %d: one device did nothing" % (cpu, gpu))
    kernels = 4 * gpu if w == "chai_cedd" else 1
    if v("apu.gpu.kernels") != kernels:
        bad.append("kernels %s, the CPU launched %d" % (v("apu.gpu.kernels"), kernels))
if a["result"]["atomics"] <= 0:
    bad.append("no CPU locked atomic")
if w != "chai_cedd" and (v("apu.dir.txn.Atomic") <= 0 or v("apu.tcc0.atomics.dir") <= 0):
    bad.append("no GPU system-scope atomic reached the directory")
if v("apu.dir.txn.RdBlkM") <= 0:
    bad.append("the CorePairs asked for no line to write (RdBlkM)")
probes = v("apu.dir.probes.inv") + v("apu.dir.probes.downgrade")
if probes <= 0 or v("apu.dir.probe_acks") != probes:
    bad.append("probes %s, acks %s" % (probes, v("apu.dir.probe_acks")))
# the GPU's results cross the directory as write-throughs; CEDD's kernels read the frames the
# CPU proxy copied (RdBlk)
if v("apu.dir.txn.WT") <= 0:
    bad.append("no GPU write-through reached the directory")
if w == "chai_cedd" and v("apu.dir.txn.RdBlk") <= 0:
    bad.append("the kernels read no frame through the directory (RdBlk)")
if v("apu.coherence_check.violations", chk["stats"]) != 0:
    bad.append("%s coherence violations" % chk["stats"]["apu.coherence_check.violations"])
if a["result"] != b["result"] or a["stats"] != b["stats"]:
    bad.append("two runs with the same seed differ")
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done

# hybrid: the sampler's initiators are the CPU cores and the CUs; the flag chain still holds
run chai_sc.hybrid chai_sc tiny --mode hybrid

exit $((fails > 0))
