// core/kernels/gru.h — the seam's kernels for the GRU's recurrence (9.1).
// Called in layers/gru.cpp; plain loops in core/kernels/reference/gru.cpp, fast ones in
// core/kernels/fast/gru.cpp (conventions and the D2L_KERNEL macro: core/kernels/seam.h).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// T steps, B batch, D num_hiddens, G = 3D (gate blocks r | z | n, PyTorch's order).
//   H (T, B, D)        out: h_t at every step
//   gates (T, B, G)    out: r, z and hn = W_hn h + b_hn per step, kept for backward
//   cand (T, B, D)     out: the candidate state n per step
//   gi (T, B, G)       x W_ihᵀ + b_ih for every step;  h0 (B, D)
//   W (G, D), b (G)    W_hh and b_hh
// keep_all false (no backward to follow): gates and cand are one step long, (1, B, G) and
// (1, B, D), reused by every step.
D2L_KERNEL(gru_forward, float* H, float* gates, float* cand, const float* gi, const float* h0, const float* W,
           const float* b, int64_t T, int64_t B, int64_t D, bool keep_all);
//   dgi (T, B, G), dh0 (B, D), dW (G, D), db (G)   added into; any may be null
//   gates (T, B, G) from gru_forward; may be overwritten (the fast tier reuses it as scratch)
//   cand, H, dH (T, B, D), h0 (B, D), W (G, D)
D2L_KERNEL(gru_backward, float* dgi, float* dh0, float* dW, float* db, float* gates, const float* cand, const float* H,
           const float* dH, const float* h0, const float* W, int64_t T, int64_t B, int64_t D);

}  // namespace d2l
