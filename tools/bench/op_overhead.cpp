// tools/bench/op_overhead.cpp — what one op costs beyond its arithmetic: a long chain of
// tiny ops on (1, 8) tensors, y = tanh(y * w + b) repeated (three ops a step: mul, add,
// tanh), where the eight-element kernels are nearly free and everything else is engine.
//
// Four timings of the same chain, each the median of --reps runs, in ns per op of the
// thread's CPU time (the chain runs on one thread, so on an idle machine this is its wall
// time, and on a busy one it leaves out the waits for a core):
//   nograd   forward under NoGrad: checks, output allocation, kernel, no graph
//   record   forward with the graph recorded, then the graph dropped unused
//   fwdbwd   forward with the graph, then sum(y).backward() (the per-op figure)
//   alloc    empty({1, 8}) and its release alone: the allocation inside every op
// and the parts they imply (per op):
//   forward   = nograd                 (of which alloc is the allocation)
//   recording = record - nograd        (keeping the inputs, the closure, freeing the graph)
//   backward  = fwdbwd - record        (the walk, the gradient buffers, the backward kernels)
// Prints
//   bench=op_overhead ops=.. nograd_ns=.. record_ns=.. fwdbwd_ns=.. alloc_ns=.. (medians)
// Options: --ops N (default 30000), --reps N (default 15), --quick (3000 ops, 5 reps).
// The chain is one thread's work (no op here is big enough to fork).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/random.h"

using namespace d2l;

namespace {

double thread_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Median thread-CPU milliseconds of `reps` calls of f, after one warm-up call.
template <class F>
double median_cpu_ms(int reps, F f) {
  f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = thread_cpu_ms();
    f();
    t.push_back(thread_cpu_ms() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t ops = 30000;
  int reps = 15;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ops") && i + 1 < argc) ops = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) ops = 3000, reps = 5;
    else {
      std::fprintf(stderr, "usage: %s [--ops N] [--reps N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  const int64_t steps = ops / 3;
  ops = 3 * steps;
  manual_seed(0);
  Tensor x = normal(0, 1, {1, 8}), w = normal(0, 1, {1, 8}), b = normal(0, 1, {1, 8});
  x.requires_grad_();
  w.requires_grad_();
  b.requires_grad_();
  auto chain = [&] {
    Tensor y = x;
    for (int64_t s = 0; s < steps; ++s) y = tanh(y * w + b);
    return y;
  };
  float sink = 0.0f;  // keeps the compiler from dropping the work
  const double nograd = median_cpu_ms(reps, [&] {
    NoGrad no_grad;
    sink += chain().data()[0];
  });
  const double record = median_cpu_ms(reps, [&] { sink += chain().data()[0]; });
  const double fwdbwd = median_cpu_ms(reps, [&] {
    sum(chain()).backward();
    sink += x.grad_data()[0];
    for (Tensor* p : {&x, &w, &b}) p->zero_grad();
  });
  const double alloc = median_cpu_ms(reps, [&] {
    for (int64_t i = 0; i < ops; ++i) sink += empty({1, 8}).numel();
  });
  const double ns = 1e6 / double(ops);
  std::printf("bench=op_overhead ops=%lld nograd_ns=%.0f record_ns=%.0f fwdbwd_ns=%.0f alloc_ns=%.0f"
              " (per op, medians of %d; forward %.0f, recording %.0f, backward %.0f)\n",
              static_cast<long long>(ops), nograd * ns, record * ns, fwdbwd * ns, alloc * ns, reps, nograd * ns,
              (record - nograd) * ns, (fwdbwd - record) * ns);
  return sink == 12345.0f;  // never; reading sink keeps the loops
}
