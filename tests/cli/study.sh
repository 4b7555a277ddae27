#!/usr/bin/env bash
# tests/cli/study.sh BINARY SOURCE_DIR
#
# cohscope study gtsc (docs/study.md), at tiny size on bfs (set 1) and hs (set 2):
# - the three sweeps' results files hold the expected points (5, 6 and 10), all ok, with the
#   study's size;
# - summary.md has every claim row of the paper, the Table 3.2 rows of bfs and hs, the lease
#   table, and no other benchmark's row;
# - its G-TSC-RC vs TC-RC speedup over bfs and its G-TSC-RC overhead over W/L1 on hs equal
#   the values recomputed from results.json;
# - the figures exist (.dat and .gp; .svg and .png when gnuplot is installed);
# - --resume on the finished study runs no point, leaves the point files untouched and
#   rewrites the same summary.md; without --resume the directory is refused;
# - usage errors (unknown study, bad option, bad -w, --size, --jobs, a --set on a key the
#   study varies, a bad --set key) are one "cohscope:" line, a non-zero status, nothing written.
. "$(dirname "$0")/lib.bash" "$@"

"$BIN" study gtsc --size tiny -w hs,bfs --jobs 2 -o S >run.out 2>run.err
st=$?
[ $st -eq 0 ] || fail "study: status $st: $(grep -v 'plot: no bar' run.err | head -3)"

# ---- the sweeps -------------------------------------------------------------------------------

