#!/usr/bin/env bash
# tests/cli/replay_fail.sh BINARY SOURCE_DIR
#
# A trace replay that fails at run time while other warps are mid-stream (issue 43, case 19: the
# replay leaked each abandoned warp's op buffer, 819 KB under LeakSanitizer). The trace, written
# here, is a cohscope trace (.cst, the body in a stored zstd frame) of one kernel, 8 CTAs x 4
# warps of 100 loads each; warp 0's second load is misaligned. The loader does not check
# alignment, the SM does as the kernel runs: the run exits 3 with one line naming the address
# (not the loader's "corrupt" line: then the replay would no longer fail at run time and this
# test would check nothing) and writes no output file. Under `make asan` (label sanitize) a
# leak is a second stderr line and exit status 1.
. "$(dirname "$0")/lib.bash" "$@"

python3 - >misaligned.cst <<'EOF'
import struct, sys
M = (1 << 64) - 1
def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80)
        v >>= 7
    return bytes(b + bytes([v]))
def zz(d):  # zigzag of a 64-bit difference
    d &= M
    return (d << 1 & M) ^ (M if d >> 63 else 0)
def text(s):
    return struct.pack('<I', len(s)) + s
BASE, CTAS, WPC, LOADS = 0x10000, 8, 4, 100
# body (workloads/trace/trace.c build_body): source, workload, heap; one kernel: name, CTAs,
# warps per CTA, registers, scratchpad, lanes, no placement; per warp its op count, length, ops
body = text(b'cohscope') + text(b'replay_fail') + struct.pack('<QQ', BASE, BASE + 0x10000)
body += b'\x02' + text(b'k') + struct.pack('<IIIIBB', CTAS, WPC, 0, 0, 32, 0)
for w in range(CTAS * WPC):
    ops, prev = bytearray(), 0
    for i in range(LOADS):
        a = BASE + 128 * w + (2 if w == 0 and i == 1 else 0)
        ops += b'\x21' + varint(1) + varint(zz(a - prev))  # LD, 4 bytes, lane 0
        ops += b'\x06' + varint(20)  # COMPUTE, 20 cycles
        prev = a
    body += struct.pack('<QQ', 2 * LOADS, len(ops)) + ops
body += b'\x00'
# zstd frame (RFC 8878): no checksum, 128 KiB window, raw (stored) blocks
frame = bytes([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])
for o in range(0, len(body), 1 << 17):
    blk = body[o:o + (1 << 17)]
    frame += struct.pack('<I', len(blk) << 3 | (o + len(blk) == len(body)))[:3] + blk
sys.stdout.buffer.write(b'CSTRACE\0' + struct.pack('<IIQ', 3, 0, len(body)) + frame)
EOF
[ -s misaligned.cst ] || fail "could not write the trace"

mkdir run && cd run || exit 1
check_error 3 "sm[0-9]*: warp 0 lane 0: address 0x[0-9a-f]* is not aligned to 4 bytes$" \
	run -c "$SRC/configs/default.cfg" -w "trace:$T/misaligned.cst" --mode detailed -q \
	-o out.json

[ "$fails" -eq 0 ] && echo "all passed"
[ "$fails" -eq 0 ]
