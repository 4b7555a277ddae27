#!/usr/bin/env bash
# tests/cli/selfcheck_contended.sh BINARY SOURCE_DIR
#
# With 16 initiators and an accept stage of 5 ns against a 20 ns latency (16 * 5 > 20), the
# accept stage is the bottleneck: the AT finish time is no longer known exactly, and the
# self-check switches to its bound, 'memtest.at finish >= (ps)'. The run must pass with that
# check (and not the exact one) in the summary and in the JSON result.
. "$(dirname "$0")/lib.bash" "$@"

timeout 20 "$BIN" run -c "$DEF" "${SMALL[@]}" --set traffic.initiators=16 \
	--set memory.accept_ns=5 --set memory.latency_ns=20 -o out.json >stdout 2>stderr
rc=$?
if [ "$rc" -ne 0 ] || [ -s stderr ]; then
	fail "contended run: status $rc"
	cat stderr
fi
if grep -q '^memtest\.at finish >= (ps) .* pass$' stdout && ! grep -q '^memtest\.at finish (ps)' stdout; then
	echo "ok   summary: $(grep '^memtest\.at finish' stdout | tr -s ' ')"
else
	fail "summary lacks a passing 'memtest.at finish >= (ps)' row"
	cat stdout
fi
if [ -s out.json ] && python3 - out.json <<'PY'; then
import json, sys
checks = json.load(open(sys.argv[1]))["result"]["checks"]
names = [c["check"] for c in checks]
bound = [c for c in checks if c["check"] == "memtest.at finish >= (ps)"]
ok = (len(bound) == 1 and bound[0]["pass"] and "memtest.at finish (ps)" not in names
      and int(bound[0]["measured"]) >= int(bound[0]["expected"]) and all(c["pass"] for c in checks))
if not ok:
    print("  checks: %s" % json.dumps(checks))
sys.exit(0 if ok else 1)
PY
	echo "ok   JSON: bound check present and passing, every check passes"
else
	fail "JSON result"
fi

# Control: the uncontended default (4 * 2 <= 20) uses the exact check.
timeout 20 "$BIN" run -c "$DEF" "${SMALL[@]}" >stdout 2>stderr
if grep -q '^memtest\.at finish (ps) .* pass$' stdout; then
	echo "ok   uncontended run uses the exact check"
else
	fail "uncontended run: no passing 'memtest.at finish (ps)' row"
fi

[ "$fails" -eq 0 ] && echo "all passed"
[ "$fails" -eq 0 ]
