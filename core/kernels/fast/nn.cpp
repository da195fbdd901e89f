// core/kernels/fast/nn.cpp — dropout, layer norm and softmax cross-entropy, vectorised (fast_exp,
// lane sums) and parallel over rows or blocks once the tensor is large enough.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/engine/allocator.h"
#include "core/kernels/fast/fast_exp.h"
#include "core/kernels/fast/kernels.h"
#include "core/kernels/fast/lane_sum.h"
#include "core/kernels/fast/parallel.h"
#include "core/random.h"

namespace d2l {
namespace fast {
namespace {

// out[i] (+)= keep(i) ? in[i] * scale : 0 for i in [lo, hi), with hi <= 2^32 (checked by
// the op), keep(i) being dropout_keeps (core/random.h) written out so that the loop
// vectorises (32-bit multiplies): the block is indexed from 0, so loads and stores are
// unit-stride, and the 32-bit element index is b + t.
template <bool kAccumulate>
void dropout_range(float* __restrict out, const float* __restrict in, int64_t lo, int64_t hi, uint64_t key,
                   uint32_t threshold, float scale) {
  const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  const uint32_t b = static_cast<uint32_t>(lo);
  out += lo, in += lo;
  for (int64_t t = 0; t < hi - lo; ++t) {
    const float v = hash32(hash32((b + static_cast<uint32_t>(t)) ^ k0) + k1) >= threshold ? in[t] * scale : 0.0f;
    out[t] = kAccumulate ? out[t] + v : v;
  }
}

// The same over [0, n): blocks of 16k elements shared among the threads for large tensors,
// one plain call otherwise (an `omp parallel for simd if(...)` loop stays scalar).
template <bool kAccumulate>
void dropout_apply(float* out, const float* in, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  if (n < kParallelMin) return dropout_range<kAccumulate>(out, in, 0, n, key, threshold, scale);
  constexpr int64_t kBlock = 1 << 14;
  parallel_for(ceil_div(n, kBlock), true, [&](int64_t b) {
    dropout_range<kAccumulate>(out, in, b * kBlock, std::min(n, (b + 1) * kBlock), key, threshold, scale);
  });
}

}  // namespace

void dropout_forward(float* y, const float* x, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  dropout_apply<false>(y, x, n, key, threshold, scale);
}

// y = x * mask * scale, so dx += dy * mask * scale (the mask recomputed from key).
void dropout_backward(float* dx, const float* dy, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  dropout_apply<true>(dx, dy, n, key, threshold, scale);
}

// Layer normalisation (10.7, sec_transformer; Ba et al. 2016) per row of N entries:
//   mean = Σ x / N, var = Σ (x - mean)² / N (biased, as PyTorch),
//   x̂ = (x - mean) * rstd with rstd = 1/sqrt(var + eps),  y = γ x̂ + β.
// Two passes per row (mean, then the centred variance: no cancellation as in E[x²]−E[x]²),
// each summed in vector lanes in a fixed order (lane_sum.h).
void layer_norm_forward(float* y, float* xhat, float* rstd, const float* x, const float* gamma, const float* beta,
                        int64_t R, int64_t N, float eps) {
  parallel_for(R, R * N >= kParallelMin, [&](int64_t r) {
    const float* xr = x + r * N;
    const float m = lane_sum(xr, N) / static_cast<float>(N);
    const float v = lane_sum(N, [xr, m](int64_t j) { return (xr[j] - m) * (xr[j] - m); }) / static_cast<float>(N);
    const float rs = 1.0f / std::sqrt(v + eps);
    rstd[r] = rs;
    float *hr = xhat + r * N, *yr = y + r * N;
    for (int64_t j = 0; j < N; ++j) hr[j] = (xr[j] - m) * rs;
    if (gamma && beta)
      for (int64_t j = 0; j < N; ++j) yr[j] = gamma[j] * hr[j] + beta[j];
    else
      for (int64_t j = 0; j < N; ++j) yr[j] = (gamma ? gamma[j] : 1.0f) * hr[j] + (beta ? beta[j] : 0.0f);
  });
}

// With dx̂ = dy γ:
//   dx = rstd/N * (N dx̂ − Σ dx̂ − x̂ Σ(dx̂ x̂))   (row sums over the N normalised entries)
//   dγ += Σ_r dy x̂,  dβ += Σ_r dy  (rows added in order into per-column sums: deterministic)
void layer_norm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* xhat, const float* rstd,
                         const float* gamma, int64_t R, int64_t N) {
  if (dx) {
    parallel_for(R, R * N >= kParallelMin, [&](int64_t r) {
      const float *gr = dy + r * N, *hr = xhat + r * N;
      auto dxhat = [gr, gamma](int64_t j) { return gamma ? gr[j] * gamma[j] : gr[j]; };
      const float s1 = lane_sum(N, dxhat);
      const float s2 = lane_sum(N, [&](int64_t j) { return dxhat(j) * hr[j]; });
      const float c = rstd[r] / static_cast<float>(N);
      float* dr = dx + r * N;
      for (int64_t j = 0; j < N; ++j) dr[j] += c * (static_cast<float>(N) * dxhat(j) - s1 - hr[j] * s2);
    });
  }
  if (!dgamma && !dbeta) return;
  // Σ_r dy x̂ and Σ_r dy per column, rows added in order. 16 columns at a time, whose 32
  // running sums stay in two registers for the whole pass over the rows (kept in a buffer
  // instead, every row waited for the last row's sums to come back from memory).
  auto add_columns = [&](int64_t j0, auto lanes) {
    constexpr int64_t width = decltype(lanes)::value;
    float sg[width] = {}, sb[width] = {};
    for (int64_t r = 0; r < R; ++r) {
      const float *gr = dy + r * N + j0, *hr = xhat + r * N + j0;
      for (int64_t l = 0; l < width; ++l) {
        sg[l] += gr[l] * hr[l];
        sb[l] += gr[l];
      }
    }
    for (int64_t l = 0; l < width; ++l) {
      if (dgamma) dgamma[j0 + l] += sg[l];
      if (dbeta) dbeta[j0 + l] += sb[l];
    }
  };
  int64_t j0 = 0;
  for (; j0 + kLanes <= N; j0 += kLanes) add_columns(j0, std::integral_constant<int64_t, kLanes>());
  for (; j0 < N; ++j0) add_columns(j0, std::integral_constant<int64_t, 1>());
}

// nn.CrossEntropyLoss(reduction='none'): loss = log Σ_c e^{z_c} − z_label per position.
void softmax_cross_entropy_forward(float* loss, float* prob, const float* logits, const int64_t* label, int64_t R,
                                   int64_t C) {
  parallel_for(R, R * C >= kParallelMin, [&](int64_t r) {
    const float* zr = logits + r * C;
    float* pr = prob + r * C;
    // The max and the sum in vector lanes (lane_sum.h): left to right, each was a chain of
    // dependent scalar operations, most of this kernel's time on the book's 201 classes.
    const float m = lane_max(zr, C);
    for (int64_t c = 0; c < C; ++c) pr[c] = fast_exp(zr[c] - m);  // vectorised
    const float s = lane_sum(pr, C);
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < C; ++c) pr[c] *= inv;
    loss[r] = (m - zr[label[r]]) + std::log(s);  // not m + log s − z: see log_softmax
  });
}

// ∂loss/∂z_c = softmax(z)_c − [c == label], times the incoming gradient.
void softmax_cross_entropy_backward(float* dlogits, const float* dloss, const float* prob, const int64_t* label,
                                    int64_t R, int64_t C) {
  parallel_for(R, R * C >= kParallelMin, [&](int64_t r) {
    for (int64_t c = 0; c < C; ++c)
      dlogits[r * C + c] += dloss[r] * (prob[r * C + c] - (c == label[r] ? 1.0f : 0.0f));
  });
}

}  // namespace fast
}  // namespace d2l
