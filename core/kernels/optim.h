// core/kernels/optim.h — the seam's kernels for the optimisers' update.
// Called in core/nn/optim.cpp; plain loops in core/kernels/reference/optim.cpp, fast ones in
// core/kernels/fast/optim.cpp (conventions and the D2L_KERNEL macro: core/kernels/seam.h).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// torch.optim.Adam's update of one parameter of n elements (its single-tensor path, in its
// order of operations), with step_size = lr / (1 − beta1^t), bc2_sqrt = sqrt(1 − beta2^t):
//   w, m, v (n) updated in place, g (n)
//   g' = g + weight_decay w;  m = beta1 m + (1 − beta1) g';  v = beta2 v + (1 − beta2) g'²;
//   w −= step_size m / (sqrt(v) / bc2_sqrt + eps)
D2L_KERNEL(adam_step, float* w, float* m, float* v, const float* g, int64_t n, float beta1, float beta2, float eps,
           float weight_decay, float step_size, float bc2_sqrt);

}  // namespace d2l
