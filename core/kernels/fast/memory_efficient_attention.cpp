// core/kernels/fast/memory_efficient_attention.cpp — memory-efficient attention (10.7 exercise 5), fast: the
// reference tier's online softmax (core/kernels/reference/memory_efficient_attention.cpp, where the method is
// explained) on tiles instead of single rows, so that the work becomes GEMMs.
//
// Forward, for each tile of kRowBlock query rows of one batch item (tiles shared among the
// threads), over blocks of kKeyBlock keys:
//   S = q_tile k_blockᵀ · scale, masked          (kRowBlock, kKeyBlock), one GEMM
//   per row: new max m', rescale the row's sum and output by e^{m − m'}, S = e^{S − m'}
//   O_tile += S v_block                           one GEMM
// Backward, one job per batch item (or, with fewer than 4 batch items, per batch item and
// group of key blocks, each group summing its own part of dq), over key blocks, and within
// each over query tiles, so that dq, dk and dv are each summed in one fixed order:
//   P = e^{q k_blockᵀ · scale − m} / s            recomputed, one GEMM
//   dv_block += Pᵀ dO_tile;  dP = dO_tile v_blockᵀ
//   dS = P (dP − rowsum(dO O)) · scale, 0 where masked
//   dq_tile += dS k_block;  dk_block += dSᵀ q_tile
// Only tiles of (kRowBlock, kKeyBlock) floats are ever held, and with fewer than 4 batch
// items up to 4 parts of dq: memory linear in Q and K.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernels/fast/fast_exp.h"
#include "core/kernels/fast/gemm.h"
#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/lane_sum.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace {

constexpr float kMaskValue = -1e6f;  // masked_softmax's value (10.3)
constexpr int64_t kRowBlock = 64;    // query rows per tile
constexpr int64_t kKeyBlock = 128;   // keys per block
constexpr int64_t kMinJobs = 4;      // the backward's parallel jobs, at least (see there)

int64_t row_length(const int64_t* valid_lens, int64_t b, int64_t i, int64_t Q, int64_t K, bool per_query) {
  if (!valid_lens) return K;
  return per_query ? valid_lens[b * Q + i] : valid_lens[b];
}
// As the reference tier: keys past a row's valid length n > 0 weigh exactly 0 and are
// skipped; a row with n = 0 visits every key (uniform weights).
int64_t keys_to_visit(int64_t n, int64_t K) { return n > 0 ? std::min(n, K) : K; }

// The rows [i0, i0 + R) of batch item b: their valid lengths, and how many keys the tile
// must visit (the most any of its rows visits).
int64_t tile_lengths(std::vector<int64_t>& n, const int64_t* valid_lens, int64_t b, int64_t i0, int64_t R, int64_t Q,
                     int64_t K, bool per_query) {
  int64_t visit = 0;
  for (int64_t r = 0; r < R; ++r) {
    n[r] = row_length(valid_lens, b, i0 + r, Q, K, per_query);
    visit = std::max(visit, keys_to_visit(n[r], K));
  }
  return visit;
}

// S (R, c) = q_tile k_blockᵀ scale, with the scores of keys j0 + jj >= n[r] set to the mask.
void scores(float* S, const float* q, const float* k, const std::vector<int64_t>& n, int64_t R, int64_t c,
            int64_t j0, int64_t D, float scale) {
  gemm(false, true, R, c, D, q, k, S, false);
  for (int64_t r = 0; r < R; ++r) {
    float* Sr = S + r * c;
    const int64_t kept = std::clamp<int64_t>(n[r] - j0, 0, c);
    for (int64_t jj = 0; jj < kept; ++jj) Sr[jj] *= scale;
    for (int64_t jj = kept; jj < c; ++jj) Sr[jj] = kMaskValue;
  }
}

}  // namespace

