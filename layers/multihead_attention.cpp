// layers/multihead_attention.cpp — 10.5 多头注意力 / Multi-Head Attention (sec_multihead-attention).
//
// transpose_qkv and transpose_output are reshape + permute, so they differentiate through
// the core ops; the heads themselves are one DotProductAttention over batch_size * num_heads.
#include "layers/multihead_attention.h"

#include "core/shape.h"  // check
#include "core/ops.h"

namespace d2l {

Tensor transpose_qkv(const Tensor& X, int64_t num_heads) {
  check(X.defined() && X.ndim() == 3 && num_heads > 0 && X.size(2) % num_heads == 0, "transpose_qkv", "X ",
        printable_shape(X), " is not (batch_size, no. of steps, a multiple of num_heads = ", num_heads, ")");
  // (batch_size, no. of queries or kv pairs, num_heads, num_hiddens / num_heads)
  Tensor Y = reshape(X, {X.size(0), X.size(1), num_heads, -1});
  // (batch_size, num_heads, no. of queries or kv pairs, num_hiddens / num_heads)
  Y = permute(Y, {0, 2, 1, 3});
  // (batch_size * num_heads, no. of queries or kv pairs, num_hiddens / num_heads)
  return reshape(Y, {-1, Y.size(2), Y.size(3)});
}

Tensor transpose_output(const Tensor& X, int64_t num_heads) {
  check(X.defined() && X.ndim() == 3 && num_heads > 0 && X.size(0) % num_heads == 0, "transpose_output", "X ",
        printable_shape(X), " is not (a multiple of num_heads = ", num_heads, ", no. of queries, head size)");
  // (batch_size, num_heads, no. of queries, num_hiddens / num_heads)
  Tensor Y = reshape(X, {-1, num_heads, X.size(1), X.size(2)});
  // (batch_size, no. of queries, num_heads, num_hiddens / num_heads)
  Y = permute(Y, {0, 2, 1, 3});
  // (batch_size, no. of queries, num_hiddens)
  return reshape(Y, {Y.size(0), Y.size(1), -1});
}

MultiHeadAttention::MultiHeadAttention(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens,
                                       int64_t num_heads, float dropout, bool bias)
    : num_heads(num_heads),
      attention(&add_module<DotProductAttention>("attention", dropout)),
      W_q(add_module<Linear>("W_q", query_size, num_hiddens, bias)),
      W_k(add_module<Linear>("W_k", key_size, num_hiddens, bias)),
      W_v(add_module<Linear>("W_v", value_size, num_hiddens, bias)),
      W_o(add_module<Linear>("W_o", num_hiddens, num_hiddens, bias)) {
  check(num_heads > 0 && num_hiddens > 0 && num_hiddens % num_heads == 0, "MultiHeadAttention", "num_hiddens (",
        num_hiddens, ") is not divisible by num_heads (", num_heads, ")");
}

Tensor MultiHeadAttention::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                   const Tensor& valid_lens) {
  check_attention_args("MultiHeadAttention", queries, keys, values, valid_lens, W_q.in_features, W_k.in_features,
                       W_v.in_features);
  // Each: (batch_size * num_heads, no. of queries or kv pairs, num_hiddens / num_heads)
  const Tensor q = transpose_qkv(W_q(queries), num_heads);
  const Tensor k = transpose_qkv(W_k(keys), num_heads);
  const Tensor v = transpose_qkv(W_v(values), num_heads);
  // Batch row b * num_heads + i is head i of item b, so each length is repeated num_heads
  // times in a row (repeat_interleave, not repeat): (batch_size * num_heads,) or
  // (batch_size * num_heads, no. of queries).
  const Tensor lens = valid_lens.defined() ? repeat_interleave(valid_lens, num_heads, 0) : Tensor();
  // output: (batch_size * num_heads, no. of queries, num_hiddens / num_heads)
  const Tensor output = (*attention)(q, k, v, lens);
  // output_concat: (batch_size, no. of queries, num_hiddens)
  return W_o(transpose_output(output, num_heads));
}

}  // namespace d2l
