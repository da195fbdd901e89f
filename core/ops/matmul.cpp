// core/ops/matmul.cpp — matmul, bmm and linear, on the seam's matmul and linear kernels
// (core/kernels/seam.h).
//
// Legend: C = op(A) op(B) with op(A) (M, K) and op(B) (K, N); op(X) is X or Xᵀ as the
// trans flags say (a transposed operand is stored the other way round).
#include "core/autograd.h"
#include "core/kernels/matmul.h"
#include "core/ops.h"

namespace d2l {
namespace {

// One op for every product: C (batch, M, N) = op(A) op(B), the shapes already checked.
Tensor product(const char* name, const Tensor& a, const Tensor& b, bool ta, bool tb, int64_t batch, int64_t M,
               int64_t N, int64_t K, Shape out) {
  OpCall op(name, {a, b});
  Tensor y = empty(out);
  kernels::matmul_forward(y.data(), a.data(), b.data(), batch, M, N, K, ta, tb);
  op.save_for_backward(a, b);
  return op.finish(y, [ta, tb, batch, M, N, K](Node& node) {
    kernels::matmul_backward(node.input_grad(0), node.input_grad(1), node.grad.get(), node.input_data(0),
                             node.input_data(1), batch, M, N, K, ta, tb);
  });
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  OpScope scope("matmul");  // names the op if an input is undefined
  check(a.ndim() >= 2 && b.ndim() >= 2, "matmul", "needs at least 2-D operands: a ", a.shape(), " vs b ", b.shape());
  const int64_t K = a.shape().back();
  if (b.ndim() == 2) {
    // (..., n, k) x (k, m): the leading dims fold into the rows, M = prod(...) * n.
    check(b.shape()[0] == K, "matmul", "inner dims differ: a ", a.shape(), " vs b ", b.shape());
    Shape out = a.shape();
    out.back() = b.shape()[1];
    const int64_t M = numel_of(Shape(a.shape().begin(), a.shape().end() - 1));
    return product("matmul", a, b, false, false, 1, M, b.shape()[1], K, out);
  }
  check(a.ndim() == b.ndim() && Shape(a.shape().begin(), a.shape().end() - 2) == Shape(b.shape().begin(), b.shape().end() - 2),
        "matmul", "batch dims must match (no batch broadcasting): a ", a.shape(), " vs b ", b.shape());
  check(b.shape()[b.ndim() - 2] == K, "matmul", "inner dims differ: a ", a.shape(), " vs b ", b.shape());
  const int64_t M = a.shape()[a.ndim() - 2], N = b.shape().back();
  Shape out = a.shape();
  out.back() = N;
  return product("matmul", a, b, false, false, numel_of(Shape(a.shape().begin(), a.shape().end() - 2)), M, N, K, out);
}

Tensor bmm(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
  OpScope scope("bmm");  // names the op if an input is undefined
  check(a.ndim() == 3 && b.ndim() == 3, "bmm", "needs 3-D operands: a ", a.shape(), " vs b ", b.shape());
  check(a.shape()[0] == b.shape()[0], "bmm", "batch sizes differ: a ", a.shape(), " vs b ", b.shape());
  const int64_t M = trans_a ? a.shape()[2] : a.shape()[1], Ka = trans_a ? a.shape()[1] : a.shape()[2];
  const int64_t Kb = trans_b ? b.shape()[2] : b.shape()[1], N = trans_b ? b.shape()[1] : b.shape()[2];
  check(Ka == Kb, "bmm", "inner dims differ: a ", a.shape(), (trans_a ? "ᵀ" : ""), " vs b ", b.shape(),
        (trans_b ? "ᵀ" : ""));
  return product("bmm", a, b, trans_a, trans_b, a.shape()[0], M, N, Ka, {a.shape()[0], M, N});
}

// nn.Linear's y = x Wᵀ + b, with W (out_features, in_features) as PyTorch stores it.
// backward: dx += dy W;  dW += dyᵀ x;  db += Σ_rows dy.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  OpCall op("linear", {x, weight, bias});
  check(weight.ndim() == 2, "linear", "weight must be (out_features, in_features), got ", weight.shape());
  const int64_t N = weight.shape()[0], K = weight.shape()[1];
  check(x.ndim() >= 1 && x.shape().back() == K, "linear", "input ", x.shape(), " does not end in in_features of weight ",
        weight.shape());
  check(!bias.defined() || bias.shape() == Shape{N}, "linear", "bias ", printable_shape(bias),
        " must be (out_features,) for weight ", weight.shape());
  const int64_t M = numel_of(Shape(x.shape().begin(), x.shape().end() - 1));  // every leading dim
  Shape out = x.shape();
  out.back() = N;
  Tensor y = empty(out);
  kernels::linear_forward(y.data(), x.data(), weight.data(), bias.defined() ? bias.data() : nullptr, M, N, K);
  op.save_for_backward(x, weight);  // x and W; neither b nor y
  return op.finish(y, [M, N, K](Node& node) {
    kernels::linear_backward(node.input_grad(0), node.input_grad(1), node.input_grad(2), node.grad.get(),
                             node.input_data(0), node.input_data(1), M, N, K);
  });
}

}  // namespace d2l
