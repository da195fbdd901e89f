// core/kernels/reference/optim.cpp — Adam's update as one plain loop over the parameter's elements.
#include <cmath>

#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {

// torch.optim.Adam (single-tensor path): the moments m and v, then the step, with the bias
// corrections folded into step_size and bc2_sqrt (core/nn/optim.cpp computes them once a step).
void adam_step(float* w, float* m, float* v, const float* g, int64_t n, float beta1, float beta2, float eps,
               float weight_decay, float step_size, float bc2_sqrt) {
  for (int64_t i = 0; i < n; ++i) {
    const float gi = weight_decay != 0.0f ? g[i] + weight_decay * w[i] : g[i];
    m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
    v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    w[i] -= step_size * m[i] / (std::sqrt(v[i]) / bc2_sqrt + eps);
  }
}

}  // namespace reference
}  // namespace d2l
