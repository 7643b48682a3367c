# A directory's checkpoint state file ("checkpoint"): which checkpoints it holds and which is the latest.

import codecs
import json
import os

from ember.train import _format
from ember.train._bundle import bundle

STATE_FILE = "checkpoint"
_KIND = "ember-checkpoint-state"


def read_state(directory, latest_filename=None):
    """{"latest": name or None, "all": [names], "times": [seconds]} of a directory (names relative to it)."""
    path = os.path.join(os.fspath(directory), latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {"latest": None, "all": [], "times": []}
    except ValueError as e:
        raise ValueError(f"{path!r} is not a checkpoint state file: {e}") from None
    if not text.lstrip().startswith("{"):
        return _read_tensorflow_state(path, text)
    try:
        state = json.loads(text)
    except ValueError as e:  # damaged
        raise ValueError(f"{path!r} is not an Ember checkpoint state file: {e}") from None
    if not isinstance(state, dict) or state.get("kind") != _KIND:
        raise ValueError(f"{path!r} is not an Ember checkpoint state file")
    return {"latest": state.get("latest"), "all": list(state.get("all", [])), "times": list(state.get("times", []))}


def _read_tensorflow_state(path, text):
    """The state of TensorFlow's text-format CheckpointState file (``model_checkpoint_path: "ckpt-3"`` lines)."""
    fields = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, colon, value = line.partition(":")
        value = value.strip()
        try:
            if not colon:
                raise ValueError("no ':'")
            if value.startswith('"') and value.endswith('"') and len(value) >= 2:
                value = codecs.escape_decode(value[1:-1].encode("utf-8"))[0].decode("utf-8")
            else:
                value = float(value)
        except ValueError as e:
            raise ValueError(f"{path!r} line {number} is neither JSON nor TensorFlow's checkpoint state "
                             f"format: {e}") from None
        fields.setdefault(name.strip(), []).append(value)
    latest = fields.get("model_checkpoint_path", [None])[-1]
    names = [n for n in fields.get("all_model_checkpoint_paths", []) if isinstance(n, str)]
    if latest is not None and latest not in names:
        names.append(latest)
    times = fields.get("all_model_checkpoint_timestamps", [])
    return {"latest": latest, "all": names, "times": times if len(times) == len(names) else []}


def checkpoint_exists(prefix):
    """Whether ``prefix`` names a checkpoint: Ember's ``<prefix>.ckpt`` or TensorFlow's ``<prefix>.index``."""
    return os.path.exists(_format.file_for(prefix)) or bundle.is_bundle(prefix)


def remove_checkpoint(prefix):
    """Deletes the files of the checkpoint ``prefix`` (either format); missing files are no error."""
    bundle.remove_bundle(prefix)
    try:
        os.remove(_format.file_for(prefix))
    except FileNotFoundError:
        pass


def write_state(directory, latest, all_names, times):
    """Replaces the state file atomically; it is written after the checkpoints it names."""
    state = {"kind": _KIND, "version": _format.VERSION, "latest": latest, "all": list(all_names),
             "times": list(times)}
    _format.atomic_write(os.path.join(os.fspath(directory), STATE_FILE),
                         [json.dumps(state, indent=1).encode("utf-8")])


def record_latest(save_path):
    """Adds ``save_path`` to its directory's state as the latest checkpoint (Checkpoint.save)."""
    directory, name = os.path.split(os.path.abspath(save_path))
    state = read_state(directory)
    names, times = state["all"], state["times"]
    if len(times) != len(names):
        times = [0.0] * len(names)
    if name in names:
        i = names.index(name)
        del names[i], times[i]
    names.append(name)
    times.append(os.path.getmtime(_format.file_for(save_path)))
    write_state(directory, name, names, times)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path of the directory's latest checkpoint, or None if it has none (``tf.train.latest_checkpoint``).

    The state file may be Ember's or TensorFlow's, and so may the checkpoint it names."""
    name = read_state(checkpoint_dir, latest_filename)["latest"]
    if name is None:
        return None
    path = os.path.join(os.fspath(checkpoint_dir), name)
    return path if checkpoint_exists(path) else None
