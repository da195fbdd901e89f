// core/kernels/reduce.h — the seam's kernels for reductions over one dim.
// Called in core/ops/reduce.cpp; plain loops in core/kernels/reference/reduce.cpp, fast ones in
// core/kernels/fast/reduce.cpp (conventions and the D2L_KERNEL macro: core/kernels/seam.h).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// x viewed as (outer, n, inner): n the reduced dim, outer and inner the dims before and after.
//   y (outer, inner), x (outer, n, inner)       y = scale Σ_j x[:, j, :]  (scale 1 or 1/n)
D2L_KERNEL(sum_forward, float* y, const float* x, int64_t outer, int64_t n, int64_t inner, float scale);
//   dx (outer, n, inner), dy (outer, inner)     dx[:, j, :] += scale dy
D2L_KERNEL(sum_backward, float* dx, const float* dy, int64_t outer, int64_t n, int64_t inner, float scale);
//   values, where (outer, inner), x (outer, n, inner)   the first maximum and its j; NaN wins
D2L_KERNEL(max_forward, float* values, int64_t* where, const float* x, int64_t outer, int64_t n, int64_t inner);
//   dx (outer, n, inner), dy, where (outer, inner)      dx[o, where, i] += dy[o, i]
D2L_KERNEL(max_backward, float* dx, const float* dy, const int64_t* where, int64_t outer, int64_t n, int64_t inner);

}  // namespace d2l
