// tools/bench/seq2seq.cpp — GRU encoder-decoder timings beside tools/bench/*_torch.py (make bench).
//
// 1. The book's model at larger sizes (as seq2seq_large_torch.py): Seq2SeqEncoder(5000, 256,
//    512, 2) and Seq2SeqAttentionDecoder(5000, 256, 512, 2, 0.1) on random (32, 20) source and
//    target ids, no valid lengths, both in training mode.
//      fwd_ms     median forward under NoGrad
//      fwdbwd_ms  median forward + sum(output).backward() + dropping the gradients
//    bench=seq2seq_large threads=.. fwd_ms=.. fwdbwd_ms=.. fwd_cpu_ms=.. fwdbwd_cpu_ms=..
//          check_out_sum=.. check_grad_sum=..
//    (the *_cpu_ms: process CPU time, the figure to compare at --threads 1 on a busy machine;
//    under OMP_WAIT_POLICY=PASSIVE, cpu / wall - 1 is the share of the step the other threads
//    worked; the check_* sums of one more seeded step agree to the last digit at any thread count)
// 2. The book's Bahdanau model (10.4) trained on the first 600 pairs of data/fra-eng/fra.txt
//    (`make data`) or ../shared/data/fra-eng/fra.txt (skipped when neither is there) for a few
//    epochs, as bahdanau_torch.py:
//    bench=bahdanau threads=.. epochs=.. tokens_per_sec=<last epoch> median_tokens_per_sec=..
// Then peak_rss_mb (getrusage, the figure /usr/bin/time -v reports).
// 3. --interleave: part 1's step at 1 thread and at --threads (default 2) in turn, --reps pairs
//    (bench_interleaved below), and nothing else.
// Options: --threads N (default: OpenMP's), --reps N (default 5), --epochs N (default 5),
// --seed N (the training run's, default 0), --no-large (skip part 1), --quick (2 reps, 2 epochs). Under load prefix
// OMP_WAIT_POLICY=PASSIVE on both sides (tools/bench/README.md).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"
#include "layers/bahdanau_attention.h"
#include "layers/seq2seq.h"
#include "tools/bench/bench_util.h"  // set_threads
#include "tools/d2l/cli/cli_args.h"
#include "tools/d2l/train/train_seq2seq.h"

using namespace d2l;

namespace {

int threads_in_use() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median wall and process-CPU milliseconds of `reps` calls after one warm-up. On a shared
// machine the wall time includes waiting for a core; with one thread the CPU time is what
// the wall time would be on an idle machine (with more threads it sums them).
template <class F>
std::pair<double, double> median_wall_cpu_ms(int reps, F f) {
  f();
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    const auto w0 = std::chrono::steady_clock::now();
    const double c0 = bench::process_cpu_ms();
    f();
    cpu.push_back(bench::process_cpu_ms() - c0);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
  }
  return {median(wall), median(cpu)};
}

Tensor random_ids(int64_t vocab, const Shape& shape) {
  Tensor t = empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(random_int(vocab));
  return t;
}

// The book's model at the seed's sizes (part 1) on one seeded batch of random ids.
struct SeedModel {
  Seq2SeqEncoder encoder{5000, 256, 512, 2};
  Seq2SeqAttentionDecoder decoder{5000, 256, 512, 2, 0.1f};
  EncoderDecoder net{encoder, decoder};
  Tensor src = random_ids(5000, {32, 20}), tgt = random_ids(5000, {32, 20});
  Tensor forward() {
    const DecoderState state = decoder.init_state(encoder(src), Tensor());
    return decoder(tgt, state).first;  // (32, 20, 5000)
  }
};

void bench_large(int reps) {
  manual_seed(0);
  SeedModel m;
  EncoderDecoder& net = m.net;
  auto forward = [&] { return m.forward(); };
  const auto [fwd, fwd_cpu] = median_wall_cpu_ms(reps, [&] {
    NoGrad no_grad;
    forward();
  });
  const auto [fwdbwd, fwdbwd_cpu] = median_wall_cpu_ms(reps, [&] {
    sum(forward()).backward();
    net.zero_grad();
  });
  // One more step from a fixed seed, its output and every gradient summed in double: the same
  // digits at any thread count (the kernels' sums run in an order fixed by the sizes).
  manual_seed(1);
  const Tensor out = forward();
  sum(out).backward();
  double out_sum = 0, grad_sum = 0;
  for (int64_t i = 0, n = out.numel(); i < n; ++i) out_sum += out.data()[i];
  for (const Tensor& p : net.parameters()) {
    const Tensor g = p.grad();
    for (int64_t i = 0, n = g.numel(); i < n; ++i) grad_sum += g.data()[i];
  }
  net.zero_grad();
  std::printf("bench=seq2seq_large threads=%d fwd_ms=%.2f fwdbwd_ms=%.2f fwd_cpu_ms=%.2f fwdbwd_cpu_ms=%.2f"
              " check_out_sum=%.17g check_grad_sum=%.17g\n",
              threads_in_use(), fwd, fwdbwd, fwd_cpu, fwdbwd_cpu, out_sum, grad_sum);
  std::fflush(stdout);
}

