// core/ops/compare.cpp — the checks a training loop runs on its numbers: comparisons giving
// 0/1 tensors, isclose and allclose, and the book's accuracy. The loops are the kernels'
// (core/kernels/elementwise.h: compare_forward, isclose_forward); allclose and accuracy reduce their
// results with the ordinary ops.
#include "core/autograd.h"
#include "core/kernels/elementwise.h"
#include "core/ops.h"

namespace d2l {
namespace {

using kernels::Compare;

Tensor compare(const Tensor& a, const Tensor& b, Compare kind, const char* name) {
  OpCall op(name, {a, b});
  const kernels::Broadcast shapes{broadcast_shapes(a.shape(), b.shape(), name), a.shape(), b.shape()};
  Tensor y = empty(shapes.out);
  kernels::compare_forward(y.data(), a.data(), b.data(), shapes, kind);
  return op.finish(y);  // a step function: no gradient, the result is not in the graph
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return compare(a, b, Compare::eq, "eq"); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare(a, b, Compare::ne, "ne"); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare(a, b, Compare::lt, "lt"); }
Tensor le(const Tensor& a, const Tensor& b) { return compare(a, b, Compare::le, "le"); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare(a, b, Compare::gt, "gt"); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare(a, b, Compare::ge, "ge"); }
// The scalar forms compare against a 0-dim tensor, which broadcasts to any shape.
Tensor eq(const Tensor& a, float b) { return eq(a, full({}, b)); }
Tensor ne(const Tensor& a, float b) { return ne(a, full({}, b)); }
Tensor lt(const Tensor& a, float b) { return lt(a, full({}, b)); }
Tensor le(const Tensor& a, float b) { return le(a, full({}, b)); }
Tensor gt(const Tensor& a, float b) { return gt(a, full({}, b)); }
Tensor ge(const Tensor& a, float b) { return ge(a, full({}, b)); }

Tensor isclose(const Tensor& a, const Tensor& b, float rtol, float atol, bool equal_nan) {
  OpCall op("isclose", {a, b});
  check(rtol >= 0.0f && atol >= 0.0f, "isclose", "rtol and atol must be >= 0, got rtol ", rtol, ", atol ", atol);
  const kernels::Broadcast shapes{broadcast_shapes(a.shape(), b.shape(), "isclose"), a.shape(), b.shape()};
  Tensor y = empty(shapes.out);
  kernels::isclose_forward(y.data(), a.data(), b.data(), shapes, rtol, atol, equal_nan);
  return op.finish(y);  // 0/1, no gradient
}

bool allclose(const Tensor& a, const Tensor& b, float rtol, float atol, bool equal_nan) {
  OpScope scope("allclose");  // names the op if an input is undefined
  // Checked here too, so a bad call names allclose.
  check(rtol >= 0.0f && atol >= 0.0f, "allclose", "rtol and atol must be >= 0, got rtol ", rtol, ", atol ", atol);
  broadcast_shapes(a.shape(), b.shape(), "allclose");
  NoGrad no_grad;
  const Tensor close = isclose(a, b, rtol, atol, equal_nan);
  // Every element close: no 0 in `close`. max(1 - close) == 0 says so at any size (a float
  // sum of the ones would stop counting at 2^24).
  return close.numel() == 0 || max(rsub(1.0f, close)).item() == 0.0f;
}

double accuracy(const Tensor& y_hat, const Tensor& y) {
  OpScope scope("accuracy");
  NoGrad no_grad;
  // As the book: argmax over dim 1 when y_hat has more than one column.
  const Tensor pred = y_hat.ndim() > 1 && y_hat.size(1) > 1 ? argmax(y_hat, 1) : y_hat;
  check(pred.shape() == y.shape(), "accuracy", "predictions ", pred.shape(), " (from y_hat ", y_hat.shape(),
        ") and labels ", y.shape(), " differ in shape");
  // The book's float(cmp.sum()): exact while the count stays below 2^24.
  return y.numel() == 0 ? 0.0 : static_cast<double>(sum(eq(pred, y)).item());
}

}  // namespace d2l
