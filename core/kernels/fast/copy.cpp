// core/kernels/fast/copy.cpp — the shape ops' row copies (core/kernels/copy.h): memcpy or a vector
// add per row, and large tensors shared among threads. Rows are independent except where
// scatter_add_rows meets a repeated offset (a token twice in a batch), so that kernel splits
// the columns instead: each column block walks every row in order, as one thread would.
#include <algorithm>
#include <cstring>

#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace {

void add_row(float* __restrict d, const float* __restrict s, int64_t n) {
  for (int64_t j = 0; j < n; ++j) d[j] += s[j];
}

}  // namespace

void copy_rows(float* dst, int64_t dst_stride, const float* src, int64_t src_stride, int64_t rows, int64_t width,
               bool accumulate) {
  if (width <= 0) return;
  parallel_for(rows, rows * width >= kParallelMin, [&](int64_t r) {
    if (accumulate) add_row(dst + r * dst_stride, src + r * src_stride, width);
    else std::memcpy(dst + r * dst_stride, src + r * src_stride, sizeof(float) * width);
  });
}

void gather_rows(float* dst, const float* src, const int64_t* offsets, int64_t rows, int64_t width) {
  if (width <= 0) return;
  parallel_for(rows, rows * width >= kParallelMin,
               [&](int64_t r) { std::memcpy(dst + r * width, src + offsets[r], sizeof(float) * width); });
}

// Column blocks of about 64 floats (sizes only: 100 -> two of 50, 512 -> eight of 64), each
// walking every row in order. Below the fork size, one block of the whole width.
void scatter_add_rows(float* dst, const float* src, const int64_t* offsets, int64_t rows, int64_t width) {
  if (width <= 0) return;
  const bool fork = rows * width >= kParallelMin;
  const int64_t blocks = fork ? ceil_div(width, 64) : 1, block = ceil_div(width, blocks);
  parallel_for(blocks, fork && blocks > 1, [&](int64_t b) {
    const int64_t j0 = b * block, n = std::min(width, j0 + block) - j0;
    for (int64_t r = 0; r < rows; ++r) add_row(dst + offsets[r] + j0, src + r * width + j0, n);
  });
}

}  // namespace fast
}  // namespace d2l
