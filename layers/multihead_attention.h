// layers/multihead_attention.h — 10.5 多头注意力 / Multi-Head Attention (sec_multihead-attention).
//
// h heads each pool over their own learned projection of the queries, keys and values;
// the heads' outputs are concatenated and projected by W_o. With p_q = p_k = p_v =
// num_hiddens / num_heads, the h projections are one Linear of num_hiddens outputs split
// into heads, so all heads run as one batched DotProductAttention (transpose_qkv).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/nn/module.h"
#include "core/tensor.h"
#include "layers/attention_scoring_functions.h"
#include "core/nn/basic.h"

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
class MultiHeadAttention : public Module {
 public:
  MultiHeadAttention(int64_t key_size, int64_t query_size, int64_t value_size, int64_t num_hiddens, int64_t num_heads,
                     float dropout, bool bias = false);
  // The book's MXNet tab's form: query, key and value sizes all num_hiddens (as in
  // self-attention), no biases.
  MultiHeadAttention(int64_t num_hiddens, int64_t num_heads, float dropout)
      : MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, dropout) {}

  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens = Tensor());
  Tensor operator()(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const Tensor& valid_lens = Tensor()) {
    return forward(queries, keys, values, valid_lens);
  }

  // 10.7 ex. 2: score every head with additive attention (layers/attention_scoring_functions.h)
  // in place of scaled dot product: one MLP, shared by the heads, of num_hiddens / num_heads
  // hidden units over each head's projected query and key. Registers it as "additive" (its
  // weights join the parameters; `attention` stays, parameter-free and unused). Call before
  // training. attention.attention_weights still holds the last forward's weights.
  void use_additive_scoring();
  // num_heads: what a parameter file records (Module::save), as the shapes do not show it.
  std::vector<std::pair<std::string, std::string>> hyper_parameters() const override {
    return {{"num_heads", std::to_string(num_heads)}};
  }

  // 10.7 ex. 5: run the heads through memory_efficient_attention (core/ops.h), the same
  // result without the (batch_size * num_heads, no. of queries, no. of kv pairs) weights in
  // memory; attention.attention_weights is then left undefined. It has no dropout on the
  // weights: with dropout > 0 it runs in eval mode only.
  bool memory_efficient = false;

  int64_t num_heads;  // first member: checked against num_hiddens before any layer is built
  // attention.attention_weights: (batch_size * num_heads, no. of queries, no. of kv pairs)
  DotProductAttention attention;
  Linear W_q, W_k, W_v, W_o;
  std::unique_ptr<AdditiveAttention> additive;  // set by use_additive_scoring
  // 10.5 ex. 2 (head importance): empty (every head whole), or num_heads factors, head i's
  // output multiplied by head_mask[i] before the heads are concatenated and projected by
  // W_o; 0 removes the head, as Michel et al. (2019) mask heads to measure what each adds.
  std::vector<float> head_mask;
};

}  // namespace d2l
