// core/kernels.h — the kernel seam: every loop over a tensor's numbers that the ops
// (core/ops_*.cpp) and the GRU layer run, as <op>_forward / <op>_backward pairs.
//
// An op checks its arguments, allocates its output and calls these; it never loops over
// data itself. Each kernel is declared once, in the header of core/kernels/ named like the
// files that define it in the two tiers:
//   d2l::reference  core/reference/  plain loops to read beside the book: std::exp, no
//                                    intrinsics, no blocking, one thread
//   d2l::fast       core/fast/       the same results up to float rounding, by faster means:
//                                    a packed, blocked GEMM with AVX-512/AVX2 micro-kernels,
//                                    a vectorisable exp, lane sums, thresholds for threads
// The ops call d2l::kernels::name, a constant pointer to one tier's function, set in
// core/kernels.cpp: the fast tier's under `make`, the reference tier's under `make FAST=0`.
// Both tiers are in every build, so tests/test_core_kernel_tiers*.cpp compare them.
//
// Conventions: outputs first, then inputs, then sizes, then options. Every pointer is a
// contiguous row-major float32 array of the shape on its line, in the size letters of its
// legend. A forward kernel writes its outputs; a backward kernel ADDS into the gradients it
// is given (several ops may feed one tensor), and skips a gradient pointer that is null
// (that input needs no gradient). Each sum runs in a fixed order that depends on the sizes
// only, never on the number of threads, so results are bit-identical at any thread count.
#pragma once

namespace d2l {
namespace kernels {
const char* tier_name();  // "fast" or "reference": the tier this build calls
}  // namespace kernels
}  // namespace d2l

// D2L_KERNEL(name, parameters...) declares `void name(parameters...)` in both tiers and the
// seam's pointer d2l::kernels::name. (core/kernels.cpp defines it otherwise, to set them.)
#ifndef D2L_KERNEL
#define D2L_KERNEL(name, ...)                      \
  namespace reference { void name(__VA_ARGS__); }  \
  namespace fast { void name(__VA_ARGS__); }       \
  namespace kernels { extern void (*const name)(__VA_ARGS__); }
#endif
