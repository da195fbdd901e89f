// core/kernels/reference/memory_efficient_attention.cpp — memory-efficient attention (10.7 exercise 5): the
// scaled dot-product attention of 10.3, softmax(q kᵀ / √D) v with masked_softmax's mask,
// computed one query row at a time and one block of keys at a time, never holding a row's
// whole vector of weights, let alone the (Q, K) matrix.
//
// Read it beside core/kernels/reference/softmax.cpp. softmax_forward takes three passes over a row:
// its max m, then s = Σ e^{x − m}, then y = e^{x − m} / s. The online softmax (Milakov and
// Gimelshein, 2018) folds them into one pass over blocks of the row: it keeps the max m and
// the sum s of the blocks seen so far, and when a new block raises the max to m', it
// rescales what it has by e^{m − m'} (every term e^{x − m} becomes e^{x − m'}). The output
// Σ_j y_j v_j is a weighted sum of the values, so it can be carried along the same way:
//   acc = Σ_j e^{x_j − m} v_j,  and at the end  o = acc / s.
// That is the forward of FlashAttention (Dao et al., 2022), here in plain loops.
//
// The backward needs the weights y_j again. Instead of storing them, the forward keeps two
// numbers per row, its final m and s, and the backward recomputes y_j = e^{x_j − m} / s. softmax_backward's dx_j = y_j (dy_j − Σ_i dy_i y_i) needs
// Σ_i dy_i y_i; with dy_j = dO · v_j (the gradient reaching weight j through o = Σ y_j v_j)
// that sum is Σ_i y_i (dO · v_i) = dO · o: one dot product per row, no second pass.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {
namespace {

constexpr float kMaskValue = -1e6f;  // masked_softmax's value for a masked score (10.3)
constexpr int64_t kKeyBlock = 64;    // keys per block of the online softmax

// The valid length of query row (b, i), or K when there is no mask.
int64_t row_length(const int64_t* valid_lens, int64_t b, int64_t i, int64_t Q, int64_t K, bool per_query) {
  if (!valid_lens) return K;
  return per_query ? valid_lens[b * Q + i] : valid_lens[b];
}

// The keys a row must visit: those before its valid length n. Keys at or past n score -1e6,
// whose weight e^{-1e6 − m} is exactly 0 in float once some key scores above -1e6 + 104, so
// they are skipped. A row with n = 0 has every key at -1e6: visiting them all gives weight
// 1/K each, as masked_softmax's uniform row.
int64_t keys_to_visit(int64_t n, int64_t K) { return n > 0 ? std::min(n, K) : K; }

// Score of query row qi against key j: q·k / √D, or the mask value past the valid length.
float score(const float* qi, const float* kj, int64_t D, float scale, int64_t j, int64_t n) {
  if (j >= n) return kMaskValue;
  float s = 0.0f;
  for (int64_t d = 0; d < D; ++d) s += qi[d] * kj[d];
  return s * scale;
}

}  // namespace

void memory_efficient_attention_forward(float* O, float* row_max, float* row_sum, const float* q, const float* k, const float* v,
                                        const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                        int64_t Dv, bool per_query) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  std::vector<float> x(kKeyBlock);  // one block of scores
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Q; ++i) {
      const float* qi = q + (b * Q + i) * D;
      float* acc = O + (b * Q + i) * Dv;  // Σ_j e^{x_j − m} v_j, divided by s at the end
      const int64_t n = row_length(valid_lens, b, i, Q, K, per_query), visit = keys_to_visit(n, K);
      float m = -INFINITY, s = 0.0f;      // the running max and sum of the blocks seen
      for (int64_t d = 0; d < Dv; ++d) acc[d] = 0.0f;
      for (int64_t j0 = 0; j0 < visit; j0 += kKeyBlock) {
        const int64_t j1 = std::min(j0 + kKeyBlock, visit);
        // 1. this block's scores and their max
        float block_max = -INFINITY;
        for (int64_t j = j0; j < j1; ++j) {
          x[j - j0] = score(qi, k + (b * K + j) * D, D, scale, j, n);
          block_max = std::max(block_max, x[j - j0]);
        }
        // 2. the new max m'; what was summed against m is rescaled by e^{m − m'}
        const float m_new = std::max(m, block_max);
        const float rescale = std::exp(m - m_new);  // e^{-inf} = 0 for the first block
        s *= rescale;
        for (int64_t d = 0; d < Dv; ++d) acc[d] *= rescale;
        // 3. add the block's terms e^{x_j − m'} to the sum and its weighted values to acc
        for (int64_t j = j0; j < j1; ++j) {
          const float e = std::exp(x[j - j0] - m_new);
          s += e;
          const float* vj = v + (b * K + j) * Dv;
          for (int64_t d = 0; d < Dv; ++d) acc[d] += e * vj[d];
        }
        m = m_new;
      }
      // o = acc / s: the softmax's division, once per row instead of once per weight
      for (int64_t d = 0; d < Dv; ++d) acc[d] /= s;
      row_max[b * Q + i] = m;
      row_sum[b * Q + i] = s;
    }
}

void memory_efficient_attention_backward(float* dq, float* dk, float* dv, const float* dO, const float* O,
                                         const float* row_max, const float* row_sum, const float* q, const float* k, const float* v,
                                         const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                         int64_t Dv, bool per_query) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Q; ++i) {
      const float* qi = q + (b * Q + i) * D;
      const float* dOi = dO + (b * Q + i) * Dv;
      const float* Oi = O + (b * Q + i) * Dv;
      const int64_t n = row_length(valid_lens, b, i, Q, K, per_query), visit = keys_to_visit(n, K);
      // softmax_backward's Σ_j dy_j y_j, which is dO · o (see the top of the file)
      float dot = 0.0f;
      for (int64_t d = 0; d < Dv; ++d) dot += dOi[d] * Oi[d];
      for (int64_t j = 0; j < visit; ++j) {
        const float* kj = k + (b * K + j) * D;
        const float* vj = v + (b * K + j) * Dv;
        // the weight, recomputed: y_j = e^{x_j − m} / s
        const float y = std::exp(score(qi, kj, D, scale, j, n) - row_max[b * Q + i]) / row_sum[b * Q + i];
        // o = Σ_j y_j v_j:  dv_j += y_j dO,  and the weight's gradient dy_j = dO · v_j
        float dy = 0.0f;
        for (int64_t d = 0; d < Dv; ++d) {
          if (dv) dv[(b * K + j) * Dv + d] += y * dOi[d];
          dy += dOi[d] * vj[d];
        }
        // softmax_backward: dx_j = y_j (dy_j − Σ dy y); a masked score gets none (sequence_mask)
        if (j >= n) continue;
        const float dx = y * (dy - dot) * scale;  // and x = q·k scale
        for (int64_t d = 0; d < D; ++d) {
          if (dq) dq[(b * Q + i) * D + d] += dx * kj[d];
          if (dk) dk[(b * K + j) * D + d] += dx * qi[d];
        }
      }
    }
}

}  // namespace reference
}  // namespace d2l
