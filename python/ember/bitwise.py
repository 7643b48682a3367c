"""The ember.bitwise namespace (generated from op_defs/)."""

from ember._generated.bitwise import *  # noqa: F401,F403
from ember._generated.bitwise import __all__  # noqa: F401
