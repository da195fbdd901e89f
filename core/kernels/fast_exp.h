// core/kernels/fast_exp.h — exp(x) for float that the compiler can vectorise.
//
// std::exp is a library call per element, which stops auto-vectorisation (GCC only calls
// the vector libmvec versions under -ffast-math, which we do not use: STYLE.md 11). This
// is the classic Cephes expf recipe written branch-free, so a plain loop over it compiles
// to AVX2/AVX-512 code:
//   exp(x) = 2^n * exp(r),  n = round(x / ln 2),  r = x − n ln 2 ∈ [−ln2/2, ln2/2],
// with ln 2 split in two parts so r is exact, exp(r) from a degree-6 polynomial, and 2^n
// put straight into the float's exponent bits. Max relative error ≈ 2 ulp over the range
// (tests/test_core_softmax.cpp compares against std::exp). Inputs below −87.3 give 0
// (so the book's −1e6 mask value gives exactly 0), above 88.37 give +inf (std::exp
// overflows at 88.72; the sliver between is irrelevant after softmax's max shift).
#pragma once
#include <cstdint>
#include <cstring>

namespace d2l {

inline float fast_exp(float x) {
  const float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  const float xc = x < -87.3365f ? -87.3365f : (x > 88.3762f ? 88.3762f : x);
  const float n = __builtin_roundf(xc * kLog2e);  // nearest integer, vectorises to vroundps
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  // exp(r) ≈ 1 + r + r²/2! + ... + r⁶/6! in Horner form (Cephes coefficients).
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n: the biased exponent n + 127 in bits 23..30.
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float y = p * scale;
  y = x < -87.3365f ? 0.0f : y;
  y = x > 88.3762f ? __builtin_inff() : y;
  return y;
}

}  // namespace d2l
