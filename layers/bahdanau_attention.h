// layers/bahdanau_attention.h — 10.4 Bahdanau 注意力 / Bahdanau Attention
// (sec_seq2seq_attention): the seq2seq decoder whose context is attention pooling.
//
// Instead of one context c for every step (Seq2SeqDecoder), step t' uses
//   c_t' = Σ_t α(s_{t'-1}, h_t) h_t
// with the decoder's previous last-layer hidden state s_{t'-1} as the query and the
// encoder's last-layer outputs h_t as keys and values, α being additive attention
// (eq_additive-attn) masked to the source's valid length.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/nn/basic.h"
#include "layers/attention_scoring_functions.h"
#include "layers/encoder_decoder.h"
#include "layers/gru.h"
#include "layers/seq2seq.h"  // the section trains Seq2SeqEncoder with this decoder

namespace d2l {

// The book's AttentionDecoder: a decoder whose attention weights a chapter can draw.
// attention_weights(): the book's property — for Seq2SeqAttentionDecoder one tensor
// (batch_size, 1, no. of kv pairs) per decoding step of the last forward. 10.7's
// TransformerDecoder is one too.
class AttentionDecoder : public Decoder {
 public:
  virtual const std::vector<Tensor>& attention_weights() const = 0;
};

// Seq2SeqAttentionDecoder(vocab_size, embed_size, num_hiddens, num_layers, dropout).
//   init_state({enc output (num_steps, batch_size, num_hiddens), enc state (num_layers,
//   batch_size, num_hiddens)}, enc_valid_lens (batch_size,) or undefined)
//     -> {enc_outputs (batch_size, num_steps, num_hiddens), hidden_state (num_layers,
//         batch_size, num_hiddens), enc_valid_lens}
//   forward(X (batch_size, num_steps) ids, state) -> output (batch_size, num_steps,
//     vocab_size) and the state with hidden_state advanced.
// The GRU input at each step is concat(context, embedding), in that order, so the GRU
// takes embed_size + num_hiddens features. The decoder starts from the encoder's final
// state (the encoder and decoder must have the same num_layers and num_hiddens).
class Seq2SeqAttentionDecoder : public Layer<Seq2SeqAttentionDecoder, AttentionDecoder> {
 public:
  static constexpr const char* section = "10.4 Seq2SeqAttentionDecoder";
  Seq2SeqAttentionDecoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_layers,
                          float dropout = 0.0f);
  DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) override;
  std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) override;
  // One (batch_size, 1, no. of kv pairs) tensor per decoding step of the last forward.
  const std::vector<Tensor>& attention_weights() const override { return attention_weights_; }

  AdditiveAttention& attention;
  Embedding& embedding;
  GRU& rnn;
  Linear& dense;

 private:
  std::vector<Tensor> attention_weights_;
};

}  // namespace d2l
