// layers/attention_scoring_functions.h — 10.3 注意力评分函数 / Attention Scoring Functions
// (sec_attention-scoring-functions).
//
// Attention pooling is a weighted average of the values, the weights being a softmax over
// a scoring function a(q, k) of the query and each key (eq_attn-scoring-alpha). Two scoring
// functions: additive (eq_additive-attn), for queries and keys of different lengths, and
// scaled dot product (eq_softmax_QK_V). masked_softmax and sequence_mask, which hide the
// padding keys, are core ops (core/ops.h), called here as the book calls d2l.masked_softmax.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/nn/basic.h"
#include "core/nn/layer.h"
#include "core/ops.h"
#include "layers/attention_pooling.h"

namespace d2l {

// The pooling of eq_attn-scoring-alpha around a layer's score a(q, k): L writes only
// `Tensor score(queries, keys)` -> (batch_size, no. of queries, no. of kv pairs) and has a
// Dropout `dropout`, which acts on the attention weights (so, in training, on which values
// are averaged).
template <class L>
class ScoredAttention : public Layer<L, AttentionPooling> {
 public:
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens) override {
    check_attention_args(std::strchr(L::section, ' ') + 1, queries, keys, values, valid_lens);
    L& layer = static_cast<L&>(*this);
    this->attention_weights = masked_softmax(layer.score(queries, keys), valid_lens);
    // (batch_size, no. of queries, no. of kv pairs) x values -> (batch_size, no. of queries, value_size)
    return bmm(layer.dropout(this->attention_weights), values);
  }
};

// Additive attention, a(q, k) = w_vᵀ tanh(W_q q + W_k k) (eq_additive-attn): an MLP with
// one hidden layer of num_hiddens units, tanh, and no biases, as the book builds it.
// queries (..., query_size), keys (..., key_size).
class AdditiveAttention : public ScoredAttention<AdditiveAttention> {
 public:
  static constexpr const char* section = "10.3 AdditiveAttention";
  AdditiveAttention(int64_t key_size, int64_t query_size, int64_t num_hiddens, float dropout);
  Tensor score(const Tensor& queries, const Tensor& keys);

  Linear &W_k, &W_q, &w_v;  // (num_hiddens, key_size), (num_hiddens, query_size), (1, num_hiddens)
  Dropout& dropout;
};

// Scaled dot-product attention, softmax(Q Kᵀ / √d) V (eq_softmax_QK_V). Dividing by √d keeps
// the scores' variance at 1 when q and k have independent unit-variance entries, so the
// softmax does not saturate as d grows. queries and keys (..., d).
class DotProductAttention : public ScoredAttention<DotProductAttention> {
 public:
  static constexpr const char* section = "10.3 DotProductAttention";
  explicit DotProductAttention(float dropout);
  Tensor score(const Tensor& queries, const Tensor& keys);

  Dropout& dropout;
};

}  // namespace d2l
