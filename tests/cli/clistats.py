# tests/cli/clistats.py - what the command-line tests' Python checks share (lib.bash puts this
# folder on PYTHONPATH): reading a statistic of a result JSON that may be missing.


def getter(stats, bad):
    """v(name[, d]): d[name] (d = stats unless given), or 0 after adding "no stat NAME" to bad."""

    def v(name, d=None):
        d = stats if d is None else d
        if name not in d:
            bad.append("no stat " + name)
            return 0
        return d[name]

    return v
