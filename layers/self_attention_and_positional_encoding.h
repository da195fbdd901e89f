// layers/self_attention_and_positional_encoding.h — 10.6 自注意力和位置编码 / Self-Attention
// and Positional Encoding (sec_self-attention-and-positional-encoding).
//
// Self-attention needs no layer of its own: it is MultiHeadAttention called with
// queries = keys = values = X (layers/multihead_attention.h). What it lacks is order, which
// the fixed sinusoidal positional encoding below adds to the input.
#pragma once
#include <cstdint>

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
class PositionalEncoding : public Module {
 public:
  PositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len = 1000);
  Tensor forward(const Tensor& X, int64_t offset = 0) const;
  Tensor operator()(const Tensor& X, int64_t offset = 0) const { return forward(X, offset); }

  int64_t num_hiddens, max_len;
  Dropout dropout;
  Tensor P;  // (1, max_len, num_hiddens): a constant, not a parameter
};

}  // namespace d2l