void memory_efficient_attention_forward(float* O, float* row_max, float* row_sum, const float* q, const float* k, const float* v,
                                        const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                        int64_t Dv, bool per_query) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const int64_t tiles = ceil_div(Q, kRowBlock);
  const bool fork = static_cast<double>(B * Q) * K * (D + Dv) >= kGemmParallelMin && B * tiles > 1;
  parallel_for(B * tiles, fork, [&](int64_t t) {
    const int64_t b = t / tiles, i0 = (t % tiles) * kRowBlock, R = std::min(kRowBlock, Q - i0);
    std::vector<int64_t> n(R);
    std::vector<float> S(static_cast<size_t>(R * kKeyBlock)), m(R, -INFINITY), s(R, 0.0f);
    const int64_t visit = tile_lengths(n, valid_lens, b, i0, R, Q, K, per_query);
    float* Ot = O + (b * Q + i0) * Dv;
    std::fill(Ot, Ot + R * Dv, 0.0f);
    for (int64_t j0 = 0; j0 < visit; j0 += kKeyBlock) {
      const int64_t c = std::min(kKeyBlock, visit - j0);
      scores(S.data(), q + (b * Q + i0) * D, k + (b * K + j0) * D, n, R, c, j0, D, scale);
      for (int64_t r = 0; r < R; ++r) {
        float* Sr = S.data() + r * c;
        const float m_new = std::max(m[r], lane_max(Sr, c));
        const float rescale = fast_exp(m[r] - m_new);  // 0 for the first block (m = -inf)
        for (int64_t jj = 0; jj < c; ++jj) Sr[jj] = fast_exp(Sr[jj] - m_new);
        s[r] = s[r] * rescale + lane_sum(Sr, c);
        float* Or = Ot + r * Dv;
        for (int64_t d = 0; d < Dv; ++d) Or[d] *= rescale;
        m[r] = m_new;
      }
      gemm(false, false, R, Dv, c, S.data(), v + (b * K + j0) * Dv, Ot, true);
    }
    for (int64_t r = 0; r < R; ++r) {
      const float inv = 1.0f / s[r];
      for (int64_t d = 0; d < Dv; ++d) Ot[r * Dv + d] *= inv;
      row_max[b * Q + i0 + r] = m[r];
      row_sum[b * Q + i0 + r] = s[r];
    }
  });
}

