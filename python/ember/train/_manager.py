# ember.train.CheckpointManager: numbered saves in one directory, keeping the newest max_to_keep.

import os
import time

from ember.train import _chief, _state


class CheckpointManager:
    """Saves a Checkpoint as ``<directory>/<checkpoint_name>-<n>`` and deletes old ones
    (``tf.train.CheckpointManager``). Checkpoints listed in the directory's state file when the
    manager is made are managed too, so a restarted program goes on where it stopped."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or not isinstance(max_to_keep, int)
                                        or max_to_keep <= 0):
            raise ValueError(f"CheckpointManager: max_to_keep must be a positive int or None, got {max_to_keep!r}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("CheckpointManager: checkpoint_interval needs a step_counter")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_seconds = None if keep_checkpoint_every_n_hours is None else keep_checkpoint_every_n_hours * 3600
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._last_saved_step = None
        self._init_fn = init_fn
        state = _state.read_state(self._directory)
        times = state["times"] if len(state["times"]) == len(state["all"]) else [time.time()] * len(state["all"])
        # [(name, time)] of the checkpoints this manager may delete, oldest first.
        self._kept = [(n, t) for n, t in zip(state["all"], times)
                      if _state.checkpoint_exists(os.path.join(self._directory, n))]
        self._latest = state["latest"] if any(n == state["latest"] for n, _ in self._kept) else None
        self._last_preserved = self._kept[-1][1] if self._kept else time.time()

    checkpoint = property(lambda self: self._checkpoint)
    directory = property(lambda self: self._directory)
    checkpoint_interval = property(lambda self: self._interval)

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's path, or None."""
        return None if self._latest is None else os.path.join(self._directory, self._latest)

    @property
    def checkpoints(self):
        """The managed checkpoints' paths, oldest first."""
        return [os.path.join(self._directory, n) for n, _ in self._kept]

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes a new checkpoint and returns its path (None if the interval has not passed yet)."""
        if self._interval is not None and check_interval:
            step = int(self._step_counter.numpy())
            if self._last_saved_step is not None and step < self._last_saved_step + self._interval:
                return None
            self._last_saved_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}", options)
        name = os.path.basename(path)
        self._kept = [(n, t) for n, t in self._kept if n != name] + [(name, time.time())]
        self._latest = name
        doomed = self._sweep()
        if not _chief.writes_checkpoints():
            return path  # the chief writes the state file and deletes old checkpoints
        # The state names only files that exist: written after the new checkpoint, before deletions.
        _state.write_state(self._directory, name, [n for n, _ in self._kept], [t for _, t in self._kept])
        for old in doomed:
            _state.remove_checkpoint(os.path.join(self._directory, old))
        return path

    def _sweep(self):
        """Drops the oldest checkpoints beyond max_to_keep from the list; returns those to delete
        (one every keep_checkpoint_every_n_hours is kept on disk, unmanaged)."""
        doomed = []
        while self._max_to_keep is not None and len(self._kept) > self._max_to_keep:
            name, saved_at = self._kept.pop(0)
            if self._keep_seconds is not None and saved_at - self._last_preserved >= self._keep_seconds:
                self._last_preserved = saved_at
                continue
            doomed.append(name)
        return doomed

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path; without one, runs init_fn and returns None."""
        if self.latest_checkpoint is not None:
            self._checkpoint.restore(self.latest_checkpoint)
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
