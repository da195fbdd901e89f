// layers/self_attention_and_positional_encoding.cpp — 10.6 PositionalEncoding
// (sec_self-attention-and-positional-encoding, subsec_positional-encoding).
#include "layers/self_attention_and_positional_encoding.h"

#include <cmath>
#include <stdexcept>

#include "core/shape.h"  // check
#include "core/debug/debug.h"
#include "core/ops.h"

namespace d2l {

PositionalEncodingBase::PositionalEncodingBase(const char* name, const char* section, int64_t num_hiddens, float dropout,
                                               int64_t max_len)
    : num_hiddens(num_hiddens), max_len(max_len), dropout(dropout), name_(name), section_(section) {
  check(num_hiddens > 0 && max_len > 0, name, "num_hiddens (", num_hiddens, ") and max_len (", max_len,
        ") must be > 0");
}

PositionalEncoding::PositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len)
    : PositionalEncodingBase("PositionalEncoding", "10.6 PositionalEncoding", num_hiddens, dropout, max_len) {
  register_module("dropout", this->dropout);
  // The table is a constant, filled once here in float32 the way the book's PyTorch code
  // computes it: X[i, j] = i / 10000^(2j / d), then sin(X) into the even columns and
  // cos(X) into the odd ones.
  P = zeros({1, max_len, num_hiddens});
  float* p = P.data();
  for (int64_t c = 0; c < num_hiddens; c += 2) {
    const float denom = std::pow(10000.0f, static_cast<float>(c) / static_cast<float>(num_hiddens));
    for (int64_t i = 0; i < max_len; ++i) {
      const float x = static_cast<float>(i) / denom;
      p[i * num_hiddens + c] = std::sin(x);
      if (c + 1 < num_hiddens) p[i * num_hiddens + c + 1] = std::cos(x);
    }
  }
}

LearnedPositionalEncoding::LearnedPositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len)
    : PositionalEncodingBase("LearnedPositionalEncoding", "10.6 LearnedPositionalEncoding", num_hiddens, dropout, max_len) {
  P = register_parameter("P", normal(0.0f, 1.0f, {1, max_len, num_hiddens}));
  register_module("dropout", this->dropout);
}

Tensor PositionalEncodingBase::forward(const Tensor& X, int64_t offset) const {
  SectionScope section(section_);
  check(X.defined() && X.ndim() == 3 && X.size(2) == num_hiddens, name_,
        "expected X (batch_size, no. of steps, num_hiddens = ", num_hiddens, "), got ", printable_shape(X));
  check(offset >= 0 && offset + X.size(1) <= max_len, name_, "X ", X.shape(), " at offset ", offset,
        " needs rows ", offset, "..", offset + X.size(1) - 1, " of P, which has max_len = ", max_len, " rows");
  // P[:, offset:offset + no. of steps, :] (1, no. of steps, num_hiddens) broadcasts over the
  // batch; for the learned P, slice's backward sends the gradient to those rows only.
  return dropout(X + slice(P, 1, offset, offset + X.size(1)));
}

std::unique_ptr<PositionalEncodingBase> make_positional_encoding(const std::string& kind, int64_t num_hiddens,
                                                                 float dropout, int64_t max_len) {
  if (kind == "sinusoidal") return std::make_unique<PositionalEncoding>(num_hiddens, dropout, max_len);
  if (kind == "learned") return std::make_unique<LearnedPositionalEncoding>(num_hiddens, dropout, max_len);
  throw std::invalid_argument("[make_positional_encoding] unknown kind '" + kind +
                              "': expected 'sinusoidal' (the book's) or 'learned'");
}

SelfAttentionStack::SelfAttentionStack(int64_t num_hiddens, int64_t num_heads, int64_t num_layers, bool residual_norm_)
    : residual_norm(residual_norm_), pos_encoding(num_hiddens, 0.0f) {
  check(num_layers >= 1, "SelfAttentionStack", "num_layers must be >= 1, got ", num_layers);
  register_module("pos_encoding", pos_encoding);
  for (int64_t l = 0; l < num_layers; ++l) {
    attentions.push_back(std::make_unique<MultiHeadAttention>(num_hiddens, num_heads, 0.0f));
    register_module("attentions." + std::to_string(l), *attentions.back());
    if (residual_norm) {
      norms.push_back(std::make_unique<LayerNorm>(num_hiddens));
      register_module("norms." + std::to_string(l), *norms.back());
    }
  }
}

Tensor SelfAttentionStack::forward(const Tensor& X, const Tensor& valid_lens) {
  SectionScope section("10.6 SelfAttentionStack");
  Tensor H = pos_encoding(X);  // (batch_size, no. of steps, num_hiddens)
  for (size_t l = 0; l < attentions.size(); ++l) {
    const Tensor Y = (*attentions[l])(H, H, H, valid_lens);  // self-attention: q = k = v = H
    H = residual_norm ? (*norms[l])(H + Y) : Y;
  }
  return H;
}

}  // namespace d2l
