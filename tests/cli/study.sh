#!/usr/bin/env bash
# tests/cli/study.sh BINARY SOURCE_DIR
#
# cohscope study gtsc (docs/study.md), at tiny size on bfs (set 1) and hs (set 2):
# - the four sweeps' results files hold the expected points (6, 7, 20 and 15), all ok, with the
#   study's size;
# - summary.md has every claim row of the paper (with the TC-W-SC baseline's), the Table 3.2
#   rows of bfs and hs, the lease table (leases 1-1000, renewals and timestamp resets), the TC
#   lease table, and no other benchmark's row;
# - its G-TSC-RC vs TC-RC speedup over bfs, its 95% interval (from the points' cycles_half),
#   its G-TSC-RC overhead over W/L1 on hs, a point's cycles +- half-width, the renewals and
#   resets of each lease and a TC lease ratio equal the values recomputed from the JSON;
# - --mode detailed runs every point in detailed mode (intervals +-0), and --against the
#   hybrid study sets every point beside the hybrid's with the recomputed error; a --resume
#   with another --mode is refused;
# - the figures exist (.dat and .gp; .svg and .png when gnuplot is installed);
# - --resume on the finished study runs no point, leaves the point files untouched and
#   rewrites the same summary.md; without --resume the directory is refused;
# - usage errors (unknown study, bad option, bad -w, --size, --jobs, a --set on a key the
#   study varies, a bad --set key) are one "cohscope:" line, a non-zero status, nothing written.
. "$(dirname "$0")/lib.bash" "$@"

"$BIN" study gtsc --size tiny -w hs,bfs --jobs 2 -o S >run.out 2>run.err
st=$?
[ $st -eq 0 ] || fail "study: status $st: $(grep -v 'plot: no bar' run.err | head -3)"
# issue 43: the bars a figure leaves out are named once, in the summary, not once per figure
! grep -q 'plot: no bar' run.err || fail "study: plot's missing-bar line on stderr: $(grep -c 'plot: no bar' run.err) times"

# ---- the sweeps -------------------------------------------------------------------------------

