// core/ops_nn.cpp — the neural-network ops with their own numerics: dropout, layer_norm and
// softmax cross-entropy. Each keeps what its backward needs (mask, mean and 1/std, softmax).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/fast_exp.h"
#include "core/kernels/lane_sum.h"
#include "core/ops.h"
#include "core/parallel.h"
#include "core/random.h"

namespace d2l {

// Inverted dropout (d2l 4.6): keep each element with probability 1-p and scale it by
// 1/(1-p), so the expectation is unchanged and evaluation needs no rescaling.
// The mask is a pure function of (key, element index): key is one draw from the seeded
// generator, so masks follow manual_seed, and element i is kept iff
// hash32(hash32(i ^ key_lo) + key_hi) >= p * 2^32. Being counter-based it runs in parallel
// with the same bits for any thread count, vectorises (32-bit integer multiplies), and
// backward recomputes it instead of storing a mask.
namespace {
// Chris Wellons' "lowbias32" integer hash: every output bit depends on every input bit.
inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
// out[i] (+)= keep(i) ? in[i] * scale : 0 for i in [lo, hi), with hi <= 2^32 (checked by
// the caller). The loop vectorises (32-bit multiplies); an earlier form that indexed
// in[lo + t] with a 32-bit index ran as scalar code, 10x slower.
template <bool kAccumulate>
void dropout_range(float* __restrict out, const float* __restrict in, int64_t lo, int64_t hi, uint64_t key,
                   uint32_t threshold, float scale) {
  const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  const uint32_t b = static_cast<uint32_t>(lo);
  out += lo, in += lo;  // index the block from 0, so the loads and stores are unit-stride
  for (int64_t t = 0; t < hi - lo; ++t) {
    const float v = hash32(hash32((b + static_cast<uint32_t>(t)) ^ k0) + k1) >= threshold ? in[t] * scale : 0.0f;
    out[t] = kAccumulate ? out[t] + v : v;
  }
}
// The same over [0, n): blocks of 16k elements shared among the threads for large tensors,
// one plain call otherwise. (An `omp parallel for simd if(...)` loop ran as scalar code when
// the if was false: 3 ns per element, the costliest op of a Transformer step.)
template <bool kAccumulate>
void dropout_apply(float* out, const float* in, int64_t n, uint64_t key, uint32_t threshold, float scale) {
  if (n < kParallelMin) return dropout_range<kAccumulate>(out, in, 0, n, key, threshold, scale);
  constexpr int64_t kBlock = 1 << 14;
#pragma omp parallel for
  for (int64_t lo = 0; lo < n; lo += kBlock)
    dropout_range<kAccumulate>(out, in, lo, std::min(n, lo + kBlock), key, threshold, scale);
}
}  // namespace

Tensor dropout(const Tensor& x, float p, bool training) {
  check(p >= 0.0f && p <= 1.0f, "dropout", "probability must be in [0, 1], got ", p);
  if (!training || p == 0.0f) return x;  // the identity, as nn.Dropout in eval mode
  OpCall op("dropout", {x});
  const int64_t n = x.numel();
  const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  // p = 1 must drop everything: threshold 2^32 does not fit, so scale 0 does it instead.
  const uint32_t threshold = p < 1.0f ? static_cast<uint32_t>(std::ldexp(static_cast<double>(p), 32)) : 0u;
  check(n < (int64_t{1} << 32), "dropout", "more than 2^32 elements: ", x.shape());
  const uint64_t key = random_u64();
  Tensor y = empty(x.shape());
  dropout_apply<false>(y.data(), x.data(), n, key, threshold, scale);
  // forward: y = x * mask, so dx += dy * mask (the mask recomputed from key).
  return op.finish(y, [n, key, threshold, scale](Node& y) {
    if (float* dx = y.input_grad(0)) dropout_apply<true>(dx, y.grad.get(), n, key, threshold, scale);
  });
}

// Layer normalisation (d2l 10.7, sec_transformer; Ba et al. 2016) over the trailing
// dims: view x as (R, N) with N = prod(normalized_shape);
//   mean_r = Σ x / N, var_r = Σ (x - mean)² / N (biased, as PyTorch),
//   x̂ = (x - mean) * rstd with rstd = 1/sqrt(var + eps),  y = γ x̂ + β.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& gamma, const Tensor& beta, float eps) {
  OpCall op("layer_norm", {x, gamma, beta});
  const size_t k = normalized_shape.size();
  check(k >= 1 && x.shape().size() >= k && Shape(x.shape().end() - k, x.shape().end()) == normalized_shape,
        "layer_norm", "normalized_shape ", normalized_shape, " must be the trailing dims of x ", x.shape());
  check(!gamma.defined() || gamma.shape() == normalized_shape, "layer_norm", "gamma ", gamma.defined() ? gamma.shape() : Shape{},
        " must have normalized_shape ", normalized_shape);
  check(!beta.defined() || beta.shape() == normalized_shape, "layer_norm", "beta ", beta.defined() ? beta.shape() : Shape{},
        " must have normalized_shape ", normalized_shape);
  const int64_t N = numel_of(normalized_shape), R = N ? x.numel() / N : 0;
  // x̂ and 1/std are kept for backward, in tensors (the caching allocator, no heap churn).
  Tensor xhat_t = empty(x.shape()), rstd_t = empty({R});
  float *xhat = xhat_t.data(), *rstd = rstd_t.data();
  Tensor y = empty(x.shape());
  const float *px = x.data(), *pg = gamma.defined() ? gamma.data() : nullptr, *pb = beta.defined() ? beta.data() : nullptr;
  float* py = y.data();
  // Two passes per row (mean, then the centred variance: no cancellation as in E[x²]−E[x]²),
  // each summed in vector lanes in a fixed order (kernels/lane_sum.h).
#pragma omp parallel for if (R * N >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    const float* xr = px + r * N;
    const float m = lane_sum(xr, N) / static_cast<float>(N);
    const float v = lane_sum(N, [xr, m](int64_t j) { return (xr[j] - m) * (xr[j] - m); }) / static_cast<float>(N);
    const float rs = 1.0f / std::sqrt(v + eps);
    rstd[r] = rs;
    float *hr = xhat + r * N, *yr = py + r * N;
    for (int64_t j = 0; j < N; ++j) hr[j] = (xr[j] - m) * rs;
    if (pg && pb)
      for (int64_t j = 0; j < N; ++j) yr[j] = pg[j] * hr[j] + pb[j];
    else
      for (int64_t j = 0; j < N; ++j) yr[j] = (pg ? pg[j] : 1.0f) * hr[j] + (pb ? pb[j] : 0.0f);
  }
  // Backward, with dx̂ = dy γ:
  //   dx = rstd/N * (N dx̂ − Σ dx̂ − x̂ Σ(dx̂ x̂))   (row sums over the N normalised entries)
  //   dγ += Σ_r dy x̂,  dβ += Σ_r dy  (rows added in order into per-column sums: deterministic)
  return op.finish(y, [R, N, xhat_t, rstd_t](Node& y) {
    const float* g = y.grad.get();
    const float *xhat = xhat_t.data(), *rstd = rstd_t.data();
    const float* gamma = y.inputs[1] ? y.input_data(1) : nullptr;
    if (float* dx = y.input_grad(0)) {
#pragma omp parallel for if (R * N >= kParallelMin)
      for (int64_t r = 0; r < R; ++r) {
        const float *gr = g + r * N, *hr = xhat + r * N;
        auto dxhat = [gr, gamma](int64_t j) { return gamma ? gr[j] * gamma[j] : gr[j]; };
        const float s1 = lane_sum(N, dxhat);
        const float s2 = lane_sum(N, [&](int64_t j) { return dxhat(j) * hr[j]; });
        const float c = rstd[r] / static_cast<float>(N);
        float* dr = dx + r * N;
        for (int64_t j = 0; j < N; ++j) dr[j] += c * (static_cast<float>(N) * dxhat(j) - s1 - hr[j] * s2);
      }
    }
    float* dgamma = y.input_grad(1);
    float* dbeta = y.input_grad(2);
    if (dgamma || dbeta) {
      Tensor sums = zeros({2, N});  // Σ_r dy x̂ and Σ_r dy, row by row (vectorised over j)
      float *sg = sums.data(), *sb = sums.data() + N;
      for (int64_t r = 0; r < R; ++r) {
        const float *gr = g + r * N, *hr = xhat + r * N;
        for (int64_t j = 0; j < N; ++j) {
          sg[j] += gr[j] * hr[j];
          sb[j] += gr[j];
        }
      }
      for (int64_t j = 0; j < N; ++j) {
        if (dgamma) dgamma[j] += sg[j];
        if (dbeta) dbeta[j] += sb[j];
      }
    }
  });
}

