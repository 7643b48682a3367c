# ember.train.Checkpoint: saves and restores the variables reachable from the objects it is given.

import os

import numpy as np

from ember._module import Module
from ember._variables import Variable
from ember.train import _chief, _format, _object_graph as graph, _state
from ember.train._bundle.bundle import BundleReader, is_bundle, remove_bundle
from ember.train._bundle.object_graph import OBJECT_GRAPH_KEY, restore_plan, tensorflow_object_graph
from ember.train._bundle.writer import write_bundle
from ember.train._restore import CheckpointLoadStatus, InitializationOnlyStatus


class Checkpoint:
    """Saves the variables reachable from its keyword arguments (``tf.train.Checkpoint``).

    ``Checkpoint(model=m, optimizer=opt, step=v)``: variables are named by
    their path from the checkpoint (``model/layers/0/w``), so a restore finds
    them again by the same attribute names in a fresh program; optimizer
    slots are saved with the variable they belong to. A saved value whose
    variable does not exist yet is assigned when it is created (Note
    [Deferred restore]). docs/modules_and_checkpoints.md gives the format.
    """

    def __init__(self, root=None, **kwargs):
        for name, value in kwargs.items():
            if not graph.is_trackable(value):
                raise ValueError(f"Checkpoint: {name}= must be a Variable, Module, Optimizer, Checkpoint or a "
                                 f"list/tuple/dict of them, got {type(value).__name__}")
            if name == "save_counter" or name.startswith("_"):
                raise ValueError(f"Checkpoint: {name!r} is reserved")
        if root is not None and graph.children(root) is None:
            raise ValueError(f"Checkpoint: root must be a Module, Optimizer or Checkpoint, got {type(root).__name__}")
        self._root_object = root
        self._kwargs = {}
        self._save_counter = None
        self._status = None
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __setattr__(self, name, value):
        # Public attributes set later are tracked too, as in TensorFlow.
        object.__setattr__(self, name, value)
        if not name.startswith("_") and graph.is_trackable(value):
            self._kwargs[name] = value
            for hook in list(Module._attribute_hooks):
                hook()

    @property
    def save_counter(self):
        """How many times ``save`` has run (an int64 variable, saved with the checkpoint)."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter")
        return self._save_counter

    def _checkpoint_children(self):
        items = list(graph.children(self._root_object) or ()) if self._root_object is not None else []
        items += sorted(self._kwargs.items())
        items.append(("save_counter", self.save_counter))
        return items

    # --- Saving ----------------------------------------------------------------
    def write(self, file_prefix, options=None, *, file_format="ember"):
        """Writes the checkpoint to ``file_prefix`` exactly (no counter, no state file); returns the prefix.

        ``file_format="tensorflow"`` writes TensorFlow's tensor bundle instead
        (``<prefix>.index`` and ``<prefix>.data-00000-of-00001``), which
        ``tf.train.Checkpoint(...).restore`` restores; optimizer slots are left out.
        """
        del options
        file_prefix = os.fspath(file_prefix)
        if file_format not in ("ember", "tensorflow"):
            raise ValueError(f"Checkpoint.write: file_format must be 'ember' or 'tensorflow', got {file_format!r}")
        if not _chief.writes_checkpoints():
            return file_prefix  # the chief writes it (Note [Checkpoints from one worker] in _chief.py)
        if file_format == "tensorflow":
            graph_proto, arrays = tensorflow_object_graph(self)
            arrays[OBJECT_GRAPH_KEY] = np.array(graph_proto, dtype=object)
            write_bundle(file_prefix, arrays)
            _remove_if_present(_format.file_for(file_prefix))  # restore would prefer a stale Ember file
            return file_prefix
        variables, optimizers = graph.walk(self)
        object_graph, arrays = {"variables": [], "slots": []}, {}
        for path, var in variables:
            key = _unique(graph.key_of(path), arrays)
            object_graph["variables"].append({"key": key, "path": list(path)})
            arrays[key] = var.numpy()
        for var_path, opt_path, name, slot in graph.slot_entries(variables, optimizers):
            key = _unique(graph.key_of(var_path, f"/.slot/{graph.key_of(opt_path)}/{name}"), arrays)
            object_graph["slots"].append({"key": key, "path": list(var_path), "optimizer": list(opt_path),
                                          "slot": name})
            arrays[key] = slot.numpy()
        _format.write(file_prefix, object_graph, arrays)
        remove_bundle(file_prefix)  # an older TensorFlow-format checkpoint of this prefix
        return file_prefix

    def save(self, file_prefix, options=None):
        """Writes ``<file_prefix>-<n>`` (n: the save counter after adding 1), records it as the
        directory's latest checkpoint, and returns that path."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}", options)
        if _chief.writes_checkpoints():
            _state.record_latest(path)
        return path

    # --- Restoring -------------------------------------------------------------
    def read(self, save_path, options=None):
        """Restores from a checkpoint written by ``write`` (or ``save``); returns a load status."""
        del options
        return self._restore(save_path)

    def restore(self, save_path, options=None):
        """Restores from ``save_path`` (as returned by ``save`` or ``latest_checkpoint``); returns
        a load status. ``None`` restores nothing, as in TensorFlow (for a first run). A prefix
        with a ``.index`` file is read as a TensorFlow checkpoint."""
        del options
        if save_path is None:
            return InitializationOnlyStatus()
        return self._restore(save_path)

    def _restore(self, save_path):
        save_path = os.fspath(save_path)
        if is_bundle(save_path) and not os.path.exists(_format.file_for(save_path)):
            # A TensorFlow checkpoint: tensors are read when their variable is matched.
            reader = BundleReader(save_path)
            object_graph, arrays = restore_plan(reader), reader
        else:
            object_graph, arrays = _format.read(save_path)
        if self._status is not None:
            self._status.expect_partial()  # a newer restore replaces its pending values
        self._status = CheckpointLoadStatus(self, object_graph, arrays, save_path)
        return self._status


def _unique(key, taken):
    candidate, n = key, 1
    while candidate in taken:
        n += 1
        candidate = f"{key}#{n}"
    return candidate


def _remove_if_present(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
