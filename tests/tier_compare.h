// tests/tier_compare.h — helpers for the tier tests (tests/test_core_kernel_tiers*.cpp), which run
// every fast kernel (core/kernels/fast/) against its reference (core/kernels/reference/) on random inputs:
// the inputs, and an element-by-element comparison against a tolerance per element.
#pragma once
#include <boost/test/unit_test.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace tier_test {

using Vec = std::vector<float>;

// FLT_EPSILON = 2^-23, the spacing of floats at 1: twice the unit roundoff u, so one
// rounding changes a value x by at most kEps/2 |x|, and a float sum of n terms computed in
// any order is within about n u Σ|terms| of the exact sum. Two sums of the same n terms in
// different orders therefore differ by at most about n kEps Σ|terms|: the bound behind most
// tolerances in these tests.
constexpr float kEps = FLT_EPSILON;

inline std::mt19937& gen() {
  static std::mt19937 g(2024);
  return g;
}

inline Vec uniform(int64_t n, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> U(lo, hi);
  Vec v(static_cast<size_t>(n));
  for (float& x : v) x = U(gen());
  return v;
}

inline Vec abs_of(Vec v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// The kernels whose two tiers a check has compared: the first word of each mismatches()
// label, which names the kernel ("matmul_backward dA ..."). The suite core_kernel_tiers_cover
// checks that every kernel of core/kernels/list.h is among them.
inline std::set<std::string>& compared_kernels() {
  static std::set<std::string> names;
  return names;
}

// The number of elements where |fast − ref| > tol[i] (or where one is NaN and the other is
// not); the first three are logged with their values. `what` starts with the kernel's name.
inline int mismatches(const std::string& what, const Vec& fast, const Vec& ref, const Vec& tol) {
  compared_kernels().insert(what.substr(0, what.find(' ')));
  BOOST_REQUIRE_EQUAL(fast.size(), ref.size());
  int bad = 0;
  for (size_t i = 0; i < fast.size(); ++i) {
    const bool both_nan = std::isnan(fast[i]) && std::isnan(ref[i]);
    if (both_nan || std::fabs(fast[i] - ref[i]) <= tol[i]) continue;
    if (bad++ < 3)
      BOOST_TEST_MESSAGE(what << ": element " << i << " fast " << fast[i] << " reference " << ref[i] << " tolerance "
                              << tol[i]);
  }
  return bad;
}

// The tolerance for values that are float sums of n terms, possibly added to a starting
// value (start, or empty for none): (n + 2) kEps (|start| + Σ|terms|), the sum bound above
// with room for the start and one more rounding. abs_sum holds Σ|terms| per element, which
// the tests get by running the reference kernel on the absolute values of its inputs.
inline Vec sum_tolerance(int64_t n, const Vec& start, const Vec& abs_sum) {
  Vec tol(abs_sum.size());
  for (size_t i = 0; i < tol.size(); ++i)
    tol[i] = float(n + 2) * kEps * ((start.empty() ? 0.0f : std::fabs(start[i])) + std::fabs(abs_sum[i])) + 1e-30f;
  return tol;
}

inline int mismatches(const std::string& what, const Vec& fast, const Vec& ref, float tol) {
  return mismatches(what, fast, ref, Vec(fast.size(), tol));
}

}  // namespace tier_test
