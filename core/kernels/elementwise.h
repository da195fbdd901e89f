// core/kernels/elementwise.h — the seam's kernels (seam.h) for element-wise math with NumPy
// broadcasting, and the comparisons, called in core/ops/elementwise.cpp and compare.cpp;
// plain loops in reference/elementwise.cpp, fast ones in fast/elementwise.cpp.
#pragma once
#include <cstdint>

#include "core/shape.h"
#include "core/kernels/seam.h"

namespace d2l {
namespace kernels {

// unary_forward / unary_backward: y = f(x).
enum class Unary { add_scalar, mul_scalar, rsub_scalar, rdiv_scalar, neg, exp, log, pow, sqrt, tanh, sigmoid, relu,
                   sin, cos, abs };
// What unary_backward computes f' from: exp (f' = y), sqrt (1 / 2y), tanh (1 − y²), sigmoid
// (y (1 − y)) and relu (y > 0 exactly when x > 0) need only the output y; the shifts,
// scalings and neg have a constant f'. The op then saves no x (OpCall::save_for_backward).
enum class DerivativeReads { nothing, output, input_and_output };
constexpr DerivativeReads derivative_reads(Unary f) {
  switch (f) {
    case Unary::add_scalar: case Unary::mul_scalar: case Unary::rsub_scalar: case Unary::neg:
      return DerivativeReads::nothing;
    case Unary::exp: case Unary::sqrt: case Unary::tanh: case Unary::sigmoid: case Unary::relu:
      return DerivativeReads::output;
    default:  // rdiv_scalar (−y / x), log, pow, sin, cos, abs
      return DerivativeReads::input_and_output;
  }
}
// binary_forward / binary_backward: y = a op b.
enum class Binary { add, sub, mul, div };
// compare_forward: y = 1 where a op b holds.
enum class Compare { eq, ne, lt, le, gt, ge };
// NumPy broadcasting: shapes aligned at the right, a dim of size 1 repeats along the other's.
// out is the result's shape; a and b are the inputs' shapes (each at most as long as out).
struct Broadcast {
  Shape out, a, b;
};

}  // namespace kernels

// n elements; f one of Unary. s is the scalar of the scalar forms (x + s, x * s, s - x,
// s / x) and pow's p.
//   y, x (n)                  y = f(x); relu keeps a NaN (max(x, 0) would hide it as 0);
//                             abs' derivative is sign(x), 0 at 0 and for NaN (PyTorch's choice)
D2L_KERNEL(unary_forward, float* y, const float* x, int64_t n, kernels::Unary f, float s);
//   dx, dy, x, y (n)          dx += dy f'(x), where f' may use the output y (exp: f' = y);
//                             x (y) may be null when derivative_reads(f) says f' does not read it
D2L_KERNEL(unary_backward, float* dx, const float* dy, const float* x, const float* y, int64_t n, kernels::Unary f,
           float s);
// Broadcast shapes: out the result's, a and b the inputs'.
//   y (out), a (a), b (b)     y = a op b
D2L_KERNEL(binary_forward, float* y, const float* a, const float* b, const kernels::Broadcast& shapes,
           kernels::Binary op);
//   da (a), db (b), dy (out), a (a), b (b)
//   add: da += dy, db += dy; sub: db -= dy; mul: da += dy b, db += dy a; div: da += dy / b,
//   db -= dy a / b². A broadcast input element receives the sum over every output it fed.
//   add and sub read neither a nor b (either may then be null: freed, see core/autograd.h)
D2L_KERNEL(binary_backward, float* da, float* db, const float* dy, const float* a, const float* b,
           const kernels::Broadcast& shapes, kernels::Binary op);

// The comparisons, forward only: a 0/1 result is a step function, whose gradient is 0
// wherever it exists.
//   y (out), a (a), b (b)     y = 1 where a op b holds, else 0; a NaN holds for ne alone
D2L_KERNEL(compare_forward, float* y, const float* a, const float* b, const kernels::Broadcast& shapes,
           kernels::Compare op);
//   y (out), a (a), b (b)     torch.isclose: y = 1 where a == b (infinities too), or |a - b| is
//                             finite and <= atol + rtol |b| (in float), or both are NaN and
//                             equal_nan; else 0
D2L_KERNEL(isclose_forward, float* y, const float* a, const float* b, const kernels::Broadcast& shapes, float rtol,
           float atol, bool equal_nan);

}  // namespace d2l
