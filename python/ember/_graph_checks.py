"""Errors for Python control flow on traced tensors.

Inside ``@ember.function`` a tensor is symbolic: it has a shape and a
dtype but no value until the function runs. Python's ``if``, ``while``,
``and``/``or``, ``assert`` and ``int()``/``float()`` need a value, so they
cannot see one; like TensorFlow (``OperatorNotAllowedInGraphError``),
Ember says so at the user's line and names the op that does the job.
"""

import os
import sys

from ember import _C
from ember.errors import OperatorNotAllowedInGraphError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

_ADVICE = {
    "bool": ("using a symbolic ember.Tensor as a Python bool (in `if`, `while`, `and`, `or`, `not` or "
             "`assert`) is not allowed inside @ember.function: the tensor has no value while the function is "
             "traced. Use ember.cond(pred, true_fn, false_fn) for `if`, ember.while_loop(cond, body, "
             "loop_vars) for `while`, ember.debugging.assert_* ops for `assert`, or compute the condition "
             "outside the function and pass it in as a Python value. @ember.function(autograph=True) "
             "converts simple `if`, `for` and `while` statements for you"),
    "number": ("converting a symbolic ember.Tensor to a Python number is not allowed inside @ember.function: "
               "the tensor has no value while the function is traced. Keep computing with tensor ops, or pass "
               "the number in as a Python value"),
    "iterate": ("iterating over a symbolic ember.Tensor whose first dimension is unknown is not allowed inside "
                "@ember.function: the number of steps is known only when the function runs. Use "
                "ember.while_loop(cond, body, loop_vars), or @ember.function(autograph=True), or give the input a "
                "known first dimension"),
}


def _user_location():
    """file:line of the innermost frame outside the ember package."""
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def reject_symbolic(tensor, use):
    """Raises OperatorNotAllowedInGraphError if ``tensor`` is being traced;
    ``use`` is "bool", "number" or "iterate"."""
    if _C._is_symbolic(tensor):
        raise OperatorNotAllowedInGraphError(f"{_user_location()}: {_ADVICE[use]}")
