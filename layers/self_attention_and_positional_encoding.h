// layers/self_attention_and_positional_encoding.h — 10.6 自注意力和位置编码 / Self-Attention
// and Positional Encoding (sec_self-attention-and-positional-encoding).
//
// Self-attention needs no layer of its own: it is MultiHeadAttention called with
// queries = keys = values = X (layers/multihead_attention.h). What it lacks is order, which
// the fixed sinusoidal positional encoding below adds to the input.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/module.h"
#include "core/tensor.h"
#include "core/nn/basic.h"
#include "layers/multihead_attention.h"

namespace d2l {

// Adds the table P (eq_positional-encoding-def) to X, then applies dropout:
//   P[0, i, 2j]   = sin(i / 10000^(2j / num_hiddens))
//   P[0, i, 2j+1] = cos(i / 10000^(2j / num_hiddens))
// Column pairs (2j, 2j+1) oscillate at frequency ω_j = 1 / 10000^(2j/d), falling along the
// encoding dimension like the bits of a binary counter (subsec_positional-encoding).
// An odd num_hiddens is allowed (the book's code would fail on it): the last column is
// then a sin column without its cos partner.
//   X (batch_size, no. of steps, num_hiddens) -> the same shape.
// The book adds rows 0, 1, ... of P; offset > 0 adds rows offset, offset + 1, ... instead,
// for a caller whose X starts later in the sequence (offset + no. of steps <= max_len).
//
// What both encodings share (the fixed one here, the learned one below): the table P of
// max_len rows of width num_hiddens and the forward X + P[offset:offset + no. of steps],
// then dropout. A Transformer holds either through this base.
class PositionalEncodingBase : public Module {
 public:
  Tensor forward(const Tensor& X, int64_t offset = 0) const;
  Tensor operator()(const Tensor& X, int64_t offset = 0) const { return forward(X, offset); }

  int64_t num_hiddens, max_len;
  Dropout dropout;
  Tensor P;  // (1, max_len, num_hiddens)

 protected:
  // name and section: string literals, "PositionalEncoding" and "10.6 PositionalEncoding".
  PositionalEncodingBase(const char* name, const char* section, int64_t num_hiddens, float dropout, int64_t max_len);

 private:
  const char* name_;     // for error messages
  const char* section_;  // for SectionScope
};

class PositionalEncoding : public PositionalEncodingBase {
 public:
  PositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len = 1000);
  // P: a constant, not a parameter
};

// A learnable positional encoding (the section's exercise 2): P is a parameter, one free
// vector per position, trained with the model. It starts N(0, 1), as the book's BERT
// (sec_bert) creates its learnable position embedding, nn.Parameter(torch.randn(1, max_len,
// num_hiddens)). Unlike the sinusoids, a row only learns when training reaches its
// position: rows at positions no training sequence has stay as they started, so the
// encoding cannot extrapolate to longer sequences.
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

// The section's exercise 1: a deep representation built by stacking self-attention layers
// over a positionally encoded input, X_0 = PositionalEncoding(X), then per layer l
//   plain:                X_l = MultiHeadAttention(X_{l-1}, X_{l-1}, X_{l-1})
//   residual_norm = true: X_l = LayerNorm(X_{l-1} + MultiHeadAttention(X_{l-1}, ...))
// (the second is how 10.7's encoder keeps deep stacks trainable, its AddNorm). Without the
// residual path every layer's output is an average of its values (rows of a softmax sum to
// 1) projected by W_v and W_o: the rows grow alike with depth and the signal, and the
// gradient reaching the first layers, shrink. No dropout.
//   X (batch_size, no. of steps, num_hiddens), valid_lens undefined or (batch_size,)
//   -> the same shape as X.
class SelfAttentionStack : public Module {
 public:
  SelfAttentionStack(int64_t num_hiddens, int64_t num_heads, int64_t num_layers, bool residual_norm);
  Tensor forward(const Tensor& X, const Tensor& valid_lens = Tensor());
  Tensor operator()(const Tensor& X, const Tensor& valid_lens = Tensor()) { return forward(X, valid_lens); }

  bool residual_norm;
  PositionalEncoding pos_encoding;
  std::vector<std::unique_ptr<MultiHeadAttention>> attentions;  // registered "attentions.<l>"
  std::vector<std::unique_ptr<LayerNorm>> norms;                // "norms.<l>", with residual_norm
};

}  // namespace d2l
