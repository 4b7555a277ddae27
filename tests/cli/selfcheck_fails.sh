#!/usr/bin/env bash
# tests/cli/selfcheck_fails.sh BINARY SOURCE_DIR
#
# The self-check must be able to fail. With memory.size_kib=1 the traffic initiators' regions
# (traffic.region_kib=16 each) lie mostly beyond the memory, the memory answers those accesses
# with an address error, and the check 'memtest reads == writes (at+lt)' counts them: the run
# must exit 1 with one line "cohscope: self-check '...' failed: expected ..., got ...", still
# print the summary with a FAIL row on stdout, and write no -o/--csv file.
# (If such a configuration is one day rejected at build time as bad input, this test needs
# another way to make a check fail.)
. "$(dirname "$0")/lib.bash" "$@"

# expect_check_failure NAME ARGS...
expect_check_failure() {
	local name=$1 rc line
	shift
	timeout 20 "$BIN" run -c "$DEF" "${SMALL[@]}" -o out.json --csv out.csv "$@" \
		>stdout 2>stderr
	rc=$?
	line=$(head -n 1 stderr)
	if [ "$rc" -ne 1 ]; then
		fail "$name: status $rc, expected 1"
	elif [ "$(wc -l <stderr)" -ne 1 ]; then
		fail "$name: stderr has $(wc -l <stderr) lines, expected one"
	elif ! [[ "$line" =~ ^cohscope:\ self-check\ \'[^\']+\'\ failed:\ expected\ .+,\ got\ .+$ ]]; then
		fail "$name: unexpected message"
	elif ! grep -q ' FAIL$' stdout; then
		fail "$name: no FAIL row in the summary on stdout"
	elif [ -e out.json ] || [ -e out.csv ] || compgen -G "out.*.tmp.*" >/dev/null; then
		fail "$name: an output file was written for a failed run"
	else
		echo "ok   $name: $line"
		return 0
	fi
	sed 's/^/  stderr: /' stderr
	sed 's/^/  stdout: /' stdout | head -n 12
	return 1
}

expect_check_failure "memory smaller than the traffic regions" --set memory.size_kib=1
expect_check_failure "32 initiators x 16 KiB beyond 256 KiB" --set traffic.initiators=32

# The failing check is the one that counts the error responses.
if ! grep -q "self-check 'memtest reads == writes (at+lt)' failed" stderr; then
	fail "expected the 'memtest reads == writes (at+lt)' check to fail: $(cat stderr)"
fi

# Control: the same small run within the memory passes.
timeout 20 "$BIN" run -c "$DEF" "${SMALL[@]}" -q -o ok.json >/dev/null 2>stderr
rc=$?
if [ "$rc" -ne 0 ] || [ ! -s ok.json ] || [ -s stderr ]; then
	fail "control run: status $rc"
	cat stderr
else
	echo "ok   control run passes"
fi

[ "$fails" -eq 0 ] && echo "all passed"
[ "$fails" -eq 0 ]
