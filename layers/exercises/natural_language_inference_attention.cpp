// layers/exercises/natural_language_inference_attention.cpp — 15.5 exercise 3:
// DecomposableSimilarity; the pad-masked model of --mask-pad.
#include "layers/exercises/natural_language_inference_attention.h"

#include "core/ops.h"
#include "core/shape.h"  // check

namespace d2l {

DecomposableSimilarity::DecomposableSimilarity(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens)
    : net(add_module<DecomposableAttention>("net", vocab_size, embed_size, num_hiddens, embed_size, 2 * embed_size,
                                            2 * num_hiddens, 1)) {}

Tensor DecomposableSimilarity::forward(const Tensor& premises, const Tensor& hypotheses) {
  return sigmoid(reshape(net(premises, hypotheses), {-1}));  // (batch_size, 1) -> (batch_size,) in (0, 1)
}


PadMaskedDecomposableAttention::PadMaskedDecomposableAttention(int64_t vocab_size, int64_t embed_size,
                                                               int64_t num_hiddens, int64_t num_inputs_attend,
                                                               int64_t num_inputs_compare, int64_t num_inputs_agg,
                                                               int64_t pad_idx_)
    : DecomposableAttention(vocab_size, embed_size, num_hiddens, num_inputs_attend, num_inputs_compare, num_inputs_agg),
      pad_idx(pad_idx_) {
  check(pad_idx >= 0 && pad_idx < vocab_size, "DecomposableAttention",
        "mask_pad needs pad_idx = vocab['<pad>'] in [0, vocab_size = ", vocab_size, "), got ", pad_idx);
}

Tensor PadMaskedDecomposableAttention::forward(const Tensor& premises, const Tensor& hypotheses) {
  check_inputs(premises, hypotheses);
  const Tensor A = embedding(premises), B = embedding(hypotheses);
  const Tensor len_A = valid_lengths(premises, pad_idx), len_B = valid_lengths(hypotheses, pad_idx);
  const Attend::Output ba = attend(A, B, len_A, len_B);
  const Compare::Output v = compare(A, B, ba.beta, ba.alpha);
  return aggregate(v.V_A, v.V_B, len_A, len_B);  // Y_hat: (batch_size, 3)
}

std::unique_ptr<DecomposableAttention> make_decomposable_attention(int64_t vocab_size, int64_t embed_size,
                                                                   int64_t num_hiddens, int64_t num_inputs_attend,
                                                                   int64_t num_inputs_compare, int64_t num_inputs_agg,
                                                                   bool mask_pad, int64_t pad_idx) {
  if (mask_pad)
    return std::make_unique<PadMaskedDecomposableAttention>(vocab_size, embed_size, num_hiddens, num_inputs_attend,
                                                            num_inputs_compare, num_inputs_agg, pad_idx);
  return std::make_unique<DecomposableAttention>(vocab_size, embed_size, num_hiddens, num_inputs_attend,
                                                 num_inputs_compare, num_inputs_agg);
}

Tensor valid_lengths(const Tensor& tokens, int64_t pad_idx) {
  check(tokens.defined() && tokens.ndim() == 2, "valid_lengths", "tokens must be (batch_size, num_steps), got ",
        printable_shape(tokens));
  const int64_t N = tokens.size(0), T = tokens.size(1);
  Tensor lens = zeros({N});
  for (int64_t b = 0; b < N; ++b)
    for (int64_t t = 0; t < T; ++t) lens.data()[b] += tokens.data()[b * T + t] != static_cast<float>(pad_idx);
  return lens;
}

}  // namespace d2l
