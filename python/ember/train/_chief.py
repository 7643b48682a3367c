"""Which process writes checkpoints in a multi-worker job (Note [Checkpoints from one worker]).

Note [Checkpoints from one worker]: under MultiWorkerMirroredStrategy
every worker holds the same variables, so one copy on disk is enough, and
two workers writing the same files (on a shared file system) could tear
them. Worker 0, the chief, writes; the other workers' ``write``, ``save``
and ``CheckpointManager.save`` write nothing and return the chief's path.
TensorFlow has non-chief workers write into a temporary directory that
it then deletes, which comes to the same files on disk. The chief's write
is atomic (a temporary file renamed into place, Note in _format.py), so a
reader sees the old checkpoint or the new one, never part of one.
Nothing here waits for the chief, so a program where only the chief
calls ``save`` works too; a worker that restores right after a save
calls ``strategy.barrier()`` first.
"""

_chief = []  # [whether this process is the chief] once a multi-worker strategy exists in it


def set_chief(is_chief):
    """Called by MultiWorkerMirroredStrategy with whether this worker is worker 0."""
    _chief[:] = [bool(is_chief)]


def writes_checkpoints():
    """False on the non-chief workers of a multi-worker job, True everywhere else."""
    return not _chief or _chief[0]
