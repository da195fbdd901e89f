// layers/exercises/self_attention_and_positional_encoding.cpp — 10.6 exercises 1 and 2:
// SelfAttentionStack and LearnedPositionalEncoding.
#include "layers/exercises/self_attention_and_positional_encoding.h"

#include <stdexcept>

#include "core/shape.h"  // check
#include "core/ops.h"

namespace d2l {

LearnedPositionalEncoding::LearnedPositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len)
    : PositionalEncodingBase("10.6 LearnedPositionalEncoding", num_hiddens, dropout, max_len) {
  P = register_parameter("P", normal(0.0f, 1.0f, {1, max_len, num_hiddens}));
}

std::unique_ptr<PositionalEncodingBase> make_positional_encoding(const std::string& kind, int64_t num_hiddens,
                                                                 float dropout, int64_t max_len) {
  if (kind == "sinusoidal") return std::make_unique<PositionalEncoding>(num_hiddens, dropout, max_len);
  if (kind == "learned") return std::make_unique<LearnedPositionalEncoding>(num_hiddens, dropout, max_len);
  throw std::invalid_argument("[make_positional_encoding] unknown kind '" + kind +
                              "': expected 'sinusoidal' (the book's) or 'learned'");
}

SelfAttentionStack::SelfAttentionStack(int64_t num_hiddens, int64_t num_heads, int64_t num_layers, bool residual_norm_)
    : residual_norm(residual_norm_), pos_encoding(add_module<PositionalEncoding>("pos_encoding", num_hiddens, 0.0f)) {
  check(num_layers >= 1, "SelfAttentionStack", "num_layers must be >= 1, got ", num_layers);
  for (int64_t l = 0; l < num_layers; ++l) {
    const std::string at = std::to_string(l);
    attentions.push_back(&add_module<MultiHeadAttention>("attentions." + at, num_hiddens, num_heads, 0.0f));
    if (residual_norm) norms.push_back(&add_module<LayerNorm>("norms." + at, num_hiddens));
  }
}

Tensor SelfAttentionStack::forward(const Tensor& X, const Tensor& valid_lens) {
  Tensor H = pos_encoding(X);  // (batch_size, no. of steps, num_hiddens)
  for (size_t l = 0; l < attentions.size(); ++l) {
    const Tensor Y = (*attentions[l])(H, H, H, valid_lens);  // self-attention: q = k = v = H
    H = residual_norm ? (*norms[l])(H + Y) : Y;
  }
  return H;
}

}  // namespace d2l
