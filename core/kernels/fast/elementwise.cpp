// core/kernels/fast/elementwise.cpp — the element-wise kernels with loops the compiler vectorises:
// each function and each broadcast pattern gets its own instantiated loop (no switch per
// element), tanh and sigmoid use fast_exp, and big tensors are shared among threads.
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/kernels/fast/fast_exp.h"
#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace {

// y = f(x) and dx += dy f'(x, y), each in one loop specialised for its function.
template <class F>
void map(float* y, const float* x, int64_t n, F f) {
  parallel_for(n, n >= kParallelMin, [&](int64_t i) { y[i] = f(x[i]); });
}
template <class D>
void map_grad(float* dx, const float* dy, const float* x, const float* y, int64_t n, D df) {
  parallel_for(n, n >= kParallelMin, [&](int64_t i) { dx[i] += dy[i] * df(x[i], y[i]); });
}

// --- broadcasting --------------------------------------------------------------------------
// Strides of `in` read in the rank of `out`, 0 along broadcast dims: element out[i0..]
// reads in[sum i_d * stride_d].
Shape broadcast_strides(const Shape& in, const Shape& out) {
  Shape st(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t d = out.size() - 1 - k, di = in.size() - 1 - k;
    st[d] = in[di] == 1 ? 0 : s;
    s *= in[di];
  }
  return st;
}

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Calls f(i, ia, ib) for the output elements i of the dim-0 slabs [lo, hi) of `out` (slab i0:
// the `slab` elements whose first index is i0; a rank-1 out is one slab of all of them), in
// order, with the flat indices of the a and b elements each reads (sa, sb: broadcast_strides).
// An odometer over the outer dims; the last dim is the inner loop, instantiated for the
// common stride pairs (1,1), (1,0), (0,1) so that it vectorises.
template <class F>
void walk_broadcast(const Shape& out, const Shape& sa, const Shape& sb, int64_t slab, int64_t lo, int64_t hi, F f) {
  const size_t nd = out.size();
  const int64_t inner = out[nd - 1], ia_step = sa[nd - 1], ib_step = sb[nd - 1];
  using One = std::integral_constant<int64_t, 1>;
  using Zero = std::integral_constant<int64_t, 0>;
  Shape idx(nd, 0);
  idx[0] = lo;
  int64_t ia = lo * sa[0], ib = lo * sb[0];
  for (int64_t i = lo * slab; i < hi * slab; i += inner) {
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

// Every output element in order, as walk_broadcast. `split` (0: a, 1: b, -1: neither)
// names the input whose elements f may write (a gradient): large outputs are then shared
// among the threads by dim-0 slabs only when that input is not broadcast along dim 0, so
// that each of its elements is written by one slab's walk alone, its terms added in the
// serial walk's order (the bits do not depend on the threads).
template <class F>
void for_each_broadcast(const Shape& out, const Shape& as, const Shape& bs, F f, int split = -1) {
  const int64_t n = numel(out);
  if (n == 0) return;
  if (out.empty()) { f(0, 0, 0); return; }
  const auto sa = broadcast_strides(as, out), sb = broadcast_strides(bs, out);
  const int64_t slabs = out.size() > 1 ? out[0] : 1;
  const bool own_slabs = split < 0 || (split == 0 ? sa[0] : sb[0]) != 0;
  const int64_t slab = n / slabs;
  if (n < kParallelMin || slabs < 2 || !own_slabs) return walk_broadcast(out, sa, sb, slab, 0, slabs, f);
  TeamJoin join;
#pragma omp parallel
  {
    int64_t lo, hi;
    team_share(slabs, &lo, &hi);
    if (lo < hi) walk_broadcast(out, sa, sb, slab, lo, hi, f);
    join.arrive_and_spin(1);
  }
}

// The op is a template parameter, so each op's loops are compiled (and vectorised) for
// its own arithmetic instead of switching per element.
template <Binary K>
void binary_forward_t(float* y, const float* a, const float* b, const Broadcast& s) {
  auto apply = [](float x, float z) {
    if constexpr (K == Binary::add) return x + z;
    if constexpr (K == Binary::sub) return x - z;
    if constexpr (K == Binary::mul) return x * z;
    if constexpr (K == Binary::div) return x / z;
  };
  if (s.a == s.out && s.b == s.out) {
    const int64_t n = numel(s.out);
    parallel_for(n, n >= kParallelMin, [&](int64_t i) { y[i] = apply(a[i], b[i]); });
  } else {
    for_each_broadcast(s.out, s.a, s.b, [&](int64_t i, int64_t ia, int64_t ib) { y[i] = apply(a[ia], b[ib]); });
  }
}

// With broadcasting one input element feeds many outputs, so its gradient is the sum over
// them: writing `da[ia] += ...` while walking the outputs sums them in the same loop, in the
// walk's order (for_each_broadcast shares the walk among threads only where that order
// stays). One pass per input, each branch-free.
template <Binary K>
void binary_backward_t(float* da, float* db, const float* g, const float* a, const float* b, const Broadcast& s) {
  auto grad_a = [&](int64_t i, int64_t ia, int64_t ib) {
    if constexpr (K == Binary::add || K == Binary::sub) da[ia] += g[i];
    if constexpr (K == Binary::mul) da[ia] += g[i] * b[ib];
    if constexpr (K == Binary::div) da[ia] += g[i] / b[ib];
  };
  auto grad_b = [&](int64_t i, int64_t ia, int64_t ib) {
    if constexpr (K == Binary::add) db[ib] += g[i];
    if constexpr (K == Binary::sub) db[ib] -= g[i];
    if constexpr (K == Binary::mul) db[ib] += g[i] * a[ia];
    if constexpr (K == Binary::div) db[ib] -= g[i] * a[ia] / (b[ib] * b[ib]);
  };
  if (s.a == s.out && s.b == s.out) {
    const int64_t n = numel(s.out);
    if (da) parallel_for(n, n >= kParallelMin, [&](int64_t i) { grad_a(i, i, i); });
    if (db) parallel_for(n, n >= kParallelMin, [&](int64_t i) { grad_b(i, i, i); });
  } else {
    if (da) for_each_broadcast(s.out, s.a, s.b, grad_a, 0);
    if (db) for_each_broadcast(s.out, s.a, s.b, grad_b, 1);
  }
}

}  // namespace

void unary_forward(float* y, const float* x, int64_t n, Unary f, float s) {
  switch (f) {
    case Unary::add_scalar: return map(y, x, n, [s](float v) { return v + s; });
    case Unary::mul_scalar: return map(y, x, n, [s](float v) { return v * s; });
    case Unary::rsub_scalar: return map(y, x, n, [s](float v) { return s - v; });
    case Unary::rdiv_scalar: return map(y, x, n, [s](float v) { return s / v; });
    case Unary::neg: return map(y, x, n, [](float v) { return -v; });
    case Unary::exp: return map(y, x, n, [](float v) { return std::exp(v); });
    case Unary::log: return map(y, x, n, [](float v) { return std::log(v); });
    case Unary::pow: return map(y, x, n, [s](float v) { return std::pow(v, s); });
    case Unary::sqrt: return map(y, x, n, [](float v) { return std::sqrt(v); });
    // tanh(x) = 1 − 2 / (e^{2x} + 1) with the vectorisable fast_exp (std::tanh is a library
    // call per element: a quarter of a Bahdanau training step went there). Absolute error
    // ≈ 1e-7; the form saturates cleanly to ±1 for large |x|.
    case Unary::tanh: return map(y, x, n, [](float v) { return 1.0f - 2.0f / (fast_exp(2.0f * v) + 1.0f); });
    // 1 / (1 + e^{-x}) with fast_exp: e^{-x} overflows to inf for x < -88, giving 0.
    case Unary::sigmoid: return map(y, x, n, [](float v) { return 1.0f / (1.0f + fast_exp(-v)); });
    // NaN stays NaN, as in PyTorch and the reference tier (still one compare-and-blend).
    case Unary::relu: return map(y, x, n, [](float v) { return v > 0 || v != v ? v : 0.0f; });
    case Unary::sin: return map(y, x, n, [](float v) { return std::sin(v); });
    case Unary::cos: return map(y, x, n, [](float v) { return std::cos(v); });
    case Unary::abs: return map(y, x, n, [](float v) { return std::fabs(v); });
  }
}

void unary_backward(float* dx, const float* dy, const float* x, const float* y, int64_t n, Unary f, float s) {
  // A null x or y is one f' does not read (derivative_reads): dy, n readable floats, stands in.
  if (!x) x = dy;
  if (!y) y = dy;
  switch (f) {
    case Unary::add_scalar: return map_grad(dx, dy, x, y, n, [](float, float) { return 1.0f; });
    case Unary::mul_scalar: return map_grad(dx, dy, x, y, n, [s](float, float) { return s; });
    case Unary::rsub_scalar: return map_grad(dx, dy, x, y, n, [](float, float) { return -1.0f; });
    case Unary::rdiv_scalar: return map_grad(dx, dy, x, y, n, [](float v, float out) { return -out / v; });
    case Unary::neg: return map_grad(dx, dy, x, y, n, [](float, float) { return -1.0f; });
    case Unary::exp: return map_grad(dx, dy, x, y, n, [](float, float out) { return out; });
    case Unary::log: return map_grad(dx, dy, x, y, n, [](float v, float) { return 1.0f / v; });
    case Unary::pow: return map_grad(dx, dy, x, y, n, [s](float v, float) { return s * std::pow(v, s - 1.0f); });
    case Unary::sqrt: return map_grad(dx, dy, x, y, n, [](float, float out) { return 0.5f / out; });
    case Unary::tanh:  // 1 − y² rounded once (1 − y·y rounded twice cancels near |y| = 1): a fused
#ifdef __FMA__           // multiply-add, as -O3 makes of 1 − y·y, at every optimisation level
      return map_grad(dx, dy, x, y, n, [](float, float out) { return std::fma(-out, out, 1.0f); });
#else                    // the reference's (1 − y)(1 + y)
      return map_grad(dx, dy, x, y, n, [](float, float out) { return (1.0f - out) * (1.0f + out); });
#endif
    case Unary::sigmoid: return map_grad(dx, dy, x, y, n, [](float, float out) { return out * (1.0f - out); });
    case Unary::relu: return map_grad(dx, dy, x, y, n, [](float, float out) { return out > 0 ? 1.0f : 0.0f; });
    case Unary::sin: return map_grad(dx, dy, x, y, n, [](float v, float) { return std::cos(v); });
    case Unary::cos: return map_grad(dx, dy, x, y, n, [](float v, float) { return -std::sin(v); });
    case Unary::abs: return map_grad(dx, dy, x, y, n, [](float v, float) { return static_cast<float>((v > 0.0f) - (v < 0.0f)); });
  }
}

void binary_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Binary op) {
  switch (op) {
    case Binary::add: return binary_forward_t<Binary::add>(y, a, b, shapes);
    case Binary::sub: return binary_forward_t<Binary::sub>(y, a, b, shapes);
    case Binary::mul: return binary_forward_t<Binary::mul>(y, a, b, shapes);
    case Binary::div: return binary_forward_t<Binary::div>(y, a, b, shapes);
  }
}

void binary_backward(float* da, float* db, const float* dy, const float* a, const float* b, const Broadcast& shapes,
                     Binary op) {
  switch (op) {
    case Binary::add: return binary_backward_t<Binary::add>(da, db, dy, a, b, shapes);
    case Binary::sub: return binary_backward_t<Binary::sub>(da, db, dy, a, b, shapes);
    case Binary::mul: return binary_backward_t<Binary::mul>(da, db, dy, a, b, shapes);
    case Binary::div: return binary_backward_t<Binary::div>(da, db, dy, a, b, shapes);
  }
}

// Comparisons check a training loop's numbers and sit on no model's hot path: the plain
// loops of core/kernels/reference/elementwise.cpp.
void compare_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Compare op) {
  reference::compare_forward(y, a, b, shapes, op);
}
void isclose_forward(float* y, const float* a, const float* b, const Broadcast& shapes, float rtol, float atol,
                     bool equal_nan) {
  reference::isclose_forward(y, a, b, shapes, rtol, atol, equal_nan);
}

}  // namespace fast
}  // namespace d2l
