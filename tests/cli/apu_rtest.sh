#!/usr/bin/env bash
# tests/cli/apu_rtest.sh BINARY SOURCE_DIR
#
# hetero_rtest, the APU's random tester (CPU threads and GPU warps on hot and conflicting
# lines), with the coherence checker on (gpu.check = true) on configs/apu-2200g.cfg, under the
# GPU side's variants: write-through (default), tcp.write = back, tcc.write = back,
# tcc.glc_atomic_at = dir, llc.use_on_wt = true (and seed 002's enhancement B and B.1,
# dir.clean_victims = llc and none, at small and stressed; enhancement C, llc.write_back, at
# small, stressed with a 4-KiB LLC, and hybrid; owner and sharer tracking with a small
# directory cache, a limited-pointer list, the TCC in every invalidation, early response, all
# together); at tiny and small, seeds 1 and 2, at default
# seed 3 (it found a TCP bug under tcp.write = back), and at small
# with caches shrunk so that the conflict lines evict each other everywhere (TCP, TCC, L1D,
# L2) and MSHRs and TBEs run out. Each run must pass: exit 0, the workload's "verified" note,
# zero checker violations, loads of both kinds checked (CPU and GPU reads > 0), and the run
# really crossed the devices (GPU write-throughs and system-scope atomics at the directory,
# CorePair victims). The same seed gives the same result and statistics. That the checker can
# fail is shown by test_apu_corepair (an out-of-order read fed to it after a real run).
. "$(dirname "$0")/lib.bash" "$@"

C=$SRC/configs/apu-2200g.cfg
STRESS=(--set tcp.size_kib=1 --set tcp.assoc=2 --set tcp.mshrs=4 --set tcp.mshr_merge=4
	--set tcc.size_kib=1 --set tcc.assoc=2 --set tcc.mshrs=4 --set tcc.mshr_merge=4
	--set corepair.l1d_kib=1 --set corepair.l1d_assoc=2 --set corepair.l2_kib=2
	--set corepair.l2_assoc=2 --set corepair.tbes=4)
variants=("wt" "tcp.write=back" "tcc.write=back" "tcc.glc_atomic_at=dir" "llc.use_on_wt=true")

check() { # name json
	python3 - "$2" "$1" <<'PY' || fail "$1: $(cat err.txt)"
import json, sys
from clistats import getter
j = json.load(open(sys.argv[1]))
s, r = j["stats"], j["result"]
bad = []
v = getter(s, bad)
if v("apu.coherence_check.violations") != 0:
    bad.append("%s violations, first: %s" % (v("apu.coherence_check.violations"),
                                             r.get("coherence_first")))
if v("apu.coherence_check.cpu_reads") <= 0:
    bad.append("no CPU read checked")
if v("apu.coherence_check.gpu_reads") <= 0:
    bad.append("no GPU load checked")
if not any("verified" in n for n in r["notes"]):
    bad.append("no 'verified' note")
if v("apu.dir.txn.WT") + v("apu.dir.txn.Flush") <= 0:
    bad.append("no GPU write reached the directory")
if v("apu.dir.txn.Atomic") <= 0:
    bad.append("no system-scope atomic at the directory")
if v("apu.dir.vic_clean") + v("apu.dir.vic_dirty") <= 0:
    bad.append("no CorePair victim")
open("err.txt", "w").write("; ".join(bad))
print("ok %s: %d CPU + %d GPU reads checked, 0 violations" %
      (sys.argv[2], v("apu.coherence_check.cpu_reads"), v("apu.coherence_check.gpu_reads")))
sys.exit(1 if bad else 0)
PY
}

one() { # name args...
	local n=$1
	shift
	timeout 120 "$BIN" run -c "$C" -w hetero_rtest --set gpu.check=true -o "$n.json" "$@" \
		>"$n.txt" 2>"$n.err" || {
		fail "$n: exit $?: $(tail -2 "$n.err")"
		return
	}
	check "$n" "$n.json"
}

