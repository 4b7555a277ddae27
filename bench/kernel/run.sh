#!/usr/bin/env bash
# The kernel benchmark: our kernel against Accellera SystemC, same model, same machine, one run.
# Prints M activations/s for each N and variant, the ratios, the LT b_transport figures with and
# without the quantum keeper, and the coroutine switch cost. Each figure is the median of
# REPEAT runs (default 3). Record the table in docs/performance.md.
# Usage: bench/kernel/run.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: bench/kernel/run.sh BUILD_DIR}
repeat=${REPEAT:-3}
events=${EVENTS:-5000000}
ours="$build/bench/bench_kernel"
sc="$build/bench/bench_kernel_systemc"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

# median of the value of KEY= over REPEAT runs of a command
median() {
	local key=$1; shift
	for _ in $(seq "$repeat"); do
		"$@" | tr ' ' '\n' | sed -n "s/^$key=//p"
	done | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
have_sc=0
[ -x "$sc" ] && have_sc=1
[ "$have_sc" = 1 ] || echo "(SystemC side not built: install libsystemc-dev, or run make bench-kernel)"
echo
printf "%-9s %7s %12s %12s %12s %9s\n" variant N "cohscope" "SystemC" "ratio" "callback"
printf "%-9s %7s %12s %12s %12s %9s\n" "" "" "M act/s" "M act/s" "" "M ev/s"
for variant in method thread; do
	for n in 2 64 1024 16384; do
		o=$(median mevents_per_s "$ours" pingpong --variant $variant --procs $n --events "$events")
		cb="-"
		[ $variant = method ] && cb=$(median mevents_per_s "$ours" pingpong --variant callback --procs $n --events "$events")
		if [ "$have_sc" = 1 ]; then
			s=$(median mevents_per_s "$sc" --variant $variant --procs $n --events "$events")
			r=$(awk -v a="$o" -v b="$s" 'BEGIN {printf "%.1fx", a / b}')
		else
			s="-"; r="-"
		fi
		printf "%-9s %7s %12s %12s %12s %9s\n" $variant $n "$o" "$s" "$r" "$cb"
	done
done
echo
echo "loosely timed b_transport, one initiator, 10 ns per access (M transactions/s):"
for q in 0 100 1000 10000; do
	v=$(median mtxn_per_s "$ours" lt --txns 10000000 --quantum-ns $q)
	label="quantum ${q} ns"
	[ "$q" = 0 ] && label="wait after every access"
	printf "  %-26s %8s\n" "$label" "$v"
done
echo
sw=$(median ns_per_switch "$ours" switch --switches 20000000)
echo "coroutine switch ($("$ours" switch --switches 1000 | sed -n 's/.*backend="\([^"]*\)".*/\1/p')): $sw ns"
