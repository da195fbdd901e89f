// core/fast/parallel.h — when a loop of the fast tier is worth an OpenMP fork.
//
// A parallel region costs a fork and a join: about 1 us with libgomp's spinning threads and
// about 13 us under OMP_WAIT_POLICY=PASSIVE (more when the woken thread waits for a core),
// while one core streams a few thousand floats per microsecond. So a loop forks only when
// its work is well above that cost; below these sizes it runs on the calling thread. The
// values were measured on whole training runs of the book's models on 2 cores
// (tools/bench/README.md, "Parallel thresholds"). The results never depend on them: every
// kernel splits work by output and sums in a fixed order.
#pragma once
#include <cstdint>

namespace d2l {
namespace fast {

// Element-wise loops, row kernels (softmax, layer norm, ...) and dropout: elements of work.
constexpr int64_t kParallelMin = 1 << 18;
// A GEMM: multiply-adds, M * N * K.
constexpr double kGemmParallelMin = 1 << 22;
// The GRU's gate math (three exps per element): batch * num_hiddens elements per step.
constexpr int64_t kGateParallelMin = 1 << 12;

}  // namespace fast
}  // namespace d2l
