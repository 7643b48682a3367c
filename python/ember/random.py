"""The ember.random namespace (``tf.random``); the implementation is ember/_random.py.

Only the public names are re-exported, so implementation details (NumPy,
helpers, dtypes) are not reachable as ``ember.random.<name>``.
"""

from ember._random import *  # noqa: F401,F403
from ember._random import __all__ as _public
from ember._random import dropout, stateless_dropout  # noqa: F401 - ember extensions (tf.nn.dropout's parts)

__all__ = sorted(_public + ["dropout", "stateless_dropout"])
