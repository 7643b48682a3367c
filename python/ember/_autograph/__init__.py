"""AutoGraph: Python `if`, `for` and `while` on traced tensors, converted to
ember.cond and ember.while_loop (``@ember.function``, on by default).

Note [AutoGraph]
~~~~~~~~~~~~~~~~
On by default, as in ``tf.function`` (``autograph=False`` traces the
function as written, and Python control flow on a symbolic tensor then
raises OperatorNotAllowedInGraphError). The function's source is parsed,
each `if`/`for`/`while` statement in its body is rewritten into a call of
a helper (_transform.py), and the result is compiled once, at decoration.
At trace time the helpers (_operators.py) decide per statement: a symbolic
condition or iterable becomes a `cond` or `while_loop` op; a Python value
keeps Python semantics, so loops over `range(3)` still unroll, as in
TensorFlow.

Limits, each falling back to plain Python for that statement: bodies that
return or yield, or break or continue out of it; `for` with a tuple target
or an `else`.
Nested functions are not converted. Closure variables are read when the
function is decorated. A function whose source cannot be read (a lambda,
the REPL) or that uses zero-argument super() is traced unconverted, with a
warning only when autograph=True was asked for explicitly.
"""

import ast
import functools
import inspect
import textwrap
import types
import warnings

from ember.function import set_autograph_converter
from ember._autograph import _operators
from ember._autograph._transform import Converter


def convert(func, warn=True):
    """`func` with its control flow converted, or `func` itself (with a
    warning if `warn`) if its source cannot be converted."""
    try:
        if inspect.ismethod(func):  # a bound method: convert its function, bind it again
            converted = _convert(func.__func__)
            return func if converted is func.__func__ else types.MethodType(converted, func.__self__)
        return _convert(func)
    except (OSError, TypeError, SyntaxError, ValueError) as e:
        if not warn:
            return func
        warnings.warn(f"autograph could not convert {getattr(func, '__qualname__', func)!r}: {e}; "
                      "it runs unconverted", stacklevel=3)
        return func


def _convert(func):
    code = getattr(func, "__code__", None)
    if code is not None and "__class__" in code.co_freevars:
        raise ValueError("it uses super() or __class__, which a recompiled function cannot see")
    source = textwrap.dedent(inspect.getsource(func))
    tree = ast.parse(source)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != func.__name__:
        raise ValueError("its source is not a plain def statement")
    fdef.decorator_list = []
    converter = Converter()
    converter.convert_body(fdef)
    if converter.converted == 0:
        return func
    # Wrap the def in a factory taking `_ag` and the closure's variables, so
    # the converted function sees the same globals and free variables.
    free = list(func.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="_ag_factory", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in ["_ag"] + free],
                                               vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                               defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))], decorator_list=[], returns=None)
    if hasattr(ast, "TypeVar"):  # Python 3.12+
        factory.type_params = []
    ast.copy_location(factory, fdef)
    ast.copy_location(factory.body[1], fdef)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.increment_lineno(module, func.__code__.co_firstlineno - 1)
    ast.fix_missing_locations(module)
    code = compile(module, inspect.getsourcefile(func) or "<autograph>", "exec")
    namespace = {}
    exec(code, func.__globals__, namespace)  # noqa: S102 - the user's own function, rewritten
    cells = [c.cell_contents for c in (func.__closure__ or ())]
    converted = namespace["_ag_factory"](_operators, *cells)
    converted.__defaults__ = func.__defaults__
    converted.__kwdefaults__ = func.__kwdefaults__
    functools.update_wrapper(converted, func)
    converted.__wrapped__ = func
    return converted


set_autograph_converter(convert)
