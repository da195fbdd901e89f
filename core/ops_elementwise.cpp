// core/ops_elementwise.cpp — + - * / with NumPy broadcasting, and the unary math ops.
//
// Each op: check, allocate, forward loop, then its backward recorded right under it.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/autograd.h"
#include "core/kernels/fast_exp.h"
#include "core/ops.h"
#include "core/parallel.h"

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

// Strides of `in` read in the rank of `out`, 0 along broadcast dims: element out[i0..]
// reads in[sum i_d * stride_d].
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t d = out.size() - 1 - k, di = in.size() - 1 - k;
    st[d] = in[di] == 1 ? 0 : s;
    s *= in[di];
  }
  return st;
}

// Calls f(i, ia, ib) for every output element i, in order, with the flat indices of the
// a and b elements it reads. An odometer over the outer dims; the last dim is the inner
// loop, instantiated for the common stride pairs (1,1), (1,0), (0,1) so that it vectorises.
template <class F>
void for_each_broadcast(const Shape& out, const Shape& as, const Shape& bs, F f) {
  const int64_t n = numel_of(out);
  if (n == 0) return;
  if (out.empty()) { f(0, 0, 0); return; }
  const auto sa = broadcast_strides(as, out), sb = broadcast_strides(bs, out);
  const size_t nd = out.size();
  const int64_t inner = out[nd - 1], ia_step = sa[nd - 1], ib_step = sb[nd - 1];
  using One = std::integral_constant<int64_t, 1>;
  using Zero = std::integral_constant<int64_t, 0>;
  std::vector<int64_t> idx(nd, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; i += inner) {
    auto row = [&](auto step_a, auto step_b) {
      for (int64_t j = 0; j < inner; ++j) f(i + j, ia + j * step_a, ib + j * step_b);
    };
    if (ia_step == 1 && ib_step == 1) row(One{}, One{});
    else if (ia_step == 1 && ib_step == 0) row(One{}, Zero{});
    else if (ia_step == 0 && ib_step == 1) row(Zero{}, One{});
    else row(ia_step, ib_step);
    for (size_t d = nd - 1; d-- > 0;) {  // advance the odometer over dims nd-2 .. 0
      ++idx[d];
      ia += sa[d];
      ib += sb[d];
      if (idx[d] < out[d]) break;
      ia -= sa[d] * out[d];
      ib -= sb[d] * out[d];
      idx[d] = 0;
    }
  }
}

enum class BinOp { add, sub, mul, div };

// The kind is a template parameter, so each op's loops are compiled (and vectorised) for
// its own arithmetic instead of switching per element.
template <BinOp K>
Tensor binary(const Tensor& a, const Tensor& b, const char* name) {
  OpCall op(name, {a, b});
  const Shape out = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor y = empty(out);
  float* py = y.data();
  const float *pa = a.data(), *pb = b.data();
  const int64_t n = y.numel();
  const bool same = a.shape() == out && b.shape() == out;
  auto apply = [](float x, float z) {
    if constexpr (K == BinOp::add) return x + z;
    if constexpr (K == BinOp::sub) return x - z;
    if constexpr (K == BinOp::mul) return x * z;
    if constexpr (K == BinOp::div) return x / z;
  };
  if (same) {
#pragma omp parallel for if (n >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) py[i] = apply(pa[i], pb[i]);
  } else {
    for_each_broadcast(out, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) { py[i] = apply(pa[ia], pb[ib]); });
  }
  // Backward. With broadcasting one input element feeds many outputs, so its gradient is
  // the sum over them: writing `da[ia] += ...` while walking the outputs is sum_to fused
  // into the loop (serial, so every sum runs in a fixed order).
  //   add: da += g, db += g    sub: da += g, db -= g
  //   mul: da += g*b, db += g*a    div (y = a/b): da += g/b, db -= g*a/b²
  return op.finish(y, [out, same](Node& y) {
    float* da = y.input_grad(0);
    float* db = y.input_grad(1);
    const float *g = y.grad.get(), *a = y.input_data(0), *b = y.input_data(1);
    // One pass per input, so each loop body is branch-free.
    auto grad_a = [&](int64_t i, int64_t ia, int64_t ib) {
      if constexpr (K == BinOp::add || K == BinOp::sub) da[ia] += g[i];
      if constexpr (K == BinOp::mul) da[ia] += g[i] * b[ib];
      if constexpr (K == BinOp::div) da[ia] += g[i] / b[ib];
    };
    auto grad_b = [&](int64_t i, int64_t ia, int64_t ib) {
      if constexpr (K == BinOp::add) db[ib] += g[i];
      if constexpr (K == BinOp::sub) db[ib] -= g[i];
      if constexpr (K == BinOp::mul) db[ib] += g[i] * a[ia];
      if constexpr (K == BinOp::div) db[ib] -= g[i] * a[ia] / (b[ib] * b[ib]);
    };
    const int64_t n = y.numel;
    if (same) {
      if (da) {
#pragma omp parallel for if (n >= kParallelMin)
        for (int64_t i = 0; i < n; ++i) grad_a(i, i, i);
      }
      if (db) {
#pragma omp parallel for if (n >= kParallelMin)
        for (int64_t i = 0; i < n; ++i) grad_b(i, i, i);
      }
    } else {
      if (da) for_each_broadcast(out, y.input_shape(0), y.input_shape(1), grad_a);
      if (db) for_each_broadcast(out, y.input_shape(0), y.input_shape(1), grad_b);
    }
  });
}

