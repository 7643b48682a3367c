"""Gradient of einsum (op_defs/einsum.yaml)."""

from ember._generated import ops


def einsum(op, grad):
    """Each operand's gradient is another einsum: the output's subscripts and
    the other operands', contracted to this operand's. Indices that only
    this operand has (summed away in the forward pass) are broadcast back."""
    equation = op.attrs["equation"].replace(" ", "")
    if "." in equation:
        raise LookupError(f"gradient: einsum with '...' has no gradient yet ({op.attrs['equation']!r})")
    if "->" in equation:
        lhs, out = equation.split("->")
    else:  # implicit output: the indices used once, in sorted order (NumPy's rule)
        lhs = equation
        letters = lhs.replace(",", "")
        out = "".join(sorted(ch for ch in set(letters) if letters.count(ch) == 1))
    subs = lhs.split(",")
    operands = list(op.inputs)
    grads = []
    for i, (sub, x) in enumerate(zip(subs, operands)):
        if len(set(sub)) != len(sub):
            raise LookupError(f"gradient: einsum with a repeated index in an operand ({sub!r}) has no gradient yet")
        others = [(s, t) for j, (s, t) in enumerate(zip(subs, operands)) if j != i]
        present = set(out).union(*(set(s) for s, _ in others))
        kept = "".join(ch for ch in sub if ch in present)
        spec = ",".join([out] + [s for s, _ in others]) + "->" + kept
        g = ops.einsum(spec, [grad] + [t for _, t in others])
        if kept != sub:
            shape = [x.shape[k] if ch in present else 1 for k, ch in enumerate(sub)]
            g = ops.broadcast_to(ops.reshape(g, shape), list(x.shape))
        grads.append(g)
    return grads
