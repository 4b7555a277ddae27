#!/usr/bin/env bash
# tests/cli/bad_input.sh BINARY SOURCE_DIR
#
# Bad input (config file, --set, workload, command line, output path) must give exactly one
# line on stderr, "cohscope: ...", naming the file and line (for a file) and the problem, the
# documented exit status (2 usage, 3 bad input, 4 output not written; cli/main.c), no signal or
# hang, and no output file, whole or partial, nor a leftover OUT.tmp.* temporary.
. "$(dirname "$0")/lib.bash" "$@"

# Small runs: a case that wrongly succeeds finishes quickly too.

cases=0

bad() { # bad NAME STATUS FRAGMENT... -- ARGS...
	local name=$1 want=$2 out="" prev="" a rc nlines line f
	local -a frags=() args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		frags+=("$1")
		shift
	done
	shift
	args=("$@")
	for a in "${args[@]}"; do
		if [ "$prev" = "-o" ] || [ "$prev" = "--output" ] || [ "$prev" = "--csv" ]; then
			out=$a
		fi
		prev=$a
	done
	cases=$((cases + 1))
	rm -f stdout stderr
	timeout 20 "$BIN" "${args[@]}" >stdout 2>stderr
	rc=$?
	local why=""
	if [ "$rc" -ge 124 ]; then
		why="killed or timed out (status $rc)"
	elif [ "$rc" -ne "$want" ]; then
		why="status $rc, expected $want"
	fi
	nlines=$(wc -l <stderr)
	line=$(head -n 1 stderr)
	if [ -z "$why" ] && { [ "$nlines" -ne 1 ] || [ "$(wc -c <stderr)" -ne $((${#line} + 1)) ]; }; then
		why="stderr has $nlines lines, expected exactly one"
	fi
	if [ -z "$why" ] && [ "${line#cohscope: }" = "$line" ]; then
		why="stderr does not start with 'cohscope: '"
	fi
	for f in "${frags[@]}"; do
		if [ -z "$why" ] && [[ "$line" != *"$f"* ]]; then
			why="message lacks '$f'"
		fi
	done
	# Input and usage errors are found before anything runs: nothing on stdout.
	if [ -z "$why" ] && [ "$want" -ne 4 ] && [ -s stdout ]; then
		why="stdout not empty"
	fi
	if [ -z "$why" ] && [ -n "$out" ]; then
		if [ -e "$out" ] && [ ! -d "$out" ]; then # outdir: a directory on purpose
			why="output file $out was written"
		elif compgen -G "$out.tmp.*" >/dev/null 2>&1; then
			why="temporary $out.tmp.* left behind"
		fi
	fi
	if [ -n "$why" ]; then
		fails=$((fails + 1))
		echo "FAIL $name: $why"
		echo "  command: cohscope ${args[*]}"
		sed 's/^/  stderr: /' stderr
		head -n 5 stdout | sed 's/^/  stdout: /'
	else
		echo "ok   $name: $line"
	fi
	[ -d "$out" ] || rm -f "$out"
}

good() { # good NAME ARGS...: status 0, something on stdout, nothing on stderr
	local name=$1 rc
	shift
	cases=$((cases + 1))
	timeout 20 "$BIN" "$@" >stdout 2>stderr
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s stdout ] || [ -s stderr ]; then
		fails=$((fails + 1))
		echo "FAIL $name: status $rc, stdout $(wc -c <stdout) bytes, stderr $(wc -c <stderr) bytes"
		sed 's/^/  stderr: /' stderr
	else
		echo "ok   $name"
	fi
}

# ---- bad configuration files (run from $T, so messages name them as given) -------------------

printf 'sim = {\n  seed = 1;\n  queue = ;\n};\n' >syntax.cfg
printf '# a typo\nsim = {\n  queue = "wheel";\n  sede = 3;\n};\n' >bad.cfg
printf 'sim = {\n  seed = 1;\n};\n\nmemroy = {\n  latency_ns = 20;\n};\n' >section.cfg
printf 'sim = {\n  quantum_ns = 10;\n  seed = "one";\n};\n' >type.cfg
printf 'memory = {\n  accept_ns = 2;\n  latency_ns = 0;\n};\n' >range.cfg
printf 'sim = {\n  seed = 1;\n  queue = "whel";\n};\n' >enum.cfg
printf 'sim = {\n  seed = 5000000000;\n};\n' >bigint.cfg
printf 'sim = {\n  seed = 0x1FFFFFFFFFFFFFFFFL;\n};\n' >hex65.cfg
printf 'sim = {\n  seed = -1;\n};\n' >negative.cfg
printf '\nsim = 5;\n' >notgroup.cfg
printf 'sim = {\n  seed = 1;\n  seed = 2;\n};\n' >dup.cfg
printf '@include "nowhere.cfg"\n' >include.cfg
printf 'pingpong = {\n  procs = 63;\n};\n' >odd.cfg
printf 'system = {\n  type = "gpu";\n};\ngpu = {\n  sms = 16;\n};\nnoc = {\n  mesh_cols = 4;\n  mesh_rows = 2;\n  concentration = 2;\n};\n' >mesh.cfg
mkdir adir

bad missing-config 3 "missing.cfg" "cannot open" -- run -c missing.cfg -o out.json "${SMALL[@]}"
bad config-is-directory 3 "adir" "cannot open" -- run -c adir -o out.json
bad syntax-error 3 "syntax.cfg:3:" "syntax error" -- run -c syntax.cfg -o out.json
bad unknown-key 3 "bad.cfg:4:" "unknown key 'sede'" "did you mean 'seed'" -- \
	run -c bad.cfg -o out.json "${SMALL[@]}"
bad unknown-section 3 "section.cfg:5:" "unknown section 'memroy'" "did you mean 'memory'" -- \
	run -c section.cfg -o out.json "${SMALL[@]}"
bad wrong-type 3 "type.cfg:3:" "sim.seed" "expected an unsigned integer, got a string" -- \
	run -c type.cfg -o out.json
bad out-of-range 3 "range.cfg:3:" "memory.latency_ns = 0" "out of range" -- \
	run -c range.cfg -o out.json "${SMALL[@]}"
bad bad-enum 3 "enum.cfg:3:" "sim.queue" "whel" "did you mean 'wheel'" -- \
	run -c enum.cfg -o out.json
bad big-int-without-L 3 "bigint.cfg:2:" "5000000000" "L suffix" -- run -c bigint.cfg -o out.json
bad hex-beyond-64-bits 3 "hex65.cfg:2:" "does not fit in 64 bits" -- run -c hex65.cfg -o out.json
bad negative-unsigned 3 "negative.cfg:2:" "sim.seed" "negative" -- run -c negative.cfg -o out.json
bad section-not-a-group 3 "notgroup.cfg:2:" "'sim' must be a group" -- run -c notgroup.cfg
bad duplicate-key 3 "dup.cfg:" "duplicate" -- run -c dup.cfg -o out.json
bad missing-include 3 "include.cfg:1:" -- run -c include.cfg -o out.json
bad config-dump-bad-file 3 "bad.cfg:4:" "did you mean 'seed'" -- config -c bad.cfg --dump
bad odd-procs-in-file 3 "pingpong.procs" "even" -- run -c odd.cfg -o out.json
bad mesh-too-small 3 "mesh.cfg:9:" "noc.mesh_rows = 2" "24 endpoints do not fit" \
	"noc.concentration (2)" -- run -c mesh.cfg -o out.json

# ---- --set ----------------------------------------------------------------------------------------

bad set-no-equals 3 "--set sim.seed" "expected section.key=value" -- \
	run -c "$DEF" --set sim.seed -o out.json
bad set-no-section 3 "--set seed=1" "expected section.key=value" -- run -c "$DEF" --set seed=1
bad set-three-parts 3 "--set a.b.c=1" "expected section.key=value" -- run -c "$DEF" --set a.b.c=1
bad set-unknown-key 3 "--set sim.sede=3" "unknown key 'sede'" "did you mean 'seed'" -- \
	run -c "$DEF" --set sim.sede=3 -o out.json
bad set-unknown-section 3 "--set memroy.latency_ns=3" "unknown section 'memroy'" \
	"did you mean 'memory'" -- run -c "$DEF" "${SMALL[@]}" --set memroy.latency_ns=3 -o out.json
bad set-bad-value 3 "--set sim.seed=abc" "expected an unsigned integer" -- \
	run -c "$DEF" --set sim.seed=abc -o out.json
bad set-empty-value 3 "--set sim.seed=" "expected an unsigned integer" -- \
	run -c "$DEF" --set sim.seed=
bad set-out-of-range 3 "--set memory.accept_ns=0" "out of range" -- \
	run -c "$DEF" "${SMALL[@]}" --set memory.accept_ns=0 -o out.json
bad set-beyond-64-bits 3 "--set sim.seed=99999999999999999999" "out of range" -- \
	run -c "$DEF" --set sim.seed=99999999999999999999
bad set-bad-enum 3 "--set sim.queue=whel" "did you mean 'wheel'" -- \
	run -c "$DEF" --set sim.queue=whel -o out.json
# A newline in an argument must not split the message into two lines.
bad set-value-with-newline 3 "--set sim.queue=a" "not one of" -- \
	run -c "$DEF" --set "$(printf 'sim.queue=a\nb')" -o out.json

# ---- system, workload, mode -----------------------------------------------------------------------

bad unknown-workload 3 "unknown workload 'pingpog'" "did you mean 'pingpong'" -- \
	run -c "$DEF" -w pingpog -o out.json
bad unknown-system 3 "selfchek" "did you mean 'selfcheck'" -- \
	run -c "$DEF" --set system.type=selfchek -o out.json
bad mode-hybrid-unsupported 3 "mode 'hybrid' is not available for system 'selfcheck'" -- \
	run -c "$DEF" --mode hybrid -o out.json
bad mode-analytic-unsupported 3 "mode 'analytic' is not available" -- \
	run -c "$DEF" --mode analytic -o out.json
bad mode-bogus 2 "--mode bogus" -- run -c "$DEF" --mode bogus -o out.json
bad odd-procs 3 "pingpong.procs" "63" "even" -- \
	run -c "$DEF" "${SMALL[@]}" --set pingpong.procs=63 -o out.json
bad latency-below-accept 3 "memory.latency_ns" "memory.accept_ns" -- \
	run -c "$DEF" "${SMALL[@]}" --set memory.latency_ns=3 --set memory.accept_ns=4 -o out.json
bad initiators-beyond-ports 3 "traffic.initiators" "memory.ports" -- \
	run -c "$DEF" "${SMALL[@]}" --set memory.ports=8 --set traffic.initiators=9 -o out.json

# ---- inputs that parse but hold nothing: an error, never a silent empty run (issue 15) --------

GPU=$SRC/configs/default.cfg
mkdir kl-hello kl-empty kl-copies kl-missing
echo 'hello world' >kl-hello/kernelslist.g
: >kl-empty/kernelslist.g
printf '# copies only\nMemcpyHtoD,0x7f0000000000,256\n' >kl-copies/kernelslist.g
printf 'MemcpyHtoD,0x7f0000000000,256\nkernel-1.traceg\n' >kl-missing/kernelslist.g
bad kernelslist-no-kernel 3 "kl-hello/kernelslist.g:1:" "no kernel" -- \
	run -c "$GPU" -w trace:kl-hello -o out.json
bad kernelslist-empty 3 "kl-empty/kernelslist.g:1:" "no kernel" -- \
	run -c "$GPU" -w trace:kl-empty -o out.json
bad kernelslist-copies-only 3 "kl-copies/kernelslist.g:2:" "no kernel" -- \
	run -c "$GPU" -w trace:kl-copies -o out.json
bad kernelslist-missing-kernel 3 "kl-missing/kernelslist.g:2:" "cannot open kernel-1.traceg" -- \
	run -c "$GPU" -w trace:kl-missing -o out.json
bad run-empty-workload 2 "run: -w: an empty workload list" -- run -c "$GPU" -w "" -o out.json
bad suite-empty-workload 2 "suite: -w: an empty workload list" -- suite -c "$GPU" -w "" -o out.json
: >empty.cal
printf 'calibration = {\n};\n' >group.cal
printf 'calibration = {\n  a = 1.0;\n  b_noc = "x";\n};\n' >nan.cal
CAL=(run -c "$GPU" -w hs --mode analytic --set workload.size=tiny -o out.json)
bad calibration-empty 3 "empty.cal:1:" "no calibration group" -- \
	"${CAL[@]}" --set sampling.calibration=empty.cal
bad calibration-empty-group 3 "group.cal:1:" "the calibration group is empty" -- \
	"${CAL[@]}" --set sampling.calibration=group.cal
bad calibration-not-a-number 3 "nan.cal:3:" "calibration.b_noc is not a number" -- \
	"${CAL[@]}" --set sampling.calibration=nan.cal
printf 'C empty\n{}\nP0(int *x)\n{\n}\n\nP1(int *x)\n{\n}\nexists (x=1)\n' >empty.litmus
bad litmus-no-instruction 3 "empty.litmus:3:" "no thread has an instruction" -- \
	litmus empty.litmus -c "$GPU" --iterations 2 --json out.json
: >empty.expect
printf '# comments only\n\n' >comments.expect
bad litmus-expect-empty 3 "empty.expect:1:" "no expectation" -- \
	litmus "$SRC/tests/litmus/CoRR.litmus" -c "$GPU" --iterations 2 --expect empty.expect \
	--json out.json
bad litmus-expect-comments 3 "comments.expect:2:" "no expectation" -- \
	litmus "$SRC/tests/litmus/CoRR.litmus" -c "$GPU" --iterations 2 --expect comments.expect \
	--json out.json
printf 'GPU_PTX bad\n{\n0:.reg .s32 r0;\n}\n P0 ;\n ld.cg.s32 r0,[r0] ;\nexists (0:r0=1)\n' >ptxbad.litmus
bad litmus-ptx-address 3 "ptxbad.litmus:6:" "holds no address" -- \
	litmus ptxbad.litmus -c "$GPU" --iterations 2 --json out.json
printf 'PTX bad\n{}\n P0@cta 0,gpu 0 ;\n ld.acquire r1, x ;\nexists (P0:r1=0)\n' >ptxscope.litmus
bad litmus-ptx-scope 3 "ptxscope.litmus:4:" "ld needs a scope" -- \
	litmus ptxscope.litmus -c "$GPU" --iterations 2 --json out.json
printf 'C none\n{}\nexists (x=1)\n' >nothread.litmus
bad litmus-no-thread 3 "nothread.litmus:3:" "expected a thread" -- \
	litmus nothread.litmus -c "$GPU" --iterations 2 --json out.json

# ---- issue 43: every input bounded, every error at its origin ------------------------------------
# Each case failed before its fix (exit 0, a hang, unbounded memory, or a line naming the wrong
# place); the number is the issue's.

APU=$SRC/configs/apu-2200g.cfg
TREE=$SRC/configs/apu-2200g-tree.cfg
TINY=(--set workload.size=tiny)
# 1, 2: a reader of /dev/zero stops at its cap
bad i43-01-plot-dev-zero 3 "/dev/zero: larger than" "the limit for a plot input" -- \
	plot /dev/zero -o z
bad i43-02-config-dev-zero 3 "/dev/zero: larger than 1048576 bytes" -- run -c /dev/zero -o out.json
# 3: a copy larger than a trace's device memory, refused before the granule map grows
mkdir kl-huge
printf 'MemcpyHtoD,0x7f0000000000,9223372036854775807\nkernel-1.traceg\n' >kl-huge/kernelslist.g
bad i43-03-accelsim-copy 3 "kl-huge/kernelslist.g:1: a copy of 9223372036854775807 bytes" -- \
	run -c "$GPU" -w trace:kl-huge -o out.json
# 4: a graph file declaring 2e9 nodes
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n2000000000 2000000000 1\n' >huge.mtx
bad i43-04-mtx-nodes 3 "huge.mtx:2: size line: 2000000000 rows (1 to 4194304)" -- \
	run -c "$SRC/configs/hlrc-128cu.cfg" -w sssp "${TINY[@]}" --set workload.graph_file=huge.mtx \
	-o out.json
# 5: litmus run time is linear in --jitter
bad i43-05-litmus-jitter 2 "--jitter 4000000000" "from 0 to 1000000" -- \
	litmus "$SRC/tests/litmus/CoRR.litmus" -c "$GPU" --jitter 4000000000 --json out.json
# 6: calibration coefficients the model cannot use
for a in 1e308 1e400 -1 99999999999; do
	printf 'calibration = {\n  a = %s;\n  b_noc = 0.1;\n  b_l2 = 0.1;\n  b_dram = 0.1;\n  c = 0.5;\n};\n' \
		"$a" >"a$a.cal"
	bad "i43-06-calibration-a=$a" 3 "a$a.cal:2: calibration.a = " "outside [0.3, 3]" -- \
		"${CAL[@]}" --set "sampling.calibration=a$a.cal"
done
printf 'calibration = {\n  a = 1.0;\n  b_noc = 0.1;\n  b_l2 = 0.1;\n  b_dram = 0.1;\n  c = 1;\n};\n' >c1.cal
bad i43-06-calibration-c=1 3 "c1.cal:6: calibration.c = 1 is outside [0, 0.95]" -- \
	"${CAL[@]}" --set sampling.calibration=c1.cal
# 9: values of keys this run does not use
bad i43-09-memctrl-net2 3 "--set channels.net2=abc" "only a bridge is on a second network" -- \
	run -c "$APU" --set channels.net2=abc -o out.json
bad i43-09-system-workload 3 "--set system.workload=nosuch" "unknown workload" -- \
	run -c "$GPU" -w hs "${TINY[@]}" --set system.workload=nosuch -o out.json
bad i43-09-calibration-cpu 3 "--set sampling.calibration=nosuch" "nosuch: cannot open" -- \
	run -c "$SRC/configs/cpu-tso.cfg" --set sampling.calibration=nosuch -o out.json
bad i43-09-graph-file 3 "--set workload.graph_file=nosuch" "nosuch: cannot open" -- \
	run -c "$GPU" -w hs "${TINY[@]}" --set workload.graph_file=nosuch -o out.json
bad i43-09-dram-watermarks 3 "--set dram.wr_low=1" "dram.wr_low (1) must not be above dram.wr_high (0)" -- \
	run -c "$GPU" -w hs "${TINY[@]}" --set dram.wr_low=1 --set dram.wr_high=0 -o out.json
# 11, 13, 16: @include errors at the @include
mkdir incdir
printf 'sim = { seed = 1; };\n@include "incdir"\n' >inc-dir.cfg
bad i43-11-include-directory 3 "inc-dir.cfg:2: @include \"incdir\": incdir is a directory" -- \
	run -c inc-dir.cfg -o out.json
mkdir sub
printf 'sim = { seed = 2; };\n' >sub/inc.cfg
printf 'x\n@include "inc.cfg"\n' >sub/stray.cfg
bad i43-13-stray-token 3 "sub/stray.cfg:2: syntax error before @include \"inc.cfg\"" -- \
	run -c sub/stray.cfg -o out.json
printf '@include "%s"\n' "$GPU" >abs.cfg
bad i43-16-absolute-include 3 "abs.cfg:1: @include \"$GPU\": an absolute path" -- \
	run -c abs.cfg -o out.json
# 12: a network name, at the key that gave it
bad i43-12-network-name 3 "--set corepairs.net=a b" "not a section name" -- \
	run -c "$APU" --set "corepairs.net=a b" -o out.json
bad i43-12-network-typo 3 "--set corepairs.net=nco" "did you mean 'noc'" -- \
	run -c "$APU" --set corepairs.net=nco -o out.json
# 14: cross-parameter checks name the keys as given, with their origin, before building
bad i43-14-renamed-section 3 "--set gpu_xbar.buffer_flits=1: network gpu_xbar: gpu_xbar.buffer_flits (1)" -- \
	run -c "$TREE" --set gpu_xbar.buffer_flits=1 -o out.json
bad i43-14-tcc-count 3 "--set tccs.count=4096" "at most 64 CorePairs and TCC slices" -- \
	run -c "$APU" --set tccs.count=4096 -o out.json
# 15: a kernel that fits on no SM is a configuration error, at the key
bad i43-15-no-fit 3 "--set core.warps=1: kernel 'bfs' does not fit on an SM" -- \
	run -c "$GPU" -w bfs "${TINY[@]}" --set core.warps=1 -o out.json
# 17: an option taken as a file name
bad i43-17-output-option 2 "run: -o -q: the value looks like an option" -- \
	run -c "$GPU" "${TINY[@]}" -o -q
cases=$((cases + 1))
if [ -e ./-q ]; then
	fails=$((fails + 1))
	echo "FAIL i43-17-output-option: a file named -q was written"
fi
# 18: -o and --csv, both or neither
bad i43-18-outputs-together 4 "/nonexistent/x.csv" "cannot write" -- \
	run -c "$GPU" "${TINY[@]}" -q -o ok18.json --csv /nonexistent/x.csv
cases=$((cases + 1))
if [ -e ok18.json ]; then
	fails=$((fails + 1))
	echo "FAIL i43-18-outputs-together: ok18.json written though --csv failed"
fi

# ---- command line ---------------------------------------------------------------------------------

bad no-command 2 "no command" -- # bare cohscope, no arguments
bad unknown-option 2 "unknown option '--bogus'" -- run -c "$DEF" --bogus -o out.json
bad option-without-value 2 "needs a value" -- run -c "$DEF" -o
bad run-without-config 2 "-c CONFIG is required" -- run -o out.json
bad run-stray-argument 2 "unexpected argument 'stray'" -- run -c "$DEF" stray -o out.json
bad run-with-dump 2 "--dump" -- run -c "$DEF" --dump -o out.json
bad unknown-command 2 "unknown command 'frob'" -- frob
bad list-bogus 2 "unknown list 'bogus'" -- list bogus
bad list-two-arguments 2 "too many arguments" -- list systems workloads
bad config-without-dump 2 "nothing to do" "--dump" -- config -c "$DEF"
bad config-with-output 2 "belong to 'run'" -- config -c "$DEF" --dump -o out.json
bad config-unknown-option 2 "unknown option" -- config --bogus --dump

# ---- output that cannot be written: status 4, the path named, nothing written ---------------------

bad output-dir-missing 4 "/nonexistent/x.json" "cannot write" -- \
	run -c "$DEF" "${SMALL[@]}" -q -o /nonexistent/x.json
bad csv-dir-missing 4 "/nonexistent/x.csv" "cannot write" -- \
	run -c "$DEF" "${SMALL[@]}" -q --csv /nonexistent/x.csv
mkdir outdir
bad output-is-directory 4 "outdir" "cannot write" -- run -c "$DEF" "${SMALL[@]}" -q -o outdir
cases=$((cases + 1))
if [ ! -d outdir ] || compgen -G "outdir.tmp.*" >/dev/null; then
	fails=$((fails + 1))
	echo "FAIL output-is-directory: directory replaced or temporary left"
fi
if [ -w /dev/full ]; then
	# stdout is buffered: a dump to a full disk must still be reported.
	cases=$((cases + 1))
	timeout 20 "$BIN" config -c "$DEF" --dump >/dev/full 2>stderr
	rc=$?
	if [ "$rc" -ne 4 ] || [ "$(wc -l <stderr)" -ne 1 ] || ! grep -q '^cohscope: .*cannot write' stderr; then
		fails=$((fails + 1))
		echo "FAIL dump-to-full-disk: status $rc (expected 4)"
		sed 's/^/  stderr: /' stderr
	else
		echo "ok   dump-to-full-disk: $(cat stderr)"
	fi
fi

# A failing run leaves an existing output file as it was.
cases=$((cases + 1))
echo "previous" >keep.json
timeout 20 "$BIN" run -c bad.cfg -o keep.json >/dev/null 2>&1
if [ "$(cat keep.json)" != "previous" ] || compgen -G "keep.json.tmp.*" >/dev/null; then
	fails=$((fails + 1))
	echo "FAIL keep-old-output: keep.json changed by a failed run"
else
	echo "ok   keep-old-output"
fi

# ---- good invocations: status 0, output on stdout, nothing on stderr ------------------------------

printf 'sim = {\n  seed = 5000000000L;\n};\n' >bigint_ok.cfg
good help --help
good help-help help --help
good help-help-help help help
good help-calibrate help calibrate
# issue 43's help: every message that lists the commands lists all of them, the same way
every="run, suite, litmus, calibrate, sweep, collect, study, plot, list, config, help"
bad i43-no-command-lists-all 2 "no command ($every;" --
bad i43-unknown-command-lists-all 2 "unknown command 'frob' ($every)" -- frob
bad i43-help-unknown-lists-all 2 "help: no command 'frob' ($every)" -- help frob
bad i43-calibrate-train 3 "calibrate: --train: 'stream' is not a benchmark of the gtsc suite" -- \
	calibrate -c "$GPU" --train bfs,stream -o out.cal
cases=$((cases + 1))
if ! "$BIN" --help | grep -q "(gtsc, hsc, hlrc)" || ! "$BIN" help calibrate | grep -q "at least"; then
	fails=$((fails + 1))
	echo "FAIL i43-help-text: --help lacks the three studies or calibrate's help the training set"
fi
cases=$((cases + 1))
if "$BIN" list configs | grep -q "apu-2200g-base"; then
	fails=$((fails + 1))
	echo "FAIL i43-list-configs: list configs names a file that is not a configuration"
fi
good help-short -h
good run-help run --help
good config-help config --help
good list-help list --help
good help-run help run
good list list
good list-workloads list workloads
good version --version
good big-int-with-L run -c bigint_ok.cfg "${SMALL[@]}" -o ok.json
good small-run run -c "$DEF" "${SMALL[@]}"
cases=$((cases + 1))
if ! grep -q '^cohscope [0-9]' <("$BIN" --version); then
	fails=$((fails + 1))
	echo "FAIL version-text: $("$BIN" --version)"
fi

echo "$((cases - fails))/$cases passed"
[ "$fails" -eq 0 ]
