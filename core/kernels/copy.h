// core/kernels/copy.h — the seam's kernels for the shape ops' copies (core/ops/shape.cpp: concat,
// slice, permute, embedding): rows of `width` floats moved without arithmetic, or added back
// in the backward. Plain loops in core/kernels/reference/copy.cpp; core/kernels/fast/copy.cpp
// shares large ones among threads (a copy is exact, and each added element keeps its order).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// rows rows of width floats, row r at dst + r dst_stride and src + r src_stride (rows that
// do not overlap).
//   dst row r = src row r, or (accumulate) dst row r += src row r
D2L_KERNEL(copy_rows, float* dst, int64_t dst_stride, const float* src, int64_t src_stride, int64_t rows,
           int64_t width, bool accumulate);
//   dst (rows, width); src row r at src + offsets[r]        dst[r, :] = src row r
D2L_KERNEL(gather_rows, float* dst, const float* src, const int64_t* offsets, int64_t rows, int64_t width);
//   src (rows, width); dst row r at dst + offsets[r]        dst row r += src[r, :]
//   Offsets may repeat (a token seen twice): such a row receives its terms in order of r.
D2L_KERNEL(scatter_add_rows, float* dst, const float* src, const int64_t* offsets, int64_t rows, int64_t width);

}  // namespace d2l
