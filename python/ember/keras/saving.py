"""Saving: the `.keras` zip (config.json, metadata.json, model.weights.npz), save/load_weights, layer (de)serialization.

Keras 3 stores weights as HDF5 (`model.weights.h5`). h5py is not a
dependency of Ember, so the archive holds `model.weights.npz` instead: one
NumPy array per weight, under the same kind of path Keras uses
(`<attribute path>/vars/<i>`). config.json and metadata.json follow Keras 3.
"""

import datetime as _datetime
import io as _io
import json as _json
import os as _os
import zipfile as _zipfile

import numpy as _np

from ember.keras.engine.layer import Layer as _Layer

_CONFIG, _METADATA, _WEIGHTS = "config.json", "metadata.json", "model.weights.npz"


# --- Layer (de)serialization -------------------------------------------------
def _registry():
    from ember.keras import layers, models
    reg = {name: obj for name, obj in vars(layers).items() if isinstance(obj, type) and issubclass(obj, _Layer)}
    reg.update({"Sequential": models.Sequential, "Functional": models.Functional, "Model": models.Model})
    return reg


def serialize_layer(layer):
    from ember.keras.models.functional import Functional
    module = "keras.models" if type(layer).__name__ in ("Sequential", "Functional") else "keras.layers"
    cls = getattr(type(layer), "_functional_of", type(layer))  # Custom(inputs, outputs) saves as Custom
    registered = None if cls.__name__ in _registry() else f"Custom>{cls.__name__}"
    functional = isinstance(layer, Functional) and cls is type(layer)
    out = {"module": module, "class_name": "Functional" if functional else cls.__name__,
           "config": layer.get_config(), "registered_name": registered}
    shape = _build_shape(layer)
    if shape is not None:
        out["build_config"] = {"input_shape": shape}
    return out


def _build_shape(layer):
    from ember.keras.engine.training import Model
    if isinstance(layer, Model) and type(layer).__name__ not in ("Sequential", "Functional"):
        return getattr(layer, "_built_input_shape", None)
    return None


def deserialize_layer(config, custom_objects=None):
    registry = {**_registry(), **(custom_objects or {})}
    name = config["class_name"]
    cls = registry.get(name) or registry.get((config.get("registered_name") or "").split(">")[-1])
    if cls is None:
        raise ValueError(f"Unknown layer class {name!r}: pass it in custom_objects")
    inner = config.get("config", {})
    from ember.keras.models.functional import Functional
    from ember.keras.models.sequential import Sequential
    import inspect
    from ember.keras.engine.training import Model
    if issubclass(cls, (Functional, Sequential)) or (
            issubclass(cls, Model) and "custom_objects" in inspect.signature(cls.from_config).parameters):
        layer = cls.from_config(inner, custom_objects=custom_objects)
    else:
        layer = cls.from_config(inner)
    shape = (config.get("build_config") or {}).get("input_shape")
    if shape is not None and not layer.built:
        layer.build(tuple(shape))
    return layer


# --- Weights ----------------------------------------------------------------
def _weight_items(layer, prefix=""):
    """(path, variable) for every weight, by attribute path: the same for two
    models of the same architecture, whatever their layers are named."""
    seen = set()
    out = []

    def visit(obj, path):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        for i, v in enumerate(obj._own_weights):
            out.append((f"{path}vars/{i}", v))
        for key, value in vars(obj).items():
            if key in ("_inbound_nodes",):
                continue
            for sub_path, sub in _layers_in(value, key):
                visit(sub, f"{path}{sub_path}/")

    visit(layer, prefix)
    return out


