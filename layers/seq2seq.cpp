// layers/seq2seq.cpp — 9.7 序列到序列学习（seq2seq） / Sequence to Sequence Learning
// (sec_seq2seq): Seq2SeqEncoder, Seq2SeqDecoder, MaskedSoftmaxCELoss.
#include "layers/seq2seq.h"

#include "core/debug/debug.h"
#include "core/ops.h"

namespace d2l {

namespace {
void check_token_ids(const Tensor& X, const char* layer) {
  check(X.defined() && X.ndim() == 2, layer, "X must be (batch_size, num_steps) token ids, got ",
        printable_shape(X));
}
}  // namespace

// --- Seq2SeqEncoder --------------------------------------------------------------------------
Seq2SeqEncoder::Seq2SeqEncoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_layers,
                               float dropout)
    : embedding(add_module<Embedding>("embedding", vocab_size, embed_size)),
      rnn(add_module<GRU>("rnn", embed_size, num_hiddens, num_layers, dropout)) {}

EncoderOutputs Seq2SeqEncoder::forward(const Tensor& X, const Tensor&) {
  check_token_ids(X, "Seq2SeqEncoder");
  // X: (batch_size, num_steps, embed_size)
  Tensor emb = embedding(X);
  // In recurrent models the first axis is time: (num_steps, batch_size, embed_size)
  emb = permute(emb, {1, 0, 2});
  // No state given: the GRU starts from zeros.
  auto [output, state] = rnn(emb);
  // output (num_steps, batch_size, num_hiddens); state (num_layers, batch_size, num_hiddens)
  return {output, state};
}

// --- Seq2SeqDecoder --------------------------------------------------------------------------
Seq2SeqDecoder::Seq2SeqDecoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_layers,
                               float dropout)
    : embedding(add_module<Embedding>("embedding", vocab_size, embed_size)),
      rnn(add_module<GRU>("rnn", embed_size + num_hiddens, num_hiddens, num_layers, dropout)),
      dense(add_module<Linear>("dense", num_hiddens, vocab_size)) {}

DecoderState Seq2SeqDecoder::init_state(const EncoderOutputs& enc_outputs, const Tensor&) {
  check(enc_outputs.size() == 2, "Seq2SeqDecoder", "init_state expects the encoder's {output, state}, got ",
        enc_outputs.size(), " tensors");
  return {enc_outputs[1]};
}

std::pair<Tensor, DecoderState> Seq2SeqDecoder::forward(const Tensor& X, const DecoderState& state) {
  check(state.size() == 1, "Seq2SeqDecoder", "state must be {hidden state}, got ", state.size(), " tensors");
  check_token_ids(X, "Seq2SeqDecoder");
  check(state[0].ndim() == 3, "Seq2SeqDecoder", "state must be (num_layers, batch_size, num_hiddens), got ",
        state[0].shape());
  // emb: (num_steps, batch_size, embed_size)
  const Tensor emb = permute(embedding(X), {1, 0, 2});
  // Broadcast the context (the last layer, (batch_size, num_hiddens)) over the num_steps.
  const Tensor context = repeat(select(state[0], 0, -1), {emb.size(0), 1, 1});
  const Tensor X_and_context = concat({emb, context}, 2);
  auto [output, next] = rnn(X_and_context, state[0]);
  // output: (batch_size, num_steps, vocab_size); state: (num_layers, batch_size, num_hiddens)
  return {permute(dense(output), {1, 0, 2}), {next}};
}

// --- MaskedSoftmaxCELoss ---------------------------------------------------------------------
Tensor MaskedSoftmaxCELoss::forward(const Tensor& pred, const Tensor& label, const Tensor& valid_len) const {
  SectionScope section("9.7 MaskedSoftmaxCELoss");
  check(pred.defined() && label.defined() && valid_len.defined(), "MaskedSoftmaxCELoss",
        "pred, label and valid_len must be defined");
  check(pred.ndim() == 3 && label.ndim() == 2 && pred.size(0) == label.size(0) && pred.size(1) == label.size(1),
        "MaskedSoftmaxCELoss",
        "pred must be (batch_size, num_steps, vocab_size) and label (batch_size, num_steps): pred ", pred.shape(),
        ", label ", label.shape());
  check(valid_len.ndim() == 1 && valid_len.size(0) == label.size(0), "MaskedSoftmaxCELoss",
        "valid_len must be (batch_size,): valid_len ", valid_len.shape(), ", label ", label.shape());
  // weights (batch_size, num_steps): 1 on valid tokens, 0 on padding.
  const Tensor weights = sequence_mask(ones(label.shape()), valid_len);
  // nn.CrossEntropyLoss(reduction='none') on pred.permute(0, 2, 1): (batch_size, num_steps)
  const Tensor unweighted_loss = softmax_cross_entropy(pred, label);
  return mean(unweighted_loss * weights, 1);  // (batch_size,)
}

}  // namespace d2l
