// tools/bench/softmax.cpp — softmax and masked_softmax throughput (make bench), against
// the machine's copy bandwidth measured here on the same bytes.
// One line per case: bench=softmax rows=.. cols=.. threads=.. copy_gbps=.. gbps=..
// masked_gbps=.. of_copy=.. masked_of_copy=.. (bytes read + written per second; of_copy =
// gbps / copy_gbps). The copy is a memcpy of the input into a buffer of the same size, its
// rows split among the same threads: the least any row kernel must move. Masked rows use
// the book's valid-length layout (batch, queries, keys). The three are timed in turn, a
// block of each at a time, three times over; each figure is the median of its three block
// medians, so a change in the neighbours' load hits all three alike.
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "tools/bench/bench_util.h"

using namespace d2l;

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const bool help = !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
    std::fprintf(help ? stdout : stderr, "%susage: %s\n  softmax and masked_softmax GB/s against a copy, 1 and 2 threads\n",
                 help ? "" : "error: unknown argument\n", argv[0]);
    return help ? 0 : 2;
  }
  NoGrad no_grad;
  manual_seed(0);
  const int64_t cases[][2] = {{640, 10}, {4096, 64}, {16384, 128}, {4096, 1024}, {1024, 8192}};
  for (auto [rows, cols] : cases) {
    Tensor x = normal(0, 1, {rows / 8, 8, cols});
    Tensor lens = empty({rows / 8});
    for (int64_t b = 0; b < rows / 8; ++b) lens.data()[b] = static_cast<float>(1 + random_int(cols));
    const double bytes = 2.0 * rows * cols * sizeof(float);
    Tensor out = empty({rows / 8, 8, cols});
    auto copy = [&] {
      const float* src = x.data();
      float* dst = out.data();
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * cols, src + r * cols, cols * sizeof(float));
    };
    for (int threads : {1, 2}) {
      bench::set_threads(threads);
      const int reps = static_cast<int>(std::max<int64_t>(5, 70000000 / (rows * cols * 20)));
      std::vector<double> t_copy, t_soft, t_masked;
      for (int round = 0; round < 3; ++round) {
        t_copy.push_back(bench::median_ms(reps, copy));
        t_soft.push_back(bench::median_ms(reps, [&] { softmax(x); }));
        t_masked.push_back(bench::median_ms(reps, [&] { masked_softmax(x, lens); }));
      }
      auto mid = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      const double copy_gbps = bytes / mid(t_copy) / 1e6, gbps = bytes / mid(t_soft) / 1e6,
                   masked_gbps = bytes / mid(t_masked) / 1e6;
      std::printf("bench=softmax rows=%lld cols=%lld threads=%d copy_gbps=%.2f gbps=%.2f masked_gbps=%.2f of_copy=%.2f"
                  " masked_of_copy=%.2f\n",
                  static_cast<long long>(rows), static_cast<long long>(cols), threads, copy_gbps, gbps, masked_gbps,
                  gbps / copy_gbps, masked_gbps / copy_gbps);
    }
  }
  return 0;
}
