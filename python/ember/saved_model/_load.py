# ember.saved_model.load: rebuilds a saved object tree, its variables and callable functions, without its classes.

import collections.abc
import inspect
import os

from ember import _C
from ember._module import Module
from ember._random import _CallTimeSeed, get_global_generator
from ember._variables import Variable
from ember.function import ConcreteFunction, TensorSpec, current_trace
from ember.saved_model import _format, _structure


def load(export_dir, tags=None, options=None):
    """Loads a saved model written by ``ember.saved_model.save`` (``tf.saved_model.load``).

    Returns an object with the saved object's attributes: its variables
    (new variables, with the saved values), submodules, lists and dicts, and
    its functions, which run the saved graphs. The saved object's class is not
    needed. ``signatures`` maps the signature names to functions that take
    keyword arguments and return a dict of named results.
    """
    del tags  # one kind of graph per saved model: there are no tag sets to choose among
    if options is not None and getattr(options, "experimental_skip_checkpoint", False):
        raise NotImplementedError("saved_model.load: experimental_skip_checkpoint is not supported")
    export_dir = os.fspath(export_dir)
    manifest = _format.read_manifest(export_dir)
    try:
        return _Loader(export_dir, manifest).root
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise _format.CorruptSavedModel(f"saved_model.load: the manifest of {export_dir!r} is corrupt or "
                                        f"inconsistent ({type(e).__name__}: {e})") from None


class _Loader:
    def __init__(self, export_dir, manifest):
        self.export_dir = export_dir
        _, self.arrays = _format.read_checkpoint(export_dir, manifest["variables"])
        _, self.constants = _format.read_checkpoint(export_dir, manifest["constants"])
        self.graphs = self._load_graphs(manifest["graphs"])
        self.nodes = manifest["objects"]
        # Variables, modules, lists and dicts first; then the concrete functions (they use the
        # variables); then functions and tuples, made from what they hold; then attributes and items.
        self.objects = [self._make(node) for node in self.nodes]
        self.concretes = [self._make_concrete(entry) for entry in manifest["concrete_functions"]]
        for index in range(len(self.nodes)):
            self._object(index)
        for node, obj in zip(self.nodes, self.objects):
            self._connect(node, obj)
        self.root = self.objects[0]
        if not isinstance(self.root, _UserObject):
            raise TypeError("the root object is not a module")
        object.__setattr__(self.root, "signatures", _SignatureMap(
            {name: _SignatureFunction(name, self.concretes[entry["concrete"]], entry["inputs"], entry["outputs"])
             for name, entry in manifest["signatures"].items()}))

    def _load_graphs(self, files):
        """The graph functions, in order; each names earlier ones (Note [Function ids in saved graphs])."""
        graphs = []
        for relative in files:
            text = _format.read_text(self.export_dir, relative)
            try:
                text = _format.replace_function_ids(text, {i: g.function_id for i, g in enumerate(graphs)})
                graphs.append(_C._GraphFunction.from_text(text))
            except (ValueError, KeyError, IndexError) as e:
                raise _format.CorruptSavedModel(f"saved_model.load: {os.path.join(self.export_dir, relative)!r} is "
                                                f"not a valid graph: {e}") from None
        return graphs

    def _make(self, node):
        kind = node["kind"]
        if kind == "variable":
            value = self.arrays[node["key"]]
            if list(value.shape) != node["shape"]:
                raise _format.CorruptSavedModel(f"saved_model.load: variable {node['name']!r} has shape "
                                                f"{list(value.shape)} in the checkpoint but {node['shape']} in the "
                                                "manifest")
            var = Variable(value, trainable=node["trainable"])
            var._name = node["name"]  # as saved, whatever name scope load() runs in
            return var
        if kind == "object":
            if not node.get("module", True):
                return _RestoredObject(node.get("class"))
            has_call = node["children"].get("__call__") is not None
            return (_CallableUserObject if has_call else _UserObject)(node.get("name"), node.get("class"))
        if kind == "list":
            return []
        if kind == "dict":
            return {}
        if kind in ("tuple", "function"):
            return None  # made in _connect, once the objects it holds exist
        raise _format.CorruptSavedModel(f"saved_model.load: unknown object kind {kind!r}")

    def _connect(self, node, obj):
        kind = node["kind"]
        if kind == "object":
            for name, index in node["children"].items():
                object.__setattr__(obj, name, self._object(index))
        elif kind == "list":
            obj.extend(self._object(i) for i in node["items"])
        elif kind == "dict":
            obj.update((key, self._object(i)) for key, i in node["items"])

    def _object(self, index):
        """The object of node `index`, made now if it is made from what it holds (a tuple, a function)."""
        if index is None:
            return None
        obj = self.objects[index]
        if obj is not None:
            return obj
        node = self.nodes[index]
        if node["kind"] == "tuple":
            obj = tuple(self._object(i) for i in node["items"])
        else:
            obj = _RestoredFunction(node["name"], node["params"], [self.concretes[i] for i in node["concrete"]])
        self.objects[index] = obj
        return obj

    def _make_concrete(self, entry):
        args = []
        for arg in entry["args"]:
            kind = arg["kind"]
            if kind == "constant":
                args.append(("constant", _C.convert_to_tensor(self.constants[arg["key"]])))
            elif kind == "variable":
                args.append(("variable", self._variable(arg["object"])))
            elif kind == "random_seed":
                args.append(("variable", _CallTimeSeed(lambda: get_global_generator()._next_seeds()[0])))
            elif kind == "parameter":
                args.append(("parameter", None))
            else:
                raise _format.CorruptSavedModel(f"saved_model.load: unknown argument kind {kind!r}")
        specs = [_structure.spec_from_json(s) for s in entry["specs"]]
        updated = [self._variable(i) for i in entry["updated"]]
        return _LoadedConcreteFunction(self.graphs[entry["graph"]], self.graphs, args, updated, specs, entry["name"],
                                       entry["inputs"], entry["outputs"])


    def _variable(self, index):
        var = self.objects[index]
        if not isinstance(var, Variable):
            raise _format.CorruptSavedModel(f"saved_model.load: a function of {self.export_dir!r} reads object "
                                            f"{index}, which is not a variable")
        return var


