// layers/exercises/self_attention_and_positional_encoding.h — 10.6 自注意力和位置编码 /
// Self-Attention and Positional Encoding (sec_self-attention-and-positional-encoding):
// the section's exercises 1 (deep self-attention) and 2 (a learned positional encoding).
#pragma once
#include <cstdint>
#include <vector>
#include <memory>
#include <string>

#include "core/nn/basic.h"
#include "layers/multihead_attention.h"
#include "layers/self_attention_and_positional_encoding.h"

namespace d2l {

// Exercise 2: a learnable positional encoding, P a parameter, one free vector per position,
// trained with the model. It starts N(0, 1), as the book's BERT (sec_bert) creates its
// learnable position embedding, nn.Parameter(torch.randn(1, max_len, num_hiddens)). Unlike
// the sinusoids, a row only learns when training reaches its position: rows at positions no
// training sequence has stay as they started, so the encoding cannot extrapolate to longer
// sequences. The forward is PositionalEncodingBase's:
//   X (batch_size, no. of steps, num_hiddens) -> the same shape.
class LearnedPositionalEncoding : public PositionalEncodingBase {
 public:
  LearnedPositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len = 1000);
  // P: the parameter "P", (1, max_len, num_hiddens)
};

// The encoding a model asks for by name: "sinusoidal" (the book's PositionalEncoding) or
// "learned" (LearnedPositionalEncoding); any other name is an error naming the two.
std::unique_ptr<PositionalEncodingBase> make_positional_encoding(const std::string& kind, int64_t num_hiddens,
                                                                 float dropout, int64_t max_len = 1000);

// Exercise 1: a deep representation built by stacking self-attention layers over a
// positionally encoded input, X_0 = PositionalEncoding(X), then per layer l
//   plain:                X_l = MultiHeadAttention(X_{l-1}, X_{l-1}, X_{l-1})
//   residual_norm = true: X_l = LayerNorm(X_{l-1} + MultiHeadAttention(X_{l-1}, ...))
// (the second is how 10.7's encoder keeps deep stacks trainable, its AddNorm). Without the
// residual path every layer's output is an average of its values (rows of a softmax sum to
// 1) projected by W_v and W_o: the rows grow alike with depth and the signal, and the
// gradient reaching the first layers, shrink. No dropout.
//   X (batch_size, no. of steps, num_hiddens), valid_lens undefined or (batch_size,)
//   -> the same shape as X.
class SelfAttentionStack : public Layer<SelfAttentionStack> {
 public:
  static constexpr const char* section = "10.6 SelfAttentionStack";
  SelfAttentionStack(int64_t num_hiddens, int64_t num_heads, int64_t num_layers, bool residual_norm);
  Tensor forward(const Tensor& X, const Tensor& valid_lens = Tensor());

  bool residual_norm;
  PositionalEncoding& pos_encoding;
  std::vector<MultiHeadAttention*> attentions;  // registered "attentions.<l>"
  std::vector<LayerNorm*> norms;                // "norms.<l>", with residual_norm
};

}  // namespace d2l
