"""The train, test and predict steps of a keras.Model whose strategy has several replicas.

Note [Keras steps under a strategy]: fit/evaluate/predict hand each global
batch to these steps instead of the model's single-device step. A step
1. splits the batch along its first dimension, one contiguous slice per
   replica (replica i gets the examples before replica i + 1's, so joining
   the replicas' outputs in replica order gives the global batch order).
   In a multi-worker job every worker reads every global batch and keeps
   its replicas' slices (TensorFlow's AutoShardPolicy.DATA);
2. runs the forward pass (and in training the loss and its gradients) in
   ``strategy.run``, one @ember.function traced per replica (Note [Traces
   per replica] in ember/distribute/_distribution_context.py);
3. back in the cross-replica context, sums the gradients with
   ``strategy.reduce`` and applies them once: each MirroredVariable write
   there copies the same new value to every replica's component;
4. updates the metrics once, on the global batch: the replicas'
   predictions joined in order (across workers too: ``strategy.gather``),
   against the global targets, so every worker logs the same values.
A replica's loss is its examples' share of the global loss: the compiled
losses' mean over its examples times (its examples / global batch) (a
loss with reduction="sum" is already its share), plus
the layers' added losses divided by the number of replicas. Summed over the
replicas this is the single-device loss, and so are the summed gradients.
The collectives run eagerly, outside any trace (docs/distributed.md), which
is why steps 3 and 4 are not part of the traced function.
"""

import ember
from ember import nest
from ember._generated import ops
from ember.device import device
from ember.distribute import PerReplica, ReduceOp
from ember.distribute import _distribution_context as _dc
from ember.distribute._input import _worker_share
from ember.distribute._mirrored_variable import MirroredVariable
from ember.function import function as _function


