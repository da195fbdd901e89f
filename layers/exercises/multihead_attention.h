// layers/exercises/multihead_attention.h — the exercises that change how MultiHeadAttention's
// heads pool (10.5 多头注意力 / Multi-Head Attention and 10.7 Transformer exercises). Each
// points a MultiHeadAttention's `attention` at another pooling; the book's class is untouched.
#pragma once
#include <cstdint>
#include <vector>

#include "layers/attention_scoring_functions.h"
#include "layers/multihead_attention.h"

namespace d2l {

// 10.7 ex. 2: score every head with additive attention in place of scaled dot product: one
// AdditiveAttention, shared by the heads, of num_hiddens / num_heads hidden units over each
// head's projected query and key, with the layer's dropout. Registered as "additive" (its
// weights join the parameters; the book's "attention" stays, parameter-free and unused).
// Call before training; a second call changes nothing.
void use_additive_scoring(MultiHeadAttention& mha);

// 10.5 ex. 2 (head importance): while a HeadMask lives, head i's output is multiplied by
// factors[i] before the heads are concatenated and projected by W_o; 0 removes the head, as
// Michel et al. (2019) mask heads to measure what each adds. One factor per head.
class HeadMask : public Layer<HeadMask, AttentionPooling> {
 public:
  static constexpr const char* section = "10.5 HeadMask";
  HeadMask(MultiHeadAttention& mha, std::vector<float> factors);
  ~HeadMask() override;  // the heads pool as before
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens) override;

 private:
  MultiHeadAttention& mha_;
  AttentionPooling* heads_;  // the pooling being masked
  std::vector<float> factors_;
};

// 10.7 ex. 5: while it lives, the heads run through memory_efficient_attention (core/ops.h):
// the same result as the book's scaled dot-product heads without the (batch_size *
// num_heads, no. of queries, no. of kv pairs) weights in memory, so attention_weights is
// left undefined. It has no dropout on the weights: a layer with dropout > 0 runs it in eval
// mode only.
class MemoryEfficientHeads : public Layer<MemoryEfficientHeads, AttentionPooling> {
 public:
  static constexpr const char* section = "10.7 MemoryEfficientHeads";
  explicit MemoryEfficientHeads(MultiHeadAttention& mha);
  ~MemoryEfficientHeads() override;
  Tensor forward(const Tensor& queries, const Tensor& keys, const Tensor& values, const Tensor& valid_lens) override;

 private:
  MultiHeadAttention& mha_;
  AttentionPooling* heads_;  // the pooling it stands in for
};

}  // namespace d2l
