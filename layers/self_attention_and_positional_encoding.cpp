// layers/self_attention_and_positional_encoding.cpp — 10.6 PositionalEncoding
// (sec_self-attention-and-positional-encoding, subsec_positional-encoding).
#include "layers/self_attention_and_positional_encoding.h"

#include <cmath>
#include <cstring>

#include "core/shape.h"  // check
#include "core/ops.h"

namespace d2l {

PositionalEncodingBase::PositionalEncodingBase(const char* section, int64_t num_hiddens, float dropout,
                                               int64_t max_len)
    : section(section), num_hiddens(num_hiddens), max_len(max_len), dropout(add_module<Dropout>("dropout", dropout)) {
  check(num_hiddens > 0 && max_len > 0, std::strchr(section, ' ') + 1, "num_hiddens (", num_hiddens,
        ") and max_len (", max_len, ") must be > 0");
}

PositionalEncoding::PositionalEncoding(int64_t num_hiddens, float dropout, int64_t max_len)
    : PositionalEncodingBase("10.6 PositionalEncoding", num_hiddens, dropout, max_len) {
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

Tensor PositionalEncodingBase::forward(const Tensor& X, int64_t offset) const {
  const char* name = std::strchr(section, ' ') + 1;
  check(X.defined() && X.ndim() == 3 && X.size(2) == num_hiddens, name,
        "expected X (batch_size, no. of steps, num_hiddens = ", num_hiddens, "), got ", printable_shape(X));
  check(offset >= 0 && offset + X.size(1) <= max_len, name, "X ", X.shape(), " at offset ", offset,
        " needs rows ", offset, "..", offset + X.size(1) - 1, " of P, which has max_len = ", max_len, " rows");
  // P[:, offset:offset + no. of steps, :] (1, no. of steps, num_hiddens) broadcasts over the
  // batch; for a learned P, slice's backward sends the gradient to those rows only.
  return dropout(X + slice(P, 1, offset, offset + X.size(1)));
}

}  // namespace d2l
