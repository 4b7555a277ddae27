#!/usr/bin/env bash
# Runs every Check suite, a small default job and small CPU jobs under valgrind memcheck: any
# error or leak fails. CK_FORK=no keeps each suite in one process so valgrind sees everything.
# Usage: scripts/valgrind-tests.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: scripts/valgrind-tests.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect)
status=0
for t in "$build"/test_*; do
	[ -x "$t" ] || continue
	echo "valgrind: $(basename "$t")"
	if ! CK_FORK=no COHSCOPE_VALGRIND=1 "${vg[@]}" "$t" >/tmp/valgrind.$$.log 2>&1; then
		tail -40 /tmp/valgrind.$$.log
		status=1
	else
		grep -E "Checks:" /tmp/valgrind.$$.log || true
	fi
done
# vg_run ARGS...: cohscope ARGS under valgrind; on an error or leak its log's tail, and a failure
vg_run() {
	if ! "${vg[@]}" "$build/cohscope" "$@" >/tmp/valgrind.$$.log 2>&1; then
		tail -40 /tmp/valgrind.$$.log
		status=1
	fi
}
echo "valgrind: cohscope run (small self-check, tiny default GPU job)"
vg_run run -c "$src/configs/selfcheck.cfg" -q \
	--set pingpong.procs=64 --set pingpong.end_ns=2000 --set traffic.iterations=500
vg_run run -c "$src/configs/default.cfg" -q --set workload.size=tiny
echo "valgrind: cohscope run (CPU cores, cpu_mp, detailed and hybrid) and litmus (X86 tests on CPU cores)"
vg_run run -c "$src/configs/cpu-tso.cfg" -w cpu_mp -q
vg_run run -c "$src/configs/cpu-tso.cfg" -w cpu_mp -q --mode hybrid \
	--set sampling.head=0 --set sampling.unit=500 --set sampling.period=1500
vg_run litmus "$src"/tests/litmus/upstream/x86/*.litmus -c "$src/configs/cpu-tso.cfg" \
	--iterations 100 -q
echo "valgrind: cohscope run and litmus on the APU memory side (MOESI CorePairs, directory, DDR4)"
vg_run run -c "$src/configs/cpu-apu.cfg" -w cpu_mp -q
vg_run litmus "$src"/tests/litmus/upstream/x86/*.litmus -c "$src/configs/cpu-apu.cfg" \
	--iterations 50 -q
echo "valgrind: the whole APU (system apu: CPU threads, GPU warps, DMA), detailed and hybrid"
vg_run run -c "$src/configs/apu-2200g.cfg" -w hetero_dma -q --set workload.size=tiny
vg_run run -c "$src/configs/apu-2200g.cfg" -w hetero_prodcons -q --set workload.size=tiny \
	--mode hybrid
echo "valgrind: the APU as gem5's tree of crossbars (bridges between three networks)"
vg_run run -c "$src/configs/apu-2200g-tree.cfg" -w hetero_prodcons -q --set workload.size=tiny
echo "valgrind: seed 002's tracked directory (a 64-entry directory cache: evictions) and a CHAI workload"
vg_run run -c "$src/configs/apu-2200g.cfg" -w chai_tq -q --set workload.size=tiny \
	--set dir.tracking=sharers --set dir.entries=64 --set dir.entry_assoc=4 \
	--set dir.early_response=true --set dir.tcc_inv_always=true
echo "valgrind: cohscope study hsc on one workload at tiny (the runner, summary and figures; the"
echo "          points and gnuplot run as child processes, outside valgrind)"
study_dir=$(mktemp -d)
vg_run study hsc --size tiny --mode detailed -w tq --jobs 2 -o "$study_dir/s" -q
rm -rf "$study_dir"
echo "valgrind: cohscope litmus --agents (CPU and GPU threads on the whole APU)"
vg_run litmus "$src"/tests/litmus/mixed/*.litmus -c "$src/configs/apu-2200g.cfg" \
	--agents cpu,gpu --iterations 20 -q
rm -f /tmp/valgrind.$$.log
[ "$status" -eq 0 ] && echo "valgrind: clean"
exit "$status"
