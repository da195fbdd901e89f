// core/parallel.h — when an element-wise loop is worth an OpenMP fork.
//
// Starting a parallel region costs a few microseconds (waking the pool, a barrier at the
// end); an element-wise op streams ~1-4 GB/s per core through memory, i.e. a few thousand
// floats per microsecond. Below ~32k elements (128 KiB, about the L2 of one core) the fork
// costs more than the second core saves, so loops carry `if(n >= kParallelMin)`. The
// figure was chosen by timing `add` on 2 cores at sizes 4k..1M: 2 threads start to win
// between 16k and 64k elements. Most tensors of the book's models (batch 64 × 10 steps ×
// 32 hiddens = 20k floats) stay serial, and that is the right call.
#pragma once
#include <cstdint>

namespace d2l {
constexpr int64_t kParallelMin = 1 << 15;
}  // namespace d2l
