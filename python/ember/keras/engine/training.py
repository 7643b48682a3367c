"""keras.Model: compile, fit, evaluate, predict and the *_on_batch methods; the train step is one @ember.function."""

import numpy as np

import ember
from ember import distribute, nest
from ember.function import function as _function
from ember.keras import callbacks as callbacks_module
from ember.keras import losses as losses_module
from ember.keras import metrics as metrics_module
from ember.keras.engine import data_adapter
from ember.keras.engine.layer import Layer


class Model(Layer):
    """A Layer with training: subclass it (layers in ``__init__``, the
    forward pass in ``call``), or call ``Model(inputs, outputs)`` for a
    functional model, or use ``Sequential``."""

    def __new__(cls, *args, **kwargs):
        # Model(inputs, outputs) builds a functional model, as in Keras.
        if cls is Model and _functional_arguments(args, kwargs):
            from ember.keras.models.functional import Functional
            return Functional.__new__(Functional)
        model = super().__new__(cls)
        # A model remembers the strategy whose scope it was made in (TensorFlow's rule).
        object.__setattr__(model, "_distribute_strategy", distribute.get_strategy())
        return model

    def __init__(self, *args, **kwargs):
        from ember.keras.models.functional import Functional
        if not isinstance(self, Functional) and _functional_arguments(args, kwargs):
            # class Custom(keras.Model) called as Custom(inputs, outputs): a functional
            # model that keeps Custom's methods (Keras 3 does the same).
            self.__class__ = _functional_subclass(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        super().__init__(*args, **kwargs)
        self.optimizer = None
        self.compiled = False
        self.stop_training = False
        self.history = None
        self._reset_compiled()

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # A functional model's config (layers and their connections) makes a functional model.
        if "layers" in config and "input_layers" in config:
            from ember.keras.models.functional import Functional
            # A subclass (saved from Custom(inputs, outputs)) is rebuilt as itself.
            target = Functional if cls is Model else getattr(cls, "_functional_of", cls)
            return Functional.from_config.__func__(target, config, custom_objects=custom_objects)
        return super().from_config(config)

    def _reset_compiled(self):
        object.__setattr__(self, "_compiled", None)
        object.__setattr__(self, "_train_fn", None)
        object.__setattr__(self, "_test_fn", None)
        object.__setattr__(self, "_predict_fn", None)
        object.__setattr__(self, "_distributed_steps", None)

    @property
    def distribute_strategy(self):
        """The strategy whose scope the model was made in (the default strategy outside any)."""
        return self._distribute_strategy

    # --- compile -----------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        from ember.keras import optimizers as optimizers_module
        self.optimizer = optimizers_module.get(optimizer)
        self._compile_args = {"loss": loss, "loss_weights": loss_weights, "metrics": metrics,
                              "weighted_metrics": weighted_metrics}
        self.run_eagerly = run_eagerly
        self._reset_compiled()
        self.loss_tracker = metrics_module.Mean(name="loss")
        self.compiled = True

    @property
    def loss(self):
        return self._compile_args["loss"] if self.compiled else None

    def _output_names(self):
        return list(getattr(self, "output_names", None) or [])

    def _build_compiled(self, y, y_pred):
        """Resolves losses and metrics per output the first time the shapes are seen."""
        if self._compiled is not None:
            return
        args = self._compile_args
        flat_pred = nest.flatten(y_pred)
        names = self._output_names()
        if len(names) != len(flat_pred):
            names = [f"output_{i}" for i in range(len(flat_pred))] if len(flat_pred) > 1 else [""]
        flat_y = nest.flatten(y) if y is not None else [None] * len(flat_pred)
        if isinstance(y, dict):
            flat_y = [y[n] for n in names]

        def per_output(value):
            if isinstance(value, dict):
                return [value.get(n) for n in names]
            if isinstance(value, (list, tuple)) and len(flat_pred) > 1 and len(value) == len(flat_pred):
                return list(value)
            return [value] * len(flat_pred)

        loss_list = per_output(args["loss"])

        def metric_lists_of(spec):
            if isinstance(spec, dict):
                return [spec.get(n) or [] for n in names]
            if len(flat_pred) > 1 and isinstance(spec, (list, tuple)) and spec and all(
                    isinstance(m, (list, tuple)) for m in spec):
                return [list(m) for m in spec]
            return [list(spec or [])] * len(flat_pred)
        metric_lists = metric_lists_of(args["metrics"])
        weighted_lists = metric_lists_of(args.get("weighted_metrics"))
        weights = per_output(args["loss_weights"]) if args["loss_weights"] is not None else [1.0] * len(flat_pred)
        entries = []
        multi = len(flat_pred) > 1
        for i, (name, loss, metric_ids, weighted_ids, w) in enumerate(
                zip(names, loss_list, metric_lists, weighted_lists, weights)):
            loss_obj = losses_module.get(loss) if loss is not None else None

            def make(m, prefix=""):
                base = m if isinstance(m, str) else getattr(m, "name", None)
                label = prefix + (f"{name}_{base}" if multi and base else base)
                if m in ("accuracy", "acc"):
                    return metrics_module._resolve_accuracy(
                        label, loss_obj, tuple(flat_y[i].shape) if flat_y[i] is not None else (),
                        tuple(flat_pred[i].shape))
                metric = metrics_module.get(m)
                if isinstance(m, str) or prefix:
                    metric.name = label
                return metric
            metric_objs = [make(m) for m in metric_ids]
            taken = {m.name for m in metric_objs}
            # Keras' rule: a weighted metric named like an unweighted one gets a "weighted_" prefix.
            weighted_objs = [make(m, "weighted_" if (m if isinstance(m, str) else m.name) in taken or (
                multi and f"{name}_{m}" in taken) else "") for m in weighted_ids]
            tracker = metrics_module.Mean(name=f"{name}_loss") if multi and loss_obj is not None else None
            entries.append({"loss": loss_obj, "metrics": metric_objs, "weighted_metrics": weighted_objs,
                            "weight": 1.0 if w is None else float(w), "tracker": tracker})
        object.__setattr__(self, "_compiled", entries)

    @property
    def metrics(self):
        """The loss tracker, then each output's loss tracker and metrics (Keras' order)."""
        if not self.compiled:
            return []
        out = [self.loss_tracker]
        for e in self._compiled or []:
            if e["tracker"] is not None:
                out.append(e["tracker"])
            out.extend(e["metrics"])
            out.extend(e["weighted_metrics"])
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    # --- Steps -------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The weighted sum of the compiled losses plus the layers' added losses."""
        total, _ = self._compiled_loss_terms(y, y_pred, sample_weight, update_trackers=True)
        for extra in self.losses:
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError("No loss to compute: give `loss` to compile() or add losses with add_loss()")
        return total

    def _compiled_loss_terms(self, y, y_pred, sample_weight, update_trackers=False):
        """(the weighted sum of the compiled losses or None, each output's loss value); with
        ``update_trackers`` each output's loss tracker takes its value."""
        self._build_compiled(y, y_pred)  # a custom train_step may call this first
        total, values = None, []
        flat_y = nest.flatten(y) if y is not None else None
        if isinstance(y, dict):
            flat_y = [y[n] for n in self._output_names()]
        for i, (e, pred) in enumerate(zip(self._compiled, nest.flatten(y_pred))):
            if e["loss"] is None:
                values.append(None)
                continue
            value = e["loss"](flat_y[i], pred, sample_weight)
            values.append(value)
            if update_trackers and e["tracker"] is not None:
                e["tracker"].update_state(value, sample_weight=_batch_size(pred))
            value = value * e["weight"] if e["weight"] != 1.0 else value
            total = value if total is None else total + value
        return total, values

    def _update_metrics(self, y, y_pred, sample_weight):
        flat_y = nest.flatten(y) if y is not None else None
        if isinstance(y, dict):
            flat_y = [y[n] for n in self._output_names()]
        for i, (e, pred) in enumerate(zip(self._compiled, nest.flatten(y_pred))):
            for m in e["metrics"]:  # Keras 3: `metrics` ignore sample weights, `weighted_metrics` use them
                m.update_state(flat_y[i], pred)
            for m in e["weighted_metrics"]:
                m.update_state(flat_y[i], pred, sample_weight)

    def _logs(self):
        return {m.name: m.result() for m in self.metrics}

    def train_step(self, data):
        """One step of gradient descent on a batch; returns the metrics' results (Keras' override point)."""
        x, y, sample_weight = data_adapter.unpack(data)
        with ember.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self.trainable_weights
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        self.loss_tracker.update_state(loss, sample_weight=_batch_size(y_pred))
        self._update_metrics(y, y_pred, sample_weight)
        return self._logs()

    def test_step(self, data):
        x, y, sample_weight = data_adapter.unpack(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self.loss_tracker.update_state(loss, sample_weight=_batch_size(y_pred))
        self._update_metrics(y, y_pred, sample_weight)
        return self._logs()

    def predict_step(self, data):
        x, _, _ = data_adapter.unpack(data)
        return self(x, training=False)

    def _step_function(self, kind):
        # One @ember.function per kind: it traces once per input signature (a last
        # partial batch traces once more) and runs as one graph afterwards.
        steps = self._steps_under_strategy()
        if steps is not None:
            step = {"train": steps.train, "test": steps.test, "predict": steps.predict}[kind]
            return lambda data: step(data_adapter.unpack(data))
        attr = {"train": "_train_fn", "test": "_test_fn", "predict": "_predict_fn"}[kind]
        fn = getattr(self, attr)
        if fn is None:
            step = {"train": self.train_step, "test": self.test_step, "predict": self.predict_step}[kind]

            def run(data):
                return step(data)
            fn = run if getattr(self, "run_eagerly", False) else _function(run)
            object.__setattr__(self, attr, fn)
        return fn

    def _steps_under_strategy(self):
        """The distributed steps when the model's strategy has several replicas, else None
        (Note [Keras steps under a strategy] in distributed_steps.py)."""
        strategy = self._distribute_strategy
        if strategy.num_replicas_in_sync == 1:
            return None
        from ember.keras.engine.distributed_steps import DistributedSteps, check_supported
        check_supported(self, strategy)
        if self._distributed_steps is None:
            object.__setattr__(self, "_distributed_steps", DistributedSteps(self, strategy))
        return self._distributed_steps

    def _ensure_built_for(self, x):
        # A first eager call on one example builds every layer, so the weights
        # exist before the step is traced.
        if not self.built:
            first = nest.map_structure(lambda t: t[:1] if t is not None else None, x)
            self(first, training=False)

    def _assert_compiled(self, what):
        if not self.compiled:
            raise RuntimeError(f"You must call compile() before {what}()")

    # --- fit / evaluate / predict ----------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        self._assert_compiled("fit")
        verbose = 1 if verbose == "auto" else verbose
        if validation_split and validation_data is None:
            if data_adapter.is_batch_source(x):
                raise ValueError("validation_split is only supported for array inputs")
            (x, y, sample_weight), validation_data = data_adapter.train_validation_split(
                (x, y, sample_weight), validation_split)
        handler = data_adapter.DataHandler(x, y, sample_weight, batch_size, steps_per_epoch, shuffle)
        val_handler = None
        if validation_data is not None:
            if data_adapter.is_batch_source(validation_data):
                val_handler = data_adapter.DataHandler(validation_data, steps_per_epoch=validation_steps)
            else:
                vx, vy, vsw = data_adapter.unpack(tuple(validation_data))
                val_handler = data_adapter.DataHandler(vx, vy, vsw, validation_batch_size or batch_size,
                                                       validation_steps)
        history = callbacks_module.History()
        cbs = callbacks_module.CallbackList(list(callbacks or []), model=self, epochs=epochs, steps=handler.num_steps,
                                            verbose=verbose)
        if verbose:
            cbs.append(callbacks_module.ProgbarLogger(verbose))
        cbs.append(history)
        train_fn = self._step_function("train")
        self.stop_training = False
        self._resume_epoch = None
        cbs.on_train_begin()
        if self._resume_epoch is not None:  # BackupAndRestore found a backup: go on after its epoch
            initial_epoch, self._resume_epoch = max(initial_epoch, self._resume_epoch), None
        logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            for step, batch in handler.steps():
                cbs.on_train_batch_begin(step)
                if class_weight is not None:
                    batch = data_adapter.apply_class_weight(batch, class_weight)
                self._ensure_built_for(batch[0])
                logs = _to_floats(train_fn(data_adapter.pack(*batch)))
                cbs.on_train_batch_end(step, dict(logs))
                if self.stop_training:
                    break
            epoch_logs = dict(logs)
            if val_handler is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self._evaluate_handler(val_handler, cbs, in_fit=True)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            cbs.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self.stop_training:
                break
        cbs.on_train_end(logs)
        self.history = history
        return history

    def _evaluate_handler(self, handler, cbs, in_fit=False):
        test_fn = self._step_function("test")
        self.reset_metrics()
        cbs.set_params({**cbs.params, "in_fit": in_fit})
        cbs.on_test_begin()
        logs = {}
        for step, batch in handler.steps():
            cbs.on_test_batch_begin(step)
            self._ensure_built_for(batch[0])
            logs = _to_floats(test_fn(data_adapter.pack(*batch)))
            cbs.on_test_batch_end(step, dict(logs))
        cbs.on_test_end(logs)
        cbs.set_params({**cbs.params, "in_fit": False})
        return logs

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False):
        self._assert_compiled("evaluate")
        verbose = 1 if verbose == "auto" else verbose
        handler = data_adapter.DataHandler(x, y, sample_weight, batch_size, steps)
        cbs = callbacks_module.CallbackList(list(callbacks or []), model=self, steps=handler.num_steps,
                                            verbose=verbose)
        if verbose:
            cbs.append(callbacks_module.ProgbarLogger(verbose))
        logs = self._evaluate_handler(handler, cbs)
        if return_dict:
            return logs
        values = [logs[n] for n in self.metrics_names if n in logs]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        verbose = 1 if verbose == "auto" else verbose
        handler = data_adapter.DataHandler(x, None, None, batch_size, steps)
        cbs = callbacks_module.CallbackList(list(callbacks or []), model=self, steps=handler.num_steps,
                                            verbose=verbose)
        if verbose:
            cbs.append(callbacks_module.ProgbarLogger(verbose))
        predict_fn = self._step_function("predict")
        outputs = []
        cbs.on_predict_begin()
        for step, batch in handler.steps():
            cbs.on_predict_batch_begin(step)
            self._ensure_built_for(batch[0])
            outputs.append(nest.map_structure(lambda t: t.numpy(), predict_fn(data_adapter.pack(*batch))))
            cbs.on_predict_batch_end(step)
        cbs.on_predict_end()
        if not outputs:
            raise ValueError("predict: no data")
        return nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *outputs)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        self._assert_compiled("train_on_batch")
        batch = data_adapter._to_tensors(_arrays(x, y, sample_weight))
        self._ensure_built_for(batch[0])
        return self._format(_to_floats(self._step_function("train")(data_adapter.pack(*batch))), return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._assert_compiled("test_on_batch")
        batch = data_adapter._to_tensors(_arrays(x, y, sample_weight))
        self._ensure_built_for(batch[0])
        return self._format(_to_floats(self._step_function("test")(data_adapter.pack(*batch))), return_dict)

    def predict_on_batch(self, x):
        batch = data_adapter._to_tensors(_arrays(x, None, None))
        self._ensure_built_for(batch[0])
        return nest.map_structure(lambda t: t.numpy(), self._step_function("predict")(data_adapter.pack(*batch)))

    def _format(self, logs, return_dict):
        if return_dict:
            return logs
        values = [logs[n] for n in self.metrics_names if n in logs]
        return values[0] if len(values) == 1 else values

    # --- Introspection and saving -------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        from ember.keras.engine.summary import print_summary
        print_summary(self, line_length=line_length, print_fn=print_fn)

    def get_layer(self, name=None, index=None):
        layers = self.layers
        if index is not None:
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in layers]}")

    def reset_states(self):
        """Zeroes the states of every stateful RNN in the model (Keras 2's Model.reset_states)."""
        pending, seen = list(self._sublayers()), set()
        while pending:
            layer = pending.pop()
            if id(layer) not in seen:
                seen.add(id(layer))
                if getattr(layer, "stateful", False) and hasattr(layer, "reset_state"):
                    layer.reset_state()
                pending.extend(layer._sublayers())

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        from ember.keras import saving
        saving.save_model(self, filepath, overwrite=overwrite)

    def save_weights(self, filepath, overwrite=True):
        from ember.keras import saving
        saving.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        from ember.keras import saving
        saving.load_weights(self, filepath)

    def get_compile_config(self):
        if not self.compiled:
            return None
        from ember.keras import saving
        return saving.compile_config(self)

    def compile_from_config(self, config):
        from ember.keras import saving
        saving.compile_from_config(self, config)

    def _maybe_build(self, inputs):
        # A model builds its layers by calling them; only a model that
        # overrides build() is built from the input shape first.
        if type(self).build is Model.build:
            if hasattr(inputs, "shape"):  # saved as build_config, to rebuild a loaded subclassed model
                object.__setattr__(self, "_built_input_shape", [None] + list(inputs.shape)[1:])
            self.built = True
        else:
            super()._maybe_build(inputs)

    def build(self, input_shape):
        # A subclassed model builds by running on zeros of that shape (Keras 3's rule).
        if input_shape is not None and type(self).call is not Model.call:
            shape = [1 if d is None else d for d in input_shape]
            self.built = True
            self(np.zeros(shape, np.float32))
        self.built = True


def _functional_arguments(args, kwargs):
    return len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs


_FUNCTIONAL_SUBCLASSES = {}


def _functional_subclass(cls):
    """cls with Functional mixed in (cached), under cls's own name."""
    if cls not in _FUNCTIONAL_SUBCLASSES:
        from ember.keras.models.functional import Functional
        _FUNCTIONAL_SUBCLASSES[cls] = type(cls.__name__, (cls, Functional),
                                           {"__module__": cls.__module__, "_functional_of": cls})
    return _FUNCTIONAL_SUBCLASSES[cls]


def _batch_size(values):
    # The epoch's loss is the mean over examples, so a last smaller batch counts less (Keras 3).
    return ember.cast(ember.shape(nest.flatten(values)[0])[0], "float32")


def _arrays(x, y, sample_weight):
    def to_array(v):
        if v is None or hasattr(v, "numpy") and not isinstance(v, np.ndarray):
            return v
        arr = np.asarray(v)
        return arr.astype(np.float32) if arr.dtype == np.float64 else arr
    return nest.map_structure(to_array, (x, y, sample_weight))


def _to_floats(logs):
    return {k: float(np.asarray(v.numpy() if hasattr(v, "numpy") else v)) for k, v in logs.items()}
