"""Shrinks a crashing call to a smaller one that crashes the same way.

Hypothesis cannot shrink across a process death, so this does it by hand,
greedily, one fresh process per attempt: drop each optional keyword
argument, replace drawn array contents by zeros of the same shape and
dtype, and unwrap ``ember.constant(...)``. A change is kept when the call
still dies with the same signal (or still hangs).
"""

import dataclasses
import re
import signal
import subprocess
import sys
import tempfile

from calls import PRELUDE, Call
from values import Arg

# A drawn array (values.array_src) -> zeros of its shape and dtype.
_DRAWN = (
    (re.compile(r"\(np\.random\.default_rng\(\d+\)\.standard_normal\((\([^()]*\))\) \* 3\)\.astype\('(\w+)'\)"),
     r"np.zeros(\1, '\2')"),
    (re.compile(r"np\.random\.default_rng\(\d+\)\.integers\(-?\d+, \d+, (\([^()]*\))\)\.astype\('(\w+)'\)"),
     r"np.zeros(\1, '\2')"),
    (re.compile(r"np\.random\.default_rng\(\d+\)\.random\((\([^()]*\))\) > 0\.5"), r"np.zeros(\1, 'bool')"),
    (re.compile(r"np\.resize\(np\.array\(\[[^]]*\](?:, '\w+')?\), (\([^()]*\))\)(?:\.astype\('(\w+)'\))?"),
     r"np.zeros(\1, '\2')"),
)
_CONSTANT = re.compile(r"^ember\.constant\((.*)\)$")


def outcome(code, timeout):
    """'crash SIGNAME', 'hang', or 'survived' for a call's code run alone."""
    try:
        proc = subprocess.run([sys.executable, "-c", PRELUDE + code], capture_output=True, timeout=timeout,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return "hang"
    return f"crash {signal.Signals(-proc.returncode).name}" if proc.returncode < 0 else "survived"


def _simpler(src):
    """Simpler spellings of one argument, most promising first."""
    m = _CONSTANT.match(src)
    if m:
        yield m.group(1)
    zeroed = src
    for pattern, repl in _DRAWN:
        zeroed = pattern.sub(repl, zeroed)
    if zeroed != src:
        yield zeroed.replace(", 'None')", ", 'float32')")


def from_dict(d):
    args = tuple(Arg(**a) for a in d["args"])
    kwargs = tuple((k, Arg(**a)) for k, a in d["kwargs"])
    return Call(d["target"], tuple(d["setup"]), d["callee"], args, kwargs, d["traceable"], d.get("recv_param", False))


def minimize(call, mode, expected, timeout=10.0, max_attempts=12):
    """The smallest call found that still has outcome `expected`, and the attempts made."""
    attempts = 0

    def still(candidate):
        nonlocal attempts
        attempts += 1
        return outcome(candidate.code(mode), timeout) == expected

    for i in reversed(range(len(call.kwargs))):  # optional arguments first: most are noise
        if attempts >= max_attempts:
            break
        candidate = dataclasses.replace(call, kwargs=call.kwargs[:i] + call.kwargs[i + 1:])
        if still(candidate):
            call = candidate
    for where in ("args", "kwargs"):
        for i in range(len(getattr(call, where))):
            item = getattr(call, where)[i]
            arg = item[1] if where == "kwargs" else item
            for src in _simpler(arg.src):
                if attempts >= max_attempts:
                    return call, attempts
                new = dataclasses.replace(arg, src=src)
                items = list(getattr(call, where))
                items[i] = (item[0], new) if where == "kwargs" else new
                candidate = dataclasses.replace(call, **{where: tuple(items)})
                if still(candidate):
                    call = candidate
                    break
    return call, attempts
