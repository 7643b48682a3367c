"""Reading TensorFlow's tensor-bundle checkpoints (Note [Tensor bundle] in bundle.py) without TensorFlow."""
