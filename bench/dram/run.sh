#!/bin/sh
# bench/dram/run.sh BUILD_DIR - our DRAM channel (tlm/dram, GTX480 GDDR5 defaults) beside
# Ramulator 2.0 on the same request streams: bandwidth, row-hit rate, read latency.
#
# Streams (bench/dram/dram_stream.c gen): 64 B requests over one channel, N of them (default
# 200000): `seq` consecutive addresses, `rand` uniform over 256 MiB, `mix` the same with one
# write in three. Saturating (all offered at cycle 0, one in-order source), then unloaded (random
# reads, one per 500 cycles on average) and loaded read latency at a few offered loads (Poisson,
# NL requests each, default 50000). Both with refresh and tFAW off ("timing") and on ("full").
#
# Ramulator 2: set RAMULATOR2 to a Ramulator 2.0 tree (CMU-SAFARI/ramulator2, tag v2.0a) in which
# libramulator.so has been built (its README; Debian's libyaml-cpp-dev, libspdlog-dev,
# libfmt-dev). This script only compiles bench/dram/ramulator_stream.cpp against it, outside the
# project. Without it, only our side is printed.
set -eu
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
DS=$BUILD/bench/dram_stream
N=${N:-200000}
NL=${NL:-50000}
[ -x "$DS" ] || { echo "run.sh: $DS not built (cmake --build $BUILD --target dram_stream)" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

RAM=
if [ -n "${RAMULATOR2:-}" ] && [ -f "$RAMULATOR2/libramulator.so" ] && [ -d "$RAMULATOR2/src" ]; then
	if g++ -std=c++20 -O2 -I"$RAMULATOR2/src" "$HERE/ramulator_stream.cpp" -L"$RAMULATOR2" \
		-lramulator -lyaml-cpp -lspdlog -lfmt -Wl,-rpath,"$RAMULATOR2" -o "$W/ramulator_stream"; then
		RAM=$W/ramulator_stream
	else
		echo "run.sh: could not build ramulator_stream against $RAMULATOR2" >&2
	fi
fi
[ -n "$RAM" ] || echo "Ramulator 2 absent (set RAMULATOR2 to a built Ramulator 2.0 tree): ours only"

# config NAME TREFI TRFC TFAW: Ramulator's YAML and our KEY=VALUE overrides for that variant
config() {
	sed "s/@TREFI@/$2/; s/@TRFC@/$3/; s/@TFAW@/$4/" "$HERE/ramulator-gddr5.yaml" >"$W/$1.yaml"
}
config timing 0 110 0
config full 3900 110 23

field() { # field KEY LINE
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
pct() { # pct OURS THEIRS: (ours - theirs) / theirs in %
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%+.1f%%", (a - b) / b * 100 }'
}

# one STREAM-FILE VARIANT LABEL: prints a row
one() {
	case $2 in
	timing) o=$("$DS" run "$W/$1" tREFI=0 tFAW=0) ;;
	*) o=$("$DS" run "$W/$1") ;;
	esac
	obw=$(field gbps "$o")
	olat=$(field read_latency "$o")
	ohit=$(field row_hit_rate "$o")
	if [ -n "$RAM" ]; then
		r=$("$RAM" "$W/$2.yaml" "$W/$1" 2>/dev/null)
		rline=$(echo "$r" | grep '^ramulator ')
		rbw=$(field gbps "$rline")
		rlat=$(field read_latency "$rline")
		hits=$(echo "$r" | sed -n 's/^ *row_hits_0: //p')
		miss=$(echo "$r" | sed -n 's/^ *row_misses_0: //p')
		conf=$(echo "$r" | sed -n 's/^ *row_conflicts_0: //p')
		rhit=$(awk -v h="$hits" -v m="$miss" -v c="$conf" 'BEGIN { printf "%.4f", h / (h + m + c) }')
		printf '%-26s %-6s %8s %8s %7s   %6s %6s   %9s %9s %7s\n' "$3" "$2" "$obw" "$rbw" \
			"$(pct "$obw" "$rbw")" "$ohit" "$rhit" "$olat" "$rlat" "$(pct "$olat" "$rlat")"
	else
		printf '%-26s %-6s %8s   %6s   %9s\n' "$3" "$2" "$obw" "$ohit" "$olat"
	fi
}

for s in seq rand mix; do
	"$DS" gen $s "$N" 1 0 >"$W/$s.sat"
done
"$DS" gen rand 4000 2 0.002 >"$W/unloaded.rand"
for l in 0.05 0.10 0.125; do
	"$DS" gen rand "$NL" 3 $l >"$W/load$l.rand"
	"$DS" gen mix "$NL" 3 $l >"$W/load$l.mix"
done
for l in 0.10 0.25 0.40; do
	"$DS" gen seq "$NL" 3 $l >"$W/load$l.seq"
done

if [ -n "$RAM" ]; then
	printf '%-26s %-6s %8s %8s %7s   %6s %6s   %9s %9s %7s\n' stream config "GB/s" "ram GB/s" diff \
		hit "ram" "lat cyc" "ram cyc" diff
else
	printf '%-26s %-6s %8s   %6s   %9s\n' stream config "GB/s" hit "lat cyc"
fi
for v in timing full; do
	one seq.sat $v "seq $N saturating"
	one rand.sat $v "rand $N saturating"
	one mix.sat $v "mix 2:1 $N saturating"
	one unloaded.rand $v "rand reads, unloaded"
done
for l in 0.10 0.25 0.40; do one load$l.seq full "seq $l req/cycle"; done
for l in 0.05 0.10 0.125; do one load$l.rand full "rand $l req/cycle"; done
for l in 0.05 0.10 0.125; do one load$l.mix full "mix 2:1 $l req/cycle"; done
echo "(latency: mean of reads, command cycles of 1.082 ns from arrival to data end; saturating"
echo " rows: all requests offered at cycle 0, so their latency is mostly the wait to get in)"
