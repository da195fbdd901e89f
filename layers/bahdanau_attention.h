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
#include <memory>
#include <utility>
#include <vector>

#include "layers/attention_scoring_functions.h"
#include "core/nn/basic.h"
#include "layers/encoder_decoder.h"
#include "layers/gru.h"
#include "layers/lstm.h"
#include "layers/seq2seq.h"

namespace d2l {

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
class Seq2SeqAttentionDecoder : public AttentionDecoder {
 public:
  Seq2SeqAttentionDecoder(int64_t vocab_size, int64_t embed_size, int64_t num_hiddens, int64_t num_layers,
                          float dropout = 0.0f);
  DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) override;
  std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) override;
  using Decoder::operator();
  // One (batch_size, 1, no. of kv pairs) tensor per decoding step of the last forward.
  const std::vector<Tensor>& attention_weights() const override { return attention_weights_; }

  AdditiveAttention attention;
  Embedding embedding;
  GRU rnn;
  Linear dense;

 private:
  std::vector<Tensor> attention_weights_;
};

// --- The section's exercises: the recurrent cell and the scoring function as settings ---
// Exercise 1 trains the model with an LSTM in place of the GRU, exercise 2 with scaled
// dot-product scoring in place of additive (or 10.3 ex. 2's bilinear qᵀ W k). The book's
// classes above stay as they are; the two below build the same model with any choice, so a
// setting of {gru, additive} computes exactly what Seq2SeqEncoder and
// Seq2SeqAttentionDecoder compute.
enum class RecurrentCell { gru, lstm };
enum class AttentionScoring { additive, scaled_dot_product, bilinear };

// An embedding and a multi-layer GRU or LSTM started from zeros (Seq2SeqEncoder's shapes).
//   X (batch_size, num_steps) ids -> GRU: {output, state}; LSTM: {output, h_n, c_n};
//   output (num_steps, batch_size, num_hiddens), each state (num_layers, batch_size, num_hiddens).
class VariantSeq2SeqEncoder : public Encoder {
 public:
  VariantSeq2SeqEncoder(RecurrentCell cell, int64_t vocab_size, int64_t embed_size, int64_t num_hiddens,
                        int64_t num_layers, float dropout = 0.0f);
  EncoderOutputs forward(const Tensor& X, const Tensor& valid_lens) override;
  using Encoder::operator();

  Embedding embedding;
  std::unique_ptr<GRU> gru;    // registered as "rnn" when the cell is the GRU
  std::unique_ptr<LSTM> lstm;  // registered as "rnn" when the cell is the LSTM
};

// Seq2SeqAttentionDecoder with a choice of cell and scoring. The state is the book's
// {enc_outputs, hidden_state, enc_valid_lens}, with the LSTM's memory cell appended as a
// fourth tensor. The query is the last layer's h either way. Scaled dot-product scoring
// has no parameters: it needs the query (the decoder's h) and keys (the encoder's outputs)
// to have one length, num_hiddens, which they do here.
class VariantAttentionDecoder : public AttentionDecoder {
 public:
  VariantAttentionDecoder(RecurrentCell cell, AttentionScoring scoring, int64_t vocab_size, int64_t embed_size,
                          int64_t num_hiddens, int64_t num_layers, float dropout = 0.0f);
  DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) override;
  std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) override;
  using Decoder::operator();
  const std::vector<Tensor>& attention_weights() const override { return attention_weights_; }

  const RecurrentCell cell;
  const int64_t num_hiddens, num_layers;
  std::unique_ptr<AdditiveAttention> additive;  // registered as "attention", one of the three
  std::unique_ptr<DotProductAttention> dot;
  std::unique_ptr<BilinearAttention> bilinear;
  Embedding embedding;
  std::unique_ptr<GRU> gru;  // registered as "rnn", one of the two
  std::unique_ptr<LSTM> lstm;
  Linear dense;

 private:
  std::vector<Tensor> attention_weights_;
};

}  // namespace d2l
