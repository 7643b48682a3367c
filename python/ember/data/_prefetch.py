"""Dataset.prefetch: the input pipeline runs ahead on a background thread.

Note [Prefetch thread]: each iterator of a prefetch stage starts one daemon
thread that pulls its input's elements and puts them in a queue of
buffer_size; the consumer takes them from the queue. An error in the input
travels through the queue and is raised by the consumer at the element
where it happened. The thread holds no reference to the consumer's
iterator: when that iterator ends, is closed or is garbage (a finalizer),
a stop event is set, and the thread, which waits on the queue in short
slices, closes its input (so nested prefetch threads stop too) and exits.
A thread busy inside the input finishes the element it is making first.
"""

import queue
import threading
import weakref

from ember.data._dataset import AUTOTUNE, UnaryDataset, host_device

AUTOTUNE_BUFFER_SIZE = 2  # what AUTOTUNE picks; tf.data tunes it as it runs
_POLL_SECONDS = 0.05  # how often a blocked producer checks the stop event

_ELEMENT, _END, _ERROR = range(3)


def _produce(elements, slots, stop):
    """The thread's body: elements -> slots until the input ends, fails or stop is set."""
    def put(item):
        while not stop.is_set():
            try:
                slots.put(item, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                pass
        return False

    try:
        with host_device():  # Note [Input pipelines on the CPU]: this thread makes elements too
            for element in elements:
                if not put((_ELEMENT, element)):
                    return
        put((_END, None))
    except BaseException as e:  # noqa: BLE001 - every error belongs to the consumer
        put((_ERROR, e))
    finally:
        close = getattr(elements, "close", None)
        if close is not None:
            close()


def _consume(slots, stop):
    try:
        while True:
            kind, value = slots.get()
            if kind == _ELEMENT:
                yield value
            elif kind == _END:
                return
            else:
                raise value
    finally:
        stop.set()


class PrefetchDataset(UnaryDataset):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        self._buffer_size = AUTOTUNE_BUFFER_SIZE if buffer_size == AUTOTUNE else buffer_size

    def _iterate(self):
        elements = self._input._iterate()
        if self._buffer_size == 0:
            return elements
        slots = queue.Queue(self._buffer_size)
        stop = threading.Event()
        thread = threading.Thread(target=_produce, args=(iter(elements), slots, stop), daemon=True,
                                  name="ember.data.prefetch")
        consumer = _consume(slots, stop)
        # An iterator dropped before its first element never runs _consume's
        # finally: the finalizer stops the thread then (Note [Prefetch thread]).
        weakref.finalize(consumer, stop.set)
        thread.start()
        return consumer

    def _cardinality(self):
        return self._input._cardinality()
