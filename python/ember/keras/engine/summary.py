"""Model.summary(): Keras 3's table of layers, output shapes and parameter counts."""

import numpy as np

from ember import nest


def _size(weights):
    total = sum(int(np.prod(v.shape)) * v.dtype.as_numpy_dtype().itemsize for v in weights)
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if total >= scale:
            return f"{total / scale:.2f} {unit}"
    return f"{total:.2f} B"


def _count(weights):
    return sum(int(np.prod(v.shape)) for v in weights)


def _shape_text(shape):
    if shape is None:
        return "?"
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_text(s) for s in shape) + "]"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _output_shape(model, layer):
    """The shape of the layer's output in this model's graph, else its last call's."""
    nodes = getattr(layer, "_inbound_nodes", [])
    if nodes:
        out = nodes[-1].outputs
        shapes = [t.shape for t in nest.flatten(out)]
        return shapes[0] if len(shapes) == 1 else shapes
    return getattr(layer, "_last_output_shape", None)


def _connections(model, layer):
    from ember.keras.models.functional import Functional
    if not isinstance(model, Functional):
        return None
    own = {id(n) for n in model._nodes}
    parts = []
    for node in layer._inbound_nodes:
        if id(node) not in own:
            continue
        for t in node.input_tensors:
            src, index = t._history
            parts.append(f"{src.layer.name}[{src.layer._inbound_nodes.index(src)}][{index}]")
    return parts or ["-"]


def print_summary(model, line_length=None, print_fn=None):
    print_fn = print_fn or print
    from ember.keras.models.functional import Functional
    functional = isinstance(model, Functional)
    widths = [33, 24, 15] + ([30] if functional else [])
    titles = ["Layer (type)", "Output Shape", "Param #"] + (["Connected to"] if functional else [])

    def row(cells, left="│", sep="│", right="│"):
        # A cell too long for its column wraps onto more lines, as Keras' table does.
        def wrap(text, w):
            return [text[i:i + w - 2] for i in range(0, max(len(text), 1), w - 2)]
        wrapped = [[p for t in (c if isinstance(c, list) else [c]) for p in wrap(t, w)]
                   for c, w in zip(cells, widths)]
        lines = []
        for k in range(max(len(parts) for parts in wrapped)):
            out = []
            for i, (parts, w) in enumerate(zip(wrapped, widths)):
                text = parts[k] if k < len(parts) else ""
                out.append(" " + (text.rjust(w - 2) if i == 2 else text.ljust(w - 2)) + " ")
            lines.append(left + sep.join(out) + right)
        return "\n".join(lines)

    def rule(left, mid, right, char):
        return left + mid.join(char * w for w in widths) + right

    lines = [f'Model: "{model.name}"', rule("┏", "┳", "┓", "━"), row(titles, "┃", "┃", "┃"),
             rule("┡", "╇", "┩", "━")]
    layers = model.layers
    for i, layer in enumerate(layers):
        cells = [f"{layer.name} ({type(layer).__name__})", _shape_text(_output_shape(model, layer)),
                 f"{layer.count_params():,}" if layer.built or layer.weights else "0 (unbuilt)"]
        if functional:
            cells.append(_connections(model, layer))
        lines.append(row(cells))
        if i + 1 < len(layers):
            lines.append(rule("├", "┼", "┤", "─"))
    lines.append(rule("└", "┴", "┘", "─"))
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    lines.append(f" Total params: {_count(model.weights):,} ({_size(model.weights)})")
    lines.append(f" Trainable params: {_count(trainable):,} ({_size(trainable)})")
    lines.append(f" Non-trainable params: {_count(non_trainable):,} ({_size(non_trainable)})")
    for line in lines:
        print_fn(line)