class DistributedSteps:
    """The three steps of ``model`` under ``strategy``; each takes a batch (x, y, sample_weight)
    of global tensors. The traced per-replica functions are made on first use."""

    def __init__(self, model, strategy):
        self._model = model
        self._strategy = strategy
        self._replica_fns = {}

    # --- Per-replica functions -------------------------------------------------
    def _replica_fn(self, kind):
        fn = self._replica_fns.get(kind)
        if fn is None:
            body = {"train": self._replica_train, "forward": self._replica_forward}[kind]
            fn = body if getattr(self._model, "run_eagerly", False) else _function(body)
            self._replica_fns[kind] = fn
        return fn

    def _replica_train(self, x, y, sample_weight, global_size):
        model = self._model
        with ember.GradientTape() as tape:
            y_pred = model(x, training=True)
            loss = self._replica_loss(y, y_pred, sample_weight, global_size)
        grads = tape.gradient(loss, model.trainable_weights)
        return loss, grads, y_pred

    def _replica_forward(self, x, training):
        return self._model(x, training=training)

    def _replica_loss(self, y, y_pred, sample_weight, global_size):
        model = self._model
        share = _rows(y_pred) / global_size  # Python numbers: each shape traces once anyway
        _, values = model._compiled_loss_terms(y, y_pred, sample_weight)
        total = None
        for entry, value in zip(model._compiled, values):
            if value is None:
                continue
            # A mean over this replica's examples counts for its share of the batch; a sum is its part already.
            scale = entry["weight"] * (1.0 if entry["loss"].reduction == "sum" else share)
            total = value * scale if total is None else total + value * scale
        extra = model.losses
        if extra:
            added = ember.add_n(extra) / float(self._strategy.num_replicas_in_sync)
            total = added if total is None else total + added
        if total is None:
            raise ValueError("No loss to compute: give `loss` to compile() or add losses with add_loss()")
        return total

    # --- Steps -------------------------------------------------------------
    def _build_compiled(self, x, y):
        """Makes the compiled losses and metrics (and their variables) before the replicas run:
        a variable cannot be made inside strategy.run."""
        if self._model._compiled is None:
            with self._strategy.scope():
                first = nest.map_structure(lambda t: None if t is None else t[:1], x)
                self._model._build_compiled(y, self._model(first, training=False))

    def train(self, batch):
        x, y, sample_weight = batch
        self._build_compiled(x, y)
        _refuse_call_time_losses(self._model, self._strategy)
        pieces = self._split(batch)
        global_size = float(_rows(x))
        with self._strategy.scope():
            loss, grads, y_pred = self._strategy.run(
                self._replica_fn("train"), args=(*pieces, global_size))
            variables = self._model.trainable_weights
            summed = [None if g is None else self._strategy.reduce(ReduceOp.SUM, g) for g in grads]
            self._model.optimizer.apply_gradients(zip(summed, variables))
            self._average_replica_state()
            total_loss = self._strategy.reduce(ReduceOp.SUM, loss)
            return self._update_metrics(total_loss, y, self._gather(y_pred), sample_weight)

    def _average_replica_state(self):
        """Note [Replica state]: a layer that updates a non-trainable weight in its forward pass
        (BatchNormalization's moving mean and variance) writes, in each replica, that replica's
        component with what its own slice gave. Like TensorFlow (whose such variables are
        aggregated with MEAN), the step then sets every component to their mean; with even
        slices the moving mean is then the single-device one. Weights nobody wrote have equal
        components, and their mean is the same value."""
        for variable in self._model.non_trainable_weights:
            if isinstance(variable, MirroredVariable) and variable.dtype.is_floating:
                parts = PerReplica([component.read_value() for component in variable.values])
                variable.assign(self._strategy.reduce(ReduceOp.MEAN, parts))

    def test(self, batch):
        x, y, sample_weight = batch
        self._build_compiled(x, y)
        y_pred = self._forward(batch, training=False)
        with self._strategy.scope():
            total_loss = self._model.compute_loss(x, y, y_pred, sample_weight, training=False)
            return self._update_metrics(total_loss, y, y_pred, sample_weight, trackers_done=True)

    def predict(self, batch):
        return self._forward(batch, training=False)

    def _forward(self, batch, training):
        pieces = self._split(batch)
        with self._strategy.scope():
            y_pred = self._strategy.run(self._replica_fn("forward"), args=(pieces[0], training))
            return self._gather(y_pred)

    def _update_metrics(self, total_loss, y, y_pred, sample_weight, trackers_done=False):
        model = self._model
        if not trackers_done:  # the per-output loss trackers, as compute_loss updates them on one device
            model._compiled_loss_terms(y, y_pred, sample_weight, update_trackers=True)
        model.loss_tracker.update_state(total_loss, sample_weight=ops.cast(_rows(y_pred), "float32"))
        model._update_metrics(y, y_pred, sample_weight)
        return model._logs()

    # --- Splitting and joining ---------------------------------------------
    def _split(self, batch):
        """(x, y, sample_weight) as PerReplica values: contiguous, nearly equal slices in replica order.
        In a multi-worker job each worker first keeps its own contiguous share of the global batch
        (which must split evenly among all replicas); its replicas split that share."""
        devices = self._strategy.extended.worker_devices
        n = len(devices)
        workers, index = self._strategy._input_workers()
        if workers > 1:
            batch = nest.map_structure(
                lambda leaf: None if leaf is None else _worker_share(leaf, workers, index, n), batch)
        rows = _rows(batch[0])
        if rows < n:
            raise ValueError(
                f"{type(self._strategy).__name__}: a batch of {rows} example(s) cannot give each of the {n} "
                "replicas at least one; use a batch size of at least num_replicas_in_sync, and drop a shorter "
                "last batch (Dataset.batch(..., drop_remainder=True), or fewer examples)")
        bounds = [rows * i // n for i in range(n + 1)]  # a last uneven batch: sizes differ by at most one

        def piece(i):
            def slice_of(leaf):
                if leaf is None:
                    return None
                with device(devices[i]):
                    return ops.identity(leaf[bounds[i]:bounds[i + 1]])
            return nest.map_structure(slice_of, batch)
        per_replica = [piece(i) for i in range(n)]
        return tuple(_group([p[k] for p in per_replica]) for k in range(3))

    def _gather(self, value):
        """The replicas' PerReplica outputs joined along the batch dimension, in replica order."""
        return nest.map_structure(lambda v: self._strategy.gather(v, axis=0), value)


def _rows(structure):
    return int(nest.flatten(structure)[0].shape[0])


def _group(structures):
    """One structure per replica to one structure of PerReplica leaves (None stays None)."""
    return nest.map_structure(lambda *leaves: None if leaves[0] is None else PerReplica(leaves), *structures)


def _refuse_call_time_losses(model, strategy):
    """A loss a layer adds with add_loss inside call() is a tensor of one call; the replicas'
    calls would mix theirs in one list. Regularizers (callables over the weights) are fine."""
    pending = [model]
    while pending:
        layer = pending.pop()
        if any(not callable(loss) for loss in getattr(layer, "_extra_losses", ())):
            raise NotImplementedError(
                f"{layer.name} adds a loss with add_loss() in call(), which fit under "
                f"{type(strategy).__name__} cannot yet keep per replica; use a weight regularizer or "
                "compute the term in the loss")
        pending.extend(layer._sublayers())


def check_supported(model, strategy):
    """Refuses, naming the limit, what the distributed steps cannot do right (rather than do it wrong)."""
    from ember.keras.engine.training import Model
    name = type(strategy).__name__
    for method in ("train_step", "test_step", "predict_step", "compute_loss"):
        if getattr(type(model), method) is not getattr(Model, method):
            raise NotImplementedError(
                f"{type(model).__name__} overrides {method}, which fit/evaluate/predict cannot yet split among "
                f"the replicas of {name}; write the loop with strategy.run instead (docs/keras.md)")
    for loss in nest.flatten(model._compile_args["loss"]) if model.compiled else []:
        if getattr(loss, "reduction", "sum_over_batch_size") in (None, "none"):
            raise NotImplementedError(f"a loss with reduction={loss.reduction!r} under {name}: fit needs one loss "
                                      "value per replica; use 'sum_over_batch_size' or 'sum'")
    if model.optimizer is not None and model.compiled:
        iterations = model.optimizer.iterations
        if not isinstance(iterations, MirroredVariable) or iterations._strategy is not strategy:
            raise ValueError(f"the optimizer was created outside {name}.scope(); call compile() inside the scope "
                             "the model was made in, so that the optimizer's state is mirrored too")
    if _dc.current_replica() is not None:
        raise RuntimeError(f"fit/evaluate/predict called inside {name}.run; call them in the cross-replica context")
