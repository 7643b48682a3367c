"""The ember.math namespace (generated from op_defs/)."""

from ember._generated.math import *  # noqa: F401,F403
from ember._generated.math import __all__  # noqa: F401
