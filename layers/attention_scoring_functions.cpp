// layers/attention_scoring_functions.cpp — 10.3 注意力评分函数 / Attention Scoring Functions
// (sec_attention-scoring-functions): AdditiveAttention and DotProductAttention, and the
// exercise's BilinearAttention.
//
// Both are compositions of core ops, so their backward comes from the ops' own (a layer
// writes no backward code): linear, tanh, broadcasting add, masked_softmax and bmm.
#include "layers/attention_scoring_functions.h"

#include <cmath>

#include "core/shape.h"  // check
#include "core/debug/debug.h"
#include "core/ops.h"

namespace d2l {

void check_attention_args(const char* layer, const Tensor& queries, const Tensor& keys, const Tensor& values,
                          const Tensor& valid_lens) {
  check(queries.defined() && keys.defined() && values.defined(), layer, "queries, keys and values must be defined");
  const Shape none;
  const Shape& vl = valid_lens.defined() ? valid_lens.shape() : none;
  check(queries.ndim() == 3 && keys.ndim() == 3 && values.ndim() == 3, layer,
        "queries, keys and values must be 3-D (batch_size, no. of queries or kv pairs, features), got queries ",
        queries.shape(), ", keys ", keys.shape(), ", values ", values.shape());
  const int64_t B = queries.size(0), Q = queries.size(1);
  check(keys.size(0) == B && values.size(0) == B, layer, "batch sizes differ: queries ", queries.shape(), ", keys ",
        keys.shape(), ", values ", values.shape());
  check(keys.size(1) == values.size(1), layer, "keys and values must pair up (same no. of kv pairs): keys ",
        keys.shape(), ", values ", values.shape());
  check(!valid_lens.defined() || (valid_lens.ndim() == 1 && vl[0] == B) ||
            (valid_lens.ndim() == 2 && vl[0] == B && vl[1] == Q),
        layer, "valid_lens must be (batch_size,) or (batch_size, no. of queries): valid_lens ", vl, ", queries ",
        queries.shape());
}

// --- AdditiveAttention ---------------------------------------------------------------------
AdditiveAttention::AdditiveAttention(int64_t key_size, int64_t query_size, int64_t num_hiddens, float dropout)
    : W_k(key_size, num_hiddens, false),
      W_q(query_size, num_hiddens, false),
      w_v(num_hiddens, 1, false),
      dropout(dropout) {
  register_module("W_k", W_k);
  register_module("W_q", W_q);
  register_module("w_v", w_v);
  register_module("dropout", this->dropout);
}

Tensor AdditiveAttention::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                  const Tensor& valid_lens) {
  SectionScope section("10.3 AdditiveAttention");
  check_attention_args("AdditiveAttention", queries, keys, values, valid_lens);
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
  const Tensor scores = squeeze(w_v(features), -1);
  attention_weights = masked_softmax(scores, valid_lens);
  // (batch_size, no. of queries, no. of kv pairs) x values -> (batch_size, no. of queries, value_size)
  return bmm(dropout(attention_weights), values);
}

// --- DotProductAttention -------------------------------------------------------------------
DotProductAttention::DotProductAttention(float dropout) : dropout(dropout) {
  register_module("dropout", this->dropout);
}

Tensor DotProductAttention::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                    const Tensor& valid_lens) {
  SectionScope section("10.3 DotProductAttention");
  check_attention_args("DotProductAttention", queries, keys, values, valid_lens);
  check(queries.size(2) == keys.size(2), "DotProductAttention",
        "queries and keys must have the same length d: queries ",
        queries.shape(), ", keys ", keys.shape());
  const int64_t d = queries.size(-1);
  // Q Kᵀ with Kᵀ read in place (bmm's trans_b; the book: transpose_b=True / keys.transpose(1, 2)).
  // scores: (batch_size, no. of queries, no. of kv pairs)
  const Tensor scores = bmm(queries, keys, false, true) / std::sqrt(static_cast<float>(d));
  attention_weights = masked_softmax(scores, valid_lens);
  return bmm(dropout(attention_weights), values);  // (batch_size, no. of queries, value_size)
}

// --- BilinearAttention (the section's exercise 2) --------------------------------------------
BilinearAttention::BilinearAttention(int64_t key_size, int64_t query_size, float dropout)
    : W(key_size, query_size, false), dropout(dropout) {
  register_module("W", W);
  register_module("dropout", this->dropout);
}

Tensor BilinearAttention::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                  const Tensor& valid_lens) {
  SectionScope section("10.3 BilinearAttention");
  check_attention_args("BilinearAttention", queries, keys, values, valid_lens);
  check(queries.size(2) == W.out_features && keys.size(2) == W.in_features, "BilinearAttention",
        "expected queries (..., query_size = ", W.out_features, ") and keys (..., key_size = ", W.in_features,
        "), got queries ", queries.shape(), ", keys ", keys.shape());
  // W k for every key: (batch_size, no. of kv pairs, query_size)
  const Tensor Wk = W(keys);
  // qᵀ (W k) for every pair, one bmm with (W K)ᵀ read in place:
  // scores (batch_size, no. of queries, no. of kv pairs)
  const Tensor scores = bmm(queries, Wk, false, true);
  attention_weights = masked_softmax(scores, valid_lens);
  return bmm(dropout(attention_weights), values);  // (batch_size, no. of queries, value_size)
}

}  // namespace d2l
