# ember.saved_model.save: the object tree, its variables and its traced functions' graphs, written to a directory.

import inspect

from ember._module import Module
from ember._random import _CallTimeSeed
from ember._variables import Variable, _VariableSlice
from ember.function import _EAGER, _UNBOUND, ConcreteFunction, Function, HostCallbackError
from ember.saved_model import _format, _structure
from ember.train import _object_graph as graph
from ember._tensor import Tensor

DEFAULT_SIGNATURE = "serving_default"


def save(obj, export_dir, signatures=None, options=None):
    """Saves ``obj``'s variables, its ``@ember.function`` methods and ``signatures`` to the
    directory ``export_dir`` (``tf.saved_model.save``).

    Each function is saved as the graphs traced so far (a function with an
    input_signature is traced for it if it has not been yet), so
    ``ember.saved_model.load`` can call it in a program that lacks obj's
    class. ``signatures`` is a function with an input_signature, a concrete
    function, or a dict of them by name; a single one is named
    ``serving_default``. Without it, a single function of obj that has an
    input_signature becomes ``serving_default``. The format is described in
    docs/modules_and_checkpoints.md.
    """
    del options  # SaveOptions: nothing in it applies to Ember's format
    if not isinstance(obj, Module):
        raise TypeError(f"saved_model.save: obj must be an ember.Module (or a Keras layer or model), got "
                        f"{type(obj).__name__}")
    exporter = _Exporter(obj)
    exporter.add_signatures(signatures)
    _format.write(export_dir, exporter.manifest(), exporter.graph_texts, exporter.variables_checkpoint(),
                  exporter.constants)


