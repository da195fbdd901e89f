// core/kernels/softmax.h — the seam's kernels (seam.h) for softmax and the book's masked_softmax
// (10.3), called in core/ops/softmax.cpp; plain loops in reference/softmax.cpp, fast ones in fast/.
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// R rows (every index but the last), C columns: the softmax runs along each row.
//   y, x (R, C)               y = e^{x − max} / Σ e^{x − max}; y may be x (in place)
D2L_KERNEL(softmax_forward, float* y, const float* x, int64_t R, int64_t C);
//   dx, dy, y (R, C)          dx += y (dy − Σ_j dy_j y_j)
D2L_KERNEL(softmax_backward, float* dx, const float* dy, const float* y, int64_t R, int64_t C);
//   y, x (R, C)               y = x − max − log Σ e^{x − max}
D2L_KERNEL(log_softmax_forward, float* y, const float* x, int64_t R, int64_t C);
//   dx, dy, y (R, C)          dx += dy − e^{y} Σ_j dy_j
D2L_KERNEL(log_softmax_backward, float* dx, const float* dy, const float* y, int64_t R, int64_t C);
// d2l.sequence_mask: B rows, T steps, I the elements per step (the dims after the second).
//   y, X (B, T, I), valid_len (B)    y[b, t] = t < valid_len[b] ? X[b, t] : value
D2L_KERNEL(sequence_mask_forward, float* y, const float* X, const int64_t* valid_len, int64_t B, int64_t T, int64_t I,
           float value);
//   dX, dy (B, T, I), valid_len (B)  dX[b, t] += dy[b, t] for t < valid_len[b]
D2L_KERNEL(sequence_mask_backward, float* dX, const float* dy, const int64_t* valid_len, int64_t B, int64_t T,
           int64_t I);
// d2l.masked_softmax: B batch, Q queries, K keys; scores of keys at or past a row's valid
// length become -1e6 before the softmax. valid_lens holds one length per batch (per_query
// false: the book's 1-D valid_lens, repeated over the queries) or one per query (true).
//   y, X (B, Q, K), valid_lens (B) or (B, Q)
D2L_KERNEL(masked_softmax_forward, float* y, const float* X, const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K,
           bool per_query);
//   dX, dy, y (B, Q, K), valid_lens as above   masked scores get no gradient
D2L_KERNEL(masked_softmax_backward, float* dX, const float* dy, const float* y, const int64_t* valid_lens, int64_t B,
           int64_t Q, int64_t K, bool per_query);

}  // namespace d2l
