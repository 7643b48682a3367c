"""The ember.nn namespace (generated from op_defs/)."""

from ember._generated.nn import *  # noqa: F401,F403
from ember._generated.nn import __all__  # noqa: F401
