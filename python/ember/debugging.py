"""The ember.debugging namespace (generated from op_defs/)."""

from ember._generated.debugging import *  # noqa: F401,F403
from ember._generated.debugging import __all__  # noqa: F401