// --interleave: the same model's forward + backward steps at 1 thread and at `threads`, one
// after the other, `reps` pairs (after one warm-up step each). On a shared machine whose
// speed drifts from minute to minute (other tenants of the host), two runs a minute apart
// can differ by 30%; a pair's two steps are a second apart, so the median of the pairs'
// ratios compares the thread counts under the same conditions.
//   bench=seq2seq_interleaved threads=T pairs=.. fwdbwd_ms_1=.. fwdbwd_ms_T=.. (medians)
//         speedup=<median of the pairs' 1-thread / T-thread ratios> cores_T=<CPU / wall at T>
void bench_interleaved(int reps, int threads) {
  manual_seed(0);
  SeedModel m;
  auto step = [&] {
    sum(m.forward()).backward();
    m.net.zero_grad();
  };
  for (int t : {1, threads}) bench::set_threads(t), step();  // warm-up at both counts
  std::vector<double> one, many, ratio, cores;
  for (int i = 0; i < reps; ++i) {
    bench::set_threads(1);
    double w0 = bench::wall_ms();
    step();
    one.push_back(bench::wall_ms() - w0);
    bench::set_threads(threads);
    w0 = bench::wall_ms();
    const double c0 = bench::process_cpu_ms();
    step();
    many.push_back(bench::wall_ms() - w0);
    cores.push_back((bench::process_cpu_ms() - c0) / many.back());
    ratio.push_back(one.back() / many.back());
  }
  std::printf("bench=seq2seq_interleaved threads=%d pairs=%d fwdbwd_ms_1=%.2f fwdbwd_ms_%d=%.2f speedup=%.3f cores_%d=%.2f\n",
              threads, reps, median(one), threads, median(many), median(ratio), threads, median(cores));
  std::fflush(stdout);
}

void bench_bahdanau(int64_t epochs, uint64_t seed) {
  // The book's fra.txt from `make data`, else the shared copy beside the repository.
  const char* path = "data/fra-eng/fra.txt";
  if (!std::ifstream(path)) path = "../shared/data/fra-eng/fra.txt";
  if (!std::ifstream(path)) {
    std::printf("bench=bahdanau skipped: neither data/fra-eng/fra.txt nor %s found (run from the repository root)\n",
                path);
    return;
  }
  manual_seed(seed);
  const NmtData data = load_data_nmt(64, 10, 600, path);
  Seq2SeqEncoder encoder(data.src_vocab.size(), 32, 32, 2, 0.1f);
  Seq2SeqAttentionDecoder decoder(data.tgt_vocab.size(), 32, 32, 2, 0.1f);
  EncoderDecoder net(encoder, decoder);
  const TrainSeq2SeqResult r = train_seq2seq(net, data, 0.005f, epochs, data.tgt_vocab);
  std::printf("bench=bahdanau threads=%d seed=%llu epochs=%lld loss=%.4f tokens_per_sec=%.1f median_tokens_per_sec=%.1f\n",
              threads_in_use(), static_cast<unsigned long long>(seed), static_cast<long long>(epochs), r.loss, r.tokens_per_sec,
              median(r.epoch_tokens_per_sec));
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, threads = 0;
  int64_t epochs = 5;
  uint64_t seed = 0;
  bool large = true, interleave = false;
  const char* usage =
      "usage: seq2seq [--threads N] [--reps N] [--epochs N] [--seed N] [--no-large] [--quick] [--interleave]\n";
  try {  // numbers are range-checked (tools/d2l/cli/cli_args.h), never wrapped by atoi
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const bool has_value = i + 1 < argc;
      if (a == "--threads" && has_value) threads = static_cast<int>(d2l::parse_int_option("threads", argv[++i], 0, 1024));
      else if (a == "--reps" && has_value) reps = static_cast<int>(d2l::parse_int_option("reps", argv[++i], 1, 1000000));
      else if (a == "--epochs" && has_value) epochs = d2l::parse_int_option("epochs", argv[++i], 1, 100000);
      else if (a == "--seed" && has_value)
        seed = static_cast<uint64_t>(d2l::parse_int_option("seed", argv[++i], 0, std::numeric_limits<int64_t>::max()));
      else if (a == "--no-large") large = false;
      else if (a == "--interleave") interleave = true;
      else if (a == "--quick") reps = 2, epochs = 2;
      else if (a == "--help" || a == "-h") return std::fputs(usage, stdout), 0;
      else throw d2l::UsageError("unknown argument '" + a + "'");
    }
  } catch (const d2l::UsageError& e) {
    std::fprintf(stderr, "error: %s\n%s", e.what(), usage);
    return 2;
  }
  if (interleave) {  // part 1 only, 1 thread against --threads (default 2), step by step
    bench_interleaved(reps, threads > 0 ? threads : 2);
    return 0;
  }
  if (threads > 0) bench::set_threads(threads);
  if (large) bench_large(reps);
  bench_bahdanau(epochs, seed);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("peak_rss_mb=%.1f\n", ru.ru_maxrss / 1024.0);
  return 0;
}
