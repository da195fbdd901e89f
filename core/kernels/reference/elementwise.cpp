// core/kernels/reference/elementwise.cpp — the element-wise kernels as plain loops: the unary math
// functions with their derivatives, the four broadcasting binary ops and the comparisons.
#include <cmath>

#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {
namespace {

float unary_value(Unary f, float x, float s) {
  switch (f) {
    case Unary::add_scalar: return x + s;
    case Unary::mul_scalar: return x * s;
    case Unary::rsub_scalar: return s - x;
    case Unary::rdiv_scalar: return s / x;
    case Unary::neg: return -x;
    case Unary::exp: return std::exp(x);
    case Unary::log: return std::log(x);
    case Unary::pow: return std::pow(x, s);
    case Unary::sqrt: return std::sqrt(x);
    case Unary::tanh: return tanh_float(x);
    case Unary::sigmoid: return 1.0f / (1.0f + std::exp(-x));  // e^{-x} = inf for x < -88: gives 0
    // NaN stays NaN (PyTorch's relu): `x > 0 ? x : 0` turned a poisoned value into a clean 0.
    case Unary::relu: return x > 0 || std::isnan(x) ? x : 0.0f;
    case Unary::sin: return std::sin(x);
    case Unary::cos: return std::cos(x);
    case Unary::abs: return std::fabs(x);
  }
  return 0.0f;
}

// f'(x), written with the output y = f(x) where that is simpler.
float unary_derivative(Unary f, float x, float y, float s) {
  switch (f) {
    case Unary::add_scalar: return 1.0f;
    case Unary::mul_scalar: return s;
    case Unary::rsub_scalar: return -1.0f;
    case Unary::rdiv_scalar: return -y / x;  // d(s/x) = -s/x² = -y/x
    case Unary::neg: return -1.0f;
    case Unary::exp: return y;
    case Unary::log: return 1.0f / x;
    case Unary::pow: return s * std::pow(x, s - 1.0f);
    case Unary::sqrt: return 0.5f / y;
    case Unary::tanh: return (1.0f - y) * (1.0f + y);  // 1 − y², without 1 − y·y's cancellation near |y| = 1
    case Unary::sigmoid: return y * (1.0f - y);
    case Unary::relu: return y > 0 ? 1.0f : 0.0f;  // 0 at x = 0, as PyTorch; y > 0 exactly when x > 0
    case Unary::sin: return std::cos(x);
    case Unary::cos: return -std::sin(x);
    case Unary::abs: return static_cast<float>((x > 0.0f) - (x < 0.0f));  // sign(x): 0 at 0 and for NaN
  }
  return 0.0f;
}

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Output element i (of shape `out`) reads element source_index(i, out, in) of an input of
// shape `in`: i's position in each dim, from the last, where `in` has a dim of the same
// size; a dim of size 1, or one `in` lacks, contributes nothing (the element repeats).
int64_t source_index(int64_t i, const Shape& out, const Shape& in) {
  int64_t index = 0, stride = 1;
  for (size_t k = 1; k <= in.size(); ++k) {
    const int64_t n_out = out[out.size() - k], n_in = in[in.size() - k];
    if (n_in != 1) index += (i % n_out) * stride;
    i /= n_out;
    stride *= n_in;
  }
  return index;
}

float binary_value(Binary op, float a, float b) {
  switch (op) {
    case Binary::add: return a + b;
    case Binary::sub: return a - b;
    case Binary::mul: return a * b;
    case Binary::div: return a / b;
  }
  return 0.0f;
}

}  // namespace

void unary_forward(float* y, const float* x, int64_t n, Unary f, float s) {
  for (int64_t i = 0; i < n; ++i) y[i] = unary_value(f, x[i], s);
}

void unary_backward(float* dx, const float* dy, const float* x, const float* y, int64_t n, Unary f, float s) {
  // x (and y) are null when f' does not read them (derivative_reads, core/kernels/seam.h)
  for (int64_t i = 0; i < n; ++i) dx[i] += dy[i] * unary_derivative(f, x ? x[i] : 0.0f, y ? y[i] : 0.0f, s);
}

void binary_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Binary op) {
  const int64_t n = numel(shapes.out);
  for (int64_t i = 0; i < n; ++i)
    y[i] = binary_value(op, a[source_index(i, shapes.out, shapes.a)], b[source_index(i, shapes.out, shapes.b)]);
}

// An input element that was broadcast fed several outputs: its gradient adds them all up.
void binary_backward(float* da, float* db, const float* dy, const float* a, const float* b, const Broadcast& shapes,
                     Binary op) {
  const int64_t n = numel(shapes.out);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ia = source_index(i, shapes.out, shapes.a), ib = source_index(i, shapes.out, shapes.b);
    const float g = dy[i];
    switch (op) {
      case Binary::add: if (da) da[ia] += g; if (db) db[ib] += g; break;
      case Binary::sub: if (da) da[ia] += g; if (db) db[ib] -= g; break;
      case Binary::mul: if (da) da[ia] += g * b[ib]; if (db) db[ib] += g * a[ia]; break;
      case Binary::div: if (da) da[ia] += g / b[ib]; if (db) db[ib] -= g * a[ia] / (b[ib] * b[ib]); break;
    }
  }
}

void compare_forward(float* y, const float* a, const float* b, const Broadcast& shapes, Compare op) {
  const int64_t n = numel(shapes.out);
  for (int64_t i = 0; i < n; ++i) {
    const float u = a[source_index(i, shapes.out, shapes.a)], v = b[source_index(i, shapes.out, shapes.b)];
    bool holds = false;
    switch (op) {
      case Compare::eq: holds = u == v; break;
      case Compare::ne: holds = u != v; break;
      case Compare::lt: holds = u < v; break;
      case Compare::le: holds = u <= v; break;
      case Compare::gt: holds = u > v; break;
      case Compare::ge: holds = u >= v; break;
    }
    y[i] = holds ? 1.0f : 0.0f;
  }
}

void isclose_forward(float* y, const float* a, const float* b, const Broadcast& shapes, float rtol, float atol,
                     bool equal_nan) {
  const int64_t n = numel(shapes.out);
  for (int64_t i = 0; i < n; ++i) {
    const float u = a[source_index(i, shapes.out, shapes.a)], v = b[source_index(i, shapes.out, shapes.b)];
    // As torch.isclose: equal values (equal infinities too) are close; otherwise the actual
    // error must be finite and within the allowed one, both computed in float.
    const float actual = std::fabs(u - v), allowed = atol + std::fabs(rtol * v);
    const bool close = u == v || (std::isfinite(actual) && actual <= allowed) || (equal_nan && std::isnan(u) && std::isnan(v));
    y[i] = close ? 1.0f : 0.0f;
  }
}

}  // namespace reference
}  // namespace d2l
