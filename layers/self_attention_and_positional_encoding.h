// layers/self_attention_and_positional_encoding.h — 10.6 自注意力和位置编码 / Self-Attention
// and Positional Encoding (sec_self-attention-and-positional-encoding).
//
// Self-attention needs no layer of its own: it is MultiHeadAttention called with
// queries = keys = values = X (layers/multihead_attention.h). What it lacks is order, which
// the fixed sinusoidal positional encoding below adds to the input.
#pragma once
#include <cstdint>

#include "core/nn/basic.h"
#include "layers/multihead_attention.h"

namespace d2l {

// What a positional encoding does with its table P of max_len rows of width num_hiddens:
// X + P[offset:offset + no. of steps], then dropout. The book adds rows 0, 1, ...; offset > 0
// adds rows offset, offset + 1, ... instead, for a caller whose X starts later in the
// sequence (offset + no. of steps <= max_len).
//   X (batch_size, no. of steps, num_hiddens) -> the same shape.
// The book's fixed table below and the learned one of the section's exercise 2
// (layers/exercises/self_attention_and_positional_encoding.h) share it; a Transformer holds
// either through this base. `section` names the class's book section.
class PositionalEncodingBase : public Module {
 public:
  Tensor forward(const Tensor& X, int64_t offset = 0) const;
  Tensor operator()(const Tensor& X, int64_t offset = 0) const {
    SectionScope scope(section);
    return forward(X, offset);
  }

  const char* section;  // a string literal, "10.6 PositionalEncoding"
  int64_t num_hiddens, max_len;
  Dropout& dropout;
  Tensor P;  // (1, max_len, num_hiddens)

 protected:
  PositionalEncodingBase(const char* section, int64_t num_hiddens, float dropout, int64_t max_len);
};

// The table P of eq_positional-encoding-def, a constant:
//   P[0, i, 2j]   = sin(i / 10000^(2j / num_hiddens))
//   P[0, i, 2j+1] = cos(i / 10000^(2j / num_hiddens))
// Column pairs (2j, 2j+1) oscillate at frequency ω_j = 1 / 10000^(2j/d), falling along the
// encoding dimension like the bits of a binary counter (subsec_positional-encoding).
// An odd num_hiddens is allowed (the book's code would fail on it): the last column is
// then a sin column without its cos partner.
class PositionalEncoding : public PositionalEncodingBase {
 public:
  PositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len = 1000);
};

}  // namespace d2l
