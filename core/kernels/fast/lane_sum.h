// core/kernels/fast/lane_sum.h — sums and dot products of a contiguous run that vectorise and
// still give the same bits every time.
//
// A plain `s += x[j]` loop is a chain of dependent adds (4 cycles each) that the compiler
// may not reorder without -ffast-math. Here 16 partial sums (one vector register's lanes)
// take every 16th element, and are then added pairwise in a fixed order; the tail is added
// last. The order depends only on n, never on the thread count, so results are
// deterministic. It differs from the left-to-right order in the last bits.
#pragma once
#include <cstdint>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace d2l {
namespace fast {

constexpr int64_t kLanes = 16;

#if defined(__AVX512F__)
// GCC 12's unmasked forms of several AVX-512 intrinsics (max, min, shifts, conversions,
// shuffles) warn about an uninitialised temporary of their own; their masked forms over all
// 16 lanes (kAllLanes) are the same instructions and do not.
constexpr __mmask16 kAllLanes = 0xFFFF;
// The lanes [0, n) of a register, 0 <= n <= 16: masked loads and stores of a row's tail.
inline __mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>((uint32_t{1} << n) - 1); }

// The 16 lanes of a register folded pairwise with op: lane l with lane l + 8, then l + 4,
// l + 2, l + 1 (each step swaps halves, so every lane ends with the result). For a sum this
// is exactly reduce_lanes' order below, in four shuffles and four adds.
template <class Op>
inline float reduce16(__m512 v, Op op) {
  v = op(v, _mm512_mask_shuffle_f32x4(v, kAllLanes, v, v, 0x4E));  // lane l + 8 (256-bit halves swapped)
  v = op(v, _mm512_mask_shuffle_f32x4(v, kAllLanes, v, v, 0xB1));  // l + 4 (128-bit quarters swapped)
  v = op(v, _mm512_mask_shuffle_ps(v, kAllLanes, v, v, 0x4E));     // l + 2 (pairs swapped)
  v = op(v, _mm512_mask_shuffle_ps(v, kAllLanes, v, v, 0xB1));     // l + 1 (neighbours swapped)
  return _mm512_cvtss_f32(v);
}
inline float sum16(__m512 v) { return reduce16(v, [](__m512 a, __m512 b) { return _mm512_add_ps(a, b); }); }
inline float max16(__m512 v) {
  return reduce16(v, [](__m512 a, __m512 b) { return _mm512_mask_max_ps(a, kAllLanes, a, b); });
}
#endif

// Adds the lanes pairwise (8 + 8, 4 + 4, ...) into lanes[0]. As a loop over the array the
// compiler leaves it scalar, through memory (~100 cycles, more than a row of 32 takes to
// sum); with AVX-512 it is sum16, the same additions in the same order.
inline float reduce_lanes(float* lanes) {
#if defined(__AVX512F__)
  static_assert(kLanes == 16, "one AVX-512 register of lanes");
  return sum16(_mm512_loadu_ps(lanes));
#else
  for (int64_t h = kLanes / 2; h > 0; h /= 2)
    for (int64_t l = 0; l < h; ++l) lanes[l] += lanes[l + h];
  return lanes[0];
#endif
}

// Σ_j f(j) for j in [0, n), for any element function f that the compiler can inline.
template <class F>
inline float lane_sum(int64_t n, F f) {
  if (n < kLanes) {  // no full lane pass: the same sum as below, without adding 16 zeros
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += f(j);
    return s;
  }
  float lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += f(j + l);
  float s = reduce_lanes(lanes);
  for (; j < n; ++j) s += f(j);
  return s;
}

inline float lane_sum(const float* x, int64_t n) {
  return lane_sum(n, [x](int64_t j) { return x[j]; });
}

// The largest of x[0, n), -inf for n = 0, in 16 lanes as above (a plain `m = max(m, x[j])`
// loop is a chain the compiler keeps scalar). A max is exact, so the order changes nothing:
// it equals the left-to-right max, NaNs included (max(m, NaN) keeps m, in both).
inline float lane_max(const float* x, int64_t n) {
  float lanes[kLanes];
  for (float& l : lanes) l = -__builtin_inff();
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] = lanes[l] < x[j + l] ? x[j + l] : lanes[l];
  float m = -__builtin_inff();
  for (float l : lanes) m = m < l ? l : m;
  for (; j < n; ++j) m = m < x[j] ? x[j] : m;
  return m;
}

}  // namespace fast
}  // namespace d2l
