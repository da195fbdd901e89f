// core/kernels/reference/copy.cpp — the shape ops' row copies (core/kernels/copy.h) as plain loops.
#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {

void copy_rows(float* dst, int64_t dst_stride, const float* src, int64_t src_stride, int64_t rows, int64_t width,
               bool accumulate) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < width; ++j) {
      float& d = dst[r * dst_stride + j];
      d = accumulate ? d + src[r * src_stride + j] : src[r * src_stride + j];
    }
}

void gather_rows(float* dst, const float* src, const int64_t* offsets, int64_t rows, int64_t width) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < width; ++j) dst[r * width + j] = src[offsets[r] + j];
}

void scatter_add_rows(float* dst, const float* src, const int64_t* offsets, int64_t rows, int64_t width) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < width; ++j) dst[offsets[r] + j] += src[r * width + j];
}

}  // namespace reference
}  // namespace d2l
