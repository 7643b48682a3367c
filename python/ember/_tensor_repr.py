"""How tensors show themselves: repr, str, the notebook's HTML view, and
the print options they share.

A repr never raises: it is what a debugger, a traceback or a notebook
shows, often exactly when something went wrong. A tensor whose op failed
shows the error; a symbolic tensor (inside a trace) shows that it has no
value. Values are summarized like NumPy's, under NumPy's print options
with Ember's overrides on top (set_printoptions).
"""

import contextlib
import threading

import numpy as np

from ember import _C

_NUMPY_OPTION_NAMES = ("precision", "threshold", "edgeitems", "linewidth", "suppress", "nanstr", "infstr",
                       "sign", "floatmode", "legacy")
_overrides = {}
_overrides_lock = threading.Lock()


def set_printoptions(**options):
    """Sets how tensors print, with NumPy's option names.

    ``precision``, ``threshold`` (more elements than this are summarized),
    ``edgeitems``, ``linewidth``, ``suppress``, ``nanstr``, ``infstr``,
    ``sign``, ``floatmode``, ``legacy``. An option set to ``None`` goes back
    to following ``numpy.get_printoptions()``. Applies to ``repr``, ``str``,
    ``print`` of a tensor and the notebook view; NumPy's own printing is
    left as it is.
    """
    unknown = sorted(set(options) - set(_NUMPY_OPTION_NAMES))
    if unknown:
        raise TypeError(f"set_printoptions: unknown option(s) {', '.join(unknown)}; "
                        f"the options are {', '.join(_NUMPY_OPTION_NAMES)}")
    with np.printoptions(**{k: v for k, v in options.items() if v is not None}):
        pass  # NumPy validates the values
    with _overrides_lock:
        for key, value in options.items():
            if value is None:
                _overrides.pop(key, None)
            else:
                _overrides[key] = value


def get_printoptions():
    """The print options tensors use now: NumPy's, with Ember's overrides."""
    options = np.get_printoptions()
    with _overrides_lock:
        options.update(_overrides)
    return options


@contextlib.contextmanager
def printoptions(**options):
    """Sets print options for the duration of a ``with`` block."""
    with _overrides_lock:
        saved = dict(_overrides)
    set_printoptions(**options)
    try:
        yield get_printoptions()
    finally:
        with _overrides_lock:
            _overrides.clear()
            _overrides.update(saved)


def _numpy_options():
    with _overrides_lock:
        return dict(_overrides)


def _state(tensor):
    """(value, error, symbolic): the value as a NumPy array, or the error
    reading it raised, or symbolic=True for a tensor being traced."""
    if _C._is_symbolic(tensor):
        return None, None, True
    try:
        return tensor._numpy(), None, False
    except Exception as error:  # noqa: BLE001 - shown, not raised: a repr must not fail
        return None, error, False


def _error_text(error):
    message = str(error)
    if len(message) > 300:
        message = message[:297] + "..."
    return f"{type(error).__name__}({message!r})"


def _array_text(value, separator):
    with np.printoptions(**_numpy_options()):
        return np.array2string(value, separator=separator)


def value_field(tensor):
    """The last field of a repr: ``value=...``, ``error=...`` or ``symbolic``."""
    value, error, symbolic = _state(tensor)
    if symbolic:
        return "symbolic"
    if error is not None:
        return f"error={_error_text(error)}"
    return f"value={_array_text(value, ', ')}"


def tensor_repr(tensor):
    return f"<ember.Tensor shape={tensor.shape} dtype={tensor.dtype.name} device={tensor.device} " \
        f"{value_field(tensor)}>"


def tensor_str(tensor):
    value, error, symbolic = _state(tensor)
    if symbolic:
        text = "<symbolic>"
    elif error is not None:
        text = f"<error: {_error_text(error)}>"
    else:
        text = _array_text(value, " ")
    return f"ember.Tensor({text}, shape={tensor.shape}, dtype={tensor.dtype.name})"


def _cell(value, precision):
    if not isinstance(value, (float, np.floating)):
        return str(value)
    if value == 0 or (np.isfinite(value) and 1e-4 <= abs(value) < 1e16):
        return np.format_float_positional(value, precision=precision, trim="-")
    return np.format_float_scientific(value, precision=precision, trim="-")


def _summary_indices(n, edgeitems, summarize):
    """The indices shown along an axis of length n; None marks the gap."""
    if not summarize or n <= 2 * edgeitems:
        return list(range(n))
    return list(range(edgeitems)) + [None] + list(range(n - edgeitems, n))


def _html_table(value, options):
    import html  # for notebooks only: html.entities is 0.2 MiB of every process
    summarize = value.size > options["threshold"]
    edgeitems = options["edgeitems"]
    precision = options["precision"]
    matrix = value.reshape(1, -1) if value.ndim == 1 else value
    rows = _summary_indices(matrix.shape[0], edgeitems, summarize)
    cols = _summary_indices(matrix.shape[1], edgeitems, summarize)
    lines = ["<table>"]
    for r in rows:
        cells = []
        for c in cols:
            if r is None or c is None:
                cells.append("<td>&hellip;</td>")
            else:
                cells.append(f"<td>{html.escape(_cell(matrix[r, c], precision))}</td>")
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return "".join(lines)


def tensor_html(tensor):
    """The notebook view: shape, dtype, device and state; the values as a
    table for 1-D and 2-D tensors (summarized when large), as text otherwise."""
    import html
    value, error, symbolic = _state(tensor)
    shape = "(" + ", ".join("None" if d is None else str(d) for d in tensor.shape) + \
        ("," if len(tensor.shape) == 1 else "") + ")"
    facts = [("shape", shape), ("dtype", tensor.dtype.name), ("device", str(tensor.device))]
    if symbolic:
        facts.append(("state", "symbolic (being traced; it has no value)"))
    elif error is not None:
        facts.append(("state", "error"))
        facts.append(("error", _error_text(error)))
    else:
        facts.append(("state", "ready"))
    header = " &middot; ".join(f"<b>{name}</b> {html.escape(text)}" for name, text in facts)
    parts = [f"<div class=\"ember-tensor\"><div>ember.Tensor &middot; {header}</div>"]
    if value is not None:
        options = get_printoptions()
        if value.ndim in (1, 2) and value.size > 0:
            parts.append(_html_table(value, options))
        else:
            parts.append(f"<pre>{html.escape(_array_text(value, ', '))}</pre>")
    parts.append("</div>")
    return "".join(parts)
