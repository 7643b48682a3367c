"""The ember.linalg namespace (generated from op_defs/)."""

from ember._generated.linalg import *  # noqa: F401,F403
from ember._generated.linalg import __all__  # noqa: F401
