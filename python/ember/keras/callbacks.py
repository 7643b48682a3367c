"""keras.callbacks: Callback, History, ProgbarLogger, ModelCheckpoint, EarlyStopping, ReduceLROnPlateau,
TensorBoard, BackupAndRestore, ..."""

import csv as _csv
import json as _json
import os as _os
import time as _time

import numpy as _np

from ember.keras.engine.progbar import Progbar as _Progbar


class Callback:
    """Hooks the training loop calls; ``self.model`` and ``self.params`` are set before training."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, batch, logs=None): pass
    def on_train_batch_end(self, batch, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass


class CallbackList(Callback):
    """Calls each callback's hook in order."""

    def __init__(self, callbacks=None, model=None, **params):
        super().__init__()
        self.callbacks = list(callbacks or [])
        if model is not None:
            self.set_model(model)
        self.set_params(params)

    def append(self, callback):
        self.callbacks.append(callback)
        if self.model is not None:
            callback.set_model(self.model)
        callback.set_params(self.params)

    def set_model(self, model):
        super().set_model(model)
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        super().set_params(params)
        for c in self.callbacks:
            c.set_params(params)

    def __getattribute__(self, name):
        if name.startswith("on_"):
            def call_all(*args, **kwargs):
                # Each hook gets a logs dict, as Keras passes one (LambdaCallback's functions need it).
                if "logs" not in kwargs and len(args) == (1 if "epoch" in name or "batch" in name else 0):
                    args = args + ({},)
                for c in self.callbacks:
                    getattr(c, name)(*args, **kwargs)
            return call_all
        return super().__getattribute__(name)


class History(Callback):
    """``history.history[key]`` is the list of each epoch's value; ``epoch`` the epochs run."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Prints "Epoch i/n" and a Progbar per epoch (verbose 1), or one line per epoch (verbose 2)."""

    def __init__(self, verbose=1):
        super().__init__()
        self.verbose = verbose
        self._bar = None
        self._seen = 0

    def on_epoch_begin(self, epoch, logs=None):
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.params.get('epochs', 1)}", flush=True)
        self._bar = _Progbar(self.params.get("steps"), verbose=self.verbose)
        self._seen = 0

    def on_train_batch_end(self, batch, logs=None):
        self._seen = batch + 1
        self._bar.update(self._seen, _ordered(logs), finalize=False)

    def on_epoch_end(self, epoch, logs=None):
        self._bar.update(self._seen, _ordered(logs), finalize=True)

    # evaluate / predict on their own (not inside fit): one bar for the run.
    def on_test_begin(self, logs=None):
        if not self.params.get("in_fit"):
            self._bar, self._seen = _Progbar(self.params.get("steps"), verbose=self.verbose), 0

    def on_test_batch_end(self, batch, logs=None):
        if not self.params.get("in_fit"):
            self._seen = batch + 1
            self._bar.update(self._seen, _ordered(logs), finalize=False)

    def on_test_end(self, logs=None):
        if not self.params.get("in_fit"):
            self._bar.update(self._seen, _ordered(logs), finalize=True)

    def on_predict_begin(self, logs=None):
        self._bar, self._seen = _Progbar(self.params.get("steps"), verbose=self.verbose), 0

    def on_predict_batch_end(self, batch, logs=None):
        self._seen = batch + 1
        self._bar.update(self._seen, finalize=False)

    def on_predict_end(self, logs=None):
        self._bar.update(self._seen, finalize=True)


def _ordered(logs):
    # Keras prints metrics sorted by name, the validation ones after the others.
    logs = logs or {}
    keys = sorted(k for k in logs if not k.startswith("val_")) + sorted(k for k in logs if k.startswith("val_"))
    return {k: logs[k] for k in keys if _np.ndim(logs[k]) == 0}


class _Monitor(Callback):
    """Shared by the callbacks that watch one logged value: mode "min"/"max"/"auto"."""

    def __init__(self, monitor, mode, min_delta):
        super().__init__()
        self.monitor = monitor
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"{type(self).__name__}: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if mode == "auto":
            mode = "max" if any(k in monitor for k in ("acc", "auc", "precision", "recall")) else "min"
        self.mode = mode
        self.min_delta = abs(min_delta)

    def _improved(self, current, best):
        if best is None:
            return True
        if self.mode == "min":
            return current < best - self.min_delta
        return current > best + self.min_delta

    def _current(self, logs):
        value = (logs or {}).get(self.monitor)
        return None if value is None else float(value)


