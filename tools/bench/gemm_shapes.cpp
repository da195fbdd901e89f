// tools/bench/gemm_shapes.cpp — the fast tier's GEMM against OpenBLAS at the shapes the
// book's models run, and the GEMM limit of the NLI model (15.5) in examples per second.
//
// A model is a list of products, each as one training step (forward and backward) runs
// it: batch, M, N, K, the transpose flags, whether it adds into C (a gradient), and how many
// times per step. For each product both libraries are timed, medians of blocks of calls:
// OpenBLAS in a child process, then ours in this one (see openblas_seconds for why):
//   bench=gemm_shapes model=.. product=.. threads=.. gflops=.. openblas_gflops=.. ratio=..
// and for the model as a whole (the sum of the products' times, count times each):
//   bench=gemm_shapes model=nli threads=.. step_mflop=.. ours_ms=.. openblas_ms=..
//         mflop_per_example=.. openblas_limit_examples_per_sec=..
// The NLI limit is the speed the model would reach if it did nothing but its GEMMs at
// OpenBLAS's rate: batch_size / openblas_ms. Batched products (bmm) are one OpenBLAS call per
// matrix, the matrices shared among the threads with OpenBLAS on one thread each (how our
// gemm_batched runs them); single products call OpenBLAS with all threads.
// Usage: gemm_shapes [--model nli|seq2seq|seed|mha|all] [--threads T] [--rounds R] [--quick] [--cpu-time]
// (--model seed: 10.4's encoder-decoder at build/bench/seq2seq's sizes, product by product;
// --cpu-time: one thread, timed by its CPU time; for a machine that other jobs keep busy)
// With --model nli (or all) the NLI model itself is timed too, in the same process: training
// steps of DecomposableAttention (batch 256, 50 + 50 tokens, the shared SNLI set's vocabulary
// of 2763 words, the book's sizes; forward, the summed cross-entropy, backward, Adam) as
// train_ch13 times them, alternated with the GEMM limit's measurement (--rounds, default 3):
//   bench=gemm_shapes model=nli_train threads=.. round=.. examples_per_sec=..
//         openblas_limit_examples_per_sec=.. of_limit=..
// and the medians over the rounds (round=median). Each round also times OpenBLAS on one
// 1024 x 1024 x 1024 product with the same threads (the machine's square-GEMM rate) and prints
// the model against that rate at 90.7 MFLOP per example: square1024_openblas_gflops=..
// square_limit_examples_per_sec=.. of_square_limit=..
#include <cblas.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/kernels/fast/gemm.h"
#include "core/ops.h"
#include "core/nn/optim.h"
#include "core/random.h"
#include "layers/natural_language_inference_attention.h"
#include "tools/bench/bench_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

struct Product {
  const char* name;
  int64_t batch, M, N, K;
  bool ta, tb, acc;
  int64_t count;  // per training step
};

// nn.Linear y = x Wᵀ (M rows, K in, N out) as a step runs it: the forward, then dx = dy W
// (unless the input needs no gradient) and dW = dyᵀ x, both adding into gradients.
void add_linear(std::vector<Product>& v, const char* name, int64_t M, int64_t K, int64_t N, int64_t count,
                bool dx = true) {
  v.push_back({name, 1, M, N, K, false, true, false, count});
  if (dx) v.push_back({name, 1, M, K, N, false, false, true, count});
  v.push_back({name, 1, N, K, M, true, false, true, count});
}
// bmm C = op(A) op(B) (batch, M, N, K) and its two gradients (core/kernels/fast/matmul.cpp).
void add_bmm(std::vector<Product>& v, const char* name, int64_t batch, int64_t M, int64_t N, int64_t K, bool tb,
             int64_t count) {
  v.push_back({name, batch, M, N, K, false, tb, false, count});
  v.push_back({name, batch, M, K, N, false, !tb, true, count});  // dA = dC op(B)ᵀ
  if (!tb) v.push_back({name, batch, K, N, M, true, false, true, count});  // dB = op(A)ᵀ dC
  else v.push_back({name, batch, N, K, M, true, false, true, count});      // dB = dCᵀ op(A)
}

