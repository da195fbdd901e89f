// tools/bench/mha.cpp — MultiHeadAttention (10.5) forward+backward, the same cases and
// protocol as tools/bench/mha_torch.py: self-attention on X (batch, seq, hidden), no bias,
// dropout 0 (eval), no valid_lens; one step = forward, sum().backward() into X and the four
// weights, grads dropped. Prints the median of --reps steps:
//   bench=mha batch=.. seq=.. hidden=.. heads=.. threads=.. ms=..
// Run beside `python3 tools/bench/mha_torch.py --threads N` for the ratio (make bench runs
// only this side).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/ops.h"
#include "core/random.h"
#include "layers/multihead_attention.h"
#include "tools/bench/bench_util.h"
#include "tools/d2l/cli/cli_args.h"

using namespace d2l;

int main(int argc, char** argv) {
  int threads = 2, reps = 50;
  try {  // numbers are range-checked (tools/d2l/cli/cli_args.h), never wrapped by atoi
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
        std::printf("usage: %s [--threads N] [--reps N] [--quick]\n"
                    "  MultiHeadAttention (10.5) forward + backward at three sizes; ms per step, median of --reps\n",
                    argv[0]);
        return 0;
      }
      if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = static_cast<int>(parse_int_option("threads", argv[++i], 1, 1024));
      else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = static_cast<int>(parse_int_option("reps", argv[++i], 1, 1000000));
      else if (!std::strcmp(argv[i], "--quick")) reps = 5;
      else throw UsageError(std::string("unknown argument '") + argv[i] + "'");
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\nusage: %s [--threads N] [--reps N] [--quick]\n", e.what(), argv[0]);
    return 2;
  }
  bench::set_threads(threads);
  manual_seed(0);
  const int64_t sizes[][4] = {{64, 10, 32, 4}, {32, 50, 128, 8}, {8, 200, 512, 8}};
  for (auto [batch, seq, hidden, heads] : sizes) {
    MultiHeadAttention mha(hidden, heads, 0.0f);
    mha.eval();
    Tensor X = normal(0, 1, {batch, seq, hidden});
    X.requires_grad_();
    const double ms = bench::median_ms(reps, [&] {
      sum(mha(X, X, X)).backward();
      X.zero_grad();
      mha.zero_grad();
    });
    std::printf("bench=mha batch=%lld seq=%lld hidden=%lld heads=%lld threads=%d ms=%.3f\n",
                static_cast<long long>(batch), static_cast<long long>(seq), static_cast<long long>(hidden),
                static_cast<long long>(heads), threads, ms);
  }
  return 0;
}