class _UserObject(Module):
    """A loaded object: the saved object's variables, submodules, containers and functions as
    attributes (TensorFlow's name for it). ``variables`` and ``trainable_variables`` walk them
    as ``ember.Module`` does."""

    def __init__(self, name, class_name):
        super().__init__(name=name if isinstance(name, str) and name.isidentifier() else None)
        object.__setattr__(self, "_saved_class", class_name)

    def __repr__(self):
        return f"<ember.saved_model loaded {self._saved_class or 'object'} '{self.name}'>"


class _RestoredObject:
    """A loaded object that was not a module (an optimizer): its saved attributes only, so
    that modules holding it do not count its variables as their own, as before saving."""

    def __init__(self, class_name):
        self._saved_class = class_name

    def __repr__(self):
        return f"<ember.saved_model loaded {self._saved_class or 'object'}>"


class _CallableUserObject(_UserObject):
    """A loaded object whose saved object had an ``@ember.function`` ``__call__``."""

    def __call__(self, *args, **kwargs):
        return self.__dict__["__call__"](*args, **kwargs)


class _LoadedConcreteFunction(ConcreteFunction):
    """One saved trace: its graph, run with the loaded variables and saved constants."""

    def __init__(self, graph, all_graphs, args, updated, specs, name, inputs, outputs):
        variables = [value for kind, value in args if kind == "variable"]
        super().__init__(graph, None, variables, updated, specs, name, all_graphs)
        self._arg_plan = args
        self._inputs = inputs
        self._outputs = outputs

    @property
    def structured_outputs(self):
        return _structure.decode(self._outputs, iter(_output_specs(self)))

    def _structure(self, results):
        return _structure.decode(self._outputs, iter(results))

    def _call(self, params, variables):
        # Variables are read through _value, so that a gradient tape sees the reads (a gradient
        # through the call then fails loudly: call_function has none) and an enclosing trace
        # reads them at call time rather than capturing today's value.
        inputs, params, variables = [], iter(params), iter(variables)
        for kind, value in self._arg_plan:
            if kind == "parameter":
                inputs.append(next(params))
            elif kind == "constant":
                inputs.append(value)
            else:
                var = next(variables)
                inputs.append(var._value if isinstance(var, Variable) else var._eager_value)
        return self._graph.call(inputs)

    def _call_plain(self, params, variables, updated):
        if updated and current_trace() is not None:
            # Called while another function traces: the new values go through the trace.
            results = self._call(params, variables)
            for var, value in zip(updated, results[self._num_user_outputs:]):
                var.assign(value)
            return self._structure(results[:self._num_user_outputs])
        return super()._call_plain(params, variables, updated)

    def _match(self, values, kwargs):
        """The tensor arguments of a call, if it fits this trace's saved arguments; else None."""
        saved_args, saved_kwargs = self._inputs["args"], self._inputs["kwargs"]
        if len(values) != len(saved_args) or set(kwargs) != set(saved_kwargs):
            return None
        specs, params = iter(self.input_signature), []
        for encoded, value in zip(saved_args, values):
            if not _structure.match(encoded, value, specs, params):
                return None
        for name in sorted(saved_kwargs):
            if not _structure.match(saved_kwargs[name], kwargs[name], specs, params):
                return None
        return params

    def _describe_inputs(self, param_names):
        specs = iter(self.input_signature)
        parts = []
        for i, encoded in enumerate(self._inputs["args"]):
            label = param_names[i] if i < len(param_names) else f"arg{i}"
            parts.append(f"{label}={_structure.describe(encoded, specs)}")
        parts += [f"{k}={_structure.describe(v, specs)}" for k, v in sorted(self._inputs["kwargs"].items())]
        return "(" + ", ".join(parts) + ")"


