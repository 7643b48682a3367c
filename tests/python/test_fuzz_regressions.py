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
import functools

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
    print("OUTCOME DISALLOWED", type(e).__name__, repr(str(e))[:300])
except ALLOWED as e:
    if "incompatible function arguments" in str(e):
        print("OUTCOME DISALLOWED", type(e).__name__, repr(str(e))[:300])
    else:
        print("OUTCOME RAISED", type(e).__name__)
except Exception as e:
    if type(e).__module__ == "ember.errors":
        print("OUTCOME RAISED", type(e).__name__)
    else:
        print("OUTCOME DISALLOWED", type(e).__name__, repr(str(e))[:300])
else:
    print("OUTCOME RETURNED")
"""

TIMEOUT = 30  # seconds; a reproducer that is still running then hangs


def run_reproducer(code, mode="sync", returns_ok=True):
    """Runs `code` (which sets `out`) in a fresh process; asserts it survives with an allowed outcome.

    mode is async or sync; a reproducer from the fuzzer's function mode makes its own ember.function.
    With returns_ok=False the call must raise (the input is invalid), not return."""
    script = PRELUDE.format(is_async=mode == "async", body=textwrap.indent(textwrap.dedent(code).strip(), "    "))
    try:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: no answer in {TIMEOUT} s ({mode} mode)")
    tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
    if proc.returncode < 0:
        pytest.fail(f"crash: {signal.Signals(-proc.returncode).name} ({mode} mode)\n{tail}")
    assert proc.returncode == 0, f"exit {proc.returncode} ({mode} mode)\n{tail}"
    lines = [line for line in proc.stdout.splitlines() if line.startswith("OUTCOME ")]
    assert lines, f"no outcome printed ({mode} mode)\n{tail}"
    result = lines[-1][len("OUTCOME "):]
    assert not result.startswith("DISALLOWED"), result
    if not returns_ok:
        assert result.startswith("RAISED"), f"expected an error for this input, got {result}"


# (id, mode, code): each code sets `out`. The first runs found these on a build of main
# f9d0544 plus the graph-text validation branch; the later ones on main as it was being fixed.
CRASHES = [
    # SIGABRT: std::string built from the NULL that PyUnicode_AsUTF8 returns for a lone surrogate.
    ("surrogate_dtype_string", "sync", "out = ember.cast(np.float32(1), '\\ud800')"),
    ("surrogate_string_attr", "sync",
     "out = ember.nn.bias_add(np.zeros((2, 2), 'float32'), np.zeros(2, 'float32'), data_format='\\ud800')"),
    ("surrogate_padding", "async",
     "out = ember.nn.conv2d(np.zeros((1, 2, 2, 1), 'float32'), np.zeros((1, 1, 1, 1), 'float32'), [1, 1], "
     "'\\ud800')"),
    # SIGSEGV: random ops with a shape whose byte size overflows.
    ("stateless_normal_huge_shape", "sync", "out = ember.random.stateless_normal([2**62], [1, 2])"),
    ("stateless_normal_overflowing_shape", "sync",
     "out = ember.random.stateless_normal([2**63 - 1, 3], [1, 2], np.zeros((3,), 'bool'), "
     "stddev=ember.constant(np.zeros((3,), 'int64')))"),
    ("generator_normal_huge_shape", "async",
     "recv = ember.random.Generator.from_seed(0)\n"
     "out = recv.normal([2**62], stddev=np.ones((6, 1, 1, 6), 'complex64'))"),
    ("generator_truncated_normal_huge_shape", "sync",
     "recv = ember.random.Generator.from_seed(1)\n"
     "out = recv.truncated_normal([2**62], np.zeros((0, 4), 'int32'), np.ones((0, 4), 'float32'))"),
    # Hang: make_seeds built a Python list of `count` seed pairs.
    ("make_seeds_huge_count", "sync", "out = ember.random.Generator.from_seed(1).make_seeds(count=2**63 - 1)"),
    ("make_seeds_count_2_64", "async", "out = ember.random.Generator.from_seed(-1).make_seeds(count=2**64)"),
    # Hang: the host allocator's size-class loop wrapped for requests of 2^63 bytes.
    ("host_allocation_of_2_63_bytes", "sync", "out = ember.zeros([2**63 - 1], dtype='uint8')"),
    ("unsorted_segment_max_huge_num_segments", "sync",
     "out = ember.math.unsorted_segment_max(np.zeros((1, 3), 'uint8'), np.zeros((1, 3), 'int32'), 2**63 - 1)"),
    # SIGSEGV: graph text whose last node line is cut short.
    ("graph_text_truncated_node", "sync", "out = ember.function_from_text('ember.graph 1\\nnode 0 add - -')"),
    ("graph_text_truncated_node_async", "async",
     "out = ember.function_from_text('ember.graph 1\\narg 0 0 float32[2] cpu:0\\nnode 1 add 0:0,0:0 - -')"),
]


@pytest.mark.parametrize("mode,code", [c[1:] for c in CRASHES], ids=[c[0] for c in CRASHES])
def test_crash_and_hang_reproducers(mode, code):
    run_reproducer(code, mode, returns_ok=False)


# Valid calls that hung: work proportional to an attribute while the output
# is empty (Note [Empty outputs] in csrc/ops/kernel_guard.h). They must
# return their empty result.
EMPTY_OUTPUT_HANGS = [
    ("linspace_empty_batch_huge_num", "sync",
     "out = ember.linspace(8, ember.constant(np.full((0,), 2, np.int16)), 1 << 40)"),
    ("linspace_empty_batch_huge_num_async", "async",
     "out = ember.linspace(8, ember.constant(np.full((0,), 2, np.int16)), 1 << 40)"),
    ("linspace_empty_batch_huge_num_function", "sync",
     "out = ember.function(lambda s: ember.linspace(8.0, s, 1 << 40))(np.zeros((0,), np.float32))"),
]


@pytest.mark.parametrize("mode,code", [c[1:] for c in EMPTY_OUTPUT_HANGS], ids=[c[0] for c in EMPTY_OUTPUT_HANGS])
def test_empty_output_reproducers(mode, code):
    run_reproducer(code, mode, returns_ok=True)


# Calls that survived but raised an exception bad input should not raise:
# internals leaking (AttributeError, StopIteration, RecursionError), InternalError
# for malformed input, or pybind11's message that does not name the function.
WRONG_EXCEPTIONS = [
    ("graph_text_bad_length_internal_error", "sync",
     "out = ember.function_from_text('ember.graph 1\\narg 0 0 float32[2] cpu:0\\nnode 1 add 0:0,0:0 - - float32 - "
     "float32[2] cpu:0 x:1\\nno')"),
    ("graph_text_stoll_internal_error", "async",
     "out = ember.function_from_text('ember.graph 1\\narg 0 0 int32[2,2] cpu:0\\nnode 1 reshape 0:0 - - int32 l-1 "
     "int32[-9223372036854775809] cpu:0 x:1\\nreturn 1:0\\n')"),
    ("generator_copy_from_int", "sync", "out = ember.random.Generator(copy_from=5)"),
    ("tensor_spec_from_memoryview", "sync", "out = ember.TensorSpec.from_tensor(memoryview(b'abcd'))"),
    ("function_returns_tensor_spec", "sync", "f = ember.function(lambda: ember.TensorSpec([]))\nout = f()"),
    ("print_sep_int", "async", "out = ember.print(np.zeros(2, 'float32'), sep=3)"),
    ("depthwise_conv2d_data_format_int", "sync",
     "out = ember.nn.depthwise_conv2d(np.zeros((1, 2, 2, 1), 'float32'), np.zeros((1, 1, 1, 1), 'float32'), "
     "[1, 1, 1, 1], 'SAME', data_format=3)"),
    ("function_arg_deep_list", "sync",
     "f = ember.function(lambda a: ember.identity_n(a))\n"
     "out = f([np.zeros(2, 'int32'), functools.reduce(lambda a, _: [a], range(3000), 1.0)])"),
    ("as_dtype_deep_list", "sync", "out = ember.as_dtype(functools.reduce(lambda a, _: [a], range(3000), 1.0))"),
    ("kernel_cache_capacity_huge", "sync", "out = ember.config.set_kernel_cache_capacity(10**400)"),
    ("kernel_cache_capacity_negative", "sync", "out = ember.config.set_kernel_cache_capacity(-2)"),
    ("memory_stats_none", "sync", "out = ember.config.memory_stats(device=None)"),
    ("memory_stats_surrogate", "sync", "out = ember.config.memory_stats('\\ud800')"),
    ("execute_op_name_none", "sync", "out = ember.execute(None, [np.ones((2,), 'float32')], {})"),
    ("function_from_text_int", "sync", "out = ember.function_from_text(5)"),
    ("conv1d_deep_padding", "sync",
     "out = ember.nn.conv1d(np.ones((1, 4, 1), 'float32'), np.ones((2, 1, 1), 'float32'), 1,\n"
     "                      functools.reduce(lambda a, _: [a], range(3000), 'SAME'))"),
]


@pytest.mark.parametrize("mode,code", [c[1:] for c in WRONG_EXCEPTIONS], ids=[c[0] for c in WRONG_EXCEPTIONS])
def test_wrong_exception_reproducers(mode, code):
    run_reproducer(code, mode, returns_ok=False)
