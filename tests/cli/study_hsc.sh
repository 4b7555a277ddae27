#!/usr/bin/env bash
# tests/cli/study_hsc.sh BINARY SOURCE_DIR
#
# cohscope study hsc (docs/study.md), at tiny size on bs (data-parallel), sc and tq
# (coherence-active):
# - the four sweeps hold the expected points (3 workloads x 10, 5, 8 and 6), all ok and
#   verified, at the study's size;
# - summary.md has every claim row V1-V11; its V1 and V2 (owner+sharers against the baseline
#   on the coherence-active workloads), V5 (A+B+C on all), a cell of the cycles table, the
#   probes-by-cause totals and a CorePair row equal the values recomputed from the points'
#   results and statistics; no row of a workload not run;
# - the figures exist (.dat and .gp; .svg and .png with gnuplot);
# - --resume on the finished study runs no point and writes the same summary.md;
# - --mode hybrid with --against sets each point beside the detailed run's with the error;
# - usage errors (unknown workload, a --set on a key the study varies, --against with no
#   results) are one "cohscope:" line, a non-zero status, nothing written.
. "$(dirname "$0")/lib.bash" "$@"

"$BIN" study hsc --size tiny --mode detailed -w bs,sc,chai_tq --jobs 2 -o S >run.out 2>run.err
st=$?
[ $st -eq 0 ] || fail "study: status $st: $(head -3 run.err)"

