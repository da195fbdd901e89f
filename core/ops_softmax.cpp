// core/ops_softmax.cpp — softmax, log_softmax, sequence_mask and the book's masked_softmax
// (10.3, sec_attention-scoring-functions), with hand-written kernels parallel over rows.
//
// Legend: R rows (every index but the last), C columns (the softmax axis).
//   x, y: (R, C) row-major.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/fast_exp.h"
#include "core/kernels/lane_sum.h"
#include "core/ops.h"
#include "core/parallel.h"

namespace d2l {

// The book's mask value: masked scores become -1e6, not -inf, so a fully masked row
// (valid_len 0) turns into a uniform distribution instead of 0/0 = NaN.
constexpr float kMaskValue = -1e6f;

// y[r, :] = softmax(x[r, :]) with x[r, j] replaced by kMaskValue for j >= valid[r] (valid
// null: no mask). Subtracting the row max first keeps exp() <= 1: softmax is unchanged by
// a shift, and exp(89) would overflow float.
//
// Attention rows are short (10 keys in the book's models), and a vector loop over 10
// elements runs mostly in its scalar tail. So rows go in blocks of about 4k elements: the
// max and the shift per row, then one long vectorised exp over the whole block (the costly
// part), then the sums and the scaling per row. Every row is still computed on its own,
// so the bits do not depend on how blocks are shared among threads.
void softmax_forward(float* y, const float* x, const int64_t* valid, int64_t R, int64_t C) {
  const int64_t rows_per_block = std::max<int64_t>(1, 4096 / std::max<int64_t>(C, 1));
#pragma omp parallel for if (R * C >= kParallelMin)
  for (int64_t r0 = 0; r0 < R; r0 += rows_per_block) {
    const int64_t r1 = std::min(R, r0 + rows_per_block);
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * C;
      float* yr = y + r * C;
      const int64_t v = valid ? std::min(valid[r], C) : C;
      float m = -INFINITY;
      for (int64_t j = 0; j < C; ++j) m = std::max(m, j < v ? xr[j] : kMaskValue);
      for (int64_t j = 0; j < C; ++j) yr[j] = (j < v ? xr[j] : kMaskValue) - m;
    }
    float* yb = y + r0 * C;
    const int64_t n = (r1 - r0) * C;
    for (int64_t i = 0; i < n; ++i) yb[i] = fast_exp(yb[i]);
    for (int64_t r = r0; r < r1; ++r) {
      float* yr = y + r * C;
      const float inv = 1.0f / lane_sum(yr, C);  // the sum is >= 1: the max term gives exp(0)
      for (int64_t j = 0; j < C; ++j) yr[j] *= inv;
    }
  }
}

// forward: y_j = e^{x_j} / Σ_k e^{x_k}, so ∂y_j/∂x_i = y_j (δ_ij − y_i) and
//   dx_i += y_i (dy_i − Σ_j dy_j y_j).
// Masked entries were replaced by a constant, so they get no gradient at all.
void softmax_backward(float* dx, const float* dy, const float* y, const int64_t* valid, int64_t R, int64_t C) {
#pragma omp parallel for if (R * C >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    const float *yr = y + r * C, *gr = dy + r * C;
    float* dr = dx + r * C;
    const int64_t v = valid ? std::min(valid[r], C) : C;
    float dot = 0.0f;
    for (int64_t j = 0; j < C; ++j) dot += gr[j] * yr[j];
    for (int64_t j = 0; j < v; ++j) dr[j] += yr[j] * (gr[j] - dot);
  }
}

// log_softmax: y = x − m − log Σ e^{x−m}; dx = dy − softmax(x) Σ dy = dy − e^{y} Σ dy.
void log_softmax_forward(float* y, const float* x, int64_t R, int64_t C) {
#pragma omp parallel for if (R * C >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    const float* xr = x + r * C;
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = 0; j < C; ++j) m = std::max(m, xr[j]);
    for (int64_t j = 0; j < C; ++j) s += fast_exp(xr[j] - m);
    // (x − m) − log s, not x − (m + log s): near |x| = 1e4 the sum m + log s would round to
    // float's spacing there (~1e-3) and lose log s's digits (log_softmax(-1e4, -1e4) = -0.6934).
    const float log_s = std::log(s);
    for (int64_t j = 0; j < C; ++j) y[r * C + j] = (xr[j] - m) - log_s;
  }
}

void log_softmax_backward(float* dx, const float* dy, const float* y, int64_t R, int64_t C) {
#pragma omp parallel for if (R * C >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    float s = 0.0f;
    for (int64_t j = 0; j < C; ++j) s += dy[r * C + j];
    for (int64_t j = 0; j < C; ++j) dx[r * C + j] += dy[r * C + j] - fast_exp(y[r * C + j]) * s;
  }
}

// --- the public ops --------------------------------------------------------------------------

