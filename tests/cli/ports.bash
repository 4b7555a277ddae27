# tests/cli/ports.bash - sourced by tests/cli/ports_SUITE.sh after lib.bash: ports_check SUITE
# NAME... checks a suite's ports (issue 39) at tiny on configs/default.cfg:
# - `list workloads` shows exactly NAME... under the suite's heading (besides the G-TSC suite's
#   members of that suite, which tests/cli/suite.sh covers);
# - every port verifies under none (no L1), noncoherent (W/L1) and gtsc, in detailed and hybrid
#   mode (`cohscope suite SUITE -w NAME,...`: one process per protocol and mode);
# - with workload.corrupt = true and workload.check = full every port fails its check (exit 1,
#   its row names it and says what differs).
ports_check() {
	local suite=$1 p m list got
	shift
	list=$(
		IFS=,
		echo "$*"
	)
	"$BIN" list workloads >list.out || fail "list workloads: status $?"
	got=$(awk -v h="workloads of suite $suite " '
		/^workloads/ { on = index($0, h) == 1; next }
		on && !/suite set/ { print $1 }' list.out | tr '\n' ' ')
	[ "$got" = "$* " ] || fail "list: suite $suite shows '$got', expected '$* '"
	for p in none noncoherent gtsc; do
		for m in detailed hybrid; do
			timeout 900 "$BIN" suite "$suite" -c "$SRC/configs/default.cfg" -w "$list" -q \
				--set workload.size=tiny --set coherence.protocol=$p \
				--set system.mode=$m -o "$p-$m.json" 2>"$p-$m.err"
			[ $? -eq 0 ] || fail "$suite $p $m: $(python3 -c "
import json, sys
print('; '.join(r['benchmark'] + ': ' + r.get('error', '?') for r in json.load(open(sys.argv[1]))
                if not r['verified']))" "$p-$m.json" 2>/dev/null || cat "$p-$m.err")"
		done
	done
	timeout 900 "$BIN" suite "$suite" -c "$SRC/configs/default.cfg" -w "$list" -q \
		--set workload.size=tiny --set workload.check=full --set workload.corrupt=true \
		-o corrupt.json 2>corrupt.err
	[ $? -eq 1 ] || fail "$suite corrupted: status not 1"
	python3 - corrupt.json "$@" <<'PY' || fail "$suite corrupted: a check did not fail"
import json, sys
rows = {r['benchmark']: r for r in json.load(open(sys.argv[1]))}
bad = [n for n in sys.argv[2:]
       if n not in rows or rows[n]['verified'] or ' ' + n + ': ' not in ' ' + rows[n].get('error', '')]
for n in bad:
    print('  %s: %s' % (n, rows.get(n, {}).get('error', 'verified')))
sys.exit(1 if bad else 0)
PY
}
