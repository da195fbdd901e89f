// core/kernels/reference/reduce.cpp — sum (and mean, through scale) and max over one dim, x viewed
// as (outer, n, inner) with n the reduced dim: output element (o, i) reduces x[o, 0..n-1, i].
#include <cmath>
#include <limits>

#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {

void sum_forward(float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      float s = 0.0f;
      for (int64_t j = 0; j < n; ++j) s += x[(o * n + j) * inner + i];
      y[o * inner + i] = s * scale;
    }
}

// Each x[o, j, i] entered y[o, i] once, times scale.
void sum_backward(float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < inner; ++i) dx[(o * n + j) * inner + i] += scale * dy[o * inner + i];
}

// The first maximum wins ties (as torch.max on CPU); a NaN is the maximum (it propagates).
void max_forward(float* values, int64_t* where, const float* x, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      float best = -std::numeric_limits<float>::infinity();
      int64_t arg = 0;
      for (int64_t j = 0; j < n; ++j) {
        const float v = x[(o * n + j) * inner + i];
        if (v > best || std::isnan(v)) {
          best = v;
          arg = j;
          if (std::isnan(v)) break;
        }
      }
      values[o * inner + i] = best;
      where[o * inner + i] = arg;
    }
}

// Only the maximum passed its value on, so only it gets the gradient.
void max_backward(float* dx, const float* dy, const int64_t* where, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) dx[(o * n + where[o * inner + i]) * inner + i] += dy[o * inner + i];
}

}  // namespace reference
}  // namespace d2l