for s in variants:30 dirsize:15 corepairs:24 llc:18; do
	d=${s%%:*} n=${s##*:}
	got=$(python3 -c "
import json
p = json.load(open('S/$d/results.json'))['points']
v = sum(any('verified' in n for n in x['result']['notes']) for x in p)
print(len(p), sum(x['status'] == 'ok' for x in p), v, sorted({x['result']['size'] for x in p}),
      sorted({x['workload'] for x in p}))")
	[ "$got" = "$n $n $n ['tiny'] ['chai_bs', 'chai_sc', 'chai_tq']" ] ||
		fail "$d: points, ok, verified, sizes, workloads = $got, expected $n of each"
done

M=S/summary.md
[ -s $M ] || fail "no summary.md"
for c in V1 V2 V3 V4 V5 V6 V7 V8 V9 V10 V11; do
	grep -q "^| $c | " $M || fail "summary.md: no claim row $c"
done
grep -q 'mode: detailed; workload size: tiny' $M || fail "summary.md: mode and size line"
grep -q '^| hsti |\|^| cedd |' $M && fail "summary.md: a row of a workload not run"
grep -q "/tmp/" $M && fail "summary.md holds a path outside the study"

python3 - S $M <<'PY' || fail "summary.md differs from the points' results"
import json, sys
d, md = sys.argv[1], sys.argv[2]
text = open(md).read()
rows = [[c.strip() for c in l.split('|')[1:-1]] for l in text.splitlines() if l.startswith('|')]

def points(sweep):
    out = {}
    for x in json.load(open('%s/%s/results.json' % (d, sweep)))['points']:
        st = json.load(open('%s/%s/points/%s.json' % (d, sweep, x['id'])))['stats']
        key = (x['workload'][5:], x['axes']['config'], x['axes'].get('cpus.cores'))
        out[key] = (x['result'], st)
    return out

def probes(st):
    return st['apu.dir.probes.downgrade'] + st['apu.dir.probes.inv'] + st['apu.dir.probes.backinv']

v = points('variants')
def cut(w, c, f, sw=v, cores=None):
    b, x = f(*sw[(w, 'baseline', cores)]), f(*sw[(w, c, cores)])
    return 100 * (b - x) / b
cyc = lambda r, st: r['cycles']
prb = lambda r, st: probes(st)

def claim(cid, what, wset):
    for r in rows:
        if r[0] == cid and r[1] == what and r[4] == wset:
            return r[3]
    raise AssertionError('no row %s %s %s' % (cid, what, wset))

# the coherence-active workloads run are sc and tq (the selection's part of the five)
a = (cut('sc', 'owner+sharers', cyc) + cut('tq', 'owner+sharers', cyc)) / 2
assert claim('V1', 'owner + sharer tracking: cycles saved', 'coherence-active five') == '%.1f%%' % a, a
a = (cut('sc', 'owner+sharers', prb) + cut('tq', 'owner+sharers', prb)) / 2
assert claim('V2', 'owner + sharer tracking: directory probes cut', 'coherence-active five') == '%.1f%%' % a, a
assert a > 50, 'owner+sharers cut %.1f%% of the probes on sc and tq' % a
a = sum(cut(w, 'A+B+C', cyc) for w in ('bs', 'sc', 'tq')) / 3
assert claim('V5', 'A+B+C without tracking: cycles saved', 'all ten') == '%.1f%%' % a, a
# the cycles table: tq under owner
row = [r for r in rows if r[0] == 'tq' and len(r) == 10][0]
assert row[7] == '%.1f' % cut('tq', 'owner', cyc), (row, cut('tq', 'owner', cyc))
# probes by cause: the coherence-active baseline's total and its RdBlk column
row = [r for r in rows if r[:2] == ['coherence-active five', 'baseline']][0]
assert row[-1] == '%.0f' % sum(probes(v[(w, 'baseline', None)][1]) for w in ('sc', 'tq')), row
assert row[2] == '%.0f' % sum(v[(w, 'baseline', None)][1]['apu.dir.probes.RdBlk'] for w in ('sc', 'tq')), row
# the CorePair table: 8 CorePairs (16 cores), probes of the baseline summed over the three
cp = points('corepairs')
row = [r for r in rows if r[0] == '8 (16)'][0]
assert row[3] == '%.0f' % sum(probes(cp[(w, 'baseline', '16')][1]) for w in ('bs', 'sc', 'tq')), row
# more CorePairs, more baseline probes: every request probes every CorePair
tot = [sum(probes(cp[(w, 'baseline', c)][1]) for w in ('bs', 'sc', 'tq')) for c in ('2', '4', '8', '16')]
assert tot == sorted(tot) and tot[0] < tot[-1], tot
PY

exts="dat gp"
command -v "${COHSCOPE_GNUPLOT:-gnuplot}" >/dev/null && exts="dat gp svg png"
for f in fig4-performance fig5-dram-accesses fig6-tracking-performance fig7-probes \
	dirsize-performance; do
	for e in $exts; do
		[ -s "S/figs/$f.$e" ] || fail "no figure S/figs/$f.$e"
	done
done
grep -q '"owner+sharers"' S/figs/fig7-probes.dat || fail "fig7: no owner+sharers column"
grep -q '"A+B+C"' S/figs/fig4-performance.dat || fail "fig4: no A+B+C column"

# ---- resume: no point runs, the same summary ----------------------------------------------------

cp $M summary.first
"$BIN" study hsc --size tiny --mode detailed -w bs,sc,chai_tq --jobs 2 -o S --resume \
	>resume.out 2>resume.err || fail "resume: status $?: $(head -3 resume.err)"
[ "$(grep -c ' 0 to run' resume.out)" -eq 4 ] || fail "resume: $(grep '^sweep:' resume.out)"
cmp -s $M summary.first || fail "resume: summary.md differs"

# ---- hybrid beside detailed -------------------------------------------------------------------

"$BIN" study hsc --size tiny --mode hybrid -w tq --jobs 2 --against S -o H -q 2>h.err ||
	fail "hybrid study: status $?: $(head -3 h.err)"
python3 - H S <<'PY' || fail "hybrid study: the --against table"
import json, sys
h, s = sys.argv[1:3]
text = open(h + '/summary.md').read()
assert 'mode: hybrid; workload size: tiny' in text
assert 'Beside another run of the study (--against): mode detailed' in text
rows = {}
for line in text.splitlines():
    f = [c.strip() for c in line.split('|')[1:-1]]
    if len(f) == 6 and f[0] in ('variants', 'dirsize', 'corepairs', 'llc'):
        rows[(f[0], f[1])] = f
n = 0
for sw in ('variants', 'dirsize', 'corepairs', 'llc'):
    there = {x['name']: x['result'] for x in json.load(open('%s/%s/results.json' % (s, sw)))['points']}
    for x in json.load(open('%s/%s/results.json' % (h, sw)))['points']:
        r, o = x['result'], there[x['name']]
        assert r['mode'] == 'hybrid', r['mode']
        f = rows[(sw, x['name'])]
        assert f[2] == '%.0f ± %.0f' % (r['cycles'], r['cycles_half']), f
        assert f[3] == '%.0f' % o['cycles'], f
        assert f[4] == '%+.1f%%' % (100 * (o['cycles'] - r['cycles']) / r['cycles']), f
        n += 1
assert n == 29, n
PY

# ---- errors -----------------------------------------------------------------------------------

mkdir e && cd e || exit 1
check_error 2 "study: -w bs,bh: 'bh' is not a benchmark of the HSC study (bs cedd" \
	study hsc -w bs,bh -o D
check_error 2 "study: -w bs,chai_bs: 'chai_bs' is listed twice" study hsc -w bs,chai_bs -o D
check_error 2 "study: --set dir.tracking=owner: the study's configurations" \
	study hsc --set dir.tracking=owner -o D
check_error 2 "study: --set cpus.cores=4: the study's configurations" \
	study hsc --set cpus.cores=4 -o D
check_error 3 "study: --against ../S/variants: no study's results there" \
	study hsc --against ../S/variants -o D
check_error 2 "study: unknown study 'hcs' (there are gtsc, hsc, hlrc)" study hcs -o D
cd .. || exit 1

[ $fails -eq 0 ] && echo "study_hsc: ok"
exit $((fails > 0))
