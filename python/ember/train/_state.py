# A directory's checkpoint state file ("checkpoint"): which checkpoints it holds and which is the latest.

import json
import os

from ember.train import _format

STATE_FILE = "checkpoint"
_KIND = "ember-checkpoint-state"


def read_state(directory, latest_filename=None):
    """{"latest": name or None, "all": [names], "times": [seconds]} of a directory (names relative to it)."""
    path = os.path.join(os.fspath(directory), latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError:
        return {"latest": None, "all": [], "times": []}
    except ValueError as e:  # not ours (e.g. TensorFlow's text proto) or damaged
        raise ValueError(f"{path!r} is not an Ember checkpoint state file: {e}") from None
    if not isinstance(state, dict) or state.get("kind") != _KIND:
        raise ValueError(f"{path!r} is not an Ember checkpoint state file")
    return {"latest": state.get("latest"), "all": list(state.get("all", [])), "times": list(state.get("times", []))}


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
    """The path of the directory's latest checkpoint, or None if it has none (``tf.train.latest_checkpoint``)."""
    name = read_state(checkpoint_dir, latest_filename)["latest"]
    if name is None:
        return None
    path = os.path.join(os.fspath(checkpoint_dir), name)
    return path if os.path.exists(_format.file_for(path)) else None
