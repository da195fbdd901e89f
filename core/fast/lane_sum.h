// core/fast/lane_sum.h — sums and dot products of a contiguous run that vectorise and
// still give the same bits every time.
//
// A plain `s += x[j]` loop is a chain of dependent adds (4 cycles each) that the compiler
// may not reorder without -ffast-math. Here 16 partial sums (one vector register's lanes)
// take every 16th element, and are then added pairwise in a fixed order; the tail is added
// last. The order depends only on n, never on the thread count, so results are
// deterministic. It differs from the left-to-right order in the last bits.
#pragma once
#include <cstdint>

namespace d2l {
namespace fast {

constexpr int64_t kLanes = 16;

// Adds the lanes pairwise (8 + 8, 4 + 4, ...) into lanes[0].
inline float reduce_lanes(float* lanes) {
  for (int64_t h = kLanes / 2; h > 0; h /= 2)
    for (int64_t l = 0; l < h; ++l) lanes[l] += lanes[l + h];
  return lanes[0];
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
