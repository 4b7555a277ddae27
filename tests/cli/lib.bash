# tests/cli/lib.bash - sourced by every tests/cli/*.sh as `. "$(dirname "$0")/lib.bash" "$@"`.
# Sets BIN (the cohscope binary) and SRC (the source tree) from the script's two arguments,
# DEF (the kernel self-check configuration), a scratch directory T that is removed on exit (and made the
# working directory), SMALL (overrides for a run of well under a second), and fail(), which
# counts failures in $fails for the script's final status.
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
