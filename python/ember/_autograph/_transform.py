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

Early returns from `if` statements are folded first (Note [Early returns]).
A statement whose body still leaves it early (a return inside a loop,
break, continue, yield) or declares global/nonlocal names is left as
Python: under a traced condition that still raises
OperatorNotAllowedInGraphError, naming the line.
"""

import ast
import copy
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


# Note [Early returns]
# `if x > 0: return a` followed by more code cannot become an if_stmt as
# written: a branch function cannot return from the function around it.
# As TensorFlow's AutoGraph does, the body is first rewritten so that every
# path sets one return variable and the function returns it once, at the
# end: the code after an `if` that returns on some path moves into that
# if's branches that fall through (copied where both do), and each final
# `return v` becomes `_ember_return_value = v` (falling off the end sets
# None). The ifs then carry the return variable like any other. Done only
# when every return sits in the function's own block or in if branches
# inside it; a return inside a loop, `with` or `try` leaves the function
# as written.
_RETURN_VALUE = "_ember_return_value"


def _has_return(nodes):
    return any(isinstance(n, ast.Return) for n in _walk_same_scope(nodes))


def _returns_only_in_ifs(statements):
    for s in statements:
        if isinstance(s, ast.If):
            if not (_returns_only_in_ifs(s.body) and _returns_only_in_ifs(s.orelse)):
                return False
        elif not isinstance(s, ast.Return) and _has_return([s]):
            return False
    return True


def _always_returns(statements):
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return isinstance(last, ast.Return)


def _fold_returns(statements):
    """The block with nothing after a return, and what follows an if that
    returns on some path moved into its branches that fall through."""
    out = []
    for i, s in enumerate(statements):
        out.append(s)
        if isinstance(s, ast.Return):
            break
        if isinstance(s, ast.If) and _has_return(s.body + s.orelse):
            rest = statements[i + 1:]
            s.body = _fold_returns(s.body + ([] if _always_returns(s.body) else copy.deepcopy(rest)))
            s.orelse = _fold_returns(s.orelse + ([] if _always_returns(s.orelse) else copy.deepcopy(rest)))
            break
    return out


def _assign_return(statements):
    """A folded block whose final return (or end) sets the return variable."""
    last = statements[-1] if statements else None
    if isinstance(last, ast.If) and _has_return(last.body + last.orelse):
        last.body, last.orelse = _assign_return(last.body), _assign_return(last.orelse)
        return statements
    if isinstance(last, ast.Return):
        value = last.value if last.value is not None else ast.Constant(value=None)
        return statements[:-1] + [ast.Assign(targets=[_name(_RETURN_VALUE, store=True)], value=value)]
    return statements + [ast.Assign(targets=[_name(_RETURN_VALUE, store=True)], value=ast.Constant(value=None))]


def fold_early_returns(fdef):
    """Note [Early returns]: True if `fdef`'s body was rewritten."""
    early = any(isinstance(s, ast.If) and _has_return(s.body + s.orelse) for s in fdef.body)
    if not early or not _returns_only_in_ifs(fdef.body):
        return False
    fdef.body = _assign_return(_fold_returns(fdef.body)) + [ast.Return(value=_name(_RETURN_VALUE))]
    return True


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
        fold_early_returns(fdef)
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
