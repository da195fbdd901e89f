// tests/gradcheck.h — finite-difference gradient check: every differentiable op and layer
// has one.
//
// gradcheck(f, inputs, name) runs f forward with grad on, takes the scalar
//   loss = Σ out ⊙ R          (R a fixed random tensor of out's shape)
// back to every input, then perturbs each input element by ±eps under NoGrad and compares
// the analytic gradient with the central difference (loss(x+eps) − loss(x−eps)) / 2eps.
//
// Why Σ out ⊙ R and not Σ out: softmax rows sum to 1 and layer_norm rows sum to Σβ, so the
// gradient of Σ out is exactly 0 and a check against it passes whatever the backward does.
// A random R weights every output differently, so each output's gradient path is tested.
//
// Layers: f may close over parameter tensors (a Linear's weight, ...). Pass them as
// `params` and they are checked exactly like the inputs (numbered after them in messages).
// Integer arguments (indices, labels, valid_lens) are not inputs: capture them in f.
//
//   BOOST_CHECK(gradcheck([](std::vector<Tensor>& x) { return d2l::tanh(x[0]); },
//                         {d2l::normal(0, 1, {3, 4})}, "tanh"));
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/autograd.h"
#include "core/ops.h"

namespace d2l {
namespace test {

struct GradcheckOptions {
  // eps: float32 has a 24-bit mantissa (relative rounding 6e-8). An output of size ~1 changes
  // by ~eps·|∂out/∂x| = 1e-3 under the perturbation, so the difference of two losses keeps
  // ~4 significant digits above float rounding noise, while the truncation error of the
  // central difference, eps²·f'''/6 ≈ 2e-7·f''', stays far below the tolerance. Larger eps
  // would cross kinks and curvature (exp, 1/x); smaller would drown in rounding.
  float eps = 1e-3f;
  // Pass when |analytic − numeric| <= atol + rtol·|numeric|. atol: each loss is a sum of
  // float32 outputs with absolute rounding ~1e-7 per unit of output, divided by 2eps = 2e-3,
  // so the numeric gradient carries noise of order 1e-4 for the tiny shapes tests use;
  // atol = 1e-3 is 10x that. rtol = 1e-2 covers the eps² curvature term for steep functions
  // (log, 1/x near 0.5, exp up to ~3) and float accumulation order in large reductions.
  double atol = 1e-3;
  double rtol = 1e-2;
  // Every element is checked up to this many per tensor; above it a fixed random subset of
  // `sample` elements (ggml stops past 10,000; minitorch samples one).
  int64_t max_full = 4096;
  int64_t sample = 512;
  uint64_t seed = 20240601;  // for R and the subset: fixed, independent of d2l::manual_seed
  int max_reports = 8;       // failure lines printed per tensor
};

namespace detail {

// Uniform in [-1, 1) from mt19937_64 bits directly: std::uniform_real_distribution is not
// specified bit for bit, and R must be the same on every platform.
inline float uniform_pm1(std::mt19937_64& g) { return static_cast<float>(g() >> 40) * (2.0f / 16777216.0f) - 1.0f; }

inline double weighted_sum(const Tensor& out, const std::vector<float>& R) {
  const float* p = out.data();
  double s = 0.0;
  for (int64_t i = 0; i < out.numel(); ++i) s += static_cast<double>(p[i]) * R[i];
  return s;
}

}  // namespace detail

// Returns true when every checked element agrees; prints each mismatch (op, input number,
// flat index, analytic, numeric) to stderr. f must be deterministic (dropout off, or a
// manual_seed inside f so every call draws the same mask).
inline bool gradcheck(const std::function<Tensor(std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                      const std::string& name, std::vector<Tensor> params = {}, const GradcheckOptions& opt = {}) {
  // The tensors to check: the inputs (leaves, made to require grad) then the parameters.
  for (Tensor& x : inputs) {
    x.requires_grad_(true);
    x.zero_grad();
  }
  for (Tensor& p : params) {
    p.requires_grad_(true);
    p.zero_grad();
  }
  std::vector<Tensor> checked = inputs;
  checked.insert(checked.end(), params.begin(), params.end());
  auto label = [&](size_t k) {
    return k < inputs.size() ? "input " + std::to_string(k) : "param " + std::to_string(k - inputs.size());
  };

  // Analytic: one backward of Σ out ⊙ R.
  std::vector<Tensor> args = inputs;
  Tensor out = f(args);
  std::mt19937_64 gen(opt.seed);
  std::vector<float> R(static_cast<size_t>(out.numel()));
  for (float& r : R) r = detail::uniform_pm1(gen);
  if (!out.requires_grad()) {
    std::fprintf(stderr, "[gradcheck] %s: output does not require grad (no input reached it)\n", name.c_str());
    return false;
  }
  Tensor loss = sum(mul(out, tensor(R, out.shape())));
  loss.backward();
  std::vector<std::vector<float>> analytic;
  for (Tensor& t : checked) {
    const Tensor g = t.grad();  // undefined: no gradient reached t, i.e. all zeros
    analytic.push_back(g.defined() ? g.to_vector() : std::vector<float>(static_cast<size_t>(t.numel()), 0.0f));
  }

  // Numeric: central differences with the graph off.
  NoGrad no_grad;
  bool ok = true;
  for (size_t k = 0; k < checked.size(); ++k) {
    Tensor& t = checked[k];
    const int64_t n = t.numel();
    std::vector<int64_t> where;
    if (n <= opt.max_full) {
      for (int64_t i = 0; i < n; ++i) where.push_back(i);
    } else {
      for (int64_t s = 0; s < opt.sample; ++s) where.push_back(static_cast<int64_t>(gen() % static_cast<uint64_t>(n)));
    }
    int reported = 0;
    for (int64_t i : where) {
      float* x = t.data() + i;
      const float saved = *x;
      *x = saved + opt.eps;
      std::vector<Tensor> a = inputs;
      const double up = detail::weighted_sum(f(a), R);
      *x = saved - opt.eps;
      a = inputs;
      const double down = detail::weighted_sum(f(a), R);
      *x = saved;
      // The perturbation actually applied, in float: (saved+eps) − (saved−eps) need not be 2eps.
      const double h = static_cast<double>(saved + opt.eps) - static_cast<double>(saved - opt.eps);
      const double numeric = (up - down) / h;
      const double an = analytic[k][i];
      const bool finite = std::isfinite(an) && std::isfinite(numeric);
      const bool close = finite && std::fabs(an - numeric) <= opt.atol + opt.rtol * std::fabs(numeric);
      if (!close) {
        ok = false;
        if (reported++ < opt.max_reports)
          std::fprintf(stderr, "[gradcheck] %s: %s%s, flat index %lld: analytic %.6g vs numeric %.6g\n", name.c_str(),
                       label(k).c_str(), finite ? "" : " (nonfinite gradient)", static_cast<long long>(i), an, numeric);
      }
    }
  }
  for (Tensor& t : checked) t.zero_grad();
  return ok;
}

namespace detail {
inline std::vector<Tensor> parts(std::vector<Tensor> outputs) { return outputs; }
inline std::vector<Tensor> parts(const std::pair<Tensor, Tensor>& outputs) { return {outputs.first, outputs.second}; }
}  // namespace detail

// gradcheck of a layer with dropout off, over the inputs and every parameter: `outputs` is
// what the layer returns for the inputs (a pair of tensors, or a vector of them), all of it
// fed to the loss (flattened, in order).
template <class Layer, class Outputs>
bool gradcheck_layer(Layer& layer, Outputs outputs, std::vector<Tensor> inputs, const std::string& name) {
  layer.eval();  // dropout off
  auto flat = [&outputs](std::vector<Tensor>& x) {
    std::vector<Tensor> parts;
    for (const Tensor& t : detail::parts(outputs(x))) parts.push_back(d2l::reshape(t, {-1}));
    return d2l::concat(parts, 0);
  };
  return gradcheck(flat, std::move(inputs), name, layer.parameters());
}

}  // namespace test
}  // namespace d2l
