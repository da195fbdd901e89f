// core/nn/basic.cpp — Linear, Dropout, Embedding, LayerNorm: thin wrappers that own the
// parameters and call the core ops (d2l::linear, dropout, embedding, layer_norm), which
// carry the kernels and their backward passes.
#include "core/nn/basic.h"

#include <utility>

#include "core/shape.h"  // check
#include "core/debug/debug.h"
#include "core/nn/init.h"
#include "core/ops.h"

namespace d2l {

// --- Linear --------------------------------------------------------------------------------
Linear::Linear(int64_t in_features, int64_t out_features, bool bias)
    : in_features(in_features), out_features(out_features) {
  check(in_features > 0 && out_features > 0, "Linear", "in_features (", in_features, ") and out_features (",
        out_features, ") must be > 0");
  weight = register_parameter("weight", empty({out_features, in_features}));
  if (bias) this->bias = register_parameter("bias", empty({out_features}));
  // Weight first, then bias: the order nn.Linear.reset_parameters draws them in.
  linear_default_init_(weight, this->bias);
}

Tensor Linear::forward(const Tensor& x) const {
  check(x.defined() && x.ndim() >= 1 && x.size(-1) == in_features, "Linear", "expected input (..., ", in_features,
        "), got ", printable_shape(x), " for weight ", weight.shape());
  return linear(x, weight, bias);  // x (..., in) -> (..., out), one GEMM reading weight transposed
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + (bias.defined() ? "True" : "False");
}

// --- Dropout -------------------------------------------------------------------------------
Dropout::Dropout(float p) : p(p) {
  check(p >= 0.0f && p <= 1.0f, "Dropout", "p must be in [0, 1], got ", p);
}

Tensor Dropout::forward(const Tensor& x) const {
  return dropout(x, p, training());
}

std::string Dropout::extra_repr() const { return "p=" + python_float(p) + ", inplace=False"; }

// --- Embedding -----------------------------------------------------------------------------
Embedding::Embedding(int64_t vocab_size, int64_t embed_size) : vocab_size(vocab_size), embed_size(embed_size) {
  check(vocab_size > 0 && embed_size > 0, "Embedding", "vocab_size (", vocab_size, ") and embed_size (", embed_size,
        ") must be > 0");
  weight = register_parameter("weight", normal(0.0f, 1.0f, {vocab_size, embed_size}));
}

Tensor Embedding::forward(const Tensor& indices) const {
  return embedding(weight, indices);
}

std::string Embedding::extra_repr() const { return std::to_string(vocab_size) + ", " + std::to_string(embed_size); }

// --- LayerNorm -----------------------------------------------------------------------------
LayerNorm::LayerNorm(Shape normalized_shape, float eps) : normalized_shape(std::move(normalized_shape)), eps(eps) {
  bool positive = !this->normalized_shape.empty();
  for (int64_t n : this->normalized_shape) positive = positive && n > 0;
  check(positive, "LayerNorm", "normalized_shape must be non-empty with positive sizes, got ", this->normalized_shape);
  check(eps > 0.0f, "LayerNorm", "eps must be > 0, got ", eps);
  weight = register_parameter("weight", ones(this->normalized_shape));
  bias = register_parameter("bias", zeros(this->normalized_shape));
}

Tensor LayerNorm::forward(const Tensor& x) const {
  return layer_norm(x, normalized_shape, weight, bias, eps);
}

std::string LayerNorm::extra_repr() const {
  // normalized_shape is a Python tuple there: "(32,)" for one dim, "(100, 24)" for two.
  std::string dims;
  for (size_t i = 0; i < normalized_shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(normalized_shape[i]);
  if (normalized_shape.size() == 1) dims += ",";
  return "(" + dims + "), eps=" + python_float(eps) + ", elementwise_affine=True";
}

// --- ReLU, Flatten -------------------------------------------------------------------------
Tensor ReLU::forward(const Tensor& x) const { return relu(x); }

Tensor Flatten::forward(const Tensor& x) const {
  const int64_t n = x.ndim();
  const int64_t start = start_dim < 0 ? start_dim + n : start_dim, end = end_dim < 0 ? end_dim + n : end_dim;
  check(start >= 0 && end < n && start <= end, "Flatten", "start_dim ", start_dim, " and end_dim ", end_dim,
        " do not fit input ", x.shape());
  Shape s(x.shape().begin(), x.shape().begin() + start);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= x.shape()[static_cast<size_t>(d)];
  s.push_back(merged);
  s.insert(s.end(), x.shape().begin() + end + 1, x.shape().end());
  return reshape(x, s);
}

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

}  // namespace d2l
