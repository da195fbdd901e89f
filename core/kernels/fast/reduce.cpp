// core/kernels/fast/reduce.cpp — sum over one dim, x viewed as (outer, n, inner): a contiguous run
// (inner = 1) is summed in vector lanes (lane_sum.h), a strided one row by row so the inner
// loop runs over contiguous outputs. Large tensors are shared among the threads by output
// (forward) or by the elements of dx (backward): every output's terms are added in the same
// order on any number of threads. (max is the reference tier's plain loop.)
#include <algorithm>

#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/lane_sum.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace {
// Columns of a strided sum per task: 4 KiB of outputs, so a task's running sums stay in L1.
constexpr int64_t kColumns = 1024;
}  // namespace

void sum_forward(float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale) {
  const bool fork = outer * n * inner >= kParallelMin;
  if (inner == 1) {
    // One lane_sum per output; a single output (the whole tensor's sum) stays one sum.
    parallel_for(outer, fork && outer > 1, [&](int64_t o) { y[o] = lane_sum(x + o * n, n); });
  } else {
    // Task (o, c): the outputs y[o, c * kColumns ..], the rows j added in order.
    const int64_t blocks = ceil_div(inner, kColumns);
    parallel_for(outer * blocks, fork, [&](int64_t t) {
      const int64_t o = t / blocks, i0 = t % blocks * kColumns, i1 = std::min(inner, i0 + kColumns);
      float* yo = y + o * inner;
      std::fill(yo + i0, yo + i1, 0.0f);
      for (int64_t j = 0; j < n; ++j) {
        const float* xr = x + (o * n + j) * inner;
        for (int64_t i = i0; i < i1; ++i) yo[i] += xr[i];
      }
    });
  }
  if (scale != 1.0f)
    for (int64_t k = 0; k < outer * inner; ++k) y[k] *= scale;
}

// Each x[o, j, i] contributed once (times scale) to y[o, i]: dx is written element by
// element, so any split gives the same bits. Tasks of rows (o, j) of inner elements, or for
// inner = 1 blocks of kBlock elements of one o.
void sum_backward(float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale) {
  const bool fork = outer * n * inner >= kParallelMin;
  if (inner == 1) {
    constexpr int64_t kBlock = 1 << 14;
    const int64_t blocks = ceil_div(n, kBlock);
    parallel_for(outer * blocks, fork, [&](int64_t t) {
      const int64_t o = t / blocks, j0 = t % blocks * kBlock, j1 = std::min(n, j0 + kBlock);
      const float go = scale * dy[o];
      for (int64_t j = j0; j < j1; ++j) dx[o * n + j] += go;
    });
    return;
  }
  parallel_for(outer * n, fork, [&](int64_t r) {
    const float* go = dy + r / n * inner;
    float* dr = dx + r * inner;
    for (int64_t i = 0; i < inner; ++i) dr[i] += scale * go[i];
  });
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
