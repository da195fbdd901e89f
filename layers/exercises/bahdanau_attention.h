// layers/exercises/bahdanau_attention.h — 10.4 Bahdanau 注意力 / Bahdanau Attention
// (sec_seq2seq_attention), exercises 1 and 2: the recurrent cell and the scoring function
// as settings.
//
// Exercise 1 trains the model with an LSTM in place of the GRU, exercise 2 with scaled
// dot-product scoring in place of additive (or 10.3 ex. 2's bilinear qᵀ W k). The book's
// classes stay as they are; the two below build the same model with any choice, so a
// setting of {gru, additive} computes exactly what Seq2SeqEncoder and
// Seq2SeqAttentionDecoder compute.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/nn/basic.h"
#include "layers/attention_scoring_functions.h"
#include "layers/bahdanau_attention.h"
#include "layers/encoder_decoder.h"
#include "layers/gru.h"
#include "layers/lstm.h"

namespace d2l {

enum class RecurrentCell { gru, lstm };
enum class AttentionScoring { additive, scaled_dot_product, bilinear };

// An embedding and a multi-layer GRU or LSTM started from zeros (Seq2SeqEncoder's shapes).
//   X (batch_size, num_steps) ids -> GRU: {output, state}; LSTM: {output, h_n, c_n};
//   output (num_steps, batch_size, num_hiddens), each state (num_layers, batch_size, num_hiddens).
class VariantSeq2SeqEncoder : public Layer<VariantSeq2SeqEncoder, Encoder> {
 public:
  static constexpr const char* section = "10.4 VariantSeq2SeqEncoder";
  VariantSeq2SeqEncoder(RecurrentCell cell, int64_t vocab_size, int64_t embed_size, int64_t num_hiddens,
                        int64_t num_layers, float dropout = 0.0f);
  EncoderOutputs forward(const Tensor& X, const Tensor& valid_lens) override;

  Embedding& embedding;
  GRU* gru = nullptr;    // registered as "rnn" when the cell is the GRU
  LSTM* lstm = nullptr;  // registered as "rnn" when the cell is the LSTM
};

// Seq2SeqAttentionDecoder with a choice of cell and scoring. The state is the book's
// {enc_outputs, hidden_state, enc_valid_lens}, with the LSTM's memory cell appended as a
// fourth tensor. The query is the last layer's h either way. Scaled dot-product scoring
// has no parameters: it needs the query (the decoder's h) and keys (the encoder's outputs)
// to have one length, num_hiddens, which they do here.
class VariantAttentionDecoder : public Layer<VariantAttentionDecoder, AttentionDecoder> {
 public:
  static constexpr const char* section = "10.4 VariantAttentionDecoder";
  VariantAttentionDecoder(RecurrentCell cell, AttentionScoring scoring, int64_t vocab_size, int64_t embed_size,
                          int64_t num_hiddens, int64_t num_layers, float dropout = 0.0f);
  DecoderState init_state(const EncoderOutputs& enc_outputs, const Tensor& enc_valid_lens) override;
  std::pair<Tensor, DecoderState> forward(const Tensor& X, const DecoderState& state) override;
  const std::vector<Tensor>& attention_weights() const override { return attention_weights_; }

  const RecurrentCell cell;
  const int64_t num_hiddens, num_layers;
  AttentionPooling* attention;  // registered as "attention": additive, scaled dot product or bilinear
  Embedding* embedding;
  GRU* gru = nullptr;  // registered as "rnn", one of the two
  LSTM* lstm = nullptr;
  Linear* dense;

 private:
  std::vector<Tensor> attention_weights_;
};

}  // namespace d2l
