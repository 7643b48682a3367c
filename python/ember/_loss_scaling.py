"""Loss scaling for data-parallel training: ember.nn.compute_average_loss and scale_regularization_loss.

Note [Summed gradients]: the optimizer sums the replicas' gradients (as
TensorFlow does), so each replica's loss must already be divided by the
global batch size, not by its own slice of it. Then the sum over replicas
is the mean over the whole batch, and N replicas take the same step as one
device on the whole batch.
"""

from ember import _context
from ember._creation import convert_to_tensor
from ember._generated import ops


def _num_replicas(what):
    count = _context.replicas_in_sync()  # set by ember.distribute (Note [Layer hooks] in _context.py)
    if count is None:
        raise RuntimeError(f"{what} was called in the cross-replica context; call it inside strategy.run")
    return count


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of ``per_example_loss`` (times ``sample_weight``) divided by ``global_batch_size``,
    which defaults to this replica's batch times the number of replicas (Note [Summed gradients])."""
    num_replicas = _num_replicas("compute_average_loss")
    loss = convert_to_tensor(per_example_loss)
    if len(loss.shape) == 0:
        raise ValueError("compute_average_loss: per_example_loss must have at least one dimension (the batch), "
                         "got a scalar")
    if not loss.dtype.is_floating:
        raise TypeError(f"compute_average_loss: per_example_loss must be floating, got {loss.dtype.name}")
    if sample_weight is not None:
        loss = loss * ops.cast(convert_to_tensor(sample_weight), loss.dtype)
    if global_batch_size is None:
        global_batch_size = loss.shape[0] * num_replicas
    elif not isinstance(global_batch_size, int) or isinstance(global_batch_size, bool):
        global_batch_size = int(convert_to_tensor(global_batch_size))
    if global_batch_size <= 0:
        raise ValueError(f"compute_average_loss: global_batch_size must be positive, got {global_batch_size}")
    return ops.reduce_sum(loss) / ops.cast(global_batch_size, loss.dtype)


def scale_regularization_loss(regularization_loss):
    """The regularization loss (a tensor or a list of them, summed) divided by the number of
    replicas, so that summing the replicas' gradients counts it once."""
    num_replicas = _num_replicas("scale_regularization_loss")
    if isinstance(regularization_loss, (list, tuple)):
        regularization_loss = ops.add_n([convert_to_tensor(x) for x in regularization_loss])
    loss = convert_to_tensor(regularization_loss)
    return loss / ops.cast(num_replicas, loss.dtype)