def _layers_in(value, path):
    if isinstance(value, _Layer):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _layers_in(v, f"{path}/{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _layers_in(v, f"{path}/{i}")


_OPTIMIZER = "optimizer/vars/"


def _weights_bytes(model, include_optimizer=False):
    arrays = {path: v.numpy() for path, v in _weight_items(model)}
    if include_optimizer and getattr(model, "optimizer", None) is not None:
        # Keras keeps the optimizer's variables (iterations, then each slot) beside the weights.
        arrays.update({f"{_OPTIMIZER}{i}": v.numpy() for i, v in enumerate(model.optimizer.variables)})
    buffer = _io.BytesIO()
    _np.savez(buffer, **arrays)
    return buffer.getvalue()


def _assign(path, variable, value):
    if tuple(value.shape) != tuple(variable.shape):
        raise ValueError(f"Weight {path}: saved shape {value.shape}, model shape {tuple(variable.shape)}")
    variable.assign(value.astype(variable.dtype.as_numpy_dtype))


def _load_weights_bytes(model, data):
    with _np.load(_io.BytesIO(data), allow_pickle=False) as arrays:
        saved = [name for name in arrays.files if not name.startswith(_OPTIMIZER)]
        items = _weight_items(model)
        missing = [p for p, _ in items if p not in saved]
        if missing or len(saved) != len(items):
            raise ValueError(f"The saved weights do not match the model: missing {missing[:5]}, saved "
                             f"{len(saved)} arrays for {len(items)} weights")
        for path, v in items:
            _assign(path, v, arrays[path])


def _load_optimizer_bytes(model, data):
    """Restores a compiled model's optimizer state; its slots are made first (optimizer.build)."""
    with _np.load(_io.BytesIO(data), allow_pickle=False) as arrays:
        names = sorted((n for n in arrays.files if n.startswith(_OPTIMIZER)), key=lambda n: int(n.split("/")[-1]))
        if not names:
            return
        model.optimizer.build(model.trainable_weights)
        variables = model.optimizer.variables
        if len(variables) != len(names):
            raise ValueError(f"The saved optimizer has {len(names)} variables, the model's has {len(variables)}")
        for name, v in zip(names, variables):
            _assign(name, v, arrays[name])


def save_weights(model, filepath, overwrite=True):
    """Writes the weights as an npz archive (Keras names the file ``*.weights.h5``; the content is npz here)."""
    filepath = _os.fspath(filepath)
    if not overwrite and _os.path.exists(filepath):
        raise FileExistsError(filepath)
    with open(filepath, "wb") as f:
        f.write(_weights_bytes(model))


def load_weights(model, filepath):
    filepath = _os.fspath(filepath)
    if filepath.endswith(".keras"):
        with _zipfile.ZipFile(filepath) as z:
            _load_weights_bytes(model, z.read(_WEIGHTS))
        return
    with open(filepath, "rb") as f:
        _load_weights_bytes(model, f.read())


# --- Compile config ------------------------------------------------------------
def compile_config(model):
    from ember.keras import losses, metrics
    args = model._compile_args

    def loss_entry(loss):
        if loss is None or isinstance(loss, str):
            return loss
        if isinstance(loss, losses.Loss):
            return losses.serialize(loss)
        return getattr(loss, "__name__", None)

    def metric_entry(m):
        if isinstance(m, str):
            return m
        if isinstance(m, metrics.Metric):
            return {"class_name": type(m).__name__, "config": m.get_config()}
        return getattr(m, "__name__", None)

    loss = args["loss"]
    loss = ({k: loss_entry(v) for k, v in loss.items()} if isinstance(loss, dict) else
            [loss_entry(v) for v in loss] if isinstance(loss, (list, tuple)) else loss_entry(loss))
    def metrics_entry(mets):
        return ({k: [metric_entry(m) for m in v] for k, v in mets.items()} if isinstance(mets, dict) else
                [metric_entry(m) for m in mets] if mets else None)
    from ember.keras import optimizers
    return {"optimizer": _plain(optimizers.serialize(model.optimizer)),
            "loss": loss, "loss_weights": args["loss_weights"], "metrics": metrics_entry(args["metrics"]),
            "weighted_metrics": metrics_entry(args.get("weighted_metrics"))}


def _plain(config):
    return _json.loads(_json.dumps(config, default=lambda o: None))


def compile_from_config(model, config):
    from ember.keras import optimizers
    opt_config = dict(config["optimizer"]["config"])
    opt = optimizers.deserialize({"class_name": config["optimizer"]["class_name"], "config": opt_config})
    from ember.keras import losses, metrics

    def is_serialized(v):
        return isinstance(v, dict) and "class_name" in v

    def loss_of(v):
        return losses.get(v) if is_serialized(v) else v

    def metric_of(v):
        return metrics.get(v) if is_serialized(v) else v

    loss = config.get("loss")
    loss = (loss_of(loss) if is_serialized(loss) or not isinstance(loss, (dict, list)) else
            {k: loss_of(v) for k, v in loss.items()} if isinstance(loss, dict) else [loss_of(v) for v in loss])
    def metrics_of(mets):
        if isinstance(mets, dict):
            return {k: [metric_of(m) for m in v] for k, v in mets.items()}
        return None if mets is None else [metric_of(m) for m in mets]
    model.compile(optimizer=opt, loss=loss, loss_weights=config.get("loss_weights"),
                  metrics=metrics_of(config.get("metrics")),
                  weighted_metrics=metrics_of(config.get("weighted_metrics")))


# --- The .keras archive ----------------------------------------------------------
def save_model(model, filepath, overwrite=True):
    filepath = _os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(f"save: the file name must end in .keras, got {filepath!r} (use save_weights for weights)")
    if not overwrite and _os.path.exists(filepath):
        raise FileExistsError(filepath)
    from ember import __version__
    config = serialize_layer(model)
    config["compile_config"] = model.get_compile_config()
    metadata = {"keras_version": "3 (ember.keras)", "ember_version": __version__,
                "date_saved": _datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
                "weights_format": "npz"}
    with _zipfile.ZipFile(filepath, "w", compression=_zipfile.ZIP_DEFLATED) as z:
        z.writestr(_METADATA, _json.dumps(metadata))
        z.writestr(_CONFIG, _json.dumps(config))
        z.writestr(_WEIGHTS, _weights_bytes(model, include_optimizer=model.compiled))


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Reads a model saved by ``model.save("m.keras")``: architecture, weights and compile settings."""
    filepath = _os.fspath(filepath)
    with _zipfile.ZipFile(filepath) as z:
        names = z.namelist()
        if _WEIGHTS not in names:
            detail = " (it holds model.weights.h5: a Keras HDF5 archive, which needs h5py)" if (
                "model.weights.h5" in names) else ""
            raise ValueError(f"load_model: {filepath} has no {_WEIGHTS}{detail}")
        config = _json.loads(z.read(_CONFIG))
        weights = z.read(_WEIGHTS)
    model = deserialize_layer(config, custom_objects)
    _load_weights_bytes(model, weights)
    if compile and config.get("compile_config"):
        model.compile_from_config(config["compile_config"])
        _load_optimizer_bytes(model, weights)
    return model