class _Exporter:
    """Collects what a saved model holds: the object tree as JSON nodes, the graphs, the
    captured constants and the variables."""

    def __init__(self, root):
        self.root = root
        variables, optimizers = graph.walk(root)
        self.checkpoint_graph, self.arrays = {"variables": [], "slots": []}, {}
        self.key_of = {}  # id(variable) -> its checkpoint key
        for path, var in variables:
            key = _unique(graph.key_of(path), self.arrays)
            self.checkpoint_graph["variables"].append({"key": key, "path": list(path)})
            self.arrays[key] = var.numpy()
            self.key_of[id(var)] = key
        for var_path, opt_path, name, slot in graph.slot_entries(variables, optimizers):
            key = _unique(graph.key_of(var_path, f"/.slot/{graph.key_of(opt_path)}/{name}"), self.arrays)
            self.checkpoint_graph["slots"].append({"key": key, "path": list(var_path), "optimizer": list(opt_path),
                                                   "slot": name})
            self.arrays[key] = slot.numpy()
        self.nodes = []  # the object tree, as JSON objects; node 0 is root
        self.node_of = {}  # id(object) -> node index
        self.concretes = []  # JSON entries of the saved concrete functions
        self.concrete_of = {}  # id(ConcreteFunction) -> index in concretes
        self.graph_texts = []
        self.graph_of = {}  # graph function id -> index in graph_texts
        self.constants = {}
        self.signatures = {}
        # node index -> (Function or _Single, instance or None, path); their concrete functions
        # are added once every variable has a node.
        self._functions = {}
        self._keep = []  # keeps the objects whose ids index node_of alive while saving
        self._add(root, "obj")
        for index, (fn, instance, path) in self._functions.items():
            self.nodes[index]["concrete"] = [self._add_concrete(c, path) for c in _traced(fn, instance, path)]

    # --- The object tree -------------------------------------------------------
    def _add(self, obj, path):
        """The node index of obj (added with its children), or None if it is not saved."""
        if id(obj) in self.node_of:
            return self.node_of[id(obj)]
        if isinstance(obj, Variable) and not isinstance(obj, _VariableSlice):
            return self._new_node(obj, {"kind": "variable", "key": self.key_of[id(obj)], "name": obj.name,
                                        "trainable": obj.trainable, "dtype": obj.dtype.name,
                                        "shape": list(obj.shape)})
        if isinstance(obj, Function):
            return self._add_function(obj, None, path)
        if isinstance(obj, ConcreteFunction):
            index = self._new_node(obj, {"kind": "function", "name": _short(path), "params": None, "concrete": []})
            self._functions[index] = (_Single(obj), None, path)
            return index
        children = graph.children(obj)
        if children is None:
            return None
        if isinstance(obj, (list, tuple, dict)):
            kind = "dict" if isinstance(obj, dict) else "list" if isinstance(obj, list) else "tuple"
            index = self._new_node(obj, {"kind": kind, "items": []})
            items = [[name, self._add(child, f"{path}[{name!r}]")] for name, child in children]
            if all(child is None for _, child in items) and index == len(self.nodes) - 1:
                self.nodes.pop()  # nothing inside is saved: the container is not either
                del self.node_of[id(obj)]
                return None
            self.nodes[index]["items"] = items if kind == "dict" else [child for _, child in items]
            return index
        index = self._new_node(obj, {"kind": "object", "class": type(obj).__name__, "module": isinstance(obj, Module),
                                     "name": obj.name if isinstance(obj, Module) else None, "children": {}})
        found = {}
        for name, child in children:
            if isinstance(child, (Function, ConcreteFunction)) and _private(name):
                continue
            child_index = self._add(child, f"{path}.{name}")
            if child_index is not None:
                found[str(name)] = child_index
        for name, fn in _methods(obj):
            if not _private(name):
                found[name] = self._add_function(fn, obj, f"{path}.{name}")
        self.nodes[index]["children"] = found
        return index

    def _new_node(self, obj, node, key=None):
        """Adds node for obj (or for `key`); returns its index."""
        index = len(self.nodes)
        self.node_of[id(obj) if key is None else key] = index
        self.nodes.append(node)
        self._keep.append(obj)
        return index

    def _add_function(self, fn, instance, path):
        key = id(fn) if instance is None else (id(fn), id(instance))  # a method: one node per instance
        if key in self.node_of:
            return self.node_of[key]
        index = self._new_node(fn, {"kind": "function", "name": _short(path),
                                    "params": _params(fn, instance is not None), "concrete": []}, key)
        self._functions[index] = (fn, instance, path)
        return index

    # --- Functions ---------------------------------------------------------------
    def _add_concrete(self, concrete, path):
        if id(concrete) in self.concrete_of:
            return self.concrete_of[id(concrete)]
        if concrete._arg_variables:
            raise ValueError(f"saved_model.save: {path} takes a variable as an argument; saved functions take "
                             "tensors (read the variable through the module instead)")
        index = len(self.concretes)
        args, seen_variables = [], iter(concrete._variables)
        for kind, captured in concrete._graph.args():
            if kind == "parameter":
                args.append({"kind": "parameter"})
            elif kind == "capture":
                key = f"{index}/{len(args)}"
                self.constants[key] = captured.numpy()
                args.append({"kind": "constant", "key": key})
            else:
                args.append(self._variable_arg(next(seen_variables), path))
        updated = [self._variable_node(v, path) for v in concrete._updated]
        call_args, call_kwargs = concrete._call_templates or ((), {})
        # A method's trace has self first: a module, which is not an argument of the saved function.
        bound = bool(call_args) and isinstance(call_args[0], Module)
        if bound:
            call_args = call_args[1:]
        try:
            inputs = {"args": [_structure.encode(a, f"{path}: argument {i}") for i, a in enumerate(call_args)],
                      "kwargs": {k: _structure.encode(v, f"{path}: argument {k}")
                                 for k, v in sorted(call_kwargs.items())}}
            outputs = _structure.encode(concrete._structured_outputs, f"{path}: its result")
        except _structure.UnsavableValue as e:
            raise ValueError(f"saved_model.save: {e}") from None
        leaves = sum(_structure.count_tensors(a) for a in inputs["args"]) + sum(
            _structure.count_tensors(v) for v in inputs["kwargs"].values())
        if leaves != len(concrete.input_signature) or _structure.count_tensors(outputs) != concrete._num_user_outputs:
            raise ValueError(f"saved_model.save: {path}: its arguments or results hold composite tensors "
                             "(SparseTensor, RaggedTensor), which saved functions do not support yet")
        self.concrete_of[id(concrete)] = index
        self.concretes.append({
            "name": concrete.name, "graph": self._add_graph(concrete._graph, _subgraphs(concrete), path),
            "args": args, "updated": updated, "inputs": inputs,
            "input_names": _input_names(concrete, bound, call_args, call_kwargs),
            "specs": [_structure.spec_to_json(s) for s in concrete.input_signature], "outputs": outputs})
        return index

    def _variable_arg(self, var, path):
        if isinstance(var, _CallTimeSeed):  # Note [Generators in functions]
            return {"kind": "random_seed"}
        return {"kind": "variable", "object": self._variable_node(var, path)}

    def _variable_node(self, var, path):
        index = self.node_of.get(id(var))
        if index is None or not isinstance(var, Variable):
            raise ValueError(f"saved_model.save: {path} reads the variable {getattr(var, 'name', var)!r}, which "
                             "is not reachable from the saved object; keep it in an attribute of a module so it "
                             "is saved with it")
        return index

    def _add_graph(self, graph_function, subgraphs, path):
        """The index of a graph in graph_texts, after the graphs its control flow runs."""
        fid = graph_function.function_id
        if fid in self.graph_of:
            return self.graph_of[fid]
        text = graph_function.to_text()
        mapping = {}
        for ref in _format.function_ids(text):
            if ref not in subgraphs:
                raise ValueError(f"saved_model.save: {path}: its graph runs graph function {ref}, which the "
                                 "trace does not keep, so it cannot be saved")
            mapping[ref] = self._add_graph(subgraphs[ref], subgraphs, path)
        self.graph_of[fid] = len(self.graph_texts)
        self.graph_texts.append(_format.replace_function_ids(text, mapping))
        return self.graph_of[fid]

    # --- Signatures --------------------------------------------------------------
    def add_signatures(self, signatures):
        if signatures is None:
            found = self._default_signature()
            signatures = {} if found is None else {DEFAULT_SIGNATURE: found}
        elif not isinstance(signatures, dict):
            signatures = {DEFAULT_SIGNATURE: signatures}
        for name, value in signatures.items():
            if not isinstance(name, str):
                raise TypeError(f"saved_model.save: signature names must be str, got {name!r}")
            concrete = _signature_concrete(value, name)
            index = self._add_concrete(concrete, f"signature {name!r}")
            entry = self.concretes[index]
            names = entry["input_names"]
            if names is None:
                raise ValueError(f"saved_model.save: signature {name!r}: a signature function takes tensors only, "
                                 "each a separate argument (not lists or dicts of them)")
            self.signatures[name] = {"concrete": index, "inputs": names,
                                     "outputs": _output_names(concrete._structured_outputs, name)}

    def _default_signature(self):
        """As TensorFlow: if the root has exactly one function, and it has an input_signature,
        its concrete function for that signature."""
        functions = [self._functions[i] for i in self.nodes[0]["children"].values() if i in self._functions]
        if len(functions) != 1:
            return None
        fn, instance, _ = functions[0]
        if isinstance(fn, _Single) or fn._input_signature is None:
            return None
        try:
            return fn._get_concrete_function((), {}, _UNBOUND if instance is None else instance)
        except ValueError:  # a spec of unknown rank: no single signature
            return None

    # --- Output ------------------------------------------------------------------
    def manifest(self):
        return {"format": _format.FORMAT, "version": _format.VERSION, "objects": self.nodes,
                "concrete_functions": self.concretes,
                "graphs": [_format.graph_file(i) for i in range(len(self.graph_texts))],
                "signatures": self.signatures, "variables": _format.VARIABLES, "constants": _format.CONSTANTS}

    def variables_checkpoint(self):
        return self.checkpoint_graph, self.arrays


