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
#include <chrono>
#include <cstdint>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>  // _mm_pause
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

// The join, before OpenMP's barrier: each thread of a team says it has finished its share,
// then spins (bounded by kJoinSpin) until all have. Under OMP_WAIT_POLICY=PASSIVE a thread
// that reaches OpenMP's barrier first goes to sleep at once, and waking it again costs tens of
// microseconds; on the seed-sized seq2seq step (~500 regions) that was the calling thread's
// wait at nearly every join. Spinning here, the threads reach the barrier together and nobody
// sleeps; if the others are late (a busy machine took their core) the spin gives up and the
// barrier sleeps as before. Correctness never rests on it: every thread still meets the barrier.
constexpr std::chrono::microseconds kJoinSpin{60};
class TeamJoin {
 public:
  // Thread calls this at the end of its share; `meeting` counts this team's joins from 1.
  void arrive_and_spin(int64_t meeting) {
    int T = 1;
#ifdef _OPENMP
    T = omp_get_num_threads();
#endif
    if (T == 1) return;
    const int64_t target = meeting * T;
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 >= target) return;
    const auto give_up = std::chrono::steady_clock::now() + kJoinSpin;
    for (int i = 1; arrived_.load(std::memory_order_acquire) < target; ++i) {
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
      if (i % 32 == 0 && std::chrono::steady_clock::now() > give_up) return;
    }
  }

 private:
  alignas(64) std::atomic<int64_t> arrived_{0};
};

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
  TeamJoin join;
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
    join.arrive_and_spin(1);
  }
}

// Runs body(i) for i in [0, n): shared among the OpenMP threads when `fork` is true, else as a
// plain loop on the calling thread. Each thread takes its own contiguous block in quarters and
// then helps finish the others' (shared_blocks), so a worker woken late does not hold up the
// caller. The test is made here rather than in an if() clause on the pragma because a parallel
// region whose if() is false still costs ~0.4 us in libgomp (it sets up a team of one): more
// than a small op's whole work.
template <class F>
inline void parallel_for(int64_t n, bool fork, F&& body) {
  if (!fork) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  int T = 1;
#ifdef _OPENMP
  T = omp_get_max_threads();
#endif
  shared_blocks(n, std::max<int64_t>(1, ceil_div(n, 4 * int64_t(T))), [&](int64_t c0, int64_t c1) {
    for (int64_t i = c0; i < c1; ++i) body(i);
  });
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

}  // namespace fast
}  // namespace d2l
