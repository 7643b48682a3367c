"""ember.data.Iterator: what iter(dataset) returns, eagerly and inside @ember.function.

Note [Datasets in traces]: AutoGraph leaves a Python for-loop over a
dataset in a traced function as Python, so it is unrolled: the loop runs
once, at trace time. A dataset iterated there is run eagerly then (each
element made under init_scope), and its elements enter the graph as
captured constants: every call of the function sees the same elements.
That is right only for a small, finite, repeatable dataset, so an infinite
one, one that reshuffles on each pass, or one with more than
MAX_TRACED_ELEMENTS elements raises an error that names the usual form:
iterate outside the function and call it once per element.

Note [Iterators from outside a trace]: an iterator made outside the
function and advanced inside it (`next(it)` in a training step) must give
the next element at each call, as TensorFlow's IteratorGetNext op does.
Ember's graphs have no op that calls back into Python, so, as for
py_function (Note [py_function in functions] in ember/_py_function.py),
such a function runs eagerly at each call.

Note [Input pipelines on the CPU]: as tf.data's, a dataset's elements are
made on the CPU: each one is produced under ember.device("cpu:0"), in the
consumer's thread and in prefetch threads, so the ops of a map function do
not go to a GPU one element at a time (Note [Placement rules] would put them
there). A training step copies a batch to the GPU once. A device scope
inside a map function still applies to its own ops.
"""

import threading

from ember.data._dataset import INFINITE_CARDINALITY, host_device
from ember.errors import OutOfRangeError
from ember.function import HostCallbackInTrace, current_trace, init_scope, root_trace

MAX_TRACED_ELEMENTS = 1000

_ADVICE = ("iterate the dataset outside the function and call the function on each element, e.g. "
           "`for x, y in dataset: train_step(x, y)`")


def _reshuffles(dataset):
    if getattr(dataset, "reshuffles", False):
        return True
    return any(_reshuffles(d) for d in dataset._inputs())


def _check_traceable(dataset):
    if dataset._cardinality() == INFINITE_CARDINALITY:
        raise TypeError("ember.data: an infinite dataset cannot be iterated inside @ember.function (the loop "
                        f"would be unrolled at trace time; see docs/data.md); {_ADVICE}")
    if _reshuffles(dataset):
        raise TypeError("ember.data: a dataset that reshuffles on each pass cannot be iterated inside "
                        "@ember.function: the loop is unrolled at trace time, so every call would see the "
                        f"trace's order; {_ADVICE} (or shuffle with reshuffle_each_iteration=False)")


class Iterator:
    """An iterator over a dataset's elements (``tf.data.Iterator``): ``next(it)``, or
    ``it.get_next()``, which raises ``ember.errors.OutOfRangeError`` at the end.

    Each ``iter(dataset)`` is a new pass from the first element. Safe to share
    between threads (each element goes to one caller).
    """

    def __init__(self, dataset):
        self._dataset = dataset
        self._count = 0  # elements read inside traces
        self._trace = root_trace()  # Note [Iterators from outside a trace]
        if current_trace() is not None:
            _check_traceable(dataset)
        self._lock = threading.Lock()
        with init_scope():
            self._elements = dataset._iterate()

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        if current_trace() is None:
            with self._lock, host_device():  # Note [Input pipelines on the CPU]
                return next(self._elements)
        if root_trace() is not self._trace:  # Note [Iterators from outside a trace]
            raise HostCallbackInTrace("next(iterator)")
        with self._lock, init_scope(), host_device():  # Note [Datasets in traces]
            element = next(self._elements)
            self._count += 1
        if self._count > MAX_TRACED_ELEMENTS:
            raise ValueError(f"ember.data: more than {MAX_TRACED_ELEMENTS} elements of a dataset were read "
                             "inside @ember.function, where the loop is unrolled into the graph (see "
                             f"docs/data.md); {_ADVICE}")
        return element

    def get_next(self):
        """The next element; ``ember.errors.OutOfRangeError`` after the last."""
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    def __repr__(self):
        return f"<ember.data.Iterator over {self._dataset!r}>"
