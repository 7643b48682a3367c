"""The end-to-end models, each written once against a framework ops module
(frameworks/*_ops.py) with its weights as a tree of seeded NumPy arrays, so
every framework runs the same network on the same weights.

Each model module defines init(rng, ...) -> weights, example_input(rng, ...) -> a
NumPy input, IMAGE_INPUT (whether the input is an NHWC image) and
forward(F, params, x).
"""
