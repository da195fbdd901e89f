// layers/exercises/bahdanau_attention.cpp — 10.4 exercises 1 and 2: VariantSeq2SeqEncoder and
// VariantAttentionDecoder, the book's encoder and decoder with a choice of cell and scoring.
#include "layers/exercises/bahdanau_attention.h"

#include <memory>

#include "core/ops.h"
#include "layers/exercises/attention_scoring_functions.h"

namespace d2l {

VariantSeq2SeqEncoder::VariantSeq2SeqEncoder(RecurrentCell cell, int64_t vocab_size, int64_t embed_size,
                                             int64_t num_hiddens, int64_t num_layers, float dropout)
    : embedding(add_module<Embedding>("embedding", vocab_size, embed_size)) {
  if (cell == RecurrentCell::gru)
    gru = &add_module<GRU>("rnn", embed_size, num_hiddens, num_layers, dropout);
  else
    lstm = &add_module<LSTM>("rnn", embed_size, num_hiddens, num_layers, dropout);
}

EncoderOutputs VariantSeq2SeqEncoder::forward(const Tensor& X, const Tensor& /*valid_lens*/) {
  // X (batch_size, num_steps, embed_size) -> time-major, as Seq2SeqEncoder
  const Tensor emb = permute(embedding(X), {1, 0, 2});
  if (gru) {
    auto [output, state] = (*gru)(emb);
    return {output, state};
  }
  auto [output, state] = (*lstm)(emb);
  return {output, state.h, state.c};
}

VariantAttentionDecoder::VariantAttentionDecoder(RecurrentCell cell_, AttentionScoring scoring, int64_t vocab_size,
                                                 int64_t embed_size, int64_t num_hiddens_, int64_t num_layers_,
                                                 float dropout)
    : cell(cell_), num_hiddens(num_hiddens_), num_layers(num_layers_) {
  // Built (their weights drawn) embedding, dense, attention, rnn; registered in
  // Seq2SeqAttentionDecoder's order: attention, embedding, rnn, dense.
  auto embedding_built = std::make_unique<Embedding>(vocab_size, embed_size);
  auto dense_built = std::make_unique<Linear>(num_hiddens, vocab_size);
  if (scoring == AttentionScoring::additive)
    attention = &add_module<AdditiveAttention>("attention", num_hiddens, num_hiddens, num_hiddens, dropout);
  else if (scoring == AttentionScoring::bilinear)
    attention = &add_module<BilinearAttention>("attention", num_hiddens, num_hiddens, dropout);
  else
    attention = &add_module<DotProductAttention>("attention", dropout);
  embedding = &add_module("embedding", std::move(embedding_built));
  if (cell == RecurrentCell::gru)
    gru = &add_module<GRU>("rnn", embed_size + num_hiddens, num_hiddens, num_layers, dropout);
  else
    lstm = &add_module<LSTM>("rnn", embed_size + num_hiddens, num_hiddens, num_layers, dropout);
  dense = &add_module("dense", std::move(dense_built));
}

DecoderState VariantAttentionDecoder::init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) {
  const size_t want = cell == RecurrentCell::gru ? 2 : 3;
  check(enc_outputs.size() == want, "VariantAttentionDecoder", "init_state expects the encoder's ",
        want == 2 ? "{output, state}" : "{output, h_n, c_n}", ", got ", enc_outputs.size(), " tensors");
  const Shape state_shape{num_layers, enc_outputs[0].size(1), num_hiddens};
  for (size_t i = 1; i < want; ++i)
    check(enc_outputs[i].shape() == state_shape, "VariantAttentionDecoder", "encoder state ", enc_outputs[i].shape(),
          " must be (num_layers, batch_size, num_hiddens) = ", state_shape);
  DecoderState state{permute(enc_outputs[0], {1, 0, 2}), enc_outputs[1], enc_valid_lens};
  if (cell == RecurrentCell::lstm) state.push_back(enc_outputs[2]);  // the memory cell, last
  return state;
}

std::pair<Tensor, DecoderState> VariantAttentionDecoder::forward(const Tensor& X, const DecoderState& state) {
  const size_t want = cell == RecurrentCell::gru ? 3 : 4;
  check(state.size() == want, "VariantAttentionDecoder", "state must have ", want, " tensors, got ", state.size());
  const Tensor& enc_outputs = state[0];
  Tensor hidden_state = state[1];
  const Tensor& enc_valid_lens = state[2];
  Tensor memory = cell == RecurrentCell::lstm ? state[3] : Tensor();
  check(X.defined() && X.ndim() == 2, "VariantAttentionDecoder", "X must be (batch_size, num_steps) token ids, got ",
        printable_shape(X));
  const Shape state_shape{num_layers, X.size(0), num_hiddens};
  check(hidden_state.shape() == state_shape && (!memory.defined() || memory.shape() == state_shape),
        "VariantAttentionDecoder", "hidden_state ", hidden_state.shape(),
        memory.defined() ? " and the memory cell " : "", printable_shape(memory),
        " must be (num_layers, batch_size, num_hiddens) = ", state_shape, " for X ", X.shape());
  const Tensor emb = permute((*embedding)(X), {1, 0, 2});  // (num_steps, batch_size, embed_size)
  std::vector<Tensor> outputs;
  attention_weights_.clear();
  for (int64_t t = 0; t < emb.size(0); ++t) {
    const Tensor query = unsqueeze(select(hidden_state, 0, -1), 1);  // (batch_size, 1, num_hiddens)
    const Tensor context = (*attention)(query, enc_outputs, enc_outputs, enc_valid_lens);
    const Tensor x = permute(concat({context, unsqueeze(select(emb, 0, t), 1)}, -1), {1, 0, 2});
    if (gru) {
      auto [out, next] = (*gru)(x, hidden_state);
      hidden_state = next;
      outputs.push_back(out);
    } else {
      auto [out, next] = (*lstm)(x, LSTMState{hidden_state, memory});
      hidden_state = next.h;
      memory = next.c;
      outputs.push_back(out);
    }
    attention_weights_.push_back(attention->attention_weights);
  }
  const Tensor output = (*dense)(concat(outputs, 0));  // (num_steps, batch_size, vocab_size)
  DecoderState next{enc_outputs, hidden_state, enc_valid_lens};
  if (memory.defined()) next.push_back(memory);
  return {permute(output, {1, 0, 2}), next};
}

}  // namespace d2l
