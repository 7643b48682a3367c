"""The Python package is layered (docs/architecture.md, "Python package layers"): each module
belongs to one layer of LAYERS, imports at module level only from its own layer or the ones
before it, and the modules below the API layer import each other without a cycle; each layer
loads without the ones after it.

The graph comes from the sources (tests/python/import_graph.py), so a failure names the
import statement's module, not a traceback from a half-imported package."""

import json
import os
import subprocess
import sys

import pytest

import ember
import import_graph

# Lowest first. A module belongs to the layer of the longest prefix that names it or its package.
LAYERS = [
    ("runtime", ["ember._C", "ember._generated", "ember._blas", "ember._checks", "ember.errors", "ember.dtypes",
                 "ember._tensor_shape", "ember._runtime", "ember.device", "ember.config", "ember._name_scope",
                 "ember.nest", "ember._context", "ember._wire", "ember.profiler"]),
    ("tensor", ["ember._tensor", "ember._tensor_repr", "ember._graph_checks", "ember._dlpack", "ember._indexing",
                "ember._creation", "ember._strings", "ember._strings._value", "ember._strings._shape_ops"]),
    ("ops", ["ember._selection", "ember._movement", "ember._segments", "ember._random", "ember._strings._dispatch",
             "ember._strings._fingerprint", "ember._strings._numbers", "ember._strings._pieces",
             "ember._strings._text_ops",
             "ember._decompositions", "ember._matrix_composites", "ember._matrix_norms", "ember._clipping",
             "ember._nn3d", "ember._loss_scaling", "ember.einsum", "ember.math", "ember.nn", "ember.linalg",
             "ember.signal", "ember.image",
             "ember.bitwise", "ember.debugging", "ember.random", "ember.strings", "ember.sparse", "ember.ragged"]),
    ("variables", ["ember._variables", "ember._variable_policy"]),
    ("programs", ["ember.autodiff", "ember._grads", "ember.function", "ember._control_flow", "ember._autograph",
                  "ember._tensor_array", "ember._functional_ops", "ember._py_function", "ember._printing"]),
    ("library", ["ember._module", "ember.initializers", "ember.optimizers", "ember.train", "ember.saved_model",
                 "ember.io", "ember.data", "ember.experimental", "ember.distribute"]),
    # The package's __init__ re-exports everything; Keras is written against that public API.
    ("api", ["ember", "ember.keras"]),
]
API = len(LAYERS) - 1

# Packages checked as one unit: data/_dataset.py imports its subclasses' modules at its end
# (Dataset's methods build them), and Keras is layered on its own branch.
UNITS = ["ember.data", "ember.keras"]


def layer_of(module, layers=LAYERS):
    """The index in layers of the longest prefix naming module or a package above it, or None."""
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def collapse(graph, units):
    """The graph with each unit's modules merged into one node named after the unit."""
    def unit(module):
        return next((u for u in units if module == u or module.startswith(u + ".")), module)
    merged = {}
    for module, targets in graph.items():
        merged.setdefault(unit(module), set()).update(unit(t) for t in targets)
    for module, targets in merged.items():
        targets.discard(module)
    return merged


def upward_imports(graph, layers):
    """The imports (module, target) against the layer order: to a later layer, or, from below
    the last (API) layer, into it."""
    api = len(layers) - 1
    bad = []
    for module, targets in sorted(graph.items()):
        mine = layer_of(module, layers)
        for target in sorted(targets):
            theirs = layer_of(target, layers)
            if theirs > mine or (mine < api and theirs == api):
                bad.append((module, target))
    return bad


@pytest.fixture(scope="module")
def graph():
    graph, _ = import_graph.build()
    return collapse(graph, UNITS)


def test_the_graph_is_read_from_the_sources(graph):
    assert {"ember._C", "ember._tensor_repr"} <= graph["ember._tensor"]
    assert "ember._variables" in graph["ember.function"]
    assert len(graph) > 100


def test_every_module_has_a_layer(graph):
    assert [m for m in sorted(graph) if layer_of(m) is None] == []


def test_modules_import_only_from_their_layer_or_below(graph):
    bad = upward_imports(graph, LAYERS)
    assert bad == [], "\n".join(f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
                                for m, t in bad)


def test_no_import_cycle_below_the_api_layer(graph):
    below = {m: {t for t in ts if layer_of(t) < API} for m, ts in graph.items() if layer_of(m) < API}
    assert import_graph.strongly_connected_components(below) == []


def test_no_cycle_through_function_local_imports_up_to_the_programs_layer():
    """The circle this order replaced was held together by imports inside functions. Counting
    those as edges too, the layers up to `programs` still import without a cycle."""
    graph, function_local = import_graph.build()
    library = [name for name, _ in LAYERS].index("library")
    full = {m: {t for t in graph[m].union(*function_local[m]) if layer_of(t) < library}
            for m in graph if layer_of(m) < library}
    assert import_graph.strongly_connected_components(full) == []


# Imports the named modules under a bare `ember` package (its __init__.py, the API layer, does
# not run) and prints every ember module that got loaded.
_LOAD_ALONE = """
import importlib, json, sys, types
package = types.ModuleType("ember")
package.__path__ = [sys.argv[1]]
sys.modules["ember"] = package
from ember import _C
for name in sys.argv[2:]:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.startswith("ember."))))
"""


@pytest.mark.parametrize("layer", [name for name, _ in LAYERS[:API]])
def test_each_layer_loads_without_the_layers_above(graph, layer):
    index = [name for name, _ in LAYERS].index(layer)
    modules = sorted(m for m in graph if layer_of(m) == index and m not in import_graph.BUILT)
    result = subprocess.run([sys.executable, "-c", _LOAD_ALONE, os.path.dirname(ember.__file__), *modules],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.splitlines()[-1])
    assert [m for m in loaded if (layer_of(m) or 0) > index] == []


def test_lower_layers_do_not_import_variables_even_in_functions():
    """Below the variables layer, a Variable is read through the value protocol
    (Note [Value protocol] in ember/_creation.py), not recognised by its class."""
    _, function_local = import_graph.build()
    variables = layer_of("ember._variables")
    found = [module for module, statements in sorted(function_local.items())
             if layer_of(module) < variables and any("ember._variables" in s for s in statements)]
    assert found == []


# The checks must be able to fail: a synthetic package with a cycle and an upward import.
def test_cycle_detector_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert import_graph.strongly_connected_components(graph) == [["a", "b", "c"], ["e"]]
    assert import_graph.strongly_connected_components({"a": {"b"}, "b": set()}) == []


def test_layer_check_finds_an_upward_import():
    layers = [("low", ["p.low"]), ("high", ["p.high"]), ("api", ["p"])]
    graph = {"p.low": {"p.high"}, "p.high": {"p.low"}, "p.low.x": {"p"}, "p": {"p.high"}}
    assert upward_imports(graph, layers) == [("p.low", "p.high"), ("p.low.x", "p")]
