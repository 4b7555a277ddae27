#!/usr/bin/env bash
# tests/cli/chai_b.sh BINARY SOURCE_DIR
#
# CHAI's tq, hsti, hsto, rscd and rsct on system apu (configs/apu-2200g.cfg; docs/workloads.md,
# "CHAI workloads"):
# - each verifies at tiny (twice: the same seed gives the same result and statistics), under the
#   coherence checker (0 violations) and in hybrid mode; chai_tq also at small;
# - the collaboration really happened: one kernel, launched by a CPU thread; probes and acks
#   balance; the system-scope atomics and the CPU's write-permission requests reached the
#   directory as each benchmark makes them (TQ: the producers' tasks all dequeued by the GPU,
#   counted by the workload; HSTI: every GPU bin merge an SLC atomic; HSTO: the GPU's merge
#   written through and the image read by both; RSCD: candidates appended from both sides;
#   RSCT: one CPU locked add per model and the GPU's flag polls at the directory).
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/apu-2200g.cfg
run() { # name args...
	local name=$1
	shift
	timeout 120 "$BIN" run -c "$C" "$@" -o $name.json >$name.txt 2>&1 ||
		{ fail "$name: exit $?: $(tail -1 $name.txt)"; return 1; }
	grep -q "verified" $name.txt || { fail "$name: not verified"; return 1; }
}

for w in chai_tq chai_hsti chai_hsto chai_rscd chai_rsct; do
	run $w.1 -w $w --set workload.size=tiny || continue
	run $w.2 -w $w --set workload.size=tiny
	run $w.check -w $w --set workload.size=tiny --set gpu.check=true
	run $w.hybrid -w $w --set workload.size=tiny --mode hybrid
	python3 - $w <<'PY' || fail "$w: $(cat err.txt)"
import json, re, sys
from clistats import getter
w = sys.argv[1]
a, b, c = (json.load(open("%s.%s.json" % (w, k))) for k in ("1", "2", "check"))
s = a["stats"]
note = " ".join(a["result"]["notes"])
bad = []
v = getter(s, bad)
txn = lambda t: v("apu.dir.txn." + t)
if v("apu.gpu.kernels") != 1:
    bad.append("kernels %s, the CPU launched 1" % v("apu.gpu.kernels"))
probes = v("apu.dir.probes.inv") + v("apu.dir.probes.downgrade")
if probes <= 0 or v("apu.dir.probe_acks") != probes:
    bad.append("probes %s, acks %s" % (probes, v("apu.dir.probe_acks")))
if txn("RdBlkM") <= 0:
    bad.append("the CPU threads made no write-permission request (RdBlkM)")
cpu_atomics = sum(x for k, x in s.items() if re.fullmatch(r"apu\.core\d+\.atomics", k))
if w == "chai_tq":
    m = re.search(r"(\d+) tasks enqueued by 8 CPU threads.*?(\d+) dequeued by (\d+) GPU", note)
    if not m or m.group(1) != m.group(2) or int(m.group(1)) != 256 + int(m.group(3)):
        bad.append("tasks enqueued and dequeued: %s" % note)
    else:
        # a dequeue: reads of consumed, written and in_queue, the decrement, consumed + 1
        if txn("Atomic") < 5 * int(m.group(2)):
            bad.append("%s SLC atomics for %s dequeues" % (txn("Atomic"), m.group(2)))
    if txn("WT") <= 0:
        bad.append("no GPU write-through of the tasks' results")
if w == "chai_hsti" and (txn("Atomic") < 16 * 256 or v("apu.tcc0.atomics.dir") <= 0):
    bad.append("%s atomics at the directory, 16 work-groups merge 256 bins each" % txn("Atomic"))
if w == "chai_hsti" and cpu_atomics != 8 * 256:
    bad.append("%s CPU locked adds, 8 threads merge 256 bins each" % cpu_atomics)
if w == "chai_hsto" and (txn("WT") <= 0 or txn("RdBlk") < 4096 * 4 // 64):
    bad.append("WT %s, RdBlk %s: the GPU read the image and wrote its bins through"
               % (txn("WT"), txn("RdBlk")))
if w == "chai_rscd":
    m = re.search(r"(\d+) candidates", note)
    if not m or txn("Atomic") <= 0 or cpu_atomics <= 0 or \
            txn("Atomic") + cpu_atomics != int(m.group(1)):
        bad.append("SLC atomics %s + CPU locked adds %s, %s" % (txn("Atomic"), cpu_atomics, note))
if w == "chai_rsct" and (cpu_atomics != 64 or txn("Atomic") < 64):
    bad.append("CPU flag adds %s (64 models), GPU flag polls at the directory %s"
               % (cpu_atomics, txn("Atomic")))
if a["result"] != b["result"] or a["stats"] != b["stats"]:
    bad.append("two runs with the same seed differ")
if c["stats"].get("apu.coherence_check.violations", -1) != 0:
    bad.append("coherence checker: %s violations" % c["stats"].get("apu.coherence_check.violations"))
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done

run chai_tq.small -w chai_tq --set workload.size=small

exit $((fails > 0))
