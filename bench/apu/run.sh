#!/usr/bin/env bash
# Detailed-mode speed of the APU model (system apu, configs/apu-2200g.cfg) beside the CPU side
# alone (configs/cpu-apu.cfg) and the GPU-only system (configs/gtsc-16sm.cfg), in one run:
# network messages per host second (every one-way message the APU's network carried: requests,
# probes, responses, unblocks; on the GPU system the NoC's packets), CPU instructions per host
# second (ops the CPU threads posted), GPU warp memory instructions per host second, kernel
# events per host second, and the simulated time. docs/performance.md records the figures.
# Usage: bench/apu/run.sh BUILD_DIR [SIZE]   (SIZE: tiny, small or default; default: default)
set -euo pipefail
build=${1:?usage: bench/apu/run.sh BUILD_DIR [SIZE]}
size=${2:-default}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "size $size, mode detailed, REPEAT=${REPEAT:-3} (median host time)"
printf "%-16s %-12s %9s %11s %10s %10s %10s %10s %9s %11s %11s %11s\n" workload config "sim us" \
	"messages" "CPU insts" "GPU memops" "events" "host s" "msgs/s" "CPU inst/s" \
	"GPU ops/s" "events/s"
run() { # config workload
	local cfg=$1 w=$2 i
	for i in $(seq "${REPEAT:-3}"); do
		"$build/cohscope" run -c "$src/configs/$cfg.cfg" -w "$w" --set workload.size="$size" \
			-q -o "$tmp/r$i.json" >/dev/null
	done
	python3 - "$cfg" "$w" "$tmp"/r*.json <<'PY'
import json, sys
cfg, w, files = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = [json.load(open(f)) for f in files]
d = runs[0]
s, k = d["stats"], d["kernel"]
wall = sorted(r["host"]["wall_s"] for r in runs)[len(runs) // 2]
def total(prefix, suffix):
    return sum(v for n, v in s.items() if n.startswith(prefix) and n.endswith(suffix)
               and n.count(".") == prefix.count(".") + suffix.count("."))
root = "apu" if cfg.startswith("apu") else "cpu" if cfg.startswith("cpu") else "gpu"
msgs = s.get(root + ".net.packets", s.get("gpu.noc.packets", 0))
cpu = total(root + ".core", ".insts") if root != "gpu" else 0
gpu = total(root + ".sm", ".mem_insts") if root != "cpu" else 0
ev = k.get("activations", 0)
print("%-16s %-12s %9.1f %11.0f %10.0f %10.0f %10.0f %10.3f %9.2fM %10.2fM %10.2fM %10.2fM" % (
    w, cfg, k["sim_time_ps"] / 1e6, msgs, cpu, gpu, ev, wall, msgs / wall / 1e6,
    cpu / wall / 1e6, gpu / wall / 1e6, ev / wall / 1e6))
PY
	rm -f "$tmp"/r*.json
}
for w in hetero_prodcons hetero_histo hetero_dma; do
	run apu-2200g $w
done
for w in cpu_count cpu_mp; do
	run cpu-apu $w
done
for w in stream chase_l2; do
	run gtsc-16sm $w
done
