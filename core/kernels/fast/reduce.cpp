// core/kernels/fast/reduce.cpp — sum over one dim, x viewed as (outer, n, inner): a contiguous run
// (inner = 1) is summed in vector lanes (lane_sum.h), a strided one row by row so the inner
// loop runs over contiguous outputs. (max is the reference tier's plain loop.)
#include <cstring>

#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/lane_sum.h"

namespace d2l {
namespace fast {

void sum_forward(float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale) {
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) y[o] = lane_sum(x + o * n, n);
  } else {
    if (outer * inner > 0) std::memset(y, 0, sizeof(float) * outer * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < inner; ++i) y[o * inner + i] += x[(o * n + j) * inner + i];
  }
  if (scale != 1.0f)
    for (int64_t k = 0; k < outer * inner; ++k) y[k] *= scale;
}

// Each x[o, j, i] contributed once (times scale) to y[o, i].
void sum_backward(float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale) {
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) {
      const float go = scale * dy[o];
      for (int64_t j = 0; j < n; ++j) dx[o * n + j] += go;
    }
    return;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < inner; ++i) dx[(o * n + j) * inner + i] += scale * dy[o * inner + i];
}


// max is one pass that compares: the plain loops of core/kernels/reference/reduce.cpp are as fast.
void max_forward(float* values, int64_t* where, const float* x, int64_t outer, int64_t n, int64_t inner) {
  reference::max_forward(values, where, x, outer, n, inner);
}
void max_backward(float* dx, const float* dy, const int64_t* where, int64_t outer, int64_t n, int64_t inner) {
  reference::max_backward(dx, dy, where, outer, n, inner);
}

}  // namespace fast
}  // namespace d2l
