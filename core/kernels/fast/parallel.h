// core/kernels/fast/parallel.h — when a loop of the fast tier is worth an OpenMP fork.
//
// A parallel region costs a fork and a join: about 1 us with libgomp's spinning threads and
// about 13 us under OMP_WAIT_POLICY=PASSIVE (more when the woken thread waits for a core),
// while one core streams a few thousand floats per microsecond. So a loop forks only when
// its work is well above that cost; below these sizes it runs on the calling thread. The
// values were measured on whole training runs of the book's models on 2 cores
// (tools/bench/README.md, "Parallel thresholds"). The results never depend on them: every
// kernel splits work by output and sums in a fixed order.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace d2l {
namespace fast {

// Element-wise loops, row kernels (softmax, layer norm, ...) and dropout: elements of work.
constexpr int64_t kParallelMin = 1 << 18;
// A GEMM: multiply-adds, M * N * K.
constexpr double kGemmParallelMin = 1 << 22;
// The GRU's gate math (three exps per element): batch * num_hiddens elements per step.
constexpr int64_t kGateParallelMin = 1 << 12;

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Runs body(i) for i in [0, n): shared among the OpenMP threads (a static schedule) when
// `fork` is true, else as a plain loop on the calling thread. The test is made here rather
// than in an if() clause on the pragma because a parallel region whose if() is false still
// costs ~0.4 us in libgomp (it sets up a team of one): more than a small op's whole work.
template <class F>
inline void parallel_for(int64_t n, bool fork, F&& body) {
  if (!fork) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) body(i);
}

// Inside a parallel region: this thread's part [*lo, *hi) of n items cut in order into one
// contiguous block per thread (thread p always gets the same block for the same n, so what it
// read last call may still be in its cache). Outside one: all n.
inline void team_share(int64_t n, int64_t* lo, int64_t* hi) {
  int64_t p = 0, T = 1;
#ifdef _OPENMP
  p = omp_get_thread_num();
  T = omp_get_num_threads();
#endif
  *lo = p * n / T;
  *hi = (p + 1) * n / T;
}

// Runs body(c0, c1) over chunks [c0, c1) that together cover [0, n) once, shared by the threads
// of a parallel region it opens. Thread p first takes its own block of items (team_share's: the
// same at every call, so what it read last call may still be in its core's cache) from the
// front, up to `step` items at a time; then it helps with what is left of the others' blocks.
// On an idle machine every thread does exactly its own block; when the scheduler wakes one
// late, or a neighbour's process preempts it, the others finish its block. (Only the split
// changes, never an item's arithmetic.)
struct alignas(64) BlockCursor {  // a line each: the owner's claims do not contend with others'
  std::atomic<int64_t> next{0};
  int64_t end = 0;
};
template <class F>
inline void shared_blocks(int64_t n, int64_t step, F&& body) {
  int T = 1;
#ifdef _OPENMP
  T = omp_get_max_threads();
#endif
  std::vector<BlockCursor> cursor(static_cast<size_t>(T));
  for (int p = 0; p < T; ++p) {
    cursor[p].next.store(p * n / T, std::memory_order_relaxed);
    cursor[p].end = (p + 1) * n / T;
  }
#pragma omp parallel num_threads(T)
  {
    int p = 0;
#ifdef _OPENMP
    p = omp_get_thread_num();
#endif
    for (int v = 0; v < T; ++v) {  // its own block first, then the next threads' in turn
      BlockCursor& c = cursor[static_cast<size_t>((p + v) % T)];
      for (int64_t c0; (c0 = c.next.fetch_add(step, std::memory_order_relaxed)) < c.end;)
        body(c0, std::min(c.end, c0 + step));
    }
  }
}

}  // namespace fast
}  // namespace d2l