for s in set1:6 set2:7 lease:20 tclease:20; do
	d=${s%%:*} n=${s##*:}
	[ -f "S/$d/results.csv" ] && [ -f "S/$d/results.json" ] || fail "$d: no results files"
	got=$(python3 -c "
import json, sys
p = json.load(open('S/$d/results.json'))['points']
print(len(p), sum(x['status'] == 'ok' for x in p), sorted({x['result']['size'] for x in p}))")
	[ "$got" = "$n $n ['tiny']" ] || fail "$d: points, ok, sizes = $got, expected $n $n ['tiny']"
done
[ "$(cut -d, -f4 S/set2/results.csv | tail -n +2 | tr '\n' ' ')" = \
	"BL W/L1 TC-RC TC-SC TC-W-SC G-TSC-RC G-TSC-SC " ] ||
	fail "set2 configurations: $(cut -d, -f4 S/set2/results.csv | tr '\n' ' ')"

# ---- summary.md -------------------------------------------------------------------------------

M=S/summary.md
[ -s $M ] || fail "no summary.md"
for c in C3-2 C3-3 C3-4 C3-5 C3-6 C3-7 C3-8 C3-9 C3-10 C3-11 C3-12 C3-13 C3-14 C3-15; do
	grep -q "^| $c | " $M || fail "summary.md: no claim row $c"
done
[ "$(grep -c '^| C3-' $M)" -eq 23 ] || fail "summary.md: $(grep -c '^| C3-' $M) claim rows, expected 23"
grep -q '^| C3-4 | G-TSC-SC vs TC-SC (TC-Strong, the thesis. TC-SC): performance | +84% |' $M ||
	fail "summary.md: the TC-SC claim row does not name TC-Strong"
grep -q '^| C3-4 | G-TSC-SC vs TC-W-SC (TC-Weak; the other SC baseline): performance |' $M ||
	fail "summary.md: no TC-W-SC claim row"
pm='( ± [0-9.]*)?'
grep -Eq "^\| bfs \| [0-9.]*$pm \| [0-9.]*$pm \| [0-9.]*$pm \| 0.79 \| 2.32 \| 2.94 \| 1.95 \| 1.87 \| 0.96 \|\$" $M ||
	fail "summary.md: Table 3.2 row of bfs: $(grep '^| bfs | 0' $M)"
grep -Eq "^\| hs \| [0-9.]*$pm \| [0-9.]*$pm \| [0-9.]*$pm \| 0.22 \| 0.23 \| 1.05 \| 0.22 \| 0.23 \| 1.05 \|\$" $M ||
	fail "summary.md: Table 3.2 row of hs"
# its BL cell: cycles and half-width in millions
want=$(python3 -c "
import json
r = {x['axes']['config']: x['result'] for x in json.load(open('S/set1/results.json'))['points']}['BL']
print('%.3f' % (r['cycles'] / 1e6) + (' ± %.3f' % (r['cycles_half'] / 1e6) if r['cycles_half'] > 0 else ''))")
got=$(grep '^| bfs | 0' $M | cut -d'|' -f3 | sed 's/^ //; s/ $//')
[ "$got" = "$want" ] || fail "Table 3.2, bfs BL: summary '$got', results.json '$want'"
grep -q '^| bh |\|^| km |' $M && fail "summary.md: a row of a benchmark not run"
for l in 1 2 5 8 10 12 16 20 100 1000; do
	grep -q "^| $l | [0-9]" $M || fail "summary.md: no lease $l row"
done
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
# ... and its 95% interval: log-ratio half-width sqrt((h_a/a)^2 + (h_b/b)^2) from cycles_half
want=$(python3 -c "
import json, math
p = {x['axes']['config']: x['result'] for x in json.load(open('S/set1/results.json'))['points']}
a, b = p['G-TSC-RC'], p['TC-RC']
g = b['cycles'] / a['cycles']
h = math.hypot(a['cycles_half'] / a['cycles'], b['cycles_half'] / b['cycles'])
assert h > 0, 'the hybrid points have no half-width'
hi = 100 * (g * math.exp(h) - 1)
print('[%+.1f%%, %s]' % (100 * (g * math.exp(-h) - 1), '>+999%' if hi > 999 else '%+.1f%%' % hi))")
got=$(grep '^| C3-4 | G-TSC-RC vs TC-RC' $M | cut -d'|' -f6 | sed 's/^ //; s/ $//')
[ "$got" = "$want" ] || fail "C3-4 RC interval: summary '$got', results.json '$want'"
# the cycles table: bfs under TC-RC is cycles +- round(cycles_half)
want=$(python3 -c "
import json
p = {x['axes']['config']: x['result'] for x in json.load(open('S/set1/results.json'))['points']}
print('%d ± %.0f' % (p['TC-RC']['cycles'], p['TC-RC']['cycles_half']))")
got=$(grep '^| bfs | 1 | ' $M | cut -d'|' -f6 | sed 's/^ //; s/ $//')
[ "$got" = "$want" ] || fail "cycles table, bfs TC-RC: summary '$got', results.json '$want'"
# the lease table's renewals and resets: the L2 banks' counters of each point file, summed
python3 - S $M <<'PY' || fail "lease table: renewals or resets differ from the point files"
import json, sys
d, md = sys.argv[1], sys.argv[2]
tot = {}
for x in json.load(open(d + '/lease/results.json'))['points']:
    st = json.load(open('%s/lease/points/%s.json' % (d, x['id'])))['stats']
    l = int(x['axes']['gtsc.lease'])
    rn = sum(v for k, v in st.items() if k.startswith('gpu.l2.bank') and k.endswith('.gtsc.renewals'))
    rs = sum(v for k, v in st.items() if k.startswith('gpu.l2.bank') and k.endswith('.gtsc.ts_resets'))
    a = tot.setdefault(l, [0, 0])
    a[0] += rn
    a[1] += rs
assert any(a[0] > 0 for a in tot.values()), tot
rows = {}
for line in open(md):
    f = [c.strip() for c in line.split('|')[1:-1]]
    if len(f) == 7 and f[0].isdigit():
        rows[int(f[0])] = f
for l, (rn, rs) in tot.items():
    assert rows[l][5:7] == ['%.0f' % rn, '%.0f' % rs], (l, rows[l], rn, rs)
PY
# the lease table's performance at lease 1000: gmean of cycles(10) / cycles(1000) over bfs and hs,
# +- g * sqrt(sum of (h/v)^2 over both points of both benchmarks) / 2
want=$(python3 -c "
import json, math
p = {(x['workload'], x['axes']['gtsc.lease']): x['result']
     for x in json.load(open('S/lease/results.json'))['points']}
lg = var = 0
for b in ('bfs', 'hs'):
    a, z = p[(b, '10')], p[(b, '1000')]
    lg += math.log(a['cycles'] / z['cycles'])
    var += (a['cycles_half'] / a['cycles']) ** 2 + (z['cycles_half'] / z['cycles']) ** 2
g = math.exp(lg / 2)
h = math.sqrt(var) / 2
print('%.3f ± %.3f' % (g, g * h) if h > 0 else '%.3f' % g)")
got=$(grep '^| 1000 | ' $M | cut -d'|' -f3 | sed 's/^ //; s/ $//')
[ "$got" = "$want" ] || fail "lease table, 1000, performance: summary '$got', results '$want'"
# the TC lease table: G-TSC-RC vs TC-RC at tc.lease 400 over bfs
want=$(python3 -c "
import json
g = {x['axes']['config']: x['result'] for x in json.load(open('S/set1/results.json'))['points']}
t = {(x['axes']['config'], x['axes']['tc.lease']): x['result']
     for x in json.load(open('S/tclease/results.json'))['points']}
r = t[('TC-RC', '400')]['cycles'] / g['G-TSC-RC']['cycles']
print('%+.1f%%' % (100 * (r - 1)))")
got=$(grep '^| 400 | ' $M | cut -d'|' -f3 | sed 's/^ //; s/ ± .*//; s/ $//')
[ "$got" = "$want" ] || fail "TC lease table, 400, G-TSC-RC vs TC-RC: summary '$got', results '$want'"
grep -q '^| tc.lease | .* G-TSC-RC vs TC-RC-P |$' $M || fail "TC lease table: no TC-RC-P (predictor) column"
python3 -c "
import json
t = [x for x in json.load(open('S/tclease/results.json'))['points'] if x['axes']['config'] == 'TC-RC-P']
assert len(t) == 5 and all(x['status'] == 'ok' for x in t), t" || fail "tclease: TC-RC-P points"
# G-TSC-RC overhead over W/L1 on set 2 (hs): cycles(G-TSC-RC) / cycles(W/L1)
want=$(python3 -c "
import json
p = {x['axes']['config']: x['result'] for x in json.load(open('S/set2/results.json'))['points']}
g = p['G-TSC-RC']['cycles'] / p['W/L1']['cycles']
print('%+.1f%% (%.3fx) | set 2: 1 of 6 (hs)' % (100 * (g - 1), g))")
got=$(grep '^| C3-7 | .* | +11% |' $M | cut -d'|' -f5,7 | sed 's/^ //; s/ $//')
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
grep -q '"TC-W-SC"' S/figs/fig12-performance.dat || fail "fig12: no TC-W-SC column"
# error bars: from cycles_half in hybrid mode (docs/plots.md); none in detailed mode (below)
grep -q '^# NAME:err columns: half-widths from cycles_half' S/figs/fig12-performance.dat ||
	fail "fig12: no error bars in hybrid mode"

# ---- resume -----------------------------------------------------------------------------------

cp $M summary.first
ls -l --time-style=+%s.%N S/*/points >points.first
"$BIN" study gtsc --size tiny -w hs,bfs --jobs 2 -o S --resume >resume.out 2>resume.err ||
	fail "resume: status $?: $(grep -v 'plot: no bar' resume.err | head -3)"
[ "$(grep -c '^\[' resume.out)" -eq 0 ] || fail "resume ran points: $(grep '^\[' resume.out)"
[ "$(grep -c ' 0 to run' resume.out)" -eq 4 ] || fail "resume: $(grep '^sweep:' resume.out)"
ls -l --time-style=+%s.%N S/*/points | cmp -s - points.first || fail "resume touched the points"
cmp -s $M summary.first || fail "resume: summary.md differs"
grep -qF "$(head -1 $M)" resume.out || fail "resume: the summary is not printed"

"$BIN" study gtsc --size tiny -w hs,bfs -o S >again.out 2>again.err
st=$?
[ $st -eq 2 ] && [ "$(wc -l <again.err)" -eq 1 ] && grep -q '^cohscope: study: S holds a study' again.err ||
	fail "second study without --resume: status $st, $(cat again.err)"
cmp -s $M summary.first || fail "a refused study changed summary.md"

# ---- --mode detailed, --against ---------------------------------------------------------------

"$BIN" study gtsc --size tiny -w hs,bfs --jobs 2 --mode detailed --against S -o D -q 2>d.err ||
	fail "detailed study: status $?: $(grep -v 'plot: no bar' d.err | head -3)"
python3 - D S D/summary.md <<'PY' || fail "detailed study: modes or the --against table"
import json, sys
d, s, md = sys.argv[1:4]
text = open(md).read()
assert 'mode: detailed; workload size: tiny' in text
assert '## Beside another run of the study (--against)' in text
assert '- the other run: mode hybrid; workload size: tiny' in text
rows = {}
for line in text.splitlines():
    f = [c.strip() for c in line.split('|')[1:-1]]
    if len(f) == 6 and f[0] in ('set1', 'set2', 'lease', 'tclease'):
        rows[(f[0], f[1])] = f
n = 0
for sw in ('set1', 'set2', 'lease', 'tclease'):
    here = {x['name']: x['result'] for x in json.load(open('%s/%s/results.json' % (d, sw)))['points']}
    there = {x['name']: x['result'] for x in json.load(open('%s/%s/results.json' % (s, sw)))['points']}
    for name, r in here.items():
        assert r['mode'] == 'detailed', (sw, name, r['mode'])
        o = there[name]
        f = rows[(sw, name)]
        assert f[2] == '%d' % r['cycles'], f
        want = '%d' % o['cycles'] + (' ± %.0f' % o['cycles_half'] if o['cycles_half'] > 0 else '')
        assert f[3] == want, (f, want)
        assert f[4] == '%+.1f%%' % (100 * (o['cycles'] - r['cycles']) / r['cycles']), f
        within = abs(o['cycles'] - r['cycles']) <= o['cycles_half']
        assert f[5] == ('yes' if within else 'no'), f
        n += 1
assert n == 53, n
assert '| G-TSC-RC (lease sweep) | 20 | ' in text
PY
grep -q '^| C3-4 | G-TSC-RC vs TC-RC (TC-Weak): performance | +38% | [-+0-9.]*% ([0-9.]*x) | ±0 |' \
	D/summary.md || fail "detailed study: the C3-4 interval is not ±0"
grep -q ':err' D/figs/fig12-performance.dat && fail "detailed study: error bars in fig12"
# --resume with other options would run other points: refused, nothing touched
cp D/summary.md dsummary.first
"$BIN" study gtsc --size tiny -w hs,bfs --resume -o D >dr.out 2>dr.err
st=$?
[ $st -eq 2 ] && [ "$(wc -l <dr.err)" -eq 1 ] && [ ! -s dr.out ] &&
	grep -q "^cohscope: study: --resume: D was run with '--mode detailed', not '--mode (the configuration's)'" dr.err ||
	fail "--resume without --mode on a detailed study: status $st, $(cat dr.err)"
cmp -s D/summary.md dsummary.first || fail "a refused --resume changed summary.md"
[ "$(ls D/set1/points | wc -l)" -eq 6 ] || fail "a refused --resume ran points"

# ---- errors -----------------------------------------------------------------------------------

mkdir e && cd e || exit 1
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
check_error 2 "study: --set tc.lease=400: the study's configurations" study gtsc --set tc.lease=400 -o D
check_error 3 "study: --against nowhere: no study's results there" study gtsc --against nowhere -o D
mkdir ../empty
check_error 3 "study: --against ../empty: no study's results there" study gtsc --against ../empty -o D
cd .. || exit 1

"$BIN" study --help | grep -q '^usage: cohscope study gtsc' || fail "study --help"
"$BIN" help study | grep -q '^usage: cohscope study gtsc' || fail "help study"
"$BIN" --help | grep -q '^  study ' || fail "--help does not list study"

[ $fails -eq 0 ] && echo "study: ok"
exit $((fails > 0))
