// layers/bahdanau_attention.cpp — 10.4 Bahdanau 注意力 / Bahdanau Attention
// (sec_seq2seq_attention): Seq2SeqAttentionDecoder.
#include "layers/bahdanau_attention.h"

#include "core/ops.h"

namespace d2l {

Seq2SeqAttentionDecoder::Seq2SeqAttentionDecoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens,
                                                 int64_t num_layers, float dropout)
    : attention(add_module<AdditiveAttention>("attention", num_hiddens, num_hiddens, num_hiddens, dropout)),
      embedding(add_module<Embedding>("embedding", vocab_size, embed_size)),
      rnn(add_module<GRU>("rnn", embed_size + num_hiddens, num_hiddens, num_layers, dropout)),
      dense(add_module<Linear>("dense", num_hiddens, vocab_size)) {}

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

}  // namespace d2l
