// core/parallel.h — when an element-wise loop is worth an OpenMP fork.
//
// A parallel region costs a fork and a join. With libgomp's default (threads spin a while
// before sleeping) an empty region takes 0.8 us on the 2-core machine; with
// OMP_WAIT_POLICY=PASSIVE (the setting for a busy machine, and what a fair benchmark against
// PyTorch uses) it takes 13 us, and more when the woken thread waits for a core. An
// element-wise op streams a few thousand floats per microsecond per core.
//
// The threshold was first set at 32k elements (2 threads beat 1 from 16k-64k elements when
// timing `add` with spinning threads). Measured on whole training runs, that made 2 threads
// lose to 1 under PASSIVE: Transformer 22.5k vs 36.9k tokens/sec, Bahdanau 44.6k vs 63.9k,
// since the book's models fork often on mid-size tensors. At 256k elements (1 MiB) PASSIVE
// 2-thread runs match the 1-thread ones (37.0k, 62.6k) and the NLI model, whose tensors are
// 2.56M floats (256 x 50 x 200), still runs 1.6x faster on 2 threads than on 1.
#pragma once
#include <cstdint>

namespace d2l {
constexpr int64_t kParallelMin = 1 << 18;
}  // namespace d2l
