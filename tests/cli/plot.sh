#!/usr/bin/env bash
# tests/cli/plot.sh BINARY SOURCE_DIR
#
# cohscope plot (docs/plots.md) on results files written here by hand, with known numbers:
# - the normalized table PREFIX.dat holds exactly the expected ratios: value / baseline and,
#   with --speedup or --metric performance, baseline / value; the gmean row is the geometric
#   mean (computed here with awk); NaN where a point failed or is missing, and stderr says so
#   in one line; the first-order error bars from cycles_half;
# - groups from the config column, from protocol x consistency ("a/b"), from a JSON object
#   with "points" and nested axes; --where and --baseline; benchmarks and groups in file order;
# - the .dat and .gp are byte-identical for the same inputs;
# - with gnuplot: PREFIX.svg is an SVG and PREFIX.png a PNG, and the .gp alone makes them
#   again; without gnuplot (COHSCOPE_GNUPLOT naming no program) .dat and .gp are written
#   with one line of warning (status 0, or 4 with an explicit --format); a failing gnuplot
#   writes nothing (status 4);
# - bad input (no such metric column or baseline, a malformed CSV line, an open quote, a
#   non-number, a second point for a cell, bad JSON, no file) gives one line naming
#   FILE[:LINE] and the problem, status 3 (usage errors 2), and no output at all: a previous
#   run's files are left as they were, and no temporary is left;
# - end to end: cohscope suite -o at tiny size under two protocols, then plot of both files:
#   the ratios are the files' cycles over the baseline's.
. "$(dirname "$0")/lib.bash" "$@"

have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1
[ $have_gnuplot = 1 ] || echo "SKIP image checks: gnuplot is not installed (scripts/install-deps.sh)"

# data ROWS: the .dat without comments
data() { grep -v '^#' "$1"; }
# gm X...: the geometric mean, as the .dat prints it
gm() { echo "$@" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += log($i); printf "%.6f", exp(s / NF) }'; }
# no_outputs PREFIX: nothing named PREFIX.* (no output, no temporary)
no_outputs() { ! compgen -G "$1.*" >/dev/null; }

cat >r.csv <<'EOF'
point,workload,config,mode,cycles,cycles_half,noc_bytes,energy_j,status
0,bfs,BL,detailed,1000,0,4000,2.0,ok
1,bfs,TC-RC,detailed,500,0,2000,1.0,ok
2,bfs,G-TSC-RC,detailed,250,0,8000,4.0,ok
3,sgm,BL,detailed,2000,0,100,1.0,ok
4,sgm,TC-RC,detailed,4000,0,400,4.0,ok
5,sgm,G-TSC-RC,detailed,1000,0,50,0.5,ok
6,"km, big",BL,detailed,800,0,300,3.0,ok
7,"km, big",TC-RC,detailed,800,0,300,3.0,ok
8,"km, big",G-TSC-RC,detailed,400,0,600,1.5,ok
EOF

# ---- speedup: BL's cycles / cycles
"$BIN" plot r.csv -o sp --metric performance >out 2>err
rc=$?
[ $rc = 0 ] || fail "speedup: status $rc: $(cat err)"
[ -s err ] && fail "speedup: stderr not empty: $(cat err)"
cat >want <<EOF
"bfs" 1.000000 2.000000 4.000000
"sgm" 1.000000 0.500000 2.000000
"km, big" 1.000000 1.000000 2.000000
"gmean" 1.000000 $(gm 2 0.5 1) $(gm 4 2 2)
EOF
data sp.dat | diff - want >diff || fail "speedup table: $(cat diff)"
grep -q '^# "workload" "BL" "TC-RC" "G-TSC-RC"$' sp.dat || fail "speedup: column header"
grep -q "'Speedup (normalized to BL)'" sp.gp || fail "speedup: y label"
grep -q "^  gmean *1.000 *1.000 *2.520$" out || fail "speedup: table on stdout: $(cat out)"
"$BIN" plot r.csv -o sp2 --speedup -q >out 2>&1 || fail "--speedup: $(cat out)"
[ -s out ] && fail "-q: output: $(cat out)"
cmp -s <(data sp.dat) <(data sp2.dat) || fail "--speedup differs from --metric performance"

