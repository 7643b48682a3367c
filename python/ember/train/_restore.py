# Matching a checkpoint's saved values to live variables, now or when they are created (tf.train's restore status).

import numpy as np

from ember._module import Module
from ember._variables import Variable
from ember.function import init_scope
from ember.train import _object_graph as graph

# Note [Deferred restore]: a saved value whose variable does not exist yet
# (a layer that makes its weights on first call) stays pending. Each pending
# restore registers a hook that Module.__setattr__ runs; the hook resolves
# the pending paths again and assigns the values whose variables now exist,
# and a slot whose variable appears is created and filled too. A variable
# added to a list in place (no attribute set) is found at the next attribute
# set on any module, or by assert_consumed().


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` / ``read`` matched (``tf.train``'s load status)."""

    def __init__(self, root, object_graph, arrays, save_path):
        self._root = root  # kept alive: callers often drop the Checkpoint and keep only the status
        self._save_path = save_path
        self._arrays = arrays
        self._pending = list(object_graph["variables"]) + list(object_graph.get("slots", ()))
        self._unsupported = list(object_graph.get("unsupported", ()))  # [{"key", "why"}] (TensorFlow checkpoints)
        self._matched = set()  # ids of the live variables that got a saved value
        self._hook = None
        self._resolve()
        if self._pending:
            self._hook = self._resolve
            Module._attribute_hooks.append(self._hook)

    def _resolve(self):
        root = self._root
        still = []
        for entry in self._pending:
            if not self._restore_entry(root, entry):
                still.append(entry)
        self._pending = still
        if not still:
            self._detach()

    def _restore_entry(self, root, entry):
        var = graph.resolve(root, entry["path"])
        if var is graph.MISSING or not graph.is_trackable(var):
            return False  # not made yet (a placeholder such as None counts as not made)
        if not isinstance(var, Variable):
            raise ValueError(f"restore from {self._save_path!r}: {graph.key_of(entry['path'])!r} was saved as a "
                             f"variable but is now a {type(var).__name__}")
        if "slot" in entry:
            opt = graph.resolve(root, entry["optimizer"])
            if opt is graph.MISSING:
                return False
            var = opt.add_slot(var, entry["slot"])  # made now if the optimizer has not made it yet
        with init_scope():  # eager even when the hook runs from code being traced
            _assign(var, self._arrays[entry["key"]], entry["key"], self._save_path)
        self._matched.add(id(var))
        return True

    def _detach(self):
        if self._hook is not None and self._hook in Module._attribute_hooks:
            Module._attribute_hooks.remove(self._hook)
        self._hook = None

    def _unmatched_live_variables(self):
        root = self._root
        variables, optimizers = graph.walk(root)
        live = [(graph.key_of(p), v) for p, v in variables]
        live += [(graph.key_of(p, f"/.slot/{name}"), s) for p, _, name, s in graph.slot_entries(variables, optimizers)]
        return [key for key, v in live if id(v) not in self._matched and v is not getattr(root, "save_counter", None)]

    def assert_consumed(self):
        """Raises AssertionError unless every saved value was restored and every live variable got one."""
        self._resolve()
        if self._pending:
            raise AssertionError(f"restore from {self._save_path!r}: saved values not matched to any object: "
                                 f"{sorted(e['key'] for e in self._pending)}")
        if self._unsupported:
            raise AssertionError(f"restore from {self._save_path!r}: saved values Ember cannot restore: "
                                 + "; ".join(f"{e['key']!r} ({e['why']})" for e in self._unsupported))
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a variable reachable from the checkpoint's objects got no saved value."""
        unmatched = self._unmatched_live_variables()
        if unmatched:
            raise AssertionError(f"restore from {self._save_path!r}: variables with no value in the checkpoint: "
                                 f"{unmatched}")
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError if nothing but the save counter was restored."""
        root = self._root
        counter = getattr(root, "save_counter", None)
        if not any(key != id(counter) for key in self._matched):
            raise AssertionError(f"restore from {self._save_path!r}: no variable was restored")
        return self

    def expect_partial(self):
        """Accepts that some saved values may never be used (no error, no warning)."""
        self._detach()
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: eager restores assign at once."""
        del session


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing was restored."""

    def assert_consumed(self):
        raise AssertionError("no checkpoint was restored (restore was given None)")

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        del session


def _assign(var, array, key, save_path):
    if tuple(var.shape) != tuple(array.shape):
        raise ValueError(f"restore from {save_path!r}: {key!r} has shape {tuple(array.shape)} in the checkpoint "
                         f"but the variable has shape {tuple(var.shape)}")
    if np.dtype(var.dtype.as_numpy_dtype) != array.dtype:
        raise TypeError(f"restore from {save_path!r}: {key!r} has dtype {array.dtype} in the checkpoint but the "
                        f"variable has dtype {var.dtype.name}")
    var.assign(array)