// DecomposableAttention (15.5): batch 256, 50 tokens each side, embed 100, hidden 200.
std::vector<Product> nli_products(int64_t* batch_size) {
  const int64_t Bt = 256, T = 50, E = 100, H = 200, R = Bt * T;
  *batch_size = Bt;
  std::vector<Product> v;
  add_linear(v, "attend.f.linear1", R, E, H, 2);  // f(A), f(B); dx feeds the trained embedding
  add_linear(v, "attend.f.linear2", R, H, H, 2);
  add_bmm(v, "attend.e", Bt, T, T, H, true, 2);    // e = f(A) f(B)ᵀ and eᵀ
  add_bmm(v, "attend.beta", Bt, T, E, T, false, 2);  // beta = softmax(e) B, alpha likewise
  add_linear(v, "compare.g.linear1", R, 2 * E, H, 2);
  add_linear(v, "compare.g.linear2", R, H, H, 2);
  add_linear(v, "aggregate.h.linear1", Bt, 2 * H, H, 1);
  add_linear(v, "aggregate.h.linear2", Bt, H, H, 1);
  add_linear(v, "aggregate.linear", Bt, H, 3, 1);
  return v;
}

// The seq2seq models' small products (10.4 Bahdanau, 10.7 Transformer): batch 64, 10 steps,
// 32 hidden units, a target vocabulary of about 200 words.
std::vector<Product> seq2seq_products() {
  std::vector<Product> v;
  add_linear(v, "gru.ih(640x32->96)", 640, 32, 96, 1);
  add_linear(v, "dec.gru.ih(64x64->96)", 64, 64, 96, 1);
  add_linear(v, "gru.hh(64x32->96)", 64, 32, 96, 1);
  add_linear(v, "attn.W_k(640x32->32)", 640, 32, 32, 1);
  add_linear(v, "attn.W_q(64x32->32)", 64, 32, 32, 1);
  add_linear(v, "ffn.dense1(640x32->64)", 640, 32, 64, 1);
  add_linear(v, "ffn.dense2(640x64->32)", 640, 64, 32, 1);
  add_linear(v, "dense(640x32->201)", 640, 32, 201, 1);
  add_bmm(v, "heads.QK(256x10x10x8)", 256, 10, 10, 8, true, 1);
  add_bmm(v, "heads.AV(256x10x8x10)", 256, 10, 8, 10, false, 1);
  return v;
}

// 10.4's encoder-decoder at the sizes of build/bench/seq2seq (vocab 5000, embed 256, hidden 512,
// two GRU layers, batch 32 x 20 steps): the products of one forward + backward, as the layers
// run them (the decoder's attention and GRU one step at a time, its dense after the loop).
std::vector<Product> seed_products() {
  std::vector<Product> v;
  add_linear(v, "enc.gru0.ih(640x256->1536)", 640, 256, 1536, 1, false);
  add_linear(v, "enc.gru1.ih(640x512->1536)", 640, 512, 1536, 1);
  add_linear(v, "gru.hh(32x512->1536)", 32, 512, 1536, 4 * 20);
  add_linear(v, "attn.W_k(640x512->512)", 640, 512, 512, 20);
  add_linear(v, "attn.W_q(32x512->512)", 32, 512, 512, 20);
  add_linear(v, "dec.gru0.ih(32x768->1536)", 32, 768, 1536, 20);
  add_linear(v, "dec.gru1.ih(32x512->1536)", 32, 512, 1536, 20);
  add_linear(v, "dense(640x512->5000)", 640, 512, 5000, 1);
  return v;
}

// MultiHeadAttention (10.5) at (8, 200, 512, 8): four projections, 64 heads of 200 x 64.
std::vector<Product> mha_products() {
  std::vector<Product> v;
  add_linear(v, "W_q/k/v/o(1600x512->512)", 1600, 512, 512, 4);
  add_bmm(v, "heads.QK(64x200x200x64)", 64, 200, 200, 64, true, 1);
  add_bmm(v, "heads.AV(64x200x64x200)", 64, 200, 64, 200, false, 1);
  return v;
}

