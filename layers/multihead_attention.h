// layers/multihead_attention.h — 10.5 多头注意力 / Multi-Head Attention (sec_multihead-attention).
//
// h heads each pool over their own learned projection of the queries, keys and values;
// the heads' outputs are concatenated and projected by W_o. With p_q = p_k = p_v =
// num_hiddens / num_heads, the h projections are one Linear of num_hiddens outputs split
// into heads, so all heads run as one batched DotProductAttention (transpose_qkv).
#pragma once
#include <cstdint>
#include <vector>

#include <string>
#include <utility>

#include "layers/attention_scoring_functions.h"

namespace d2l {

// Splits the last dim into heads and moves the heads into the batch:
//   X (batch_size, no. of queries or kv pairs, num_hiddens)
//   -> (batch_size * num_heads, no. of queries or kv pairs, num_hiddens / num_heads),
// row b * num_heads + i holding head i of batch item b.
Tensor transpose_qkv(const Tensor& X, int64_t num_heads);
// The inverse of transpose_qkv:
//   X (batch_size * num_heads, no. of queries, num_hiddens / num_heads)
//   -> (batch_size, no. of queries, num_hiddens), the heads concatenated in order.
Tensor transpose_output(const Tensor& X, int64_t num_heads);

// Multi-head attention with scaled dot-product heads.
//   queries (batch_size, no. of queries, query_size)
//   keys    (batch_size, no. of kv pairs, key_size)
//   values  (batch_size, no. of kv pairs, value_size)
//   valid_lens undefined, (batch_size,) or (batch_size, no. of queries)
//   -> (batch_size, no. of queries, num_hiddens)
// Weights (PyTorch layout): W_q (num_hiddens, query_size), W_k (num_hiddens, key_size),
// W_v (num_hiddens, value_size), W_o (num_hiddens, num_hiddens); biases only if bias.
class MultiHeadAttention : public Layer<MultiHeadAttention> {
 public:
  static constexpr const char* section = "10.5 MultiHeadAttention";
  MultiHeadAttention(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens, int64_t num_heads,
                     float dropout, bool bias = false);
  // The book's MXNet tab's form: query, key and value sizes all num_hiddens (as in
  // self-attention), no biases.
  MultiHeadAttention(int64_t num_hiddens, int64_t num_heads, float dropout)
      : MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, dropout) {}
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens = Tensor());
  // num_heads: what a parameter file records (Module::save), as the shapes do not show it.
  std::vector<std::pair<std::string, std::string>> hyper_parameters() const override {
    return {{"num_heads", std::to_string(num_heads)}};
  }

  int64_t num_heads;  // num_hiddens must be a multiple of it
  // The pooling all heads run through, the book's self.attention: a DotProductAttention,
  // registered as "attention" (an exercise may point it at another pooling,
  // layers/exercises/multihead_attention.h). Its attention_weights:
  // (batch_size * num_heads, no. of queries, no. of kv pairs).
  AttentionPooling* attention;
  Linear &W_q, &W_k, &W_v, &W_o;
};

}  // namespace d2l
