// tools/bench/matmul.cpp — the build's matmul kernel (core/kernels/matmul.h: the fast tier's GEMM, or
// with FAST=0 the reference tier's textbook loops) against OpenBLAS cblas_sgemm, same
// machine, same run.
//
// For n in 64 .. 2048 and 1 and 2 threads, times C = A B on n x n float32 matrices and prints
//   bench=matmul tier=fast n=1024 threads=2 gflops=... openblas_gflops=... ratio=...
// gflops = 2 n^3 / median seconds. The two libraries run alternately in blocks of samples (see
// the loop for why not call by call), so a neighbour's load spike hits both; each sample repeats
// a call until it lasts >= 2 ms, and the median of all samples is reported. Before timing, the
// two results are compared (they must agree to float32 rounding, else the program exits 1).
// Usage: matmul [--quick] [--threads=T] [--n=N]   (--quick: n <= 512, fewer samples; for CI)
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/kernels/list.h"
#include "tools/d2l/cli/cli_args.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Seconds per call of f, averaged over enough calls to last at least 2 ms.
template <class F>
double time_call(F&& f, int calls) {
  const double t0 = now();
  for (int c = 0; c < calls; ++c) f();
  return (now() - t0) / calls;
}

void set_threads(int t) {
#ifdef _OPENMP
  omp_set_num_threads(t);
#endif
  openblas_set_num_threads(t);
}

}  // namespace

// A function try block: an out-of-range --threads or --n ends with the option named, exit 2.
int main(int argc, char** argv) try {
  bool quick = false;
  int64_t only_n = 0;
  std::vector<int> thread_counts = {1, 2};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a.rfind("--threads=", 0) == 0) {
      thread_counts = {static_cast<int>(d2l::parse_int_option("threads", a.substr(10), 1, 1024))};
    } else if (a.rfind("--n=", 0) == 0) {
      only_n = d2l::parse_int_option("n", a.substr(4), 1, 16384);
    } else {
      std::printf("usage: %s [--quick] [--threads=T] [--n=N]\n  times the matmul kernel vs OpenBLAS sgemm, n = 64..2048\n",
                  argv[0]);
      return a == "--help" ? 0 : 1;
    }
  }
  std::vector<int64_t> sizes = {64, 128, 256, 512, 1024, 2048};
  if (quick) sizes = {64, 128, 256, 512};
  if (only_n > 0) sizes = {only_n};
  const double budget = quick ? 0.3 : 1.0;  // seconds of timed work per (n, threads), both libraries

  // A busy machine makes 2-thread timings meaningless (each barrier can wait a whole scheduler
  // round for a preempted thread, worse with libgomp's spin-waiting): say so up front.
  double load = 0.0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0.0;
    std::fclose(f);
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (load > 0.5 * cores + 1.0)
    std::fprintf(stderr, "# note: load average %.1f on %u cores: other jobs are running, timings (2 threads above "
                 "all) are unreliable; OMP_WAIT_POLICY=passive helps our side\n", load, cores);

  std::mt19937 gen(42);
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  for (const int64_t n : sizes) {
    std::vector<float> A(n * n), B(n * n), C(n * n), Cref(n * n);
    for (float& x : A) x = U(gen);
    for (float& x : B) x = U(gen);
    auto ours = [&] { d2l::kernels::matmul_forward(C.data(), A.data(), B.data(), 1, n, n, n, false, false); };
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f,
                  Cref.data(), n);
    };
    // Correctness first: |C - Cref| <= n * eps * sum_k |a||b| <= n^2 eps (|a|, |b| <= 1).
    set_threads(1);
    ours();
    blas();
    float err = 0.0f;
    for (int64_t i = 0; i < n * n; ++i) err = std::max(err, std::fabs(C[i] - Cref[i]));
    if (!(err <= float(n) * float(n) * 1.2e-7f)) {
      std::fprintf(stderr, "bench=matmul n=%lld: matmul_forward differs from OpenBLAS by %g\n", (long long)n, err);
      return 1;
    }
    const double flops = 2.0 * double(n) * double(n) * double(n);
    for (const int t : thread_counts) {
      set_threads(t);
      // Both libraries keep their idle worker threads spinning for ~100 ms after a call
      // (libgomp's spin-wait, OpenBLAS' THREAD_TIMEOUT), and on 2 cores a spinning pool
      // steals a core from the other library. So the two alternate in blocks of calls,
      // separated by a pause that lets the idle pool fall asleep, and swap order every round.
      auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); };
      settle();
      ours();  // warm up: thread pool, packing buffers
      const double single = std::max(time_call(ours, 1), 1e-7);
      const int calls = std::max(1, int(2e-3 / single));  // one sample lasts >= 2 ms
      const int rounds = 3, samples = std::clamp(int(budget / (2 * rounds * single * calls)), 3, 15);
      std::vector<double> t_ours, t_blas;
      for (int r = 0; r < 2 * rounds; ++r) {
        const bool mine = (r % 2 == 0) == (r / 2 % 2 == 0);  // ours, blas, blas, ours, ours, blas
        settle();
        if (mine) ours(); else blas();
        for (int s = 0; s < samples; ++s)
          (mine ? t_ours : t_blas).push_back(mine ? time_call(ours, calls) : time_call(blas, calls));
      }
      const double g = flops / median(t_ours) * 1e-9, gb = flops / median(t_blas) * 1e-9;
      std::printf("bench=matmul tier=%s n=%lld threads=%d gflops=%.1f openblas_gflops=%.1f ratio=%.2f\n",
                  d2l::kernels::tier_name(), (long long)n, t, g, gb, g / gb);
      std::fflush(stdout);
    }
  }
  return 0;
} catch (const d2l::UsageError& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 2;
}
