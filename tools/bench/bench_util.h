// tools/bench/bench_util.h — timing helpers shared by the benchmarks (medians of repeats).
#pragma once
#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace d2l::bench {

// Milliseconds on the wall clock, and of this thread's CPU time (the time it ran, which a
// machine under load does not stretch as it stretches the wall clock).
inline double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline double thread_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
// ... and of the whole process: every thread's CPU time, so over a span it counts the cores
// that worked (under OMP_WAIT_POLICY=PASSIVE a waiting thread sleeps and adds nothing).
inline double process_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// The median of `reps` (at least 1) timings of f by `clock`, in its unit, after one untimed
// warm-up call.
template <class F, class Clock>
double median_time(int reps, F f, Clock clock) {
  f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = clock();
    f();
    t.push_back(clock() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Median wall time in milliseconds of `reps` calls of f (after one warm-up call).
template <class F>
double median_ms(int reps, F f) {
  return median_time(reps, f, wall_ms);
}

inline void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

}  // namespace d2l::bench