// One element-wise unary op: y = f(x), dx += g * f'(x, y) (derivatives may use the output).
template <class F, class D>
Tensor unary(const Tensor& x, const char* name, F f, D dfdx) {
  OpCall op(name, {x});
  Tensor y = empty(x.shape());
  const float* px = x.data();
  float* py = y.data();
  const int64_t n = x.numel();
#pragma omp parallel for if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) py[i] = f(px[i]);
  return op.finish(y, [dfdx](Node& y) {
    float* dx = y.input_grad(0);
    if (!dx) return;
    const float *g = y.grad.get(), *x = y.input_data(0), *out = y.data.get();
    const int64_t n = y.numel;
#pragma omp parallel for if (n >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) dx[i] += g[i] * dfdx(x[i], out[i]);
  });
}

}  // namespace

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  OpCall op("sum_to", {grad});
  const Shape out = broadcast_shapes(shape, grad.shape(), "sum_to");
  check(out == grad.shape(), "sum_to", "shape ", shape, " does not broadcast to gradient shape ", grad.shape());
  Tensor y = zeros(shape);
  float* py = y.data();
  const float* pg = grad.data();
  for_each_broadcast(out, shape, out, [&](int64_t i, int64_t iy, int64_t) { py[iy] += pg[i]; });
  // Backward of a sum over broadcast dims: every summed element gets the same gradient.
  return op.finish(y, [out](Node& y) {
    float* dg = y.input_grad(0);
    if (!dg) return;
    const float* g = y.grad.get();
    for_each_broadcast(out, y.shape, out, [&](int64_t i, int64_t iy, int64_t) { dg[i] += g[iy]; });
  });
}

Tensor add(const Tensor& a, const Tensor& b) { return binary<BinOp::add>(a, b, "add"); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary<BinOp::sub>(a, b, "sub"); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary<BinOp::mul>(a, b, "mul"); }
Tensor div(const Tensor& a, const Tensor& b) { return binary<BinOp::div>(a, b, "div"); }

// Scalar forms: no broadcast bookkeeping, the scalar needs no gradient.
Tensor add(const Tensor& a, float s) {
  return unary(a, "add_scalar", [s](float x) { return x + s; }, [](float, float) { return 1.0f; });
}
Tensor mul(const Tensor& a, float s) {
  return unary(a, "mul_scalar", [s](float x) { return x * s; }, [s](float, float) { return s; });
}
Tensor rsub(float s, const Tensor& a) {
  return unary(a, "rsub_scalar", [s](float x) { return s - x; }, [](float, float) { return -1.0f; });
}
// y = s / x, dy/dx = -s / x² = -y / x.
Tensor rdiv(float s, const Tensor& a) {
  return unary(a, "rdiv_scalar", [s](float x) { return s / x; }, [](float x, float y) { return -y / x; });
}

Tensor neg(const Tensor& x) {
  return unary(x, "neg", [](float v) { return -v; }, [](float, float) { return -1.0f; });
}
// d exp(x) = exp(x): the saved output is the derivative.
Tensor exp(const Tensor& x) {
  return unary(x, "exp", [](float v) { return std::exp(v); }, [](float, float y) { return y; });
}
Tensor log(const Tensor& x) {
  return unary(x, "log", [](float v) { return std::log(v); }, [](float v, float) { return 1.0f / v; });
}
Tensor pow(const Tensor& x, float p) {
  return unary(x, "pow", [p](float v) { return std::pow(v, p); },
               [p](float v, float) { return p * std::pow(v, p - 1.0f); });
}
// d sqrt(x) = 1 / (2 sqrt(x)).
Tensor sqrt(const Tensor& x) {
  return unary(x, "sqrt", [](float v) { return std::sqrt(v); }, [](float, float y) { return 0.5f / y; });
}
// d tanh(x) = 1 - tanh²(x).
Tensor tanh(const Tensor& x) {
  // tanh(x) = 1 − 2 / (e^{2x} + 1) with the vectorisable fast_exp (std::tanh is a library
  // call per element: a quarter of a Bahdanau training step went there). Absolute error
  // ≈ 1e-7; the form saturates cleanly to ±1 for large |x|.
  return unary(x, "tanh", [](float v) { return 1.0f - 2.0f / (fast_exp(2.0f * v) + 1.0f); },
               [](float, float y) { return 1.0f - y * y; });
}
// σ(x) = 1 / (1 + e^-x), computed without overflow for large |x|; dσ = σ (1 - σ).
Tensor sigmoid(const Tensor& x) {
  return unary(
      x, "sigmoid",
      // 1 / (1 + e^{-x}) with fast_exp: e^{-x} overflows to inf for x < -88, giving 0.
      [](float v) { return 1.0f / (1.0f + fast_exp(-v)); },
      [](float, float y) { return y * (1.0f - y); });
}
// ReLU's derivative at exactly 0 is taken as 0, as PyTorch does.
Tensor relu(const Tensor& x) {
  return unary(x, "relu", [](float v) { return v > 0 ? v : 0.0f; }, [](float v, float) { return v > 0 ? 1.0f : 0.0f; });
}
Tensor sin(const Tensor& x) {
  return unary(x, "sin", [](float v) { return std::sin(v); }, [](float v, float) { return std::cos(v); });
}
Tensor cos(const Tensor& x) {
  return unary(x, "cos", [](float v) { return std::cos(v); }, [](float v, float) { return -std::sin(v); });
}

}  // namespace d2l
