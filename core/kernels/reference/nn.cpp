// core/kernels/reference/nn.cpp — dropout, layer norm and softmax cross-entropy as plain loops.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/random.h"
#include "core/kernels/reference/kernels.h"

namespace d2l {
namespace reference {

// Inverted dropout (4.6): kept elements are scaled by 1/(1-p), so the expectation is x.
void dropout_forward(float* y, const float* x, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  for (int64_t i = 0; i < n; ++i) y[i] = dropout_keeps(static_cast<uint32_t>(i), key, threshold) ? x[i] * scale : 0.0f;
}

// y = x · mask · scale, so dx += dy · mask · scale, with the same mask (the same key).
void dropout_backward(float* dx, const float* dy, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  for (int64_t i = 0; i < n; ++i)
    if (dropout_keeps(static_cast<uint32_t>(i), key, threshold)) dx[i] += dy[i] * scale;
}

// Layer norm (10.7; Ba et al. 2016), row by row: the mean, then the variance of the centred
// values (two passes: E[x²] − E[x]² would cancel catastrophically), biased as PyTorch's.
void layer_norm_forward(float* y, float* xhat, float* rstd, const float* x, const float* gamma, const float* beta,
                        int64_t R, int64_t N, float eps) {
  for (int64_t r = 0; r < R; ++r) {
    const float* xr = x + r * N;
    float mean = 0.0f, var = 0.0f;
    for (int64_t j = 0; j < N; ++j) mean += xr[j];
    mean /= static_cast<float>(N);
    for (int64_t j = 0; j < N; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= static_cast<float>(N);
    rstd[r] = 1.0f / std::sqrt(var + eps);
    for (int64_t j = 0; j < N; ++j) {
      xhat[r * N + j] = (xr[j] - mean) * rstd[r];
      y[r * N + j] = (gamma ? gamma[j] : 1.0f) * xhat[r * N + j] + (beta ? beta[j] : 0.0f);
    }
  }
}

// With g = dy γ (the gradient reaching x̂) and both sums over the row's N entries:
//   dx = rstd/N (N g − Σ g − x̂ Σ g x̂),   dγ += Σ_rows dy x̂,   dβ += Σ_rows dy.
void layer_norm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* xhat, const float* rstd,
                         const float* gamma, int64_t R, int64_t N) {
  for (int64_t r = 0; r < R; ++r) {
    const float *dyr = dy + r * N, *hr = xhat + r * N;
    auto g = [&](int64_t j) { return gamma ? dyr[j] * gamma[j] : dyr[j]; };
    float sum_g = 0.0f, sum_gh = 0.0f;
    for (int64_t j = 0; j < N; ++j) {
      sum_g += g(j);
      sum_gh += g(j) * hr[j];
    }
    const float c = rstd[r] / static_cast<float>(N);
    for (int64_t j = 0; j < N; ++j) {
      if (dx) dx[r * N + j] += c * (static_cast<float>(N) * g(j) - sum_g - hr[j] * sum_gh);
      if (dgamma) dgamma[j] += dyr[j] * hr[j];
      if (dbeta) dbeta[j] += dyr[j];
    }
  }
}

// nn.CrossEntropyLoss (reduction='none'): loss = −log softmax(z)[label], with the
// probabilities kept for backward. The log comes from log_softmax, not from the log of
// prob: a probability that rounds to 0 would make the loss inf.
void softmax_cross_entropy_forward(float* loss, float* prob, const float* logits, const int64_t* label, int64_t R,
                                   int64_t C) {
  softmax_forward(prob, logits, R, C);
  std::vector<float> log_prob(static_cast<size_t>(R * C));
  log_softmax_forward(log_prob.data(), logits, R, C);
  for (int64_t r = 0; r < R; ++r) loss[r] = 0.0f - log_prob[r * C + label[r]];  // 0 − x: a zero loss is +0, not −0
}

// ∂loss/∂z_c = softmax(z)_c − [c == label].
void softmax_cross_entropy_backward(float* dlogits, const float* dloss, const float* prob, const int64_t* label,
                                    int64_t R, int64_t C) {
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c)
      dlogits[r * C + c] += dloss[r] * (prob[r * C + c] - (c == label[r] ? 1.0f : 0.0f));
}

}  // namespace reference
}  // namespace d2l
