#!/usr/bin/env bash
# tests/cli/cpu_apu.sh BINARY SOURCE_DIR
#
# System cpu on seed 002's APU memory side (configs/cpu-apu.cfg: 8 cores in 4 MOESI CorePairs,
# the stateless directory with its victim LLC, two DDR4 channels; docs/apu.md): cpu_count
# (locked adds from every core on one line: write permission only) and cpu_mp (one writer, seven readers spinning on
# a flag) verify; the caches really carry the sharing (the directory opened read and write
# transactions and sent probes, the CorePairs answered them); every transaction and message
# was finished (the run ends idle); the same seed gives the same result and statistics; and
# the same in hybrid and analytic mode (the controllers' LT face).
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/cpu-apu.cfg
for w in cpu_count cpu_mp; do
	for i in 1 2; do
		timeout 120 "$BIN" run -c "$C" -w $w -o $w.$i.json >$w.$i.txt 2>&1 ||
			fail "$w: exit $?: $(tail -1 $w.$i.txt)"
	done
	grep -q "verified" $w.1.txt || fail "$w: not verified"
	python3 - $w.1.json $w.2.json $w <<'PY' || fail "$w: $(cat err.txt)"
import json, sys
from clistats import getter
a, b = (json.load(open(p)) for p in sys.argv[1:3])
w = sys.argv[3]
s = a["stats"]
bad = []
v = getter(s, bad)
if v("cpu.dir.txn.RdBlkM") <= 0:
    bad.append("no RdBlkM at the directory")
if w == "cpu_mp" and v("cpu.dir.txn.RdBlk") <= 0:  # the readers' loads (cpu_count only adds)
    bad.append("no RdBlk at the directory")
if v("cpu.dir.probes.inv") + v("cpu.dir.probes.downgrade") <= 0:
    bad.append("no probes")
if v("cpu.dir.probe_acks") != v("cpu.dir.probes.inv") + v("cpu.dir.probes.downgrade"):
    bad.append("probes %s + %s, acks %s" % (v("cpu.dir.probes.inv"),
               v("cpu.dir.probes.downgrade"), v("cpu.dir.probe_acks")))
if a["result"] != b["result"] or a["stats"] != b["stats"]:
    bad.append("two runs with the same seed differ")
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done
# the LT face (docs/apu.md §11): hybrid and analytic runs verify, every probe is acked, and
# the same seed gives the same result
for w in cpu_count cpu_mp; do
	for m in hybrid analytic; do
		for i in 1 2; do
			timeout 120 "$BIN" run -c "$C" -w $w --mode $m -o $w.$m.$i.json >$w.$m.$i.txt 2>&1 ||
				fail "$w --mode $m: exit $?: $(tail -1 $w.$m.$i.txt)"
		done
		grep -q "verified" $w.$m.1.txt || fail "$w --mode $m: not verified"
		python3 - $w.$m.1.json $w.$m.2.json <<'PY' || fail "$w --mode $m: $(cat err.txt)"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
s = a["stats"]
bad = []
if s["cpu.dir.probe_acks"] != s["cpu.dir.probes.inv"] + s["cpu.dir.probes.downgrade"]:
    bad.append("probes and acks differ")
if a["result"] != b["result"] or a["stats"] != b["stats"]:
    bad.append("two runs with the same seed differ")
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
	done
done

exit $((fails > 0))
