"""What an optimizer does differently inside strategy.run: sum the replicas' gradients."""

from ember.distribute import _distribution_context as _dc
from ember.distribute._mirrored_variable import MirroredVariable
from ember.distribute._reduce_op import ReduceOp


def sum_gradients_across_replicas(optimizer, grads):
    """Inside a replica of a multi-replica strategy, every replica gets the sum of all replicas'
    gradients (Note [Summed gradients] in ember/_loss_scaling.py); elsewhere the gradients are returned
    as they are. A None gradient must be None in every replica."""
    replica = _dc.current_replica()
    if replica is None or replica[0].num_replicas_in_sync == 1:
        return grads
    strategy = replica[0]
    iterations = optimizer.iterations
    if not isinstance(iterations, MirroredVariable) or iterations._strategy is not strategy:
        raise ValueError(f"{type(optimizer).__name__} was created outside {type(strategy).__name__}.scope(); create "
                         "the optimizer inside the scope, like the model, so that its state is mirrored too")
    present = [g for g in grads if g is not None]
    summed = iter(_dc.get_replica_context().all_reduce(ReduceOp.SUM, present))
    return [None if g is None else next(summed) for g in grads]
