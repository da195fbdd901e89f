// core/kernels/fast/fast_exp.h — exp(x) for float that the compiler can vectorise.
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

#include "core/kernels/fast/lane_sum.h"

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

#if defined(__AVX512F__)
// fast_exp on the 16 lanes of an AVX-512 register, step for step the same recipe (the
// same clamps, rounding trick, polynomial and exponent bits), for the kernels that work a
// short row per register (core/kernels/fast/softmax.cpp: attention rows of 10 keys). The compiler
// may fuse a multiply and an add of the scalar form into one rounding, so the two can
// differ in the last bit; both are within the bound above.
// (kAllLanes: lane_sum.h.)

inline __m512 fast_exp16(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.3365f), hi = _mm512_set1_ps(88.3762f);
  // max(x, lo) and min(., hi) pick the bound for a NaN lane, as the scalar form does.
  const __m512 xmax = _mm512_mask_max_ps(x, kAllLanes, x, lo);
  const __m512 xc = _mm512_mask_min_ps(xmax, kAllLanes, xmax, hi);
  const __m512 round = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m512 n = _mm512_sub_ps(_mm512_add_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)), round), round);
  const __m512 r = _mm512_sub_ps(_mm512_sub_ps(xc, _mm512_mul_ps(n, _mm512_set1_ps(0.693359375f))),
                                 _mm512_mul_ps(n, _mm512_set1_ps(-2.12194440e-4f)));
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  for (float c : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(c));
  p = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(p, r), r), r), _mm512_set1_ps(1.0f));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i biased = _mm512_add_epi32(_mm512_mask_cvtps_epi32(zero, kAllLanes, n), _mm512_set1_epi32(127));
  const __m512i bits = _mm512_mask_slli_epi32(zero, kAllLanes, biased, 23);
  __m512 y = _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
  y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ), _mm512_setzero_ps());
  y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, hi, _CMP_GT_OQ), _mm512_set1_ps(__builtin_inff()));
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);  // NaN in, NaN out
}
#endif

}  // namespace fast
}  // namespace d2l
