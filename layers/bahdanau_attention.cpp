// layers/bahdanau_attention.cpp — 10.4 Bahdanau 注意力 / Bahdanau Attention
// (sec_seq2seq_attention): Seq2SeqAttentionDecoder.
#include "layers/bahdanau_attention.h"

#include "core/debug/debug.h"
#include "core/ops.h"

namespace d2l {

Seq2SeqAttentionDecoder::Seq2SeqAttentionDecoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens,
                                                 int64_t num_layers, float dropout)
    : attention(num_hiddens, num_hiddens, num_hiddens, dropout),
      embedding(vocab_size, embed_size),
      rnn(embed_size + num_hiddens, num_hiddens, num_layers, dropout),
      dense(num_hiddens, vocab_size) {
  register_module("attention", attention);
  register_module("embedding", embedding);
  register_module("rnn", rnn);
  register_module("dense", dense);
}

DecoderState Seq2SeqAttentionDecoder::init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) {
  check(enc_outputs.size() == 2, "Seq2SeqAttentionDecoder", "init_state expects the encoder's {output, state}, got ",
        enc_outputs.size(), " tensors");
  const Tensor& outputs = enc_outputs[0];
  const Tensor& hidden_state = enc_outputs[1];
  check(outputs.ndim() == 3 && hidden_state.ndim() == 3 && outputs.size(2) == rnn.num_hiddens &&
            hidden_state.size(0) == rnn.num_layers && hidden_state.size(1) == outputs.size(1),
        "Seq2SeqAttentionDecoder", "encoder output (num_steps, batch_size, num_hiddens = ", rnn.num_hiddens,
        ") and state (num_layers = ", rnn.num_layers, ", batch_size, num_hiddens) expected, got output ",
        outputs.shape(), ", state ", hidden_state.shape());
  // outputs (num_steps, batch_size, num_hiddens) -> keys and values (batch_size, num_steps, num_hiddens)
  return {permute(outputs, {1, 0, 2}), hidden_state, enc_valid_lens};
}

std::pair<Tensor, DecoderState> Seq2SeqAttentionDecoder::forward(const Tensor& X, const DecoderState& state) {
  SectionScope section("10.4 Seq2SeqAttentionDecoder");
  check(state.size() == 3, "Seq2SeqAttentionDecoder", "state must be {enc_outputs, hidden_state, enc_valid_lens}, got ",
        state.size(), " tensors");
  // enc_outputs (batch_size, num_steps, num_hiddens); hidden_state (num_layers, batch_size, num_hiddens)
  const Tensor& enc_outputs = state[0];
  Tensor hidden_state = state[1];
  const Tensor& enc_valid_lens = state[2];
  check(X.defined() && X.ndim() == 2, "Seq2SeqAttentionDecoder", "X must be (batch_size, num_steps) token ids, got ",
        printable_shape(X));
  check(hidden_state.shape() == Shape{rnn.num_layers, X.size(0), rnn.num_hiddens}, "Seq2SeqAttentionDecoder",
        "hidden_state ", hidden_state.shape(), " must be (num_layers, batch_size, num_hiddens) for X ", X.shape());
  // emb: (num_steps, batch_size, embed_size)
  const Tensor emb = permute(embedding(X), {1, 0, 2});
  std::vector<Tensor> outputs;
  attention_weights_.clear();
  for (int64_t t = 0; t < emb.size(0); ++t) {  // the book's `for x in X`
    const Tensor x_t = select(emb, 0, t);      // (batch_size, embed_size)
    // query: (batch_size, 1, num_hiddens), the last layer's previous hidden state
    const Tensor query = unsqueeze(select(hidden_state, 0, -1), 1);
    // context: (batch_size, 1, num_hiddens)
    const Tensor context = attention(query, enc_outputs, enc_outputs, enc_valid_lens);
    // Joined on the feature dim: (batch_size, 1, num_hiddens + embed_size)
    const Tensor x = concat({context, unsqueeze(x_t, 1)}, -1);
    // The GRU reads x as (1, batch_size, num_hiddens + embed_size)
    auto [out, next] = rnn(permute(x, {1, 0, 2}), hidden_state);
    hidden_state = next;
    outputs.push_back(out);  // (1, batch_size, num_hiddens)
    attention_weights_.push_back(attention.attention_weights);
  }
  // After the dense layer, outputs: (num_steps, batch_size, vocab_size)
  const Tensor output = dense(concat(outputs, 0));
  // output: (batch_size, num_steps, vocab_size)
  return {permute(output, {1, 0, 2}), {enc_outputs, hidden_state, enc_valid_lens}};
}

