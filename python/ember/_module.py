"""ember.Module: a named container that finds the variables and modules held in its attributes (``tf.Module``)."""

import functools
import re

from ember._name_scope import name_scope
from ember._variables import Variable


def _camel_to_snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])|(?<!^)([A-Z])(?=[a-z])", r"_\1\2", name).lower()


class Module:
    """A named container of variables, submodules and methods (``tf.Module``).

    Variables and modules held in attributes, or in lists, tuples and dicts
    inside attributes (nested), are found when ``variables``,
    ``trainable_variables`` or ``submodules`` are read, in TensorFlow's order:
    attributes by name, a module's own values before those of its submodules.
    A value reached twice is listed once. ``name_scope`` is the scope the
    module was created in plus its name; ``Module.with_name_scope`` makes a
    method run inside it.
    """

    # Set by ember.train.Checkpoint while some saved values wait for the
    # variables they belong to (Note [Deferred restore] in ember/train/_restore.py).
    _attribute_hooks = []

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Module: name must be a valid Python identifier, got {name!r}")
        self._name = name
        with name_scope(name) as scope:
            self._scope_name = scope

    def __setattr__(self, key, value):
        object.__setattr__(self, key, value)
        for hook in list(Module._attribute_hooks):  # a hook may remove itself
            hook()

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """A fresh ``ember.name_scope`` for this module's absolute scope (``"outer/name/"``)."""
        return name_scope(self._scope_name)

    @property
    def variables(self):
        """Every variable of this module and its submodules, each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self):
        """Every module reachable from this one (not itself), depth first."""
        return tuple(self._flatten(predicate=lambda v: isinstance(v, Module)))

    def _flatten(self, recursive=True, predicate=None, with_path=False):
        """The values reachable from this module's attributes that satisfy ``predicate``
        (all if None); with_path gives (attribute path tuple, value) pairs."""
        predicate = predicate or (lambda v: True)
        seen = {id(self)}
        return list(_flatten_module(self, (), recursive, predicate, with_path, seen, []))

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: the method runs inside its module's ``name_scope``."""
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapper

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} '{self._name}'>"


def _is_variable(value):
    return isinstance(value, Variable)


def attribute_items(module):
    """The (name, value) pairs of a module's own attributes, sorted by name, as TensorFlow walks them."""
    return sorted(vars(module).items(), key=lambda item: item[0])


def nested_leaves(value, path=()):
    """(path, leaf) of a nested list/tuple/dict value, depth first; dict keys in sorted order."""
    if isinstance(value, dict):
        for key in _sorted_keys(value):
            yield from nested_leaves(value[key], path + (key,))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from nested_leaves(item, path + (i,))
    else:
        yield path, value


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:  # keys of mixed types: a fixed order all the same
        return sorted(mapping, key=repr)


def _flatten_module(module, path, recursive, predicate, with_path, seen, stack):
    # A module's own values first, then each submodule's, in attribute order;
    # `stack` stops a cycle (a submodule holding its parent) from recursing forever.
    submodules = []
    for key, attr in attribute_items(module):
        for leaf_path, leaf in nested_leaves(attr, (key,)):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield (path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((path + leaf_path, leaf))
    if id(module) in stack:
        return
    stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _flatten_module(sub, sub_path, recursive, predicate, with_path, seen, stack)
    stack.pop()
