// This file defines the per-element math of the optimizer updates
// (op_defs/training.yaml) once, for the CPU and GPU kernels alike (Note
// [Shared element math] in element_math.h). C is the compute type: float
// for float16 and bfloat16 (Note [Half compute]).
#pragma once

#include <cmath>

#include "kernels/common/element_math.h"

namespace ember::math {

template <typename C>
EMBER_HOST_DEVICE inline C GradientDescentStep(C var, C grad, C lr) {
  return var - lr * grad;
}

// Keras' momentum: m' = momentum * m - lr * g; var' = var + m', or with
// Nesterov var + momentum * m' - lr * g.
template <typename C>
EMBER_HOST_DEVICE inline void MomentumStep(C var, C m, C grad, C lr, C momentum, bool nesterov, C* var_out,
                                           C* m_out) {
  const C next_m = momentum * m - lr * grad;
  const C step = nesterov ? momentum * next_m - lr * grad : next_m;
  *var_out = var + step;
  *m_out = next_m;
}

// Adam's per-step scalars: lr_t = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)
// and AdamW's decay factor 1 - lr * weight_decay.
template <typename C>
struct AdamScalars {
  C lr_t, decay, one_minus_beta_1, one_minus_beta_2, epsilon;
};

template <typename C>
EMBER_HOST_DEVICE inline AdamScalars<C> MakeAdamScalars(C lr, C beta_1, C beta_2, C epsilon, C beta_1_power,
                                                        C beta_2_power, C weight_decay) {
  using std::sqrt;
  return AdamScalars<C>{lr * sqrt(C(1) - beta_2_power) / (C(1) - beta_1_power), C(1) - lr * weight_decay,
                        C(1) - beta_1, C(1) - beta_2, epsilon};
}

template <typename C>
EMBER_HOST_DEVICE inline void AdamStep(C var, C m, C v, C grad, const AdamScalars<C>& s, C* var_out, C* m_out,
                                       C* v_out) {
  using std::sqrt;
  const C next_m = m + (grad - m) * s.one_minus_beta_1;
  const C next_v = v + (grad * grad - v) * s.one_minus_beta_2;
  *var_out = var * s.decay - s.lr_t * next_m / (sqrt(next_v) + s.epsilon);
  *m_out = next_m;
  *v_out = next_v;
}

}  // namespace ember::math
