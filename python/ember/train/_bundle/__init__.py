"""TensorFlow's tensor-bundle checkpoints read and written without TensorFlow (Note [Tensor bundle] in bundle.py)."""
