"""The functional API: a Model whose call replays the graph of layer calls between Input and output KerasTensors."""

from ember import nest
from ember.keras.engine.keras_tensor import KerasTensor
from ember.keras.engine.training import Model
from ember.keras.layers.core import InputLayer


def _topological_nodes(outputs):
    """Every node the outputs depend on, each after its parents (depth first)."""
    order, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parents:
            visit(parent)
        order.append(node)

    for t in nest.flatten(outputs):
        if not isinstance(t, KerasTensor) or t._history is None:
            raise ValueError(f"Model outputs must be KerasTensors from layer calls, got {t!r}")
        visit(t._history[0])
    return order


class Functional(Model):
    """``Model(inputs, outputs)``: inputs a KerasTensor from ``Input`` (or a list/dict of them),
    outputs the KerasTensor(s) reached from them by layer calls."""

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._inputs_struct = inputs
        self._outputs_struct = outputs
        nodes = _topological_nodes(outputs)
        flat_inputs = nest.flatten(inputs)
        for t in flat_inputs:
            if not isinstance(t, KerasTensor) or not isinstance(t._history[0].layer, InputLayer):
                raise ValueError(f"Model inputs must come from keras.Input, got {t!r}")
        input_ids = {id(t) for t in flat_inputs}
        for node in nodes:
            if isinstance(node.layer, InputLayer) and id(node.outputs) not in input_ids:
                raise ValueError(f"Output depends on input {node.layer.name}, which is not among the model's "
                                 f"inputs")
        self._nodes = [n for n in nodes if not isinstance(n.layer, InputLayer)]
        # Layers in graph order: the inputs first, then each layer at its first call.
        layers = [t._history[0].layer for t in flat_inputs]
        for node in self._nodes:
            if all(node.layer is not layer for layer in layers):
                layers.append(node.layer)
        self._layers = layers
        self.built = True

    @property
    def layers(self):
        return list(self._layers)

    @property
    def inputs(self):
        return nest.flatten(self._inputs_struct)

    @property
    def outputs(self):
        return nest.flatten(self._outputs_struct)

    @property
    def input(self):
        return self._inputs_struct

    @property
    def output(self):
        return self._outputs_struct

    @property
    def input_names(self):
        return [t._history[0].layer.name for t in self.inputs]

    @property
    def output_names(self):
        return [t._history[0].layer.name for t in self.outputs]

    def _sublayers(self):
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    def call(self, inputs, training=None):
        values = {}
        if isinstance(self._inputs_struct, dict) and isinstance(inputs, dict):
            pairs = [(self._inputs_struct[k], inputs[k]) for k in self._inputs_struct]
        elif isinstance(inputs, dict):  # a dict keyed by input names
            pairs = [(t, inputs[t._history[0].layer.name]) for t in self.inputs]
        else:
            flat = nest.flatten(inputs)
            if len(flat) != len(self.inputs):
                raise ValueError(f"Model {self.name} expects {len(self.inputs)} input(s), got {len(flat)}")
            pairs = list(zip(self.inputs, flat))
        for t, v in pairs:
            values[id(t)] = v
        masks = {}  # Keras' masking, for single-input, single-output calls
        for node in self._nodes:
            args, kwargs = nest.map_structure(
                lambda v: values[id(v)] if isinstance(v, KerasTensor) else v, (node.args, node.kwargs))
            sources = node.input_tensors
            mask = masks.get(id(sources[0])) if len(sources) == 1 else None
            if mask is not None and node.layer._takes_mask() and "mask" not in kwargs:
                kwargs = {**kwargs, "mask": mask}
            out = node.layer(*args, **kwargs)
            for t, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                values[id(t)] = v
            outputs = nest.flatten(node.outputs)
            if len(sources) == 1 and len(outputs) == 1:
                out_mask = node.layer.compute_mask(values[id(sources[0])], mask)
                if out_mask is not None:
                    masks[id(outputs[0])] = out_mask
        return nest.map_structure(lambda t: values[id(t)], self._outputs_struct)

    def build(self, input_shape):
        self.built = True

    def get_config(self):
        from ember.keras.saving import serialize_layer
        own_nodes = {id(n) for n in self._nodes} | {id(t._history[0]) for t in self.inputs}

        def node_index(node):
            return [n for n in node.layer._inbound_nodes if id(n) in own_nodes].index(node)

        def tensor_ref(t):
            node, index = t._history
            return [node.layer.name, node_index(node), index]

        def encode(value):
            if isinstance(value, KerasTensor):
                return {"class_name": "__keras_tensor__",
                        "config": {"shape": list(value.shape), "dtype": value.dtype.name,
                                   "keras_history": tensor_ref(value)}}
            return value

        layer_configs = []
        for layer in self._layers:
            config = serialize_layer(layer)
            config["name"] = layer.name
            config["inbound_nodes"] = [
                {"args": nest.map_structure(encode, list(n.args)), "kwargs": nest.map_structure(encode, n.kwargs)}
                for n in layer._inbound_nodes if id(n) in own_nodes and not isinstance(layer, InputLayer)]
            layer_configs.append(config)

        def refs(struct):
            if isinstance(struct, dict):
                return {k: tensor_ref(v) for k, v in struct.items()}
            if isinstance(struct, KerasTensor):
                return [tensor_ref(struct)]
            return [tensor_ref(t) for t in struct]
        return {"name": self.name, "trainable": self.trainable, "layers": layer_configs,
                "input_layers": refs(self._inputs_struct), "output_layers": refs(self._outputs_struct)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ember.keras.saving import deserialize_layer
        created = {}
        pending = []
        for layer_config in config["layers"]:
            layer = deserialize_layer(layer_config, custom_objects)
            created[layer_config["name"]] = layer
            pending.extend((layer, node) for node in layer_config.get("inbound_nodes", []))
        node_outputs = {name: [layer.output_tensor] for name, layer in created.items()
                        if isinstance(layer, InputLayer)}

        def ready(value):
            return all(name in node_outputs and len(node_outputs[name]) > index
                       for name, index, _ in _history_refs(value))

        def decode(value):
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                name, node, index = value["config"]["keras_history"]
                return nest.flatten(node_outputs[name][node])[index]
            if isinstance(value, dict):
                return {k: decode(v) for k, v in value.items()}
            if isinstance(value, list):
                return [decode(v) for v in value]
            return value

        while pending:  # call each layer once its inputs exist, in the saved order where possible
            progressed = False
            for item in list(pending):
                layer, node = item
                if ready(node) and pending.index(item) == next(
                        i for i, (other, _) in enumerate(pending) if other is layer):
                    out = layer(*decode(node["args"]), **decode(node["kwargs"]))
                    node_outputs.setdefault(layer.name, []).append(out)
                    pending.remove(item)
                    progressed = True
            if not progressed:
                raise ValueError("Functional.from_config: the saved graph has a cycle or missing layers")

        def tensors(refs):
            if isinstance(refs, dict):
                return {k: nest.flatten(node_outputs[r[0]][r[1]])[r[2]] for k, r in refs.items()}
            out = [nest.flatten(node_outputs[r[0]][r[1]])[r[2]] for r in refs]
            return out[0] if len(out) == 1 else out
        return cls(tensors(config["input_layers"]), tensors(config["output_layers"]), name=config.get("name"),
                   trainable=config.get("trainable", True))


def _history_refs(value):
    if isinstance(value, dict):
        if value.get("class_name") == "__keras_tensor__":
            yield value["config"]["keras_history"]
            return
        for v in value.values():
            yield from _history_refs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _history_refs(v)
