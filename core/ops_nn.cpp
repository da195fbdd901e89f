// core/ops_nn.cpp — the neural-network ops with their own numerics: dropout, layer_norm and
// softmax cross-entropy. Each keeps what its backward needs (mask, mean and 1/std, softmax).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/kernels/fast_exp.h"
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
// out[i] (+)= keep(i) ? in[i] * scale : 0 for i in [0, n), n < 2^32 (checked by the caller).
template <bool kAccumulate>
void dropout_apply(float* __restrict out, const float* __restrict in, int64_t n, uint64_t key, uint32_t threshold,
                   float scale) {
  const uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
#pragma omp parallel for simd if (n >= kParallelMin)
  for (int64_t i = 0; i < n; ++i) {
    const float v = hash32(hash32(static_cast<uint32_t>(i) ^ k0) + k1) >= threshold ? in[i] * scale : 0.0f;
    out[i] = kAccumulate ? out[i] + v : v;
  }
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
  std::vector<float> xhat(static_cast<size_t>(x.numel())), rstd(static_cast<size_t>(R));
  Tensor y = empty(x.shape());
  const float *px = x.data(), *pg = gamma.defined() ? gamma.data() : nullptr, *pb = beta.defined() ? beta.data() : nullptr;
#pragma omp parallel for if (R * N >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    const float* xr = px + r * N;
    double m = 0, v = 0;  // double: N may be 2400 (the book's [100, 24] demo)
    for (int64_t j = 0; j < N; ++j) m += xr[j];
    m /= N;
    for (int64_t j = 0; j < N; ++j) v += (xr[j] - m) * (xr[j] - m);
    rstd[r] = static_cast<float>(1.0 / std::sqrt(v / N + eps));
    for (int64_t j = 0; j < N; ++j) {
      const float h = static_cast<float>(xr[j] - m) * rstd[r];
      xhat[r * N + j] = h;
      y.data()[r * N + j] = (pg ? pg[j] : 1.0f) * h + (pb ? pb[j] : 0.0f);
    }
  }
  // Backward, with dx̂ = dy γ:
  //   dx = rstd/N * (N dx̂ − Σ dx̂ − x̂ Σ(dx̂ x̂))   (row sums over the N normalised entries)
  //   dγ += Σ_r dy x̂,  dβ += Σ_r dy  (one loop per column, rows in order: deterministic)
  return op.finish(y, [R, N, xhat = std::move(xhat), rstd = std::move(rstd)](Node& y) {
    const float* g = y.grad.get();
    const float* gamma = y.inputs[1] ? y.input_data(1) : nullptr;
    if (float* dx = y.input_grad(0)) {
#pragma omp parallel for if (R * N >= kParallelMin)
      for (int64_t r = 0; r < R; ++r) {
        double s1 = 0, s2 = 0;
        for (int64_t j = 0; j < N; ++j) {
          const float d = g[r * N + j] * (gamma ? gamma[j] : 1.0f);
          s1 += d;
          s2 += d * xhat[r * N + j];
        }
        for (int64_t j = 0; j < N; ++j) {
          const float d = g[r * N + j] * (gamma ? gamma[j] : 1.0f);
          dx[r * N + j] += rstd[r] / N * static_cast<float>(N * d - s1 - xhat[r * N + j] * s2);
        }
      }
    }
    float* dgamma = y.input_grad(1);
    float* dbeta = y.input_grad(2);
    for (int64_t j = 0; j < N && (dgamma || dbeta); ++j) {
      float sg = 0, sb = 0;
      for (int64_t r = 0; r < R; ++r) {
        sg += g[r * N + j] * xhat[r * N + j];
        sb += g[r * N + j];
      }
      if (dgamma) dgamma[j] += sg;
      if (dbeta) dbeta[j] += sb;
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