def _private(name):
    """Functions under private names (Keras's compiled _train_fn) are the object's machinery,
    not its interface: they are not saved. Dunder methods such as __call__ are."""
    return isinstance(name, str) and name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _short(path):
    """A function's path from the saved object, as loaded functions name themselves in errors."""
    return path[len("obj."):] if path.startswith("obj.") else path


class _Single:
    """Stands for a Function that is one concrete function (a ConcreteFunction attribute)."""

    def __init__(self, concrete):
        self.concrete = concrete


def _methods(obj):
    """(name, Function) of the @ember.function methods of obj's class, by name."""
    found = {}
    for cls in reversed(type(obj).__mro__):
        for name, value in vars(cls).items():
            if isinstance(value, Function):
                found[name] = value
            elif name in found:
                del found[name]  # overridden by something that is not a function
    return sorted(found.items())


def _traced(fn, instance, path):
    """The concrete functions of fn saved for instance (None: fn is not a method): those traced
    so far, after tracing its input_signature if it has one."""
    if isinstance(fn, _Single):
        return [fn.concrete]
    target = _UNBOUND if instance is None else instance
    if fn._input_signature is not None:
        try:
            fn._get_concrete_function((), {}, target)
        except HostCallbackError:
            pass  # reported below
        except ValueError:
            pass  # an unknown-rank spec: the traces made by calls are saved
    found, eager = [], False
    for key, concrete in list(fn._concrete.items()):
        if _instance_of(key, fn) is not (None if instance is None else instance):
            continue
        if concrete is _EAGER:
            eager = True
        elif concrete not in found:
            found.append(concrete)
    if eager:
        raise ValueError(f"saved_model.save: {path} calls py_function or numpy_function, so it runs eagerly and has "
                         "no graph to save; functions with Python callbacks cannot be saved")
    return found


