// core/ops_nn.cpp — the neural-network ops with their own numerics: dropout, layer_norm and
// softmax cross-entropy. Each keeps what its backward needs (mask, mean and 1/std, softmax).
#include <cmath>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"
#include "core/parallel.h"
#include "core/random.h"

namespace d2l {

// Inverted dropout (d2l 4.6): keep each element with probability 1-p and scale it by
// 1/(1-p), so the expectation is unchanged and evaluation needs no rescaling. The mask is
// drawn serially from the seeded generator, so it does not depend on the thread count.
Tensor dropout(const Tensor& x, float p, bool training) {
  check(p >= 0.0f && p <= 1.0f, "dropout", "probability must be in [0, 1], got ", p);
  if (!training || p == 0.0f) return x;  // the identity, as nn.Dropout in eval mode
  OpCall op("dropout", {x});
  const int64_t n = x.numel();
  const float scale = p < 1.0f ? 1.0f / (1.0f - p) : 0.0f;
  std::vector<float> mask(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) mask[i] = random_uniform() >= p ? scale : 0.0f;
  Tensor y = empty(x.shape());
  for (int64_t i = 0; i < n; ++i) y.data()[i] = x.data()[i] * mask[i];
  // forward: y = x * mask, so dx += dy * mask.
  return op.finish(y, [mask = std::move(mask)](Node& y) {
    if (float* dx = y.input_grad(0))
      for (int64_t i = 0; i < y.numel; ++i) dx[i] += y.grad.get()[i] * mask[i];
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
  std::vector<float> prob(static_cast<size_t>(R * C));
  Tensor loss = empty(labels.shape());
  const float* z = logits.data();
#pragma omp parallel for if (R * C >= kParallelMin)
  for (int64_t r = 0; r < R; ++r) {
    float m = -INFINITY, s = 0.0f;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, z[r * C + c]);
    for (int64_t c = 0; c < C; ++c) s += (prob[r * C + c] = std::exp(z[r * C + c] - m));
    for (int64_t c = 0; c < C; ++c) prob[r * C + c] /= s;
    loss.data()[r] = (m - z[r * C + label[r]]) + std::log(s);  // not m + log s − z: see log_softmax
  }
  return op.finish(loss, [R, C, label = std::move(label), prob = std::move(prob)](Node& y) {
    float* dz = y.input_grad(0);
    if (!dz) return;
    const float* g = y.grad.get();
#pragma omp parallel for if (R * C >= kParallelMin)
    for (int64_t r = 0; r < R; ++r)
      for (int64_t c = 0; c < C; ++c) dz[r * C + c] += g[r] * (prob[r * C + c] - (c == label[r] ? 1.0f : 0.0f));
  });
}

}  // namespace d2l
