// core/kernels/seam.h — the kernel seam: every loop over a tensor's numbers that the ops
// (core/ops/*.cpp) and the GRU layer run, as <op>_forward / <op>_backward pairs. An op checks
// its arguments, allocates its output and calls these; it never loops over data itself.
// Each kernel is declared once, in the header of core/kernels/ named like the files that
// define it in the two tiers: reference/ (plain loops to read beside the book, one thread)
// and fast/ (the same results up to float rounding: packing, blocking, intrinsics, threads).
// The ops call d2l::kernels::name, a constant pointer to the fast tier's function under
// `make`, the reference tier's under `make FAST=0` (seam.cpp); tests/test_core_kernel_tiers*
// compare the two. Conventions: outputs first, then inputs, sizes, options; every pointer is
// a contiguous row-major float32 array of the shape on its line. A forward kernel writes its
// outputs; a backward kernel ADDS into the gradients it is given (several ops may feed one
// tensor) and skips a null one (no gradient needed). Each sum runs in an order fixed by the
// sizes, never the thread count, so results are bit-identical at any thread count.
#pragma once

// D2L_KERNEL(name, parameters...) declares `void name(parameters...)` in both tiers and the
// seam's pointer d2l::kernels::name. (core/kernels/seam.cpp defines it otherwise, to set them.)
#ifndef D2L_KERNEL
#define D2L_KERNEL(name, ...)                      \
  namespace reference { void name(__VA_ARGS__); }  \
  namespace fast { void name(__VA_ARGS__); }       \
  namespace kernels { extern void (*const name)(__VA_ARGS__); }
#endif
