#!/usr/bin/env bash
# tests/cli/apu.sh BINARY SOURCE_DIR
#
# System apu (configs/apu-2200g.cfg: seed 002's APU, 8 CPU cores in MOESI CorePairs, 8 CUs with
# VIPER TCPs, a TCC, a DMA engine, the stateless directory with its victim LLC, DDR4):
# - hetero_prodcons, hetero_histo and hetero_dma verify at tiny and small (values checked by
#   the CPU threads, the GPU warps and the host);
# - the sharing really crossed the devices: the GPU's system-scope atomics and write-throughs
#   reached the directory, its probes reached the CorePairs and the TCC, the DMA engine read
#   and wrote every line of its copies; probes and acks balance; kernels were launched by the
#   CPU threads;
# - the same seed gives the same result and statistics;
# - hybrid and analytic modes run all three (LT faces of the controllers, device requests in
#   every face), verify and report an interval;
# - bad set-ups are one error line, a non-zero exit and no output file.
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/apu-2200g.cfg
for w in hetero_prodcons hetero_histo hetero_dma; do
	for sz in tiny small; do
		for i in 1 2; do
			[ $sz = small ] && [ $i = 2 ] && continue
			timeout 300 "$BIN" run -c "$C" -w $w --set workload.size=$sz \
				-o $w.$sz.$i.json >$w.$sz.$i.txt 2>&1 ||
				fail "$w $sz: exit $?: $(tail -1 $w.$sz.$i.txt)"
			grep -q "verified" $w.$sz.$i.txt || fail "$w $sz: not verified"
		done
	done
	python3 - $w.tiny.1.json $w.tiny.2.json $w.small.1.json $w <<'PY' || fail "$w: $(cat err.txt)"
import json, sys
from clistats import getter
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
w = sys.argv[4]
bad = []
s = c["stats"]
v = getter(s, bad)
if v("apu.gpu.kernels") != 1:
    bad.append("kernels %s, the CPU launched 1" % v("apu.gpu.kernels"))
probes = v("apu.dir.probes.inv") + v("apu.dir.probes.downgrade")
if probes <= 0:
    bad.append("no probes")
if v("apu.dir.probe_acks") != probes:
    bad.append("probes %s, acks %s" % (probes, v("apu.dir.probe_acks")))
if v("apu.tcc0.probes") <= 0:
    bad.append("the TCC was never probed")
if w == "hetero_prodcons":
    # the GPU's flags and acks are SLC atomics at the directory; its results write through
    if v("apu.tcc0.atomics.dir") <= 0 or v("apu.dir.txn.Atomic") <= 0:
        bad.append("no system-scope atomic reached the directory")
    if v("apu.dir.txn.WT") <= 0:
        bad.append("no GPU write-through reached the directory")
    if v("apu.dir.txn.RdBlk") <= 0 or v("apu.dir.txn.RdBlkM") <= 0:
        bad.append("the CorePairs made no read or write-permission request")
if w == "hetero_histo" and v("apu.dir.txn.Atomic") < 8192:
    bad.append("%s atomics at the directory, the GPU made 8192" % v("apu.dir.txn.Atomic"))
if w == "hetero_dma":
    lines = 8192 * 4 // 64
    if v("apu.dma.lines_read") != 2 * lines or v("apu.dma.lines_written") != 2 * lines:
        bad.append("DMA lines read %s, written %s; two copies of %d lines" %
                   (v("apu.dma.lines_read"), v("apu.dma.lines_written"), lines))
    if v("apu.gpu.dma_bytes") != 2 * 8192 * 4:
        bad.append("DMA bytes %s" % v("apu.gpu.dma_bytes"))
if a["result"] != b["result"] or a["stats"] != b["stats"]:
    bad.append("two runs with the same seed differ")
open("err.txt", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
PY
done

# hybrid and analytic: the CPU cores and the SMs are the sampler's initiators, the APU's
# controllers run their LT face; device requests (launch, wait, DMA) answer in every face; every
# workload verifies and the report gives an interval; the same seed gives the same result
for m in hybrid analytic; do
	for w in hetero_prodcons hetero_histo hetero_dma; do
		for i in 1 2; do
			timeout 300 "$BIN" run -c "$C" -w $w --set workload.size=tiny --mode $m \
				-o $w.$m.$i.json >$w.$m.$i.txt 2>&1 ||
				fail "$w $m: exit $?: $(tail -1 $w.$m.$i.txt)"
		done
		grep -q "verified" $w.$m.1.txt || fail "$w $m: not verified"
		grep -Eq "cycles +[0-9.]+ \+- [0-9.]+ .*; $m\)" $w.$m.1.txt ||
			fail "$w $m: no interval in the report"
		python3 - $w.$m.1.json $w.$m.2.json <<'PY' || fail "$w $m: two runs with the same seed differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["result"] == b["result"] and a["stats"] == b["stats"] else 1)
PY
	done
done

# bad set-ups: one line naming the key, a non-zero exit, no output file
expect_error() { # name expected-text args...
	local name=$1 text=$2
	shift 2
	"$BIN" run -c "$C" -w hetero_histo --set workload.size=tiny -o bad.json "$@" \
		>bad.out 2>bad.err
	local rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q "$text" bad.err ||
		{ fail "$name: status $rc: $(cat bad.err)"; }
	[ ! -e bad.json ] || fail "$name: wrote bad.json"
	rm -f bad.json
}
expect_error "ideal memory" "cpus.memory" --set cpus.memory=ideal
expect_error "cpu workload on apu" "runs on system" -w cpu_mp
"$BIN" run -c "$SRC/configs/cpu-apu.cfg" -w hetero_histo -o bad.json >bad.out 2>bad.err
[ $? -ne 0 ] && [ "$(wc -l <bad.err)" -eq 1 ] || fail "hetero workload on system cpu: $(cat bad.err)"

exit $((fails > 0))
