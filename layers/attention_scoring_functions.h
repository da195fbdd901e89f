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

#include "core/nn/module.h"
#include "core/tensor.h"
#include "core/nn/basic.h"

namespace d2l {

// Checks the arguments every attention layer takes, naming `layer` and all the shapes:
// queries (batch_size, no. of queries, ·), keys and values (batch_size, no. of kv pairs, ·),
// valid_lens undefined, (batch_size,) or (batch_size, no. of queries). masked_softmax then
// checks that each length is a whole number >= 0.
void check_attention_args(const char* layer, const Tensor& queries, const Tensor& keys, const Tensor& values,
                          const Tensor& valid_lens);

// Additive attention, a(q, k) = w_vᵀ tanh(W_q q + W_k k) (eq_additive-attn): an MLP with
// one hidden layer of num_hiddens units, tanh, and no biases, as the book builds it.
//   queries (batch_size, no. of queries, query_size)
//   keys    (batch_size, no. of kv pairs, key_size)
//   values  (batch_size, no. of kv pairs, value_size)
//   valid_lens undefined, (batch_size,) or (batch_size, no. of queries)
//   -> (batch_size, no. of queries, value_size)
// Dropout acts on the attention weights (so, in training, on which values are averaged).
class AdditiveAttention : public Module {
 public:
  AdditiveAttention(int64_t key_size, int64_t query_size, int64_t num_hiddens, float dropout);
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens = Tensor());
  Tensor operator()(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const Tensor& valid_lens = Tensor()) {
    return forward(queries, keys, values, valid_lens);
  }

  Linear W_k, W_q, w_v;  // (num_hiddens, key_size), (num_hiddens, query_size), (1, num_hiddens)
  Dropout dropout;
  Tensor attention_weights;  // the last forward's: (batch_size, no. of queries, no. of kv pairs)
};

// Scaled dot-product attention, softmax(Q Kᵀ / √d) V (eq_softmax_QK_V). Dividing by √d keeps
// the scores' variance at 1 when q and k have independent unit-variance entries, so the
// softmax does not saturate as d grows.
//   queries (batch_size, no. of queries, d); keys (batch_size, no. of kv pairs, d)
//   values  (batch_size, no. of kv pairs, value_size)
//   valid_lens undefined, (batch_size,) or (batch_size, no. of queries)
//   -> (batch_size, no. of queries, value_size)
class DotProductAttention : public Module {
 public:
  explicit DotProductAttention(float dropout);
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens = Tensor());
  Tensor operator()(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const Tensor& valid_lens = Tensor()) {
    return forward(queries, keys, values, valid_lens);
  }

  Dropout dropout;
  Tensor attention_weights;  // (batch_size, no. of queries, no. of kv pairs)
};

// Bilinear attention, a(q, k) = qᵀ W k, the section's exercise 2: a scoring function for
// queries and keys of different lengths built from matrix products alone (Luong et al.'s
// "general" score). W (query_size, key_size) is a Linear from key_size to query_size
// without bias, so W k is W_k(keys) and the scores are one bmm, Q (W K)ᵀ. Unlike additive
// attention there is no tanh and no hidden layer; unlike scaled dot product the lengths
// may differ (with W = I and equal lengths it is the unscaled dot product).
//   queries (batch_size, no. of queries, query_size)
//   keys    (batch_size, no. of kv pairs, key_size)
//   values  (batch_size, no. of kv pairs, value_size)
//   valid_lens undefined, (batch_size,) or (batch_size, no. of queries)
//   -> (batch_size, no. of queries, value_size)
class BilinearAttention : public Module {
 public:
  BilinearAttention(int64_t key_size, int64_t query_size, float dropout);
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens = Tensor());
  Tensor operator()(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const Tensor& valid_lens = Tensor()) {
    return forward(queries, keys, values, valid_lens);
  }

  Linear W;  // weight (query_size, key_size): the W of qᵀ W k
  Dropout dropout;
  Tensor attention_weights;  // (batch_size, no. of queries, no. of kv pairs)
};

}  // namespace d2l