for v in "${variants[@]}"; do
	set=()
	[ "$v" = wt ] || set=(--set "$v")
	for sz in tiny small; do
		for seed in 1 2; do
			one "$v.$sz.$seed" "${set[@]}" --set workload.size=$sz --set sim.seed=$seed
		done
	done
	one "$v.stress" "${set[@]}" "${STRESS[@]}" --set workload.size=small --set sim.seed=3
	# default size, seed 3: under tcp.write = back a warp read a value older than its own
	# store before the TCP flushed its dirty bytes ahead of a load miss
	one "$v.default.3" "${set[@]}" --set workload.size=default --set sim.seed=3
done

# seed 002's enhancement B and B.1 (dir.clean_victims = llc, none): clean victims kept out of
# memory, or out of memory and the LLC; clean under the checker too, with evictions everywhere
for cv in llc none; do
	one "clean_victims=$cv.small" --set dir.clean_victims=$cv --set workload.size=small \
		--set sim.seed=1
	one "clean_victims=$cv.stress" --set dir.clean_victims=$cv "${STRESS[@]}" \
		--set workload.size=small --set sim.seed=3
done

# seed 002's enhancement C (llc.write_back, with llc.use_on_wt as it requires): dirty lines in
# the LLC only; with a 4-KiB LLC they are evicted and written back all the time
WB=(--set llc.write_back=true --set llc.use_on_wt=true)
one "write_back.small" "${WB[@]}" --set workload.size=small --set sim.seed=1
one "write_back.stress" "${WB[@]}" "${STRESS[@]}" --set llc.size_kib=4 --set llc.assoc=2 \
	--set workload.size=small --set sim.seed=3
one "write_back.hybrid" "${WB[@]}" --set workload.size=small --set sim.seed=1 --mode hybrid

# seed 002's owner and sharer tracking (dir.tracking), a limited-pointer list, and early
# response (A), at small and stressed; with a directory cache of 64 entries in 4 ways, so that
# entries are evicted and their holders back-invalidated all the time (it found a woken request
# parking again behind younger ones of its line, apu_port_park); that one in hybrid mode too,
# with the stressed caches (back-invalidations alone would empty the 1-MB L2s before they evict)
TINY_DIR=(--set dir.entries=64 --set dir.entry_assoc=4)
for tr in owner sharers; do
	one "tracking=$tr.small" --set dir.tracking=$tr --set workload.size=small --set sim.seed=1
	one "tracking=$tr.stress" --set dir.tracking=$tr "${STRESS[@]}" "${TINY_DIR[@]}" \
		--set workload.size=small --set sim.seed=3
	one "tracking=$tr.hybrid" --set dir.tracking=$tr "${STRESS[@]}" "${TINY_DIR[@]}" \
		--set workload.size=small --set sim.seed=1 --mode hybrid
done
one "pointers.stress" --set dir.tracking=sharers --set dir.sharer_pointers=1 "${STRESS[@]}" \
	"${TINY_DIR[@]}" --set workload.size=small --set sim.seed=3
one "early.small" --set dir.early_response=true --set workload.size=small --set sim.seed=1
one "tcc_always.stress" --set dir.tracking=sharers --set dir.tcc_inv_always=true "${STRESS[@]}" \
	"${TINY_DIR[@]}" --set workload.size=small --set sim.seed=3
one "all.stress" --set dir.tracking=sharers --set dir.early_response=true "${WB[@]}" \
	--set dir.clean_victims=none "${STRESS[@]}" "${TINY_DIR[@]}" --set llc.size_kib=4 \
	--set llc.assoc=2 --set workload.size=small --set sim.seed=3

# hybrid and analytic (the controllers' LT face, the SMs' and cores' LT face): every variant
# checked clean at small; under tcp.write = back a release fence the TCP finished later
# (GPU_FENCE_PENDING) left its warp waiting forever in the LT face before the SM handled it
for v in "${variants[@]}"; do
	set=()
	[ "$v" = wt ] || set=(--set "$v")
	for m in hybrid analytic; do
		one "$v.$m" "${set[@]}" --set workload.size=small --set sim.seed=1 --mode $m
	done
done

# the same seed, the same run
one "again" --set workload.size=small --set sim.seed=1
python3 - wt.small.1.json again.json <<'PY' || fail "determinism: two runs with the same seed differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a["result"] == b["result"] and a["stats"] == b["stats"] else 1)
PY

exit $((fails > 0))
