#!/usr/bin/env bash
# tests/cli/ports_parboil.sh BINARY SOURCE_DIR: the parboil suite's ports verify at tiny under none,
# noncoherent and gtsc in detailed and hybrid mode, and fail their checks on a corrupted output
# (tests/cli/ports.bash).
. "$(dirname "$0")/lib.bash" "$@"
. "$(dirname "$0")/ports.bash"

ports_check parboil cp lbm mriq sad stencil
exit $((fails > 0))
