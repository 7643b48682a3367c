"""Looks up each op's gradient function (Note [Gradient declarations]).

The declarations come from op_defs/ through codegen
(ember/_generated/gradients.py); the functions live in ember/_grads/,
one module per op_defs file, imported on first use.
"""

import importlib

from ember._generated import gradients as _declared


def status(op_name):
    """'function', 'none' (declared not differentiable) or 'undeclared'."""
    if op_name in _declared.GRADIENT_FUNCTIONS:
        return "function"
    if op_name in _declared.NOT_DIFFERENTIABLE:
        return "none"
    return "undeclared"


_cache = {}


def gradient_function(op_name):
    """The gradient function of ``op_name``; LookupError if it has none."""
    fn = _cache.get(op_name)
    if fn is not None:
        return fn
    entry = _declared.GRADIENT_FUNCTIONS.get(op_name)
    if entry is None:
        why = ("is declared not differentiable" if op_name in _declared.NOT_DIFFERENTIABLE
               else "has no gradient yet")
        raise LookupError(f"gradient: op '{op_name}' {why}, but a gradient was asked for through it")
    module, name = entry
    fn = getattr(importlib.import_module(f"ember._grads.{module}"), name)
    _cache[op_name] = fn
    return fn
