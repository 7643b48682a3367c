"""Gradients of the segment ops and reverse_sequence (op_defs/segments.yaml), as TensorFlow's
math_grad.py / array_grad.py define them.

Each data entry's gradient is its segment's incoming gradient (scaled for mean and sqrt_n,
masked to the selected entries for max and min); entries with a negative id were dropped and
get zero.
"""

from ember._generated import ops


def _trailing_ones(value, rank):
    """value reshaped to value.shape + [1] * (rank - value.ndim), to broadcast against rank dims."""
    return ops.reshape(value, list(value.shape) + [1] * (rank - value.ndim))


def _gather_drop_negatives(params, ids):
    """params[ids] with zero rows where ids < 0 (TensorFlow's _GatherDropNegatives)."""
    gathered = ops.gather(params, ops.maximum(ids, 0))
    keep = _trailing_ones(ops.greater_equal(ids, 0), gathered.ndim)
    return ops.where(keep, gathered, ops.zeros_like(gathered)), keep


def _counts(op, data):
    """How many entries each segment has, as data's dtype, shaped to broadcast against the output."""
    ids = op.inputs[1]
    ones = ops.ones_like(ops.cast(ids, data.dtype))
    counts = ops.unsorted_segment_sum(ones, ids, op.attrs["num_segments"])
    return _trailing_ones(ops.maximum(counts, 1), data.ndim - ids.ndim + 1)


def segment_sum(op, grad):
    return [ops.gather(grad, op.inputs[1]), None]


def segment_mean(op, grad):
    data, ids = op.inputs
    return [ops.gather(ops.divide(grad, _counts(op, data)), ids), None]


def unsorted_segment_sum(op, grad):
    return [_gather_drop_negatives(grad, op.inputs[1])[0], None]


def unsorted_segment_mean(op, grad):
    data, ids = op.inputs
    return [_gather_drop_negatives(ops.divide(grad, _counts(op, data)), ids)[0], None]


def unsorted_segment_sqrt_n(op, grad):
    data, ids = op.inputs
    return [_gather_drop_negatives(ops.divide(grad, ops.sqrt(_counts(op, data))), ids)[0], None]


def unsorted_segment_max(op, grad):
    """The gradient goes to the entries equal to their segment's result, split evenly between ties."""
    data, ids = op.inputs
    result_at_entry, keep = _gather_drop_negatives(op.outputs[0], ids)
    selected = ops.logical_and(ops.equal(data, result_at_entry), keep)
    num_selected = ops.unsorted_segment_sum(ops.cast(selected, data.dtype), ids, op.attrs["num_segments"])
    share = ops.divide(grad, ops.maximum(num_selected, 1))
    share_at_entry = _gather_drop_negatives(share, ids)[0]
    return [ops.where(selected, share_at_entry, ops.zeros_like(share_at_entry)), None]


unsorted_segment_min = unsorted_segment_max
segment_max = unsorted_segment_max  # sorted ids are non-negative: the same formula
segment_min = unsorted_segment_max


def reverse_sequence(op, grad):
    lengths = op.inputs[1]
    return [ops.reverse_sequence(grad, lengths, op.attrs["seq_axis"], op.attrs["batch_axis"]), None]


def unsorted_segment_prod(op, grad):
    """TensorFlow's formula: the product of the others is prod / x, except at zeros, where it
    is the product of the segment's non-zero entries (and 0 when the segment has two zeros)."""
    data, ids = op.inputs
    num_segments = op.attrs["num_segments"]
    is_zero = ops.equal(data, 0)
    num_zeros = ops.unsorted_segment_sum(ops.cast(is_zero, data.dtype), ids, num_segments)
    grad = ops.where(ops.greater(num_zeros, 1), ops.zeros_like(grad), grad)
    non_zero_prod = ops.unsorted_segment_prod(ops.where(is_zero, ops.ones_like(data), data), ids, num_segments)
    prod_at_entry, _ = _gather_drop_negatives(op.outputs[0], ids)
    non_zero_prod_at_entry, _ = _gather_drop_negatives(non_zero_prod, ids)
    # Dividing by 1 where data is 0 keeps inf and NaN out of the discarded branch.
    safe_data = ops.where(is_zero, ops.ones_like(data), data)
    others = ops.where(is_zero, non_zero_prod_at_entry, ops.divide(prod_at_entry, safe_data))
    return [ops.multiply(_gather_drop_negatives(grad, ids)[0], others), None]


segment_prod = unsorted_segment_prod  # sorted ids are non-negative: the same formula
