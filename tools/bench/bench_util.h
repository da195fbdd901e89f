// tools/bench/bench_util.h — timing helpers shared by the benchmarks (medians of repeats).
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace d2l::bench {

// Median wall time in milliseconds of `reps` calls of f (after one warm-up call).
template <class F>
double median_ms(int reps, F f) {
  f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

inline void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

}  // namespace d2l::bench
