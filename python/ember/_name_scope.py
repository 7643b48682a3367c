"""ember.name_scope: TensorFlow's name scopes, which in eager mode only record a name."""

import threading

class _State(threading.local):
    scope = ""  # a class default: reading it never raises (and catches) an AttributeError


_state = _State()


class name_scope:  # noqa: N801 - TensorFlow's name
    """A context manager that yields the scope's full name, e.g. ``"outer/inner/"``.

    Eager ops have no names, so, as in TensorFlow's eager mode, the scope changes nothing but
    the string it yields, ``ember.get_current_name_scope()`` and the names of the variables
    created inside it (``"outer/w"``). A name ending in "/" is
    absolute (it replaces the enclosing scope); an empty name is the root scope.
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError(f"name_scope: name must be a string, got {type(name).__name__}")
        self._name = name
        self._saved = None

    @property
    def name(self):
        return self._name

    def __enter__(self):
        self._saved = getattr(_state, "scope", "")
        if not self._name:
            scope = ""
        elif self._name.endswith("/"):
            scope = self._name
        else:
            scope = f"{self._saved}{self._name}/"
        _state.scope = scope
        return scope

    def __exit__(self, *exc):
        _state.scope = self._saved
        return False


def get_current_name_scope():
    """The enclosing name scope without its trailing "/" ("" at the top level)."""
    return getattr(_state, "scope", "").rstrip("/")
