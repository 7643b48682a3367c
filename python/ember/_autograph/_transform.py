"""The source rewrite of AutoGraph (Note [AutoGraph] in ember/_autograph/__init__.py).

Each `if`, `for` and `while` statement becomes a call of a helper in
_operators.py, with its body moved into a nested function whose parameters
and return values are the variables the statement assigns:

    if x > 0:                    def _ag_if_true_0(y):
        y = x                        y = x
    else:               --->         return (y,)
        y = -x                   def _ag_if_false_0(y): ...
                                 (y,) = _ag.if_stmt(x > 0, _ag_if_true_0, _ag_if_false_0,
                                                    (_ag.ld(lambda: y),))

A statement whose body leaves it early (return, break, continue, yield) or
declares global/nonlocal names is left as Python: under a traced condition
that still raises OperatorNotAllowedInGraphError, naming the line.
"""

import ast
import sys

_ESCAPES = (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _walk_same_scope(nodes):
    """Every node under `nodes`, not entering nested functions, classes or lambdas."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _escapes(nodes):
    """True if control leaves `nodes` other than by falling off the end: a
    return or yield anywhere, or a break or continue outside the loops
    inside `nodes` (one inside a nested loop stays in it)."""
    stack = [(node, False) for node in nodes]
    while stack:
        node, in_loop = stack.pop()
        if isinstance(node, _ESCAPES) or (isinstance(node, (ast.Break, ast.Continue)) and not in_loop):
            return True
        if not isinstance(node, _SCOPES):
            inner = in_loop or isinstance(node, (ast.For, ast.While))
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return False


def _assigned(nodes):
    """Names bound in `nodes` (this scope only), in first-seen order."""
    names = []
    for node in _walk_same_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found = node.id
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = node.name
        elif isinstance(node, ast.alias):
            found = (node.asname or node.name).split(".")[0]
        else:
            continue
        if found not in names and not found.startswith("_ag_"):
            names.append(found)
    return names


def _load_counts(tree):
    """How many times each name is read in `tree`."""
    counts = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


def _helper(fn, *args):
    return ast.Call(func=ast.Attribute(value=_name("_ag"), attr=fn, ctx=ast.Load()), args=list(args), keywords=[])


def _current_values(names):
    """(_ag.ld(lambda: a), ...): each variable's value, or Undefined if unbound yet."""
    return ast.Tuple(elts=[_helper("ld", ast.Lambda(args=_no_args(), body=_name(n))) for n in names],
                     ctx=ast.Load())


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])


def _function(name, params, body, returns):
    args = _no_args()
    args.args = [ast.arg(arg=p) for p in params]
    extra = {"type_params": []} if sys.version_info >= (3, 12) else {}
    return ast.FunctionDef(name=name, args=args, body=list(body) + [ast.Return(value=_tuple(returns))],
                           decorator_list=[], returns=None, **extra)


def _assign_from(names, call):
    if not names:
        return ast.Expr(value=call)
    return ast.Assign(targets=[_tuple(names, store=True)], value=call)


class Converter(ast.NodeTransformer):
    """Rewrites the control flow of one function's body (not nested functions')."""

    def __init__(self):
        self._count = 0
        self.converted = 0

    def _next(self):
        self._count += 1
        return self._count - 1

    def visit_FunctionDef(self, node):
        return node  # nested functions keep their Python control flow

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def convert_body(self, fdef):
        # Before any rewrite: for each loop, the names read outside it (in the
        # whole function, nested scopes included), so that a variable the loop
        # only uses as a temporary need not have a value before it
        # (_operators._carried).
        loads = _load_counts(fdef)
        self._read_outside = {}
        for node in ast.walk(fdef):
            if isinstance(node, (ast.For, ast.While, ast.If)):
                inside = _load_counts(node)
                self._read_outside[id(node)] = {n for n, c in loads.items() if c > inside.get(n, 0)}
        fdef.body = self._block(fdef.body)
        return fdef

    def _locals(self, node, names):
        outside = self._read_outside.get(id(node))
        return ast.Constant(value=tuple(n for n in names if outside is not None and n not in outside))

    def _block(self, statements):
        out = []
        for s in statements:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def _replaced(self, node, statements):
        """The statements that replace `node`, located at its lines (tracebacks
        inside a converted body still point at the user's lines)."""
        self.converted += 1
        for statement in statements:
            ast.copy_location(statement, node)
        return statements

    def visit_If(self, node):
        node.body, node.orelse = self._block(node.body), self._block(node.orelse)
        if _escapes(node.body + node.orelse):
            return node
        k = self._next()
        names = _assigned(node.body + node.orelse)
        true_fn = _function(f"_ag_if_true_{k}", names, node.body, names)
        false_fn = _function(f"_ag_if_false_{k}", names, node.orelse or [ast.Pass()], names)
        call = _helper("if_stmt", node.test, _name(true_fn.name), _name(false_fn.name), _current_values(names),
                       ast.Constant(value=tuple(names)), self._locals(node, names))
        return self._replaced(node, [true_fn, false_fn, _assign_from(names, call)])

    def visit_For(self, node):
        node.body = self._block(node.body)
        if node.orelse or not isinstance(node.target, ast.Name) or _escapes(node.body):
            return node
        k = self._next()
        names = [n for n in _assigned(node.body) if n != node.target.id]
        item = f"_ag_item_{k}"
        bind = ast.Assign(targets=[_name(node.target.id, store=True)], value=_name(item))
        body_fn = _function(f"_ag_for_body_{k}", [item] + names, [bind] + node.body, names)
        iterable = node.iter
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
                and iterable.func.attr == "range"):
            # ember.range(n) with a traced n has no static length: loop on a
            # counter instead of building the range (_operators.LazyRange).
            iterable = ast.Call(func=ast.Attribute(value=_name("_ag"), attr="LazyRange", ctx=ast.Load()),
                                args=[iterable.func] + iterable.args, keywords=iterable.keywords)
        call = _helper("for_stmt", iterable, _name(body_fn.name), _current_values(names),
                       ast.Constant(value=tuple(names)), self._locals(node, names))
        return self._replaced(node, [body_fn, _assign_from(names, call)])

    def visit_While(self, node):
        node.body = self._block(node.body)
        if node.orelse or _escapes(node.body):
            return node
        k = self._next()
        names = _assigned(node.body)
        cond_fn = _function(f"_ag_while_cond_{k}", names, [], [])
        cond_fn.body = [ast.Return(value=node.test)]
        body_fn = _function(f"_ag_while_body_{k}", names, node.body, names)
        call = _helper("while_stmt", _name(cond_fn.name), _name(body_fn.name), _current_values(names),
                       ast.Constant(value=tuple(names)), self._locals(node, names))
        return self._replaced(node, [cond_fn, body_fn, _assign_from(names, call)])
