# The object graph a checkpoint saves: which objects have children, their names, and finding a saved path again.

from ember._module import Module, attribute_items
from ember._variables import Variable
from ember.optimizers import Optimizer


class _Missing:
    """What resolve() returns for a path whose object does not exist (yet)."""


MISSING = _Missing()


def children(obj):
    """The named children of a trackable object, in a fixed order, or None if ``obj`` is not one.

    Trackable: Checkpoints, Modules (every attribute), Optimizers (their step counter; slot
    variables are saved next to their variable, see slot_entries) and lists, tuples and dicts.
    """
    tracked = getattr(obj, "_checkpoint_children", None)
    if tracked is not None:  # a Checkpoint
        return tracked()
    if isinstance(obj, Module):
        return attribute_items(obj)
    if isinstance(obj, Optimizer):
        return [("iterations", obj.iterations)]
    if isinstance(obj, dict):
        for key in obj:
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                return None  # such keys cannot name a path in the JSON object graph
        return sorted(obj.items(), key=lambda item: (isinstance(item[0], str), item[0]))
    if isinstance(obj, (list, tuple)):
        return list(enumerate(obj))
    return None


def is_trackable(obj):
    return isinstance(obj, Variable) or children(obj) is not None


def walk(root):
    """(variables, optimizers): [(path, Variable)] and [(path, Optimizer)] reachable from root,
    each object once, under the first path that reaches it (depth first, children in order)."""
    variables, optimizers, seen = [], [], set()

    def visit(obj, path):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Variable):
            variables.append((path, obj))
            return
        if isinstance(obj, Optimizer):
            optimizers.append((path, obj))
        for name, child in children(obj) or ():
            if is_trackable(child):
                visit(child, path + (name,))

    visit(root, ())
    return variables, optimizers


def slot_entries(variables, optimizers):
    """[(variable path, optimizer path, slot name, slot Variable)] for slots of saved variables."""
    path_of = {id(v): path for path, v in variables}
    out = []
    for opt_path, opt in optimizers:
        for var_id, slots in opt._slots.items():
            if var_id in path_of:
                for name in sorted(slots):
                    out.append((path_of[var_id], opt_path, name, slots[name]))
    return out


def resolve(root, path):
    """The object at ``path`` below root, or MISSING if some step of it does not exist."""
    obj = root
    for name in path:
        step = children(obj)
        if step is None:
            return MISSING
        if isinstance(obj, (list, tuple)):
            if isinstance(name, str) and name.isascii() and name.isdigit():
                name = int(name)  # TensorFlow's checkpoints name list items "0", "1"...
            obj = obj[name] if isinstance(name, int) and 0 <= name < len(obj) else MISSING
        else:
            obj = dict(step).get(name, MISSING)
        if obj is MISSING:
            return MISSING
    return obj


def key_of(path, suffix=""):
    """A readable, unique-enough tensor key for a path: ``model/layers/0/w``."""
    return "/".join(str(p) for p in path) + suffix
