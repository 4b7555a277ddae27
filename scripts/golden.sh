#!/usr/bin/env bash
# The golden matrix for refactorings that must not change results (issue 40's builder): small
# runs of systems gpu, cpu and apu over their protocols, modes and fabric layouts, each writing
# its JSON report and its statistics as CSV into OUT_DIR. Compare two such directories with
# scripts/golden_cmp.py: a refactoring step keeps every file equal.
# Usage: scripts/golden.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:?usage: scripts/golden.sh BUILD_DIR OUT_DIR}
out=${2:?usage: scripts/golden.sh BUILD_DIR OUT_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/cohscope"
mkdir -p "$out"
status=0

# run NAME CONFIG ARGS...: one `cohscope run`; a failed run is reported and recorded
run() {
	local name=$1 cfg=$2
	shift 2
	if ! "$bin" run -c "$src/configs/$cfg" -q -o "$out/$name.json" --csv "$out/$name.csv" \
		"$@" >"$out/$name.log" 2>&1; then
		echo "golden: $name failed: $(tail -1 "$out/$name.log")" >&2
		status=1
	fi
}

# system gpu: the G-TSC set of protocols in both modes (bp: no coherence needed), the analytic
# mode, other fabrics; the G-TSC suite (set 1 needs coherence) under its default protocol
for p in none noncoherent tc-strong tc-weak gtsc; do
	for m in detailed hybrid; do
		run "gpu-bp-$p-$m" gtsc-16sm.cfg -w bp --set workload.size=tiny \
			--set coherence.protocol=$p --mode $m
	done
done
run gpu-stream-hybrid default.cfg -w stream --set workload.size=tiny
for w in hs km sgm; do
	run "gpu-$w-small-hybrid" default.cfg -w $w --set workload.size=small
done
run gpu-stream-analytic default.cfg -w stream --set workload.size=tiny --mode analytic
run gpu-stream-crossbar default.cfg -w stream --set workload.size=tiny --set noc.topology=crossbar \
	--mode detailed
run gpu-stream-bpc2 default.cfg -w stream --set workload.size=tiny --set l2.banks_per_channel=2 \
	--mode detailed
run gpu-rtest-check default.cfg -w rtest --set workload.size=tiny --set gpu.check=true \
	--mode detailed
run gpu-btree-gtx480 gtx480-15sm.cfg -w btree --set workload.size=tiny \
	--set coherence.protocol=noncoherent
for p in scoped-baseline hlrc denovo-b; do
	run "gpu-color-$p" hlrc-128cu.cfg -w color --set workload.size=tiny \
		--set coherence.protocol=$p --mode detailed
done
# system cpu: ideal ports and the APU memory side, three modes
for cfg in cpu-tso cpu-apu; do
	for w in cpu_count cpu_mp; do
		for m in detailed hybrid analytic; do
			run "$cfg-$w-$m" $cfg.cfg -w $w --mode $m
		done
	done
done
# system apu: the heterogeneous workloads, the checker, CHAI, the tree fabric and a link
for w in hetero_prodcons hetero_histo hetero_dma; do
	for m in detailed hybrid analytic; do
		run "apu-$w-$m" apu-2200g.cfg -w $w --set workload.size=tiny --mode $m
	done
done
run apu-rtest-check apu-2200g.cfg -w hetero_rtest --set workload.size=tiny --set gpu.check=true
run apu-chai_tq apu-2200g.cfg -w chai_tq --set workload.size=tiny
run apu-tree-dma apu-2200g-tree.cfg -w hetero_dma --set workload.size=tiny
run apu-shape apu-2200g.cfg -w hetero_histo --set workload.size=tiny \
	--set "fabric.groups=directory, channels, tccs, corepairs, dmas, cus" \
	--set tccs.count=2 --set channels.count=4 --set noc.topology=mesh
run apu-link apu-2200g-tree.cfg -w hetero_dma --set workload.size=tiny \
	--set "fabric.groups=corepairs, cpu_bridge, link_bridge, cus, tccs, dmas, gpu_bridge, directory, channels" \
	--set cpu_bridge.net2=pcie --set link_bridge.role=bridge --set link_bridge.net=noc \
	--set link_bridge.net2=pcie --set pcie.topology=link --set pcie.clock_mhz=1000 \
	--set pcie.flit_bytes=16 --set pcie.link_latency=100 --set pcie.buffer_flits=9
# the G-TSC suite at tiny through `cohscope suite`
if ! "$bin" suite gtsc -c "$src/configs/default.cfg" -q --set workload.size=tiny \
	-o "$out/suite-gtsc.json" >"$out/suite-gtsc.log" 2>&1; then
	echo "golden: suite-gtsc failed: $(tail -1 "$out/suite-gtsc.log")" >&2
	status=1
fi
echo "golden: $(ls "$out"/*.json | wc -l) reports in $out"
exit $status