class EarlyStopping(_Monitor):
    """Stops training when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs;
    with ``restore_best_weights`` the best epoch's weights are put back."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta)
        self.patience, self.verbose, self.baseline = patience, verbose, baseline
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best = None
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = self._current(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improved(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(_Monitor):
    """Saves the model (``.keras``) or its weights (``.weights.h5``) after each epoch, or every
    ``save_freq`` batches when it is an int (batches counted across epochs); ``filepath`` may hold
    ``{epoch}``, ``{batch}`` (with an int save_freq) and log keys, e.g. ``"m-{epoch:02d}-{val_loss:.2f}.keras"``."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode, 0)
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int)
                                     or save_freq < 1):
            raise ValueError(f"ModelCheckpoint: save_freq must be 'epoch' or a positive int, got {save_freq!r}")
        self.filepath, self.verbose = _os.fspath(filepath), verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.save_freq = save_freq
        self.best = initial_value_threshold
        self._epoch = 0
        self._batches_since_save = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_since_save += 1
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save(self._epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _save(self, epoch, batch, logs):
        logs = logs or {}
        extra = {} if batch is None else {"batch": batch + 1}
        path = self.filepath.format(epoch=epoch + 1, **extra, **logs)
        if self.save_best_only:
            current = self._current(logs)
            if current is None or not self._improved(current, self.best):
                return
            if self.verbose:
                print(f"Epoch {epoch + 1}: {self.monitor} improved from {self.best} to {current:.5f}, "
                      f"saving model to {path}")
            self.best = current
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)


class BackupAndRestore(Callback):
    """Backs up the model's weights and optimizer state in ``backup_dir`` at the end of every epoch;
    a ``fit`` that starts while a backup is there (the previous one was interrupted) loads it and
    resumes at the epoch after the backed-up one. The backup is deleted when training ends normally
    (unless ``delete_checkpoint=False``). Only ``save_freq="epoch"``; ``double_checkpoint`` is
    accepted and not used (the backup is replaced atomically)."""

    _WEIGHTS, _METADATA = "latest.weights", "training_metadata.json"

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("BackupAndRestore: backup_dir is empty")
        if save_freq != "epoch":
            raise NotImplementedError("BackupAndRestore: only save_freq='epoch' is supported")
        del double_checkpoint
        self.backup_dir, self.save_freq, self.delete_checkpoint = _os.fspath(backup_dir), save_freq, delete_checkpoint

    def _path(self, name):
        return _os.path.join(self.backup_dir, name)

    def on_train_begin(self, logs=None):
        from ember.keras import saving
        if not _os.path.exists(self._path(self._METADATA)):
            return
        with open(self._path(self._METADATA)) as f:
            epoch = _json.load(f)["epoch"]
        saving.restore_training_state(self.model, self._path(self._WEIGHTS))
        self.model._resume_epoch = epoch + 1  # fit starts at the epoch after the backed-up one

    def on_epoch_end(self, epoch, logs=None):
        from ember.keras import saving
        _os.makedirs(self.backup_dir, exist_ok=True)
        # Each file is written beside its place and renamed over it, so an interruption while
        # writing leaves the previous backup whole.
        saving.save_training_state(self.model, self._path(self._WEIGHTS + ".tmp"))
        _os.replace(self._path(self._WEIGHTS + ".tmp"), self._path(self._WEIGHTS))
        with open(self._path(self._METADATA + ".tmp"), "w") as f:
            _json.dump({"epoch": epoch}, f)
        _os.replace(self._path(self._METADATA + ".tmp"), self._path(self._METADATA))

    def on_train_end(self, logs=None):
        if self.delete_checkpoint:  # an interrupted fit never gets here, so its backup stays
            for name in (self._WEIGHTS, self._METADATA):
                if _os.path.exists(self._path(name)):
                    _os.remove(self._path(name))


