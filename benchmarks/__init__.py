"""Ember's benchmark suite (issue 12): ``python -m benchmarks`` from the repository root.

The cases live in ``benchmarks/suite/``; the older single-purpose scripts
(``dispatch.py``, ``async_read.py``, ...) still run on their own.
"""