Tensor softmax(const Tensor& x) {
  OpCall op("softmax", {x});
  check(x.ndim() >= 1, "softmax", "needs at least 1 dim, got shape ", x.shape());
  const int64_t C = x.shape().back(), R = C ? x.numel() / C : 0;
  Tensor y = empty(x.shape());
  softmax_forward(y.data(), x.data(), nullptr, R, C);
  return op.finish(y, [R, C](Node& y) {  // needs only the output y
    if (float* dx = y.input_grad(0)) softmax_backward(dx, y.grad.get(), y.data.get(), nullptr, R, C);
  });
}

Tensor log_softmax(const Tensor& x) {
  OpCall op("log_softmax", {x});
  check(x.ndim() >= 1, "log_softmax", "needs at least 1 dim, got shape ", x.shape());
  const int64_t C = x.shape().back(), R = C ? x.numel() / C : 0;
  Tensor y = empty(x.shape());
  log_softmax_forward(y.data(), x.data(), R, C);
  return op.finish(y, [R, C](Node& y) {
    if (float* dx = y.input_grad(0)) log_softmax_backward(dx, y.grad.get(), y.data.get(), R, C);
  });
}

// Reads valid lengths (stored as floats, like the book's tensors) as integers, checking
// that each is a whole number >= 0.
static std::vector<int64_t> read_lengths(const Tensor& lens, const char* op, const Shape& x_shape) {
  std::vector<int64_t> v(static_cast<size_t>(lens.numel()));
  for (int64_t i = 0; i < lens.numel(); ++i) {
    const float f = lens.data()[i];
    check(f >= 0 && f == std::floor(f), op, "valid length ", f, " at index ", i,
          " must be a whole number >= 0 (valid_lens ", lens.shape(), ", X ", x_shape, ")");
    v[i] = static_cast<int64_t>(f);
  }
  return v;
}

// d2l.sequence_mask: positions t >= valid_len[b] along dim 1 of X (batch, maxlen, ...) are
// set to value. The kept entries pass their gradient through, the masked ones get none.
Tensor sequence_mask(const Tensor& X, const Tensor& valid_len, float value) {
  OpCall op("sequence_mask", {X, valid_len});
  check(X.ndim() >= 2, "sequence_mask", "X must be (batch, maxlen, ...), got ", X.shape());
  check(valid_len.ndim() == 1 && valid_len.numel() == X.shape()[0], "sequence_mask",
        "valid_len must be 1-D with one length per batch row: valid_len ", valid_len.shape(), ", X ", X.shape());
  const std::vector<int64_t> len = read_lengths(valid_len, "sequence_mask", X.shape());
  const int64_t B = X.shape()[0], T = X.shape()[1], inner = B * T != 0 ? X.numel() / (B * T) : 0;
  Tensor y = empty(X.shape());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (b * T + t) * inner + i;
        y.data()[k] = t < len[b] ? X.data()[k] : value;
      }
  return op.finish(y, [B, T, inner, len](Node& y) {
    if (float* dx = y.input_grad(0))
      for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < std::min(T, len[b]); ++t)
          for (int64_t i = 0; i < inner; ++i) dx[(b * T + t) * inner + i] += y.grad.get()[(b * T + t) * inner + i];
  });
}

// d2l.masked_softmax, fused: one pass per row of X (batch, no. of queries, no. of keys),
// valid length per batch row (1-D valid_lens, repeated over the queries as the book's
// repeat_interleave does) or per query (2-D). A length beyond the no. of keys masks nothing,
// as in the book (predict_seq2seq passes the untruncated source length).
Tensor masked_softmax(const Tensor& X, const Tensor& valid_lens) {
  if (!valid_lens.defined()) return softmax(X);
  OpCall op("masked_softmax", {X, valid_lens});
  check(X.ndim() == 3, "masked_softmax", "X must be (batch, no. of queries, no. of keys), got ", X.shape());
  const int64_t B = X.shape()[0], Q = X.shape()[1], K = X.shape()[2];
  const bool per_batch = valid_lens.ndim() == 1 && valid_lens.shape()[0] == B;
  const bool per_query = valid_lens.ndim() == 2 && valid_lens.shape()[0] == B && valid_lens.shape()[1] == Q;
  check(per_batch || per_query, "masked_softmax", "valid_lens must be (batch,) or (batch, no. of queries): valid_lens ",
        valid_lens.shape(), ", X ", X.shape());
  const std::vector<int64_t> lens = read_lengths(valid_lens, "masked_softmax", X.shape());
  std::vector<int64_t> row_len(static_cast<size_t>(B * Q));
  for (int64_t r = 0; r < B * Q; ++r) row_len[r] = per_batch ? lens[r / Q] : lens[r];
  Tensor y = empty(X.shape());
  softmax_forward(y.data(), X.data(), row_len.data(), B * Q, K);
  return op.finish(y, [B, Q, K, row_len = std::move(row_len)](Node& y) {
    if (float* dx = y.input_grad(0)) softmax_backward(dx, y.grad.get(), y.data.get(), row_len.data(), B * Q, K);
  });
}

}  // namespace d2l
