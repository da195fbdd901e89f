// layers/attention_pooling.h — what every attention layer of the chapter shares: the pooling
// interface a layer holds when the pooling may vary (MultiHeadAttention's heads, the 10.4
// exercises' decoder), and the checks of the arguments they all take.
#pragma once
#include <cstdint>

#include "core/debug/debug.h"
#include "core/nn/module.h"
#include "core/tensor.h"

namespace d2l {

// Checks the arguments every attention layer takes, naming `layer` and all the shapes:
// queries (batch_size, no. of queries, ·), keys and values (batch_size, no. of kv pairs, ·),
// valid_lens undefined, (batch_size,) or (batch_size, no. of queries). masked_softmax then
// checks that each length is a whole number >= 0.
// query_size, key_size, value_size: the feature sizes the layer expects, or -1 for any.
void check_attention_args(const char* layer, const Tensor& queries, const Tensor& keys, const Tensor& values,
                          const Tensor& valid_lens, int64_t query_size = -1, int64_t key_size = -1,
                          int64_t value_size = -1);

// What every attention pooling here takes and returns, whatever its scoring:
//   queries (batch_size, no. of queries, ·), keys (batch_size, no. of kv pairs, ·)
//   values  (batch_size, no. of kv pairs, value_size)
//   valid_lens undefined, (batch_size,) or (batch_size, no. of queries)
//   -> (batch_size, no. of queries, value_size)
// A layer holding "some pooling" (MultiHeadAttention's heads) holds one of these.
class AttentionPooling : public Module {
 public:
  virtual Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens) = 0;
  Tensor operator()(const Tensor& queries, const Tensor& keys, const Tensor& values,
                    const Tensor& valid_lens = Tensor()) {
    SectionScope scope(section_name());
    return forward(queries, keys, values, valid_lens);
  }
  virtual const char* section_name() const = 0;  // Layer<L, AttentionPooling> supplies it

  Tensor attention_weights;  // the last forward's: (batch_size, no. of queries, no. of kv pairs)
};

}  // namespace d2l
