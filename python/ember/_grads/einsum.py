"""Gradient of einsum (op_defs/einsum.yaml)."""

import string

from ember._generated import ops
from ember._grads._util import unbroadcast


def _dedupe(letters):
    return "".join(dict.fromkeys(letters))


def einsum(op, grad):
    """Each operand's gradient is another einsum: the output's subscripts and
    the other operands', contracted to the operand's distinct letters (with
    the broadcast '...' dims first). The '...' dims are then summed down to
    the operand's own (they may have broadcast), and one more einsum lays
    the result out as the operand: letters summed away in the forward pass
    come back through a ones vector, and a repeated letter (a diagonal)
    through an identity matrix, which puts the gradient on the diagonal."""
    equation = op.attrs["equation"].replace(" ", "")
    if "->" in equation:
        lhs, out = equation.split("->")
    else:  # implicit output: '...', then the letters used once, in sorted order (NumPy's rule)
        lhs = equation
        letters = lhs.replace(",", "").replace(".", "")
        out = ("..." if "..." in lhs else "") + "".join(sorted(ch for ch in set(letters) if letters.count(ch) == 1))
    subs = lhs.split(",")
    operands = list(op.inputs)
    spare = iter(ch for ch in string.ascii_letters if ch not in equation)
    grads = []
    for i, (sub, x) in enumerate(zip(subs, operands)):
        letters = sub.replace("...", "")
        num_ellipsis = x.ndim - len(letters) if "..." in sub else 0
        ellipsis_at = sub.find("...")
        # The size of each letter, from where it sits in x.
        sizes, dim = {}, 0
        for pos, ch in enumerate(sub.replace("...", "." if "..." in sub else "")):
            if ch == ".":
                dim += num_ellipsis
                continue
            sizes.setdefault(ch, x.shape[dim])
            dim += 1
        others = [(s, t) for j, (s, t) in enumerate(zip(subs, operands)) if j != i]
        present = set(out.replace(".", "")).union(*(set(s.replace(".", "")) for s, _ in others))
        kept = "".join(ch for ch in _dedupe(letters) if ch in present)
        ellipsis = "..." if "..." in out or any("..." in s for s, _ in others) else ""
        g = ops.einsum(",".join([out] + [s for s, _ in others]) + "->" + ellipsis + kept,
                       [grad] + [t for _, t in others])
        if ellipsis:
            # The '...' dims as x has them: summed where they broadcast.
            lead = x.shape[ellipsis_at:ellipsis_at + num_ellipsis] if num_ellipsis else ()
            g = unbroadcast(g, tuple(lead) + tuple(sizes[ch] for ch in kept))
        # Lay g out as x: the missing letters and the diagonals.
        terms, tensors = [("..." if num_ellipsis else "") + kept], [g]
        for ch in _dedupe(letters):
            if ch not in kept:
                terms.append(ch)
                tensors.append(ops.ones([sizes[ch]], dtype=g.dtype))
        layout, seen = "", set()
        for ch in sub.replace("...", "." if "..." in sub else ""):
            if ch == ".":
                layout += "..." if num_ellipsis else ""
            elif ch in seen:
                fresh = next(spare)
                terms.append(ch + fresh)
                tensors.append(ops.eye(sizes[ch], dtype=g.dtype))
                layout += fresh
            else:
                seen.add(ch)
                layout += ch
        if len(tensors) > 1 or terms[0] != layout:
            g = ops.einsum(",".join(terms) + "->" + layout, tensors)
        grads.append(g)
    return grads
