#!/usr/bin/env bash
# tests/cli/cacti_table.sh BINARY SOURCE_DIR
#
# The compiled CACTI table (analytic/cacti_table.c) is what scripts/cacti-table.sh makes of
# the committed CACTI output (analytic/cacti/cacti-table.csv), byte for byte: nobody edited
# either alone. And the script refuses a missing file with one line.
. "$(dirname "$0")/lib.bash" "$@"

sh "$SRC/scripts/cacti-table.sh" "$SRC/analytic/cacti/cacti-table.csv" >table.c 2>err ||
	fail "cacti-table.sh failed: $(cat err)"
cmp -s table.c "$SRC/analytic/cacti_table.c" ||
	fail "analytic/cacti_table.c is not scripts/cacti-table.sh's output of the CSV: $(diff table.c "$SRC/analytic/cacti_table.c" | head -5)"
n=$(grep -c '^	{' table.c)
[ "$n" -gt 2000 ] || fail "only $n rows in the C table"
if sh "$SRC/scripts/cacti-table.sh" nosuch.csv >out 2>err; then
	fail "a missing CSV was accepted"
fi
[ "$(wc -l <err)" -eq 1 ] && grep -q "nosuch.csv" err || fail "missing CSV: $(cat err)"
exit $fails
