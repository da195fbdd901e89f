// core/ops_compare.cpp — the checks a training loop runs on its numbers: comparisons giving
// 0/1 tensors, abs, allclose, and the book's accuracy. Plain loops: none of these is on a
// model's hot path.
#include <cmath>

#include "core/autograd.h"
#include "core/ops.h"

namespace d2l {
namespace {

// Calls f(i, ia, ib) for every element i of the broadcast shape `out`, with the flat indices
// of the a and b elements it reads (NumPy rules: shapes aligned at the right, a size-1 dim
// repeats).
template <class F>
void for_each_pair(const Shape& out, const Shape& as, const Shape& bs, F f) {
  const size_t nd = out.size();
  std::vector<int64_t> sa(nd, 0), sb(nd, 0);  // strides in out's rank, 0 along repeated dims
  for (int64_t k = 0, s = 1; k < static_cast<int64_t>(as.size()); ++k) {
    const int64_t d = static_cast<int64_t>(as.size()) - 1 - k;
    sa[nd - 1 - k] = as[d] == 1 ? 0 : s;
    s *= as[d];
  }
  for (int64_t k = 0, s = 1; k < static_cast<int64_t>(bs.size()); ++k) {
    const int64_t d = static_cast<int64_t>(bs.size()) - 1 - k;
    sb[nd - 1 - k] = bs[d] == 1 ? 0 : s;
    s *= bs[d];
  }
  const int64_t n = numel_of(out);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, ia = 0, ib = 0;
    for (size_t d = nd; d-- > 0;) {
      const int64_t at = rest % out[d];
      rest /= out[d];
      ia += at * sa[d];
      ib += at * sb[d];
    }
    f(i, ia, ib);
  }
}

enum class Cmp { eq, ne, lt, le, gt, ge };

template <Cmp C>
Tensor compare(const Tensor& a, const Tensor& b, const char* name) {
  OpCall op(name, {a, b});
  const Shape out = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor y = empty(out);
  const float *pa = a.data(), *pb = b.data();
  float* py = y.data();
  for_each_pair(out, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    const float u = pa[ia], v = pb[ib];
    bool r = false;
    if constexpr (C == Cmp::eq) r = u == v;
    if constexpr (C == Cmp::ne) r = u != v;
    if constexpr (C == Cmp::lt) r = u < v;
    if constexpr (C == Cmp::le) r = u <= v;
    if constexpr (C == Cmp::gt) r = u > v;
    if constexpr (C == Cmp::ge) r = u >= v;
    py[i] = r ? 1.0f : 0.0f;
  });
  return op.finish(y);  // a step function: no gradient, the result is not in the graph
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare<Cmp::eq>(a, b, "eq"); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare<Cmp::ne>(a, b, "ne"); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare<Cmp::lt>(a, b, "lt"); }
Tensor le(const Tensor& a, const Tensor& b) { return compare<Cmp::le>(a, b, "le"); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare<Cmp::gt>(a, b, "gt"); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare<Cmp::ge>(a, b, "ge"); }
// The scalar forms compare against a 0-dim tensor, which broadcasts to any shape.
Tensor eq(const Tensor& a, float b) { return eq(a, full({}, b)); }
Tensor ne(const Tensor& a, float b) { return ne(a, full({}, b)); }
Tensor lt(const Tensor& a, float b) { return lt(a, full({}, b)); }
Tensor le(const Tensor& a, float b) { return le(a, full({}, b)); }
Tensor gt(const Tensor& a, float b) { return gt(a, full({}, b)); }
Tensor ge(const Tensor& a, float b) { return ge(a, full({}, b)); }

// y = |x|; dx += g * sign(x), with sign 0 at 0 and for NaN (the subgradient PyTorch picks).
Tensor abs(const Tensor& x) {
  OpCall op("abs", {x});
  Tensor y = empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
  for (int64_t i = 0; i < x.numel(); ++i) py[i] = std::fabs(px[i]);
  return op.finish(y, [](Node& y) {
    float* dx = y.input_grad(0);
    if (!dx) return;
    const float *g = y.grad.get(), *x = y.input_data(0);
    for (int64_t i = 0; i < y.numel; ++i) dx[i] += g[i] * static_cast<float>((x[i] > 0.0f) - (x[i] < 0.0f));
  });
}

bool allclose(const Tensor& a, const Tensor& b, float rtol, float atol, bool equal_nan) {
  check(rtol >= 0.0f && atol >= 0.0f, "allclose", "rtol and atol must be >= 0, got rtol ", rtol, ", atol ", atol);
  const Shape out = broadcast_shapes(a.shape(), b.shape(), "allclose");
  const float *pa = a.data(), *pb = b.data();
  bool all = true;
  for_each_pair(out, a.shape(), b.shape(), [&](int64_t, int64_t ia, int64_t ib) {
    const float u = pa[ia], v = pb[ib];
    // torch.isclose: equal values (equal infinities too) are close; otherwise the actual error
    // must be finite and within the allowed one, both in float32.
    const float actual = std::fabs(u - v), allowed = atol + std::fabs(rtol * v);
    const bool close = u == v || (std::isfinite(actual) && actual <= allowed) ||
                       (equal_nan && std::isnan(u) && std::isnan(v));
    all = all && close;
  });
  return all;
}

double accuracy(const Tensor& y_hat, const Tensor& y) {
  // As the book: argmax over dim 1 when y_hat has more than one column.
  const Tensor pred = y_hat.ndim() > 1 && y_hat.size(1) > 1 ? argmax(y_hat, 1) : y_hat;
  check(pred.shape() == y.shape(), "accuracy", "predictions ", pred.shape(), " (from y_hat ", y_hat.shape(),
        ") and labels ", y.shape(), " differ in shape");
  double correct = 0;
  for (int64_t i = 0; i < y.numel(); ++i) correct += pred.data()[i] == y.data()[i];
  return correct;
}

}  // namespace d2l
