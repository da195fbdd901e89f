// core/kernels/nn.h — the seam's kernels for dropout, layer norm and the cross-entropy loss.
// Called in core/ops/nn.cpp; plain loops in core/kernels/reference/nn.cpp, fast ones in
// core/kernels/fast/nn.cpp (conventions and the D2L_KERNEL macro: core/kernels/seam.h).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// Inverted dropout over n elements: element i is kept iff dropout_keeps(i, key, threshold)
// (core/random.h), and kept elements are scaled by `scale` = 1/(1−p).
//   y, x (n)                  y = keep ? x scale : 0
D2L_KERNEL(dropout_forward, float* y, const float* x, int64_t n, uint64_t key, uint32_t threshold, float scale);
//   dx, dy (n)                dx += keep ? dy scale : 0   (the mask recomputed from key)
D2L_KERNEL(dropout_backward, float* dx, const float* dy, int64_t n, uint64_t key, uint32_t threshold, float scale);
// Layer norm over the last N entries of each of R rows (10.7); gamma, beta may be null.
//   y, xhat, x (R, N), rstd (R), gamma, beta (N)
//   xhat = (x − mean) rstd, rstd = 1/sqrt(var + eps) (biased var), y = gamma xhat + beta
D2L_KERNEL(layer_norm_forward, float* y, float* xhat, float* rstd, const float* x, const float* gamma,
           const float* beta, int64_t R, int64_t N, float eps);
//   dx, dy, xhat (R, N), dgamma, dbeta, gamma (N), rstd (R); with g = dy gamma:
//   dx += rstd/N (N g − Σ g − xhat Σ g xhat),  dgamma += Σ_rows dy xhat,  dbeta += Σ_rows dy
D2L_KERNEL(layer_norm_backward, float* dx, float* dgamma, float* dbeta, const float* dy, const float* xhat,
           const float* rstd, const float* gamma, int64_t R, int64_t N);
// nn.CrossEntropyLoss(reduction='none'): R positions, C classes, label[r] in [0, C).
//   loss (R), prob (R, C) kept for backward, logits (R, C), label (R)
//   prob = softmax(logits), loss = log Σ e^{logits} − logits[label]
D2L_KERNEL(softmax_cross_entropy_forward, float* loss, float* prob, const float* logits, const int64_t* label,
           int64_t R, int64_t C);
//   dlogits, prob (R, C), dloss, label (R)   dlogits += dloss (prob − onehot(label))
D2L_KERNEL(softmax_cross_entropy_backward, float* dlogits, const float* dloss, const float* prob, const int64_t* label,
           int64_t R, int64_t C);

}  // namespace d2l