def _instance_of(key, fn):
    """The instance a trace-cache key was traced for (a method's self), or None."""
    first = key[3] if key and key[0] == "signature" else (key[0] if key else None)
    if isinstance(first, tuple) and len(first) == 3 and first[0] == "P" and isinstance(first[2], Module):
        return first[2]
    return None


def _params(fn, bound):
    """The Python parameters of fn (after self for a method) as JSON, to bind calls after loading."""
    try:
        params = list(inspect.signature(fn.python_function).parameters.values())
    except (TypeError, ValueError):
        return None
    if bound:
        params = params[1:]
    out = []
    for p in params:
        entry = {"name": p.name, "kind": p.kind.name}
        if p.default is not p.empty:
            try:
                entry["default"] = _structure.encode(p.default, p.name)
            except _structure.UnsavableValue:
                entry["default"] = {"kind": "unsaved"}
        out.append(entry)
    return out


def _input_names(concrete, bound, call_args, call_kwargs):
    """The names of a concrete function's tensor arguments (TensorSpec names, else parameter
    names), or None if some argument is a structure of tensors."""
    try:
        params = list(inspect.signature(concrete._python_function).parameters)
    except (TypeError, ValueError):
        params = []
    offset = 1 if bound else 0
    specs = iter(concrete.input_signature)
    names = []
    for i, value in enumerate(call_args):
        encoded = _structure.encode(value, "")
        if encoded["kind"] == "tensor":
            spec = next(specs)
            names.append(spec.name or (params[offset + i] if 0 <= offset + i < len(params) else f"arg_{i}"))
        elif _structure.count_tensors(encoded):
            return None
    for name in sorted(call_kwargs):
        encoded = _structure.encode(call_kwargs[name], "")
        if encoded["kind"] == "tensor":
            names.append(next(specs).name or name)
        elif _structure.count_tensors(encoded):
            return None
    if len(set(names)) != len(names):
        return None
    return names


def _signature_concrete(value, name):
    if isinstance(value, ConcreteFunction):
        return value
    if callable(getattr(value, "get_concrete_function", None)) and getattr(value, "input_signature", None):
        return value.get_concrete_function()
    if isinstance(value, Function) or hasattr(value, "get_concrete_function"):
        raise ValueError(f"saved_model.save: signature {name!r} is a function without an input_signature; pass "
                         "f.get_concrete_function(<specs>) or give it an input_signature")
    raise TypeError(f"saved_model.save: signature {name!r} must be an ember.function with an input_signature or "
                    f"a concrete function, got {type(value).__name__}")


def _output_names(structure, name):
    """The names of a signature's results: a dict's keys, else output_0, output_1, ..."""
    if isinstance(structure, Tensor):
        return ["output_0"]
    if isinstance(structure, dict) and all(isinstance(v, Tensor) for v in structure.values()):
        return list(structure)
    if isinstance(structure, (list, tuple)) and all(isinstance(v, Tensor) for v in structure):
        return [f"output_{i}" for i in range(len(structure))]
    raise ValueError(f"saved_model.save: signature {name!r} must return a tensor, or a dict, list or tuple of "
                     f"tensors, got {type(structure).__name__}")


def _subgraphs(concrete):
    return {g.function_id: g for g in concrete._subgraphs}


def _unique(key, taken):
    candidate, n = key, 1
    while candidate in taken:
        n += 1
        candidate = f"{key}#{n}"
    return candidate
