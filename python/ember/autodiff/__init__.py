"""Automatic differentiation: GradientTape, custom_gradient (docs/autodiff.md)."""

from ember.autodiff.custom_gradient import custom_gradient
from ember.autodiff._tape import GradientTape, UnconnectedGradients

__all__ = ["GradientTape", "UnconnectedGradients", "custom_gradient"]