void memory_efficient_attention_backward(float* dq, float* dk, float* dv, const float* dO, const float* O,
                                         const float* row_max, const float* row_sum, const float* q, const float* k, const float* v,
                                         const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K, int64_t D,
                                         int64_t Dv, bool per_query) {
  if (!dq && !dk && !dv) return;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const int64_t tiles = ceil_div(Q, kRowBlock), blocks = ceil_div(K, kKeyBlock);
  const bool worth = static_cast<double>(B * Q) * K * (D + Dv) >= kGemmParallelMin;
  // softmax_backward's Σ_j dy_j y_j per row, which is dO · o (the reference tier's header)
  std::vector<float> rowdot(static_cast<size_t>(B * Q));
  parallel_for(B, worth && B > 1, [&](int64_t b) {
    for (int64_t i = 0; i < Q; ++i) {
      const float *dOi = dO + (b * Q + i) * Dv, *Oi = O + (b * Q + i) * Dv;
      rowdot[b * Q + i] = lane_sum(Dv, [&](int64_t d) { return dOi[d] * Oi[d]; });
    }
  });
  // The tile (b, t) against key block j0: recomputes P = e^{S − m} / s, adds Pᵀ dO to dv's
  // block, and when dS is not null leaves there dS = P (dO vᵀ − rowdot) · scale, 0 where
  // masked, for the caller. False when no row of the tile visits the block.
  auto tile_block = [&](int64_t b, int64_t t, int64_t j0, float* P, float* dS, std::vector<int64_t>& n) {
    const int64_t i0 = t * kRowBlock, R = std::min(kRowBlock, Q - i0), c = std::min(kKeyBlock, K - j0);
    if (tile_lengths(n, valid_lens, b, i0, R, Q, K, per_query) <= j0) return false;
    const float *qi = q + (b * Q + i0) * D, *dOi = dO + (b * Q + i0) * Dv;
    scores(P, qi, k + (b * K + j0) * D, n, R, c, j0, D, scale);
    for (int64_t r = 0; r < R; ++r) {
      const float mr = row_max[b * Q + i0 + r], inv = 1.0f / row_sum[b * Q + i0 + r];
      for (int64_t jj = 0; jj < c; ++jj) P[r * c + jj] = fast_exp(P[r * c + jj] - mr) * inv;
    }
    if (dv) gemm(true, false, c, Dv, R, P, dOi, dv + (b * K + j0) * Dv, true);
    if (!dS) return true;
    gemm(false, true, R, c, Dv, dOi, v + (b * K + j0) * Dv, dS, false);  // dP = dO vᵀ
    for (int64_t r = 0; r < R; ++r) {
      const int64_t kept = std::clamp<int64_t>(n[r] - j0, 0, c);
      const float dot = rowdot[b * Q + i0 + r];
      float* dSr = dS + r * c;
      const float* Pr = P + r * c;
      for (int64_t jj = 0; jj < kept; ++jj) dSr[jj] = Pr[jj] * (dSr[jj] - dot) * scale;
      for (int64_t jj = kept; jj < c; ++jj) dSr[jj] = 0.0f;  // a masked score gets no gradient
    }
    return true;
  };
  // Jobs: (batch item, group of key blocks). With few batch items the key blocks are split
  // into G groups so that there are at least kMinJobs jobs; each group adds its part of dq
  // into its own buffer (zeros), and the parts are added to dq in the order of the groups.
  // G depends on the sizes alone, never on the no. of threads, so the bits do not either.
  // dk and dv of a block are summed over the query tiles in order, within its one job.
  const int64_t groups = worth ? std::clamp<int64_t>(ceil_div(kMinJobs, B), 1, blocks) : 1;
  std::vector<float> dq_parts(dq && groups > 1 ? static_cast<size_t>(groups * B * Q * D) : 0);
  parallel_for(B * groups, worth && B * groups > 1, [&](int64_t job) {
    const int64_t b = job / groups, g = job % groups;
    float* dq_b = !dq ? nullptr : groups > 1 ? dq_parts.data() + (g * B + b) * Q * D : dq + b * Q * D;
    std::vector<float> P(static_cast<size_t>(kRowBlock * kKeyBlock)), dS(P.size());
    std::vector<int64_t> n(kRowBlock);
    for (int64_t jb = g * blocks / groups; jb < (g + 1) * blocks / groups; ++jb)
      for (int64_t t = 0; t < tiles; ++t) {
        const int64_t j0 = jb * kKeyBlock, i0 = t * kRowBlock;
        const int64_t R = std::min(kRowBlock, Q - i0), c = std::min(kKeyBlock, K - j0);
        if (!tile_block(b, t, j0, P.data(), dq || dk ? dS.data() : nullptr, n) || (!dq && !dk)) continue;
        if (dq) gemm(false, false, R, D, c, dS.data(), k + (b * K + j0) * D, dq_b + i0 * D, true);
        if (dk) gemm(true, false, c, D, R, dS.data(), q + (b * Q + i0) * D, dk + (b * K + j0) * D, true);
      }
  });
  if (dq_parts.empty()) return;
  parallel_for(B * Q, B * Q * D >= kParallelMin, [&](int64_t row) {
    float* out = dq + row * D;
    for (int64_t g = 0; g < groups; ++g) {
      const float* part = dq_parts.data() + g * B * Q * D + row * D;
      for (int64_t d = 0; d < D; ++d) out[d] += part[d];
    }
  });
}

}  // namespace fast
}  // namespace d2l
