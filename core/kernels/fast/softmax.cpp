// core/kernels/fast/softmax.cpp — softmax, the book's masked_softmax and log_softmax, vectorised
// and blocked, parallel over rows. (sequence_mask is the reference tier's plain loop.)
//
// Legend: R rows (every index but the last), C columns (the softmax axis).
//   x, y: (R, C) row-major.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernels/fast/fast_exp.h"
#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/lane_sum.h"
#include "core/kernels/fast/parallel.h"

namespace d2l {
namespace fast {
namespace {

// The book's mask value: masked scores become -1e6, not -inf, so a fully masked row
// (valid_len 0) turns into a uniform distribution instead of 0/0 = NaN.
constexpr float kMaskValue = -1e6f;

#if defined(__AVX512F__)
// Rows of at most 16 entries (the book's attention rows: 10 keys) sit in one AVX-512
// register each: a masked load, the max and the sum as in-register reductions (a fixed
// tree order, the same for every row), one vector exp, a masked store. On the book's
// (256, 10, 10) scores the blocked path below spends ~22 ns a row in scalar loops and loop
// tails, this one ~12 (one thread). The backward stays the blocked path's: its dot product
// and update of a short row are cheaper as scalar loops than as vector reductions.
constexpr int64_t kShortRow = 16;

// (max16 and sum16, the in-register reductions, and first_lanes: lane_sum.h.)

// Rows r0 .. r0 + kRows − 1 side by side: one row's steps form a chain of ~130 cycles (two
// reductions, the exp's polynomial, a division) that the processor does not overlap with
// the next row's by itself; written together, kRows independent chains run at once.
template <int kRows>
void short_rows_softmax(float* y, const float* x, const int64_t* valid, int64_t r0, int64_t C) {
  const __mmask16 cols = first_lanes(C);
  __m512 v[kRows];
  float m[kRows], inv[kRows];
  for (int i = 0; i < kRows; ++i) {
    const int64_t r = r0 + i;
    const __mmask16 kept = valid ? first_lanes(std::min(valid[r], C)) : cols;
    // Masked keys read kMaskValue; the lanes past the row read -inf, which no max picks.
    v[i] = _mm512_mask_blend_ps(kept, _mm512_set1_ps(kMaskValue), _mm512_maskz_loadu_ps(kept, x + r * C));
    v[i] = _mm512_mask_blend_ps(cols, _mm512_set1_ps(-INFINITY), v[i]);
  }
  for (int i = 0; i < kRows; ++i) m[i] = max16(v[i]);
  // e^{x - m}, with the lanes past the row set to 0 (e^{-inf} is 0 already, unless m is
  // -inf or NaN: then the row is NaN anyway).
  for (int i = 0; i < kRows; ++i)
    v[i] = _mm512_maskz_mov_ps(cols, fast_exp16(_mm512_sub_ps(v[i], _mm512_set1_ps(m[i]))));
  for (int i = 0; i < kRows; ++i) inv[i] = 1.0f / sum16(v[i]);  // the sum is >= 1: the max term gives e^0
  for (int i = 0; i < kRows; ++i)
    _mm512_mask_storeu_ps(y + (r0 + i) * C, cols, _mm512_mul_ps(v[i], _mm512_set1_ps(inv[i])));
}

// All R rows: groups of kGroup rows (shared among threads for large tensors), then the
// last R mod kGroup one at a time. A row's numbers do not depend on its group.
constexpr int kGroup = 4;
void short_row_softmax(float* y, const float* x, const int64_t* valid, int64_t R, int64_t C) {
  parallel_for(R / kGroup, R * C >= kParallelMin,
               [&](int64_t g) { short_rows_softmax<kGroup>(y, x, valid, g * kGroup, C); });
  for (int64_t r = R / kGroup * kGroup; r < R; ++r) short_rows_softmax<1>(y, x, valid, r, C);
}

// Rows of kLongRow or more entries, one at a time: the max (lane_max), then e^{x - m}, its
// store and its sum in one pass of 16 lanes (added as lane_sum adds: lane by lane, chunk after
// chunk, then sum16, then the tail in order), then the scaling. Three passes over a row where
// the blocked path below makes five (shift, exp, sum as separate loops). Measured
// (tools/bench/softmax.cpp, 2 threads, alternated with the blocked path): rows of 8192
// entries 18.7 and 13.9 GB/s against 14.9 and 12.6, of 1024 15.8 and 13.7 against 12.4 and
// 11.6; rows of 64 and 128 were slower this way (the blocked path's one long exp loop over
// many rows overlaps better than row after row), so they stay there.
constexpr int64_t kLongRow = 512;
void long_rows_softmax(float* y, const float* x, const int64_t* valid, int64_t R, int64_t C) {
  parallel_for(R, R * C >= kParallelMin, [&](int64_t r) {
    const float* xr = x + r * C;
    float* yr = y + r * C;
    const int64_t v = valid ? std::min(valid[r], C) : C;
    float m = lane_max(xr, v);
    if (v < C) m = std::max(m, kMaskValue);
    const __m512 shift = _mm512_set1_ps(m), masked = _mm512_set1_ps(kMaskValue);
    // e^{x_j - m} for the 16 entries from j (n of them), masked entries reading kMaskValue.
    auto exp16_at = [&](int64_t j, int64_t n) {
      const __mmask16 kept = first_lanes(std::clamp<int64_t>(v - j, 0, n));
      const __m512 xv = _mm512_mask_blend_ps(kept, masked, _mm512_maskz_loadu_ps(kept, xr + j));
      return fast_exp16(_mm512_sub_ps(xv, shift));
    };
    __m512 lanes = _mm512_setzero_ps();
    int64_t j = 0;
    for (; j + kLanes <= C; j += kLanes) {
      const __m512 e = exp16_at(j, kLanes);
      _mm512_storeu_ps(yr + j, e);
      lanes = _mm512_add_ps(lanes, e);
    }
    float sum = sum16(lanes);
    const int64_t tail = C - j;
    const __mmask16 rest = first_lanes(tail);
    if (tail > 0) {
      _mm512_mask_storeu_ps(yr + j, rest, exp16_at(j, tail));
      for (int64_t k = j; k < C; ++k) sum += yr[k];
    }
    const __m512 inv = _mm512_set1_ps(1.0f / sum);  // the sum is >= 1: the max term gives e^0
    for (j = 0; j + kLanes <= C; j += kLanes) _mm512_storeu_ps(yr + j, _mm512_mul_ps(_mm512_loadu_ps(yr + j), inv));
    if (tail > 0)
      _mm512_mask_storeu_ps(yr + j, rest, _mm512_mul_ps(_mm512_maskz_loadu_ps(rest, yr + j), inv));
  });
}
#endif

// y[r, :] = softmax(x[r, :]) with x[r, j] replaced by kMaskValue for j >= valid[r] (valid
// null: no mask). Subtracting the row max first keeps exp() <= 1: softmax is unchanged by
// a shift, and exp(89) would overflow float.
//
// Attention rows are short (10 keys in the book's models), and a vector loop over 10
// elements runs mostly in its scalar tail. So rows go in blocks of about 4k elements: the
// max and the shift per row, then one long vectorised exp over the whole block (the costly
// part), then the sums and the scaling per row. Every row is still computed on its own,
// so the bits do not depend on how blocks are shared among threads.
void blocked_softmax(float* y, const float* x, const int64_t* valid, int64_t R, int64_t C) {
#if defined(__AVX512F__)
  if (C <= kShortRow) return short_row_softmax(y, x, valid, R, C);
  if (C >= kLongRow) return long_rows_softmax(y, x, valid, R, C);
#endif
  const int64_t rows_per_block = std::max<int64_t>(1, 4096 / std::max<int64_t>(C, 1));
  parallel_for(ceil_div(R, rows_per_block), R * C >= kParallelMin, [&](int64_t block) {
    const int64_t r0 = block * rows_per_block, r1 = std::min(R, r0 + rows_per_block);
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * C;
      float* yr = y + r * C;
      const int64_t v = valid ? std::min(valid[r], C) : C;
      // The max of the kept entries in vector lanes (lane_sum.h), and the mask value if any
      // entry is masked; then the kept and the masked entries shifted in two plain loops.
      float m = lane_max(xr, v);
      if (v < C) m = std::max(m, kMaskValue);
      for (int64_t j = 0; j < v; ++j) yr[j] = xr[j] - m;
      for (int64_t j = v; j < C; ++j) yr[j] = kMaskValue - m;
    }
    float* yb = y + r0 * C;
    const int64_t n = (r1 - r0) * C;
    for (int64_t i = 0; i < n; ++i) yb[i] = fast_exp(yb[i]);
    for (int64_t r = r0; r < r1; ++r) {
      float* yr = y + r * C;
      const float inv = 1.0f / lane_sum(yr, C);  // the sum is >= 1: the max term gives exp(0)
      for (int64_t j = 0; j < C; ++j) yr[j] *= inv;
    }
  });
}

// forward: y_j = e^{x_j} / Σ_k e^{x_k}, so ∂y_j/∂x_i = y_j (δ_ij − y_i) and
//   dx_i += y_i (dy_i − Σ_j dy_j y_j).
// Masked entries were replaced by a constant, so they get no gradient at all.
void blocked_softmax_backward(float* dx, const float* dy, const float* y, const int64_t* valid, int64_t R, int64_t C) {
  parallel_for(R, R * C >= kParallelMin, [&](int64_t r) {
    const float *yr = y + r * C, *gr = dy + r * C;
    float* dr = dx + r * C;
    const int64_t v = valid ? std::min(valid[r], C) : C;
    // Σ dy y: along a short row a plain chain of adds (the lane passes would not start);
    // along a long one in vector lanes (lane_sum.h), whose order depends on C only.
    float dot = 0.0f;
    if (C < kLanes)
      for (int64_t j = 0; j < C; ++j) dot += gr[j] * yr[j];
    else
      dot = lane_sum(C, [gr, yr](int64_t j) { return gr[j] * yr[j]; });
    for (int64_t j = 0; j < v; ++j) dr[j] += yr[j] * (gr[j] - dot);
  });
}

// One valid length per row of X (B, Q, K) viewed as (B * Q, K): the book's
// repeat_interleave over the queries for per-batch lengths.
std::vector<int64_t> row_lengths(const int64_t* valid_lens, int64_t B, int64_t Q, bool per_query) {
  std::vector<int64_t> lens(static_cast<size_t>(B * Q));
  for (int64_t r = 0; r < B * Q; ++r) lens[r] = per_query ? valid_lens[r] : valid_lens[r / Q];
  return lens;
}

}  // namespace

void softmax_forward(float* y, const float* x, int64_t R, int64_t C) { blocked_softmax(y, x, nullptr, R, C); }

void softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
  blocked_softmax_backward(dx, dy, y, nullptr, R, C);
}

