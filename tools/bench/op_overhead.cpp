// tools/bench/op_overhead.cpp — what one op costs beyond its arithmetic: a long chain of
// tiny ops on (1, 8) tensors, y = tanh(y * w + b) repeated (three ops a step: mul, add,
// tanh), where the eight-element kernels are nearly free and everything else is engine.
//
// Timings of the same chain, each the median of --reps runs, in ns per op of the thread's
// CPU time (the chain runs on one thread, so on an idle machine this is its wall time, and
// on a busy one it leaves out the waits for a core):
//   nograd   forward under NoGrad: checks, output allocation, kernel, no graph
//   record   forward with the graph recorded, then the graph dropped unused
//   fwdbwd   forward with the graph, then sum(y).backward() (the per-op figure)
//   bwd      the backward() call of fwdbwd alone (the forward before it untimed)
//   alloc    empty({1, 8}) and its release alone: the allocation inside every op, and the
//            same as a gradient buffer costs in backward
//   kernels  the chain's forward and backward kernels alone (core/kernels/elementwise.h) on buffers
//            allocated once: the arithmetic, which the engine adds everything else to
// and the parts they imply (per op):
//   forward   = nograd                 (of which alloc is the allocation, kernels_fwd the kernel)
//   recording = record - nograd        (keeping the inputs, the closure, freeing the graph)
//   backward  = bwd                    (the walk, the gradient buffers, the backward kernels,
//                                       freeing the graph as it goes)
//   walk      = bwd - kernels_bwd - alloc  (ordering the graph, checking versions, dispatch)
// Prints
//   bench=op_overhead ops=.. nograd_ns=.. record_ns=.. fwdbwd_ns=.. bwd_ns=.. alloc_ns=..
//     kernels_fwd_ns=.. kernels_bwd_ns=.. (medians), then a line of the parts.
// Options: --ops N (default 30000), --reps N (default 15), --quick (3000 ops, 5 reps).
// The chain is one thread's work (no op here is big enough to fork).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/elementwise.h"
#include "core/ops.h"
#include "core/random.h"
#include "tools/bench/bench_util.h"

using namespace d2l;

namespace {

using bench::thread_cpu_ms;

// Median thread-CPU milliseconds of `reps` calls of f, after one warm-up call.
template <class F>
double median_cpu_ms(int reps, F f) {
  return bench::median_time(reps, f, thread_cpu_ms);
}

// The same, timing only `timed` in each run, after an untimed `setup` that returns its input.
template <class S, class F>
double median_cpu_ms(int reps, S setup, F timed) {
  timed(setup());
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto in = setup();
    const double t0 = thread_cpu_ms();
    timed(std::move(in));
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
  const double bwd = median_cpu_ms(reps, chain, [&](Tensor y) {
    sum(y).backward();
    sink += x.grad_data()[0];
    for (Tensor* p : {&x, &w, &b}) p->zero_grad();
  });
  const double alloc = median_cpu_ms(reps, [&] {
    for (int64_t i = 0; i < ops; ++i) sink += empty({1, 8}).numel();
  });
  // The chain's kernels on fixed buffers: per step mul, add, tanh forward, and their
  // backward kernels in reverse order, as the engine calls them.
  std::vector<float> h(8, 0.5f), u(8), v(8), gy(8, 1.0f), gu(8), gv(8), gh(8), gw(8), gb(8);
  const kernels::Broadcast same{{1, 8}, {1, 8}, {1, 8}};
  const float* wd = std::as_const(w).data();  // read only: no version bump
  const float* bd = std::as_const(b).data();
  const double kernels_fwd = median_cpu_ms(reps, [&] {
    for (int64_t s = 0; s < steps; ++s) {
      kernels::binary_forward(u.data(), h.data(), wd, same, kernels::Binary::mul);
      kernels::binary_forward(v.data(), u.data(), bd, same, kernels::Binary::add);
      kernels::unary_forward(h.data(), v.data(), 8, kernels::Unary::tanh, 0.0f);
    }
    sink += h[0];
  });
  const double kernels_bwd = median_cpu_ms(reps, [&] {
    for (int64_t s = 0; s < steps; ++s) {
      kernels::unary_backward(gv.data(), gy.data(), v.data(), h.data(), 8, kernels::Unary::tanh, 0.0f);
      kernels::binary_backward(gu.data(), gb.data(), gv.data(), u.data(), bd, same, kernels::Binary::add);
      kernels::binary_backward(gh.data(), gw.data(), gu.data(), h.data(), wd, same, kernels::Binary::mul);
    }
    sink += gh[0];
  });
  const double ns = 1e6 / double(ops);
  std::printf("bench=op_overhead ops=%lld nograd_ns=%.0f record_ns=%.0f fwdbwd_ns=%.0f bwd_ns=%.0f alloc_ns=%.0f"
              " kernels_fwd_ns=%.0f kernels_bwd_ns=%.0f (per op, medians of %d)\n",
              static_cast<long long>(ops), nograd * ns, record * ns, fwdbwd * ns, bwd * ns, alloc * ns,
              kernels_fwd * ns, kernels_bwd * ns, reps);
  std::printf("parts per op: forward %.0f (allocation %.0f, kernel %.0f, checks and the rest %.0f), "
              "recording %.0f, backward %.0f (gradient buffers ~%.0f, kernels %.0f, walk and dispatch %.0f)\n",
              nograd * ns, alloc * ns, kernels_fwd * ns, (nograd - alloc - kernels_fwd) * ns, (record - nograd) * ns,
              bwd * ns, alloc * ns, kernels_bwd * ns, (bwd - alloc - kernels_bwd) * ns);
  return sink == 12345.0f;  // never; reading sink keeps the loops
}
