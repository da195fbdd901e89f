// layers/attention_scoring_functions.cpp — 10.3 注意力评分函数 / Attention Scoring Functions
// (sec_attention-scoring-functions): the two scores, a(q, k), of AdditiveAttention and
// DotProductAttention; the pooling around them is ScoredAttention's.
//
// Both are compositions of core ops, so their backward comes from the ops' own (a layer
// writes no backward code): linear, tanh, broadcasting add, masked_softmax and bmm.
#include "layers/attention_scoring_functions.h"

#include <cmath>

#include "core/shape.h"  // check

namespace d2l {

AdditiveAttention::AdditiveAttention(int64_t key_size, int64_t query_size, int64_t num_hiddens, float dropout)
    : W_k(add_module<Linear>("W_k", key_size, num_hiddens, false)),
      W_q(add_module<Linear>("W_q", query_size, num_hiddens, false)),
      w_v(add_module<Linear>("w_v", num_hiddens, 1, false)),
      dropout(add_module<Dropout>("dropout", dropout)) {}

Tensor AdditiveAttention::score(const Tensor& queries, const Tensor& keys) {
  check(queries.size(2) == W_q.in_features && keys.size(2) == W_k.in_features, "AdditiveAttention",
        "expected queries (..., query_size = ", W_q.in_features, ") and keys (..., key_size = ", W_k.in_features,
        "), got queries ", queries.shape(), ", keys ", keys.shape());
  // q: (batch_size, no. of queries, num_hiddens); k: (batch_size, no. of kv pairs, num_hiddens)
  const Tensor q = W_q(queries), k = W_k(keys);
  // q (batch_size, no. of queries, 1, num_hiddens) + k (batch_size, 1, no. of kv pairs,
  // num_hiddens) broadcasts to every (query, key) pair:
  // features (batch_size, no. of queries, no. of kv pairs, num_hiddens)
  const Tensor features = tanh(unsqueeze(q, 2) + unsqueeze(k, 1));
  // w_v has one output; drop it. scores: (batch_size, no. of queries, no. of kv pairs)
  return squeeze(w_v(features), -1);
}

DotProductAttention::DotProductAttention(float dropout) : dropout(add_module<Dropout>("dropout", dropout)) {}

Tensor DotProductAttention::score(const Tensor& queries, const Tensor& keys) {
  check(queries.size(2) == keys.size(2), "DotProductAttention",
        "queries and keys must have the same length d: queries ", queries.shape(), ", keys ", keys.shape());
  const int64_t d = queries.size(-1);
  // Q Kᵀ with Kᵀ read in place (bmm's trans_b; the book: keys.transpose(1, 2)).
  return bmm(queries, keys, false, true) / std::sqrt(static_cast<float>(d));
}

}  // namespace d2l
