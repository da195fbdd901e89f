// layers/exercises/multihead_attention.cpp — additive heads, head masks and memory-efficient
// heads for MultiHeadAttention (10.5 ex. 2, 10.7 ex. 2 and 5).
#include "layers/exercises/multihead_attention.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/shape.h"  // check

namespace d2l {

void use_additive_scoring(MultiHeadAttention& mha) {
  if (dynamic_cast<AdditiveAttention*>(mha.attention)) return;
  // The book's pooling, registered first, holds the layer's dropout.
  const auto& book = dynamic_cast<const DotProductAttention&>(*mha.named_children().front().second);
  const int64_t head_size = mha.W_q.out_features / mha.num_heads;
  mha.attention = &mha.add_module<AdditiveAttention>("additive", head_size, head_size, head_size, book.dropout.p);
}

HeadMask::HeadMask(MultiHeadAttention& mha, std::vector<float> factors)
    : mha_(mha), heads_(mha.attention), factors_(std::move(factors)) {
  check(static_cast<int64_t>(factors_.size()) == mha.num_heads, "HeadMask", factors_.size(), " factors for ",
        mha.num_heads, " heads");
  mha_.attention = this;
}

HeadMask::~HeadMask() { mha_.attention = heads_; }

Tensor HeadMask::forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens) {
  const Tensor output = (*heads_)(queries, keys, values, valid_lens);
  attention_weights = heads_->attention_weights;  // where readers look
  // Row b * num_heads + i is head i of item b: view the rows as (batch_size, num_heads)
  // and scale by a (1, num_heads, 1, 1) tensor of the factors.
  const int64_t num_heads = mha_.num_heads;
  Tensor factors = empty({1, num_heads, 1, 1});
  std::copy(factors_.begin(), factors_.end(), factors.data());
  const Shape shape = output.shape();
  return reshape(reshape(output, {-1, num_heads, shape[1], shape[2]}) * factors, shape);
}

MemoryEfficientHeads::MemoryEfficientHeads(MultiHeadAttention& mha) : mha_(mha), heads_(mha.attention) {
  mha_.attention = this;
}

MemoryEfficientHeads::~MemoryEfficientHeads() { mha_.attention = heads_; }

Tensor MemoryEfficientHeads::forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                                     const Tensor& valid_lens) {
  const auto* dot = dynamic_cast<const DotProductAttention*>(heads_);
  check(dot && (dot->dropout.p == 0.0f || !mha_.training()), "MultiHeadAttention",
        "memory_efficient needs scaled dot-product scoring and, in training, dropout 0 (got ",
        dot ? "dropout " + std::to_string(dot->dropout.p) : std::string("another scoring"), ")");
  attention_weights = Tensor();
  return memory_efficient_attention(queries, keys, values, valid_lens);
}

}  // namespace d2l
