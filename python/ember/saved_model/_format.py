# The saved model directory: manifest, graph files and checkpoints, written atomically (docs/modules_and_checkpoints.md).

import json
import os
import shutil
import tempfile

from ember.train import _format as checkpoint_format

MANIFEST = "saved_model.json"
FORMAT = "ember.saved_model"
VERSION = 1
VARIABLES = os.path.join("variables", "variables")  # a checkpoint prefix, as TensorFlow names it
CONSTANTS = os.path.join("graphs", "constants")  # the tensors the graphs captured

# The attributes that hold graph function ids, by op (their positions in the op's attrs).
# Note [Function ids in saved graphs]: a graph names the graphs its
# control flow runs by their ids in this process's function library.
# Saved graph text names them by their index in the manifest's "graphs"
# list instead, and a graph is listed after every graph it names, so a
# loader can read them in order and put each new id in place.
_FUNCTION_ATTRS = {"call_function": (0,), "cond": (0, 1), "while_loop": (0, 1)}


class CorruptSavedModel(ValueError):
    """A saved model directory that cannot be read back."""


def _node_fields(line):
    fields = line.split(" ")
    if len(fields) == 11 and fields[0] == "node" and fields[2] in _FUNCTION_ATTRS:
        return fields
    return None


def function_ids(text):
    """The graph function ids a graph's text names (its control flow's branch and body graphs)."""
    ids = []
    for line in text.split("\n"):
        fields = _node_fields(line)
        if fields is not None:
            attrs = fields[7].split(";")
            ids += [int(attrs[i][1:]) for i in _FUNCTION_ATTRS[fields[2]]]
    return ids


def replace_function_ids(text, mapping):
    """The graph text with each function id replaced by mapping[id] (KeyError if one is missing)."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        fields = _node_fields(line)
        if fields is None:
            continue
        attrs = fields[7].split(";")
        for i in _FUNCTION_ATTRS[fields[2]]:
            attrs[i] = "i" + str(mapping[int(attrs[i][1:])])
        fields[7] = ";".join(attrs)
        lines[n] = " ".join(fields)
    return "\n".join(lines)


def graph_file(index):
    return os.path.join("graphs", f"{index}.txt")


def contains(export_dir):
    """True if ``export_dir`` holds a saved model's manifest."""
    return os.path.isfile(os.path.join(os.fspath(export_dir), MANIFEST))


def check_target(export_dir):
    """Raises unless export_dir may be written: absent, an empty directory, or a saved model."""
    if not os.path.lexists(export_dir):
        return
    if not os.path.isdir(export_dir):
        raise FileExistsError(f"saved_model.save: {export_dir!r} exists and is not a directory")
    if os.listdir(export_dir) and not contains(export_dir):
        raise FileExistsError(f"saved_model.save: {export_dir!r} holds files but no saved model ({MANIFEST}); "
                              "not replacing them")


def write(export_dir, manifest, graph_texts, variables, constants):
    """Writes a saved model directory: the graph texts, the variables checkpoint (object graph,
    arrays), the constants and the manifest, into a temporary directory beside export_dir that
    then takes its place (Note [Atomic saved models])."""
    export_dir = os.path.abspath(os.fspath(export_dir))
    check_target(export_dir)
    parent, base = os.path.split(export_dir)
    os.makedirs(parent, exist_ok=True)
    temp = tempfile.mkdtemp(dir=parent, prefix=f".tmp-{base}-")
    try:
        os.makedirs(os.path.join(temp, "graphs"))
        for index, text in enumerate(graph_texts):
            _write_file(os.path.join(temp, graph_file(index)), text.encode("utf-8"))
        checkpoint_format.write(os.path.join(temp, VARIABLES), *variables)
        checkpoint_format.write(os.path.join(temp, CONSTANTS), {"variables": [], "slots": []}, constants)
        _write_file(os.path.join(temp, MANIFEST), json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8"))
        _swap_in(temp, export_dir)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


# Note [Atomic saved models]: everything is written into a new directory
# `.tmp-<name>-*` beside the target, each file fsync'd, and the directory
# is renamed to the target (os.replace; atomic on POSIX). Replacing an
# existing saved model takes two renames: the old directory is first moved
# aside to `.tmp-old-<name>-*`, then deleted once the new one is in place.
# A process killed between the two renames leaves no directory at the
# target, and the previous saved model, complete, under the `.tmp-old-`
# name; a process killed earlier leaves the previous one untouched. A
# reader never sees a half-written saved model.
def _swap_in(temp, export_dir):
    parent, base = os.path.split(export_dir)
    _fsync_tree(temp)
    old = None
    if os.path.lexists(export_dir):
        old = tempfile.mkdtemp(dir=parent, prefix=f".tmp-old-{base}-")
        os.replace(export_dir, old)  # onto the empty directory just made
    try:
        os.replace(temp, export_dir)
    except BaseException:
        if old is not None:
            os.replace(old, export_dir)
        raise
    checkpoint_format._fsync_directory(parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _write_file(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_tree(root):
    for directory, _, _ in os.walk(root):
        checkpoint_format._fsync_directory(directory)


def read_manifest(export_dir):
    """The manifest of the saved model in export_dir, its format and version checked."""
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, MANIFEST)
    if not os.path.isdir(export_dir):
        raise FileNotFoundError(f"saved_model.load: no directory {export_dir!r}")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"saved_model.load: {export_dir!r} is not an Ember saved model: it has no "
                                f"{MANIFEST}") from None
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CorruptSavedModel(f"saved_model.load: {path!r} is corrupt (not JSON: {e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CorruptSavedModel(f"saved_model.load: {path!r} is not an Ember saved model manifest "
                                f"(its 'format' is not {FORMAT!r})")
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CorruptSavedModel(f"saved_model.load: {path!r} has no valid format version")
    if version > VERSION or version < 1:
        raise ValueError(f"saved_model.load: {export_dir!r} has saved model format version {version}; this Ember "
                         f"reads version {VERSION} (save it again with this Ember, or load it with a newer one)")
    return manifest


def _inside(export_dir, relative):
    """The path of a file the manifest names, which must lie inside export_dir."""
    if not isinstance(relative, str) or os.path.isabs(relative) or ".." in relative.replace("\\", "/").split("/"):
        raise CorruptSavedModel(f"saved_model.load: the manifest of {os.fspath(export_dir)!r} names the file "
                                f"{relative!r}, which is not a relative path inside it")
    return os.path.join(os.fspath(export_dir), relative)


def read_text(export_dir, relative):
    path = _inside(export_dir, relative)
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except FileNotFoundError:
        raise CorruptSavedModel(f"saved_model.load: {os.fspath(export_dir)!r} is incomplete: {relative!r} is "
                                "missing") from None
    except UnicodeDecodeError as e:
        raise CorruptSavedModel(f"saved_model.load: {path!r} is corrupt: {e}") from None


def read_checkpoint(export_dir, prefix):
    """(object graph, arrays) of one of the directory's checkpoints."""
    path = _inside(export_dir, prefix)
    try:
        return checkpoint_format.read(path)
    except FileNotFoundError:
        raise CorruptSavedModel(f"saved_model.load: {os.fspath(export_dir)!r} is incomplete: "
                                f"{checkpoint_format.file_for(prefix)!r} is missing") from None
