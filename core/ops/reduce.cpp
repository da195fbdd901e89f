// core/ops/reduce.cpp — sum, mean, max (over everything or one dim) and argmax.
//
// A reduction over dim d of a row-major tensor views it as (outer, n, inner): outer is the
// product of the sizes before d, n the size of d, inner the product after. Output element
// (o, i) reduces x[o, 0..n-1, i] (the kernels in core/kernels/reduce.h).
#include <vector>

#include "core/autograd.h"
#include "core/kernels/reduce.h"
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

// max and argmax along `dim` of x, which must not be empty: the dim split out of x's shape, y
// in the reduced shape holding each maximum, and `where` each maximum's index along the dim.
struct MaxAlong {
  Split p;
  Tensor y;
  std::vector<int64_t> where;
};
MaxAlong max_along(const Tensor& x, int64_t dim, bool keepdim, const char* name) {
  const int64_t d = normalize_dim(dim, x.shape(), name);
  check(x.shape()[d] > 0, name, "cannot reduce an empty dim ", d, " of shape ", x.shape());
  MaxAlong r{split_at(x.shape(), d), empty(reduced_shape(x.shape(), d, keepdim)), {}};
  r.where.resize(static_cast<size_t>(r.y.numel()));
  kernels::max_forward(r.y.data(), r.where.data(), x.data(), r.p.outer, r.p.n, r.p.inner);
  return r;
}

// sum (scale 1) and mean (scale 1/n) share this: y = scale * Σ_j x[o, j, i]. Backward:
// each x[o, j, i] contributed once (times scale) to y[o, i].
Tensor sum_dim(const Tensor& x, int64_t dim, bool keepdim, bool average, const char* name) {
  OpCall op(name, {x});
  const int64_t d = normalize_dim(dim, x.shape(), name);
  const Split p = split_at(x.shape(), d);
  const float scale = average ? 1.0f / static_cast<float>(p.n) : 1.0f;
  Tensor y = empty(reduced_shape(x.shape(), d, keepdim));
  kernels::sum_forward(y.data(), x.data(), p.outer, p.n, p.inner, scale);
  op.save_for_backward();  // the backward reads only the gradient
  return op.finish(y, [p, scale](Node& node) {
    if (float* dx = node.input_grad(0)) kernels::sum_backward(dx, node.grad.get(), p.outer, p.n, p.inner, scale);
  });
}

}  // namespace

Tensor sum(const Tensor& x, int64_t dim, bool keepdim) { return sum_dim(x, dim, keepdim, false, "sum"); }
Tensor mean(const Tensor& x, int64_t dim, bool keepdim) { return sum_dim(x, dim, keepdim, true, "mean"); }

// Whole-tensor reductions: view x as one dim of numel elements, reduce it, shape (). A 1-D
// x is that view already, so its graph holds the one reduction (no reshape node).
static Tensor flat(const Tensor& x) { return x.ndim() == 1 ? x : reshape(x, {x.numel()}); }
Tensor sum(const Tensor& x) {
  OpScope scope("sum");  // names the op if x is undefined
  return sum_dim(flat(x), 0, false, false, "sum");
}
Tensor mean(const Tensor& x) {
  OpScope scope("mean");  // names the op if an input is undefined
  check(x.numel() > 0, "mean", "mean of an empty tensor, shape ", x.shape());
  return sum_dim(flat(x), 0, false, true, "mean");
}

// The first maximum wins ties (as torch.max on CPU) and a NaN propagates. Backward: only
// the maximum passed its value on, so only it gets the gradient.
Tensor max(const Tensor& x, int64_t dim, bool keepdim) {
  OpCall op("max", {x});
  MaxAlong r = max_along(x, dim, keepdim, "max");
  return op.finish(r.y, [p = r.p, where = std::move(r.where)](Node& node) {
    if (float* dx = node.input_grad(0)) kernels::max_backward(dx, node.grad.get(), where.data(), p.outer, p.n, p.inner);
  });
}

Tensor max(const Tensor& x) {
  OpScope scope("max");  // names the op if an input is undefined
  check(x.numel() > 0, "max", "max of an empty tensor, shape ", x.shape());
  return reshape(max(reshape(x, {x.numel()}), 0, false), {});
}

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  OpCall op("argmax", {x});
  MaxAlong r = max_along(x, dim, keepdim, "argmax");
  float* y = r.y.data();
  for (int64_t k = 0; k < r.y.numel(); ++k) y[k] = static_cast<float>(r.where[k]);  // the values' place
  return op.finish(r.y);  // indices: no gradient flows through them
}

}  // namespace d2l
