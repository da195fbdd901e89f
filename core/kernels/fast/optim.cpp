// core/kernels/fast/optim.cpp — Adam's update, vectorised: the same loop as the reference tier's,
// written so the compiler can turn it into vector code.
//
// Two things kept it scalar in core/nn/optim.cpp: std::sqrt, which must set errno for a
// negative input, so GCC calls it per element (this file is compiled with -fno-math-errno,
// see the Makefile: sqrt is then one vector instruction, correctly rounded as before, so
// the results do not change); and the four arrays, which the compiler must assume may
// overlap (__restrict: they are distinct buffers, the parameter, its two moments and its
// gradient). Each element is computed on its own, so the bits equal the reference tier's
// up to the fusing of a multiply and an add. A large parameter (the NLI model's embedding
// table: 2763 x 100) is shared among the threads in blocks.
#include <algorithm>
#include <cmath>

#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {

namespace {
// Elements [lo, hi): each on its own (a helper, so that the pointers keep their __restrict).
void adam_range(float* __restrict w, float* __restrict m, float* __restrict v, const float* __restrict g, int64_t lo,
                int64_t hi, float beta1, float beta2, float eps, float weight_decay, float step_size, float bc2_sqrt) {
  for (int64_t i = lo; i < hi; ++i) {
    const float gi = weight_decay != 0.0f ? g[i] + weight_decay * w[i] : g[i];
    m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
    v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    w[i] -= step_size * m[i] / (std::sqrt(v[i]) / bc2_sqrt + eps);
  }
}
}  // namespace

void adam_step(float* w, float* m, float* v, const float* g, int64_t n, float beta1, float beta2, float eps,
               float weight_decay, float step_size, float bc2_sqrt) {
  constexpr int64_t kBlock = 1 << 14;
  if (n < kParallelMin) return adam_range(w, m, v, g, 0, n, beta1, beta2, eps, weight_decay, step_size, bc2_sqrt);
  parallel_for(ceil_div(n, kBlock), true, [&](int64_t b) {
    adam_range(w, m, v, g, b * kBlock, std::min(n, (b + 1) * kBlock), beta1, beta2, eps, weight_decay, step_size,
               bc2_sqrt);
  });
}

}  // namespace fast
}  // namespace d2l
