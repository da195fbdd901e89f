// core/optim.cpp — SGD, Adam, gradient clipping and initialisers (PyTorch's semantics).
#include "core/optim.h"

#include <cmath>

#include "core/random.h"

namespace d2l {

void Optimizer::zero_grad() {
  for (Tensor& p : params_)
    if (float* g = p.grad_data())
      for (int64_t i = 0; i < p.numel(); ++i) g[i] = 0.0f;
}

SGD::SGD(std::vector<Tensor> params, float lr_) : Optimizer(std::move(params)), lr(lr_) {}

void SGD::step() {
  for (Tensor& p : params_)
    if (const float* g = p.grad_data())
      for (int64_t i = 0; i < p.numel(); ++i) p.data()[i] -= lr * g[i];
}

Adam::Adam(std::vector<Tensor> params, float lr_, float b1, float b2, float eps_, float wd)
    : Optimizer(std::move(params)), lr(lr_), beta1(b1), beta2(b2), eps(eps_), weight_decay(wd) {
  for (const Tensor& p : params_) {
    m_.emplace_back(static_cast<size_t>(p.numel()), 0.0f);
    v_.emplace_back(static_cast<size_t>(p.numel()), 0.0f);
  }
}

// Exactly torch.optim.Adam's order of operations (single-tensor path), so the same
// gradients give the same parameters to float rounding.
void Adam::step() {
  ++t_;
  const float bc1 = 1.0f - std::pow(beta1, static_cast<float>(t_));
  const float bc2 = 1.0f - std::pow(beta2, static_cast<float>(t_));
  const float step_size = lr / bc1, bc2_sqrt = std::sqrt(bc2);
  for (size_t k = 0; k < params_.size(); ++k) {
    Tensor& p = params_[k];
    const float* g = p.grad_data();
    if (!g) continue;  // PyTorch skips parameters that got no gradient
    float *m = m_[k].data(), *v = v_[k].data(), *w = p.data();
    for (int64_t i = 0; i < p.numel(); ++i) {
      const float gi = weight_decay != 0.0f ? g[i] + weight_decay * w[i] : g[i];
      m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
      v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
      w[i] -= step_size * m[i] / (std::sqrt(v[i]) / bc2_sqrt + eps);
    }
  }
}

// The book's grad_clipping (9.5): one global norm over all parameters' gradients.
float clip_grad_norm(const std::vector<Tensor>& params, float max_norm) {
  double sq = 0.0;  // double, in a fixed order: deterministic and no float overflow
  for (const Tensor& p : params)
    if (const float* g = p.grad_data())
      for (int64_t i = 0; i < p.numel(); ++i) sq += static_cast<double>(g[i]) * g[i];
  const float norm = static_cast<float>(std::sqrt(sq));
  if (norm > max_norm) {
    const float scale = max_norm / norm;
    for (Tensor p : params)
      if (float* g = p.grad_data())
        for (int64_t i = 0; i < p.numel(); ++i) g[i] *= scale;
  }
  return norm;
}

void uniform_(Tensor& t, float a, float b) {
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = a + (b - a) * random_uniform();
}

void normal_(Tensor& t, float mean, float std) {
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = mean + std * random_normal();
}

// Glorot & Bengio (2010): keeps activation variance roughly constant across layers.
// For a (out, in) weight, fan_in = in, fan_out = out (as torch.nn.init computes them).
void xavier_uniform_(Tensor& t) {
  check(t.ndim() >= 2, "xavier_uniform_", "needs a weight with at least 2 dims, got ", t.shape());
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.ndim(); ++d) receptive *= t.shape()[d];
  const float fan_in = static_cast<float>(t.shape()[1] * receptive), fan_out = static_cast<float>(t.shape()[0] * receptive);
  const float a = std::sqrt(6.0f / (fan_in + fan_out));
  uniform_(t, -a, a);
}

// nn.Linear.reset_parameters: kaiming_uniform_(a=√5) works out to U(-1/√in, 1/√in) for
// the weight, and the bias uses the same bound.
void linear_default_init_(Tensor& weight, Tensor& bias) {
  check(weight.ndim() == 2, "linear_default_init_", "weight must be 2-D, got ", weight.shape());
  const float bound = weight.shape()[1] > 0 ? 1.0f / std::sqrt(static_cast<float>(weight.shape()[1])) : 0.0f;
  uniform_(weight, -bound, bound);
  if (bias.defined()) uniform_(bias, -bound, bound);
}

}  // namespace d2l
