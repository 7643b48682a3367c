"""Gradient functions, one module per op_defs/ file (Note [Gradient declarations]).

Each function takes the recorded call (an ``OpRecord``: ``inputs``,
``outputs``, ``attrs``) and one incoming gradient per output, and returns
one gradient per input (a tensor or None), written with Ember ops so it
runs on every device and can itself be differentiated.
"""
