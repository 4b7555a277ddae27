#!/usr/bin/env bash
# tests/cli/determinism.sh BINARY SOURCE_DIR
#
# Same inputs and seed give the same results, bit for bit: two runs give the same JSON (all but
# the "host" timing object) and byte-identical CSV. Another seed gives another memtest memory
# digest (the traffic pattern depends on the seed). The binary-heap event queue, the oracle of
# the timing wheel, gives the same results and statistics.
. "$(dirname "$0")/lib.bash" "$@"

run() { # run NAME ARGS...: writes NAME.json and NAME.csv
	local name=$1 rc
	shift
	timeout 20 "$BIN" run -c "$DEF" "${SMALL[@]}" -q -o "$name.json" --csv "$name.csv" "$@" \
		2>"$name.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$name.json" ] || [ ! -s "$name.csv" ]; then
		fail "run $name: status $rc"
		sed 's/^/  stderr: /' "$name.err"
		return 1
	fi
}

# jsoncmp A B same|differ KEY...: compare the named top-level members (all but "host" if none)
jsoncmp() {
	python3 - "$@" <<'EOF'
import json, sys
a, b, want, keys = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
ja, jb = json.load(open(a)), json.load(open(b))
if not keys:
    keys = sorted((set(ja) | set(jb)) - {"host"})
if "host" not in ja or "host" not in jb:
    print("  no 'host' object in the output")
    sys.exit(1)
diff = [k for k in keys if k not in ja or k not in jb or ja[k] != jb[k]]
if want == "same" and diff:
    print("  differ in: " + ", ".join(diff))
    for k in diff:
        print("  %s: %s" % (a, json.dumps(ja.get(k))[:300]))
        print("  %s: %s" % (b, json.dumps(jb.get(k))[:300]))
    sys.exit(1)
if want == "differ" and len(diff) != len(keys):
    print("  the same: " + ", ".join(k for k in keys if k not in diff))
    sys.exit(1)
EOF
}

# measured FILE CHECK: the "measured" value of a self-check in the result
measured() {
	python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["result"]["checks"]:
    if c["check"] == sys.argv[2]:
        print(c["measured"])
' "$1" "$2"
}

run a || exit 1
run b || exit 1
run seed2 --set sim.seed=2 || exit 1
run heap --set sim.queue=heap || exit 1

if jsoncmp a.json b.json same; then
	echo "ok   same seed: identical JSON apart from host"
else
	fail "same seed: JSON differs"
fi
if cmp -s a.csv b.csv; then
	echo "ok   same seed: byte-identical CSV ($(wc -l <a.csv) lines)"
else
	fail "same seed: CSV differs"
	diff a.csv b.csv | head -n 10
fi

if jsoncmp a.json seed2.json differ result; then
	echo "ok   seed 2: result differs"
else
	fail "seed 2: result is the same as seed 1"
fi
d1=$(measured a.json "memtest at/lt memory equal")
d2=$(measured seed2.json "memtest at/lt memory equal")
if [ -n "$d1" ] && [ -n "$d2" ] && [ "$d1" != "$d2" ]; then
	echo "ok   seed 2: memory digest $d2 != $d1"
else
	fail "seed 2: memory digest '$d2' vs seed 1 '$d1' (expected two different digests)"
fi

if jsoncmp a.json heap.json same result stats; then
	echo "ok   heap queue: same result and stats as the wheel"
else
	fail "heap queue: result or stats differ from the wheel"
fi
t1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"]["sim_time_ps"])' a.json)
t2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"]["sim_time_ps"])' heap.json)
if [ "$t1" = "$t2" ]; then
	echo "ok   heap queue: same simulated time ($t1 ps)"
else
	fail "heap queue: simulated time $t2 ps, wheel $t1 ps"
fi

[ "$fails" -eq 0 ] && echo "all passed"
[ "$fails" -eq 0 ]
