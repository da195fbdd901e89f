// layers/exercises/attention_scoring_functions.h — 10.3 注意力评分函数 / Attention Scoring
// Functions (sec_attention-scoring-functions), exercise 2: a scoring function of our own.
#pragma once
#include <cstdint>

#include "layers/attention_scoring_functions.h"

namespace d2l {

// Bilinear attention, a(q, k) = qᵀ W k: a scoring function for queries and keys of
// different lengths built from matrix products alone (Luong et al.'s "general" score).
// W (query_size, key_size) is a Linear from key_size to query_size without bias, so W k is
// W(keys) and the scores are one bmm, Q (W K)ᵀ. Unlike additive attention there is no tanh
// and no hidden layer; unlike scaled dot product the lengths may differ (with W = I and
// equal lengths it is the unscaled dot product). The pooling around the score is
// ScoredAttention's, as for the book's two: queries (..., query_size), keys (..., key_size).
class BilinearAttention : public ScoredAttention<BilinearAttention> {
 public:
  static constexpr const char* section = "10.3 BilinearAttention";
  BilinearAttention(int64_t key_size, int64_t query_size, float dropout);
  Tensor score(const Tensor& queries, const Tensor& keys);

  Linear& W;  // weight (query_size, key_size): the W of qᵀ W k
  Dropout& dropout;
};

}  // namespace d2l
