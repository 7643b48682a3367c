"""The suite's case groups in run order, for the parent and for each framework's process."""
from benchmarks.suite import cases_dispatch, cases_elementwise, cases_kernels, cases_memory, cases_models

GROUPS = (cases_dispatch, cases_elementwise, cases_kernels, cases_models, cases_memory)


def specs(ctx):
    return [s for group in GROUPS for s in group.specs(ctx)]
