// core/kernels/matmul.h — the seam's kernels for matrix products and nn.Linear.
// Called in core/ops/matmul.cpp; plain loops in core/kernels/reference/matmul.cpp, fast ones in
// core/kernels/fast/matmul.cpp (conventions and the D2L_KERNEL macro: core/kernels/seam.h).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// batch independent products C = op(A) op(B), with op(X) = X or Xᵀ as the trans flags say:
// M rows of C, N columns of C, K the summed dim.
//   C (batch, M, N), A (batch, M, K) or (batch, K, M) when trans_a,
//   B (batch, K, N) or (batch, N, K) when trans_b
D2L_KERNEL(matmul_forward, float* C, const float* A, const float* B, int64_t batch, int64_t M, int64_t N, int64_t K,
           bool trans_a, bool trans_b);
//   dA like A, dB like B, dC like C      d op(A) += dC op(B)ᵀ,  d op(B) += op(A)ᵀ dC
D2L_KERNEL(matmul_backward, float* dA, float* dB, const float* dC, const float* A, const float* B, int64_t batch,
           int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b);
// nn.Linear: M rows (every leading dim of x), K in_features, N out_features.
//   y (M, N), x (M, K), W (N, K), b (N) or null      y = x Wᵀ + b
D2L_KERNEL(linear_forward, float* y, const float* x, const float* W, const float* b, int64_t M, int64_t N, int64_t K);
//   dx (M, K), dW (N, K), db (N), dy (M, N), x (M, K), W (N, K)
//   dx += dy W,  dW += dyᵀ x,  db += Σ_rows dy
D2L_KERNEL(linear_backward, float* dx, float* dW, float* db, const float* dy, const float* x, const float* W, int64_t M,
           int64_t N, int64_t K);

}  // namespace d2l
