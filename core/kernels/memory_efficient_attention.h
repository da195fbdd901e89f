// core/kernels/memory_efficient_attention.h — the seam's kernels for memory-efficient attention (10.7 ex. 5).
// Called in core/ops/memory_efficient_attention.cpp; plain loops in core/kernels/reference/memory_efficient_attention.cpp, fast ones in
// core/kernels/fast/memory_efficient_attention.cpp (conventions and the D2L_KERNEL macro: core/kernels/seam.h).
#pragma once
#include <cstdint>

#include "core/kernels/seam.h"

namespace d2l {

// softmax(q kᵀ / √D, masked as masked_softmax masks) v without the (B, Q, K) weights: the
// softmax runs over blocks of keys with a running maximum and sum (the online softmax), and
// the backward recomputes each block's weights from L. B batch, Q queries, K keys, D the
// query/key size, Dv the value size; valid_lens null (no mask), (B) or (B, Q) (per_query).
// A masked score is -1e6 as in masked_softmax; keys at or past a row's valid length n > 0
// are skipped (their weight e^{-1e6 - max} is exactly 0 in float), a row with n = 0 attends
// uniformly to every key.
//   O (B, Q, Dv), m, s (B, Q) out: each row's max score m and sum s = Σ e^{score − m}, kept
//   for the backward (not as one log-sum-exp m + log s: beside the mask value -1e6, float
//   would keep only a digit of log s, and a row with valid length 0 would lose its 1/K)
//   q (B, Q, D), k (B, K, D), v (B, K, Dv)
D2L_KERNEL(memory_efficient_attention_forward, float* O, float* m, float* s, const float* q, const float* k, const float* v,
                                        const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                        int64_t Dv, bool per_query);
//   dq, dk, dv like q, k, v (added into; any may be null), dO, O (B, Q, Dv), m, s (B, Q)
//   with P = e^{score − m} / s: dv += Pᵀ dO, dS = P (dO vᵀ − rowsum(dO O)) (0 where masked),
//   dq += dS k / √D, dk += dSᵀ q / √D
D2L_KERNEL(memory_efficient_attention_backward, float* dq, float* dk, float* dv, const float* dO, const float* O,
                                         const float* m, const float* s, const float* q, const float* k, const float* v,
                                         const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                         int64_t Dv, bool per_query);

}  // namespace d2l