// nn.CrossEntropyLoss(reduction='none'): loss = log Σ_c e^{z_c} − z_label per position.
// Backward: ∂loss/∂z_c = softmax(z)_c − [c == label], times the incoming gradient.
Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels) {
  OpCall op("softmax_cross_entropy", {logits, labels});
  check(logits.ndim() >= 1, "softmax_cross_entropy", "logits must be (..., num_classes), got ", logits.shape());
  const int64_t C = logits.shape().back(), R = labels.numel();
  const Shape lead(logits.shape().begin(), logits.shape().end() - 1);
  check(labels.shape() == lead, "softmax_cross_entropy", "labels ", labels.shape(), " must match logits ",
        logits.shape(), " without its last dim");
  std::vector<int64_t> label(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) {
    const float f = labels.data()[r];
    check(f >= 0 && f < C && f == std::floor(f), "softmax_cross_entropy", "label ", f, " at index ", r,
          " is not a class id in [0, ", C, ") (logits ", logits.shape(), ")");
    label[r] = static_cast<int64_t>(f);
  }
  // The softmax is kept for backward in a tensor (the caching allocator), not a vector.
  Tensor prob_t = empty({R, C});
  float* prob = prob_t.data();
  Tensor loss = empty(labels.shape());
  const float* z = logits.data();
#pragma omp parallel for if (R * C >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    const float* zr = z + r * C;
    float* pr = prob + r * C;
    float m = -INFINITY, s = 0.0f;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, zr[c]);
    for (int64_t c = 0; c < C; ++c) pr[c] = fast_exp(zr[c] - m);  // vectorised
    for (int64_t c = 0; c < C; ++c) s += pr[c];                      // in index order
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < C; ++c) pr[c] *= inv;
    loss.data()[r] = (m - zr[label[r]]) + std::log(s);  // not m + log s − z: see log_softmax
  }
  return op.finish(loss, [R, C, label = std::move(label), prob_t](Node& y) {
    float* dz = y.input_grad(0);
    if (!dz) return;
    const float* g = y.grad.get();
    const float* prob = prob_t.data();
#pragma omp parallel for if (R * C >= kParallelMin)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c) dz[r * C + c] += g[r] * (prob[r * C + c] - (c == label[r] ? 1.0f : 0.0f));
  });
}

}  // namespace d2l
