// layers/exercises/natural_language_inference_attention.h — 15.5 自然语言推断：使用注意力 /
// Natural Language Inference: Using Attention (sec_natural-language-inference-attention),
// the program's --mask-pad and exercise 3, a graded similarity instead of three classes.
#pragma once
#include <cstdint>
#include <memory>

#include "layers/natural_language_inference_attention.h"

namespace d2l {

// The section's exercise 3: a graded similarity in [0, 1] instead of three classes. The
// same attend, compare and aggregate steps (a DecomposableAttention with one output),
// then a sigmoid:
//   premises (batch_size, m), hypotheses (batch_size, n) token indices -> (batch_size,)
// Trained as a regression (squared error) on a target in [0, 1].
class DecomposableSimilarity : public Layer<DecomposableSimilarity> {
 public:
  static constexpr const char* section = "15.5 DecomposableSimilarity";
  DecomposableSimilarity(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens);
  Tensor forward(const Tensor& premises, const Tensor& hypotheses);

  DecomposableAttention& net;  // num_outputs = 1
};

// <pad>: the book feeds sentences padded to num_steps = 50 and masks nothing, so every pad
// token takes part in the softmax over the other sentence and in the sums over positions
// (all pads share one embedding, so they act as a learned "sentence-length" feature). That is
// the default here, to reproduce the book. PadMaskedDecomposableAttention instead gives pads zero attention
// weight (masked_softmax over the true lengths, as 10.3 does for the decoder's keys) and
// leaves them out of the sums, so the output no longer depends on how much padding there is.
// The true lengths are the counts of tokens other than pad_idx = vocab['<pad>'] (truncate_pad
// puts every pad at the end, so that count is where the padding starts).
class PadMaskedDecomposableAttention : public DecomposableAttention {
 public:
  PadMaskedDecomposableAttention(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens,
                                 int64_t num_inputs_attend, int64_t num_inputs_compare, int64_t num_inputs_agg,
                                 int64_t pad_idx);
  Tensor forward(const Tensor& premises, const Tensor& hypotheses) override;

  int64_t pad_idx;
};

// The book's model, or with mask_pad the pad-masked one (pad_idx is then required).
std::unique_ptr<DecomposableAttention> make_decomposable_attention(int64_t vocab_size, int64_t embed_size,
                                                                   int64_t num_hiddens, int64_t num_inputs_attend,
                                                                   int64_t num_inputs_compare, int64_t num_inputs_agg,
                                                                   bool mask_pad, int64_t pad_idx);

// (batch_size, num_steps) token indices -> (batch_size,) counts of tokens != pad_idx.
Tensor valid_lengths(const Tensor& tokens, int64_t pad_idx);

}  // namespace d2l
