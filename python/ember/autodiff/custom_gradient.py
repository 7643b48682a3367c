"""ember.custom_gradient: a function that supplies its own gradient (``tf.custom_gradient``)."""

import functools

from ember import nest
from ember.autodiff import _tape
from ember._tensor import Tensor
from ember._strings._dispatch import identity


def custom_gradient(f=None):
    """Decorates ``f(*args) -> (result, grad_fn)``; ``grad_fn(*upstream)`` returns
    one gradient per argument (None for an argument without one).

    ``f`` runs with the gradient tapes paused, so only ``grad_fn`` decides
    the gradient; ``result`` may be a tensor or a nested structure of them.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if not _tape._thread_tapes():
            result, _ = f(*args, **kwargs)
            return result
        with _tape.recording_paused():
            result, grad_fn = f(*args, **kwargs)
            # Fresh handles (views, no copy): an output that is one of the
            # arguments must still be a value of its own on the tape.
            flat = [identity(r) if isinstance(r, Tensor) else r for r in nest.flatten(result)]
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in positions]
        outputs = [r for r in flat if isinstance(r, Tensor)]

        def backward(*upstream):
            grads = grad_fn(*upstream)
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            if len(grads) == len(args) and len(args) != len(inputs):
                grads = [grads[i] for i in positions]
            if len(grads) != len(inputs):
                raise ValueError(f"custom_gradient: {f.__name__}'s gradient function returned {len(grads)} "
                                 f"gradients for {len(inputs)} tensor arguments")
            return grads

        _tape.record_custom_gradient(inputs, outputs, backward)
        return nest.pack_sequence_as(result, flat)

    return wrapped
