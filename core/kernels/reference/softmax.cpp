// core/kernels/reference/softmax.cpp — the book's masked_softmax (10.3) in its three steps, then the
// kernels it is made of, sequence_mask and softmax, and log_softmax: plain loops over rows
// (sizes and shapes: core/kernels/softmax.h).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/kernels/softmax.h"

namespace d2l::reference {
namespace {
// The book's value for masked scores: -1e6, not -inf, so a row of valid length 0 comes out
// uniform instead of 0/0 = NaN.
constexpr float kMaskValue = -1e6f;

// One valid length per row of X viewed as (B * Q, K):
//   valid_lens = torch.repeat_interleave(valid_lens, shape[1])   for 1-D lengths (B,)
//   valid_lens = valid_lens.reshape(-1)                          for 2-D lengths (B, Q)
std::vector<int64_t> repeat_valid_lens(const int64_t* valid_lens, int64_t B, int64_t Q, bool per_query) {
  std::vector<int64_t> lens(static_cast<size_t>(B * Q));
  for (int64_t r = 0; r < B * Q; ++r) lens[r] = per_query ? valid_lens[r] : valid_lens[r / Q];
  return lens;
}
}  // namespace

// d2l.masked_softmax(X, valid_lens), step by step as the book writes it.
void masked_softmax_forward(float* y, const float* X, const int64_t* valid_lens, int64_t B, int64_t Q, int64_t K,
                            bool per_query) {
  // 1. repeat the valid lengths: one per row of K scores
  const std::vector<int64_t> lens = repeat_valid_lens(valid_lens, B, Q, per_query);
  // 2. X = d2l.sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
  sequence_mask_forward(y, X, lens.data(), B * Q, K, 1, kMaskValue);
  // 3. return nn.functional.softmax(X.reshape(shape), dim=-1)
  softmax_forward(y, y, B * Q, K);
}

// The same three steps backwards: softmax's gradient with respect to the masked scores, then
// sequence_mask's, which passes it on only where X was kept (a constant has no gradient).
void masked_softmax_backward(float* dX, const float* dy, const float* y, const int64_t* valid_lens, int64_t B,
                             int64_t Q, int64_t K, bool per_query) {
  const std::vector<int64_t> lens = repeat_valid_lens(valid_lens, B, Q, per_query);
  std::vector<float> dmasked(static_cast<size_t>(B * Q * K), 0.0f);
  softmax_backward(dmasked.data(), dy, y, B * Q, K);
  sequence_mask_backward(dX, dmasked.data(), lens.data(), B * Q, K, 1);
}

// d2l.sequence_mask: along dim 1 of X (B, T, I), steps t >= valid_len[b] become value.
void sequence_mask_forward(float* y, const float* X, const int64_t* valid_len, int64_t B, int64_t T, int64_t I,
                           float value) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < I; ++i) {
        const int64_t k = (b * T + t) * I + i;
        y[k] = t < valid_len[b] ? X[k] : value;
      }
}

void sequence_mask_backward(float* dX, const float* dy, const int64_t* valid_len, int64_t B, int64_t T, int64_t I) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < std::min(T, valid_len[b]); ++t)
      for (int64_t i = 0; i < I; ++i) dX[(b * T + t) * I + i] += dy[(b * T + t) * I + i];
}

// y_j = e^{x_j} / Σ_k e^{x_k} per row. The row's max m is subtracted first: the softmax is
// unchanged by a shift, every exponent becomes <= 0 and e^x cannot overflow (it would above
// x = 88.7 in float). y may be x: each x_j is read before y_j is written.
void softmax_forward(float* y, const float* x, int64_t R, int64_t C) {
  for (int64_t r = 0; r < R; ++r) {
    const float* xr = x + r * C;
    float* yr = y + r * C;
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = 0; j < C; ++j) m = std::max(m, xr[j]);
    for (int64_t j = 0; j < C; ++j) {
      yr[j] = std::exp(xr[j] - m);
      s += yr[j];
    }
    for (int64_t j = 0; j < C; ++j) yr[j] /= s;
  }
}

// ∂y_j/∂x_i = y_j (δ_ij − y_i), so dx_i += y_i (dy_i − Σ_j dy_j y_j).
void softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
  for (int64_t r = 0; r < R; ++r) {
    const float *yr = y + r * C, *gr = dy + r * C;
    float dot = 0.0f;
    for (int64_t j = 0; j < C; ++j) dot += gr[j] * yr[j];
    for (int64_t j = 0; j < C; ++j) dx[r * C + j] += yr[j] * (gr[j] - dot);
  }
}

// y = (x − m) − log Σ e^{x − m}. Kept in that order: near |x| = 1e4, m + log s would round
// to float's spacing there (~1e-3) and lose the digits of log s.
void log_softmax_forward(float* y, const float* x, int64_t R, int64_t C) {
  for (int64_t r = 0; r < R; ++r) {
    const float* xr = x + r * C;
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = 0; j < C; ++j) m = std::max(m, xr[j]);
    for (int64_t j = 0; j < C; ++j) s += std::exp(xr[j] - m);
    const float log_s = std::log(s);
    for (int64_t j = 0; j < C; ++j) y[r * C + j] = (xr[j] - m) - log_s;
  }
}

// dx = dy − softmax(x) Σ dy, and softmax(x) = e^{y}.
void log_softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
  for (int64_t r = 0; r < R; ++r) {
    float s = 0.0f;
    for (int64_t j = 0; j < C; ++j) s += dy[r * C + j];
    for (int64_t j = 0; j < C; ++j) dx[r * C + j] += dy[r * C + j] - std::exp(y[r * C + j]) * s;
  }
}

}  // namespace d2l::reference
