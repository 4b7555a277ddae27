# tests/cli/lib.bash - sourced by every tests/cli/*.sh as `. "$(dirname "$0")/lib.bash" "$@"`.
# Sets BIN (the cohscope binary) and SRC (the source tree) from the script's two arguments,
# DEF (the kernel self-check configuration), a scratch directory T that is removed on exit (and made the
# working directory), SMALL (overrides for a run of well under a second), fail(), which
# counts failures in $fails for the script's final status, and check_error(), run in an empty
# directory: a command that must fail with one line and write nothing.
set -u

BIN=$(realpath "${1:?usage: $(basename "$0") BINARY SOURCE_DIR}")
SRC=$(realpath "${2:?usage: $(basename "$0") BINARY SOURCE_DIR}")
DEF=$SRC/configs/selfcheck.cfg
export PYTHONPATH="$SRC/tests/cli${PYTHONPATH:+:$PYTHONPATH}" # clistats.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

SMALL=(--set pingpong.procs=64 --set pingpong.end_ns=2000 --set traffic.iterations=200)
fails=0

fail() {
	fails=$((fails + 1))
	echo "FAIL $*"
}

# check_error STATUS PATTERN ARGS...: `$BIN ARGS...` exits with STATUS, prints one stderr line
# "cohscope: PATTERN..." and nothing on stdout, and writes nothing in the (empty) working
# directory but the captured out and err.
check_error() {
	local want=$1 pat=$2 st
	shift 2
	"$BIN" "$@" >out 2>err
	st=$?
	[ $st -eq "$want" ] || fail "$*: status $st, expected $want ($(cat err))"
	[ "$(wc -l <err)" -eq 1 ] && grep -q "^cohscope: $pat" err || fail "$*: stderr: $(cat err)"
	[ ! -s out ] || fail "$*: stdout: $(cat out)"
	[ "$(ls | tr '\n' ' ')" = "err out " ] || fail "$*: wrote $(ls)"
}