// The square product whose OpenBLAS rate sets the NLI model's second limit: the machine's
// GEMM rate, as against the rate at the model's own (smaller, thinner) shapes.
std::vector<Product> square1024_products() { return {{"1024^3", 1, 1024, 1024, 1024, false, false, false, 1}}; }
// The NLI model's FLOPs per example, forward and backward, as counted for that limit: Attend's
// f (100 -> 200 -> 200) and Compare's g (200 -> 200 -> 200) on 50 + 50 tokens, the three bmms
// and Aggregate, without the gradient of the first layer's input (the embedding's).
constexpr double kNliSquareMflopPerExample = 90.7;

// Square products, for comparison with the matmul bench.
std::vector<Product> square_products() {
  return {{"256^3", 1, 256, 256, 256, false, false, false, 1},
          {"512^3", 1, 512, 512, 512, false, false, false, 1},
          {"512^3 ta", 1, 512, 512, 512, true, false, true, 1}};
}

// --cpu-time: the calling thread's CPU time instead of the wall clock. With one thread it
// leaves out the waits for a core, so a busy machine still gives usable figures.
bool g_cpu_time = false;
double now() {
  if (g_cpu_time) {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

void blas_threads(int t) { openblas_set_num_threads(t); }

// One product with OpenBLAS, as described at the top.
void blas_product(const Product& p, const float* A, const float* B, float* C, int threads) {
  const int64_t lda = p.ta ? p.M : p.K, ldb = p.tb ? p.K : p.N;
  auto one = [&](int64_t b) {
    cblas_sgemm(CblasRowMajor, p.ta ? CblasTrans : CblasNoTrans, p.tb ? CblasTrans : CblasNoTrans, p.M, p.N, p.K, 1.0f,
                A + b * p.M * p.K, lda, B + b * p.K * p.N, ldb, p.acc ? 1.0f : 0.0f, C + b * p.M * p.N, p.N);
  };
  if (p.batch == 1) {
    blas_threads(threads);
    one(0);
    return;
  }
  blas_threads(1);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t b = 0; b < p.batch; ++b) one(b);
}

void our_product(const Product& p, const float* A, const float* B, float* C) {
  if (p.batch == 1) d2l::fast::gemm(p.ta, p.tb, p.M, p.N, p.K, A, B, C, p.acc);
  else d2l::fast::gemm_batched(p.ta, p.tb, p.batch, p.M, p.N, p.K, A, B, C, p.acc);
}

struct Timing {
  double ours_s, blas_s;
};

// Seconds per call of one library on one product: the median of blocks of calls, each
// block >= 10 ms.
double time_calls(const Product& p, int threads, double budget, bool openblas) {
  const size_t nA = p.batch * p.M * p.K, nB = p.batch * p.K * p.N, nC = p.batch * p.M * p.N;
  std::vector<float> A(nA), B(nB), C(nC);
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  for (float& x : A) x = U(gen);
  for (float& x : B) x = U(gen);
  for (float& x : C) x = U(gen);
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  auto call = [&] {
    if (openblas) blas_product(p, A.data(), B.data(), C.data(), threads);
    else our_product(p, A.data(), B.data(), C.data());
  };
  auto seconds = [&](int calls) {
    const double t0 = now();
    for (int c = 0; c < calls; ++c) call();
    return (now() - t0) / calls;
  };
  call();
  const double single = std::max(seconds(1), 1e-7);
  const int calls = std::max(1, int(10e-3 / single));
  const int blocks = std::clamp(int(budget / (single * calls)), 3, 20);
  std::vector<double> t;
  for (int r = 0; r < blocks; ++r) t.push_back(seconds(calls));
  return median(t);
}

// OpenBLAS's side runs in a child process (this program again, with --openblas-side), so
// the two libraries never share a process: OpenBLAS's idle workers spin (sched_yield) for a
// long while after each call, and libgomp's after each parallel region, and either took a
// core from the other (measured in one process: our 2-thread GEMM at 3-45 GFLOP/s right
// after OpenBLAS blocks, against 140-170 alone; pauses of 150 ms between blocks did not
// cure it, and OpenBLAS with its shortest wait, OPENBLAS_THREAD_TIMEOUT=4, ran at half its
// 2-thread speed). The child prints seconds per call, one product per line.
std::string g_self;  // argv[0], to run the child
std::vector<double> openblas_seconds(const char* model, size_t count, int threads, double budget) {
  const std::string cmd = "'" + g_self + "' --openblas-side " + model + " --threads " + std::to_string(threads) +
                          " --budget " + std::to_string(budget) + (g_cpu_time ? " --cpu-time" : "");
  FILE* child = popen(cmd.c_str(), "r");
  std::vector<double> t;
  double v;
  while (child && std::fscanf(child, "%lf", &v) == 1) t.push_back(v);
  if (!child || pclose(child) != 0 || t.size() != count) {
    std::fprintf(stderr, "error: gemm_shapes: the OpenBLAS side (%s) gave %zu of %zu timings\n", cmd.c_str(), t.size(),
                 count);
    std::exit(1);
  }
  return t;
}

// Returns OpenBLAS's seconds for one step's products.
double run_model(const char* model, const std::vector<Product>& products, int64_t examples, int threads, double budget) {
  const std::vector<double> blas_s = openblas_seconds(model, products.size(), threads, budget);
  double flop = 0, ours = 0, blas = 0;
  for (size_t i = 0; i < products.size(); ++i) {
    const Product& p = products[i];
    const double f = 2.0 * p.batch * p.M * p.N * p.K;
    const Timing t{time_calls(p, threads, budget, false), blas_s[i]};
    std::printf("bench=gemm_shapes model=%s product=%s batch=%lld M=%lld N=%lld K=%lld ta=%d tb=%d threads=%d"
                " gflops=%.1f openblas_gflops=%.1f ratio=%.2f\n",
                model, p.name, (long long)p.batch, (long long)p.M, (long long)p.N, (long long)p.K, p.ta, p.tb, threads,
                f / t.ours_s * 1e-9, f / t.blas_s * 1e-9, t.blas_s / t.ours_s);
    std::fflush(stdout);
    flop += f * p.count;
    ours += t.ours_s * p.count;
    blas += t.blas_s * p.count;
  }
  std::printf("bench=gemm_shapes model=%s threads=%d step_mflop=%.1f ours_ms=%.3f openblas_ms=%.3f"
              " ours_gflops=%.1f openblas_gflops=%.1f",
              model, threads, flop * 1e-6, ours * 1e3, blas * 1e3, flop / ours * 1e-9, flop / blas * 1e-9);
  if (examples > 0)
    std::printf(" mflop_per_example=%.2f openblas_limit_examples_per_sec=%.1f ours_limit_examples_per_sec=%.1f",
                flop * 1e-6 / examples, examples / blas, examples / ours);
  std::printf("\n");
  std::fflush(stdout);
  return blas;
}

// Seconds per training step of the NLI model (the median of `steps` after one warm-up step),
// timed from the forward to Adam's step, as train_ch13's timer.
double nli_step_seconds(int threads, int steps) {
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  const int64_t batch = 256, T = 50, vocab = 2763;
  d2l::manual_seed(0);
  d2l::DecomposableAttention net(vocab, 100, 200);
  d2l::Adam trainer(net.parameters(), 0.001f);
  const d2l::Tensor premises = d2l::randint(0, vocab, {batch, T}), hypotheses = d2l::randint(0, vocab, {batch, T});
  const d2l::Tensor labels = d2l::randint(0, 3, {batch});
  net.train();
  auto step = [&] {
    trainer.zero_grad();
    d2l::Tensor l = d2l::sum(d2l::softmax_cross_entropy(net(premises, hypotheses), labels));
    l.backward();
    trainer.step();
  };
  return d2l::bench::median_time(steps, step, now);
}

// The NLI model against its GEMM limit, alternating the two measurements round by round.
void run_nli_against_limit(int threads, double budget, int rounds, int steps) {
  int64_t examples = 0;
  const auto products = nli_products(&examples);
  std::vector<double> ours, limit, ratio, square, square_ratio;
  for (int r = 0; r < rounds; ++r) {
    const double blas_s = run_model("nli", products, examples, threads, budget);
    const double sq_s = openblas_seconds("square1024", 1, threads, budget)[0];
    const double step_s = nli_step_seconds(threads, steps);
    ours.push_back(examples / step_s);
    limit.push_back(examples / blas_s);
    ratio.push_back(ours.back() / limit.back());
    const double sq_gflops = 2.0 * 1024 * 1024 * 1024 / sq_s * 1e-9;
    square.push_back(sq_gflops * 1e3 / kNliSquareMflopPerExample);
    square_ratio.push_back(ours.back() / square.back());
    std::printf("bench=gemm_shapes model=nli_train threads=%d round=%d examples_per_sec=%.1f"
                " openblas_limit_examples_per_sec=%.1f of_limit=%.3f square1024_openblas_gflops=%.1f"
                " square_limit_examples_per_sec=%.1f of_square_limit=%.3f\n",
                threads, r, ours.back(), limit.back(), ratio.back(), sq_gflops, square.back(), square_ratio.back());
    std::fflush(stdout);
  }
  std::printf("bench=gemm_shapes model=nli_train threads=%d round=median examples_per_sec=%.1f"
              " openblas_limit_examples_per_sec=%.1f of_limit=%.3f square_limit_examples_per_sec=%.1f"
              " of_square_limit=%.3f\n",
              threads, median(ours), median(limit), median(ratio), median(square), median(square_ratio));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = "all", openblas_side;
  int threads = 0;
  double budget = 0.4;
  int rounds = 3, steps = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--model") && i + 1 < argc) model = argv[++i];
    else if (!std::strcmp(argv[i], "--openblas-side") && i + 1 < argc) openblas_side = argv[++i];  // internal
    else if (!std::strcmp(argv[i], "--budget") && i + 1 < argc) budget = std::atof(argv[++i]);    // internal
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--quick")) budget = 0.05, rounds = 1, steps = 2;
    else if (!std::strcmp(argv[i], "--cpu-time")) g_cpu_time = true;
    else {
      const bool help = !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
      std::fprintf(help ? stdout : stderr,
                   "usage: %s [--model nli|seq2seq|seed|mha|all] [--threads T] [--rounds R] [--quick] [--cpu-time]\n", argv[0]);
      return help ? 0 : 2;
    }
  }
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  g_self = len > 0 ? std::string(self, size_t(len)) : std::string(argv[0]);
  if (!openblas_side.empty()) {  // the child of openblas_seconds: OpenBLAS's timings only
    int64_t examples = 0;
    const std::vector<Product> products = openblas_side == "nli" ? nli_products(&examples)
                                          : openblas_side == "seq2seq" ? seq2seq_products()
                                          : openblas_side == "mha" ? mha_products()
                                          : openblas_side == "seed" ? seed_products()
                                          : openblas_side == "square1024" ? square1024_products() : square_products();
    for (const Product& p : products) std::printf("%.9e\n", time_calls(p, std::max(threads, 1), budget, true));
    return 0;
  }
  if (model != "nli" && model != "seq2seq" && model != "mha" && model != "all" && model != "square" &&
      model != "seed") {
    std::fprintf(stderr, "error: unknown --model '%s' (nli, seq2seq, seed, mha, all or square)\n", model.c_str());
    return 2;
  }
  if (g_cpu_time) threads = 1;  // a thread's CPU time says nothing about the others
  std::vector<int> thread_counts = threads > 0 ? std::vector<int>{threads} : std::vector<int>{1, 2};
  for (int t : thread_counts) {
    if (model == "nli" || model == "all") run_nli_against_limit(t, budget, rounds, steps);
    if (model == "seq2seq" || model == "all") run_model("seq2seq", seq2seq_products(), 0, t, budget);
    if (model == "mha" || model == "all") run_model("mha", mha_products(), 0, t, budget);
    if (model == "seed") run_model("seed", seed_products(), 0, t, budget);
    if (model == "square")
      run_model("square", square_products(), 0, t, budget);
  }
  return 0;
}
