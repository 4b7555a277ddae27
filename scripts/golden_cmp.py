#!/usr/bin/env python3
"""Compares two directories written by scripts/golden.sh: every report's result, statistics and
kernel figures, and every CSV byte for byte. Host-side figures (host seconds, counters) and the
paths in the recorded configuration differ from run to run and are left out. Prints each
difference (the first few per file) and exits 1 when there is one.
Usage: scripts/golden_cmp.py BASE_DIR NEW_DIR"""
import json
import os
import sys

HOST_KEYS = ('host', 'host_seconds', 'host_counters', 'wall_seconds')


def strip(v):
    """The report without what depends on the host or the checkout's path."""
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items()
                if not k.startswith(HOST_KEYS) and k != 'config'}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append('%s.%s: only in %s' % (path, k, 'base' if k in a else 'new'))
            else:
                diff(a[k], b[k], path + '.' + k, out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, '%s[%d]' % (path, i), out)
    elif a != b:
        out.append('%s: %r -> %r' % (path, a, b))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n')[-1])
    base, new = sys.argv[1], sys.argv[2]
    names = sorted(f for f in os.listdir(base) if f.endswith(('.json', '.csv')))
    bad = 0
    for f in names:
        p, q = os.path.join(base, f), os.path.join(new, f)
        if not os.path.exists(q):
            print('%s: missing in %s' % (f, new))
            bad += 1
            continue
        if f.endswith('.csv'):
            if open(p, 'rb').read() != open(q, 'rb').read():
                print('%s: CSV differs' % f)
                bad += 1
            continue
        out = []
        diff(strip(json.load(open(p))), strip(json.load(open(q))), f[:-5], out)
        if out:
            bad += 1
            print('\n'.join(out[:8]) + ('\n  ... %d more' % (len(out) - 8) if len(out) > 8 else ''))
    print('golden_cmp: %d of %d files equal' % (len(names) - bad, len(names)))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
