// tools/bench/softmax.cpp — softmax and masked_softmax throughput (make bench).
// One line per case: bench=softmax rows=.. cols=.. threads=.. gbps=.. (bytes read + written
// per second); masked rows use the book's valid-length layout (batch, queries, keys).
#include <cstdio>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "tools/bench/bench_util.h"

using namespace d2l;

int main() {
  NoGrad no_grad;
  manual_seed(0);
  const int64_t cases[][2] = {{640, 10}, {4096, 64}, {16384, 128}, {4096, 1024}, {1024, 8192}};
  for (auto [rows, cols] : cases) {
    Tensor x = normal(0, 1, {rows / 8, 8, cols});
    Tensor lens = empty({rows / 8});
    for (int64_t b = 0; b < rows / 8; ++b) lens.data()[b] = static_cast<float>(1 + random_int(cols));
    const double bytes = 2.0 * rows * cols * sizeof(float);
    for (int threads : {1, 2}) {
      bench::set_threads(threads);
      const int reps = static_cast<int>(std::max<int64_t>(5, 200000000 / (rows * cols * 20)));
      const double ms = bench::median_ms(reps, [&] { softmax(x); });
      const double ms_masked = bench::median_ms(reps, [&] { masked_softmax(x, lens); });
      std::printf("bench=softmax rows=%lld cols=%lld threads=%d gbps=%.2f masked_gbps=%.2f\n",
                  static_cast<long long>(rows), static_cast<long long>(cols), threads, bytes / ms / 1e6,
                  bytes / ms_masked / 1e6);
    }
  }
  return 0;
}
