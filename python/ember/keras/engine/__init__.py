"""The Keras engine: Layer, KerasTensor and the symbolic graph, Model's training loop."""