// --- The exercises' variants ---------------------------------------------------------------

VariantSeq2SeqEncoder::VariantSeq2SeqEncoder(RecurrentCell cell, int64_t vocab_size, int64_t embed_size,
                                             int64_t num_hiddens, int64_t num_layers, float dropout)
    : embedding(vocab_size, embed_size) {
  register_module("embedding", embedding);
  if (cell == RecurrentCell::gru) {
    gru = std::make_unique<GRU>(embed_size, num_hiddens, num_layers, dropout);
    register_module("rnn", *gru);
  } else {
    lstm = std::make_unique<LSTM>(embed_size, num_hiddens, num_layers, dropout);
    register_module("rnn", *lstm);
  }
}

EncoderOutputs VariantSeq2SeqEncoder::forward(const Tensor& X, const Tensor& /*valid_lens*/) {
  SectionScope section("10.4 VariantSeq2SeqEncoder");
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
    : cell(cell_), num_hiddens(num_hiddens_), num_layers(num_layers_), embedding(vocab_size, embed_size),
      dense(num_hiddens_, vocab_size) {
  // Registered in Seq2SeqAttentionDecoder's order: attention, embedding, rnn, dense.
  if (scoring == AttentionScoring::additive) {
    additive = std::make_unique<AdditiveAttention>(num_hiddens, num_hiddens, num_hiddens, dropout);
    register_module("attention", *additive);
  } else if (scoring == AttentionScoring::bilinear) {
    bilinear = std::make_unique<BilinearAttention>(num_hiddens, num_hiddens, dropout);
    register_module("attention", *bilinear);
  } else {
    dot = std::make_unique<DotProductAttention>(dropout);
    register_module("attention", *dot);
  }
  register_module("embedding", embedding);
  if (cell == RecurrentCell::gru) {
    gru = std::make_unique<GRU>(embed_size + num_hiddens, num_hiddens, num_layers, dropout);
    register_module("rnn", *gru);
  } else {
    lstm = std::make_unique<LSTM>(embed_size + num_hiddens, num_hiddens, num_layers, dropout);
    register_module("rnn", *lstm);
  }
  register_module("dense", dense);
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
  SectionScope section("10.4 VariantAttentionDecoder");
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
  const Tensor emb = permute(embedding(X), {1, 0, 2});  // (num_steps, batch_size, embed_size)
  std::vector<Tensor> outputs;
  attention_weights_.clear();
  for (int64_t t = 0; t < emb.size(0); ++t) {
    const Tensor query = unsqueeze(select(hidden_state, 0, -1), 1);  // (batch_size, 1, num_hiddens)
    const Tensor context = additive   ? (*additive)(query, enc_outputs, enc_outputs, enc_valid_lens)
                           : bilinear ? (*bilinear)(query, enc_outputs, enc_outputs, enc_valid_lens)
                                      : (*dot)(query, enc_outputs, enc_outputs, enc_valid_lens);
    const Tensor x = permute(concat({context, unsqueeze(select(emb, 0, t), 1)}, -1), {1, 0, 2});
    if (gru) {
      auto [out, next] = (*gru)(x, hidden_state);
      hidden_state = next;
      outputs.push_back(out);
    } else {
      auto [out, next] = (*lstm)(x, {hidden_state, memory});
      hidden_state = next.h;
      memory = next.c;
      outputs.push_back(out);
    }
    attention_weights_.push_back(additive   ? additive->attention_weights
                                 : bilinear ? bilinear->attention_weights
                                            : dot->attention_weights);
  }
  const Tensor output = dense(concat(outputs, 0));  // (num_steps, batch_size, vocab_size)
  DecoderState next{enc_outputs, hidden_state, enc_valid_lens};
  if (memory.defined()) next.push_back(memory);
  return {permute(output, {1, 0, 2}), next};
}

}  // namespace d2l
