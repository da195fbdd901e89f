// core/ops_matmul.cpp — matmul, bmm and linear: every product goes through one GEMM kernel
// (core/kernels/gemm.h), forward and backward.
//
// Legend: C = op(A) op(B) with op(A) (M, K) and op(B) (K, N); op(X) is X or Xᵀ as the
// trans flags say (a transposed operand is stored the other way round).
#include "core/autograd.h"
#include "core/kernels/gemm.h"
#include "core/ops.h"
#include "core/parallel.h"

#include <algorithm>

namespace d2l {
namespace {

// Backward of C = op(A) op(B), from the two rules
//   d op(A) = dC op(B)ᵀ   (M, N)(N, K)        d op(B) = op(A)ᵀ dC   (K, M)(M, N)
// When A itself is stored transposed, dA = (d op(A))ᵀ = op(B) dCᵀ, and likewise for B;
// each case is one more GEMM with the right flags, accumulating into the gradient.
void matmul_backward(bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, const float* A,
                     const float* B, const float* dC, float* dA, float* dB) {
  if (dA) {
    if (!ta) gemm_batched(false, !tb, batch, M, K, N, dC, B, dA, true);  // dA = dC op(B)ᵀ
    else gemm_batched(tb, true, batch, K, M, N, B, dC, dA, true);        // dA = op(B) dCᵀ
  }
  if (dB) {
    if (!tb) gemm_batched(!ta, false, batch, K, N, M, A, dC, dB, true);  // dB = op(A)ᵀ dC
    else gemm_batched(true, ta, batch, N, K, M, dC, A, dB, true);        // dB = dCᵀ op(A)
  }
}

Tensor product(const char* name, const Tensor& a, const Tensor& b, bool ta, bool tb, int64_t batch, int64_t M,
               int64_t N, int64_t K, Shape out) {
  OpCall op(name, {a, b});
  Tensor y = empty(out);
  gemm_batched(ta, tb, batch, M, N, K, a.data(), b.data(), y.data(), false);
  return op.finish(y, [ta, tb, batch, M, N, K](Node& y) {
    matmul_backward(ta, tb, batch, M, N, K, y.input_data(0), y.input_data(1), y.grad.get(), y.input_grad(0),
                    y.input_grad(1));
  });
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
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
  check(a.ndim() == 3 && b.ndim() == 3, "bmm", "needs 3-D operands: a ", a.shape(), " vs b ", b.shape());
  check(a.shape()[0] == b.shape()[0], "bmm", "batch sizes differ: a ", a.shape(), " vs b ", b.shape());
  const int64_t M = trans_a ? a.shape()[2] : a.shape()[1], Ka = trans_a ? a.shape()[1] : a.shape()[2];
  const int64_t Kb = trans_b ? b.shape()[2] : b.shape()[1], N = trans_b ? b.shape()[1] : b.shape()[2];
  check(Ka == Kb, "bmm", "inner dims differ: a ", a.shape(), (trans_a ? "ᵀ" : ""), " vs b ", b.shape(),
        (trans_b ? "ᵀ" : ""));
  return product("bmm", a, b, trans_a, trans_b, a.shape()[0], M, N, Ka, {a.shape()[0], M, N});
}

// y = x Wᵀ + b. forward: one GEMM reading W (out, in) transposed, then the bias per row.
// backward: dx += dy W;  dW += dyᵀ x;  db += Σ_rows dy.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  OpCall op("linear", {x, weight, bias});
  check(weight.ndim() == 2, "linear", "weight must be (out_features, in_features), got ", weight.shape());
  const int64_t out_f = weight.shape()[0], in_f = weight.shape()[1];
  check(x.ndim() >= 1 && x.shape().back() == in_f, "linear", "input ", x.shape(), " does not end in in_features of weight ",
        weight.shape());
  check(!bias.defined() || bias.shape() == Shape{out_f}, "linear", "bias ", bias.defined() ? bias.shape() : Shape{},
        " must be (out_features,) for weight ", weight.shape());
  const int64_t M = numel_of(Shape(x.shape().begin(), x.shape().end() - 1));
  Shape out = x.shape();
  out.back() = out_f;
  Tensor y = empty(out);
  gemm(false, true, M, out_f, in_f, x.data(), weight.data(), y.data(), false);
  if (bias.defined()) {
    float* py = y.data();
    const float* pb = bias.data();
#pragma omp parallel for if (M * out_f >= kParallelMin)
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < out_f; ++j) py[r * out_f + j] += pb[j];
  }
  return op.finish(y, [M, out_f, in_f](Node& y) {
    const float* g = y.grad.get();
    if (float* dx = y.input_grad(0)) gemm(false, false, M, in_f, out_f, g, y.input_data(1), dx, true);
    if (float* dw = y.input_grad(1)) gemm(true, false, out_f, in_f, M, g, y.input_data(0), dw, true);
    if (float* db = y.input_grad(2)) {
      // Columns split over threads, rows summed in order within each: deterministic.
      constexpr int64_t kCols = 16;
#pragma omp parallel for if (M * out_f >= kParallelMin)
      for (int64_t j0 = 0; j0 < out_f; j0 += kCols) {
        const int64_t j1 = std::min(out_f, j0 + kCols);
        float acc[kCols] = {};
        for (int64_t r = 0; r < M; ++r)
          for (int64_t j = j0; j < j1; ++j) acc[j - j0] += g[r * out_f + j];
        for (int64_t j = j0; j < j1; ++j) db[j] += acc[j - j0];
      }
    }
  });
}

}  // namespace d2l
