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

#include "core/module.h"
#include "core/tensor.h"
#include "layers/basic.h"

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

}  // namespace d2l
