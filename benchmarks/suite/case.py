"""What a benchmark case is: its implementations, how to time them and how to check their outputs."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from benchmarks.suite.timing import Impl


@dataclass
class Case:
    """A built case; its group and name are its Spec's."""
    impls: list
    description: str = ""
    # One call of an impl's loop does `per` units (a 1,000-add chain: 1,000
    # nodes); times are reported per unit.
    per: int = 1
    unit: str = "call"
    # ("GB/s", bytes) or ("GFLOP/s", flops) moved or done by one call.
    work: Optional[tuple] = None
    # Returns the expected output (usually NumPy in float64); None: no check.
    reference: Optional[Callable[[], Any]] = None
    rtol: float = 1e-5
    # Absolute tolerance as a fraction of the reference's largest magnitude,
    # so deep models with large activations get a proportionate bound.
    atol_rel: float = 1e-6
    rounds: int = 7
    inner: int = 1
    warmup: int = 2
    gap_s: float = 0.0
    # Time every call on its own instead of `inner` calls together.
    per_call: bool = False
    notes: list = field(default_factory=list)


@dataclass
class Spec:
    """A case not built yet: building may allocate large inputs or compile,
    which --only must be able to skip."""
    group: str
    name: str
    build: Optional[Callable[[], Case]]
    # Runs the whole case and returns its record, for a case that is not
    # timed (memory: cases_memory.py); None: runner.run builds and times it.
    run: Optional[Callable[[], dict]] = None

    @property
    def key(self):
        return f"{self.group}/{self.name}"


def impl_for(fw, build, label=None, mode=None, note="", compiled=False):
    """An Impl on framework module `fw` (frameworks/*_ops.py), named after it
    unless `label` says otherwise (e.g. "ember sync", "jax.jit")."""
    return Impl(name=label or fw.NAME, framework=fw.NAME, build=build, finish=fw.finish, to_numpy=fw.to_numpy,
                mode=mode, note=note, compiled=compiled)
