"""Regression tests for the crashes and hangs the API fuzzer found (tests/fuzz/FINDINGS.md).

Each reproducer runs in its own Python process, since the bug it guards
against kills the process or never returns. The process must survive, and
the call must either return or raise an exception a caller can expect from
bad input: TypeError, ValueError, IndexError, MemoryError,
NotImplementedError, OverflowError or an ember.errors class other than
InternalError and UnknownError.
"""

import signal
import subprocess
import sys
import textwrap

import pytest

PRELUDE = """\
import numpy as np
import ember


def _read(out):
    if isinstance(out, (list, tuple)):
        for item in out:
            _read(item)
    elif isinstance(out, (ember.Tensor, ember.Variable)):
        out.numpy()


ALLOWED = (TypeError, ValueError, IndexError, MemoryError, NotImplementedError, OverflowError)
BAD = tuple(getattr(getattr(ember, "errors", None), n, ()) for n in ("InternalError", "UnknownError"))
BAD = tuple(b for b in BAD if isinstance(b, type))
ember.config.set_async({is_async})
try:
{body}
    _read(out)
    ember.sync()
except BAD as e:
    print("DISALLOWED", type(e).__name__, e)
except ALLOWED as e:
    if "incompatible function arguments" in str(e):
        print("DISALLOWED", type(e).__name__, e)
    else:
        print("RAISED", type(e).__name__)
except Exception as e:
    if type(e).__module__ == "ember.errors":
        print("RAISED", type(e).__name__)
    else:
        print("DISALLOWED", type(e).__name__, e)
else:
    print("RETURNED")
"""

TIMEOUT = 30  # seconds; a reproducer that is still running then hangs


def run_reproducer(code, mode="sync", returns_ok=True):
    """Runs `code` (which sets `out`) in a fresh process; asserts it survives with an allowed outcome."""
    script = PRELUDE.format(is_async=mode == "async", body=textwrap.indent(textwrap.dedent(code).strip(), "    "))
    try:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: no answer in {TIMEOUT} s ({mode} mode)")
    tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
    if proc.returncode < 0:
        pytest.fail(f"crash: {signal.Signals(-proc.returncode).name} ({mode} mode)\n{tail}")
    assert proc.returncode == 0, f"exit {proc.returncode} ({mode} mode)\n{tail}"
    result = proc.stdout.strip().splitlines()[-1]
    assert not result.startswith("DISALLOWED"), result
    if not returns_ok:
        assert result.startswith("RAISED"), f"expected an error for this input, got {result}"
