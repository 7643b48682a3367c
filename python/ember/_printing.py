"""ember.print (tf.print): prints tensors when the print op runs, eagerly or
inside @ember.function, where prints run in program order at every call."""

import sys

import numpy as np

from ember._checks import check_str, safe_repr

from ember.function import current_trace
from ember._tensor import Tensor
from ember._strings._numbers import summarize_text
from ember._strings._value import StringTensor
from ember._generated import raw_ops
from ember._variables import Variable


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001 - TF's name
    """Prints ``inputs`` separated by ``sep`` and followed by ``end``.

    Tensors (and variables and NumPy arrays) print like NumPy arrays, at
    most ``summarize`` leading and trailing elements per dimension (-1: all);
    other values print with ``str``. ``output_stream`` is ``sys.stderr``
    (the default) or ``sys.stdout``. Eagerly the text is written before the
    call returns. Inside ``@ember.function`` it is written each time the
    function runs, after the ops it depends on and in program order with the
    other prints; a plain Python ``print`` there runs only while tracing.
    """
    del name
    if output_stream is None or output_stream is sys.stderr or output_stream == "stderr":
        stream = "stderr"
    elif output_stream is sys.stdout or output_stream == "stdout":
        stream = "stdout"
    else:
        raise ValueError("print: output_stream must be sys.stderr or sys.stdout, got "
                         f"{safe_repr(output_stream)}")
    if not isinstance(summarize, int):
        raise TypeError(f"print: summarize must be an int, got {safe_repr(summarize)}")
    check_str(sep, "print", "sep")
    check_str(end, "print", "end")

    parts, tensors = [], []
    for value in inputs:
        if isinstance(value, (Tensor, Variable, np.ndarray)):
            parts.append("{}")
            tensors.append(value)
        elif type(value) is StringTensor:  # host strings: their text now, as tf.print shows them
            parts.append(summarize_text(value._array, summarize, value.ndim > 0).replace("{}", "{ }"))
        else:
            parts.append(str(value).replace("{}", "{ }"))  # "{}" marks a tensor in the op's format
    text = sep.join(parts) + end
    if not tensors and current_trace() is None:
        getattr(sys, stream).write(text)  # nothing to wait for: print now
        return None

    outputs = raw_ops.print(tensors, text, stream, summarize)
    if current_trace() is None:
        outputs[0].numpy()  # eagerly, wait: the kernel has printed once its output is ready
    return None