# ---- traffic and energy: value / BL's value
"$BIN" plot r.csv -o tr --metric noc_bytes -q -f none 2>err || fail "traffic: $(cat err)"
cat >want <<EOF
"bfs" 1.000000 0.500000 2.000000
"sgm" 1.000000 4.000000 0.500000
"km, big" 1.000000 1.000000 2.000000
"gmean" 1.000000 $(gm 0.5 4 1) $(gm 2 0.5 2)
EOF
data tr.dat | diff - want >diff || fail "traffic table: $(cat diff)"
[ -e tr.svg ] || [ -e tr.png ] && fail "--format none: an image was made"
"$BIN" plot r.csv -o en --metric energy --baseline g-tsc-rc -q -f none 2>err ||
	fail "energy: $(cat err)"
cat >want <<EOF
"bfs" 0.500000 0.250000 1.000000
"sgm" 2.000000 8.000000 1.000000
"km, big" 2.000000 2.000000 1.000000
"gmean" $(gm 0.5 2 2) $(gm 0.25 8 2) 1.000000
EOF
data en.dat | diff - want >diff || fail "energy over G-TSC-RC: $(cat diff)"

# ---- deterministic: the same command twice, the same bytes
cp sp.dat sp.dat.1 && cp sp.gp sp.gp.1
"$BIN" plot r.csv -o sp --metric performance -q 2>/dev/null
cmp -s sp.dat sp.dat.1 && cmp -s sp.gp sp.gp.1 || fail "the .dat or .gp differ between two runs"
rm -f sp.dat.1 sp.gp.1

