#!/usr/bin/env bash
# Fuzzes the input readers with libFuzzer (tests/fuzz/README.md): builds the fuzz_NAME targets
# with clang, ASan and UBSan in BUILD_DIR (-DCOHSCOPE_FUZZ=ON), runs each for SECONDS on a working
# corpus BUILD_DIR/corpus/NAME seeded from tests/fuzz/corpus/NAME, and ends with a Markdown table
# (execs, exec/s, coverage, corpus, findings) for docs/validation/fuzz.md and, per finding, its
# file and the top frames of its report.
#
# libFuzzer runs in fork mode (-fork=1) and goes on after a crash, leak, timeout or OOM, so one
# finding does not end a long run; each finding's full report is BUILD_DIR/artifacts/NAME/FILE.log
# (the input replayed once by the target). Memory and time are bounded per input:
# -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10. Inputs go to files under /dev/shm when it
# is there (the readers take paths; tmpfs makes that about 100 times faster than a disk).
#
# Needs clang and libclang-rt-14-dev (Debian), installed here through
# scripts/install-deps.sh --with-fuzz; CI's corpus replay (ctest -L fuzz) needs neither.
#
# Usage: scripts/fuzz.sh [-p JOBS] [-b BUILD_DIR] [SECONDS] [TARGET...]
#   SECONDS  per target (default 600); TARGET: config, set, litmus_c, ... (default: all)
#   -p JOBS  targets run at once (default 1; 2 on a 2-core machine)
#   -b DIR   build directory (default build-fuzz in the source tree)
#   FUZZ_ARGS (environment): more libFuzzer options, e.g. FUZZ_ARGS=-max_len=65536; JOBS: the
#   build's parallelism (default: the number of CPUs)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=1
build=$src/build-fuzz
while getopts "p:b:h" opt; do
	case $opt in
	p) jobs=$OPTARG ;;
	b) build=$OPTARG ;;
	*)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
secs=600
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
	secs=$1
	shift
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: -p $jobs: expected a count" >&2; exit 2; }
mkdir -p "$build"
build=$(cd "$build" && pwd)

all=()
for f in "$src"/tests/fuzz/fuzz_*.c; do
	n=${f##*/fuzz_}
	all+=("${n%.c}")
done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
	[[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (${all[*]})" >&2; exit 2; }
done

"$src"/scripts/install-deps.sh
"$src"/scripts/install-deps.sh --with-fuzz
# -Werror off: clang warns where gcc does not (missing field initializers) in library code
CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCOHSCOPE_FUZZ=ON \
	-DCOHSCOPE_WERROR=OFF >/dev/null
cmake --build "$build" -j"${JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}"

# libconfig's own leak on malformed text (tests/fuzz/lsan.supp says which) is not ours to find
export LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}

# run_target NAME: one target for $secs seconds; its log is $build/logs/NAME.log
run_target() {
	local t=$1 corpus=$build/corpus/$1 art=$build/artifacts/$1 log=$build/logs/$1.log tmp
	mkdir -p "$corpus" "$art" "$build/logs"
	cp -n "$src/tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
	tmp=$(mktemp -d "$shm/cohscope-fuzz-$t.XXXXXX")
	touch "$art/.start"
	echo "fuzz.sh: $t for ${secs} s (log $log)"
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
	TMPDIR=$tmp COHSCOPE_SRC=$src "$build/fuzz_$t" -fork=1 -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" -rss_limit_mb=2048 \
		-malloc_limit_mb=1024 -timeout=10 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$art/" ${FUZZ_ARGS:-} "$corpus" >"$log" 2>&1 || true
	rm -rf "$tmp"
	# each finding replayed once for its whole report
	find "$art" -maxdepth 1 -type f -newer "$art/.start" ! -name '*.log' |
		while read -r a; do
			tmp=$(mktemp -d "$shm/cohscope-fuzz-$t.XXXXXX")
			TMPDIR=$tmp COHSCOPE_SRC=$src timeout 120 "$build/fuzz_$t" -rss_limit_mb=2048 \
				-malloc_limit_mb=1024 -timeout=10 "$a" >"$a.log" 2>&1 || true
			rm -rf "$tmp"
		done
	echo "fuzz.sh: $t done"
}

running=0
for t in "${targets[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run_target "$t" &
	running=$((running + 1))
done
wait

# The summary: the fork-mode parent's last status line
# "#EXECS: cov: C ft: F corp: N exec/s E oom/timeout/crash: O/T/X time: Ss ..." per target.
echo
echo "### libFuzzer, ${secs} s per target ($(date -u +%Y-%m-%d), $(clang --version | head -1))"
echo
echo "| target | execs | exec/s | cov | ft | corpus (files, KB) | crash | leak | timeout | oom |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# new_artifacts DIR [NAME-PATTERN]: the findings of this run in DIR, reports left out
new_artifacts() {
	find "$1" -maxdepth 1 -type f -name "${2:-*}" -newer "$1/.start" ! -name '*.log' | sort
}
findings=()
for t in "${targets[@]}"; do
	log=$build/logs/$t.log art=$build/artifacts/$t
	line=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -1 || true)
	# exec/s over the whole run (the line's own exec/s is the last job's)
	read -r execs cov ft eps < <(awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "cov:") c = $(i + 1); if ($i == "ft:") f = $(i + 1)
			if ($i == "time:") s = $(i + 1) + 0
		}
		sub(/^#/, "", $1); sub(/:$/, "", $1)
		print $1, c, f, (s > 0 ? int($1 / s) : "?") }' <<<"${line:-#0: }")
	files=$(find "$build/corpus/$t" -type f | wc -l)
	kb=$(du -sk --apparent-size "$build/corpus/$t" | cut -f1)
	n=()
	for k in crash leak timeout oom; do
		n+=("$(new_artifacts "$art" "$k-*" | wc -l)")
	done
	echo "| $t | ${execs:-0} | ${eps:-?} | ${cov:-?} | ${ft:-?} | $files, $kb |" \
		"${n[0]} | ${n[1]} | ${n[2]} | ${n[3]} |"
	while read -r a; do
		[ -n "$a" ] && findings+=("$t $a")
	done < <(new_artifacts "$art")
done
echo
if [ ${#findings[@]} -eq 0 ]; then
	echo "No findings."
	exit 0
fi
echo "Findings (input, then the report's first lines and top frames; whole report: INPUT.log):"
for f in "${findings[@]}"; do
	a=${f#* }
	echo
	echo "- ${f%% *}: $a"
	grep -E 'ERROR:|runtime error:|SUMMARY:|Direct leak|out-of-memory|timeout after' \
		"$a.log" 2>/dev/null |
		head -3 | sed 's/^/    /'
	# the project's frames (with a source line), the harness's left out
	grep -E '^ +#[0-9]+ 0x[0-9a-f]+ in [^ ]+ /[^ ]+\.[ch]:[0-9]+' "$a.log" 2>/dev/null |
		grep -vE '/tests/fuzz/|compiler-rt|/csu/|sysdeps/' |
		head -5 | sed -E 's/^ +(#[0-9]+) 0x[0-9a-f]+ in /    \1 /'
done
exit 1