def _output_specs(concrete):
    return [TensorSpec(shape, dtype) for dtype, shape in concrete._graph.outputs()[:concrete._num_user_outputs]]


_UNSAVED_DEFAULT = object()


class _RestoredFunction:
    """A loaded ``@ember.function``: a call runs the first saved trace its arguments fit."""

    def __init__(self, name, params, concretes):
        self.__name__ = self._name = name
        self._concretes = concretes
        self._signature = None
        if params is not None:
            self._signature = inspect.Signature([
                inspect.Parameter(p["name"], getattr(inspect.Parameter, p["kind"]),
                                  default=_decode_default(p["default"]) if "default" in p else inspect.Parameter.empty)
                for p in params])

    def __call__(self, *args, **kwargs):
        concrete, params = self._find(args, kwargs)
        if any(isinstance(p, TensorSpec) for p in params):
            raise TypeError(f"{self._name}: pass tensors, not TensorSpecs (get_concrete_function takes specs)")
        return concrete._call_flat(params)

    def get_concrete_function(self, *args, **kwargs):
        """The saved trace that these arguments (tensors or TensorSpecs) select; without
        arguments, the only one (a function saved with an input_signature has one)."""
        if not args and not kwargs and len(self._concretes) == 1:
            return self._concretes[0]
        return self._find(args, kwargs)[0]

    def _bind(self, args, kwargs):
        if self._signature is None:
            return list(args), dict(kwargs)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}: {e}") from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            if value is _UNSAVED_DEFAULT:
                raise TypeError(f"{self._name}: pass {name}: its default value was not saved")
        return list(bound.args), dict(bound.kwargs)

    def _find(self, args, kwargs):
        values, keywords = self._bind(args, kwargs)
        for concrete in self._concretes:
            params = concrete._match(values, keywords)
            if params is not None:
                return concrete, params
        names = [p for p in (self._signature.parameters if self._signature is not None else ())]
        got = ", ".join([(f"{names[i]}=" if i < len(names) else "") + _structure.describe_value(v)
                         for i, v in enumerate(values)] +
                        [f"{k}={_structure.describe_value(v)}" for k, v in sorted(keywords.items())])
        if not self._concretes:
            options = "none: it was never traced before it was saved"
        else:
            options = "; ".join(f"{i + 1}: {c._describe_inputs(names)}" for i, c in enumerate(self._concretes))
        raise ValueError(f"{self._name}: the arguments ({got}) match none of the signatures it was saved with. "
                         f"It accepts: {options}")

    def __repr__(self):
        return f"<ember.saved_model restored function {self._name}>"


def _decode_default(encoded):
    if encoded.get("kind") == "unsaved":
        return _UNSAVED_DEFAULT
    return _structure.decode(encoded, iter(()))


class _SignatureFunction:
    """A loaded signature: called with keyword arguments, returns a dict of named results
    (TensorFlow's signature functions)."""

    def __init__(self, name, concrete, inputs, outputs):
        self.name = name
        self._concrete = concrete
        self._inputs = inputs
        self._outputs = outputs

    @property
    def structured_input_signature(self):
        specs = self._concrete.input_signature
        return (), {name: TensorSpec(s.shape, s.dtype, name) for name, s in zip(self._inputs, specs)}

    @property
    def structured_outputs(self):
        return dict(zip(self._outputs, _output_specs(self._concrete)))

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError(f"signature {self.name!r} takes keyword arguments only ({', '.join(self._inputs)}), got "
                            f"{len(args)} positional")
        if set(kwargs) != set(self._inputs):
            raise TypeError(f"signature {self.name!r} takes the keyword arguments {sorted(self._inputs)}, got "
                            f"{sorted(kwargs)}")
        params = []
        for name, spec in zip(self._inputs, self._concrete.input_signature):
            tensor = _structure._as_leaf(kwargs[name], spec)
            if tensor is None:
                raise ValueError(f"signature {self.name!r}: argument {name} is a "
                                 f"{_structure.describe_value(kwargs[name])}, which does not match {spec}")
            params.append(tensor)
        results = self._concrete._call_flat(params)
        flat = [results] if len(self._outputs) == 1 and not isinstance(results, (dict, list, tuple)) else results
        if isinstance(flat, dict):
            return {name: flat[name] for name in self._outputs}
        return dict(zip(self._outputs, flat))

    def __repr__(self):
        return f"<ember.saved_model signature {self.name} {self._inputs} -> {self._outputs}>"


class _SignatureMap(collections.abc.Mapping):
    """``loaded.signatures``: signature name -> signature function."""

    def __init__(self, signatures):
        self._signatures = signatures

    def __getitem__(self, name):
        return self._signatures[name]

    def __iter__(self):
        return iter(self._signatures)

    def __len__(self):
        return len(self._signatures)

    def __repr__(self):
        return f"_SignatureMap({list(self._signatures)})"