class ReduceLROnPlateau(_Monitor):
    """Multiplies the optimizer's learning rate by ``factor`` (not below ``min_lr``) when
    ``monitor`` has not improved for ``patience`` epochs, then waits ``cooldown`` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta)
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau: factor must be < 1")
        self.factor, self.patience, self.verbose = factor, patience, verbose
        self.cooldown, self.min_lr = cooldown, min_lr
        self.best, self.wait, self.cooldown_counter = None, 0, 0

    def on_train_begin(self, logs=None):
        self.best, self.wait, self.cooldown_counter = None, 0, 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = float(self.model.optimizer.learning_rate)
        current = self._current(logs)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(self.model.optimizer.learning_rate)
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    self.model.optimizer.learning_rate = new
                    if self.verbose:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch's start to ``schedule(epoch, lr)``."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = float(self.schedule(epoch, float(self.model.optimizer.learning_rate)))
        self.model.optimizer.learning_rate = lr

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)


class LambdaCallback(Callback):
    """A callback from functions: on_epoch_begin/end(epoch, logs), on_batch_begin/end(batch, logs),
    on_train_begin/end(logs)."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None, on_batch_end=None,
                 on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                             on_train_batch_begin=on_batch_begin, on_train_batch_end=on_batch_end,
                             on_train_begin=on_train_begin, on_train_end=on_train_end, **kwargs).items():
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not _np.isfinite(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes each epoch's logs as a CSV row (``epoch`` first)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.separator, self.append = _os.fspath(filename), separator, append

    def on_train_begin(self, logs=None):
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._writer = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._writer is None:
            self._writer = _csv.DictWriter(self._file, ["epoch"] + sorted(logs), delimiter=self.separator)
            if not self.append:
                self._writer.writeheader()
        self._writer.writerow({"epoch": epoch, **logs})
        self._file.flush()

    def on_train_end(self, logs=None):
        self._file.close()


class TensorBoard(Callback):
    """Writes the training logs as TensorBoard event files (ember.summary), laid out as Keras 3 does:
    ``log_dir/train`` gets ``epoch_<name>`` scalars (and ``epoch_learning_rate``) at step = epoch,
    ``log_dir/validation`` the ``val_`` logs under the same names, plus
    ``evaluation_<name>_vs_iterations`` at step = optimizer iterations after each evaluation. With
    ``update_freq="batch"`` or an int n, ``batch_<name>`` scalars are written every n batches (step =
    batches run in this fit); ``histogram_freq=n`` writes each weight's histogram every n epochs, and
    ``write_graph`` the model's JSON config (TensorBoard's Keras model graph). ``write_images``,
    ``profile_batch`` and the embeddings projector are accepted and not used."""

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        del write_images, profile_batch, embeddings_freq, embeddings_metadata
        self.log_dir = _os.fspath(log_dir)
        self.histogram_freq, self.write_graph = int(histogram_freq), write_graph
        self.write_steps_per_second = write_steps_per_second
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (not isinstance(update_freq, int) or update_freq < 1):
            raise ValueError(f"TensorBoard: update_freq must be 'epoch', 'batch' or a positive int, got "
                             f"{update_freq!r}")
        self.update_freq = update_freq
        self._writers = {}
        self._global_train_batch = self._global_test_batch = 0
        self._batch_start = self._epoch_start = 0.0
        self._epoch_start_iterations = 0

    def _writer(self, which):
        if which not in self._writers:
            from ember import summary
            self._writers[which] = summary.create_file_writer(_os.path.join(self.log_dir, which))
        return self._writers[which]

    def set_model(self, model):
        super().set_model(model)
        self._close_writers()
        if self.write_graph and type(model).__name__ in ("Sequential", "Functional"):
            self._write_model_config()

    def _write_model_config(self):
        from ember import summary
        from ember.keras.saving import serialize_layer
        metadata = {"plugin_data": {"plugin_name": "graph_keras_model", "content": b"1"}}
        with self._writer("train").as_default():
            summary.write("keras", _json.dumps(serialize_layer(self.model)), step=0, metadata=metadata)

    def _scalars(self, which, values, step, prefix):
        from ember import summary
        with self._writer(which).as_default():
            for name, value in values.items():
                if _np.ndim(value) == 0:
                    summary.scalar(prefix + name, float(value), step=step)

    def _iterations(self):
        optimizer = getattr(self.model, "optimizer", None)
        return None if optimizer is None else int(optimizer.iterations.numpy())

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        self._batch_start = _time.time()

    def on_train_batch_end(self, batch, logs=None):
        if self.update_freq == "epoch" or self._global_train_batch % self.update_freq:
            return
        values = dict(logs or {})
        if self.write_steps_per_second:
            values["steps_per_second"] = 1.0 / max(_time.time() - self._batch_start, 1e-9)
        self._scalars("train", values, self._global_train_batch, "batch_")

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1

    def on_test_end(self, logs=None):
        step = self._iterations()
        if step is not None and logs:
            self._scalars("validation", {f"evaluation_{k}_vs_iterations": v for k, v in logs.items()}, step, "")

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_start, self._epoch_start_iterations = _time.time(), self._iterations() or 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        if getattr(self.model, "optimizer", None) is not None:
            train["learning_rate"] = float(self.model.optimizer.learning_rate)
        if self.write_steps_per_second:
            seconds = max(_time.time() - self._epoch_start, 1e-9)
            train["steps_per_second"] = ((self._iterations() or 0) - self._epoch_start_iterations) / seconds
        self._scalars("train", train, epoch, "epoch_")
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if val:
            self._scalars("validation", val, epoch, "epoch_")
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def _log_weights(self, epoch):
        # Keras tags them "<weight name>/histogram"; the layer's name is put in front here, so that
        # the kernels of two layers do not share one tag.
        from ember import summary
        with self._writer("train").as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    summary.histogram(f"{layer.name}/{weight.name.replace(':', '_')}/histogram", weight, step=epoch)

    def on_train_end(self, logs=None):
        self._close_writers()

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
