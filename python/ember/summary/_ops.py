"""scalar, histogram, text and write: summary values in TensorBoard 2's tensor form.

Each writes one Summary.Value with the plugin TensorBoard reads it by
("scalars", "histograms", "text") and the data as a TensorProto: a float32
scalar; a float64 [buckets, 3] tensor of (left edge, right edge, count);
a string tensor. File I/O happens at each call, so inside @ember.function
a summary stops the trace and the function runs eagerly (as io.write_file).
"""

import numpy as np

from ember.summary import _event, _writer


def _stop_trace(func):
    from ember.function import HostCallbackInTrace, current_trace

    if current_trace() is not None:
        raise HostCallbackInTrace(func)


def _tag(name):
    from ember._name_scope import get_current_name_scope
    scope = get_current_name_scope()
    return f"{scope.rstrip('/')}/{name}" if scope else name


def _numpy(data):
    if hasattr(data, "numpy"):
        data = data.numpy()
    return np.asarray(data)


def _tensor_proto(array):
    from ember.io import serialize_tensor
    from ember._strings._value import from_array
    if array.dtype.kind in "OSU":
        array = np.vectorize(lambda s: s if isinstance(s, bytes) else str(s).encode("utf-8"), otypes=[object])(array)
        return serialize_tensor(from_array(array.astype(object))).numpy()
    return serialize_tensor(array).numpy()


def _metadata(plugin, data_class, description, content=b""):
    return {"plugin_data": {"plugin_name": plugin, "content": content}, "summary_description": description or "",
            "data_class": data_class}


def _emit(name, array, step, metadata):
    if not _writer.should_record_summaries():
        return False
    step = _writer.resolve_step(step)
    _writer.default_writer().write_value({"tag": _tag(name), "tensor": _tensor_proto(array), "metadata": metadata},
                                         step)
    return True


def write(tag, tensor, step=None, metadata=None, name=None):
    """Writes ``tensor`` under ``tag`` with ``metadata`` (a dict of SummaryMetadata fields, or None);
    returns whether it was written (False without a default writer or under a false record_if)."""
    del name
    _stop_trace("summary.write")
    return _emit(tag, _numpy(tensor), step, metadata or {})


def scalar(name, data, step=None, description=None):
    """Writes a scalar (TensorBoard's Scalars dashboard); returns whether it was written."""
    _stop_trace("summary.scalar")
    value = _numpy(data)
    if value.size != 1:
        raise ValueError(f"summary.scalar {name!r}: data must be a scalar, got shape {value.shape}")
    return _emit(name, value.reshape(()).astype(np.float32), step,
                 _metadata("scalars", _event.DATA_CLASS_SCALAR, description))


def histogram_buckets(values, buckets=None):
    """The [buckets, 3] (left edge, right edge, count) table TensorBoard's histogram plugin reads:
    equal-width buckets over [min, max]; all values in the last bucket when min == max."""
    k = 30 if buckets is None else int(buckets)
    values = values.astype(np.float64).ravel()
    if k == 0 or values.size == 0:
        return np.zeros((k, 3), np.float64)
    low, high = float(values.min()), float(values.max())
    if low == high:
        counts = np.zeros(k)
        counts[-1] = values.size
        return np.stack([np.full(k, low), np.full(k, low), counts], axis=1)
    counts, edges = np.histogram(values, bins=k, range=(low, high))
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes the histogram of ``data`` in ``buckets`` (30) equal-width buckets (TensorBoard's
    Histograms and Distributions dashboards); returns whether it was written."""
    _stop_trace("summary.histogram")
    return _emit(name, histogram_buckets(_numpy(data), buckets), step,
                 _metadata("histograms", _event.DATA_CLASS_TENSOR, description))


def text(name, data, step=None, description=None):
    """Writes a string or string tensor (TensorBoard's Text dashboard, Markdown); returns whether it was
    written."""
    _stop_trace("summary.text")
    return _emit(name, _numpy(data), step, _metadata("text", _event.DATA_CLASS_TENSOR, description))