// The book's three steps (repeat the lengths, mask with -1e6, softmax) fused into one pass.
void masked_softmax_forward(float* y, const float* X, const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K,
                            bool per_query) {
  blocked_softmax(y, X, row_lengths(valid_lens, B, Q, per_query).data(), B * Q, K);
}

void masked_softmax_backward(float* dX, const float* dy, const float* y, const int64_t* valid_lens, int64_t B,
                             int64_t Q, int64_t K, bool per_query) {
  blocked_softmax_backward(dX, dy, y, row_lengths(valid_lens, B, Q, per_query).data(), B * Q, K);
}

// log_softmax: y = x − m − log Σ e^{x−m}; dx = dy − softmax(x) Σ dy = dy − e^{y} Σ dy.
void log_softmax_forward(float* y, const float* x, int64_t R, int64_t C) {
  parallel_for(R, R * C >= kParallelMin, [&](int64_t r) {
    const float* xr = x + r * C;
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = 0; j < C; ++j) m = std::max(m, xr[j]);
    for (int64_t j = 0; j < C; ++j) s += fast_exp(xr[j] - m);
    // (x − m) − log s, not x − (m + log s): near |x| = 1e4 the sum m + log s would round to
    // float's spacing there (~1e-3) and lose log s's digits (log_softmax(-1e4, -1e4) = -0.6934).
    const float log_s = std::log(s);
    for (int64_t j = 0; j < C; ++j) y[r * C + j] = (xr[j] - m) - log_s;
  });
}

void log_softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
  parallel_for(R, R * C >= kParallelMin, [&](int64_t r) {
    float s = 0.0f;
    for (int64_t j = 0; j < C; ++j) s += dy[r * C + j];
    for (int64_t j = 0; j < C; ++j) dx[r * C + j] += dy[r * C + j] - fast_exp(y[r * C + j]) * s;
  });
}


// sequence_mask is a copy with a test per step: the plain loops of core/kernels/reference/softmax.cpp.
void sequence_mask_forward(float* y, const float* X, const int64_t* valid_len, int64_t B, int64_t T, int64_t I,
                           float value) {
  reference::sequence_mask_forward(y, X, valid_len, B, T, I, value);
}
void sequence_mask_backward(float* dX, const float* dy, const int64_t* valid_len, int64_t B, int64_t T, int64_t I) {
  reference::sequence_mask_backward(dX, dy, valid_len, B, T, I);
}

}  // namespace fast
}  // namespace d2l