# ---- images
if [ $have_gnuplot = 1 ]; then
	for p in sp en; do
		[ $p = en ] && "$BIN" plot r.csv -o en --metric energy -q -f png,svg 2>/dev/null
		head -c 200 $p.svg | grep -q '^<?xml\|^<svg' || fail "$p.svg is not an SVG"
		grep -q '</svg>' $p.svg || fail "$p.svg is not a whole SVG"
		[ "$(head -c 8 $p.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			fail "$p.png is not a PNG"
	done
	mkdir again && cp sp.gp again/ && (cd again && gnuplot sp.gp) 2>err ||
		fail "gnuplot sp.gp alone: $(cat err)"
	[ -s again/sp.svg ] && [ -s again/sp.png ] || fail "the .gp alone made no images"
	compgen -G "*.tmp.*" >/dev/null && fail "temporaries left: $(ls ./*.tmp.*)"
fi

# ---- error bars from cycles_half (first order, independent errors)
cat >h.csv <<'EOF'
workload,config,cycles,cycles_half
a,BL,1000,100
a,X,500,50
b,BL,1000,0
b,X,2000,0
EOF
"$BIN" plot h.csv -o h -q -f none --speedup 2>err || fail "error bars: $(cat err)"
# a: r = 2, dr = sqrt((100/500)^2 + (1000*50/500^2)^2); gmean: r = 1, dr = 1 * sqrt((dr_a/2)^2)/2
ea=$(awk 'BEGIN { printf "%.6f", sqrt((100/500)^2 + (1000*50/500^2)^2) }')
eg=$(awk -v e="$ea" 'BEGIN { printf "%.6f", sqrt((e/2)^2)/2 }')
cat >want <<EOF
"a" 1.000000 0.000000 2.000000 $ea
"b" 1.000000 0.000000 0.500000 0.000000
"gmean" 1.000000 0.000000 1.000000 $eg
EOF
data h.dat | diff - want >diff || fail "error bars: $(cat diff)"
grep -q 'histogram errorbars' h.gp || fail "error bars: not in the .gp"
"$BIN" plot h.csv -o h2 -q -f none --no-errorbars 2>err || fail "--no-errorbars: $(cat err)"
grep -q 'errorbars' h2.gp && fail "--no-errorbars: error bars drawn"

# ---- failed and missing points: no bar, one line on stderr; protocol x consistency groups
cat >f.csv <<'EOF'
workload,coherence.protocol,core.consistency,cycles,status
w1,none,rc,100,ok
w1,gtsc,rc,50,ok
w1,gtsc,sc,200,FAILED: livelock
w2,none,rc,100,ok
w2,gtsc,rc,25,ok
w2,gtsc,sc,,ok
w3,gtsc,rc,10,ok
w3,gtsc,sc,10,ok
EOF
"$BIN" plot f.csv -o f -q -f none 2>err
rc=$?
[ $rc = 0 ] || fail "failed points: status $rc: $(cat err)"
cat >want <<EOF
"w1" 1.000000 0.500000 NaN
"w2" 1.000000 0.250000 NaN
"w3" NaN NaN NaN
"gmean" 1.000000 $(gm 0.5 0.25) NaN
EOF
data f.dat | diff - want >diff || fail "failed points: $(cat diff)"
grep -q '^# "workload" "none/rc" "gtsc/rc" "gtsc/sc"$' f.dat || fail "protocol/consistency groups"
[ "$(wc -l <err)" = 1 ] || fail "failed points: not one line on stderr: $(cat err)"
for s in "w1 under gtsc/sc (failed: status 'FAILED: livelock')" "w2 under gtsc/sc (no cycles value)" \
	"w3 (baseline none/rc: no point)" "gmean of gtsc/rc over 2 of 3"; do
	grep -qF "$s" err || fail "failed points: stderr lacks '$s': $(cat err)"
done
# --where keeps w3 only out; the baseline chosen by name
"$BIN" plot f.csv -o f2 -q -f none --where workload=w1,w2 --baseline gtsc/rc 2>err ||
	fail "--where: $(cat err)"
cat >want <<EOF
"w1" 2.000000 1.000000 NaN
"w2" 4.000000 1.000000 NaN
"gmean" $(gm 2 4) 1.000000 NaN
EOF
data f2.dat | diff - want >diff || fail "--where/--baseline: $(cat diff)"

# ---- JSON: {"points": [...]} with the axes in a nested object; --group-by by last name
cat >p.json <<'EOF'
{"sweep": "x", "points": [
 {"id": 0, "workload": "bh", "axes": {"coherence.protocol": "none", "l1.kb": 16}, "cycles": 300},
 {"id": 1, "workload": "bh", "axes": {"coherence.protocol": "gtsc", "l1.kb": 16}, "cycles": 100},
 {"id": 2, "workload": "cc", "axes": {"coherence.protocol": "none", "l1.kb": 16}, "cycles": 90},
 {"id": 3, "workload": "cc", "axes": {"coherence.protocol": "gtsc", "l1.kb": 16}, "cycles": 10,
  "status": "ok", "kernels": [1, 2]}
]}
EOF
"$BIN" plot p.json -o p -q -f none --speedup 2>err || fail "JSON points: $(cat err)"
cat >want <<EOF
"bh" 1.000000 3.000000
"cc" 1.000000 9.000000
"gmean" 1.000000 $(gm 3 9)
EOF
data p.dat | diff - want >diff || fail "JSON points: $(cat diff)"
"$BIN" plot p.json -o p2 -q -f none -g coherence.protocol,l1.kb 2>err || fail "JSON -g: $(cat err)"
grep -q '"none/16" "gtsc/16"' p2.dat || fail "JSON -g: group names: $(grep '^# "' p2.dat)"

# ---- gnuplot missing or failing
GP_NONE=$T/no-such-gnuplot
COHSCOPE_GNUPLOT=$GP_NONE "$BIN" plot r.csv -o m -q 2>err
rc=$?
[ $rc = 0 ] || fail "no gnuplot: status $rc, want 0: $(cat err)"
[ -s m.dat ] && [ -s m.gp ] || fail "no gnuplot: no .dat or .gp"
[ -e m.svg ] || [ -e m.png ] && fail "no gnuplot: an image"
[ "$(wc -l <err)" = 1 ] && grep -q "gnuplot is not installed" err || fail "no gnuplot: $(cat err)"
COHSCOPE_GNUPLOT=$GP_NONE "$BIN" plot r.csv -o m2 -q --format svg 2>err
[ $? = 4 ] || fail "no gnuplot with --format svg: not status 4"
[ -s m2.gp ] || fail "no gnuplot with --format svg: no .gp"
COHSCOPE_GNUPLOT=false "$BIN" plot r.csv -o g -q 2>err
[ $? = 4 ] || fail "failing gnuplot: not status 4"
grep -q "gnuplot failed" err && [ "$(wc -l <err)" = 1 ] || fail "failing gnuplot: $(cat err)"
no_outputs g || fail "failing gnuplot: files left: $(ls g.*)"

# ---- bad input: one line naming FILE[:LINE], status 3 (2: usage), nothing written
printf 'workload,config,cycles\nbfs,BL,1\nbfs,TC,2,3\n' >fields.csv
printf 'workload,config,cycles\nbfs,BL,1\nbfs,"TC,2\n' >quote.csv
printf 'workload,config,cycles\nbfs,BL,1\nbfs,T"C,2\n' >quote2.csv
printf 'workload,config,cycles\nbfs,BL,1\nbfs,TC,12x\n' >num.csv
printf 'workload,config,cycles\nbfs,BL,1\nbfs,BL,2\n' >dup.csv
printf '[{"workload": "a", "config": "x", "cycles": 3},\n {"x" 5}]' >bad.json
printf '{"results": 3}' >bad2.json
: >empty.csv
echo old >keep.dat
bad() { # bad STATUS FRAGMENT ARGS...
	local want=$1 frag=$2
	shift 2
	"$BIN" plot "$@" -o keep -q >out 2>err
	local rc=$?
	[ $rc = "$want" ] || fail "plot $*: status $rc, want $want: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "plot $*: not one line on stderr: $(cat err)"
	grep -qF "cohscope: " err && grep -qF -- "$frag" err || fail "plot $*: '$frag' not in: $(cat err)"
	[ -s out ] && fail "plot $*: stdout: $(cat out)"
	[ "$(cat keep.dat)" = old ] || fail "plot $*: keep.dat overwritten"
	[ "$(ls keep.* | wc -l)" = 1 ] || fail "plot $*: files written: $(ls keep.*)"
}
bad 3 "r.csv: no column 'energy_x' for --metric" r.csv --metric energy_x
bad 3 "r.csv: no group 'XX' for --baseline" r.csv --baseline XX
bad 3 "fields.csv:3: 4 fields, the header has 3" fields.csv
bad 3 "quote.csv:3: a quoted field is not closed" quote.csv
bad 3 "quote2.csv:3: a quote inside an unquoted field" quote2.csv
bad 3 "num.csv:3: column 'cycles': '12x' is not a non-negative number" num.csv
bad 3 "dup.csv:3: a second point for bfs in group BL (the first: dup.csv:2)" dup.csv
bad 3 "bad.json:2: JSON:" bad.json
bad 3 "bad2.json: JSON: expected an array" bad2.json
bad 3 "empty.csv: empty file" empty.csv
bad 3 "nothere.csv: cannot open" nothere.csv
bad 3 "r.csv: no column 'nope' (--group-by)" r.csv -g nope
bad 3 "r.csv: no points left by --where" r.csv --where config=ZZ
bad 2 "plot: --format gif" r.csv --format gif
bad 2 "plot: unknown option '--bogus'" r.csv --bogus
"$BIN" plot r.csv 2>err
[ $? = 2 ] && grep -q -- "-o PREFIX is required" err || fail "no -o: $(cat err)"
"$BIN" plot r.csv -o nodir/x -q 2>err
[ $? = 4 ] && grep -q "nodir/x.dat: cannot write" err || fail "-o into no directory: $(cat err)"

# ---- help
"$BIN" plot --help | grep -q "^usage: cohscope plot" || fail "plot --help"
"$BIN" help plot | grep -q "^usage: cohscope plot" || fail "help plot"
"$BIN" --help | grep -q "^  plot " || fail "plot not in cohscope --help"

# ---- end to end: the suite's JSON under two protocols
G=$SRC/configs/gtsc-16sm.cfg
for p in none gtsc; do
	"$BIN" suite -c "$G" --set workload.size=tiny --set coherence.protocol=$p -w hs,sgm \
		-o s-$p.json -q || fail "suite $p: status $?"
done
"$BIN" plot s-none.json s-gtsc.json -o s -q -f none 2>err || fail "plot of suite files: $(cat err)"
grep -q '^# "workload" "none/rc" "gtsc/rc"$' s.dat || fail "suite files: groups: $(cat s.dat)"
want=$(python3 - <<'PY'
import json, math
a = {r["workload"]: r["cycles"] for r in json.load(open("s-none.json"))}
b = {r["workload"]: r["cycles"] for r in json.load(open("s-gtsc.json"))}
rs = [b[w] / a[w] for w in ("hs", "sgm")]
for w, r in zip(("hs", "sgm"), rs):
    print('"%s" 1.000000 %.6f' % (w, r))
print('"gmean" 1.000000 %.6f' % math.exp(sum(map(math.log, rs)) / 2))
PY
)
[ "$(data s.dat)" = "$want" ] || fail "suite files: $(data s.dat) want $want"

exit $((fails > 0))
