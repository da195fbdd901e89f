// core/ops/elementwise.cpp — + - * / with NumPy broadcasting, and the unary math ops
// (declared in core/ops.h). Each op: check, allocate, the forward kernel, then its backward recorded right under it.
// The math of every function and its derivative is in the kernels (core/kernels/elementwise.h):
// core/kernels/reference/elementwise.cpp writes each one out plainly.
#include <algorithm>
#include <utility>

#include "core/autograd.h"
#include "core/kernels/elementwise.h"

namespace d2l {

// --- broadcasting --------------------------------------------------------------------------
// NumPy rule: align shapes at the right; two sizes are compatible when equal or one is 1.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    check(da == db || da == 1 || db == 1, op, "shapes cannot be broadcast together: a ", a, " vs b ", b);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
// a op b with broadcasting. Backward: add: da += g, db += g;  sub: da += g, db -= g;
// mul: da += g b, db += g a;  div (y = a/b): da += g / b, db -= g a / b². An input that was
// broadcast receives the sum over every output it fed.
Tensor binary(const Tensor& a, const Tensor& b, kernels::Binary kind, const char* name) {
  OpCall op(name, {a, b});
  kernels::Broadcast shapes{broadcast_shapes(a.shape(), b.shape(), name), a.shape(), b.shape()};
  Tensor y = empty(shapes.out);
  kernels::binary_forward(y.data(), a.data(), b.data(), shapes, kind);
  // add and sub need only the gradient; mul and div read both inputs.
  if (kind == kernels::Binary::mul || kind == kernels::Binary::div) op.save_for_backward(a, b);
  else op.save_for_backward();
  // a + b with a of the output's shape: da = g, number for number (the residual
  // connections of 10.7).
  if (kind == kernels::Binary::add && shapes.a == shapes.out) op.gradient_is_identity(0);
  return op.finish(y, [kind](Node& node) {
    const kernels::Broadcast shapes{node.shape, node.input_shape(0), node.input_shape(1)};
    kernels::binary_backward(node.input_grad(0), node.input_grad(1), node.grad.get(), node.input_data(0),
                             node.input_data(1), shapes, kind);
  });
}

// y = f(x) element by element (s: the scalar of the scalar forms, or pow's exponent);
// backward dx += dy f'(x), the kernel computing f' from x and the output y, or from y alone,
// or from neither (kernels::derivative_reads): the op saves only what f' reads.
Tensor unary(const Tensor& x, kernels::Unary f, const char* name, float s = 0.0f) {
  OpCall op(name, {x});
  Tensor y = empty(x.shape());
  kernels::unary_forward(y.data(), x.data(), x.numel(), f, s);
  const kernels::DerivativeReads reads = kernels::derivative_reads(f);
  const bool needs_x = reads == kernels::DerivativeReads::input_and_output;
  const bool needs_y = reads != kernels::DerivativeReads::nothing;
  op.save_for_backward(needs_x ? x : Tensor(), needs_y ? y : Tensor());
  return op.finish(y, [f, s, needs_y](Node& node) {
    if (float* dx = node.input_grad(0))
      kernels::unary_backward(dx, node.grad.get(), node.input_data(0), needs_y ? node.data.get() : nullptr,
                              node.numel(), f, s);
  });
}
}  // namespace

using kernels::Binary;
using kernels::Unary;

Tensor add(const Tensor& a, const Tensor& b) { return binary(a, b, Binary::add, "add"); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(a, b, Binary::sub, "sub"); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(a, b, Binary::mul, "mul"); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(a, b, Binary::div, "div"); }

// The scalar forms: no broadcast bookkeeping, and the scalar needs no gradient.
Tensor add(const Tensor& a, float s) { return unary(a, Unary::add_scalar, "add_scalar", s); }
Tensor mul(const Tensor& a, float s) { return unary(a, Unary::mul_scalar, "mul_scalar", s); }
Tensor rsub(float s, const Tensor& a) { return unary(a, Unary::rsub_scalar, "rsub_scalar", s); }
Tensor rdiv(float s, const Tensor& a) { return unary(a, Unary::rdiv_scalar, "rdiv_scalar", s); }

Tensor neg(const Tensor& x) { return unary(x, Unary::neg, "neg"); }
Tensor exp(const Tensor& x) { return unary(x, Unary::exp, "exp"); }
Tensor log(const Tensor& x) { return unary(x, Unary::log, "log"); }
Tensor pow(const Tensor& x, float p) { return unary(x, Unary::pow, "pow", p); }
Tensor sqrt(const Tensor& x) { return unary(x, Unary::sqrt, "sqrt"); }
Tensor tanh(const Tensor& x) { return unary(x, Unary::tanh, "tanh"); }
Tensor sigmoid(const Tensor& x) { return unary(x, Unary::sigmoid, "sigmoid"); }  // 1 / (1 + e^{-x})
Tensor relu(const Tensor& x) { return unary(x, Unary::relu, "relu"); }  // derivative 0 at x = 0, as PyTorch
Tensor sin(const Tensor& x) { return unary(x, Unary::sin, "sin"); }
Tensor cos(const Tensor& x) { return unary(x, Unary::cos, "cos"); }
Tensor abs(const Tensor& x) { return unary(x, Unary::abs, "abs"); }  // sign(x) as the derivative, 0 at 0

}  // namespace d2l
