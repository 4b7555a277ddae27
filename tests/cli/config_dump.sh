#!/usr/bin/env bash
# tests/cli/config_dump.sh BINARY SOURCE_DIR
#
# `cohscope config --dump` round-trips: the dump loads back to the same values (dumping it again
# gives the same text apart from the first comment line, which names the source), and running the
# dump gives the same results as running the original configuration with the same overrides.
# The dump has every section the selfcheck system uses and a help comment before each parameter.
. "$(dirname "$0")/lib.bash" "$@"

SETS=(--set memory.latency_ns=33 --set sim.seed=9)

# dump OUT ARGS...: cohscope config ARGS --dump > OUT, status 0 and nothing on stderr
dump() {
	local out=$1 rc
	shift
	timeout 20 "$BIN" config "$@" --dump >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$out.err" ] || [ ! -s "$out" ]; then
		fail "config $* --dump: status $rc"
		sed 's/^/  stderr: /' "$out.err"
		return 1
	fi
}

# same_but_first A B: identical from the second line on, first lines both comments
same_but_first() {
	if ! diff <(tail -n +2 "$1") <(tail -n +2 "$2") >"$1.diff"; then
		fail "$2 differs from $1 beyond the first line:"
		head -n 20 "$1.diff"
		return 1
	fi
	if [ "$(head -c 1 "$1")" != "#" ] || [ "$(head -c 1 "$2")" != "#" ]; then
		fail "$1 or $2 does not start with a comment line"
		return 1
	fi
}

# ---- dump, reload, dump again ---------------------------------------------------------------------

dump d1.cfg -c "$DEF" "${SETS[@]}" || exit 1
dump d2.cfg -c d1.cfg || exit 1
same_but_first d1.cfg d2.cfg && echo "ok   dump of the dump is the same"
grep -q "^# .*selfcheck\.cfg" d1.cfg || fail "d1.cfg: first line does not name selfcheck.cfg"
grep -q '^# .*d1\.cfg' d2.cfg || fail "d2.cfg: first line does not name d1.cfg"
grep -q '^  latency_ns = 33;$' d1.cfg || fail "d1.cfg: memory.latency_ns = 33 missing"
grep -q '^  seed = 9;$' d1.cfg || fail "d1.cfg: sim.seed = 9 missing"

# Every section of the selfcheck system, every parameter present and explained.
for s in sim system pingpong memory traffic; do
	grep -q "^$s = {\$" d1.cfg || fail "d1.cfg: no section '$s'"
done
for k in seed queue quantum_ns stack_kib type workload mode procs end_ns latency_ns accept_ns \
	size_kib ports initiators iterations bytes region_kib; do
	grep -q "^  $k = " d1.cfg || fail "d1.cfg: no parameter '$k'"
done
nohelp=$(awk '/^  [a-z_0-9]+ = / { if (prev !~ /^  # [^ ]/) print FNR ": " $0 } { prev = $0 }' d1.cfg)
if [ -n "$nohelp" ]; then
	fail "d1.cfg: parameters without a '# help' line before them:"
	echo "$nohelp" | head -n 10
else
	echo "ok   every section present, every parameter ($(grep -c '^  [a-z_0-9]* = ' d1.cfg)) has a help line"
fi

# ---- running the dump gives the results of the original ------------------------------------------

timeout 20 "$BIN" run -c d1.cfg "${SMALL[@]}" -q -o r1.json 2>r1.err
rc1=$?
timeout 20 "$BIN" run -c "$DEF" "${SETS[@]}" "${SMALL[@]}" -q -o r2.json 2>r2.err
rc2=$?
if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then
	fail "run of d1.cfg: status $rc1, of selfcheck.cfg with the same --set: status $rc2"
	cat r1.err r2.err
elif python3 - r1.json r2.json <<'EOF'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
bad = [k for k in ("result", "stats", "kernel") if a.get(k) != b.get(k)]
if a["cohscope"]["seed"] != 9 or b["cohscope"]["seed"] != 9:
    bad.append("seed")
if bad:
    print("  differ: " + ", ".join(bad))
sys.exit(1 if bad else 0)
EOF
	echo "ok   run of the dump: same result, stats and kernel counts as the original"
else
	fail "run of the dump differs from the original"
fi

# ---- more round trips: defaults, 64-bit and enum values, a workload with fewer sections ------------

dump e1.cfg || exit 1
dump e2.cfg -c e1.cfg || exit 1
same_but_first e1.cfg e2.cfg && echo "ok   defaults round-trip"
grep -q '^# .*defaults' e1.cfg || fail "e1.cfg: first line does not say defaults"

for seed in 2147483648 18446744073709551615; do
	dump f1.cfg -c "$DEF" --set sim.seed=$seed --set sim.queue=heap --set traffic.mode=lt \
		--set system.mode=detailed || continue
	dump f2.cfg -c f1.cfg || continue
	same_but_first f1.cfg f2.cfg || continue
	got=$(python3 -c '
import re, sys
m = re.search(r"^  seed = (\S+);$", open(sys.argv[1]).read(), re.M)
v = m.group(1).rstrip("L")
print(int(v, 16) if v.lower().startswith("0x") else int(v))' f2.cfg)
	if [ "$got" = "$seed" ] && grep -q '^  queue = "heap";$' f2.cfg && grep -q '^  mode = "lt";$' f2.cfg; then
		echo "ok   seed $seed, queue heap, traffic.mode lt round-trip"
	else
		fail "seed $seed round-trip: reloaded seed '$got'"
	fi
done

# Every section of the system is loaded (and checked) whichever workload runs, so one
# configuration serves all its workloads and the dump names all its sections.
dump g1.cfg --set system.workload=pingpong --set pingpong.procs=8 || exit 1
dump g2.cfg -c g1.cfg || exit 1
same_but_first g1.cfg g2.cfg && echo "ok   workload pingpong round-trips"
if grep -q '^memory = {' g1.cfg && grep -q '^traffic = {' g1.cfg && grep -q '^pingpong = {' g1.cfg; then
	echo "ok   workload pingpong: every section of the system in the dump"
else
	fail "g1.cfg: a section of the system is missing"
fi

[ "$fails" -eq 0 ] && echo "all passed"
[ "$fails" -eq 0 ]
