"""The import graph of python/ember, read from the sources with `ast` (nothing is imported).

An edge a -> b means module a imports ember module b when a itself is imported: a statement
outside any function body, and outside `if TYPE_CHECKING:`. Imports inside functions run on
the first call; they are counted separately, as `function_local_imports`.

    python tests/python/import_graph.py      # prints the cycles and the counts
"""

import ast
import pathlib
import sys

PACKAGE_DIR = pathlib.Path(__file__).resolve().parents[2] / "python" / "ember"


# Modules that are not Python sources: the extension, and the generated bindings (build output,
# absent from a fresh checkout), which count as one module.
BUILT = ("ember._C", "ember._generated")


def module_files(package_dir=PACKAGE_DIR):
    """Maps each module name ("ember._tensor", "ember.autodiff") to its source file."""
    files = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if "__pycache__" in parts:
            continue
        if parts[1:2] == ["_generated"]:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree):
    """Yields (statement, runs_at_import) for every import statement in the tree."""
    def visit(node, at_import):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, at_import
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from visit(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for statement in child.orelse:  # the `else:` branch does run
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), at_import)
            else:
                yield from visit(child, at_import)
    yield from visit(tree, True)


def _known(name, modules):
    return name in modules or any(name == b or name.startswith(b + ".") for b in BUILT)


def _targets(statement, module, is_package, modules):
    """The ember modules one import statement loads (the parent packages it also loads are left out)."""
    if isinstance(statement, ast.Import):
        names = [alias.name for alias in statement.names]
    else:
        if statement.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - statement.level + 1]
            source = ".".join(base + ([statement.module] if statement.module else []))
        else:
            source = statement.module
        # `from ember import _tensor` loads the submodule; `from ember import Tensor` the package.
        names = [f"{source}.{alias.name}" if _known(f"{source}.{alias.name}", modules) else source
                 for alias in statement.names]
    found = set()
    for name in names:
        while name and not _known(name, modules):  # `import ember.x.y` where y is an attribute
            name = name.rpartition(".")[0]
        name = next((b for b in BUILT if name.startswith(b + ".")), name)
        if name and name != module:
            found.add(name)
        # Importing ember.a.b runs ember/a/__init__.py first, unless the importer is inside
        # ember.a, which Python has then imported already.
        parent = name.rpartition(".")[0]
        while parent.count("."):
            if parent in modules and parent != module and not module.startswith(parent + "."):
                found.add(parent)
            parent = parent.rpartition(".")[0]
    return found


def build(package_dir=PACKAGE_DIR):
    """Returns (graph, function_local): graph maps each module to the set of ember modules it
    imports at import time; function_local maps it to a list with, for each import statement of
    ember modules inside its functions, the set of modules that statement imports."""
    files = module_files(package_dir)
    graph, function_local = {name: set() for name in BUILT}, {name: [] for name in BUILT}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        graph[module], function_local[module] = set(), []
        for statement, at_import in _imports(tree):
            targets = _targets(statement, module, is_package, files)
            if at_import:
                graph[module] |= targets
            elif targets:
                function_local[module].append(targets)
    return graph, function_local


def strongly_connected_components(graph):
    """Tarjan's algorithm, iterative. Returns the components with more than one module, or
    with a self-edge, each as a sorted list, largest first."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    components.append(sorted(component))
    return sorted(components, key=lambda c: (-len(c), c))


def main():
    graph, function_local = build()
    components = strongly_connected_components(graph)
    print(f"{len(graph)} modules, {sum(len(t) for t in graph.values())} module-level ember imports")
    print(f"{len(components)} import cycles (strongly connected components):")
    for component in components:
        print(f"  {len(component)}: {' '.join(component)}")
    full = {module: targets.union(*function_local[module]) for module, targets in graph.items()}
    print("counting function-local imports too:", " ".join(
        str(len(c)) for c in strongly_connected_components(full)) or "no", "cycles (sizes)")
    print(f"{sum(map(len, function_local.values()))} function-local ember imports, in "
          f"{sum(1 for n in function_local.values() if n)} modules")
    if "-v" in sys.argv:
        for module, statements in sorted(function_local.items(), key=lambda item: (-len(item[1]), item[0])):
            if statements:
                targets = sorted(set().union(*statements))
                print(f"  {len(statements):3d} {module}: {' '.join(targets)}")


if __name__ == "__main__":
    main()
