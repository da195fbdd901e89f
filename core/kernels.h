// core/kernels.h — the kernel seam: every loop over a tensor's numbers that the ops
// (core/ops_*.cpp) and the GRU layer run, as <op>_forward / <op>_backward pairs.
//
// An op checks its arguments, allocates its output and calls these; it never loops over
// data itself. The kernels are listed once, in core/kernel_list.h, and come in two tiers:
//   d2l::reference  core/reference/  plain loops to read beside the book: std::exp, no
//                                    intrinsics, no blocking, one thread
//   d2l::fast       core/fast/       the same results up to float rounding, by faster means:
//                                    a packed, blocked GEMM with AVX-512/AVX2 micro-kernels,
//                                    a vectorisable exp, lane sums, thresholds for threads
// Here each kernel is a constant pointer to one tier's function, set in core/kernels.cpp:
// the fast tier's under `make`, the reference tier's under `make FAST=0`. Both tiers are in
// every build, so tests/test_core_kernel_tiers*.cpp compare them kernel by kernel.
//
// Conventions: outputs first, then inputs, then sizes, then options. Every pointer is a
// contiguous row-major float32 array of the shape on its line, in the size letters of its
// legend. A forward kernel writes its outputs; a backward kernel ADDS into the gradients it
// is given (several ops may feed one tensor), and skips a gradient pointer that is null
// (that input needs no gradient). Each sum runs in a fixed order that depends on the sizes
// only, never on the number of threads, so results are bit-identical at any thread count.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace d2l {
namespace kernels {

const char* tier_name();  // "fast" or "reference": the tier this build calls

// The kernels' option types (the legends of core/kernel_list.h use them).
// unary_forward / unary_backward: y = f(x).
enum class Unary { add_scalar, mul_scalar, rsub_scalar, rdiv_scalar, neg, exp, log, pow, sqrt, tanh, sigmoid, relu,
                   sin, cos, abs };
// What unary_backward computes f' from. Written with the output y where that is simplest,
// f' often needs no x at all: exp (f' = y), sqrt (1 / 2y), tanh (1 − y²), sigmoid (y (1 − y))
// and relu (1 where y > 0: y > 0 exactly when x > 0, and a NaN stays NaN in y) read y only;
// the shifts, scalings and neg have a constant f'. The op then does not save x for backward
// (OpCall::save_for_backward) and passes x = nullptr, so that tensor can be freed early (a
// Linear's output under a ReLU).
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

// The kernels (core/kernel_list.h), each `extern void (*const name)(parameters...)`.
#define D2L_KERNEL(name, ...) extern void (*const name)(__VA_ARGS__)
#include "core/kernel_list.h"

}  // namespace kernels
}  // namespace d2l
