// core/ops_reduce.cpp — sum, mean, max (over everything or one dim) and argmax.
//
// A reduction over dim d of a row-major tensor views it as (outer, n, inner): outer is the
// product of the sizes before d, n the size of d, inner the product after. Output element
// (o, i) reduces x[o, 0..n-1, i]. Every sum runs serially in index order, so the result
// never depends on the thread count.
#include <cmath>
#include <limits>

#include "core/autograd.h"
#include "core/kernels/lane_sum.h"
#include "core/ops.h"

namespace d2l {
namespace {

struct Split {
  int64_t outer = 1, n = 1, inner = 1;
};

Split split_at(const Shape& s, int64_t d) {
  Split p;
  for (int64_t i = 0; i < d; ++i) p.outer *= s[i];
  p.n = s[d];
  for (size_t i = d + 1; i < s.size(); ++i) p.inner *= s[i];
  return p;
}

Shape reduced_shape(const Shape& s, int64_t d, bool keepdim) {
  Shape out = s;
  if (keepdim) out[d] = 1;
  else out.erase(out.begin() + d);
  return out;
}

// sum (scale 1) and mean (scale 1/n) share this: y = scale * Σ_j x[o, j, i].
Tensor sum_dim(const Tensor& x, int64_t dim, bool keepdim, bool average, const char* name) {
  OpCall op(name, {x});
  const int64_t d = normalize_dim(dim, x.shape(), name);
  const Split p = split_at(x.shape(), d);
  const float scale = average ? 1.0f / static_cast<float>(p.n) : 1.0f;
  Tensor y = zeros(reduced_shape(x.shape(), d, keepdim));
  const float* px = x.data();
  float* py = y.data();
  if (p.inner == 1) {
    // A contiguous run per output: summed in vector lanes, in a fixed order (lane_sum.h).
    for (int64_t o = 0; o < p.outer; ++o) py[o] = lane_sum(px + o * p.n, p.n);
  } else {
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t j = 0; j < p.n; ++j)
        for (int64_t i = 0; i < p.inner; ++i) py[o * p.inner + i] += px[(o * p.n + j) * p.inner + i];
  }
  if (average)
    for (int64_t k = 0; k < y.numel(); ++k) py[k] *= scale;
  // Backward: each x[o, j, i] contributed once (times scale) to y[o, i].
  return op.finish(y, [p, scale](Node& y) {
    float* dx = y.input_grad(0);
    if (!dx) return;
    const float* g = y.grad.get();
    if (p.inner == 1) {
      for (int64_t o = 0; o < p.outer; ++o) {
        const float go = scale * g[o];
        for (int64_t j = 0; j < p.n; ++j) dx[o * p.n + j] += go;
      }
      return;
    }
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t j = 0; j < p.n; ++j)
        for (int64_t i = 0; i < p.inner; ++i) dx[(o * p.n + j) * p.inner + i] += scale * g[o * p.inner + i];
  });
}

// max and argmax: the first maximum wins ties (as torch.max does on CPU); NaN propagates.
void max_kernel(const float* x, const Split& p, float* values, int64_t* where) {
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i = 0; i < p.inner; ++i) {
      float best = -std::numeric_limits<float>::infinity();
      int64_t arg = 0;
      for (int64_t j = 0; j < p.n; ++j) {
        const float v = x[(o * p.n + j) * p.inner + i];
        if (v > best || std::isnan(v)) {
          best = v;
          arg = j;
          if (std::isnan(v)) break;
        }
      }
      values[o * p.inner + i] = best;
      where[o * p.inner + i] = arg;
    }
}

}  // namespace

Tensor sum(const Tensor& x, int64_t dim, bool keepdim) { return sum_dim(x, dim, keepdim, false, "sum"); }
Tensor mean(const Tensor& x, int64_t dim, bool keepdim) { return sum_dim(x, dim, keepdim, true, "mean"); }

// Whole-tensor reductions: view x as one dim of numel elements, reduce it, shape ().
Tensor sum(const Tensor& x) { return sum_dim(reshape(x, {x.numel()}), 0, false, false, "sum"); }
Tensor mean(const Tensor& x) {
  check(x.numel() > 0, "mean", "mean of an empty tensor, shape ", x.shape());
  return sum_dim(reshape(x, {x.numel()}), 0, false, true, "mean");
}

Tensor max(const Tensor& x, int64_t dim, bool keepdim) {
  OpCall op("max", {x});
  const int64_t d = normalize_dim(dim, x.shape(), "max");
  check(x.shape()[d] > 0, "max", "cannot reduce an empty dim ", d, " of shape ", x.shape());
  const Split p = split_at(x.shape(), d);
  Tensor y = empty(reduced_shape(x.shape(), d, keepdim));
  std::vector<int64_t> where(static_cast<size_t>(y.numel()));
  max_kernel(x.data(), p, y.data(), where.data());
  // Backward: only the (first) maximum received the value, so only it gets the gradient.
  return op.finish(y, [p, where = std::move(where)](Node& y) {
    float* dx = y.input_grad(0);
    if (!dx) return;
    const float* g = y.grad.get();
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t k = o * p.inner + i;
        dx[(o * p.n + where[k]) * p.inner + i] += g[k];
      }
  });
}

Tensor max(const Tensor& x) {
  check(x.numel() > 0, "max", "max of an empty tensor, shape ", x.shape());
  return reshape(max(reshape(x, {x.numel()}), 0, false), {});
}

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  OpCall op("argmax", {x});
  const int64_t d = normalize_dim(dim, x.shape(), "argmax");
  check(x.shape()[d] > 0, "argmax", "cannot reduce an empty dim ", d, " of shape ", x.shape());
  const Split p = split_at(x.shape(), d);
  Tensor y = empty(reduced_shape(x.shape(), d, keepdim));
  std::vector<float> values(static_cast<size_t>(y.numel()));
  std::vector<int64_t> where(static_cast<size_t>(y.numel()));
  max_kernel(x.data(), p, values.data(), where.data());
  for (int64_t k = 0; k < y.numel(); ++k) y.data()[k] = static_cast<float>(where[k]);
  return op.finish(y);  // indices: no gradient flows through them
}

}  // namespace d2l
