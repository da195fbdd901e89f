// core/fast/fast_exp.h — exp(x) for float that the compiler can vectorise.
//
// std::exp is a library call per element, which stops auto-vectorisation (GCC only calls
// the vector libmvec versions under -ffast-math, which would let it reorder every sum and
// break the fixed summation orders the results depend on). This
// is the classic Cephes expf recipe written branch-free, so a plain loop over it compiles
// to AVX2/AVX-512 code:
//   exp(x) = 2^n * exp(r),  n = round(x / ln 2),  r = x − n ln 2 ∈ [−ln2/2, ln2/2],
// with ln 2 split in two parts so r is exact, exp(r) from a degree-6 polynomial, and 2^n
// put straight into the float's exponent bits. Max relative error ≈ 2 ulp over the range
// (tests/test_core_softmax.cpp compares against std::exp). Inputs below −87.3 give 0
// (so the book's −1e6 mask value gives exactly 0), above 88.37 give +inf, NaN gives NaN (std::exp
// overflows at 88.72; the sliver between is irrelevant after softmax's max shift).
#pragma once
#include <cstdint>
#include <cstring>

namespace d2l {
namespace fast {

inline float fast_exp(float x) {
  const float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  // Clamp so that 2^n below stays a normal float. Written so a NaN x picks the bound (every
  // comparison with NaN is false): converting NaN to an integer would be undefined
  // behaviour (UBSan: "left shift of negative value"). The NaN is put back at the end.
  float xc = x > -87.3365f ? x : -87.3365f;
  xc = xc < 88.3762f ? xc : 88.3762f;
  // n = nearest integer to xc·log2(e), by the 1.5·2^23 trick: adding it pushes the
  // fraction bits out of the float, so the sum is rounded to an integer (ties to even, the
  // default mode) and subtracting it back is exact (|xc·log2 e| < 128). Pure arithmetic,
  // so the loop vectorises; roundf (ties away from zero, which SSE/AVX have no mode for)
  // made GCC emit a scalar sequence and kept every caller's loop scalar.
  const float kRound = 12582912.0f;  // 1.5 * 2^23
  const float n = (xc * kLog2e + kRound) - kRound;
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
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float y = p * scale;
  y = x < -87.3365f ? 0.0f : y;
  y = x > 88.3762f ? __builtin_inff() : y;
  return x != x ? x : y;  // NaN in, NaN out
}

}  // namespace fast
}  // namespace d2l
