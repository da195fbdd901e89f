// layers/exercises/attention_scoring_functions.cpp — 10.3 exercise 2: BilinearAttention's score.
#include "layers/exercises/attention_scoring_functions.h"

#include "core/shape.h"  // check

namespace d2l {

BilinearAttention::BilinearAttention(int64_t key_size, int64_t query_size, float dropout)
    : W(add_module<Linear>("W", key_size, query_size, false)), dropout(add_module<Dropout>("dropout", dropout)) {}

Tensor BilinearAttention::score(const Tensor& queries, const Tensor& keys) {
  check(queries.size(2) == W.out_features && keys.size(2) == W.in_features, "BilinearAttention",
        "expected queries (..., query_size = ", W.out_features, ") and keys (..., key_size = ", W.in_features,
        "), got queries ", queries.shape(), ", keys ", keys.shape());
  // W k for every key: (batch_size, no. of kv pairs, query_size); then qᵀ (W k) for every
  // pair, one bmm with (W K)ᵀ read in place: (batch_size, no. of queries, no. of kv pairs)
  return bmm(queries, W(keys), false, true);
}

}  // namespace d2l