for s in set1:5 set2:6 lease:10; do
	d=${s%%:*} n=${s##*:}
	[ -f "S/$d/results.csv" ] && [ -f "S/$d/results.json" ] || fail "$d: no results files"
	got=$(python3 -c "
import json, sys
p = json.load(open('S/$d/results.json'))['points']
print(len(p), sum(x['status'] == 'ok' for x in p), sorted({x['result']['size'] for x in p}))")
	[ "$got" = "$n $n ['tiny']" ] || fail "$d: points, ok, sizes = $got, expected $n $n ['tiny']"
done
[ "$(cut -d, -f4 S/set2/results.csv | tail -n +2 | tr '\n' ' ')" = \
	"BL W/L1 TC-RC TC-SC G-TSC-RC G-TSC-SC " ] ||
	fail "set2 configurations: $(cut -d, -f4 S/set2/results.csv | tr '\n' ' ')"

# ---- summary.md -------------------------------------------------------------------------------

M=S/summary.md
[ -s $M ] || fail "no summary.md"
for c in C3-2 C3-3 C3-4 C3-5 C3-6 C3-7 C3-8 C3-9 C3-10 C3-11 C3-12 C3-13 C3-14 C3-15; do
	grep -q "^| $c | " $M || fail "summary.md: no claim row $c"
done
[ "$(grep -c '^| C3-' $M)" -eq 21 ] || fail "summary.md: $(grep -c '^| C3-' $M) claim rows, expected 21"
grep -q '^| bfs | [0-9.]* | [0-9.]* | [0-9.]* | 0.79 | 2.32 | 2.94 | 1.95 | 1.87 | 0.96 |$' $M ||
	fail "summary.md: Table 3.2 row of bfs: $(grep '^| bfs | 0' $M)"
grep -q '^| hs | [0-9.]* | [0-9.]* | [0-9.]* | 0.22 | 0.23 | 1.05 | 0.22 | 0.23 | 1.05 |$' $M ||
	fail "summary.md: Table 3.2 row of hs"
grep -q '^| bh |\|^| km |' $M && fail "summary.md: a row of a benchmark not run"
grep -q '^| 20 | ' $M || fail "summary.md: no lease 20 row"
grep -q 'mode: hybrid; workload size: tiny' $M || fail "summary.md: mode and size line"
grep -q "$T\|/tmp/" $M && fail "summary.md holds a path outside the study"

# G-TSC-RC vs TC-RC speedup over set 1 (bfs): cycles(TC-RC) / cycles(G-TSC-RC)
want=$(python3 -c "
import json
p = {x['axes']['config']: x['result'] for x in json.load(open('S/set1/results.json'))['points']}
g = p['TC-RC']['cycles'] / p['G-TSC-RC']['cycles']
print('%+.1f%% (%.3fx)' % (100 * (g - 1), g))")
got=$(grep '^| C3-4 | G-TSC-RC vs TC-RC' $M | cut -d'|' -f5 | sed 's/^ //; s/ $//')
[ "$got" = "$want" ] || fail "C3-4 RC: summary '$got', results.json '$want'"
# G-TSC-RC overhead over W/L1 on set 2 (hs): cycles(G-TSC-RC) / cycles(W/L1)
want=$(python3 -c "
import json
p = {x['axes']['config']: x['result'] for x in json.load(open('S/set2/results.json'))['points']}
g = p['G-TSC-RC']['cycles'] / p['W/L1']['cycles']
print('%+.1f%% (%.3fx) | set 2: 1 of 6 (hs)' % (100 * (g - 1), g))")
got=$(grep '^| C3-7 | .* | +11% |' $M | cut -d'|' -f5,6 | sed 's/^ //; s/ $//')
[ "$got" = "$want" ] || fail "C3-7 set 2: summary '$got', results.json '$want'"

# ---- figures ----------------------------------------------------------------------------------

figs="fig12-performance fig13-memory-stalls fig14-lease-performance fig15-noc-traffic
      fig16-lease-traffic fig17-energy fig19-lease-energy"
exts="dat gp"
command -v "${COHSCOPE_GNUPLOT:-gnuplot}" >/dev/null && exts="dat gp svg png"
for f in $figs; do
	for e in $exts; do
		[ -s "S/figs/$f.$e" ] || fail "no figure S/figs/$f.$e"
	done
done
grep -q '"G-TSC-RC"' S/figs/fig12-performance.dat || fail "fig12: no G-TSC-RC column"
grep -q '"20"' S/figs/fig14-lease-performance.dat || fail "fig14: no lease 20 column"

# ---- resume -----------------------------------------------------------------------------------

cp $M summary.first
ls -l --time-style=+%s.%N S/*/points >points.first
"$BIN" study gtsc --size tiny -w hs,bfs --jobs 2 -o S --resume >resume.out 2>resume.err ||
	fail "resume: status $?: $(grep -v 'plot: no bar' resume.err | head -3)"
[ "$(grep -c '^\[' resume.out)" -eq 0 ] || fail "resume ran points: $(grep '^\[' resume.out)"
[ "$(grep -c ' 0 to run' resume.out)" -eq 3 ] || fail "resume: $(grep '^sweep:' resume.out)"
ls -l --time-style=+%s.%N S/*/points | cmp -s - points.first || fail "resume touched the points"
cmp -s $M summary.first || fail "resume: summary.md differs"
grep -qF "$(head -1 $M)" resume.out || fail "resume: the summary is not printed"

"$BIN" study gtsc --size tiny -w hs,bfs -o S >again.out 2>again.err
st=$?
[ $st -eq 2 ] && [ "$(wc -l <again.err)" -eq 1 ] && grep -q '^cohscope: study: S holds a study' again.err ||
	fail "second study without --resume: status $st, $(cat again.err)"
cmp -s $M summary.first || fail "a refused study changed summary.md"

# ---- errors -----------------------------------------------------------------------------------

mkdir e && cd e || exit 1
check_error() { # STATUS PATTERN ARGS...
	local want=$1 pat=$2 st
	shift 2
	"$BIN" "$@" >out 2>err
	st=$?
	[ $st -eq "$want" ] || fail "$*: status $st, expected $want ($(cat err))"
	[ "$(wc -l <err)" -eq 1 ] && grep -q "^cohscope: $pat" err || fail "$*: stderr: $(cat err)"
	[ ! -s out ] || fail "$*: stdout: $(cat out)"
	[ "$(ls | tr '\n' ' ')" = "err out " ] || fail "$*: wrote $(ls)"
}
check_error 2 "study: unknown study 'gtsx'" study gtsx --size tiny -o D
check_error 2 "study: no study named" study -o D
check_error 2 "study: unknown option '--bogus'" study gtsc --bogus -o D
check_error 2 "study: -w hs,xx: 'xx' is not a benchmark" study gtsc -w hs,xx -o D
check_error 2 "study: -w hs,hs: 'hs' is listed twice" study gtsc -w hs,hs -o D
check_error 2 "study: --size huge" study gtsc --size huge -o D
check_error 2 "study: --mode fast" study gtsc --mode fast -o D
check_error 2 "study: --jobs 0" study gtsc --jobs 0 -o D
check_error 2 "study: --set gtsc.lease=8: the study's configurations" study gtsc --set gtsc.lease=8 -o D
check_error 2 "study: --set workload.size=tiny: use --size" study gtsc --set workload.size=tiny -o D
check_error 3 "--set gtsc.leas=3: unknown key 'leas'" study gtsc -w hs --size tiny --set gtsc.leas=3 -o D
check_error 2 "study: unexpected argument 'x'" study gtsc x -o D
cd .. || exit 1

"$BIN" study --help | grep -q '^usage: cohscope study gtsc' || fail "study --help"
"$BIN" help study | grep -q '^usage: cohscope study gtsc' || fail "help study"
"$BIN" --help | grep -q '^  study ' || fail "--help does not list study"

[ $fails -eq 0 ] && echo "study: ok"
exit $((fails > 0))
