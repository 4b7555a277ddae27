#!/usr/bin/env bash
# tests/cli/ports_ispass.sh BINARY SOURCE_DIR: the ispass suite's ports verify at tiny under none,
# noncoherent and gtsc in detailed and hybrid mode, and fail their checks on a corrupted output
# (tests/cli/ports.bash).
. "$(dirname "$0")/lib.bash" "$@"
. "$(dirname "$0")/ports.bash"

ports_check ispass lib nn wp
exit $((fails > 0))
